//! The link port: its blocks' reference models composed as the port composes its blocks
//! (`PortCycleModel`), the Rust twin and Verilator in lockstep, for every VLCap at
//! 32 and 64 bits, on a reactive random stimulus (`PortStimulus`: user queues and receive
//! buffer, a link peer with losses and corruption, configuration writes in traffic, link
//! state changes, resets and failsafe resyncs, a transmit wire that stalls). Coverage
//! minimums are asserted per configuration (`iblink_sim::tb::link_port`) and, for the
//! rarer events, over the run.

use iblink_sim::blocks::Backend;
use iblink_sim::lockstep;
use iblink_sim::tb::link_port::RUN_TOTALS;
use iblink_sim::tb::report::TbReport;
use iblink_sim::tb::{self, harness::TbOptions};
use std::sync::Mutex;
use std::time::Instant;

fn run(vls: usize, width: usize) -> TbReport {
    let n = lockstep::cycles();
    // Stimulus tuning only: the model alone, nothing compared.
    let backends: &[Backend] = if std::env::var("IBLINK_PORT_MODEL_ONLY").is_ok() { &[Backend::Model] } else { &Backend::ALL };
    let o = TbOptions { backends, ..TbOptions::test(n) };
    tb::link_port::run(vls, width, tb::link_port::seed(vls, width), &o).unwrap()
}

/// Runs the configurations on two threads.
fn run_all(configs: &[(usize, usize)]) {
    let t0 = Instant::now();
    let work = Mutex::new(configs.to_vec());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..2 {
            sc.spawn(|| loop {
                let Some((vls, width)) = work.lock().unwrap().pop() else {
                    break;
                };
                let r = run(vls, width);
                eprintln!("{r}");
                results.lock().unwrap().push(r);
            });
        }
    });
    let n = lockstep::cycles();
    let results = results.into_inner().unwrap();
    let mut sum = [0u64; 6];
    let mut short = vec![];
    for r in &results {
        if let Some(m) = &r.mismatch {
            panic!("{} (seed {:#x}): {m}", r.title, r.seed);
        }
        assert_eq!(r.cycles, n, "{}: clocks run", r.title);
        short.extend(r.missed().map(|g| format!("{}: {} = {}, want {}", r.title, g.name, g.value, g.want_text())));
        for (s, name) in sum.iter_mut().zip(RUN_TOTALS) {
            *s += r.value(name).unwrap_or_else(|| panic!("{}: no counter {name}", r.title));
        }
    }
    eprintln!(
        "all: FCTBS wraps {} ABR wraps {} overruns {} VL15 dropped {} failsafe requests: no FC update {}, overrun threshold {}; {:.1} s",
        sum[0],
        sum[1],
        sum[2],
        sum[3],
        sum[4],
        sum[5],
        t0.elapsed().as_secs_f64()
    );
    assert!(short.is_empty(), "coverage short:\n  {}", short.join("\n  "));
    if configs.len() == 10 {
        let k = (n / 1_000_000).max(1);
        let want = [100, 100, 200, 10, 5, 2];
        for i in 0..6 {
            assert!(sum[i] >= want[i] * k, "{} over the run: {}, want at least {}", RUN_TOTALS[i], sum[i], want[i] * k);
        }
    }
}

/// Every configuration on a transmit wire that stalls (docs/spec.md §10: `tx_ready` in
/// phases of always high, random, stalls of 20 to 300 clocks, and a gap after every last
/// word): model, twin and Verilator clock for clock, every coverage minimum (the stall
/// gates among them, and FCPs no stall delayed, from the wire's steady phases) and the
/// run totals. The stalls take line time, so the stimulus keeps its stable stretches to
/// a fixed share of the clocks and fills them with minimum-size floods: the FCTBS wraps
/// and, in the rest, the link events, resets and failsafe resyncs all reach their
/// minimums.
#[test]
fn link_port_lockstep_all_variants() {
    let mut configs = vec![];
    for width in [32, 64] {
        for vls in [1, 2, 4, 8, 15] {
            // IBLINK_PORT_CONFIGS=4x32,15x64 runs only those (for investigations).
            let only = std::env::var("IBLINK_PORT_CONFIGS").unwrap_or_default();
            if only.is_empty() || only.split(',').any(|c| c == format!("{vls}x{width}")) {
                configs.push((vls, width));
            }
        }
    }
    run_all(&configs);
}
