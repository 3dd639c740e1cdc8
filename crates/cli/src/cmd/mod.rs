pub mod emit;
pub mod fcp;
