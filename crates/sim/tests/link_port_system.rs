//! The link port as a system: two ports back to back (docs/spec.md §4–§5 end to end), in the
//! Rust twin (and, under `make soak`, in Verilator too, compared clock by clock), with
//! the bench checking that every packet arrives once, in order, byte for byte, and no
//! buffer overruns.

use iblink_rtl::link_port::{LinkPortOut, PortParams};
use iblink_sim::blocks::link_port::{link_port_sim, PortPairBench, Traffic};
use iblink_sim::blocks::Backend;
use iblink_sim::lockstep;

fn bench(p: &PortParams, b: Backend, latency: usize, t: Traffic, seed: u64) -> PortPairBench {
    PortPairBench::new(
        p,
        link_port_sim(p, b, None).unwrap(),
        link_port_sim(p, b, None).unwrap(),
        latency,
        600,
        t,
        seed,
    )
}

/// Whether the pair also runs in Verilator, compared clock by clock: `make soak`
/// (IBLINK_SYSTEM_VERILATOR=1). In `make test` the link port's own lockstep already
/// compares the Rust twin with Verilator at every configuration, so here the pair runs
/// in the twin alone and the bench checks the system (four fewer Verilator builds).
fn with_verilator() -> bool {
    std::env::var_os("IBLINK_SYSTEM_VERILATOR").is_some_and(|v| v == "1")
}

fn system(vls: usize, width: usize, latency: usize, seed: u64) {
    let p = PortParams::defaults(vls, width);
    let t = Traffic::default();
    let mut rtl = bench(&p, Backend::Rtl, latency, t.clone(), seed);
    let mut vl = with_verilator().then(|| bench(&p, Backend::Verilator, latency, t, seed));
    // A quarter of the lockstep length (the link port's own lockstep already runs every
    // configuration for the full length, three ways): make test 250,000 clocks, soak 2.5M.
    let n = lockstep::cycles() / 4;
    let mut last: (LinkPortOut, LinkPortOut) = Default::default();
    for c in 0..n {
        let r = rtl.step();
        if let Some(vl) = vl.as_mut() {
            let v = vl.step();
            assert_eq!(r, v, "VLCap {vls} x {width}: rust-hdl and Verilator differ at clock {c}");
        }
        last = r;
    }
    for (name, st) in [("a", &rtl.stats_a), ("b", &rtl.stats_b)] {
        let sent: u64 = st.sent.iter().sum();
        let got: u64 = st.delivered.iter().sum();
        eprintln!(
            "VLCap {vls} x {width}, latency {latency}: port {name} received {got} packets, sent {sent}; busy {} of {n} clocks; {} FCPs",
            st.busy_clocks, st.fcps_on_wire
        );
        assert_eq!(st.bad_delivery, 0, "a packet arrived changed or out of order");
        assert_eq!(st.overruns, 0, "a receive buffer overran");
        assert_eq!(st.bad_status, 0, "a packet failed its checks on a clean wire");
        assert!(got > n / 200, "too little traffic: {got}");
        assert!(st.fcps_on_wire > 0);
    }
    // Every packet sent arrived, except those still on their way.
    let (ab, ba) = rtl.in_flight();
    assert!(ab < 10 * vls + 40 && ba < 10 * vls + 40, "packets lost: {ab} / {ba} outstanding");
    assert!(last.0.overruns.iter().all(|&x| x == 0) && last.1.overruns.iter().all(|&x| x == 0));
}

#[test]
fn vl4_w32() {
    system(4, 32, 3, 1);
}

#[test]
fn vl15_w64() {
    system(15, 64, 10, 2);
}

#[test]
fn vl1_w32_and_vl8_w64() {
    system(1, 32, 1, 3);
    system(8, 64, 5, 4);
}
