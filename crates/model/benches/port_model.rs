//! Cycles per second of the 4-VL port model under saturation: two ports back to back
//! (`PortPair`), every data VL's transmit queue topped up every clock, receivers drained
//! at link rate, credits and FCPs flowing both ways. One "cycle" is one clock of the
//! pair (both ports stepped). Plain `std::time::Instant`; run with
//! `cargo bench -p iblink-model`.

use iblink_model::config::PortConfig;
use iblink_model::port::{PortModel, PortPair};
use std::hint::black_box;
use std::time::Instant;

fn run(cfg: &PortConfig, pkt_len: u16, cycles: u64) -> (f64, PortPair) {
    let mut a = PortModel::new(cfg);
    let mut b = PortModel::new(cfg);
    a.set_drain_rate(cfg.datapath_bytes as u32);
    b.set_drain_rate(cfg.datapath_bytes as u32);
    let mut p = PortPair::new(a, b, 256);
    let start = Instant::now();
    for _ in 0..cycles {
        for port in [&mut p.a, &mut p.b] {
            for vl in 0..4 {
                // Keep every VL backlogged: one attempted top-up per VL per clock.
                let _ = port.enqueue(vl, pkt_len);
            }
        }
        black_box(p.step());
    }
    let secs = start.elapsed().as_secs_f64();
    (cycles as f64 / secs, p)
}

fn main() {
    // Skip the work when cargo runs benches in test mode (`cargo test --benches`).
    let quick = std::env::args().any(|a| a == "--test");
    let cycles = if quick { 10_000 } else { 20_000_000 };
    let cases = [
        (
            "4 VLs, 32-bit, 4 KB packets (PktLen 1024)",
            PortConfig::default(),
            1024u16,
        ),
        (
            "4 VLs, 32-bit, 256 B packets (PktLen 70)",
            PortConfig::default(),
            70,
        ),
        (
            "4 VLs, 32-bit, minimum packets (PktLen 6)",
            PortConfig::default(),
            6,
        ),
        (
            "4 VLs, 64-bit, 4 KB packets (PktLen 1024)",
            PortConfig::from_toml("datapath_bits = 64").unwrap(),
            1024,
        ),
    ];
    for (name, cfg, pkt_len) in cases {
        // Warm up, then measure.
        run(&cfg, pkt_len, cycles / 20);
        let (rate, p) = run(&cfg, pkt_len, cycles);
        let s = p.a.stats();
        println!(
            "{name}: {:.1} M cycles/s  ({cycles} cycles; port A sent {} data packets, {} blocks, {} FCPs; overruns {})",
            rate / 1e6,
            s.data_sent,
            s.blocks_sent,
            s.fcp_sent,
            s.overruns + p.b.stats().overruns,
        );
    }
}
