//! The SLtoVL table's testbench: random writes (good and refused) and lookups of every SL
//! in lockstep. The lockstep test gates no coverage for it; the table shows what the
//! stimulus did, counted from its inputs and the model's outputs.

use crate::blocks::sl2vl::{sl2vl_sim, SlToVlModelSim, SlToVlStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::sl2vl::{SlToVlIn, SlToVlOut};

pub const PARAMS: &[ParamSpec] = &[ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" }];

/// The lockstep test's seed at VLCap `vls`.
pub fn seed(vls: usize) -> u64 {
    vls as u64
}

/// The clocks the lockstep test runs at VLCap `vls` when a configuration runs `cycles`:
/// all of them at VLCap 4 and 15, a tenth at the others.
pub fn test_cycles(vls: usize, cycles: u64) -> u64 {
    if vls == 4 || vls == 15 {
        cycles
    } else {
        cycles / 10
    }
}

/// Counts writes and lookups (shown, not gated).
pub struct Coverage {
    inner: SlToVlModelSim,
    pub writes: u64,
    pub refused: u64,
    pub resets: u64,
}

impl CycleSim for Coverage {
    type In = SlToVlIn;
    type Out = SlToVlOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &SlToVlIn) -> SlToVlOut {
        let o = self.inner.step(i);
        self.writes += (i.wr_en && !i.reset) as u64;
        self.refused += o.wr_reject as u64;
        self.resets += i.reset as u64;
        o
    }
}

pub fn run(vls: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "sl2vl",
        o,
        || Coverage { inner: SlToVlModelSim::new(vls), writes: 0, refused: 0, resets: 0 },
        |b, vcd| sl2vl_sim(vls, b, vcd),
        || SlToVlStimulus::new(seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("sl2vl VLCap {vls}"), seed, |m, _, _| {
        vec![Gate::info("writes", m.writes), Gate::info("clocks with wr_reject", m.refused), Gate::info("resets", m.resets)]
    }))
}
