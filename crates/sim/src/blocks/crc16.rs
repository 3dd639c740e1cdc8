//! The CRC-16 unit in all three back ends, its random stimulus, and a helper that
//! runs one packet through any back end.
//!
//! RTL: [`iblink_rtl::crc16`] (the `rtl` back end is its twin, [`Crc16Twin`]); reference:
//! [`iblink_model::crc16`].

pub use crate::blocks::SimBuildError;
use crate::blocks::{twin_box, Backend};
use crate::CycleSim;
use iblink_model::crc16::Crc16Stream;
use iblink_rtl::catalog::crc16_variant;
use iblink_rtl::crc16::{Crc16In, Crc16Out, Crc16Twin};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The reference model as a cycle simulation: the `crc` crate absorbs the bytes the
/// interface rules say a word carries; the two output registers are modelled as such.
pub struct Crc16ModelSim {
    lanes: usize,
    stream: Crc16Stream,
    crc: u16,
    crc_valid: bool,
    scratch: [u8; 8],
}

impl Crc16ModelSim {
    pub fn new(width_bits: usize) -> Self {
        Self {
            lanes: width_bits / 8,
            stream: Crc16Stream::default(),
            crc: 0,
            crc_valid: false,
            scratch: [0; 8],
        }
    }
}

impl CycleSim for Crc16ModelSim {
    type In = Crc16In;
    type Out = Crc16Out;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &Crc16In) -> Crc16Out {
        let out = Crc16Out {
            crc: self.crc,
            crc_valid: self.crc_valid,
        };
        if i.reset {
            self.stream.start();
            self.crc = 0;
            self.crc_valid = false;
            return out;
        }
        self.crc_valid = i.valid && i.last;
        if i.valid {
            if i.start {
                self.stream.start();
            }
            // keep: lanes 0 up to its highest set bit carry bytes (lanes past the width
            // do not exist).
            let keep = i.keep as u32 & ((1u32 << self.lanes) - 1);
            let n = (32 - keep.leading_zeros()) as usize;
            for (lane, b) in self.scratch[..n].iter_mut().enumerate() {
                *b = (i.data >> (8 * lane)) as u8;
            }
            self.stream.update(&self.scratch[..n]);
            if i.last {
                self.crc = self.stream.finish();
            }
        }
        out
    }
}

pub type Crc16Sim = Box<dyn CycleSim<In = Crc16In, Out = Crc16Out>>;

/// A CRC unit of `width_bits` (8/16/32/64) in back end `b`, optionally writing a VCD.
pub fn crc16_sim(width_bits: usize, b: Backend, vcd: Option<&Path>) -> Result<Crc16Sim, SimBuildError> {
    if !iblink_rtl::crc16::WIDTHS.contains(&width_bits) {
        return Err(SimBuildError::Width(width_bits));
    }
    match b {
        Backend::Model => Ok(Box::new(Crc16ModelSim::new(width_bits))),
        _ => iblink_rtl::with_crc16!(width_bits, |T| twin_box::<_, T>(b, Crc16Twin::new(width_bits), || crc16_variant(width_bits), vcd),
            _ => Err(SimBuildError::Width(width_bits))),
    }
}

/// The words that carry `bytes` as one packet at `width_bits` per clock.
pub fn packet_words(bytes: &[u8], width_bits: usize) -> Vec<Crc16In> {
    let lanes = width_bits / 8;
    let chunks: Vec<&[u8]> = if bytes.is_empty() {
        vec![&[][..]]
    } else {
        bytes.chunks(lanes).collect()
    };
    let n = chunks.len();
    chunks
        .iter()
        .enumerate()
        .map(|(i, c)| Crc16In {
            reset: false,
            start: i == 0,
            valid: true,
            last: i + 1 == n,
            data: c.iter().enumerate().fold(0, |a, (l, b)| a | (*b as u64) << (8 * l)),
            keep: ((1u16 << c.len()) - 1) as u8,
        })
        .collect()
}

/// Run `bytes` through a CRC back end as one packet; the CRC it reports.
pub fn crc16_through(sim: &mut dyn CycleSim<In = Crc16In, Out = Crc16Out>, width_bits: usize, bytes: &[u8]) -> u16 {
    for w in packet_words(bytes, width_bits) {
        sim.step(&w);
    }
    // The result is registered: it shows the clock after the last word.
    let out = sim.step(&Crc16In::default());
    assert!(out.crc_valid, "{}: crc_valid not raised after the last word", sim.backend());
    out.crc
}

/// Random stimulus for lockstep: packets of random length (many back to back, some
/// with idle gaps or bubbles inside), partial last words, odd `keep` patterns, packets
/// abandoned by a new `start`, junk on idle cycles, and the occasional reset.
pub struct Crc16Stimulus {
    rng: ChaCha8Rng,
    lanes: usize,
    /// Words left in the packet in progress.
    left: usize,
    /// Bytes in the packet's last word when it is partial, else 0.
    partial: usize,
    first: bool,
}

impl Crc16Stimulus {
    pub fn new(width_bits: usize, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            lanes: width_bits / 8,
            left: 0,
            partial: 0,
            first: false,
        }
    }
}

impl Iterator for Crc16Stimulus {
    type Item = Crc16In;
    fn next(&mut self) -> Option<Crc16In> {
        let r = &mut self.rng;
        let junk = Crc16In {
            reset: false,
            start: r.gen(),
            valid: false,
            last: r.gen(),
            data: r.gen(),
            keep: r.gen(),
        };
        if r.gen_ratio(1, 20_000) {
            self.left = 0;
            return Some(Crc16In { reset: true, ..junk });
        }
        if self.left == 0 {
            // Between packets: usually straight into the next (back to back).
            if r.gen_ratio(1, 4) {
                return Some(junk);
            }
            let bytes = match r.gen_range(0..10) {
                0 => 4,                        // an FCP's LPCRC input
                1 => r.gen_range(1..=self.lanes),
                2 => r.gen_range(200..=600),   // a long data packet
                _ => r.gen_range(1..=80),
            };
            self.left = bytes.div_ceil(self.lanes);
            self.first = true;
            // Remember the partial-word size in the keep of the last word below.
            self.partial = bytes % self.lanes;
        }
        if !self.first && r.gen_ratio(1, 12) {
            return Some(junk); // a bubble inside the packet
        }
        let last = self.left == 1;
        let full = ((1u16 << self.lanes) - 1) as u8;
        let keep = if last && self.partial != 0 {
            if r.gen_ratio(1, 8) {
                // Only the highest set bit counts: scramble the bits below it.
                let top = 1u8 << (self.partial - 1);
                top | (r.gen::<u8>() & (top.wrapping_sub(1)))
            } else {
                ((1u16 << self.partial) - 1) as u8
            }
        } else if last && r.gen_ratio(1, 50) {
            0 // a last word that carries no byte
        } else {
            full
        };
        let start = self.first || r.gen_ratio(1, 400); // rarely: abandon and restart
        self.first = false;
        self.left -= 1;
        Some(Crc16In {
            reset: false,
            start,
            valid: true,
            last,
            data: r.gen(),
            keep,
        })
    }
}
