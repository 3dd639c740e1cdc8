//! The timeline plot read back as XML: one polyline per VL and panel, and the plotted
//! points, mapped back through the axis ticks, have the extremes of the samples; each
//! window is drawn across the clocks it covers (a step from its first clock to its end).
//!
//! Expected values are computed here from the samples (bytes in a window divided by the
//! window's clocks; occupancy's window maximum and mean as given), not taken from the
//! plot module.

use iblink_sim::system::plot::{write_svg, write_svg_with, Directions, PlotOptions, MAX_POINTS};
use iblink_sim::system::{Direction, Sample};
use rand::{rngs::StdRng, Rng, SeedableRng};
use std::collections::{BTreeMap, BTreeSet};

const VL_CAP: usize = 4;
/// Sample entries: VL0..VL3, then VL15.
const VLS: [usize; 5] = [0, 1, 2, 3, 15];

fn samples(n: usize, seed: u64) -> Vec<Sample> {
    let mut r = StdRng::seed_from_u64(seed);
    let mut clock = 0;
    (0..n)
        .map(|_| {
            let window = [500u64, 1000, 1000, 2000][r.gen_range(0..4)];
            let from = clock;
            clock += window;
            let bytes = |r: &mut StdRng, d: usize| -> Vec<u64> {
                (0..5)
                    .map(|vl| r.gen_range(0..=window * (vl as u64 + 1 + d as u64)))
                    .collect()
            };
            let occ = |r: &mut StdRng, d: usize| -> Vec<u32> {
                (0..5)
                    .map(|vl| r.gen_range(0..=(200 * (vl as u32 + 1) + 1000 * d as u32)))
                    .collect()
            };
            // A window's mean is at most its maximum.
            let mean = |r: &mut StdRng, max: &[u32]| -> Vec<f64> { max.iter().map(|&m| m as f64 * r.gen_range(0.0..=1.0)).collect() };
            let max = [occ(&mut r, 0), occ(&mut r, 1)];
            let means = [mean(&mut r, &max[0]), mean(&mut r, &max[1])];
            Sample {
                from,
                clock,
                wire_bytes: [bytes(&mut r, 0), bytes(&mut r, 1)],
                occupancy_max: max,
                occupancy_mean: means,
            }
        })
        .collect()
}

/// Each window's value computed from the samples: throughput in bytes/clock,
/// occupancy in blocks (`stat`: the windows' maxima or means). `entry` is the index in
/// the per-VL vectors.
fn values(s: &[Sample], d: usize, entry: Option<usize>, panel: &str, stat: &str) -> Vec<f64> {
    let mut prev = 0;
    s.iter()
        .map(|x| {
            // The windows follow each other from clock 0.
            assert_eq!(x.from, prev);
            let w = (x.clock - prev) as f64;
            prev = x.clock;
            match (panel, entry) {
                ("throughput", Some(e)) => x.wire_bytes[d][e] as f64 / w,
                ("throughput", None) => x.wire_bytes[d].iter().sum::<u64>() as f64 / w,
                (_, Some(e)) if stat == "max" => x.occupancy_max[d][e] as f64,
                (_, Some(e)) => x.occupancy_mean[d][e],
                _ => unreachable!(),
            }
        })
        .collect()
}

/// (min, max) of [`values`].
fn expected(s: &[Sample], d: usize, entry: Option<usize>, panel: &str, stat: &str) -> (f64, f64) {
    values(s, d, entry, panel, stat)
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)))
}

fn parse_label(t: &str) -> f64 {
    let (num, mul) = match t.chars().last().unwrap() {
        'k' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    num.parse::<f64>()
        .unwrap_or_else(|_| panic!("tick label {t:?}"))
        * mul
}

fn attr(n: roxmltree::Node, a: &str) -> f64 {
    n.attribute(a).unwrap().parse().unwrap()
}

/// A linear map pixel -> value fitted through the first and last tick; every tick on it.
fn axis(ticks: &[(f64, f64)]) -> impl Fn(f64) -> f64 {
    assert!(ticks.len() >= 2, "{ticks:?}");
    let (p0, v0) = ticks[0];
    let (p1, v1) = *ticks.last().unwrap();
    let k = (v1 - v0) / (p1 - p0);
    for &(p, v) in ticks {
        assert!(
            (v0 + (p - p0) * k - v).abs() <= (v1 - v0).abs() * 1e-3,
            "{ticks:?}"
        );
    }
    move |p| v0 + (p - p0) * k
}

struct Panel {
    /// (data-vl or data-queue, data-stat) -> points in data units.
    series: BTreeMap<(String, String), Vec<(f64, f64)>>,
    /// The Ethernet fill panel's threshold lines: (data-kind, data-bytes, data-queues,
    /// the value at its height).
    thresholds: Vec<(String, u32, String, f64)>,
    y_top: f64,
    x_top: f64,
}

/// Every panel of a plot: id -> its series mapped back through its ticks.
fn read_plot(svg: &str) -> BTreeMap<String, Panel> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    let mut panels = BTreeMap::new();
    for g in root
        .children()
        .filter(|n| n.attribute("class") == Some("panel"))
    {
        let id = g.attribute("id").unwrap().to_string();
        let class = |n: &roxmltree::Node| n.attribute("class").unwrap_or("").to_string();
        let labels = |c: &str| -> Vec<(roxmltree::Node, f64)> {
            g.children()
                .filter(|n| class(n) == c)
                .map(|n| (n, parse_label(n.text().unwrap())))
                .collect()
        };
        // y: each label stands beside its grid line, in the same order.
        let grid: Vec<f64> = g
            .children()
            .filter(|n| class(n) == "grid")
            .map(|n| attr(n, "y1"))
            .collect();
        let ylabels = labels("tick-label y");
        assert_eq!(grid.len(), ylabels.len(), "{id}");
        let yt: Vec<(f64, f64)> = grid
            .iter()
            .zip(&ylabels)
            .map(|(p, (_, v))| (*p, *v))
            .collect();
        let xt: Vec<(f64, f64)> = labels("tick-label x")
            .iter()
            .map(|(n, v)| (attr(*n, "x"), *v))
            .collect();
        let (fx, fy) = (axis(&xt), axis(&yt));
        let mut series = BTreeMap::new();
        let mut thresholds = vec![];
        for t in g.children().filter(|n| class(n).starts_with("threshold")) {
            assert_eq!(attr(t, "y1"), attr(t, "y2"), "{id}: a threshold is level");
            thresholds.push((
                t.attribute("data-kind").unwrap().to_string(),
                t.attribute("data-bytes").unwrap().parse().unwrap(),
                t.attribute("data-queues").unwrap().to_string(),
                fy(attr(t, "y1")),
            ));
        }
        for p in g.children().filter(|n| class(n).starts_with("series")) {
            let vl = p.attribute("data-vl").or(p.attribute("data-queue")).unwrap().to_string();
            let stat = p.attribute("data-stat").unwrap().to_string();
            // The mean of a buffer panel is dashed (class `mean`), the maximum solid.
            assert_eq!(class(&p).split(' ').any(|c| c == "mean"), stat == "mean" && !id.starts_with("throughput"), "{id}");
            assert_eq!(p.tag_name().name(), "polyline");
            assert!(id.starts_with(p.attribute("data-panel").unwrap()), "{id}");
            assert!(id.ends_with(p.attribute("data-dir").unwrap()), "{id}");
            let pts: Vec<(f64, f64)> = p
                .attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (fx(x.parse().unwrap()), fy(y.parse().unwrap()))
                })
                .collect();
            assert!(
                series.insert((vl.clone(), stat.clone()), pts).is_none(),
                "{id}: two {stat} polylines for VL {vl}"
            );
        }
        let (y_top, x_top) = (yt.last().unwrap().1, xt.last().unwrap().1);
        let panel = Panel {
            series,
            thresholds,
            y_top,
            x_top,
        };
        assert!(panels.insert(id.clone(), panel).is_none(), "{id} twice");
    }
    panels
}

fn check(svg: &str, s: &[Sample], dirs: &[(usize, &str)]) {
    let panels = read_plot(svg);
    let want_ids: BTreeSet<String> = dirs
        .iter()
        .flat_map(|(_, d)| ["throughput", "occupancy"].map(|p| format!("{p}-{d}")))
        .collect();
    assert_eq!(panels.keys().cloned().collect::<BTreeSet<_>>(), want_ids);
    for &(d, dname) in dirs {
        for panel in ["throughput", "occupancy"] {
            let p = &panels[&format!("{panel}-{dname}")];
            // Throughput: one window mean per VL and the total; occupancy: per VL the
            // windows' maxima and means.
            let stats: &[&str] = if panel == "throughput" { &["mean"] } else { &["max", "mean"] };
            let mut want_vls: BTreeSet<(String, String)> =
                VLS.iter().flat_map(|v| stats.iter().map(move |s| (v.to_string(), s.to_string()))).collect();
            if panel == "throughput" {
                want_vls.insert(("all".into(), "mean".into()));
            }
            assert_eq!(
                p.series.keys().cloned().collect::<BTreeSet<_>>(),
                want_vls,
                "{panel}-{dname}"
            );
            for ((vl, stat), pts) in &p.series {
                let ctx = format!("{panel}-{dname} VL {vl} {stat}");
                let entry = VLS.iter().position(|v| v.to_string() == *vl);
                let (lo, hi) = expected(s, d, entry, panel, stat);
                let got = pts
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(l, h), q| (l.min(q.1), h.max(q.1)));
                // Points are printed to 0.01 px of a 200 px axis.
                let tol = p.y_top * 1e-4 + 1e-9;
                assert!(
                    (got.0 - lo).abs() <= tol && (got.1 - hi).abs() <= tol,
                    "{ctx}: {got:?} vs {lo}..{hi}"
                );
                assert!(hi <= p.y_top, "{ctx}: the axis covers the data");
                assert!(pts.len() <= MAX_POINTS, "{ctx}");
                // Time runs left to right (a step's two edges share a clock), from the
                // first window's start (clock 0) to the last window's end.
                let xtol = p.x_top * 1e-4;
                assert!(pts.windows(2).all(|w| w[0].0 <= w[1].0 + xtol), "{ctx}");
                let (x0, x1) = (pts[0].0, pts.last().unwrap().0);
                assert!(x0.abs() <= xtol && s[0].from == 0, "{ctx}: {x0}");
                assert!(
                    (x1 - s.last().unwrap().clock as f64).abs() <= xtol,
                    "{ctx}: {x1}"
                );
                // Drawn point for point: each window is a step across its clocks, at
                // its value.
                if pts.len() == 2 * s.len() {
                    let v = values(s, d, entry, panel, stat);
                    for (k, x) in s.iter().enumerate() {
                        for (pt, at) in [(pts[2 * k], x.from), (pts[2 * k + 1], x.clock)] {
                            assert!((pt.0 - at as f64).abs() <= xtol, "{ctx}: window {k} at {pt:?}, not {at}");
                            assert!((pt.1 - v[k]).abs() <= tol, "{ctx}: window {k} at {pt:?}, not {}", v[k]);
                        }
                    }
                } else {
                    assert!(2 * s.len() > MAX_POINTS, "{ctx}: {} points for {} windows", pts.len(), s.len());
                }
            }
        }
    }
    // The legend names every VL once, and each VL has its own colour.
    let doc = roxmltree::Document::parse(svg).unwrap();
    let legend = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("legend"))
        .unwrap();
    let names: Vec<&str> = legend
        .children()
        .filter(|n| n.is_element())
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        names,
        ["VL0", "VL1", "VL2", "VL3", "VL15", "all VLs", "receive buffer: window maximum", "window mean"]
    );
    let style = doc
        .descendants()
        .find(|n| n.tag_name().name() == "style")
        .unwrap()
        .text()
        .unwrap();
    let colours: BTreeSet<&str> = VLS
        .iter()
        .map(|v| {
            let rule = format!(".vl{v} {{ stroke: ");
            let at = style
                .find(&rule)
                .unwrap_or_else(|| panic!("no colour for VL{v}"))
                + rule.len();
            &style[at..at + 7]
        })
        .collect();
    assert_eq!(colours.len(), VLS.len(), "{colours:?}");
}

#[test]
fn both_directions_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.svg");
    let s = samples(300, 1);
    write_svg(&s, VL_CAP, &path).unwrap();
    check(
        &std::fs::read_to_string(&path).unwrap(),
        &s,
        &[(0, "AtoB"), (1, "BtoA")],
    );
}

#[test]
fn long_timelines_are_thinned_keeping_extremes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.svg");
    let s = samples(20_000, 2);
    let mut opts = PlotOptions::new(VL_CAP);
    opts.directions = Directions::Only(Direction::BtoA);
    opts.title = "long <run> & thinned".into();
    opts.clock_hz = Some(156_250_000);
    opts.link_bytes_per_clock = Some(4);
    write_svg_with(&s, &opts, &path).unwrap();
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.contains("<title>long &lt;run&gt; &amp; thinned</title>"));
    check(&svg, &s, &[(1, "BtoA")]);
}

/// Two windows: the steps fill the panel from clock 0 to the end (a point at each
/// window's end alone would leave the first half empty).
#[test]
fn a_short_run_fills_the_panel() {
    let mut s = samples(2, 3);
    s[0].from = 0;
    s[0].clock = 10_000;
    s[1].from = 10_000;
    s[1].clock = 20_000;
    let svg = iblink_sim::system::plot::render_svg(&s, &PlotOptions::new(VL_CAP));
    let panels = read_plot(&svg);
    for (id, p) in &panels {
        assert_eq!(p.x_top, 20_000.0, "{id}");
        for (k, pts) in &p.series {
            let xs: Vec<f64> = pts.iter().map(|q| q.0).collect();
            for (x, want) in xs.iter().zip([0.0, 10_000.0, 10_000.0, 20_000.0]) {
                assert!((x - want).abs() < 20_000.0 * 1e-4, "{id} {k:?}: {xs:?}");
            }
            assert_eq!(xs.len(), 4, "{id} {k:?}");
        }
    }
}

/// The Ethernet timeline (eth_isolation on the model, 60,000 clocks): per direction the
/// throughput per queue, the PAUSE/PFC bytes and the total; the fill's maxima and means
/// per queue against lines at the scenario's size, RFA and RFD; a mark per PAUSE/PFC
/// frame at its clock. Expected values from the run's samples and the scenario file.
#[test]
fn ethernet_timeline_reads_back() {
    use iblink_sim::eth::plot::{render_svg, EthPlotOptions};
    use iblink_sim::eth::run::EthRun;
    use iblink_sim::eth::scenario::EthScenario;
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tb/scenarios/eth_isolation.toml");
    let mut sc = EthScenario::from_file(&p).unwrap();
    sc.cycles = 60_000;
    sc.sample_every = 1_000;
    let r = EthRun::model(&sc, false).finish();
    assert!(r.errors.is_empty());
    let t = &r.timeline;
    assert_eq!(t.len(), 60);
    let svg = render_svg(&r, &sc, &EthPlotOptions { title: "eth <iso>".into(), clock_hz: Some(250_000_000) });
    let panels = read_plot(&svg);
    let want_ids: BTreeSet<String> =
        ["throughput", "fill"].iter().flat_map(|p| ["AtoB", "BtoA"].map(|d| format!("{p}-{d}"))).collect();
    assert_eq!(panels.keys().cloned().collect::<BTreeSet<_>>(), want_ids);
    let nq = 3;
    for (d, dname) in ["AtoB", "BtoA"].into_iter().enumerate() {
        let tp = &panels[&format!("throughput-{dname}")];
        let mut keys: BTreeSet<(String, String)> = (0..nq).map(|q| (q.to_string(), "mean".to_string())).collect();
        keys.insert(("ctrl".into(), "mean".into()));
        keys.insert(("all".into(), "mean".into()));
        assert_eq!(tp.series.keys().cloned().collect::<BTreeSet<_>>(), keys);
        assert!(tp.y_top >= 8.0, "the line rate is on the axis");
        for ((q, _), pts) in &tp.series {
            let per_window: Vec<f64> = t
                .iter()
                .map(|x| {
                    let b = match q.as_str() {
                        "ctrl" => x.ctrl_bytes[d],
                        "all" => x.total_bytes(d),
                        n => x.wire_bytes[d][n.parse::<usize>().unwrap()],
                    };
                    b as f64 / x.clocks() as f64
                })
                .collect();
            assert_eq!(pts.len(), 2 * t.len(), "{dname} {q}");
            for (k, x) in t.iter().enumerate() {
                for (pt, at) in [(pts[2 * k], x.from), (pts[2 * k + 1], x.clock)] {
                    assert!((pt.0 - at as f64).abs() <= tp.x_top * 1e-4, "{dname} {q}: {pt:?} at {at}");
                    assert!((pt.1 - per_window[k]).abs() <= tp.y_top * 1e-4, "{dname} {q} window {k}: {pt:?} vs {}", per_window[k]);
                }
            }
        }
        let fp = &panels[&format!("fill-{dname}")];
        for q in 0..nq {
            for (stat, vals) in [
                ("max", t.iter().map(|x| x.fill_max[d][q] as f64).collect::<Vec<_>>()),
                ("mean", t.iter().map(|x| x.fill_mean[d][q]).collect()),
            ] {
                let pts = &fp.series[&(q.to_string(), stat.to_string())];
                for (k, v) in vals.iter().enumerate() {
                    assert!((pts[2 * k].1 - v).abs() <= fp.y_top * 1e-4 && (pts[2 * k + 1].1 - v).abs() <= fp.y_top * 1e-4, "{dname} q{q} {stat} window {k}");
                }
            }
        }
        // Every queue of eth_isolation: size 32768, RFA 16384, RFD 8192, one line each.
        let mut th: Vec<(String, u32, String)> = fp.thresholds.iter().map(|x| (x.0.clone(), x.1, x.2.clone())).collect();
        th.sort();
        assert_eq!(
            th,
            [("rfa".to_string(), 16384, "0,1,2".to_string()), ("rfd".into(), 8192, "0,1,2".into()), ("size".into(), 32768, "0,1,2".into())]
        );
        for x in &fp.thresholds {
            assert!((x.3 - x.1 as f64).abs() <= fp.y_top * 1e-4, "{x:?} drawn at its value");
        }
        assert!(fp.y_top >= 32768.0);
    }
    // The marks: one per PAUSE/PFC frame and queue it names, at its clock on the time axis.
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let tp = &panels["throughput-AtoB"];
    let px_to_clock = {
        let g = doc.descendants().find(|n| n.attribute("id") == Some("throughput-AtoB")).unwrap();
        let xt: Vec<(f64, f64)> = g
            .children()
            .filter(|n| n.attribute("class") == Some("tick-label x"))
            .map(|n| (attr(n, "x"), parse_label(n.text().unwrap())))
            .collect();
        axis(&xt)
    };
    let marks: Vec<(String, String, u64, f64)> = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("mark ")))
        .map(|n| {
            let x = n.attribute("x1").or(n.attribute("cx")).unwrap().parse::<f64>().unwrap();
            let kind = n.attribute("class").unwrap().split(' ').nth(1).unwrap().to_string();
            (n.attribute("data-dir").unwrap().to_string() + "/" + n.attribute("data-queue").unwrap(), kind, n.attribute("data-clock").unwrap().parse().unwrap(), x)
        })
        .collect();
    let mut want = vec![];
    for m in &r.pause_marks {
        for q in 0..nq {
            if m.queues >> q & 1 == 1 {
                let kind = if m.releases >> q & 1 == 1 { "release" } else { "pause" };
                want.push((format!("{}/{q}", ["AtoB", "BtoA"][m.dir]), kind.to_string(), m.clock));
            }
        }
    }
    assert!(want.iter().any(|w| w.1 == "pause") && want.iter().any(|w| w.1 == "release"), "{want:?}");
    // eth_isolation: B holds priority 1 (queue 1) alone.
    assert!(want.iter().all(|w| w.0 == "AtoB/1"), "{want:?}");
    assert_eq!(marks.iter().map(|m| (m.0.clone(), m.1.clone(), m.2)).collect::<Vec<_>>(), want);
    for m in &marks {
        assert!((px_to_clock(m.3) - m.2 as f64).abs() <= tp.x_top * 1e-4, "{m:?}");
    }
    assert!(svg.contains("<title>eth &lt;iso&gt;</title>"));
}
