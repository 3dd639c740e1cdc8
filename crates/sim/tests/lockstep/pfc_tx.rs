//! PAUSE/PFC transmit side: reference model, Rust twin and Verilator in lockstep on random
//! triggers and data traffic, with coverage gates for every trigger kind, rise and
//! fall, release, refresh, consolidation, merging and deferred software requests.

use iblink_model::pfc::{Mode, TxCounts};
use iblink_rtl::pfc_tx::{PfcTxIn, PfcTxOut};
use iblink_sim::blocks::pfc_tx::{pfc_tx_sim, pfc_tx_sim_for, random_config, PfcTxModelSim, PfcTxStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;

/// One Verilator build at a time (the bridge's build directory is per process).
static BUILD: Mutex<()> = Mutex::new(());

/// The model adapter, counting frames that carry both a pause time and a release.
struct Coverage {
    inner: PfcTxModelSim,
    mixed: u64,
}

impl CycleSim for Coverage {
    type In = PfcTxIn;
    type Out = PfcTxOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &PfcTxIn) -> PfcTxOut {
        let o = self.inner.step(i);
        self.mixed += (o.frame_start && o.frame_zero != 0 && o.frame_zero != o.frame_queues) as u64;
        o
    }
}

/// `target`: the module's `TARGET` parameter in the Verilator run (`None`: the default).
fn run(seed: u64, queues: usize, width: u32, mode: Mode, zero_on_release: bool, target: Option<&str>) -> (TxCounts, u64) {
    let mut cfg = random_config(&mut ChaCha8Rng::seed_from_u64(seed), queues, width, mode);
    cfg.zero_quanta_on_release = zero_on_release;
    cfg.validate().expect("a valid random configuration");
    let mut model = Coverage { inner: PfcTxModelSim::new(cfg.clone()), mixed: 0 };
    let (mut rtl, mut vl) = {
        let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
        (pfc_tx_sim(&cfg, Backend::Rtl, None).unwrap(), pfc_tx_sim_for(&cfg, Backend::Verilator, None, target).unwrap())
    };
    let n = lockstep::cycles() as usize;
    lockstep(&mut [&mut model, rtl.as_mut(), vl.as_mut()], PfcTxStimulus::new(seed, &cfg).take(n))
        .unwrap_or_else(|m| panic!("{queues} queues at {width} bits, {mode:?}, TARGET {target:?}, {cfg:?}: {m}"));
    (model.inner.counts(), model.mixed)
}

/// Every kind of event happened at least `min` times per million cycles.
fn gate(what: &str, c: &TxCounts, mixed: u64, one_slot: bool, zero_on_release: bool) {
    let per_m = (lockstep::cycles() as f64 / 1e6).min(1.0);
    let min = |k: u64| ((k as f64) * per_m).ceil() as u64;
    let mut checks = vec![
        ("frames", c.frames, min(1000)),
        ("hw rises", c.hw_rises, min(100)),
        ("fill rises", c.fill_rises, min(100)),
        ("falls", c.falls, min(100)),
        ("refreshes", c.refreshes, min(100)),
        ("software requests sent", c.sw_sent, min(100)),
        ("software requests deferred", c.sw_again, min(100)),
        ("merges", c.merges, min(100)),
        ("busy waits", c.busy_waits, min(1000)),
    ];
    if zero_on_release {
        checks.push(("releases", c.releases, min(50)));
        checks.push(("software requests deferred by a release", c.sw_after_release, min(20)));
    } else {
        assert_eq!(c.releases, 0, "{what}: a release frame with zero_quanta_on_release off");
    }
    if !one_slot {
        checks.push(("consolidated frames", c.consolidated, min(50)));
        checks.push(("frames with a pause time and a release", mixed, min(20)));
    }
    eprintln!("{what}: {c:?}, mixed {mixed}");
    for (name, got, want) in checks {
        assert!(got >= want, "{what}: {name} {got} < {want} ({c:?})");
    }
}

#[test]
fn pfc_tx_lockstep_pfc_mode() {
    // The 8-queue runs at 64 bits build the module with TARGET = "ECP5" (its other netlist
    // layout), the rest with the default.
    for (seed, q, w, zq) in [(1, 1, 32, true), (2, 3, 64, false), (3, 8, 32, true), (4, 8, 64, true)] {
        let target = (q == 8 && w == 64).then_some("ECP5");
        let (c, mixed) = run(seed, q, w, Mode::Pfc, zq, target);
        // One queue cannot consolidate; without release frames nothing mixes.
        gate(&format!("{q} queues at {w} bits"), &c, mixed, q == 1 || !zq, zq);
    }
}

#[test]
fn pfc_tx_lockstep_pause_mode() {
    for (seed, q, w) in [(5, 4, 32), (6, 8, 64)] {
        let target = (q == 8 && w == 64).then_some("ECP5");
        let (c, mixed) = run(seed, q, w, Mode::Pause, true, target);
        gate(&format!("PAUSE, {q} queues at {w} bits"), &c, mixed, true, true);
    }
}
