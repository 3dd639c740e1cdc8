//! `iblink sim --scenario FILE`: two link ports back to back (Rust twin or
//! Verilator) through a channel with faults, with the reference model run alongside;
//! prints a summary table and leaves waveforms, a timeline plot and (asked for) an ERF
//! capture.

use anyhow::Context;
use clap::{Args, ValueEnum};
use iblink_sim::blocks::Backend;
use iblink_sim::system::capture::{write_erf, CaptureStats, CaptureView};
use iblink_sim::system::compare::{Comparison, Verdict};
use iblink_sim::system::model_run::{run_model, ModelSummary};
use iblink_sim::system::plot::{write_svg_with, PlotOptions};
use iblink_sim::system::run::{DirReport, RunOpts, RunReport, SystemRun};
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

fn pct(x: f64) -> String {
    format!("{:.2} %", 100.0 * x)
}

fn ratio(n: u64, d: u64) -> f64 {
    n as f64 / d.max(1) as f64
}

/// One table row: a label and, per direction, the run's figure and the model's.
fn row(s: &mut String, label: &str, cells: [String; 4]) {
    let _ = writeln!(
        s,
        "{label:<34}{:>14}{:>14}{:>14}{:>14}",
        cells[0], cells[1], cells[2], cells[3]
    );
}

/// The summary: per direction the run's figures beside the reference model's, per VL
/// the shares against the arbitration weights, then retrains, recovery and checks.
pub fn summary_table(r: &RunReport, s: &Scenario) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "iblink sim: {} ({} back end), VLCap {}, {}-bit link, {} traffic clocks ({} with the flush), {:.1} s",
        r.scenario, r.backend, r.vl_cap, r.width, r.cycles, r.clocks, r.wall_seconds
    );
    let m = r.model.as_ref();
    let dirs = [Direction::AtoB, Direction::BtoA];
    t.push('\n');
    row(
        &mut t,
        "",
        ["A→B".into(), "model".into(), "B→A".into(), "model".into()],
    );
    // Per direction, the run's figure and the model's (None: the model has no such
    // figure), and whether the two are further apart than they should be.
    let cmp = m.map(|m| Comparison::new(r, m));
    type RunFig = fn(&DirReport) -> String;
    type ModelFig = fn(&ModelSummary, usize) -> Option<String>;
    type Apart = fn(&DirReport, &ModelSummary, usize) -> bool;
    let rows: [(&str, RunFig, ModelFig, Option<Apart>); 15] = [
        (
            "measured window, clocks",
            |x| x.window_clocks.to_string(),
            |m, _| Some(m.window_clocks.to_string()),
            Some(|x, m, _| Comparison::counts_apart(x.window_clocks, m.window_clocks, 100, 0.0)),
        ),
        (
            "link busy",
            |x| pct(x.utilisation()),
            |m, k| Some(pct(m.utilisation(k))),
            // Judged by Comparison::busy_verdict.
            None,
        ),
        (
            "  data and VL15 words",
            |x| pct(x.data_utilisation()),
            |m, k| Some(pct(ratio(m.data_clocks[k], m.window_clocks))),
            Some(|x, m, k| Comparison::points_apart(x.data_utilisation(), ratio(m.data_clocks[k], m.window_clocks))),
        ),
        (
            "  FCP words (overhead)",
            |x| pct(x.fcp_overhead()),
            |m, k| Some(pct(ratio(m.fcp_clocks[k], m.window_clocks))),
            Some(|x, m, k| Comparison::points_apart(x.fcp_overhead(), ratio(m.fcp_clocks[k], m.window_clocks))),
        ),
        (
            "idle clocks while a VL eligible",
            |x| x.idle_while_eligible.to_string(),
            |_, _| None,
            None,
        ),
        (
            "packets generated",
            |x| x.generated_total().to_string(),
            |m, k| Some(m.generated[k].to_string()),
            Some(|x, m, k| Comparison::counts_apart(x.generated_total(), m.generated[k], 5, 0.02)),
        ),
        (
            "packets delivered",
            |x| x.delivered_total().to_string(),
            |m, k| Some(m.delivered[k].to_string()),
            Some(|x, m, k| Comparison::counts_apart(x.delivered_total(), m.delivered[k], 5, 0.02)),
        ),
        (
            "dropped: lost on the wire",
            |x| x.drops.wire_loss.to_string(),
            |m, k| Some(m.wire_loss[k].to_string()),
            Some(|x, m, k| Comparison::counts_apart(x.drops.wire_loss, m.wire_loss[k], 3, 0.1)),
        ),
        (
            "dropped: bit flip (VCRC/len/VL)",
            |x| {
                format!(
                    "{}/{}/{}",
                    x.drops.corrupt[1], x.drops.corrupt[2], x.drops.corrupt[3]
                )
            },
            |m, k| Some(m.corrupt[k].to_string()),
            Some(|x, m, k| Comparison::counts_apart(x.drops.corrupt.iter().sum(), m.corrupt[k], 3, 0.1)),
        ),
        (
            "dropped: buffer overrun",
            |x| x.drops.overrun.to_string(),
            |m, k| Some(m.overruns[k].to_string()),
            Some(|x, m, k| x.drops.overrun != m.overruns[k]),
        ),
        (
            "dropped: VL15 buffer full",
            |x| x.drops.vl15_full.to_string(),
            |m, k| Some(m.vl15_dropped[k].to_string()),
            Some(|x, m, k| Comparison::counts_apart(x.drops.vl15_full, m.vl15_dropped[k], 3, 0.1)),
        ),
        (
            "dropped: link retrain",
            |x| x.drops.resync.to_string(),
            |m, k| Some(m.resync_flushed[k].to_string()),
            // What is on the wire and in the buffers at a retrain: a few packets either way.
            Some(|x, m, k| Comparison::counts_apart(x.drops.resync, m.resync_flushed[k], 3, 0.25)),
        ),
        (
            "in flight at the end",
            |x| x.in_flight.to_string(),
            |m, k| Some(m.in_flight[k].to_string()),
            Some(|x, m, k| x.in_flight != m.in_flight[k]),
        ),
        (
            "FCPs sent / lost / flipped",
            |x| format!("{}/{}/{}", x.fcps_sent, x.fcps_lost, x.fcps_flipped),
            |_, _| None,
            None,
        ),
        (
            "ABR = FCTBS checks disagreeing",
            |x| x.disagreements.to_string(),
            |_, _| None,
            None,
        ),
    ];
    let d = |k: usize| r.dir(dirs[k]);
    let mut marked = false;
    for (label, run, model, apart) in rows {
        let cell = |k: usize| {
            let Some((m, c)) = m.zip(cmp.as_ref()) else {
                return (run(d(k)), "-".to_string());
            };
            let Some(fig) = model(m, k) else {
                return (run(d(k)), "-".to_string());
            };
            let v = match apart {
                Some(f) => c.verdict(f(d(k), m, k)),
                None if label == "link busy" => c.busy_verdict(k),
                None => Verdict::Agree,
            };
            (run(d(k)), fig + v.mark())
        };
        let ((a, am), (b, bm)) = (cell(0), cell(1));
        marked |= am.ends_with(['~', '!']) || bm.ends_with(['~', '!']);
        row(&mut t, label, [a, am, b, bm]);
    }

    // Per VL: share of the data blocks sent against the weights of the tables.
    let vls = r.vl_cap;
    let mut weights = vec![(0u32, 0u32); vls];
    for (table, hi) in [(&s.port.high, true), (&s.port.low, false)] {
        for e in table.iter().filter(|e| (e.vl as usize) < vls) {
            let w = &mut weights[e.vl as usize];
            if hi {
                w.0 += e.weight as u32;
            } else {
                w.1 += e.weight as u32;
            }
        }
    }
    let total_w: u32 = weights.iter().map(|w| w.0 + w.1).sum();
    let shares = [r.a_to_b.shares(vls), r.b_to_a.shares(vls)];
    let mshares = m.map(|m| [m.shares(0, vls), m.shares(1, vls)]);
    t.push('\n');
    let _ = writeln!(
        t,
        "{:<6}{:>12}{:>9}{:>10}{:>11}{:>10}{:>11}{:>13}{:>13}",
        "VL", "weight h/l", "w share", "A→B", "model", "B→A", "model", "max occ A→B", "max occ B→A"
    );
    for v in (0..vls).chain([15]) {
        let (w, wshare) = if v == 15 {
            ("-".to_string(), "-".to_string())
        } else {
            (
                format!("{}/{}", weights[v].0, weights[v].1),
                pct(ratio((weights[v].0 + weights[v].1) as u64, total_w as u64)),
            )
        };
        let sh = |k: usize| {
            if v == 15 {
                "-".to_string()
            } else {
                pct(shares[k][v])
            }
        };
        let msh = |k: usize| match (&mshares, &cmp, v) {
            (Some(ms), Some(c), v) if v < 15 => {
                pct(ms[k][v]) + c.verdict(Comparison::points_apart(shares[k][v], ms[k][v])).mark()
            }
            _ => "-".to_string(),
        };
        // Largest receive-buffer occupancy at the receiving end (blocks; VL15 packets),
        // the model's in parentheses.
        let occ = |k: usize| {
            let run = d(k).max_occupancy[v];
            match m.zip(cmp.as_ref()) {
                Some((m, c)) => {
                    let model = m.max_occupancy[k][v];
                    let mark = c.verdict(Comparison::counts_apart(run as u64, model as u64, 2, 0.05)).mark();
                    format!("{run} ({model}){mark}")
                }
                None => run.to_string(),
            }
        };
        let _ = writeln!(
            t,
            "{:<6}{:>12}{:>9}{:>10}{:>11}{:>10}{:>11}{:>13}{:>13}",
            format!("VL{v}"),
            w,
            wshare,
            sh(0),
            msh(0),
            sh(1),
            msh(1),
            occ(0),
            occ(1)
        );
    }
    let _ = writeln!(
        t,
        "(shares: of the data blocks sent; occupancy: blocks, VL15 packets; model in parentheses)"
    );
    let vl_marked = t.lines().skip_while(|l| !l.starts_with("VL ")).any(|l| l.contains(" ~") || l.contains(" !"));
    if marked || vl_marked {
        let _ = writeln!(
            t,
            "(model figures marked ~ differ from the RTL's beyond their tolerance because the runs retrained differently (below); marked ! beyond what this run explains)"
        );
    }

    // Retrains and recovery.
    t.push('\n');
    let why = |(port, reason, vl): (usize, u8, u8)| {
        format!(
            "port {}: {} VL{vl}",
            if port == 0 { "A" } else { "B" },
            match reason {
                failsafe_reason::NO_FC_UPDATE => "no FCP (update monitor)",
                failsafe_reason::OVERRUN => "overrun threshold",
                _ => "reason ?",
            }
        )
    };
    let names = |e: &iblink_sim::system::run::ResyncEvent| match (e.by, e.also) {
        (None, _) => format!("clock {} forced", e.clock),
        (Some(a), None) => format!("clock {} {}", e.clock, why(a)),
        (Some(a), Some(b)) => format!("clock {} {} and {}", e.clock, why(a), why(b)),
    };
    let mut line = format!("link retrains: {}", r.resyncs.len());
    if !r.resyncs.is_empty() {
        let shown: Vec<String> = r.resyncs.iter().take(6).map(names).collect();
        let _ = write!(
            line,
            " ({}{})",
            shown.join("; "),
            if r.resyncs.len() > 6 { "; ..." } else { "" }
        );
    }
    if let Some(m) = m {
        let _ = write!(line, "; model: {}", m.retrains.len());
    }
    let _ = writeln!(t, "{line}");
    if let Some(c) = &cmp {
        let _ = writeln!(t, "{}", c.note(s.activate_after + s.arm_clocks));
    }
    match r.last_fault {
        None => {
            let _ = writeln!(t, "faults: none");
        }
        Some(f) => {
            let after = |x: Option<u64>| x.map_or("never".to_string(), |c| format!("+{c} clocks"));
            let _ = writeln!(
                t,
                "last fault at clock {f}: retrain {}, data committed again {} (A→B) {} (B→A), ABR = FCTBS on every VL from {}",
                after(r.resync_after_last_fault),
                after(r.recovered_after_last_fault[0]),
                after(r.recovered_after_last_fault[1]),
                after(r.agree_after_last_fault)
            );
        }
    }
    let checks: Vec<String> = dirs
        .iter()
        .map(|&dir| {
            let x = r.dir(dir);
            format!(
                "{}: conserved {}, bad delivery {}, out of order {}, flipped passed {}, unexplained discards {}, anomalies {}, ABR = FCTBS checks {} (disagreed {}), FCTBS mismatch {}",
                if dir == Direction::AtoB { "A→B" } else { "B→A" },
                if x.conserved() { "yes" } else { "NO" },
                x.bad_delivery,
                x.order_errors,
                x.corrupt_delivered,
                x.unexplained_discards,
                x.anomalies,
                x.agree_checks,
                x.disagreements,
                x.fctbs_mismatch
            )
        })
        .collect();
    let _ = writeln!(t, "checks {}", checks.join("\n       "));
    t
}

/// The failsafe's `resync_reason` codes (crates/rtl/src/failsafe.rs).
mod failsafe_reason {
    pub const NO_FC_UPDATE: u8 = iblink_rtl::failsafe::REASON_NO_FC_UPDATE;
    pub const OVERRUN: u8 = iblink_rtl::failsafe::REASON_OVERRUN;
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
