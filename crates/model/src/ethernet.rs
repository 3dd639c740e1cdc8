//! Ethernet PAUSE (802.3x) and PFC (802.1Qbb) frames (docs/spec.md §9, seed 004 table):
//! DA 01-80-C2-00-00-01 | SA | EtherType 0x8808 | opcode | body | zero pad to 60 | FCS.
//! FCS is the Ethernet CRC-32 (`CRC_32_ISO_HDLC`) over bytes 0–59, appended low byte first.

use crc::{Crc, CRC_32_ISO_HDLC};

/// Total frame bytes including FCS.
pub const FRAME_BYTES: usize = 64;
/// Bytes before the FCS (minimum frame without FCS).
pub const PAYLOAD_END: usize = 60;
/// The MAC-control multicast address (seed 004: "0180-c200-0001").
pub const PAUSE_DA: [u8; 6] = [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01];
/// MAC control EtherType.
pub const ETHERTYPE_MAC_CONTROL: u16 = 0x8808;
pub const OPCODE_PAUSE: u16 = 0x0001;
pub const OPCODE_PFC: u16 = 0x0101;

/// Ethernet FCS engine.
pub const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The body of a MAC control flow-control frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseKind {
    /// 802.3x PAUSE: one pause time in quanta of 512 bit times (0 = release).
    Pause { quanta: u16 },
    /// PFC: priority-enable vector (bit i: PT i valid; the upper 8 bits are reserved and
    /// carried as is) and pause times PT0..PT7.
    Pfc { enable: u16, times: [u16; 8] },
}

/// A PAUSE or PFC frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PauseFrame {
    /// Source address (configurable, docs/spec.md §9).
    pub sa: [u8; 6],
    pub kind: PauseKind,
}

/// A MAC address as the standard writes it, `01-80-c2-00-00-01`.
pub fn mac_dashes(m: &[u8; 6]) -> String {
    m.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join("-")
}

/// Why 64 bytes are not a PAUSE/PFC frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EthDecodeError {
    #[error("short frame: {len} bytes, need 64")]
    Short { len: usize },
    #[error("bad FCS: expected {expected:#010x}, received {received:#010x}")]
    BadFcs { expected: u32, received: u32 },
    #[error("destination {} is not 01-80-c2-00-00-01", mac_dashes(.0))]
    BadDa([u8; 6]),
    #[error("EtherType {0:#06x} is not 0x8808")]
    BadEtherType(u16),
    #[error("MAC control opcode {0:#06x} is neither PAUSE (0x0001) nor PFC (0x0101)")]
    BadOpcode(u16),
}

impl PauseFrame {
    /// The 64 wire bytes.
    pub fn encode(&self) -> [u8; FRAME_BYTES] {
        let mut f = [0u8; FRAME_BYTES];
        f[0..6].copy_from_slice(&PAUSE_DA);
        f[6..12].copy_from_slice(&self.sa);
        f[12..14].copy_from_slice(&ETHERTYPE_MAC_CONTROL.to_be_bytes());
        match self.kind {
            PauseKind::Pause { quanta } => {
                f[14..16].copy_from_slice(&OPCODE_PAUSE.to_be_bytes());
                f[16..18].copy_from_slice(&quanta.to_be_bytes());
            }
            PauseKind::Pfc { enable, times } => {
                f[14..16].copy_from_slice(&OPCODE_PFC.to_be_bytes());
                f[16..18].copy_from_slice(&enable.to_be_bytes());
                for (i, t) in times.iter().enumerate() {
                    f[18 + 2 * i..20 + 2 * i].copy_from_slice(&t.to_be_bytes());
                }
            }
        }
        // Bytes up to 59 stay zero: the pad (docs/spec.md §9).
        let fcs = CRC32.checksum(&f[..PAYLOAD_END]);
        f[PAYLOAD_END..].copy_from_slice(&fcs.to_le_bytes());
        f
    }

    /// Decode a frame: checks length, FCS, DA, EtherType and opcode. Pad bytes and the
    /// reserved PT fields of a PAUSE frame are not checked (receivers ignore them).
    pub fn decode(bytes: &[u8]) -> Result<Self, EthDecodeError> {
        if bytes.len() < FRAME_BYTES {
            return Err(EthDecodeError::Short { len: bytes.len() });
        }
        let expected = CRC32.checksum(&bytes[..PAYLOAD_END]);
        let received = u32::from_le_bytes(bytes[PAYLOAD_END..FRAME_BYTES].try_into().unwrap());
        if expected != received {
            return Err(EthDecodeError::BadFcs { expected, received });
        }
        let da: [u8; 6] = bytes[0..6].try_into().unwrap();
        if da != PAUSE_DA {
            return Err(EthDecodeError::BadDa(da));
        }
        let be16 = |i: usize| u16::from_be_bytes([bytes[i], bytes[i + 1]]);
        if be16(12) != ETHERTYPE_MAC_CONTROL {
            return Err(EthDecodeError::BadEtherType(be16(12)));
        }
        let kind = match be16(14) {
            OPCODE_PAUSE => PauseKind::Pause { quanta: be16(16) },
            OPCODE_PFC => {
                let mut times = [0u16; 8];
                for (i, t) in times.iter_mut().enumerate() {
                    *t = be16(18 + 2 * i);
                }
                PauseKind::Pfc {
                    enable: be16(16),
                    times,
                }
            }
            other => return Err(EthDecodeError::BadOpcode(other)),
        };
        Ok(Self {
            sa: bytes[6..12].try_into().unwrap(),
            kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SA: [u8; 6] = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01];

    #[test]
    fn crc32_is_ethernet() {
        // The CRC-32 catalogue check value for Ethernet/zlib.
        assert_eq!(CRC32.checksum(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn pause_layout_and_fcs_residue() {
        let f = PauseFrame {
            sa: SA,
            kind: PauseKind::Pause { quanta: 0xffff },
        }
        .encode();
        assert_eq!(&f[0..6], &PAUSE_DA);
        assert_eq!(&f[6..12], &SA);
        assert_eq!(&f[12..18], &[0x88, 0x08, 0x00, 0x01, 0xff, 0xff]);
        assert!(f[18..60].iter().all(|&b| b == 0));
        // FCS computed independently with Python's zlib.crc32 over bytes 0..60: 0xffb27cdd,
        // appended low byte first.
        assert_eq!(&f[60..64], &[0xdd, 0x7c, 0xb2, 0xff]);
        // The Ethernet receiver check: CRC-32 over data + FCS (low byte first) is the
        // fixed residue 0x2144DF1C (IEEE 802.3 "magic number" seen through the
        // reflected, inverted catalogue algorithm).
        assert_eq!(CRC32.checksum(&f), 0x2144_df1c);
    }

    #[test]
    fn pfc_layout_roundtrip() {
        // Seed 004 example: PSRQ4 = 0x05 -> PEV 0x05, PT in PT0 and PT2.
        let times = [0x100, 0, 0x100, 0, 0, 0, 0, 0];
        let fr = PauseFrame {
            sa: SA,
            kind: PauseKind::Pfc {
                enable: 0x05,
                times,
            },
        };
        let f = fr.encode();
        assert_eq!(
            &f[14..22],
            &[0x01, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x00]
        );
        assert_eq!(&f[22..24], &[0x01, 0x00]);
        assert!(f[34..60].iter().all(|&b| b == 0));
        assert_eq!(PauseFrame::decode(&f), Ok(fr));
        assert_eq!(CRC32.checksum(&f), 0x2144_df1c);
    }

    #[test]
    fn decode_errors() {
        let good = PauseFrame {
            sa: SA,
            kind: PauseKind::Pause { quanta: 7 },
        }
        .encode();
        assert_eq!(
            PauseFrame::decode(&good[..63]),
            Err(EthDecodeError::Short { len: 63 })
        );
        let mut bad = good;
        bad[63] ^= 1;
        assert!(matches!(
            PauseFrame::decode(&bad),
            Err(EthDecodeError::BadFcs { .. })
        ));
        let refcs = |mut f: [u8; 64]| {
            let c = CRC32.checksum(&f[..60]);
            f[60..].copy_from_slice(&c.to_le_bytes());
            f
        };
        let mut f = good;
        f[0] = 0xff;
        let e = PauseFrame::decode(&refcs(f)).unwrap_err();
        assert!(matches!(e, EthDecodeError::BadDa(_)));
        assert_eq!(e.to_string(), "destination ff-80-c2-00-00-01 is not 01-80-c2-00-00-01");
        let mut f = good;
        f[13] = 0x00;
        assert_eq!(
            PauseFrame::decode(&refcs(f)),
            Err(EthDecodeError::BadEtherType(0x8800))
        );
        let mut f = good;
        f[15] = 0x02;
        assert_eq!(
            PauseFrame::decode(&refcs(f)),
            Err(EthDecodeError::BadOpcode(0x0002))
        );
    }
}
