//! Link receive classifier (docs/spec.md §1, §3, §4, §7): takes the data packets out of the
//! receive link word stream, checks each one's length and VCRC, sorts it by the VL in
//! its LRH, and turns a good one into one accept request — towards the RX credit block
//! for a data VL, towards the VL15 buffer for VL15 — while passing its words to the
//! user's receive buffer with a per-packet completion verdict.
//!
//! In this folder: the Verilog module `iblink_link_rx.v` (parameters `VLS`, `DATA_WIDTH`,
//! `KEEP_WIDTH`), and here its Rust cycle twin [`LinkRxTwin`], the rust-hdl block
//! [`LinkRxUnit`] (ports, emission), the generated VCRC modules
//! `iblink_link_rx_vcrc_w32`/`_w64` ([`vcrc_module`]: the XOR equations, written from
//! [`Crc16Equations`]) and the port binding. Model adapter: `iblink_sim::blocks::link_rx`
//! (reassembles packets from the words, checks them with the reference CRC
//! `iblink_model::crc16` and classifies them by the rules of
//! `iblink_model::port::PortModel::receive`, then applies the latencies below); lockstep
//! of model, twin and Verilator: `crates/sim/tests/lockstep/link_rx.rs` (the adapter: `crates/sim/src/blocks/link_rx.rs`).
//!
//! # Interface (VLCap `N` data VLs and `W` = 32 or 64 data bits, fixed at generation)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link resync (docs/spec.md §8): the open packet and everything in the pipeline are dropped without a verdict; counters are kept |
//! | `rx_valid` | in | a word is present (the other `rx_*` inputs are ignored without it) |
//! | `rx_data` | in | `W` bits; byte `k` is `[8k+7:8k]`, byte 0 first on the wire |
//! | `rx_keep` | in | `W/8` bits; read on the `eop` word only: its highest set bit `i` says lanes `0..=i` carry bytes (0: none) |
//! | `rx_sop`, `rx_eop` | in | first / last word of an item |
//! | `rx_link` | in | the word belongs to a link packet (an FCP, docs/spec.md §2): not this block's (the FCP RX framer takes it); only its `sop` matters here (it cuts an open data packet) |
//! | `out_valid` | out | a word of a data packet for the user's receive buffer |
//! | `out_data` | out | `W` bits: the word; lanes past the packet's last byte are zero. **The VCRC is kept**: the packet's last two bytes are its VCRC (low byte first). Meaningful only with `out_valid` (registered every clock, without an enable) |
//! | `out_keep` | out | `W/8` bits: all ones except on the `out_eop` word, where lanes `0..=i` (`i` the highest set `rx_keep` bit); meaningful only with `out_valid` |
//! | `out_sop`, `out_eop` | out | first / last word of the packet |
//! | `out_vl` | out | 4 bits: the LRH VL of the packet being delivered (from its `out_sop` word on) |
//! | `out_abort` | out | one clock: the packet being delivered (the last `out_sop` without an `out_eop`) was cut off by the next item's `sop`; it gets no `done`: discard it. It may come with the `out_sop` word of the next packet or alone (cut by an FCP) |
//! | `done` | out | one clock: the verdict on the latest packet delivered with `out_eop` |
//! | `done_status` | out | 2 bits, held until the next `done`: 0 good, 1 VCRC error, 2 length error, 3 bad VL (`STATUS_*`) |
//! | `acc_valid` | out | one clock, with a good `done` on a data VL (`< N`): the RX credit block's `accept` |
//! | `acc_vl`, `acc_blocks` | out | 4 and 7 bits: with `acc_valid` (or `vl15_accept`), the packet's VL and blocks `ceil((PktLen*4 - 8)/64)` (docs/spec.md §1): the RX credit block's `accept_vl`, `accept_blocks`. Loaded with every `done` on a packet of the right length (good, VCRC error or bad VL), held otherwise |
//! | `vl15_accept` | out | one clock, with a good `done` on VL15: the VL15 buffer's `accept` |
//! | `good_count` | out | 16 bits: good packets (data VLs and VL15) |
//! | `vcrc_error_count` | out | 16 bits: right length, VCRC mismatch |
//! | `length_error_count` | out | 16 bits: byte count not `PktLen*4 + 2`, or PktLen outside 6..=1048 |
//! | `bad_vl_count` | out | 16 bits: good length and VCRC, VL `N`..=14 (a VL this port does not have) |
//! | `abort_count` | out | 16 bits: packets cut off before their `eop` (`out_abort`) |
//!
//! All outputs are registers: [`LinkRxTwin::eval`] reads no input, so a stepper that
//! composes the twin may evaluate it before anything else in the clock. The counters
//! saturate at 0xFFFF and are kept across a reset (statistics, as the model's port
//! statistics).
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
//!    is within 6..=1048 (docs/spec.md §1; the model's `MIN_PKT_LEN`/`MAX_PKT_LEN`). PktLen is
//!    where the IBA LRH has it: byte 4 bits 2:0 (below 5 reserved bits) and byte 5 — the
//!    LRH is VL/LVer, SL/LNH, DLID (bytes 2–3), reserved/PktLen, SLID, as
//!    `iblink_model::iba` builds it and tshark decodes it. Length comes first: the VCRC's
//!    place is only known once the length is right.
//! 2. **VCRC**: the CRC-16 of docs/spec.md §3 over every byte but the last two equals those
//!    two bytes (low byte first).
//! 3. **VL** (LRH byte 0 bits 7:4): below `N` is a data VL; 15 is VL15 (management, no
//!    credits); `N`..=14 is a bad VL (dropped, counted), as `PortModel::receive` does.
//!    LNH (byte 1 bits 1:0) is informational and not checked; nor is the ICRC (a
//!    transport-layer check).
//!
//! A packet with a length or VCRC error is discarded and counted and never reaches the
//! credit block (the next FCP's FCTBS repairs ABR, docs/spec.md §8).
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
//!   accepted or judged (the user's receive buffer is emptied by the same resync, docs/spec.md
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
//! # What is generated
//! Only the XOR equations: `iblink_link_rx_vcrc_w32` / `_w64`, the data part `B · word`
//! and the state part `A · state` over 4 / 8 bytes, written by [`vcrc_body`] from
//! [`Crc16Equations`]. The hand-written module instantiates the one for its
//! `DATA_WIDTH`; a configuration lists both files. The two fold constants `A^z ·
//! residue` are constants of the polynomial (the same at both widths): the module holds
//! them as `FOLD_PAD2`/`FOLD_PAD6`, and a unit test checks them against [`VcrcCheck`].

use crate::crc16::{mask, write_xor_assigns, Crc16Equations, Crc16Tables, INIT};
use crate::emit::{generated, rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_link_rx",
    path: "crates/rtl/src/link_rx/iblink_link_rx.v",
    text: include_str!("iblink_link_rx.v"),
};

/// VLCap values the spec allows (docs/spec.md §7).
pub use crate::vl::VL_CAPS;
/// Link word widths in bits (the link word stream contract).
pub const WIDTHS: [usize; 2] = [32, 64];
/// Width of every counter (saturating).
pub const COUNT_BITS: usize = 16;
/// Clocks from a packet's `eop` word on `rx_*` to its `done` and accept.
pub const LATENCY: usize = 4;
/// Clocks from a word on `rx_*` to the same word on `out_*`.
pub const OUT_LATENCY: usize = 1;
/// Smallest and largest LRH:PktLen of a data packet (docs/spec.md §1; `iblink_model::blocks`).
/// The Verilog tests the range with logic written for these two values (a unit test
/// checks it against them).
pub const MIN_PKT_LEN: u16 = 6;
pub const MAX_PKT_LEN: u16 = 1048;
/// Bits of `acc_blocks` (the RX credit block's `accept_blocks`).
pub const BLOCK_BITS: usize = 7;
/// VL15: management, no credits (docs/spec.md §4, §7).
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

/// Every register of the block: plain data for the twin; the Verilog module declares
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

/// The Rust cycle twin of `iblink_link_rx` for VLCap `vls` and `width_bits`-bit words.
#[derive(Clone)]
pub struct LinkRxTwin {
    vls: usize,
    regs: LinkRxRegs,
    /// Fixed data, not hardware.
    check: VcrcCheck,
}

impl std::fmt::Debug for LinkRxTwin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkRxTwin")
            .field("vls", &self.vls)
            .field("lanes", &self.check.lanes)
            .field("regs", &self.regs)
            .finish()
    }
}

impl LinkRxTwin {
    pub fn new(vls: usize, width_bits: usize) -> Self {
        assert!(
            VL_CAPS.contains(&vls) && WIDTHS.contains(&width_bits),
            "LinkRxTwin: VLCap {vls} at {width_bits} bits (VLCap 1, 2, 4, 8 or 15; 32 or 64 bits)"
        );
        Self {
            vls,
            regs: LinkRxRegs::default(),
            check: VcrcCheck::new(width_bits / 8),
        }
    }
    pub fn regs(&self) -> &LinkRxRegs {
        &self.regs
    }
}

impl Twin for LinkRxTwin {
    type In = LinkRxIn;
    type Out = LinkRxOut;

    /// Every output is a register: no input is read.
    #[inline]
    fn eval(&self, _i: &LinkRxIn) -> LinkRxOut {
        self.regs.out
    }

    #[inline]
    fn tick(&mut self, i: &LinkRxIn) {
        self.regs.clock(i, self.vls, &self.check);
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: its ports, and its behaviour through the twin (`N` data VLs,
    /// `W` data bits, `K = W / 8` keep bits). Its core text is the hand-written module and
    /// both generated VCRC modules (it names both in its generate branches).
    pub struct LinkRxUnit<const N: usize, const W: usize, const K: usize> {
        twin: LinkRxTwin,
    }
    check: VL_CAPS.contains(&N) && WIDTHS.contains(&W) && K * 8 == W;
    default: Self::with_twin(LinkRxTwin::new(N, W));
    hdl: |u| {
        let mut core = SOURCE.text.to_string();
        for w in WIDTHS {
            core.push_str(&vcrc_module(w).text);
        }
        rust_hdl_wrapper(u, SOURCE.module, &params(N, W), &core)
    };
    ports(i: LinkRxIn, o: LinkRxOut) {
        reset: in Bit = i.reset;
        rx_valid: in Bit = i.rx_valid;
        rx_data: in Bits<W> = i.rx_data;
        rx_keep: in Bits<K> = i.rx_keep;
        rx_sop: in Bit = i.rx_sop;
        rx_eop: in Bit = i.rx_eop;
        rx_link: in Bit = i.rx_link;
        out_valid: out Bit = o.out_valid;
        out_data: out Bits<W> = o.out_data;
        out_keep: out Bits<K> = o.out_keep;
        out_sop: out Bit = o.out_sop;
        out_eop: out Bit = o.out_eop;
        out_vl: out Bits<4> = o.out_vl;
        out_abort: out Bit = o.out_abort;
        done: out Bit = o.done;
        done_status: out Bits<2> = o.done_status;
        acc_valid: out Bit = o.acc_valid;
        acc_vl: out Bits<4> = o.acc_vl;
        acc_blocks: out Bits<7> = o.acc_blocks;
        vl15_accept: out Bit = o.vl15_accept;
        good_count: out Bits<16> = o.counts.good;
        vcrc_error_count: out Bits<16> = o.counts.vcrc_error;
        length_error_count: out Bits<16> = o.counts.length_error;
        bad_vl_count: out Bits<16> = o.counts.bad_vl;
        abort_count: out Bits<16> = o.counts.abort;
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

/// `hdl_out/iblink_link_rx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "link_rx",
        vec![
            (
                "parameters".into(),
                "VLS = 1, 2, 4, 8 or 15 (VLCap), DATA_WIDTH = 32 or 64, KEEP_WIDTH = DATA_WIDTH/8".into(),
            ),
            ("latency_rx_to_out".into(), OUT_LATENCY.to_string()),
            ("latency_eop_to_done".into(), LATENCY.to_string()),
            ("vcrc".into(), "kept on out_*".into()),
            ("counter_bits".into(), COUNT_BITS.to_string()),
        ],
    )
}

/// Name of the generated VCRC module for `width`-bit words.
pub fn vcrc_module_name(width: usize) -> String {
    format!("iblink_link_rx_vcrc_w{width}")
}

/// The generated VCRC module's text (`module ... endmodule`): one XOR per output bit,
/// from the CRC-16 equations over a whole word (docs/spec.md §3).
pub fn vcrc_body(width: usize) -> String {
    assert!(WIDTHS.contains(&width), "link RX VCRC: {width}-bit words (32 or 64)");
    let k = width / 8;
    let eq = Crc16Equations::derive(k);
    let name = vcrc_module_name(width);
    let mut v = format!(
        "`default_nettype none
// {name}: the VCRC (docs/spec.md §3: CRC-16, poly 0x100B, reflected)
// next-state equations of iblink_link_rx at {width}-bit words. Absorbing a whole word
// is linear, next = A * state ^ B * data: each output is one part, a flat XOR of the
// bits its equation names.
module {name} (
    // Stage 0's word, lanes past the packet's end zeroed (lane 0 first on the wire)
    input  wire [{wm1}:0] data,
    // The CRC register (reflected LFSR state)
    input  wire [15:0] state,
    // B * data: the data part over {k} bytes
    output wire [15:0] dpart,
    // A * state: the state part over {k} bytes
    output wire [15:0] spart
);

",
        wm1 = width - 1
    );
    write_xor_assigns(&mut v, &eq, k, None, Some("data"), "dpart");
    write_xor_assigns(&mut v, &eq, k, Some("state"), None, "spart");
    v.push_str("\nendmodule\n`default_nettype wire\n");
    v
}

/// `hdl_out/iblink_link_rx_vcrc_w<width>.v`.
pub fn vcrc_module(width: usize) -> EmittedModule {
    generated(
        &vcrc_module_name(width),
        "link_rx",
        vec![("data_width".into(), width.to_string()), ("equations".into(), "CRC-16 0x100B, reflected (docs/spec.md §3)".into())],
        &vcrc_body(width),
    )
}

/// The block at VLCap `vls` and `width`-bit link words (`iblink_link_rx_vl<vls>_w<width>`).
pub fn variant(vls: usize, width: usize) -> Variant {
    let mut modules = vec![module()];
    modules.extend(WIDTHS.iter().map(|&w| vcrc_module(w)));
    Variant {
        name: format!("iblink_link_rx_vl{vls}_w{width}"),
        block: "link_rx",
        top: SOURCE.module.to_string(),
        params: params(vls, width),
        modules,
        ports: crate::with_link_rx!((vls, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("link RX: VLCap {vls} at {width} bits (VLCap 1, 2, 4, 8 or 15; 32 or 64 bits)")),
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

    /// The module's fold constants are `A^z · residue` as derived from the equations.
    #[test]
    fn fold_constants_in_the_verilog_are_the_derived_ones() {
        let c = |name: &str| -> u16 {
            let decl = format!("localparam [15:0] {name} = 16'h");
            let line = SOURCE.text.lines().find(|l| l.starts_with(&decl)).unwrap_or_else(|| panic!("{name} in the .v"));
            u16::from_str_radix(line[decl.len()..].trim_end_matches(';'), 16).unwrap()
        };
        assert_eq!(VcrcCheck::new(4).fold, [c("FOLD_PAD2"); 2]);
        assert_eq!(VcrcCheck::new(8).fold, [c("FOLD_PAD6"), c("FOLD_PAD2")]);
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
