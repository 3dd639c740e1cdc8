//! The Verilator bridge: Verilog text in, a cycle-steppable model out.
//!
//! Why this shape: the `verilator` crate (0.1.6) expects Verilator 4's file layout and
//! `marlin` needs Verilator >= 5.025 with ANSI-style ports, while rust-hdl emits
//! non-ANSI ports and Debian ships 5.006. So the bridge writes a small C++ shim per
//! module (one `step` call a clock: inputs in, outputs out, both edges inside), has
//! Verilator build it with the model into a shared library, and loads that with
//! `libloading`. Builds are cached by a hash of everything that goes into them, so a
//! module is compiled once per change, and any configuration the CLI can emit can be
//! co-simulated without a Rust rebuild. Each build compiles the model as two translation
//! units: the code that runs every clock, optimised and started from a precompiled
//! `verilated.h` (made once per cache directory), and the code that runs once at
//! construction, not optimised. Verilator's runtime goes through ccache when it is
//! installed.

use sha2::{Digest, Sha256};
use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// A top-level port of the module to verilate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BridgePort {
    pub name: String,
    pub width: usize,
}

impl BridgePort {
    pub fn new(name: impl Into<String>, width: usize) -> Self {
        Self {
            name: name.into(),
            width,
        }
    }
    /// 64-bit slots this port takes in the step arrays.
    pub fn slots(&self) -> usize {
        self.width.div_ceil(64)
    }
}

/// What to build.
#[derive(Clone, Debug)]
pub struct VerilatorBuild {
    /// The whole Verilog source (one or more modules).
    pub verilog: String,
    /// Top module name.
    pub top: String,
    /// Parameters of the top module (`-G<name>=<value>`).
    pub params: Vec<(String, String)>,
    /// Clock input, driven by the shim: 0 then 1 in every `step`.
    pub clock: String,
    /// Inputs in slot order (clock excluded).
    pub inputs: Vec<BridgePort>,
    /// Outputs in slot order.
    pub outputs: Vec<BridgePort>,
    /// Compile in VCD tracing support (`VerilatedModel::trace_to`).
    pub trace: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error("verilator not found ({0}); run `make deps`")]
    NoVerilator(String),
    #[error("verilator failed building {top} (log: {log})\n{tail}")]
    Build { top: String, log: PathBuf, tail: String },
    #[error("loading {path}: {detail}")]
    Load { path: PathBuf, detail: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("opening VCD {0} failed")]
    Trace(PathBuf),
}

/// `verilator --version`, which also proves it is installed.
pub fn verilator_version() -> Result<String, BridgeError> {
    let out = Command::new(verilator_bin())
        .arg("--version")
        .output()
        .map_err(|e| BridgeError::NoVerilator(e.to_string()))?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn verilator_bin() -> String {
    std::env::var("IBLINK_VERILATOR").unwrap_or_else(|_| "verilator".into())
}

/// Where built libraries are kept, found when the program runs (not where it was built):
/// `$IBLINK_VERILATOR_CACHE`; else `verilator/` in the cargo `target` folder the running
/// program lies in (`target/release/iblink`, a test binary in `target/release/deps/`);
/// else `iblink/verilator` in the user's cache folder (`$XDG_CACHE_HOME`, `~/.cache`).
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("IBLINK_VERILATOR_CACHE") {
        return PathBuf::from(d);
    }
    let exe = std::env::current_exe().ok().and_then(|p| p.canonicalize().ok());
    if let Some(target) = exe.as_deref().and_then(|p| p.ancestors().find(|a| a.file_name().is_some_and(|n| n == "target"))) {
        return target.join("verilator");
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("iblink/verilator")
}

/// Told once per library that is really built (not found in the cache): what and where.
static BUILD_NOTICE: std::sync::OnceLock<fn(&str)> = std::sync::OnceLock::new();

/// Have `f` told, once per library actually built, `building <top> with Verilator (kept
/// in <dir> for the next run)`: a command line prints it, so a user knows why the first
/// run waits and a cached one says nothing.
pub fn on_build(f: fn(&str)) {
    let _ = BUILD_NOTICE.set(f);
}

impl VerilatorBuild {
    /// The C++ shim: `new`, `free`, `trace`, and `step` (set inputs with the clock low,
    /// settle, read outputs — the values during this clock — then raise the clock).
    pub fn shim(&self) -> String {
        let cls = format!("V{}", self.top);
        let mut s = String::new();
        let _ = writeln!(s, "// Generated by iblink-verilator for module {}.", self.top);
        let _ = writeln!(s, "#include \"{cls}.h\"\n#include \"verilated.h\"");
        if self.trace {
            let _ = writeln!(s, "#include \"verilated_vcd_c.h\"");
        }
        let _ = writeln!(s, "#include <cstdint>\n");
        let _ = writeln!(s, "struct IblinkHandle {{\n  VerilatedContext* ctx;\n  {cls}* top;");
        if self.trace {
            let _ = writeln!(s, "  VerilatedVcdC* vcd;");
        }
        let _ = writeln!(s, "  uint64_t time;\n}};\n\nextern \"C\" {{");
        let _ = writeln!(
            s,
            "void* iblink_new() {{\n  IblinkHandle* h = new IblinkHandle();\n  h->ctx = new VerilatedContext;"
        );
        if self.trace {
            let _ = writeln!(s, "  h->ctx->traceEverOn(true);\n  h->vcd = nullptr;");
        }
        let _ = writeln!(
            s,
            "  h->top = new {cls}{{h->ctx}};\n  h->time = 0;\n  h->top->{clk} = 0;\n  h->top->eval();\n  return h;\n}}\n",
            clk = self.clock
        );
        let _ = writeln!(s, "void iblink_free(void* p) {{\n  IblinkHandle* h = (IblinkHandle*)p;");
        if self.trace {
            let _ = writeln!(s, "  if (h->vcd) {{ h->vcd->close(); delete h->vcd; }}");
        }
        let _ = writeln!(s, "  h->top->final();\n  delete h->top;\n  delete h->ctx;\n  delete h;\n}}\n");
        // A null path closes the VCD being written; any other replaces it.
        let _ = writeln!(s, "int iblink_trace(void* p, const char* path) {{");
        if self.trace {
            let _ = writeln!(
                s,
                "  IblinkHandle* h = (IblinkHandle*)p;\n  if (h->vcd) {{ h->vcd->close(); delete h->vcd; h->vcd = nullptr; }}\n  if (!path) return 0;\n  h->vcd = new VerilatedVcdC;\n  h->top->trace(h->vcd, 99);\n  h->vcd->open(path);\n  return h->vcd->isOpen() ? 0 : -1;"
            );
        } else {
            let _ = writeln!(s, "  (void)p; (void)path;\n  return -1;");
        }
        let _ = writeln!(s, "}}\n");
        let dump = if self.trace {
            "  if (h->vcd) h->vcd->dump(h->time);\n  h->time += 5;\n"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "void iblink_step(void* p, const uint64_t* in, uint64_t* out) {{\n  IblinkHandle* h = (IblinkHandle*)p;\n  {cls}* t = h->top;\n  t->{} = 0;",
            self.clock
        );
        let mut slot = 0;
        for p in &self.inputs {
            s.push_str(&set_port(p, slot));
            slot += p.slots();
        }
        let _ = write!(s, "  t->eval();\n{dump}");
        let mut slot = 0;
        for p in &self.outputs {
            s.push_str(&get_port(p, slot));
            slot += p.slots();
        }
        let _ = writeln!(s, "  t->{} = 1;\n  t->eval();\n{dump}}}\n}}", self.clock);
        s
    }

    fn hash(&self, version: &str) -> String {
        let mut h = Sha256::new();
        let params = self.param_args().join(" ");
        for part in [
            version,
            params.as_str(),
            &self.verilog,
            &self.shim(),
            &self.top,
            BUILD_FLAGS.join(" ").as_str(),
            MAKE_ARGS.join(" ").as_str(),
            OPT_FAST,
            OPT_SLOW,
            GROUPS_MK,
        ] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.finalize()[..10].iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    /// `-G<name>=<value>` for every parameter.
    fn param_args(&self) -> Vec<String> {
        self.params.iter().map(|(k, v)| format!("-G{k}={v}")).collect()
    }

    /// Build (or find in the cache) the shared library; returns its path.
    pub fn build(&self) -> Result<PathBuf, BridgeError> {
        let version = verilator_version()?;
        let key = format!("{}-{}", self.top, self.hash(&version));
        let root = cache_dir();
        let done = root.join(&key);
        let lib = done.join("libiblink_sim.so");
        if lib.is_file() {
            return Ok(lib);
        }
        if let Some(f) = BUILD_NOTICE.get() {
            f(&format!("building {} with Verilator (kept in {} for the next run)", self.top, root.display()));
        }
        std::fs::create_dir_all(&root)?;
        // Build in a private directory, then rename: concurrent builders of the same
        // key (other processes, or other threads of this one) never share or see a
        // half-built library.
        static BUILDS: AtomicU64 = AtomicU64::new(0);
        let work = root.join(format!(
            "{key}.tmp{}-{}",
            std::process::id(),
            BUILDS.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(&work)?;
        let vfile = work.join(format!("{}.v", self.top));
        std::fs::write(&vfile, &self.verilog)?;
        std::fs::write(work.join("iblink_shim.cpp"), self.shim())?;
        let log = work.join("build.log");
        // Verilate, then compile with Verilator's makefile (what `--build` does), so that
        // the precompiled header can be made with that makefile's own flags first.
        let mut cmd = Command::new(verilator_bin());
        cmd.current_dir(&work)
            .args(["--cc", "-Mdir", "obj", "--top-module", &self.top])
            .args(BUILD_FLAGS)
            .args(self.param_args())
            .arg(if self.trace { "--trace" } else { "--no-trace" })
            .arg(&vfile)
            .args(["--exe", "iblink_shim.cpp", "-o", "libiblink_sim.so"]);
        let mut out = cmd.output().map_err(|e| BridgeError::NoVerilator(e.to_string()))?;
        if out.status.success() {
            let obj = work.join("obj");
            let mk = format!("V{}.mk", self.top);
            let with_pch = |opt: &str| match precompiled_header(&root, &obj, &mk, self.trace, opt) {
                Some(h) => format!("{opt} -include {} -Winvalid-pch", h.display()),
                None => opt.to_string(),
            };
            std::fs::write(obj.join(GROUPS_MK_NAME), GROUPS_MK)?;
            let mut make = Command::new("make");
            make.current_dir(&obj)
                .args(["-f", &mk, "-f", GROUPS_MK_NAME])
                .args(MAKE_ARGS)
                .arg(format!("OPT_FAST={}", with_pch(OPT_FAST)))
                .arg(format!("OPT_SLOW={}", with_pch(OPT_SLOW)))
                .arg("iblink-lib");
            if have_ccache() {
                // Every build compiles the same Verilator runtime (verilated.cpp and
                // friends); through ccache that happens once, not once per configuration.
                make.env("OBJCACHE", "ccache");
                if std::env::var_os("CCACHE_DIR").is_none() {
                    make.env("CCACHE_DIR", root.join("ccache"));
                }
            }
            let m = make.output().map_err(|e| BridgeError::NoVerilator(format!("make: {e}")))?;
            out.stdout.extend_from_slice(&m.stdout);
            out.stderr.extend_from_slice(&m.stderr);
            out.status = m.status;
        }
        std::fs::write(&log, [out.stdout.as_slice(), out.stderr.as_slice()].concat())?;
        let built = work.join("obj").join("libiblink_sim.so");
        if !out.status.success() || !built.is_file() {
            let text = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = text.lines().rev().take(15).collect();
            return Err(BridgeError::Build {
                top: self.top.clone(),
                log,
                tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            });
        }
        std::fs::rename(&built, work.join("libiblink_sim.so"))?;
        let _ = std::fs::remove_dir_all(work.join("obj"));
        match std::fs::rename(&work, &done) {
            Ok(()) => {}
            // Someone else finished the same build first: use theirs.
            Err(_) if lib.is_file() => {
                let _ = std::fs::remove_dir_all(&work);
            }
            Err(e) => return Err(e.into()),
        }
        Ok(lib)
    }

    /// Build and load.
    pub fn load(&self) -> Result<VerilatedModel, BridgeError> {
        let lib = self.build()?;
        VerilatedModel::open(&lib, self)
    }
}

/// Whether `ccache` is on the PATH (`make deps` installs it; builds work without it).
fn have_ccache() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| {
        Command::new("ccache")
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    })
}

/// Verilator's flags for every build (part of the cache key, with [`MAKE_ARGS`] and
/// [`OPT_FAST`]).
const BUILD_FLAGS: &[&str] = &[
    "-Wno-fatal",
    "-O3",
    "-CFLAGS",
    "-fPIC",
    "-LDFLAGS",
    "-shared",
];

/// Arguments of the `make` that compiles a verilated model.
const MAKE_ARGS: &[&str] = &["-j", "2"];

/// Optimisation of the code that runs every clock (Verilator's `VM_FAST` files) and of
/// the shim. Verilator has already optimised the netlist (`-O3`); `-O2` here takes about
/// twice as long to compile for no simulation speed the tests can see
/// (docs/dependencies.md).
const OPT_FAST: &str = "-O1";

/// Optimisation of the code that runs once, when the model is constructed (`VM_SLOW`:
/// initial values, the constant pool, the symbol table). Unoptimised: it is a large
/// share of a big block's C++ and never on the simulation's path.
const OPT_SLOW: &str = "-O0";

/// Name of [`GROUPS_MK`] in a build's `obj` directory.
const GROUPS_MK_NAME: &str = "iblink_groups.mk";

/// Read after the model's own makefile: the `iblink-lib` target builds the shared
/// library from two translation units, the `VM_FAST` files concatenated (with
/// `OPT_FAST`) and the `VM_SLOW` files concatenated (with `OPT_SLOW`), so Verilator's
/// headers are read twice per build, not once per generated file, and each half gets
/// the optimisation it needs. The shim and Verilator's runtime use the makefile's own
/// rules.
const GROUPS_MK: &str = "\
iblink_fast.cpp: $(addsuffix .cpp, $(VM_FAST))
\t$(VERILATOR_INCLUDER) -DVL_INCLUDE_OPT=include $^ > $@
iblink_slow.cpp: $(addsuffix .cpp, $(VM_SLOW))
\t$(VERILATOR_INCLUDER) -DVL_INCLUDE_OPT=include $^ > $@
iblink_fast.o: iblink_fast.cpp
\t$(OBJCACHE) $(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_FAST) -c -o $@ $<
iblink_slow.o: iblink_slow.cpp
\t$(OBJCACHE) $(CXX) $(CXXFLAGS) $(CPPFLAGS) $(OPT_SLOW) -c -o $@ $<
iblink-lib: iblink_fast.o iblink_slow.o $(VK_USER_OBJS) $(VK_GLOBAL_OBJS)
\t$(LINK) $(LDFLAGS) $^ $(LOADLIBES) $(LDLIBS) $(LIBS) $(SC_LIBS) -o libiblink_sim.so
";

/// Makes `verilated.h` a precompiled header, with the flags a model's makefile compiles
/// with (its `CXXFLAGS` and `CPPFLAGS`) and one optimisation level (`IBLINK_PCH_OPT`).
const PCH_MAKEFILE: &str = "iblink-pch:\n\t$(CXX) $(CXXFLAGS) $(CPPFLAGS) $(IBLINK_PCH_OPT) -x c++-header -o $(IBLINK_PCH_OUT) $(IBLINK_PCH_IN)\n";

/// `verilated.h` precompiled for models built with (`trace`) or without tracing, at the
/// optimisation `opt` (a header is only used at the level it was made with), made once
/// per cache directory with the makefile in `obj`: the model's two halves and the shim
/// each include it first (`-include`), instead of parsing Verilator's headers again,
/// which is most of a small block's compile time. `None` (compile without it) if it
/// cannot be made; the libraries are the same either way.
fn precompiled_header(root: &Path, obj: &Path, mk: &str, trace: bool, opt: &str) -> Option<PathBuf> {
    let dir = root.join(format!("pch{}{opt}", if trace { "-trace" } else { "" }));
    let header = dir.join("verilated.h");
    if dir.join("verilated.h.gch").is_file() {
        return Some(header);
    }
    static PCHS: AtomicU64 = AtomicU64::new(0);
    let tmp = root.join(format!("pch.tmp{}-{}", std::process::id(), PCHS.fetch_add(1, Ordering::Relaxed)));
    let made = (|| -> Option<()> {
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).ok()?;
        let include = Command::new(verilator_bin()).arg("--getenv").arg("VERILATOR_ROOT").output().ok()?;
        let src = PathBuf::from(String::from_utf8_lossy(&include.stdout).trim()).join("include/verilated.h");
        std::fs::copy(&src, tmp.join("verilated.h")).ok()?;
        std::fs::write(tmp.join("pch.mk"), PCH_MAKEFILE).ok()?;
        let ok = Command::new("make")
            .current_dir(obj)
            .args(["-f", mk, "-f"])
            .arg(tmp.join("pch.mk"))
            .arg("iblink-pch")
            .arg(format!("IBLINK_PCH_OPT={opt}"))
            .arg(format!("IBLINK_PCH_IN={}", src.display()))
            .arg(format!("IBLINK_PCH_OUT={}", tmp.join("verilated.h.gch").display()))
            .output()
            .ok()?
            .status
            .success();
        ok.then_some(())
    })();
    if made.is_some() && std::fs::rename(&tmp, &dir).is_ok() {
        return Some(header);
    }
    // Another build made it first, or it could not be made.
    let _ = std::fs::remove_dir_all(&tmp);
    dir.join("verilated.h.gch").is_file().then_some(header)
}

fn set_port(p: &BridgePort, slot: usize) -> String {
    if p.width <= 64 {
        format!("  t->{} = in[{slot}];\n", p.name)
    } else {
        // Wide ports are arrays of 32-bit words in Verilator.
        (0..p.width.div_ceil(32))
            .map(|w| {
                format!(
                    "  t->{}[{w}] = (uint32_t)(in[{}] >> {});\n",
                    p.name,
                    slot + w / 2,
                    32 * (w % 2)
                )
            })
            .collect()
    }
}

fn get_port(p: &BridgePort, slot: usize) -> String {
    if p.width <= 64 {
        format!("  out[{slot}] = t->{};\n", p.name)
    } else {
        let mut s = String::new();
        for k in 0..p.slots() {
            let _ = writeln!(s, "  out[{}] = 0;", slot + k);
        }
        for w in 0..p.width.div_ceil(32) {
            let _ = writeln!(
                s,
                "  out[{}] |= (uint64_t)t->{}[{w}] << {};",
                slot + w / 2,
                p.name,
                32 * (w % 2)
            );
        }
        s
    }
}

type NewFn = unsafe extern "C" fn() -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type TraceFn = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type StepFn = unsafe extern "C" fn(*mut c_void, *const u64, *mut u64);

/// A loaded, running Verilated model.
pub struct VerilatedModel {
    handle: *mut c_void,
    free: FreeFn,
    trace: TraceFn,
    step: StepFn,
    in_slots: usize,
    out_slots: usize,
    // Declared last: dropped after the handle is freed.
    _lib: libloading::Library,
}

impl VerilatedModel {
    fn open(path: &Path, b: &VerilatorBuild) -> Result<Self, BridgeError> {
        let err = |e: libloading::Error| BridgeError::Load {
            path: path.to_path_buf(),
            detail: e.to_string(),
        };
        // SAFETY: the library is one we just built from our own shim; the symbols have
        // the signatures the shim declares.
        unsafe {
            let lib = libloading::Library::new(path).map_err(err)?;
            let new: NewFn = *lib.get::<NewFn>(b"iblink_new\0").map_err(err)?;
            let free: FreeFn = *lib.get::<FreeFn>(b"iblink_free\0").map_err(err)?;
            let trace: TraceFn = *lib.get::<TraceFn>(b"iblink_trace\0").map_err(err)?;
            let step: StepFn = *lib.get::<StepFn>(b"iblink_step\0").map_err(err)?;
            let handle = new();
            Ok(Self {
                handle,
                free,
                trace,
                step,
                in_slots: b.inputs.iter().map(BridgePort::slots).sum(),
                out_slots: b.outputs.iter().map(BridgePort::slots).sum(),
                _lib: lib,
            })
        }
    }

    /// One clock: `inputs` are applied with the clock low; `outputs` receive the values
    /// during that clock (before the rising edge); then the clock rises.
    #[inline]
    pub fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        assert!(inputs.len() >= self.in_slots && outputs.len() >= self.out_slots);
        // SAFETY: slices are at least as long as the shim reads/writes.
        unsafe { (self.step)(self.handle, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }

    pub fn in_slots(&self) -> usize {
        self.in_slots
    }
    pub fn out_slots(&self) -> usize {
        self.out_slots
    }

    /// Stop writing the VCD (closed); nothing when none is open or the build has no
    /// tracing.
    pub fn stop_trace(&mut self) {
        // SAFETY: valid handle; a null path only closes.
        let _ = unsafe { (self.trace)(self.handle, std::ptr::null()) };
    }

    /// Write a VCD of every following step (needs a build with `trace: true`), replacing
    /// the one being written. Its time goes on from the first step: 10 units a clock.
    pub fn trace_to(&mut self, path: &Path) -> Result<(), BridgeError> {
        let c = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| BridgeError::Trace(path.to_path_buf()))?;
        // SAFETY: valid handle and NUL-terminated path.
        let rc = unsafe { (self.trace)(self.handle, c.as_ptr()) };
        if rc == 0 {
            Ok(())
        } else {
            Err(BridgeError::Trace(path.to_path_buf()))
        }
    }
}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        // SAFETY: handle came from `iblink_new` and is freed once.
        unsafe { (self.free)(self.handle) }
    }
}

// The model is only ever used from one thread at a time through `&mut`.
unsafe impl Send for VerilatedModel {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Several threads building the same module at once (as parallel tests do) must all
    /// get a working library.
    #[test]
    fn concurrent_builds_of_one_module() {
        if verilator_version().is_err() {
            panic!("verilator is required (make deps)");
        }
        // A fresh library cache, so that all three threads really build; the compiler
        // cache stays the shared one, warmed by one build first, so the Verilator
        // runtime is compiled once rather than three times at once.
        let cache = std::env::temp_dir().join(format!("iblink-bridge-test-{}", std::process::id()));
        if have_ccache() && std::env::var_os("CCACHE_DIR").is_none() {
            std::env::set_var("CCACHE_DIR", cache_dir().join("ccache"));
        }
        std::env::set_var("IBLINK_VERILATOR_CACHE", cache.join("warm"));
        let b = VerilatorBuild {
            verilog: "module inv(clock, a, y);\n input wire clock;\n input wire [7:0] a;\n output reg [7:0] y;\n always @(posedge clock) y <= ~a;\nendmodule\n".into(),
            top: "inv".into(),
            clock: "clock".into(),
            inputs: vec![BridgePort::new("a", 8)],
            outputs: vec![BridgePort::new("y", 8)],
            trace: false,
            params: vec![],
        };
        b.build().expect("warm-up build");
        // The precompiled headers too (one per optimisation level): this test is about
        // the model's builds, not about making those again.
        std::fs::create_dir_all(&cache).unwrap();
        for e in std::fs::read_dir(cache.join("warm")).unwrap().flatten() {
            let name = e.file_name();
            if name.to_string_lossy().starts_with("pch") {
                std::fs::create_dir_all(cache.join(&name)).unwrap();
                for f in std::fs::read_dir(e.path()).unwrap().flatten() {
                    std::fs::copy(f.path(), cache.join(&name).join(f.file_name())).unwrap();
                }
            }
        }
        std::env::set_var("IBLINK_VERILATOR_CACHE", &cache);
        let handles: Vec<_> = (0..3)
            .map(|_| {
                let b = b.clone();
                std::thread::spawn(move || {
                    let mut m = b.load().expect("build and load");
                    let mut out = [0u64];
                    m.step(&[0x0f], &mut out);
                    m.step(&[0x00], &mut out);
                    out[0]
                })
            })
            .collect();
        for h in handles {
            // y is registered: during the second clock it shows ~0x0f.
            assert_eq!(h.join().unwrap(), 0xf0);
        }
        let _ = std::fs::remove_dir_all(&cache);
    }
}
