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
    let digits: Vec<(usize, char)> = s.char_indices().filter(|(_, c)| !c.is_whitespace()).collect();
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
        Err(e) => {
            eprintln!("error: HEX: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut sim = crc16_sim(a.width, a.backend.into(), None)?;
    let crc = crc16_through(sim.as_mut(), a.width, &bytes);
    let [lo, hi] = crc.to_le_bytes();
    println!("{crc:04x}");
    println!("wire: {lo:02x} {hi:02x}");
    Ok(ExitCode::SUCCESS)
}
