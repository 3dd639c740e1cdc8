//! `iblink bench sim`: one stimulus through every back end, cycles per second each.

use crate::blocks::crc16::{crc16_sim, Crc16Stimulus};
use crate::blocks::Backend;
use crate::CycleSim;
use iblink_rtl::crc16::{Crc16In, Crc16W32};
use iblink_rtl::io::HdlIo;
use rust_hdl::prelude::*;
use std::sync::Arc;
use std::time::Instant;

/// One back end's figure.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub backend: String,
    pub cycles: u64,
    pub seconds: f64,
    /// A digest of the outputs, so the runs are seen to do the same work.
    pub checksum: u64,
}

impl BenchResult {
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.seconds
    }
}

fn time_sim(sim: &mut dyn CycleSim<In = Crc16In, Out = iblink_rtl::crc16::Crc16Out>, stim: &[Crc16In]) -> BenchResult {
    let t = Instant::now();
    let mut sum = 0u64;
    for i in stim {
        let o = sim.step(i);
        sum = sum.wrapping_mul(31).wrapping_add(o.crc as u64 + o.crc_valid as u64);
    }
    BenchResult {
        backend: sim.backend().to_string(),
        cycles: stim.len() as u64,
        seconds: t.elapsed().as_secs_f64(),
        checksum: sum,
    }
}

/// The CRC unit at 32 bits in `backend` over `stim`.
pub fn bench_crc16(backend: Backend, stim: &[Crc16In]) -> Result<BenchResult, crate::blocks::crc16::SimBuildError> {
    let mut sim = crc16_sim(32, backend, None)?;
    // Warm up (and, for Verilator, make sure the library is built before timing).
    for i in stim.iter().take(1000) {
        sim.step(i);
    }
    let mut sim = crc16_sim(32, backend, None)?;
    Ok(time_sim(sim.as_mut(), stim))
}

/// rust-hdl's own `Simulation`: a clock thread and a testbench thread that pass the
/// circuit back and forth every event.
pub fn bench_crc16_rust_hdl_simulation(stim: &[Crc16In]) -> BenchResult {
    let stim: Arc<Vec<Crc16In>> = Arc::new(stim.to_vec());
    let n = stim.len() as u64;
    let mut sim = Simulation::<Crc16W32>::new();
    sim.add_clock(5, |x: &mut Box<Crc16W32>| x.clock.next = !x.clock.val());
    let tb_stim = stim.clone();
    sim.add_testbench(move |mut sim: Sim<Crc16W32>| {
        let mut x = sim.init()?;
        for i in tb_stim.iter() {
            x.drive(i);
            wait_clock_cycle!(sim, clock, x);
        }
        sim.done(x)
    });
    let t = Instant::now();
    let mut uut = Crc16W32::default();
    uut.connect_all();
    sim.run(Box::new(uut), 10 * (n + 10)).expect("rust-hdl Simulation run");
    BenchResult {
        backend: "rust-hdl Simulation".into(),
        cycles: n,
        seconds: t.elapsed().as_secs_f64(),
        checksum: 0,
    }
}

/// The shared stimulus.
pub fn crc16_stimulus(cycles: usize) -> Vec<Crc16In> {
    Crc16Stimulus::new(32, 0xbe7c).take(cycles).collect()
}

/// The whole link port: two ports back to back (VLCap 4, 32 bits, the default
/// configuration) under saturating traffic, `cycles` clocks, in an RTL back end; the
/// figure counts port-clocks (two ports a clock). The digest covers both ports' outputs.
pub fn bench_port_pair(backend: Backend, cycles: u64) -> Result<BenchResult, crate::blocks::SimBuildError> {
    use crate::blocks::link_port::{link_port_sim_with, PortPairBench, Traffic};
    let p = iblink_rtl::link_port::PortParams::defaults(4, 32);
    let mut b = PortPairBench::new(&p, link_port_sim_with(&p, backend, None, false)?, link_port_sim_with(&p, backend, None, false)?, 3, 600, Traffic::default(), 7);
    let t = Instant::now();
    let mut sum = 0u64;
    for _ in 0..cycles {
        let (a, o) = b.step();
        sum = sum.wrapping_mul(31).wrapping_add(a.m_axis_phy_tdata ^ o.m_axis_phy_tdata.rotate_left(7) ^ a.rx_done as u64);
    }
    Ok(BenchResult {
        backend: backend.name().to_string(),
        cycles: 2 * cycles,
        seconds: t.elapsed().as_secs_f64(),
        checksum: sum,
    })
}

/// The reference model of the same system: `iblink_model::port::PortPair` (item-level:
/// it moves whole packets, not words) with both ports saturated, `cycles` clocks.
pub fn bench_port_pair_model(cycles: u64) -> BenchResult {
    use iblink_model::config::PortConfig;
    use iblink_model::port::{PortModel, PortPair};
    let cfg = PortConfig::default();
    let mut pair = PortPair::new(PortModel::new(&cfg), PortModel::new(&cfg), 600);
    pair.a.set_drain_rate(16);
    pair.b.set_drain_rate(16);
    let t = Instant::now();
    let mut sum = 0u64;
    for c in 0..cycles {
        for v in 0..4u8 {
            let len = 9 + ((c as u16).wrapping_mul(7).wrapping_add(v as u16) % 72);
            let _ = pair.a.enqueue(v, len);
            let _ = pair.b.enqueue(v, len);
        }
        let (a, b) = pair.step();
        sum = sum.wrapping_mul(31).wrapping_add(a.started.is_some() as u64 + 2 * b.started.is_some() as u64);
    }
    BenchResult {
        backend: "model (PortPair)".into(),
        cycles: 2 * cycles,
        seconds: t.elapsed().as_secs_f64(),
        checksum: sum,
    }
}
