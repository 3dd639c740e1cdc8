//! The subcommands, under one rule (the README's "Exit status"):
//! - 0: the run was done and every check it makes passed;
//! - 1: the run was done and one of its checks failed (a mismatch between back ends, a
//!   packet lost, a proof that failed, a module that missed its target);
//! - 2: the run was not done: bad input of any kind (a file that is missing, not TOML or
//!   wrong; a bad flag value; a flag that does not apply; an output that cannot be
//!   written; a tool that is missing). The message names the file, flag or path, and
//!   nothing is left behind: inputs are checked before any output is made.
//!
//! A subcommand returns `Ok(code)` for 0 and 1 and for refusals it prints itself
//! ([`bad_input`]); any `Err` it returns is a run that could not be done: `main` prints
//! it and exits 2.

use std::path::Path;
use std::process::ExitCode;

pub mod arb_trace;
pub mod bench;
pub mod crc16;
pub mod emit;
pub mod fcp;
pub mod pfc;
pub mod formal;
pub mod sim;
pub mod synth;
pub mod tb;

/// Exit status of a run that was not done.
pub const BAD_INPUT: u8 = 2;
/// Exit status of a run whose checks failed.
pub const CHECK_FAILED: u8 = 1;

/// Refuse bad input: `error: <msg>` on stderr (the message names the file, flag or
/// path), exit status 2.
pub fn bad_input(msg: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {msg}");
    Ok(ExitCode::from(BAD_INPUT))
}

/// Whether the folders an output at `path` needs can be made: no file stands where one of
/// them must go (checked with the inputs, so a refusal leaves nothing behind). `dir`: the
/// output is itself a folder.
pub fn creatable(flag: &str, path: &Path, dir: bool) -> Result<(), String> {
    if path.is_dir() != dir && path.exists() {
        let what = if dir { "a file, not a folder" } else { "a folder, not a file" };
        return Err(format!("{flag} {}: is {what}", path.display()));
    }
    match path.ancestors().skip(1).find(|a| a.exists()) {
        Some(a) if !a.is_dir() => Err(format!("{flag} {}: cannot make its folder: {} is a file", path.display(), a.display())),
        _ => Ok(()),
    }
}

/// Make the folders an output file at `path` needs (its parent, all the way down),
/// naming the flag when that cannot be done. Called once the inputs are checked.
pub fn output_file(flag: &str, path: &Path) -> anyhow::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => output_dir(flag, dir),
        _ => Ok(()),
    }
}

/// Make the folder `dir` (all the way down), naming the flag when that cannot be done.
pub fn output_dir(flag: &str, dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{flag} {}: cannot create the folder: {e}", dir.display()))
}

/// The capture formats an output's extension picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    Erf,
    Pcap,
}

/// The format `path`'s extension names, or why it names none (`flag` in the message).
pub fn capture_format(flag: &str, path: &Path) -> Result<CaptureFormat, String> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("erf") => Ok(CaptureFormat::Erf),
        Some("pcap") => Ok(CaptureFormat::Pcap),
        _ => Err(format!("{flag} {}: the extension picks the format: FILE.erf (ERF, with the link's own records) or FILE.pcap", path.display())),
    }
}
