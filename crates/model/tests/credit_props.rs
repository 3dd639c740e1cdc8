//! Property tests of the credit loop (docs/spec.md §4, §8; seed 001 "Resiliency"): one data
//! VL's transmitter and receiver joined by an in-order forward wire (data packets and
//! FCTBS-carrying FCPs) and an in-order reverse wire (FCCL-carrying FCPs). FCPs may be
//! lost at random; in the lossy runs data packets may be lost too. Shadow counters in
//! plain u64 check the 12-bit registers against the true totals.

use iblink_model::blocks::{MAX_PACKET_BLOCKS, MOD};
use iblink_model::credits::{RxCredits, TxCredits};
use proptest::prelude::*;
use rand::{rngs::StdRng, Rng, SeedableRng};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
enum Fwd {
    Data(u16),
    Fcp { fctbs: u16 },
}

#[derive(Clone, Copy, Debug)]
enum Op {
    /// Try to send a packet of this many blocks (if the credit check allows).
    Send(u16),
    /// Deliver the next forward item; `lose` drops it (FCPs always may be lost; data
    /// only when the run allows data loss).
    DeliverFwd { lose: bool },
    /// The higher layer takes one packet from the receive buffer.
    Drain,
    /// The transmitter end sends an FCP carrying its FCTBS.
    TxFcp,
    /// The receiver end sends an FCP carrying its FCCL.
    RxFcp,
    /// Deliver the next reverse FCP, or lose it.
    DeliverRev { lose: bool },
}

struct Loop {
    tx: TxCredits,
    rx: RxCredits,
    held: VecDeque<u16>,
    fwd: VecDeque<Fwd>,
    rev: VecDeque<u16>,
    data_loss: bool,
    /// True totals.
    sent: u64,
    lost_blocks: u64,
}

impl Loop {
    fn new(capacity: u16, data_loss: bool) -> Self {
        Self {
            tx: TxCredits::new(),
            rx: RxCredits::new(capacity),
            held: VecDeque::new(),
            fwd: VecDeque::new(),
            rev: VecDeque::new(),
            data_loss,
            sent: 0,
            lost_blocks: 0,
        }
    }

    fn apply(&mut self, op: Op) -> Result<(), TestCaseError> {
        match op {
            Op::Send(np) => {
                if self.tx.try_send(np) {
                    self.sent += np as u64;
                    self.fwd.push_back(Fwd::Data(np));
                }
            }
            Op::DeliverFwd { lose } => match self.fwd.pop_front() {
                Some(Fwd::Data(b)) if lose && self.data_loss => self.lost_blocks += b as u64,
                Some(Fwd::Data(b)) => {
                    // Never an overrun: credits are never granted beyond free space.
                    prop_assert!(
                        self.rx.accept(b).is_ok(),
                        "overrun: {b} blocks, free {}",
                        self.rx.free()
                    );
                    self.held.push_back(b);
                }
                Some(Fwd::Fcp { .. }) if lose => {}
                Some(Fwd::Fcp { fctbs }) => {
                    self.rx.on_fcp(fctbs);
                    // The FCP restores ABR = FCTBS, repairing any lost data before it...
                    prop_assert_eq!(self.rx.abr(), fctbs);
                    // ...and if nothing was sent after it, ABR equals the live FCTBS.
                    if self.fwd.is_empty() {
                        prop_assert_eq!(self.rx.abr(), self.tx.fctbs());
                    }
                }
                None => {}
            },
            Op::Drain => {
                if let Some(b) = self.held.pop_front() {
                    self.rx.drain(b);
                }
            }
            Op::TxFcp => self.fwd.push_back(Fwd::Fcp {
                fctbs: self.tx.fctbs(),
            }),
            Op::RxFcp => self.rev.push_back(self.rx.fccl()),
            Op::DeliverRev { lose } => {
                if let Some(fccl) = self.rev.pop_front() {
                    if !lose {
                        self.tx.on_fcp(fccl);
                    }
                }
            }
        }
        self.check()
    }

    fn check(&self) -> Result<(), TestCaseError> {
        // The transmitter never holds more than 2048 blocks of credit beyond what it sent.
        let lead = (self.tx.cl().wrapping_sub(self.tx.fctbs())) & (MOD - 1);
        prop_assert!(lead <= 2048, "(CL - FCTBS) mod 4096 = {lead}");
        // Registers are the true totals mod 4096.
        prop_assert_eq!(self.tx.fctbs() as u64, self.sent % MOD as u64);
        // The receiver's free space is exactly capacity minus what it holds.
        let held: u64 = self.held.iter().map(|&b| b as u64).sum();
        prop_assert_eq!(self.rx.free() as u64 + held, self.rx.capacity() as u64);
        prop_assert_eq!(self.rx.overruns(), 0);
        Ok(())
    }

    /// Faults stop: deliver everything, then one FCP each way. Both ends agree again.
    fn settle(&mut self) -> Result<(), TestCaseError> {
        while !self.fwd.is_empty() {
            self.apply(Op::DeliverFwd { lose: false })?;
        }
        while !self.rev.is_empty() {
            self.apply(Op::DeliverRev { lose: false })?;
        }
        self.apply(Op::TxFcp)?;
        self.apply(Op::DeliverFwd { lose: false })?;
        self.apply(Op::RxFcp)?;
        self.apply(Op::DeliverRev { lose: false })?;
        prop_assert_eq!(self.rx.abr(), self.tx.fctbs());
        prop_assert_eq!(self.tx.cl(), self.rx.fccl());
        // And the credit the transmitter sees is the receiver's real free space (capped).
        prop_assert_eq!(self.tx.margin(0), self.rx.free().min(2048));
        Ok(())
    }
}

fn op(loss_pct: u32) -> impl Strategy<Value = Op> {
    let lose = move || (0u32..100).prop_map(move |r| r < loss_pct);
    prop_oneof![
        4 => (1..=MAX_PACKET_BLOCKS).prop_map(Op::Send),
        4 => lose().prop_map(|lose| Op::DeliverFwd { lose }),
        3 => Just(Op::Drain),
        1 => Just(Op::TxFcp),
        2 => Just(Op::RxFcp),
        2 => lose().prop_map(|lose| Op::DeliverRev { lose }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// FCP loss only: never an overrun, `(CL - FCTBS) mod 4096 <= 2048` at every step.
    #[test]
    fn fcp_loss_is_harmless(
        capacity in MAX_PACKET_BLOCKS..=4095u16,
        ops in prop::collection::vec(op(30), 1..2000),
    ) {
        let mut l = Loop::new(capacity, false);
        for o in ops {
            l.apply(o)?;
        }
        l.settle()?;
    }

    /// Data and FCP loss: the receiver still never overruns, the next FCP restores
    /// ABR = FCTBS, and after the faults stop both ends agree.
    #[test]
    fn data_loss_is_repaired_by_next_fcp(
        capacity in MAX_PACKET_BLOCKS..=4095u16,
        ops in prop::collection::vec(op(20), 1..2000),
    ) {
        let mut l = Loop::new(capacity, true);
        for o in ops {
            l.apply(o)?;
        }
        l.settle()?;
    }
}

/// Over 10,000 wraps of the 12-bit counters (>= 40,960,000 blocks) with random FCP
/// loss, random data loss and random draining: invariants hold throughout, and the loop
/// keeps moving (no credit deadlock).
#[test]
fn ten_thousand_wraps() {
    let mut rng = StdRng::seed_from_u64(0x1b_11_4b);
    let mut l = Loop::new(3000, true);
    let target = 10_000u64 * MOD as u64;
    let mut rounds = 0u64;
    while l.sent < target {
        rounds += 1;
        // Send a burst of mostly large packets.
        for _ in 0..rng.gen_range(1..8) {
            let np = if rng.gen_bool(0.8) {
                64
            } else {
                rng.gen_range(1..=MAX_PACKET_BLOCKS)
            };
            l.apply(Op::Send(np)).unwrap();
        }
        if rng.gen_bool(0.3) {
            l.apply(Op::TxFcp).unwrap();
        }
        while !l.fwd.is_empty() && rng.gen_bool(0.9) {
            l.apply(Op::DeliverFwd {
                lose: rng.gen_bool(0.01),
            })
            .unwrap();
        }
        for _ in 0..rng.gen_range(0..10) {
            l.apply(Op::Drain).unwrap();
        }
        l.apply(Op::RxFcp).unwrap();
        l.apply(Op::DeliverRev {
            lose: rng.gen_bool(0.2),
        })
        .unwrap();
        assert!(rounds < 50_000_000, "no progress: credit deadlock?");
    }
    l.settle().unwrap();
    assert!(l.sent >= 40_960_000);
    assert!(l.lost_blocks > 0, "the run should have exercised data loss");
    eprintln!(
        "{} blocks ({} wraps), {} lost, {rounds} rounds",
        l.sent,
        l.sent / 4096,
        l.lost_blocks
    );
}
