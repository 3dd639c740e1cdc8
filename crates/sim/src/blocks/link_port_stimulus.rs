//! The reactive random stimulus of a link port ([`PortStimulus`]), for the port's lockstep
//! (`crates/sim/tests/lockstep/link_port.rs`: the reference cycle model
//! [`PortCycleModel`](super::link_port_model::PortCycleModel), the Rust twin and
//! Verilator on the same inputs). It plays everything around a port: the user's transmit
//! queues and receive buffer, the link peer (its receive buffers and FCPs, its data
//! packets, losses and corruption), the subnet manager (configuration writes) and the
//! link state machine, in phases of traffic (flood, mixed, large, congested, faulty,
//! sparse, silent), on a transmit wire that stalls in phases (docs/spec.md §10).
//! Alongside it checks the port's grants against the docs/spec.md §4 credit rule on its
//! own (see [`StimStats::credit_violations`]) and counts what it covered ([`StimStats`]).

use crate::blocks::link_rx::data_packet;
use iblink_model::credits::{RxCredits, TxCredits};
use iblink_model::fcp::{Fcp, FcpOp};
use iblink_model::sl2vl::VlCap;
use iblink_rtl::link::{LINK_ACTIVE, LINK_ARM, LINK_DOWN, LINK_INIT};
use iblink_rtl::link_port::{
    np_of, tuser, LinkPortIn, LinkPortOut, PortParams, CFG_LOW_POLICY, CFG_MIN_GAP, CFG_OVERRUN_PERIODS,
    CFG_REFRESH, CFG_UPDATE_PERIODS, CFG_VL_ENABLE, CFG_VL_HIGH_LIMIT,
};
use iblink_rtl::tx_credits::MAX_VLS;
use iblink_rtl::vl_arb::TAKE_GAP;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// One word of the receive link stream.
#[derive(Clone, Copy, Debug, Default)]
struct RxWord {
    valid: bool,
    data: u64,
    keep: u8,
    sop: bool,
    eop: bool,
    link: bool,
    /// On the `eop` word of a good FCP: its VL and FCCL (the CL it gives the port).
    fcp: Option<(u8, u16)>,
}

/// Clocks of delivered-CL history the sender-side credit checker accepts a grant on: an
/// FCP's `upd` strobe comes 3 clocks after its `eop`, TX credits apply it at that edge
/// and show the check a clock later (`credit_ok` is registered), and the arbiter offers
/// on heads `HEAD_DELAY` clocks old: a grant at `g` stands on CL as delivered by about
/// `g - 8`. Twice that, for margin.
pub const CREDIT_WINDOW: usize = 16;

/// docs/spec.md §4: a packet of `np` blocks may be sent iff `(CL - (FCTBS + NP)) mod 4096 <= 2048`.
fn spec_may_send(cl: u16, fctbs: u16, np: u16) -> bool {
    cl.wrapping_sub(fctbs).wrapping_sub(np) & 0xfff <= 2048
}

/// Traffic phases (each lasts a few thousand clocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Minimum-size packets on every VL, queues kept full, fast drains both ways: the
    /// most blocks per clock (FCTBS and ABR wrap fastest).
    SmallFlood,
    /// Mixed sizes, busy both ways.
    Mixed,
    /// Large packets (up to PktLen 1048).
    Large,
    /// The receive buffers drain slowly or not at all: credits run out, overruns.
    Congested,
    /// Errors and losses on the receive link: corrupted FCPs and packets, cut items.
    Faulty,
    /// Little traffic, long gaps.
    Sparse,
    /// The peer stops sending FCPs for some VLs (the failsafe's update monitor).
    Silent,
}

/// The phases of a stable stretch: mostly minimum-size floods, the most blocks per
/// clock, so that the hot VL's FCTBS and ABR wrap in the line time the wire's stalls
/// leave. No Large phase (a block per 16 clocks at best); Mixed still has a few large
/// packets.
const STABLE_PHASES: [(Phase, u32); 3] = [
    (Phase::SmallFlood, 8),
    (Phase::Mixed, 1),
    (Phase::Faulty, 1),
];

/// Percent of the clocks spent in stable stretches: a LinkActive stretch is stable while
/// the share so far is below it. Steadier from seed to seed than a random draw: the long
/// stretches neither crowd out the link events, resets and failsafe resyncs of the rest
/// nor leave too few FCTBS wraps.
const STABLE_SHARE_PCT: u64 = 60;

const PHASES: [(Phase, u32); 7] = [
    (Phase::SmallFlood, 4),
    (Phase::Mixed, 4),
    (Phase::Large, 2),
    (Phase::Congested, 3),
    (Phase::Faulty, 2),
    (Phase::Sparse, 1),
    (Phase::Silent, 3),
];

/// What the stimulus did and saw (for coverage assertions).
#[derive(Clone, Copy, Debug, Default)]
pub struct StimStats {
    pub resets: u64,
    pub downs: u64,
    pub to_init: u64,
    pub to_arm: u64,
    pub to_active: u64,
    /// Link state changes while traffic was in flight (the transmitter busy).
    pub state_changes_in_traffic: u64,
    pub table_writes: u64,
    pub table_writes_in_traffic: u64,
    pub table_rewrites: u64,
    pub limit_writes: [u64; 3],
    pub policy_writes: u64,
    pub enable_writes: u64,
    pub refresh_writes: u64,
    pub gap_writes: u64,
    pub unmapped_writes: u64,
    pub failsafe_writes: u64,
    pub writes_while_busy: u64,
    pub fcps_sent: u64,
    pub fcps_lost: u64,
    pub fcps_edge: u64,
    /// FCPs whose FCCL leaves credit for no more than what is queued (see `peer_fcp`).
    pub fcps_tight: u64,
    pub fcp_bad_lpcrc: u64,
    pub fcp_reserved_op: u64,
    pub fcp_vl15: u64,
    pub fcp_vl_cap: u64,
    pub fcp_short: u64,
    pub fcp_long: u64,
    pub fcp_cut: u64,
    pub data_good: u64,
    pub data_bad_vcrc: u64,
    pub data_bad_length: u64,
    pub data_vl15: u64,
    pub data_bad_vl: u64,
    pub data_cut: u64,
    pub data_lost: u64,
    pub data_over_credit: u64,
    pub rx_gaps: u64,
    pub drains: u64,
    pub vl15_drains: u64,
    pub junk_drains: u64,
    /// From the outputs: verdicts by status, commits, overruns, decoded FCPs of ours.
    pub done_status: [u64; 4],
    pub commits: u64,
    pub overruns: u64,
    pub our_fcps: u64,
    pub our_fcp_fctbs_wraps: u64,
    pub grants: u64,
    /// Clocks with a data or VL15 word on the transmit link.
    pub tx_data_clocks: u64,
    /// Clocks a word on the transmit wire waited for `tx_ready` (docs/spec.md §10): all,
    /// a first word, an FCP word; stalls of 100 clocks or more.
    pub tx_stalled: u64,
    pub tx_stalled_first: u64,
    pub tx_stalled_fcp: u64,
    pub tx_long_stalls: u64,
    /// Clocks and data packets started per phase (SmallFlood, Mixed, Large, Congested,
    /// Faulty, Sparse, Silent), and clocks in stable stretches.
    pub phase_clocks: [u64; 7],
    pub phase_grants: [u64; 7],
    pub stable_clocks: u64,
    /// Blocks granted per data VL (all clocks) and the most granted between two resyncs.
    pub vl_blocks: [u64; MAX_VLS],
    pub vl_blocks_max_epoch: u64,
    epoch_blocks: [u64; MAX_VLS],
    pub vl15_pops: u64,
    /// Failsafe requests by reason (0 no FC update, 1 overrun threshold).
    pub resync_reqs: [u64; 2],
    /// Must stay 0: a pop of an empty queue, a verdict without a delivered packet, an
    /// FCP of ours that did not decode.
    pub stray_pops: u64,
    pub verdict_errors: u64,
    pub bad_our_fcps: u64,
    /// The sender-side credit checker (independent of the port's blocks): grants whose
    /// packet fails the docs/spec.md §4 check against every CL delivered to the port within
    /// [`CREDIT_WINDOW`] clocks before the grant, FCTBS counted from the grants since the
    /// last reset (must stay 0), and grants whose `grant_blocks` is not the popped head's
    /// NP (must stay 0).
    pub credit_violations: u64,
    pub grant_blocks_wrong: u64,
    /// Grants checked, and the oldest delivered CL (clocks before the grant) a grant
    /// needed to pass.
    pub credit_checked: u64,
    pub credit_max_lag: u64,
    /// A VL taken, and its next head fails its credit check (FCTBS just moved on: what
    /// `taken_mask` guards).
    pub taken_next_fails: u64,
    /// Of those, the taken packet no longer on the wire than `TAKE_GAP` clocks (PktLen
    /// 6-7 at 64 bits; never at 32): the link is free for the offer decided on the heads
    /// of the clock after the take, the one `taken_mask` hides.
    pub taken_next_fails_short: u64,
    /// A head newly valid after an empty queue in LinkActive while CL = FCTBS (nothing
    /// may go; what `txq_valid_q` guards), and of those, ones whose `txq_len` the clock
    /// before (an empty queue's stale length) would have passed.
    pub new_head_cl_eq_fctbs: u64,
    pub new_head_stale_len_passes: u64,
}

/// The reactive random stimulus of a port (see the module docs): call [`Self::next`] once a
/// clock with the previous clock's outputs.
pub struct PortStimulus {
    rng: ChaCha8Rng,
    n: usize,
    lanes: usize,
    cap: VlCap,
    clock: u64,
    last: LinkPortIn,
    phase: Phase,
    phase_left: u64,
    // link state machine
    ls: u8,
    ls_left: u64,
    reset_left: u32,
    /// A long LinkActive stretch without resets and with heavy traffic (FCTBS and ABR
    /// only wrap when 4096 blocks of one VL pass without a resync); see
    /// [`STABLE_SHARE_PCT`].
    stable: bool,
    /// A configuration write that must be presented while the port is held in reset
    /// (refresh period and on-change gap: the FCP framer's model takes them only with a
    /// restart).
    held_write: Option<(u8, u16)>,
    /// A whole-table rewrite in progress: (low table?, next index).
    rewrite: Option<(bool, u8)>,
    // the user's transmit side
    txq: Vec<VecDeque<u16>>,
    queue_limit: usize,
    cur: Option<(u64, u32)>,
    seq: u64,
    our_fctbs: [u16; MAX_VLS],
    // our FCPs on the wire, for the peer
    tx_bytes: Vec<u8>,
    our_fcp_last: [Option<u16>; MAX_VLS],
    // the peer
    peer_rx: Vec<RxCredits>,
    peer_held: Vec<VecDeque<u16>>,
    peer_tx: [TxCredits; MAX_VLS],
    peer_fcp_due: [u64; MAX_VLS],
    peer_fcp_period: u64,
    /// VLs whose FCPs the peer does not send (phase Silent).
    silent: u16,
    /// The VL most traffic goes to, both ways (phase SmallFlood, sometimes): one VL's
    /// FCTBS and ABR then wrap soon even at VLCap 15.
    hot: Option<usize>,
    rx: VecDeque<RxWord>,
    // the user's receive side
    rx_cur: usize,
    rx_wait: VecDeque<(u8, usize)>,
    rx_judged: Option<(u8, usize)>,
    rx_buf: VecDeque<(u8, u8)>,
    /// The previous clock's `tx_valid` and `cfg_busy`.
    tx_busy: bool,
    cfg_busy: bool,
    /// The sender-side credit checker: per data VL the CL the peer has delivered to the
    /// port (0 from a reset), and its value at each of the last clocks (newest last, none
    /// from before the last reset).
    cl_now: [u16; MAX_VLS],
    cl_hist: VecDeque<[u16; MAX_VLS]>,
    /// Draws for the credit checker's cases (tight FCPs, an empty queue's length), apart
    /// from `rng` so that they leave the rest of the stimulus as it was.
    crng: ChaCha8Rng,
    /// The wire's `tx_ready` (docs/spec.md §10), drawn from its own generator; the
    /// current stall's length.
    wire: super::ReadyPhases,
    wrng: ChaCha8Rng,
    stall_run: u64,
    /// The first credit violation: clock and what failed.
    pub first_violation: Option<String>,
    pub stats: StimStats,
}

fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ b.wrapping_add(0x6a09_e667_f3bc_c909);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl PortStimulus {
    pub fn new(p: &PortParams, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let peer_rx = (0..MAX_VLS)
            .map(|_| RxCredits::new([256u16, 1000, 3072, 4095][rng.gen_range(0..4)]))
            .collect();
        Self {
            rng,
            n: p.vl_cap,
            lanes: p.width / 8,
            cap: VlCap::new(p.vl_cap as u64).expect("VLCap"),
            clock: 0,
            last: LinkPortIn::default(),
            phase: Phase::Mixed,
            phase_left: 3000,
            ls: LINK_DOWN,
            ls_left: 20,
            reset_left: 0,
            stable: false,
            held_write: None,
            rewrite: None,
            txq: vec![VecDeque::new(); 16],
            queue_limit: 6,
            cur: None,
            seq: 0,
            our_fctbs: [0; MAX_VLS],
            tx_bytes: Vec::with_capacity(16),
            our_fcp_last: [None; MAX_VLS],
            peer_rx,
            peer_held: vec![VecDeque::new(); MAX_VLS],
            peer_tx: [TxCredits::new(); MAX_VLS],
            peer_fcp_due: [0; MAX_VLS],
            peer_fcp_period: 200,
            silent: 0,
            hot: None,
            rx: VecDeque::new(),
            rx_cur: 0,
            rx_wait: VecDeque::new(),
            rx_judged: None,
            rx_buf: VecDeque::new(),
            tx_busy: false,
            cfg_busy: true,
            cl_now: [0; MAX_VLS],
            cl_hist: VecDeque::with_capacity(CREDIT_WINDOW + 2),
            crng: ChaCha8Rng::seed_from_u64(seed ^ 0xc4ed_17c4_ec4e_0000),
            wire: super::ReadyPhases::new(2_000..20_000, 0.85..0.99, 2_000, 20..300, true),
            wrng: ChaCha8Rng::seed_from_u64(seed ^ 0x7e4d_9000_0000_0000),
            stall_run: 0,
            first_violation: None,
            stats: StimStats::default(),
        }
    }

    /// This clock's inputs, given the outputs of the previous clock (`None` first).
    pub fn next(&mut self, prev: Option<&LinkPortOut>) -> LinkPortIn {
        if let Some(o) = prev {
            self.react(o);
        }
        self.advance_link();
        self.advance_phase();
        let port_reset = self.reset_left > 0 || self.ls == LINK_DOWN;
        if port_reset {
            self.resync();
        }
        self.queue_packets();
        self.peer_traffic(port_reset);
        let mut i = LinkPortIn {
            reset: self.reset_left > 0,
            link_state: self.ls,
            ..Default::default()
        };
        self.drive_tx(&mut i);
        self.drive_rx(&mut i);
        if self.cl_hist.len() > CREDIT_WINDOW {
            self.cl_hist.pop_front();
        }
        self.cl_hist.push_back(self.cl_now);
        self.drive_drains(&mut i);
        self.drive_config(&mut i, port_reset);
        // The wire: always ready, random (high 85 to 99 %), stalls of 20 to 300 clocks, or a gap of 1 to 3
        // clocks after every last word that moves.
        let last_moved = prev.is_some_and(|o| o.m_axis_phy_tvalid && o.m_axis_phy_tlast) && self.last.m_axis_phy_tready;
        i.m_axis_phy_tready = self.wire.next(&mut self.wrng, last_moved);
        if self.reset_left > 0 {
            self.reset_left -= 1;
        }
        self.last = i;
        self.clock += 1;
        i
    }

    /// Link init / resync of both ends: credits restart; the user's packet being read,
    /// its receive buffer and the verdicts in flight are gone (docs/spec.md §8).
    fn resync(&mut self) {
        self.stats.epoch_blocks = [0; MAX_VLS];
        self.cur = None;
        self.our_fctbs = [0; MAX_VLS];
        self.our_fcp_last = [None; MAX_VLS];
        self.peer_rx.iter_mut().for_each(RxCredits::reset);
        self.peer_held.iter_mut().for_each(VecDeque::clear);
        self.peer_tx.iter_mut().for_each(TxCredits::reset);
        self.rx.clear();
        self.rx_cur = 0;
        self.rx_wait.clear();
        self.rx_judged = None;
        self.rx_buf.clear();
        self.tx_bytes.clear();
        self.cl_now = [0; MAX_VLS];
        self.cl_hist.clear();
    }

    /// The sender-side credit check of a grant of VL `v` of `np` blocks in the clock
    /// before this one (`self.our_fctbs` not yet advanced): it must pass against some CL
    /// the port can have applied by then. Also counts the taken-VL coverage case.
    fn check_grant(&mut self, o: &LinkPortOut, v: usize, len: u16) {
        let np = np_of(len);
        let g = self.clock - 1;
        let st = &mut self.stats;
        st.credit_checked += 1;
        if o.grant_blocks as u16 != np || o.grant_vl as usize != v {
            st.grant_blocks_wrong += 1;
        }
        let fctbs = self.our_fctbs[v];
        let lag = self
            .cl_hist
            .iter()
            .rev()
            .position(|h| spec_may_send(h[v], fctbs, np));
        match lag {
            Some(k) => st.credit_max_lag = st.credit_max_lag.max(k as u64),
            None => {
                st.credit_violations += 1;
                if self.first_violation.is_none() {
                    let cls: Vec<u16> = self.cl_hist.iter().map(|h| h[v]).collect();
                    self.first_violation = Some(format!(
                        "clock {g}: VL {v} granted a packet of NP {np} at FCTBS {fctbs} (CR {}), \
                         but CL was {cls:?} over the last {} clocks (oldest first)",
                        (fctbs + np) & 0xfff,
                        cls.len()
                    ));
                }
            }
        }
        // Its next head (shown from the next clock): does it fail with FCTBS moved on?
        let fctbs_next = (fctbs + np) & 0xfff;
        let taken_len = len;
        if let Some(&next) = self.txq[v].front() {
            let fails = !spec_may_send(self.cl_now[v], fctbs_next, np_of(next));
            let words = (taken_len as usize * 4 + 2).div_ceil(self.lanes);
            st.taken_next_fails += fails as u64;
            st.taken_next_fails_short += (fails && words <= TAKE_GAP) as u64;
        }
    }

    fn react(&mut self, o: &LinkPortOut) {
        let was_reset = self.last.reset || self.last.link_state == LINK_DOWN;
        self.tx_busy = o.m_axis_phy_tvalid;
        self.stats.tx_data_clocks += (o.m_axis_phy_tvalid && !o.tx_link()) as u64;
        // The word on the wire moves with tx_ready, or waits.
        let moved = o.m_axis_phy_tvalid && self.last.m_axis_phy_tready;
        if o.m_axis_phy_tvalid && !self.last.m_axis_phy_tready {
            self.stats.tx_stalled += 1;
            self.stats.tx_stalled_first += o.tx_start() as u64;
            self.stats.tx_stalled_fcp += o.tx_link() as u64;
            self.stall_run += 1;
            self.stats.tx_long_stalls += (self.stall_run == 100) as u64;
        } else {
            self.stall_run = 0;
        }
        self.stats.phase_clocks[self.phase as usize] += 1;
        self.stats.phase_grants[self.phase as usize] += (o.txq_pop != 0) as u64;
        self.stats.stable_clocks += self.stable as u64;
        self.cfg_busy = o.cfg_busy;
        if o.resync_req {
            // The link logic answers the failsafe: reset both ends, then retrain.
            self.stats.resync_reqs[(o.resync_reason & 1) as usize] += 1;
            if self.reset_left == 0 {
                self.reset_left = self.rng.gen_range(1..=3);
                self.stats.resets += 1;
            }
            self.ls = LINK_INIT;
            self.ls_left = self.rng.gen_range(50..600);
        }
        let st = &mut self.stats;
        // Transmit: a read consumes the presented word; a pop starts the next packet.
        if o.src_rd {
            if let Some((_, k)) = &mut self.cur {
                *k += 1;
            }
        }
        if o.txq_pop != 0 {
            let v = o.txq_pop.trailing_zeros() as usize;
            st.grants += 1;
            match self.txq[v].pop_front() {
                None => st.stray_pops += 1,
                Some(len) => {
                    let np = np_of(len);
                    self.check_grant(o, v, len);
                    let st = &mut self.stats;
                    self.our_fctbs[v] = (self.our_fctbs[v] + np) & 0xfff;
                    st.vl_blocks[v] += np as u64;
                    st.epoch_blocks[v] += np as u64;
                    st.vl_blocks_max_epoch = st.vl_blocks_max_epoch.max(st.epoch_blocks[v]);
                    self.peer_tx_arrival(v, np);
                    self.seq += 1;
                    self.cur = Some((self.seq, 0));
                }
            }
        }
        if o.vl15_pop {
            self.stats.vl15_pops += 1;
            if self.txq[15].pop_front().is_none() {
                self.stats.stray_pops += 1;
            }
            self.seq += 1;
            self.cur = Some((self.seq, 0));
        }
        // Our FCPs reach the peer (its ABR := our FCTBS, its CL := our FCCL), some lost.
        if moved && o.tx_link() && !was_reset {
            if o.tx_start() {
                self.tx_bytes.clear();
            }
            let nb = if o.m_axis_phy_tlast {
                8 - o.m_axis_phy_tkeep.leading_zeros() as usize
            } else {
                self.lanes
            };
            self.tx_bytes
                .extend((0..nb).map(|b| (o.m_axis_phy_tdata >> (8 * b)) as u8));
            if o.m_axis_phy_tlast {
                match Fcp::decode(&self.tx_bytes, self.cap) {
                    Ok(f) => {
                        self.stats.our_fcps += 1;
                        let v = f.vl as usize;
                        if self.our_fcp_last[v].is_some_and(|x| f.fctbs < x && x - f.fctbs > 2048) {
                            self.stats.our_fcp_fctbs_wraps += 1;
                        }
                        self.our_fcp_last[v] = Some(f.fctbs);
                        if !self.rng.gen_ratio(1, 30) {
                            self.peer_rx[v].on_fcp(f.fctbs);
                            self.peer_tx[v].on_fcp(f.fccl);
                        }
                    }
                    Err(_) => self.stats.bad_our_fcps += 1,
                }
            }
        }
        // Receive: verdicts (done; commit/overrun a clock later), then words.
        if was_reset {
            return;
        }
        let st = &mut self.stats;
        if let Some((vl, bytes)) = self.rx_judged.take() {
            if o.rx_commit {
                st.commits += 1;
                let pkt_len = ((bytes - 2) / 4) as u16;
                self.rx_buf.push_back((vl, np_of(pkt_len) as u8));
            } else if o.rx_overrun {
                st.overruns += 1;
            } else {
                st.verdict_errors += 1;
            }
        }
        if o.rx_out_abort {
            self.rx_cur = 0;
        }
        if o.rx_out_valid {
            if o.rx_out_sop {
                self.rx_cur = 0;
            }
            self.rx_cur += if o.rx_out_eop {
                8 - o.rx_out_keep.leading_zeros() as usize
            } else {
                self.lanes
            };
            if o.rx_out_eop {
                self.rx_wait.push_back((o.rx_out_vl, self.rx_cur));
                self.rx_cur = 0;
            }
        }
        if o.rx_done {
            st.done_status[(o.rx_done_status & 3) as usize] += 1;
            match self.rx_wait.pop_front() {
                None => st.verdict_errors += 1,
                Some(p) if o.rx_done_status == 0 => self.rx_judged = Some(p),
                Some(_) => {}
            }
        }
    }

    /// One of our data packets of `np` blocks reaches the peer's receive buffer for VL
    /// `v` (unless lost on the link).
    fn peer_tx_arrival(&mut self, v: usize, np: u16) {
        if self.rng.gen_ratio(1, 100) {
            return;
        }
        if self.peer_rx[v].accept(np).is_ok() {
            self.peer_held[v].push_back(np);
        }
    }

    fn advance_link(&mut self) {
        if self.reset_left > 0 {
            return;
        }
        if self.ls_left > 0 {
            self.ls_left -= 1;
            // A resync pulse now and then in LinkActive.
            if self.ls == LINK_ACTIVE && !self.stable && self.rng.gen_ratio(1, 20_000) {
                self.reset_left = self.rng.gen_range(1..=4);
                self.stats.resets += 1;
            }
            return;
        }
        let busy = self.tx_busy;
        let r = &mut self.rng;
        let next = match self.ls {
            LINK_DOWN => LINK_INIT,
            LINK_INIT => {
                if r.gen_ratio(9, 10) {
                    LINK_ARM
                } else {
                    LINK_DOWN
                }
            }
            LINK_ARM => {
                if r.gen_ratio(9, 10) {
                    LINK_ACTIVE
                } else {
                    LINK_INIT
                }
            }
            _ => match r.gen_range(0..10) {
                0..=3 => LINK_DOWN,
                4..=6 => {
                    // Resync by reset, staying in LinkActive.
                    self.reset_left = r.gen_range(1..=6);
                    self.stats.resets += 1;
                    LINK_ACTIVE
                }
                7 => LINK_ARM,
                _ => LINK_INIT,
            },
        };
        let len = match next {
            LINK_DOWN => r.gen_range(2..40),
            LINK_INIT => r.gen_range(50..600),
            LINK_ARM => r.gen_range(10..300),
            // A stable stretch: long enough for the hot VL's FCTBS and ABR to wrap (4096
            // blocks at up to one block every 16 clocks at 32 bits, every 8 at 64).
            _ if self.stats.stable_clocks * 100 < STABLE_SHARE_PCT * self.clock => {
                r.gen_range(150_000..300_000) * 4 / self.lanes as u64
            }
            // Short enough that link-state events are not rare in a million clocks; the
            // stable stretches above carry the FCTBS/ABR wraps.
            _ => r.gen_range(4_000..30_000),
        };
        self.stable = next == LINK_ACTIVE && len >= 150_000 * 4 / self.lanes as u64;
        if self.stable {
            self.phase_left = 0;
            self.hot = None;
        }
        self.stats.state_changes_in_traffic += (busy && next != self.ls) as u64;
        match next {
            LINK_DOWN => self.stats.downs += 1,
            LINK_INIT => self.stats.to_init += 1,
            LINK_ARM => self.stats.to_arm += 1,
            _ => self.stats.to_active += (self.ls != LINK_ACTIVE) as u64,
        }
        self.ls = next;
        self.ls_left = len;
    }

    fn advance_phase(&mut self) {
        if self.phase_left > 0 {
            self.phase_left -= 1;
            return;
        }
        // Stable stretches: traffic, losses and corruption, but nothing that makes the
        // failsafe resync (FCP silence, overruns).
        let phases: &[(Phase, u32)] = if self.stable { &STABLE_PHASES } else { &PHASES };
        let total: u32 = phases.iter().map(|p| p.1).sum();
        let mut x = self.rng.gen_range(0..total);
        for &(p, w) in phases {
            if x < w {
                self.phase = p;
                break;
            }
            x -= w;
        }
        self.phase_left = self.rng.gen_range(2_000..20_000);
        self.silent = 0;
        // A hot VL: for a whole stable stretch (so its FCTBS and ABR wrap), else in some
        // floods, and in congestion (its receive buffer fills: overruns).
        self.hot = match self.phase {
            _ if self.stable => self.hot.or_else(|| Some(self.rng.gen_range(0..self.n))),
            Phase::SmallFlood if self.rng.gen_ratio(2, 3) => Some(self.rng.gen_range(0..self.n)),
            Phase::Congested => Some(self.rng.gen_range(0..self.n)),
            _ => None,
        };
        if self.phase == Phase::Silent {
            self.phase_left = self.rng.gen_range(40_000..80_000);
            self.silent = if self.rng.gen() {
                1 << self.rng.gen_range(0..self.n)
            } else {
                0x7fff
            };
        }
        self.queue_limit = self.rng.gen_range(2..=8);
        self.peer_fcp_period = match self.phase {
            Phase::SmallFlood => self.rng.gen_range(30..120),
            _ => self.rng.gen_range(60..1500),
        };
        // The peer's buffers change size now and then (a different peer after a resync
        // would; here between packets, which the model allows).
        if self.rng.gen_ratio(1, 4) {
            let v = self.rng.gen_range(0..self.n);
            let c = [66u16, 256, 1000, 3072, 4095][self.rng.gen_range(0..5)];
            self.peer_rx[v] = RxCredits::new(c);
            self.peer_held[v].clear();
        }
    }

    /// A data VL for new traffic (the hot one, if any, most of the time).
    fn pick_vl(&mut self) -> usize {
        match self.hot {
            Some(v) if self.rng.gen_ratio(9, 10) => v,
            _ => self.rng.gen_range(0..self.n),
        }
    }

    fn random_len(&mut self) -> u16 {
        let r = &mut self.rng;
        match self.phase {
            Phase::SmallFlood => {
                if r.gen_ratio(3, 4) {
                    6
                } else {
                    r.gen_range(6..=22)
                }
            }
            Phase::Large => {
                if r.gen_ratio(1, 3) {
                    r.gen_range(500..=1048)
                } else {
                    r.gen_range(6..=400)
                }
            }
            _ => match r.gen_range(0..200) {
                0 => 1048,
                1..=4 => r.gen_range(100..=1048),
                5..=60 => 6,
                _ => r.gen_range(6..=80),
            },
        }
    }

    /// The user queues new packets.
    fn queue_packets(&mut self) {
        let rate = match self.phase {
            Phase::SmallFlood => 900,
            Phase::Mixed | Phase::Large | Phase::Congested | Phase::Silent => 300,
            Phase::Faulty => 150,
            Phase::Sparse => 10,
        };
        let add = |s: &mut Self, v: usize| {
            if s.txq[v].len() < s.queue_limit {
                let len = s.random_len();
                s.txq[v].push_back(len);
            }
        };
        match self.hot {
            // Nearly everything on the hot VL: the others stay nearly empty, so the
            // arbiter gives it the link.
            Some(h) => {
                if self.rng.gen_range(0..1000) < rate {
                    add(self, h);
                }
                if self.rng.gen_ratio(1, 40) {
                    let v = self.rng.gen_range(0..self.n);
                    add(self, v);
                }
            }
            None => {
                if self.rng.gen_range(0..1000) < rate {
                    let v = self.rng.gen_range(0..self.n);
                    add(self, v);
                }
            }
        }
        if self.rng.gen_ratio(1, 700) && self.txq[15].len() < 2 {
            let len = self.rng.gen_range(6..=70);
            self.txq[15].push_back(len);
        }
    }

    fn drive_tx(&mut self, i: &mut LinkPortIn) {
        for v in 0..MAX_VLS {
            match self.txq[v].front() {
                Some(&len) if v < self.n => {
                    i.txq_valid |= 1 << v;
                    i.txq_len[v] = len;
                }
                // No head (or no such VL): the length field is junk, which must not matter
                // (often 0 or small, as an empty FIFO may show: a stale length the credit
                // check must not use for the next head).
                _ => {
                    i.txq_len[v] = match self.crng.gen_range(0..4) {
                        0 => 0,
                        1 => self.crng.gen_range(0..40),
                        _ => self.crng.gen_range(0..2048),
                    }
                }
            }
        }
        // Coverage: a head new after an empty queue while CL = FCTBS in LinkActive.
        let active = self.ls == LINK_ACTIVE && self.reset_left == 0;
        for v in 0..self.n {
            let new = i.txq_valid >> v & 1 == 1 && self.last.txq_valid >> v & 1 == 0;
            if active && new && self.cl_now[v] == self.our_fctbs[v] {
                self.stats.new_head_cl_eq_fctbs += 1;
                let stale = np_of(self.last.txq_len[v] & 0x7ff);
                self.stats.new_head_stale_len_passes +=
                    spec_may_send(self.cl_now[v], self.our_fctbs[v], stale) as u64;
            }
        }
        if self.rng.gen_ratio(1, 50) {
            // Valid bits of VLs the port does not have: ignored.
            i.txq_valid |= (self.rng.gen::<u16>() & 0x7fff) & !(((1u32 << self.n) - 1) as u16);
        }
        match self.txq[15].front() {
            Some(&len) => {
                i.vl15_valid = true;
                i.vl15_len = len;
            }
            None => i.vl15_len = self.rng.gen_range(0..2048),
        }
        i.src_data = match self.cur {
            Some((id, k)) => mix(id, k as u64),
            None => self.rng.gen(),
        };
    }

    /// The peer: drains our packets, sends FCPs and data packets on the receive link.
    fn peer_traffic(&mut self, port_reset: bool) {
        let drain_rate = match self.phase {
            Phase::SmallFlood => 2,
            Phase::Congested => 40,
            _ => 6,
        };
        for _ in 0..2 {
            if self.rng.gen_ratio(1, drain_rate) {
                // The oldest packet of some VL that holds one.
                let s = self.rng.gen_range(0..self.n);
                if let Some(v) = (0..self.n)
                    .map(|k| (s + k) % self.n)
                    .find(|&v| !self.peer_held[v].is_empty())
                {
                    let b = self.peer_held[v].pop_front().expect("held");
                    self.peer_rx[v].drain(b);
                }
            }
        }
        if port_reset || !self.rx.is_empty() {
            return;
        }
        // Between items: an idle gap, or the next item.
        let idle = match self.phase {
            Phase::SmallFlood | Phase::Mixed => 10,
            Phase::Sparse => 600,
            _ => 80,
        };
        if self.rng.gen_range(0..1000) < idle {
            return;
        }
        // An FCP falls due for some VL (the peer's own refresh), else maybe data.
        let silent = self.silent;
        let due = (0..self.n).find(|&v| self.clock >= self.peer_fcp_due[v] && silent >> v & 1 == 0);
        if let Some(v) = due {
            let jitter = self.rng.gen_range(0..=self.peer_fcp_period / 2);
            self.peer_fcp_due[v] = self.clock + self.peer_fcp_period + jitter;
            self.peer_fcp(v);
            return;
        }
        let faulty = self.phase == Phase::Faulty;
        match self.rng.gen_range(0..100) {
            0..=2 => self.bad_fcp(),
            3 if faulty => self.bad_fcp(),
            4..=5 => {
                let v = self.rng.gen_range(0..self.n);
                if silent >> v & 1 == 0 {
                    self.peer_fcp(v);
                }
            }
            6 => self.peer_packet(15),
            7 if self.n < 15 => {
                let v = self.rng.gen_range(self.n as u8..15);
                self.peer_packet(v);
            }
            _ if self.ls == LINK_ACTIVE || self.rng.gen_ratio(1, 20) => {
                let v = self.pick_vl() as u8;
                self.peer_packet(v);
            }
            _ => {}
        }
    }

    /// The peer's FCP for data VL `v`: its FCTBS and FCCL (sometimes a limit at the
    /// window edge of our head packet), sometimes lost.
    fn peer_fcp(&mut self, v: usize) {
        let op = if self.ls == LINK_INIT || self.rng.gen_ratio(1, 10) {
            FcpOp::Init
        } else {
            FcpOp::Normal
        };
        let fccl = if self.rng.gen_ratio(1, 15) {
            self.stats.fcps_edge += 1;
            let np = self.txq[v].front().map_or(1, |&l| np_of(l));
            let edge = self.rng.gen_range(2047..=2049u16);
            (self.our_fctbs[v] + np + edge) & 0xfff
        } else if !self.stable
            && self
                .crng
                .gen_ratio(1, if self.phase == Phase::Sparse { 3 } else { 12 })
        {
            // Tight: credit for nothing more, for the head alone, or for exactly what is
            // queued (then the queue runs empty at CL = FCTBS): the next head after a
            // take, or a new head after an empty queue, must wait.
            self.stats.fcps_tight += 1;
            let more: u16 = match self.crng.gen_range(0..3) {
                0 => 0,
                1 => self.txq[v].front().map_or(0, |&l| np_of(l)),
                _ => self.txq[v].iter().map(|&l| np_of(l)).sum(),
            };
            (self.our_fctbs[v] + more) & 0xfff
        } else {
            self.peer_rx[v].fccl()
        };
        let f = Fcp::new(op, self.peer_tx[v].fctbs(), v as u8, fccl).expect("12-bit fields");
        if self.rng.gen_ratio(1, 25) {
            self.stats.fcps_lost += 1;
            return;
        }
        self.stats.fcps_sent += 1;
        self.push_item(&f.encode(), true, true);
        if let Some(w) = self.rx.back_mut() {
            w.fcp = Some((v as u8, fccl));
        }
    }

    /// A link packet that is not a good FCP.
    fn bad_fcp(&mut self) {
        let v = self.rng.gen_range(0..self.n);
        let fctbs = self.rng.gen_range(0..4096u64);
        let fccl = self.rng.gen_range(0..4096u64);
        let enc = |op: u64, vl: u64| {
            iblink_model::fcp::encode_fields(op, fctbs, vl, fccl).expect("fields")
        };
        let st = &mut self.stats;
        match self.rng.gen_range(0..7) {
            0 => {
                let mut b = enc(0, v as u64);
                let bit = self.rng.gen_range(0..48);
                b[bit / 8] ^= 1 << (bit % 8);
                st.fcp_bad_lpcrc += 1;
                self.push_item(&b, true, true);
            }
            1 => {
                let op = self.rng.gen_range(2..16);
                st.fcp_reserved_op += 1;
                self.push_item(&enc(op, v as u64), true, true);
            }
            2 => {
                st.fcp_vl15 += 1;
                self.push_item(&enc(0, 15), true, true);
            }
            3 if self.n < 15 => {
                let vl = self.rng.gen_range(self.n as u64..15);
                st.fcp_vl_cap += 1;
                self.push_item(&enc(1, vl), true, true);
            }
            4 => {
                let k = self.rng.gen_range(1..6);
                st.fcp_short += 1;
                self.push_item(&enc(0, v as u64)[..k], true, true);
            }
            5 => {
                let mut b = enc(0, v as u64).to_vec();
                let extra = self.rng.gen_range(1..8);
                b.extend((0..extra).map(|_| self.rng.gen::<u8>()));
                st.fcp_long += 1;
                self.push_item(&b, true, true);
            }
            _ => {
                // Cut: no eop; the next item's sop aborts it.
                st.fcp_cut += 1;
                self.push_item(&enc(0, v as u64), true, false);
            }
        }
    }

    /// A data packet from the peer on VL `vl` (15: VL15; `n..15`: a VL we do not have).
    fn peer_packet(&mut self, vl: u8) {
        let r = &mut self.rng;
        let pkt_len = match self.phase {
            Phase::SmallFlood => {
                if r.gen_ratio(3, 4) {
                    6
                } else {
                    r.gen_range(6..=30)
                }
            }
            Phase::Large => r.gen_range(6..=1048),
            _ => match r.gen_range(0..30) {
                0 => r.gen_range(300..=1048),
                _ => r.gen_range(6..=70),
            },
        };
        let v = vl as usize;
        if v < self.n {
            let np = np_of(pkt_len);
            let allowed = self.peer_tx[v].can_send(np);
            let over = self.phase == Phase::Congested && self.rng.gen_ratio(1, 3)
                || self.rng.gen_ratio(1, 200);
            if !allowed && !over {
                return;
            }
            self.stats.data_over_credit += !allowed as u64;
            self.peer_tx[v].on_send(np);
            let loss = if self.phase == Phase::Faulty { 10 } else { 100 };
            if self.rng.gen_ratio(1, loss) {
                self.stats.data_lost += 1;
                return;
            }
        }
        let mut p = data_packet(&mut self.rng, vl, pkt_len);
        let bad = if self.phase == Phase::Faulty { 4 } else { 40 };
        let mut eop = true;
        if self.rng.gen_ratio(1, bad) {
            match self.rng.gen_range(0..3) {
                0 => {
                    // A bit error after the LRH: the length stays right, the VCRC fails.
                    let bit = self.rng.gen_range(8 * 8..p.len() * 8);
                    p[bit / 8] ^= 1 << (bit % 8);
                    self.stats.data_bad_vcrc += 1;
                }
                1 => {
                    if self.rng.gen() {
                        let k = self.rng.gen_range(1..=8.min(p.len() - 1));
                        p.truncate(p.len() - k);
                    } else {
                        let k = self.rng.gen_range(1..=8);
                        p.extend((0..k).map(|_| self.rng.gen::<u8>()));
                    }
                    self.stats.data_bad_length += 1;
                }
                _ => {
                    let k = self.rng.gen_range(1..=p.len());
                    p.truncate(k);
                    eop = false;
                    self.stats.data_cut += 1;
                }
            }
        } else if vl == 15 {
            self.stats.data_vl15 += 1;
        } else if v >= self.n {
            self.stats.data_bad_vl += 1;
        } else {
            self.stats.data_good += 1;
        }
        self.push_item(&p, false, eop);
    }

    fn push_item(&mut self, bytes: &[u8], link: bool, eop: bool) {
        let fill = self.rng.gen();
        let gaps = match self.phase {
            Phase::Faulty | Phase::Sparse => 8,
            _ => 60,
        };
        for w in crate::blocks::fcp_rx::item_words(bytes, self.lanes, link, eop, fill) {
            if self.rng.gen_ratio(1, gaps) {
                self.stats.rx_gaps += 1;
                self.rx.push_back(RxWord {
                    data: self.rng.gen(),
                    ..Default::default()
                });
            }
            self.rx.push_back(RxWord {
                valid: true,
                data: w.data,
                keep: w.keep,
                sop: w.sop,
                eop: w.eop,
                link: w.link,
                fcp: None,
            });
        }
    }

    fn drive_rx(&mut self, i: &mut LinkPortIn) {
        if let Some(w) = self.rx.pop_front() {
            i.s_axis_phy_tvalid = w.valid;
            i.s_axis_phy_tdata = w.data;
            i.s_axis_phy_tkeep = w.keep;
            i.s_axis_phy_tlast = w.eop;
            i.s_axis_phy_tuser = tuser(w.sop, w.link);
            if let (true, Some((v, cl))) = (w.valid && w.eop, w.fcp) {
                self.cl_now[v as usize] = cl;
            }
        } else if self.rng.gen_ratio(1, 8) {
            // Idle: junk on the data lines.
            i.s_axis_phy_tdata = self.rng.gen();
            i.s_axis_phy_tkeep = self.rng.gen();
        }
    }

    /// The higher layer takes packets out of the receive buffer.
    fn drive_drains(&mut self, i: &mut LinkPortIn) {
        let rate = match self.phase {
            Phase::SmallFlood => 1,
            Phase::Congested => 1000,
            Phase::Sparse => 4,
            _ => 3,
        };
        if self.rng.gen_ratio(1, rate) {
            if let Some((vl, blocks)) = self.rx_buf.pop_front() {
                if vl == 15 {
                    i.vl15_drain = true;
                    self.stats.vl15_drains += 1;
                } else {
                    i.drain = true;
                    i.drain_vl = vl;
                    i.drain_blocks = blocks;
                    self.stats.drains += 1;
                }
                return;
            }
        }
        if self.rng.gen_ratio(1, 3000) {
            // A drain the buffers must ignore or clamp: a VL we do not have, or more than
            // is held; an empty VL15 buffer.
            i.drain = true;
            i.drain_vl = self.rng.gen_range(0..16);
            i.drain_blocks = self.rng.gen_range(0..128);
            i.vl15_drain = self.rng.gen();
            self.stats.junk_drains += 1;
        } else {
            i.drain_vl = self.rng.gen_range(0..16);
            i.drain_blocks = self.rng.gen_range(0..128);
        }
    }

    /// The subnet manager's configuration writes.
    fn drive_config(&mut self, i: &mut LinkPortIn, port_reset: bool) {
        i.cfg_addr = self.rng.gen();
        i.cfg_data = self.rng.gen();
        // Refresh period and gap: written in a reset that lasts at least one more clock.
        if self.held_write.is_none() && self.rng.gen_ratio(1, 20_000) {
            // Refresh: within 65,536 symbol times (docs/spec.md §5), sometimes very short;
            // gap: up to a few hundred clocks.
            let refresh = self.rng.gen::<bool>();
            let top = if refresh {
                65_536 / self.lanes as u32
            } else {
                1024
            } as u16;
            let v = match self.rng.gen_range(0..8) {
                0 => self.rng.gen_range(1..64),
                1 => self.rng.gen_range(64..top),
                2 => top,
                _ => self.rng.gen_range(top / 8..top),
            };
            self.held_write = Some((if refresh { CFG_REFRESH } else { CFG_MIN_GAP }, v));
        }
        if let Some((a, d)) = self.held_write {
            let held_next = self.reset_left > 1
                || (self.ls == LINK_DOWN && self.ls_left > 1 && self.reset_left == 0);
            if port_reset && held_next {
                i.cfg_wr = true;
                i.cfg_addr = a;
                i.cfg_data = d;
                if a == CFG_REFRESH {
                    self.stats.refresh_writes += 1;
                } else {
                    self.stats.gap_writes += 1;
                }
                self.held_write = None;
                return;
            }
            if !port_reset
                && self.reset_left == 0
                && self.ls == LINK_ACTIVE
                && !self.stable
                && self.rng.gen_ratio(1, 500)
            {
                // Reset the port to apply it (software: new timing, then resync).
                self.reset_left = self.rng.gen_range(2..=4);
                self.stats.resets += 1;
            }
        }
        let in_traffic = self.tx_busy;
        if let Some((low, idx)) = self.rewrite {
            // A whole table rewritten, one entry a clock, in traffic.
            i.cfg_wr = true;
            i.cfg_addr = (low as u8) << 6 | idx;
            let vl = self.rng.gen_range(0..self.n as u16);
            let w = self.rng.gen_range(1..=255u16);
            i.cfg_data = vl << 8 | w | (self.rng.gen::<u16>() & 0xf000);
            self.stats.table_writes += 1;
            self.rewrite = if idx == 63 {
                None
            } else {
                Some((low, idx + 1))
            };
            return;
        }
        if !self.rng.gen_ratio(1, 150) {
            return;
        }
        i.cfg_wr = true;
        self.stats.writes_while_busy += self.cfg_busy as u64;
        let r = &mut self.rng;
        match r.gen_range(0..100) {
            0..=59 => {
                let low = r.gen::<bool>();
                let idx = r.gen_range(0..64u8);
                let vl = match r.gen_range(0..20) {
                    0 => 15,
                    1 => r.gen_range(0..16),
                    _ => r.gen_range(0..self.n as u16),
                };
                let w = match r.gen_range(0..10) {
                    0 => 0,
                    1 => 255,
                    _ => r.gen_range(1..=128),
                };
                i.cfg_addr = (low as u8) << 6 | idx;
                i.cfg_data = vl << 8 | w | (r.gen::<u16>() & 0xf000);
                self.stats.table_writes += 1;
                self.stats.table_writes_in_traffic += in_traffic as u64;
            }
            60..=61 => {
                self.rewrite = Some((r.gen(), 0));
                self.stats.table_rewrites += 1;
                i.cfg_wr = false;
            }
            62..=71 => {
                let (d, k) = match r.gen_range(0..4) {
                    0 => (0, 0),
                    1 => (255, 2),
                    _ => (r.gen_range(1..=254), 1),
                };
                i.cfg_addr = CFG_VL_HIGH_LIMIT;
                i.cfg_data = d | (r.gen::<u16>() & 0xff00);
                self.stats.limit_writes[k] += 1;
            }
            72..=77 => {
                i.cfg_addr = CFG_LOW_POLICY;
                i.cfg_data = r.gen_ratio(1, 3) as u16 | (r.gen::<u16>() & 0xfffe);
                self.stats.policy_writes += 1;
            }
            86..=89 => {
                // Failsafe thresholds (applied at the next reset).
                i.cfg_addr = if r.gen() {
                    CFG_UPDATE_PERIODS
                } else {
                    CFG_OVERRUN_PERIODS
                };
                i.cfg_data = match r.gen_range(0..8) {
                    0..=2 => 0,
                    3 => r.gen(),
                    _ => r.gen_range(1..=3),
                };
                self.stats.failsafe_writes += 1;
            }
            78..=85 => {
                let all = ((1u32 << self.n) - 1) as u16;
                i.cfg_addr = CFG_VL_ENABLE;
                i.cfg_data = if r.gen_ratio(2, 3) {
                    all | (r.gen::<u16>() & !all)
                } else {
                    r.gen()
                };
                self.stats.enable_writes += 1;
            }
            _ => {
                // Unmapped addresses: ignored.
                i.cfg_addr = r.gen_range(0x90..=0xff);
                self.stats.unmapped_writes += 1;
            }
        }
    }
}
