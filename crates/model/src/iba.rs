//! IBA local data packets (docs/spec.md §1, §3): a builder and a parser for the wire bytes
//! of a data packet, for testbenches and captures.
//!
//! ```text
//! LRH (8) | BTH (12) | DETH (8, UD only) | payload | pad (0-3) | ICRC (4) | VCRC (2)
//! ```
//!
//! * LRH: `VL<<4 | LVer` (LVer 0), `SL<<4 | LNH` (LNH 2, "IBA local": a BTH follows),
//!   DLID, 5 reserved bits and the 11-bit PktLen, SLID; multi-byte fields big-endian.
//!   PktLen counts dwords from the first LRH byte up to, not including, the VCRC, so
//!   the blocks the credit logic charges come out of `bytes = PktLen*4 - 8` (docs/spec.md §1;
//!   [`crate::blocks::blocks_for_pkt_len`]).
//! * BTH: OpCode, `SE<<7 | M<<6 | PadCnt<<4 | TVer`, P_Key, a reserved byte, DestQP
//!   (24 bits), `A<<7` (7 reserved bits), PSN (24 bits).
//! * DETH (UD SEND Only): Q_Key (32 bits), a reserved byte, SrcQP (24 bits).
//! * The payload is padded with zero bytes to a whole number of dwords; BTH PadCnt says
//!   how many.
//! * ICRC: CRC-32 as zlib's `crc32` over LRH through the pad, with the variant fields
//!   read as ones (the LRH VL nibble, the BTH reserved byte), stored low byte first.
//! * VCRC: the CRC-16 of docs/spec.md §3 over LRH through ICRC, stored low byte first.
//!
//! Two transports are built: UD SEND Only (OpCode 0x64, with a DETH) is the default and
//! what captures use; RC SEND Only (OpCode 0x04, no DETH) exists for packets of 6 and 7
//! dwords, too short for a DETH (the model's smallest data packet is 6 dwords,
//! [`crate::blocks::MIN_PKT_LEN`]).
//!
//! [`ItemPackets`] turns the port model's [`LinkItem`]s into wire bytes (data packets
//! with deterministic payload, FCPs as they are), for captures of a model run
//! (see [`crate::erf`]).

use crate::blocks::{MAX_PKT_LEN, MTU_PAYLOAD_BYTES};
use crate::crc16::crc16;
use crate::fcp::FieldRangeError;
use crate::port::LinkItem;
use crate::sl2vl::{SL15, VL15};
use crc::{Crc, CRC_32_ISO_HDLC};

/// Bytes of the Local Route Header.
pub const LRH_BYTES: usize = 8;
/// Bytes of the Base Transport Header.
pub const BTH_BYTES: usize = 12;
/// Bytes of the Datagram Extended Transport Header.
pub const DETH_BYTES: usize = 8;
/// Bytes of the invariant CRC.
pub const ICRC_BYTES: usize = 4;
/// Bytes of the variant CRC (not counted in PktLen).
pub const VCRC_BYTES: usize = 2;
/// LRH:LNH for "IBA local": a BTH follows the LRH, no GRH.
pub const LNH_IBA_LOCAL: u8 = 2;
/// BTH:OpCode of a UD SEND Only packet (transport 011b, SEND Only 00100b).
pub const OPCODE_UD_SEND_ONLY: u8 = 0x64;
/// BTH:OpCode of an RC SEND Only packet (transport 000b, SEND Only 00100b).
pub const OPCODE_RC_SEND_ONLY: u8 = 0x04;
/// The default (full-member) partition key.
pub const DEFAULT_P_KEY: u16 = 0xffff;
/// The MTU payload the port is sized for (4096 bytes). [`build`] accepts up to
/// [`max_payload`] bytes, a little more, so that every item the port model carries
/// (up to [`MAX_PKT_LEN`] dwords) can be built.
pub const MTU_PAYLOAD: usize = MTU_PAYLOAD_BYTES as usize;
/// Smallest packet on the wire: LRH, BTH, ICRC and VCRC (RC SEND Only, no payload).
pub const MIN_WIRE_BYTES: usize = LRH_BYTES + BTH_BYTES + ICRC_BYTES + VCRC_BYTES;

/// Byte offset of the BTH reserved byte (a variant field for the ICRC).
const BTH_RESV8_OFFSET: usize = LRH_BYTES + 4;
const MAX_24: u32 = 0xff_ffff;

/// The zlib CRC-32 (CRC-32/ISO-HDLC) the ICRC uses (docs/spec.md §3).
const CRC32: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

/// The transport a packet uses; it fixes the OpCode and the headers after the BTH.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// UD SEND Only (OpCode 0x64): BTH, DETH, payload.
    UdSendOnly {
        /// DETH:Q_Key.
        q_key: u32,
        /// DETH:SrcQP (24 bits).
        src_qp: u32,
    },
    /// RC SEND Only (OpCode 0x04): BTH, payload.
    RcSendOnly,
}

impl Transport {
    /// BTH:OpCode.
    pub const fn opcode(&self) -> u8 {
        match self {
            Transport::UdSendOnly { .. } => OPCODE_UD_SEND_ONLY,
            Transport::RcSendOnly => OPCODE_RC_SEND_ONLY,
        }
    }
    /// Bytes of the extended transport headers between the BTH and the payload.
    pub const fn ext_header_bytes(&self) -> usize {
        match self {
            Transport::UdSendOnly { .. } => DETH_BYTES,
            Transport::RcSendOnly => 0,
        }
    }
}

/// The header fields of a data packet that are not derived from its length. LVer (0),
/// LNH (2), PktLen, PadCnt and reserved bits are filled in by [`build`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketFields {
    /// LRH:VL (4 bits), the virtual lane the packet travels on.
    pub vl: u8,
    /// LRH:SL (4 bits), service level.
    pub sl: u8,
    /// LRH:DLID, destination local ID.
    pub dlid: u16,
    /// LRH:SLID, source local ID.
    pub slid: u16,
    /// OpCode and the headers that depend on it.
    pub transport: Transport,
    /// BTH:SE, solicited event.
    pub se: bool,
    /// BTH:M, migration request.
    pub migreq: bool,
    /// BTH:TVer (4 bits), transport header version (0).
    pub tver: u8,
    /// BTH:P_Key, partition key.
    pub p_key: u16,
    /// BTH:DestQP (24 bits).
    pub dest_qp: u32,
    /// BTH:A, acknowledge request.
    pub ack_req: bool,
    /// BTH:PSN (24 bits), packet sequence number.
    pub psn: u32,
}

impl Default for PacketFields {
    /// VL 0, SL 0, LID 1 to LID 2, UD SEND Only from QP 0x11 to QP 0x10 with Q_Key 0,
    /// the default partition (P_Key 0xFFFF), PSN 0. QPs 0 and 1 (management) are
    /// avoided: dissectors read their payload as MADs.
    fn default() -> Self {
        Self {
            vl: 0,
            sl: 0,
            dlid: 2,
            slid: 1,
            transport: Transport::UdSendOnly {
                q_key: 0,
                src_qp: 0x11,
            },
            se: false,
            migreq: false,
            tver: 0,
            p_key: DEFAULT_P_KEY,
            dest_qp: 0x10,
            ack_req: false,
            psn: 0,
        }
    }
}

/// Why bytes are not a well-formed IBA local data packet of the kinds built here.
/// Checked in this order: length, PktLen against the length, VCRC, ICRC (a corrupted
/// packet's fields mean nothing), then the header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    #[error("packet too short: {len} bytes, need at least {min}")]
    Short { len: usize, min: usize },
    #[error("LRH PktLen {pkt_len} means {expected} bytes with the VCRC, the packet has {len}")]
    PktLen {
        pkt_len: u16,
        expected: usize,
        len: usize,
    },
    #[error("bad VCRC: expected {expected:#06x}, received {received:#06x}")]
    BadVcrc { expected: u16, received: u16 },
    #[error("bad ICRC: expected {expected:#010x}, received {received:#010x}")]
    BadIcrc { expected: u32, received: u32 },
    #[error("LRH LVer {0}: only link version 0 is defined")]
    LVer(u8),
    #[error("LRH LNH {0}: not IBA local (2)")]
    Lnh(u8),
    #[error("BTH OpCode {0:#04x}: only UD SEND Only (0x64) and RC SEND Only (0x04) are parsed")]
    OpCode(u8),
    #[error("{field}: reserved bits are {value:#x}, must be 0")]
    Reserved { field: &'static str, value: u32 },
    #[error("LRH PktLen {pkt_len} is too short for the headers of OpCode {opcode:#04x}")]
    HeadersTooLong { pkt_len: u16, opcode: u8 },
    #[error("BTH PadCnt {pad_cnt} is more than the {bytes} payload bytes")]
    PadCnt { pad_cnt: u8, bytes: usize },
}

/// A parsed packet: its fields, the derived length fields, the payload without pad, and
/// the two CRCs as numbers (both checked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<'a> {
    pub fields: PacketFields,
    /// LRH:PktLen, dwords from the LRH up to the VCRC.
    pub pkt_len: u16,
    /// BTH:PadCnt, zero bytes after the payload.
    pub pad_cnt: u8,
    pub payload: &'a [u8],
    pub icrc: u32,
    pub vcrc: u16,
}

fn check(field: &'static str, value: u64, max: u64) -> Result<(), FieldRangeError> {
    if value > max {
        Err(FieldRangeError { field, value, max })
    } else {
        Ok(())
    }
}

/// The ICRC of a packet's bytes from the first LRH byte through the pad (docs/spec.md §3):
/// zlib CRC-32 with the LRH VL nibble and the BTH reserved byte read as ones.
/// `bytes` must hold at least the LRH and BTH.
pub fn icrc(bytes: &[u8]) -> u32 {
    assert!(
        bytes.len() >= LRH_BYTES + BTH_BYTES,
        "ICRC needs the LRH and BTH"
    );
    let mut head = [0u8; BTH_RESV8_OFFSET + 1];
    head.copy_from_slice(&bytes[..=BTH_RESV8_OFFSET]);
    head[0] |= 0xf0;
    head[BTH_RESV8_OFFSET] = 0xff;
    let mut d = CRC32.digest();
    d.update(&head);
    d.update(&bytes[BTH_RESV8_OFFSET + 1..]);
    d.finalize()
}

/// PktLen of a packet with `transport` and `payload_len` payload bytes: LRH, BTH, the
/// extended headers, payload and pad, ICRC, in dwords.
pub const fn pkt_len_for(transport: &Transport, payload_len: usize) -> u16 {
    let bytes = LRH_BYTES + BTH_BYTES + transport.ext_header_bytes() + payload_len;
    (bytes.div_ceil(4) + ICRC_BYTES / 4) as u16
}

/// The largest payload [`build`] accepts with `transport`: the packet must not exceed
/// the port model's largest data packet, [`MAX_PKT_LEN`] dwords (4160 bytes for UD,
/// 4168 for RC; both above the 4096-byte MTU).
pub const fn max_payload(transport: &Transport) -> usize {
    MAX_PKT_LEN as usize * 4 - LRH_BYTES - BTH_BYTES - transport.ext_header_bytes() - ICRC_BYTES
}

/// The wire bytes of a data packet (LRH through VCRC) carrying `payload`. Range-checked,
/// the error naming the field; the payload may be 0 to [`max_payload`] bytes.
pub fn build(f: &PacketFields, payload: &[u8]) -> Result<Vec<u8>, FieldRangeError> {
    check("vl", f.vl as u64, 15)?;
    check("sl", f.sl as u64, 15)?;
    check("tver", f.tver as u64, 15)?;
    check("dest_qp", f.dest_qp as u64, MAX_24 as u64)?;
    check("psn", f.psn as u64, MAX_24 as u64)?;
    if let Transport::UdSendOnly { src_qp, .. } = f.transport {
        check("src_qp", src_qp as u64, MAX_24 as u64)?;
    }
    check(
        "payload length",
        payload.len() as u64,
        max_payload(&f.transport) as u64,
    )?;
    let pad = (4 - payload.len() % 4) % 4;
    let pkt_len = pkt_len_for(&f.transport, payload.len());
    let mut p = Vec::with_capacity(pkt_len as usize * 4 + VCRC_BYTES);
    // LRH
    p.push(f.vl << 4); // LVer 0
    p.push(f.sl << 4 | LNH_IBA_LOCAL);
    p.extend_from_slice(&f.dlid.to_be_bytes());
    p.extend_from_slice(&pkt_len.to_be_bytes()); // 5 reserved bits 0
    p.extend_from_slice(&f.slid.to_be_bytes());
    // BTH
    p.push(f.transport.opcode());
    p.push((f.se as u8) << 7 | (f.migreq as u8) << 6 | (pad as u8) << 4 | f.tver);
    p.extend_from_slice(&f.p_key.to_be_bytes());
    p.extend_from_slice(&(f.dest_qp & MAX_24).to_be_bytes()); // reserved byte 0, DestQP
    p.extend_from_slice(&((f.ack_req as u32) << 31 | f.psn).to_be_bytes());
    // DETH
    if let Transport::UdSendOnly { q_key, src_qp } = f.transport {
        p.extend_from_slice(&q_key.to_be_bytes());
        p.extend_from_slice(&src_qp.to_be_bytes()); // reserved byte 0, SrcQP
    }
    p.extend_from_slice(payload);
    p.resize(p.len() + pad, 0);
    let i = icrc(&p);
    p.extend_from_slice(&i.to_le_bytes());
    let v = crc16(&p);
    p.extend_from_slice(&v.to_le_bytes());
    debug_assert_eq!(p.len(), pkt_len as usize * 4 + VCRC_BYTES);
    Ok(p)
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be24(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([0, b[at], b[at + 1], b[at + 2]])
}

fn reserved(field: &'static str, value: u32) -> Result<(), ParseError> {
    if value != 0 {
        Err(ParseError::Reserved { field, value })
    } else {
        Ok(())
    }
}

/// Parse and check the wire bytes of one data packet (LRH through VCRC).
pub fn parse(bytes: &[u8]) -> Result<Packet<'_>, ParseError> {
    let len = bytes.len();
    if len < MIN_WIRE_BYTES {
        return Err(ParseError::Short {
            len,
            min: MIN_WIRE_BYTES,
        });
    }
    let pkt_len = be16(bytes, 4) & 0x7ff;
    let expected = pkt_len as usize * 4 + VCRC_BYTES;
    if expected != len {
        return Err(ParseError::PktLen {
            pkt_len,
            expected,
            len,
        });
    }
    let icrc_at = len - VCRC_BYTES - ICRC_BYTES;
    let vcrc_at = len - VCRC_BYTES;
    let vcrc = u16::from_le_bytes([bytes[vcrc_at], bytes[vcrc_at + 1]]);
    let want_v = crc16(&bytes[..vcrc_at]);
    if vcrc != want_v {
        return Err(ParseError::BadVcrc {
            expected: want_v,
            received: vcrc,
        });
    }
    let icrc_rx = u32::from_le_bytes(bytes[icrc_at..vcrc_at].try_into().unwrap());
    let want_i = icrc(&bytes[..icrc_at]);
    if icrc_rx != want_i {
        return Err(ParseError::BadIcrc {
            expected: want_i,
            received: icrc_rx,
        });
    }
    // LRH
    let lver = bytes[0] & 0xf;
    if lver != 0 {
        return Err(ParseError::LVer(lver));
    }
    let lnh = bytes[1] & 0x3;
    if lnh != LNH_IBA_LOCAL {
        return Err(ParseError::Lnh(lnh));
    }
    reserved("LRH bits after SL", ((bytes[1] >> 2) & 0x3) as u32)?;
    reserved("LRH bits before PktLen", (be16(bytes, 4) >> 11) as u32)?;
    // BTH
    let b = LRH_BYTES;
    let opcode = bytes[b];
    let transport = match opcode {
        OPCODE_UD_SEND_ONLY => Transport::UdSendOnly {
            q_key: 0,
            src_qp: 0,
        },
        OPCODE_RC_SEND_ONLY => Transport::RcSendOnly,
        other => return Err(ParseError::OpCode(other)),
    };
    let payload_at = b + BTH_BYTES + transport.ext_header_bytes();
    if payload_at > icrc_at {
        return Err(ParseError::HeadersTooLong { pkt_len, opcode });
    }
    reserved("BTH reserved byte", bytes[b + 4] as u32)?;
    reserved("BTH bits after A", (bytes[b + 8] & 0x7f) as u32)?;
    let pad_cnt = (bytes[b + 1] >> 4) & 0x3;
    let bytes_after = icrc_at - payload_at;
    if pad_cnt as usize > bytes_after {
        return Err(ParseError::PadCnt {
            pad_cnt,
            bytes: bytes_after,
        });
    }
    let transport = match transport {
        Transport::UdSendOnly { .. } => {
            let d = b + BTH_BYTES;
            reserved("DETH reserved byte", bytes[d + 4] as u32)?;
            Transport::UdSendOnly {
                q_key: u32::from_be_bytes(bytes[d..d + 4].try_into().unwrap()),
                src_qp: be24(bytes, d + 5),
            }
        }
        t => t,
    };
    Ok(Packet {
        fields: PacketFields {
            vl: bytes[0] >> 4,
            sl: bytes[1] >> 4,
            dlid: be16(bytes, 2),
            slid: be16(bytes, 6),
            transport,
            se: bytes[b + 1] & 0x80 != 0,
            migreq: bytes[b + 1] & 0x40 != 0,
            tver: bytes[b + 1] & 0xf,
            p_key: be16(bytes, b + 2),
            dest_qp: be24(bytes, b + 5),
            ack_req: bytes[b + 8] & 0x80 != 0,
            psn: be24(bytes, b + 9),
        },
        pkt_len,
        pad_cnt,
        payload: &bytes[payload_at..icrc_at - pad_cnt as usize],
        icrc: icrc_rx,
        vcrc,
    })
}

/// Deterministic payload bytes for packet number `seq` (an xorshift stream, so every
/// packet's payload differs and a misplaced byte shows). The first byte is never
/// 0xC0..=0xCF: Wireshark's heuristic reads a UD payload that starts so as a Mellanox
/// EoIB header, and a capture's payload should stay plain data.
pub fn deterministic_payload(seq: u64, len: usize) -> Vec<u8> {
    let mut x = seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut p: Vec<u8> = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    if let Some(b) = p.first_mut() {
        if *b & 0xf0 == 0xc0 {
            *b ^= 0x80;
        }
    }
    p
}

/// What a [`LinkItem`] is on the wire, for captures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireItem {
    /// A data packet (data VL or VL15), LRH through VCRC.
    Data(Vec<u8>),
    /// A link packet (FCP), its six bytes.
    Link(Vec<u8>),
}

impl WireItem {
    pub fn bytes(&self) -> &[u8] {
        match self {
            WireItem::Data(b) | WireItem::Link(b) => b,
        }
    }
}

/// Turns the port model's [`LinkItem`]s into wire bytes: FCPs as their six bytes, data
/// and VL15 items as IBA local packets of exactly the item's PktLen, built from a
/// template with a PSN that counts up per packet and a [`deterministic_payload`].
///
/// * Data items take their VL from the item and SL, LIDs, QPs, P_Key from the template;
///   VL15 items are sent on VL15 with SL15 (the management SL; docs/spec.md §7).
/// * PktLen 8 and more: UD SEND Only with `PktLen*4 - 32` payload bytes (the template's
///   transport when it is UD, else Q_Key 0 and SrcQP 0x11). PktLen 6 and 7 are too
///   short for a DETH: RC SEND Only with 0 or 4 payload bytes.
///
/// Wireshark 4.0 decodes all of these, but its heuristic payload dissectors
/// (Mellanox EoIB for an empty UD payload, RPC-over-RDMA for short RC payloads) raise
/// "malformed" on packets of 8 dwords or less; longer ones decode cleanly.
#[derive(Clone, Debug)]
pub struct ItemPackets {
    template: PacketFields,
    seq: u64,
}

impl ItemPackets {
    pub fn new(template: PacketFields) -> Self {
        Self { template, seq: 0 }
    }

    /// The wire bytes of `item`; data items get the next PSN.
    pub fn wire(&mut self, item: &LinkItem) -> WireItem {
        let (vl, sl, pkt_len) = match *item {
            LinkItem::Fcp(b) => return WireItem::Link(b.to_vec()),
            LinkItem::Data { vl, pkt_len } => (vl, self.template.sl, pkt_len),
            LinkItem::Vl15 { pkt_len } => (VL15, SL15, pkt_len),
        };
        let mut f = self.template;
        f.vl = vl & 0xf;
        f.sl = sl;
        f.psn = (self.template.psn.wrapping_add(self.seq as u32)) & MAX_24;
        let total = pkt_len as usize * 4;
        let fixed = LRH_BYTES + BTH_BYTES + ICRC_BYTES;
        if total >= fixed + DETH_BYTES {
            if !matches!(f.transport, Transport::UdSendOnly { .. }) {
                f.transport = Transport::UdSendOnly {
                    q_key: 0,
                    src_qp: 0x11,
                };
            }
        } else {
            f.transport = Transport::RcSendOnly;
        }
        let payload_len = total.saturating_sub(fixed + f.transport.ext_header_bytes());
        let payload = deterministic_payload(self.seq, payload_len);
        self.seq += 1;
        let bytes = build(&f, &payload).expect("template fields and item PktLen are in range");
        WireItem::Data(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::{blocks_for_pkt_len, MIN_PKT_LEN};

    /// The zlib CRC-32 from the `crc` crate's catalogue, independent of [`icrc`]'s masking.
    fn zlib_crc32(b: &[u8]) -> u32 {
        Crc::<u32>::new(&CRC_32_ISO_HDLC).checksum(b)
    }

    fn example() -> PacketFields {
        PacketFields {
            vl: 3,
            sl: 5,
            dlid: 0x1234,
            slid: 0x0042,
            transport: Transport::UdSendOnly {
                q_key: 0x1111_1111,
                src_qp: 0x000777,
            },
            psn: 0xabcdef,
            dest_qp: 0x123456,
            ..PacketFields::default()
        }
    }

    /// Hand-checked: UD SEND Only, 13 payload bytes 00..0c (pad 3), computed outside
    /// this crate with Python's zlib.crc32 (VL nibble and BTH byte 4 set to ones) and a
    /// bitwise CRC-16 (poly 0x100B reflected, init and xorout 0xFFFF).
    const EXAMPLE_WIRE: [u8; 50] = [
        0x30, 0x52, 0x12, 0x34, 0x00, 0x0c, 0x00,
        0x42, // LRH: VL3 LVer0, SL5 LNH2, DLID, PktLen 12, SLID
        0x64, 0x30, 0xff, 0xff, 0x00, 0x12, 0x34,
        0x56, // BTH: OpCode, PadCnt 3, P_Key, resv, DestQP
        0x00, 0xab, 0xcd, 0xef, // BTH: A 0, PSN
        0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x07, 0x77, // DETH: Q_Key, resv, SrcQP
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
        0x0c, // payload
        0x00, 0x00, 0x00, // pad
        0x26, 0x88, 0x82, 0x11, // ICRC 0x11828826, low byte first
        0xa5, 0xbb, // VCRC 0xBBA5, low byte first
    ];

    #[test]
    fn hand_checked_packet() {
        let payload: Vec<u8> = (0..13).collect();
        let p = build(&example(), &payload).unwrap();
        assert_eq!(p, EXAMPLE_WIRE);
        let q = parse(&p).unwrap();
        assert_eq!(q.fields, example());
        assert_eq!(q.payload, &payload[..]);
        assert_eq!((q.pkt_len, q.pad_cnt), (12, 3));
        assert_eq!((q.icrc, q.vcrc), (0x1182_8826, 0xbba5));
    }

    #[test]
    fn crcs_follow_spec_rules() {
        // docs/spec.md §3, computed here from the catalogue CRC-32 and the §3 CRC-16.
        let mut r = 0x1234_5678u64;
        for n in [0usize, 1, 2, 3, 4, 5, 63, 64, 65, 255, 4096] {
            r = r.wrapping_mul(6364136223846793005).wrapping_add(1);
            let f = PacketFields {
                vl: (r >> 60) as u8,
                psn: (r >> 8) as u32 & 0xff_ffff,
                ..example()
            };
            let p = build(&f, &deterministic_payload(r, n)).unwrap();
            let icrc_at = p.len() - 6;
            let mut masked = p[..icrc_at].to_vec();
            masked[0] |= 0xf0;
            masked[12] = 0xff;
            assert_eq!(p[icrc_at..icrc_at + 4], zlib_crc32(&masked).to_le_bytes());
            assert_eq!(p[icrc_at + 4..], crc16(&p[..icrc_at + 4]).to_le_bytes());
        }
        // The catalogue CRC-32 is zlib's: check value 0xCBF43926.
        assert_eq!(zlib_crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn icrc_ignores_variant_fields_vcrc_does_not() {
        let a = build(&example(), b"abc").unwrap();
        let mut b = a.clone();
        b[0] = (b[0] & 0x0f) | 0x70; // another VL
        b[12] = 0x5a; // BTH reserved byte changed en route
        assert_eq!(icrc(&a[..a.len() - 6]), icrc(&b[..b.len() - 6]));
        assert_ne!(crc16(&a[..a.len() - 2]), crc16(&b[..b.len() - 2]));
        // A non-variant byte (SL) changes the ICRC.
        let mut c = a.clone();
        c[1] ^= 0x10;
        assert_ne!(icrc(&a[..a.len() - 6]), icrc(&c[..c.len() - 6]));
    }

    #[test]
    fn pkt_len_counts_to_the_vcrc_and_gives_spec_blocks() {
        for n in 0..=300usize {
            let p = build(&example(), &vec![0xa5; n]).unwrap();
            let pkt_len = u16::from_be_bytes([p[4], p[5]]) & 0x7ff;
            // LRH:PktLen counts dwords from the first LRH byte up to the VCRC.
            assert_eq!(pkt_len as usize * 4 + 2, p.len(), "payload {n}");
            assert_eq!(pkt_len, pkt_len_for(&example().transport, n));
            // docs/spec.md §1: bytes = PktLen*4 - 8 run from after the LRH to before the VCRC.
            let bytes_after_lrh = p.len() - 2 - 8;
            assert_eq!(pkt_len as usize * 4 - 8, bytes_after_lrh);
            assert_eq!(
                blocks_for_pkt_len(pkt_len) as usize,
                bytes_after_lrh.div_ceil(64)
            );
            // The pad makes whole dwords: PadCnt = (4 - n mod 4) mod 4.
            assert_eq!((p[9] >> 4) & 3, ((4 - n % 4) % 4) as u8);
        }
        // Extremes: the smallest RC packet is the model's MIN_PKT_LEN; a full-MTU UD
        // packet fits under MAX_PKT_LEN.
        assert_eq!(pkt_len_for(&Transport::RcSendOnly, 0), MIN_PKT_LEN);
        assert_eq!(pkt_len_for(&example().transport, MTU_PAYLOAD), 1032);
        let ud_max = max_payload(&example().transport);
        assert_eq!(pkt_len_for(&example().transport, ud_max), MAX_PKT_LEN);
        assert_eq!(
            pkt_len_for(&Transport::RcSendOnly, max_payload(&Transport::RcSendOnly)),
            MAX_PKT_LEN
        );
        assert_eq!((ud_max, max_payload(&Transport::RcSendOnly)), (4160, 4168));
    }

    #[test]
    fn roundtrip_fields_and_payloads() {
        let mut r = 7u64;
        for i in 0..2000u64 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let transport = if i % 5 == 0 {
                Transport::RcSendOnly
            } else {
                Transport::UdSendOnly {
                    q_key: (r >> 3) as u32,
                    src_qp: (r >> 17) as u32 & 0xff_ffff,
                }
            };
            let f = PacketFields {
                vl: (r & 0xf) as u8,
                sl: (r >> 4 & 0xf) as u8,
                dlid: (r >> 8) as u16,
                slid: (r >> 24) as u16,
                transport,
                se: r >> 40 & 1 == 1,
                migreq: r >> 41 & 1 == 1,
                tver: (r >> 42 & 0xf) as u8,
                p_key: (r >> 46) as u16,
                dest_qp: (r >> 20) as u32 & 0xff_ffff,
                ack_req: r >> 62 & 1 == 1,
                psn: (r >> 30) as u32 & 0xff_ffff,
            };
            let payload = deterministic_payload(i, (r % 600) as usize);
            let p = build(&f, &payload).unwrap();
            let q = parse(&p).unwrap();
            assert_eq!(q.fields, f);
            assert_eq!(q.payload, &payload[..]);
        }
    }

    #[test]
    fn build_range_errors_name_the_field() {
        let f = example();
        let e = |g: PacketFields| build(&g, b"x").unwrap_err().field;
        assert_eq!(e(PacketFields { vl: 16, ..f }), "vl");
        assert_eq!(e(PacketFields { sl: 16, ..f }), "sl");
        assert_eq!(e(PacketFields { tver: 16, ..f }), "tver");
        assert_eq!(
            e(PacketFields {
                dest_qp: 1 << 24,
                ..f
            }),
            "dest_qp"
        );
        assert_eq!(e(PacketFields { psn: 1 << 24, ..f }), "psn");
        let t = Transport::UdSendOnly {
            q_key: 0,
            src_qp: 1 << 24,
        };
        assert_eq!(e(PacketFields { transport: t, ..f }), "src_qp");
        let err = build(&f, &vec![0; 4161]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "payload length: 4161 is out of range 0..=4160"
        );
        assert!(build(&f, &vec![0; 4160]).is_ok());
    }

    /// Re-seal a modified packet with fresh ICRC and VCRC so a header check is reached.
    fn reseal(p: &mut [u8]) {
        let n = p.len();
        let i = icrc(&p[..n - 6]).to_le_bytes();
        p[n - 6..n - 2].copy_from_slice(&i);
        let v = crc16(&p[..n - 2]).to_le_bytes();
        p[n - 2..].copy_from_slice(&v);
    }

    #[test]
    fn parse_errors_in_order() {
        let good = EXAMPLE_WIRE.to_vec();
        assert_eq!(
            parse(&good[..25]),
            Err(ParseError::Short { len: 25, min: 26 })
        );
        // Length against PktLen comes before any CRC.
        assert_eq!(
            parse(&good[..48]),
            Err(ParseError::PktLen {
                pkt_len: 12,
                expected: 50,
                len: 48
            })
        );
        let mut p = good.clone();
        p[30] ^= 1; // payload byte
        assert!(matches!(parse(&p), Err(ParseError::BadVcrc { .. })));
        // VCRC resealed but ICRC stale: the ICRC check catches it.
        let n = p.len();
        let v = crc16(&p[..n - 2]).to_le_bytes();
        p[n - 2..].copy_from_slice(&v);
        assert_eq!(
            parse(&p),
            Err(ParseError::BadIcrc {
                expected: icrc(&p[..n - 6]),
                received: 0x1182_8826
            })
        );
        // The VCRC sent high byte first is wrong.
        let mut p = good.clone();
        p.swap(48, 49);
        assert_eq!(
            parse(&p),
            Err(ParseError::BadVcrc {
                expected: 0xbba5,
                received: 0xa5bb
            })
        );
        let cases: [(usize, u8, ParseError); 8] = [
            (0, 0x31, ParseError::LVer(1)),
            (1, 0x53, ParseError::Lnh(3)),
            (
                1,
                0x56,
                ParseError::Reserved {
                    field: "LRH bits after SL",
                    value: 1,
                },
            ),
            (
                4,
                0x08,
                ParseError::Reserved {
                    field: "LRH bits before PktLen",
                    value: 1,
                },
            ),
            (8, 0x65, ParseError::OpCode(0x65)),
            (
                12,
                0x01,
                ParseError::Reserved {
                    field: "BTH reserved byte",
                    value: 1,
                },
            ),
            (
                16,
                0x01,
                ParseError::Reserved {
                    field: "BTH bits after A",
                    value: 1,
                },
            ),
            (
                24,
                0x80,
                ParseError::Reserved {
                    field: "DETH reserved byte",
                    value: 0x80,
                },
            ),
        ];
        for (at, value, want) in cases {
            let mut p = good.clone();
            p[at] = value;
            reseal(&mut p);
            assert_eq!(parse(&p), Err(want), "byte {at} = {value:#04x}");
        }
        // PadCnt larger than what follows the headers (UD, no payload).
        let mut p = build(&example(), b"").unwrap();
        p[9] |= 0x30;
        reseal(&mut p);
        assert_eq!(
            parse(&p),
            Err(ParseError::PadCnt {
                pad_cnt: 3,
                bytes: 0
            })
        );
        // A UD OpCode on a packet too short for a DETH.
        let rc = PacketFields {
            transport: Transport::RcSendOnly,
            ..example()
        };
        let mut p = build(&rc, b"").unwrap();
        p[8] = OPCODE_UD_SEND_ONLY;
        reseal(&mut p);
        assert_eq!(
            parse(&p),
            Err(ParseError::HeadersTooLong {
                pkt_len: 6,
                opcode: 0x64
            })
        );
        assert_eq!(
            ParseError::OpCode(0x65).to_string(),
            "BTH OpCode 0x65: only UD SEND Only (0x64) and RC SEND Only (0x04) are parsed"
        );
    }

    #[test]
    fn link_items_become_packets_of_their_pkt_len() {
        let mut ip = ItemPackets::new(PacketFields {
            sl: 2,
            psn: 0xff_fffe,
            ..example()
        });
        let fcp = crate::fcp::Fcp::new(crate::fcp::FcpOp::Init, 0, 0, 0).unwrap();
        assert_eq!(
            ip.wire(&LinkItem::Fcp(fcp.encode())),
            WireItem::Link(fcp.encode().to_vec())
        );
        let mut psns = vec![];
        for pkt_len in MIN_PKT_LEN..=MAX_PKT_LEN {
            let item = LinkItem::Data {
                vl: (pkt_len % 15) as u8,
                pkt_len,
            };
            let WireItem::Data(b) = ip.wire(&item) else {
                panic!("data item")
            };
            assert_eq!(b.len() as u32, item.wire_bytes());
            let q = parse(&b).unwrap();
            assert_eq!(q.pkt_len, pkt_len);
            assert_eq!((q.fields.vl, q.fields.sl), ((pkt_len % 15) as u8, 2));
            assert_eq!(q.pad_cnt, 0);
            let want_opcode = if pkt_len >= 8 { 0x64 } else { 0x04 };
            assert_eq!(q.fields.transport.opcode(), want_opcode);
            psns.push(q.fields.psn);
        }
        // PSNs count up from the template's and wrap at 24 bits.
        assert_eq!(&psns[..4], &[0xff_fffe, 0xff_ffff, 0, 1]);
        // No payload starts like an EoIB header (first nibble 0xC).
        for seq in 0..5000 {
            assert_ne!(deterministic_payload(seq, 1)[0] & 0xf0, 0xc0);
        }
        let v = ip.wire(&LinkItem::Vl15 { pkt_len: 20 });
        let q = parse(v.bytes()).unwrap();
        assert_eq!((q.fields.vl, q.fields.sl, q.pkt_len), (15, 15, 20));
    }
}
