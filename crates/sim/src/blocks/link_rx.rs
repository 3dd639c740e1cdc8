//! The link RX classifier in all three back ends, and a random receive link word stream.
//!
//! RTL: [`iblink_rtl::link_rx`]. The model here is independent of it: it reassembles
//! each data packet's bytes from the words by the framing rules the RTL documents,
//! reads the LRH per docs/spec.md §1, checks the VCRC with the reference CRC
//! ([`iblink_model::crc16`]: the CRC of every byte but the last two against those two,
//! low byte first), classifies by VL with the rules of `PortModel::receive`
//! ([`VlCap::has_data_vl`], VL15 to the VL15 buffer, anything else a bad VL) and counts
//! blocks with [`blocks_for_pkt_len`]; then it applies the documented latencies.

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::blocks::{blocks_for_pkt_len, MAX_PKT_LEN, MIN_PKT_LEN};
use iblink_model::crc16::{crc16, crc16_wire};
use iblink_model::sl2vl::{VlCap, VL15};
use iblink_rtl::catalog::link_rx_variant;
use iblink_rtl::link_rx::{
    LinkRxIn, LinkRxOut, LinkRxTwin, LATENCY, STATUS_BAD_VL, STATUS_GOOD, STATUS_LENGTH, STATUS_VCRC, VL_CAPS,
    WIDTHS,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// The longest packet whose bytes the model keeps: PktLen is 11 bits. Longer items are
/// length errors whatever they hold, so only their byte count is kept.
const MAX_KEPT: usize = 2047 * 4 + 2;

/// The model's verdict on one data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// One of the `STATUS_*` codes.
    pub status: u8,
    /// LRH VL and blocks (docs/spec.md §1), when the length is right (else 0).
    pub vl: u8,
    pub blocks: u8,
}

/// Judge the bytes of one data packet (VCRC included): length, then VCRC, then VL.
pub fn judge(bytes: &[u8], len: usize, cap: VlCap) -> Verdict {
    let bad = |status| Verdict {
        status,
        vl: 0,
        blocks: 0,
    };
    if len < 6 {
        return bad(STATUS_LENGTH);
    }
    // LRH (IBA, as `iblink_model::iba` builds it): VL = byte 0 [7:4]; PktLen = byte 4
    // [2:0] (under 5 reserved bits), byte 5.
    let pkt_len = ((bytes[4] as u16 & 7) << 8) | bytes[5] as u16;
    if len != pkt_len as usize * 4 + 2 || !(MIN_PKT_LEN..=MAX_PKT_LEN).contains(&pkt_len) {
        return bad(STATUS_LENGTH);
    }
    let vl = bytes[0] >> 4;
    let blocks = blocks_for_pkt_len(pkt_len) as u8;
    let body = &bytes[..len - 2];
    if crc16(body).to_le_bytes() != bytes[len - 2..len] {
        return Verdict {
            status: STATUS_VCRC,
            vl,
            blocks,
        };
    }
    // PortModel::receive: VL15 to the VL15 buffer, a data VL to the credits, else bad.
    let status = if vl == VL15 || cap.has_data_vl(vl) {
        STATUS_GOOD
    } else {
        STATUS_BAD_VL
    };
    Verdict { status, vl, blocks }
}

/// Running totals of what the model saw and judged (not saturating), for coverage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub good_data: u64,
    pub good_vl15: u64,
    pub vcrc: u64,
    pub length: u64,
    pub bad_vl: u64,
    pub abort: u64,
    /// Good packets of the largest class (PktLen above 512).
    pub good_long: u64,
    /// Data packets whose `sop` word came the clock right after the previous item's
    /// `eop` word (zero bubble).
    pub back_to_back: u64,
    /// Link words seen (ignored by this block).
    pub link_words: u64,
    /// `rx_valid = 0` clocks inside an open data packet.
    pub gaps_inside: u64,
    pub resets: u64,
}

/// The classifier as a cycle simulation: framing on words, judgement on bytes.
pub struct LinkRxModelSim {
    cap: VlCap,
    lanes: usize,
    open: bool,
    bytes: Vec<u8>,
    len: usize,
    /// Verdicts of the last `LATENCY - 1` clocks, newest first.
    pending: VecDeque<Option<Verdict>>,
    out: LinkRxOut,
    /// The previous clock carried an item's `eop` word (for the back-to-back tally).
    prev_eop: bool,
    tally: Tally,
}

impl LinkRxModelSim {
    pub fn new(vls: usize, width: usize) -> Self {
        Self {
            cap: VlCap::new(vls as u64).expect("VLCap"),
            lanes: width / 8,
            open: false,
            bytes: Vec::with_capacity(MAX_KEPT),
            len: 0,
            pending: VecDeque::from(vec![None; LATENCY - 1]),
            out: LinkRxOut::default(),
            prev_eop: false,
            tally: Tally::default(),
        }
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }
}

fn bump(c: &mut u16, when: bool) {
    if when {
        *c = c.saturating_add(1);
    }
}

impl CycleSim for LinkRxModelSim {
    type In = LinkRxIn;
    type Out = LinkRxOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &LinkRxIn) -> LinkRxOut {
        let now = self.out;
        let mut next = now;
        // Counters count what is shown this clock, reset or not.
        let c = &mut next.counts;
        bump(&mut c.good, now.done && now.done_status == STATUS_GOOD);
        bump(
            &mut c.vcrc_error,
            now.done && now.done_status == STATUS_VCRC,
        );
        bump(
            &mut c.length_error,
            now.done && now.done_status == STATUS_LENGTH,
        );
        bump(&mut c.bad_vl, now.done && now.done_status == STATUS_BAD_VL);
        bump(&mut c.abort, now.out_abort);
        next.out_valid = false;
        next.out_sop = false;
        next.out_eop = false;
        next.out_abort = false;
        next.done = false;
        next.acc_valid = false;
        next.vl15_accept = false;

        let prev_eop = std::mem::replace(&mut self.prev_eop, i.rx_valid && i.rx_eop);
        // out_data/out_keep hold every clock's input word as the block would deliver it
        // (meaningful only with out_valid): lanes up to the highest keep bit on an eop
        // word, all lanes otherwise, the rest zero.
        let lanes = self.lanes;
        let n = if i.rx_eop {
            let keep = i.rx_keep as u32 & ((1u32 << lanes) - 1);
            (32 - keep.leading_zeros()) as usize
        } else {
            lanes
        };
        let mut data = 0u64;
        for lane in 0..n {
            data |= (i.rx_data >> (8 * lane) & 0xff) << (8 * lane);
        }
        next.out_data = data;
        next.out_keep = ((1u32 << n) - 1) as u8;
        if i.reset {
            self.tally.resets += 1;
            self.open = false;
            self.pending.iter_mut().for_each(|p| *p = None);
            next.done_status = STATUS_GOOD;
            next.acc_vl = 0;
            next.acc_blocks = 0;
            self.out = next;
            return now;
        }

        // The verdict judged LATENCY - 1 clocks ago shows next clock.
        if let Some(v) = self.pending.pop_back().flatten() {
            next.done = true;
            next.done_status = v.status;
            if v.status == STATUS_GOOD {
                next.acc_valid = v.vl != VL15;
                next.vl15_accept = v.vl == VL15;
            }
            // acc_vl/acc_blocks follow every packet of the right length.
            if v.status != STATUS_LENGTH {
                next.acc_vl = v.vl;
                next.acc_blocks = v.blocks;
            }
        }

        // Framing.
        let data_word = i.rx_valid && !i.rx_link;
        self.tally.link_words += (i.rx_valid && i.rx_link) as u64;
        self.tally.gaps_inside += (!i.rx_valid && self.open) as u64;
        if i.rx_valid && i.rx_sop && self.open {
            next.out_abort = true;
            self.tally.abort += 1;
            self.open = false;
        }
        let mut verdict = None;
        if data_word && (i.rx_sop || self.open) {
            if i.rx_sop {
                self.tally.back_to_back += prev_eop as u64;
                self.bytes.clear();
                self.len = 0;
                next.out_vl = (i.rx_data >> 4 & 0xf) as u8;
            }
            // Bytes of this word: all lanes, or on the eop word lanes 0..=highest keep bit.
            for lane in 0..n {
                if self.bytes.len() < MAX_KEPT {
                    self.bytes.push((i.rx_data >> (8 * lane)) as u8);
                }
            }
            self.len += n;
            next.out_valid = true;
            next.out_sop = i.rx_sop;
            next.out_eop = i.rx_eop;
            self.open = !i.rx_eop;
            if i.rx_eop {
                let v = judge(&self.bytes, self.len, self.cap);
                let t = &mut self.tally;
                match v.status {
                    STATUS_GOOD if v.vl == VL15 => t.good_vl15 += 1,
                    STATUS_GOOD => t.good_data += 1,
                    STATUS_VCRC => t.vcrc += 1,
                    STATUS_LENGTH => t.length += 1,
                    _ => t.bad_vl += 1,
                }
                if v.status == STATUS_GOOD && self.len > 512 * 4 {
                    t.good_long += 1;
                }
                verdict = Some(v);
            }
        }
        self.pending.push_front(verdict);
        self.out = next;
        now
    }
}

pub type LinkRxSim = Box<dyn CycleSim<In = LinkRxIn, Out = LinkRxOut>>;

/// The classifier for VLCap `vls` and `width`-bit link words in back end `b`.
pub fn link_rx_sim(
    vls: usize,
    width: usize,
    b: Backend,
    vcd: Option<&Path>,
) -> Result<LinkRxSim, SimBuildError> {
    if !VL_CAPS.contains(&vls) {
        return Err(SimBuildError::VlCap(vls));
    }
    if !WIDTHS.contains(&width) {
        return Err(SimBuildError::Variant(format!(
            "link RX at {width} bits (32 or 64)"
        )));
    }
    match b {
        Backend::Model => Ok(Box::new(LinkRxModelSim::new(vls, width))),
        _ => {
            iblink_rtl::with_link_rx!((vls, width), |T| twin_box::<_, T>(b, LinkRxTwin::new(vls, width), || link_rx_variant(vls, width), vcd),
            _ => Err(SimBuildError::Variant(format!("link RX VLCap {vls} at {width} bits"))))
        }
    }
}

/// The words that carry `bytes` as one item at `lanes` bytes a word, no gaps. An
/// empty item is one word with `keep` 0.
pub fn item_words(bytes: &[u8], lanes: usize, link: bool) -> Vec<LinkRxIn> {
    let chunks: Vec<&[u8]> = if bytes.is_empty() {
        vec![&[][..]]
    } else {
        bytes.chunks(lanes).collect()
    };
    let n = chunks.len();
    chunks
        .iter()
        .enumerate()
        .map(|(k, c)| LinkRxIn {
            reset: false,
            rx_valid: true,
            rx_data: c
                .iter()
                .enumerate()
                .fold(0, |a, (l, b)| a | (*b as u64) << (8 * l)),
            rx_keep: if k + 1 == n {
                ((1u16 << c.len()) - 1) as u8
            } else {
                ((1u16 << lanes) - 1) as u8
            },
            rx_sop: k == 0,
            rx_eop: k + 1 == n,
            rx_link: link,
        })
        .collect()
}

/// A data packet on the wire: LRH (VL, PktLen; LVer, SL, LNH, DLID, SLID and the 5
/// reserved bits above PktLen random), `pkt_len * 4 - 8` random bytes after it, and its
/// VCRC (computed by the reference [`crc16_wire`]). `pkt_len` is at least 2 (the LRH).
pub fn data_packet(rng: &mut impl Rng, vl: u8, pkt_len: u16) -> Vec<u8> {
    let mut p = vec![0u8; pkt_len.max(2) as usize * 4];
    rng.fill(&mut p[..]);
    p[0] = vl << 4 | (p[0] & 0xf);
    // LNH (byte 1 [1:0]) is informational: any value.
    p[4] = (p[4] & 0xf8) | (pkt_len >> 8) as u8 & 7;
    p[5] = pkt_len as u8;
    p.truncate(pkt_len as usize * 4);
    let vcrc = crc16_wire(&p);
    p.extend_from_slice(&vcrc);
    p
}

/// What kind of item the stimulus made (for its own statistics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Good,
    Flipped,
    WrongLength,
    PktLenRange,
    Cut,
    Link,
}

/// Random receive link word stream: well-formed data packets (random VL, VL15 and
/// VLs at or above VLCap included; PktLen 6..=1048, mostly short; random payload;
/// correct VCRC), packets with one to three bit flips (distinct bits, checked to differ
/// from the original), wrong byte counts (truncated or extended, VCRC recomputed or
/// not), PktLen outside 6..=1048 with a consistent length and VCRC, packets cut off
/// without an `eop`, FCPs and other link packets, stray words, `valid` gaps inside
/// items, junk `keep` where it must be ignored, back-to-back items, and resets.
pub struct LinkRxStimulus {
    rng: ChaCha8Rng,
    vls: u8,
    lanes: usize,
    words: VecDeque<LinkRxIn>,
    /// Items made, by kind, and bit flips that really changed a packet.
    pub made: [u64; 6],
    pub flips: u64,
}

impl LinkRxStimulus {
    pub fn new(vls: usize, width: usize, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vls: vls as u8,
            lanes: width / 8,
            words: VecDeque::new(),
            made: [0; 6],
            flips: 0,
        }
    }

    fn pkt_len(&mut self) -> u16 {
        let r = &mut self.rng;
        match r.gen_range(0..20) {
            0 => r.gen_range(513..=MAX_PKT_LEN),
            1..=3 => r.gen_range(41..=512),
            4 => *[MIN_PKT_LEN, MIN_PKT_LEN + 1, MAX_PKT_LEN, 1024]
                .get(r.gen_range(0..4))
                .unwrap(),
            _ => r.gen_range(MIN_PKT_LEN..=40),
        }
    }

    fn vl(&mut self) -> u8 {
        let r = &mut self.rng;
        match r.gen_range(0..10) {
            0 => VL15,
            1 => r.gen_range(self.vls.min(14)..=14),
            _ => r.gen_range(0..self.vls),
        }
    }

    /// Queue the next item's words.
    fn make_item(&mut self) {
        let lanes = self.lanes;
        let pick = self.rng.gen_range(0..100);
        let (kind, bytes, link) = if pick < 55 {
            let (vl, n) = (self.vl(), self.pkt_len());
            (Kind::Good, data_packet(&mut self.rng, vl, n), false)
        } else if pick < 67 {
            // One to three distinct bit flips anywhere (VCRC and PktLen included).
            let (vl, n) = (self.vl(), self.pkt_len().min(200));
            let orig = data_packet(&mut self.rng, vl, n);
            let mut p = orig.clone();
            let k = self.rng.gen_range(1..=3);
            let mut bits: Vec<usize> = Vec::new();
            while bits.len() < k {
                let b = self.rng.gen_range(0..p.len() * 8);
                if !bits.contains(&b) {
                    bits.push(b);
                }
            }
            for b in &bits {
                p[b / 8] ^= 1 << (b % 8);
            }
            assert_ne!(p, orig, "bit flips {bits:?} left the packet unchanged");
            self.flips += k as u64;
            (Kind::Flipped, p, false)
        } else if pick < 74 {
            // Byte count off: truncated or extended, the VCRC over what is sent or stale.
            let (vl, n) = (self.vl(), self.pkt_len().min(300));
            let mut p = data_packet(&mut self.rng, vl, n);
            if self.rng.gen() {
                let cut = self.rng.gen_range(1..=8.min(p.len() - 4));
                p.truncate(p.len() - cut);
            } else {
                for _ in 0..self.rng.gen_range(1..=9) {
                    p.push(self.rng.gen());
                }
            }
            if self.rng.gen() {
                let body = p.len() - 2;
                let v = crc16_wire(&p[..body]);
                p[body..].copy_from_slice(&v);
            }
            (Kind::WrongLength, p, false)
        } else if pick < 78 {
            // PktLen out of range with a consistent byte count and a good VCRC.
            let n = match self.rng.gen_range(0..3) {
                0 => self.rng.gen_range(0..MIN_PKT_LEN),
                // Near the upper bound and on the edges of the range logic's terms.
                1 => *[1049, 1050, 1055, 1056, 1057, 1064, 1080, 1536, 2047]
                    .get(self.rng.gen_range(0..9))
                    .unwrap(),
                _ => self.rng.gen_range(MAX_PKT_LEN + 1..=2047),
            };
            let vl = self.vl();
            let p = if n < 2 {
                // PktLen 0 or 1 cannot cover the LRH that holds it: an 8-byte LRH that
                // claims it, with a good VCRC.
                let mut p = data_packet(&mut self.rng, vl, 2);
                p[4] &= 0xf8;
                p[5] = n as u8;
                let v = crc16_wire(&p[..8]);
                p[8..].copy_from_slice(&v);
                p
            } else {
                data_packet(&mut self.rng, vl, n)
            };
            (Kind::PktLenRange, p, false)
        } else if pick < 82 {
            // A data packet cut off: some words of it, then the next item.
            let (vl, n) = (self.vl(), self.pkt_len().min(100));
            let p = data_packet(&mut self.rng, vl, n);
            let keep = self.rng.gen_range(1..=p.len().div_ceil(lanes).max(2) - 1) * lanes;
            (Kind::Cut, p[..keep.min(p.len())].to_vec(), false)
        } else {
            // Link packets: mostly 6-byte FCPs, some of other lengths.
            let n = if self.rng.gen_ratio(3, 4) {
                6
            } else {
                self.rng.gen_range(1..=24)
            };
            let mut p = vec![0u8; n];
            self.rng.fill(&mut p[..]);
            (Kind::Link, p, true)
        };
        self.made[kind as usize] += 1;
        let mut words = item_words(&bytes, lanes, link);
        if kind == Kind::Cut {
            words.last_mut().unwrap().rx_eop = false;
        }
        let n = words.len();
        for (k, mut w) in words.into_iter().enumerate() {
            let r = &mut self.rng;
            // keep is read on the eop word only: junk elsewhere now and then.
            if !w.rx_eop && r.gen_ratio(1, 20) {
                w.rx_keep = r.gen();
            }
            // Junk above the last byte, and now and then above the highest keep bit.
            if w.rx_eop {
                let used = 8 * (8 - w.rx_keep.leading_zeros() as usize);
                if used < 64 {
                    w.rx_data |= r.gen::<u64>() << used;
                }
                if r.gen_ratio(1, 10) {
                    let hb = 8 - w.rx_keep.leading_zeros();
                    if hb > 1 {
                        // Holes below the highest set bit: the highest bit rules.
                        w.rx_keep &= !(1 << r.gen_range(0..hb - 1));
                    }
                }
            }
            // Gaps inside an item.
            if k > 0 && k < n && r.gen_ratio(1, 12) {
                for _ in 0..r.gen_range(1..=3) {
                    self.words.push_back(junk(r, false));
                }
            }
            self.words.push_back(w);
        }
        // Sometimes idle or stray words between items (zero bubble otherwise).
        if self.rng.gen_ratio(1, 4) {
            for _ in 0..self.rng.gen_range(1..=4) {
                let stray = self.rng.gen_ratio(1, 3);
                let j = junk(&mut self.rng, stray);
                self.words.push_back(j);
            }
        }
    }
}

/// A clock with nothing for this block: `rx_valid = 0` with random fields, or (`stray`)
/// a valid word without `sop` that belongs to no item.
fn junk(r: &mut impl Rng, stray: bool) -> LinkRxIn {
    LinkRxIn {
        reset: false,
        rx_valid: stray,
        rx_data: r.gen(),
        rx_keep: r.gen(),
        rx_sop: !stray && r.gen(),
        rx_eop: r.gen(),
        rx_link: r.gen(),
    }
}

impl Iterator for LinkRxStimulus {
    type Item = LinkRxIn;
    fn next(&mut self) -> Option<LinkRxIn> {
        if self.words.is_empty() {
            self.make_item();
        }
        let mut w = self.words.pop_front().expect("an item has words");
        if self.rng.gen_ratio(1, 15_000) {
            // Link resync, now and then in the middle of an item.
            w.reset = true;
        }
        Some(w)
    }
}
