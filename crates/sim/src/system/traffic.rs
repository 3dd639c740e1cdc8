//! Traffic and the receive side's higher layer, shared by the RTL and model runs so both
//! see the same packet sizes in the same order: per-SL generators (sizes fixed, uniform
//! or a list; a load in per mille of the link's bytes) and per-VL drain pacing with
//! stall windows.

use super::scenario::{Scenario, SizeDist, TrafficSpec};
use iblink_model::blocks::blocks_for_pkt_len;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One generator: an SL's packets in one direction.
pub struct Generator {
    pub sl: u8,
    pub vl: u8,
    /// 0: port A transmits.
    pub side: usize,
    /// Its place in [`generators`]' list: with [`Self::made`], a packet's identity
    /// across runs of the scenario.
    pub index: usize,
    /// Packets handed out so far (the next one is number `made`).
    pub made: u64,
    spec: TrafficSpec,
    rng: ChaCha8Rng,
    list_at: usize,
    /// Bytes of the link's rate earned and not yet spent.
    tokens: u64,
    next: u16,
}

/// Wire bytes of a data packet: PktLen dwords and the 2-byte VCRC.
pub fn wire_bytes(pkt_len: u16) -> u64 {
    pkt_len as u64 * 4 + 2
}

impl Generator {
    fn new(spec: &TrafficSpec, vl: u8, side: usize, index: usize, seed: u64) -> Self {
        let mut g = Self {
            sl: spec.sl,
            vl,
            side,
            index,
            made: 0,
            spec: spec.clone(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            list_at: 0,
            tokens: 0,
            next: 0,
        };
        g.next = g.draw();
        g
    }

    fn draw(&mut self) -> u16 {
        match &self.spec.pktlen {
            SizeDist::Fixed(n) => *n,
            SizeDist::Uniform(a, b) => self.rng.gen_range(*a..=*b),
            SizeDist::List(l) => {
                let n = l[self.list_at % l.len()];
                self.list_at += 1;
                n
            }
        }
    }

    /// One clock: earn this clock's share of `bytes_per_clock` and return the PktLen of a
    /// new packet if one is due and the VL's transmit queue (`queued` packets) has room.
    /// A generator whose queue is full waits (the source is back-pressured, nothing is lost).
    pub fn tick(&mut self, bytes_per_clock: u64, queued: usize) -> Option<u16> {
        let saturate = self.spec.load_permille >= 1000;
        let need = wire_bytes(self.next) * 1000;
        if !saturate {
            // Tokens in thousandths of a byte; a full queue stops earning beyond one packet.
            self.tokens = (self.tokens + bytes_per_clock * self.spec.load_permille as u64).min(need.max(1) * 2);
        }
        if queued >= self.spec.queue_limit || (!saturate && self.tokens < need) {
            return None;
        }
        if !saturate {
            self.tokens -= need;
        }
        let n = self.next;
        self.next = self.draw();
        self.made += 1;
        Some(n)
    }
}

/// Every generator of a scenario, seeded from the scenario's seed (generator `i`'s
/// stream does not depend on the back end, so the RTL and model runs queue the same sizes).
pub fn generators(s: &Scenario) -> Vec<Generator> {
    let mut out = vec![];
    for (i, t) in s.traffic.iter().enumerate() {
        for side in [0, 1] {
            if t.direction.has(side) {
                let seed = s.seed.wrapping_mul(0x9e37_79b9).wrapping_add((i as u64) << 1 | side as u64);
                let index = out.len();
                out.push(Generator::new(t, s.vl_of(t.sl), side, index, seed));
            }
        }
    }
    out
}

/// The higher layer at one receiver: which VL's head packet it takes this clock.
pub struct DrainPacer {
    side: usize,
    rate: Vec<u32>,
    acc: [u64; 16],
    rr: usize,
    vl15_every: u32,
    vl15_wait: u32,
}

impl DrainPacer {
    pub fn new(s: &Scenario, side: usize) -> Self {
        Self {
            side,
            rate: s.drain.rate.clone(),
            acc: [0; 16],
            rr: 0,
            vl15_every: s.drain.vl15_every.max(1),
            vl15_wait: 0,
        }
    }

    /// Forget progress (a retrain emptied the buffers).
    pub fn reset(&mut self) {
        self.acc = [0; 16];
        self.vl15_wait = 0;
    }

    /// One clock. `heads[v]`: PktLen of the oldest packet held for data VL `v`. Returns the
    /// data VL to drain (at most one a clock: the port takes one drain a clock), and
    /// whether to take a VL15 packet (when one is held).
    pub fn tick(&mut self, s: &Scenario, clock: u64, heads: &[Option<u16>], vl15_held: bool) -> (Option<u8>, bool) {
        let n = heads.len();
        let mut ready = [false; 16];
        for v in 0..n {
            match heads[v] {
                Some(len) if !s.stalled(self.side, v as u8, clock) => {
                    let need = blocks_for_pkt_len(len) as u64 * 64;
                    if self.rate[v] == 0 {
                        ready[v] = true;
                    } else {
                        self.acc[v] = (self.acc[v] + self.rate[v] as u64).min(need);
                        ready[v] = self.acc[v] >= need;
                    }
                }
                Some(_) => {}
                None => self.acc[v] = 0,
            }
        }
        let mut pick = None;
        for k in 0..n {
            let v = (self.rr + k) % n;
            if ready[v] {
                pick = Some(v as u8);
                self.rr = (v + 1) % n;
                self.acc[v] = 0;
                break;
            }
        }
        let mut vl15 = false;
        self.vl15_wait = self.vl15_wait.saturating_sub(1);
        if vl15_held && self.vl15_wait == 0 && !s.stalled(self.side, 15, clock) {
            vl15 = true;
            self.vl15_wait = self.vl15_every;
        }
        (pick, vl15)
    }
}
