//! The report: a Markdown table for people, `report.json` for tools.

use crate::flow::{FlowOptions, ModuleResult, Outcome};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How the numbers are measured (written into the JSON report and the README).
pub const METHOD: &str = "Each module is wrapped in a registered harness: every input bit comes from a flip-flop \
of one shift chain loaded from a single pin, every output bit is registered and XOR-folded by registered \
4-input stages to at most 4 pins, so all block paths are register-to-register and nothing is optimised away. \
The block is synthesised with keep_hierarchy: LUT4/carry/FF/BRAM are the block's own cells from Yosys's stat; \
the wrapper's cells are reported separately (wrapper_cost). Fmax is nextpnr's routed 'Max frequency for clock' \
of the whole wrapped design, best over the seeds tried; the wrapper's paths are at most one LUT deep, and \
critical_path_in_block says whether the critical path goes through the block (it may start at a wrapper input register, which stands in for the upstream register).";

#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub generator: String,
    pub method: &'static str,
    pub seed: u64,
    pub seeds: u64,
    /// target → tool → version line.
    pub tools: BTreeMap<String, BTreeMap<String, String>>,
    pub results: Vec<ModuleResult>,
    /// Jobs whose tools failed (not "does not fit", which is a result): the run goes on
    /// with the next module and exits non-zero at the end.
    pub failed: Vec<FailedJob>,
}

/// A module whose synthesis or place-and-route failed.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FailedJob {
    pub target: String,
    pub module: String,
    pub error: String,
}

impl Report {
    pub fn new(opts: &FlowOptions) -> Self {
        Report {
            generator: format!("iblink-synth {}", env!("CARGO_PKG_VERSION")),
            method: METHOD,
            seed: opts.seed,
            seeds: opts.seeds,
            tools: BTreeMap::new(),
            results: vec![],
            failed: vec![],
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }

    /// The Markdown table (plus a note per missed target naming the critical path).
    pub fn markdown(&self) -> String {
        let with_target = self.results.iter().any(|r| r.benchmark.is_some());
        let mut s = String::new();
        let _ = write!(s, "| target | module | LUT4 | carry | FF | BRAM | Fmax (MHz) | seed |");
        if with_target {
            s.push_str(" target |");
        }
        s.push('\n');
        let _ = write!(s, "|---|---|---:|---:|---:|---:|---:|---:|");
        if with_target {
            s.push_str("---|");
        }
        s.push('\n');
        for r in &self.results {
            let c = &r.block_cost;
            let (fmax, seed) = match (&r.outcome, r.fmax_mhz, r.seed) {
                (Outcome::Routed, Some(f), Some(seed)) => {
                    let all: Vec<String> = r.seeds_tried.iter().map(|t| format!("{:.1}", t.fmax_mhz)).collect();
                    let seed = if r.seeds_tried.len() > 1 {
                        format!("{seed} (best of {}: {})", r.seeds_tried.len(), all.join(", "))
                    } else {
                        seed.to_string()
                    };
                    (format!("{f:.1}"), seed)
                }
                (Outcome::DoesNotFit(why), ..) => (format!("does not fit ({why})"), "-".into()),
                _ => ("-".into(), "-".into()),
            };
            let _ = write!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                r.target, r.module, c.lut4, c.carry, c.ff, c.bram, fmax, seed
            );
            if with_target {
                match &r.benchmark {
                    Some(b) => {
                        let verdict = if b.met { "met" } else { "**missed**" };
                        let _ = write!(s, " {}: {verdict} |", b.benchmark.describe());
                    }
                    None => s.push_str(" |"),
                }
            }
            s.push('\n');
        }
        for f in &self.failed {
            let _ = writeln!(s, "| {} | {} | | | | | failed | |", f.target, f.module);
        }
        let notes: Vec<&ModuleResult> = self
            .results
            .iter()
            .filter(|r| r.benchmark.as_ref().is_some_and(|b| !b.met) || r.critical_path_in_block == Some(false))
            .collect();
        for r in notes {
            if let Some(p) = &r.critical_path {
                let _ = writeln!(
                    s,
                    "\n{} on {}: critical path {} -> {} ({} cells after the start register, {:?} ns logic, {:?} ns routing{})",
                    r.module,
                    r.target,
                    p.from,
                    p.to,
                    p.logic_levels(),
                    p.logic_ns.unwrap_or(f64::NAN),
                    p.routing_ns.unwrap_or(f64::NAN),
                    if r.critical_path_in_block == Some(false) { "; wrapper-only path: the wrapper limits this figure" } else { "" }
                );
            }
        }
        for f in &self.failed {
            let _ = writeln!(s, "\n{} on {} failed: {}", f.module, f.target, f.error);
        }
        s
    }
}
