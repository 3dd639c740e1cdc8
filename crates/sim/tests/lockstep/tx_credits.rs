//! TX and RX credits: reference model, Rust twin and Verilator in lockstep on
//! random traffic, and seed 000's three worked examples replayed through every back end
//! with the seed's numbers.

use iblink_rtl::rx_credits::{RxCreditsIn, RxCreditsOut};
use iblink_rtl::tx_credits::TxCreditsIn;
use iblink_sim::blocks::Backend;
use iblink_sim::blocks::rx_credits::{rx_credits_sim, RxCreditsSim, RxCreditsStimulus};
use iblink_sim::blocks::tx_credits::{tx_credits_sim, TxCreditsSim};
use iblink_sim::tb::{self, harness::TbOptions};
use iblink_sim::{lockstep, CycleSim};
use std::sync::Mutex;

/// The Verilator bridge names its private build directory by process id, so two test
/// threads building the same module at once collide: build one at a time.
static BUILD: Mutex<()> = Mutex::new(());

fn tx_sim(vls: usize, b: Backend) -> TxCreditsSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    tx_credits_sim(vls, b, None).unwrap()
}

fn rx_sim(vls: usize, capacity: u16, b: Backend) -> RxCreditsSim {
    let _g = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    rx_credits_sim(vls, capacity, b, None).unwrap()
}

/// The random TX lockstep with its coverage gates (`iblink_sim::tb::tx_credits`).
fn run_tx(vls: usize) {
    let n = lockstep::cycles();
    tb::tx_credits::run(vls, tb::tx_credits::seed(vls), &TbOptions::test(n)).unwrap().assert_passed(n);
}

/// The random RX lockstep with its coverage gates (`iblink_sim::tb::rx_credits`).
fn run_rx(vls: usize, capacity: u16) {
    let n = lockstep::cycles();
    tb::rx_credits::run(vls, capacity, tb::rx_credits::seed(vls), &TbOptions::test(n)).unwrap().assert_passed(n);
}

#[test]
fn tx_lockstep_vl4() {
    run_tx(4);
}
#[test]
fn tx_lockstep_vl15() {
    run_tx(15);
}
/// The other generated VLCaps (docs/spec.md §7: 1, 2, 8 data VLs).
#[test]
fn tx_lockstep_vl1_vl2_vl8() {
    for vls in [1, 2, 8] {
        run_tx(vls);
    }
}
#[test]
fn rx_lockstep_vl1_vl2_vl8() {
    for vls in [1, 2, 8] {
        run_rx(vls, 256);
    }
}
#[test]
fn rx_lockstep_vl4() {
    run_rx(4, 256);
}
/// 3072 blocks (seed 000's buffer): FCCL is capped at ABR + 2048 while more is free.
#[test]
fn rx_lockstep_vl15_buf3072() {
    run_rx(15, 3072);
}

/// Drains of more than is held (the RTL clamps free at the buffer size; the model treats
/// it as a caller error, so this runs the Rust twin against Verilator only): the
/// random RX traffic with one drain in 200 replaced by an arbitrary one (mostly on the VL
/// with the most free blocks), half of them with `accept_vl` naming the same VL. A shadow
/// of `free` counts the clamps.
fn run_rx_overdrain(vls: usize, capacity: u16) {
    let mut rtl = rx_sim(vls, capacity, Backend::Rtl);
    let mut vl = rx_sim(vls, capacity, Backend::Verilator);
    let n = lockstep::cycles() as usize / 4;
    let mut rng = 0x5eed_u64 + vls as u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut free = vec![capacity; vls];
    let (mut clamps, mut clamps_with_accept) = (0u64, 0u64);
    let stimulus = RxCreditsStimulus::new(vls, capacity, 0x0d00 + vls as u64).take(n).map(|mut i| {
        if next() % 200 == 0 {
            i.drain = true;
            // The VL with the most free blocks, so that large buffers clamp too.
            let most = (0..vls).max_by_key(|&v| free[v]).unwrap_or(0);
            i.drain_vl = if next() % 4 == 0 { (next() % vls as u64) as u8 } else { most as u8 };
            i.drain_blocks = (next() % 128) as u8;
            if next() % 2 == 0 {
                i.accept_vl = i.drain_vl;
            }
        }
        if i.reset {
            free.iter_mut().for_each(|f| *f = capacity);
            return i;
        }
        let av = i.accept_vl as usize;
        let took = i.accept && av < vls && u16::from(i.accept_blocks) <= free[av];
        if took {
            free[av] -= u16::from(i.accept_blocks);
        }
        let dv = i.drain_vl as usize;
        if i.drain && dv < vls {
            let f = free[dv] + u16::from(i.drain_blocks);
            if f > capacity {
                clamps += 1;
                clamps_with_accept += (took && av == dv) as u64;
            }
            free[dv] = f.min(capacity);
        }
        i
    });
    let report = lockstep(&mut [rtl.as_mut(), vl.as_mut()], stimulus)
        .unwrap_or_else(|m| panic!("rx_credits VLCap {vls}, {capacity} blocks, over-drains: {m}"));
    assert_eq!(report.cycles, n as u64);
    eprintln!(
        "rx_credits VLCap {vls}, {capacity} blocks, over-drains: {n} cycles, {clamps} clamps \
         ({clamps_with_accept} with an accept), 0 mismatches"
    );
    assert!(clamps > (n / 1000) as u64, "too few clamps: {clamps}");
    assert!(clamps_with_accept > (n / 20_000) as u64, "too few clamps with an accept: {clamps_with_accept}");
}

#[test]
fn rx_overdrain_rtl_vs_verilator() {
    run_rx_overdrain(4, 256);
    run_rx_overdrain(15, 3072);
}

/// One data VL, both ends of the link: our transmitter's credits and the far end's
/// receiver credits, each in the same back end, driven one operation per clock.
struct Link {
    tx: TxCreditsSim,
    rx: RxCreditsSim,
}

impl Link {
    fn new(b: Backend) -> Self {
        Self {
            tx: tx_sim(1, b),
            rx: rx_sim(1, 3072, b),
        }
    }
    fn name(&self) -> String {
        self.tx.backend().to_string()
    }
    /// The credit check for a head packet of `np` blocks on VL0. `credit_ok` is a clock
    /// late (the block's cycle contract), so the head is shown for two clocks and the
    /// check read in the second.
    fn credit_ok(&mut self, np: u8) -> bool {
        let mut i = TxCreditsIn::default();
        i.head_blocks[0] = np;
        self.tx.step(&i);
        self.tx.step(&i).credit_ok & 1 == 1
    }
    fn fctbs(&mut self) -> u16 {
        self.tx.step(&TxCreditsIn::default()).fctbs[0]
    }
    /// Transmit the head packet (its check must pass); the receiver accepts it.
    fn send(&mut self, np: u8) {
        assert!(self.credit_ok(np), "{}: a {np}-block packet must pass the check", self.name());
        let mut i = TxCreditsIn {
            send: true,
            ..Default::default()
        };
        i.head_blocks[0] = np;
        self.tx.step(&i);
        assert_eq!(self.accept(np), (true, false), "{}: the receiver must take {np} blocks", self.name());
    }
    /// The receiver's (accepted, dropped) for a packet of `blocks`.
    fn accept(&mut self, blocks: u8) -> (bool, bool) {
        self.rx.step(&RxCreditsIn {
            accept: true,
            accept_blocks: blocks,
            ..Default::default()
        });
        let o = self.rx.step(&RxCreditsIn::default());
        (o.accepted, o.dropped)
    }
    fn drain(&mut self, blocks: u8) {
        self.rx.step(&RxCreditsIn {
            drain: true,
            drain_blocks: blocks,
            ..Default::default()
        });
    }
    fn fccl(&mut self) -> u16 {
        self.rx.step(&RxCreditsIn::default()).fccl[0]
    }
    /// An FCP from the receiver to the transmitter: CL := FCCL.
    fn fcp(&mut self, fccl: u16) {
        self.tx.step(&TxCreditsIn {
            fcp_valid: true,
            fcp_fccl: fccl,
            ..Default::default()
        });
    }
    /// The receiver advertises its current FCCL (lossless link).
    fn refresh(&mut self) {
        let f = self.fccl();
        self.fcp(f);
    }
}

/// The TX block's cycle contract: `credit_ok` during a clock is the credit check
/// (docs/spec.md §4) of the previous clock, and 0 in the first clock and in the clock after a
/// reset. Expected values from the spec's check on the numbers driven, not from a model.
#[test]
fn tx_credit_ok_is_one_clock_late() {
    for b in Backend::ALL {
        let mut tx = tx_sim(2, b);
        let who = tx.backend().to_string();
        let head = |np0: u8, np1: u8| {
            let mut i = TxCreditsIn::default();
            i.head_blocks[0] = np0;
            i.head_blocks[1] = np1;
            i
        };
        let mut ok = |i: TxCreditsIn| tx.step(&i).credit_ok;
        // Clock 0: reset; nothing before the first clock.
        assert_eq!(ok(TxCreditsIn { reset: true, ..head(10, 0) }), 0, "{who}: first clock");
        // Clock 1: FCP CL 2048 on VL0; shows the clock after the reset: 0.
        assert_eq!(
            ok(TxCreditsIn { fcp_valid: true, fcp_fccl: 2048, ..head(10, 0) }),
            0,
            "{who}: clock after reset"
        );
        // Clock 2: the check of clock 1 (CL 0, NP 10: blocked; VL1 NP 0: margin 0, go).
        assert_eq!(ok(head(10, 0)), 0b10, "{who}: check of clock 1");
        // Clock 3: the check of clock 2 (VL0: CL 2048, CR 10, go; VL1: NP 0, go). VL0's
        // 10 blocks are sent; VL1's head is now 1 block.
        assert_eq!(ok(TxCreditsIn { send: true, ..head(10, 1) }), 0b11, "{who}: check of clock 2");
        // Clock 4: the check of clock 3, before its send: still the 10-block packet, go;
        // VL1 with NP 1 against CL 0: blocked.
        assert_eq!(ok(head(127, 1)), 0b01, "{who}: check of clock 3");
        // Clock 5: FCTBS 10, NP 127: CR 137, CL 2048: go. Reset in this clock...
        assert_eq!(ok(TxCreditsIn { reset: true, ..head(127, 0) }), 0b01, "{who}: check of clock 4");
        // ... so clock 6 shows 0 although clock 5's (pre-reset) check passed.
        assert_eq!(ok(head(1, 0)), 0, "{who}: clock after reset");
        // Clock 7: the check of clock 6: CL 0 again (VL0 NP 1 blocked, VL1 NP 0 go).
        assert_eq!(ok(head(1, 0)), 0b10, "{who}: check of clock 6");
    }
}

/// Seed 000 "Step-by-Step Explanation" and "Receive Buffer Full Example", numbers from
/// the seed, through the model, the Rust twin and Verilator.
#[test]
fn seed000_step_by_step_and_buffer_full() {
    for b in Backend::ALL {
        let mut l = Link::new(b);
        let who = l.name();
        // Before the first FCP nothing may go (CL = 0, docs/spec.md §4).
        assert!(!l.credit_ok(10), "{who}");
        // Steps 1-4: empty 3072-block buffer advertises ABR 0 + 2048 = 2048.
        assert_eq!(l.fccl(), 2048, "{who}");
        l.fcp(2048);
        // Steps 6-8: 10 blocks go (2048 - 10 = 2038 >= 0); FCTBS 10; FCCL 2058.
        l.send(10);
        assert_eq!(l.fctbs(), 10, "{who}");
        assert_eq!(l.fccl(), 2058, "{who}");
        // Steps 9-11: 5 more (CR 15, CL still 2048); FCTBS 15; FCCL 2063.
        l.send(5);
        assert_eq!(l.fctbs(), 15, "{who}");
        assert_eq!(l.fccl(), 2063, "{who}");
        // Steps 12-14: 1024 blocks received in all, nothing offloaded, FCCL 3072 sent.
        let mut sent = 15u16;
        while sent < 1024 {
            let np = (1024 - sent).min(66) as u8;
            l.refresh();
            l.send(np);
            sent += np as u16;
        }
        assert_eq!(l.fctbs(), 1024, "{who}");
        assert_eq!(l.fccl(), 3072, "{who}: ABR 1024 + free 2048");
        l.fcp(3072);
        // Steps 15-17: 3 blocks: FCTBS 1027, free 2045, FCCL = 2045 + 1027 = 3072.
        l.send(3);
        sent += 3;
        assert_eq!(l.fctbs(), 1027, "{who}");
        assert_eq!(l.fccl(), 3072, "{who}");
        // Receive buffer full: the transmitter sends until 3072 blocks in all; the
        // receiver takes exactly the 2045 blocks it had free (this is what shows free
        // was 2045), and FCCL stays 3072 throughout.
        while sent < 3072 {
            let np = (3072 - sent).min(66) as u8;
            l.send(np);
            sent += np as u16;
            assert_eq!(l.fccl(), 3072, "{who}");
        }
        assert_eq!(l.fctbs(), 3072, "{who}");
        // FCCL 3072 with Free Space Count 0: a 1-block packet gives CR 3073 > CL.
        assert!(!l.credit_ok(1), "{who}: CR 3073 vs CL 3072 must be blocked");
        assert_eq!(l.accept(1), (false, true), "{who}: a full buffer drops the packet");
        // One block offloaded: FCCL 3073, sent in the next FCP; the packet may go.
        l.drain(1);
        assert_eq!(l.fccl(), 3073, "{who}");
        assert!(!l.credit_ok(1), "{who}: still blocked until the FCP arrives");
        l.fcp(3073);
        assert!(l.credit_ok(1), "{who}: released by FCCL 3073");
        l.send(1);
        assert_eq!(l.fctbs(), 3073, "{who}");
    }
}

/// Seed 000 "FCCL Rollover Condition": CL 4090, ABR 3586 with 504 free; six blocks
/// offloaded roll FCCL over to 000h; the transmitter still sees a go (4090 - 3587 =
/// 503); after the FCP with 000h, CL - CR with CR = E03h is 509 blocks.
#[test]
fn seed000_fccl_rollover() {
    for b in Backend::ALL {
        let mut l = Link::new(b);
        let who = l.name();
        // Reach ABR = FCTBS = 3586 with 3072 - 504 = 2568 blocks held: 20 packets of 66,
        // offload 1018 blocks, then 34 packets of 66 and one of 22.
        for _ in 0..20 {
            l.refresh();
            l.send(66);
        }
        for _ in 0..15 {
            l.drain(66);
        }
        l.drain(28);
        for np in std::iter::repeat_n(66u8, 34).chain([22]) {
            l.refresh();
            l.send(np);
        }
        assert_eq!(l.fctbs(), 3586, "{who}");
        // The last FCCL sent: 3586 + 504 = 4090.
        assert_eq!(l.fccl(), 4090, "{who}");
        l.fcp(4090);
        // Five blocks offloaded: FCCL 4095; one more: free 510, 3586 + 510 = 4096 -> 000h.
        l.drain(5);
        assert_eq!(l.fccl(), 4095, "{who}");
        l.drain(1);
        assert_eq!(l.fccl(), 0, "{who}: FCCL rolls over to 000h");
        // The transmitter, with CL still 4090, sends one block: 4090 - 3587 = 503, go.
        l.send(1);
        assert_eq!(l.fctbs(), 3587, "{who}");
        // ABR +1, free -1: FCCL unchanged.
        assert_eq!(l.fccl(), 0, "{who}");
        // FCP: CL = 000h. CL - CR with CR = E03h (NP 0) is 1FDh = 509: a go, and exactly
        // 509 more blocks fit — 4 x 127 + 1 pass, and then even 1 more does not.
        l.fcp(0);
        assert!(l.credit_ok(0), "{who}: CL 000h - CR E03h = 509");
        for np in [127u8, 127, 127, 127] {
            l.send(np);
        }
        assert!(l.credit_ok(1), "{who}: the 509th block still fits");
        assert!(!l.credit_ok(2), "{who}: a 510th block does not");
        l.send(1);
        assert!(!l.credit_ok(1), "{who}: margin used up");
    }
}

/// The overrun counter is a 16-bit saturating register (a design choice, documented in
/// the RTL): after 70,000 drops every back end shows 0xFFFF.
#[test]
fn overrun_counter_saturates() {
    let mut sims: Vec<RxCreditsSim> = Backend::ALL
        .iter()
        .map(|b| rx_sim(4, 256, *b))
        .collect();
    let mut refs: Vec<&mut dyn CycleSim<In = RxCreditsIn, Out = RxCreditsOut>> =
        sims.iter_mut().map(|s| s.as_mut() as _).collect();
    // Fill VL2 (256 blocks), then offer 100-block packets that never fit.
    let fill = (0..4).map(|_| RxCreditsIn {
        accept: true,
        accept_vl: 2,
        accept_blocks: 64,
        ..Default::default()
    });
    let overrun = std::iter::repeat_n(
        RxCreditsIn { accept: true, accept_vl: 2, accept_blocks: 100, ..Default::default() },
        70_000,
    );
    let tail = std::iter::once(RxCreditsIn::default());
    lockstep(&mut refs, fill.chain(overrun).chain(tail)).unwrap_or_else(|m| panic!("{m}"));
    for s in refs.iter_mut() {
        let o = s.step(&RxCreditsIn::default());
        assert_eq!(o.overruns[2], 0xffff, "{}", s.backend());
        assert_eq!(o.overruns[..2], [0, 0], "{}", s.backend());
        // The buffer is still full and untouched by the drops: FCCL = 256 + 0.
        assert_eq!(o.fccl[2], 256, "{}", s.backend());
    }
}
