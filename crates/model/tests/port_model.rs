//! The composed port model (docs/spec.md §4–§8) run back to back.

use iblink_model::arbiter::{ArbEntry, TableId};
use iblink_model::config::PortConfig;
use iblink_model::failsafe::ResyncReason;
use iblink_model::fcp::{encode_fields, Fcp, FcpOp};
use iblink_model::port::{
    LinkItem, LinkState, PortModel, PortPair, StepOut, DEFAULT_ACTIVATE_AFTER,
};
use iblink_model::sl2vl::VlCap;

fn pair(cfg: &PortConfig) -> PortPair {
    let mut a = PortModel::new(cfg);
    let mut b = PortModel::new(cfg);
    a.set_drain_rate(cfg.datapath_bytes as u32);
    b.set_drain_rate(cfg.datapath_bytes as u32);
    PortPair::new(a, b, DEFAULT_ACTIVATE_AFTER)
}

fn fcp_of(item: &LinkItem) -> Option<Fcp> {
    match item {
        LinkItem::Fcp(b) => Some(Fcp::decode(b, VlCap::MAX).unwrap()),
        _ => None,
    }
}

fn fill(p: &mut PortModel, pkt_len: u16) {
    for vl in 0..p.vl_cap().get() {
        while p.enqueue(vl, pkt_len).is_ok() {}
    }
}

#[test]
fn init_fcps_carry_op1_and_no_data_before_active() {
    let cfg = PortConfig::default();
    let mut p = pair(&cfg);
    fill(&mut p.a, 1024);
    let mut init_vls = vec![];
    for _ in 0..DEFAULT_ACTIVATE_AFTER - 1 {
        let (oa, _) = p.step();
        if let Some(item) = oa.started {
            let f = fcp_of(&item).expect("only FCPs before LinkActive");
            assert_eq!(f.op, FcpOp::Init);
            init_vls.push(f.vl);
        }
    }
    assert_eq!(init_vls, [0, 1, 2, 3], "one init FCP per data VL");
    // The peer's init FCPs gave every VL its CL = FCCL = 0 + min(256, 2048).
    for vl in 0..4 {
        assert_eq!(p.a.tx_credits(vl).cl(), 256);
    }
    p.step();
    assert_eq!(p.a.link_state(), LinkState::Active);
    let mut data = 0;
    for _ in 0..20_000 {
        let (oa, _) = p.step();
        match oa.started {
            Some(LinkItem::Data { .. }) => data += 1,
            Some(item) => assert_eq!(fcp_of(&item).unwrap().op, FcpOp::Normal),
            None => {}
        }
    }
    assert!(data > 0);
}

#[test]
fn vl15_then_fcp_then_data() {
    let cfg = PortConfig::default();
    let mut p = PortModel::new(&cfg);
    p.set_link_state(LinkState::Active);
    // Credits for every VL; meanwhile p sends its own four link-init FCPs.
    for vl in 0..4 {
        p.step(Some(LinkItem::Fcp(
            Fcp::new(FcpOp::Normal, 0, vl, 200).unwrap().encode(),
        )));
    }
    for _ in 0..20 {
        p.step(None);
    }
    assert!(!p.busy());
    // A packet arrives on VL1 and is drained: VL1's FCCL moves, so an on-change FCP for
    // VL1 falls due once the minimum gap has passed.
    p.step(Some(LinkItem::Data { vl: 1, pkt_len: 18 }));
    p.drain(1).unwrap();
    // A long VL15 packet occupies the transmitter meanwhile; behind it a data packet
    // and another VL15 packet queue up.
    p.enqueue_vl15(1000).unwrap();
    let mut order = vec![];
    for t in 0..3000 {
        if t == 10 {
            p.enqueue(0, 100).unwrap();
            p.enqueue_vl15(64).unwrap();
        }
        if let Some(item) = p.step(None).started {
            order.push(match item {
                LinkItem::Vl15 { pkt_len } => format!("vl15/{pkt_len}"),
                LinkItem::Fcp(b) => format!("fcp/vl{}", fcp_of(&LinkItem::Fcp(b)).unwrap().vl),
                LinkItem::Data { vl, .. } => format!("data/vl{vl}"),
            });
        }
    }
    // docs/spec.md §5: VL15 > FCP > data, at packet boundaries.
    assert_eq!(order, ["vl15/1000", "vl15/64", "fcp/vl1", "data/vl0"]);
}

#[test]
fn fcp_beats_data_when_both_pending() {
    let cfg = PortConfig::default();
    let mut p = PortModel::new(&cfg);
    p.set_link_state(LinkState::Active);
    // In the first clock all four VLs are due (link init) and data is queued with credit.
    for vl in 0..4 {
        p.step(Some(LinkItem::Fcp(
            Fcp::new(FcpOp::Normal, 0, vl, 500).unwrap().encode(),
        )));
    }
    let mut p2 = PortModel::new(&cfg);
    p2.set_link_state(LinkState::Active);
    p2.enqueue(0, 100).unwrap();
    let mut starts = vec![];
    for _ in 0..50 {
        if let Some(s) = p2.step(None).started {
            starts.push(s);
        }
    }
    // No credit yet for p2 (CL = 0): only the four FCPs.
    assert_eq!(starts.len(), 4);
    assert!(starts.iter().all(|s| matches!(s, LinkItem::Fcp(_))));
    assert_eq!(p2.txq_len(0), 1);
    // p had credit and data queued behind due FCPs: FCPs first.
    p.enqueue(0, 100).unwrap();
    let kinds: Vec<bool> = (0..50)
        .filter_map(|_| p.step(None).started)
        .map(|s| matches!(s, LinkItem::Fcp(_)))
        .collect();
    let first_data = kinds.iter().position(|&f| !f).unwrap();
    assert!(kinds[..first_data].iter().all(|&f| f));
}

/// Every data VL gets an FCP before 65,536 symbol times pass (docs/spec.md §5), also while
/// the link is saturated with maximum-size packets, at both datapath widths.
#[test]
fn refresh_bound_holds_under_saturation() {
    for bits in [32, 64] {
        let cfg = PortConfig::from_toml(&format!("datapath_bits = {bits}\nbuffer_blocks = 4095"))
            .unwrap();
        let w = cfg.datapath_bytes as u64;
        let bound = 65_536 / w;
        let mut p = pair(&cfg);
        let mut last = [None::<u64>; 4];
        let mut worst = 0;
        for t in 0..(bound * 6) {
            fill(&mut p.a, 1048);
            fill(&mut p.b, 1048);
            let (oa, _) = p.step();
            if let Some(f) = oa.started.as_ref().and_then(fcp_of) {
                if let Some(prev) = last[f.vl as usize] {
                    worst = worst.max(t - prev);
                }
                last[f.vl as usize] = Some(t);
            }
        }
        assert!(worst > 0);
        assert!(
            worst < bound,
            "{bits}-bit: FCP gap {worst} clocks >= {bound}"
        );
        assert!(p.a.stats().data_sent > 50);
        assert_eq!(p.a.stats().overruns + p.b.stats().overruns, 0);
    }
}

/// Long back-to-back saturated run: no overruns, credits agree, every VL moves data,
/// and bandwidth follows the low table's weights.
#[test]
fn saturated_pair_keeps_credits_consistent() {
    let cfg = PortConfig::from_toml("low = [[0, 64], [1, 64], [2, 128], [3, 0]]").unwrap();
    let mut p = pair(&cfg);
    for _ in 0..2_000_000 {
        fill(&mut p.a, 1024);
        fill(&mut p.b, 1024);
        p.step();
    }
    for port in [&p.a, &p.b] {
        assert_eq!(port.stats().overruns, 0);
        assert_eq!(port.stats().fcp_errors, 0);
        assert_eq!(port.stats().resyncs, 0);
        assert!(port.stats().blocks_sent > 4096 * 25, "wrapped many times");
    }
    // Per-VL: A's FCTBS vs B's ABR differ only by blocks in flight (< one packet + wire).
    for vl in 0..4 {
        let fctbs = p.a.tx_credits(vl).fctbs();
        let abr = p.b.rx_credits(vl).abr();
        assert!(
            fctbs.wrapping_sub(abr) & 0xfff <= 64,
            "vl{vl}: FCTBS {fctbs} ABR {abr}"
        );
    }
    // VL3 has weight 0 (skipped) and is in no other table: it never sends.
    assert_eq!(p.a.tx_credits(3).fctbs(), 0);
}

#[test]
fn weights_share_bandwidth() {
    let cfg =
        PortConfig::from_toml("low = [[0, 64], [1, 128], [2, 64], [3, 64]]\nbuffer_blocks = 4095")
            .unwrap();
    let mut p = pair(&cfg);
    let mut per_vl = [0u64; 4];
    for _ in 0..400_000 {
        fill(&mut p.a, 1024);
        fill(&mut p.b, 1024);
        if let Some(g) = p.step().0.grant {
            per_vl[g.vl as usize] += g.blocks as u64;
        }
    }
    // VL1 has twice the weight: twice the blocks (within a packet or two).
    let ratio = per_vl[1] as f64 / per_vl[0] as f64;
    assert!((1.9..2.1).contains(&ratio), "{per_vl:?}");
    assert!(
        (per_vl[0] as i64 - per_vl[2] as i64).abs() <= 128,
        "{per_vl:?}"
    );
}

#[test]
fn lost_data_packet_repaired_by_next_fcp() {
    let cfg = PortConfig::default();
    let mut p = pair(&cfg);
    for _ in 0..DEFAULT_ACTIVATE_AFTER + 5 {
        p.step();
    }
    p.a.enqueue(2, 1024).unwrap();
    let mut lost = false;
    for _ in 0..20_000 {
        p.step();
        let (ab, _) = p.wire_mut();
        if let Some(LinkItem::Data { vl: 2, .. }) = ab {
            if !lost {
                *ab = None;
                lost = true;
                p.a.enqueue(2, 18).unwrap();
            }
        }
    }
    assert!(lost);
    // B's ABR lagged by 64 blocks until A's next FCP for VL2 carried FCTBS 65.
    assert_eq!(p.a.tx_credits(2).fctbs(), 65);
    assert_eq!(p.b.rx_credits(2).abr(), 65);
    assert_eq!(p.b.stats().data_received, 1);
}

#[test]
fn corrupted_fcp_is_discarded() {
    let mut p = PortModel::new(&PortConfig::default());
    let mut b = Fcp::new(FcpOp::Normal, 7, 1, 99).unwrap().encode();
    b[5] ^= 0x40;
    p.step(Some(LinkItem::Fcp(b)));
    let reserved = encode_fields(2, 7, 1, 99).unwrap();
    p.step(Some(LinkItem::Fcp(reserved)));
    let vl15 = encode_fields(0, 7, 15, 99).unwrap();
    p.step(Some(LinkItem::Fcp(vl15)));
    let vl9 = encode_fields(0, 7, 9, 99).unwrap();
    p.step(Some(LinkItem::Fcp(vl9)));
    assert_eq!(p.stats().fcp_errors, 4);
    assert_eq!(p.stats().fcp_received, 0);
    assert_eq!((p.tx_credits(1).cl(), p.rx_credits(1).abr()), (0, 0));
    p.step(Some(LinkItem::Fcp(
        Fcp::new(FcpOp::Normal, 7, 1, 99).unwrap().encode(),
    )));
    assert_eq!((p.tx_credits(1).cl(), p.rx_credits(1).abr()), (99, 7));
}

#[test]
fn bad_vl_data_and_vl15_overflow_are_dropped_and_counted() {
    let mut p = PortModel::new(&PortConfig::default());
    p.step(Some(LinkItem::Data { vl: 4, pkt_len: 18 }));
    p.step(Some(LinkItem::Data {
        vl: 15,
        pkt_len: 18,
    }));
    assert_eq!(p.stats().bad_vl, 2);
    for _ in 0..3 {
        p.step(Some(LinkItem::Vl15 { pkt_len: 64 }));
    }
    assert_eq!((p.stats().vl15_received, p.stats().vl15_dropped), (1, 2));
    assert_eq!(p.vl15_rx().dropped(), 2);
    assert!(p.drain_vl15());
    p.step(Some(LinkItem::Vl15 { pkt_len: 64 }));
    assert_eq!(p.stats().vl15_received, 2);
}

#[test]
fn sl_mapping_routes_packets() {
    let mut p = PortModel::new(&PortConfig::default());
    p.sl2vl_mut().set(5, 3).unwrap();
    p.enqueue_sl(5, 18).unwrap();
    p.enqueue_sl(15, 18).unwrap();
    assert_eq!(p.txq_len(3), 1);
    // SL15 went to VL15: it is the first thing sent.
    assert_eq!(p.step(None).started, Some(LinkItem::Vl15 { pkt_len: 18 }));
}

#[test]
fn overrun_drops_without_corrupting_state() {
    let cfg = PortConfig::from_toml("buffer_blocks = 66").unwrap();
    let mut p = PortModel::new(&cfg);
    p.step(Some(LinkItem::Data {
        vl: 0,
        pkt_len: 1024,
    })); // 64 blocks
    let before = *p.rx_credits(0);
    p.step(Some(LinkItem::Data {
        vl: 0,
        pkt_len: 100,
    })); // 7 blocks > 2 free
    assert_eq!(p.stats().overruns, 1);
    assert_eq!(p.rx_credits(0).abr(), before.abr());
    assert_eq!(p.rx_credits(0).free(), before.free());
    assert_eq!(p.rxq_len(0), 1);
}

/// Receiver-detected failsafe: overruns in more than `overrun_periods` consecutive FCP
/// periods request a resync; the resync re-initialises credits and restarts with init
/// FCPs.
#[test]
fn overrun_threshold_resyncs() {
    let cfg = PortConfig::from_toml(
        "buffer_blocks = 66\noverrun_periods = 2\nupdate_monitor_periods = 0",
    )
    .unwrap();
    let period = cfg.spec_period_clocks() as u64;
    let mut p = PortModel::new(&cfg);
    p.set_link_state(LinkState::Active);
    let mut resync_at = None;
    for t in 0..period * 5 {
        // An overrun early in every period (the buffer is never drained).
        let input = (t % period == 10).then_some(LinkItem::Data {
            vl: 1,
            pkt_len: 1024,
        });
        let out = p.step(input);
        if let Some(r) = out.resync {
            resync_at = Some((t, r));
            break;
        }
    }
    // Period 0 fills the buffer (no overrun); periods 1, 2, 3 overrun; at the end of
    // period 3 that is 3 > 2 consecutive periods.
    assert_eq!(
        resync_at,
        Some((4 * period - 1, ResyncReason::OverrunThreshold { vl: 1 }))
    );
    assert_eq!(p.link_state(), LinkState::Initialize);
    assert_eq!(p.rx_credits(1).free(), 66);
    assert_eq!(p.rx_credits(1).abr(), 0);
    assert_eq!(p.rxq_len(1), 0);
    let first: Vec<Fcp> = (0..20)
        .filter_map(|_| p.step(None).started)
        .filter_map(|s| fcp_of(&s))
        .collect();
    assert_eq!(first.len(), 4);
    assert!(first.iter().all(|f| f.op == FcpOp::Init && f.fctbs == 0));
}

/// Transmitter-detected failsafe: no FCP for a VL for more than N periods -> resync of
/// both ends, init FCPs, then traffic resumes.
#[test]
fn update_monitor_resyncs_and_link_recovers() {
    let cfg = PortConfig::from_toml("update_monitor_periods = 2").unwrap();
    let period = cfg.spec_period_clocks() as u64;
    let mut p = pair(&cfg);
    let mut resync = None;
    for t in 0..period * 4 {
        fill(&mut p.a, 1024);
        fill(&mut p.b, 1024);
        // B's FCPs for VL2 vanish on the wire after the link is up.
        if t > 1000 {
            let (_, ba) = p.wire_mut();
            if let Some(f) = ba.as_ref().and_then(fcp_of) {
                if f.vl == 2 {
                    *ba = None;
                }
            }
        }
        let (oa, ob) = p.step();
        if let Some(r) = oa.resync.or(ob.resync) {
            resync = Some((t, r));
            break;
        }
    }
    let (t, r) = resync.expect("monitor fired");
    assert_eq!(r, ResyncReason::NoFcUpdate { vl: 2 });
    // The last good FCP for VL2 was at most one refresh period after clock 1000.
    assert!(
        t > 2 * period && t <= 1000 + cfg.refresh_clocks() as u64 + 2 * period + 2,
        "t = {t}"
    );
    assert_eq!(p.a.stats().resyncs, 1);
    assert_eq!(p.b.stats().resyncs, 1);
    assert_eq!(p.a.tx_credits(0).fctbs(), 0);
    assert_eq!(p.a.link_state(), LinkState::Initialize);
    let mut sent_after = 0;
    for _ in 0..100_000 {
        fill(&mut p.a, 1024);
        fill(&mut p.b, 1024);
        if p.step().0.grant.is_some() {
            sent_after += 1;
        }
    }
    assert!(sent_after > 50);
    assert_eq!(p.a.link_state(), LinkState::Active);
}

#[test]
fn table_rewrite_while_traffic_flows() {
    let cfg = PortConfig::default();
    let mut p = pair(&cfg);
    let mut grants: Vec<StepOut> = vec![];
    for t in 0..200_000 {
        fill(&mut p.a, 1024);
        fill(&mut p.b, 1024);
        if t == 100_000 {
            p.a.set_arb_table(TableId::Low, &[ArbEntry::new(3, 255)])
                .unwrap();
        }
        let (oa, _) = p.step();
        if oa.grant.is_some() && t > 110_000 {
            grants.push(oa);
        }
    }
    assert!(!grants.is_empty());
    assert!(grants.iter().all(|o| o.grant.unwrap().vl == 3));
}

#[test]
fn link_arm_sends_op0_fcps_but_no_data() {
    let mut p = PortModel::new(&PortConfig::default());
    p.set_link_state(LinkState::Arm);
    let mut started: Vec<LinkItem> = vec![];
    for vl in 0..4 {
        let init = Fcp::new(FcpOp::Init, 0, vl, 100).unwrap().encode();
        started.extend(p.step(Some(LinkItem::Fcp(init))).started);
        p.enqueue(vl, 18).unwrap();
    }
    started.extend((0..1000).filter_map(|_| p.step(None).started));
    assert_eq!(started.len(), 4);
    assert!(started
        .iter()
        .all(|s| fcp_of(s).unwrap().op == FcpOp::Normal));
    assert_eq!(p.stats().data_sent, 0);
    // Op 1 FCPs received in LinkArm still set CL (both operands carry credits).
    assert_eq!(p.tx_credits(3).cl(), 100);
    p.set_link_state(LinkState::Active);
    let data = (0..1000)
        .filter_map(|_| p.step(None).started)
        .filter(|s| matches!(s, LinkItem::Data { .. }))
        .count();
    assert_eq!(data, 4);
}
