//! VL15 receive buffer: model, Rust twin and Verilator in lockstep, and seed 000's
//! one-packet buffer checked directly in every back end.

use iblink_rtl::vl15_rx::{Vl15RxIn, Vl15RxOut};
use iblink_sim::blocks::vl15_rx::{vl15_rx_sim, Vl15RxStimulus};
use iblink_sim::blocks::Backend;
use iblink_sim::{lockstep, CycleSim};

#[test]
fn vl15_lockstep_and_coverage() {
    for cap in [1, 4] {
        let mut sims: Vec<_> = Backend::ALL.iter().map(|b| vl15_rx_sim(cap, *b, None).unwrap()).collect();
        let mut refs: Vec<&mut dyn CycleSim<In = Vl15RxIn, Out = Vl15RxOut>> = sims.iter_mut().map(|s| s.as_mut() as _).collect();
        lockstep(&mut refs, Vl15RxStimulus::new(cap as u64).take(lockstep::cycles() as usize)).unwrap_or_else(|m| panic!("capacity {cap}: {m}"));
        // The run must have filled the buffer and dropped: the model's drop count shows it.
        let last = refs[0].step(&Vl15RxIn::default());
        assert!(last.drop_count > 1000, "capacity {cap}: only {} drops", last.drop_count);
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
