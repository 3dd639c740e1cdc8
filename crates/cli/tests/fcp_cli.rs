//! `iblink fcp` end to end: the built binary, expected values from docs/spec.md §2–§3.

use std::process::{Command, Output};

fn iblink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink"))
        .args(args)
        .output()
        .expect("run iblink")
}

fn ok(args: &[&str]) -> String {
    let o = iblink(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap().trim_end().to_string()
}

/// Exit status 2 and the error text on stderr.
fn bad(args: &[&str]) -> String {
    let o = iblink(args);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{args:?}: stdout {}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(o.stdout.is_empty());
    String::from_utf8(o.stderr).unwrap()
}

#[test]
fn encode_init_fcp_from_spec() {
    // docs/spec.md §3: header 10 00 00 00 -> LPCRC 0x0558, sent 58 05.
    assert_eq!(
        ok(&["fcp", "encode", "--op", "1", "--fctbs", "0", "--vl", "0", "--fccl", "0"]),
        "10 00 00 00 58 05"
    );
}

#[test]
fn encode_places_fields_big_endian() {
    // Op 0, FCTBS 0xABC, VL 3, FCCL 0x123: header word 0x0ABC3123.
    let out = ok(&[
        "fcp", "encode", "--op", "0", "--fctbs", "0xabc", "--vl", "3", "--fccl", "291",
    ]);
    assert!(out.starts_with("0a bc 31 23 "), "{out}");
    assert_eq!(out.len(), 17);
}

#[test]
fn encode_range_errors_name_the_field() {
    let base = [
        "fcp", "encode", "--op", "0", "--fctbs", "0", "--vl", "0", "--fccl", "0",
    ];
    for (i, field, value) in [
        (3, "op", "16"),
        (5, "fctbs", "4096"),
        (7, "vl", "16"),
        (9, "fccl", "0x1000"),
    ] {
        let mut args = base;
        args[i] = value;
        let err = bad(&args);
        assert!(
            err.contains(&format!("{field}: ")) && err.contains("out of range"),
            "{err}"
        );
    }
    assert!(
        bad(&["fcp", "encode", "--op", "x1", "--fctbs", "0", "--vl", "0", "--fccl", "0"])
            .contains("--op")
    );
    // Reserved ops may be encoded (to make test traffic).
    assert_eq!(
        ok(&["fcp", "encode", "--op", "15", "--fctbs", "4095", "--vl", "15", "--fccl", "4095"])
            .len(),
        17
    );
}

#[test]
fn decode_with_and_without_spaces() {
    let want = "op=1 fctbs=0 vl=0 fccl=0 lpcrc=0x0558";
    assert_eq!(ok(&["fcp", "decode", "10 00 00 00 58 05"]), want);
    assert_eq!(ok(&["fcp", "decode", "100000005805"]), want);
    assert_eq!(
        ok(&["fcp", "decode", "10", "00", "00", "00", "58", "05"]),
        want
    );
}

#[test]
fn encode_decode_roundtrip() {
    let hex = ok(&[
        "fcp", "encode", "--op", "0", "--fctbs", "3587", "--vl", "2", "--fccl", "0",
    ]);
    assert_eq!(
        ok(&["fcp", "decode", &hex, "--vl-cap", "4"])[..36],
        *"op=0 fctbs=3587 vl=2 fccl=0 lpcrc=0x"
    );
}

#[test]
fn decode_short() {
    assert!(bad(&["fcp", "decode", "10 00 00 00 58"]).contains("short"));
}

#[test]
fn decode_reserved_op() {
    // A well-formed packet (valid LPCRC) whose Op is 2.
    let hex = ok(&[
        "fcp", "encode", "--op", "2", "--fctbs", "0", "--vl", "0", "--fccl", "0",
    ]);
    assert!(bad(&["fcp", "decode", &hex]).contains("reserved op 2"));
}

#[test]
fn decode_bad_lpcrc_names_both_values() {
    let err = bad(&["fcp", "decode", "10 00 00 00 59 05"]);
    assert!(err.contains("bad LPCRC"), "{err}");
    assert!(
        err.contains("expected 0x0558") && err.contains("received 0x0559"),
        "{err}"
    );
}

#[test]
fn decode_vl15_and_vl_cap() {
    let vl15 = ok(&[
        "fcp", "encode", "--op", "0", "--fctbs", "0", "--vl", "15", "--fccl", "0",
    ]);
    assert!(bad(&["fcp", "decode", &vl15]).contains("VL15"));
    let vl4 = ok(&[
        "fcp", "encode", "--op", "0", "--fctbs", "0", "--vl", "4", "--fccl", "0",
    ]);
    assert!(ok(&["fcp", "decode", &vl4]).starts_with("op=0 fctbs=0 vl=4 "));
    assert!(bad(&["fcp", "decode", &vl4, "--vl-cap", "4"]).contains("VLCap 4"));
    assert!(bad(&["fcp", "decode", &vl4, "--vl-cap", "3"]).contains("--vl-cap"));
}

#[test]
fn decode_bad_hex() {
    assert!(bad(&["fcp", "decode", "10 00 00 00 58 0g"]).contains("hex"));
    assert!(bad(&["fcp", "decode", "10 00 00 00 58 0"]).contains("odd"));
    assert!(bad(&["fcp", "decode", "10 00 00 00 58 05 00 00"]).contains("6 bytes"));
}
