//! `iblink formal`: every proof listed in a block folder's `formal.toml`, on the Verilog
//! in `hdl_out/`, and every planted bug shown to make its proof fail.

use crate::cmd::{bad_input, output_dir, CHECK_FAILED};
use iblink_formal::report::markdown;
use iblink_formal::{load_all, run_task, Task, TaskResult};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

#[derive(clap::Args, Debug)]
pub struct FormalArgs {
    /// Only the proofs marked `fast` (the ones `make test` runs).
    #[arg(long)]
    pub fast: bool,
    /// Only these proofs, by name (repeatable).
    #[arg(long = "only")]
    pub only: Vec<String>,
    /// Skip the planted bugs (each is a BMC run that must fail).
    #[arg(long)]
    pub no_mutants: bool,
    /// The emitted Verilog that is proven.
    #[arg(long, default_value = "hdl_out")]
    pub hdl: PathBuf,
    /// Where the block folders (and their formal.toml) are.
    #[arg(long, default_value = "crates/rtl/src")]
    pub rtl: PathBuf,
    /// Output: report.md and one directory per proof (script, SMT-LIB2, logs, traces);
    /// made as needed.
    #[arg(long, default_value = "build/formal")]
    pub out: PathBuf,
    /// Proofs run at once (default: the machine's cores).
    #[arg(long, short = 'j', value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,
    /// List the proofs and exit.
    #[arg(long)]
    pub list: bool,
}

pub fn run(a: FormalArgs) -> anyhow::Result<ExitCode> {
    for (flag, dir, what) in [("--rtl", &a.rtl, "the block folders with their formal.toml"), ("--hdl", &a.hdl, "the emitted Verilog")] {
        if !dir.is_dir() {
            return bad_input(format!("{flag} {}: not a folder ({what}; run from the repository's root, or name it)", dir.display()));
        }
    }
    let proofs = match load_all(&a.rtl, &a.hdl) {
        Ok(p) => p,
        Err(e) => return bad_input(format!("{e:#}")),
    };
    for want in &a.only {
        if !proofs.iter().any(|p| &p.name == want) {
            let names: Vec<&str> = proofs.iter().map(|p| p.name.as_str()).collect();
            return bad_input(format!("--only {want}: no such proof; proofs are {}", names.join(", ")));
        }
    }
    let chosen: Vec<_> = proofs
        .into_iter()
        .filter(|p| a.only.is_empty() || a.only.contains(&p.name))
        .filter(|p| !a.fast || p.fast)
        .collect();
    if a.list {
        for p in &chosen {
            println!("{}\t{}\t{} depth {}\t{}", p.name, p.block, p.mode.name(), p.depth, p.property);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut tasks: Vec<Task> = Vec::new();
    for p in &chosen {
        tasks.push(Task { proof: p.clone(), mutant: None });
        if !a.no_mutants {
            for m in &p.mutants {
                tasks.push(Task { proof: p.clone(), mutant: Some(m.clone()) });
            }
        }
    }
    output_dir("--out", &a.out)?;
    let jobs = a
        .jobs
        .map(|j| j as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .min(tasks.len().max(1));
    let bar = ProgressBar::new(tasks.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {msg}")
            .unwrap()
            .progress_chars("=> "),
    );
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<TaskResult>>> = Mutex::new(vec![None; tasks.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(t) = tasks.get(i) else { break };
                let what = match &t.mutant {
                    None => t.proof.name.clone(),
                    Some(m) => format!("{} / {}", t.proof.name, m.name),
                };
                bar.set_message(what.clone());
                let r = run_task(t, &a.out);
                let ok = r.ok(t.mutant.is_some());
                if !ok {
                    bar.println(format!("{what}: {:?} ({})", r.outcome, r.dir.display()));
                }
                bar.inc(1);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    bar.finish_and_clear();
    let rows: Vec<(Task, TaskResult)> =
        tasks.into_iter().zip(results.into_inner().unwrap().into_iter().map(|r| r.unwrap())).collect();
    let table = markdown(&rows);
    std::fs::write(a.out.join("report.md"), &table)?;
    print!("{table}");
    let bad = rows.iter().filter(|(t, r)| !r.ok(t.mutant.is_some())).count();
    let proofs = rows.iter().filter(|(t, _)| t.mutant.is_none()).count();
    let mutants = rows.len() - proofs;
    println!(
        "\n{proofs} proofs, {mutants} planted bugs: {}; table in {}",
        if bad == 0 { "all as expected".to_string() } else { format!("{bad} NOT as expected") },
        a.out.join("report.md").display()
    );
    Ok(if bad == 0 { ExitCode::SUCCESS } else { ExitCode::from(CHECK_FAILED) })
}
