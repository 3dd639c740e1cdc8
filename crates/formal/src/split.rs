//! A harness as one proof per assertion (`split = true` in `formal.toml`).
//!
//! Some invariants are inductive but their induction step is out of the solver's reach
//! when every assertion is in one query (the credit loop: crates/rtl/src/link_port/formal).
//! Split, part `k` asserts assertion `k` only and assumes:
//! * every other assertion at the previous clock (a register of it, 1 at power-up);
//! * in the same clock, the assertions of a lower *rank*: all of them, or only those its
//!   `uses` names.
//!
//! An assertion is a line `always @(*) assert(E);` or `always @(*) if (C) assert(E);`,
//! optionally ending in a comment `// NAME: rank N, uses A B` (each part optional; rank 0
//! by default). Proving every part, base case and induction step, proves the whole
//! harness: by induction on time and, within a clock, on rank, at clock n an assertion of
//! rank r holds if every assertion held at every clock before n and those of rank < r
//! hold at n. Assuming fewer (`uses`) only weakens a part's hypotheses. yosys-smtbmc's
//! base case assumes the assumptions of steps 0..i only when it checks step i, so the
//! same argument covers the base case.

use anyhow::{bail, Context};

/// One part of a split harness.
#[derive(Clone, Debug)]
pub struct Part {
    /// The harness line of its assertion (1-based).
    pub line: usize,
    pub name: Option<String>,
    pub rank: u32,
    /// The assertion as written (`if (C) E` or `E`).
    pub assertion: String,
    /// The harness text with this assertion asserted and every other one assumed.
    pub text: String,
}

struct Assertion {
    line: usize,
    cond: Option<String>,
    expr: String,
    name: Option<String>,
    rank: u32,
    uses: Option<Vec<String>>,
}

/// `always @(*) [if (C) ]assert(E);[ // comment]` as (C, E, comment).
fn parse_assertion(l: &str) -> Option<(Option<String>, String, Option<String>)> {
    let rest = l.strip_prefix("always @(*) ")?;
    let (code, comment) = match rest.find("//") {
        Some(k) => (rest[..k].trim_end(), Some(rest[k + 2..].to_string())),
        None => (rest.trim_end(), None),
    };
    let at = code.find("assert(")?;
    let cond = if at == 0 {
        None
    } else {
        let c = code[..at].strip_prefix("if (")?.strip_suffix(") ")?;
        Some(c.to_string())
    };
    let expr = code[at + "assert(".len()..].strip_suffix(");")?;
    Some((cond, expr.to_string(), comment))
}

/// `NAME: rank N, uses A B` (each part optional) as (name, rank, uses).
fn parse_comment(c: &str) -> Option<(Option<String>, u32, Option<Vec<String>>)> {
    let mut c = c.trim();
    let word = |s: &str| !s.is_empty() && s.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
    let mut name = None;
    if let Some(k) = c.find(':') {
        let n = c[..k].trim();
        if !word(n) {
            return None;
        }
        name = Some(n.to_string());
        c = c[k + 1..].trim();
    }
    let mut rank = 0;
    if let Some(r) = c.strip_prefix("rank") {
        let r = r.trim_start();
        let end = r.find(|ch: char| !ch.is_ascii_digit()).unwrap_or(r.len());
        rank = r[..end].parse().ok()?;
        c = r[end..].trim_start().trim_start_matches(',').trim();
    }
    let mut uses = None;
    if let Some(u) = c.strip_prefix("uses") {
        let list: Vec<String> = u.split_whitespace().map(str::to_string).collect();
        if list.is_empty() || !list.iter().all(|n| word(n)) {
            return None;
        }
        uses = Some(list);
        c = "";
    }
    c.is_empty().then_some((name, rank, uses))
}

/// The harness `text` as one part per assertion; an error names the line.
pub fn split(text: &str) -> anyhow::Result<Vec<Part>> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut asserts = Vec::new();
    for (n, l) in lines.iter().enumerate() {
        if !l.starts_with("always @(*) ") || !l.contains("assert(") {
            continue;
        }
        let (cond, expr, comment) =
            parse_assertion(l).with_context(|| format!("line {}: an assertion not of the form `always @(*) [if (C) ]assert(E);`", n + 1))?;
        let (name, rank, uses) = match comment {
            None => (None, 0, None),
            Some(c) => parse_comment(&c).with_context(|| format!("line {}: `//{c}` is not `NAME: rank N, uses A B`", n + 1))?,
        };
        asserts.push(Assertion { line: n, cond, expr, name, rank, uses });
    }
    if asserts.is_empty() {
        bail!("no assertion to split");
    }
    let index = |name: &str| asserts.iter().position(|a| a.name.as_deref() == Some(name));
    for (k, a) in asserts.iter().enumerate() {
        if let Some(n) = &a.name {
            if index(n) != Some(k) {
                bail!("line {}: the name `{n}` is used twice", a.line + 1);
            }
        }
        for u in a.uses.iter().flatten() {
            let Some(j) = index(u) else { bail!("line {}: uses `{u}`, which no assertion is named", a.line + 1) };
            if asserts[j].rank >= a.rank {
                bail!("line {}: uses `{u}`, which is not of a lower rank", a.line + 1);
            }
        }
    }
    let ok = |a: &Assertion| match &a.cond {
        Some(c) => format!("(!({c}) || ({}))", a.expr),
        None => format!("({})", a.expr),
    };
    let mut parts = Vec::new();
    for (t, target) in asserts.iter().enumerate() {
        let now: Vec<usize> = match &target.uses {
            Some(u) => u.iter().filter_map(|n| index(n)).collect(),
            None => (0..asserts.len()).filter(|&k| asserts[k].rank < target.rank).collect(),
        };
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        for (k, a) in asserts.iter().enumerate() {
            out[a.line] = if k == t {
                format!("wire ok_{k} = {};\nalways @(*) assert(ok_{k});", ok(a))
            } else {
                let mut s = format!(
                    "wire ok_{k} = {};\nreg okq_{k} = 1'b1;\nalways @(posedge clock) okq_{k} <= ok_{k};\nalways @(*) assume(okq_{k});",
                    ok(a)
                );
                if now.contains(&k) {
                    s += &format!("\nalways @(*) assume(ok_{k});");
                }
                s
            };
        }
        let assertion = match &target.cond {
            Some(c) => format!("if ({c}) {}", target.expr),
            None => target.expr.clone(),
        };
        parts.push(Part { line: target.line + 1, name: target.name.clone(), rank: target.rank, assertion, text: out.join("\n") });
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "module h(input wire clock);\n\
        always @(*) assert(a);\n\
        always @(*) if (p) assert(b == 1); // bee: rank 1\n\
        always @(*) assert(c); // rank 2, uses bee\n\
        always @(*) assume(x);\n\
        endmodule";

    #[test]
    fn each_part_asserts_one_and_assumes_the_others_a_clock_late_and_lower_ranks_now() {
        let p = split(H).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!((p[1].line, p[1].name.as_deref(), p[1].rank, p[1].assertion.as_str()), (3, Some("bee"), 1, "if (p) b == 1"));
        // Part 0 (rank 0): the others only at the previous clock.
        assert!(p[0].text.contains("always @(*) assert(ok_0);"));
        assert!(p[0].text.contains("always @(*) assume(okq_1);") && !p[0].text.contains("assume(ok_1);"));
        assert!(p[0].text.contains("wire ok_1 = (!(p) || (b == 1));"));
        // Part 1 (rank 1, no uses): every lower rank in the same clock too.
        assert!(p[1].text.contains("always @(*) assume(ok_0);") && !p[1].text.contains("assume(ok_2);"));
        // Part 2 (rank 2, uses bee): bee now, the rank-0 assertion only a clock late.
        assert!(p[2].text.contains("always @(*) assume(ok_1);") && !p[2].text.contains("assume(ok_0);"));
        assert!(p[2].text.contains("always @(*) assume(okq_0);"));
        // Assumptions of the harness are left as they are.
        assert!(p.iter().all(|q| q.text.contains("always @(*) assume(x);")));
    }

    #[test]
    fn a_bad_split_comment_names_its_line() {
        for (bad, want) in [
            ("always @(*) assert(c); // rank 2, uses nobody", "line 1: uses `nobody`"),
            ("always @(*) assert(c); // n: rank 1\nalways @(*) assert(d); // n: rank 2", "line 2: the name `n` is used twice"),
            ("always @(*) assert(c); // m: rank 1\nalways @(*) assert(d); // rank 1, uses m", "line 2: uses `m`, which is not of a lower rank"),
            ("always @(*) assert(c); // see SPEC 4", "line 1: `// see SPEC 4` is not"),
            ("always @(*) assert(c)", "line 1: an assertion not of the form"),
        ] {
            let e = format!("{:#}", split(bad).unwrap_err());
            assert!(e.contains(want), "{bad:?}: {e}");
        }
    }
}
