//! The Ethernet transmit queues' testbench: users, pauses and PAUSE/PFC frames that react
//! to the block (reactive stimulus), and a wire that stalls, in lockstep; coverage: frames
//! started, back to back, clocks held by a pause, words refused, stalls on a first, a last
//! and a PAUSE/PFC word, long stalls.

use crate::blocks::eth_txq::{eth_txq_sim, EthTxqModelSim, EthTxqStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "QUEUES", allowed: Allowed::Ints(&[1, 2, 3, 4, 5, 6, 7, 8]), default: "4", verilog: true, help: "queues" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "64", verilog: true, help: "bits per clock (ADDR_BITS follows)" },
];

/// The lockstep test's runs: (seed, queues, width).
pub const TEST_CONFIGS: [(u64, usize, usize); 4] = [(41, 1, 64), (42, 3, 32), (43, 8, 64), (44, 4, 32)];

/// The test's seed for a configuration, when the test runs it.
pub fn test_seed(queues: usize, width: usize) -> Option<u64> {
    TEST_CONFIGS.iter().find(|c| (c.1, c.2) == (queues, width)).map(|c| c.0)
}

/// The test's seed for a configuration it runs, else one made from the configuration.
pub fn seed(queues: usize, width: usize) -> u64 {
    test_seed(queues, width).unwrap_or(0x4e00 + 100 * queues as u64 + width as u64)
}

pub fn run(queues: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "eth_txq",
        o,
        || EthTxqModelSim::new(queues, width),
        |b, vcd| eth_txq_sim(queues, width, b, vcd),
        || EthTxqStimulus::new(seed, queues, width),
        |s, p| s.next(p),
        None,
    )?;
    Ok(out.report(format!("eth_txq {queues} queues, {width} bits"), seed, |m, stim, n| {
        let min = (n / 10_000).max(1);
        vec![
            Gate::info("frames offered", stim.frames_offered),
            Gate::at_least("frames started", m.started, 10 * min),
            Gate::at_least("frames back to back", m.back_to_back, min),
            Gate::at_least("clocks a frame was held by a pause", m.held, 10 * min),
            Gate::at_least("words refused", m.refused, 10 * min),
            Gate::at_least("clocks a data word waited for m_axis_tready", m.stalled_data, 100 * min),
            Gate::at_least("of them a frame's first word", m.stalled_first, 10 * min),
            Gate::at_least("of them a frame's last word", m.stalled_last, 10 * min),
            Gate::at_least("clocks a PAUSE/PFC word waited for m_axis_tready", m.stalled_ctrl, min),
            Gate::at_least("stalls of 100 clocks or more", m.long_stalls, min),
        ]
    }))
}
