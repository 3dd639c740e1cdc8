//! `iblink arb-trace`: the grant sequence a VLArbitrationTable produces for given queues,
//! so an engineer can check a table before programming it (docs/spec.md §6).
//!
//! The input is a port configuration (`vl_cap`, `vl_high_limit`, `low_policy`, `high`,
//! `low`, as `PortConfig` reads it) plus `[[queue]]` tables: `vl = N`,
//! `pktlen_dwords = [...]`. Every packet is present at the start and has credits.
//! [`trace_model`] asks the reference model's arbiter directly; [`trace_rtl`] drives the
//! arbiter RTL (`iblink_vl_arb_vl<N>`, stepper or Verilator) clock by clock, and prints
//! the same trace.

use crate::blocks::Backend;
use crate::blocks::vl_arb::vl_arb_sim;
use crate::blocks::SimBuildError;
use iblink_model::arbiter::{Grant, LowPolicy, TableId, VlArbiter};
use iblink_rtl::vl_arb::{VlArbIn, CONFIG_GAP, TAKE_GAP};
use iblink_model::blocks::{MAX_PKT_LEN, MIN_PKT_LEN};
use iblink_model::config::{ConfigError, PortConfig};
use iblink_model::sl2vl::DATA_VLS;
use std::collections::VecDeque;

/// A parsed, validated trace scenario.
#[derive(Clone, Debug)]
pub struct ArbScenario {
    pub config: PortConfig,
    /// Per data VL, the packets (LRH:PktLen, dwords) in queue order.
    pub queues: Vec<VecDeque<u16>>,
}

impl ArbScenario {
    /// Parse TOML; every error names the field it is about.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let mut table: toml::Table =
            toml::from_str(text).map_err(|e| ConfigError::toml(text, &e))?;
        let queue_items = table.remove("queue");
        // Everything else is the port configuration, with its own field-naming checks.
        let config = PortConfig::from_toml(&toml::to_string(&table).expect("a TOML table re-serialises"))?;
        let vl_cap = config.vl_cap.get() as i64;
        let mut queues = vec![VecDeque::new(); DATA_VLS];
        let items = match queue_items {
            None => vec![],
            Some(toml::Value::Array(a)) => a,
            Some(_) => return Err(ConfigError::field("queue", "must be an array of tables: [[queue]]")),
        };
        for (i, item) in items.iter().enumerate() {
            let t = item
                .as_table()
                .ok_or_else(|| ConfigError::field(format!("queue[{i}]"), "must be a table"))?;
            for k in t.keys() {
                if k != "vl" && k != "pktlen_dwords" {
                    return Err(ConfigError::field(format!("queue[{i}].{k}"), "unknown field (expected vl, pktlen_dwords)"));
                }
            }
            let vl = t
                .get("vl")
                .ok_or_else(|| ConfigError::field(format!("queue[{i}].vl"), "missing"))?
                .as_integer()
                .ok_or_else(|| ConfigError::field(format!("queue[{i}].vl"), "must be an integer"))?;
            if vl == 15 {
                return Err(ConfigError::field(format!("queue[{i}].vl"), "15 is VL15 (management), which the data VL arbiter does not serve"));
            }
            if !(0..vl_cap).contains(&vl) {
                return Err(ConfigError::field(format!("queue[{i}].vl"), format!("{vl} is out of range 0..={} (vl_cap {vl_cap})", vl_cap - 1)));
            }
            let lens = t
                .get("pktlen_dwords")
                .ok_or_else(|| ConfigError::field(format!("queue[{i}].pktlen_dwords"), "missing"))?
                .as_array()
                .ok_or_else(|| ConfigError::field(format!("queue[{i}].pktlen_dwords"), "must be an array of integers"))?;
            for (j, v) in lens.iter().enumerate() {
                let name = format!("queue[{i}].pktlen_dwords[{j}]");
                let n = v.as_integer().ok_or_else(|| ConfigError::field(&name, "must be an integer"))?;
                if n < MIN_PKT_LEN as i64 || n > MAX_PKT_LEN as i64 {
                    return Err(ConfigError::field(&name, format!("{n} is out of range {MIN_PKT_LEN}..={MAX_PKT_LEN} dwords")));
                }
                queues[vl as usize].push_back(n as u16);
            }
        }
        Ok(Self { config, queues })
    }

    /// A fresh arbiter programmed from the configuration.
    pub fn arbiter(&self) -> VlArbiter {
        let c = &self.config;
        let mut a = VlArbiter::new(c.vl_cap, c.vl_high_limit, c.low_policy);
        a.set_table(TableId::High, &c.high).expect("validated: at most 64 entries");
        a.set_table(TableId::Low, &c.low).expect("validated: at most 64 entries");
        a
    }

    /// Packets in all queues.
    pub fn packets(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

/// What a trace run produced.
#[derive(Clone, Debug)]
pub struct ArbTrace {
    pub grants: Vec<Grant>,
    /// Packets never granted, per VL (a VL in neither table, or only in skipped entries).
    pub stranded: Vec<(u8, usize)>,
}

/// Run the scenario through the reference model's arbiter until no packet is eligible.
pub fn trace_model(s: &ArbScenario) -> ArbTrace {
    let mut arb = s.arbiter();
    let mut queues = s.queues.clone();
    let mut grants = Vec::with_capacity(s.packets());
    loop {
        let heads: [Option<u16>; DATA_VLS] = std::array::from_fn(|v| queues[v].front().copied());
        match arb.grant(&heads) {
            Some(g) => {
                queues[g.vl as usize].pop_front();
                grants.push(g);
            }
            None => break,
        }
    }
    ArbTrace {
        grants,
        stranded: stranded(&queues),
    }
}

fn stranded(queues: &[VecDeque<u16>]) -> Vec<(u8, usize)> {
    queues
        .iter()
        .enumerate()
        .filter(|(_, q)| !q.is_empty())
        .map(|(v, q)| (v as u8, q.len()))
        .collect()
}

/// Clocks without an offer after which nothing is eligible any more: an eligible packet
/// is offered at most `TAKE_GAP` clocks after a take and `CONFIG_GAP` after the last
/// table write (`iblink_rtl::vl_arb`'s cycle contract); twice that, to be plain about it.
const QUIET_CLOCKS: usize = 2 * (TAKE_GAP + CONFIG_GAP);

/// Run the scenario through the arbiter RTL (`Backend::Rtl`: the Rust twin;
/// `Backend::Verilator`: the emitted Verilog; `Backend::Model`: the reference model in
/// its cycle adapter). The tables are written entry by entry through the write port with
/// VLHighLimit, the policy and every VL below VLCap enabled on the configuration inputs;
/// then every queue's head is shown with credits, the consumer takes every offer the
/// clock it shows, and a taken packet leaves its queue, so the VL's next packet is its
/// head from the next clock on. Ends when no offer has shown for a while; the grant
/// sequence equals [`trace_model`]'s.
pub fn trace_rtl(s: &ArbScenario, backend: Backend) -> Result<ArbTrace, SimBuildError> {
    let c = &s.config;
    let vls = c.vl_cap.get() as usize;
    let mut sim = vl_arb_sim(vls, backend, None)?;
    let base = VlArbIn {
        vl_high_limit: c.vl_high_limit,
        one_packet: c.low_policy == LowPolicy::OnePacket,
        vl_enable: ((1u32 << vls) - 1) as u16,
        ..Default::default()
    };
    for (low, table) in [(false, &c.high), (true, &c.low)] {
        for (k, e) in table.iter().enumerate() {
            sim.step(&VlArbIn {
                wr_en: true,
                wr_low: low,
                wr_index: k as u8,
                wr_vl: e.vl,
                wr_weight: e.weight,
                ..base
            });
        }
    }
    let mut queues = s.queues.clone();
    let mut grants = Vec::with_capacity(s.packets());
    let mut quiet = 0;
    while quiet < QUIET_CLOCKS {
        let mut i = VlArbIn { take: true, ..base };
        for (v, q) in queues.iter().enumerate().take(vls) {
            if let Some(&len) = q.front() {
                i.head_valid |= 1 << v;
                i.head_len[v] = len;
            }
        }
        let o = sim.step(&i);
        if !o.offer_valid {
            quiet += 1;
            continue;
        }
        quiet = 0;
        queues[o.vl as usize].pop_front();
        grants.push(Grant {
            vl: o.vl,
            table: if o.low { TableId::Low } else { TableId::High },
            entry: o.entry,
            pkt_len: o.pkt_len,
            blocks: o.blocks,
            weight_left: o.weight_left as i32,
            high_counter: o.high_counter,
        });
    }
    Ok(ArbTrace {
        grants,
        stranded: stranded(&queues),
    })
}
