//! `iblink emit`: write the Verilog of every requested block into a directory, all
//! files or none.

use anyhow::Context;
use clap::Args;
use iblink_model::config::PortConfig;
use iblink_sim::port_config::port_params;
use iblink_rtl::catalog::{files, link_port_variant, synth_variants, variants, EmitRequest};
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
    /// Write nothing; print one line per configuration instead: its name, top module,
    /// parameters (`K=V,...`, or `-`) and module files, tab-separated (`make lint` reads it).
    /// `iblink synth`'s configurations of emitted modules at other parameters (the
    /// Ethernet memories) are listed too.
    #[arg(long)]
    pub manifest: bool,
}

/// One manifest line per configuration (see `--manifest`).
fn print_manifest(vs: &[iblink_rtl::emit::Variant]) {
    for v in vs {
        let params: Vec<String> = v.params.iter().map(|(k, x)| format!("{k}={x}")).collect();
        let files: Vec<String> = v.modules.iter().map(|m| m.file_name()).collect();
        let params = if params.is_empty() { "-".to_string() } else { params.join(",") };
        println!("{}\t{}\t{}\t{}", v.name, v.top, params, files.join(" "));
    }
}

/// Generated files in `dir` that the generator no longer emits: a file whose header
/// names this generator and that is not in `keep`.
fn stale_files(dir: &std::path::Path, keep: &[String]) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else { return vec![] };
    let mut stale = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.ends_with(".v") || name.ends_with(".f")) || keep.contains(&name) {
            continue;
        }
        let head = std::fs::read_to_string(e.path()).unwrap_or_default();
        let first = head.lines().next().unwrap_or("");
        if first.contains("by iblink-rtl ") {
            stale.push(e.path());
        }
    }
    stale.sort();
    stale
}

/// `--config`: read, validate, render in memory; any error names the file and the field.
/// Table entries the arbiter skips (docs/spec.md §6: VL15, a VL at or above VLCap, weight 0)
/// are kept as written (the port's loader writes them and the arbiter skips them); each
/// is printed to stderr as a warning naming the file and the entry.
pub fn port_from_config(path: &std::path::Path) -> Result<iblink_rtl::emit::Variant, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let cfg = PortConfig::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let p = port_params(&cfg).map_err(|e| format!("{}: {e}", path.display()))?;
    let m = link_port_variant(&p).map_err(|e| format!("{}: {e}", path.display()))?;
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
        if args.manifest {
            print_manifest(std::slice::from_ref(&m));
            return Ok(ExitCode::SUCCESS);
        }
        let written = write_atomically(&args.out, &files(std::slice::from_ref(&m)))
            .with_context(|| format!("emitting into {}", args.out.display()))?;
        for p in written {
            println!("wrote {}", p.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let everything = args.blocks.is_empty() && args.widths.is_empty();
    let req = EmitRequest {
        blocks: args.blocks,
        crc_widths: args.widths,
    };
    // Everything is rendered in memory first: a bad request touches no file.
    let vs = match variants(&req) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let modules = files(&vs);
    if args.manifest {
        let emitted: Vec<String> = modules.iter().map(|m| m.file_name()).collect();
        let mut listed = vs;
        for s in synth_variants(&req).unwrap_or_default() {
            let in_files = s.modules.iter().all(|m| emitted.contains(&m.file_name()));
            if in_files && !listed.iter().any(|v| v.name == s.name) {
                listed.push(s);
            }
        }
        print_manifest(&listed);
        return Ok(ExitCode::SUCCESS);
    }
    let written = write_atomically(&args.out, &modules)
        .with_context(|| format!("emitting into {}", args.out.display()))?;
    for p in written {
        println!("wrote {}", p.display());
    }
    // A whole emission replaces the directory's generated files: what the generator no
    // longer emits goes.
    if everything {
        let keep: Vec<String> = modules.iter().map(|m| m.file_name()).collect();
        for p in stale_files(&args.out, &keep) {
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            println!("removed {}", p.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
