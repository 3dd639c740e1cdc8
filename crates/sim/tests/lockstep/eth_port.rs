//! The Ethernet flow-control port: the reference model `EthPort`, the composed Rust
//! stepper (every block's twin, wired by the netlist the Verilog top is rendered from,
//! with the schedule check on) and Verilator on the generated top, in lockstep, with
//! coverage gates on what the model did (`iblink_sim::tb::eth_port`).

use iblink_sim::tb::{self, harness::TbOptions};

#[test]
fn eth_port_lockstep() {
    let n = iblink_sim::lockstep::cycles();
    for (seed, q, w) in tb::eth_port::TEST_CONFIGS {
        tb::eth_port::run(q, w, seed, &TbOptions::test(n)).unwrap().assert_passed(n);
    }
}
