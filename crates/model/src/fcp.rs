//! Flow Control Packet wire format (docs/spec.md §2): six bytes,
//! header word `Op<<28 | FCTBS<<16 | VL<<12 | FCCL` big-endian in bytes 0–3, then the
//! LPCRC over bytes 0–3, low byte first, in bytes 4–5.

use crate::crc16::crc16;
use crate::sl2vl::{VlCap, VL15};

/// Bytes of an FCP on the wire (docs/spec.md §2: the 6-byte form holds over seed 000's 8).
pub const FCP_BYTES: usize = 6;

/// The defined FCP operands (docs/spec.md §2, seed 000 "Operand").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FcpOp {
    /// Op 0: normal FCP, sent in LinkArm and LinkActive.
    Normal = 0,
    /// Op 1: flow-control init FCP, sent in LinkInitialize.
    Init = 1,
}

/// A decoded (or to-be-encoded) Flow Control Packet with valid field values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fcp {
    pub op: FcpOp,
    /// The sender's transmitter FCTBS for this VL (12 bits).
    pub fctbs: u16,
    /// The data VL the FCP is for (0..=14).
    pub vl: u8,
    /// The sender's receiver FCCL for this VL (12 bits).
    pub fccl: u16,
}

/// Why a link packet is not a valid FCP for this port. Checked in this order: length
/// (exactly six bytes: a link packet is delimited, so a short or long one is damaged
/// framing, not an FCP with padding), LPCRC (a corrupted packet's fields mean nothing),
/// Op, VL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FcpDecodeError {
    #[error("short FCP: {len} bytes, need 6")]
    Short { len: usize },
    #[error("long FCP: {len} bytes, an FCP is 6")]
    Long { len: usize },
    #[error("bad LPCRC: expected {expected:#06x}, received {received:#06x}")]
    BadLpcrc { expected: u16, received: u16 },
    #[error("reserved op {0} (only 0 and 1 are defined)")]
    ReservedOp(u8),
    #[error("FCP for VL15, which has no flow control")]
    Vl15,
    #[error("FCP for VL {vl}, at or above VLCap {vl_cap}")]
    VlNotImplemented { vl: u8, vl_cap: u8 },
}

/// A field value that does not fit its wire width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {value} is out of range 0..={max}")]
pub struct FieldRangeError {
    pub field: &'static str,
    pub value: u64,
    pub max: u64,
}

fn check(field: &'static str, value: u64, max: u64) -> Result<(), FieldRangeError> {
    if value > max {
        Err(FieldRangeError { field, value, max })
    } else {
        Ok(())
    }
}

/// The 32-bit header word `Op<<28 | FCTBS<<16 | VL<<12 | FCCL` from raw fields; any Op
/// nibble, including reserved ones (for building test traffic). Range-checked, the
/// error naming the field.
pub fn header_word(op: u64, fctbs: u64, vl: u64, fccl: u64) -> Result<u32, FieldRangeError> {
    check("op", op, 15)?;
    check("fctbs", fctbs, 4095)?;
    check("vl", vl, 15)?;
    check("fccl", fccl, 4095)?;
    Ok((op as u32) << 28 | (fctbs as u32) << 16 | (vl as u32) << 12 | fccl as u32)
}

/// The six wire bytes for a header word: big-endian header, LPCRC low byte first.
pub fn encode_word(word: u32) -> [u8; FCP_BYTES] {
    let h = word.to_be_bytes();
    let c = crc16(&h).to_le_bytes();
    [h[0], h[1], h[2], h[3], c[0], c[1]]
}

/// Encode raw fields (any Op nibble) to wire bytes, range-checked.
pub fn encode_fields(
    op: u64,
    fctbs: u64,
    vl: u64,
    fccl: u64,
) -> Result<[u8; FCP_BYTES], FieldRangeError> {
    header_word(op, fctbs, vl, fccl).map(encode_word)
}

impl Fcp {
    /// Build an FCP, checking the 12-bit and 4-bit field ranges.
    pub fn new(op: FcpOp, fctbs: u16, vl: u8, fccl: u16) -> Result<Self, FieldRangeError> {
        header_word(op as u64, fctbs as u64, vl as u64, fccl as u64)?;
        Ok(Self {
            op,
            fctbs,
            vl,
            fccl,
        })
    }

    /// The header word (fields are masked to their widths).
    pub fn word(&self) -> u32 {
        (self.op as u32) << 28
            | ((self.fctbs & 0xfff) as u32) << 16
            | ((self.vl & 0xf) as u32) << 12
            | (self.fccl & 0xfff) as u32
    }

    /// The six wire bytes (docs/spec.md §2).
    pub fn encode(&self) -> [u8; FCP_BYTES] {
        encode_word(self.word())
    }

    /// Decode one link packet's bytes for a port with `vl_cap` data VLs. It must be
    /// exactly six bytes (docs/spec.md §2: the 6-byte form holds; seed 000's two reserved
    /// bytes 6–7 are not sent, so a longer link packet is damaged framing).
    pub fn decode(bytes: &[u8], vl_cap: VlCap) -> Result<Self, FcpDecodeError> {
        if bytes.len() < FCP_BYTES {
            return Err(FcpDecodeError::Short { len: bytes.len() });
        }
        if bytes.len() > FCP_BYTES {
            return Err(FcpDecodeError::Long { len: bytes.len() });
        }
        let expected = crc16(&bytes[0..4]);
        let received = u16::from_le_bytes([bytes[4], bytes[5]]);
        if expected != received {
            return Err(FcpDecodeError::BadLpcrc { expected, received });
        }
        let word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let op = match (word >> 28) as u8 {
            0 => FcpOp::Normal,
            1 => FcpOp::Init,
            r => return Err(FcpDecodeError::ReservedOp(r)),
        };
        let vl = ((word >> 12) & 0xf) as u8;
        if vl == VL15 {
            return Err(FcpDecodeError::Vl15);
        }
        if !vl_cap.has_data_vl(vl) {
            return Err(FcpDecodeError::VlNotImplemented {
                vl,
                vl_cap: vl_cap.get(),
            });
        }
        Ok(Self {
            op,
            fctbs: ((word >> 16) & 0xfff) as u16,
            vl,
            fccl: (word & 0xfff) as u16,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(n: u64) -> VlCap {
        VlCap::new(n).unwrap()
    }

    #[test]
    fn init_fcp_bytes_from_spec() {
        // docs/spec.md §3: header 10 00 00 00 -> LPCRC 0x0558, sent 58 05.
        let f = Fcp::new(FcpOp::Init, 0, 0, 0).unwrap();
        assert_eq!(f.encode(), [0x10, 0, 0, 0, 0x58, 0x05]);
        assert_eq!(Fcp::decode(&[0x10, 0, 0, 0, 0x58, 0x05], cap(4)), Ok(f));
    }

    #[test]
    fn field_placement_is_big_endian_header_word() {
        // Op 0, FCTBS 0xABC, VL 3, FCCL 0x123 -> 0A BC 31 23 (docs/spec.md §2 layout).
        let f = Fcp::new(FcpOp::Normal, 0xabc, 3, 0x123).unwrap();
        let b = f.encode();
        assert_eq!(&b[..4], &[0x0a, 0xbc, 0x31, 0x23]);
        assert_eq!(Fcp::decode(&b, cap(4)), Ok(f));
    }

    #[test]
    fn decode_long() {
        // Seed 000's 8-byte form (two reserved bytes after the LPCRC) is not an FCP
        // here (docs/spec.md §2), nor is any longer link packet, even with a good LPCRC.
        let b = Fcp::new(FcpOp::Init, 0, 0, 0).unwrap().encode();
        for extra in 1..=10 {
            let mut long = b.to_vec();
            long.extend(std::iter::repeat_n(0, extra));
            assert_eq!(
                Fcp::decode(&long, cap(4)),
                Err(FcpDecodeError::Long { len: 6 + extra })
            );
        }
        // Length comes first: a long packet with a bad LPCRC and a reserved Op is long.
        let mut bad = encode_fields(7, 1, 15, 2).unwrap().to_vec();
        bad[4] ^= 1;
        bad.push(0);
        assert_eq!(Fcp::decode(&bad, cap(4)), Err(FcpDecodeError::Long { len: 7 }));
        assert_eq!(
            FcpDecodeError::Long { len: 8 }.to_string(),
            "long FCP: 8 bytes, an FCP is 6"
        );
    }

    #[test]
    fn decode_short() {
        for len in 0..6 {
            assert_eq!(
                Fcp::decode(&[0x10, 0, 0, 0, 0x58, 0x05][..len], cap(4)),
                Err(FcpDecodeError::Short { len })
            );
        }
    }

    #[test]
    fn decode_bad_lpcrc_reports_both_values() {
        assert_eq!(
            Fcp::decode(&[0x10, 0, 0, 0, 0x59, 0x05], cap(4)),
            Err(FcpDecodeError::BadLpcrc {
                expected: 0x0558,
                received: 0x0559
            })
        );
        // Byte order matters: the CRC sent high byte first is wrong.
        assert_eq!(
            Fcp::decode(&[0x10, 0, 0, 0, 0x05, 0x58], cap(4)),
            Err(FcpDecodeError::BadLpcrc {
                expected: 0x0558,
                received: 0x5805
            })
        );
    }

    #[test]
    fn decode_reserved_ops() {
        for op in 2..=15u64 {
            let b = encode_fields(op, 1, 0, 2).unwrap();
            assert_eq!(
                Fcp::decode(&b, cap(4)),
                Err(FcpDecodeError::ReservedOp(op as u8))
            );
        }
    }

    #[test]
    fn decode_vl15_and_vlcap() {
        let b = encode_fields(0, 0, 15, 0).unwrap();
        assert_eq!(Fcp::decode(&b, cap(15)), Err(FcpDecodeError::Vl15));
        let b = encode_fields(0, 0, 4, 0).unwrap();
        assert_eq!(
            Fcp::decode(&b, cap(4)),
            Err(FcpDecodeError::VlNotImplemented { vl: 4, vl_cap: 4 })
        );
        assert!(Fcp::decode(&b, cap(8)).is_ok());
        let b = encode_fields(0, 0, 1, 0).unwrap();
        assert_eq!(
            Fcp::decode(&b, cap(1)),
            Err(FcpDecodeError::VlNotImplemented { vl: 1, vl_cap: 1 })
        );
    }

    #[test]
    fn field_range_errors_name_the_field() {
        assert_eq!(encode_fields(16, 0, 0, 0).unwrap_err().field, "op");
        assert_eq!(encode_fields(0, 4096, 0, 0).unwrap_err().field, "fctbs");
        assert_eq!(encode_fields(0, 0, 16, 0).unwrap_err().field, "vl");
        let e = encode_fields(0, 0, 0, 4096).unwrap_err();
        assert_eq!(e.to_string(), "fccl: 4096 is out of range 0..=4095");
        assert!(encode_fields(15, 4095, 15, 4095).is_ok());
    }

    #[test]
    fn roundtrip_all_vls_and_extremes() {
        for vl in 0..15u8 {
            for (fctbs, fccl) in [(0, 0), (4095, 4095), (0x800, 0x7ff)] {
                for op in [FcpOp::Normal, FcpOp::Init] {
                    let f = Fcp::new(op, fctbs, vl, fccl).unwrap();
                    assert_eq!(Fcp::decode(&f.encode(), VlCap::MAX), Ok(f));
                }
            }
        }
    }
}
