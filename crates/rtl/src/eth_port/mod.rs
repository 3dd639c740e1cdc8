//! The Ethernet flow-control port (docs/spec.md §9): `pfc_tx`, the frame builder `pfc_frame`,
//! `pause_rx`, the receive buffers `eth_rxbuf` and the transmit queues `eth_txq`,
//! composed once with the [`netlist!`](crate::netlist) macro: from that one description
//! come the Rust stepper [`EthPortTwin`] and the Verilog top [`variant`]
//! (`iblink_eth_port_q<Q>_w<W>`). Reference model: `iblink_model::eth_port::EthPort`;
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
//! | `s_valid[Q]`, `s_data[WQ]`, `s_keep[WQ/8]`, `s_last[Q]` / `s_ready[Q]` | in / out | one transmit stream per queue |
//! | `tx_valid`, `tx_data[W]`, `tx_keep[W/8]`, `tx_last` | out | to the MAC: data and PAUSE/PFC frames |
//! | `rx_valid`, `rx_data[W]`, `rx_keep[W/8]`, `rx_last` | in | from the MAC |
//! | `rd_en[Q]` / `rd_valid[Q]`, `rd_data[WQ]`, `rd_keep[WQ/8]`, `rd_last[Q]` | in / out | readers of the receive buffers (a word the clock after the ask) |
//! | `fill_bytes[16Q]`, `drop[Q]`, `paused[8]` | out | buffer fill levels, frames dropped, priorities held |

use crate::bits::{bits_from_words, fields8, mask, pack_fields, read_words};
use crate::emit::Variant;
use crate::eth_rxbuf::EthRxbufTwin;
use crate::eth_txq::EthTxqTwin;
use crate::io::{HdlIo, Opaque, Port, PortSpec};
use crate::pause_rx::PauseRxTwin;
use crate::pfc_frame::PfcFrameTwin;
use crate::pfc_tx::PfcTxTwin;
use crate::twin::Twin;
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

/// The top's ports (the rust-hdl block's).
pub fn ports(queues: usize, width: usize) -> Vec<Port> {
    crate::with_eth_port!((queues, width), |T| crate::io::top_ports(&T::default()),
        _ => panic!("Ethernet port: {queues} queues at {width} bits is not generated"))
}

/// The port with `queues` queues at `width` bits: its top and every module it names.
pub fn variant(queues: usize, width: usize) -> Variant {
    assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "Ethernet port: {queues} queues at {width} bits");
    let memories = (crate::eth_rxbuf::variant(queues, width), crate::eth_txq::variant(queues, width));
    composed(top_name(queues, width), queues, width, memories, vec![])
}

/// The port with memories of `rx_bytes` a receive queue and `tx_bytes` a transmit queue
/// (see the blocks' `sized_variant`), for synthesis on small devices:
/// `iblink_eth_port_q<queues>_w<width>_rx<KB>k_tx<KB>k`. Same ports.
pub fn sized_variant(queues: usize, width: usize, rx_bytes: usize, tx_bytes: usize) -> Variant {
    assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "Ethernet port: {queues} queues at {width} bits");
    let memories = (
        crate::eth_rxbuf::sized_variant(queues, width, rx_bytes),
        crate::eth_txq::sized_variant(queues, width, tx_bytes),
    );
    let name = format!("{}_rx{}k_tx{}k", top_name(queues, width), rx_bytes / 1024, tx_bytes / 1024);
    let sizes = vec![("rx_memory_bytes".into(), rx_bytes.to_string()), ("tx_memory_bytes".into(), tx_bytes.to_string())];
    composed(name, queues, width, memories, sizes)
}

/// The top named `name` around the receive buffers and transmit queues given.
fn composed(
    name: String,
    queues: usize,
    width: usize,
    (rxb, txq): (Variant, Variant),
    sizes: Vec<(String, String)>,
) -> Variant {
    let ports = ports(queues, width);
    let blocks = vec![
        ("rxb", rxb),
        ("prx", crate::pause_rx::variant(width)),
        ("ptx", crate::pfc_tx::variant(queues, width)),
        ("pfr", crate::pfc_frame::variant(queues, width)),
        ("txq", txq),
    ];
    let doc = format!(
        "//\n// {name}: the Ethernet flow-control port, {queues} queues at {width} bits a clock:\n\
         // per-queue transmit queues (iblink_eth_txq, which also carries the PAUSE/PFC\n\
         // words of iblink_pfc_frame to the wire) -> the MAC; the MAC -> iblink_pause_rx\n\
         // (priorities held) and the receive buffers (iblink_eth_rxbuf), whose fill levels\n\
         // drive iblink_pfc_tx. Each instance's module documents its ports and cycle\n\
         // contract; the rules of the whole are in docs/pfc.md.\n"
    );
    let mut config = vec![("queues".into(), queues.to_string()), ("width".into(), width.to_string())];
    config.extend(sizes);
    crate::netlist::composed_variant(&EthPortTwin::DESCRIPTION, &name, "eth_port", config, &doc, ports, &blocks)
        .unwrap_or_else(|e| panic!("the Ethernet port's netlist: {e}"))
}

/// The outputs as every binding shows them (the blocks' rules): the receive words and the
/// wire's data only while valid and in their lanes.
fn masked(o: EthPortTopOut, queues: usize) -> EthPortTopOut {
    let r = crate::eth_rxbuf::masked(
        crate::eth_rxbuf::EthRxbufOut { rd_valid: o.rd_valid, rd_data: o.rd_data, rd_keep: o.rd_keep, rd_last: o.rd_last, fill_bytes: o.fill_bytes, drop: o.drop },
        queues,
    );
    let t = crate::eth_txq::masked(crate::eth_txq::EthTxqOut {
        s_ready: o.s_ready,
        tx_valid: o.tx_valid,
        tx_data: o.tx_data,
        tx_keep: o.tx_keep,
        tx_last: o.tx_last,
        tx_busy: false,
    });
    EthPortTopOut { tx_data: t.tx_data, tx_keep: t.tx_keep, tx_last: t.tx_last, rd_data: r.rd_data, rd_keep: r.rd_keep, rd_last: r.rd_last, ..o }
}

/// The port for rust-hdl: `Q` queues at `W` bits; `K = W / 8`, `P = 8Q`, `S = 16Q`,
/// `D = WQ`, `KQ = KQ`. Its `update` runs [`EthPortTwin`]; its `hdl()` instantiates the
/// generated top.
#[derive(LogicBlock)]
pub struct EthPortUnit<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cfg_pfc: Signal<In, Bit>,
    pub cfg_zero_on_release: Signal<In, Bit>,
    pub cfg_refresh_quanta: Signal<In, Bits<16>>,
    pub cfg_pause_quanta: Signal<In, Bits<S>>,
    pub cfg_fill_en: Signal<In, Bits<Q>>,
    pub cfg_rfa: Signal<In, Bits<S>>,
    pub cfg_rfd: Signal<In, Bits<S>>,
    pub cfg_sa: Signal<In, Bits<48>>,
    pub cfg_priorities: Signal<In, Bits<P>>,
    pub cfg_size_words: Signal<In, Bits<S>>,
    pub cfg_tx_words: Signal<In, Bits<16>>,
    pub hw_level: Signal<In, Bits<Q>>,
    pub sw_req: Signal<In, Bits<Q>>,
    pub s_valid: Signal<In, Bits<Q>>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_keep: Signal<In, Bits<KQ>>,
    pub s_last: Signal<In, Bits<Q>>,
    pub s_ready: Signal<Out, Bits<Q>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<W>>,
    pub tx_keep: Signal<Out, Bits<K>>,
    pub tx_last: Signal<Out, Bit>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<W>>,
    pub rx_keep: Signal<In, Bits<K>>,
    pub rx_last: Signal<In, Bit>,
    pub rd_en: Signal<In, Bits<Q>>,
    pub rd_valid: Signal<Out, Bits<Q>>,
    pub rd_data: Signal<Out, Bits<D>>,
    pub rd_keep: Signal<Out, Bits<KQ>>,
    pub rd_last: Signal<Out, Bits<Q>>,
    pub fill_bytes: Signal<Out, Bits<S>>,
    pub drop: Signal<Out, Bits<Q>>,
    pub paused: Signal<Out, Bits<8>>,
    twin: Opaque<EthPortTwin>,
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> Default
    for EthPortUnit<Q, W, K, P, S, D, KQ>
{
    fn default() -> Self {
        assert!(K * 8 == W && P == 8 * Q && S == 16 * Q && D == W * Q && KQ == K * Q, "EthPortUnit<{Q}, {W}>");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_pfc: Default::default(),
            cfg_zero_on_release: Default::default(),
            cfg_refresh_quanta: Default::default(),
            cfg_pause_quanta: Default::default(),
            cfg_fill_en: Default::default(),
            cfg_rfa: Default::default(),
            cfg_rfd: Default::default(),
            cfg_sa: Default::default(),
            cfg_priorities: Default::default(),
            cfg_size_words: Default::default(),
            cfg_tx_words: Default::default(),
            hw_level: Default::default(),
            sw_req: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_last: Default::default(),
            s_ready: Default::default(),
            tx_valid: Default::default(),
            tx_data: Default::default(),
            tx_keep: Default::default(),
            tx_last: Default::default(),
            rx_valid: Default::default(),
            rx_data: Default::default(),
            rx_keep: Default::default(),
            rx_last: Default::default(),
            rd_en: Default::default(),
            rd_valid: Default::default(),
            rd_data: Default::default(),
            rd_keep: Default::default(),
            rd_last: Default::default(),
            fill_bytes: Default::default(),
            drop: Default::default(),
            paused: Default::default(),
            twin: Opaque(EthPortTwin::new(Q, W)),
        }
    }
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> Logic
    for EthPortUnit<Q, W, K, P, S, D, KQ>
{
    fn update(&mut self) {
        let i = EthPortTopIn {
            reset: self.reset.val(),
            cfg_pfc: self.cfg_pfc.val(),
            cfg_zero_on_release: self.cfg_zero_on_release.val(),
            cfg_refresh_quanta: self.cfg_refresh_quanta.val().to_u64() as u16,
            cfg_pause_quanta: fields8(&read_words::<S>(&self.cfg_pause_quanta.val()), 16, Q),
            cfg_fill_en: self.cfg_fill_en.val().to_u64() as u8,
            cfg_rfa: fields8(&read_words::<S>(&self.cfg_rfa.val()), 16, Q),
            cfg_rfd: fields8(&read_words::<S>(&self.cfg_rfd.val()), 16, Q),
            cfg_sa: self.cfg_sa.val().to_u64(),
            cfg_priorities: fields8(&read_words::<P>(&self.cfg_priorities.val()), 8, Q),
            cfg_size_words: fields8(&read_words::<S>(&self.cfg_size_words.val()), 16, Q),
            cfg_tx_words: self.cfg_tx_words.val().to_u64() as u16,
            hw_level: self.hw_level.val().to_u64() as u8,
            sw_req: self.sw_req.val().to_u64() as u8,
            s_valid: self.s_valid.val().to_u64() as u8,
            s_data: fields8(&read_words::<D>(&self.s_data.val()), W, Q),
            s_keep: fields8(&read_words::<KQ>(&self.s_keep.val()), K, Q),
            s_last: self.s_last.val().to_u64() as u8,
            rx_valid: self.rx_valid.val(),
            rx_data: self.rx_data.val().to_u64(),
            rx_keep: self.rx_keep.val().to_u64() as u8,
            rx_last: self.rx_last.val(),
            rd_en: self.rd_en.val().to_u64() as u8,
        };
        if self.clock.pos_edge() {
            self.twin.tick(&i);
        }
        let o = self.twin.eval(&i);
        let (mut d, mut k, mut f) = ([0u64; 8], [0u64; 1], [0u64; 2]);
        pack_fields(&o.rd_data[..Q], W, &mut d);
        pack_fields(&o.rd_keep[..Q], K, &mut k);
        pack_fields(&o.fill_bytes[..Q], 16, &mut f);
        self.s_ready.next = (o.s_ready as u64).into();
        self.tx_valid.next = o.tx_valid;
        self.tx_data.next = (o.tx_data & mask(W)).into();
        self.tx_keep.next = (o.tx_keep as u64 & mask(K)).into();
        self.tx_last.next = o.tx_last;
        self.rd_valid.next = (o.rd_valid as u64).into();
        self.rd_data.next = bits_from_words::<D>(&d);
        self.rd_keep.next = bits_from_words::<KQ>(&k);
        self.rd_last.next = (o.rd_last as u64).into();
        self.fill_bytes.next = bits_from_words::<S>(&f);
        self.drop.next = (o.drop as u64).into();
        self.paused.next = (o.paused as u64).into();
    }

    fn connect(&mut self) {
        self.s_ready.connect();
        self.tx_valid.connect();
        self.tx_data.connect();
        self.tx_keep.connect();
        self.tx_last.connect();
        self.rd_valid.connect();
        self.rd_data.connect();
        self.rd_keep.connect();
        self.rd_last.connect();
        self.fill_bytes.connect();
        self.drop.connect();
        self.paused.connect();
    }

    fn hdl(&self) -> Verilog {
        let v = variant(Q, W);
        let texts: Vec<&str> = v.modules.iter().map(|m| m.text.as_str()).collect();
        crate::emit::rust_hdl_wrapper(self, &v.top, &[], &texts.join("\n"))
    }
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> HdlIo
    for EthPortUnit<Q, W, K, P, S, D, KQ>
{
    type In = EthPortTopIn;
    type Out = EthPortTopOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("cfg_pfc"),
        PortSpec::new("cfg_zero_on_release"),
        PortSpec::new("cfg_refresh_quanta"),
        PortSpec::new("cfg_pause_quanta"),
        PortSpec::new("cfg_fill_en"),
        PortSpec::new("cfg_rfa"),
        PortSpec::new("cfg_rfd"),
        PortSpec::new("cfg_sa"),
        PortSpec::new("cfg_priorities"),
        PortSpec::new("cfg_size_words"),
        PortSpec::new("cfg_tx_words"),
        PortSpec::new("hw_level"),
        PortSpec::new("sw_req"),
        PortSpec::new("s_valid"),
        PortSpec::new("s_data"),
        PortSpec::new("s_keep"),
        PortSpec::new("s_last"),
        PortSpec::new("rx_valid"),
        PortSpec::new("rx_data"),
        PortSpec::new("rx_keep"),
        PortSpec::new("rx_last"),
        PortSpec::new("rd_en"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("s_ready"),
        PortSpec::new("tx_valid"),
        PortSpec::new("tx_data"),
        PortSpec::new("tx_keep"),
        PortSpec::new("tx_last"),
        PortSpec::new("rd_valid"),
        PortSpec::new("rd_data"),
        PortSpec::new("rd_keep"),
        PortSpec::new("rd_last"),
        PortSpec::new("fill_bytes"),
        PortSpec::new("drop"),
        PortSpec::new("paused"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &EthPortTopIn) {
        let mut s = [0u64; 64];
        Self::pack(i, &mut s);
        let mut at = 0;
        let mut take = |n: usize| {
            let v = s[at..at + n.div_ceil(64)].to_vec();
            at += n.div_ceil(64);
            v
        };
        self.reset.next = take(1)[0] == 1;
        self.cfg_pfc.next = take(1)[0] == 1;
        self.cfg_zero_on_release.next = take(1)[0] == 1;
        self.cfg_refresh_quanta.next = take(16)[0].into();
        self.cfg_pause_quanta.next = bits_from_words::<S>(&take(S));
        self.cfg_fill_en.next = take(Q)[0].into();
        self.cfg_rfa.next = bits_from_words::<S>(&take(S));
        self.cfg_rfd.next = bits_from_words::<S>(&take(S));
        self.cfg_sa.next = take(48)[0].into();
        self.cfg_priorities.next = bits_from_words::<P>(&take(P));
        self.cfg_size_words.next = bits_from_words::<S>(&take(S));
        self.cfg_tx_words.next = take(16)[0].into();
        self.hw_level.next = take(Q)[0].into();
        self.sw_req.next = take(Q)[0].into();
        self.s_valid.next = take(Q)[0].into();
        self.s_data.next = bits_from_words::<D>(&take(D));
        self.s_keep.next = bits_from_words::<KQ>(&take(KQ));
        self.s_last.next = take(Q)[0].into();
        self.rx_valid.next = take(1)[0] == 1;
        self.rx_data.next = take(W)[0].into();
        self.rx_keep.next = take(K)[0].into();
        self.rx_last.next = take(1)[0] == 1;
        self.rd_en.next = take(Q)[0].into();
    }
    fn sample(&self) -> EthPortTopOut {
        let d = read_words::<D>(&self.rd_data.val());
        let k = read_words::<KQ>(&self.rd_keep.val());
        let f = read_words::<S>(&self.fill_bytes.val());
        let mut s = vec![
            self.s_ready.val().to_u64(),
            self.tx_valid.val() as u64,
            self.tx_data.val().to_u64(),
            self.tx_keep.val().to_u64(),
            self.tx_last.val() as u64,
            self.rd_valid.val().to_u64(),
        ];
        s.extend_from_slice(&d[..D.div_ceil(64)]);
        s.push(k[0]);
        s.push(self.rd_last.val().to_u64());
        s.extend_from_slice(&f[..S.div_ceil(64)]);
        s.push(self.drop.val().to_u64());
        s.push(self.paused.val().to_u64());
        Self::unpack(&s)
    }
    fn pack(i: &EthPortTopIn, slots: &mut [u64]) {
        let mut at = 0;
        let mut put = |n: usize, f: &dyn Fn(&mut [u64])| {
            let k = n.div_ceil(64);
            slots[at..at + k].fill(0);
            f(&mut slots[at..at + k]);
            at += k;
        };
        put(1, &|s| s[0] = i.reset as u64);
        put(1, &|s| s[0] = i.cfg_pfc as u64);
        put(1, &|s| s[0] = i.cfg_zero_on_release as u64);
        put(16, &|s| s[0] = i.cfg_refresh_quanta as u64);
        put(S, &|s| pack_fields(&i.cfg_pause_quanta[..Q], 16, s));
        put(Q, &|s| s[0] = i.cfg_fill_en as u64 & mask(Q));
        put(S, &|s| pack_fields(&i.cfg_rfa[..Q], 16, s));
        put(S, &|s| pack_fields(&i.cfg_rfd[..Q], 16, s));
        put(48, &|s| s[0] = i.cfg_sa & mask(48));
        put(P, &|s| pack_fields(&i.cfg_priorities[..Q], 8, s));
        put(S, &|s| pack_fields(&i.cfg_size_words[..Q], 16, s));
        put(16, &|s| s[0] = i.cfg_tx_words as u64);
        put(Q, &|s| s[0] = i.hw_level as u64 & mask(Q));
        put(Q, &|s| s[0] = i.sw_req as u64 & mask(Q));
        put(Q, &|s| s[0] = i.s_valid as u64 & mask(Q));
        put(D, &|s| pack_fields(&i.s_data[..Q], W, s));
        put(KQ, &|s| pack_fields(&i.s_keep[..Q], K, s));
        put(Q, &|s| s[0] = i.s_last as u64 & mask(Q));
        put(1, &|s| s[0] = i.rx_valid as u64);
        put(W, &|s| s[0] = i.rx_data & mask(W));
        put(K, &|s| s[0] = i.rx_keep as u64 & mask(K));
        put(1, &|s| s[0] = i.rx_last as u64);
        put(Q, &|s| s[0] = i.rd_en as u64 & mask(Q));
    }
    fn unpack(slots: &[u64]) -> EthPortTopOut {
        let nd = D.div_ceil(64);
        let nf = S.div_ceil(64);
        let d = &slots[6..6 + nd];
        let f = &slots[8 + nd..8 + nd + nf];
        let o = EthPortTopOut {
            s_ready: slots[0] as u8,
            tx_valid: slots[1] & 1 == 1,
            tx_data: slots[2] & mask(W),
            tx_keep: (slots[3] & mask(K)) as u8,
            tx_last: slots[4] & 1 == 1,
            rd_valid: slots[5] as u8,
            rd_data: fields8(d, W, Q),
            rd_keep: fields8(&slots[6 + nd..7 + nd], K, Q),
            rd_last: slots[7 + nd] as u8,
            fill_bytes: fields8(f, 16, Q),
            drop: slots[8 + nd + nf] as u8,
            paused: slots[9 + nd + nf] as u8,
        };
        masked(o, Q)
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
