//! Bit packing shared by every block: per-VL fields in packed buses, rust-hdl values as
//! little-endian 64-bit words, and masks.

use rust_hdl::bitvec::BitVec;
use rust_hdl::prelude::*;

/// The low `bits` bits set (all 64 from 64 up).
#[inline]
pub const fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Write `vals[k]` (low `width` bits) at bit `k * width` of the little-endian words `out`
/// (ORed in: `out` starts zeroed).
pub fn pack_fields<T: Copy + Into<u64>>(vals: &[T], width: usize, out: &mut [u64]) {
    for (k, v) in vals.iter().enumerate() {
        let x = (*v).into() & mask(width);
        let bit = k * width;
        out[bit / 64] |= x << (bit % 64);
        if bit % 64 + width > 64 {
            out[bit / 64 + 1] |= x >> (64 - bit % 64);
        }
    }
}

/// Field `k` of `width` bits from little-endian words.
#[inline]
pub fn field(words: &[u64], k: usize, width: usize) -> u64 {
    let bit = k * width;
    let mut x = words[bit / 64] >> (bit % 64);
    if bit % 64 + width > 64 {
        x |= words[bit / 64 + 1] << (64 - bit % 64);
    }
    x & mask(width)
}

/// The first `count` fields of `width` bits from little-endian words, as the 8 entries
/// of a per-queue record (the rest 0).
pub fn fields8<T: Copy + Default + TryFrom<u64>>(words: &[u64], width: usize, count: usize) -> [T; 8] {
    std::array::from_fn(|k| if k < count { T::try_from(field(words, k, width)).unwrap_or_else(|_| unreachable!("a {width}-bit field fits its type")) } else { T::default() })
}

/// A rust-hdl value of `W` bits from little-endian words.
pub fn bits_from_words<const W: usize>(words: &[u64]) -> Bits<W> {
    if W <= 64 {
        (words[0] & mask(W)).into()
    } else {
        let mut a = [false; W];
        for (i, b) in a.iter_mut().enumerate() {
            *b = words[i / 64] >> (i % 64) & 1 == 1;
        }
        Bits::Long(BitVec::from(a))
    }
}

/// A rust-hdl value of `W <= 512` bits as little-endian words.
pub fn read_words<const W: usize>(b: &Bits<W>) -> [u64; 8] {
    let mut w = [0u64; 8];
    match b {
        Bits::Short(_) => w[0] = b.to_u64(),
        Bits::Long(bv) => {
            for i in 0..W {
                w[i / 64] |= (bv.get_bit(i) as u64) << (i % 64);
            }
        }
    }
    w
}

/// The data bits of the byte lanes `keep` marks (lane i: bits `8i+7:8i`).
pub fn lane_mask(keep: u8) -> u64 {
    (0..8).filter(|b| keep >> b & 1 == 1).fold(0u64, |m, b| m | 0xff << (8 * b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_across_word_boundaries() {
        let vals: Vec<u16> = (0..15).map(|k| (k * 37 + 5) as u16 & 0x7f).collect();
        let mut w = [0u64; 2];
        pack_fields(&vals, 7, &mut w);
        for (k, v) in vals.iter().enumerate() {
            assert_eq!(field(&w, k, 7), *v as u64, "field {k}");
        }
        let b = bits_from_words::<105>(&w);
        assert_eq!(&read_words(&b)[..2], &w);
    }
}
