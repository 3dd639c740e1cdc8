//! `iblink pfc` end to end: the built binary. Frame bytes against seed 004's table and
//! docs/spec.md §9, decoded by tshark (an outside decoder, FCS checked); trace lines worked by
//! hand from docs/spec.md §9's timing rules; every bad input exits 2 naming its field.

use std::io::Write;
use std::process::{Command, Output};

fn iblink(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_iblink")).args(args).output().expect("run iblink")
}

fn ok(args: &[&str]) -> String {
    let o = iblink(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap().trim_end().to_string()
}

/// Exit status 2, nothing on stdout, the error text.
fn bad(args: &[&str]) -> String {
    let o = iblink(args);
    assert_eq!(o.status.code(), Some(2), "{args:?}: stdout {}", String::from_utf8_lossy(&o.stdout));
    assert!(o.stdout.is_empty());
    String::from_utf8(o.stderr).unwrap()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The Ethernet FCS from the `crc` crate's catalogue (not iblink's code).
fn with_fcs(mut f: Vec<u8>) -> Vec<u8> {
    let c = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(&f[..60]);
    f.truncate(60);
    f.extend_from_slice(&c.to_le_bytes());
    f
}

/// tshark's reading of frames written as a pcap (Ethernet link type), FCS checked.
fn tshark(frames: &[Vec<u8>], fields: &[&str]) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pfc.pcap");
    let mut f = std::fs::File::create(&path).unwrap();
    // pcap global header: magic, v2.4, zone 0, sigfigs 0, snaplen 65535, LINKTYPE_ETHERNET.
    f.write_all(&0xa1b2_c3d4u32.to_le_bytes()).unwrap();
    f.write_all(&2u16.to_le_bytes()).unwrap();
    f.write_all(&4u16.to_le_bytes()).unwrap();
    for w in [0u32, 0, 65535, 1] {
        f.write_all(&w.to_le_bytes()).unwrap();
    }
    for (i, fr) in frames.iter().enumerate() {
        for w in [i as u32, 0, fr.len() as u32, fr.len() as u32] {
            f.write_all(&w.to_le_bytes()).unwrap();
        }
        f.write_all(fr).unwrap();
    }
    drop(f);
    tshark_read(&path, fields)
}

/// tshark's reading of a pcap file, FCS checked: one row per frame.
fn tshark_read(path: &std::path::Path, fields: &[&str]) -> Vec<Vec<String>> {
    let mut cmd = Command::new("tshark");
    cmd.args(["-n", "-o", "eth.fcs:Always", "-o", "eth.check_fcs:TRUE", "-r"]).arg(path);
    cmd.args(["-T", "fields", "-E", "separator=/t"]);
    for x in fields {
        cmd.args(["-e", x]);
    }
    let out = cmd.output().expect("tshark is needed (make deps installs it)");
    assert!(out.status.success(), "tshark: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

const SA: &str = "02:00:00:00:00:01";

#[test]
fn pfc_frame_of_seed_004_example_as_tshark_reads_it() {
    // Seed 004: PSRQ4 = 0x05 -> PEV 0x05, the queue's PT in PT0 and PT2.
    let out = ok(&["pfc", "encode", "--sa", SA, "--enable", "0x05", "--times", "200,0,200,0,0,0,0,0"]);
    let mut lines = out.lines();
    let h = lines.next().unwrap();
    assert_eq!(h.len(), 128, "128 hex digits on the first line");
    assert_eq!(lines.next(), Some("kind=pfc sa=02:00:00:00:00:01 enable=0x0005 times=200,0,200,0,0,0,0,0"));
    let b = unhex(h);
    // Seed 004's octets: DA, SA, type 0x8808, opcode 0x0101, PEV, PT0..PT7, zero to 59.
    assert_eq!(&b[0..6], &[0x01, 0x80, 0xc2, 0x00, 0x00, 0x01]);
    assert_eq!(&b[6..12], &[0x02, 0, 0, 0, 0, 1]);
    assert_eq!(&b[12..18], &[0x88, 0x08, 0x01, 0x01, 0x00, 0x05]);
    assert_eq!(&b[18..22], &[0x00, 200, 0x00, 0x00]);
    assert_eq!(&b[22..24], &[0x00, 200]);
    assert!(b[24..60].iter().all(|&x| x == 0));
    assert_eq!(b, with_fcs(b.clone()), "the FCS is the Ethernet CRC-32");
    let c: Vec<String> = (0..8).map(|i| format!("macc.cbfc.pause_time.c{i}")).collect();
    let mut fields = vec!["macc.opcode", "macc.cbfc.enbv", "eth.fcs.status", "_ws.expert.severity"];
    fields.extend(c.iter().map(String::as_str));
    let t = tshark(&[b], &fields);
    assert_eq!(t.len(), 1);
    let r = &t[0];
    assert_eq!(r[0], "0x0101");
    assert_eq!(r[1], "0x0005");
    assert_eq!(r[2], "1", "tshark: FCS good");
    assert_eq!(r[3], "", "no expert info");
    assert_eq!(&r[4..12], &["200", "0", "200", "0", "0", "0", "0", "0"]);
}

#[test]
fn pause_frame_as_tshark_reads_it_and_decode_round_trips() {
    let out = ok(&["pfc", "encode", "--sa", SA, "--pause", "0xffff"]);
    let h = out.lines().next().unwrap();
    let b = unhex(h);
    assert_eq!(&b[12..18], &[0x88, 0x08, 0x00, 0x01, 0xff, 0xff]);
    let t = tshark(&[b], &["macc.opcode", "macc.pause_time", "eth.fcs.status"]);
    assert_eq!(t[0], vec!["0x0001", "65535", "1"]);
    assert_eq!(ok(&["pfc", "decode", h]), "kind=pause sa=02:00:00:00:00:01 quanta=65535");
    // Spaces between bytes are allowed.
    let spaced: Vec<String> = unhex(h).iter().map(|x| format!("{x:02x}")).collect();
    assert_eq!(ok(&["pfc", "decode", &spaced.join(" ")]), "kind=pause sa=02:00:00:00:00:01 quanta=65535");
}

#[test]
fn decode_errors_are_named() {
    let good = unhex(ok(&["pfc", "encode", "--sa", SA, "--pause", "7"]).lines().next().unwrap());
    let mut f = good.clone();
    f[63] ^= 0x80;
    let e = bad(&["pfc", "decode", &hex(&f)]);
    let want = u32::from_le_bytes(good[60..64].try_into().unwrap());
    let got = u32::from_le_bytes(f[60..64].try_into().unwrap());
    assert!(e.contains("bad FCS") && e.contains(&format!("{want:#010x}")) && e.contains(&format!("{got:#010x}")), "{e}");
    assert!(bad(&["pfc", "decode", &hex(&good[..63])]).contains("short frame: 63 bytes"));
    let mut f = good.clone();
    f[5] = 0x02;
    assert!(bad(&["pfc", "decode", &hex(&with_fcs(f))]).contains("destination"));
    let mut f = good.clone();
    f[13] = 0x00;
    assert!(bad(&["pfc", "decode", &hex(&with_fcs(f))]).contains("EtherType 0x8800"));
    let mut f = good.clone();
    f[15] = 0x02;
    assert!(bad(&["pfc", "decode", &hex(&with_fcs(f))]).contains("opcode 0x0002"));
    assert!(bad(&["pfc", "decode", "0g"]).contains("hex"));
    let mut long = good.clone();
    long.push(0);
    assert!(bad(&["pfc", "decode", &hex(&long)]).contains("65 bytes"));
}

#[test]
fn encode_errors_are_named() {
    assert!(bad(&["pfc", "encode", "--sa", SA, "--pause", "65536"]).contains("--pause"));
    assert!(bad(&["pfc", "encode", "--sa", "02:00:00:00:01", "--pause", "1"]).contains("--sa"));
    assert!(bad(&["pfc", "encode", "--sa", SA, "--enable", "0x100", "--times", "0,0,0,0,0,0,0,0"]).contains("--enable"));
    assert!(bad(&["pfc", "encode", "--sa", SA, "--enable", "1", "--times", "0,0,0"]).contains("--times"));
    assert!(bad(&["pfc", "encode", "--sa", SA, "--enable", "1", "--times", "70000,0,0,0,0,0,0,0"]).contains("PT0"));
    // clap: --pause with --enable, or neither.
    bad(&["pfc", "encode", "--sa", SA, "--pause", "1", "--enable", "1", "--times", "0,0,0,0,0,0,0,0"]);
    bad(&["pfc", "encode", "--sa", SA]);
}

fn example() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../tb/pfc/trace_example.toml").to_string()
}

#[test]
fn trace_of_the_readme_example() {
    // Worked from docs/spec.md §9 at 32 bits (quantum 16 clocks, frame 16 clocks, first byte 4
    // clocks after the event on an idle link: triggers sampled, combined, due, taken;
    // pause time from the frame's last byte):
    // - 100: queue 0's level and queue 1's fill rise together: one frame (PEV 0x0d), out
    //   at 104, last byte 119;
    // - queue 1's refresh leaves with 20 of 100 quanta left: 119 + 80 x 16 = 1399 (last
    //   byte 1414), then 1414 + 1280 = 2694; queue 0's: 119 + 180 x 16 = 2999;
    // - 3000: queue 1 falls below RFD; its release waits for the frame on the wire (last
    //   byte 3014) and follows it at 3015;
    // - 5000: queue 0 released, out at 5004; 6000: queue 1's software request, at 6004,
    //   and no refresh after it.
    let want = "\
clock=104 kind=pfc enable=0x000d times=200,0,200,100,0,0,0,0
clock=1399 kind=pfc enable=0x0008 times=0,0,0,100,0,0,0,0
clock=2694 kind=pfc enable=0x0008 times=0,0,0,100,0,0,0,0
clock=2999 kind=pfc enable=0x0005 times=200,0,200,0,0,0,0,0
clock=3015 kind=pfc enable=0x0008 times=0,0,0,0,0,0,0,0
clock=5004 kind=pfc enable=0x0005 times=0,0,0,0,0,0,0,0
clock=6004 kind=pfc enable=0x0008 times=0,0,0,100,0,0,0,0";
    for b in BACKENDS {
        assert_eq!(ok(&["pfc", "trace", &example(), "--backend", b]), want, "--backend {b}");
    }
}

/// The reference model, the `pfc_tx` block's Rust twin and its Verilog through Verilator.
const BACKENDS: [&str; 3] = ["model", "rtl", "verilator"];

#[test]
fn trace_in_pause_mode() {
    // 64 bits: quantum and frame 8 clocks. Queue 1's fill at 50: PAUSE with queue 0's PT
    // at 54 (last byte 61); the refresh with 10 of 100 quanta left at 61 + 90 x 8 = 781;
    // queue 1 falls at 600 but queue 0 holds; queue 0 falls at 1200: 0 at 1204; the
    // software request at 2000: 2004.
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tb/pfc/trace_pause.toml");
    for b in BACKENDS {
        assert_eq!(
            ok(&["pfc", "trace", p, "--backend", b]),
            "clock=54 kind=pause quanta=100\nclock=781 kind=pause quanta=100\nclock=1204 kind=pause quanta=0\nclock=2004 kind=pause quanta=100",
            "--backend {b}"
        );
    }
}

/// The example with `edit` applied: exit 2, nothing on stdout, the error names `field`.
fn bad_trace(edit: impl Fn(String) -> String, field: &str) {
    bad_trace_on(edit, field, "model");
}

fn bad_trace_on(edit: impl Fn(String) -> String, field: &str, backend: &str) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.toml");
    let text = edit(std::fs::read_to_string(example()).unwrap());
    std::fs::write(&p, &text).unwrap();
    let e = bad(&["pfc", "trace", p.to_str().unwrap(), "--backend", backend]);
    assert!(e.contains(&format!("{field}:")), "want an error naming {field}: {e}");
}

/// The generated block compares 16-bit fill levels: a larger threshold is refused by the
/// RTL back ends, naming it (the model takes it).
#[test]
fn trace_threshold_beyond_the_generated_fill_width() {
    let big = |s: String| s.replace("size_bytes = 16384, rfa_bytes = 12288", "size_bytes = 131072, rfa_bytes = 70000");
    for b in ["rtl", "verilator"] {
        bad_trace_on(big, "queue[1].threshold.rfa_bytes", b);
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.toml");
    std::fs::write(&p, big(std::fs::read_to_string(example()).unwrap())).unwrap();
    assert!(ok(&["pfc", "trace", p.to_str().unwrap()]).starts_with("clock=104 kind=pfc enable=0x0005"));
}

#[test]
fn trace_bad_configuration_names_the_field() {
    let q1 = "priorities = 0x08";
    bad_trace(|s| s.replace(q1, "priorities = 0x04"), "queue[1].priorities"); // overlaps 0x05
    bad_trace(|s| s.replace(q1, "priorities = 0"), "queue[1].priorities");
    bad_trace(|s| s.replace(q1, "priorities = 0x100"), "queue[1].priorities");
    bad_trace(
        |s| {
            let extra: String = (2..9).map(|i| format!("\n[[queue]]\npriorities = {}\npause_quanta = 100\n", 1u32 << (i % 8))).collect();
            s + &extra
        },
        "queue",
    );
    bad_trace(|s| s.replace("rfd_bytes = 4096", "rfd_bytes = 12288"), "queue[1].threshold.rfd_bytes");
    bad_trace(|s| s.replace("rfd_bytes = 4096", "rfd_bytes = 0"), "queue[1].threshold.rfd_bytes");
    bad_trace(|s| s.replace("rfa_bytes = 12288", "rfa_bytes = 16385"), "queue[1].threshold.rfa_bytes");
    bad_trace(
        |s| s.replace("size_bytes = 16384, rfa_bytes = 12288", "size_bytes = 2048, rfa_bytes = 1024").replace("fill_bytes = 13000", "fill_bytes = 1500").replace("fill_bytes = 8000", "fill_bytes = 800"),
        "queue[1].threshold.size_bytes",
    );
    bad_trace(|s| s.replace("pause_quanta = 200", "pause_quanta = 65536"), "queue[0].pause_quanta");
    bad_trace(|s| s.replace("refresh_quanta = 20 ", "refresh_quanta = 100 "), "refresh_quanta");
    bad_trace(|s| s.replace("clocks = 8000", "clocks = 8000\nclock = 1"), "clock");
    bad_trace(|s| s.replace("hw = true", "hw = true\nlevel = 1"), "event[0].level");
    bad_trace(|s| s.replace("mode = \"pfc\"", "mode = \"pfx\""), "mode");
    bad_trace(|s| s.replace("datapath_bits = 32", "datapath_bits = 16"), "datapath_bits");
    bad_trace(|s| s.replace("clock = 6000", "clock = 8000"), "event[5].clock");
    bad_trace(|s| s.replace("fill_bytes = 13000", "fill_bytes = 16385"), "event[1].fill_bytes");
    bad_trace(|s| s.replace("sw = true", "sw = true\nhw = true"), "event[5]");
}

/// `--pcap`: the frames each back end builds (the RTL ones through the `pfc_frame`
/// builder) decoded by tshark: FCS good, no expert error, every field what the trace line
/// says (a priority not enabled carries 0), the timestamp its clock.
#[test]
fn trace_pcap_decoded_by_tshark_in_every_backend() {
    let pause = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tb/pfc/trace_pause.toml").to_string();
    for file in [example(), pause] {
        for b in BACKENDS {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("t.pcap");
            let lines = ok(&["pfc", "trace", &file, "--backend", b, "--pcap", p.to_str().unwrap()]);
            let mut fields = vec!["frame.time_epoch", "eth.fcs.status", "_ws.expert", "macc.opcode", "macc.pause_time", "macc.cbfc.enbv"];
            let c: Vec<String> = (0..8).map(|i| format!("macc.cbfc.pause_time.c{i}")).collect();
            fields.extend(c.iter().map(String::as_str));
            let rows = tshark_read(&p, &fields);
            let lines: Vec<&str> = lines.lines().collect();
            assert_eq!(rows.len(), lines.len(), "{file} --backend {b}");
            for (r, l) in rows.iter().zip(&lines) {
                let kv = |k: &str| l.split(' ').find_map(|x| x.strip_prefix(&format!("{k}="))).unwrap().to_string();
                let clock: u64 = kv("clock").parse().unwrap();
                assert_eq!(r[0], format!("{}.{:06}000", clock / 1_000_000, clock % 1_000_000), "{l}");
                assert_eq!((r[1].as_str(), r[2].as_str()), ("1", ""), "{l}: FCS status, expert");
                if kv("kind") == "pause" {
                    assert_eq!((r[3].as_str(), r[4].clone()), ("0x0001", kv("quanta")), "{l}");
                } else {
                    let en = u16::from_str_radix(kv("enable").trim_start_matches("0x"), 16).unwrap();
                    assert_eq!((r[3].as_str(), r[5].clone()), ("0x0101", format!("0x{en:04x}")), "{l}");
                    let times: Vec<&str> = kv("times").leak().split(',').collect();
                    for (i, t) in times.iter().enumerate() {
                        assert_eq!(r[6 + i], *t, "{l}: c{i}");
                    }
                }
            }
        }
    }
}
