//! `iblink sim` as a user runs it: a short scenario end to end (summary, waveforms, the
//! timeline plot read back as XML, the ERF capture read back and decoded by tshark), a
//! run with faults (lost and flipped items as the capture marks them), and bad input.
//!
//! Expected values come from the scenario (SL -> VL, packet sizes), docs/spec.md (LNH 2,
//! FCP Op 1 only before data flows, the CRCs computed in the shared tshark check), the
//! reference model's FCP encoder/decoder and IBA parser, and Wireshark; the capture's
//! counts are compared with the engine's own ledger as printed in the summary.


use iblink_model::erf::{read_all, ErfRecord};
use iblink_model::fcp::{Fcp, FcpOp};
use iblink_model::iba::{self, Transport};
use iblink_model::sl2vl::VlCap;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};
use iblink_testkit::tshark::{check_data, tshark_fields, tshark_fields_with, ERF_LOSS, ERF_RX_ERROR};

fn iblink(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Four SLs on VLCap 4 (default SL->VL: SL mod 4; SL15 -> VL15), sizes from the
/// shortest packet (PktLen 6) to the longest (1048), moderate load both ways.
const TRAFFIC: &str = r#"
[port]
vl_cap = 4
datapath_bits = 32

[[traffic]]
sl = 0
pktlen = { uniform = [6, 120] }
load = 250

[[traffic]]
sl = 1
pktlen = [6, 7, 8, 9, 10, 11, 64, 300]
load = 250

[[traffic]]
sl = 2
pktlen = 1048
load = 200

[[traffic]]
sl = 7
pktlen = [20, 40]
load = 100

[[traffic]]
sl = 15
pktlen = 64
load = 30
"#;

/// The sizes each SL may send (from TRAFFIC), and its VL.
fn sl_sizes(sl: u8) -> (u8, Box<dyn Fn(u16) -> bool>) {
    match sl {
        0 => (0, Box::new(|p| (6..=120).contains(&p))),
        1 => (1, Box::new(|p| [6, 7, 8, 9, 10, 11, 64, 300].contains(&p))),
        2 => (2, Box::new(|p| p == 1048)),
        7 => (3, Box::new(|p| p == 20 || p == 40)),
        15 => (15, Box::new(|p| p == 64)),
        _ => panic!("SL {sl} sends nothing in this scenario"),
    }
}

fn write_scenario(dir: &Path, name: &str, head: &str) -> String {
    let file = format!("{name}.toml");
    std::fs::write(
        dir.join(&file),
        format!("name = \"{name}\"\n{head}\n{TRAFFIC}"),
    )
    .unwrap();
    file
}

/// The four numbers of a summary row (A→B, model, B→A, model) whose cells are numbers.
fn row(out: &str, label: &str) -> [u64; 4] {
    let line = out
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no row {label:?} in\n{out}"));
    let v: Vec<u64> = line[label.len()..]
        .split_whitespace()
        .map(|x| x.parse().unwrap_or_else(|_| panic!("{line}")))
        .collect();
    v.try_into().unwrap_or_else(|_| panic!("{line}"))
}

/// The "a/b/c" cells of a row, per direction.
fn slash_row(out: &str, label: &str) -> [Vec<u64>; 2] {
    let line = out.lines().find(|l| l.starts_with(label)).unwrap();
    let cells: Vec<Vec<u64>> = line[label.len()..]
        .split_whitespace()
        .filter(|c| c.contains('/'))
        .map(|c| c.split('/').map(|x| x.parse().unwrap()).collect())
        .collect();
    [cells[0].clone(), cells[1].clone()]
}

/// Numbers in the line starting with `prefix`, in order.
fn numbers_in(out: &str, prefix: &str) -> Vec<u64> {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in\n{out}"));
    line[prefix.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// The number right before `word` in the line starting with `prefix` ("306 records").
fn count_before(out: &str, prefix: &str, word: &str) -> u64 {
    let line = out.lines().find(|l| l.starts_with(prefix)).unwrap();
    let at = line
        .find(&format!(" {word}"))
        .unwrap_or_else(|| panic!("{word} in {line}"));
    let digits: String = line[..at]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

/// The timeline plot: well-formed SVG, four panels, one polyline per VL (and the total)
/// in the throughput panels, two per VL (window maximum and mean) in the occupancy
/// panels, each with two points per timeline sample (a step across its window).
fn check_plot(svg: &str, samples: usize) {
    let doc = roxmltree::Document::parse(svg).expect("the plot is well-formed XML");
    let panels: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("panel"))
        .collect();
    let ids: BTreeSet<&str> = panels.iter().map(|p| p.attribute("id").unwrap()).collect();
    let want: BTreeSet<&str> = [
        "throughput-AtoB",
        "occupancy-AtoB",
        "throughput-BtoA",
        "occupancy-BtoA",
    ]
    .into();
    assert_eq!(ids, want);
    for p in panels {
        let id = p.attribute("id").unwrap();
        let vls: Vec<String> = p
            .children()
            .filter(|n| n.tag_name().name() == "polyline" && n.has_attribute("data-vl"))
            .map(|n| {
                if id.starts_with("occupancy") {
                    let pts = n.attribute("points").unwrap().split_whitespace().count();
                    assert_eq!(pts, 2 * samples, "{id}: a step across each window");
                }
                format!("{} {}", n.attribute("data-vl").unwrap(), n.attribute("data-stat").unwrap())
            })
            .collect();
        let want: Vec<String> = if id.starts_with("throughput") {
            ["0", "1", "2", "3", "15", "all"].iter().map(|v| format!("{v} mean")).collect()
        } else {
            ["0", "1", "2", "3", "15"].iter().flat_map(|v| [format!("{v} max"), format!("{v} mean")]).collect()
        };
        assert_eq!(vls, want, "{id}");
    }
}

fn is_link(r: &ErfRecord) -> bool {
    r.type_code() == 25
}

/// The capture checked against the scenario, docs/spec.md, the reference model and tshark.
/// `marks`: the capture may carry RX error flags and loss counters (receiver view).
fn check_capture(path: &Path, marks: bool) -> Vec<ErfRecord> {
    let recs = read_all(&std::fs::read(path).unwrap()).expect("the capture reads back");
    // Time order, both directions, nothing but types 21 and 25.
    assert!(recs.windows(2).all(|w| w[0].ts <= w[1].ts));
    for iface in 0..2 {
        assert!(
            recs.iter()
                .filter(|r| r.iface() == iface && is_link(r))
                .count()
                >= 20
        );
        assert!(
            recs.iter()
                .filter(|r| r.iface() == iface && !is_link(r))
                .count()
                >= 20
        );
    }
    assert!(recs
        .iter()
        .all(|r| r.iface() < 2 && [21, 25].contains(&r.type_code())));
    if !marks {
        assert!(recs.iter().all(|r| !r.rx_error() && r.lctr == 0));
    }
    // tshark as installed, and with two payload heuristics off: Wireshark 4.0 claims RC
    // SEND payloads under 20 bytes (PktLen <= 10) as RPC-over-RDMA, and an empty UD SEND
    // payload (PktLen 8) as Mellanox EoIB, and calls them malformed; everything else must
    // decode cleanly either way.
    let plain = tshark_fields(path);
    let frames = tshark_fields_with(
        path,
        &["--disable-heuristic", "rpcrdma_infiniband", "--disable-heuristic", "mellanox_eoib"],
    );
    assert_eq!((plain.len(), frames.len()), (recs.len(), recs.len()));
    let mut seen: BTreeMap<(u8, u8), Vec<u32>> = BTreeMap::new(); // (iface, VL) -> PSNs
    let mut short_claimed = 0;
    for (i, ((r, fr), pl)) in recs.iter().zip(&frames).zip(&plain).enumerate() {
        let ctx = format!(
            "frame {} (interface {}, type {})",
            i + 1,
            r.iface(),
            r.type_code()
        );
        assert_eq!(fr.n("frame.number"), i as u64 + 1, "{ctx}");
        assert_eq!(fr.n("erf.types.type"), r.type_code() as u64, "{ctx}");
        assert_eq!(fr.n("erf.flags.cap"), r.iface() as u64, "{ctx}");
        assert_eq!(fr.n("erf.flags.rxe"), r.rx_error() as u64, "{ctx}");
        assert_eq!(fr.n("erf.lctr"), r.lctr as u64, "{ctx}");
        let mut allowed = vec![];
        if r.rx_error() {
            allowed.push(ERF_RX_ERROR);
        }
        if r.lctr > 0 {
            allowed.push(ERF_LOSS);
        }
        if is_link(r) {
            // FCPs: the reference decoder and encoder (tshark 4.0 wants 8-byte link
            // packets and calls every correct 6-byte FCP malformed).
            assert_eq!(fr.s("frame.protocols"), "erf:infiniband_link", "{ctx}");
            assert_eq!(fr.n("frame.len"), 6, "{ctx}");
            let fcp = Fcp::decode(&r.data, VlCap::new(4).unwrap())
                .unwrap_or_else(|e| panic!("{ctx}: {e}"));
            assert_eq!(
                fcp.encode().as_slice(),
                r.data.as_slice(),
                "{ctx}: raw bytes"
            );
            continue;
        }
        let p = iba::parse(&r.data).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        check_data(fr, &ctx, &p.fields, p.payload, &r.data, &allowed);
        // What the scenario says this packet can be.
        let (vl, size_ok) = sl_sizes(p.fields.sl);
        assert_eq!(p.fields.vl, vl, "{ctx}: SL {} goes on VL {vl}", p.fields.sl);
        assert!(
            size_ok(p.pkt_len),
            "{ctx}: PktLen {} for SL {}",
            p.pkt_len,
            p.fields.sl
        );
        seen.entry((r.iface(), vl)).or_default().push(p.fields.psn);
        // Without the heuristic switched off: clean, or a short packet it claimed.
        if pl.s("_ws.malformed").is_empty() {
            check_data(pl, &ctx, &p.fields, p.payload, &r.data, &allowed);
        } else {
            assert!(
                p.pkt_len <= 10,
                "{ctx}: malformed in tshark: {}",
                pl.s("_ws.expert.message")
            );
            let claimed_by = pl.s("frame.protocols");
            assert!(
                claimed_by.ends_with(":rpcordma") && p.fields.transport == Transport::RcSendOnly
                    || claimed_by.ends_with(":infiniband.eoib") && p.payload.is_empty(),
                "{ctx}: {claimed_by}"
            );
            short_claimed += 1;
        }
    }
    // Each VL's packets in order (PSNs rise; the scenario's PSN space does not wrap).
    for ((iface, vl), psns) in &seen {
        assert!(
            psns.windows(2).all(|w| w[0] < w[1]),
            "interface {iface} VL{vl}: {psns:?}"
        );
    }
    assert_eq!(seen.len(), 10, "every VL both ways: {:?}", seen.keys());
    eprintln!(
        "{}: {} records, {short_claimed} short data packets claimed by a payload heuristic",
        path.display(),
        recs.len()
    );
    recs
}

/// docs/spec.md §5: FCPs carry Op 1 only in LinkInitialize, data flows only in LinkActive:
/// in each direction every Init FCP comes before every data packet, and Normal FCPs
/// follow.
fn check_link_bring_up(recs: &[ErfRecord]) {
    for iface in 0..2 {
        let mine: Vec<&ErfRecord> = recs.iter().filter(|r| r.iface() == iface).collect();
        let op = |r: &ErfRecord| Fcp::decode(&r.data, VlCap::MAX).unwrap().op;
        let last_init = mine
            .iter()
            .rposition(|r| is_link(r) && op(r) == FcpOp::Init)
            .unwrap();
        let first_data = mine.iter().position(|r| !is_link(r)).unwrap();
        assert!(last_init < first_data, "interface {iface}");
        assert!(mine.iter().any(|r| is_link(r) && op(r) == FcpOp::Normal));
    }
}

#[test]
fn clean_run_end_to_end_with_tshark() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_scenario(
        dir.path(),
        "cli_clean",
        "cycles = 14000\nseed = 3\nsample_every = 500\n[channel]\nlatency_clocks = 8\n",
    );
    let o = iblink(
        dir.path(),
        &["sim", "--scenario", &file, "--capture", "run.erf"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{out}\n{err}");
    eprintln!("{out}");
    // The summary: both directions beside the model, every VL, the files.
    assert!(
        out.starts_with(
            "iblink sim: cli_clean (rtl back end), VLCap 4, 32-bit link, 14000 traffic clocks"
        ),
        "{out}"
    );
    for label in [
        "link busy",
        "idle clocks while a VL eligible",
        "dropped: buffer overrun",
        "FCPs sent / lost / flipped",
        "link retrains: 0",
    ] {
        assert!(out.contains(label), "{label}");
    }
    for vl in ["VL0 ", "VL1 ", "VL2 ", "VL3 ", "VL15 "] {
        assert!(out.lines().any(|l| l.starts_with(vl)), "{vl}");
    }
    assert!(out.contains("faults: none"));
    // No fault, no retrain: the model's figures agree with the run's, none marked.
    assert!(out.contains("model vs RTL: no retrain in either run; link busy within 2 points in both directions"), "{out}");
    assert!(!out.contains(" !") && !out.contains(" ~"), "{out}");
    let generated = row(&out, "packets generated");
    let delivered = row(&out, "packets delivered");
    // Nothing lost on a clean link: all delivered, in the RTL and in the model.
    assert_eq!(generated, delivered);
    for label in [
        "dropped: lost on the wire",
        "dropped: buffer overrun",
        "dropped: link retrain",
        "in flight at the end",
    ] {
        assert_eq!(row(&out, label), [0; 4], "{label}");
    }
    // Waveforms and plot where the defaults put them.
    let base = dir.path().join("build/sim/cli_clean");
    for vcd in ["port_a.vcd", "port_b.vcd"] {
        let text = std::fs::read_to_string(base.join(vcd)).unwrap();
        assert!(text.contains("$enddefinitions"), "{vcd} is a VCD");
    }
    let samples = numbers_in(&out, "plot: build/sim/cli_clean/timeline.svg")[0] as usize;
    assert!(samples >= 14000 / 500, "{samples} samples");
    check_plot(
        &std::fs::read_to_string(base.join("timeline.svg")).unwrap(),
        samples,
    );
    // The capture: what the summary says it holds, then record by record.
    let c = |w| count_before(&out, "capture: run.erf", w);
    let recs = check_capture(&dir.path().join("run.erf"), false);
    let data = |iface| {
        recs.iter()
            .filter(|r| r.iface() == iface && !is_link(r))
            .count() as u64
    };
    let fcps = |iface| {
        recs.iter()
            .filter(|r| r.iface() == iface && is_link(r))
            .count() as u64
    };
    assert_eq!(
        [c("records"), c("data"), c("FCPs")],
        [recs.len() as u64, data(0) + data(1), fcps(0) + fcps(1)]
    );
    // Every packet delivered was on the wire once; every FCP sent is there.
    assert_eq!([data(0), data(1)], [delivered[0], delivered[2]]);
    let f = slash_row(&out, "FCPs sent / lost / flipped");
    assert_eq!([fcps(0), fcps(1)], [f[0][0], f[1][0]]);
    check_link_bring_up(&recs);
}

/// FCPs and data packets lost, data packets and FCPs flipped: the receiver view leaves
/// the lost items out (loss counters) and flags the flipped ones.
#[test]
fn faulty_run_capture_marks_lost_and_flipped_items() {
    faulty_run("fcp_loss = 0.1\ndata_loss = 0.03\nbit_flip = 0.03\n", true);
}

fn faulty_run(channel: &str, data_loss: bool) {
    let dir = tempfile::tempdir().unwrap();
    let head = format!(
        "cycles = 14000\nseed = 9\nsample_every = 1000\n[channel]\nlatency_clocks = 8\n{channel}"
    );
    let file = write_scenario(dir.path(), "cli_faults", &head);
    let mut outs = vec![];
    for (cap, view) in [("rx.erf", "receiver"), ("tx.erf", "sender")] {
        let o = iblink(
            dir.path(),
            &[
                "sim",
                "--scenario",
                &file,
                "--no-vcd",
                "--capture",
                cap,
                "--capture-view",
                view,
            ],
        );
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        outs.push(out);
    }
    let out = &outs[0];
    eprintln!("{out}");
    assert!(
        !dir.path().join("build/sim/cli_faults/port_a.vcd").exists(),
        "--no-vcd"
    );
    assert!(
        out.contains("link retrains: 0"),
        "this test wants no retrain"
    );
    let rx = check_capture(&dir.path().join("rx.erf"), true);
    let tx = check_capture(&dir.path().join("tx.erf"), false);
    for iface in 0..2u8 {
        let k = iface as usize;
        let rxi: Vec<&ErfRecord> = rx.iter().filter(|r| r.iface() == iface).collect();
        let txi: Vec<&ErfRecord> = tx.iter().filter(|r| r.iface() == iface).collect();
        // The receiver's view is the sender's with the lost items taken out; each record
        // counts the items lost since the previous one of its direction.
        let mut at = 0;
        let mut lost = [0u64; 2]; // data, FCP
        for r in &rxi {
            let mut gap = 0;
            while txi[at].data != r.data || txi[at].ts != r.ts {
                lost[is_link(txi[at]) as usize] += 1;
                gap += 1;
                at += 1;
            }
            assert_eq!(r.lctr, gap, "interface {iface}");
            at += 1;
        }
        for t in &txi[at..] {
            lost[is_link(t) as usize] += 1;
        }
        // The engine's ledger, as printed: lost data packets, and FCPs sent/lost/flipped.
        let wire_loss = row(out, "dropped: lost on the wire")[2 * k];
        let flips = slash_row(out, "dropped: bit flip (VCRC/len/VL)")[k]
            .iter()
            .sum::<u64>();
        let f = &slash_row(out, "FCPs sent / lost / flipped")[k];
        assert_eq!(
            lost,
            [wire_loss, f[1]],
            "interface {iface}: lost data, FCPs"
        );
        assert_eq!(txi.iter().filter(|r| is_link(r)).count() as u64, f[0]);
        // Every flipped data packet was discarded by the receiver's checks (one bit
        // flipped: VCRC catches it), every flipped FCP too.
        let flagged = |link: bool| {
            rxi.iter()
                .filter(|r| r.rx_error() && is_link(r) == link)
                .count() as u64
        };
        assert_eq!(
            (flagged(false), flagged(true)),
            (flips, f[2]),
            "interface {iface}: flipped data, FCPs"
        );
        assert!(
            (lost[0] > 0) == data_loss && lost[1] > 0 && flips > 0 && f[2] > 0,
            "interface {iface}: the faults happened"
        );
    }
    // Both views' summaries are the same run.
    let table = |o: &str| {
        o.lines()
            .take_while(|l| !l.starts_with("waveforms") && !l.starts_with("plot"))
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(table(&outs[0]), table(&outs[1]));
}

#[test]
fn bad_scenarios_name_the_field_and_write_nothing() {
    let cases = [
        (
            "cycles = 100\n[channel]\nfcp_loss = 2.0\n",
            "channel.fcp_loss",
        ),
        ("cycels = 100\n", "cycels"),
        ("[port]\nvl_cap = 3\n", "port.vl_cap"),
        ("[[traffic]]\nsl = 0\npktlen = 5\n", "traffic[0].pktlen"),
        (
            "[[traffic]]\nsl = 0\npktlen = { uniform = [10, 2000] }\n",
            "traffic[0].pktlen.uniform[1]",
        ),
        ("cycles = 100\nsample_every = 0\n", "sample_every"),
        // Out of range stays an error (docs/spec.md §6: VL 4 bits, weight 8 bits, 64 entries).
        ("[port]\nhigh = [[16, 1]]\n", "port.high[0].vl"),
        ("[port]\nlow = [[0, 1], [1, 256]]\n", "port.low[1].weight"),
        ("[port]\nweights = 1\n", "weights"),
    ];
    for (text, field) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bad.toml"), text).unwrap();
        let o = iblink(
            dir.path(),
            &[
                "sim",
                "--scenario",
                "bad.toml",
                "--capture",
                "c.erf",
                "--plot",
                "p.svg",
            ],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(
            err.contains(field),
            "{text}: the error should name {field}: {err}"
        );
        assert!(o.stdout.is_empty(), "{text}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["bad.toml"], "{text}: nothing written");
    }
    // An output the run could not write (a file where its folder must go) is refused
    // before the run.
    let dir = tempfile::tempdir().unwrap();
    let file = write_scenario(dir.path(), "ok", "cycles = 100\n");
    std::fs::write(dir.path().join("f"), "a file in the way").unwrap();
    let o = iblink(
        dir.path(),
        &["sim", "--scenario", &file, "--capture", "f/c.erf"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--capture"), "{err}");
    assert!(!dir.path().join("build").exists());
}

/// docs/spec.md §6: a scenario's port tables may name VL15, a VL at or above VLCap, or give
/// weight 0; each such entry is named in a warning, the run goes on (exit 0), and the
/// ports skip them: VL1..VL3 (named by valid entries) carry all the traffic, in the RTL
/// and in the model. 65 entries stay an error.
#[test]
fn skipped_table_entries_warn_and_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("sm.toml"),
        "name = \"sm\"\ncycles = 6000\n[port]\nvl_cap = 4\nvl_high_limit = 2\n\
         high = [[15, 20], [0, 0], [1, 8]]\nlow = [[6, 50], [2, 64], [3, 64]]\n\
         [[traffic]]\nsl = 1\npktlen = 100\n[[traffic]]\nsl = 2\npktlen = 40\n[[traffic]]\nsl = 3\npktlen = 7\n",
    )
    .unwrap();
    let o = iblink(dir.path(), &["sim", "--scenario", "sm.toml", "--no-vcd", "--plot", "p.svg"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let warned: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    let want = [
        "sm.toml: port.high[0]: VL15 is never arbitrated: skipped",
        "sm.toml: port.high[1]: VL0 has weight 0: skipped",
        "sm.toml: port.low[0]: VL6 is not a data VL of this port (VLCap 4): skipped",
    ];
    assert_eq!(warned.len(), want.len(), "{err}");
    for (line, w) in warned.iter().zip(want) {
        assert!(line.ends_with(w), "{line}: expected {w}");
    }
    // Every packet generated was delivered, in the RTL and in the model.
    let generated = row(&out, "packets generated");
    assert!(generated.iter().all(|&n| n > 20), "{out}");
    assert_eq!(generated, row(&out, "packets delivered"), "{out}");
    // VL0 is named only by a weight-0 entry and has no traffic: no weight share, and no
    // share of the blocks sent in either direction, RTL or model.
    let vl0 = out.lines().find(|l| l.starts_with("VL0 ")).unwrap();
    assert_eq!(vl0.matches("0.00 %").count(), 5, "{vl0}");
    let many = vec!["[1, 1]"; 65].join(", ");
    std::fs::write(dir.path().join("long.toml"), format!("cycles = 100\n[port]\nlow = [{many}]\n")).unwrap();
    let o = iblink(dir.path(), &["sim", "--scenario", "long.toml", "--no-vcd", "--plot", "q.svg"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("port.low: 65 entries, at most 64"), "{err}");
    assert!(!dir.path().join("q.svg").exists());
}

/// `--vcd-window FROM..TO`: both ports' waveforms hold clocks FROM up to TO only. The
/// rust-hdl back end's VCD time is 10,000 ps a clock from the first clock, two
/// timestamps a clock (clock low, then the rising edge), so every timestamp lies in
/// `[FROM * 10000, TO * 10000)` and the first is `FROM * 10000`; the summary says which
/// clocks the waveform covers. A window that is not FROM..TO with FROM below TO, or
/// that starts after the traffic clocks, is refused naming `--vcd-window`, with nothing
/// written.
#[test]
fn vcd_window_keeps_only_its_clocks() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_scenario(dir.path(), "cli_window", "cycles = 3000\nseed = 4\n");
    std::fs::create_dir(dir.path().join("w")).unwrap();
    let o = iblink(dir.path(), &["sim", "--scenario", &file, "--vcd", "w", "--vcd-window", "1000..1200"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    let line = out.lines().find(|l| l.starts_with("waveforms: w/port_a.vcd, w/port_b.vcd")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("clocks 1000 to 1199"), "{line}");
    for port in ["port_a.vcd", "port_b.vcd"] {
        let text = std::fs::read_to_string(dir.path().join("w").join(port)).unwrap();
        assert!(text.contains("$timescale 1 ps $end") && text.contains("$dumpvars"), "{port}");
        let stamps: Vec<u64> = text.lines().filter_map(|l| l.strip_prefix('#')).map(|t| t.parse().unwrap()).collect();
        // Two a clock, 200 clocks.
        assert_eq!(stamps.len(), 400, "{port}");
        assert_eq!(stamps[0], 1000 * 10_000, "{port}");
        assert!(stamps.iter().all(|&t| (1000 * 10_000..1200 * 10_000).contains(&t)), "{port}");
        assert!(stamps.windows(2).all(|w| w[0] < w[1]), "{port}");
        // The port's clock (the first variable, `!`) toggles at every timestamp: values
        // are written, not just stamps.
        assert!(text.contains("$var wire 1 ! clock $end"), "{port}");
        assert!(text.lines().filter(|&l| l == "0!" || l == "1!").count() >= 400, "{port}: clock changes");
    }
    for (bad, why) in [
        ("5..3", "not below"),
        ("x..y", "not a clock number"),
        ("100", "FROM..TO"),
        ("2000..2000", "not below"),
        ("5000..6000", "starts after"),
    ] {
        let d = tempfile::tempdir().unwrap();
        let file = write_scenario(d.path(), "cli_window", "cycles = 3000\n");
        let o = iblink(d.path(), &["sim", "--scenario", &file, "--vcd-window", bad]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--vcd-window") && err.contains(why), "{bad}: {err}");
        assert!(o.stdout.is_empty(), "{bad}");
        assert!(!d.path().join("build").exists(), "{bad}: nothing written");
    }
    let o = iblink(dir.path(), &["sim", "--scenario", &file, "--no-vcd", "--vcd-window", "10..20"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--vcd-window"));
}
