//! The failsafe's testbench: epochs of random configurations, FCPs and overruns aimed at
//! the thresholds' edges, in lockstep; coverage counted from the model's state before and
//! after each clock (so from the reference, not from the RTL).

use crate::blocks::failsafe::{failsafe_sim, FailsafeModelSim, FailsafeStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_model::failsafe::ResyncReason;
use iblink_rtl::failsafe::{spec_period_clocks, FailsafeIn, FailsafeOut, RESYNC_LATENCY};

pub const PARAMS: &[ParamSpec] = &[ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" }];

/// The lockstep test's seed at VLCap `vls`.
pub fn seed(vls: usize) -> u64 {
    0x777 + vls as u64
}

/// What the stimulus exercised, counted from the model's state before and after each
/// clock.
#[derive(Debug, Default)]
pub struct Tally {
    pub trips_update: u64,
    pub trips_overrun: u64,
    pub trips_update_vl: [u64; 15],
    pub trips_overrun_vl: [u64; 15],
    /// An FCP in the last clock that avoids the update-monitor trip.
    pub update_near_miss: u64,
    /// A period ending with exactly `overrun_periods` consecutive overrun periods behind
    /// it and no overrun in it (the run stops one short of the trip).
    pub overrun_near_miss: u64,
    /// Clocks with the monitor off and some VL without an FCP for more than 3 periods.
    pub monitor_off_silent: u64,
    /// Update trips where two or more VLs trip in the same clock (VL priority).
    pub update_multi_vl: u64,
    /// Update trips in a clock where an overrun trip is also due (reason priority).
    pub both_reasons: u64,
    /// Trips in a clock that starts from the reset state (a reset or the clock after a
    /// trip): only period 1 with overrun threshold 0 does it.
    pub trips_from_reset: u64,
    /// Trips with a threshold of 256 or more (the counters' high bits).
    pub trips_big_threshold: u64,
    pub resets: u64,
    /// Clocks with the spec's period (16384 or 8192) configured, and trips in them.
    pub spec_period_clocks: u64,
    pub spec_period_trips: u64,
    /// Clocks with a trip reported by the outputs.
    pub resync_req: u64,
}

pub struct Coverage {
    inner: FailsafeModelSim,
    pub t: Tally,
}

impl CycleSim for Coverage {
    type In = FailsafeIn;
    type Out = FailsafeOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &FailsafeIn) -> FailsafeOut {
        let n = self.inner.vls();
        let t = &mut self.t;
        let pre = if i.reset { None } else { self.inner.model().copied() };
        let fresh_start = pre.is_none_or(|f| (0..n as u8).all(|v| f.clocks_since_fcp(v) == 0));
        let spec = [spec_period_clocks(32), spec_period_clocks(64)].contains(&i.period_clocks);
        t.spec_period_clocks += spec as u64;
        t.resets += i.reset as u64;
        let upd = |v: usize| i.upd_valid && i.upd_vl as usize == v;
        let ovr = |v: usize| i.overrun && i.overrun_vl as usize == v;
        let mut update_due = 0;
        let mut overrun_due = false;
        if let Some(f) = pre {
            let c = f.config();
            let limit = c.update_periods * c.period_clocks;
            let period_end = f.period_timer() + 1 >= c.period_clocks;
            for v in 0..n {
                let since = f.clocks_since_fcp(v as u8);
                if c.update_periods > 0 && since == limit {
                    if upd(v) {
                        t.update_near_miss += 1;
                    } else {
                        update_due += 1;
                    }
                }
                if c.update_periods == 0 && since > 3 * c.period_clocks {
                    t.monitor_off_silent += 1;
                }
                let consec = f.consecutive_overrun_periods(v as u8);
                let seen = f.overrun_mask() >> v & 1 == 1 || ovr(v);
                if period_end && consec == c.overrun_periods {
                    if seen {
                        overrun_due = true;
                    } else if c.overrun_periods > 0 {
                        t.overrun_near_miss += 1;
                    }
                }
            }
        }
        let o = self.inner.step(i);
        t.resync_req += o.resync_req as u64;
        if let Some(r) = self.inner.last_tick() {
            let c = self.inner.model().unwrap().config();
            t.trips_from_reset += fresh_start as u64;
            t.spec_period_trips += spec as u64;
            match r {
                ResyncReason::NoFcUpdate { vl } => {
                    t.trips_update += 1;
                    t.trips_update_vl[vl as usize] += 1;
                    t.update_multi_vl += (update_due >= 2) as u64;
                    t.both_reasons += overrun_due as u64;
                    t.trips_big_threshold += (c.update_periods >= 256) as u64;
                }
                ResyncReason::OverrunThreshold { vl } => {
                    t.trips_overrun += 1;
                    t.trips_overrun_vl[vl as usize] += 1;
                    t.trips_big_threshold += (c.overrun_periods >= 256) as u64;
                }
            }
        }
        o
    }
}

pub fn run(vls: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "failsafe",
        o,
        || Coverage { inner: FailsafeModelSim::new(vls), t: Tally::default() },
        |b, vcd| failsafe_sim(vls, b, vcd),
        || FailsafeStimulus::new(vls, seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("failsafe VLCap {vls}"), seed, |m, stim, n| {
        let t = &m.t;
        let s = stim.stats;
        let k = (n / 1_000_000).max(1);
        let mut g: Vec<Gate> = [
            ("update-monitor trips", t.trips_update, 1000 * k),
            ("overrun-threshold trips", t.trips_overrun, 1000 * k),
            ("update near misses", t.update_near_miss, 200 * k),
            ("overrun near misses", t.overrun_near_miss, 200 * k),
            ("clocks with the monitor off and a silent VL", t.monitor_off_silent, 2_000 * k),
            ("update trips with a second reason due", t.both_reasons, 5 * k),
            ("trips from the reset state", t.trips_from_reset, 5 * k),
            ("trips with a threshold >= 256", t.trips_big_threshold, 2 * k),
            ("clocks at the spec period", t.spec_period_clocks, 10_000 * k),
            ("trips at the spec period", t.spec_period_trips, 2 * k),
            ("resets", t.resets, 100 * k),
            ("held resets", s.held_resets, 10 * k),
            ("junk strobes", s.junk_strobes, 1000 * k),
        ]
        .into_iter()
        .map(|(what, got, min)| Gate::at_least(what, got, min))
        .collect();
        if vls > 1 {
            g.push(Gate::at_least("multi-VL update trips", t.update_multi_vl, 5 * k));
        } else {
            g.push(Gate::info("multi-VL update trips", t.update_multi_vl));
        }
        // Every VL trips for each reason on its own (the stimulus gives each VL turns at
        // being the silent one; the lowest VL wins when several trip at once).
        for v in 0..vls {
            g.push(Gate::at_least(format!("VL {v} update trips"), t.trips_update_vl[v], 1));
            g.push(Gate::at_least(format!("VL {v} overrun trips"), t.trips_overrun_vl[v], 1));
        }
        // Every trip is reported once, RESYNC_LATENCY clocks later (the last ones may fall
        // past the end of the run).
        let trips = t.trips_update + t.trips_overrun;
        g.push(Gate::at_most("trips reported (resync_req)", t.resync_req, trips));
        g.push(Gate::at_least("trips reported + RESYNC_LATENCY", t.resync_req + RESYNC_LATENCY as u64, trips).invariant());
        g
    }))
}
