//! The PAUSE/PFC frame builder in every back end, with random frames.
//! RTL: [`iblink_rtl::pfc_frame`] (the `rtl` back end is its twin, [`PfcFrameTwin`]);
//! model: the frame's bytes from [`iblink_model::ethernet::PauseFrame::encode`].

use crate::blocks::pfc_tx::{frame_kind, random_config};
use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::ethernet::{PauseFrame, FRAME_BYTES};
use iblink_model::pfc::{Mode, PfcConfig, QueueConfig};
use iblink_rtl::catalog::pfc_frame_variant;
use iblink_rtl::pfc_frame::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The configuration inputs for a configuration.
pub fn frame_config_ports(c: &PfcConfig) -> PfcFrameIn {
    PfcFrameIn {
        cfg_pfc: c.mode == Mode::Pfc,
        cfg_sa: c.sa.iter().fold(0u64, |x, &b| x << 8 | b as u64),
        cfg_priorities: std::array::from_fn(|q| c.queues.get(q).map_or(0, |x| x.priorities)),
        cfg_pause_quanta: std::array::from_fn(|q| c.queues.get(q).map_or(0, |x| x.pause_quanta)),
        ..Default::default()
    }
}

/// The model as a cycle simulation of the builder: at `frame_start` the frame the fields
/// stand for is encoded by the model (FCS by the `crc` crate) and sent a word a clock.
pub struct PfcFrameModelSim {
    queues: usize,
    width: usize,
    bytes: Option<[u8; FRAME_BYTES]>,
    word: usize,
}

impl PfcFrameModelSim {
    pub fn new(queues: usize, width: usize) -> Self {
        Self { queues, width, bytes: None, word: 0 }
    }

    /// The configuration the inputs carry.
    fn config(&self, i: &PfcFrameIn) -> PfcConfig {
        PfcConfig {
            mode: if i.cfg_pfc { Mode::Pfc } else { Mode::Pause },
            sa: std::array::from_fn(|k| (i.cfg_sa >> (40 - 8 * k)) as u8),
            datapath_bits: self.width as u32,
            zero_quanta_on_release: true,
            refresh_quanta: 0,
            queues: (0..self.queues)
                .map(|q| QueueConfig { priorities: i.cfg_priorities[q], pause_quanta: i.cfg_pause_quanta[q], threshold: None })
                .collect(),
        }
    }
}

impl CycleSim for PfcFrameModelSim {
    type In = PfcFrameIn;
    type Out = PfcFrameOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &PfcFrameIn) -> PfcFrameOut {
        if i.frame_start {
            let c = self.config(i);
            let kind = frame_kind(&c, i.frame_queues, i.frame_zero);
            self.bytes = Some(PauseFrame { sa: c.sa, kind }.encode());
            self.word = 0;
        }
        let n = self.width / 8;
        let out = match self.bytes {
            Some(b) => {
                let w = &b[self.word * n..(self.word + 1) * n];
                let last = (self.word + 1) * n == FRAME_BYTES;
                PfcFrameOut {
                    tx_valid: true,
                    tx_data: w.iter().rev().fold(0u64, |x, &y| x << 8 | y as u64),
                    tx_last: last,
                    frame_done: last && i.tx_ready,
                }
            }
            None => PfcFrameOut::default(),
        };
        // A word moves when the wire takes it (docs/spec.md §10); else it is offered again.
        if out.tx_valid && i.tx_ready {
            self.word += 1;
            if out.tx_last {
                self.bytes = None;
            }
        }
        if i.reset {
            self.bytes = None;
        }
        out
    }
}

pub type PfcFrameSim = Box<dyn CycleSim<In = PfcFrameIn, Out = PfcFrameOut>>;

pub fn pfc_frame_sim(queues: usize, width: usize, b: Backend, vcd: Option<&Path>) -> Result<PfcFrameSim, SimBuildError> {
    pfc_frame_variant(queues, width)?;
    match b {
        Backend::Model => Ok(Box::new(PfcFrameModelSim::new(queues, width))),
        _ => iblink_rtl::with_pfc_frame!((queues, width), |T| twin_box::<_, T>(b, PfcFrameTwin::new(queues, width), || pfc_frame_variant(queues, width), vcd),
            _ => Err(SimBuildError::Variant(format!("pfc_frame with {queues} queues at {width} bits")))),
    }
}

/// Random frames: a new random configuration (masks, PTs, source address) now and then
/// between frames, frames back to back (the clock after the last word moved) or after
/// idle gaps, random queue sets and releases, and the odd reset; the wire's `tx_ready` in
/// phases of 500 to 5,000 clocks: always high, random (high 20 to 95 % of clocks), or
/// stalls of 10 to 300 clocks.
pub struct PfcFrameStimulus {
    rng: ChaCha8Rng,
    queues: usize,
    width: u32,
    mode: Mode,
    cur: PfcFrameIn,
    /// Words left to move of the frame going out (counting the one offered).
    left: u32,
    /// The wire's ready.
    wire: super::ReadyPhases,
}

impl PfcFrameStimulus {
    pub fn new(seed: u64, queues: usize, width: u32, mode: Mode) -> Self {
        let mut s = Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            queues,
            width,
            mode,
            cur: PfcFrameIn::default(),
            left: 0,
            wire: super::ReadyPhases::new(500..5_000, 0.2..0.95, 40, 10..300, false),
        };
        s.new_config();
        s
    }

    fn new_config(&mut self) {
        let mut c = random_config(&mut self.rng, self.queues, self.width, self.mode);
        // Any pause time, and any source address.
        for q in &mut c.queues {
            q.pause_quanta = self.rng.gen();
        }
        c.sa = self.rng.gen();
        self.cur = frame_config_ports(&c);
    }
}

impl Iterator for PfcFrameStimulus {
    type Item = PfcFrameIn;
    fn next(&mut self) -> Option<PfcFrameIn> {
        let words = 512 / self.width;
        // The word offered last clock moved if the wire was ready.
        if self.left > 0 && self.cur.tx_ready {
            self.left -= 1;
        }
        self.cur.frame_start = false;
        self.cur.reset = self.rng.gen_ratio(1, 20_000);
        self.cur.tx_ready = self.wire.next(&mut self.rng, false);
        if self.left == 0 && self.rng.gen_ratio(1, 3) {
            if self.rng.gen_ratio(1, 50) {
                self.new_config();
            }
            let r = &mut self.rng;
            let qm = ((1u16 << self.queues) - 1) as u8;
            let queues = if self.mode == Mode::Pause { 1 } else { loop {
                let x = r.gen::<u8>() & qm;
                if x != 0 {
                    break x;
                }
            } };
            self.cur.frame_start = true;
            self.cur.frame_queues = queues;
            self.cur.frame_zero = r.gen::<u8>() & queues;
            self.left = words;
        }
        Some(self.cur)
    }
}
