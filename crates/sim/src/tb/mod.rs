//! Every block's cycle-level testbench, one parameterised entry point per block: the
//! reference model, the Rust twin and Verilator in lockstep on the block's random
//! stimulus, with its coverage counters and their gates.
//!
//! - [`harness`]: what they share (back ends built, waveforms of the first clocks, the
//!   lockstep run, the first mismatch);
//! - [`report`]: the report (clocks, gates, the mismatch by field);
//! - [`params`]: parameters given as `NAME=VALUE`.

pub mod harness;
pub mod params;
pub mod report;
