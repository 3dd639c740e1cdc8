//! The reference model on the same scenario: two [`PortModel`]s joined by a wire of the
//! scenario's latency (items, not words: an item reaches the peer `latency` clocks after
//! its last byte left), the same generators (same sizes in the same order), the same
//! drain pacing, the same faults (an item's fate is keyed by what the item is, as in the
//! RTL run: [`super::faults`]), and the same link state machine (a failsafe trip at
//! either end, or a forced retrain, resets both ends, then LinkInitialize, LinkArm,
//! LinkActive). The model is item-level, so a run is compared with the RTL run by its
//! invariants and measurements ([`super::compare`]), never clock by clock.

use super::bins::bump;
use super::faults::FaultDraws;
use super::scenario::Scenario;
use super::traffic::{generators, DrainPacer};
use super::Fate;
use iblink_model::blocks::blocks_for_pkt_len;
use iblink_model::failsafe::ResyncReason;
use iblink_model::port::{LinkItem, LinkState, PortModel};
use std::collections::VecDeque;

/// What the model run measured, per direction `[AtoB, BtoA]` where it applies.
#[derive(Clone, Debug, Default)]
pub struct ModelSummary {
    pub window_clocks: u64,
    pub busy_clocks: [u64; 2],
    /// Per [`super::bins::BUSY_BIN`] clocks from clock 0: clocks measured, and busy
    /// clocks per direction.
    pub measured_bins: Vec<u32>,
    pub busy_bins: [Vec<u32>; 2],
    pub data_clocks: [u64; 2],
    pub fcp_clocks: [u64; 2],
    /// Data blocks sent per VL in the traffic phase.
    pub blocks_sent: [[u64; 16]; 2],
    pub generated: [u64; 2],
    pub delivered: [u64; 2],
    pub wire_loss: [u64; 2],
    /// Items the channel damaged (data: the model has no bytes, so a damaged packet is
    /// what the receiver's VCRC would discard: removed and counted here).
    pub corrupt: [u64; 2],
    pub overruns: [u64; 2],
    pub vl15_dropped: [u64; 2],
    pub resync_flushed: [u64; 2],
    pub in_flight: [u64; 2],
    /// FCPs the receiver discarded (LPCRC and the other decode errors).
    pub fcp_errors: [u64; 2],
    /// Retrains: (clock, port that tripped, why); forced ones have no reason.
    pub retrains: Vec<(u64, Option<(usize, ResyncReason)>)>,
    pub max_occupancy: [[u32; 16]; 2],
}

impl ModelSummary {
    pub fn utilisation(&self, d: usize) -> f64 {
        self.busy_clocks[d] as f64 / self.window_clocks.max(1) as f64
    }
    pub fn shares(&self, d: usize, vls: usize) -> Vec<f64> {
        let t: u64 = self.blocks_sent[d][..vls].iter().sum();
        self.blocks_sent[d][..vls].iter().map(|&b| b as f64 / t.max(1) as f64).collect()
    }
    pub fn drops(&self, d: usize) -> u64 {
        self.wire_loss[d] + self.corrupt[d] + self.overruns[d] + self.vl15_dropped[d] + self.resync_flushed[d]
    }
    /// generated = delivered + dropped + in flight, per direction.
    pub fn conserved(&self) -> bool {
        (0..2).all(|d| self.generated[d] == self.delivered[d] + self.drops(d) + self.in_flight[d])
    }
}

struct End {
    port: PortModel,
    /// The receive buffers as the bench sees them: PktLen per packet, per VL.
    rx: Vec<VecDeque<u16>>,
    vl15_held: u32,
    vl15_queued: usize,
    pacer: DrainPacer,
    tx_is_fcp: bool,
    /// Per VL (VL15 at 15): the fault-draw keys of the queued packets, oldest first.
    tx_keys: Vec<VecDeque<(usize, u64)>>,
    /// The fate of the item on the wire, decided when it started.
    tx_fate: Option<(Fate, u64)>,
}

/// Run the model for `cycles` traffic clocks and then at most `flush` clocks more until
/// nothing is in flight.
pub fn run_model(s: &Scenario, cycles: u64, flush: u64) -> ModelSummary {
    run_model_from(s, cycles, flush, 0)
}

/// A → B data utilisation (data clocks / clocks) of the model between `from` and `cycles`.
pub fn run_model_window(s: &Scenario, cycles: u64, from: u64) -> f64 {
    let m = run_model_from(s, cycles, 0, from);
    m.data_clocks[0] as f64 / m.window_clocks.max(1) as f64
}

fn run_model_from(s: &Scenario, cycles: u64, flush: u64, from: u64) -> ModelSummary {
    let vls = s.port.vl_cap.get() as usize;
    let wb = s.port.datapath_bytes as u64;
    let mut ends: Vec<End> = (0..2)
        .map(|side| End {
            port: PortModel::new(&s.port),
            rx: (0..16).map(|_| VecDeque::new()).collect(),
            vl15_held: 0,
            vl15_queued: 0,
            pacer: DrainPacer::new(s, side),
            tx_is_fcp: false,
            tx_keys: (0..16).map(|_| VecDeque::new()).collect(),
            tx_fate: None,
        })
        .collect();
    let lat = s.channel.latency_clocks;
    let mut wires: [VecDeque<Option<LinkItem>>; 2] = [(0..lat).map(|_| None).collect(), (0..lat).map(|_| None).collect()];
    let mut gens = generators(s);
    let mut draws = FaultDraws::new(s.seed);
    let mut m = ModelSummary::default();
    let mut init_left = s.activate_after;
    let mut arm_left = s.arm_clocks;
    let mut active_seen = false;
    let in_flight = |m: &ModelSummary, d: usize| m.generated[d] - m.delivered[d] - m.drops(d);
    let mut c = 0u64;
    loop {
        let traffic = c < cycles;
        if !traffic {
            let busy = (0..2).any(|d| in_flight(&m, d) > 0) || init_left + arm_left > 0;
            if !busy || c >= cycles + flush {
                break;
            }
        }
        // Link state machine.
        let state = if init_left > 0 {
            LinkState::Initialize
        } else if arm_left > 0 {
            LinkState::Arm
        } else {
            LinkState::Active
        };
        for e in &mut ends {
            if e.port.link_state() != state {
                e.port.set_link_state(state);
            }
        }
        if state == LinkState::Active {
            active_seen = true;
        }
        let measuring = traffic && active_seen && c >= from;
        if measuring {
            m.window_clocks += 1;
            bump(&mut m.measured_bins, c);
        }
        // Traffic.
        if traffic {
            for g in &mut gens {
                let e = &mut ends[g.side];
                let q = if g.vl == 15 { e.vl15_queued } else { e.port.txq_len(g.vl) };
                if let Some(len) = g.tick(wb, q) {
                    let ok = if g.vl == 15 { e.port.enqueue_vl15(len) } else { e.port.enqueue(g.vl, len) };
                    if ok.is_ok() {
                        e.tx_keys[g.vl as usize].push_back((g.index, g.made - 1));
                        m.generated[g.side] += 1;
                        if g.vl == 15 {
                            e.vl15_queued += 1;
                        }
                    }
                }
            }
        }
        // Drains (the higher layer, between clocks).
        for (side, e) in ends.iter_mut().enumerate() {
            let heads: Vec<Option<u16>> = (0..vls).map(|v| e.rx[v].front().copied()).collect();
            let (dv, d15) = e.pacer.tick(s, c, &heads, e.vl15_held > 0);
            if let Some(v) = dv {
                let len = e.rx[v as usize].pop_front().expect("head");
                let got = e.port.drain(v);
                debug_assert_eq!(got, Some(blocks_for_pkt_len(len)));
                m.delivered[1 - side] += 1;
            }
            if d15 && e.port.drain_vl15() {
                e.vl15_held -= 1;
                m.delivered[1 - side] += 1;
            }
        }
        // One clock of both ports.
        let (pf, pd, pb) = if traffic { s.probabilities(c) } else { (0.0, 0.0, 0.0) };
        let inputs = [wires[1].pop_front().flatten(), wires[0].pop_front().flatten()];
        let mut tripped = None;
        for side in 0..2 {
            let d_in = 1 - side; // the direction this port receives
            let e = &mut ends[side];
            let before = *e.port.stats();
            let out = e.port.step(inputs[side]);
            let after = *e.port.stats();
            // What the receiver did with its input.
            match inputs[side] {
                Some(LinkItem::Data { vl, pkt_len }) if after.data_received > before.data_received => {
                    e.rx[vl as usize].push_back(pkt_len);
                    let occ: u32 = e.rx[vl as usize].iter().map(|&l| blocks_for_pkt_len(l) as u32).sum();
                    if measuring {
                        m.max_occupancy[d_in][vl as usize] = m.max_occupancy[d_in][vl as usize].max(occ);
                    }
                }
                Some(LinkItem::Vl15 { .. }) if after.vl15_received > before.vl15_received => {
                    e.vl15_held += 1;
                    if measuring {
                        m.max_occupancy[d_in][15] = m.max_occupancy[d_in][15].max(e.vl15_held);
                    }
                }
                _ => {}
            }
            m.overruns[d_in] += after.overruns - before.overruns;
            m.vl15_dropped[d_in] += after.vl15_dropped - before.vl15_dropped;
            m.fcp_errors[d_in] += after.fcp_errors - before.fcp_errors;
            // The transmitter.
            if let Some(it) = out.started {
                e.tx_is_fcp = matches!(it, LinkItem::Fcp(_));
                if let LinkItem::Vl15 { .. } = it {
                    e.vl15_queued -= 1;
                }
                // The item's fate, from the probabilities as it starts (the RTL run
                // decides at its first word).
                e.tx_fate = Some(match it {
                    LinkItem::Fcp(b) => draws.fcp(side, [b[0], b[1], b[2], b[3]], pf, pb),
                    LinkItem::Data { vl, pkt_len } => {
                        let (g, k) = e.tx_keys[vl as usize].pop_front().expect("a queued packet started");
                        draws.data(side, g, k, pd, pb, (pkt_len as u64 * 4 + 2) * 8)
                    }
                    LinkItem::Vl15 { pkt_len } => {
                        let (g, k) = e.tx_keys[15].pop_front().expect("a queued VL15 packet started");
                        draws.data(side, g, k, pd, pb, (pkt_len as u64 * 4 + 2) * 8)
                    }
                });
            }
            if let Some(g) = out.grant {
                if measuring {
                    m.blocks_sent[side][g.vl as usize] += g.blocks as u64;
                }
            }
            if measuring && (e.port.busy() || out.tx.is_some()) {
                m.busy_clocks[side] += 1;
                bump(&mut m.busy_bins[side], c);
                if e.tx_is_fcp {
                    m.fcp_clocks[side] += 1;
                } else {
                    m.data_clocks[side] += 1;
                }
            }
            // The channel, per item: the fate decided as it started.
            let item = out.tx.and_then(|it| {
                let (fate, bit) = e.tx_fate.take().expect("a finished item started");
                match (it, fate) {
                    (_, Fate::Delivered) => Some(it),
                    (LinkItem::Fcp(_), Fate::Lost) => None,
                    (LinkItem::Fcp(mut b), Fate::Flipped) => {
                        b[bit as usize / 8] ^= 1 << (bit % 8);
                        Some(LinkItem::Fcp(b))
                    }
                    (_, Fate::Lost) => {
                        m.wire_loss[side] += 1;
                        None
                    }
                    (_, Fate::Flipped) => {
                        m.corrupt[side] += 1;
                        None
                    }
                }
            });
            wires[side].push_back(item);
            if let Some(r) = out.resync {
                // Both ends tripping in one clock is one retrain: keep port A's reason.
                tripped = tripped.or(Some((side, r)));
            }
        }
        let forced = traffic && s.resyncs.contains(&(c + 1));
        if tripped.is_some() || forced {
            for (side, e) in ends.iter_mut().enumerate() {
                if tripped.map(|t| t.0) != Some(side) {
                    e.port.resync();
                }
                for q in &mut e.rx {
                    q.clear();
                }
                e.vl15_held = 0;
                e.pacer.reset();
                e.tx_fate = None;
            }
            for w in &mut wires {
                for x in w.iter_mut() {
                    *x = None;
                }
            }
            // Everything in flight except the transmit queues is gone.
            for d in 0..2 {
                let queued: usize = (0..vls as u8).map(|v| ends[d].port.txq_len(v)).sum::<usize>() + ends[d].vl15_queued;
                m.resync_flushed[d] += in_flight(&m, d) - queued as u64;
            }
            m.retrains.push((c + 1, tripped));
            init_left = s.activate_after;
            arm_left = s.arm_clocks;
        } else if init_left > 0 {
            init_left -= 1;
        } else {
            arm_left = arm_left.saturating_sub(1);
        }
        c += 1;
    }
    for d in 0..2 {
        m.in_flight[d] = in_flight(&m, d);
    }
    m
}
