//! PAUSE/PFC receive side: the reference model, the Rust twin and Verilator in lockstep
//! on random frames (good, bad by every cause, data, runts, wrong lengths), with coverage
//! gates on what the model counted (`iblink_sim::tb::pause_rx`).

use iblink_sim::tb::{self, harness::TbOptions};

#[test]
fn pause_rx_lockstep() {
    let n = iblink_sim::lockstep::cycles();
    for w in [32, 64] {
        tb::pause_rx::run(w, tb::pause_rx::seed(w), &TbOptions::test(n)).unwrap().assert_passed(n);
    }
}
