//! A whole port's link layer, stepped one clock at a time (docs/spec.md §4–§8 composed).
//!
//! Transmit side: per-VL packet queues, [`TxCredits`], the [`VlArbiter`], the
//! [`FcpScheduler`] and a VL15 queue. Receive side: [`RxCredits`], per-VL receive
//! buffers drained by a modelled higher layer, the VL15 buffer and the [`Failsafe`].
//!
//! The wire carries [`LinkItem`]s. An item occupies the transmitter for
//! `ceil(wire_bytes / W)` clocks (data: `PktLen*4 + 2` bytes incl. VCRC; FCP: 6 bytes)
//! and is handed to the peer in the clock its last byte goes out. Connect two ports
//! with [`PortPair`] (one clock of wire latency).
//!
//! One [`PortModel::step`] does, in this order:
//! 1. **receive** the item the peer finished last clock (FCP: decode, `ABR := FCTBS`,
//!    `CL := FCCL`; data: accept or drop-and-count; VL15: buffer or drop-and-count);
//! 2. **drain** receive buffers at the configured rate;
//! 3. **transmit**: if idle, start the next item — VL15 > FCP > data (docs/spec.md §5), data
//!    only in LinkActive and only through the arbiter; packets are never fragmented;
//! 4. **timers**: FCP scheduler and failsafe tick; a failsafe trip resyncs the port.
//!
//! The step path uses fixed arrays only and never allocates (see `tests/no_alloc.rs`).

use crate::arbiter::{Grant, TableId, TableTooLong, VlArbiter};
use crate::blocks::{blocks_for_pkt_len, BLOCK_BYTES, MAX_PKT_LEN, MIN_PKT_LEN};
use crate::config::PortConfig;
use crate::credits::{RxCredits, TxCredits};
use crate::failsafe::{Failsafe, FailsafeConfig, ResyncReason};
use crate::fcp::{Fcp, FcpOp, FCP_BYTES};
use crate::scheduler::FcpScheduler;
use crate::sl2vl::{SlToVl, VlCap, DATA_VLS, VL15};
use crate::vl15::Vl15Buffer;

/// Packets each data VL's transmit queue holds.
pub const TXQ_DEPTH: usize = 64;
/// Packets the VL15 transmit queue holds.
pub const VL15_TXQ_DEPTH: usize = 16;
/// Receive-buffer packet slots per VL: every packet is at least one block and a buffer
/// is at most 4095 blocks.
const RXQ_DEPTH: usize = 4096;

/// What crosses the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkItem {
    /// A Flow Control Packet, as its six wire bytes (so corruption can be injected).
    Fcp([u8; FCP_BYTES]),
    /// A data packet on data VL `vl` of `pkt_len` dwords (LRH:PktLen).
    Data { vl: u8, pkt_len: u16 },
    /// A management packet on VL15.
    Vl15 { pkt_len: u16 },
}

impl LinkItem {
    /// Bytes on the wire: data packets are PktLen dwords plus the 2-byte VCRC.
    pub const fn wire_bytes(&self) -> u32 {
        match self {
            LinkItem::Fcp(_) => FCP_BYTES as u32,
            LinkItem::Data { pkt_len, .. } | LinkItem::Vl15 { pkt_len } => *pkt_len as u32 * 4 + 2,
        }
    }
}

/// Link layer state as far as flow control cares (docs/spec.md §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LinkState {
    /// Nothing sent or received.
    Down,
    /// FCPs with Op 1; no data packets.
    #[default]
    Initialize,
    /// FCPs with Op 0; no data packets.
    Arm,
    /// FCPs with Op 0; data packets flow.
    Active,
}

/// What happened in one clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepOut {
    /// The item whose last byte left this clock: the peer's input next clock.
    pub tx: Option<LinkItem>,
    /// The item that started this clock.
    pub started: Option<LinkItem>,
    /// The arbiter's decision when a data packet started this clock.
    pub grant: Option<Grant>,
    /// Set when the failsafe requested (and this port performed) a link resync.
    pub resync: Option<ResyncReason>,
}

/// Counters (statistics only; no behaviour depends on them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub data_sent: u64,
    pub blocks_sent: u64,
    pub fcp_sent: u64,
    pub vl15_sent: u64,
    pub data_received: u64,
    pub blocks_received: u64,
    pub fcp_received: u64,
    pub fcp_errors: u64,
    pub overruns: u64,
    /// Data packets for VL15 or a VL at or above VLCap: dropped.
    pub bad_vl: u64,
    pub vl15_received: u64,
    pub vl15_dropped: u64,
    pub resyncs: u64,
}

/// Why a packet could not be queued for transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnqueueError {
    #[error("VL {0} is not a data VL of this port")]
    BadVl(u8),
    #[error("PktLen {0} is out of range 6..=1048")]
    BadPktLen(u16),
    #[error("transmit queue of VL {0} is full")]
    Full(u8),
}

/// Fixed-capacity FIFO.
#[derive(Clone, Copy, Debug)]
struct Ring<T: Copy + Default, const N: usize> {
    buf: [T; N],
    head: u16,
    len: u16,
}

impl<T: Copy + Default, const N: usize> Ring<T, N> {
    fn new() -> Self {
        Self {
            buf: [T::default(); N],
            head: 0,
            len: 0,
        }
    }
    #[inline]
    fn push(&mut self, v: T) -> bool {
        if self.len as usize == N {
            return false;
        }
        self.buf[(self.head as usize + self.len as usize) % N] = v;
        self.len += 1;
        true
    }
    #[inline]
    fn front(&self) -> Option<T> {
        (self.len > 0).then(|| self.buf[self.head as usize])
    }
    #[inline]
    fn pop(&mut self) -> Option<T> {
        let v = self.front()?;
        self.head = ((self.head as usize + 1) % N) as u16;
        self.len -= 1;
        Some(v)
    }
    fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

/// One port's link layer.
#[derive(Clone)]
pub struct PortModel {
    vl_cap: VlCap,
    width: u32,
    link: LinkState,
    tx: [TxCredits; DATA_VLS],
    rx: [RxCredits; DATA_VLS],
    txq: [Ring<u16, TXQ_DEPTH>; DATA_VLS],
    vl15_txq: Ring<u16, VL15_TXQ_DEPTH>,
    /// Blocks of each packet held in each receive buffer, oldest first.
    rxq: Box<[Ring<u8, RXQ_DEPTH>; DATA_VLS]>,
    /// Bytes of drain progress on each VL's head packet.
    drain_acc: [u32; DATA_VLS],
    /// Higher-layer drain rate per VL, bytes a clock (0: only [`PortModel::drain`]).
    drain_rate: u32,
    vl15_rx: Vl15Buffer,
    arbiter: VlArbiter,
    sched: FcpScheduler,
    failsafe: Failsafe,
    sl2vl: SlToVl,
    /// The item on the wire and the clocks it still needs.
    in_flight: Option<LinkItem>,
    busy_left: u32,
    stats: PortStats,
}

impl PortModel {
    /// A port in LinkInitialize with the given (validated) configuration. Panics if the
    /// configuration is invalid; call [`PortConfig::validate`] first to get the error.
    pub fn new(cfg: &PortConfig) -> Self {
        cfg.validate().expect("invalid PortConfig");
        let mut arbiter = VlArbiter::new(cfg.vl_cap, cfg.vl_high_limit, cfg.low_policy);
        arbiter
            .set_table(TableId::High, &cfg.high)
            .expect("validated");
        arbiter
            .set_table(TableId::Low, &cfg.low)
            .expect("validated");
        Self {
            vl_cap: cfg.vl_cap,
            width: cfg.datapath_bytes as u32,
            link: LinkState::Initialize,
            tx: [TxCredits::new(); DATA_VLS],
            rx: [RxCredits::new(cfg.buffer_blocks); DATA_VLS],
            txq: [Ring::new(); DATA_VLS],
            vl15_txq: Ring::new(),
            rxq: Box::new([Ring::new(); DATA_VLS]),
            drain_acc: [0; DATA_VLS],
            drain_rate: 0,
            vl15_rx: Vl15Buffer::new(cfg.vl15_buffer_packets),
            arbiter,
            sched: FcpScheduler::new(cfg.vl_cap, cfg.refresh_clocks(), cfg.min_gap_clocks()),
            failsafe: Failsafe::new(
                cfg.vl_cap,
                FailsafeConfig {
                    period_clocks: cfg.spec_period_clocks(),
                    update_periods: cfg.update_monitor_periods,
                    overrun_periods: cfg.overrun_periods,
                },
            ),
            sl2vl: SlToVl::new(cfg.vl_cap),
            in_flight: None,
            busy_left: 0,
            stats: PortStats::default(),
        }
    }

    // ----- configuration and inspection -------------------------------------------

    pub fn vl_cap(&self) -> VlCap {
        self.vl_cap
    }
    pub fn link_state(&self) -> LinkState {
        self.link
    }
    /// Change link state (the link state machine is outside this model). Going Down
    /// and coming back up re-initialises credits as a link init does.
    pub fn set_link_state(&mut self, s: LinkState) {
        if self.link == LinkState::Down && s != LinkState::Down {
            self.reinit();
        }
        self.link = s;
    }
    /// Higher-layer drain rate for every data VL's receive buffer (and VL15: one packet
    /// a clock when non-zero), in bytes a clock. 0 means drain only by [`Self::drain`].
    pub fn set_drain_rate(&mut self, bytes_per_clock: u32) {
        self.drain_rate = bytes_per_clock;
    }
    pub fn tx_credits(&self, vl: u8) -> &TxCredits {
        &self.tx[vl as usize]
    }
    pub fn rx_credits(&self, vl: u8) -> &RxCredits {
        &self.rx[vl as usize]
    }
    pub fn arbiter(&self) -> &VlArbiter {
        &self.arbiter
    }
    /// Rewrite an arbitration table. Steps are packet-boundary safe: a packet already on
    /// the wire is not affected.
    pub fn set_arb_table(
        &mut self,
        table: TableId,
        entries: &[crate::arbiter::ArbEntry],
    ) -> Result<(), TableTooLong> {
        self.arbiter.set_table(table, entries)
    }
    pub fn arbiter_mut(&mut self) -> &mut VlArbiter {
        &mut self.arbiter
    }
    pub fn sl2vl_mut(&mut self) -> &mut SlToVl {
        &mut self.sl2vl
    }
    pub fn scheduler(&self) -> &FcpScheduler {
        &self.sched
    }
    pub fn failsafe(&self) -> &Failsafe {
        &self.failsafe
    }
    pub fn vl15_rx(&self) -> &Vl15Buffer {
        &self.vl15_rx
    }
    pub fn stats(&self) -> &PortStats {
        &self.stats
    }
    /// Packets waiting in data VL `vl`'s transmit queue.
    pub fn txq_len(&self, vl: u8) -> usize {
        self.txq[vl as usize].len as usize
    }
    /// Packets held in data VL `vl`'s receive buffer.
    pub fn rxq_len(&self, vl: u8) -> usize {
        self.rxq[vl as usize].len as usize
    }
    /// Whether the transmitter is in the middle of an item.
    pub fn busy(&self) -> bool {
        self.busy_left > 0
    }

    // ----- traffic ---------------------------------------------------------------

    /// Queue a data packet of `pkt_len` dwords on data VL `vl`.
    pub fn enqueue(&mut self, vl: u8, pkt_len: u16) -> Result<(), EnqueueError> {
        if !self.vl_cap.has_data_vl(vl) {
            return Err(EnqueueError::BadVl(vl));
        }
        if !(MIN_PKT_LEN..=MAX_PKT_LEN).contains(&pkt_len) {
            return Err(EnqueueError::BadPktLen(pkt_len));
        }
        if self.txq[vl as usize].push(pkt_len) {
            Ok(())
        } else {
            Err(EnqueueError::Full(vl))
        }
    }
    /// Queue a management packet on VL15.
    pub fn enqueue_vl15(&mut self, pkt_len: u16) -> Result<(), EnqueueError> {
        if !(MIN_PKT_LEN..=MAX_PKT_LEN).contains(&pkt_len) {
            return Err(EnqueueError::BadPktLen(pkt_len));
        }
        if self.vl15_txq.push(pkt_len) {
            Ok(())
        } else {
            Err(EnqueueError::Full(VL15))
        }
    }
    /// Queue a packet by service level, through the SLtoVL table (SL15 -> VL15).
    pub fn enqueue_sl(&mut self, sl: u8, pkt_len: u16) -> Result<(), EnqueueError> {
        match self.sl2vl.map(sl) {
            VL15 => self.enqueue_vl15(pkt_len),
            vl => self.enqueue(vl, pkt_len),
        }
    }
    /// The higher layer takes the oldest packet from data VL `vl`'s receive buffer;
    /// returns its blocks.
    pub fn drain(&mut self, vl: u8) -> Option<u16> {
        let b = self.rxq[vl as usize].pop()? as u16;
        self.rx[vl as usize].drain(b);
        self.drain_acc[vl as usize] = 0;
        Some(b)
    }
    /// The management agent takes one VL15 packet.
    pub fn drain_vl15(&mut self) -> bool {
        self.vl15_rx.drain()
    }

    // ----- resync ----------------------------------------------------------------

    /// Link resync (docs/spec.md §8): all credit accounting back to link-init values
    /// (FCTBS, ABR, CL = 0, free = capacity; receive buffers emptied), the item on the
    /// wire is lost, the arbiter restarts, every VL is due an FCP, and the port is in
    /// LinkInitialize so those FCPs carry Op 1. Transmit queues are kept.
    pub fn resync(&mut self) {
        self.reinit();
        self.link = LinkState::Initialize;
        self.stats.resyncs += 1;
    }

    fn reinit(&mut self) {
        for t in &mut self.tx {
            t.reset();
        }
        for r in &mut self.rx {
            r.reset();
        }
        for q in self.rxq.iter_mut() {
            q.clear();
        }
        self.drain_acc = [0; DATA_VLS];
        self.vl15_rx.clear();
        self.arbiter.reset();
        self.sched.restart();
        self.failsafe.reset();
        self.in_flight = None;
        self.busy_left = 0;
    }

    // ----- the clock ---------------------------------------------------------------

    /// Advance one clock. `input` is what the peer finished sending last clock.
    pub fn step(&mut self, input: Option<LinkItem>) -> StepOut {
        let mut out = StepOut::default();
        if self.link == LinkState::Down {
            return out;
        }
        if let Some(item) = input {
            self.receive(item);
        }
        if self.drain_rate > 0 {
            self.auto_drain();
        }
        if self.busy_left == 0 {
            self.start_next(&mut out);
        }
        if self.busy_left > 0 {
            self.busy_left -= 1;
            if self.busy_left == 0 {
                out.tx = self.in_flight.take();
            }
        }
        self.sched.tick();
        if let Some(reason) = self.failsafe.tick() {
            self.resync();
            out.resync = Some(reason);
        }
        out
    }

    fn receive(&mut self, item: LinkItem) {
        match item {
            LinkItem::Fcp(bytes) => match Fcp::decode(&bytes, self.vl_cap) {
                Ok(f) => {
                    // docs/spec.md §4: receiver ABR := FCTBS, transmitter CL := FCCL.
                    self.rx[f.vl as usize].on_fcp(f.fctbs);
                    self.tx[f.vl as usize].on_fcp(f.fccl);
                    self.failsafe.on_fcp(f.vl);
                    self.stats.fcp_received += 1;
                }
                // Reserved op, bad LPCRC, VL15 or unimplemented VL: discarded.
                Err(_) => self.stats.fcp_errors += 1,
            },
            LinkItem::Data { vl, pkt_len } => {
                if !self.vl_cap.has_data_vl(vl) {
                    self.stats.bad_vl += 1;
                    return;
                }
                let blocks = blocks_for_pkt_len(pkt_len);
                match self.rx[vl as usize].accept(blocks) {
                    Ok(()) => {
                        // Cannot overflow: free blocks bound the packets held.
                        self.rxq[vl as usize].push(blocks as u8);
                        self.stats.data_received += 1;
                        self.stats.blocks_received += blocks as u64;
                    }
                    Err(_) => {
                        self.stats.overruns += 1;
                        self.failsafe.on_overrun(vl);
                    }
                }
            }
            LinkItem::Vl15 { .. } => {
                if self.vl15_rx.accept() {
                    self.stats.vl15_received += 1;
                } else {
                    self.stats.vl15_dropped += 1;
                }
            }
        }
    }

    /// Each VL's higher layer takes `drain_rate` bytes a clock from its head packet.
    #[inline]
    fn auto_drain(&mut self) {
        for v in 0..self.vl_cap.get() as usize {
            let Some(b) = self.rxq[v].front() else {
                self.drain_acc[v] = 0;
                continue;
            };
            self.drain_acc[v] += self.drain_rate;
            let need = b as u32 * BLOCK_BYTES;
            if self.drain_acc[v] >= need {
                self.drain_acc[v] -= need;
                self.rxq[v].pop();
                self.rx[v].drain(b as u16);
            }
        }
        self.vl15_rx.drain();
    }

    /// Transmitter idle: choose VL15 > FCP > data (docs/spec.md §5) and start it.
    #[inline]
    fn start_next(&mut self, out: &mut StepOut) {
        let item = if let Some(pkt_len) = self.vl15_txq.pop() {
            self.stats.vl15_sent += 1;
            LinkItem::Vl15 { pkt_len }
        } else if let Some(fcp) = self.due_fcp() {
            fcp
        } else if self.link == LinkState::Active {
            match self.next_data(out) {
                Some(item) => item,
                None => return,
            }
        } else {
            return;
        };
        self.busy_left = item.wire_bytes().div_ceil(self.width);
        self.in_flight = Some(item);
        out.started = Some(item);
    }

    #[inline]
    fn due_fcp(&mut self) -> Option<LinkItem> {
        let mut fccl = [0u16; DATA_VLS];
        let n = self.vl_cap.get() as usize;
        for (f, rx) in fccl[..n].iter_mut().zip(&self.rx) {
            *f = rx.fccl();
        }
        let vl = self.sched.next_due(&fccl)?;
        let op = if self.link == LinkState::Initialize {
            FcpOp::Init
        } else {
            FcpOp::Normal
        };
        // The FCP carries this port's transmitter FCTBS and receiver FCCL for the VL.
        let f = Fcp {
            op,
            fctbs: self.tx[vl as usize].fctbs(),
            vl,
            fccl: fccl[vl as usize],
        };
        self.sched.on_sent(vl, f.fccl);
        self.stats.fcp_sent += 1;
        Some(LinkItem::Fcp(f.encode()))
    }

    #[inline]
    fn next_data(&mut self, out: &mut StepOut) -> Option<LinkItem> {
        let mut heads = [None; DATA_VLS];
        let mut any = false;
        let n = self.vl_cap.get() as usize;
        for ((head, q), tx) in heads[..n].iter_mut().zip(&self.txq).zip(&self.tx) {
            if let Some(p) = q.front() {
                if tx.can_send(blocks_for_pkt_len(p)) {
                    *head = Some(p);
                    any = true;
                }
            }
        }
        if !any {
            return None;
        }
        let g = self.arbiter.grant(&heads)?;
        let v = g.vl as usize;
        self.txq[v].pop();
        self.tx[v].on_send(g.blocks);
        self.stats.data_sent += 1;
        self.stats.blocks_sent += g.blocks as u64;
        out.grant = Some(g);
        Some(LinkItem::Data {
            vl: g.vl,
            pkt_len: g.pkt_len,
        })
    }
}

/// Two ports back to back, one clock of wire latency each way. A resync of either end
/// is a link retrain: the other end resyncs too, the wire is cleared, and both return
/// to LinkActive after `activate_after` clocks in LinkInitialize (init FCPs exchanged).
#[derive(Clone)]
pub struct PortPair {
    pub a: PortModel,
    pub b: PortModel,
    a_to_b: Option<LinkItem>,
    b_to_a: Option<LinkItem>,
    activate_after: u32,
    init_left: u32,
}

/// Default clocks both ends stay in LinkInitialize before going active: ample for the
/// init FCPs of 15 VLs (2 clocks each at 32 bits) to cross.
pub const DEFAULT_ACTIVATE_AFTER: u32 = 256;

impl PortPair {
    /// Both ports start in LinkInitialize and go LinkActive after `activate_after` clocks.
    pub fn new(a: PortModel, b: PortModel, activate_after: u32) -> Self {
        Self {
            a,
            b,
            a_to_b: None,
            b_to_a: None,
            activate_after,
            init_left: activate_after.max(1),
        }
    }

    /// Items on the wire right now (a->b, b->a), for fault injection.
    pub fn wire_mut(&mut self) -> (&mut Option<LinkItem>, &mut Option<LinkItem>) {
        (&mut self.a_to_b, &mut self.b_to_a)
    }

    /// One clock for both ports.
    pub fn step(&mut self) -> (StepOut, StepOut) {
        let oa = self.a.step(self.b_to_a.take());
        let ob = self.b.step(self.a_to_b.take());
        self.a_to_b = oa.tx;
        self.b_to_a = ob.tx;
        if oa.resync.is_some() || ob.resync.is_some() {
            if oa.resync.is_none() {
                self.a.resync();
            }
            if ob.resync.is_none() {
                self.b.resync();
            }
            self.a_to_b = None;
            self.b_to_a = None;
            self.init_left = self.activate_after.max(1);
        } else if self.init_left > 0 {
            self.init_left -= 1;
            if self.init_left == 0 {
                self.a.set_link_state(LinkState::Active);
                self.b.set_link_state(LinkState::Active);
            }
        }
        (oa, ob)
    }
}
