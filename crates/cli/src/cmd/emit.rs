//! `iblink emit`: write the Verilog of every requested block into a directory, all
//! files or none.

use anyhow::Context;
use clap::Args;
use iblink_model::config::PortConfig;
use iblink_sim::port_config::port_params;
use iblink_rtl::catalog::{generate, link_port_module, EmitRequest};
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
    /// Generate one link port from a port configuration file (TOML: vl_cap,
    /// datapath_bits, buffer_blocks, tables, ...) instead of the block catalogue.
    #[arg(long, conflicts_with_all = ["blocks", "widths"])]
    pub config: Option<PathBuf>,
}

/// `--config`: read, validate, render in memory; any error names the file and the field.
/// Table entries the arbiter skips (SPEC.md §6: VL15, a VL at or above VLCap, weight 0)
/// are kept as written (the port's loader writes them and the arbiter skips them); each
/// is printed to stderr as a warning naming the file and the entry.
pub fn port_from_config(path: &std::path::Path) -> Result<iblink_rtl::emit::EmittedModule, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let cfg = PortConfig::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let p = port_params(&cfg).map_err(|e| format!("{}: {e}", path.display()))?;
    let m = link_port_module(&p).map_err(|e| format!("{}: {e}", path.display()))?;
    for w in cfg.skipped_entries() {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(m)
}

pub fn run(args: EmitArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.config {
        // Rendered in memory first: a bad configuration touches no file.
        let m = match port_from_config(path) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
        };
        let written = write_atomically(&args.out, std::slice::from_ref(&m))
            .with_context(|| format!("emitting into {}", args.out.display()))?;
        for p in written {
            println!("wrote {}", p.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
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
