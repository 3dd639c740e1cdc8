//! Pipelined CRC-16 over whole dwords, 32 bits a clock: the link path's VCRC and LPCRC
//! unit (docs/spec.md §3), built for clock rate.
//!
//! Same CRC as [`crate::crc16`] (polynomial 0x100B, init 0xFFFF, reflected, final XOR
//! 0xFFFF, sent low byte first). In this folder: the Verilog module
//! `iblink_crc16_dword.v`, and here the generated XOR networks module
//! `iblink_crc16_dword_xor` ([`xor_module_body`]), the Rust cycle twin
//! [`Crc16DwordTwin`], the rust-hdl block [`Crc16DwordW32`] (ports, emission) and the
//! port binding. Reference model: `iblink_model::crc16` (the `crc` crate) in a cycle
//! adapter, `iblink_sim::blocks::crc16_dword`; lockstep of model, twin and Verilator:
//! `crates/sim/tests/lockstep/crc16_dword.rs` (the adapter: `crates/sim/src/blocks/crc16_dword.rs`).
//!
//! # Why a second CRC unit
//! On the link every CRC input is whole dwords: a data packet's VCRC covers `PktLen * 4`
//! bytes and an FCP's LPCRC its first 4 bytes (docs/spec.md §2, §3). The general unit
//! ([`crate::crc16::Crc16W32`]) also takes 1–3-byte words (`keep`) and restarts in the
//! clock of `start`: four XOR trees and a select. This unit drops both and is
//! pipelined, so it is about a third of the logic at nearly twice the clock rate
//! (figures: `docs/synthesis-history.md`). The general unit stays for byte-granular
//! users (the board self-test).
//!
//! # Interface
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: drops the words in flight, clears `crc_valid`; the next packet starts from the init value |
//! | `start` | in | with `valid`: this word begins a packet (a packet in progress is abandoned) |
//! | `valid` | in | `data` carries a dword |
//! | `last` | in | with `valid`: this word ends the packet |
//! | `data` | in | 32 bits, 4 bytes: byte `i` is `data[8i+7:8i]`, byte 0 first on the wire |
//! | `crc` | out | the CRC of the latest packet to leave the pipeline (wire order: `crc[7:0]` first) |
//! | `crc_valid` | out | one clock: `crc` is a new packet's CRC |
//!
//! After a `last` the unit restarts by itself, so back-to-back packets need neither an
//! idle clock nor `start`; `start` is for abandoning a packet.
//!
//! # Cycle contract
//! - A word presented in clock `t` is absorbed at the end of clock `t + 2`; for a `last`
//!   word, `crc` and `crc_valid` show during clock `t + 3` (latency 3; the general unit's
//!   is 1). One word a clock, back to back, with any `valid = 0` gaps.
//! - `reset` in clock `r` drops the words presented in `r` and `r - 1`. A `last` word
//!   presented in `r - 2` still loads `crc` at the end of `r`, but `crc_valid` stays 0
//!   (`reset` clears it); `reset` does not clear `crc` otherwise.
//! - Registered: everything. `y` (stage 1), `e`/`e_crc` (stage 2), `acc` (the running
//!   CRC), `crc`, `crc_valid`, and the control flags `valid_1`, `last_1`, `last_2`,
//!   `acc_en`, `acc_clr` (the last four also as `*_hi` copies for the high bytes).
//!
//! # How
//! Absorbing 4 bytes is linear: with `acc` = the complemented LFSR register (the CRC of
//! the bytes so far, 0 at the init value), `acc' = A32·acc ⊕ A16·(A16·d_lo ⊕ d_hi) ⊕ K`,
//! where `An` is the register's map after `n` bits, `d_lo`/`d_hi` the word's low and high
//! 16 bits, and `K = A32·FFFFh ⊕ FFFFh` folds init and final XOR into a constant.
//! - The data part is computed ahead, in two pipeline stages of one 16-bit step each
//!   (`y = A16·d_lo ⊕ d_hi`, then `e = A16·y ⊕ K`): only `acc' = A32·acc ⊕ e` is in the loop.
//! - Each XOR map is a two-level network of 4-input XORs (one LUT4 each) with common
//!   subexpressions shared between output bits, found at generation time
//!   ([`XorNet::build`]) and written as the generated module; the level-1 XORs are
//!   `(* keep *)` wires so synthesis keeps that depth (left alone, ABC maps the loop
//!   three LUTs deep).
//! - `start` does not touch the loop: it clears `acc` one clock ahead (while its word is
//!   in stage 1), through the flip-flops' clear, as `last` does after the last word.
//!   `acc_en`/`acc_clr` drive the enable and clear pins straight from flip-flops, each
//!   copy for one byte: a net driving more than 15 enables or clears is moved onto a
//!   global buffer by nextpnr-ice40, a detour from a flip-flop placed far from it.
//! - `crc` loads from its own level-2 XORs fed by `e_crc`, a copy of `e` loaded only for
//!   last words: equal to `e` whenever `crc` loads, but not mergeable with it. With one
//!   XOR per bit driving both `acc` and `crc`, neither flip-flop can share a logic cell
//!   with it and every loop path gets an extra routing hop.

use crate::crc16::{Crc16Equations, Crc16Out, INIT, XOROUT};
use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// Bits per clock (one dword).
pub const WIDTH: usize = 32;
/// Clocks from a `last` word to its `crc_valid`.
pub const LATENCY: usize = 3;

/// The linear maps the unit uses, from [`Crc16Equations`]: row `j` is the mask of
/// register bits whose XOR is bit `j` after `n` data bits (the data enters XORed into
/// the register's low bits, so the same masks apply to the data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Maps {
    /// After 16 bits.
    pub a16: [u16; 16],
    /// After 32 bits.
    pub a32: [u16; 16],
    /// `A32·FFFFh ⊕ FFFFh`: init and final XOR folded into the data term.
    pub k: u16,
}

impl Maps {
    pub fn derive() -> Self {
        let eq = Crc16Equations::derive(4);
        let a16 = std::array::from_fn(|j| eq.term(2, j).state_mask);
        let a32 = std::array::from_fn(|j| eq.term(4, j).state_mask);
        let k = apply(&a32, INIT) ^ XOROUT;
        Self { a16, a32, k }
    }

    /// Stage 1: `y = A16·d_lo ⊕ d_hi`.
    #[inline]
    pub fn y(&self, data: u32) -> u16 {
        apply(&self.a16, data as u16) ^ (data >> 16) as u16
    }

    /// Stage 2: `e = A16·y ⊕ K`.
    #[inline]
    pub fn e(&self, y: u16) -> u16 {
        apply(&self.a16, y) ^ self.k
    }

    /// The loop: `acc' = A32·acc ⊕ e`.
    #[inline]
    pub fn absorb(&self, acc: u16, e: u16) -> u16 {
        apply(&self.a32, acc) ^ e
    }
}

/// `M·x` over GF(2): bit `j` is the parity of `rows[j] & x`.
#[inline]
pub fn apply(rows: &[u16; 16], x: u16) -> u16 {
    rows.iter()
        .enumerate()
        .fold(0, |acc, (j, r)| acc | (((r & x).count_ones() & 1) as u16) << j)
}

/// One input of a level-2 XOR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// A shared level-1 XOR ([`XorNet::shared`]).
    Shared(usize),
    /// A level-1 XOR private to the row ([`XorNet::private`]).
    Private(usize),
    /// A source bit, directly.
    Src(u8),
    /// The row's own extra input (for example `e[j]` in the loop).
    Extra,
}

/// A row's private level-1 XOR: some source bits, and maybe the row's extra input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrivateXor {
    pub row: usize,
    pub src: u16,
    pub extra: bool,
}

/// A two-level network of XORs of at most four inputs for 16 outputs: output `j` is the
/// XOR of the source bits in `rows[j]` (and of its own extra input, when there is one).
/// Level 1 holds XORs of source bits, some shared by several outputs; level 2 is one
/// XOR of at most four items per output. Every path is two LUT4s deep at most.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XorNet {
    pub rows: [u16; 16],
    pub extra: bool,
    pub shared: Vec<u16>,
    pub private: Vec<PrivateXor>,
    /// Level-2 items of each output.
    pub items: Vec<Vec<Item>>,
}

/// Which level-1 XORs [`XorNet::declare`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declare {
    All,
    WithExtra,
}

/// A row that cannot be finished within four level-2 items.
const INFEASIBLE: u32 = 1000;

/// Level-1 XORs a row still needs for `rem` source bits (plus its extra input) when
/// `used` of its four level-2 items are taken: each private XOR turns up to four raw
/// inputs into one item.
fn private_cost(rem: u16, used: u32, extra: bool) -> u32 {
    let raw = rem.count_ones() + extra as u32;
    let slots = 4 - used;
    if raw <= slots {
        return 0;
    }
    let p = (raw - slots).div_ceil(3);
    if p > slots {
        INFEASIBLE
    } else {
        p
    }
}

/// A small deterministic generator for the search's tie-breaking (the network must be
/// the same on every run: it is in the emitted Verilog).
struct XorShift(u64);

impl XorShift {
    fn next_unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl XorNet {
    /// Search for a network with few level-1 XORs: greedily share the 2-, 3- or 4-bit
    /// subset that, given to every output containing it, lowers the total most (shared
    /// XORs plus the private ones the outputs still need); `tries - 1` more passes break
    /// near-ties at random, and the best pass wins.
    pub fn build(rows: [u16; 16], extra: bool, tries: usize) -> Self {
        let mut cands: Vec<u16> = Vec::new();
        for r in rows {
            let bits: Vec<u16> = (0..16).filter(|i| r >> i & 1 == 1).map(|i| 1u16 << i).collect();
            let n = bits.len();
            for a in 0..n {
                for b in a + 1..n {
                    cands.push(bits[a] | bits[b]);
                    for c in b + 1..n {
                        cands.push(bits[a] | bits[b] | bits[c]);
                        for d in c + 1..n {
                            cands.push(bits[a] | bits[b] | bits[c] | bits[d]);
                        }
                    }
                }
            }
        }
        cands.sort_unstable();
        cands.dedup();
        let total = |rem: &[u16; 16], used: &[u32; 16], shared: usize| -> u32 {
            shared as u32 + (0..16).map(|j| private_cost(rem[j], used[j], extra)).sum::<u32>()
        };
        let mut rng = XorShift(0x1b11_c0de_5eed_0001);
        #[allow(clippy::type_complexity)] // (cost, shared, rem, used) of the best pass
        let mut best: Option<(u32, Vec<u16>, [u16; 16], [u32; 16])> = None;
        for t in 0..tries.max(1) {
            let mut rem = rows;
            let mut used = [0u32; 16];
            let mut shared: Vec<u16> = Vec::new();
            let mut cur = total(&rem, &used, 0);
            loop {
                let mut pick: Option<(f64, u32, u16)> = None;
                for &c in &cands {
                    let users = (0..16).filter(|&j| rem[j] & c == c && used[j] < 4).count();
                    if users < 2 {
                        continue;
                    }
                    let mut r2 = rem;
                    let mut u2 = used;
                    for j in 0..16 {
                        if r2[j] & c == c && u2[j] < 4 {
                            r2[j] &= !c;
                            u2[j] += 1;
                        }
                    }
                    let cost = total(&r2, &u2, shared.len() + 1);
                    let noise = if t == 0 { 0.0 } else { rng.next_unit() * 0.99 };
                    let key = cost as f64 + noise;
                    if pick.is_none_or(|p| key < p.0) {
                        pick = Some((key, cost, c));
                    }
                }
                let Some((_, cost, c)) = pick else { break };
                if cost >= cur {
                    break;
                }
                cur = cost;
                shared.push(c);
                for j in 0..16 {
                    if rem[j] & c == c && used[j] < 4 {
                        rem[j] &= !c;
                        used[j] += 1;
                    }
                }
            }
            if best.as_ref().is_none_or(|b| cur < b.0) {
                best = Some((cur, shared, rem, used));
            }
        }
        let (cost, shared, rem, _) = best.expect("at least one pass");
        assert!(cost < INFEASIBLE, "no two-level network for these rows");
        // Which shared XORs each output uses: replay the greedy assignment.
        let mut items: Vec<Vec<Item>> = vec![Vec::new(); 16];
        let mut left = rows;
        for (k, &c) in shared.iter().enumerate() {
            for j in 0..16 {
                if left[j] & c == c && items[j].len() < 4 {
                    left[j] &= !c;
                    items[j].push(Item::Shared(k));
                }
            }
        }
        debug_assert_eq!(left, rem);
        // The rest of each output: private level-1 XORs of source bits first; the extra
        // input joins one only when every item slot is taken (it stays a direct input
        // otherwise, which keeps the duplicate network for `crc` small).
        let mut private = Vec::new();
        for j in 0..16 {
            let mut raw: Vec<Item> = (0..16u8).filter(|i| left[j] >> i & 1 == 1).map(Item::Src).collect();
            if extra {
                raw.push(Item::Extra);
            }
            let slots = 4 - items[j].len();
            let p = if raw.len() <= slots { 0 } else { (raw.len() - slots).div_ceil(3) };
            let grouped = raw.len().saturating_sub(slots - p);
            for chunk in raw[..grouped].chunks(4) {
                let mut g = PrivateXor { row: j, src: 0, extra: false };
                for it in chunk {
                    match it {
                        Item::Src(i) => g.src |= 1 << i,
                        Item::Extra => g.extra = true,
                        _ => unreachable!(),
                    }
                }
                items[j].push(Item::Private(private.len()));
                private.push(g);
            }
            items[j].extend_from_slice(&raw[grouped..]);
            assert!(items[j].len() <= 4, "row {j}: {} level-2 items", items[j].len());
        }
        Self { rows, extra, shared, private, items }
    }

    /// Evaluate the network (not the rows): what the emitted Verilog computes.
    pub fn eval(&self, src: u16, extra: u16) -> u16 {
        let parity = |m: u16| (m & src).count_ones() & 1 == 1;
        let mut out = 0u16;
        for (j, its) in self.items.iter().enumerate() {
            let mut b = false;
            for it in its {
                b ^= match *it {
                    Item::Shared(k) => parity(self.shared[k]),
                    Item::Private(p) => parity(self.private[p].src) ^ (self.private[p].extra && extra >> j & 1 == 1),
                    Item::Src(i) => src >> i & 1 == 1,
                    Item::Extra => extra >> j & 1 == 1,
                };
            }
            out |= (b as u16) << j;
        }
        out
    }

    /// LUT4s the network maps to: its level-1 XORs, and one per output with more than
    /// one item.
    pub fn luts(&self) -> usize {
        self.shared.len() + self.private.len() + self.items.iter().filter(|i| i.len() > 1).count()
    }

    fn xor_of(src: &str, mask: u16, extra: Option<String>) -> String {
        let mut t: Vec<String> = (0..16).filter(|i| mask >> i & 1 == 1).map(|i| format!("{src}[{i}]")).collect();
        t.extend(extra);
        t.join(" ^ ")
    }

    /// Declare level-1 XORs as `(* keep *)` wires named `<prefix>_s<k>` (shared) and
    /// `<prefix>_p<j>_<q>` (private), over the vector `src` and, per output `j`,
    /// `extra[j]`: all of them, or only the private XORs that take the extra input (for
    /// a second network that shares the rest).
    pub fn declare(&self, v: &mut String, prefix: &str, src: &str, extra: &str, which: Declare) {
        if which == Declare::All {
            for (k, &m) in self.shared.iter().enumerate() {
                let _ = writeln!(v, "(* keep *) wire {prefix}_s{k} = {};", Self::xor_of(src, m, None));
            }
        }
        for (p, g) in self.private.iter().enumerate() {
            if which == Declare::WithExtra && !g.extra {
                continue;
            }
            let x = g.extra.then(|| format!("{extra}[{}]", g.row));
            let _ = writeln!(v, "(* keep *) wire {} = {};", self.private_name(prefix, p), Self::xor_of(src, g.src, x));
        }
    }

    fn private_name(&self, prefix: &str, p: usize) -> String {
        let g = self.private[p];
        let q = self.private[..p].iter().filter(|h| h.row == g.row).count();
        format!("{prefix}_p{}_{q}", g.row)
    }

    /// The level-2 XOR of output `j`: shared XORs named with `prefix`, private ones with
    /// `prefix` (or `extra_prefix` for those that take the extra input), `extra[j]`.
    pub fn output(&self, j: usize, prefix: &str, extra_prefix: &str, src: &str, extra: &str) -> String {
        let t: Vec<String> = self.items[j]
            .iter()
            .map(|it| match *it {
                Item::Shared(k) => format!("{prefix}_s{k}"),
                Item::Private(p) => {
                    let pre = if self.private[p].extra { extra_prefix } else { prefix };
                    self.private_name(pre, p)
                }
                Item::Src(i) => format!("{src}[{i}]"),
                Item::Extra => format!("{extra}[{j}]"),
            })
            .collect();
        t.join(" ^ ")
    }
}

/// The three networks of the unit, built once per process (the search takes a moment).
pub struct Networks {
    pub maps: Maps,
    /// `y = A16·data_lo ⊕ data_hi`.
    pub y: XorNet,
    /// `e = A16·y` (K is applied as inversions at level 2).
    pub e: XorNet,
    /// `acc' = A32·acc ⊕ e`.
    pub acc: XorNet,
}

/// Passes of the network search (see [`XorNet::build`]).
pub const SEARCH_TRIES: usize = 30;

pub fn networks() -> &'static Networks {
    static NETS: OnceLock<Networks> = OnceLock::new();
    NETS.get_or_init(|| {
        let maps = Maps::derive();
        Networks {
            maps,
            y: XorNet::build(maps.a16, true, SEARCH_TRIES),
            e: XorNet::build(maps.a16, false, SEARCH_TRIES),
            acc: XorNet::build(maps.a32, true, SEARCH_TRIES),
        }
    })
}

/// The registers of `iblink_crc16_dword` (the `*_hi` copies left out: they always equal
/// the flags they copy).
#[derive(Clone, Copy, Debug, Default)]
pub struct DwordRegs {
    /// Stage 1: `A16·data_lo ⊕ data_hi` of the previous clock's word.
    pub y: u16,
    /// Stage 2: the data term of the word two clocks back.
    pub e: u16,
    /// `e` of the latest last word (loaded with `e` when `last_1`), for the `crc` network.
    pub e_crc: u16,
    /// The running CRC: the complemented LFSR register, 0 at the init value.
    pub acc: u16,
    pub valid_1: bool,
    pub last_1: bool,
    pub last_2: bool,
    /// `acc`'s enable and clear for this clock.
    pub acc_en: bool,
    pub acc_clr: bool,
    /// The outputs.
    pub crc: u16,
    pub crc_valid: bool,
}

/// A 16-bit linear map as two byte tables: `M·x = lo[x & 0xff] ⊕ hi[x >> 8]`.
#[derive(Clone, Debug)]
struct ByteMap {
    lo: [u16; 256],
    hi: [u16; 256],
}

impl ByteMap {
    fn new(rows: &[u16; 16]) -> Self {
        Self {
            lo: std::array::from_fn(|v| apply(rows, v as u16)),
            hi: std::array::from_fn(|v| apply(rows, (v as u16) << 8)),
        }
    }
    #[inline]
    fn apply(&self, x: u16) -> u16 {
        self.lo[(x & 0xff) as usize] ^ self.hi[(x >> 8) as usize]
    }
}

/// The Rust cycle twin of `iblink_crc16_dword`: its registers, and the maps as byte
/// tables.
#[derive(Clone, Debug)]
pub struct Crc16DwordTwin {
    a16: ByteMap,
    a32: ByteMap,
    k: u16,
    regs: DwordRegs,
}

impl Default for Crc16DwordTwin {
    fn default() -> Self {
        Self::new()
    }
}

impl Crc16DwordTwin {
    pub fn new() -> Self {
        let m = Maps::derive();
        Self {
            a16: ByteMap::new(&m.a16),
            a32: ByteMap::new(&m.a32),
            k: m.k,
            regs: DwordRegs::default(),
        }
    }
    pub fn regs(&self) -> &DwordRegs {
        &self.regs
    }
}

impl Twin for Crc16DwordTwin {
    type In = Crc16DwordIn;
    type Out = Crc16Out;

    #[inline]
    fn eval(&self, _i: &Crc16DwordIn) -> Crc16Out {
        Crc16Out {
            crc: self.regs.crc,
            crc_valid: self.regs.crc_valid,
        }
    }

    #[inline]
    fn tick(&mut self, i: &Crc16DwordIn) {
        let r = self.regs;
        let n = &mut self.regs;
        // The datapath registers load whatever the control says, reset or not.
        n.y = self.a16.apply(i.data as u16) ^ (i.data >> 16) as u16;
        n.e = self.a16.apply(r.y) ^ self.k;
        if r.last_1 {
            n.e_crc = n.e;
        }
        if r.acc_en {
            n.acc = if r.acc_clr { 0 } else { self.a32.apply(r.acc) ^ r.e };
        }
        if r.last_2 {
            n.crc = self.a32.apply(r.acc) ^ r.e_crc;
        }
        n.crc_valid = r.last_2 && !i.reset;
        n.valid_1 = i.valid && !i.reset;
        n.last_1 = i.valid && i.last && !i.reset;
        n.last_2 = r.last_1 && !i.reset;
        n.acc_en = i.reset || (i.valid && i.start) || r.valid_1;
        n.acc_clr = i.reset || (i.valid && i.start) || r.last_1;
    }
}

crate::hdl_block! {
    /// The pipelined dword CRC unit for rust-hdl, 32 bits a clock: its ports, and its
    /// behaviour through the twin.
    pub struct Crc16DwordW32<> {
        twin: Crc16DwordTwin,
    }
    check: true;
    default: Self::with_twin(Crc16DwordTwin::new());
    hdl: |u| rust_hdl_wrapper(u, SOURCE.module, &[], &format!("{}{}", SOURCE.text, xor_module_body(networks())));
    ports(i: Crc16DwordIn, o: Crc16Out) {
        reset: in Bit = i.reset;
        start: in Bit = i.start;
        valid: in Bit = i.valid;
        last: in Bit = i.last;
        data: in Bits<32> = i.data;
        crc: out Bits<16> = o.crc;
        crc_valid: out Bit = o.crc_valid;
    }
}

/// The generated module: the unit's three XOR networks.
pub const XOR_MODULE: &str = "iblink_crc16_dword_xor";

/// The generated module's text (a whole `module ... endmodule`): the networks `n`, each
/// level-1 XOR a `(* keep *)` wire, one `assign` per output bit.
pub fn xor_module_body(n: &Networks) -> String {
    let mut v = String::new();
    let _ = writeln!(
        v,
        "\
`default_nettype none
// {XOR_MODULE}: the XOR networks of iblink_crc16_dword (CRC-16, docs/spec.md §3), found at
// generation time (XorNet::build, crates/rtl/src/crc16_dword/mod.rs): each map is a
// two-level network of XORs of at most four inputs; the (* keep *) wires are its level-1
// XORs, one LUT4 each. A16, A32: the LFSR register's map after 16 and 32 bits;
// K = A32*FFFFh ^ FFFFh.
module {XOR_MODULE} (
    // Stage 1: the word presented this clock
    input  wire [31:0] data,
    // Stage 2: stage 1's register
    input  wire [15:0] y,
    // The loop: the running CRC, stage 2's register and its copy for the last word
    input  wire [15:0] acc,
    input  wire [15:0] e,
    input  wire [15:0] e_crc,
    // A16*data[15:0] ^ data[31:16]
    output wire [15:0] y_next,
    // A16*y ^ K
    output wire [15:0] e_next,
    // A32*acc ^ e
    output wire [15:0] acc_next,
    // A32*acc ^ e_crc
    output wire [15:0] crc_next
);

wire [15:0] data_lo = data[15:0];
wire [15:0] data_hi = data[31:16];

// Stage 1 network: y_next = A16*data_lo ^ data_hi."
    );
    n.y.declare(&mut v, "y", "data_lo", "data_hi", Declare::All);
    for j in 0..16 {
        let _ = writeln!(v, "assign y_next[{j}] = {};", n.y.output(j, "y", "y", "data_lo", "data_hi"));
    }
    v.push_str("\n// Stage 2 network: e_next = A16*y ^ K (K as inversions).\n");
    n.e.declare(&mut v, "e", "y", "", Declare::All);
    for j in 0..16 {
        let x = n.e.output(j, "e", "e", "y", "");
        let x = if n.maps.k >> j & 1 == 1 { format!("~({x})") } else { x };
        let _ = writeln!(v, "assign e_next[{j}] = {x};");
    }
    v.push_str("\n// Loop network: acc_next = A32*acc ^ e; crc_next: the same from e_crc, sharing the\n// level-1 XORs of acc alone.\n");
    n.acc.declare(&mut v, "acc", "acc", "e", Declare::All);
    n.acc.declare(&mut v, "crc", "acc", "e_crc", Declare::WithExtra);
    for j in 0..16 {
        let _ = writeln!(v, "assign acc_next[{j}] = {};", n.acc.output(j, "acc", "acc", "acc", "e"));
    }
    for j in 0..16 {
        let _ = writeln!(v, "assign crc_next[{j}] = {};", n.acc.output(j, "acc", "crc", "acc", "e_crc"));
    }
    v.push_str("\nendmodule\n`default_nettype wire\n");
    v
}

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_crc16_dword",
    path: "crates/rtl/src/crc16_dword/iblink_crc16_dword.v",
    text: include_str!("iblink_crc16_dword.v"),
};

/// `hdl_out/iblink_crc16_dword.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "crc16_dword",
        vec![
            ("data_width".into(), WIDTH.to_string()),
            ("latency_last_to_crc".into(), LATENCY.to_string()),
        ],
    )
}

/// `hdl_out/iblink_crc16_dword_xor.v`.
pub fn xor_module() -> EmittedModule {
    let n = networks();
    crate::emit::generated(
        XOR_MODULE,
        "crc16_dword",
        vec![
            ("network_search_passes".into(), SEARCH_TRIES.to_string()),
            (
                "level1_xors".into(),
                format!(
                    "y {}, e {}, acc {}, crc {}",
                    n.y.shared.len() + n.y.private.len(),
                    n.e.shared.len() + n.e.private.len(),
                    n.acc.shared.len() + n.acc.private.len(),
                    n.acc.private.iter().filter(|g| g.extra).count()
                ),
            ),
        ],
        &xor_module_body(n),
    )
}

/// The unit (`iblink_crc16_dword_w32`): no parameters, 32 bits a clock.
pub fn variant() -> Variant {
    Variant {
        name: format!("iblink_crc16_dword_w{WIDTH}"),
        block: "crc16_dword",
        top: SOURCE.module.to_string(),
        params: vec![],
        modules: vec![module(), xor_module()],
        ports: crate::io::top_ports(&Crc16DwordW32::default()),
    }
}

/// One clock of stimulus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Crc16DwordIn {
    pub reset: bool,
    pub start: bool,
    pub valid: bool,
    pub last: bool,
    pub data: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::crc16::crc16;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// The maps reproduce the CRC of whole-dword messages (the `crc` crate decides),
    /// including docs/spec.md §3's FCP example 10 00 00 00 -> 0x0558.
    #[test]
    fn maps_compute_the_crc_of_dwords() {
        let m = Maps::derive();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut msgs: Vec<Vec<u8>> = vec![vec![0x10, 0, 0, 0], vec![0; 4], vec![0xff; 64]];
        for len in 1..=20 {
            msgs.push((0..4 * len).map(|_| xorshift(&mut x) as u8).collect());
        }
        for msg in &msgs {
            let acc = msg.chunks(4).fold(0u16, |acc, w| {
                let d = u32::from_le_bytes(w.try_into().unwrap());
                m.absorb(acc, m.e(m.y(d)))
            });
            assert_eq!(acc, crc16(msg), "{msg:02x?}");
        }
        assert_eq!(crc16(&[0x10, 0, 0, 0]), 0x0558);
    }

    /// A32 is two 16-bit steps, and the data enters where the register's low bits are.
    #[test]
    fn maps_agree_with_the_byte_equations() {
        let m = Maps::derive();
        let eq = Crc16Equations::derive(4);
        for j in 0..16 {
            // 4 bytes: register bits as A32, data low half as A32, high half as A16.
            let t = eq.term(4, j);
            assert_eq!(t.data_mask & 0xffff, m.a32[j] as u64, "row {j}: low data half");
            assert_eq!((t.data_mask >> 16) as u16, m.a16[j], "row {j}: high data half");
        }
        for x in [1u16, 0x8000, 0x1234, 0xffff] {
            assert_eq!(apply(&m.a16, apply(&m.a16, x)), apply(&m.a32, x));
        }
    }

    /// The emitted XOR networks compute exactly the maps, are two levels of XORs of at
    /// most four inputs, and stay small (the LUT budget of the README's target).
    #[test]
    fn networks_compute_the_maps() {
        let n = networks();
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..20_000 {
            let r = xorshift(&mut x);
            let (s, d) = (r as u16, (r >> 16) as u16);
            assert_eq!(n.y.eval(s, d), apply(&n.maps.a16, s) ^ d);
            assert_eq!(n.e.eval(s, 0), apply(&n.maps.a16, s));
            assert_eq!(n.acc.eval(s, d), apply(&n.maps.a32, s) ^ d);
        }
        for net in [&n.y, &n.e, &n.acc] {
            assert!(net.shared.iter().all(|m| (2..=4).contains(&m.count_ones())));
            assert!(net.private.iter().all(|g| g.src.count_ones() + g.extra as u32 <= 4));
            assert!(net.items.iter().all(|i| i.len() <= 4));
        }
        let crc_dup = n.acc.private.iter().filter(|g| g.extra).count() + 16;
        let luts = n.y.luts() + n.e.luts() + n.acc.luts() + crc_dup;
        eprintln!("XOR networks: y {}, e {}, acc {}, crc {crc_dup} LUT4", n.y.luts(), n.e.luts(), n.acc.luts());
        assert!(luts <= 120, "XOR networks take {luts} LUT4");
    }

    #[test]
    fn search_is_deterministic() {
        let m = Maps::derive();
        assert_eq!(XorNet::build(m.a32, true, 5), XorNet::build(m.a32, true, 5));
    }
}
