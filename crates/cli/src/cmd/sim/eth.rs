//! `iblink sim --scenario FILE` on an Ethernet scenario (`eth_*.toml`): two Ethernet
//! flow-control ports back to back (docs/spec.md §9), the summary per direction and queue,
//! the headroom sweep, a pcap of both directions, both ports' waveforms (RTL back ends)
//! and the timeline plot, when asked for.

use super::{check_capture, check_dir, check_file, usage, SimArgs, SimBackend};
use crate::cmd::{output_dir, output_file, CaptureFormat};
use anyhow::Context;
use iblink_model::pfc::Mode;
use iblink_sim::eth::plot::{write_svg, EthPlotOptions};
use iblink_sim::eth::report::{summary, sweep, sweep_table};
use iblink_sim::eth::run::EthRun;
use iblink_sim::eth::scenario::EthScenario;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

pub fn run(a: SimArgs) -> anyhow::Result<ExitCode> {
    let mut s = match EthScenario::from_file(&a.scenario) {
        Ok(s) => s,
        Err(e) => return usage(format!("{}: {e}", a.scenario.display())),
    };
    // The scenarios run on the RTL with the model alongside; a sweep on the model.
    let backend = a.backend.unwrap_or(if s.sweep.is_some() { SimBackend::Model } else { SimBackend::Rtl });
    if backend != SimBackend::Model {
        if s.sweep.is_some() {
            return usage("--backend: a sweep runs on the model (the RTL is held to it by the scenarios and lockstep)".into());
        }
        for side in 0..2 {
            if let Err(e) = iblink_sim::blocks::eth_port::top_config(&s.port_config(side)) {
                return usage(format!("{}: {e}", a.scenario.display()));
            }
        }
    }
    if s.sweep.is_some() {
        for (given, opt) in [
            (a.vcd.is_some(), "vcd"),
            (a.vcd_window.is_some(), "vcd-window"),
            (a.plot.is_some(), "plot"),
            (a.sample_every.is_some(), "sample-every"),
        ] {
            if given {
                return usage(format!("--{opt}: a sweep runs many points and prints a table; plot or trace one scenario (a file without [sweep])"));
            }
        }
    }
    if a.capture_view.is_some() {
        return usage(
            "--capture-view: an Ethernet scenario's wire loses and damages nothing, so what each receiver got is what was sent; the pcap holds every frame once".into(),
        );
    }
    if backend == SimBackend::Model {
        for (given, opt) in [(a.vcd.is_some(), "vcd"), (a.vcd_window.is_some(), "vcd-window")] {
            if given {
                return usage(format!(
                    "--{opt}: the model back end writes no waveform; --backend rtl (the default) or verilator writes both ports' (--plot works on every back end)"
                ));
            }
        }
    }
    if let Some(p) = &a.capture {
        if let Err(m) = check_capture(p, CaptureFormat::Pcap) {
            return usage(m);
        }
        if s.sweep.is_some() {
            return usage("--capture: a sweep runs many points; capture one scenario".into());
        }
    }
    let clock_hz = (a.clock_mhz * 1e6).round();
    if !(1.0..=1e12).contains(&clock_hz) {
        return usage(format!("--clock-mhz {}: not a clock frequency", a.clock_mhz));
    }
    if let Some(c) = a.cycles {
        s.cycles = c;
    }
    if let Some(n) = a.sample_every {
        s.sample_every = n;
    }
    if let Some((from, to)) = a.vcd_window {
        if from >= s.cycles {
            return usage(format!("--vcd-window {from}..{to}: starts after the run's {} traffic clocks", s.cycles));
        }
    }
    // Files only when asked for: waveforms with --vcd or --vcd-window, the plot with --plot.
    let default_dir = Path::new("build/sim").join(&s.name);
    let vcd_dir = a.vcd.clone().or_else(|| a.vcd_window.map(|_| default_dir.clone()));
    let plot = match &a.plot {
        None => None,
        Some(Some(p)) => {
            if let Err(m) = check_file("plot", p) {
                return usage(m);
            }
            Some(p.clone())
        }
        Some(None) => Some(vcd_dir.as_ref().unwrap_or(&default_dir).join("timeline.svg")),
    };
    if let Some(d) = &vcd_dir {
        if let Err(m) = check_dir("vcd", d) {
            return usage(m);
        }
    }
    // The inputs are checked: now the folders the outputs need.
    if let Some(d) = &vcd_dir {
        output_dir("--vcd", d)?;
    }
    for (flag, p) in [("--plot", plot.as_ref()), ("--capture", a.capture.as_ref())] {
        if let Some(p) = p {
            output_file(flag, p)?;
        }
    }
    let t0 = Instant::now();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden())
        .with_style(ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}, {eta} left").unwrap());
    let mut shown = false;
    let mut show = |pos: u64, len: u64| {
        if !shown && t0.elapsed() > Duration::from_secs(2) {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
        bar.set_length(len);
        bar.set_position(pos);
    };
    if s.sweep.is_some() {
        bar.set_message(format!("sweep {} (points)", s.name));
        let points = sweep(&s, |i, n| show(i as u64, n as u64)).map_err(|e| anyhow::anyhow!("{e}"))?;
        bar.finish_and_clear();
        println!(
            "{}: headroom sweep on the model, {} clocks a point; a cell: frames dropped, the largest fill above RFA (bytes), A→B throughput\n",
            s.name, s.cycles
        );
        print!("{}", sweep_table(&points));
        let bad: Vec<String> = points
            .iter()
            .filter(|p| p.errors > 0 || (p.headroom as u64 >= p.bound && p.drops > 0))
            .map(|p| format!("latency {} headroom {}: {} drops, {} end-to-end failures", p.latency, p.headroom, p.drops, p.errors))
            .collect();
        if !bad.is_empty() {
            eprintln!("FAIL: {}", bad.join("; "));
            return Ok(ExitCode::from(1));
        }
        return Ok(ExitCode::SUCCESS);
    }
    bar.set_message(format!("sim {} (clocks)", s.name));
    let mut run = match backend {
        SimBackend::Model => EthRun::model(&s, a.capture.is_some()),
        b => EthRun::rtl_traced(&s, b == SimBackend::Verilator, a.capture.is_some(), vcd_dir.as_deref(), a.vcd_window)
            .context("building the two ports")?,
    };
    while run.clock < s.cycles {
        run.step();
        if run.clock % 4096 == 0 {
            show(run.clock, s.cycles);
        }
    }
    bar.finish_and_clear();
    let r = run.finish();
    print!("{}", summary(&r, &s));
    // The model alongside: the same scenario, every figure equal.
    let mut alongside_ok = true;
    if backend != SimBackend::Model && !a.no_model {
        let m = EthRun::model(&s, false).finish();
        alongside_ok = m.dirs == r.dirs
            && m.wire_words == r.wire_words
            && m.flush_clocks == r.flush_clocks
            && m.timeline == r.timeline
            && m.pause_marks == r.pause_marks;
        if alongside_ok {
            println!("model alongside: every figure above equal (it ran the same scenario)");
        } else {
            println!("model alongside: DIFFERENT\n{}", summary(&m, &s));
        }
    }
    if vcd_dir.is_some() || plot.is_some() {
        println!();
    }
    if let Some(d) = &vcd_dir {
        let (pa, pb) = (d.join("port_a.vcd"), d.join("port_b.vcd"));
        let mb = [&pa, &pb].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum::<u64>() as f64 / 1e6;
        let covers = match r.vcd_clocks {
            Some((first, last)) => format!(
                "clocks {first} to {last} (VCD time {} a clock{})",
                if r.backend == "verilator" { "10 units" } else { "10,000 ps" },
                if a.vcd_window.is_none() { "; --vcd-window FROM..TO keeps a part" } else { "" }
            ),
            None => "no clock".to_string(),
        };
        println!("waveforms: {}, {} ({mb:.1} MB; {covers})", pa.display(), pb.display());
        if let Some(e) = &r.vcd_error {
            eprintln!("error: writing the waveform: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    if let Some(p) = &plot {
        let pfc = &s.port.pfc;
        let opts = EthPlotOptions {
            title: format!(
                "{} ({} back end, {}, {} queues, {}-bit link)",
                s.name,
                r.backend,
                if pfc.mode == Mode::Pfc { "PFC" } else { "PAUSE" },
                pfc.queues.len(),
                pfc.datapath_bits
            ),
            clock_hz: Some(clock_hz as u64),
        };
        write_svg(&r, &s, &opts, p).with_context(|| format!("writing {}", p.display()))?;
        println!(
            "plot: {} ({} windows of {} clocks, {} PAUSE/PFC frames marked)",
            p.display(),
            r.timeline.len(),
            s.sample_every,
            r.pause_marks.len()
        );
    }
    if let Some(p) = &a.capture {
        let hz = clock_hz as u64;
        let frames: Vec<(u64, Vec<u8>)> = r.frames.iter().map(|(c, _, f)| (*c, f.clone())).collect();
        iblink_sim::pfc_trace::write_pcap_at(p, &frames, hz).with_context(|| format!("writing {}", p.display()))?;
        let ctrl = r.frames.iter().filter(|(_, _, f)| iblink_model::eth_port::EthPortConfig::is_control(f)).count();
        println!(
            "capture: {} ({} frames, {} of them PAUSE/PFC; both directions, Ethernet link type, timestamps at {} MHz)",
            p.display(),
            frames.len(),
            ctrl,
            a.clock_mhz
        );
    }
    if !r.errors.is_empty() {
        eprintln!("FAIL: {} end-to-end failures", r.errors.len());
        Ok(ExitCode::from(1))
    } else if !alongside_ok {
        eprintln!("FAIL: the model differs from the {} back end", r.backend);
        Ok(ExitCode::from(1))
    } else {
        Ok(ExitCode::SUCCESS)
    }
}
