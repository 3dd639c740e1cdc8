//! Per-data-VL credit accounting (docs/spec.md §4, seed 000 "Terminology", seed 001).
//!
//! Absolute credits: the transmitter counts every block it has sent since link init
//! (FCTBS) and holds the receiver's latest limit (CL); the receiver counts blocks
//! received (ABR) and advertises `FCCL = ABR + min(free, 2048)`. Everything is 12-bit.
//! VL15 has no credits (see [`crate::vl15`]).

use crate::blocks::{Mod4096, CREDIT_WINDOW};

/// Transmitter side of one data VL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxCredits {
    /// FCTBS — Flow Control Total Blocks Sent since link init, mod 4096 (docs/spec.md §4).
    fctbs: Mod4096,
    /// CL — Credit Limit: the FCCL of the latest FCP received (docs/spec.md §4). It is 0 after
    /// link init, so no packet passes the credit check before the first FCP.
    cl: Mod4096,
}

impl TxCredits {
    /// State after link init or resync: FCTBS = 0, CL = 0 (docs/spec.md §4, §8).
    pub const fn new() -> Self {
        Self {
            fctbs: Mod4096::ZERO,
            cl: Mod4096::ZERO,
        }
    }
    /// Back to the link-init state (docs/spec.md §8 resync).
    pub fn reset(&mut self) {
        *self = Self::new();
    }
    pub fn fctbs(&self) -> u16 {
        self.fctbs.get()
    }
    pub fn cl(&self) -> u16 {
        self.cl.get()
    }
    /// CR = FCTBS + NP (mod 4096), NP being the next packet's blocks (seed 000).
    pub fn cr(&self, np: u16) -> u16 {
        self.fctbs.add(np).get()
    }
    /// `(CL - CR) mod 4096`: the blocks that would remain authorised after sending NP.
    pub fn margin(&self, np: u16) -> u16 {
        self.cl.sub(Mod4096::new(self.cr(np)))
    }
    /// The credit check: a packet of NP blocks may go iff `(CL - CR) mod 4096 <= 2048`
    /// (docs/spec.md §4). Values above 2048 mean CR is "ahead" of CL.
    pub fn can_send(&self, np: u16) -> bool {
        self.margin(np) <= CREDIT_WINDOW
    }
    /// A packet of NP blocks was sent: FCTBS += NP (docs/spec.md §4). The caller has done the
    /// credit check; this only records the send.
    pub fn on_send(&mut self, np: u16) {
        self.fctbs = self.fctbs.add(np);
    }
    /// Credit check and send in one: returns whether the packet went.
    pub fn try_send(&mut self, np: u16) -> bool {
        let ok = self.can_send(np);
        if ok {
            self.on_send(np);
        }
        ok
    }
    /// An FCP for this VL arrived: CL = FCCL (docs/spec.md §4).
    pub fn on_fcp(&mut self, fccl: u16) {
        self.cl = Mod4096::new(fccl);
    }
    /// Set FCTBS directly (tests and lockstep state loading).
    pub fn set_fctbs(&mut self, fctbs: u16) {
        self.fctbs = Mod4096::new(fctbs);
    }
}

/// A data packet arrived with more blocks than the buffer has free: it is dropped and
/// counted, and no state changes (docs/spec.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("receive buffer overrun: packet of {blocks} blocks, {free} free")]
pub struct Overrun {
    pub blocks: u16,
    pub free: u16,
}

/// Receiver side of one data VL, with a buffer of `capacity` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxCredits {
    /// ABR — Adjusted Blocks Received, mod 4096: `+= blocks` on accept, `:= FCTBS` on FCP.
    abr: Mod4096,
    /// Free Space Count in blocks, `0..=capacity` (seed 000). Not modular.
    free: u16,
    capacity: u16,
    /// Packets dropped for lack of space (docs/spec.md §4, counted for the failsafe, §8).
    overruns: u32,
}

impl RxCredits {
    /// Link-init state: ABR = 0, free = capacity (docs/spec.md §4, §8).
    pub const fn new(capacity: u16) -> Self {
        Self {
            abr: Mod4096::ZERO,
            free: capacity,
            capacity,
            overruns: 0,
        }
    }
    /// Resync (docs/spec.md §8): ABR = 0, free = capacity. The overrun count is kept: it is
    /// a statistic, not credit state.
    pub fn reset(&mut self) {
        self.abr = Mod4096::ZERO;
        self.free = self.capacity;
    }
    pub fn abr(&self) -> u16 {
        self.abr.get()
    }
    pub fn free(&self) -> u16 {
        self.free
    }
    pub fn capacity(&self) -> u16 {
        self.capacity
    }
    pub fn overruns(&self) -> u32 {
        self.overruns
    }
    /// FCCL = (ABR + min(free, 2048)) mod 4096 (docs/spec.md §4; seed 000 "Credit Limit
    /// Calculation": with 2048 or more free the receiver advertises ABR + 2048).
    pub fn fccl(&self) -> u16 {
        self.abr.add(self.free.min(CREDIT_WINDOW)).get()
    }
    /// Accept a packet of `blocks`: ABR += blocks, free -= blocks; or, if it does not fit,
    /// drop it, count the overrun, and leave ABR and free untouched (docs/spec.md §4).
    pub fn accept(&mut self, blocks: u16) -> Result<(), Overrun> {
        if blocks > self.free {
            self.overruns = self.overruns.saturating_add(1);
            return Err(Overrun {
                blocks,
                free: self.free,
            });
        }
        self.abr = self.abr.add(blocks);
        self.free -= blocks;
        Ok(())
    }
    /// The higher layer took a packet of `blocks` out of the buffer: free += blocks.
    /// Saturates at capacity so a caller bug cannot inflate the advertised credit.
    pub fn drain(&mut self, blocks: u16) {
        debug_assert!(
            self.free + blocks <= self.capacity,
            "drained more than was held"
        );
        self.free = (self.free + blocks).min(self.capacity);
    }
    /// An FCP for this VL arrived: ABR = FCTBS (docs/spec.md §4; seed 000 "the receiver uses
    /// this data to update its ABR to match the Transmitter's FCTBS"). This repairs the
    /// ABR after lost data packets (seed 001 "Resiliency").
    pub fn on_fcp(&mut self, fctbs: u16) {
        self.abr = Mod4096::new(fctbs);
    }
    /// Load state directly (tests and lockstep state loading).
    pub fn set_state(&mut self, abr: u16, free: u16) {
        self.abr = Mod4096::new(abr);
        self.free = free.min(self.capacity);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_goes_before_first_fcp() {
        // docs/spec.md §4: CL = 0 after link init.
        let tx = TxCredits::new();
        assert!(!tx.can_send(1));
        assert!(!tx.can_send(66));
    }

    #[test]
    fn overrun_drops_and_counts_without_touching_state() {
        let mut rx = RxCredits::new(10);
        rx.accept(8).unwrap();
        let before = (rx.abr(), rx.free(), rx.fccl());
        assert_eq!(rx.accept(3), Err(Overrun { blocks: 3, free: 2 }));
        assert_eq!((rx.abr(), rx.free(), rx.fccl()), before);
        assert_eq!(rx.overruns(), 1);
        rx.accept(2).unwrap();
        assert_eq!(rx.free(), 0);
    }
}
