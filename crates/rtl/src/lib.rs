//! iblink's hardware blocks: hand-written parameterised Verilog, each with its Rust cycle
//! twin, and their emission into `hdl_out/`.
//!
//! Each block is a folder, `<block>/`: the module `iblink_<block>.v`, and `mod.rs` with its
//! cycle contract, its `In`/`Out` records, the twin ([`twin::Twin`]), its ports declared
//! once ([`hdl_block!`], which derives the rust-hdl block and the [`io::HdlIo`] binding every
//! back end drives it through) and its `variant()`s; where it has proofs, `formal.toml` and
//! `formal/`. Its reference model lives in `iblink-model`; its back ends and lockstep in
//! `iblink-sim` (`crates/sim/src/blocks/<block>.rs`, `crates/sim/tests/lockstep/<block>.rs`),
//! so this crate never sees the models. The ports compose blocks through [`netlist!`];
//! [`catalog`] lists what `hdl_out/` holds.

pub mod bits;
pub mod catalog;
pub mod crc16;
pub mod crc16_dword;
pub mod crc32;
pub mod emit;
pub mod failsafe;
pub mod fcp_rx;
pub mod fcp_tx;
pub mod fusesoc;
pub mod io;
pub mod link_rx;
pub mod link_tx;
pub mod link;
pub mod link_port;
pub mod netlist;
pub mod eth_rxbuf;
pub mod eth_txq;
pub mod eth_port;
pub mod pause_rx;
pub mod pfc_frame;
pub mod pfc_tx;
pub mod port_ctrl;
pub mod sl2vl;
pub mod rx_credits;
pub mod tx_credits;
pub mod twin;
pub mod variants;
pub mod verilog;
pub mod vl;
pub mod vl15_rx;
pub mod vl_arb;
