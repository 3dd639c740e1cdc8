//! FCP receive framer (SPEC.md §2, §3, §4): takes the link packets out of the receive
//! link word stream, checks each as a Flow Control Packet and turns a good one into a
//! one-clock credit update; every discarded one is counted under its reason.
//!
//! Reference-model twin: `iblink_model::fcp::Fcp::decode` (the accept/discard decision
//! and its reason), wrapped by `iblink_sim::blocks::fcp_rx` in a cycle adapter that
//! reassembles link packets by the framing rules below and applies this block's latency;
//! snapshots: `tests/snapshots`.
//!
//! # Interface (VLCap `N` data VLs and `W` = 32 or 64 data bits, fixed at generation)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link init / resync (SPEC.md §8): the open link packet and every packet in the pipeline are dropped without a verdict; `upd_*` clear; counters are kept |
//! | `rx_valid` | in | a word is present (the other `rx_*` inputs are ignored without it) |
//! | `rx_data` | in | `W` bits; byte `k` is `[8k+7:8k]`, byte 0 first on the wire |
//! | `rx_keep` | in | `W/8` bits; read on the `eop` word only: its highest set bit `i` says lanes `0..=i` carry bytes (0: none) |
//! | `rx_sop`, `rx_eop` | in | first / last word of an item |
//! | `rx_link` | in | the word belongs to a link packet (SPEC.md §2); data-packet words (0) are ignored |
//! | `upd_valid` | out | one clock: a good FCP; the RX credit block takes `ABR[upd_vl] := upd_fctbs`, the TX credit block `CL[upd_vl] := upd_fccl` (SPEC.md §4), failsafe's update monitor sees VL `upd_vl` refreshed |
//! | `upd_op` | out | its Op: 0 normal, 1 flow-control init (the only Ops accepted) |
//! | `upd_vl` | out | 4 bits, always below `N` |
//! | `upd_fctbs`, `upd_fccl` | out | 12 bits each |
//! | `good_count` | out | 16 bits: good FCPs |
//! | `short_count`, `long_count` | out | 16 bits: link packets of fewer / more than 6 bytes |
//! | `abort_count` | out | 16 bits: link packets that never saw their `eop` (a new `sop` came first) |
//! | `lpcrc_error_count` | out | 16 bits: 6 bytes, LPCRC (bytes 4–5, low byte first) does not match bytes 0–3 |
//! | `reserved_op_count` | out | 16 bits: good LPCRC, Op 2–15 |
//! | `vl15_count` | out | 16 bits: good LPCRC and Op, VL 15 (no flow control on VL15) |
//! | `vl_cap_count` | out | 16 bits: good LPCRC and Op, VL `N`..=14 (a VL this port does not have) |
//!
//! All outputs are registers. The counters saturate at 0xFFFF: they are statistics for
//! software and the failsafe, 16 bits like the other blocks' counters, and a resync keeps
//! them (as the model's port statistics). The `upd_*` fields hold the last good FCP
//! (0 after a reset); only `upd_valid` says when one arrives.
//!
//! # Framing (what a link packet is)
//! - A link packet starts on a word with `rx_valid & rx_sop & rx_link` and ends on the
//!   next link word with `rx_eop` (the same word for a one-word packet). Words with
//!   `rx_valid = 0` anywhere are ignored (gaps are tolerated inside an item).
//! - Its length is `W/8` bytes for every word before the `eop` word plus the bytes that
//!   word's `rx_keep` enables (only the last word of an item may be partial, so `keep`
//!   is not looked at on the others). Byte `j` of the packet is lane `j mod W/8` of its
//!   word `j div W/8`. Exactly 6 bytes is an FCP candidate; fewer is *short*, more is
//!   *long* (counted, discarded; the model's `Short`/`Long`).
//! - A word with `rx_sop` (link or data) while a link packet is open *aborts* that
//!   packet (counted once, discarded); if the word is a link `sop` a new packet starts
//!   with it. Link words with no open packet and no `sop` (the tail of an aborted or
//!   reset packet) and words with `rx_link = 0` (data packets, even with FCP-like bytes)
//!   are ignored.
//! - A 6-byte packet is checked as the model does, in this order: LPCRC, Op, VL15,
//!   VL >= VLCap; the first failure is its reason.
//!
//! # Cycle contract
//! - The verdict for a link packet whose `eop` word is presented in clock `e` shows in
//!   clock `e + 3`: `upd_valid` (with `upd_*`) for a good FCP, and the counter of its
//!   reason (or `good_count`) one higher. An abort seen in clock `s` (the aborting `sop`)
//!   is counted in `abort_count` from clock `s + 3`. A one-word link packet that aborts
//!   another produces both verdicts in the same clock.
//! - Back-to-back packets (zero bubble) are taken one per clock at most; the pipeline
//!   never stalls and the block never back-pressures (the link has no ready).
//! - A `reset` in clock `r` drops the inputs of clock `r` and every verdict not yet
//!   shown by clock `r` (those of `eop`s in clocks `r - 2`, `r - 1`, `r`): nothing
//!   received before a resync may change credits after it.
//! - Registered: framing state (`open`, `words`), the captured bytes (`head` = bytes
//!   0–3, `lpcrc_rx` = bytes 4–5) with the LPCRC expected for `head` (`lpcrc_exp`),
//!   stage 1 (`s1_*`: length class of the packet that ended, abort), stage 2 (`s2_*`:
//!   LPCRC match, the Op/VL verdict, the fields), the outputs.
//!
//! # Why this pipeline
//! The LPCRC over four fixed bytes is one XOR network: each expected bit is the XOR of
//! 13–24 header bits (the init value folds into a constant; the equations are
//! [`Crc16Equations`], shared with the CRC unit), three LUT4 levels. It is computed as
//! the LPCRC bytes are captured, so it never shares a clock with the compare: at 64
//! bits from the word itself (all six bytes arrive together), at 32 bits from `head`
//! while the second word arrives. Stage 2 compares expected with received (a 32-input
//! equality, three levels) and, beside it, registers the verdict the packet gets if
//! they match (Op, then VL15, then VLCap, or good: one-hot), so stage 3 is one AND into
//! the flip-flop enables and the counters' saturation checks. With the XOR network and
//! the compare in one clock the block reached 188–214 MHz on ECP5 and 109–128 MHz on
//! an HX8K (`iblink synth`, seeds 1–3); split like this, 207–226 MHz and 119–144 MHz
//! (VLCap 4 at 32 bits and VLCap 15 at 64 bits). The critical paths are now the XOR
//! network from the 64-bit input word and a counter's saturation check into its enable.
//! About 310 LUT4 and 267 flip-flops on iCE40, half of both in the eight 16-bit counters.

use crate::crc16::{mask, Crc16Equations, INIT, XOROUT};
use crate::io::{HdlIo, Opaque, PortSpec};
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// VLCap values the spec allows (SPEC.md §7).
pub const VL_CAPS: [usize; 5] = [1, 2, 4, 8, 15];
/// Link word widths in bits (the link word stream contract).
pub const WIDTHS: [usize; 2] = [32, 64];
/// Width of every counter (saturating).
pub const COUNT_BITS: usize = 16;
/// Clocks from the `eop` word of a link packet to its verdict (`upd_valid`, counters).
pub const LATENCY: usize = 3;
/// VL15 carries no credits (SPEC.md §4, §7).
pub const VL15: u8 = 15;

/// The LPCRC of four header bytes as 16 equations over the 32 header bits: bit `j` of
/// the expected LPCRC is `parity(head & data_mask[j]) ^ invert[j]` (`head` holds byte
/// `k` in bits `8k+7:8k`). The CRC unit's next-state equations after four bytes, with
/// the all-ones init folded in and the final XOR applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LpcrcEquations {
    pub data_mask: [u32; 16],
    pub invert: [bool; 16],
}

impl LpcrcEquations {
    pub fn derive() -> Self {
        let eq = Crc16Equations::derive(4);
        let mut data_mask = [0u32; 16];
        let mut invert = [false; 16];
        for j in 0..16 {
            let t = eq.term(4, j);
            data_mask[j] = t.data_mask as u32;
            // Initial state bits are the constant INIT; XOROUT complements the result.
            let from_init = (t.state_mask & INIT).count_ones() & 1 == 1;
            invert[j] = from_init ^ (XOROUT >> j & 1 == 1);
        }
        Self { data_mask, invert }
    }

    /// The expected LPCRC of header bytes `head` (byte 0 in bits 7:0).
    #[inline]
    pub fn lpcrc(&self, head: u32) -> u16 {
        let mut c = 0u16;
        for j in 0..16 {
            let bit = ((head & self.data_mask[j]).count_ones() & 1 == 1) ^ self.invert[j];
            c |= (bit as u16) << j;
        }
        c
    }
}

/// One clock of the receive link word stream (fields beyond the width are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FcpRxIn {
    pub reset: bool,
    pub rx_valid: bool,
    pub rx_data: u64,
    pub rx_keep: u8,
    pub rx_sop: bool,
    pub rx_eop: bool,
    pub rx_link: bool,
}

/// The discard and accept counters, in port order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FcpRxCounts {
    pub good: u16,
    pub short: u16,
    pub long: u16,
    pub abort: u16,
    pub lpcrc_error: u16,
    pub reserved_op: u16,
    pub vl15: u16,
    pub vl_cap: u16,
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FcpRxOut {
    pub upd_valid: bool,
    pub upd_op: u8,
    pub upd_vl: u8,
    pub upd_fctbs: u16,
    pub upd_fccl: u16,
    pub counts: FcpRxCounts,
}

/// Stage 1: what ended in the previous clock (at most one of six, short, long).
#[derive(Clone, Copy, Debug, Default)]
struct Stage1 {
    six: bool,
    short: bool,
    long: bool,
    abort: bool,
}

/// Stage 2: the checks on the captured bytes. For a 6-byte packet exactly one of
/// `op_bad`, `vl15`, `vl_cap`, `good` is set: its verdict should the LPCRC match.
#[derive(Clone, Copy, Debug, Default)]
struct Stage2 {
    six: bool,
    short: bool,
    long: bool,
    abort: bool,
    crc_ok: bool,
    op_bad: bool,
    vl15: bool,
    vl_cap: bool,
    good: bool,
    op_init: bool,
    vl: u8,
    fctbs: u16,
    fccl: u16,
}

/// Every register of the block: plain data for the stepper; the Verilog body declares
/// the same registers by name.
#[derive(Clone, Copy, Debug, Default)]
pub struct FcpRxRegs {
    /// A link packet is being collected.
    open: bool,
    /// Link words of the open packet so far, saturating at 2.
    words: u8,
    /// Bytes 0–3 of the packet (byte k in bits 8k+7:8k).
    head: u32,
    /// Bytes 4–5: the received LPCRC, low byte first on the wire.
    lpcrc_rx: u16,
    /// The LPCRC bytes 0–3 call for, captured with `lpcrc_rx`.
    lpcrc_exp: u16,
    s1: Stage1,
    s2: Stage2,
    out: FcpRxOut,
}

/// Add one to a saturating counter.
#[inline]
fn bump(c: &mut u16, when: bool) {
    if when && *c != u16::MAX {
        *c += 1;
    }
}

impl FcpRxRegs {
    /// The registers after one clock edge with inputs `i`, for VLCap `vls` and `lanes`
    /// bytes per word: what the Verilog's `always @(posedge clock)` blocks do.
    fn clock(&mut self, i: &FcpRxIn, vls: usize, lanes: usize, eq: &LpcrcEquations) {
        let r = *self;

        // Stage 0: framing, from this clock's word and the framing state.
        let link_word = i.rx_valid && i.rx_link;
        let abort = i.rx_valid && i.rx_sop && r.open;
        let first = link_word && i.rx_sop;
        let more = link_word && !i.rx_sop && r.open;
        let ends = (first || more) && i.rx_eop;
        let prior_words = if i.rx_sop { 0 } else { r.words as usize };
        let keep = i.rx_keep as u64 & mask(lanes);
        let last_bytes = 64 - keep.leading_zeros() as usize;
        let len = prior_words * lanes + last_bytes;
        let data = i.rx_data & mask(8 * lanes);

        // The captured bytes (never reset: a packet ends only after its sop wrote them)
        // and the expected LPCRC, from the word at 64 bits, from `head` at 32.
        if first {
            self.head = data as u32;
            if lanes == 8 {
                self.lpcrc_rx = (data >> 32) as u16;
                self.lpcrc_exp = eq.lpcrc(data as u32);
            }
        } else if more && lanes == 4 && r.words == 1 {
            self.lpcrc_rx = data as u16;
            self.lpcrc_exp = eq.lpcrc(r.head);
        }

        // Stage 2 fields from the captured bytes (flags below).
        let h = r.head;
        let op = (h >> 4 & 0xf) as u8;
        let vl = (h >> 20 & 0xf) as u8;
        let six = r.s1.six;
        let op_reserved = op >= 2;
        let vl15 = vl == VL15;
        let vl_over = vl as usize >= vls && !vl15;
        self.s2 = Stage2 {
            six,
            short: r.s1.short,
            long: r.s1.long,
            abort: r.s1.abort,
            crc_ok: r.lpcrc_exp == r.lpcrc_rx,
            op_bad: six && op_reserved,
            vl15: six && !op_reserved && vl15,
            vl_cap: six && !op_reserved && vl_over,
            good: six && !op_reserved && !vl15 && !vl_over,
            op_init: op == 1,
            vl,
            fctbs: ((h & 0xf) << 8 | (h >> 8 & 0xff)) as u16,
            fccl: ((h >> 16 & 0xf) << 8 | (h >> 24 & 0xff)) as u16,
        };

        if i.reset {
            // Everything in flight is dropped; the counters are kept.
            self.open = false;
            self.words = 0;
            self.s1 = Stage1::default();
            let s2 = &mut self.s2;
            (s2.six, s2.short, s2.long, s2.abort) = (false, false, false, false);
            (s2.op_bad, s2.vl15, s2.vl_cap, s2.good) = (false, false, false, false);
            self.out = FcpRxOut {
                counts: r.out.counts,
                ..Default::default()
            };
            return;
        }

        // Stage 1.
        self.s1 = Stage1 {
            six: ends && len == 6,
            short: ends && len < 6,
            long: ends && len > 6,
            abort,
        };
        if first {
            self.open = !i.rx_eop;
            self.words = 1;
        } else if more {
            self.open = !i.rx_eop;
            self.words = (r.words + 1).min(2);
        } else if abort {
            // A data item's sop: the open link packet is gone.
            self.open = false;
        }

        // Stage 3 (verdict) from stage 2, in the model's order: length, LPCRC, then
        // the Op/VL verdict stage 2 prepared.
        let s2 = r.s2;
        let crc_ok = s2.crc_ok;
        let v_good = s2.good && crc_ok;
        let c = &mut self.out.counts;
        bump(&mut c.good, v_good);
        bump(&mut c.short, s2.short);
        bump(&mut c.long, s2.long);
        bump(&mut c.abort, s2.abort);
        bump(&mut c.lpcrc_error, s2.six && !crc_ok);
        bump(&mut c.reserved_op, s2.op_bad && crc_ok);
        bump(&mut c.vl15, s2.vl15 && crc_ok);
        bump(&mut c.vl_cap, s2.vl_cap && crc_ok);
        self.out.upd_valid = v_good;
        if v_good {
            self.out.upd_op = s2.op_init as u8;
            self.out.upd_vl = s2.vl;
            self.out.upd_fctbs = s2.fctbs;
            self.out.upd_fccl = s2.fccl;
        }
    }
}

/// The FCP receive framer for `N` data VLs, `W` data bits and `K = W / 8` keep bits.
#[derive(LogicBlock)]
pub struct FcpRxUnit<const N: usize, const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<W>>,
    pub rx_keep: Signal<In, Bits<K>>,
    pub rx_sop: Signal<In, Bit>,
    pub rx_eop: Signal<In, Bit>,
    pub rx_link: Signal<In, Bit>,
    pub upd_valid: Signal<Out, Bit>,
    pub upd_op: Signal<Out, Bit>,
    pub upd_vl: Signal<Out, Bits<4>>,
    pub upd_fctbs: Signal<Out, Bits<12>>,
    pub upd_fccl: Signal<Out, Bits<12>>,
    pub good_count: Signal<Out, Bits<16>>,
    pub short_count: Signal<Out, Bits<16>>,
    pub long_count: Signal<Out, Bits<16>>,
    pub abort_count: Signal<Out, Bits<16>>,
    pub lpcrc_error_count: Signal<Out, Bits<16>>,
    pub reserved_op_count: Signal<Out, Bits<16>>,
    pub vl15_count: Signal<Out, Bits<16>>,
    pub vl_cap_count: Signal<Out, Bits<16>>,
    regs: Opaque<FcpRxRegs>,
    /// Fixed data, not hardware.
    eq: Opaque<LpcrcEquations>,
}

impl<const N: usize, const W: usize, const K: usize> Default for FcpRxUnit<N, W, K> {
    fn default() -> Self {
        assert!(
            VL_CAPS.contains(&N) && WIDTHS.contains(&W) && K * 8 == W,
            "FcpRxUnit<{N}, {W}, {K}>: unsupported"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rx_valid: Default::default(),
            rx_data: Default::default(),
            rx_keep: Default::default(),
            rx_sop: Default::default(),
            rx_eop: Default::default(),
            rx_link: Default::default(),
            upd_valid: Default::default(),
            upd_op: Default::default(),
            upd_vl: Default::default(),
            upd_fctbs: Default::default(),
            upd_fccl: Default::default(),
            good_count: Default::default(),
            short_count: Default::default(),
            long_count: Default::default(),
            abort_count: Default::default(),
            lpcrc_error_count: Default::default(),
            reserved_op_count: Default::default(),
            vl15_count: Default::default(),
            vl_cap_count: Default::default(),
            regs: Opaque(FcpRxRegs::default()),
            eq: Opaque(LpcrcEquations::derive()),
        }
    }
}

impl<const N: usize, const W: usize, const K: usize> Logic for FcpRxUnit<N, W, K> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let i = FcpRxIn {
                reset: self.reset.val(),
                rx_valid: self.rx_valid.val(),
                rx_data: self.rx_data.val().to_u64(),
                rx_keep: self.rx_keep.val().to_u64() as u8,
                rx_sop: self.rx_sop.val(),
                rx_eop: self.rx_eop.val(),
                rx_link: self.rx_link.val(),
            };
            let eq = *self.eq;
            self.regs.clock(&i, N, K, &eq);
        }
        let o = self.regs.out;
        self.upd_valid.next = o.upd_valid;
        self.upd_op.next = o.upd_op == 1;
        self.upd_vl.next = (o.upd_vl as u64).into();
        self.upd_fctbs.next = (o.upd_fctbs as u64).into();
        self.upd_fccl.next = (o.upd_fccl as u64).into();
        let c = o.counts;
        self.good_count.next = (c.good as u64).into();
        self.short_count.next = (c.short as u64).into();
        self.long_count.next = (c.long as u64).into();
        self.abort_count.next = (c.abort as u64).into();
        self.lpcrc_error_count.next = (c.lpcrc_error as u64).into();
        self.reserved_op_count.next = (c.reserved_op as u64).into();
        self.vl15_count.next = (c.vl15 as u64).into();
        self.vl_cap_count.next = (c.vl_cap as u64).into();
    }

    fn connect(&mut self) {
        self.upd_valid.connect();
        self.upd_op.connect();
        self.upd_vl.connect();
        self.upd_fctbs.connect();
        self.upd_fccl.connect();
        self.good_count.connect();
        self.short_count.connect();
        self.long_count.connect();
        self.abort_count.connect();
        self.lpcrc_error_count.connect();
        self.reserved_op_count.connect();
        self.vl15_count.connect();
        self.vl_cap_count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(fcp_rx_verilog_body(N, W, &self.eq))
    }
}

/// The counters, as (port, the verdict wire that bumps it, what it counts).
const COUNTERS: [(&str, &str, &str); 8] = [
    ("good_count", "v_good", "good FCPs (upd_valid)"),
    ("short_count", "s2_short", "link packets under 6 bytes"),
    ("long_count", "s2_long", "link packets over 6 bytes"),
    ("abort_count", "s2_abort", "link packets cut by a new sop"),
    ("lpcrc_error_count", "v_lpcrc", "6 bytes, LPCRC mismatch"),
    ("reserved_op_count", "v_op", "good LPCRC, Op 2-15"),
    ("vl15_count", "v_vl15", "good LPCRC and Op, VL15"),
    ("vl_cap_count", "v_vl_cap", "good LPCRC and Op, VL at or above VLCap"),
];

/// The module body for VLCap `vls` and `width` data bits.
pub fn fcp_rx_verilog_body(vls: usize, width: usize, eq: &LpcrcEquations) -> String {
    let k = width / 8;
    let mut v = String::new();
    let _ = write!(
        v,
        "\
// FCP receive framer (SPEC.md 2, 3, 4), VLCap {vls}, {width}-bit link words ({k} bytes).
// Link packets (rx_link) are collected, checked as FCPs (exactly 6 bytes; LPCRC over
// bytes 0-3 in bytes 4-5, low byte first; Op 0/1; VL below VLCap, not VL15) and a good
// one is a one-clock upd_valid: ABR[upd_vl] := upd_fctbs, CL[upd_vl] := upd_fccl.
// Verdicts show 3 clocks after the eop word; every discard is counted by reason.

// Framing state.
reg open;              // a link packet is being collected
reg [1:0] words;       // its link words so far, saturating at 2
reg [31:0] head;       // bytes 0-3: Op|FCTBS|VL|FCCL, byte k in [8k+7:8k]
reg [15:0] lpcrc_rx;   // bytes 4-5: the LPCRC as received (byte 4 is its low byte)
reg [15:0] lpcrc_exp;  // the LPCRC bytes 0-3 call for, captured with lpcrc_rx
// Stage 1: what ended in the previous clock (6 bytes, short or long) or was aborted.
reg s1_six, s1_short, s1_long, s1_abort;
// Stage 2: the checks on the captured bytes. For a 6-byte packet exactly one of
// s2_op_bad, s2_vl15, s2_vl_cap, s2_good is set: its verdict should the LPCRC match,
// decided here beside the LPCRC compare so that stage 3 only ANDs.
reg s2_six, s2_short, s2_long, s2_abort;
reg s2_crc_ok;          // expected LPCRC == received
reg s2_op_bad, s2_vl15, s2_vl_cap, s2_good;
reg s2_op_init;
reg [3:0] s2_vl;
reg [11:0] s2_fctbs, s2_fccl;

initial begin
   open = 1'b0;
   words = 2'd0;
   head = 32'd0;
   lpcrc_rx = 16'd0;
   lpcrc_exp = 16'd0;
   {{s1_six, s1_short, s1_long, s1_abort}} = 4'd0;
   {{s2_six, s2_short, s2_long, s2_abort}} = 4'd0;
   s2_crc_ok = 1'b0;
   {{s2_op_bad, s2_vl15, s2_vl_cap, s2_good}} = 4'd0;
   s2_op_init = 1'b0;
   s2_vl = 4'd0;
   s2_fctbs = 12'd0;
   s2_fccl = 12'd0;
   upd_valid = 1'b0;
   upd_op = 1'b0;
   upd_vl = 4'd0;
   upd_fctbs = 12'd0;
   upd_fccl = 12'd0;
"
    );
    for (port, _, _) in COUNTERS {
        let _ = writeln!(v, "   {port} = 16'd0;");
    }
    let _ = write!(
        v,
        "\
end

// ---- Stage 0: framing ----
// Only words with rx_valid count: gaps inside an item are ignored.
wire link_word = rx_valid & rx_link;
// Any item's sop while a link packet is open: that packet never got its eop.
wire abort = rx_valid & rx_sop & open;
wire first = link_word & rx_sop;
wire more = link_word & ~rx_sop & open;
wire ends = (first | more) & rx_eop;   // the packet's last word
// Words before this one in its packet; keep counts on the eop word only (only the
// last word of an item may be partial).
wire [1:0] prior_words = rx_sop ? 2'd0 : words;
reg [3:0] last_bytes;   // highest set keep bit + 1
always @(*) begin
   casez (rx_keep)
"
    );
    for n in (1..=k).rev() {
        let pat: String = (0..k)
            .rev()
            .map(|i| match i.cmp(&(n - 1)) {
                std::cmp::Ordering::Greater => '0',
                std::cmp::Ordering::Equal => '1',
                std::cmp::Ordering::Less => '?',
            })
            .collect();
        let _ = writeln!(v, "      {k}'b{pat}: last_bytes = 4'd{n};");
    }
    let _ = writeln!(v, "      default: last_bytes = 4'd0;\n   endcase\nend");
    // Length = k * prior_words + last_bytes; 6 is an FCP.
    if k == 4 {
        let _ = write!(
            v,
            "\
// Length = 4 * prior_words + last_bytes: 6 only as a full word then 2 bytes.
wire len_short = (prior_words == 2'd0) | ((prior_words == 2'd1) & (last_bytes < 4'd2));
wire len_six = (prior_words == 2'd1) & (last_bytes == 4'd2);
"
        );
    } else {
        let _ = write!(
            v,
            "\
// Length = 8 * prior_words + last_bytes: 6 only as one word of 6 bytes.
wire len_short = (prior_words == 2'd0) & (last_bytes < 4'd6);
wire len_six = (prior_words == 2'd0) & (last_bytes == 4'd6);
// Lanes 6-7 never hold FCP bytes: on a 6-byte FCP keep leaves them out.
wire [15:0] unused_lanes_6_7 = rx_data[63:48];
"
        );
    }
    let (crc_in, crc_in_why, lpcrc_load) = if k == 4 {
        (
            "head",
            "the header captured a word earlier, while the second word arrives",
            "   if (first) head <= rx_data[31:0];\n   // The second word carries bytes 4-5.\n   if (more & (words == 2'd1)) begin\n      lpcrc_rx <= rx_data[15:0];\n      lpcrc_exp <= lpcrc_calc;\n   end\n",
        )
    } else {
        (
            "rx_data[31:0]",
            "the word itself: one word carries all six bytes",
            "   // One word carries all six bytes.\n   if (first) begin\n      head <= rx_data[31:0];\n      lpcrc_rx <= rx_data[47:32];\n      lpcrc_exp <= lpcrc_calc;\n   end\n",
        )
    };
    let _ = write!(
        v,
        "
// Expected LPCRC of bytes 0-3 (SPEC.md 3: poly 0x100B, init 0xFFFF, reflected,
// xorout 0xFFFF), as one XOR per bit ('~' where init and xorout fold in a one),
// from {crc_in_why}.
wire [31:0] crc_in = {crc_in};
wire [15:0] lpcrc_calc;
"
    );
    for j in 0..16 {
        let terms: Vec<String> = (0..32)
            .filter(|b| eq.data_mask[j] >> b & 1 == 1)
            .map(|b| format!("crc_in[{b}]"))
            .collect();
        let x = terms.join(" ^ ");
        if eq.invert[j] {
            let _ = writeln!(v, "assign lpcrc_calc[{j}] = ~({x});");
        } else {
            let _ = writeln!(v, "assign lpcrc_calc[{j}] = {x};");
        }
    }
    let _ = write!(
        v,
        "
always @(posedge clock) begin
   if (reset) begin
      open <= 1'b0;
      words <= 2'd0;
      {{s1_six, s1_short, s1_long, s1_abort}} <= 4'd0;
   end else begin
      s1_six <= ends & len_six;
      s1_short <= ends & len_short;
      s1_long <= ends & ~len_short & ~len_six;
      s1_abort <= abort;
      if (first) begin
         open <= ~rx_eop;
         words <= 2'd1;
      end else if (more) begin
         open <= ~rx_eop;
         if (words != 2'd2) words <= words + 2'd1;
      end else if (abort) begin
         open <= 1'b0;   // a data item's sop
      end
   end
end

// The captured bytes need no reset: a packet ends only after its sop wrote them.
// The expected LPCRC is captured with the received one.
always @(posedge clock) begin
{lpcrc_load}end

// ---- Stage 2: LPCRC and field checks on the captured bytes ----
// Fields (SPEC.md 2): Op = byte 0 [7:4], FCTBS = byte 0 [3:0] . byte 1,
// VL = byte 2 [7:4], FCCL = byte 2 [3:0] . byte 3.
wire [3:0] head_op = head[7:4];
wire [3:0] head_vl = head[23:20];
wire op_reserved = head_op >= 4'd2;
wire vl15 = head_vl == 4'd15;                      // VL15: no flow control
wire vl_over = (head_vl >= 4'd{vls}) & ~vl15;       // no such data VL at VLCap {vls}

always @(posedge clock) begin
   if (reset) begin
      {{s2_six, s2_short, s2_long, s2_abort}} <= 4'd0;
      {{s2_op_bad, s2_vl15, s2_vl_cap, s2_good}} <= 4'd0;
   end else begin
      {{s2_six, s2_short, s2_long, s2_abort}} <= {{s1_six, s1_short, s1_long, s1_abort}};
      // Op before VL, as the model checks them.
      s2_op_bad <= s1_six & op_reserved;
      s2_vl15 <= s1_six & ~op_reserved & vl15;
      s2_vl_cap <= s1_six & ~op_reserved & vl_over;
      s2_good <= s1_six & ~op_reserved & ~vl15 & ~vl_over;
   end
   s2_crc_ok <= lpcrc_exp == lpcrc_rx;
   s2_op_init <= head_op == 4'd1;
   s2_vl <= head_vl;
   s2_fctbs <= {{head[3:0], head[15:8]}};
   s2_fccl <= {{head[19:16], head[31:24]}};
end

// ---- Stage 3: verdict, in the model's order: length, LPCRC, Op, VL15, VLCap ----
// (short/long/abort need no LPCRC: they are counted straight from stage 2.)
wire v_lpcrc = s2_six & ~s2_crc_ok;
wire v_op = s2_op_bad & s2_crc_ok;
wire v_vl15 = s2_vl15 & s2_crc_ok;
wire v_vl_cap = s2_vl_cap & s2_crc_ok;
wire v_good = s2_good & s2_crc_ok;

always @(posedge clock) begin
   if (reset) begin
      upd_valid <= 1'b0;
      upd_op <= 1'b0;
      upd_vl <= 4'd0;
      upd_fctbs <= 12'd0;
      upd_fccl <= 12'd0;
   end else begin
      upd_valid <= v_good;
      if (v_good) begin
         upd_op <= s2_op_init;
         upd_vl <= s2_vl;
         upd_fctbs <= s2_fctbs;
         upd_fccl <= s2_fccl;
      end
   end
end

// Counters: saturating statistics; a reset (resync) keeps them and counts nothing.
always @(posedge clock) begin
   if (~reset) begin
"
    );
    for (port, wire, what) in COUNTERS {
        let _ = writeln!(
            v,
            "      if ({wire} & (~&{port})) {port} <= {port} + 16'd1;   // {what}"
        );
    }
    let _ = writeln!(v, "   end\nend");
    v
}

impl<const N: usize, const W: usize, const K: usize> HdlIo for FcpRxUnit<N, W, K> {
    type In = FcpRxIn;
    type Out = FcpRxOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("rx_valid"),
        PortSpec::new("rx_data"),
        PortSpec::new("rx_keep"),
        PortSpec::new("rx_sop"),
        PortSpec::new("rx_eop"),
        PortSpec::new("rx_link"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("upd_valid"),
        PortSpec::new("upd_op"),
        PortSpec::new("upd_vl"),
        PortSpec::new("upd_fctbs"),
        PortSpec::new("upd_fccl"),
        PortSpec::new("good_count"),
        PortSpec::new("short_count"),
        PortSpec::new("long_count"),
        PortSpec::new("abort_count"),
        PortSpec::new("lpcrc_error_count"),
        PortSpec::new("reserved_op_count"),
        PortSpec::new("vl15_count"),
        PortSpec::new("vl_cap_count"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &FcpRxIn) {
        self.reset.next = i.reset;
        self.rx_valid.next = i.rx_valid;
        self.rx_data.next = (i.rx_data & mask(W)).into();
        self.rx_keep.next = (i.rx_keep as u64 & mask(K)).into();
        self.rx_sop.next = i.rx_sop;
        self.rx_eop.next = i.rx_eop;
        self.rx_link.next = i.rx_link;
    }
    fn sample(&self) -> FcpRxOut {
        FcpRxOut {
            upd_valid: self.upd_valid.val(),
            upd_op: self.upd_op.val() as u8,
            upd_vl: self.upd_vl.val().to_u64() as u8,
            upd_fctbs: self.upd_fctbs.val().to_u64() as u16,
            upd_fccl: self.upd_fccl.val().to_u64() as u16,
            counts: FcpRxCounts {
                good: self.good_count.val().to_u64() as u16,
                short: self.short_count.val().to_u64() as u16,
                long: self.long_count.val().to_u64() as u16,
                abort: self.abort_count.val().to_u64() as u16,
                lpcrc_error: self.lpcrc_error_count.val().to_u64() as u16,
                reserved_op: self.reserved_op_count.val().to_u64() as u16,
                vl15: self.vl15_count.val().to_u64() as u16,
                vl_cap: self.vl_cap_count.val().to_u64() as u16,
            },
        }
    }
    fn pack(i: &FcpRxIn, slots: &mut [u64]) {
        slots[0] = i.reset as u64;
        slots[1] = i.rx_valid as u64;
        slots[2] = i.rx_data & mask(W);
        slots[3] = i.rx_keep as u64 & mask(K);
        slots[4] = i.rx_sop as u64;
        slots[5] = i.rx_eop as u64;
        slots[6] = i.rx_link as u64;
    }
    fn unpack(slots: &[u64]) -> FcpRxOut {
        FcpRxOut {
            upd_valid: slots[0] & 1 == 1,
            upd_op: (slots[1] & 1) as u8,
            upd_vl: (slots[2] & 0xf) as u8,
            upd_fctbs: (slots[3] & 0xfff) as u16,
            upd_fccl: (slots[4] & 0xfff) as u16,
            counts: FcpRxCounts {
                good: slots[5] as u16,
                short: slots[6] as u16,
                long: slots[7] as u16,
                abort: slots[8] as u16,
                lpcrc_error: slots[9] as u16,
                reserved_op: slots[10] as u16,
                vl15: slots[11] as u16,
                vl_cap: slots[12] as u16,
            },
        }
    }
}

pub type FcpRxVl1W32 = FcpRxUnit<1, 32, 4>;
pub type FcpRxVl2W32 = FcpRxUnit<2, 32, 4>;
pub type FcpRxVl4W32 = FcpRxUnit<4, 32, 4>;
pub type FcpRxVl8W32 = FcpRxUnit<8, 32, 4>;
pub type FcpRxVl15W32 = FcpRxUnit<15, 32, 4>;
pub type FcpRxVl1W64 = FcpRxUnit<1, 64, 8>;
pub type FcpRxVl2W64 = FcpRxUnit<2, 64, 8>;
pub type FcpRxVl4W64 = FcpRxUnit<4, 64, 8>;
pub type FcpRxVl8W64 = FcpRxUnit<8, 64, 8>;
pub type FcpRxVl15W64 = FcpRxUnit<15, 64, 8>;

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::crc16::crc16;

    #[test]
    fn lpcrc_equations_match_reference() {
        let eq = LpcrcEquations::derive();
        // SPEC.md 3: header 10 00 00 00 -> LPCRC 0x0558.
        assert_eq!(eq.lpcrc(0x0000_0010), 0x0558);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let h = x as u32;
            assert_eq!(eq.lpcrc(h), crc16(&h.to_le_bytes()), "head {h:#010x}");
        }
    }

    #[test]
    fn every_header_bit_reaches_the_lpcrc() {
        // Any single flipped header bit changes the expected LPCRC.
        let eq = LpcrcEquations::derive();
        let cover = eq.data_mask.iter().fold(0u32, |a, m| a | m);
        assert_eq!(cover, u32::MAX);
    }
}
