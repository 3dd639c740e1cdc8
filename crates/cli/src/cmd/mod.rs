pub mod arb_trace;
pub mod bench;
pub mod crc16;
pub mod emit;
pub mod fcp;
pub mod sim;
pub mod synth;
pub mod tb;
