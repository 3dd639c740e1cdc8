//! `iblink sim --scenario FILE` on a link-port scenario: two link ports back to back
//! (Rust twin or Verilator) through a channel with faults, with the reference model run
//! alongside; prints the summary table ([`summary_table`]) and leaves waveforms, a
//! timeline plot and (asked for) an ERF capture.

use super::{check_capture, check_dir, check_file, usage, SimArgs, SimBackend, ViewArg};
use crate::cmd::{output_dir, output_file, CaptureFormat};
use anyhow::Context;
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

/// Where a run's files go.
#[derive(Debug)]
struct Outputs {
    vcd_dir: Option<PathBuf>,
    plot: Option<PathBuf>,
    capture: Option<PathBuf>,
}

/// Runs a link-port scenario.
pub fn run(a: SimArgs) -> anyhow::Result<ExitCode> {
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
    if scenario.traffic.is_empty() {
        return usage(format!("{}: traffic: the scenario sends nothing (give at least one [[traffic]])", a.scenario.display()));
    }
    if let Some(at) = scenario.resyncs.iter().find(|&&at| at >= cycles) {
        return usage(format!(
            "{}: resync at clock {at} is not in the run's {cycles} traffic clocks{}",
            a.scenario.display(),
            if a.cycles.is_some() { " (--cycles)" } else { "" }
        ));
    }
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
        plot: (!a.no_plot).then(|| {
            a.plot.clone().flatten().unwrap_or_else(|| vcd_dir.as_ref().unwrap_or(&default_dir).join("timeline.svg"))
        }),
        vcd_dir,
        capture: a.capture.clone(),
    };
    if let Some(d) = &out.vcd_dir {
        if let Err(m) = check_dir("vcd", d) {
            return usage(m);
        }
    }
    if let Some(p) = &out.plot {
        if let Err(m) = check_file("plot", p) {
            return usage(m);
        }
    }
    if let Some(p) = &out.capture {
        if let Err(m) = check_capture(p, CaptureFormat::Erf) {
            return usage(m);
        }
    }
    // The inputs are checked: now the folders the outputs need.
    if let Some(d) = &out.vcd_dir {
        output_dir("--vcd", d)?;
    }
    for (flag, p) in [("--plot", out.plot.as_ref()), ("--capture", out.capture.as_ref())] {
        if let Some(p) = p {
            output_file(flag, p)?;
        }
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
    if let Some(p) = &out.plot {
        write_svg_with(&report.timeline, &plot_opts, p).with_context(|| format!("--plot {}: cannot write it", p.display()))?;
    }
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
    if let Some(p) = &out.plot {
        println!("plot: {} ({} samples)", p.display(), report.timeline.len());
    }
    if let Some(p) = &out.capture {
        let view = match a.capture_view.unwrap_or_default() {
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
