//! Receiver credits, one set per data VL (docs/spec.md §4, §8; seed 000 "Credit Limit
//! Calculation").
//!
//! In this folder: the Verilog module `iblink_rx_credits.v` (parameters `VLS` and
//! `CAPACITY`), and here its Rust cycle twin [`RxCreditsTwin`], the rust-hdl block
//! [`RxCreditsUnit`] (ports, emission) and the port binding. Reference model:
//! `iblink_model::credits::RxCredits` (one per VL); lockstep of model, twin and
//! Verilator: `crates/sim/tests/lockstep/tx_credits.rs`, with TX
//! credits, as the seed's worked examples drive both ends (stimulus: `crates/sim/src/blocks/rx_credits.rs`).
//!
//! # Interface (VLCap `N` data VLs and a buffer of `CAPACITY` blocks per VL, both
//! generation-time parameters)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous link init / resync (docs/spec.md §8): ABR = 0, free = CAPACITY; overrun counts are kept |
//! | `accept`, `accept_vl`, `accept_blocks` | in | a data packet of `accept_blocks` (7 bits) arrived for `accept_vl`: if it fits, ABR += blocks and free -= blocks; if not, it is dropped and counted |
//! | `drain`, `drain_vl`, `drain_blocks` | in | the higher layer took a packet of `drain_blocks` out of the buffer: free += blocks (never above CAPACITY) |
//! | `fcp_valid`, `fcp_vl`, `fcp_fctbs` | in | an FCP for `fcp_vl` was received: ABR := FCTBS |
//! | `accepted`, `dropped` | out | from registers: the `accept` of the previous clock was taken / was a buffer overrun (each its own flip-flop, decoded from the same clock's accept and carry-outs as the per-VL flags) |
//! | `fccl` | out | `12N` bits, from the registers: FCCL of VL `v` at `[12v+11:12v]` = `(ABR + min(free, 2048)) mod 4096` |
//! | `overruns` | out | `16N` bits: overruns of VL `v` at `[16v+15:16v]`, saturating at 0xFFFF |
//!
//! In one clock the events for a VL apply in this order: accept (checked against `free`
//! before this clock's drain), drain, FCP (so ABR takes the FCP's FCTBS). VL numbers at
//! or above VLCap (VL15 included: it has no credits) are ignored.
//!
//! # Cycle contract
//! - `fccl` during clock `t` is FCCL of the state during `t`: the events of clocks up to
//!   `t - 1` (latency 1 from an event; it depends on registers only).
//! - `accepted` and `dropped` during clock `t` are the outcome of clock `t - 1`'s
//!   `accept` (both 0 after a clock with `reset`, and when there was no accept for a data
//!   VL).
//! - `overruns` during clock `t` counts the overruns of clocks up to `t - 1`.
//! - Registered (the Verilog): per VL ABR, `used` = CAPACITY − free (0 at power-up and
//!   after reset), the overrun count one clock behind (the output adds the pending
//!   overrun), per VL the previous clock's accept and its does-not-fit carry-out, and
//!   `accepted` / `dropped` themselves (so the failsafe's overrun input starts at a
//!   flip-flop, not at an OR over every VL's flags).
//!   The twin holds the model's terms (ABR, free, the count, the two flags); the
//!   lockstep checks that the two agree at the ports every clock.
//!
//! # Why these ports
//! - FCCL is a packed bus, not a VL select: the FCP scheduler must see every VL's FCCL to
//!   send an FCP "whenever that VL's FCCL has changed" (docs/spec.md §5), and the framer picks
//!   one. It depends only on registers, so it adds no path from this clock's inputs.
//! - The accept result is registered: it is the drop decision of a packet whose first
//!   word was just seen, and the failsafe (docs/spec.md §8) only needs the count.
//! - Overrun counters are 16 bits and saturate: wide enough for many FCP periods at line
//!   rate, small enough at 15 VLs (240 flip-flops); they are statistics, so resync keeps
//!   them, as the model does.
//!
//! # Why the free count is computed side by side
//! The free count's update is a loop (accept check, drain, clamp at the buffer size, all
//! in one clock), so it cannot be pipelined without changing which packets fit. The
//! Verilog computes every outcome from the register and this clock's inputs, each on
//! one carry chain, and lets carry-outs pick one (its header says how); the first
//! version, one chain after another, was much slower (`docs/synthesis-history.md`).

use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use crate::tx_credits::WINDOW;
pub use crate::vl::{MAX_VLS, VL_CAPS};
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_rx_credits",
    path: "crates/rtl/src/rx_credits/iblink_rx_credits.v",
    text: include_str!("iblink_rx_credits.v"),
};

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

/// The twin's registers, all VLs: the model's terms (the Verilog holds `used` =
/// CAPACITY − free and the overrun count one clock behind; the ports agree).
#[derive(Clone, Copy, Debug)]
pub struct RxRegs {
    /// ABR per VL (docs/spec.md §4): Adjusted Blocks Received, mod 4096.
    pub abr: [u16; MAX_VLS],
    /// Free Space Count per VL (seed 000), `0..=CAPACITY`.
    pub free: [u16; MAX_VLS],
    /// Buffer overruns per VL (docs/spec.md §4, §8), saturating.
    pub overruns: [u16; MAX_VLS],
    /// The previous clock's accept was taken.
    pub accepted: bool,
    /// The previous clock's accept was dropped (a buffer overrun).
    pub dropped: bool,
}

/// FCCL = (ABR + min(free, 2048)) mod 4096 (docs/spec.md §4).
#[inline]
pub fn fccl_of(abr: u16, free: u16) -> u16 {
    abr.wrapping_add(free.min(WINDOW)) & 0xfff
}

/// Bits that hold `0..=capacity` (the width of the Verilog's `used` register, its `FB`).
pub fn free_bits(capacity: u16) -> usize {
    (16 - capacity.leading_zeros()) as usize
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

/// The Rust cycle twin of `iblink_rx_credits` for `vls` data VLs with `capacity` blocks
/// of buffer each.
#[derive(Clone, Debug)]
pub struct RxCreditsTwin {
    vls: usize,
    capacity: u16,
    regs: RxRegs,
}

impl RxCreditsTwin {
    pub fn new(vls: usize, capacity: u16) -> Self {
        assert!(VL_CAPS.contains(&vls), "RxCreditsTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        assert!(
            (MIN_CAPACITY..=MAX_CAPACITY).contains(&capacity),
            "RxCreditsTwin: capacity {capacity} is not {MIN_CAPACITY}..={MAX_CAPACITY}"
        );
        Self {
            vls,
            capacity,
            regs: RxRegs {
                abr: [0; MAX_VLS],
                free: [capacity; MAX_VLS],
                overruns: [0; MAX_VLS],
                accepted: false,
                dropped: false,
            },
        }
    }
    /// Buffer blocks per VL.
    pub fn capacity(&self) -> u16 {
        self.capacity
    }
    pub fn regs(&self) -> &RxRegs {
        &self.regs
    }
}

impl Twin for RxCreditsTwin {
    type In = RxCreditsIn;
    type Out = RxCreditsOut;

    #[inline]
    fn eval(&self, _i: &RxCreditsIn) -> RxCreditsOut {
        // Every output comes from registers only.
        let r = &self.regs;
        let mut o = RxCreditsOut {
            accepted: r.accepted,
            dropped: r.dropped,
            ..Default::default()
        };
        for v in 0..self.vls {
            o.fccl[v] = fccl_of(r.abr[v], r.free[v]);
        }
        o.overruns[..self.vls].copy_from_slice(&r.overruns[..self.vls]);
        o
    }

    #[inline]
    fn tick(&mut self, i: &RxCreditsIn) {
        let cap = self.capacity;
        let n = self.vls;
        let r = &mut self.regs;
        r.accepted = false;
        r.dropped = false;
        if i.reset {
            r.abr = [0; MAX_VLS];
            r.free = [cap; MAX_VLS];
            return;
        }
        // Events in the order accept, drain, FCP.
        let av = (i.accept_vl & 0xf) as usize;
        if i.accept && av < n {
            let b = (i.accept_blocks & 0x7f) as u16;
            if b <= r.free[av] {
                r.abr[av] = r.abr[av].wrapping_add(b) & 0xfff;
                r.free[av] -= b;
                r.accepted = true;
            } else {
                r.overruns[av] = r.overruns[av].saturating_add(1);
                r.dropped = true;
            }
        }
        let dv = (i.drain_vl & 0xf) as usize;
        if i.drain && dv < n {
            let b = (i.drain_blocks & 0x7f) as u16;
            r.free[dv] = (r.free[dv] + b).min(cap);
        }
        let fv = (i.fcp_vl & 0xf) as usize;
        if i.fcp_valid && fv < n {
            r.abr[fv] = i.fcp_fctbs & 0xfff;
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: its ports, and its behaviour through the twin. `N` data VLs
    /// with `CAP` blocks of buffer each (unless built [`RxCreditsUnit::with_capacity`]);
    /// `FW = 12 * N`, `OW = 16 * N` (the widths of `fccl` and `overruns`).
    pub struct RxCreditsUnit<const N: usize, const FW: usize, const OW: usize, const CAP: u16> {
        twin: RxCreditsTwin,
    }
    check: VL_CAPS.contains(&N) && FW == 12 * N && OW == OVERRUN_BITS * N;
    default: Self::with_capacity(CAP);
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N, u.capacity()), SOURCE.text);
    ports(i: RxCreditsIn, o: RxCreditsOut) {
        reset: in Bit = i.reset;
        accept: in Bit = i.accept;
        accept_vl: in Bits<4> = i.accept_vl;
        accept_blocks: in Bits<7> = i.accept_blocks;
        drain: in Bit = i.drain;
        drain_vl: in Bits<4> = i.drain_vl;
        drain_blocks: in Bits<7> = i.drain_blocks;
        fcp_valid: in Bit = i.fcp_valid;
        fcp_vl: in Bits<4> = i.fcp_vl;
        fcp_fctbs: in Bits<12> = i.fcp_fctbs;
        accepted: out Bit = o.accepted;
        dropped: out Bit = o.dropped;
        fccl: out Bits<FW> = o.fccl, each 12;
        overruns: out Bits<OW> = o.overruns, each OVERRUN_BITS;
    }
}

impl<const N: usize, const FW: usize, const OW: usize, const CAP: u16> RxCreditsUnit<N, FW, OW, CAP> {
    /// The block with `capacity` blocks of buffer per VL instead of `CAP` (a port
    /// generated from a configuration file names any size).
    pub fn with_capacity(capacity: u16) -> Self {
        Self::with_twin(RxCreditsTwin::new(N, capacity))
    }
    /// Buffer blocks per VL.
    pub fn capacity(&self) -> u16 {
        self.twin.capacity()
    }
}

/// The module's parameters for VLCap `vls` and `capacity` blocks per VL.
pub fn params(vls: usize, capacity: u16) -> Vec<(String, String)> {
    vec![("VLS".to_string(), vls.to_string()), ("CAPACITY".to_string(), capacity.to_string())]
}

/// `hdl_out/iblink_rx_credits.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "rx_credits",
        vec![
            ("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap); CAPACITY = 66..4095 (buffer blocks per VL)".into()),
            ("overrun_counter_bits".into(), OVERRUN_BITS.to_string()),
        ],
    )
}

/// The configuration's name: `iblink_rx_credits_vl<vls>` for the default buffer,
/// `iblink_rx_credits_vl<vls>_buf<capacity>` for another.
pub fn variant_name(vls: usize, capacity: u16) -> String {
    if capacity == DEFAULT_CAPACITY {
        format!("iblink_rx_credits_vl{vls}")
    } else {
        format!("iblink_rx_credits_vl{vls}_buf{capacity}")
    }
}

/// The block at VLCap `vls` with `capacity` blocks per VL (named by [`variant_name`]).
pub fn variant(vls: usize, capacity: u16) -> Variant {
    assert!(
        (MIN_CAPACITY..=MAX_CAPACITY).contains(&capacity),
        "RX credits: capacity {capacity} is not {MIN_CAPACITY}..={MAX_CAPACITY}"
    );
    Variant {
        name: variant_name(vls, capacity),
        block: "rx_credits",
        top: SOURCE.module.to_string(),
        params: params(vls, capacity),
        modules: vec![module()],
        // The ports depend on VLCap only.
        ports: crate::with_rx_credits!((vls, DEFAULT_CAPACITY), |T| crate::io::top_ports(&T::default()),
            _ => panic!("RX credits: VLCap {vls} is not 1, 2, 4, 8 or 15")),
    }
}

/// RX credits types by (VLCap, capacity): the default buffer (256 blocks), seed 000's
/// example buffer (3072 blocks) and the largest (4095). The Verilog takes any capacity
/// as a parameter; these are the rust-hdl block's ports and default buffer.
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

    #[test]
    fn used_width_is_the_verilogs_clog2() {
        // FB = $clog2(CAPACITY + 1) in the Verilog.
        for (cap, fb) in [(66, 7), (127, 7), (128, 8), (255, 8), (256, 9), (2047, 11), (2048, 12), (3072, 12), (4095, 12)] {
            assert_eq!(free_bits(cap), fb, "capacity {cap}");
        }
    }
}
