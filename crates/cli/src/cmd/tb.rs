//! `iblink tb BLOCK`: a block's cycle-level testbench (the lockstep test's stimulus and
//! coverage counters, `iblink_sim::tb`) at the parameters the user names, with waveforms.

use super::crc16::BackendArg;
use anyhow::Context;
use clap::Args;
use iblink_sim::blocks::Backend;
use iblink_sim::lockstep::DEFAULT_CYCLES;
use iblink_sim::tb::harness::{TbOptions, VcdOptions};
use iblink_sim::tb::params::{self, Values};
use iblink_sim::tb::{self, BlockTb};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

const AFTER_HELP: &str = "\
Runs the block's lockstep test (crates/sim/tests/lockstep/) at the configuration named:
the reference model, the Rust twin (rtl) and Verilator on the emitted module, stepped
with one random stimulus and compared every clock, with the coverage counters the test
gates. Prints the coverage table (each counter, its value, its gate, met or not) and
the paths of the waveforms (rtl and verilator: the first --vcd-cycles clocks of the run).

Examples:
  iblink tb vl_arb --param VLS=8
  iblink tb iblink_vl_arb_vl8 --cycles 200000
  iblink tb pfc_tx --param QUEUES=3 --param DATA_WIDTH=64 --param mode=pause
  iblink tb link_port --param VLS=15 --backend model,verilator
  iblink tb --list

Coverage gates: computed as the lockstep test computes them at the clocks run (some
scale with the clocks, some are absolute). A run shorter than the test's (--cycles below
the default) may miss a minimum: it is shown as \"missed (short run)\" and does not fail
the run; an invariant (a count that must be 0) always does. The counters are the model
back end's: without it they are not counted.

Exit status: 0 when the back ends agreed every clock and every gate was met; 1 on a
mismatch (the clock, the output field, that clock's inputs and each back end's value are
printed) or a gate missed; 2 on bad input (nothing is written).";

#[derive(Args, Debug)]
#[command(after_long_help = AFTER_HELP)]
pub struct TbArgs {
    /// A block of the catalog (crc16, vl_arb, pfc_tx, link_port, eth_port, ...; `--list`
    /// shows them all) with --param, or an emitted module name as `iblink emit` writes it and
    /// `iblink synth --module` takes it (iblink_vl_arb_vl8), which fixes the parameters its
    /// name carries.
    #[arg(value_name = "BLOCK|MODULE", required_unless_present = "list")]
    pub target: Option<String>,
    /// NAME=VALUE, repeatable: a Verilog parameter of the block (VLS, DATA_WIDTH, QUEUES,
    /// CAPACITY, TARGET) or a testbench setting (lower case: pfc_tx and pfc_frame `mode`,
    /// pfc_tx `zero_on_release`). Unset ones take the block's default (`--list`).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Shorthand for --param DATA_WIDTH=W.
    #[arg(long)]
    pub width: Option<usize>,
    /// Back ends, repeatable or comma-separated (default: all three). They run in the
    /// order model, rtl, verilator; the first is the one the others are compared to.
    #[arg(long = "backend", value_enum, value_delimiter = ',')]
    pub backends: Vec<BackendArg>,
    /// Clocks to run, 1..=10^9 (default: what the lockstep test runs at this
    /// configuration: 1,000,000; sl2vl at VLS 1, 2 or 8: 100,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub cycles: Option<u64>,
    /// Stimulus seed, decimal or 0x hex (default: the lockstep test's seed for this
    /// configuration, or one made from it when the test does not run it).
    #[arg(long, value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// Folder for the waveforms, made as needed: <module>_rtl.vcd and
    /// <module>_verilator.vcd (as `iblink sim --vcd DIR`; `--vcd-dir` is the same flag).
    #[arg(long = "vcd", alias = "vcd-dir", value_name = "DIR", default_value = "build/tb")]
    pub vcd_dir: PathBuf,
    /// Clocks in the waveforms (the first of the run).
    #[arg(long, default_value_t = 2_000)]
    pub vcd_cycles: u64,
    /// Write no waveform.
    #[arg(long)]
    pub no_vcd: bool,
    /// List every block: its parameters, their values and defaults, its module names.
    #[arg(long)]
    pub list: bool,
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .map_err(|e| format!("{s}: {e} (decimal or 0x hex)"))
}

fn bad_input(msg: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {msg}");
    Ok(ExitCode::from(2))
}

/// The block and its parameters, from the target and the flags; or the error.
fn resolve(a: &TbArgs, target: &str) -> Result<(&'static BlockTb, Values, String), String> {
    let mut given = a.params.clone();
    let (b, base, module) = if let Some(b) = tb::block(target) {
        (b, Values::defaults(b.params), None)
    } else if let Some((b, v)) = tb::find_module(target) {
        (b, v, Some(target.to_string()))
    } else {
        let blocks: Vec<&str> = tb::BLOCKS.iter().map(|b| b.name).collect();
        let mut msg = format!("unknown block or module `{target}` (BLOCK|MODULE): valid blocks are {}", blocks.join(", "));
        if target.starts_with("iblink_") {
            let names = tb::module_names();
            let near: Vec<&String> = names.iter().filter(|n| blocks.iter().any(|b| target.starts_with(&format!("iblink_{b}_")) && n.starts_with(&format!("iblink_{b}_")))).collect();
            let list: Vec<&String> = if near.is_empty() { names.iter().collect() } else { near };
            msg.push_str(&format!("; valid module names: {}", list.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")));
        } else {
            msg.push_str("; or a module name, e.g. iblink_vl_arb_vl8 (`iblink tb --list` lists them)");
        }
        return Err(msg);
    };
    if let Some(w) = a.width {
        let Some(spec) = b.params.iter().find(|p| p.name == "DATA_WIDTH") else {
            return Err(format!("--width {w}: {} has no DATA_WIDTH parameter; {}", b.name, params::valid(b.name, b.params)));
        };
        spec.check(&w.to_string()).map_err(|e| format!("--width {w}: {e}"))?;
        given.push(format!("DATA_WIDTH={w}"));
    }
    let v = params::parse_over(b.name, b.params, base, &given)?;
    let m = (b.variant)(&v)?;
    if let Some(name) = module {
        if m.name != name {
            return Err(format!(
                "--param: {name} is a module name, which fixes {}; give the block name ({}) with --param to choose them",
                b.params.iter().filter(|p| p.verilog && !matches!(p.allowed, params::Allowed::Words(_))).map(|p| p.name).collect::<Vec<_>>().join(" and "),
                b.name
            ));
        }
    }
    Ok((b, v, m.name))
}

fn list() -> ExitCode {
    for b in tb::BLOCKS {
        println!("{}", b.name);
        for p in b.params {
            let kind = if p.verilog { "" } else { "; testbench setting" };
            println!("  {} = {} (default {}{kind}): {}", p.name, p.allowed, p.default, p.help);
        }
        if b.params.is_empty() {
            println!("  (no parameters)");
        }
        let mut names: Vec<String> = vec![];
        for v in params::named_combinations(b.params) {
            if let Ok(m) = (b.variant)(&v) {
                if !names.contains(&m.name) {
                    names.push(m.name);
                }
            }
        }
        println!("  modules: {}", names.join(", "));
    }
    ExitCode::SUCCESS
}

pub fn run(a: TbArgs) -> anyhow::Result<ExitCode> {
    if a.list {
        return Ok(list());
    }
    let target = a.target.clone().unwrap_or_default();
    let (b, values, module) = match resolve(&a, &target) {
        Ok(x) => x,
        Err(e) => return bad_input(e),
    };
    let mut backends: Vec<Backend> = a.backends.iter().map(|&x| x.into()).collect();
    if backends.is_empty() {
        backends = Backend::ALL.to_vec();
    }
    backends.dedup();
    let test_cycles = (b.test_cycles)(&values, DEFAULT_CYCLES);
    let cycles = a.cycles.unwrap_or(test_cycles);
    let (default_seed, tested) = (b.seed)(&values);
    let seed = a.seed.unwrap_or(default_seed);
    let short = cycles < test_cycles;
    let order: Vec<&str> = Backend::ALL.iter().filter(|x| backends.contains(x)).map(|x| x.name()).collect();
    let traced = !a.no_vcd && a.vcd_cycles > 0 && order.iter().any(|n| *n != "model");
    let vcd = traced.then(|| VcdOptions { dir: a.vcd_dir.clone(), stem: module.clone(), cycles: a.vcd_cycles });
    if let Some(v) = &vcd {
        crate::cmd::output_dir("--vcd", &v.dir)?;
    }

    let mut what = vec![values.verilog(b.params)];
    what.push(values.settings(b.params));
    let what: Vec<String> = what.into_iter().filter(|s| !s.is_empty()).collect();
    let seed_note = match (seed == default_seed, tested) {
        (true, true) => " (the lockstep test's)",
        (true, false) => " (the lockstep test does not run this configuration)",
        _ => "",
    };
    let len_note = if cycles == test_cycles { " (as the lockstep test)".to_string() } else { format!(" (the lockstep test runs {test_cycles})") };
    println!(
        "tb {}: module {module}{}, seed {seed:#x}{seed_note}, {cycles} clocks{len_note}, back ends {}",
        b.name,
        if what.is_empty() { String::new() } else { format!(" ({})", what.join("; ")) },
        order.join(", ")
    );
    if let Some(v) = &vcd {
        println!("waveforms: the first {} clocks, in {}", v.cycles.min(cycles), v.dir.display());
    }

    let bar = ProgressBar::new(cycles).with_style(ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} clocks ({eta})").unwrap());
    if cycles < 100_000 {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_message(format!("{} lockstep", b.name));
    let progress = |c: u64| bar.set_position(c);
    let opts = TbOptions { cycles, backends: &backends, vcd: vcd.as_ref(), progress: Some(&progress) };
    let t0 = std::time::Instant::now();
    let r = (b.run)(&values, seed, &opts).with_context(|| format!("building the back ends of {module}"))?;
    bar.finish_and_clear();
    let secs = t0.elapsed().as_secs_f64();

    let mut failures: Vec<String> = vec![];
    match &r.mismatch {
        None => println!(
            "{}: {} clocks in lockstep ({}): {} ({secs:.1} s)",
            r.title,
            r.cycles,
            r.backends.join(", "),
            if r.backends.len() > 1 { "0 mismatches" } else { "one back end, nothing compared" }
        ),
        Some(m) => {
            println!("{}: the back ends disagree at clock {} ({secs:.1} s)", r.title, m.cycle);
            eprint!("{m}");
            failures.push(format!("the back ends disagree at clock {}", m.cycle));
        }
    }
    if !r.gates.is_empty() {
        if short {
            println!("coverage ({cycles} clocks, a short run: the test's minimums are for {test_cycles}; a minimum missed does not fail it):");
        } else {
            println!("coverage:");
        }
        print!("{}", r.table(short));
        let missed: Vec<String> = r.missed().filter(|g| g.invariant || !short).map(|g| format!("{} = {}, want {}", g.name, g.value, g.want_text())).collect();
        if !missed.is_empty() {
            failures.push(format!("{} gate(s) missed: {}", missed.len(), missed.join("; ")));
        }
    }
    for n in &r.notes {
        println!("note: {n}");
    }
    for w in &r.waves {
        println!("waveform: {}", w.display());
    }
    if failures.is_empty() {
        println!("PASS");
        Ok(ExitCode::SUCCESS)
    } else {
        for f in &failures {
            eprintln!("FAIL {}: {f}", r.title);
        }
        Ok(ExitCode::from(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        tb: TbArgs,
    }

    fn args(a: &[&str]) -> TbArgs {
        Cli::try_parse_from(std::iter::once("tb").chain(a.iter().copied())).unwrap().tb
    }

    fn resolved(a: &[&str]) -> Result<(&'static str, Values, String), String> {
        let t = args(a);
        let target = t.target.clone().unwrap();
        resolve(&t, &target).map(|(b, v, m)| (b.name, v, m))
    }

    #[test]
    fn a_block_with_params_or_a_module_name() {
        let (b, v, m) = resolved(&["vl_arb", "--param", "VLS=8"]).unwrap();
        assert_eq!((b, v.int("VLS"), m.as_str()), ("vl_arb", 8, "iblink_vl_arb_vl8"));
        let (b, v, m) = resolved(&["iblink_vl_arb_vl8"]).unwrap();
        assert_eq!((b, v.int("VLS"), m.as_str()), ("vl_arb", 8, "iblink_vl_arb_vl8"));
        let (_, v, m) = resolved(&["iblink_pfc_tx_q8_w64", "--param", "mode=pause", "--param", "TARGET=ECP5"]).unwrap();
        assert_eq!((v.get("mode"), v.get("TARGET"), m.as_str()), ("pause", "ECP5", "iblink_pfc_tx_q8_w64"));
        let (_, v, _) = resolved(&["crc16", "--width", "64"]).unwrap();
        assert_eq!(v.int("DATA_WIDTH"), 64);
        assert_eq!(args(&["x", "--backend", "model,verilator", "--backend", "rtl"]).backends.len(), 3);
        assert_eq!(args(&["x", "--seed", "0xa4b8"]).seed, Some(0xa4b8));
    }

    #[test]
    fn bad_input_names_the_flag_and_what_is_valid() {
        for (a, says) in [
            (&["vl_ar"][..], "unknown block or module `vl_ar` (BLOCK|MODULE): valid blocks are crc16, crc16_dword"),
            (&["iblink_vl_arb_vl3"][..], "valid module names: iblink_vl_arb_vl1, iblink_vl_arb_vl2"),
            (&["vl_arb", "--param", "VLS=3"][..], "--param VLS=3 is not generated: VLS takes 1, 2, 4, 8, 15"),
            (&["vl_arb", "--param", "QUEUES=3"][..], "--param QUEUES=3: vl_arb has no parameter QUEUES; valid parameters of vl_arb: VLS"),
            (&["iblink_vl_arb_vl8", "--param", "VLS=4"][..], "--param: iblink_vl_arb_vl8 is a module name, which fixes VLS"),
            (&["rx_credits", "--param", "CAPACITY=3072", "--param", "VLS=2"][..], "--param CAPACITY=3072 with VLS=2 has no RTL back end"),
            (&["crc16_dword", "--width", "32"][..], "--width 32: crc16_dword has no DATA_WIDTH parameter"),
            (&["crc16", "--width", "12"][..], "--width 12: DATA_WIDTH=12 is not generated"),
        ] {
            let e = resolved(a).unwrap_err();
            assert!(e.contains(says), "{a:?}: {e}");
        }
    }
}
