//! The timeline of a two-port run as an SVG picture (`iblink sim --plot run.svg`):
//! per-VL throughput and receive-buffer occupancy over time, for each direction.
//!
//! The SVG is written by hand (no plotting dependency) and meant to be read as text
//! too. Layout: one column per direction (A→B: what port A sends and port B receives;
//! B→A), two panels in each:
//! - **throughput**: bytes of data and VL15 packets that crossed the wire per clock,
//!   averaged over each timeline window ([`Sample::wire_bytes`], counted in the clock
//!   each word left the sender, divided by the window's clocks), one line per VL, and a
//!   dashed black line for all VLs together; when the link's width is known, a grey
//!   dotted line marks it (W/8 bytes a clock). No window can go above that line: a
//!   clock carries one word, and FCP words (and the unused bytes of a packet's last
//!   word) are the gap between the total and the line when the link is busy;
//! - **occupancy**: the receive buffer of each VL in 64-byte blocks (VL15: packets),
//!   per window its largest value over the window's clocks as a solid line
//!   ([`Sample::occupancy_max`]) and its mean over them as a dashed line of the same
//!   colour ([`Sample::occupancy_mean`]). A buffer that fills and drains within a window
//!   shows as a peak of the solid line over a low dashed one; a value at the window's
//!   end alone would mostly read 0 under a draining receiver.
//!
//! **A window is drawn across the clocks it covers**: its value is a horizontal step
//! from the window's first clock ([`Sample::from`]) to its end ([`Sample::clock`]), and
//! consecutive windows are joined by a vertical edge. So the picture starts at clock 0
//! and ends with the traffic, a run of two windows fills the panel with two steps, and
//! a shorter last window (the traffic's end) is drawn as wide as it is. The value of
//! the window containing clock `x` is read straight above `x`. Axes have ticks at 1, 2
//! or 5 × 10ⁿ with their values as labels (k = 10³, M = 10⁶), and a legend gives one
//! colour per VL (VL15 last).
//!
//! Every series is a `<polyline class="series vlN" data-vl="N" data-dir="AtoB|BtoA"
//! data-panel="throughput|occupancy" data-stat="mean|max">` (`data-vl="all"` for the
//! total; throughput is a window mean, occupancy has one `max` and one `mean` line per
//! VL, the `mean` one with class `mean` too) in pixel coordinates, two points per window
//! (its start and its end, at its value); a series longer than [`MAX_POINTS`] is
//! thinned by keeping each bucket's smallest and largest value, so peaks and troughs
//! survive.

use super::{Direction, Sample};
use std::fmt::Write as _;
use std::path::Path;

/// Longest series drawn point for point.
pub const MAX_POINTS: usize = 2000;

/// One colour per VL: VL0..VL14 in order, VL15 last (index 15).
pub const VL_COLOURS: [&str; 16] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#000080",
];

/// Which directions to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Directions {
    Both,
    Only(Direction),
}

/// What the picture shows besides the samples.
#[derive(Clone, Debug)]
pub struct PlotOptions {
    /// Data VLs (VLCap); the samples hold `vl_cap + 1` entries, VL15 last.
    pub vl_cap: usize,
    pub directions: Directions,
    /// Heading (e.g. the scenario's name).
    pub title: String,
    /// The clock, for a Gb/s scale on the throughput axis.
    pub clock_hz: Option<u64>,
    /// Bytes the link moves a clock (datapath width), drawn as a limit line.
    pub link_bytes_per_clock: Option<u32>,
}

impl PlotOptions {
    pub fn new(vl_cap: usize) -> Self {
        Self {
            vl_cap,
            directions: Directions::Both,
            title: "iblink sim".into(),
            clock_hz: None,
            link_bytes_per_clock: None,
        }
    }
}

/// Write the picture of `samples` to `path` with default options for `vl_cap` data VLs.
pub fn write_svg(samples: &[Sample], vl_cap: usize, path: &Path) -> std::io::Result<()> {
    write_svg_with(samples, &PlotOptions::new(vl_cap), path)
}

/// Write the picture of `samples` to `path`.
pub fn write_svg_with(samples: &[Sample], opts: &PlotOptions, path: &Path) -> std::io::Result<()> {
    std::fs::write(path, render_svg(samples, opts))
}

/// The VL an entry of a sample's per-VL vector stands for (the last one is VL15).
pub fn vl_of_index(vl_cap: usize, i: usize) -> usize {
    if i < vl_cap {
        i
    } else {
        15
    }
}

/// A value per window drawn across the window: `(from, v), (to, v)` for each window
/// that covers at least one clock, in time order.
pub fn steps<T>(windows: impl IntoIterator<Item = T>, span: impl Fn(&T) -> (u64, u64), value: impl Fn(&T) -> f64) -> Vec<(f64, f64)> {
    let mut out = vec![];
    for w in windows {
        let (from, to) = span(&w);
        if to <= from {
            continue;
        }
        let v = value(&w);
        out.push((from as f64, v));
        out.push((to as f64, v));
    }
    out
}

/// Per-window throughput in bytes a clock, per VL, as steps (see [`steps`]).
pub fn throughput_series(samples: &[Sample], dir: Direction, n: usize) -> Vec<Vec<(f64, f64)>> {
    (0..n)
        .map(|vl| {
            steps(samples, |s| (s.from, s.clock), |s| {
                let b = s.wire_bytes[dir as usize].get(vl).copied().unwrap_or(0);
                b as f64 / s.clocks() as f64
            })
        })
        .collect()
}

/// Each window's largest occupancy in blocks per VL, as steps.
pub fn occupancy_series(samples: &[Sample], dir: Direction, n: usize) -> Vec<Vec<(f64, f64)>> {
    (0..n)
        .map(|vl| steps(samples, |s| (s.from, s.clock), |s| s.occupancy_max[dir as usize].get(vl).copied().unwrap_or(0) as f64))
        .collect()
}

/// Each window's mean occupancy in blocks per VL, as steps.
pub fn occupancy_mean_series(samples: &[Sample], dir: Direction, n: usize) -> Vec<Vec<(f64, f64)>> {
    (0..n)
        .map(|vl| steps(samples, |s| (s.from, s.clock), |s| s.occupancy_mean[dir as usize].get(vl).copied().unwrap_or(0.0)))
        .collect()
}

/// At most [`MAX_POINTS`] points: the first, the last, and each bucket's smallest and
/// largest value, in time order.
pub(crate) fn thin(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points.to_vec();
    }
    let bucket = points.len().div_ceil((MAX_POINTS - 2) / 2);
    let mut keep = vec![0, points.len() - 1];
    for (b, c) in points.chunks(bucket).enumerate() {
        let lo = (0..c.len())
            .min_by(|&a, &b| c[a].1.total_cmp(&c[b].1))
            .unwrap();
        let hi = (0..c.len())
            .max_by(|&a, &b| c[a].1.total_cmp(&c[b].1))
            .unwrap();
        keep.extend([b * bucket + lo, b * bucket + hi]);
    }
    keep.sort_unstable();
    keep.dedup();
    keep.into_iter().map(|i| points[i]).collect()
}

/// Ticks at 1, 2 or 5 × 10ⁿ from 0 covering `max` (at least 1): (step, top).
pub(crate) fn nice_ticks(max: f64) -> (f64, f64) {
    let max = if max > 0.0 { max } else { 1.0 };
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999_999)
        .unwrap();
    (step, (max / step).ceil() * step)
}

/// A tick label: up to 3 decimals; from 10 000 up with k/M/G (10³, 10⁶, 10⁹).
pub(crate) fn label(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if v.abs() >= 10_000.0 {
        for (div, suffix) in [(1e9, "G"), (1e6, "M"), (1e3, "k")] {
            if v.abs() >= div {
                return trim(format!("{:.3}", v / div)) + suffix;
            }
        }
    }
    trim(format!("{v:.3}"))
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub(crate) const W: f64 = 560.0; // a panel's plot area
pub(crate) const H: f64 = 200.0;
pub(crate) const LEFT: f64 = 80.0;
pub(crate) const RIGHT: f64 = 30.0;
pub(crate) const TOP: f64 = 84.0;
pub(crate) const GAP: f64 = 70.0; // between panels, vertically: room for the x labels

/// A panel's plot area: pixel origin (left, bottom) and the data ranges.
pub(crate) struct Frame {
    pub x0: f64,
    pub y0: f64,
    pub x_max: f64,
    pub y_max: f64,
}

impl Frame {
    pub fn px(&self, x: f64) -> f64 {
        self.x0 + x / self.x_max * W
    }
    pub fn py(&self, y: f64) -> f64 {
        self.y0 - y / self.y_max * H
    }
}

/// A panel's grid, y ticks (`tick-label y`, one per grid line, in order), x ticks
/// (`tick-label x`), axes, the x axis's name and `ylabel` above the panel.
pub(crate) fn axes(s: &mut String, f: &Frame, x_step: f64, y_step: f64, ylabel: &str) {
    let (x0, y0) = (f.x0, f.y0);
    for k in 0..=(f.y_max / y_step).round() as u32 {
        let y = k as f64 * y_step;
        let py = f.py(y);
        let _ = writeln!(
            s,
            r#"  <line class="grid" x1="{x0:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}"/>"#,
            x0 + W
        );
        let _ = writeln!(
            s,
            r#"  <line class="axis tick" x1="{:.1}" y1="{py:.1}" x2="{x0:.1}" y2="{py:.1}"/>"#,
            x0 - 5.0
        );
        let _ = writeln!(
            s,
            r#"  <text class="tick-label y" x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            x0 - 8.0,
            py + 4.0,
            label(y)
        );
    }
    for k in 0..=(f.x_max / x_step).round() as u32 {
        let x = k as f64 * x_step;
        let px = f.px(x);
        let _ = writeln!(
            s,
            r#"  <line class="axis tick" x1="{px:.1}" y1="{y0:.1}" x2="{px:.1}" y2="{:.1}"/>"#,
            y0 + 5.0
        );
        let _ = writeln!(
            s,
            r#"  <text class="tick-label x" x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            y0 + 18.0,
            label(x)
        );
    }
    let _ = writeln!(
        s,
        r#"  <polyline class="axis" fill="none" points="{x0:.1},{:.1} {x0:.1},{y0:.1} {:.1},{y0:.1}"/>"#,
        y0 - H,
        x0 + W
    );
    let _ = writeln!(
        s,
        r#"  <text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">clock</text>"#,
        x0 + W / 2.0,
        y0 + 34.0
    );
    let _ = writeln!(
        s,
        r#"  <text class="axis-label" x="{x0:.1}" y="{:.1}">{}</text>"#,
        y0 - H - 6.0,
        esc(ylabel)
    );
}

/// The SVG text of the picture (see the module documentation).
pub fn render_svg(samples: &[Sample], opts: &PlotOptions) -> String {
    let dirs: Vec<Direction> = match opts.directions {
        Directions::Both => vec![Direction::AtoB, Direction::BtoA],
        Directions::Only(d) => vec![d],
    };
    let n = opts.vl_cap + 1;
    // The time axis from clock 0 to the end of the last window.
    let x_last = samples.last().map_or(1, |s| s.clock.max(1)) as f64;
    let (x_step, x_max) = nice_ticks(x_last);
    let tput: Vec<_> = dirs
        .iter()
        .map(|&d| throughput_series(samples, d, n))
        .collect();
    let occ: Vec<_> = dirs
        .iter()
        .map(|&d| occupancy_series(samples, d, n))
        .collect();
    let occ_mean: Vec<_> = dirs
        .iter()
        .map(|&d| occupancy_mean_series(samples, d, n))
        .collect();
    // One y scale per row, shared by the directions so they compare at a glance.
    let peak = |rows: &[Vec<Vec<(f64, f64)>>], total: bool| {
        let mut m = 0f64;
        for series in rows {
            for s in series {
                m = s.iter().fold(m, |m, p| m.max(p.1));
            }
            if total {
                m = m.max(sum_series(series).iter().fold(0f64, |m, p| m.max(p.1)));
            }
        }
        m
    };
    let tput_peak = peak(&tput, true).max(opts.link_bytes_per_clock.unwrap_or(0) as f64);
    // The maxima bound the means.
    let occ_peak = peak(&occ, false).max(peak(&occ_mean, false));

    let width = LEFT + (W + LEFT + RIGHT) * dirs.len() as f64 - LEFT + RIGHT;
    let legend_y = TOP + 2.0 * H + 2.0 * GAP - 10.0;
    // Two legend rows: the VLs' colours, then the occupancy panels' two line styles.
    let height = legend_y + 50.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}">"#
    );
    let _ = writeln!(s, "<title>{}</title>", esc(&opts.title));
    s.push_str("<style>\n");
    s.push_str("  text { font-family: sans-serif; font-size: 12px; }\n");
    s.push_str("  .axis { stroke: #000; stroke-width: 1; }\n");
    s.push_str("  .grid { stroke: #e0e0e0; stroke-width: 1; }\n");
    s.push_str("  .series { fill: none; stroke-width: 1.5; }\n");
    s.push_str("  .total { stroke: #000; stroke-dasharray: 6 3; }\n");
    s.push_str("  .capacity { stroke: #999; stroke-dasharray: 2 3; }\n");
    s.push_str("  .mean { stroke-dasharray: 4 3; stroke-width: 1.2; }\n");
    s.push_str("  .key { stroke: #555; }\n");
    for vl in 0..n {
        let v = vl_of_index(opts.vl_cap, vl);
        let _ = writeln!(s, "  .vl{v} {{ stroke: {}; }}", VL_COLOURS[v]);
    }
    s.push_str("</style>\n");
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="24" style="font-size: 16px; font-weight: bold">{}</text>"#,
        esc(&opts.title)
    );
    let mut row_label = "data and VL15 bytes on the wire a clock (window average)".to_string();
    if let Some(hz) = opts.clock_hz {
        let _ = write!(
            row_label,
            "; 1 byte/clock = {} Gb/s at {} MHz",
            label(8.0 * hz as f64 / 1e9),
            label(hz as f64 / 1e6)
        );
    }
    for (col, &d) in dirs.iter().enumerate() {
        let x0 = LEFT + col as f64 * (W + LEFT + RIGHT);
        let name = match d {
            Direction::AtoB => "A→B (port A sends, port B receives)",
            Direction::BtoA => "B→A (port B sends, port A receives)",
        };
        let dname = format!("{d:?}");
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="52" text-anchor="middle" style="font-weight: bold">{name}</text>"#,
            x0 + W / 2.0
        );
        for (row, panel) in ["throughput", "occupancy"].into_iter().enumerate() {
            let y0 = TOP + H + row as f64 * (H + GAP);
            let (y_step, y_max) = nice_ticks(if row == 0 { tput_peak } else { occ_peak });
            let f = Frame {
                x0,
                y0,
                x_max,
                y_max,
            };
            let _ = writeln!(s, r#"<g class="panel" id="{panel}-{dname}">"#);
            let ylabel = if row == 0 {
                row_label.clone()
            } else {
                "receive buffer, 64-byte blocks: window maximum (solid), mean (dashed)".to_string()
            };
            axes(&mut s, &f, x_step, y_step, &ylabel);
            let series = if row == 0 { &tput[col] } else { &occ[col] };
            if row == 0 {
                if let Some(w) = opts.link_bytes_per_clock {
                    let py = f.py(w as f64);
                    let _ = writeln!(
                        s,
                        r#"  <line class="capacity" x1="{x0:.1}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}"><title>link: {w} bytes/clock</title></line>"#,
                        x0 + W
                    );
                }
            }
            for (i, pts) in series.iter().enumerate() {
                let vl = vl_of_index(opts.vl_cap, i);
                let stat = if row == 0 { "mean" } else { "max" };
                polyline(&mut s, &f, pts, &format!("vl{vl}"), &vl.to_string(), &dname, panel, stat);
                if row == 1 {
                    let mean = &occ_mean[col][i];
                    polyline(&mut s, &f, mean, &format!("vl{vl} mean"), &vl.to_string(), &dname, panel, "mean");
                }
            }
            if row == 0 {
                polyline(&mut s, &f, &sum_series(series), "total", "all", &dname, panel, "mean");
            }
            s.push_str("</g>\n");
        }
    }
    // Legend.
    let _ = writeln!(s, r#"<g class="legend">"#);
    let mut lx = LEFT;
    for i in 0..n {
        let vl = vl_of_index(opts.vl_cap, i);
        let _ = writeln!(
            s,
            r#"  <line class="series vl{vl}" x1="{lx:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}" style="stroke-width: 3"/><text x="{:.1}" y="{:.1}">VL{vl}</text>"#,
            lx + 18.0,
            lx + 22.0,
            legend_y + 4.0
        );
        lx += 62.0;
    }
    let _ = writeln!(
        s,
        r#"  <line class="series total" x1="{lx:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}"/><text x="{:.1}" y="{:.1}">all VLs</text>"#,
        lx + 18.0,
        lx + 22.0,
        legend_y + 4.0
    );
    // The occupancy panels' two line styles.
    let (mut lx, ly) = (LEFT, legend_y + 20.0);
    for (class, name) in [("series key", "receive buffer: window maximum"), ("series key mean", "window mean")] {
        let _ = writeln!(
            s,
            r#"  <line class="{class}" x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}"/><text x="{:.1}" y="{:.1}">{name}</text>"#,
            lx + 18.0,
            lx + 22.0,
            ly + 4.0
        );
        lx += 230.0;
    }
    s.push_str("</g>\n</svg>\n");
    s
}

/// The sum over VLs, point by point (the series share their clocks).
pub(crate) fn sum_series(series: &[Vec<(f64, f64)>]) -> Vec<(f64, f64)> {
    let Some(first) = series.first() else {
        return vec![];
    };
    (0..first.len())
        .map(|k| (first[k].0, series.iter().map(|s| s[k].1).sum()))
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn polyline(
    s: &mut String,
    f: &Frame,
    pts: &[(f64, f64)],
    class: &str,
    vl: &str,
    dir: &str,
    panel: &str,
    stat: &str,
) {
    let _ = write!(
        s,
        r#"  <polyline class="series {class}" data-vl="{vl}" data-dir="{dir}" data-panel="{panel}" data-stat="{stat}" points=""#
    );
    for (k, &(x, y)) in thin(pts).iter().enumerate() {
        let sep = if k == 0 { "" } else { " " };
        let _ = write!(s, "{sep}{:.2},{:.2}", f.px(x), f.py(y));
    }
    s.push_str("\"/>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_steps_and_labels() {
        assert_eq!(nice_ticks(0.0), (0.2, 1.0));
        assert_eq!(nice_ticks(4.0), (1.0, 4.0));
        assert_eq!(nice_ticks(3.7), (1.0, 4.0));
        assert_eq!(nice_ticks(1_000_000.0), (200_000.0, 1_000_000.0));
        assert_eq!(nice_ticks(123.0), (50.0, 150.0));
        assert_eq!(label(200_000.0), "200k");
        assert_eq!(label(1_000_000.0), "1M");
        assert_eq!(label(1_500_000.0), "1.5M");
        assert_eq!(label(2_500.0), "2500");
        assert_eq!(label(0.2), "0.2");
        assert_eq!(label(0.0), "0");
        assert_eq!(label(3072.0), "3072");
        assert_eq!(label(12_345.0), "12.345k");
        assert_eq!(label(0.1 + 0.2), "0.3");
    }

    #[test]
    fn thinning_keeps_extremes_in_time_order() {
        let pts: Vec<(f64, f64)> = (0..10_001)
            .map(|i| (i as f64, ((i * 7919) % 1013) as f64))
            .collect();
        let t = thin(&pts);
        assert!(t.len() <= MAX_POINTS);
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!((t[0], t[t.len() - 1]), (pts[0], pts[10_000]));
        let ext = |p: &[(f64, f64)]| {
            p.iter().fold((f64::MAX, f64::MIN), |(lo, hi), q| {
                (lo.min(q.1), hi.max(q.1))
            })
        };
        assert_eq!(ext(&t), ext(&pts));
    }
}
