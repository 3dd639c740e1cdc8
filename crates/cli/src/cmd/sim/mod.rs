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
    /// Traffic clocks (replaces the scenario's `cycles`); a flush follows.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub cycles: Option<u64>,
    /// Directory for the waveforms of both ports (port_a.vcd, port_b.vcd) [default:
    /// build/sim/<scenario>/].
    #[arg(long)]
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
    /// Write both directions of the link as an ERF capture (Wireshark/tshark): data and
    /// VL15 packets as type 21, FCPs as type 25, interface 0 = A→B, 1 = B→A.
    #[arg(long)]
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
    eprintln!("error: {msg}");
    Ok(ExitCode::from(2))
}

/// A file the run will write must go into an existing directory.
fn check_parent(opt: &str, p: &Path) -> Result<(), String> {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() && !d.is_dir() => Err(format!(
            "--{opt} {}: directory {} does not exist",
            p.display(),
            d.display()
        )),
        _ if p.is_dir() => Err(format!("--{opt} {}: is a directory", p.display())),
        _ => Ok(()),
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
