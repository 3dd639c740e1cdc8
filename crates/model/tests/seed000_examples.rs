//! Seed 000's three worked examples (docs/spec.md §4: acceptance tests, number for number),
//! driven through the credit types exactly as the seed narrates them.

use iblink_model::blocks::Mod4096;
use iblink_model::credits::{RxCredits, TxCredits};

/// "Step-by-Step Explanation", receive buffer of 3072 blocks, then "Receive Buffer Full".
#[test]
fn step_by_step_then_receive_buffer_full() {
    let mut rx = RxCredits::new(3072);
    let mut tx = TxCredits::new();
    // 1–3: free 3072, ABR 0, FCCL = ABR + 2048 (free capped at 2048) = 2048.
    assert_eq!((rx.free(), rx.abr(), rx.fccl()), (3072, 0, 2048));
    // 4: the FCP sets CL = 2048.
    tx.on_fcp(rx.fccl());
    assert_eq!(tx.cl(), 2048);
    // 5: FCTBS = 0.
    assert_eq!(tx.fctbs(), 0);
    // 6: NP = 10: CR = 10, CL - CR = 2038, may send.
    assert_eq!(tx.cr(10), 10);
    assert_eq!(tx.margin(10), 2038);
    assert!(tx.can_send(10));
    // 7: FCTBS = 10.
    tx.on_send(10);
    assert_eq!(tx.fctbs(), 10);
    // 8: ABR 10, free 3062, FCCL 2058.
    rx.accept(10).unwrap();
    assert_eq!((rx.abr(), rx.free(), rx.fccl()), (10, 3062, 2058));
    // 9: NP = 5: CR = 15 against CL 2048 (still 2048: no FCP since). The seed prints
    // "= 2038" for CL - CR, an arithmetic slip: 2048 - 15 = 2033. The decision, "can be
    // sent", is the same.
    assert_eq!(tx.cr(5), 15);
    assert_eq!(tx.cl(), 2048);
    assert_eq!(tx.margin(5), 2033);
    assert!(tx.can_send(5));
    tx.on_send(5);
    assert_eq!(tx.fctbs(), 15);
    // 11: ABR 15, free 3057, FCCL 2063.
    rx.accept(5).unwrap();
    assert_eq!((rx.abr(), rx.free(), rx.fccl()), (15, 3057, 2063));
    // 12–14: continue until 1024 blocks received, nothing offloaded; the receiver's last
    // FCP carried FCCL 3072; FCTBS and ABR agree.
    while tx.fctbs() < 1024 {
        let np = (1024 - tx.fctbs()).min(9);
        assert!(tx.try_send(np));
        rx.accept(np).unwrap();
    }
    assert_eq!((tx.fctbs(), rx.abr(), rx.free()), (1024, 1024, 2048));
    assert_eq!(rx.fccl(), 3072);
    tx.on_fcp(rx.fccl());
    assert_eq!(tx.cl(), 3072);
    // 15: a 3-block packet passes the check; FCTBS 1024 + 3 = 1027.
    assert!(tx.can_send(3));
    tx.on_send(3);
    assert_eq!(tx.fctbs(), 1027);
    // 16: ABR 1024 -> 1027, free 2048 -> 2045.
    rx.accept(3).unwrap();
    assert_eq!((rx.abr(), rx.free()), (1027, 2045));
    // 17: first time below 2048 free: FCCL = 2045 + 1027 = 3072, and it stays 3072
    // while blocks arrive without offloading.
    assert_eq!(rx.fccl(), 3072);
    while tx.fctbs() < 3072 {
        let np = (3072 - tx.fctbs()).min(50);
        assert!(tx.try_send(np));
        rx.accept(np).unwrap();
        assert_eq!(rx.fccl(), 3072);
    }

    // "Receive Buffer Full": the transmitter has sent 3072 blocks, nothing offloaded.
    // 1: FCCL still 3072, free 0.
    assert_eq!((rx.fccl(), rx.free(), tx.cl()), (3072, 0, 3072));
    // 2: next packet NP = 1: CR = 3073 > CL = 3072 -> transfer prohibited.
    assert_eq!(tx.cr(1), 3073);
    assert!(!tx.can_send(1));
    assert!(!tx.try_send(1));
    assert_eq!(tx.fctbs(), 3072);
    // 3: the receiver offloads one block: FCCL = 3073, sent in the next FCP.
    rx.drain(1);
    assert_eq!((rx.free(), rx.fccl()), (1, 3073));
    assert!(!tx.can_send(1), "not before the FCP arrives");
    tx.on_fcp(rx.fccl());
    assert_eq!(tx.cl(), 3073);
    assert!(tx.can_send(1));
    assert!(!tx.can_send(2));
}

/// "FCCL Rollover Condition" (Figure 25-14).
#[test]
fn fccl_rollover() {
    let mut rx = RxCredits::new(3072);
    let mut tx = TxCredits::new();
    // The last FCP carried FCCL 4090; ABR 3586, so free was 504 then.
    rx.set_state(3586, 504);
    tx.set_fctbs(3586);
    assert_eq!(rx.fccl(), 4090);
    tx.on_fcp(rx.fccl());
    // Since then five blocks offloaded: FCCL 4095.
    for _ in 0..5 {
        rx.drain(1);
    }
    assert_eq!((rx.free(), rx.fccl()), (509, 4095));
    // 1: one more: free 510, 510 + 3586 = 4096 -> FCCL rolls over to 000h.
    rx.drain(1);
    assert_eq!((rx.free(), rx.fccl()), (510, 0));
    // 2: the transmitter still has CL 4090; a 1-block packet: 4090 - 3587 = 503, go.
    assert_eq!(tx.cl(), 4090);
    assert_eq!(tx.cr(1), 3587);
    assert_eq!(tx.margin(1), 503);
    assert!(tx.can_send(1));
    // 3: sent: FCTBS 3587.
    tx.on_send(1);
    assert_eq!(tx.fctbs(), 3587);
    // 4: received: ABR +1, free -1, FCCL unchanged (000h).
    rx.accept(1).unwrap();
    assert_eq!((rx.abr(), rx.free(), rx.fccl()), (3587, 509, 0));
    // 5–6: an FCP sets CL to 000h.
    tx.on_fcp(rx.fccl());
    assert_eq!(tx.cl(), 0x000);
    // 7: CL - CR with CR = E03h: 000h + 1FDh (ones complement arithmetic) = 509 blocks,
    // exactly the receiver's free space.
    assert_eq!(Mod4096::new(0x000).sub(Mod4096::new(0xe03)), 509);
    assert_eq!(tx.margin(0), 509);
    assert_eq!(tx.margin(0), rx.free());
    // So the check passes despite CL < CR as plain integers, and stops at the real limit.
    assert!(tx.can_send(1));
    assert!(tx.can_send(509));
    assert!(!tx.can_send(510));
}
