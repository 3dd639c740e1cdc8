//! The Ethernet FCS (CRC-32, poly 0x04C11DB7 reflected, init and final XOR all ones) as
//! next-state XOR equations for a word of data, derived at generation time by running the
//! bit-serial LFSR on symbols, and the generated Verilog module that holds them. Shared by
//! the PAUSE/PFC frame builder and receiver.

use crate::emit::EmittedModule;
use std::fmt::Write as _;

/// The reflected polynomial.
pub const POLY_REFLECTED: u32 = 0xEDB8_8320;
/// The register before the first byte, and the XOR of the final value.
pub const INIT: u32 = 0xFFFF_FFFF;

/// One output bit of the linear map: the state bits and data bits XORed together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Xor32 {
    pub state: u32,
    pub data: u64,
}

/// The register after absorbing `width` bits (lane 0 = bits 7:0 first, bit 0 of each
/// byte first), bit `j` at `[j]`.
pub fn equations(width: usize) -> [Xor32; 32] {
    equations_then_zeros(width, 0)
}

/// The register after `width` bits of data and then `zeros` zero bits.
pub fn equations_then_zeros(width: usize, zeros: usize) -> [Xor32; 32] {
    let mut reg: [Xor32; 32] = std::array::from_fn(|j| Xor32 { state: 1 << j, data: 0 });
    for bit in 0..width + zeros {
        let d = if bit < width { 1u64 << bit } else { 0 };
        let fb = Xor32 { state: reg[0].state, data: reg[0].data ^ d };
        for j in 0..31 {
            reg[j] = reg[j + 1];
        }
        reg[31] = Xor32::default();
        for (j, r) in reg.iter_mut().enumerate() {
            if POLY_REFLECTED >> j & 1 == 1 {
                r.state ^= fb.state;
                r.data ^= fb.data;
            }
        }
    }
    reg
}

/// The equations evaluated: the register after `data` (its low `width` bits).
#[inline]
pub fn eval(eq: &[Xor32; 32], prev: u32, data: u64) -> u32 {
    let mut n = 0u32;
    for (j, t) in eq.iter().enumerate() {
        n |= (((t.state & prev).count_ones() + (t.data & data).count_ones()) & 1) << j;
    }
    n
}

/// Name of the generated module for `width`-bit words (then `zeros` zero bits).
pub fn xor_module_name(width: usize, zeros: usize) -> String {
    if zeros == 0 {
        format!("iblink_crc32_xor_w{width}")
    } else {
        format!("iblink_crc32_xor_w{width}_z{zeros}")
    }
}

/// `hdl_out/iblink_crc32_xor_w<width>[_z<zeros>].v`: one flat XOR per register bit, the
/// register after a word of `width` bits and then `zeros` zero bits.
pub fn xor_module(width: usize, zeros: usize, block: &'static str) -> EmittedModule {
    let name = xor_module_name(width, zeros);
    let mut v = String::new();
    let _ = writeln!(
        v,
        "`default_nettype none\n\
         // {name}: the Ethernet FCS (CRC-32, poly 0x04C11DB7 reflected) next-state\n\
         // equations for words of {width} bits{}, derived at generation time by running the\n\
         // bit-serial LFSR on symbols (crates/rtl/src/crc32.rs).\n\
         module {name} (\n\
         \x20   // The register before this word (the reflected LFSR state)\n\
         \x20   input  wire [31:0] prev,\n\
         \x20   // Byte lane i is data[8i+7:8i], lane 0 first on the wire\n\
         \x20   input  wire [{}:0] data,\n\
         \x20   // The register after the word\n\
         \x20   output wire [31:0] next\n\
         );\n",
        if zeros > 0 { format!(" then {zeros} zero bits") } else { String::new() },
        width - 1
    );
    for (j, t) in equations_then_zeros(width, zeros).iter().enumerate() {
        let mut terms: Vec<String> = (0..32).filter(|i| t.state >> i & 1 == 1).map(|i| format!("prev[{i}]")).collect();
        terms.extend((0..width).filter(|i| t.data >> i & 1 == 1).map(|i| format!("data[{i}]")));
        let rhs = if terms.is_empty() { "1'b0".to_string() } else { terms.join(" ^ ") };
        let _ = writeln!(v, "assign next[{j}] = {rhs};");
    }
    v.push_str("\nendmodule\n`default_nettype wire\n");
    let mut config = vec![("data_width".into(), width.to_string())];
    if zeros > 0 {
        config.push(("zero_bits_after".into(), zeros.to_string()));
    }
    crate::emit::generated(&name, block, config, &v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit-serial reflected LFSR, written directly.
    fn serial(mut s: u32, bytes: &[u8]) -> u32 {
        for &b in bytes {
            s ^= b as u32;
            for _ in 0..8 {
                s = if s & 1 == 1 { (s >> 1) ^ POLY_REFLECTED } else { s >> 1 };
            }
        }
        s
    }

    /// The check value of CRC-32/ISO-HDLC ("123456789" -> 0xCBF43926, the catalogue's),
    /// through the 32- and 64-bit equations.
    #[test]
    fn equations_give_the_catalogue_check_value() {
        let msg = b"12345678";
        let e64 = equations(64);
        let s = eval(&e64, INIT, u64::from_le_bytes(*msg));
        let e8 = equations(8);
        assert_eq!(!eval(&e8, s, b'9' as u64), 0xCBF4_3926);
        let e32 = equations(32);
        let s = eval(&e32, eval(&e32, INIT, u32::from_le_bytes(*b"1234") as u64), u32::from_le_bytes(*b"5678") as u64);
        assert_eq!(!eval(&e8, s, b'9' as u64), 0xCBF4_3926);
        assert_eq!(!serial(INIT, b"123456789"), 0xCBF4_3926);
    }
}
