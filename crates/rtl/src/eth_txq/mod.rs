//! The per-queue transmit queues of the Ethernet flow-control port and their
//! round-robin scheduler (docs/spec.md §9): store and forward, paused priorities held at frame
//! boundaries, PAUSE/PFC words ahead of data.
//!
//! In this folder: the Verilog module `iblink_eth_txq.v` (parameters `QUEUES`,
//! `DATA_WIDTH`, `ADDR_BITS`), and here its Rust cycle twin [`EthTxqTwin`], the rust-hdl
//! block [`EthTxqUnit`] and the port binding. Reference model:
//! `iblink_model::eth_port::TxQueues`; lockstep: `crates/sim/tests/lockstep/eth_txq.rs` (stimulus and the
//! model adapter: `crates/sim/src/blocks/eth_txq.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: queues emptied |
//! | `cfg_priorities[8Q]`, `cfg_tx_words[16]` | in | per queue priority mask; words a queue holds at most (static) |
//! | `s_valid[Q]`, `s_data[WQ]`, `s_keep[WQ/8]`, `s_last[Q]` | in | one frame stream per queue |
//! | `s_ready[Q]` | out | the queue takes the offered word this clock |
//! | `paused[8]` | in | priorities held (from `pause_rx`) |
//! | `ctrl`, `ctrl_data[W]`, `ctrl_last` | in | a PAUSE/PFC word for the wire (the builder's `tx_valid`, `tx_data`, `tx_last`) |
//! | `tx_valid`, `tx_data[W]`, `tx_keep[W/8]`, `tx_last` | out | the wire: the data word, else the PAUSE/PFC word |
//! | `tx_busy` | out | a data word that is not a frame's last: `pfc_tx`'s `busy` |
//!
//! # Cycle contract
//! A frame may go from the clock after its last word was taken. A frame starts in a
//! clock with no frame on the wire and `ctrl` low, from the next queue in round-robin
//! order after the last one served that holds a whole frame and none of whose
//! priorities is paused in that clock; its first word is on `tx_*` in that clock.
//! `tx_data` and `tx_keep` mean something only while `tx_valid`, `tx_data` only in its
//! valid lanes: every back end's binding shows 0 elsewhere.

use crate::bits::{bits_from_words, fields8, lane_mask, mask, pack_fields, read_words};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::io::{HdlIo, Opaque, PortSpec};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_eth_txq",
    path: "crates/rtl/src/eth_txq/iblink_eth_txq.v",
    text: include_str!("iblink_eth_txq.v"),
};

pub use crate::pfc_tx::{QUEUE_COUNTS, WIDTHS};

/// Memory words per queue of the generated variants: `2^addr_bits(width)` (16 KB).
pub fn addr_bits(width: usize) -> usize {
    if width == 64 {
        11
    } else {
        12
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthTxqIn {
    pub reset: bool,
    pub cfg_priorities: [u8; 8],
    pub cfg_tx_words: u16,
    pub s_valid: u8,
    pub s_data: [u64; 8],
    pub s_keep: [u8; 8],
    pub s_last: u8,
    pub paused: u8,
    pub ctrl: bool,
    pub ctrl_data: u64,
    pub ctrl_last: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthTxqOut {
    pub s_ready: u8,
    pub tx_valid: bool,
    /// 0 unless valid, and in the valid lanes only.
    pub tx_data: u64,
    pub tx_keep: u8,
    pub tx_last: bool,
    pub tx_busy: bool,
}

/// A stored word: data, lanes, last.
type Stored = (u64, u8, bool);

/// The Rust cycle twin of `iblink_eth_txq`.
#[derive(Clone, Debug)]
pub struct EthTxqTwin {
    queues: usize,
    width: usize,
    addr_bits: usize,
    mem: Vec<Vec<Stored>>,
    wr: Vec<usize>,
    rd: Vec<usize>,
    frames: Vec<u16>,
    sending: bool,
    cur: usize,
    last_served: usize,
}

impl EthTxqTwin {
    pub fn new(queues: usize, width: usize) -> Self {
        assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "EthTxqTwin: {queues} queues at {width} bits");
        let a = addr_bits(width);
        Self {
            queues,
            width,
            addr_bits: a,
            mem: vec![vec![(0, 0, false); 1 << a]; queues],
            wr: vec![0; queues],
            rd: vec![0; queues],
            frames: vec![0; queues],
            sending: false,
            cur: 0,
            last_served: queues - 1,
        }
    }

    fn held(&self, q: usize) -> usize {
        self.wr[q].wrapping_sub(self.rd[q]) & mask(self.addr_bits + 1) as usize
    }

    fn ready(&self, i: &EthTxqIn) -> u8 {
        (0..self.queues).fold(0, |m, q| m | (((self.held(q) < i.cfg_tx_words as usize) as u8) << q))
    }

    /// The queue picked to start, if one may.
    fn pick(&self, i: &EthTxqIn) -> Option<usize> {
        (1..=self.queues).map(|k| (self.last_served + k) % self.queues).find(|&q| self.frames[q] != 0 && i.paused & i.cfg_priorities[q] == 0)
    }

    /// The queue on the wire this clock, and whether it starts now.
    fn sel(&self, i: &EthTxqIn) -> Option<(usize, bool)> {
        if self.sending {
            Some((self.cur, false))
        } else if i.ctrl {
            None
        } else {
            self.pick(i).map(|q| (q, true))
        }
    }

    fn head(&self, q: usize) -> Stored {
        self.mem[q][self.rd[q] & ((1 << self.addr_bits) - 1)]
    }
}

impl Twin for EthTxqTwin {
    type In = EthTxqIn;
    type Out = EthTxqOut;

    fn eval(&self, i: &EthTxqIn) -> EthTxqOut {
        let mut o = EthTxqOut { s_ready: self.ready(i), ..Default::default() };
        if let Some((q, _)) = self.sel(i) {
            let (d, k, l) = self.head(q);
            o.tx_valid = true;
            o.tx_data = d & lane_mask(k);
            o.tx_keep = k;
            o.tx_last = l;
            o.tx_busy = !l;
        } else if i.ctrl {
            o.tx_valid = true;
            o.tx_data = i.ctrl_data & mask(self.width);
            o.tx_keep = mask(self.width / 8) as u8;
            o.tx_last = i.ctrl_last;
        }
        o
    }

    fn tick(&mut self, i: &EthTxqIn) {
        let n = self.width / 8;
        let ready = self.ready(i);
        let sel = self.sel(i);
        let sent = sel.map(|(q, start)| (q, start, self.head(q).2));
        let a = (1 << self.addr_bits) - 1;
        let p = mask(self.addr_bits + 1) as usize;
        for q in 0..self.queues {
            let take = i.s_valid >> q & 1 == 1 && ready >> q & 1 == 1;
            let last = i.s_last >> q & 1 == 1;
            if take {
                let lanes = if last { (i.s_keep[q] as u64 & mask(n)).trailing_ones() as usize } else { n };
                self.mem[q][self.wr[q] & a] = (i.s_data[q] & mask(self.width), mask(lanes) as u8, last);
            }
            if i.reset {
                self.wr[q] = 0;
                self.rd[q] = 0;
                self.frames[q] = 0;
                continue;
            }
            if take {
                self.wr[q] = (self.wr[q] + 1) & p;
            }
            let go = sel == Some((q, true));
            if sel.is_some_and(|(s, _)| s == q) {
                self.rd[q] = (self.rd[q] + 1) & p;
            }
            self.frames[q] = self.frames[q].wrapping_add((take && last) as u16).wrapping_sub(go as u16);
        }
        if i.reset {
            self.sending = false;
            self.cur = 0;
            self.last_served = self.queues - 1;
            return;
        }
        if let Some((q, start, last)) = sent {
            self.sending = !last;
            self.cur = q;
            if start {
                self.last_served = q;
            }
        }
    }
}

/// The block for rust-hdl: `Q` queues at `W` bits; `K = W / 8`, `P = 8Q`, `D = WQ`,
/// `KQ = KQ`.
#[derive(LogicBlock)]
pub struct EthTxqUnit<const Q: usize, const W: usize, const K: usize, const P: usize, const D: usize, const KQ: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cfg_priorities: Signal<In, Bits<P>>,
    pub cfg_tx_words: Signal<In, Bits<16>>,
    pub s_valid: Signal<In, Bits<Q>>,
    pub s_data: Signal<In, Bits<D>>,
    pub s_keep: Signal<In, Bits<KQ>>,
    pub s_last: Signal<In, Bits<Q>>,
    pub paused: Signal<In, Bits<8>>,
    pub ctrl: Signal<In, Bit>,
    pub ctrl_data: Signal<In, Bits<W>>,
    pub ctrl_last: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bits<Q>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<W>>,
    pub tx_keep: Signal<Out, Bits<K>>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_busy: Signal<Out, Bit>,
    twin: Opaque<EthTxqTwin>,
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const D: usize, const KQ: usize> Default for EthTxqUnit<Q, W, K, P, D, KQ> {
    fn default() -> Self {
        assert!(K * 8 == W && P == 8 * Q && D == W * Q && KQ == K * Q, "EthTxqUnit<{Q}, {W}>");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_priorities: Default::default(),
            cfg_tx_words: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            s_keep: Default::default(),
            s_last: Default::default(),
            paused: Default::default(),
            ctrl: Default::default(),
            ctrl_data: Default::default(),
            ctrl_last: Default::default(),
            s_ready: Default::default(),
            tx_valid: Default::default(),
            tx_data: Default::default(),
            tx_keep: Default::default(),
            tx_last: Default::default(),
            tx_busy: Default::default(),
            twin: Opaque(EthTxqTwin::new(Q, W)),
        }
    }
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const D: usize, const KQ: usize> EthTxqUnit<Q, W, K, P, D, KQ> {
    fn input(&self) -> EthTxqIn {
        let pr = read_words::<P>(&self.cfg_priorities.val());
        let d = read_words::<D>(&self.s_data.val());
        let k = read_words::<KQ>(&self.s_keep.val());
        EthTxqIn {
            reset: self.reset.val(),
            cfg_priorities: fields8(&pr, 8, Q),
            cfg_tx_words: self.cfg_tx_words.val().to_u64() as u16,
            s_valid: self.s_valid.val().to_u64() as u8,
            s_data: fields8(&d, W, Q),
            s_keep: fields8(&k, K, Q),
            s_last: self.s_last.val().to_u64() as u8,
            paused: self.paused.val().to_u64() as u8,
            ctrl: self.ctrl.val(),
            ctrl_data: self.ctrl_data.val().to_u64(),
            ctrl_last: self.ctrl_last.val(),
        }
    }
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const D: usize, const KQ: usize> Logic for EthTxqUnit<Q, W, K, P, D, KQ> {
    fn update(&mut self) {
        let i = self.input();
        if self.clock.pos_edge() {
            self.twin.tick(&i);
        }
        let o = self.twin.eval(&i);
        self.s_ready.next = (o.s_ready as u64).into();
        self.tx_valid.next = o.tx_valid;
        self.tx_data.next = (o.tx_data & mask(W)).into();
        self.tx_keep.next = (o.tx_keep as u64 & mask(K)).into();
        self.tx_last.next = o.tx_last;
        self.tx_busy.next = o.tx_busy;
    }

    fn connect(&mut self) {
        self.s_ready.connect();
        self.tx_valid.connect();
        self.tx_data.connect();
        self.tx_keep.connect();
        self.tx_last.connect();
        self.tx_busy.connect();
    }

    fn hdl(&self) -> Verilog {
        rust_hdl_wrapper(self, SOURCE.module, &params(Q, W), SOURCE.text)
    }
}

/// The module's parameters.
pub fn params(queues: usize, width: usize) -> Vec<(String, String)> {
    vec![
        ("QUEUES".to_string(), queues.to_string()),
        ("DATA_WIDTH".to_string(), width.to_string()),
        ("ADDR_BITS".to_string(), addr_bits(width).to_string()),
    ]
}

/// `hdl_out/iblink_eth_txq.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "eth_txq",
        vec![("parameters".into(), "QUEUES = 1..8, DATA_WIDTH = 32 or 64, ADDR_BITS = 1..15 (memory words per queue: 2^ADDR_BITS)".into())],
    )
}

/// The queues with `queues` queues at `width` bits (`iblink_eth_txq_q<queues>_w<width>`).
pub fn variant(queues: usize, width: usize) -> Variant {
    Variant {
        name: format!("iblink_eth_txq_q{queues}_w{width}"),
        block: "eth_txq",
        top: SOURCE.module.to_string(),
        params: params(queues, width),
        modules: vec![module()],
        ports: crate::with_eth_txq!((queues, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("transmit queues: {queues} queues at {width} bits is not generated")),
    }
}

/// The queues with memories of `memory_bytes` a queue (a power of two holding a
/// maximum frame), for synthesis on small devices:
/// `iblink_eth_txq_q<queues>_w<width>_<KB>k`. Same module and ports.
pub fn sized_variant(queues: usize, width: usize, memory_bytes: usize) -> Variant {
    let addr = crate::emit::memory_addr_bits(width, memory_bytes);
    assert!(
        memory_bytes >= crate::eth_rxbuf::MAX_FRAME_BYTES && addr <= addr_bits(width),
        "transmit queues: {memory_bytes} bytes a queue at {width} bits"
    );
    variant(queues, width).with_memory(width, memory_bytes)
}

/// The outputs as every binding shows them.
pub(crate) fn masked(mut o: EthTxqOut) -> EthTxqOut {
    if o.tx_valid {
        o.tx_data &= lane_mask(o.tx_keep);
    } else {
        o.tx_data = 0;
        o.tx_keep = 0;
        o.tx_last = false;
    }
    o
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const D: usize, const KQ: usize> HdlIo for EthTxqUnit<Q, W, K, P, D, KQ> {
    type In = EthTxqIn;
    type Out = EthTxqOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("cfg_priorities"),
        PortSpec::new("cfg_tx_words"),
        PortSpec::new("s_valid"),
        PortSpec::new("s_data"),
        PortSpec::new("s_keep"),
        PortSpec::new("s_last"),
        PortSpec::new("paused"),
        PortSpec::new("ctrl"),
        PortSpec::new("ctrl_data"),
        PortSpec::new("ctrl_last"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("s_ready"),
        PortSpec::new("tx_valid"),
        PortSpec::new("tx_data"),
        PortSpec::new("tx_keep"),
        PortSpec::new("tx_last"),
        PortSpec::new("tx_busy"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &EthTxqIn) {
        let (mut pr, mut d, mut k) = ([0u64; 1], [0u64; 8], [0u64; 1]);
        pack_fields(&i.cfg_priorities[..Q], 8, &mut pr);
        pack_fields(&i.s_data[..Q], W, &mut d);
        pack_fields(&i.s_keep[..Q], K, &mut k);
        self.reset.next = i.reset;
        self.cfg_priorities.next = bits_from_words::<P>(&pr);
        self.cfg_tx_words.next = (i.cfg_tx_words as u64).into();
        self.s_valid.next = (i.s_valid as u64 & mask(Q)).into();
        self.s_data.next = bits_from_words::<D>(&d);
        self.s_keep.next = bits_from_words::<KQ>(&k);
        self.s_last.next = (i.s_last as u64 & mask(Q)).into();
        self.paused.next = (i.paused as u64).into();
        self.ctrl.next = i.ctrl;
        self.ctrl_data.next = (i.ctrl_data & mask(W)).into();
        self.ctrl_last.next = i.ctrl_last;
    }
    fn sample(&self) -> EthTxqOut {
        masked(EthTxqOut {
            s_ready: self.s_ready.val().to_u64() as u8,
            tx_valid: self.tx_valid.val(),
            tx_data: self.tx_data.val().to_u64(),
            tx_keep: self.tx_keep.val().to_u64() as u8,
            tx_last: self.tx_last.val(),
            tx_busy: self.tx_busy.val(),
        })
    }
    fn pack(i: &EthTxqIn, slots: &mut [u64]) {
        let nd = D.div_ceil(64);
        slots[0] = i.reset as u64;
        slots[1] = 0;
        pack_fields(&i.cfg_priorities[..Q], 8, &mut slots[1..2]);
        slots[2] = i.cfg_tx_words as u64;
        slots[3] = i.s_valid as u64 & mask(Q);
        slots[4..4 + nd].fill(0);
        pack_fields(&i.s_data[..Q], W, &mut slots[4..4 + nd]);
        let s = &mut slots[4 + nd..];
        s[0] = 0;
        pack_fields(&i.s_keep[..Q], K, &mut s[0..1]);
        s[1] = i.s_last as u64 & mask(Q);
        s[2] = i.paused as u64;
        s[3] = i.ctrl as u64;
        s[4] = i.ctrl_data & mask(W);
        s[5] = i.ctrl_last as u64;
    }
    fn unpack(slots: &[u64]) -> EthTxqOut {
        masked(EthTxqOut {
            s_ready: slots[0] as u8,
            tx_valid: slots[1] & 1 == 1,
            tx_data: slots[2] & mask(W),
            tx_keep: (slots[3] & mask(K)) as u8,
            tx_last: slots[4] & 1 == 1,
            tx_busy: slots[5] & 1 == 1,
        })
    }
}

pub type EthTxqQ1W32 = EthTxqUnit<1, 32, 4, 8, 32, 4>;
pub type EthTxqQ2W32 = EthTxqUnit<2, 32, 4, 16, 64, 8>;
pub type EthTxqQ3W32 = EthTxqUnit<3, 32, 4, 24, 96, 12>;
pub type EthTxqQ4W32 = EthTxqUnit<4, 32, 4, 32, 128, 16>;
pub type EthTxqQ5W32 = EthTxqUnit<5, 32, 4, 40, 160, 20>;
pub type EthTxqQ6W32 = EthTxqUnit<6, 32, 4, 48, 192, 24>;
pub type EthTxqQ7W32 = EthTxqUnit<7, 32, 4, 56, 224, 28>;
pub type EthTxqQ8W32 = EthTxqUnit<8, 32, 4, 64, 256, 32>;
pub type EthTxqQ1W64 = EthTxqUnit<1, 64, 8, 8, 64, 8>;
pub type EthTxqQ2W64 = EthTxqUnit<2, 64, 8, 16, 128, 16>;
pub type EthTxqQ3W64 = EthTxqUnit<3, 64, 8, 24, 192, 24>;
pub type EthTxqQ4W64 = EthTxqUnit<4, 64, 8, 32, 256, 32>;
pub type EthTxqQ5W64 = EthTxqUnit<5, 64, 8, 40, 320, 40>;
pub type EthTxqQ6W64 = EthTxqUnit<6, 64, 8, 48, 384, 48>;
pub type EthTxqQ7W64 = EthTxqUnit<7, 64, 8, 56, 448, 56>;
pub type EthTxqQ8W64 = EthTxqUnit<8, 64, 8, 64, 512, 64>;
