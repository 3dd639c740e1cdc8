//! The receive twins against the reference model, frame by frame: the FCP RX framer's
//! twin (`FcpRxTwin`) against the FCP decoder (`Fcp::decode`), and the link RX
//! classifier's twin (`LinkRxTwin`) against the model's packet check (`judge` in
//! `iblink_sim::blocks::link_rx`: length, VCRC by the reference CRC, VL by the rules of
//! `PortModel::receive`), cross-checked with the IBA parser (`iblink_model::iba::parse`)
//! and with a check written here. Each takes [`inputs`] frames, spread over every VLCap
//! at both widths: valid frames, then corrupt ones (bit flips in the header and the
//! CRC, wrong lengths, truncation, reserved Ops, VL15 and VLs at or above VLCap, PktLen
//! out of range, random bytes, spliced and mutated frames), sent back to back or with
//! idle clocks, other traffic and cut items between them.
//!
//! The twin must accept exactly the frames the model accepts, for the same reason when
//! it rejects one, and deliver what the model decodes. The tallies of accepted and
//! rejected frames must both be large (a coverage gate: a generator that stopped making
//! good or bad frames would make the comparison empty).

use crate::parsers::{crc16, sealed_fcp};
use crate::support::{self, hex, inputs, mutate, Rng};
use iblink_model::blocks::{blocks_for_pkt_len, MAX_PKT_LEN, MIN_PKT_LEN};
use iblink_model::fcp::{encode_fields, Fcp, FcpDecodeError};
use iblink_model::iba::{self, PacketFields, ParseError, Transport};
use iblink_model::sl2vl::{VlCap, VL15};
use iblink_rtl::fcp_rx::{FcpRxCounts, FcpRxIn, FcpRxOut, FcpRxTwin, LATENCY as FCP_LATENCY};
use iblink_rtl::link_rx::{
    LinkRxIn, LinkRxOut, LinkRxTwin, LATENCY as LINK_LATENCY, STATUS_BAD_VL, STATUS_GOOD, STATUS_LENGTH, STATUS_VCRC,
};
use iblink_rtl::twin::Twin;
use iblink_sim::blocks::fcp_rx::item_words as fcp_item_words;
use iblink_sim::blocks::link_rx::{item_words as link_item_words, judge};
use std::collections::VecDeque;

/// Every configuration: VLCap 1, 2, 4, 8, 15 at 32 and 64 bits.
fn configs() -> Vec<(VlCap, usize)> {
    VlCap::ALL
        .iter()
        .flat_map(|&v| [32, 64].map(|w| (VlCap::new(v as u64).unwrap(), w)))
        .collect()
}

// ---------------------------------------------------------------------------------
// FCP RX

/// The FCP RX verdict of one link packet, as the twin's counters show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FcpVerdict {
    Good { op: u8, vl: u8, fctbs: u16, fccl: u16 },
    Short,
    Long,
    Lpcrc,
    ReservedOp,
    Vl15,
    VlCap,
}

fn model_fcp(r: Result<Fcp, FcpDecodeError>) -> FcpVerdict {
    match r {
        Ok(f) => FcpVerdict::Good {
            op: f.op as u8,
            vl: f.vl,
            fctbs: f.fctbs,
            fccl: f.fccl,
        },
        Err(FcpDecodeError::Short { .. }) => FcpVerdict::Short,
        Err(FcpDecodeError::Long { .. }) => FcpVerdict::Long,
        Err(FcpDecodeError::BadLpcrc { .. }) => FcpVerdict::Lpcrc,
        Err(FcpDecodeError::ReservedOp(_)) => FcpVerdict::ReservedOp,
        Err(FcpDecodeError::Vl15) => FcpVerdict::Vl15,
        Err(FcpDecodeError::VlNotImplemented { .. }) => FcpVerdict::VlCap,
    }
}

/// The verdict the twin showed this clock, from its counters' change (none, or one).
fn twin_fcp(prev: &FcpRxCounts, o: &FcpRxOut) -> Option<FcpVerdict> {
    let c = &o.counts;
    let d = |a: u16, b: u16| a.wrapping_sub(b);
    let steps = [
        d(c.good, prev.good),
        d(c.short, prev.short),
        d(c.long, prev.long),
        d(c.lpcrc_error, prev.lpcrc_error),
        d(c.reserved_op, prev.reserved_op),
        d(c.vl15, prev.vl15),
        d(c.vl_cap, prev.vl_cap),
    ];
    assert_eq!(c.abort, prev.abort, "an abort where no link packet was cut");
    assert!(steps.iter().sum::<u16>() <= 1, "two verdicts in one clock: {prev:?} -> {c:?}");
    assert_eq!(o.upd_valid, steps[0] == 1, "upd_valid without a good count or the reverse");
    let k = steps.iter().position(|&s| s == 1)?;
    Some(match k {
        0 => FcpVerdict::Good {
            op: o.upd_op,
            vl: o.upd_vl,
            fctbs: o.upd_fctbs,
            fccl: o.upd_fccl,
        },
        1 => FcpVerdict::Short,
        2 => FcpVerdict::Long,
        3 => FcpVerdict::Lpcrc,
        4 => FcpVerdict::ReservedOp,
        5 => FcpVerdict::Vl15,
        _ => FcpVerdict::VlCap,
    })
}

/// A valid FCP's fields for `cap`.
fn fcp_fields(rng: &mut Rng, cap: VlCap, vl: Option<u64>) -> [u8; 6] {
    let vl = vl.unwrap_or_else(|| rng.below(cap.get() as u64));
    encode_fields(rng.below(2), rng.below(4096), vl, rng.below(4096)).unwrap()
}

/// One link packet: valid, or corrupted one of the ways a link corrupts it.
fn fcp_frame(rng: &mut Rng, cap: VlCap, donor: &[u8]) -> Vec<u8> {
    let valid = |rng: &mut Rng| fcp_fields(rng, cap, None).to_vec();
    match rng.below(20) {
        // Valid for this port.
        0..=6 => valid(rng),
        // One to three bit flips in the header or the LPCRC.
        7..=9 => {
            let mut b = valid(rng);
            for _ in 0..rng.range(1, 3) {
                let bit = rng.below(48);
                b[bit as usize / 8] ^= 1 << (bit % 8);
            }
            b
        }
        // Truncated.
        10 => {
            let mut b = valid(rng);
            b.truncate(rng.usize(6));
            b
        }
        // Extended: seed 000's 8-byte form, or more.
        11 => {
            let mut b = valid(rng);
            let extra = if rng.bool() { 2 } else { rng.range(1, 20) as usize };
            b.extend(rng.bytes(extra));
            b
        }
        // Reserved Op, good LPCRC.
        12 => encode_fields(rng.range(2, 15), rng.below(4096), rng.below(16), rng.below(4096))
            .unwrap()
            .to_vec(),
        // VL15 or a VL at or above VLCap, good LPCRC.
        13 | 14 => {
            let vl = rng.range(cap.get().min(15) as u64, 15);
            fcp_fields(rng, cap, Some(vl)).to_vec()
        }
        // Random header, good LPCRC.
        15 => sealed_fcp(rng),
        // Random bytes of a random short length.
        16 => {
            let l = rng.size(14);
            rng.bytes(l)
        }
        // Mutated (splices, insertions, deletions, ...).
        _ => {
            let mut b = valid(rng);
            mutate(rng, &mut b, donor, 3);
            b
        }
    }
}

/// Something on the link that is not a link packet for this block: idle clocks (with
/// junk on the other inputs), a data packet (even one that looks like an FCP).
fn fcp_filler(rng: &mut Rng, lanes: usize, out: &mut Vec<FcpRxIn>) {
    match rng.below(8) {
        0..=4 => {}
        5 | 6 => {
            for _ in 0..rng.range(1, 3) {
                out.push(FcpRxIn {
                    reset: false,
                    rx_valid: false,
                    rx_data: rng.u64(),
                    rx_keep: rng.u8(),
                    rx_sop: rng.bool(),
                    rx_eop: rng.bool(),
                    rx_link: rng.bool(),
                });
            }
        }
        _ => {
            let bytes = if rng.bool() {
                fcp_fields(rng, VlCap::MAX, None).to_vec()
            } else {
                let l = rng.range(1, 40) as usize;
                rng.bytes(l)
            };
            let fill = rng.u64();
            out.extend(fcp_item_words(&bytes, lanes, false, true, fill).iter().map(|w| w.input()));
        }
    }
}

#[test]
fn fuzz_fcp_rx_twin_against_model() {
    let base = support::base_seed(0xfc2c_0001);
    let n = inputs();
    let configs = configs();
    // Fresh twins well before a 16-bit counter could saturate.
    const BATCH: u64 = 30_000;
    let mut tally = std::collections::BTreeMap::<&str, u64>::new();
    let (mut accepted, mut rejected) = (0u64, 0u64);
    for (k, &(cap, width)) in configs.iter().enumerate() {
        let frames = n.div_ceil(configs.len() as u64);
        let seed = support::case_seed(base, k as u64);
        let mut rng = Rng::new(seed);
        let lanes = width / 8;
        let fresh = FcpRxTwin::new(cap.get() as usize, width);
        let mut twin = fresh.clone();
        let mut prev = FcpRxOut::default();
        // Frames sent, not yet judged by the twin: (frame number, bytes, the model's verdict).
        let mut expect: VecDeque<(u64, Vec<u8>, FcpVerdict)> = VecDeque::new();
        let mut donor = fcp_fields(&mut rng, cap, None).to_vec();
        let mut words: Vec<FcpRxIn> = Vec::with_capacity(64);
        let ctx = |i: u64, b: &[u8]| {
            format!(
                "FCP RX VLCap {} w{width}, frame {i} of IBLINK_FUZZ_SEED={base:#x} (stream seed {seed:#x}): {}",
                cap.get(),
                hex(b)
            )
        };
        let step = |twin: &mut FcpRxTwin, prev: &mut FcpRxOut, expect: &mut VecDeque<(u64, Vec<u8>, FcpVerdict)>, i: &FcpRxIn| {
            let o = twin.step(i);
            let got = std::panic::catch_unwind(|| twin_fcp(&prev.counts, &o))
                .unwrap_or_else(|_| panic!("at {:?}", expect.front().map(|e| ctx(e.0, &e.1))));
            *prev = o;
            if let Some(v) = got {
                let (i, b, want) = expect
                    .pop_front()
                    .unwrap_or_else(|| panic!("FCP RX VLCap {} w{width}: a verdict {v:?} with no frame sent", cap.get()));
                assert_eq!(v, want, "twin and model disagree on {}", ctx(i, &b));
            }
        };
        for i in 0..frames {
            if i % BATCH == 0 && i > 0 {
                // Drain the pipeline, then start again from a fresh twin.
                for _ in 0..FCP_LATENCY + 1 {
                    step(&mut twin, &mut prev, &mut expect, &FcpRxIn::default());
                }
                assert!(
                    expect.is_empty(),
                    "frames the twin never judged: {:?}",
                    expect.front().map(|e| ctx(e.0, &e.1))
                );
                twin = fresh.clone();
                prev = FcpRxOut::default();
            }
            let frame = fcp_frame(&mut rng, cap, &donor);
            let want = model_fcp(Fcp::decode(&frame, cap));
            *tally
                .entry(match want {
                    FcpVerdict::Good { .. } => "accepted",
                    FcpVerdict::Short => "short",
                    FcpVerdict::Long => "long",
                    FcpVerdict::Lpcrc => "bad LPCRC",
                    FcpVerdict::ReservedOp => "reserved Op",
                    FcpVerdict::Vl15 => "VL15",
                    FcpVerdict::VlCap => "VL >= VLCap",
                })
                .or_default() += 1;
            if matches!(want, FcpVerdict::Good { .. }) {
                accepted += 1;
            } else {
                rejected += 1;
            }
            words.clear();
            fcp_filler(&mut rng, lanes, &mut words);
            let fill = rng.u64();
            let mut ws = fcp_item_words(&frame, lanes, true, true, fill);
            // keep is read on the eop word only: junk on the others now and then.
            if ws.len() > 1 && rng.chance(1, 16) {
                let w = rng.usize(ws.len() - 1);
                ws[w].keep = rng.u8();
            }
            for (j, w) in ws.iter().enumerate() {
                if j > 0 && rng.chance(1, 16) {
                    // A gap inside the link packet.
                    words.push(FcpRxIn {
                        rx_valid: false,
                        rx_sop: rng.bool(),
                        rx_data: rng.u64(),
                        ..Default::default()
                    });
                }
                words.push(w.input());
            }
            expect.push_back((i, frame.clone(), want));
            for w in &words {
                step(&mut twin, &mut prev, &mut expect, w);
            }
            if i % 1024 == 0 {
                donor = frame;
            }
        }
        for _ in 0..FCP_LATENCY + 1 {
            step(&mut twin, &mut prev, &mut expect, &FcpRxIn::default());
        }
        assert!(
            expect.is_empty(),
            "frames the twin never judged: {:?}",
            expect.front().map(|e| ctx(e.0, &e.1))
        );
    }
    eprintln!(
        "FCP RX twin = model on {} frames: {accepted} accepted, {rejected} rejected",
        accepted + rejected
    );
    assert!(accepted + rejected >= n);
    let rows: Vec<(&str, u64)> = ["accepted", "short", "long", "bad LPCRC", "reserved Op", "VL15", "VL >= VLCap"]
        .iter()
        .map(|k| (*k, tally.get(k).copied().unwrap_or(0)))
        .collect();
    support::coverage("FCP RX twin", n / 100, &rows);
    assert!(
        accepted >= n / 4 && rejected >= n / 4,
        "FCP RX twin: {accepted} accepted, {rejected} rejected"
    );
}

// ---------------------------------------------------------------------------------
// Link RX

/// The link RX verdict on one data packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LinkVerdict {
    status: u8,
    /// For a good packet: what goes to the credit block or the VL15 buffer.
    acc_valid: bool,
    vl15_accept: bool,
    vl: u8,
    blocks: u8,
}

/// The check written here from docs/spec.md §1, §3, §7 (LRH PktLen in byte 4 [2:0] and byte
/// 5; length `PktLen*4 + 2` with PktLen 6..=1048; VCRC over the rest, low byte first;
/// VL in byte 0 [7:4], good below VLCap and VL15).
fn spec_status(b: &[u8], cap: VlCap) -> u8 {
    if b.len() < 6 {
        return STATUS_LENGTH;
    }
    let pkt_len = ((b[4] as usize & 7) << 8) | b[5] as usize;
    if b.len() != pkt_len * 4 + 2 || !(MIN_PKT_LEN as usize..=MAX_PKT_LEN as usize).contains(&pkt_len) {
        return STATUS_LENGTH;
    }
    let n = b.len();
    if crc16(&b[..n - 2]).to_le_bytes() != b[n - 2..] {
        return STATUS_VCRC;
    }
    let vl = b[0] >> 4;
    if vl == VL15 || vl < cap.get() {
        STATUS_GOOD
    } else {
        STATUS_BAD_VL
    }
}

/// The model's verdict (`judge`), checked against [`spec_status`] and the IBA parser.
fn model_link(b: &[u8], cap: VlCap) -> LinkVerdict {
    let v = judge(b, b.len(), cap);
    assert_eq!(v.status, spec_status(b, cap), "the model's packet check and docs/spec.md disagree");
    // The IBA parser reads the same length and VCRC, before its own header checks.
    let in_range = |p: u16| (MIN_PKT_LEN..=MAX_PKT_LEN).contains(&p);
    match iba::parse(b) {
        Err(ParseError::Short { .. } | ParseError::PktLen { .. }) => assert_eq!(v.status, STATUS_LENGTH),
        Err(ParseError::BadVcrc { .. }) => assert!(v.status == STATUS_VCRC || v.status == STATUS_LENGTH),
        Ok(p) => {
            assert!(
                v.status == STATUS_GOOD || v.status == STATUS_BAD_VL || !in_range(p.pkt_len),
                "IBA accepts, the check says {}",
                v.status
            );
            if v.status == STATUS_GOOD {
                assert_eq!((v.vl, v.blocks as u16), (p.fields.vl, blocks_for_pkt_len(p.pkt_len)));
            }
        }
        // ICRC and header fields: the link layer does not look at them.
        Err(_) => assert!(v.status == STATUS_GOOD || v.status == STATUS_BAD_VL || v.status == STATUS_LENGTH),
    }
    let good = v.status == STATUS_GOOD;
    LinkVerdict {
        status: v.status,
        acc_valid: good && v.vl != VL15,
        vl15_accept: good && v.vl == VL15,
        vl: if good { v.vl } else { 0 },
        blocks: if good { v.blocks } else { 0 },
    }
}

fn twin_link(o: &LinkRxOut) -> Option<LinkVerdict> {
    if !o.done {
        assert!(!o.acc_valid && !o.vl15_accept, "an accept without a verdict: {o:?}");
        return None;
    }
    let good = o.done_status == STATUS_GOOD;
    assert!(!(o.acc_valid || o.vl15_accept) || good, "an accept with a bad verdict: {o:?}");
    Some(LinkVerdict {
        status: o.done_status,
        acc_valid: o.acc_valid,
        vl15_accept: o.vl15_accept,
        vl: if good { o.acc_vl } else { 0 },
        blocks: if good { o.acc_blocks } else { 0 },
    })
}

/// A PktLen: mostly short packets (every word boundary at both widths), now and then
/// longer ones up to the largest. (Long packets cost a clock a word; they are few so
/// that a million packets take seconds.)
fn pkt_len(rng: &mut Rng) -> u16 {
    match rng.below(256) {
        0 if rng.bool() => rng.range(65, MAX_PKT_LEN as u64) as u16,
        0 => *rng.pick(&[MAX_PKT_LEN - 1, MAX_PKT_LEN]),
        1..=16 => rng.range(17, 64) as u16,
        _ => rng.range(MIN_PKT_LEN as u64, 16) as u16,
    }
}

/// A VL: mostly a data VL of the port, often VL15 or one at or above VLCap.
fn link_vl(rng: &mut Rng, cap: VlCap) -> u8 {
    match rng.below(8) {
        0 => VL15,
        1 => rng.range(cap.get().min(14) as u64, 14) as u8,
        _ => rng.below(cap.get() as u64) as u8,
    }
}

/// A data packet on the wire with a good VCRC: an IBA packet from the model's builder
/// (ICRC and all), or a raw LRH with random bytes behind it (the link layer reads only
/// VL, PktLen and the VCRC).
fn good_packet(rng: &mut Rng, cap: VlCap) -> Vec<u8> {
    let vl = link_vl(rng, cap);
    let pl = pkt_len(rng);
    if rng.bool() {
        let transport = if pl < 8 || rng.chance(1, 4) {
            Transport::RcSendOnly
        } else {
            Transport::UdSendOnly {
                q_key: rng.u64() as u32,
                src_qp: rng.below(1 << 24) as u32,
            }
        };
        let f = PacketFields {
            vl,
            sl: rng.below(16) as u8,
            dlid: rng.u64() as u16,
            slid: rng.u64() as u16,
            transport,
            psn: rng.below(1 << 24) as u32,
            ..PacketFields::default()
        };
        let payload = pl as usize * 4 - 20 - transport.ext_header_bytes() - 4;
        iba::build(&f, &rng.bytes(payload)).unwrap()
    } else {
        let mut p = rng.bytes(pl as usize * 4);
        p[0] = vl << 4 | (p[0] & 0xf);
        p[4] = (p[4] & 0xf8) | (pl >> 8) as u8;
        p[5] = pl as u8;
        let c = crc16(&p).to_le_bytes();
        p.extend_from_slice(&c);
        p
    }
}

fn reseal_vcrc(p: &mut [u8]) {
    let n = p.len();
    if n >= 2 {
        let c = crc16(&p[..n - 2]).to_le_bytes();
        p[n - 2..].copy_from_slice(&c);
    }
}

/// One data packet: valid, or corrupted.
fn link_frame(rng: &mut Rng, cap: VlCap, donor: &[u8]) -> Vec<u8> {
    match rng.below(40) {
        0..=15 => good_packet(rng, cap),
        // One to three bit flips anywhere: LRH (VL, PktLen), payload, VCRC.
        16..=21 => {
            let mut p = good_packet(rng, cap);
            for _ in 0..rng.range(1, 3) {
                let at = if rng.bool() {
                    rng.usize(8.min(p.len()))
                } else {
                    rng.usize(p.len())
                };
                p[at] ^= 1 << rng.below(8);
            }
            p
        }
        // Wrong length: truncated or extended by whole dwords or odd bytes, the VCRC
        // over what is sent or stale.
        22..=25 => {
            let mut p = good_packet(rng, cap);
            if rng.bool() {
                let cut = rng.range(1, 8.min(p.len() as u64 - 1)) as usize;
                p.truncate(p.len() - cut);
            } else {
                let extra = if rng.bool() {
                    4 * rng.range(1, 3) as usize
                } else {
                    rng.range(1, 9) as usize
                };
                p.extend(rng.bytes(extra));
            }
            if rng.bool() {
                reseal_vcrc(&mut p);
            }
            p
        }
        // PktLen out of range with a length that matches it and a good VCRC.
        26 => {
            let pl = match rng.below(8) {
                0..=5 => rng.below(MIN_PKT_LEN as u64) as u16,
                // Just above the range, and the edges of the range logic's terms.
                6 => *rng.pick(&[1049u16, 1050, 1055, 1056, 1057, 1064, 1080, 1536, 2047]),
                _ => rng.range(MAX_PKT_LEN as u64 + 1, 2047) as u16,
            };
            let mut p = rng.bytes((pl.max(2) as usize) * 4);
            p[0] = link_vl(rng, cap) << 4 | (p[0] & 0xf);
            p[4] = (p[4] & 0xf8) | (pl >> 8) as u8;
            p[5] = pl as u8;
            p.truncate(pl as usize * 4);
            if p.len() < 8 {
                // PktLen 0 or 1 cannot hold its own LRH: send the LRH anyway.
                p.resize(8, 0);
            }
            p.extend_from_slice(&[0, 0]);
            reseal_vcrc(&mut p);
            p
        }
        // VL15 or a VL at or above VLCap, everything else right.
        27..=29 => {
            let mut p = good_packet(rng, cap);
            p[0] = (rng.range(cap.get().min(15) as u64, 15) as u8) << 4 | (p[0] & 0xf);
            reseal_vcrc(&mut p);
            p
        }
        // Random bytes.
        30 | 31 => {
            let l = rng.range(1, 64) as usize;
            rng.bytes(l)
        }
        // Mutated (splices, insertions, deletions, ...), the VCRC recomputed or not.
        _ => {
            let mut p = good_packet(rng, cap);
            mutate(rng, &mut p, donor, 3);
            if p.is_empty() {
                p.push(rng.u8());
            }
            if rng.bool() {
                reseal_vcrc(&mut p);
            }
            p
        }
    }
}

/// Between packets: nothing, idle clocks, an FCP or other link packet, or a data
/// packet cut off by the next item (an abort, no verdict).
fn link_filler(rng: &mut Rng, cap: VlCap, lanes: usize, out: &mut Vec<LinkRxIn>) -> bool {
    match rng.below(16) {
        0..=9 => false,
        10..=12 => {
            for _ in 0..rng.range(1, 3) {
                out.push(LinkRxIn {
                    rx_valid: false,
                    rx_data: rng.u64(),
                    rx_keep: rng.u8(),
                    rx_sop: rng.bool(),
                    rx_eop: rng.bool(),
                    rx_link: rng.bool(),
                    reset: false,
                });
            }
            false
        }
        13 | 14 => {
            let l = if rng.bool() { 6 } else { rng.range(1, 24) as usize };
            out.extend(link_item_words(&rng.bytes(l), lanes, true));
            false
        }
        _ => {
            let p = good_packet(rng, cap);
            let mut ws = link_item_words(&p, lanes, false);
            let keep = rng.range(1, ws.len().max(2) as u64 - 1) as usize;
            ws.truncate(keep.min(ws.len()));
            ws.last_mut().unwrap().rx_eop = false;
            out.extend(ws);
            true
        }
    }
}

#[test]
fn fuzz_link_rx_twin_against_model() {
    let base = support::base_seed(0x11c2_0001);
    let n = inputs();
    let configs = configs();
    let mut tally = std::collections::BTreeMap::<&str, u64>::new();
    let (mut accepted, mut rejected, mut cut) = (0u64, 0u64, 0u64);
    for (k, &(cap, width)) in configs.iter().enumerate() {
        let frames = n.div_ceil(configs.len() as u64);
        let seed = support::case_seed(base, k as u64);
        let mut rng = Rng::new(seed);
        let lanes = width / 8;
        let mut twin = LinkRxTwin::new(cap.get() as usize, width);
        let mut expect: VecDeque<(u64, Vec<u8>, LinkVerdict)> = VecDeque::new();
        let mut donor = good_packet(&mut rng, cap);
        let mut words: Vec<LinkRxIn> = Vec::with_capacity(1100);
        let (mut aborts_sent, mut aborts_seen) = (0u64, 0u64);
        let ctx = |i: u64, b: &[u8]| {
            format!(
                "link RX VLCap {} w{width}, frame {i} of IBLINK_FUZZ_SEED={base:#x} (stream seed {seed:#x}): {}",
                cap.get(),
                hex(b)
            )
        };
        let step = |twin: &mut LinkRxTwin, expect: &mut VecDeque<(u64, Vec<u8>, LinkVerdict)>, aborts: &mut u64, i: &LinkRxIn| {
            let o = twin.step(i);
            *aborts += o.out_abort as u64;
            let got =
                std::panic::catch_unwind(|| twin_link(&o)).unwrap_or_else(|_| panic!("at {:?}", expect.front().map(|e| ctx(e.0, &e.1))));
            if let Some(v) = got {
                let (i, b, want) = expect
                    .pop_front()
                    .unwrap_or_else(|| panic!("link RX VLCap {} w{width}: a verdict {v:?} with no packet sent", cap.get()));
                assert_eq!(v, want, "twin and model disagree on {}", ctx(i, &b));
            }
        };
        for i in 0..frames {
            let frame = link_frame(&mut rng, cap, &donor);
            let want =
                std::panic::catch_unwind(|| model_link(&frame, cap)).unwrap_or_else(|_| panic!("model checks on {}", ctx(i, &frame)));
            *tally
                .entry(match want.status {
                    STATUS_GOOD if want.vl == VL15 => "accepted VL15",
                    STATUS_GOOD => "accepted data VL",
                    STATUS_VCRC => "bad VCRC",
                    STATUS_LENGTH => "bad length",
                    _ => "bad VL",
                })
                .or_default() += 1;
            if want.status == STATUS_GOOD {
                accepted += 1;
            } else {
                rejected += 1;
            }
            words.clear();
            if link_filler(&mut rng, cap, lanes, &mut words) {
                aborts_sent += 1;
            }
            let mut ws = link_item_words(&frame, lanes, false);
            for w in ws.iter_mut() {
                // keep is read on the eop word only; lanes past it are ignored.
                if !w.rx_eop && rng.chance(1, 32) {
                    w.rx_keep = rng.u8();
                }
                if w.rx_eop {
                    let used = 8 * (8 - w.rx_keep.leading_zeros() as usize);
                    if used < 64 {
                        w.rx_data |= rng.u64() << used;
                    }
                }
            }
            for (j, w) in ws.iter().enumerate() {
                if j > 0 && rng.chance(1, 32) {
                    // A gap inside the packet.
                    words.push(LinkRxIn {
                        rx_valid: false,
                        rx_sop: rng.bool(),
                        rx_link: rng.bool(),
                        rx_data: rng.u64(),
                        ..Default::default()
                    });
                }
                words.push(*w);
            }
            expect.push_back((i, frame.clone(), want));
            for w in &words {
                step(&mut twin, &mut expect, &mut aborts_seen, w);
            }
            if i % 1024 == 0 {
                donor = frame;
            }
        }
        for _ in 0..LINK_LATENCY + 1 {
            step(&mut twin, &mut expect, &mut aborts_seen, &LinkRxIn::default());
        }
        assert!(
            expect.is_empty(),
            "packets the twin never judged: {:?}",
            expect.front().map(|e| ctx(e.0, &e.1))
        );
        assert_eq!(aborts_seen, aborts_sent, "link RX VLCap {} w{width}: cut packets", cap.get());
        cut += aborts_sent;
    }
    eprintln!(
        "link RX twin = model on {} packets: {accepted} accepted, {rejected} rejected ({cut} cut packets between them)",
        accepted + rejected
    );
    assert!(accepted + rejected >= n);
    let rows: Vec<(&str, u64)> = ["accepted data VL", "accepted VL15", "bad VCRC", "bad length", "bad VL"]
        .iter()
        .map(|k| (*k, tally.get(k).copied().unwrap_or(0)))
        .collect();
    support::coverage("link RX twin", n / 100, &rows);
    assert!(
        accepted >= n / 4 && rejected >= n / 4,
        "link RX twin: {accepted} accepted, {rejected} rejected"
    );
}
