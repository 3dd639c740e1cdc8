//! The CryptoMiniSat engine's script (`src/aig_cms.py`, embedded in `iblink`) on small
//! AIGER models whose answers are worked out by hand: a BMC that must reach its bad state
//! at the right frame with the right witness, and induction steps that must fail or hold.
//! Needs `pycryptosat` and `yosys-abc` (`make deps`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The runner's Python, with this workspace as the root.
fn python() -> String {
    iblink_formal::run::cms_python(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/aig_cms.py")
}

/// A binary AIGER file: header fields, latch next-state literals (initialised to 0), bad
/// states, and AND gates as (lhs, rhs0, rhs1) with rhs0 >= rhs1, in order.
fn aiger(m: u32, i: u32, latches: &[u32], bads: &[u32], ands: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut out = format!(
        "aig {m} {i} {} 0 {} {}\n",
        latches.len(),
        ands.len(),
        bads.len()
    )
    .into_bytes();
    for l in latches.iter().chain(bads) {
        out.extend(format!("{l}\n").bytes());
    }
    let mut num = |mut x: u32| {
        while x >= 0x80 {
            out.push((x & 0x7F) as u8 | 0x80);
            x >>= 7;
        }
        out.push(x as u8);
    };
    for &(lhs, r0, r1) in ands {
        assert!(lhs > r0 && r0 >= r1);
        num(lhs - r0);
        num(r0 - r1);
    }
    out
}

/// Runs the script; returns its verdict line and the witness text (if one was written).
fn run(model: &[u8], mode: &str, depth: u32) -> (String, Option<String>) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("m.aig"), model).unwrap();
    let out = Command::new(python())
        .arg(script())
        .args(["m.aig", mode, &depth.to_string(), "w.aiw"])
        .current_dir(d.path())
        .output()
        .expect("python");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "aig_cms.py failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdict = text
        .lines()
        .rev()
        .find(|l| l.starts_with("held") || l.starts_with("failed"))
        .unwrap_or("")
        .to_string();
    (
        verdict,
        std::fs::read_to_string(d.path().join("w.aiw")).ok(),
    )
}

/// A 2-bit counter from 0 (c0 = lit 2, c1 = lit 4): c0' = !c0, c1' = c1 ^ c0 (the AND-pair
/// XOR form Yosys writes), bad when it reads 3.
fn counter() -> Vec<u8> {
    // 6 = c1 & c0, 8 = !c1 & !c0, 10 = !6 & !8 = c1 ^ c0.
    aiger(5, 0, &[3, 10], &[6], &[(6, 4, 2), (8, 5, 3), (10, 9, 7)])
}

#[test]
fn bmc_reaches_the_counters_bad_state_at_frame_3_only() {
    assert_eq!(
        run(&counter(), "bmc", 3).0,
        "held",
        "counts 0, 1, 2 in frames 0-2"
    );
    let (verdict, witness) = run(&counter(), "bmc", 4);
    assert_eq!(verdict, "failed 3 0");
    // One bad state, the latches' initial values, then one (empty) input line a frame.
    assert_eq!(witness.unwrap(), "1\nb0\n00\n\n\n\n\n.\n");
}

#[test]
fn step_fails_from_a_free_state_when_the_bad_state_is_reachable() {
    // From a free state the counter reaches 3 within any window.
    for depth in [1, 3] {
        let (verdict, witness) = run(&counter(), "step", depth);
        assert_eq!(verdict, format!("failed {depth} 0"));
        // The witness starts from the free state the solver chose: 3 - depth.
        let start = 3 - depth;
        let bits = format!("{}{}", start & 1, start >> 1);
        assert!(witness.unwrap().starts_with(&format!("1\nb0\n{bits}\n")));
    }
}

#[test]
fn step_holds_for_an_inductive_property_over_xor_networks() {
    // Input x (lit 2), latches a (4) and b (6): a' = x ^ a and b' = x ^ b, written two
    // ways (AND-pair XOR, and XNOR negated); bad = a ^ b. A state with a == b goes to one
    // with a == b, and one with a != b to one with a != b: 1-inductive only with its
    // hypothesis, and never bad from 0.
    let ands = [
        (8, 4, 2),    // a & x
        (10, 5, 3),   // !a & !x
        (12, 11, 9),  // x ^ a
        (14, 7, 2),   // !b & x
        (16, 6, 3),   // b & !x
        (18, 17, 15), // x == b (so b' = lit 19 = x ^ b)
        (20, 6, 4),   // b & a
        (22, 7, 5),   // !b & !a
        (24, 23, 21), // a ^ b
    ];
    let model = aiger(12, 1, &[12, 19], &[24], &ands);
    assert_eq!(run(&model, "bmc", 6).0, "held");
    assert_eq!(run(&model, "step", 1).0, "held");
    // With b' = x instead, a and b part when a is 1 (from 0: when x was 1 a clock
    // before): the step fails, and BMC at frame 2.
    let broken = aiger(12, 1, &[12, 2], &[24], &ands);
    assert_eq!(run(&broken, "step", 1).0, "failed 1 0");
    assert_eq!(run(&broken, "bmc", 6).0, "failed 2 0");
}
