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
        cycle += 1;
    }
    Ok(LockstepReport { cycles: cycle })
}
