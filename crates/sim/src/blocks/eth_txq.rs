//! The Ethernet port's transmit queues in every back end, with random frames.
//! RTL: [`iblink_rtl::eth_txq`] (the `rtl` back end is its twin); model:
//! [`iblink_model::eth_port::TxQueues`].

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use super::eth_rxbuf::model_config;
use super::eth_port::{keep_of, lanes_word};
use iblink_model::eth_port::{TxQueues, TxQueuesIn};
use iblink_rtl::catalog::eth_txq_variant;
use iblink_rtl::eth_txq::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The model as a cycle simulation; built at the first clock from the configuration
/// ports (static while it runs), rebuilt on reset.
pub struct EthTxqModelSim {
    queues: usize,
    width: usize,
    model: Option<TxQueues>,
    /// Coverage: frames started, of them back to back after another (the clock after its
    /// last word moved), clocks a whole frame waited on a pause, words refused for want of
    /// room; clocks the wire held a data word (of them a frame's first word, a last word),
    /// a PAUSE/PFC word; stalls of 100 clocks or more with a data word waiting.
    pub started: u64,
    pub back_to_back: u64,
    pub held: u64,
    pub refused: u64,
    pub stalled_data: u64,
    pub stalled_first: u64,
    pub stalled_last: u64,
    pub stalled_ctrl: u64,
    pub long_stalls: u64,
    last_word_moved: bool,
    first_waiting: bool,
    stall_run: u64,
}

impl EthTxqModelSim {
    pub fn new(queues: usize, width: usize) -> Self {
        Self {
            queues,
            width,
            model: None,
            started: 0,
            back_to_back: 0,
            held: 0,
            refused: 0,
            stalled_data: 0,
            stalled_first: 0,
            stalled_last: 0,
            stalled_ctrl: 0,
            long_stalls: 0,
            last_word_moved: false,
            first_waiting: false,
            stall_run: 0,
        }
    }
}

impl CycleSim for EthTxqModelSim {
    type In = EthTxqIn;
    type Out = EthTxqOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &EthTxqIn) -> EthTxqOut {
        let (nq, w) = (self.queues, self.width);
        let m = self.model.get_or_insert_with(|| TxQueues::new(model_config(w, &i.cfg_priorities[..nq], vec![0; nq], i.cfg_tx_words as u32 * (w as u32 / 8))));
        let tx = std::array::from_fn(|q| (q < nq && i.s_axis_tvalid >> q & 1 == 1).then(|| lanes_word(i.s_axis_tdata[q], i.s_axis_tkeep[q], i.s_axis_tlast >> q & 1 == 1, w)));
        for q in 0..nq {
            self.held += m.held(q) as u64;
        }
        // The builder's words are whole.
        let ctrl = i.ctrl.then(|| lanes_word(i.ctrl_data, u8::MAX, i.ctrl_last, w));
        let o = m.tick(&TxQueuesIn { tx, paused: i.paused, ctrl, ready: i.m_axis_tready });
        self.refused += (i.s_axis_tvalid & !o.room & ((1u16 << nq) - 1) as u8).count_ones() as u64;
        if o.started.is_some() {
            self.started += 1;
            self.back_to_back += self.last_word_moved as u64;
        }
        let data = o.wire.is_some() && !i.ctrl;
        let first = o.started.is_some() || self.first_waiting;
        if !i.m_axis_tready {
            self.stalled_data += data as u64;
            self.stalled_first += (data && first) as u64;
            self.stalled_last += (data && o.wire.is_some_and(|w| w.last)) as u64;
            self.stalled_ctrl += i.ctrl as u64;
        }
        self.first_waiting = data && first && !i.m_axis_tready;
        self.stall_run = if data && !i.m_axis_tready { self.stall_run + 1 } else { 0 };
        self.long_stalls += (self.stall_run == 100) as u64;
        self.last_word_moved = i.m_axis_tready && o.wire.is_some_and(|w| w.last);
        let mut out = EthTxqOut { s_axis_tready: o.room, tx_busy: o.busy, ..Default::default() };
        if let Some(wd) = o.wire {
            out.m_axis_tvalid = true;
            out.m_axis_tdata = wd.data;
            out.m_axis_tkeep = keep_of(wd.len);
            out.m_axis_tlast = wd.last;
        }
        if i.reset {
            self.model = None;
        }
        out
    }
}

pub type EthTxqSim = Box<dyn CycleSim<In = EthTxqIn, Out = EthTxqOut>>;

pub fn eth_txq_sim(queues: usize, width: usize, b: Backend, vcd: Option<&Path>) -> Result<EthTxqSim, SimBuildError> {
    eth_txq_variant(queues, width)?;
    if b == Backend::Model {
        return Ok(Box::new(EthTxqModelSim::new(queues, width)));
    }
    iblink_rtl::with_eth_txq!((queues, width), |T| twin_box::<_, T>(b, EthTxqTwin::new(queues, width), || eth_txq_variant(queues, width), vcd),
        _ => unreachable!("checked by eth_txq_variant"))
}

/// The users and the rest of the port, reacting to the block's last outputs: each queue's
/// user offers frames of 1 to 200 words (a fifth of one word, to be sent in the clock
/// after it was written) a word at a time,
/// holding a word until it is taken, in phases of its own (a new word after each taken
/// one in every clock, in 70 % or 15 % of clocks, or none), so that a queue fills while
/// the wire serves others or stalls and then drains with nothing or little coming in, at
/// any number of queues; priorities go through phases of being
/// paused; a PAUSE/PFC frame (8 or 16 words of `ctrl`) starts now and then where the
/// port's would, when no data frame was in progress (`tx_busy` low), its words held
/// until they move. The wire's `m_axis_tready` goes through phases (docs/spec.md §10): always
/// high, random (high 30 to 95 % of clocks), stalls of 100 to 1,000 clocks (one in 200 clocks), and an
/// inter-frame gap of 1 to 3 clocks after every last word that moves. Random masks and a
/// room of 200 to 600 words (a frame always fits); the odd reset.
pub struct EthTxqStimulus {
    rng: ChaCha8Rng,
    queues: usize,
    width: usize,
    cfg: EthTxqIn,
    /// Per queue: words of the frame being offered left (after the current), the word.
    left: [usize; 8],
    cur: [Option<(u64, u8, bool)>; 8],
    offered: u8,
    /// Per queue: the chance of a new word in a clock, and the clocks left at it.
    rate: [f64; 8],
    rate_for: [u64; 8],
    ctrl_left: usize,
    /// The PAUSE/PFC word offered (data, last) and whether it was offered last clock.
    ctrl_cur: Option<(u64, bool)>,
    ctrl_offered: bool,
    paused_for: u64,
    paused: u8,
    /// The wire's ready, and its value last clock.
    wire: super::ReadyPhases,
    ready: bool,
    pub frames_offered: u64,
}

impl EthTxqStimulus {
    pub fn new(seed: u64, queues: usize, width: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut cfg = EthTxqIn::default();
        for q in 0..queues {
            cfg.cfg_priorities[q] = rng.gen::<u8>() & rng.gen::<u8>();
        }
        cfg.cfg_tx_words = rng.gen_range(200..=600);
        Self {
            rng,
            queues,
            width,
            cfg,
            left: [0; 8],
            cur: [None; 8],
            offered: 0,
            rate: [0.7; 8],
            rate_for: [0; 8],
            ctrl_left: 0,
            ctrl_cur: None,
            ctrl_offered: false,
            paused_for: 0,
            paused: 0,
            wire: super::ReadyPhases::new(2_000..20_000, 0.3..0.95, 200, 100..1_000, true),
            ready: true,
            frames_offered: 0,
        }
    }

    pub fn next(&mut self, prev: Option<&EthTxqOut>) -> EthTxqIn {
        let n = self.width / 8;
        let mut i = self.cfg;
        let r = &mut self.rng;
        // Words taken last clock.
        let taken = prev.map_or(0, |o| o.s_axis_tready) & self.offered;
        for q in 0..self.queues {
            if taken >> q & 1 == 1 {
                self.cur[q] = None;
            }
            if self.rate_for[q] == 0 {
                self.rate_for[q] = r.gen_range(50..2_000);
                self.rate[q] = [1.0, 0.7, 0.7, 0.15, 0.0][r.gen_range(0..5)];
            }
            self.rate_for[q] -= 1;
            if self.cur[q].is_none() && r.gen_bool(self.rate[q]) {
                if self.left[q] == 0 {
                    self.left[q] = match r.gen_range(0..10) {
                        0 | 1 => 1,
                        2..=4 => r.gen_range(2..=8),
                        _ => r.gen_range(9..=200),
                    };
                    self.frames_offered += 1;
                }
                self.left[q] -= 1;
                let last = self.left[q] == 0;
                let keep = if last { keep_of(r.gen_range(1..=n) as u8) } else { r.gen() };
                self.cur[q] = Some((r.gen(), keep, last));
            }
        }
        self.offered = 0;
        for q in 0..self.queues {
            if let Some((d, k, l)) = self.cur[q] {
                // A user may also let its word go for a clock (valid low) and come back
                // (not in a phase of a word every clock).
                if self.rate[q] >= 1.0 || r.gen_bool(0.9) {
                    i.s_axis_tvalid |= 1 << q;
                    i.s_axis_tdata[q] = d;
                    i.s_axis_tkeep[q] = k;
                    i.s_axis_tlast |= (l as u8) << q;
                    self.offered |= 1 << q;
                }
            }
        }
        if self.paused_for == 0 {
            // Mostly long phases; some of a clock or a few, so pauses come and go around
            // starts.
            self.paused_for = if r.gen_bool(0.2) { r.gen_range(1..5) } else { r.gen_range(50..3000) };
            self.paused = if r.gen_bool(0.5) { 0 } else { r.gen() };
        }
        self.paused_for -= 1;
        i.paused = self.paused;
        // The builder's word moved last clock (while it is offered no data word is).
        if self.ctrl_offered && self.ready {
            self.ctrl_cur = None;
        }
        let free = prev.is_none_or(|o| !o.tx_busy);
        if self.ctrl_left == 0 && self.ctrl_cur.is_none() && free && r.gen_bool(0.01) {
            self.ctrl_left = 64 / n;
        }
        if self.ctrl_cur.is_none() && self.ctrl_left > 0 {
            self.ctrl_left -= 1;
            self.ctrl_cur = Some((r.gen(), self.ctrl_left == 0));
        }
        if let Some((d, l)) = self.ctrl_cur {
            i.ctrl = true;
            i.ctrl_data = d;
            i.ctrl_last = l;
        }
        self.ctrl_offered = i.ctrl;
        // The wire's ready.
        let last_moved = prev.is_some_and(|o| o.m_axis_tvalid && o.m_axis_tlast) && self.ready;
        i.m_axis_tready = self.wire.next(r, last_moved);
        self.ready = i.m_axis_tready;
        i.reset = r.gen_ratio(1, 200_000);
        if i.reset {
            self.ctrl_cur = None;
            self.ctrl_left = 0;
        }
        i
    }
}
