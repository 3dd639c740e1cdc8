//! VL15 receive buffer: model, Rust twin and Verilator in lockstep, and seed 000's
//! one-packet buffer checked directly in every back end.

use iblink_rtl::vl15_rx::Vl15RxIn;
use iblink_sim::blocks::vl15_rx::vl15_rx_sim;
use iblink_sim::blocks::Backend;
use iblink_sim::lockstep;
use iblink_sim::tb::{self, harness::TbOptions};

/// The run must have filled the buffer and dropped: the model's drop count shows it
/// (`iblink_sim::tb::vl15_rx`).
#[test]
fn vl15_lockstep_and_coverage() {
    let n = lockstep::cycles();
    for cap in [1, 4] {
        tb::vl15_rx::run(cap, tb::vl15_rx::seed(cap), &TbOptions::test(n)).unwrap().assert_passed(n);
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
