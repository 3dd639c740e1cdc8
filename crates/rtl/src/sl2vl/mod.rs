//! SLtoVL mapping table (docs/spec.md §7): SL0..SL14 each choose a data VL; SL15 is
//! management and always uses VL15, whatever was written.
//!
//! In this folder: the Verilog module `iblink_sl2vl.v` (parameter `VLS`), and here its
//! Rust cycle twin [`SlToVlTwin`], the rust-hdl block [`SlToVlUnit`] (ports, emission)
//! and the port binding. Reference model: `iblink_model::sl2vl::SlToVl`; lockstep of
//! model, twin and Verilator: `crates/sim/tests/lockstep/sl2vl.rs` (stimulus:
//! `crates/sim/src/blocks/sl2vl.rs`).
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: back to the default map SL s -> VL (s mod VLCap) |
//! | `wr_en`, `wr_sl[4]`, `wr_vl[4]` | in | program one entry (the subnet manager's write) |
//! | `lookup_sl[4]` | in | SL of the packet being queued |
//! | `lookup_vl[4]` | out | combinational: its VL |
//! | `wr_reject` | out | registered: the last write named SL15 or a VL at or above VLCap and was ignored |
//!
//! A write that would put an unusable VL in the table is refused rather than
//! truncated: the table can never send a packet to a VL the port does not have.
//!
//! # Cycle contract
//! - `lookup_vl` during clock `t` is the table as it is during `t` at `lookup_sl`
//!   (latency 0).
//! - A write in clock `t` takes effect at the end of `t`; `wr_reject` during `t + 1`
//!   says whether it was refused. A reset in clock `t` restores the default map and
//!   clears `wr_reject` at the end of `t`.
//! - Registered: the table (`stored_vl_bits(VLCap)` bits per programmable SL) and
//!   `wr_reject`.

use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use crate::vl::VL_CAPS;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_sl2vl",
    path: "crates/rtl/src/sl2vl/iblink_sl2vl.v",
    text: include_str!("iblink_sl2vl.v"),
};

/// Service levels with a programmable entry (SL15 is fixed).
pub const PROGRAMMABLE_SLS: usize = 15;
/// SL15 -> VL15.
pub const VL15: u8 = 15;

/// SL s -> VL (s mod VLCap): every data VL reachable after reset.
fn default_table(n: usize) -> [u8; PROGRAMMABLE_SLS] {
    std::array::from_fn(|s| (s % n) as u8)
}

/// Bits a stored VL needs: every VL this port has (below VLCap `n`) fits in them, so
/// the upper bits of a table entry would be flip-flops that are always 0 (the
/// Verilog's `VL_BITS = $clog2(VLS)`).
pub const fn stored_vl_bits(n: usize) -> usize {
    // Bits that hold 0..=n-1.
    (usize::BITS - (n - 1).leading_zeros()) as usize
}

/// The Rust cycle twin of `iblink_sl2vl` for VLCap `vls`.
#[derive(Clone, Debug)]
pub struct SlToVlTwin {
    vls: usize,
    table: [u8; PROGRAMMABLE_SLS],
    wr_reject: bool,
}

impl SlToVlTwin {
    pub fn new(vls: usize) -> Self {
        assert!(VL_CAPS.contains(&vls), "SlToVlTwin: VLCap {vls} is not 1, 2, 4, 8 or 15");
        Self {
            vls,
            table: default_table(vls),
            wr_reject: false,
        }
    }
    /// The table: SL s's VL at `[s]`.
    pub fn table(&self) -> &[u8; PROGRAMMABLE_SLS] {
        &self.table
    }
}

impl Twin for SlToVlTwin {
    type In = SlToVlIn;
    type Out = SlToVlOut;

    #[inline]
    fn eval(&self, i: &SlToVlIn) -> SlToVlOut {
        let sl = (i.lookup_sl & 0xf) as usize;
        SlToVlOut {
            lookup_vl: if sl < PROGRAMMABLE_SLS { self.table[sl] } else { VL15 },
            wr_reject: self.wr_reject,
        }
    }

    #[inline]
    fn tick(&mut self, i: &SlToVlIn) {
        if i.reset {
            self.table = default_table(self.vls);
            self.wr_reject = false;
            return;
        }
        let sl = (i.wr_sl & 0xf) as usize;
        let vl = i.wr_vl & 0xf;
        let ok = sl < PROGRAMMABLE_SLS && (vl as usize) < self.vls;
        self.wr_reject = i.wr_en && !ok;
        if i.wr_en && ok {
            self.table[sl] = vl;
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl at VLCap `N`: its ports, and its behaviour through the twin.
    pub struct SlToVlUnit<const N: usize> {
        twin: SlToVlTwin,
    }
    check: VL_CAPS.contains(&N);
    default: Self::with_twin(SlToVlTwin::new(N));
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(N), SOURCE.text);
    ports(i: SlToVlIn, o: SlToVlOut) {
        reset: in Bit = i.reset;
        wr_en: in Bit = i.wr_en;
        wr_sl: in Bits<4> = i.wr_sl;
        wr_vl: in Bits<4> = i.wr_vl;
        lookup_sl: in Bits<4> = i.lookup_sl;
        lookup_vl: out Bits<4> = o.lookup_vl;
        wr_reject: out Bit = o.wr_reject;
    }
}

/// The module's parameters for VLCap `vls`.
pub fn params(vls: usize) -> Vec<(String, String)> {
    vec![("VLS".to_string(), vls.to_string())]
}

/// `hdl_out/iblink_sl2vl.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit("sl2vl", vec![("parameters".into(), "VLS = 1, 2, 4, 8 or 15 (VLCap)".into())])
}

/// The table at VLCap `vls` (`iblink_sl2vl_vl<vls>`).
pub fn variant(vls: usize) -> Variant {
    Variant {
        name: format!("iblink_sl2vl_vl{vls}"),
        block: "sl2vl",
        top: SOURCE.module.to_string(),
        params: params(vls),
        modules: vec![module()],
        ports: crate::with_sl2vl!(vls, |T| crate::io::top_ports(&T::default()),
            _ => panic!("SLtoVL: VLCap {vls} is not 1, 2, 4, 8 or 15")),
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlToVlIn {
    pub reset: bool,
    pub wr_en: bool,
    pub wr_sl: u8,
    pub wr_vl: u8,
    pub lookup_sl: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlToVlOut {
    pub lookup_vl: u8,
    pub wr_reject: bool,
}

pub type SlToVlVl1 = SlToVlUnit<1>;
pub type SlToVlVl2 = SlToVlUnit<2>;
pub type SlToVlVl4 = SlToVlUnit<4>;
pub type SlToVlVl8 = SlToVlUnit<8>;
pub type SlToVlVl15 = SlToVlUnit<15>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored width holds every VL below VLCap and no more: the highest VL needs its
    /// top bit.
    #[test]
    fn stored_width_fits_the_highest_vl() {
        for n in [1usize, 2, 4, 8, 15] {
            let b = stored_vl_bits(n);
            assert!(n - 1 < 1 << b, "VLCap {n}: {b} bits");
            assert!(b == 0 || n > 1 << (b - 1), "VLCap {n}: {b} bits is wider than needed");
        }
    }
}
