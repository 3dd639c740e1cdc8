//! `iblink bench`: speed figures (benchmarks live here, never in timed tests).

use clap::{Args, Subcommand};
use iblink_sim::bench::{bench_crc16, bench_crc16_rust_hdl_simulation, bench_port_pair, bench_port_pair_model, crc16_stimulus, BenchResult};
use iblink_sim::blocks::Backend;
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum BenchCmd {
    /// Cycles per second of every simulation back end on the same stimulus.
    Sim(SimBench),
}

#[derive(Args, Debug)]
pub struct SimBench {
    /// Cycles for the fast back ends (1..=10^9).
    #[arg(long, default_value_t = 5_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub cycles: u64,
    /// Clocks of the two-port link-port benchmark (1..=10^9).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub port_cycles: u64,
    /// Cycles for rust-hdl's own thread-per-testbench `Simulation` (slow; at most
    /// --cycles are run).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub simulation_cycles: u64,
}

pub fn run(cmd: BenchCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCmd::Sim(b) => sim(b),
    }
}

fn sim(b: SimBench) -> anyhow::Result<ExitCode> {
    let stim = crc16_stimulus(b.cycles as usize);
    let bar = progress(4);
    let mut results: Vec<BenchResult> = Vec::new();
    for be in [Backend::Model, Backend::Rtl, Backend::Verilator] {
        bar.set_message(format!("crc16 w32: {}", be.name()));
        results.push(bench_crc16(be, &stim)?);
        bar.inc(1);
    }
    bar.set_message("crc16 w32: rust-hdl Simulation");
    results.push(bench_crc16_rust_hdl_simulation(&stim[..(b.simulation_cycles as usize).min(stim.len())]));
    bar.finish_and_clear();
    if results[0].checksum != results[1].checksum || results[1].checksum != results[2].checksum {
        eprintln!("error: the back ends produced different outputs on the benchmark stimulus");
        return Ok(ExitCode::from(crate::cmd::CHECK_FAILED));
    }
    println!("CRC-16 unit, 32 bits per clock, one random stimulus (outputs agree across back ends)\n");
    print_table("cycles", &results, &results[2]);
    let vl = results[2].cycles_per_second();
    println!(
        "\nmodel / rtl stepper = {:.1}x; rtl stepper / Verilator = {:.2}x",
        results[0].cycles_per_second() / results[1].cycles_per_second(),
        results[1].cycles_per_second() / vl
    );
    // The whole port: two link ports back to back under saturating traffic.
    let n = b.port_cycles;
    let bar = progress(3);
    bar.set_message("link port pair: model");
    let mut port = vec![bench_port_pair_model(n)];
    bar.inc(1);
    for be in [Backend::Rtl, Backend::Verilator] {
        bar.set_message(format!("link port pair: {}", be.name()));
        port.push(bench_port_pair(be, n)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if port[1].checksum != port[2].checksum {
        eprintln!("error: the rtl and Verilator link ports produced different outputs");
        return Ok(ExitCode::from(crate::cmd::CHECK_FAILED));
    }
    println!("\nLink port, VLCap 4, 32 bits: two ports back to back, saturated ({n} clocks; port-clocks/s)\n");
    print_table("port-clocks", &port, &port[2]);
    println!("\n(the model moves whole packets a clock apart; the RTL back ends move words)");
    Ok(ExitCode::SUCCESS)
}

fn progress(steps: u64) -> ProgressBar {
    ProgressBar::new(steps).with_style(ProgressStyle::with_template("{msg} [{bar:20}] {pos}/{len}").unwrap())
}

/// A Markdown table of `results` in `unit`s, each against `verilator`.
fn print_table(unit: &str, results: &[BenchResult], verilator: &BenchResult) {
    println!("| back end | {unit} | seconds | {unit}/s | vs Verilator |");
    println!("|---|---:|---:|---:|---:|");
    let vl = verilator.cycles_per_second();
    for r in results {
        println!(
            "| {} | {} | {:.3} | {:.3e} | {:.2}x |",
            r.backend,
            r.cycles,
            r.seconds,
            r.cycles_per_second(),
            r.cycles_per_second() / vl
        );
    }
}
