//! SLtoVL mapping table (SPEC.md §7): SL0..SL14 each choose a data VL; SL15 is
//! management and always uses VL15, whatever was written.
//!
//! Reference-model twin: `iblink_model::sl2vl::SlToVl`; lockstep:
//! `iblink_sim::blocks::sl2vl`.
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

use crate::io::{HdlIo, Opaque, PortSpec};
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// Service levels with a programmable entry (SL15 is fixed).
pub const PROGRAMMABLE_SLS: usize = 15;
/// SL15 -> VL15.
pub const VL15: u8 = 15;

#[derive(LogicBlock)]
pub struct SlToVlUnit<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wr_en: Signal<In, Bit>,
    pub wr_sl: Signal<In, Bits<4>>,
    pub wr_vl: Signal<In, Bits<4>>,
    pub lookup_sl: Signal<In, Bits<4>>,
    pub lookup_vl: Signal<Out, Bits<4>>,
    pub wr_reject: Signal<Out, Bit>,
    /// The table; the Verilog declares it as `sl<s>_vl` registers.
    table: Opaque<[u8; PROGRAMMABLE_SLS]>,
}

/// SL s -> VL (s mod VLCap): every data VL reachable after reset.
fn default_table(n: usize) -> [u8; PROGRAMMABLE_SLS] {
    std::array::from_fn(|s| (s % n) as u8)
}

impl<const N: usize> Default for SlToVlUnit<N> {
    fn default() -> Self {
        assert!(matches!(N, 1 | 2 | 4 | 8 | 15), "VLCap {N}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_en: Default::default(),
            wr_sl: Default::default(),
            wr_vl: Default::default(),
            lookup_sl: Default::default(),
            lookup_vl: Default::default(),
            wr_reject: Default::default(),
            table: Opaque(default_table(N)),
        }
    }
}

impl<const N: usize> Logic for SlToVlUnit<N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                *self.table = default_table(N);
                self.wr_reject.next = false;
            } else {
                let sl = self.wr_sl.val().index();
                let vl = self.wr_vl.val().index();
                let ok = sl < PROGRAMMABLE_SLS && vl < N;
                let wr = self.wr_en.val();
                self.wr_reject.next = wr && !ok;
                if wr && ok {
                    self.table[sl] = vl as u8;
                }
            }
        }
        // Combinational lookup, from the table as it stands after any edge.
        let sl = self.lookup_sl.val().index();
        let vl = if sl < PROGRAMMABLE_SLS { self.table[sl] } else { VL15 };
        self.lookup_vl.next = (vl as u64).into();
    }

    fn connect(&mut self) {
        self.lookup_vl.connect();
        self.wr_reject.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(sl2vl_verilog_body(N))
    }
}

/// Bits a stored VL needs: every VL this port has (below VLCap `n`) fits in them, so
/// the upper bits of a table entry would be flip-flops that are always 0.
pub const fn stored_vl_bits(n: usize) -> usize {
    // Bits that hold 0..=n-1.
    (usize::BITS - (n - 1).leading_zeros()) as usize
}

/// One named register per programmable SL (as wide as a VL below VLCap needs), one
/// write enable per SL and a lookup mux.
pub fn sl2vl_verilog_body(n: usize) -> String {
    let b = stored_vl_bits(n);
    let mut v = String::new();
    if b == 0 {
        let _ = writeln!(v, "// SLtoVL table (SPEC.md 7) for VLCap 1: SL0..SL14 can only map to VL0, so nothing is stored.");
    } else {
        let _ = writeln!(
            v,
            "// SLtoVL table (SPEC.md 7) for VLCap {n}: sl<s>_vl holds SL s's data VL in the {b} bit(s)\n\
             // a VL below {n} needs (a refused write never reaches the table, so the upper bits are 0)."
        );
    }
    if b > 0 {
        for s in 0..PROGRAMMABLE_SLS {
            let _ = writeln!(v, "reg [{}:0] sl{s}_vl;", b - 1);
        }
    }
    let _ = writeln!(v, "initial begin");
    if b > 0 {
        for s in 0..PROGRAMMABLE_SLS {
            let _ = writeln!(v, "   sl{s}_vl = {b}'d{};", s % n);
        }
    }
    let _ = writeln!(v, "   wr_reject = 1'b0;\nend\n");
    let _ = writeln!(
        v,
        "// Refuse writes naming SL15 (fixed to VL15) or a VL this port does not have.\n\
         wire vl_ok = wr_vl < 4'd{n};\n\
         wire wr_ok = (wr_sl != 4'd15) && vl_ok;\n"
    );
    let _ = writeln!(
        v,
        "// Each entry's enable is its SL match, wr_en and the VL check (SL15 cannot match an\n\
         // entry), so the decode stays two LUT levels deep.\n\
         always @(posedge clock) begin\n   wr_reject <= ~reset & wr_en & ~wr_ok;"
    );
    if b > 0 {
        for s in 0..PROGRAMMABLE_SLS {
            let _ = writeln!(
                v,
                "   if (reset) sl{s}_vl <= {b}'d{};\n   else if (wr_en && wr_sl == 4'd{s} && vl_ok) sl{s}_vl <= wr_vl[{}:0];",
                s % n,
                b - 1
            );
        }
    }
    let _ = writeln!(v, "end\n");
    let _ = writeln!(v, "always @(*) begin\n   case (lookup_sl)");
    for s in 0..PROGRAMMABLE_SLS {
        let value = match b {
            0 => "4'd0".to_string(),
            4 => format!("sl{s}_vl"),
            _ => format!("{{{}'d0, sl{s}_vl}}", 4 - b),
        };
        let _ = writeln!(v, "      4'd{s}: lookup_vl = {value};");
    }
    let _ = writeln!(v, "      default: lookup_vl = 4'd15; // SL15: management, always VL15\n   endcase\nend");
    v
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

impl<const N: usize> HdlIo for SlToVlUnit<N> {
    type In = SlToVlIn;
    type Out = SlToVlOut;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("wr_en"),
        PortSpec::new("wr_sl"),
        PortSpec::new("wr_vl"),
        PortSpec::new("lookup_sl"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[PortSpec::new("lookup_vl"), PortSpec::new("wr_reject")];
    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &SlToVlIn) {
        self.reset.next = i.reset;
        self.wr_en.next = i.wr_en;
        self.wr_sl.next = ((i.wr_sl & 0xf) as u64).into();
        self.wr_vl.next = ((i.wr_vl & 0xf) as u64).into();
        self.lookup_sl.next = ((i.lookup_sl & 0xf) as u64).into();
    }
    fn sample(&self) -> SlToVlOut {
        SlToVlOut {
            lookup_vl: self.lookup_vl.val().index() as u8,
            wr_reject: self.wr_reject.val(),
        }
    }
    fn pack(i: &SlToVlIn, slots: &mut [u64]) {
        slots[0] = i.reset as u64;
        slots[1] = i.wr_en as u64;
        slots[2] = (i.wr_sl & 0xf) as u64;
        slots[3] = (i.wr_vl & 0xf) as u64;
        slots[4] = (i.lookup_sl & 0xf) as u64;
    }
    fn unpack(slots: &[u64]) -> SlToVlOut {
        SlToVlOut {
            lookup_vl: slots[0] as u8,
            wr_reject: slots[1] & 1 == 1,
        }
    }
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
            assert!(b == 0 || n - 1 >= 1 << (b - 1), "VLCap {n}: {b} bits is wider than needed");
        }
    }
}
