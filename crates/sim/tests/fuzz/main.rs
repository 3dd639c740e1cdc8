//! Seeded fuzzing of every parser of outside input and of the receive twins against the
//! reference model (`cargo test --release -p iblink-sim --test fuzz`):
//!
//! * [`parsers`]: the FCP decoder and field encoder, the IBA data packet parser, the ERF
//!   reader, the PAUSE/PFC decoder (`iblink_model`), `IBLINK_FUZZ_INPUTS` inputs each.
//!   (There is no pcap reader: captures are ERF.)
//! * [`configs`]: the port configuration, scenario, arb-trace and PAUSE/PFC trace TOML
//!   loaders, `IBLINK_FUZZ_TOML_INPUTS` texts each, and the capture's clock period.
//! * [`twins`]: the FCP RX and link RX twins against the model, `IBLINK_FUZZ_INPUTS`
//!   frames each.
//!
//! The command line's own argument parsers (`iblink fcp` numbers and hex, `iblink crc16`
//! hex, `iblink sim --vcd-window`, `iblink pfc --sa` and `--times`) are fuzzed by unit
//! tests beside them in `crates/cli/src/cmd/`, with the same support (`iblink_testkit::fuzz`).
//!
//! Everything is seeded (`IBLINK_FUZZ_SEED` overrides the base seed); a failure names
//! the input, the base seed and the case. It lives in this crate because `make soak`
//! runs this crate's tests (with more inputs).

mod configs;
mod parsers;
use iblink_testkit::fuzz as support;
mod twins;
