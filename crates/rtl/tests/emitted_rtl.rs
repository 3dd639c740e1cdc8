//! Snapshots of the emitted RTL (one feature per snapshot; review with
//! `cargo insta review`), and the check that `hdl_out/` is what the generator emits now.

use iblink_rtl::catalog::{crc16_variant, default_request, generate, rx_credits_variant, tx_credits_variant};
use std::collections::BTreeSet;
use std::path::Path;

/// CRC-16 unit: the module's ports and parameters at every width (docs/spec.md §3).
#[test]
fn crc16_interface() {
    let s: String = iblink_rtl::crc16::WIDTHS.iter().map(|&w| crc16_variant(w).unwrap().interface()).collect();
    insta::assert_snapshot!("crc16_interface", s);
}

/// CRC-16 unit: the generated next-state equations for each word width (the register
/// after 1 to W/8 bytes).
#[test]
fn crc16_xor_snapshots() {
    for w in iblink_rtl::crc16::WIDTHS {
        insta::assert_snapshot!(format!("crc16_xor_w{w}"), iblink_rtl::crc16::xor_module(w).text);
    }
}

/// The pipelined dword CRC unit (the link path's 32-bit CRC): its ports.
#[test]
fn crc16_dword_interface() {
    insta::assert_snapshot!("crc16_dword_interface", iblink_rtl::catalog::crc16_dword_variant(32).unwrap().interface());
}

/// The pipelined dword CRC unit: its generated two-level XOR networks.
#[test]
fn crc16_dword_xor_snapshot() {
    insta::assert_snapshot!("crc16_dword_xor", iblink_rtl::crc16_dword::xor_module().text);
}

/// TX credits: the module's ports and parameters at every VLCap (docs/spec.md §4, §7).
#[test]
fn tx_credits_interface() {
    let s: String = [1, 2, 4, 8, 15].iter().map(|&n| tx_credits_variant(n).unwrap().interface()).collect();
    insta::assert_snapshot!("tx_credits_interface", s);
}

/// RX credits: the module's ports and parameters at every VLCap with the default
/// 256-block buffer, and with seed 000's 3072-block buffer (where FCCL is capped at
/// ABR + 2048) (docs/spec.md §4, §7).
#[test]
fn rx_credits_interface() {
    let mut s: String = [1, 2, 4, 8, 15].iter().map(|&n| rx_credits_variant(n, 256).unwrap().interface()).collect();
    s.push_str(&rx_credits_variant(1, 3072).unwrap().interface());
    insta::assert_snapshot!("rx_credits_interface", s);
}

/// SLtoVL table: the module's ports and parameters at every VLCap (docs/spec.md §7).
#[test]
fn sl2vl_interface() {
    let s: String = [1, 2, 4, 8, 15].iter().map(|&n| iblink_rtl::catalog::sl2vl_variant(n).unwrap().interface()).collect();
    insta::assert_snapshot!("sl2vl_interface", s);
}

/// VL15 receive buffer: the module's ports and parameters at every generated capacity.
/// PAUSE/PFC transmit side: the module's ports at 1 queue / 32 bits and 8 queues / 64 bits.
#[test]
fn pfc_tx_interface() {
    let s: String = [(1, 32), (8, 64)].iter().map(|&(q, w)| iblink_rtl::catalog::pfc_tx_variant(q, w).unwrap().interface()).collect();
    insta::assert_snapshot!("pfc_tx_interface", s);
}

/// PAUSE/PFC frame builder: the module's ports at 1 queue / 32 bits and 8 queues / 64 bits.
#[test]
fn pfc_frame_interface() {
    let s: String = [(1, 32), (8, 64)].iter().map(|&(q, w)| iblink_rtl::catalog::pfc_frame_variant(q, w).unwrap().interface()).collect();
    insta::assert_snapshot!("pfc_frame_interface", s);
}

/// PAUSE/PFC receive side: the module's ports at 32 and 64 bits.
#[test]
fn pause_rx_interface() {
    let s: String = [32, 64].iter().map(|&w| iblink_rtl::catalog::pause_rx_variant(w).unwrap().interface()).collect();
    insta::assert_snapshot!("pause_rx_interface", s);
}

/// Ethernet receive buffers: the module's ports with 1 and 4 queues at 32 and 64 bits.
#[test]
fn eth_rxbuf_interface() {
    let s: String = [(1, 32), (4, 32), (1, 64), (4, 64)].iter().map(|&(q, w)| iblink_rtl::catalog::eth_rxbuf_variant(q, w).unwrap().interface()).collect();
    insta::assert_snapshot!("eth_rxbuf_interface", s);
}

/// Ethernet transmit queues: the module's ports with 1 and 4 queues at 32 and 64 bits.
#[test]
fn eth_txq_interface() {
    let s: String = [(1, 32), (4, 32), (1, 64), (4, 64)].iter().map(|&(q, w)| iblink_rtl::catalog::eth_txq_variant(q, w).unwrap().interface()).collect();
    insta::assert_snapshot!("eth_txq_interface", s);
}

/// The Ethernet port top: its ports with 2 queues at 32 bits.
#[test]
fn eth_port_interface() {
    insta::assert_snapshot!("eth_port_interface", iblink_rtl::catalog::eth_port_variant(2, 32).unwrap().interface());
}

/// The Ethernet FCS equations at 32 bits a clock (the builder's register step).
#[test]
fn crc32_xor_w32_snapshot() {
    insta::assert_snapshot!("crc32_xor_w32", iblink_rtl::pfc_frame::xor_module(32).text);
}

#[test]
fn vl15_rx_interface() {
    let s: String = iblink_rtl::catalog::VL15_CAPACITIES
        .iter()
        .map(|&c| iblink_rtl::catalog::vl15_rx_variant(c).unwrap().interface())
        .collect();
    insta::assert_snapshot!("vl15_rx_interface", s);
}

/// Data-VL arbiter: the module's ports and parameters at every VLCap (docs/spec.md §6, §7).
#[test]
fn vl_arb_interface() {
    let s: String = [1, 2, 4, 8, 15].iter().map(|&n| iblink_rtl::catalog::vl_arb_variant(n).unwrap().interface()).collect();
    insta::assert_snapshot!("vl_arb_interface", s);
}

/// FCP RX framer: the module's ports and parameters at every VLCap and link word width
/// (docs/spec.md §2-§4).
#[test]
fn fcp_rx_interface() {
    let mut s = String::new();
    for w in [32, 64] {
        for n in [1, 2, 4, 8, 15] {
            s.push_str(&iblink_rtl::catalog::fcp_rx_variant(n, w).unwrap().interface());
        }
    }
    insta::assert_snapshot!("fcp_rx_interface", s);
}

/// The LPCRC equations (docs/spec.md §3) as the generated module both FCP framers
/// instantiate.
#[test]
fn lpcrc_module() {
    insta::assert_snapshot!("lpcrc_module", iblink_rtl::fcp_rx::lpcrc::module().text);
}

/// Link TX path: the module's ports and parameters at both link word widths (docs/spec.md §2,
/// §3, §5).
#[test]
fn link_tx_interface() {
    let s: String = iblink_rtl::link_tx::WIDTHS.iter().map(|&w| iblink_rtl::catalog::link_tx_variant(w).unwrap().interface()).collect();
    insta::assert_snapshot!("link_tx_interface", s);
}

/// Link TX path: the generated VCRC equations at each width (the data and state shares
/// of the CRC-16 update, split as the pipeline registers them; docs/spec.md §3).
#[test]
fn link_tx_vcrc_equations() {
    for w in iblink_rtl::link_tx::WIDTHS {
        insta::assert_snapshot!(format!("link_tx_vcrc_w{w}"), iblink_rtl::link_tx::vcrc_module(w).text);
    }
}

/// Link RX classifier: the module's ports and parameters at every VLCap and link word
/// width (docs/spec.md §1, §3, §4, §7).
#[test]
fn link_rx_interface() {
    let mut s = String::new();
    for w in iblink_rtl::link_rx::WIDTHS {
        for n in iblink_rtl::link_rx::VL_CAPS {
            s.push_str(&iblink_rtl::catalog::link_rx_variant(n, w).unwrap().interface());
        }
    }
    insta::assert_snapshot!("link_rx_interface", s);
}

/// Link RX classifier: the generated VCRC equations at each width (the data and state
/// parts of the CRC-16 update over a whole word; docs/spec.md §3).
#[test]
fn link_rx_vcrc_equations() {
    for w in iblink_rtl::link_rx::WIDTHS {
        insta::assert_snapshot!(format!("link_rx_vcrc_w{w}"), iblink_rtl::link_rx::vcrc_module(w).text);
    }
}

/// FCP TX framer and scheduler: the module's ports and parameters at every VLCap and
/// link word width (docs/spec.md §2, §3, §5).
#[test]
fn fcp_tx_interface() {
    let mut s = String::new();
    for w in [32, 64] {
        for n in [1, 2, 4, 8, 15] {
            s.push_str(&iblink_rtl::catalog::fcp_tx_variant(n, w).unwrap().interface());
        }
    }
    insta::assert_snapshot!("fcp_tx_interface", s);
}

/// Failsafe (update monitor, overrun threshold): the module's ports and parameters at
/// every VLCap (docs/spec.md §8).
#[test]
fn failsafe_interface() {
    let s: String = [1, 2, 4, 8, 15].iter().map(|&n| iblink_rtl::catalog::failsafe_variant(n).unwrap().interface()).collect();
    insta::assert_snapshot!("failsafe_interface", s);
}

/// The instances of a port's top: each block's module, its parameters, its instance
/// name (the connections are checked by the lockstep and lint; this records the
/// structure).
fn instances(p: &iblink_rtl::link_port::PortParams) -> String {
    let v = iblink_rtl::catalog::link_port_variant(p).unwrap();
    v.modules[0]
        .text
        .lines()
        .filter(|l| l.starts_with("iblink_") && l.ends_with(" ("))
        .map(|l| format!("{}\n", l.trim_end_matches(" (")))
        .collect()
}

/// The default port at every VLCap and link word width (docs/spec.md §2-§8): the one
/// module's instances (the same text for all), then each configuration's parameters.
#[test]
fn link_port_instances() {
    let mut s = instances(&iblink_rtl::link_port::PortParams::defaults(4, 32));
    for w in [32, 64] {
        for n in [1, 2, 4, 8, 15] {
            let v = iblink_rtl::catalog::link_port_variant(&iblink_rtl::link_port::PortParams::defaults(n, w)).unwrap();
            assert_eq!(instances(&iblink_rtl::link_port::PortParams::defaults(n, w)), instances(&iblink_rtl::link_port::PortParams::defaults(4, 32)));
            s.push_str(&format!("== VLCap {n}, {w} bits: {}\n", v.interface().lines().next().unwrap()));
        }
    }
    insta::assert_snapshot!("link_port_instances", s);
}

/// A port generated from a configuration (`iblink emit --config`): 64 bits, VLCap 2, a
/// smaller buffer and its own tables, which the power-up loader writes: the port
/// logic's parameters carry the configuration (`LOAD_TABLE`: entry k at bits
/// [19k+18:19k] = {low, index, VL, weight}).
#[test]
fn link_port_configured_table() {
    let mut p = iblink_rtl::link_port::PortParams::defaults(2, 64);
    p.buffer_blocks = 200;
    p.vl_high_limit = 3;
    p.high = vec![(1, 32), (0, 4)];
    p.low = vec![(0, 255)];
    let ctl = iblink_rtl::port_ctrl::PortCtrlParams::verilog_params(&iblink_rtl::link_port::netlist::ctrl_params(&p));
    let s: String = ctl.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    // The table as docs/spec.md §6 entries, decoded back from the parameter.
    let table = &ctl.iter().find(|(k, _)| k == "LOAD_TABLE").unwrap().1;
    let hex = table.split('h').nth(1).unwrap();
    let bits = u128::from_str_radix(hex, 16).unwrap();
    let entry = |k: u32| (bits >> (19 * k)) & 0x7ffff;
    let decoded: Vec<(u128, u128, u128, u128)> =
        (0..3).map(|k| (entry(k) >> 18, (entry(k) >> 12) & 0x3f, (entry(k) >> 8) & 0xf, entry(k) & 0xff)).collect();
    assert_eq!(decoded, vec![(0, 0, 1, 32), (0, 1, 0, 4), (1, 0, 0, 255)]);
    let v = iblink_rtl::catalog::link_port_variant(&p).unwrap();
    insta::assert_snapshot!("link_port_vl2_w64_configured", s + v.interface().lines().next().unwrap());
}

/// `hdl_out/` is committed: it must equal, file for file, what the generator emits now.
#[test]
fn hdl_out_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../hdl_out");
    let modules = generate(&default_request()).unwrap();
    let want: BTreeSet<String> = modules.iter().map(|m| m.file_name()).collect();
    let have: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("hdl_out/ exists")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".v") || n.ends_with(".f") || n.ends_with(".core"))
        .collect();
    assert_eq!(have, want, "hdl_out/ holds other files than the generator emits; run `make emit`");
    for m in &modules {
        let on_disk = std::fs::read_to_string(dir.join(m.file_name())).unwrap();
        assert!(
            on_disk == m.text,
            "hdl_out/{} differs from what the generator emits now; run `make emit` and review the diff",
            m.file_name()
        );
    }
}

/// `iblink synth` sizes the Ethernet memories for the boards (8 KB a receive queue: a
/// 4096-byte queue with a fill trigger and a 1522-byte frame; 2 KB a transmit queue):
/// the same modules and ports as the emitted variants, `ADDR_BITS` from the bytes, and
/// every other block as emitted.
#[test]
fn synth_variants_size_the_ethernet_memories() {
    use iblink_rtl::catalog::{synth_variants, variants, EmitRequest};
    let req = EmitRequest { blocks: vec![], crc_widths: vec![] };
    let (emitted, synth) = (variants(&req).unwrap(), synth_variants(&req).unwrap());
    assert_eq!(emitted.len(), synth.len());

    let mut sized = 0;
    for (e, s) in emitted.iter().zip(&synth) {
        assert_eq!(e.ports, s.ports, "{}", s.name);
        let width = if e.name.contains("_w64") { 64 } else { 32 };
        match e.block {
            "eth_rxbuf" | "eth_txq" => {
                let (bytes, k) = if e.block == "eth_rxbuf" { (8192, "8k") } else { (2048, "2k") };
                assert_eq!(s.name, format!("{}_{k}", e.name));
                assert_eq!(s.modules, e.modules);
                let words: usize = bytes / (width / 8);
                assert_eq!(s.param("ADDR_BITS"), Some(words.trailing_zeros().to_string().as_str()), "{}", s.name);
                sized += 1;
            }
            "eth_port" => {
                assert_eq!(s.name, format!("{}_rx8k_tx2k", e.name));
                // One parameterised top: the memories are its parameters, passed down.
                let top = &s.modules[0].text;
                assert_eq!(top, &e.modules[0].text);
                assert!(top.contains(".ADDR_BITS(RX_ADDR_BITS)) rxb (") && top.contains(".ADDR_BITS(TX_ADDR_BITS)) txq ("), "{top}");
                let (rx, tx) = if width == 64 { ("10", "8") } else { ("11", "9") };
                assert_eq!((s.param("RX_ADDR_BITS"), s.param("TX_ADDR_BITS")), (Some(rx), Some(tx)), "{}", s.name);
                assert_eq!(s.modules[1..], e.modules[1..]);
                sized += 1;
            }
            _ => assert_eq!((&s.name, &s.params), (&e.name, &e.params)),
        }
    }
    assert_eq!(sized, 18, "six configurations of each Ethernet block");
}
