//! Every citation of the specification points at a section it has: `docs/spec.md §N`
//! (also `§N, §M`, `§N–§M`) anywhere in the repository's own text names a heading
//! `## N.` of docs/spec.md. Nothing cites the old out-of-tree copy (`SPEC.md`, `../shared`),
//! which a clone does not have.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The section numbers docs/spec.md has (`## N. Title`).
fn sections(spec: &str) -> BTreeSet<u32> {
    spec.lines()
        .filter_map(|l| l.strip_prefix("## "))
        .filter_map(|l| l.split_once('.').and_then(|(n, _)| n.parse().ok()))
        .collect()
}

/// The section numbers cited right after each `docs/spec.md` in `text`: `§N` items
/// separated by `,`, `and`, `–` or `-`.
fn cited(text: &str) -> Vec<(usize, u32)> {
    let mut out = vec![];
    for (at, _) in text.match_indices("docs/spec.md") {
        let line = text[..at].matches('\n').count() + 1;
        let mut rest = &text[at + "docs/spec.md".len()..];
        loop {
            let t = rest.trim_start_matches([' ', '\n', '\t', ',', '–', '-', '/']);
            let t = t.strip_prefix("and ").unwrap_or(t);
            let Some(t) = t.strip_prefix('§') else { break };
            let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
            let Ok(n) = digits.parse() else { break };
            out.push((line, n));
            rest = &t[digits.len()..];
        }
    }
    out
}

/// The repository's own text files: sources, docs, scenarios, tools, emitted RTL.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "build" {
                files(&p, out);
            }
        } else if ["rs", "v", "sv", "md", "toml", "py", "sh", "txt", "f", "snap"].iter().any(|x| name.ends_with(&format!(".{x}"))) || name == "Makefile" {
            out.push(p);
        }
    }
}

#[test]
fn every_cited_section_exists() {
    let root = root();
    let spec = std::fs::read_to_string(root.join("docs/spec.md")).expect("docs/spec.md");
    let have = sections(&spec);
    assert_eq!(have, (1..=10).collect(), "docs/spec.md's sections");
    let mut all = vec![];
    files(&root, &mut all);
    let (mut refs, mut bad) = (0, vec![]);
    for p in &all {
        let Ok(text) = std::fs::read_to_string(p) else { continue };
        let rel = p.strip_prefix(&root).unwrap().display().to_string();
        if rel == "crates/rtl/tests/spec_refs.rs" {
            continue; // its own examples
        }
        for (line, n) in cited(&text) {
            refs += 1;
            if !have.contains(&n) {
                bad.push(format!("{rel}:{line}: docs/spec.md §{n} does not exist"));
            }
        }
        for (k, l) in text.lines().enumerate() {
            if l.contains("SPEC.md") || l.contains("../shared") {
                bad.push(format!("{rel}:{}: cites the out-of-tree specification: {}", k + 1, l.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "{} bad citations:\n{}", bad.len(), bad.join("\n"));
    assert!(refs > 500, "only {refs} citations of docs/spec.md found: is the scan reading the tree?");
}

#[test]
fn the_scanner_reads_lists_and_ranges() {
    let t = "a (docs/spec.md §4, §8) b docs/spec.md §2–§3; docs/spec.md §1 and §9.\ndocs/spec.md, docs/spec.md §11";
    let got: Vec<u32> = cited(t).into_iter().map(|(_, n)| n).collect();
    assert_eq!(got, [4, 8, 2, 3, 1, 9, 11]);
    assert_eq!(cited(t).last(), Some(&(2, 11)));
    assert!(!sections("## 1. A\n## 10. B\n").contains(&11));
}
