//! Every block's lockstep test, in one test binary. Each file lives beside its block in
//! `crates/rtl/src/<block>/` and is a module here: one binary links once, and its tests
//! share the two cores (a block with few configurations runs beside a long one), where
//! a binary per block ran them one after another. Run one block with a filter:
//! `cargo test --release -p iblink-sim --test lockstep vl_arb::`.

#[path = "../../rtl/src/crc16/lockstep.rs"]
mod crc16;
#[path = "../../rtl/src/crc16_dword/lockstep.rs"]
mod crc16_dword;
#[path = "../../rtl/src/eth_port/lockstep.rs"]
mod eth_port;
#[path = "../../rtl/src/eth_rxbuf/lockstep.rs"]
mod eth_rxbuf;
#[path = "../../rtl/src/eth_txq/lockstep.rs"]
mod eth_txq;
#[path = "../../rtl/src/failsafe/lockstep.rs"]
mod failsafe;
#[path = "../../rtl/src/fcp_rx/lockstep.rs"]
mod fcp_rx;
#[path = "../../rtl/src/fcp_tx/lockstep.rs"]
mod fcp_tx;
#[path = "../../rtl/src/link_port/lockstep.rs"]
mod link_port;
#[path = "../../rtl/src/link_port/failsafe_test.rs"]
mod link_port_failsafe;
#[path = "../../rtl/src/link_rx/lockstep.rs"]
mod link_rx;
#[path = "../../rtl/src/link_tx/lockstep.rs"]
mod link_tx;
#[path = "../../rtl/src/pause_rx/lockstep.rs"]
mod pause_rx;
#[path = "../../rtl/src/pfc_frame/lockstep.rs"]
mod pfc_frame;
#[path = "../../rtl/src/pfc_tx/lockstep.rs"]
mod pfc_tx;
#[path = "../../rtl/src/sl2vl/lockstep.rs"]
mod sl2vl;
#[path = "../../rtl/src/tx_credits/lockstep.rs"]
mod tx_credits;
#[path = "../../rtl/src/vl15_rx/lockstep.rs"]
mod vl15_rx;
#[path = "../../rtl/src/vl_arb/lockstep.rs"]
mod vl_arb;
#[path = "../../rtl/src/vl_arb/saturation.rs"]
mod vl_arb_saturation;

/// A block's `lockstep.rs` that is not a module above would never run.
#[test]
fn every_block_lockstep_is_a_module_here() {
    let here = include_str!("lockstep.rs");
    let rtl = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl/src");
    let mut blocks = 0;
    for e in std::fs::read_dir(&rtl).expect("crates/rtl/src") {
        let dir = e.expect("dir entry").path();
        if dir.join("lockstep.rs").is_file() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let line = format!("#[path = \"../../rtl/src/{name}/lockstep.rs\"]");
            assert!(here.contains(&line), "{name}/lockstep.rs is not listed in tests/lockstep.rs");
            blocks += 1;
        }
    }
    assert!(blocks >= 12, "found {blocks} lockstep.rs files under {}", rtl.display());
}
