//! The pipelined dword CRC unit in all three back ends, and its random stimulus.
//!
//! RTL: [`iblink_rtl::crc16_dword`] (the `rtl` back end is its twin, [`Crc16DwordTwin`]);
//! reference: [`iblink_model::crc16`] (the `crc` crate), wrapped in the unit's cycle
//! contract by [`Crc16DwordModelSim`].

use crate::blocks::Backend;
use crate::blocks::{twin_box, SimBuildError};
use crate::CycleSim;
use iblink_model::crc16::Crc16Stream;
use iblink_rtl::catalog::crc16_dword_variant;
use iblink_rtl::crc16::Crc16Out;
use iblink_rtl::crc16_dword::{Crc16DwordIn, Crc16DwordTwin, WIDTH};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// A word inside the pipeline.
#[derive(Clone, Copy, Debug)]
struct Word {
    start: bool,
    last: bool,
    data: u32,
}

/// The reference CRC stream as a cycle simulation with the unit's contract
/// ([`iblink_rtl::crc16_dword`], "Cycle contract"): a word presented in clock `t` reaches
/// the stream at the end of clock `t + 2` (a `start` word restarts it first), a `last`
/// word's CRC shows in `crc`/`crc_valid` during `t + 3`; `reset` in clock `r` drops the
/// words of `r` and `r - 1`, suppresses `crc_valid` (not the `crc` load) of the word
/// of `r - 2`, and restarts the stream after it.
#[derive(Default)]
pub struct Crc16DwordModelSim {
    stream: Crc16Stream,
    /// Words presented one and two clocks ago (stages 1 and 2), if valid and kept.
    stage1: Option<Word>,
    stage2: Option<Word>,
    crc: u16,
    crc_valid: bool,
}


impl Crc16DwordModelSim {
    pub fn new() -> Self {
        Self::default()
    }
}

impl CycleSim for Crc16DwordModelSim {
    type In = Crc16DwordIn;
    type Out = Crc16Out;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &Crc16DwordIn) -> Crc16Out {
        let out = Crc16Out {
            crc: self.crc,
            crc_valid: self.crc_valid,
        };
        // The word leaving the pipeline at this clock's edge.
        self.crc_valid = false;
        if let Some(w) = self.stage2.take() {
            if w.start {
                self.stream.start();
            }
            self.stream.update(&w.data.to_le_bytes());
            if w.last {
                self.crc = self.stream.finish();
                self.crc_valid = !i.reset;
            }
        }
        if i.reset {
            self.stream.start();
            self.stage1 = None;
            return out;
        }
        self.stage2 = self.stage1.take();
        self.stage1 = i.valid.then_some(Word {
            start: i.start,
            last: i.last,
            data: i.data,
        });
        out
    }
}

pub type Crc16DwordSim = Box<dyn CycleSim<In = Crc16DwordIn, Out = Crc16Out>>;

/// The dword CRC unit (32 bits a clock) in back end `b`, optionally writing a VCD.
pub fn crc16_dword_sim(b: Backend, vcd: Option<&Path>) -> Result<Crc16DwordSim, SimBuildError> {
    match b {
        Backend::Model => Ok(Box::new(Crc16DwordModelSim::new())),
        _ => iblink_rtl::with_crc16_dword!(WIDTH, |T| twin_box::<_, T>(b, Crc16DwordTwin::new(), || crc16_dword_variant(WIDTH), vcd),
            _ => Err(SimBuildError::Width(WIDTH))),
    }
}

/// The words that carry `bytes` (a whole number of dwords) as one packet.
pub fn dword_packet(bytes: &[u8]) -> Vec<Crc16DwordIn> {
    assert!(!bytes.is_empty() && bytes.len() % 4 == 0, "a packet of whole dwords");
    let n = bytes.len() / 4;
    bytes
        .chunks(4)
        .enumerate()
        .map(|(k, c)| Crc16DwordIn {
            reset: false,
            start: k == 0,
            valid: true,
            last: k + 1 == n,
            data: u32::from_le_bytes(c.try_into().unwrap()),
        })
        .collect()
}

/// Random stimulus for lockstep: packets of 1 to 150 dwords (LPCRC-sized single words,
/// data packets up to 600 bytes), mostly back to back, some with idle gaps or bubbles
/// inside; a packet after a `last` or a reset sometimes without `start` (the unit
/// restarts by itself); packets abandoned by a new `start`; junk on idle clocks; resets
/// with words in flight.
pub struct Crc16DwordStimulus {
    rng: ChaCha8Rng,
    /// Words left in the packet in progress.
    left: usize,
    first: bool,
    /// The previous packet ended cleanly (or a reset came): `start` may be left out.
    clean: bool,
}

impl Crc16DwordStimulus {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            left: 0,
            first: false,
            clean: true,
        }
    }
}

impl Iterator for Crc16DwordStimulus {
    type Item = Crc16DwordIn;
    fn next(&mut self) -> Option<Crc16DwordIn> {
        let r = &mut self.rng;
        let junk = Crc16DwordIn {
            reset: false,
            start: r.gen(),
            valid: false,
            last: r.gen(),
            data: r.gen(),
        };
        if r.gen_ratio(1, 5_000) {
            // Reset, with or without a word (dropped either way).
            self.left = 0;
            self.clean = true;
            return Some(Crc16DwordIn {
                reset: true,
                valid: r.gen(),
                ..junk
            });
        }
        if self.left == 0 {
            if r.gen_ratio(1, 4) {
                return Some(junk);
            }
            self.left = match r.gen_range(0..10) {
                0 => 1,                     // an FCP's LPCRC input: one dword
                1 => r.gen_range(50..=150), // a long data packet
                _ => r.gen_range(1..=20),
            };
            self.first = true;
        }
        if !self.first && r.gen_ratio(1, 12) {
            return Some(junk); // a bubble inside the packet
        }
        let last = self.left == 1;
        let start = if self.first {
            !(self.clean && r.gen_ratio(1, 4))
        } else {
            r.gen_ratio(1, 300) // abandon the packet and restart
        };
        self.first = false;
        self.left -= 1;
        self.clean = last;
        Some(Crc16DwordIn {
            reset: false,
            start,
            valid: true,
            last,
            data: r.gen(),
        })
    }
}
