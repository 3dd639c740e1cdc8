//! The rust-hdl back end: the block's own `update` logic, stepped directly.
//!
//! rust-hdl's `Simulation` runs each testbench in a thread and passes the circuit
//! between threads every event (about 20 thousand cycles/s here). Calling
//! `simulate` around the clock edges ourselves is three orders of magnitude faster
//! and keeps the same semantics: signals settle, then the edge is seen by every
//! `pos_edge` at once.

use crate::CycleSim;
use iblink_rtl::io::HdlIo;
use rust_hdl::vcd_probe::VCDProbe;
use rust_hdl::prelude::*;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

/// Iterations `simulate` may take to settle before we call the logic broken.
const MAX_SETTLE: usize = 100;

/// Half a clock period in VCD time units (picoseconds): a 10 ns clock.
const HALF_PERIOD_PS: u64 = 5_000;

pub struct HdlStepper<B: HdlIo> {
    uut: B,
    vcd: Option<VCDProbe<BufWriter<File>>>,
    time: u64,
    /// The last timestamp written to the VCD.
    vcd_time: Option<u64>,
}

impl<B: HdlIo> Default for HdlStepper<B> {
    fn default() -> Self {
        Self::new(B::default())
    }
}

impl<B: HdlIo> HdlStepper<B> {
    pub fn new(mut uut: B) -> Self {
        uut.connect_all();
        uut.clock().next = Clock::from(false);
        assert!(simulate(&mut uut, MAX_SETTLE), "block does not settle at start");
        Self {
            uut,
            vcd: None,
            time: 0,
            vcd_time: None,
        }
    }

    /// Record every following half-cycle to a VCD file (replacing it): the header, every
    /// signal's value at the current time, then the changes. Time is 10,000 ps a clock
    /// from the first step, whenever the recording starts.
    pub fn trace_to(&mut self, path: &Path) -> std::io::Result<()> {
        let w = BufWriter::new(File::create(path)?);
        let mut probe = write_vcd_header(w, &self.uut);
        probe.timestamp(self.time)?;
        self.vcd_time = Some(self.time);
        self.vcd = Some(write_vcd_dump(probe, &self.uut));
        Ok(())
    }

    /// Stop recording: the VCD is flushed and closed.
    pub fn stop_trace(&mut self) {
        // Dropping the probe flushes its writer.
        self.vcd = None;
    }

    pub fn uut(&self) -> &B {
        &self.uut
    }

    fn settle(&mut self) {
        assert!(
            simulate(&mut self.uut, MAX_SETTLE),
            "rust-hdl logic did not settle in {MAX_SETTLE} iterations (combinational loop?)"
        );
        if let Some(mut probe) = self.vcd.take() {
            if self.vcd_time != Some(self.time) {
                let _ = probe.timestamp(self.time);
                self.vcd_time = Some(self.time);
            }
            self.vcd = Some(write_vcd_change(probe, &self.uut));
        }
        self.time += HALF_PERIOD_PS;
    }
}

impl<B: HdlIo> CycleSim for HdlStepper<B> {
    type In = B::In;
    type Out = B::Out;
    fn backend(&self) -> &str {
        "rtl"
    }
    fn start_vcd(&mut self, path: &Path) -> std::io::Result<()> {
        self.trace_to(path)
    }
    fn stop_vcd(&mut self) {
        self.stop_trace()
    }
    #[inline]
    fn step(&mut self, input: &B::In) -> B::Out {
        // Clock low with the new inputs: combinational paths settle.
        self.uut.clock().next = Clock::from(false);
        self.uut.drive(input);
        self.settle();
        let out = self.uut.sample();
        // Rising edge: every register samples the settled inputs.
        self.uut.clock().next = Clock::from(true);
        self.settle();
        out
    }
}
