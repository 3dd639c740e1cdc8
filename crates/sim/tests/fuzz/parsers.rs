//! The reference model's decoders of outside bytes: the FCP decoder and field encoder,
//! the IBA data packet parser, the ERF reader and the PAUSE/PFC decoder. Each takes
//! [`inputs`] inputs: random bytes, valid inputs, and valid inputs mutated (bit flips,
//! truncation, extension, insertion, deletion, splicing), some re-sealed with fresh
//! CRCs so the checks behind the CRCs are reached. Each must agree with an independent
//! check written here from the format's description (its own CRC-16 and CRC-32 tables,
//! not the model's): accepted exactly when the check says valid, rejected with the
//! reason the check finds first, and what it accepts re-encodes to the same bytes.

use crate::support::{self, hex, inputs, mutate, run_case, Rng};
use iblink_model::erf::{self, read_all, Direction, ErfError, ErfReader, ErfType, ErfWriter, RecordMarks};
use iblink_model::ethernet::{EthDecodeError, PauseFrame, PauseKind};
use iblink_model::fcp::{encode_fields, encode_word, header_word, Fcp, FcpDecodeError, FcpOp};
use iblink_model::iba::{self, PacketFields, ParseError, Transport};
use iblink_model::sl2vl::VlCap;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------
// Independent CRCs, from the catalogue parameters (docs/spec.md §3, §9), bit by bit.

/// CRC-16: poly 0x100B (0xD008 reflected), init 0xFFFF, reflected, xorout 0xFFFF.
fn crc16_table() -> &'static [u16; 256] {
    static T: OnceLock<[u16; 256]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [0u16; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u16;
            for _ in 0..8 {
                c = if c & 1 == 1 { (c >> 1) ^ 0xd008 } else { c >> 1 };
            }
            *e = c;
        }
        t
    })
}

pub fn crc16(b: &[u8]) -> u16 {
    let t = crc16_table();
    !b.iter().fold(0xffffu16, |c, &x| (c >> 8) ^ t[((c ^ x as u16) & 0xff) as usize])
}

/// CRC-32 (zlib / Ethernet): poly 0x04C11DB7 (0xEDB88320 reflected), init and xorout
/// 0xFFFFFFFF.
fn crc32_table() -> &'static [u32; 256] {
    static T: OnceLock<[u32; 256]> = OnceLock::new();
    T.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 { (c >> 1) ^ 0xedb8_8320 } else { c >> 1 };
            }
            *e = c;
        }
        t
    })
}

fn crc32_update(c: u32, b: &[u8]) -> u32 {
    let t = crc32_table();
    b.iter().fold(c, |c, &x| (c >> 8) ^ t[((c ^ x as u32) & 0xff) as usize])
}

pub fn crc32(b: &[u8]) -> u32 {
    !crc32_update(0xffff_ffff, b)
}

#[test]
fn independent_crcs_match_the_catalogue_check_values() {
    assert_eq!(crc16(b"123456789"), 0x0a3d); // docs/spec.md §3
    assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    // docs/spec.md §3 example: the init FCP's LPCRC.
    assert_eq!(crc16(&[0x10, 0, 0, 0]), 0x0558);
}

pub fn cap_of(rng: &mut Rng) -> VlCap {
    VlCap::new(*rng.pick(&VlCap::ALL) as u64).unwrap()
}

// ---------------------------------------------------------------------------------
// FCP (docs/spec.md §2)

/// What the FCP decoder must say about `b`, from the wire format: the first failing
/// check of length, LPCRC, Op, VL15, VLCap.
fn fcp_oracle(b: &[u8], cap: VlCap) -> Result<Fcp, FcpDecodeError> {
    if b.len() < 6 {
        return Err(FcpDecodeError::Short { len: b.len() });
    }
    if b.len() > 6 {
        return Err(FcpDecodeError::Long { len: b.len() });
    }
    let expected = crc16(&b[..4]);
    let received = b[4] as u16 | (b[5] as u16) << 8;
    if expected != received {
        return Err(FcpDecodeError::BadLpcrc { expected, received });
    }
    let op = b[0] >> 4;
    let fctbs = ((b[0] as u16 & 0xf) << 8) | b[1] as u16;
    let vl = b[2] >> 4;
    let fccl = ((b[2] as u16 & 0xf) << 8) | b[3] as u16;
    let op = match op {
        0 => FcpOp::Normal,
        1 => FcpOp::Init,
        r => return Err(FcpDecodeError::ReservedOp(r)),
    };
    if vl == 15 {
        return Err(FcpDecodeError::Vl15);
    }
    if vl >= cap.get() {
        return Err(FcpDecodeError::VlNotImplemented { vl, vl_cap: cap.get() });
    }
    Ok(Fcp { op, fctbs, vl, fccl })
}

/// Six bytes with a correct LPCRC over random header bytes.
pub fn sealed_fcp(rng: &mut Rng) -> Vec<u8> {
    let mut b = rng.bytes(6);
    let c = crc16(&b[..4]).to_le_bytes();
    b[4..].copy_from_slice(&c);
    b
}

/// A valid FCP for `cap`, as its fields.
fn valid_fcp(rng: &mut Rng, cap: VlCap) -> Fcp {
    let op = if rng.bool() { FcpOp::Normal } else { FcpOp::Init };
    Fcp::new(
        op,
        rng.below(4096) as u16,
        rng.below(cap.get() as u64) as u8,
        rng.below(4096) as u16,
    )
    .unwrap()
}

#[test]
fn fuzz_fcp_decode() {
    let base = support::base_seed(0xf0c9_0001);
    let n = inputs();
    let mut donors: Vec<Vec<u8>> = vec![vec![0x10, 0, 0, 0, 0x58, 0x05]];
    let (mut ok, mut short, mut long, mut crc, mut op, mut vl15, mut vlcap) = (0u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let cap = cap_of(&mut rng);
        let input: Vec<u8> = match rng.below(8) {
            // Random bytes of any short length.
            0 => {
                let l = rng.size(12);
                rng.bytes(l)
            }
            // Random six bytes with a good LPCRC (reaches Op and VL).
            1 | 2 => sealed_fcp(&mut rng),
            // A valid FCP for this port.
            3 => valid_fcp(&mut rng, cap).encode().to_vec(),
            // A valid FCP, mutated.
            4..=6 => {
                let mut b = valid_fcp(&mut rng, cap).encode().to_vec();
                let d = rng.pick(&donors).clone();
                mutate(&mut rng, &mut b, &d, 3);
                b
            }
            // Op 0 or 1 for VL15 or a VL at or above VLCap, with its LPCRC.
            7 if rng.bool() => {
                let vl = rng.range(cap.get().min(15) as u64, 15);
                encode_fields(rng.below(2), rng.below(4096), vl, rng.below(4096)).unwrap().to_vec()
            }
            // Any header word (reserved Op, VL15, VL >= VLCap) with its LPCRC, mutated
            // or not.
            _ => {
                let mut b = encode_word(rng.u64() as u32).to_vec();
                if rng.bool() {
                    let d = rng.pick(&donors).clone();
                    mutate(&mut rng, &mut b, &d, 2);
                }
                b
            }
        };
        let got = run_case(
            "fcp decode",
            base,
            case,
            || format!("{} (VLCap {})", hex(&input), cap.get()),
            || {
                let got = Fcp::decode(&input, cap);
                assert_eq!(got, fcp_oracle(&input, cap), "decoder and wire-format check disagree");
                match &got {
                    Ok(f) => {
                        // What it accepts re-encodes to the same bytes.
                        assert_eq!(f.encode()[..], input[..], "re-encoding");
                        assert_eq!(Fcp::decode(&f.encode(), cap), Ok(*f));
                    }
                    Err(e) => assert!(!e.to_string().is_empty()),
                }
                got
            },
        );
        match got {
            Ok(_) => ok += 1,
            Err(FcpDecodeError::Short { .. }) => short += 1,
            Err(FcpDecodeError::Long { .. }) => long += 1,
            Err(FcpDecodeError::BadLpcrc { .. }) => crc += 1,
            Err(FcpDecodeError::ReservedOp(_)) => op += 1,
            Err(FcpDecodeError::Vl15) => vl15 += 1,
            Err(FcpDecodeError::VlNotImplemented { .. }) => vlcap += 1,
        }
        if case % 4096 == 0 && input.len() == 6 {
            donors.push(input);
            if donors.len() > 64 {
                donors.swap_remove(1);
            }
        }
    }
    let min = n / 200;
    support::coverage(
        "fcp decode",
        min,
        &[
            ("accepted", ok),
            ("short", short),
            ("long", long),
            ("bad LPCRC", crc),
            ("reserved Op", op),
            ("VL15", vl15),
            ("VL >= VLCap", vlcap),
        ],
    );
}

/// A 64-bit value near a field's edges more often than uniform.
fn edgy(rng: &mut Rng, max: u64) -> u64 {
    match rng.below(6) {
        0 => rng.u64(),
        1 => rng.u64() >> rng.below(64),
        2 => max + rng.range(0, 2),
        3 => max.saturating_sub(rng.below(2)),
        _ => rng.range(0, max),
    }
}

#[test]
fn fuzz_fcp_encode_fields() {
    let base = support::base_seed(0xf0c9_0002);
    let n = inputs();
    let (mut ok, mut errs) = (0u64, [0u64; 4]);
    const FIELDS: [(&str, u64); 4] = [("op", 15), ("fctbs", 4095), ("vl", 15), ("fccl", 4095)];
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let v: [u64; 4] = std::array::from_fn(|k| edgy(&mut rng, FIELDS[k].1));
        let cap = cap_of(&mut rng);
        let r = run_case(
            "fcp encode_fields",
            base,
            case,
            || format!("{v:?}"),
            || {
                let r = encode_fields(v[0], v[1], v[2], v[3]);
                match FIELDS.iter().zip(v).position(|((_, max), x)| x > *max) {
                    Some(k) => {
                        // The first out-of-range field, in wire order, is the one named.
                        let e = r.expect_err("out-of-range field accepted");
                        assert_eq!((e.field, e.value, e.max), (FIELDS[k].0, v[k], FIELDS[k].1));
                        let msg = e.to_string();
                        assert!(msg.starts_with(FIELDS[k].0) && msg.contains(&v[k].to_string()), "{msg}");
                        assert!(header_word(v[0], v[1], v[2], v[3]).is_err());
                        Err(k)
                    }
                    None => {
                        let b = r.expect("in-range fields refused");
                        let w = header_word(v[0], v[1], v[2], v[3]).unwrap();
                        assert_eq!(w, (v[0] << 28 | v[1] << 16 | v[2] << 12 | v[3]) as u32);
                        assert_eq!(b, encode_word(w));
                        // Encode then decode: the fields come back when they make a valid FCP.
                        match Fcp::decode(&b, cap) {
                            Ok(f) => assert_eq!((f.op as u64, f.fctbs as u64, f.vl as u64, f.fccl as u64), (v[0], v[1], v[2], v[3])),
                            Err(e) => assert!(v[0] > 1 || v[2] == 15 || v[2] >= cap.get() as u64, "{e}"),
                        }
                        Ok(())
                    }
                }
            },
        );
        match r {
            Ok(()) => ok += 1,
            Err(k) => errs[k] += 1,
        }
    }
    support::coverage(
        "fcp encode_fields",
        n / 100,
        &[
            ("encoded", ok),
            ("op out of range", errs[0]),
            ("fctbs out of range", errs[1]),
            ("vl out of range", errs[2]),
            ("fccl out of range", errs[3]),
        ],
    );
}

// ---------------------------------------------------------------------------------
// IBA data packets (docs/spec.md §1, §3)

/// The parser's verdict as a comparable kind (Reserved keeps its field).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IbaKind {
    Ok,
    Short,
    PktLen,
    Vcrc,
    Icrc,
    LVer,
    Lnh,
    Reserved(&'static str),
    OpCode,
    HeadersTooLong,
    PadCnt,
}

fn iba_kind(r: &Result<iba::Packet<'_>, ParseError>) -> IbaKind {
    match r {
        Ok(_) => IbaKind::Ok,
        Err(ParseError::Short { .. }) => IbaKind::Short,
        Err(ParseError::PktLen { .. }) => IbaKind::PktLen,
        Err(ParseError::BadVcrc { .. }) => IbaKind::Vcrc,
        Err(ParseError::BadIcrc { .. }) => IbaKind::Icrc,
        Err(ParseError::LVer(_)) => IbaKind::LVer,
        Err(ParseError::Lnh(_)) => IbaKind::Lnh,
        Err(ParseError::Reserved { field, .. }) => IbaKind::Reserved(field),
        Err(ParseError::OpCode(_)) => IbaKind::OpCode,
        Err(ParseError::HeadersTooLong { .. }) => IbaKind::HeadersTooLong,
        Err(ParseError::PadCnt { .. }) => IbaKind::PadCnt,
    }
}

/// The ICRC from the description: CRC-32 over LRH..pad with the LRH VL nibble and the
/// BTH reserved byte (byte 12) read as ones.
fn icrc_of(b: &[u8]) -> u32 {
    let mut masked = b.to_vec();
    masked[0] |= 0xf0;
    masked[12] = 0xff;
    crc32(&masked)
}

/// What the IBA parser must say, checked in its documented order: length, PktLen,
/// VCRC, ICRC, then the header fields.
fn iba_oracle(b: &[u8]) -> IbaKind {
    let len = b.len();
    if len < 26 {
        return IbaKind::Short;
    }
    let pkt_len = ((b[4] as usize & 7) << 8) | b[5] as usize;
    if pkt_len * 4 + 2 != len {
        return IbaKind::PktLen;
    }
    if crc16(&b[..len - 2]).to_le_bytes() != b[len - 2..] {
        return IbaKind::Vcrc;
    }
    if icrc_of(&b[..len - 6]).to_le_bytes() != b[len - 6..len - 2] {
        return IbaKind::Icrc;
    }
    if b[0] & 0xf != 0 {
        return IbaKind::LVer;
    }
    if b[1] & 3 != 2 {
        return IbaKind::Lnh;
    }
    if b[1] & 0x0c != 0 {
        return IbaKind::Reserved("LRH bits after SL");
    }
    if b[4] & 0xf8 != 0 {
        return IbaKind::Reserved("LRH bits before PktLen");
    }
    let ext = match b[8] {
        0x64 => 8,
        0x04 => 0,
        _ => return IbaKind::OpCode,
    };
    let payload_at = 20 + ext;
    if payload_at > len - 6 {
        return IbaKind::HeadersTooLong;
    }
    if b[12] != 0 {
        return IbaKind::Reserved("BTH reserved byte");
    }
    if b[16] & 0x7f != 0 {
        return IbaKind::Reserved("BTH bits after A");
    }
    if ((b[9] >> 4) & 3) as usize > len - 6 - payload_at {
        return IbaKind::PadCnt;
    }
    if ext == 8 && b[24] != 0 {
        return IbaKind::Reserved("DETH reserved byte");
    }
    IbaKind::Ok
}

/// Fix PktLen to the length (when it can be) and recompute ICRC and VCRC, so the
/// header checks are reached.
fn iba_reseal(b: &mut Vec<u8>, rng: &mut Rng) {
    if b.len() < 26 {
        return;
    }
    if rng.chance(3, 4) {
        // Whole dwords plus the VCRC.
        let dwords = (b.len() - 2) / 4;
        b.truncate(dwords * 4 + 2);
        let keep_reserved = b[4] & 0xf8;
        let pk = dwords.min(0x7ff) as u16;
        b[4] = keep_reserved | (pk >> 8) as u8;
        b[5] = pk as u8;
    }
    let n = b.len();
    let i = icrc_of(&b[..n - 6]).to_le_bytes();
    b[n - 6..n - 2].copy_from_slice(&i);
    let v = crc16(&b[..n - 2]).to_le_bytes();
    b[n - 2..].copy_from_slice(&v);
}

fn random_fields(rng: &mut Rng) -> PacketFields {
    let transport = if rng.chance(1, 4) {
        Transport::RcSendOnly
    } else {
        Transport::UdSendOnly {
            q_key: rng.u64() as u32,
            src_qp: rng.below(1 << 24) as u32,
        }
    };
    PacketFields {
        vl: rng.below(16) as u8,
        sl: rng.below(16) as u8,
        dlid: rng.u64() as u16,
        slid: rng.u64() as u16,
        transport,
        se: rng.bool(),
        migreq: rng.bool(),
        tver: rng.below(16) as u8,
        p_key: rng.u64() as u16,
        dest_qp: rng.below(1 << 24) as u32,
        ack_req: rng.bool(),
        psn: rng.below(1 << 24) as u32,
    }
}

/// A valid packet: random fields and a payload mostly short, now and then up to the
/// largest [`iba::build`] takes.
fn valid_packet(rng: &mut Rng) -> Vec<u8> {
    let f = random_fields(rng);
    let max = iba::max_payload(&f.transport);
    let len = if rng.chance(1, 200) { rng.usize(max + 1) } else { rng.size(120) };
    iba::build(&f, &rng.bytes(len)).unwrap()
}

#[test]
fn fuzz_iba_parse() {
    let base = support::base_seed(0x1ba0_0001);
    let n = inputs();
    let mut counts: std::collections::BTreeMap<String, u64> = Default::default();
    let mut donor = valid_packet(&mut Rng::new(base));
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let input: Vec<u8> = match rng.below(12) {
            // Random bytes.
            0 => {
                let l = rng.size(80);
                rng.bytes(l)
            }
            // Random bytes with a consistent PktLen and good CRCs: header checks.
            1 => {
                let dwords = rng.range(6, 24) as usize;
                let mut b = rng.bytes(dwords * 4 + 2);
                iba_reseal(&mut b, &mut rng);
                b
            }
            // Valid.
            2 | 3 => valid_packet(&mut rng),
            // Valid, mutated.
            4..=6 => {
                let mut b = valid_packet(&mut rng);
                mutate(&mut rng, &mut b, &donor, 3);
                b
            }
            // Valid, a header byte or bit changed, re-sealed (reaches every header check).
            7 | 8 => {
                let mut b = valid_packet(&mut rng);
                for _ in 0..rng.range(1, 2) {
                    let at = rng.usize(b.len().min(28));
                    if rng.bool() {
                        b[at] ^= 1 << rng.below(8);
                    } else {
                        b[at] = rng.u8();
                    }
                }
                iba_reseal(&mut b, &mut rng);
                b
            }
            // A packet with (almost) no payload, its OpCode or PadCnt changed, re-sealed:
            // headers longer than the packet, a pad longer than the payload.
            10 | 11 => {
                let mut f = random_fields(&mut rng);
                if rng.bool() {
                    f.transport = Transport::RcSendOnly;
                }
                let n = rng.usize(4);
                let mut b = iba::build(&f, &rng.bytes(n)).unwrap();
                if rng.bool() {
                    b[8] = if rng.bool() { 0x64 } else { 0x04 };
                } else {
                    b[9] = (b[9] & 0xcf) | (rng.u8() & 0x30);
                }
                iba_reseal(&mut b, &mut rng);
                b
            }
            // Valid, a bit flipped before the ICRC, the VCRC recomputed: the ICRC
            // catches it (unless the bit is a variant one, read as one by the ICRC).
            9 if rng.bool() => {
                let mut b = valid_packet(&mut rng);
                let n = b.len();
                let at = rng.usize(n - 6);
                b[at] ^= 1 << rng.below(8);
                let v = crc16(&b[..n - 2]).to_le_bytes();
                b[n - 2..].copy_from_slice(&v);
                b
            }
            // Valid, mutated anywhere, re-sealed (lengths, pads, PktLen 6..2047).
            _ => {
                let mut b = valid_packet(&mut rng);
                mutate(&mut rng, &mut b, &donor, 3);
                iba_reseal(&mut b, &mut rng);
                b
            }
        };
        let kind = run_case(
            "iba parse",
            base,
            case,
            || hex(&input),
            || {
                let r = iba::parse(&input);
                let kind = iba_kind(&r);
                assert_eq!(kind, iba_oracle(&input), "parser and description disagree: {r:?}");
                match r {
                    Ok(p) => {
                        let len = input.len();
                        assert_eq!(p.pkt_len as usize * 4 + 2, len);
                        assert_eq!(p.vcrc.to_le_bytes(), input[len - 2..]);
                        assert_eq!(p.icrc.to_le_bytes(), input[len - 6..len - 2]);
                        assert_eq!((p.fields.vl, p.fields.sl), (input[0] >> 4, input[1] >> 4));
                        // The payload and the pad fill exactly what follows the headers.
                        let payload_at = 20 + p.fields.transport.ext_header_bytes();
                        assert_eq!(payload_at + p.payload.len() + p.pad_cnt as usize, len - 6);
                        assert_eq!(p.pad_cnt as usize, (4 - p.payload.len() % 4) % 4);
                        // Rebuilt from what was parsed: the same bytes up to the pad (the pad
                        // bytes are not checked; the builder writes zeros).
                        match iba::build(&p.fields, p.payload) {
                            Ok(again) => {
                                let end = payload_at + p.payload.len();
                                assert_eq!(again.len(), len);
                                assert_eq!(again[..end], input[..end], "rebuilt header and payload");
                                if input[end..len - 6].iter().all(|&x| x == 0) {
                                    assert_eq!(again, input, "rebuilt packet");
                                }
                                assert_eq!(
                                    iba::parse(&again).map(|q| (q.fields, q.payload.to_vec())),
                                    Ok((p.fields, p.payload.to_vec()))
                                );
                            }
                            Err(e) => {
                                // Only a PktLen beyond the port's largest packet (the parser
                                // reads any 11-bit PktLen) is too long to build.
                                assert!(p.pkt_len > iblink_model::blocks::MAX_PKT_LEN, "{e}");
                                assert_eq!(e.field, "payload length");
                            }
                        }
                    }
                    Err(e) => {
                        let msg = e.to_string();
                        if let ParseError::Reserved { field, .. } = e {
                            assert!(msg.starts_with(field), "{msg}");
                        }
                        assert!(!msg.is_empty());
                    }
                }
                kind
            },
        );
        *counts.entry(format!("{kind:?}")).or_default() += 1;
        if case % 8192 == 0 && input.len() >= 26 {
            donor = input;
        }
    }
    let want = [
        "Ok",
        "Short",
        "PktLen",
        "Vcrc",
        "Icrc",
        "LVer",
        "Lnh",
        "OpCode",
        "HeadersTooLong",
        "PadCnt",
        "Reserved(\"LRH bits after SL\")",
        "Reserved(\"LRH bits before PktLen\")",
        "Reserved(\"BTH reserved byte\")",
        "Reserved(\"BTH bits after A\")",
        "Reserved(\"DETH reserved byte\")",
    ];
    let got: Vec<(&str, u64)> = want.iter().map(|k| (*k, counts.get(*k).copied().unwrap_or(0))).collect();
    support::coverage("iba parse", n / 2000, &got);
    assert!(counts["Ok"] >= n / 10, "iba parse: too few accepted: {counts:?}");
}

// ---------------------------------------------------------------------------------
// ERF (the layout in `iblink_model::erf`)

/// One record as the description reads it.
#[derive(Debug, PartialEq, Eq)]
struct RawRecord {
    ts: u64,
    type_byte: u8,
    flags: u8,
    rlen: u16,
    lctr: u16,
    wlen: u16,
    ext: Vec<u64>,
    data: Vec<u8>,
}

/// The ERF reader's verdict as the description gives it: records, or the error kind
/// with the record's index and byte offset.
fn erf_oracle(b: &[u8]) -> Result<Vec<RawRecord>, (&'static str, usize, u64)> {
    let mut out = vec![];
    let mut at = 0usize;
    while at < b.len() {
        let (index, offset) = (out.len(), at as u64);
        if b.len() - at < 16 {
            return Err(("truncated", index, offset));
        }
        let h = &b[at..at + 16];
        let rlen = u16::from_be_bytes([h[10], h[11]]);
        if rlen < 16 {
            return Err(("rlen", index, offset));
        }
        if b.len() - at < rlen as usize {
            return Err(("truncated", index, offset));
        }
        let body = &b[at + 16..at + rlen as usize];
        let mut ext = vec![];
        let mut more = h[8] & 0x80 != 0;
        let mut e = 0;
        while more {
            if body.len() < e + 8 {
                return Err(("ext", index, offset));
            }
            more = body[e] & 0x80 != 0;
            ext.push(u64::from_be_bytes(body[e..e + 8].try_into().unwrap()));
            e += 8;
        }
        let wlen = u16::from_be_bytes([h[14], h[15]]);
        let data = body[e..].iter().take(wlen as usize).copied().collect();
        out.push(RawRecord {
            ts: u64::from_le_bytes(h[..8].try_into().unwrap()),
            type_byte: h[8],
            flags: h[9],
            rlen,
            lctr: u16::from_be_bytes([h[12], h[13]]),
            wlen,
            ext,
            data,
        });
        at += rlen as usize;
    }
    Ok(out)
}

fn erf_result(r: Result<Vec<erf::ErfRecord>, ErfError>) -> Result<Vec<RawRecord>, (&'static str, usize, u64)> {
    match r {
        Ok(v) => Ok(v
            .into_iter()
            .map(|r| RawRecord {
                ts: r.ts,
                type_byte: r.type_byte,
                flags: r.flags,
                rlen: r.rlen,
                lctr: r.lctr,
                wlen: r.wlen,
                ext: r.ext_headers,
                data: r.data,
            })
            .collect()),
        Err(ErfError::Truncated { index, offset }) => Err(("truncated", index, offset)),
        Err(ErfError::BadRlen { index, offset, .. }) => Err(("rlen", index, offset)),
        Err(ErfError::BadExtHeaders { index, offset, .. }) => Err(("ext", index, offset)),
        Err(e) => panic!("a reader of bytes in memory gave a writer's error: {e}"),
    }
}

/// A reader that hands out the bytes a few at a time, with `Interrupted` now and then.
struct Dribble<'a> {
    b: &'a [u8],
    rng: Rng,
}

impl std::io::Read for Dribble<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.rng.chance(1, 16) {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = (self.rng.range(1, 19) as usize).min(buf.len()).min(self.b.len());
        buf[..n].copy_from_slice(&self.b[..n]);
        self.b = &self.b[n..];
        Ok(n)
    }
}

/// One record given to the writer.
type Sent = (Direction, ErfType, Vec<u8>, RecordMarks);

/// A capture written by the model's writer: what was written, and the bytes.
fn valid_capture(rng: &mut Rng) -> (Vec<Sent>, Vec<u8>) {
    let mut w = ErfWriter::new(Vec::new(), rng.range(1, 10_000)).unwrap();
    let mut sent = vec![];
    let mut clock = rng.below(1000);
    for _ in 0..rng.range(0, 5) {
        clock += rng.below(100);
        let dir = if rng.bool() { Direction::AToB } else { Direction::BToA };
        let ty = if rng.bool() { ErfType::InfiniBand } else { ErfType::InfiniBandLink };
        let l = rng.range(1, 70) as usize;
        let data = rng.bytes(l);
        let marks = RecordMarks {
            rx_error: rng.bool(),
            lctr: rng.u64() as u16,
        };
        w.write_marked(clock, dir, ty, &data, marks).unwrap();
        sent.push((dir, ty, data, marks));
    }
    (sent, w.finish().unwrap())
}

/// Raw records the writer never makes: extension headers, any type and flags, wlen
/// above or below what the record holds, odd rlen.
fn raw_capture(rng: &mut Rng) -> Vec<u8> {
    let mut out = vec![];
    for _ in 0..rng.range(1, 4) {
        let n_ext = if rng.chance(1, 3) { rng.range(1, 3) as usize } else { 0 };
        let data = {
            let l = rng.size(40);
            rng.bytes(l)
        };
        let pad = rng.below(9) as usize;
        let rlen = 16 + 8 * n_ext + data.len() + pad;
        let mut h = rng.bytes(16);
        // Now and then the chain claims one more extension header than there is.
        let overclaim = rng.chance(1, 6);
        h[8] = (h[8] & 0x7f) | if n_ext > 0 || overclaim { 0x80 } else { 0 };
        h[10..12].copy_from_slice(&(rlen as u16).to_be_bytes());
        let wlen = match rng.below(3) {
            0 => data.len() as u16,
            1 => rng.u64() as u16,
            _ => (data.len() as u16).saturating_sub(rng.below(3) as u16),
        };
        h[14..16].copy_from_slice(&wlen.to_be_bytes());
        out.extend_from_slice(&h);
        for k in 0..n_ext {
            let mut e = rng.bytes(8);
            e[0] = (e[0] & 0x7f) | if k + 1 < n_ext || overclaim { 0x80 } else { 0 };
            out.extend_from_slice(&e);
        }
        out.extend_from_slice(&data);
        out.resize(out.len() + pad, 0);
    }
    out
}

#[test]
fn fuzz_erf_reader() {
    let base = support::base_seed(0xe2f0_0001);
    let n = inputs();
    let (mut ok, mut recs, mut trunc, mut rlen, mut ext, mut ext_ok) = (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
    let donor = valid_capture(&mut Rng::new(base)).1;
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let mut written = None;
        let input: Vec<u8> = match rng.below(8) {
            0 => {
                let l = rng.size(64);
                rng.bytes(l)
            }
            1 | 2 => {
                let (sent, b) = valid_capture(&mut rng);
                written = Some(sent);
                b
            }
            3 | 4 => {
                let mut b = valid_capture(&mut rng).1;
                mutate(&mut rng, &mut b, &donor, 3);
                b
            }
            5 => raw_capture(&mut rng),
            _ => {
                let mut b = raw_capture(&mut rng);
                mutate(&mut rng, &mut b, &donor, 2);
                b
            }
        };
        let dribble_seed = rng.u64();
        let r = run_case(
            "erf reader",
            base,
            case,
            || hex(&input),
            || {
                let r = erf_result(read_all(&input));
                assert_eq!(r, erf_oracle(&input), "reader and description disagree");
                // Read through a reader that returns a few bytes at a time: the same.
                if dribble_seed & 3 == 0 {
                    let dribbled: Result<Vec<_>, _> = ErfReader::new(Dribble {
                        b: &input,
                        rng: Rng::new(dribble_seed),
                    })
                    .collect();
                    assert_eq!(erf_result(dribbled), r, "reading in small pieces");
                }
                if let Ok(v) = &r {
                    assert_eq!(v.iter().map(|x| x.rlen as usize).sum::<usize>(), input.len());
                    for x in v {
                        assert!(x.data.len() <= x.wlen as usize && 16 + 8 * x.ext.len() + x.data.len() <= x.rlen as usize);
                    }
                }
                if let Some(sent) = &written {
                    // What the writer wrote comes back as written.
                    let back = read_all(&input).unwrap();
                    assert_eq!(back.len(), sent.len());
                    for (r, (dir, ty, data, marks)) in back.iter().zip(sent) {
                        assert_eq!(
                            (r.direction(), r.erf_type(), &r.data, r.rx_error(), r.lctr),
                            (Some(*dir), Some(*ty), data, marks.rx_error, marks.lctr)
                        );
                    }
                    assert!(back.windows(2).all(|w| w[0].ts <= w[1].ts), "time order");
                }
                r
            },
        );
        match r {
            Ok(v) => {
                ok += 1;
                recs += v.len() as u64;
                ext_ok += v.iter().any(|x| !x.ext.is_empty()) as u64;
            }
            Err(("truncated", ..)) => trunc += 1,
            Err(("rlen", ..)) => rlen += 1,
            Err(_) => ext += 1,
        }
    }
    support::coverage(
        "erf reader",
        n / 200,
        &[
            ("read", ok),
            ("records", recs),
            ("with extension headers", ext_ok),
            ("truncated", trunc),
            ("rlen < 16", rlen),
            ("bad extension headers", ext),
        ],
    );
}

// ---------------------------------------------------------------------------------
// Ethernet PAUSE / PFC (docs/spec.md §9)

fn eth_oracle(b: &[u8]) -> Result<(), &'static str> {
    if b.len() < 64 {
        return Err("short");
    }
    if crc32(&b[..60]).to_le_bytes() != b[60..64] {
        return Err("fcs");
    }
    if b[..6] != [0x01, 0x80, 0xc2, 0x00, 0x00, 0x01] {
        return Err("da");
    }
    if b[12..14] != [0x88, 0x08] {
        return Err("ethertype");
    }
    match (b[14], b[15]) {
        (0x00, 0x01) | (0x01, 0x01) => Ok(()),
        _ => Err("opcode"),
    }
}

fn eth_kind(r: &Result<PauseFrame, EthDecodeError>) -> Result<(), &'static str> {
    match r {
        Ok(_) => Ok(()),
        Err(EthDecodeError::Short { .. }) => Err("short"),
        Err(EthDecodeError::BadFcs { .. }) => Err("fcs"),
        Err(EthDecodeError::BadDa(_)) => Err("da"),
        Err(EthDecodeError::BadEtherType(_)) => Err("ethertype"),
        Err(EthDecodeError::BadOpcode(_)) => Err("opcode"),
    }
}

fn valid_pause(rng: &mut Rng) -> PauseFrame {
    let mut sa = [0u8; 6];
    rng.fill(&mut sa);
    let kind = if rng.bool() {
        PauseKind::Pause { quanta: rng.u64() as u16 }
    } else {
        PauseKind::Pfc {
            enable: rng.u64() as u16,
            times: std::array::from_fn(|_| rng.u64() as u16),
        }
    };
    PauseFrame { sa, kind }
}

fn eth_reseal(b: &mut [u8]) {
    if b.len() >= 64 {
        let c = crc32(&b[..60]).to_le_bytes();
        b[60..64].copy_from_slice(&c);
    }
}

#[test]
fn fuzz_pause_decode() {
    let base = support::base_seed(0xe740_0001);
    let n = inputs();
    let mut counts: std::collections::BTreeMap<&str, u64> = Default::default();
    let donor = valid_pause(&mut Rng::new(base)).encode().to_vec();
    for case in 0..n {
        let mut rng = Rng::new(support::case_seed(base, case));
        let input: Vec<u8> = match rng.below(6) {
            0 => {
                let l = if rng.bool() { 64 } else { rng.size(80) };
                rng.bytes(l)
            }
            1 => valid_pause(&mut rng).encode().to_vec(),
            2 => {
                let mut b = valid_pause(&mut rng).encode().to_vec();
                mutate(&mut rng, &mut b, &donor, 3);
                b
            }
            // Mutated in the first 60 bytes, FCS recomputed: DA, EtherType, opcode.
            _ => {
                let mut b = valid_pause(&mut rng).encode().to_vec();
                for _ in 0..rng.range(1, 2) {
                    let span = if rng.bool() { 16 } else { 60 };
                    let at = rng.usize(span);
                    b[at] ^= 1 << rng.below(8);
                }
                eth_reseal(&mut b);
                b
            }
        };
        let k = run_case(
            "pause decode",
            base,
            case,
            || hex(&input),
            || {
                let r = PauseFrame::decode(&input);
                let k = eth_kind(&r);
                assert_eq!(k, eth_oracle(&input), "{r:?}");
                match r {
                    Ok(f) => {
                        let e = f.encode();
                        // The fields it read: SA, opcode and the body it carries.
                        let body_end = match f.kind {
                            PauseKind::Pause { .. } => 18,
                            PauseKind::Pfc { .. } => 34,
                        };
                        assert_eq!(e[..body_end], input[..body_end], "re-encoded fields");
                        if input[body_end..60].iter().all(|&x| x == 0) {
                            assert_eq!(e[..], input[..64], "re-encoded frame");
                        }
                        assert_eq!(PauseFrame::decode(&e), Ok(f));
                    }
                    Err(e) => assert!(!e.to_string().is_empty()),
                }
                k
            },
        );
        *counts.entry(k.err().unwrap_or("accepted")).or_default() += 1;
    }
    let got: Vec<(&str, u64)> = ["accepted", "short", "fcs", "da", "ethertype", "opcode"]
        .iter()
        .map(|k| (*k, counts.get(k).copied().unwrap_or(0)))
        .collect();
    support::coverage("pause decode", n / 200, &got);
}
