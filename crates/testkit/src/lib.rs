//! What the tests of several iblink crates share, as a dev-dependency (never a
//! dependency of a shipped crate):
//! - [`fuzz`]: seeded fuzzing without a fuzzing engine, used by `iblink-sim`'s fuzz tests
//!   and by the command line's unit tests of its argument parsers;
//! - [`tshark`]: reading ERF captures with Wireshark's tshark and checking a data
//!   frame's decode, used by this crate's `tests/erf_tshark.rs` (the model's ERF writer)
//!   and by the command line's capture test.

pub mod fuzz;
pub mod tshark;
