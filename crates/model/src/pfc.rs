//! Ethernet PAUSE/PFC flow control (docs/spec.md §9), clock by clock. Transmit side
//! ([`PfcTx`]): per-queue triggers (software one-shot, hardware level, RX-fill RFA/RFD
//! hysteresis), refresh before expiry, zero-quanta release, consolidation and merging of
//! due frames. Receive side ([`PauseRx`]): frame checks and per-priority pause timers.
//! Written from docs/spec.md §9, independent of any RTL.
//!
//! Timing, in clocks of the datapath (`datapath_bits` per clock at line rate):
//! - a pause quantum is 512 bit times: `512 / datapath_bits` clocks; a 64-byte frame is
//!   `512 / datapath_bits` clocks on the wire;
//! - the trigger inputs (fill levels, hardware levels, software requests) act
//!   [`TRIGGER_DELAY`] clocks after the clock they are applied in (sampled, then compared
//!   and combined): an event applied at clock `t` makes its frame due at `t + 2`; `busy`
//!   acts in its own clock;
//! - a due frame waits, and frames due while it waits merge into it; the waiting frame is
//!   taken at the first clock after it formed at which no frame or data is on the wire,
//!   and its first byte leaves the clock after that ([`DUE_TO_WIRE`] clocks after it was
//!   due): [`FRAME_LATENCY`] clocks after the event on an idle link;
//! - a frame's last byte leaves in the clock its last word moves on the wire
//!   ([`PfcTxIn::frame_done`], which a stalling wire delays: docs/spec.md §10), `L`; the
//!   wire is free for the next frame from `L`;
//! - a queue's pause time counts from `L`; while its level trigger stays asserted, the
//!   refresh is due so that its first byte leaves at `L + (PT - refresh_quanta) x
//!   quantum` on an idle link.

use crate::config::ConfigError;
use crate::ethernet::{PauseFrame, PauseKind, FRAME_BYTES};
use std::collections::VecDeque;

/// RX queues (and so trigger sets) at most (docs/spec.md §9).
pub const MAX_QUEUES: usize = 8;
/// Bit times in a pause quantum (docs/spec.md §9).
pub const QUANTUM_BITS: u64 = 512;
/// A fill threshold is allowed only on a queue at least this large (seed 004).
pub const MIN_THRESHOLD_QUEUE_BYTES: u32 = 4096;
/// Clocks from a frame being due to its first byte on an idle link: it forms in the clock
/// it is due, is taken the next, and its first byte leaves the clock after.
pub const DUE_TO_WIRE: u64 = 2;
/// Clocks from a trigger input's change to its frame being due: sampled in the clock it
/// changes, compared and combined in the next, due in the one after.
pub const TRIGGER_DELAY: usize = 2;
/// Clocks from an event to its frame's first byte on an idle link.
pub const FRAME_LATENCY: u64 = TRIGGER_DELAY as u64 + DUE_TO_WIRE;

/// Frame kind (docs/spec.md §9, PFCE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// PFC frames per queue.
    Pfc,
    /// Plain 802.3x PAUSE: any queue's trigger asserts the one PAUSE with queue 0's PT.
    Pause,
}

/// RX-fill trigger thresholds (EHFC): asserted above RFA, released below RFD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threshold {
    pub size_bytes: u32,
    /// RFA: asserted when the fill level rises above it.
    pub rfa_bytes: u32,
    /// RFD: released when the fill level falls below it.
    pub rfd_bytes: u32,
}

/// One RX queue's flow-control settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    /// PSRQ: the priorities whose packets land in this queue (bit i: priority i).
    pub priorities: u8,
    /// PT, in quanta.
    pub pause_quanta: u16,
    /// The RX-fill trigger, when enabled.
    pub threshold: Option<Threshold>,
}

/// The transmit side's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PfcConfig {
    pub mode: Mode,
    /// Source address of every frame.
    pub sa: [u8; 6],
    /// 32 or 64.
    pub datapath_bits: u32,
    /// Send a pause-time-0 frame when a level trigger releases (seed 004's DZPQ, named for
    /// what it does).
    pub zero_quanta_on_release: bool,
    /// Quanta of the previous pause time left when a refresh leaves.
    pub refresh_quanta: u16,
    pub queues: Vec<QueueConfig>,
}

impl PfcConfig {
    /// Clocks per pause quantum.
    pub fn clocks_per_quantum(&self) -> u64 {
        QUANTUM_BITS / self.datapath_bits as u64
    }

    /// Clocks a 64-byte frame takes on the wire.
    pub fn frame_clocks(&self) -> u64 {
        (FRAME_BYTES as u64 * 8) / self.datapath_bits as u64
    }

    /// The 64-byte frame for a set of entries (docs/spec.md §9): in PFC mode each entry's
    /// queue's priorities enabled with its time, the others 0; in PAUSE mode entry 0's
    /// time.
    pub fn frame(&self, e: &Entries) -> PauseFrame {
        let kind = match self.mode {
            Mode::Pause => PauseKind::Pause { quanta: e[0].expect("a PAUSE frame has its entry") },
            Mode::Pfc => {
                let mut enable = 0u16;
                let mut times = [0u16; 8];
                for (q, v) in e.iter().enumerate() {
                    if let Some(pt) = v {
                        let mask = self.queues[q].priorities;
                        enable |= mask as u16;
                        for (p, t) in times.iter_mut().enumerate() {
                            if mask >> p & 1 == 1 {
                                *t = *pt;
                            }
                        }
                    }
                }
                PauseKind::Pfc { enable, times }
            }
        };
        PauseFrame { sa: self.sa, kind }
    }

    /// The rules of docs/spec.md §9 a configuration must keep; the error names the field
    /// (`queue[1].priorities`, `queue[0].threshold.rfd_bytes`, `refresh_quanta`, ...).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.datapath_bits != 32 && self.datapath_bits != 64 {
            return Err(ConfigError::field("datapath_bits", format!("{} is not 32 or 64", self.datapath_bits)));
        }
        if self.queues.is_empty() {
            return Err(ConfigError::field("queue", "missing: at least one [[queue]] is needed"));
        }
        if self.queues.len() > MAX_QUEUES {
            return Err(ConfigError::field("queue", format!("{} queues: at most {MAX_QUEUES}", self.queues.len())));
        }
        let mut seen = 0u8;
        for (i, q) in self.queues.iter().enumerate() {
            if q.priorities == 0 {
                return Err(ConfigError::field(format!("queue[{i}].priorities"), "the mask is 0: a queue needs at least one priority"));
            }
            if q.priorities & seen != 0 {
                let other = self.queues[..i].iter().position(|p| p.priorities & q.priorities != 0).unwrap();
                return Err(ConfigError::field(
                    format!("queue[{i}].priorities"),
                    format!(
                        "{:#04x} overlaps queue[{other}].priorities {:#04x} (priorities {:#04x}): a priority belongs to one queue at most",
                        q.priorities,
                        self.queues[other].priorities,
                        q.priorities & self.queues[other].priorities
                    ),
                ));
            }
            seen |= q.priorities;
            if self.refresh_quanta >= q.pause_quanta {
                return Err(ConfigError::field(
                    "refresh_quanta",
                    format!(
                        "{} is not below queue[{i}].pause_quanta {}: the refresh must leave before the pause time runs out",
                        self.refresh_quanta, q.pause_quanta
                    ),
                ));
            }
            if let Some(t) = q.threshold {
                let f = |k: &str| format!("queue[{i}].threshold.{k}");
                if t.size_bytes < MIN_THRESHOLD_QUEUE_BYTES {
                    return Err(ConfigError::field(
                        f("size_bytes"),
                        format!("{}: an RX-fill trigger needs a queue of {MIN_THRESHOLD_QUEUE_BYTES} bytes or more (seed 004)", t.size_bytes),
                    ));
                }
                if t.rfa_bytes > t.size_bytes {
                    return Err(ConfigError::field(f("rfa_bytes"), format!("{} is above size_bytes {}", t.rfa_bytes, t.size_bytes)));
                }
                if t.rfd_bytes == 0 {
                    // docs/spec.md §9: released when the fill falls below RFD, which a fill of 0
                    // never does: the queue would stay paused for good.
                    return Err(ConfigError::field(
                        f("rfd_bytes"),
                        "0 never releases: the fill never falls below 0 (1 releases when the queue is empty)",
                    ));
                }
                if t.rfd_bytes >= t.rfa_bytes {
                    return Err(ConfigError::field(
                        f("rfd_bytes"),
                        format!("{} is not below rfa_bytes {}: RFD < RFA (hysteresis)", t.rfd_bytes, t.rfa_bytes),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// One clock's inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PfcTxIn {
    /// Fill level of each RX queue, in bytes (read by the queues with a threshold).
    pub fill_bytes: [u32; MAX_QUEUES],
    /// Hardware flow-control level per queue (bit q: queue q).
    pub hw: u8,
    /// Software request per queue (FCB), a one-clock pulse (bit q: queue q).
    pub sw: u8,
    /// A data frame is on the wire this clock: a waiting frame is not taken.
    pub busy: bool,
    /// The last word of the frame on the wire moves this clock: its last byte leaves
    /// (on a wire that never stalls, `frame_clocks - 1` clocks after its first).
    pub frame_done: bool,
}

/// A frame leaving: its first byte goes out in the clock [`PfcTx::tick`] returned it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameOut {
    pub frame: PauseFrame,
}

/// What the transmit side did, counted since reset: for coverage and reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCounts {
    /// Frames whose first byte left.
    pub frames: u64,
    /// Of them, frames carrying two or more slots (consolidated).
    pub consolidated: u64,
    /// Level triggers that rose with the hardware level set, and with the fill alone.
    pub hw_rises: u64,
    pub fill_rises: u64,
    /// Level triggers that fell, and of them those that put a pause time 0 in a frame.
    pub falls: u64,
    pub releases: u64,
    /// Refreshes due while a level held.
    pub refreshes: u64,
    /// Software requests put in a frame, and those deferred to the next frame.
    pub sw_sent: u64,
    pub sw_again: u64,
    /// Software requests whose pause time a release replaced: deferred to the next frame.
    pub sw_after_release: u64,
    /// Entries set into a frame already waiting from an earlier clock.
    pub merges: u64,
    /// Clocks a waiting frame was held back by a data frame (`busy`).
    pub busy_waits: u64,
}

/// What each slot's entry of a frame carries: its pause time (0 for a release), or
/// nothing when the slot is not in the frame.
pub type Entries = [Option<u16>; MAX_QUEUES];

/// The transmit-side generator and frame timing, as docs/spec.md §9 describes it.
#[derive(Clone, Debug)]
pub struct PfcTx {
    cfg: PfcConfig,
    clock: u64,
    /// RX-fill hysteresis state per queue.
    fill_on: [bool; MAX_QUEUES],
    /// Level trigger (hardware or fill) per queue, last clock; in PAUSE mode entry 0 is
    /// the OR of all queues.
    level: [bool; MAX_QUEUES],
    /// The frame formed and not yet taken.
    waiting: Option<Entries>,
    /// Software requests made while their frame was waiting: sent in the next frame.
    sw_again: u8,
    /// Slots of the waiting frame whose pause time a software request set: a release
    /// that replaces it with 0 sends the request in the next frame (docs/spec.md §9: one
    /// frame per request, not lost while its frame waits).
    waiting_sw: u8,
    /// The frame taken: its first byte leaves at `.0`, with these entries.
    taken: Option<(u64, Entries)>,
    /// The entries of the frame on the wire, until its last word moves.
    on_wire: Option<Entries>,
    /// Per queue, the clock a refresh is due at (while its level stays asserted).
    refresh_at: [Option<u64>; MAX_QUEUES],
    /// The trigger inputs of the last [`TRIGGER_DELAY`] clocks, oldest first.
    sampled: [PfcTxIn; TRIGGER_DELAY],
    counts: TxCounts,
}

impl PfcTx {
    /// A generator after reset. The configuration must have passed [`PfcConfig::validate`].
    pub fn new(cfg: PfcConfig) -> Self {
        Self {
            cfg,
            clock: 0,
            fill_on: [false; MAX_QUEUES],
            level: [false; MAX_QUEUES],
            waiting: None,
            sw_again: 0,
            waiting_sw: 0,
            taken: None,
            on_wire: None,
            refresh_at: [None; MAX_QUEUES],
            sampled: [PfcTxIn::default(); TRIGGER_DELAY],
            counts: TxCounts::default(),
        }
    }

    /// What it did since reset.
    pub fn counts(&self) -> TxCounts {
        self.counts
    }

    pub fn config(&self) -> &PfcConfig {
        &self.cfg
    }

    /// The clock the next [`tick`](Self::tick) applies to.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// The frame whose first byte leaves in the clock the next [`tick`](Self::tick)
    /// applies to (it was taken in the clock before), which that tick returns: a port
    /// puts its words on the wire ahead of data.
    pub fn starting(&self) -> Option<PauseFrame> {
        match self.taken {
            Some((start, e)) if start == self.clock => Some(self.cfg.frame(&e)),
            _ => None,
        }
    }

    /// Trigger slots: one per queue in PFC mode, one in PAUSE mode.
    fn slots(&self) -> usize {
        match self.cfg.mode {
            Mode::Pfc => self.cfg.queues.len(),
            Mode::Pause => 1,
        }
    }

    /// The pause time a slot's frame carries.
    fn slot_quanta(&self, s: usize) -> u16 {
        self.cfg.queues[s].pause_quanta
    }

    /// Apply one clock's inputs; returns the frame whose first byte leaves in this clock.
    pub fn tick(&mut self, now: &PfcTxIn) -> Option<FrameOut> {
        let t = self.clock;
        // The triggers of TRIGGER_DELAY clocks ago act now; `busy` and `frame_done` act in
        // their own clock.
        self.sampled.rotate_left(1);
        let then = std::mem::replace(&mut self.sampled[TRIGGER_DELAY - 1], *now);
        let i = &PfcTxIn { busy: now.busy, frame_done: now.frame_done, ..then };
        let qc = self.cfg.clocks_per_quantum();
        let slots = self.slots();
        // The frame taken last clock starts now.
        let mut out = None;
        if let Some((start, e)) = self.taken {
            if start == t {
                out = Some(FrameOut { frame: self.cfg.frame(&e) });
                self.counts.frames += 1;
                self.counts.consolidated += (e.iter().flatten().count() >= 2) as u64;
                self.on_wire = Some(e);
                self.taken = None;
            }
        }
        // Level triggers this clock.
        let mut level_now = [false; MAX_QUEUES];
        for (q, qcfg) in self.cfg.queues.iter().enumerate() {
            if let Some(th) = qcfg.threshold {
                let f = i.fill_bytes[q];
                if !self.fill_on[q] && f > th.rfa_bytes {
                    self.fill_on[q] = true;
                } else if self.fill_on[q] && f < th.rfd_bytes {
                    self.fill_on[q] = false;
                }
            }
            level_now[q] = (i.hw >> q & 1 == 1) || self.fill_on[q];
        }
        let sw_now: u8 = i.sw & ((1u16 << self.cfg.queues.len()) - 1) as u8;
        let (level_now, sw_now) = match self.cfg.mode {
            Mode::Pfc => (level_now, sw_now),
            Mode::Pause => {
                let mut l = [false; MAX_QUEUES];
                l[0] = level_now.iter().any(|&b| b);
                (l, (sw_now != 0) as u8)
            }
        };
        // The frame on the wire has left: its pause times count from its last byte.
        if let Some(e) = self.on_wire {
            if i.frame_done {
                for s in 0..slots {
                    self.refresh_at[s] = match e[s] {
                        Some(pt) if pt > 0 && level_now[s] => {
                            Some(t + (pt - self.cfg.refresh_quanta) as u64 * qc - DUE_TO_WIRE)
                        }
                        Some(_) => None,
                        None => self.refresh_at[s],
                    };
                }
                self.on_wire = None;
            }
        }
        // Take the waiting frame when nothing is on the wire.
        let wire_free = self.taken.is_none() && self.on_wire.is_none() && !i.busy;
        self.counts.busy_waits += (i.busy && self.waiting.is_some()) as u64;
        if wire_free {
            if let Some(e) = self.waiting.take() {
                self.taken = Some((t + 1, e));
                // Requests made while it waited go in the next frame.
                let again = std::mem::take(&mut self.sw_again);
                self.waiting_sw = again;
                for s in 0..slots {
                    if again >> s & 1 == 1 {
                        self.waiting.get_or_insert([None; MAX_QUEUES])[s] = Some(self.slot_quanta(s));
                    }
                }
            }
        }
        // This clock's due frames, merged into the waiting one.
        let before = self.waiting;
        for s in 0..slots {
            let pt = self.slot_quanta(s);
            let rose = level_now[s] && !self.level[s];
            let fell = !level_now[s] && self.level[s];
            let refresh = level_now[s] && self.refresh_at[s] == Some(t);
            if rose || fell || refresh {
                self.refresh_at[s] = None;
            }
            let c = &mut self.counts;
            if rose {
                // In PAUSE mode slot 0 rises from any queue's hardware level or fill.
                let hw = match self.cfg.mode {
                    Mode::Pfc => i.hw >> s & 1 == 1,
                    Mode::Pause => i.hw & ((1u16 << self.cfg.queues.len()) - 1) as u8 != 0,
                };
                if hw {
                    c.hw_rises += 1;
                } else {
                    c.fill_rises += 1;
                }
            }
            c.falls += fell as u64;
            c.refreshes += refresh as u64;
            let release = fell && self.cfg.zero_quanta_on_release;
            c.releases += release as u64;
            let sw = sw_now >> s & 1 == 1;
            // Its pause frame is still waiting: the request is not lost, it goes after.
            let again = sw && matches!(before.and_then(|w| w[s]), Some(v) if v > 0);
            c.sw_again += again as u64;
            c.sw_sent += (sw && !again) as u64;
            c.merges += (before.is_some() && (rose || refresh || release || (sw && !again))) as u64;
            if rose || refresh {
                self.waiting.get_or_insert([None; MAX_QUEUES])[s] = Some(pt);
            }
            if release {
                self.waiting.get_or_insert([None; MAX_QUEUES])[s] = Some(0);
                if self.waiting_sw >> s & 1 == 1 {
                    self.waiting_sw &= !(1 << s);
                    self.sw_again |= 1 << s;
                    self.counts.sw_after_release += 1;
                }
            }
            if again {
                self.sw_again |= 1 << s;
            } else if sw {
                self.waiting.get_or_insert([None; MAX_QUEUES])[s] = Some(pt);
                self.waiting_sw |= 1 << s;
            }
        }
        self.level = level_now;
        self.clock += 1;
        out
    }
}

/// Clocks from a frame's last byte to the clock it is checked and counted in; its pause
/// times hold from the clock after that (docs/spec.md §10, "The PAUSE/PFC receive side":
/// decided in the second clock after the last word).
pub const RX_DECIDE_DELAY: u64 = 2;

/// Why a received frame was not acted on (docs/spec.md §9), in the order they are checked
/// but the last, `Marked`, which is checked first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RxDrop {
    /// Not 64 bytes long (a MAC control frame is 64 bytes, FCS included).
    Length,
    /// The FCS does not match.
    Fcs,
    /// A MAC control frame (EtherType 0x8808) to another destination.
    Da,
    /// To the PAUSE address with another EtherType.
    EtherType,
    /// Neither PAUSE (0x0001) nor PFC (0x0101).
    Opcode,
    /// Marked bad by the MAC with its last word (`tuser`: FCS or PHY error; docs/spec.md
    /// §10), before any other check.
    Marked,
}

/// Frame counts of the receive side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCounts {
    pub pause: u64,
    pub pfc: u64,
    /// Per [`RxDrop`], in its order.
    pub dropped: [u64; 6],
}

/// The receive side (docs/spec.md §9): a good PAUSE or PFC frame loads per-priority pause
/// timers, in clocks (quanta x `512 / datapath_bits`); a time of 0 releases, a new frame
/// reloads. Frames of 14 bytes or more addressed to the PAUSE address or carrying
/// EtherType 0x8808 are checked (length: 64 bytes exactly; FCS, DA, EtherType, opcode,
/// in that order) and the first failure is counted; other frames are data and not
/// looked at.
#[derive(Clone, Debug)]
pub struct PauseRx {
    clocks_per_quantum: u64,
    timers: [u64; 8],
    counts: RxCounts,
    /// The frames whose last byte arrived in each of the last [`RX_DECIDE_DELAY`] clocks,
    /// oldest first, and whether the MAC marked each bad: the oldest is acted on now.
    arrived: VecDeque<Option<(Vec<u8>, bool)>>,
}

impl PauseRx {
    pub fn new(datapath_bits: u32) -> Self {
        Self {
            clocks_per_quantum: QUANTUM_BITS / datapath_bits as u64,
            timers: [0; 8],
            counts: RxCounts::default(),
            arrived: (0..RX_DECIDE_DELAY).map(|_| None).collect(),
        }
    }

    pub fn counts(&self) -> RxCounts {
        self.counts
    }

    /// Whether a frame is one this side checks: to the PAUSE address, or MAC control.
    fn is_control(f: &[u8]) -> bool {
        f.len() >= 14 && (f[0..6] == crate::ethernet::PAUSE_DA || f[12..14] == crate::ethernet::ETHERTYPE_MAC_CONTROL.to_be_bytes())
    }

    /// One clock: `frame_end` is the frame whose last byte arrived in this clock, if any.
    /// Returns `paused` during this clock (bit i: priority i). A frame is checked and
    /// counted in the second clock after its last byte ([`RX_DECIDE_DELAY`]); its times
    /// hold from the clock after that, for as many clocks as they say.
    pub fn tick(&mut self, frame_end: Option<&[u8]>) -> u8 {
        self.tick_marked(frame_end, false)
    }

    /// [`tick`](Self::tick), with the MAC's mark on the frame ending now (`marked`: a
    /// control frame so marked is counted as [`RxDrop::Marked`] and not acted on).
    pub fn tick_marked(&mut self, frame_end: Option<&[u8]>, marked: bool) -> u8 {
        self.arrived.push_back(frame_end.map(|f| (f.to_vec(), marked)));
        let frame = self.arrived.pop_front().flatten();
        match frame {
            Some((f, m)) => self.act(Some(&f), m),
            None => self.act(None, false),
        }
    }

    fn act(&mut self, frame_end: Option<&[u8]>, marked: bool) -> u8 {
        use crate::ethernet::EthDecodeError as E;
        let paused = self.timers.iter().enumerate().fold(0u8, |m, (i, &t)| m | (((t > 0) as u8) << i));
        for t in &mut self.timers {
            *t = t.saturating_sub(1);
        }
        let Some(f) = frame_end else { return paused };
        if !Self::is_control(f) {
            return paused;
        }
        if marked {
            self.counts.dropped[RxDrop::Marked as usize] += 1;
            return paused;
        }
        if f.len() != FRAME_BYTES {
            self.counts.dropped[RxDrop::Length as usize] += 1;
            return paused;
        }
        let qc = self.clocks_per_quantum;
        match PauseFrame::decode(f) {
            Ok(PauseFrame { kind: PauseKind::Pause { quanta }, .. }) => {
                self.timers = [quanta as u64 * qc; 8];
                self.counts.pause += 1;
            }
            Ok(PauseFrame { kind: PauseKind::Pfc { enable, times }, .. }) => {
                for (i, t) in times.iter().enumerate() {
                    if enable >> i & 1 == 1 {
                        self.timers[i] = *t as u64 * qc;
                    }
                }
                self.counts.pfc += 1;
            }
            Err(e) => {
                let k = match e {
                    E::Short { .. } => RxDrop::Length,
                    E::BadFcs { .. } => RxDrop::Fcs,
                    E::BadDa(_) => RxDrop::Da,
                    E::BadEtherType(_) => RxDrop::EtherType,
                    E::BadOpcode(_) => RxDrop::Opcode,
                };
                self.counts.dropped[k as usize] += 1;
            }
        }
        paused
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SA: [u8; 6] = [0x02, 0, 0, 0, 0, 1];

    fn cfg(mode: Mode, bits: u32) -> PfcConfig {
        PfcConfig {
            mode,
            sa: SA,
            datapath_bits: bits,
            zero_quanta_on_release: true,
            refresh_quanta: 20,
            queues: vec![
                QueueConfig { priorities: 0x05, pause_quanta: 200, threshold: None },
                QueueConfig {
                    priorities: 0x02,
                    pause_quanta: 100,
                    threshold: Some(Threshold { size_bytes: 16384, rfa_bytes: 12000, rfd_bytes: 4000 }),
                },
            ],
        }
    }

    /// Run to `clocks`, applying `events(clock, &mut inputs)` each clock; the frames with
    /// the clock their first byte left.
    fn run(c: PfcConfig, clocks: u64, mut events: impl FnMut(u64, &mut PfcTxIn)) -> Vec<(u64, PauseKind)> {
        // A wire that never stalls: each frame's last word moves frame_clocks - 1 clocks
        // after its first.
        let fc = c.frame_clocks();
        let mut g = PfcTx::new(c);
        let mut i = PfcTxIn::default();
        let mut v = vec![];
        let mut done_at = None;
        for t in 0..clocks {
            i.sw = 0;
            events(t, &mut i);
            i.frame_done = done_at == Some(t);
            if let Some(f) = g.tick(&i) {
                v.push((t, f.frame.kind));
                done_at = Some(t + fc - 1);
            }
        }
        v
    }

    fn pfc(enable: u16, times: [u16; 8]) -> PauseKind {
        PauseKind::Pfc { enable, times }
    }

    #[test]
    fn hardware_level_frame_refresh_release_at_32_bits() {
        // Quantum 16 clocks, frame 16 clocks. Asserted at 10: first byte 14 (FRAME_LATENCY
        // 4), last 29; PT 200 runs out at 29 + 3200 = 3229; the refresh leaves with 20
        // quanta left, at 3229 - 320 = 2909 (last byte 2924), the next at 2924 + 2880 =
        // 5804. Released at 4000: the zero frame at 4004.
        let f = run(cfg(Mode::Pfc, 32), 7000, |t, i| {
            if (10..4000).contains(&t) {
                i.hw = 1;
            } else {
                i.hw = 0;
            }
        });
        let pt = pfc(0x05, [200, 0, 200, 0, 0, 0, 0, 0]);
        assert_eq!(f, vec![(14, pt), (2909, pt), (4004, pfc(0x05, [0; 8]))]);
    }

    #[test]
    fn quanta_are_clocks_at_64_bits() {
        // Quantum 8 clocks, frame 8 clocks: first byte 14, last 21; refresh at 21 + 180 x 8.
        let f = run(cfg(Mode::Pfc, 64), 3000, |t, i| i.hw = (t >= 10) as u8);
        assert_eq!(f.iter().map(|x| x.0).collect::<Vec<_>>(), vec![14, 21 + 180 * 8, 21 + 180 * 8 + 7 + 180 * 8]);
    }

    #[test]
    fn fill_hysteresis_and_consolidation() {
        // Queue 1 fills above RFA (12000) at 100 while queue 0's hardware level rises at
        // 100 too: one frame with both queues (PEV 0x07). Fill falls to 8000 (between RFD
        // and RFA: still asserted), then to 3000 at 900: queue 1's release alone.
        let f = run(cfg(Mode::Pfc, 32), 1000, |t, i| {
            i.hw = (t >= 100) as u8;
            i.fill_bytes[1] = match t {
                0..=99 => 11000,
                100..=499 => 12001,
                500..=899 => 8000,
                _ => 3000,
            };
        });
        assert_eq!(
            f,
            vec![(104, pfc(0x07, [200, 100, 200, 0, 0, 0, 0, 0])), (904, pfc(0x02, [0; 8]))]
        );
    }

    #[test]
    fn merging_while_a_frame_is_on_the_wire() {
        // Queue 0 at 10 (on the wire 14..=29); queue 1's fill at 14 and a software request
        // for queue 0 at 15 merge into one waiting frame, taken at 29, out at 30.
        let f = run(cfg(Mode::Pfc, 32), 200, |t, i| {
            i.hw = (t == 10) as u8; // one clock: rises at 10, falls at 11 (release merges too)
            i.fill_bytes[1] = if t >= 14 { 13000 } else { 0 };
            if t == 15 {
                i.sw = 1;
            }
        });
        // The release of queue 0 (at 11) waited; the software request at 15 made it PT again.
        assert_eq!(
            f,
            vec![(14, pfc(0x05, [200, 0, 200, 0, 0, 0, 0, 0])), (30, pfc(0x07, [200, 100, 200, 0, 0, 0, 0, 0]))]
        );
    }

    #[test]
    fn software_request_while_waiting_goes_again() {
        // Data on the wire until 50: the request at 10 waits; the second at 20 finds it
        // still waiting and goes in the next frame. No refresh, no release.
        let f = run(cfg(Mode::Pfc, 32), 400, |t, i| {
            i.busy = t < 50;
            if t == 10 || t == 20 {
                i.sw = 1;
            }
        });
        let pt = pfc(0x05, [200, 0, 200, 0, 0, 0, 0, 0]);
        assert_eq!(f, vec![(51, pt), (67, pt)]);
    }

    #[test]
    fn software_request_outlives_a_release_of_its_waiting_frame() {
        // Data on the wire until 50. At 10 queue 0's level rises with a software request
        // (one waiting pause frame); the level falls at 20, so that frame goes as the
        // release, and the request, one frame per request (docs/spec.md §9), in the next one.
        let f = run(cfg(Mode::Pfc, 32), 400, |t, i| {
            i.busy = t < 50;
            i.hw = (10..20).contains(&t) as u8;
            i.sw = (t == 10) as u8;
        });
        let release = pfc(0x05, [0; 8]);
        let pt = pfc(0x05, [200, 0, 200, 0, 0, 0, 0, 0]);
        assert_eq!(f, vec![(51, release), (67, pt)]);
    }

    #[test]
    fn pause_mode_uses_queue_0_time_and_releases_when_all_are_off() {
        let f = run(cfg(Mode::Pause, 32), 2000, |t, i| {
            i.hw = if (10..500).contains(&t) { 1 } else { 0 };
            i.fill_bytes[1] = if (300..800).contains(&t) { 13000 } else { 0 };
        });
        assert_eq!(f, vec![(14, PauseKind::Pause { quanta: 200 }), (804, PauseKind::Pause { quanta: 0 })]);
    }

    #[test]
    fn no_release_frame_when_disabled() {
        let mut c = cfg(Mode::Pfc, 32);
        c.zero_quanta_on_release = false;
        let f = run(c, 1000, |t, i| i.hw = (10..100).contains(&t) as u8);
        assert_eq!(f.len(), 1);
    }

    /// `paused` over `clocks` clocks with `frame` ending at clock 10.
    fn paused_run(bits: u32, frame: &[u8], clocks: u64) -> (Vec<u8>, RxCounts) {
        let mut rx = PauseRx::new(bits);
        let v = (0..clocks).map(|t| rx.tick((t == 10).then_some(frame))).collect();
        (v, rx.counts())
    }

    fn frame(kind: PauseKind) -> [u8; 64] {
        PauseFrame { sa: SA, kind }.encode()
    }

    #[test]
    fn pfc_frame_pauses_its_priorities_for_its_times() {
        // 32 bits: 16 clocks a quantum. PT0 = 2 quanta, PT2 = 1, PT5 = 3 but not enabled.
        // The frame ends at 10, is checked at 12 and holds from 13.
        let f = frame(PauseKind::Pfc { enable: 0x05, times: [2, 9, 1, 0, 0, 3, 0, 0] });
        let (p, c) = paused_run(32, &f, 60);
        assert!(p[..=12].iter().all(|&x| x == 0));
        assert!(p[13..=28].iter().all(|&x| x == 0x05), "both for 16 clocks");
        assert!(p[29..=44].iter().all(|&x| x == 0x01), "priority 0 for 16 more");
        assert!(p[45..].iter().all(|&x| x == 0));
        assert_eq!((c.pfc, c.pause), (1, 0));
        // At 64 bits a quantum is 8 clocks.
        let (p, _) = paused_run(64, &f, 60);
        assert_eq!(p.iter().filter(|&&x| x & 1 == 1).count(), 16);
    }

    #[test]
    fn pause_frame_pauses_all_zero_releases_new_frame_reloads() {
        let mut rx = PauseRx::new(32);
        let long = frame(PauseKind::Pause { quanta: 100 });
        let zero = frame(PauseKind::Pfc { enable: 0x0f, times: [0; 8] });
        let p: Vec<u8> = (0..40)
            .map(|t| rx.tick(match t {
                5 => Some(&long[..]),
                20 => Some(&zero[..]),
                _ => None,
            }))
            .collect();
        assert!(p[..=7].iter().all(|&x| x == 0));
        assert!(p[8..=22].iter().all(|&x| x == 0xff));
        assert!(p[23..].iter().all(|&x| x == 0xf0), "priorities 0-3 released, 4-7 still paused");
    }

    #[test]
    fn bad_frames_are_counted_by_cause_and_not_acted_on() {
        let good = frame(PauseKind::Pause { quanta: 5 });
        let refcs = |mut f: [u8; 64]| {
            let c = crate::ethernet::CRC32.checksum(&f[..60]);
            f[60..].copy_from_slice(&c.to_le_bytes());
            f
        };
        let mut fcs = good;
        fcs[20] ^= 1;
        let mut da = good;
        da[5] = 2;
        let mut et = good;
        et[13] = 0;
        let mut op = good;
        op[15] = 2;
        let mut data = good; // another DA and EtherType: data, not looked at
        data[0] = 0x02;
        data[12] = 0x08;
        data[13] = 0x00;
        let long = [&good[..], &[0u8; 4][..]].concat();
        let cases: [(&[u8], Option<RxDrop>); 7] = [
            (&good[..63], Some(RxDrop::Length)),
            (&long, Some(RxDrop::Length)),
            (&fcs, Some(RxDrop::Fcs)),
            (&refcs(da), Some(RxDrop::Da)),
            (&refcs(et), Some(RxDrop::EtherType)),
            (&refcs(op), Some(RxDrop::Opcode)),
            (&refcs(data), None),
        ];
        for (f, why) in cases {
            let (p, c) = paused_run(32, f, 40);
            assert!(p.iter().all(|&x| x == 0), "{why:?}: acted on");
            let mut want = [0u64; 6];
            if let Some(k) = why {
                want[k as usize] = 1;
            }
            assert_eq!(c.dropped, want, "{why:?}");
        }
        // The MAC's mark comes first: a good frame so marked is dropped as Marked, a
        // marked frame that would fail a check too is counted as Marked alone, and a
        // marked data frame is not counted here.
        for (f, why) in [(&good[..], Some(RxDrop::Marked)), (&fcs[..], Some(RxDrop::Marked)), (&refcs(data)[..], None)] {
            let mut rx = PauseRx::new(32);
            let p: Vec<u8> = (0..40).map(|t| rx.tick_marked((t == 10).then_some(f), t == 10)).collect();
            assert!(p.iter().all(|&x| x == 0), "{why:?}: acted on");
            let mut want = [0u64; 6];
            if let Some(k) = why {
                want[k as usize] = 1;
            }
            assert_eq!(rx.counts().dropped, want, "{why:?}");
        }
    }

    #[test]
    fn validation_names_the_field() {
        let name = |c: PfcConfig| c.validate().unwrap_err().field_name().unwrap().to_string();
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[1].priorities = 0x04;
        assert_eq!(name(c), "queue[1].priorities");
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[0].priorities = 0;
        assert_eq!(name(c), "queue[0].priorities");
        let mut c = cfg(Mode::Pfc, 32);
        c.refresh_quanta = 100;
        assert_eq!(name(c), "refresh_quanta");
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[1].threshold.as_mut().unwrap().rfd_bytes = 12000;
        assert_eq!(name(c), "queue[1].threshold.rfd_bytes");
        // A fill trigger with RFD 0 would never release (found by the scenario fuzzer).
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[1].threshold.as_mut().unwrap().rfd_bytes = 0;
        assert_eq!(name(c), "queue[1].threshold.rfd_bytes");
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[1].threshold.as_mut().unwrap().rfd_bytes = 1;
        assert!(c.validate().is_ok());
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[1].threshold.as_mut().unwrap().rfa_bytes = 16385;
        assert_eq!(name(c), "queue[1].threshold.rfa_bytes");
        let mut c = cfg(Mode::Pfc, 32);
        c.queues[1].threshold = Some(Threshold { size_bytes: 4095, rfa_bytes: 3000, rfd_bytes: 1000 });
        assert_eq!(name(c), "queue[1].threshold.size_bytes");
        let mut c = cfg(Mode::Pfc, 32);
        c.queues = vec![c.queues[0]; 9];
        assert_eq!(name(c), "queue");
        assert!(cfg(Mode::Pfc, 64).validate().is_ok());
    }
}
