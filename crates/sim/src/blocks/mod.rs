//! Per-block back-end wiring: each block's model adapter, constructors and stimulus, one
//! file per block named as its folder in `crates/rtl/src/` (the link port's reference
//! cycle model is `link_port_model.rs`, its random stimulus `link_port_stimulus.rs`).

pub mod crc16;
pub mod eth_port;
pub mod eth_rxbuf;
pub mod eth_txq;
pub mod failsafe;
pub mod crc16_dword;
pub mod fcp_rx;
pub mod fcp_tx;
pub mod link_port;
pub mod link_port_model;
pub mod link_port_stimulus;
pub mod link_rx;
pub mod link_tx;
pub mod pause_rx;
pub mod pfc_frame;
pub mod pfc_tx;
pub mod rx_credits;
pub mod sl2vl;
pub mod tx_credits;
pub mod vl15_rx;
pub mod vl_arb;

use crate::{CycleSim, HdlStepper, VerilatedSim};
use iblink_rtl::emit::Variant;
use iblink_rtl::io::HdlIo;
use iblink_rtl::twin::Twin;
use iblink_verilator::BridgeError;
use std::path::Path;

/// Back ends by name, as the CLI spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Model,
    Rtl,
    Verilator,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Model, Backend::Rtl, Backend::Verilator];
    pub fn name(self) -> &'static str {
        match self {
            Backend::Model => "model",
            Backend::Rtl => "rtl",
            Backend::Verilator => "verilator",
        }
    }
}

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

/// Block `B` in an RTL back end: the rust-hdl stepper, or Verilator on the
/// configuration `variant` gives (only made when needed). The model back end is each
/// block's own.
pub fn rtl_box<B: HdlIo + 'static>(
    b: Backend,
    variant: impl FnOnce() -> Result<Variant, iblink_rtl::catalog::RequestError>,
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim<In = B::In, Out = B::Out>>, SimBuildError> {
    match b {
        Backend::Rtl => hdl_box::<B>(vcd),
        Backend::Verilator => vl_box::<B>(&variant()?, vcd),
        Backend::Model => Err(SimBuildError::Variant("the model back end of an RTL block".into())),
    }
}

/// A block with a Rust cycle twin in an RTL back end: the twin (`rtl`), or Verilator
/// on the configuration `variant` gives. With a VCD the `rtl` back end runs the twin
/// inside its rust-hdl block `B`, whose probe writes the block's ports.
pub fn twin_box<T, B>(
    b: Backend,
    twin: T,
    variant: impl FnOnce() -> Result<Variant, iblink_rtl::catalog::RequestError>,
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim<In = T::In, Out = T::Out>>, SimBuildError>
where
    T: Twin + 'static,
    B: HdlIo<In = T::In, Out = T::Out> + 'static,
{
    match (b, vcd) {
        (Backend::Rtl, None) => Ok(Box::new(TwinSim(twin))),
        _ => rtl_box::<B>(b, variant, vcd),
    }
}

/// A twin as a cycle simulation (the `rtl` back end).
pub struct TwinSim<T: Twin>(pub T);

impl<T: Twin> CycleSim for TwinSim<T> {
    type In = T::In;
    type Out = T::Out;
    fn backend(&self) -> &str {
        "rtl"
    }
    #[inline]
    fn step(&mut self, i: &T::In) -> T::Out {
        self.0.step(i)
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
    v: &Variant,
    vcd: Option<&Path>,
) -> Result<Box<dyn CycleSim<In = B::In, Out = B::Out>>, SimBuildError> {
    Ok(Box::new(VerilatedSim::<B>::with_trace(v, vcd)?))
}

/// A sink's `tx_ready` for a block's stimulus, through phases of `phase` clocks each
/// (docs/spec.md §10): always high; random, high with odds drawn from `odds`; stalls of
/// `stall` clocks, one starting with odds 1 in `stall_one_in` a clock; and, with `gaps`,
/// a gap of 1 to 3 clocks after every last beat that moves (a MAC's inter-frame gap).
pub struct ReadyPhases {
    phase: std::ops::Range<u64>,
    odds: std::ops::Range<f64>,
    stall_one_in: u32,
    stall: std::ops::Range<u64>,
    gaps: bool,
    mode: u8,
    left: u64,
    p: f64,
    stall_left: u64,
}

impl ReadyPhases {
    pub fn new(phase: std::ops::Range<u64>, odds: std::ops::Range<f64>, stall_one_in: u32, stall: std::ops::Range<u64>, gaps: bool) -> Self {
        Self { phase, odds, stall_one_in, stall, gaps, mode: 0, left: 0, p: 1.0, stall_left: 0 }
    }

    /// This clock's ready; `last_moved`: a last beat moved in the clock before.
    pub fn next(&mut self, r: &mut impl rand::Rng, last_moved: bool) -> bool {
        if self.left == 0 {
            self.mode = r.gen_range(0..if self.gaps { 4 } else { 3 });
            self.left = r.gen_range(self.phase.clone());
            self.p = r.gen_range(self.odds.clone());
            self.stall_left = 0;
        }
        self.left -= 1;
        match self.mode {
            0 => true,
            1 => r.gen_bool(self.p),
            2 => {
                if self.stall_left == 0 && r.gen_ratio(1, self.stall_one_in) {
                    self.stall_left = r.gen_range(self.stall.clone());
                }
                self.stall_left = self.stall_left.saturating_sub(1);
                self.stall_left == 0
            }
            _ => {
                if last_moved {
                    self.stall_left = r.gen_range(1..=3);
                }
                let gap = self.stall_left > 0;
                self.stall_left = self.stall_left.saturating_sub(1);
                !gap
            }
        }
    }
}
