//! ERF captures decoded by Wireshark's tshark, packet by packet.
//!
//! Data packets (ERF type 21) must decode with no malformed packet and no expert
//! warning or error, with the LRH, BTH and DETH fields, the payload and the CRC bytes
//! tshark reports equal to what was written. FCPs (ERF type 25) are checked with this
//! crate's ERF reader and `Fcp::decode`, raw bytes against `Fcp::encode`: Debian's
//! tshark 4.0 reads an InfiniBand link record as the 8-byte form of seed 000 and calls
//! a correct 6-byte FCP (docs/spec.md §2) malformed, so its verdict on them is not used
//! (its fields are compared when it does give them).
//!
//! tshark comes from the Debian package `tshark`, which `make deps` (tools/deps.sh)
//! installs; without it these tests fail and say so. Running it and checking a data
//! frame's fields is in [`iblink_testkit::tshark`] (shared with the `iblink sim` capture
//! test).

use iblink_model::config::PortConfig;
use iblink_model::erf::{read_all, Direction, ErfType, ErfWriter};
use iblink_model::fcp::{Fcp, FcpOp};
use iblink_model::iba::{self, ItemPackets, PacketFields, Transport, WireItem};
use iblink_model::port::{LinkItem, PortModel, PortPair, DEFAULT_ACTIVATE_AFTER};
use iblink_model::sl2vl::VlCap;
use rand::{rngs::StdRng, Rng, SeedableRng};
use std::path::{Path, PathBuf};
use iblink_testkit::tshark::{check_data, tshark_fields};

/// What was written, record by record.
struct Sent {
    clock: u64,
    dir: Direction,
    item: SentItem,
}

enum SentItem {
    Data {
        fields: PacketFields,
        payload: Vec<u8>,
        bytes: Vec<u8>,
    },
    Fcp {
        fcp: Fcp,
        bytes: Vec<u8>,
    },
}

const PERIOD_PS: u64 = 6_400; // 6.4 ns: a clock that is not a whole number of ns
const EPOCH: u32 = 1_700_000_000;

fn capture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}.erf", std::process::id()))
}

fn write_capture(path: &Path, sent: &[Sent]) {
    let mut w = ErfWriter::new(Vec::new(), PERIOD_PS)
        .unwrap()
        .with_epoch_secs(EPOCH);
    for s in sent {
        match &s.item {
            SentItem::Data { bytes, .. } => w.write(s.clock, s.dir, ErfType::InfiniBand, bytes),
            SentItem::Fcp { bytes, .. } => w.write(s.clock, s.dir, ErfType::InfiniBandLink, bytes),
        }
        .unwrap();
    }
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

#[derive(Default, Debug)]
struct Checked {
    data: usize,
    fcps: usize,
    fcps_tshark_fields: usize,
    fcps_tshark_malformed: usize,
}

/// Check every frame against what was sent; FCPs through the ERF reader.
fn check_capture(path: &Path, sent: &[Sent]) -> Checked {
    let frames = tshark_fields(path);
    assert_eq!(frames.len(), sent.len(), "tshark frames vs records written");
    let records = read_all(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(records.len(), sent.len(), "records read back");
    let mut c = Checked::default();
    for (i, ((fr, rec), s)) in frames.iter().zip(&records).zip(sent).enumerate() {
        let ctx = format!("frame {} (clock {}, {:?})", i + 1, s.clock, s.dir);
        assert_eq!(fr.n("frame.number"), i as u64 + 1, "{ctx}");
        // ERF header as tshark reads it.
        assert_eq!(
            fr.n("erf.flags.cap"),
            s.dir.iface() as u64,
            "{ctx}: interface"
        );
        assert_eq!(fr.n("erf.flags.vlen"), 1, "{ctx}: varying length flag");
        assert_eq!(fr.n("erf.lctr"), 0, "{ctx}");
        assert_eq!(fr.n("erf.rlen") % 8, 0, "{ctx}: rlen padded to 8");
        // Timestamp: clock x period after the epoch second, to the ns tshark prints.
        let (secs, ns) = fr.s("frame.time_epoch").split_once('.').unwrap();
        let got_ns = secs.parse::<u128>().unwrap() * 1_000_000_000 + ns.parse::<u128>().unwrap();
        let want_ps = EPOCH as u128 * 1_000_000_000_000 + s.clock as u128 * PERIOD_PS as u128;
        assert!(
            (got_ns * 1000).abs_diff(want_ps) <= 1000,
            "{ctx}: time {got_ns} ns, want {want_ps} ps"
        );
        // The same record through this crate's reader.
        assert_eq!(rec.direction(), Some(s.dir), "{ctx}");
        assert!(
            rec.ts_ps().abs_diff(want_ps) <= 117,
            "{ctx}: reader timestamp"
        );
        match &s.item {
            SentItem::Data {
                fields,
                payload,
                bytes,
            } => {
                c.data += 1;
                check_data(fr, &ctx, fields, payload, bytes, &[]);
                assert_eq!(rec.erf_type(), Some(ErfType::InfiniBand), "{ctx}");
                assert_eq!(&rec.data, bytes, "{ctx}: reader bytes");
            }
            SentItem::Fcp { fcp, bytes } => {
                c.fcps += 1;
                assert_eq!(fr.n("erf.types.type"), 25, "{ctx}");
                assert_eq!(fr.n("frame.len"), 6, "{ctx}");
                assert_eq!(fr.s("frame.protocols"), "erf:infiniband_link", "{ctx}");
                if !fr.s("_ws.malformed").is_empty() {
                    c.fcps_tshark_malformed += 1;
                }
                if !fr.s("infiniband_link.op").is_empty() {
                    c.fcps_tshark_fields += 1;
                    assert_eq!(fr.n("infiniband_link.op"), fcp.op as u64, "{ctx}");
                    assert_eq!(fr.n("infiniband_link.fctbs"), fcp.fctbs as u64, "{ctx}");
                    assert_eq!(fr.n("infiniband_link.vl"), fcp.vl as u64, "{ctx}");
                    assert_eq!(fr.n("infiniband_link.fccl"), fcp.fccl as u64, "{ctx}");
                }
                assert_eq!(rec.erf_type(), Some(ErfType::InfiniBandLink), "{ctx}");
                assert_eq!(rec.wlen, 6, "{ctx}");
                assert_eq!(rec.data, fcp.encode(), "{ctx}: raw FCP bytes");
                assert_eq!(&rec.data, bytes, "{ctx}");
                assert_eq!(Fcp::decode(&rec.data, VlCap::MAX), Ok(*fcp), "{ctx}");
            }
        }
    }
    c
}

fn random_fields(r: &mut StdRng) -> PacketFields {
    PacketFields {
        vl: r.gen_range(0..=15),
        sl: r.gen_range(0..=15),
        dlid: r.gen(),
        slid: r.gen(),
        transport: Transport::UdSendOnly {
            q_key: r.gen(),
            src_qp: r.gen_range(2..=0xff_ffff),
        },
        se: r.gen(),
        migreq: r.gen(),
        tver: 0,
        p_key: r.gen(),
        // QPs 0 and 1 are management QPs: their payload would be read as a MAD.
        dest_qp: r.gen_range(2..=0xff_ffff),
        ack_req: r.gen(),
        psn: r.gen_range(0..=0xff_ffff),
    }
}

fn random_payload_len(r: &mut StdRng) -> usize {
    match r.gen_range(0..100) {
        // Wireshark 4.0's EoIB heuristic throws on an empty UD payload, so at least 1.
        0..=4 => [1, 2, 3, 4, 4096][r.gen_range(0..5)],
        5..=69 => r.gen_range(1..=256),
        _ => r.gen_range(257..=4096),
    }
}

#[test]
fn random_traffic_decodes_in_tshark_field_by_field() {
    let mut r = StdRng::seed_from_u64(0x0e2f_2125);
    let mut sent = vec![];
    let mut clock = 0u64;
    for _ in 0..600 {
        clock += r.gen_range(0..40);
        let dir = if r.gen() {
            Direction::AToB
        } else {
            Direction::BToA
        };
        let item = if r.gen_range(0..3) < 2 {
            let fields = random_fields(&mut r);
            let mut payload: Vec<u8> = (0..random_payload_len(&mut r)).map(|_| r.gen()).collect();
            // Wireshark takes a UD payload whose first nibble is 0xC for Mellanox EoIB.
            if payload[0] & 0xf0 == 0xc0 {
                payload[0] ^= 0x80;
            }
            let bytes = iba::build(&fields, &payload).unwrap();
            SentItem::Data {
                fields,
                payload,
                bytes,
            }
        } else {
            let op = if r.gen() { FcpOp::Normal } else { FcpOp::Init };
            let fcp = Fcp::new(
                op,
                r.gen_range(0..4096),
                r.gen_range(0..15),
                r.gen_range(0..4096),
            )
            .unwrap();
            SentItem::Fcp {
                fcp,
                bytes: fcp.encode().to_vec(),
            }
        };
        sent.push(Sent { clock, dir, item });
    }
    let path = capture_path("random");
    write_capture(&path, &sent);
    let c = check_capture(&path, &sent);
    eprintln!("checked {c:?}");
    // The stimulus covered what it should.
    assert!(c.data >= 300 && c.fcps >= 150, "{c:?}");
    let count = |p: &dyn Fn(&Sent) -> bool| sent.iter().filter(|s| p(s)).count();
    let data = |s: &Sent, p: &dyn Fn(&PacketFields, &[u8]) -> bool| match &s.item {
        SentItem::Data {
            fields, payload, ..
        } => p(fields, payload),
        _ => false,
    };
    for d in [Direction::AToB, Direction::BToA] {
        assert!(count(&|s| s.dir == d && data(s, &|_, _| true)) >= 100);
        assert!(count(&|s| s.dir == d && matches!(s.item, SentItem::Fcp { .. })) >= 50);
    }
    for pad in 0..4 {
        assert!(count(&|s| data(s, &|_, p| (4 - p.len() % 4) % 4 == pad)) >= 40);
    }
    for vl in 0..16 {
        assert!(count(&|s| data(s, &|f, _| f.vl == vl)) >= 5, "VL {vl}");
    }
    assert!(count(&|s| data(s, &|_, p| p.len() > 2048)) >= 20);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn port_model_run_capture_decodes_in_tshark() {
    // Two ports back to back with ItemPackets turning their items into bytes, as a
    // `--capture` of a model run would. Packets of more than 8 dwords only: Wireshark
    // 4.0's heuristic payload dissectors call shorter (correct) packets malformed.
    let cfg = PortConfig::default();
    let mut a = PortModel::new(&cfg);
    let mut b = PortModel::new(&cfg);
    a.set_drain_rate(4);
    b.set_drain_rate(4);
    let mut pair = PortPair::new(a, b, DEFAULT_ACTIVATE_AFTER);
    let mut from_a = ItemPackets::new(PacketFields {
        slid: 0x11,
        dlid: 0x22,
        sl: 3,
        ..PacketFields::default()
    });
    let mut from_b = ItemPackets::new(PacketFields {
        slid: 0x22,
        dlid: 0x11,
        sl: 4,
        dest_qp: 0x11,
        transport: Transport::UdSendOnly {
            q_key: 0x8001_0000,
            src_qp: 0x10,
        },
        psn: 0x00ff_fff0,
        ..PacketFields::default()
    });
    let mut r = StdRng::seed_from_u64(77);
    let mut sent = vec![];
    for clock in 0..60_000u64 {
        for port in [&mut pair.a, &mut pair.b] {
            if port.txq_len(0) + port.txq_len(1) < 4 {
                let _ = port.enqueue(r.gen_range(0..4), r.gen_range(9..=300));
            }
        }
        let (oa, ob) = pair.step();
        for (out, dir, packets) in [
            (oa, Direction::AToB, &mut from_a),
            (ob, Direction::BToA, &mut from_b),
        ] {
            let Some(item) = out.tx else { continue };
            let wire = packets.wire(&item);
            let sent_item = match (&wire, item) {
                (WireItem::Data(bytes), LinkItem::Data { vl, pkt_len }) => {
                    let p = iba::parse(bytes).unwrap();
                    assert_eq!((p.fields.vl, p.pkt_len), (vl, pkt_len));
                    SentItem::Data {
                        fields: p.fields,
                        payload: p.payload.to_vec(),
                        bytes: bytes.clone(),
                    }
                }
                (WireItem::Link(bytes), LinkItem::Fcp(raw)) => SentItem::Fcp {
                    fcp: Fcp::decode(&raw, VlCap::MAX).unwrap(),
                    bytes: bytes.clone(),
                },
                other => panic!("unexpected item {other:?}"),
            };
            sent.push(Sent {
                clock,
                dir,
                item: sent_item,
            });
        }
    }
    let path = capture_path("port-run");
    // The same bytes written through write_item.
    let mut w = ErfWriter::new(Vec::new(), PERIOD_PS)
        .unwrap()
        .with_epoch_secs(EPOCH);
    for s in &sent {
        let wire = match &s.item {
            SentItem::Data { bytes, .. } => WireItem::Data(bytes.clone()),
            SentItem::Fcp { bytes, .. } => WireItem::Link(bytes.clone()),
        };
        w.write_item(s.clock, s.dir, &wire).unwrap();
    }
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    let c = check_capture(&path, &sent);
    eprintln!("checked {c:?}");
    let init_fcps = sent
        .iter()
        .filter(|s| matches!(s.item, SentItem::Fcp { fcp, .. } if fcp.op == FcpOp::Init))
        .count();
    assert!(c.data >= 200, "{c:?}");
    assert!(init_fcps >= 8 && c.fcps > init_fcps, "{c:?}");
    for d in [Direction::AToB, Direction::BToA] {
        assert!(sent.iter().filter(|s| s.dir == d).count() >= 100);
    }
    std::fs::remove_file(&path).unwrap();
}
