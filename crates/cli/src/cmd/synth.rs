//! `iblink synth`: every emitted module through Yosys and nextpnr in a registered
//! wrapper; cell counts and Fmax as a Markdown table and `report.json`.

use crate::cmd::bad_input;
use anyhow::Context;
use clap::{Args, ValueEnum};
use iblink_rtl::catalog::{synth_variants, EmitRequest, BLOCKS};
use iblink_synth::report::FailedJob;
use iblink_synth::target::tool_version;
use iblink_synth::{run_module, tools_for, FlowOptions, ModuleResult, Report, Target};
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// iCE40-HX8K, CT256 package (Debian's yosys + nextpnr-ice40).
    #[value(name = "ice40-hx8k")]
    Ice40Hx8k,
    /// iCE40-UP5K, SG48 package (Debian's yosys + nextpnr-ice40).
    #[value(name = "ice40-up5k")]
    Ice40Up5k,
    /// ECP5 LFE5U-45F, CABGA381 package, speed 6: no SERDES (YoWASP yosys + nextpnr-ecp5 from PyPI).
    #[value(name = "ecp5-45k")]
    Ecp5_45k,
    /// ECP5-5G LFE5UM5G-45F, CABGA381 package, speed 8: the part with 5 Gb/s transceivers
    /// (the ECP5-5G Versa board's; same tools).
    #[value(name = "ecp5-5g-45")]
    Ecp5_5g45,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Self {
        match t {
            TargetArg::Ice40Hx8k => Target::Ice40Hx8k,
            TargetArg::Ice40Up5k => Target::Ice40Up5k,
            TargetArg::Ecp5_45k => Target::Ecp5_45k,
            TargetArg::Ecp5_5g45 => Target::Ecp5_5g45,
        }
    }
}

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Device(s) to synthesise for (repeatable).
    #[arg(long = "target", required = true, value_enum)]
    pub targets: Vec<TargetArg>,
    /// Only these block families (repeatable); default: all.
    #[arg(long = "block", conflicts_with = "all")]
    pub blocks: Vec<String>,
    /// Every block the catalog emits (the default).
    #[arg(long)]
    pub all: bool,
    /// Only these modules, by emitted name, e.g. iblink_crc16_w32 (repeatable).
    #[arg(long = "module")]
    pub modules: Vec<String>,
    /// Synthesise the link port generated from this port configuration file (the TOML of
    /// `iblink emit --config`) instead of catalog modules.
    #[arg(long, conflicts_with_all = ["blocks", "all", "modules"])]
    pub config: Option<PathBuf>,
    /// Output directory: report.json, report.md and one directory per target/module with
    /// the wrapper, the netlist and the yosys/nextpnr logs.
    #[arg(long, default_value = "build/synth")]
    pub out: PathBuf,
    /// First nextpnr placement seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seeds to try per module (seed, seed+1, ...); the best Fmax is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub seeds: u64,
    /// nextpnr target frequency in MHz (default: 250 hx8k, 120 up5k, 300 ecp5).
    #[arg(long)]
    pub freq: Option<f64>,
    /// Modules synthesised at once (default: the machine's cores). Each job is one
    /// single-threaded yosys or nextpnr process, so N jobs need N cores to gain N times.
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,
}

pub fn run(a: SynthArgs) -> anyhow::Result<ExitCode> {
    for b in &a.blocks {
        if !BLOCKS.contains(&b.as_str()) {
            return bad_input(format!("unknown block `{b}`: valid blocks are {}", BLOCKS.join(", ")));
        }
    }
    if let Some(f) = a.freq {
        if !(f.is_finite() && f > 0.0) {
            return bad_input(format!("--freq {f}: must be a positive number of MHz"));
        }
    }
    let mut modules = if let Some(path) = &a.config {
        // A bad file is refused before any tool runs; the error names the field.
        match super::emit::port_from_config(path) {
            Ok(m) => vec![m],
            Err(e) => return bad_input(e),
        }
    } else {
        let req = EmitRequest { blocks: a.blocks.clone(), crc_widths: vec![] };
        match synth_variants(&req) {
            Ok(m) => m,
            Err(e) => return bad_input(e),
        }
    };
    if !a.modules.is_empty() {
        let valid: Vec<String> = modules.iter().map(|m| m.name.clone()).collect();
        for want in &a.modules {
            if !valid.contains(want) {
                return bad_input(format!("unknown module `{want}`: valid modules are {}", valid.join(", ")));
            }
        }
        modules.retain(|m| a.modules.contains(&m.name));
    }
    let targets: Vec<Target> = {
        let mut t: Vec<Target> = a.targets.iter().map(|&t| t.into()).collect();
        t.dedup();
        t
    };
    let opts = FlowOptions { seed: a.seed, seeds: a.seeds, freq_mhz: a.freq };
    crate::cmd::output_dir("--out", &a.out)?;

    let mut report = Report::new(&opts);
    let mut tools = BTreeMap::new();
    for &t in &targets {
        let tl = tools_for(t, &mut |msg| eprintln!("synth: {msg}"))?;
        let mut v = BTreeMap::new();
        v.insert("yosys".to_string(), tool_version(&tl.yosys, "-V"));
        v.insert("nextpnr".to_string(), tool_version(&tl.nextpnr, "--version"));
        report.tools.insert(t.name().to_string(), v);
        tools.insert(t, tl);
    }

    let jobs: Vec<(Target, &iblink_rtl::emit::Variant)> =
        targets.iter().flat_map(|&t| modules.iter().map(move |m| (t, m))).collect();
    let workers = a
        .jobs
        .map(|j| j as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, jobs.len().max(1));
    let bar = ProgressBar::new(jobs.len() as u64).with_style(
        ProgressStyle::with_template("{prefix} [{bar:24}] {pos}/{len} modules, {elapsed}: {msg}").unwrap(),
    );
    bar.set_prefix(format!("synth ({workers} at once)"));
    // Results land in job order whatever order the workers finish in, so the report
    // reads the same for any --jobs.
    let report = Mutex::new(Partial { head: report, slots: vec![None; jobs.len()] });
    let next = AtomicUsize::new(0);
    let write_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(t, m)) = jobs.get(i) else { break };
                let dir = a.out.join(t.name()).join(&m.name);
                let label = format!("{} {}", t.name(), m.name);
                let res = run_module(m, t, &tools[&t], &opts, &dir, &mut |step| bar.set_message(format!("{label}: {step}")));
                let res = res.map_err(|e| {
                    // One module's tool failure must not cost a long run its other
                    // results: record it, go on, exit non-zero at the end.
                    let error = format!("{:#}", e.context(format!("files in {}", dir.display())));
                    bar.println(format!("synth: {label} failed: {error}"));
                    FailedJob { target: t.name().to_string(), module: m.name.clone(), error }
                });
                let mut report = report.lock().unwrap();
                report.slots[i] = Some(res);
                // Keep what was measured so far (a long run can be read while it goes on).
                if let Err(e) = write_report(&report.report(), &a.out) {
                    write_error.lock().unwrap().get_or_insert(e);
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error.into_inner().unwrap() {
        return Err(e);
    }
    let report = report.into_inner().unwrap().report();
    write_report(&report, &a.out)?;
    let md = report.markdown();
    println!("{md}");
    for (t, v) in &report.tools {
        println!("{t}: {}; {}", v["yosys"], v["nextpnr"]);
    }
    println!("report: {}", a.out.join("report.json").display());
    if !report.failed.is_empty() {
        eprintln!("error: {} of {} jobs failed (listed in the report)", report.failed.len(), report.failed.len() + report.results.len());
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The report while workers run: the fixed part and one slot per job, in job order.
struct Partial {
    head: Report,
    slots: Vec<Option<Result<ModuleResult, FailedJob>>>,
}

impl Partial {
    fn report(&self) -> Report {
        let mut r = self.head.clone();
        for slot in self.slots.iter().flatten() {
            match slot {
                Ok(m) => r.results.push(m.clone()),
                Err(f) => r.failed.push(f.clone()),
            }
        }
        r
    }
}

fn write_report(report: &Report, out: &Path) -> anyhow::Result<()> {
    let json = out.join("report.json");
    std::fs::write(&json, report.to_json()).with_context(|| format!("writing {}", json.display()))?;
    let md = out.join("report.md");
    std::fs::write(&md, report.markdown()).with_context(|| format!("writing {}", md.display()))
}
