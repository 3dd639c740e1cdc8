//! The Verilator back end for any block with an [`HdlIo`] binding.

use crate::CycleSim;
use iblink_rtl::emit::Variant;
use iblink_rtl::io::{top_ports, Dir, HdlIo};
use iblink_verilator::{BridgeError, BridgePort, VerilatedModel, VerilatorBuild};
use std::marker::PhantomData;
use std::path::Path;

pub use iblink_verilator::on_build;

pub struct VerilatedSim<B: HdlIo> {
    model: VerilatedModel,
    ins: Vec<u64>,
    outs: Vec<u64>,
    _b: PhantomData<fn() -> B>,
}

/// The build description for block `B` in configuration `v`: port widths are read off
/// the rust-hdl description, slot order from `B::PORTS`.
pub fn build_for<B: HdlIo>(v: &Variant, trace: bool) -> VerilatorBuild {
    let ports = top_ports(&B::default());
    let top = v.top.as_str();
    let find = |name: &str, dir: Dir| {
        let p = ports
            .iter()
            .find(|p| p.name == name && p.dir == dir)
            .unwrap_or_else(|| panic!("{top}: no {dir:?} port named {name}"));
        BridgePort::new(name, p.width)
    };
    VerilatorBuild {
        verilog: v.text(),
        top: top.to_string(),
        params: v.params.clone(),
        clock: "clock".into(),
        inputs: B::PORTS.iter().filter(|p| p.dir == Dir::Input).map(|p| find(p.name, Dir::Input)).collect(),
        outputs: B::PORTS.iter().filter(|p| p.dir == Dir::Output).map(|p| find(p.name, Dir::Output)).collect(),
        trace,
    }
}

impl<B: HdlIo> VerilatedSim<B> {
    /// Verilate configuration `v`, or reuse a cached build of it.
    pub fn new(v: &Variant) -> Result<Self, BridgeError> {
        Self::with_trace(v, None)
    }

    /// As [`new`](Self::new), writing a VCD of every step to `vcd` when given.
    pub fn with_trace(v: &Variant, vcd: Option<&Path>) -> Result<Self, BridgeError> {
        // Tracing costs speed even when unused, so only traced runs get the traced build.
        let mut model = build_for::<B>(v, vcd.is_some()).load()?;
        if let Some(p) = vcd {
            model.trace_to(p)?;
        }
        let (i, o) = (model.in_slots(), model.out_slots());
        Ok(Self {
            model,
            ins: vec![0; i],
            outs: vec![0; o],
            _b: PhantomData,
        })
    }
}

impl<B: HdlIo> CycleSim for VerilatedSim<B> {
    type In = B::In;
    type Out = B::Out;
    fn backend(&self) -> &str {
        "verilator"
    }
    fn start_vcd(&mut self, path: &Path) -> std::io::Result<()> {
        self.model.trace_to(path).map_err(|e| std::io::Error::other(e.to_string()))
    }
    fn stop_vcd(&mut self) {
        self.model.stop_trace()
    }
    #[inline]
    fn step(&mut self, input: &B::In) -> B::Out {
        B::pack(input, &mut self.ins);
        self.model.step(&self.ins, &mut self.outs);
        B::unpack(&self.outs)
    }
}
