//! The Ethernet flow-control port's testbench: the reference model `EthPort`, the
//! composed Rust stepper (every block's twin, wired by the netlist the Verilog top is
//! rendered from, with the schedule check on) and Verilator on the generated top, on a
//! reactive stimulus (users, the far end's frames, readers, a MAC that stalls) with a random valid
//! configuration from the seed; coverage on what the model did.

use crate::blocks::eth_port::{eth_port_sim, EthPortModelSim, EthPortStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "QUEUES", allowed: Allowed::Ints(&[1, 2, 3, 4, 5, 6, 7, 8]), default: "4", verilog: true, help: "queues (of the generated top and every block in it)" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "64", verilog: true, help: "bits per clock" },
];

/// The lockstep test's runs: (seed, queues, width).
pub const TEST_CONFIGS: [(u64, usize, usize); 5] = [(51, 1, 32), (52, 3, 64), (53, 8, 32), (54, 4, 64), (55, 2, 32)];

/// The test's seed for a configuration, when the test runs it.
pub fn test_seed(queues: usize, width: usize) -> Option<u64> {
    TEST_CONFIGS.iter().find(|c| (c.1, c.2) == (queues, width)).map(|c| c.0)
}

/// The test's seed for a configuration it runs, else one made from the configuration.
pub fn seed(queues: usize, width: usize) -> u64 {
    test_seed(queues, width).unwrap_or(0x5e00 + 100 * queues as u64 + width as u64)
}

pub fn run(queues: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let (q, w) = (queues, width);
    let out = harness::run(
        "eth_port",
        o,
        || EthPortModelSim::new(q, w),
        |b, vcd| eth_port_sim(q, w, b, vcd),
        || EthPortStimulus::new(seed, q, w),
        |s, p| s.next(p),
        None,
    )?;
    let mut mode = None;
    let mut r = out.report(format!("eth_port {q} queues, {w} bits"), seed, |model, stim, n| {
        mode = Some(if stim.config().cfg_pfc { "PFC" } else { "PAUSE" });
        model.finish();
        let (c, p) = (&model.counts, &model.pfc);
        let min = (n / 20_000).max(1);
        // Level rises come with the stimulus's phases (hundreds to thousands of clocks).
        let rare = (n / 100_000).max(1);
        let mut g: Vec<Gate> = (0..q).map(|k| Gate::at_least(format!("data frames sent, queue {k}"), c.tx_frames[k], 10 * min)).collect();
        g.extend([
            Gate::at_least("PAUSE/PFC frames sent", c.ctrl_frames, 10 * min),
            Gate::at_least("fill rises", p.fill_rises, rare),
            Gate::at_least("hw rises", p.hw_rises, rare),
            Gate::at_least("refreshes", p.refreshes, min),
            Gate::at_least("busy waits", p.busy_waits, min),
            Gate::at_least("receive drops", c.rx_drops[..q].iter().sum(), min),
            Gate::at_least("frames marked bad by the MAC, dropped", c.rx_bad, min),
            Gate::at_least("clocks a queue was held", c.held[..q].iter().sum(), 100 * min),
            Gate::at_least("clocks a priority was paused", model.paused_clocks, n / 50),
            Gate::at_least("clocks a data word waited for m_axis_mac_tready", c.data_stalls, 100 * min),
            Gate::at_least("clocks a PAUSE/PFC word waited for m_axis_mac_tready", c.ctrl_stalls, min),
            Gate::at_least("clocks a received word waited for m_axis_rx_tready", model.rx_waits, 100 * min),
            Gate::info("releases", p.releases),
            Gate::info("software requests sent", p.sw_sent),
        ]);
        g
    });
    if let Some(m) = mode {
        r.notes.push(format!("configuration: {m} mode"));
    }
    Ok(r)
}
