//! The timelines tell the truth: every scenario shipped in `tb/scenarios/` that `iblink
//! sim` runs (the link-port ones in the ports' Rust stepper, the Ethernet ones in the
//! generated top's stepper; the headroom sweep's file as the one scenario it describes),
//! and for every timeline window:
//! - no window carries more than the link can: per direction, the bytes of all VLs (all
//!   queues and the PAUSE/PFC frames) are at most `width / 8` a clock of the window
//!   (docs/spec.md §1: a clock carries one word; docs/pfc.md: one word a clock each way);
//! - the windows cover the traffic clocks, from clock 0, without a gap, the last one
//!   ending with the traffic;
//! - each window holds the bytes that crossed the wire in its clocks, per VL (per queue):
//!   counted here, clock by clock, from the ports' own transmit outputs (the VL from the
//!   LRH's first byte, docs/spec.md §3; an Ethernet frame's queue from its 802.1Q PCP and
//!   the queues' masks, docs/spec.md §9), not from the run engine's counters;
//! - conservation: summed over the windows, they are the run's totals (the link run's
//!   `wire_bytes` per VL; the Ethernet run's `sent_bytes` per queue, less what the frame
//!   on the wire at the end of the traffic sends after it).
//!
//! Every scenario runs whole (about 18 s on two cores, the scenarios two at a time);
//! `IBLINK_SYSTEM_CYCLES` replaces every scenario's cycle count (quick runs).

use iblink_model::eth_port::EthPortConfig;
use iblink_sim::eth::run::{EthReport, EthRun};
use iblink_sim::eth::scenario::{is_ethernet, EthScenario};
use iblink_sim::system::run::{RunOpts, SystemRun};
use iblink_sim::system::scenario::Scenario;
use iblink_sim::system::Sample;
use std::path::{Path, PathBuf};

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tb/scenarios")
}

/// The cycle count to run: the scenario's, or `IBLINK_SYSTEM_CYCLES`.
fn cycles(file_cycles: u64) -> u64 {
    std::env::var("IBLINK_SYSTEM_CYCLES").ok().and_then(|x| x.parse().ok()).unwrap_or(file_cycles)
}

/// The windows: from clock 0, `every` clocks each, without a gap, the last ending at
/// `cycles`.
fn check_windows(name: &str, spans: &[(u64, u64)], every: u64, cycles: u64) {
    assert_eq!(spans.len() as u64, cycles.div_ceil(every), "{name}: windows");
    for (k, &(from, to)) in spans.iter().enumerate() {
        let k = k as u64;
        assert_eq!((from, to), (k * every, ((k + 1) * every).min(cycles)), "{name}: window {k}");
    }
}

/// One link-port scenario: the timeline against the ports' transmit words.
fn link(name: &str, mut s: Scenario) {
    s.cycles = cycles(s.cycles);
    let opts = RunOpts { model: false, ..RunOpts::default() };
    let mut sys = SystemRun::new(&s, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let wb = sys.params().width as u64 / 8;
    let every = s.sample_every;
    let windows = s.cycles.div_ceil(every) as usize;
    // Per direction, window and VL: bytes of data and VL15 words sent.
    let mut want = vec![[[0u64; 16]; 2]; windows];
    let mut vl = [0usize; 2];
    while sys.clock < s.cycles {
        let c = sys.clock;
        let outs = sys.step();
        for (d, o) in [outs.0, outs.1].iter().enumerate() {
            // A word counts in the clock it moves: the PHY takes it (docs/spec.md §10).
            if !o.m_axis_phy_tvalid || o.tx_link() || !s.phy_ready(d, c, wb) {
                continue;
            }
            if o.tx_start() {
                vl[d] = (o.m_axis_phy_tdata & 0xff) as usize >> 4;
            }
            let bytes = if o.m_axis_phy_tlast { o.m_axis_phy_tkeep.count_ones() as u64 } else { wb };
            want[(c / every) as usize][d][vl[d]] += bytes;
        }
    }
    let r = sys.run();
    let t = &r.timeline;
    check_windows(name, &t.iter().map(|x| (x.from, x.clock)).collect::<Vec<_>>(), every, s.cycles);
    let n = r.vl_cap;
    let idx = |i: usize| if i == n { 15 } else { i };
    // The line rate first (the telling failure), then window by window what was sent.
    let mut busiest = 0f64;
    for (k, x) in t.iter().enumerate() {
        for d in 0..2 {
            let all: u64 = x.wire_bytes[d].iter().sum();
            assert!(
                all <= wb * x.clocks(),
                "{name}: window {k} ({}..{}) direction {d}: {all} bytes in {} clocks, above {wb} a clock",
                x.from,
                x.clock,
                x.clocks()
            );
            busiest = busiest.max(all as f64 / x.clocks() as f64);
        }
    }
    for (k, x) in t.iter().enumerate() {
        for d in 0..2 {
            let got: Vec<u64> = x.wire_bytes[d].clone();
            let exp: Vec<u64> = (0..=n).map(|i| want[k][d][idx(i)]).collect();
            assert_eq!(got, exp, "{name}: window {k} direction {d}: bytes per VL (VL15 last)");
        }
    }
    // Conservation: the windows add up to the run's totals.
    for (d, rep) in [&r.a_to_b, &r.b_to_a].into_iter().enumerate() {
        for i in 0..=n {
            let sum: u64 = t.iter().map(|x: &Sample| x.wire_bytes[d][i]).sum();
            assert_eq!(sum, rep.wire_bytes[idx(i)], "{name}: direction {d} VL{}", idx(i));
        }
        assert_eq!(rep.wire_bytes.iter().sum::<u64>(), want.iter().map(|w| w[d].iter().sum::<u64>()).sum::<u64>());
        assert!(rep.wire_bytes.iter().sum::<u64>() > 0, "{name}: direction {d} sent nothing");
    }
    eprintln!("{name}: {} clocks, {} windows, busiest {busiest:.3} of {wb} bytes a clock", s.cycles, t.len());
}

/// A frame being sent by one side: its bytes, and the clock and length of each word.
#[derive(Default)]
struct Sending {
    bytes: Vec<u8>,
    words: Vec<(u64, u64)>,
}

/// One Ethernet scenario: the timeline against the ports' wire outputs.
fn ethernet(name: &str, mut s: EthScenario) {
    if let Some(sw) = &s.sweep {
        // The sweep's file as a scenario: its first point.
        s = s.at_point(sw.latency_clocks[0], sw.headroom_bytes[0]).unwrap();
    }
    s.cycles = cycles(s.cycles);
    let cfg = s.port_config(0);
    let nq = cfg.pfc.queues.len();
    let wb = cfg.word_bytes() as u64;
    let every = s.sample_every;
    let windows = s.cycles.div_ceil(every) as usize;
    // Per window and direction: bytes per queue, then the PAUSE/PFC bytes (index nq); the
    // fill's maximum and sum per queue.
    let mut want = vec![[vec![0u64; nq + 1], vec![0u64; nq + 1]]; windows];
    let mut fill = vec![[vec![(0u32, 0u64); nq], vec![(0u32, 0u64); nq]]; windows];
    // Bytes each direction's frame in flight at the end of the traffic sends after it.
    let mut tail = [vec![0u64; nq], vec![0u64; nq]];
    let mut ctrl_sent = [0u64; 2];
    let mut sending = [Sending::default(), Sending::default()];
    let mut run = EthRun::rtl(&s, false, false).unwrap_or_else(|e| panic!("{name}: {e}"));
    // The traffic, then until the frames started in it have ended (the run's flush).
    let started_in_traffic = |f: &Sending| f.words.first().is_some_and(|w| w.0 < s.cycles);
    while run.clock < s.cycles || sending.iter().any(started_in_traffic) {
        let c = run.clock;
        let outs = run.step();
        for (side, o) in outs.iter().enumerate() {
            if c < s.cycles {
                for q in 0..nq {
                    let f = &mut fill[(c / every) as usize][1 - side][q];
                    f.0 = f.0.max(o.fill[q]);
                    f.1 += o.fill[q] as u64;
                }
            }
            let Some(w) = o.wire else { continue };
            let f = &mut sending[side];
            f.bytes.extend(w.bytes());
            f.words.push((c, w.len as u64));
            if !w.last {
                continue;
            }
            let f = std::mem::take(f);
            let control = EthPortConfig::is_control(&f.bytes);
            let q = if control { nq } else { cfg.queue_of(EthPortConfig::priority_of(&f.bytes)) };
            if control && f.words[0].0 < s.cycles {
                ctrl_sent[side] += 1;
            }
            for (wc, len) in f.words.iter().copied() {
                if wc < s.cycles {
                    want[(wc / every) as usize][side][q] += len;
                } else if q < nq && f.words[0].0 < s.cycles {
                    tail[side][q] += len;
                }
            }
        }
    }
    let r: EthReport = run.finish();
    assert!(r.errors.is_empty(), "{name}: {:?}", r.errors);
    let t = &r.timeline;
    check_windows(name, &t.iter().map(|x| (x.from, x.clock)).collect::<Vec<_>>(), every, s.cycles);
    let mut busiest = 0f64;
    for (k, x) in t.iter().enumerate() {
        for d in 0..2 {
            let all = x.total_bytes(d);
            assert!(
                all <= wb * x.clocks(),
                "{name}: window {k} ({}..{}) direction {d}: {all} bytes in {} clocks, above {wb} a clock",
                x.from,
                x.clock,
                x.clocks()
            );
            busiest = busiest.max(all as f64 / x.clocks() as f64);
        }
    }
    for (k, x) in t.iter().enumerate() {
        for d in 0..2 {
            assert_eq!(x.wire_bytes[d], want[k][d][..nq], "{name}: window {k} direction {d}: bytes per queue");
            assert_eq!(x.ctrl_bytes[d], want[k][d][nq], "{name}: window {k} direction {d}: PAUSE/PFC bytes");
            for q in 0..nq {
                let (max, sum) = fill[k][d][q];
                assert_eq!(x.fill_max[d][q], max, "{name}: window {k} direction {d} queue {q}: largest fill");
                assert_eq!(x.fill_mean[d][q], sum as f64 / x.clocks() as f64, "{name}: window {k} direction {d} queue {q}: mean fill");
            }
        }
    }
    for d in 0..2 {
        for q in 0..nq {
            let sum: u64 = t.iter().map(|x| x.wire_bytes[d][q]).sum();
            assert_eq!(sum + tail[d][q], r.dirs[d][q].sent_bytes, "{name}: direction {d} queue {q}: bytes sent");
        }
        // Every PAUSE/PFC frame of the traffic clocks that names a queue is a mark of the
        // direction it holds (these scenarios' masks cover every priority a frame names).
        let marks = r.pause_marks.iter().filter(|m| m.dir == 1 - d).count() as u64;
        assert_eq!(marks, ctrl_sent[d], "{name}: PAUSE/PFC frames side {d} sent");
    }
    let sent: u64 = r.dirs.iter().flatten().map(|q| q.sent_bytes).sum();
    assert!(sent > 0, "{name}: nothing sent");
    eprintln!("{name}: {} clocks, {} windows, busiest {busiest:.3} of {wb} bytes a clock, {} PAUSE/PFC marks", s.cycles, t.len(), r.pause_marks.len());
}

#[test]
fn every_shipped_scenario_stays_under_the_line_rate_and_adds_up() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let (mut links, mut eths) = (0, 0);
    std::thread::scope(|sc| {
        let mut jobs = vec![];
        for p in &files {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).unwrap();
            if is_ethernet(&text) {
                let s = EthScenario::from_file(p).unwrap_or_else(|e| panic!("{name}: {e}"));
                eths += 1;
                jobs.push(sc.spawn(move || ethernet(&name, s)));
            } else if name.starts_with("arb_") {
                // Arbitration tables for `iblink arb-trace`, not `iblink sim` scenarios.
                assert!(Scenario::from_file(p).is_err(), "{name}");
            } else {
                let s = Scenario::from_file(p).unwrap_or_else(|e| panic!("{name}: {e}"));
                links += 1;
                jobs.push(sc.spawn(move || link(&name, s)));
            }
        }
        for j in jobs {
            if let Err(e) = j.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    assert!(links >= 9 && eths >= 4, "{links} link-port and {eths} Ethernet scenarios");
}
