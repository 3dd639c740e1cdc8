//! Every block's cycle-level testbench, one parameterised entry point per block: the
//! reference model, the Rust twin and Verilator in lockstep on the block's random
//! stimulus, with its coverage counters and their gates. The lockstep tests
//! (`tests/lockstep/<block>.rs`) call these entry points at their configurations and
//! seeds and assert the report; `iblink tb BLOCK` calls them at the user's.
//!
//! - `<block>.rs`: the block's coverage counters, gates, parameters and test seeds;
//! - [`harness`]: what they share (back ends built, waveforms of the first clocks, the
//!   lockstep run, the first mismatch);
//! - [`report`]: the report (clocks, gates, the mismatch by field);
//! - [`params`]: parameters given as `NAME=VALUE`.
//!
//! This file is the catalog: every block by name, its parameters read into its entry point.

pub mod crc16;
pub mod crc16_dword;
pub mod eth_port;
pub mod eth_rxbuf;
pub mod eth_txq;
pub mod failsafe;
pub mod fcp_rx;
pub mod fcp_tx;
pub mod harness;
pub mod link_port;
pub mod link_rx;
pub mod link_tx;
pub mod params;
pub mod pause_rx;
pub mod pfc_frame;
pub mod pfc_tx;
pub mod report;
pub mod rx_credits;
pub mod sl2vl;
pub mod tx_credits;
pub mod vl15_rx;
pub mod vl_arb;

use crate::blocks::SimBuildError;
use harness::TbOptions;
use iblink_model::pfc::Mode;
use iblink_rtl::catalog as cat;
use iblink_rtl::emit::Variant;
use params::{ParamSpec, Values};
use report::TbReport;

/// One block's testbench, as the command line finds it.
pub struct BlockTb {
    /// The block's name in `iblink_rtl::catalog::BLOCKS`.
    pub name: &'static str,
    pub params: &'static [ParamSpec],
    /// The emitted module these values run (its name), or why they do not make one.
    pub variant: fn(&Values) -> Result<Variant, String>,
    /// The seed for these values: the lockstep test's, and whether the test runs them
    /// (else a seed made from them).
    pub seed: fn(&Values) -> (u64, bool),
    /// The clocks the lockstep test runs at these values when a configuration runs `n`.
    pub test_cycles: fn(&Values, u64) -> u64,
    pub run: fn(&Values, u64, &TbOptions) -> Result<TbReport, SimBuildError>,
}

fn same(_: &Values, n: u64) -> u64 {
    n
}

fn mode(v: &Values) -> Mode {
    if v.get("mode") == "pause" {
        Mode::Pause
    } else {
        Mode::Pfc
    }
}

fn pfc_tx_config(v: &Values) -> pfc_tx::Config {
    pfc_tx::Config {
        queues: v.int("QUEUES"),
        width: v.int("DATA_WIDTH") as u32,
        mode: mode(v),
        zero_on_release: v.int("zero_on_release") == 1,
        target: (v.get("TARGET") == "ECP5").then_some("ECP5"),
    }
}

fn err(e: cat::RequestError) -> String {
    e.to_string()
}

/// Every block of `iblink_rtl::catalog::BLOCKS`, in its order.
pub const BLOCKS: &[BlockTb] = &[
    BlockTb {
        name: "crc16",
        params: crc16::PARAMS,
        variant: |v| cat::crc16_variant(v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (crc16::seed(v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| crc16::run(v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "crc16_dword",
        params: crc16_dword::PARAMS,
        variant: |_| cat::crc16_dword_variant(iblink_rtl::crc16_dword::WIDTH).map_err(err),
        seed: |_| (crc16_dword::SEED, true),
        test_cycles: same,
        run: |_, s, o| crc16_dword::run(s, o),
    },
    BlockTb {
        name: "tx_credits",
        params: tx_credits::PARAMS,
        variant: |v| cat::tx_credits_variant(v.int("VLS")).map_err(err),
        seed: |v| (tx_credits::seed(v.int("VLS")), true),
        test_cycles: same,
        run: |v, s, o| tx_credits::run(v.int("VLS"), s, o),
    },
    BlockTb {
        name: "rx_credits",
        params: rx_credits::PARAMS,
        variant: |v| {
            let (vls, cap) = (v.int("VLS"), v.int("CAPACITY") as u16);
            if !rx_credits::built(vls, cap) {
                return Err(format!(
                    "--param CAPACITY={cap} with VLS={vls} has no RTL back end: CAPACITY 256 at any VLS, 3072 at VLS 1, 4 or 15, 4095 at VLS 15"
                ));
            }
            cat::rx_credits_variant(vls, cap).map_err(err)
        },
        seed: |v| (rx_credits::seed(v.int("VLS")), rx_credits::TESTED.contains(&(v.int("VLS"), v.int("CAPACITY") as u16))),
        test_cycles: same,
        run: |v, s, o| rx_credits::run(v.int("VLS"), v.int("CAPACITY") as u16, s, o),
    },
    BlockTb {
        name: "sl2vl",
        params: sl2vl::PARAMS,
        variant: |v| cat::sl2vl_variant(v.int("VLS")).map_err(err),
        seed: |v| (sl2vl::seed(v.int("VLS")), true),
        test_cycles: |v, n| sl2vl::test_cycles(v.int("VLS"), n),
        run: |v, s, o| sl2vl::run(v.int("VLS"), s, o),
    },
    BlockTb {
        name: "vl15_rx",
        params: vl15_rx::PARAMS,
        variant: |v| cat::vl15_rx_variant(v.int("CAPACITY")).map_err(err),
        seed: |v| (vl15_rx::seed(v.int("CAPACITY")), true),
        test_cycles: same,
        run: |v, s, o| vl15_rx::run(v.int("CAPACITY"), s, o),
    },
    BlockTb {
        name: "vl_arb",
        params: vl_arb::PARAMS,
        variant: |v| cat::vl_arb_variant(v.int("VLS")).map_err(err),
        seed: |v| (vl_arb::seed(v.int("VLS")), true),
        test_cycles: same,
        run: |v, s, o| vl_arb::run(v.int("VLS"), s, o),
    },
    BlockTb {
        name: "fcp_rx",
        params: fcp_rx::PARAMS,
        variant: |v| cat::fcp_rx_variant(v.int("VLS"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (fcp_rx::seed(v.int("VLS"), v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| fcp_rx::run(v.int("VLS"), v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "fcp_tx",
        params: fcp_tx::PARAMS,
        variant: |v| cat::fcp_tx_variant(v.int("VLS"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (fcp_tx::seed(v.int("VLS"), v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| fcp_tx::run(v.int("VLS"), v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "link_tx",
        params: link_tx::PARAMS,
        variant: |v| cat::link_tx_variant(v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (link_tx::seed(v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| link_tx::run(v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "link_rx",
        params: link_rx::PARAMS,
        variant: |v| cat::link_rx_variant(v.int("VLS"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (link_rx::seed(v.int("VLS"), v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| link_rx::run(v.int("VLS"), v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "failsafe",
        params: failsafe::PARAMS,
        variant: |v| cat::failsafe_variant(v.int("VLS")).map_err(err),
        seed: |v| (failsafe::seed(v.int("VLS")), true),
        test_cycles: same,
        run: |v, s, o| failsafe::run(v.int("VLS"), s, o),
    },
    BlockTb {
        name: "link_port",
        params: link_port::PARAMS,
        variant: |v| cat::link_port_variant(&crate::blocks::link_port::test_params(v.int("VLS"), v.int("DATA_WIDTH"))).map_err(err),
        seed: |v| (link_port::seed(v.int("VLS"), v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| link_port::run(v.int("VLS"), v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "pfc_tx",
        params: pfc_tx::PARAMS,
        variant: |v| cat::pfc_tx_variant(v.int("QUEUES"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (pfc_tx::seed(&pfc_tx_config(v)), pfc_tx::test_seed(&pfc_tx_config(v)).is_some()),
        test_cycles: same,
        run: |v, s, o| pfc_tx::run(&pfc_tx_config(v), s, o),
    },
    BlockTb {
        name: "pfc_frame",
        params: pfc_frame::PARAMS,
        variant: |v| cat::pfc_frame_variant(v.int("QUEUES"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (pfc_frame::seed(v.int("QUEUES"), v.int("DATA_WIDTH"), mode(v)), pfc_frame::test_seed(v.int("QUEUES"), v.int("DATA_WIDTH"), mode(v)).is_some()),
        test_cycles: same,
        run: |v, s, o| pfc_frame::run(v.int("QUEUES"), v.int("DATA_WIDTH"), mode(v), s, o),
    },
    BlockTb {
        name: "pause_rx",
        params: pause_rx::PARAMS,
        variant: |v| cat::pause_rx_variant(v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (pause_rx::seed(v.int("DATA_WIDTH")), true),
        test_cycles: same,
        run: |v, s, o| pause_rx::run(v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "eth_rxbuf",
        params: eth_rxbuf::PARAMS,
        variant: |v| cat::eth_rxbuf_variant(v.int("QUEUES"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (eth_rxbuf::seed(v.int("QUEUES"), v.int("DATA_WIDTH")), eth_rxbuf::test_seed(v.int("QUEUES"), v.int("DATA_WIDTH")).is_some()),
        test_cycles: same,
        run: |v, s, o| eth_rxbuf::run(v.int("QUEUES"), v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "eth_txq",
        params: eth_txq::PARAMS,
        variant: |v| cat::eth_txq_variant(v.int("QUEUES"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (eth_txq::seed(v.int("QUEUES"), v.int("DATA_WIDTH")), eth_txq::test_seed(v.int("QUEUES"), v.int("DATA_WIDTH")).is_some()),
        test_cycles: same,
        run: |v, s, o| eth_txq::run(v.int("QUEUES"), v.int("DATA_WIDTH"), s, o),
    },
    BlockTb {
        name: "eth_port",
        params: eth_port::PARAMS,
        variant: |v| cat::eth_port_variant(v.int("QUEUES"), v.int("DATA_WIDTH")).map_err(err),
        seed: |v| (eth_port::seed(v.int("QUEUES"), v.int("DATA_WIDTH")), eth_port::test_seed(v.int("QUEUES"), v.int("DATA_WIDTH")).is_some()),
        test_cycles: same,
        run: |v, s, o| eth_port::run(v.int("QUEUES"), v.int("DATA_WIDTH"), s, o),
    },
];

/// A block's testbench by its catalog name.
pub fn block(name: &str) -> Option<&'static BlockTb> {
    BLOCKS.iter().find(|b| b.name == name)
}

/// The block and parameter values of an emitted module name (`iblink_vl_arb_vl8`): one
/// of the names its block's variants take at the values `iblink emit` lists (testbench
/// settings at their defaults).
pub fn find_module(name: &str) -> Option<(&'static BlockTb, Values)> {
    BLOCKS.iter().filter(|b| name.starts_with(&format!("iblink_{}_", b.name))).find_map(|b| {
        params::named_combinations(b.params).into_iter().find(|v| (b.variant)(v).is_ok_and(|m| m.name == name)).map(|v| (b, v))
    })
}

/// Every module name [`find_module`] finds.
pub fn module_names() -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for b in BLOCKS {
        for v in params::named_combinations(b.params) {
            if let Ok(m) = (b.variant)(&v) {
                if !out.contains(&m.name) {
                    out.push(m.name);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_block_has_a_testbench() {
        let names: Vec<&str> = BLOCKS.iter().map(|b| b.name).collect();
        assert_eq!(names, cat::BLOCKS);
        for b in BLOCKS {
            let v = Values::defaults(b.params);
            assert!((b.variant)(&v).is_ok(), "{}: the defaults make no module", b.name);
            for p in b.params {
                assert!(p.check(p.default).is_ok(), "{}: {} default {}", b.name, p.name, p.default);
            }
        }
    }

    /// Every module `iblink emit` writes for a block is found by its name, and names
    /// the values that make it.
    #[test]
    fn every_emitted_module_is_found_by_name() {
        for m in cat::variants(&cat::default_request()).unwrap() {
            let (b, v) = find_module(&m.name).unwrap_or_else(|| panic!("{} not found", m.name));
            assert_eq!(b.name, m.block);
            assert_eq!((b.variant)(&v).unwrap().name, m.name);
        }
        assert!(find_module("iblink_vl_arb_vl3").is_none());
        assert!(find_module("vl_arb").is_none());
        let (b, v) = find_module("iblink_rx_credits_vl15_buf3072").unwrap();
        assert_eq!((b.name, v.int("VLS"), v.int("CAPACITY")), ("rx_credits", 15, 3072));
    }

    /// The command line's default seed is the lockstep test's at the test's values.
    #[test]
    fn default_seeds_are_the_tests() {
        let seed = |block: &str, given: &[&str]| {
            let b = block_named(block);
            let g: Vec<String> = given.iter().map(|s| s.to_string()).collect();
            (b.seed)(&params::parse(block, b.params, &g).unwrap())
        };
        assert_eq!(seed("vl_arb", &["VLS=8"]), (0xa4b8, true));
        assert_eq!(seed("link_tx", &["DATA_WIDTH=64"]), (0x1764, true));
        assert_eq!(seed("pfc_tx", &["QUEUES=8", "DATA_WIDTH=64", "TARGET=ECP5", "mode=pause"]), (6, true));
        assert_eq!(seed("pfc_tx", &["QUEUES=3", "DATA_WIDTH=64", "zero_on_release=0"]), (2, true));
        assert!(!seed("pfc_tx", &["QUEUES=3", "DATA_WIDTH=64"]).1);
        assert_eq!(seed("eth_port", &["QUEUES=2", "DATA_WIDTH=32"]), (55, true));
        assert_eq!(seed("rx_credits", &["VLS=15", "CAPACITY=3072"]), (0x8c0f, true));
        assert!(!seed("rx_credits", &["VLS=15"]).1);
    }

    fn block_named(name: &str) -> &'static BlockTb {
        block(name).unwrap()
    }
}
