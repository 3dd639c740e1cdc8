//! `iblink arb-trace` as a user runs it.

use std::process::{Command, Output};

fn iblink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).output().unwrap()
}

fn scenario_path(name: &str) -> String {
    format!("{}/../../tb/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// Seed 003's walk-through: VL6, VL6, VL1, VL7, VL7, VL3, then VL7 resuming with 126.
/// The numbers are the seed's (weights 127 -> 63 -> -1, 63 -> -1, 254 -> 190 -> 126,
/// low VL3 2 -> -62, HighPriCounter 4096 - 1024 per packet, reloaded when negative).
#[test]
fn figure_25_10_trace_from_the_seed() {
    let o = iblink(&["arb-trace", &scenario_path("arb_figure_25_10.toml")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    let want = [
        "vl=6 table=high entry=0 blocks=64 weight_left=63 high_counter=3072",
        "vl=6 table=high entry=0 blocks=64 weight_left=-1 high_counter=2048",
        "vl=1 table=high entry=1 blocks=64 weight_left=-1 high_counter=1024",
        "vl=7 table=high entry=2 blocks=64 weight_left=190 high_counter=0",
        "vl=7 table=high entry=2 blocks=64 weight_left=126 high_counter=-1024",
        "vl=3 table=low entry=0 blocks=64 weight_left=-62 high_counter=4096",
        "vl=7 table=high entry=2 blocks=64 weight_left=62 high_counter=3072",
    ];
    assert_eq!(&lines[..7], &want);
    // Every packet of the scenario is granted exactly once.
    assert_eq!(lines.len(), 12);
}

fn write_tmp(text: &str) -> tempfile::NamedTempFile {
    let f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    std::fs::write(f.path(), text).unwrap();
    f
}

fn expect_field_error(text: &str, field: &str) {
    let f = write_tmp(text);
    let o = iblink(&["arb-trace", f.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{text}");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains(field), "error should name {field}: {e}");
    assert!(o.stdout.is_empty());
}

#[test]
fn invalid_files_name_the_field() {
    let port = "vl_cap = 4\nvl_high_limit = 0\nhigh = [[0, 10]]\nlow = [[1, 10]]\n";
    expect_field_error(&format!("{port}[[queue]]\nvl = 15\npktlen_dwords = [100]\n"), "queue[0].vl");
    expect_field_error(&format!("{port}[[queue]]\nvl = 4\npktlen_dwords = [100]\n"), "queue[0].vl");
    expect_field_error(&format!("{port}[[queue]]\nvl = 1\npktlen_dwords = [100, 5000]\n"), "queue[0].pktlen_dwords[1]");
    expect_field_error(&format!("{port}[[queue]]\nvl = 1\npktlen = [100]\n"), "queue[0].pktlen");
    expect_field_error("vl_cap = 3\n", "vl_cap");
    expect_field_error("vl_cap = 4\nhigh = [[0, 300]]\n", "high[0].weight");
    let many: Vec<String> = (0..65).map(|_| "[0, 1]".to_string()).collect();
    expect_field_error(&format!("vl_cap = 4\nlow = [{}]\n", many.join(", ")), "low");
    expect_field_error("vl_cap = 4\nlow_policy = \"sometimes\"\n", "low_policy");
    // Out of range stays an error (docs/spec.md §6: VL is 4 bits, weight 8 bits).
    expect_field_error("vl_cap = 4\nhigh = [[16, 1]]\n", "high[0].vl");
    expect_field_error("vl_cap = 4\nlow = [[0, 1], [1, 256]]\n", "low[1].weight");
    expect_field_error("vl_cap = 4\nhigh = [[0, 1]]\nweights = 3\n", "weights");
}

/// docs/spec.md §6: a table may name VL15, a VL at or above VLCap, or give weight 0; each such
/// entry is accepted with a warning naming it (exit 0) and skipped by the arbiter. The
/// trace is worked out by hand from §6 (VLHighLimit 1 = 1024 dwords; PktLen 300 = 19
/// blocks, 100 = 7, as ceil((PktLen*4 - 8) / 64)):
/// 1. high: entry 0 (VL15) skipped, entry 1 VL1: 4 - 19 = -15, counter 1024 - 300 = 724;
/// 2. entry 1 exhausted; entry 2 (VL6, not a data VL) and 3 (weight 0) skipped; entry 4
///    VL0: 3 - 7 = -4, 724 - 100 = 624;
/// 3. (to 5) VL1, VL0, VL1 alternate the same way: 324, 224, then -76: negative, so the
///    counter is reloaded (1024) and the low table gets a turn;
/// 6. low: entry 0 (VL5) skipped (not VL1, which VL5's low bits would alias), entry 1
///    VL3: 2 - 19 = -17, the turn ends;
/// 7. high again: VL1's last packet, 1024 - 300 = 724;
/// 8. the high table has nothing eligible (VL2 only in a weight-0 entry): reload, low:
///    entry 2 (VL15) and 0 (VL5) skipped, VL3 from entry 1 with weight reloaded, -17.
///
/// VL2's packet is never granted.
#[test]
fn skipped_entries_warn_and_trace_alike_in_every_back_end() {
    let file = scenario_path("arb_skipped_entries.toml");
    let want = [
        "vl=1 table=high entry=1 blocks=19 weight_left=-15 high_counter=724",
        "vl=0 table=high entry=4 blocks=7 weight_left=-4 high_counter=624",
        "vl=1 table=high entry=1 blocks=19 weight_left=-15 high_counter=324",
        "vl=0 table=high entry=4 blocks=7 weight_left=-4 high_counter=224",
        "vl=1 table=high entry=1 blocks=19 weight_left=-15 high_counter=-76",
        "vl=3 table=low entry=1 blocks=19 weight_left=-17 high_counter=1024",
        "vl=1 table=high entry=1 blocks=19 weight_left=-15 high_counter=724",
        "vl=3 table=low entry=1 blocks=19 weight_left=-17 high_counter=1024",
    ];
    let warnings = [
        "high[0]: VL15 is never arbitrated: skipped",
        "high[2]: VL6 is not a data VL of this port (VLCap 4): skipped",
        "high[3]: VL2 has weight 0: skipped",
        "low[0]: VL5 is not a data VL of this port (VLCap 4): skipped",
        "low[2]: VL15 is never arbitrated: skipped",
    ];
    for be in ["model", "rtl", "verilator"] {
        let o = iblink(&["arb-trace", "--backend", be, &file]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{be}: {err}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(out.lines().collect::<Vec<_>>(), want, "{be}");
        let warned: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
        assert_eq!(warned.len(), warnings.len(), "{be}: {err}");
        for (line, w) in warned.iter().zip(warnings) {
            assert!(line.ends_with(w) && line.contains("arb_skipped_entries.toml"), "{be}: {line} should name {w}");
        }
        assert!(err.contains("VL2: 1 packet(s) never granted"), "{be}: {err}");
    }
}

/// The arbiter's Rust twin and its Verilog in Verilator prints the model's trace,
/// byte for byte: Figure 25-10, and a one-packet-policy scenario with mixed packet sizes,
/// a limit that runs out mid-table, weight-0 entries and a VL that only weight-0 entries
/// name (its packets are stranded, which every back end reports the same way).
#[test]
fn every_back_end_prints_the_same_trace() {
    let mixed = write_tmp(
        "vl_cap = 4\nvl_high_limit = 1\nlow_policy = \"one-packet\"\n\
         high = [[0, 3], [3, 0], [1, 0], [2, 40], [1, 2]]\nlow = [[1, 1], [0, 2], [3, 0]]\n\
         [[queue]]\nvl = 0\npktlen_dwords = [6, 300, 1048, 18, 18, 600]\n\
         [[queue]]\nvl = 1\npktlen_dwords = [1048, 1048, 7, 7, 7]\n\
         [[queue]]\nvl = 2\npktlen_dwords = [100, 200, 300, 400, 500, 600, 700, 800]\n\
         [[queue]]\nvl = 3\npktlen_dwords = [50, 50]\n",
    );
    for file in [scenario_path("arb_figure_25_10.toml"), mixed.path().to_str().unwrap().to_string()] {
        let model = iblink(&["arb-trace", "--backend", "model", &file]);
        assert!(model.status.success(), "{}", String::from_utf8_lossy(&model.stderr));
        assert!(model.stdout.len() > 100);
        for be in ["rtl", "verilator"] {
            let o = iblink(&["arb-trace", "--backend", be, &file]);
            assert!(o.status.success(), "{be}: {}", String::from_utf8_lossy(&o.stderr));
            assert_eq!(String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&model.stdout), "{be} on {file}");
            // The warnings and notes are the same; a first Verilator run also says it builds.
            let notes = |e: &[u8]| -> String {
                String::from_utf8_lossy(e).lines().filter(|l| !l.starts_with("building ")).map(|l| format!("{l}\n")).collect()
            };
            assert_eq!(notes(&o.stderr), notes(&model.stderr), "{be} on {file}");
        }
    }
    let o = iblink(&["arb-trace", "--backend", "model", mixed.path().to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("VL3: 2 packet(s) never granted"));
}
