//! `iblink fcp encode|decode`: Flow Control Packets on the wire (docs/spec.md §2), using the
//! reference model (`iblink_model::fcp`).
//!
//! Formats:
//! * `encode` prints the six wire bytes as lowercase hex separated by spaces, e.g.
//!   `10 00 00 00 58 05` (header word big-endian, then LPCRC low byte first).
//! * `decode` prints `op=<dec> fctbs=<dec> vl=<dec> fccl=<dec> lpcrc=0x<4 hex digits>`:
//!   the fields in decimal (as the spec's worked examples quote them), the LPCRC in hex
//!   as the value (not the wire order), e.g. `op=1 fctbs=0 vl=0 fccl=0 lpcrc=0x0558`.
//! * Numbers on the command line are decimal or `0x` hex.
//! * Bad input (out-of-range field, bad hex, short packet, reserved op, bad LPCRC, VL15
//!   or VL >= VLCap) prints `error: …` on stderr and exits with status 2.
use crate::cmd::bad_input;
use clap::Subcommand;
use iblink_model::fcp::{encode_fields, Fcp, FCP_BYTES};
use iblink_model::sl2vl::VlCap;
use std::process::ExitCode;

/// Exit status for bad input.
#[derive(Subcommand, Debug)]
pub enum FcpCmd {
    /// Encode fields to the six wire bytes, printed as hex (`10 00 00 00 58 05`).
    Encode {
        /// Op, 0..=15 (0 normal, 1 init; 2–15 are reserved but may be encoded for tests).
        #[arg(long, value_parser = parse_num)]
        op: u64,
        /// FCTBS, 0..=4095.
        #[arg(long, value_parser = parse_num)]
        fctbs: u64,
        /// VL, 0..=15.
        #[arg(long, value_parser = parse_num)]
        vl: u64,
        /// FCCL, 0..=4095.
        #[arg(long, value_parser = parse_num)]
        fccl: u64,
    },
    /// Decode six wire bytes given as hex, with or without spaces
    /// (`10 00 00 00 58 05` or `100000005805`). Prints
    /// `op=<dec> fctbs=<dec> vl=<dec> fccl=<dec> lpcrc=0x<hex>`.
    Decode {
        /// The bytes in hex; several arguments are joined.
        #[arg(required = true, num_args = 1..)]
        hex: Vec<String>,
        /// VLCap of the receiving port (1, 2, 4, 8 or 15): an FCP for VL >= VLCap is an error.
        #[arg(long, default_value = "15", value_parser = parse_num)]
        vl_cap: u64,
    },
}

/// Decimal or `0x`-prefixed hex.
pub fn parse_num(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse::<u64>(),
    };
    r.map_err(|_| format!("{s:?} is not a decimal or 0x-hex number"))
}

/// Hex bytes with optional whitespace anywhere between digit pairs and an optional
/// leading `0x`.
pub fn parse_hex(args: &[String]) -> Result<Vec<u8>, String> {
    let joined: String = args.join(" ");
    let mut digits: String = joined.split_whitespace().collect();
    if let Some(rest) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        digits = rest.to_string();
    }
    if let Some(c) = digits.chars().find(|c| !c.is_ascii_hexdigit()) {
        return Err(format!("{c:?} is not a hex digit"));
    }
    if digits.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    Ok((0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap())
        .collect())
}

pub fn run(cmd: FcpCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        FcpCmd::Encode {
            op,
            fctbs,
            vl,
            fccl,
        } => match encode_fields(op, fctbs, vl, fccl) {
            Ok(bytes) => {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                println!("{}", hex.join(" "));
                Ok(ExitCode::SUCCESS)
            }
            // The field is the flag's name: `--op: 99 is out of range 0..=15`.
            Err(e) => bad_input(format!("--{e}")),
        },
        FcpCmd::Decode { hex, vl_cap } => {
            let vl_cap = match VlCap::new(vl_cap) {
                Ok(c) => c,
                Err(_) => {
                    return bad_input(format!("--vl-cap: {vl_cap} is not one of 1, 2, 4, 8, 15"))
                }
            };
            let bytes = match parse_hex(&hex) {
                Ok(b) => b,
                Err(e) => return bad_input(format!("hex: {e}")),
            };
            if bytes.len() > FCP_BYTES {
                return bad_input(format!("{} bytes: an FCP is 6 bytes", bytes.len()));
            }
            match Fcp::decode(&bytes, vl_cap) {
                Ok(f) => {
                    let lpcrc = u16::from_le_bytes([bytes[4], bytes[5]]);
                    println!(
                        "op={} fctbs={} vl={} fccl={} lpcrc={lpcrc:#06x}",
                        f.op as u8, f.fctbs, f.vl, f.fccl
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => bad_input(e),
            }
        }
    }
}

/// Seeded fuzzing of the command line's number and hex parsers (`IBLINK_FUZZ_INPUTS`
/// inputs each; see `iblink_testkit::fuzz`): no panic, and each agrees with
/// a reading of its documented syntax written here.
#[cfg(test)]
mod fuzz_tests {
    use iblink_testkit::fuzz::{self as fz, run_case, Rng};
    use super::{parse_hex, parse_num};

    /// Pieces numbers and hex are made of, good and bad.
    const PIECES: &[&str] = &[
        "0", "1", "9", "a", "f", "A", "F", "g", "x", "0x", "0X", "+", "-", " ", "\t", "\n", "\u{a0}", "\u{2003}", "_", ".", "é",
        "٣", "ｆ", "18446744073709551615", "18446744073709551616", "ffffffffffffffff", "10000000000000000", "00", "10 00 00 00 58 05",
    ];

    fn random_text(rng: &mut Rng) -> String {
        let mut s = String::new();
        for _ in 0..rng.range(0, 6) {
            if rng.chance(1, 4) {
                let len = rng.range(1, 4) as usize;
                let b = rng.bytes(len);
                s.push_str(&String::from_utf8_lossy(&b));
            } else {
                s.push_str(rng.pick::<&str>(PIECES));
            }
        }
        s
    }

    /// `parse_num` as documented: decimal or `0x`/`0X` hex after trimming, as Rust's
    /// integer parsing reads digits (an optional `+`), fitting in 64 bits.
    fn num_oracle(s: &str) -> Option<u64> {
        let t = s.trim();
        let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(h) => (h, 16),
            None => (t, 10),
        };
        let digits = digits.strip_prefix('+').unwrap_or(digits);
        if digits.is_empty() {
            return None;
        }
        let mut v: u128 = 0;
        for c in digits.chars() {
            v = v * radix as u128 + c.to_digit(radix)? as u128;
            if v > u64::MAX as u128 {
                return None;
            }
        }
        Some(v as u64)
    }

    #[test]
    fn fuzz_parse_num() {
        let base = fz::base_seed(0xc11_0001);
        let n = fz::inputs();
        let (mut ok, mut bad) = (0u64, 0u64);
        for case in 0..n {
            let mut rng = Rng::new(fz::case_seed(base, case));
            let s = match rng.below(4) {
                0 => random_text(&mut rng),
                1 => format!("{}", rng.u64() >> rng.below(64)),
                2 => {
                    let v = rng.u64() >> rng.below(64);
                    let mut t = if rng.bool() { format!("{v:#x}") } else { format!("0X{v:X}") };
                    if rng.chance(1, 3) {
                        let mut b = t.into_bytes();
                        fz::mutate(&mut rng, &mut b, b"0x1f", 2);
                        t = String::from_utf8_lossy(&b).into_owned();
                    }
                    t
                }
                _ => {
                    let pad = |rng: &mut Rng| rng.pick(&["", " ", "\t", "  \n"]).to_string();
                    format!("{}{}{}", pad(&mut rng), rng.u64() >> rng.below(64), pad(&mut rng))
                }
            };
            let r = run_case("iblink fcp: parse_num", base, case, || format!("{s:?}"), || {
                let r = parse_num(&s);
                assert_eq!(r.as_ref().ok().copied(), num_oracle(&s), "{r:?}");
                if let Err(m) = &r {
                    assert!(m.contains(&format!("{s:?}")), "the error quotes the argument: {m}");
                }
                r
            });
            if r.is_ok() {
                ok += 1;
            } else {
                bad += 1;
            }
        }
        fz::coverage("iblink fcp: parse_num", n / 10, &[("numbers", ok), ("refused", bad)]);
    }

    /// `parse_hex` as documented: the arguments joined, whitespace anywhere dropped, one
    /// leading `0x`/`0X`, then an even number of hex digits.
    fn hex_oracle(args: &[String]) -> Result<Vec<u8>, ()> {
        let joined: String = args.join(" ").chars().filter(|c| !c.is_whitespace()).collect();
        let d = joined.strip_prefix("0x").or_else(|| joined.strip_prefix("0X")).unwrap_or(&joined);
        let v: Vec<u32> = d.chars().map(|c| c.to_digit(16).filter(|_| c.is_ascii())).collect::<Option<_>>().ok_or(())?;
        if v.len() % 2 != 0 {
            return Err(());
        }
        Ok(v.chunks(2).map(|p| (p[0] * 16 + p[1]) as u8).collect())
    }

    #[test]
    fn fuzz_parse_hex() {
        let base = fz::base_seed(0xc11_0002);
        let n = fz::inputs();
        let (mut ok, mut bad) = (0u64, 0u64);
        for case in 0..n {
            let mut rng = Rng::new(fz::case_seed(base, case));
            // Bytes written as hex the ways a user writes them, then perhaps damaged.
            let len = rng.size(10);
            let bytes = rng.bytes(len);
            let mut text = if rng.bool() { String::new() } else { rng.pick(&["0x", "0X", " 0x"]).to_string() };
            for b in &bytes {
                text.push_str(&if rng.bool() { format!("{b:02x}") } else { format!("{b:02X}") });
                if rng.chance(1, 3) {
                    text.push_str(rng.pick::<&str>(&[" ", "  ", "\t", "\n", "\u{3000}"]));
                }
            }
            let clean = !text.trim_start().starts_with("0x") || !text.starts_with(' ');
            let damaged = match rng.below(4) {
                0 => {
                    let mut b = text.clone().into_bytes();
                    fz::mutate(&mut rng, &mut b, b"0 1 f F g", 3);
                    text = String::from_utf8_lossy(&b).into_owned();
                    true
                }
                1 => {
                    text = random_text(&mut rng);
                    true
                }
                _ => false,
            };
            // Split into arguments at random places.
            let mut args = vec![];
            let chars: Vec<char> = text.chars().collect();
            let mut at = 0;
            while at < chars.len() {
                let k = (rng.range(1, 8) as usize).min(chars.len() - at);
                args.push(chars[at..at + k].iter().collect::<String>());
                at += k;
            }
            if args.is_empty() {
                args.push(String::new());
            }
            let r = run_case("iblink fcp: parse_hex", base, case, || format!("{args:?}"), || {
                let r = parse_hex(&args);
                assert_eq!(r.as_ref().map_err(|_| ()), hex_oracle(&args).as_ref().map_err(|_| ()), "{r:?}");
                if !damaged && clean {
                    assert_eq!(r.as_ref().ok(), Some(&bytes), "what was written");
                }
                if let Err(m) = &r {
                    assert!(m.contains("hex digit"), "{m}");
                }
                r
            });
            if r.is_ok() {
                ok += 1;
            } else {
                bad += 1;
            }
        }
        fz::coverage("iblink fcp: parse_hex", n / 10, &[("bytes", ok), ("refused", bad)]);
    }
}
