//! The data-VL arbiter's testbench: random traffic, table writes in traffic, VLHighLimit,
//! policy and enable changes and resets in lockstep, coverage counted from the model's
//! state, the inputs and the grants.

use crate::blocks::vl_arb::{vl_arb_sim, ArbCycleModel, VlArbStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_model::arbiter::{TableId, HIGH_LIMIT_UNBOUNDED};
use iblink_rtl::vl_arb::{VlArbIn, VlArbOut, TAKE_GAP};

pub const PARAMS: &[ParamSpec] = &[ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" }];

/// The lockstep test's seed at VLCap `vls`.
pub fn seed(vls: usize) -> u64 {
    0xa4b0 + vls as u64
}

/// What the stimulus exercised, from the model's state, inputs and grants.
#[derive(Default, Debug)]
pub struct Counts {
    pub high_grants: u64,
    pub low_grants: u64,
    /// A high packet drove the HighPriCounter negative: the low table's turn.
    pub switch_by_counter: u64,
    /// The high table's turn, but nothing eligible there: a low packet.
    pub switch_by_no_eligible: u64,
    /// A low packet right after a low packet from the same entry (weight policy).
    pub low_turn_runs: u64,
    pub one_packet_low_grants: u64,
    pub overdrawn: u64,
    pub limit0_grants: u64,
    pub limit255_grants: u64,
    /// Takes at the first clock an offer can show after the previous take.
    pub earliest_takes: u64,
    /// Table writes while an offer was shown or within 8 clocks of a take.
    pub writes_in_traffic: u64,
    /// Writes to the active entry of their table (its remaining weight reloads).
    pub writes_to_active: u64,
    /// Writes naming VL15 or a VL at or above VLCap with a weight (skipped entries).
    pub writes_unusable_vl: u64,
    /// Clocks with no offer, no holdoff: nothing eligible.
    pub idle: u64,
    /// Clocks an offer was shown but not taken.
    pub offers_waiting: u64,
    pub limit_changes: u64,
    pub policy_changes: u64,
    pub enable_changes: u64,
    pub resets: u64,
}

pub struct Coverage {
    inner: ArbCycleModel,
    pub c: Counts,
    clock: u64,
    last_take: Option<u64>,
    last_config: Option<u64>,
    prev: VlArbIn,
    prev_grant: Option<(TableId, u8)>,
}

impl Coverage {
    pub fn new(vls: usize) -> Self {
        Self { inner: ArbCycleModel::new(vls), c: Counts::default(), clock: 0, last_take: None, last_config: None, prev: VlArbIn::default(), prev_grant: None }
    }
}

impl CycleSim for Coverage {
    type In = VlArbIn;
    type Out = VlArbOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &VlArbIn) -> VlArbOut {
        let vls = self.inner.vls();
        let a = self.inner.arbiter();
        let before_active = a.active();
        let limit = a.vl_high_limit();
        if i.wr_en {
            let t = if i.wr_low { TableId::Low } else { TableId::High };
            self.c.writes_to_active += (a.pointer(t).0 == i.wr_index & 0x3f) as u64;
            self.c.writes_unusable_vl += (i.wr_weight != 0 && i.wr_vl as usize >= vls) as u64;
        }
        let o = self.inner.step(i);
        let recent_take = self.last_take.is_some_and(|t| self.clock - t < 8);
        if i.wr_en && (o.offer_valid || recent_take) {
            self.c.writes_in_traffic += 1;
        }
        let quiet = self.last_take.is_none_or(|t| self.clock - t >= 4) && self.last_config.is_none_or(|t| self.clock - t >= 5);
        self.c.idle += (quiet && !o.offer_valid) as u64;
        self.c.offers_waiting += (o.offer_valid && !i.take) as u64;
        if let Some(g) = self.inner.committed() {
            match g.table {
                TableId::High => {
                    self.c.high_grants += 1;
                    self.c.switch_by_counter += (g.high_counter < 0) as u64;
                    self.c.limit0_grants += (limit == 0) as u64;
                    self.c.limit255_grants += (limit == HIGH_LIMIT_UNBOUNDED) as u64;
                }
                TableId::Low => {
                    self.c.low_grants += 1;
                    self.c.switch_by_no_eligible += (before_active == TableId::High) as u64;
                    self.c.low_turn_runs += (self.prev_grant == Some((TableId::Low, g.entry))) as u64;
                    self.c.one_packet_low_grants += self.prev.one_packet as u64;
                }
            }
            self.c.overdrawn += (g.weight_left < 0) as u64;
            self.c.earliest_takes += self.last_take.is_some_and(|t| self.clock - t == TAKE_GAP as u64) as u64;
            self.last_take = Some(self.clock);
            self.prev_grant = Some((g.table, g.entry));
        }
        let m = ((1u32 << vls) - 1) as u16;
        let limit_change = i.vl_high_limit != self.prev.vl_high_limit;
        let policy_change = i.one_packet != self.prev.one_packet;
        let enable_change = i.vl_enable & m != self.prev.vl_enable & m;
        self.c.limit_changes += limit_change as u64;
        self.c.policy_changes += policy_change as u64;
        self.c.enable_changes += enable_change as u64;
        self.c.resets += i.reset as u64;
        if i.wr_en || i.reset || limit_change || policy_change || enable_change {
            self.last_config = Some(self.clock);
        }
        self.prev = *i;
        self.clock += 1;
        o
    }
}

pub fn run(vls: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run("vl_arb", o, || Coverage::new(vls), |b, vcd| vl_arb_sim(vls, b, vcd), || VlArbStimulus::new(vls, seed), |s, _| endless(s), None)?;
    Ok(out.report(format!("vl_arb VLCap {vls}"), seed, |m, _, n| {
        let c = &m.c;
        let mut g = vec![
            Gate::more_than("grants", c.high_grants + c.low_grants, n / 40),
            Gate::more_than("high-table grants", c.high_grants, n / 100),
            Gate::more_than("low-table grants", c.low_grants, n / 100),
            Gate::more_than("switches by the HighPriCounter", c.switch_by_counter, 1000),
            Gate::more_than("switches with nothing eligible high", c.switch_by_no_eligible, 1000),
            Gate::more_than("low grants from the same entry in a row", c.low_turn_runs, 1000),
            Gate::more_than("low grants under the one-packet policy", c.one_packet_low_grants, 1000),
            Gate::more_than("overdrawn weights", c.overdrawn, 1000),
            Gate::more_than("grants at VLHighLimit 0", c.limit0_grants, 100),
            Gate::more_than("grants at VLHighLimit 255", c.limit255_grants, 100),
            Gate::more_than("takes at the earliest clock", c.earliest_takes, 1000),
            Gate::more_than("table writes in traffic", c.writes_in_traffic, 1000),
            Gate::more_than("writes to the active entry", c.writes_to_active, 200),
        ];
        if vls < 15 {
            g.push(Gate::more_than("writes naming an unusable VL", c.writes_unusable_vl, 100));
        } else {
            g.push(Gate::info("writes naming an unusable VL", c.writes_unusable_vl));
        }
        g.extend([
            Gate::more_than("idle clocks (nothing eligible)", c.idle, n / 100),
            Gate::more_than("clocks an offer waited", c.offers_waiting, n / 100),
            Gate::more_than("VLHighLimit changes", c.limit_changes, 50),
            Gate::more_than("policy changes", c.policy_changes, 50),
            Gate::at_least("resets", c.resets, 5),
        ]);
        if vls > 1 {
            g.push(Gate::more_than("VL enable changes", c.enable_changes, 50));
        } else {
            g.push(Gate::info("VL enable changes", c.enable_changes));
        }
        g
    }))
}
