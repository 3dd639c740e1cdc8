//! The Ethernet port's transmit queues: the reference model, the Rust twin and
//! Verilator in lockstep with users, pauses and PAUSE/PFC frames that react to the
//! block, with coverage gates on what the model did.

use iblink_sim::blocks::eth_txq::{eth_txq_sim, EthTxqModelSim, EthTxqStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::lockstep_reactive;
use std::sync::Mutex;

static BUILD: Mutex<()> = Mutex::new(());

#[test]
fn eth_txq_lockstep() {
    for (seed, q, w) in [(41u64, 1usize, 64usize), (42, 3, 32), (43, 8, 64), (44, 4, 32)] {
        let (mut rtl, mut vl) = {
            let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
            (eth_txq_sim(q, w, Backend::Rtl, None).unwrap(), eth_txq_sim(q, w, Backend::Verilator, None).unwrap())
        };
        let mut model = EthTxqModelSim::new(q, w);
        let n = iblink_sim::lockstep::cycles();
        let mut stim = EthTxqStimulus::new(seed, q, w);
        lockstep_reactive(&mut [&mut model, rtl.as_mut(), vl.as_mut()], n, |p| stim.next(p)).unwrap_or_else(|m| panic!("{q} queues, {w} bits: {m}"));
        let min = (n / 10_000).max(1);
        let what = format!(
            "{q} queues, {w} bits: {} frames offered, started {}, back to back {}, held clocks {}, words refused {}",
            stim.frames_offered, model.started, model.back_to_back, model.held, model.refused
        );
        eprintln!("{what}");
        assert!(model.started >= 10 * min && model.back_to_back >= min && model.held >= 10 * min && model.refused >= 10 * min, "{what}");
    }
}
