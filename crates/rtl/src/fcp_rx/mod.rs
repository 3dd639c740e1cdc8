//! FCP receive framer (docs/spec.md §2, §3, §4): takes the link packets out of the receive
//! link word stream, checks each as a Flow Control Packet and turns a good one into a
//! one-clock credit update; every discarded one is counted under its reason.
//!
//! In this folder: the Verilog module `iblink_fcp_rx.v` (parameters `VLS`, `DATA_WIDTH`,
//! `KEEP_WIDTH`), the LPCRC equations and their generated module `iblink_lpcrc`
//! ([`lpcrc`], shared with the FCP TX framer), and here the Rust cycle twin
//! [`FcpRxTwin`], the rust-hdl block [`FcpRxUnit`] (ports, emission) and the port
//! binding. Reference model: `iblink_model::fcp::Fcp::decode` (the accept/discard
//! decision and its reason), wrapped by `iblink_sim::blocks::fcp_rx` in a cycle adapter
//! that reassembles link packets by the framing rules below and applies this block's
//! latency; lockstep of model, twin and Verilator: `crates/sim/tests/lockstep/fcp_rx.rs` (the adapter: `crates/sim/src/blocks/fcp_rx.rs`).
//!
//! # Interface (VLCap `N` data VLs and `W` = 32 or 64 data bits: `VLS`, `DATA_WIDTH`)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link init / resync (docs/spec.md §8): the open link packet and every packet in the pipeline are dropped without a verdict; `upd_*` clear; counters are kept |
//! | `rx_valid` | in | a word is present (the other `rx_*` inputs are ignored without it) |
//! | `rx_data` | in | `W` bits; byte `k` is `[8k+7:8k]`, byte 0 first on the wire |
//! | `rx_keep` | in | `W/8` bits; read on the `eop` word only: its highest set bit `i` says lanes `0..=i` carry bytes (0: none) |
//! | `rx_sop`, `rx_eop` | in | first / last word of an item |
//! | `rx_link` | in | the word belongs to a link packet (docs/spec.md §2); data-packet words (0) are ignored |
//! | `upd_valid` | out | one clock: a good FCP; the RX credit block takes `ABR[upd_vl] := upd_fctbs`, the TX credit block `CL[upd_vl] := upd_fccl` (docs/spec.md §4), failsafe's update monitor sees VL `upd_vl` refreshed |
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
//! [`LpcrcEquations`], from the CRC unit's [`crate::crc16::Crc16Equations`]), three LUT4
//! levels. It is computed as the LPCRC bytes are captured, so it never shares a clock
//! with the compare: at 64 bits from the word itself (all six bytes arrive together), at
//! 32 bits from `head` while the second word arrives. Stage 2 compares expected with
//! received (a 32-input equality, three levels) and, beside it, registers the verdict
//! the packet gets if they match (Op, then VL15, then VLCap, or good: one-hot), so stage
//! 3 is one AND into the flip-flop enables and the counters' saturation checks. With the
//! XOR network and the compare in one clock the block was slower on both ECP5 and iCE40
//! (`docs/synthesis-history.md`); the critical paths are now the XOR network from the
//! 64-bit input word and a counter's saturation check into its enable.

pub mod lpcrc;

use crate::bits::mask;
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
pub use crate::vl::VL_CAPS;
pub use lpcrc::LpcrcEquations;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_fcp_rx",
    path: "crates/rtl/src/fcp_rx/iblink_fcp_rx.v",
    text: include_str!("iblink_fcp_rx.v"),
};

/// Link word widths in bits (the link word stream contract).
pub const WIDTHS: [usize; 2] = [32, 64];
/// Width of every counter (saturating).
pub const COUNT_BITS: usize = 16;
/// Clocks from the `eop` word of a link packet to its verdict (`upd_valid`, counters).
pub const LATENCY: usize = 3;
/// VL15 carries no credits (docs/spec.md §4, §7).
pub const VL15: u8 = 15;

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

/// Every register of the block (the Verilog module declares the same registers by name).
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

/// The Rust cycle twin of `iblink_fcp_rx` for `vls` data VLs and `width_bits`-bit link
/// words.
#[derive(Clone, Debug)]
pub struct FcpRxTwin {
    vls: usize,
    /// Bytes per link word.
    lanes: usize,
    /// The LPCRC equations (fixed data, the generated module's).
    eq: LpcrcEquations,
    regs: FcpRxRegs,
}

impl FcpRxTwin {
    pub fn new(vls: usize, width_bits: usize) -> Self {
        assert!(VL_CAPS.contains(&vls), "FcpRxTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        assert!(WIDTHS.contains(&width_bits), "FcpRxTwin: {width_bits}-bit link words (32 or 64)");
        Self {
            vls,
            lanes: width_bits / 8,
            eq: LpcrcEquations::derive(),
            regs: FcpRxRegs::default(),
        }
    }
    pub fn regs(&self) -> &FcpRxRegs {
        &self.regs
    }
}

impl Twin for FcpRxTwin {
    type In = FcpRxIn;
    type Out = FcpRxOut;

    /// Every output is a register.
    #[inline]
    fn eval(&self, _i: &FcpRxIn) -> FcpRxOut {
        self.regs.out
    }

    #[inline]
    fn tick(&mut self, i: &FcpRxIn) {
        self.regs.clock(i, self.vls, self.lanes, &self.eq);
    }
}

crate::hdl_block! {
    /// The FCP receive framer for rust-hdl: its ports, and its behaviour through the twin.
    /// `N` data VLs, `W` data bits and `K = W / 8` keep bits. Its core text carries the
    /// generated `iblink_lpcrc` too, once for a rust-hdl design that holds both FCP
    /// framers (the FCP TX block's core leaves it out: rust-hdl concatenates every
    /// block's core into one file, and a module may be defined only once).
    pub struct FcpRxUnit<const N: usize, const W: usize, const K: usize> {
        twin: FcpRxTwin,
    }
    check: VL_CAPS.contains(&N) && WIDTHS.contains(&W) && K * 8 == W;
    default: Self::with_twin(FcpRxTwin::new(N, W));
    hdl: |u| {
        let core = format!("{}\n{}", SOURCE.text, lpcrc::verilog(&LpcrcEquations::derive()));
        rust_hdl_wrapper(u, SOURCE.module, &params(N, W), &core)
    };
    ports(i: FcpRxIn, o: FcpRxOut) {
        reset: in Bit = i.reset;
        rx_valid: in Bit = i.rx_valid;
        rx_data: in Bits<W> = i.rx_data;
        rx_keep: in Bits<K> = i.rx_keep;
        rx_sop: in Bit = i.rx_sop;
        rx_eop: in Bit = i.rx_eop;
        rx_link: in Bit = i.rx_link;
        upd_valid: out Bit = o.upd_valid;
        upd_op: out Bit = o.upd_op;
        upd_vl: out Bits<4> = o.upd_vl;
        upd_fctbs: out Bits<12> = o.upd_fctbs;
        upd_fccl: out Bits<12> = o.upd_fccl;
        good_count: out Bits<16> = o.counts.good;
        short_count: out Bits<16> = o.counts.short;
        long_count: out Bits<16> = o.counts.long;
        abort_count: out Bits<16> = o.counts.abort;
        lpcrc_error_count: out Bits<16> = o.counts.lpcrc_error;
        reserved_op_count: out Bits<16> = o.counts.reserved_op;
        vl15_count: out Bits<16> = o.counts.vl15;
        vl_cap_count: out Bits<16> = o.counts.vl_cap;
    }
}

/// The module's parameters for VLCap `vls` and `width`-bit link words.
pub fn params(vls: usize, width: usize) -> Vec<(String, String)> {
    vec![
        ("VLS".to_string(), vls.to_string()),
        ("DATA_WIDTH".to_string(), width.to_string()),
        ("KEEP_WIDTH".to_string(), (width / 8).to_string()),
    ]
}

/// `hdl_out/iblink_fcp_rx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "fcp_rx",
        vec![
            ("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap); DATA_WIDTH = 32 or 64; KEEP_WIDTH = DATA_WIDTH/8".into()),
            ("latency_eop_to_upd".into(), LATENCY.to_string()),
            ("counter_bits".into(), COUNT_BITS.to_string()),
        ],
    )
}

/// The block at VLCap `vls` and `width`-bit link words (`iblink_fcp_rx_vl<vls>_w<width>`):
/// the hand-written module and the generated `iblink_lpcrc` it instantiates.
pub fn variant(vls: usize, width: usize) -> Variant {
    Variant {
        name: format!("iblink_fcp_rx_vl{vls}_w{width}"),
        block: "fcp_rx",
        top: SOURCE.module.to_string(),
        params: params(vls, width),
        modules: vec![module(), lpcrc::module()],
        ports: crate::with_fcp_rx!((vls, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("FCP RX: VLCap {vls} at {width} bits is not generated")),
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

    #[test]
    fn twin_takes_a_good_fcp_at_64_bits() {
        // docs/spec.md §3: header 10 00 00 00 with LPCRC 0x0558 (sent 58 05): an init FCP for
        // VL0, FCTBS 0, FCCL 0; upd_valid 3 clocks after its eop word.
        let mut t = FcpRxTwin::new(4, 64);
        let word = FcpRxIn {
            rx_valid: true,
            rx_data: 0x0558_0000_0010,
            rx_keep: 0x3f,
            rx_sop: true,
            rx_eop: true,
            rx_link: true,
            ..Default::default()
        };
        let mut outs = vec![t.step(&word)];
        for _ in 0..LATENCY {
            outs.push(t.step(&FcpRxIn::default()));
        }
        assert!(outs[..LATENCY].iter().all(|o| !o.upd_valid));
        let o = outs[LATENCY];
        assert!(o.upd_valid && o.upd_op == 1 && o.upd_vl == 0, "{o:?}");
        assert_eq!(o.counts.good, 1);
    }
}
