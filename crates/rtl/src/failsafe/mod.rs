//! Failsafe (docs/spec.md §8; seed 001 "Failsafe Mechanisms"): the transmitter-detected
//! flow-control update monitor and the receiver-detected buffer-overrun threshold, both
//! of which request a link resync.
//!
//! In this folder: the Verilog module `iblink_failsafe.v` (parameter `VLS`), and here its
//! Rust cycle twin [`FailsafeTwin`], the rust-hdl block [`FailsafeUnit`] (ports,
//! emission) and the port binding. Reference model: `iblink_model::failsafe::Failsafe`
//! as the port model drives it (`iblink_model::port`: a trip resyncs the port, and the
//! resync resets the failsafe); lockstep of model, twin and Verilator:
//! `crates/sim/tests/lockstep/failsafe.rs` (stimulus: `crates/sim/src/blocks/failsafe.rs`).
//!
//! # Interface (VLCap `N` data VLs, a generation-time parameter)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | link init / resync (docs/spec.md §8): the model's `reset()`, applied as this clock starts; this clock's strobes still count (see the cycle contract) |
//! | `upd_valid`, `upd_vl` | in | a good FCP for `upd_vl` (4 bits) arrived: the FCP RX framer's `upd_valid`/`upd_vl` strobe (model `on_fcp`) |
//! | `overrun`, `overrun_vl` | in | a data packet for `overrun_vl` (4 bits) was dropped for lack of buffer space: the RX credit block's `dropped`, with the VL of the accept it answers (the port registers `accept_vl` alongside, since `dropped` comes a clock after the accept) (model `on_overrun`) |
//! | `period_clocks` | in | 16 bits: clocks in one FCP period, the spec's 65,536 symbol times: `65536 / W` = **16384** at 32 bits, **8192** at 64 (model `FailsafeConfig::period_clocks`; 0 acts as 1, as in the model) |
//! | `update_periods` | in | 16 bits: resync when no FCP arrives for a VL for more than this many periods; 0 disables the monitor (`PortConfig::update_monitor_periods`, 0..=65535) |
//! | `overrun_periods` | in | 16 bits: resync when a VL has overruns in more than this many consecutive periods (`PortConfig::overrun_periods`, 0..=65535) |
//! | `resync_req` | out | **one-clock strobe**: the failsafe tripped; the port resyncs (resets its credit blocks, restarts with flow-control init FCPs) |
//! | `resync_reason` | out | why, held until the next request: 0 = no flow-control update (update monitor), 1 = overrun threshold |
//! | `resync_vl` | out | 4 bits: the VL that tripped, held with `resync_reason` (the model's order: the update monitor before the overrun threshold, then the lowest VL) |
//! | `overrun_seen` | out | `N` bits: VL `v` had an overrun in the current period so far (sticky until the period ends; the model's `overrun_mask`) |
//! | `overrun_run` | out | `N` bits: VL `v`'s last period ended with overruns (the model's `consecutive_overrun_periods(v) > 0`): one more than `overrun_periods` such periods in a row trips |
//! | `fcp_late` | out | `N` bits: no FCP for VL `v` for more than one period (`clocks_since_fcp(v) > period_clocks`), also while the monitor is off |
//!
//! Strobes for VLs at or above VLCap (VL15 included) are ignored. The configuration
//! inputs are read every clock; change them only in a clock with `reset` set (the model
//! takes its configuration at `reset`; between resets the per-VL state was set up under
//! the old values).
//!
//! # Cycle contract
//! Clock `t` is one model step: `reset()` if `reset` is set in clock `t`, then `on_fcp`,
//! `on_overrun` for this clock's strobes, then `tick()`; when `tick` returns a reason the
//! port resyncs, which resets the failsafe (model: `PortModel::step`). So:
//! - `resync_req` is set during clock `t + 2` when clock `t`'s tick trips, with
//!   `resync_reason` and `resync_vl` (latency 2). The block resets **itself** after a
//!   trip: clock `t + 1` already starts from the reset state (as the port model's next
//!   step does). The port need not feed `resync_req` back into `reset`; doing so is
//!   harmless (a reset of the reset state).
//! - `overrun_seen`, `overrun_run` and `fcp_late` during clock `t + 1` are the state after
//!   clock `t`'s tick (latency 1); after a trip, the state that tripped (the clock after
//!   shows the reset state).
//! - A clock with `reset` is a whole step from the reset state: in it the period clock
//!   starts at 0, every VL counts as just refreshed, and an overrun strobe marks the
//!   new period. Held for several clocks, the block stays one clock out of reset.
//! - The first clock after power-up acts as a reset (the per-VL counts load from
//!   `update_periods`), so the block matches a freshly built model from clock 0.
//! - Registered: the period clock `timer` and `end_q` (the period ends with this clock,
//!   computed a clock ahead, against `p_m2` = `period_clocks` - 2, last clock's
//!   configuration), with `timer_m1` (`timer` - 1) and `timer_is0`; `monitor_on`
//!   (`update_periods` != 0, last clock's configuration); per VL `phase_m1` and
//!   `phase_is0` (the phase below, kept as phase - 1 and a zero flag), `at_phase`
//!   (`timer` == phase, computed a clock ahead), `upd_left` and `upd_is1` (`upd_left`
//!   == 1, a clock ahead), `late`, `seen`, `run`, `consec` and `at_thr` (`consec` ==
//!   `overrun_periods`, a clock ahead, with the global `op_m1` = `overrun_periods` - 1),
//!   and this clock's trips `trip_u` (update monitor) and `trip` (any); `started`; the
//!   outputs.
//!
//! # How the update monitor counts without a timer per VL
//! The model counts clocks since each VL's last FCP and trips when the count passes
//! `update_periods × period_clocks`: a multiplier and a 32-bit counter per VL. Here the
//! one shared period clock (`timer`, which the overrun threshold needs anyway) does the
//! counting: an FCP for VL `v` stores `timer` as `phase`; every later clock where `timer`
//! equals `phase` again is a whole period since that FCP (a *boundary*), and
//! `upd_left` (loaded with `update_periods`) counts boundaries down. The trip is the
//! boundary that finds `upd_left == 1`: exactly `update_periods × period_clocks` clocks
//! after the FCP, where the model's count first exceeds the limit; `fcp_late` is the first
//! boundary. Per VL that is a 16-bit compare and a 16-bit down counter (the model's
//! information, `log2(P) + log2(U)` bits, no more). The compare is made a clock ahead
//! and registered (`at_phase`): the next `timer` is 0, 1 or `timer + 1`, so it is
//! `timer == phase - 1` outside the two special cases, with `phase - 1` stored instead
//! of the phase (no adder in front of it). `upd_left == 1` is registered the same way,
//! so a boundary and its trip are a few gates behind flip-flops, not a compare and a
//! carry chain.
//!
//! # Why the trip resets the block a clock later, and `resync_req` comes a clock after that
//! A trip is an OR over every VL's 16-bit compares; resetting every register with it in
//! the same clock would put the compares, the OR and the reset muxes in one path. So each
//! VL registers its own trip, and the next clock starts from the reset state when any is
//! set (a 15-input OR into the reset); the model's reset is between the two steps, so the
//! result is the same. The request and its reason (a priority pick over the registered
//! trips) are registered once more, so every output is a flip-flop.

use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
pub use crate::vl::{MAX_VLS, VL_CAPS};
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_failsafe",
    path: "crates/rtl/src/failsafe/iblink_failsafe.v",
    text: include_str!("iblink_failsafe.v"),
};

/// `resync_reason` when no FCP arrived for a VL for too long (the update monitor).
pub const REASON_NO_FC_UPDATE: u8 = 0;
/// `resync_reason` when a VL had overruns in too many consecutive periods.
pub const REASON_OVERRUN: u8 = 1;
/// Clocks from the clock whose tick trips to the clock showing `resync_req`.
pub const RESYNC_LATENCY: usize = 2;
/// Clocks from a clock to the status outputs showing its effect.
pub const STATUS_LATENCY: usize = 1;
/// Width of `period_clocks`, `update_periods`, `overrun_periods` and the counters.
pub const CONFIG_BITS: usize = 16;
/// The spec's FCP period in clocks for a datapath of `width_bits` (docs/spec.md §5, §8).
pub const fn spec_period_clocks(width_bits: usize) -> u16 {
    (65536 / (width_bits / 8)) as u16
}

/// The twin's registers: the model's state, as the Verilog holds it before the timing
/// copies (`phase` here is `phase_m1 + 1` there; `at_phase`, `upd_is1`, `at_thr`,
/// `timer_m1`, `timer_is0` and `end_q` are functions of these registers, and
/// `monitor_on`, `op_m1` and `p_m2` of the configuration, which changes only with
/// `reset`, so the twin computes them where it uses them). The lockstep checks the two
/// agree at the ports every clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FailsafeRegs {
    /// Set after the first clock (power-up acts as a reset).
    pub started: bool,
    /// Clocks into the current FCP period (the model's `period_timer`).
    pub timer: u16,
    /// Per VL: `timer` in the clock of its last FCP (or reset).
    pub phase: [u16; MAX_VLS],
    /// Per VL: update-monitor period boundaries left before a resync.
    pub upd_left: [u16; MAX_VLS],
    /// Per VL: consecutive periods with overruns (the model's `consecutive`).
    pub consec: [u16; MAX_VLS],
    /// Bit v: no FCP for more than one period.
    pub late: u16,
    /// Bit v: an overrun in the current period.
    pub seen: u16,
    /// Bit v: the last period ended with overruns.
    pub run: u16,
    /// Bit v: VL v's update monitor tripped in the previous clock.
    pub trip_u: u16,
    /// Bit v: VL v tripped (either reason) in the previous clock.
    pub trip: u16,
    pub resync_req: bool,
    pub resync_reason: bool,
    pub resync_vl: u8,
}

/// One clock of the block: the registers after the edge, given those before it and the
/// inputs (the twin's `tick`; the Verilog module does the same on its own registers).
pub fn next_regs(r: &FailsafeRegs, i: &FailsafeIn, n: usize) -> FailsafeRegs {
    let mut x = *r;
    let fresh = r.trip != 0;
    let rst = i.reset || fresh || !r.started;
    let timer_pre = if rst { 0 } else { r.timer };
    let timer_inc = timer_pre as u32 + 1;
    let period_end = timer_inc >= i.period_clocks as u32;
    let monitor_on = i.update_periods != 0;
    let hit = |valid: bool, vl: u8| -> u16 {
        let vl = vl & 0xf;
        if valid && (vl as usize) < n {
            1 << vl
        } else {
            0
        }
    };
    let upd_hit = hit(i.upd_valid, i.upd_vl);
    let ovr_hit = hit(i.overrun, i.overrun_vl);
    x.started = true;
    x.timer = if period_end { 0 } else { timer_inc as u16 };
    x.trip_u = 0;
    x.trip = 0;
    for v in 0..n {
        let b = 1u16 << v;
        let anchor = rst || (upd_hit & b) != 0;
        let boundary = !anchor && r.timer == r.phase[v];
        let ev = ((r.seen & b) != 0 && !rst) || (ovr_hit & b) != 0;
        let consec_pre = if rst { 0 } else { r.consec[v] };
        let run_pre = (r.run & b) != 0 && !rst;
        if anchor {
            x.phase[v] = timer_pre;
            x.upd_left[v] = i.update_periods;
            x.late &= !b;
        } else if boundary {
            x.upd_left[v] = r.upd_left[v].wrapping_sub(1);
            x.late |= b;
        }
        x.seen = x.seen & !b | if ev && !period_end { b } else { 0 };
        let run = if period_end { ev } else { run_pre };
        x.run = x.run & !b | if run { b } else { 0 };
        x.consec[v] = if period_end {
            if ev {
                consec_pre.wrapping_add(1)
            } else {
                0
            }
        } else {
            consec_pre
        };
        let trip_u = monitor_on && boundary && r.upd_left[v] == 1;
        let trip_o = period_end && ev && consec_pre == i.overrun_periods;
        x.trip_u |= if trip_u { b } else { 0 };
        x.trip |= if trip_u || trip_o { b } else { 0 };
    }
    x.resync_req = fresh;
    if fresh {
        x.resync_reason = r.trip_u == 0;
        let pick = if r.trip_u != 0 { r.trip_u } else { r.trip };
        x.resync_vl = pick.trailing_zeros() as u8;
    }
    x
}

/// One clock of stimulus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FailsafeIn {
    pub reset: bool,
    pub upd_valid: bool,
    pub upd_vl: u8,
    pub overrun: bool,
    pub overrun_vl: u8,
    pub period_clocks: u16,
    pub update_periods: u16,
    pub overrun_periods: u16,
}

/// The outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FailsafeOut {
    pub resync_req: bool,
    /// [`REASON_NO_FC_UPDATE`] or [`REASON_OVERRUN`], of the latest request.
    pub resync_reason: u8,
    pub resync_vl: u8,
    pub overrun_seen: u16,
    pub overrun_run: u16,
    pub fcp_late: u16,
}

/// The Rust cycle twin of `iblink_failsafe` for `vls` data VLs.
#[derive(Clone, Debug)]
pub struct FailsafeTwin {
    vls: usize,
    regs: FailsafeRegs,
}

impl FailsafeTwin {
    pub fn new(vls: usize) -> Self {
        assert!(VL_CAPS.contains(&vls), "FailsafeTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        Self {
            vls,
            regs: FailsafeRegs::default(),
        }
    }
    pub fn regs(&self) -> &FailsafeRegs {
        &self.regs
    }
}

impl Twin for FailsafeTwin {
    type In = FailsafeIn;
    type Out = FailsafeOut;

    #[inline]
    fn eval(&self, _i: &FailsafeIn) -> FailsafeOut {
        // Every output is a register.
        let r = &self.regs;
        FailsafeOut {
            resync_req: r.resync_req,
            resync_reason: r.resync_reason as u8,
            resync_vl: r.resync_vl,
            overrun_seen: r.seen,
            overrun_run: r.run,
            fcp_late: r.late,
        }
    }

    #[inline]
    fn tick(&mut self, i: &FailsafeIn) {
        self.regs = next_regs(&self.regs, i, self.vls);
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: its ports, and its behaviour through the twin.
    pub struct FailsafeUnit<const N: usize> {
        twin: FailsafeTwin,
    }
    check: VL_CAPS.contains(&N);
    default: Self::with_twin(FailsafeTwin::new(N));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N), SOURCE.text);
    ports(i: FailsafeIn, o: FailsafeOut) {
        reset: in Bit = i.reset;
        upd_valid: in Bit = i.upd_valid;
        upd_vl: in Bits<4> = i.upd_vl;
        overrun: in Bit = i.overrun;
        overrun_vl: in Bits<4> = i.overrun_vl;
        period_clocks: in Bits<16> = i.period_clocks;
        update_periods: in Bits<16> = i.update_periods;
        overrun_periods: in Bits<16> = i.overrun_periods;
        resync_req: out Bit = o.resync_req;
        resync_reason: out Bit = o.resync_reason;
        resync_vl: out Bits<4> = o.resync_vl;
        overrun_seen: out Bits<N> = o.overrun_seen;
        overrun_run: out Bits<N> = o.overrun_run;
        fcp_late: out Bits<N> = o.fcp_late;
    }
}

/// The module's parameters for VLCap `vls`.
pub fn params(vls: usize) -> Vec<(String, String)> {
    vec![("VLS".to_string(), vls.to_string())]
}

/// `hdl_out/iblink_failsafe.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "failsafe",
        vec![
            ("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap)".into()),
            ("config_bits".into(), CONFIG_BITS.to_string()),
            ("period_clocks".into(), "input (65536 / W: 16384 at 32 bits, 8192 at 64)".into()),
            ("latency_trip_to_resync_req".into(), RESYNC_LATENCY.to_string()),
            ("latency_to_status".into(), STATUS_LATENCY.to_string()),
        ],
    )
}

/// The block at VLCap `vls` (`iblink_failsafe_vl<vls>`).
pub fn variant(vls: usize) -> Variant {
    Variant {
        name: format!("iblink_failsafe_vl{vls}"),
        block: "failsafe",
        top: SOURCE.module.to_string(),
        params: params(vls),
        modules: vec![module()],
        ports: crate::with_failsafe!(vls, |T| crate::io::top_ports(&T::default()),
            _ => panic!("failsafe: VLCap {vls} is not 1, 2, 4, 8 or 15")),
    }
}

pub type FailsafeVl1 = FailsafeUnit<1>;
pub type FailsafeVl2 = FailsafeUnit<2>;
pub type FailsafeVl4 = FailsafeUnit<4>;
pub type FailsafeVl8 = FailsafeUnit<8>;
pub type FailsafeVl15 = FailsafeUnit<15>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_periods() {
        // docs/spec.md §5: 65,536 symbol times; W bytes a clock.
        assert_eq!(spec_period_clocks(32), 16384);
        assert_eq!(spec_period_clocks(64), 8192);
    }
}
