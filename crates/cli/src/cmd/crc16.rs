//! `iblink crc16`: the LPCRC/VCRC of some bytes, from any back end — for people
//! checking a capture by hand.

use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};
use iblink_sim::blocks::crc16::{crc16_sim, crc16_through};
use iblink_sim::blocks::Backend;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BackendArg {
    Model,
    Rtl,
    Verilator,
}

impl From<BackendArg> for Backend {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Model => Backend::Model,
            BackendArg::Rtl => Backend::Rtl,
            BackendArg::Verilator => Backend::Verilator,
        }
    }
}

#[derive(Args, Debug)]
pub struct Crc16Args {
    /// Data width of the CRC unit in bits per clock.
    #[arg(long, default_value_t = 32, value_parser = clap::builder::PossibleValuesParser::new(["8", "16", "32", "64"]).map(|s| s.parse::<usize>().unwrap()))]
    pub width: usize,
    /// Which implementation computes it.
    #[arg(long, value_enum, default_value_t = BackendArg::Model)]
    pub backend: BackendArg,
    /// The bytes, as hex digits (spaces allowed between bytes): `313233343536373839`.
    pub hex: String,
}

/// Parse hex digits with optional whitespace between bytes.
pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    // Positions count characters (not bytes), from 1.
    let digits: Vec<(usize, char)> = s.chars().enumerate().filter(|(_, c)| !c.is_whitespace()).collect();
    if let Some((i, c)) = digits.iter().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!("`{c}` at position {} is not a hex digit", i + 1));
    }
    if digits.len() % 2 != 0 {
        return Err(format!(
            "{} hex digits: bytes need an even number of digits",
            digits.len()
        ));
    }
    Ok(digits
        .chunks(2)
        .map(|p| (p[0].1.to_digit(16).unwrap() * 16 + p[1].1.to_digit(16).unwrap()) as u8)
        .collect())
}

pub fn run(a: Crc16Args) -> anyhow::Result<ExitCode> {
    let bytes = match parse_hex(&a.hex) {
        Ok(b) => b,
        Err(e) => return crate::cmd::bad_input(format!("HEX: {e}")),
    };
    let mut sim = crc16_sim(a.width, a.backend.into(), None)?;
    let crc = crc16_through(sim.as_mut(), a.width, &bytes);
    let [lo, hi] = crc.to_le_bytes();
    println!("{crc:04x}");
    println!("wire: {lo:02x} {hi:02x}");
    Ok(ExitCode::SUCCESS)
}

/// Seeded fuzzing of `parse_hex` (`IBLINK_FUZZ_INPUTS` inputs; see
/// `iblink_testkit::fuzz`): no panic, and it agrees with its documented
/// syntax (hex digit pairs, whitespace between them ignored).
#[cfg(test)]
mod fuzz_tests {
    use iblink_testkit::fuzz::{self as fz, run_case, Rng};
    use super::parse_hex;

    fn oracle(s: &str) -> Result<Vec<u8>, char> {
        let d: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(c) = d.iter().find(|c| !c.is_ascii_hexdigit()) {
            return Err(*c);
        }
        if d.len() % 2 != 0 {
            return Err(' ');
        }
        Ok(d.chunks(2).map(|p| (p[0].to_digit(16).unwrap() * 16 + p[1].to_digit(16).unwrap()) as u8).collect())
    }

    #[test]
    fn fuzz_crc16_parse_hex() {
        let base = fz::base_seed(0xc11_0003);
        let n = fz::inputs();
        let (mut ok, mut bad) = (0u64, 0u64);
        for case in 0..n {
            let mut rng = Rng::new(fz::case_seed(base, case));
            let len = rng.size(12);
            let bytes = rng.bytes(len);
            let mut s = String::new();
            for b in &bytes {
                s.push_str(&if rng.bool() { format!("{b:02x}") } else { format!("{b:02X}") });
                if rng.chance(1, 3) {
                    s.push_str(rng.pick::<&str>(&[" ", "\t", "\n", "\u{85}", "\u{2028}"]));
                }
            }
            let written = s.clone();
            if rng.chance(1, 2) {
                let mut b = s.into_bytes();
                fz::mutate(&mut rng, &mut b, "é 0x g\u{a0}".as_bytes(), 3);
                s = String::from_utf8_lossy(&b).into_owned();
            }
            let r = run_case("iblink crc16: parse_hex", base, case, || format!("{s:?}"), || {
                let r = parse_hex(&s);
                match (&r, oracle(&s)) {
                    (Ok(got), Ok(want)) => assert_eq!(got, &want),
                    (Err(m), Err(' ')) => assert!(m.contains("hex digits"), "{m}"),
                    // The error names the first character that is not a hex digit.
                    (Err(m), Err(c)) => assert!(m.starts_with(&format!("`{c}` at position ")), "{m}"),
                    (r, o) => panic!("parse_hex says {r:?}, its syntax {o:?}"),
                }
                if s == written {
                    assert_eq!(r.as_ref().ok(), Some(&bytes));
                }
                r
            });
            if r.is_ok() {
                ok += 1;
            } else {
                bad += 1;
            }
        }
        fz::coverage("iblink crc16: parse_hex", n / 10, &[("bytes", ok), ("refused", bad)]);
    }

    /// The position in the error counts characters: a 3-byte ideographic space first
    /// still leaves `z` the 2nd character.
    #[test]
    fn error_position_counts_characters() {
        assert_eq!(parse_hex("\u{3000}zz"), Err("`z` at position 2 is not a hex digit".to_string()));
        assert_eq!(parse_hex("é1"), Err("`é` at position 1 is not a hex digit".to_string()));
        assert_eq!(parse_hex("12 3g"), Err("`g` at position 5 is not a hex digit".to_string()));
    }
}
