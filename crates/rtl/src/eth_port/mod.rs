//! The Ethernet flow-control port (docs/spec.md §9): `pfc_tx`, the frame builder `pfc_frame`,
//! `pause_rx`, the receive buffers `eth_rxbuf` and the transmit queues `eth_txq`,
//! composed once with the [`netlist!`](crate::netlist) macro: from that one description
//! come the Rust stepper [`EthPortTwin`] and the Verilog top [`variant`]
//! (one parameterised module, `iblink_eth_port`; `iblink_eth_port_q<Q>_w<W>` names a
//! configuration of it). Reference model: `iblink_model::eth_port::EthPort`;
//! lockstep: `crates/sim/tests/lockstep/eth_port.rs`.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous, every block |
//! | `cfg_pfc`, `cfg_zero_on_release`, `cfg_refresh_quanta[16]` | in | mode, release frames, refresh point (`pfc_tx`) |
//! | `cfg_pause_quanta[16Q]`, `cfg_fill_en[Q]`, `cfg_rfa[16Q]`, `cfg_rfd[16Q]` | in | per queue: PT, RX-fill trigger, RFA, RFD |
//! | `cfg_sa[48]`, `cfg_priorities[8Q]` | in | source address; per queue priority mask (both directions) |
//! | `cfg_size_words[16Q]`, `cfg_tx_words[16]` | in | receive buffer sizes; transmit queue room, in words |
//! | `hw_level[Q]`, `sw_req[Q]` | in | hardware flow-control levels, software requests |
//!
//! Every stream is AXI4-Stream (a beat moves when `tvalid` and `tready` are high; it holds
//! while `tready` is low; `tkeep` marks the valid lanes, from lane 0 up, of a last beat;
//! per-queue streams packed, queue q's beat at `[q]`):
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `s_axis_tx_tdata[WQ]`, `s_axis_tx_tkeep[WQ/8]`, `s_axis_tx_tvalid[Q]`, `s_axis_tx_tlast[Q]` / `s_axis_tx_tready[Q]` | in / out | one transmit stream per queue, from the user |
//! | `m_axis_mac_tdata[W]`, `m_axis_mac_tkeep[W/8]`, `m_axis_mac_tvalid`, `m_axis_mac_tlast` / `m_axis_mac_tready` | out / in | to the MAC: data and PAUSE/PFC frames (docs/spec.md §10) |
//! | `s_axis_mac_tdata[W]`, `s_axis_mac_tkeep[W/8]`, `s_axis_mac_tvalid`, `s_axis_mac_tlast` | in | from the MAC; no `tready` (a MAC's receive side cannot wait) |
//! | `s_axis_mac_tuser` | in | with `tlast`: the MAC marks the frame bad (FCS or PHY error): dropped, never buffered or acted on |
//! | `m_axis_rx_tdata[WQ]`, `m_axis_rx_tkeep[WQ/8]`, `m_axis_rx_tvalid[Q]`, `m_axis_rx_tlast[Q]` / `m_axis_rx_tready[Q]` | out / in | one receive stream per queue, to the user: its buffer's oldest word |
//! | `fill_bytes[16Q]`, `drop[Q]`, `paused[8]` | out | buffer fill levels, frames dropped, priorities held |
//! | `rx_bad` | out | a frame marked bad ended this clock |

use crate::emit::Variant;
use crate::eth_rxbuf::EthRxbufTwin;
use crate::eth_txq::EthTxqTwin;
use crate::io::Port;
use crate::pause_rx::PauseRxTwin;
use crate::pfc_frame::PfcFrameTwin;
use crate::pfc_tx::PfcTxTwin;
use rust_hdl::prelude::*;

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
    pub s_axis_tx_tvalid: u8,
    pub s_axis_tx_tdata: [u64; 8],
    pub s_axis_tx_tkeep: [u8; 8],
    pub s_axis_tx_tlast: u8,
    pub m_axis_mac_tready: bool,
    pub s_axis_mac_tvalid: bool,
    pub s_axis_mac_tdata: u64,
    pub s_axis_mac_tkeep: u8,
    pub s_axis_mac_tlast: bool,
    pub s_axis_mac_tuser: bool,
    pub m_axis_rx_tready: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthPortTopOut {
    pub s_axis_tx_tready: u8,
    pub m_axis_mac_tvalid: bool,
    pub m_axis_mac_tdata: u64,
    pub m_axis_mac_tkeep: u8,
    pub m_axis_mac_tlast: bool,
    pub m_axis_rx_tvalid: u8,
    pub m_axis_rx_tdata: [u64; 8],
    pub m_axis_rx_tkeep: [u8; 8],
    pub m_axis_rx_tlast: u8,
    pub fill_bytes: [u16; 8],
    pub drop: u8,
    pub rx_bad: bool,
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
            s_axis_tdata <- top.s_axis_mac_tdata;
            s_axis_tkeep <- top.s_axis_mac_tkeep;
            s_axis_tvalid <- top.s_axis_mac_tvalid;
            s_axis_tlast <- top.s_axis_mac_tlast;
            s_axis_tuser <- top.s_axis_mac_tuser;
            m_axis_tready <- top.m_axis_rx_tready;
        }
        prx: PauseRxTwin {
            reset <- top.reset;
            rx_valid <- top.s_axis_mac_tvalid;
            rx_data <- top.s_axis_mac_tdata;
            rx_keep <- top.s_axis_mac_tkeep;
            rx_last <- top.s_axis_mac_tlast;
            rx_user <- top.s_axis_mac_tuser;
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
            frame_done <- pfr.frame_done;
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
            tx_ready <- top.m_axis_mac_tready;
        }
        txq: EthTxqTwin {
            reset <- top.reset;
            cfg_priorities <- top.cfg_priorities;
            cfg_tx_words <- top.cfg_tx_words;
            s_axis_tdata <- top.s_axis_tx_tdata;
            s_axis_tkeep <- top.s_axis_tx_tkeep;
            s_axis_tvalid <- top.s_axis_tx_tvalid;
            s_axis_tlast <- top.s_axis_tx_tlast;
            paused <- prx.paused;
            ctrl <- pfr.tx_valid;
            ctrl_data <- pfr.tx_data;
            ctrl_last <- pfr.tx_last;
            m_axis_tready <- top.m_axis_mac_tready;
        }
    }
    top(o) {
        "s_axis_tx_tready" o.s_axis_tx_tready => txq.s_axis_tready;
        "m_axis_mac_tdata" o.m_axis_mac_tdata => txq.m_axis_tdata;
        "m_axis_mac_tkeep" o.m_axis_mac_tkeep => txq.m_axis_tkeep;
        "m_axis_mac_tvalid" o.m_axis_mac_tvalid => txq.m_axis_tvalid;
        "m_axis_mac_tlast" o.m_axis_mac_tlast => txq.m_axis_tlast;
        "m_axis_rx_tdata" o.m_axis_rx_tdata => rxb.m_axis_tdata;
        "m_axis_rx_tkeep" o.m_axis_rx_tkeep => rxb.m_axis_tkeep;
        "m_axis_rx_tvalid" o.m_axis_rx_tvalid => rxb.m_axis_tvalid;
        "m_axis_rx_tlast" o.m_axis_rx_tlast => rxb.m_axis_tlast;
        "fill_bytes" o.fill_bytes => rxb.fill_bytes;
        "drop" o.drop => rxb.drop;
        "rx_bad" o.rx_bad => rxb.bad;
        "paused" o.paused => prx.paused;
    }
    // The outputs of the buffers, pause_rx and pfc_tx are registered (pfc_tx's busy, the
    // queues' tx_busy, and its frame_done, the builder's, reach only its registers); the
    // builder follows pfc_tx's frame_start; the queues follow the builder's word and
    // pause_rx's paused.
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

/// The Ethernet port's one module, parameterised: every configuration is it with its
/// parameters set.
pub const MODULE: &str = "iblink_eth_port";

/// The top's header: what it is, and where its parts are documented.
const HEADER: &str = "//
// iblink_eth_port: the Ethernet flow-control port: per-queue transmit queues
// (iblink_eth_txq, which also carries the PAUSE/PFC words of iblink_pfc_frame to the
// wire) -> the MAC; the MAC -> iblink_pause_rx (priorities held) and the receive buffers
// (iblink_eth_rxbuf), whose fill levels drive iblink_pfc_tx. One module for every
// configuration: the queues, the width and the memories are parameters; the flow-control
// configuration comes in on the cfg_* ports. Streams are AXI4-Stream (a beat moves when
// tvalid and tready are high, and holds while tready is low): s_axis_tx_* (one per
// queue, packed: queue q's beat at [q]) from the user, m_axis_mac_* to the MAC (which may
// stall it any clock, docs/spec.md §10), s_axis_mac_* from the MAC (no tready: a MAC's
// receive side cannot wait; tuser on the last beat marks a bad frame), m_axis_rx_* (one
// per queue) to the user. Each instance's module documents its ports and cycle
// contract; the rules of the whole are in docs/pfc.md. Files: iblink_eth_port.f.
";

/// The configuration's name.
pub fn top_name(queues: usize, width: usize) -> String {
    format!("iblink_eth_port_q{queues}_w{width}")
}

/// The top's ports (the rust-hdl block's).
pub fn ports(queues: usize, width: usize) -> Vec<Port> {
    crate::with_eth_port!((queues, width), |T| crate::io::top_ports(&T::default()),
        _ => panic!("Ethernet port: {queues} queues at {width} bits is not generated"))
}

/// The port with `queues` queues at `width` bits: its top and every module it names.
pub fn variant(queues: usize, width: usize) -> Variant {
    assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "Ethernet port: {queues} queues at {width} bits");
    let memories = (crate::eth_rxbuf::variant(queues, width), crate::eth_txq::variant(queues, width));
    composed(top_name(queues, width), queues, width, memories)
}

/// The port with memories of `rx_bytes` a receive queue and `tx_bytes` a transmit queue
/// (see the blocks' `sized_variant`), for synthesis on small devices:
/// `iblink_eth_port_q<queues>_w<width>_rx<KB>k_tx<KB>k`: the same module and ports,
/// `RX_ADDR_BITS`/`TX_ADDR_BITS` from the bytes.
pub fn sized_variant(queues: usize, width: usize, rx_bytes: usize, tx_bytes: usize) -> Variant {
    assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "Ethernet port: {queues} queues at {width} bits");
    let memories = (
        crate::eth_rxbuf::sized_variant(queues, width, rx_bytes),
        crate::eth_txq::sized_variant(queues, width, tx_bytes),
    );
    let name = format!("{}_rx{}k_tx{}k", top_name(queues, width), rx_bytes / 1024, tx_bytes / 1024);
    composed(name, queues, width, memories)
}

/// A memory's `ADDR_BITS`, as its variant sets it.
fn addr_bits(v: &Variant) -> String {
    v.param("ADDR_BITS").unwrap_or_else(|| panic!("{} sets no ADDR_BITS", v.name)).to_string()
}

/// The top named `name` around the receive buffers and transmit queues given.
fn composed(
    name: String,
    queues: usize,
    width: usize,
    (rxb, txq): (Variant, Variant),
) -> Variant {
    let ports = ports(queues, width);
    let blocks = vec![
        ("rxb", rxb),
        ("prx", crate::pause_rx::variant(width)),
        ("ptx", crate::pfc_tx::variant(queues, width)),
        ("pfr", crate::pfc_frame::variant(queues, width)),
        ("txq", txq),
    ];
    let values = vec![
        ("QUEUES".to_string(), queues.to_string()),
        ("DATA_WIDTH".to_string(), width.to_string()),
        ("RX_ADDR_BITS".to_string(), addr_bits(&blocks[0].1)),
        ("TX_ADDR_BITS".to_string(), addr_bits(&blocks[4].1)),
    ];
    let p = |c: &str, d: &str| (c.to_string(), d.to_string());
    let param = crate::netlist::Parameterised {
        params: vec![
            p("Queues, 1 to 8 (each a set of priorities, docs/spec.md §9)", "QUEUES = 8"),
            p("Bits per clock: 32 or 64", "DATA_WIDTH = 64"),
            p(
                "Memory per receive queue and per transmit queue: 2^ADDR_BITS words (by default\n128 KB and 16 KB a queue)",
                "RX_ADDR_BITS = DATA_WIDTH == 64 ? 14 : 15",
            ),
            p("", "TX_ADDR_BITS = DATA_WIDTH == 64 ? 11 : 12"),
        ],
        body: String::new(),
        rename: vec![("rxb", "ADDR_BITS", "RX_ADDR_BITS".to_string()), ("txq", "ADDR_BITS", "TX_ADDR_BITS".to_string())],
    };
    crate::netlist::composed_variant(&EthPortTwin::DESCRIPTION, MODULE, &name, "eth_port", HEADER, &param, values, ports, &blocks)
        .unwrap_or_else(|e| panic!("the Ethernet port's netlist: {e}"))
}

/// The outputs as every binding shows them (the blocks' rules): the receive words and the
/// wire's data only while valid and in their lanes.
fn masked(o: EthPortTopOut, queues: usize) -> EthPortTopOut {
    let r = crate::eth_rxbuf::masked(
        crate::eth_rxbuf::EthRxbufOut {
            m_axis_tdata: o.m_axis_rx_tdata,
            m_axis_tkeep: o.m_axis_rx_tkeep,
            m_axis_tvalid: o.m_axis_rx_tvalid,
            m_axis_tlast: o.m_axis_rx_tlast,
            fill_bytes: o.fill_bytes,
            drop: o.drop,
            bad: o.rx_bad,
        },
        queues,
    );
    let t = crate::eth_txq::masked(crate::eth_txq::EthTxqOut {
        s_axis_tready: o.s_axis_tx_tready,
        m_axis_tdata: o.m_axis_mac_tdata,
        m_axis_tkeep: o.m_axis_mac_tkeep,
        m_axis_tvalid: o.m_axis_mac_tvalid,
        m_axis_tlast: o.m_axis_mac_tlast,
        tx_busy: false,
    });
    EthPortTopOut {
        m_axis_mac_tdata: t.m_axis_tdata,
        m_axis_mac_tkeep: t.m_axis_tkeep,
        m_axis_mac_tlast: t.m_axis_tlast,
        m_axis_rx_tdata: r.m_axis_tdata,
        m_axis_rx_tkeep: r.m_axis_tkeep,
        m_axis_rx_tlast: r.m_axis_tlast,
        ..o
    }
}

crate::hdl_block! {
    /// The port for rust-hdl: `Q` queues at `W` bits; `K = W / 8`, `P = 8Q`, `S = 16Q`,
    /// `D = WQ`, `KQ = KQ`. Its `update` runs [`EthPortTwin`]; its `hdl()` instantiates the
    /// generated top. Outputs read back are [`masked`].
    pub struct EthPortUnit<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> {
        twin: EthPortTwin,
    }
    check: K * 8 == W && P == 8 * Q && S == 16 * Q && D == W * Q && KQ == K * Q;
    default: Self::with_twin(EthPortTwin::new(Q, W));
    hdl: |u| {
        let v = variant(Q, W);
        let texts: Vec<&str> = v.modules.iter().map(|m| m.text.as_str()).collect();
        crate::emit::rust_hdl_wrapper(u, &v.top, &v.params, &texts.join("\n"))
    };
    sampled: |o| masked(o, Q);
    ports(i: EthPortTopIn, o: EthPortTopOut) {
        reset: in Bit = i.reset;
        cfg_pfc: in Bit = i.cfg_pfc;
        cfg_zero_on_release: in Bit = i.cfg_zero_on_release;
        cfg_refresh_quanta: in Bits<16> = i.cfg_refresh_quanta;
        cfg_pause_quanta: in Bits<S> = i.cfg_pause_quanta, each 16;
        cfg_fill_en: in Bits<Q> = i.cfg_fill_en;
        cfg_rfa: in Bits<S> = i.cfg_rfa, each 16;
        cfg_rfd: in Bits<S> = i.cfg_rfd, each 16;
        cfg_sa: in Bits<48> = i.cfg_sa;
        cfg_priorities: in Bits<P> = i.cfg_priorities, each 8;
        cfg_size_words: in Bits<S> = i.cfg_size_words, each 16;
        cfg_tx_words: in Bits<16> = i.cfg_tx_words;
        hw_level: in Bits<Q> = i.hw_level;
        sw_req: in Bits<Q> = i.sw_req;
        s_axis_tx_tdata: in Bits<D> = i.s_axis_tx_tdata, each W;
        s_axis_tx_tkeep: in Bits<KQ> = i.s_axis_tx_tkeep, each K;
        s_axis_tx_tvalid: in Bits<Q> = i.s_axis_tx_tvalid;
        s_axis_tx_tready: out Bits<Q> = o.s_axis_tx_tready;
        s_axis_tx_tlast: in Bits<Q> = i.s_axis_tx_tlast;
        m_axis_mac_tdata: out Bits<W> = o.m_axis_mac_tdata;
        m_axis_mac_tkeep: out Bits<K> = o.m_axis_mac_tkeep;
        m_axis_mac_tvalid: out Bit = o.m_axis_mac_tvalid;
        m_axis_mac_tready: in Bit = i.m_axis_mac_tready;
        m_axis_mac_tlast: out Bit = o.m_axis_mac_tlast;
        s_axis_mac_tdata: in Bits<W> = i.s_axis_mac_tdata;
        s_axis_mac_tkeep: in Bits<K> = i.s_axis_mac_tkeep;
        s_axis_mac_tvalid: in Bit = i.s_axis_mac_tvalid;
        s_axis_mac_tlast: in Bit = i.s_axis_mac_tlast;
        s_axis_mac_tuser: in Bit = i.s_axis_mac_tuser;
        m_axis_rx_tdata: out Bits<D> = o.m_axis_rx_tdata, each W;
        m_axis_rx_tkeep: out Bits<KQ> = o.m_axis_rx_tkeep, each K;
        m_axis_rx_tvalid: out Bits<Q> = o.m_axis_rx_tvalid;
        m_axis_rx_tready: in Bits<Q> = i.m_axis_rx_tready;
        m_axis_rx_tlast: out Bits<Q> = o.m_axis_rx_tlast;
        fill_bytes: out Bits<S> = o.fill_bytes, each 16;
        drop: out Bits<Q> = o.drop;
        rx_bad: out Bit = o.rx_bad;
        paused: out Bits<8> = o.paused;
    }
}

pub type EthPortQ1W32 = EthPortUnit<1, 32, 4, 8, 16, 32, 4>;
pub type EthPortQ2W32 = EthPortUnit<2, 32, 4, 16, 32, 64, 8>;
pub type EthPortQ3W32 = EthPortUnit<3, 32, 4, 24, 48, 96, 12>;
pub type EthPortQ4W32 = EthPortUnit<4, 32, 4, 32, 64, 128, 16>;
pub type EthPortQ5W32 = EthPortUnit<5, 32, 4, 40, 80, 160, 20>;
pub type EthPortQ6W32 = EthPortUnit<6, 32, 4, 48, 96, 192, 24>;
pub type EthPortQ7W32 = EthPortUnit<7, 32, 4, 56, 112, 224, 28>;
pub type EthPortQ8W32 = EthPortUnit<8, 32, 4, 64, 128, 256, 32>;
pub type EthPortQ1W64 = EthPortUnit<1, 64, 8, 8, 16, 64, 8>;
pub type EthPortQ2W64 = EthPortUnit<2, 64, 8, 16, 32, 128, 16>;
pub type EthPortQ3W64 = EthPortUnit<3, 64, 8, 24, 48, 192, 24>;
pub type EthPortQ4W64 = EthPortUnit<4, 64, 8, 32, 64, 256, 32>;
pub type EthPortQ5W64 = EthPortUnit<5, 64, 8, 40, 80, 320, 40>;
pub type EthPortQ6W64 = EthPortUnit<6, 64, 8, 48, 96, 384, 48>;
pub type EthPortQ7W64 = EthPortUnit<7, 64, 8, 56, 112, 448, 56>;
pub type EthPortQ8W64 = EthPortUnit<8, 64, 8, 64, 128, 512, 64>;
