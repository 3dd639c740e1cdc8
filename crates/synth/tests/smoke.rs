//! Synthesis smoke test: the smallest CRC unit through Yosys and nextpnr-ice40 (HX8K).
//! Fails when a tool is missing or errors, or when the report cannot be read. Needs
//! Debian's yosys and nextpnr-ice40 (`make deps`).

use iblink_rtl::catalog::crc16_variant;
use iblink_synth::{run_module, tools_for, FlowOptions, Report, Target};

#[test]
fn crc16_w8_synthesises_and_routes_on_hx8k() {
    let m = crc16_variant(8).unwrap();
    let tools = tools_for(Target::Ice40Hx8k, &mut |_| {}).expect("iCE40 tools (run `make deps`)");
    let dir = tempfile::tempdir().unwrap();
    let opts = FlowOptions::default();
    let r = run_module(&m, Target::Ice40Hx8k, &tools, &opts, dir.path(), &mut |_| {}).unwrap();
    // 16 state + 16 crc + crc_valid flip-flops are the block's; none may be lost.
    assert_eq!(r.block_cost.ff, 33, "{:?}", r.block_cost);
    assert!(r.block_cost.lut4 >= 16, "{:?}", r.block_cost);
    assert_eq!(r.block_cost.bram, 0);
    // The wrapper: 13 input bits (reset, start, valid, last, data[8], keep[1]) in the
    // shift chain, 17 output register bits, XOR stages 5 and 2.
    assert_eq!(r.wrapper.shift_ffs, 13);
    assert_eq!(r.wrapper_cost.ff as usize, r.wrapper.ffs());
    assert_eq!(r.outcome, iblink_synth::flow::Outcome::Routed);
    let f = r.fmax_mhz.expect("routed");
    assert!(f > 20.0 && f < 1000.0, "{f}");
    assert_eq!(r.seed, Some(1));
    assert!(r.critical_path.is_some());
    assert!(r.device["ICESTORM_LC"].0 >= r.block_cost.lut4);
    for f in ["wrap.v", "yosys.log", "stat.json", "netlist.json", "nextpnr-seed1.log", "nextpnr-seed1.json"] {
        assert!(dir.path().join(f).is_file(), "{f} kept next to the report");
    }
    let mut rep = Report::new(&opts);
    rep.results.push(r);
    let md = rep.markdown();
    assert!(md.contains("| ice40-hx8k | iblink_crc16_w8 |"), "{md}");
    let v: serde_json::Value = serde_json::from_str(&rep.to_json()).unwrap();
    assert_eq!(v["results"][0]["block_cost"]["ff"], 33);
}
