//! `iblink synth` argument errors: exit status 2 and the valid names listed. These
//! never reach the tools. One test (`parallel_jobs_keep_the_report_in_order`) runs
//! Debian's yosys and nextpnr-ice40 on two small modules (`make deps`).

use std::process::Command;

fn iblink(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).to_string())
}

#[test]
fn unknown_target_lists_the_valid_ones() {
    let (code, err) = iblink(&["synth", "--target", "ice40-lp1k", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    for t in ["ice40-hx8k", "ice40-up5k", "ecp5-45k", "ecp5-5g-45"] {
        assert!(err.contains(t), "{t} missing from: {err}");
    }
}

#[test]
fn missing_target_is_an_error() {
    let (code, err) = iblink(&["synth", "--all"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--target"), "{err}");
}

#[test]
fn unknown_block_lists_the_valid_ones() {
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--block", "crc32", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown block `crc32`"), "{err}");
    assert!(err.contains("crc16"), "{err}");
}

#[test]
fn unknown_module_lists_the_valid_ones() {
    let (code, err) = iblink(&["synth", "--target", "ecp5-45k", "--module", "iblink_crc16_w128", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown module `iblink_crc16_w128`"), "{err}");
    assert!(err.contains("iblink_crc16_w32") && err.contains("iblink_crc16_w64"), "{err}");
}

#[test]
fn block_and_all_conflict_and_seeds_must_be_positive() {
    let (code, _) = iblink(&["synth", "--target", "ice40-hx8k", "--block", "crc16", "--all"]);
    assert_eq!(code, 2);
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--seeds", "0"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn unknown_block_names_the_link_port_among_the_valid_ones() {
    let (code, err) = iblink(&["synth", "--target", "ecp5-45k", "--block", "port", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    for b in ["link_port", "link_tx", "link_rx", "fcp_tx", "vl_arb", "tx_credits"] {
        assert!(err.contains(b), "{b} missing from: {err}");
    }
}

/// `synth --config`: a bad port configuration is refused before any tool runs, with the
/// field named and exit status 2; `--config` does not combine with a block selection.
#[test]
fn bad_port_configuration_names_the_field() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("synth");
    for (body, field) in [
        ("vl_cap = 4\nlow = [[0, 1], [16, 1]]\n", "low[1].vl"),
        ("vl_cap = 4\nhigh = [[0, 256]]\n", "high[0].weight"),
        ("datapath_bits = 48\n", "datapath_bits"),
        ("vl_cap = 4\nboard = \"ulx3s\"\n", "board"),
    ] {
        let bad = d.path().join("bad.toml");
        std::fs::write(&bad, body).unwrap();
        let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--config", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(code, 2, "{body}: {err}");
        assert!(err.contains(field), "{body}: error does not name `{field}`: {err}");
        assert!(err.contains("bad.toml"), "{err}");
        assert!(!out.exists(), "{body}: nothing may be written for a refused configuration");
    }
    let missing = d.path().join("missing.toml");
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--config", missing.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing.toml"), "{err}");
    // docs/spec.md §6: entries the arbiter skips are accepted with a warning, not refused.
    // The output directory cannot be created (a file is in the way), so the run stops
    // after the configuration was accepted (its warnings printed), before any tool runs:
    // an output that cannot be written is refused too, with status 2 and the flag named.
    let sm = d.path().join("sm.toml");
    std::fs::write(&sm, "vl_cap = 2\nhigh = [[15, 10], [3, 4], [0, 0]]\n").unwrap();
    let blocked = d.path().join("a_file");
    std::fs::write(&blocked, "").unwrap();
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--config", sm.to_str().unwrap(), "--out", blocked.join("x").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--out") && err.contains("a_file"), "{err}");
    for w in [
        "sm.toml: high[0]: VL15 is never arbitrated: skipped",
        "sm.toml: high[1]: VL3 is not a data VL of this port (VLCap 2): skipped",
        "sm.toml: high[2]: VL0 has weight 0: skipped",
    ] {
        assert!(err.contains(w), "{w} missing from: {err}");
    }
    let good = d.path().join("port.toml");
    std::fs::write(&good, "vl_cap = 2\n").unwrap();
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--config", good.to_str().unwrap(), "--block", "crc16"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--config") || err.contains("--block"), "{err}");
}

/// `-j 2`: the slower module is listed first, and a module that finishes earlier on the
/// other worker does not move ahead of it; the numbers equal a `-j 1` run's (yosys and
/// nextpnr are deterministic for a given seed). `-j 0` is refused.
#[test]
fn parallel_jobs_keep_the_report_in_order() {
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "-j", "0", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    let d = tempfile::tempdir().unwrap();
    // The catalog emits the CRC units before the VL15 receiver; the 32-bit CRC takes
    // several times as long through the tools.
    let mods = ["--module", "iblink_crc16_w32", "--module", "iblink_vl15_rx_cap1"];
    let mut reports = vec![];
    for j in ["2", "1"] {
        let out = d.path().join(format!("j{j}"));
        let mut args = vec!["synth", "--target", "ice40-hx8k", "-j", j, "--out", out.to_str().unwrap()];
        args.extend(mods);
        let (code, err) = iblink(&args);
        assert_eq!(code, 0, "-j {j}: {err}");
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
        let rows: Vec<(String, u64, u64, f64)> = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let c = &r["block_cost"];
                (r["module"].as_str().unwrap().to_string(), c["lut4"].as_u64().unwrap(), c["ff"].as_u64().unwrap(), r["fmax_mhz"].as_f64().unwrap())
            })
            .collect();
        reports.push(rows);
    }
    let names: Vec<&str> = reports[0].iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["iblink_crc16_w32", "iblink_vl15_rx_cap1"]);
    assert_eq!(reports[0], reports[1], "-j 2 and -j 1 measured differently");
}
