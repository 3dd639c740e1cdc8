//! The source tree keeps two promises: each crate's files live in that crate's folder (no
//! `#[path]` reaching into another crate), and no circle of imports between the files of
//! a crate (a file's `crate::` and `super::` paths, tests aside), so each file can be read
//! knowing only what it imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Files (module paths) and the files each imports.
type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A file's module path in its crate: `src/a/b.rs` and `src/a/b/mod.rs` are `[a, b]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The code of a file without comments and without its unit tests (`#[cfg(test)] mod`).
fn code(text: &str) -> String {
    let text = text.find("#[cfg(test)]\nmod ").map_or(text, |i| &text[..i]);
    text.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

/// Every path following `crate::` or a run of `super::` in `code`, as module names
/// (`super::x` relative to the file's own module), up to the first segment that is not a
/// plain name (`{`, `*`, a call).
fn paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = vec![];
    for (at, _) in code.match_indices("crate::").chain(code.match_indices("super::")) {
        if at > 0 && (ident(code.as_bytes()[at - 1]) || b":$".contains(&code.as_bytes()[at - 1])) {
            continue; // `$crate::`, or the second `super::` of a run
        }
        let mut rest = &code[at..];
        let mut path: Vec<String> = match rest.strip_prefix("crate::") {
            Some(r) => {
                rest = r;
                vec![]
            }
            None => {
                let mut m = module.to_vec();
                while let Some(r) = rest.strip_prefix("super::") {
                    m.pop();
                    rest = r;
                }
                m
            }
        };
        for seg in rest.split("::") {
            let n = seg.bytes().take_while(|&c| ident(c)).count();
            if n == 0 {
                break;
            }
            path.push(seg[..n].to_string());
            if n != seg.len() {
                break;
            }
        }
        out.push(path);
    }
    out
}

/// The circles of a directed graph: its strongly connected components of two or more.
fn circles(g: &Graph) -> Vec<Vec<Vec<String>>> {
    // Kosaraju: finish order on g, then components on the reversed graph.
    fn visit(v: &Vec<String>, g: &Graph, seen: &mut BTreeSet<Vec<String>>, out: &mut Vec<Vec<String>>) {
        if !seen.insert(v.clone()) {
            return;
        }
        for w in &g[v] {
            visit(w, g, seen, out);
        }
        out.push(v.clone());
    }
    let mut order = vec![];
    let mut seen = BTreeSet::new();
    for v in g.keys() {
        visit(v, g, &mut seen, &mut order);
    }
    let mut rev: Graph = g.keys().map(|k| (k.clone(), BTreeSet::new())).collect();
    for (v, ws) in g {
        for w in ws {
            rev.get_mut(w).unwrap().insert(v.clone());
        }
    }
    let mut seen = BTreeSet::new();
    let mut out = vec![];
    for v in order.iter().rev() {
        let mut comp = vec![];
        visit(v, &rev, &mut seen, &mut comp);
        if comp.len() > 1 {
            out.push(comp);
        }
    }
    out
}

/// Each crate's import graph between its files.
fn graphs() -> Vec<(String, Graph)> {
    let mut out = vec![];
    for e in std::fs::read_dir(crates_dir()).unwrap() {
        let src = e.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mut files = vec![];
        rust_files(&src, &mut files);
        let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_of(&src, f), f.clone())).collect();
        let mut g: Graph = modules.keys().map(|m| (m.clone(), BTreeSet::new())).collect();
        for (m, f) in &modules {
            for p in paths(&code(&std::fs::read_to_string(f).unwrap()), m) {
                // The longest prefix that is a file of the crate (not the crate root).
                if let Some(t) = (1..=p.len()).rev().map(|n| p[..n].to_vec()).find(|t| modules.contains_key(t)) {
                    if t != *m {
                        g.get_mut(m).unwrap().insert(t);
                    }
                }
            }
        }
        out.push((src.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned(), g));
    }
    out
}

#[test]
fn no_file_imports_in_a_circle() {
    let mut found = vec![];
    let mut edges = 0;
    for (krate, g) in graphs() {
        edges += g.values().map(BTreeSet::len).sum::<usize>();
        for c in circles(&g) {
            found.push(format!("{krate}: {}", c.iter().map(|m| m.join("/")).collect::<Vec<_>>().join(" <-> ")));
        }
    }
    assert!(found.is_empty(), "imports in a circle:\n{}", found.join("\n"));
    assert!(edges > 100, "only {edges} imports between files found: is the scan reading the tree?");
}

#[test]
fn no_path_attribute_reaches_into_another_crate() {
    let dir = crates_dir();
    let mut bad = vec![];
    let mut files = vec![];
    rust_files(&dir, &mut files);
    for f in files {
        let krate = f.strip_prefix(&dir).unwrap().iter().next().unwrap().to_owned();
        for (k, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            let Some(rest) = line.trim().strip_prefix("#[path = \"") else { continue };
            let target = f.parent().unwrap().join(rest.split('"').next().unwrap());
            let inside = target.components().collect::<PathBuf>();
            let normal: PathBuf = inside.iter().fold(PathBuf::new(), |mut p, c| {
                if c == ".." {
                    p.pop();
                } else {
                    p.push(c);
                }
                p
            });
            if normal.strip_prefix(dir.join(&krate)).is_err() {
                bad.push(format!("{}:{}: {}", f.display(), k + 1, line.trim()));
            }
        }
    }
    assert!(bad.is_empty(), "#[path] into another crate:\n{}", bad.join("\n"));
}

#[test]
fn the_scan_finds_circles_and_paths() {
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    let code = "use crate::a::b::{X, Y};\nfn f() { super::super::c::g(); $crate::io::x; }";
    assert_eq!(paths(code, &m("d/e")), vec![m("a/b"), m("c/g")]);
    let mut g: Graph = BTreeMap::new();
    g.insert(m("a"), [m("b")].into());
    g.insert(m("b"), [m("c")].into());
    g.insert(m("c"), [m("a")].into());
    g.insert(m("d"), [m("a")].into());
    assert_eq!(circles(&g).len(), 1);
    g.get_mut(&m("c")).unwrap().clear();
    assert!(circles(&g).is_empty());
}
