//! CRC-16 unit for the FCP's LPCRC and a data packet's VCRC (docs/spec.md §3).
//!
//! Polynomial 0x100B, init 0xFFFF, reflected in and out, final XOR 0xFFFF, sent low
//! byte first. In this folder: the Verilog module `iblink_crc16.v` (parameters
//! `DATA_WIDTH`, `KEEP_WIDTH`), and here the generated equations modules
//! `iblink_crc16_xor_w<W>` ([`xor_module_body`]), the Rust cycle twin [`Crc16Twin`], the
//! rust-hdl block [`Crc16Unit`] (ports, emission) and the port binding. Reference model:
//! `iblink_model::crc16` (the `crc` crate); lockstep of model, twin and Verilator:
//! `crates/sim/tests/lockstep/crc16.rs` (stimulus: `crates/sim/src/blocks/crc16.rs`).
//!
//! The equations ([`Crc16Equations`], [`write_xor_assigns`]) and their tables
//! ([`Crc16Tables`]) also serve the blocks that compute a CRC-16 on their own datapath
//! (FCP RX/TX, link RX/TX).
//!
//! # Interface (one word of `W` bits a clock)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: drops a packet in progress, clears `crc` and `crc_valid` |
//! | `start` | in | with `valid`: this word begins a packet (the register restarts at 0xFFFF) |
//! | `valid` | in | `data`/`keep` carry a word |
//! | `last` | in | with `valid`: this word ends the packet |
//! | `data` | in | byte lane `i` is `data[8i+7:8i]`; lane 0 goes first on the wire |
//! | `keep` | in | byte enables, contiguous from lane 0: the highest set bit `i` means lanes `0..=i` carry bytes; all zero means the word carries none |
//! | `crc` | out | the CRC value of the last packet (wire order: `crc[7:0]` first) |
//! | `crc_valid` | out | one clock, the clock after the `last` word |
//!
//! A packet ends when `last` is seen, after which the register restarts by itself, so
//! back-to-back packets need no idle cycle; `start` lets a stream begin a new packet
//! without a `last` (the old one is abandoned).
//!
//! # Cycle contract
//! - A word presented in clock `t` is absorbed at the end of clock `t`; for a `last`
//!   word, `crc` shows the packet's CRC from clock `t + 1` until the next `last` word or
//!   reset, and `crc_valid` is 1 during clock `t + 1` only (latency 1).
//! - Registered: the LFSR register, `crc`, `crc_valid`; both outputs come from
//!   registers only.
//!
//! # Why explicit XOR equations
//! The next state after `n` bytes is a linear function of the 16 state bits and the
//! `8n` data bits over GF(2). [`Crc16Equations`] derives it once, at generation time,
//! by running the bit-serial reflected LFSR on symbols instead of bits; the generated
//! module then holds one flat XOR per state bit and byte count. This is smaller and far
//! quicker to elaborate than unrolling an LFSR loop in HDL, and one clock covers a
//! whole word (an FCP's four header bytes at 32 bits per clock). The equations are the
//! only generated part: the register, the `keep` select and the control are written in
//! `iblink_crc16.v`.

use crate::emit::{rust_hdl_wrapper, EmittedModule, Variant, VerilogSource};
use crate::twin::Twin;
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// The polynomial 0x100B (x^16+x^12+x^3+x+1), bit-reversed for the LSB-first LFSR.
pub const POLY_REFLECTED: u16 = 0x100b_u16.reverse_bits();
/// docs/spec.md §3: the register starts at all ones...
pub const INIT: u16 = 0xffff;
/// ...and the result is complemented.
pub const XOROUT: u16 = 0xffff;

/// Data widths the unit can be generated for (bits per clock).
pub const WIDTHS: [usize; 4] = [8, 16, 32, 64];

/// One output bit of the linear next-state map: which state bits and which data bits
/// are XORed together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XorTerm {
    pub state_mask: u16,
    pub data_mask: u64,
}

/// The next-state equations of the reflected LFSR after absorbing `n` bytes, for every
/// `n` from 1 to 8.
#[derive(Clone, Debug)]
pub struct Crc16Equations {
    /// `by_bytes[n-1][j]`: state bit `j` after `n` bytes.
    by_bytes: Vec<[XorTerm; 16]>,
}

impl Crc16Equations {
    /// Run the bit-serial LFSR symbolically: each register bit is a set of input
    /// symbols (state bits, data bits) whose XOR it holds.
    pub fn derive(max_bytes: usize) -> Self {
        let mut reg: [XorTerm; 16] = std::array::from_fn(|j| XorTerm {
            state_mask: 1 << j,
            data_mask: 0,
        });
        let mut by_bytes = Vec::with_capacity(max_bytes);
        for byte in 0..max_bytes {
            for bit in 0..8 {
                // Reflected input: bit 0 of each byte enters first.
                let feedback = XorTerm {
                    state_mask: reg[0].state_mask,
                    data_mask: reg[0].data_mask ^ (1u64 << (8 * byte + bit)),
                };
                for j in 0..15 {
                    reg[j] = reg[j + 1];
                }
                reg[15] = XorTerm::default();
                for (j, r) in reg.iter_mut().enumerate() {
                    if POLY_REFLECTED >> j & 1 == 1 {
                        r.state_mask ^= feedback.state_mask;
                        r.data_mask ^= feedback.data_mask;
                    }
                }
            }
            by_bytes.push(reg);
        }
        Self { by_bytes }
    }

    /// Equations for state bit `j` after `n` bytes (1-based `n`).
    pub fn term(&self, n: usize, j: usize) -> XorTerm {
        self.by_bytes[n - 1][j]
    }
}

/// Byte-wise lookup tables of the same linear map, so the Rust twin evaluates
/// exactly the equations the Verilog holds at a few loads a word.
#[derive(Clone, Debug)]
pub struct Crc16Tables {
    /// `[n-1][input byte k][value]`: contribution of input byte k (k = 0, 1: state
    /// bytes; k >= 2: data lane k-2) to the state after `n` bytes.
    tables: Vec<Vec<[u16; 256]>>,
}

impl Crc16Tables {
    pub fn new(eq: &Crc16Equations, max_bytes: usize) -> Self {
        let mut tables = Vec::with_capacity(max_bytes);
        for n in 1..=max_bytes {
            let mut per_input = Vec::with_capacity(2 + n);
            for k in 0..2 + n {
                let mut t = [0u16; 256];
                for (v, slot) in t.iter_mut().enumerate() {
                    let (s, d) = if k < 2 {
                        ((v as u16) << (8 * k), 0u64)
                    } else {
                        (0, (v as u64) << (8 * (k - 2)))
                    };
                    *slot = eval_terms(eq, n, s, d);
                }
                per_input.push(t);
            }
            tables.push(per_input);
        }
        Self { tables }
    }

    /// The state after absorbing the low `n` bytes of `data` from `prev` (n >= 1).
    #[inline]
    pub fn next(&self, n: usize, prev: u16, data: u64) -> u16 {
        let t = &self.tables[n - 1];
        let mut acc = t[0][(prev & 0xff) as usize] ^ t[1][(prev >> 8) as usize];
        for (k, tk) in t[2..].iter().enumerate() {
            acc ^= tk[(data >> (8 * k) & 0xff) as usize];
        }
        acc
    }
}

fn eval_terms(eq: &Crc16Equations, n: usize, s: u16, d: u64) -> u16 {
    (0..16).fold(0u16, |acc, j| {
        let t = eq.term(n, j);
        let bit = ((s & t.state_mask).count_ones() + (d & t.data_mask).count_ones()) & 1;
        acc | (bit as u16) << j
    })
}

/// Number of bytes a word carries under the `keep` rule: highest set bit + 1.
#[inline]
pub fn keep_bytes(keep: u64) -> usize {
    64 - keep.leading_zeros() as usize
}

/// The Rust cycle twin of `iblink_crc16` at `DATA_WIDTH` = `width_bits`: the register
/// and the two output registers, the next state from byte-wise tables of the same
/// equations the generated XOR module holds.
#[derive(Clone, Debug)]
pub struct Crc16Twin {
    keep_mask: u8,
    tables: Crc16Tables,
    /// The LFSR register (reflected), INIT between packets.
    state: u16,
    crc: u16,
    crc_valid: bool,
}

impl Crc16Twin {
    pub fn new(width_bits: usize) -> Self {
        assert!(WIDTHS.contains(&width_bits), "Crc16Twin: width {width_bits} is not 8, 16, 32 or 64");
        let k = width_bits / 8;
        Self {
            keep_mask: mask(k) as u8,
            tables: Crc16Tables::new(&Crc16Equations::derive(k), k),
            state: INIT,
            crc: 0,
            crc_valid: false,
        }
    }
    /// The LFSR register.
    pub fn state(&self) -> u16 {
        self.state
    }
}

impl Twin for Crc16Twin {
    type In = Crc16In;
    type Out = Crc16Out;

    #[inline]
    fn eval(&self, _i: &Crc16In) -> Crc16Out {
        Crc16Out {
            crc: self.crc,
            crc_valid: self.crc_valid,
        }
    }

    #[inline]
    fn tick(&mut self, i: &Crc16In) {
        if i.reset {
            self.state = INIT;
            self.crc = 0;
            self.crc_valid = false;
            return;
        }
        self.crc_valid = i.valid && i.last;
        if i.valid {
            let prev = if i.start { INIT } else { self.state };
            let n = keep_bytes((i.keep & self.keep_mask) as u64);
            // The tables read lanes 0..n only: data above the width is never seen.
            let next = if n == 0 { prev } else { self.tables.next(n, prev, i.data) };
            if i.last {
                self.crc = next ^ XOROUT;
                self.state = INIT;
            } else {
                self.state = next;
            }
        }
    }
}

crate::hdl_block! {
    /// The CRC-16 unit for rust-hdl, `W` data bits and `K = W / 8` byte enables per clock:
    /// its ports, and its behaviour through the twin.
    pub struct Crc16Unit<const W: usize, const K: usize> {
        twin: Crc16Twin,
    }
    check: W == 8 * K && WIDTHS.contains(&W);
    default: Self::with_twin(Crc16Twin::new(W));
    hdl: |u| {
        let mut cores = SOURCE.text.to_string();
        for w in WIDTHS {
            cores.push_str(&xor_module_body(w));
        }
        rust_hdl_wrapper(u, SOURCE.module, &params(W), &cores)
    };
    ports(i: Crc16In, o: Crc16Out) {
        reset: in Bit = i.reset;
        start: in Bit = i.start;
        valid: in Bit = i.valid;
        last: in Bit = i.last;
        data: in Bits<W> = i.data;
        keep: in Bits<K> = i.keep;
        crc: out Bits<16> = o.crc;
        crc_valid: out Bit = o.crc_valid;
    }
}

/// One `assign out[j] = ...;` line per state bit `j`: the state after absorbing `n` bytes
/// of the vector `data` (lane 0 = bits 7:0) into the register `state`, as a flat XOR.
/// The map is linear, so either half may be left out (`None`): the state's share alone,
/// or the data's, to be XORed together elsewhere (a block that pipelines the data's share).
/// Shared by every block that computes a CRC-16 on its own datapath.
pub fn write_xor_assigns(
    v: &mut String,
    eq: &Crc16Equations,
    n: usize,
    state: Option<&str>,
    data: Option<&str>,
    out: &str,
) {
    write_xor_assigns_masked(v, eq, n, state, data, u64::MAX, out);
}

/// [`write_xor_assigns`] with only the data bits set in `data_bits`: the share of some
/// byte lanes, so a wide data term can be split into registered parts.
pub fn write_xor_assigns_masked(
    v: &mut String,
    eq: &Crc16Equations,
    n: usize,
    state: Option<&str>,
    data: Option<&str>,
    data_bits: u64,
    out: &str,
) {
    for j in 0..16 {
        let t = eq.term(n, j);
        let mut terms: Vec<String> = Vec::new();
        if let Some(state) = state {
            terms.extend(
                (0..16)
                    .filter(|i| t.state_mask >> i & 1 == 1)
                    .map(|i| format!("{state}[{i}]")),
            );
        }
        if let Some(data) = data {
            terms.extend(
                (0..64)
                    .filter(|i| (t.data_mask & data_bits) >> i & 1 == 1)
                    .map(|i| format!("{data}[{i}]")),
            );
        }
        let rhs = if terms.is_empty() {
            "1'b0".to_string()
        } else {
            terms.join(" ^ ")
        };
        let _ = writeln!(v, "assign {out}[{j}] = {rhs};");
    }
}

/// Name of the generated equations module for `width`-bit words.
pub fn xor_module_name(width: usize) -> String {
    format!("iblink_crc16_xor_w{width}")
}

/// The generated equations module for `width`-bit words: the register after 1 to
/// `width / 8` bytes of a word, one flat XOR per state bit and byte count, written from
/// [`Crc16Equations`] (a whole `module ... endmodule`).
pub fn xor_module_body(width: usize) -> String {
    let k = width / 8;
    let eq = Crc16Equations::derive(k);
    let name = xor_module_name(width);
    let mut v = String::new();
    let _ = writeln!(
        v,
        "`default_nettype none\n\
         // {name}: the CRC-16 next-state equations (docs/spec.md §3: poly 0x100B, reflected)\n\
         // for words of {width} bits, derived at generation time by running the bit-serial LFSR\n\
         // on symbols (Crc16Equations, crates/rtl/src/crc16/mod.rs). Instantiated by\n\
         // iblink_crc16.\n\
         module {name} (\n\
         \x20   // The register before this word (the reflected LFSR state)\n\
         \x20   input  wire [15:0] prev,\n\
         \x20   // Byte lane i is data[8i+7:8i], lane 0 first on the wire\n\
         \x20   input  wire [{}:0] data,\n\
         \x20   // The register after lanes 0..n-1 at [16n-1:16n-16], n = 1..{k}\n\
         \x20   output wire [{}:0] next_bytes\n\
         );\n",
        width - 1,
        16 * k - 1
    );
    for n in 1..=k {
        let _ = writeln!(v, "// After {n} byte(s) (lanes 0..{}).", n - 1);
        let _ = writeln!(v, "wire [15:0] next_{n}b;");
        write_xor_assigns(&mut v, &eq, n, Some("prev"), Some("data"), &format!("next_{n}b"));
        let _ = writeln!(v, "assign next_bytes[{}:{}] = next_{n}b;\n", 16 * n - 1, 16 * (n - 1));
    }
    v.push_str("endmodule\n`default_nettype wire\n");
    v
}

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_crc16",
    path: "crates/rtl/src/crc16/iblink_crc16.v",
    text: include_str!("iblink_crc16.v"),
};

/// The module's parameters for `width`-bit words (`KEEP_WIDTH` follows).
pub fn params(width: usize) -> Vec<(String, String)> {
    vec![("DATA_WIDTH".to_string(), width.to_string())]
}

/// `hdl_out/iblink_crc16.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "crc16",
        vec![("parameters".into(), "DATA_WIDTH = 8, 16, 32 or 64 (bits per clock); KEEP_WIDTH = DATA_WIDTH/8".into())],
    )
}

/// `hdl_out/iblink_crc16_xor_w<width>.v`.
pub fn xor_module(width: usize) -> EmittedModule {
    crate::emit::generated(
        &xor_module_name(width),
        "crc16",
        vec![
            ("data_width".into(), width.to_string()),
            ("byte_counts".into(), format!("1..{}", width / 8)),
        ],
        &xor_module_body(width),
    )
}

/// The unit at `width` bits a clock (`iblink_crc16_w<width>`): the hand-written module
/// and every width's equations module (it names all four; one is elaborated).
pub fn variant(width: usize) -> Variant {
    let mut modules = vec![module()];
    modules.extend(WIDTHS.iter().map(|&w| xor_module(w)));
    Variant {
        name: format!("iblink_crc16_w{width}"),
        block: "crc16",
        top: SOURCE.module.to_string(),
        params: params(width),
        modules,
        ports: crate::with_crc16!(width, |T| crate::io::top_ports(&T::default()),
            _ => panic!("CRC-16: width {width} is not 8, 16, 32 or 64")),
    }
}

/// One clock of stimulus for the CRC unit, at any width (unused high bits ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Crc16In {
    pub reset: bool,
    pub start: bool,
    pub valid: bool,
    pub last: bool,
    pub data: u64,
    pub keep: u8,
}

/// The unit's outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Crc16Out {
    pub crc: u16,
    pub crc_valid: bool,
}

pub use crate::bits::mask;

pub type Crc16W8 = Crc16Unit<8, 1>;
pub type Crc16W16 = Crc16Unit<16, 2>;
pub type Crc16W32 = Crc16Unit<32, 4>;
pub type Crc16W64 = Crc16Unit<64, 8>;

#[cfg(test)]
mod tests {
    use super::*;
    use iblink_model::crc16::crc16;

    /// Evaluate the derived equations byte by byte over a message, independently of
    /// the tables, and compare with the `crc` crate.
    #[test]
    fn equations_match_reference_at_every_width() {
        let msgs: [&[u8]; 4] = [b"123456789", &[0x10, 0, 0, 0], &[0xa5; 23], &[]];
        for w in WIDTHS {
            let k = w / 8;
            let eq = Crc16Equations::derive(k);
            for msg in msgs {
                let mut s = INIT;
                for chunk in msg.chunks(k) {
                    let d = chunk
                        .iter()
                        .enumerate()
                        .fold(0u64, |a, (i, b)| a | (*b as u64) << (8 * i));
                    s = eval_terms(&eq, chunk.len(), s, d);
                }
                assert_eq!(s ^ XOROUT, crc16(msg), "width {w}, message {msg:02x?}");
            }
        }
    }

    #[test]
    fn tables_equal_equations() {
        let eq = Crc16Equations::derive(8);
        let t = Crc16Tables::new(&eq, 8);
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 8) as usize + 1;
            let s = (x >> 40) as u16;
            let d = x & mask(8 * n);
            assert_eq!(t.next(n, s, d), eval_terms(&eq, n, s, d));
        }
    }

    #[test]
    fn keep_rule() {
        assert_eq!(keep_bytes(0), 0);
        assert_eq!(keep_bytes(0b1), 1);
        assert_eq!(keep_bytes(0b0111), 3);
        assert_eq!(keep_bytes(0b1111_1111), 8);
    }
}
