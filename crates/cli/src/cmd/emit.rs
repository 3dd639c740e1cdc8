//! `iblink emit`: write the Verilog of every requested block into a directory, all
//! files or none.

use crate::cmd::{bad_input, output_dir};
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
    /// Folder to write the `<module>.v` files into, made as needed. Default: `hdl_out`,
    /// or with `--config FILE` `build/emit/<FILE's stem>` (a configured port never lands in
    /// the committed catalogue).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only these block families (repeatable); default: all.
    #[arg(long = "block")]
    pub blocks: Vec<String>,
    /// With `--manifest`: list only these CRC-16 configurations (repeatable: 8, 16, 32,
    /// 64 bits a clock). The CRC-16 module is one parameterised file for every width, so
    /// an emission writes the same files whatever the width.
    #[arg(long = "width")]
    pub widths: Vec<usize>,
    /// Generate one link port from a port configuration file (TOML: vl_cap,
    /// datapath_bits, buffer_blocks, tables, ...) instead of the block catalogue: a
    /// wrapper module that sets `iblink_link_port`'s parameters, so ports configured from
    /// different files live in one design, with every module it needs and its `.f`.
    #[arg(long, conflicts_with_all = ["blocks", "widths"])]
    pub config: Option<PathBuf>,
    /// With --config: the wrapper module's name (a Verilog identifier; default: the
    /// file's stem).
    #[arg(long, requires = "config")]
    pub name: Option<String>,
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
        if !(name.ends_with(".v") || name.ends_with(".f") || name.ends_with(".core")) || keep.contains(&name) {
            continue;
        }
        let head = std::fs::read_to_string(e.path()).unwrap_or_default();
        // The header's first line names the generator (a core's second: `CAPI=2:` comes first).
        if head.lines().take(2).any(|l| l.contains("by iblink-rtl ")) {
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
    let p = params_from_config(path)?;
    link_port_variant(&p).map_err(|e| format!("{}: {e}", path.display()))
}

/// A port file's values, checked (see [`port_from_config`]).
pub fn params_from_config(path: &std::path::Path) -> Result<iblink_rtl::link_port::PortParams, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if text.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
        return Err(format!(
            "{}: the file sets nothing (a port configuration names at least vl_cap and datapath_bits; the default ports are `iblink emit` without --config)",
            path.display()
        ));
    }
    let cfg = PortConfig::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let p = port_params(&cfg).map_err(|e| format!("{}: {e}", path.display()))?;
    p.check().map_err(|e| format!("{}: {e}", path.display()))?;
    for w in cfg.skipped_entries() {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(p)
}

/// The wrapper's default name: the file's stem as a Verilog identifier (other characters
/// as `_`, a leading digit after `_`).
fn default_name(path: &std::path::Path) -> String {
    let stem = path.file_stem().map_or("port".into(), |s| s.to_string_lossy().into_owned());
    let mut n: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        n.insert(0, '_');
    }
    n
}

pub fn run(args: EmitArgs) -> anyhow::Result<ExitCode> {
    if let Some(path) = &args.config {
        // Rendered in memory first: a bad configuration touches no file.
        let p = match params_from_config(path) {
            Ok(p) => p,
            Err(e) => return bad_input(e),
        };
        let name = args.name.clone().unwrap_or_else(|| default_name(path));
        let m = match iblink_rtl::link_port::netlist::wrapper(&p, &name, &path.display().to_string()) {
            Ok(m) => m,
            Err(e) => return bad_input(format!("--name: {e}")),
        };
        if args.manifest {
            print_manifest(std::slice::from_ref(&m));
            return Ok(ExitCode::SUCCESS);
        }
        let out = args.out.unwrap_or_else(|| PathBuf::from("build/emit").join(&name));
        output_dir("--out", &out)?;
        let written = write_atomically(&out, &files(std::slice::from_ref(&m)))
            .with_context(|| format!("--out {}: cannot write into it", out.display()))?;
        for p in written {
            println!("wrote {}", p.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !args.widths.is_empty() {
        if !args.manifest {
            return bad_input("--width: the CRC-16 module is one parameterised file for every width, so an emission writes the same files whatever the width; --width selects the configurations --manifest lists");
        }
        if !args.blocks.is_empty() && !args.blocks.iter().any(|b| b == "crc16") {
            return bad_input("--width: it selects CRC-16 configurations, and --block does not name crc16");
        }
    }
    let everything = args.blocks.is_empty() && args.widths.is_empty();
    let req = EmitRequest {
        blocks: args.blocks,
        crc_widths: args.widths,
    };
    // Everything is rendered in memory first: a bad request touches no file.
    let vs = match variants(&req) {
        Ok(v) => v,
        Err(e) => return bad_input(e),
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
    let out = args.out.unwrap_or_else(|| PathBuf::from("hdl_out"));
    output_dir("--out", &out)?;
    let written = write_atomically(&out, &modules).with_context(|| format!("--out {}: cannot write into it", out.display()))?;
    for p in written {
        println!("wrote {}", p.display());
    }
    // A whole emission replaces the directory's generated files: what the generator no
    // longer emits goes.
    if everything {
        let keep: Vec<String> = modules.iter().map(|m| m.file_name()).collect();
        for p in stale_files(&out, &keep) {
            std::fs::remove_file(&p).with_context(|| format!("removing {}", p.display()))?;
            println!("removed {}", p.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
