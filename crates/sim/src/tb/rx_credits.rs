//! The RX credit block's testbench: a simulated link peer's packets and FCPs (some lost,
//! some over credit), drains and resets in lockstep, coverage counted from the model's
//! state and outputs (ABR wraps, overruns, FCCL capped at ABR + 2048).

use crate::blocks::rx_credits::{rx_credits_sim, RxCreditsModelSim, RxCreditsStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::rx_credits::{RxCreditsIn, RxCreditsOut};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" },
    ParamSpec {
        name: "CAPACITY",
        allowed: Allowed::Ints(&[256, 3072, 4095]),
        default: "256",
        verilog: true,
        help: "buffer blocks per VL: 256 at any VLCap, 3072 at VLCap 1, 4 and 15, 4095 at VLCap 15 (the sizes with an RTL back end)",
    },
];

/// The configurations with an RTL back end (`iblink_rtl::with_rx_credits!`).
pub fn built(vls: usize, capacity: u16) -> bool {
    capacity == 256 || (capacity == 3072 && [1, 4, 15].contains(&vls)) || (capacity == 4095 && vls == 15)
}

/// The lockstep test's seed at VLCap `vls` (any capacity).
pub fn seed(vls: usize) -> u64 {
    0x8c00 + vls as u64
}

/// The (VLCap, capacity) configurations the lockstep test runs (tests/lockstep/tx_credits.rs).
pub const TESTED: [(usize, u16); 5] = [(1, 256), (2, 256), (4, 256), (8, 256), (15, 3072)];

/// Counts what the RX stimulus exercised.
pub struct Coverage {
    inner: RxCreditsModelSim,
    pub abr_wraps: u64,
    pub accepts: u64,
    pub overruns: u64,
    /// Clocks in which some VL had more than 2048 blocks free (FCCL capped at ABR + 2048).
    pub capped: u64,
    pub resets: u64,
}

impl CycleSim for Coverage {
    type In = RxCreditsIn;
    type Out = RxCreditsOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &RxCreditsIn) -> RxCreditsOut {
        let n = self.inner.vls();
        let before: Vec<u16> = (0..n).map(|v| self.inner.vl(v).abr()).collect();
        self.capped += (0..n).any(|v| self.inner.vl(v).free() > 2048) as u64;
        let o = self.inner.step(i);
        self.resets += i.reset as u64;
        self.accepts += o.accepted as u64;
        self.overruns += o.dropped as u64;
        let v = i.accept_vl as usize;
        if !i.reset && i.accept && v < n && !(i.fcp_valid && i.fcp_vl == i.accept_vl) {
            // ABR passed 4095 -> 0 on an accept.
            self.abr_wraps += (self.inner.vl(v).abr() < before[v]) as u64;
        }
        o
    }
}

pub fn run(vls: usize, capacity: u16, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "rx_credits",
        o,
        || Coverage { inner: RxCreditsModelSim::new(vls, capacity), abr_wraps: 0, accepts: 0, overruns: 0, capped: 0, resets: 0 },
        |b, vcd| rx_credits_sim(vls, capacity, b, vcd),
        || RxCreditsStimulus::new(vls, capacity, seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("rx_credits VLCap {vls}, {capacity} blocks"), seed, |m, _, n| {
        let mut g = vec![
            Gate::info("accepted", m.accepts),
            Gate::at_least("ABR wraps", m.abr_wraps, 100),
            Gate::more_than("overruns", m.overruns, n / 1000),
            Gate::at_least("resets", m.resets, 10),
        ];
        if capacity > 2048 {
            g.push(Gate::more_than("clocks with FCCL capped (free > 2048)", m.capped, n / 100));
        } else {
            g.push(Gate::info("clocks with FCCL capped (free > 2048)", m.capped));
        }
        g
    }))
}
