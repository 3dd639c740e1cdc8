//! The Ethernet receive buffers' testbench: random frames (tagged, untagged, runts,
//! oversize, control) with readers that stall and race, in lockstep; coverage: frames
//! stored, dropped and read, nearly-full clocks, the frame kinds sent.

use crate::blocks::eth_rxbuf::{eth_rxbuf_sim, EthRxbufModelSim, EthRxbufStimulus, RxFrameKind};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::eth_rxbuf::{EthRxbufIn, EthRxbufOut};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "QUEUES", allowed: Allowed::Ints(&[1, 2, 3, 4, 5, 6, 7, 8]), default: "4", verilog: true, help: "queues" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "64", verilog: true, help: "bits per clock (ADDR_BITS follows)" },
];

/// The lockstep test's runs: (seed, queues, width).
pub const TEST_CONFIGS: [(u64, usize, usize); 4] = [(31, 1, 32), (32, 3, 64), (33, 8, 32), (34, 4, 64)];

/// The test's seed for a configuration, when the test runs it.
pub fn test_seed(queues: usize, width: usize) -> Option<u64> {
    TEST_CONFIGS.iter().find(|c| (c.1, c.2) == (queues, width)).map(|c| c.0)
}

/// The test's seed for a configuration it runs, else one made from the configuration.
pub fn seed(queues: usize, width: usize) -> u64 {
    test_seed(queues, width).unwrap_or(0x3e00 + 100 * queues as u64 + width as u64)
}

/// The model adapter, also counting frames stored (a fill that rose) and frames dropped
/// in the clock their queue's fill rose (decided against a fill that counts the frame
/// stored the clock before).
pub struct Coverage {
    inner: EthRxbufModelSim,
    last_fill: [u16; 8],
    pub stored: u64,
    pub dropped_behind: u64,
}

impl CycleSim for Coverage {
    type In = EthRxbufIn;
    type Out = EthRxbufOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &EthRxbufIn) -> EthRxbufOut {
        let o = self.inner.step(i);
        for q in 0..8 {
            let rose = o.fill_bytes[q] > self.last_fill[q];
            self.stored += rose as u64;
            self.dropped_behind += (rose && o.drop >> q & 1 == 1) as u64;
        }
        self.last_fill = o.fill_bytes;
        o
    }
}

pub fn run(queues: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "eth_rxbuf",
        o,
        || Coverage { inner: EthRxbufModelSim::new(queues, width), last_fill: [0; 8], stored: 0, dropped_behind: 0 },
        |b, vcd| eth_rxbuf_sim(queues, width, b, vcd),
        || EthRxbufStimulus::new(seed, queues, width),
        |s, _| endless(s),
        None,
    )?;
    let mut sizes = None;
    let mut r = out.report(format!("eth_rxbuf {queues} queues, {width} bits"), seed, |m, stim, n| {
        sizes = Some(stim.config().cfg_size_words);
        let inner = &m.inner;
        let min = (n / 10_000).max(1);
        let mut g = vec![
            Gate::at_least("frames stored", m.stored, 10 * min),
            Gate::at_least("frames dropped", inner.dropped, min),
            Gate::at_least("frames marked bad by the MAC (s_axis_tuser), not stored", inner.marked, min),
            Gate::at_least("words moved to the readers", inner.read, 100 * min),
            Gate::at_least("clocks a word waited for its reader (tready low)", inner.waited, 100 * min),
            Gate::at_least("nearly-full clocks", inner.nearly_full, 10 * min),
            Gate::at_least("bursts of one-word frames back to back", stim.bursts, min),
            Gate::at_least("frames dropped in the clock after one was stored in their queue", m.dropped_behind, min.div_ceil(10)),
        ];
        for k in [RxFrameKind::Tagged, RxFrameKind::Untagged, RxFrameKind::Runt, RxFrameKind::Oversize, RxFrameKind::Control] {
            g.push(Gate::at_least(format!("{k:?} frames sent"), stim.sent.iter().filter(|&&x| x == k).count() as u64, min));
        }
        g
    });
    if let Some(s) = sizes {
        r.notes.push(format!("queue sizes in words {:?}", &s[..queues]));
    }
    Ok(r)
}
