//! A block's formal.toml is checked before any tool runs: each mistake is refused with
//! the field it is about.

use iblink_formal::load_all;
use std::path::Path;

const MODULE: &str = "module m(input wire clock);\nreg r = 1'b0;\nalways @(posedge clock) r <= ~r;\nendmodule\n";

const GOOD: &str = r#"
[[proof]]
name = "m_toggles"
property = "r toggles"
harness = "formal/fv_m.sv"
top = "fv_m"
modules = ["m.v"]
mode = "prove"
depth = 2
taps = [{ wire = "w{i}", path = "dut.r", count = "N" }]
params = { N = 2 }
[[proof.mutant]]
name = "stuck"
file = "m.v"
from = "r <= ~r;"
to = "r <= r;"
"#;

/// A tree with one block folder `blk` holding `manifest`, and hdl_out/ with m.v.
fn tree(manifest: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let blk = d.path().join("src/blk/formal");
    std::fs::create_dir_all(&blk).unwrap();
    std::fs::write(blk.join("fv_m.sv"), "module fv_m(input wire clock); endmodule\n").unwrap();
    std::fs::write(d.path().join("src/blk/formal.toml"), manifest).unwrap();
    std::fs::create_dir_all(d.path().join("hdl_out")).unwrap();
    std::fs::write(d.path().join("hdl_out/m.v"), MODULE).unwrap();
    d
}

fn load(manifest: &str) -> Result<Vec<iblink_formal::Proof>, String> {
    let d = tree(manifest);
    load_all(&d.path().join("src"), Path::new(&d.path().join("hdl_out"))).map_err(|e| format!("{e:#}"))
}

#[test]
fn a_good_manifest_loads_with_taps_expanded() {
    let p = load(GOOD).unwrap();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].block, "blk");
    assert_eq!(p[0].taps, vec![("w0".to_string(), "dut.r".to_string()), ("w1".to_string(), "dut.r".to_string())]);
    assert!(p[0].modules[0].is_absolute() && p[0].harness.is_absolute());
    assert_eq!(p[0].engine, iblink_formal::manifest::Engine::Z3);
    let abc = load(&GOOD.replace("mode = \"prove\"", "mode = \"bmc\"\nwhy = \"w\"\nengine = \"abc\"")).unwrap();
    assert_eq!(abc[0].engine, iblink_formal::manifest::Engine::Abc);
}

fn refused(manifest: &str, field: &str) {
    let e = load(manifest).expect_err("refused");
    assert!(e.contains(field), "error should name `{field}`: {e}");
    assert!(e.contains("formal.toml") && e.contains("m_toggles") || field.starts_with("unknown"), "{e}");
}

#[test]
fn mistakes_are_refused_naming_the_field() {
    refused(&GOOD.replace("depth = 2", "depth = 2\nspeed = 3"), "unknown field");
    refused(&GOOD.replace("from = \"r <= ~r;\"", "from = \"r <= r + 1;\""), "from: found 0 times");
    refused(&GOOD.replace("file = \"m.v\"", "file = \"other.v\""), "is not one of modules");
    refused(&GOOD.replace("mode = \"prove\"", "mode = \"bmc\""), "why");
    refused(&GOOD.replace("depth = 2", "depth = 0"), "depth");
    refused(&GOOD.replace("depth = 2", "depth = 2\nengine = \"abc\""), "engine: \"abc\" runs BMC only");
    refused(&GOOD.replace("depth = 2", "depth = 2\nengine = \"boolector\""), "unknown variant");
    refused(&GOOD.replace("count = \"N\"", "count = \"M\""), "taps: count `M`");
    refused(&GOOD.replace("harness = \"formal/fv_m.sv\"", "harness = \"formal/none.sv\""), "harness");
    refused(&GOOD.replace("modules = [\"m.v\"]", "modules = [\"m.v\", \"n.v\"]"), "modules");
    let no_mutant = &GOOD[..GOOD.find("[[proof.mutant]]").unwrap()];
    refused(no_mutant, "planted bug");
    let twice = format!("{GOOD}\n{GOOD}");
    refused(&twice, "name: used by another proof");
}
