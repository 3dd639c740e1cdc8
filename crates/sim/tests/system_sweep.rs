//! The credit loop's knee (issue 6): one saturated VL through two link ports (rust-hdl
//! stepper), receive buffer and wire latency swept. docs/spec.md §4's absolute credits let the
//! sender have at most one buffer of blocks outstanding per round trip, so utilisation is
//! `min(1, buffer / (RTT x rate))`: line rate once the buffer covers the round trip, a
//! straight fall below it. Expected values come from that bound (and the reference
//! model on the same scenario), not from the port.

use iblink_model::blocks::blocks_for_pkt_len;
use iblink_sim::blocks::Backend;
use iblink_sim::system::sweep::{sweep_table, utilisation_sweep, SWEEP_PKTLEN};

#[test]
fn utilisation_knee_at_buffer_equals_rtt_times_rate() {
    let width = 32;
    let buffers = [66u16, 128, 256, 512, 1024];
    let latencies = [256usize, 1024, 2048, 4096];
    // Several round trips after the first quarter (the loop settles in one).
    let points = utilisation_sweep(
        width,
        &buffers,
        &latencies,
        |l| 60_000u64.max(24 * l as u64),
        Backend::Rtl,
    )
    .unwrap();
    eprintln!("{}", sweep_table(&points, width));
    // Blocks a clock of a saturated link of these packets: NP blocks per packet, each
    // packet ceil((PktLen*4 + 2) / W) clocks (docs/spec.md §1).
    let np = blocks_for_pkt_len(SWEEP_PKTLEN) as f64;
    let clocks = ((SWEEP_PKTLEN as u64 * 4 + 2).div_ceil(width as u64 / 8)) as f64;
    let rate = np / clocks;
    let mut knee_seen = [false; 2];
    for p in &points {
        assert_eq!(p.overruns, 0, "{p:?}");
        assert_eq!(p.idle_while_eligible, 0, "{p:?}");
        assert!(
            (p.utilisation - p.model_utilisation).abs() <= 0.01,
            "RTL vs model: {p:?}"
        );
        // Whole packets of credit: the usable part of the buffer.
        let usable = (p.buffer_blocks as f64 / np).floor() * np;
        let need = p.rtt() as f64 * rate;
        let theory = (usable / need).min(1.0);
        if usable >= 1.1 * need {
            assert!(
                p.utilisation > 0.99,
                "buffer covers the round trip, yet {p:?}"
            );
            knee_seen[0] = true;
        } else if usable <= 0.9 * need {
            assert!(
                p.utilisation < 0.95,
                "buffer below the round trip, yet {p:?}"
            );
            // The round trip is a little longer than 2 x latency (the packet's own clocks,
            // the FCP's, the ports' pipelines): measured at or a little below the bound.
            assert!(
                p.utilisation <= theory + 0.005 && p.utilisation >= theory - 0.06,
                "theory {theory:.3}: {p:?}"
            );
            knee_seen[1] = true;
        }
    }
    assert!(
        knee_seen[0] && knee_seen[1],
        "the sweep must straddle the knee"
    );
}
