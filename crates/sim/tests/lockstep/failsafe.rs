//! Failsafe: reference model (driven as the port model drives it), Rust twin and
//! Verilator in lockstep on random stimulus for every VLCap, with coverage counted from
//! the model's state; and directed tests whose expected clocks come from the model's own
//! worked examples and docs/spec.md §8.

use iblink_model::failsafe::ResyncReason;
use iblink_rtl::failsafe::{
    spec_period_clocks, FailsafeIn, FailsafeOut, REASON_NO_FC_UPDATE, REASON_OVERRUN, RESYNC_LATENCY,
};
use iblink_sim::blocks::failsafe::{failsafe_sim, FailsafeModelSim, FailsafeSim, FailsafeStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

/// Verilator builds one at a time (two test threads would compile at once on 2 cores).
static BUILD: Mutex<()> = Mutex::new(());

fn sim(vls: usize, b: Backend) -> FailsafeSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    failsafe_sim(vls, b, None).unwrap()
}

/// What the stimulus exercised, counted from the model's state before and after each
/// clock (so from the reference, not from the RTL).
#[derive(Debug, Default)]
struct Tally {
    trips_update: u64,
    trips_overrun: u64,
    trips_update_vl: [u64; 15],
    trips_overrun_vl: [u64; 15],
    /// An FCP in the last clock that avoids the update-monitor trip.
    update_near_miss: u64,
    /// A period ending with exactly `overrun_periods` consecutive overrun periods behind
    /// it and no overrun in it (the run stops one short of the trip).
    overrun_near_miss: u64,
    /// Clocks with the monitor off and some VL without an FCP for more than 3 periods.
    monitor_off_silent: u64,
    /// Update trips where two or more VLs trip in the same clock (VL priority).
    update_multi_vl: u64,
    /// Update trips in a clock where an overrun trip is also due (reason priority).
    both_reasons: u64,
    /// Trips in a clock that starts from the reset state (a reset or the clock after a
    /// trip): only period 1 with overrun threshold 0 does it.
    trips_from_reset: u64,
    /// Trips with a threshold of 256 or more (the counters' high bits).
    trips_big_threshold: u64,
    resets: u64,
    /// Clocks with the spec's period (16384 or 8192) configured, and trips in them.
    spec_period_clocks: u64,
    spec_period_trips: u64,
    /// Clocks with a trip reported by the outputs.
    resync_req: u64,
}

struct Coverage {
    inner: FailsafeModelSim,
    t: Tally,
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

fn run_random(vls: usize) {
    let mut model = Coverage {
        inner: FailsafeModelSim::new(vls),
        t: Tally::default(),
    };
    let mut rtl = sim(vls, Backend::Rtl);
    let mut vl = sim(vls, Backend::Verilator);
    let n = lockstep::cycles() as usize;
    let mut stim = FailsafeStimulus::new(vls, 0x777 + vls as u64);
    let report = lockstep(&mut [&mut model, rtl.as_mut(), vl.as_mut()], stim.by_ref().take(n))
        .unwrap_or_else(|m| panic!("failsafe VLCap {vls}: {m}"));
    assert_eq!(report.cycles, n as u64);
    let t = &model.t;
    let s = stim.stats;
    eprintln!("failsafe VLCap {vls}: {n} cycles, 0 mismatches; {t:?}; stimulus {s:?}");
    let k = (n / 1_000_000).max(1) as u64;
    for (what, got, min) in [
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
    ] {
        assert!(got >= min, "VLCap {vls}: too few {what}: {got} < {min}");
    }
    if vls > 1 {
        assert!(t.update_multi_vl >= 5 * k, "VLCap {vls}: too few multi-VL update trips: {}", t.update_multi_vl);
    }
    // Every VL trips for each reason on its own (the stimulus gives each VL turns at
    // being the silent one; the lowest VL wins when several trip at once).
    for v in 0..vls {
        assert!(t.trips_update_vl[v] >= 1, "VLCap {vls}: VL {v} update trips {}", t.trips_update_vl[v]);
        assert!(t.trips_overrun_vl[v] >= 1, "VLCap {vls}: VL {v} overrun trips {}", t.trips_overrun_vl[v]);
    }
    // Every trip is reported once, RESYNC_LATENCY clocks later (the last ones may fall
    // past the end of the run).
    let trips = t.trips_update + t.trips_overrun;
    assert!(t.resync_req <= trips && t.resync_req + RESYNC_LATENCY as u64 >= trips);
}

#[test]
fn lockstep_vl1_vl2() {
    for vls in [1, 2] {
        run_random(vls);
    }
}

#[test]
fn lockstep_vl4() {
    run_random(4);
}

#[test]
fn lockstep_vl8() {
    run_random(8);
}

#[test]
fn lockstep_vl15() {
    run_random(15);
}

/// Drive `inputs` through every back end in lockstep, returning the model's outputs.
fn drive(vls: usize, inputs: &[FailsafeIn]) -> Vec<FailsafeOut> {
    let mut sims: Vec<FailsafeSim> = Backend::ALL.iter().map(|b| sim(vls, *b)).collect();
    let mut outs = Vec::with_capacity(inputs.len());
    for (clk, i) in inputs.iter().enumerate() {
        let o: Vec<FailsafeOut> = sims.iter_mut().map(|s| s.step(i)).collect();
        for (s, x) in sims.iter().zip(&o) {
            assert_eq!(*x, o[0], "clock {clk}: {} differs from {} on {i:?}", s.backend(), sims[0].backend());
        }
        outs.push(o[0]);
    }
    outs
}

fn cfg(period: u16, update: u16, overrun: u16) -> FailsafeIn {
    FailsafeIn {
        period_clocks: period,
        update_periods: update,
        overrun_periods: overrun,
        ..Default::default()
    }
}

fn pulses(outs: &[FailsafeOut]) -> Vec<usize> {
    (0..outs.len()).filter(|&c| outs[c].resync_req).collect()
}

/// The model's own example (failsafe.rs): period 10, update monitor 3; FCPs only on VL 0
/// every 5 clocks. VL 1 has had none for 30 clocks after clock 30 (3 periods, not more);
/// clock 31's tick trips (the model's 31st tick), shown RESYNC_LATENCY clocks later.
#[test]
fn update_monitor_trips_after_n_periods_without_fcp() {
    let mut inp = Vec::new();
    // Clock 0 is the reset (the model's first tick).
    for t in 1..=40 {
        let mut i = cfg(10, 3, 100);
        i.reset = t == 1;
        if t % 5 == 0 {
            i.upd_valid = true;
            i.upd_vl = 0;
        }
        inp.push(i);
    }
    let outs = drive(2, &inp);
    // Tick 31 is input index 30.
    assert_eq!(pulses(&outs), [30 + RESYNC_LATENCY]);
    let o = outs[30 + RESYNC_LATENCY];
    assert_eq!((o.resync_reason, o.resync_vl), (REASON_NO_FC_UPDATE, 1));
    // fcp_late: VL 1 late once its count passed 10 (tick 11 shows from index 11).
    assert_eq!(outs[10].fcp_late, 0);
    assert_eq!(outs[11].fcp_late, 0b10);
}

/// The model's own example: period 10, overrun threshold 2; an overrun on VL 1 in
/// periods 0, 2, 3, 4. Period 1 breaks the run; periods 2, 3, 4 are three in a row,
/// more than 2: the trip is at the end of period 4 (tick 50).
#[test]
fn overrun_threshold_needs_more_than_n_consecutive_periods() {
    let mut inp = Vec::new();
    for period in 0..6 {
        for clk in 0..10 {
            let mut i = cfg(10, 0, 2);
            i.reset = period == 0 && clk == 0;
            if clk == 3 && period != 1 && period < 5 {
                i.overrun = true;
                i.overrun_vl = 1;
            }
            inp.push(i);
        }
    }
    let outs = drive(4, &inp);
    assert_eq!(pulses(&outs), [49 + RESYNC_LATENCY]);
    let o = outs[49 + RESYNC_LATENCY];
    assert_eq!((o.resync_reason, o.resync_vl), (REASON_OVERRUN, 1));
    // Sticky within a period, cleared at its end; the run shows from period 2's end.
    assert_eq!(outs[4].overrun_seen, 0b10);
    assert_eq!(outs[9].overrun_seen, 0b10);
    assert_eq!(outs[10].overrun_seen, 0);
    assert_eq!(outs[10].overrun_run, 0b10);
    assert_eq!(outs[20].overrun_run, 0);
    assert_eq!(outs[30].overrun_run, 0b10);
    // The clock after the trip shows the state that tripped; the next, the reset state.
    assert_eq!(outs[50].overrun_run, 0b10);
    assert_eq!(outs[51].overrun_run, 0);
}

/// docs/spec.md §8 at the spec's period (§5: 65536 / 4 = 16384 clocks at 32 bits): with the
/// monitor at 1 period, a VL that gets an FCP exactly every 16384 clocks never trips,
/// one clock later trips; the monitor at 0 never trips.
#[test]
fn spec_period_edge() {
    let p = spec_period_clocks(32);
    assert_eq!(p, 16384);
    for (update, gap, trips) in [(1u16, 16384usize, false), (1, 16385, true), (0, 40000, false)] {
        let mut inp = Vec::new();
        let mut i = cfg(p, update, 5);
        i.reset = true;
        inp.push(i);
        for t in 1..3 * 16384 + 10 {
            let mut i = cfg(p, update, 5);
            i.upd_valid = t % gap == 0;
            inp.push(i);
        }
        let outs = drive(1, &inp);
        // With a gap one too long: the reset clock's count is 1, so clock 16384 starts
        // at 16384 (the limit) and, with no FCP in it, its tick passes the limit.
        let want = trips.then_some(16384 + RESYNC_LATENCY);
        assert_eq!(pulses(&outs).first().copied(), want, "update {update} gap {gap}");
    }
}
