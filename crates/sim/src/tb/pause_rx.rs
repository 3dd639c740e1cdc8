//! The PAUSE/PFC receive side's testbench: random frames (good, bad by every cause, data,
//! runts, wrong lengths) in lockstep; coverage: every counter the model counted, the
//! clocks a priority was paused, the frame kinds sent.

use crate::blocks::pause_rx::{pause_rx_sim, FrameKind, PauseRxModelSim, PauseRxStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::pause_rx::{PauseRxIn, PauseRxOut};

pub const PARAMS: &[ParamSpec] = &[ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "64", verilog: true, help: "bits per clock" }];

/// The lockstep test's seed at `width` bits.
pub fn seed(width: usize) -> u64 {
    if width == 64 {
        22
    } else {
        21
    }
}

/// The model adapter, tallying what it counted and the clocks a priority was paused.
pub struct Coverage {
    inner: PauseRxModelSim,
    pub totals: [u64; 8],
    pub paused_clocks: u64,
    last: [u16; 8],
}

impl CycleSim for Coverage {
    type In = PauseRxIn;
    type Out = PauseRxOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &PauseRxIn) -> PauseRxOut {
        let o = self.inner.step(i);
        for k in 0..8 {
            // Counters only step up by one, or go to 0 on reset.
            if o.counts[k] == self.last[k].wrapping_add(1) {
                self.totals[k] += 1;
            }
        }
        self.last = o.counts;
        self.paused_clocks += (o.paused != 0) as u64;
        o
    }
}

pub fn run(width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "pause_rx",
        o,
        || Coverage { inner: PauseRxModelSim::new(width), totals: [0; 8], paused_clocks: 0, last: [0; 8] },
        |b, vcd| pause_rx_sim(width, b, vcd),
        || PauseRxStimulus::new(seed, width),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("pause_rx {width} bits"), seed, |m, stim, n| {
        let min = (n / 20_000).max(1);
        let mut g: Vec<Gate> = iblink_rtl::pause_rx::COUNTERS.iter().enumerate().map(|(k, name)| Gate::at_least(format!("counted: {name}"), m.totals[k], min)).collect();
        g.push(Gate::at_least("clocks a priority was paused", m.paused_clocks, n / 20));
        for k in [FrameKind::Runt, FrameKind::Data, FrameKind::Release] {
            g.push(Gate::at_least(format!("{k:?} frames sent"), stim.sent.iter().filter(|&&x| x == k).count() as u64, min));
        }
        g
    }))
}
