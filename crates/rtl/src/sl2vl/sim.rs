//! SLtoVL table and VL15 receive buffer in every back end, with random stimulus.
//! RTL: [`iblink_rtl::sl2vl`], [`iblink_rtl::vl15_rx`] (the `rtl` back end is their
//! twins, [`SlToVlTwin`] and [`Vl15RxTwin`]); models:
//! [`iblink_model::sl2vl`], [`iblink_model::vl15`].

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::sl2vl::{SlToVl, VlCap};
use iblink_model::vl15::Vl15Buffer;
use iblink_rtl::catalog::{sl2vl_variant, vl15_rx_variant};
use iblink_rtl::sl2vl::*;
use iblink_rtl::vl15_rx::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The model's table as a cycle simulation: writes land at the clock edge (a refused
/// one raises `wr_reject` the next clock); the lookup is combinational.
pub struct SlToVlModelSim {
    table: SlToVl,
    cap: VlCap,
    wr_reject: bool,
}

impl SlToVlModelSim {
    pub fn new(vls: usize) -> Self {
        let cap = VlCap::new(vls as u64).expect("VLCap");
        Self {
            table: SlToVl::new(cap),
            cap,
            wr_reject: false,
        }
    }
}

impl CycleSim for SlToVlModelSim {
    type In = SlToVlIn;
    type Out = SlToVlOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &SlToVlIn) -> SlToVlOut {
        let out = SlToVlOut {
            lookup_vl: self.table.map(i.lookup_sl),
            wr_reject: self.wr_reject,
        };
        if i.reset {
            self.table = SlToVl::new(self.cap);
            self.wr_reject = false;
        } else {
            self.wr_reject = i.wr_en && self.table.set(i.wr_sl & 0xf, i.wr_vl & 0xf).is_err();
        }
        out
    }
}

pub type SlToVlSim = Box<dyn CycleSim<In = SlToVlIn, Out = SlToVlOut>>;

pub fn sl2vl_sim(vls: usize, b: Backend, vcd: Option<&Path>) -> Result<SlToVlSim, SimBuildError> {
    if !matches!(vls, 1 | 2 | 4 | 8 | 15) {
        return Err(SimBuildError::VlCap(vls));
    }
    match b {
        Backend::Model => Ok(Box::new(SlToVlModelSim::new(vls))),
        _ => iblink_rtl::with_sl2vl!(vls, |T| twin_box::<_, T>(b, SlToVlTwin::new(vls), || sl2vl_variant(vls), vcd),
            _ => Err(SimBuildError::VlCap(vls))),
    }
}

/// Random writes (valid and refused: SL15, VL >= VLCap, VL15), lookups of every SL,
/// and the occasional reset.
pub struct SlToVlStimulus {
    rng: ChaCha8Rng,
}

impl SlToVlStimulus {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Iterator for SlToVlStimulus {
    type Item = SlToVlIn;
    fn next(&mut self) -> Option<SlToVlIn> {
        let r = &mut self.rng;
        Some(SlToVlIn {
            reset: r.gen_ratio(1, 5_000),
            wr_en: r.gen_ratio(1, 3),
            wr_sl: r.gen_range(0..16),
            wr_vl: r.gen_range(0..16),
            lookup_sl: r.gen_range(0..16),
        })
    }
}

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
