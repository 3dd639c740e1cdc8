//! What every block's testbench does the same way: build the back ends asked for (the
//! model first, wrapped in the block's coverage counters), write the waveforms of the
//! first clocks, run the stimulus through all of them in lockstep and keep the first
//! mismatch.

use crate::blocks::{Backend, SimBuildError};
use crate::lockstep::lockstep_reactive_with_progress;
use crate::tb::report::{Gate, MismatchReport, TbReport};
use crate::CycleSim;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Waveforms of a run: `<dir>/<stem>_<backend>.vcd` for the `rtl` and `verilator` back
/// ends, of the first `cycles` clocks.
#[derive(Clone, Debug)]
pub struct VcdOptions {
    pub dir: PathBuf,
    pub stem: String,
    pub cycles: u64,
}

/// How to run a block's testbench.
#[derive(Clone, Copy)]
pub struct TbOptions<'a> {
    pub cycles: u64,
    /// The back ends, any order, no repeats (they run model, rtl, verilator).
    pub backends: &'a [Backend],
    pub vcd: Option<&'a VcdOptions>,
    /// Called with the clocks done, now and then, during the long (untraced) run.
    pub progress: Option<&'a (dyn Fn(u64) + Sync)>,
}

impl TbOptions<'static> {
    /// What the lockstep tests run: every back end, `cycles` clocks, no waveform.
    pub fn test(cycles: u64) -> Self {
        Self { cycles, backends: &Backend::ALL, vcd: None, progress: None }
    }
}

impl TbOptions<'_> {
    /// The back ends in the order they run: model, rtl, verilator.
    pub fn order(&self) -> Vec<Backend> {
        Backend::ALL.into_iter().filter(|b| self.backends.contains(b)).collect()
    }
}

impl fmt::Debug for TbOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TbOptions").field("cycles", &self.cycles).field("backends", &self.backends).field("vcd", &self.vcd).finish()
    }
}

/// Verilator builds of one block go one at a time (each is a compiler run; two test
/// threads building at once on two cores only slow each other).
fn build_lock(block: &'static str) -> Arc<Mutex<()>> {
    static LOCKS: Mutex<BTreeMap<&'static str, Arc<Mutex<()>>>> = Mutex::new(BTreeMap::new());
    LOCKS.lock().unwrap_or_else(|e| e.into_inner()).entry(block).or_default().clone()
}

/// What a run left: the model (with its coverage counters) and the stimulus (with its
/// own), the clocks run, the first mismatch, the waveforms.
pub struct Outcome<M, S> {
    /// The coverage model, when the model back end ran.
    pub model: Option<M>,
    pub stim: S,
    pub cycles: u64,
    pub mismatch: Option<MismatchReport>,
    pub backends: Vec<String>,
    pub waves: Vec<PathBuf>,
    /// Failures of the prelude (a block's directed check before the random run).
    pub prelude: Vec<String>,
}

/// The `rtl` and `verilator` back ends of a run.
type Boxed<I, O> = Vec<Box<dyn CycleSim<In = I, Out = O>>>;

/// A directed check run on each back end before the random run (on the traced back ends,
/// so that it is at the start of the waveforms): the failures, in words.
pub type Prelude<'p, I, O> = &'p dyn Fn(&mut dyn CycleSim<In = I, Out = O>) -> Vec<String>;

/// A block's back ends, each built by `rtl` (`rtl` and `verilator`) or `model` (the model
/// wrapped in the block's coverage counters); its stimulus, `stim` (made afresh for every
/// run, so the waveforms show the first clocks of the long run), stepped by `next` with the
/// first back end's outputs of the previous clock (`None` before the first).
///
/// With waveforms, the first `vcd.cycles` clocks run first in the traced back ends (and
/// are compared); then the whole run, untraced. The coverage is the whole run's.
pub fn run<I, O, M, S>(
    block: &'static str,
    o: &TbOptions,
    model: impl Fn() -> M,
    rtl: impl Fn(Backend, Option<&Path>) -> Result<Box<dyn CycleSim<In = I, Out = O>>, SimBuildError>,
    stim: impl Fn() -> S,
    next: impl Fn(&mut S, Option<&O>) -> I,
    prelude: Option<Prelude<'_, I, O>>,
) -> Result<Outcome<M, S>, SimBuildError>
where
    I: Copy + fmt::Debug,
    O: Copy + fmt::Debug + PartialEq,
    M: CycleSim<In = I, Out = O>,
{
    let order = o.order();
    assert!(!order.is_empty(), "no back end to run");
    let backends: Vec<String> = order.iter().map(|b| b.name().to_string()).collect();
    let build = |vcd: &dyn Fn(Backend) -> Option<PathBuf>| -> Result<(Option<M>, Boxed<I, O>), SimBuildError> {
        let lock = build_lock(block);
        let _g = lock.lock().unwrap_or_else(|e| e.into_inner());
        let m = order.contains(&Backend::Model).then(&model);
        let others = order.iter().filter(|b| **b != Backend::Model).map(|&b| rtl(b, vcd(b).as_deref())).collect::<Result<Vec<_>, _>>()?;
        Ok((m, others))
    };
    let mut waves = vec![];
    let mut failures = vec![];
    if let Some(v) = o.vcd {
        let path = |b: Backend| (b != Backend::Model).then(|| v.dir.join(format!("{}_{}.vcd", v.stem, b.name())));
        let (mut m, mut others) = build(&path)?;
        waves.extend(order.iter().filter_map(|&b| path(b)));
        let mut sims: Vec<&mut dyn CycleSim<In = I, Out = O>> = m.iter_mut().map(|m| m as &mut dyn CycleSim<In = I, Out = O>).collect();
        sims.extend(others.iter_mut().map(|s| s.as_mut() as &mut dyn CycleSim<In = I, Out = O>));
        if let Some(p) = prelude {
            for s in sims.iter_mut() {
                failures.extend(p(*s));
            }
        }
        let mut s = stim();
        let n = v.cycles.min(o.cycles);
        let r = lockstep_reactive_with_progress(&mut sims, n, |p| next(&mut s, p), |_| {});
        drop(sims);
        drop(others); // closes the waveforms
        if let Err(e) = r {
            return Ok(Outcome { model: None, stim: s, cycles: e.cycle, mismatch: Some(MismatchReport::from(&*e)), backends, waves, prelude: failures });
        }
    } else if let Some(p) = prelude {
        let (mut m, mut others) = build(&|_| None)?;
        if let Some(m) = m.as_mut() {
            failures.extend(p(m));
        }
        for s in others.iter_mut() {
            failures.extend(p(s.as_mut()));
        }
    }
    let (mut m, mut others) = build(&|_| None)?;
    let mut sims: Vec<&mut dyn CycleSim<In = I, Out = O>> = m.iter_mut().map(|m| m as &mut dyn CycleSim<In = I, Out = O>).collect();
    sims.extend(others.iter_mut().map(|s| s.as_mut() as &mut dyn CycleSim<In = I, Out = O>));
    let mut s = stim();
    let progress = |c: u64| {
        if let Some(p) = o.progress {
            p(c)
        }
    };
    let r = lockstep_reactive_with_progress(&mut sims, o.cycles, |p| next(&mut s, p), progress);
    drop(sims);
    Ok(match r {
        Ok(r) => Outcome { model: m, stim: s, cycles: r.cycles, mismatch: None, backends, waves, prelude: failures },
        Err(e) => Outcome { model: None, stim: s, cycles: e.cycle, mismatch: Some(MismatchReport::from(&*e)), backends, waves, prelude: failures },
    })
}

/// The next input of an endless stimulus iterator (the blocks' random stimuli never end).
pub fn endless<I>(it: &mut impl Iterator<Item = I>) -> I {
    it.next().expect("an endless stimulus")
}

impl<M, S> Outcome<M, S> {
    /// The report: `gates` counts from the model and the stimulus, when the model ran and
    /// the back ends agreed.
    pub fn report(self, title: String, seed: u64, gates: impl FnOnce(&mut M, &mut S, u64) -> Vec<Gate>) -> TbReport {
        let Outcome { model, mut stim, cycles, mismatch, backends, waves, prelude } = self;
        let mut notes = prelude;
        let gates = match model {
            Some(mut m) if mismatch.is_none() => gates(&mut m, &mut stim, cycles),
            _ if mismatch.is_some() => vec![],
            _ => {
                notes.push("no coverage counted: the counters are the model back end's, which did not run".into());
                vec![]
            }
        };
        TbReport { title, seed, backends, cycles, gates, mismatch, waves, notes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::crc16::{Crc16ModelSim, Crc16Stimulus};
    use iblink_rtl::crc16::{Crc16In, Crc16Out};

    /// A back end that is wrong on purpose, built here: a CRC unit that ignores `keep` on
    /// partial words. The harness stops at the first clock it differs and the report names
    /// the clock, the field (`crc`), the inputs and each back end's value.
    #[test]
    fn a_wrong_back_end_is_reported_with_its_field() {
        struct IgnoresKeep(Crc16ModelSim);
        impl CycleSim for IgnoresKeep {
            type In = Crc16In;
            type Out = Crc16Out;
            fn backend(&self) -> &str {
                "rtl"
            }
            fn step(&mut self, i: &Crc16In) -> Crc16Out {
                let mut j = *i;
                if j.keep != 0 {
                    j.keep = 0xff;
                }
                self.0.step(&j)
            }
        }
        let o = TbOptions { cycles: 100_000, backends: &[Backend::Model, Backend::Rtl], vcd: None, progress: None };
        let out = run(
            "crc16",
            &o,
            || Crc16ModelSim::new(32),
            |_, _| Ok(Box::new(IgnoresKeep(Crc16ModelSim::new(32))) as Box<dyn CycleSim<In = Crc16In, Out = Crc16Out>>),
            || Crc16Stimulus::new(32, 7),
            |s, _| endless(s),
            None,
        )
        .unwrap();
        let r = out.report("crc16 broken".into(), 7, |_, _, _| vec![Gate::info("x", 1)]);
        let m = r.mismatch.as_ref().expect("a mismatch");
        assert!(r.cycles < 100_000 && r.gates.is_empty());
        assert_eq!(m.backends, ["model", "rtl"]);
        assert_eq!(m.fields.len(), 1, "{m}");
        assert_eq!(m.fields[0].field, "crc", "{m}");
        assert_ne!(m.fields[0].values[0], m.fields[0].values[1]);
        let text = m.to_string();
        assert!(text.contains(&format!("at clock {}", m.cycle)) && text.contains("Crc16In {") && text.contains("output `crc`: model "), "{text}");
    }
}
