//! `iblink emit`: write the Verilog of every requested block into a directory, all
//! files or none.

use anyhow::Context;
use clap::Args;
use iblink_rtl::catalog::{generate, EmitRequest};
use iblink_rtl::emit::write_atomically;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct EmitArgs {
    /// Directory to write `<module>.v` files into (created if its parent exists).
    #[arg(long, default_value = "hdl_out")]
    pub out: PathBuf,
    /// Only these block families (repeatable); default: all.
    #[arg(long = "block")]
    pub blocks: Vec<String>,
    /// CRC unit data widths in bits (repeatable: 8, 16, 32, 64); default: all.
    #[arg(long = "width")]
    pub widths: Vec<usize>,
}

pub fn run(args: EmitArgs) -> anyhow::Result<ExitCode> {
    let req = EmitRequest {
        blocks: args.blocks,
        crc_widths: args.widths,
    };
    // Everything is rendered in memory first: a bad request touches no file.
    let modules = match generate(&req) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let written = write_atomically(&args.out, &modules)
        .with_context(|| format!("emitting into {}", args.out.display()))?;
    for p in written {
        println!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
