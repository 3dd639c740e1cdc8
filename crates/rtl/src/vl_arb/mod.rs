//! Data-VL arbiter (docs/spec.md §6; seed 003 "Data VL Arbitration Description"): the
//! high- and low-priority VLArbitrationTables, Weights, VLHighLimit and HighPriCounter,
//! both low-table policies and the per-VL software enables. VL15 > FCP > data is the
//! port's business (docs/spec.md §5): this block only picks among data VLs.
//!
//! In this folder: the Verilog module `iblink_vl_arb.v` (parameter `VLS`), and here its
//! Rust cycle twin [`VlArbTwin`], the rust-hdl block [`VlArbUnit`] (ports, emission) and
//! the port binding. Reference model: `iblink_model::arbiter::VlArbiter` (`grant`/`peek`,
//! `write_entry`); lockstep of model, twin and Verilator:
//! `crates/sim/tests/lockstep/vl_arb.rs` and `vl_arb_saturation.rs` (the model in a cycle
//! adapter applying exactly the latencies below, and the stimulus:
//! `crates/sim/src/blocks/vl_arb.rs`).
//!
//! # Interface (VLCap `N` data VLs, the parameter `VLS`)
//! | port | dir | meaning |
//! |---|---|---|
//! | `head_valid` | in | `N` bits: VL `v` has a head packet AND its credit check passes |
//! | `head_len` | in | `11N` bits: LRH:PktLen (dwords) of VL `v`'s head packet at `[11v+10:11v]` |
//! | `take` | in | the consumer takes the offer shown this clock (ignored without `offer_valid`) |
//! | `wr_en`, `wr_table`, `wr_index[6]`, `wr_vl[4]`, `wr_weight[8]` | in | write one table entry (`wr_table` 0 high, 1 low) |
//! | `vl_high_limit[8]` | in | VLHighLimit (configuration register) |
//! | `low_policy` | in | 0: the active low entry sends until its weight is exhausted (default); 1: one low packet per low turn |
//! | `vl_enable` | in | `N` bits: software enable of data VL `v` |
//! | `reset` | in | pointers to entry 0 (weights reloaded), HighPriCounter reloaded, high table's turn; tables kept |
//! | `offer_valid` | out | an offer is shown |
//! | `offer_vl[4]`, `offer_table`, `offer_entry[6]` | out | the packet to send: VL, table (0 high, 1 low), entry |
//! | `offer_pkt_len[11]`, `offer_blocks[8]` | out | its PktLen and blocks (docs/spec.md §1) |
//! | `offer_weight_left[9]` | out | two's complement: the entry's remaining weight once it is sent |
//! | `offer_high_counter[19]` | out | two's complement: HighPriCounter once it is sent, before any reload |
//!
//! The offer fields are the model's `Grant` (`iblink_model::arbiter::Grant`), number for
//! number; they mean nothing while `offer_valid` is 0.
//!
//! # Cycle contract
//! * **Heads are sampled three clocks ahead**: an offer shown at clock `t` is what the
//!   model's `grant` returns for the arbiter state after the last take and the heads as
//!   they were at clock `t-3` ([`HEAD_DELAY`]).
//! * **Take**: `take` with `offer_valid` at clock `t` gives the offered packet to the
//!   consumer and commits the state. No offer is shown at `t+1..t+3`; from `t+4` on
//!   ([`TAKE_GAP`]) the next one is, whenever an entry is eligible — decided on heads of
//!   `t+1` or later. A packet occupies at least 4 clocks on the wire (PktLen 6 at 64 bits),
//!   so a consumer that takes at a packet's first clock always finds the next offer ready
//!   when the packet ends: zero bubble.
//! * **The VL just taken**: its head at `t+1` must already be the next packet, with the
//!   credit check made for it (a FWFT queue popped by `take`, and the TX credit block's
//!   `send` in the clock of the take, do this). A consumer whose head or credit state
//!   takes longer to settle must hold `head_valid` low for that VL until it has; the
//!   arbiter trusts whatever it samples.
//! * **Between takes the offer follows the heads**, three clocks late: it may change from
//!   one clock to the next as VLs gain or lose packets or credits (the offered VL had its
//!   head three clocks ago; in a port nothing but a take removes a head). A take always
//!   commits exactly the offer shown in its clock: a table write never affects an offer
//!   already taken (docs/spec.md §6: no packet is fragmented).
//! * **Configuration**: a table write, a change of `vl_high_limit`, `low_policy` or
//!   `vl_enable` (detected against the value of the clock before), and `reset` act one
//!   clock after the clock they are presented in, and after a take presented in that same
//!   clock. In the model's terms, in one clock: `grant` (the take), then
//!   `write_entry`, `set_vl_high_limit` (which reloads the HighPriCounter, as the model
//!   does), `set_low_policy`, `set_enabled`, `reset`. No offer is shown in the four clocks
//!   after such a clock ([`CONFIG_GAP`] = 5: the next can show at `+5`).
//! * **Idle**: without a take nothing changes: when no entry is eligible `offer_valid` is 0
//!   (the model's `grant` returns `None` and changes nothing).
//! * Power-up: tables all weight 0, VLHighLimit 0, weight policy, every VL disabled — as
//!   if those inputs had been 0 the clock before the first.
//!
//! # Pipeline (why the heads are three clocks old)
//! Picking among 64 entries in one clock is far too slow for the clock target on an
//! iCE40; here it is spread over three register stages:
//! * A (`t-3`): a ready bit per entry: its VL has a head and is enabled. An entry that
//!   can never send (weight 0, VL15, a VL at or above VLCap) is stored with VL 15, which
//!   is never ready, so this is one 16:1 lookup per entry (an entry keeps only the
//!   [`stored_vl_bits`] a VL below VLCap or 15 needs: 1/2/3/4/4 for VLCap 1/2/4/8/15);
//!   the same bit masked to the entries after the active one (the pointer moves in the
//!   clock of a take, so it is current here). PktLens copied.
//! * B (`t-2`): per table, the first ready entry after the active one, wrapping (the
//!   first `ready & after` entry, else the first `ready` one), registered in pieces:
//!   which group of 16 entries holds it (one-hot, a prefix scan over the groups' ORs),
//!   and for every group of 16 its own first candidate's index and VL (mux trees over
//!   groups of 4 selected by the groups' ORs). And, apart, whether the active entry
//!   goes on (weight left and ready), which the model's `find` prefers.
//! * C (`t-1`): the picked entries' VLs and indices, one AND-OR of the pieces (the
//!   active one when it goes on), choose the table (the model's `grant` decision tree),
//!   and per VL the blocks of its head and the low bits of HighPriCounter − PktLen. Each
//!   table's Weights live in its own block RAM, read at the end of C with that table's
//!   pick.
//!
//! The pick is registered in pieces, not as a 64-bit one-hot, so that C's Weights read
//! and `offer_vl` start at flip-flops behind one AND-OR (a 64-to-6 encoder there was the
//! ECP5 critical path). The offer's PktLen, blocks, remaining weight and HighPriCounter
//! are then a select by the offered VL plus one 9-bit subtraction: C registers the
//! offered VL decoded too (`offer_vl_hot`), the select is an AND-OR per group of 4 VLs,
//! kept as LUTs, then an OR over the groups, and HighPriCounter's borrow selects its
//! upper bits last (the mapper otherwise built a chain of ORs behind a compare, in front
//! of `offer_weight_left` and `offer_high_counter`). A take is captured and committed one
//! clock later; that is why configuration waits a clock too, so that everything lands in
//! the model's order. The measurements behind each of these choices are in
//! `docs/synthesis-history.md` (section "VL arbiter").

use crate::bits::mask;
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use crate::vl::{MAX_VLS, VL_CAPS};
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_vl_arb",
    path: "crates/rtl/src/vl_arb/iblink_vl_arb.v",
    text: include_str!("iblink_vl_arb.v"),
};

/// Entries in each VLArbitrationTable (docs/spec.md §6).
pub const ENTRIES: usize = 64;
/// Bits of LRH:PktLen.
pub const LEN_BITS: usize = 11;
/// Clocks from the heads an offer is decided on to the offer.
pub const HEAD_DELAY: usize = 3;
/// After a take at `t`, the next offer can show at `t + TAKE_GAP`.
pub const TAKE_GAP: usize = 4;
/// After a configuration change presented at `t`, the next offer can show at `t + CONFIG_GAP`.
pub const CONFIG_GAP: usize = 5;
/// VLHighLimit meaning "no limit" (docs/spec.md §6).
pub const UNBOUNDED: u8 = 255;
/// HighPriCounter dwords per VLHighLimit unit (4096 bytes).
pub const DWORDS_PER_LIMIT: i32 = 1024;

/// Blocks of a packet from its PktLen (docs/spec.md §1): `ceil((PktLen*4 - 8) / 64)`, which is
/// `(PktLen + 13) / 16` for every PktLen (0 for PktLen < 3).
#[inline]
pub const fn blocks_of(pkt_len: u16) -> u16 {
    (pkt_len + 13) >> 4
}

/// Bits a table entry's stored VL keeps at VLCap `n` (the Verilog's `VB`): a stored VL is
/// below VLCap, or 15 for an entry that is skipped, so the bits that hold VLCap - 1 plus
/// one bit that is set only for 15 (the stored 15 has every kept bit set; the bits above
/// copy the top one). Four at VLCap 8 and 15, where 15 already needs all four.
pub const fn stored_vl_bits(n: usize) -> usize {
    if n <= 1 {
        1
    } else if n <= 2 {
        2
    } else if n <= 4 {
        3
    } else {
        4
    }
}

/// One clock of stimulus (fields of VLs at or above VLCap are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VlArbIn {
    pub reset: bool,
    /// Bit `v`: VL `v` has a head packet whose credit check passes.
    pub head_valid: u16,
    /// PktLen of each VL's head packet (11 bits used).
    pub head_len: [u16; MAX_VLS],
    pub take: bool,
    pub wr_en: bool,
    /// The low table (else the high table).
    pub wr_low: bool,
    pub wr_index: u8,
    pub wr_vl: u8,
    pub wr_weight: u8,
    pub vl_high_limit: u8,
    /// `low_policy` = 1: one low-table packet per low turn.
    pub one_packet: bool,
    pub vl_enable: u16,
}

/// The offer during a clock; all fields 0 while `offer_valid` is 0 (they mean nothing
/// then, and are compared as 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VlArbOut {
    pub offer_valid: bool,
    pub vl: u8,
    /// From the low table (else the high table).
    pub low: bool,
    pub entry: u8,
    pub pkt_len: u16,
    pub blocks: u16,
    pub weight_left: i16,
    pub high_counter: i32,
}

impl VlArbOut {
    /// The record as every binding reads it: the fields while an offer is shown, all 0
    /// while none is (the ports then carry whatever the registers hold).
    pub fn cleared(self) -> Self {
        if self.offer_valid {
            self
        } else {
            Self::default()
        }
    }
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

/// One VLArbitrationTable's registers (the Verilog's `hi_*` / `lo_*`).
#[derive(Clone, Debug)]
pub struct TableRegs {
    /// VL of each entry as stored (`vs`, widened): 15 (never ready) for an entry that can
    /// never send (weight 0, VL15, VL at or above VLCap), whatever VL was written.
    pub vl: [u8; ENTRIES],
    /// Weights (the block RAM). Entry 0's also stands for the Verilog's `w0` copy.
    pub weight: [u8; ENTRIES],
    /// Per stored VL, the entries holding it (bit `i`: entry `i`): stage A's 16:1
    /// lookup, kept in step with `vl`, so a clock ORs one mask per ready VL.
    by_vl: [u64; 16],
    /// Active entry (`ptr`; `gt` is the entries after it).
    pub ptr: u8,
    /// Its remaining weight, 9-bit two's complement (a packet may overdraw it);
    /// `rem_pos` is `rem > 0`.
    pub rem: i16,
    /// The active entry's VL as stored.
    pub act_vl: u8,
    /// Stage A: entry ready; ready and after the active one; the active entry ready.
    pub rdy: u64,
    pub rdy_gt: u64,
    pub act_rdy: bool,
    /// Stage B: the scan's pick, index and VL (0 and 0 when nothing is ready; the
    /// Verilog keeps it in pieces: `pick_bank`, `pick_sub`, `pick_bvl`).
    pub scan_idx: u8,
    pub scan_vl: u8,
    /// Stage B: the active entry goes on instead (weight left, ready).
    pub pick_cont: bool,
    /// Stage C: the Weight of the scan's pick, read from the RAM.
    pub weight_q: u8,
}

impl TableRegs {
    fn new() -> Self {
        let mut by_vl = [0u64; 16];
        by_vl[15] = u64::MAX;
        Self {
            vl: [15; ENTRIES],
            weight: [0; ENTRIES],
            by_vl,
            ptr: 0,
            rem: 0,
            act_vl: 15,
            rdy: 0,
            rdy_gt: 0,
            act_rdy: false,
            scan_idx: 0,
            scan_vl: 0,
            pick_cont: false,
            weight_q: 0,
        }
    }

    /// Entries after the active one (the Verilog's `gt`).
    #[inline]
    fn gt(&self) -> u64 {
        (!1u64) << self.ptr
    }

    /// Stage A: bit `i` set when entry `i`'s stored VL is in `vl_ready`.
    #[inline]
    fn ready(&self, vl_ready: u16) -> u64 {
        let mut r = 0u64;
        let mut m = vl_ready;
        while m != 0 {
            r |= self.by_vl[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        r
    }

    /// Store VL `vl` at entry `idx`.
    #[inline]
    fn store_vl(&mut self, idx: usize, vl: u8) {
        let bit = 1u64 << idx;
        self.by_vl[self.vl[idx] as usize] &= !bit;
        self.by_vl[vl as usize] |= bit;
        self.vl[idx] = vl;
    }
}

/// The Rust cycle twin of `iblink_vl_arb` for `vls` data VLs: its registers under the
/// Verilog's names (per table in [`TableRegs`]), and its logic. Two registers are kept
/// in another form, with the same values at every port: the stage-B pick as an index
/// and a VL (the Verilog's pieces put together), and of the per-VL stage-C registers
/// (`c_len`, `c_blocks`, `c_counter_low`, selected by `offer_vl_hot`) only the offered
/// VL's, the one the outputs show.
///
/// Every output is a function of the registers only, so [`Twin::tick`] computes the
/// outputs of the next clock once, and [`Twin::eval`] returns them.
#[derive(Clone, Debug)]
pub struct VlArbTwin {
    vls: usize,
    vl_mask: u16,
    /// 0 high, 1 low.
    pub tab: [TableRegs; 2],
    // Configuration as sampled (acts one clock later).
    pub ev_wr: bool,
    pub ev_wr_low: bool,
    pub ev_wr_index: u8,
    /// What the write stores as the entry's VL: 15 for an entry that is skipped.
    pub ev_wr_vl_stored: u8,
    pub ev_wr_weight: u8,
    pub ev_reset: bool,
    pub ev_limit: bool,
    pub limit_in: u8,
    pub policy_in: bool,
    pub enable_in: u16,
    // Configuration in effect.
    pub limit: u8,
    pub one_packet: bool,
    pub enable: u16,
    // Arbiter state (docs/spec.md §6).
    pub high_counter: i32,
    pub low_turn: bool,
    pub low_open: bool,
    pub hold: u8,
    // A take, committed the clock after.
    pub t1_go: bool,
    pub t1_low: bool,
    pub t1_wl: i16,
    pub t1_hc: i32,
    // PktLens through stages A and B.
    pub a_len: [u16; MAX_VLS],
    pub b_len: [u16; MAX_VLS],
    // Stage B: the table choice.
    pub b_any: bool,
    pub b_low: bool,
    pub b_reload: bool,
    // Stage C: the offer.
    pub offer_valid: bool,
    pub offer_table: bool,
    pub offer_entry: u8,
    pub offer_vl: u8,
    pub c_cont: bool,
    pub c_rem: i16,
    pub c_count: bool,
    pub c_counter: i32,
    /// The offered VL's PktLen, blocks and `{borrow, (HighPriCounter - PktLen) mod
    /// 2048}` (0 when the offered VL is at or above VLCap).
    pub c_len: u16,
    pub c_blocks: u16,
    pub c_counter_low: u16,
    /// The output ports during this clock, as the Verilog drives them.
    ports: VlArbOut,
}

impl VlArbTwin {
    /// Power-up: tables empty, every setting 0, nothing in the pipeline.
    pub fn new(vls: usize) -> Self {
        assert!(VL_CAPS.contains(&vls), "VlArbTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        let mut t = Self {
            vls,
            vl_mask: mask(vls) as u16,
            tab: [TableRegs::new(), TableRegs::new()],
            ev_wr: false,
            ev_wr_low: false,
            ev_wr_index: 0,
            ev_wr_vl_stored: 15,
            ev_wr_weight: 0,
            ev_reset: false,
            ev_limit: false,
            limit_in: 0,
            policy_in: false,
            enable_in: 0,
            limit: 0,
            one_packet: false,
            enable: 0,
            high_counter: 0,
            low_turn: false,
            low_open: false,
            hold: 0,
            t1_go: false,
            t1_low: false,
            t1_wl: 0,
            t1_hc: 0,
            a_len: [0; MAX_VLS],
            b_len: [0; MAX_VLS],
            b_any: false,
            b_low: false,
            b_reload: false,
            offer_valid: false,
            offer_table: false,
            offer_entry: 0,
            offer_vl: 0,
            c_cont: false,
            c_rem: 0,
            c_count: false,
            c_counter: 0,
            c_len: 0,
            c_blocks: 0,
            c_counter_low: 0,
            ports: VlArbOut::default(),
        };
        t.ports = t.offer_ports();
        t
    }

    pub fn vls(&self) -> usize {
        self.vls
    }

    /// The output ports during this clock as the Verilog drives them: the offer fields
    /// are not cleared while `offer_valid` is 0 (the [`Twin::eval`] record clears them).
    #[inline]
    pub fn ports(&self) -> &VlArbOut {
        &self.ports
    }

    /// The outputs from the registers (the Verilog's combinational offer logic).
    fn offer_ports(&self) -> VlArbOut {
        let weight = if self.offer_table { self.tab[1].weight_q } else { self.tab[0].weight_q };
        let before = if self.c_cont { self.c_rem as i64 } else { weight as i64 };
        let weight_left = wrap(before - self.c_blocks as i64, 9) as i16;
        // HighPriCounter: its low bits per VL from C, the upper ones now; the borrow
        // selects the upper bits decremented.
        let hc = self.high_counter as u32 & 0x7ffff;
        let cc = self.c_counter as u32 & 0x7ffff;
        let kept = if self.c_count { hc >> 11 } else { cc >> 11 };
        let less1 = (hc >> 11).wrapping_sub(1) & 0xff;
        let borrow = self.c_counter_low >> 11 & 1 == 1;
        let upper = if self.c_count && borrow { less1 } else { kept };
        let lower = if self.c_count { self.c_counter_low as u32 & 0x7ff } else { cc & 0x7ff };
        VlArbOut {
            offer_valid: self.offer_valid,
            vl: self.offer_vl,
            low: self.offer_table,
            entry: self.offer_entry,
            pkt_len: self.c_len,
            blocks: self.c_blocks,
            weight_left,
            high_counter: sign_extend((upper << 11 | lower) as u64, 19) as i32,
        }
    }
}

impl Twin for VlArbTwin {
    type In = VlArbIn;
    type Out = VlArbOut;

    /// The offer during this clock (the fields cleared while `offer_valid` is 0).
    #[inline]
    fn eval(&self, _i: &VlArbIn) -> VlArbOut {
        if self.ports.offer_valid {
            self.ports
        } else {
            VlArbOut::default()
        }
    }

    /// The rising edge: every register takes its next value, each computed from the
    /// values before the edge (the Verilog's non-blocking updates).
    fn tick(&mut self, i: &VlArbIn) {
        let m = self.vl_mask;
        let out = self.ports;
        let take_now = i.take && self.offer_valid;
        let enable_next = i.vl_enable & m;
        let config_now = i.wr_en
            || i.reset
            || i.vl_high_limit != self.limit_in
            || i.one_packet != self.policy_in
            || enable_next != self.enable_in;
        let hold_next = if config_now {
            4
        } else if take_now {
            3
        } else {
            self.hold.saturating_sub(1)
        };
        let vl_ready = i.head_valid & self.enable & m;

        // Stage B's table choice (the model's grant), on stage A's registers.
        let hi_found = self.tab[0].rdy != 0;
        let lo_found = self.tab[1].rdy != 0;
        let lo_cont = self.tab[1].rem > 0 && self.tab[1].act_rdy;
        let lo_continues = self.low_turn && self.low_open && lo_cont;
        let high_first = !self.low_turn || self.low_open;
        let pick_low = lo_continues || if high_first { !hi_found } else { lo_found };

        // Stage C: the chosen table's entry (the active one when it goes on).
        {
            let tc = &self.tab[self.b_low as usize];
            let (idx, vl) = if tc.pick_cont { (tc.ptr, tc.act_vl) } else { (tc.scan_idx, tc.scan_vl) };
            self.c_cont = tc.pick_cont;
            self.c_rem = tc.rem;
            self.offer_valid = self.b_any && hold_next == 0;
            self.offer_table = self.b_low;
            self.offer_entry = idx;
            self.offer_vl = vl;
            self.c_count = !self.b_low && self.limit != UNBOUNDED;
            self.c_counter = if self.b_reload {
                self.limit as i32 * DWORDS_PER_LIMIT
            } else {
                self.high_counter
            };
            let v = vl as usize;
            if v < self.vls {
                let len = self.b_len[v];
                self.c_len = len;
                self.c_blocks = blocks_of(len);
                self.c_counter_low = ((self.high_counter as u16 & 0x7ff).wrapping_sub(len)) & 0xfff;
            } else {
                self.c_len = 0;
                self.c_blocks = 0;
                self.c_counter_low = 0;
            }
        }

        // Per table: C's Weights read, stage B's scan, stage A, then the take, the
        // commit of the take before, a write and reset.
        let (ev_wr, ev_wr_low, ev_idx) = (self.ev_wr, self.ev_wr_low, self.ev_wr_index as usize);
        let (ev_vl, ev_weight, ev_reset) = (self.ev_wr_vl_stored, self.ev_wr_weight, self.ev_reset);
        let (offer_table, offer_entry, offer_vl) = (out.low, out.entry, out.vl);
        let (t1_go, t1_low, t1_wl) = (self.t1_go, self.t1_low, self.t1_wl);
        for (t, tab) in self.tab.iter_mut().enumerate() {
            let low = t == 1;
            tab.weight_q = tab.weight[tab.scan_idx as usize];
            // B: the first rdy_gt entry, else the first rdy entry (index and VL 0: none).
            let x = if tab.rdy_gt != 0 { tab.rdy_gt } else { tab.rdy };
            if x != 0 {
                let s = x.trailing_zeros() as usize;
                tab.scan_idx = s as u8;
                tab.scan_vl = tab.vl[s];
            } else {
                tab.scan_idx = 0;
                tab.scan_vl = 0;
            }
            tab.pick_cont = tab.rem > 0 && tab.act_rdy;
            // A: on this clock's heads.
            let rdy_n = tab.ready(vl_ready);
            tab.rdy_gt = tab.gt() & rdy_n;
            tab.rdy = rdy_n;
            tab.act_rdy = vl_ready >> tab.act_vl & 1 == 1;
            // The take moves the pointer; its remaining weight commits a clock later.
            let take = take_now && offer_table == low;
            let commit = t1_go && t1_low == low;
            let wr = ev_wr && ev_wr_low == low;
            let wr_active = wr && ev_idx == tab.ptr as usize;
            let at0 = wr && ev_idx == 0;
            let vl0_n = if at0 { ev_vl } else { tab.vl[0] };
            let w0_n = if at0 { ev_weight } else { tab.weight[0] };
            if wr {
                tab.store_vl(ev_idx, ev_vl);
                tab.weight[ev_idx] = ev_weight;
            }
            if ev_reset {
                tab.ptr = 0;
                tab.act_vl = vl0_n;
            } else if wr_active {
                tab.act_vl = ev_vl;
            } else if take {
                tab.ptr = offer_entry;
                tab.act_vl = offer_vl;
            }
            if ev_reset {
                tab.rem = w0_n as i16;
            } else if wr_active {
                tab.rem = ev_weight as i16;
            } else if commit {
                tab.rem = t1_wl;
            }
        }

        // Stage B's registers; the PktLens move on.
        self.b_any = hi_found || lo_found;
        self.b_low = pick_low;
        self.b_reload = pick_low && !lo_continues && high_first && !hi_found;
        self.b_len = self.a_len;
        for v in 0..self.vls {
            self.a_len[v] = i.head_len[v] & 0x7ff;
        }
        self.hold = hold_next;

        // The take of the clock before (docs/spec.md §6), then the configuration sampled then.
        if t1_go {
            if !t1_low {
                // A high packet: once the counter is negative it reloads and the low
                // table becomes active.
                self.high_counter = if self.t1_hc < 0 {
                    self.limit as i32 * DWORDS_PER_LIMIT
                } else {
                    self.t1_hc
                };
                self.low_turn = self.t1_hc < 0;
                self.low_open = false;
            } else {
                // A low packet: the turn is over after one packet (one-packet policy) or
                // when the entry's weight is exhausted.
                self.high_counter = self.t1_hc;
                let on = !(self.one_packet || t1_wl <= 0);
                self.low_turn = on;
                self.low_open = on;
            }
        }
        if self.ev_limit {
            self.high_counter = self.limit_in as i32 * DWORDS_PER_LIMIT;
        }
        if ev_reset {
            self.high_counter = self.limit_in as i32 * DWORDS_PER_LIMIT;
            self.low_turn = false;
            self.low_open = false;
        }
        self.limit = self.limit_in;
        self.one_packet = self.policy_in;
        self.enable = self.enable_in;

        // This clock's take, captured.
        self.t1_go = take_now;
        self.t1_low = out.low;
        self.t1_wl = out.weight_left;
        self.t1_hc = out.high_counter;

        // This clock's configuration, sampled; whether the entry can send is decided here.
        let wr_vl = i.wr_vl & 0xf;
        self.ev_wr = i.wr_en;
        self.ev_wr_low = i.wr_low;
        self.ev_wr_index = i.wr_index & 0x3f;
        self.ev_wr_vl_stored = if i.wr_weight != 0 && (wr_vl as usize) < self.vls { wr_vl } else { 15 };
        self.ev_wr_weight = i.wr_weight;
        self.ev_reset = i.reset;
        self.ev_limit = i.vl_high_limit != self.limit_in;
        self.limit_in = i.vl_high_limit;
        self.policy_in = i.one_packet;
        self.enable_in = enable_next;

        self.ports = self.offer_ports();
    }
}

/// `v` reduced to `bits` bits two's complement (as the Verilog's fixed-width arithmetic).
fn wrap(v: i64, bits: u32) -> i64 {
    sign_extend(v as u64 & ((1u64 << bits) - 1), bits)
}

crate::hdl_block! {
    /// The arbiter for rust-hdl at VLCap `N`; `HL = 11 * N` (the width of `head_len`). Its
    /// ports show the registers as the Verilog drives them ([`VlArbTwin::ports`], not
    /// cleared without an offer); outputs read back are [`VlArbOut::cleared`].
    pub struct VlArbUnit<const N: usize, const HL: usize> {
        twin: VlArbTwin,
    }
    check: VL_CAPS.contains(&N) && HL == LEN_BITS * N;
    default: Self::with_twin(VlArbTwin::new(N));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N), SOURCE.text);
    shown: |t, _i| *t.ports();
    sampled: |o| o.cleared();
    ports(i: VlArbIn, o: VlArbOut) {
        reset: in Bit = i.reset;
        head_valid: in Bits<N> = i.head_valid;
        head_len: in Bits<HL> = i.head_len, each LEN_BITS;
        take: in Bit = i.take;
        wr_en: in Bit = i.wr_en;
        wr_table: in Bit = i.wr_low;
        wr_index: in Bits<6> = i.wr_index;
        wr_vl: in Bits<4> = i.wr_vl;
        wr_weight: in Bits<8> = i.wr_weight;
        vl_high_limit: in Bits<8> = i.vl_high_limit;
        low_policy: in Bit = i.one_packet;
        vl_enable: in Bits<N> = i.vl_enable;
        offer_valid: out Bit = o.offer_valid;
        offer_vl: out Bits<4> = o.vl;
        offer_table: out Bit = o.low;
        offer_entry: out Bits<6> = o.entry;
        offer_pkt_len: out Bits<11> = o.pkt_len;
        offer_blocks: out Bits<8> = o.blocks;
        offer_weight_left: out Bits<9> = o.weight_left;
        offer_high_counter: out Bits<19> = o.high_counter;
    }
}

impl<const N: usize, const HL: usize> VlArbUnit<N, HL> {
    /// The twin inside (its registers, for tests and waveforms).
    pub fn twin(&self) -> &VlArbTwin {
        &self.twin
    }
}

/// The module's parameters for VLCap `vls`.
pub fn params(vls: usize) -> Vec<(String, String)> {
    vec![("VLS".to_string(), vls.to_string())]
}

/// `hdl_out/iblink_vl_arb.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "vl_arb",
        vec![
            ("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap)".into()),
            ("table_entries".into(), format!("{ENTRIES} high + {ENTRIES} low")),
            ("heads_sampled_before_offer".into(), HEAD_DELAY.to_string()),
            ("take_to_next_offer".into(), TAKE_GAP.to_string()),
            ("config_to_next_offer".into(), CONFIG_GAP.to_string()),
        ],
    )
}

/// The block at VLCap `vls` (`iblink_vl_arb_vl<vls>`).
pub fn variant(vls: usize) -> Variant {
    Variant {
        name: format!("iblink_vl_arb_vl{vls}"),
        block: "vl_arb",
        top: SOURCE.module.to_string(),
        params: params(vls),
        modules: vec![module()],
        ports: crate::with_vl_arb!(vls, |T| crate::io::top_ports(&T::default()),
            _ => panic!("VL arbiter: VLCap {vls} is not 1, 2, 4, 8 or 15")),
    }
}

pub type VlArbVl1 = VlArbUnit<1, 11>;
pub type VlArbVl2 = VlArbUnit<2, 22>;
pub type VlArbVl4 = VlArbUnit<4, 44>;
pub type VlArbVl8 = VlArbUnit<8, 88>;
pub type VlArbVl15 = VlArbUnit<15, 165>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every VL a table entry can hold (below VLCap, or 15 for a skipped entry) comes back
    /// whole from its kept bits widened as the Verilog does, and one bit fewer would not do.
    #[test]
    fn stored_vl_bits_keep_every_storable_vl() {
        let widen = |s: u8, vb: usize| {
            let top = s >> (vb - 1) & 1;
            s | if top == 1 { 0xf & !((1u8 << vb) - 1) } else { 0 }
        };
        for n in VL_CAPS {
            let vb = stored_vl_bits(n);
            let storable: Vec<u8> = (0..n as u8).chain([15]).collect();
            for &v in &storable {
                assert_eq!(widen(v & ((1u8 << vb) - 1), vb), v, "VLCap {n}, VL {v}, {vb} bits");
            }
            // With one bit fewer two storable VLs would share their kept bits.
            let fewer: std::collections::HashSet<u8> =
                storable.iter().map(|v| v & ((1u8 << (vb - 1)) - 1)).collect();
            assert!(fewer.len() < storable.len(), "VLCap {n}: {vb} bits is wider than needed");
        }
    }

    #[test]
    fn blocks_follow_spec_section_1() {
        // bytes = PktLen*4 - 8, ceil(bytes / 64).
        for len in 0..2048u16 {
            let bytes = (len as u32 * 4).saturating_sub(8);
            assert_eq!(blocks_of(len) as u32, bytes.div_ceil(64), "PktLen {len}");
        }
    }

    #[test]
    fn out_record_sign_extends_and_clears() {
        use crate::io::HdlIo;
        // Verilator's output slots, in port order: valid, VL, table, entry, PktLen,
        // blocks, weight left (9 bits), HighPriCounter (19 bits).
        let raw = |valid: u64| [valid, 7, 0, 2, 1024, 64, 0x1ff & (-62i64 as u64), 0x7ffff & (-1024i64 as u64)];
        let o = VlArbVl4::unpack(&raw(1));
        assert_eq!((o.vl, o.entry, o.pkt_len, o.blocks), (7, 2, 1024, 64));
        assert_eq!((o.weight_left, o.high_counter), (-62, -1024));
        assert_eq!(VlArbVl4::unpack(&raw(0)), VlArbOut::default());
    }
}
