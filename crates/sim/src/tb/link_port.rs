//! The link port's testbench: its blocks' reference models composed as the port composes
//! its blocks (`PortCycleModel`), the port's Rust stepper and Verilator on the generated
//! top, on a reactive random stimulus (`PortStimulus`: user queues and receive buffer, a
//! link peer with losses and corruption that also checks the credits of every grant,
//! configuration writes in traffic, link state changes, resets, failsafe resyncs, a
//! transmit wire that stalls in phases, docs/spec.md §10). The
//! port runs in the lockstep test's configuration for its VLCap and width
//! ([`test_params`]: buffer sizes, VL15 buffer and tables that differ from the defaults).

use crate::blocks::link_port::{link_port_sim, test_params};
use crate::blocks::link_port_model::PortCycleModel;
use crate::blocks::link_port_stimulus::PortStimulus;
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap (of the generated top and every block in it)" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "32", verilog: true, help: "link word bits" },
];

/// The lockstep test's seed at VLCap `vls`, `width` bits.
pub fn seed(vls: usize, width: usize) -> u64 {
    0x1b_0000 + (vls * 100 + width) as u64
}

/// Sender-side credit checker coverage minimums per million clocks (seen: 17-609, 5-420
/// at 64 bits; from VLCap 4: 9-606 and 1-177). The new-head case needs a VL whose queue
/// runs empty while the others keep the link: rare at VLCap 1 and 2, not gated there.
const TAKEN_NEXT_FAILS: u64 = 8;
const TAKEN_NEXT_FAILS_SHORT: u64 = 2;
const NEW_HEAD_CL_EQ_FCTBS: u64 = 3;
const NEW_HEAD_STALE_PASSES: u64 = 1;

/// The counters the lockstep test also sums over every configuration (its whole-run
/// gates: the rarer events), by their names in the report.
pub const RUN_TOTALS: [&str; 6] = ["FCTBS wraps", "ABR wraps", "overruns", "VL15 drops", "no-FC-update resyncs", "overrun-threshold resyncs"];

pub fn run(vls: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let p = test_params(vls, width);
    let t0 = std::time::Instant::now();
    let out = harness::run(
        "link_port",
        o,
        || PortCycleModel::new(&p),
        |b, vcd| link_port_sim(&p, b, vcd),
        || PortStimulus::new(&p, seed),
        |s, prev| s.next(prev),
        None,
    )?;
    let secs = t0.elapsed().as_secs_f64();
    let mut first_violation = None;
    let mut details = vec![];
    let mut r = out.report(format!("link_port VLCap {vls} x {width}"), seed, |model, stim, cycles| {
        first_violation = stim.first_violation.take();
        let m = &model.cov;
        let s = &stim.stats;
        let fcps = model.fcp_tx_tally();
        details.push(format!("phase clocks {:?} grants {:?} stable {}", s.phase_clocks, s.phase_grants, s.stable_clocks));
        details.push(format!("credit checker: the oldest CL a grant needed was {} clocks back", s.credit_max_lag));
        details.push(format!("blocks per VL {:?}, most in one epoch {}", &s.vl_blocks[..vls], s.vl_blocks_max_epoch));
        let per_m = |x: u64| (x * cycles / 1_000_000).max(1);
        let mut g = vec![
            // Must be 0.
            Gate::exactly("queue pops without a head", s.stray_pops, 0),
            Gate::exactly("verdicts without a delivered packet, or no commit/overrun after a good one", s.verdict_errors, 0),
            Gate::exactly("FCPs of ours that did not decode", s.bad_our_fcps, 0),
            // The sender-side credit check (the stimulus as the link peer, independent of
            // the port's blocks and of the model: shared wiring bugs show here, not in
            // lockstep).
            Gate::exactly("grants over credit (docs/spec.md §4)", s.credit_violations, 0),
            Gate::exactly("grant_vl / grant_blocks not the popped head's VL / NP", s.grant_blocks_wrong, 0),
            // Transmit.
            Gate::at_least("data packets started", m.data_starts, per_m(20_000)),
            Gate::at_least("VL15 packets started", m.vl15_starts, per_m(200)),
            Gate::at_least("FCPs started", m.fcp_starts, per_m(2_000)),
            Gate::at_least("FCPs with Op 1", m.fcp_init, per_m(20)),
            Gate::at_least("high-table grants", m.high_grants, per_m(1_000)),
            Gate::at_least("low-table grants", m.low_grants, per_m(1_000)),
            Gate::at_least("credit stalls (clocks)", m.credit_stalls, per_m(1_000)),
            Gate::at_least("grants credit-checked", s.credit_checked, per_m(20_000)),
            Gate::at_least("VL taken, its next head over credit", s.taken_next_fails, per_m(TAKEN_NEXT_FAILS)),
        ];
        if width == 64 {
            g.push(Gate::at_least("  of those, a packet of at most TAKE_GAP words taken", s.taken_next_fails_short, per_m(TAKEN_NEXT_FAILS_SHORT)));
        }
        if vls >= 4 {
            g.push(Gate::at_least("new head after an empty queue at CL = FCTBS", s.new_head_cl_eq_fctbs, per_m(NEW_HEAD_CL_EQ_FCTBS)));
            g.push(Gate::at_least("  of those, the stale length would pass", s.new_head_stale_len_passes, per_m(NEW_HEAD_STALE_PASSES)));
        }
        g.push(Gate::at_least("our FCPs decoded by the peer", s.our_fcps, per_m(2_000)));
        // FCTBS / ABR wraps: line rate bounds FCTBS (a block is 64 bytes: 16 clocks at 32
        // bits, 8 at 64, at best a minimum packet's one block in 7 / 4 clocks).
        g.push(Gate::at_least(RUN_TOTALS[0], m.fctbs_wraps, per_m(3)));
        g.push(Gate::at_least(RUN_TOTALS[1], m.abr_wraps, per_m(3)));
        // Receive.
        g.extend([
            Gate::at_least("received FCPs (credit updates)", m.fcp_updates, per_m(5_000)),
            Gate::at_least("packets accepted", m.rx_accepted, per_m(5_000)),
            Gate::at_least("VL15 kept", m.vl15_kept, per_m(50)),
            Gate::at_least("FCPs with a bad LPCRC", s.fcp_bad_lpcrc, per_m(20)),
            Gate::at_least("FCPs with a reserved Op", s.fcp_reserved_op, per_m(20)),
            Gate::at_least("FCPs for VL15", s.fcp_vl15, per_m(20)),
        ]);
        if vls < 15 {
            g.push(Gate::at_least("FCPs for a VL >= VLCap", s.fcp_vl_cap, per_m(20)));
            g.push(Gate::at_least("data packets for a VL >= VLCap", s.data_bad_vl, per_m(20)));
        }
        g.extend([
            Gate::at_least("short FCPs", s.fcp_short, per_m(20)),
            Gate::at_least("long FCPs", s.fcp_long, per_m(20)),
            Gate::at_least("cut FCPs", s.fcp_cut, per_m(20)),
            Gate::at_least("FCPs lost", s.fcps_lost, per_m(50)),
            Gate::at_least("FCPs at the window edge", s.fcps_edge, per_m(50)),
            Gate::at_least("data packets with a bad VCRC", s.data_bad_vcrc, per_m(50)),
            Gate::at_least("data packets with a bad length", s.data_bad_length, per_m(50)),
            Gate::at_least("data packets cut", s.data_cut, per_m(50)),
            Gate::at_least("data packets lost", s.data_lost, per_m(50)),
            Gate::at_least("VL15 packets received", s.data_vl15, per_m(100)),
            Gate::at_least("gaps inside received items", s.rx_gaps, per_m(1_000)),
            Gate::at_least("verdicts: good", s.done_status[0], per_m(5_000)),
            Gate::at_least("verdicts: VCRC", s.done_status[1], per_m(20)),
            Gate::at_least("verdicts: length", s.done_status[2], per_m(20)),
            Gate::at_least("drains", s.drains, per_m(5_000)),
            Gate::at_least("junk drains", s.junk_drains, per_m(50)),
            // Configuration, link state, resets, failsafe.
            Gate::at_least("table writes", s.table_writes, per_m(3_000)),
            Gate::at_least("table writes in traffic", s.table_writes_in_traffic, per_m(1_000)),
            Gate::at_least("whole-table rewrites", s.table_rewrites, per_m(20)),
            Gate::at_least("VLHighLimit writes 0", s.limit_writes[0], per_m(20)),
            Gate::at_least("VLHighLimit writes 1..254", s.limit_writes[1], per_m(20)),
            Gate::at_least("VLHighLimit writes 255", s.limit_writes[2], per_m(20)),
            Gate::at_least("policy writes", s.policy_writes, per_m(50)),
            Gate::at_least("VL enable writes", s.enable_writes, per_m(50)),
            Gate::at_least("refresh writes", s.refresh_writes, per_m(2)),
            Gate::at_least("on-change gap writes", s.gap_writes, per_m(2)),
            Gate::at_least("failsafe threshold writes", s.failsafe_writes, per_m(50)),
            Gate::at_least("unmapped writes", s.unmapped_writes, per_m(50)),
            Gate::at_least("resets", s.resets, per_m(10)),
            Gate::at_least("link Down", s.downs, per_m(2)),
            Gate::at_least("to LinkInitialize", s.to_init, per_m(5)),
            Gate::at_least("to LinkArm", s.to_arm, per_m(5)),
            Gate::at_least("to LinkActive", s.to_active, per_m(5)),
            Gate::at_least("link state changes in traffic", s.state_changes_in_traffic, per_m(2)),
            // The wire (docs/spec.md §10): its stalls, FCPs whose last beat a stall
            // delayed (their VL's FCP periods count from it), and FCPs none delayed (its
            // steady phases: the last beat as many clocks after the start as ever).
            Gate::at_least("clocks a word waited for tx_ready", s.tx_stalled, per_m(10_000)),
            Gate::at_least("  a first word", s.tx_stalled_first, per_m(1_000)),
            Gate::at_least("  an FCP word", s.tx_stalled_fcp, per_m(200)),
            Gate::at_least("stalls of 100+ clocks", s.tx_long_stalls, per_m(5)),
            Gate::at_least("FCPs whose last beat a stall delayed", fcps.done_late, per_m(100)),
            Gate::at_least("FCPs whose last beat no stall delayed", fcps.done - fcps.done_late, per_m(1_000)),
            // Rarer events: gated by the lockstep test over every configuration together.
            Gate::info(RUN_TOTALS[2], m.rx_overruns),
            Gate::info(RUN_TOTALS[3], m.vl15_dropped),
            Gate::info(RUN_TOTALS[4], s.resync_reqs[0]),
            Gate::info(RUN_TOTALS[5], s.resync_reqs[1]),
            Gate::info("data packets over credit (sent by the peer)", s.data_over_credit),
            Gate::info("our FCPs' FCTBS wraps", s.our_fcp_fctbs_wraps),
            Gate::info("clocks with data on the transmit link", s.tx_data_clocks),
        ]);
        g
    });
    r.notes.extend(details);
    if let Some(v) = first_violation {
        r.notes.push(format!("the first grant over credit: {v}"));
    }
    r.notes.push(format!("{} clocks in {secs:.1} s ({:.0} clocks/s, every run included)", r.cycles, r.cycles as f64 / secs.max(1e-9)));
    Ok(r)
}
