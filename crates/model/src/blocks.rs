//! Units: packet length to flow-control blocks (docs/spec.md §1), the 12-bit modular
//! counters all credit registers use, and the largest packet the port must buffer.

/// Bytes in one Flow Control Block (FCB) — docs/spec.md §1, seed 000 "One FCB = 64 bytes".
pub const BLOCK_BYTES: u32 = 64;

/// Credit registers are 12 bits wide (docs/spec.md §1): all arithmetic is modulo 4096.
pub const MOD: u16 = 4096;
const MASK: u16 = MOD - 1;

/// The credit-check window: a packet may go iff `(CL - CR) mod 4096 <= 2048` (docs/spec.md §4),
/// which is also the largest FCCL lead a receiver may advertise (seed 000, "2048 cap").
pub const CREDIT_WINDOW: u16 = 2048;

/// Payload MTU the port is sized for (docs/spec.md §1 / config: 4096-byte MTU).
pub const MTU_PAYLOAD_BYTES: u32 = 4096;

/// Worst-case bytes after the LRH and before the VCRC, other than payload:
/// GRH 40 + BTH 12 + RDETH 4 + DETH 8 + RETH 16 + ImmDt 4 + ICRC 4 = 88.
/// (Any header budget from 65 to 128 bytes gives the same block count below.)
pub const MAX_HEADER_BYTES_AFTER_LRH: u32 = 88;

/// Largest data packet in blocks: `ceil((4096 + 88) / 64) = ceil(65.375) = 66`.
/// A receive buffer smaller than this could never accept a full-MTU packet.
pub const MAX_PACKET_BLOCKS: u16 =
    (MTU_PAYLOAD_BYTES + MAX_HEADER_BYTES_AFTER_LRH).div_ceil(BLOCK_BYTES) as u16;

/// Largest LRH:PktLen (dwords) of such a packet: LRH 8 + 88 + 4096 = 4192 bytes = 1048 dwords.
pub const MAX_PKT_LEN: u16 = ((8 + MAX_HEADER_BYTES_AFTER_LRH + MTU_PAYLOAD_BYTES) / 4) as u16;

/// Smallest LRH:PktLen of a data packet: LRH 8 + BTH 12 + ICRC 4 = 24 bytes = 6 dwords.
/// Every data packet therefore takes at least one block.
pub const MIN_PKT_LEN: u16 = 6;

/// Blocks a data packet consumes (docs/spec.md §1): `bytes = PktLen*4 - 8`, `ceil(bytes/64)`.
/// `PktLen < 2` (no bytes after the LRH) gives 0.
#[inline]
pub const fn blocks_for_pkt_len(pkt_len: u16) -> u16 {
    let bytes = (pkt_len as u32 * 4).saturating_sub(8);
    bytes.div_ceil(BLOCK_BYTES) as u16
}

/// A 12-bit register value (FCTBS, ABR, FCCL, CL, CR): every operation wraps mod 4096
/// (docs/spec.md §1; seed 000 "When the current register contents is FFFh and one is added,
/// the register rolls over to 000h").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mod4096(u16);

impl Mod4096 {
    pub const ZERO: Self = Self(0);

    /// The low 12 bits of `v`.
    #[inline]
    pub const fn new(v: u16) -> Self {
        Self(v & MASK)
    }
    #[inline]
    pub const fn get(self) -> u16 {
        self.0
    }
    /// `self + n` mod 4096.
    #[inline]
    pub const fn add(self, n: u16) -> Self {
        Self(self.0.wrapping_add(n) & MASK)
    }
    /// `self - other` mod 4096, as an unsigned 12-bit number (the hardware's
    /// "add the ones complement" subtraction of seed 000's rollover example).
    #[inline]
    pub const fn sub(self, other: Self) -> u16 {
        self.0.wrapping_sub(other.0) & MASK
    }
}

impl From<Mod4096> for u16 {
    fn from(v: Mod4096) -> u16 {
        v.0
    }
}

impl std::fmt::Display for Mod4096 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_from_spec_formula() {
        // Seed 003: a 4 KB packet is PktLen 1024 dwords and 64 blocks.
        assert_eq!(blocks_for_pkt_len(1024), 64);
        // 1 byte over a block boundary rounds up: bytes = 4*18-8 = 64 -> 1; 4*19-8 = 68 -> 2.
        assert_eq!(blocks_for_pkt_len(18), 1);
        assert_eq!(blocks_for_pkt_len(19), 2);
        assert_eq!(blocks_for_pkt_len(MIN_PKT_LEN), 1);
        assert_eq!(blocks_for_pkt_len(2), 0);
        assert_eq!(blocks_for_pkt_len(0), 0);
        assert_eq!(blocks_for_pkt_len(MAX_PKT_LEN), MAX_PACKET_BLOCKS);
        assert_eq!(MAX_PACKET_BLOCKS, 66);
        assert_eq!(MAX_PKT_LEN, 1048);
    }

    #[test]
    fn mod4096_wraps() {
        // Seed 000: FFFh + 1 rolls over to 000h.
        assert_eq!(Mod4096::new(0xfff).add(1).get(), 0);
        // Seed 000 rollover: CL 000h - CR E03h = 1FDh = 509.
        assert_eq!(Mod4096::new(0).sub(Mod4096::new(0xe03)), 509);
        assert_eq!(Mod4096::new(0x1_234).get(), 0x234);
    }
}
