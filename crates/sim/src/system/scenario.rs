//! A two-port run described in TOML: the port configuration both ends are generated
//! from, the channel between them (latency, losses, bit flips, fault windows, forced
//! retrains), per-SL traffic generators, SL→VL mapping and the receive-side drain.
//!
//! ```toml
//! cycles = 1000000          # clocks of traffic (then a flush with no new packets)
//! seed = 1
//! activate_after = 600      # clocks in LinkInitialize (init FCPs) after power-up or a retrain
//! arm_clocks = 64           # then clocks in LinkArm before LinkActive
//! sample_every = 10000      # timeline window, clocks
//! sl2vl = [0, 1, 2, 3]      # SL0.. -> VL (missing SLs: SL mod VLCap); SL15 is VL15
//!
//! [port]                    # iblink_model::config::PortConfig keys (vl_cap, ...)
//! vl_cap = 4
//!
//! [channel]
//! latency_clocks = 8        # each way
//! fcp_loss = 0.0            # probability per FCP
//! data_loss = 0.0           # probability per data / VL15 packet
//! bit_flip = 0.0            # probability per item of one flipped bit
//!
//! [wire]                    # the PHY under each port's transmit stream (docs/spec.md §10)
//! phy_stall = "skip"        # tx_ready low 1 clock every 4608 symbol times (a SKIP ordered
//!                           # set: 1152 clocks at 32 bits, 576 at 64); "none" never stalls;
//!                           # { every_clocks = N, clocks = K }: K clocks low every N (B's
//!                           # phase half a period after A's)
//!
//! [[fault]]                 # a window that overrides the channel's probabilities
//! from = 100000
//! to = 300000
//! fcp_loss = 0.5
//! suppress_fcps = true      # every FCP lost (same as fcp_loss = 1)
//!
//! [[resync]]                # a forced link retrain at a clock
//! at = 500000
//!
//! [[traffic]]
//! sl = 0
//! pktlen = 64               # LRH:PktLen in dwords: N | { uniform = [a, b] } | [list, cycled]
//! load = 1000               # per mille of the link's bytes; >= 1000 keeps the queue full
//! direction = "both"        # a_to_b | b_to_a | both
//! queue_limit = 8           # packets waiting in the user's transmit queue
//!
//! [drain]
//! rate = 0                  # bytes a clock per VL (0 = as fast as the port takes drains), or a list per VL
//! vl15_every = 1            # clocks between VL15 drains
//! [[drain.stall]]
//! from = 200000
//! to = 400000
//! side = "b"                # a | b | both (the receiving end)
//! vls = [0, 1]              # default: every VL, VL15 included
//! ```
//!
//! Errors name the field (`traffic[2].pktlen.uniform`, `channel.fcp_loss`, `port.vl_cap`).

use iblink_model::config::{ConfigError, PortConfig};
use iblink_model::sl2vl::VL15;
use toml::Value;

/// Which end(s) a generator or a drain setting belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// Port A's transmitter (traffic) / receiver (drain).
    A,
    B,
    Both,
}

impl Sides {
    pub fn has(self, side: usize) -> bool {
        matches!((self, side), (Sides::Both, _) | (Sides::A, 0) | (Sides::B, 1))
    }
}

/// Packet sizes of one generator, LRH:PktLen in dwords (6..=1048).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeDist {
    Fixed(u16),
    Uniform(u16, u16),
    /// Used in order, cycled.
    List(Vec<u16>),
}

/// One traffic generator (per SL, per direction).
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficSpec {
    pub sl: u8,
    pub pktlen: SizeDist,
    /// Per mille of the link's byte rate (wire bytes, VCRC included); >= 1000 saturates
    /// (the queue is topped up every clock).
    pub load_permille: u32,
    /// `A`: port A sends (a_to_b).
    pub direction: Sides,
    pub queue_limit: usize,
}

/// A window of clocks `[from, to)` whose channel probabilities replace the base ones.
#[derive(Clone, Debug, PartialEq)]
pub struct FaultWindow {
    pub from: u64,
    pub to: u64,
    pub fcp_loss: Option<f64>,
    pub data_loss: Option<f64>,
    pub bit_flip: Option<f64>,
    pub suppress_fcps: bool,
}

/// The channel between the ports (both directions alike).
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelSpec {
    pub latency_clocks: usize,
    pub fcp_loss: f64,
    pub data_loss: f64,
    pub bit_flip: f64,
}

impl Default for ChannelSpec {
    fn default() -> Self {
        Self {
            latency_clocks: 4,
            fcp_loss: 0.0,
            data_loss: 0.0,
            bit_flip: 0.0,
        }
    }
}

/// The PHY's stalls of each port's transmit wire (`[wire] phy_stall`): `tx_ready` low
/// while the PHY sends its own symbols (an IB PHY's SKIP ordered sets), docs/spec.md §10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PhyStall {
    /// The default (`"skip"`): one clock every [`SKIP_SYMBOLS`] symbol times, as a PHY
    /// inserting a SKIP ordered set (4 symbols a lane, less than a clock's line time at
    /// either width, so one clock) that often.
    #[default]
    Skip,
    /// `{ every_clocks = N, clocks = K }`: `tx_ready` low for `K` clocks every `N`.
    Every { every_clocks: u64, clocks: u64 },
    /// `"none"`: a wire that never stalls.
    None,
}

/// Symbol times between the SKIP ordered sets of the default PHY (the interval IBA's
/// physical layer gives for clock compensation; a symbol time is a byte, docs/spec.md §1).
pub const SKIP_SYMBOLS: u64 = 4608;

impl PhyStall {
    /// `(every_clocks, clocks)` at `width_bytes` a clock; `None` for a wire that never stalls.
    pub fn period(&self, width_bytes: u64) -> Option<(u64, u64)> {
        match *self {
            PhyStall::Skip => Some((SKIP_SYMBOLS / width_bytes, 1)),
            PhyStall::Every { every_clocks, clocks } => Some((every_clocks, clocks)),
            PhyStall::None => None,
        }
    }
}

/// A receive-side stall: the higher layer at `side` takes nothing from `vls` in `[from, to)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stall {
    pub from: u64,
    pub to: u64,
    pub side: Sides,
    /// Bit v: VL v stalls (bit 15: VL15).
    pub vls: u16,
}

/// The receive side's higher layer.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DrainSpec {
    /// Bytes a clock per data VL (index = VL); 0 = a packet as soon as the port can take a drain.
    pub rate: Vec<u32>,
    /// Clocks between VL15 drains (0 or 1: every clock).
    pub vl15_every: u32,
    pub stalls: Vec<Stall>,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub name: String,
    pub port: PortConfig,
    pub cycles: u64,
    pub seed: u64,
    pub activate_after: u64,
    pub arm_clocks: u64,
    pub sample_every: u64,
    pub channel: ChannelSpec,
    pub faults: Vec<FaultWindow>,
    /// Forced retrains, clocks.
    pub resyncs: Vec<u64>,
    /// SL0..SL14 -> data VL; SL15 -> VL15.
    pub sl2vl: [u8; 16],
    pub traffic: Vec<TrafficSpec>,
    pub drain: DrainSpec,
    /// `[wire] phy_stall`: the PHY's stalls of each port's `tx_ready`.
    pub phy_stall: PhyStall,
}

fn err(field: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::field(field, msg)
}

fn int(v: &Value, field: &str, lo: i64, hi: i64) -> Result<i64, ConfigError> {
    let n = v.as_integer().ok_or_else(|| err(field, format!("{v} is not an integer")))?;
    if n < lo || n > hi {
        return Err(err(field, format!("{n} is out of range {lo}..={hi}")));
    }
    Ok(n)
}

fn prob(v: &Value, field: &str) -> Result<f64, ConfigError> {
    let p = match v {
        Value::Float(f) => *f,
        Value::Integer(i) => *i as f64,
        _ => return Err(err(field, format!("{v} is not a number"))),
    };
    if !(0.0..=1.0).contains(&p) {
        return Err(err(field, format!("{p} is not a probability (0..=1)")));
    }
    Ok(p)
}

fn table<'a>(v: &'a Value, field: &str, known: &[&str]) -> Result<&'a toml::Table, ConfigError> {
    let t = v.as_table().ok_or_else(|| err(field, "is not a table"))?;
    for k in t.keys() {
        if !known.contains(&k.as_str()) {
            let path = if field.is_empty() { k.clone() } else { format!("{field}.{k}") };
            return Err(err(path, format!("unknown field (expected one of {})", known.join(", "))));
        }
    }
    Ok(t)
}

fn array<'a>(v: &'a Value, field: &str) -> Result<&'a Vec<Value>, ConfigError> {
    v.as_array().ok_or_else(|| err(field, format!("{v} is not an array")))
}

fn sides(v: &Value, field: &str, names: [&str; 3]) -> Result<Sides, ConfigError> {
    match v.as_str() {
        Some(s) if s == names[0] => Ok(Sides::A),
        Some(s) if s == names[1] => Ok(Sides::B),
        Some(s) if s == names[2] => Ok(Sides::Both),
        _ => Err(err(field, format!("{v} is not one of {:?}", names))),
    }
}

const PKTLEN_MIN: i64 = 6;
const PKTLEN_MAX: i64 = 1048;

fn size_dist(v: &Value, field: &str) -> Result<SizeDist, ConfigError> {
    match v {
        Value::Integer(_) => Ok(SizeDist::Fixed(int(v, field, PKTLEN_MIN, PKTLEN_MAX)? as u16)),
        Value::Array(a) => {
            if a.is_empty() {
                return Err(err(field, "an empty list"));
            }
            let l = a
                .iter()
                .enumerate()
                .map(|(i, x)| int(x, &format!("{field}[{i}]"), PKTLEN_MIN, PKTLEN_MAX).map(|n| n as u16))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(SizeDist::List(l))
        }
        Value::Table(_) => {
            let t = table(v, field, &["uniform"])?;
            let f = format!("{field}.uniform");
            let u = t.get("uniform").ok_or_else(|| err(&f, "missing (pktlen = N, [list] or { uniform = [a, b] })"))?;
            let a = array(u, &f)?;
            if a.len() != 2 {
                return Err(err(&f, format!("{u} is not [a, b]")));
            }
            let lo = int(&a[0], &format!("{f}[0]"), PKTLEN_MIN, PKTLEN_MAX)? as u16;
            let hi = int(&a[1], &format!("{f}[1]"), PKTLEN_MIN, PKTLEN_MAX)? as u16;
            if lo > hi {
                return Err(err(&f, format!("{lo} > {hi}")));
            }
            Ok(SizeDist::Uniform(lo, hi))
        }
        _ => Err(err(field, format!("{v} is not N, [list] or {{ uniform = [a, b] }}"))),
    }
}

impl Scenario {
    /// Parse and validate; every error names its field.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let root: Value = toml::from_str::<toml::Table>(text)
            .map(Value::Table)
            .map_err(|e| ConfigError::toml(text, &e))?;
        let top = table(
            &root,
            "",
            &[
                "name", "port", "cycles", "seed", "activate_after", "arm_clocks", "sample_every", "channel", "fault", "resync", "sl2vl",
                "traffic", "drain", "wire",
            ],
        )?;
        let port = match top.get("port") {
            None => PortConfig::default(),
            Some(p) => {
                let t = p.as_table().ok_or_else(|| err("port", "is not a table"))?;
                let text = toml::to_string(t).map_err(|e| err("port", e.to_string()))?;
                PortConfig::from_toml(&text).map_err(|e| match e {
                    ConfigError::Field { field, message } => err(format!("port.{field}"), message),
                    ConfigError::Toml(m) => err("port", m),
                })?
            }
        };
        let vl_cap = port.vl_cap.get();
        let get_int = |k: &str, d: i64, lo: i64, hi: i64| top.get(k).map_or(Ok(d), |v| int(v, k, lo, hi));
        let cycles = get_int("cycles", 1_000_000, 1, 1_000_000_000)? as u64;
        let seed = get_int("seed", 1, 0, i64::MAX)? as u64;
        let activate_after = get_int("activate_after", 600, 1, 1 << 32)? as u64;
        let arm_clocks = get_int("arm_clocks", 64, 0, 1 << 32)? as u64;
        let sample_every = get_int("sample_every", 10_000, 1, i64::MAX)? as u64;
        let name = match top.get("name") {
            None => String::new(),
            Some(v) => v.as_str().ok_or_else(|| err("name", "is not a string"))?.to_string(),
        };

        let mut channel = ChannelSpec::default();
        if let Some(c) = top.get("channel") {
            let t = table(c, "channel", &["latency_clocks", "fcp_loss", "data_loss", "bit_flip"])?;
            if let Some(v) = t.get("latency_clocks") {
                channel.latency_clocks = int(v, "channel.latency_clocks", 1, 1 << 20)? as usize;
            }
            for (k, slot) in [
                ("fcp_loss", &mut channel.fcp_loss),
                ("data_loss", &mut channel.data_loss),
                ("bit_flip", &mut channel.bit_flip),
            ] {
                if let Some(v) = t.get(k) {
                    *slot = prob(v, &format!("channel.{k}"))?;
                }
            }
        }

        let mut phy_stall = PhyStall::default();
        if let Some(w) = top.get("wire") {
            let t = table(w, "wire", &["phy_stall"])?;
            if let Some(v) = t.get("phy_stall") {
                let f = "wire.phy_stall";
                phy_stall = match v {
                    Value::String(x) if x == "skip" => PhyStall::Skip,
                    Value::String(x) if x == "none" => PhyStall::None,
                    Value::Table(_) => {
                        let t = table(v, f, &["every_clocks", "clocks"])?;
                        let need = |k: &str| t.get(k).ok_or_else(|| err(format!("{f}.{k}"), "missing"));
                        let every_clocks = int(need("every_clocks")?, &format!("{f}.every_clocks"), 2, 1 << 32)? as u64;
                        let clocks = int(need("clocks")?, &format!("{f}.clocks"), 1, 1 << 32)? as u64;
                        if clocks >= every_clocks {
                            return Err(err(format!("{f}.clocks"), format!("{clocks} is not below every_clocks = {every_clocks}")));
                        }
                        PhyStall::Every { every_clocks, clocks }
                    }
                    _ => return Err(err(f, format!("{v} is not \"skip\", \"none\" or {{ every_clocks = N, clocks = K }}"))),
                };
            }
        }

        let mut faults = vec![];
        if let Some(f) = top.get("fault") {
            for (i, w) in array(f, "fault")?.iter().enumerate() {
                let p = format!("fault[{i}]");
                let t = table(w, &p, &["from", "to", "fcp_loss", "data_loss", "bit_flip", "suppress_fcps"])?;
                let need = |k: &str| t.get(k).ok_or_else(|| err(format!("{p}.{k}"), "missing"));
                let from = int(need("from")?, &format!("{p}.from"), 0, i64::MAX)? as u64;
                let to = int(need("to")?, &format!("{p}.to"), 0, i64::MAX)? as u64;
                if to <= from {
                    return Err(err(format!("{p}.to"), format!("{to} is not after from = {from}")));
                }
                let opt = |k: &str| t.get(k).map(|v| prob(v, &format!("{p}.{k}"))).transpose();
                let suppress_fcps = match t.get("suppress_fcps") {
                    None => false,
                    Some(v) => v.as_bool().ok_or_else(|| err(format!("{p}.suppress_fcps"), "is not true/false"))?,
                };
                faults.push(FaultWindow {
                    from,
                    to,
                    fcp_loss: opt("fcp_loss")?,
                    data_loss: opt("data_loss")?,
                    bit_flip: opt("bit_flip")?,
                    suppress_fcps,
                });
            }
        }

        let mut resyncs = vec![];
        if let Some(r) = top.get("resync") {
            for (i, w) in array(r, "resync")?.iter().enumerate() {
                let p = format!("resync[{i}]");
                let t = table(w, &p, &["at"])?;
                let at = t.get("at").ok_or_else(|| err(format!("{p}.at"), "missing"))?;
                resyncs.push(int(at, &format!("{p}.at"), 1, i64::MAX)? as u64);
            }
            resyncs.sort_unstable();
        }

        let mut sl2vl = [0u8; 16];
        for (sl, x) in sl2vl.iter_mut().enumerate() {
            *x = (sl as u8) % vl_cap;
        }
        sl2vl[15] = VL15;
        if let Some(m) = top.get("sl2vl") {
            let a = array(m, "sl2vl")?;
            if a.len() > 15 {
                return Err(err("sl2vl", format!("{} entries; SL0..SL14 at most (SL15 is VL15)", a.len())));
            }
            for (sl, v) in a.iter().enumerate() {
                sl2vl[sl] = int(v, &format!("sl2vl[{sl}]"), 0, vl_cap as i64 - 1)? as u8;
            }
        }

        let mut traffic = vec![];
        if let Some(tr) = top.get("traffic") {
            for (i, g) in array(tr, "traffic")?.iter().enumerate() {
                let p = format!("traffic[{i}]");
                let t = table(g, &p, &["sl", "pktlen", "load", "direction", "queue_limit"])?;
                let need = |k: &str| t.get(k).ok_or_else(|| err(format!("{p}.{k}"), "missing"));
                let sl = int(need("sl")?, &format!("{p}.sl"), 0, 15)? as u8;
                let pktlen = size_dist(need("pktlen")?, &format!("{p}.pktlen"))?;
                let load_permille = match t.get("load") {
                    None => 1000,
                    Some(v) => int(v, &format!("{p}.load"), 0, 1000)? as u32,
                };
                let direction = match t.get("direction") {
                    None => Sides::Both,
                    Some(v) => sides(v, &format!("{p}.direction"), ["a_to_b", "b_to_a", "both"])?,
                };
                let queue_limit = match t.get("queue_limit") {
                    None => 8,
                    Some(v) => int(v, &format!("{p}.queue_limit"), 1, 4096)? as usize,
                };
                traffic.push(TrafficSpec {
                    sl,
                    pktlen,
                    load_permille,
                    direction,
                    queue_limit,
                });
            }
        }

        let mut drain = DrainSpec {
            rate: vec![0; vl_cap as usize],
            vl15_every: 1,
            stalls: vec![],
        };
        if let Some(d) = top.get("drain") {
            let t = table(d, "drain", &["rate", "vl15_every", "stall"])?;
            match t.get("rate") {
                None => {}
                Some(v @ Value::Array(a)) => {
                    if a.len() != vl_cap as usize {
                        return Err(err("drain.rate", format!("{v}: {} entries, VLCap is {vl_cap}", a.len())));
                    }
                    for (vl, x) in a.iter().enumerate() {
                        drain.rate[vl] = int(x, &format!("drain.rate[{vl}]"), 0, 1 << 16)? as u32;
                    }
                }
                Some(v) => drain.rate = vec![int(v, "drain.rate", 0, 1 << 16)? as u32; vl_cap as usize],
            }
            if let Some(v) = t.get("vl15_every") {
                drain.vl15_every = int(v, "drain.vl15_every", 0, 1 << 30)? as u32;
            }
            if let Some(s) = t.get("stall") {
                for (i, w) in array(s, "drain.stall")?.iter().enumerate() {
                    let p = format!("drain.stall[{i}]");
                    let t = table(w, &p, &["from", "to", "side", "vls"])?;
                    let need = |k: &str| t.get(k).ok_or_else(|| err(format!("{p}.{k}"), "missing"));
                    let from = int(need("from")?, &format!("{p}.from"), 0, i64::MAX)? as u64;
                    let to = int(need("to")?, &format!("{p}.to"), 0, i64::MAX)? as u64;
                    if to <= from {
                        return Err(err(format!("{p}.to"), format!("{to} is not after from = {from}")));
                    }
                    let side = match t.get("side") {
                        None => Sides::Both,
                        Some(v) => sides(v, &format!("{p}.side"), ["a", "b", "both"])?,
                    };
                    let vls = match t.get("vls") {
                        None => u16::MAX,
                        Some(v) => {
                            let mut m = 0u16;
                            for (k, x) in array(v, &format!("{p}.vls"))?.iter().enumerate() {
                                let f = format!("{p}.vls[{k}]");
                                let vl = int(x, &f, 0, 15)? as u8;
                                if vl != VL15 && vl >= vl_cap {
                                    return Err(err(f, format!("VL {vl} is not a VL of this port (VLCap {vl_cap})")));
                                }
                                m |= 1 << vl;
                            }
                            m
                        }
                    };
                    drain.stalls.push(Stall { from, to, side, vls });
                }
            }
        }

        Ok(Scenario {
            name,
            port,
            cycles,
            seed,
            activate_after,
            arm_clocks,
            sample_every,
            channel,
            faults,
            resyncs,
            sl2vl,
            traffic,
            drain,
            phy_stall,
        })
    }

    /// Read and parse a scenario file (its name defaults to the file stem).
    pub fn from_file(path: &std::path::Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Toml(format!("{}: {e}", path.display())))?;
        let mut s = Self::from_toml(&text)?;
        if s.name.is_empty() {
            s.name = path.file_stem().map(|x| x.to_string_lossy().into_owned()).unwrap_or_default();
        }
        Ok(s)
    }

    /// The PHY's `tx_ready` for side `side` (0: A, 1: B) in clock `clock` at `width_bytes`
    /// a clock (`[wire] phy_stall`): low for the last `K` clocks of every `N`, side B's
    /// phase half a period after A's.
    pub fn phy_ready(&self, side: usize, clock: u64, width_bytes: u64) -> bool {
        self.phy_stall.period(width_bytes).is_none_or(|(n, k)| {
            let phase = if side == 0 { 0 } else { n / 2 };
            (clock + phase) % n < n - k
        })
    }

    /// The VL an SL's packets travel on.
    pub fn vl_of(&self, sl: u8) -> u8 {
        self.sl2vl[sl as usize & 15]
    }

    /// Channel probabilities at `clock`: (FCP loss, data loss, bit flip), the last fault
    /// window covering the clock overriding the base values.
    pub fn probabilities(&self, clock: u64) -> (f64, f64, f64) {
        let c = &self.channel;
        let mut p = (c.fcp_loss, c.data_loss, c.bit_flip);
        for w in self.faults.iter().filter(|w| (w.from..w.to).contains(&clock)) {
            if let Some(x) = w.fcp_loss {
                p.0 = x;
            }
            if w.suppress_fcps {
                p.0 = 1.0;
            }
            if let Some(x) = w.data_loss {
                p.1 = x;
            }
            if let Some(x) = w.bit_flip {
                p.2 = x;
            }
        }
        p
    }

    /// Whether the receiver at `side` (0 = A, 1 = B) takes nothing from `vl` at `clock`.
    pub fn stalled(&self, side: usize, vl: u8, clock: u64) -> bool {
        self.drain
            .stalls
            .iter()
            .any(|s| s.side.has(side) && s.vls & (1 << vl) != 0 && (s.from..s.to).contains(&clock))
    }

    /// Whether the channel can damage anything in this run at all.
    pub fn has_faults(&self) -> bool {
        let c = &self.channel;
        c.fcp_loss > 0.0 || c.data_loss > 0.0 || c.bit_flip > 0.0 || !self.faults.is_empty() || !self.resyncs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(text: &str) -> String {
        match Scenario::from_toml(text).unwrap_err() {
            ConfigError::Field { field, .. } => field,
            e => panic!("not a field error: {e}"),
        }
    }

    #[test]
    fn parses_every_section() {
        let s = Scenario::from_toml(
            r#"
            cycles = 5000
            seed = 7
            sl2vl = [3, 2, 1, 0]
            [port]
            vl_cap = 4
            buffer_blocks = 128
            [channel]
            latency_clocks = 20
            fcp_loss = 0.5
            data_loss = 0.01
            [[fault]]
            from = 10
            to = 20
            suppress_fcps = true
            [[resync]]
            at = 300
            [[traffic]]
            sl = 0
            pktlen = { uniform = [6, 80] }
            load = 500
            direction = "a_to_b"
            [[traffic]]
            sl = 15
            pktlen = [64, 6]
            [drain]
            rate = [0, 4, 8, 16]
            [[drain.stall]]
            from = 100
            to = 200
            side = "b"
            vls = [0, 15]
            "#,
        )
        .unwrap();
        assert_eq!(s.port.buffer_blocks, 128);
        assert_eq!(s.channel.latency_clocks, 20);
        assert_eq!(s.vl_of(0), 3);
        assert_eq!(s.vl_of(5), 1);
        assert_eq!(s.vl_of(15), 15);
        assert_eq!(s.traffic[0].pktlen, SizeDist::Uniform(6, 80));
        assert_eq!(s.traffic[1].pktlen, SizeDist::List(vec![64, 6]));
        assert_eq!(s.traffic[0].direction, Sides::A);
        assert_eq!(s.probabilities(15), (1.0, 0.01, 0.0));
        assert_eq!(s.probabilities(25), (0.5, 0.01, 0.0));
        assert!(s.stalled(1, 15, 150) && !s.stalled(0, 15, 150) && !s.stalled(1, 1, 150));
        assert_eq!(s.resyncs, vec![300]);
    }

    #[test]
    fn errors_name_the_field() {
        assert_eq!(field_of("[port]\nvl_cap = 3"), "port.vl_cap");
        assert_eq!(field_of("[channel]\nfcp_loss = 1.5"), "channel.fcp_loss");
        assert_eq!(field_of("[channel]\nlatency = 1"), "channel.latency");
        assert_eq!(field_of("[[traffic]]\nsl = 0\npktlen = 5"), "traffic[0].pktlen");
        assert_eq!(field_of("[[traffic]]\nsl = 0\npktlen = { uniform = [80, 6] }"), "traffic[0].pktlen.uniform");
        assert_eq!(field_of("[[traffic]]\nsl = 0\npktlen = [6, 2000]"), "traffic[0].pktlen[1]");
        assert_eq!(field_of("[[traffic]]\nsl = 0\npktlen = 6\ndirection = \"up\""), "traffic[0].direction");
        assert_eq!(field_of("[[traffic]]\npktlen = 6"), "traffic[0].sl");
        assert_eq!(field_of("sl2vl = [0, 4]"), "sl2vl[1]");
        assert_eq!(field_of("[[fault]]\nfrom = 5\nto = 5"), "fault[0].to");
        assert_eq!(field_of("[drain]\nrate = [1, 2]"), "drain.rate");
        assert_eq!(field_of("[[drain.stall]]\nfrom = 0\nto = 9\nvls = [7]"), "drain.stall[0].vls[0]");
        assert_eq!(field_of("cycles = 0"), "cycles");
        assert_eq!(field_of("bogus = 1"), "bogus");
    }
}
