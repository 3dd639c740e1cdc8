//! The per-queue receive buffers of the Ethernet flow-control port (docs/spec.md §9): data
//! frames sorted by their 802.1Q priority, stored whole in the clock after their last word
//! when they fit (PAUSE/PFC frames are left to `pause_rx`), offered on one AXI4-Stream per queue from a
//! registered read; the fill levels feed `pfc_tx`'s RX-fill triggers.
//!
//! In this folder: the Verilog module `iblink_eth_rxbuf.v` (parameters `QUEUES`,
//! `DATA_WIDTH`, `ADDR_BITS`), and here its Rust cycle twin [`EthRxbufTwin`], the
//! rust-hdl block [`EthRxbufUnit`] and the port binding. Reference model:
//! `iblink_model::eth_port::RxBuffers`; lockstep: `crates/sim/tests/lockstep/eth_rxbuf.rs` (stimulus and the
//! model adapter: `crates/sim/src/blocks/eth_rxbuf.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: buffers emptied, the frame in progress forgotten |
//! | `cfg_priorities[8Q]`, `cfg_size_words[16Q]` | in | per queue: priority mask, size in words (static) |
//! | `s_axis_tdata[W]`, `s_axis_tkeep[W/8]`, `s_axis_tvalid`, `s_axis_tlast` | in | received frames, lane 0 first; `tkeep` from lane 0 up on the last word; no `tready` (a MAC's receive side cannot wait) |
//! | `s_axis_tuser` | in | with `tlast`: the MAC marks the frame bad (not stored) |
//! | `m_axis_tdata[WQ]`, `m_axis_tkeep[WQ/8]`, `m_axis_tvalid[Q]`, `m_axis_tlast[Q]` / `m_axis_tready[Q]` | out / in | one stream per queue: its oldest stored word |
//! | `fill_bytes[16Q]` | out | bytes held per queue (whole words, the offered one included) at the start of the clock |
//! | `drop[Q]` | out | the data frame that ended last clock did not fit (or was over 1522 bytes) |
//! | `bad` | out | a frame marked bad ended this clock |
//!
//! # Cycle contract
//! A data frame whose last word arrives in clock `t` is stored in clock `t + 1` (from
//! what the last word's clock registered) when it is at most 1522 bytes and
//! `ceil(len / (W/8))` words fit in `cfg_size_words` less what the queue holds at the
//! start of `t + 1`, else `drop[q]` is high in `t + 1`; a stored frame counts in
//! `fill_bytes` from `t + 2` and is offered from `t + 3` at the earliest (docs/spec.md
//! §10). `bad` is high in the last word's clock. Words are written into memory a clock
//! after they arrive, so a frame that follows back to back lands after the one being
//! decided. A queue's word moves in a clock where its `tvalid` and `tready`
//! are high; in a clock where it offers nothing or its word moves, it reads its next
//! word of a frame stored before that clock, offered from the next clock. `m_axis_tdata`
//! and `m_axis_tkeep` mean something only while `tvalid`, and `tdata` only in its valid
//! lanes: every back end's binding shows 0 elsewhere.

use crate::bits::{lane_mask, mask};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_eth_rxbuf",
    path: "crates/rtl/src/eth_rxbuf/iblink_eth_rxbuf.v",
    text: include_str!("iblink_eth_rxbuf.v"),
};

pub use crate::pfc_tx::{QUEUE_COUNTS, WIDTHS};
/// The longest data frame stored.
pub const MAX_FRAME_BYTES: usize = 1522;

/// Memory words per queue of the generated variants: `2^addr_bits(width)`, room for
/// the largest size whose fill fits 16 bits of bytes and one maximum frame.
pub fn addr_bits(width: usize) -> usize {
    if width == 64 {
        14
    } else {
        15
    }
}

/// Words of a maximum frame.
pub fn max_words(width: usize) -> usize {
    MAX_FRAME_BYTES.div_ceil(width / 8)
}

/// The largest `cfg_size_words` a variant takes.
pub fn max_size_words(width: usize) -> usize {
    (65535 / (width / 8)).min((1 << addr_bits(width)) - max_words(width))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthRxbufIn {
    pub reset: bool,
    pub cfg_priorities: [u8; 8],
    pub cfg_size_words: [u16; 8],
    pub s_axis_tdata: u64,
    pub s_axis_tkeep: u8,
    pub s_axis_tvalid: bool,
    pub s_axis_tlast: bool,
    pub s_axis_tuser: bool,
    pub m_axis_tready: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthRxbufOut {
    /// Per queue; 0 unless valid, and in the valid lanes only.
    pub m_axis_tdata: [u64; 8],
    pub m_axis_tkeep: [u8; 8],
    pub m_axis_tvalid: u8,
    pub m_axis_tlast: u8,
    pub fill_bytes: [u16; 8],
    pub drop: u8,
    pub bad: bool,
}

/// A stored word: data, lanes, last.
type Stored = (u64, u8, bool);

/// The Rust cycle twin of `iblink_eth_rxbuf`.
#[derive(Clone, Debug)]
pub struct EthRxbufTwin {
    queues: usize,
    width: usize,
    addr_bits: usize,
    idx: usize,
    over: bool,
    hdr: [u8; 16],
    mem: Vec<Vec<Stored>>,
    out: Vec<Stored>,
    commit: Vec<usize>,
    rd: Vec<usize>,
    /// The word offered, or the next to offer.
    head: Vec<usize>,
    valid: u8,
    /// The data frame whose last word came last clock (not control, not marked bad):
    /// its queue, its words, and whether it is at most 1522 bytes.
    ended: Option<(usize, usize, bool)>,
    /// The word that arrived last clock, written this clock at its index.
    wr: Option<(Stored, usize)>,
}

/// What the frame ending (or going on) in a clock is, and where it would go.
struct Decision {
    done: bool,
    ctrl: bool,
    queue: usize,
    /// Not past a maximum frame.
    len_ok: bool,
    words: usize,
}

impl EthRxbufTwin {
    pub fn new(queues: usize, width: usize) -> Self {
        assert!(QUEUE_COUNTS.contains(&queues) && WIDTHS.contains(&width), "EthRxbufTwin: {queues} queues at {width} bits");
        let a = addr_bits(width);
        Self {
            queues,
            width,
            addr_bits: a,
            idx: 0,
            over: false,
            hdr: [0; 16],
            mem: vec![vec![(0, 0, false); 1 << a]; queues],
            out: vec![(0, 0, false); queues],
            commit: vec![0; queues],
            rd: vec![0; queues],
            head: vec![0; queues],
            valid: 0,
            ended: None,
            wr: None,
        }
    }

    fn bytes(&self) -> usize {
        self.width / 8
    }

    fn held(&self, q: usize) -> usize {
        self.commit[q].wrapping_sub(self.head[q]) & ((1 << self.addr_bits) - 1)
    }

    /// The header with the current word in place.
    fn head(&self, i: &EthRxbufIn) -> [u8; 16] {
        let mut h = self.hdr;
        let n = self.bytes();
        if self.idx < 16 / n {
            for b in 0..n {
                h[self.idx * n + b] = (i.s_axis_tdata >> (8 * b)) as u8;
            }
        }
        h
    }

    fn lanes(&self, i: &EthRxbufIn) -> usize {
        ((i.s_axis_tkeep as u64 & mask(self.bytes())) as u8).trailing_ones() as usize
    }

    fn decide(&self, i: &EthRxbufIn) -> Decision {
        let h = self.head(i);
        let len = self.idx * self.bytes() + self.lanes(i);
        let short = self.idx < 16 / self.bytes();
        let at_least = |n: usize| !short || len >= n;
        let be16 = |b: usize| u16::from_be_bytes([h[b], h[b + 1]]);
        let ctrl = (at_least(6) && h[..6] == [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]) || (at_least(14) && be16(12) == 0x8808);
        let prio = if at_least(16) && be16(12) == 0x8100 { h[14] >> 5 } else { 0 };
        let queue = (0..self.queues).find(|&q| i.cfg_priorities[q] >> prio & 1 == 1).unwrap_or(0);
        let len_ok = !self.over && len <= MAX_FRAME_BYTES;
        Decision { done: i.s_axis_tvalid && i.s_axis_tlast, ctrl, queue, len_ok, words: self.idx + 1 }
    }

    /// The store of the frame that ended last clock: its queue and words, if stored.
    fn store(&self, i: &EthRxbufIn) -> (Option<(usize, usize)>, u8) {
        match self.ended {
            Some((q, n, ok)) if ok && self.held(q) + n <= i.cfg_size_words[q] as usize => (Some((q, n)), 0),
            Some((q, _, _)) => (None, 1 << q),
            None => (None, 0),
        }
    }
}

impl Twin for EthRxbufTwin {
    type In = EthRxbufIn;
    type Out = EthRxbufOut;

    fn eval(&self, i: &EthRxbufIn) -> EthRxbufOut {
        let n = self.bytes();
        let mut o = EthRxbufOut { m_axis_tvalid: self.valid, ..Default::default() };
        for q in 0..self.queues {
            if self.valid >> q & 1 == 1 {
                let (d, k, l) = self.out[q];
                o.m_axis_tdata[q] = d & lane_mask(k);
                o.m_axis_tkeep[q] = k;
                o.m_axis_tlast |= (l as u8) << q;
            }
            o.fill_bytes[q] = (self.held(q) * n) as u16;
        }
        o.drop = self.store(i).1;
        o.bad = i.s_axis_tvalid && i.s_axis_tlast && i.s_axis_tuser;
        o
    }

    fn tick(&mut self, i: &EthRxbufIn) {
        let d = self.decide(i);
        let a = (1 << self.addr_bits) - 1;
        let lanes = self.lanes(i);
        let keep = if i.s_axis_tlast { (mask(lanes) & mask(self.bytes())) as u8 } else { mask(self.bytes()) as u8 };
        let word = (i.s_axis_tdata & mask(self.width), keep, i.s_axis_tlast);
        let wr = i.s_axis_tvalid && !self.over;
        let head = self.head(i);
        let (stored, _) = self.store(i);
        for q in 0..self.queues {
            let valid = self.valid >> q & 1 == 1;
            let ready = i.m_axis_tready >> q & 1 == 1;
            let moved = valid && ready;
            let load = self.commit[q] != self.rd[q] && (!valid || ready);
            if load {
                self.out[q] = self.mem[q][self.rd[q]];
            }
            if let Some((w, idx)) = self.wr {
                let at = (self.commit[q] + idx) & a;
                self.mem[q][at] = w;
            }
            if i.reset {
                self.commit[q] = 0;
                self.rd[q] = 0;
                self.head[q] = 0;
                self.valid &= !(1 << q);
                continue;
            }
            if let Some((_, n)) = stored.filter(|&(sq, _)| sq == q) {
                self.commit[q] = (self.commit[q] + n) & a;
            }
            if load {
                self.rd[q] = (self.rd[q] + 1) & a;
            }
            if moved {
                self.head[q] = (self.head[q] + 1) & a;
            }
            let still = load || (valid && !moved);
            self.valid = (self.valid & !(1 << q)) | ((still as u8) << q);
        }
        self.wr = wr.then_some((word, self.idx));
        self.ended = (d.done && !d.ctrl && !i.s_axis_tuser && !i.reset).then_some((d.queue, d.words, d.len_ok));
        if i.reset {
            self.wr = None;
        }
        if i.s_axis_tvalid {
            self.hdr = head;
        }
        if i.reset || d.done {
            self.idx = 0;
            self.over = false;
        } else if i.s_axis_tvalid {
            if self.idx == max_words(self.width) - 1 {
                self.over = true;
            } else if !self.over {
                self.idx += 1;
            }
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: `Q` queues at `W` bits; `K = W / 8`, `P = 8Q`, `S = 16Q`,
    /// `D = WQ`, `KQ = KQ`. Outputs read back are [`masked`].
    pub struct EthRxbufUnit<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> {
        twin: EthRxbufTwin,
    }
    check: K * 8 == W && P == 8 * Q && S == 16 * Q && D == W * Q && KQ == K * Q;
    default: Self::with_twin(EthRxbufTwin::new(Q, W));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(Q, W), SOURCE.text);
    sampled: |o| masked(o, Q);
    ports(i: EthRxbufIn, o: EthRxbufOut) {
        reset: in Bit = i.reset;
        cfg_priorities: in Bits<P> = i.cfg_priorities, each 8;
        cfg_size_words: in Bits<S> = i.cfg_size_words, each 16;
        s_axis_tdata: in Bits<W> = i.s_axis_tdata;
        s_axis_tkeep: in Bits<K> = i.s_axis_tkeep;
        s_axis_tvalid: in Bit = i.s_axis_tvalid;
        s_axis_tlast: in Bit = i.s_axis_tlast;
        s_axis_tuser: in Bit = i.s_axis_tuser;
        m_axis_tdata: out Bits<D> = o.m_axis_tdata, each W;
        m_axis_tkeep: out Bits<KQ> = o.m_axis_tkeep, each K;
        m_axis_tvalid: out Bits<Q> = o.m_axis_tvalid;
        m_axis_tready: in Bits<Q> = i.m_axis_tready;
        m_axis_tlast: out Bits<Q> = o.m_axis_tlast;
        fill_bytes: out Bits<S> = o.fill_bytes, each 16;
        drop: out Bits<Q> = o.drop;
        bad: out Bit = o.bad;
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

/// `hdl_out/iblink_eth_rxbuf.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "eth_rxbuf",
        vec![("parameters".into(), "QUEUES = 1..8, DATA_WIDTH = 32 or 64, ADDR_BITS = 10..15 (memory words per queue: 2^ADDR_BITS)".into())],
    )
}

/// The buffers with `queues` queues at `width` bits (`iblink_eth_rxbuf_q<queues>_w<width>`).
pub fn variant(queues: usize, width: usize) -> Variant {
    Variant {
        name: format!("iblink_eth_rxbuf_q{queues}_w{width}"),
        block: "eth_rxbuf",
        top: SOURCE.module.to_string(),
        params: params(queues, width),
        modules: vec![module()],
        ports: crate::with_eth_rxbuf!((queues, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("receive buffers: {queues} queues at {width} bits is not generated")),
    }
}

/// The buffers with memories of `memory_bytes` a queue (a power of two, at least 1024
/// words of 64 bits or 2048 of 32: room for a 4096-byte queue, the least with a fill
/// trigger, and a maximum frame), for synthesis on small devices:
/// `iblink_eth_rxbuf_q<queues>_w<width>_<KB>k`. Same module and ports.
pub fn sized_variant(queues: usize, width: usize, memory_bytes: usize) -> Variant {
    let addr = crate::emit::memory_addr_bits(width, memory_bytes);
    assert!((10..=addr_bits(width)).contains(&addr), "receive buffers: {memory_bytes} bytes a queue at {width} bits");
    variant(queues, width).with_memory(width, memory_bytes)
}

/// The outputs as every binding shows them: data, lanes and last only while valid, data
/// only in its lanes.
pub(crate) fn masked(mut o: EthRxbufOut, queues: usize) -> EthRxbufOut {
    for q in 0..8 {
        if q >= queues || o.m_axis_tvalid >> q & 1 == 0 {
            o.m_axis_tdata[q] = 0;
            o.m_axis_tkeep[q] = 0;
            o.m_axis_tlast &= !(1 << q);
        } else {
            o.m_axis_tdata[q] &= lane_mask(o.m_axis_tkeep[q]);
        }
    }
    o
}

pub type EthRxbufQ1W32 = EthRxbufUnit<1, 32, 4, 8, 16, 32, 4>;
pub type EthRxbufQ2W32 = EthRxbufUnit<2, 32, 4, 16, 32, 64, 8>;
pub type EthRxbufQ3W32 = EthRxbufUnit<3, 32, 4, 24, 48, 96, 12>;
pub type EthRxbufQ4W32 = EthRxbufUnit<4, 32, 4, 32, 64, 128, 16>;
pub type EthRxbufQ5W32 = EthRxbufUnit<5, 32, 4, 40, 80, 160, 20>;
pub type EthRxbufQ6W32 = EthRxbufUnit<6, 32, 4, 48, 96, 192, 24>;
pub type EthRxbufQ7W32 = EthRxbufUnit<7, 32, 4, 56, 112, 224, 28>;
pub type EthRxbufQ8W32 = EthRxbufUnit<8, 32, 4, 64, 128, 256, 32>;
pub type EthRxbufQ1W64 = EthRxbufUnit<1, 64, 8, 8, 16, 64, 8>;
pub type EthRxbufQ2W64 = EthRxbufUnit<2, 64, 8, 16, 32, 128, 16>;
pub type EthRxbufQ3W64 = EthRxbufUnit<3, 64, 8, 24, 48, 192, 24>;
pub type EthRxbufQ4W64 = EthRxbufUnit<4, 64, 8, 32, 64, 256, 32>;
pub type EthRxbufQ5W64 = EthRxbufUnit<5, 64, 8, 40, 80, 320, 40>;
pub type EthRxbufQ6W64 = EthRxbufUnit<6, 64, 8, 48, 96, 384, 48>;
pub type EthRxbufQ7W64 = EthRxbufUnit<7, 64, 8, 56, 112, 448, 56>;
pub type EthRxbufQ8W64 = EthRxbufUnit<8, 64, 8, 64, 128, 512, 64>;
