//! The pipelined dword CRC unit's testbench: random packets (back to back, without
//! `start`, abandoned, with bubbles and resets in flight) in lockstep, coverage counted from
//! the inputs and the model's outputs.

use crate::blocks::crc16_dword::{crc16_dword_sim, Crc16DwordModelSim, Crc16DwordStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::ParamSpec;
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::crc16::Crc16Out;
use iblink_rtl::crc16_dword::Crc16DwordIn;

/// One configuration: 32 bits a clock, no parameter.
pub const PARAMS: &[ParamSpec] = &[];

/// The lockstep test's seed.
pub const SEED: u64 = 0xd0_0032;

/// Counts what the stimulus exercised, from its inputs and the model's outputs.
#[derive(Default)]
pub struct Coverage {
    inner: Crc16DwordModelSim,
    pub packets: u64,
    pub back_to_back: u64,
    /// Packets begun without `start` (after a `last` or a reset).
    pub startless: u64,
    /// `start` inside a packet: the packet so far is abandoned.
    pub abandoned: u64,
    /// Resets with a word presented in the same or one of the two previous clocks.
    pub resets_in_flight: u64,
    pub bubbles: u64,
    in_packet: bool,
    prev_last: bool,
    recent_valid: [bool; 3],
}

impl CycleSim for Coverage {
    type In = Crc16DwordIn;
    type Out = Crc16Out;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &Crc16DwordIn) -> Crc16Out {
        let o = self.inner.step(i);
        self.packets += o.crc_valid as u64;
        self.recent_valid = [i.valid, self.recent_valid[0], self.recent_valid[1]];
        if i.reset {
            self.resets_in_flight += self.recent_valid.iter().any(|v| *v) as u64;
            self.in_packet = false;
            self.prev_last = false;
            return o;
        }
        if i.valid {
            self.back_to_back += (self.prev_last && i.start) as u64;
            self.startless += (!self.in_packet && !i.start) as u64;
            self.abandoned += (self.in_packet && i.start) as u64;
            self.in_packet = !i.last;
        } else {
            self.bubbles += self.in_packet as u64;
        }
        self.prev_last = i.valid && i.last;
        o
    }
}

pub fn run(seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "crc16_dword",
        o,
        Coverage::default,
        crc16_dword_sim,
        || Crc16DwordStimulus::new(seed),
        |s, _| endless(s),
        None,
    )?;
    Ok(out.report("crc16_dword w32".into(), seed, |m, _, n| {
        vec![
            Gate::more_than("packets", m.packets, n / 50),
            Gate::more_than("back-to-back packets", m.back_to_back, n / 200),
            Gate::more_than("packets without start", m.startless, n / 1000),
            Gate::more_than("abandoned packets", m.abandoned, n / 10_000),
            Gate::more_than("bubbles", m.bubbles, n / 100),
            Gate::at_least("resets with words in flight", m.resets_in_flight, 50),
        ]
    }))
}
