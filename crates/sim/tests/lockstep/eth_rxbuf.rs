//! The Ethernet port's receive buffers: the reference model, the Rust twin and
//! Verilator in lockstep on random frames (tagged, untagged, runts, oversize, control)
//! with readers that stall and race, with coverage gates on what the model did
//! (`iblink_sim::tb::eth_rxbuf`).

use iblink_sim::tb::{self, harness::TbOptions};

#[test]
fn eth_rxbuf_lockstep() {
    let n = iblink_sim::lockstep::cycles();
    for (seed, q, w) in tb::eth_rxbuf::TEST_CONFIGS {
        tb::eth_rxbuf::run(q, w, seed, &TbOptions::test(n)).unwrap().assert_passed(n);
    }
}
