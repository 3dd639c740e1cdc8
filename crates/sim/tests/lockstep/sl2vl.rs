//! SLtoVL table: model, Rust twin and Verilator in lockstep, and the rules of
//! docs/spec.md §7 checked directly in every back end.

use iblink_rtl::sl2vl::SlToVlIn;
use iblink_sim::blocks::sl2vl::{sl2vl_sim, SlToVlStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};

#[test]
fn sl2vl_lockstep_every_vlcap() {
    for vls in [1, 2, 4, 8, 15] {
        let mut sims: Vec<_> = Backend::ALL.iter().map(|b| sl2vl_sim(vls, *b, None).unwrap()).collect();
        let mut refs: Vec<&mut dyn CycleSim<In = SlToVlIn, Out = _>> = sims.iter_mut().map(|s| s.as_mut() as _).collect();
        let cycles = lockstep::cycles() as usize;
        let n = if vls == 4 || vls == 15 { cycles } else { cycles / 10 };
        lockstep(&mut refs, SlToVlStimulus::new(vls as u64).take(n)).unwrap_or_else(|m| panic!("VLCap {vls}: {m}"));
    }
}

/// docs/spec.md §7: SL15 is VL15 whatever is written; writes naming SL15 or a VL the port
/// lacks are refused; the default map spreads SLs over the data VLs.
#[test]
fn sl15_is_vl15_and_bad_writes_are_refused() {
    for b in Backend::ALL {
        let mut s = sl2vl_sim(4, b, None).unwrap();
        let idle = SlToVlIn::default();
        // Default: SL s -> VL s mod 4.
        for sl in 0..15u8 {
            assert_eq!(s.step(&SlToVlIn { lookup_sl: sl, ..idle }).lookup_vl, sl % 4, "{}", b.name());
        }
        assert_eq!(s.step(&SlToVlIn { lookup_sl: 15, ..idle }).lookup_vl, 15);
        // SL15 cannot be remapped; VL4 and VL15 are not data VLs of a VLCap-4 port.
        for (sl, vl) in [(15u8, 0u8), (3, 4), (3, 15)] {
            s.step(&SlToVlIn { wr_en: true, wr_sl: sl, wr_vl: vl, ..idle });
            assert!(s.step(&idle).wr_reject, "{}: write SL{sl}->VL{vl} not refused", b.name());
        }
        assert_eq!(s.step(&SlToVlIn { lookup_sl: 15, ..idle }).lookup_vl, 15);
        assert_eq!(s.step(&SlToVlIn { lookup_sl: 3, ..idle }).lookup_vl, 3);
        // A good write takes effect from the next clock.
        s.step(&SlToVlIn { wr_en: true, wr_sl: 3, wr_vl: 1, lookup_sl: 3, ..idle });
        let o = s.step(&SlToVlIn { lookup_sl: 3, ..idle });
        assert_eq!((o.lookup_vl, o.wr_reject), (1, false), "{}", b.name());
    }
}
