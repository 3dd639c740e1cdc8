//! The per-queue receive buffers of the Ethernet flow-control port (docs/spec.md §9): data
//! frames sorted by their 802.1Q priority, stored whole at their last word when they fit
//! (PAUSE/PFC frames are left to `pause_rx`), read a word a clock with a registered read;
//! the fill levels feed `pfc_tx`'s RX-fill triggers.
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
//! | `rx_valid`, `rx_data[W]`, `rx_keep[W/8]`, `rx_last` | in | received frames, lane 0 first; `rx_keep` from lane 0 up on the last word |
//! | `rd_en[Q]` | in | a reader asks for a word |
//! | `rd_valid[Q]`, `rd_data[WQ]`, `rd_keep[WQ/8]`, `rd_last[Q]` | out | the word asked for in the clock before |
//! | `fill_bytes[16Q]` | out | bytes held per queue (whole words) at the start of the clock |
//! | `drop[Q]` | out | a data frame ending this clock did not fit (or was over 1522 bytes) |
//!
//! # Cycle contract
//! A data frame is stored at its last word when it is at most 1522 bytes and
//! `ceil(len / (W/8))` words fit in `cfg_size_words` less what the queue holds at the
//! start of that clock; a reader's word is one of a frame stored before the clock it asks
//! in, and comes in the next clock. `rd_data` and `rd_keep` mean something only while
//! `rd_valid`, and `rd_data` only in its valid lanes: every back end's binding shows 0
//! elsewhere.

use crate::bits::{bits_from_words, fields8, lane_mask, mask, pack_fields, read_words};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::io::{HdlIo, Opaque, PortSpec};
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
    pub rx_valid: bool,
    pub rx_data: u64,
    pub rx_keep: u8,
    pub rx_last: bool,
    pub rd_en: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthRxbufOut {
    pub rd_valid: u8,
    /// Per queue; 0 unless valid, and in the valid lanes only.
    pub rd_data: [u64; 8],
    pub rd_keep: [u8; 8],
    pub rd_last: u8,
    pub fill_bytes: [u16; 8],
    pub drop: u8,
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
    valid: u8,
}

/// What the frame ending (or going on) in a clock is, and where it would go.
struct Decision {
    done: bool,
    ctrl: bool,
    queue: usize,
    fits: bool,
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
            valid: 0,
        }
    }

    fn bytes(&self) -> usize {
        self.width / 8
    }

    fn held(&self, q: usize) -> usize {
        self.commit[q].wrapping_sub(self.rd[q]) & ((1 << self.addr_bits) - 1)
    }

    /// The header with the current word in place.
    fn head(&self, i: &EthRxbufIn) -> [u8; 16] {
        let mut h = self.hdr;
        let n = self.bytes();
        if self.idx < 16 / n {
            for b in 0..n {
                h[self.idx * n + b] = (i.rx_data >> (8 * b)) as u8;
            }
        }
        h
    }

    fn lanes(&self, i: &EthRxbufIn) -> usize {
        ((i.rx_keep as u64 & mask(self.bytes())) as u8).trailing_ones() as usize
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
        let words = self.idx + 1;
        let fits = !self.over && len <= MAX_FRAME_BYTES && self.held(queue) + words <= i.cfg_size_words[queue] as usize;
        Decision { done: i.rx_valid && i.rx_last, ctrl, queue, fits, words }
    }
}

impl Twin for EthRxbufTwin {
    type In = EthRxbufIn;
    type Out = EthRxbufOut;

    fn eval(&self, i: &EthRxbufIn) -> EthRxbufOut {
        let n = self.bytes();
        let mut o = EthRxbufOut { rd_valid: self.valid, ..Default::default() };
        for q in 0..self.queues {
            if self.valid >> q & 1 == 1 {
                let (d, k, l) = self.out[q];
                o.rd_data[q] = d & lane_mask(k);
                o.rd_keep[q] = k;
                o.rd_last |= (l as u8) << q;
            }
            o.fill_bytes[q] = (self.held(q) * n) as u16;
        }
        let d = self.decide(i);
        if d.done && !d.ctrl && !d.fits {
            o.drop = 1 << d.queue;
        }
        o
    }

    fn tick(&mut self, i: &EthRxbufIn) {
        let d = self.decide(i);
        let a = (1 << self.addr_bits) - 1;
        let lanes = self.lanes(i);
        let keep = if i.rx_last { (mask(lanes) & mask(self.bytes())) as u8 } else { mask(self.bytes()) as u8 };
        let word = (i.rx_data & mask(self.width), keep, i.rx_last);
        let wr = i.rx_valid && !self.over;
        let head = self.head(i);
        for q in 0..self.queues {
            let take = i.rd_en >> q & 1 == 1 && self.held(q) != 0;
            if take {
                self.out[q] = self.mem[q][self.rd[q]];
            }
            if wr {
                let at = (self.commit[q] + self.idx) & a;
                self.mem[q][at] = word;
            }
            if i.reset {
                self.commit[q] = 0;
                self.rd[q] = 0;
                self.valid &= !(1 << q);
                continue;
            }
            if d.done && !d.ctrl && d.fits && d.queue == q {
                self.commit[q] = (self.commit[q] + d.words) & a;
            }
            if take {
                self.rd[q] = (self.rd[q] + 1) & a;
            }
            self.valid = (self.valid & !(1 << q)) | ((take as u8) << q);
        }
        if i.rx_valid {
            self.hdr = head;
        }
        if i.reset || d.done {
            self.idx = 0;
            self.over = false;
        } else if i.rx_valid {
            if self.idx == max_words(self.width) - 1 {
                self.over = true;
            } else if !self.over {
                self.idx += 1;
            }
        }
    }
}

/// The block for rust-hdl: `Q` queues at `W` bits; `K = W / 8`, `P = 8Q`, `S = 16Q`,
/// `D = WQ`, `KQ = KQ`.
#[derive(LogicBlock)]
pub struct EthRxbufUnit<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub cfg_priorities: Signal<In, Bits<P>>,
    pub cfg_size_words: Signal<In, Bits<S>>,
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
    twin: Opaque<EthRxbufTwin>,
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> Default
    for EthRxbufUnit<Q, W, K, P, S, D, KQ>
{
    fn default() -> Self {
        assert!(K * 8 == W && P == 8 * Q && S == 16 * Q && D == W * Q && KQ == K * Q, "EthRxbufUnit<{Q}, {W}>");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_priorities: Default::default(),
            cfg_size_words: Default::default(),
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
            twin: Opaque(EthRxbufTwin::new(Q, W)),
        }
    }
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> Logic
    for EthRxbufUnit<Q, W, K, P, S, D, KQ>
{
    fn update(&mut self) {
        let pr = read_words::<P>(&self.cfg_priorities.val());
        let sz = read_words::<S>(&self.cfg_size_words.val());
        let i = EthRxbufIn {
            reset: self.reset.val(),
            cfg_priorities: fields8(&pr, 8, Q),
            cfg_size_words: fields8(&sz, 16, Q),
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
        self.rd_valid.next = (o.rd_valid as u64).into();
        self.rd_data.next = bits_from_words::<D>(&d);
        self.rd_keep.next = bits_from_words::<KQ>(&k);
        self.rd_last.next = (o.rd_last as u64).into();
        self.fill_bytes.next = bits_from_words::<S>(&f);
        self.drop.next = (o.drop as u64).into();
    }

    fn connect(&mut self) {
        self.rd_valid.connect();
        self.rd_data.connect();
        self.rd_keep.connect();
        self.rd_last.connect();
        self.fill_bytes.connect();
        self.drop.connect();
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
        if q >= queues || o.rd_valid >> q & 1 == 0 {
            o.rd_data[q] = 0;
            o.rd_keep[q] = 0;
            o.rd_last &= !(1 << q);
        } else {
            o.rd_data[q] &= lane_mask(o.rd_keep[q]);
        }
    }
    o
}

impl<const Q: usize, const W: usize, const K: usize, const P: usize, const S: usize, const D: usize, const KQ: usize> HdlIo
    for EthRxbufUnit<Q, W, K, P, S, D, KQ>
{
    type In = EthRxbufIn;
    type Out = EthRxbufOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("cfg_priorities"),
        PortSpec::new("cfg_size_words"),
        PortSpec::new("rx_valid"),
        PortSpec::new("rx_data"),
        PortSpec::new("rx_keep"),
        PortSpec::new("rx_last"),
        PortSpec::new("rd_en"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("rd_valid"),
        PortSpec::new("rd_data"),
        PortSpec::new("rd_keep"),
        PortSpec::new("rd_last"),
        PortSpec::new("fill_bytes"),
        PortSpec::new("drop"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &EthRxbufIn) {
        let (mut pr, mut sz) = ([0u64; 1], [0u64; 2]);
        pack_fields(&i.cfg_priorities[..Q], 8, &mut pr);
        pack_fields(&i.cfg_size_words[..Q], 16, &mut sz);
        self.reset.next = i.reset;
        self.cfg_priorities.next = bits_from_words::<P>(&pr);
        self.cfg_size_words.next = bits_from_words::<S>(&sz);
        self.rx_valid.next = i.rx_valid;
        self.rx_data.next = (i.rx_data & mask(W)).into();
        self.rx_keep.next = (i.rx_keep as u64 & mask(K)).into();
        self.rx_last.next = i.rx_last;
        self.rd_en.next = (i.rd_en as u64 & mask(Q)).into();
    }
    fn sample(&self) -> EthRxbufOut {
        let d = read_words::<D>(&self.rd_data.val());
        let k = read_words::<KQ>(&self.rd_keep.val());
        let f = read_words::<S>(&self.fill_bytes.val());
        let o = EthRxbufOut {
            rd_valid: self.rd_valid.val().to_u64() as u8,
            rd_data: fields8(&d, W, Q),
            rd_keep: fields8(&k, K, Q),
            rd_last: self.rd_last.val().to_u64() as u8,
            fill_bytes: fields8(&f, 16, Q),
            drop: self.drop.val().to_u64() as u8,
        };
        masked(o, Q)
    }
    fn pack(i: &EthRxbufIn, slots: &mut [u64]) {
        let n = S.div_ceil(64);
        slots[0] = i.reset as u64;
        slots[1] = 0;
        pack_fields(&i.cfg_priorities[..Q], 8, &mut slots[1..2]);
        slots[2..2 + n].fill(0);
        pack_fields(&i.cfg_size_words[..Q], 16, &mut slots[2..2 + n]);
        let s = &mut slots[2 + n..];
        s[0] = i.rx_valid as u64;
        s[1] = i.rx_data & mask(W);
        s[2] = i.rx_keep as u64 & mask(K);
        s[3] = i.rx_last as u64;
        s[4] = i.rd_en as u64 & mask(Q);
    }
    fn unpack(slots: &[u64]) -> EthRxbufOut {
        let nd = D.div_ceil(64);
        let nf = S.div_ceil(64);
        let d = &slots[1..1 + nd];
        let k = slots[1 + nd];
        let last = slots[2 + nd];
        let f = &slots[3 + nd..3 + nd + nf];
        let drop = slots[3 + nd + nf];
        let o = EthRxbufOut {
            rd_valid: slots[0] as u8,
            rd_data: fields8(d, W, Q),
            rd_keep: fields8(&[k], K, Q),
            rd_last: last as u8,
            fill_bytes: fields8(f, 16, Q),
            drop: drop as u8,
        };
        masked(o, Q)
    }
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
