//! `iblink`: the command line of the iblink link-layer RTL generator.
use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

#[derive(Parser, Debug)]
#[command(name = "iblink", version, about = "InfiniBand-style link-layer RTL generator")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// CRC-16 (LPCRC/VCRC) of hex bytes, from any back end.
    Crc16(cmd::crc16::Crc16Args),
    /// A block's cycle-level testbench at chosen parameters: model, rtl and Verilator in
    /// lockstep with the test's coverage gates, and waveforms.
    Tb(cmd::tb::TbArgs),
    /// Grant sequence of a VLArbitrationTable for given queues (docs/spec.md §6).
    ArbTrace(cmd::arb_trace::ArbTraceArgs),
    /// Benchmarks.
    #[command(subcommand)]
    Bench(cmd::bench::BenchCmd),
    /// Write the Verilog of the blocks into a directory (atomically).
    Emit(cmd::emit::EmitArgs),
    /// Encode or decode a Flow Control Packet (docs/spec.md §2).
    #[command(subcommand)]
    Fcp(cmd::fcp::FcpCmd),
    /// Ethernet PAUSE/PFC frames: encode, decode, and the frames a trigger timeline sends (docs/spec.md §9).
    #[command(subcommand)]
    Pfc(cmd::pfc::PfcCmd),
    /// Two ports back to back through a faulty channel: summary, waveforms, plot, capture.
    Sim(cmd::sim::SimArgs),
    /// Synthesise, place and route every emitted module (Yosys + nextpnr): cells and Fmax.
    Synth(cmd::synth::SynthArgs),
    /// Formal proofs beside each block, on the emitted Verilog (yosys-smtbmc, z3).
    Formal(cmd::formal::FormalArgs),
}

fn main() -> ExitCode {
    // Output piped into a reader that stops early (`iblink emit --manifest | head`) ends
    // the process quietly, as for any Unix tool, instead of a panic on the next print.
    // SAFETY: setting a signal's disposition to the default, before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    iblink_sim::verilated::on_build(|m| eprintln!("{m}"));
    let result = match cli.command {
        Command::Emit(a) => cmd::emit::run(a),
        Command::Crc16(a) => cmd::crc16::run(a),
        Command::Tb(a) => cmd::tb::run(a),
        Command::Bench(c) => cmd::bench::run(c),
        Command::ArbTrace(a) => cmd::arb_trace::run(a),
        Command::Fcp(c) => cmd::fcp::run(c),
        Command::Pfc(c) => cmd::pfc::run(c),
        Command::Synth(a) => cmd::synth::run(a),
        Command::Sim(a) => cmd::sim::run(a),
        Command::Formal(a) => cmd::formal::run(a),
    };
    match result {
        Ok(code) => code,
        // A run that could not be done (see `cmd`'s rule): exit 2.
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(cmd::BAD_INPUT)
        }
    }
}
