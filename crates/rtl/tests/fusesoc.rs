//! The FuseSoC cores `iblink emit` writes beside the modules: FuseSoC (from
//! tb/requirements.txt, in .venv-tb/ or `IBLINK_TB_VENV`, installed by `make deps`) finds
//! every core in hdl_out/, resolves each port's dependencies to every file it needs, and
//! lints it with Verilator (-Wall) and elaborates it with Icarus, at the defaults and at
//! other parameters; a module with a lint warning fails its core's lint.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fusesoc() -> PathBuf {
    let venv = std::env::var_os("IBLINK_TB_VENV").map_or_else(|| root().join(".venv-tb"), PathBuf::from);
    let bin = venv.join("bin/fusesoc");
    assert!(bin.is_file(), "{} not found: run `make deps` (installs tb/requirements.txt)", bin.display());
    bin
}

fn run(cores: &Path, build: &Path, target: &str, core: &str, params: &[&str]) -> Output {
    Command::new(fusesoc())
        .args(["--cores-root"])
        .arg(cores)
        .args(["run", "--build-root"])
        .arg(build)
        .args(["--target", target, core])
        .args(params)
        .output()
        .expect("fusesoc")
}

fn ok(o: &Output, what: &str) {
    assert!(o.status.success(), "{what}: fusesoc failed:\n{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_ports_lint_and_elaborate_through_their_cores() {
    let hdl = root().join("hdl_out");
    let build = tempfile::tempdir().unwrap();
    for (core, other) in [("iblink_link_port", ["--VLS", "8", "--DATA_WIDTH", "64"]), ("iblink_eth_port", ["--QUEUES", "2", "--DATA_WIDTH", "32"])] {
        let name = iblink_rtl::fusesoc::core_name(core);
        ok(&run(&hdl, build.path(), "lint", &name, &[]), &format!("{core} lint"));
        ok(&run(&hdl, build.path(), "sim", &name, &[]), &format!("{core} sim"));
        ok(&run(&hdl, build.path(), "lint", &name, &other), &format!("{core} lint {other:?}"));
        // The parameters reach Verilator.
        let vc = std::fs::read_dir(build.path().join(name.replace(':', "_")).join("lint"))
            .unwrap()
            .flatten()
            .find(|e| e.path().extension().is_some_and(|x| x == "vc"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .expect("the lint's .vc file");
        assert!(vc.contains(&format!("-G{}={}", &other[0][2..], other[1])), "{vc}");
    }
}

#[test]
fn every_core_lints_and_a_warning_fails_it() {
    let hdl = root().join("hdl_out");
    let cores: Vec<String> = std::fs::read_dir(&hdl)
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().strip_suffix(".core").map(str::to_string))
        .collect();
    assert!(cores.len() >= 30, "{} cores in hdl_out/", cores.len());
    let build = tempfile::tempdir().unwrap();
    for c in &cores {
        ok(&run(&hdl, build.path(), "lint", &iblink_rtl::fusesoc::core_name(c), &[]), c);
    }
    // A copy of the cores with one module given an unused, undriven wire.
    let copy = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&hdl).unwrap().flatten() {
        std::fs::copy(e.path(), copy.path().join(e.file_name())).unwrap();
    }
    let f = copy.path().join("iblink_vl15_rx.v");
    let text = std::fs::read_to_string(&f).unwrap().replacen("endmodule", "wire planted;\nendmodule", 1);
    std::fs::write(&f, text).unwrap();
    let o = run(copy.path(), build.path(), "lint", &iblink_rtl::fusesoc::core_name("iblink_link_port"), &[]);
    assert!(!o.status.success(), "the planted warning passed the port's lint");
    assert!(String::from_utf8_lossy(&o.stdout).contains("planted") || String::from_utf8_lossy(&o.stderr).contains("planted"));
}
