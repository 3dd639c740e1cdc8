//! The SLtoVL table in every back end, with random stimulus.
//! RTL: [`iblink_rtl::sl2vl`] (the `rtl` back end is its twin, [`SlToVlTwin`]); model:
//! [`iblink_model::sl2vl`].

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::sl2vl::{SlToVl, VlCap};
use iblink_rtl::catalog::sl2vl_variant;
use iblink_rtl::sl2vl::*;
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
