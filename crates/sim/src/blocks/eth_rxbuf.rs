//! The Ethernet port's receive buffers in every back end, with random frames.
//! RTL: [`iblink_rtl::eth_rxbuf`] (the `rtl` back end is its twin); model:
//! [`iblink_model::eth_port::RxBuffers`], given each word as the wire carries it.

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use super::eth_port::{keep_of, lanes_word};
use iblink_model::eth_port::{EthPortConfig, RxBuffers, RxBuffersIn};
use iblink_model::ethernet::{PauseFrame, PauseKind, CRC32};
use iblink_model::pfc::{Mode, PfcConfig, QueueConfig};
use iblink_rtl::catalog::eth_rxbuf_variant;
use iblink_rtl::eth_rxbuf::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// A port configuration with just what the buffers and queues read: the masks, the
/// receive buffers' and transmit queues' sizes (the rest is unused and not validated).
pub fn model_config(width: usize, priorities: &[u8], rx_buffer_bytes: Vec<u32>, tx_queue_bytes: u32) -> EthPortConfig {
    EthPortConfig {
        pfc: PfcConfig {
            mode: Mode::Pfc,
            sa: [0; 6],
            datapath_bits: width as u32,
            zero_quanta_on_release: true,
            refresh_quanta: 0,
            queues: priorities.iter().map(|&p| QueueConfig { priorities: p, pause_quanta: 1, threshold: None }).collect(),
        },
        rx_buffer_bytes,
        tx_queue_bytes,
    }
}

/// The model as a cycle simulation; built at the first clock from the configuration
/// ports (static while it runs), rebuilt on reset.
pub struct EthRxbufModelSim {
    queues: usize,
    width: usize,
    model: Option<RxBuffers>,
    /// Counts for coverage: frames stored and dropped, words moved to the readers, clocks
    /// a word waited for its reader, clocks a queue was at least 7/8 full.
    pub stored: u64,
    pub dropped: u64,
    pub marked: u64,
    pub read: u64,
    pub waited: u64,
    pub nearly_full: u64,
}

impl EthRxbufModelSim {
    pub fn new(queues: usize, width: usize) -> Self {
        Self { queues, width, model: None, stored: 0, dropped: 0, marked: 0, read: 0, waited: 0, nearly_full: 0 }
    }
}

impl CycleSim for EthRxbufModelSim {
    type In = EthRxbufIn;
    type Out = EthRxbufOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &EthRxbufIn) -> EthRxbufOut {
        let (nq, w) = (self.queues, self.width);
        let sizes = (0..nq).map(|q| i.cfg_size_words[q] as u32 * (w as u32 / 8)).collect();
        let m = self.model.get_or_insert_with(|| RxBuffers::new(model_config(w, &i.cfg_priorities[..nq], sizes, 0)));
        let n = w / 8;
        let rx = i.s_axis_tvalid.then(|| lanes_word(i.s_axis_tdata, i.s_axis_tkeep, i.s_axis_tlast, w));
        let o = m.tick(&RxBuffersIn { rx, ready: i.m_axis_tready, bad: i.s_axis_tuser });
        let mut out = EthRxbufOut { drop: o.drop, bad: o.bad, ..Default::default() };
        self.marked += o.bad as u64;
        for q in 0..nq {
            out.fill_bytes[q] = o.fill[q] as u16;
            if let Some(w) = o.word[q] {
                out.m_axis_tvalid |= 1 << q;
                out.m_axis_tdata[q] = w.data;
                out.m_axis_tkeep[q] = keep_of(w.len);
                out.m_axis_tlast |= (w.last as u8) << q;
                let ready = i.m_axis_tready >> q & 1 == 1;
                self.read += ready as u64;
                self.waited += !ready as u64;
            }
            self.nearly_full += (o.fill[q] * 8 >= i.cfg_size_words[q] as u32 * n as u32 * 7) as u64;
        }
        self.dropped += o.drop.count_ones() as u64;
        if i.reset {
            self.model = None;
        }
        out
    }
}

pub type EthRxbufSim = Box<dyn CycleSim<In = EthRxbufIn, Out = EthRxbufOut>>;

pub fn eth_rxbuf_sim(queues: usize, width: usize, b: Backend, vcd: Option<&Path>) -> Result<EthRxbufSim, SimBuildError> {
    eth_rxbuf_variant(queues, width)?;
    if b == Backend::Model {
        return Ok(Box::new(EthRxbufModelSim::new(queues, width)));
    }
    iblink_rtl::with_eth_rxbuf!((queues, width), |T| twin_box::<_, T>(b, EthRxbufTwin::new(queues, width), || eth_rxbuf_variant(queues, width), vcd),
        _ => unreachable!("checked by eth_rxbuf_variant"))
}

/// What the stimulus sent, for coverage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxFrameKind {
    /// A tagged data frame of 64 to 1522 bytes.
    Tagged,
    Untagged,
    /// Shorter than 16 bytes (the tag not all there).
    Runt,
    /// Over 1522 bytes.
    Oversize,
    /// A PAUSE/PFC frame, or another frame to the PAUSE address or of EtherType 0x8808.
    Control,
}

/// Random frames on the receive stream (gaps between and inside frames, garbage in the
/// unused lanes of last words), readers that go through phases of reading fast, slowly
/// and not at all (so buffers fill up and drop), the odd reset. The configuration is
/// random and fixed: masks (some priorities in no queue, some in two), sizes from one
/// maximum frame to a few.
pub struct EthRxbufStimulus {
    rng: ChaCha8Rng,
    queues: usize,
    width: usize,
    cfg: EthRxbufIn,
    words: VecDeque<(u64, u8, bool)>,
    read_p: [f64; 8],
    phase_left: u64,
    /// The bytes a runt was cut from.
    ghost: Vec<u8>,
    pub sent: Vec<RxFrameKind>,
    /// Bursts of one-word frames sent back to back (each one's last word in the clock
    /// the one before is decided).
    pub bursts: u64,
}

impl EthRxbufStimulus {
    pub fn new(seed: u64, queues: usize, width: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut cfg = EthRxbufIn::default();
        let mw = max_words(width) as u16;
        for q in 0..queues {
            cfg.cfg_priorities[q] = rng.gen::<u8>() & rng.gen::<u8>();
            cfg.cfg_size_words[q] = rng.gen_range(mw / 2..=(3 * mw).min(max_size_words(width) as u16));
        }
        Self { rng, queues, width, cfg, words: VecDeque::new(), read_p: [0.5; 8], phase_left: 0, ghost: vec![], sent: vec![], bursts: 0 }
    }

    pub fn config(&self) -> EthRxbufIn {
        self.cfg
    }

    fn frame(&mut self) -> Vec<u8> {
        let r = &mut self.rng;
        let kind = match r.gen_range(0..20) {
            0 => RxFrameKind::Runt,
            1 => RxFrameKind::Oversize,
            2 | 3 => RxFrameKind::Control,
            4..=6 => RxFrameKind::Untagged,
            _ => RxFrameKind::Tagged,
        };
        self.sent.push(kind);
        let mut f: Vec<u8> = (0..12).map(|_| r.gen()).collect();
        f[0] &= 0xfe;
        match kind {
            RxFrameKind::Control => {
                if r.gen_bool(0.6) {
                    let k = PauseKind::Pfc { enable: r.gen(), times: r.gen() };
                    let mut b = PauseFrame { sa: [2, 0, 0, 0, 0, 1], kind: k }.encode().to_vec();
                    if r.gen_bool(0.3) {
                        b.truncate(r.gen_range(6..64));
                    }
                    return b;
                }
                // EtherType 0x8808 to another address.
                f.extend([0x88, 0x08]);
                let n = r.gen_range(14..200);
                f.resize(n, 0x33);
            }
            RxFrameKind::Runt => {
                // Sixteen bytes that would make a control or a tagged frame, cut short;
                // the lanes past the cut may carry the rest (the checks must look at the
                // length, not at what the lanes hold).
                if r.gen_bool(0.3) {
                    f[..6].copy_from_slice(&iblink_model::ethernet::PAUSE_DA);
                }
                let t: [u8; 2] = [[0x88, 0x08], [0x81, 0x00], r.gen()][r.gen_range(0..3)];
                f.extend(t);
                f.extend([r.gen::<u8>(), r.gen()]);
                self.ghost = f.clone();
                f.truncate(r.gen_range(1..16));
                return f;
            }
            RxFrameKind::Untagged | RxFrameKind::Tagged | RxFrameKind::Oversize => {
                if kind != RxFrameKind::Untagged {
                    f.extend([0x81, 0x00, r.gen::<u8>(), r.gen()]);
                }
                f.extend([0x88, 0xb5]);
                let n = if kind == RxFrameKind::Oversize { r.gen_range(1523..1700) } else { r.gen_range(60..=1518) + 4 * (kind == RxFrameKind::Tagged) as usize };
                while f.len() < n - 4 {
                    f.push(r.gen());
                }
                let fcs = CRC32.checksum(&f);
                f.extend(fcs.to_le_bytes());
            }
        }
        f
    }
}

impl Iterator for EthRxbufStimulus {
    type Item = EthRxbufIn;
    fn next(&mut self) -> Option<EthRxbufIn> {
        let n = self.width / 8;
        let mut i = self.cfg;
        if self.phase_left == 0 {
            self.phase_left = self.rng.gen_range(200..5000);
            for q in 0..self.queues {
                self.read_p[q] = [0.0, 0.05, 0.3, 0.9, 1.0][self.rng.gen_range(0..5)];
            }
        }
        self.phase_left -= 1;
        for q in 0..self.queues {
            i.m_axis_tready |= (self.rng.gen_bool(self.read_p[q]) as u8) << q;
        }
        i.reset = self.rng.gen_ratio(1, 200_000);
        if self.words.is_empty() && self.rng.gen_bool(0.3) {
            self.ghost.clear();
            let f = self.frame();
            let ghost = std::mem::take(&mut self.ghost);
            let nw = f.len().div_ceil(n);
            for (k, c) in f.chunks(n).enumerate() {
                let mut d = 0u64;
                for (b, &x) in c.iter().enumerate() {
                    d |= (x as u64) << (8 * b);
                }
                // Garbage past the frame's end in the last word's unused lanes.
                let from_ghost = self.rng.gen_bool(0.5);
                for b in c.len()..n {
                    let x = match ghost.get(k * n + b) {
                        Some(&g) if from_ghost => g,
                        _ => self.rng.gen::<u8>(),
                    };
                    d |= (x as u64) << (8 * b);
                }
                let keep = keep_of(c.len() as u8);
                self.words.push_back((d, keep, k + 1 == nw));
            }
            // After one frame in six, 2 to 23 one-word frames of 1 to 5 bytes (too short
            // to be control frames): in a queue near full they fill its last words and
            // the next is dropped against a fill that counts the one before.
            if self.rng.gen_ratio(1, 6) {
                self.bursts += 1;
                for _ in 0..self.rng.gen_range(2..24) {
                    let len = self.rng.gen_range(1..=5usize.min(n));
                    self.words.push_back((self.rng.gen::<u64>() & iblink_rtl::bits::mask(8 * n), keep_of(len as u8), true));
                }
            }
        }
        if !self.words.is_empty() && self.rng.gen_bool(0.95) {
            let (d, k, l) = self.words.pop_front().unwrap();
            i.s_axis_tvalid = true;
            i.s_axis_tdata = d;
            i.s_axis_tkeep = if l { k } else { self.rng.gen() };
            i.s_axis_tlast = l;
            // The MAC marks one frame in ten bad on its last word (the mark on other
            // words means nothing, and is set as often).
            i.s_axis_tuser = self.rng.gen_ratio(1, 10);
        } else {
            i.s_axis_tdata = self.rng.gen();
        }
        Some(i)
    }
}
