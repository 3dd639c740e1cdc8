//! The data-VL arbiter in all three back ends, and a random stimulus that plays the
//! port around it (queues, credit stalls, a link TX path taking packets, the subnet
//! manager rewriting tables and settings).
//!
//! RTL: [`iblink_rtl::vl_arb`]; reference: [`iblink_model::arbiter::VlArbiter`].

use crate::blocks::Backend;
use crate::blocks::{twin_box, SimBuildError};
use crate::CycleSim;
use iblink_model::arbiter::{ArbEntry, Grant, LowPolicy, TableId, VlArbiter};
use iblink_model::sl2vl::{VlCap, DATA_VLS};
use iblink_rtl::catalog::vl_arb_variant;
use iblink_rtl::tx_credits::MAX_VLS;
use iblink_rtl::vl_arb::{VlArbIn, VlArbOut, VlArbTwin, CONFIG_GAP, ENTRIES, HEAD_DELAY, TAKE_GAP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::Path;

/// Heads as the model takes them.
pub type Heads = [Option<u16>; DATA_VLS];

/// The reference [`VlArbiter`] as a cycle simulation, applying exactly the RTL's
/// documented latencies (`iblink_rtl::vl_arb`, "Cycle contract"):
/// * the offer at clock `t` is `peek` on the heads of clock `t - HEAD_DELAY`, shown only
///   when no take was made in the `TAKE_GAP - 1` clocks before and no configuration
///   change in the `CONFIG_GAP - 1` clocks before;
/// * a take of a shown offer commits `grant` on the same heads;
/// * then, in this order, the configuration of the same clock: `write_entry`,
///   `set_vl_high_limit` (when `vl_high_limit` differs from the clock before),
///   `set_low_policy`, `set_enabled` (when changed), `reset`.
///
/// At power-up every setting is as if its input had been 0 the clock before: VLHighLimit
/// 0, weight policy, no VL enabled.
pub struct ArbCycleModel {
    vls: usize,
    arb: VlArbiter,
    /// Heads of the last `HEAD_DELAY` clocks, oldest first.
    hist: VecDeque<Heads>,
    clock: u64,
    last_take: Option<u64>,
    last_config: Option<u64>,
    prev_limit: u8,
    prev_policy: bool,
    prev_enable: u16,
    committed: Option<Grant>,
    offer: Option<Grant>,
}

impl ArbCycleModel {
    pub fn new(vls: usize) -> Self {
        let cap = VlCap::new(vls as u64).expect("a VLCap the RTL is generated for");
        let mut arb = VlArbiter::new(cap, 0, LowPolicy::Weight);
        arb.set_enabled(0);
        Self {
            vls,
            arb,
            hist: vec![[None; DATA_VLS]; HEAD_DELAY].into(),
            clock: 0,
            last_take: None,
            last_config: None,
            prev_limit: 0,
            prev_policy: false,
            prev_enable: 0,
            committed: None,
            offer: None,
        }
    }

    pub fn vls(&self) -> usize {
        self.vls
    }
    /// The reference arbiter, as it stands after the last step.
    pub fn arbiter(&self) -> &VlArbiter {
        &self.arb
    }
    /// The grant committed by the last step's take, if any.
    pub fn committed(&self) -> Option<Grant> {
        self.committed
    }
    /// The offer shown during the last step.
    pub fn offer(&self) -> Option<Grant> {
        self.offer
    }

    /// The model's heads from one clock's inputs (VLs at or above VLCap are ignored).
    pub fn heads_of(&self, i: &VlArbIn) -> Heads {
        std::array::from_fn(|v| {
            (v < self.vls && i.head_valid >> v & 1 == 1).then_some(i.head_len[v] & 0x7ff)
        })
    }

    fn quiet(&self, last: Option<u64>, gap: usize) -> bool {
        match last {
            None => true,
            Some(c) => self.clock - c >= gap as u64,
        }
    }
}

/// The offer record for a model grant.
pub fn out_of(g: Option<Grant>) -> VlArbOut {
    match g {
        None => VlArbOut::default(),
        Some(g) => VlArbOut {
            offer_valid: true,
            vl: g.vl,
            low: g.table == TableId::Low,
            entry: g.entry,
            pkt_len: g.pkt_len,
            blocks: g.blocks,
            weight_left: g.weight_left as i16,
            high_counter: g.high_counter,
        },
    }
}

impl CycleSim for ArbCycleModel {
    type In = VlArbIn;
    type Out = VlArbOut;
    fn backend(&self) -> &str {
        "model"
    }
    fn step(&mut self, i: &VlArbIn) -> VlArbOut {
        let sampled = self.hist.pop_front().expect("HEAD_DELAY clocks of heads");
        let shown =
            self.quiet(self.last_take, TAKE_GAP) && self.quiet(self.last_config, CONFIG_GAP);
        self.offer = if shown { self.arb.peek(&sampled) } else { None };
        self.committed = None;
        if i.take && self.offer.is_some() {
            self.committed = self.arb.grant(&sampled);
            debug_assert_eq!(self.committed, self.offer);
            self.last_take = Some(self.clock);
        }
        let m = ((1u32 << self.vls) - 1) as u16;
        let enable = i.vl_enable & m;
        let config = i.wr_en
            || i.reset
            || i.vl_high_limit != self.prev_limit
            || i.one_packet != self.prev_policy
            || enable != self.prev_enable;
        if i.wr_en {
            let t = if i.wr_low {
                TableId::Low
            } else {
                TableId::High
            };
            let e = ArbEntry::new(i.wr_vl & 0xf, i.wr_weight);
            self.arb
                .write_entry(t, (i.wr_index & 0x3f) as usize, e)
                .expect("6-bit index");
        }
        if i.vl_high_limit != self.prev_limit {
            self.arb.set_vl_high_limit(i.vl_high_limit);
        }
        self.arb.set_low_policy(if i.one_packet {
            LowPolicy::OnePacket
        } else {
            LowPolicy::Weight
        });
        self.arb.set_enabled(enable);
        if i.reset {
            self.arb.reset();
        }
        if config {
            self.last_config = Some(self.clock);
        }
        (self.prev_limit, self.prev_policy, self.prev_enable) =
            (i.vl_high_limit, i.one_packet, enable);
        let h = self.heads_of(i);
        self.hist.push_back(h);
        self.clock += 1;
        out_of(self.offer)
    }
}

/// An offer in the trace format of [`Grant`]'s `Display` (`vl=6 table=high entry=0
/// blocks=64 weight_left=63 high_counter=3072`), for offers read off the RTL.
pub fn trace_line(o: &VlArbOut) -> String {
    format!(
        "vl={} table={} entry={} blocks={} weight_left={} high_counter={}",
        o.vl,
        if o.low { "low" } else { "high" },
        o.entry,
        o.blocks,
        o.weight_left,
        o.high_counter
    )
}

pub type VlArbSim = Box<dyn CycleSim<In = VlArbIn, Out = VlArbOut>>;

/// The arbiter for VLCap `vls` in back end `b`, optionally writing a VCD.
pub fn vl_arb_sim(vls: usize, b: Backend, vcd: Option<&Path>) -> Result<VlArbSim, SimBuildError> {
    if b == Backend::Model {
        if VlCap::new(vls as u64).is_err() {
            return Err(SimBuildError::VlCap(vls));
        }
        return Ok(Box::new(ArbCycleModel::new(vls)));
    }
    iblink_rtl::with_vl_arb!(vls, |T| twin_box::<_, T>(b, VlArbTwin::new(vls), || vl_arb_variant(vls), vcd),
        _ => Err(SimBuildError::VlCap(vls)))
}

/// Inputs that program one table entry in one clock (everything else idle).
pub fn write_input(low: bool, index: usize, e: ArbEntry) -> VlArbIn {
    VlArbIn {
        wr_en: true,
        wr_low: low,
        wr_index: index as u8,
        wr_vl: e.vl,
        wr_weight: e.weight,
        ..Default::default()
    }
}

/// How the stimulus's link TX path takes offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TakeMode {
    /// `take` every clock: every offer is taken the clock it shows (the earliest moment).
    Eager,
    /// A packet occupies the wire `4 + PktLen/64` clocks (at least the minimum 4); the
    /// next offer is taken at the first clock after it.
    Wire,
    /// `take` at random.
    Random,
    /// Nothing is taken for a while.
    Stall,
}

/// Random stimulus played against a shadow of the reference model (to know what was
/// taken): per-VL packet queues that fill and drain (idle periods included), credit
/// stalls that drop `head_valid` for a while, junk on the fields of VLs at or above
/// VLCap, takes in four styles (every clock, paced by packet length on the wire, random,
/// none for a while), the tables programmed at the start and rewritten entry by entry
/// (and sometimes all 128 entries back to back) while traffic flows — random VLs
/// including VL15 and VLs at or above VLCap, weight 0, small weights that packets
/// overdraw, the active entry itself — VLHighLimit 0, small, 1..254 and 255, policy and
/// enable changes, and resets.
pub struct VlArbStimulus {
    rng: ChaCha8Rng,
    vls: usize,
    shadow: ArbCycleModel,
    queues: Vec<VecDeque<u16>>,
    credit_ok: [bool; MAX_VLS],
    /// Mean packets arriving per VL every 100 clocks (changes now and then).
    load: u32,
    mode: TakeMode,
    mode_left: u32,
    busy: u32,
    /// Entries still to write in a whole-table rewrite: (low, index).
    rewrite: VecDeque<(bool, usize)>,
    limit: u8,
    one_packet: bool,
    enable: u16,
    /// Small weights for this phase (packets overdraw them often).
    small_weights: bool,
    /// Per table (high, low): the VLs its entries mostly name, and the percentage of
    /// entries with a weight.
    shape: [(u16, u32); 2],
}

impl VlArbStimulus {
    pub fn new(vls: usize, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let limit = rng.gen_range(0..=8);
        let mut s = Self {
            rng,
            vls,
            shadow: ArbCycleModel::new(vls),
            queues: vec![VecDeque::new(); MAX_VLS],
            credit_ok: [true; MAX_VLS],
            load: 30,
            mode: TakeMode::Eager,
            mode_left: 2000,
            busy: 0,
            rewrite: VecDeque::new(),
            limit,
            one_packet: false,
            enable: ((1u32 << vls) - 1) as u16,
            small_weights: false,
            shape: [(0, 100); 2],
        };
        // Program both tables first.
        s.reshape();
        s
    }

    /// An entry for a table: mostly a VL of the table's current set, weight 0 as often
    /// as the table's density says.
    fn random_entry(&mut self, low: bool) -> ArbEntry {
        let (set, density) = self.shape[low as usize];
        let r = &mut self.rng;
        let vl = match r.gen_range(0..20) {
            0 => 15,
            1 => r.gen_range(0..16),
            _ => loop {
                let v = r.gen_range(0..self.vls as u8);
                if set >> v & 1 == 1 {
                    break v;
                }
            },
        };
        let weight = if !r.gen_ratio(density, 100) {
            0
        } else {
            match r.gen_range(0..10) {
                0 => 255,
                1..=4 if self.small_weights => r.gen_range(1..=4),
                _ => r.gen_range(1..=255),
            }
        };
        ArbEntry::new(vl, weight)
    }

    /// A new shape for both tables (VL sets and densities) and a rewrite of all entries.
    fn reshape(&mut self) {
        let all = ((1u32 << self.vls) - 1) as u16;
        for t in 0..2 {
            let set = if self.rng.gen_ratio(1, 2) {
                all
            } else {
                self.rng.gen::<u16>() & all
            };
            let set = if set == 0 { 1 } else { set };
            let density = [3, 10, 40, 100][self.rng.gen_range(0..4)];
            self.shape[t] = (set, density);
        }
        self.rewrite = (0..2 * ENTRIES)
            .map(|k| (k >= ENTRIES, k % ENTRIES))
            .collect();
    }

    fn random_len(&mut self) -> u16 {
        match self.rng.gen_range(0..10) {
            0 => 6,
            1 => self.rng.gen_range(6..=40),
            2 => self.rng.gen_range(1049..=2047),
            3 => 1024,
            _ => self.rng.gen_range(6..=1048),
        }
    }

    /// Occasional changes of phase: load, take style, settings.
    fn phase(&mut self) {
        if self.mode_left == 0 {
            self.mode = match self.rng.gen_range(0..10) {
                0..=2 => TakeMode::Eager,
                3..=6 => TakeMode::Wire,
                7 | 8 => TakeMode::Random,
                _ => TakeMode::Stall,
            };
            self.mode_left = self.rng.gen_range(50..3000);
            self.load = [0, 2, 10, 30, 100, 100][self.rng.gen_range(0..6)];
            self.small_weights = self.rng.gen_ratio(1, 3);
        }
        self.mode_left -= 1;
        if self.rng.gen_ratio(1, 3000) {
            self.limit = match self.rng.gen_range(0..6) {
                0 => 0,
                1 => 255,
                2 => self.rng.gen_range(1..=254),
                _ => self.rng.gen_range(1..=3),
            };
        }
        if self.rng.gen_ratio(1, 4000) {
            self.one_packet = !self.one_packet;
        }
        if self.rng.gen_ratio(1, 5000) {
            let all = ((1u32 << self.vls) - 1) as u16;
            self.enable = if self.rng.gen_ratio(1, 2) {
                all
            } else {
                self.rng.gen::<u16>() & all
            };
        }
        if self.rewrite.is_empty() && self.rng.gen_ratio(1, 20_000) {
            // The subnet manager reprograms everything, back to back, while traffic flows.
            self.reshape();
        }
    }
}

impl Iterator for VlArbStimulus {
    type Item = VlArbIn;
    fn next(&mut self) -> Option<VlArbIn> {
        self.phase();
        let vls = self.vls;
        // Arrivals and credit stalls.
        for v in 0..vls {
            if self.rng.gen_ratio(self.load.min(100), 100 * vls as u32) && self.queues[v].len() < 8
            {
                let len = self.random_len();
                self.queues[v].push_back(len);
            }
            if self.rng.gen_ratio(1, 200) {
                self.credit_ok[v] = !self.credit_ok[v] || self.rng.gen_ratio(1, 2);
            }
        }
        let mut i = VlArbIn {
            vl_high_limit: self.limit,
            one_packet: self.one_packet,
            vl_enable: self.enable,
            ..Default::default()
        };
        for v in 0..MAX_VLS {
            let head = if v < vls {
                self.queues[v].front().copied()
            } else {
                None
            };
            match head {
                Some(len) if self.credit_ok[v] => {
                    i.head_valid |= 1 << v;
                    i.head_len[v] = len;
                }
                // Nothing to send (or no credits): the length is junk, to be ignored.
                _ => {
                    i.head_len[v] = self.rng.gen_range(0..2048);
                    if v >= vls && self.rng.gen() {
                        i.head_valid |= 1 << v;
                    }
                }
            }
        }
        // Table writes: a whole-table rewrite in progress, or a single one now and then.
        if let Some((low, index)) = self.rewrite.front().copied() {
            if self.rng.gen_ratio(9, 10) {
                self.rewrite.pop_front();
                let e = self.random_entry(low);
                (i.wr_en, i.wr_low, i.wr_index, i.wr_vl, i.wr_weight) =
                    (true, low, index as u8, e.vl, e.weight);
            }
        } else if self.rng.gen_ratio(1, 300) {
            let low = self.rng.gen();
            let e = self.random_entry(low);
            // Often the active entry itself (its remaining weight reloads).
            let index = if self.rng.gen_ratio(1, 3) {
                let t = if low { TableId::Low } else { TableId::High };
                self.shadow.arbiter().pointer(t).0 as usize
            } else {
                self.rng.gen_range(0..ENTRIES)
            };
            (i.wr_en, i.wr_low, i.wr_index, i.wr_vl, i.wr_weight) =
                (true, low, index as u8, e.vl, e.weight);
        } else {
            // Without wr_en the write fields are junk, to be ignored.
            (i.wr_low, i.wr_index, i.wr_vl, i.wr_weight) = (
                self.rng.gen(),
                self.rng.gen(),
                self.rng.gen(),
                self.rng.gen(),
            );
        }
        if self.rng.gen_ratio(1, 50_000) {
            i.reset = true;
        }
        // The link TX path.
        i.take = match self.mode {
            TakeMode::Eager => true,
            TakeMode::Wire => self.busy == 0,
            TakeMode::Random => self.rng.gen_ratio(1, 3),
            TakeMode::Stall => false,
        };
        if self.busy > 0 {
            self.busy -= 1;
        }
        self.shadow.step(&i);
        if let Some(g) = self.shadow.committed() {
            // Popped: the VL's next packet is its head from the next clock on.
            self.queues[g.vl as usize].pop_front();
            self.busy = 3 + g.pkt_len as u32 / 64;
        }
        Some(i)
    }
}
