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
//! | `s_axis_tvalid[Q]`, `s_axis_tdata[WQ]`, `s_axis_tkeep[WQ/8]`, `s_axis_tlast[Q]` | in | one frame stream per queue |
//! | `s_axis_tready[Q]` | out | the queue takes the offered word this clock |
//! | `paused[8]` | in | priorities held (from `pause_rx`); the choice reads them two clocks later |
//! | `ctrl`, `ctrl_data[W]`, `ctrl_last` | in | a PAUSE/PFC word for the wire (the builder's `m_axis_tvalid`, `m_axis_tdata`, `m_axis_tlast`) |
//! | `m_axis_tvalid`, `m_axis_tdata[W]`, `m_axis_tkeep[W/8]`, `m_axis_tlast` | out | the wire: the data word, else the PAUSE/PFC word |
//! | `m_axis_tready` | in | the wire takes the word offered this clock (AXI4-Stream) |
//! | `tx_busy` | out | a data word offered that is not a last word moving now: `pfc_tx`'s `busy` |
//!
//! # Cycle contract
//! A frame may go from the clock after its last word was taken. A frame starts in a
//! clock with no frame on the wire and `ctrl` low, from the next queue in round-robin
//! order after the last one served that holds a whole frame and none of whose
//! priorities was paused two clocks before (a pause or a release is seen two clocks
//! after it comes, docs/spec.md §10); its first word is on `tx_*` in that clock, and the frame
//! is committed then (docs/spec.md §10): a word offered holds until `m_axis_tready`
//! takes it, and leaves its queue (freeing room) in the clock it moves.
//! `m_axis_tdata` and `m_axis_tkeep` mean something only while `m_axis_tvalid`, `m_axis_tdata` only in its
//! valid lanes: every back end's binding shows 0 elsewhere.

use crate::bits::{lane_mask, mask};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
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
    pub s_axis_tvalid: u8,
    pub s_axis_tdata: [u64; 8],
    pub s_axis_tkeep: [u8; 8],
    pub s_axis_tlast: u8,
    pub paused: u8,
    pub ctrl: bool,
    pub ctrl_data: u64,
    pub ctrl_last: bool,
    pub m_axis_tready: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthTxqOut {
    pub s_axis_tready: u8,
    pub m_axis_tvalid: bool,
    /// 0 unless valid, and in the valid lanes only.
    pub m_axis_tdata: u64,
    pub m_axis_tkeep: u8,
    pub m_axis_tlast: bool,
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
    /// The priorities the choice reads this clock: `paused` two clocks ago.
    paused_seen: u8,
    /// The last clock's `paused` (the Verilog's per-queue `free_q`), read in the next;
    /// none after a reset.
    paused_last: u8,
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
            paused_seen: 0,
            paused_last: 0,
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
        (1..=self.queues).map(|k| (self.last_served + k) % self.queues).find(|&q| self.frames[q] != 0 && self.paused_seen & i.cfg_priorities[q] == 0)
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
        let mut o = EthTxqOut { s_axis_tready: self.ready(i), ..Default::default() };
        if let Some((q, _)) = self.sel(i) {
            let (d, k, l) = self.head(q);
            o.m_axis_tvalid = true;
            o.m_axis_tdata = d & lane_mask(k);
            o.m_axis_tkeep = k;
            o.m_axis_tlast = l;
            o.tx_busy = !(l && i.m_axis_tready);
        } else if i.ctrl {
            o.m_axis_tvalid = true;
            o.m_axis_tdata = i.ctrl_data & mask(self.width);
            o.m_axis_tkeep = mask(self.width / 8) as u8;
            o.m_axis_tlast = i.ctrl_last;
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
        self.paused_seen = std::mem::replace(&mut self.paused_last, if i.reset { 0 } else { i.paused });
        for q in 0..self.queues {
            let take = i.s_axis_tvalid >> q & 1 == 1 && ready >> q & 1 == 1;
            let last = i.s_axis_tlast >> q & 1 == 1;
            if take {
                let lanes = if last { (i.s_axis_tkeep[q] as u64 & mask(n)).trailing_ones() as usize } else { n };
                self.mem[q][self.wr[q] & a] = (i.s_axis_tdata[q] & mask(self.width), mask(lanes) as u8, last);
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
            if i.m_axis_tready && sel.is_some_and(|(s, _)| s == q) {
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
            self.sending = !(last && i.m_axis_tready);
            self.cur = q;
            if start {
                self.last_served = q;
            }
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: `Q` queues at `W` bits; `K = W / 8`, `P = 8Q`, `D = WQ`,
    /// `KQ = KQ`. Outputs read back are [`masked`].
    pub struct EthTxqUnit<const Q: usize, const W: usize, const K: usize, const P: usize, const D: usize, const KQ: usize> {
        twin: EthTxqTwin,
    }
    check: K * 8 == W && P == 8 * Q && D == W * Q && KQ == K * Q;
    default: Self::with_twin(EthTxqTwin::new(Q, W));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(Q, W), SOURCE.text);
    sampled: |o| masked(o);
    ports(i: EthTxqIn, o: EthTxqOut) {
        reset: in Bit = i.reset;
        cfg_priorities: in Bits<P> = i.cfg_priorities, each 8;
        cfg_tx_words: in Bits<16> = i.cfg_tx_words;
        s_axis_tvalid: in Bits<Q> = i.s_axis_tvalid;
        s_axis_tdata: in Bits<D> = i.s_axis_tdata, each W;
        s_axis_tkeep: in Bits<KQ> = i.s_axis_tkeep, each K;
        s_axis_tlast: in Bits<Q> = i.s_axis_tlast;
        paused: in Bits<8> = i.paused;
        ctrl: in Bit = i.ctrl;
        ctrl_data: in Bits<W> = i.ctrl_data;
        ctrl_last: in Bit = i.ctrl_last;
        s_axis_tready: out Bits<Q> = o.s_axis_tready;
        m_axis_tvalid: out Bit = o.m_axis_tvalid;
        m_axis_tdata: out Bits<W> = o.m_axis_tdata;
        m_axis_tkeep: out Bits<K> = o.m_axis_tkeep;
        m_axis_tlast: out Bit = o.m_axis_tlast;
        m_axis_tready: in Bit = i.m_axis_tready;
        tx_busy: out Bit = o.tx_busy;
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
    if o.m_axis_tvalid {
        o.m_axis_tdata &= lane_mask(o.m_axis_tkeep);
    } else {
        o.m_axis_tdata = 0;
        o.m_axis_tkeep = 0;
        o.m_axis_tlast = false;
    }
    o
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
