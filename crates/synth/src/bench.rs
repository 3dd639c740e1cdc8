//! Benchmark targets for blocks that have one (reported, never a pass/fail test).

use crate::target::Target;

/// A cost/speed target for one module on one device, with its open anchor.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Benchmark {
    /// The module's emitted name; `*`: every module on that target without a target of
    /// its own.
    pub module: &'static str,
    #[serde(serialize_with = "ser_target")]
    pub target: Target,
    pub max_lut4: Option<u64>,
    pub min_fmax_mhz: Option<f64>,
    /// What the numbers come from.
    pub anchor: &'static str,
}

fn ser_target<S: serde::Serializer>(t: &Target, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name())
}

/// The CRC-16 target at 32 bits a clock applies to both units: the link path's
/// (`crc16_dword`, whole dwords, like the anchor) and the general one (`crc16`, any
/// byte count on any word, which the anchor does not do).
pub const BENCHMARKS: &[Benchmark] = &[
    Benchmark {
        module: "iblink_crc16_dword_w32",
        target: Target::Ice40Hx8k,
        max_lut4: Some(129),
        min_fmax_mhz: Some(225.0),
        anchor: "verilog-ethernet lfsr CRC16 at 32 bits per clock (full words only): 129 LUT4, 205-224 MHz register-to-register on HX8K",
    },
    Benchmark {
        module: "iblink_crc16_w32",
        target: Target::Ice40Hx8k,
        max_lut4: Some(129),
        min_fmax_mhz: Some(225.0),
        anchor: "verilog-ethernet lfsr CRC16 at 32 bits per clock (full words only): 129 LUT4, 205-224 MHz register-to-register on HX8K",
    },
    Benchmark {
        module: "iblink_tx_credits_vl8",
        target: Target::Ice40Hx8k,
        max_lut4: Some(8 * 50),
        min_fmax_mhz: Some(150.0),
        anchor: "issue target: at most 50 LUT4 per VL, 150 MHz, for 8 VLs",
    },
    Benchmark {
        module: "iblink_vl_arb_vl15",
        target: Target::Ice40Hx8k,
        max_lut4: None,
        min_fmax_mhz: Some(100.0),
        anchor: "issue target: the VL arbiter, 15 VLs, 64 + 64 entries, zero-bubble, at least 100 MHz on HX8K (a naive 16-VL x 64-entry WRR arbiter: 1844 LUT4, 52-54 MHz)",
    },
    Benchmark {
        module: "iblink_link_port_vl4_w32",
        target: Target::Ice40Hx8k,
        max_lut4: None,
        min_fmax_mhz: Some(100.0),
        anchor: "issue target: the link port, VLCap 4, 32-bit, at least 100 MHz on HX8K",
    },
    Benchmark {
        module: "iblink_pfc_tx_q8_w64",
        target: Target::Ice40Hx8k,
        max_lut4: Some(600),
        min_fmax_mhz: Some(150.0),
        anchor: "issue target: pfc_tx with 8 queues at most 600 LUT4 and 150 MHz on HX8K (verilog-ethernet mac_pause_ctrl_tx, PAUSE + PFC, no fill trigger: 1197 LUT4, 78-82 MHz)",
    },
    Benchmark {
        module: "iblink_pfc_tx_q8_w32",
        target: Target::Ice40Hx8k,
        max_lut4: Some(600),
        min_fmax_mhz: Some(150.0),
        anchor: "issue target: pfc_tx with 8 queues at most 600 LUT4 and 150 MHz on HX8K (verilog-ethernet mac_pause_ctrl_tx, PAUSE + PFC, no fill trigger: 1197 LUT4, 78-82 MHz)",
    },
    Benchmark {
        module: "iblink_eth_port_q8_w64_rx8k_tx2k",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(156.25),
        anchor: "issue 40 target: the Ethernet port at 10GbE (XAUI: 64 bits at 156.25 MHz) on the transceiver part, best of seeds 1-3 and every seed at least 150",
    },
    Benchmark {
        module: "iblink_pfc_tx_q8_w64",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(200.0),
        anchor: "issue 40 target: every Ethernet block at 64 bits at least 200 MHz on the transceiver part, so none limits the port (pfc_tx)",
    },
    Benchmark {
        module: "iblink_pfc_frame_q8_w64",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(200.0),
        anchor: "issue 40 target: every Ethernet block at 64 bits at least 200 MHz on the transceiver part, so none limits the port (pfc_frame)",
    },
    Benchmark {
        module: "iblink_pause_rx_w64",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(200.0),
        anchor: "issue 40 target: every Ethernet block at 64 bits at least 200 MHz on the transceiver part, so none limits the port (pause_rx)",
    },
    Benchmark {
        module: "iblink_eth_rxbuf_q8_w64_8k",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(200.0),
        anchor: "issue 40 target: every Ethernet block at 64 bits at least 200 MHz on the transceiver part, so none limits the port (eth_rxbuf)",
    },
    Benchmark {
        module: "iblink_eth_txq_q8_w64_2k",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(200.0),
        anchor: "issue 40 target: every Ethernet block at 64 bits at least 200 MHz on the transceiver part, so none limits the port (eth_txq)",
    },
    Benchmark {
        module: "iblink_link_port_vl4_w64",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(156.25),
        anchor: "issue 40 target: the link port at 64 bits with 25 % over 4x SDR's 125 MHz, on the Ethernet port's clock, best of seeds 1-3",
    },
    Benchmark {
        module: "iblink_link_port_vl8_w64",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(156.25),
        anchor: "issue 40 target: the link port at 64 bits with 25 % over 4x SDR's 125 MHz, on the Ethernet port's clock, best of seeds 1-3",
    },
    Benchmark {
        module: "iblink_link_port_vl15_w64",
        target: Target::Ecp5_5g45,
        max_lut4: None,
        min_fmax_mhz: Some(156.25),
        anchor: "issue 40 target: the link port at 64 bits with 25 % over 4x SDR's 125 MHz, on the Ethernet port's clock, best of seeds 1-3",
    },
    Benchmark {
        module: "iblink_link_port_vl4_w64",
        target: Target::Ecp5_45k,
        max_lut4: None,
        min_fmax_mhz: Some(125.0),
        anchor: "issue 40 target: the link port, VLCap 4, 64 bits, at 4x SDR's 125 MHz on the part without transceivers (the design, not the speed grade, carries it)",
    },
    Benchmark {
        module: "*",
        target: Target::Ecp5_45k,
        max_lut4: None,
        min_fmax_mhz: Some(200.0),
        anchor: "issue target: every block at least 200 MHz on ECP5-45k",
    },
];

/// The module's own target on `target`, else the one for every module there.
pub fn benchmark_for(module: &str, target: Target) -> Option<&'static Benchmark> {
    let on = |m: &str| BENCHMARKS.iter().find(|b| b.module == m && b.target == target);
    on(module).or_else(|| on("*"))
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchmarkResult {
    pub benchmark: Benchmark,
    pub lut4_met: Option<bool>,
    pub fmax_met: Option<bool>,
    pub met: bool,
}

impl Benchmark {
    /// `fmax_mhz` is `None` when the design did not fit the device (a miss).
    pub fn evaluate(&self, lut4: u64, fmax_mhz: Option<f64>) -> BenchmarkResult {
        let lut4_met = self.max_lut4.map(|m| lut4 <= m);
        let fmax_met = self.min_fmax_mhz.map(|m| fmax_mhz.is_some_and(|f| f >= m));
        BenchmarkResult {
            benchmark: self.clone(),
            lut4_met,
            fmax_met,
            met: lut4_met.unwrap_or(true) && fmax_met.unwrap_or(true),
        }
    }

    /// The targets as text: `≤{max_lut4} LUT4, ≥{min_fmax_mhz} MHz`, the ones it has.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(l) = self.max_lut4 {
            parts.push(format!("≤{l} LUT4"));
        }
        if let Some(f) = self.min_fmax_mhz {
            parts.push(format!("≥{f} MHz"));
        }
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_rate_targets_are_per_part() {
        let port = "iblink_link_port_vl4_w64";
        assert_eq!(benchmark_for(port, Target::Ecp5_5g45).unwrap().min_fmax_mhz, Some(156.25));
        assert_eq!(benchmark_for(port, Target::Ecp5_45k).unwrap().min_fmax_mhz, Some(125.0));
        let eth = benchmark_for("iblink_eth_port_q8_w64_rx8k_tx2k", Target::Ecp5_5g45).unwrap();
        assert!(!eth.evaluate(7000, Some(156.2)).met && eth.evaluate(7000, Some(156.25)).met);
        assert_eq!(benchmark_for("iblink_eth_txq_q8_w64_2k", Target::Ecp5_5g45).unwrap().min_fmax_mhz, Some(200.0));
        assert!(benchmark_for("iblink_eth_txq_q8_w32_2k", Target::Ecp5_5g45).is_none(), "no target at 32 bits");
    }

    #[test]
    fn crc_target_is_checked_on_both_axes() {
        let b = benchmark_for("iblink_crc16_w32", Target::Ice40Hx8k).unwrap();
        assert!(b.evaluate(129, Some(225.0)).met);
        assert!(!b.evaluate(129, None).met, "does not fit: missed");
        let r = b.evaluate(130, Some(300.0));
        assert_eq!((r.lut4_met, r.fmax_met, r.met), (Some(false), Some(true), false));
        let r = b.evaluate(100, Some(224.9));
        assert_eq!((r.lut4_met, r.fmax_met, r.met), (Some(true), Some(false), false));
        let e = benchmark_for("iblink_crc16_w32", Target::Ecp5_45k).unwrap();
        assert_eq!((e.module, e.describe()), ("*", "≥200 MHz".to_string()));
        assert!(!e.evaluate(10_000, Some(199.9)).met && e.evaluate(10_000, Some(200.0)).met);
        assert!(benchmark_for("iblink_crc16_w8", Target::Ice40Hx8k).is_none());
        assert!(benchmark_for("iblink_crc16_w8", Target::Ice40Up5k).is_none());
        let p = benchmark_for("iblink_link_port_vl4_w32", Target::Ice40Hx8k).unwrap();
        assert_eq!(p.describe(), "≥100 MHz");
        assert_eq!(b.describe(), "≤129 LUT4, ≥225 MHz");
        let d = benchmark_for("iblink_crc16_dword_w32", Target::Ice40Hx8k).unwrap();
        assert_eq!(d.describe(), "≤129 LUT4, ≥225 MHz");
        let a = benchmark_for("iblink_vl_arb_vl15", Target::Ice40Hx8k).unwrap();
        assert!(!a.evaluate(3923, Some(92.5)).met && a.evaluate(3923, Some(100.0)).met);
        assert!(benchmark_for("iblink_vl_arb_vl4", Target::Ice40Hx8k).is_none());
        let t = benchmark_for("iblink_tx_credits_vl8", Target::Ice40Hx8k).unwrap();
        assert_eq!(t.describe(), "≤400 LUT4, ≥150 MHz");
    }
}
