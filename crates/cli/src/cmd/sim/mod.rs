//! `iblink sim --scenario FILE`: the subcommand's arguments, and the dispatch on what the
//! scenario is: a link-port scenario (`link.rs`: two link ports back to back through a
//! faulty channel) or an Ethernet one (`eth.rs`: two PAUSE/PFC ports, docs/spec.md §9).
//! What both use (the arguments, usage errors, the output-directory check) is here; the
//! two never import each other.

mod eth;
mod link;

use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SimBackend {
    /// The port's rust-hdl description, stepped in Rust.
    Rtl,
    /// The port's emitted Verilog, built by Verilator.
    Verilator,
    /// The reference model alone (Ethernet scenarios and sweeps).
    Model,
}

#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum ViewArg {
    /// What each receiver got: lost items left out (counted in the next record's ERF
    /// loss counter), flipped ones flagged RX error.
    #[default]
    Receiver,
    /// What each transmitter sent: every item, unmarked.
    Sender,
}

#[derive(Args, Debug)]
pub struct SimArgs {
    /// The scenario (TOML: port, channel, faults, traffic, drain; see tb/scenarios/).
    #[arg(long)]
    pub scenario: PathBuf,
    /// [default: rtl; model for an Ethernet headroom sweep]
    #[arg(long, value_enum)]
    pub backend: Option<SimBackend>,
    /// Traffic clocks, 1..=10^9 as the file's `cycles` (replaces it); a flush follows.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub cycles: Option<u64>,
    /// Folder for the waveforms of both ports (port_a.vcd, port_b.vcd), made as needed
    /// [default: build/sim/<scenario>/].
    #[arg(long, value_name = "DIR")]
    pub vcd: Option<PathBuf>,
    /// Write no waveforms.
    #[arg(long, conflicts_with_all = ["vcd", "vcd_window"])]
    pub no_vcd: bool,
    /// Write only clocks FROM up to TO (TO excluded) of the waveforms: both ports' VCDs
    /// start at FROM with every signal's value then. FROM must fall in the traffic
    /// clocks.
    #[arg(long, value_name = "FROM..TO", value_parser = parse_window)]
    pub vcd_window: Option<(u64, u64)>,
    /// The timeline plot (SVG); `--plot` alone: timeline.svg in the waveform directory, or
    /// build/sim/<scenario>/ (a link-port scenario always writes it there; an Ethernet
    /// one only when asked).
    #[arg(long, value_name = "FILE.svg", num_args = 0..=1)]
    pub plot: Option<Option<PathBuf>>,
    /// Write no timeline plot (with --no-vcd, a link-port run writes no file at all).
    #[arg(long, conflicts_with = "plot")]
    pub no_plot: bool,
    /// Write both directions of the link as a capture (Wireshark/tshark); the extension
    /// picks the format: a link-port scenario writes FILE.erf (data and VL15 packets as
    /// ERF type 21, FCPs as type 25, interface 0 = A→B, 1 = B→A), an Ethernet one
    /// FILE.pcap (Ethernet link type, FCS included).
    #[arg(long, value_name = "FILE.erf|FILE.pcap")]
    pub capture: Option<PathBuf>,
    /// Which side of the channel the capture shows [default: receiver] (link-port
    /// scenarios: an Ethernet wire loses and damages nothing).
    #[arg(long, value_enum)]
    pub capture_view: Option<ViewArg>,
    /// Timeline window in clocks (replaces the scenario's `sample_every`; link-port and
    /// Ethernet scenarios).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample_every: Option<u64>,
    /// The port clock, for the capture's timestamps and the plot's Gb/s scale.
    #[arg(long, default_value_t = 250.0)]
    pub clock_mhz: f64,
    /// Do not run the reference model alongside.
    #[arg(long)]
    pub no_model: bool,
}

/// `FROM..TO`: clocks, FROM below TO.
fn parse_window(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s.split_once("..").ok_or_else(|| format!("{s:?} is not FROM..TO (clocks, e.g. 200000..201000)"))?;
    let num = |x: &str, what: &str| x.trim().parse::<u64>().map_err(|_| format!("{what} {x:?} is not a clock number"));
    let (from, to) = (num(a, "FROM")?, num(b, "TO")?);
    if from >= to {
        return Err(format!("FROM {from} is not below TO {to}"));
    }
    Ok((from, to))
}

/// Usage problems found before anything runs (exit status 2).
fn usage(msg: String) -> anyhow::Result<ExitCode> {
    crate::cmd::bad_input(msg)
}

/// A file the run will write: not a folder, and its folders can be made (they are made
/// once the inputs are checked, [`crate::cmd::output_file`]).
fn check_file(opt: &str, p: &Path) -> Result<(), String> {
    crate::cmd::creatable(&format!("--{opt}"), p, false)
}

/// A folder the run will write into (made once the inputs are checked).
fn check_dir(opt: &str, p: &Path) -> Result<(), String> {
    crate::cmd::creatable(&format!("--{opt}"), p, true)
}

/// A capture's format from its extension, the one this kind of scenario writes.
fn check_capture(p: &Path, want: crate::cmd::CaptureFormat) -> Result<(), String> {
    use crate::cmd::CaptureFormat;
    match (crate::cmd::capture_format("--capture", p)?, want) {
        (f, w) if f == w => check_file("capture", p),
        (_, CaptureFormat::Erf) => Err(format!(
            "--capture {}: a link-port scenario's capture is ERF (its records tell data packets from FCPs and carry the direction): FILE.erf",
            p.display()
        )),
        (_, CaptureFormat::Pcap) => Err(format!("--capture {}: an Ethernet scenario's capture is pcap: FILE.pcap", p.display())),
    }
}

/// Runs the scenario: an Ethernet one (top-level `link = "ethernet"`) in `eth.rs`, any
/// other in `link.rs` (whose parser reports what is wrong with a file that is neither).
pub fn run(a: SimArgs) -> anyhow::Result<ExitCode> {
    if std::fs::read_to_string(&a.scenario).is_ok_and(|t| iblink_sim::eth::scenario::is_ethernet(&t)) {
        eth::run(a)
    } else {
        link::run(a)
    }
}

/// Seeded fuzzing of `--vcd-window`'s parser (`IBLINK_FUZZ_INPUTS` inputs; see
/// `iblink_testkit::fuzz`): no panic, and it agrees with its syntax
/// (`FROM..TO`, clocks, FROM below TO).
#[cfg(test)]
mod fuzz_tests {
    use iblink_testkit::fuzz::{self as fz, run_case, Rng};
    use super::parse_window;

    fn oracle(s: &str) -> Option<(u64, u64)> {
        let (a, b) = s.split_once("..")?;
        let (a, b) = (a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?);
        (a < b).then_some((a, b))
    }

    fn clock(rng: &mut Rng) -> String {
        match rng.below(5) {
            0 => (rng.u64() >> rng.below(64)).to_string(),
            1 => rng.pick(&["", "-1", "18446744073709551616", "1e3", "0x10", "+5", " 7 ", "1_000", "٣"]).to_string(),
            _ => rng.below(1_000_000).to_string(),
        }
    }

    #[test]
    fn fuzz_parse_window() {
        let base = fz::base_seed(0xc11_0004);
        let n = fz::inputs();
        let (mut ok, mut bad) = (0u64, 0u64);
        for case in 0..n {
            let mut rng = Rng::new(fz::case_seed(base, case));
            let sep = *rng.pick(&["..", "..", "..", "...", "..=", ".", " .. ", ""]);
            let mut s = format!("{}{sep}{}", clock(&mut rng), clock(&mut rng));
            if rng.chance(1, 4) {
                let mut b = s.into_bytes();
                fz::mutate(&mut rng, &mut b, b"200000..201000", 2);
                s = String::from_utf8_lossy(&b).into_owned();
            }
            let r = run_case("iblink sim: parse_window", base, case, || format!("{s:?}"), || {
                let r = parse_window(&s);
                assert_eq!(r.as_ref().ok().copied(), oracle(&s), "{r:?}");
                match &r {
                    Ok((a, b)) => assert_eq!(parse_window(&format!("{a}..{b}")), Ok((*a, *b))),
                    Err(m) => assert!(!m.is_empty()),
                }
                r
            });
            if r.is_ok() {
                ok += 1;
            } else {
                bad += 1;
            }
        }
        fz::coverage("iblink sim: parse_window", n / 10, &[("windows", ok), ("refused", bad)]);
    }
}
