//! `iblink pfc encode|decode|trace`: Ethernet PAUSE/PFC frames (docs/spec.md §9), from the
//! reference model (`iblink_model::ethernet`, `iblink_model::pfc`); `trace` also from the
//! `pfc_tx` block (`--backend rtl|verilator`).
//!
//! Formats:
//! * `encode` prints the 64 frame bytes (FCS included) as 128 lowercase hex digits on the
//!   first line, then the frame as `decode` prints it.
//! * `decode` prints `kind=pause sa=02:00:00:00:00:01 quanta=N` or
//!   `kind=pfc sa=… enable=0x0005 times=200,0,200,0,0,0,0,0`.
//! * `trace` prints one line per frame: `clock=N kind=pfc enable=0x0005 times=…` or
//!   `clock=N kind=pause quanta=N`, N the clock its first byte leaves.
//! * Bad input (a bad FCS, a short frame, another DA, EtherType or opcode, a field out of
//!   range, a bad trace file) prints `error: …` naming what is wrong, exit status 2.

use crate::cmd::fcp::{parse_hex, parse_num};
use crate::cmd::{bad_input, capture_format, output_file, CaptureFormat};
use anyhow::Context;
use clap::Subcommand;
use iblink_model::ethernet::{PauseFrame, PauseKind, FRAME_BYTES};
use crate::cmd::crc16::BackendArg;
use iblink_sim::pfc_trace::{parse_mac, trace, write_pcap, PfcScenario, TraceError};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum PfcCmd {
    /// Encode a PAUSE frame (`--pause QUANTA`) or a PFC frame (`--enable MASK --times
    /// T0,…,T7`) to its 64 bytes, printed as 128 hex digits.
    #[command(group = clap::ArgGroup::new("mode").required(true).args(["pause", "enable"]))]
    Encode {
        /// Source address, `02:00:00:00:00:01`.
        #[arg(long)]
        sa: String,
        /// PAUSE: the pause time in quanta, 0..=65535 (0 releases).
        #[arg(long, value_parser = parse_num, conflicts_with_all = ["enable", "times"])]
        pause: Option<u64>,
        /// PFC: the priority-enable vector, 0x00..=0xff (bit i: priority i).
        #[arg(long, value_parser = parse_num, requires = "times")]
        enable: Option<u64>,
        /// PFC: the eight pause times PT0..PT7 in quanta, comma-separated.
        #[arg(long, requires = "enable")]
        times: Option<String>,
    },
    /// Decode a 64-byte frame given as hex (spaces allowed).
    Decode {
        /// The frame's 64 bytes (FCS included) as hex digits, in one or more pieces:
        /// `0180c2000001 02...` (a `0x` prefix and spaces are allowed).
        #[arg(required = true, num_args = 1..)]
        hex: Vec<String>,
    },
    /// The frames the transmit side sends for a timeline of trigger events, on an idle link.
    Trace {
        /// mode, sa, datapath_bits, zero_quanta_on_release, refresh_quanta, clocks,
        /// [[queue]], [[event]] (see docs/pfc.md).
        file: PathBuf,
        /// Which implementation runs it: the reference model, or the `pfc_tx` block
        /// (its Rust twin, or its Verilog through Verilator). Every one prints the same.
        #[arg(long, value_enum, default_value_t = BackendArg::Model)]
        backend: BackendArg,
        /// Also write the frames as they go on the wire to FILE.pcap (Ethernet link type,
        /// FCS included; from the RTL back ends, the `pfc_frame` builder's words). Its
        /// folders are made as needed. (`--pcap` is the same flag, its older name.)
        #[arg(long, alias = "pcap", value_name = "FILE.pcap")]
        capture: Option<PathBuf>,
    },
}

fn mac(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// `kind=… sa=… …` as `decode` prints it.
fn describe(f: &PauseFrame) -> String {
    match f.kind {
        PauseKind::Pause { quanta } => format!("kind=pause sa={} quanta={quanta}", mac(&f.sa)),
        PauseKind::Pfc { enable, times } => {
            let t: Vec<String> = times.iter().map(u16::to_string).collect();
            format!("kind=pfc sa={} enable={enable:#06x} times={}", mac(&f.sa), t.join(","))
        }
    }
}

fn parse_times(s: &str) -> Result<[u16; 8], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.len() != 8 {
        return Err(format!("{} values: PT0..PT7 are eight", parts.len()));
    }
    let mut t = [0u16; 8];
    for (i, p) in parts.iter().enumerate() {
        let v = parse_num(p).map_err(|e| format!("PT{i}: {e}"))?;
        t[i] = u16::try_from(v).map_err(|_| format!("PT{i}: {v} is out of range 0..=65535"))?;
    }
    Ok(t)
}

pub fn run(cmd: PfcCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        PfcCmd::Encode { sa, pause, enable, times } => {
            let sa = match parse_mac(&sa) {
                Ok(m) => m,
                Err(e) => return bad_input(format!("--sa: {e}")),
            };
            let kind = match (pause, enable, times) {
                (Some(q), None, None) => match u16::try_from(q) {
                    Ok(quanta) => PauseKind::Pause { quanta },
                    Err(_) => return bad_input(format!("--pause: {q} is out of range 0..=65535")),
                },
                (None, Some(e), Some(t)) => {
                    if e > 0xff {
                        return bad_input(format!("--enable: {e:#x} is out of range 0x00..=0xff (priorities 0..7)"));
                    }
                    match parse_times(&t) {
                        Ok(times) => PauseKind::Pfc { enable: e as u16, times },
                        Err(m) => return bad_input(format!("--times: {m}")),
                    }
                }
                _ => unreachable!("clap: --pause, or --enable with --times"),
            };
            let f = PauseFrame { sa, kind };
            let bytes = f.encode();
            println!("{}", bytes.iter().map(|b| format!("{b:02x}")).collect::<String>());
            println!("{}", describe(&f));
            Ok(ExitCode::SUCCESS)
        }
        PfcCmd::Decode { hex } => {
            let bytes = match parse_hex(&hex) {
                Ok(b) => b,
                Err(e) => return bad_input(format!("hex: {e}")),
            };
            if bytes.len() > FRAME_BYTES {
                return bad_input(format!("{} bytes: a PAUSE/PFC frame is {FRAME_BYTES} bytes with its FCS", bytes.len()));
            }
            match PauseFrame::decode(&bytes) {
                Ok(f) => {
                    println!("{}", describe(&f));
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => bad_input(e),
            }
        }
        PfcCmd::Trace { file, backend, capture } => {
            if let Some(p) = &capture {
                match capture_format("--capture", p) {
                    Ok(CaptureFormat::Pcap) => {}
                    Ok(CaptureFormat::Erf) => return bad_input(format!("--capture {}: a trace's frames are written as pcap (FILE.pcap)", p.display())),
                    Err(e) => return bad_input(e),
                }
            }
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => return bad_input(format!("{}: {e}", file.display())),
            };
            let s = match PfcScenario::from_toml(&text) {
                Ok(s) => s,
                Err(e) => return bad_input(format!("{}: {e}", file.display())),
            };
            let t = match trace(&s, backend.into(), capture.is_some()) {
                Ok(t) => t,
                Err(TraceError::Config(e)) => return bad_input(format!("{}: {e}", file.display())),
                Err(e) => return Err(e.into()),
            };
            if let Some(p) = capture {
                output_file("--capture", &p)?;
                write_pcap(&p, &t.frames).with_context(|| format!("--capture {}: cannot write it", p.display()))?;
            }
            for line in t.lines {
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Seeded fuzzing of the address and pause-time parsers (`IBLINK_FUZZ_INPUTS` inputs
/// each): no panic, and each agrees with a reading of its documented syntax written here.
#[cfg(test)]
mod fuzz_tests {
    use super::parse_times;
    use iblink_testkit::fuzz::{self as fz, run_case, Rng};
    use iblink_sim::pfc_trace::parse_mac;

    const PIECES: &[&str] = &[
        "0", "2", "9", "a", "F", "g", ":", "-", ",", " ", "0x", "65535", "65536", "200", "+1", "é", "ｆ", "\u{a0}", "00:", "ff-",
    ];

    fn text(rng: &mut Rng, well_formed: impl Fn(&mut Rng) -> String) -> String {
        let mut s = match rng.below(3) {
            0 => (0..rng.range(0, 12)).map(|_| rng.pick::<&str>(PIECES).to_string()).collect(),
            _ => well_formed(rng),
        };
        if rng.chance(1, 3) {
            let mut b = s.into_bytes();
            fz::mutate(rng, &mut b, b":-,0f", 2);
            s = String::from_utf8_lossy(&b).into_owned();
        }
        s
    }

    /// Six two-digit hex bytes separated by `:` or `-`.
    fn mac_oracle(s: &str) -> Option<[u8; 6]> {
        let parts: Vec<&str> = s.split([':', '-']).collect();
        if parts.len() != 6 {
            return None;
        }
        let mut m = [0u8; 6];
        for (i, p) in parts.iter().enumerate() {
            let d: Vec<u32> = p.chars().map(|c| if c.is_ascii() { c.to_digit(16) } else { None }).collect::<Option<_>>()?;
            if d.len() != 2 {
                return None;
            }
            m[i] = (d[0] * 16 + d[1]) as u8;
        }
        Some(m)
    }

    #[test]
    fn fuzz_parse_mac() {
        let base = fz::base_seed(0xc11_0101);
        let n = fz::inputs();
        let (mut ok, mut bad) = (0u64, 0u64);
        for case in 0..n {
            let mut rng = Rng::new(fz::case_seed(base, case));
            let s = text(&mut rng, |r| {
                let sep = if r.bool() { ":" } else { "-" };
                (0..6).map(|_| format!("{:02x}", r.below(256))).collect::<Vec<_>>().join(sep)
            });
            let r = run_case("iblink pfc: parse_mac", base, case, || format!("{s:?}"), || {
                let r = parse_mac(&s);
                assert_eq!(r.as_ref().ok().copied(), mac_oracle(&s), "{r:?}");
                r
            });
            if r.is_ok() { ok += 1 } else { bad += 1 }
        }
        fz::coverage("iblink pfc: parse_mac", n / 10, &[("addresses", ok), ("refused", bad)]);
    }

    /// Eight comma-separated numbers (decimal or 0x hex, as `--op` and friends) of at
    /// most 65535.
    fn times_oracle(s: &str) -> Option<[u16; 8]> {
        let parts: Vec<&str> = s.split(',').collect();
        if parts.len() != 8 {
            return None;
        }
        let mut t = [0u16; 8];
        for (i, p) in parts.iter().enumerate() {
            t[i] = u16::try_from(crate::cmd::fcp::parse_num(p).ok()?).ok()?;
        }
        Some(t)
    }

    #[test]
    fn fuzz_parse_times() {
        let base = fz::base_seed(0xc11_0102);
        let n = fz::inputs();
        let (mut ok, mut bad) = (0u64, 0u64);
        for case in 0..n {
            let mut rng = Rng::new(fz::case_seed(base, case));
            let s = text(&mut rng, |r| {
                let k = if r.chance(1, 8) { r.range(0, 10) } else { 8 };
                (0..k).map(|_| (r.u64() >> r.range(46, 64)).to_string()).collect::<Vec<_>>().join(",")
            });
            let r = run_case("iblink pfc: parse_times", base, case, || format!("{s:?}"), || {
                let r = parse_times(&s);
                assert_eq!(r.as_ref().ok().copied(), times_oracle(&s), "{r:?}");
                r
            });
            if r.is_ok() { ok += 1 } else { bad += 1 }
        }
        fz::coverage("iblink pfc: parse_times", n / 10, &[("time lists", ok), ("refused", bad)]);
    }
}
