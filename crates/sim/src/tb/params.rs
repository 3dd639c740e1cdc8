//! A testbench's parameters: the block's Verilog parameters a user may set (`VLS`,
//! `DATA_WIDTH`, `QUEUES`, `CAPACITY`, `TARGET`), and the few testbench settings that are
//! no Verilog parameter (lower case: the PAUSE/PFC blocks' `mode`), each with the values it
//! takes and its default.

use std::fmt;

/// The values a parameter takes.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// One of these numbers.
    Ints(&'static [u64]),
    /// A number from `lo` to `hi`; `listed` are the values `iblink emit` generates (what
    /// module names can name).
    Range { lo: u64, hi: u64, listed: &'static [u64] },
    /// One of these words (case and quotes ignored).
    Words(&'static [&'static str]),
}

/// One parameter of a block's testbench.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub allowed: Allowed,
    pub default: &'static str,
    /// A Verilog parameter of the module (else a testbench setting).
    pub verilog: bool,
    pub help: &'static str,
}

impl ParamSpec {
    /// `value` as this parameter holds it (numbers in decimal, words in upper case as listed),
    /// or why not.
    pub fn check(&self, value: &str) -> Result<String, String> {
        let v = value.trim();
        match self.allowed {
            Allowed::Ints(list) => match parse_int(v) {
                Some(n) if list.contains(&n) => Ok(n.to_string()),
                _ => Err(format!("{}={value} is not generated: {} takes {}", self.name, self.name, self.allowed)),
            },
            Allowed::Range { lo, hi, .. } => match parse_int(v) {
                Some(n) if (lo..=hi).contains(&n) => Ok(n.to_string()),
                _ => Err(format!("{}={value} is not generated: {} takes {}", self.name, self.name, self.allowed)),
            },
            Allowed::Words(list) => {
                let w = v.trim_matches('"');
                list.iter()
                    .find(|x| x.eq_ignore_ascii_case(w))
                    .map(|x| x.to_string())
                    .ok_or_else(|| format!("{}={value} is not valid: {} takes {}", self.name, self.name, self.allowed))
            }
        }
    }
}

fn parse_int(s: &str) -> Option<u64> {
    let s = s.replace('_', "");
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allowed::Ints(list) => write!(f, "{}", list.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")),
            Allowed::Range { lo, hi, .. } => write!(f, "{lo}..={hi}"),
            Allowed::Words(list) => write!(f, "{}", list.join(", ")),
        }
    }
}

/// Every parameter of a testbench with its value (given or default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values(pub Vec<(&'static str, String)>);

impl Values {
    /// The defaults of `specs`.
    pub fn defaults(specs: &[ParamSpec]) -> Self {
        Self(specs.iter().map(|p| (p.name, p.default.to_string())).collect())
    }

    pub fn get(&self, name: &str) -> &str {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("no parameter {name}"))
    }

    /// A numeric parameter (checked when set).
    pub fn int(&self, name: &str) -> usize {
        self.get(name).parse().unwrap_or_else(|_| panic!("{name}={} is not a number", self.get(name)))
    }

    pub fn set(&mut self, name: &str, value: String) {
        let slot = self.0.iter_mut().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no parameter {name}"));
        slot.1 = value;
    }

    /// `NAME=VALUE, ...` for the parameters of `specs` that are Verilog parameters.
    pub fn verilog(&self, specs: &[ParamSpec]) -> String {
        self.0
            .iter()
            .filter(|(n, _)| specs.iter().any(|p| p.name == *n && p.verilog))
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `name=value, ...` for the testbench settings of `specs` (none: empty).
    pub fn settings(&self, specs: &[ParamSpec]) -> String {
        self.0
            .iter()
            .filter(|(n, _)| specs.iter().any(|p| p.name == *n && !p.verilog))
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The parameters of `specs` set by `NAME=VALUE` texts over their defaults, or the
/// error: it names `--param` and lists what is valid.
pub fn parse(block: &str, specs: &[ParamSpec], given: &[String]) -> Result<Values, String> {
    parse_over(block, specs, Values::defaults(specs), given)
}

/// [`parse`] over `base` (values already chosen, e.g. by a module name) instead of the
/// defaults.
pub fn parse_over(block: &str, specs: &[ParamSpec], base: Values, given: &[String]) -> Result<Values, String> {
    let mut v = base;
    let mut seen: Vec<&str> = vec![];
    for g in given {
        let Some((name, value)) = g.split_once('=') else {
            return Err(format!("--param {g}: not NAME=VALUE; {}", valid(block, specs)));
        };
        let name = name.trim();
        let Some(spec) = specs.iter().find(|p| p.name == name) else {
            return Err(format!("--param {g}: {block} has no parameter {name}; {}", valid(block, specs)));
        };
        if seen.contains(&spec.name) {
            return Err(format!("--param {g}: {name} given twice"));
        }
        seen.push(spec.name);
        let value = spec.check(value).map_err(|e| format!("--param {e}"))?;
        v.set(spec.name, value);
    }
    Ok(v)
}

/// What `--param` takes for `block`, in words.
pub fn valid(block: &str, specs: &[ParamSpec]) -> String {
    if specs.is_empty() {
        return format!("{block} has no parameters");
    }
    let list: Vec<String> = specs.iter().map(|p| format!("{} ({}; default {})", p.name, p.allowed, p.default)).collect();
    format!("valid parameters of {block}: {}", list.join(", "))
}

/// Every combination of the values module names can name (the Verilog parameters' listed
/// numbers; words and testbench settings at their default), for finding a module by its
/// name.
pub fn named_combinations(specs: &[ParamSpec]) -> Vec<Values> {
    let mut out = vec![Values::defaults(specs)];
    for p in specs.iter().filter(|p| p.verilog) {
        let vals: Vec<String> = match p.allowed {
            Allowed::Ints(list) => list.iter().map(|n| n.to_string()).collect(),
            Allowed::Range { listed, .. } => listed.iter().map(|n| n.to_string()).collect(),
            Allowed::Words(_) => continue,
        };
        out = out
            .into_iter()
            .flat_map(|v| {
                vals.iter().map(move |x| {
                    let mut w = v.clone();
                    w.set(p.name, x.clone());
                    w
                })
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[ParamSpec] = &[
        ParamSpec { name: "VLS", allowed: Allowed::Ints(&[1, 2, 4, 8, 15]), default: "4", verilog: true, help: "" },
        ParamSpec { name: "CAPACITY", allowed: Allowed::Range { lo: 66, hi: 4095, listed: &[256] }, default: "256", verilog: true, help: "" },
        ParamSpec { name: "mode", allowed: Allowed::Words(&["pfc", "pause"]), default: "pfc", verilog: false, help: "" },
        ParamSpec { name: "on", allowed: Allowed::Ints(&[0, 1]), default: "1", verilog: false, help: "" },
    ];

    #[test]
    fn parse_checks_names_and_values() {
        let v = parse("rx", SPECS, &["VLS=15".into(), "CAPACITY=3_072".into(), "mode=PAUSE".into()]).unwrap();
        assert_eq!((v.int("VLS"), v.int("CAPACITY"), v.get("mode")), (15, 3072, "pause"));
        assert_eq!(v.verilog(SPECS), "VLS=15, CAPACITY=3072");
        assert_eq!(v.settings(SPECS), "mode=pause, on=1");
        for (bad, says) in [
            ("VLS=3", "VLS takes 1, 2, 4, 8, 15"),
            ("CAPACITY=65", "CAPACITY takes 66..=4095"),
            ("WIDTH=32", "rx has no parameter WIDTH; valid parameters of rx: VLS (1, 2, 4, 8, 15; default 4)"),
            ("VLS", "not NAME=VALUE"),
            ("mode=x", "mode takes pfc, pause"),
        ] {
            let e = parse("rx", SPECS, &[bad.into()]).unwrap_err();
            assert!(e.starts_with("--param ") && e.contains(says), "{bad}: {e}");
        }
        assert!(parse("rx", SPECS, &["VLS=1".into(), "VLS=2".into()]).unwrap_err().contains("twice"));
        let named = named_combinations(SPECS);
        assert_eq!(named.len(), 5);
        assert!(named.iter().all(|v| v.get("on") == "1" && v.get("mode") == "pfc"));
    }
}
