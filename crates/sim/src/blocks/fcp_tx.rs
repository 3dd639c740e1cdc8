//! The FCP transmit framer and scheduler in all three back ends, and a random stimulus
//! that plays the TX and RX credit blocks, the link state machine and the link TX mux.
//!
//! RTL: [`iblink_rtl::fcp_tx`]; reference: [`FcpScheduler`] decides which VL is due
//! (`next_due`, `on_sent`, `tick`, `restart`) and [`Fcp::encode`] makes the bytes. The
//! adapter here only applies the RTL's documented cycle contract around them: the
//! *next* and *pending* registers, one clock from the inputs to the pending FCP, the
//! first word in the `fcp_start` clock. The scheduler counts a period from the clock the
//! FCP's last beat moves (`fcp_done`, [`FcpScheduler::on_done`]) with the port's mux's
//! start-to-last-beat time as its done lag ([`start_to_done`], docs/spec.md §10).

use crate::blocks::{twin_box, Backend, SimBuildError};
use crate::CycleSim;
use iblink_model::config::{PortConfig, DEFAULT_REFRESH_SYMBOLS};
use iblink_model::fcp::{Fcp, FcpOp, FCP_BYTES};
use iblink_model::port::LinkState;
use iblink_model::scheduler::FcpScheduler;
use iblink_model::sl2vl::{VlCap, DATA_VLS};
use iblink_rtl::catalog::fcp_tx_variant;
use iblink_rtl::fcp_tx::{start_to_done, FcpTxIn, FcpTxOut, FcpTxTwin, WIDTHS};
use iblink_rtl::link::{LINK_ACTIVE, LINK_ARM, LINK_DOWN, LINK_INIT};
use iblink_rtl::tx_credits::VL_CAPS;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::Path;

/// The [`iblink_rtl::link`] code of a model link state.
pub const fn link_state_code(s: LinkState) -> u8 {
    match s {
        LinkState::Down => LINK_DOWN,
        LinkState::Initialize => LINK_INIT,
        LinkState::Arm => LINK_ARM,
        LinkState::Active => LINK_ACTIVE,
    }
}

/// The model link state of an [`iblink_rtl::link`] code (low two bits).
pub const fn link_state_of(code: u8) -> LinkState {
    match code & 3 {
        LINK_DOWN => LinkState::Down,
        LINK_INIT => LinkState::Initialize,
        LINK_ARM => LinkState::Arm,
        _ => LinkState::Active,
    }
}

/// What the model saw happen (not saturating), for coverage assertions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// FCPs started (committed).
    pub fcps: u64,
    /// ...whose VL was refresh-due when it started.
    pub refresh: u64,
    /// ...whose VL was not refresh-due but its FCCL had changed since its last FCP.
    pub on_change: u64,
    /// ...with Op 1 / Op 0.
    pub op_init: u64,
    pub op_normal: u64,
    /// FCPs whose first word came the clock after the previous FCP's last word.
    pub back_to_back: u64,
    /// Clocks in which some VL's FCCL differed from its last FCP's but its minimum gap
    /// had not passed (and its refresh was not due): held back by the gap.
    pub min_gap_holds: u64,
    /// Restarts (clocks with `restart`, not counting `LINK_DOWN`).
    pub restarts: u64,
    /// Clocks in `LINK_DOWN`.
    pub down_clocks: u64,
    /// `fcp_start` while nothing was pending (must be ignored).
    pub stray_starts: u64,
    /// Clocks with an FCP pending but not started (the mux made it wait).
    pub waits: u64,
    /// 32 bits: clocks the second word waited for the mux (`fcp_ready` low; its
    /// pipeline stalls with the wire, docs/spec.md §10); clocks the mux stalled.
    pub second_held: u64,
    pub stalled: u64,
    /// FCPs whose last beat moved (`fcp_done`), and those of them that moved later than
    /// a wire that never stalls would have (a stall between start and last beat: their
    /// VL's periods count from the later clock, docs/spec.md §10).
    pub done: u64,
    pub done_late: u64,
    /// FCPs per VL.
    pub per_vl: [u64; DATA_VLS],
}

/// The reference scheduler and encoder as a cycle simulation of the framer.
pub struct FcpTxModelSim {
    cap: VlCap,
    lanes: usize,
    /// The reference scheduler (built on the first clock, and again on a restart that
    /// changes the configuration).
    sched: Option<FcpScheduler>,
    /// (`refresh_clocks`, `min_gap_clocks`) as driven when `sched` was built.
    cfg: (u16, u16),
    /// The *next* register: the VL to build when the pending FCP starts.
    next: Option<u8>,
    /// The *pending* register: the FCP built from the previous clock's inputs.
    pending: Option<Fcp>,
    /// 32 bits: LPCRC bytes presented this clock as the FCP's second word (held until
    /// the mux takes it, `fcp_ready`).
    second: Option<[u8; 2]>,
    /// The FCCLs of the previous clock: the choice sees FCCL changes a clock late.
    prev_fccl: [u16; DATA_VLS],
    /// For the tally only: the FCCL of each VL's last FCP, and the last `eop` clock.
    sent_fccl: [u16; DATA_VLS],
    /// For the tally only: the start clocks of the FCPs on their way, oldest first.
    flying: std::collections::VecDeque<u64>,
    last_eop: Option<u64>,
    clock: u64,
    pub tally: Tally,
}

impl FcpTxModelSim {
    pub fn new(vls: usize, width_bits: usize) -> Self {
        assert!(
            VL_CAPS.contains(&vls) && WIDTHS.contains(&width_bits),
            "FCP TX VLCap {vls} w{width_bits}"
        );
        Self {
            cap: VlCap::new(vls as u64).expect("VLCap"),
            lanes: width_bits / 8,
            sched: None,
            cfg: (0, 0),
            next: None,
            pending: None,
            second: None,
            prev_fccl: [0; DATA_VLS],
            sent_fccl: [0; DATA_VLS],
            flying: Default::default(),
            last_eop: None,
            clock: 0,
            tally: Tally::default(),
        }
    }

    /// `fcp_pending` during the next clock (it is a register).
    pub fn pending(&self) -> bool {
        self.pending.is_some() && self.second.is_none()
    }

    /// The pending FCP (also while its VL's previous FCP is still on the wire).
    pub fn pending_fcp(&self) -> Option<Fcp> {
        self.pending
    }

    /// A scheduler for the configuration inputs: `min_gap_clocks` 0 acts as 1 (a timer
    /// is never 0 when compared; see the RTL's doc).
    fn scheduler(&self, refresh: u16, gap: u16) -> FcpScheduler {
        FcpScheduler::new(self.cap, refresh as u32, (gap as u32).max(1))
            .with_done_lag(start_to_done(self.lanes * 8))
    }

    fn count_gap_holds(&mut self, s: &FcpScheduler, fccl: &[u16; DATA_VLS]) {
        let held = (0..self.cap.get()).any(|v| {
            fccl[v as usize] != self.sent_fccl[v as usize] && !s.gap_passed(v) && !s.refresh_due(v)
        });
        self.tally.min_gap_holds += held as u64;
    }
}

impl CycleSim for FcpTxModelSim {
    type In = FcpTxIn;
    type Out = FcpTxOut;
    fn backend(&self) -> &str {
        "model"
    }

    fn step(&mut self, i: &FcpTxIn) -> FcpTxOut {
        let link = link_state_of(i.link_state);
        let restart_all = i.restart || link == LinkState::Down;
        let cfg = (i.refresh_clocks, i.min_gap_clocks);
        match self.sched {
            // Power-up: the RTL's registers start as after a restart.
            None => self.sched = Some(self.scheduler(cfg.0, cfg.1)),
            Some(_) if cfg != self.cfg => {
                assert!(
                    restart_all,
                    "refresh_clocks/min_gap_clocks changed without restart (clock {}): the model adapter \
                     supports configuration changes only with a restart",
                    self.clock
                );
                self.sched = Some(self.scheduler(cfg.0, cfg.1));
            }
            Some(_) => {}
        }
        self.cfg = cfg;
        let mut sched = self.sched.expect("built above");
        let vls = self.cap.get() as usize;
        let mut fccl = [0u16; DATA_VLS];
        for (f, x) in fccl[..vls].iter_mut().zip(&i.fccl) {
            *f = x & 0xfff;
        }

        // Outputs: registers, and the first word combinationally from fcp_start.
        let pending = self.pending();
        let take = i.fcp_start && pending;
        let mut o = FcpTxOut {
            fcp_pending: pending,
            pending_vl: if pending {
                self.pending.expect("pending").vl
            } else {
                0
            },
            ..Default::default()
        };
        let mut second_next = None;
        if take {
            let f = self.pending.expect("pending");
            let b = f.encode();
            let n = FCP_BYTES.min(self.lanes);
            o.fcp_valid = true;
            o.fcp_sop = true;
            o.fcp_link = true;
            o.fcp_keep = ((1u16 << n) - 1) as u8;
            o.fcp_data = b[..n]
                .iter()
                .enumerate()
                .fold(0, |a, (k, x)| a | (*x as u64) << (8 * k));
            if n == FCP_BYTES {
                o.fcp_eop = true;
            } else {
                second_next = Some([b[4], b[5]]);
            }
            // Tally.
            let t = &mut self.tally;
            t.fcps += 1;
            t.per_vl[f.vl as usize] += 1;
            if sched.refresh_due(f.vl) {
                t.refresh += 1;
            } else if f.fccl != self.sent_fccl[f.vl as usize] {
                t.on_change += 1;
            }
            match f.op {
                FcpOp::Init => t.op_init += 1,
                FcpOp::Normal => t.op_normal += 1,
            }
            if self.last_eop.is_some_and(|e| e + 1 == self.clock) {
                t.back_to_back += 1;
            }
            self.sent_fccl[f.vl as usize] = f.fccl;
        } else if let Some([lo, hi]) = self.second {
            o.fcp_valid = true;
            o.fcp_eop = true;
            o.fcp_link = true;
            o.fcp_keep = 0b11;
            o.fcp_data = lo as u64 | (hi as u64) << 8;
        }
        if o.fcp_eop && i.fcp_ready {
            self.last_eop = Some(self.clock);
        }
        self.tally.stray_starts += (i.fcp_start && !pending) as u64;
        if i.fcp_done && !restart_all {
            if let Some(p) = self.flying.pop_front() {
                self.tally.done += 1;
                self.tally.done_late += (self.clock > p + start_to_done(self.lanes * 8) as u64) as u64;
            }
        }
        if restart_all {
            self.flying.clear();
        } else if take {
            self.flying.push_back(self.clock);
        }
        self.tally.second_held += (!take && self.second.is_some() && !i.fcp_ready) as u64;
        self.tally.stalled += !i.fcp_ready as u64;
        self.tally.waits += (pending && !take) as u64;
        self.tally.restarts += i.restart as u64;
        self.tally.down_clocks += (link == LinkState::Down) as u64;
        self.second = if take {
            second_next
        } else if i.fcp_ready {
            None
        } else {
            self.second
        };
        self.clock += 1;

        let prev_fccl = std::mem::replace(&mut self.prev_fccl, fccl);
        if restart_all {
            // Every VL due at once; the FCP being chosen or pending is dropped (one that
            // started this clock still finishes: `second` above).
            sched.restart();
            sched.tick();
            self.sched = Some(sched);
            self.next = None;
            self.pending = None;
            return o;
        }
        self.count_gap_holds(&sched, &fccl);

        // The oldest FCP on its way has its last beat moving now: its VL's periods count
        // from here (before this clock's start, which restarts its own VL's).
        if i.fcp_done {
            sched.on_done();
        }

        // The next VL: the reference's next_due with the FCPs ahead of it already sent
        // (the one starting now, and the one pending after this edge), on the previous
        // clock's FCCLs.
        let mut ahead = sched;
        let first = if take {
            let f = self.pending.expect("pending");
            ahead.on_sent(f.vl, f.fccl);
            self.next
        } else {
            self.pending.map(|f| f.vl).or(self.next)
        };
        if let Some(x) = first {
            // Its timer restarts, so neither its refresh nor its change can be due: the
            // FCCL recorded here is never compared.
            ahead.on_sent(x, fccl[x as usize]);
        }
        let next = ahead.next_due(&prev_fccl);

        // The pending FCP: its VL stays until it starts; its fields come from this
        // clock's inputs (docs/spec.md §5: Op 1 in LinkInitialize, else 0; this port's
        // transmitter FCTBS and receiver FCCL for the VL).
        let vl = match (take, self.pending) {
            (false, Some(f)) => Some(f.vl),
            _ => self.next,
        };
        let op = if link == LinkState::Initialize {
            FcpOp::Init
        } else {
            FcpOp::Normal
        };
        let built = vl.map(|vl| {
            Fcp::new(op, i.fctbs[vl as usize] & 0xfff, vl, fccl[vl as usize])
                .expect("12-bit fields")
        });

        if take {
            let f = self.pending.expect("pending");
            sched.on_sent(f.vl, f.fccl);
        }
        sched.tick();
        self.sched = Some(sched);
        self.next = next;
        self.pending = built;
        o
    }
}

pub type FcpTxSim = Box<dyn CycleSim<In = FcpTxIn, Out = FcpTxOut>>;

/// The FCP TX framer for VLCap `vls` and `width_bits` link words in back end `b`,
/// optionally writing a VCD.
pub fn fcp_tx_sim(
    vls: usize,
    width_bits: usize,
    b: Backend,
    vcd: Option<&Path>,
) -> Result<FcpTxSim, SimBuildError> {
    if !VL_CAPS.contains(&vls) {
        return Err(SimBuildError::VlCap(vls));
    }
    if !WIDTHS.contains(&width_bits) {
        return Err(SimBuildError::Variant(format!(
            "FCP TX {width_bits}-bit link words"
        )));
    }
    match b {
        Backend::Model => Ok(Box::new(FcpTxModelSim::new(vls, width_bits))),
        _ => {
            iblink_rtl::with_fcp_tx!((vls, width_bits), |T| twin_box::<_, T>(b, FcpTxTwin::new(vls, width_bits), || fcp_tx_variant(vls, width_bits), vcd),
            _ => Err(SimBuildError::Variant(format!("fcp_tx VLCap {vls} w{width_bits}"))))
        }
    }
}

/// How the simulated link TX mux grants the pending FCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MuxPolicy {
    /// `fcp_start` in every clock an FCP is pending (back to back, zero bubble).
    Immediate,
    /// After an FCP becomes pending, wait 0..=`max` clocks.
    Delay { max: u32 },
    /// A port with data traffic: data packets of 4..=`max_clocks` clocks (FCTBS of a
    /// random VL grows by the packet's blocks at its start); at each boundary the FCP
    /// goes if pending (VL15 > FCP > data, a VL15 packet now and then).
    Traffic { max_clocks: u32 },
}

/// The configuration inputs of a regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerConfig {
    pub refresh_clocks: u16,
    pub min_gap_clocks: u16,
}

impl TimerConfig {
    /// The default port configuration at `width_bits`: refresh 57344 symbols, gap 256.
    pub fn default_for(width_bits: usize) -> Self {
        let c = PortConfig { datapath_bytes: (width_bits / 8) as u8, ..Default::default() };
        debug_assert_eq!(c.refresh_symbols, DEFAULT_REFRESH_SYMBOLS);
        Self {
            refresh_clocks: c.refresh_clocks() as u16,
            min_gap_clocks: c.min_gap_clocks() as u16,
        }
    }
}

/// What the stimulus did, for coverage assertions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StimulusStats {
    pub regimes: u64,
    pub default_config_clocks: u64,
    pub fccl_changes: u64,
    /// An FCCL returned to the value its VL's last FCP carried.
    pub fccl_reverts: u64,
    pub fccl_wraps: u64,
    pub fctbs_wraps: u64,
    pub link_changes: u64,
    pub data_packets: u64,
}

/// Random stimulus: regimes of a few thousand clocks, each with its own timer
/// configuration (tiny values so timers fire constantly, medium ones, the default port
/// configuration), mux policy and rate of FCCL/FCTBS change. It follows the block
/// through its own copy of the model adapter, because the mux may only start a pending
/// FCP (`fcp_pending` is a register, known before the clock's inputs are chosen).
pub struct FcpTxStimulus {
    rng: ChaCha8Rng,
    vls: usize,
    width_bits: usize,
    shadow: FcpTxModelSim,
    cfg: TimerConfig,
    policy: MuxPolicy,
    /// Keep this policy in every regime.
    fixed_policy: Option<MuxPolicy>,
    link: u8,
    fctbs: [u16; DATA_VLS],
    fccl: [u16; DATA_VLS],
    /// Per-clock probability (in 1/1000) of an FCCL change and of an FCTBS change.
    fccl_rate: u32,
    fctbs_rate: u32,
    regime_left: u32,
    /// Delay policy: clocks left before the pending FCP is started.
    delay_left: Option<u32>,
    /// Traffic policy: clocks left of the item on the wire.
    busy_left: u32,
    /// The mux's `fcp_ready`: its pipeline stalls with the wire (docs/spec.md §10).
    wire: super::ReadyPhases,
    /// The FCPs started and not yet on the wire, oldest first: the moving clocks until
    /// each one's last beat moves (`fcp_done`; [`start_to_done`] after its start).
    flight: std::collections::VecDeque<u32>,
    pub stats: StimulusStats,
}

impl FcpTxStimulus {
    pub fn new(vls: usize, width_bits: usize, seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vls,
            width_bits,
            shadow: FcpTxModelSim::new(vls, width_bits),
            cfg: TimerConfig::default_for(width_bits),
            policy: MuxPolicy::Immediate,
            fixed_policy: None,
            link: LINK_INIT,
            fctbs: [0; DATA_VLS],
            fccl: [0; DATA_VLS],
            fccl_rate: 10,
            fctbs_rate: 10,
            regime_left: 0,
            delay_left: None,
            busy_left: 0,
            wire: super::ReadyPhases::new(2_000..20_000, 0.3..0.95, 300, 10..300, false),
            flight: Default::default(),
            stats: StimulusStats::default(),
        }
    }

    /// The same, with the mux always following `policy`.
    pub fn with_policy(vls: usize, width_bits: usize, seed: u64, policy: MuxPolicy) -> Self {
        let mut s = Self::new(vls, width_bits, seed);
        s.fixed_policy = Some(policy);
        s
    }

    /// Start a new regime; returns whether it needs a restart (new configuration).
    fn new_regime(&mut self) -> bool {
        let r = &mut self.rng;
        self.stats.regimes += 1;
        self.regime_left = r.gen_range(2_000..20_000);
        let old = self.cfg;
        self.cfg = match r.gen_range(0..10) {
            0..=1 => TimerConfig::default_for(self.width_bits),
            2..=5 => TimerConfig {
                refresh_clocks: r.gen_range(0..=40),
                min_gap_clocks: r.gen_range(0..=12),
            },
            6..=7 => TimerConfig {
                refresh_clocks: r.gen_range(20..=400),
                min_gap_clocks: r.gen_range(0..=60),
            },
            // A gap longer than the refresh period: on-change never fires first.
            _ => TimerConfig {
                refresh_clocks: r.gen_range(5..=60),
                min_gap_clocks: r.gen_range(60..=200),
            },
        };
        self.policy = match r.gen_range(0..5) {
            0 => MuxPolicy::Immediate,
            1 => MuxPolicy::Delay {
                max: r.gen_range(1..=3),
            },
            2 => MuxPolicy::Delay {
                max: r.gen_range(4..=40),
            },
            _ => MuxPolicy::Traffic {
                max_clocks: r.gen_range(4..=60),
            },
        };
        if let Some(p) = self.fixed_policy {
            self.policy = p;
        }
        self.fccl_rate = [0, 5, 50, 300, 900][r.gen_range(0..5)];
        self.fctbs_rate = [0, 20, 300][r.gen_range(0..3)];
        self.delay_left = None;
        self.cfg != old
    }

    fn wiggle_fccl(&mut self) {
        let v = self.rng.gen_range(0..self.vls);
        let old = self.fccl[v];
        let sent = self.shadow.sent_fccl[v];
        self.fccl[v] = match self.rng.gen_range(0..10) {
            // Back to what was last advertised: the change is gone.
            0 => {
                self.stats.fccl_reverts += 1;
                sent
            }
            1 => self.rng.gen_range(0..4096),
            _ => (old + self.rng.gen_range(1..=70)) & 0xfff,
        };
        self.stats.fccl_changes += 1;
        self.stats.fccl_wraps += (self.fccl[v] < old && old - self.fccl[v] > 2048) as u64;
    }

    fn grow_fctbs(&mut self, v: usize, blocks: u16) {
        let old = self.fctbs[v];
        self.fctbs[v] = (old + blocks) & 0xfff;
        self.stats.fctbs_wraps += (self.fctbs[v] < old) as u64;
    }
}

impl Iterator for FcpTxStimulus {
    type Item = FcpTxIn;
    fn next(&mut self) -> Option<FcpTxIn> {
        let mut i = FcpTxIn::default();
        if self.regime_left == 0 {
            i.restart = self.new_regime();
        }
        self.regime_left -= 1;
        let r = &mut self.rng;
        // Resyncs now and then, and the link state machine.
        if r.gen_ratio(1, 6_000) {
            i.restart = true;
        }
        if i.restart {
            self.link = LINK_INIT;
            self.stats.link_changes += 1;
        } else if r.gen_ratio(1, 1_500) {
            self.link = match (self.link, r.gen_range(0..8)) {
                (_, 0) => LINK_DOWN,
                (LINK_DOWN, _) => LINK_INIT,
                (LINK_INIT, _) => LINK_ARM,
                (LINK_ARM, 1) => LINK_INIT,
                (LINK_ARM, _) => LINK_ACTIVE,
                (_, 1..=2) => LINK_ARM,
                (s, _) => s,
            };
            self.stats.link_changes += 1;
        }
        if self.link == LINK_DOWN && r.gen_ratio(1, 24) {
            self.link = LINK_INIT;
            self.stats.link_changes += 1;
        }
        i.link_state = self.link;
        i.refresh_clocks = self.cfg.refresh_clocks;
        i.min_gap_clocks = self.cfg.min_gap_clocks;
        if self.cfg == TimerConfig::default_for(self.width_bits) {
            self.stats.default_config_clocks += 1;
        }

        // The RX credit block: FCCL moves (drains), sometimes back, sometimes anywhere.
        if self.rng.gen_range(0..1000) < self.fccl_rate {
            self.wiggle_fccl();
        }

        // This clock's FCTBS and FCCL (junk above VLCap must be ignored). A data packet
        // started below adds to FCTBS from the next clock, as the TX credit block does.
        i.fctbs = self.fctbs;
        i.fccl = self.fccl;
        for v in self.vls..DATA_VLS {
            i.fctbs[v] = self.rng.gen();
            i.fccl[v] = self.rng.gen();
        }

        // The mux: a stalled clock is no clock for it (no start, nothing taken).
        let pending = self.shadow.pending();
        i.fcp_ready = self.wire.next(&mut self.rng, false);
        let r = &mut self.rng;
        match self.policy {
            _ if !i.fcp_ready => {}
            MuxPolicy::Immediate => i.fcp_start = pending,
            MuxPolicy::Delay { max } => {
                if pending {
                    let left = *self.delay_left.get_or_insert_with(|| r.gen_range(0..=max));
                    if left == 0 {
                        i.fcp_start = true;
                        self.delay_left = None;
                    } else {
                        self.delay_left = Some(left - 1);
                    }
                } else {
                    self.delay_left = None;
                }
            }
            MuxPolicy::Traffic { max_clocks } => {
                if self.busy_left > 0 {
                    self.busy_left -= 1;
                }
                if self.busy_left == 0 {
                    // A boundary: VL15 > FCP > data.
                    if r.gen_ratio(1, 50) {
                        self.busy_left = r.gen_range(4..=max_clocks);
                    } else if pending {
                        i.fcp_start = true;
                        self.busy_left = if self.width_bits == 32 { 2 } else { 1 };
                    } else if self.link == LINK_ACTIVE && r.gen_ratio(2, 3) {
                        self.busy_left = r.gen_range(4..=max_clocks);
                        let v = r.gen_range(0..self.vls);
                        let blocks = r.gen_range(1..=66);
                        self.stats.data_packets += 1;
                        // TX credits: FCTBS += NP at the packet's start (seen next clock).
                        self.grow_fctbs(v, blocks);
                    }
                }
            }
        }
        // A stray grant while nothing is pending must be ignored.
        if !pending && i.fcp_ready && self.rng.gen_ratio(1, 100) {
            i.fcp_start = true;
        }
        // The mux's wire: an FCP's last beat moves in the start_to_done-th moving clock
        // after its start; a restart (the mux's reset) drops the FCPs on their way.
        if i.fcp_ready {
            for left in self.flight.iter_mut() {
                *left -= 1;
            }
            if self.flight.front() == Some(&0) {
                self.flight.pop_front();
                i.fcp_done = true;
            }
        }
        if i.restart || i.link_state == LINK_DOWN {
            self.flight.clear();
        } else if i.fcp_start && pending {
            self.flight.push_back(start_to_done(self.width_bits));
        }
        // FCTBS moving on its own (other policies).
        if !matches!(self.policy, MuxPolicy::Traffic { .. })
            && self.rng.gen_range(0..1000) < self.fctbs_rate
        {
            let v = self.rng.gen_range(0..self.vls);
            let blocks = self.rng.gen_range(1..=127);
            self.grow_fctbs(v, blocks);
        }

        self.shadow.step(&i);
        Some(i)
    }
}
