//! The Ethernet port's transmit queues: the reference model, the Rust twin and
//! Verilator in lockstep with users, pauses and PAUSE/PFC frames that react to the
//! block, with coverage gates on what the model did (`iblink_sim::tb::eth_txq`).

use iblink_sim::tb::{self, harness::TbOptions};

#[test]
fn eth_txq_lockstep() {
    let n = iblink_sim::lockstep::cycles();
    for (seed, q, w) in tb::eth_txq::TEST_CONFIGS {
        tb::eth_txq::run(q, w, seed, &TbOptions::test(n)).unwrap().assert_passed(n);
    }
}
