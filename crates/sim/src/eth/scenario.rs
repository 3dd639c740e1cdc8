//! An Ethernet flow-control run described in TOML: the port configuration both ends are
//! built from, the wire's latency, per-priority traffic, the receivers' drain and its
//! stalls, and optionally a headroom sweep.
//!
//! ```toml
//! link = "ethernet"            # this file is an Ethernet scenario
//! cycles = 400000              # clocks of traffic (then a flush)
//! seed = 1
//! sample_every = 10000         # timeline window, clocks (`iblink sim --plot`)
//!
//! [port]                       # both ends (docs/spec.md §9; the keys of `iblink pfc trace`)
//! mode = "pfc"                 # or "pause"
//! datapath_bits = 64
//! zero_quanta_on_release = true
//! refresh_quanta = 200
//! tx_queue_bytes = 8192        # per queue (default 8192)
//! [[port.queue]]
//! priorities = 0x01
//! pause_quanta = 1000
//! threshold = { size_bytes = 16384, rfa_bytes = 8192, rfd_bytes = 4096 }
//! # buffer_bytes = 16384       # the receive buffer, needed without a threshold
//!
//! [wire]
//! latency_clocks = 100         # each way
//! mac_overhead_bytes = 20      # preamble, SFD and inter-frame gap a frame (default 20; 0: none)
//!
//! [[traffic]]
//! priority = 0                 # the PCP its frames carry
//! frame_bytes = 1522           # N | { uniform = [a, b] }, 64..=1522, FCS and tag included
//! load = 1000                  # per mille of the link's bytes offered
//! direction = "a_to_b"         # a_to_b | b_to_a | both
//!
//! [drain]
//! rate = 1000                  # per mille of the link's bytes each queue's reader takes, or a list per queue
//! [[drain.stall]]              # readers that take nothing for a while
//! from = 100000
//! to = 200000
//! side = "b"                   # a | b | both (the receiving end)
//! queues = [0]                 # default: every queue
//!
//! [sweep]                      # optional: run every (latency, headroom) pair instead
//! latency_clocks = [100, 1000]
//! headroom_bytes = [2048, 4096, 8192]   # size_bytes - rfa_bytes of every queue with a threshold
//! ```
//!
//! Errors name the field (`port.queue[1].priorities`, `traffic[0].frame_bytes.uniform`).

use crate::pfc_trace::{int, need, only_keys, pfc_fields, tables, under};
use iblink_model::config::ConfigError;
use iblink_model::eth_port::{EthPortConfig, MAX_FRAME_BYTES};

/// An Ethernet MAC's line time a frame besides the frame: preamble and SFD (8 bytes) and
/// the minimum inter-frame gap (12 bytes), IEEE 802.3 clause 4.4.2.
pub const MAC_OVERHEAD_BYTES: u32 = 20;
/// The shortest frame a generator makes: a minimum Ethernet frame.
pub const MIN_FRAME_BYTES: u32 = 64;
/// The largest clock a stall window may name.
const MAX_CLOCK: i64 = 1_000_000_000_000;
/// Source addresses of the two ends.
pub const SA: [[u8; 6]; 2] = [[0x02, 0, 0, 0, 0, 0x0a], [0x02, 0, 0, 0, 0, 0x0b]];

/// Frame sizes of a generator, bytes on the wire (FCS and tag included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameSize {
    Fixed(u32),
    Uniform(u32, u32),
}

/// Which end(s) something belongs to: a generator's sender, a stall's receiver.
pub use crate::system::scenario::Sides;

#[derive(Clone, Debug, PartialEq)]
pub struct EthTraffic {
    pub priority: u8,
    pub size: FrameSize,
    /// Per mille of the link's bytes.
    pub load: u32,
    /// The sending end(s).
    pub from: Sides,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stall {
    pub from: u64,
    pub to: u64,
    /// The receiving end(s).
    pub side: Sides,
    /// Bit q: queue q.
    pub queues: u8,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub latency_clocks: Vec<u32>,
    pub headroom_bytes: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct EthScenario {
    pub name: String,
    pub cycles: u64,
    pub seed: u64,
    /// Clocks of a timeline window (`--plot`): throughput, fill, per window.
    pub sample_every: u64,
    /// Port A's configuration; port B's is the same with its own source address.
    pub port: EthPortConfig,
    pub latency_clocks: u32,
    /// Bytes of line time the MAC spends on each frame besides its own (preamble, SFD and
    /// the inter-frame gap: 20 on Ethernet), during which it holds the port's `tx_ready`
    /// low (docs/spec.md §10).
    pub mac_overhead_bytes: u32,
    pub traffic: Vec<EthTraffic>,
    /// Per queue, per mille of the link's bytes.
    pub drain_rate: Vec<u32>,
    pub stalls: Vec<Stall>,
    pub sweep: Option<Sweep>,
}

const TOP_KEYS: &[&str] = &["link", "name", "cycles", "seed", "sample_every", "port", "wire", "traffic", "drain", "sweep"];
const PORT_KEYS: &[&str] = &["mode", "datapath_bits", "zero_quanta_on_release", "refresh_quanta", "tx_queue_bytes", "queue"];
const TRAFFIC_KEYS: &[&str] = &["priority", "frame_bytes", "load", "direction"];
const DRAIN_KEYS: &[&str] = &["rate", "stall"];
const STALL_KEYS: &[&str] = &["from", "to", "side", "queues"];

/// Whether a scenario file is an Ethernet one (top-level `link = "ethernet"`).
pub fn is_ethernet(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).ok().and_then(|t| t.get("link").and_then(|v| v.as_str().map(|s| s == "ethernet"))).unwrap_or(false)
}

fn table<'a>(v: Option<&'a toml::Value>, name: &str) -> Result<Option<&'a toml::Table>, ConfigError> {
    v.map(|v| v.as_table().ok_or_else(|| ConfigError::field(name, "must be a table"))).transpose()
}

fn sides(v: Option<&toml::Value>, name: &str, default: Sides, ab: [&str; 3]) -> Result<Sides, ConfigError> {
    match v {
        None => Ok(default),
        Some(v) => match v.as_str() {
            Some(s) if s == ab[0] => Ok(Sides::A),
            Some(s) if s == ab[1] => Ok(Sides::B),
            Some(s) if s == ab[2] => Ok(Sides::Both),
            _ => Err(ConfigError::field(name, format!("must be \"{}\", \"{}\" or \"{}\"", ab[0], ab[1], ab[2]))),
        },
    }
}

fn int_list(v: &toml::Value, name: &str, lo: i64, hi: i64) -> Result<Vec<i64>, ConfigError> {
    let a = v.as_array().ok_or_else(|| ConfigError::field(name, "must be a list of integers"))?;
    a.iter()
        .enumerate()
        .map(|(i, x)| {
            let n = x.as_integer().ok_or_else(|| ConfigError::field(format!("{name}[{i}]"), "must be an integer"))?;
            if n < lo || n > hi {
                return Err(ConfigError::field(format!("{name}[{i}]"), format!("{n} is out of range {lo}..={hi}")));
            }
            Ok(n)
        })
        .collect()
}

impl EthScenario {
    pub fn from_file(path: &std::path::Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Toml(format!("reading: {e}")))?;
        let mut s = Self::from_toml(&text)?;
        if s.name.is_empty() {
            s.name = path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        }
        Ok(s)
    }

    /// Parse and check; every error names its field.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let top: toml::Table = toml::from_str(text).map_err(|e| ConfigError::toml(text, &e))?;
        only_keys(&top, "", TOP_KEYS)?;
        match need(top.get("link"), "link")?.as_str() {
            Some("ethernet") => {}
            _ => return Err(ConfigError::field("link", "must be \"ethernet\" in an Ethernet scenario")),
        }
        let name = match top.get("name") {
            None => String::new(),
            Some(v) => v.as_str().ok_or_else(|| ConfigError::field("name", "must be a string"))?.to_string(),
        };
        let cycles = need(int(&top, "", "cycles", 1, 1_000_000_000)?, "cycles")? as u64;
        let seed = int(&top, "", "seed", 0, i64::MAX)?.unwrap_or(1) as u64;
        let sample_every = int(&top, "", "sample_every", 1, i64::MAX)?.unwrap_or(10_000) as u64;

        let pt = table(top.get("port"), "port")?.ok_or_else(|| ConfigError::field("port", "missing"))?;
        only_keys(pt, "port", PORT_KEYS)?;
        let (pfc, qts) = pfc_fields(pt, "port", SA[0], &["buffer_bytes"])?;
        let tx_queue_bytes = int(pt, "port", "tx_queue_bytes", 0, u32::MAX as i64)?.unwrap_or(8192) as u32;
        let mut rx_buffer_bytes = vec![];
        for (i, (q, t)) in pfc.queues.iter().zip(&qts).enumerate() {
            let at = format!("port.queue[{i}]");
            let b = int(t, &at, "buffer_bytes", 0, u32::MAX as i64)?.map(|b| b as u32);
            rx_buffer_bytes.push(match (b, q.threshold) {
                (Some(b), _) => b,
                (None, Some(th)) => th.size_bytes,
                (None, None) => return Err(ConfigError::field(format!("{at}.buffer_bytes"), "missing (a queue without a threshold needs its size)")),
            });
        }
        let port = EthPortConfig { pfc, rx_buffer_bytes, tx_queue_bytes };
        port.validate().map_err(|e| under("port", e))?;
        let nq = port.pfc.queues.len();

        let wire = table(top.get("wire"), "wire")?.ok_or_else(|| ConfigError::field("wire", "missing"))?;
        only_keys(wire, "wire", &["latency_clocks", "mac_overhead_bytes"])?;
        let latency_clocks = need(int(wire, "wire", "latency_clocks", 1, 1_000_000)?, "wire.latency_clocks")? as u32;
        let mac_overhead_bytes = int(wire, "wire", "mac_overhead_bytes", 0, 1_000)?.unwrap_or(MAC_OVERHEAD_BYTES as i64) as u32;

        let mut traffic = vec![];
        for (i, t) in tables(top.get("traffic"), "traffic")?.iter().enumerate() {
            let at = format!("traffic[{i}]");
            only_keys(t, &at, TRAFFIC_KEYS)?;
            let priority = need(int(t, &at, "priority", 0, 7)?, &format!("{at}.priority"))? as u8;
            let fb = format!("{at}.frame_bytes");
            let (lo, hi) = (MIN_FRAME_BYTES as i64, MAX_FRAME_BYTES as i64);
            let size = match need(t.get("frame_bytes"), &fb)? {
                toml::Value::Integer(_) => FrameSize::Fixed(int(t, &at, "frame_bytes", lo, hi)?.unwrap() as u32),
                toml::Value::Table(u) => {
                    only_keys(u, &fb, &["uniform"])?;
                    let r = int_list(need(u.get("uniform"), &format!("{fb}.uniform"))?, &format!("{fb}.uniform"), lo, hi)?;
                    if r.len() != 2 || r[0] > r[1] {
                        return Err(ConfigError::field(format!("{fb}.uniform"), "must be [low, high] with low <= high"));
                    }
                    FrameSize::Uniform(r[0] as u32, r[1] as u32)
                }
                _ => return Err(ConfigError::field(fb, "must be an integer or { uniform = [a, b] }")),
            };
            let load = int(t, &at, "load", 1, 1000)?.unwrap_or(1000) as u32;
            let from = sides(t.get("direction"), &format!("{at}.direction"), Sides::A, ["a_to_b", "b_to_a", "both"])?;
            let q = port.queue_of(priority);
            if port.pfc.queues[q].priorities >> priority & 1 == 0 {
                return Err(ConfigError::field(format!("{at}.priority"), format!("{priority} is in no port.queue[].priorities")));
            }
            if let Some(j) = traffic.iter().position(|o: &EthTraffic| port.queue_of(o.priority) == q && (o.from == from || o.from == Sides::Both || from == Sides::Both)) {
                return Err(ConfigError::field(
                    format!("{at}.priority"),
                    format!("queue {q} already has traffic[{j}] in that direction (one generator a queue)"),
                ));
            }
            traffic.push(EthTraffic { priority, size, load, from });
        }

        let mut drain_rate = vec![1000; nq];
        let mut stalls = vec![];
        if let Some(d) = table(top.get("drain"), "drain")? {
            only_keys(d, "drain", DRAIN_KEYS)?;
            match d.get("rate") {
                None => {}
                Some(toml::Value::Integer(_)) => drain_rate = vec![int(d, "drain", "rate", 0, 1000)?.unwrap() as u32; nq],
                Some(v) => {
                    let r = int_list(v, "drain.rate", 0, 1000)?;
                    if r.len() != nq {
                        return Err(ConfigError::field("drain.rate", format!("{} rates for {nq} queues", r.len())));
                    }
                    drain_rate = r.into_iter().map(|x| x as u32).collect();
                }
            }
            for (i, st) in tables(d.get("stall"), "drain.stall")?.iter().enumerate() {
                let at = format!("drain.stall[{i}]");
                only_keys(st, &at, STALL_KEYS)?;
                let from = need(int(st, &at, "from", 0, MAX_CLOCK - 1)?, &format!("{at}.from"))? as u64;
                let to = need(int(st, &at, "to", from as i64 + 1, MAX_CLOCK)?, &format!("{at}.to"))? as u64;
                let side = sides(st.get("side"), &format!("{at}.side"), Sides::Both, ["a", "b", "both"])?;
                let queues = match st.get("queues") {
                    None => ((1u16 << nq) - 1) as u8,
                    Some(v) => int_list(v, &format!("{at}.queues"), 0, nq as i64 - 1)?.iter().fold(0u8, |m, &q| m | 1 << q),
                };
                stalls.push(Stall { from, to, side, queues });
            }
        }

        let sweep = match table(top.get("sweep"), "sweep")? {
            None => None,
            Some(t) => {
                only_keys(t, "sweep", &["latency_clocks", "headroom_bytes"])?;
                let l = int_list(need(t.get("latency_clocks"), "sweep.latency_clocks")?, "sweep.latency_clocks", 1, 1_000_000)?;
                let h = int_list(need(t.get("headroom_bytes"), "sweep.headroom_bytes")?, "sweep.headroom_bytes", 1, 65535)?;
                // A sweep runs every (latency, headroom) pair: an empty list is no sweep.
                for (list, name) in [(&l, "sweep.latency_clocks"), (&h, "sweep.headroom_bytes")] {
                    if list.is_empty() {
                        return Err(ConfigError::field(name, "is empty: a sweep needs at least one value"));
                    }
                }
                if !port.pfc.queues.iter().any(|q| q.threshold.is_some()) {
                    return Err(ConfigError::field("sweep", "no port.queue has a threshold to sweep"));
                }
                for (i, &x) in h.iter().enumerate() {
                    if x % 8 != 0 {
                        return Err(ConfigError::field(format!("sweep.headroom_bytes[{i}]"), format!("{x} is not a whole number of 8-byte words")));
                    }
                }
                Some(Sweep { latency_clocks: l.into_iter().map(|x| x as u32).collect(), headroom_bytes: h.into_iter().map(|x| x as u32).collect() })
            }
        };
        let s = Self { name, cycles, seed, sample_every, port, latency_clocks, mac_overhead_bytes, traffic, drain_rate, stalls, sweep };
        if let Some(sw) = &s.sweep {
            for (i, &h) in sw.headroom_bytes.iter().enumerate() {
                s.at_point(sw.latency_clocks[0], h).map_err(|e| ConfigError::field(format!("sweep.headroom_bytes[{i}]"), format!("{h}: {e}")))?;
            }
        }
        Ok(s)
    }

    /// Port `side`'s configuration (its own source address).
    pub fn port_config(&self, side: usize) -> EthPortConfig {
        let mut c = self.port.clone();
        c.pfc.sa = SA[side];
        c
    }

    /// The scenario at one sweep point: every queue with a threshold keeps its RFA and
    /// RFD and gets `size_bytes = RFA + headroom`.
    pub fn at_point(&self, latency_clocks: u32, headroom_bytes: u32) -> Result<Self, ConfigError> {
        let mut s = self.clone();
        s.sweep = None;
        s.latency_clocks = latency_clocks;
        for (q, b) in s.port.pfc.queues.iter_mut().zip(&mut s.port.rx_buffer_bytes) {
            if let Some(t) = &mut q.threshold {
                t.size_bytes = t.rfa_bytes + headroom_bytes;
                *b = t.size_bytes;
            }
        }
        s.port.validate().map_err(|e| under("port", e))?;
        Ok(s)
    }
}
