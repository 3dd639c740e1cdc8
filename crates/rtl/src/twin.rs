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
