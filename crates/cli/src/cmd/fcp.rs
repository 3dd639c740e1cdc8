//! `iblink fcp encode|decode` — filled in by the reference-model work (issue 3).
use clap::Subcommand;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum FcpCmd {}

pub fn run(cmd: FcpCmd) -> anyhow::Result<ExitCode> {
    match cmd {}
}
