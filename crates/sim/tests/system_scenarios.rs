//! The link as a system (issue 6): every scenario shipped in `tb/scenarios/sys_*.toml`
//! runs two link ports as Rust twins for 1,000,000 clocks of traffic (then a
//! flush with no new packets and no faults), with the reference model on the same
//! scenario alongside, and checks the promises of docs/spec.md §4, §5 and §8:
//! - no faults: no overrun, no idle clock while a data VL is eligible, every packet
//!   delivered once, in order, byte for byte; at saturation each VL's share of the blocks
//!   within 1 % of what the arbitration weights give (the reference model on the same
//!   packet sequence, or the weights themselves where they alone decide);
//! - faults (FCP loss, data loss, bit flips, forced retrains): no credit overrun, every
//!   packet delivered or dropped by a named cause (the channel's loss, the receiver's
//!   VCRC/length discard, the retrain), both ends agree again (ABR = FCTBS) within one
//!   refresh period after the last fault;
//! - FCPs suppressed: the FC-update monitor asks for a resync within its configured time
//!   and traffic flows again once FCPs do.
//!
//! `IBLINK_SYSTEM_CYCLES` replaces the cycle count (soak or quick runs).

use iblink_sim::system::compare::{Comparison, Verdict};
use iblink_sim::system::run::{run_scenario, DirReport, RunOpts, RunReport};
use iblink_sim::system::scenario::Scenario;
use std::path::PathBuf;

fn scenario(file: &str) -> Scenario {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tb/scenarios")
        .join(file);
    let mut s = Scenario::from_file(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    if let Some(n) = std::env::var("IBLINK_SYSTEM_CYCLES")
        .ok()
        .and_then(|x| x.parse().ok())
    {
        s.cycles = n;
    }
    s
}

fn run(file: &str) -> (Scenario, RunReport) {
    let s = scenario(file);
    let r = run_scenario(&s, &RunOpts::default()).unwrap();
    eprintln!("{}", r.summary());
    (s, r)
}

/// What every run must show, faults or not.
fn common(s: &Scenario, r: &RunReport) {
    let m = r.model.as_ref().expect("model run");
    for (k, d) in [&r.a_to_b, &r.b_to_a].into_iter().enumerate() {
        let n = &s.name;
        assert!(
            d.generated_total() > 100,
            "{n} dir {k}: too little traffic ({})",
            d.generated_total()
        );
        assert!(
            d.conserved(),
            "{n} dir {k}: generated != delivered + dropped + in flight: {d:?}"
        );
        assert_eq!(
            d.in_flight, 0,
            "{n} dir {k}: packets never delivered nor dropped (deadlock)"
        );
        assert_eq!(
            d.drops.overrun, 0,
            "{n} dir {k}: receive-buffer overrun (credit accounting)"
        );
        assert_eq!(d.bad_delivery, 0, "{n} dir {k}: a packet arrived changed");
        assert_eq!(
            d.order_errors, 0,
            "{n} dir {k}: packets out of order on a VL"
        );
        assert_eq!(
            d.corrupt_delivered, 0,
            "{n} dir {k}: a damaged packet passed the VCRC"
        );
        assert_eq!(
            d.unexplained_discards, 0,
            "{n} dir {k}: a discard the channel did not cause"
        );
        assert_eq!(d.anomalies, 0, "{n} dir {k}: interface anomalies");
        assert_eq!(
            d.fctbs_mismatch, 0,
            "{n} dir {k}: the port's FCTBS differs from blocks sent"
        );
        assert!(
            d.agree_checks > 1000,
            "{n} dir {k}: ABR = FCTBS hardly checked ({})",
            d.agree_checks
        );
        // The receiving port's overrun counters agree: nothing dropped for credit.
        assert!(
            d.max_occupancy[..r.vl_cap]
                .iter()
                .all(|&o| o <= s.port.buffer_blocks as u32),
            "{n}: occupancy above the buffer"
        );
        // The model on the same scenario: the same promises.
        assert_eq!(m.overruns[k], 0, "{n} dir {k}: the model overran");
        assert_eq!(
            m.in_flight[k], 0,
            "{n} dir {k}: the model left packets in flight"
        );
    }
    assert!(m.conserved(), "{}: model conservation", s.name);
    // The model meets the same faults (keyed draws): its link busy is within 2 points
    // of the RTL's, or was before the runs retrained differently (what `iblink sim`
    // marks `~`); never beyond what that explains.
    let c = Comparison::new(r, m);
    let note = c.note(s.activate_after + s.arm_clocks);
    eprintln!("{}: {note}", s.name);
    for k in 0..2 {
        assert_ne!(c.busy_verdict(k), Verdict::Unexplained, "{}: {note}", s.name);
    }
    if !s.has_faults() {
        // Nothing to draw: the two must agree outright.
        assert_eq!(c.parted_at, None, "{}: {note}", s.name);
        assert_eq!([c.busy_verdict(0), c.busy_verdict(1)], [Verdict::Agree; 2], "{}: {note}", s.name);
    }
}

/// No faults: nothing dropped, no idle clock while eligible, ABR = FCTBS at every check.
fn clean(s: &Scenario, r: &RunReport) {
    common(s, r);
    assert!(
        r.resyncs.is_empty(),
        "{}: resyncs on a clean link: {:?}",
        s.name,
        r.resyncs
    );
    for d in [&r.a_to_b, &r.b_to_a] {
        assert_eq!(
            d.drops.total(),
            0,
            "{}: drops on a clean link: {:?}",
            s.name,
            d.drops
        );
        assert_eq!(
            d.idle_while_eligible, 0,
            "{}: idle while eligible at {:?}",
            s.name, d.idle_examples
        );
        assert_eq!(
            d.disagreements, 0,
            "{}: ABR != FCTBS with nothing in flight",
            s.name
        );
        assert_eq!(d.delivered_total(), d.generated_total());
    }
}

/// Shares of the blocks per data VL within 1 % (relative) of `want` (VLs with a share).
fn shares_within(name: &str, d: &DirReport, vls: usize, want: &[f64]) {
    let got = d.shares(vls);
    for v in 0..vls {
        if want[v] == 0.0 {
            assert!(
                got[v] < 1e-3,
                "{name}: VL{v} sent {} with no weight",
                got[v]
            );
        } else {
            assert!(
                (got[v] - want[v]).abs() <= 0.01 * want[v],
                "{name}: VL{v} share {:.5}, expected {:.5} (all {got:?} vs {want:?})",
                got[v],
                want[v]
            );
        }
    }
}

fn saturated(s: &Scenario, r: &RunReport) {
    let m = r.model.as_ref().unwrap();
    for (k, d) in [&r.a_to_b, &r.b_to_a].into_iter().enumerate() {
        // Every clock the PHY does not stall carries a word: data, VL15 or an FCP (the
        // window's last clocks may see the drain of the queues start). The PHY's stalls
        // (docs/spec.md §10, SKIP ordered sets by default) take their share of the line.
        assert!(d.phy_stall_clocks > 0, "{}: the PHY never stalled", s.name);
        assert!(
            d.utilisation() + d.phy_stall_share() > 0.999,
            "{}: utilisation {} with PHY stalls {}",
            s.name,
            d.utilisation(),
            d.phy_stall_share()
        );
        assert!((d.utilisation() - m.utilisation(k)).abs() < 0.005);
        shares_within(&s.name, d, r.vl_cap, &m.shares(k, r.vl_cap));
    }
}

/// Seed 003's Figure 25-10 tables at saturation, packets of every size.
#[test]
fn saturation_figure_25_10() {
    let (s, r) = run("sys_saturation_fig25_10.toml");
    clean(&s, &r);
    saturated(&s, &r);
    // Every table entry's VL got a turn, VL15 packets went through too.
    for d in [&r.a_to_b, &r.b_to_a] {
        for v in [0, 1, 3, 6, 7] {
            assert!(d.blocks_sent[v] > 0, "VL{v} never sent");
        }
        assert!(d.delivered[15] > 10, "VL15 traffic: {}", d.delivered[15]);
    }
}

/// VLHighLimit 255 with one-block packets: the high table's weights are the shares
/// (VL0 in two entries: 10 + 10, VL1 20, VL2 40 → 1/4, 1/4, 1/2) and the low table's VL3
/// never sends while the high table has packets (it goes in the flush).
#[test]
fn vl_high_limit_255() {
    let (s, r) = run("sys_vl_high_limit_255.toml");
    clean(&s, &r);
    saturated(&s, &r);
    for d in [&r.a_to_b, &r.b_to_a] {
        shares_within(&s.name, d, 4, &[0.25, 0.25, 0.5, 0.0]);
    }
}

/// VLHighLimit 0: one high packet, then a low-table turn; 64-bit link, two SLs per VL.
#[test]
fn vl_high_limit_0() {
    let (s, r) = run("sys_vl_high_limit_0.toml");
    clean(&s, &r);
    saturated(&s, &r);
    for d in [&r.a_to_b, &r.b_to_a] {
        for v in [0, 1, 2, 4, 5, 6, 7] {
            assert!(d.blocks_sent[v] > 0, "VL{v} never sent");
        }
    }
}

/// A long wire with one-packet buffers: credit-limited, below the bound, never overrun.
#[test]
fn long_rtt_small_buffers() {
    let (s, r) = run("sys_long_rtt_small_buffers.toml");
    clean(&s, &r);
    let m = r.model.as_ref().unwrap();
    // Bound: each of the 2 VLs has at most `buffer` blocks outstanding per round trip of
    // at least 2 x latency clocks; the link carries W/64 blocks a clock.
    let rtt = 2.0 * s.channel.latency_clocks as f64;
    let bound = 2.0 * s.port.buffer_blocks as f64 / (rtt * (s.port.datapath_bytes as f64 / 64.0));
    for (k, d) in [&r.a_to_b, &r.b_to_a].into_iter().enumerate() {
        let u = d.data_utilisation();
        assert!(u < bound, "utilisation {u} above the bound {bound}");
        let mu = m.data_clocks[k] as f64 / m.window_clocks as f64;
        assert!((u - mu).abs() < 0.05 * mu, "RTL {u} vs model {mu}");
        assert!(
            d.max_occupancy[..2].iter().any(|&o| o >= 60),
            "buffers never filled: {:?}",
            d.max_occupancy
        );
    }
}

/// The receiver stops taking packets: senders stop on credit, nothing overruns, traffic
/// resumes after the stall.
#[test]
fn receiver_stall() {
    let (s, r) = run("sys_receiver_stall.toml");
    clean(&s, &r);
    let stall = &s.drain.stalls[0];
    let window = |from: u64, to: u64, vl: usize| -> u64 {
        r.timeline
            .iter()
            .filter(|x| x.clock > from && x.clock <= to)
            .map(|x| x.wire_bytes[0][vl])
            .sum()
    };
    for v in 0..4 {
        // Once B's buffers are full (well within 50,000 clocks), nothing more arrives
        // A -> B until the stall ends; afterwards traffic flows again.
        assert_eq!(
            window(stall.from + 50_000, stall.to, v),
            0,
            "VL{v} delivered into a stalled receiver"
        );
        assert!(
            window(stall.to, stall.to + 100_000, v) > 0,
            "VL{v} did not resume after the stall"
        );
        assert!(
            r.a_to_b.max_occupancy[v] > s.port.buffer_blocks as u32 - 66,
            "VL{v} buffer never filled"
        );
    }
    // The timeline's occupancy: each window's maximum and mean over its clocks. The
    // largest window maximum is the run's largest occupancy; a mean never exceeds its
    // window's maximum; while B is stalled with its buffers full nothing arrives or
    // leaves, so a window there has its mean equal to its maximum, the buffer's fill.
    for v in 0..4 {
        let top = r.timeline.iter().map(|x| x.occupancy_max[0][v]).max();
        assert_eq!(top, Some(r.a_to_b.max_occupancy[v]), "VL{v}");
        for x in r.timeline.iter().filter(|x| x.clock > stall.from + 50_000 && x.clock <= stall.to) {
            assert_eq!(x.occupancy_mean[0][v], x.occupancy_max[0][v] as f64, "VL{v} at {}", x.clock);
            assert!(x.occupancy_max[0][v] > s.port.buffer_blocks as u32 - 66, "VL{v} at {}", x.clock);
        }
    }
    for x in &r.timeline {
        for d in 0..2 {
            assert!(x.occupancy_mean[d].iter().zip(&x.occupancy_max[d]).all(|(&m, &mx)| m <= mx as f64), "{x:?}");
        }
    }
    // B -> A kept flowing during B's stall (only A's VL1 stalls later).
    let ba: u64 = r
        .timeline
        .iter()
        .filter(|x| x.clock > stall.from && x.clock <= stall.to)
        .map(|x| x.wire_bytes[1].iter().sum::<u64>())
        .sum();
    assert!(ba > 0);
}

/// 50 % FCP loss, 1 % data loss and bit flips for 800,000 clocks, then a clean channel.
#[test]
fn fcp_loss_and_data_loss() {
    let (s, r) = run("sys_fcp_loss_data_loss.toml");
    common(&s, &r);
    let refresh = s.port.refresh_clocks() as u64;
    for d in [&r.a_to_b, &r.b_to_a] {
        assert!(
            d.drops.wire_loss > 10,
            "data loss not exercised: {:?}",
            d.drops
        );
        assert!(
            d.drops.corrupt.iter().sum::<u64>() > 5,
            "bit flips not exercised: {:?}",
            d.drops
        );
        assert!(
            d.fcps_lost as f64 > 0.3 * d.fcps_sent as f64,
            "FCP loss: {} of {}",
            d.fcps_lost,
            d.fcps_sent
        );
        assert!(d.fcps_flipped > 0);
        // Every flipped FCP that reached the receiver was discarded (LPCRC; counters of
        // the receiving port); a retrain may have cut a few.
        let discards: u64 = (1..8).map(|k| d.port_counters[k]).sum();
        assert!(
            discards <= d.fcps_flipped && discards + r.resyncs.len() as u64 >= d.fcps_flipped,
            "FCP discards {discards}, flipped {}",
            d.fcps_flipped
        );
        // Lost or damaged data packets do not stop the VL forever: the link kept busy.
        assert!(d.delivered_total() as f64 > 0.95 * d.generated_total() as f64);
        assert!(d.disagreements > 0, "faults never showed as ABR != FCTBS");
    }
    // Both ends agree within one refresh period (plus the wire and the port's clocks)
    // after the last fault.
    let agree = r
        .agree_after_last_fault
        .expect("ABR = FCTBS after the last fault");
    assert!(
        agree <= refresh + 2 * s.channel.latency_clocks as u64 + 100,
        "agreement {agree} clocks after the last fault"
    );
    // Resyncs the update monitor asked for under 50 % FCP loss are failsafe ones.
    assert!(
        r.resyncs.iter().all(|e| matches!(e.by, Some((_, 0, _)))),
        "{:?}",
        r.resyncs
    );
}

/// Two forced retrains in saturated traffic (64-bit link).
#[test]
fn resync_mid_traffic() {
    let (s, r) = run("sys_resync_mid_traffic.toml");
    common(&s, &r);
    assert_eq!(
        r.resyncs.iter().map(|e| e.clock).collect::<Vec<_>>(),
        s.resyncs
    );
    for d in [&r.a_to_b, &r.b_to_a] {
        assert_eq!(
            d.drops.total(),
            d.drops.resync,
            "only the retrains drop: {:?}",
            d.drops
        );
        assert!(d.drops.resync > 0 && d.drops.resync < 40);
        assert_eq!(
            d.idle_while_eligible, 0,
            "idle while eligible at {:?}",
            d.idle_examples
        );
    }
    // Data flows again after LinkInitialize and LinkArm: the first packet is committed
    // after its credit crossed (the wire), and its last word (at most PktLen 1048).
    let lat = s.channel.latency_clocks as u64;
    let longest = (1048 * 4 + 2) / s.port.datapath_bytes as u64 + 1;
    let back = s.activate_after + s.arm_clocks + 2 * lat + longest + 50;
    for x in r.recovered_after_last_fault {
        assert!(
            x.is_some_and(|c| c <= back),
            "data after the retrain: {x:?}"
        );
    }
    assert!(r.agree_after_last_fault.is_some());
}

/// FCPs suppressed for 120,000 clocks: the update monitor trips within its time,
/// retrains repeat while FCPs stay away, and the link recovers after.
#[test]
fn fcps_suppressed() {
    let (s, r) = run("sys_fcps_suppressed.toml");
    common(&s, &r);
    let w = &s.faults[0];
    let period = s.port.spec_period_clocks() as u64;
    let limit = s.port.update_monitor_periods as u64 * period;
    let first = r
        .resyncs
        .first()
        .expect("the update monitor asked for a resync");
    assert!(
        matches!(first.by, Some((_, 0, _))),
        "not the update monitor: {first:?}"
    );
    // The last FCP before the window arrived at most one refresh (plus the wire) before
    // it; the monitor trips `limit` clocks after it (+ the failsafe's 2-clock latency and
    // the retrain at the next clock).
    let refresh = s.port.refresh_clocks() as u64;
    assert!(
        first.clock <= w.from + limit + 3 + 2 * s.channel.latency_clocks as u64,
        "resync at {}",
        first.clock
    );
    assert!(
        first.clock + refresh + 2 * s.channel.latency_clocks as u64 >= w.from + limit,
        "resync too early at {}",
        first.clock
    );
    // No resync once FCPs flow again (after the monitor's time).
    assert!(
        r.resyncs.iter().all(|e| e.clock <= w.to + limit),
        "{:?}",
        r.resyncs
    );
    // Traffic flows again in both directions after the window.
    for x in r.recovered_after_last_fault {
        assert!(x.is_some_and(|c| c <= refresh + 2_000), "recovery: {x:?}");
    }
    for (k, d) in [&r.a_to_b, &r.b_to_a].into_iter().enumerate() {
        let after: u64 = r
            .timeline
            .iter()
            .filter(|x| x.clock > w.to + refresh + 2_000)
            .map(|x| x.wire_bytes[k].iter().sum::<u64>())
            .sum();
        assert!(after > 1_000_000, "dir {k}: {after} bytes after recovery");
        assert_eq!(d.drops.overrun, 0);
    }
    // The model's update monitor trips too, about as soon.
    let m = r.model.as_ref().unwrap();
    let mfirst = m.retrains.first().expect("model retrain");
    assert!(
        mfirst.0.abs_diff(first.clock) < 200,
        "model retrains at {}, RTL at {}",
        mfirst.0,
        first.clock
    );
}

/// A head packet that appears in an empty queue must pass the credit check with its own
/// blocks. VLCap 1, 66-block buffer, receiver stalled from the start: A may send 16
/// packets of 4 blocks (64 of the 66 blocks); the 17th must wait forever (docs/spec.md §4:
/// `(CL - (FCTBS + NP)) mod 4096 <= 2048` fails). Packets come one at a time (the queue
/// empties between them). The port's TX credit check shows a clock late (`link_port`
/// docs), so in the first clock a head is valid its check is the previous clock's, with
/// the empty queue's PktLen 0 → NP 0, which passes at CL = FCTBS.
#[test]
fn new_head_after_empty_queue() {
    let s = Scenario::from_toml(
        r#"
        name = "new_head_after_empty_queue"
        cycles = 40000
        [port]
        vl_cap = 1
        buffer_blocks = 66
        [channel]
        latency_clocks = 4
        [[traffic]]
        sl = 0
        pktlen = 64
        load = 100
        direction = "a_to_b"
        [[drain.stall]]
        from = 0
        to = 40000
        side = "b"
        "#,
    )
    .unwrap();
    let opts = RunOpts {
        flush_clocks: 0,
        model: false,
        ..Default::default()
    };
    let r = run_scenario(&s, &opts).unwrap();
    eprintln!("{}", r.summary());
    // 16 packets fit; the buffer is then full.
    assert_eq!(r.a_to_b.max_occupancy[0], 64);
    assert_eq!(
        r.a_to_b.drops.overrun, 0,
        "overruns at (clock, VL, blocks, free) {:?}",
        r.a_to_b.overrun_examples
    );
}

/// The same scenario in Verilator, clock by clock against the Rust twin: both
/// ports' outputs equal at every clock, through faults (FCP loss, data loss, bit flips),
/// a forced retrain and a failsafe resync.
#[test]
fn verilator_matches_stepper() {
    use iblink_sim::blocks::Backend;
    use iblink_sim::system::run::SystemRun;
    let mut s = scenario("sys_fcp_loss_data_loss.toml");
    s.cycles = std::env::var("IBLINK_SYSTEM_CYCLES")
        .ok()
        .and_then(|x| x.parse().ok())
        .unwrap_or(150_000);
    s.resyncs = vec![40_000];
    // A short update monitor so the failsafe trips under the FCP loss inside the run.
    s.port.update_monitor_periods = 1;
    let opts = |backend| RunOpts {
        backend,
        flush_clocks: 0,
        model: false,
        ..Default::default()
    };
    let mut rtl = SystemRun::new(&s, &opts(Backend::Rtl)).unwrap();
    let mut vl = SystemRun::new(&s, &opts(Backend::Verilator)).unwrap();
    for c in 0..s.cycles {
        let a = rtl.step();
        let b = vl.step();
        assert_eq!(a, b, "rust-hdl and Verilator differ at clock {c}");
    }
    let (r, v) = (rtl.report(), vl.report());
    eprintln!("{}", r.summary());
    assert_eq!(r.resyncs, v.resyncs);
    assert!(
        r.resyncs.iter().any(|e| e.by.is_none()) && r.resyncs.iter().any(|e| e.by.is_some()),
        "retrains: {:?}",
        r.resyncs
    );
    for d in [&r.a_to_b, &r.b_to_a] {
        assert!(d.drops.wire_loss > 0 && d.fcps_lost > 0 && d.delivered_total() > 100);
        assert_eq!(d.drops.overrun, 0);
        assert!(d.conserved());
    }
}

/// The wire records are the items as sent, whatever their fate: every data or VL15
/// record parses as an IBA packet with its ICRC and VCRC (lost ones included: the
/// sender sends the whole packet, the channel drops it), every FCP decodes, and the fates
/// add up to the run's counters.
#[test]
fn wire_records_are_what_was_sent() {
    use iblink_model::fcp::Fcp;
    use iblink_sim::system::{Direction, Fate};
    let mut s = scenario("sys_fcp_loss_data_loss.toml");
    s.cycles = 100_000;
    s.channel.data_loss = 0.05;
    s.faults.clear();
    s.channel.fcp_loss = 0.3;
    s.channel.bit_flip = 0.03;
    let r = run_scenario(
        &s,
        &RunOpts {
            record_wire: true,
            model: false,
            ..Default::default()
        },
    )
    .unwrap();
    for (dir, d) in [(Direction::AtoB, &r.a_to_b), (Direction::BtoA, &r.b_to_a)] {
        let recs: Vec<_> = r
            .wire
            .iter()
            .filter(|w| w.dir == dir && w.clock < s.cycles)
            .collect();
        let count = |link: bool, f: Fate| {
            recs.iter()
                .filter(|w| w.link == link && w.fate == f)
                .count() as u64
        };
        for w in &recs {
            if w.link {
                Fcp::decode(&w.bytes, s.port.vl_cap)
                    .unwrap_or_else(|e| panic!("FCP record at {}: {e}", w.clock));
            } else {
                iblink_model::iba::parse(&w.bytes).unwrap_or_else(|e| {
                    panic!("{:?} record at {} ({:?}): {e}", dir, w.clock, w.fate)
                });
            }
        }
        assert_eq!(count(false, Fate::Lost), d.drops.wire_loss);
        assert!(count(false, Fate::Lost) > 5 && count(false, Fate::Flipped) > 0);
        assert_eq!(count(true, Fate::Lost), d.fcps_lost);
        assert_eq!(count(true, Fate::Flipped), d.fcps_flipped);
        // Each flipped packet was discarded by the receiver's checks, unless a retrain
        // took it first.
        let corrupt: u64 = d.drops.corrupt.iter().sum();
        let flipped = count(false, Fate::Flipped);
        assert!(
            corrupt <= flipped && flipped <= corrupt + d.drops.resync,
            "flipped {flipped}, discarded {corrupt}, {:?}",
            d.drops
        );
    }
}

/// `[wire] phy_stall` (docs/spec.md §10): the default is a SKIP ordered set's clock every
/// 4608 symbol times (1152 clocks at 32 bits, 576 at 64); a field replaces it or turns
/// it off; a stall of every clock is refused.
#[test]
fn phy_stall_field() {
    use iblink_sim::system::scenario::PhyStall;
    let s = Scenario::from_toml("").unwrap();
    assert_eq!(s.phy_stall, PhyStall::Skip);
    assert_eq!(s.phy_stall.period(4), Some((1152, 1)));
    assert_eq!(s.phy_stall.period(8), Some((576, 1)));
    let s = Scenario::from_toml("[wire]\nphy_stall = { every_clocks = 10, clocks = 3 }\n").unwrap();
    assert_eq!(s.phy_stall.period(4), Some((10, 3)));
    let s = Scenario::from_toml("[wire]\nphy_stall = \"none\"\n").unwrap();
    assert_eq!(s.phy_stall.period(4), None);
    let e = Scenario::from_toml("[wire]\nphy_stall = { every_clocks = 3, clocks = 3 }\n").unwrap_err();
    assert!(e.to_string().contains("wire.phy_stall.clocks"), "{e}");
}

/// A PHY that holds the wire 3 clocks in every 10 at saturation (docs/spec.md §10): no
/// word lost, reordered or changed, credits never overrun, and every clock the PHY does
/// not stall carries a word, so the link is busy 70 % of the clocks.
#[test]
fn saturation_behind_a_heavily_stalling_phy() {
    let mut s = scenario("sys_saturation_fig25_10.toml");
    s.cycles = s.cycles.min(200_000);
    s.phy_stall = iblink_sim::system::scenario::PhyStall::Every { every_clocks: 10, clocks: 3 };
    let r = run_scenario(&s, &RunOpts::default()).unwrap();
    // The bench's own checks (the reference model's wire never stalls, so its link busy
    // is not this run's: the model comparison of `clean` does not apply).
    for d in [&r.a_to_b, &r.b_to_a] {
        assert!(d.generated_total() > 100 && d.conserved() && d.in_flight == 0, "{d:?}");
        assert_eq!(
            (d.drops.overrun, d.bad_delivery, d.order_errors, d.corrupt_delivered, d.unexplained_discards, d.anomalies, d.fctbs_mismatch, d.disagreements),
            (0, 0, 0, 0, 0, 0, 0, 0)
        );
        assert_eq!(d.idle_while_eligible, 0);
        assert!(d.agree_checks > 1000);
        assert!((d.phy_stall_share() - 0.3).abs() < 0.001, "stall share {}", d.phy_stall_share());
        assert!(d.utilisation() + d.phy_stall_share() > 0.999, "utilisation {}", d.utilisation());
    }
}
