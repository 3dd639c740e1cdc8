//! SLtoVL table: model, Rust twin and Verilator in lockstep, and the rules of
//! docs/spec.md §7 checked directly in every back end.

use iblink_rtl::sl2vl::SlToVlIn;
use iblink_sim::blocks::sl2vl::sl2vl_sim;
use iblink_sim::blocks::Backend;
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};

#[test]
fn sl2vl_lockstep_every_vlcap() {
    for vls in [1, 2, 4, 8, 15] {
        let n = tb::sl2vl::test_cycles(vls, lockstep::cycles());
        tb::sl2vl::run(vls, tb::sl2vl::seed(vls), &TbOptions::test(n)).unwrap().assert_passed(n);
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
