//! The data-VL arbiter: reference model (in its cycle adapter), Rust twin and
//! Verilator in lockstep on random traffic for every VLCap, and seed 003's Figure 25-10
//! walk-through replayed through the RTL with the seed's numbers.

use iblink_model::arbiter::ArbEntry;
use iblink_rtl::vl_arb::VlArbIn;
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::vl_arb::{trace_line, vl_arb_sim, write_input, VlArbSim};
use iblink_sim::lockstep;
use iblink_sim::tb::{self, harness::TbOptions};
use std::sync::Mutex;

/// One Verilator build at a time (the bridge's build directories are per process).
static BUILD: Mutex<()> = Mutex::new(());

fn sim(vls: usize, b: Backend) -> VlArbSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    vl_arb_sim(vls, b, None).unwrap()
}

/// The random lockstep at VLCap `vls` with its coverage gates (`iblink_sim::tb::vl_arb`).
fn run(vls: usize) {
    let n = lockstep::cycles();
    tb::vl_arb::run(vls, tb::vl_arb::seed(vls), &TbOptions::test(n)).unwrap().assert_passed(n);
}

#[test]
fn lockstep_vl1() {
    run(1);
}
#[test]
fn lockstep_vl2() {
    run(2);
}
#[test]
fn lockstep_vl4() {
    run(4);
}
#[test]
fn lockstep_vl8() {
    run(8);
}
#[test]
fn lockstep_vl15() {
    run(15);
}

/// Seed 003, Figure 25-10 (the model's acceptance test, crates/model/tests/
/// seed003_figure_25_10.rs): high table VL6/127, VL1/63, VL7/254; low table VL3/2,
/// VL0/64; VLHighLimit 4; every packet PktLen 1024 (64 blocks); all VLs backlogged with
/// credits; the consumer takes every offer at once. Both low-table policies.
fn figure_25_10(b: Backend, one_packet: bool) -> Vec<String> {
    let mut s = sim(8, b);
    let idle = VlArbIn {
        vl_high_limit: 4,
        one_packet,
        vl_enable: 0xff,
        ..Default::default()
    };
    let high = [
        ArbEntry::new(6, 127),
        ArbEntry::new(1, 63),
        ArbEntry::new(7, 254),
    ];
    let low = [ArbEntry::new(3, 2), ArbEntry::new(0, 64)];
    let writes = high
        .iter()
        .enumerate()
        .map(|(k, e)| (false, k, *e))
        .chain(low.iter().enumerate().map(|(k, e)| (true, k, *e)));
    for (is_low, k, e) in writes {
        s.step(&VlArbIn {
            vl_high_limit: 4,
            one_packet,
            vl_enable: 0xff,
            ..write_input(is_low, k, e)
        });
    }
    let mut heads = idle;
    for v in [0, 1, 3, 6, 7] {
        heads.head_valid |= 1 << v;
        heads.head_len[v] = 1024;
    }
    heads.take = true;
    let mut lines = Vec::new();
    for _ in 0..100 {
        let o = s.step(&heads);
        if o.offer_valid {
            lines.push(trace_line(&o));
            if lines.len() == 7 {
                break;
            }
        }
    }
    lines
}

#[test]
fn figure_25_10_through_the_rtl() {
    let expected = [
        "vl=6 table=high entry=0 blocks=64 weight_left=63 high_counter=3072",
        "vl=6 table=high entry=0 blocks=64 weight_left=-1 high_counter=2048",
        "vl=1 table=high entry=1 blocks=64 weight_left=-1 high_counter=1024",
        "vl=7 table=high entry=2 blocks=64 weight_left=190 high_counter=0",
        "vl=7 table=high entry=2 blocks=64 weight_left=126 high_counter=-1024",
        "vl=3 table=low entry=0 blocks=64 weight_left=-62 high_counter=4096",
        "vl=7 table=high entry=2 blocks=64 weight_left=62 high_counter=3072",
    ];
    for b in [Backend::Model, Backend::Rtl, Backend::Verilator] {
        for one_packet in [false, true] {
            assert_eq!(
                figure_25_10(b, one_packet),
                expected,
                "{b:?}, one_packet {one_packet}"
            );
        }
    }
}
