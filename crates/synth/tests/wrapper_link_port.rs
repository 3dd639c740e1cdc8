//! The registered wrapper around the link port: a top that instantiates the block
//! modules by named ports (each module its own file), with every kind of port. No tools
//! run.

use iblink_rtl::catalog::link_port_variant;
use iblink_rtl::io::Dir;
use iblink_rtl::link_port::PortParams;
use iblink_synth::wrapper::wrapper_verilog;

#[test]
fn the_port_top_is_wrapped_whole_and_names_its_blocks_without_dollars() {
    let m = link_port_variant(&PortParams::defaults(4, 32)).unwrap();
    let text = m.text();
    // No `$` inside any identifier (system functions such as `$signed` start with it).
    let named = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .find(|tok| tok.contains('$') && !tok.starts_with('$'));
    assert_eq!(named, None, "no `$` in any module, instance or net name");
    assert!(text.contains("iblink_tx_credits #(.VLS(VLS), .CHECK_AHEAD(1)) txc ("), "TX credits instantiated by named ports, VLCap a parameter, the registered-check layout");
    assert!(m.params.contains(&("VLS".to_string(), "4".to_string())), "{:?}", m.params);
    assert_eq!(m.modules[0].name, m.top, "the top's file comes first");
    let ports = &m.ports;
    let width = |n: &str| ports.iter().find(|p| p.name == n).unwrap_or_else(|| panic!("no port {n}")).width;
    // Widths from the port's documented interface (VLCap 4, 32 bits).
    assert_eq!(width("txq_len"), 44);
    assert_eq!(width("src_data"), 32);
    assert_eq!(width("fccl"), 48);
    assert_eq!(width("overruns"), 64);
    assert_eq!(width("cfg_data"), 16);
    // A block's port is not the top's: the arbiter has `offer_vl`, the top does not.
    assert!(ports.iter().all(|p| p.name != "offer_vl"));

    let (v, shape) = wrapper_verilog(&m.top, ports).unwrap();
    let ins: usize = ports.iter().filter(|p| p.dir == Dir::Input && p.name != "clock").map(|p| p.width).sum();
    let outs: usize = ports.iter().filter(|p| p.dir == Dir::Output).map(|p| p.width).sum();
    assert_eq!((shape.shift_ffs, shape.out_ffs), (ins, outs));
    for p in ports {
        assert!(v.contains(&format!(".{}(", p.name)), "port {} not connected", p.name);
    }
    assert!(v.contains(&format!("    {} dut(", m.top)));
}
