//! VL15 receive buffer occupancy (docs/spec.md §4, §7; seeds 000, 002): VL15 carries subnet
//! management packets and has no credits, so an SMP that arrives while the buffer is
//! full is dropped — here also counted.
//!
//! In this folder: the Verilog module `iblink_vl15_rx.v` (parameter `CAPACITY`), and
//! here its Rust cycle twin [`Vl15RxTwin`], the rust-hdl block [`Vl15RxUnit`] (ports,
//! emission) and the port binding. Reference model: `iblink_model::vl15::Vl15Buffer`;
//! lockstep of model, twin and Verilator: `crates/sim/tests/lockstep/vl15_rx.rs`
//! (stimulus: `crates/sim/src/blocks/vl15_rx.rs`).
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
//! # Cycle contract
//! Every output is a register (latency 1). Within one clock an arrival is judged
//! against the buffer before that clock's drain, as the RX credit block does: a full
//! buffer drops even if a packet leaves in the same clock. A reset empties the buffer
//! and clears `kept`/`dropped`; it keeps `drop_count`.

use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_vl15_rx",
    path: "crates/rtl/src/vl15_rx/iblink_vl15_rx.v",
    text: include_str!("iblink_vl15_rx.v"),
};

/// The Rust cycle twin of `iblink_vl15_rx` holding `capacity_packets` (1..=255).
#[derive(Clone, Debug)]
pub struct Vl15RxTwin {
    capacity: u8,
    held: u8,
    drop_count: u16,
    kept: bool,
    dropped: bool,
}

/// The fewest packets the buffer holds (IBA: at least one VL15 packet buffer).
pub const MIN_CAPACITY: usize = 1;
/// The most packets the buffer holds (`held` is 8 bits).
pub const MAX_CAPACITY: usize = 255;

impl Vl15RxTwin {
    pub fn new(capacity_packets: usize) -> Self {
        assert!((MIN_CAPACITY..=MAX_CAPACITY).contains(&capacity_packets), "VL15 capacity {capacity_packets}");
        Self {
            capacity: capacity_packets as u8,
            held: 0,
            drop_count: 0,
            kept: false,
            dropped: false,
        }
    }
    pub fn capacity(&self) -> usize {
        self.capacity as usize
    }
}

impl Twin for Vl15RxTwin {
    type In = Vl15RxIn;
    type Out = Vl15RxOut;

    #[inline]
    fn eval(&self, _i: &Vl15RxIn) -> Vl15RxOut {
        Vl15RxOut {
            kept: self.kept,
            dropped: self.dropped,
            held: self.held,
            drop_count: self.drop_count,
        }
    }

    #[inline]
    fn tick(&mut self, i: &Vl15RxIn) {
        if i.reset {
            self.held = 0;
            self.kept = false;
            self.dropped = false;
            return;
        }
        let room = self.held < self.capacity;
        let kept = i.accept && room;
        let dropped = i.accept && !room;
        let after = self.held + kept as u8;
        self.held = if i.drain && after > 0 { after - 1 } else { after };
        self.kept = kept;
        self.dropped = dropped;
        if dropped && self.drop_count < 0xffff {
            self.drop_count += 1;
        }
    }
}

crate::hdl_block! {
    /// The block for rust-hdl: its ports, and its behaviour through the twin. `CAP` is the
    /// capacity unless built [`Vl15RxUnit::with_capacity`].
    pub struct Vl15RxUnit<const CAP: usize> {
        twin: Vl15RxTwin,
    }
    check: true;
    default: Self::with_capacity(CAP);
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &params(u.twin.capacity()), SOURCE.text);
    ports(i: Vl15RxIn, o: Vl15RxOut) {
        reset: in Bit = i.reset;
        accept: in Bit = i.accept;
        drain: in Bit = i.drain;
        kept: out Bit = o.kept;
        dropped: out Bit = o.dropped;
        held: out Bits<8> = o.held;
        drop_count: out Bits<16> = o.drop_count;
    }
}

impl<const CAP: usize> Vl15RxUnit<CAP> {
    /// The buffer holding `capacity` packets instead of `CAP` (1..=255).
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_twin(Vl15RxTwin::new(capacity))
    }
}

/// The module's parameters for a buffer of `capacity` packets.
pub fn params(capacity: usize) -> Vec<(String, String)> {
    vec![("CAPACITY".to_string(), capacity.to_string())]
}

/// `hdl_out/iblink_vl15_rx.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit("vl15_rx", vec![("parameters".into(), "CAPACITY = 1..255 (packets)".into())])
}

/// The buffer of `capacity` packets (`iblink_vl15_rx_cap<capacity>`).
pub fn variant(capacity: usize) -> Variant {
    Variant {
        name: format!("iblink_vl15_rx_cap{capacity}"),
        block: "vl15_rx",
        top: SOURCE.module.to_string(),
        params: params(capacity),
        modules: vec![module()],
        ports: crate::io::top_ports(&Vl15RxUnit::<1>::with_capacity(capacity)),
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

/// The IBA minimum (and the configuration default): one packet.
pub type Vl15RxCap1 = Vl15RxUnit<1>;
pub type Vl15RxCap4 = Vl15RxUnit<4>;
