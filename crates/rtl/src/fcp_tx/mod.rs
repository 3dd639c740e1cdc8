//! FCP transmit framer and scheduler (docs/spec.md §2, §3, §5): decides which data VL's Flow
//! Control Packet goes next, keeps it built in registers (header and LPCRC), and streams
//! its 6 bytes onto the link word stream when the link TX mux grants it.
//!
//! In this folder: the Verilog module `iblink_fcp_tx.v` (parameters `VLS`, `DATA_WIDTH`,
//! `KEEP_WIDTH`; it instantiates the generated LPCRC module `iblink_lpcrc`,
//! [`crate::fcp_rx::lpcrc`]), and here its Rust cycle twin [`FcpTxTwin`], the rust-hdl
//! block [`FcpTxUnit`] (ports, emission) and the port binding. Reference model:
//! `iblink_model::scheduler::FcpScheduler` (per-VL refresh timers, on-change requests
//! with a minimum gap, refresh beats on-change, round robin after the last VL sent,
//! `restart`) and `iblink_model::fcp::Fcp::encode` (the bytes), wrapped by
//! `iblink_sim::blocks::fcp_tx` in a cycle adapter that applies the contract below;
//! lockstep of model, twin and Verilator: `crates/sim/tests/lockstep/fcp_tx.rs` (the adapter: `crates/sim/src/blocks/fcp_tx.rs`).
//!
//! # Interface (VLCap `N` data VLs and `W` = 32 or 64 data bits: `VLS`, `DATA_WIDTH`)
//! | port | dir | meaning |
//! |---|---|---|
//! | `restart` | in | link init / resync (docs/spec.md §8): every VL is due at once (round robin from VL0); the FCP being chosen or pending is dropped. An FCP already started still finishes. |
//! | `link_state` | in | 2 bits, [`crate::link`] codes: `LINK_DOWN` holds the block in `restart` (nothing pending); `LINK_INIT` gives Op 1; `LINK_ARM`, `LINK_ACTIVE` give Op 0 (docs/spec.md §5) |
//! | `refresh_clocks` | in | 16 bits: a VL is refresh-due once this period passed since its last FCP (counted from its last beat, see *Periods* below; the model's `refresh_clocks`; `PortConfig::refresh_clocks`: 14336 at 32 bits, 7168 at 64 by default; 0 acts as 1) |
//! | `min_gap_clocks` | in | 16 bits: a VL whose FCCL changed is due once this period passed since its last FCP (`PortConfig::min_gap_clocks`: 64 / 32 by default; 0 acts as 1) |
//! | `fctbs` | in | `12N` bits: this port's transmitter FCTBS of VL `v` at `[12v+11:12v]` (from the TX credit block) |
//! | `fccl` | in | `12N` bits: this port's receiver FCCL of VL `v` at `[12v+11:12v]` (the RX credit block's `fccl` bus) |
//! | `fcp_start` | in | from the link TX mux: the pending FCP's first word goes on the wire this clock. Ignored while `fcp_pending` is 0. |
//! | `fcp_ready` | in | from the link TX mux: it takes the word on `fcp_*` this clock (its pipeline moves; it stalls with the wire, docs/spec.md §10). At 32 bits the second word holds until then; at 64 bits unused (the one word goes with `fcp_start`, which the mux gives only in a moving clock) |
//! | `fcp_done` | in | from the link TX mux: the last beat of the oldest FCP started and not yet done moves on the wire this clock (FCPs leave in the order they started; the mux's `fcp_done`, [`start_to_done`] clocks after `fcp_start` on a wire that never stalls) |
//! | `fcp_pending` | out | registered: a fully built FCP is waiting for `fcp_start` |
//! | `pending_vl` | out | 4 bits, registered: its VL (0 while nothing is pending) |
//! | `fcp_valid`, `fcp_sop`, `fcp_eop`, `fcp_link` | out | the link word stream (helpers' contract): `fcp_link` is set on every FCP word |
//! | `fcp_data`, `fcp_keep` | out | `W` and `W/8` bits: at 32 bits word 0 = bytes 0–3 (keep `1111`), word 1 = the LPCRC, low byte first (keep `0011`); at 64 bits one word, bytes 0–5 (keep `0x3F`) |
//!
//! Every stream output is 0 while `fcp_valid` is 0 (the mux may OR its sources). The
//! bytes are docs/spec.md §2: header `Op<<28 | FCTBS<<16 | VL<<12 | FCCL` big-endian, then
//! the LPCRC of those four bytes (docs/spec.md §3), low byte first.
//!
//! # Cycle contract
//! - **Start.** `fcp_start` in clock `p` while `fcp_pending`: the FCP's first word is on
//!   `fcp_*` in clock `p` itself (combinational from `fcp_start`; everything else is a
//!   register), at 32 bits the second word from `p + 1` until the clock the mux takes it
//!   (`fcp_ready`; `p + 1` on a wire that never stalls). `fcp_pending` is 0 while the
//!   second word is presented (the FCP is still going out). Timers count every clock,
//!   stalled or not (docs/spec.md §10). At `p`'s edge the scheduler commits, exactly
//!   as the model's `on_sent(vl, fccl)`: the VL's periods restart, its last advertised
//!   FCCL becomes the FCCL this FCP carries, round robin continues after it.
//! - **Periods** (docs/spec.md §5, §10). A period of `c` clocks (refresh or minimum gap)
//!   counts from the clock the FCP's last beat moves on the wire, `L` (`fcp_done`): it
//!   ends at `L + c - D`, `D` = [`start_to_done`] (5 at 32 bits, 4 at 64), the clocks
//!   from the start to the last beat on a wire that never stalls; so on such a wire it
//!   ends `c` clocks after the start, every clock as when periods counted from the
//!   start, and a stall between the start and the last beat moves it by the stall. Until
//!   `L` the VL's flag stays clear. A period of `D` clocks or less (a test setting) ends
//!   before the FCP could have left and counts from the start. When a later FCP of the
//!   VL has started before an FCP's last beat (short periods only), that beat restarts
//!   nothing. The model: `FcpScheduler::with_done_lag(D)`, `on_done`.
//! - **Which VL.** Two registers hold VLs: *pending* (the built FCP) and *next* (the VL
//!   that will be built when the pending one starts). In every clock `t`, *next* is
//!   loaded with the model's `next_due` evaluated on clock `t`'s scheduler state and the
//!   FCCLs driven in clock `t - 1`, as if the FCPs ahead of it had already been sent: the
//!   one starting in `t` (if any) and the one that is pending after `t`'s edge (so it is
//!   excluded and round robin starts after it). The pending register takes the VL in
//!   *next* when it is empty or its FCP starts, and keeps its VL otherwise until that FCP
//!   starts or a `restart`.
//! - **Latency.** With nothing pending or chosen, a VL whose refresh falls due in clock
//!   `t` (the model's `since_last` reaches `refresh_clocks`) is pending in clock `t + 2`;
//!   an FCCL change driven in clock `t` (minimum gap passed) makes its VL pending in
//!   `t + 3`. After `restart` (or `LINK_DOWN`) in clock `r`, `fcp_pending` is 0 from
//!   `r + 1` and VL0's FCP is pending in `r + 3` (`u + 2` when the link leaves Down in
//!   clock `u`).
//! - **Zero bubble.** When another VL was due in the clock before an FCP starts, the next
//!   FCP is pending by the clock after the first one's `eop`: at 64 bits in `p + 1`, at
//!   32 bits in `p + 2`. A burst of due VLs (after a restart: every VL) goes back to back.
//! - **Staleness.** The pending register reloads Op, FCTBS and FCCL from the inputs every
//!   clock, including the clock its VL enters it, so an FCP whose `sop` is in clock `p`
//!   carries `link_state`, `fctbs` and `fccl` exactly as driven in clock `p − 1`: one
//!   clock old, never more, however long it waited for the mux.
//! - **FCTBS includes every data packet sent before the FCP.** The TX credit block adds
//!   a data packet's blocks to FCTBS at the edge of the clock the packet starts (`s`),
//!   so FCTBS shows them from `s + 1`. A data packet occupies at least 4 clocks (PktLen
//!   6 = 26 bytes: 7 words at 32 bits, 4 at 64), so an FCP sent after it starts at
//!   `p >= s + 4` and carries FCTBS sampled in `p - 1 >= s + 3`: the packet is included
//!   (any pipeline of at most 3 clocks would be; this one is 1). Packets before it were
//!   included earlier still.
//! - **Held decision.** Once a VL is pending it goes next, even if a VL whose refresh
//!   falls due meanwhile would now be preferred (the model would choose at `sop`); that
//!   VL is in *next* and goes right after, one FCP later. A pending on-change FCP whose
//!   FCCL went back to the last advertised value still goes (harmless, absolute credits).
//!   The same VL never goes twice in a row: it is excluded from the choice made while
//!   its FCP is pending or starting, so with one VL (or one due VL) its next FCP is
//!   pending 3 clocks after the previous one's `sop` at the earliest: one idle clock
//!   after the `eop` at 32 bits, two at 64 (the model port, choosing at `sop`, would
//!   send it back to back only with a refresh period or minimum gap of one FCP's length).
//! - **Configuration.** `refresh_clocks` and `min_gap_clocks` are registered (minus one)
//!   and used when a VL's FCP starts, to set that VL's two deadlines; a change therefore
//!   applies to each VL from its next FCP, and to all at once with `restart` (which makes
//!   every VL due). The model adapter (and so the lockstep) changes them only together
//!   with `restart`, where its scheduler is rebuilt.
//! - Registered: `now` (the time base), per VL `refresh_deadline`, `gap_deadline` (16
//!   bits), the flags `due_q`, `gap_ok` and `changed`, and `last_fccl` (12 bits); the
//!   deadlines a start or a last beat stores, on their way into those registers for a
//!   clock (`commit_q`, `refresh_done_q`, `gap_done_q`: which VLs; `refresh_at_q`,
//!   `gap_at_q`, `refresh_done_at_q`, `gap_done_at_q`: the values); the configuration
//!   (`refresh_m1`, `refresh_le1`, `gap_m1`, `gap_le1`, and from the last beat
//!   `refresh_short`, `refresh_md`, `refresh_led`, `gap_short`, `gap_md`, `gap_led`);
//!   `flight` (the FCPs started and not yet done, oldest first, [`flight_depth`] VL
//!   one-hots); `rr_from` (round robin);
//!   *next* (`next_valid`, `next_oh`, `next_above`); *pending* (`pend_valid`,
//!   `pend_vl`, `pend_oh`, `pend_above`, `pend_init`, `pend_fctbs`, `pend_fccl`); at 32
//!   bits `busy` (the second word is presented) and `crc_q` (its LPCRC).

//! # Why this structure
//! - *Pre-built and refreshed.* The mux wants the first word in the clock it grants, so
//!   the FCP must already be in registers; and it may grant only after a maximum packet,
//!   so the registers refresh every clock (same VL) rather than holding values sampled
//!   long ago. One builder (two 12-bit `N:1` selects of the `fctbs`/`fccl` buses) serves
//!   both the refresh and the load of the next VL: its select is `next_oh` in the clock
//!   the pending FCP starts (or when nothing is pending), `pend_oh` otherwise.
//! - *Choosing one FCP ahead.* Choosing the next VL only after a start has been committed
//!   would leave one or two idle clocks between back-to-back FCPs, in which the mux would
//!   start a data packet; a burst of 15 refresh FCPs could then be spread over 15 maximum
//!   packets, beyond the refresh margin (`iblink_model::config::MIN_REFRESH_MARGIN`
//!   assumes they go back to back). Choosing ahead needs two round-robin searches (with
//!   and without this clock's start) selected by the late `fcp_start` at the register.
//! - *LPCRC.* Over four bytes from a fixed init it is one XOR network
//!   ([`LpcrcEquations`], the generated module `iblink_lpcrc` shared with the FCP RX
//!   framer: the CRC unit's equations after four bytes, the init folded into constant
//!   inversions): 16 bits, each the XOR of 12–21 header bits (the Op's upper three
//!   bits are 0 here and fold away), three LUT4 levels. At 32 bits it goes out a clock
//!   after the header, so it is registered at `sop` from the pending header; at 64 bits
//!   it is computed from the pending header registers on the way out (the only output
//!   that is not a register or a gated register).
//! - *Deadlines, not timers.* The model counts `since_last` per VL and compares it with
//!   the two periods. Two up-counters and two magnitude compares per VL (carry chains)
//!   cost far more logic (`docs/synthesis-history.md`) and put a compare in front of the
//!   round robin. Instead one free-running 16-bit `now` is shared; a start stores
//!   `now + period - 1` as the VL's deadline (one shared adder per period: one VL starts
//!   at a time, so the deadline registers load through their enables), and a flag is
//!   set in the clock after `now` equals the deadline (a 16-bit equality) and held until
//!   the VL's next start. Periods are below 65536 clocks, so the first match is the
//!   right one and wrapping is harmless. The deadline reaches the VL's registers a clock
//!   after the start (or the last beat), from shared registers, and in that clock the
//!   VL's compare is made against those: the late `fcp_start` and `fcp_done` then enable
//!   the flags only, not 32 flip-flops per VL (a wide enable behind the wire's ready).
//!   A start makes the model's `since_last` 1 in the next clock (`on_sent` then
//!   `tick`), so a period of 0 behaves as 1, as in the model.
//!   A period counted from the last beat stores its deadline at `fcp_done` (`now + c -
//!   1 - D`, one more shared adder a period: one FCP is done a clock); which VL is done
//!   comes from a queue of the FCPs on their way (one-hot, a few entries) rather than a
//!   count of clocks per FCP, so a stall of any length is followed as the wire has it
//!   (the pattern of the PAUSE/PFC transmit side's `frame_done`).
//! - *Round robin without arithmetic.* The search start is kept as a mask (`rr_from`,
//!   `next_above`, `pend_above`: the VLs after a VL) and each candidate VL also
//!   one-hot, so a search is masks, a prefix OR and an encoder; the prefix OR of the
//!   lowest set bit is exactly the mask of the VLs after it, stored with the choice.
//! - *One builder.* The two `N:1` selects of the `fctbs`/`fccl` buses are AND-ORs on
//!   one one-hot select (kept as a net so they are not re-synthesised per VL and bit).

use crate::bits::mask;
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::fcp_rx::lpcrc::{self, LpcrcEquations};
use crate::link::{LINK_DOWN, LINK_INIT};
use crate::twin::Twin;
pub use crate::vl::{MAX_VLS, VL_CAPS};
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_fcp_tx",
    path: "crates/rtl/src/fcp_tx/iblink_fcp_tx.v",
    text: include_str!("iblink_fcp_tx.v"),
};

/// Link word widths in bits (the link word stream contract).
pub const WIDTHS: [usize; 2] = [32, 64];
/// Bits of each timer and of the two configuration inputs.
pub const TIMER_BITS: usize = 16;

/// Clocks from an FCP's start (`fcp_start`) to the clock its last beat moves on a wire
/// that never stalls, with the link TX mux of this port ([`crate::link_tx::START_TO_SOP`]
/// to its first word on the wire, then one clock a word): 5 at 32 bits, 4 at 64. A
/// period counts from the clock the last beat moves (`fcp_done`) and ends this many
/// clocks early, so on such a wire it ends where it did when it counted from the start.
pub const fn start_to_done(width_bits: usize) -> u32 {
    crate::link_tx::START_TO_SOP + if width_bits == 32 { 1 } else { 0 }
}

/// FCPs on their way (started, last beat not yet moved) at most: one starts in a moving
/// clock at most (every second one at 32 bits) and the oldest is done in the
/// [`start_to_done`]-th moving clock after its start.
pub const fn flight_depth(width_bits: usize) -> usize {
    if width_bits == 32 {
        3
    } else {
        4
    }
}
/// Flag vectors after a restart: every VL due.
const ALL_DUE: u16 = (1 << MAX_VLS) - 1;
/// FCTBS and FCCL are 12 bits (docs/spec.md §1).
pub const CREDIT_BITS: usize = 12;

/// The four header bytes in wire order (byte 0 in bits 7:0): `Op<<28 | FCTBS<<16 |
/// VL<<12 | FCCL` big-endian (docs/spec.md §2); Op is 1 for an init FCP, else 0.
#[inline]
pub fn header_wire(init: bool, fctbs: u16, vl: u8, fccl: u16) -> u32 {
    let word = (init as u32) << 28
        | ((fctbs & 0xfff) as u32) << 16
        | ((vl & 0xf) as u32) << 12
        | (fccl & 0xfff) as u32;
    word.swap_bytes()
}

/// One clock of inputs (fields of VLs at or above VLCap are ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FcpTxIn {
    pub restart: bool,
    /// A [`crate::link`] code (2 bits).
    pub link_state: u8,
    pub refresh_clocks: u16,
    pub min_gap_clocks: u16,
    /// FCTBS per data VL (12 bits used).
    pub fctbs: [u16; MAX_VLS],
    /// FCCL per data VL (12 bits used).
    pub fccl: [u16; MAX_VLS],
    pub fcp_start: bool,
    pub fcp_ready: bool,
    /// The oldest FCP on its way has its last beat moving on the wire this clock.
    pub fcp_done: bool,
}

impl Default for FcpTxIn {
    /// Everything 0, except `fcp_ready`: a mux that never stalls.
    fn default() -> Self {
        Self {
            restart: false,
            link_state: 0,
            refresh_clocks: 0,
            min_gap_clocks: 0,
            fctbs: [0; MAX_VLS],
            fccl: [0; MAX_VLS],
            fcp_start: false,
            fcp_ready: true,
            fcp_done: false,
        }
    }
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FcpTxOut {
    pub fcp_pending: bool,
    pub pending_vl: u8,
    pub fcp_valid: bool,
    pub fcp_sop: bool,
    pub fcp_eop: bool,
    pub fcp_link: bool,
    pub fcp_data: u64,
    pub fcp_keep: u8,
}

/// Every register of the block (the Verilog module's registers, the per-VL one-hot
/// vectors and masks kept here as VL numbers).
#[derive(Clone, Copy, Debug)]
pub struct FcpTxRegs {
    /// Free-running clock counter, the time base of every VL's deadlines.
    pub now: u16,
    /// Per VL: `now` in the last clock before its refresh falls due (set at a start:
    /// `now + refresh_clocks - 1`, wrapping; with `refresh_clocks <= 1` the flag is set at
    /// the start and the deadline does not matter).
    pub refresh_deadline: [u16; MAX_VLS],
    /// Per VL: `now` in the last clock before its minimum gap has passed.
    pub gap_deadline: [u16; MAX_VLS],
    /// Bit `v`: the model's `since_last >= refresh_clocks` for VL `v` (set when `now`
    /// reaches the deadline, held until the VL's next start).
    pub refresh_due: u16,
    /// Bit `v`: the model's `since_last >= min_gap_clocks` for VL `v`.
    pub gap_ok: u16,
    /// Bit `v`: VL `v`'s FCCL in the previous clock differs from its `last_fccl` now.
    pub changed: u16,
    /// The configuration as a start uses it: `c - 1` (wrapping), and `c <= 1`.
    pub refresh_m1: u16,
    pub refresh_le1: bool,
    pub gap_m1: u16,
    pub gap_le1: bool,
    /// The same from the last beat: `c <= START_TO_DONE` (the period counts from the
    /// start), `c - 1 - START_TO_DONE` (wrapping), `c <= START_TO_DONE + 1`.
    pub refresh_short: bool,
    pub refresh_md: u16,
    pub refresh_led: bool,
    pub gap_short: bool,
    pub gap_md: u16,
    pub gap_led: bool,
    /// The FCPs started and not yet done, oldest first, each its VL as a bit (0: none).
    pub flight: [u16; 4],
    /// Per VL: the FCCL its last FCP carried.
    pub last_fccl: [u16; MAX_VLS],
    /// Round robin: the first VL to look at.
    pub rr: u8,
    /// *next*: the VL to build when the pending FCP starts (or when nothing is pending).
    pub next_valid: bool,
    pub next_vl: u8,
    /// *pending*: the built FCP.
    pub pend_valid: bool,
    pub pend_vl: u8,
    pub pend_init: bool,
    pub pend_fctbs: u16,
    pub pend_fccl: u16,
    /// 32 bits: the second word (the LPCRC in `crc_q`) is presented this clock (held
    /// until the mux takes it).
    pub busy: bool,
    pub crc_q: u16,
}

impl Default for FcpTxRegs {
    /// As after a restart: every VL due.
    fn default() -> Self {
        Self {
            now: 0,
            refresh_deadline: [0; MAX_VLS],
            gap_deadline: [0; MAX_VLS],
            refresh_due: ALL_DUE,
            gap_ok: ALL_DUE,
            changed: 0,
            refresh_m1: 0,
            refresh_le1: false,
            gap_m1: 0,
            gap_le1: false,
            refresh_short: false,
            refresh_md: 0,
            refresh_led: false,
            gap_short: false,
            gap_md: 0,
            gap_led: false,
            flight: [0; 4],
            last_fccl: [0; MAX_VLS],
            rr: 0,
            next_valid: false,
            next_vl: 0,
            pend_valid: false,
            pend_vl: 0,
            pend_init: false,
            pend_fctbs: 0,
            pend_fccl: 0,
            busy: false,
            crc_q: 0,
        }
    }
}

/// The VL after `x` in round-robin order.
#[inline]
fn next_vl(x: u8, vls: usize) -> u8 {
    if x as usize + 1 >= vls {
        0
    } else {
        x + 1
    }
}

/// Round robin as the Verilog's `pick`: among `rdue`, the lowest VL at or after `start`,
/// else the lowest; if `rdue` is empty, the same among `cdue`.
#[inline]
fn pick(rdue: u16, cdue: u16, start: u8, vls: usize) -> Option<u8> {
    let all = mask(vls) as u16;
    let at_or_after = (all << start) & all;
    [rdue & at_or_after, rdue, cdue & at_or_after, cdue]
        .into_iter()
        .find(|v| *v != 0)
        .map(|v| v.trailing_zeros() as u8)
}

impl FcpTxRegs {
    /// The pending FCP can be started this clock.
    #[inline]
    fn pending(&self) -> bool {
        self.pend_valid && !self.busy
    }

    fn header(&self) -> u32 {
        header_wire(
            self.pend_init,
            self.pend_fctbs,
            self.pend_vl,
            self.pend_fccl,
        )
    }

    /// The outputs during a clock with inputs `i` (`lanes` bytes per word).
    pub fn outputs(&self, i: &FcpTxIn, lanes: usize, crc: &LpcrcEquations) -> FcpTxOut {
        let pending = self.pending();
        let take = i.fcp_start && pending;
        let mut o = FcpTxOut {
            fcp_pending: pending,
            pending_vl: if pending { self.pend_vl } else { 0 },
            ..Default::default()
        };
        if take {
            let h = self.header();
            o.fcp_valid = true;
            o.fcp_sop = true;
            o.fcp_link = true;
            if lanes == 8 {
                o.fcp_eop = true;
                o.fcp_keep = 0x3f;
                o.fcp_data = h as u64 | (crc.lpcrc(h) as u64) << 32;
            } else {
                o.fcp_keep = 0xf;
                o.fcp_data = h as u64;
            }
        } else if self.busy {
            o.fcp_valid = true;
            o.fcp_eop = true;
            o.fcp_link = true;
            o.fcp_keep = 0x3;
            o.fcp_data = self.crc_q as u64;
        }
        o
    }

    /// The registers after one clock edge with inputs `i`: what the Verilog's
    /// `always @(posedge clock)` blocks do.
    pub fn clock(&mut self, i: &FcpTxIn, vls: usize, lanes: usize, crc: &LpcrcEquations) {
        let r = *self;
        let take = i.fcp_start && r.pending();
        let restart_all = i.restart || i.link_state & 3 == LINK_DOWN;
        let fccl = |v: usize| i.fccl[v] & 0xfff;

        // Per-VL due flags, all registers: refresh, and FCCL changed (as of the previous
        // clock) with the minimum gap passed.
        let all = mask(vls) as u16;
        let rdue = r.refresh_due & all;
        let cdue = r.changed & r.gap_ok & all;
        // Hypothesis 0: no start this clock; the VL pending after the edge is excluded.
        let x0 = if r.pend_valid {
            Some(r.pend_vl)
        } else if r.next_valid {
            Some(r.next_vl)
        } else {
            None
        };
        let (ex0, st0) = match x0 {
            Some(x) => (1u16 << x, next_vl(x, vls)),
            None => (0, r.rr),
        };
        // Hypothesis 1: the pending FCP starts now; it and the next one are excluded.
        let ex1 = 1u16 << r.pend_vl | if r.next_valid { 1u16 << r.next_vl } else { 0 };
        let st1 = next_vl(if r.next_valid { r.next_vl } else { r.pend_vl }, vls);
        let chosen = if take {
            pick(rdue & !ex1, cdue & !ex1, st1, vls)
        } else {
            pick(rdue & !ex0, cdue & !ex0, st0, vls)
        };

        // The builder: refresh the pending VL, or load the next one.
        let build_vl = if r.pend_valid && !take {
            r.pend_vl
        } else {
            r.next_vl
        };
        let b = build_vl as usize;
        self.pend_vl = build_vl;
        self.pend_init = i.link_state & 3 == LINK_INIT;
        self.pend_fctbs = i.fctbs[b] & 0xfff;
        self.pend_fccl = fccl(b);

        if lanes == 4 {
            self.busy = take || (r.busy && !i.fcp_ready);
            if take {
                self.crc_q = crc.lpcrc(r.header());
            }
        }

        // The configuration, as the flags compare it (used from the next clock).
        self.refresh_m1 = i.refresh_clocks.wrapping_sub(1);
        self.refresh_le1 = i.refresh_clocks <= 1;
        self.gap_m1 = i.min_gap_clocks.wrapping_sub(1);
        self.gap_le1 = i.min_gap_clocks <= 1;
        let d = start_to_done(lanes * 8) as u16;
        self.refresh_short = i.refresh_clocks <= d;
        self.refresh_md = i.refresh_clocks.wrapping_sub(1 + d);
        self.refresh_led = i.refresh_clocks <= d + 1;
        self.gap_short = i.min_gap_clocks <= d;
        self.gap_md = i.min_gap_clocks.wrapping_sub(1 + d);
        self.gap_led = i.min_gap_clocks <= d + 1;

        // The FCPs on their way: the oldest leaves with fcp_done, a started one joins.
        let depth = flight_depth(lanes * 8);
        let in_flight = r.flight.iter().fold(0, |a, x| a | x);
        let later = r.flight[1..depth].iter().fold(0, |a, x| a | x);
        let done = if i.fcp_done { r.flight[0] & !later } else { 0 };
        let mut q = r.flight;
        if i.fcp_done {
            q.copy_within(1..depth, 0);
            q[depth - 1] = 0;
        }
        if take {
            if let Some(e) = q[..depth].iter_mut().find(|x| **x == 0) {
                *e = 1 << r.pend_vl;
            }
        }
        self.flight = if restart_all { [0; 4] } else { q };

        self.now = r.now.wrapping_add(1);
        if restart_all {
            self.refresh_due = ALL_DUE;
            self.gap_ok = ALL_DUE;
            self.rr = 0;
            self.next_valid = false;
            self.next_vl = 0;
            self.pend_valid = false;
            self.changed = self.changed_now(i, vls);
            return;
        }
        for v in 0..vls {
            let bit = 1u16 << v;
            if take && v == r.pend_vl as usize {
                // The model's on_sent and this clock's tick: since_last is 1 next clock,
                // and reaches c in the clock after now + c - 1.
                self.last_fccl[v] = r.pend_fccl;
                self.refresh_deadline[v] = r.now.wrapping_add(r.refresh_m1);
                self.gap_deadline[v] = r.now.wrapping_add(r.gap_m1);
                self.refresh_due = self.refresh_due & !bit | (r.refresh_le1 as u16) << v;
                self.gap_ok = self.gap_ok & !bit | (r.gap_le1 as u16) << v;
            } else {
                // A long period's deadline is stored at its FCP's last beat (stale before).
                let flying = in_flight & bit != 0;
                if done & bit != 0 && !r.refresh_short {
                    self.refresh_deadline[v] = r.now.wrapping_add(r.refresh_md);
                    self.refresh_due = self.refresh_due & !bit | (r.refresh_led as u16) << v;
                } else if r.now == r.refresh_deadline[v] && (r.refresh_short || !flying) {
                    self.refresh_due |= bit;
                }
                if done & bit != 0 && !r.gap_short {
                    self.gap_deadline[v] = r.now.wrapping_add(r.gap_md);
                    self.gap_ok = self.gap_ok & !bit | (r.gap_led as u16) << v;
                } else if r.now == r.gap_deadline[v] && (r.gap_short || !flying) {
                    self.gap_ok |= bit;
                }
            }
        }
        if take {
            self.rr = next_vl(r.pend_vl, vls);
        }
        self.next_valid = chosen.is_some();
        self.next_vl = chosen.unwrap_or(0);
        self.pend_valid = (r.pend_valid && !take) || r.next_valid;
        self.changed = self.changed_now(i, vls);
    }

    /// The `changed` flags for the next clock: this clock's FCCLs against `last_fccl` as
    /// this clock's edge leaves it.
    fn changed_now(&self, i: &FcpTxIn, vls: usize) -> u16 {
        (0..vls).fold(0, |c, v| {
            c | (((i.fccl[v] & 0xfff) != self.last_fccl[v]) as u16) << v
        })
    }
}

/// The Rust cycle twin of `iblink_fcp_tx` for `vls` data VLs and `width_bits`-bit link
/// words. `eval` is pure and reads `fcp_start` (the first FCP word is combinational
/// from it), so a port stepper may call it after the link TX mux's `eval`.
#[derive(Clone, Debug)]
pub struct FcpTxTwin {
    vls: usize,
    /// Bytes per link word.
    lanes: usize,
    /// The LPCRC equations (fixed data, the generated module's).
    crc: LpcrcEquations,
    regs: FcpTxRegs,
}

impl FcpTxTwin {
    pub fn new(vls: usize, width_bits: usize) -> Self {
        assert!(VL_CAPS.contains(&vls), "FcpTxTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        assert!(WIDTHS.contains(&width_bits), "FcpTxTwin: {width_bits}-bit link words (32 or 64)");
        Self {
            vls,
            lanes: width_bits / 8,
            crc: LpcrcEquations::derive(),
            regs: FcpTxRegs::default(),
        }
    }
    pub fn regs(&self) -> &FcpTxRegs {
        &self.regs
    }
}

impl Twin for FcpTxTwin {
    type In = FcpTxIn;
    type Out = FcpTxOut;

    #[inline]
    fn eval(&self, i: &FcpTxIn) -> FcpTxOut {
        self.regs.outputs(i, self.lanes, &self.crc)
    }

    #[inline]
    fn tick(&mut self, i: &FcpTxIn) {
        self.regs.clock(i, self.vls, self.lanes, &self.crc);
    }
}

crate::hdl_block! {
    /// The FCP TX framer for rust-hdl: its ports, and its behaviour through the twin. `N`
    /// data VLs, `W` data bits, `K = W / 8` keep bits and `FB = 12 N` bits of each per-VL
    /// bus. Its core text leaves out the generated `iblink_lpcrc` it instantiates: the FCP
    /// RX block's core carries it, once for a rust-hdl design that holds both framers (the
    /// link port); the block on its own is emitted through [`variant`], which lists both
    /// files.
    pub struct FcpTxUnit<const N: usize, const W: usize, const K: usize, const FB: usize> {
        twin: FcpTxTwin,
    }
    check: VL_CAPS.contains(&N) && WIDTHS.contains(&W) && K * 8 == W && FB == CREDIT_BITS * N;
    default: Self::with_twin(FcpTxTwin::new(N, W));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N, W), SOURCE.text);
    ports(i: FcpTxIn, o: FcpTxOut) {
        restart: in Bit = i.restart;
        link_state: in Bits<2> = i.link_state;
        refresh_clocks: in Bits<16> = i.refresh_clocks;
        min_gap_clocks: in Bits<16> = i.min_gap_clocks;
        fctbs: in Bits<FB> = i.fctbs, each CREDIT_BITS;
        fccl: in Bits<FB> = i.fccl, each CREDIT_BITS;
        fcp_start: in Bit = i.fcp_start;
        fcp_ready: in Bit = i.fcp_ready;
        fcp_done: in Bit = i.fcp_done;
        fcp_pending: out Bit = o.fcp_pending;
        pending_vl: out Bits<4> = o.pending_vl;
        fcp_valid: out Bit = o.fcp_valid;
        fcp_sop: out Bit = o.fcp_sop;
        fcp_eop: out Bit = o.fcp_eop;
        fcp_link: out Bit = o.fcp_link;
        fcp_data: out Bits<W> = o.fcp_data;
        fcp_keep: out Bits<K> = o.fcp_keep;
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

/// `hdl_out/iblink_fcp_tx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "fcp_tx",
        vec![
            ("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap); DATA_WIDTH = 32 or 64; KEEP_WIDTH = DATA_WIDTH/8".into()),
            ("timer_bits".into(), TIMER_BITS.to_string()),
            ("latency_due_to_pending".into(), "2".into()),
            ("sample_to_sop".into(), "1".into()),
        ],
    )
}

/// The block at VLCap `vls` and `width`-bit link words (`iblink_fcp_tx_vl<vls>_w<width>`):
/// the hand-written module and the generated `iblink_lpcrc` it instantiates.
pub fn variant(vls: usize, width: usize) -> Variant {
    Variant {
        name: format!("iblink_fcp_tx_vl{vls}_w{width}"),
        block: "fcp_tx",
        top: SOURCE.module.to_string(),
        params: params(vls, width),
        modules: vec![module(), lpcrc::module()],
        ports: crate::with_fcp_tx!((vls, width), |T| crate::io::top_ports(&T::default()),
            _ => panic!("FCP TX: VLCap {vls} at {width} bits is not generated")),
    }
}

pub type FcpTxVl1W32 = FcpTxUnit<1, 32, 4, 12>;
pub type FcpTxVl2W32 = FcpTxUnit<2, 32, 4, 24>;
pub type FcpTxVl4W32 = FcpTxUnit<4, 32, 4, 48>;
pub type FcpTxVl8W32 = FcpTxUnit<8, 32, 4, 96>;
pub type FcpTxVl15W32 = FcpTxUnit<15, 32, 4, 180>;
pub type FcpTxVl1W64 = FcpTxUnit<1, 64, 8, 12>;
pub type FcpTxVl2W64 = FcpTxUnit<2, 64, 8, 24>;
pub type FcpTxVl4W64 = FcpTxUnit<4, 64, 8, 48>;
pub type FcpTxVl8W64 = FcpTxUnit<8, 64, 8, 96>;
pub type FcpTxVl15W64 = FcpTxUnit<15, 64, 8, 180>;

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::crc16::crc16;

    #[test]
    fn lpcrc_equations_match_reference_and_spec_example() {
        let c = LpcrcEquations::derive();
        // docs/spec.md §3: header 10 00 00 00 -> LPCRC 0x0558.
        assert_eq!(c.lpcrc(header_wire(true, 0, 0, 0)), 0x0558);
        assert_eq!(header_wire(true, 0, 0, 0), 0x0000_0010);
        let mut x = 0x9e37_79b9u32;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            assert_eq!(c.lpcrc(x), crc16(&x.to_le_bytes()), "{x:08x}");
        }
    }

    #[test]
    fn header_bytes_follow_spec_layout() {
        // Op 0, FCTBS 0xABC, VL 3, FCCL 0x123 -> 0A BC 31 23 (docs/spec.md §2).
        assert_eq!(
            header_wire(false, 0xabc, 3, 0x123).to_le_bytes(),
            [0x0a, 0xbc, 0x31, 0x23]
        );
    }

    #[test]
    fn verilog_link_state_codes_are_the_crates() {
        for (code, name) in [(LINK_DOWN, "LINK_DOWN"), (LINK_INIT, "LINK_INIT")] {
            let decl = format!("localparam [1:0] {name} = 2'd{code};");
            assert!(SOURCE.text.contains(&decl), "iblink_fcp_tx.v lacks `{decl}`");
        }
    }

    #[test]
    fn verilog_start_to_done_and_flight_depth_are_the_crates() {
        for decl in [
            format!("localparam [15:0] START_TO_DONE = (DATA_WIDTH == 32) ? 16'd{} : 16'd{};", start_to_done(32), start_to_done(64)),
            format!("localparam FLIGHT = (DATA_WIDTH == 32) ? {} : {};", flight_depth(32), flight_depth(64)),
        ] {
            assert!(SOURCE.text.contains(&decl), "iblink_fcp_tx.v lacks `{decl}`");
        }
        // The FCP's last word on a wire that never stalls: START_TO_SOP, then its words.
        assert_eq!(start_to_done(32), crate::link_tx::START_TO_SOP + 1);
        assert_eq!(start_to_done(64), crate::link_tx::START_TO_SOP);
    }

    #[test]
    fn round_robin_pick() {
        // Refresh beats change; search starts at `start` and wraps.
        assert_eq!(pick(0b0101, 0b0010, 1, 4), Some(2));
        assert_eq!(pick(0b0101, 0b0010, 3, 4), Some(0));
        assert_eq!(pick(0, 0b1010, 2, 4), Some(3));
        assert_eq!(pick(0, 0, 0, 4), None);
        assert_eq!(pick(1 << 14, 0, 14, 15), Some(14));
    }
}
