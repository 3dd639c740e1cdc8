//! Per-block back-end wiring: each block's model adapter, constructors and stimulus.

pub mod crc16;
pub mod failsafe;
pub mod crc16_dword;
pub mod fcp_rx;
pub mod fcp_tx;
pub mod link_port;
pub mod link_port_model;
pub mod link_rx;
pub mod link_tx;
pub mod rx_credits;
pub mod sl2vl;
pub mod tx_credits;
pub mod vl_arb;

use crate::{CycleSim, HdlStepper, VerilatedSim};
use iblink_rtl::io::HdlIo;
use iblink_verilator::BridgeError;
use std::path::Path;

pub use crc16::Backend;

/// Why a back end could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SimBuildError {
    #[error("width {0} is not supported: the CRC unit takes 8, 16, 32 or 64 bits per clock")]
    Width(usize),
    #[error("VLCap {0} is not supported: 1, 2, 4, 8 or 15")]
    VlCap(usize),
    #[error("a {0}-block receive buffer is not generated for VLCap {1}")]
    Capacity(u16, usize),
    #[error("{0} is not a generated variant")]
    Variant(String),
    #[error(transparent)]
    Rtl(#[from] iblink_rtl::catalog::RequestError),
    #[error(transparent)]
    Verilator(#[from] BridgeError),
    #[error("writing VCD {0}: {1}")]
    Vcd(String, std::io::Error),
}

/// Block `B` in an RTL back end: the rust-hdl stepper, or Verilator on the text that
/// `module` renders (only rendered when needed). The model back end is each block's own.
pub fn rtl_box<B: HdlIo + 'static>(
    b: Backend,
    module: impl FnOnce() -> Result<iblink_rtl::emit::EmittedModule, iblink_rtl::catalog::RequestError>,
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim<In = B::In, Out = B::Out>>, SimBuildError> {
    match b {
        Backend::Rtl => hdl_box::<B>(vcd),
        Backend::Verilator => {
            let m = module()?;
            vl_box::<B>(&m.text, &m.name, vcd)
        }
        Backend::Model => Err(SimBuildError::Variant("the model back end of an RTL block".into())),
    }
}

/// The rust-hdl stepper of block `B`, optionally tracing to a VCD.
pub fn hdl_box<B: HdlIo + 'static>(
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim<In = B::In, Out = B::Out>>, SimBuildError> {
    let mut s = HdlStepper::<B>::default();
    if let Some(p) = vcd {
        s.trace_to(p).map_err(|e| SimBuildError::Vcd(p.display().to_string(), e))?;
    }
    Ok(Box::new(s))
}

/// Block `B` verilated from its emitted text, optionally tracing to a VCD.
pub fn vl_box<B: HdlIo + 'static>(
    text: &str,
    name: &str,
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim<In = B::In, Out = B::Out>>, SimBuildError> {
    Ok(Box::new(VerilatedSim::<B>::with_trace(text, name, vcd)?))
}
