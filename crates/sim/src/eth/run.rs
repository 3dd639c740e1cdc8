//! Two Ethernet flow-control ports back to back through a wire with latency: per-queue
//! traffic generators on each side, paced readers on each side, and what a run
//! measures (per direction and queue: throughput, pause time, PAUSE/PFC frames, the
//! largest buffer fill, drops) and checks end to end (every frame sent is delivered
//! intact and in order, or dropped and counted by the receiver). It also keeps a
//! timeline ([`EthSample`] per `sample_every` clocks, [`PauseMark`] per PAUSE/PFC frame)
//! for `iblink sim --plot` (`super::plot`), and, in the RTL back ends, writes both
//! ports' waveforms ([`EthRun::rtl_traced`]).

pub use crate::blocks::eth_port::PortBuildError;
use super::scenario::{EthScenario, FrameSize, SA};
use crate::CycleSim;
use iblink_model::eth_port::{words, EthPort, EthPortConfig, EthPortIn, EthPortOut, Word, MAX_FRAME_BYTES};
use iblink_model::ethernet::{PauseFrame, PauseKind, CRC32};
use iblink_model::pfc::MAX_QUEUES;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// EtherType of the generators' frames (IEEE 802 local experimental).
pub const ETHERTYPE_TEST: u16 = 0x88b5;
/// Clocks the flush may take before the run is declared stuck.
pub const FLUSH_LIMIT: u64 = 5_000_000;

/// The reference model as a port back end.
pub struct ModelPort(pub EthPort);

impl CycleSim for ModelPort {
    type In = EthPortIn;
    type Out = EthPortOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &EthPortIn) -> EthPortOut {
        self.0.tick(i)
    }
}

/// A port back end.
pub type PortSim = Box<dyn CycleSim<In = EthPortIn, Out = EthPortOut>>;

/// A generator's data frame: DA (the other end), SA, an 802.1Q tag with the priority,
/// EtherType 0x88b5, the generator's number and the frame's sequence number, a pattern,
/// and the FCS; `len` bytes in all.
pub fn data_frame(from: usize, priority: u8, generator: u8, seq: u32, len: usize) -> Vec<u8> {
    let mut f = Vec::with_capacity(len);
    f.extend(SA[1 - from]);
    f.extend(SA[from]);
    f.extend(0x8100u16.to_be_bytes());
    f.extend(((priority as u16) << 13 | 1).to_be_bytes());
    f.extend(ETHERTYPE_TEST.to_be_bytes());
    f.push(generator);
    f.extend(seq.to_be_bytes());
    while f.len() < len - 4 {
        f.push((seq as usize + f.len()) as u8);
    }
    let fcs = CRC32.checksum(&f);
    f.extend(fcs.to_le_bytes());
    f
}

/// A generator's identity and sequence number read back from a delivered frame whose
/// FCS is good.
fn frame_id(f: &[u8]) -> Option<(u8, u32)> {
    if f.len() < 64 || CRC32.checksum(&f[..f.len() - 4]).to_le_bytes() != f[f.len() - 4..] {
        return None;
    }
    Some((f[18], u32::from_be_bytes(f[19..23].try_into().unwrap())))
}

struct Generator {
    side: usize,
    priority: u8,
    queue: usize,
    size: FrameSize,
    load: u32,
    rng: ChaCha8Rng,
    tokens: u64,
    /// Frames handed to the queue whole.
    made: u32,
    cur: Option<(Vec<Word>, usize)>,
}

/// Per direction and receiving queue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueReport {
    pub priorities: u8,
    /// Data frames the sender put on the wire, and their bytes, in the traffic clocks.
    pub sent_frames: u64,
    pub sent_bytes: u64,
    /// Bytes the receiver's reader took, in the traffic clocks.
    pub delivered_bytes: u64,
    /// Clocks the sender's queue was held by received PAUSE/PFC frames.
    pub paused_clocks: u64,
    /// PAUSE/PFC frames the receiver sent for this queue's priorities (with a pause time,
    /// and releases), the flush's included: every one a capture of the run holds.
    pub pause_frames: u64,
    pub release_frames: u64,
    pub max_fill: u32,
    pub buffer_bytes: u32,
    /// Frames the receiver dropped for want of room (whole run).
    pub drops: u64,
    /// Frames delivered intact and in order (whole run, flush included).
    pub delivered_frames: u64,
    /// Frames the generator handed over (whole run).
    pub made_frames: u64,
}

/// One window of the timeline: clocks `from..clock` of the traffic. Windows are
/// `sample_every` clocks from clock 0 and follow each other without a gap; the last one
/// ends with the traffic and may be shorter. Per direction (`[A→B, B→A]`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EthSample {
    pub from: u64,
    pub clock: u64,
    /// Bytes of data frames that crossed the wire in the window, per queue of the
    /// frame's priority (both ends share the queues' masks): each word counts in the
    /// clock it left the sender, with the bytes it carries (a frame's last word may carry
    /// fewer than the link's width).
    pub wire_bytes: [Vec<u64>; 2],
    /// Bytes of PAUSE/PFC frames on the same wire in the window.
    pub ctrl_bytes: [u64; 2],
    /// The receiving end's buffer fill per queue, bytes (the port's `fill` output each
    /// clock): the largest over the window's clocks, and the mean.
    pub fill_max: [Vec<u32>; 2],
    pub fill_mean: [Vec<f64>; 2],
}

impl EthSample {
    /// Clocks the window covers.
    pub fn clocks(&self) -> u64 {
        self.clock - self.from
    }
    /// Every byte on direction `dir`'s wire in the window: data and PAUSE/PFC.
    pub fn total_bytes(&self, dir: usize) -> u64 {
        self.wire_bytes[dir].iter().sum::<u64>() + self.ctrl_bytes[dir]
    }
}

/// A PAUSE/PFC frame sent in the traffic clocks, as it holds the direction it controls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PauseMark {
    /// Clock its first word left the sender.
    pub clock: u64,
    /// The direction whose sender it holds (`0`: A→B, so port B sent it).
    pub dir: usize,
    /// Bit q: the frame names queue q's priorities (a PAUSE frame names every queue) ...
    pub queues: u8,
    /// ... and with pause time 0 for all of them: a release.
    pub releases: u8,
}

#[derive(Clone, Debug, Default)]
pub struct EthReport {
    pub backend: String,
    pub cycles: u64,
    /// Clocks the flush took.
    pub flush_clocks: u64,
    /// `[A→B, B→A]`, per queue of the receiving end.
    pub dirs: [Vec<QueueReport>; 2],
    /// Words on each wire in the traffic clocks (data and PAUSE/PFC).
    pub wire_words: [u64; 2],
    /// End-to-end failures: frames lost without a drop, reordered or corrupted.
    pub errors: Vec<String>,
    /// Every frame on the wires with the clock its first word was sent, `0` = A→B.
    pub frames: Vec<(u64, usize, Vec<u8>)>,
    /// The traffic clocks window by window, and the PAUSE/PFC frames sent in them.
    pub timeline: Vec<EthSample>,
    pub pause_marks: Vec<PauseMark>,
    /// The clocks the waveforms cover: the first and the last recorded (`None`: none).
    pub vcd_clocks: Option<(u64, u64)>,
    /// A waveform file that could not be written when its window opened.
    pub vcd_error: Option<String>,
}

/// A MAC between a port and the wire (docs/spec.md §10): besides each frame it spends
/// `overhead` bytes of line time (preamble, SFD, inter-frame gap), holding the port's
/// `tx_ready` low while they go. The unused lanes of a frame's last word count towards
/// them and what is left of a word is carried to the next gap (as a 10GbE MAC's deficit
/// idle count does), so a frame of n bytes takes (n + overhead) / W clocks of line time
/// on average: the rate a real link delivers.
#[derive(Clone, Copy, Debug)]
struct Mac {
    overhead: u32,
    /// Bytes of gap still to send.
    owed: u32,
}

impl Mac {
    fn new(overhead: u32) -> Self {
        Self { overhead, owed: 0 }
    }

    /// It takes a word this clock: less than a word of gap is owed.
    fn ready(&self, wb: u32) -> bool {
        self.owed < wb
    }

    /// The clock ends with `moved` taken: a clock without a word sends a word of gap.
    fn clock(&mut self, moved: Option<Word>, wb: u32) {
        match moved {
            Some(w) if w.last => self.owed += self.overhead.saturating_sub(wb - w.len as u32),
            Some(_) => {}
            None => self.owed = self.owed.saturating_sub(wb),
        }
    }
}

/// A run in progress.
pub struct EthRun<'a> {
    s: &'a EthScenario,
    ports: [PortSim; 2],
    cfg: [EthPortConfig; 2],
    pub clock: u64,
    gens: Vec<Generator>,
    /// The wire each way (`0`: A→B): words in flight, `latency` long.
    wire: [VecDeque<Option<Word>>; 2],
    /// Each port's MAC.
    macs: [Mac; 2],
    /// Reader tokens per side and queue (per mille bytes).
    read_tokens: [[u64; MAX_QUEUES]; 2],
    /// Per side, the queues whose reader is ready this clock (`tready`: paid a word's
    /// tokens, refunded for what did not move).
    asked: [u8; 2],
    /// Frames being read per side and queue.
    reading: [[Vec<u8>; MAX_QUEUES]; 2],
    /// Frames being sent per side (for the capture and the counts), and the clock and
    /// bytes of each of their words (for the timeline, once the frame's queue is known).
    sending: [Option<(u64, Vec<u8>)>; 2],
    sending_words: [Vec<(u64, u8)>; 2],
    /// Per receiving side and queue: the fill summed over the open window's clocks.
    fill_sum: [[u64; MAX_QUEUES]; 2],
    /// Last sequence number delivered per generator.
    last_seq: Vec<Option<u32>>,
    record: bool,
    report: EthReport,
    /// Both ports' outputs in the last clock.
    last_out: Option<[EthPortOut; 2]>,
    /// Both ports' waveform files, the clocks to keep (`None`: all), whether they are
    /// being written now.
    vcd_paths: Option<[PathBuf; 2]>,
    vcd_window: Option<(u64, u64)>,
    vcd_on: bool,
}

impl<'a> EthRun<'a> {
    /// Both ports from the reference model.
    pub fn model(s: &'a EthScenario, record: bool) -> Self {
        let ports: [PortSim; 2] = [0, 1].map(|i| Box::new(ModelPort(EthPort::new(s.port_config(i)))) as PortSim);
        Self::new(s, ports, record)
    }

    /// Both ports from the RTL: the composed stepper, or Verilator on the generated top.
    pub fn rtl(s: &'a EthScenario, verilator: bool, record: bool) -> Result<Self, PortBuildError> {
        Self::rtl_traced(s, verilator, record, None, None)
    }

    /// As [`rtl`](Self::rtl), writing both ports' waveforms to `<vcd_dir>/port_a.vcd` and
    /// `port_b.vcd`: every clock, or only clocks `from..to` of `window` (`to` excluded;
    /// the files start at `from` with every signal's value then). The `rtl` back end then
    /// runs the stepper inside its rust-hdl block (`EthPortUnit`), whose probe writes the
    /// top's ports; Verilator runs a traced build of the top. Time counts from the run's
    /// first clock (10,000 ps a clock in the rust-hdl files, 10 units in Verilator's).
    pub fn rtl_traced(
        s: &'a EthScenario,
        verilator: bool,
        record: bool,
        vcd_dir: Option<&Path>,
        window: Option<(u64, u64)>,
    ) -> Result<Self, PortBuildError> {
        let paths = vcd_dir.map(|d| [d.join("port_a.vcd"), d.join("port_b.vcd")]);
        let vcd = |i: usize| paths.as_ref().map(|p| p[i].as_path());
        let mut a = crate::blocks::eth_port::RtlPort::traced(&s.port_config(0), verilator, vcd(0))?;
        let mut b = crate::blocks::eth_port::RtlPort::traced(&s.port_config(1), verilator, vcd(1))?;
        // Built tracing (Verilator needs a traced build); a window that opens later
        // starts the files again then.
        let on = paths.is_some() && window.is_none_or(|(from, _)| from == 0);
        if paths.is_some() && !on {
            a.stop_vcd();
            b.stop_vcd();
        }
        let mut run = Self::new(s, [Box::new(a), Box::new(b)], record);
        run.vcd_paths = paths;
        run.vcd_window = window;
        run.vcd_on = on;
        Ok(run)
    }

    /// Open or close the waveform window at clock `c`, and note the clocks written.
    fn vcd_step(&mut self, c: u64) {
        if let (Some(paths), Some((from, to))) = (&self.vcd_paths, self.vcd_window) {
            if c == to && self.vcd_on {
                for p in &mut self.ports {
                    p.stop_vcd();
                }
                self.vcd_on = false;
            }
            if c == from && c < to && !self.vcd_on && self.report.vcd_error.is_none() {
                for (port, p) in self.ports.iter_mut().zip(paths) {
                    if let Err(e) = port.start_vcd(p) {
                        self.report.vcd_error = Some(format!("{}: {e}", p.display()));
                    }
                }
                self.vcd_on = self.report.vcd_error.is_none();
            }
        }
        if self.vcd_on {
            let first = self.report.vcd_clocks.map_or(c, |x| x.0);
            self.report.vcd_clocks = Some((first, c));
        }
    }

    /// The run on two port back ends; `record` keeps every frame for a capture.
    pub fn new(s: &'a EthScenario, ports: [PortSim; 2], record: bool) -> Self {
        let mut gens = vec![];
        for t in &s.traffic {
            for side in [0, 1].into_iter().filter(|&i| t.from.has(i)) {
                let n = gens.len() as u64;
                gens.push(Generator {
                    side,
                    priority: t.priority,
                    queue: s.port.queue_of(t.priority),
                    size: t.size.clone(),
                    load: t.load,
                    rng: ChaCha8Rng::seed_from_u64(s.seed.wrapping_mul(1_000_003).wrapping_add(n)),
                    tokens: 0,
                    made: 0,
                    cur: None,
                });
            }
        }
        let nq = s.port.pfc.queues.len();
        let backend = ports[0].backend().to_string();
        let dirs = [0, 1].map(|_| {
            (0..nq)
                .map(|q| QueueReport { priorities: s.port.pfc.queues[q].priorities, buffer_bytes: s.port.rx_buffer_bytes[q], ..Default::default() })
                .collect()
        });
        let lat = s.latency_clocks as usize;
        Self {
            s,
            ports,
            cfg: [s.port_config(0), s.port_config(1)],
            clock: 0,
            last_seq: vec![None; gens.len()],
            gens,
            wire: [0, 1].map(|_| VecDeque::from(vec![None; lat])),
            macs: [Mac::new(s.mac_overhead_bytes); 2],
            read_tokens: [[0; MAX_QUEUES]; 2],
            asked: [0; 2],
            reading: Default::default(),
            sending: [None, None],
            sending_words: [vec![], vec![]],
            fill_sum: [[0; MAX_QUEUES]; 2],
            record,
            report: EthReport { backend, cycles: s.cycles, dirs, ..Default::default() },
            last_out: None,
            vcd_paths: None,
            vcd_window: None,
            vcd_on: false,
        }
    }

    /// Whether queue `q`'s reader at `side` is stalled at `clock`.
    fn stalled(&self, side: usize, q: usize) -> bool {
        self.clock < self.s.cycles && self.s.stalls.iter().any(|st| st.side.has(side) && st.queues >> q & 1 == 1 && (st.from..st.to).contains(&self.clock))
    }

    /// One clock of both ports; their outputs.
    pub fn step(&mut self) -> [EthPortOut; 2] {
        let t = self.clock;
        self.vcd_step(t);
        let traffic = t < self.s.cycles;
        if traffic && t % self.s.sample_every == 0 {
            self.open_window(t);
        }
        let wb = self.cfg[0].word_bytes();
        let nq = self.cfg[0].pfc.queues.len();
        let mut ins = [EthPortIn::default(); 2];
        for (n, g) in self.gens.iter_mut().enumerate() {
            if traffic {
                g.tokens = (g.tokens + g.load as u64 * wb as u64).min(4 * MAX_FRAME_BYTES as u64 * 1000);
            }
            if g.cur.is_none() && traffic {
                let len = match g.size {
                    FrameSize::Fixed(n) => n,
                    FrameSize::Uniform(a, b) => g.rng.gen_range(a..=b),
                } as u64;
                if g.load >= 1000 || g.tokens >= len * 1000 {
                    g.tokens = g.tokens.saturating_sub(len * 1000);
                    let f = data_frame(g.side, g.priority, n as u8, g.made, len as usize);
                    g.cur = Some((words(&f, wb).collect(), 0));
                }
            }
            if let Some((w, k)) = &g.cur {
                ins[g.side].tx[g.queue] = Some(w[*k]);
            }
        }
        for side in 0..2 {
            ins[side].rx = self.wire[1 - side].pop_front().flatten();
            self.asked[side] = 0;
            for q in 0..nq {
                let rate = if traffic { self.s.drain_rate[q] } else { 1000 };
                if self.stalled(side, q) {
                    continue;
                }
                let tk = &mut self.read_tokens[side][q];
                *tk = (*tk + rate as u64 * wb as u64).min(2 * wb as u64 * 1000);
                if rate >= 1000 || *tk >= wb as u64 * 1000 {
                    ins[side].rx_ready |= 1 << q;
                    self.asked[side] |= 1 << q;
                    *tk = tk.saturating_sub(wb as u64 * 1000);
                }
            }
        }
        for (side, i) in ins.iter_mut().enumerate() {
            i.tx_ready = self.macs[side].ready(wb as u32);
        }
        let outs = [self.ports[0].step(&ins[0]), self.ports[1].step(&ins[1])];
        // What the MACs took: a word offered while tx_ready is low stays with its port;
        // and what the readers took: a word offered to a reader that is not ready stays.
        let outs = [0, 1].map(|side| {
            let moved = outs[side].wire.filter(|_| ins[side].tx_ready);
            self.macs[side].clock(moved, wb as u32);
            let mut rx_word = outs[side].rx_word;
            for (q, w) in rx_word.iter_mut().enumerate() {
                if ins[side].rx_ready >> q & 1 == 0 {
                    *w = None;
                }
            }
            EthPortOut { wire: moved, rx_word, ..outs[side] }
        });
        for g in &mut self.gens {
            if outs[g.side].tx_taken >> g.queue & 1 == 1 {
                let (w, k) = g.cur.as_mut().expect("an offered word");
                *k += 1;
                if *k == w.len() {
                    g.cur = None;
                    g.made += 1;
                }
            }
        }
        for (side, o) in outs.iter().enumerate() {
            self.wire[side].push_back(o.wire);
            self.account(side, o, traffic);
        }
        if traffic && ((t + 1) % self.s.sample_every == 0 || t + 1 == self.s.cycles) {
            self.close_window(t + 1);
        }
        self.last_out = Some(outs);
        self.clock += 1;
        outs
    }

    /// A timeline window starts at clock `t`.
    fn open_window(&mut self, t: u64) {
        let nq = self.cfg[0].pfc.queues.len();
        let end = (t + self.s.sample_every).min(self.s.cycles);
        self.report.timeline.push(EthSample {
            from: t,
            clock: end,
            wire_bytes: [vec![0; nq], vec![0; nq]],
            ctrl_bytes: [0; 2],
            fill_max: [vec![0; nq], vec![0; nq]],
            fill_mean: [vec![0.0; nq], vec![0.0; nq]],
        });
        self.fill_sum = [[0; MAX_QUEUES]; 2];
    }

    /// The open window ends before clock `end`: its mean fill.
    fn close_window(&mut self, end: u64) {
        let w = self.report.timeline.last_mut().expect("an open window");
        debug_assert_eq!(w.clock, end);
        let clocks = w.clocks() as f64;
        for d in 0..2 {
            for (q, m) in w.fill_mean[d].iter_mut().enumerate() {
                *m = self.fill_sum[d][q] as f64 / clocks;
            }
        }
    }

    /// The window holding traffic clock `c`.
    fn window_at(&mut self, c: u64) -> &mut EthSample {
        &mut self.report.timeline[(c / self.s.sample_every) as usize]
    }

    fn account(&mut self, side: usize, o: &EthPortOut, traffic: bool) {
        let nq = self.cfg[0].pfc.queues.len();
        let wb = self.cfg[0].word_bytes() as u64;
        // What this side's reader got: the direction towards it.
        let rx_dir = 1 - side;
        if traffic {
            let c = self.clock;
            for q in 0..nq {
                self.fill_sum[rx_dir][q] += o.fill[q] as u64;
                let m = &mut self.window_at(c).fill_max[rx_dir][q];
                *m = (*m).max(o.fill[q]);
            }
        }
        for q in 0..nq {
            let r = &mut self.report.dirs[rx_dir][q];
            r.max_fill = r.max_fill.max(o.fill[q]);
            r.drops += (o.rx_drop >> q & 1) as u64;
            let held = o.paused & self.cfg[side].pfc.queues[q].priorities != 0;
            if traffic {
                self.report.dirs[side][q].paused_clocks += held as u64;
            }
            if self.asked[side] >> q & 1 == 1 {
                let got = o.rx_word[q].map_or(0, |w| w.len as u64);
                self.read_tokens[side][q] += (wb - got) * 1000;
            }
            let Some(w) = o.rx_word[q] else { continue };
            if traffic {
                self.report.dirs[rx_dir][q].delivered_bytes += w.len as u64;
            }
            let buf = &mut self.reading[side][q];
            buf.extend(w.bytes());
            if w.last {
                let f = std::mem::take(buf);
                self.check_delivered(rx_dir, q, &f);
            }
        }
        let Some(w) = o.wire else { return };
        if traffic {
            self.report.wire_words[side] += 1;
        }
        let cur = self.sending[side].get_or_insert((self.clock, vec![]));
        cur.1.extend(w.bytes());
        self.sending_words[side].push((self.clock, w.len));
        debug_assert!(w.len as u64 == wb || w.last);
        if !w.last {
            return;
        }
        let (start, f) = self.sending[side].take().expect("a frame");
        // The timeline: the frame's words in the windows of the clocks they were sent.
        let control = EthPortConfig::is_control(&f);
        let q = self.cfg[side].queue_of(EthPortConfig::priority_of(&f));
        for (c, len) in std::mem::take(&mut self.sending_words[side]) {
            if c < self.s.cycles {
                let win = self.window_at(c);
                if control {
                    win.ctrl_bytes[side] += len as u64;
                } else {
                    win.wire_bytes[side][q] += len as u64;
                }
            }
        }
        if control {
            if let Ok(p) = PauseFrame::decode(&f) {
                let mut mark = PauseMark { clock: start, dir: rx_dir, queues: 0, releases: 0 };
                // Frames this side sent hold the other side's queues.
                for (q, qc) in self.cfg[side].pfc.queues.iter().enumerate() {
                    let (on, zero) = match p.kind {
                        PauseKind::Pause { quanta } => (true, quanta == 0),
                        PauseKind::Pfc { enable, times } => {
                            let mine = (0..8).filter(|&i| qc.priorities >> i & 1 == 1 && enable >> i & 1 == 1);
                            let ts: Vec<u16> = mine.map(|i| times[i]).collect();
                            (!ts.is_empty(), ts.iter().all(|&x| x == 0))
                        }
                    };
                    if on {
                        let r = &mut self.report.dirs[rx_dir][q];
                        if zero {
                            r.release_frames += 1;
                        } else {
                            r.pause_frames += 1;
                        }
                        // The timeline's marks cover the traffic clocks it draws.
                        if start < self.s.cycles {
                            mark.queues |= 1 << q;
                            mark.releases |= (zero as u8) << q;
                        }
                    }
                }
                if mark.queues != 0 {
                    self.report.pause_marks.push(mark);
                }
            }
        } else if start < self.s.cycles {
            let q = self.cfg[side].queue_of(EthPortConfig::priority_of(&f));
            let r = &mut self.report.dirs[side][q];
            r.sent_frames += 1;
            r.sent_bytes += f.len() as u64;
        }
        if self.record {
            self.report.frames.push((start, side, f));
        }
    }

    /// A frame read at the end of direction `dir`, queue `q`: intact, from a generator of
    /// that direction and queue, after the last one delivered from it.
    fn check_delivered(&mut self, dir: usize, q: usize, f: &[u8]) {
        let Some((g, seq)) = frame_id(f) else {
            self.report.errors.push(format!("clock {}: {} queue {q}: a frame with a bad FCS was delivered", self.clock, dir_name(dir)));
            return;
        };
        let ok = self.gens.get(g as usize).is_some_and(|gen| gen.side == dir && gen.queue == q);
        if !ok {
            self.report.errors.push(format!("clock {}: {} queue {q}: frame of generator {g} delivered to the wrong queue", self.clock, dir_name(dir)));
            return;
        }
        if self.last_seq[g as usize].is_some_and(|l| seq <= l) {
            self.report.errors.push(format!("clock {}: {} queue {q}: frame {seq} delivered after {:?} (reordered)", self.clock, dir_name(dir), self.last_seq[g as usize]));
        }
        self.last_seq[g as usize] = Some(seq);
        self.report.dirs[dir][q].delivered_frames += 1;
    }

    /// Whether nothing is left to move: no generator mid-frame, wires and buffers empty,
    /// nothing paused.
    fn quiet(&self, o: &[EthPortOut; 2]) -> bool {
        self.gens.iter().all(|g| g.cur.is_none())
            && self.wire.iter().all(|w| w.iter().all(Option::is_none))
            && o.iter().all(|o| o.paused == 0 && o.fill.iter().all(|&f| f == 0) && o.wire.is_none())
    }

    /// Run the traffic clocks (those not yet run), then flush: no new frames, readers at
    /// full rate, until everything sent has arrived or been dropped. Then the end-to-end
    /// check: per direction and queue, frames made = delivered + dropped.
    pub fn finish(mut self) -> EthReport {
        while self.clock < self.s.cycles {
            self.step();
        }
        let start = self.clock;
        let mut quiet_for = 0;
        let need = 2 * self.s.latency_clocks as u64 + 64;
        while quiet_for < need && self.clock - start < FLUSH_LIMIT {
            self.step();
            quiet_for = if self.last_quiet() { quiet_for + 1 } else { 0 };
        }
        self.report.flush_clocks = self.clock - start;
        if quiet_for < need {
            self.report.errors.push(format!("the flush did not empty the link in {FLUSH_LIMIT} clocks"));
        }
        for g in &self.gens {
            let r = &mut self.report.dirs[g.side][g.queue];
            r.made_frames += g.made as u64;
        }
        for (d, qs) in self.report.dirs.iter().enumerate() {
            for (q, r) in qs.iter().enumerate() {
                if r.made_frames != r.delivered_frames + r.drops {
                    self.report.errors.push(format!(
                        "{} queue {q}: {} frames made, {} delivered, {} dropped: {} unaccounted for",
                        dir_name(d),
                        r.made_frames,
                        r.delivered_frames,
                        r.drops,
                        r.made_frames as i64 - (r.delivered_frames + r.drops) as i64
                    ));
                }
            }
        }
        self.report
    }

    fn last_quiet(&self) -> bool {
        self.last_out.as_ref().is_some_and(|o| self.quiet(o))
    }
}

pub fn dir_name(d: usize) -> &'static str {
    ["A→B", "B→A"][d]
}
