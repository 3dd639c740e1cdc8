//! A block's Rust cycle twin: the registers and logic of its Verilog module, in plain
//! Rust, stepped without rust-hdl's settle loop.
//!
//! The twin is what the `rtl` back end runs and what the link port's stepper composes;
//! lockstep proves it equal to the Verilog (through Verilator) and to the reference
//! model, clock by clock.

/// A block's cycle twin. One clock is `eval` (what the outputs show during the clock,
/// from the registers and this clock's inputs) then `tick` (the rising edge at its end,
/// with the same inputs).
pub trait Twin {
    /// Everything the block samples in one clock (the clock itself excluded).
    type In: Copy + std::fmt::Debug + Default;
    /// Everything the block shows during one clock.
    type Out: Copy + std::fmt::Debug + PartialEq + Default;
    /// The outputs during a clock with inputs `i`. Pure: may be called more than once.
    fn eval(&self, i: &Self::In) -> Self::Out;
    /// The clock edge at the end of a clock with inputs `i`.
    fn tick(&mut self, i: &Self::In);
    /// One whole clock: the outputs during it, then its edge.
    #[inline]
    fn step(&mut self, i: &Self::In) -> Self::Out {
        let o = self.eval(i);
        self.tick(i);
        o
    }
}

/// A twin behind a pointer: a composition whose instance's type is chosen at run time.
impl<I, O> Twin for Box<dyn Twin<In = I, Out = O>>
where
    I: Copy + std::fmt::Debug + Default,
    O: Copy + std::fmt::Debug + PartialEq + Default,
{
    type In = I;
    type Out = O;
    #[inline]
    fn eval(&self, i: &I) -> O {
        (**self).eval(i)
    }
    #[inline]
    fn tick(&mut self, i: &I) {
        (**self).tick(i)
    }
}

/// A rust-hdl block as a twin: `eval` drives the inputs and settles with the clock low
/// (no edge, so no register moves: calling it again gives the same outputs); `tick`
/// raises the clock, settles, and lowers it again.
pub struct HdlTwin<B: crate::io::HdlIo> {
    b: std::cell::RefCell<B>,
}

/// Settle iterations before the logic is called broken.
const MAX_SETTLE: usize = 100;

impl<B: crate::io::HdlIo> HdlTwin<B> {
    pub fn new(mut b: B) -> Self {
        use rust_hdl::prelude::*;
        b.connect_all();
        b.clock().next = Clock::from(false);
        assert!(simulate(&mut b, MAX_SETTLE), "block does not settle at start");
        Self { b: std::cell::RefCell::new(b) }
    }
}

impl<B: crate::io::HdlIo> Twin for HdlTwin<B> {
    type In = B::In;
    type Out = B::Out;
    fn eval(&self, i: &B::In) -> B::Out {
        use rust_hdl::prelude::*;
        let mut b = self.b.borrow_mut();
        b.drive(i);
        assert!(simulate(&mut *b, MAX_SETTLE), "rust-hdl logic did not settle");
        b.sample()
    }
    fn tick(&mut self, i: &B::In) {
        use rust_hdl::prelude::*;
        let b = self.b.get_mut();
        b.drive(i);
        b.clock().next = Clock::from(true);
        assert!(simulate(b, MAX_SETTLE), "rust-hdl logic did not settle");
        b.clock().next = Clock::from(false);
        assert!(simulate(b, MAX_SETTLE), "rust-hdl logic did not settle");
    }
}
