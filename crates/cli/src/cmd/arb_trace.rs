//! `iblink arb-trace`: print the grant sequence of a VLArbitrationTable for given
//! queues (docs/spec.md §6), one line per packet.

use crate::cmd::bad_input;
use crate::cmd::crc16::BackendArg;
use anyhow::Context;
use clap::Args;
use iblink_sim::arb_trace::{trace_model, trace_rtl, ArbScenario};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct ArbTraceArgs {
    /// Which implementation arbitrates: the reference model, the arbiter's Rust twin,
    /// or its Verilog in Verilator (the same trace from each).
    #[arg(long, value_enum, default_value_t = BackendArg::Model)]
    pub backend: BackendArg,
    /// Port and queues: vl_cap, vl_high_limit, low_policy, high, low, [[queue]].
    pub file: PathBuf,
}

pub fn run(a: ArbTraceArgs) -> anyhow::Result<ExitCode> {
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => return bad_input(format!("{}: {e}", a.file.display())),
    };
    let scenario = match ArbScenario::from_toml(&text) {
        Ok(s) => s,
        Err(e) => return bad_input(format!("{}: {e}", a.file.display())),
    };
    // Table entries the arbiter skips (docs/spec.md §6) are traced as the hardware runs them.
    for w in scenario.config.skipped_entries() {
        eprintln!("warning: {}: {w}", a.file.display());
    }
    let trace = match a.backend {
        BackendArg::Model => trace_model(&scenario),
        // The arbiter RTL (iblink_vl_arb_vl<N>) driven from the queues, clock by clock.
        b => trace_rtl(&scenario, b.into()).context("building the arbiter RTL back end")?,
    };
    for g in &trace.grants {
        println!("{g}");
    }
    for (vl, n) in &trace.stranded {
        eprintln!("note: VL{vl}: {n} packet(s) never granted (no eligible table entry names it)");
    }
    Ok(ExitCode::SUCCESS)
}
