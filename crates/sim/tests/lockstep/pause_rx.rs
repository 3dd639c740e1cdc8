//! PAUSE/PFC receive side: the reference model, the Rust twin and Verilator in lockstep
//! on random frames (good, bad by every cause, data, runts, wrong lengths), with coverage
//! gates on what the model counted.

use iblink_rtl::pause_rx::{PauseRxIn, PauseRxOut};
use iblink_sim::blocks::pause_rx::{pause_rx_sim, FrameKind, PauseRxModelSim, PauseRxStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

static BUILD: Mutex<()> = Mutex::new(());

/// The model adapter, tallying what it counted and the clocks a priority was paused.
struct Coverage {
    inner: PauseRxModelSim,
    totals: [u64; 7],
    paused_clocks: u64,
    last: [u16; 7],
}

impl CycleSim for Coverage {
    type In = PauseRxIn;
    type Out = PauseRxOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &PauseRxIn) -> PauseRxOut {
        let o = self.inner.step(i);
        for k in 0..7 {
            // Counters only step up by one, or go to 0 on reset.
            if o.counts[k] == self.last[k].wrapping_add(1) {
                self.totals[k] += 1;
            }
        }
        self.last = o.counts;
        self.paused_clocks += (o.paused != 0) as u64;
        o
    }
}

#[test]
fn pause_rx_lockstep() {
    for (seed, w) in [(21u64, 32usize), (22, 64)] {
        let (mut rtl, mut vl) = {
            let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
            (pause_rx_sim(w, Backend::Rtl, None).unwrap(), pause_rx_sim(w, Backend::Verilator, None).unwrap())
        };
        let mut model = Coverage { inner: PauseRxModelSim::new(w), totals: [0; 7], paused_clocks: 0, last: [0; 7] };
        let n = lockstep::cycles() as usize;
        let mut stim = PauseRxStimulus::new(seed, w);
        lockstep(&mut [&mut model, rtl.as_mut(), vl.as_mut()], stim.by_ref().take(n)).unwrap_or_else(|m| panic!("{w} bits: {m}"));
        let names = iblink_rtl::pause_rx::COUNTERS;
        let min = (n as u64 / 20_000).max(1);
        for (k, name) in names.iter().enumerate() {
            assert!(model.totals[k] >= min, "{w} bits: {name} counted {} times, want {min}", model.totals[k]);
        }
        assert!(model.paused_clocks >= n as u64 / 20, "{w} bits: paused {} clocks", model.paused_clocks);
        for k in [FrameKind::Runt, FrameKind::Data, FrameKind::Release] {
            assert!(stim.sent.iter().filter(|&&x| x == k).count() as u64 >= min, "{w} bits: few {k:?} frames");
        }
        eprintln!("{w} bits: {:?}, paused {} clocks", model.totals, model.paused_clocks);
    }
}
