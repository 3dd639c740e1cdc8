//! What a block's testbench found: the clocks run, its coverage counters with their gates,
//! or the first clock at which the back ends disagreed (which output field, the inputs of
//! that clock, each back end's value).

use crate::lockstep::Mismatch;
use std::fmt;
use std::path::PathBuf;

/// What a counter must reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    /// Shown, not gated.
    Info,
    AtLeast(u64),
    MoreThan(u64),
    Exactly(u64),
    AtMost(u64),
}

/// One coverage counter of a run and its gate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gate {
    pub name: String,
    pub value: u64,
    pub want: Want,
    /// A check that holds however short the run (a count that must be 0, a relation
    /// between two counts), as opposed to a minimum that a long enough run reaches.
    pub invariant: bool,
}

impl Gate {
    fn new(name: impl Into<String>, value: u64, want: Want, invariant: bool) -> Self {
        Self { name: name.into(), value, want, invariant }
    }
    /// `value >= min`: a coverage minimum.
    pub fn at_least(name: impl Into<String>, value: u64, min: u64) -> Self {
        Self::new(name, value, Want::AtLeast(min), false)
    }
    /// `value > min`: a coverage minimum.
    pub fn more_than(name: impl Into<String>, value: u64, min: u64) -> Self {
        Self::new(name, value, Want::MoreThan(min), false)
    }
    /// `value == want`: an invariant.
    pub fn exactly(name: impl Into<String>, value: u64, want: u64) -> Self {
        Self::new(name, value, Want::Exactly(want), true)
    }
    /// `value <= max`: an invariant.
    pub fn at_most(name: impl Into<String>, value: u64, max: u64) -> Self {
        Self::new(name, value, Want::AtMost(max), true)
    }
    /// Shown beside the gates, with no gate of its own.
    pub fn info(name: impl Into<String>, value: u64) -> Self {
        Self::new(name, value, Want::Info, false)
    }
    /// This gate holds however short the run.
    pub fn invariant(mut self) -> Self {
        self.invariant = true;
        self
    }
    pub fn met(&self) -> bool {
        match self.want {
            Want::Info => true,
            Want::AtLeast(m) => self.value >= m,
            Want::MoreThan(m) => self.value > m,
            Want::Exactly(m) => self.value == m,
            Want::AtMost(m) => self.value <= m,
        }
    }
    /// The gate as text: `>= 1000`, `> 25`, `= 0`, `<= 3`, `-`.
    pub fn want_text(&self) -> String {
        match self.want {
            Want::Info => "-".into(),
            Want::AtLeast(m) => format!(">= {m}"),
            Want::MoreThan(m) => format!("> {m}"),
            Want::Exactly(m) => format!("= {m}"),
            Want::AtMost(m) => format!("<= {m}"),
        }
    }
}

/// One output field on which the back ends disagreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDiff {
    /// The field's path in the output record (`counts.good`, `fill_bytes[3]`, `tx.data`).
    pub field: String,
    /// Its value in each back end, in the order of [`MismatchReport::backends`].
    pub values: Vec<String>,
}

/// The first clock at which the back ends disagreed, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MismatchReport {
    pub cycle: u64,
    /// The inputs of that clock (their `Debug`).
    pub input: String,
    pub backends: Vec<String>,
    /// Each back end's whole output record (`Debug`), in the order of `backends`.
    pub outputs: Vec<String>,
    /// The fields that differ, each back end's value.
    pub fields: Vec<FieldDiff>,
}

impl<I: fmt::Debug, O: fmt::Debug> From<&Mismatch<I, O>> for MismatchReport {
    fn from(m: &Mismatch<I, O>) -> Self {
        let outputs: Vec<String> = m.outputs.iter().map(|(_, o)| format!("{o:?}")).collect();
        Self {
            cycle: m.cycle,
            input: format!("{:?}", m.input),
            backends: m.outputs.iter().map(|(b, _)| b.clone()).collect(),
            fields: field_diffs(&outputs),
            outputs,
        }
    }
}

impl fmt::Display for MismatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "back ends disagree at clock {}", self.cycle)?;
        for d in &self.fields {
            let vals: Vec<String> = self.backends.iter().zip(&d.values).map(|(b, v)| format!("{b} {}", with_hex(v))).collect();
            writeln!(f, "  output `{}`: {}", d.field, vals.join(", "))?;
        }
        writeln!(f, "  inputs of clock {}: {}", self.cycle, self.input)?;
        for (b, o) in self.backends.iter().zip(&self.outputs) {
            writeln!(f, "  {b:<10} {o}")?;
        }
        Ok(())
    }
}

/// A number of 16 or more also in hex (`4660 (0x1234)`); anything else as it is.
fn with_hex(v: &str) -> String {
    match v.parse::<u64>() {
        Ok(n) if n >= 16 => format!("{v} ({n:#x})"),
        _ => v.to_string(),
    }
}

/// The fields on which the `Debug` texts of several output records differ. A derived
/// `Debug` is read as a tree (structs by field, arrays by index) down to its leaves; when
/// the trees do not have the same shape the whole record is the one field `(output)`.
pub fn field_diffs(outputs: &[String]) -> Vec<FieldDiff> {
    let leaves: Vec<Vec<(String, String)>> = outputs
        .iter()
        .map(|o| {
            let mut v = vec![];
            flatten(o, String::new(), &mut v);
            v
        })
        .collect();
    let Some(first) = leaves.first() else { return vec![] };
    let same_shape = leaves.iter().all(|l| l.len() == first.len() && l.iter().zip(first).all(|(a, b)| a.0 == b.0));
    if !same_shape {
        return vec![FieldDiff { field: "(output)".into(), values: outputs.to_vec() }];
    }
    (0..first.len())
        .filter(|&k| leaves.iter().any(|l| l[k].1 != first[k].1))
        .map(|k| FieldDiff { field: first[k].0.clone(), values: leaves.iter().map(|l| l[k].1.clone()).collect() })
        .collect()
}

/// Split `s` at the `,` that are not inside brackets or quotes.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut quoted, mut start) = (0i32, false, 0);
    let mut out = vec![];
    let b = s.as_bytes();
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'\\' if quoted => k += 1,
            b'"' => quoted = !quoted,
            b'(' | b'[' | b'{' if !quoted => depth += 1,
            b')' | b']' | b'}' if !quoted => depth -= 1,
            b',' if !quoted && depth == 0 => {
                out.push(s[start..k].trim());
                start = k + 1;
            }
            _ => {}
        }
        k += 1;
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// The leaves of a derived `Debug` text, each with its path.
fn flatten(s: &str, path: String, out: &mut Vec<(String, String)>) {
    let s = s.trim();
    let join = |name: &str| if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let items = split_top(inner);
        if !items.is_empty() {
            for (k, item) in items.into_iter().enumerate() {
                flatten(item, format!("{path}[{k}]"), out);
            }
            return;
        }
    }
    if let Some(open) = s.find(" { ") {
        let name_ok = s[..open].bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b':');
        if let (true, Some(body)) = (name_ok, s[open + 3..].strip_suffix(" }")) {
            let fields = split_top(body);
            if fields.iter().all(|f| f.contains(": ")) {
                for f in fields {
                    let (name, value) = f.split_once(": ").unwrap();
                    flatten(value, join(name.trim()), out);
                }
                return;
            }
        }
    }
    out.push((if path.is_empty() { "(output)".into() } else { path }, s.to_string()));
}

/// What a block's testbench run found.
#[derive(Clone, Debug)]
pub struct TbReport {
    /// The block and its configuration in words (`vl_arb VLCap 4`).
    pub title: String,
    pub seed: u64,
    /// The back ends compared, in order (the first is the one the others are compared to).
    pub backends: Vec<String>,
    /// Clocks run in lockstep (on a mismatch: the clocks before it).
    pub cycles: u64,
    /// The coverage counters and their gates (empty when the model back end did not run:
    /// the counters are counted from it; or when the back ends disagreed).
    pub gates: Vec<Gate>,
    pub mismatch: Option<MismatchReport>,
    /// The waveforms written.
    pub waves: Vec<PathBuf>,
    /// What else the run has to say (a check that failed outside the lockstep, why the
    /// gates are missing).
    pub notes: Vec<String>,
}

impl TbReport {
    /// The gates not met.
    pub fn missed(&self) -> impl Iterator<Item = &Gate> {
        self.gates.iter().filter(|g| !g.met())
    }

    /// A counter's value by its name in the table.
    pub fn value(&self, name: &str) -> Option<u64> {
        self.gates.iter().find(|g| g.name == name).map(|g| g.value)
    }

    /// The lockstep tests' verdict: `cycles` clocks run with no mismatch, the model's
    /// counters present and every gate met. Panics with the report otherwise.
    pub fn assert_passed(&self, cycles: u64) {
        eprintln!("{self}");
        if let Some(m) = &self.mismatch {
            panic!("{}: {m}", self.title);
        }
        assert_eq!(self.cycles, cycles, "{}: clocks run", self.title);
        assert!(!self.gates.is_empty(), "{}: no coverage counted", self.title);
        let missed: Vec<String> = self.missed().map(|g| format!("{} = {}, want {}", g.name, g.value, g.want_text())).collect();
        assert!(missed.is_empty(), "{}: coverage short:\n  {}", self.title, missed.join("\n  "));
    }

    /// The coverage table: each counter, its value, its gate, met or not (`short`: a
    /// missed minimum is a short run's, not a failure).
    pub fn table(&self, short: bool) -> String {
        let w = self.gates.iter().map(|g| g.name.len()).max().unwrap_or(0).max(8);
        let vw = self.gates.iter().map(|g| g.value.to_string().len()).max().unwrap_or(0).max(5);
        let mut s = format!("  {:<w$}  {:>vw$}  {:<10} {}\n", "counter", "value", "gate", "");
        for g in &self.gates {
            let verdict = match (g.want, g.met()) {
                (Want::Info, _) => "",
                (_, true) => "met",
                (_, false) if short && !g.invariant => "missed (short run)",
                (_, false) => "MISSED",
            };
            s.push_str(&format!("  {:<w$}  {:>vw$}  {:<10} {verdict}\n", g.name, g.value, g.want_text()));
        }
        s
    }
}

impl fmt::Display for TbReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: seed {:#x}, {} clocks ({})", self.title, self.seed, self.cycles, self.backends.join(", "))?;
        if let Some(m) = &self.mismatch {
            write!(f, "{m}")?;
        }
        if !self.gates.is_empty() {
            write!(f, "{}", self.table(false))?;
        }
        for n in &self.notes {
            writeln!(f, "  {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Default)]
    struct Word {
        data: u64,
        last: bool,
    }
    #[derive(Debug, Clone, Copy, PartialEq, Default)]
    struct Out {
        valid: bool,
        fill: [u16; 3],
        tx: Word,
        state: Option<u8>,
    }

    #[test]
    fn fields_that_differ_are_named_by_path() {
        let a = Out { valid: true, fill: [1, 2, 3], tx: Word { data: 0x1234, last: false }, state: Some(1) };
        let mut b = a;
        b.fill[2] = 4;
        b.tx.data = 0x1235;
        let d = field_diffs(&[format!("{a:?}"), format!("{a:?}"), format!("{b:?}")]);
        assert_eq!(
            d,
            vec![
                FieldDiff { field: "fill[2]".into(), values: vec!["3".into(), "3".into(), "4".into()] },
                FieldDiff { field: "tx.data".into(), values: vec!["4660".into(), "4660".into(), "4661".into()] },
            ]
        );
        let mut c = a;
        c.state = None;
        let d = field_diffs(&[format!("{a:?}"), format!("{c:?}")]);
        assert_eq!(d, vec![FieldDiff { field: "state".into(), values: vec!["Some(1)".into(), "None".into()] }]);
    }

    #[test]
    fn a_mismatch_names_clock_field_inputs_and_values() {
        let a = Out { valid: true, ..Default::default() };
        let b = Out { valid: false, ..Default::default() };
        let m = Mismatch { cycle: 17, input: Word { data: 9, last: true }, outputs: vec![("model".into(), a), ("rtl".into(), b)] };
        let text = MismatchReport::from(&m).to_string();
        assert!(text.starts_with("back ends disagree at clock 17\n"), "{text}");
        assert!(text.contains("output `valid`: model true, rtl false"), "{text}");
        assert!(text.contains("inputs of clock 17: Word { data: 9, last: true }"), "{text}");
    }

    #[test]
    fn gates() {
        assert!(Gate::at_least("a", 5, 5).met() && !Gate::more_than("a", 5, 5).met());
        assert!(Gate::exactly("a", 0, 0).invariant && !Gate::at_least("a", 0, 1).invariant);
        assert!(Gate::at_most("a", 3, 4).met() && Gate::info("a", 0).met());
        let r = TbReport {
            title: "t".into(),
            seed: 1,
            backends: vec!["model".into()],
            cycles: 10,
            gates: vec![Gate::at_least("packets", 3, 10), Gate::exactly("strays", 1, 0), Gate::info("x", 7)],
            mismatch: None,
            waves: vec![],
            notes: vec![],
        };
        let t = r.table(true);
        assert!(t.contains("missed (short run)") && t.contains("MISSED"), "{t}");
        assert_eq!(r.missed().count(), 2);
        assert_eq!(r.value("x"), Some(7));
    }
}
