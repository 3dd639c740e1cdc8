//! The CRC-16 unit's testbench: docs/spec.md §3's check values in every back end, then the
//! random lockstep with coverage counted from the model's inputs and outputs.

use crate::blocks::crc16::{crc16_sim, crc16_through, Crc16ModelSim, Crc16Stimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, endless, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::crc16::{Crc16In, Crc16Out};

pub const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "DATA_WIDTH",
    allowed: Allowed::Ints(&[8, 16, 32, 64]),
    default: "32",
    verilog: true,
    help: "bits per clock",
}];

/// The lockstep test's seed at `width` bits.
pub fn seed(width: usize) -> u64 {
    0x1b11_0000 + width as u64
}

/// Counts what the stimulus exercised, seen through the model's outputs and inputs.
pub struct Coverage<S> {
    inner: S,
    pub packets: u64,
    pub partial_last: u64,
    pub back_to_back: u64,
    prev_last: bool,
    lanes: u32,
}

impl<S: CycleSim<In = Crc16In, Out = Crc16Out>> CycleSim for Coverage<S> {
    type In = Crc16In;
    type Out = Crc16Out;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &Crc16In) -> Crc16Out {
        let o = self.inner.step(i);
        self.packets += o.crc_valid as u64;
        if i.valid && !i.reset && i.last && (i.keep as u32) < (1 << self.lanes) - 1 {
            self.partial_last += 1;
        }
        if i.valid && !i.reset && i.start && self.prev_last {
            self.back_to_back += 1;
        }
        self.prev_last = i.valid && i.last && !i.reset;
        o
    }
}

/// docs/spec.md §3: "123456789" gives 0x0A3D and the FCP header 10 00 00 00 gives 0x0558.
pub const SPEC_VECTORS: [(&[u8], u16); 2] = [(b"123456789", 0x0a3d), (&[0x10, 0, 0, 0], 0x0558)];

/// The unit at `width` bits: the spec's vectors through every back end (at the start of the
/// waveforms), then `o.cycles` clocks of random packets in lockstep.
pub fn run(width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let vectors = |s: &mut dyn CycleSim<In = Crc16In, Out = Crc16Out>| -> Vec<String> {
        SPEC_VECTORS
            .iter()
            .filter_map(|&(bytes, want)| {
                let got = crc16_through(s, width, bytes);
                (got != want).then(|| format!("{}: the CRC of {bytes:02x?} is {got:04x}, docs/spec.md §3 says {want:04x}", s.backend()))
            })
            .collect()
    };
    let out = harness::run(
        "crc16",
        o,
        || Coverage { inner: Crc16ModelSim::new(width), packets: 0, partial_last: 0, back_to_back: 0, prev_last: false, lanes: (width / 8) as u32 },
        |b, vcd| crc16_sim(width, b, vcd),
        || Crc16Stimulus::new(width, seed),
        |s, _| endless(s),
        Some(&vectors),
    )?;
    let runs = out.backends.len() as u64;
    let vector_failures = out.prelude.len() as u64;
    let mut r = out.report(format!("crc16 w{width}"), seed, |m, _, n| {
        let mut g = vec![
            Gate::more_than("packets", m.packets, n / 200),
            Gate::more_than("back-to-back packets", m.back_to_back, n / 1000),
        ];
        // At 8 bits every word is one byte: no partial last word.
        if width > 8 {
            g.push(Gate::more_than("partial last words", m.partial_last, n / 1000));
        } else {
            g.push(Gate::info("partial last words", m.partial_last));
        }
        g
    });
    r.gates.insert(0, Gate::exactly("docs/spec.md §3 vectors wrong", vector_failures, 0));
    r.notes.insert(
        0,
        format!(
            "docs/spec.md §3 vectors (123456789 -> 0a3d, 10 00 00 00 -> 0558): {} of {} right in {}",
            2 * runs - vector_failures,
            2 * runs,
            r.backends.join(", ")
        ),
    );
    Ok(r)
}
