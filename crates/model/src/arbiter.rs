//! Data-VL arbitration (docs/spec.md §6, seed 003 "Data VL Arbitration Description").
//!
//! Two VLArbitrationTables (high and low priority), up to 64 (VL, Weight) entries each,
//! and the HighPriCounter that bounds how long the high table may keep the link. The
//! overall order VL15 > FCP > data (docs/spec.md §5) is the port's business
//! ([`crate::port`]); this block only picks among data VLs, once per packet boundary.
//!
//! State rules the model commits to (so the RTL can be compared in lockstep):
//! * Each table has a pointer to its *active entry* and that entry's remaining weight
//!   (signed: a packet may overdraw it). Initially and after a rewrite the pointer is at
//!   entry 0 (or kept, see [`VlArbiter::set_table`]) with that entry's weight loaded.
//! * An entry is eligible while its remaining weight is > 0, it is valid (weight ≠ 0, VL
//!   is a data VL below VLCap and enabled) and its VL's head packet passes the credit
//!   check. An exhausted or ineligible active entry hands over to the next eligible entry
//!   in table order (wrapping; the active entry itself may come round again), whose weight
//!   is reloaded. If no entry is eligible the table's state is left as it is.
//! * The pointer moves lazily: an entry overdrawn by its last packet stays active (with
//!   its negative weight left) until the next grant from that table moves on. Seed 003's
//!   narration ("the pointer advances") is indistinguishable from this in the grant trace.
//! * **Idle rule:** when no entry of either table is eligible, [`VlArbiter::grant`]
//!   returns `None` and changes nothing.

use crate::blocks::blocks_for_pkt_len;
use crate::sl2vl::{VlCap, DATA_VLS};
use std::fmt;

/// Entries per table (docs/spec.md §6: up to 64).
pub const MAX_TABLE_ENTRIES: usize = 64;

/// VLHighLimit value meaning "no limit" (docs/spec.md §6).
pub const HIGH_LIMIT_UNBOUNDED: u8 = 255;

/// Dwords of high-priority traffic per VLHighLimit unit: 4096 bytes = 1024 dwords.
pub const DWORDS_PER_LIMIT_UNIT: i32 = 1024;

/// One VLArbitrationTable entry: VL (4 bits) and Weight (8 bits, in 64-byte blocks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArbEntry {
    pub vl: u8,
    pub weight: u8,
}

impl ArbEntry {
    pub const fn new(vl: u8, weight: u8) -> Self {
        Self { vl, weight }
    }
}

/// Which table a grant came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableId {
    High,
    Low,
}

impl fmt::Display for TableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TableId::High => "high",
            TableId::Low => "low",
        })
    }
}

/// How much the low table may send once it becomes active (seed 003 "Specification Is
/// Ambiguous"; docs/spec.md §6 keeps both readings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LowPolicy {
    /// The author's reading (default): the active low entry keeps sending until its
    /// weight is exhausted (or it has no eligible packet); then the high table's turn.
    #[default]
    Weight,
    /// The literal reading: one low-table packet per low turn.
    OnePacket,
}

/// One arbitration decision: the packet the port must now send, and the arbiter state
/// right after it (before any HighPriCounter reload).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Grant {
    pub vl: u8,
    pub table: TableId,
    /// Index of the table entry that sent.
    pub entry: u8,
    /// LRH:PktLen of the packet, dwords.
    pub pkt_len: u16,
    /// Blocks of the packet (docs/spec.md §1).
    pub blocks: u16,
    /// The entry's remaining weight after subtracting `blocks` (may be negative).
    pub weight_left: i32,
    /// HighPriCounter after this packet, before any reload. For a high-table packet it
    /// has had PktLen subtracted (unless VLHighLimit is 255, where it is not counted); for
    /// a low-table packet it is the counter as it stands.
    pub high_counter: i32,
}

impl fmt::Display for Grant {
    /// The trace format: `vl=6 table=high entry=0 blocks=64 weight_left=63 high_counter=3072`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "vl={} table={} entry={} blocks={} weight_left={} high_counter={}",
            self.vl, self.table, self.entry, self.blocks, self.weight_left, self.high_counter
        )
    }
}

/// A table rewrite with too many entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{table} table: {len} entries, at most 64")]
pub struct TableTooLong {
    pub table: TableId,
    pub len: usize,
}

/// A single-entry write naming an index past the end of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{table} table: entry index {index} is out of range 0..=63")]
pub struct EntryIndexOutOfRange {
    pub table: TableId,
    pub index: usize,
}

/// One table with its active-entry pointer and that entry's remaining weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TableState {
    entries: [ArbEntry; MAX_TABLE_ENTRIES],
    len: u8,
    ptr: u8,
    remaining: i32,
}

impl TableState {
    const EMPTY: Self = Self {
        entries: [ArbEntry::new(0, 0); MAX_TABLE_ENTRIES],
        len: 0,
        ptr: 0,
        remaining: 0,
    };

    fn load(&mut self, entries: &[ArbEntry]) {
        self.entries = [ArbEntry::default(); MAX_TABLE_ENTRIES];
        self.entries[..entries.len()].copy_from_slice(entries);
        self.len = entries.len() as u8;
        if self.ptr >= self.len {
            self.ptr = 0;
        }
        self.remaining = self.entries[self.ptr as usize].weight as i32;
    }
}

/// The data-VL arbiter. Fixed-size state; [`VlArbiter::grant`] does not allocate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VlArbiter {
    high: TableState,
    low: TableState,
    vl_cap: VlCap,
    /// Bit v set: data VL v is enabled by software (docs/spec.md §6 skip rule).
    enabled: u16,
    vl_high_limit: u8,
    /// HighPriCounter in dwords (docs/spec.md §6), reloaded to `limit * 1024`.
    high_counter: i32,
    policy: LowPolicy,
    /// Whose turn it is.
    active: TableId,
    /// Weight policy: a low turn has sent at least one packet and its entry may go on.
    low_turn_open: bool,
}

impl VlArbiter {
    /// An arbiter with both tables empty, all VLs below `vl_cap` enabled, high table's turn.
    pub fn new(vl_cap: VlCap, vl_high_limit: u8, policy: LowPolicy) -> Self {
        Self {
            high: TableState::EMPTY,
            low: TableState::EMPTY,
            vl_cap,
            enabled: (1u16 << vl_cap.get()) - 1,
            vl_high_limit,
            high_counter: Self::reload_value(vl_high_limit),
            policy,
            active: TableId::High,
            low_turn_open: false,
        }
    }

    /// HighPriCounter reload value: `limit * 1024` dwords (docs/spec.md §6). Limit 0 gives 0:
    /// one packet may start (counter not negative) and drives it negative — exactly
    /// "one high-priority packet, then the low table gets a turn". For 255 the counter
    /// is held at 255*1024 and never decremented.
    pub const fn reload_value(limit: u8) -> i32 {
        limit as i32 * DWORDS_PER_LIMIT_UNIT
    }

    /// Rewrite a table (between packets: the port only calls this when no packet is
    /// being granted, so nothing in flight is fragmented). The pointer is kept if still
    /// inside the table, else reset to entry 0; the active entry's weight is reloaded from
    /// the new contents. docs/spec.md §6 allows the rules to be bent during a rewrite.
    pub fn set_table(&mut self, table: TableId, entries: &[ArbEntry]) -> Result<(), TableTooLong> {
        if entries.len() > MAX_TABLE_ENTRIES {
            return Err(TableTooLong {
                table,
                len: entries.len(),
            });
        }
        match table {
            TableId::High => self.high.load(entries),
            TableId::Low => self.low.load(entries),
        }
        Ok(())
    }

    /// Write one entry of a table: the single-entry write port the RTL has (docs/spec.md §6:
    /// tables may be rewritten while traffic flows). Semantics:
    /// * The table is 64 entries long from then on; entries never written have weight 0
    ///   and are skipped (docs/spec.md §6), so a table written entry by entry arbitrates like
    ///   the same entries given to [`set_table`](Self::set_table) (see the tests).
    /// * If `index` is the table's active entry, its remaining weight is reloaded from the
    ///   new weight (as `set_table` reloads the active entry); the pointer never moves.
    ///   Any other entry takes effect when the pointer next reaches it.
    /// * A grant already made is never touched: the model commits a grant when it makes
    ///   it, so a write can only affect the next decision.
    ///
    /// One difference from `set_table`: that call moves a pointer which falls off the end
    /// of a shorter table back to entry 0 (with entry 0's weight). Written entry by entry
    /// the table has no end, so the pointer stays on a zero-weight entry, which is
    /// skipped: the next grant is the same, except during an open low-table turn (the
    /// `Weight` policy), which `set_table` continues with entry 0 and this ends (docs/spec.md
    /// §6 lets a rewrite bend the rules).
    pub fn write_entry(
        &mut self,
        table: TableId,
        index: usize,
        entry: ArbEntry,
    ) -> Result<(), EntryIndexOutOfRange> {
        if index >= MAX_TABLE_ENTRIES {
            return Err(EntryIndexOutOfRange { table, index });
        }
        let t = match table {
            TableId::High => &mut self.high,
            TableId::Low => &mut self.low,
        };
        t.entries[index] = entry;
        // Entries past the old length are zero (load clears them), so growing the length
        // changes no decision; it only lets the scan reach the new entry.
        t.len = t.len.max(index as u8 + 1);
        if index == t.ptr as usize {
            t.remaining = entry.weight as i32;
        }
        Ok(())
    }

    /// The grant [`grant`](Self::grant) would return for `heads`, without committing it
    /// (the RTL shows it as an *offer* until the consumer takes it).
    pub fn peek(&self, heads: &[Option<u16>; DATA_VLS]) -> Option<Grant> {
        self.clone().grant(heads)
    }

    /// Change VLHighLimit; the HighPriCounter is reloaded with the new value.
    pub fn set_vl_high_limit(&mut self, limit: u8) {
        self.vl_high_limit = limit;
        self.high_counter = Self::reload_value(limit);
    }

    pub fn set_low_policy(&mut self, policy: LowPolicy) {
        self.policy = policy;
    }

    /// Software enable mask of data VLs (bit v = VL v); VLs at or above VLCap stay off.
    pub fn set_enabled(&mut self, mask: u16) {
        self.enabled = mask & ((1u16 << self.vl_cap.get()) - 1);
    }

    /// Back to the initial state (pointers at entry 0 with weight loaded, counter
    /// reloaded, high table's turn), keeping tables and settings.
    pub fn reset(&mut self) {
        for t in [&mut self.high, &mut self.low] {
            t.ptr = 0;
            t.remaining = t.entries[0].weight as i32;
        }
        self.high_counter = Self::reload_value(self.vl_high_limit);
        self.active = TableId::High;
        self.low_turn_open = false;
    }

    pub fn high_counter(&self) -> i32 {
        self.high_counter
    }
    /// Whose turn it is now.
    pub fn active(&self) -> TableId {
        self.active
    }
    /// (active entry index, its remaining weight) of a table.
    pub fn pointer(&self, table: TableId) -> (u8, i32) {
        let t = self.table(table);
        (t.ptr, t.remaining)
    }
    pub fn entries(&self, table: TableId) -> &[ArbEntry] {
        let t = self.table(table);
        &t.entries[..t.len as usize]
    }
    pub fn vl_high_limit(&self) -> u8 {
        self.vl_high_limit
    }

    fn table(&self, table: TableId) -> &TableState {
        match table {
            TableId::High => &self.high,
            TableId::Low => &self.low,
        }
    }

    /// Entry valid and its VL has a head packet passing the credit check.
    #[inline]
    fn ready(&self, e: ArbEntry, heads: &[Option<u16>; DATA_VLS]) -> bool {
        // VL15 and VLs >= VLCap fail `has_data_vl`; disabled VLs fail the mask.
        self.vl_cap.has_data_vl(e.vl)
            && self.enabled & (1 << e.vl) != 0
            && heads[e.vl as usize].is_some()
    }

    /// The entry that would send next from table `t`, with its weight before sending:
    /// the active entry if it still has weight and is ready, else the next ready entry
    /// with a non-zero weight (reloaded).
    fn find(&self, t: &TableState, heads: &[Option<u16>; DATA_VLS]) -> Option<(u8, i32)> {
        let len = t.len as usize;
        if len == 0 {
            return None;
        }
        let cur = t.ptr as usize;
        if t.remaining > 0 && self.ready(t.entries[cur], heads) {
            return Some((cur as u8, t.remaining));
        }
        (1..=len).map(|k| (cur + k) % len).find_map(|j| {
            let e = t.entries[j];
            (e.weight > 0 && self.ready(e, heads)).then_some((j as u8, e.weight as i32))
        })
    }

    /// Arbitrate once at a packet boundary. `heads[v]` is `Some(PktLen)` when data VL v
    /// has a head packet that passes its credit check, `None` otherwise. Returns the
    /// packet to send (and commits the arbiter state for it), or `None` when no data
    /// packet is eligible (nothing changes then).
    pub fn grant(&mut self, heads: &[Option<u16>; DATA_VLS]) -> Option<Grant> {
        let hi = self.find(&self.high, heads);
        let lo = self.find(&self.low, heads);
        if hi.is_none() && lo.is_none() {
            return None;
        }
        // A low turn under LowPolicy::Weight continues with its active entry only.
        if self.active == TableId::Low && self.low_turn_open {
            let (idx, rem) = (self.low.ptr, self.low.remaining);
            if rem > 0 && self.ready(self.low.entries[idx as usize], heads) {
                return Some(self.send_low(idx, rem, heads));
            }
            // Exhausted or nothing to send: the low turn is over.
            self.active = TableId::High;
            self.low_turn_open = false;
        }
        if self.active == TableId::High {
            if let Some((idx, rem)) = hi {
                return Some(self.send_high(idx, rem, heads));
            }
            // docs/spec.md §6: high table has nothing eligible -> reload, low table active.
            self.high_counter = Self::reload_value(self.vl_high_limit);
            self.active = TableId::Low;
        }
        // A fresh low turn.
        if let Some((idx, rem)) = lo {
            return Some(self.send_low(idx, rem, heads));
        }
        // The low table has nothing although it is its turn: the high table sends
        // (its counter was reloaded when the low table became active).
        self.active = TableId::High;
        let (idx, rem) = hi.expect("some table is eligible");
        Some(self.send_high(idx, rem, heads))
    }

    fn send_high(&mut self, idx: u8, rem: i32, heads: &[Option<u16>; DATA_VLS]) -> Grant {
        let vl = self.high.entries[idx as usize].vl;
        let pkt_len = heads[vl as usize].expect("ready");
        let blocks = blocks_for_pkt_len(pkt_len);
        self.high.ptr = idx;
        self.high.remaining = rem - blocks as i32;
        if self.vl_high_limit != HIGH_LIMIT_UNBOUNDED {
            self.high_counter -= pkt_len as i32;
        }
        let g = Grant {
            vl,
            table: TableId::High,
            entry: idx,
            pkt_len,
            blocks,
            weight_left: self.high.remaining,
            high_counter: self.high_counter,
        };
        // docs/spec.md §6: once negative, reload and the low table becomes active.
        if self.high_counter < 0 {
            self.high_counter = Self::reload_value(self.vl_high_limit);
            self.active = TableId::Low;
            self.low_turn_open = false;
        }
        g
    }

    fn send_low(&mut self, idx: u8, rem: i32, heads: &[Option<u16>; DATA_VLS]) -> Grant {
        let vl = self.low.entries[idx as usize].vl;
        let pkt_len = heads[vl as usize].expect("ready");
        let blocks = blocks_for_pkt_len(pkt_len);
        self.low.ptr = idx;
        self.low.remaining = rem - blocks as i32;
        self.active = TableId::Low;
        let turn_over = match self.policy {
            LowPolicy::OnePacket => true,
            LowPolicy::Weight => self.low.remaining <= 0,
        };
        if turn_over {
            self.active = TableId::High;
            self.low_turn_open = false;
        } else {
            self.low_turn_open = true;
        }
        Grant {
            vl,
            table: TableId::Low,
            entry: idx,
            pkt_len,
            blocks,
            weight_left: self.low.remaining,
            high_counter: self.high_counter,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(vl: u8, w: u8) -> ArbEntry {
        ArbEntry::new(vl, w)
    }
    fn cap(n: u64) -> VlCap {
        VlCap::new(n).unwrap()
    }
    fn heads(vls: &[u8], pkt_len: u16) -> [Option<u16>; DATA_VLS] {
        let mut h = [None; DATA_VLS];
        for &v in vls {
            h[v as usize] = Some(pkt_len);
        }
        h
    }
    /// (vl, table, entry, weight_left, high_counter) of each grant.
    fn run(
        a: &mut VlArbiter,
        h: &[Option<u16>; DATA_VLS],
        n: usize,
    ) -> Vec<(u8, TableId, u8, i32, i32)> {
        (0..n)
            .map(|_| {
                let g = a.grant(h).unwrap();
                (g.vl, g.table, g.entry, g.weight_left, g.high_counter)
            })
            .collect()
    }
    use TableId::{High, Low};

    /// Seed 003, Figure 25-10: high table VL6/127, VL1/63, VL7/254; low table VL3/2 first;
    /// VLHighLimit 4 (HighPriCounter 4096 dwords); every packet 4 KB = PktLen 1024 dwords
    /// = 64 blocks; all VLs have packets and credits.
    fn figure_25_10(policy: LowPolicy) -> VlArbiter {
        let mut a = VlArbiter::new(cap(8), 4, policy);
        a.set_table(High, &[e(6, 127), e(1, 63), e(7, 254)])
            .unwrap();
        a.set_table(Low, &[e(3, 2), e(0, 64), e(2, 64)]).unwrap();
        a
    }

    #[test]
    fn figure_25_10_walkthrough() {
        for policy in [LowPolicy::Weight, LowPolicy::OnePacket] {
            let mut a = figure_25_10(policy);
            assert_eq!(a.high_counter(), 4096);
            let h = heads(&[0, 1, 2, 3, 6, 7], 1024);
            let seq = run(&mut a, &h, 5);
            assert_eq!(
                seq,
                [
                    (6, High, 0, 63, 3072),   // 127 - 64 = 63; 4096 - 1024 = 3072
                    (6, High, 0, -1, 2048),   // 63 - 64 = -1: VL6 must stop
                    (1, High, 1, -1, 1024),   // VL1 weight 63 -> -1
                    (7, High, 2, 190, 0),     // 254 - 64 = 190; counter 0: not negative
                    (7, High, 2, 126, -1024)  // negative -> reload, low table active
                ]
            );
            // Reloaded to VLHighLimit * 1024, low table active, VL7 keeps 126.
            assert_eq!(a.high_counter(), 4096);
            assert_eq!(a.active(), Low);
            assert_eq!(a.pointer(High), (2, 126));
            // Low table: VL3 (weight 2) sends one 4 KB packet: 2 - 64 = -62.
            let g = a.grant(&h).unwrap();
            assert_eq!(
                (
                    g.vl,
                    g.table,
                    g.entry,
                    g.blocks,
                    g.weight_left,
                    g.high_counter
                ),
                (3, Low, 0, 64, -62, 4096)
            );
            // Back to the high table, resuming VL7 with its 126.
            assert_eq!(a.active(), High);
            assert_eq!(a.pointer(High), (2, 126));
            let g = a.grant(&h).unwrap();
            assert_eq!(
                (g.vl, g.table, g.entry, g.weight_left, g.high_counter),
                (7, High, 2, 62, 3072)
            );
            assert_eq!(
                g.to_string(),
                "vl=7 table=high entry=2 blocks=64 weight_left=62 high_counter=3072"
            );
        }
    }

    #[test]
    fn low_policy_weight_vs_one_packet() {
        // High VL0 weight 1 with limit 0: one high packet per turn. Low VL1 weight 10 with
        // 1-block packets (PktLen 18: 64 bytes).
        for (policy, expect_low_run) in [(LowPolicy::Weight, 10), (LowPolicy::OnePacket, 1)] {
            let mut a = VlArbiter::new(cap(2), 0, policy);
            a.set_table(High, &[e(0, 200)]).unwrap();
            a.set_table(Low, &[e(1, 10)]).unwrap();
            let h = heads(&[0, 1], 18);
            let g = a.grant(&h).unwrap();
            // Limit 0: counter 0 - 18 = -18 -> low table's turn.
            assert_eq!((g.vl, g.high_counter), (0, -18));
            let mut lows = 0;
            loop {
                let g = a.grant(&h).unwrap();
                if g.table == High {
                    break;
                }
                lows += 1;
            }
            assert_eq!(lows, expect_low_run, "{policy:?}");
        }
    }

    #[test]
    fn limit_255_never_yields_while_high_eligible() {
        let mut a = VlArbiter::new(cap(2), 255, LowPolicy::Weight);
        a.set_table(High, &[e(0, 1)]).unwrap();
        a.set_table(Low, &[e(1, 255)]).unwrap();
        let h = heads(&[0, 1], 1024);
        for _ in 0..1000 {
            let g = a.grant(&h).unwrap();
            assert_eq!((g.vl, g.table, g.high_counter), (0, High, 255 * 1024));
        }
        // High VL has nothing: low runs.
        let g = a.grant(&heads(&[1], 1024)).unwrap();
        assert_eq!((g.vl, g.table), (1, Low));
    }

    #[test]
    fn limit_n_counts_dwords() {
        // Limit 1 = 1024 dwords: 100-dword packets; 11 fit (counter 1024-1100 < 0 on the 11th).
        let mut a = VlArbiter::new(cap(2), 1, LowPolicy::OnePacket);
        a.set_table(High, &[e(0, 255)]).unwrap();
        a.set_table(Low, &[e(1, 255)]).unwrap();
        let h = heads(&[0, 1], 100);
        let tables: Vec<_> = (0..13).map(|_| a.grant(&h).unwrap().table).collect();
        let mut want = vec![High; 11];
        want.extend([Low, High]);
        assert_eq!(tables, want);
    }

    #[test]
    fn high_empty_reloads_counter_and_low_runs() {
        let mut a = VlArbiter::new(cap(4), 4, LowPolicy::Weight);
        a.set_table(High, &[e(0, 255)]).unwrap();
        a.set_table(Low, &[e(1, 255)]).unwrap();
        let g = a.grant(&heads(&[0], 1024)).unwrap();
        assert_eq!(g.high_counter, 3072);
        // VL0 empty: the counter is reloaded and the low table sends.
        let g = a.grant(&heads(&[1], 1024)).unwrap();
        assert_eq!((g.vl, g.table, g.high_counter), (1, Low, 4096));
    }

    #[test]
    fn skip_rules() {
        // Weight 0, VL15, VL >= VLCap and disabled VLs are skipped.
        let mut a = VlArbiter::new(cap(4), 255, LowPolicy::Weight);
        a.set_table(High, &[e(0, 0), e(15, 9), e(5, 9), e(1, 9), e(2, 9)])
            .unwrap();
        a.set_enabled(0b1011); // VL2 disabled
        let h = {
            let mut h = heads(&[0, 1, 2, 5], 18);
            h[14] = Some(18);
            h
        };
        for _ in 0..30 {
            let g = a.grant(&h).unwrap();
            assert_eq!((g.vl, g.entry), (1, 3));
        }
        assert_eq!(a.grant(&heads(&[0, 2, 5], 18)), None);
    }

    #[test]
    fn idle_changes_nothing() {
        let mut a = figure_25_10(LowPolicy::Weight);
        a.grant(&heads(&[6], 1024)).unwrap();
        let before = a.clone();
        assert_eq!(a.grant(&heads(&[], 1024)), None);
        assert_eq!(a, before);
    }

    #[test]
    fn ineligible_entry_hands_over_and_weight_is_reloaded() {
        let mut a = VlArbiter::new(cap(4), 255, LowPolicy::Weight);
        a.set_table(High, &[e(0, 100), e(1, 100)]).unwrap();
        let g = a.grant(&heads(&[0, 1], 1024)).unwrap();
        assert_eq!((g.vl, g.weight_left), (0, 36));
        // VL0 has nothing: hand over to VL1 with its full weight.
        let g = a.grant(&heads(&[1], 1024)).unwrap();
        assert_eq!((g.vl, g.entry, g.weight_left), (1, 1, 36));
        // VL1 now empty: VL0's entry comes round again, reloaded to 100.
        let g = a.grant(&heads(&[0], 1024)).unwrap();
        assert_eq!((g.vl, g.entry, g.weight_left), (0, 0, 36));
        // Single entry wraps to itself with its weight reloaded when exhausted.
        let mut a = VlArbiter::new(cap(4), 255, LowPolicy::Weight);
        a.set_table(High, &[e(2, 64)]).unwrap();
        let w: Vec<i32> = (0..3)
            .map(|_| a.grant(&heads(&[2], 1024)).unwrap().weight_left)
            .collect();
        assert_eq!(w, [0, 0, 0]);
    }

    /// Random heads: each data VL present with probability 3/4, PktLen 6..=1048.
    fn random_heads(r: &mut impl rand::Rng) -> [Option<u16>; DATA_VLS] {
        std::array::from_fn(|_| r.gen_ratio(3, 4).then(|| r.gen_range(6..=1048)))
    }

    fn random_table(r: &mut impl rand::Rng, len: usize) -> Vec<ArbEntry> {
        (0..len)
            .map(|_| {
                let w = if r.gen_ratio(1, 5) {
                    0
                } else {
                    r.gen_range(1..=255)
                };
                e(r.gen_range(0..16), w)
            })
            .collect()
    }

    /// `set_table(t, E)` and the 64 single-entry writes `write_entry(t, i, E[i])` (weight 0
    /// past the end of E) give the same grants afterwards, from any state the arbiter was
    /// in: the one documented exception is an open low-table turn whose pointer falls off
    /// the end of the new, shorter table (counted here, shown in the next test).
    #[test]
    fn write_entry_sequence_arbitrates_like_set_table() {
        use rand::{Rng, SeedableRng};
        let mut r = rand::rngs::StdRng::seed_from_u64(0x5e7_7ab1e);
        let (mut compared, mut ptr_past_end, mut excepted) = (0, 0, 0);
        for _ in 0..3000 {
            let policy = if r.gen() {
                LowPolicy::Weight
            } else {
                LowPolicy::OnePacket
            };
            let limit = [0, 1, 4, 254, 255][r.gen_range(0..5)];
            let mut a = VlArbiter::new(cap([1, 2, 4, 8, 15][r.gen_range(0..5)]), limit, policy);
            let (hl, ll) = (r.gen_range(0..=64), r.gen_range(0..=64));
            a.set_table(High, &random_table(&mut r, hl)).unwrap();
            a.set_table(Low, &random_table(&mut r, ll)).unwrap();
            for _ in 0..r.gen_range(0..40) {
                a.grant(&random_heads(&mut r));
            }
            let table = if r.gen() { High } else { Low };
            let new_len = r.gen_range(0..=64);
            let new = random_table(&mut r, new_len);
            let mut b = a.clone();
            let exception = table == Low
                && a.active == Low
                && a.low_turn_open
                && a.low.ptr as usize >= new.len();
            ptr_past_end += (a.pointer(table).0 as usize >= new.len()) as u32;
            a.set_table(table, &new).unwrap();
            for i in 0..MAX_TABLE_ENTRIES {
                b.write_entry(table, i, new.get(i).copied().unwrap_or_default())
                    .unwrap();
            }
            if exception {
                excepted += 1;
                continue;
            }
            for k in 0..60 {
                let h = random_heads(&mut r);
                assert_eq!(
                    a.grant(&h),
                    b.grant(&h),
                    "grant {k} after rewriting the {table} table with {new:?}"
                );
            }
            compared += 1;
        }
        assert!(
            compared > 2500 && ptr_past_end > 300 && excepted > 0,
            "{compared} {ptr_past_end} {excepted}"
        );
    }

    #[test]
    fn write_entry_past_the_end_during_an_open_low_turn() {
        // Low entry 1 (VL1) is mid-turn with weight left; the table shrinks to one entry.
        let mut a = VlArbiter::new(cap(4), 0, LowPolicy::Weight);
        a.set_table(High, &[e(0, 10)]).unwrap();
        a.set_table(Low, &[e(2, 0), e(1, 10)]).unwrap();
        let h = heads(&[0, 1, 2], 18);
        assert_eq!(a.grant(&h).unwrap().table, High);
        let g = a.grant(&h).unwrap();
        assert_eq!((g.table, g.entry, g.weight_left), (Low, 1, 9));
        let mut b = a.clone();
        a.set_table(Low, &[e(2, 5)]).unwrap();
        for i in 0..MAX_TABLE_ENTRIES {
            let entry = if i == 0 { e(2, 5) } else { ArbEntry::default() };
            b.write_entry(Low, i, entry).unwrap();
        }
        // set_table moved the pointer to entry 0 and the turn goes on there; entry by
        // entry, the active entry 1 now has weight 0, so the turn ends and the high table
        // sends.
        let (ga, gb) = (a.grant(&h).unwrap(), b.grant(&h).unwrap());
        assert_eq!((ga.table, ga.vl, ga.entry), (Low, 2, 0));
        assert_eq!((gb.table, gb.vl), (High, 0));
    }

    #[test]
    fn write_entry_reloads_only_the_active_entry() {
        let mut a = VlArbiter::new(cap(4), 255, LowPolicy::Weight);
        a.write_entry(High, 0, e(0, 100)).unwrap();
        a.write_entry(High, 1, e(1, 50)).unwrap();
        assert_eq!(a.entries(High), &[e(0, 100), e(1, 50)]);
        let h = heads(&[0, 1], 1024); // 64 blocks
        assert_eq!(a.grant(&h).unwrap().weight_left, 36);
        // Another entry: the active one keeps its 36.
        a.write_entry(High, 1, e(1, 70)).unwrap();
        assert_eq!(a.pointer(High), (0, 36));
        // The active entry: reloaded from the new weight, pointer unmoved.
        a.write_entry(High, 0, e(2, 80)).unwrap();
        assert_eq!(a.pointer(High), (0, 80));
        let g = a.grant(&heads(&[1, 2], 1024)).unwrap();
        assert_eq!((g.vl, g.entry, g.weight_left), (2, 0, 16));
        // Weight 0 on the active entry: it is skipped from now on.
        a.write_entry(High, 0, e(2, 0)).unwrap();
        let g = a.grant(&heads(&[1, 2], 1024)).unwrap();
        assert_eq!((g.vl, g.entry, g.weight_left), (1, 1, 6));
        // An entry far out: the table is 64 long, the scan reaches it.
        a.write_entry(High, 63, e(3, 9)).unwrap();
        let g = a.grant(&heads(&[3], 18)).unwrap();
        assert_eq!((g.vl, g.entry, g.weight_left), (3, 63, 8));
        assert_eq!(
            a.write_entry(Low, 64, e(0, 1)),
            Err(EntryIndexOutOfRange {
                table: Low,
                index: 64
            })
        );
    }

    #[test]
    fn peek_does_not_commit() {
        let mut a = figure_25_10(LowPolicy::Weight);
        let h = heads(&[0, 1, 2, 3, 6, 7], 1024);
        let before = a.clone();
        let p = a.peek(&h);
        assert_eq!(a, before);
        assert_eq!(p, a.grant(&h));
        assert_ne!(a, before);
        assert_eq!(a.peek(&heads(&[], 1024)), None);
    }

    #[test]
    fn table_rewrite() {
        let mut a = figure_25_10(LowPolicy::Weight);
        let h = heads(&[1, 3, 6, 7], 1024);
        a.grant(&h).unwrap();
        a.grant(&h).unwrap();
        a.grant(&h).unwrap(); // high pointer now at entry 1 (VL1), weight -1
        assert_eq!(a.pointer(High), (1, -1));
        a.set_table(High, &[e(7, 10), e(3, 20)]).unwrap();
        assert_eq!(a.pointer(High), (1, 20));
        a.set_table(High, &[e(7, 10)]).unwrap();
        assert_eq!(a.pointer(High), (0, 10));
        let too_long = [e(0, 1); 65];
        assert_eq!(
            a.set_table(Low, &too_long),
            Err(TableTooLong {
                table: Low,
                len: 65
            })
        );
    }
}
