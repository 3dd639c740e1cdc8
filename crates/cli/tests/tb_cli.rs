//! `iblink tb BLOCK` as a user runs it: short runs of a few blocks (the coverage table,
//! the waveforms), and bad input (exit 2, the flag named, nothing written). A mismatch
//! (exit 1) cannot be provoked honestly from the command line; its report is tested in
//! `iblink-sim` (`tb::harness`'s test builds a wrong back end and checks the clock, the
//! field, the inputs and the values named).

use std::path::Path;
use std::process::{Command, Output};

fn iblink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A passing run: exit 0, the header, the coverage table, PASS, and both waveforms
/// written and not empty (VCDs with the module's ports).
fn passes(args: &[&str], module: &str, port: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("waves");
    let mut a: Vec<&str> = args.to_vec();
    a.extend(["--vcd-dir", vcd.to_str().unwrap(), "--vcd-cycles", "300"]);
    let o = iblink(&a);
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{args:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains(&format!("module {module}")), "{out}");
    assert!(out.contains("0 mismatches"), "{out}");
    assert!(out.contains("coverage (") && out.contains("  counter "), "{out}");
    assert!(out.trim_end().ends_with("PASS"), "{out}");
    for b in ["rtl", "verilator"] {
        let p = vcd.join(format!("{module}_{b}.vcd"));
        assert!(out.contains(&format!("waveform: {}", p.display())), "{out}");
        let v = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(v.contains("$enddefinitions") && v.contains(port), "{}: not a VCD of {module}", p.display());
        assert!(v.lines().filter(|l| l.starts_with('#')).count() > 100, "{}: few timestamps", p.display());
    }
    out
}

#[test]
fn short_runs_of_several_blocks_pass_with_table_and_waveforms() {
    // The arbiter by block and parameter: the test's seed, a short run's minimums shown.
    let out = passes(&["tb", "vl_arb", "--param", "VLS=2", "--cycles", "4000"], "iblink_vl_arb_vl2", "offer_valid");
    assert!(out.contains("seed 0xa4b2 (the lockstep test's), 4000 clocks (the lockstep test runs 1000000)"), "{out}");
    assert!(out.contains("a short run") && out.contains("grants"), "{out}");
    // The PFC transmit side by module name, with a testbench setting.
    let out = passes(&["tb", "iblink_pfc_tx_q4_w32", "--param", "mode=pause", "--cycles", "5000"], "iblink_pfc_tx_q4_w32", "frame_start");
    assert!(out.contains("QUEUES=4, DATA_WIDTH=32, TARGET=GENERIC; mode=pause, zero_on_release=1") && out.contains("seed 0x5 (the lockstep test's)"), "{out}");
    // A reactive stimulus (the transmit queues react to the block's outputs).
    passes(&["tb", "eth_txq", "--param", "QUEUES=3", "--param", "DATA_WIDTH=32", "--cycles", "3000", "--seed", "7"], "iblink_eth_txq_q3_w32", "s_axis_tready");
    // The CRC unit keeps its spec vectors before the random run.
    let out = passes(&["tb", "crc16", "--width", "16", "--cycles", "3000"], "iblink_crc16_w16", "crc_valid");
    assert!(out.contains("docs/spec.md §3 vectors (123456789 -> 0a3d, 10 00 00 00 -> 0558): 6 of 6 right in model, rtl, verilator"), "{out}");
}

#[test]
fn chosen_back_ends_and_no_waveform() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("waves");
    let o = iblink(&["tb", "sl2vl", "--param", "VLS=8", "--backend", "model,rtl", "--cycles", "2000", "--no-vcd", "--vcd-dir", vcd.to_str().unwrap()]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("back ends model, rtl") && out.contains("2000 clocks in lockstep (model, rtl): 0 mismatches"), "{out}");
    assert!(!vcd.exists(), "--no-vcd wrote {}", vcd.display());
    // Without the model nothing is counted, and the run says so.
    let o = iblink(&["tb", "sl2vl", "--backend", "rtl", "--cycles", "1000", "--no-vcd"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(out.contains("one back end, nothing compared") && out.contains("no coverage counted"), "{out}");
}

fn refused(args: &[&str], says: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("waves");
    let mut a: Vec<&str> = args.to_vec();
    a.extend(["--vcd-dir", vcd.to_str().unwrap(), "--cycles", "100"]);
    let o = iblink(&a);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for s in says {
        assert!(err.contains(s), "{args:?}: the error should say {s:?}: {err}");
    }
    assert!(o.stdout.is_empty(), "{args:?}: {}", text(&o.stdout));
    assert!(!Path::new(&vcd).exists(), "{args:?}: wrote {}", vcd.display());
}

#[test]
fn bad_input_exits_2_names_the_flag_and_writes_nothing() {
    refused(&["tb", "vl_arbiter"], &["unknown block or module `vl_arbiter` (BLOCK|MODULE)", "valid blocks are crc16, crc16_dword, tx_credits", "link_port", "eth_port"]);
    refused(&["tb", "iblink_vl_arb_vl3"], &["BLOCK|MODULE", "valid module names: iblink_vl_arb_vl1, iblink_vl_arb_vl2, iblink_vl_arb_vl4"]);
    refused(&["tb", "vl_arb", "--param", "VLS=3"], &["--param VLS=3 is not generated: VLS takes 1, 2, 4, 8, 15"]);
    refused(&["tb", "pfc_tx", "--param", "VLS=4"], &["--param VLS=4: pfc_tx has no parameter VLS; valid parameters of pfc_tx: QUEUES (1, 2, 3, 4, 5, 6, 7, 8; default 8)"]);
    refused(&["tb", "pfc_tx", "--param", "QUEUES"], &["--param QUEUES: not NAME=VALUE"]);
    refused(&["tb", "iblink_tx_credits_vl4", "--param", "VLS=8"], &["--param: iblink_tx_credits_vl4 is a module name, which fixes VLS"]);
    refused(&["tb", "link_tx", "--width", "16"], &["--width 16: DATA_WIDTH=16 is not generated: DATA_WIDTH takes 32, 64"]);
    refused(&["tb", "vl_arb", "--backend", "spice"], &["--backend", "model", "rtl", "verilator"]);
    refused(&["tb", "vl_arb", "--seed", "x1"], &["--seed"]);
}

#[test]
fn list_shows_every_block() {
    let o = iblink(&["tb", "--list"]);
    let out = text(&o.stdout);
    assert!(o.status.success());
    for b in ["crc16", "crc16_dword", "tx_credits", "rx_credits", "sl2vl", "vl15_rx", "vl_arb", "fcp_rx", "fcp_tx", "link_tx", "link_rx", "failsafe", "link_port", "pfc_tx", "pfc_frame", "pause_rx", "eth_rxbuf", "eth_txq", "eth_port"] {
        assert!(out.lines().any(|l| l == b), "{b} missing:\n{out}");
    }
    assert!(out.contains("iblink_link_port_vl4_w32") && out.contains("iblink_eth_port_q8_w64") && out.contains("  mode = pfc, pause (default pfc; testbench setting): "), "{out}");
}
