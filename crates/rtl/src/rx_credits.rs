//! Receiver credits, one set per data VL (SPEC.md §4, §8; seed 000 "Credit Limit
//! Calculation").
//!
//! Reference-model twin: [`iblink_model::credits::RxCredits`] (one per VL); lockstep back
//! ends: `iblink_sim::blocks::rx_credits`; snapshots: `tests/snapshots`.
//!
//! # Interface (VLCap `N` data VLs and a buffer of `CAP` blocks per VL, both fixed at
//! generation time)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link init / resync (SPEC.md §8): ABR = 0, free = CAP; overrun counts are kept |
//! | `accept`, `accept_vl`, `accept_blocks` | in | a data packet of `accept_blocks` (7 bits) arrived for `accept_vl`: if it fits, ABR += blocks and free -= blocks; if not, it is dropped and counted |
//! | `drain`, `drain_vl`, `drain_blocks` | in | the higher layer took a packet of `drain_blocks` out of the buffer: free += blocks (never above CAP) |
//! | `fcp_valid`, `fcp_vl`, `fcp_fctbs` | in | an FCP for `fcp_vl` was received: ABR := FCTBS |
//! | `accepted`, `dropped` | out | registered: the `accept` of the previous clock was taken / was a buffer overrun |
//! | `fccl` | out | `12N` bits, from the registers: FCCL of VL `v` at `[12v+11:12v]` = `(ABR + min(free, 2048)) mod 4096` |
//! | `overruns` | out | `16N` bits: overruns of VL `v` at `[16v+15:16v]`, saturating at 0xFFFF |
//!
//! In one clock the events for a VL apply in this order: accept (checked against `free`
//! before this clock's drain), drain, FCP (so ABR takes the FCP's FCTBS). VL numbers at
//! or above VLCap (VL15 included: it has no credits) are ignored.
//!
//! # Why these ports
//! - FCCL is a packed bus, not a VL select: the FCP scheduler must see every VL's FCCL to
//!   send an FCP "whenever that VL's FCCL has changed" (SPEC.md §5), and the framer picks
//!   one. It depends only on registers, so it adds no path from this clock's inputs.
//! - The accept result is registered: it is the drop decision of a packet whose first
//!   word was just seen, and the failsafe (SPEC.md §8) only needs the count.
//! - Overrun counters are 16 bits and saturate: wide enough for many FCP periods at line
//!   rate, small enough at 15 VLs (240 flip-flops); they are statistics, so resync keeps
//!   them, as the model does.

use crate::io::{HdlIo, Opaque, PortSpec};
use crate::tx_credits::{bits_from_words, field, pack_fields, read_words, MAX_VLS, VL_CAPS, WINDOW};
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// Buffer sizes the block can be generated for: at least one largest packet (66
/// blocks), at most what a 12-bit free counter holds.
pub const MIN_CAPACITY: u16 = 66;
pub const MAX_CAPACITY: u16 = 4095;
/// The default configuration's buffer (iblink-model `PortConfig::default`).
pub const DEFAULT_CAPACITY: u16 = 256;
/// Bits per VL in `accept_blocks`/`drain_blocks`.
pub const BLOCK_BITS: usize = 7;
/// Width of each overrun counter.
pub const OVERRUN_BITS: usize = 16;

/// The registers of all VLs (declared by the Verilog body itself).
#[derive(Clone, Copy, Debug)]
pub struct RxRegs {
    /// ABR per VL (SPEC.md §4): Adjusted Blocks Received, mod 4096.
    pub abr: [u16; MAX_VLS],
    /// Free Space Count per VL (seed 000), `0..=CAP`.
    pub free: [u16; MAX_VLS],
    /// Buffer overruns per VL (SPEC.md §4, §8), saturating.
    pub overruns: [u16; MAX_VLS],
    pub accepted: bool,
    pub dropped: bool,
}

/// RX credits for `N` data VLs with `CAP` blocks of buffer each; `FW = 12 * N`,
/// `OW = 16 * N` (the widths of `fccl` and `overruns`).
#[derive(LogicBlock)]
pub struct RxCreditsUnit<const N: usize, const FW: usize, const OW: usize, const CAP: u16> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub accept: Signal<In, Bit>,
    pub accept_vl: Signal<In, Bits<4>>,
    pub accept_blocks: Signal<In, Bits<7>>,
    pub drain: Signal<In, Bit>,
    pub drain_vl: Signal<In, Bits<4>>,
    pub drain_blocks: Signal<In, Bits<7>>,
    pub fcp_valid: Signal<In, Bit>,
    pub fcp_vl: Signal<In, Bits<4>>,
    pub fcp_fctbs: Signal<In, Bits<12>>,
    pub accepted: Signal<Out, Bit>,
    pub dropped: Signal<Out, Bit>,
    pub fccl: Signal<Out, Bits<FW>>,
    pub overruns: Signal<Out, Bits<OW>>,
    regs: Opaque<RxRegs>,
    /// Buffer blocks per VL: `CAP` unless built [`RxCreditsUnit::with_capacity`] (a port
    /// generated from a configuration file names any size).
    capacity: Opaque<u16>,
}

impl<const N: usize, const FW: usize, const OW: usize, const CAP: u16> Default for RxCreditsUnit<N, FW, OW, CAP> {
    fn default() -> Self {
        assert!(
            VL_CAPS.contains(&N) && FW == 12 * N && OW == OVERRUN_BITS * N,
            "RxCreditsUnit<{N}, {FW}, {OW}, _>: unsupported"
        );
        assert!((MIN_CAPACITY..=MAX_CAPACITY).contains(&CAP), "capacity {CAP} out of range");
        let mut s = Self {
            clock: Default::default(),
            reset: Default::default(),
            accept: Default::default(),
            accept_vl: Default::default(),
            accept_blocks: Default::default(),
            drain: Default::default(),
            drain_vl: Default::default(),
            drain_blocks: Default::default(),
            fcp_valid: Default::default(),
            fcp_vl: Default::default(),
            fcp_fctbs: Default::default(),
            accepted: Default::default(),
            dropped: Default::default(),
            fccl: Default::default(),
            overruns: Default::default(),
            regs: Opaque(RxRegs {
                abr: [0; MAX_VLS],
                free: [CAP; MAX_VLS],
                overruns: [0; MAX_VLS],
                accepted: false,
                dropped: false,
            }),
            capacity: Opaque(CAP),
        };
        s.publish();
        s
    }
}

/// FCCL = (ABR + min(free, 2048)) mod 4096 (SPEC.md §4).
#[inline]
pub fn fccl_of(abr: u16, free: u16) -> u16 {
    abr.wrapping_add(free.min(WINDOW)) & 0xfff
}

impl<const N: usize, const FW: usize, const OW: usize, const CAP: u16> RxCreditsUnit<N, FW, OW, CAP> {
    /// The block with `capacity` blocks of buffer per VL instead of `CAP`.
    pub fn with_capacity(capacity: u16) -> Self {
        assert!((MIN_CAPACITY..=MAX_CAPACITY).contains(&capacity), "capacity {capacity} out of range");
        let mut s = Self::default();
        *s.capacity = capacity;
        s.regs.free = [capacity; MAX_VLS];
        s.publish();
        s
    }
    /// Buffer blocks per VL.
    pub fn capacity(&self) -> u16 {
        *self.capacity
    }
    /// Drive the outputs from the registers (they change only at clock edges).
    fn publish(&mut self) {
        let r = &self.regs;
        let mut f = [0u64; 3];
        let mut o = [0u64; 4];
        let fccl: Vec<u16> = (0..N).map(|v| fccl_of(r.abr[v], r.free[v])).collect();
        pack_fields(&fccl, 12, &mut f);
        pack_fields(&r.overruns[..N], OVERRUN_BITS, &mut o);
        self.fccl.next = bits_from_words::<FW>(&f);
        self.overruns.next = bits_from_words::<OW>(&o);
        self.accepted.next = r.accepted;
        self.dropped.next = r.dropped;
    }
}

impl<const N: usize, const FW: usize, const OW: usize, const CAP: u16> Logic for RxCreditsUnit<N, FW, OW, CAP> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let cap = *self.capacity;
        let r = &mut self.regs;
        r.accepted = false;
        r.dropped = false;
        if self.reset.val() {
            r.abr = [0; MAX_VLS];
            r.free = [cap; MAX_VLS];
        } else {
            let av = self.accept_vl.val().to_u64() as usize;
            if self.accept.val() && av < N {
                let b = self.accept_blocks.val().to_u64() as u16;
                if b <= r.free[av] {
                    r.abr[av] = r.abr[av].wrapping_add(b) & 0xfff;
                    r.free[av] -= b;
                    r.accepted = true;
                } else {
                    r.overruns[av] = r.overruns[av].saturating_add(1);
                    r.dropped = true;
                }
            }
            let dv = self.drain_vl.val().to_u64() as usize;
            if self.drain.val() && dv < N {
                let b = self.drain_blocks.val().to_u64() as u16;
                r.free[dv] = (r.free[dv] + b).min(cap);
            }
            let fv = self.fcp_vl.val().to_u64() as usize;
            if self.fcp_valid.val() && fv < N {
                r.abr[fv] = self.fcp_fctbs.val().to_u64() as u16;
            }
        }
        self.publish();
    }

    fn connect(&mut self) {
        self.accepted.connect();
        self.dropped.connect();
        self.fccl.connect();
        self.overruns.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(rx_credits_verilog_body(N, *self.capacity))
    }
}

/// The module body: one generate iteration per VL holding its ABR, free count and
/// overrun counter.
pub fn rx_credits_verilog_body(vls: usize, capacity: u16) -> String {
    let mut v = String::new();
    let _ = write!(
        v,
        "\
// RX credits for VLCap {vls}, {capacity} blocks of buffer per VL (SPEC.md 4). Per data
// VL v, in generate block vl[v]:
//   abr       ABR, Adjusted Blocks Received, mod 4096: += blocks on accept, := FCTBS on FCP
//   free      Free Space Count, 0..CAPACITY: -= blocks on accept, += blocks on drain
//   overruns  packets dropped for lack of space (saturating; kept across resync)
// FCCL = (ABR + min(free, 2048)) mod 4096.
localparam VLS = {vls};
localparam [12:0] CAPACITY = 13'd{capacity};
initial begin
   accepted = 1'b0;
   dropped = 1'b0;
end
wire [VLS-1:0] took;
wire [VLS-1:0] overran;
wire [12*VLS-1:0] fccl_bus;
wire [16*VLS-1:0] overrun_bus;
genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : vl
      localparam [3:0] VL = v;
      reg [11:0] abr;
      reg [11:0] free;
      reg [15:0] overrun_count;
      initial begin
         abr = 12'd0;
         free = CAPACITY[11:0];
         overrun_count = 16'd0;
      end
      wire accept_here = accept && accept_vl == VL;
      // free - blocks; bit 12 set means the packet does not fit (an overrun).
      wire [12:0] room = {{1'b0, free}} - {{6'd0, accept_blocks}};
      assign took[v] = accept_here & ~room[12];
      assign overran[v] = accept_here & room[12];
      wire [11:0] free_kept = took[v] ? room[11:0] : free;
      wire [12:0] refilled = {{1'b0, free_kept}} + ((drain && drain_vl == VL) ? {{6'd0, drain_blocks}} : 13'd0);
      always @(posedge clock) begin
         if (reset) begin
            // Link init or resync (SPEC.md 8).
            abr <= 12'd0;
            free <= CAPACITY[11:0];
         end else begin
            if (fcp_valid && fcp_vl == VL) abr <= fcp_fctbs;
            else if (took[v]) abr <= abr + {{5'd0, accept_blocks}};
            // Draining more than is held cannot raise free above the buffer size.
            free <= (refilled > CAPACITY) ? CAPACITY[11:0] : refilled[11:0];
            if (overran[v] && overrun_count != 16'hffff) overrun_count <= overrun_count + 16'd1;
         end
      end
      // min(free, 2048): free[11] set means free >= 2048.
      assign fccl_bus[12*v +: 12] = abr + (free[11] ? 12'h800 : free);
      assign overrun_bus[16*v +: 16] = overrun_count;
   end
endgenerate

always @(*) begin
   fccl = fccl_bus;
   overruns = overrun_bus;
end

always @(posedge clock) begin
   accepted <= ~reset & (|took);
   dropped <= ~reset & (|overran);
end
"
    );
    v
}

/// One clock of stimulus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCreditsIn {
    pub reset: bool,
    pub accept: bool,
    pub accept_vl: u8,
    pub accept_blocks: u8,
    pub drain: bool,
    pub drain_vl: u8,
    pub drain_blocks: u8,
    pub fcp_valid: bool,
    pub fcp_vl: u8,
    pub fcp_fctbs: u16,
}

/// The outputs during a clock (entries of VLs at or above VLCap are 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCreditsOut {
    pub accepted: bool,
    pub dropped: bool,
    pub fccl: [u16; MAX_VLS],
    pub overruns: [u16; MAX_VLS],
}

impl<const N: usize, const FW: usize, const OW: usize, const CAP: u16> HdlIo for RxCreditsUnit<N, FW, OW, CAP> {
    type In = RxCreditsIn;
    type Out = RxCreditsOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("accept"),
        PortSpec::new("accept_vl"),
        PortSpec::new("accept_blocks"),
        PortSpec::new("drain"),
        PortSpec::new("drain_vl"),
        PortSpec::new("drain_blocks"),
        PortSpec::new("fcp_valid"),
        PortSpec::new("fcp_vl"),
        PortSpec::new("fcp_fctbs"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("accepted"),
        PortSpec::new("dropped"),
        PortSpec::new("fccl"),
        PortSpec::new("overruns"),
    ];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &RxCreditsIn) {
        self.reset.next = i.reset;
        self.accept.next = i.accept;
        self.accept_vl.next = (i.accept_vl as u64 & 0xf).into();
        self.accept_blocks.next = (i.accept_blocks as u64 & 0x7f).into();
        self.drain.next = i.drain;
        self.drain_vl.next = (i.drain_vl as u64 & 0xf).into();
        self.drain_blocks.next = (i.drain_blocks as u64 & 0x7f).into();
        self.fcp_valid.next = i.fcp_valid;
        self.fcp_vl.next = (i.fcp_vl as u64 & 0xf).into();
        self.fcp_fctbs.next = (i.fcp_fctbs as u64 & 0xfff).into();
    }
    fn sample(&self) -> RxCreditsOut {
        let f = read_words::<FW>(&self.fccl.val());
        let c = read_words::<OW>(&self.overruns.val());
        let mut o = RxCreditsOut {
            accepted: self.accepted.val(),
            dropped: self.dropped.val(),
            ..Default::default()
        };
        for v in 0..N {
            o.fccl[v] = field(&f, v, 12) as u16;
            o.overruns[v] = field(&c, v, OVERRUN_BITS) as u16;
        }
        o
    }
    fn pack(i: &RxCreditsIn, slots: &mut [u64]) {
        slots[0] = i.reset as u64;
        slots[1] = i.accept as u64;
        slots[2] = i.accept_vl as u64 & 0xf;
        slots[3] = i.accept_blocks as u64 & 0x7f;
        slots[4] = i.drain as u64;
        slots[5] = i.drain_vl as u64 & 0xf;
        slots[6] = i.drain_blocks as u64 & 0x7f;
        slots[7] = i.fcp_valid as u64;
        slots[8] = i.fcp_vl as u64 & 0xf;
        slots[9] = i.fcp_fctbs as u64 & 0xfff;
    }
    fn unpack(slots: &[u64]) -> RxCreditsOut {
        let fs = FW.div_ceil(64);
        let f = &slots[2..2 + fs];
        let o = &slots[2 + fs..];
        let mut out = RxCreditsOut {
            accepted: slots[0] & 1 == 1,
            dropped: slots[1] & 1 == 1,
            ..Default::default()
        };
        for v in 0..N {
            out.fccl[v] = field(f, v, 12) as u16;
            out.overruns[v] = field(o, v, OVERRUN_BITS) as u16;
        }
        out
    }
}

/// RX credits types by (VLCap, capacity): the default buffer (256 blocks), seed 000's
/// example buffer (3072 blocks) and the largest (4095).
pub type RxCreditsVl1 = RxCreditsUnit<1, 12, 16, DEFAULT_CAPACITY>;
pub type RxCreditsVl2 = RxCreditsUnit<2, 24, 32, DEFAULT_CAPACITY>;
pub type RxCreditsVl4 = RxCreditsUnit<4, 48, 64, DEFAULT_CAPACITY>;
pub type RxCreditsVl8 = RxCreditsUnit<8, 96, 128, DEFAULT_CAPACITY>;
pub type RxCreditsVl15 = RxCreditsUnit<15, 180, 240, DEFAULT_CAPACITY>;
pub type RxCreditsVl1Buf3072 = RxCreditsUnit<1, 12, 16, 3072>;
pub type RxCreditsVl4Buf3072 = RxCreditsUnit<4, 48, 64, 3072>;
pub type RxCreditsVl15Buf3072 = RxCreditsUnit<15, 180, 240, 3072>;
pub type RxCreditsVl15Buf4095 = RxCreditsUnit<15, 180, 240, MAX_CAPACITY>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fccl_matches_seed_000_numbers() {
        // Step by step: ABR 0, free 3072 -> 2048; ABR 10 -> 2058; ABR 1027, free 2045 -> 3072.
        assert_eq!(fccl_of(0, 3072), 2048);
        assert_eq!(fccl_of(10, 3062), 2058);
        assert_eq!(fccl_of(1027, 2045), 3072);
        // Rollover: free 510 + ABR 3586 = 4096 -> 000h.
        assert_eq!(fccl_of(3586, 510), 0);
    }
}
