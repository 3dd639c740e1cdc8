//! One proof (or one planted bug) through the tools.
//!
//! Yosys reads the emitted modules and the harness, sets the harness parameters,
//! flattens, connects the taps, checks the netlist (`check -assert`: an undriven or
//! doubly driven net is an error, so a forgotten tap cannot pass as a free value) and
//! writes SMT-LIB2. yosys-smtbmc with z3 then runs:
//! * the base case: BMC from the power-up state (`initial` values) for `depth` clocks;
//!   (`--unroll`: the model's functions are unrolled into plain formulas; without it
//!   z3 stalls on some of these models)
//! * in `prove` mode, the induction step: `depth` clocks from any state satisfying the
//!   assertions, then one more that must satisfy them too.
//!
//! With `engine = "abc"` (BMC only) Yosys writes an AIGER model instead and ABC's `bmc3`
//! runs it to `depth` clocks (the assumptions are AIGER constraints, folded into the
//! property); a counterexample comes back as an AIGER witness, which Yosys's `sim`
//! replays on the same netlist into `base.vcd`.
//!
//! With `engine = "cms"` the same AIGER model goes to `aig_cms.py` (embedded here,
//! written beside the model), which unrolls it to CNF and asks CryptoMiniSat: BMC from
//! the initial state (its counterexample an AIGER witness, replayed the same way) and,
//! in `prove` mode, the induction step.
//!
//! A planted bug passes only if BMC from power-up finds a counterexample (a trace a
//! person can replay): an induction-step failure alone is not shown to be reachable.

use crate::manifest::{Engine, Mode, Mutant, Proof};
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// A unit of work: a proof, or one of its planted bugs.
#[derive(Clone, Debug)]
pub struct Task {
    pub proof: Proof,
    pub mutant: Option<Mutant>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// All assertions hold (BMC to depth; and the induction step in prove mode).
    Pass,
    /// BMC from power-up found a counterexample.
    BaseFail,
    /// The base case held, the induction step did not (a missing invariant, or a bug
    /// deeper than the base case looks).
    InductionFail,
    /// A tool failed to run, or the harness does not build.
    Error(String),
}

#[derive(Clone, Debug)]
pub struct TaskResult {
    pub outcome: Outcome,
    pub seconds: f64,
    /// The task's directory: model.ys, model.smt2, logs, and any counterexample VCD.
    pub dir: PathBuf,
    /// The counterexample trace, if one was written.
    pub vcd: Option<PathBuf>,
    /// The assertion that failed (smtbmc's "Assert failed in ..." line), if any.
    pub failed_assert: Option<String>,
}

impl TaskResult {
    /// Whether the task did what it should: a proof passes, a planted bug fails the base case.
    pub fn ok(&self, is_mutant: bool) -> bool {
        if is_mutant {
            self.outcome == Outcome::BaseFail
        } else {
            self.outcome == Outcome::Pass
        }
    }
}

pub fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').to_string()
}

impl Task {
    pub fn dir(&self, out: &Path) -> PathBuf {
        let d = out.join(&self.proof.name);
        match &self.mutant {
            None => d,
            Some(m) => d.join(format!("mutant-{}", slug(&m.name))),
        }
    }

    fn depth(&self) -> u32 {
        self.mutant.as_ref().and_then(|m| m.depth).unwrap_or(self.proof.depth)
    }
}

/// The Yosys script that turns the harness and the modules into `model.smt2`.
pub fn yosys_script(p: &Proof, modules: &[PathBuf], planted: bool) -> String {
    let mut s = String::new();
    for m in modules {
        s += &format!("read_verilog -formal -sv {}\n", m.display());
    }
    // A planted-bug run defines IBLINK_FV_PLANTED: a harness leaves out its inductive
    // invariants there (`ifndef IBLINK_FV_PLANTED`), so the bug has to break the
    // property itself, not merely a relation to a DUT register it changed.
    let define = if planted { "-DIBLINK_FV_PLANTED " } else { "" };
    s += &format!("read_verilog -formal -sv {define}{}\n", p.harness.display());
    for (k, v) in &p.params {
        s += &format!("chparam -set {k} {v} {}\n", p.top);
    }
    s += &format!("hierarchy -check -top {}\nproc\nflatten\n", p.top);
    if !p.taps.is_empty() {
        s += &format!("cd {}\n", p.top);
        // -nounset: Yosys may already have aliased the tap wire to other wires (a
        // harness expression folded to a plain copy of it); unsetting would cut those
        // copies loose. A harness that drives a tap wire itself is then a multiple-
        // driver error in `check -assert`.
        for (wire, path) in &p.taps {
            s += &format!("connect -nounset -set {wire} {path}\n");
        }
        s += "cd\n";
    }
    s += &format!("prep -top {}\nasync2sync\ndffunmap\ncheck -assert\n", p.top);
    match p.engine {
        Engine::Z3 => s += "write_smt2 -wires model.smt2\n",
        // Gates and flip-flops only; undriven nets are errors in `check -assert` above,
        // so setundef meets none the harness relies on.
        Engine::Abc | Engine::Cms => {
            s += "memory_map\nopt -fast\ntechmap\nopt -fast\ndffunmap\nabc -g AND\nopt_clean\nsetundef -zero -undriven\n";
            s += WRITE_AIGER;
        }
    }
    s
}

/// The last lines of an ABC model's script: the netlist as RTLIL (what a replay reads,
/// removed when the task ends) and as AIGER.
const WRITE_AIGER: &str = "write_rtlil model.il\nwrite_aiger -zinit -map model.aim model.aig\n";

/// A replay of a witness into a VCD, on the very netlist the AIGER model was written from.
fn replay_script(top: &str, witness: &str, vcd: &str) -> String {
    format!("read_rtlil model.il\nsim -clock clock -r {witness} -map model.aim -vcd {vcd} -scope {top}\n")
}

/// ABC's `bmc3` on `model.aig` to `depth` clocks: (held, the failing assertion).
fn abc_bmc(dir: &Path, top: &str, depth: u32) -> anyhow::Result<(bool, Option<String>)> {
    let cmd = format!("read_aiger model.aig; fold; bmc3 -F {depth}; write_cex -a cex.aiw");
    let text = tool("yosys-abc", &["-c", &cmd], dir, "base.log")?;
    if text.contains(&format!("No output asserted in {depth} frames")) {
        return Ok((true, None));
    }
    if !text.contains("was asserted in frame") {
        bail!("yosys-abc ended without a verdict (see {})", dir.join("base.log").display());
    }
    replay(dir, top, "ABC", "cex.aiw", "base.vcd")
}

/// Yosys's replay of a witness into a VCD: (false, the failing assertion).
fn replay(dir: &Path, top: &str, who: &str, witness: &str, vcd: &str) -> anyhow::Result<(bool, Option<String>)> {
    std::fs::write(dir.join("replay.ys"), replay_script(top, witness, vcd))?;
    let sim = tool("yosys", &["-q", "-s", "replay.ys"], dir, "replay.log")?;
    // The replay must fail an assertion too, or the witness is not this model's.
    let failed = sim.lines().find(|l| l.contains("Assert ") && l.contains("failed")).map(|l| l.trim().to_string());
    if failed.is_none() {
        bail!("{who}'s counterexample does not fail an assertion in Yosys's replay (see {})", dir.join("replay.log").display());
    }
    Ok((false, failed))
}

/// The CryptoMiniSat checker, embedded: written beside each model it runs on.
const AIG_CMS: &str = include_str!("aig_cms.py");

/// The Python that has `pycryptosat`: `IBLINK_FORMAL_PYTHON`, else the python of the
/// virtual environment `make deps` installs it into (`IBLINK_FORMAL_VENV`, as
/// tools/deps.sh takes it, else `.venv-formal/` in `root`, the workspace), else `python3`.
pub fn cms_python(root: &Path) -> String {
    if let Ok(p) = std::env::var("IBLINK_FORMAL_PYTHON") {
        return p;
    }
    let venv_dir = std::env::var_os("IBLINK_FORMAL_VENV").map_or_else(|| root.join(".venv-formal"), PathBuf::from);
    // Absolute, but not canonical: the venv's python is a symlink, and resolving it
    // would leave the venv.
    let venv = std::path::absolute(venv_dir.join("bin/python")).unwrap_or_default();
    if venv.is_file() {
        return venv.display().to_string();
    }
    "python3".into()
}

/// `aig_cms.py` on `model.aig`: BMC from power-up to `depth` clocks, or the induction
/// step of length `depth`; a counterexample is replayed into `base.vcd` or
/// `induction.vcd` (the step's from the free state it starts in).
fn cms(dir: &Path, top: &str, depth: u32, induction: bool) -> anyhow::Result<(bool, Option<String>)> {
    std::fs::write(dir.join("aig_cms.py"), AIG_CMS)?;
    let d = depth.to_string();
    let (mode, witness, vcd, log) =
        if induction { ("step", "step.aiw", "induction.vcd", "induction.log") } else { ("bmc", "cex.aiw", "base.vcd", "base.log") };
    let root = std::env::current_dir().unwrap_or_default();
    let text = tool(&cms_python(&root), &["aig_cms.py", "model.aig", mode, &d, witness], dir, log)?;
    let verdict = text.lines().rev().find(|l| l.starts_with("held") || l.starts_with("failed"));
    match verdict {
        Some("held") => Ok((true, None)),
        Some(_) => replay(dir, top, "CryptoMiniSat", witness, vcd),
        None => bail!(
            "aig_cms.py ended without a verdict (is pycryptosat installed? `make deps`; see {})",
            dir.join(log).display()
        ),
    }
}

fn tool(name: &str, args: &[&str], cwd: &Path, log: &str) -> anyhow::Result<String> {
    let out = Command::new(name)
        .args(args)
        .current_dir(cwd)
        .output()
        .with_context(|| format!("running {name} (is it installed? `make deps`)"))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text += &String::from_utf8_lossy(&out.stderr);
    std::fs::write(cwd.join(log), &text)?;
    Ok(text)
}

fn smtbmc(cwd: &Path, depth: u32, induction: bool, vcd: &str, log: &str) -> anyhow::Result<(bool, Option<String>)> {
    let t = depth.to_string();
    let mut args = vec!["-s", "z3", "--presat", "--unroll"];
    if induction {
        args.push("-i");
    }
    args.extend(["-t", &t, "--dump-vcd", vcd, "model.smt2"]);
    let text = tool("yosys-smtbmc", &args, cwd, log)?;
    let status = text.lines().rev().find_map(|l| l.split("Status: ").nth(1)).map(str::trim);
    let failed = text.lines().find(|l| l.contains("Assert failed in")).map(|l| {
        l.split("Assert failed in ").nth(1).unwrap_or(l).trim().to_string()
    });
    match status {
        Some("PASSED") => Ok((true, None)),
        Some("FAILED") => Ok((false, failed)),
        other => bail!(
            "yosys-smtbmc ended with status {:?} (see {}): {}",
            other,
            cwd.join(log).display(),
            text.lines().rfind(|l| l.contains("rror") || l.contains("nsatisf")).unwrap_or("")
        ),
    }
}

/// A split proof ([`crate::split`]): every part in `dir/split/<k>-<name>/`, base case and
/// induction step each; the first part that fails is the outcome (its trace and the
/// part's assertion reported), else every part passed. `dir/split/parts.md` lists the
/// parts with their results and seconds.
fn run_split(p: &Proof, modules: &[PathBuf], dir: &Path, depth: u32) -> anyhow::Result<Found> {
    let text = std::fs::read_to_string(&p.harness).with_context(|| format!("reading {}", p.harness.display()))?;
    let parts = crate::split::split(&text).with_context(|| format!("splitting {}", p.harness.display()))?;
    let root = dir.join("split");
    if root.exists() {
        std::fs::remove_dir_all(&root)?;
    }
    let mut table = String::from("| part | line | rank | assertion | base | step | s |\n|---|---:|---:|---|---|---|---:|\n");
    let mut failure: Option<Found> = None;
    for (k, part) in parts.iter().enumerate() {
        let label = part.name.as_ref().map_or(k.to_string(), |n| format!("{k}-{n}"));
        let d = root.join(&label);
        std::fs::create_dir_all(&d)?;
        let harness = d.join(p.harness.file_name().unwrap_or_default());
        std::fs::write(&harness, &part.text)?;
        let sub = Proof { harness, ..p.clone() };
        let start = Instant::now();
        let (outcome, vcd, failed) = check_model(&sub, modules, false, &d, depth, true).with_context(|| format!("part {label}"))?;
        let (base, step) = match outcome {
            Outcome::Pass => ("pass", "pass"),
            Outcome::BaseFail => ("FAIL", "-"),
            Outcome::InductionFail | Outcome::Error(_) => ("pass", "FAIL"),
        };
        let cell = part.assertion.replace('|', "\\|");
        table += &format!("| {label} | {} | {} | `{cell}` | {base} | {step} | {:.1} |\n", part.line, part.rank, start.elapsed().as_secs_f64());
        if outcome != Outcome::Pass {
            let what = format!("part {label} (line {}: {}): {}", part.line, part.assertion, failed.unwrap_or_default());
            failure = Some((outcome, vcd, Some(what)));
            break;
        }
    }
    std::fs::write(root.join("parts.md"), table)?;
    Ok(failure.unwrap_or((Outcome::Pass, None, None)))
}

/// Run a task in `out/<proof>[/mutant-<name>]`, replacing what a previous run left there.
pub fn run_task(task: &Task, out: &Path) -> TaskResult {
    let dir = std::path::absolute(task.dir(out)).unwrap_or_else(|_| task.dir(out));
    let start = Instant::now();
    let r = run_in(task, &dir);
    // The RTLIL netlist only serves a replay, and is megabytes for the larger models.
    let _ = std::fs::remove_file(dir.join("model.il"));
    let seconds = start.elapsed().as_secs_f64();
    match r {
        Ok((outcome, vcd, failed_assert)) => TaskResult { outcome, seconds, dir, vcd, failed_assert },
        Err(e) => TaskResult { outcome: Outcome::Error(format!("{e:#}")), seconds, dir, vcd: None, failed_assert: None },
    }
}

type Found = (Outcome, Option<PathBuf>, Option<String>);

fn run_in(task: &Task, dir: &Path) -> anyhow::Result<Found> {
    let p = &task.proof;
    if dir.exists() {
        // Only this task's own files: a proof's directory also holds its mutants'.
        for f in [
            "model.ys", "model.smt2", "model.aig", "model.aim", "model.il", "cex.aiw", "step.aiw", "aig_cms.py", "replay.ys", "replay.log", "yosys.log", "base.log",
            "base.vcd", "induction.log", "induction.vcd",
        ] {
            let _ = std::fs::remove_file(dir.join(f));
        }
    }
    std::fs::create_dir_all(dir)?;
    let modules: Vec<PathBuf> = match &task.mutant {
        None => p.modules.clone(),
        Some(m) => {
            let src = dir.join("src");
            std::fs::create_dir_all(&src)?;
            let mut v = Vec::new();
            for f in &p.modules {
                let mut text = std::fs::read_to_string(f)?;
                let name = f.file_name().unwrap().to_string_lossy().into_owned();
                if name == m.file {
                    if text.matches(&m.from).count() != 1 {
                        bail!("mutant `{}`: `{}` no longer occurs exactly once in {name}", m.name, m.from);
                    }
                    text = text.replacen(&m.from, &m.to, 1);
                }
                let copy = src.join(&name);
                std::fs::write(&copy, text)?;
                v.push(copy);
            }
            v
        }
    };
    if p.split && task.mutant.is_none() {
        return run_split(p, &modules, dir, task.depth());
    }
    let induction = p.mode == Mode::Prove && task.mutant.is_none();
    check_model(p, &modules, task.mutant.is_some(), dir, task.depth(), induction)
}

/// Build `p`'s model in `dir` (the modules, the harness, `planted` for a planted-bug
/// run), run BMC from power-up to `depth` with the proof's engine and, if `induction`,
/// the induction step of the same length: the first failure with its trace, else a pass.
fn check_model(p: &Proof, modules: &[PathBuf], planted: bool, dir: &Path, depth: u32, induction: bool) -> anyhow::Result<Found> {
    std::fs::write(dir.join("model.ys"), yosys_script(p, modules, planted))?;
    let ylog = tool("yosys", &["-q", "-l", "yosys.log", "-s", "model.ys"], dir, "yosys.out")?;
    let model = if p.engine == Engine::Z3 { "model.smt2" } else { "model.aig" };
    if !dir.join(model).is_file() {
        let err = ylog.lines().find(|l| l.contains("ERROR")).map_or(format!("no {model} written"), str::to_string);
        bail!("yosys: {err} (see {})", dir.join("yosys.log").display());
    }
    let (base_ok, failed) = match p.engine {
        Engine::Z3 => smtbmc(dir, depth, false, "base.vcd", "base.log")?,
        Engine::Abc => abc_bmc(dir, &p.top, depth)?,
        Engine::Cms => cms(dir, &p.top, depth, false)?,
    };
    if !base_ok {
        return Ok((Outcome::BaseFail, Some(dir.join("base.vcd")).filter(|v| v.is_file()), failed));
    }
    if induction {
        let (ind_ok, failed) = match p.engine {
            Engine::Cms => cms(dir, &p.top, depth, true)?,
            _ => smtbmc(dir, depth, true, "induction.vcd", "induction.log")?,
        };
        if !ind_ok {
            return Ok((Outcome::InductionFail, Some(dir.join("induction.vcd")).filter(|v| v.is_file()), failed));
        }
    }
    Ok((Outcome::Pass, None, None))
}
