//! Link receive classifier (SPEC.md §1, §3, §4, §7): takes the data packets out of the
//! receive link word stream, checks each one's length and VCRC, sorts it by the VL in
//! its LRH, and turns a good one into one accept request — towards the RX credit block
//! for a data VL, towards the VL15 buffer for VL15 — while passing its words to the
//! user's receive buffer with a per-packet completion verdict.
//!
//! Model twin: `iblink_sim::blocks::link_rx` (reassembles packets from the words, checks
//! them with the reference CRC `iblink_model::crc16` and classifies them by the rules
//! of `iblink_model::port::PortModel::receive`, then applies the latencies below);
//! snapshots: `tests/snapshots`.
//!
//! # Interface (VLCap `N` data VLs and `W` = 32 or 64 data bits, fixed at generation)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link resync (SPEC.md §8): the open packet and everything in the pipeline are dropped without a verdict; counters are kept |
//! | `rx_valid` | in | a word is present (the other `rx_*` inputs are ignored without it) |
//! | `rx_data` | in | `W` bits; byte `k` is `[8k+7:8k]`, byte 0 first on the wire |
//! | `rx_keep` | in | `W/8` bits; read on the `eop` word only: its highest set bit `i` says lanes `0..=i` carry bytes (0: none) |
//! | `rx_sop`, `rx_eop` | in | first / last word of an item |
//! | `rx_link` | in | the word belongs to a link packet (an FCP, SPEC.md §2): not this block's (the FCP RX framer takes it); only its `sop` matters here (it cuts an open data packet) |
//! | `out_valid` | out | a word of a data packet for the user's receive buffer |
//! | `out_data` | out | `W` bits: the word; lanes past the packet's last byte are zero. **The VCRC is kept**: the packet's last two bytes are its VCRC (low byte first). Meaningful only with `out_valid` (registered every clock, without an enable) |
//! | `out_keep` | out | `W/8` bits: all ones except on the `out_eop` word, where lanes `0..=i` (`i` the highest set `rx_keep` bit); meaningful only with `out_valid` |
//! | `out_sop`, `out_eop` | out | first / last word of the packet |
//! | `out_vl` | out | 4 bits: the LRH VL of the packet being delivered (from its `out_sop` word on) |
//! | `out_abort` | out | one clock: the packet being delivered (the last `out_sop` without an `out_eop`) was cut off by the next item's `sop`; it gets no `done`: discard it. It may come with the `out_sop` word of the next packet or alone (cut by an FCP) |
//! | `done` | out | one clock: the verdict on the latest packet delivered with `out_eop` |
//! | `done_status` | out | 2 bits, held until the next `done`: 0 good, 1 VCRC error, 2 length error, 3 bad VL (`STATUS_*`) |
//! | `acc_valid` | out | one clock, with a good `done` on a data VL (`< N`): the RX credit block's `accept` |
//! | `acc_vl`, `acc_blocks` | out | 4 and 7 bits: with `acc_valid` (or `vl15_accept`), the packet's VL and blocks `ceil((PktLen*4 - 8)/64)` (SPEC.md §1): the RX credit block's `accept_vl`, `accept_blocks`. Loaded with every `done` on a packet of the right length (good, VCRC error or bad VL), held otherwise |
//! | `vl15_accept` | out | one clock, with a good `done` on VL15: the VL15 buffer's `accept` |
//! | `good_count` | out | 16 bits: good packets (data VLs and VL15) |
//! | `vcrc_error_count` | out | 16 bits: right length, VCRC mismatch |
//! | `length_error_count` | out | 16 bits: byte count not `PktLen*4 + 2`, or PktLen outside 6..=1048 |
//! | `bad_vl_count` | out | 16 bits: good length and VCRC, VL `N`..=14 (a VL this port does not have) |
//! | `abort_count` | out | 16 bits: packets cut off before their `eop` (`out_abort`) |
//!
//! All outputs are registers. The counters saturate at 0xFFFF and are kept across a
//! reset (statistics, as the model's port statistics).
//!
//! # Framing (what a data packet is)
//! - A data packet starts on a word with `rx_valid & rx_sop & ~rx_link` and ends on the
//!   next such word (`rx_link = 0`) with `rx_eop` (the same word for a one-word item).
//!   Words with `rx_valid = 0` anywhere are ignored (gaps are tolerated inside an item).
//!   Link words are not part of a data packet; a link `sop` while a packet is open cuts
//!   it (`out_abort`), as does a data `sop` (which then starts the next packet).
//! - Its bytes: `W/8` for every word before the `eop` word, plus lanes `0..=i` of the
//!   `eop` word (`i` the highest set `rx_keep` bit). Data words with no open packet and no
//!   `sop` (the tail of a cut or reset packet) are ignored.
//!
//! # Checks, in this order (the first failure is the verdict)
//! 1. **Length**: the byte count is `PktLen*4 + 2` (LRH..ICRC plus the VCRC) and PktLen
//!    is within 6..=1048 (SPEC.md §1; the model's `MIN_PKT_LEN`/`MAX_PKT_LEN`). PktLen is
//!    where the IBA LRH has it: byte 4 bits 2:0 (below 5 reserved bits) and byte 5 — the
//!    LRH is VL/LVer, SL/LNH, DLID (bytes 2–3), reserved/PktLen, SLID, as
//!    `iblink_model::iba` builds it and tshark decodes it. Length comes first: the VCRC's
//!    place is only known once the length is right.
//! 2. **VCRC**: the CRC-16 of SPEC.md §3 over every byte but the last two equals those
//!    two bytes (low byte first).
//! 3. **VL** (LRH byte 0 bits 7:4): below `N` is a data VL; 15 is VL15 (management, no
//!    credits); `N`..=14 is a bad VL (dropped, counted), as `PortModel::receive` does.
//!    LNH (byte 1 bits 1:0) is informational and not checked; nor is the ICRC (a
//!    transport-layer check).
//!
//! A packet with a length or VCRC error is discarded and counted and never reaches the
//! credit block (the next FCP's FCTBS repairs ABR, SPEC.md §8).
//!
//! # Cycle contract
//! - `out_*` during clock `t + 1` is the data-packet word presented in clock `t`
//!   (latency 1); `out_abort` in clock `t + 1` for a cutting `sop` in clock `t`.
//! - The verdict on a packet whose `eop` word is presented in clock `e` shows in clock
//!   `e + 4` ([`LATENCY`]): `done` with `done_status`, and for a good packet `acc_valid`
//!   (data VL) or `vl15_accept` (VL15) with `acc_vl`/`acc_blocks`. The packet's
//!   `out_eop` word is in clock `e + 1`, so `done` follows it by three clocks; at most one
//!   `done` a clock (back-to-back packets, zero bubble, are taken without a stall; the
//!   block never back-pressures).
//! - Counters: a verdict shown in clock `t` is counted from clock `t + 1`, an
//!   `out_abort` in clock `t` likewise.
//! - A `reset` in clock `r` drops the word of clock `r` and every verdict not yet shown
//!   by clock `r`: from clock `r + 1` nothing received before the resync is delivered,
//!   accepted or judged (the user's receive buffer is emptied by the same resync, SPEC.md
//!   §8, so a packet delivered without its `done` needs no `out_abort`).
//! - Registered: the input word (`out_*`, which is stage 0), framing state (`open`, the
//!   word countdown `rem`/`over`, `hdr_next`), the header (`out_vl`, `hdr_pktlen`) and what is derived
//!   from it a clock later (`hd_*`), stage 1 (`s1_*`: the word's CRC contribution, the
//!   length verdict), stage 2 (`state`, `fin`: the running and final CRC, `s2_*`), the
//!   outputs, the counters.
//!
//! # How the port combines this with the credit and VL15 blocks
//! `acc_valid`/`acc_vl`/`acc_blocks` wire to the RX credit block's
//! `accept`/`accept_vl`/`accept_blocks`, `vl15_accept` to the VL15 buffer's `accept`.
//! Both answer one clock later (`accepted`/`dropped`, `kept`/`dropped`). So the user's
//! final word on a packet whose `done` is in clock `t` is in clock `t + 1`: commit if
//! `done_status` was good and (`rx_credits.accepted` or `vl15_rx.kept`); discard
//! otherwise (a credit overrun or a full VL15 buffer is then `dropped`). At most one
//! accept is in flight, so no tag is needed.
//!
//! # Why this pipeline
//! The VCRC is checked by running the CRC over the whole packet, VCRC included: a good
//! packet leaves the register at a constant residue ([`residue`]; the model's
//! `IB_CRC16.residue`). Every word, the last one too, is absorbed as a full word with the
//! lanes past the packet's end zeroed, so there is one next-state function (no `keep`
//! mux as in the CRC unit); zero bytes after the residue move it to another constant,
//! `A^z · residue` for `z` padding bytes — and on a packet of the right length `z` is
//! fixed (2 at 32 bits; 6 or 2 at 64 bits, told apart by lane 2), so that constant is
//! folded into the last word's contribution and a good packet ends with `fin == 0`.
//! The next-state function is split: stage 1 registers the data part `B · word`
//! (XOR of up to 24 / 39 data bits at 32 / 64 bits), so the feedback loop is only `A · state ^ d`
//! (at most 15 state bits and one register: two LUT4 levels). The register restarts at
//! 0xFFFF through its synchronous set (free in the flip-flop) when the next packet's
//! `sop` word is in stage 0 or a packet's last word is absorbed. The length check counts
//! words down from PktLen once the word carrying it (the second at 32 bits, the first at
//! 64) is in, so the `eop` check compares a register with a constant; the PktLen range
//! and the block count are computed from the header register a clock after it is
//! captured (an item that ends by that word is always a length error: at most 8 bytes).
//! Counters add their event on the carry chain (no 16-bit clock enable, which nextpnr
//! would route through a global buffer) and saturate through a registered `full` flag;
//! `out_data` is registered without an enable for the same reason.
//!
//! Measured (`iblink synth --seeds 3`, registered wrapper, seeds 1–3): iCE40-HX8K
//! `vl4_w32` 402 LUT4, 90 carry, 260 FF, 147.6–152.1 MHz; `vl15_w64` 519 LUT4, 90 carry,
//! 292 FF, 135.9–152.1 MHz (critical: a counter's carry chain). ECP5-45k `vl4_w32`
//! 290 LUT4, 191.3–209.4 MHz; `vl15_w64` 430 LUT4, 191.9–204.1 MHz (critical: the
//! stage-1 data XOR and the CRC loop, three LUT levels with routing).

use crate::crc16::{mask, Crc16Equations, Crc16Tables, INIT};
use crate::io::{HdlIo, Opaque, PortSpec};
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// VLCap values the spec allows (SPEC.md §7).
pub const VL_CAPS: [usize; 5] = [1, 2, 4, 8, 15];
/// Link word widths in bits (the link word stream contract).
pub const WIDTHS: [usize; 2] = [32, 64];
/// Width of every counter (saturating).
pub const COUNT_BITS: usize = 16;
/// Clocks from a packet's `eop` word on `rx_*` to its `done` and accept.
pub const LATENCY: usize = 4;
/// Clocks from a word on `rx_*` to the same word on `out_*`.
pub const OUT_LATENCY: usize = 1;
/// Smallest and largest LRH:PktLen of a data packet (SPEC.md §1; `iblink_model::blocks`).
/// The Verilog tests the range with logic written for these two values (a unit test
/// checks it against them).
pub const MIN_PKT_LEN: u16 = 6;
pub const MAX_PKT_LEN: u16 = 1048;
/// Bits of `acc_blocks` (the RX credit block's `accept_blocks`).
pub const BLOCK_BITS: usize = 7;
/// VL15: management, no credits (SPEC.md §4, §7).
pub const VL15: u8 = 15;

/// `done_status` codes.
pub const STATUS_GOOD: u8 = 0;
pub const STATUS_VCRC: u8 = 1;
pub const STATUS_LENGTH: u8 = 2;
pub const STATUS_BAD_VL: u8 = 3;

/// Blocks of a packet of `pkt_len` dwords as the hardware computes them:
/// `ceil((PktLen*4 - 8)/64) = (PktLen + 13) >> 4 = (PktLen >> 4) + (PktLen[3:0] >= 3)`,
/// in 7 bits (exact for PktLen 2..=2034, so for every length that passes the check).
#[inline]
pub fn blocks_of(pkt_len: u16) -> u8 {
    (((pkt_len >> 4) + ((pkt_len & 15) >= 3) as u16) & 0x7f) as u8
}

/// The CRC register (reflected, before the final XOR) after a whole good packet, its
/// VCRC included: the same for every packet. Derived from the equations: the empty
/// message's CRC is `INIT ^ XOROUT = 0`, so its codeword is two zero bytes.
pub fn residue(tables: &Crc16Tables) -> u16 {
    tables.next(2, INIT, 0)
}

/// Fixed data of the VCRC check for `k` bytes a word.
#[derive(Clone)]
pub struct VcrcCheck {
    pub lanes: usize,
    pub eq: Crc16Equations,
    pub tables: Crc16Tables,
    /// Folded into the last word's contribution so that a good packet ends at 0:
    /// `[lane 2 empty, lane 2 full]` = `A^z · residue` for the `z` zero bytes that pad
    /// the last word of a packet of the right length (32 bits: z = 2 both; 64 bits:
    /// 2 bytes in the last word -> z = 6, 6 bytes -> z = 2).
    pub fold: [u16; 2],
}

impl VcrcCheck {
    pub fn new(lanes: usize) -> Self {
        let eq = Crc16Equations::derive(lanes);
        let tables = Crc16Tables::new(&eq, lanes);
        let r = residue(&tables);
        let pad = |z: usize| tables.next(z, r, 0);
        let fold = if lanes == 4 {
            [pad(2), pad(2)]
        } else {
            [pad(6), pad(2)]
        };
        Self {
            lanes,
            eq,
            tables,
            fold,
        }
    }

    /// The data part of absorbing a full word: `B · data`.
    #[inline]
    pub fn data_part(&self, data: u64) -> u16 {
        self.tables.next(self.lanes, 0, data)
    }

    /// The state part: `A · state`.
    #[inline]
    pub fn state_part(&self, state: u16) -> u16 {
        self.tables.next(self.lanes, state, 0)
    }
}

/// One clock of the receive link word stream (fields beyond the width are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRxIn {
    pub reset: bool,
    pub rx_valid: bool,
    pub rx_data: u64,
    pub rx_keep: u8,
    pub rx_sop: bool,
    pub rx_eop: bool,
    pub rx_link: bool,
}

/// The counters, in port order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRxCounts {
    pub good: u16,
    pub vcrc_error: u16,
    pub length_error: u16,
    pub bad_vl: u16,
    pub abort: u16,
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkRxOut {
    pub out_valid: bool,
    pub out_data: u64,
    pub out_keep: u8,
    pub out_sop: bool,
    pub out_eop: bool,
    pub out_vl: u8,
    pub out_abort: bool,
    pub done: bool,
    pub done_status: u8,
    pub acc_valid: bool,
    pub acc_vl: u8,
    pub acc_blocks: u8,
    pub vl15_accept: bool,
    pub counts: LinkRxCounts,
}

/// Every register of the block: plain data for the stepper; the Verilog body declares
/// the same registers by name (`out` holds the output registers).
#[derive(Clone, Copy, Debug)]
pub struct LinkRxRegs {
    open: bool,
    /// Loaded with PktLen (32 bits) or PktLen / 2 (64 bits) by the word that carries it,
    /// then one less for every later word; `over` once it would go below zero. A packet
    /// of the right length ends with 1 (32 bits: the second word loads it) or 0.
    rem: u16,
    /// 32 bits: the next data word carries PktLen (LRH bytes 4-5).
    hdr_next: bool,
    over: bool,
    hdr_pktlen: u16,
    hd_range_ok: bool,
    hd_blocks: u8,
    hd_vl15: bool,
    hd_bad_vl: bool,
    /// Stage 0's one register that is not an output: the item ended on or before the
    /// word that carries PktLen (one word, or two at 32 bits: at most 8 bytes).
    r0_short: bool,
    s1_valid: bool,
    s1_eop: bool,
    s1_len_ok: bool,
    s1_d: u16,
    s1_vl: u8,
    s1_vl15: bool,
    s1_bad_vl: bool,
    s1_blocks: u8,
    state: u16,
    fin: u16,
    s2_end: bool,
    s2_len_ok: bool,
    s2_vl: u8,
    s2_vl15: bool,
    s2_bad_vl: bool,
    s2_blocks: u8,
    out: LinkRxOut,
}

impl Default for LinkRxRegs {
    fn default() -> Self {
        Self {
            open: false,
            rem: 0,
            hdr_next: false,
            over: false,
            hdr_pktlen: 0,
            hd_range_ok: false,
            hd_blocks: 0,
            hd_vl15: false,
            hd_bad_vl: false,
            r0_short: false,
            s1_valid: false,
            s1_eop: false,
            s1_len_ok: false,
            s1_d: 0,
            s1_vl: 0,
            s1_vl15: false,
            s1_bad_vl: false,
            s1_blocks: 0,
            state: INIT,
            fin: 0,
            s2_end: false,
            s2_len_ok: false,
            s2_vl: 0,
            s2_vl15: false,
            s2_bad_vl: false,
            s2_blocks: 0,
            out: LinkRxOut::default(),
        }
    }
}

/// Add one to a saturating counter (the Verilog's `<counter>_full` flag is exactly
/// `count == 0xFFFF`).
#[inline]
fn bump(c: &mut u16, when: bool) {
    if when && *c != u16::MAX {
        *c += 1;
    }
}

/// `keep` as lanes `0..=i` for its highest set bit `i` (a thermometer code).
#[inline]
pub fn thermometer(keep: u8, lanes: usize) -> u8 {
    let k = keep as u64 & mask(lanes);
    mask(64 - k.leading_zeros() as usize) as u8
}

impl LinkRxRegs {
    /// The registers after one clock edge with inputs `i`, for VLCap `vls`: what the
    /// Verilog's `always @(posedge clock)` blocks do.
    pub fn clock(&mut self, i: &LinkRxIn, vls: usize, ck: &VcrcCheck) {
        let r = *self;
        let lanes = ck.lanes;
        let rst = i.reset;

        // ---- Stage 0: framing and the input register ----
        let data_word = i.rx_valid && !i.rx_link;
        let abort = i.rx_valid && i.rx_sop && r.open;
        let first = data_word && i.rx_sop;
        let more = data_word && !i.rx_sop && r.open;
        let take = first || more;
        let keep_n = if i.rx_eop {
            thermometer(i.rx_keep, lanes)
        } else {
            mask(lanes) as u8
        };
        let mut lane_mask = 0u64;
        for k in 0..lanes {
            if keep_n >> k & 1 == 1 {
                lane_mask |= 0xff << (8 * k);
            }
        }
        let data_n = i.rx_data & lane_mask;
        // LRH bytes 4-5 (IBA LRH word 1): 5 reserved bits, PktLen. At 32 bits they are
        // the second word's lanes 0-1, at 64 bits the first word's lanes 4-5.
        let pk_shift = if lanes == 4 { 0 } else { 32 };
        let rx_pktlen =
            ((i.rx_data >> pk_shift & 7) << 8 | (i.rx_data >> (pk_shift + 8) & 0xff)) as u16;
        let rx_words = if lanes == 4 {
            rx_pktlen
        } else {
            rx_pktlen >> 1
        };
        // The word that carries PktLen: the second at 32 bits, the first at 64.
        let pk_word = if lanes == 4 {
            more && r.hdr_next
        } else {
            first
        };
        self.out.out_data = data_n;
        self.out.out_keep = keep_n;
        if rst {
            self.open = false;
            self.out.out_valid = false;
            self.out.out_sop = false;
            self.out.out_eop = false;
            self.out.out_abort = false;
            self.r0_short = false;
        } else {
            self.out.out_valid = take;
            self.out.out_sop = first;
            self.out.out_eop = take && i.rx_eop;
            self.out.out_abort = abort;
            self.r0_short = (first || pk_word) && i.rx_eop;
            if first {
                self.open = !i.rx_eop;
                self.hdr_next = !i.rx_eop;
                self.over = false;
            } else if more {
                self.open = !i.rx_eop;
                self.hdr_next = false;
            } else if abort {
                self.open = false;
            }
            if pk_word {
                self.rem = rx_words;
            } else if more {
                if r.rem == 0 {
                    self.over = true;
                } else {
                    self.rem = r.rem - 1;
                }
            }
            if first {
                self.out.out_vl = (i.rx_data >> 4 & 0xf) as u8;
            }
            if pk_word {
                self.hdr_pktlen = rx_pktlen;
            }
        }

        // Header-derived, a clock after the capture.
        let p = r.hdr_pktlen;
        self.hd_range_ok = (MIN_PKT_LEN..=MAX_PKT_LEN).contains(&p);
        self.hd_blocks = blocks_of(p);
        self.hd_vl15 = r.out.out_vl == VL15;
        self.hd_bad_vl = r.out.out_vl as usize >= vls && r.out.out_vl != VL15;

        // ---- Stage 1 ----
        let k = r.out.out_keep;
        let lb_ok = if lanes == 4 || p & 1 == 0 {
            k >> 1 & 1 == 1 && k >> 2 & 1 == 0
        } else {
            k >> 5 & 1 == 1 && k >> 6 & 1 == 0
        };
        if rst {
            self.s1_valid = false;
            self.s1_eop = false;
            self.s1_len_ok = false;
        } else {
            self.s1_valid = r.out.out_valid;
            self.s1_eop = r.out.out_eop;
            let rem_end = if lanes == 4 { 1 } else { 0 };
            self.s1_len_ok = r.out.out_eop
                && !r.r0_short
                && r.rem == rem_end
                && !r.over
                && lb_ok
                && r.hd_range_ok;
        }
        let fold = if r.out.out_eop {
            ck.fold[(k >> 2 & 1) as usize]
        } else {
            0
        };
        self.s1_d = ck.data_part(r.out.out_data) ^ fold;
        self.s1_vl = r.out.out_vl;
        self.s1_vl15 = r.hd_vl15;
        self.s1_bad_vl = r.hd_bad_vl;
        self.s1_blocks = r.hd_blocks;

        // ---- Stage 2: the CRC register ----
        let crc_next = ck.state_part(r.state) ^ r.s1_d;
        let s1_end = r.s1_valid && r.s1_eop;
        if rst || (r.out.out_valid && r.out.out_sop) || s1_end {
            self.state = INIT;
        } else if r.s1_valid {
            self.state = crc_next;
        }
        if s1_end {
            self.fin = crc_next;
        }
        if rst {
            self.s2_end = false;
            self.s2_len_ok = false;
        } else {
            self.s2_end = s1_end;
            self.s2_len_ok = r.s1_len_ok;
        }
        self.s2_vl = r.s1_vl;
        self.s2_vl15 = r.s1_vl15;
        self.s2_bad_vl = r.s1_bad_vl;
        self.s2_blocks = r.s1_blocks;

        // ---- Stage 3: verdict, in the order length, VCRC, VL ----
        let crc_ok = r.fin == 0;
        let v_length = r.s2_end && !r.s2_len_ok;
        let v_vcrc = r.s2_len_ok && !crc_ok;
        let v_bad_vl = r.s2_len_ok && crc_ok && r.s2_bad_vl;
        let v_good = r.s2_len_ok && crc_ok && !r.s2_bad_vl;
        let o = &mut self.out;
        if rst {
            o.done = false;
            o.done_status = 0;
            o.acc_valid = false;
            o.vl15_accept = false;
            o.acc_vl = 0;
            o.acc_blocks = 0;
        } else {
            o.done = r.s2_end;
            if r.s2_end {
                o.done_status = if v_length {
                    STATUS_LENGTH
                } else if v_vcrc {
                    STATUS_VCRC
                } else if v_bad_vl {
                    STATUS_BAD_VL
                } else {
                    STATUS_GOOD
                };
            }
            o.acc_valid = v_good && !r.s2_vl15;
            o.vl15_accept = v_good && r.s2_vl15;
            if r.s2_len_ok {
                o.acc_vl = r.s2_vl;
                o.acc_blocks = r.s2_blocks;
            }
        }

        // Counters: from the verdict shown this clock; a reset does not touch them.
        let c = &mut o.counts;
        let shown = r.out.done;
        let st = r.out.done_status;
        bump(&mut c.good, shown && st == STATUS_GOOD);
        bump(&mut c.vcrc_error, shown && st == STATUS_VCRC);
        bump(&mut c.length_error, shown && st == STATUS_LENGTH);
        bump(&mut c.bad_vl, shown && st == STATUS_BAD_VL);
        bump(&mut c.abort, r.out.out_abort);
    }
}

/// The link RX classifier for `N` data VLs, `W` data bits and `K = W / 8` keep bits.
#[derive(LogicBlock)]
pub struct LinkRxUnit<const N: usize, const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<W>>,
    pub rx_keep: Signal<In, Bits<K>>,
    pub rx_sop: Signal<In, Bit>,
    pub rx_eop: Signal<In, Bit>,
    pub rx_link: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, Bits<W>>,
    pub out_keep: Signal<Out, Bits<K>>,
    pub out_sop: Signal<Out, Bit>,
    pub out_eop: Signal<Out, Bit>,
    pub out_vl: Signal<Out, Bits<4>>,
    pub out_abort: Signal<Out, Bit>,
    pub done: Signal<Out, Bit>,
    pub done_status: Signal<Out, Bits<2>>,
    pub acc_valid: Signal<Out, Bit>,
    pub acc_vl: Signal<Out, Bits<4>>,
    pub acc_blocks: Signal<Out, Bits<7>>,
    pub vl15_accept: Signal<Out, Bit>,
    pub good_count: Signal<Out, Bits<16>>,
    pub vcrc_error_count: Signal<Out, Bits<16>>,
    pub length_error_count: Signal<Out, Bits<16>>,
    pub bad_vl_count: Signal<Out, Bits<16>>,
    pub abort_count: Signal<Out, Bits<16>>,
    regs: Opaque<LinkRxRegs>,
    /// Fixed data, not hardware.
    check: Opaque<VcrcCheck>,
}

impl<const N: usize, const W: usize, const K: usize> Default for LinkRxUnit<N, W, K> {
    fn default() -> Self {
        assert!(
            VL_CAPS.contains(&N) && WIDTHS.contains(&W) && K * 8 == W,
            "LinkRxUnit<{N}, {W}, {K}>: unsupported"
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
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_sop: Default::default(),
            out_eop: Default::default(),
            out_vl: Default::default(),
            out_abort: Default::default(),
            done: Default::default(),
            done_status: Default::default(),
            acc_valid: Default::default(),
            acc_vl: Default::default(),
            acc_blocks: Default::default(),
            vl15_accept: Default::default(),
            good_count: Default::default(),
            vcrc_error_count: Default::default(),
            length_error_count: Default::default(),
            bad_vl_count: Default::default(),
            abort_count: Default::default(),
            regs: Opaque(LinkRxRegs::default()),
            check: Opaque(VcrcCheck::new(K)),
        }
    }
}

impl<const N: usize, const W: usize, const K: usize> Logic for LinkRxUnit<N, W, K> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let i = LinkRxIn {
                reset: self.reset.val(),
                rx_valid: self.rx_valid.val(),
                rx_data: self.rx_data.val().to_u64(),
                rx_keep: self.rx_keep.val().to_u64() as u8,
                rx_sop: self.rx_sop.val(),
                rx_eop: self.rx_eop.val(),
                rx_link: self.rx_link.val(),
            };
            let ck = &self.check.0;
            self.regs.0.clock(&i, N, ck);
        }
        let o = self.regs.out;
        self.out_valid.next = o.out_valid;
        self.out_data.next = (o.out_data & mask(W)).into();
        self.out_keep.next = (o.out_keep as u64 & mask(K)).into();
        self.out_sop.next = o.out_sop;
        self.out_eop.next = o.out_eop;
        self.out_vl.next = (o.out_vl as u64).into();
        self.out_abort.next = o.out_abort;
        self.done.next = o.done;
        self.done_status.next = (o.done_status as u64).into();
        self.acc_valid.next = o.acc_valid;
        self.acc_vl.next = (o.acc_vl as u64).into();
        self.acc_blocks.next = (o.acc_blocks as u64).into();
        self.vl15_accept.next = o.vl15_accept;
        let c = o.counts;
        self.good_count.next = (c.good as u64).into();
        self.vcrc_error_count.next = (c.vcrc_error as u64).into();
        self.length_error_count.next = (c.length_error as u64).into();
        self.bad_vl_count.next = (c.bad_vl as u64).into();
        self.abort_count.next = (c.abort as u64).into();
    }

    fn connect(&mut self) {
        self.out_valid.connect();
        self.out_data.connect();
        self.out_keep.connect();
        self.out_sop.connect();
        self.out_eop.connect();
        self.out_vl.connect();
        self.out_abort.connect();
        self.done.connect();
        self.done_status.connect();
        self.acc_valid.connect();
        self.acc_vl.connect();
        self.acc_blocks.connect();
        self.vl15_accept.connect();
        self.good_count.connect();
        self.vcrc_error_count.connect();
        self.length_error_count.connect();
        self.bad_vl_count.connect();
        self.abort_count.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(link_rx_verilog_body(N, W, &self.check))
    }
}

/// The counters, as (port, the event that bumps it, what it counts).
const COUNTERS: [(&str, &str, &str); 5] = [
    (
        "good_count",
        "done & (done_status == STATUS_GOOD)",
        "good packets, data VLs and VL15",
    ),
    (
        "vcrc_error_count",
        "done & (done_status == STATUS_VCRC)",
        "right length, VCRC mismatch",
    ),
    (
        "length_error_count",
        "done & (done_status == STATUS_LENGTH)",
        "bytes != PktLen*4 + 2, or PktLen out of 6..1048",
    ),
    (
        "bad_vl_count",
        "done & (done_status == STATUS_BAD_VL)",
        "good packet on a VL this port lacks",
    ),
    (
        "abort_count",
        "out_abort",
        "packets cut off before their eop",
    ),
];

/// One XOR per bit: `out[j] = ^(terms)` where the terms come from the CRC equations
/// after `n` bytes: the state bits (`state` named) or the data bits (`data` named).
fn xor_assigns(
    v: &mut String,
    eq: &Crc16Equations,
    n: usize,
    out: &str,
    state: Option<&str>,
    data: Option<&str>,
    extra: Option<&str>,
) {
    for j in 0..16 {
        let t = eq.term(n, j);
        let mut terms: Vec<String> = Vec::new();
        if let Some(s) = state {
            terms.extend(
                (0..16)
                    .filter(|i| t.state_mask >> i & 1 == 1)
                    .map(|i| format!("{s}[{i}]")),
            );
        }
        if let Some(d) = data {
            terms.extend(
                (0..64)
                    .filter(|i| t.data_mask >> i & 1 == 1)
                    .map(|i| format!("{d}[{i}]")),
            );
        }
        if let Some(x) = extra {
            terms.push(format!("{x}[{j}]"));
        }
        let rhs = if terms.is_empty() {
            "1'b0".to_string()
        } else {
            terms.join(" ^ ")
        };
        let _ = writeln!(v, "assign {out}[{j}] = {rhs};");
    }
}

/// The module body for VLCap `vls` and `width` data bits.
pub fn link_rx_verilog_body(vls: usize, width: usize, ck: &VcrcCheck) -> String {
    let k = width / 8;
    let words_bits = if k == 4 {
        "rx_pktlen"
    } else {
        "{1'b0, rx_pktlen[10:1]}"
    };
    let words_what = if k == 4 {
        "PktLen, loaded by word 1, less the words after it: 1 on a right eop"
    } else {
        "PktLen / 2, loaded by word 0, less the words after it: 0 on a right eop"
    };
    let rem_end = if k == 4 { "11'd1" } else { "11'd0" };
    // 32 bits: PktLen comes with the word after the sop, which a flag marks.
    let (hn_decl, hn_init, hn_first, hn_more) = if k == 4 {
        (
            "reg hdr_next;           // the next data word carries PktLen\n",
            "   hdr_next = 1'b0;\n",
            "\n         hdr_next <= ~rx_eop;",
            "\n         hdr_next <= 1'b0;",
        )
    } else {
        ("", "", "", "")
    };
    let (pk_bits, pk_word, pk_what) = if k == 4 {
        (
            "{rx_data[2:0], rx_data[15:8]}",
            "more & hdr_next",
            "LRH bytes 4-5 are the second word's lanes 0-1",
        )
    } else {
        (
            "{rx_data[34:32], rx_data[47:40]}",
            "first",
            "LRH bytes 4-5 are the first word's lanes 4-5",
        )
    };
    let bad_vl = if vls == 15 {
        "1'b0;   // VLCap 15: every VL but 15 is a data VL".to_string()
    } else {
        format!("(out_vl >= 4'd{vls}) & (out_vl != 4'd15);   // no such data VL here")
    };
    let lb_ok = if k == 4 {
        "// The last word of a packet of the right length holds 2 bytes (the VCRC).\n\
         wire lb_ok = out_keep[1] & ~out_keep[2];"
            .to_string()
    } else {
        "// The last word of a packet of the right length holds 2 bytes (PktLen even) or 6.\n\
         wire lb_ok = hdr_pktlen[0] ? (out_keep[5] & ~out_keep[6]) : (out_keep[1] & ~out_keep[2]);"
            .to_string()
    };
    let fold = if k == 4 {
        format!("(out_eop ? 16'h{:04x} : 16'h0000)", ck.fold[0])
    } else {
        format!(
            "(out_eop ? (out_keep[2] ? 16'h{:04x} : 16'h{:04x}) : 16'h0000)",
            ck.fold[1], ck.fold[0]
        )
    };
    let fold_what = if k == 4 {
        format!(
            "A^2 * residue = 16'h{:04x} (2 zero bytes pad the 2-byte last word)",
            ck.fold[0]
        )
    } else {
        format!(
            "A^6 * residue = 16'h{:04x} after a 2-byte last word, A^2 * residue = 16'h{:04x} after a 6-byte one (lane 2 tells them apart)",
            ck.fold[0], ck.fold[1]
        )
    };
    let mut v = String::new();
    let _ = write!(
        v,
        "\
// Link RX classifier (SPEC.md 1, 3, 4, 7), VLCap {vls}, {width}-bit link words ({k} bytes).
// Data packets (rx_link = 0) are passed to out_* one clock later, VCRC kept; each is
// checked for length (bytes = PktLen*4 + 2, PktLen 6..1048), VCRC and VL, and judged
// 4 clocks after its eop word: done/done_status, and for a good packet one accept
// (acc_* to the RX credits for a data VL, vl15_accept for VL15). Link packets belong to
// the FCP RX framer; their sop only cuts an open data packet (out_abort).
localparam [1:0] STATUS_GOOD = 2'd{STATUS_GOOD};
localparam [1:0] STATUS_VCRC = 2'd{STATUS_VCRC};
localparam [1:0] STATUS_LENGTH = 2'd{STATUS_LENGTH};
localparam [1:0] STATUS_BAD_VL = 2'd{STATUS_BAD_VL};

// Framing state.
reg open;               // a data packet is being received
reg [10:0] rem;         // {words_what}, counted down
reg over;               // more words came than rem allowed
reg [10:0] hdr_pktlen;  // LRH:PktLen of the packet (its VL is out_vl)
{hn_decl}reg r0_short;           // the stage-0 item ended by the word carrying PktLen (<= 8 bytes)
// Derived from the header a clock after its capture.
reg hd_range_ok;        // PktLen within 6..1048
reg [6:0] hd_blocks;    // ceil((PktLen*4 - 8) / 64) (SPEC.md 1)
reg hd_vl15, hd_bad_vl;
// Stage 1: the word's CRC contribution and the length verdict.
reg s1_valid, s1_eop, s1_len_ok;
reg [15:0] s1_d;
reg [3:0] s1_vl;
reg s1_vl15, s1_bad_vl;
reg [6:0] s1_blocks;
// Stage 2: the CRC register (reflected LFSR state) and its value after a packet.
reg [15:0] state;
reg [15:0] fin;         // zero when the VCRC is good (see s1_d)
reg s2_end, s2_len_ok;
reg [3:0] s2_vl;
reg s2_vl15, s2_bad_vl;
reg [6:0] s2_blocks;

initial begin
   open = 1'b0;
   rem = 11'd0;
   over = 1'b0;
   hdr_pktlen = 11'd0;
{hn_init}   r0_short = 1'b0;
   hd_range_ok = 1'b0;
   hd_blocks = 7'd0;
   {{hd_vl15, hd_bad_vl}} = 2'd0;
   {{s1_valid, s1_eop, s1_len_ok}} = 3'd0;
   s1_d = 16'd0;
   s1_vl = 4'd0;
   {{s1_vl15, s1_bad_vl}} = 2'd0;
   s1_blocks = 7'd0;
   state = 16'hffff;
   fin = 16'd0;
   {{s2_end, s2_len_ok}} = 2'd0;
   s2_vl = 4'd0;
   {{s2_vl15, s2_bad_vl}} = 2'd0;
   s2_blocks = 7'd0;
   out_valid = 1'b0;
   out_data = {width}'d0;
   out_keep = {k}'d0;
   out_sop = 1'b0;
   out_eop = 1'b0;
   out_vl = 4'd0;
   out_abort = 1'b0;
   done = 1'b0;
   done_status = STATUS_GOOD;
   acc_valid = 1'b0;
   acc_vl = 4'd0;
   acc_blocks = 7'd0;
   vl15_accept = 1'b0;
"
    );
    for (port, _, _) in COUNTERS {
        let _ = writeln!(v, "   {port} = 16'd0;");
    }
    let _ = write!(
        v,
        "\
end

// ---- Stage 0: framing and the input register (out_*) ----
// Only words with rx_valid count: gaps inside an item are ignored.
wire data_word = rx_valid & ~rx_link;
// Any item's sop while a data packet is open: that packet never got its eop.
wire abort = rx_valid & rx_sop & open;
wire first = data_word & rx_sop;
wire more = data_word & ~rx_sop & open;
wire take = first | more;
// keep counts on the eop word only: lanes up to its highest set bit carry bytes.
wire [{km1}:0] keep_n;
",
        km1 = k - 1
    );
    for lane in 0..k {
        let _ = writeln!(
            v,
            "assign keep_n[{lane}] = ~rx_eop | (|rx_keep[{}:{lane}]);",
            k - 1
        );
    }
    let _ = writeln!(
        v,
        "// Lanes past the packet's end are zeroed (the CRC absorbs them as zero bytes)."
    );
    let _ = writeln!(v, "wire [{}:0] data_n;", width - 1);
    for lane in 0..k {
        let _ = writeln!(
            v,
            "assign data_n[{hi}:{lo}] = rx_data[{hi}:{lo}] & {{8{{keep_n[{lane}]}}}};",
            hi = 8 * lane + 7,
            lo = 8 * lane
        );
    }
    let _ = write!(
        v,
        "\
// LRH (IBA; iblink_model::iba): VL = byte 0 [7:4]; PktLen = byte 4 [2:0] . byte 5
// (5 reserved bits first), here {pk_what}.
wire [10:0] rx_pktlen = {pk_bits};
wire pk_word = {pk_word};

always @(posedge clock) begin
   if (reset) begin
      open <= 1'b0;
      {{out_valid, out_sop, out_eop, out_abort, r0_short}} <= 5'd0;
   end else begin
      out_valid <= take;
      out_sop <= first;
      out_eop <= take & rx_eop;
      out_abort <= abort;
      r0_short <= (first | pk_word) & rx_eop;
      if (first) begin
         open <= ~rx_eop;{hn_first}
         over <= 1'b0;
      end else if (more) begin
         open <= ~rx_eop;{hn_more}
      end else if (abort) begin
         open <= 1'b0;   // cut by a link packet's sop
      end
      // Count the words after the one carrying PktLen down from what it says.
      if (pk_word) rem <= {words_bits};
      else if (more) begin
         if (rem == 11'd0) over <= 1'b1;
         else rem <= rem - 11'd1;
      end
   end
end

// The word is registered every clock, valid or not (out_data and out_keep mean
// something only with out_valid): no enable with a fanout of every data bit. The
// header is loaded by the words that carry it (VL: the sop word; PktLen: pk_word) and
// never reset (only a packet long enough to have written it can pass the length check).
always @(posedge clock) begin
   out_data <= data_n;
   out_keep <= keep_n;
   if (first & ~reset) out_vl <= rx_data[7:4];
   if (pk_word & ~reset) hdr_pktlen <= rx_pktlen;
end

// Header-derived, a clock after the capture (every item longer than the word carrying
// PktLen has it by its eop; a shorter one is a length error whatever it holds).
always @(posedge clock) begin
   // PktLen within 6..1048 as plain logic (comparators would become carry chains):
   // >= 6: some bit of [10:3], or [2:1] both set; <= 1048 = 11'b100_0001_1000:
   // bit 10 clear, or bits [9:5] clear and [4:0] <= 24 (not 11xxx with xxx non-zero).
   hd_range_ok <= ((|hdr_pktlen[10:3]) | (&hdr_pktlen[2:1]))
                & (~hdr_pktlen[10] | (~|hdr_pktlen[9:5] & ~(&hdr_pktlen[4:3] & (|hdr_pktlen[2:0]))));
   // (PktLen + 13) >> 4, without a 12-bit sum.
   hd_blocks <= hdr_pktlen[10:4] + {{6'd0, hdr_pktlen[3:0] >= 4'd3}};
   hd_vl15 <= out_vl == 4'd15;   // management: the VL15 buffer
   hd_bad_vl <= {bad_vl}
end

// ---- Stage 1: the word's CRC contribution; the length verdict ----
// B * word: the data part of the CRC-16 next-state function over {k} bytes (SPEC.md 3:
// poly 0x100B, init 0xFFFF, reflected), one XOR per bit.
wire [15:0] d_word;
"
    );
    xor_assigns(&mut v, &ck.eq, k, "d_word", None, Some("out_data"), None);
    let _ = write!(
        v,
        "\
{lb_ok}

always @(posedge clock) begin
   if (reset) begin
      {{s1_valid, s1_eop, s1_len_ok}} <= 3'd0;
   end else begin
      s1_valid <= out_valid;
      s1_eop <= out_eop;
      s1_len_ok <= out_eop & ~r0_short & (rem == {rem_end}) & ~over & lb_ok & hd_range_ok;
   end
   // On the eop word, fold in what a good packet leaves in the register, so that fin is
   // zero exactly when the VCRC is good: {fold_what}.
   s1_d <= d_word ^ {fold};
   s1_vl <= out_vl;
   s1_vl15 <= hd_vl15;
   s1_bad_vl <= hd_bad_vl;
   s1_blocks <= hd_blocks;
end

// ---- Stage 2: the CRC register ----
// A * state ^ s1_d: the state part of the next-state function (at most 15 bits).
wire [15:0] crc_next;
"
    );
    xor_assigns(
        &mut v,
        &ck.eq,
        k,
        "crc_next",
        Some("state"),
        None,
        Some("s1_d"),
    );
    let _ = write!(
        v,
        "\
wire s1_end = s1_valid & s1_eop;

always @(posedge clock) begin
   // Restart before the next packet's first word (now in stage 0) is absorbed, and after
   // a packet's last word: a synchronous set.
   if (reset | (out_valid & out_sop) | s1_end) state <= 16'hffff;
   else if (s1_valid) state <= crc_next;
   if (s1_end) fin <= crc_next;
   if (reset) begin
      {{s2_end, s2_len_ok}} <= 2'd0;
   end else begin
      s2_end <= s1_end;
      s2_len_ok <= s1_len_ok;
   end
   s2_vl <= s1_vl;
   s2_vl15 <= s1_vl15;
   s2_bad_vl <= s1_bad_vl;
   s2_blocks <= s1_blocks;
end

// ---- Stage 3: the verdict, in the order length, VCRC, VL ----
wire crc_ok = fin == 16'd0;
wire v_length = s2_end & ~s2_len_ok;
wire v_vcrc = s2_len_ok & ~crc_ok;
wire v_bad_vl = s2_len_ok & crc_ok & s2_bad_vl;
wire v_good = s2_len_ok & crc_ok & ~s2_bad_vl;

always @(posedge clock) begin
   if (reset) begin
      {{done, acc_valid, vl15_accept}} <= 3'd0;
      done_status <= STATUS_GOOD;
      acc_vl <= 4'd0;
      acc_blocks <= 7'd0;
   end else begin
      done <= s2_end;
      if (s2_end) done_status <= v_length ? STATUS_LENGTH : v_vcrc ? STATUS_VCRC : v_bad_vl ? STATUS_BAD_VL : STATUS_GOOD;
      acc_valid <= v_good & ~s2_vl15;   // to the RX credits (SPEC.md 4)
      vl15_accept <= v_good & s2_vl15;  // to the VL15 buffer: no credits
      // Loaded for every packet of the right length (a register as the enable, not the
      // VCRC verdict): a good one's values come with its accept.
      if (s2_len_ok) begin
         acc_vl <= s2_vl;
         acc_blocks <= s2_blocks;
      end
   end
end

// Counters: saturating statistics of what was shown; a reset (resync) keeps them.
// Each adds its event (0 or 1) on its carry chain, so no enable net fans out to its 16
// flip-flops (nextpnr would route it through a global buffer), and has a flag set as
// it reaches 16'hffff, so the event is gated by one flip-flop, not a 16-bit AND.
"
    );
    for (port, _, _) in COUNTERS {
        let _ = writeln!(v, "reg {port}_full;");
    }
    let _ = writeln!(v, "initial begin");
    for (port, _, _) in COUNTERS {
        let _ = writeln!(v, "   {port}_full = 1'b0;");
    }
    let _ = writeln!(v, "end");
    let _ = writeln!(v, "always @(posedge clock) begin");
    for (port, ev, what) in COUNTERS {
        let _ = writeln!(v, "   // {what}");
        let _ = writeln!(v, "   {port} <= {port} + {{15'd0, ({ev}) & ~{port}_full}};");
        let _ = writeln!(
            v,
            "   if (({ev}) & ({port} == 16'hfffe)) {port}_full <= 1'b1;"
        );
    }
    let _ = writeln!(v, "end");
    v
}

impl<const N: usize, const W: usize, const K: usize> HdlIo for LinkRxUnit<N, W, K> {
    type In = LinkRxIn;
    type Out = LinkRxOut;
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
        PortSpec::new("out_valid"),
        PortSpec::new("out_data"),
        PortSpec::new("out_keep"),
        PortSpec::new("out_sop"),
        PortSpec::new("out_eop"),
        PortSpec::new("out_vl"),
        PortSpec::new("out_abort"),
        PortSpec::new("done"),
        PortSpec::new("done_status"),
        PortSpec::new("acc_valid"),
        PortSpec::new("acc_vl"),
        PortSpec::new("acc_blocks"),
        PortSpec::new("vl15_accept"),
        PortSpec::new("good_count"),
        PortSpec::new("vcrc_error_count"),
        PortSpec::new("length_error_count"),
        PortSpec::new("bad_vl_count"),
        PortSpec::new("abort_count"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &LinkRxIn) {
        self.reset.next = i.reset;
        self.rx_valid.next = i.rx_valid;
        self.rx_data.next = (i.rx_data & mask(W)).into();
        self.rx_keep.next = (i.rx_keep as u64 & mask(K)).into();
        self.rx_sop.next = i.rx_sop;
        self.rx_eop.next = i.rx_eop;
        self.rx_link.next = i.rx_link;
    }
    fn sample(&self) -> LinkRxOut {
        LinkRxOut {
            out_valid: self.out_valid.val(),
            out_data: self.out_data.val().to_u64(),
            out_keep: self.out_keep.val().to_u64() as u8,
            out_sop: self.out_sop.val(),
            out_eop: self.out_eop.val(),
            out_vl: self.out_vl.val().to_u64() as u8,
            out_abort: self.out_abort.val(),
            done: self.done.val(),
            done_status: self.done_status.val().to_u64() as u8,
            acc_valid: self.acc_valid.val(),
            acc_vl: self.acc_vl.val().to_u64() as u8,
            acc_blocks: self.acc_blocks.val().to_u64() as u8,
            vl15_accept: self.vl15_accept.val(),
            counts: LinkRxCounts {
                good: self.good_count.val().to_u64() as u16,
                vcrc_error: self.vcrc_error_count.val().to_u64() as u16,
                length_error: self.length_error_count.val().to_u64() as u16,
                bad_vl: self.bad_vl_count.val().to_u64() as u16,
                abort: self.abort_count.val().to_u64() as u16,
            },
        }
    }
    fn pack(i: &LinkRxIn, slots: &mut [u64]) {
        slots[0] = i.reset as u64;
        slots[1] = i.rx_valid as u64;
        slots[2] = i.rx_data & mask(W);
        slots[3] = i.rx_keep as u64 & mask(K);
        slots[4] = i.rx_sop as u64;
        slots[5] = i.rx_eop as u64;
        slots[6] = i.rx_link as u64;
    }
    fn unpack(slots: &[u64]) -> LinkRxOut {
        LinkRxOut {
            out_valid: slots[0] & 1 == 1,
            out_data: slots[1] & mask(W),
            out_keep: (slots[2] & mask(K)) as u8,
            out_sop: slots[3] & 1 == 1,
            out_eop: slots[4] & 1 == 1,
            out_vl: (slots[5] & 0xf) as u8,
            out_abort: slots[6] & 1 == 1,
            done: slots[7] & 1 == 1,
            done_status: (slots[8] & 3) as u8,
            acc_valid: slots[9] & 1 == 1,
            acc_vl: (slots[10] & 0xf) as u8,
            acc_blocks: (slots[11] & 0x7f) as u8,
            vl15_accept: slots[12] & 1 == 1,
            counts: LinkRxCounts {
                good: slots[13] as u16,
                vcrc_error: slots[14] as u16,
                length_error: slots[15] as u16,
                bad_vl: slots[16] as u16,
                abort: slots[17] as u16,
            },
        }
    }
}

pub type LinkRxVl1W32 = LinkRxUnit<1, 32, 4>;
pub type LinkRxVl2W32 = LinkRxUnit<2, 32, 4>;
pub type LinkRxVl4W32 = LinkRxUnit<4, 32, 4>;
pub type LinkRxVl8W32 = LinkRxUnit<8, 32, 4>;
pub type LinkRxVl15W32 = LinkRxUnit<15, 32, 4>;
pub type LinkRxVl1W64 = LinkRxUnit<1, 64, 8>;
pub type LinkRxVl2W64 = LinkRxUnit<2, 64, 8>;
pub type LinkRxVl4W64 = LinkRxUnit<4, 64, 8>;
pub type LinkRxVl8W64 = LinkRxUnit<8, 64, 8>;
pub type LinkRxVl15W64 = LinkRxUnit<15, 64, 8>;

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::blocks::{
        blocks_for_pkt_len, MAX_PKT_LEN as MODEL_MAX, MIN_PKT_LEN as MODEL_MIN,
    };
    use iblink_model::crc16::{crc16_wire, IB_CRC16};

    #[test]
    fn constants_match_the_model() {
        assert_eq!((MIN_PKT_LEN, MAX_PKT_LEN), (MODEL_MIN, MODEL_MAX));
        for p in 2..=2034u16 {
            assert_eq!(blocks_of(p) as u16, blocks_for_pkt_len(p), "PktLen {p}");
        }
        // Seed 003: PktLen 1024 is 64 blocks.
        assert_eq!(blocks_of(1024), 64);
    }

    /// The range logic the Verilog holds, bit for bit, over every 11-bit PktLen.
    #[test]
    fn range_logic_is_6_to_1048() {
        let bit = |p: u16, i: u16| p >> i & 1 == 1;
        for p in 0..2048u16 {
            let lo = p >> 3 != 0 || (bit(p, 2) && bit(p, 1));
            let hi = !bit(p, 10) || (p >> 5 & 0x1f == 0 && !(bit(p, 4) && bit(p, 3) && p & 7 != 0));
            assert_eq!(
                lo && hi,
                (MIN_PKT_LEN..=MAX_PKT_LEN).contains(&p),
                "PktLen {p}"
            );
        }
    }

    #[test]
    fn residue_is_the_reference_residue() {
        for lanes in [4, 8] {
            let ck = VcrcCheck::new(lanes);
            assert_eq!(residue(&ck.tables), IB_CRC16.residue);
        }
    }

    /// Absorb a packet (VCRC included) the hardware's way — whole words, lanes past the
    /// end zero, the fold on the last word — and say whether `fin` ends at zero.
    fn hw_check(ck: &VcrcCheck, bytes: &[u8]) -> bool {
        let mut state = INIT;
        let n = bytes.chunks(ck.lanes).count();
        let mut fin = 0;
        for (w, chunk) in bytes.chunks(ck.lanes).enumerate() {
            let data = chunk
                .iter()
                .enumerate()
                .fold(0u64, |a, (l, b)| a | (*b as u64) << (8 * l));
            let last = w + 1 == n;
            let fold = if last {
                ck.fold[(chunk.len() > 2) as usize]
            } else {
                0
            };
            let next = ck.state_part(state) ^ ck.data_part(data) ^ fold;
            if last {
                fin = next;
            } else {
                state = next;
            }
        }
        fin == 0
    }

    #[test]
    fn folded_residue_accepts_good_packets_and_rejects_bad_ones() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for lanes in [4, 8] {
            let ck = VcrcCheck::new(lanes);
            for _ in 0..300 {
                let pkt_len = 6 + (rnd() % 60) as usize;
                let mut p: Vec<u8> = (0..pkt_len * 4).map(|_| rnd() as u8).collect();
                let vcrc = crc16_wire(&p);
                p.extend_from_slice(&vcrc);
                assert!(hw_check(&ck, &p), "lanes {lanes}, {pkt_len} dwords");
                let bit = (rnd() % (p.len() as u64 * 8)) as usize;
                p[bit / 8] ^= 1 << (bit % 8);
                assert!(
                    !hw_check(&ck, &p),
                    "lanes {lanes}: flipped bit {bit} not caught"
                );
            }
        }
    }

    #[test]
    fn thermometer_keep() {
        assert_eq!(thermometer(0, 4), 0);
        assert_eq!(thermometer(0b0010, 4), 0b0011);
        assert_eq!(thermometer(0b0101, 4), 0b0111);
        assert_eq!(thermometer(0xf0, 4), 0);
        assert_eq!(thermometer(0x20, 8), 0x3f);
    }
}
