//! The timeline of an Ethernet run as an SVG picture (`iblink sim --scenario eth_*.toml
//! --plot`): per queue, what crossed the wire and how full the receiving end's buffer
//! was, window by window, and the PAUSE/PFC frames that held the sender.
//!
//! Written by hand like the link port's plot ([`crate::system::plot`], whose axes,
//! ticks and thinning it uses). One column per direction (A→B: what port A sends and
//! port B receives; B→A), three bands in each:
//! - **throughput** (`id="throughput-AtoB"`): bytes on the wire a clock, averaged over
//!   each timeline window ([`EthSample::wire_bytes`]: each word counted in the clock it
//!   left the sender, with the bytes it carries): one line per queue (its frames'
//!   priorities), a grey line for the PAUSE/PFC frames on the same wire, and a dashed
//!   black line for all of it; a dotted line marks the line rate, W/8 bytes a clock,
//!   which no window can pass;
//! - **PAUSE/PFC frames** (`id="marks-AtoB"`): one row per queue; a tick at the clock
//!   each PAUSE/PFC frame that names the queue's priorities left the receiving port (the
//!   frames that hold the sender's queue: for A→B, the ones port B sent), an open circle
//!   for a release (pause time 0). A PAUSE frame names every queue;
//! - **receive buffer** (`id="fill-AtoB"`): the receiving end's fill per queue in bytes,
//!   each window's largest value (solid) and its mean (dashed), against the queue's
//!   thresholds: its size (solid grey), RFA (dashed) and RFD (dotted), labelled at the
//!   right; queues that share a value share its line.
//!
//! As in the link port's plot, a window is drawn across the clocks it covers: a step from
//! its first clock ([`EthSample::from`]) to its end ([`EthSample::clock`]), so the time
//! axis runs from clock 0 to the end of the traffic whatever the window.
//!
//! Series are `<polyline class="series qN" data-queue="N|ctrl|all" data-dir="AtoB|BtoA"
//! data-panel="throughput|fill" data-stat="mean|max">` (the fill's means also have
//! class `mean`), marks are `<line class="mark pause qN">` and `<circle class="mark
//! release qN">` with `data-dir`, `data-queue` and `data-clock`, thresholds `<line
//! class="threshold" data-kind="size|rfa|rfd" data-bytes="N" data-queues="0,1">`.

use super::run::{EthReport, EthSample, PauseMark};
use super::scenario::EthScenario;
use crate::system::plot::{axes, esc, label, nice_ticks, polyline, steps, sum_series, Frame, LEFT, RIGHT, TOP, VL_COLOURS, H, W};
use iblink_model::pfc::Mode;
use std::fmt::Write as _;

/// What the picture shows besides the run.
#[derive(Clone, Debug)]
pub struct EthPlotOptions {
    /// Heading (e.g. the scenario's name).
    pub title: String,
    /// The clock, for a Gb/s scale on the throughput axis.
    pub clock_hz: Option<u64>,
}

/// Height of a queue's row in the PAUSE/PFC band.
const ROW: f64 = 16.0;
/// From one column's plot area to the next: room for the thresholds' labels.
const COLUMN: f64 = W + LEFT + RIGHT + 70.0;

/// Per queue, bytes a clock in each window of direction `dir`, as steps.
pub fn throughput_series(t: &[EthSample], dir: usize, queues: usize) -> Vec<Vec<(f64, f64)>> {
    (0..queues)
        .map(|q| steps(t, |s| (s.from, s.clock), |s| s.wire_bytes[dir][q] as f64 / s.clocks() as f64))
        .collect()
}

/// PAUSE/PFC bytes a clock on direction `dir`'s wire, as steps.
pub fn control_series(t: &[EthSample], dir: usize) -> Vec<(f64, f64)> {
    steps(t, |s| (s.from, s.clock), |s| s.ctrl_bytes[dir] as f64 / s.clocks() as f64)
}

/// Per queue, each window's largest (`max`) or mean fill in bytes, as steps.
pub fn fill_series(t: &[EthSample], dir: usize, queues: usize, max: bool) -> Vec<Vec<(f64, f64)>> {
    (0..queues)
        .map(|q| steps(t, |s| (s.from, s.clock), |s| if max { s.fill_max[dir][q] as f64 } else { s.fill_mean[dir][q] }))
        .collect()
}

/// A queue's name in the legend: its index and priorities.
fn queue_name(q: usize, priorities: u8) -> String {
    let p: Vec<String> = (0..8).filter(|p| priorities >> p & 1 == 1).map(|p| p.to_string()).collect();
    format!("q{q} (priority {})", p.join(", "))
}

/// The thresholds of the fill panel: (kind, bytes, queues having it), in the order
/// size, RFA, RFD, each value once.
fn thresholds(s: &EthScenario) -> Vec<(&'static str, u32, Vec<usize>)> {
    let mut out: Vec<(&'static str, u32, Vec<usize>)> = vec![];
    let mut add = |kind: &'static str, v: u32, q: usize| match out.iter_mut().find(|(k, b, _)| *k == kind && *b == v) {
        Some(e) => e.2.push(q),
        None => out.push((kind, v, vec![q])),
    };
    for (q, &size) in s.port.rx_buffer_bytes.iter().enumerate() {
        add("size", size, q);
    }
    for (q, qc) in s.port.pfc.queues.iter().enumerate() {
        if let Some(t) = qc.threshold {
            add("rfa", t.rfa_bytes, q);
        }
    }
    for (q, qc) in s.port.pfc.queues.iter().enumerate() {
        if let Some(t) = qc.threshold {
            add("rfd", t.rfd_bytes, q);
        }
    }
    out
}

/// Write the picture of run `r` of scenario `s` to `path`.
pub fn write_svg(r: &EthReport, s: &EthScenario, opts: &EthPlotOptions, path: &std::path::Path) -> std::io::Result<()> {
    std::fs::write(path, render_svg(r, s, opts))
}

/// The SVG text of the picture (see the module documentation).
pub fn render_svg(r: &EthReport, s: &EthScenario, opts: &EthPlotOptions) -> String {
    let t = &r.timeline;
    let nq = s.port.pfc.queues.len();
    let line_rate = (s.port.pfc.datapath_bits / 8) as f64;
    let x_last = t.last().map_or(1, |w| w.clock.max(1)) as f64;
    let (x_step, x_max) = nice_ticks(x_last);
    let tput: Vec<_> = (0..2).map(|d| throughput_series(t, d, nq)).collect();
    let ctrl: Vec<_> = (0..2).map(|d| control_series(t, d)).collect();
    let fmax: Vec<_> = (0..2).map(|d| fill_series(t, d, nq, true)).collect();
    let fmean: Vec<_> = (0..2).map(|d| fill_series(t, d, nq, false)).collect();
    let totals: Vec<Vec<(f64, f64)>> = (0..2)
        .map(|d| {
            let mut all = tput[d].clone();
            all.push(ctrl[d].clone());
            sum_series(&all)
        })
        .collect();
    let peak = |v: &[(f64, f64)]| v.iter().fold(0f64, |m, p| m.max(p.1));
    let tput_peak = totals.iter().map(|v| peak(v)).fold(line_rate, f64::max);
    let ths = thresholds(s);
    let fill_peak = fmax.iter().flatten().map(|v| peak(v)).fold(ths.iter().map(|x| x.1 as f64).fold(0.0, f64::max), f64::max);

    // Vertical layout: throughput, its x labels, the PAUSE/PFC band, the fill panel.
    let y_tput = TOP + H;
    let band_top = y_tput + 66.0;
    let band_h = ROW * nq as f64;
    let y_fill = band_top + band_h + 44.0 + 24.0 + H;
    let legend_y = y_fill + 60.0;
    let width = LEFT + COLUMN + W + RIGHT + 70.0;
    let height = legend_y + 50.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}">"#
    );
    let _ = writeln!(o, "<title>{}</title>", esc(&opts.title));
    o.push_str("<style>\n");
    o.push_str("  text { font-family: sans-serif; font-size: 12px; }\n");
    o.push_str("  .axis { stroke: #000; stroke-width: 1; }\n");
    o.push_str("  .grid { stroke: #e0e0e0; stroke-width: 1; }\n");
    o.push_str("  .series { fill: none; stroke-width: 1.5; }\n");
    o.push_str("  .total { stroke: #000; stroke-dasharray: 6 3; }\n");
    o.push_str("  .ctrl { stroke: #999; }\n");
    o.push_str("  .capacity { stroke: #999; stroke-dasharray: 2 3; }\n");
    o.push_str("  .mean { stroke-dasharray: 4 3; stroke-width: 1.2; }\n");
    o.push_str("  .key { stroke: #555; }\n");
    o.push_str("  .row { stroke: #e0e0e0; }\n");
    o.push_str("  .mark { stroke-width: 1.2; fill: none; }\n");
    o.push_str("  .threshold { stroke: #666; stroke-width: 1; }\n");
    o.push_str("  .threshold.size { stroke: #bbb; stroke-width: 2.5; }\n");
    o.push_str("  .threshold.rfa { stroke-dasharray: 6 3; }\n");
    o.push_str("  .threshold.rfd { stroke-dasharray: 2 3; }\n");
    for q in 0..nq {
        let _ = writeln!(o, "  .q{q} {{ stroke: {}; }}", VL_COLOURS[q]);
    }
    o.push_str("</style>\n");
    let _ = writeln!(
        o,
        r#"<text x="{LEFT}" y="24" style="font-size: 16px; font-weight: bold">{}</text>"#,
        esc(&opts.title)
    );
    let mut tput_label = "bytes on the wire a clock (window average)".to_string();
    if let Some(hz) = opts.clock_hz {
        let _ = write!(tput_label, "; 1 byte/clock = {} Gb/s at {} MHz", label(8.0 * hz as f64 / 1e9), label(hz as f64 / 1e6));
    }
    let frames = if s.port.pfc.mode == Mode::Pfc { "PFC" } else { "PAUSE" };
    for (d, dname) in ["AtoB", "BtoA"].into_iter().enumerate() {
        let x0 = LEFT + d as f64 * COLUMN;
        let (name, receiver, sender) = if d == 0 { ("A→B (port A sends, port B receives)", "B", "A") } else { ("B→A (port B sends, port A receives)", "A", "B") };
        let _ = writeln!(o, r#"<text x="{:.1}" y="52" text-anchor="middle" style="font-weight: bold">{name}</text>"#, x0 + W / 2.0);

        // Throughput.
        let (y_step, y_max) = nice_ticks(tput_peak);
        let f = Frame { x0, y0: y_tput, x_max, y_max };
        let _ = writeln!(o, r#"<g class="panel" id="throughput-{dname}">"#);
        axes(&mut o, &f, x_step, y_step, &tput_label);
        let py = f.py(line_rate);
        let _ = writeln!(
            o,
            r#"  <line class="capacity" x1="{x0:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}"><title>line rate: {line_rate} bytes/clock</title></line>"#,
            x0 + W
        );
        for (q, pts) in tput[d].iter().enumerate() {
            polyline(&mut o, &f, pts, &format!("q{q}"), &q.to_string(), dname, "throughput", "mean");
        }
        polyline(&mut o, &f, &ctrl[d], "ctrl", "ctrl", dname, "throughput", "mean");
        polyline(&mut o, &f, &totals[d], "total", "all", dname, "throughput", "mean");
        o.push_str("</g>\n");

        // The PAUSE/PFC frames the receiver sent.
        let _ = writeln!(o, r#"<g class="band" id="marks-{dname}">"#);
        let _ = writeln!(
            o,
            r#"  <text class="axis-label" x="{x0:.1}" y="{:.1}">{frames} frames port {receiver} sent, holding port {sender}'s queues: | pause, o release</text>"#,
            band_top - 6.0
        );
        for q in 0..nq {
            let y = band_top + ROW * (q as f64 + 0.5);
            let _ = writeln!(o, r#"  <line class="row" x1="{x0:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}"/>"#, x0 + W);
            let _ = writeln!(o, r#"  <text x="{:.1}" y="{:.1}" text-anchor="end">q{q}</text>"#, x0 - 8.0, y + 4.0);
        }
        let _ = writeln!(
            o,
            r#"  <polyline class="axis" fill="none" points="{x0:.1},{band_top:.1} {x0:.1},{:.1} {:.1},{:.1}"/>"#,
            band_top + band_h,
            x0 + W,
            band_top + band_h
        );
        for m in r.pause_marks.iter().filter(|m| m.dir == d) {
            marks(&mut o, &f, m, band_top, nq, dname);
        }
        o.push_str("</g>\n");

        // The receive buffer against its thresholds.
        let (y_step, y_max) = nice_ticks(fill_peak);
        let f = Frame { x0, y0: y_fill, x_max, y_max };
        let _ = writeln!(o, r#"<g class="panel" id="fill-{dname}">"#);
        axes(&mut o, &f, x_step, y_step, &format!("port {receiver}'s receive buffer, bytes: window maximum (solid), mean (dashed)"));
        for (kind, bytes, qs) in &ths {
            let py = f.py(*bytes as f64);
            let list: Vec<String> = qs.iter().map(|q| q.to_string()).collect();
            let who = if qs.len() == nq { String::new() } else { format!(" q{}", list.join(",q")) };
            let name = match *kind {
                "size" => "size",
                "rfa" => "RFA",
                _ => "RFD",
            };
            let _ = writeln!(
                o,
                r#"  <line class="threshold {kind}" data-kind="{kind}" data-bytes="{bytes}" data-queues="{}" x1="{x0:.1}" y1="{py:.2}" x2="{:.1}" y2="{py:.2}"/><text x="{:.1}" y="{:.1}" style="font-size: 10px">{name} {bytes}{who}</text>"#,
                list.join(","),
                x0 + W,
                x0 + W + 3.0,
                py + 3.0
            );
        }
        for q in 0..nq {
            polyline(&mut o, &f, &fmax[d][q], &format!("q{q}"), &q.to_string(), dname, "fill", "max");
            polyline(&mut o, &f, &fmean[d][q], &format!("q{q} mean"), &q.to_string(), dname, "fill", "mean");
        }
        o.push_str("</g>\n");
    }
    // Legend: the queues' colours, then the line styles.
    let _ = writeln!(o, r#"<g class="legend">"#);
    let mut lx = LEFT;
    for (q, qc) in s.port.pfc.queues.iter().enumerate() {
        let name = queue_name(q, qc.priorities);
        let _ = writeln!(
            o,
            r#"  <line class="series q{q}" x1="{lx:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}" style="stroke-width: 3"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 18.0,
            lx + 22.0,
            legend_y + 4.0,
            esc(&name)
        );
        lx += 30.0 + 7.0 * name.len() as f64;
    }
    for (class, name) in [("series ctrl", "PAUSE/PFC frames"), ("series total", "all")] {
        let _ = writeln!(
            o,
            r#"  <line class="{class}" x1="{lx:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            lx + 18.0,
            lx + 22.0,
            legend_y + 4.0
        );
        lx += 30.0 + 7.0 * name.len() as f64;
    }
    let (mut lx, ly) = (LEFT, legend_y + 20.0);
    for (class, name) in [
        ("series key", "receive buffer: window maximum"),
        ("series key mean", "window mean"),
        ("threshold size", "size"),
        ("threshold rfa", "RFA"),
        ("threshold rfd", "RFD"),
    ] {
        let _ = writeln!(
            o,
            r#"  <line class="{class}" x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            lx + 18.0,
            lx + 22.0,
            ly + 4.0
        );
        lx += 40.0 + 7.0 * name.len() as f64;
    }
    o.push_str("</g>\n</svg>\n");
    o
}

/// One PAUSE/PFC frame in the band: a tick (pause) or an open circle (release) on the
/// row of each queue it names.
fn marks(o: &mut String, f: &Frame, m: &PauseMark, band_top: f64, nq: usize, dname: &str) {
    let x = f.px(m.clock as f64);
    for q in (0..nq).filter(|q| m.queues >> q & 1 == 1) {
        let y = band_top + ROW * q as f64;
        let c = m.clock;
        if m.releases >> q & 1 == 1 {
            let _ = writeln!(
                o,
                r#"  <circle class="mark release q{q}" data-dir="{dname}" data-queue="{q}" data-clock="{c}" cx="{x:.2}" cy="{:.1}" r="3.5"/>"#,
                y + ROW / 2.0
            );
        } else {
            let _ = writeln!(
                o,
                r#"  <line class="mark pause q{q}" data-dir="{dname}" data-queue="{q}" data-clock="{c}" x1="{x:.2}" y1="{:.1}" x2="{x:.2}" y2="{:.1}"/>"#,
                y + 2.0,
                y + ROW - 2.0
            );
        }
    }
}
