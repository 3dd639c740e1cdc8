//! The failsafe inside the link port (docs/spec.md §8): with no FCP arriving, the FC-update
//! monitor requests a resync at the clock the reference model's `Failsafe` trips (plus the
//! block's documented latency), for thresholds written through the configuration
//! registers; the monitor set to 0 never trips; and a resync restarts the count.
//! Checked in the rust-hdl stepper and in Verilator, clock for clock.

use iblink_model::failsafe::{Failsafe, FailsafeConfig, ResyncReason};
use iblink_model::sl2vl::VlCap;
use iblink_rtl::failsafe::{spec_period_clocks, RESYNC_LATENCY};
use iblink_rtl::link::{LINK_ACTIVE, LINK_INIT};
use iblink_rtl::link_port::{LinkPortIn, LinkPortOut, CFG_UPDATE_PERIODS};
use iblink_sim::blocks::link_port::{link_port_sim, test_params};
use iblink_sim::blocks::Backend;
use iblink_sim::CycleSim;

/// Clocks from a reset until the model's monitor trips, for a port that hears no FCP.
fn model_trip_clock(vls: usize, width: usize, update_periods: u32) -> Option<u64> {
    let cfg = FailsafeConfig { period_clocks: spec_period_clocks(width) as u32, update_periods, overrun_periods: 2 };
    let mut f = Failsafe::new(VlCap::new(vls as u64).unwrap(), cfg);
    f.reset();
    (0..4 * 65536u64).find(|_| matches!(f.tick(), Some(ResyncReason::NoFcUpdate { vl: 0 })))
}

/// Drive one port with no receive traffic: configuration writes during power-up
/// settle, then a reset clock (clock 0), then LinkActive with nothing arriving.
/// Returns the clocks (counted from the reset clock) showing `resync_req`, and the last
/// outputs.
fn run(vls: usize, width: usize, update_periods: u16, clocks: u64, b: Backend) -> (Vec<(u64, LinkPortOut)>, LinkPortOut) {
    // The lockstep's configuration (its Verilator build is shared); tables and buffers
    // play no part with nothing arriving.
    let p = test_params(vls, width);
    let mut sim = link_port_sim(&p, b, None).unwrap();
    let mut i = LinkPortIn { link_state: LINK_INIT, ..Default::default() };
    // Wait out the table loader, then write the monitor's threshold.
    let mut o = sim.step(&i);
    while o.cfg_busy {
        o = sim.step(&i);
    }
    i.cfg_wr = true;
    i.cfg_addr = CFG_UPDATE_PERIODS;
    i.cfg_data = update_periods;
    sim.step(&i);
    i.cfg_wr = false;
    let mut trips = vec![];
    for c in 0..clocks {
        i.reset = c == 0;
        i.link_state = LINK_ACTIVE;
        o = sim.step(&i);
        if o.resync_req {
            trips.push((c, o));
        }
    }
    (trips, o)
}

fn check(vls: usize, width: usize, update_periods: u16) {
    let want = model_trip_clock(vls, width, update_periods as u32).expect("the model trips") + RESYNC_LATENCY as u64;
    let horizon = want + 20;
    let (rtl, _) = run(vls, width, update_periods, horizon, Backend::Rtl);
    let (ver, _) = run(vls, width, update_periods, horizon, Backend::Verilator);
    assert_eq!(rtl, ver, "rust-hdl and Verilator differ");
    assert_eq!(rtl.len(), 1, "VLCap {vls} x {width}, U {update_periods}: one request expected, got {rtl:?}");
    let (c, o) = rtl[0];
    assert_eq!(c, want, "VLCap {vls} x {width}, U {update_periods}: resync_req at clock {c}, the model trips for clock {want}");
    // The lowest VL is named (every VL went silent together) and the reason is the monitor.
    assert_eq!((o.resync_reason, o.resync_vl), (0, 0));
    eprintln!("VLCap {vls} x {width}: update monitor {update_periods} periods -> resync_req at clock {c}");
}

#[test]
fn update_monitor_trips_when_the_model_does() {
    check(4, 32, 1);
    check(2, 64, 2);
    check(15, 32, 1);
}

#[test]
fn monitor_off_never_trips_and_fcp_late_shows() {
    // Three spec periods of silence at VLCap 1 with the monitor off (0).
    let clocks = 3 * spec_period_clocks(32) as u64;
    let (rtl, last) = run(1, 32, 0, clocks, Backend::Rtl);
    assert!(rtl.is_empty(), "the monitor is off: {rtl:?}");
    assert_eq!(last.fcp_late & 1, 1, "no FCP for more than a period: fcp_late");
}
