//! The FCP transmit framer and scheduler's testbench: regimes of timer configurations, mux
//! policies and FCCL/FCTBS change rates in lockstep; coverage from the model's tally and
//! the stimulus's own counts.

use crate::blocks::fcp_tx::{fcp_tx_sim, FcpTxModelSim, FcpTxStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "32", verilog: true, help: "link word bits" },
];

/// The lockstep test's seed at VLCap `vls`, `width` bits.
pub fn seed(vls: usize, width: usize) -> u64 {
    0x7c00 + (width as u64) * 16 + vls as u64
}

pub fn run(vls: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "fcp_tx",
        o,
        || FcpTxModelSim::new(vls, width),
        |b, vcd| fcp_tx_sim(vls, width, b, vcd),
        || FcpTxStimulus::new(vls, width, seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("fcp_tx VLCap {vls} w{width}"), seed, |m, stim, n| {
        let t = m.tally;
        let s = stim.stats;
        let min = n / 1000;
        let mut g: Vec<Gate> = vec![
            Gate::at_least("FCPs", t.fcps, 10 * min),
            Gate::at_least("refresh-due FCPs", t.refresh, min),
            Gate::at_least("on-change FCPs", t.on_change, min),
            Gate::at_least("min-gap holds", t.min_gap_holds, min),
            Gate::at_least("Op 1 FCPs", t.op_init, min),
            Gate::at_least("Op 0 FCPs", t.op_normal, min),
        ];
        // Two VLs at least: the same VL never goes twice in a row (it is excluded from
        // the choice made in the clock its FCP starts).
        if vls > 1 {
            g.push(Gate::at_least("back-to-back FCPs", t.back_to_back, min));
        } else {
            g.push(Gate::info("back-to-back FCPs", t.back_to_back));
        }
        g.extend([
            Gate::at_least("clocks an FCP waited for the mux", t.waits, min),
            Gate::at_least("stray fcp_start", t.stray_starts, min),
            Gate::at_least("clocks the mux stalled (fcp_ready low)", t.stalled, 50 * min),
            // docs/spec.md §10: periods count from the last beat, however late it moved.
            Gate::at_least("FCPs whose last beat moved (fcp_done)", t.done, 10 * min),
            Gate::at_least("...of them later than on a wire that never stalls", t.done_late, min),
            Gate::at_least("clocks in LINK_DOWN", t.down_clocks, min),
            Gate::at_least("FCCL changes", s.fccl_changes, min),
            Gate::at_least("FCCL reverts", s.fccl_reverts, 2 * min),
            Gate::at_least("FCTBS wraps", s.fctbs_wraps, min.div_ceil(10)),
            Gate::at_least("FCCL wraps", s.fccl_wraps, min.div_ceil(10)),
            Gate::at_least("data packets", s.data_packets, min),
            Gate::at_least("clocks with the default configuration", s.default_config_clocks, 100 * min),
            Gate::at_least("restarts", t.restarts, n / 10_000),
        ]);
        if width == 32 {
            g.push(Gate::at_least("second words held for fcp_ready", t.second_held, min));
        }
        for v in 0..vls {
            g.push(Gate::at_least(format!("FCPs on VL {v}"), t.per_vl[v], min));
        }
        g.push(Gate::exactly("FCPs for a VL the port lacks", t.per_vl[vls..].iter().sum(), 0));
        g
    }))
}
