//! The PAUSE/PFC frame builder's testbench: random frames and configurations (masks, pause
//! times, source addresses, releases) in lockstep against the model's encoder (FCS by the
//! `crc` crate), on a wire that stalls; coverage: frames, frames with a release, frames
//! back to back, words that waited for `tx_ready` (of them first and last words).

use crate::blocks::pfc_frame::{pfc_frame_sim, PfcFrameModelSim, PfcFrameStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_model::pfc::Mode;
use iblink_rtl::pfc_frame::{PfcFrameIn, PfcFrameOut};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "QUEUES", allowed: Allowed::Ints(&[1, 2, 3, 4, 5, 6, 7, 8]), default: "8", verilog: true, help: "queues" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "64", verilog: true, help: "bits per clock" },
    ParamSpec { name: "mode", allowed: Allowed::Words(&["pfc", "pause"]), default: "pfc", verilog: false, help: "PFC or PAUSE frames" },
];

/// The lockstep test's runs: (seed, queues, width, mode).
pub const TEST_CONFIGS: [(u64, usize, usize, Mode); 6] =
    [(11, 1, 32, Mode::Pfc), (12, 8, 32, Mode::Pfc), (13, 3, 64, Mode::Pfc), (14, 8, 64, Mode::Pfc), (15, 4, 32, Mode::Pause), (16, 2, 64, Mode::Pause)];

/// The test's seed for a configuration, when the test runs it.
pub fn test_seed(queues: usize, width: usize, mode: Mode) -> Option<u64> {
    TEST_CONFIGS.iter().find(|c| (c.1, c.2, c.3) == (queues, width, mode)).map(|c| c.0)
}

/// The test's seed for a configuration it runs, else one made from the configuration.
pub fn seed(queues: usize, width: usize, mode: Mode) -> u64 {
    test_seed(queues, width, mode).unwrap_or(0x9e00 + 100 * queues as u64 + width as u64 + 1000 * (mode == Mode::Pause) as u64)
}

/// Counts frames sent, those with a release in them, and those back to back.
pub struct Count {
    inner: PfcFrameModelSim,
    pub frames: u64,
    pub with_release: u64,
    pub back_to_back: u64,
    pub stalled: u64,
    pub stalled_first: u64,
    pub stalled_last: u64,
    last_was_last: bool,
    first_waiting: bool,
}

impl CycleSim for Count {
    type In = PfcFrameIn;
    type Out = PfcFrameOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &PfcFrameIn) -> PfcFrameOut {
        let o = self.inner.step(i);
        let moved = o.tx_valid && i.tx_ready;
        self.frames += (o.tx_last && moved) as u64;
        self.with_release += (i.frame_start && !i.reset && i.frame_zero != 0) as u64;
        self.back_to_back += (i.frame_start && self.last_was_last) as u64;
        self.last_was_last = o.tx_last && moved;
        let first = i.frame_start || self.first_waiting;
        if o.tx_valid && !i.tx_ready {
            self.stalled += 1;
            self.stalled_first += first as u64;
            self.stalled_last += o.tx_last as u64;
        }
        self.first_waiting = first && o.tx_valid && !i.tx_ready && !i.reset;
        o
    }
}

pub fn run(queues: usize, width: usize, mode: Mode, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "pfc_frame",
        o,
        || Count {
            inner: PfcFrameModelSim::new(queues, width),
            frames: 0,
            with_release: 0,
            back_to_back: 0,
            stalled: 0,
            stalled_first: 0,
            stalled_last: 0,
            last_was_last: false,
            first_waiting: false,
        },
        |b, vcd| pfc_frame_sim(queues, width, b, vcd),
        || PfcFrameStimulus::new(seed, queues, width as u32, mode),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("pfc_frame {queues} queues at {width} bits, {mode:?}"), seed, |m, _, n| {
        let per = n / 100;
        vec![
            Gate::at_least("frames", m.frames, per / 4),
            Gate::at_least("frames with a release", m.with_release, per / 20),
            Gate::at_least("frames back to back", m.back_to_back, per / 20),
            Gate::at_least("words that waited for tx_ready", m.stalled, per),
            Gate::at_least("of them a frame's first word", m.stalled_first, per / 20),
            Gate::at_least("of them a frame's last word", m.stalled_last, per / 20),
        ]
    }))
}
