//! The VL15 receive buffer in every back end, with random stimulus.
//! RTL: [`iblink_rtl::vl15_rx`] (the `rtl` back end is its twin, [`Vl15RxTwin`]); model:
//! [`iblink_model::vl15`].

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::vl15::Vl15Buffer;
use iblink_rtl::catalog::vl15_rx_variant;
use iblink_rtl::vl15_rx::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The model's VL15 buffer as a cycle simulation, with the RTL's registered strobes and
/// 16-bit saturating drop count.
pub struct Vl15RxModelSim {
    buf: Vl15Buffer,
    kept: bool,
    dropped: bool,
}

impl Vl15RxModelSim {
    pub fn new(cap: usize) -> Self {
        Self {
            buf: Vl15Buffer::new(cap as u8),
            kept: false,
            dropped: false,
        }
    }
    fn out(&self) -> Vl15RxOut {
        Vl15RxOut {
            kept: self.kept,
            dropped: self.dropped,
            held: self.buf.held(),
            drop_count: self.buf.dropped().min(0xffff) as u16,
        }
    }
}

impl CycleSim for Vl15RxModelSim {
    type In = Vl15RxIn;
    type Out = Vl15RxOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &Vl15RxIn) -> Vl15RxOut {
        let out = self.out();
        if i.reset {
            self.buf.clear();
            self.kept = false;
            self.dropped = false;
            return out;
        }
        // The arrival is judged before this clock's drain.
        let (kept, dropped) = if i.accept {
            let k = self.buf.accept();
            (k, !k)
        } else {
            (false, false)
        };
        if i.drain {
            self.buf.drain();
        }
        self.kept = kept;
        self.dropped = dropped;
        out
    }
}

pub type Vl15RxSim = Box<dyn CycleSim<In = Vl15RxIn, Out = Vl15RxOut>>;

pub fn vl15_rx_sim(cap: usize, b: Backend, vcd: Option<&Path>) -> Result<Vl15RxSim, SimBuildError> {
    match (b, cap) {
        (Backend::Model, c) if (1..=255).contains(&c) => Ok(Box::new(Vl15RxModelSim::new(c))),
        (Backend::Model, _) => Err(SimBuildError::Variant(format!("VL15 buffer of {cap} packets"))),
        _ => iblink_rtl::with_vl15_rx!(cap, |T| twin_box::<_, T>(b, Vl15RxTwin::new(cap), || vl15_rx_variant(cap), vcd),
            _ => Err(SimBuildError::Variant(format!("VL15 buffer of {cap} packets")))),
    }
}

/// Bursts of SMPs against a management agent that drains at a varying pace (sometimes
/// stalled, so the buffer fills and drops), and the occasional resync.
pub struct Vl15RxStimulus {
    rng: ChaCha8Rng,
    /// Per-mille chance of an arrival / a drain in the current phase.
    arrive: u32,
    drain: u32,
    phase_left: u32,
}

impl Vl15RxStimulus {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            arrive: 0,
            drain: 0,
            phase_left: 0,
        }
    }
}

impl Iterator for Vl15RxStimulus {
    type Item = Vl15RxIn;
    fn next(&mut self) -> Option<Vl15RxIn> {
        let r = &mut self.rng;
        if self.phase_left == 0 {
            self.arrive = r.gen_range(0..=1000);
            self.drain = if r.gen_ratio(1, 4) { 0 } else { r.gen_range(0..=1000) };
            self.phase_left = r.gen_range(10..2000);
        }
        self.phase_left -= 1;
        Some(Vl15RxIn {
            reset: r.gen_ratio(1, 20_000),
            accept: r.gen_range(0..1000) < self.arrive,
            drain: r.gen_range(0..1000) < self.drain,
        })
    }
}
