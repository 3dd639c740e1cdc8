//! FCP scheduling per data VL (docs/spec.md §5, seed 000 "Frequency of FCP Transmission").
//!
//! Two reasons to send an FCP for VL v:
//! * **refresh** (urgent): `since_last[v] >= refresh_clocks`. The spec's bound is 65,536
//!   symbol times between FCPs for a VL; at `W` bytes per clock that is `65536 / W`
//!   clocks. The port's configured refresh period is shorter by a documented margin
//!   (see [`crate::config::DEFAULT_REFRESH_SYMBOLS`]) so that the FCP still *starts*
//!   in time after waiting behind a maximum packet and the other VLs' FCPs.
//! * **on change**: the receiver's FCCL for v differs from the FCCL in the last FCP sent
//!   for v, and at least `min_gap_clocks` have passed since that FCP.
//!
//! Among due VLs, refresh beats on-change, then round-robin starting after the VL of the
//! last FCP sent. Timers count clocks since the last FCP for the VL *started*.

use crate::sl2vl::{VlCap, DATA_VLS};

/// Per-VL FCP timers and the last FCCL advertised.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FcpScheduler {
    vl_cap: VlCap,
    refresh_clocks: u32,
    min_gap_clocks: u32,
    since_last: [u32; DATA_VLS],
    last_fccl: [u16; DATA_VLS],
    /// First VL to look at in the next round-robin search.
    rr: u8,
}

impl FcpScheduler {
    /// A scheduler whose VLs are all due at once (link init).
    pub fn new(vl_cap: VlCap, refresh_clocks: u32, min_gap_clocks: u32) -> Self {
        let mut s = Self {
            vl_cap,
            refresh_clocks: refresh_clocks.max(1),
            min_gap_clocks,
            since_last: [0; DATA_VLS],
            last_fccl: [0; DATA_VLS],
            rr: 0,
        };
        s.restart();
        s
    }
    /// Link init / resync: every data VL needs an FCP now (docs/spec.md §8: "restarts with
    /// flow-control init FCPs").
    pub fn restart(&mut self) {
        self.since_last = [self.refresh_clocks; DATA_VLS];
        self.rr = 0;
    }
    pub fn refresh_clocks(&self) -> u32 {
        self.refresh_clocks
    }
    pub fn min_gap_clocks(&self) -> u32 {
        self.min_gap_clocks
    }
    pub fn since_last(&self, vl: u8) -> u32 {
        self.since_last[vl as usize]
    }
    /// One clock passes.
    #[inline]
    pub fn tick(&mut self) {
        for t in &mut self.since_last[..self.vl_cap.get() as usize] {
            *t = t.saturating_add(1);
        }
    }
    /// The VL whose FCP should go next, given each VL's current receiver FCCL.
    #[inline]
    pub fn next_due(&self, fccl: &[u16; DATA_VLS]) -> Option<u8> {
        let n = self.vl_cap.get() as usize;
        let order = (0..n).map(|k| (self.rr as usize + k) % n);
        order
            .clone()
            .find(|&v| self.since_last[v] >= self.refresh_clocks)
            .or_else(|| {
                order.clone().find(|&v| {
                    fccl[v] != self.last_fccl[v] && self.since_last[v] >= self.min_gap_clocks
                })
            })
            .map(|v| v as u8)
    }
    /// An FCP for `vl` carrying `fccl` started now.
    #[inline]
    pub fn on_sent(&mut self, vl: u8, fccl: u16) {
        self.since_last[vl as usize] = 0;
        self.last_fccl[vl as usize] = fccl;
        self.rr = (vl + 1) % self.vl_cap.get();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_due_at_init_then_refresh_only() {
        let mut s = FcpScheduler::new(VlCap::new(4).unwrap(), 100, 10);
        let f = [0u16; DATA_VLS];
        let mut order = vec![];
        while let Some(v) = s.next_due(&f) {
            order.push(v);
            s.on_sent(v, 0);
        }
        assert_eq!(order, [0, 1, 2, 3]);
        for _ in 0..99 {
            s.tick();
            assert_eq!(s.next_due(&f), None);
        }
        s.tick();
        assert_eq!(s.next_due(&f), Some(0));
    }

    #[test]
    fn on_change_respects_min_gap() {
        let mut s = FcpScheduler::new(VlCap::new(2).unwrap(), 1000, 10);
        let mut f = [0u16; DATA_VLS];
        s.on_sent(0, 0);
        s.on_sent(1, 0);
        f[1] = 5;
        for _ in 0..9 {
            s.tick();
            assert_eq!(s.next_due(&f), None);
        }
        s.tick();
        assert_eq!(s.next_due(&f), Some(1));
        s.on_sent(1, 5);
        assert_eq!(s.next_due(&f), None);
    }

    #[test]
    fn refresh_beats_change_and_round_robin() {
        let mut s = FcpScheduler::new(VlCap::new(4).unwrap(), 20, 0);
        for v in 0..4 {
            s.on_sent(v, 0);
        }
        let mut f = [0u16; DATA_VLS];
        f[0] = 1;
        for _ in 0..20 {
            s.tick();
        }
        // All four are refresh-due; VL0 also changed. Round-robin starts after VL3 -> VL0.
        assert_eq!(s.next_due(&f), Some(0));
        s.on_sent(0, 1);
        assert_eq!(s.next_due(&f), Some(1));
    }
}
