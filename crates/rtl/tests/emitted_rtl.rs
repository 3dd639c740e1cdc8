//! Snapshots of the emitted RTL (one feature per snapshot; review with
//! `cargo insta review`), and the check that `hdl_out/` is what the generator emits now.

use iblink_rtl::catalog::{crc16_variant, default_request, generate, rx_credits_variant, tx_credits_variant};
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn crc16_w8_snapshot() {
    insta::assert_snapshot!("crc16_w8", crc16_variant(8).unwrap().text());
}

#[test]
fn crc16_w16_snapshot() {
    insta::assert_snapshot!("crc16_w16", crc16_variant(16).unwrap().text());
}

#[test]
fn crc16_w32_snapshot() {
    insta::assert_snapshot!("crc16_w32", crc16_variant(32).unwrap().text());
}

#[test]
fn crc16_w64_snapshot() {
    insta::assert_snapshot!("crc16_w64", crc16_variant(64).unwrap().text());
}

/// The pipelined dword CRC unit (the link path's 32-bit CRC).
#[test]
fn crc16_dword_w32_snapshot() {
    insta::assert_snapshot!("crc16_dword_w32", iblink_rtl::catalog::crc16_dword_variant(32).unwrap().text());
}

/// TX credits: the module's ports and parameters at every VLCap (SPEC.md §4, §7).
#[test]
fn tx_credits_interface() {
    let s: String = [1, 2, 4, 8, 15].iter().map(|&n| tx_credits_variant(n).unwrap().interface()).collect();
    insta::assert_snapshot!("tx_credits_interface", s);
}

/// RX credits: the module's ports and parameters at every VLCap with the default
/// 256-block buffer, and with seed 000's 3072-block buffer (where FCCL is capped at
/// ABR + 2048) (SPEC.md §4, §7).
#[test]
fn rx_credits_interface() {
    let mut s: String = [1, 2, 4, 8, 15].iter().map(|&n| rx_credits_variant(n, 256).unwrap().interface()).collect();
    s.push_str(&rx_credits_variant(1, 3072).unwrap().interface());
    insta::assert_snapshot!("rx_credits_interface", s);
}

#[test]
fn sl2vl_snapshots() {
    for n in [1, 2, 4, 8, 15] {
        insta::assert_snapshot!(format!("sl2vl_vl{n}"), iblink_rtl::catalog::sl2vl_variant(n).unwrap().text());
    }
}

#[test]
fn vl15_rx_snapshots() {
    for c in iblink_rtl::catalog::VL15_CAPACITIES {
        insta::assert_snapshot!(format!("vl15_rx_cap{c}"), iblink_rtl::catalog::vl15_rx_variant(c).unwrap().text());
    }
}

/// Data-VL arbiter, one snapshot per VLCap (SPEC.md §6, §7).
#[test]
fn vl_arb_snapshots() {
    for n in [1, 2, 4, 8, 15] {
        insta::assert_snapshot!(format!("vl_arb_vl{n}"), iblink_rtl::catalog::vl_arb_variant(n).unwrap().text());
    }
}

/// FCP RX framer, one snapshot per VLCap and link word width (SPEC.md §2-§4).
#[test]
fn fcp_rx_snapshots() {
    for w in [32, 64] {
        for n in [1, 2, 4, 8, 15] {
            insta::assert_snapshot!(format!("fcp_rx_vl{n}_w{w}"), iblink_rtl::catalog::fcp_rx_variant(n, w).unwrap().text());
        }
    }
}

/// Link TX path, one snapshot per link word width (SPEC.md §2, §3, §5).
#[test]
fn link_tx_snapshots() {
    for w in iblink_rtl::link_tx::WIDTHS {
        insta::assert_snapshot!(format!("link_tx_w{w}"), iblink_rtl::catalog::link_tx_variant(w).unwrap().text());
    }
}

/// Link RX classifier, one snapshot per VLCap and link word width (SPEC.md §1, §3,
/// §4, §7).
#[test]
fn link_rx_snapshots() {
    for w in iblink_rtl::link_rx::WIDTHS {
        for n in iblink_rtl::link_rx::VL_CAPS {
            insta::assert_snapshot!(format!("link_rx_vl{n}_w{w}"), iblink_rtl::catalog::link_rx_variant(n, w).unwrap().text());
        }
    }
}

/// FCP TX framer and scheduler, one snapshot per VLCap and link word width (SPEC.md §2,
/// §3, §5).
#[test]
fn fcp_tx_snapshots() {
    for w in [32, 64] {
        for n in [1, 2, 4, 8, 15] {
            insta::assert_snapshot!(format!("fcp_tx_vl{n}_w{w}"), iblink_rtl::catalog::fcp_tx_variant(n, w).unwrap().text());
        }
    }
}

/// Failsafe (update monitor, overrun threshold): the module's ports and parameters at
/// every VLCap (SPEC.md §8).
#[test]
fn failsafe_interface() {
    let s: String = [1, 2, 4, 8, 15].iter().map(|&n| iblink_rtl::catalog::failsafe_variant(n).unwrap().interface()).collect();
    insta::assert_snapshot!("failsafe_interface", s);
}

/// The link port with the default configuration, one snapshot per VLCap and link word
/// width (every block composed; SPEC.md §2-§8).
#[test]
fn link_port_snapshots() {
    for w in [32, 64] {
        for n in [1, 2, 4, 8, 15] {
            let p = iblink_rtl::link_port::PortParams::defaults(n, w);
            insta::assert_snapshot!(format!("link_port_vl{n}_w{w}"), iblink_rtl::catalog::link_port_variant(&p).unwrap().text());
        }
    }
}

/// The link port generated from a configuration (`iblink emit --config`): 64 bits,
/// VLCap 2, a smaller buffer and its own tables, which the power-up loader writes.
#[test]
fn link_port_configured_snapshot() {
    let mut p = iblink_rtl::link_port::PortParams::defaults(2, 64);
    p.buffer_blocks = 200;
    p.vl_high_limit = 3;
    p.high = vec![(1, 32), (0, 4)];
    p.low = vec![(0, 255)];
    insta::assert_snapshot!("link_port_vl2_w64_configured", iblink_rtl::catalog::link_port_variant(&p).unwrap().text());
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
        .filter(|n| n.ends_with(".v"))
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
