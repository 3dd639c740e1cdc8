//! Port configuration (task item 8), deserialisable from TOML:
//!
//! ```toml
//! vl_cap = 4                 # 1, 2, 4, 8 or 15 data VLs
//! datapath_bits = 32         # 32 or 64 (4 or 8 bytes a clock)
//! buffer_blocks = 256        # receive buffer per data VL, 66..=4095 blocks
//! refresh_symbols = 57344    # FCP refresh period per VL, symbol times
//! min_fcp_gap = 256          # least symbol times between on-change FCPs for a VL
//! vl_high_limit = 4          # VLHighLimit
//! low_policy = "weight"      # or "one-packet"
//! high = [[6, 127], [1, 63], [7, 254]]   # [vl, weight]
//! low = [[3, 2]]
//! update_monitor_periods = 2 # failsafe: no FCP for more than N spec periods -> resync (0 = off)
//! overrun_periods = 2        # failsafe: overruns in more than N consecutive periods -> resync
//! vl15_buffer_packets = 1    # VL15 receive buffer, packets
//! ```
//!
//! Validation errors name the offending field, e.g. `high[3].weight: 300 is out of range 0..=255`.
//!
//! A table entry the arbiter will skip (docs/spec.md §6: naming VL15 or a VL at or above
//! VLCap, or with weight 0) is not an error: subnet managers program such tables. It is
//! accepted as written, and [`PortConfig::skipped_entries`] names each one for a warning
//! (`high[1]: VL15 is never arbitrated: skipped`).

use crate::arbiter::{ArbEntry, LowPolicy, TableId, MAX_TABLE_ENTRIES};
use crate::blocks::{MAX_PACKET_BLOCKS, MAX_PKT_LEN};
use crate::fcp::FCP_BYTES;
use crate::sl2vl::{VlCap, DATA_VLS};
use serde::Deserialize;
use std::fmt;

/// The spec's bound between FCPs for one VL: 65,536 symbol times (docs/spec.md §5).
pub const SPEC_REFRESH_SYMBOLS: u32 = 65_536;

/// Least margin the refresh period must leave under the spec bound: an FCP that falls
/// due may wait for the maximum packet already on the wire (PktLen 1048 dwords + 2-byte
/// VCRC = 4194 symbols) and for the FCPs of all 15 data VLs (15 × 6 = 90 symbols).
pub const MIN_REFRESH_MARGIN: u32 = MAX_PKT_LEN as u32 * 4 + 2 + DATA_VLS as u32 * FCP_BYTES as u32;

/// Largest allowed `refresh_symbols`: 65536 - 4284 = 61252.
pub const MAX_REFRESH_SYMBOLS: u32 = SPEC_REFRESH_SYMBOLS - MIN_REFRESH_MARGIN;

/// Default refresh: 65536 - 8192 = 57344 symbol times. The 1/8-period margin covers the
/// worst case above (4284 symbols) with room for about a dozen VL15 MADs, which may
/// also go ahead of FCPs (docs/spec.md §5: VL15 > FCP).
pub const DEFAULT_REFRESH_SYMBOLS: u32 = 57_344;

/// Largest receive buffer per VL: the Free Space Count is a 12-bit register (seed 000).
pub const MAX_BUFFER_BLOCKS: u16 = 4095;

/// A port's static configuration. Build with [`PortConfig::default`] and adjust, or from
/// TOML with [`PortConfig::from_toml`]; check with [`PortConfig::validate`].
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawPortConfig")]
pub struct PortConfig {
    pub vl_cap: VlCap,
    /// Datapath width in bytes per clock: 4 (32-bit) or 8 (64-bit).
    pub datapath_bytes: u8,
    /// Receive buffer per data VL, in blocks; at least [`MAX_PACKET_BLOCKS`] (66).
    pub buffer_blocks: u16,
    /// FCP refresh period per VL, symbol times (<= [`MAX_REFRESH_SYMBOLS`]).
    pub refresh_symbols: u32,
    /// Minimum gap between on-change FCPs for one VL, symbol times.
    pub min_fcp_gap: u32,
    pub vl_high_limit: u8,
    pub low_policy: LowPolicy,
    pub high: Vec<ArbEntry>,
    pub low: Vec<ArbEntry>,
    pub update_monitor_periods: u32,
    pub overrun_periods: u32,
    pub vl15_buffer_packets: u8,
}

impl Default for PortConfig {
    /// VLCap 4, 32-bit datapath, 256-block buffers, refresh 57344 symbols, gap 256,
    /// VLHighLimit 4, low policy Weight, empty high table, low table one entry of weight
    /// 64 (one 4 KB packet) per data VL, failsafe thresholds 2 and 2, one VL15 buffer.
    fn default() -> Self {
        let vl_cap = VlCap::default();
        Self {
            vl_cap,
            datapath_bytes: 4,
            buffer_blocks: 256,
            refresh_symbols: DEFAULT_REFRESH_SYMBOLS,
            min_fcp_gap: 256,
            vl_high_limit: 4,
            low_policy: LowPolicy::Weight,
            high: Vec::new(),
            low: default_low(vl_cap),
            update_monitor_periods: 2,
            overrun_periods: 2,
            vl15_buffer_packets: 1,
        }
    }
}

fn default_low(vl_cap: VlCap) -> Vec<ArbEntry> {
    (0..vl_cap.get()).map(|vl| ArbEntry::new(vl, 64)).collect()
}

/// A configuration problem: TOML syntax/type, or a field value (named).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{field}: {message}")]
    Field { field: String, message: String },
    #[error("TOML: {0}")]
    Toml(String),
}

impl ConfigError {
    /// An error about `field` (a dotted/indexed path such as `queue[0].vl`).
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Field {
            field: field.into(),
            message: message.into(),
        }
    }
    /// A TOML syntax or type error of `text`, with where it is: `line L, column C: what`.
    /// (The `toml` crate's message alone is empty for some syntax errors, such as a key
    /// with no value at the end of the file.)
    pub fn toml(text: &str, e: &toml::de::Error) -> Self {
        let what = match e.message().trim() {
            "" => "invalid TOML",
            m => m,
        };
        match e.span() {
            Some(span) => {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                // The `toml` crate names no key in "duplicate key": the span is the key.
                let key = text.get(span.clone()).map(str::trim).filter(|k| !k.is_empty() && !k.contains('\n'));
                match key {
                    Some(k) if what.contains("duplicate key") => Self::Toml(format!("line {line}, column {column}: {what} `{k}`")),
                    _ => Self::Toml(format!("line {line}, column {column}: {what}")),
                }
            }
            None => Self::Toml(what.to_string()),
        }
    }
    /// The offending field, for field errors.
    pub fn field_name(&self) -> Option<&str> {
        match self {
            Self::Field { field, .. } => Some(field),
            Self::Toml(_) => None,
        }
    }
}

fn in_range(field: &str, v: i64, lo: i64, hi: i64) -> Result<i64, ConfigError> {
    if v < lo || v > hi {
        Err(ConfigError::field(
            field,
            format!("{v} is out of range {lo}..={hi}"),
        ))
    } else {
        Ok(v)
    }
}

/// The TOML shape: wide integers so out-of-range values reach validation (and get a
/// field-naming message) instead of failing inside the deserializer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPortConfig {
    vl_cap: Option<i64>,
    datapath_bits: Option<i64>,
    buffer_blocks: Option<i64>,
    refresh_symbols: Option<i64>,
    min_fcp_gap: Option<i64>,
    vl_high_limit: Option<i64>,
    low_policy: Option<String>,
    high: Option<Vec<Vec<i64>>>,
    low: Option<Vec<Vec<i64>>>,
    update_monitor_periods: Option<i64>,
    overrun_periods: Option<i64>,
    vl15_buffer_packets: Option<i64>,
}

fn table(name: &str, rows: &[Vec<i64>]) -> Result<Vec<ArbEntry>, ConfigError> {
    if rows.len() > MAX_TABLE_ENTRIES {
        return Err(ConfigError::field(
            name,
            format!("{} entries, at most {MAX_TABLE_ENTRIES}", rows.len()),
        ));
    }
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let [vl, weight] = row[..] else {
                return Err(ConfigError::field(
                    format!("{name}[{i}]"),
                    format!("{row:?} is not [vl, weight]"),
                ));
            };
            // VL15 and VLs >= VLCap are allowed and skipped by the arbiter (docs/spec.md §6).
            let vl = in_range(&format!("{name}[{i}].vl"), vl, 0, 15)?;
            let weight = in_range(&format!("{name}[{i}].weight"), weight, 0, 255)?;
            Ok(ArbEntry::new(vl as u8, weight as u8))
        })
        .collect()
}

impl TryFrom<RawPortConfig> for PortConfig {
    type Error = ConfigError;

    fn try_from(r: RawPortConfig) -> Result<Self, ConfigError> {
        let d = PortConfig::default();
        let vl_cap = match r.vl_cap {
            None => d.vl_cap,
            Some(n) => VlCap::new(n as u64)
                .ok()
                .filter(|_| n >= 0)
                .ok_or_else(|| {
                    ConfigError::field("vl_cap", format!("{n} is not one of 1, 2, 4, 8, 15"))
                })?,
        };
        let datapath_bytes = match r.datapath_bits {
            None => d.datapath_bytes,
            Some(32) => 4,
            Some(64) => 8,
            Some(n) => {
                return Err(ConfigError::field(
                    "datapath_bits",
                    format!("{n} is not 32 or 64"),
                ))
            }
        };
        let low_policy = match r.low_policy.as_deref() {
            None => d.low_policy,
            Some("weight") => LowPolicy::Weight,
            Some("one-packet") => LowPolicy::OnePacket,
            Some(s) => {
                return Err(ConfigError::field(
                    "low_policy",
                    format!("{s:?} is not \"weight\" or \"one-packet\""),
                ))
            }
        };
        let num = |field: &str, v: Option<i64>, dflt: i64, lo: i64, hi: i64| match v {
            None => Ok(dflt),
            Some(v) => in_range(field, v, lo, hi),
        };
        let cfg = PortConfig {
            vl_cap,
            datapath_bytes,
            buffer_blocks: num(
                "buffer_blocks",
                r.buffer_blocks,
                d.buffer_blocks as i64,
                0,
                i64::MAX,
            )?
            .min(u16::MAX as i64 + 1) as u16,
            refresh_symbols: num(
                "refresh_symbols",
                r.refresh_symbols,
                d.refresh_symbols as i64,
                0,
                u32::MAX as i64,
            )? as u32,
            min_fcp_gap: num(
                "min_fcp_gap",
                r.min_fcp_gap,
                d.min_fcp_gap as i64,
                0,
                SPEC_REFRESH_SYMBOLS as i64,
            )? as u32,
            vl_high_limit: num(
                "vl_high_limit",
                r.vl_high_limit,
                d.vl_high_limit as i64,
                0,
                255,
            )? as u8,
            low_policy,
            high: match &r.high {
                None => d.high,
                Some(rows) => table("high", rows)?,
            },
            low: match &r.low {
                None => default_low(vl_cap),
                Some(rows) => table("low", rows)?,
            },
            update_monitor_periods: num(
                "update_monitor_periods",
                r.update_monitor_periods,
                2,
                0,
                65_535,
            )? as u32,
            overrun_periods: num("overrun_periods", r.overrun_periods, 2, 0, 65_535)? as u32,
            vl15_buffer_packets: num("vl15_buffer_packets", r.vl15_buffer_packets, 1, 1, 255)?
                as u8,
        };
        // buffer_blocks is clamped above to fit u16; anything > 4095 fails here.
        if r.buffer_blocks
            .is_some_and(|b| b > MAX_BUFFER_BLOCKS as i64)
        {
            let b = r.buffer_blocks.unwrap();
            return Err(ConfigError::field(
                "buffer_blocks",
                format!("{b} is out of range {MAX_PACKET_BLOCKS}..={MAX_BUFFER_BLOCKS}"),
            ));
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Why the arbiter never uses a table entry (docs/spec.md §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// The entry names VL15 (management, never arbitrated).
    Vl15,
    /// The entry names a VL at or above VLCap (the port has no such data VL).
    NotDataVl { vl_cap: u8 },
    /// The entry names one of the port's data VLs with weight 0.
    ZeroWeight,
}

/// A table entry the arbiter skips: accepted as written, worth a warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkippedEntry {
    pub table: TableId,
    pub index: usize,
    pub entry: ArbEntry,
    pub reason: SkipReason,
}

impl SkippedEntry {
    /// The entry's field path, e.g. `high[1]`.
    pub fn field(&self) -> String {
        format!("{}[{}]", self.table, self.index)
    }
}

impl fmt::Display for SkippedEntry {
    /// `high[1]: VL15 is never arbitrated: skipped`,
    /// `low[3]: VL5 is not a data VL of this port (VLCap 4): skipped`,
    /// `high[0]: VL2 has weight 0: skipped`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vl = self.entry.vl;
        match self.reason {
            SkipReason::Vl15 => write!(f, "{}: VL15 is never arbitrated: skipped", self.field()),
            SkipReason::NotDataVl { vl_cap } => {
                write!(f, "{}: VL{vl} is not a data VL of this port (VLCap {vl_cap}): skipped", self.field())
            }
            SkipReason::ZeroWeight => write!(f, "{}: VL{vl} has weight 0: skipped", self.field()),
        }
    }
}

impl PortConfig {
    /// Parse and validate TOML.
    pub fn from_toml(s: &str) -> Result<Self, ConfigError> {
        let raw: RawPortConfig =
            toml::from_str(s).map_err(|e| ConfigError::toml(s, &e))?;
        PortConfig::try_from(raw)
    }

    /// Check every rule a hand-built config could break.
    pub fn validate(&self) -> Result<(), ConfigError> {
        VlCap::new(self.vl_cap.get() as u64).map_err(|e| {
            ConfigError::field("vl_cap", format!("{} is not one of 1, 2, 4, 8, 15", e.0))
        })?;
        if !matches!(self.datapath_bytes, 4 | 8) {
            return Err(ConfigError::field(
                "datapath_bits",
                format!("{} is not 32 or 64", self.datapath_bytes as u32 * 8),
            ));
        }
        // A buffer must hold one maximum packet: 4096-byte MTU + 88 header bytes after the
        // LRH = 66 blocks (see blocks::MAX_PACKET_BLOCKS).
        in_range(
            "buffer_blocks",
            self.buffer_blocks as i64,
            MAX_PACKET_BLOCKS as i64,
            MAX_BUFFER_BLOCKS as i64,
        )?;
        // At least one FCP per 64 symbols is already absurd; below that the clock count
        // could round to zero.
        in_range(
            "refresh_symbols",
            self.refresh_symbols as i64,
            64,
            MAX_REFRESH_SYMBOLS as i64,
        )?;
        in_range(
            "min_fcp_gap",
            self.min_fcp_gap as i64,
            0,
            SPEC_REFRESH_SYMBOLS as i64,
        )?;
        for (name, t) in [("high", &self.high), ("low", &self.low)] {
            if t.len() > MAX_TABLE_ENTRIES {
                return Err(ConfigError::field(
                    name,
                    format!("{} entries, at most {MAX_TABLE_ENTRIES}", t.len()),
                ));
            }
            for (i, e) in t.iter().enumerate() {
                // VL15, a VL at or above VLCap and weight 0 are valid entries that the
                // arbiter skips (docs/spec.md §6): see `skipped_entries`.
                in_range(&format!("{name}[{i}].vl"), e.vl as i64, 0, 15)?;
            }
        }
        in_range(
            "vl15_buffer_packets",
            self.vl15_buffer_packets as i64,
            1,
            255,
        )?;
        Ok(())
    }

    /// The table entries the arbiter skips (docs/spec.md §6), in table order (high, then
    /// low): an entry naming VL15 or a VL at or above VLCap, or one of the port's data
    /// VLs with weight 0. One reason per entry, the VL's first.
    pub fn skipped_entries(&self) -> Vec<SkippedEntry> {
        let mut out = vec![];
        for (table, t) in [(TableId::High, &self.high), (TableId::Low, &self.low)] {
            for (index, &entry) in t.iter().enumerate() {
                let reason = if entry.vl == crate::sl2vl::VL15 {
                    SkipReason::Vl15
                } else if !self.vl_cap.has_data_vl(entry.vl) {
                    SkipReason::NotDataVl { vl_cap: self.vl_cap.get() }
                } else if entry.weight == 0 {
                    SkipReason::ZeroWeight
                } else {
                    continue;
                };
                out.push(SkippedEntry { table, index, entry, reason });
            }
        }
        out
    }

    /// Clocks of one refresh period: `refresh_symbols / W` (rounded down: earlier is safe).
    pub fn refresh_clocks(&self) -> u32 {
        self.refresh_symbols / self.datapath_bytes as u32
    }
    /// Clocks of the minimum on-change gap: `min_fcp_gap / W` rounded up.
    pub fn min_gap_clocks(&self) -> u32 {
        self.min_fcp_gap.div_ceil(self.datapath_bytes as u32)
    }
    /// Clocks of the spec's FCP period, `65536 / W` (failsafe periods are in these).
    pub fn spec_period_clocks(&self) -> u32 {
        SPEC_REFRESH_SYMBOLS / self.datapath_bytes as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_field(s: &str) -> (String, String) {
        match PortConfig::from_toml(s).unwrap_err() {
            ConfigError::Field { field, message } => (field, message),
            e => panic!("not a field error: {e}"),
        }
    }

    #[test]
    fn defaults() {
        let c = PortConfig::from_toml("").unwrap();
        assert_eq!(c, PortConfig::default());
        assert_eq!(c.vl_cap.get(), 4);
        assert_eq!(c.datapath_bytes, 4);
        assert_eq!(c.low.len(), 4);
        assert_eq!(c.refresh_clocks(), 57344 / 4);
        assert_eq!(c.spec_period_clocks(), 16384);
        c.validate().unwrap();
        assert_eq!(MAX_REFRESH_SYMBOLS, 61252);
    }

    #[test]
    fn full_file() {
        let c = PortConfig::from_toml(
            r#"
            vl_cap = 8
            datapath_bits = 64
            buffer_blocks = 3072
            refresh_symbols = 40000
            min_fcp_gap = 100
            vl_high_limit = 4
            low_policy = "one-packet"
            high = [[6, 127], [1, 63], [7, 254]]
            low = [[3, 2], [5, 9]]
            "#,
        )
        .unwrap();
        assert_eq!(c.vl_cap.get(), 8);
        assert_eq!(c.datapath_bytes, 8);
        assert_eq!(c.buffer_blocks, 3072);
        assert_eq!(c.refresh_clocks(), 5000);
        assert_eq!(c.min_gap_clocks(), 13);
        assert_eq!(c.low_policy, LowPolicy::OnePacket);
        assert_eq!(
            c.high,
            [
                ArbEntry::new(6, 127),
                ArbEntry::new(1, 63),
                ArbEntry::new(7, 254)
            ]
        );
        assert_eq!(c.low[1], ArbEntry::new(5, 9));
        // Also through serde directly.
        let c2: PortConfig = toml::from_str("vl_cap = 8\ndatapath_bits = 64").unwrap();
        assert_eq!(c2.low.len(), 8);
    }

    #[test]
    fn errors_name_the_field() {
        let (f, m) = err_field("high = [[0,1],[1,1],[2,1],[3,300]]");
        assert_eq!(
            format!("{f}: {m}"),
            "high[3].weight: 300 is out of range 0..=255"
        );
        assert_eq!(
            PortConfig::from_toml("high = [[0,1],[1,1],[2,1],[3,300]]")
                .unwrap_err()
                .to_string(),
            "high[3].weight: 300 is out of range 0..=255"
        );
        assert_eq!(err_field("low = [[16, 1]]").0, "low[0].vl");
        assert_eq!(err_field("low = [[0, 1], [-1, 9]]").0, "low[1].vl");
        assert_eq!(err_field("high = [[0, -1]]").0, "high[0].weight");
        assert_eq!(err_field("low = [[1]]").0, "low[0]");
        assert_eq!(err_field("vl_cap = 3").0, "vl_cap");
        assert_eq!(err_field("vl_cap = 16").0, "vl_cap");
        assert_eq!(err_field("datapath_bits = 16").0, "datapath_bits");
        assert_eq!(
            err_field("buffer_blocks = 65"),
            (
                "buffer_blocks".into(),
                "65 is out of range 66..=4095".into()
            )
        );
        assert_eq!(err_field("buffer_blocks = 4096").0, "buffer_blocks");
        assert_eq!(err_field("buffer_blocks = 70000").0, "buffer_blocks");
        assert_eq!(err_field("refresh_symbols = 65536").0, "refresh_symbols");
        assert_eq!(err_field("vl_high_limit = 256").0, "vl_high_limit");
        assert_eq!(err_field("low_policy = \"fair\"").0, "low_policy");
        let rows = vec!["[0, 1]"; 65].join(",");
        assert_eq!(
            err_field(&format!("high = [{rows}]")),
            ("high".into(), "65 entries, at most 64".into())
        );
        assert!(
            PortConfig::from_toml(&format!("low = [{}]", vec!["[0, 1]"; 64].join(","))).is_ok()
        );
        assert!(matches!(
            PortConfig::from_toml("bogus = 1"),
            Err(ConfigError::Toml(_))
        ));
        assert!(PortConfig::from_toml("buffer_blocks = 66").is_ok());
        // Through serde's own entry point the message survives.
        let e = toml::from_str::<PortConfig>("high = [[0, 300]]")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("high[0].weight: 300 is out of range 0..=255"),
            "{e}"
        );
    }

    /// docs/spec.md §6: entries naming VL15, a VL at or above VLCap, or weight 0 are accepted
    /// as written and named, one warning each, in table order.
    #[test]
    fn skipped_entries_are_accepted_and_named() {
        let c = PortConfig::from_toml(
            "vl_cap = 4\nhigh = [[0, 3], [15, 9], [2, 0]]\nlow = [[4, 1], [1, 64], [15, 0], [3, 8]]",
        )
        .unwrap();
        // Kept as written: the hardware, not the file reader, skips them.
        assert_eq!(c.high[1], ArbEntry::new(15, 9));
        assert_eq!(c.low[0], ArbEntry::new(4, 1));
        let w: Vec<String> = c.skipped_entries().iter().map(|s| s.to_string()).collect();
        assert_eq!(
            w,
            [
                "high[1]: VL15 is never arbitrated: skipped",
                "high[2]: VL2 has weight 0: skipped",
                "low[0]: VL4 is not a data VL of this port (VLCap 4): skipped",
                "low[2]: VL15 is never arbitrated: skipped",
            ]
        );
        // VLCap 15 has every VL below 15 as a data VL.
        let c = PortConfig::from_toml("vl_cap = 15\nlow = [[14, 1], [15, 1]]").unwrap();
        assert_eq!(c.skipped_entries().len(), 1);
        assert!(PortConfig::default().skipped_entries().is_empty());
    }

    #[test]
    fn a_duplicate_key_is_named() {
        let e = PortConfig::from_toml("vl_cap = 4\n  vl_cap = 8\n").unwrap_err();
        assert_eq!(e.to_string(), "TOML: line 2, column 3: duplicate key `vl_cap`");
    }
}
