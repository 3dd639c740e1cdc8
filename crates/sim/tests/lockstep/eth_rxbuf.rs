//! The Ethernet port's receive buffers: the reference model, the Rust twin and
//! Verilator in lockstep on random frames (tagged, untagged, runts, oversize, control)
//! with readers that stall and race, with coverage gates on what the model did.

use iblink_rtl::eth_rxbuf::{EthRxbufIn, EthRxbufOut};
use iblink_sim::blocks::eth_rxbuf::{eth_rxbuf_sim, EthRxbufModelSim, EthRxbufStimulus, RxFrameKind};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

static BUILD: Mutex<()> = Mutex::new(());

/// The model adapter, also counting frames stored (a fill that rose).
struct Coverage {
    inner: EthRxbufModelSim,
    last_fill: [u16; 8],
    stored: u64,
}

impl CycleSim for Coverage {
    type In = EthRxbufIn;
    type Out = EthRxbufOut;
    fn backend(&self) -> &str {
        self.inner.backend()
    }
    fn step(&mut self, i: &EthRxbufIn) -> EthRxbufOut {
        let o = self.inner.step(i);
        for q in 0..8 {
            self.stored += (o.fill_bytes[q] > self.last_fill[q]) as u64;
        }
        self.last_fill = o.fill_bytes;
        o
    }
}

#[test]
fn eth_rxbuf_lockstep() {
    for (seed, q, w) in [(31u64, 1usize, 32usize), (32, 3, 64), (33, 8, 32), (34, 4, 64)] {
        let (mut rtl, mut vl) = {
            let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
            (eth_rxbuf_sim(q, w, Backend::Rtl, None).unwrap(), eth_rxbuf_sim(q, w, Backend::Verilator, None).unwrap())
        };
        let mut model = Coverage { inner: EthRxbufModelSim::new(q, w), last_fill: [0; 8], stored: 0 };
        let n = lockstep::cycles() as usize;
        let mut stim = EthRxbufStimulus::new(seed, q, w);
        lockstep(&mut [&mut model, rtl.as_mut(), vl.as_mut()], stim.by_ref().take(n)).unwrap_or_else(|m| panic!("{q} queues, {w} bits: {m}"));
        let m = &model.inner;
        let min = (n as u64 / 10_000).max(1);
        let what = format!("{q} queues, {w} bits: stored {}, dropped {}, read {}, nearly full {}", model.stored, m.dropped, m.read, m.nearly_full);
        eprintln!("{what}; config {:?}", stim.config().cfg_size_words);
        assert!(model.stored >= 10 * min && m.dropped >= min && m.read >= 100 * min && m.nearly_full >= 10 * min, "{what}");
        for k in [RxFrameKind::Tagged, RxFrameKind::Untagged, RxFrameKind::Runt, RxFrameKind::Oversize, RxFrameKind::Control] {
            assert!(stim.sent.iter().filter(|&&x| x == k).count() as u64 >= min, "{what}: few {k:?} frames");
        }
    }
}
