//! The Ethernet flow-control loop as a system (docs/spec.md §9, seed 004): two ports back to
//! back through a wire, per-priority traffic and paced readers, a summary per direction
//! and queue, the timeline plot, and the headroom sweep.

pub mod plot;
pub mod report;
pub mod run;
pub mod scenario;
