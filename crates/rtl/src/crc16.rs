//! CRC-16 unit for the FCP's LPCRC and a data packet's VCRC (SPEC.md §3).
//!
//! Polynomial 0x100B, init 0xFFFF, reflected in and out, final XOR 0xFFFF, sent low
//! byte first. Reference-model twin: `iblink_model::crc16` (the `crc` crate);
//! lockstep back ends: `iblink_sim::blocks::crc16`; snapshot: `tests/snapshots`.
//!
//! # Interface (one word of `W` bits a clock)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | synchronous: drops a packet in progress, clears `crc_valid` |
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
//! # Why explicit XOR equations
//! The next state after `n` bytes is a linear function of the 16 state bits and the
//! `8n` data bits over GF(2). [`Crc16Equations`] derives it once, at generation time,
//! by running the bit-serial reflected LFSR on symbols instead of bits; the Verilog
//! then holds one flat XOR per state bit and byte count. This is smaller and far
//! quicker to elaborate than unrolling an LFSR loop in HDL, and one clock covers a
//! whole word (an FCP's four header bytes at 32 bits per clock).

use crate::io::{HdlIo, Opaque, PortSpec};
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// The polynomial 0x100B (x^16+x^12+x^3+x+1), bit-reversed for the LSB-first LFSR.
pub const POLY_REFLECTED: u16 = 0x100b_u16.reverse_bits();
/// SPEC.md §3: the register starts at all ones...
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

/// Byte-wise lookup tables of the same linear map, so the rust-hdl stepper evaluates
/// exactly the equations the Verilog holds at a few loads a word.
#[derive(Clone)]
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

/// The CRC-16 unit, `W` data bits and `K = W / 8` byte enables per clock.
#[derive(LogicBlock)]
pub struct Crc16Unit<const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub data: Signal<In, Bits<W>>,
    pub keep: Signal<In, Bits<K>>,
    pub crc: Signal<Out, Bits<16>>,
    pub crc_valid: Signal<Out, Bit>,
    /// The LFSR register (reflected), INIT between packets.
    state: Signal<Local, Bits<16>>,
    /// Fixed data, not hardware.
    tables: Opaque<Crc16Tables>,
}

impl<const W: usize, const K: usize> Default for Crc16Unit<W, K> {
    fn default() -> Self {
        assert!(W == 8 * K && WIDTHS.contains(&W), "Crc16Unit<{W}, {K}>: unsupported width");
        let eq = Crc16Equations::derive(K);
        let mut state = Signal::default();
        state.next = (INIT as u64).into();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            valid: Default::default(),
            last: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            crc: Default::default(),
            crc_valid: Default::default(),
            state,
            tables: Opaque(Crc16Tables::new(&eq, K)),
        }
    }
}

impl<const W: usize, const K: usize> Logic for Crc16Unit<W, K> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        if self.reset.val() {
            self.state.next = (INIT as u64).into();
            self.crc.next = 0u64.into();
            self.crc_valid.next = false;
            return;
        }
        let valid = self.valid.val();
        let last = self.last.val();
        self.crc_valid.next = valid && last;
        if valid {
            let prev = if self.start.val() {
                INIT
            } else {
                self.state.val().to_u64() as u16
            };
            let n = keep_bytes(self.keep.val().to_u64());
            let next = if n == 0 {
                prev
            } else {
                self.tables.next(n, prev, self.data.val().to_u64())
            };
            if last {
                self.crc.next = ((next ^ XOROUT) as u64).into();
                self.state.next = (INIT as u64).into();
            } else {
                self.state.next = (next as u64).into();
            }
        }
    }

    fn connect(&mut self) {
        self.crc.connect();
        self.crc_valid.connect();
        self.state.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(crc16_verilog_body(W, &Crc16Equations::derive(K)))
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

/// The module body: named wires for each byte count's equations, one mux on `keep`,
/// one clocked block.
pub fn crc16_verilog_body(width: usize, eq: &Crc16Equations) -> String {
    let k = width / 8;
    let mut v = String::new();
    let _ = writeln!(
        v,
        "// CRC-16 (SPEC.md 3): poly 0x100B, init 0xFFFF, reflected in/out, xorout 0xFFFF.\n\
         // The register holds the reflected LFSR state; crc = ~state after the last word.\n\
         initial begin\n   state = 16'hffff;\n   crc = 16'h0000;\n   crc_valid = 1'b0;\nend\n\n\
         // Register feeding this word: a new packet restarts at the init value.\n\
         wire [15:0] prev = start ? 16'hffff : state;\n"
    );
    for n in 1..=k {
        let _ = writeln!(v, "// State after {n} byte(s) of this word (lanes 0..{}).", n - 1);
        let _ = writeln!(v, "wire [15:0] next_{n}b;");
        write_xor_assigns(&mut v, eq, n, Some("prev"), Some("data"), &format!("next_{n}b"));
        v.push('\n');
    }
    let _ = writeln!(
        v,
        "// keep is contiguous from lane 0: its highest set bit says how many bytes count.\n\
         reg [15:0] next;\nalways @(*) begin"
    );
    if k == 1 {
        let _ = writeln!(v, "   next = keep ? next_1b : prev;");
    } else {
        let _ = writeln!(v, "   casez (keep)");
        for n in (1..=k).rev() {
            let pat: String = (0..k)
                .rev()
                .map(|i| match i.cmp(&(n - 1)) {
                    std::cmp::Ordering::Greater => '0',
                    std::cmp::Ordering::Equal => '1',
                    std::cmp::Ordering::Less => '?',
                })
                .collect();
            let _ = writeln!(v, "      {k}'b{pat}: next = next_{n}b;");
        }
        let _ = writeln!(v, "      default: next = prev; // no byte enabled");
        let _ = writeln!(v, "   endcase");
    }
    let _ = writeln!(
        v,
        "end\n\n\
         always @(posedge clock) begin\n\
         \x20  if (reset) begin\n\
         \x20     state <= 16'hffff;\n\
         \x20     crc <= 16'h0000;\n\
         \x20     crc_valid <= 1'b0;\n\
         \x20  end else begin\n\
         \x20     crc_valid <= valid & last;\n\
         \x20     if (valid) begin\n\
         \x20        // After the last word the register restarts, ready for the next packet.\n\
         \x20        state <= last ? 16'hffff : next;\n\
         \x20        if (last) crc <= ~next;\n\
         \x20     end\n\
         \x20  end\n\
         end"
    );
    v
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

impl<const W: usize, const K: usize> HdlIo for Crc16Unit<W, K> {
    type In = Crc16In;
    type Out = Crc16Out;
    const INPUTS: &'static [PortSpec] = &[
        PortSpec::new("reset"),
        PortSpec::new("start"),
        PortSpec::new("valid"),
        PortSpec::new("last"),
        PortSpec::new("data"),
        PortSpec::new("keep"),
    ];
    const OUTPUTS: &'static [PortSpec] = &[PortSpec::new("crc"), PortSpec::new("crc_valid")];

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &Crc16In) {
        self.reset.next = i.reset;
        self.start.next = i.start;
        self.valid.next = i.valid;
        self.last.next = i.last;
        self.data.next = (i.data & mask(W)).into();
        self.keep.next = (i.keep as u64 & mask(K)).into();
    }
    fn sample(&self) -> Crc16Out {
        Crc16Out {
            crc: self.crc.val().to_u64() as u16,
            crc_valid: self.crc_valid.val(),
        }
    }
    fn pack(i: &Crc16In, slots: &mut [u64]) {
        slots[0] = i.reset as u64;
        slots[1] = i.start as u64;
        slots[2] = i.valid as u64;
        slots[3] = i.last as u64;
        slots[4] = i.data & mask(W);
        slots[5] = i.keep as u64 & mask(K);
    }
    fn unpack(slots: &[u64]) -> Crc16Out {
        Crc16Out {
            crc: slots[0] as u16,
            crc_valid: slots[1] & 1 == 1,
        }
    }
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
