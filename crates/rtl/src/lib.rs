//! iblink's hardware blocks, described in rust-hdl, and their Verilog emission.
//!
//! Each block is one file: the rust-hdl description (what the stepper runs), the
//! Verilog it emits, its [`io::HdlIo`] binding, and unit tests. Its reference-model
//! twin lives in `iblink-model` under the same name.

pub mod bits;
pub mod catalog;
pub mod crc16;
pub mod crc16_dword;
pub mod crc32;
pub mod emit;
pub mod failsafe;
pub mod fcp_rx;
pub mod fcp_tx;
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
pub mod vl;
pub mod vl15_rx;
pub mod vl_arb;
