//! `iblink pfc trace`: the PAUSE/PFC frames the transmit side sends for a timeline of
//! trigger events, on an idle link (docs/spec.md §9).
//!
//! The file: top-level `mode` ("pfc" or "pause"), `sa` ("02:00:00:00:00:01"),
//! `datapath_bits` (32 or 64), `zero_quanta_on_release` (default true), `refresh_quanta`,
//! `clocks`; `[[queue]]` tables with `priorities` (a mask, bit i = priority i),
//! `pause_quanta` and an optional `threshold = { size_bytes, rfa_bytes, rfd_bytes }`;
//! `[[event]]` tables with `clock`, `queue` and one of `fill_bytes = N`,
//! `hw = true|false` or `sw = true`. Every error names its field.

use iblink_model::config::ConfigError;
use iblink_model::ethernet::PauseKind;
use iblink_model::pfc::{Mode, PfcConfig, PfcTx, PfcTxIn, QueueConfig, Threshold, MAX_QUEUES};
use std::fmt;

/// What an event sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// The queue's RX fill level from this clock on.
    Fill(u32),
    /// The queue's hardware flow-control level from this clock on.
    Hw(bool),
    /// A software request (FCB) in this clock.
    Sw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PfcEvent {
    pub clock: u64,
    pub queue: usize,
    pub kind: EventKind,
}

/// A parsed, validated trace file.
#[derive(Clone, Debug)]
pub struct PfcScenario {
    pub config: PfcConfig,
    pub clocks: u64,
    /// In clock order (file order within a clock).
    pub events: Vec<PfcEvent>,
}

/// One frame of a trace: the clock its first byte leaves, and what it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceLine {
    pub clock: u64,
    pub kind: PauseKind,
}

impl fmt::Display for TraceLine {
    /// `clock=12 kind=pfc enable=0x0005 times=200,0,200,0,0,0,0,0` or
    /// `clock=12 kind=pause quanta=200`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            PauseKind::Pause { quanta } => write!(f, "clock={} kind=pause quanta={quanta}", self.clock),
            PauseKind::Pfc { enable, times } => {
                let t: Vec<String> = times.iter().map(u16::to_string).collect();
                write!(f, "clock={} kind=pfc enable={enable:#06x} times={}", self.clock, t.join(","))
            }
        }
    }
}

const TOP_KEYS: &[&str] = &["mode", "sa", "datapath_bits", "zero_quanta_on_release", "refresh_quanta", "clocks", "queue", "event"];
const QUEUE_KEYS: &[&str] = &["priorities", "pause_quanta", "threshold"];
const THRESHOLD_KEYS: &[&str] = &["size_bytes", "rfa_bytes", "rfd_bytes"];
const EVENT_KEYS: &[&str] = &["clock", "queue", "fill_bytes", "hw", "sw"];

pub(crate) fn only_keys(t: &toml::Table, at: &str, keys: &[&str]) -> Result<(), ConfigError> {
    for k in t.keys() {
        if !keys.contains(&k.as_str()) {
            let name = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
            return Err(ConfigError::field(name, format!("unknown field (expected one of {})", keys.join(", "))));
        }
    }
    Ok(())
}

pub(crate) fn int(t: &toml::Table, at: &str, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, ConfigError> {
    let name = if at.is_empty() { key.to_string() } else { format!("{at}.{key}") };
    match t.get(key) {
        None => Ok(None),
        Some(v) => {
            let n = v.as_integer().ok_or_else(|| ConfigError::field(&name, "must be an integer"))?;
            if n < lo || n > hi {
                return Err(ConfigError::field(&name, format!("{n} is out of range {lo}..={hi}")));
            }
            Ok(Some(n))
        }
    }
}

pub(crate) fn need<T>(v: Option<T>, name: &str) -> Result<T, ConfigError> {
    v.ok_or_else(|| ConfigError::field(name, "missing"))
}

pub(crate) fn tables<'a>(v: Option<&'a toml::Value>, key: &str) -> Result<Vec<&'a toml::Table>, ConfigError> {
    match v {
        None => Ok(vec![]),
        Some(toml::Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, x)| x.as_table().ok_or_else(|| ConfigError::field(format!("{key}[{i}]"), "must be a table")))
            .collect(),
        Some(_) => Err(ConfigError::field(key, format!("must be an array of tables: [[{key}]]"))),
    }
}

/// `02:00:00:00:00:01` (or with `-`): six hex bytes.
pub fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return Err(format!("{s:?} is not six bytes like 02:00:00:00:00:01"));
    }
    let mut mac = [0u8; 6];
    for (m, p) in mac.iter_mut().zip(&parts) {
        if p.len() != 2 || !p.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(format!("{s:?} is not six bytes like 02:00:00:00:00:01 ({p:?})"));
        }
        *m = u8::from_str_radix(p, 16).expect("two hex digits");
    }
    Ok(mac)
}

/// The flow-control fields a trace file and a port share, read from `t` (field names
/// prefixed with `at.`): `mode`, `datapath_bits`, `zero_quanta_on_release` (default
/// true), `refresh_quanta`, and `[[queue]]` tables with `priorities`, `pause_quanta`, an
/// optional `threshold = { size_bytes, rfa_bytes, rfd_bytes }` and the caller's `extra`
/// keys (the queue tables are returned for those). Not validated: the caller adds what
/// it has and calls [`PfcConfig::validate`].
pub(crate) fn pfc_fields<'a>(t: &'a toml::Table, at: &str, sa: [u8; 6], extra: &[&str]) -> Result<(PfcConfig, Vec<&'a toml::Table>), ConfigError> {
    let name = |k: &str| if at.is_empty() { k.to_string() } else { format!("{at}.{k}") };
    let mode = match need(t.get("mode"), &name("mode"))?.as_str() {
        Some("pfc") => Mode::Pfc,
        Some("pause") => Mode::Pause,
        _ => return Err(ConfigError::field(name("mode"), "must be \"pfc\" or \"pause\"")),
    };
    let datapath_bits = need(int(t, at, "datapath_bits", 0, i64::MAX)?, &name("datapath_bits"))? as u32;
    if datapath_bits != 32 && datapath_bits != 64 {
        return Err(ConfigError::field(name("datapath_bits"), format!("{datapath_bits} is not 32 or 64")));
    }
    let zero_quanta_on_release = match t.get("zero_quanta_on_release") {
        None => true,
        Some(v) => v.as_bool().ok_or_else(|| ConfigError::field(name("zero_quanta_on_release"), "must be true or false"))?,
    };
    let refresh_quanta = need(int(t, at, "refresh_quanta", 0, 65535)?, &name("refresh_quanta"))? as u16;
    let qs = tables(t.get("queue"), &name("queue"))?;
    if qs.len() > MAX_QUEUES {
        return Err(ConfigError::field(name("queue"), format!("{} queues: at most {MAX_QUEUES}", qs.len())));
    }
    let keys: Vec<&str> = QUEUE_KEYS.iter().chain(extra).copied().collect();
    let mut queues = vec![];
    for (i, q) in qs.iter().enumerate() {
        let at = name(&format!("queue[{i}]"));
        only_keys(q, &at, &keys)?;
        let priorities = need(int(q, &at, "priorities", i64::MIN, i64::MAX)?, &format!("{at}.priorities"))?;
        if !(1..=0xff).contains(&priorities) {
            return Err(ConfigError::field(
                format!("{at}.priorities"),
                format!("{priorities:#x} is not a priority mask 0x01..=0xff (bit i: priority i)"),
            ));
        }
        let pause_quanta = need(int(q, &at, "pause_quanta", 0, 65535)?, &format!("{at}.pause_quanta"))? as u16;
        let threshold = match q.get("threshold") {
            None => None,
            Some(v) => {
                let ta = format!("{at}.threshold");
                let t = v.as_table().ok_or_else(|| ConfigError::field(&ta, "must be a table { size_bytes, rfa_bytes, rfd_bytes }"))?;
                only_keys(t, &ta, THRESHOLD_KEYS)?;
                let get = |k: &str| -> Result<u32, ConfigError> { Ok(need(int(t, &ta, k, 0, u32::MAX as i64)?, &format!("{ta}.{k}"))? as u32) };
                Some(Threshold { size_bytes: get("size_bytes")?, rfa_bytes: get("rfa_bytes")?, rfd_bytes: get("rfd_bytes")? })
            }
        };
        queues.push(QueueConfig { priorities: priorities as u8, pause_quanta, threshold });
    }
    Ok((PfcConfig { mode, sa, datapath_bits, zero_quanta_on_release, refresh_quanta, queues }, qs))
}

/// [`PfcConfig::validate`]'s error with its field under `at.`.
pub(crate) fn under(at: &str, e: ConfigError) -> ConfigError {
    match e {
        ConfigError::Field { field, message } => ConfigError::field(format!("{at}.{field}"), message),
        e => e,
    }
}

impl PfcScenario {
    /// Parse TOML; every error names the field it is about.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let top: toml::Table = toml::from_str(text).map_err(|e| ConfigError::toml(text, &e))?;
        only_keys(&top, "", TOP_KEYS)?;
        let sa = need(top.get("sa"), "sa")?
            .as_str()
            .ok_or_else(|| ConfigError::field("sa", "must be a string like \"02:00:00:00:00:01\""))
            .and_then(|s| parse_mac(s).map_err(|e| ConfigError::field("sa", e)))?;
        let clocks = need(int(&top, "", "clocks", 1, 1_000_000_000)?, "clocks")? as u64;
        let (config, _) = pfc_fields(&top, "", sa, &[])?;
        config.validate()?;
        let mut events = vec![];
        for (i, e) in tables(top.get("event"), "event")?.iter().enumerate() {
            let at = format!("event[{i}]");
            only_keys(e, &at, EVENT_KEYS)?;
            let clock = need(int(e, &at, "clock", 0, clocks as i64 - 1)?, &format!("{at}.clock"))? as u64;
            let nq = config.queues.len() as i64;
            let queue = need(int(e, &at, "queue", 0, nq - 1)?, &format!("{at}.queue"))? as usize;
            let given: Vec<&str> = ["fill_bytes", "hw", "sw"].into_iter().filter(|k| e.contains_key(*k)).collect();
            if given.len() != 1 {
                return Err(ConfigError::field(&at, format!("needs exactly one of fill_bytes, hw, sw (has {})", given.len())));
            }
            let kind = match given[0] {
                "fill_bytes" => {
                    let th = config.queues[queue].threshold.ok_or_else(|| {
                        ConfigError::field(format!("{at}.fill_bytes"), format!("queue[{queue}] has no threshold (no RX-fill trigger)"))
                    })?;
                    EventKind::Fill(need(int(e, &at, "fill_bytes", 0, th.size_bytes as i64)?, &format!("{at}.fill_bytes"))? as u32)
                }
                "hw" => EventKind::Hw(e["hw"].as_bool().ok_or_else(|| ConfigError::field(format!("{at}.hw"), "must be true or false"))?),
                _ => match e["sw"].as_bool() {
                    Some(true) => EventKind::Sw,
                    _ => return Err(ConfigError::field(format!("{at}.sw"), "must be true (a request)")),
                },
            };
            events.push(PfcEvent { clock, queue, kind });
        }
        events.sort_by_key(|e| e.clock);
        Ok(Self { config, clocks, events })
    }

    /// The inputs of every clock, in order: levels and fills hold from their event on;
    /// software requests last one clock.
    pub fn inputs(&self) -> impl Iterator<Item = PfcTxIn> + '_ {
        let mut i = PfcTxIn::default();
        let mut k = 0;
        (0..self.clocks).map(move |t| {
            i.sw = 0;
            while k < self.events.len() && self.events[k].clock == t {
                let e = self.events[k];
                match e.kind {
                    EventKind::Fill(b) => i.fill_bytes[e.queue] = b,
                    EventKind::Hw(on) => {
                        i.hw = (i.hw & !(1 << e.queue)) | ((on as u8) << e.queue);
                    }
                    EventKind::Sw => i.sw |= 1 << e.queue,
                }
                k += 1;
            }
            i
        })
    }
}

/// Why a trace could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The configuration does not fit the generated block (names the field).
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Build(#[from] crate::blocks::SimBuildError),
}

/// A trace: one line per frame, and, when asked for, the frames as they go on the wire
/// (the clock each first byte leaves, and the 64 bytes).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub lines: Vec<TraceLine>,
    pub frames: Vec<(u64, Vec<u8>)>,
}

/// The trace from back end `b`: the reference model (its frames from its encoder), or the
/// `pfc_tx` block (its Rust twin or Verilator) with its fields read as frames, and with
/// `frames` the `pfc_frame` builder driven by it (its words gathered from `tx_valid` to
/// `tx_last`). One run gives both.
pub fn trace(s: &PfcScenario, b: crate::blocks::Backend, frames: bool) -> Result<Trace, TraceError> {
    use crate::blocks::pfc_frame::{frame_config_ports, pfc_frame_sim};
    use crate::blocks::pfc_tx::{config_ports, fill_port, frame_kind, pfc_tx_sim};
    use iblink_model::ethernet::PauseFrame;
    if b == crate::blocks::Backend::Model {
        let lines = trace_model(s);
        let frames = if frames { lines.iter().map(|l| (l.clock, PauseFrame { sa: s.config.sa, kind: l.kind }.encode().to_vec())).collect() } else { vec![] };
        return Ok(Trace { lines, frames });
    }
    let (q, w) = (s.config.queues.len(), s.config.datapath_bits as usize);
    let cfg = config_ports(&s.config)?;
    let fcfg = frame_config_ports(&s.config);
    let mut tx = pfc_tx_sim(&s.config, b, None)?;
    let mut fb = if frames { Some(pfc_frame_sim(q, w, b, None)?) } else { None };
    let mut out = Trace::default();
    let mut cur: Option<(u64, Vec<u8>)> = None;
    let mut wire = NeverStalls::new(&s.config);
    for (t, i) in s.inputs().enumerate() {
        let t = t as u64;
        let o = tx.step(&iblink_rtl::pfc_tx::PfcTxIn {
            fill_bytes: i.fill_bytes.map(fill_port),
            hw_level: i.hw,
            sw_req: i.sw,
            busy: i.busy,
            frame_done: wire.done(t),
            ..cfg
        });
        if o.frame_start {
            wire.started(t);
            out.lines.push(TraceLine { clock: t, kind: frame_kind(&s.config, o.frame_queues, o.frame_zero) });
        }
        let Some(fb) = fb.as_mut() else { continue };
        let f = fb.step(&iblink_rtl::pfc_frame::PfcFrameIn {
            frame_start: o.frame_start,
            frame_queues: o.frame_queues,
            frame_zero: o.frame_zero,
            // The trace's wire never stalls (its frame ends as NeverStalls says).
            tx_ready: true,
            ..fcfg
        });
        if f.tx_valid {
            let c = cur.get_or_insert((t, vec![]));
            c.1.extend((0..w / 8).map(|k| (f.tx_data >> (8 * k)) as u8));
            if f.tx_last {
                out.frames.extend(cur.take());
            }
        }
    }
    Ok(out)
}

/// Write frames as a pcap (Ethernet link type, the FCS included): a frame's timestamp
/// is the clock its first byte left, one clock to the microsecond. Written to a
/// temporary file beside `path`, then renamed: never half written.
pub fn write_pcap(path: &std::path::Path, frames: &[(u64, Vec<u8>)]) -> std::io::Result<()> {
    write_pcap_at(path, frames, 1_000_000)
}

/// [`write_pcap`] with the clock at `clock_hz`: nanosecond timestamps.
pub fn write_pcap_at(path: &std::path::Path, frames: &[(u64, Vec<u8>)], clock_hz: u64) -> std::io::Result<()> {
    let mut b: Vec<u8> = vec![];
    b.extend(0xa1b2_3c4du32.to_le_bytes());
    b.extend(2u16.to_le_bytes());
    b.extend(4u16.to_le_bytes());
    for w in [0u32, 0, 65535, 1] {
        b.extend(w.to_le_bytes());
    }
    let mut sorted: Vec<&(u64, Vec<u8>)> = frames.iter().collect();
    sorted.sort_by_key(|f| f.0);
    for (clock, f) in sorted {
        let ns = (*clock as u128 * 1_000_000_000 / clock_hz as u128) as u64;
        for w in [(ns / 1_000_000_000) as u32, (ns % 1_000_000_000) as u32, f.len() as u32, f.len() as u32] {
            b.extend(w.to_le_bytes());
        }
        b.extend(f);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, &b)?;
    std::fs::rename(&tmp, path)
}

/// The trace from the reference model.
pub fn trace_model(s: &PfcScenario) -> Vec<TraceLine> {
    let mut g = PfcTx::new(s.config.clone());
    let mut wire = NeverStalls::new(&s.config);
    s.inputs()
        .enumerate()
        .filter_map(|(t, i)| {
            let t = t as u64;
            let f = g.tick(&PfcTxIn { frame_done: wire.done(t), ..i })?;
            wire.started(t);
            Some(TraceLine { clock: t, kind: f.frame.kind })
        })
        .collect()
}

/// A trace's wire, which never stalls: a frame whose first word is offered in clock `t`
/// has its last word move in `t + 512/W - 1` (docs/spec.md §10), its end for `pfc_tx`.
struct NeverStalls {
    frame_clocks: u64,
    done_at: Option<u64>,
}

impl NeverStalls {
    fn new(c: &PfcConfig) -> Self {
        Self { frame_clocks: c.frame_clocks(), done_at: None }
    }

    /// The frame on the wire ends in clock `t`.
    fn done(&self, t: u64) -> bool {
        self.done_at == Some(t)
    }

    /// A frame's first word is offered in clock `t`.
    fn started(&mut self, t: u64) {
        self.done_at = Some(t + self.frame_clocks - 1);
    }
}
