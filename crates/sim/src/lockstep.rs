//! Drive several back ends with one stimulus; stop at the first disagreement.

use crate::CycleSim;
use std::fmt;

/// The first clock at which the back ends disagreed.
#[derive(Debug, Clone)]
pub struct Mismatch<I: fmt::Debug, O: fmt::Debug> {
    pub cycle: u64,
    pub input: I,
    /// (back end, its outputs) for every back end, in the order given.
    pub outputs: Vec<(String, O)>,
}

impl<I: fmt::Debug, O: fmt::Debug> fmt::Display for Mismatch<I, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "back ends disagree at cycle {}", self.cycle)?;
        writeln!(f, "  inputs:    {:?}", self.input)?;
        for (name, out) in &self.outputs {
            writeln!(f, "  {name:<10} {out:?}")?;
        }
        Ok(())
    }
}

impl<I: fmt::Debug, O: fmt::Debug> std::error::Error for Mismatch<I, O> {}

/// What `make test` runs per configuration: enough for every coverage gate.
pub const DEFAULT_CYCLES: u64 = 1_000_000;

/// Cycles a lockstep or system test runs per configuration: [`DEFAULT_CYCLES`], or
/// `IBLINK_LOCKSTEP_CYCLES` when set (`make soak` sets 10,000,000). A value that is not
/// a number is an error, not a silent default.
pub fn cycles() -> u64 {
    match std::env::var("IBLINK_LOCKSTEP_CYCLES") {
        Ok(s) => s
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("IBLINK_LOCKSTEP_CYCLES={s:?} is not a number of cycles")),
        Err(_) => DEFAULT_CYCLES,
    }
}

/// What a clean lockstep run covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockstepReport {
    pub cycles: u64,
}

/// Step every back end with each input of `stimulus`, comparing all outputs against
/// the first back end's every clock.
pub fn lockstep<I, O>(
    sims: &mut [&mut dyn CycleSim<In = I, Out = O>],
    stimulus: impl IntoIterator<Item = I>,
) -> Result<LockstepReport, Box<Mismatch<I, O>>>
where
    I: Copy + fmt::Debug,
    O: Copy + fmt::Debug + PartialEq,
{
    assert!(!sims.is_empty());
    let mut outs: Vec<O> = Vec::with_capacity(sims.len());
    let mut cycle = 0u64;
    for input in stimulus {
        step_all(sims, cycle, input, &mut outs)?;
        cycle += 1;
    }
    Ok(LockstepReport { cycles: cycle })
}

/// [`lockstep`] for a stimulus that plays the block's environment and so reacts to its
/// outputs (a queue popped by a read strobe, a framer started by a grant): `stimulus` is
/// called once a clock with the outputs of the previous clock (`None` before the first;
/// the first back end's, which every other back end matched) and returns this clock's
/// inputs. Runs `cycles` clocks.
pub fn lockstep_reactive<I, O>(
    sims: &mut [&mut dyn CycleSim<In = I, Out = O>],
    cycles: u64,
    stimulus: impl FnMut(Option<&O>) -> I,
) -> Result<LockstepReport, Box<Mismatch<I, O>>>
where
    I: Copy + fmt::Debug,
    O: Copy + fmt::Debug + PartialEq,
{
    lockstep_reactive_with_progress(sims, cycles, stimulus, |_| {})
}

/// Clocks between two calls of a progress callback.
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// [`lockstep_reactive`], calling `progress` with the clocks done every
/// [`PROGRESS_EVERY`] clocks and once at the end (for a progress bar).
pub fn lockstep_reactive_with_progress<I, O>(
    sims: &mut [&mut dyn CycleSim<In = I, Out = O>],
    cycles: u64,
    mut stimulus: impl FnMut(Option<&O>) -> I,
    mut progress: impl FnMut(u64),
) -> Result<LockstepReport, Box<Mismatch<I, O>>>
where
    I: Copy + fmt::Debug,
    O: Copy + fmt::Debug + PartialEq,
{
    assert!(!sims.is_empty());
    let mut outs: Vec<O> = Vec::with_capacity(sims.len());
    let mut prev: Option<O> = None;
    for cycle in 0..cycles {
        if cycle % PROGRESS_EVERY == 0 && cycle > 0 {
            progress(cycle);
        }
        let input = stimulus(prev.as_ref());
        step_all(sims, cycle, input, &mut outs)?;
        prev = Some(outs[0]);
    }
    progress(cycles);
    Ok(LockstepReport { cycles })
}

/// One clock for every back end; their outputs are left in `outs`.
fn step_all<I, O>(
    sims: &mut [&mut dyn CycleSim<In = I, Out = O>],
    cycle: u64,
    input: I,
    outs: &mut Vec<O>,
) -> Result<(), Box<Mismatch<I, O>>>
where
    I: Copy + fmt::Debug,
    O: Copy + fmt::Debug + PartialEq,
{
    outs.clear();
    for s in sims.iter_mut() {
        outs.push(s.step(&input));
    }
    if outs.iter().any(|o| *o != outs[0]) {
        return Err(Box::new(Mismatch {
            cycle,
            input,
            outputs: sims
                .iter()
                .map(|s| s.backend().to_string())
                .zip(outs.iter().copied())
                .collect(),
        }));
    }
    Ok(())
}
