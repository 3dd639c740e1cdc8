//! A block's proofs: `crates/rtl/src/<block>/formal.toml`.
//!
//! ```toml
//! [[proof]]
//! name = "tx_credits_vl4"              # unique; its files go in build/formal/<name>/
//! property = "what is proven, one line"
//! harness = "formal/fv_tx_credits.sv"  # relative to the block folder
//! top = "fv_tx_credits"
//! modules = ["iblink_tx_credits.v"]    # from hdl_out/, before the harness; the DUT last
//! params = { VLS = 4 }                 # chparam on the harness top
//! mode = "prove"                       # base case + k-induction; or "bmc"
//! depth = 4                            # induction length, or BMC depth
//! why = "..."                          # bmc: why the depth covers the behaviour
//! engine = "abc"                       # bmc only: ABC's bmc3 on an AIGER model (default "z3")
//!                                      # or "cms": CryptoMiniSat on the AIGER model (BMC, induction)
//! fast = true                          # also run by `make test`
//! split = true                         # prove: one proof per assertion (crate::split)
//! taps = [{ wire = "p[{i}].fv_cl", path = "dut.vl[{i}].cl", count = "VLS" }]
//! [[proof.mutant]]                     # a planted bug the proof must catch
//! name = "send ignores NP"
//! file = "iblink_tx_credits.v"
//! from = "exact text, found once"
//! to = "replacement"
//! ```

use anyhow::{anyhow, bail, Context};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BMC from the power-up state to `depth` clocks, and k-induction of length `depth`.
    Prove,
    /// BMC from the power-up state to `depth` clocks only.
    Bmc,
}

/// The solver of the BMC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// yosys-smtbmc with z3 on the SMT-LIB2 model (base case and induction).
    #[default]
    Z3,
    /// ABC's `bmc3` on an AIGER model (assumptions as constraints, folded): SAT-based
    /// BMC, for depths where z3's time grows out of reach; `bmc` mode only. A
    /// counterexample is replayed by Yosys's `sim` into a VCD.
    Abc,
    /// CryptoMiniSat (Python `pycryptosat`, installed by `make deps`) on the AIGER model:
    /// BMC from power-up and k-induction, unrolled to CNF by our own script
    /// (`aig_cms.py`). Its Gauss-Jordan elimination decides XOR identities between two
    /// differently factored CRC networks, which z3 and plain CDCL do not finish; it is
    /// also the engine of proofs measured to finish first on it (docs/formal.md).
    Cms,
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Z3 => "smtbmc z3",
            Engine::Abc => "abc bmc3",
            Engine::Cms => "cryptominisat",
        }
    }
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Prove => "k-induction",
            Mode::Bmc => "BMC",
        }
    }
}

/// An internal DUT signal the harness reads: Yosys 0.23 has no hierarchical references,
/// so after `flatten` the harness's undriven `wire` is connected to the DUT's `path`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tap {
    pub wire: String,
    pub path: String,
    /// A parameter name: the tap is repeated for `{i}` = 0 .. value - 1.
    #[serde(default)]
    pub count: Option<String>,
}

/// A planted bug: `from` replaced by `to` in a copy of one of the proof's modules.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mutant {
    pub name: String,
    pub file: String,
    pub from: String,
    pub to: String,
    /// BMC depth for this bug (default: the proof's depth).
    #[serde(default)]
    pub depth: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProof {
    name: String,
    property: String,
    harness: String,
    top: String,
    modules: Vec<String>,
    #[serde(default)]
    params: BTreeMap<String, i64>,
    mode: Mode,
    depth: u32,
    #[serde(default)]
    why: Option<String>,
    #[serde(default)]
    engine: Engine,
    #[serde(default)]
    fast: bool,
    #[serde(default)]
    split: bool,
    #[serde(default)]
    taps: Vec<Tap>,
    #[serde(default)]
    mutant: Vec<Mutant>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawManifest {
    #[serde(default)]
    proof: Vec<RawProof>,
}

/// One proof, resolved: paths are absolute, taps expanded.
#[derive(Clone, Debug)]
pub struct Proof {
    pub name: String,
    /// The block folder's name (`tx_credits`).
    pub block: String,
    pub property: String,
    pub harness: PathBuf,
    pub top: String,
    /// Files in `hdl_out/`, in read order.
    pub modules: Vec<PathBuf>,
    pub params: BTreeMap<String, i64>,
    pub mode: Mode,
    pub depth: u32,
    pub why: Option<String>,
    pub engine: Engine,
    pub fast: bool,
    /// Proven as one proof per assertion ([`crate::split`]); planted bugs run the whole
    /// harness.
    pub split: bool,
    /// (harness wire, flattened DUT path)
    pub taps: Vec<(String, String)>,
    pub mutants: Vec<Mutant>,
}

/// Every block folder's `formal.toml` under `rtl_src` (`crates/rtl/src`), checked: names
/// unique, files present, BMC proofs say why their depth is enough, every proof has a
/// planted bug whose text occurs exactly once.
pub fn load_all(rtl_src: &Path, hdl_out: &Path) -> anyhow::Result<Vec<Proof>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(rtl_src)
        .with_context(|| format!("reading {}", rtl_src.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("formal.toml").is_file())
        .collect();
    dirs.sort();
    let mut proofs = Vec::new();
    let mut names = BTreeSet::new();
    for dir in dirs {
        let file = dir.join("formal.toml");
        let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
        let raw: RawManifest = toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
        for p in raw.proof {
            let at = format!("{} (proof `{}`)", file.display(), p.name);
            if !names.insert(p.name.clone()) {
                bail!("{at}: name: used by another proof");
            }
            proofs.push(resolve(p, &dir, hdl_out).with_context(|| at.clone())?);
        }
    }
    Ok(proofs)
}

fn resolve(p: RawProof, dir: &Path, hdl_out: &Path) -> anyhow::Result<Proof> {
    if p.name.is_empty() || !p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        bail!("name: letters, digits, `_` and `-` only");
    }
    let harness = std::path::absolute(dir.join(&p.harness))?;
    if !harness.is_file() {
        bail!("harness: {} does not exist", harness.display());
    }
    if p.modules.is_empty() {
        bail!("modules: at least one file from hdl_out/");
    }
    let modules = p.modules.iter().map(|m| std::path::absolute(hdl_out.join(m))).collect::<Result<Vec<_>, _>>()?;
    for m in &modules {
        if !m.is_file() {
            bail!("modules: {} does not exist (run `make emit`?)", m.display());
        }
    }
    if p.depth == 0 || p.depth > 1000 {
        bail!("depth: {} is not 1..=1000", p.depth);
    }
    if p.mode == Mode::Bmc && p.why.as_deref().is_none_or(|w| w.trim().is_empty()) {
        bail!("why: a BMC proof says why depth {} covers the behaviour", p.depth);
    }
    if p.split && (p.mode != Mode::Prove || p.engine != Engine::Z3) {
        bail!("split: only a `prove` proof with z3 is split");
    }
    if p.engine == Engine::Abc && p.mode != Mode::Bmc {
        bail!("engine: \"abc\" runs BMC only (mode = \"bmc\")");
    }
    let mut taps = Vec::new();
    for t in &p.taps {
        match &t.count {
            None => taps.push((t.wire.clone(), t.path.clone())),
            Some(param) => {
                let n = *p.params.get(param).ok_or_else(|| anyhow!("taps: count `{param}` is not in params"))?;
                for i in 0..n {
                    let s = i.to_string();
                    taps.push((t.wire.replace("{i}", &s), t.path.replace("{i}", &s)));
                }
            }
        }
    }
    if p.mutant.is_empty() {
        bail!("mutant: every proof needs a planted bug that makes it fail");
    }
    for m in &p.mutant {
        let Some(pos) = p.modules.iter().position(|f| *f == m.file) else {
            bail!("mutant `{}`: file `{}` is not one of modules", m.name, m.file);
        };
        let text = std::fs::read_to_string(&modules[pos])?;
        let n = text.matches(&m.from).count();
        if n != 1 {
            bail!("mutant `{}`: from: found {n} times in {} (must be exactly once)", m.name, m.file);
        }
        if m.from == m.to {
            bail!("mutant `{}`: to: equals from", m.name);
        }
    }
    Ok(Proof {
        name: p.name,
        block: dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        property: p.property,
        harness,
        top: p.top,
        modules,
        params: p.params,
        mode: p.mode,
        depth: p.depth,
        why: p.why,
        engine: p.engine,
        fast: p.fast,
        split: p.split,
        taps,
        mutants: p.mutant,
    })
}
