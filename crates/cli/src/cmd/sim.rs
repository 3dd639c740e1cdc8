//! `iblink sim --scenario FILE`: two link ports back to back (Rust twin or
//! Verilator) through a channel with faults, with the reference model run alongside;
//! prints a summary table and leaves waveforms, a timeline plot and (asked for) an ERF
//! capture.

use anyhow::Context;
use clap::{Args, ValueEnum};
use iblink_sim::blocks::Backend;
use iblink_sim::system::capture::{write_erf, CaptureStats, CaptureView};
use iblink_sim::system::model_run::run_model;
use iblink_sim::system::plot::{write_svg_with, PlotOptions};
use iblink_sim::system::report::summary_table;
use iblink_sim::system::run::{RunOpts, RunReport, SystemRun};
use iblink_sim::system::scenario::Scenario;
use iblink_sim::system::Direction;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    /// The timeline plot (SVG) [default: timeline.svg in the waveform directory, or
    /// build/sim/<scenario>/].
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Write both directions of the link as an ERF capture (Wireshark/tshark): data and
    /// VL15 packets as type 21, FCPs as type 25, interface 0 = A→B, 1 = B→A.
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Which side of the channel the capture shows.
    #[arg(long, value_enum, default_value_t)]
    pub capture_view: ViewArg,
    /// Timeline window in clocks (replaces the scenario's `sample_every`).
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

/// Where a run's files go.
#[derive(Debug)]
struct Outputs {
    vcd_dir: Option<PathBuf>,
    plot: PathBuf,
    capture: Option<PathBuf>,
}

/// Usage problems found before anything runs (exit status 2).
pub(crate) fn usage(msg: String) -> anyhow::Result<ExitCode> {
    eprintln!("error: {msg}");
    Ok(ExitCode::from(2))
}

/// A file the run will write must go into an existing directory.
pub(crate) fn check_parent(opt: &str, p: &Path) -> Result<(), String> {
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

pub fn run(a: SimArgs) -> anyhow::Result<ExitCode> {
    if std::fs::read_to_string(&a.scenario).is_ok_and(|t| iblink_sim::eth::scenario::is_ethernet(&t)) {
        return super::sim_eth::run(a);
    }
    let backend = a.backend.unwrap_or(SimBackend::Rtl);
    if backend == SimBackend::Model {
        return usage(format!(
            "--backend model: {} is a link-port scenario; it runs on rtl or verilator with the model alongside",
            a.scenario.display()
        ));
    }
    // Everything is checked before anything is written.
    let mut scenario = match Scenario::from_file(&a.scenario) {
        Ok(s) => s,
        Err(e) => return usage(format!("{}: {e}", a.scenario.display())),
    };
    // Table entries the ports' arbiters skip (docs/spec.md §6) run as written.
    for w in scenario.port.skipped_entries() {
        eprintln!("warning: {}: port.{w}", a.scenario.display());
    }
    if let Some(n) = a.sample_every {
        scenario.sample_every = n;
    }
    let clock_hz = (a.clock_mhz * 1e6).round();
    if !(1.0..=1e12).contains(&clock_hz) {
        return usage(format!(
            "--clock-mhz {}: not a clock frequency",
            a.clock_mhz
        ));
    }
    let clock_hz = clock_hz as u64;
    let cycles = a.cycles.unwrap_or(scenario.cycles);
    if let Some((from, to)) = a.vcd_window {
        if from >= cycles {
            return usage(format!(
                "--vcd-window {from}..{to}: starts after the run's {cycles} traffic clocks"
            ));
        }
    }
    let default_dir = Path::new("build/sim").join(&scenario.name);
    let vcd_dir = (!a.no_vcd).then(|| a.vcd.clone().unwrap_or_else(|| default_dir.clone()));
    let out = Outputs {
        plot: a.plot.clone().unwrap_or_else(|| {
            vcd_dir
                .as_ref()
                .unwrap_or(&default_dir)
                .join("timeline.svg")
        }),
        vcd_dir,
        capture: a.capture.clone(),
    };
    for (opt, p) in [("plot", Some(&out.plot)), ("capture", out.capture.as_ref())] {
        let Some(p) = p else { continue };
        // Default locations are created; a path the user gave must have its directory.
        let given = if opt == "plot" {
            a.plot.is_some()
        } else {
            true
        };
        if given {
            if let Err(m) = check_parent(opt, p) {
                return usage(m);
            }
        }
    }
    if let Some(d) = &out.vcd_dir {
        if a.vcd.is_some() && !d.is_dir() {
            return usage(format!("--vcd {}: not a directory", d.display()));
        }
    }
    for d in out
        .vcd_dir
        .as_deref()
        .into_iter()
        .chain(out.plot.parent().filter(|p| !p.as_os_str().is_empty()))
    {
        std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
    }

    let opts = RunOpts {
        backend: match backend {
            SimBackend::Verilator => Backend::Verilator,
            _ => Backend::Rtl,
        },
        record_wire: out.capture.is_some(),
        vcd_dir: out.vcd_dir.clone(),
        vcd_window: a.vcd_window,
        cycles: a.cycles,
        model: !a.no_model,
        ..RunOpts::default()
    };
    let report = run_with_progress(&scenario, &opts)?;
    print!("{}", summary_table(&report, &scenario));

    let mut plot_opts = PlotOptions::new(report.vl_cap);
    plot_opts.title = format!(
        "{} ({} back end, VLCap {}, {}-bit link)",
        scenario.name, report.backend, report.vl_cap, report.width
    );
    plot_opts.clock_hz = Some(clock_hz);
    plot_opts.link_bytes_per_clock = Some(report.width as u32 / 8);
    write_svg_with(&report.timeline, &plot_opts, &out.plot)
        .with_context(|| format!("writing {}", out.plot.display()))?;
    println!();
    if let Some(d) = &out.vcd_dir {
        let (pa, pb) = (d.join("port_a.vcd"), d.join("port_b.vcd"));
        let mb = [&pa, &pb]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum::<u64>() as f64
            / 1e6;
        let covers = match report.vcd_clocks {
            Some((first, last)) => format!(
                "clocks {first} to {last} (VCD time {} a clock{})",
                if report.backend == "verilator" { "10 units" } else { "10,000 ps" },
                if a.vcd_window.is_none() { "; --vcd-window FROM..TO keeps a part" } else { "" }
            ),
            None => "no clock".to_string(),
        };
        println!(
            "waveforms: {}, {} ({mb:.1} MB; {covers}; --no-vcd skips them)",
            pa.display(),
            pb.display()
        );
        if let Some(e) = &report.vcd_error {
            eprintln!("error: writing the waveform: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    println!(
        "plot: {} ({} samples)",
        out.plot.display(),
        report.timeline.len()
    );
    if let Some(p) = &out.capture {
        let view = match a.capture_view {
            ViewArg::Receiver => CaptureView::Receiver,
            ViewArg::Sender => CaptureView::Sender,
        };
        let st = write_erf(&report.wire, clock_hz, view, p)?;
        println!("capture: {} ({})", p.display(), capture_line(&st, view));
    }
    let failed = failed_checks(&report);
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("FAIL: {}", failed.join("; "));
        Ok(ExitCode::from(1))
    }
}

/// The run, with a progress bar on stderr once it has taken more than two seconds.
fn run_with_progress(s: &Scenario, opts: &RunOpts) -> anyhow::Result<RunReport> {
    let t0 = Instant::now();
    let cycles = opts.cycles.unwrap_or(s.cycles);
    if opts.backend == Backend::Verilator {
        eprintln!(
            "building the port with Verilator (cached in target/verilator/ after the first time)"
        );
    }
    let mut sys = SystemRun::new(s, opts).context("building the two ports")?;
    let bar = ProgressBar::with_draw_target(Some(cycles), ProgressDrawTarget::hidden()).with_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} clocks, {eta} left").unwrap(),
    );
    bar.set_message(format!("sim {}", s.name));
    let mut shown = false;
    while sys.clock < cycles {
        sys.step();
        if sys.clock % 4096 == 0 {
            if !shown && t0.elapsed() > Duration::from_secs(2) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                shown = true;
            }
            bar.set_position(sys.clock);
        }
    }
    bar.finish_and_clear();
    // The flush (no new packets, no faults) and the report.
    let mut r = sys.run();
    if opts.model {
        r.model = Some(run_model(s, cycles, opts.flush_clocks));
    }
    r.wall_seconds = t0.elapsed().as_secs_f64();
    Ok(r)
}

/// What failed among the run's own checks (empty: all passed).
fn failed_checks(r: &RunReport) -> Vec<String> {
    let mut f = vec![];
    for dir in [Direction::AtoB, Direction::BtoA] {
        let x = r.dir(dir);
        let n = if dir == Direction::AtoB {
            "A→B"
        } else {
            "B→A"
        };
        for (what, v) in [
            ("bad deliveries", x.bad_delivery),
            ("out-of-order deliveries", x.order_errors),
            ("flipped packets passed", x.corrupt_delivered),
            ("unexplained discards", x.unexplained_discards),
            ("anomalies", x.anomalies),
            ("buffer overruns", x.drops.overrun),
        ] {
            if v > 0 {
                f.push(format!("{n}: {v} {what}"));
            }
        }
        if !x.conserved() {
            f.push(format!("{n}: generated != delivered + dropped + in flight"));
        }
    }
    if let Some(m) = &r.model {
        if !m.conserved() {
            f.push("model: generated != delivered + dropped + in flight".into());
        }
    }
    f
}

fn capture_line(st: &CaptureStats, view: CaptureView) -> String {
    let mut s = format!(
        "{} records: {} data/VL15 (type 21), {} FCPs (type 25)",
        st.records, st.data, st.fcps
    );
    if view == CaptureView::Receiver {
        let _ = write!(
            s,
            "; {} flagged RX error, {} lost left out",
            st.rx_errors, st.lost
        );
        if st.lost_unreported > 0 {
            let _ = write!(
                s,
                " ({} after the last record of their direction)",
                st.lost_unreported
            );
        }
    }
    s
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
