//! PAUSE/PFC transmit side: reference model, Rust twin and Verilator in lockstep on random
//! triggers and data traffic, with coverage gates for every trigger kind, rise and
//! fall, release, refresh, consolidation, merging and deferred software requests
//! (`iblink_sim::tb::pfc_tx`). The 8-queue runs at 64 bits build the module with
//! `TARGET = "ECP5"` (its other netlist layout), the rest with the default.

use iblink_model::pfc::Mode;
use iblink_sim::tb::{self, harness::TbOptions};

fn run(mode: Mode) {
    let n = iblink_sim::lockstep::cycles();
    for (seed, c) in tb::pfc_tx::TEST_CONFIGS.iter().filter(|(_, c)| c.mode == mode) {
        tb::pfc_tx::run(c, *seed, &TbOptions::test(n)).unwrap().assert_passed(n);
    }
}

#[test]
fn pfc_tx_lockstep_pfc_mode() {
    run(Mode::Pfc);
}

#[test]
fn pfc_tx_lockstep_pause_mode() {
    run(Mode::Pause);
}
