pub mod fcp;
