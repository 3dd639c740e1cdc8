//! Every configuration's Verilog declares the ports its rust-hdl block declares, with
//! the same directions and widths, at its parameters: the Verilator bridge, the
//! synthesis wrapper and the port stepper all rely on the block's port list. Yosys reads
//! the emitted files, takes the parameters and reports the ports (`write_json`).

use iblink_rtl::catalog::{default_request, variants};
use iblink_rtl::emit::Variant;
use iblink_rtl::io::{Dir, Port};
use std::process::Command;

fn yosys_ports(v: &Variant) -> Vec<Port> {
    let dir = tempfile::tempdir().unwrap();
    let mut reads = String::new();
    for m in &v.modules {
        let p = dir.path().join(m.file_name());
        std::fs::write(&p, &m.text).unwrap();
        reads.push_str(&format!("read_verilog {}; ", p.display()));
    }
    let ch: String = v.params.iter().map(|(k, x)| format!("chparam -set {k} {x} {}; ", v.top)).collect();
    let json = dir.path().join("ports.json");
    let script = format!("{reads}{ch}hierarchy -top {}; proc; write_json {}", v.top, json.display());
    let out = Command::new("yosys").args(["-q", "-p", &script]).output().expect("yosys (run `make deps`)");
    assert!(out.status.success(), "{}: yosys failed: {}", v.name, String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ports = j["modules"][&v.top]["ports"].as_object().unwrap_or_else(|| panic!("{}: no module {}", v.name, v.top));
    ports
        .iter()
        .map(|(name, p)| Port {
            name: name.clone(),
            width: p["bits"].as_array().unwrap().len(),
            dir: if p["direction"] == "input" { Dir::Input } else { Dir::Output },
        })
        .collect()
}

#[test]
fn verilog_ports_equal_the_rust_hdl_ports() {
    // A module rendered by rust-hdl declares exactly the block's ports: only the
    // parameterised ones are read back. One Yosys per configuration, on every core.
    let todo: Vec<Variant> = variants(&default_request()).unwrap().into_iter().filter(|v| !v.params.is_empty()).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                while let Some(v) = todo.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let mut want = v.ports.clone();
                    let mut got = yosys_ports(v);
                    want.sort_by(|a, b| a.name.cmp(&b.name));
                    got.sort_by(|a, b| a.name.cmp(&b.name));
                    assert_eq!(got, want, "{}: the Verilog's ports differ from the rust-hdl block's", v.name);
                }
            });
        }
    });
    assert!(todo.len() >= 5, "only {} parameterised configurations checked", todo.len());
}
