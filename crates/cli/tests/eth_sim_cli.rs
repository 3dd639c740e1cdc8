//! `iblink sim --scenario eth_*.toml` (issue 21): the summary, the exit statuses, and
//! the capture of both directions decoded by tshark (an outside decoder, FCS checked):
//! every frame's FCS good, no expert error, and every PAUSE/PFC frame's fields what the
//! port put on the wire.

use iblink_model::eth_port::EthPortConfig;
use iblink_model::ethernet::{PauseFrame, PauseKind};
use iblink_sim::eth::run::EthRun;
use iblink_sim::eth::scenario::EthScenario;
use std::path::PathBuf;
use std::process::{Command, Output};

fn iblink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).current_dir(root()).output().unwrap()
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
/// equal, nothing lost.
#[test]
fn verilator_back_end_equals_the_model() {
    let out = iblink(&["sim", "--scenario", "tb/scenarios/eth_receiver_stall.toml", "--cycles", "150000", "--backend", "verilator"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("verilator back end") && text.contains("model alongside: every figure above equal"), "{text}");
}
