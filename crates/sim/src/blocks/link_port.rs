//! The link port in the RTL back ends, and a two-port testbench: two ports back to back
//! through a wire of configurable latency, each with a user side (per-VL transmit queues
//! of real IBA packets, a receive buffer that drains at a set pace).
//!
//! The user side is plain Rust shared by every back end, so a run is the same stimulus
//! whatever simulates the ports; [`PortPairBench::step`] returns both ports' outputs for
//! a lockstep comparison of back ends, and the bench itself checks what the specification promises
//! end to end: every packet arrives once, in order per VL, byte for byte, and no buffer
//! ever overruns.

use crate::blocks::{Backend, SimBuildError};
use crate::system::channel::LinkWord;
use crate::CycleSim;
use iblink_model::iba::{self, PacketFields};
use iblink_rtl::catalog::link_port_variant;
use iblink_rtl::link::{LINK_ACTIVE, LINK_INIT};
use iblink_rtl::link_port::{LinkPortIn, LinkPortOut, LinkPortTwin, PortParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

pub type LinkPortSim = Box<dyn CycleSim<In = LinkPortIn, Out = LinkPortOut>>;

/// The configuration the port's lockstep and failsafe tests build, per variant: buffer
/// sizes, VL15 buffer, a high table and a low table that differ from the defaults, so
/// the loader has work to do. One configuration per variant, so the tests share one
/// Verilator build of it.
pub fn test_params(vls: usize, width: usize) -> PortParams {
    let mut p = PortParams::defaults(vls, width);
    let k = vls + width;
    p.buffer_blocks = [256u16, 300, 1000, 66, 4095][k % 5];
    p.vl15_packets = 1 + k % 3;
    p.vl_high_limit = [4u8, 0, 1, 255][k % 4];
    p.one_packet = k % 3 == 0;
    p.high = (0..vls as u8).step_by(2).map(|v| (v, 16 + 8 * v)).collect();
    p.low = (0..vls as u8).rev().map(|v| (v, 32 + v)).collect();
    // On-change FCPs of many VLs would take most of the link at the default gap (at
    // VLCap 15 and 32 bits, 15 two-word FCPs every 64 clocks): a longer gap there.
    p.min_gap_clocks = p.min_gap_clocks.max(32 * vls as u16);
    p
}

/// The port generated from `p` in an RTL back end (the port has no single reference
/// model: its blocks do, and the bench checks the system's promises). The `rtl` back end
/// is the port's stepper ([`LinkPortTwin`]), checking its schedule every clock; with a
/// VCD it runs inside the rust-hdl block, whose probe writes the port's pins.
pub fn link_port_sim(p: &PortParams, b: Backend, vcd: Option<&Path>) -> Result<LinkPortSim, SimBuildError> {
    link_port_sim_with(p, b, vcd, true)
}

/// As [`link_port_sim`]; `check` re-evaluates every block on its final inputs each clock
/// (off: the stepper at full speed, for benchmarks).
pub fn link_port_sim_with(p: &PortParams, b: Backend, vcd: Option<&Path>, check: bool) -> Result<LinkPortSim, SimBuildError> {
    let key = (p.vl_cap, p.width);
    match (b, vcd) {
        (Backend::Rtl, None) => {
            if !iblink_rtl::vl::VL_CAPS.contains(&p.vl_cap) || !(p.width == 32 || p.width == 64) {
                return Err(SimBuildError::Variant(format!("link port VLCap {} x {} bits", p.vl_cap, p.width)));
            }
            let mut t = LinkPortTwin::new(p);
            t.check = check;
            Ok(Box::new(crate::blocks::TwinSim(t)))
        }
        _ => link_port_rtl(p, b, vcd, key),
    }
}

fn link_port_rtl(p: &PortParams, b: Backend, vcd: Option<&Path>, key: (usize, usize)) -> Result<LinkPortSim, SimBuildError> {
    match b {
        Backend::Model => Err(SimBuildError::Variant("a model back end of the whole port".into())),
        Backend::Rtl => iblink_rtl::with_link_port!(key, |T| {
            let mut s = crate::HdlStepper::new(T::new(p.clone()));
            if let Some(path) = vcd {
                s.trace_to(path).map_err(|e| SimBuildError::Vcd(path.display().to_string(), e))?;
            }
            Ok(Box::new(s) as LinkPortSim)
        }, _ => Err(SimBuildError::Variant(format!("link port VLCap {} x {} bits", p.vl_cap, p.width)))),
        Backend::Verilator => {
            let m = link_port_variant(p)?;
            iblink_rtl::with_link_port!(key, |T| crate::blocks::vl_box::<T>(&m, vcd),
                _ => Err(SimBuildError::Variant(format!("link port VLCap {} x {} bits", p.vl_cap, p.width))))
        }
    }
}

/// Traffic and pacing of one side.
#[derive(Clone, Debug)]
pub struct Traffic {
    /// Per mille chance per clock that a new packet is queued on a random data VL.
    pub offer_permille: u32,
    /// Per mille chance per clock of a VL15 packet.
    pub vl15_permille: u32,
    /// PktLen range of generated packets (6..=1048).
    pub min_len: u16,
    pub max_len: u16,
    /// Clocks the receive side needs per drained packet (0: drains one a clock).
    pub drain_clocks: u32,
    /// Packets each VL's transmit queue may hold.
    pub queue_limit: usize,
}

impl Default for Traffic {
    fn default() -> Self {
        Self {
            offer_permille: 300,
            vl15_permille: 2,
            min_len: 6,
            max_len: 80,
            drain_clocks: 2,
            queue_limit: 8,
        }
    }
}

/// One port's user side: transmit queues (descriptor + words) and the receive buffer.
struct UserSide {
    width_bytes: usize,
    vls: usize,
    /// Per data VL, then VL15 at index 15: packets not yet started.
    txq: Vec<VecDeque<Vec<u8>>>,
    /// The packet being read (`src_vl`), and the next word index.
    cur: Option<(Vec<u8>, usize)>,
    /// Received packet being assembled, and finished ones waiting for their verdict.
    rx_cur: Vec<u8>,
    rx_wait: VecDeque<(u8, Vec<u8>)>,
    /// Verdict seen (`rx_done` good), waiting for `rx_commit`/`rx_overrun` next clock.
    rx_judged: Option<(u8, Vec<u8>)>,
    /// Committed packets in the receive buffer: (VL, blocks, bytes).
    rx_buf: VecDeque<(u8, u8, Vec<u8>)>,
    drain_wait: u32,
    seq: u64,
}

/// What the bench saw (end-to-end promises and statistics).
#[derive(Clone, Debug, Default)]
pub struct BenchStats {
    pub sent: [u64; 16],
    pub delivered: [u64; 16],
    pub bad_delivery: u64,
    pub overruns: u64,
    pub bad_status: u64,
    pub fcps_on_wire: u64,
    pub busy_clocks: u64,
    /// Clocks with the transmitter idle while a data VL's head packet had credit.
    pub idle_while_eligible: u64,
}

/// Two ports back to back.
pub struct PortPairBench {
    pub a: LinkPortSim,
    pub b: LinkPortSim,
    ua: UserSide,
    ub: UserSide,
    traffic: Traffic,
    /// Words in flight a -> b and b -> a (front = arriving now).
    wire_ab: VecDeque<Option<LinkWord>>,
    wire_ba: VecDeque<Option<LinkWord>>,
    rng: ChaCha8Rng,
    pub clock: u64,
    activate_at: u64,
    /// Packets expected per (direction, VL), in order: what each side sent.
    expect_ab: Vec<VecDeque<Vec<u8>>>,
    expect_ba: Vec<VecDeque<Vec<u8>>>,
    pub stats_a: BenchStats,
    pub stats_b: BenchStats,
    last_a: LinkPortOut,
    last_b: LinkPortOut,
}

impl UserSide {
    fn new(width_bytes: usize, vls: usize) -> Self {
        Self {
            width_bytes,
            vls,
            txq: (0..16).map(|_| VecDeque::new()).collect(),
            cur: None,
            rx_cur: vec![],
            rx_wait: VecDeque::new(),
            rx_judged: None,
            rx_buf: VecDeque::new(),
            drain_wait: 0,
            seq: 0,
        }
    }

    /// The next source word (zero-padded past the packet's end).
    fn src_word(&self) -> u64 {
        let Some((p, k)) = &self.cur else { return 0 };
        let mut w = 0u64;
        for i in 0..self.width_bytes {
            let at = k * self.width_bytes + i;
            if at < p.len() {
                w |= (p[at] as u64) << (8 * i);
            }
        }
        w
    }
}

impl PortPairBench {
    /// Ports `a` and `b` (same parameters) with `latency` clocks of wire each way; both
    /// go from LinkInitialize to LinkActive after `activate_after` clocks.
    pub fn new(p: &PortParams, a: LinkPortSim, b: LinkPortSim, latency: usize, activate_after: u64, traffic: Traffic, seed: u64) -> Self {
        let wb = p.width / 8;
        Self {
            a,
            b,
            ua: UserSide::new(wb, p.vl_cap),
            ub: UserSide::new(wb, p.vl_cap),
            traffic,
            wire_ab: (0..latency).map(|_| None).collect(),
            wire_ba: (0..latency).map(|_| None).collect(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            clock: 0,
            activate_at: activate_after,
            expect_ab: (0..16).map(|_| VecDeque::new()).collect(),
            expect_ba: (0..16).map(|_| VecDeque::new()).collect(),
            stats_a: BenchStats::default(),
            stats_b: BenchStats::default(),
            last_a: LinkPortOut::default(),
            last_b: LinkPortOut::default(),
        }
    }

    /// One clock of both ports; returns their outputs (for comparing back ends).
    pub fn step(&mut self) -> (LinkPortOut, LinkPortOut) {
        let state = if self.clock < self.activate_at { LINK_INIT } else { LINK_ACTIVE };
        for side in [0, 1] {
            let (u, exp) = if side == 0 { (&mut self.ua, &mut self.expect_ab) } else { (&mut self.ub, &mut self.expect_ba) };
            generate(&mut self.rng, &self.traffic, u, exp);
        }
        let ia = inputs(&self.ua, state, self.wire_ba.front().copied().flatten(), &mut self.rng, &self.traffic);
        let ib = inputs(&self.ub, state, self.wire_ab.front().copied().flatten(), &mut self.rng, &self.traffic);
        let oa = self.a.step(&ia);
        let ob = self.b.step(&ib);
        self.wire_ba.pop_front();
        self.wire_ab.pop_front();
        self.wire_ab.push_back(LinkWord::from_tx(&oa));
        self.wire_ba.push_back(LinkWord::from_tx(&ob));
        react(&mut self.ua, &ia, &oa, &mut self.expect_ba, &mut self.stats_a);
        react(&mut self.ub, &ib, &ob, &mut self.expect_ab, &mut self.stats_b);
        account(&mut self.stats_a, &oa, &self.ua, &self.last_a);
        account(&mut self.stats_b, &ob, &self.ub, &self.last_b);
        self.last_a = oa;
        self.last_b = ob;
        self.clock += 1;
        (oa, ob)
    }

    /// Packets queued but not yet delivered, per direction.
    pub fn in_flight(&self) -> (usize, usize) {
        let n = |e: &Vec<VecDeque<Vec<u8>>>| e.iter().map(VecDeque::len).sum();
        (n(&self.expect_ab), n(&self.expect_ba))
    }
}

/// Queue new packets (real IBA packets: LRH VL and PktLen, BTH, DETH, payload, ICRC, VCRC;
/// the port appends its own VCRC, so the queued bytes stop at the ICRC).
fn generate(rng: &mut ChaCha8Rng, t: &Traffic, u: &mut UserSide, exp: &mut [VecDeque<Vec<u8>>]) {
    let mut queue = |vl: u8, rng: &mut ChaCha8Rng, u: &mut UserSide| {
        if u.txq[vl as usize].len() >= t.queue_limit {
            return;
        }
        let len = rng.gen_range(t.min_len.max(9)..=t.max_len.max(9)) as usize;
        // UD SEND Only: 8 LRH + 12 BTH + 8 DETH + payload + 4 ICRC = len * 4 bytes.
        let payload = iba::deterministic_payload(u.seq, len * 4 - 32);
        u.seq += 1;
        let f = PacketFields {
            vl,
            sl: vl,
            psn: u.seq as u32 & 0xff_ffff,
            ..Default::default()
        };
        let mut bytes = iba::build(&f, &payload).expect("valid packet");
        bytes.truncate(bytes.len() - 2); // the port adds the VCRC
        exp[vl as usize].push_back(bytes.clone());
        u.txq[vl as usize].push_back(bytes);
    };
    if rng.gen_range(0..1000) < t.offer_permille {
        let vl = rng.gen_range(0..u.vls) as u8;
        queue(vl, rng, u);
    }
    if rng.gen_range(0..1000) < t.vl15_permille {
        queue(15, rng, u);
    }
}

fn inputs(u: &UserSide, state: u8, rx: Option<LinkWord>, rng: &mut ChaCha8Rng, t: &Traffic) -> LinkPortIn {
    let mut i = LinkPortIn {
        link_state: state,
        src_data: u.src_word(),
        ..Default::default()
    };
    for v in 0..u.vls {
        if let Some(p) = u.txq[v].front() {
            i.txq_valid |= 1 << v;
            i.txq_len[v] = (p.len() / 4) as u16;
        }
    }
    if let Some(p) = u.txq[15].front() {
        i.vl15_valid = true;
        i.vl15_len = (p.len() / 4) as u16;
    }
    if let Some(w) = rx {
        w.drive_rx(&mut i);
    }
    // The higher layer drains its oldest packet every `drain_clocks` clocks.
    if u.drain_wait == 0 {
        if let Some((vl, blocks, _)) = u.rx_buf.front() {
            if *vl == 15 {
                i.vl15_drain = true;
            } else {
                i.drain = true;
                i.drain_vl = *vl;
                i.drain_blocks = *blocks;
            }
        }
    }
    let _ = (rng, t);
    i
}

/// The user side's response to the clock that just happened.
fn react(u: &mut UserSide, i: &LinkPortIn, o: &LinkPortOut, exp_in: &mut [VecDeque<Vec<u8>>], st: &mut BenchStats) {
    // Transmit: a read consumes the presented word; a pop starts the next packet.
    if o.src_rd {
        if let Some((_, k)) = &mut u.cur {
            *k += 1;
        }
    }
    if o.txq_pop != 0 {
        let v = o.txq_pop.trailing_zeros() as usize;
        let p = u.txq[v].pop_front().expect("popped a queue with a head");
        st.sent[v] += 1;
        u.cur = Some((p, 0));
    }
    if o.vl15_pop {
        let p = u.txq[15].pop_front().expect("popped VL15 with a head");
        st.sent[15] += 1;
        u.cur = Some((p, 0));
    }
    // Drain bookkeeping.
    if i.drain || i.vl15_drain {
        u.rx_buf.pop_front();
        u.drain_wait = 2;
    }
    u.drain_wait = u.drain_wait.saturating_sub(1);
    // Receive: words, then verdicts (done; commit/overrun a clock later).
    if let Some((vl, bytes)) = u.rx_judged.take() {
        if o.rx_commit {
            let blocks = ((bytes.len() - 2 - 8).div_ceil(64)) as u8;
            let want = exp_in[vl as usize].pop_front();
            if want.as_deref() == Some(&bytes[..bytes.len() - 2]) {
                st.delivered[vl as usize] += 1;
            } else {
                st.bad_delivery += 1;
            }
            u.rx_buf.push_back((vl, blocks, bytes));
        } else if o.rx_overrun {
            st.overruns += 1;
        }
    }
    if o.rx_out_abort {
        u.rx_cur.clear();
    }
    if o.rx_out_valid {
        if o.rx_out_sop {
            u.rx_cur.clear();
        }
        let n = if o.rx_out_eop { 8 - o.rx_out_keep.leading_zeros() as usize } else { u.width_bytes };
        for b in 0..n {
            u.rx_cur.push((o.rx_out_data >> (8 * b)) as u8);
        }
        if o.rx_out_eop {
            let vl = o.rx_out_vl;
            u.rx_wait.push_back((vl, std::mem::take(&mut u.rx_cur)));
        }
    }
    if o.rx_done {
        let (vl, bytes) = u.rx_wait.pop_front().expect("a verdict for a delivered packet");
        if o.rx_done_status == 0 {
            u.rx_judged = Some((vl, bytes));
        } else {
            st.bad_status += 1;
        }
    }
}

fn account(st: &mut BenchStats, o: &LinkPortOut, u: &UserSide, _last: &LinkPortOut) {
    if o.m_axis_phy_tvalid {
        st.busy_clocks += 1;
        if o.tx_link() && o.tx_start() {
            st.fcps_on_wire += 1;
        }
    }
    let _ = u;
}
