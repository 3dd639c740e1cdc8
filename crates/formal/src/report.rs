//! The table `make formal` prints: one row per proof, then one per planted bug.

use crate::manifest::Mode;
use crate::run::{Outcome, Task, TaskResult};
use std::fmt::Write;
use std::path::Path;

fn rel(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    p.strip_prefix(&cwd).unwrap_or(p).display().to_string()
}

fn result_text(t: &Task, r: &TaskResult) -> String {
    let mutant = t.mutant.is_some();
    match (&r.outcome, mutant) {
        (Outcome::Pass, false) => match t.proof.mode {
            Mode::Prove => "proven".into(),
            Mode::Bmc => "holds to depth".into(),
        },
        (Outcome::Pass, true) => "**MISSED**: the proof still passes".into(),
        (Outcome::BaseFail, true) => format!(
            "caught: {}",
            r.vcd.as_deref().map(rel).unwrap_or_else(|| "(no trace written)".into())
        ),
        (Outcome::BaseFail, false) => format!(
            "**FAILED** (counterexample from power-up: {})",
            r.vcd.as_deref().map(rel).unwrap_or_default()
        ),
        (Outcome::InductionFail, false) => format!(
            "**FAILED** induction step ({})",
            r.vcd.as_deref().map(rel).unwrap_or_default()
        ),
        (Outcome::InductionFail, true) => "**MISSED**: only the induction step fails".into(),
        (Outcome::Error(e), _) => format!("**ERROR**: {e}"),
    }
}

/// Markdown: proofs (property, module, engine, depth, result, seconds), then planted bugs.
pub fn markdown(rows: &[(Task, TaskResult)]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| proof | property | module | engine | depth | result | seconds |");
    let _ = writeln!(s, "|---|---|---|---|---:|---|---:|");
    for (t, r) in rows.iter().filter(|(t, _)| t.mutant.is_none()) {
        let p = &t.proof;
        let params: Vec<String> = p.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // The module under proof: listed last, after the modules it instantiates.
        let module = p.modules.last().and_then(|m| m.file_stem()).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let module = if params.is_empty() { module } else { format!("{module} ({})", params.join(", ")) };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {}, {}{} | {} | {} | {:.1} |",
            p.name,
            p.property,
            module,
            p.engine.name(),
            p.mode.name(),
            if p.split { ", one proof per assertion" } else { "" },
            p.depth,
            result_text(t, r),
            r.seconds
        );
    }
    if rows.iter().any(|(t, _)| t.mutant.is_some()) {
        let _ = writeln!(s, "\n| proof | planted bug | file | BMC depth | result | seconds |");
        let _ = writeln!(s, "|---|---|---|---:|---|---:|");
        for (t, r) in rows.iter() {
            if let Some(m) = &t.mutant {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {:.1} |",
                    t.proof.name,
                    m.name,
                    m.file,
                    m.depth.unwrap_or(t.proof.depth),
                    result_text(t, r),
                    r.seconds
                );
            }
        }
    }
    s
}
