//! The VL15 receive buffer's testbench: bursts of SMPs against a management agent that
//! drains at a varying pace, in lockstep; the buffer must have filled and dropped (the
//! model's drop count).

use crate::blocks::vl15_rx::{vl15_rx_sim, Vl15RxModelSim, Vl15RxStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::vl15_rx::Vl15RxIn;

pub const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "CAPACITY",
    allowed: Allowed::Ints(&[1, 4]),
    default: "1",
    verilog: true,
    help: "packets (the sizes with an RTL back end)",
}];

/// The lockstep test's seed for a buffer of `cap` packets.
pub fn seed(cap: usize) -> u64 {
    cap as u64
}

pub fn run(cap: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "vl15_rx",
        o,
        || Vl15RxModelSim::new(cap),
        |b, vcd| vl15_rx_sim(cap, b, vcd),
        || Vl15RxStimulus::new(seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("vl15_rx capacity {cap}"), seed, |m, _, _| {
        // The drop counter is a register: one more clock shows the run's last drop.
        let last = m.step(&Vl15RxIn::default());
        vec![Gate::more_than("drops", last.drop_count as u64, 1000)]
    }))
}
