//! The link port as a composition of its blocks' reference models ([`PortCycleModel`]),
//! the oracle of the port's lockstep against its RTL ([`iblink_rtl::link_port`]) in
//! `crates/sim/tests/lockstep/link_port.rs`, driven there by the random stimulus of
//! [`super::link_port_stimulus`].
//!
//! [`PortCycleModel`] holds one model adapter per block (the same adapters each block's
//! own lockstep uses: [`TxCreditsModelSim`], [`ArbCycleModel`], [`LinkTxModelSim`],
//! [`FcpTxModelSim`], [`FcpRxModelSim`], [`LinkRxModelSim`], [`RxCreditsModelSim`],
//! [`Vl15RxModelSim`], [`FailsafeModelSim`]) and wires them as the port's netlist wires
//! the RTL blocks (`crates/rtl/src/link_port/netlist.rs`: the `netlist!` description that
//! gives both the Rust twin [`LinkPortTwin`](iblink_rtl::link_port::LinkPortTwin) and the
//! Verilog top). The port's own logic between its blocks, in the RTL a block of its own
//! ([`iblink_rtl::port_ctrl`], twin `PortCtrlTwin`: the taken-VL mask, the configuration
//! registers, the power-up table loader), is re-implemented here from that block's
//! documentation, not reused.
//!
//! # Evaluation order within a clock
//! `CycleSim::step` gives a block's outputs and applies its clock edge in one call, so a
//! block is stepped once every input it needs is known. The port has no combinational
//! loop, but two blocks are needed before their inputs are known:
//! - the arbiter's offer feeds the link TX mux, whose `take` feeds the arbiter. The offer
//!   is registered (it depends on the arbiter's state and on heads three clocks old), so
//!   it is computed ahead from the reference arbiter
//!   ([`VlArbiter::peek`](iblink_model::arbiter::VlArbiter::peek)) by the
//!   adapter's documented rule (offer hidden for `TAKE_GAP - 1` clocks after a take and
//!   `CONFIG_GAP - 1` after a configuration change), and checked against what the
//!   adapter then shows (a panic if they differ, never a silent difference);
//! - the FCP framer's first word is combinational from `fcp_start`, which the mux decides.
//!   The mux samples FCP word 0 only in the clock it starts the FCP (its documented
//!   contract), so it is given the pending FCP's first word (the reference encoder's
//!   bytes of [`FcpTxModelSim::pending_fcp`]) whenever one is pending; the framer, stepped
//!   next with the mux's real `fcp_start`, must then show exactly that word when it
//!   starts (checked).
//!
//! The TX credit block's `credit_ok` (one clock late) is likewise computed a clock ahead
//! from the reference [`TxCredits::can_send`] and checked against the adapter.

use crate::blocks::failsafe::FailsafeModelSim;
use crate::blocks::fcp_rx::FcpRxModelSim;
use crate::blocks::fcp_tx::FcpTxModelSim;
use crate::blocks::link_rx::LinkRxModelSim;
use crate::blocks::link_tx::LinkTxModelSim;
use crate::blocks::rx_credits::RxCreditsModelSim;
use crate::blocks::vl15_rx::Vl15RxModelSim;
use crate::blocks::tx_credits::TxCreditsModelSim;
use crate::blocks::vl_arb::{out_of, ArbCycleModel, Heads};
use crate::CycleSim;
use iblink_model::arbiter::Grant;
use iblink_model::credits::{RxCredits, TxCredits};
use iblink_model::fcp::{Fcp, FCP_BYTES};
use iblink_model::sl2vl::DATA_VLS;
use iblink_rtl::failsafe::{spec_period_clocks, FailsafeIn};
use iblink_rtl::fcp_rx::FcpRxIn;
use iblink_rtl::fcp_tx::FcpTxIn;
use iblink_rtl::link::{LINK_ACTIVE, LINK_DOWN, LINK_INIT};
use iblink_rtl::link_port::{
    np_of, tuser, LinkPortIn, LinkPortOut, PortParams, CFG_LOW_POLICY, CFG_MIN_GAP, CFG_OVERRUN_PERIODS,
    CFG_REFRESH, CFG_UPDATE_PERIODS, CFG_VL_ENABLE, CFG_VL_HIGH_LIMIT,
};
use iblink_rtl::link_rx::LinkRxIn;
use iblink_rtl::link_tx::LinkTxIn;
use iblink_rtl::rx_credits::RxCreditsIn;
use iblink_rtl::tx_credits::{TxCreditsIn, MAX_VLS};
use iblink_rtl::vl15_rx::Vl15RxIn;
use iblink_rtl::vl_arb::{VlArbIn, VlArbOut, CONFIG_GAP, HEAD_DELAY, TAKE_GAP};
use std::collections::VecDeque;

/// The port's own registers: those of the RTL's port logic ([`iblink_rtl::port_ctrl`]),
/// re-implemented from its documentation.
#[derive(Clone, Debug)]
struct Regs {
    /// Bit v: a data packet of VL v started in the previous clock (its `credit_ok` bit is
    /// stale for a clock, so the arbiter must not see its head).
    taken_mask: u16,
    /// `txq_valid` of the previous clock (a head new this clock has a stale credit bit).
    txq_valid_q: u16,
    /// The power-up loader's next step; it runs while below the load sequence's length.
    load_idx: usize,
    vl_high_limit: u8,
    one_packet: bool,
    vl_enable: u16,
    refresh: u16,
    min_gap: u16,
    /// Failsafe thresholds as written (0x85, 0x86) and as applied (taken at a reset).
    cfg_update: u16,
    cfg_overrun: u16,
    fs_update: u16,
    fs_overrun: u16,
    /// `acc_vl` of the previous clock: the VL RX credits' `dropped` answers.
    acc_vl_q: u8,
}

/// What the model saw in the blocks' state (for coverage assertions).
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelCoverage {
    /// FCTBS (this port's transmitter) / ABR (its receiver) passing 4095 -> 0, any VL.
    pub fctbs_wraps: u64,
    pub abr_wraps: u64,
    /// Data packets, VL15 packets, FCPs started on the transmit side.
    pub data_starts: u64,
    pub vl15_starts: u64,
    pub fcp_starts: u64,
    /// FCPs sent with Op 1 (LinkInitialize).
    pub fcp_init: u64,
    /// Grants from the high / low table.
    pub high_grants: u64,
    pub low_grants: u64,
    /// Clocks a data VL's head was valid but its credit check failed.
    pub credit_stalls: u64,
    /// Packets taken into the receive buffer / dropped by RX credits (overrun) / VL15 kept
    /// / VL15 dropped (buffer full).
    pub rx_accepted: u64,
    pub rx_overruns: u64,
    pub vl15_kept: u64,
    pub vl15_dropped: u64,
    /// Good FCPs received (credits updated).
    pub fcp_updates: u64,
    /// Clocks in port reset (reset or link Down).
    pub reset_clocks: u64,
    /// Table writes by the loader / by `cfg_wr`.
    pub loader_writes: u64,
    pub cfg_table_writes: u64,
}

/// The link port made of its blocks' reference-model adapters.
pub struct PortCycleModel {
    n: usize,
    lanes: usize,
    load: Vec<(bool, u8, u8, u8)>,
    regs: Regs,
    txc: TxCreditsModelSim,
    rxc: RxCreditsModelSim,
    vl15: Vl15RxModelSim,
    arb: ArbCycleModel,
    fcptx: FcpTxModelSim,
    fcprx: FcpRxModelSim,
    ltx: LinkTxModelSim,
    lrx: LinkRxModelSim,
    fs: FailsafeModelSim,
    period: u16,
    /// `credit_ok` the TX credit adapter shows this clock (the check of the clock before).
    ok_q: u16,
    /// The arbiter adapter's offer rule: heads of the last `HEAD_DELAY` clocks, oldest
    /// first; the clocks of the last take and configuration change; the configuration
    /// inputs of the clock before (power-up: as if 0).
    arb_hist: VecDeque<Heads>,
    arb_last_take: Option<u64>,
    arb_last_config: Option<u64>,
    arb_prev: (u8, bool, u16),
    /// 32 bits: the LPCRC word the framer shows in this clock (its FCP started earlier and
    /// the mux has not taken this word yet).
    fcp_second: Option<u64>,
    clock: u64,
    prev_fctbs: [u16; MAX_VLS],
    prev_abr: [u16; MAX_VLS],
    pub cov: ModelCoverage,
}

impl PortCycleModel {
    /// The port generated from `p`.
    pub fn new(p: &PortParams) -> Self {
        let n = p.vl_cap;
        Self {
            n,
            lanes: p.width / 8,
            load: p.load_sequence(),
            regs: Regs {
                taken_mask: 0,
                txq_valid_q: 0,
                load_idx: 0,
                vl_high_limit: p.vl_high_limit,
                one_packet: p.one_packet,
                vl_enable: ((1u32 << n) - 1) as u16,
                refresh: p.refresh_clocks,
                min_gap: p.min_gap_clocks,
                cfg_update: p.update_periods,
                cfg_overrun: p.overrun_periods,
                fs_update: p.update_periods,
                fs_overrun: p.overrun_periods,
                acc_vl_q: 0,
            },
            txc: TxCreditsModelSim::new(n),
            rxc: RxCreditsModelSim::new(n, p.buffer_blocks),
            vl15: Vl15RxModelSim::new(p.vl15_packets),
            arb: ArbCycleModel::new(n),
            fcptx: FcpTxModelSim::new(n, p.width),
            fcprx: FcpRxModelSim::new(n, p.width),
            ltx: LinkTxModelSim::new(p.width),
            lrx: LinkRxModelSim::new(n, p.width),
            fs: FailsafeModelSim::new(n),
            period: spec_period_clocks(p.width) as u16,
            ok_q: 0,
            arb_hist: vec![[None; DATA_VLS]; HEAD_DELAY].into(),
            arb_last_take: None,
            arb_last_config: None,
            arb_prev: (0, false, 0),
            fcp_second: None,
            clock: 0,
            prev_fctbs: [0; MAX_VLS],
            prev_abr: [0; MAX_VLS],
            cov: ModelCoverage::default(),
        }
    }

    /// The TX credit state of data VL `v` (this port's FCTBS and CL).
    pub fn tx_credits(&self, v: usize) -> &TxCredits {
        self.txc.vl(v)
    }
    /// The RX credit state of data VL `v` (ABR, free).
    pub fn rx_credits(&self, v: usize) -> &RxCredits {
        self.rxc.vl(v)
    }
    /// The FCP framer's tally (FCPs by reason, Op, back to back...).
    pub fn fcp_tx_tally(&self) -> &crate::blocks::fcp_tx::Tally {
        &self.fcptx.tally
    }
    /// The link RX classifier's tally.
    pub fn link_rx_tally(&self) -> &crate::blocks::link_rx::Tally {
        self.lrx.tally()
    }

    /// The offer the arbiter adapter shows this clock (see the module docs).
    fn arb_offer(&self) -> Option<Grant> {
        let quiet =
            |last: Option<u64>, gap: usize| last.is_none_or(|c| self.clock - c >= gap as u64);
        if quiet(self.arb_last_take, TAKE_GAP) && quiet(self.arb_last_config, CONFIG_GAP) {
            self.arb
                .arbiter()
                .peek(self.arb_hist.front().expect("HEAD_DELAY clocks of heads"))
        } else {
            None
        }
    }

    /// Bookkeeping of the offer rule after the arbiter's clock.
    fn arb_after(&mut self, i: &VlArbIn, took: bool) {
        if took {
            self.arb_last_take = Some(self.clock);
        }
        let enable = i.vl_enable & ((1u32 << self.n) - 1) as u16;
        let now = (i.vl_high_limit, i.one_packet, enable);
        if i.wr_en || i.reset || now != self.arb_prev {
            self.arb_last_config = Some(self.clock);
        }
        self.arb_prev = now;
        self.arb_hist.pop_front();
        self.arb_hist.push_back(self.arb.heads_of(i));
    }

    /// The words of FCP `f` at this width: (first word, the LPCRC word at 32 bits).
    fn fcp_words(&self, f: &Fcp) -> (u64, Option<u64>) {
        let b = f.encode();
        let n = FCP_BYTES.min(self.lanes);
        let first = b[..n]
            .iter()
            .enumerate()
            .fold(0u64, |a, (k, x)| a | (*x as u64) << (8 * k));
        let second = (n < FCP_BYTES).then(|| b[4] as u64 | (b[5] as u64) << 8);
        (first, second)
    }

    fn count_wraps(&mut self, port_reset: bool) {
        for v in 0..self.n {
            let f = self.txc.vl(v).fctbs();
            let a = self.rxc.vl(v).abr();
            if !port_reset {
                // A forward move across 0 (mod 4096): the new value is below the old one
                // by more than half the range.
                self.cov.fctbs_wraps +=
                    (f < self.prev_fctbs[v] && self.prev_fctbs[v] - f > 2048) as u64;
                self.cov.abr_wraps += (a < self.prev_abr[v] && self.prev_abr[v] - a > 2048) as u64;
            }
            self.prev_fctbs[v] = f;
            self.prev_abr[v] = a;
        }
    }
}

impl CycleSim for PortCycleModel {
    type In = LinkPortIn;
    type Out = LinkPortOut;
    fn backend(&self) -> &str {
        "model"
    }

    fn step(&mut self, i: &LinkPortIn) -> LinkPortOut {
        let n = self.n;
        let vmask = ((1u32 << n) - 1) as u16;
        let wmask = iblink_rtl::crc16::mask(self.lanes * 8);
        let kmask = ((1u16 << self.lanes) - 1) as u8;
        let ls = i.link_state & 3;
        // Link init / resync: a reset, or the link Down (docs/spec.md §8).
        let port_reset = i.reset || ls == LINK_DOWN;
        let link_active = ls == LINK_ACTIVE;
        let r = self.regs.clone();
        let loading = r.load_idx < self.load.len();
        let txq_valid = i.txq_valid & vmask;
        let mut head_len = [0u16; MAX_VLS];
        let mut np = [0u8; MAX_VLS];
        for v in 0..n {
            head_len[v] = i.txq_len[v] & 0x7ff;
            np[v] = np_of(head_len[v]) as u8;
        }

        // ---- receive (every input is the port's or a register) ----
        let rx = |reset| LinkRxIn {
            reset,
            rx_valid: i.s_axis_phy_tvalid,
            rx_data: i.s_axis_phy_tdata & wmask,
            rx_keep: i.s_axis_phy_tkeep & kmask,
            rx_sop: i.rx_start(),
            rx_eop: i.s_axis_phy_tlast,
            rx_link: i.rx_link(),
        };
        let l = rx(port_reset);
        let fro = self.fcprx.step(&FcpRxIn {
            reset: l.reset,
            rx_valid: l.rx_valid,
            rx_data: l.rx_data,
            rx_keep: l.rx_keep,
            rx_sop: l.rx_sop,
            rx_eop: l.rx_eop,
            rx_link: l.rx_link,
        });
        let lro = self.lrx.step(&l);
        let rco = self.rxc.step(&RxCreditsIn {
            reset: port_reset,
            accept: lro.acc_valid,
            accept_vl: lro.acc_vl,
            accept_blocks: lro.acc_blocks,
            drain: i.drain,
            drain_vl: i.drain_vl & 0xf,
            drain_blocks: i.drain_blocks & 0x7f,
            fcp_valid: fro.upd_valid,
            fcp_vl: fro.upd_vl,
            fcp_fctbs: fro.upd_fctbs,
        });
        let v15o = self.vl15.step(&Vl15RxIn {
            reset: port_reset,
            accept: lro.vl15_accept,
            drain: i.vl15_drain,
        });

        // ---- transmit: the mux decides on the arbiter's offer and the pending FCP ----
        let offer = self.arb_offer();
        let ao_pred = out_of(offer);
        let fcp_pending = self.fcptx.pending();
        let pending_words = self
            .fcptx
            .pending_fcp()
            .filter(|_| fcp_pending)
            .map(|f| self.fcp_words(&f));
        // The framer's stream as the mux may sample it (see the module docs).
        let (fcp_valid, fcp_data, fcp_keep, fcp_sop, fcp_eop) =
            match (pending_words, self.fcp_second) {
                (Some((w0, second)), _) => (
                    true,
                    w0,
                    if second.is_some() { 0xf } else { 0x3f },
                    true,
                    second.is_none(),
                ),
                (None, Some(w1)) => (true, w1, 0x3, false, true),
                (None, None) => (false, 0, 0, false, false),
            };
        let lto = self.ltx.step(&LinkTxIn {
            reset: port_reset,
            link_active,
            vl15_valid: i.vl15_valid,
            vl15_len: i.vl15_len & 0x7ff,
            fcp_pending,
            fcp_valid,
            fcp_data,
            fcp_keep,
            fcp_sop,
            fcp_eop,
            offer_valid: ao_pred.offer_valid,
            offer_vl: ao_pred.vl,
            offer_len: ao_pred.pkt_len,
            src_data: i.src_data & wmask,
            tx_ready: i.m_axis_phy_tready,
        });
        let take = lto.take;

        // TX credits: this clock's check is what credit_ok shows next clock.
        let mut ok_next = 0u16;
        if !port_reset {
            for (v, b) in np.iter().enumerate().take(n) {
                ok_next |= (self.txc.vl(v).can_send(*b as u16) as u16) << v;
            }
        }
        let tco = self.txc.step(&TxCreditsIn {
            reset: port_reset,
            head_blocks: np,
            send: take,
            send_vl: ao_pred.vl,
            fcp_valid: fro.upd_valid,
            fcp_vl: fro.upd_vl,
            fcp_fccl: fro.upd_fccl,
        });
        assert_eq!(
            tco.credit_ok, self.ok_q,
            "clock {}: credit_ok computed ahead differs from the TX credit adapter",
            self.clock
        );
        self.ok_q = ok_next;

        let fto = self.fcptx.step(&FcpTxIn {
            restart: i.reset,
            link_state: ls,
            refresh_clocks: r.refresh,
            min_gap_clocks: r.min_gap,
            fctbs: tco.fctbs,
            fccl: rco.fccl,
            fcp_start: lto.fcp_start,
            fcp_ready: lto.fcp_ready,
            fcp_done: lto.fcp_done,
        });
        if lto.fcp_start || self.fcp_second.is_some() {
            assert!(
                fto.fcp_valid
                    && fto.fcp_data == fcp_data
                    && fto.fcp_keep == fcp_keep
                    && fto.fcp_sop == fcp_sop
                    && fto.fcp_eop == fcp_eop,
                "clock {}: the FCP word given to the mux differs from the framer's: {fto:?}",
                self.clock
            );
        }
        // 32 bits: the LPCRC word is shown until the mux takes it (its pipeline moves).
        self.fcp_second = if lto.fcp_start {
            pending_words.and_then(|(_, s)| s)
        } else if lto.fcp_ready {
            None
        } else {
            self.fcp_second
        };

        let (wr_en, wr_low, wr_index, wr_vl, wr_weight) = if loading {
            let (low, idx, vl, w) = self.load[r.load_idx];
            (true, low, idx, vl, w)
        } else {
            let a = i.cfg_addr;
            let d = i.cfg_data;
            (
                i.cfg_wr && a < 0x80,
                a & 0x40 != 0,
                a & 0x3f,
                ((d >> 8) & 0xf) as u8,
                d as u8,
            )
        };
        let arb_in = VlArbIn {
            reset: port_reset,
            head_valid: txq_valid & r.txq_valid_q & tco.credit_ok & !r.taken_mask,
            head_len,
            take,
            wr_en,
            wr_low,
            wr_index,
            wr_vl,
            wr_weight,
            vl_high_limit: r.vl_high_limit,
            one_packet: r.one_packet,
            vl_enable: r.vl_enable,
        };
        let ao: VlArbOut = self.arb.step(&arb_in);
        assert_eq!(
            ao, ao_pred,
            "clock {}: the offer computed ahead differs from the arbiter adapter's",
            self.clock
        );
        self.arb_after(&arb_in, take && offer.is_some());

        // ---- failsafe (outputs only; its thresholds are taken at a reset) ----
        let (fu, fo) = if port_reset {
            (r.cfg_update, r.cfg_overrun)
        } else {
            (r.fs_update, r.fs_overrun)
        };
        let fso = self.fs.step(&FailsafeIn {
            reset: port_reset,
            upd_valid: fro.upd_valid,
            upd_vl: fro.upd_vl,
            overrun: rco.dropped,
            overrun_vl: r.acc_vl_q,
            period_clocks: self.period,
            update_periods: fu,
            overrun_periods: fo,
        });

        // ---- coverage ----
        let c = &mut self.cov;
        c.data_starts += take as u64;
        c.vl15_starts += lto.vl15_take as u64;
        c.fcp_starts += lto.fcp_start as u64;
        c.fcp_init += (lto.fcp_start && ls == LINK_INIT) as u64;
        if take {
            if ao.low {
                c.low_grants += 1;
            } else {
                c.high_grants += 1;
            }
        }
        c.credit_stalls += (txq_valid & !tco.credit_ok != 0 && !port_reset) as u64;
        c.rx_accepted += rco.accepted as u64;
        c.rx_overruns += rco.dropped as u64;
        c.vl15_kept += v15o.kept as u64;
        c.vl15_dropped += v15o.dropped as u64;
        c.fcp_updates += fro.upd_valid as u64;
        c.reset_clocks += port_reset as u64;
        c.loader_writes += loading as u64;
        c.cfg_table_writes += (!loading && wr_en) as u64;
        self.count_wraps(port_reset);

        // ---- the port's outputs ----
        let g = |x: u64| if take { x } else { 0 };
        let mut fccl = [0u16; MAX_VLS];
        let mut overruns = [0u16; MAX_VLS];
        fccl[..n].copy_from_slice(&rco.fccl[..n]);
        overruns[..n].copy_from_slice(&rco.overruns[..n]);
        let fc = fro.counts;
        let lc = lro.counts;
        let out = LinkPortOut {
            txq_pop: if take && (ao.vl as usize) < n {
                1 << ao.vl
            } else {
                0
            },
            vl15_pop: lto.vl15_take,
            src_rd: lto.src_rd,
            src_vl: lto.src_vl,
            m_axis_phy_tdata: lto.tx.data,
            m_axis_phy_tkeep: lto.tx.keep,
            m_axis_phy_tvalid: lto.tx.valid,
            m_axis_phy_tlast: lto.tx.eop,
            m_axis_phy_tuser: tuser(lto.tx.sop, lto.tx.link),
            rx_out_valid: lro.out_valid,
            rx_out_data: lro.out_data,
            rx_out_keep: lro.out_keep,
            rx_out_sop: lro.out_sop,
            rx_out_eop: lro.out_eop,
            rx_out_vl: lro.out_vl,
            rx_out_abort: lro.out_abort,
            rx_done: lro.done,
            rx_done_status: lro.done_status,
            rx_commit: rco.accepted || v15o.kept,
            rx_overrun: rco.dropped || v15o.dropped,
            cfg_busy: loading,
            grant: take,
            grant_vl: g(ao.vl as u64) as u8,
            grant_table: take && ao.low,
            grant_entry: g(ao.entry as u64) as u8,
            grant_blocks: g(ao.blocks as u64) as u8,
            grant_weight_left: g(ao.weight_left as u64 & 0x1ff) as u16,
            grant_high_counter: g(ao.high_counter as u64 & 0x7ffff) as u32,
            fccl,
            overruns,
            counters: [
                fc.good,
                fc.short,
                fc.long,
                fc.abort,
                fc.lpcrc_error,
                fc.reserved_op,
                fc.vl15,
                fc.vl_cap,
                lc.good,
                lc.vcrc_error,
                lc.length_error,
                lc.bad_vl,
                lc.abort,
                v15o.drop_count,
                lto.vl15_starts,
                lto.fcp_starts,
                lto.data_starts,
                v15o.held as u16,
            ],
            fcp_framing_error: lto.fcp_framing_error,
            resync_req: fso.resync_req,
            resync_reason: fso.resync_reason,
            resync_vl: fso.resync_vl,
            fcp_late: fso.fcp_late & vmask,
            fctbs: {
                let mut f = [0u16; MAX_VLS];
                f[..n].copy_from_slice(&tco.fctbs[..n]);
                f
            },
        };

        // ---- the port's registers: the clock edge ----
        let s = &mut self.regs;
        s.txq_valid_q = txq_valid;
        s.taken_mask = if take && (ao.vl as usize) < n {
            1 << ao.vl
        } else {
            0
        };
        if loading {
            s.load_idx += 1;
        } else if i.cfg_wr {
            let d = i.cfg_data;
            match i.cfg_addr {
                CFG_VL_HIGH_LIMIT => s.vl_high_limit = d as u8,
                CFG_LOW_POLICY => s.one_packet = d & 1 == 1,
                CFG_VL_ENABLE => s.vl_enable = d & vmask,
                CFG_REFRESH => s.refresh = d,
                CFG_MIN_GAP => s.min_gap = d,
                CFG_UPDATE_PERIODS => s.cfg_update = d,
                CFG_OVERRUN_PERIODS => s.cfg_overrun = d,
                _ => {}
            }
        }
        if port_reset {
            s.fs_update = r.cfg_update;
            s.fs_overrun = r.cfg_overrun;
        }
        s.acc_vl_q = lro.acc_vl;
        self.clock += 1;
        out
    }
}
