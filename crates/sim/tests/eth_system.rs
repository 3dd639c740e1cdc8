//! The Ethernet flow-control loop as a system (issue 21, docs/spec.md §9): the shipped
//! scenarios on two ports back to back. Expected values come from the scenarios' own
//! settings (reader rates, stall windows), docs/spec.md §9's refresh rule, and the headroom
//! bound worked out from the ports' timing rules, never from a previous run.

use iblink_model::eth_port::EthPortConfig;
use iblink_model::ethernet::{PauseFrame, PauseKind};
use iblink_sim::eth::report::{headroom_bound, sweep};
use iblink_sim::eth::run::{EthReport, EthRun};
use iblink_sim::eth::scenario::{EthScenario, FrameSize, Sides, Stall};
use rand::{Rng, SeedableRng};

fn scenario(name: &str) -> EthScenario {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tb/scenarios").join(format!("{name}.toml"));
    EthScenario::from_file(&p).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run(s: &EthScenario, record: bool) -> EthReport {
    let r = EthRun::model(s, record).finish();
    assert!(r.errors.is_empty(), "{}: {:?}", s.name, r.errors);
    r
}

fn share(r: &EthReport, dir: usize, q: usize) -> f64 {
    r.dirs[dir][q].delivered_bytes as f64 / (r.cycles * 8) as f64
}

/// The frames one side sent that are PAUSE/PFC, decoded, with the clock of their first word.
fn control_frames(r: &EthReport, side: usize) -> Vec<(u64, PauseFrame)> {
    r.frames
        .iter()
        .filter(|(_, s, f)| *s == side && EthPortConfig::is_control(f))
        .map(|(c, _, f)| (*c, PauseFrame::decode(f).expect("a good PAUSE/PFC frame")))
        .collect()
}

#[test]
fn isolation_the_slow_priority_is_held_alone_and_nothing_is_dropped() {
    let s = scenario("eth_isolation");
    let r = run(&s, true);
    let a_to_b = &r.dirs[0];
    assert!(r.dirs.iter().flatten().all(|q| q.drops == 0), "{a_to_b:?}");
    // Queue 1's reader takes a tenth of the link: that is its share, it is held often.
    let slow = share(&r, 0, 1);
    assert!((0.095..=0.1001).contains(&slow), "queue 1 share {slow}");
    assert!(a_to_b[1].paused_clocks > r.cycles / 4, "{:?}", a_to_b[1]);
    // The fast ones are never held and take the rest of the link (less the PFC frames
    // B sends, which are on the other wire, and the scheduler's frame boundaries). Every
    // frame costs the MAC's preamble and gap besides its bytes: queue 1's frames (793
    // bytes on average) take 10 % x (793 + 20) / 793 of the line's time, and the fast
    // queues' frames, one of each in turn (793 and 1522 bytes), the rest, of which their
    // bytes are 2315 / (2315 + 40).
    for q in [0, 2] {
        assert_eq!(a_to_b[q].paused_clocks, 0, "queue {q}");
        assert_eq!(a_to_b[q].pause_frames + a_to_b[q].release_frames, 0, "queue {q}");
    }
    let o = s.mac_overhead_bytes as f64;
    assert_eq!(o, 20.0, "an Ethernet MAC's preamble, SFD and gap by default");
    let slow_line = 0.1 * (793.0 + o) / 793.0;
    let expected = (1.0 - slow_line) * 2315.0 / (2315.0 + 2.0 * o);
    let rest = share(&r, 0, 0) + share(&r, 0, 2);
    assert!(rest >= expected - 0.01 && rest <= expected + 0.001, "fast queues' share {rest}, expected {expected}");
    // Every frame B sent enables priority 1 only.
    let ctrl = control_frames(&r, 1);
    assert!(ctrl.len() as u64 >= a_to_b[1].pause_frames);
    for (_, f) in &ctrl {
        let PauseKind::Pfc { enable, .. } = f.kind else { panic!("PFC mode sent {f:?}") };
        assert_eq!(enable, 0x02);
    }
}

#[test]
fn pause_mode_holds_every_priority_and_costs_the_fast_ones() {
    let pfc = run(&scenario("eth_isolation"), false);
    let s = scenario("eth_pause_mode");
    let r = run(&s, true);
    assert!(r.dirs.iter().flatten().all(|q| q.drops == 0));
    let held: Vec<u64> = r.dirs[0].iter().map(|q| q.paused_clocks).collect();
    assert!(held[0] > 0 && held.iter().all(|&h| h == held[0]), "one PAUSE holds all: {held:?}");
    for (_, f) in control_frames(&r, 1) {
        assert!(matches!(f.kind, PauseKind::Pause { quanta } if quanta == 1000 || quanta == 0), "{f:?}");
    }
    let fast = |r: &EthReport| share(r, 0, 0) + share(r, 0, 2);
    assert!(fast(&r) < 0.6 * fast(&pfc), "PAUSE {} vs PFC {}", fast(&r), fast(&pfc));
}

#[test]
fn receiver_stall_is_held_with_refreshes_then_released() {
    let s = scenario("eth_receiver_stall");
    let r = run(&s, true);
    assert!(r.dirs.iter().flatten().all(|q| q.drops == 0));
    let st = &s.stalls[0];
    // B stalls: A is held; B is never held (A reads at full rate).
    for q in 0..2 {
        let a = &r.dirs[0][q];
        assert!(a.paused_clocks > (st.to - st.from) * 9 / 10, "{a:?}");
        assert!(a.release_frames >= 1, "{a:?}");
        assert_eq!(r.dirs[1][q].paused_clocks, 0);
    }
    // docs/spec.md §9 refresh: while held, B's frames with a pause time follow each other so
    // that the next leaves with refresh_quanta of the last one's time left: last byte +
    // (PT - refresh_quanta) x quantum, later by at most one data frame of B's own.
    let qc = 512 / s.port.pfc.datapath_bits as u64;
    let frame = 512 / s.port.pfc.datapath_bits as u64;
    let gap = (800 - 300) * qc + frame - 1;
    let data = 1522u64.div_ceil(4);
    let ctrl = control_frames(&r, 1);
    let held: Vec<u64> = ctrl
        .iter()
        .filter(|(c, f)| *c > st.from && *c < st.to && matches!(f.kind, PauseKind::Pfc { enable, times } if enable & 0x08 != 0 && times[3] > 0))
        .map(|(c, _)| *c)
        .collect();
    assert!(held.len() >= 10, "{held:?}");
    for w in held.windows(2) {
        let d = w[1] - w[0];
        assert!((gap..=gap + data).contains(&d), "refresh spacing {d}, expected {gap}..={}", gap + data);
    }
    // The release comes after the stall, once the readers have taken the fill below RFD.
    let release = ctrl.iter().find(|(_, f)| matches!(f.kind, PauseKind::Pfc { enable, times } if enable & 0x08 != 0 && times[3] == 0)).expect("a release");
    assert!(release.0 > st.to, "release at {}", release.0);
}

#[test]
fn headroom_sweep_no_drops_at_or_above_the_bound_and_drops_below() {
    let s = scenario("eth_headroom_sweep");
    let points = sweep(&s, |_, _| {}).unwrap();
    let lats: Vec<u32> = s.sweep.as_ref().unwrap().latency_clocks.clone();
    for p in &points {
        assert_eq!(p.errors, 0, "{p:?}");
        assert!(p.max_fill_over_rfa <= p.bound as i64, "{p:?}");
        if p.headroom as u64 >= p.bound {
            assert_eq!(p.drops, 0, "{p:?}");
        }
    }
    for l in lats {
        assert!(points.iter().any(|p| p.latency == l && p.drops > 0), "latency {l}: no drops below the bound");
        assert!(points.iter().any(|p| p.latency == l && p.drops == 0), "latency {l}: never lossless");
    }
}

/// The bound on random scenarios: widths, latencies, frame sizes, traffic both ways,
/// reader rates and stalls; every queue with a threshold given exactly the bound as
/// headroom. Nothing may be dropped, and every frame arrives intact and in order.
#[test]
fn headroom_bound_holds_on_random_scenarios() {
    let base = scenario("eth_receiver_stall");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let mut held = 0;
    for i in 0..24 {
        let mut s = base.clone();
        s.name = format!("random_{i}");
        s.seed = i;
        s.cycles = 60_000;
        s.port.pfc.datapath_bits = if rng.gen_bool(0.5) { 32 } else { 64 };
        s.port.pfc.zero_quanta_on_release = rng.gen_bool(0.7);
        let latency = rng.gen_range(1..=600u32);
        for t in &mut s.traffic {
            t.size = if rng.gen_bool(0.5) { FrameSize::Fixed(rng.gen_range(64..=1522)) } else { FrameSize::Uniform(64, 1522) };
            t.load = rng.gen_range(100..=1000);
            t.from = [Sides::A, Sides::B, Sides::Both][rng.gen_range(0..3)];
        }
        s.drain_rate = (0..2).map(|_| rng.gen_range(0..=600)).collect();
        s.stalls = vec![Stall { from: rng.gen_range(0..30_000), to: 45_000, side: Sides::Both, queues: rng.gen_range(1..=3) }];
        let reverse = true;
        let probe = s.at_point(latency, 8).unwrap();
        let h = (headroom_bound(&probe.port, latency, probe.mac_overhead_bytes, reverse) as u32).next_multiple_of(8);
        let s = s.at_point(latency, h).unwrap();
        let r = run(&s, false);
        for (d, qs) in r.dirs.iter().enumerate() {
            for (q, x) in qs.iter().enumerate() {
                assert_eq!(x.drops, 0, "{}: dir {d} queue {q}: {x:?}", s.name);
            }
        }
        held += r.dirs.iter().flatten().filter(|q| q.pause_frames > 0).count();
    }
    assert!(held >= 24, "the flow control acted in only {held} queue-directions");
}

fn bad(edit: impl Fn(String) -> String, field: &str) {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tb/scenarios/eth_isolation.toml");
    let text = edit(std::fs::read_to_string(p).unwrap());
    let e = EthScenario::from_toml(&text).expect_err("must be refused");
    assert_eq!(e.field_name(), Some(field), "{e}");
}

#[test]
fn bad_scenarios_name_the_field() {
    let q = "[[port.queue]]\npriorities = 0x02\n";
    bad(|t| t.replacen(q, "[[port.queue]]\npriorities = 0x03\n", 1), "port.queue[1].priorities");
    bad(|t| t.replacen(q, "[[port.queue]]\npriorities = 0\n", 1), "port.queue[1].priorities");
    bad(|t| t.replacen(q, "[[port.queue]]\npriorities = 0x100\n", 1), "port.queue[1].priorities");
    let nine = (0..9).map(|i| format!("[[port.queue]]\npriorities = {}\npause_quanta = 1000\nbuffer_bytes = 4096\n", 1 << (i % 8))).collect::<String>();
    bad(|t| t.replace("[wire]", &format!("{nine}\n[wire]")), "port.queue");
    bad(|t| t.replacen("rfd_bytes = 8192", "rfd_bytes = 16384", 1), "port.queue[0].threshold.rfd_bytes");
    bad(|t| t.replacen("rfa_bytes = 16384", "rfa_bytes = 40000", 1), "port.queue[0].threshold.rfa_bytes");
    bad(|t| t.replacen("size_bytes = 32768, rfa_bytes = 16384, rfd_bytes = 8192", "size_bytes = 2048, rfa_bytes = 1024, rfd_bytes = 512", 1), "port.queue[0].threshold.size_bytes");
    bad(|t| t.replacen("pause_quanta = 1000", "pause_quanta = 65536", 1), "port.queue[0].pause_quanta");
    bad(|t| t.replacen("refresh_quanta = 400", "refresh_quanta = 1000", 1), "port.refresh_quanta");
    bad(|t| t.replacen("tx_queue_bytes = 8192", "tx_queue_bytes = 8192\nspeed = 1", 1), "port.speed");
    bad(|t| t.replacen("latency_clocks = 200", "latency_clocks = 0", 1), "wire.latency_clocks");
    bad(|t| t.replacen("priority = 2", "priority = 5", 1), "traffic[2].priority");
    bad(|t| t.replacen("priority = 2", "priority = 0", 1), "traffic[2].priority");
    bad(|t| t.replacen("frame_bytes = 1522", "frame_bytes = 1523", 1), "traffic[2].frame_bytes");
    bad(|t| t.replacen("frame_bytes = { uniform = [64, 1522] }", "frame_bytes = { uniform = [900, 64] }", 1), "traffic[0].frame_bytes.uniform");
    bad(|t| t.replacen("rate = [1000, 100, 1000]", "rate = [1000, 100]", 1), "drain.rate");
    bad(|t| t.replacen("link = \"ethernet\"", "link = \"ib\"", 1), "link");
    bad(|t| t + "\n[sweep]\nlatency_clocks = [1]\nheadroom_bytes = [0]\n", "sweep.headroom_bytes[0]");
    // Found by the scenario fuzzer: an empty list panicked, RFD 0 never released.
    bad(|t| t + "\n[sweep]\nlatency_clocks = []\nheadroom_bytes = [1024]\n", "sweep.latency_clocks");
    bad(|t| t + "\n[sweep]\nlatency_clocks = [50]\nheadroom_bytes = []\n", "sweep.headroom_bytes");
    bad(|t| t.replacen("rfd_bytes = 8192", "rfd_bytes = 0", 1), "port.queue[0].threshold.rfd_bytes");
    bad(|t| t.replacen("datapath_bits = 64", "datapath_bits = 48", 1), "port.datapath_bits");
}

/// The Rust stepper of the port top (every block's twin, as the Verilog top wires them) on
/// every shipped scenario: the same report as the model, figure for figure.
#[test]
fn rtl_port_equals_the_model_on_the_shipped_scenarios() {
    for name in ["eth_isolation", "eth_pause_mode", "eth_receiver_stall"] {
        let mut s = scenario(name);
        s.cycles = 150_000;
        let m = run(&s, true);
        let r = EthRun::rtl(&s, false, true).unwrap().finish();
        assert!(r.errors.is_empty(), "{name}: {:?}", r.errors);
        assert_eq!(r.backend, "rtl");
        assert_eq!(r.dirs, m.dirs, "{name}");
        assert_eq!(r.frames, m.frames, "{name}: the wire");
    }
}
