//! The Ethernet flow-control port (SPEC.md §9): `pfc_tx`, the frame builder `pfc_frame`,
//! `pause_rx`, the receive buffers `eth_rxbuf` and the transmit queues `eth_txq`,
//! composed once with the [`netlist!`](crate::netlist) macro: from that one description
//! come the Rust stepper [`EthPortTwin`] and the Verilog top [`variant`]
//! (`iblink_eth_port_q<Q>_w<W>`). Reference model: `iblink_model::eth_port::EthPort`;
//! lockstep: `lockstep.rs` here.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous, every block |
//! | `cfg_pfc`, `cfg_zero_on_release`, `cfg_refresh_quanta[16]` | in | mode, release frames, refresh point (`pfc_tx`) |
//! | `cfg_pause_quanta[16Q]`, `cfg_fill_en[Q]`, `cfg_rfa[16Q]`, `cfg_rfd[16Q]` | in | per queue: PT, RX-fill trigger, RFA, RFD |
//! | `cfg_sa[48]`, `cfg_priorities[8Q]` | in | source address; per queue priority mask (both directions) |
//! | `cfg_size_words[16Q]`, `cfg_tx_words[16]` | in | receive buffer sizes; transmit queue room, in words |
//! | `hw_level[Q]`, `sw_req[Q]` | in | hardware flow-control levels, software requests |
//! | `s_valid[Q]`, `s_data[WQ]`, `s_keep[WQ/8]`, `s_last[Q]` / `s_ready[Q]` | in / out | one transmit stream per queue |
//! | `tx_valid`, `tx_data[W]`, `tx_keep[W/8]`, `tx_last` | out | to the MAC: data and PAUSE/PFC frames |
//! | `rx_valid`, `rx_data[W]`, `rx_keep[W/8]`, `rx_last` | in | from the MAC |
//! | `rd_en[Q]` / `rd_valid[Q]`, `rd_data[WQ]`, `rd_keep[WQ/8]`, `rd_last[Q]` | in / out | readers of the receive buffers (a word the clock after the ask) |
//! | `fill_bytes[16Q]`, `drop[Q]`, `paused[8]` | out | buffer fill levels, frames dropped, priorities held |

use crate::emit::{generated, EmittedModule, Variant};
use crate::eth_rxbuf::EthRxbufTwin;
use crate::eth_txq::EthTxqTwin;
use crate::io::{Dir, Port};
use crate::netlist::Placed;
use crate::pause_rx::PauseRxTwin;
use crate::pfc_frame::PfcFrameTwin;
use crate::pfc_tx::PfcTxTwin;
use std::collections::BTreeMap;

pub use crate::pfc_tx::{QUEUE_COUNTS, WIDTHS};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthPortTopIn {
    pub reset: bool,
    pub cfg_pfc: bool,
    pub cfg_zero_on_release: bool,
    pub cfg_refresh_quanta: u16,
    pub cfg_pause_quanta: [u16; 8],
    pub cfg_fill_en: u8,
    pub cfg_rfa: [u16; 8],
    pub cfg_rfd: [u16; 8],
    pub cfg_sa: u64,
    pub cfg_priorities: [u8; 8],
    pub cfg_size_words: [u16; 8],
    pub cfg_tx_words: u16,
    pub hw_level: u8,
    pub sw_req: u8,
    pub s_valid: u8,
    pub s_data: [u64; 8],
    pub s_keep: [u8; 8],
    pub s_last: u8,
    pub rx_valid: bool,
    pub rx_data: u64,
    pub rx_keep: u8,
    pub rx_last: bool,
    pub rd_en: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthPortTopOut {
    pub s_ready: u8,
    pub tx_valid: bool,
    pub tx_data: u64,
    pub tx_keep: u8,
    pub tx_last: bool,
    pub rd_valid: u8,
    pub rd_data: [u64; 8],
    pub rd_keep: [u8; 8],
    pub rd_last: u8,
    pub fill_bytes: [u16; 8],
    pub drop: u8,
    pub paused: u8,
}

crate::netlist! {
    /// The Ethernet port's Rust stepper: every block's twin, wired as the Verilog top
    /// wires the modules.
    pub struct EthPortTwin (EthPortTopIn => EthPortTopOut), outputs EthPortNets {
        rxb: EthRxbufTwin {
            reset <- top.reset;
            cfg_priorities <- top.cfg_priorities;
            cfg_size_words <- top.cfg_size_words;
            rx_valid <- top.rx_valid;
            rx_data <- top.rx_data;
            rx_keep <- top.rx_keep;
            rx_last <- top.rx_last;
            rd_en <- top.rd_en;
        }
        prx: PauseRxTwin {
            reset <- top.reset;
            rx_valid <- top.rx_valid;
            rx_data <- top.rx_data;
            rx_keep <- top.rx_keep;
            rx_last <- top.rx_last;
        }
        ptx: PfcTxTwin {
            reset <- top.reset;
            cfg_pfc <- top.cfg_pfc;
            cfg_zero_on_release <- top.cfg_zero_on_release;
            cfg_refresh_quanta <- top.cfg_refresh_quanta;
            cfg_pause_quanta <- top.cfg_pause_quanta;
            cfg_fill_en <- top.cfg_fill_en;
            cfg_rfa <- top.cfg_rfa;
            cfg_rfd <- top.cfg_rfd;
            fill_bytes <- rxb.fill_bytes;
            hw_level <- top.hw_level;
            sw_req <- top.sw_req;
            busy <- txq.tx_busy;
        }
        pfr: PfcFrameTwin {
            reset <- top.reset;
            cfg_pfc <- top.cfg_pfc;
            cfg_sa <- top.cfg_sa;
            cfg_priorities <- top.cfg_priorities;
            cfg_pause_quanta <- top.cfg_pause_quanta;
            frame_start <- ptx.frame_start;
            frame_queues <- ptx.frame_queues;
            frame_zero <- ptx.frame_zero;
        }
        txq: EthTxqTwin {
            reset <- top.reset;
            cfg_priorities <- top.cfg_priorities;
            cfg_tx_words <- top.cfg_tx_words;
            s_valid <- top.s_valid;
            s_data <- top.s_data;
            s_keep <- top.s_keep;
            s_last <- top.s_last;
            paused <- prx.paused;
            ctrl <- pfr.tx_valid;
            ctrl_data <- pfr.tx_data;
            ctrl_last <- pfr.tx_last;
        }
    }
    top(o) {
        "s_ready" o.s_ready => txq.s_ready;
        "tx_valid" o.tx_valid => txq.tx_valid;
        "tx_data" o.tx_data => txq.tx_data;
        "tx_keep" o.tx_keep => txq.tx_keep;
        "tx_last" o.tx_last => txq.tx_last;
        "rd_valid" o.rd_valid => rxb.rd_valid;
        "rd_data" o.rd_data => rxb.rd_data;
        "rd_keep" o.rd_keep => rxb.rd_keep;
        "rd_last" o.rd_last => rxb.rd_last;
        "fill_bytes" o.fill_bytes => rxb.fill_bytes;
        "drop" o.drop => rxb.drop;
        "paused" o.paused => prx.paused;
    }
    // The outputs of the buffers, pause_rx and pfc_tx are registered (pfc_tx's busy, the
    // queues' tx_busy, reaches only its registers); the builder follows pfc_tx's
    // frame_start; the queues follow the builder's word and pause_rx's paused.
    schedule [rxb, prx, ptx, pfr, txq]
    names {}
}

impl EthPortTwin {
    /// The port with `queues` queues at `width` bits, at power-up.
    pub fn new(queues: usize, width: usize) -> Self {
        Self::__new(
            EthRxbufTwin::new(queues, width),
            PauseRxTwin::new(width),
            PfcTxTwin::new(queues, width),
            PfcFrameTwin::new(queues, width),
            EthTxqTwin::new(queues, width),
        )
    }
}

/// The top's name.
pub fn top_name(queues: usize, width: usize) -> String {
    format!("iblink_eth_port_q{queues}_w{width}")
}

/// The top's ports.
pub fn ports(queues: usize, width: usize) -> Vec<Port> {
    let (q, w, k) = (queues, width, width / 8);
    let p = |name: &str, width: usize, dir: Dir| Port { name: name.to_string(), width, dir };
    use Dir::{Input as I, Output as O};
    vec![
        p("clock", 1, I),
        p("reset", 1, I),
        p("cfg_pfc", 1, I),
        p("cfg_zero_on_release", 1, I),
        p("cfg_refresh_quanta", 16, I),
        p("cfg_pause_quanta", 16 * q, I),
        p("cfg_fill_en", q, I),
        p("cfg_rfa", 16 * q, I),
        p("cfg_rfd", 16 * q, I),
        p("cfg_sa", 48, I),
        p("cfg_priorities", 8 * q, I),
        p("cfg_size_words", 16 * q, I),
        p("cfg_tx_words", 16, I),
        p("hw_level", q, I),
        p("sw_req", q, I),
        p("s_valid", q, I),
        p("s_data", w * q, I),
        p("s_keep", k * q, I),
        p("s_last", q, I),
        p("s_ready", q, O),
        p("tx_valid", 1, O),
        p("tx_data", w, O),
        p("tx_keep", k, O),
        p("tx_last", 1, O),
        p("rx_valid", 1, I),
        p("rx_data", w, I),
        p("rx_keep", k, I),
        p("rx_last", 1, I),
        p("rd_en", q, I),
        p("rd_valid", q, O),
        p("rd_data", w * q, O),
        p("rd_keep", k * q, O),
        p("rd_last", q, O),
        p("fill_bytes", 16 * q, O),
        p("drop", q, O),
        p("paused", 8, O),
    ]
}

/// The blocks inside, by instance name.
fn blocks(queues: usize, width: usize) -> Vec<(&'static str, Variant)> {
    vec![
        ("rxb", crate::eth_rxbuf::variant(queues, width)),
        ("prx", crate::pause_rx::variant(width)),
        ("ptx", crate::pfc_tx::variant(queues, width)),
        ("pfr", crate::pfc_frame::variant(queues, width)),
        ("txq", crate::eth_txq::variant(queues, width)),
    ]
}

/// The port with `queues` queues at `width` bits: its top and every module it names.
pub fn variant(queues: usize, width: usize) -> Variant {
    assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "Ethernet port: {queues} queues at {width} bits");
    let name = top_name(queues, width);
    let ports = ports(queues, width);
    let blocks = blocks(queues, width);
    let placed: BTreeMap<&str, Placed> = blocks
        .iter()
        .map(|(inst, v)| (*inst, Placed { module: v.top.clone(), params: v.params.clone(), ports: v.ports.clone() }))
        .collect();
    let doc = format!(
        "//\n// {name}: the Ethernet flow-control port, {queues} queues at {width} bits a clock:\n\
         // per-queue transmit queues (iblink_eth_txq, which also carries the PAUSE/PFC\n\
         // words of iblink_pfc_frame to the wire) -> the MAC; the MAC -> iblink_pause_rx\n\
         // (priorities held) and the receive buffers (iblink_eth_rxbuf), whose fill levels\n\
         // drive iblink_pfc_tx. Each instance's module documents its ports and cycle\n\
         // contract; the rules of the whole are in docs/pfc.md.\n"
    );
    let body = EthPortTwin::DESCRIPTION.render_top(&name, &doc, &ports, &placed).unwrap_or_else(|e| panic!("the Ethernet port's netlist: {e}"));
    let top = generated(&name, "eth_port", vec![("queues".into(), queues.to_string()), ("width".into(), width.to_string())], &body);
    let mut modules: Vec<EmittedModule> = vec![top];
    for (_, v) in &blocks {
        for m in &v.modules {
            if !modules.iter().any(|x| x.name == m.name) {
                modules.push(m.clone());
            }
        }
    }
    Variant { name: name.clone(), block: "eth_port", top: name, params: vec![], modules, ports }
}
