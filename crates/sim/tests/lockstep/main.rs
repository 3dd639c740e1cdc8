//! Every block's lockstep test, in one test binary. The design and its tests are
//! parallel trees with the same names: block `crates/rtl/src/<block>/`, its back ends
//! `crates/sim/src/blocks/<block>.rs`, its lockstep `crates/sim/tests/lockstep/<block>.rs`,
//! a module of this file. One binary links once, and its tests share the two cores (a
//! block with few configurations runs beside a long one), where a binary per block ran
//! them one after another. Run one block with a filter:
//! `cargo test --release -p iblink-sim --test lockstep vl_arb::`.

mod crc16;
mod crc16_dword;
mod eth_port;
mod eth_rxbuf;
mod eth_txq;
mod failsafe;
mod fcp_rx;
mod fcp_tx;
mod link_port;
mod link_port_failsafe;
mod link_rx;
mod link_tx;
mod pause_rx;
mod pfc_frame;
mod pfc_tx;
mod sl2vl;
mod tx_credits;
mod vl15_rx;
mod vl_arb;
mod vl_arb_saturation;

/// A file in `tests/lockstep/` that is not a module above would never run, and each one
/// is named after a block of `crates/rtl/src/` (or is that block's `<block>_<topic>.rs`).
#[test]
fn every_lockstep_file_is_a_module_here() {
    let here = include_str!("main.rs");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/lockstep");
    let blocks: Vec<String> = std::fs::read_dir(root.join("../rtl/src"))
        .expect("crates/rtl/src")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut files = 0;
    for e in std::fs::read_dir(&dir).expect("tests/lockstep") {
        let name = e.expect("dir entry").path().file_stem().unwrap().to_string_lossy().into_owned();
        if name == "main" {
            continue;
        }
        assert!(here.contains(&format!("\nmod {name};\n")), "tests/lockstep/{name}.rs is not a module of tests/lockstep/main.rs");
        assert!(
            blocks.iter().any(|b| name == *b || name.starts_with(&format!("{b}_"))),
            "tests/lockstep/{name}.rs is named after no block of crates/rtl/src"
        );
        files += 1;
    }
    assert!(files >= 18, "found {files} files in {}", dir.display());
}
