//! The link RX classifier's testbench: a random receive stream (good, VCRC, length and
//! bad-VL packets, VL15, link words, cuts, gaps, bit flips, resets) in lockstep; coverage
//! from what the model judged and what the back ends showed.

use crate::blocks::link_rx::{link_rx_sim, LinkRxModelSim, LinkRxStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::link_rx::{LinkRxIn, LinkRxOut, STATUS_BAD_VL, STATUS_GOOD, STATUS_LENGTH, STATUS_VCRC};

pub const PARAMS: &[ParamSpec] = &[
    ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" },
    ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "32", verilog: true, help: "link word bits" },
];

/// The lockstep test's seed at VLCap `vls`, `width` bits.
pub fn seed(vls: usize, width: usize) -> u64 {
    0x11e0_0000 + (vls * 100 + width) as u64
}

/// Counts what the back ends showed, around the model.
pub struct Coverage {
    inner: LinkRxModelSim,
    pub done: [u64; 4],
    pub acc: u64,
    pub vl15_accept: u64,
    pub out_abort: u64,
    pub words_out: u64,
}

impl CycleSim for Coverage {
    type In = LinkRxIn;
    type Out = LinkRxOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &LinkRxIn) -> LinkRxOut {
        let o = self.inner.step(i);
        if o.done {
            self.done[o.done_status as usize] += 1;
        }
        self.acc += o.acc_valid as u64;
        self.vl15_accept += o.vl15_accept as u64;
        self.out_abort += o.out_abort as u64;
        self.words_out += o.out_valid as u64;
        o
    }
}

pub fn run(vls: usize, width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "link_rx",
        o,
        || Coverage { inner: LinkRxModelSim::new(vls, width), done: [0; 4], acc: 0, vl15_accept: 0, out_abort: 0, words_out: 0 },
        |b, vcd| link_rx_sim(vls, width, b, vcd),
        || LinkRxStimulus::new(vls, width, seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("link_rx VLCap {vls} W{width}"), seed, |m, stim, _| {
        let t = *m.inner.tally();
        // Every verdict, both accept kinds, cuts, gaps and resets were exercised (and shown).
        let mut g = vec![
            Gate::at_least("verdicts good", m.done[STATUS_GOOD as usize], 2000),
            Gate::at_least("verdicts VCRC", m.done[STATUS_VCRC as usize], 500),
            Gate::at_least("verdicts length", m.done[STATUS_LENGTH as usize], 500),
        ];
        if vls < 15 {
            g.push(Gate::at_least("verdicts bad VL", m.done[STATUS_BAD_VL as usize], 100));
        } else {
            // VLCap 15: every VL is a data VL or VL15.
            g.push(Gate::exactly("verdicts bad VL (VLCap 15: none)", m.done[STATUS_BAD_VL as usize], 0));
        }
        g.extend([
            Gate::at_least("accepts", m.acc, 1500),
            Gate::at_least("VL15 accepts", m.vl15_accept, 150),
            Gate::at_least("good packets of PktLen > 512", t.good_long, 20),
            Gate::at_least("cuts (out_abort)", m.out_abort, 100),
            Gate::at_least("back-to-back packets", t.back_to_back, 1000),
            Gate::at_least("gaps inside packets", t.gaps_inside, 1000),
            Gate::at_least("link words", t.link_words, 1000),
            Gate::at_least("resets", t.resets, 20),
            Gate::info("words out", m.words_out),
            Gate::info("bit flips", stim.flips),
        ]);
        g
    }))
}
