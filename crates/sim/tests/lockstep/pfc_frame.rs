//! PAUSE/PFC frame builder: the model's encoder (FCS by the `crc` crate), the Rust twin
//! and Verilator in lockstep on random frames and configurations.

use iblink_model::pfc::Mode;
use iblink_rtl::pfc_frame::{PfcFrameIn, PfcFrameOut};
use iblink_sim::blocks::pfc_frame::{pfc_frame_sim, PfcFrameStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

static BUILD: Mutex<()> = Mutex::new(());

/// Counts frames sent, and those with a release in them.
struct Count<'a> {
    inner: &'a mut dyn CycleSim<In = PfcFrameIn, Out = PfcFrameOut>,
    frames: u64,
    with_release: u64,
    back_to_back: u64,
    last_was_last: bool,
}

impl CycleSim for Count<'_> {
    type In = PfcFrameIn;
    type Out = PfcFrameOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &PfcFrameIn) -> PfcFrameOut {
        let o = self.inner.step(i);
        self.frames += o.tx_last as u64;
        self.with_release += (i.frame_start && !i.reset && i.frame_zero != 0) as u64;
        self.back_to_back += (i.frame_start && self.last_was_last) as u64;
        self.last_was_last = o.tx_last;
        o
    }
}

#[test]
fn pfc_frame_lockstep() {
    for (seed, q, w, mode) in [(11, 1, 32, Mode::Pfc), (12, 8, 32, Mode::Pfc), (13, 3, 64, Mode::Pfc), (14, 8, 64, Mode::Pfc), (15, 4, 32, Mode::Pause), (16, 2, 64, Mode::Pause)] {
        let mut sims: Vec<_> = {
            let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
            Backend::ALL.iter().map(|b| pfc_frame_sim(q, w, *b, None).unwrap()).collect()
        };
        let (first, rest) = sims.split_at_mut(1);
        let mut model = Count { inner: first[0].as_mut(), frames: 0, with_release: 0, back_to_back: 0, last_was_last: false };
        let mut refs: Vec<&mut dyn CycleSim<In = PfcFrameIn, Out = PfcFrameOut>> = vec![&mut model];
        refs.extend(rest.iter_mut().map(|s| s.as_mut() as _));
        let n = lockstep::cycles() as usize;
        lockstep(&mut refs, PfcFrameStimulus::new(seed, q, w as u32, mode).take(n))
            .unwrap_or_else(|m| panic!("{q} queues at {w} bits, {mode:?}: {m}"));
        let per = n as u64 / 100;
        let what = format!("{q} queues at {w} bits, {mode:?}");
        assert!(model.frames >= per / 4, "{what}: {} frames", model.frames);
        assert!(model.with_release >= per / 20, "{what}: {} frames with a release", model.with_release);
        assert!(model.back_to_back >= per / 20, "{what}: {} frames back to back", model.back_to_back);
    }
}
