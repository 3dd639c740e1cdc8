//! The Ethernet flow-control port against its model: the adapter from the top's ports to
//! [`iblink_model::eth_port::EthPort`], and a stimulus that plays the users, the MAC's
//! receive side and the readers.

use crate::blocks::{rtl_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::config::ConfigError;
use iblink_model::eth_port::{words, EthPort, EthPortConfig, EthPortCounts, EthPortIn, EthPortOut, Word};
use iblink_model::ethernet::{PauseFrame, PauseKind, CRC32};
use iblink_model::pfc::{Mode, PfcConfig, QueueConfig, Threshold, TxCounts};
use iblink_rtl::eth_port::{EthPortTopIn, EthPortTopOut};
use iblink_rtl::eth_rxbuf::{max_size_words, max_words};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// The generated top built by Verilator.
pub fn eth_port_verilator(queues: usize, width: usize) -> Result<Box<dyn CycleSim<In = EthPortTopIn, Out = EthPortTopOut>>, SimBuildError> {
    eth_port_sim(queues, width, Backend::Verilator, None)
}

/// The port in back end `b`, optionally writing a VCD: the model ([`EthPortModelSim`]),
/// the composed stepper (`rtl`: every block's twin with the schedule check on; with a VCD
/// the rust-hdl top, whose probe writes the top's ports) or Verilator on the top.
pub fn eth_port_sim(queues: usize, width: usize, b: Backend, vcd: Option<&Path>) -> Result<Box<dyn CycleSim<In = EthPortTopIn, Out = EthPortTopOut>>, SimBuildError> {
    let v = || iblink_rtl::catalog::eth_port_variant(queues, width);
    v()?;
    match (b, vcd) {
        (Backend::Model, _) => Ok(Box::new(EthPortModelSim::new(queues, width))),
        (Backend::Rtl, None) => {
            let mut twin = iblink_rtl::eth_port::EthPortTwin::new(queues, width);
            twin.check = true;
            Ok(Box::new(crate::blocks::TwinSim(twin)))
        }
        _ => iblink_rtl::with_eth_port!((queues, width), |T| rtl_box::<T>(b, v, vcd),
            _ => unreachable!("checked by eth_port_variant")),
    }
}

/// The model's configuration for the top's configuration ports.
pub fn model_config(queues: usize, width: usize, i: &EthPortTopIn) -> EthPortConfig {
    let wb = width as u32 / 8;
    EthPortConfig {
        pfc: PfcConfig {
            mode: if i.cfg_pfc { Mode::Pfc } else { Mode::Pause },
            sa: std::array::from_fn(|k| (i.cfg_sa >> (8 * (5 - k))) as u8),
            datapath_bits: width as u32,
            zero_quanta_on_release: i.cfg_zero_on_release,
            refresh_quanta: i.cfg_refresh_quanta,
            queues: (0..queues)
                .map(|q| QueueConfig {
                    priorities: i.cfg_priorities[q],
                    pause_quanta: i.cfg_pause_quanta[q],
                    threshold: (i.cfg_fill_en >> q & 1 == 1).then(|| Threshold {
                        size_bytes: i.cfg_size_words[q] as u32 * wb,
                        rfa_bytes: i.cfg_rfa[q] as u32,
                        rfd_bytes: i.cfg_rfd[q] as u32,
                    }),
                })
                .collect(),
        },
        rx_buffer_bytes: (0..queues).map(|q| i.cfg_size_words[q] as u32 * wb).collect(),
        tx_queue_bytes: i.cfg_tx_words as u32 * wb,
    }
}

/// A word of a byte-lane bus (`data`, `keep`, `last`) as the model's [`Word`]: `keep`
/// (lanes from 0 up) counts on a frame's last word only, the other words are whole;
/// data past the valid lanes is left out. The Ethernet blocks' adapters all read words so.
pub fn lanes_word(data: u64, keep: u8, last: bool, width: usize) -> Word {
    let n = width / 8;
    let len = if last { ((keep as u64 & ((1 << n) - 1)) as u8).trailing_ones() as usize } else { n };
    Word { data: if len >= 8 { data } else { data & ((1u64 << (8 * len)) - 1) }, len: len as u8, last }
}

/// The `keep` of a word of `len` bytes: lanes 0 to `len - 1`.
pub fn keep_of(len: u8) -> u8 {
    ((1u16 << len) - 1) as u8
}

/// The model as a cycle simulation; built at the first clock from the configuration
/// ports (static while it runs), rebuilt on reset. What it did is summed over resets.
pub struct EthPortModelSim {
    queues: usize,
    width: usize,
    model: Option<EthPort>,
    pub counts: EthPortCounts,
    pub pfc: TxCounts,
    pub paused_clocks: u64,
    /// Clocks a received word waited for its reader (tvalid, tready low), over the queues.
    pub rx_waits: u64,
}

impl EthPortModelSim {
    pub fn new(queues: usize, width: usize) -> Self {
        Self { queues, width, model: None, counts: Default::default(), pfc: Default::default(), paused_clocks: 0, rx_waits: 0 }
    }

    /// Fold the counts of a model about to go into the totals.
    fn fold(&mut self) {
        if let Some(m) = self.model.take() {
            let (c, p) = (m.counts(), m.pfc_counts());
            for q in 0..8 {
                self.counts.tx_frames[q] += c.tx_frames[q];
                self.counts.rx_drops[q] += c.rx_drops[q];
                self.counts.held[q] += c.held[q];
            }
            self.counts.ctrl_frames += c.ctrl_frames;
            self.counts.rx_bad += c.rx_bad;
            self.counts.data_stalls += c.data_stalls;
            self.counts.ctrl_stalls += c.ctrl_stalls;
            self.pfc.frames += p.frames;
            self.pfc.hw_rises += p.hw_rises;
            self.pfc.fill_rises += p.fill_rises;
            self.pfc.releases += p.releases;
            self.pfc.refreshes += p.refreshes;
            self.pfc.sw_sent += p.sw_sent;
            self.pfc.busy_waits += p.busy_waits;
        }
    }

    /// The totals, the running model's included.
    pub fn finish(&mut self) {
        self.fold();
    }
}

impl CycleSim for EthPortModelSim {
    type In = EthPortTopIn;
    type Out = EthPortTopOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &EthPortTopIn) -> EthPortTopOut {
        let (nq, w) = (self.queues, self.width);
        let m = self.model.get_or_insert_with(|| EthPort::new(model_config(nq, w, i)));
        let mut pi = EthPortIn { rx_ready: i.m_axis_rx_tready, hw: i.hw_level, sw: i.sw_req, tx_ready: i.m_axis_mac_tready, ..Default::default() };
        for q in 0..nq {
            if i.s_axis_tx_tvalid >> q & 1 == 1 {
                pi.tx[q] = Some(lanes_word(i.s_axis_tx_tdata[q], i.s_axis_tx_tkeep[q], i.s_axis_tx_tlast >> q & 1 == 1, w));
            }
        }
        pi.rx = i.s_axis_mac_tvalid.then(|| lanes_word(i.s_axis_mac_tdata, i.s_axis_mac_tkeep, i.s_axis_mac_tlast, w));
        pi.rx_bad = i.s_axis_mac_tvalid && i.s_axis_mac_tuser;
        let o = m.tick(&pi);
        let mut out = EthPortTopOut { s_axis_tx_tready: o.tx_room, drop: o.rx_drop, rx_bad: o.rx_bad, paused: o.paused, ..Default::default() };
        if let Some(x) = o.wire {
            out.m_axis_mac_tvalid = true;
            out.m_axis_mac_tdata = x.data;
            out.m_axis_mac_tkeep = keep_of(x.len);
            out.m_axis_mac_tlast = x.last;
        }
        for q in 0..nq {
            out.fill_bytes[q] = o.fill[q] as u16;
            if let Some(x) = o.rx_word[q] {
                out.m_axis_rx_tvalid |= 1 << q;
                out.m_axis_rx_tdata[q] = x.data;
                out.m_axis_rx_tkeep[q] = keep_of(x.len);
                out.m_axis_rx_tlast |= (x.last as u8) << q;
                self.rx_waits += (i.m_axis_rx_tready >> q & 1 == 0) as u64;
            }
        }
        self.paused_clocks += (o.paused != 0) as u64;
        if i.reset {
            self.fold();
        }
        out
    }
}

/// Users, the far end's frames and the readers of one port, reacting to its last
/// outputs. The configuration is random and valid (docs/spec.md §9): PFC or PAUSE, masks that
/// share no priority, short pause times so refreshes come often, RX-fill triggers on most
/// queues (at least one), buffers of half a maximum frame to three. Users offer 802.1Q frames of their
/// queue's priorities and hold a word until it is taken; the far end sends data frames
/// of any priority, good PFC and PAUSE frames with short times (and releases), and now
/// and then a bad one; readers go through phases of full speed, slow and stopped; the
/// hardware levels through phases; software requests now and then; the odd reset. The
/// MAC's `tx_ready` goes through phases (docs/spec.md §10): always high, random, stalls of
/// up to a thousand clocks, and a gap of 1 to 3 clocks after every frame.
pub struct EthPortStimulus {
    rng: ChaCha8Rng,
    queues: usize,
    width: usize,
    cfg: EthPortTopIn,
    cur: [Option<(u64, u8, bool)>; 8],
    frame: [VecDeque<(u64, u8, bool)>; 8],
    offered: u8,
    rx: VecDeque<(u64, u8, bool)>,
    phase: u64,
    read_p: [f64; 8],
    hw: u8,
    wire: super::ReadyPhases,
    /// Last clock's tx_ready.
    ready: bool,
}

fn frame_words(f: &[u8], n: usize) -> VecDeque<(u64, u8, bool)> {
    words(f, n).map(|w| (w.data, keep_of(w.len), w.last)).collect()
}

impl EthPortStimulus {
    pub fn new(seed: u64, queues: usize, width: usize) -> Self {
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        let mut c = EthPortTopIn { cfg_pfc: r.gen_bool(0.8), cfg_zero_on_release: r.gen_bool(0.8), cfg_sa: r.gen::<u64>() & 0xffff_ffff_ffff, ..Default::default() };
        for p in 0..8 {
            let q = if p < queues { p } else { r.gen_range(0..queues) };
            if p < queues || r.gen_bool(0.8) {
                c.cfg_priorities[q] |= 1 << p;
            }
        }
        let wb = (width / 8) as u16;
        let mw = max_words(width) as u16;
        // Fill thresholds on some queues, at least one so the RX-fill trigger is always
        // exercised.
        let fill_q = r.gen_range(0..queues);
        for q in 0..queues {
            c.cfg_pause_quanta[q] = r.gen_range(6..60);
            c.cfg_size_words[q] = r.gen_range(mw / 2..=(3 * mw).min(max_size_words(width) as u16));
            let size = c.cfg_size_words[q] * wb;
            if r.gen_bool(0.75) || q == fill_q {
                c.cfg_fill_en |= 1 << q;
                c.cfg_rfa[q] = r.gen_range(size / 4..size - 8);
                c.cfg_rfd[q] = r.gen_range(0..c.cfg_rfa[q]);
            }
        }
        let min_pt = c.cfg_pause_quanta[..queues].iter().copied().min().unwrap();
        c.cfg_refresh_quanta = r.gen_range(0..min_pt);
        c.cfg_tx_words = r.gen_range(mw..=3 * mw);
        Self {
            rng: r,
            queues,
            width,
            cfg: c,
            cur: [None; 8],
            frame: Default::default(),
            offered: 0,
            rx: VecDeque::new(),
            phase: 0,
            read_p: [1.0; 8],
            hw: 0,
            wire: super::ReadyPhases::new(2_000..20_000, 0.3..0.95, 300, 10..1_000, true),
            ready: true,
        }
    }

    pub fn config(&self) -> EthPortTopIn {
        self.cfg
    }

    fn data_frame(r: &mut ChaCha8Rng, prio: u8) -> Vec<u8> {
        let len = if r.gen_bool(0.7) { r.gen_range(64..=300) } else { r.gen_range(64..=1522) };
        let mut f: Vec<u8> = vec![0x02, 0, 0, 0, 0, 0x0b, 0x02, 0, 0, 0, 0, 0x0a, 0x81, 0x00, prio << 5, 1, 0x88, 0xb5];
        while f.len() < len - 4 {
            f.push(r.gen());
        }
        let fcs = CRC32.checksum(&f);
        f.extend(fcs.to_le_bytes());
        f
    }

    pub fn next(&mut self, prev: Option<&EthPortTopOut>) -> EthPortTopIn {
        let n = self.width / 8;
        let mut i = self.cfg;
        let r = &mut self.rng;
        let taken = prev.map_or(0, |o| o.s_axis_tx_tready) & self.offered;
        self.offered = 0;
        for q in 0..self.queues {
            if taken >> q & 1 == 1 {
                self.cur[q] = None;
            }
            if self.cur[q].is_none() {
                if self.frame[q].is_empty() && r.gen_bool(0.05) {
                    let mask = self.cfg.cfg_priorities[q];
                    let prios: Vec<u8> = (0..8).filter(|p| mask >> p & 1 == 1).collect();
                    let p = prios[r.gen_range(0..prios.len())];
                    self.frame[q] = frame_words(&Self::data_frame(r, p), n);
                }
                self.cur[q] = self.frame[q].pop_front();
            }
            if let Some((d, k, l)) = self.cur[q] {
                i.s_axis_tx_tvalid |= 1 << q;
                i.s_axis_tx_tdata[q] = d;
                i.s_axis_tx_tkeep[q] = k;
                i.s_axis_tx_tlast |= (l as u8) << q;
                self.offered |= 1 << q;
            }
        }
        if self.rx.is_empty() && r.gen_bool(0.05) {
            let f = match r.gen_range(0..20) {
                0..=12 => {
                    let p = r.gen_range(0..8);
                    Self::data_frame(r, p)
                }
                13..=16 => {
                    let t: [u16; 8] = std::array::from_fn(|_| if r.gen_bool(0.3) { 0 } else { r.gen_range(0..40) });
                    PauseFrame { sa: [2, 0, 0, 0, 0, 0x0b], kind: PauseKind::Pfc { enable: r.gen::<u8>() as u16, times: t } }.encode().to_vec()
                }
                17 => PauseFrame { sa: [2, 0, 0, 0, 0, 0x0b], kind: PauseKind::Pause { quanta: r.gen_range(0..40) } }.encode().to_vec(),
                _ => {
                    let mut b = PauseFrame { sa: [2, 0, 0, 0, 0, 0x0b], kind: PauseKind::Pause { quanta: 30 } }.encode().to_vec();
                    let k = r.gen_range(0..64);
                    b[k] ^= 1 << r.gen_range(0..8);
                    b
                }
            };
            self.rx = frame_words(&f, n);
        }
        if let Some((d, k, l)) = self.rx.pop_front() {
            i.s_axis_mac_tvalid = true;
            i.s_axis_mac_tdata = d;
            i.s_axis_mac_tkeep = k;
            i.s_axis_mac_tlast = l;
            // The MAC marks one frame in twenty bad on its last word (on other words the
            // mark means nothing).
            i.s_axis_mac_tuser = r.gen_ratio(1, 20);
        }
        if self.phase == 0 {
            self.phase = r.gen_range(200..3000);
            for q in 0..self.queues {
                self.read_p[q] = [0.0, 0.02, 0.2, 1.0, 1.0][r.gen_range(0..5)];
            }
            self.hw = if r.gen_bool(0.5) { 0 } else { r.gen::<u8>() };
        }
        self.phase -= 1;
        for q in 0..self.queues {
            i.m_axis_rx_tready |= (r.gen_bool(self.read_p[q]) as u8) << q;
        }
        i.hw_level = self.hw & ((1u16 << self.queues) - 1) as u8;
        if r.gen_ratio(1, 3000) {
            i.sw_req = 1 << r.gen_range(0..self.queues);
        }
        i.reset = r.gen_ratio(1, 300_000);
        let last_moved = self.ready && prev.is_some_and(|o| o.m_axis_mac_tvalid && o.m_axis_mac_tlast);
        i.m_axis_mac_tready = self.wire.next(r, last_moved);
        self.ready = i.m_axis_mac_tready;
        i
    }
}

/// The port's top-level inputs for a configuration (the configuration ports), or what
/// does not fit the generated top: a buffer or queue larger than its memory, a fill
/// threshold above 16 bits.
pub fn top_config(c: &EthPortConfig) -> Result<EthPortTopIn, ConfigError> {
    let w = c.pfc.datapath_bits as usize;
    let wb = w as u32 / 8;
    let mut i = EthPortTopIn {
        cfg_pfc: c.pfc.mode == Mode::Pfc,
        cfg_zero_on_release: c.pfc.zero_quanta_on_release,
        cfg_refresh_quanta: c.pfc.refresh_quanta,
        cfg_sa: c.pfc.sa.iter().fold(0u64, |v, &b| v << 8 | b as u64),
        ..Default::default()
    };
    let max_tx = 1u32 << iblink_rtl::eth_txq::addr_bits(w);
    if c.tx_queue_bytes / wb > max_tx {
        return Err(ConfigError::field("port.tx_queue_bytes", format!("{} is above the generated queue's {} bytes", c.tx_queue_bytes, max_tx * wb)));
    }
    i.cfg_tx_words = (c.tx_queue_bytes / wb) as u16;
    for (q, qc) in c.pfc.queues.iter().enumerate() {
        let size = c.rx_buffer_bytes[q] / wb;
        if size as usize > max_size_words(w) {
            return Err(ConfigError::field(
                format!("port.queue[{q}].buffer_bytes"),
                format!("{} is above the generated buffer's {} bytes", c.rx_buffer_bytes[q], max_size_words(w) as u32 * wb),
            ));
        }
        i.cfg_size_words[q] = size as u16;
        i.cfg_priorities[q] = qc.priorities;
        i.cfg_pause_quanta[q] = qc.pause_quanta;
        if let Some(t) = qc.threshold {
            i.cfg_fill_en |= 1 << q;
            i.cfg_rfa[q] = t.rfa_bytes as u16;
            i.cfg_rfd[q] = t.rfd_bytes as u16;
        }
    }
    Ok(i)
}

/// Why the RTL ports could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PortBuildError {
    /// The configuration does not fit the generated top (names the field).
    #[error(transparent)]
    Config(#[from] iblink_model::config::ConfigError),
    #[error(transparent)]
    Build(#[from] SimBuildError),
}

/// The RTL port (its stepper or Verilator on the top) behind the model port's word-level
/// interface, for the system runs.
pub struct RtlPort {
    queues: usize,
    width: usize,
    cfg: EthPortTopIn,
    inner: Box<dyn CycleSim<In = EthPortTopIn, Out = EthPortTopOut>>,
}

impl RtlPort {
    pub fn new(c: &EthPortConfig, verilator: bool) -> Result<Self, PortBuildError> {
        Self::traced(c, verilator, None)
    }

    /// As [`new`](Self::new), writing a VCD of every step to `vcd` when given (see
    /// [`eth_port_sim`]; [`CycleSim::stop_vcd`] and [`CycleSim::start_vcd`] keep a window).
    pub fn traced(c: &EthPortConfig, verilator: bool, vcd: Option<&Path>) -> Result<Self, PortBuildError> {
        let (q, w) = (c.pfc.queues.len(), c.pfc.datapath_bits as usize);
        let cfg = top_config(c)?;
        let inner: Box<dyn CycleSim<In = EthPortTopIn, Out = EthPortTopOut>> = match (verilator, vcd) {
            // A system run's stepper: the blocks' twins in the netlist's order, without the
            // schedule check the tests turn on (it evaluates every block twice).
            (false, None) => Box::new(crate::blocks::TwinSim(iblink_rtl::eth_port::EthPortTwin::new(q, w))),
            _ => eth_port_sim(q, w, if verilator { Backend::Verilator } else { Backend::Rtl }, vcd)?,
        };
        Ok(Self { queues: q, width: w, cfg, inner })
    }
}

impl CycleSim for RtlPort {
    type In = EthPortIn;
    type Out = EthPortOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn start_vcd(&mut self, path: &Path) -> std::io::Result<()> {
        self.inner.start_vcd(path)
    }
    fn stop_vcd(&mut self) {
        self.inner.stop_vcd()
    }
    fn step(&mut self, i: &EthPortIn) -> EthPortOut {
        let mut t = EthPortTopIn { hw_level: i.hw, sw_req: i.sw, m_axis_rx_tready: i.rx_ready, m_axis_mac_tready: i.tx_ready, ..self.cfg };
        for q in 0..self.queues {
            if let Some(x) = i.tx[q] {
                t.s_axis_tx_tvalid |= 1 << q;
                t.s_axis_tx_tdata[q] = x.data;
                t.s_axis_tx_tkeep[q] = keep_of(x.len);
                t.s_axis_tx_tlast |= (x.last as u8) << q;
            }
        }
        if let Some(x) = i.rx {
            t.s_axis_mac_tvalid = true;
            t.s_axis_mac_tdata = x.data;
            t.s_axis_mac_tkeep = keep_of(x.len);
            t.s_axis_mac_tlast = x.last;
            t.s_axis_mac_tuser = i.rx_bad;
        }
        let o = self.inner.step(&t);
        let mut out = EthPortOut { tx_room: o.s_axis_tx_tready, tx_taken: o.s_axis_tx_tready & t.s_axis_tx_tvalid, paused: o.paused, rx_drop: o.drop, rx_bad: o.rx_bad, ..Default::default() };
        if o.m_axis_mac_tvalid {
            out.wire = Some(lanes_word(o.m_axis_mac_tdata, o.m_axis_mac_tkeep, o.m_axis_mac_tlast, self.width));
        }
        for q in 0..self.queues {
            out.fill[q] = o.fill_bytes[q] as u32;
            if o.m_axis_rx_tvalid >> q & 1 == 1 {
                out.rx_word[q] = Some(lanes_word(o.m_axis_rx_tdata[q], o.m_axis_rx_tkeep[q], o.m_axis_rx_tlast >> q & 1 == 1, self.width));
            }
        }
        out
    }
}
