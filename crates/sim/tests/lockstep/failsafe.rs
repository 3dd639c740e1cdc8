//! Failsafe: reference model (driven as the port model drives it), Rust twin and
//! Verilator in lockstep on random stimulus for every VLCap, with coverage counted from
//! the model's state; and directed tests whose expected clocks come from the model's own
//! worked examples and docs/spec.md §8.

use iblink_rtl::failsafe::{spec_period_clocks, FailsafeIn, FailsafeOut, REASON_NO_FC_UPDATE, REASON_OVERRUN, RESYNC_LATENCY};
use iblink_sim::blocks::failsafe::{failsafe_sim, FailsafeSim};
use iblink_sim::blocks::Backend;
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

/// Verilator builds one at a time (two test threads would compile at once on 2 cores).
static BUILD: Mutex<()> = Mutex::new(());

fn sim(vls: usize, b: Backend) -> FailsafeSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    failsafe_sim(vls, b, None).unwrap()
}

/// The random lockstep at VLCap `vls` with its coverage gates (`iblink_sim::tb::failsafe`).
fn run_random(vls: usize) {
    let n = lockstep::cycles();
    tb::failsafe::run(vls, tb::failsafe::seed(vls), &TbOptions::test(n)).unwrap().assert_passed(n);
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
