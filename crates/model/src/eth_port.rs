//! The Ethernet flow-control port (docs/spec.md §9), clock by clock: per-queue transmit
//! queues and their scheduler, the PAUSE/PFC transmit side ([`PfcTx`]) ahead of data at
//! frame boundaries, the receive side ([`PauseRx`]) holding transmit queues, and
//! per-queue receive buffers filled by the frames' 802.1Q priority (PCP) whose fill
//! levels drive the RX-fill triggers.
//!
//! The rules this model commits to (the port's contract, in `docs/pfc.md`):
//! * A clock carries one word of `W/8` bytes each way; a frame's words are contiguous,
//!   its last word carries 1 to `W/8` bytes from lane 0. The MAC's preamble and
//!   inter-frame gap are not on this stream.
//! * Transmit: each queue takes one word a clock from its user while it has room
//!   (`tx_queue_bytes`, counted in whole words); a frame may go from the clock after its
//!   last word was taken (store and forward). In a clock with no frame on the wire and
//!   no PAUSE/PFC frame starting, the next queue in round-robin order after the last one
//!   served that holds a whole frame and none of whose priorities was paused two
//!   clocks before starts one (a pause or a release is seen two clocks after it comes:
//!   [`TX_PAUSE_SEEN_DELAY`]).
//!   A frame once started is sent whole. The transmit side's `busy` is "a data word that
//!   is not a frame's last is on the wire", so a waiting PAUSE/PFC frame is taken in
//!   the last clock of a data frame and follows it back to back.
//! * Receive: a frame whose DA is the PAUSE address or whose EtherType is 0x8808 goes to
//!   [`PauseRx`] only. Any other frame is data: its priority is the PCP of its 802.1Q tag
//!   (0 untagged), its queue the one whose priority mask holds it (queue 0 if none). In
//!   the clock after its last word it is stored whole if it is at most 1522 bytes long
//!   and its words fit in the buffer's free space at the start of that clock, else
//!   dropped and counted (docs/spec.md §10, "The receive buffers' store").
//!   Buffers hold whole words: a frame takes `ceil(len / (W/8))` of them, and the fill
//!   level (words stored and not yet moved to the reader, in bytes) is what the RX-fill
//!   trigger compares, as it stands at the start of each clock.
//! * Reading (one AXI4-Stream per queue): a queue offers its oldest stored word, which
//!   moves in a clock where the reader is ready, and holds until then. In a clock where
//!   it offers nothing or its word moves, the queue reads its next stored word (of a
//!   frame stored before that clock), offered from the next clock (a registered read, as
//!   a block RAM does): a reader that stays ready takes a word a clock. The fill level
//!   falls by a word in the clock after a word moves.

use crate::config::ConfigError;
use crate::ethernet::{ETHERTYPE_MAC_CONTROL, PAUSE_DA};
use crate::pfc::{PauseRx, PfcConfig, PfcTx, PfcTxIn, MAX_QUEUES};
use std::collections::VecDeque;

/// The longest frame a queue must hold: 1518 bytes and an 802.1Q tag.
pub const MAX_FRAME_BYTES: u32 = 1522;
/// 802.1Q tag protocol identifier.
pub const TPID: u16 = 0x8100;

/// One port's configuration; both ends of a link may differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EthPortConfig {
    pub pfc: PfcConfig,
    /// Receive buffer per queue, bytes (with an RX-fill trigger: its `size_bytes`).
    pub rx_buffer_bytes: Vec<u32>,
    /// Transmit queue per queue, bytes.
    pub tx_queue_bytes: u32,
}

impl EthPortConfig {
    /// docs/spec.md §9's rules and the port's own: every queue holds a maximum frame.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.pfc.validate()?;
        if self.rx_buffer_bytes.len() != self.pfc.queues.len() {
            return Err(ConfigError::field("queue", "every queue needs a receive buffer size"));
        }
        for (i, (&b, q)) in self.rx_buffer_bytes.iter().zip(&self.pfc.queues).enumerate() {
            // A queue with a threshold takes its size from `threshold.size_bytes` unless a
            // `buffer_bytes` says otherwise: the error names the key the size came from.
            let key = if q.threshold.is_some_and(|t| t.size_bytes == b) { "threshold.size_bytes" } else { "buffer_bytes" };
            if b < MAX_FRAME_BYTES {
                return Err(ConfigError::field(
                    format!("queue[{i}].{key}"),
                    format!("{b} is below one maximum frame ({MAX_FRAME_BYTES} bytes)"),
                ));
            }
            if b % 8 != 0 {
                return Err(ConfigError::field(format!("queue[{i}].{key}"), format!("{b} is not a whole number of 8-byte words")));
            }
            if let Some(t) = q.threshold {
                if t.size_bytes != b {
                    return Err(ConfigError::field(
                        format!("queue[{i}].buffer_bytes"),
                        format!("{b} is not threshold.size_bytes {}", t.size_bytes),
                    ));
                }
            }
        }
        if self.tx_queue_bytes < MAX_FRAME_BYTES {
            return Err(ConfigError::field(
                "tx_queue_bytes",
                format!("{} is below one maximum frame ({MAX_FRAME_BYTES} bytes)", self.tx_queue_bytes),
            ));
        }
        Ok(())
    }

    /// Bytes a clock.
    pub fn word_bytes(&self) -> usize {
        self.pfc.datapath_bits as usize / 8
    }

    /// The queue a priority's frames land in (queue 0 when no mask holds it).
    pub fn queue_of(&self, priority: u8) -> usize {
        self.pfc.queues.iter().position(|q| q.priorities >> priority & 1 == 1).unwrap_or(0)
    }

    /// A data frame's priority: its 802.1Q PCP, 0 when untagged.
    pub fn priority_of(frame: &[u8]) -> u8 {
        if frame.len() >= 16 && frame[12..14] == TPID.to_be_bytes() {
            frame[14] >> 5
        } else {
            0
        }
    }

    /// Whether a received frame is for the receive side of flow control, not data.
    pub fn is_control(frame: &[u8]) -> bool {
        frame.len() >= 6 && frame[0..6] == PAUSE_DA || frame.len() >= 14 && frame[12..14] == ETHERTYPE_MAC_CONTROL.to_be_bytes()
    }
}

/// One clock of a byte stream: `len` bytes from lane 0 (byte k in bits `8k+7:8k`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Word {
    pub data: u64,
    pub len: u8,
    /// The frame's last word.
    pub last: bool,
}

impl Word {
    pub fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        (0..self.len as usize).map(|k| (self.data >> (8 * k)) as u8)
    }
}

/// One frame as words of `wb` bytes.
pub fn words(frame: &[u8], wb: usize) -> impl Iterator<Item = Word> + '_ {
    let n = frame.len().div_ceil(wb);
    frame.chunks(wb).enumerate().map(move |(i, c)| Word {
        data: c.iter().enumerate().fold(0u64, |d, (k, &b)| d | (b as u64) << (8 * k)),
        len: c.len() as u8,
        last: i + 1 == n,
    })
}

/// One clock's inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthPortIn {
    /// The word each queue's user offers (taken when the queue has room: `tx_taken`).
    pub tx: [Option<Word>; MAX_QUEUES],
    /// The MAC takes the word offered on the wire this clock (docs/spec.md §10); while it
    /// does not, the word holds. The default is a wire that never stalls.
    pub tx_ready: bool,
    /// The word arriving from the wire.
    pub rx: Option<Word>,
    /// With the last word: the MAC marks the frame bad (docs/spec.md §10).
    pub rx_bad: bool,
    /// Per queue (bit q), the reader takes the word its receive buffer offers, if any
    /// (AXI4-Stream `tready`).
    pub rx_ready: u8,
    /// Hardware flow-control level and software requests per queue (docs/spec.md §9).
    pub hw: u8,
    pub sw: u8,
}

impl Default for EthPortIn {
    fn default() -> Self {
        Self { tx: [None; MAX_QUEUES], tx_ready: true, rx: None, rx_bad: false, rx_ready: 0, hw: 0, sw: 0 }
    }
}

/// One clock's outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthPortOut {
    /// Per queue (bit q): it has room for a word this clock ...
    pub tx_room: u8,
    /// ... and so the offered word was taken.
    pub tx_taken: u8,
    /// The word sent on the wire.
    pub wire: Option<Word>,
    /// The word each queue offers its reader (`tvalid`); it moves when `rx_ready`.
    pub rx_word: [Option<Word>; MAX_QUEUES],
    /// Priorities held by received PAUSE/PFC frames (bit p: priority p).
    pub paused: u8,
    /// Each receive buffer's fill level at the start of the clock, bytes.
    pub fill: [u32; MAX_QUEUES],
    /// Per queue (bit q): the data frame that ended last clock was dropped (no room).
    pub rx_drop: u8,
    /// A frame marked bad by the MAC ended this clock: not stored, not acted on.
    pub rx_bad: bool,
}

/// What the port did since reset, per queue where it says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EthPortCounts {
    pub tx_frames: [u64; MAX_QUEUES],
    /// PAUSE/PFC frames sent.
    pub ctrl_frames: u64,
    /// Data frames dropped: no room in their queue's buffer.
    pub rx_drops: [u64; MAX_QUEUES],
    /// Frames (data or control) the MAC marked bad, dropped.
    pub rx_bad: u64,
    /// Clocks a queue held a whole frame but was paused.
    pub held: [u64; MAX_QUEUES],
    /// Clocks a data word, and a PAUSE/PFC word, waited on the wire for `tx_ready`.
    pub data_stalls: u64,
    pub ctrl_stalls: u64,
}

/// Clocks from a clock's paused priorities to the transmit choice that reads them
/// (docs/spec.md §10, "The Ethernet transmit queues").
pub const TX_PAUSE_SEEN_DELAY: usize = 2;

#[derive(Clone, Debug, Default)]
struct TxQueue {
    /// Every word held, oldest first: whole frames, then the one being written.
    words: VecDeque<Word>,
    /// Whole frames held and not yet started.
    whole: u32,
}

/// One clock's inputs of the transmit queues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxQueuesIn {
    /// The word each queue's user offers.
    pub tx: [Option<Word>; MAX_QUEUES],
    /// Priorities held by received PAUSE/PFC frames; the choice reads them
    /// [`TX_PAUSE_SEEN_DELAY`] clocks later.
    pub paused: u8,
    /// A PAUSE/PFC frame's word for the wire this clock (its first included).
    pub ctrl: Option<Word>,
    /// The wire takes the word offered this clock (docs/spec.md §10); while it does not,
    /// the word offered holds.
    pub ready: bool,
}

/// One clock's outputs of the transmit queues.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxQueuesOut {
    /// Per queue (bit q): it has room for a word this clock ...
    pub room: u8,
    /// ... and so the offered word was taken.
    pub taken: u8,
    /// The word offered to the wire: a data word, else the PAUSE/PFC word; it moves when
    /// `ready`.
    pub wire: Option<Word>,
    /// A data frame is in progress after this clock: a data word is offered and it is
    /// not a last word that moves now (`pfc_tx`'s `busy`).
    pub busy: bool,
    /// The queue that started (committed, its first word offered) a frame this clock.
    pub started: Option<usize>,
}

/// The per-queue transmit queues and their round-robin scheduler (see the module's
/// rules, and docs/spec.md §10 for the wire's ready). A queue's room (`tx_queue_bytes`, in
/// whole words) frees a word at a time as its words move on the wire.
#[derive(Clone, Debug)]
pub struct TxQueues {
    cfg: EthPortConfig,
    queues: Vec<TxQueue>,
    /// The queue whose frame is on the wire.
    sending: Option<usize>,
    /// Round-robin: the queue served last.
    last_served: usize,
    /// The priorities the choice reads: `[0]` in the next clock, `[1]` in the one after
    /// (a clock's `paused` is read two clocks later: docs/spec.md §10).
    paused_seen: [u8; TX_PAUSE_SEEN_DELAY],
}

impl TxQueues {
    pub fn new(cfg: EthPortConfig) -> Self {
        let n = cfg.pfc.queues.len();
        Self { queues: vec![TxQueue::default(); n], sending: None, last_served: n - 1, paused_seen: [0; TX_PAUSE_SEEN_DELAY], cfg }
    }

    /// Words each queue can hold.
    pub fn capacity_words(&self) -> usize {
        self.cfg.tx_queue_bytes as usize / self.cfg.word_bytes()
    }

    pub fn tick(&mut self, i: &TxQueuesIn) -> TxQueuesOut {
        let nq = self.queues.len();
        let cap = self.capacity_words();
        let mut o = TxQueuesOut::default();
        let room: Vec<bool> = self.queues.iter().map(|t| t.words.len() < cap).collect();
        o.room = room.iter().enumerate().fold(0, |m, (q, &r)| m | (r as u8) << q);
        let paused = self.paused_seen[0];
        self.paused_seen.rotate_left(1);
        self.paused_seen[TX_PAUSE_SEEN_DELAY - 1] = i.paused;
        if self.sending.is_none() && i.ctrl.is_none() {
            for k in 1..=nq {
                let q = (self.last_served + k) % nq;
                if self.queues[q].whole > 0 && paused & self.cfg.pfc.queues[q].priorities == 0 {
                    self.queues[q].whole -= 1;
                    self.last_served = q;
                    self.sending = Some(q);
                    o.started = Some(q);
                    break;
                }
            }
        }
        if let Some(q) = self.sending {
            let w = *self.queues[q].words.front().expect("a whole frame's words");
            if i.ready {
                self.queues[q].words.pop_front();
                if w.last {
                    self.sending = None;
                }
            }
            o.wire = Some(w);
            o.busy = !(w.last && i.ready);
        } else {
            o.wire = i.ctrl;
        }
        for (q, t) in self.queues.iter_mut().enumerate() {
            let Some(w) = i.tx[q] else { continue };
            if room[q] {
                t.words.push_back(w);
                t.whole += w.last as u32;
                o.taken |= 1 << q;
            }
        }
        o
    }

    /// Whether queue `q` holds a whole frame not yet started.
    pub fn has_frame(&self, q: usize) -> bool {
        self.queues[q].whole > 0
    }

    /// Whether queue `q` holds a whole frame that the next clock's choice passes over
    /// because one of its priorities is paused.
    pub fn held(&self, q: usize) -> bool {
        self.has_frame(q) && self.paused_seen[0] & self.cfg.pfc.queues[q].priorities != 0
    }
}

#[derive(Clone, Debug, Default)]
struct RxBuffer {
    /// Stored frames as words, oldest first.
    words: VecDeque<Word>,
}

/// One clock's inputs of the receive buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxBuffersIn {
    /// The word arriving from the wire.
    pub rx: Option<Word>,
    /// Per queue (bit q), the reader takes the word offered, if any.
    pub ready: u8,
    /// With the last word: the MAC marks the frame bad (docs/spec.md §10).
    pub bad: bool,
}

/// One clock's outputs of the receive buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxBuffersOut {
    /// The word each queue offers; it moves when the reader is ready.
    pub word: [Option<Word>; MAX_QUEUES],
    /// Fill level per queue at the start of the clock, bytes (whole words).
    pub fill: [u32; MAX_QUEUES],
    /// Per queue (bit q): the data frame that ended last clock was dropped.
    pub drop: u8,
    /// A frame marked bad ended this clock (not stored).
    pub bad: bool,
}

/// The per-queue receive buffers: data frames sorted by their 802.1Q priority, stored
/// whole in the clock after their last word when they fit, offered a word at a time (see
/// the module's rules). Fill levels count whole words: a frame takes `ceil(len / (W/8))`
/// of them.
#[derive(Clone, Debug)]
pub struct RxBuffers {
    cfg: EthPortConfig,
    bufs: Vec<RxBuffer>,
    receiving: Vec<u8>,
    /// The data frame whose last word came last clock (not marked bad), with its queue:
    /// stored or dropped this clock.
    ended: Option<(usize, Vec<u8>)>,
    /// The word each queue offers (read from its memory, not yet moved).
    out: [Option<Word>; MAX_QUEUES],
    /// Words stored and not yet moved, the offered one included.
    fill_words: [u32; MAX_QUEUES],
}

impl RxBuffers {
    pub fn new(cfg: EthPortConfig) -> Self {
        Self { bufs: vec![RxBuffer::default(); cfg.pfc.queues.len()], cfg, receiving: vec![], ended: None, out: [None; MAX_QUEUES], fill_words: [0; MAX_QUEUES] }
    }

    pub fn tick(&mut self, i: &RxBuffersIn) -> RxBuffersOut {
        let wb = self.cfg.word_bytes() as u32;
        let mut o = RxBuffersOut { word: self.out, ..Default::default() };
        for (f, w) in o.fill.iter_mut().zip(&self.fill_words) {
            *f = w * wb;
        }
        // The offered words that move; a queue whose word moved or that offers none reads
        // its next word of a frame stored before this clock, offered from the next.
        for (q, b) in self.bufs.iter_mut().enumerate() {
            let moved = self.out[q].is_some() && i.ready >> q & 1 == 1;
            if moved {
                self.fill_words[q] -= 1;
            }
            if moved || self.out[q].is_none() {
                self.out[q] = b.words.pop_front();
            }
        }
        // The frame that ended last clock, against the fill at the start of this one.
        if let Some((q, f)) = self.ended.take() {
            let n = f.len().div_ceil(wb as usize) as u32;
            if f.len() as u32 <= MAX_FRAME_BYTES && n * wb <= self.cfg.rx_buffer_bytes[q] - o.fill[q] {
                self.bufs[q].words.extend(words(&f, wb as usize));
                self.fill_words[q] += n;
            } else {
                o.drop |= 1 << q;
            }
        }
        let Some(w) = i.rx else { return o };
        self.receiving.extend(w.bytes());
        if !w.last {
            return o;
        }
        let f = std::mem::take(&mut self.receiving);
        if i.bad {
            o.bad = true;
            return o;
        }
        if EthPortConfig::is_control(&f) {
            return o;
        }
        let q = self.cfg.queue_of(EthPortConfig::priority_of(&f));
        self.ended = Some((q, f));
        o
    }
}

/// The port, stepped a clock at a time.
#[derive(Clone, Debug)]
pub struct EthPort {
    cfg: EthPortConfig,
    tx_queues: TxQueues,
    rx_buffers: RxBuffers,
    /// Our PAUSE/PFC frame on the wire: its bytes and the next byte to move.
    sending: Option<(Vec<u8>, usize)>,
    pfc: PfcTx,
    pause_rx: PauseRx,
    /// The frame arriving.
    receiving: Vec<u8>,
    counts: EthPortCounts,
}

impl EthPort {
    /// A port after reset; `cfg` must have passed [`EthPortConfig::validate`].
    pub fn new(cfg: EthPortConfig) -> Self {
        Self {
            tx_queues: TxQueues::new(cfg.clone()),
            rx_buffers: RxBuffers::new(cfg.clone()),
            sending: None,
            pfc: PfcTx::new(cfg.pfc.clone()),
            pause_rx: PauseRx::new(cfg.pfc.datapath_bits),
            receiving: vec![],
            counts: EthPortCounts::default(),
            cfg,
        }
    }

    pub fn config(&self) -> &EthPortConfig {
        &self.cfg
    }

    pub fn counts(&self) -> EthPortCounts {
        self.counts
    }

    pub fn pfc_counts(&self) -> crate::pfc::TxCounts {
        self.pfc.counts()
    }

    pub fn pause_rx_counts(&self) -> crate::pfc::RxCounts {
        self.pause_rx.counts()
    }

    /// One clock.
    pub fn tick(&mut self, i: &EthPortIn) -> EthPortOut {
        let wb = self.cfg.word_bytes();
        let nq = self.cfg.pfc.queues.len();
        let mut o = EthPortOut::default();
        let bad = i.rx_bad && i.rx.is_some_and(|w| w.last);
        let rb = self.rx_buffers.tick(&RxBuffersIn { rx: i.rx, ready: i.rx_ready, bad });
        o.fill = rb.fill;
        o.rx_word = rb.word;
        o.rx_drop = rb.drop;
        o.rx_bad = rb.bad;
        self.counts.rx_bad += rb.bad as u64;
        for q in 0..nq {
            self.counts.rx_drops[q] += (rb.drop >> q & 1) as u64;
        }
        // The receive side: a frame whose last word came last clock is checked now.
        let frame_end = match i.rx {
            Some(w) if w.last => {
                let mut f = std::mem::take(&mut self.receiving);
                f.extend(w.bytes());
                Some(f)
            }
            Some(w) => {
                self.receiving.extend(w.bytes());
                None
            }
            None => None,
        };
        let control = frame_end.as_deref().is_some_and(EthPortConfig::is_control);
        o.paused = self.pause_rx.tick_marked(frame_end.as_deref().filter(|_| control), bad);

        // The wire: our frame on it or starting, else a data frame.
        let began = self.pfc.starting();
        if let Some(f) = began {
            debug_assert!(self.sending.is_none(), "the transmit side starts a frame only on a free wire");
            self.sending = Some((f.encode().to_vec(), 0));
            self.counts.ctrl_frames += 1;
        }
        // Its word is offered; it moves when the MAC is ready (no data frame is in
        // progress while it is on the wire), and the frame's end is the clock its last
        // word moves.
        let ctrl = self.sending.as_ref().map(|(f, at)| {
            let w = words(&f[*at..], wb).next().expect("a frame has bytes left");
            Word { last: at + w.len as usize == f.len(), ..w }
        });
        let frame_done = i.tx_ready && ctrl.is_some_and(|w| w.last);
        if let (Some((_, at)), Some(w), true) = (self.sending.as_mut(), ctrl, i.tx_ready) {
            *at += w.len as usize;
        }
        if frame_done {
            self.sending = None;
        }
        for q in 0..nq {
            self.counts.held[q] += self.tx_queues.held(q) as u64;
        }
        let t = self.tx_queues.tick(&TxQueuesIn { tx: i.tx, paused: o.paused, ctrl, ready: i.tx_ready });
        o.tx_taken = t.taken;
        o.tx_room = t.room;
        o.wire = t.wire;
        if t.wire.is_some() && !i.tx_ready {
            // A PAUSE/PFC word is offered only while no data frame is in progress.
            if ctrl.is_some() {
                self.counts.ctrl_stalls += 1;
            } else {
                self.counts.data_stalls += 1;
            }
        }
        if let Some(q) = t.started {
            self.counts.tx_frames[q] += 1;
        }
        let mut fill_bytes = [0u32; MAX_QUEUES];
        fill_bytes[..nq].copy_from_slice(&o.fill[..nq]);
        let started = self.pfc.tick(&PfcTxIn { fill_bytes, hw: i.hw, sw: i.sw, busy: t.busy, frame_done });
        debug_assert_eq!(started.map(|f| f.frame), began);
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ethernet::{PauseFrame, PauseKind, CRC32};
    use crate::pfc::{Mode, QueueConfig, Threshold, FRAME_LATENCY};

    fn cfg() -> EthPortConfig {
        let th = Threshold { size_bytes: 8192, rfa_bytes: 4096, rfd_bytes: 2048 };
        EthPortConfig {
            pfc: PfcConfig {
                mode: Mode::Pfc,
                sa: [2, 0, 0, 0, 0, 1],
                datapath_bits: 64,
                zero_quanta_on_release: true,
                refresh_quanta: 10,
                queues: vec![
                    QueueConfig { priorities: 0x01, pause_quanta: 100, threshold: Some(th) },
                    QueueConfig { priorities: 0x0e, pause_quanta: 100, threshold: Some(th) },
                ],
            },
            rx_buffer_bytes: vec![8192, 8192],
            tx_queue_bytes: 4096,
        }
    }

    fn frame(priority: Option<u8>, len: usize) -> Vec<u8> {
        let mut f = vec![0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 3];
        if let Some(p) = priority {
            f.extend([0x81, 0x00, p << 5, 1]);
        }
        f.extend([0x88, 0xb5]);
        f.resize(len - 4, 0x5a);
        let fcs = CRC32.checksum(&f);
        f.extend(fcs.to_le_bytes());
        f
    }

    /// The fill levels once the last frame fed in has been stored (it is decided in the
    /// clock after its last word and counted from the next).
    fn fill_after(p: &mut EthPort) -> [u32; MAX_QUEUES] {
        p.tick(&EthPortIn::default()).fill
    }

    /// Feed whole frames into the receive side, one word a clock, nothing read.
    fn receive(p: &mut EthPort, frames: &[Vec<u8>]) -> Vec<EthPortOut> {
        let mut outs = vec![];
        for f in frames {
            for w in words(f, p.config().word_bytes()) {
                outs.push(p.tick(&EthPortIn { rx: Some(w), ..Default::default() }));
            }
        }
        outs.push(p.tick(&EthPortIn::default()));
        outs
    }

    #[test]
    fn frames_land_in_the_queue_of_their_pcp_and_are_dropped_only_when_they_do_not_fit() {
        let mut p = EthPort::new(cfg());
        // Untagged: priority 0, queue 0. PCP 3: queue 1. PCP 5 is in no mask: queue 0.
        let o = receive(&mut p, &[frame(None, 100), frame(Some(3), 1000), frame(Some(5), 64)]);
        // The last frame is decided in the clock after its last word, counted from the
        // next: not yet in the clock after it.
        assert_eq!(o.last().unwrap().fill[..2], [104, 1000]);
        // Whole words of 8 bytes: 100 bytes take 13 (104), 1000 take 125, 64 take 8.
        assert_eq!(fill_after(&mut p)[..2], [168, 1000]);
        // Queue 1 holds 1000 of 8192: a 1522-byte frame (191 words, 1528) fits 4 more
        // times (7112), the next does not (7112 + 1528 > 8192), a 1080-byte one fills it
        // exactly, and a frame longer than 1522 bytes never fits.
        let big = frame(Some(2), 1522);
        receive(&mut p, &[big.clone(), big.clone(), big.clone(), big.clone(), big.clone(), frame(Some(1), 1080)]);
        assert_eq!(fill_after(&mut p)[1], 8192);
        assert_eq!(p.counts().rx_drops, [0, 1, 0, 0, 0, 0, 0, 0]);
        let mut p = EthPort::new(cfg());
        let o = receive(&mut p, &[frame(Some(0), 1523), frame(Some(0), 1522)]);
        // The drop shows in the clock after the frame's last word.
        let ends: Vec<usize> = [1523usize, 1522].iter().scan(0, |t, n| { *t += n.div_ceil(8); Some(*t - 1) }).collect();
        assert_eq!((o[ends[0]].rx_drop, o[ends[0] + 1].rx_drop), (0, 1));
        assert_eq!(fill_after(&mut p)[0], 1528);
        assert_eq!(p.counts().rx_drops, [1, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn a_queue_offers_its_oldest_word_from_three_clocks_after_its_last_and_holds_it_until_ready() {
        // docs/spec.md §10: a 64-byte frame (8 words) whose last word arrives in clock 7
        // is stored in 8 (counted from 9); read from memory in 9, offered from 10. The
        // reader is ready in clocks 10, 12 and 13: words 0, 1, 2 move then, word 1 is
        // offered (and held) in 11.
        let mut p = EthPort::new(cfg());
        let f = frame(None, 64);
        let ws: Vec<Word> = words(&f, 8).collect();
        let ready = [10, 12, 13];
        let outs: Vec<EthPortOut> = (0..17)
            .map(|t| p.tick(&EthPortIn { rx: ws.get(t).copied(), rx_ready: ready.contains(&t) as u8, ..Default::default() }))
            .collect();
        let offered: Vec<Option<Word>> = outs.iter().map(|o| o.rx_word[0]).collect();
        assert_eq!(offered[..10], [None; 10]);
        assert_eq!(offered[10..14], [Some(ws[0]), Some(ws[1]), Some(ws[1]), Some(ws[2])]);
        assert_eq!(offered[14], Some(ws[3]), "held while not ready");
        // The fill counts the offered word; it falls in the clock after a word moves.
        let fill: Vec<u32> = outs.iter().map(|o| o.fill[0]).collect();
        assert_eq!(fill[7..15], [0, 0, 64, 64, 56, 56, 48, 40]);
    }

    #[test]
    fn a_frame_is_held_against_the_fill_of_the_clock_it_is_stored_in() {
        // Queue 0 holds 8192 bytes. Seven 1080-byte frames (135 words each, 945 in all)
        // leave 1024 - 945 = 79 words; a 632-byte frame (79 words) then fits exactly, and
        // a one-word frame right behind it does not: its last word comes in the clock the
        // 632-byte frame is stored, and is decided against the fill that counts it.
        let mut p = EthPort::new(cfg());
        let mut fs = vec![frame(Some(0), 1080); 7];
        fs.push(frame(Some(0), 632));
        fs.push(frame(Some(0), 64)[..8].to_vec());
        let o = receive(&mut p, &fs);
        assert_eq!(fill_after(&mut p)[0], 8192);
        assert_eq!(p.counts().rx_drops[0], 1);
        assert_eq!(o.last().unwrap().rx_drop, 1, "dropped in the clock after its last word");
    }

    /// The frames a port sent, with the clock of their first word.
    fn on_wire(outs: &[EthPortOut]) -> Vec<(usize, Vec<u8>)> {
        let mut v: Vec<(usize, Vec<u8>)> = vec![];
        let mut open = false;
        for (t, o) in outs.iter().enumerate() {
            let Some(w) = o.wire else { continue };
            if !open {
                v.push((t, vec![]));
            }
            v.last_mut().unwrap().1.extend(w.bytes());
            open = !w.last;
        }
        v
    }

    /// Offer `frames` to queue `q`, a word a clock as taken; `hw(t)` the hardware level.
    fn send(p: &mut EthPort, q: usize, frames: &[Vec<u8>], clocks: usize, hw: impl Fn(usize) -> u8) -> Vec<EthPortOut> {
        let ws: Vec<Word> = frames.iter().flat_map(|f| words(f, p.config().word_bytes()).collect::<Vec<_>>()).collect();
        let mut k = 0;
        (0..clocks)
            .map(|t| {
                let mut i = EthPortIn { hw: hw(t), ..Default::default() };
                i.tx[q] = ws.get(k).copied();
                let o = p.tick(&i);
                k += (o.tx_taken >> q & 1) as usize;
                o
            })
            .collect()
    }

    #[test]
    fn a_pfc_frame_follows_the_data_frame_on_the_wire_back_to_back_and_holds_the_data_behind_it() {
        let mut p = EthPort::new(cfg());
        // Two 800-byte frames (100 words) for queue 0; the first is whole at clock 99 and
        // goes from clock 100 to 199. Queue 1's hardware level rises at 120.
        let f = frame(Some(0), 800);
        let outs = send(&mut p, 0, &[f.clone(), f.clone()], 400, |t| if t >= 120 { 0b10 } else { 0 });
        let w = on_wire(&outs);
        assert_eq!(w.len(), 3, "{:?}", w.iter().map(|x| x.0).collect::<Vec<_>>());
        assert_eq!((w[0].0, &w[0].1), (100, &f));
        assert!(120 + FRAME_LATENCY as usize <= 200);
        // The PFC frame in the clock after the data frame's last word, ...
        assert_eq!(w[1].0, 200);
        let d = PauseFrame::decode(&w[1].1).expect("a PFC frame");
        assert_eq!(d.kind, PauseKind::Pfc { enable: 0x0e, times: [0, 100, 100, 100, 0, 0, 0, 0] });
        // ... and the second data frame (whole since clock 199) after its 8 words.
        assert_eq!((w[2].0, &w[2].1), (208, &f));
    }

    #[test]
    fn a_paused_queue_waits_and_the_other_goes() {
        let mut c = cfg();
        c.pfc.datapath_bits = 32;
        let mut p = EthPort::new(c);
        // A PFC frame holding priority 0 for 2 quanta (32 clocks at 32 bits); `receive`
        // ends with the clock after its last word, it is checked in the next (clock 0
        // below), so the hold runs from clock 1 to 32.
        let pf = PauseFrame { sa: [2, 0, 0, 0, 0, 9], kind: PauseKind::Pfc { enable: 0x01, times: [2, 0, 0, 0, 0, 0, 0, 0] } }.encode();
        receive(&mut p, &[pf.to_vec()]);
        // A 64-byte frame for each queue (16 words): both whole at clock 15.
        let (f0, f1) = (frame(Some(0), 64), frame(Some(1), 64));
        let (a, b) = (words(&f0, 4).collect::<Vec<_>>(), words(&f1, 4).collect::<Vec<_>>());
        let outs: Vec<EthPortOut> = (0..100)
            .map(|t| {
                let mut i = EthPortIn::default();
                i.tx[0] = a.get(t).copied();
                i.tx[1] = b.get(t).copied();
                p.tick(&i)
            })
            .collect();
        let w = on_wire(&outs);
        // Queue 1's goes as soon as it is whole; queue 0's in the second clock after the
        // hold has run out (the choice sees a release two clocks after it comes).
        assert_eq!((w[0].0, &w[0].1), (16, &f1));
        assert_eq!((w[1].0, &w[1].1), (35, &f0));
        assert!(outs[0].paused == 0 && outs[32].paused & 1 == 1 && outs[33].paused == 0);
    }
}
