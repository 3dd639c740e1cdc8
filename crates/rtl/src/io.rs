//! How a block is driven from outside: the contract every back end shares.
//!
//! A block implements [`HdlIo`] once; the rust-hdl stepper uses `drive`/`sample`, the
//! Verilator bridge uses `pack`/`unpack` over 64-bit port slots in the order of
//! `INPUTS`/`OUTPUTS`. Port widths are read off the rust-hdl description itself
//! ([`top_ports`]), so the Verilog, the stepper and the bridge cannot disagree on them.

use rust_hdl::prelude::*;

/// A top-level port by name (widths come from the block, see [`top_ports`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortSpec {
    pub name: &'static str,
}

impl PortSpec {
    pub const fn new(name: &'static str) -> Self {
        Self { name }
    }
}

/// A rust-hdl block with plain-Rust input and output records.
pub trait HdlIo: Block + Default {
    /// Everything the block samples in one clock (the clock itself excluded).
    type In: Copy + std::fmt::Debug + Default;
    /// Everything the block shows during one clock.
    type Out: Copy + std::fmt::Debug + PartialEq + Default;
    /// Input ports in slot order (the clock is driven by the back end).
    const INPUTS: &'static [PortSpec];
    /// Output ports in slot order.
    const OUTPUTS: &'static [PortSpec];
    fn clock(&mut self) -> &mut Signal<In, Clock>;
    fn drive(&mut self, i: &Self::In);
    fn sample(&self) -> Self::Out;
    /// One 64-bit slot per input port, in `INPUTS` order.
    fn pack(i: &Self::In, slots: &mut [u64]);
    fn unpack(slots: &[u64]) -> Self::Out;
}

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Input,
    Output,
}

/// A top-level port as the emitted Verilog declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: usize,
    pub dir: Dir,
}

struct PortProbe {
    depth: usize,
    ports: Vec<Port>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match signal.kind() {
            AtomKind::InputParameter => Dir::Input,
            AtomKind::OutputParameter => Dir::Output,
            _ => return,
        };
        self.ports.push(Port {
            name: name.to_string(),
            width: signal.bits(),
            dir,
        });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The ports of a block's top-level module, in declaration order.
pub fn top_ports(uut: &dyn Block) -> Vec<Port> {
    let mut p = PortProbe {
        depth: 0,
        ports: vec![],
    };
    uut.accept("top", &mut p);
    p.ports
}

/// Plain Rust state inside a block (tables, register files the Verilog declares itself):
/// invisible to rust-hdl's visitors, so it is neither a port nor emitted as a signal.
#[derive(Clone, Debug, Default)]
pub struct Opaque<T>(pub T);

impl<T> Logic for Opaque<T> {
    fn update(&mut self) {}
}

impl<T> Block for Opaque<T> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _name: &str, _probe: &mut dyn Probe) {}
}

impl<T> std::ops::Deref for Opaque<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Opaque<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}
