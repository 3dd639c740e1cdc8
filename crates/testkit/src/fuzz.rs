//! Seeded fuzzing without a fuzzing engine: a small deterministic RNG, byte and text
//! mutators, the input counts, and a panic catcher that names the seed and the input.
//! Used by `iblink-sim`'s fuzz test (`crates/sim/tests/fuzz/`) and by the command line's
//! unit tests of its argument parsers (`crates/cli/src/cmd/`).
//!
//! * `IBLINK_FUZZ_INPUTS` (default 1,000,000): inputs per byte decoder and argument
//!   parser, and frames per twin (`make soak` runs more).
//! * `IBLINK_FUZZ_TOML_INPUTS` (default 250,000; `make soak` runs 10,000,000): texts per
//!   TOML loader. A text costs the `toml` crate's parse, 10 to 55 µs (a byte decoder's
//!   input takes well under one), so the five loaders are most of this binary's time,
//!   and a quarter of the decoders' count keeps `make test` within its budget.
//! * `IBLINK_FUZZ_SEED`: the base seed (default: each test's own constant). A failing
//!   input is reported with the base seed, its case number and the case seed; the case
//!   seed alone regenerates it (`Rng::new(case_seed)` is what the case drew from).

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Inputs per byte decoder unless `IBLINK_FUZZ_INPUTS` says otherwise.
pub const DEFAULT_INPUTS: u64 = 1_000_000;
/// Texts per TOML loader unless `IBLINK_FUZZ_TOML_INPUTS` says otherwise.
pub const DEFAULT_TOML_INPUTS: u64 = 250_000;

fn count(var: &str, default: u64) -> u64 {
    match std::env::var(var) {
        Ok(s) => s
            .replace(['_', ','], "")
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{var}={s:?} is not a count")),
        Err(_) => default,
    }
}

/// `IBLINK_FUZZ_INPUTS`, or [`DEFAULT_INPUTS`] (`_` and `,` allowed: `10_000_000`).
pub fn inputs() -> u64 {
    count("IBLINK_FUZZ_INPUTS", DEFAULT_INPUTS)
}

/// `IBLINK_FUZZ_TOML_INPUTS`, or [`DEFAULT_TOML_INPUTS`].
pub fn toml_inputs() -> u64 {
    count("IBLINK_FUZZ_TOML_INPUTS", DEFAULT_TOML_INPUTS)
}

/// `IBLINK_FUZZ_SEED` (decimal or 0x-hex), or `default`.
pub fn base_seed(default: u64) -> u64 {
    match std::env::var("IBLINK_FUZZ_SEED") {
        Ok(s) => {
            let t = s.trim();
            match t.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => t.parse(),
            }
            .unwrap_or_else(|_| panic!("IBLINK_FUZZ_SEED={s:?} is not a number"))
        }
        Err(_) => default,
    }
}

/// The seed of case `i` under `base` (SplitMix64 of both: cases are independent).
pub fn case_seed(base: u64, i: u64) -> u64 {
    let mut z = base ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(0x632b_e59b_d9b4_e019);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// xoshiro256** seeded through SplitMix64: fast, deterministic, no dependency.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Self {
            s: [next(), next(), next(), next()],
        }
    }

    #[inline]
    pub fn u64(&mut self) -> u64 {
        let s = &mut self.s;
        let r = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        r
    }

    #[inline]
    pub fn u8(&mut self) -> u8 {
        (self.u64() >> 56) as u8
    }

    /// Uniform in `0..n` (`n > 0`; the bias of a 64-bit multiply-shift is negligible).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((self.u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    #[inline]
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    #[inline]
    pub fn usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// True with probability `num / den`.
    #[inline]
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub fn bool(&mut self) -> bool {
        self.u64() >> 63 == 1
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.usize(xs.len())]
    }

    pub fn fill(&mut self, b: &mut [u8]) {
        for chunk in b.chunks_mut(8) {
            let r = self.u64().to_le_bytes();
            chunk.copy_from_slice(&r[..chunk.len()]);
        }
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }

    /// A length mostly small: `0..=max`, with a bias to short ones.
    pub fn size(&mut self, max: usize) -> usize {
        match self.below(4) {
            0 => self.usize(max + 1),
            _ => self.usize(max.min(32) + 1),
        }
    }
}

/// Byte values that tend to find edges.
const INTERESTING_U8: [u8; 10] = [0, 1, 0x7f, 0x80, 0xff, 0xfe, 0x10, 0x0f, 0x40, 0x64];

/// One random edit of `b`: bit flip, byte set, truncation, extension, insertion,
/// deletion, splice from `donor`, duplication of a run, or swap of two runs.
pub fn mutate_once(rng: &mut Rng, b: &mut Vec<u8>, donor: &[u8]) {
    match rng.below(11) {
        // Flip one bit.
        0 | 1 if !b.is_empty() => {
            let i = rng.usize(b.len());
            b[i] ^= 1 << rng.below(8);
        }
        // Set a byte to a random or an edge value.
        2 if !b.is_empty() => {
            let i = rng.usize(b.len());
            b[i] = if rng.bool() { rng.u8() } else { *rng.pick(&INTERESTING_U8) };
        }
        // Truncate.
        3 if !b.is_empty() => {
            let n = rng.usize(b.len());
            b.truncate(n);
        }
        // Extend with random bytes or zeros.
        4 => {
            let n = rng.range(1, 16) as usize;
            let zero = rng.bool();
            for _ in 0..n {
                let x = if zero { 0 } else { rng.u8() };
                b.push(x);
            }
        }
        // Insert bytes in the middle.
        5 => {
            let at = rng.usize(b.len() + 1);
            let n = rng.range(1, 8) as usize;
            let ins = rng.bytes(n);
            b.splice(at..at, ins);
        }
        // Delete a run.
        6 if !b.is_empty() => {
            let at = rng.usize(b.len());
            let n = (rng.range(1, 8) as usize).min(b.len() - at);
            b.drain(at..at + n);
        }
        // Splice: our head, the donor's tail (or a donor run over ours).
        7 if !donor.is_empty() => {
            let at = rng.usize(b.len() + 1);
            let from = rng.usize(donor.len());
            if rng.bool() {
                b.truncate(at);
                b.extend_from_slice(&donor[from..]);
            } else {
                let n = (rng.range(1, 16) as usize).min(donor.len() - from);
                let end = (at + n).min(b.len());
                b.splice(at..end, donor[from..from + n].iter().copied());
            }
        }
        // Duplicate a run.
        8 if !b.is_empty() => {
            let at = rng.usize(b.len());
            let n = (rng.range(1, 16) as usize).min(b.len() - at);
            let run: Vec<u8> = b[at..at + n].to_vec();
            let to = rng.usize(b.len() + 1);
            b.splice(to..to, run);
        }
        // Swap two bytes.
        9 if b.len() >= 2 => {
            let (i, j) = (rng.usize(b.len()), rng.usize(b.len()));
            b.swap(i, j);
        }
        // Several bit flips in one place (a burst).
        _ if !b.is_empty() => {
            let i = rng.usize(b.len());
            b[i] ^= rng.u8() | 1;
        }
        _ => b.push(rng.u8()),
    }
}

/// One to `max_edits` random edits.
pub fn mutate(rng: &mut Rng, b: &mut Vec<u8>, donor: &[u8], max_edits: u64) {
    for _ in 0..rng.range(1, max_edits) {
        mutate_once(rng, b, donor);
    }
}

/// Numbers that break ranges and types, as TOML spells them.
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "-0",
    "255",
    "256",
    "4095",
    "4096",
    "65535",
    "65536",
    "65537",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "99999999999999999999999",
    "1.5",
    "0.5",
    "-0.5",
    "1e308",
    "1e309",
    "-1e309",
    "inf",
    "-inf",
    "nan",
    "+inf",
    "0x10",
    "0o17",
    "0b101",
    "1_000",
    "1e3",
    "5e-324",
    "\"1\"",
    "true",
    "false",
    "[]",
    "[1]",
    "[[1, 2]]",
    "{}",
    "[[6, 127], [1, 63], [7, 254]]",
    "[[0, 256]]",
    "[[16, 1]]",
    "[[-1, 1]]",
    "[[1, 2, 3]]",
    "{ uniform = [6, 80] }",
    "{ uniform = [80, 6] }",
    "{ uniform = [] }",
    "1979-05-27T07:32:00Z",
    "\"weight\"",
    "\"one-packet\"",
    "\"a_to_b\"",
    "\"both\"",
    "\"\"",
    "'\\'",
    "[0, 1, 2, 3, 4]",
    "[15]",
    "[1, \"x\"]",
];

/// Keys and headers worth trying in any of the loaders.
const KEYS: &[&str] = &[
    "vl_cap",
    "datapath_bits",
    "buffer_blocks",
    "refresh_symbols",
    "min_fcp_gap",
    "vl_high_limit",
    "low_policy",
    "high",
    "low",
    "update_monitor_periods",
    "overrun_periods",
    "vl15_buffer_packets",
    "name",
    "cycles",
    "seed",
    "activate_after",
    "arm_clocks",
    "sample_every",
    "sl2vl",
    "latency_clocks",
    "fcp_loss",
    "data_loss",
    "bit_flip",
    "from",
    "to",
    "suppress_fcps",
    "at",
    "sl",
    "pktlen",
    "load",
    "direction",
    "queue_limit",
    "rate",
    "vl15_every",
    "side",
    "vls",
    "vl",
    "pktlen_dwords",
    "uniform",
    "bogus",
    "port",
    "channel",
    "drain",
    "queue",
    "traffic",
    "fault",
    "resync",
    "stall",
];

const HEADERS: &[&str] = &[
    "[port]",
    "[channel]",
    "[drain]",
    "[[traffic]]",
    "[[fault]]",
    "[[resync]]",
    "[[drain.stall]]",
    "[[queue]]",
    "[bogus]",
    "[[port]]",
    "[port.high]",
    "[drain.rate]",
    "[[channel]]",
    "[traffic]",
    "[queue]",
    "[[sl2vl]]",
];

/// Replace the `k`-th number-looking run (digits, sign, dot, exponent) of `line`.
fn replace_number(rng: &mut Rng, line: &str) -> Option<String> {
    let b = line.as_bytes();
    let mut runs = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut s = i;
            if s > 0 && (b[s - 1] == b'-' || b[s - 1] == b'+') {
                s -= 1;
            }
            let mut e = i;
            while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'.' || b[e] == b'_') {
                e += 1;
            }
            runs.push((s, e));
            i = e;
        } else {
            i += 1;
        }
    }
    if runs.is_empty() {
        return None;
    }
    let (s, e) = *rng.pick(&runs);
    let with = if rng.chance(1, 4) {
        let n = rng.u64() as i64;
        match rng.below(3) {
            0 => n.to_string(),
            1 => (n >> rng.below(64)).to_string(),
            _ => format!("{}", (n >> 40) as f64 / 7.0),
        }
    } else {
        rng.pick(NUMBERS).to_string()
    };
    Some(format!("{}{}{}", &line[..s], with, &line[e..]))
}

/// One random edit of TOML text: delete, duplicate or swap lines, change a number to a
/// huge, negative, float or non-number value, add a random key or table header, cut
/// the text, or damage its bytes (the result is kept as lossy UTF-8).
pub fn mutate_toml_once(rng: &mut Rng, text: &str, donor: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let n = lines.len();
    match rng.below(12) {
        0 if n > 0 => {
            lines.remove(rng.usize(n));
        }
        1 if n > 0 => {
            let i = rng.usize(n);
            let l = lines[i].clone();
            lines.insert(rng.usize(n + 1), l);
        }
        2 if n > 1 => {
            let (i, j) = (rng.usize(n), rng.usize(n));
            lines.swap(i, j);
        }
        3..=5 if n > 0 => {
            // Change a number (a few tries to find a line that has one).
            for _ in 0..8 {
                let i = rng.usize(n);
                if let Some(l) = replace_number(rng, &lines[i]) {
                    lines[i] = l;
                    break;
                }
            }
        }
        6 => {
            let key = *rng.pick(KEYS);
            let val = *rng.pick(NUMBERS);
            let at = rng.usize(n + 1);
            lines.insert(at, format!("{key} = {val}"));
        }
        7 => {
            let at = rng.usize(n + 1);
            lines.insert(at, rng.pick(HEADERS).to_string());
        }
        8 if n > 0 => {
            // Replace a value wholesale (keep the key).
            let i = rng.usize(n);
            if let Some((k, _)) = lines[i].split_once('=') {
                lines[i] = format!("{k}= {}", rng.pick(NUMBERS));
            }
        }
        9 => {
            // A line from another file.
            let d: Vec<&str> = donor.lines().collect();
            if !d.is_empty() {
                let l = rng.pick(&d).to_string();
                lines.insert(rng.usize(n + 1), l);
            }
        }
        10 => {
            // Byte damage.
            let mut b = text.as_bytes().to_vec();
            mutate(rng, &mut b, donor.as_bytes(), 4);
            return String::from_utf8_lossy(&b).into_owned();
        }
        _ => {
            // A random key of random characters.
            let len = rng.range(1, 12) as usize;
            let key: String = (0..len).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
            lines.insert(rng.usize(n + 1), format!("{key} = {}", rng.pick(NUMBERS)));
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// One to `max_edits` TOML edits.
pub fn mutate_toml(rng: &mut Rng, text: &str, donor: &str, max_edits: u64) -> String {
    let mut t = text.to_string();
    for _ in 0..rng.range(1, max_edits) {
        t = mutate_toml_once(rng, &t, donor);
    }
    t
}

/// Run one case; a panic inside is re-raised naming the test, seeds, case and input.
pub fn run_case<R>(test: &str, base: u64, case: u64, input: impl FnOnce() -> String, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!(
                "{test}: panic on case {case} (IBLINK_FUZZ_SEED={base:#x}, case seed {:#x}): {msg}\ninput: {}",
                case_seed(base, case),
                input()
            )
        }
    }
}

/// Bytes as hex, for failure messages.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ")
}

/// A `(what, count)` coverage table must show every entry at least `min` times.
pub fn coverage(test: &str, min: u64, counts: &[(&str, u64)]) {
    eprintln!("{test}: {counts:?}");
    for (what, n) in counts {
        assert!(
            *n >= min,
            "{test}: only {n} inputs were {what} (want >= {min}): the fuzzer lost coverage"
        );
    }
}
