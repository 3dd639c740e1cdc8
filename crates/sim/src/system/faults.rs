//! The channel's fault draws, keyed by what an item *is* rather than by the order the
//! run happens to draw in, so that the RTL run ([`super::run`]) and the reference model
//! run ([`super::model_run`]) of one scenario see the same faults on the same items.
//!
//! With one random stream per run, the first item whose timing differs between the two
//! runs (the RTL's pipelines against the model's whole items) shifts every later draw:
//! the two runs then see independent faults, and under heavy FCP loss their figures
//! differ by whatever the luck of the draws was. One lost FCP for a VL that has stopped
//! on credit leaves it stopped until its next refresh FCP, thousands of clocks later; a
//! few lost in a row trip the update monitor and retrain the link. With independent draws
//! those events fall differently in each run.
//!
//! Each item's fate comes from a hash of the scenario's seed and the item's key:
//! - a data or VL15 packet: its direction, its generator and its number in that
//!   generator's sequence ([`super::traffic::Generator::made`]): the same packet in both
//!   runs;
//! - an FCP: its direction, and its Op, VL and FCCL with the number of FCPs of that
//!   direction that carried the same three before it in the run. FCCL is `capacity +
//!   blocks drained` (mod 4096) on that VL since the last link init, which runs through
//!   the same values in both runs, and an FCP sent while a VL waits for credit carries the
//!   same FCCL in both; so the refresh FCPs that could free it get the same fates in both
//!   runs. (FCTBS, the other half of the FCP, follows the reverse traffic's timing and is
//!   left out of the key.) The count is not restarted at a retrain: every retrain sends
//!   the same init FCPs (Op 1, FCCL = capacity), and restarting would give them the same
//!   fates at every retrain, so one lost init FCP would retrain the link for ever.
//!
//! A fate compares uniform draws with the probabilities in force at the item's first
//! clock in that run (`loss`, then `flip`), so a fault window's edge may fall between the
//! two runs' clocks for an item; the flipped bit is drawn uniformly over the item.

use super::Fate;
use std::collections::HashMap;

/// Per run: the seed and, per direction, how often each (Op, VL, FCCL) was sent.
#[derive(Clone, Debug)]
pub struct FaultDraws {
    seed: u64,
    fcp_seen: [HashMap<u32, u32>; 2],
}

const DATA: u64 = 1;
const FCP: u64 = 2;

/// SplitMix64's finaliser: a well-mixed 64-bit value from any 64-bit input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FaultDraws {
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            fcp_seen: [HashMap::new(), HashMap::new()],
        }
    }

    /// Three independent draws for one key: two uniform in [0, 1) and a bit index.
    fn draws(&self, kind: u64, dir: usize, a: u64, b: u64) -> (f64, f64, u64) {
        let mut h = mix(self.seed ^ mix(kind << 1 | dir as u64));
        h = mix(h ^ a);
        h = mix(h ^ b.rotate_left(32));
        let u = |x: u64| (x >> 11) as f64 / (1u64 << 53) as f64;
        let (h1, h2, h3) = (mix(h ^ 1), mix(h ^ 2), mix(h ^ 3));
        (u(h1), u(h2), h3)
    }

    fn fate((lose, flip, bit): (f64, f64, u64), loss: f64, p_flip: f64, bits: u64) -> (Fate, u64) {
        if loss > 0.0 && lose < loss {
            (Fate::Lost, 0)
        } else if p_flip > 0.0 && flip < p_flip {
            (Fate::Flipped, bit % bits.max(1))
        } else {
            (Fate::Delivered, 0)
        }
    }

    /// The fate of data (or VL15) packet number `k` of generator `generator`, sent in
    /// direction `dir` (0: A→B), `bits` long on the wire.
    pub fn data(&self, dir: usize, generator: usize, k: u64, loss: f64, flip: f64, bits: u64) -> (Fate, u64) {
        Self::fate(self.draws(DATA, dir, generator as u64, k), loss, flip, bits)
    }

    /// The fate of an FCP sent in direction `dir`, from its first four bytes (the
    /// header: Op, FCTBS, VL, FCCL; docs/spec.md §2). Counts the FCP for its key.
    pub fn fcp(&mut self, dir: usize, header: [u8; 4], loss: f64, flip: f64) -> (Fate, u64) {
        let op = (header[0] >> 4) as u32;
        let vl = (header[2] >> 4) as u32;
        let fccl = ((header[2] as u32 & 0xf) << 8) | header[3] as u32;
        let key = op << 16 | vl << 12 | fccl;
        let n = self.fcp_seen[dir].entry(key).or_insert(0);
        let k = *n as u64;
        *n += 1;
        Self::fate(self.draws(FCP, dir, key as u64, k), loss, flip, 48)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_fate_and_rates_hold() {
        let d = FaultDraws::new(5);
        // The same packet gets the same fate whenever it is drawn.
        for k in 0..100 {
            assert_eq!(d.data(0, 2, k, 0.3, 0.3, 800), d.data(0, 2, k, 0.3, 0.3, 800));
        }
        // Rates: over many keys the loss and flip fractions are the probabilities.
        let n = 200_000u64;
        let (mut lost, mut flipped) = (0u64, 0u64);
        for k in 0..n {
            match d.data(1, 0, k, 0.25, 0.1, 800).0 {
                Fate::Lost => lost += 1,
                Fate::Flipped => flipped += 1,
                Fate::Delivered => {}
            }
        }
        let (l, f) = (lost as f64 / n as f64, flipped as f64 / n as f64);
        assert!((l - 0.25).abs() < 0.005, "{l}");
        // Flipped among the not lost: 0.75 * 0.1.
        assert!((f - 0.075).abs() < 0.005, "{f}");
    }

    #[test]
    fn fcps_repeat_their_sequence_per_key() {
        let mut a = FaultDraws::new(9);
        let mut b = FaultDraws::new(9);
        let h = |vl: u8, fccl: u16| [0x00, 0x12, vl << 4 | (fccl >> 8) as u8, fccl as u8];
        // Interleaved differently with other keys, each key's n-th FCP has one fate.
        let fa: Vec<_> = (0..50).map(|_| a.fcp(0, h(1, 300), 0.5, 0.0)).collect();
        let mut fb = vec![];
        for _ in 0..50 {
            b.fcp(0, h(2, 300), 0.5, 0.0);
            fb.push(b.fcp(0, h(1, 300), 0.5, 0.0));
        }
        assert_eq!(fa, fb);
        assert!(fa.iter().any(|f| f.0 == Fate::Lost) && fa.iter().any(|f| f.0 == Fate::Delivered));
        // The other direction draws its own.
        let other: Vec<_> = (0..50).map(|_| a.fcp(1, h(1, 300), 0.5, 0.0)).collect();
        assert_ne!(fa, other);
        // The key's next FCPs go on with new draws (no sequence repeats).
        let next: Vec<_> = (0..50).map(|_| a.fcp(0, h(1, 300), 0.5, 0.0)).collect();
        assert_ne!(fa, next);
    }
}
