//! The TX credit block's testbench: random traffic, FCPs and resets in lockstep, coverage
//! counted from the model's state and outputs (FCTBS wraps, credit-blocked clocks, the
//! 2048-block window's edges).

use crate::blocks::tx_credits::{tx_credits_sim, TxCreditsModelSim, TxCreditsStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::tx_credits::{TxCreditsIn, TxCreditsOut};

pub const PARAMS: &[ParamSpec] = &[ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "VLCap" }];

/// The lockstep test's seed at VLCap `vls`.
pub fn seed(vls: usize) -> u64 {
    0x7c00 + vls as u64
}

/// Counts what the TX stimulus exercised, from the model's state and outputs.
pub struct Coverage {
    inner: TxCreditsModelSim,
    pub fctbs_wraps: u64,
    pub sends: u64,
    /// Clocks in which some data VL's head packet failed the credit check.
    pub blocked: u64,
    /// Clocks in which a head packet's margin (CL - CR) was exactly 2048 / 2049.
    pub at_window: u64,
    pub past_window: u64,
    pub resets: u64,
}

impl CycleSim for Coverage {
    type In = TxCreditsIn;
    type Out = TxCreditsOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &TxCreditsIn) -> TxCreditsOut {
        let n = self.inner.vls();
        for v in 0..n {
            let m = self.inner.vl(v).margin(i.head_blocks[v] as u16 & 0x7f);
            self.at_window += (m == 2048) as u64;
            self.past_window += (m == 2049) as u64;
        }
        let before: Vec<u16> = (0..n).map(|v| self.inner.vl(v).fctbs()).collect();
        let o = self.inner.step(i);
        self.blocked += (o.credit_ok != ((1u32 << n) - 1) as u16) as u64;
        self.resets += i.reset as u64;
        if !i.reset && i.send && (i.send_vl as usize) < n {
            self.sends += 1;
            let v = i.send_vl as usize;
            // FCTBS passed 4095 -> 0.
            self.fctbs_wraps += (self.inner.vl(v).fctbs() < before[v]) as u64;
        }
        o
    }
}

pub fn run(vls: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "tx_credits",
        o,
        || Coverage { inner: TxCreditsModelSim::new(vls), fctbs_wraps: 0, sends: 0, blocked: 0, at_window: 0, past_window: 0, resets: 0 },
        |b, vcd| tx_credits_sim(vls, b, vcd),
        || TxCreditsStimulus::new(vls, seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report(format!("tx_credits VLCap {vls}"), seed, |m, _, n| {
        vec![
            Gate::info("sends", m.sends),
            Gate::at_least("FCTBS wraps", m.fctbs_wraps, 100),
            Gate::more_than("credit-blocked clocks", m.blocked, n / 100),
            Gate::more_than("margin exactly 2048", m.at_window, 100),
            Gate::more_than("margin exactly 2049", m.past_window, 100),
            Gate::at_least("resets", m.resets, 10),
        ]
    }))
}
