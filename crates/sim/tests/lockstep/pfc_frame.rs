//! PAUSE/PFC frame builder: the model's encoder (FCS by the `crc` crate), the Rust twin
//! and Verilator in lockstep on random frames and configurations
//! (`iblink_sim::tb::pfc_frame`).

use iblink_sim::tb::{self, harness::TbOptions};

#[test]
fn pfc_frame_lockstep() {
    let n = iblink_sim::lockstep::cycles();
    for (seed, q, w, mode) in tb::pfc_frame::TEST_CONFIGS {
        tb::pfc_frame::run(q, w, mode, seed, &TbOptions::test(n)).unwrap().assert_passed(n);
    }
}
