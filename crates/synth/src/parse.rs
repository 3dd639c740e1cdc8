//! Parsers for what Yosys and nextpnr print: `stat -json` cell counts, nextpnr's
//! "Max frequency for clock" lines, its device utilisation table and its critical path
//! report. Tested on captured output of Debian's Yosys 0.23 / nextpnr-ice40 0.4 and
//! YoWASP's Yosys 0.70 / nextpnr-ecp5 0.11 (`tests/data/`), whose formats differ.

use anyhow::{bail, Context};
use std::collections::BTreeMap;

/// Cell counts by type of one module (local: sub-module instances appear as cells of
/// the sub-module's type, their contents are not included).
pub type CellCounts = BTreeMap<String, u64>;

/// `stat -json` output: per-module cell counts, keyed by module name without Yosys's
/// leading backslash.
pub fn parse_stat_json(text: &str) -> anyhow::Result<BTreeMap<String, CellCounts>> {
    let v: serde_json::Value = serde_json::from_str(text).context("stat -json output is not JSON")?;
    let modules = v
        .get("modules")
        .and_then(|m| m.as_object())
        .context("stat -json output has no `modules` object")?;
    let mut out = BTreeMap::new();
    for (name, m) in modules {
        let mut counts = CellCounts::new();
        if let Some(by_type) = m.get("num_cells_by_type").and_then(|c| c.as_object()) {
            for (ty, n) in by_type {
                let n = n.as_u64().with_context(|| format!("module {name}: count of {ty} is not a number"))?;
                counts.insert(ty.trim_start_matches('\\').to_string(), n);
            }
        }
        out.insert(name.trim_start_matches('\\').to_string(), counts);
    }
    Ok(out)
}

/// Architecture family, for classifying cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ice40,
    Ecp5,
}

/// The cost columns of the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    /// 4-input LUTs (iCE40 `SB_LUT4`, ECP5 `LUT4`; ECP5's PFUMX/L6MUX21 combine LUT4s
    /// into wider functions and are counted under `other`, not as LUTs).
    pub lut4: u64,
    /// Carry cells: iCE40 `SB_CARRY` (one bit each), ECP5 `CCU2C` (two bits each).
    pub carry: u64,
    /// Flip-flops (`SB_DFF*`, `TRELLIS_FF`).
    pub ff: u64,
    /// Block RAMs (`SB_RAM40_4K`, `DP16KD`/`PDPW16KD`).
    pub bram: u64,
    /// Everything else by type (I/O, wide-function muxes, LUT RAM, DSP, ...).
    pub other: BTreeMap<String, u64>,
}

/// Sort a module's cells into the cost columns. Cells whose type is in `submodules`
/// (instances of other user modules) are left out.
pub fn classify(counts: &CellCounts, family: Family, submodules: &[&str]) -> Cost {
    let mut c = Cost::default();
    for (ty, &n) in counts {
        if submodules.contains(&ty.as_str()) {
            continue;
        }
        let t = ty.as_str();
        match family {
            Family::Ice40 => match t {
                "SB_LUT4" => c.lut4 += n,
                "SB_CARRY" => c.carry += n,
                "SB_RAM40_4K" | "SB_RAM40_4KNR" | "SB_RAM40_4KNW" | "SB_RAM40_4KNRNW" => c.bram += n,
                _ if t.starts_with("SB_DFF") => c.ff += n,
                _ => *c.other.entry(ty.clone()).or_default() += n,
            },
            Family::Ecp5 => match t {
                "LUT4" => c.lut4 += n,
                "CCU2C" => c.carry += n,
                "TRELLIS_FF" => c.ff += n,
                "DP16KD" | "PDPW16KD" => c.bram += n,
                _ => *c.other.entry(ty.clone()).or_default() += n,
            },
        }
    }
    c
}

/// The last "Max frequency for clock" value of each clock (nextpnr prints one after
/// placement and one after routing; the last is the routed one), in MHz.
pub fn parse_fmax(log: &str) -> BTreeMap<String, f64> {
    const KEY: &str = "Max frequency for clock '";
    let mut out = BTreeMap::new();
    for line in log.lines() {
        let Some(i) = line.find(KEY) else { continue };
        let rest = &line[i + KEY.len()..];
        let Some((clock, rest)) = rest.split_once("':") else { continue };
        let Some(num) = rest.split_whitespace().next() else { continue };
        if let Ok(mhz) = num.parse::<f64>() {
            if rest.contains("MHz") {
                out.insert(clock.to_string(), mhz);
            }
        }
    }
    out
}

/// The one clock's Fmax; an error when nextpnr printed none (or several clocks).
pub fn single_fmax(log: &str) -> anyhow::Result<(String, f64)> {
    let f = parse_fmax(log);
    match f.len() {
        1 => Ok(f.into_iter().next().unwrap()),
        0 => bail!("nextpnr printed no \"Max frequency for clock\" line"),
        _ => bail!("nextpnr reported {} clocks, the wrapper has one: {:?}", f.len(), f.keys().collect::<Vec<_>>()),
    }
}

/// nextpnr's "Device utilisation" table: resource → (used, available).
pub fn parse_utilisation(log: &str) -> BTreeMap<String, (u64, u64)> {
    let mut out = BTreeMap::new();
    let mut inside = false;
    for line in log.lines() {
        if line.contains("Device utilisation:") || line.contains("Device utilization:") {
            inside = true;
            out.clear(); // keep the last table
            continue;
        }
        if !inside {
            continue;
        }
        let body = line.strip_prefix("Info:").unwrap_or(line).trim();
        let parsed = body.split_once(':').and_then(|(name, rest)| {
            let (used, avail) = rest.split_once('/')?;
            let used = used.trim().parse::<u64>().ok()?;
            let avail = avail.split_whitespace().next()?.parse::<u64>().ok()?;
            Some((name.trim().to_string(), used, avail))
        });
        match parsed {
            Some((name, used, avail)) => {
                out.insert(name, (used, avail));
            }
            None => inside = false,
        }
    }
    out
}

/// Why nextpnr could not place the design, when the device is too small for it: a
/// resource of the utilisation table used beyond what the device has (`ICESTORM_LC
/// 9120/7680`), or nextpnr's own "no legal placement" error near the limit. `None` for
/// any other failure (those are errors, not measurements).
pub fn does_not_fit(log: &str) -> Option<String> {
    let over: Vec<String> = parse_utilisation(log)
        .into_iter()
        .filter(|(_, (used, avail))| used > avail)
        .map(|(name, (used, avail))| format!("{name} {used}/{avail}"))
        .collect();
    if !over.is_empty() {
        return Some(over.join(", "));
    }
    const PLACEMENT: [&str; 3] = ["Unable to find legal placement", "no BELs remaining", "Unable to place cell"];
    log.lines()
        .find(|l| PLACEMENT.iter().any(|k| l.contains(k)))
        .map(|l| l.trim().trim_start_matches("ERROR:").trim().to_string())
}

/// The critical path nextpnr reports for a clock.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CriticalPath {
    /// Cell (with pin) the path starts at.
    pub from: String,
    /// Cell (with pin) it ends at.
    pub to: String,
    /// Cells the path passes through, in order (their output pins), start included.
    pub cells: Vec<String>,
    pub logic_ns: Option<f64>,
    pub routing_ns: Option<f64>,
}

/// The last "Critical path report for clock" section (the routed design's).
pub fn parse_critical_path(log: &str) -> Option<CriticalPath> {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.iter().rposition(|l| l.contains("Critical path report for clock"))?;
    let mut p = CriticalPath::default();
    let mut sinks = Vec::new();
    for line in &lines[start + 1..] {
        let body = line.strip_prefix("Info:").unwrap_or(line).trim();
        if body.is_empty() || body.contains("Critical path report") {
            break;
        }
        if let Some((logic, routing)) = body.split_once("ns logic,") {
            p.logic_ns = logic.trim().parse().ok();
            p.routing_ns = routing.trim().strip_suffix("ns routing").and_then(|r| r.trim().parse().ok());
            break;
        }
        let toks: Vec<&str> = body.split_whitespace().collect();
        for w in toks.windows(2) {
            match w[0] {
                // nextpnr 0.11 ends with a "setup ... Source <ff>.<pin>" line: that is
                // the endpoint, not a cell on the path.
                "Source" if !toks.contains(&"setup") => p.cells.push(w[1].to_string()),
                "Sink" | "Setup" => sinks.push(w[1].to_string()),
                _ => {}
            }
        }
    }
    p.from = p.cells.first()?.clone();
    p.to = sinks.last()?.clone();
    Some(p)
}

impl CriticalPath {
    /// Whether the path goes through instance `inst` (a cell after the start register,
    /// or the endpoint, is named `inst.*`). The start register may be the wrapper's
    /// (its shift chain stands in for the block's upstream register); a path that never
    /// enters the block is the wrapper's own.
    pub fn through(&self, inst: &str) -> bool {
        let pre = format!("{inst}.");
        self.cells.iter().skip(1).chain([&self.to]).any(|c| c.starts_with(&pre))
    }

    /// LUT levels: cells on the path after the start register.
    pub fn logic_levels(&self) -> usize {
        self.cells.len().saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT_023: &str = include_str!("../tests/data/yosys-0.23-ice40-stat.json");
    const STAT_070: &str = include_str!("../tests/data/yosys-0.70-ecp5-stat.json");
    const PNR_ICE40: &str = include_str!("../tests/data/nextpnr-ice40-0.4.log");
    const PNR_ECP5: &str = include_str!("../tests/data/nextpnr-ecp5-0.11.log");

    #[test]
    fn stat_json_of_both_yosys_versions() {
        let s = parse_stat_json(STAT_023).unwrap();
        let m = &s["iblink_crc16_w8"];
        assert_eq!(m["SB_LUT4"], 73);
        assert_eq!(m["SB_DFFESR"], 32);
        let c = classify(m, Family::Ice40, &[]);
        assert_eq!((c.lut4, c.carry, c.ff, c.bram), (73, 0, 33, 0));
        let w = classify(&s["wrap"], Family::Ice40, &["iblink_crc16_w8"]);
        assert_eq!((w.lut4, w.ff), (6, 36));
        assert!(w.other.is_empty(), "the sub-module instance is not a cost: {:?}", w.other);

        let s = parse_stat_json(STAT_070).unwrap();
        let c = classify(&s["iblink_crc16_w8"], Family::Ecp5, &[]);
        assert_eq!((c.lut4, c.ff, c.carry, c.bram), (116, 33, 0, 0));
        assert_eq!(c.other["PFUMX"], 25);
        assert_eq!(c.other["L6MUX21"], 16);
    }

    #[test]
    fn stat_json_errors() {
        assert!(parse_stat_json("not json").is_err());
        assert!(parse_stat_json("{\"design\": {}}").is_err());
    }

    #[test]
    fn fmax_takes_the_routed_value() {
        let f = parse_fmax(PNR_ICE40);
        assert_eq!(f.len(), 1);
        assert_eq!(f["clk$SB_IO_IN_$glb_clk"], 173.01);
        let (clk, mhz) = single_fmax(PNR_ECP5).unwrap();
        assert_eq!(clk, "$glbnet$clk$TRELLIS_IO_IN");
        assert_eq!(mhz, 237.42);
        let pass = "Info: Max frequency for clock 'clk': 12.50 MHz (PASS at 12.00 MHz)\n";
        assert_eq!(single_fmax(pass).unwrap().1, 12.5);
        assert!(single_fmax("Info: Program finished normally.\n").is_err());
        let two = format!("{pass}Info: Max frequency for clock 'x': 1.00 MHz (PASS at 1.00 MHz)\n");
        assert!(single_fmax(&two).is_err());
    }

    #[test]
    fn utilisation_tables() {
        let u = parse_utilisation(PNR_ICE40);
        assert_eq!(u["ICESTORM_LC"], (126, 7680));
        assert_eq!(u["SB_IO"], (4, 256));
        assert_eq!(u.len(), 6);
        let u = parse_utilisation(PNR_ECP5);
        assert_eq!(u["TRELLIS_FF"], (69, 43848));
        assert_eq!(u["TRELLIS_COMB"], (123, 43848));
        assert_eq!(u["DP16KD"], (0, 108));
    }

    #[test]
    fn critical_path_in_both_formats() {
        let p = parse_critical_path(PNR_ICE40).unwrap();
        assert_eq!(p.from, "sh_SB_DFF_Q_9_DFFLC.O");
        assert_eq!(p.to, "u.crc_SB_DFFESR_Q_DFFLC.CEN");
        assert_eq!(p.cells.len(), 4, "{:?}", p.cells);
        assert_eq!(p.logic_ns, Some(2.0));
        assert_eq!(p.routing_ns, Some(3.8));
        assert!(p.through("u"), "starts in the wrapper's shift chain, ends in the block");
        let wrapper_only = CriticalPath { from: "sh_Q.O".into(), to: "f1_Q.D".into(), cells: vec!["sh_Q.O".into(), "f1_LUT.O".into()], ..Default::default() };
        assert!(!wrapper_only.through("u"));

        let p = parse_critical_path(PNR_ECP5).unwrap();
        assert_eq!(p.from, "u.state_TRELLIS_FF_Q_12.Q");
        assert_eq!(p.to, "u.state_TRELLIS_FF_Q_12.M");
        assert_eq!(p.logic_ns, Some(1.64));
        assert_eq!(p.routing_ns, Some(2.57));
        assert!(p.through("u"));
        assert_eq!(p.logic_levels(), 5, "{:?}", p.cells);
        assert!(parse_critical_path("Info: nothing\n").is_none());
    }

    #[test]
    fn over_capacity_and_placement_failures_do_not_fit() {
        let over = "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:  9120/ 7680   118%\nInfo: \t        ICESTORM_RAM:     1/   32     3%\n\nERROR: Failed to place\n";
        assert_eq!(does_not_fit(over).as_deref(), Some("ICESTORM_LC 9120/7680"));
        let near = "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:  7600/ 7680    98%\n\nERROR: Unable to find legal placement for all cells, design is probably at utilisation limit.\n";
        assert_eq!(
            does_not_fit(near).as_deref(),
            Some("Unable to find legal placement for all cells, design is probably at utilisation limit.")
        );
        let other = "Info: Device utilisation:\nInfo: \t         ICESTORM_LC:  100/ 7680     1%\n\nERROR: cell 'x' has no port 'y'\n";
        assert_eq!(does_not_fit(other), None);
    }
}
