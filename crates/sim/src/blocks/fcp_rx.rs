//! The FCP receive framer in all three back ends, and a random link word stream.
//!
//! RTL: [`iblink_rtl::fcp_rx`]; reference: [`iblink_model::fcp::Fcp::decode`], which
//! alone decides whether a link packet is a good FCP and, if not, why. The adapter here
//! only reassembles link packets from the word stream by the framing rules the RTL
//! documents and delays the verdicts by [`LATENCY`] clocks.

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::fcp::{encode_fields, Fcp, FcpDecodeError, FcpOp, FCP_BYTES};
use iblink_model::sl2vl::VlCap;
use iblink_rtl::catalog::fcp_rx_variant;
use iblink_rtl::fcp_rx::{FcpRxCounts, FcpRxIn, FcpRxOut, FcpRxTwin, LATENCY, VL_CAPS, WIDTHS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// What the stream produced in one clock, before the pipeline delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdicts {
    /// An open link packet was cut by a new `sop`.
    pub abort: bool,
    /// A link packet ended: the reference decoder's verdict on its bytes.
    pub packet: Option<Result<Fcp, FcpDecodeError>>,
}

/// Running totals of every verdict the model gave (not saturating, unlike the
/// counters), for coverage assertions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub good: u64,
    pub good_init: u64,
    /// Good FCPs per VL.
    pub good_vl: [u64; 15],
    pub short: u64,
    pub long: u64,
    pub abort: u64,
    pub lpcrc_error: u64,
    pub reserved_op: u64,
    pub vl15: u64,
    pub vl_cap: u64,
    /// An abort and a packet end in the same clock (a one-word link packet cutting
    /// another).
    pub abort_and_end: u64,
    /// Good FCPs whose `sop` came the clock after the previous item's `eop` (zero
    /// bubble).
    pub good_back_to_back: u64,
    pub resets: u64,
}

/// The reference decoder as a cycle simulation of the framer.
pub struct FcpRxModelSim {
    cap: VlCap,
    lanes: usize,
    open: bool,
    bytes: Vec<u8>,
    /// Verdicts of the last `LATENCY - 1` clocks, oldest first.
    pending: VecDeque<Verdicts>,
    out: FcpRxOut,
    /// The previous clock carried an item's `eop` word; the open link packet started
    /// right after one (for the back-to-back tally).
    prev_eop: bool,
    open_zero_bubble: bool,
    pub tally: Tally,
}

impl FcpRxModelSim {
    pub fn new(vls: usize, width_bits: usize) -> Self {
        Self {
            cap: VlCap::new(vls as u64).expect("VLCap"),
            lanes: width_bits / 8,
            open: false,
            bytes: Vec::with_capacity(256),
            pending: std::iter::repeat_n(Verdicts::default(), LATENCY - 1).collect(),
            out: FcpRxOut::default(),
            prev_eop: false,
            open_zero_bubble: false,
            tally: Tally::default(),
        }
    }

    /// Framing (the rules in `iblink_rtl::fcp_rx`): the verdicts of this clock's word.
    fn frame(&mut self, i: &FcpRxIn) -> Verdicts {
        let mut v = Verdicts::default();
        let prev_eop = std::mem::replace(&mut self.prev_eop, i.rx_valid && i.rx_eop);
        if !i.rx_valid {
            return v;
        }
        if i.rx_sop && self.open {
            v.abort = true;
            self.open = false;
        }
        if i.rx_link && (i.rx_sop || self.open) {
            if i.rx_sop {
                self.bytes.clear();
                self.open = true;
                self.open_zero_bubble = prev_eop;
            }
            // keep counts on the eop word only; earlier words are full.
            let n = if i.rx_eop {
                let keep = i.rx_keep as u32 & ((1u32 << self.lanes) - 1);
                (32 - keep.leading_zeros()) as usize
            } else {
                self.lanes
            };
            self.bytes.extend((0..n).map(|k| (i.rx_data >> (8 * k)) as u8));
            if i.rx_eop {
                v.packet = Some(Fcp::decode(&self.bytes, self.cap));
                self.open = false;
                self.tally.good_back_to_back += (self.open_zero_bubble && v.packet.unwrap().is_ok()) as u64;
            }
        }
        v
    }

    /// The verdicts reach the outputs (the clock edge `LATENCY - 1` clocks after the
    /// word that produced them).
    fn apply(&mut self, v: Verdicts) {
        fn bump(c: &mut u16) {
            *c = c.saturating_add(1);
        }
        let t = &mut self.tally;
        let c: &mut FcpRxCounts = &mut self.out.counts;
        self.out.upd_valid = false;
        if v.abort {
            bump(&mut c.abort);
            t.abort += 1;
        }
        match v.packet {
            None => {}
            Some(Ok(f)) => {
                bump(&mut c.good);
                t.good += 1;
                t.good_init += (f.op == FcpOp::Init) as u64;
                t.good_vl[f.vl as usize] += 1;
                self.out.upd_valid = true;
                self.out.upd_op = f.op as u8;
                self.out.upd_vl = f.vl;
                self.out.upd_fctbs = f.fctbs;
                self.out.upd_fccl = f.fccl;
            }
            Some(Err(e)) => {
                let (count, total) = match e {
                    FcpDecodeError::Short { .. } => (&mut c.short, &mut t.short),
                    FcpDecodeError::Long { .. } => (&mut c.long, &mut t.long),
                    FcpDecodeError::BadLpcrc { .. } => (&mut c.lpcrc_error, &mut t.lpcrc_error),
                    FcpDecodeError::ReservedOp(_) => (&mut c.reserved_op, &mut t.reserved_op),
                    FcpDecodeError::Vl15 => (&mut c.vl15, &mut t.vl15),
                    FcpDecodeError::VlNotImplemented { .. } => (&mut c.vl_cap, &mut t.vl_cap),
                };
                bump(count);
                *total += 1;
            }
        }
        t.abort_and_end += (v.abort && v.packet.is_some()) as u64;
    }
}

impl CycleSim for FcpRxModelSim {
    type In = FcpRxIn;
    type Out = FcpRxOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &FcpRxIn) -> FcpRxOut {
        let out = self.out;
        if i.reset {
            // Resync: the open packet and every verdict still in flight are dropped; the
            // counters stay.
            self.tally.resets += 1;
            self.open = false;
            self.pending.iter_mut().for_each(|v| *v = Verdicts::default());
            self.out = FcpRxOut {
                counts: self.out.counts,
                ..Default::default()
            };
            self.prev_eop = false;
            return out;
        }
        let due = self.pending.pop_front().unwrap_or_default();
        self.apply(due);
        let v = self.frame(i);
        self.pending.push_back(v);
        out
    }
}

pub type FcpRxSim = Box<dyn CycleSim<In = FcpRxIn, Out = FcpRxOut>>;

/// The FCP RX framer for VLCap `vls` and `width_bits`-bit link words in back end `b`,
/// optionally writing a VCD.
pub fn fcp_rx_sim(vls: usize, width_bits: usize, b: Backend, vcd: Option<&Path>) -> Result<FcpRxSim, SimBuildError> {
    if !VL_CAPS.contains(&vls) {
        return Err(SimBuildError::VlCap(vls));
    }
    if !WIDTHS.contains(&width_bits) {
        return Err(SimBuildError::Variant(format!("a {width_bits}-bit link word (32 or 64)")));
    }
    match b {
        Backend::Model => Ok(Box::new(FcpRxModelSim::new(vls, width_bits))),
        _ => iblink_rtl::with_fcp_rx!((vls, width_bits), |T| twin_box::<_, T>(b, FcpRxTwin::new(vls, width_bits), || fcp_rx_variant(vls, width_bits), vcd),
            _ => Err(SimBuildError::Variant(format!("fcp_rx VLCap {vls} width {width_bits}")))),
    }
}

/// One word of an item, as the link delivers it (`rx_valid` = 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Word {
    pub data: u64,
    pub keep: u8,
    pub sop: bool,
    pub eop: bool,
    pub link: bool,
}

impl Word {
    pub fn input(&self) -> FcpRxIn {
        FcpRxIn {
            reset: false,
            rx_valid: true,
            rx_data: self.data,
            rx_keep: self.keep,
            rx_sop: self.sop,
            rx_eop: self.eop,
            rx_link: self.link,
        }
    }
}

/// The words of one item of `bytes` at `lanes` bytes a word, by the stream contract:
/// full words, then a last word whose `keep` covers the rest (a 0-byte item is one word
/// with `keep` 0). Lanes past the item's end carry `fill`'s bytes. `eop = false` leaves
/// the item open (as if cut off).
pub fn item_words(bytes: &[u8], lanes: usize, link: bool, eop: bool, fill: u64) -> Vec<Word> {
    let n = bytes.len().div_ceil(lanes).max(1);
    (0..n)
        .map(|w| {
            let chunk = &bytes[(w * lanes).min(bytes.len())..((w + 1) * lanes).min(bytes.len())];
            let mut data = fill & if lanes == 8 { u64::MAX } else { (1u64 << (8 * lanes)) - 1 };
            for (k, b) in chunk.iter().enumerate() {
                data &= !(0xffu64 << (8 * k));
                data |= (*b as u64) << (8 * k);
            }
            Word {
                data,
                keep: ((1u32 << chunk.len()) - 1) as u8,
                sop: w == 0,
                eop: eop && w == n - 1,
                link,
            }
        })
        .collect()
}

/// What the stimulus generated (the model's [`Tally`] says what came of it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StimulusStats {
    pub fcps: u64,
    pub reserved_ops: u64,
    /// FCPs with exactly one bit flipped (checked flipped), and with 2..=8.
    pub flips_single: u64,
    pub flips_multi: u64,
    /// Multi-bit flips the reference decoder did not see as a bad LPCRC (possible for
    /// some error patterns of four or more bits; zero is likely).
    pub flips_undetected: u64,
    pub truncated: u64,
    pub over_long: u64,
    pub data_packets: u64,
    /// Data packets whose bytes are a valid FCP (link = 0: must be ignored).
    pub data_fcp_lookalikes: u64,
    /// Link packets sent without `eop`, and data packets likewise.
    pub cut_link: u64,
    pub cut_data: u64,
    /// Link packets whose `sop` word was left out (their words are orphans).
    pub headless: u64,
    /// Items whose non-last words carry a partial `keep` (read only on `eop`).
    pub junk_keep: u64,
    /// `rx_valid = 0` clocks inside a link item, and inside a data item.
    pub gaps_in_link: u64,
    pub gaps_in_data: u64,
    pub resets: u64,
    /// Clocks with no item in progress.
    pub idle: u64,
}

/// Random receive link word stream: FCPs (Op 0/1, every VL including VL15 and VLs at
/// or above VLCap), reserved Ops, single and multiple bit flips, truncated and over-long
/// link packets, data packets of random length (some byte-for-byte FCPs), valid gaps
/// inside items, items cut off without `eop` (so the next `sop` aborts them), link words
/// without their `sop`, partial `keep` on non-last words, junk on every field while
/// `rx_valid` is 0, and resets.
pub struct FcpRxStimulus {
    rng: ChaCha8Rng,
    lanes: usize,
    vls: usize,
    queue: VecDeque<Word>,
    /// The item in progress is a link packet.
    in_link: bool,
    pub stats: StimulusStats,
}

impl FcpRxStimulus {
    pub fn new(vls: usize, width_bits: usize, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            lanes: width_bits / 8,
            vls,
            queue: VecDeque::new(),
            in_link: false,
            stats: StimulusStats::default(),
        }
    }

    /// A VL: mostly a data VL of this port, sometimes VL15 or one at or above VLCap.
    fn vl(&mut self) -> u64 {
        match self.rng.gen_range(0..10) {
            0 => 15,
            1 if self.vls < 15 => self.rng.gen_range(self.vls as u64..15),
            _ => self.rng.gen_range(0..self.vls as u64),
        }
    }

    /// A valid FCP's six bytes (Op 0 or 1).
    fn fcp(&mut self) -> [u8; FCP_BYTES] {
        let op = self.rng.gen_range(0..2);
        let vl = self.vl();
        encode_fields(op, self.rng.gen_range(0..4096), vl, self.rng.gen_range(0..4096)).expect("fields in range")
    }

    fn junk(&mut self) -> FcpRxIn {
        FcpRxIn {
            reset: false,
            rx_valid: false,
            rx_data: self.rng.gen(),
            rx_keep: self.rng.gen(),
            rx_sop: self.rng.gen(),
            rx_eop: self.rng.gen(),
            rx_link: self.rng.gen(),
        }
    }

    /// Queue the next item's words.
    fn next_item(&mut self) {
        let lanes = self.lanes;
        let fill: u64 = self.rng.gen();
        let s = &mut self.stats;
        let (bytes, link, eop): (Vec<u8>, bool, bool) = match self.rng.gen_range(0..100) {
            // A valid FCP (the VL may still be VL15 or beyond VLCap).
            0..=19 => {
                s.fcps += 1;
                (self.fcp().to_vec(), true, true)
            }
            // Good LPCRC, reserved Op.
            20..=25 => {
                s.reserved_ops += 1;
                let op = self.rng.gen_range(2..16);
                let vl = self.vl();
                let b = encode_fields(op, self.rng.gen_range(0..4096), vl, self.rng.gen_range(0..4096)).unwrap();
                (b.to_vec(), true, true)
            }
            // Bit flips anywhere in the six bytes.
            26..=35 => {
                let good = self.fcp();
                let k = if self.rng.gen_ratio(1, 2) { 1 } else { self.rng.gen_range(2..=8) };
                let mut b = good;
                let mut flipped = 0u64;
                while flipped.count_ones() < k {
                    let bit = self.rng.gen_range(0..48);
                    if flipped >> bit & 1 == 0 {
                        flipped |= 1 << bit;
                        b[bit / 8] ^= 1 << (bit % 8);
                    }
                }
                // The flips really flipped: exactly k bits differ.
                let diff: u32 = good.iter().zip(b.iter()).map(|(x, y)| (x ^ y).count_ones()).sum();
                assert_eq!(diff, k, "bit flips");
                let decoded = Fcp::decode(&b, VlCap::MAX);
                if k == 1 {
                    // CRC-16 catches every single-bit error.
                    assert!(matches!(decoded, Err(FcpDecodeError::BadLpcrc { .. })), "{b:02x?}");
                    self.stats.flips_single += 1;
                } else {
                    self.stats.flips_multi += 1;
                    self.stats.flips_undetected += !matches!(decoded, Err(FcpDecodeError::BadLpcrc { .. })) as u64;
                }
                (b.to_vec(), true, true)
            }
            // Truncated: 0..=5 bytes of an FCP.
            36..=41 => {
                s.truncated += 1;
                let n = if self.rng.gen_ratio(1, 10) { 0 } else { self.rng.gen_range(1..6) };
                (self.fcp()[..n].to_vec(), true, true)
            }
            // Over-long: a good FCP and 1..=30 bytes more (seed 000's 8-byte form often).
            42..=47 => {
                s.over_long += 1;
                let mut b = self.fcp().to_vec();
                let extra = if self.rng.gen_ratio(1, 3) { 2 } else { self.rng.gen_range(1..=30) };
                b.extend((0..extra).map(|_| self.rng.gen::<u8>()));
                (b, true, true)
            }
            // Data packets (link = 0), a third of them FCP look-alikes.
            48..=87 => {
                s.data_packets += 1;
                let b = if self.rng.gen_ratio(1, 3) {
                    self.stats.data_fcp_lookalikes += 1;
                    let mut b = self.fcp().to_vec();
                    if self.rng.gen_ratio(1, 2) {
                        let extra = self.rng.gen_range(1..60);
                        b.extend((0..extra).map(|_| self.rng.gen::<u8>()));
                    }
                    b
                } else {
                    let n = self.rng.gen_range(1..=120);
                    (0..n).map(|_| self.rng.gen::<u8>()).collect()
                };
                (b, false, true)
            }
            // A link packet cut off: no eop; the next sop aborts it.
            88..=94 => {
                s.cut_link += 1;
                let mut b = self.fcp().to_vec();
                let extra = self.rng.gen_range(0..=14);
                b.extend((0..extra).map(|_| self.rng.gen::<u8>()));
                let words = b.len().div_ceil(lanes);
                let keep_bytes = self.rng.gen_range(1..=words) * lanes;
                b.truncate(keep_bytes.min(b.len()));
                (b, true, false)
            }
            // A data packet cut off.
            95..=96 => {
                s.cut_data += 1;
                let n = self.rng.gen_range(1..=40);
                ((0..n).map(|_| self.rng.gen::<u8>()).collect(), false, false)
            }
            // A link packet without its sop word.
            _ => {
                s.headless += 1;
                let mut words = item_words(&self.fcp(), lanes, true, true, fill);
                if words.len() > 1 && self.rng.gen_ratio(1, 2) {
                    words.remove(0);
                } else {
                    words[0].sop = false;
                }
                self.in_link = true;
                self.queue.extend(words);
                return;
            }
        };
        let mut words = item_words(&bytes, lanes, link, eop, fill);
        if words.len() > 1 && self.rng.gen_ratio(1, 20) {
            // Partial keep on a non-last word: read only on eop, so it changes nothing.
            self.stats.junk_keep += 1;
            let w = self.rng.gen_range(0..words.len() - 1);
            words[w].keep = self.rng.gen::<u8>() & ((1u16 << lanes) - 1) as u8;
        }
        self.in_link = link;
        self.queue.extend(words);
    }
}

impl Iterator for FcpRxStimulus {
    type Item = FcpRxIn;
    fn next(&mut self) -> Option<FcpRxIn> {
        if self.rng.gen_ratio(1, 3000) {
            // Resync: the item in flight is usually lost with it.
            self.stats.resets += 1;
            if self.rng.gen_ratio(3, 4) {
                self.queue.clear();
            }
            let mut i = self.junk();
            i.reset = true;
            i.rx_valid = self.rng.gen();
            return Some(i);
        }
        if self.queue.is_empty() {
            if self.rng.gen_ratio(1, 5) {
                self.stats.idle += 1;
                return Some(self.junk());
            }
            self.next_item();
        }
        let front = *self.queue.front().expect("an item was queued");
        if !front.sop && self.rng.gen_ratio(1, 8) {
            // A gap inside an item.
            if self.in_link {
                self.stats.gaps_in_link += 1;
            } else {
                self.stats.gaps_in_data += 1;
            }
            return Some(self.junk());
        }
        self.queue.pop_front();
        Some(front.input())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_words_follow_the_stream_contract() {
        let b = [1u8, 2, 3, 4, 5, 6];
        let w = item_words(&b, 4, true, true, u64::MAX);
        assert_eq!(w.len(), 2);
        assert_eq!((w[0].data, w[0].keep, w[0].sop, w[0].eop), (0x0403_0201, 0xf, true, false));
        // Lanes past the end carry the fill.
        assert_eq!((w[1].data, w[1].keep, w[1].sop, w[1].eop), (0xffff_0605, 0x3, false, true));
        let w = item_words(&b, 8, true, true, 0);
        assert_eq!((w.len(), w[0].data, w[0].keep), (1, 0x0605_0403_0201, 0x3f));
        let w = item_words(&[], 8, true, true, 0);
        assert_eq!((w.len(), w[0].keep, w[0].sop, w[0].eop), (1, 0, true, true));
        let w = item_words(&[9; 8], 4, false, false, 0);
        assert!(w.iter().all(|x| !x.eop && !x.link && x.keep == 0xf));
    }

    #[test]
    fn model_latency_and_framing() {
        // docs/spec.md §3's init FCP at 32 bits: eop in clock 1, upd_valid in clock 4.
        let mut m = FcpRxModelSim::new(4, 32);
        let words = item_words(&[0x10, 0, 0, 0, 0x58, 0x05], 4, true, true, 0);
        let mut outs = vec![];
        for w in &words {
            outs.push(m.step(&w.input()));
        }
        for _ in 0..4 {
            outs.push(m.step(&FcpRxIn::default()));
        }
        let valid: Vec<bool> = outs.iter().map(|o| o.upd_valid).collect();
        assert_eq!(valid, [false, false, false, false, true, false]);
        assert_eq!((outs[4].upd_op, outs[4].upd_vl, outs[4].counts.good), (1, 0, 1));
    }
}
