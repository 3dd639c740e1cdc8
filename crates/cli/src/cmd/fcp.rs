//! `iblink fcp encode|decode`: Flow Control Packets on the wire (SPEC.md §2), using the
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
use clap::Subcommand;
use iblink_model::fcp::{encode_fields, Fcp, FCP_BYTES};
use iblink_model::sl2vl::VlCap;
use std::process::ExitCode;

/// Exit status for bad input.
const BAD_INPUT: u8 = 2;

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
fn parse_num(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse::<u64>(),
    };
    r.map_err(|_| format!("{s:?} is not a decimal or 0x-hex number"))
}

/// Hex bytes with optional whitespace anywhere between digit pairs and an optional
/// leading `0x`.
fn parse_hex(args: &[String]) -> Result<Vec<u8>, String> {
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

fn bad_input(msg: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {msg}");
    Ok(ExitCode::from(BAD_INPUT))
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
            Err(e) => bad_input(e),
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
