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
//! last FCP sent.
//!
//! **When a period starts** (docs/spec.md §5, §10). By default ([`FcpScheduler::new`]) a
//! VL's timers count clocks since its last FCP *started*: right for a transmitter whose
//! FCP always needs the same clocks from its start to its last byte (the abstract
//! [`crate::port::PortModel`], whose wire never stalls). A transmitter behind a wire
//! that may stall ([`FcpScheduler::with_done_lag`]) counts them from the clock the FCP's
//! last beat moved on the wire, `L` ([`FcpScheduler::on_done`]): a period of `c` clocks
//! ends at `L + c - D`, where `D` is the clocks from an FCP's start to its last beat on a
//! wire that never stalls, so on such a wire every period ends `c` clocks after the start,
//! as before. A period of `D` clocks or less ends before that FCP could have left: it
//! still counts from the start (only a test configuration is that short).

use crate::sl2vl::{VlCap, DATA_VLS};

/// FCPs that may be on their way to the wire at once (started, last beat not yet moved).
pub const MAX_IN_FLIGHT: usize = 16;

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
    /// `Some(D)`: periods longer than `D` count from the last beat (see the module doc).
    done_lag: Option<u32>,
    /// Per VL: clocks since its latest FCP's last beat moved (`None` while it is on its way).
    since_done: [Option<u32>; DATA_VLS],
    /// FCPs started and not yet done, oldest first: (VL, start number), a ring.
    in_flight: [(u8, u64); MAX_IN_FLIGHT],
    in_flight_head: usize,
    in_flight_len: usize,
    /// Start numbers: of the next FCP, and of each VL's latest.
    starts: u64,
    latest: [u64; DATA_VLS],
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
            done_lag: None,
            since_done: [None; DATA_VLS],
            in_flight: [(0, 0); MAX_IN_FLIGHT],
            in_flight_head: 0,
            in_flight_len: 0,
            starts: 0,
            latest: [u64::MAX; DATA_VLS],
        };
        s.restart();
        s
    }
    /// The same, for a transmitter whose FCP needs `d` clocks from its start to its last
    /// beat on a wire that never stalls: a period longer than `d` counts from the clock
    /// the FCP's last beat moved ([`Self::on_done`]), ending `c - d` clocks after it.
    pub fn with_done_lag(mut self, d: u32) -> Self {
        self.done_lag = Some(d);
        self
    }
    /// Link init / resync: every data VL needs an FCP now (docs/spec.md §8: "restarts with
    /// flow-control init FCPs").
    /// FCPs on their way are dropped (their last beats never move).
    pub fn restart(&mut self) {
        self.since_last = [self.refresh_clocks; DATA_VLS];
        self.since_done = [Some(self.refresh_clocks); DATA_VLS];
        self.in_flight_len = 0;
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
    /// Whether a period of `c` clocks has passed for `vl` (see the module doc).
    #[inline]
    fn passed(&self, vl: usize, c: u32) -> bool {
        match self.done_lag {
            Some(d) if c > d => self.since_done[vl].is_some_and(|t| t.saturating_add(d) >= c),
            _ => self.since_last[vl] >= c,
        }
    }
    /// `vl`'s refresh is due.
    pub fn refresh_due(&self, vl: u8) -> bool {
        self.passed(vl as usize, self.refresh_clocks)
    }
    /// `vl`'s minimum gap has passed.
    pub fn gap_passed(&self, vl: u8) -> bool {
        self.passed(vl as usize, self.min_gap_clocks)
    }
    /// One clock passes.
    #[inline]
    pub fn tick(&mut self) {
        let n = self.vl_cap.get() as usize;
        for t in &mut self.since_last[..n] {
            *t = t.saturating_add(1);
        }
        for t in self.since_done[..n].iter_mut().flatten() {
            *t = t.saturating_add(1);
        }
    }
    /// The oldest FCP on its way has its last beat moving on the wire now (FCPs leave in
    /// the order they started): its VL's periods count from this clock, unless a later
    /// FCP of that VL has started meanwhile. Ignored with nothing on its way.
    pub fn on_done(&mut self) {
        if self.in_flight_len == 0 {
            return;
        }
        let (vl, n) = self.in_flight[self.in_flight_head];
        self.in_flight_head = (self.in_flight_head + 1) % MAX_IN_FLIGHT;
        self.in_flight_len -= 1;
        if self.latest[vl as usize] == n {
            self.since_done[vl as usize] = Some(0);
        }
    }
    /// The VL whose FCP should go next, given each VL's current receiver FCCL.
    #[inline]
    pub fn next_due(&self, fccl: &[u16; DATA_VLS]) -> Option<u8> {
        let n = self.vl_cap.get() as usize;
        let order = (0..n).map(|k| (self.rr as usize + k) % n);
        order
            .clone()
            .find(|&v| self.passed(v, self.refresh_clocks))
            .or_else(|| {
                order
                    .clone()
                    .find(|&v| fccl[v] != self.last_fccl[v] && self.passed(v, self.min_gap_clocks))
            })
            .map(|v| v as u8)
    }
    /// An FCP for `vl` carrying `fccl` started now (with a done lag it is on its way
    /// until [`Self::on_done`]; beyond [`MAX_IN_FLIGHT`] on their way the oldest is
    /// forgotten).
    #[inline]
    pub fn on_sent(&mut self, vl: u8, fccl: u16) {
        if self.done_lag.is_some() {
            if self.in_flight_len == MAX_IN_FLIGHT {
                self.in_flight_head = (self.in_flight_head + 1) % MAX_IN_FLIGHT;
                self.in_flight_len -= 1;
            }
            let n = self.starts;
            self.starts += 1;
            self.latest[vl as usize] = n;
            self.in_flight[(self.in_flight_head + self.in_flight_len) % MAX_IN_FLIGHT] = (vl, n);
            self.in_flight_len += 1;
            self.since_done[vl as usize] = None;
        }
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

    /// docs/spec.md §10: with a done lag D, a period of c > D clocks ends c - D clocks
    /// after the FCP's last beat moved; on a wire that never stalls (last beat D clocks
    /// after the start) that is c clocks after the start, as without one; a stall of k
    /// clocks before the last beat moves the end by k. A period of D or less counts from
    /// the start whatever the wire does.
    #[test]
    fn done_lag_counts_from_the_last_beat() {
        const D: u32 = 5;
        // Clock (after the start, at 0) at which VL0's refresh and gap fall due when the
        // FCP's last beat moves at clock `last` (None: never).
        let due_at = |refresh: u32, gap: u32, last: Option<u32>| {
            let mut s = FcpScheduler::new(VlCap::new(1).unwrap(), refresh, gap).with_done_lag(D);
            let changed = [1u16; DATA_VLS];
            s.on_sent(0, 0);
            let (mut r, mut g) = (None, None);
            for t in 0..200 {
                if t > 0 {
                    if r.is_none() && s.refresh_due(0) {
                        r = Some(t);
                    }
                    if g.is_none() && s.next_due(&changed) == Some(0) {
                        g = Some(t);
                    }
                }
                if last == Some(t) {
                    s.on_done();
                }
                s.tick();
            }
            (r, g)
        };
        // Never stalled: as counted from the start.
        assert_eq!(due_at(40, 12, Some(D)), (Some(40), Some(12)));
        assert_eq!(due_at(D + 1, D, Some(D)), (Some(D + 1), Some(D)));
        // Stalled 7 clocks before the last beat: a long period moves by 7, a short one not.
        assert_eq!(due_at(40, 12, Some(D + 7)), (Some(47), Some(19)));
        assert_eq!(due_at(40, 3, Some(D + 7)), (Some(47), Some(3)));
        // The last beat never moves: a long period never ends.
        assert_eq!(due_at(40, 12, None), (None, None));
        // A second FCP of the VL started before the first one's last beat: the first
        // one's end does not restart its periods, the second one's does.
        let mut s = FcpScheduler::new(VlCap::new(1).unwrap(), 20, 3).with_done_lag(D);
        s.on_sent(0, 0);
        for _ in 0..3 {
            s.tick();
        }
        s.on_sent(0, 0);
        s.tick();
        s.tick();
        s.on_done();
        s.tick();
        for _ in 0..30 {
            assert!(!s.refresh_due(0));
            s.tick();
        }
        s.on_done();
        for _ in 0..(20 - D - 1) {
            s.tick();
            assert!(!s.refresh_due(0));
        }
        s.tick();
        assert!(s.refresh_due(0));
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
