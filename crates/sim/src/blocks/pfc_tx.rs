//! The PAUSE/PFC transmit side in every back end, with random stimulus.
//! RTL: [`iblink_rtl::pfc_tx`] (the `rtl` back end is its twin, [`PfcTxTwin`]); model:
//! [`iblink_model::pfc::PfcTx`], whose frames are read back into the block's fields.

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::config::ConfigError;
use iblink_model::ethernet::PauseKind;
use iblink_model::pfc::{self as model, Mode, PfcConfig, QueueConfig, Threshold};
use iblink_rtl::catalog::pfc_tx_variant;
use iblink_rtl::pfc_tx::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The block's configuration inputs for a validated configuration; an error names the
/// field the generated block cannot hold (thresholds above [`FILL_MAX`]).
pub fn config_ports(c: &PfcConfig) -> Result<PfcTxIn, ConfigError> {
    let mut i = PfcTxIn {
        cfg_pfc: c.mode == Mode::Pfc,
        cfg_zero_on_release: c.zero_quanta_on_release,
        cfg_refresh_quanta: c.refresh_quanta,
        ..Default::default()
    };
    for (q, qc) in c.queues.iter().enumerate() {
        i.cfg_pause_quanta[q] = qc.pause_quanta;
        if let Some(t) = qc.threshold {
            for (k, v) in [("rfa_bytes", t.rfa_bytes), ("rfd_bytes", t.rfd_bytes)] {
                if v > FILL_MAX {
                    return Err(ConfigError::field(
                        format!("queue[{q}].threshold.{k}"),
                        format!("{v} is above {FILL_MAX}: the generated pfc_tx compares {FILL_BITS}-bit fill levels"),
                    ));
                }
            }
            i.cfg_fill_en |= 1 << q;
            i.cfg_rfa[q] = t.rfa_bytes as u16;
            i.cfg_rfd[q] = t.rfd_bytes as u16;
        }
    }
    Ok(i)
}

/// A fill level as the generated block sees it: saturated at [`FILL_MAX`] (the
/// thresholds are at most that, so a level above it is above every RFA).
pub fn fill_port(bytes: u32) -> u16 {
    bytes.min(FILL_MAX) as u16
}

/// The frame the block's fields stand for (what the frame builder sends), by the model's
/// own rule ([`PfcConfig::frame`]): each slot in the frame carries its queue's PT, or 0
/// for a release.
pub fn frame_kind(c: &PfcConfig, queues: u8, zero: u8) -> PauseKind {
    let entries = std::array::from_fn(|q| {
        (q < c.queues.len() && queues >> q & 1 == 1).then(|| if zero >> q & 1 == 1 { 0 } else { c.queues[q].pause_quanta })
    });
    c.frame(&entries).kind
}

/// Value the model adapter shows for a frame the block could not express.
const NOT_A_BLOCK_FRAME: u8 = 0xff;

/// The reference model as a cycle simulation of the block: its frame, read back into
/// the slots it carries (each slot's priorities all enabled, all with its PT or all 0).
pub struct PfcTxModelSim {
    tx: model::PfcTx,
    out: PfcTxOut,
    /// Counts of the models reset away.
    before_reset: model::TxCounts,
}

impl PfcTxModelSim {
    pub fn new(cfg: PfcConfig) -> Self {
        Self { tx: model::PfcTx::new(cfg), out: PfcTxOut::default(), before_reset: Default::default() }
    }

    /// What the model did over the whole run, across resets.
    pub fn counts(&self) -> model::TxCounts {
        let (a, b) = (self.before_reset, self.tx.counts());
        model::TxCounts {
            frames: a.frames + b.frames,
            consolidated: a.consolidated + b.consolidated,
            hw_rises: a.hw_rises + b.hw_rises,
            fill_rises: a.fill_rises + b.fill_rises,
            falls: a.falls + b.falls,
            releases: a.releases + b.releases,
            refreshes: a.refreshes + b.refreshes,
            sw_sent: a.sw_sent + b.sw_sent,
            sw_again: a.sw_again + b.sw_again,
            sw_after_release: a.sw_after_release + b.sw_after_release,
            merges: a.merges + b.merges,
            busy_waits: a.busy_waits + b.busy_waits,
        }
    }

    /// The block's fields for a frame of the model.
    fn fields(c: &PfcConfig, kind: &PauseKind) -> (u8, u8) {
        match (c.mode, *kind) {
            (Mode::Pause, PauseKind::Pause { quanta }) if quanta == c.queues[0].pause_quanta => (1, 0),
            (Mode::Pause, PauseKind::Pause { quanta: 0 }) => (1, 1),
            (Mode::Pfc, PauseKind::Pfc { enable, times }) => {
                let (mut queues, mut zero, mut covered) = (0u8, 0u8, 0u16);
                for (q, qc) in c.queues.iter().enumerate() {
                    let m = qc.priorities as u16;
                    covered |= m;
                    match enable & m {
                        0 => {}
                        x if x == m => {
                            let t: Vec<u16> = (0..8).filter(|p| m >> p & 1 == 1).map(|p| times[p]).collect();
                            if t.iter().all(|&v| v == qc.pause_quanta) {
                                queues |= 1 << q;
                            } else if t.iter().all(|&v| v == 0) {
                                queues |= 1 << q;
                                zero |= 1 << q;
                            } else {
                                return (NOT_A_BLOCK_FRAME, NOT_A_BLOCK_FRAME);
                            }
                        }
                        _ => return (NOT_A_BLOCK_FRAME, NOT_A_BLOCK_FRAME),
                    }
                }
                if enable & !covered != 0 {
                    return (NOT_A_BLOCK_FRAME, NOT_A_BLOCK_FRAME);
                }
                (queues, zero)
            }
            _ => (NOT_A_BLOCK_FRAME, NOT_A_BLOCK_FRAME),
        }
    }
}

impl CycleSim for PfcTxModelSim {
    type In = PfcTxIn;
    type Out = PfcTxOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &PfcTxIn) -> PfcTxOut {
        let mi = model::PfcTxIn {
            fill_bytes: std::array::from_fn(|q| i.fill_bytes[q] as u32),
            hw: i.hw_level,
            sw: i.sw_req,
            busy: i.busy,
            frame_done: i.frame_done,
        };
        let mut out = PfcTxOut { frame_start: false, ..self.out };
        if let Some(f) = self.tx.tick(&mi) {
            let (queues, zero) = Self::fields(self.tx.config(), &f.frame.kind);
            out = PfcTxOut { frame_start: true, frame_queues: queues, frame_zero: zero };
        }
        self.out = PfcTxOut { frame_start: false, ..out };
        if i.reset {
            self.before_reset = self.counts();
            self.tx = model::PfcTx::new(self.tx.config().clone());
            self.out = PfcTxOut::default();
        }
        out
    }
}

pub type PfcTxSim = Box<dyn CycleSim<In = PfcTxIn, Out = PfcTxOut>>;

/// The block for a validated configuration in back end `b`.
pub fn pfc_tx_sim(cfg: &PfcConfig, b: Backend, vcd: Option<&Path>) -> Result<PfcTxSim, SimBuildError> {
    pfc_tx_sim_for(cfg, b, vcd, None)
}

/// As [`pfc_tx_sim`], with the module's `TARGET` parameter set (`"ECP5"`: the same cycle
/// behaviour in another netlist layout); `None` leaves the default. The twin models the
/// default; Verilator (and VCD) runs the module as built.
pub fn pfc_tx_sim_for(cfg: &PfcConfig, b: Backend, vcd: Option<&Path>, target: Option<&str>) -> Result<PfcTxSim, SimBuildError> {
    let (q, w) = (cfg.queues.len(), cfg.datapath_bits as usize);
    pfc_tx_variant(q, w)?;
    let variant = || {
        let mut v = pfc_tx_variant(q, w)?;
        if let Some(t) = target {
            v.params.push(("TARGET".to_string(), format!("\"{t}\"")));
        }
        Ok(v)
    };
    match b {
        Backend::Model => Ok(Box::new(PfcTxModelSim::new(cfg.clone()))),
        _ => iblink_rtl::with_pfc_tx!((q, w), |T| twin_box::<_, T>(b, PfcTxTwin::new(q, w), variant, vcd),
            _ => Err(SimBuildError::Variant(format!("pfc_tx with {q} queues at {w} bits")))),
    }
}

/// Random fill thresholds for one queue.
fn random_threshold(rng: &mut ChaCha8Rng) -> Threshold {
    let size_bytes = rng.gen_range(4096..=FILL_MAX);
    let rfa_bytes = rng.gen_range(2..=size_bytes);
    let rfd_bytes = rng.gen_range(1..rfa_bytes);
    Threshold { size_bytes, rfa_bytes, rfd_bytes }
}

/// A random valid configuration with short pause times (so refreshes come often), fill
/// thresholds on some queues (at least one, so the RX-fill trigger is always exercised),
/// in PFC or PAUSE mode.
pub fn random_config(rng: &mut ChaCha8Rng, queues: usize, width: u32, mode: Mode) -> PfcConfig {
    // Each queue gets one or more priorities of a shuffled set.
    let mut prios: Vec<u8> = (0..8).collect();
    for k in (1..8).rev() {
        prios.swap(k, rng.gen_range(0..=k));
    }
    let mut cuts: Vec<usize> = (1..8).collect();
    for k in (1..cuts.len()).rev() {
        cuts.swap(k, rng.gen_range(0..=k));
    }
    let mut cuts: Vec<usize> = cuts[..queues - 1].to_vec();
    cuts.sort();
    let bounds: Vec<usize> = std::iter::once(0).chain(cuts).chain(std::iter::once(8)).collect();
    let refresh_quanta = rng.gen_range(1..6);
    let mut qs: Vec<QueueConfig> = (0..queues)
        .map(|q| {
            let priorities = prios[bounds[q]..bounds[q + 1]].iter().fold(0u8, |m, p| m | 1 << p);
            let threshold = rng.gen_bool(0.7).then(|| random_threshold(rng));
            QueueConfig { priorities, pause_quanta: rng.gen_range(refresh_quanta + 1..=refresh_quanta + 30), threshold }
        })
        .collect();
    if qs.iter().all(|q| q.threshold.is_none()) {
        let q = rng.gen_range(0..queues);
        qs[q].threshold = Some(random_threshold(rng));
    }
    PfcConfig {
        mode,
        sa: [0x02, 0, 0, 0, 0, 1],
        datapath_bits: width,
        zero_quanta_on_release: rng.gen_bool(0.8),
        refresh_quanta,
        queues: qs,
    }
}

/// Random triggers for one configuration: hardware levels held for hundreds of clocks,
/// fill levels that cross RFA and RFD (often right at them), software requests, data
/// frames of random length, and the occasional reset; and the wire the block's frames go
/// out on, reacting to its `frame_start`: the builder offers the frame's words one after
/// another and the wire takes them through phases of ready (always, random, stalls of up
/// to hundreds of clocks; docs/spec.md §10), and `frame_done` is the clock the last one
/// moves.
pub struct PfcTxStimulus {
    rng: ChaCha8Rng,
    cfg: PfcConfig,
    cur: PfcTxIn,
    data_left: u32,
    wire: crate::blocks::ReadyPhases,
    /// Words of the frame on the wire still to move.
    words_left: Option<u32>,
    /// Last clock's ready and reset.
    ready: bool,
    reset: bool,
    /// Clocks the frame on the wire has waited for ready.
    waited: u64,
    /// Frames a stall held, frames held 100 clocks or more, and clocks a frame's last
    /// word waited.
    pub stalled_frames: u64,
    pub long_stalls: u64,
    pub last_waits: u64,
}

impl PfcTxStimulus {
    pub fn new(seed: u64, cfg: &PfcConfig) -> Self {
        let cur = config_ports(cfg).expect("thresholds within the generated fill width");
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            cfg: cfg.clone(),
            cur,
            data_left: 0,
            wire: crate::blocks::ReadyPhases::new(1_000..10_000, 0.3..0.95, 100, 2..400, false),
            words_left: None,
            ready: true,
            reset: false,
            waited: 0,
            stalled_frames: 0,
            long_stalls: 0,
            last_waits: 0,
        }
    }

    /// The next clock's inputs, after the block's outputs of the last clock.
    pub fn next_after(&mut self, prev: Option<&PfcTxOut>) -> PfcTxIn {
        let mut i = self.triggers();
        // A frame's first word was offered last clock (and moved if the wire was ready).
        if prev.is_some_and(|o| o.frame_start) && !self.reset {
            let words = 512 / self.cfg.datapath_bits;
            self.words_left = Some(words - self.ready as u32);
            self.waited = !self.ready as u64;
        }
        let ready = self.wire.next(&mut self.rng, false);
        i.frame_done = false;
        if let Some(n) = self.words_left {
            if ready {
                if n == 1 {
                    i.frame_done = true;
                    self.words_left = None;
                    self.stalled_frames += (self.waited > 0) as u64;
                    self.long_stalls += (self.waited >= 100) as u64;
                } else {
                    self.words_left = Some(n - 1);
                }
            } else {
                self.waited += 1;
                self.last_waits += (n == 1) as u64;
            }
        }
        if i.reset {
            self.words_left = None;
        }
        self.ready = ready;
        self.reset = i.reset;
        i
    }

    /// The triggers, data frames and reset of the next clock.
    fn triggers(&mut self) -> PfcTxIn {
        let r = &mut self.rng;
        let i = &mut self.cur;
        i.sw_req = 0;
        for (q, qc) in self.cfg.queues.iter().enumerate() {
            // On about a seventh of the time, so that in PAUSE mode all are sometimes off.
            let on = i.hw_level >> q & 1 == 1;
            if (on && r.gen_ratio(1, 150)) || (!on && r.gen_ratio(1, 1000)) {
                i.hw_level ^= 1 << q;
            }
            if r.gen_ratio(1, 900) {
                i.sw_req |= 1 << q;
            }
            if r.gen_ratio(1, 250) {
                let (rfa, rfd) = qc.threshold.map_or((0, 0), |t| (t.rfa_bytes, t.rfd_bytes));
                // Mostly below RFD, so that the triggers are mostly off.
                let v = match r.gen_range(0..10) {
                    0 => rfa,
                    1 => rfa + 1,
                    2 => rfd,
                    3 => rfd.saturating_sub(1),
                    4 => r.gen_range(rfd..=rfa),
                    5 => r.gen_range(0..=FILL_MAX + 1000),
                    _ => r.gen_range(0..=rfd),
                };
                i.fill_bytes[q] = fill_port(v);
            }
        }
        // Data frames of 8 to 400 clocks with idle gaps between them.
        if self.data_left > 0 {
            self.data_left -= 1;
        } else if r.gen_ratio(1, 60) {
            self.data_left = r.gen_range(8..400);
        }
        i.busy = self.data_left > 0;
        i.reset = r.gen_ratio(1, 200_000);
        *i
    }
}
