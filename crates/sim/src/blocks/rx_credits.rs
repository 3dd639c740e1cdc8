//! RX credits in all three back ends, and a random stimulus that plays the link peer.
//!
//! RTL: [`iblink_rtl::rx_credits`]; reference: [`iblink_model::credits::RxCredits`].

use crate::blocks::Backend;
use crate::blocks::tx_credits::{random_blocks, CreditsSimError};
use crate::blocks::twin_box;
use crate::CycleSim;
use iblink_model::credits::{RxCredits, TxCredits};
use iblink_rtl::catalog::rx_credits_variant;
use iblink_rtl::rx_credits::*;
use iblink_rtl::vl::{MAX_VLS, VL_CAPS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// The reference model as a cycle simulation: one [`RxCredits`] per data VL. `fccl` and
/// `overruns` come from the registers (the state before this clock's edge); `accepted`
/// and `dropped` are registers holding the previous clock's accept result. The overrun
/// counters are 16-bit saturating registers in the RTL, so the model's count is shown
/// through the same width.
pub struct RxCreditsModelSim {
    vls: usize,
    rx: Vec<RxCredits>,
    accepted: bool,
    dropped: bool,
}

impl RxCreditsModelSim {
    pub fn new(vls: usize, capacity: u16) -> Self {
        Self {
            vls,
            rx: vec![RxCredits::new(capacity); MAX_VLS],
            accepted: false,
            dropped: false,
        }
    }
    /// The model state of VL `v` (for coverage counting).
    pub fn vl(&self, v: usize) -> &RxCredits {
        &self.rx[v]
    }
    pub fn vls(&self) -> usize {
        self.vls
    }
}

impl CycleSim for RxCreditsModelSim {
    type In = RxCreditsIn;
    type Out = RxCreditsOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &RxCreditsIn) -> RxCreditsOut {
        let mut out = RxCreditsOut {
            accepted: self.accepted,
            dropped: self.dropped,
            ..Default::default()
        };
        for v in 0..self.vls {
            out.fccl[v] = self.rx[v].fccl();
            out.overruns[v] = self.rx[v].overruns().min(u16::MAX as u32) as u16;
        }
        self.accepted = false;
        self.dropped = false;
        if i.reset {
            self.rx.iter_mut().for_each(RxCredits::reset);
            return out;
        }
        // Order within a clock (the RTL's): accept, drain, FCP.
        let av = (i.accept_vl & 0xf) as usize;
        if i.accept && av < self.vls {
            match self.rx[av].accept((i.accept_blocks & 0x7f) as u16) {
                Ok(()) => self.accepted = true,
                Err(_) => self.dropped = true,
            }
        }
        let dv = (i.drain_vl & 0xf) as usize;
        if i.drain && dv < self.vls {
            self.rx[dv].drain((i.drain_blocks & 0x7f) as u16);
        }
        let fv = (i.fcp_vl & 0xf) as usize;
        if i.fcp_valid && fv < self.vls {
            self.rx[fv].on_fcp(i.fcp_fctbs & 0xfff);
        }
        out
    }
}

pub type RxCreditsSim = Box<dyn CycleSim<In = RxCreditsIn, Out = RxCreditsOut>>;

/// RX credits for VLCap `vls` with `capacity` blocks per VL in back end `b`. The RTL back
/// ends (the twin, or Verilator on the module with `CAPACITY` set) exist for the sizes
/// with a rust-hdl type (`iblink_rtl::with_rx_credits!`): the default buffer (256) at
/// every VLCap, and the sizes the tests use (3072 at VLCap 1, 4, 15; 4095 at VLCap 15).
pub fn rx_credits_sim(vls: usize, capacity: u16, b: Backend, vcd: Option<&Path>) -> Result<RxCreditsSim, CreditsSimError> {
    if !VL_CAPS.contains(&vls) {
        return Err(CreditsSimError::VlCap(vls));
    }
    if b == Backend::Model {
        return Ok(Box::new(RxCreditsModelSim::new(vls, capacity)));
    }
    iblink_rtl::with_rx_credits!((vls, capacity), |T| twin_box::<_, T>(b, RxCreditsTwin::new(vls, capacity), || rx_credits_variant(vls, capacity), vcd),
        _ => Err(CreditsSimError::Capacity(capacity, vls)))
}

/// Random stimulus for the receiver, played against a simulated link peer: the peer's
/// transmitters (model [`TxCredits`]) send packets when the FCCL we last advertised to
/// them allows, and now and then when it does not (overruns); data packets and FCPs are
/// sometimes lost on the link (the peer's FCTBS then repairs our ABR); the higher layer
/// drains held packets; a few FCPs carry an arbitrary FCTBS; VL numbers at or above
/// VLCap appear; resets (resync) arrive mid-traffic. The generator keeps its own model
/// of the receiver so it only drains what is held.
pub struct RxCreditsStimulus {
    rng: ChaCha8Rng,
    vls: usize,
    rx: Vec<RxCredits>,
    peer: [TxCredits; MAX_VLS],
    held: Vec<VecDeque<u8>>,
    /// The higher layer stops draining for a while, so buffers fill (large ones too).
    stalled: bool,
}

impl RxCreditsStimulus {
    pub fn new(vls: usize, capacity: u16, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vls,
            rx: vec![RxCredits::new(capacity); MAX_VLS],
            peer: [TxCredits::new(); MAX_VLS],
            held: vec![VecDeque::new(); MAX_VLS],
            stalled: false,
        }
    }

    fn any_vl(&mut self) -> usize {
        if self.rng.gen_ratio(1, 30) {
            self.rng.gen_range(0..16)
        } else {
            self.rng.gen_range(0..self.vls)
        }
    }
}

impl Iterator for RxCreditsStimulus {
    type Item = RxCreditsIn;
    fn next(&mut self) -> Option<RxCreditsIn> {
        let r = &mut self.rng;
        let mut i = RxCreditsIn::default();
        if r.gen_ratio(1, 40_000) {
            i.reset = true;
            i.accept = r.gen();
            i.accept_blocks = r.gen_range(0..128);
            i.drain = r.gen();
            i.drain_blocks = r.gen_range(0..128);
            self.rx.iter_mut().for_each(RxCredits::reset);
            self.peer.iter_mut().for_each(TxCredits::reset);
            self.held.iter_mut().for_each(VecDeque::clear);
            return Some(i);
        }
        // A data packet from the peer.
        if self.rng.gen_ratio(3, 5) {
            let v = self.any_vl();
            let blocks = random_blocks(&mut self.rng);
            i.accept_vl = v as u8;
            i.accept_blocks = blocks;
            if v < self.vls {
                let allowed = self.peer[v].can_send(blocks as u16);
                if allowed || self.rng.gen_ratio(1, 25) {
                    self.peer[v].on_send(blocks as u16);
                    // Lost on the link now and then: it never reaches us.
                    if !self.rng.gen_ratio(1, 100) {
                        i.accept = true;
                        if self.rx[v].accept(blocks as u16).is_ok() {
                            self.held[v].push_back(blocks);
                        }
                    }
                }
            } else {
                i.accept = self.rng.gen();
            }
        }
        if self.rng.gen_ratio(1, 3000) {
            self.stalled = !self.stalled;
        }
        // The higher layer takes a held packet.
        if !self.stalled && self.rng.gen_ratio(1, 2) {
            let v = self.any_vl();
            i.drain_vl = v as u8;
            if v < self.vls {
                if let Some(b) = self.held[v].pop_front() {
                    i.drain = true;
                    i.drain_blocks = b;
                    self.rx[v].drain(b as u16);
                }
            } else {
                i.drain = self.rng.gen();
                i.drain_blocks = self.rng.gen_range(0..128);
            }
        }
        // Our FCP to the peer (its CL := our FCCL); not an input of this block.
        if self.rng.gen_ratio(1, 8) {
            let v = self.rng.gen_range(0..self.vls);
            if !self.rng.gen_ratio(1, 10) {
                self.peer[v].on_fcp(self.rx[v].fccl());
            }
        }
        // The peer's FCP to us: ABR := FCTBS, unless lost.
        if self.rng.gen_ratio(1, 10) {
            let v = self.any_vl();
            i.fcp_vl = v as u8;
            let fctbs = if v < self.vls && !self.rng.gen_ratio(1, 50) {
                self.peer[v].fctbs()
            } else {
                self.rng.gen_range(0..4096)
            };
            if !self.rng.gen_ratio(1, 10) {
                i.fcp_valid = true;
                i.fcp_fctbs = fctbs;
                if v < self.vls {
                    self.rx[v].on_fcp(fctbs);
                }
            }
        }
        Some(i)
    }
}
