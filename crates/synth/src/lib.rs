//! iblink's synthesis and timing flow: every module `iblink_rtl::catalog` emits, in a
//! registered wrapper, through Yosys and nextpnr (iCE40: Debian's packages; ECP5:
//! YoWASP from PyPI), with cell counts and Fmax per module.
//!
//! * [`ports`]: read a module's ports off its emitted (non-ANSI) Verilog.
//! * [`wrapper`]: the registered harness, and how it keeps I/O out of the measurement.
//! * [`target`]: devices, tool discovery and installation.
//! * [`flow`]: one module on one target.
//! * [`parse`]: Yosys `stat -json`, nextpnr Fmax/utilisation/critical path.
//! * [`bench`]: cost/speed targets for blocks that have one.
//! * [`report`]: Markdown and JSON.

pub mod bench;
pub mod flow;
pub mod parse;
pub mod ports;
pub mod report;
pub mod target;
pub mod wrapper;

pub use flow::{run_module, FlowOptions, ModuleResult};
pub use report::Report;
pub use target::{tools_for, Target};
