//! The failsafe in all three back ends, and a random stimulus that plays the FCP RX
//! framer and the RX credit block.
//!
//! RTL: [`iblink_rtl::failsafe`]; reference: [`iblink_model::failsafe::Failsafe`], driven
//! as the port model drives it (a trip resyncs the port, which resets the failsafe).

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::failsafe::{Failsafe, FailsafeConfig, ResyncReason};
use iblink_model::sl2vl::VlCap;
use iblink_rtl::catalog::failsafe_variant;
use iblink_rtl::failsafe::{
    spec_period_clocks, FailsafeIn, FailsafeOut, FailsafeTwin, REASON_NO_FC_UPDATE, REASON_OVERRUN,
};
use iblink_rtl::vl::VL_CAPS;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The model's configuration as the block's inputs carry it.
pub fn config_of(i: &FailsafeIn) -> FailsafeConfig {
    FailsafeConfig {
        period_clocks: i.period_clocks as u32,
        update_periods: i.update_periods as u32,
        overrun_periods: i.overrun_periods as u32,
    }
}

/// The reference model as a cycle simulation, in the block's cycle contract
/// ([`iblink_rtl::failsafe`]). Each clock is one model step: a new `Failsafe` with the
/// inputs' configuration if `reset` is set (or in the first clock), `on_fcp` and
/// `on_overrun` for the strobes of data VLs below VLCap, then `tick`; a trip resets the
/// model at once (the port's resync). The status outputs during the next clock are the
/// model's state after the tick (before that reset); the tick's reason shows as
/// `resync_req` two clocks later.
pub struct FailsafeModelSim {
    vl_cap: VlCap,
    fs: Option<Failsafe>,
    /// Outputs as registered at the last edge.
    out: FailsafeOut,
    /// The reason the previous clock's tick returned (the block's registered trips).
    trip_q: Option<ResyncReason>,
    /// What this clock's tick returned (for coverage counting).
    last_tick: Option<ResyncReason>,
}

impl FailsafeModelSim {
    pub fn new(vls: usize) -> Self {
        Self {
            vl_cap: VlCap::new(vls as u64).expect("VLCap"),
            fs: None,
            out: FailsafeOut::default(),
            trip_q: None,
            last_tick: None,
        }
    }
    pub fn vls(&self) -> usize {
        self.vl_cap.get() as usize
    }
    /// The model as it stands between clocks (`None` before the first clock).
    pub fn model(&self) -> Option<&Failsafe> {
        self.fs.as_ref()
    }
    /// What the last clock's tick returned.
    pub fn last_tick(&self) -> Option<ResyncReason> {
        self.last_tick
    }
}

/// `(resync_reason, resync_vl)` for a reason.
pub fn reason_bits(r: ResyncReason) -> (u8, u8) {
    match r {
        ResyncReason::NoFcUpdate { vl } => (REASON_NO_FC_UPDATE, vl),
        ResyncReason::OverrunThreshold { vl } => (REASON_OVERRUN, vl),
    }
}

impl CycleSim for FailsafeModelSim {
    type In = FailsafeIn;
    type Out = FailsafeOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &FailsafeIn) -> FailsafeOut {
        let shown = self.out;
        let n = self.vls();
        let mut next = self.out;
        // The request register: the previous clock's trip.
        next.resync_req = self.trip_q.is_some();
        if let Some(r) = self.trip_q {
            (next.resync_reason, next.resync_vl) = reason_bits(r);
        }
        if i.reset || self.fs.is_none() {
            self.fs = Some(Failsafe::new(self.vl_cap, config_of(i)));
        }
        let fs = self.fs.as_mut().expect("built above");
        if i.upd_valid && ((i.upd_vl & 0xf) as usize) < n {
            fs.on_fcp(i.upd_vl & 0xf);
        }
        if i.overrun && ((i.overrun_vl & 0xf) as usize) < n {
            fs.on_overrun(i.overrun_vl & 0xf);
        }
        let r = fs.tick();
        // Status: the state after this tick, before the port's resync.
        let period = fs.config().period_clocks;
        next.overrun_seen = fs.overrun_mask() & ((1u32 << n) - 1) as u16;
        next.overrun_run = 0;
        next.fcp_late = 0;
        for v in 0..n as u8 {
            next.overrun_run |= ((fs.consecutive_overrun_periods(v) > 0) as u16) << v;
            next.fcp_late |= ((fs.clocks_since_fcp(v) > period) as u16) << v;
        }
        if r.is_some() {
            // The port resyncs: link resync resets the failsafe (PortModel::step).
            fs.reset();
        }
        self.trip_q = r;
        self.last_tick = r;
        self.out = next;
        shown
    }
}

pub type FailsafeSim = Box<dyn CycleSim<In = FailsafeIn, Out = FailsafeOut>>;

/// The failsafe for VLCap `vls` in back end `b`, optionally writing a VCD.
pub fn failsafe_sim(vls: usize, b: Backend, vcd: Option<&Path>) -> Result<FailsafeSim, SimBuildError> {
    if !VL_CAPS.contains(&vls) {
        return Err(SimBuildError::VlCap(vls));
    }
    match b {
        Backend::Model => Ok(Box::new(FailsafeModelSim::new(vls))),
        _ => iblink_rtl::with_failsafe!(vls, |T| twin_box::<_, T>(b, FailsafeTwin::new(vls), || failsafe_variant(vls), vcd),
            _ => Err(SimBuildError::VlCap(vls))),
    }
}

/// How one VL's peer sends FCPs during an epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FcpMode {
    /// Each FCP when the clocks since the last reach a random target within the limit.
    Regular,
    /// Each FCP in the last clock that still avoids a trip, or one clock too late.
    Edge,
    /// No FCPs at all: the update monitor trips.
    Silent,
}

/// How one VL's receive buffer overruns during an epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OverrunMode {
    /// No overruns (the other VLs while one runs up a threshold in the thousands).
    Never,
    Quiet,
    /// Overruns in most periods.
    Burst,
    /// Runs of exactly `overrun_periods` periods (the most that does not trip), now and
    /// then one more.
    Edge,
}

/// What the stimulus generated, for coverage asserts.
#[derive(Clone, Copy, Debug, Default)]
pub struct FailsafeStimStats {
    pub epochs: u64,
    pub resets: u64,
    pub held_resets: u64,
    pub fcps: u64,
    pub overruns: u64,
    pub junk_strobes: u64,
}

/// Random stimulus: epochs of a few thousand clocks, each starting with a reset that
/// loads a new configuration (short periods of 1 to a few hundred clocks so thresholds
/// trip often, sometimes the spec's 8192/16384, sometimes period 1 with update or
/// overrun thresholds in the thousands for the counters' high bits, sometimes the
/// monitor off). Per VL, FCPs come regularly, at the last clock before a trip (or one
/// too late), or not at all; overruns come rarely, in bursts over consecutive periods,
/// or in runs of exactly the threshold. One strobe of each kind a clock, so VLs compete;
/// strobes for VLs at or above VLCap are mixed in; resets also come mid-epoch, some held
/// for several clocks. The generator keeps its own copy of the model to aim at edges.
pub struct FailsafeStimulus {
    rng: ChaCha8Rng,
    vls: usize,
    mirror: FailsafeModelSim,
    cfg: FailsafeIn,
    epoch_left: u32,
    held: u32,
    mid_resets: bool,
    solo_turn: usize,
    /// Per VL: update-monitor trips so far (from the mirror), so the silent turn goes
    /// to the VL that has tripped least: 15 VLs share fewer than 100 epochs a million clocks.
    update_trips: [u64; 15],
    fcp_mode: [FcpMode; 15],
    fcp_target: [u32; 15],
    ovr_mode: [OverrunMode; 15],
    /// Per VL: overruns wanted in the current period.
    ovr_want: [bool; 15],
    pub stats: FailsafeStimStats,
}

impl FailsafeStimulus {
    pub fn new(vls: usize, seed: u64) -> Self {
        let mut s = Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vls,
            mirror: FailsafeModelSim::new(vls),
            cfg: FailsafeIn::default(),
            epoch_left: 0,
            held: 0,
            mid_resets: true,
            solo_turn: 0,
            update_trips: [0; 15],
            fcp_mode: [FcpMode::Regular; 15],
            fcp_target: [0; 15],
            ovr_mode: [OverrunMode::Quiet; 15],
            ovr_want: [false; 15],
            stats: FailsafeStimStats::default(),
        };
        s.new_epoch();
        s
    }

    fn new_epoch(&mut self) {
        // The kinds of epoch (arms of the match below) come round in a fixed rotation, so
        // every kind, rare ones included, recurs several times in a million clocks.
        const ROTATION: [u32; 12] = [0, 10, 15, 20, 32, 40, 80, 15, 25, 50, 12, 60];
        let kind = ROTATION[self.stats.epochs as usize % ROTATION.len()];
        let r = &mut self.rng;
        // A threshold in the thousands, or near the top of the 16-bit range.
        let big = |r: &mut ChaCha8Rng| {
            if r.gen_ratio(1, 6) {
                r.gen_range(60_000..=u16::MAX)
            } else {
                r.gen_range(256..2048)
            }
        };
        let (p, u, o, mut len): (u16, u16, u16, u32) = match kind {
            // The spec's periods (docs/spec.md §5): one or two periods of silence trip.
            0..=9 => (
                spec_period_clocks(if r.gen() { 32 } else { 64 }),
                r.gen_range(0..=2),
                r.gen_range(0..=1),
                r.gen_range(30_000..60_000),
            ),
            // Period 1 (or 0, which acts as 1) with thresholds in the thousands: the
            // counters' high bits.
            10..=14 => (r.gen_range(0..=1), big(r), big(r), r.gen_range(5_000..10_000)),
            // Period 1 and overrun threshold 0: an overrun trips in the clock it arrives,
            // also in the clock that starts from the reset state.
            15..=19 => (r.gen_range(0..=1), r.gen_range(1..=2), 0, r.gen_range(300..2_000)),
            20..=31 => (r.gen_range(1..=3), r.gen_range(0..=6), r.gen_range(0..=2), r.gen_range(500..3_000)),
            32..=79 => (r.gen_range(2..=64), r.gen_range(0..=4), r.gen_range(0..=3), r.gen_range(1_000..8_000)),
            _ => (r.gen_range(65..=400), r.gen_range(0..=3), r.gen_range(0..=3), r.gen_range(3_000..15_000)),
        };
        if u.max(o) >= 60_000 {
            // Long enough for one run up to the threshold.
            len = 70_000;
        }
        // The monitor off in two epochs of the rotation and now and then elsewhere (never
        // at the spec period, where its trips are the point).
        let spec = kind < 10;
        let off = matches!(kind, 40 | 60) || !spec && r.gen_ratio(1, 10);
        let u = if off { 0 } else { u.max(1) };
        self.cfg = FailsafeIn {
            period_clocks: p,
            update_periods: u,
            overrun_periods: o,
            ..Default::default()
        };
        self.epoch_left = len;
        // Either trip resets both monitors, so most epochs let one of them run alone.
        // FCP modes: Regular, Edge, Silent; overrun modes: Never, Quiet, Burst, Edge (%).
        let focus = if (15..=19).contains(&kind) { 80 } else { r.gen_range(0..100) };
        let (fcp_pct, ovr_pct): ([u32; 3], [u32; 4]) = match focus {
            0..=34 => ([40, 35, 25], [70, 30, 0, 0]),
            35..=64 => ([100, 0, 0], [0, 30, 35, 35]),
            _ => ([55, 30, 15], [0, 50, 25, 25]),
        };
        for v in 0..15 {
            let x = r.gen_range(0..100);
            self.fcp_mode[v] = if x < fcp_pct[0] {
                FcpMode::Regular
            } else if x < fcp_pct[0] + fcp_pct[1] {
                FcpMode::Edge
            } else {
                FcpMode::Silent
            };
            let x = r.gen_range(0..100);
            self.ovr_mode[v] = if x < ovr_pct[0] {
                OverrunMode::Never
            } else if x < ovr_pct[0] + ovr_pct[1] {
                OverrunMode::Quiet
            } else if x < ovr_pct[0] + ovr_pct[1] + ovr_pct[2] {
                OverrunMode::Burst
            } else {
                OverrunMode::Edge
            };
            self.ovr_want[v] = false;
        }
        // One VL alone runs up the overrun threshold (one strobe a clock at period 1),
        // and one VL alone misses its FCPs, so every VL gets to trip, not only the lowest
        // (the lowest VL wins when several trip at once).
        let solo_epoch = kind < 15;
        self.mid_resets = !solo_epoch;
        if solo_epoch {
            let solo = r.gen_range(0..self.vls);
            for (v, m) in self.ovr_mode.iter_mut().enumerate() {
                *m = if v == solo {
                    if r.gen_ratio(1, 4) { OverrunMode::Burst } else { OverrunMode::Edge }
                } else {
                    OverrunMode::Never
                };
            }
        }
        // Only where the limit leaves room for every other VL's FCPs (one strobe a
        // clock): otherwise the others starve and trip with it, and the lowest wins.
        let roomy = (p.max(1) as u32) * (u as u32) >= 4 * self.vls as u32;
        if off || roomy && (solo_epoch || !(35..65).contains(&focus) && r.gen_ratio(1, 2)) {
            // The silent VL takes turns, so every VL trips on its own, lowest or not.
            let start = self.solo_turn % self.vls;
            let quiet = (0..self.vls)
                .map(|k| (start + k) % self.vls)
                .min_by_key(|&v| self.update_trips[v])
                .unwrap_or(0);
            self.solo_turn += 1;
            for (v, m) in self.fcp_mode.iter_mut().enumerate() {
                *m = if v == quiet { FcpMode::Silent } else { FcpMode::Regular };
            }
            // Overrun trips would reset the monitor before it counts up, except where
            // both thresholds take thousands of clocks; at the spec period, every other
            // turn leaves the overrun VL running.
            let keep = (10..=14).contains(&kind) || spec && self.solo_turn % 2 == 0;
            if !keep && !off {
                self.ovr_mode = [OverrunMode::Never; 15];
            }
        }
        if (15..=19).contains(&kind) {
            // One VL both silent and overrunning: at period 1 both trips fall due in
            // one clock (the update monitor's has priority).
            // The others keep quiet, or their overrun trips (threshold 0) would come first.
            let both = r.gen_range(0..self.vls);
            self.fcp_mode = [FcpMode::Regular; 15];
            self.ovr_mode = [OverrunMode::Never; 15];
            self.fcp_mode[both] = FcpMode::Silent;
            self.ovr_mode[both] = OverrunMode::Burst;
        }
        self.stats.epochs += 1;
        // Fresh targets are picked on the first clock (clocks since FCP are 0 then).
        self.fcp_target = [0; 15];
    }

    /// Clocks without an FCP the monitor allows: `update_periods * period`.
    fn limit(&self) -> u32 {
        let p = (self.cfg.period_clocks as u32).max(1);
        let u = if self.cfg.update_periods == 0 { 3 } else { self.cfg.update_periods as u32 };
        u * p
    }

    /// A new FCP target (clocks since the last FCP, as they stand before the clock that
    /// sends it) for VL `v`.
    fn pick_target(&mut self, v: usize) {
        let limit = self.limit();
        self.fcp_target[v] = match self.fcp_mode[v] {
            FcpMode::Regular => self.rng.gen_range(1..=limit),
            // The last clock that avoids the trip is the one that starts at `limit`.
            FcpMode::Edge => {
                if self.rng.gen_ratio(3, 4) {
                    limit
                } else {
                    limit + 1
                }
            }
            FcpMode::Silent => u32::MAX,
        };
    }
}

impl Iterator for FailsafeStimulus {
    type Item = FailsafeIn;
    fn next(&mut self) -> Option<FailsafeIn> {
        let mut i = self.cfg;
        if self.held > 0 {
            self.held -= 1;
            i.reset = true;
        } else if self.epoch_left == 0 {
            self.new_epoch();
            i = self.cfg;
            i.reset = true;
            self.stats.resets += 1;
            if self.rng.gen_ratio(1, 3) {
                self.held = self.rng.gen_range(1..=3);
                self.stats.held_resets += 1;
            }
        } else if self.mid_resets && self.rng.gen_ratio(1, 5_000) {
            // A resync from elsewhere (the peer's), same configuration. Not in epochs
            // whose thresholds take tens of thousands of clocks to reach.
            i.reset = true;
            self.stats.resets += 1;
        }
        self.epoch_left = self.epoch_left.saturating_sub(1);
        let n = self.vls;
        let fs = self.mirror.model().copied();
        // Clocks since each VL's FCP as this clock starts (0 after a reset).
        let since = |v: usize| match (&fs, i.reset) {
            (Some(f), false) => f.clocks_since_fcp(v as u8),
            _ => 0,
        };
        // FCPs: the VLs that are due compete for the one strobe.
        let mut due = Vec::with_capacity(n);
        for v in 0..n {
            let s = since(v);
            if s == 0 || self.fcp_target[v] == 0 {
                self.pick_target(v);
            }
            if s >= self.fcp_target[v] {
                due.push(v);
            }
        }
        if !due.is_empty() && !self.rng.gen_ratio(1, 50) {
            let v = due[self.rng.gen_range(0..due.len())];
            i.upd_valid = true;
            i.upd_vl = v as u8;
            self.stats.fcps += 1;
            self.pick_target(v);
        } else if self.rng.gen_ratio(1, 40) {
            // A strobe the block must ignore (a VL it lacks), or a VL field without strobe.
            i.upd_valid = n < 16 && self.rng.gen();
            i.upd_vl = self.rng.gen_range(n as u8..16);
            if !i.upd_valid {
                i.upd_vl = self.rng.gen_range(0..16);
            }
            self.stats.junk_strobes += 1;
        }
        // Overruns: decide per period which VLs overrun in it.
        let (timer, mask, p) = match (&fs, i.reset) {
            (Some(f), false) => (f.period_timer(), f.overrun_mask(), f.config().period_clocks),
            _ => (0, 0, (i.period_clocks as u32).max(1)),
        };
        if timer == 0 {
            for v in 0..n {
                let consec = match (&fs, i.reset) {
                    (Some(f), false) => f.consecutive_overrun_periods(v as u8),
                    _ => 0,
                };
                self.ovr_want[v] = match self.ovr_mode[v] {
                    OverrunMode::Never => false,
                    OverrunMode::Quiet => self.rng.gen_ratio(1, 200),
                    OverrunMode::Burst => self.rng.gen_ratio(9, 10),
                    OverrunMode::Edge => {
                        consec < i.overrun_periods as u32 || self.rng.gen_ratio(1, 4)
                    }
                };
                if self.ovr_mode[v] != OverrunMode::Never && self.rng.gen_ratio(1, 500) {
                    self.ovr_mode[v] = match self.rng.gen_range(0..3) {
                        0 => OverrunMode::Quiet,
                        1 => OverrunMode::Burst,
                        _ => OverrunMode::Edge,
                    };
                }
            }
        }
        let left = p - timer; // clocks left in this period, this one included
        let pending: Vec<usize> = (0..n).filter(|&v| self.ovr_want[v] && (mask >> v) & 1 == 0).collect();
        if !pending.is_empty() && (left as usize <= pending.len() || self.rng.gen_ratio(1, 3)) {
            let v = pending[self.rng.gen_range(0..pending.len())];
            i.overrun = true;
            i.overrun_vl = v as u8;
            self.stats.overruns += 1;
        } else if self.rng.gen_ratio(1, 30) {
            // Another overrun on a VL already marked, one the block lacks, or junk VL bits.
            i.overrun = true;
            i.overrun_vl = self.rng.gen_range(0..16);
            if (i.overrun_vl as usize) < n && self.ovr_want[i.overrun_vl as usize] {
                self.stats.overruns += 1;
            } else if (i.overrun_vl as usize) < n {
                i.overrun = false;
            } else {
                self.stats.junk_strobes += 1;
            }
        }
        self.mirror.step(&i);
        if let Some(ResyncReason::NoFcUpdate { vl }) = self.mirror.last_tick() {
            self.update_trips[vl as usize] += 1;
        }
        Some(i)
    }
}
