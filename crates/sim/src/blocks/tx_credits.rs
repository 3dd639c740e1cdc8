//! TX credits in all three back ends, and a random stimulus that plays the link peer.
//!
//! RTL: [`iblink_rtl::tx_credits`]; reference: [`iblink_model::credits::TxCredits`].

use crate::blocks::Backend;
use crate::blocks::twin_box;
use crate::CycleSim;
use iblink_model::blocks::MAX_PACKET_BLOCKS;
use iblink_model::credits::{RxCredits, TxCredits};
use iblink_rtl::catalog::tx_credits_variant;
use iblink_rtl::tx_credits::{
    TxCreditsTwin,
    TxCreditsIn, TxCreditsOut, MAX_VLS,
    VL_CAPS,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// The reference model as a cycle simulation: one [`TxCredits`] per data VL, wrapped in
/// the block's cycle contract ([`iblink_rtl::tx_credits`]): `fctbs` is the model's
/// FCTBS before this clock's events, and `credit_ok` is the
/// model's check one clock late — the check of the previous clock (its state and
/// `head_blocks`), 0 in the first clock and in the clock after a reset.
pub struct TxCreditsModelSim {
    vls: usize,
    tx: [TxCredits; MAX_VLS],
    /// The model's `can_send` of the previous clock: what `credit_ok` shows now.
    ok_q: u16,
}

impl TxCreditsModelSim {
    pub fn new(vls: usize) -> Self {
        Self {
            vls,
            tx: [TxCredits::new(); MAX_VLS],
            ok_q: 0,
        }
    }
    /// The model state of VL `v` (for coverage counting).
    pub fn vl(&self, v: usize) -> &TxCredits {
        &self.tx[v]
    }
    pub fn vls(&self) -> usize {
        self.vls
    }
}

/// NP as the 7-bit `head_blocks` field carries it.
fn np(i: &TxCreditsIn, v: usize) -> u16 {
    (i.head_blocks[v] & 0x7f) as u16
}

impl CycleSim for TxCreditsModelSim {
    type In = TxCreditsIn;
    type Out = TxCreditsOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &TxCreditsIn) -> TxCreditsOut {
        let mut fctbs = [0u16; MAX_VLS];
        for (f, t) in fctbs.iter_mut().zip(&self.tx[..self.vls]) {
            *f = t.fctbs();
        }
        let out = TxCreditsOut {
            credit_ok: self.ok_q,
            fctbs,
        };
        // This clock's check (state before the edge), shown during the next clock.
        self.ok_q = 0;
        if !i.reset {
            for v in 0..self.vls {
                self.ok_q |= (self.tx[v].can_send(np(i, v)) as u16) << v;
            }
        }
        if i.reset {
            self.tx.iter_mut().for_each(TxCredits::reset);
            return out;
        }
        let sv = (i.send_vl & 0xf) as usize;
        if i.send && sv < self.vls {
            self.tx[sv].on_send(np(i, sv));
        }
        let fv = (i.fcp_vl & 0xf) as usize;
        if i.fcp_valid && fv < self.vls {
            self.tx[fv].on_fcp(i.fcp_fccl & 0xfff);
        }
        out
    }
}

pub type TxCreditsSim = Box<dyn CycleSim<In = TxCreditsIn, Out = TxCreditsOut>>;

/// Kept for callers of the credit blocks; the one error type of every block.
pub type CreditsSimError = crate::blocks::SimBuildError;

/// TX credits for VLCap `vls` in back end `b`, optionally writing a VCD.
pub fn tx_credits_sim(vls: usize, b: Backend, vcd: Option<&Path>) -> Result<TxCreditsSim, CreditsSimError> {
    if !VL_CAPS.contains(&vls) {
        return Err(CreditsSimError::VlCap(vls));
    }
    if b == Backend::Model {
        return Ok(Box::new(TxCreditsModelSim::new(vls)));
    }
    iblink_rtl::with_tx_credits!(vls, |T| twin_box::<_, T>(b, TxCreditsTwin::new(vls), || tx_credits_variant(vls), vcd),
        _ => Err(CreditsSimError::VlCap(vls)))
}

/// A random packet size: mostly 1..=66 blocks, sometimes up to the port's 127.
pub(crate) fn random_blocks(r: &mut ChaCha8Rng) -> u8 {
    match r.gen_range(0..20) {
        0 => 1,
        1 => MAX_PACKET_BLOCKS as u8,
        2 => r.gen_range(67..=127),
        _ => r.gen_range(1..=MAX_PACKET_BLOCKS as u8),
    }
}

/// Random stimulus for the transmitter, played against a simulated link peer: the peer's
/// receive buffers (model [`RxCredits`], random sizes) take the packets, drain them and
/// return FCCL in FCPs, some of which are lost. The generator keeps its own model of the
/// transmitter to decide what is allowed: it sends the head packet of a VL whose check
/// passes, and now and then one whose check fails (the peer then overruns). Data packets
/// are sometimes lost on the link (the peer's ABR is then repaired by FCTBS), some FCPs
/// carry a limit right at the window edge (margin 2047, 2048, 2049 for the head packet),
/// VL numbers at or above VLCap appear, and resets (resync) arrive mid-traffic.
pub struct TxCreditsStimulus {
    rng: ChaCha8Rng,
    vls: usize,
    tx: [TxCredits; MAX_VLS],
    peer: Vec<RxCredits>,
    held: Vec<VecDeque<u8>>,
    head: [u8; MAX_VLS],
}

impl TxCreditsStimulus {
    pub fn new(vls: usize, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let peer = (0..MAX_VLS)
            .map(|_| RxCredits::new([256u16, 700, 3072, 4095][rng.gen_range(0..4)]))
            .collect();
        let head = std::array::from_fn(|_| random_blocks(&mut rng));
        Self {
            rng,
            vls,
            tx: [TxCredits::new(); MAX_VLS],
            peer,
            held: vec![VecDeque::new(); MAX_VLS],
            head,
        }
    }

    fn any_vl(&mut self) -> usize {
        // Mostly a data VL of this VLCap; sometimes one above it, or VL15.
        if self.rng.gen_ratio(1, 30) {
            self.rng.gen_range(0..16)
        } else {
            self.rng.gen_range(0..self.vls)
        }
    }
}

impl Iterator for TxCreditsStimulus {
    type Item = TxCreditsIn;
    fn next(&mut self) -> Option<TxCreditsIn> {
        let mut i = TxCreditsIn {
            head_blocks: self.head,
            ..Default::default()
        };
        if self.rng.gen_ratio(1, 40_000) {
            // Resync: both ends start over (docs/spec.md §8); the other inputs are ignored.
            i.reset = true;
            i.send = self.rng.gen();
            i.fcp_valid = self.rng.gen();
            self.tx.iter_mut().for_each(TxCredits::reset);
            self.peer.iter_mut().for_each(RxCredits::reset);
            self.held.iter_mut().for_each(VecDeque::clear);
            return Some(i);
        }
        // A send.
        if self.rng.gen_ratio(3, 5) {
            let v = self.any_vl();
            i.send_vl = v as u8;
            if v < self.vls {
                let np = self.head[v] as u16;
                let allowed = self.tx[v].can_send(np);
                if allowed || self.rng.gen_ratio(1, 100) {
                    i.send = true;
                    self.tx[v].on_send(np);
                    // The packet crosses the link, unless it is lost.
                    if !self.rng.gen_ratio(1, 100) && self.peer[v].accept(np).is_ok() {
                        self.held[v].push_back(np as u8);
                    }
                    self.head[v] = random_blocks(&mut self.rng);
                }
            } else {
                // A send strobe for a VL without credits: the block ignores it.
                i.send = self.rng.gen();
            }
        }
        // The peer drains a packet to its higher layer.
        if self.rng.gen_ratio(1, 2) {
            let v = self.rng.gen_range(0..self.vls);
            if let Some(b) = self.held[v].pop_front() {
                self.peer[v].drain(b as u16);
            }
        }
        // Our FCP to the peer (its ABR := our FCTBS); not an input of this block.
        if self.rng.gen_ratio(1, 10) {
            let v = self.rng.gen_range(0..self.vls);
            if !self.rng.gen_ratio(1, 10) {
                self.peer[v].on_fcp(self.tx[v].fctbs());
            }
        }
        // The peer's FCP to us: CL := FCCL, unless lost on the link.
        if self.rng.gen_ratio(1, 8) {
            let v = self.any_vl();
            i.fcp_vl = v as u8;
            if v < self.vls {
                let fccl = if self.rng.gen_ratio(1, 20) {
                    // A limit at the window edge for the head packet.
                    let edge = self.rng.gen_range(2047..=2049u16);
                    (self.tx[v].cr(self.head[v] as u16) + edge) & 0xfff
                } else {
                    self.peer[v].fccl()
                };
                if !self.rng.gen_ratio(1, 10) {
                    i.fcp_valid = true;
                    i.fcp_fccl = fccl;
                    self.tx[v].on_fcp(fccl);
                }
            } else {
                i.fcp_valid = true;
                i.fcp_fccl = self.rng.gen_range(0..4096);
            }
        }
        // Fields of VLs above VLCap carry junk, which must be ignored.
        for v in self.vls..MAX_VLS {
            i.head_blocks[v] = self.rng.gen_range(0..128);
        }
        Some(i)
    }
}
