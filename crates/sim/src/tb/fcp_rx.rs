//! The FCP receive framer's testbench: a random link word stream (FCPs of every Op and VL,
//! bit flips, short, long and cut packets, data look-alikes, gaps, resets) in lockstep;
//! coverage from the model's verdicts and the stimulus's own counts.

use crate::blocks::fcp_rx::{fcp_rx_sim, FcpRxModelSim, FcpRxStimulus};
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
    0xfc00 + (width as u64) * 16 + vls as u64
}

pub fn run(vls: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "fcp_rx",
        o,
        || FcpRxModelSim::new(vls, width),
        |b, vcd| fcp_rx_sim(vls, width, b, vcd),
        || FcpRxStimulus::new(vls, width, seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("fcp_rx VLCap {vls} w{width}"), seed, |m, stim, n| {
        let t = m.tally;
        let s = stim.stats;
        // Every verdict, many times over (a million cycles give thousands of each).
        let min = n / 1000;
        let mut g: Vec<Gate> = [
            ("good", t.good, min),
            ("good Op 1", t.good_init, min),
            ("short", t.short, min),
            ("long", t.long, min),
            ("abort", t.abort, min),
            ("bad LPCRC", t.lpcrc_error, min),
            ("reserved Op", t.reserved_op, min),
            ("VL15", t.vl15, min),
            ("good back to back", t.good_back_to_back, min),
            ("abort and end in one clock", t.abort_and_end, min.div_ceil(10)),
            ("single bit flips", s.flips_single, min),
            ("multi-bit flips", s.flips_multi, min),
            ("data FCP look-alikes", s.data_fcp_lookalikes, min),
            ("gaps in link items", s.gaps_in_link, min),
            ("headless link packets", s.headless, min),
            ("partial keep on non-last words", s.junk_keep, min),
            ("resets", t.resets, min / 10),
        ]
        .into_iter()
        .map(|(what, got, min)| Gate::at_least(what, got, min))
        .collect();
        if vls < 15 {
            g.push(Gate::at_least("VL >= VLCap", t.vl_cap, min));
        } else {
            g.push(Gate::exactly("VL >= VLCap (VLCap 15: none)", t.vl_cap, 0));
        }
        for v in 0..vls {
            g.push(Gate::at_least(format!("good FCPs on VL {v}"), t.good_vl[v], min / 16));
        }
        // The stream never gives an FCP for a VL the port lacks.
        g.push(Gate::exactly("good FCPs on a VL the port lacks", t.good_vl[vls..].iter().sum(), 0));
        g
    }))
}
