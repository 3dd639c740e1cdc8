//! The command line's one rule (the README's "Exit status"), held for every subcommand by
//! a table of cases: bad input of any kind (a file that is missing, not TOML, or wrong; a
//! bad flag value; a flag or value that does not apply; an output that cannot be written)
//! exits 2 with a message naming the field, flag or path, and leaves nothing behind.
//! Each case runs in a fresh folder holding only its input files; after the run the
//! folder must hold exactly those files, unchanged.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// One case: the arguments (`{d}` is the case's folder, `{r}` the repository's root), the
/// input files it needs, the exit status, and words the message must contain.
struct Case {
    args: &'static str,
    files: &'static [(&'static str, Input)],
    exit: i32,
    words: &'static [&'static str],
}

#[derive(Clone, Copy)]
enum Input {
    Text(&'static str),
    /// A file of the repository (relative to its root), copied in.
    Repo(&'static str),
}

const GARBAGE: Input = Input::Text("this is = = not [ toml\n\u{0}\n");
const QUICK: Input = Input::Repo("tb/scenarios/quickstart.toml");

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Every file below `dir`, with its bytes (folders too, as empty entries).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            if p.is_dir() {
                out.insert(format!("{rel}/"), vec![]);
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn cases() -> Vec<Case> {
    vec![
        // emit
        Case { args: "emit --block nope", files: &[], exit: 2, words: &["unknown block `nope`", "crc16"] },
        Case { args: "emit --config {d}/missing.toml", files: &[], exit: 2, words: &["missing.toml"] },
        Case { args: "emit --config {d}/g.toml", files: &[("g.toml", GARBAGE)], exit: 2, words: &["g.toml", "TOML"] },
        Case { args: "emit --config {d}/e.toml", files: &[("e.toml", Input::Text("# nothing\n"))], exit: 2, words: &["e.toml", "sets nothing"] },
        Case { args: "emit --config {d}/v.toml", files: &[("v.toml", Input::Text("vl_cap = 3\n"))], exit: 2, words: &["v.toml", "vl_cap"] },
        Case { args: "emit --width 8", files: &[], exit: 2, words: &["--width", "--manifest"] },
        Case { args: "emit --width 8 --block sl2vl --manifest", files: &[], exit: 2, words: &["--width", "crc16"] },
        Case { args: "emit --block sl2vl --out {d}/f/x", files: &[("f", Input::Text("a file in the way"))], exit: 2, words: &["--out", "f/x"] },
        // tb
        Case { args: "tb nope", files: &[], exit: 2, words: &["nope"] },
        Case { args: "tb crc16 --width 12", files: &[], exit: 2, words: &["12"] },
        Case { args: "tb iblink_vl_arb_vl8 --param VLS=3", files: &[], exit: 2, words: &["--param", "VLS=3"] },
        Case { args: "tb sl2vl --cycles 0", files: &[], exit: 2, words: &["--cycles"] },
        Case { args: "tb sl2vl --cycles 1000 --backend model,rtl --vcd {d}/f/v", files: &[("f", Input::Text("a file in the way"))], exit: 2, words: &["--vcd", "f/v"] },
        // crc16
        Case { args: "crc16 zz", files: &[], exit: 2, words: &["HEX", "`z`"] },
        Case { args: "crc16 --width 12 00", files: &[], exit: 2, words: &["--width", "12"] },
        // arb-trace
        Case { args: "arb-trace {d}/missing.toml", files: &[], exit: 2, words: &["missing.toml"] },
        Case { args: "arb-trace {d}/g.toml", files: &[("g.toml", GARBAGE)], exit: 2, words: &["g.toml"] },
        // bench
        Case { args: "bench sim --cycles 0", files: &[], exit: 2, words: &["--cycles", "0"] },
        Case { args: "bench sim --port-cycles 99999999999999", files: &[], exit: 2, words: &["--port-cycles"] },
        // fcp
        Case { args: "fcp encode --op 99 --fctbs 0 --vl 0 --fccl 0", files: &[], exit: 2, words: &["--op", "99"] },
        Case { args: "fcp decode zz", files: &[], exit: 2, words: &["hex"] },
        // pfc
        Case { args: "pfc encode --sa 02:00:00:00:00:01", files: &[], exit: 2, words: &["--pause", "--enable"] },
        Case { args: "pfc encode --sa 02:00:00:00:00 --pause 1", files: &[], exit: 2, words: &["--sa"] },
        Case { args: "pfc decode 00", files: &[], exit: 2, words: &["64"] },
        Case { args: "pfc trace {d}/missing.toml", files: &[], exit: 2, words: &["missing.toml"] },
        Case { args: "pfc trace {d}/g.toml", files: &[("g.toml", GARBAGE)], exit: 2, words: &["g.toml", "TOML"] },
        Case { args: "pfc trace {d}/t.toml --capture {d}/c.txt", files: &[("t.toml", Input::Repo("tb/pfc/trace_example.toml"))], exit: 2, words: &["--capture", "FILE.pcap"] },
        Case { args: "pfc trace {d}/t.toml --capture {d}/f/c.pcap", files: &[("t.toml", Input::Repo("tb/pfc/trace_example.toml")), ("f", Input::Text("a file in the way"))], exit: 2, words: &["--capture", "f"] },
        // sim: link-port and Ethernet scenarios
        Case { args: "sim --scenario {d}/missing.toml", files: &[], exit: 2, words: &["missing.toml"] },
        Case { args: "sim --scenario {d}/g.toml", files: &[("g.toml", GARBAGE)], exit: 2, words: &["g.toml", "TOML"] },
        Case { args: "sim --scenario {d}/e.toml", files: &[("e.toml", Input::Text("cycles = 1000\n"))], exit: 2, words: &["e.toml", "traffic", "sends nothing"] },
        Case { args: "sim --scenario {d}/q.toml --cycles 0", files: &[("q.toml", QUICK)], exit: 2, words: &["--cycles"] },
        Case { args: "sim --scenario {d}/q.toml --cycles 99999999999999", files: &[("q.toml", QUICK)], exit: 2, words: &["--cycles"] },
        Case { args: "sim --scenario {d}/r.toml", files: &[("r.toml", Input::Text("cycles = 2000\n[[traffic]]\nsl = 0\npktlen = 64\nload = 500\n[[resync]]\nat = 5000\n"))], exit: 2, words: &["r.toml", "resync", "5000", "2000"] },
        Case { args: "sim --scenario {d}/q.toml --cycles 100 --vcd-window 200..300", files: &[("q.toml", QUICK)], exit: 2, words: &["--vcd-window"] },
        Case { args: "sim --scenario {d}/q.toml --capture {d}/c.txt", files: &[("q.toml", QUICK)], exit: 2, words: &["--capture", "FILE.erf", "FILE.pcap"] },
        Case { args: "sim --scenario {d}/q.toml --capture {d}/c.pcap", files: &[("q.toml", QUICK)], exit: 2, words: &["--capture", "FILE.erf"] },
        Case { args: "sim --scenario {d}/q.toml --plot {d}", files: &[("q.toml", QUICK)], exit: 2, words: &["--plot", "folder"] },
        Case { args: "sim --scenario {d}/q.toml --vcd {d}/f/v", files: &[("q.toml", QUICK), ("f", Input::Text("a file in the way"))], exit: 2, words: &["--vcd", "f/v"] },
        Case { args: "sim --scenario {d}/q.toml --backend model", files: &[("q.toml", QUICK)], exit: 2, words: &["--backend model"] },
        Case { args: "sim --scenario {d}/i.toml --capture {d}/c.erf", files: &[("i.toml", Input::Repo("tb/scenarios/eth_isolation.toml"))], exit: 2, words: &["--capture", "FILE.pcap"] },
        Case { args: "sim --scenario {d}/i.toml --capture-view sender", files: &[("i.toml", Input::Repo("tb/scenarios/eth_isolation.toml"))], exit: 2, words: &["--capture-view"] },
        Case { args: "sim --scenario {d}/i.toml --backend model --vcd {d}/v", files: &[("i.toml", Input::Repo("tb/scenarios/eth_isolation.toml"))], exit: 2, words: &["--vcd", "rtl"] },
        // synth
        Case { args: "synth --target ice40-hx8k --block nope --out {d}/s", files: &[], exit: 2, words: &["unknown block `nope`"] },
        Case { args: "synth --target ice40-hx8k --freq 0 --out {d}/s", files: &[], exit: 2, words: &["--freq"] },
        Case { args: "synth --target ice40-hx8k --module nope --out {d}/s", files: &[], exit: 2, words: &["unknown module `nope`"] },
        Case { args: "synth --target ice40-hx8k --config {d}/missing.toml --out {d}/s", files: &[], exit: 2, words: &["missing.toml"] },
        // formal
        Case { args: "formal --only nope --rtl {r}/crates/rtl/src --hdl {r}/hdl_out --out {d}/f", files: &[], exit: 2, words: &["--only nope"] },
        Case { args: "formal --rtl {r}/crates/rtl/src --hdl {d}/nowhere --out {d}/f", files: &[], exit: 2, words: &["--hdl", "nowhere"] },
        Case { args: "formal --out {d}/f", files: &[], exit: 2, words: &["--rtl", "repository's root"] },
    ]
}

#[test]
fn every_subcommand_refuses_bad_input_with_status_2_and_leaves_nothing() {
    let mut failures = vec![];
    let mut commands = std::collections::BTreeSet::new();
    for c in cases() {
        let d = tempfile::tempdir().unwrap();
        for (name, input) in c.files {
            let bytes = match input {
                Input::Text(t) => t.as_bytes().to_vec(),
                Input::Repo(p) => std::fs::read(root().join(p)).unwrap(),
            };
            std::fs::write(d.path().join(name), bytes).unwrap();
        }
        let before = tree(d.path());
        let r = root().canonicalize().unwrap();
        let args: Vec<String> =
            c.args.split(' ').map(|a| a.replace("{d}", &d.path().display().to_string()).replace("{r}", &r.display().to_string())).collect();
        commands.insert(args[0].clone());
        // Run inside the case's folder, so default outputs (build/, hdl_out/) land there.
        let o = Command::new(env!("CARGO_BIN_EXE_iblink")).args(&args).current_dir(d.path()).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let mut why = vec![];
        if o.status.code() != Some(c.exit) {
            why.push(format!("exit {:?}, want {}", o.status.code(), c.exit));
        }
        for w in c.words {
            if !err.contains(w) {
                why.push(format!("no `{w}` in the message"));
            }
        }
        let after = tree(d.path());
        if after != before {
            let left: Vec<&String> = after.keys().filter(|k| before.get(*k) != after.get(*k)).collect();
            why.push(format!("left behind or changed: {left:?}"));
        }
        if !why.is_empty() {
            failures.push(format!("iblink {}: {}\n  stderr: {}", c.args, why.join("; "), err.trim()));
        }
    }
    assert!(failures.is_empty(), "{} cases broke the rule:\n{}", failures.len(), failures.join("\n"));
    let all = ["arb-trace", "bench", "crc16", "emit", "fcp", "formal", "pfc", "sim", "synth", "tb"];
    for cmd in all {
        assert!(commands.contains(cmd), "no case for `iblink {cmd}`");
    }
}

/// Output flags make the folders they need; `--no-vcd --no-plot` writes nothing at all.
#[test]
fn outputs_make_their_folders_and_can_all_be_left_out() {
    let quick = root().join("tb/scenarios/quickstart.toml");
    let run = |dir: &Path, args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_iblink"))
            .args(["sim", "--scenario", quick.to_str().unwrap(), "--cycles", "3000", "--no-model"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    let d = tempfile::tempdir().unwrap();
    run(d.path(), &["--no-vcd", "--no-plot"]);
    assert!(tree(d.path()).is_empty(), "--no-vcd --no-plot left {:?}", tree(d.path()).keys().collect::<Vec<_>>());
    run(d.path(), &["--vcd", "a/b", "--plot", "c/d/t.svg", "--capture", "e/f/c.erf"]);
    for f in ["a/b/port_a.vcd", "a/b/port_b.vcd", "c/d/t.svg", "e/f/c.erf"] {
        assert!(d.path().join(f).is_file(), "{f} not written");
    }
}
