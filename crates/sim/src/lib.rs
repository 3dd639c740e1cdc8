//! One simulation interface, several back ends (as Hardcaml does it).
//!
//! [`CycleSim`] is the whole contract: give it one clock's inputs, get back the
//! outputs during that clock, and the clock edge happens. Three back ends implement it
//! for every block:
//! - the reference model (`iblink-model`, plain Rust, independent of the RTL),
//! - [`HdlStepper`]: the rust-hdl description, stepped with
//!   `rust_hdl::simulate::simulate` around clock edges,
//! - [`VerilatedSim`]: the emitted Verilog, built by Verilator.
//!
//! [`lockstep`] drives any set of them with the same stimulus and stops at the first
//! clock where their outputs differ.

pub mod arb_trace;
pub mod bench;
pub mod eth;
pub mod blocks;
pub mod hdl;
pub mod lockstep;
pub mod pfc_trace;
pub mod port_config;
pub mod system;
pub mod tb;
pub mod verilated;

pub use hdl::HdlStepper;
pub use lockstep::{lockstep, lockstep_reactive, LockstepReport, Mismatch};
pub use verilated::VerilatedSim;

/// A cycle-accurate simulation of one block.
///
/// `step` applies `input` for one clock and returns the outputs during that clock
/// (after inputs settle, before the rising edge); the edge then samples `input`.
/// Registered outputs therefore show a value one `step` after the input that caused it.
pub trait CycleSim {
    type In: Copy + std::fmt::Debug;
    type Out: Copy + std::fmt::Debug + PartialEq;
    /// Short name of the back end, for reports (`model`, `rtl`, `verilator`).
    fn backend(&self) -> &str;
    fn step(&mut self, input: &Self::In) -> Self::Out;
    /// Write a VCD of every following step to `path` (replacing the file), starting with
    /// every signal's value now; the VCD's timestamps go on counting from the first step.
    /// A back end without waveforms (the reference model, an untraced Verilator build)
    /// says so.
    fn start_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        let _ = path;
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, format!("the {} back end writes no waveform", self.backend())))
    }
    /// Stop writing the VCD (flushed and closed); nothing when none is being written.
    fn stop_vcd(&mut self) {}
}

impl<T: CycleSim + ?Sized> CycleSim for Box<T> {
    type In = T::In;
    type Out = T::Out;
    fn backend(&self) -> &str {
        (**self).backend()
    }
    fn step(&mut self, input: &Self::In) -> Self::Out {
        (**self).step(input)
    }
    fn start_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        (**self).start_vcd(path)
    }
    fn stop_vcd(&mut self) {
        (**self).stop_vcd()
    }
}
