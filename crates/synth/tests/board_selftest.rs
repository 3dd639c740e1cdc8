//! The board self-test (constraints/iblink_port_selftest.v around the emitted link port in
//! hdl_out/, as `make bitstream` builds it) under Icarus Verilog, at both widths the boards
//! use: 32 bits (iCE40-HX8K Breakout, ULX3S) and 64 bits (ECP5-5G Versa). The testbench
//! (tb/board/port_selftest_tb.v) passes only when 600 packets arrive and check on every
//! data VL with no error of any kind, and injected bit errors are then caught. Guards the
//! board files against a change of the port's interface. Needs iverilog (`make deps`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn selftest_passes(data_width: u32) {
    let root = root();
    let list = std::fs::read_to_string(root.join("hdl_out/iblink_link_port.f")).expect("hdl_out/iblink_link_port.f");
    let dir = tempfile::tempdir().unwrap();
    let vvp = dir.path().join("selftest.vvp");
    let mut cmd = Command::new("iverilog");
    cmd.args(["-g2012", "-DIBLINK_VLS=4", &format!("-DIBLINK_DW={data_width}"), "-o"])
        .arg(&vvp)
        .arg(root.join("tb/board/port_selftest_tb.v"))
        .arg(root.join("constraints/iblink_port_selftest.v"));
    for f in list.lines().filter(|l| !l.starts_with("//") && !l.trim().is_empty()) {
        cmd.arg(root.join("hdl_out").join(f.trim()));
    }
    let out = cmd.output().expect("iverilog (run `make deps`)");
    assert!(out.status.success(), "iverilog: {}", String::from_utf8_lossy(&out.stderr));
    let run = Command::new("vvp").arg("-n").arg(&vvp).output().expect("vvp");
    let log = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{log}");
    assert!(log.lines().any(|l| l.starts_with("clean: 600 packets")), "{log}");
    assert!(log.lines().any(|l| l.starts_with("PASS")), "{log}");
}

#[test]
fn the_board_selftest_passes_at_32_bits() {
    selftest_passes(32);
}

#[test]
fn the_board_selftest_passes_at_64_bits() {
    selftest_passes(64);
}
