//! The reference model's figures beside the RTL run's (`iblink sim`'s model columns):
//! which agree, which differ by what the two runs' different faults explain, and which
//! differ beyond that.
//!
//! Both runs draw each item's fate from the item's identity ([`super::faults`]), so as
//! long as they retrain at the same clocks they meet the same faults and their figures
//! must agree within the tolerances below. A retrain only one run makes (the update
//! monitor trips when a few FCPs in a row are lost for a VL, and which FCPs those are
//! depends on the clock-level timing the model does not have) costs that run
//! `activate_after + arm_clocks` clocks with no data, then whatever the credit its lost
//! init and refresh FCPs hold back costs; from there on the runs' FCPs carry different
//! FCCLs and meet different draws, so the rest of the two runs differ as two runs with
//! independent faults do. The comparison then checks the stretch before that first
//! unshared retrain instead, and calls the later difference the draws'.

use super::bins::BUSY_BIN;
use super::model_run::ModelSummary;
use super::run::{DirReport, RunReport};

/// Link busy (and data, FCP words, a VL's share) must agree within 2 percentage points.
pub const PERCENT_POINTS: f64 = 0.02;

/// A retrain of one run within this many clocks of one of the other run is the same
/// retrain: the update monitor's trip follows the last FCP that got through, whose clock
/// differs between the runs by up to a packet or two (1048 dwords at 32 bits: 1048 clocks).
pub const RETRAIN_SLACK: u64 = 4096;

/// What the comparison says about one figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within its tolerance.
    Agree,
    /// Beyond its tolerance, after the runs retrained differently: the fault draws.
    Draws,
    /// Beyond its tolerance with nothing to explain it.
    Unexplained,
}

impl Verdict {
    /// The mark after a model figure: none, `~` (the fault draws) or `!` (unexplained).
    pub fn mark(self) -> &'static str {
        match self {
            Verdict::Agree => "",
            Verdict::Draws => " ~",
            Verdict::Unexplained => " !",
        }
    }
}

/// The comparison of one run with the model's run of the same scenario.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Retrain clocks of each run.
    pub rtl_retrains: Vec<u64>,
    pub model_retrains: Vec<u64>,
    /// Retrains the runs share (in order, each within [`RETRAIN_SLACK`]) before the
    /// first one only one run made.
    pub shared: usize,
    /// The first retrain only one run made.
    pub parted_at: Option<u64>,
    /// Link busy per direction, (RTL, model), over the measured window.
    pub busy: [(f64, f64); 2],
    /// When the runs parted: the last clock (a multiple of [`BUSY_BIN`]) of the stretch
    /// before, and link busy per direction over it, (RTL, model); `None` also when that
    /// stretch has no measured clock.
    pub busy_before: Option<(u64, [(f64, f64); 2])>,
}

/// Busy fraction over the bins below `end`.
fn frac(busy: &[u32], measured: &[u32], end: usize) -> Option<f64> {
    let n: u64 = measured.iter().take(end).map(|&x| x as u64).sum();
    let b: u64 = busy.iter().take(end).map(|&x| x as u64).sum();
    (n > 0).then(|| b as f64 / n as f64)
}

impl Comparison {
    pub fn new(r: &RunReport, m: &ModelSummary) -> Self {
        let rtl_retrains: Vec<u64> = r.resyncs.iter().map(|e| e.clock).collect();
        let model_retrains: Vec<u64> = m.retrains.iter().map(|e| e.0).collect();
        let mut shared = 0;
        let mut parted_at = None;
        loop {
            match (rtl_retrains.get(shared), model_retrains.get(shared)) {
                (None, None) => break,
                (Some(&a), Some(&b)) if a.abs_diff(b) <= RETRAIN_SLACK => shared += 1,
                (a, b) => {
                    parted_at = a.into_iter().chain(b).min().copied();
                    break;
                }
            }
        }
        let dirs = [&r.a_to_b, &r.b_to_a];
        let busy = [0, 1].map(|k| (dirs[k].utilisation(), m.utilisation(k)));
        let busy_before = parted_at.and_then(|at| {
            let end = (at / BUSY_BIN) as usize;
            let f = |k: usize| -> Option<(f64, f64)> {
                let d: &DirReport = dirs[k];
                Some((frac(&d.busy_bins, &d.measured_bins, end)?, frac(&m.busy_bins[k], &m.measured_bins, end)?))
            };
            Some((end as u64 * BUSY_BIN, [f(0)?, f(1)?]))
        });
        Self {
            rtl_retrains,
            model_retrains,
            shared,
            parted_at,
            busy,
            busy_before,
        }
    }

    /// The verdict on a figure whose two values differ beyond its tolerance or not.
    pub fn verdict(&self, beyond: bool) -> Verdict {
        match (beyond, self.parted_at) {
            (false, _) => Verdict::Agree,
            (true, Some(_)) => Verdict::Draws,
            (true, None) => Verdict::Unexplained,
        }
    }

    /// Link busy in direction `k` (0: A→B): within [`PERCENT_POINTS`]; or, when the runs
    /// retrained differently, within it over the stretch before they parted (the rest
    /// is the draws').
    pub fn busy_verdict(&self, k: usize) -> Verdict {
        let within = |(a, b): (f64, f64)| (a - b).abs() <= PERCENT_POINTS;
        if within(self.busy[k]) {
            return Verdict::Agree;
        }
        match self.busy_before {
            Some((_, before)) if within(before[k]) => Verdict::Draws,
            _ => Verdict::Unexplained,
        }
    }

    /// Whether two percentages (fractions) differ by more than [`PERCENT_POINTS`].
    pub fn points_apart(a: f64, b: f64) -> bool {
        (a - b).abs() > PERCENT_POINTS
    }

    /// Whether two counts differ by more than `abs` or than `rel` of the larger,
    /// whichever allows more.
    pub fn counts_apart(a: u64, b: u64, abs: u64, rel: f64) -> bool {
        a.abs_diff(b) as f64 > (abs as f64).max(rel * a.max(b) as f64)
    }

    /// What the summary says about the comparison; `retrain_clocks` is a retrain's
    /// clocks without data (`activate_after + arm_clocks`).
    pub fn note(&self, retrain_clocks: u64) -> String {
        let pct = |x: f64| format!("{:.2} %", 100.0 * x);
        let list = |v: &[u64]| {
            let mut s: Vec<String> = v.iter().take(8).map(|c| c.to_string()).collect();
            if v.len() > 8 {
                s.push("...".into());
            }
            s.join(", ")
        };
        let verdicts = [self.busy_verdict(0), self.busy_verdict(1)];
        match self.parted_at {
            None => {
                let same = if self.rtl_retrains.is_empty() {
                    "no retrain in either run".to_string()
                } else {
                    format!("the same {} retrain(s) (within {RETRAIN_SLACK} clocks), so both met the same faults", self.shared)
                };
                let tail = if verdicts.contains(&Verdict::Unexplained) {
                    "link busy differs by more than 2 points (marked !)"
                } else {
                    "link busy within 2 points in both directions"
                };
                format!("model vs RTL: {same}; {tail}")
            }
            Some(at) => {
                let mut s = format!(
                    "model vs RTL: the runs retrain differently from clock {at} (RTL {}: {}; model {}: {}); a retrain costs {retrain_clocks} clocks with no data (activate_after + arm_clocks) and the credit its lost FCPs hold back, and from there the runs' FCPs meet different fault draws",
                    self.rtl_retrains.len(),
                    list(&self.rtl_retrains),
                    self.model_retrains.len(),
                    list(&self.model_retrains)
                );
                match self.busy_before {
                    Some((end, before)) => {
                        let within = before.iter().all(|&(a, b)| (a - b).abs() <= PERCENT_POINTS);
                        s += &format!(
                            ". Before clock {end}: link busy A→B {} (model {}), B→A {} (model {}): {}",
                            pct(before[0].0),
                            pct(before[0].1),
                            pct(before[1].0),
                            pct(before[1].1),
                            if within {
                                "within 2 points, so what differs after (marked ~) is the fault draws'"
                            } else {
                                "NOT within 2 points (marked !)"
                            }
                        );
                    }
                    None => s += "; nothing was measured before that clock (marked ~ where they differ)",
                }
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::run::ResyncEvent;

    fn report(retrains: &[u64], busy: [u32; 4]) -> RunReport {
        let mut r = RunReport {
            resyncs: retrains.iter().map(|&clock| ResyncEvent { clock, by: None, also: None }).collect(),
            ..Default::default()
        };
        for d in [&mut r.a_to_b, &mut r.b_to_a] {
            d.window_clocks = 4 * BUSY_BIN;
            d.measured_bins = vec![BUSY_BIN as u32; 4];
            d.busy_bins = busy.to_vec();
            d.busy_clocks = busy.iter().map(|&b| b as u64).sum();
        }
        r
    }

    fn model(retrains: &[u64], busy: [u32; 4]) -> ModelSummary {
        ModelSummary {
            retrains: retrains.iter().map(|&c| (c, None)).collect(),
            window_clocks: 4 * BUSY_BIN,
            measured_bins: vec![BUSY_BIN as u32; 4],
            busy_bins: [busy.to_vec(), busy.to_vec()],
            busy_clocks: [busy.iter().map(|&b| b as u64).sum(); 2],
            ..Default::default()
        }
    }

    #[test]
    fn same_retrains_must_agree() {
        // 90 % against 90.5 %: within 2 points.
        let c = Comparison::new(&report(&[1500], [900; 4]), &model(&[1510], [905; 4]));
        assert_eq!((c.shared, c.parted_at), (1, None));
        assert_eq!(c.busy_verdict(0), Verdict::Agree);
        // 90 % against 85 % with the same retrains: nothing explains it.
        let c = Comparison::new(&report(&[1500], [900; 4]), &model(&[1510], [850; 4]));
        assert_eq!(c.busy_verdict(1), Verdict::Unexplained);
        assert_eq!(c.verdict(true), Verdict::Unexplained);
        assert!(c.note(664).contains("marked !"));
    }

    #[test]
    fn parted_runs_are_judged_before_they_part() {
        // The model retrains once more at clock 2500: bins 0 and 1 (clocks 0..2000) are
        // before it. Equal there, apart after: the draws.
        let c = Comparison::new(&report(&[900], [900, 900, 900, 900]), &model(&[950, 2500], [900, 905, 500, 500]));
        assert_eq!((c.shared, c.parted_at), (1, Some(2500)));
        let (end, before) = c.busy_before.unwrap();
        assert_eq!(end, 2000);
        assert!((before[0].1 - 0.9025).abs() < 1e-9);
        assert_eq!(c.busy_verdict(0), Verdict::Draws);
        assert_eq!(c.verdict(true), Verdict::Draws);
        assert!(c.note(664).contains("within 2 points, so what differs after (marked ~)"), "{}", c.note(664));
        // Apart before they parted too: unexplained.
        let c = Comparison::new(&report(&[], [900, 900, 900, 900]), &model(&[3500], [700, 700, 700, 700]));
        assert_eq!(c.busy_verdict(0), Verdict::Unexplained);
        // A retrain of one run far from the other's is not shared.
        let c = Comparison::new(&report(&[10_000], [900; 4]), &model(&[10_000 + RETRAIN_SLACK + 1], [900; 4]));
        assert_eq!((c.shared, c.parted_at), (0, Some(10_000)));
    }

    #[test]
    fn count_tolerances() {
        assert!(!Comparison::counts_apart(100, 103, 3, 0.0));
        assert!(Comparison::counts_apart(100, 104, 3, 0.0));
        assert!(!Comparison::counts_apart(1000, 1040, 3, 0.05));
        assert!(Comparison::points_apart(0.90, 0.8799));
        assert!(!Comparison::points_apart(0.90, 0.8801));
    }
}
