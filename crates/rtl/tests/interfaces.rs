//! Every configuration's Verilog declares the ports its rust-hdl block declares, with
//! the same directions and widths, at its parameters: the Verilator bridge, the
//! synthesis wrapper and the port stepper all rely on the block's port list. Yosys reads
//! the emitted files, takes the parameters and reports the ports (`write_json`).

use iblink_rtl::catalog::{default_request, variants};
use iblink_rtl::emit::Variant;
use iblink_rtl::io::{Dir, Port};
use std::process::Command;

/// `v`'s modules written into `dir`, and the Yosys commands that read them.
fn written(v: &Variant, dir: &std::path::Path) -> String {
    let mut reads = String::new();
    for m in &v.modules {
        let p = dir.join(m.file_name());
        std::fs::write(&p, &m.text).unwrap();
        reads.push_str(&format!("read_verilog {}; ", p.display()));
    }
    reads
}

fn yosys_ports(v: &Variant) -> Vec<Port> {
    let dir = tempfile::tempdir().unwrap();
    let reads = written(v, dir.path());
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

/// The modules Yosys elaborates from `v`'s files with `params` set on the top, each
/// as its name and its parameters' values (bits, leading zeros and signedness dropped).
fn elaborated(v: &Variant, params: &[(String, String)]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let reads = written(v, dir.path());
    let ch: String = params.iter().map(|(k, x)| format!("chparam -set {k} {x} {}; ", v.top)).collect();
    let il = dir.path().join("design.il");
    let script = format!("{reads}{ch}hierarchy -top {}; write_rtlil {}", v.top, il.display());
    let out = Command::new("yosys").args(["-q", "-p", &script]).output().expect("yosys (run `make deps`)");
    assert!(out.status.success(), "{}: yosys failed: {}", v.name, String::from_utf8_lossy(&out.stderr));
    let bits = |x: &str| -> String {
        if x.starts_with('"') {
            return x.to_string();
        }
        let b = match x.split_once('\'') {
            Some((_, b)) => b.to_string(),
            None => format!("{:b}", x.parse::<u64>().unwrap_or_else(|_| panic!("{}: parameter value {x}", v.name))),
        };
        let t = b.trim_start_matches('0');
        if t.is_empty() { "0".into() } else { t.into() }
    };
    let mut mods: Vec<String> = Vec::new();
    for line in std::fs::read_to_string(&il).unwrap().lines() {
        if let Some(name) = line.strip_prefix("module ") {
            // `\m`, `$paramod\m\P=value` or `$paramod$digest\m`: keep `m`.
            let base = if name.starts_with("$paramod") { name.split('\\').nth(1).unwrap() } else { name.trim_start_matches('\\') };
            mods.push(base.to_string());
        } else if let Some(p) = line.strip_prefix("  parameter ") {
            let mut w: Vec<&str> = p.split_whitespace().filter(|w| *w != "signed").collect();
            let val = w.pop().unwrap();
            let m = mods.last_mut().unwrap();
            m.push_str(&format!(" {}={}", w.join(" "), bits(val)));
        }
    }
    mods.sort();
    assert!(mods.len() > 3, "{}: {mods:?}", v.name);
    mods
}

/// One parameterised top per port: set only its sizes (`VLS`/`QUEUES` and
/// `DATA_WIDTH`), the defaults its header computes (the timers, the buffer, the
/// arbitration tables, the memories) give every instance the parameters the Rust
/// configuration gives it.
#[test]
fn port_defaults_in_verilog_equal_the_rust_defaults() {
    let all = variants(&default_request()).unwrap();
    let ports: Vec<&Variant> = all.iter().filter(|v| v.block == "link_port" || v.block == "eth_port").collect();
    assert_eq!(ports.len(), 16, "10 link ports and 6 Ethernet ports");
    for v in ports {
        let sizes: Vec<(String, String)> =
            v.params.iter().filter(|(k, _)| ["VLS", "QUEUES", "DATA_WIDTH"].contains(&k.as_str())).cloned().collect();
        assert_eq!(sizes.len(), 2, "{}", v.name);
        assert!(v.params.len() > 2, "{}: the configuration sets its other parameters too", v.name);
        assert_eq!(elaborated(v, &sizes), elaborated(v, &v.params), "{}: the header's defaults differ from the Rust configuration's", v.name);
    }
}
