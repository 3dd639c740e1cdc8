//! What a two-port run prints (`iblink sim` on a link-port scenario): the summary table of
//! a [`RunReport`], per direction the run's figures beside the reference model's
//! ([`ModelSummary`], judged by [`Comparison`]), per VL the shares against the
//! arbitration weights (docs/spec.md §6), then retrains, recovery and the run's own checks.
//! The Ethernet runs' summary is [`crate::eth::report`].

use super::compare::{Comparison, Verdict};
use super::model_run::ModelSummary;
use super::run::{DirReport, ResyncEvent, RunReport};
use super::scenario::Scenario;
use super::Direction;
// The failsafe's `resync_reason` codes (crates/rtl/src/failsafe/, docs/spec.md §8).
use iblink_rtl::failsafe::{REASON_NO_FC_UPDATE, REASON_OVERRUN};
use std::fmt::Write as _;

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
    let rows: [(&str, RunFig, ModelFig, Option<Apart>); 16] = [
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
            "PHY stalls (lost line time)",
            |x| pct(x.phy_stall_share()),
            |_, _| None,
            None,
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
            "ABR ≠ FCTBS (quiet clocks) ¹",
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
        "VL", "weight h/l", "weight ²", "A→B", "model", "B→A", "model", "max occ A→B", "max occ B→A"
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
    if r.a_to_b.disagreements + r.b_to_a.disagreements > 0 {
        let _ = writeln!(
            t,
            "¹ clocks at which, nothing of a VL in flight, the receiver's ABR differed from the sender's FCTBS: after a data packet is lost, ABR lags until the next FCP carries FCTBS across (docs/spec.md §4, §8), so a run with data loss counts every quiet clock of that wait"
        );
    }
    let _ = writeln!(
        t,
        "² the VL's share of the tables' weights (high + low): what weights alone would give; the arbiter sends whole packets, an entry with weight left sends one more, and the high table yields to the low after VLHighLimit (docs/spec.md §6), so the measured shares differ from it"
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
                REASON_NO_FC_UPDATE => "no FCP (update monitor)",
                REASON_OVERRUN => "overrun threshold",
                _ => "reason ?",
            }
        )
    };
    let names = |e: &ResyncEvent| match (e.by, e.also) {
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
