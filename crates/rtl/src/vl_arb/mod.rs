//! Data-VL arbiter (SPEC.md §6; seed 003 "Data VL Arbitration Description"): the
//! high- and low-priority VLArbitrationTables, Weights, VLHighLimit and HighPriCounter,
//! both low-table policies and the per-VL software enables. VL15 > FCP > data is the
//! port's business (SPEC.md §5): this block only picks among data VLs.
//!
//! Reference-model twin: `iblink_model::arbiter::VlArbiter` (`grant`/`peek`,
//! `write_entry`); lockstep: `iblink_sim::blocks::vl_arb` (the model in a cycle adapter
//! applying exactly the latencies below).
//!
//! # Interface (VLCap `N` data VLs, a generation-time parameter)
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
//! | `offer_pkt_len[11]`, `offer_blocks[8]` | out | its PktLen and blocks (SPEC.md §1) |
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
//!   already taken (SPEC.md §6: no packet is fragmented).
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
//! Picking among 64 entries in one clock runs near 55 MHz on an iCE40; here it is spread
//! over three register stages:
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
//! Until this layout B registered the pick as a 64-bit one-hot, and C turned it into
//! an index and a VL with a 64-to-6 encoder and a 64-way AND-OR; on ECP5 that encoder
//! in front of the Weights read was the critical path. `iblink synth`, seed 1, VLCap
//! 1/2/4/8/15, one-hot → pieces: HX8K 96.0/93.2/83.7/91.3/88.3 →
//! 110.1/111.6/106.4/98.6/98.3 MHz, ECP5 116.5/107.0/110.0/121.0/117.0 →
//! 128.0/130.1/133.8/128.9/123.5 MHz; 56 FF fewer, LUT4 +300 to +325 on HX8K and +334
//! to +698 on ECP5 (the VL trees of every group of 4). Reading the VL in C from the
//! registered index instead (a 16:1 mux per bank) saved those LUT4 but gave HX8K 15 VLs
//! 83.0–88.4 MHz over seeds 1–3.
//!
//! The offer's PktLen, blocks, remaining weight and HighPriCounter are then a 15-way
//! select by the offered VL plus one 9-bit subtraction. C registers the offered VL
//! decoded too (`offer_vl_hot`), and the select is an AND-OR per group of 4 VLs, kept
//! as LUTs, then an OR over the groups; HighPriCounter's borrow selects its upper bits
//! last. The mapper otherwise built a chain of ORs behind a compare, and that path to
//! `offer_weight_left` and `offer_high_counter` limited HX8K at 15 VLs (98.3 / 91.7 /
//! 92.6 MHz, seeds 1–3; 100.4 / 96.9 / 97.9 now, seeds 2 and 3 through stage A). A take
//! is captured and committed one clock later; that is why configuration waits a clock
//! too, so that everything lands in the model's order.

use crate::io::{HdlIo, Opaque, PortSpec};
use crate::bits::{bits_from_words, field, pack_fields, read_words};
use crate::tx_credits::{MAX_VLS, VL_CAPS};
use rust_hdl::prelude::*;

/// Entries in each VLArbitrationTable (SPEC.md §6).
pub const ENTRIES: usize = 64;
/// Bits of LRH:PktLen.
pub const LEN_BITS: usize = 11;
/// Clocks from the heads an offer is decided on to the offer.
pub const HEAD_DELAY: usize = 3;
/// After a take at `t`, the next offer can show at `t + TAKE_GAP`.
pub const TAKE_GAP: usize = 4;
/// After a configuration change presented at `t`, the next offer can show at `t + CONFIG_GAP`.
pub const CONFIG_GAP: usize = 5;
/// VLHighLimit meaning "no limit" (SPEC.md §6).
pub const UNBOUNDED: u8 = 255;
/// HighPriCounter dwords per VLHighLimit unit (4096 bytes).
pub const DWORDS_PER_LIMIT: i32 = 1024;

/// Blocks of a packet from its PktLen (SPEC.md §1): `ceil((PktLen*4 - 8) / 64)`, which is
/// `(PktLen + 13) / 16` for every PktLen (0 for PktLen < 3).
#[inline]
pub const fn blocks_of(pkt_len: u16) -> u16 {
    (pkt_len + 13) >> 4
}

/// One VLArbitrationTable with its active-entry pointer and remaining weight.
#[derive(Clone, Copy, Debug)]
pub struct TableRegs {
    /// VL of each entry as stored: 15 (never ready) for an entry that can never send
    /// (weight 0, VL15, VL at or above VLCap), whatever VL was written.
    pub vl: [u8; ENTRIES],
    pub weight: [u8; ENTRIES],
    /// Active entry.
    pub ptr: u8,
    /// Its remaining weight (may be negative: a packet may overdraw it).
    pub rem: i16,
}

impl TableRegs {
    const EMPTY: Self = Self {
        vl: [15; ENTRIES],
        weight: [0; ENTRIES],
        ptr: 0,
        rem: 0,
    };

    /// Stage A: entry `i` is ready when `vl_ready` has its (stored) VL.
    fn ready_bits(&self, vl_ready: u16) -> u64 {
        let mut r = 0u64;
        for i in 0..ENTRIES {
            r |= ((vl_ready >> self.vl[i] & 1) as u64) << i;
        }
        r
    }

    /// Stage B: (found, entry, the active entry continues) — the model's `find`.
    fn pick(&self, rdy: u64) -> (bool, u8, bool) {
        let p = self.ptr as u32;
        let after = if p == 63 { 0 } else { !0u64 << (p + 1) };
        let start = after | (((self.rem > 0) as u64) << p);
        let x = rdy & start;
        let sel = if x != 0 {
            x.trailing_zeros()
        } else if rdy != 0 {
            rdy.trailing_zeros()
        } else {
            0
        };
        (rdy != 0, sel as u8, self.rem > 0 && rdy >> p & 1 == 1)
    }
}

/// Every register of the block: plain data for the stepper. The configuration, arbiter
/// state, take and offer registers have the Verilog's names (but `ev_wr_vl`, the VL
/// written, which the Verilog keeps as `ev_wr_vl_stored`, already 15 for an entry that
/// is skipped); the pipeline stages A and B are kept in the form the model needs (ready
/// bits, the picked index), where the Verilog splits them for timing (`rdy`/`rdy_gt`;
/// the pick as `pick_bank`, `pick_sub` and `pick_bvl`; `pick_cont`); its `offer_vl_hot`
/// is `offer_vl` decoded, so it is not kept here.
/// Both are checked against the model at every offer by the lockstep.
#[derive(Clone, Copy, Debug)]
pub struct VlArbRegs {
    pub vls: usize,
    /// 0 high, 1 low.
    pub tab: [TableRegs; 2],
    // Configuration as sampled (acts one clock later).
    pub ev_wr: bool,
    pub ev_wr_low: bool,
    pub ev_wr_index: u8,
    pub ev_wr_vl: u8,
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
    // Arbiter state (SPEC.md §6).
    pub high_counter: i32,
    pub low_turn: bool,
    pub low_open: bool,
    pub hold: u8,
    // A take, committed the clock after.
    pub t1_go: bool,
    pub t1_low: bool,
    pub t1_idx: u8,
    pub t1_wl: i16,
    pub t1_hc: i32,
    // Stage A.
    pub a_rdy: [u64; 2],
    pub a_len: [u16; MAX_VLS],
    // Stage B.
    pub b_found: [bool; 2],
    pub b_pick: [u8; 2],
    pub b_cont: [bool; 2],
    pub b_len: [u16; MAX_VLS],
    // Stage C: the offer.
    pub offer_valid: bool,
    pub offer_low: bool,
    pub offer_entry: u8,
    pub offer_vl: u8,
    pub c_rem: i16,
    pub c_reload: bool,
    pub c_len: [u16; MAX_VLS],
    pub c_blocks: [u16; MAX_VLS],
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
    /// The record for raw port values (`weight_left` 9 and `high_counter` 19 bits, two's
    /// complement), with the fields cleared when no offer is shown.
    pub fn from_ports(
        valid: bool,
        vl: u64,
        low: bool,
        entry: u64,
        pkt_len: u64,
        blocks: u64,
        wl: u64,
        hc: u64,
    ) -> Self {
        if !valid {
            return Self::default();
        }
        Self {
            offer_valid: true,
            vl: (vl & 0xf) as u8,
            low,
            entry: (entry & 0x3f) as u8,
            pkt_len: (pkt_len & 0x7ff) as u16,
            blocks: (blocks & 0xff) as u16,
            weight_left: sign_extend(wl, 9) as i16,
            high_counter: sign_extend(hc, 19) as i32,
        }
    }
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

impl VlArbRegs {
    /// Power-up: tables empty, every setting 0, nothing in the pipeline.
    pub fn new(vls: usize) -> Self {
        Self {
            vls,
            tab: [TableRegs::EMPTY; 2],
            ev_wr: false,
            ev_wr_low: false,
            ev_wr_index: 0,
            ev_wr_vl: 0,
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
            t1_idx: 0,
            t1_wl: 0,
            t1_hc: 0,
            a_rdy: [0; 2],
            a_len: [0; MAX_VLS],
            b_found: [false; 2],
            b_pick: [0; 2],
            b_cont: [false; 2],
            b_len: [0; MAX_VLS],
            offer_valid: false,
            offer_low: false,
            offer_entry: 0,
            offer_vl: 0,
            c_rem: 0,
            c_reload: false,
            c_len: [0; MAX_VLS],
            c_blocks: [0; MAX_VLS],
        }
    }

    fn vl_mask(&self) -> u16 {
        ((1u32 << self.vls) - 1) as u16
    }

    /// The offer ports during this clock (raw: not cleared when invalid).
    pub fn offer(&self) -> VlArbOut {
        let v = self.offer_vl as usize;
        let (pkt_len, blocks) = if v < self.vls {
            (self.c_len[v], self.c_blocks[v])
        } else {
            (0, 0)
        };
        let weight_left = wrap(self.c_rem as i64 - blocks as i64, 9) as i16;
        let high_counter = if self.offer_low {
            if self.c_reload {
                self.limit as i32 * DWORDS_PER_LIMIT
            } else {
                self.high_counter
            }
        } else if self.limit == UNBOUNDED {
            self.high_counter
        } else {
            wrap(self.high_counter as i64 - pkt_len as i64, 19) as i32
        };
        VlArbOut {
            offer_valid: self.offer_valid,
            vl: self.offer_vl,
            low: self.offer_low,
            entry: self.offer_entry,
            pkt_len,
            blocks,
            weight_left,
            high_counter,
        }
    }

    /// Clocks until offers may show again, after this clock.
    fn hold_next(&self, i: &VlArbIn, take_now: bool) -> u8 {
        let m = self.vl_mask();
        let event = i.wr_en
            || i.reset
            || i.vl_high_limit != self.limit_in
            || i.one_packet != self.policy_in
            || i.vl_enable & m != self.enable_in;
        if event {
            4
        } else if take_now {
            3
        } else {
            self.hold.saturating_sub(1)
        }
    }

    /// The rising clock edge with inputs `i`: every register takes its next value, all
    /// computed from the values before the edge (as the Verilog's non-blocking updates).
    pub fn clock_edge(&mut self, i: &VlArbIn) {
        let old = *self;
        let m = old.vl_mask();
        let offer = old.offer();
        let take_now = i.take && old.offer_valid;

        // Stage A: ready bits from this clock's heads.
        let vl_ready = i.head_valid & old.enable & m;
        self.a_rdy = [
            old.tab[0].ready_bits(vl_ready),
            old.tab[1].ready_bits(vl_ready),
        ];
        self.a_len = std::array::from_fn(|v| {
            if v < old.vls {
                i.head_len[v] & 0x7ff
            } else {
                0
            }
        });

        // Stage B: the next entry of each table.
        for t in 0..2 {
            let (found, pick, cont) = old.tab[t].pick(old.a_rdy[t]);
            self.b_found[t] = found;
            self.b_pick[t] = pick;
            self.b_cont[t] = cont;
        }
        self.b_len = old.a_len;

        // Stage C: read the entries, choose the table (the model's grant decision).
        let lo_continues = old.low_turn && old.low_open && old.b_cont[1];
        let high_first = !old.low_turn || old.low_open;
        let pick_low = lo_continues
            || if high_first {
                !old.b_found[0]
            } else {
                old.b_found[1]
            };
        let t = pick_low as usize;
        let idx = old.b_pick[t] as usize;
        let tab = &old.tab[t];
        self.offer_low = pick_low;
        self.offer_entry = idx as u8;
        self.offer_vl = tab.vl[idx];
        self.c_rem = if old.b_cont[t] {
            tab.rem
        } else {
            tab.weight[idx] as i16
        };
        self.c_reload = !lo_continues && high_first && !old.b_found[0];
        self.c_len = old.b_len;
        self.c_blocks = old.b_len.map(blocks_of);
        self.hold = old.hold_next(i, take_now);
        self.offer_valid = (old.b_found[0] || old.b_found[1]) && self.hold == 0;

        // The take, captured.
        self.t1_go = take_now;
        self.t1_low = offer.low;
        self.t1_idx = offer.entry;
        self.t1_wl = offer.weight_left;
        self.t1_hc = offer.high_counter;

        // Commit the take of the clock before, then the configuration sampled then.
        let reload = |limit: u8| limit as i32 * DWORDS_PER_LIMIT;
        for t in 0..2 {
            let commit = old.t1_go && old.t1_low == (t == 1);
            let tab = &mut self.tab[t];
            let ptr_c = if commit { old.t1_idx } else { tab.ptr };
            let rem_c = if commit { old.t1_wl } else { tab.rem };
            let wr = old.ev_wr && old.ev_wr_low == (t == 1);
            if wr {
                let usable = old.ev_wr_weight != 0 && (old.ev_wr_vl as usize) < old.vls;
                tab.vl[old.ev_wr_index as usize] = if usable { old.ev_wr_vl } else { 15 };
                tab.weight[old.ev_wr_index as usize] = old.ev_wr_weight;
            }
            let rem_w = if wr && old.ev_wr_index == ptr_c {
                old.ev_wr_weight as i16
            } else {
                rem_c
            };
            if old.ev_reset {
                tab.ptr = 0;
                tab.rem = tab.weight[0] as i16;
            } else {
                tab.ptr = ptr_c;
                tab.rem = rem_w;
            }
        }
        if old.t1_go {
            if !old.t1_low {
                if old.t1_hc < 0 {
                    // SPEC.md §6: negative -> reload, the low table becomes active.
                    self.high_counter = reload(old.limit);
                    self.low_turn = true;
                } else {
                    self.high_counter = old.t1_hc;
                    self.low_turn = false;
                }
                self.low_open = false;
            } else {
                self.high_counter = old.t1_hc;
                let over = old.one_packet || old.t1_wl <= 0;
                self.low_turn = !over;
                self.low_open = !over;
            }
        }
        if old.ev_limit {
            self.high_counter = reload(old.limit_in);
        }
        if old.ev_reset {
            self.high_counter = reload(old.limit_in);
            self.low_turn = false;
            self.low_open = false;
        }
        self.limit = old.limit_in;
        self.one_packet = old.policy_in;
        self.enable = old.enable_in;

        // Configuration of this clock, sampled.
        self.ev_wr = i.wr_en;
        self.ev_wr_low = i.wr_low;
        self.ev_wr_index = i.wr_index & 0x3f;
        self.ev_wr_vl = i.wr_vl & 0xf;
        self.ev_wr_weight = i.wr_weight;
        self.ev_reset = i.reset;
        self.ev_limit = i.vl_high_limit != old.limit_in;
        self.limit_in = i.vl_high_limit;
        self.policy_in = i.one_packet;
        self.enable_in = i.vl_enable & m;
    }
}

/// `v` reduced to `bits` bits two's complement (as the Verilog's fixed-width arithmetic).
fn wrap(v: i64, bits: u32) -> i64 {
    sign_extend(v as u64 & ((1u64 << bits) - 1), bits)
}

/// The arbiter for `N` data VLs; `HL = 11 * N` (the width of `head_len`).
#[derive(LogicBlock)]
pub struct VlArbUnit<const N: usize, const HL: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub head_valid: Signal<In, Bits<N>>,
    pub head_len: Signal<In, Bits<HL>>,
    pub take: Signal<In, Bit>,
    pub wr_en: Signal<In, Bit>,
    pub wr_table: Signal<In, Bit>,
    pub wr_index: Signal<In, Bits<6>>,
    pub wr_vl: Signal<In, Bits<4>>,
    pub wr_weight: Signal<In, Bits<8>>,
    pub vl_high_limit: Signal<In, Bits<8>>,
    pub low_policy: Signal<In, Bit>,
    pub vl_enable: Signal<In, Bits<N>>,
    pub offer_valid: Signal<Out, Bit>,
    pub offer_vl: Signal<Out, Bits<4>>,
    pub offer_table: Signal<Out, Bit>,
    pub offer_entry: Signal<Out, Bits<6>>,
    pub offer_pkt_len: Signal<Out, Bits<11>>,
    pub offer_blocks: Signal<Out, Bits<8>>,
    pub offer_weight_left: Signal<Out, Bits<9>>,
    pub offer_high_counter: Signal<Out, Bits<19>>,
    regs: Opaque<Box<VlArbRegs>>,
}

impl<const N: usize, const HL: usize> Default for VlArbUnit<N, HL> {
    fn default() -> Self {
        assert!(
            VL_CAPS.contains(&N) && HL == LEN_BITS * N,
            "VlArbUnit<{N}, {HL}>: unsupported"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            head_valid: Default::default(),
            head_len: Default::default(),
            take: Default::default(),
            wr_en: Default::default(),
            wr_table: Default::default(),
            wr_index: Default::default(),
            wr_vl: Default::default(),
            wr_weight: Default::default(),
            vl_high_limit: Default::default(),
            low_policy: Default::default(),
            vl_enable: Default::default(),
            offer_valid: Default::default(),
            offer_vl: Default::default(),
            offer_table: Default::default(),
            offer_entry: Default::default(),
            offer_pkt_len: Default::default(),
            offer_blocks: Default::default(),
            offer_weight_left: Default::default(),
            offer_high_counter: Default::default(),
            regs: Opaque(Box::new(VlArbRegs::new(N))),
        }
    }
}

impl<const N: usize, const HL: usize> VlArbUnit<N, HL> {
    fn inputs(&self) -> VlArbIn {
        let w = read_words::<HL>(&self.head_len.val());
        VlArbIn {
            reset: self.reset.val(),
            head_valid: self.head_valid.val().to_u64() as u16,
            head_len: std::array::from_fn(|v| {
                if v < N {
                    field(&w, v, LEN_BITS) as u16
                } else {
                    0
                }
            }),
            take: self.take.val(),
            wr_en: self.wr_en.val(),
            wr_low: self.wr_table.val(),
            wr_index: self.wr_index.val().to_u64() as u8,
            wr_vl: self.wr_vl.val().to_u64() as u8,
            wr_weight: self.wr_weight.val().to_u64() as u8,
            vl_high_limit: self.vl_high_limit.val().to_u64() as u8,
            one_packet: self.low_policy.val(),
            vl_enable: self.vl_enable.val().to_u64() as u16,
        }
    }

    /// The registers (for tests and waveforms).
    pub fn regs(&self) -> &VlArbRegs {
        &self.regs
    }
}

impl<const N: usize, const HL: usize> Logic for VlArbUnit<N, HL> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let i = self.inputs();
            self.regs.clock_edge(&i);
        }
        // Every output is a function of the registers only.
        let o = self.regs.offer();
        self.offer_valid.next = o.offer_valid;
        self.offer_vl.next = (o.vl as u64).into();
        self.offer_table.next = o.low;
        self.offer_entry.next = (o.entry as u64).into();
        self.offer_pkt_len.next = (o.pkt_len as u64).into();
        self.offer_blocks.next = (o.blocks as u64).into();
        self.offer_weight_left.next = (o.weight_left as u64 & 0x1ff).into();
        self.offer_high_counter.next = (o.high_counter as u64 & 0x7ffff).into();
    }

    fn connect(&mut self) {
        self.offer_valid.connect();
        self.offer_vl.connect();
        self.offer_table.connect();
        self.offer_entry.connect();
        self.offer_pkt_len.connect();
        self.offer_blocks.connect();
        self.offer_weight_left.connect();
        self.offer_high_counter.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(vl_arb_verilog_body(N))
    }
}

impl<const N: usize, const HL: usize> HdlIo for VlArbUnit<N, HL> {
    type In = VlArbIn;
    type Out = VlArbOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("head_valid"),
        PortSpec::new("head_len"),
        PortSpec::new("take"),
        PortSpec::new("wr_en"),
        PortSpec::new("wr_table"),
        PortSpec::new("wr_index"),
        PortSpec::new("wr_vl"),
        PortSpec::new("wr_weight"),
        PortSpec::new("vl_high_limit"),
        PortSpec::new("low_policy"),
        PortSpec::new("vl_enable"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("offer_valid"),
        PortSpec::new("offer_vl"),
        PortSpec::new("offer_table"),
        PortSpec::new("offer_entry"),
        PortSpec::new("offer_pkt_len"),
        PortSpec::new("offer_blocks"),
        PortSpec::new("offer_weight_left"),
        PortSpec::new("offer_high_counter"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &VlArbIn) {
        let m = (1u64 << N) - 1;
        let mut w = [0u64; 3];
        pack_fields(&i.head_len[..N], LEN_BITS, &mut w);
        self.reset.next = i.reset;
        self.head_valid.next = (i.head_valid as u64 & m).into();
        self.head_len.next = bits_from_words::<HL>(&w);
        self.take.next = i.take;
        self.wr_en.next = i.wr_en;
        self.wr_table.next = i.wr_low;
        self.wr_index.next = (i.wr_index as u64 & 0x3f).into();
        self.wr_vl.next = (i.wr_vl as u64 & 0xf).into();
        self.wr_weight.next = (i.wr_weight as u64).into();
        self.vl_high_limit.next = (i.vl_high_limit as u64).into();
        self.low_policy.next = i.one_packet;
        self.vl_enable.next = (i.vl_enable as u64 & m).into();
    }
    fn sample(&self) -> VlArbOut {
        VlArbOut::from_ports(
            self.offer_valid.val(),
            self.offer_vl.val().to_u64(),
            self.offer_table.val(),
            self.offer_entry.val().to_u64(),
            self.offer_pkt_len.val().to_u64(),
            self.offer_blocks.val().to_u64(),
            self.offer_weight_left.val().to_u64(),
            self.offer_high_counter.val().to_u64(),
        )
    }
    fn pack(i: &VlArbIn, slots: &mut [u64]) {
        let m = (1u64 << N) - 1;
        let hl_slots = HL.div_ceil(64);
        slots[0] = i.reset as u64;
        slots[1] = i.head_valid as u64 & m;
        slots[2..2 + hl_slots].fill(0);
        pack_fields(&i.head_len[..N], LEN_BITS, &mut slots[2..2 + hl_slots]);
        let s = &mut slots[2 + hl_slots..];
        s[0] = i.take as u64;
        s[1] = i.wr_en as u64;
        s[2] = i.wr_low as u64;
        s[3] = i.wr_index as u64 & 0x3f;
        s[4] = i.wr_vl as u64 & 0xf;
        s[5] = i.wr_weight as u64;
        s[6] = i.vl_high_limit as u64;
        s[7] = i.one_packet as u64;
        s[8] = i.vl_enable as u64 & m;
    }
    fn unpack(slots: &[u64]) -> VlArbOut {
        VlArbOut::from_ports(
            slots[0] & 1 == 1,
            slots[1],
            slots[2] & 1 == 1,
            slots[3],
            slots[4],
            slots[5],
            slots[6],
            slots[7],
        )
    }
}

pub type VlArbVl1 = VlArbUnit<1, 11>;
pub type VlArbVl2 = VlArbUnit<2, 22>;
pub type VlArbVl4 = VlArbUnit<4, 44>;
pub type VlArbVl8 = VlArbUnit<8, 88>;
pub type VlArbVl15 = VlArbUnit<15, 165>;

/// Bits a table entry's stored VL keeps at VLCap `n`: a stored VL is below VLCap, or 15
/// for an entry that is skipped, so the bits that hold VLCap - 1 plus one bit that is set
/// only for 15 (the stored 15 has every kept bit set; the bits above copy the top one).
/// Four at VLCap 8 and 15, where 15 already needs all four.
pub const fn stored_vl_bits(n: usize) -> usize {
    let b = crate::sl2vl::stored_vl_bits(n) + 1;
    if b > 4 {
        4
    } else {
        b
    }
}

/// The module body for VLCap `n`.
pub fn vl_arb_verilog_body(n: usize) -> String {
    let vb = stored_vl_bits(n);
    let mut v = VERILOG_HEAD.to_string();
    // An entry's 4-bit VL from its VB stored bits: the bits above copy the top one.
    let widen = if vb == 4 {
        "@T@_vs[g]".to_string()
    } else {
        format!("{{{{{}{{@T@_vs[g][{}]}}}}, @T@_vs[g]}}", 4 - vb, vb - 1)
    };
    for (t, name, sel) in [("hi", "high", "1'b0"), ("lo", "low", "1'b1")] {
        v.push_str(
            &VERILOG_TABLE
                .replace("@VLWIDEN@", &widen)
                .replace("@T@", t)
                .replace("@NAME@", name)
                .replace("@SEL@", sel),
        );
    }
    v.push_str(VERILOG_TAIL);
    // The module-wide parameters, wherever the head, tables or tail use them.
    v.replace("@N@", &n.to_string()).replace("@VB@", &vb.to_string())
}

const VERILOG_HEAD: &str = r#"// Data-VL arbiter for VLCap @N@ (SPEC.md 6; seed 003). VL15 > FCP > data is the port's
// business: this block picks among data VLs, one packet per take.
//
// Cycle contract (clock t):
//   heads   an offer shown at t is decided on head_valid/head_len as sampled at t-3.
//   take    with offer_valid at t: the offered packet is the consumer's and the state
//           commits. No offer at t+1..t+3; the next at t+4 whenever an entry is
//           eligible (on heads of t+1 on: the taken VL's new head must show by t+1).
//   offer   between takes it follows the heads, three clocks late; a take commits
//           exactly the offer shown in its clock.
//   config  table writes, vl_high_limit / low_policy / vl_enable changes and reset act
//           one clock after they are presented, after a take of that same clock; no
//           offer for the 4 clocks that follow.
// Pipeline: A (t-3) ready bit per entry (and masked to the entries after the active one);
// B (t-2) the next entry of each table and which table sends; C (t-1) read the chosen
// entry (VL, index; its Weight from its table's block RAM).
// The offer's PktLen, blocks, remaining weight and HighPriCounter are a select by the
// offered VL (and one subtraction) from the C registers.
// Power-up: tables empty, VLHighLimit 0, weight policy, no VL enabled (as if those
// inputs had been 0 the clock before).
localparam VLS = @N@;
localparam VB = @VB@;      // bits of a table entry's stored VL (see the tables)
integer i;
integer v;
integer quad;

// Blocks of a packet (SPEC.md 1): ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16,
// that is PktLen / 16, plus one when PktLen mod 16 is 3 or more.
function [7:0] blocks_of;
   input [10:0] len;
   blocks_of = {1'b0, len[10:4]} + {7'd0, len[3:0] > 4'd2};
endfunction

// Of four flags, where the first set one is, and a value chosen by it, from the
// lower three flags (3, or the fourth value, when none of them is set: whether the
// fourth is set does not matter).
function [1:0] first_of4;
   input [2:0] x;
   first_of4 = x[0] ? 2'd0 : x[1] ? 2'd1 : x[2] ? 2'd2 : 2'd3;
endfunction
function [3:0] pick_of4;
   input [2:0] x;
   input [15:0] vals;
   pick_of4 = x[0] ? vals[3:0] : x[1] ? vals[7:4] : x[2] ? vals[11:8] : vals[15:12];
endfunction
// pick_of4 at 2 bits. One function for both widths (the 2-bit values padded) gave the
// same logic but Yosys mapped it slower: HX8K 93.0 against 98.3 MHz at 15 VLs.
function [1:0] pick2_of4;
   input [2:0] x;
   input [7:0] vals;
   pick2_of4 = x[0] ? vals[1:0] : x[1] ? vals[3:2] : x[2] ? vals[5:4] : vals[7:6];
endfunction
// The 4-bit value of the bank a one-hot (or zero) bank vector names.
function [3:0] bank_sel;
   input [3:0] bank;
   input [15:0] vals;
   bank_sel = ({4{bank[0]}} & vals[3:0]) | ({4{bank[1]}} & vals[7:4])
            | ({4{bank[2]}} & vals[11:8]) | ({4{bank[3]}} & vals[15:12]);
endfunction

genvar g;

// ---- Configuration as sampled; it acts one clock later ----
reg ev_wr;                 // a table write to apply
reg ev_wr_low;             //   into the low table (else the high table)
reg [5:0] ev_wr_index;
reg [3:0] ev_wr_vl_stored;  // what the write stores as the entry's VL (decided as sampled)
reg [7:0] ev_wr_weight;
reg ev_reset;
reg ev_limit;              // VLHighLimit changed: the HighPriCounter reloads
reg [7:0] limit_in;        // vl_high_limit, low_policy, vl_enable of the clock before
reg policy_in;
reg [VLS-1:0] enable_in;
// ---- Configuration in effect ----
reg [7:0] limit;           // VLHighLimit
reg one_packet;            // low_policy 1: one low-table packet per low turn
reg [VLS-1:0] enable;      // software VL enables
// ---- Arbiter state (SPEC.md 6) ----
reg signed [18:0] high_counter;  // HighPriCounter, dwords
reg low_turn;              // the low table is active
reg low_open;              // weight policy: the low turn goes on with its active entry
reg [2:0] hold;            // clocks until an offer may show again
// ---- A take, committed the clock after ----
reg t1_go;
reg t1_low;
reg signed [8:0] t1_wl;
reg signed [18:0] t1_hc;
// ---- Stage A: PktLens as sampled ----
reg [11*VLS-1:0] a_len;
// ---- Stage B ----
reg [11*VLS-1:0] b_len;
// ---- Stage C: the offer (with offer_valid, offer_table, offer_entry, offer_vl) ----
reg c_cont;                // the offered entry is the active one and goes on
reg signed [8:0] c_rem;    // the remaining weight of the offered entry's table
reg c_count;               // the packet counts against HighPriCounter
reg signed [18:0] c_counter;  // HighPriCounter after the packet when it does not count
reg [11*VLS-1:0] c_len;    // every VL's PktLen and blocks, as sampled
reg [8*VLS-1:0] c_blocks;
reg [12*VLS-1:0] c_counter_low;  // per VL: {borrow, (HighPriCounter - PktLen) mod 2048}
reg [VLS-1:0] offer_vl_hot;  // offer_vl decoded (bit v: offer_vl == v), so the offer's
                             // per-VL selects start at flip-flops, not behind a compare

initial begin
   ev_wr = 1'b0; ev_wr_low = 1'b0; ev_wr_index = 6'd0; ev_wr_vl_stored = 4'd15; ev_wr_weight = 8'd0;
   ev_reset = 1'b0; ev_limit = 1'b0; limit_in = 8'd0; policy_in = 1'b0; enable_in = {VLS{1'b0}};
   limit = 8'd0; one_packet = 1'b0; enable = {VLS{1'b0}};
   high_counter = 19'sd0; low_turn = 1'b0; low_open = 1'b0; hold = 3'd0;
   t1_go = 1'b0; t1_low = 1'b0; t1_wl = 9'sd0; t1_hc = 19'sd0;
   a_len = {11*VLS{1'b0}}; b_len = {11*VLS{1'b0}}; c_len = {11*VLS{1'b0}}; c_blocks = {8*VLS{1'b0}};
   c_counter_low = {12*VLS{1'b0}}; offer_vl_hot = {VLS{1'b0}};
   c_cont = 1'b0; c_rem = 9'sd0; c_count = 1'b0; c_counter = 19'sd0;
   offer_valid = 1'b0; offer_vl = 4'd0; offer_table = 1'b0; offer_entry = 6'd0;
end

// VLs a ready entry may name: head present with credits and enabled. Entries that can
// never send (weight 0, VL15, VL at or above VLCap) are stored with VL 15, never ready.
wire [15:0] vl_ready = {{(16-VLS){1'b0}}, head_valid & enable};
wire take_now = take & offer_valid;
wire config_now = wr_en | reset | (vl_high_limit != limit_in) | (low_policy != policy_in)
                | (vl_enable != enable_in);
wire [2:0] hold_next = config_now ? 3'd4 : take_now ? 3'd3 : (hold != 3'd0) ? hold - 3'd1 : 3'd0;
wire [18:0] reload = {1'b0, limit, 10'd0};   // VLHighLimit * 1024 dwords
wire [7:0] counter_upper_less1 = high_counter[18:11] - 8'd1;
"#;

const VERILOG_TABLE: &str = r#"
// ======== @NAME@-priority table ========
// VLArbitrationTable entries: the VL as stored, 15 if the entry is skipped; the Weights
// are in `weights` below. A stored VL is below VLCap or 15, so only its low VB bits are
// kept (VB = 1/2/3/4/4 for VLCap 1/2/4/8/15); below four, the top kept bit is set only
// for 15 and the bits above it copy it. Four bits at every VLCap were flip-flops that
// always equal the top kept bit (Yosys cannot prove it): 192/128/64 per table at VLCap 1/2/4.
reg [VB-1:0] @T@_vs [0:63];
wire [255:0] @T@_vlf;           // every entry's 4-bit VL, entry i at [4i+3:4i]
generate
   for (g = 0; g < 64; g = g + 1) begin : @T@_vl_widen
      assign @T@_vlf[4*g +: 4] = @VLWIDEN@;
   end
endgenerate
reg [7:0] @T@_w0;               // entry 0's Weight (for reset)
reg [5:0] @T@_ptr;              // active entry
reg signed [8:0] @T@_rem;       // its remaining weight (a packet may overdraw it)
reg @T@_rem_pos;                // @T@_rem > 0
reg [63:0] @T@_gt;              // entries after the active one (bit i: i > @T@_ptr)
reg [3:0] @T@_act_vl;           // the active entry's VL as stored
reg [63:0] @T@_rdy;             // stage A: entry ready
reg [63:0] @T@_rdy_gt;          // stage A: entry ready and after the active one
reg @T@_act_rdy;                // stage A: the active entry ready
// Stage B: the first ready entry after the active one, wrapping, in pieces (see below):
reg [3:0] @T@_pick_bank;        //   the bank (group of 16 entries) holding it, one-hot (0: none)
reg [15:0] @T@_pick_sub;        //   per bank, the index within it of the bank's first candidate
reg [15:0] @T@_pick_bvl;        //   per bank, that candidate's VL
reg @T@_pick_cont;              // stage B: the active entry goes on instead (weight left, ready)
initial begin
   for (i = 0; i < 64; i = i + 1) begin
      @T@_vs[i] = {VB{1'b1}};
   end
   @T@_w0 = 8'd0;
   @T@_ptr = 6'd0; @T@_rem = 9'sd0; @T@_rem_pos = 1'b0; @T@_gt = ~64'd1; @T@_act_vl = 4'd15;
   @T@_rdy = 64'd0; @T@_rdy_gt = 64'd0; @T@_act_rdy = 1'b0; @T@_pick_cont = 1'b0;
   @T@_pick_bank = 4'd0; @T@_pick_sub = 16'd0; @T@_pick_bvl = 16'd0;
end

// Stage A: the entry's VL is ready; also masked to the entries after the active one.
// (The pointer moves in the clock of a take, so it is current here for every offer that
// can be shown; the remaining weight, committed a clock later, is only needed in B.)
// The 16:1 lookup is two kept 8:1 halves, so that the mask by @T@_gt shares the last
// LUT with the halves' select instead of following it (a LUT level less).
(* keep *) wire [63:0] @T@_m8l;    // vl_ready[{0, vl[2:0]}]
(* keep *) wire [63:0] @T@_m8h;    // vl_ready[{1, vl[2:0]}]
wire [63:0] @T@_rdy_n;
generate
   for (g = 0; g < 64; g = g + 1) begin : @T@_lookup
      assign @T@_m8l[g] = vl_ready[{1'b0, @T@_vlf[4*g +: 3]}];
      assign @T@_m8h[g] = vl_ready[{1'b1, @T@_vlf[4*g +: 3]}];
      assign @T@_rdy_n[g] = @T@_vlf[4*g+3] ? @T@_m8h[g] : @T@_m8l[g];
   end
endgenerate
always @(posedge clock) begin
   @T@_rdy <= @T@_rdy_n;
   @T@_rdy_gt <= @T@_gt & @T@_rdy_n;
   @T@_act_rdy <= vl_ready[@T@_act_vl];
end

// Stage B: the model's find(): the active entry while it has weight and is ready, else
// the first ready entry after it, wrapping. The scan does not look at the remaining
// weight: whether the active entry goes on is a bit of its own, resolved in C.
// The pick is the first rdy_gt entry when there is one, else the first rdy entry. It is
// found, and registered, in pieces that C puts together with one AND-OR level: which
// group of 16 entries (a "bank") holds it, one-hot, the same prefix scan over the
// banks' ORs; and for every bank, its own first candidate's index within the bank and
// VL (only the picked bank's are used), mux trees over groups of 4 whose selects are
// the groups' ORs. The VL trees are left unkept so that ABC can merge their levels
// (kept, they cost up to 130 LUT4 more on ECP5 and ran slower). Registering the pick
// as a 64-bit one-hot put a 64-to-6 encoder in front of C's Weights read and a 64-way
// AND-OR in front of offer_vl: the ECP5 critical paths.
(* keep *) wire [15:0] @T@_a4;        // some rdy in group of 4 g
(* keep *) wire [15:0] @T@_b4;        // some rdy_gt in group of 4 g
(* keep *) wire [3:0] @T@_a16;        // some rdy in bank m
(* keep *) wire [3:0] @T@_b16;        // some rdy_gt in bank m
(* keep *) wire [3:0] @T@_pa16;       // some rdy_gt anywhere, or some rdy in an earlier bank
(* keep *) wire [3:0] @T@_pb16;       // some rdy_gt in an earlier bank
(* keep *) wire [31:0] @T@_ea;        // per group of 4: where its first rdy is
(* keep *) wire [31:0] @T@_eb;        // per group of 4: where its first rdy_gt is
wire [63:0] @T@_va;                   // per group of 4: the VL of its first rdy entry
wire [63:0] @T@_vb;                   // per group of 4: the VL of its first rdy_gt entry
wire @T@_any_gt = |@T@_b16;           // the pick is a rdy_gt entry (else it wraps)
wire [3:0] @T@_bank_n;
wire [15:0] @T@_sub_n;
wire [15:0] @T@_bvl_n;
generate
   for (g = 0; g < 16; g = g + 1) begin : @T@_scan4
      assign @T@_a4[g] = |@T@_rdy[4*g +: 4];
      assign @T@_b4[g] = |@T@_rdy_gt[4*g +: 4];
      assign @T@_ea[2*g +: 2] = first_of4(@T@_rdy[4*g +: 3]);
      assign @T@_eb[2*g +: 2] = first_of4(@T@_rdy_gt[4*g +: 3]);
      assign @T@_va[4*g +: 4] = pick_of4(@T@_rdy[4*g +: 3],
         @T@_vlf[16*g +: 16]);
      assign @T@_vb[4*g +: 4] = pick_of4(@T@_rdy_gt[4*g +: 3],
         @T@_vlf[16*g +: 16]);
   end
   for (g = 0; g < 4; g = g + 1) begin : @T@_scan16
      assign @T@_a16[g] = |@T@_a4[4*g +: 4];
      assign @T@_b16[g] = |@T@_b4[4*g +: 4];
      if (g == 0) begin : @T@_first16
         assign @T@_pa16[g] = |@T@_b16;
         assign @T@_pb16[g] = 1'b0;
      end else begin : @T@_later16
         assign @T@_pa16[g] = (|@T@_b16) | (|@T@_a16[0 +: g]);
         assign @T@_pb16[g] = |@T@_b16[0 +: g];
      end
      assign @T@_bank_n[g] = (@T@_a16[g] & ~@T@_pa16[g]) | (@T@_b16[g] & ~@T@_pb16[g]);
      // The bank's first candidate: its first group with one, then that group's own.
      wire [3:0] sa = {first_of4(@T@_a4[4*g +: 3]), pick2_of4(@T@_a4[4*g +: 3], @T@_ea[8*g +: 8])};
      wire [3:0] sb = {first_of4(@T@_b4[4*g +: 3]), pick2_of4(@T@_b4[4*g +: 3], @T@_eb[8*g +: 8])};
      wire [3:0] la = pick_of4(@T@_a4[4*g +: 3], @T@_va[16*g +: 16]);
      wire [3:0] lb = pick_of4(@T@_b4[4*g +: 3], @T@_vb[16*g +: 16]);
      assign @T@_sub_n[4*g +: 4] = @T@_any_gt ? sb : sa;
      assign @T@_bvl_n[4*g +: 4] = @T@_any_gt ? lb : la;
   end
endgenerate
// Some entry is ready; the active entry still has weight left and is ready.
wire @T@_found = |@T@_a16;
wire @T@_cont = @T@_rem_pos & @T@_act_rdy;
always @(posedge clock) begin
   @T@_pick_bank <= @T@_bank_n;
   @T@_pick_sub <= @T@_sub_n;
   @T@_pick_bvl <= @T@_bvl_n;
   @T@_pick_cont <= @T@_cont;
end

// Stage C input: the picked entry's index and VL (0 when none), and the same for the
// active entry when it goes on.
wire [5:0] @T@_scan_idx = {@T@_pick_bank[3] | @T@_pick_bank[2], @T@_pick_bank[3] | @T@_pick_bank[1],
                           bank_sel(@T@_pick_bank, @T@_pick_sub)};
wire [3:0] @T@_scan_vl = bank_sel(@T@_pick_bank, @T@_pick_bvl);
wire [5:0] @T@_e_idx = @T@_pick_cont ? @T@_ptr : @T@_scan_idx;
wire [3:0] @T@_e_vl = @T@_pick_cont ? @T@_act_vl : @T@_scan_vl;

// A take moves the pointer at once (the offered entry becomes the active one); its
// remaining weight is committed the clock after (t1_*); configuration of the clock of
// the take acts after that: a write, then reset. (No take can come in the clock a
// configuration change acts: offers are held off.)
wire @T@_take = take_now & (offer_table == @SEL@);
wire @T@_commit = t1_go & (t1_low == @SEL@);
wire @T@_wr = ev_wr & (ev_wr_low == @SEL@);
// A write to the active entry reloads its remaining weight (the model's write_entry).
wire @T@_wr_active = @T@_wr & (ev_wr_index == @T@_ptr);
wire [7:0] @T@_w0_n = (@T@_wr && ev_wr_index == 6'd0) ? ev_wr_weight : @T@_w0;
wire [3:0] @T@_vl0_n = (@T@_wr && ev_wr_index == 6'd0) ? ev_wr_vl_stored : @T@_vlf[3:0];
always @(posedge clock) begin
   if (@T@_wr) @T@_vs[ev_wr_index] <= ev_wr_vl_stored[VB-1:0];
   @T@_w0 <= @T@_w0_n;
   if (ev_reset) begin
      @T@_ptr <= 6'd0;
      @T@_gt <= ~64'd1;
      @T@_act_vl <= @T@_vl0_n;
   end else if (@T@_wr_active) begin
      @T@_act_vl <= ev_wr_vl_stored;
   end else if (@T@_take) begin
      @T@_ptr <= offer_entry;
      @T@_gt <= ~64'd1 << offer_entry;
      @T@_act_vl <= offer_vl;
   end
   if (ev_reset) begin
      @T@_rem <= $signed({1'b0, @T@_w0_n});
      @T@_rem_pos <= |@T@_w0_n;
   end else if (@T@_wr_active) begin
      @T@_rem <= $signed({1'b0, ev_wr_weight});
      @T@_rem_pos <= |ev_wr_weight;
   end else if (@T@_commit) begin
      @T@_rem <= t1_wl;
      @T@_rem_pos <= ~t1_wl[8] & (|t1_wl);
   end
end

// The table's Weights (block RAM on iCE40): the picked entry's Weight is read at the end
// of stage C and shows during the offer. One RAM per table, so that the read address is
// the table's own pick (the table choice selects the read data instead). The address is
// the scan's pick even when the active entry goes on: the offer then uses the remaining
// weight (c_cont), never this read, so pick_cont stays off the address.
reg [7:0] @T@_weights [0:63];
reg [7:0] @T@_weight_q;
initial begin
   for (i = 0; i < 64; i = i + 1) @T@_weights[i] = 8'd0;
   @T@_weight_q = 8'd0;
end
always @(posedge clock) begin
   if (@T@_wr) @T@_weights[ev_wr_index] <= ev_wr_weight;
   @T@_weight_q <= @T@_weights[@T@_scan_idx];
end
"#;

const VERILOG_TAIL: &str = r#"
// ======== Stage B: choose the table (the model's grant(), SPEC.md 6) ========
// A low turn under the weight policy goes on with its active entry while it can.
wire lo_continues = low_turn & low_open & lo_cont;
// The high table's turn (or a low turn that has just ended).
wire high_first = ~low_turn | low_open;
// High first: the low table only when the high table has nothing (the counter reloads).
// A fresh low turn: the high table only when the low table has nothing.
wire pick_low = lo_continues | (high_first ? ~hi_found : lo_found);
reg b_any;                 // some entry of either table is ready
reg b_low;                 // the low table sends
reg b_reload;              // a low packet because the high table had nothing: the counter reloads
initial begin
   b_any = 1'b0; b_low = 1'b0; b_reload = 1'b0;
end
always @(posedge clock) begin
   b_any <= hi_found | lo_found;
   b_low <= pick_low;
   b_reload <= pick_low & ~lo_continues & high_first & ~hi_found;
end

// ======== Stage C: read the chosen entry ========
wire [3:0] pick_vl = b_low ? lo_e_vl : hi_e_vl;
wire [5:0] pick_idx = b_low ? lo_e_idx : hi_e_idx;

// The offered entry's Weight, read from its table's RAM at the end of stage C.
wire [7:0] offer_weight = offer_table ? lo_weight_q : hi_weight_q;

always @(posedge clock) begin
   offer_valid <= b_any & (hold_next == 3'd0);
   offer_table <= b_low;
   offer_entry <= pick_idx;
   offer_vl <= pick_vl;
   for (v = 0; v < VLS; v = v + 1) offer_vl_hot[v] <= pick_vl == v[3:0];
   // The entry's weight before this packet: what is left while the active entry goes
   // on, else its Weight reloaded (offer_weight).
   c_cont <= b_low ? lo_pick_cont : hi_pick_cont;
   c_rem <= b_low ? lo_rem : hi_rem;
   // HighPriCounter once the packet is sent: a high packet counts its PktLen (not under
   // VLHighLimit 255, c_count); a low packet leaves it, reloaded if the high table had
   // nothing.
   c_count <= ~b_low & (limit != 8'd255);
   c_counter <= b_reload ? $signed(reload) : high_counter;
   for (v = 0; v < VLS; v = v + 1) begin
      c_blocks[8*v +: 8] <= blocks_of(b_len[11*v +: 11]);
      // The low 11 bits of HighPriCounter - PktLen for every VL, and the borrow.
      c_counter_low[12*v +: 12] <= {1'b0, high_counter[10:0]} - {1'b0, b_len[11*v +: 11]};
   end
   c_len <= b_len;
   b_len <= a_len;
   a_len <= head_len;
   hold <= hold_next;
end

// ======== The offer: the offered VL's numbers ========
// Every VL's {low bits of HighPriCounter - PktLen, blocks, PktLen}, selected by
// offer_vl_hot: first per group of 4 VLs, kept as LUT boundaries so the select is a
// balanced tree (a group, then an OR over the groups) and not the chain of ORs the
// mapper otherwise builds in front of offer_weight_left's subtraction. (Kept per pair
// of VLs instead, Yosys mapped the ECP5 15-VL, 64-bit port with 18214 LUT4, not 13744.)
localparam QUADS = (VLS + 3) / 4;
wire [31*VLS-1:0] per_vl;
(* keep *) wire [31*QUADS-1:0] quad_sel;
generate
   for (g = 0; g < VLS; g = g + 1) begin : g_per_vl
      assign per_vl[31*g +: 31] = {c_counter_low[12*g +: 12], c_blocks[8*g +: 8], c_len[11*g +: 11]};
   end
   for (g = 0; g < QUADS; g = g + 1) begin : g_quad
      reg [30:0] q;
      integer k;
      always @(*) begin
         q = 31'd0;
         for (k = 4*g; k < 4*g + 4 && k < VLS; k = k + 1)
            q = q | ({31{offer_vl_hot[k]}} & per_vl[31*k +: 31]);
      end
      assign quad_sel[31*g +: 31] = q;
   end
endgenerate
reg [11:0] counter_low;
// HighPriCounter's upper bits when the packet causes no borrow (or does not count).
wire [7:0] counter_upper_kept = c_count ? high_counter[18:11] : c_counter[18:11];
always @(*) begin
   {counter_low, offer_blocks, offer_pkt_len} = 31'd0;
   // Its own loop variable: v is the clocked blocks' (one variable in both kinds of block
   // is a register with two drivers to Yosys's check).
   for (quad = 0; quad < QUADS; quad = quad + 1)
      {counter_low, offer_blocks, offer_pkt_len} = {counter_low, offer_blocks, offer_pkt_len} | quad_sel[31*quad +: 31];
   // The entry's weight once this packet is sent (may go negative).
   offer_weight_left = (c_cont ? c_rem : $signed({1'b0, offer_weight})) - $signed({1'b0, offer_blocks});
   // HighPriCounter's upper bits: the borrow selects last, so behind the select there is
   // one LUT (borrow, c_count, counter_upper_less1, counter_upper_kept).
   offer_high_counter[18:11] = (c_count & counter_low[11]) ? counter_upper_less1 : counter_upper_kept;
   offer_high_counter[10:0] = c_count ? counter_low[10:0] : c_counter[10:0];
end

// ======== Take, commit, configuration ========
always @(posedge clock) begin
   t1_go <= take_now;
   t1_low <= offer_table;
   t1_wl <= offer_weight_left;
   t1_hc <= offer_high_counter;
   // The take of the clock before (SPEC.md 6).
   if (t1_go) begin
      if (!t1_low) begin
         // A high packet: once the counter is negative it reloads and the low table
         // becomes active.
         high_counter <= t1_hc[18] ? $signed(reload) : t1_hc;
         low_turn <= t1_hc[18];
         low_open <= 1'b0;
      end else begin
         // A low packet: the turn is over after one packet (one-packet policy) or when
         // the entry's weight is exhausted.
         high_counter <= t1_hc;
         low_turn <= ~(one_packet | t1_wl[8] | ~(|t1_wl));
         low_open <= ~(one_packet | t1_wl[8] | ~(|t1_wl));
      end
   end
   // Configuration sampled the clock before, after the take.
   if (ev_limit) high_counter <= $signed({1'b0, limit_in, 10'd0});
   if (ev_reset) begin
      high_counter <= $signed({1'b0, limit_in, 10'd0});
      low_turn <= 1'b0;
      low_open <= 1'b0;
   end
   limit <= limit_in;
   one_packet <= policy_in;
   enable <= enable_in;
   // This clock's configuration, sampled.
   ev_wr <= wr_en;
   ev_wr_low <= wr_table;
   ev_wr_index <= wr_index;
   // Whether the entry can send is decided here, as the write is sampled, so that the
   // Weight compare is not in front of the table and act_vl (ECP5's critical path at
   // VLCap 1, 2 and 4 when it was decided from the sampled write).
   ev_wr_vl_stored <= (wr_weight != 8'd0 && wr_vl < 4'd@N@) ? wr_vl : 4'd15;
   ev_wr_weight <= wr_weight;
   ev_reset <= reset;
   ev_limit <= vl_high_limit != limit_in;
   limit_in <= vl_high_limit;
   policy_in <= low_policy;
   enable_in <= vl_enable;
end
"#;

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
        let o = VlArbOut::from_ports(
            true,
            7,
            false,
            2,
            1024,
            64,
            0x1ff & (-62i64 as u64),
            0x7ffff & (-1024i64 as u64),
        );
        assert_eq!((o.weight_left, o.high_counter), (-62, -1024));
        assert_eq!(
            VlArbOut::from_ports(false, 7, true, 2, 1, 1, 1, 1),
            VlArbOut::default()
        );
    }
}
