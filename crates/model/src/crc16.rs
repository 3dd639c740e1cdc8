//! CRC-16 used for the FCP's LPCRC and a data packet's VCRC (docs/spec.md §3).
//!
//! Width 16, polynomial 0x100B, init 0xFFFF, reflected in and out, final XOR 0xFFFF.
//! The reference is the `crc` crate driven by a custom [`crc::Algorithm`]; nothing here
//! is hand-rolled, so it is an independent oracle for the RTL's XOR equations.

use crc::{Algorithm, Crc, CRC_16_IBM_SDLC};

/// The LPCRC/VCRC algorithm in CRC-catalogue notation (docs/spec.md §3).
pub const IB_CRC16: Algorithm<u16> = Algorithm {
    width: 16,
    poly: 0x100b,
    init: 0xffff,
    refin: true,
    refout: true,
    xorout: 0xffff,
    // docs/spec.md §3: the ASCII bytes "123456789" give 0x0A3D.
    check: 0x0a3d,
    // Register content (reflected, before the final XOR) after a codeword with its CRC
    // appended low byte first: what a receiver may compare against. The `crc` crate does
    // not use it; the test below shows it is the same for every message.
    residue: RESIDUE,
};

const RESIDUE: u16 = 0x556f;

/// The one shared engine: a 256-entry table built at compile time.
pub const CRC16: Crc<u16> = Crc::<u16>::new(&IB_CRC16);

/// CRC-16 of `bytes`, as a 16-bit value (sent on the wire low byte first).
pub fn crc16(bytes: &[u8]) -> u16 {
    CRC16.checksum(bytes)
}

/// The two bytes as they appear on the wire: low byte first (docs/spec.md §2, §3).
pub fn crc16_wire(bytes: &[u8]) -> [u8; 2] {
    crc16(bytes).to_le_bytes()
}

/// A streaming CRC-16 in the shape of the hardware: words of up to `W` bytes with
/// byte enables, `start` to begin a packet and `last` to end one. Used as the
/// reference model of the CRC unit in lockstep (a `crc::Digest` per packet).
#[derive(Clone)]
pub struct Crc16Stream {
    digest: crc::Digest<'static, u16>,
}

impl Default for Crc16Stream {
    fn default() -> Self {
        Self { digest: CRC16.digest() }
    }
}

impl Crc16Stream {
    /// Start a new packet (discards anything absorbed so far).
    pub fn start(&mut self) {
        self.digest = CRC16.digest();
    }
    /// Absorb bytes of the current packet.
    pub fn update(&mut self, bytes: &[u8]) {
        self.digest.update(bytes);
    }
    /// Finish the packet: the CRC value, and a fresh digest for the next packet.
    pub fn finish(&mut self) -> u16 {
        std::mem::replace(&mut self.digest, CRC16.digest()).finalize()
    }
}

/// Not the same algorithm: CRC-16/IBM-SDLC (X.25) uses polynomial 0x1021. Kept only so a
/// test can show the two are told apart.
#[doc(hidden)]
pub const NOT_IB: Algorithm<u16> = CRC_16_IBM_SDLC;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value_from_spec() {
        // docs/spec.md §3: "123456789" -> 0x0A3D.
        assert_eq!(crc16(b"123456789"), 0x0a3d);
    }

    #[test]
    fn fcp_init_header_from_spec() {
        // docs/spec.md §3: header 10 00 00 00 -> LPCRC 0x0558, on the wire 58 05.
        assert_eq!(crc16(&[0x10, 0, 0, 0]), 0x0558);
        assert_eq!(crc16_wire(&[0x10, 0, 0, 0]), [0x58, 0x05]);
    }

    #[test]
    fn differs_from_x25() {
        assert_ne!(Crc::<u16>::new(&NOT_IB).checksum(b"123456789"), 0x0a3d);
    }

    #[test]
    fn residue_of_codeword_is_constant() {
        // Appending the CRC low byte first leaves a constant register: that constant is
        // what a receiver compares against. Checked over several messages.
        for msg in [&b"123456789"[..], &[0x10, 0, 0, 0], &[0xff; 17], &[]] {
            let mut cw = msg.to_vec();
            cw.extend_from_slice(&crc16_wire(msg));
            // checksum = register ^ xorout, so the register is checksum ^ 0xffff
            assert_eq!(crc16(&cw) ^ 0xffff, RESIDUE, "message {msg:02x?}");
        }
        assert_eq!(IB_CRC16.residue, RESIDUE);
    }

    #[test]
    fn streaming_equals_one_shot() {
        let data: Vec<u8> = (0u8..=200).collect();
        let mut s = Crc16Stream::default();
        s.start();
        for chunk in data.chunks(7) {
            s.update(chunk);
        }
        assert_eq!(s.finish(), crc16(&data));
    }
}
