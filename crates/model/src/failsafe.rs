//! Failsafe mechanisms for non-transient faults (docs/spec.md §8, seed 001 "Failsafe
//! Mechanisms"): the transmitter-side flow-control update monitor and the receiver-side
//! buffer-overrun threshold, both of which request a link resync.
//!
//! Periods are measured in clocks of one *spec* FCP period, `65536 / W` clocks (the
//! longest a compliant peer may leave between FCPs for a VL, docs/spec.md §5), not this port's
//! own shorter refresh setting — the peer's is what is being monitored.

use crate::sl2vl::{VlCap, DATA_VLS};

/// Why a resync was requested.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResyncReason {
    /// No FCP arrived for `vl` for more than the configured number of FCP periods.
    NoFcUpdate { vl: u8 },
    /// `vl` had buffer overruns in more than the configured number of consecutive
    /// FCP periods.
    OverrunThreshold { vl: u8 },
}

/// Failsafe settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailsafeConfig {
    /// Clocks in one FCP period (`65536 / W`).
    pub period_clocks: u32,
    /// Update monitor: resync when no FCP for a VL for more than this many periods
    /// (0 disables the monitor).
    pub update_periods: u32,
    /// Overrun threshold: resync when overruns occur in more than this many consecutive
    /// periods.
    pub overrun_periods: u32,
}

/// Failsafe state, stepped once per clock while the link is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failsafe {
    cfg: FailsafeConfig,
    vl_cap: VlCap,
    /// Clocks since the last valid FCP received per VL.
    since_fcp: [u32; DATA_VLS],
    /// Clocks into the current period (one shared period clock for all VLs).
    period_timer: u32,
    /// Bit v: VL v had an overrun in the current period.
    overrun_mask: u16,
    /// Consecutive periods with overruns, per VL.
    consecutive: [u32; DATA_VLS],
}

impl Failsafe {
    pub fn new(vl_cap: VlCap, cfg: FailsafeConfig) -> Self {
        Self {
            cfg: FailsafeConfig {
                period_clocks: cfg.period_clocks.max(1),
                ..cfg
            },
            vl_cap,
            since_fcp: [0; DATA_VLS],
            period_timer: 0,
            overrun_mask: 0,
            consecutive: [0; DATA_VLS],
        }
    }
    /// Resync done: all monitors start over.
    pub fn reset(&mut self) {
        *self = Self::new(self.vl_cap, self.cfg);
    }
    pub fn config(&self) -> FailsafeConfig {
        self.cfg
    }
    /// A valid FCP for `vl` arrived.
    #[inline]
    pub fn on_fcp(&mut self, vl: u8) {
        self.since_fcp[vl as usize] = 0;
    }
    /// A data packet for `vl` was dropped for lack of buffer space.
    #[inline]
    pub fn on_overrun(&mut self, vl: u8) {
        self.overrun_mask |= 1 << vl;
    }
    pub fn consecutive_overrun_periods(&self, vl: u8) -> u32 {
        self.consecutive[vl as usize]
    }
    /// Bit v: VL v had a buffer overrun in the current period so far.
    pub fn overrun_mask(&self) -> u16 {
        self.overrun_mask
    }
    /// Clocks since the last valid FCP for `vl` (0 right after a reset), saturating.
    pub fn clocks_since_fcp(&self, vl: u8) -> u32 {
        self.since_fcp[vl as usize]
    }
    /// Clocks into the current period (`0..period_clocks`).
    pub fn period_timer(&self) -> u32 {
        self.period_timer
    }
    /// One clock passes; returns a resync request if a threshold is crossed (the
    /// update monitor first, lowest VL first).
    #[inline]
    pub fn tick(&mut self) -> Option<ResyncReason> {
        let n = self.vl_cap.get() as usize;
        let limit = self
            .cfg
            .update_periods
            .saturating_mul(self.cfg.period_clocks);
        let mut reason = None;
        for v in 0..n {
            self.since_fcp[v] = self.since_fcp[v].saturating_add(1);
            if self.cfg.update_periods > 0 && self.since_fcp[v] > limit && reason.is_none() {
                reason = Some(ResyncReason::NoFcUpdate { vl: v as u8 });
            }
        }
        self.period_timer += 1;
        if self.period_timer >= self.cfg.period_clocks {
            self.period_timer = 0;
            for v in 0..n {
                if self.overrun_mask & (1 << v) != 0 {
                    self.consecutive[v] += 1;
                    if self.consecutive[v] > self.cfg.overrun_periods && reason.is_none() {
                        reason = Some(ResyncReason::OverrunThreshold { vl: v as u8 });
                    }
                } else {
                    self.consecutive[v] = 0;
                }
            }
            self.overrun_mask = 0;
        }
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fs(update: u32, overrun: u32) -> Failsafe {
        Failsafe::new(
            VlCap::new(2).unwrap(),
            FailsafeConfig {
                period_clocks: 10,
                update_periods: update,
                overrun_periods: overrun,
            },
        )
    }

    #[test]
    fn update_monitor_fires_after_n_periods_without_fcp() {
        let mut f = fs(3, 100);
        for t in 1..=30 {
            if t % 5 == 0 {
                f.on_fcp(0);
            }
            assert_eq!(f.tick(), None, "clock {t}");
        }
        // VL1 has had no FCP for 30 clocks = 3 periods; the 31st clock is "more than".
        assert_eq!(f.tick(), Some(ResyncReason::NoFcUpdate { vl: 1 }));
    }

    #[test]
    fn overrun_threshold_needs_more_than_n_consecutive_periods() {
        let mut f = fs(0, 2);
        let mut fired = None;
        for period in 0..5 {
            for clk in 0..10 {
                if clk == 3 && period != 1 {
                    f.on_overrun(1);
                }
                if let Some(r) = f.tick() {
                    fired.get_or_insert((period, r));
                }
            }
        }
        // Overruns in periods 0, 2, 3, 4: period 1 breaks the run; 2, 3, 4 is three > 2.
        assert_eq!(fired, Some((4, ResyncReason::OverrunThreshold { vl: 1 })));
    }
}
