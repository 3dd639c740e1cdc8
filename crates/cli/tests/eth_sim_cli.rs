//! `iblink sim --scenario eth_*.toml` (issue 21): the summary, the exit statuses, and
//! the capture of both directions decoded by tshark (an outside decoder, FCS checked):
//! every frame's FCS good, no expert error, and every PAUSE/PFC frame's fields what the
//! port put on the wire. Waveforms and the timeline plot (issue 39): both ports' VCDs
//! hold the window asked for, and show port B's PFC frames at the clocks the model sends
//! them; the plot marks the same frames; what cannot be done is refused, naming the flag.

use iblink_model::eth_port::EthPortConfig;
use iblink_model::ethernet::{PauseFrame, PauseKind};
use iblink_sim::eth::run::EthRun;
use iblink_sim::eth::scenario::EthScenario;
use std::path::PathBuf;
use std::process::{Command, Output};

fn iblink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).current_dir(root()).output().unwrap()
}

/// `iblink` in `dir` (a scratch directory: the default outputs go to its build/sim/).
fn iblink_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).current_dir(dir).output().unwrap()
}

/// Clocks at which a 1-bit signal named `name` of a VCD rises, from its timestamps
/// (`per_clock` units a clock; a registered output changes at the edge that ends the
/// clock before, half a clock earlier), and the first timestamp.
fn rises(vcd: &str, name: &str, per_clock: u64) -> (Vec<u64>, u64) {
    let id = vcd
        .lines()
        .find_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.first() == Some(&"$var") && w.get(4) == Some(&name) && w[2] == "1").then(|| w[3].to_string())
        })
        .unwrap_or_else(|| panic!("no 1-bit {name} in the VCD"));
    let (mut t, mut first, mut out) = (0u64, None, vec![]);
    for l in vcd.lines().map(str::trim) {
        if let Some(x) = l.strip_prefix('#') {
            t = x.parse().unwrap();
            first.get_or_insert(t);
        } else if l == format!("1{id}") && first != Some(t) {
            out.push(t.div_ceil(per_clock));
        }
    }
    (out, first.expect("timestamps"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn capture_of_both_directions_decoded_by_tshark() {
    let dir = tempfile::tempdir().unwrap();
    let pcap = dir.path().join("stall.pcap");
    let cycles = "130000";
    let out = iblink(&["sim", "--scenario", "tb/scenarios/eth_receiver_stall.toml", "--cycles", cycles, "--capture", pcap.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("delivered intact and in order"), "{text}");

    // What the ports sent, from the same scenario run here.
    let mut s = EthScenario::from_file(&root().join("tb/scenarios/eth_receiver_stall.toml")).unwrap();
    s.cycles = cycles.parse().unwrap();
    let mut sent = EthRun::model(&s, true).finish().frames;
    sent.sort_by_key(|f| f.0);

    let fields = [
        "frame.len",
        "eth.fcs.status",
        "_ws.expert",
        "eth.src",
        "vlan.priority",
        "macc.opcode",
        "macc.pause_time",
        "macc.cbfc.enbv",
        "macc.cbfc.pause_time.c0",
        "macc.cbfc.pause_time.c1",
        "macc.cbfc.pause_time.c2",
        "macc.cbfc.pause_time.c3",
        "macc.cbfc.pause_time.c4",
        "macc.cbfc.pause_time.c5",
        "macc.cbfc.pause_time.c6",
        "macc.cbfc.pause_time.c7",
    ];
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-o", "eth.fcs:Always", "-o", "eth.check_fcs:TRUE", "-r"]).arg(&pcap);
    cmd.args(["-T", "fields", "-E", "separator=/t"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let o = cmd.output().expect("tshark is needed (make deps installs it)");
    assert!(o.status.success(), "tshark: {}", String::from_utf8_lossy(&o.stderr));
    let rows: Vec<Vec<String>> = String::from_utf8(o.stdout).unwrap().lines().map(|l| l.split('\t').map(str::to_string).collect()).collect();
    assert_eq!(rows.len(), sent.len(), "frames in the capture");
    let (mut pfc, mut releases) = (0, 0);
    for (r, (_, side, f)) in rows.iter().zip(&sent) {
        assert_eq!(r[0], f.len().to_string());
        assert_eq!(r[1], "1", "FCS good: {r:?}");
        assert_eq!(r[2], "", "no expert info: {r:?}");
        assert_eq!(r[3], ["02:00:00:00:00:0a", "02:00:00:00:00:0b"][*side]);
        if !EthPortConfig::is_control(f) {
            assert_eq!(r[4], EthPortConfig::priority_of(f).to_string());
            assert_eq!(r[5], "");
            continue;
        }
        let PauseKind::Pfc { enable, times } = PauseFrame::decode(f).unwrap().kind else { panic!("PFC mode") };
        assert_eq!(r[5], "0x0101");
        assert_eq!(r[7], format!("0x{enable:04x}"));
        for p in 0..8 {
            let want = if enable >> p & 1 == 1 { times[p].to_string() } else { String::new() };
            // tshark shows a time for enabled classes only.
            assert!(r[8 + p] == want || enable >> p & 1 == 0, "c{p}: {r:?}");
        }
        pfc += 1;
        releases += times.iter().all(|&t| t == 0) as u32;
    }
    assert!(pfc >= 4, "{pfc} PFC frames");
    assert!(releases >= 1, "the flush releases the hold: {releases}");
    // The summary counts what the capture holds: per queue, the PAUSE/PFC frames
    // (+releases) that name its priorities, the flush's included.
    let mut in_capture = 0u64;
    for (_, side, f) in &sent {
        if let Ok(PauseFrame { kind: PauseKind::Pfc { enable, .. }, .. }) = PauseFrame::decode(f) {
            let queues = &s.port_config(*side).pfc.queues;
            in_capture += queues.iter().filter(|q| q.priorities as u16 & enable != 0).count() as u64;
        }
    }
    let in_summary: u64 = text
        .lines()
        .filter(|l| l.trim_start().starts_with("PAUSE/PFC frames"))
        .flat_map(|l| l.split(|c: char| !c.is_ascii_digit()).filter_map(|n| n.parse::<u64>().ok()).collect::<Vec<_>>())
        .sum();
    assert_eq!(in_summary, in_capture, "the summary's PAUSE/PFC frames (+releases) against the capture's\n{text}");
}

#[test]
fn bad_scenario_and_backend_exit_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("eth_bad.toml");
    let text = std::fs::read_to_string(root().join("tb/scenarios/eth_isolation.toml")).unwrap();
    std::fs::write(&p, text.replacen("priorities = 0x02", "priorities = 0x03", 1)).unwrap();
    let cap = dir.path().join("x.pcap");
    let o = iblink(&["sim", "--scenario", p.to_str().unwrap(), "--capture", cap.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("port.queue[1].priorities") && e.contains("overlaps queue[0]"), "{e}");
    assert!(!cap.exists(), "nothing written");
    let o = iblink(&["sim", "--scenario", "tb/scenarios/eth_headroom_sweep.toml", "--backend", "rtl"]);
    assert_eq!(o.status.code(), Some(2));
    // A buffer the generated top cannot hold, on an RTL back end.
    std::fs::write(&p, text.replacen("size_bytes = 32768", "size_bytes = 65536", 1)).unwrap();
    let o = iblink(&["sim", "--scenario", p.to_str().unwrap(), "--backend", "rtl"]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("port.queue[0].buffer_bytes"), "{e}");
    let o = iblink(&["sim", "--scenario", "tb/scenarios/sys_receiver_stall.toml", "--backend", "model"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The generated top under Verilator on a scenario, the model alongside: every figure
/// equal, nothing lost; its waveforms of a window (a traced build), port B's PFC frames
/// rising where the model sends them.
#[test]
fn verilator_back_end_equals_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().to_str().unwrap();
    let (from, to) = (100_000u64, 112_000u64);
    let window = format!("{from}..{to}");
    let out = iblink(&["sim", "--scenario", "tb/scenarios/eth_receiver_stall.toml", "--cycles", "150000", "--backend", "verilator", "--vcd", vcd, "--vcd-window", &window]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("verilator back end") && text.contains("model alongside: every figure above equal"), "{text}");
    assert!(text.contains(&format!("clocks {from} to {} (VCD time 10 units a clock)", to - 1)), "{text}");
    // What port B sent in the window, from the model: its frames' first clocks.
    let mut s = EthScenario::from_file(&root().join("tb/scenarios/eth_receiver_stall.toml")).unwrap();
    s.cycles = 150_000;
    let sent: Vec<u64> = EthRun::model(&s, true).finish().frames.iter().filter(|f| f.1 == 1 && (from..to).contains(&f.0)).map(|f| f.0).collect();
    let b = std::fs::read_to_string(dir.path().join("port_b.vcd")).unwrap();
    let (up, first) = rises(&b, "m_axis_mac_tvalid", 10);
    assert_eq!(first, from * 10, "the file starts at the window");
    // m_axis_mac_tvalid rises once per frame unless frames go back to back: where the frame's first
    // word is offered, which the MAC takes after the preamble and gap it still owes (at
    // most 5 clocks at 32 bits: docs/pfc.md, Headroom).
    assert!(!up.is_empty() && up.iter().all(|c| sent.iter().any(|f| (*c..=c + 5).contains(f))), "port B's m_axis_mac_tvalid rises {up:?}, frames {sent:?}");
    assert!(std::fs::metadata(dir.path().join("port_a.vcd")).unwrap().len() > 0);
}

/// eth_isolation in the rtl back end with `--plot` (no file: the default place) and a
/// waveform window around one of B's PFC refreshes and its release: both ports' VCDs
/// hold the window only, port B's tx_valid rises exactly where the model sends B's PFC
/// frames (B sends nothing else), and the plot marks those frames. `--sample-every`
/// sets the windows.
#[test]
fn plot_and_waveform_window_of_an_ethernet_run() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = root().join("tb/scenarios/eth_isolation.toml");
    let sc = scenario.to_str().unwrap();
    let (from, to) = (23_000u64, 25_000u64);
    let window = format!("{from}..{to}");
    let o = iblink_in(dir.path(), &["sim", "--scenario", sc, "--cycles", "30000", "--sample-every", "1000", "--plot", "--vcd-window", &window]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}\n{}", String::from_utf8_lossy(&o.stderr));
    let base = dir.path().join("build/sim/eth_isolation");
    assert!(
        text.contains("waveforms: build/sim/eth_isolation/port_a.vcd, build/sim/eth_isolation/port_b.vcd") && text.contains(&format!("clocks {from} to {} (VCD time 10,000 ps a clock)", to - 1)),
        "{text}"
    );
    let mut s = EthScenario::from_file(&scenario).unwrap();
    s.cycles = 30_000;
    s.sample_every = 1_000;
    let model = EthRun::model(&s, true).finish();
    let pfc: Vec<u64> = model.frames.iter().filter(|f| f.1 == 1).map(|f| f.0).collect();
    assert!(model.frames.iter().filter(|f| f.1 == 1).all(|f| EthPortConfig::is_control(&f.2)), "B sends PFC frames only");
    let in_window: Vec<u64> = pfc.iter().copied().filter(|c| (from..to).contains(c)).collect();
    assert!(in_window.len() >= 2, "a pause and a release in the window: {pfc:?}");
    let b = std::fs::read_to_string(base.join("port_b.vcd")).unwrap();
    let (up, first) = rises(&b, "m_axis_mac_tvalid", 10_000);
    assert_eq!(first, from * 10_000, "the file starts at the window");
    assert_eq!(up, in_window, "port B's m_axis_mac_tvalid rises at its PFC frames");
    let last: u64 = b.lines().filter_map(|l| l.strip_prefix('#')).map(|t| t.parse().unwrap()).max().unwrap();
    assert!(last < to * 10_000, "nothing after the window: {last}");
    let a = std::fs::read_to_string(base.join("port_a.vcd")).unwrap();
    assert!(a.contains("$enddefinitions") && a.contains("paused"), "port A's VCD");
    // The plot: 30 windows; a mark per PFC frame B sent.
    assert!(text.contains(&format!("plot: build/sim/eth_isolation/timeline.svg (30 windows of 1000 clocks, {} PAUSE/PFC frames marked)", pfc.len())), "{text}");
    let svg = std::fs::read_to_string(base.join("timeline.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    let mut marked: Vec<u64> = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("mark ")))
        .map(|n| n.attribute("data-clock").unwrap().parse().unwrap())
        .collect();
    marked.sort();
    assert_eq!(marked, pfc, "one mark per PFC frame (each names queue 1 only)");
    for id in ["throughput-AtoB", "throughput-BtoA", "fill-AtoB", "fill-BtoA", "marks-AtoB", "marks-BtoA"] {
        assert!(doc.descendants().any(|n| n.attribute("id") == Some(id)), "{id}");
    }
}

/// The model back end plots (its timeline is the run's) but writes no waveform; a sweep
/// neither; an Ethernet wire has no receiver's view to choose; a window after the
/// traffic, a plot that is a folder, a capture in the other format: each exits 2 naming
/// the flag, nothing written (missing folders are made: `cli_rule.rs`).
#[test]
fn ethernet_plot_and_waveform_flags_refused_where_they_cannot_apply() {
    let dir = tempfile::tempdir().unwrap();
    let iso = root().join("tb/scenarios/eth_isolation.toml");
    let sweep = root().join("tb/scenarios/eth_headroom_sweep.toml");
    let (iso, sweep) = (iso.to_str().unwrap(), sweep.to_str().unwrap());
    let o = iblink_in(dir.path(), &["sim", "--scenario", iso, "--cycles", "20000", "--backend", "model", "--plot", "m.svg"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    roxmltree::Document::parse(&std::fs::read_to_string(dir.path().join("m.svg")).unwrap()).unwrap();
    std::fs::remove_file(dir.path().join("m.svg")).unwrap();
    let cases: &[(&[&str], &str, &str)] = &[
        (&["--scenario", iso, "--backend", "model", "--vcd-window", "10..20", "--plot", "p.svg"], "--vcd-window", "--backend rtl"),
        (&["--scenario", iso, "--backend", "model", "--vcd", "."], "--vcd", "writes no waveform"),
        (&["--scenario", sweep, "--plot", "p.svg"], "--plot", "sweep"),
        (&["--scenario", sweep, "--sample-every", "100"], "--sample-every", "sweep"),
        (&["--scenario", iso, "--capture", "c.pcap", "--capture-view", "sender", "--plot", "p.svg"], "--capture-view", "loses and damages nothing"),
        (&["--scenario", iso, "--vcd-window", "400000..400010", "--plot", "p.svg"], "--vcd-window", "starts after"),
        (&["--scenario", iso, "--plot", "."], "--plot", "is a folder"),
        (&["--scenario", iso, "--capture", "c.erf"], "--capture", "FILE.pcap"),
    ];
    for (args, flag, why) in cases {
        let mut a = vec!["sim"];
        a.extend_from_slice(args);
        let o = iblink_in(dir.path(), &a);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains(flag) && e.contains(why), "{args:?}: {e}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "{args:?} wrote {left:?}");
    }
}
