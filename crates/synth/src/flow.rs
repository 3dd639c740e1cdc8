//! One synthesis job: a block's Verilog, wrapped, through Yosys and nextpnr.

use crate::bench::{benchmark_for, BenchmarkResult};
use crate::parse::{classify, does_not_fit, parse_critical_path, parse_stat_json, parse_utilisation, single_fmax, Cost, CriticalPath};
use crate::ports::parse_ports;
use crate::target::{Target, Tools};
use crate::wrapper::{wrapper_verilog, WrapperShape, DUT, WRAPPER};
use anyhow::{bail, Context};
use iblink_rtl::emit::Variant;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Options shared by every job of a run.
#[derive(Clone, Debug)]
pub struct FlowOptions {
    /// First nextpnr seed.
    pub seed: u64,
    /// Seeds to try (`seed`, `seed+1`, ...); the best Fmax is reported.
    pub seeds: u64,
    /// nextpnr `--freq` (MHz); `None` = the target's default.
    pub freq_mhz: Option<f64>,
}

impl Default for FlowOptions {
    fn default() -> Self {
        Self { seed: 1, seeds: 1, freq_mhz: None }
    }
}

/// One seed's place-and-route result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SeedRun {
    pub seed: u64,
    pub fmax_mhz: f64,
    pub log: PathBuf,
}

/// Whether the wrapped design was placed and routed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Routed,
    /// nextpnr could not place the wrapped design on the device: the resource over
    /// capacity (`ICESTORM_LC 9120/7680`) or nextpnr's placement error. The cell counts
    /// (Yosys) are still the block's.
    DoesNotFit(String),
}

/// Everything measured for one module on one target.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ModuleResult {
    pub target: String,
    pub module: String,
    pub block: String,
    pub config: BTreeMap<String, String>,
    /// The block's own cells (Yosys, block synthesised with keep_hierarchy).
    pub block_cost: Cost,
    /// The wrapper's cells (shift chain, output registers, XOR fold, I/O).
    pub wrapper_cost: Cost,
    pub wrapper: WrapperShape,
    /// nextpnr's device utilisation of the whole wrapped design: resource → [used, available].
    pub device: BTreeMap<String, (u64, u64)>,
    pub outcome: Outcome,
    /// Best routed Fmax over the seeds tried (MHz) and the seed that gave it (`None`:
    /// the design does not fit).
    pub fmax_mhz: Option<f64>,
    pub seed: Option<u64>,
    pub seeds_tried: Vec<SeedRun>,
    pub freq_target_mhz: f64,
    pub clock_net: String,
    pub critical_path: Option<CriticalPath>,
    /// Whether the critical path goes through the block (false: a wrapper-only path).
    pub critical_path_in_block: Option<bool>,
    pub benchmark: Option<BenchmarkResult>,
    pub dir: PathBuf,
}

fn run_logged(prog: &Path, args: &[String], cwd: &Path, log: &Path, what: &str) -> anyhow::Result<()> {
    let out = Command::new(prog)
        .args(args)
        .current_dir(cwd)
        .output()
        .with_context(|| format!("starting {}", prog.display()))?;
    // The tool writes its own log with -l; keep stdout/stderr too, for crashes.
    let mut console = String::from_utf8_lossy(&out.stdout).to_string();
    console.push_str(&String::from_utf8_lossy(&out.stderr));
    let console_path = log.with_extension("console.txt");
    std::fs::write(&console_path, &console).with_context(|| format!("writing {}", console_path.display()))?;
    if !out.status.success() {
        let tail: Vec<&str> = console.lines().filter(|l| l.contains("ERROR") || l.contains("rror:")).take(5).collect();
        bail!(
            "{what} failed ({}): {}; log: {}",
            out.status,
            if tail.is_empty() { "see the log".to_string() } else { tail.join(" | ") },
            log.display()
        );
    }
    Ok(())
}

/// The value of `top`'s `TARGET` parameter for `target`'s family, if `top` declares one
/// (`parameter TARGET = "GENERIC"` before its port list): `"ECP5"` on ECP5; iCE40 keeps
/// the default.
pub fn target_layout(text: &str, top: &str, target: Target) -> Option<&'static str> {
    let start = text.find(&format!("module {top} "))?;
    let header = &text[start..];
    let header = &header[..header.find(") (").unwrap_or(header.len())];
    let has = header.contains("parameter TARGET = \"GENERIC\"");
    (has && target.family() == crate::parse::Family::Ecp5).then_some("ECP5")
}

/// Synthesise, place and route `m` for `target` in `dir` (created), keeping every
/// input, netlist and log there.
pub fn run_module(
    m: &Variant,
    target: Target,
    tools: &Tools,
    opts: &FlowOptions,
    dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<ModuleResult> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let text = m.text();
    let ports = if m.ports.is_empty() { parse_ports(&text, &m.top)? } else { m.ports.clone() };
    let (wrap, shape) = wrapper_verilog(&m.top, &ports)?;
    let block_v = format!("{}.v", m.name);
    std::fs::write(dir.join(&block_v), &text)?;
    std::fs::write(dir.join("wrap.v"), &wrap)?;
    // The top module takes this configuration's parameters as its own, so that it keeps
    // its name (and its cells their row) through synthesis.
    let mut chparam: String = m.params.iter().map(|(k, v)| format!("chparam -set {k} {v} {}\n", m.top)).collect();
    // A top with a TARGET parameter (its netlist layout per device family) is built in
    // the layout for the family synthesised.
    if let Some(layout) = target_layout(&text, &m.top, target) {
        chparam += &format!("chparam -set TARGET \"{layout}\" {}\n", m.top);
    }
    let script = format!(
        "read_verilog {block_v}\nread_verilog wrap.v\n{chparam}\
         # Map the block on its own so its cells are counted apart from the wrapper's.\n\
         setattr -mod -set keep_hierarchy 1 {}\n\
         {}\n\
         tee -q -o stat.json stat -json\n\
         stat\n",
        m.top,
        target.synth_command(WRAPPER, "netlist.json"),
    );
    std::fs::write(dir.join("synth.ys"), &script)?;
    progress("yosys");
    let ylog = dir.join("yosys.log");
    run_logged(
        &tools.yosys,
        &["-q".into(), "-l".into(), "yosys.log".into(), "synth.ys".into()],
        dir,
        &ylog,
        "yosys",
    )?;
    let stat_text = std::fs::read_to_string(dir.join("stat.json")).context("yosys wrote no stat.json")?;
    let stat = parse_stat_json(&stat_text)?;
    let family = target.family();
    let block_cells = stat.get(&m.top).with_context(|| format!("stat.json has no module {}", m.top))?;
    let wrap_cells = stat.get(WRAPPER).with_context(|| format!("stat.json has no module {WRAPPER}"))?;
    let block_cost = classify(block_cells, family, &[]);
    let wrapper_cost = classify(wrap_cells, family, &[m.top.as_str()]);

    let freq = opts.freq_mhz.unwrap_or(target.default_freq_mhz());
    let mut runs = Vec::new();
    let mut best: Option<(f64, u64, String, String)> = None; // fmax, seed, clock, log text
    let mut outcome = Outcome::Routed;
    let mut last_log = String::new();
    for seed in opts.seed..opts.seed + opts.seeds.max(1) {
        progress(&format!("nextpnr seed {seed}"));
        let log = dir.join(format!("nextpnr-seed{seed}.log"));
        let mut args: Vec<String> = target.device_args().iter().map(|s| s.to_string()).collect();
        args.extend([
            "--json".into(),
            "netlist.json".into(),
            "--freq".into(),
            format!("{freq}"),
            "--seed".into(),
            seed.to_string(),
            "--timing-allow-fail".into(),
            "--report".into(),
            format!("nextpnr-seed{seed}.json"),
            "-l".into(),
            format!("nextpnr-seed{seed}.log"),
            "-q".into(),
        ]);
        let ran = run_logged(&tools.nextpnr, &args, dir, &log, &format!("nextpnr (seed {seed})"));
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Err(e) = ran {
            // Too big for the device is a result (reported as such), not an error.
            match does_not_fit(&text) {
                Some(why) => {
                    outcome = Outcome::DoesNotFit(why);
                    last_log = text;
                    break;
                }
                None => return Err(e),
            }
        }
        let (clock, fmax) = single_fmax(&text).with_context(|| format!("in {}", log.display()))?;
        runs.push(SeedRun { seed, fmax_mhz: fmax, log: log.clone() });
        if best.as_ref().is_none_or(|b| fmax > b.0) {
            best = Some((fmax, seed, clock, text));
        }
    }
    let (fmax, seed, clock_net, text) = match best {
        Some((f, s, c, t)) if outcome == Outcome::Routed => (Some(f), Some(s), c, t),
        _ => (None, None, String::new(), last_log),
    };
    let critical_path = if fmax.is_some() { parse_critical_path(&text) } else { None };
    let critical_path_in_block = critical_path.as_ref().map(|p| p.through(DUT));
    let benchmark = benchmark_for(&m.name, target).map(|b| b.evaluate(block_cost.lut4, fmax));
    Ok(ModuleResult {
        target: target.name().to_string(),
        module: m.name.clone(),
        block: m.block.to_string(),
        config: m.modules[0].config.iter().cloned().chain(m.params.iter().cloned()).collect(),
        block_cost,
        wrapper_cost,
        wrapper: shape,
        device: parse_utilisation(&text),
        outcome,
        fmax_mhz: fmax,
        seed,
        seeds_tried: runs,
        freq_target_mhz: freq,
        clock_net,
        critical_path,
        critical_path_in_block,
        benchmark,
        dir: dir.to_path_buf(),
    })
}

#[cfg(test)]
mod layout_tests {
    use super::target_layout;
    use crate::target::Target;

    #[test]
    fn only_a_top_with_a_target_parameter_gets_the_ecp5_layout_and_only_on_ecp5() {
        let pfc = iblink_rtl::catalog::pfc_tx_variant(8, 64).unwrap();
        let text = pfc.text();
        assert_eq!(target_layout(&text, &pfc.top, Target::Ecp5_45k), Some("ECP5"));
        assert_eq!(target_layout(&text, &pfc.top, Target::Ice40Hx8k), None);
        assert_eq!(target_layout(&text, &pfc.top, Target::Ice40Up5k), None);
        // The Ethernet port holds pfc_tx but has no TARGET parameter of its own.
        let port = iblink_rtl::catalog::eth_port_variant(2, 64).unwrap();
        assert_eq!(target_layout(&port.text(), &port.top, Target::Ecp5_45k), None);
    }
}
