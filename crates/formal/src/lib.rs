//! iblink's formal verification: the properties written beside each block
//! (`crates/rtl/src/<block>/formal/`), proven on the Verilog as emitted in `hdl_out/`.
//!
//! * [`manifest`]: a block's `formal.toml`, the proofs it lists and their planted bugs.
//! * [`run`]: one proof through Yosys (SMT-LIB2) and yosys-smtbmc with z3: BMC base case
//!   and k-induction, or BMC alone, and each planted bug shown to fail.
//! * [`split`]: a harness as one proof per assertion, for invariants whose induction
//!   step is out of reach whole.
//! * [`report`]: the table `make formal` prints.
//!
//! The flow is what SymbiYosys' `prove` mode does (a base case and an induction step to
//! the same depth), written out here so that it runs on Debian's yosys, yosys-smtbmc and
//! z3 with nothing to compile first.

pub mod manifest;
pub mod report;
pub mod run;
pub mod split;

pub use manifest::{load_all, Mode, Mutant, Proof};
pub use run::{run_task, Outcome, Task, TaskResult};
