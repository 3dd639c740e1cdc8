//! Utilisation of a saturated link against (receive buffer, round trip): the credit loop
//! sustains line rate once a VL's buffer covers what the sender can put on the wire in
//! one round trip, `buffer >= RTT x rate` (blocks; rate = W/64 blocks a clock), and
//! falls to about `buffer / (RTT x rate)` below that.

use super::run::{RunOpts, SystemRun};
use super::scenario::{ChannelSpec, Scenario, SizeDist, Sides, TrafficSpec};
use crate::blocks::{Backend, SimBuildError};
use iblink_model::config::PortConfig;
use std::fmt::Write as _;

/// PktLen of the sweep's packets: 66 dwords = 4 blocks (264 bytes, 266 on the wire).
pub const SWEEP_PKTLEN: u16 = 66;

/// One point of the sweep.
#[derive(Clone, Debug)]
pub struct SweepPoint {
    pub buffer_blocks: u16,
    /// Wire latency each way, clocks; the round trip is twice that (plus the ports' own
    /// clocks, which [`SweepPoint::bound_blocks`] leaves out).
    pub latency: usize,
    pub clocks: u64,
    /// Data words / clocks after the first quarter of the run (the loop has settled).
    pub utilisation: f64,
    /// The same from the reference model on the same scenario.
    pub model_utilisation: f64,
    pub overruns: u64,
    pub idle_while_eligible: u64,
}

impl SweepPoint {
    pub fn rtt(&self) -> u64 {
        2 * self.latency as u64
    }
}

/// The bound `RTT x rate` in blocks at `width` bits a clock, for a round trip of `rtt`
/// clocks (64-byte blocks, W/8 bytes a clock).
pub fn bound_blocks(rtt: u64, width: usize) -> f64 {
    rtt as f64 * (width / 8) as f64 / 64.0
}

/// The sweep's scenario: VLCap 1 at `width` bits, one saturated VL from A to B of
/// PktLen [`SWEEP_PKTLEN`] packets, receiver draining at once.
pub fn sweep_scenario(width: usize, buffer_blocks: u16, latency: usize, cycles: u64) -> Scenario {
    let port = PortConfig::from_toml(&format!("vl_cap = 1\ndatapath_bits = {width}\nbuffer_blocks = {buffer_blocks}\n"))
        .expect("valid sweep port");
    let mut s = Scenario::from_toml("").expect("empty scenario");
    s.name = format!("sweep_b{buffer_blocks}_l{latency}");
    s.port = port;
    s.cycles = cycles;
    s.seed = 1;
    s.channel = ChannelSpec {
        latency_clocks: latency,
        ..Default::default()
    };
    s.sl2vl = [0; 16];
    s.sl2vl[15] = 15;
    s.traffic = vec![TrafficSpec {
        sl: 0,
        pktlen: SizeDist::Fixed(SWEEP_PKTLEN),
        load_permille: 1000,
        direction: Sides::A,
        queue_limit: 8,
    }];
    s.drain.rate = vec![0];
    s
}

/// Run every (buffer, latency) point for `cycles_for(latency)` clocks in `backend`.
pub fn utilisation_sweep(
    width: usize,
    buffers: &[u16],
    latencies: &[usize],
    cycles_for: impl Fn(usize) -> u64,
    backend: Backend,
) -> Result<Vec<SweepPoint>, SimBuildError> {
    let mut out = vec![];
    for &b in buffers {
        for &l in latencies {
            let cycles = cycles_for(l);
            let s = sweep_scenario(width, b, l, cycles);
            let opts = RunOpts {
                backend,
                flush_clocks: 0,
                model: false,
                ..Default::default()
            };
            let mut sys = SystemRun::new(&s, &opts)?;
            let settle = cycles / 4;
            let mut words = 0u64;
            while sys.clock < cycles {
                let (oa, _) = sys.step();
                if sys.clock > settle && oa.m_axis_phy_tvalid && !oa.tx_link() {
                    words += 1;
                }
            }
            let r = sys.report();
            let m = super::model_run::run_model_window(&s, cycles, settle);
            out.push(SweepPoint {
                buffer_blocks: b,
                latency: l,
                clocks: cycles,
                utilisation: words as f64 / (cycles - settle) as f64,
                model_utilisation: m,
                overruns: r.a_to_b.drops.overrun,
                idle_while_eligible: r.a_to_b.idle_while_eligible,
            });
        }
    }
    Ok(out)
}

/// The sweep as a Markdown table: one row per buffer, one column per round trip; each
/// cell `RTL (model)`, in bold where the buffer covers `RTT x rate`.
pub fn sweep_table(points: &[SweepPoint], width: usize) -> String {
    let mut buffers: Vec<u16> = points.iter().map(|p| p.buffer_blocks).collect();
    buffers.dedup();
    let mut lats: Vec<usize> = points.iter().map(|p| p.latency).collect();
    lats.sort_unstable();
    lats.dedup();
    let mut t = String::new();
    let _ = write!(t, "| buffer (blocks) \\ RTT (clocks) |");
    for l in &lats {
        let _ = write!(t, " {} (bound {:.0}) |", 2 * l, bound_blocks(2 * *l as u64, width));
    }
    let _ = writeln!(t);
    let _ = writeln!(t, "|---|{}", "---:|".repeat(lats.len()));
    for b in &buffers {
        let _ = write!(t, "| {b} |");
        for l in &lats {
            match points.iter().find(|p| p.buffer_blocks == *b && p.latency == *l) {
                Some(p) => {
                    let cell = format!("{:.3} ({:.3})", p.utilisation, p.model_utilisation);
                    if *b as f64 >= bound_blocks(p.rtt(), width) {
                        let _ = write!(t, " **{cell}** |");
                    } else {
                        let _ = write!(t, " {cell} |");
                    }
                }
                None => {
                    let _ = write!(t, " |");
                }
            }
        }
        let _ = writeln!(t);
    }
    t
}
