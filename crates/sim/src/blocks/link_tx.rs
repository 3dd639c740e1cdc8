//! The link TX path in all three back ends, an independent cycle model of it, and a random
//! stimulus that plays its environment: the user's packet queues (descriptors and
//! first-word-fall-through word queues), the VL arbiter's offer and the FCP TX framer.
//!
//! RTL: [`iblink_rtl::link_tx`]. Reference: the transmit policy of docs/spec.md §5 as
//! `iblink_model::port::PortModel::start_next` applies it (VL15 > FCP > data at item
//! boundaries, data only in LinkActive, an item busy for `ceil(wire_bytes / W)` clocks,
//! [`LinkItem::wire_bytes`]), and the VCRC from [`iblink_model::crc16`].

use crate::blocks::Backend;
use crate::blocks::{twin_box, SimBuildError};
use crate::CycleSim;
use iblink_model::crc16::crc16_wire;
use iblink_model::port::LinkItem;
use iblink_rtl::catalog::link_tx_variant;
use iblink_rtl::link_tx::{keep_of, LinkTxIn, LinkTxOut, LinkTxTwin, LinkWord, START_TO_SOP, WIDTHS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// What kind of item a start pulse began.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Vl15,
    Fcp,
    Data,
}

/// Bytes of an FCP (docs/spec.md §2).
const FCP_BYTES: usize = 6;
/// Registers between a slot and the wire register: the slot's word is on the wire
/// `START_TO_SOP - 1` clocks after its slot, the slot being the clock after the start.
const PIPE: usize = START_TO_SOP as usize - 2;

/// An item in its slots (the clocks after its start, one wire word each).
struct Item {
    kind: ItemKind,
    /// Its wire bytes so far: data bytes as read, then the VCRC; or the FCP's bytes.
    bytes: Vec<u8>,
    /// Bytes read from the source (PktLen * 4) or taken from the framer (6).
    body: usize,
    /// The VCRC has been appended (a packet's data is complete).
    vcrc_done: bool,
    /// Wire words: `ceil(wire_bytes / W)`.
    words: u32,
    /// The slot this clock is.
    slot: u32,
}

/// The model: a transmitter that is busy for an item's `ceil(wire_bytes / W)` clocks after
/// its start and chooses the next item in the clock its current one ends (docs/spec.md §5),
/// building each wire word from the item's byte stream; the words then pass the two
/// registers of the documented contract (start to `tx_sop`: [`START_TO_SOP`] clocks).
/// Backpressure (docs/spec.md §10, the block's contract): a clock in which the word on
/// the wire does not move (`tx_ready` low) is no clock for the transmitter: nothing
/// starts, nothing is read or taken from the framer, and every word stays where it is.
pub struct LinkTxModelSim {
    lanes: usize,
    item: Option<Item>,
    src_vl: u8,
    /// The framer's word of the previous clock (FCP word `k` arrives the clock before
    /// its slot).
    fcp_prev: u64,
    /// The words formed in the last clocks' slots, newest first, and the word on the
    /// wire now.
    pipe: [Option<LinkWord>; PIPE],
    tx: LinkWord,
    fcp_error: bool,
    /// Items started, by kind: counted at the edge of the clock after the start pulse.
    starts: [u16; 3],
    started_prev: Option<ItemKind>,
    /// Whether the last step was an item boundary (for coverage counting).
    pub last_boundary: bool,
    scratch: Vec<u8>,
}

impl LinkTxModelSim {
    pub fn new(width_bits: usize) -> Self {
        assert!(WIDTHS.contains(&width_bits));
        Self {
            lanes: width_bits / 8,
            item: None,
            src_vl: 0,
            fcp_prev: 0,
            pipe: [None; PIPE],
            tx: LinkWord::default(),
            fcp_error: false,
            starts: [0; 3],
            started_prev: None,
            last_boundary: true,
            scratch: Vec::with_capacity(8),
        }
    }

    /// Whether anything is in flight: an item in its slots or a word in the pipeline.
    pub fn busy(&self) -> bool {
        self.item.is_some() || self.pipe.iter().any(Option::is_some) || self.tx.valid
    }

    /// Whether word `k` of an FCP, as the framer presents it, has the shape of a 6-byte
    /// FCP's word `k`.
    fn fcp_word_ok(&self, i: &LinkTxIn, k: usize) -> bool {
        let n = FCP_BYTES.div_ceil(self.lanes);
        let bytes = (FCP_BYTES - k * self.lanes).min(self.lanes);
        let lane_mask = ((1u16 << self.lanes) - 1) as u8;
        i.fcp_valid && i.fcp_sop == (k == 0) && i.fcp_eop == (k + 1 == n) && i.fcp_keep & lane_mask == keep_of(bytes as u32)
    }

    /// The item started last clock is counted (the counters show it a clock late).
    fn count_start(&mut self) {
        if let Some(k) = self.started_prev.take() {
            self.starts[k as usize] = self.starts[k as usize].wrapping_add(1);
        }
    }

    /// A reset: the item in progress, the pipeline and the wire word are dropped.
    fn drop_all(&mut self) {
        self.item = None;
        self.pipe = [None; PIPE];
        self.tx = LinkWord::default();
        self.fcp_error = false;
    }
}

fn lanes_of(word: u64, n: usize, out: &mut Vec<u8>) {
    out.clear();
    out.extend((0..n).map(|l| (word >> (8 * l)) as u8));
}

impl CycleSim for LinkTxModelSim {
    type In = LinkTxIn;
    type Out = LinkTxOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &LinkTxIn) -> LinkTxOut {
        let lanes = self.lanes;
        if self.tx.valid && !i.tx_ready {
            // The wire word waits: the transmitter does not move (a reset still drops all).
            let out = LinkTxOut {
                src_vl: self.src_vl,
                tx: self.tx,
                fcp_framing_error: self.fcp_error,
                vl15_starts: self.starts[0],
                fcp_starts: self.starts[1],
                data_starts: self.starts[2],
                ..Default::default()
            };
            self.count_start();
            self.last_boundary = false;
            if i.reset {
                self.drop_all();
            }
            return out;
        }
        // This clock's slot of the current item: its wire word, and whether it reads.
        let mut read = false;
        let mut word = None;
        let mut ends = false;
        let mut fcp_next_word = None;
        if let Some(it) = self.item.as_mut() {
            let k = it.slot as usize;
            match it.kind {
                ItemKind::Fcp => {
                    let take = (it.body - it.bytes.len()).min(lanes);
                    lanes_of(self.fcp_prev, take, &mut self.scratch);
                    it.bytes.extend_from_slice(&self.scratch);
                    if k + 1 < it.words as usize {
                        fcp_next_word = Some(k + 1);
                    }
                }
                _ => {
                    if !it.vcrc_done && it.bytes.len() < it.body {
                        read = true;
                        let take = (it.body - it.bytes.len()).min(lanes);
                        lanes_of(i.src_data, take, &mut self.scratch);
                        it.bytes.extend_from_slice(&self.scratch);
                    }
                    if !it.vcrc_done && it.bytes.len() == it.body {
                        // All data read: the VCRC follows, low byte first (docs/spec.md §3).
                        let vcrc = crc16_wire(&it.bytes);
                        it.bytes.extend_from_slice(&vcrc);
                        it.vcrc_done = true;
                    }
                }
            }
            let lo = k * lanes;
            let hi = (lo + lanes).min(it.bytes.len());
            let data = it.bytes[lo..hi].iter().enumerate().fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l));
            word = Some(LinkWord {
                valid: true,
                data,
                keep: keep_of((hi - lo) as u32),
                sop: k == 0,
                eop: k + 1 == it.words as usize,
                link: it.kind == ItemKind::Fcp,
            });
            it.slot += 1;
            ends = it.slot == it.words;
        }
        // Item boundary: choose VL15 > FCP > data (docs/spec.md §5), data only in LinkActive.
        let boundary = self.item.is_none() || ends;
        self.last_boundary = boundary;
        let pick = if !boundary {
            None
        } else if i.vl15_valid {
            Some(ItemKind::Vl15)
        } else if i.fcp_pending {
            Some(ItemKind::Fcp)
        } else if i.link_active && i.offer_valid {
            Some(ItemKind::Data)
        } else {
            None
        };
        let mut bad = pick == Some(ItemKind::Fcp) && !self.fcp_word_ok(i, 0);
        if let Some(k) = fcp_next_word {
            bad |= !self.fcp_word_ok(i, k);
        }
        let live = !i.reset;
        let out = LinkTxOut {
            vl15_take: live && pick == Some(ItemKind::Vl15),
            fcp_start: live && pick == Some(ItemKind::Fcp),
            fcp_ready: true,
            // The wire word moves (it waits only in the branch above): an FCP's last beat.
            fcp_done: self.tx.valid && self.tx.link && self.tx.eop,
            take: live && pick == Some(ItemKind::Data),
            src_rd: live && read,
            src_vl: self.src_vl,
            tx: self.tx,
            fcp_framing_error: self.fcp_error,
            vl15_starts: self.starts[0],
            fcp_starts: self.starts[1],
            data_starts: self.starts[2],
        };
        // The clock edge.
        self.fcp_prev = i.fcp_data;
        self.count_start();
        if live {
            self.started_prev = pick;
        }
        if i.reset {
            self.drop_all();
            return out;
        }
        self.tx = self.pipe[PIPE - 1].unwrap_or_default();
        self.pipe.copy_within(0..PIPE - 1, 1);
        self.pipe[0] = word;
        if ends {
            self.item = None;
        }
        self.fcp_error |= bad;
        if let Some(kind) = pick {
            let (item, body) = match kind {
                ItemKind::Vl15 => {
                    let pkt_len = i.vl15_len & 0x7ff;
                    self.src_vl = iblink_rtl::link_tx::VL15;
                    (LinkItem::Vl15 { pkt_len }, pkt_len as usize * 4)
                }
                ItemKind::Data => {
                    let pkt_len = i.offer_len & 0x7ff;
                    self.src_vl = i.offer_vl & 0xf;
                    (
                        LinkItem::Data {
                            vl: self.src_vl,
                            pkt_len,
                        },
                        pkt_len as usize * 4,
                    )
                }
                ItemKind::Fcp => (LinkItem::Fcp([0; FCP_BYTES]), FCP_BYTES),
            };
            self.item = Some(Item {
                kind,
                bytes: Vec::with_capacity(body + 2),
                body,
                vcrc_done: false,
                words: item.wire_bytes().div_ceil(lanes as u32),
                slot: 0,
            });
        }
        out
    }
}

pub type LinkTxSim = Box<dyn CycleSim<In = LinkTxIn, Out = LinkTxOut>>;

/// The link TX path for `width_bits` (32 or 64) in back end `b`, optionally with a VCD.
pub fn link_tx_sim(width_bits: usize, b: Backend, vcd: Option<&Path>) -> Result<LinkTxSim, SimBuildError> {
    if !WIDTHS.contains(&width_bits) {
        return Err(SimBuildError::Variant(format!("link_tx at {width_bits} bits (32 or 64)")));
    }
    if b == Backend::Model {
        return Ok(Box::new(LinkTxModelSim::new(width_bits)));
    }
    iblink_rtl::with_link_tx!(width_bits, |T| twin_box::<_, T>(b, LinkTxTwin::new(width_bits), || link_tx_variant(width_bits), vcd),
        _ => Err(SimBuildError::Variant(format!("link_tx at {width_bits} bits"))))
}

// ----- stimulus ---------------------------------------------------------------------

/// An item as the environment saw it start, in start order (for checkers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartedItem {
    pub kind: ItemKind,
    /// The source queue (15 for VL15; 0 for an FCP).
    pub vl: u8,
    /// The packet's PktLen * 4 bytes (LRH..ICRC), or the FCP's 6 bytes.
    pub bytes: Vec<u8>,
}

struct Packet {
    len: u16,
    bytes: Vec<u8>,
}

/// Traffic phases: each lasts a few thousand clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Every source ready nearly all the time: priority conflicts, back to back.
    Flood,
    /// Moderate traffic.
    Busy,
    /// Occasional items with gaps between them.
    Sparse,
    /// Nothing new arrives and offers are withheld: long idle stretches.
    Idle,
    /// Data only, with LinkActive toggling every few clocks.
    LinkToggle,
    /// FCPs back to back, some data behind them.
    FcpStorm,
}

/// Phases drawn with these weights.
const PHASES: [(Phase, u32); 6] = [
    (Phase::Flood, 3),
    (Phase::Busy, 3),
    (Phase::Sparse, 2),
    (Phase::Idle, 2),
    (Phase::LinkToggle, 2),
    (Phase::FcpStorm, 1),
];

/// Per-clock rates of a phase, in 1/1024.
struct Rates {
    packet: u32,
    vl15: u32,
    fcp: u32,
    offer: u32,
    link_toggle: u32,
}

impl Phase {
    fn rates(self) -> Rates {
        let r = |packet, vl15, fcp, offer, link_toggle| Rates {
            packet,
            vl15,
            fcp,
            offer,
            link_toggle,
        };
        match self {
            Phase::Flood => r(600, 40, 40, 1000, 1),
            Phase::Busy => r(120, 8, 8, 800, 2),
            Phase::Sparse => r(6, 1, 2, 600, 2),
            Phase::Idle => r(0, 0, 0, 0, 0),
            Phase::LinkToggle => r(300, 2, 4, 900, 150),
            Phase::FcpStorm => r(200, 2, 1024, 900, 0),
        }
    }
}

/// Packets a data queue holds at most; VL15 fewer.
const QUEUE_PACKETS: usize = 6;
const VL15_PACKETS: usize = 3;

/// A random PktLen: mostly short, some long up to 1048 (docs/spec.md §1 range), and a few
/// outside 6..=1048, which the block streams as given.
pub fn random_pkt_len(r: &mut ChaCha8Rng) -> u16 {
    match r.gen_range(0..200) {
        0..=159 => r.gen_range(6..=40),
        160..=187 => r.gen_range(41..=300),
        188..=195 => r.gen_range(301..=999),
        196..=197 => r.gen_range(1000..=1048),
        198 => r.gen_range(0..=5),
        _ => r.gen_range(1049..=2047),
    }
}

/// The block's environment, reacting to the previous clock's outputs: per-VL descriptor
/// queues (what the arbiter offers), first-word-fall-through word queues (`src_data` is
/// the head word of queue `src_vl`), the VL15 queue, and an FCP framer that obeys the
/// fcp_tx handshake (word 0 presented while pending, word 1 at 32 bits from the clock after
/// `fcp_start` until the block takes it, `fcp_ready`). A packet cut by a reset leaves its
/// unread words in its queue; the environment drops them, as the port must. Now and then
/// the framer presents a word of the wrong shape (to exercise `fcp_framing_error`). The
/// wire's `tx_ready` goes through phases (docs/spec.md §10, [`super::ReadyPhases`]):
/// always high, random (high 30 to 95 % of clocks), stalls of 100 to 2,000 clocks, and a
/// gap of 1 to 3 clocks after every last word that moves (so the next item's first word
/// waits at the boundary).
pub struct LinkTxStimulus {
    rng: ChaCha8Rng,
    lanes: usize,
    descs: Vec<VecDeque<Packet>>,
    words: Vec<VecDeque<u64>>,
    /// The queue read now (the block's `src_vl` this clock).
    src_vl: u8,
    /// Words of the packet being read that are still in its queue.
    reading_vl: u8,
    reading_left: usize,
    last: LinkTxIn,
    fcp_pending: Option<[u8; FCP_BYTES]>,
    /// 32 bits: the FCP whose second word is presented this clock.
    fcp_second: Option<[u8; FCP_BYTES]>,
    /// The wire's ready, and its value last clock.
    wire: super::ReadyPhases,
    ready: bool,
    phase: Phase,
    phase_left: u32,
    link_active: bool,
    offer: Option<u8>,
    reset_left: u32,
    /// Started items in start order, when `record` is set.
    pub started: VecDeque<StartedItem>,
    pub record: bool,
}

impl LinkTxStimulus {
    pub fn new(width_bits: usize, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            lanes: width_bits / 8,
            descs: (0..16).map(|_| VecDeque::new()).collect(),
            words: (0..16).map(|_| VecDeque::new()).collect(),
            src_vl: 0,
            reading_vl: 0,
            reading_left: 0,
            last: LinkTxIn::default(),
            fcp_pending: None,
            fcp_second: None,
            wire: super::ReadyPhases::new(2_000..20_000, 0.3..0.95, 300, 100..2_000, true),
            ready: true,
            phase: Phase::Busy,
            phase_left: 1000,
            link_active: true,
            offer: None,
            reset_left: 0,
            started: VecDeque::new(),
            record: false,
        }
    }

    fn words_of(&self, len: u16) -> usize {
        (len as usize * 4).div_ceil(self.lanes)
    }

    fn log(&mut self, kind: ItemKind, vl: u8, bytes: Vec<u8>) {
        if self.record {
            self.started.push_back(StartedItem { kind, vl, bytes });
        }
    }

    /// The packet at the head of queue `q` starts: it is read from the next clock on.
    fn start_packet(&mut self, q: u8, kind: ItemKind) {
        let p = self.descs[q as usize].pop_front();
        let (len, bytes) = p.map(|p| (p.len, p.bytes)).unwrap_or((0, vec![]));
        self.reading_vl = q;
        self.reading_left = self.words_of(len);
        self.src_vl = q;
        self.log(kind, q, bytes);
    }

    fn enqueue(&mut self, q: usize) {
        let cap = if q == 15 { VL15_PACKETS } else { QUEUE_PACKETS };
        if self.descs[q].len() >= cap {
            return;
        }
        let len = random_pkt_len(&mut self.rng);
        let bytes: Vec<u8> = (0..len as usize * 4).map(|_| self.rng.gen()).collect();
        for chunk in bytes.chunks(self.lanes) {
            // The unused lanes of a last half word are junk the block must not send.
            let mut w: u64 = self.rng.gen();
            for (l, b) in chunk.iter().enumerate() {
                w = w & !(0xff << (8 * l)) | (*b as u64) << (8 * l);
            }
            self.words[q].push_back(w);
        }
        self.descs[q].push_back(Packet { len, bytes });
    }

    fn hit(&mut self, per_1024: u32) -> bool {
        self.rng.gen_range(0..1024) < per_1024
    }

    /// This clock's inputs, given the outputs of the previous clock.
    pub fn next_input(&mut self, prev: Option<&LinkTxOut>) -> LinkTxIn {
        // 1. What the block did last clock.
        // The framer's second word (32 bits) was taken last clock (a start implies it).
        if prev.is_none_or(|p| p.fcp_ready) {
            self.fcp_second = None;
        }
        if let Some(p) = prev {
            if p.src_rd {
                self.words[p.src_vl as usize].pop_front();
                if p.src_vl == self.reading_vl {
                    self.reading_left = self.reading_left.saturating_sub(1);
                }
            }
            self.src_vl = p.src_vl;
            if p.take {
                self.start_packet(self.last.offer_vl, ItemKind::Data);
            }
            if p.vl15_take {
                self.start_packet(15, ItemKind::Vl15);
            }
            if p.fcp_start {
                let f = self.fcp_pending.take().unwrap_or([0; FCP_BYTES]);
                self.log(ItemKind::Fcp, 0, f.to_vec());
                if self.lanes == 4 {
                    self.fcp_second = Some(f);
                }
            }
        }
        if self.last.reset {
            // The packet cut by the reset: the port drops what is left of it.
            let q = self.reading_vl as usize;
            for _ in 0..self.reading_left {
                self.words[q].pop_front();
            }
            self.reading_left = 0;
        }
        // 2. The environment moves on.
        if self.phase_left == 0 {
            let total: u32 = PHASES.iter().map(|p| p.1).sum();
            let mut x = self.rng.gen_range(0..total);
            for (p, w) in PHASES {
                if x < w {
                    self.phase = p;
                    break;
                }
                x -= w;
            }
            self.phase_left = self.rng.gen_range(300..6000);
        }
        self.phase_left -= 1;
        let rates = self.phase.rates();
        if self.hit(rates.packet) {
            let q = self.rng.gen_range(0..15);
            self.enqueue(q);
        }
        if self.hit(rates.vl15) {
            self.enqueue(15);
        }
        if self.fcp_pending.is_none() && self.hit(rates.fcp) {
            self.fcp_pending = Some(self.rng.gen());
        }
        if self.hit(rates.link_toggle) {
            self.link_active = !self.link_active;
        }
        if self.phase == Phase::Flood && self.rng.gen_ratio(1, 200) {
            self.link_active = true;
        }
        // The arbiter's offer: a data queue with a packet, kept for a while.
        if self.offer.is_none_or(|v| self.descs[v as usize].is_empty()) || self.rng.gen_ratio(1, 8) {
            let candidates: Vec<u8> = (0..15u8).filter(|v| !self.descs[*v as usize].is_empty()).collect();
            self.offer = (!candidates.is_empty()).then(|| candidates[self.rng.gen_range(0..candidates.len())]);
        }
        let mut reset = false;
        if self.reset_left > 0 {
            self.reset_left -= 1;
            reset = true;
        } else if self.rng.gen_ratio(1, 10_000) {
            reset = true;
            self.reset_left = if self.rng.gen_ratio(1, 4) {
                self.rng.gen_range(1..100)
            } else {
                0
            };
        }
        // 3. This clock's inputs.
        let junk: u64 = self.rng.gen();
        let mut i = LinkTxIn {
            reset,
            link_active: self.link_active,
            vl15_len: self.rng.gen_range(0..2048),
            offer_vl: self.rng.gen_range(0..16),
            offer_len: self.rng.gen_range(0..2048),
            src_data: self.words[self.src_vl as usize].front().copied().unwrap_or(junk),
            fcp_data: junk,
            ..Default::default()
        };
        if let Some(p) = self.descs[15].front() {
            i.vl15_valid = true;
            i.vl15_len = p.len;
        }
        if let Some(v) = self.offer {
            if self.hit(rates.offer) {
                i.offer_valid = true;
                i.offer_vl = v;
                i.offer_len = self.descs[v as usize][0].len;
            }
        }
        let word = |f: &[u8; FCP_BYTES], k: usize, lanes: usize, junk: u64| {
            let lo = k * lanes;
            let hi = (lo + lanes).min(FCP_BYTES);
            let mut w = junk;
            for (l, b) in f[lo..hi].iter().enumerate() {
                w = w & !(0xff << (8 * l)) | (*b as u64) << (8 * l);
            }
            (w, keep_of((hi - lo) as u32))
        };
        if let Some(f) = self.fcp_second {
            let (d, keep) = word(&f, 1, self.lanes, junk);
            i.fcp_valid = true;
            i.fcp_data = d;
            i.fcp_keep = keep;
            i.fcp_eop = true;
        } else if let Some(f) = self.fcp_pending {
            let (d, keep) = word(&f, 0, self.lanes, junk);
            i.fcp_valid = true;
            i.fcp_data = d;
            i.fcp_keep = keep;
            i.fcp_sop = true;
            i.fcp_eop = self.lanes == 8;
        } else {
            i.fcp_keep = self.rng.gen();
        }
        // A framer out of step, rarely: one of its stream signals wrong.
        if i.fcp_valid && self.rng.gen_ratio(1, 3000) {
            match self.rng.gen_range(0..4) {
                0 => i.fcp_valid = false,
                1 => i.fcp_sop = !i.fcp_sop,
                2 => i.fcp_eop = !i.fcp_eop,
                _ => i.fcp_keep ^= 1 << self.rng.gen_range(0..self.lanes),
            }
        }
        // As fcp_tx: nothing is pending while an FCP's second word waits to be taken.
        i.fcp_pending = self.fcp_pending.is_some() && self.fcp_second.is_none();
        // The wire's ready.
        let last_moved = prev.is_some_and(|o| o.tx.valid && o.tx.eop) && self.ready;
        i.tx_ready = self.wire.next(&mut self.rng, last_moved);
        self.ready = i.tx_ready;
        self.last = i;
        i
    }
}
