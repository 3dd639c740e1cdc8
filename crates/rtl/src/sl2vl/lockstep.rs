//! SLtoVL table and VL15 buffer: model, rust-hdl stepper and Verilator in lockstep, and
//! the rules of SPEC.md §7 checked directly in every back end.

use iblink_rtl::sl2vl::SlToVlIn;
use iblink_rtl::vl15_rx::{Vl15RxIn, Vl15RxOut};
use iblink_sim::blocks::sl2vl::{sl2vl_sim, vl15_rx_sim, SlToVlStimulus, Vl15RxStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};

const CYCLES: usize = 1_000_000;

#[test]
fn sl2vl_lockstep_every_vlcap() {
    for vls in [1, 2, 4, 8, 15] {
        let mut sims: Vec<_> = Backend::ALL.iter().map(|b| sl2vl_sim(vls, *b, None).unwrap()).collect();
        let mut refs: Vec<&mut dyn CycleSim<In = SlToVlIn, Out = _>> = sims.iter_mut().map(|s| s.as_mut() as _).collect();
        let n = if vls == 4 || vls == 15 { CYCLES } else { CYCLES / 10 };
        lockstep(&mut refs, SlToVlStimulus::new(vls as u64).take(n)).unwrap_or_else(|m| panic!("VLCap {vls}: {m}"));
    }
}

#[test]
fn vl15_lockstep_and_coverage() {
    for cap in [1, 4] {
        let mut sims: Vec<_> = Backend::ALL.iter().map(|b| vl15_rx_sim(cap, *b, None).unwrap()).collect();
        let mut refs: Vec<&mut dyn CycleSim<In = Vl15RxIn, Out = Vl15RxOut>> = sims.iter_mut().map(|s| s.as_mut() as _).collect();
        lockstep(&mut refs, Vl15RxStimulus::new(cap as u64).take(CYCLES)).unwrap_or_else(|m| panic!("capacity {cap}: {m}"));
        // The run must have filled the buffer and dropped: the model's drop count shows it.
        let last = refs[0].step(&Vl15RxIn::default());
        assert!(last.drop_count > 1000, "capacity {cap}: only {} drops", last.drop_count);
    }
}

/// SPEC.md §7: SL15 is VL15 whatever is written; writes naming SL15 or a VL the port
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

/// Seed 000: "CAs and routers shall provide a minimum of a single packet buffer per port
/// for VL15"; VL15 is not flow controlled, so a second SMP before the first is taken
/// is dropped.
#[test]
fn one_packet_vl15_buffer_drops_the_second_smp() {
    for b in Backend::ALL {
        let mut s = vl15_rx_sim(1, b, None).unwrap();
        let idle = Vl15RxIn::default();
        let arrive = Vl15RxIn { accept: true, ..idle };
        s.step(&arrive);
        s.step(&arrive);
        let o = s.step(&idle);
        assert_eq!((o.kept, o.dropped, o.held, o.drop_count), (false, true, 1, 1), "{}", b.name());
        s.step(&Vl15RxIn { drain: true, ..idle });
        s.step(&arrive);
        let o = s.step(&idle);
        assert_eq!((o.kept, o.held, o.drop_count), (true, 1, 1), "{}", b.name());
    }
}
