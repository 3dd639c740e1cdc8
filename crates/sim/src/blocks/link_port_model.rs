//! The link port as a composition of its blocks' reference models, for lockstep against
//! the port's RTL ([`iblink_rtl::link_port`]), and a reactive random stimulus that plays
//! everything around a port: the user's transmit queues and receive buffer, the link peer
//! (its receive buffers and FCPs, its data packets, losses and corruption), the subnet
//! manager (configuration writes) and the link state machine.
//!
//! [`PortCycleModel`] holds one model adapter per block (the same adapters each block's
//! own lockstep uses: [`TxCreditsModelSim`], [`ArbCycleModel`], [`LinkTxModelSim`],
//! [`FcpTxModelSim`], [`FcpRxModelSim`], [`LinkRxModelSim`], [`RxCreditsModelSim`],
//! [`Vl15RxModelSim`]) and wires them as `LinkPortUnit::update` wires the RTL blocks; the
//! port's own registers (the taken-VL mask, the configuration registers, the power-up
//! table loader) are re-implemented here from the port's documentation.
//!
//! # Evaluation order within a clock
//! `CycleSim::step` gives a block's outputs and applies its clock edge in one call, so a
//! block is stepped once every input it needs is known. The port has no combinational
//! loop, but two blocks are needed before their inputs are known:
//! - the arbiter's offer feeds the link TX mux, whose `take` feeds the arbiter. The offer
//!   is registered (it depends on the arbiter's state and on heads three clocks old), so
//!   it is computed ahead from the reference arbiter ([`VlArbiter::peek`]) by the
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
use crate::blocks::link_rx::{data_packet, LinkRxModelSim};
use crate::blocks::link_tx::LinkTxModelSim;
use crate::blocks::rx_credits::RxCreditsModelSim;
use crate::blocks::vl15_rx::Vl15RxModelSim;
use crate::blocks::tx_credits::TxCreditsModelSim;
use crate::blocks::vl_arb::{out_of, ArbCycleModel, Heads};
use crate::CycleSim;
use iblink_model::arbiter::Grant;
use iblink_model::credits::{RxCredits, TxCredits};
use iblink_model::fcp::{Fcp, FcpOp, FCP_BYTES};
use iblink_model::sl2vl::{VlCap, DATA_VLS};
use iblink_rtl::failsafe::{spec_period_clocks, FailsafeIn};
use iblink_rtl::fcp_rx::FcpRxIn;
use iblink_rtl::fcp_tx::FcpTxIn;
use iblink_rtl::link::{LINK_ACTIVE, LINK_ARM, LINK_DOWN, LINK_INIT};
use iblink_rtl::link_port::{
    np_of, LinkPortIn, LinkPortOut, PortParams, CFG_LOW_POLICY, CFG_MIN_GAP, CFG_OVERRUN_PERIODS,
    CFG_REFRESH, CFG_UPDATE_PERIODS, CFG_VL_ENABLE, CFG_VL_HIGH_LIMIT,
};
use iblink_rtl::link_rx::LinkRxIn;
use iblink_rtl::link_tx::LinkTxIn;
use iblink_rtl::rx_credits::RxCreditsIn;
use iblink_rtl::tx_credits::{TxCreditsIn, MAX_VLS};
use iblink_rtl::vl15_rx::Vl15RxIn;
use iblink_rtl::vl_arb::{VlArbIn, VlArbOut, CONFIG_GAP, HEAD_DELAY, TAKE_GAP};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The port's own registers (`LinkPortUnit`'s `PortRegs`, from its documentation).
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
    /// 32 bits: the LPCRC word the framer shows in this clock (its FCP started last clock).
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
            rx_valid: i.rx_valid,
            rx_data: i.rx_data & wmask,
            rx_keep: i.rx_keep & kmask,
            rx_sop: i.rx_sop,
            rx_eop: i.rx_eop,
            rx_link: i.rx_link,
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
        self.fcp_second = if lto.fcp_start {
            pending_words.and_then(|(_, s)| s)
        } else {
            None
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
            tx_valid: lto.tx.valid,
            tx_data: lto.tx.data,
            tx_keep: lto.tx.keep,
            tx_sop: lto.tx.sop,
            tx_eop: lto.tx.eop,
            tx_link: lto.tx.link,
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

// ----- stimulus ---------------------------------------------------------------------

/// One word of the receive link stream.
#[derive(Clone, Copy, Debug, Default)]
struct RxWord {
    valid: bool,
    data: u64,
    keep: u8,
    sop: bool,
    eop: bool,
    link: bool,
    /// On the `eop` word of a good FCP: its VL and FCCL (the CL it gives the port).
    fcp: Option<(u8, u16)>,
}

/// Clocks of delivered-CL history the sender-side credit checker accepts a grant on: an
/// FCP's `upd` strobe comes 3 clocks after its `eop`, TX credits apply it at that edge
/// and show the check a clock later (`credit_ok` is registered), and the arbiter offers
/// on heads `HEAD_DELAY` clocks old: a grant at `g` stands on CL as delivered by about
/// `g - 8`. Twice that, for margin.
pub const CREDIT_WINDOW: usize = 16;

/// docs/spec.md §4: a packet of `np` blocks may be sent iff `(CL - (FCTBS + NP)) mod 4096 <= 2048`.
fn spec_may_send(cl: u16, fctbs: u16, np: u16) -> bool {
    cl.wrapping_sub(fctbs).wrapping_sub(np) & 0xfff <= 2048
}

/// Traffic phases (each lasts a few thousand clocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Minimum-size packets on every VL, queues kept full, fast drains both ways: the
    /// most blocks per clock (FCTBS and ABR wrap fastest).
    SmallFlood,
    /// Mixed sizes, busy both ways.
    Mixed,
    /// Large packets (up to PktLen 1048).
    Large,
    /// The receive buffers drain slowly or not at all: credits run out, overruns.
    Congested,
    /// Errors and losses on the receive link: corrupted FCPs and packets, cut items.
    Faulty,
    /// Little traffic, long gaps.
    Sparse,
    /// The peer stops sending FCPs for some VLs (the failsafe's update monitor).
    Silent,
}

const STABLE_PHASES: [(Phase, u32); 4] = [
    (Phase::SmallFlood, 5),
    (Phase::Mixed, 3),
    (Phase::Large, 1),
    (Phase::Faulty, 1),
];

const PHASES: [(Phase, u32); 7] = [
    (Phase::SmallFlood, 4),
    (Phase::Mixed, 4),
    (Phase::Large, 2),
    (Phase::Congested, 2),
    (Phase::Faulty, 2),
    (Phase::Sparse, 1),
    (Phase::Silent, 3),
];

/// What the stimulus did and saw (for coverage assertions).
#[derive(Clone, Copy, Debug, Default)]
pub struct StimStats {
    pub resets: u64,
    pub downs: u64,
    pub to_init: u64,
    pub to_arm: u64,
    pub to_active: u64,
    /// Link state changes while traffic was in flight (the transmitter busy).
    pub state_changes_in_traffic: u64,
    pub table_writes: u64,
    pub table_writes_in_traffic: u64,
    pub table_rewrites: u64,
    pub limit_writes: [u64; 3],
    pub policy_writes: u64,
    pub enable_writes: u64,
    pub refresh_writes: u64,
    pub gap_writes: u64,
    pub unmapped_writes: u64,
    pub failsafe_writes: u64,
    pub writes_while_busy: u64,
    pub fcps_sent: u64,
    pub fcps_lost: u64,
    pub fcps_edge: u64,
    /// FCPs whose FCCL leaves credit for no more than what is queued (see `peer_fcp`).
    pub fcps_tight: u64,
    pub fcp_bad_lpcrc: u64,
    pub fcp_reserved_op: u64,
    pub fcp_vl15: u64,
    pub fcp_vl_cap: u64,
    pub fcp_short: u64,
    pub fcp_long: u64,
    pub fcp_cut: u64,
    pub data_good: u64,
    pub data_bad_vcrc: u64,
    pub data_bad_length: u64,
    pub data_vl15: u64,
    pub data_bad_vl: u64,
    pub data_cut: u64,
    pub data_lost: u64,
    pub data_over_credit: u64,
    pub rx_gaps: u64,
    pub drains: u64,
    pub vl15_drains: u64,
    pub junk_drains: u64,
    /// From the outputs: verdicts by status, commits, overruns, decoded FCPs of ours.
    pub done_status: [u64; 4],
    pub commits: u64,
    pub overruns: u64,
    pub our_fcps: u64,
    pub our_fcp_fctbs_wraps: u64,
    pub grants: u64,
    /// Clocks with a data or VL15 word on the transmit link.
    pub tx_data_clocks: u64,
    /// Clocks and data packets started per phase (SmallFlood, Mixed, Large, Congested,
    /// Faulty, Sparse, Silent), and clocks in stable stretches.
    pub phase_clocks: [u64; 7],
    pub phase_grants: [u64; 7],
    pub stable_clocks: u64,
    /// Blocks granted per data VL (all clocks) and the most granted between two resyncs.
    pub vl_blocks: [u64; MAX_VLS],
    pub vl_blocks_max_epoch: u64,
    epoch_blocks: [u64; MAX_VLS],
    pub vl15_pops: u64,
    /// Failsafe requests by reason (0 no FC update, 1 overrun threshold).
    pub resync_reqs: [u64; 2],
    /// Must stay 0: a pop of an empty queue, a verdict without a delivered packet, an
    /// FCP of ours that did not decode.
    pub stray_pops: u64,
    pub verdict_errors: u64,
    pub bad_our_fcps: u64,
    /// The sender-side credit checker (independent of the port's blocks): grants whose
    /// packet fails the docs/spec.md §4 check against every CL delivered to the port within
    /// [`CREDIT_WINDOW`] clocks before the grant, FCTBS counted from the grants since the
    /// last reset (must stay 0), and grants whose `grant_blocks` is not the popped head's
    /// NP (must stay 0).
    pub credit_violations: u64,
    pub grant_blocks_wrong: u64,
    /// Grants checked, and the oldest delivered CL (clocks before the grant) a grant
    /// needed to pass.
    pub credit_checked: u64,
    pub credit_max_lag: u64,
    /// A VL taken, and its next head fails its credit check (FCTBS just moved on: what
    /// `taken_mask` guards).
    pub taken_next_fails: u64,
    /// Of those, the taken packet no longer on the wire than `TAKE_GAP` clocks (PktLen
    /// 6-7 at 64 bits; never at 32): the link is free for the offer decided on the heads
    /// of the clock after the take, the one `taken_mask` hides.
    pub taken_next_fails_short: u64,
    /// A head newly valid after an empty queue in LinkActive while CL = FCTBS (nothing
    /// may go; what `txq_valid_q` guards), and of those, ones whose `txq_len` the clock
    /// before (an empty queue's stale length) would have passed.
    pub new_head_cl_eq_fctbs: u64,
    pub new_head_stale_len_passes: u64,
}

/// The reactive random stimulus of a port (see the module docs): call [`Self::next`] once a
/// clock with the previous clock's outputs.
pub struct PortStimulus {
    rng: ChaCha8Rng,
    n: usize,
    lanes: usize,
    cap: VlCap,
    clock: u64,
    last: LinkPortIn,
    phase: Phase,
    phase_left: u64,
    // link state machine
    ls: u8,
    ls_left: u64,
    reset_left: u32,
    /// A long LinkActive stretch without resets and with heavy traffic (FCTBS and ABR
    /// only wrap when 4096 blocks of one VL pass without a resync).
    stable: bool,
    /// A configuration write that must be presented while the port is held in reset
    /// (refresh period and on-change gap: the FCP framer's model takes them only with a
    /// restart).
    held_write: Option<(u8, u16)>,
    /// A whole-table rewrite in progress: (low table?, next index).
    rewrite: Option<(bool, u8)>,
    // the user's transmit side
    txq: Vec<VecDeque<u16>>,
    queue_limit: usize,
    cur: Option<(u64, u32)>,
    seq: u64,
    our_fctbs: [u16; MAX_VLS],
    // our FCPs on the wire, for the peer
    tx_bytes: Vec<u8>,
    our_fcp_last: [Option<u16>; MAX_VLS],
    // the peer
    peer_rx: Vec<RxCredits>,
    peer_held: Vec<VecDeque<u16>>,
    peer_tx: [TxCredits; MAX_VLS],
    peer_fcp_due: [u64; MAX_VLS],
    peer_fcp_period: u64,
    /// VLs whose FCPs the peer does not send (phase Silent).
    silent: u16,
    /// The VL most traffic goes to, both ways (phase SmallFlood, sometimes): one VL's
    /// FCTBS and ABR then wrap soon even at VLCap 15.
    hot: Option<usize>,
    rx: VecDeque<RxWord>,
    // the user's receive side
    rx_cur: usize,
    rx_wait: VecDeque<(u8, usize)>,
    rx_judged: Option<(u8, usize)>,
    rx_buf: VecDeque<(u8, u8)>,
    /// The previous clock's `tx_valid` and `cfg_busy`.
    tx_busy: bool,
    cfg_busy: bool,
    /// The sender-side credit checker: per data VL the CL the peer has delivered to the
    /// port (0 from a reset), and its value at each of the last clocks (newest last, none
    /// from before the last reset).
    cl_now: [u16; MAX_VLS],
    cl_hist: VecDeque<[u16; MAX_VLS]>,
    /// Draws for the credit checker's cases (tight FCPs, an empty queue's length), apart
    /// from `rng` so that they leave the rest of the stimulus as it was.
    crng: ChaCha8Rng,
    /// The first credit violation: clock and what failed.
    pub first_violation: Option<String>,
    pub stats: StimStats,
}

fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ b.wrapping_add(0x6a09_e667_f3bc_c909);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl PortStimulus {
    pub fn new(p: &PortParams, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let peer_rx = (0..MAX_VLS)
            .map(|_| RxCredits::new([256u16, 1000, 3072, 4095][rng.gen_range(0..4)]))
            .collect();
        Self {
            rng,
            n: p.vl_cap,
            lanes: p.width / 8,
            cap: VlCap::new(p.vl_cap as u64).expect("VLCap"),
            clock: 0,
            last: LinkPortIn::default(),
            phase: Phase::Mixed,
            phase_left: 3000,
            ls: LINK_DOWN,
            ls_left: 20,
            reset_left: 0,
            stable: false,
            held_write: None,
            rewrite: None,
            txq: vec![VecDeque::new(); 16],
            queue_limit: 6,
            cur: None,
            seq: 0,
            our_fctbs: [0; MAX_VLS],
            tx_bytes: Vec::with_capacity(16),
            our_fcp_last: [None; MAX_VLS],
            peer_rx,
            peer_held: vec![VecDeque::new(); MAX_VLS],
            peer_tx: [TxCredits::new(); MAX_VLS],
            peer_fcp_due: [0; MAX_VLS],
            peer_fcp_period: 200,
            silent: 0,
            hot: None,
            rx: VecDeque::new(),
            rx_cur: 0,
            rx_wait: VecDeque::new(),
            rx_judged: None,
            rx_buf: VecDeque::new(),
            tx_busy: false,
            cfg_busy: true,
            cl_now: [0; MAX_VLS],
            cl_hist: VecDeque::with_capacity(CREDIT_WINDOW + 2),
            crng: ChaCha8Rng::seed_from_u64(seed ^ 0xc4ed_17c4_ec4e_0000),
            first_violation: None,
            stats: StimStats::default(),
        }
    }

    /// This clock's inputs, given the outputs of the previous clock (`None` first).
    pub fn next(&mut self, prev: Option<&LinkPortOut>) -> LinkPortIn {
        if let Some(o) = prev {
            self.react(o);
        }
        self.advance_link();
        self.advance_phase();
        let port_reset = self.reset_left > 0 || self.ls == LINK_DOWN;
        if port_reset {
            self.resync();
        }
        self.queue_packets();
        self.peer_traffic(port_reset);
        let mut i = LinkPortIn {
            reset: self.reset_left > 0,
            link_state: self.ls,
            ..Default::default()
        };
        self.drive_tx(&mut i);
        self.drive_rx(&mut i);
        if self.cl_hist.len() > CREDIT_WINDOW {
            self.cl_hist.pop_front();
        }
        self.cl_hist.push_back(self.cl_now);
        self.drive_drains(&mut i);
        self.drive_config(&mut i, port_reset);
        if self.reset_left > 0 {
            self.reset_left -= 1;
        }
        self.last = i;
        self.clock += 1;
        i
    }

    /// Link init / resync of both ends: credits restart; the user's packet being read,
    /// its receive buffer and the verdicts in flight are gone (docs/spec.md §8).
    fn resync(&mut self) {
        self.stats.epoch_blocks = [0; MAX_VLS];
        self.cur = None;
        self.our_fctbs = [0; MAX_VLS];
        self.our_fcp_last = [None; MAX_VLS];
        self.peer_rx.iter_mut().for_each(RxCredits::reset);
        self.peer_held.iter_mut().for_each(VecDeque::clear);
        self.peer_tx.iter_mut().for_each(TxCredits::reset);
        self.rx.clear();
        self.rx_cur = 0;
        self.rx_wait.clear();
        self.rx_judged = None;
        self.rx_buf.clear();
        self.tx_bytes.clear();
        self.cl_now = [0; MAX_VLS];
        self.cl_hist.clear();
    }

    /// The sender-side credit check of a grant of VL `v` of `np` blocks in the clock
    /// before this one (`self.our_fctbs` not yet advanced): it must pass against some CL
    /// the port can have applied by then. Also counts the taken-VL coverage case.
    fn check_grant(&mut self, o: &LinkPortOut, v: usize, len: u16) {
        let np = np_of(len);
        let g = self.clock - 1;
        let st = &mut self.stats;
        st.credit_checked += 1;
        if o.grant_blocks as u16 != np || o.grant_vl as usize != v {
            st.grant_blocks_wrong += 1;
        }
        let fctbs = self.our_fctbs[v];
        let lag = self
            .cl_hist
            .iter()
            .rev()
            .position(|h| spec_may_send(h[v], fctbs, np));
        match lag {
            Some(k) => st.credit_max_lag = st.credit_max_lag.max(k as u64),
            None => {
                st.credit_violations += 1;
                if self.first_violation.is_none() {
                    let cls: Vec<u16> = self.cl_hist.iter().map(|h| h[v]).collect();
                    self.first_violation = Some(format!(
                        "clock {g}: VL {v} granted a packet of NP {np} at FCTBS {fctbs} (CR {}), \
                         but CL was {cls:?} over the last {} clocks (oldest first)",
                        (fctbs + np) & 0xfff,
                        cls.len()
                    ));
                }
            }
        }
        // Its next head (shown from the next clock): does it fail with FCTBS moved on?
        let fctbs_next = (fctbs + np) & 0xfff;
        let taken_len = len;
        if let Some(&next) = self.txq[v].front() {
            let fails = !spec_may_send(self.cl_now[v], fctbs_next, np_of(next));
            let words = (taken_len as usize * 4 + 2).div_ceil(self.lanes);
            st.taken_next_fails += fails as u64;
            st.taken_next_fails_short += (fails && words <= TAKE_GAP) as u64;
        }
    }

    fn react(&mut self, o: &LinkPortOut) {
        let was_reset = self.last.reset || self.last.link_state == LINK_DOWN;
        self.tx_busy = o.tx_valid;
        self.stats.tx_data_clocks += (o.tx_valid && !o.tx_link) as u64;
        self.stats.phase_clocks[self.phase as usize] += 1;
        self.stats.phase_grants[self.phase as usize] += (o.txq_pop != 0) as u64;
        self.stats.stable_clocks += self.stable as u64;
        self.cfg_busy = o.cfg_busy;
        if o.resync_req {
            // The link logic answers the failsafe: reset both ends, then retrain.
            self.stats.resync_reqs[(o.resync_reason & 1) as usize] += 1;
            if self.reset_left == 0 {
                self.reset_left = self.rng.gen_range(1..=3);
                self.stats.resets += 1;
            }
            self.ls = LINK_INIT;
            self.ls_left = self.rng.gen_range(50..600);
        }
        let st = &mut self.stats;
        // Transmit: a read consumes the presented word; a pop starts the next packet.
        if o.src_rd {
            if let Some((_, k)) = &mut self.cur {
                *k += 1;
            }
        }
        if o.txq_pop != 0 {
            let v = o.txq_pop.trailing_zeros() as usize;
            st.grants += 1;
            match self.txq[v].pop_front() {
                None => st.stray_pops += 1,
                Some(len) => {
                    let np = np_of(len);
                    self.check_grant(o, v, len);
                    let st = &mut self.stats;
                    self.our_fctbs[v] = (self.our_fctbs[v] + np) & 0xfff;
                    st.vl_blocks[v] += np as u64;
                    st.epoch_blocks[v] += np as u64;
                    st.vl_blocks_max_epoch = st.vl_blocks_max_epoch.max(st.epoch_blocks[v]);
                    self.peer_tx_arrival(v, np);
                    self.seq += 1;
                    self.cur = Some((self.seq, 0));
                }
            }
        }
        if o.vl15_pop {
            self.stats.vl15_pops += 1;
            if self.txq[15].pop_front().is_none() {
                self.stats.stray_pops += 1;
            }
            self.seq += 1;
            self.cur = Some((self.seq, 0));
        }
        // Our FCPs reach the peer (its ABR := our FCTBS, its CL := our FCCL), some lost.
        if o.tx_valid && o.tx_link && !was_reset {
            if o.tx_sop {
                self.tx_bytes.clear();
            }
            let nb = if o.tx_eop {
                8 - o.tx_keep.leading_zeros() as usize
            } else {
                self.lanes
            };
            self.tx_bytes
                .extend((0..nb).map(|b| (o.tx_data >> (8 * b)) as u8));
            if o.tx_eop {
                match Fcp::decode(&self.tx_bytes, self.cap) {
                    Ok(f) => {
                        self.stats.our_fcps += 1;
                        let v = f.vl as usize;
                        if self.our_fcp_last[v].is_some_and(|x| f.fctbs < x && x - f.fctbs > 2048) {
                            self.stats.our_fcp_fctbs_wraps += 1;
                        }
                        self.our_fcp_last[v] = Some(f.fctbs);
                        if !self.rng.gen_ratio(1, 30) {
                            self.peer_rx[v].on_fcp(f.fctbs);
                            self.peer_tx[v].on_fcp(f.fccl);
                        }
                    }
                    Err(_) => self.stats.bad_our_fcps += 1,
                }
            }
        }
        // Receive: verdicts (done; commit/overrun a clock later), then words.
        if was_reset {
            return;
        }
        let st = &mut self.stats;
        if let Some((vl, bytes)) = self.rx_judged.take() {
            if o.rx_commit {
                st.commits += 1;
                let pkt_len = ((bytes - 2) / 4) as u16;
                self.rx_buf.push_back((vl, np_of(pkt_len) as u8));
            } else if o.rx_overrun {
                st.overruns += 1;
            } else {
                st.verdict_errors += 1;
            }
        }
        if o.rx_out_abort {
            self.rx_cur = 0;
        }
        if o.rx_out_valid {
            if o.rx_out_sop {
                self.rx_cur = 0;
            }
            self.rx_cur += if o.rx_out_eop {
                8 - o.rx_out_keep.leading_zeros() as usize
            } else {
                self.lanes
            };
            if o.rx_out_eop {
                self.rx_wait.push_back((o.rx_out_vl, self.rx_cur));
                self.rx_cur = 0;
            }
        }
        if o.rx_done {
            st.done_status[(o.rx_done_status & 3) as usize] += 1;
            match self.rx_wait.pop_front() {
                None => st.verdict_errors += 1,
                Some(p) if o.rx_done_status == 0 => self.rx_judged = Some(p),
                Some(_) => {}
            }
        }
    }

    /// One of our data packets of `np` blocks reaches the peer's receive buffer for VL
    /// `v` (unless lost on the link).
    fn peer_tx_arrival(&mut self, v: usize, np: u16) {
        if self.rng.gen_ratio(1, 100) {
            return;
        }
        if self.peer_rx[v].accept(np).is_ok() {
            self.peer_held[v].push_back(np);
        }
    }

    fn advance_link(&mut self) {
        if self.reset_left > 0 {
            return;
        }
        if self.ls_left > 0 {
            self.ls_left -= 1;
            // A resync pulse now and then in LinkActive.
            if self.ls == LINK_ACTIVE && !self.stable && self.rng.gen_ratio(1, 20_000) {
                self.reset_left = self.rng.gen_range(1..=4);
                self.stats.resets += 1;
            }
            return;
        }
        let busy = self.tx_busy;
        let r = &mut self.rng;
        let next = match self.ls {
            LINK_DOWN => LINK_INIT,
            LINK_INIT => {
                if r.gen_ratio(9, 10) {
                    LINK_ARM
                } else {
                    LINK_DOWN
                }
            }
            LINK_ARM => {
                if r.gen_ratio(9, 10) {
                    LINK_ACTIVE
                } else {
                    LINK_INIT
                }
            }
            _ => match r.gen_range(0..10) {
                0..=3 => LINK_DOWN,
                4..=6 => {
                    // Resync by reset, staying in LinkActive.
                    self.reset_left = r.gen_range(1..=6);
                    self.stats.resets += 1;
                    LINK_ACTIVE
                }
                7 => LINK_ARM,
                _ => LINK_INIT,
            },
        };
        let len = match next {
            LINK_DOWN => r.gen_range(2..40),
            LINK_INIT => r.gen_range(50..600),
            LINK_ARM => r.gen_range(10..300),
            // A stable stretch: long enough for the hot VL's FCTBS and ABR to wrap (4096
            // blocks at up to one block every 16 clocks at 32 bits, every 8 at 64).
            _ if r.gen_ratio(1, 4) => r.gen_range(150_000..300_000) * 4 / self.lanes as u64,
            // Short enough that link-state events are not rare in a million clocks; the
            // stable stretches above carry the FCTBS/ABR wraps.
            _ => r.gen_range(4_000..30_000),
        };
        self.stable = next == LINK_ACTIVE && len >= 150_000 * 4 / self.lanes as u64;
        if self.stable {
            self.phase_left = 0;
            self.hot = None;
        }
        self.stats.state_changes_in_traffic += (busy && next != self.ls) as u64;
        match next {
            LINK_DOWN => self.stats.downs += 1,
            LINK_INIT => self.stats.to_init += 1,
            LINK_ARM => self.stats.to_arm += 1,
            _ => self.stats.to_active += (self.ls != LINK_ACTIVE) as u64,
        }
        self.ls = next;
        self.ls_left = len;
    }

    fn advance_phase(&mut self) {
        if self.phase_left > 0 {
            self.phase_left -= 1;
            return;
        }
        // Stable stretches: traffic, losses and corruption, but nothing that makes the
        // failsafe resync (FCP silence, overruns).
        let phases: &[(Phase, u32)] = if self.stable { &STABLE_PHASES } else { &PHASES };
        let total: u32 = phases.iter().map(|p| p.1).sum();
        let mut x = self.rng.gen_range(0..total);
        for &(p, w) in phases {
            if x < w {
                self.phase = p;
                break;
            }
            x -= w;
        }
        self.phase_left = self.rng.gen_range(2_000..20_000);
        self.silent = 0;
        // A hot VL: for a whole stable stretch (so its FCTBS and ABR wrap), else in some
        // floods, and in congestion (its receive buffer fills: overruns).
        self.hot = match self.phase {
            _ if self.stable => self.hot.or_else(|| Some(self.rng.gen_range(0..self.n))),
            Phase::SmallFlood if self.rng.gen_ratio(2, 3) => Some(self.rng.gen_range(0..self.n)),
            Phase::Congested => Some(self.rng.gen_range(0..self.n)),
            _ => None,
        };
        if self.phase == Phase::Silent {
            self.phase_left = self.rng.gen_range(40_000..80_000);
            self.silent = if self.rng.gen() {
                1 << self.rng.gen_range(0..self.n)
            } else {
                0x7fff
            };
        }
        self.queue_limit = self.rng.gen_range(2..=8);
        self.peer_fcp_period = match self.phase {
            Phase::SmallFlood => self.rng.gen_range(30..120),
            _ => self.rng.gen_range(60..1500),
        };
        // The peer's buffers change size now and then (a different peer after a resync
        // would; here between packets, which the model allows).
        if self.rng.gen_ratio(1, 4) {
            let v = self.rng.gen_range(0..self.n);
            let c = [66u16, 256, 1000, 3072, 4095][self.rng.gen_range(0..5)];
            self.peer_rx[v] = RxCredits::new(c);
            self.peer_held[v].clear();
        }
    }

    /// A data VL for new traffic (the hot one, if any, most of the time).
    fn pick_vl(&mut self) -> usize {
        match self.hot {
            Some(v) if self.rng.gen_ratio(9, 10) => v,
            _ => self.rng.gen_range(0..self.n),
        }
    }

    fn random_len(&mut self) -> u16 {
        let r = &mut self.rng;
        match self.phase {
            Phase::SmallFlood => {
                if r.gen_ratio(3, 4) {
                    6
                } else {
                    r.gen_range(6..=22)
                }
            }
            Phase::Large => {
                if r.gen_ratio(1, 3) {
                    r.gen_range(500..=1048)
                } else {
                    r.gen_range(6..=400)
                }
            }
            _ => match r.gen_range(0..200) {
                0 => 1048,
                1..=4 => r.gen_range(100..=1048),
                5..=60 => 6,
                _ => r.gen_range(6..=80),
            },
        }
    }

    /// The user queues new packets.
    fn queue_packets(&mut self) {
        let rate = match self.phase {
            Phase::SmallFlood => 900,
            Phase::Mixed | Phase::Large | Phase::Congested | Phase::Silent => 300,
            Phase::Faulty => 150,
            Phase::Sparse => 10,
        };
        let add = |s: &mut Self, v: usize| {
            if s.txq[v].len() < s.queue_limit {
                let len = s.random_len();
                s.txq[v].push_back(len);
            }
        };
        match self.hot {
            // Nearly everything on the hot VL: the others stay nearly empty, so the
            // arbiter gives it the link.
            Some(h) => {
                if self.rng.gen_range(0..1000) < rate {
                    add(self, h);
                }
                if self.rng.gen_ratio(1, 40) {
                    let v = self.rng.gen_range(0..self.n);
                    add(self, v);
                }
            }
            None => {
                if self.rng.gen_range(0..1000) < rate {
                    let v = self.rng.gen_range(0..self.n);
                    add(self, v);
                }
            }
        }
        if self.rng.gen_ratio(1, 700) && self.txq[15].len() < 2 {
            let len = self.rng.gen_range(6..=70);
            self.txq[15].push_back(len);
        }
    }

    fn drive_tx(&mut self, i: &mut LinkPortIn) {
        for v in 0..MAX_VLS {
            match self.txq[v].front() {
                Some(&len) if v < self.n => {
                    i.txq_valid |= 1 << v;
                    i.txq_len[v] = len;
                }
                // No head (or no such VL): the length field is junk, which must not matter
                // (often 0 or small, as an empty FIFO may show: a stale length the credit
                // check must not use for the next head).
                _ => {
                    i.txq_len[v] = match self.crng.gen_range(0..4) {
                        0 => 0,
                        1 => self.crng.gen_range(0..40),
                        _ => self.crng.gen_range(0..2048),
                    }
                }
            }
        }
        // Coverage: a head new after an empty queue while CL = FCTBS in LinkActive.
        let active = self.ls == LINK_ACTIVE && self.reset_left == 0;
        for v in 0..self.n {
            let new = i.txq_valid >> v & 1 == 1 && self.last.txq_valid >> v & 1 == 0;
            if active && new && self.cl_now[v] == self.our_fctbs[v] {
                self.stats.new_head_cl_eq_fctbs += 1;
                let stale = np_of(self.last.txq_len[v] & 0x7ff);
                self.stats.new_head_stale_len_passes +=
                    spec_may_send(self.cl_now[v], self.our_fctbs[v], stale) as u64;
            }
        }
        if self.rng.gen_ratio(1, 50) {
            // Valid bits of VLs the port does not have: ignored.
            i.txq_valid |= (self.rng.gen::<u16>() & 0x7fff) & !(((1u32 << self.n) - 1) as u16);
        }
        match self.txq[15].front() {
            Some(&len) => {
                i.vl15_valid = true;
                i.vl15_len = len;
            }
            None => i.vl15_len = self.rng.gen_range(0..2048),
        }
        i.src_data = match self.cur {
            Some((id, k)) => mix(id, k as u64),
            None => self.rng.gen(),
        };
    }

    /// The peer: drains our packets, sends FCPs and data packets on the receive link.
    fn peer_traffic(&mut self, port_reset: bool) {
        let drain_rate = match self.phase {
            Phase::SmallFlood => 2,
            Phase::Congested => 40,
            _ => 6,
        };
        for _ in 0..2 {
            if self.rng.gen_ratio(1, drain_rate) {
                // The oldest packet of some VL that holds one.
                let s = self.rng.gen_range(0..self.n);
                if let Some(v) = (0..self.n)
                    .map(|k| (s + k) % self.n)
                    .find(|&v| !self.peer_held[v].is_empty())
                {
                    let b = self.peer_held[v].pop_front().expect("held");
                    self.peer_rx[v].drain(b);
                }
            }
        }
        if port_reset || !self.rx.is_empty() {
            return;
        }
        // Between items: an idle gap, or the next item.
        let idle = match self.phase {
            Phase::SmallFlood | Phase::Mixed => 10,
            Phase::Sparse => 600,
            _ => 80,
        };
        if self.rng.gen_range(0..1000) < idle {
            return;
        }
        // An FCP falls due for some VL (the peer's own refresh), else maybe data.
        let silent = self.silent;
        let due = (0..self.n).find(|&v| self.clock >= self.peer_fcp_due[v] && silent >> v & 1 == 0);
        if let Some(v) = due {
            let jitter = self.rng.gen_range(0..=self.peer_fcp_period / 2);
            self.peer_fcp_due[v] = self.clock + self.peer_fcp_period + jitter;
            self.peer_fcp(v);
            return;
        }
        let faulty = self.phase == Phase::Faulty;
        match self.rng.gen_range(0..100) {
            0..=2 => self.bad_fcp(),
            3 if faulty => self.bad_fcp(),
            4..=5 => {
                let v = self.rng.gen_range(0..self.n);
                if silent >> v & 1 == 0 {
                    self.peer_fcp(v);
                }
            }
            6 => self.peer_packet(15),
            7 if self.n < 15 => {
                let v = self.rng.gen_range(self.n as u8..15);
                self.peer_packet(v);
            }
            _ if self.ls == LINK_ACTIVE || self.rng.gen_ratio(1, 20) => {
                let v = self.pick_vl() as u8;
                self.peer_packet(v);
            }
            _ => {}
        }
    }

    /// The peer's FCP for data VL `v`: its FCTBS and FCCL (sometimes a limit at the
    /// window edge of our head packet), sometimes lost.
    fn peer_fcp(&mut self, v: usize) {
        let op = if self.ls == LINK_INIT || self.rng.gen_ratio(1, 10) {
            FcpOp::Init
        } else {
            FcpOp::Normal
        };
        let fccl = if self.rng.gen_ratio(1, 15) {
            self.stats.fcps_edge += 1;
            let np = self.txq[v].front().map_or(1, |&l| np_of(l));
            let edge = self.rng.gen_range(2047..=2049u16);
            (self.our_fctbs[v] + np + edge) & 0xfff
        } else if !self.stable
            && self
                .crng
                .gen_ratio(1, if self.phase == Phase::Sparse { 3 } else { 12 })
        {
            // Tight: credit for nothing more, for the head alone, or for exactly what is
            // queued (then the queue runs empty at CL = FCTBS): the next head after a
            // take, or a new head after an empty queue, must wait.
            self.stats.fcps_tight += 1;
            let more: u16 = match self.crng.gen_range(0..3) {
                0 => 0,
                1 => self.txq[v].front().map_or(0, |&l| np_of(l)),
                _ => self.txq[v].iter().map(|&l| np_of(l)).sum(),
            };
            (self.our_fctbs[v] + more) & 0xfff
        } else {
            self.peer_rx[v].fccl()
        };
        let f = Fcp::new(op, self.peer_tx[v].fctbs(), v as u8, fccl).expect("12-bit fields");
        if self.rng.gen_ratio(1, 25) {
            self.stats.fcps_lost += 1;
            return;
        }
        self.stats.fcps_sent += 1;
        self.push_item(&f.encode(), true, true);
        if let Some(w) = self.rx.back_mut() {
            w.fcp = Some((v as u8, fccl));
        }
    }

    /// A link packet that is not a good FCP.
    fn bad_fcp(&mut self) {
        let v = self.rng.gen_range(0..self.n);
        let fctbs = self.rng.gen_range(0..4096u64);
        let fccl = self.rng.gen_range(0..4096u64);
        let enc = |op: u64, vl: u64| {
            iblink_model::fcp::encode_fields(op, fctbs, vl, fccl).expect("fields")
        };
        let st = &mut self.stats;
        match self.rng.gen_range(0..7) {
            0 => {
                let mut b = enc(0, v as u64);
                let bit = self.rng.gen_range(0..48);
                b[bit / 8] ^= 1 << (bit % 8);
                st.fcp_bad_lpcrc += 1;
                self.push_item(&b, true, true);
            }
            1 => {
                let op = self.rng.gen_range(2..16);
                st.fcp_reserved_op += 1;
                self.push_item(&enc(op, v as u64), true, true);
            }
            2 => {
                st.fcp_vl15 += 1;
                self.push_item(&enc(0, 15), true, true);
            }
            3 if self.n < 15 => {
                let vl = self.rng.gen_range(self.n as u64..15);
                st.fcp_vl_cap += 1;
                self.push_item(&enc(1, vl), true, true);
            }
            4 => {
                let k = self.rng.gen_range(1..6);
                st.fcp_short += 1;
                self.push_item(&enc(0, v as u64)[..k], true, true);
            }
            5 => {
                let mut b = enc(0, v as u64).to_vec();
                let extra = self.rng.gen_range(1..8);
                b.extend((0..extra).map(|_| self.rng.gen::<u8>()));
                st.fcp_long += 1;
                self.push_item(&b, true, true);
            }
            _ => {
                // Cut: no eop; the next item's sop aborts it.
                st.fcp_cut += 1;
                self.push_item(&enc(0, v as u64), true, false);
            }
        }
    }

    /// A data packet from the peer on VL `vl` (15: VL15; `n..15`: a VL we do not have).
    fn peer_packet(&mut self, vl: u8) {
        let r = &mut self.rng;
        let pkt_len = match self.phase {
            Phase::SmallFlood => {
                if r.gen_ratio(3, 4) {
                    6
                } else {
                    r.gen_range(6..=30)
                }
            }
            Phase::Large => r.gen_range(6..=1048),
            _ => match r.gen_range(0..30) {
                0 => r.gen_range(300..=1048),
                _ => r.gen_range(6..=70),
            },
        };
        let v = vl as usize;
        if v < self.n {
            let np = np_of(pkt_len);
            let allowed = self.peer_tx[v].can_send(np);
            let over = self.phase == Phase::Congested && self.rng.gen_ratio(1, 3)
                || self.rng.gen_ratio(1, 200);
            if !allowed && !over {
                return;
            }
            self.stats.data_over_credit += !allowed as u64;
            self.peer_tx[v].on_send(np);
            let loss = if self.phase == Phase::Faulty { 10 } else { 100 };
            if self.rng.gen_ratio(1, loss) {
                self.stats.data_lost += 1;
                return;
            }
        }
        let mut p = data_packet(&mut self.rng, vl, pkt_len);
        let bad = if self.phase == Phase::Faulty { 4 } else { 40 };
        let mut eop = true;
        if self.rng.gen_ratio(1, bad) {
            match self.rng.gen_range(0..3) {
                0 => {
                    // A bit error after the LRH: the length stays right, the VCRC fails.
                    let bit = self.rng.gen_range(8 * 8..p.len() * 8);
                    p[bit / 8] ^= 1 << (bit % 8);
                    self.stats.data_bad_vcrc += 1;
                }
                1 => {
                    if self.rng.gen() {
                        let k = self.rng.gen_range(1..=8.min(p.len() - 1));
                        p.truncate(p.len() - k);
                    } else {
                        let k = self.rng.gen_range(1..=8);
                        p.extend((0..k).map(|_| self.rng.gen::<u8>()));
                    }
                    self.stats.data_bad_length += 1;
                }
                _ => {
                    let k = self.rng.gen_range(1..=p.len());
                    p.truncate(k);
                    eop = false;
                    self.stats.data_cut += 1;
                }
            }
        } else if vl == 15 {
            self.stats.data_vl15 += 1;
        } else if v >= self.n {
            self.stats.data_bad_vl += 1;
        } else {
            self.stats.data_good += 1;
        }
        self.push_item(&p, false, eop);
    }

    fn push_item(&mut self, bytes: &[u8], link: bool, eop: bool) {
        let fill = self.rng.gen();
        let gaps = match self.phase {
            Phase::Faulty | Phase::Sparse => 8,
            _ => 60,
        };
        for w in crate::blocks::fcp_rx::item_words(bytes, self.lanes, link, eop, fill) {
            if self.rng.gen_ratio(1, gaps) {
                self.stats.rx_gaps += 1;
                self.rx.push_back(RxWord {
                    data: self.rng.gen(),
                    ..Default::default()
                });
            }
            self.rx.push_back(RxWord {
                valid: true,
                data: w.data,
                keep: w.keep,
                sop: w.sop,
                eop: w.eop,
                link: w.link,
                fcp: None,
            });
        }
    }

    fn drive_rx(&mut self, i: &mut LinkPortIn) {
        if let Some(w) = self.rx.pop_front() {
            i.rx_valid = w.valid;
            i.rx_data = w.data;
            i.rx_keep = w.keep;
            i.rx_sop = w.sop;
            i.rx_eop = w.eop;
            i.rx_link = w.link;
            if let (true, Some((v, cl))) = (w.valid && w.eop, w.fcp) {
                self.cl_now[v as usize] = cl;
            }
        } else if self.rng.gen_ratio(1, 8) {
            // Idle: junk on the data lines.
            i.rx_data = self.rng.gen();
            i.rx_keep = self.rng.gen();
        }
    }

    /// The higher layer takes packets out of the receive buffer.
    fn drive_drains(&mut self, i: &mut LinkPortIn) {
        let rate = match self.phase {
            Phase::SmallFlood => 1,
            Phase::Congested => 1000,
            Phase::Sparse => 4,
            _ => 3,
        };
        if self.rng.gen_ratio(1, rate) {
            if let Some((vl, blocks)) = self.rx_buf.pop_front() {
                if vl == 15 {
                    i.vl15_drain = true;
                    self.stats.vl15_drains += 1;
                } else {
                    i.drain = true;
                    i.drain_vl = vl;
                    i.drain_blocks = blocks;
                    self.stats.drains += 1;
                }
                return;
            }
        }
        if self.rng.gen_ratio(1, 3000) {
            // A drain the buffers must ignore or clamp: a VL we do not have, or more than
            // is held; an empty VL15 buffer.
            i.drain = true;
            i.drain_vl = self.rng.gen_range(0..16);
            i.drain_blocks = self.rng.gen_range(0..128);
            i.vl15_drain = self.rng.gen();
            self.stats.junk_drains += 1;
        } else {
            i.drain_vl = self.rng.gen_range(0..16);
            i.drain_blocks = self.rng.gen_range(0..128);
        }
    }

    /// The subnet manager's configuration writes.
    fn drive_config(&mut self, i: &mut LinkPortIn, port_reset: bool) {
        i.cfg_addr = self.rng.gen();
        i.cfg_data = self.rng.gen();
        // Refresh period and gap: written in a reset that lasts at least one more clock.
        if self.held_write.is_none() && self.rng.gen_ratio(1, 20_000) {
            // Refresh: within 65,536 symbol times (docs/spec.md §5), sometimes very short;
            // gap: up to a few hundred clocks.
            let refresh = self.rng.gen::<bool>();
            let top = if refresh {
                65_536 / self.lanes as u32
            } else {
                1024
            } as u16;
            let v = match self.rng.gen_range(0..8) {
                0 => self.rng.gen_range(1..64),
                1 => self.rng.gen_range(64..top),
                2 => top,
                _ => self.rng.gen_range(top / 8..top),
            };
            self.held_write = Some((if refresh { CFG_REFRESH } else { CFG_MIN_GAP }, v));
        }
        if let Some((a, d)) = self.held_write {
            let held_next = self.reset_left > 1
                || (self.ls == LINK_DOWN && self.ls_left > 1 && self.reset_left == 0);
            if port_reset && held_next {
                i.cfg_wr = true;
                i.cfg_addr = a;
                i.cfg_data = d;
                if a == CFG_REFRESH {
                    self.stats.refresh_writes += 1;
                } else {
                    self.stats.gap_writes += 1;
                }
                self.held_write = None;
                return;
            }
            if !port_reset
                && self.reset_left == 0
                && self.ls == LINK_ACTIVE
                && !self.stable
                && self.rng.gen_ratio(1, 500)
            {
                // Reset the port to apply it (software: new timing, then resync).
                self.reset_left = self.rng.gen_range(2..=4);
                self.stats.resets += 1;
            }
        }
        let in_traffic = self.tx_busy;
        if let Some((low, idx)) = self.rewrite {
            // A whole table rewritten, one entry a clock, in traffic.
            i.cfg_wr = true;
            i.cfg_addr = (low as u8) << 6 | idx;
            let vl = self.rng.gen_range(0..self.n as u16);
            let w = self.rng.gen_range(1..=255u16);
            i.cfg_data = vl << 8 | w | (self.rng.gen::<u16>() & 0xf000);
            self.stats.table_writes += 1;
            self.rewrite = if idx == 63 {
                None
            } else {
                Some((low, idx + 1))
            };
            return;
        }
        if !self.rng.gen_ratio(1, 150) {
            return;
        }
        i.cfg_wr = true;
        self.stats.writes_while_busy += self.cfg_busy as u64;
        let r = &mut self.rng;
        match r.gen_range(0..100) {
            0..=59 => {
                let low = r.gen::<bool>();
                let idx = r.gen_range(0..64u8);
                let vl = match r.gen_range(0..20) {
                    0 => 15,
                    1 => r.gen_range(0..16),
                    _ => r.gen_range(0..self.n as u16),
                };
                let w = match r.gen_range(0..10) {
                    0 => 0,
                    1 => 255,
                    _ => r.gen_range(1..=128),
                };
                i.cfg_addr = (low as u8) << 6 | idx;
                i.cfg_data = vl << 8 | w | (r.gen::<u16>() & 0xf000);
                self.stats.table_writes += 1;
                self.stats.table_writes_in_traffic += in_traffic as u64;
            }
            60..=61 => {
                self.rewrite = Some((r.gen(), 0));
                self.stats.table_rewrites += 1;
                i.cfg_wr = false;
            }
            62..=71 => {
                let (d, k) = match r.gen_range(0..4) {
                    0 => (0, 0),
                    1 => (255, 2),
                    _ => (r.gen_range(1..=254), 1),
                };
                i.cfg_addr = CFG_VL_HIGH_LIMIT;
                i.cfg_data = d | (r.gen::<u16>() & 0xff00);
                self.stats.limit_writes[k] += 1;
            }
            72..=77 => {
                i.cfg_addr = CFG_LOW_POLICY;
                i.cfg_data = r.gen_ratio(1, 3) as u16 | (r.gen::<u16>() & 0xfffe);
                self.stats.policy_writes += 1;
            }
            86..=89 => {
                // Failsafe thresholds (applied at the next reset).
                i.cfg_addr = if r.gen() {
                    CFG_UPDATE_PERIODS
                } else {
                    CFG_OVERRUN_PERIODS
                };
                i.cfg_data = match r.gen_range(0..8) {
                    0..=2 => 0,
                    3 => r.gen(),
                    _ => r.gen_range(1..=3),
                };
                self.stats.failsafe_writes += 1;
            }
            78..=85 => {
                let all = ((1u32 << self.n) - 1) as u16;
                i.cfg_addr = CFG_VL_ENABLE;
                i.cfg_data = if r.gen_ratio(2, 3) {
                    all | (r.gen::<u16>() & !all)
                } else {
                    r.gen()
                };
                self.stats.enable_writes += 1;
            }
            _ => {
                // Unmapped addresses: ignored.
                i.cfg_addr = r.gen_range(0x90..=0xff);
                self.stats.unmapped_writes += 1;
            }
        }
    }
}
