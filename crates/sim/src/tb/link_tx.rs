//! The link TX path's testbench: reactive random traffic (queues read as the block asks,
//! FCPs framed as it starts them, VL15, link state, resets, framer errors) in lockstep;
//! coverage from the model's inputs and outputs.

use crate::blocks::link_tx::{link_tx_sim, ItemKind, LinkTxModelSim, LinkTxStimulus};
use crate::blocks::SimBuildError;
use crate::tb::harness::{self, TbOptions};
use crate::tb::params::{Allowed, ParamSpec};
use crate::tb::report::{Gate, TbReport};
use crate::CycleSim;
use iblink_rtl::link_tx::{LinkTxIn, LinkTxOut};

pub const PARAMS: &[ParamSpec] = &[ParamSpec { name: "DATA_WIDTH", allowed: Allowed::Ints(&[32, 64]), default: "32", verilog: true, help: "link word bits" }];

/// The lockstep test's seed at `width` bits.
pub fn seed(width: usize) -> u64 {
    if width == 64 {
        0x1764
    } else {
        0x1732
    }
}

/// The kind docs/spec.md §5 says goes next, from what is ready: VL15 > FCP > data, data only
/// in LinkActive.
pub fn priority(i: &LinkTxIn) -> Option<ItemKind> {
    if i.vl15_valid {
        Some(ItemKind::Vl15)
    } else if i.fcp_pending {
        Some(ItemKind::Fcp)
    } else if i.offer_valid && i.link_active {
        Some(ItemKind::Data)
    } else {
        None
    }
}

/// How many kinds are ready.
pub fn ready_count(i: &LinkTxIn) -> u32 {
    i.vl15_valid as u32 + i.fcp_pending as u32 + (i.offer_valid && i.link_active) as u32
}

/// The item a clock's outputs start, if any.
pub fn started(o: &LinkTxOut) -> Option<ItemKind> {
    match (o.vl15_take, o.fcp_start, o.take) {
        (false, false, false) => None,
        (true, false, false) => Some(ItemKind::Vl15),
        (false, true, false) => Some(ItemKind::Fcp),
        (false, false, true) => Some(ItemKind::Data),
        _ => panic!("two start pulses in one clock: {o:?}"),
    }
}

/// Counts what the stimulus exercised, from the model's inputs and outputs.
#[derive(Default, Debug)]
pub struct Cov {
    pub starts: [u64; 3],
    /// `tx_sop` in the clock right after a `tx_eop`.
    pub back_to_back: u64,
    /// Packet endings: 64 bits odd PktLen (keep 0x3F) / even (keep 0x03); 32 bits VCRC word.
    pub odd_endings: u64,
    pub even_endings: u64,
    /// Starts with two / all three kinds ready.
    pub conflicts: u64,
    pub triple: u64,
    /// Boundaries where only data was offered but the link was not active.
    pub link_gated: u64,
    /// Resets asserted (rising edges), and those that cut an item.
    pub resets: u64,
    pub resets_mid_item: u64,
    in_reset: bool,
    pub framing_errors: u64,
    /// Idle stretches of at least 1000 clocks.
    pub long_idle: u64,
    idle_run: u64,
    pub long_packets: u64,
    /// Clocks the wire held a word (`tx_ready` low, docs/spec.md §10): of them a first
    /// word, a last word, a word inside an item, an FCP word; stalls of 100 clocks or more
    /// with a word waiting; 32 bits: clocks the framer's second FCP word waited
    /// (`fcp_ready` low).
    pub stalled: u64,
    pub stalled_first: u64,
    pub stalled_last: u64,
    pub stalled_mid: u64,
    pub stalled_fcp: u64,
    pub long_stalls: u64,
    stall_run: u64,
    pub fcp_second_held: u64,
    prev_moved: bool,
}

pub struct Covered {
    inner: LinkTxModelSim,
    pub cov: Cov,
    prev: LinkTxOut,
}

impl CycleSim for Covered {
    type In = LinkTxIn;
    type Out = LinkTxOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &LinkTxIn) -> LinkTxOut {
        let c = &mut self.cov;
        if i.reset && !c.in_reset {
            c.resets += 1;
            c.resets_mid_item += self.inner.busy() as u64;
        }
        c.in_reset = i.reset;
        let o = self.inner.step(i);
        if let Some(k) = started(&o) {
            c.starts[k as usize] += 1;
            let n = ready_count(i);
            c.conflicts += (n >= 2) as u64;
            c.triple += (n == 3) as u64;
            if k == ItemKind::Data && i.offer_len >= 1000 || k == ItemKind::Vl15 && i.vl15_len >= 1000 {
                c.long_packets += 1;
            }
        } else if self.inner.last_boundary && !i.reset && i.offer_valid && !i.link_active && !i.vl15_valid && !i.fcp_pending {
            c.link_gated += 1;
        }
        let tx = o.tx;
        c.back_to_back += (tx.sop && self.prev.tx.eop && c.prev_moved) as u64;
        c.prev_moved = tx.valid && i.tx_ready;
        if tx.valid && !i.tx_ready {
            c.stalled += 1;
            c.stalled_first += tx.sop as u64;
            c.stalled_last += tx.eop as u64;
            c.stalled_mid += (!tx.sop && !tx.eop) as u64;
            c.stalled_fcp += tx.link as u64;
            c.stall_run += 1;
            c.long_stalls += (c.stall_run == 100) as u64;
        } else {
            c.stall_run = 0;
        }
        c.fcp_second_held += (!o.fcp_ready && i.fcp_valid && !i.fcp_sop) as u64;
        if tx.valid && tx.eop && !tx.link {
            match tx.keep {
                0x3f => c.odd_endings += 1,
                _ => c.even_endings += 1,
            }
        }
        c.framing_errors += (o.fcp_framing_error && !self.prev.fcp_framing_error) as u64;
        if tx.valid {
            c.idle_run = 0;
        } else {
            c.idle_run += 1;
            c.long_idle += (c.idle_run == 1000) as u64;
        }
        self.prev = o;
        o
    }
}

pub fn run(width: usize, seed: u64, o: &TbOptions) -> Result<TbReport, SimBuildError> {
    let out = harness::run(
        "link_tx",
        o,
        || Covered { inner: LinkTxModelSim::new(width), cov: Cov::default(), prev: LinkTxOut::default() },
        |b, vcd| link_tx_sim(width, b, vcd),
        || LinkTxStimulus::new(width, seed),
        |s, p| s.next_input(p),
        None,
    )?;
    Ok(out.report(format!("link_tx w{width}"), seed, |m, _, _| {
        let c = &m.cov;
        let [vl15, fcp, data] = c.starts;
        let mut g = vec![
            Gate::at_least("VL15 items", vl15, 1000),
            Gate::at_least("FCP items", fcp, 5000),
            Gate::at_least("data items", data, 2000),
            Gate::at_least("back-to-back items", c.back_to_back, 10_000),
        ];
        if width == 64 {
            g.push(Gate::at_least("64-bit endings, odd PktLen", c.odd_endings, 2000));
            g.push(Gate::at_least("64-bit endings, even PktLen", c.even_endings, 2000));
        } else {
            g.push(Gate::exactly("0x3F endings (32 bits has none)", c.odd_endings, 0));
        }
        g.extend([
            Gate::at_least("priority conflicts", c.conflicts, 5000),
            Gate::at_least("  all three kinds ready", c.triple, 500),
            Gate::at_least("data held back outside LinkActive", c.link_gated, 1000),
            Gate::at_least("resets", c.resets, 20),
            Gate::at_least("  mid-item", c.resets_mid_item, 10),
            Gate::at_least("framer errors flagged", c.framing_errors, 5),
            Gate::at_least("idle gaps of 1000+ clocks", c.long_idle, 8),
            Gate::at_least("packets of 1000+ dwords", c.long_packets, 30),
            Gate::at_least("clocks a word waited for tx_ready", c.stalled, 100_000),
            Gate::at_least("  a first word", c.stalled_first, 2000),
            Gate::at_least("  a last word", c.stalled_last, 2000),
            Gate::at_least("  a word inside an item", c.stalled_mid, 10_000),
            Gate::at_least("  an FCP word", c.stalled_fcp, 1000),
            Gate::at_least("stalls of 100+ clocks", c.long_stalls, 20),
        ]);
        if width == 32 {
            g.push(Gate::at_least("FCP second words held by the framer", c.fcp_second_held, 200));
        }
        g
    }))
}
