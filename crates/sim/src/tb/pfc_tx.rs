//! The PAUSE/PFC transmit side's testbench: a random valid configuration (from the seed),
//! random triggers (hardware levels, fill levels around RFA and RFD, software requests)
//! and data traffic, with its frames on a wire that stalls, in lockstep; gates for every
//! trigger kind, rise and fall, release, refresh, consolidation, merging and deferred
//! software requests, from the model's counts, and for frames held by stalls.

use crate::blocks::pfc_tx::{pfc_tx_sim_for, random_config, PfcTxModelSim, PfcTxStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_model::pfc::Mode;
use iblink_rtl::pfc_tx::{PfcTxIn, PfcTxOut};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "QUEUES", allowed: Allowed::Ints(&[1, 2, 3, 4, 5, 6, 7, 8]), default: "8", verilog: true, help: "queues" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "64", verilog: true, help: "bits per clock" },
    ParamSpec { name: "TARGET", allowed: Allowed::Words(&["GENERIC", "ECP5"]), default: "GENERIC", verilog: true, help: "netlist layout (the Verilator back end builds the module so; the twin is the same cycle behaviour)" },
    ParamSpec { name: "mode", allowed: Allowed::Words(&["pfc", "pause"]), default: "pfc", verilog: false, help: "PFC (per priority) or PAUSE (the whole link)" },
    ParamSpec { name: "zero_on_release", allowed: Allowed::Ints(&[0, 1]), default: "1", verilog: false, help: "send a zero pause time when a trigger falls" },
];

/// One run of the testbench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub queues: usize,
    pub width: u32,
    pub mode: Mode,
    pub zero_on_release: bool,
    /// The module's `TARGET` (`None`: its default).
    pub target: Option<&'static str>,
}

/// The lockstep test's runs, with their seeds. The 8-queue runs at 64 bits build the
/// module with `TARGET = "ECP5"` (its other netlist layout).
pub const TEST_CONFIGS: [(u64, Config); 6] = [
    (1, Config { queues: 1, width: 32, mode: Mode::Pfc, zero_on_release: true, target: None }),
    (2, Config { queues: 3, width: 64, mode: Mode::Pfc, zero_on_release: false, target: None }),
    (3, Config { queues: 8, width: 32, mode: Mode::Pfc, zero_on_release: true, target: None }),
    (4, Config { queues: 8, width: 64, mode: Mode::Pfc, zero_on_release: true, target: Some("ECP5") }),
    (5, Config { queues: 4, width: 32, mode: Mode::Pause, zero_on_release: true, target: None }),
    (6, Config { queues: 8, width: 64, mode: Mode::Pause, zero_on_release: true, target: Some("ECP5") }),
];

/// The test's seed for `c`, when the test runs it.
pub fn test_seed(c: &Config) -> Option<u64> {
    fn norm(t: Option<&'static str>) -> Option<&'static str> {
        t.filter(|t| *t != "GENERIC")
    }
    TEST_CONFIGS.iter().find(|(_, t)| Config { target: norm(t.target), ..*t } == Config { target: norm(c.target), ..*c }).map(|(s, _)| *s)
}

/// The test's seed for `c` when the test runs it, else one made from the configuration.
pub fn seed(c: &Config) -> u64 {
    test_seed(c).unwrap_or(0x9f00 + 100 * c.queues as u64 + c.width as u64 + 1000 * (c.mode == Mode::Pause) as u64 + 2000 * c.zero_on_release as u64)
}

/// The model adapter, counting frames that carry both a pause time and a release.
pub struct Coverage {
    inner: PfcTxModelSim,
    pub mixed: u64,
}

impl CycleSim for Coverage {
    type In = PfcTxIn;
    type Out = PfcTxOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &PfcTxIn) -> PfcTxOut {
        let o = self.inner.step(i);
        self.mixed += (o.frame_start && o.frame_zero != 0 && o.frame_zero != o.frame_queues) as u64;
        o
    }
}

pub fn run(c: &Config, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let mut cfg = random_config(&mut ChaCha8Rng::seed_from_u64(seed), c.queues, c.width, c.mode);
    cfg.zero_quanta_on_release = c.zero_on_release;
    cfg.validate().expect("a valid random configuration");
    let target = c.target.filter(|t| *t != "GENERIC");
    let out = harness::run(
        "pfc_tx",
        o,
        || Coverage { inner: PfcTxModelSim::new(cfg.clone()), mixed: 0 },
        |b, vcd| pfc_tx_sim_for(&cfg, b, vcd, target),
        || PfcTxStimulus::new(seed, &cfg),
        |s, prev| s.next_after(prev),
        None,
    )?;
    let mode = if c.mode == Mode::Pause { "PAUSE, " } else { "" };
    let title = format!("pfc_tx {mode}{} queues at {} bits{}", c.queues, c.width, target.map_or(String::new(), |t| format!(", TARGET {t}")));
    let mut r = out.report(title, seed, |m, s, n| {
        let counts = m.inner.counts();
        // One queue cannot consolidate; without release frames nothing mixes; PAUSE
        // frames have one slot.
        let one_slot = c.mode == Mode::Pause || c.queues == 1 || !c.zero_on_release;
        // Every kind of event at least `k` times per million clocks.
        let per_m = (n as f64 / 1e6).min(1.0);
        let min = |k: u64| ((k as f64) * per_m).ceil() as u64;
        let mut g = vec![
            Gate::at_least("frames", counts.frames, min(1000)),
            Gate::at_least("hw rises", counts.hw_rises, min(100)),
            Gate::at_least("fill rises", counts.fill_rises, min(100)),
            Gate::at_least("falls", counts.falls, min(100)),
            Gate::at_least("refreshes", counts.refreshes, min(100)),
            Gate::at_least("software requests sent", counts.sw_sent, min(100)),
            Gate::at_least("software requests deferred", counts.sw_again, min(100)),
            Gate::at_least("merges", counts.merges, min(100)),
            Gate::at_least("busy waits", counts.busy_waits, min(1000)),
            Gate::at_least("frames a stalling wire held", s.stalled_frames, min(100)),
            Gate::at_least("frames held 100 clocks or more", s.long_stalls, min(10)),
            Gate::at_least("clocks a frame's last word waited", s.last_waits, min(100)),
        ];
        if c.zero_on_release {
            g.push(Gate::at_least("releases", counts.releases, min(50)));
            g.push(Gate::at_least("software requests deferred by a release", counts.sw_after_release, min(20)));
        } else {
            g.push(Gate::exactly("release frames (zero_on_release off: none)", counts.releases, 0));
        }
        if !one_slot {
            g.push(Gate::at_least("consolidated frames", counts.consolidated, min(50)));
            g.push(Gate::at_least("frames with a pause time and a release", m.mixed, min(20)));
        }
        g
    });
    r.notes.push(format!("configuration {cfg:?}"));
    Ok(r)
}
