//! VL15 receive buffer occupancy (SPEC.md §4, §7; seeds 000, 002): VL15 carries subnet
//! management packets and has no credits, so an SMP that arrives while the buffer is
//! full is dropped — here also counted.
//!
//! Reference-model twin: `iblink_model::vl15::Vl15Buffer`; lockstep:
//! `iblink_sim::blocks::vl15_rx`.
//!
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | link resync: the buffer empties; the drop count is kept (statistics) |
//! | `accept` | in | a VL15 packet arrived |
//! | `drain` | in | the management agent took a packet (ignored when empty) |
//! | `kept`, `dropped` | out | registered: what became of the packet of the previous clock |
//! | `held[8]` | out | packets in the buffer |
//! | `drop_count[16]` | out | packets dropped since power-up, saturating |
//!
//! Within one clock an arrival is judged against the buffer before that clock's drain,
//! as the RX credit block does: a full buffer drops even if a packet leaves in the
//! same clock.

use crate::io::{HdlIo, PortSpec};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Vl15RxUnit<const CAP: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub accept: Signal<In, Bit>,
    pub drain: Signal<In, Bit>,
    pub kept: Signal<Out, Bit>,
    pub dropped: Signal<Out, Bit>,
    pub held: Signal<Out, Bits<8>>,
    pub drop_count: Signal<Out, Bits<16>>,
    /// Packets the buffer holds: `CAP` unless built [`Vl15RxUnit::with_capacity`].
    capacity: crate::io::Opaque<usize>,
}

impl<const CAP: usize> Default for Vl15RxUnit<CAP> {
    fn default() -> Self {
        // IBA: at least one VL15 packet buffer; `held` is 8 bits.
        assert!((1..=255).contains(&CAP), "VL15 capacity {CAP}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            accept: Default::default(),
            drain: Default::default(),
            kept: Default::default(),
            dropped: Default::default(),
            held: Default::default(),
            drop_count: Default::default(),
            capacity: crate::io::Opaque(CAP),
        }
    }
}

impl<const CAP: usize> Vl15RxUnit<CAP> {
    /// The buffer holding `capacity` packets instead of `CAP` (1..=255).
    pub fn with_capacity(capacity: usize) -> Self {
        assert!((1..=255).contains(&capacity), "VL15 capacity {capacity}");
        let mut s = Self::default();
        *s.capacity = capacity;
        s
    }
}

impl<const CAP: usize> Logic for Vl15RxUnit<CAP> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let held = self.held.val().index();
        let drops = self.drop_count.val().index();
        if self.reset.val() {
            self.held.next = 0u64.into();
            self.kept.next = false;
            self.dropped.next = false;
            return;
        }
        let arrive = self.accept.val();
        let room = held < *self.capacity;
        let kept = arrive && room;
        let dropped = arrive && !room;
        let after = held + kept as usize;
        let after = if self.drain.val() && after > 0 { after - 1 } else { after };
        self.kept.next = kept;
        self.dropped.next = dropped;
        self.held.next = (after as u64).into();
        if dropped && drops < 0xffff {
            self.drop_count.next = (drops as u64 + 1).into();
        }
    }

    fn connect(&mut self) {
        self.kept.connect();
        self.dropped.connect();
        self.held.connect();
        self.drop_count.connect();
    }

    fn hdl(&self) -> Verilog {
        let cap = *self.capacity;
        Verilog::Custom(format!(
            "\
// VL15 receive buffer of {cap} packet(s): not flow controlled, so full means drop.
initial begin
   held = 8'd0;
   drop_count = 16'd0;
   kept = 1'b0;
   dropped = 1'b0;
end

// held never exceeds the capacity, so full and empty are equality compares; the
// count steps by one through +1 and -1 computed side by side, so no carry chain
// waits for another (an arrival compare, +1 and then -1 in series ran at 90 MHz on
// an iCE40-HX8K).
wire full = held == 8'd{cap};
wire empty = held == 8'd0;
wire arrive_kept = accept & ~full;
// A drain takes a packet if one is held after this clock's arrival.
wire leave = drain & (~empty | arrive_kept);
wire [7:0] held_up = held + 8'd1;
wire [7:0] held_down = held - 8'd1;

always @(posedge clock) begin
   if (reset) begin
      held <= 8'd0;
      kept <= 1'b0;
      dropped <= 1'b0;
   end else begin
      kept <= arrive_kept;
      dropped <= accept & full;
      if (arrive_kept & ~leave) held <= held_up;
      else if (leave & ~arrive_kept) held <= held_down;
      if (accept & full & (drop_count != 16'hffff)) drop_count <= drop_count + 16'd1;
   end
end"
        ))
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vl15RxIn {
    pub reset: bool,
    pub accept: bool,
    pub drain: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Vl15RxOut {
    pub kept: bool,
    pub dropped: bool,
    pub held: u8,
    pub drop_count: u16,
}

impl<const CAP: usize> HdlIo for Vl15RxUnit<CAP> {
    type In = Vl15RxIn;
    type Out = Vl15RxOut;
    const INPUTS: &'static [PortSpec] = &[PortSpec::new("reset"), PortSpec::new("accept"), PortSpec::new("drain")];
    const OUTPUTS: &'static [PortSpec] = &[
        PortSpec::new("kept"),
        PortSpec::new("dropped"),
        PortSpec::new("held"),
        PortSpec::new("drop_count"),
    ];
    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &Vl15RxIn) {
        self.reset.next = i.reset;
        self.accept.next = i.accept;
        self.drain.next = i.drain;
    }
    fn sample(&self) -> Vl15RxOut {
        Vl15RxOut {
            kept: self.kept.val(),
            dropped: self.dropped.val(),
            held: self.held.val().index() as u8,
            drop_count: self.drop_count.val().index() as u16,
        }
    }
    fn pack(i: &Vl15RxIn, slots: &mut [u64]) {
        slots[0] = i.reset as u64;
        slots[1] = i.accept as u64;
        slots[2] = i.drain as u64;
    }
    fn unpack(slots: &[u64]) -> Vl15RxOut {
        Vl15RxOut {
            kept: slots[0] & 1 == 1,
            dropped: slots[1] & 1 == 1,
            held: slots[2] as u8,
            drop_count: slots[3] as u16,
        }
    }
}

/// The IBA minimum (and the configuration default): one packet.
pub type Vl15RxCap1 = Vl15RxUnit<1>;
pub type Vl15RxCap4 = Vl15RxUnit<4>;
