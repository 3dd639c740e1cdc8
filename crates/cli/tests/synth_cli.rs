//! `iblink synth` argument errors: exit status 2 and the valid names listed. These
//! never reach the tools.

use std::process::Command;

fn iblink(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).to_string())
}

#[test]
fn unknown_target_lists_the_valid_ones() {
    let (code, err) = iblink(&["synth", "--target", "ice40-lp1k", "--out", "/nonexistent/x"]);
    assert_eq!(code, 2, "{err}");
    for t in ["ice40-hx8k", "ice40-up5k", "ecp5-45k"] {
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
        ("vl_cap = 4\nlow = [[0, 1], [4, 1]]\n", "low[1].vl"),
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
    let good = d.path().join("port.toml");
    std::fs::write(&good, "vl_cap = 2\n").unwrap();
    let (code, err) = iblink(&["synth", "--target", "ice40-hx8k", "--config", good.to_str().unwrap(), "--block", "crc16"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--config") || err.contains("--block"), "{err}");
}
