//! The Ethernet flow-control port: the reference model `EthPort`, the composed Rust
//! stepper (every block's twin, wired by the netlist the Verilog top is rendered from,
//! with the schedule check on) and Verilator on the generated top, in lockstep, with
//! coverage gates on what the model did.

use iblink_rtl::eth_port::EthPortTwin;
use iblink_sim::blocks::eth_port::{eth_port_verilator, EthPortModelSim, EthPortStimulus};
use iblink_sim::blocks::TwinSim;
use iblink_sim::lockstep_reactive;
use std::sync::Mutex;

static BUILD: Mutex<()> = Mutex::new(());

#[test]
fn eth_port_lockstep() {
    for (seed, q, w) in [(51u64, 1usize, 32usize), (52, 3, 64), (53, 8, 32), (54, 4, 64), (55, 2, 32)] {
        let mut twin = EthPortTwin::new(q, w);
        twin.check = true;
        let mut rtl = TwinSim(twin);
        let mut vl = {
            let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
            eth_port_verilator(q, w).unwrap()
        };
        let mut model = EthPortModelSim::new(q, w);
        let n = iblink_sim::lockstep::cycles();
        let mut stim = EthPortStimulus::new(seed, q, w);
        let cfg = stim.config();
        lockstep_reactive(&mut [&mut model, &mut rtl, vl.as_mut()], n, |p| stim.next(p)).unwrap_or_else(|m| panic!("{q} queues, {w} bits: {m}"));
        model.finish();
        let (c, p) = (&model.counts, &model.pfc);
        let min = (n / 20_000).max(1);
        let what = format!(
            "{q} queues, {w} bits, {}: data frames {:?}, PAUSE/PFC frames {}, drops {:?}, held {:?}, fill rises {}, hw rises {}, refreshes {}, releases {}, sw {}, busy waits {}, paused clocks {}",
            if cfg.cfg_pfc { "PFC" } else { "PAUSE" },
            &c.tx_frames[..q],
            c.ctrl_frames,
            &c.rx_drops[..q],
            &c.held[..q],
            p.fill_rises,
            p.hw_rises,
            p.refreshes,
            p.releases,
            p.sw_sent,
            p.busy_waits,
            model.paused_clocks
        );
        eprintln!("{what}");
        assert!(c.tx_frames[..q].iter().all(|&x| x >= 10 * min), "{what}");
        // Level rises come with the stimulus's phases (hundreds to thousands of clocks).
        let rare = (n / 100_000).max(1);
        assert!(c.ctrl_frames >= 10 * min && p.fill_rises >= rare && p.hw_rises >= rare && p.refreshes >= min && p.busy_waits >= min, "{what}");
        assert!(c.rx_drops[..q].iter().sum::<u64>() >= min && c.held[..q].iter().sum::<u64>() >= 100 * min && model.paused_clocks >= n / 50, "{what}");
    }
}
