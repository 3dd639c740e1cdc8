//! Link RX classifier: model, Rust twin and Verilator in lockstep on a random
//! receive stream, every VLCap at both widths; and directed checks in every back end —
//! seed 003's 4 KB packet (PktLen 1024 -> 64 blocks), every single-bit flip of a short
//! packet, VL routing, link packets and cut packets.

use iblink_model::crc16::crc16_wire;
use iblink_rtl::link_rx::{
    LinkRxIn, LinkRxOut, LATENCY, STATUS_BAD_VL, STATUS_GOOD, STATUS_LENGTH, STATUS_VCRC,
};
use iblink_sim::blocks::link_rx::{item_words, link_rx_sim};
use iblink_sim::blocks::Backend;
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The random lockstep with its coverage gates (`iblink_sim::tb::link_rx`).
fn run(vls: usize, width: usize) {
    let n = lockstep::cycles();
    tb::link_rx::run(vls, width, tb::link_rx::seed(vls, width), &TbOptions::test(n)).unwrap().assert_passed(n);
}

macro_rules! lockstep_tests {
    ($($name:ident: $vls:expr, $w:expr;)+) => {
        $(
            #[test]
            fn $name() {
                run($vls, $w);
            }
        )+
    };
}

lockstep_tests! {
    lockstep_vl1_w32: 1, 32;
    lockstep_vl2_w32: 2, 32;
    lockstep_vl4_w32: 4, 32;
    lockstep_vl8_w32: 8, 32;
    lockstep_vl15_w32: 15, 32;
    lockstep_vl1_w64: 1, 64;
    lockstep_vl2_w64: 2, 64;
    lockstep_vl4_w64: 4, 64;
    lockstep_vl8_w64: 8, 64;
    lockstep_vl15_w64: 15, 64;
}

/// Feed `words`, then idle clocks; the outputs of every clock.
fn drive(
    sim: &mut dyn CycleSim<In = LinkRxIn, Out = LinkRxOut>,
    words: &[LinkRxIn],
    idle: usize,
) -> Vec<LinkRxOut> {
    words
        .iter()
        .copied()
        .chain(std::iter::repeat_n(LinkRxIn::default(), idle))
        .map(|w| sim.step(&w))
        .collect()
}

/// A data packet built by hand per docs/spec.md §1 and §3 and the IBA LRH: VL/LVer, SL/LNH
/// (LNH 2), DLID, 5 reserved bits and PktLen (bytes 4-5), SLID; then a counting payload,
/// then the VCRC from the reference `crc16_wire`.
fn packet(vl: u8, pkt_len: u16) -> Vec<u8> {
    let mut p: Vec<u8> = (0..pkt_len as usize * 4)
        .map(|i| (i * 7 + 3) as u8)
        .collect();
    p[0] = vl << 4;
    p[1] = 0x02; // SL 0, LNH 2 (IBA local)
    p[4] = (pkt_len >> 8) as u8 & 7;
    p[5] = pkt_len as u8;
    let v = crc16_wire(&p);
    p.extend_from_slice(&v);
    p
}

/// The bytes delivered on out_* between the first out_sop and its out_eop.
fn delivered(outs: &[LinkRxOut], lanes: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for o in outs.iter().filter(|o| o.out_valid) {
        for lane in 0..lanes {
            if o.out_keep >> lane & 1 == 1 {
                bytes.push((o.out_data >> (8 * lane)) as u8);
            }
        }
        if o.out_eop {
            break;
        }
    }
    bytes
}

/// Seed 003: "a 4 KB packet (PktLen 1024 dwords) is 64 blocks". Accepted once, on its
/// VL, LATENCY clocks after its eop word; delivered unchanged with the VCRC.
#[test]
fn seed_003_packet_is_accepted_with_64_blocks() {
    for width in [32, 64] {
        let lanes = width / 8;
        let p = packet(3, 1024);
        assert_eq!(p.len(), 4098);
        let words = item_words(&p, lanes, false);
        let eop = words.len() - 1;
        for b in Backend::ALL {
            let mut s = link_rx_sim(4, width, b, None).unwrap();
            let outs = drive(s.as_mut(), &words, LATENCY + 2);
            let tag = format!("{} W{width}", b.name());
            let dones: Vec<usize> = (0..outs.len()).filter(|&t| outs[t].done).collect();
            assert_eq!(dones, vec![eop + LATENCY], "{tag}");
            let o = outs[eop + LATENCY];
            assert_eq!(
                (o.done_status, o.acc_valid, o.vl15_accept),
                (STATUS_GOOD, true, false),
                "{tag}"
            );
            assert_eq!((o.acc_vl, o.acc_blocks), (3, 64), "{tag}");
            assert_eq!(outs.iter().filter(|o| o.acc_valid).count(), 1, "{tag}");
            assert_eq!(outs[eop + LATENCY + 1].counts.good, 1, "{tag}");
            // Delivered one clock after it arrived, VCRC kept, VL shown.
            assert!(
                outs[1].out_sop && outs[1].out_vl == 3 && outs[eop + 1].out_eop,
                "{tag}"
            );
            assert_eq!(delivered(&outs, lanes), p, "{tag}");
        }
    }
}

/// Every single-bit flip of a shortest packet (PktLen 6: 26 bytes on the wire) is
/// caught: a flip in PktLen (byte 4 bits 2:0, byte 5) makes the byte count wrong, any
/// other a VCRC error; none is accepted. The packets go back to back.
#[test]
fn every_single_bit_flip_of_a_short_packet_is_caught() {
    for width in [32, 64] {
        let lanes = width / 8;
        let good = packet(1, 6);
        let mut words = item_words(&good, lanes, false);
        let mut want = vec![STATUS_GOOD];
        for bit in 0..good.len() * 8 {
            let mut p = good.clone();
            p[bit / 8] ^= 1 << (bit % 8);
            assert_ne!(p, good);
            words.extend(item_words(&p, lanes, false));
            let in_pktlen = (bit / 8 == 4 && bit % 8 < 3) || bit / 8 == 5;
            want.push(if in_pktlen {
                STATUS_LENGTH
            } else {
                STATUS_VCRC
            });
        }
        for b in Backend::ALL {
            let mut s = link_rx_sim(4, width, b, None).unwrap();
            let outs = drive(s.as_mut(), &words, LATENCY + 2);
            let got: Vec<u8> = outs
                .iter()
                .filter(|o| o.done)
                .map(|o| o.done_status)
                .collect();
            assert_eq!(got, want, "{} W{width}", b.name());
            assert_eq!(
                outs.iter().filter(|o| o.acc_valid || o.vl15_accept).count(),
                1,
                "{} W{width}",
                b.name()
            );
            let last = outs.last().unwrap().counts;
            assert_eq!(
                (last.good, last.length_error + last.vcrc_error),
                (1, 208),
                "{} W{width}",
                b.name()
            );
        }
    }
}

/// PortModel::receive's VL rules on a VLCap-4 port: VL 0-3 to the credits, VL15 to the
/// VL15 buffer, VL 4-14 dropped as a bad VL; an FCP in between is ignored; a packet cut
/// by an FCP's sop is reported with out_abort and never judged; valid gaps are fine.
#[test]
fn vl_routing_link_packets_and_cuts() {
    for width in [32, 64] {
        let lanes = width / 8;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let fcp = [0x10u8, 0, 0, 0, 0x58, 0x05]; // docs/spec.md §3's init FCP
        let mut words = Vec::new();
        words.extend(item_words(&packet(2, 20), lanes, false));
        words.extend(item_words(&fcp, lanes, true));
        let mut gappy = item_words(&packet(15, 40), lanes, false);
        gappy.insert(3, LinkRxIn::default());
        gappy.insert(
            3,
            LinkRxIn {
                rx_data: 0xffff_ffff,
                rx_sop: true,
                ..Default::default()
            },
        );
        words.extend(gappy);
        words.extend(item_words(&packet(4, 7), lanes, false));
        let mut cut = item_words(
            &iblink_sim::blocks::link_rx::data_packet(&mut rng, 1, 30),
            lanes,
            false,
        );
        cut.truncate(3);
        words.extend(cut);
        words.extend(item_words(&fcp, lanes, true));
        words.extend(item_words(&packet(0, 18), lanes, false));
        for b in Backend::ALL {
            let mut s = link_rx_sim(4, width, b, None).unwrap();
            let outs = drive(s.as_mut(), &words, LATENCY + 2);
            let tag = format!("{} W{width}", b.name());
            let dones: Vec<(u8, bool, bool, u8, u8)> = outs
                .iter()
                .filter(|o| o.done)
                .map(|o| {
                    (
                        o.done_status,
                        o.acc_valid,
                        o.vl15_accept,
                        o.acc_vl,
                        o.acc_blocks,
                    )
                })
                .collect();
            // Blocks: ceil((PktLen*4 - 8) / 64): 20 -> 2, 40 -> 3, 7 -> 1, 18 -> 1 (acc_vl and
            // acc_blocks follow every packet of the right length; only acc_valid and
            // vl15_accept say to take them).
            assert_eq!(
                dones,
                vec![
                    (STATUS_GOOD, true, false, 2, 2),
                    (STATUS_GOOD, false, true, 15, 3),
                    (STATUS_BAD_VL, false, false, 4, 1),
                    (STATUS_GOOD, true, false, 0, 1),
                ],
                "{tag}"
            );
            assert_eq!(outs.iter().filter(|o| o.out_abort).count(), 1, "{tag}");
            let c = outs.last().unwrap().counts;
            assert_eq!(
                (c.good, c.bad_vl, c.abort, c.vcrc_error, c.length_error),
                (3, 1, 1, 0, 0),
                "{tag}"
            );
        }
    }
}

/// The counters are 16 bits and saturate: 65,540 one-word data items (each a length
/// error: at most 8 bytes) and then 65,540 `sop` words without an `eop` (each cuts the
/// one before) leave the length-error and cut counters at 0xFFFF in every back end, in
/// lockstep with the model.
#[test]
fn counters_saturate() {
    for width in [32, 64] {
        let one = LinkRxIn {
            rx_valid: true,
            rx_sop: true,
            rx_eop: true,
            rx_keep: 1,
            ..Default::default()
        };
        let open = LinkRxIn {
            rx_eop: false,
            ..one
        };
        let stim: Vec<LinkRxIn> = std::iter::repeat_n(one, 65_540)
            .chain(std::iter::repeat_n(open, 65_540))
            .chain(std::iter::repeat_n(LinkRxIn::default(), LATENCY + 2))
            .collect();
        let mut sims: Vec<_> = Backend::ALL
            .iter()
            .map(|b| link_rx_sim(4, width, *b, None).unwrap())
            .collect();
        let mut refs: Vec<&mut dyn CycleSim<In = LinkRxIn, Out = LinkRxOut>> =
            sims.iter_mut().map(|s| s.as_mut() as _).collect();
        lockstep(&mut refs, stim).unwrap_or_else(|m| panic!("W{width}: {m}"));
        for s in refs.iter_mut() {
            let c = s.step(&LinkRxIn::default()).counts;
            assert_eq!(
                (c.length_error, c.abort, c.good),
                (0xffff, 0xffff, 0),
                "{} W{width}",
                s.backend()
            );
        }
    }
}

/// Packets built by the model's IBA builder (`iblink_model::iba::build`: LRH, BTH, DETH,
/// payload, ICRC, VCRC, as checked against tshark) are accepted on their VL with the
/// blocks the reference model charges, VL15 ones by the VL15 buffer.
#[test]
fn model_built_iba_packets_are_accepted() {
    use iblink_model::blocks::blocks_for_pkt_len;
    use iblink_model::iba::{build, PacketFields, Transport};
    for width in [32, 64] {
        let lanes = width / 8;
        let mut words = Vec::new();
        let mut want = Vec::new();
        for (k, (vl, payload)) in [
            (0u8, 0usize),
            (1, 1),
            (2, 2),
            (3, 3),
            (15, 256),
            (2, 4096),
            (0, 61),
        ]
        .into_iter()
        .enumerate()
        {
            let transport = if payload < 4 {
                Transport::RcSendOnly
            } else {
                Transport::UdSendOnly {
                    q_key: 7,
                    src_qp: 0x11,
                }
            };
            let f = PacketFields {
                vl,
                sl: if vl == 15 { 15 } else { vl },
                transport,
                psn: k as u32,
                ..Default::default()
            };
            let data: Vec<u8> = (0..payload).map(|i| (i * 13 + k) as u8).collect();
            let p = build(&f, &data).unwrap();
            let pkt_len = ((p.len() - 2) / 4) as u16;
            want.push((vl, blocks_for_pkt_len(pkt_len) as u8));
            words.extend(item_words(&p, lanes, false));
        }
        for b in Backend::ALL {
            let mut s = link_rx_sim(4, width, b, None).unwrap();
            let outs = drive(s.as_mut(), &words, LATENCY + 2);
            let got: Vec<(u8, u8)> = outs
                .iter()
                .filter(|o| o.done)
                .map(|o| {
                    assert_eq!(o.done_status, STATUS_GOOD, "{} W{width}", b.name());
                    assert_eq!(o.vl15_accept, o.acc_vl == 15, "{} W{width}", b.name());
                    assert_eq!(o.acc_valid, o.acc_vl != 15, "{} W{width}", b.name());
                    (o.acc_vl, o.acc_blocks)
                })
                .collect();
            assert_eq!(got, want, "{} W{width}", b.name());
        }
        // A 4096-byte UD SEND: 12 + 8 + 4096 + 4 bytes after the LRH = 65 blocks.
        assert_eq!(want[5], (2, 65));
    }
}
