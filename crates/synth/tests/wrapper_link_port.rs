//! The registered wrapper around the link port: a multi-module file (its blocks are
//! sub-modules named `<port>$<block>`) whose top has every kind of port. No tools run.

use iblink_rtl::catalog::link_port_variant;
use iblink_rtl::io::Dir;
use iblink_rtl::link_port::PortParams;
use iblink_synth::ports::parse_ports;
use iblink_synth::wrapper::wrapper_verilog;

#[test]
fn the_port_top_is_read_past_its_sub_modules_and_wrapped_whole() {
    let m = link_port_variant(&PortParams::defaults(4, 32)).unwrap();
    assert!(m.text().contains(&format!("module {}$txc(", m.name)), "sub-modules share the file");
    let ports = parse_ports(&m.text(), &m.name).unwrap();
    let width = |n: &str| ports.iter().find(|p| p.name == n).unwrap_or_else(|| panic!("no port {n}")).width;
    // Widths from the port's documented interface (VLCap 4, 32 bits).
    assert_eq!(width("txq_len"), 44);
    assert_eq!(width("src_data"), 32);
    assert_eq!(width("fccl"), 48);
    assert_eq!(width("overruns"), 64);
    assert_eq!(width("cfg_data"), 16);
    // A sub-module's port list is not the top's: `arb` has `offer_vl`, the top does not.
    assert!(ports.iter().all(|p| p.name != "offer_vl"));
    let sub = parse_ports(&m.text(), &format!("{}$arb", m.name)).unwrap();
    assert!(sub.iter().any(|p| p.name == "offer_vl"));

    let (v, shape) = wrapper_verilog(&m.name, &ports).unwrap();
    let ins: usize = ports.iter().filter(|p| p.dir == Dir::Input && p.name != "clock").map(|p| p.width).sum();
    let outs: usize = ports.iter().filter(|p| p.dir == Dir::Output).map(|p| p.width).sum();
    assert_eq!((shape.shift_ffs, shape.out_ffs), (ins, outs));
    for p in &ports {
        assert!(v.contains(&format!(".{}(", p.name)), "port {} not connected", p.name);
    }
    assert!(v.contains(&format!("    {} dut(", m.name)));
    assert!(!v.contains('$'), "the wrapper names no sub-module");
}
