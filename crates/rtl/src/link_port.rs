//! The link port: every link-layer block of one InfiniBand port composed (SPEC.md §2–§7).
//!
//! Transmit: the user's per-VL queues → [`crate::tx_credits`] (credit check) →
//! [`crate::vl_arb`] (data-VL arbitration) → [`crate::link_tx`] (VL15 > FCP > data, VCRC)
//! → the link word stream, with [`crate::fcp_tx`] building FCPs from this port's FCTBS and
//! FCCL. Receive: the link word stream → [`crate::fcp_rx`] (FCPs: ABR := FCTBS, CL := FCCL)
//! and [`crate::link_rx`] (LRH, length, VCRC, VL) → [`crate::rx_credits`] /
//! [`crate::vl15_rx`] → the user's receive buffer.
//!
//! Each block keeps its own cycle contract (see its module); this file only wires them
//! and holds the port's configuration registers. The emitted file is self-contained: the
//! blocks are its sub-modules, named `<port>$<block>` as rust-hdl names them.
//!
//! # User interface (VLCap `N`, `W`-bit link words, `K = W/8` lanes)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | link init / resync (SPEC.md §8): credits, arbiter pointers, FCP timers and both paths restart; configuration registers are kept. `link_state` = Down acts as a held reset |
//! | `link_state[2]` | in | [`crate::link`] codes: Down, LinkInitialize (FCP Op 1, no data), LinkArm (Op 0, no data), LinkActive (data flows) |
//! | `txq_valid[N]`, `txq_len[11N]` | in | per data VL: the head packet of the user's transmit queue and its LRH:PktLen |
//! | `txq_pop[N]` | out | one-hot pulse: that head packet started (pop its descriptor) |
//! | `vl15_valid`, `vl15_len[11]`, `vl15_pop` | in/in/out | the same for the VL15 (management) queue |
//! | `src_rd`, `src_vl[4]`, `src_data[W]` | out/out/in | packet words: the queue `src_vl` (15 = VL15) presents its next word on `src_data` (first-word fall-through); `src_rd` consumes it |
//! | `tx_valid/data/keep/sop/eop/link` | out | the transmit link word stream (`link` = FCP) |
//! | `rx_valid/data/keep/sop/eop/link` | in | the receive link word stream |
//! | `rx_out_valid/data/keep/sop/eop/vl`, `rx_out_abort` | out | received data and VL15 packets, VCRC kept, for the user's receive buffer ([`crate::link_rx`]) |
//! | `rx_done`, `rx_done_status[2]` | out | the verdict on the last delivered packet (0 good, 1 VCRC, 2 length, 3 bad VL) |
//! | `rx_commit`, `rx_overrun` | out | the clock after a good `rx_done`: keep the packet, or drop it (credit overrun, or VL15 buffer full) |
//! | `drain`, `drain_vl[4]`, `drain_blocks[7]`, `vl15_drain` | in | the higher layer took a packet out of the receive buffer of a data VL / VL15 |
//! | `cfg_wr`, `cfg_addr[8]`, `cfg_data[16]` | in | configuration write (map below) |
//! | `cfg_busy` | out | the arbitration tables are being loaded from the generated configuration (after power-up); `cfg_wr` is ignored meanwhile |
//! | `grant`, `grant_vl[4]`, `grant_table`, `grant_entry[6]`, `grant_blocks[8]`, `grant_weight_left[9]`, `grant_high_counter[19]` | out | a data packet started, with the arbiter's decision (the `iblink arb-trace` numbers) |
//! | `fccl[12N]`, `overruns[16N]` | out | each VL's FCCL (what this port advertises) and buffer overruns |
//! | `fctbs[12N]` | out | each VL's FCTBS (blocks sent since link init), as advertised in this port's FCPs |
//! | `resync_req`, `resync_reason`, `resync_vl[4]` | out | the failsafe ([`crate::failsafe`], SPEC.md §8) requests a link resync: a one-clock strobe; reason 0 = no FC update for `resync_vl`, 1 = overrun threshold. The port does not retrain itself: the link logic around it resets both ends (`reset`, then LinkInitialize until init FCPs have crossed, then LinkActive). The FCP period is 65,536 symbol times (16384 clocks at 32 bits, 8192 at 64) |
//! | `fcp_late[N]` | out | no FCP for that VL for more than one FCP period |
//! | counters | out | `fcp_*_count`, `rx_*_count`, `vl15_drop_count`, `tx_*_starts` (16 bits, saturating or wrapping as their block says) and `fcp_framing_error` |
//!
//! # Configuration map (`cfg_addr`)
//! | address | register | power-up value |
//! |---|---|---|
//! | `0x00 + i` | high-priority VLArbitrationTable entry `i`: `cfg_data[11:8]` VL, `[7:0]` weight | from the configuration (loaded one entry a clock after power-up) |
//! | `0x40 + i` | low-priority table entry `i` | idem |
//! | `0x80` | VLHighLimit `[7:0]` | configuration |
//! | `0x81` | low-table policy `[0]`: 0 weight (default), 1 one packet per turn | configuration |
//! | `0x82` | data VL enable mask `[N-1:0]` | all data VLs |
//! | `0x83` | FCP refresh period, clocks | configuration (`refresh_symbols / W`) |
//! | `0x84` | minimum gap between on-change FCPs of one VL, clocks | configuration |
//! | `0x85` | failsafe: resync when no FCP arrives for a VL for more than this many FCP periods (0 = off); applied at the next `reset` | configuration (`update_monitor_periods`) |
//! | `0x86` | failsafe: resync when a VL overruns in more than this many consecutive periods; applied at the next `reset` | configuration (`overrun_periods`) |
//!
//! # Why a new head is hidden for a clock
//! The TX credit block shows its check a clock late: bit `v` of `credit_ok` speaks for
//! the head of the previous clock. In the clock after a packet of VL `v` starts, it still
//! speaks for the packet that just left; in the clock a head appears after an empty
//! queue, it speaks for whatever `txq_len` held before. The arbiter trusts the heads it
//! samples, so the port holds `head_valid[v]` low in both clocks (`taken_mask`, and
//! `txq_valid_q`: the head must have been valid the clock before). The user's head must
//! stay unchanged while `txq_valid` is set and it is not popped.
//!
//! Cost: with packets of 4 clocks (minimum PktLen at 64 bits) from a
//! single VL the arbiter decides one clock later than the packet ends — one idle clock;
//! packets of 5 clocks or more, and any mix of VLs, go back to back.

use crate::failsafe::{spec_period_clocks, FailsafeUnit};
use crate::fcp_rx::FcpRxUnit;
use crate::fcp_tx::FcpTxUnit;
use crate::io::Opaque;
use crate::link::{LINK_ACTIVE, LINK_DOWN};
use crate::link_rx::LinkRxUnit;
use crate::link_tx::LinkTxUnit;
use crate::rx_credits::{RxCreditsUnit, DEFAULT_CAPACITY};
use crate::bits::{bits_from_words, field, pack_fields, read_words};
use crate::tx_credits::{TxCreditsUnit, MAX_VLS};
use crate::vl15_rx::Vl15RxUnit;
use crate::vl_arb::VlArbUnit;
use rust_hdl::prelude::*;
use std::fmt::Write as _;

/// Entries per VLArbitrationTable.
pub const TABLE_ENTRIES: usize = 64;
/// Configuration addresses (see the module docs).
pub const CFG_HIGH: u8 = 0x00;
pub const CFG_LOW: u8 = 0x40;
pub const CFG_VL_HIGH_LIMIT: u8 = 0x80;
pub const CFG_LOW_POLICY: u8 = 0x81;
pub const CFG_VL_ENABLE: u8 = 0x82;
pub const CFG_REFRESH: u8 = 0x83;
pub const CFG_MIN_GAP: u8 = 0x84;
pub const CFG_UPDATE_PERIODS: u8 = 0x85;
pub const CFG_OVERRUN_PERIODS: u8 = 0x86;

/// What a port is generated from (the CLI fills it from `iblink_model::config::PortConfig`;
/// this crate does not depend on the model).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortParams {
    pub vl_cap: usize,
    /// Link word width in bits: 32 or 64.
    pub width: usize,
    /// Receive buffer per data VL, blocks (66..=4095).
    pub buffer_blocks: u16,
    /// VL15 receive buffer, packets (1..=255).
    pub vl15_packets: usize,
    pub refresh_clocks: u16,
    pub min_gap_clocks: u16,
    pub vl_high_limit: u8,
    /// Low-table policy: false = weight (default), true = one packet per turn.
    pub one_packet: bool,
    /// (VL, weight) entries loaded after power-up.
    pub high: Vec<(u8, u8)>,
    pub low: Vec<(u8, u8)>,
    /// Failsafe (SPEC.md §8): resync when no FCP arrives for a VL for more than this many
    /// FCP periods (0 = monitor off).
    pub update_periods: u16,
    /// Failsafe: resync when a VL has overruns in more than this many consecutive periods.
    pub overrun_periods: u16,
}

impl PortParams {
    /// The defaults of `iblink_model::config::PortConfig::default()` at `vl_cap` and
    /// `width`: 256-block buffers, one VL15 buffer, refresh 57344 symbols, on-change gap
    /// 256 symbols, VLHighLimit 4, weight policy, an empty high table and a low table of
    /// weight 64 per data VL.
    pub fn defaults(vl_cap: usize, width: usize) -> Self {
        let bytes = (width / 8) as u32;
        Self {
            vl_cap,
            width,
            buffer_blocks: DEFAULT_CAPACITY,
            vl15_packets: 1,
            refresh_clocks: (57_344 / bytes) as u16,
            min_gap_clocks: (256 / bytes) as u16,
            vl_high_limit: 4,
            one_packet: false,
            high: vec![],
            low: (0..vl_cap as u8).map(|v| (v, 64)).collect(),
            update_periods: 2,
            overrun_periods: 2,
        }
    }

    /// The configuration lines of the emitted file's header.
    pub fn config_lines(&self) -> Vec<(String, String)> {
        let t = |e: &[(u8, u8)]| e.iter().map(|(v, w)| format!("[{v},{w}]")).collect::<Vec<_>>().join(",");
        vec![
            ("vl_cap".into(), self.vl_cap.to_string()),
            ("datapath_bits".into(), self.width.to_string()),
            ("buffer_blocks".into(), self.buffer_blocks.to_string()),
            ("vl15_buffer_packets".into(), self.vl15_packets.to_string()),
            ("refresh_clocks".into(), self.refresh_clocks.to_string()),
            ("min_gap_clocks".into(), self.min_gap_clocks.to_string()),
            ("vl_high_limit".into(), self.vl_high_limit.to_string()),
            ("low_policy".into(), if self.one_packet { "one-packet" } else { "weight" }.into()),
            ("high".into(), format!("[{}]", t(&self.high))),
            ("low".into(), format!("[{}]", t(&self.low))),
            ("update_monitor_periods".into(), self.update_periods.to_string()),
            ("overrun_periods".into(), self.overrun_periods.to_string()),
        ]
    }

    /// The table writes the loader makes after power-up: (low table?, index, VL, weight).
    pub fn load_sequence(&self) -> Vec<(bool, u8, u8, u8)> {
        let hi = self.high.iter().enumerate().map(|(i, &(v, w))| (false, i as u8, v, w));
        let lo = self.low.iter().enumerate().map(|(i, &(v, w))| (true, i as u8, v, w));
        hi.chain(lo).collect()
    }
}

/// The port's own registers (configuration, loader, the granted-VL mask).
#[derive(Clone, Debug)]
pub struct PortRegs {
    /// Bit v: a packet of VL v started in the previous clock (its credit bit is stale).
    pub taken_mask: u16,
    /// `txq_valid` of the previous clock: a head that was not there then has a stale
    /// credit bit now (the check speaks for the previous clock's NP).
    pub txq_valid_q: u16,
    /// Next loader step; the loader runs while it is below the sequence length.
    pub load_idx: u8,
    pub vl_high_limit: u8,
    pub one_packet: bool,
    pub vl_enable: u16,
    pub refresh: u16,
    pub min_gap: u16,
    /// Failsafe thresholds as written (`cfg_*`) and as applied (taken at a reset).
    pub cfg_update: u16,
    pub cfg_overrun: u16,
    pub fs_update: u16,
    pub fs_overrun: u16,
    /// `accept_vl` of the previous clock: the VL that RX credits' `dropped` speaks for.
    pub acc_vl_q: u8,
}

/// The link port for VLCap `N` and `W`-bit words. `K = W/8`, `HB = 7N`, `HL = 11N`,
/// `FB = 12N`, `OW = 16N` (the packed per-VL buses).
#[derive(LogicBlock)]
pub struct LinkPortUnit<
    const N: usize,
    const W: usize,
    const K: usize,
    const HB: usize,
    const HL: usize,
    const FB: usize,
    const OW: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub link_state: Signal<In, Bits<2>>,
    pub txq_valid: Signal<In, Bits<N>>,
    pub txq_len: Signal<In, Bits<HL>>,
    pub txq_pop: Signal<Out, Bits<N>>,
    pub vl15_valid: Signal<In, Bit>,
    pub vl15_len: Signal<In, Bits<11>>,
    pub vl15_pop: Signal<Out, Bit>,
    pub src_rd: Signal<Out, Bit>,
    pub src_vl: Signal<Out, Bits<4>>,
    pub src_data: Signal<In, Bits<W>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<W>>,
    pub tx_keep: Signal<Out, Bits<K>>,
    pub tx_sop: Signal<Out, Bit>,
    pub tx_eop: Signal<Out, Bit>,
    pub tx_link: Signal<Out, Bit>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_data: Signal<In, Bits<W>>,
    pub rx_keep: Signal<In, Bits<K>>,
    pub rx_sop: Signal<In, Bit>,
    pub rx_eop: Signal<In, Bit>,
    pub rx_link: Signal<In, Bit>,
    pub rx_out_valid: Signal<Out, Bit>,
    pub rx_out_data: Signal<Out, Bits<W>>,
    pub rx_out_keep: Signal<Out, Bits<K>>,
    pub rx_out_sop: Signal<Out, Bit>,
    pub rx_out_eop: Signal<Out, Bit>,
    pub rx_out_vl: Signal<Out, Bits<4>>,
    pub rx_out_abort: Signal<Out, Bit>,
    pub rx_done: Signal<Out, Bit>,
    pub rx_done_status: Signal<Out, Bits<2>>,
    pub rx_commit: Signal<Out, Bit>,
    pub rx_overrun: Signal<Out, Bit>,
    pub drain: Signal<In, Bit>,
    pub drain_vl: Signal<In, Bits<4>>,
    pub drain_blocks: Signal<In, Bits<7>>,
    pub vl15_drain: Signal<In, Bit>,
    pub cfg_wr: Signal<In, Bit>,
    pub cfg_addr: Signal<In, Bits<8>>,
    pub cfg_data: Signal<In, Bits<16>>,
    pub cfg_busy: Signal<Out, Bit>,
    pub grant: Signal<Out, Bit>,
    pub grant_vl: Signal<Out, Bits<4>>,
    pub grant_table: Signal<Out, Bit>,
    pub grant_entry: Signal<Out, Bits<6>>,
    pub grant_blocks: Signal<Out, Bits<8>>,
    pub grant_weight_left: Signal<Out, Bits<9>>,
    pub grant_high_counter: Signal<Out, Bits<19>>,
    pub fccl: Signal<Out, Bits<FB>>,
    pub overruns: Signal<Out, Bits<OW>>,
    pub fcp_good_count: Signal<Out, Bits<16>>,
    pub fcp_short_count: Signal<Out, Bits<16>>,
    pub fcp_long_count: Signal<Out, Bits<16>>,
    pub fcp_abort_count: Signal<Out, Bits<16>>,
    pub fcp_lpcrc_error_count: Signal<Out, Bits<16>>,
    pub fcp_reserved_op_count: Signal<Out, Bits<16>>,
    pub fcp_vl15_count: Signal<Out, Bits<16>>,
    pub fcp_vl_cap_count: Signal<Out, Bits<16>>,
    pub rx_good_count: Signal<Out, Bits<16>>,
    pub rx_vcrc_error_count: Signal<Out, Bits<16>>,
    pub rx_length_error_count: Signal<Out, Bits<16>>,
    pub rx_bad_vl_count: Signal<Out, Bits<16>>,
    pub rx_abort_count: Signal<Out, Bits<16>>,
    pub vl15_held: Signal<Out, Bits<8>>,
    pub vl15_drop_count: Signal<Out, Bits<16>>,
    pub tx_vl15_starts: Signal<Out, Bits<16>>,
    pub tx_fcp_starts: Signal<Out, Bits<16>>,
    pub tx_data_starts: Signal<Out, Bits<16>>,
    pub fcp_framing_error: Signal<Out, Bit>,
    pub resync_req: Signal<Out, Bit>,
    pub resync_reason: Signal<Out, Bit>,
    pub resync_vl: Signal<Out, Bits<4>>,
    pub fcp_late: Signal<Out, Bits<N>>,
    pub fctbs: Signal<Out, Bits<FB>>,
    txc: TxCreditsUnit<N, HB, FB>,
    rxc: RxCreditsUnit<N, FB, OW, DEFAULT_CAPACITY>,
    vl15: Vl15RxUnit<1>,
    arb: VlArbUnit<N, HL>,
    fcptx: FcpTxUnit<N, W, K, FB>,
    fcprx: FcpRxUnit<N, W, K>,
    ltx: LinkTxUnit<W, K>,
    lrx: LinkRxUnit<N, W, K>,
    fs: FailsafeUnit<N>,
    regs: Opaque<PortRegs>,
    params: Opaque<PortParams>,
    /// `params.load_sequence()`, kept.
    load: Opaque<Vec<(bool, u8, u8, u8)>>,
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize>
    Default for LinkPortUnit<N, W, K, HB, HL, FB, OW>
{
    /// The port with [`PortParams::defaults`].
    fn default() -> Self {
        Self::new(PortParams::defaults(N, W))
    }
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize>
    LinkPortUnit<N, W, K, HB, HL, FB, OW>
{
    /// The port generated from `p` (whose `vl_cap` and `width` must be `N` and `W`).
    pub fn new(p: PortParams) -> Self {
        assert!(p.vl_cap == N && p.width == W, "PortParams for VLCap {} x {} bits given to a VLCap {N} x {W} port", p.vl_cap, p.width);
        assert!(K * 8 == W && HB == 7 * N && HL == 11 * N && FB == 12 * N && OW == 16 * N);
        assert!(p.high.len() <= TABLE_ENTRIES && p.low.len() <= TABLE_ENTRIES);
        let regs = PortRegs {
            taken_mask: 0,
            txq_valid_q: 0,
            load_idx: 0,
            vl_high_limit: p.vl_high_limit,
            one_packet: p.one_packet,
            vl_enable: ((1u32 << N) - 1) as u16,
            refresh: p.refresh_clocks,
            min_gap: p.min_gap_clocks,
            cfg_update: p.update_periods,
            cfg_overrun: p.overrun_periods,
            fs_update: p.update_periods,
            fs_overrun: p.overrun_periods,
            acc_vl_q: 0,
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            link_state: Default::default(),
            txq_valid: Default::default(),
            txq_len: Default::default(),
            txq_pop: Default::default(),
            vl15_valid: Default::default(),
            vl15_len: Default::default(),
            vl15_pop: Default::default(),
            src_rd: Default::default(),
            src_vl: Default::default(),
            src_data: Default::default(),
            tx_valid: Default::default(),
            tx_data: Default::default(),
            tx_keep: Default::default(),
            tx_sop: Default::default(),
            tx_eop: Default::default(),
            tx_link: Default::default(),
            rx_valid: Default::default(),
            rx_data: Default::default(),
            rx_keep: Default::default(),
            rx_sop: Default::default(),
            rx_eop: Default::default(),
            rx_link: Default::default(),
            rx_out_valid: Default::default(),
            rx_out_data: Default::default(),
            rx_out_keep: Default::default(),
            rx_out_sop: Default::default(),
            rx_out_eop: Default::default(),
            rx_out_vl: Default::default(),
            rx_out_abort: Default::default(),
            rx_done: Default::default(),
            rx_done_status: Default::default(),
            rx_commit: Default::default(),
            rx_overrun: Default::default(),
            drain: Default::default(),
            drain_vl: Default::default(),
            drain_blocks: Default::default(),
            vl15_drain: Default::default(),
            cfg_wr: Default::default(),
            cfg_addr: Default::default(),
            cfg_data: Default::default(),
            cfg_busy: Default::default(),
            grant: Default::default(),
            grant_vl: Default::default(),
            grant_table: Default::default(),
            grant_entry: Default::default(),
            grant_blocks: Default::default(),
            grant_weight_left: Default::default(),
            grant_high_counter: Default::default(),
            fccl: Default::default(),
            overruns: Default::default(),
            fcp_good_count: Default::default(),
            fcp_short_count: Default::default(),
            fcp_long_count: Default::default(),
            fcp_abort_count: Default::default(),
            fcp_lpcrc_error_count: Default::default(),
            fcp_reserved_op_count: Default::default(),
            fcp_vl15_count: Default::default(),
            fcp_vl_cap_count: Default::default(),
            rx_good_count: Default::default(),
            rx_vcrc_error_count: Default::default(),
            rx_length_error_count: Default::default(),
            rx_bad_vl_count: Default::default(),
            rx_abort_count: Default::default(),
            vl15_held: Default::default(),
            vl15_drop_count: Default::default(),
            tx_vl15_starts: Default::default(),
            tx_fcp_starts: Default::default(),
            tx_data_starts: Default::default(),
            fcp_framing_error: Default::default(),
            resync_req: Default::default(),
            resync_reason: Default::default(),
            resync_vl: Default::default(),
            fcp_late: Default::default(),
            fctbs: Default::default(),
            txc: Default::default(),
            rxc: RxCreditsUnit::with_capacity(p.buffer_blocks),
            vl15: Vl15RxUnit::with_capacity(p.vl15_packets),
            arb: Default::default(),
            fcptx: Default::default(),
            fcprx: Default::default(),
            ltx: Default::default(),
            lrx: Default::default(),
            fs: Default::default(),
            regs: Opaque(regs),
            load: Opaque(p.load_sequence()),
            params: Opaque(p),
        }
    }

    pub fn params(&self) -> &PortParams {
        &self.params
    }
}

/// Blocks of a packet from its PktLen (SPEC.md §1), as the TX credit block's 7-bit NP:
/// `ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16`, computed as the Verilog does (an
/// 11-bit sum; PktLen is at most 1048, so it never wraps for a valid packet).
#[inline]
pub const fn np_of(pkt_len: u16) -> u16 {
    ((pkt_len + 13) & 0x7ff) >> 4
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize>
    Logic for LinkPortUnit<N, W, K, HB, HL, FB, OW>
{
    fn update(&mut self) {
        let ls = self.link_state.val().to_u64() as u8;
        let port_reset = self.reset.val() || ls == LINK_DOWN;
        let link_active = ls == LINK_ACTIVE;
        let load_len = self.load.len();
        // Registers: in the clock-edge pass the blocks' inputs are still computed from the
        // values before the edge (the blocks see the edge one pass later, as in Verilog
        // they see the same edge with the old values).
        let before = self.regs.0.clone();
        if self.clock.pos_edge() {
            let loading = (self.regs.load_idx as usize) < load_len;
            let take = self.ltx.take.val();
            let ovl = self.arb.offer_vl.val().to_u64() as u32;
            let r = &mut self.regs;
            r.taken_mask = if take && (ovl as usize) < N { 1 << ovl } else { 0 };
            r.txq_valid_q = self.txq_valid.val().to_u64() as u16;
            if loading {
                r.load_idx += 1;
            } else if self.cfg_wr.val() {
                let d = self.cfg_data.val().to_u64() as u16;
                match self.cfg_addr.val().to_u64() as u8 {
                    CFG_VL_HIGH_LIMIT => r.vl_high_limit = d as u8,
                    CFG_LOW_POLICY => r.one_packet = d & 1 == 1,
                    CFG_VL_ENABLE => r.vl_enable = d & ((1u32 << N) - 1) as u16,
                    CFG_REFRESH => r.refresh = d,
                    CFG_MIN_GAP => r.min_gap = d,
                    CFG_UPDATE_PERIODS => r.cfg_update = d,
                    CFG_OVERRUN_PERIODS => r.cfg_overrun = d,
                    _ => {}
                }
            }
            // The failsafe takes its thresholds at a reset (its model does): hold them.
            if port_reset {
                r.fs_update = before.cfg_update;
                r.fs_overrun = before.cfg_overrun;
            }
            r.acc_vl_q = self.lrx.acc_vl.val().to_u64() as u8;
        }
        let r = if self.clock.pos_edge() { before } else { self.regs.0.clone() };
        let loading = (r.load_idx as usize) < load_len;

        // ---- transmit ----
        let lens = read_words::<HL>(&self.txq_len.val());
        let mut np = [0u16; MAX_VLS];
        for (v, x) in np.iter_mut().enumerate().take(N) {
            *x = np_of(field(&lens, v, 11) as u16);
        }
        let mut w = [0u64; 2];
        pack_fields(&np[..N], 7, &mut w);
        self.txc.clock.next = self.clock.val();
        self.txc.reset.next = port_reset;
        self.txc.head_blocks.next = bits_from_words::<HB>(&w);
        self.txc.send.next = self.ltx.take.val();
        self.txc.send_vl.next = self.arb.offer_vl.val();
        self.txc.fcp_valid.next = self.fcprx.upd_valid.val();
        self.txc.fcp_vl.next = self.fcprx.upd_vl.val();
        self.txc.fcp_fccl.next = self.fcprx.upd_fccl.val();

        let head_valid = self.txq_valid.val().to_u64()
            & r.txq_valid_q as u64
            & self.txc.credit_ok.val().to_u64()
            & !(r.taken_mask as u64);
        self.arb.clock.next = self.clock.val();
        self.arb.reset.next = port_reset;
        self.arb.head_valid.next = head_valid.into();
        self.arb.head_len.next = self.txq_len.val();
        self.arb.take.next = self.ltx.take.val();
        let (wr_en, wr_low, wr_index, wr_vl, wr_weight) = if loading {
            let (low, i, v, wt) = self.load[r.load_idx as usize];
            (true, low, i, v, wt)
        } else {
            let a = self.cfg_addr.val().to_u64() as u8;
            let d = self.cfg_data.val().to_u64() as u16;
            (self.cfg_wr.val() && a < 0x80, a & 0x40 != 0, a & 0x3f, ((d >> 8) & 0xf) as u8, d as u8)
        };
        self.arb.wr_en.next = wr_en;
        self.arb.wr_table.next = wr_low;
        self.arb.wr_index.next = (wr_index as u64).into();
        self.arb.wr_vl.next = (wr_vl as u64).into();
        self.arb.wr_weight.next = (wr_weight as u64).into();
        self.arb.vl_high_limit.next = (r.vl_high_limit as u64).into();
        self.arb.low_policy.next = r.one_packet;
        self.arb.vl_enable.next = (r.vl_enable as u64).into();

        self.fcptx.clock.next = self.clock.val();
        self.fcptx.restart.next = self.reset.val();
        self.fcptx.link_state.next = self.link_state.val();
        self.fcptx.refresh_clocks.next = (r.refresh as u64).into();
        self.fcptx.min_gap_clocks.next = (r.min_gap as u64).into();
        self.fcptx.fctbs.next = self.txc.fctbs_bus.val();
        self.fcptx.fccl.next = self.rxc.fccl.val();
        self.fcptx.fcp_start.next = self.ltx.fcp_start.val();

        self.ltx.clock.next = self.clock.val();
        self.ltx.reset.next = port_reset;
        self.ltx.link_active.next = link_active;
        self.ltx.vl15_valid.next = self.vl15_valid.val();
        self.ltx.vl15_len.next = self.vl15_len.val();
        self.ltx.fcp_pending.next = self.fcptx.fcp_pending.val();
        self.ltx.fcp_valid.next = self.fcptx.fcp_valid.val();
        self.ltx.fcp_data.next = self.fcptx.fcp_data.val();
        self.ltx.fcp_keep.next = self.fcptx.fcp_keep.val();
        self.ltx.fcp_sop.next = self.fcptx.fcp_sop.val();
        self.ltx.fcp_eop.next = self.fcptx.fcp_eop.val();
        self.ltx.offer_valid.next = self.arb.offer_valid.val();
        self.ltx.offer_vl.next = self.arb.offer_vl.val();
        self.ltx.offer_len.next = self.arb.offer_pkt_len.val();
        self.ltx.src_data.next = self.src_data.val();

        let take = self.ltx.take.val();
        let ovl = self.arb.offer_vl.val().to_u64();
        self.txq_pop.next = (if take && (ovl as usize) < N { 1u64 << ovl } else { 0 }).into();
        self.vl15_pop.next = self.ltx.vl15_take.val();
        self.src_rd.next = self.ltx.src_rd.val();
        self.src_vl.next = self.ltx.src_vl.val();
        self.tx_valid.next = self.ltx.tx_valid.val();
        self.tx_data.next = self.ltx.tx_data.val();
        self.tx_keep.next = self.ltx.tx_keep.val();
        self.tx_sop.next = self.ltx.tx_sop.val();
        self.tx_eop.next = self.ltx.tx_eop.val();
        self.tx_link.next = self.ltx.tx_link.val();
        // The arbiter's fields mean something only with a grant: zero otherwise.
        let g = |x: u64| if take { x } else { 0 };
        self.grant.next = take;
        self.grant_vl.next = g(self.arb.offer_vl.val().to_u64()).into();
        self.grant_table.next = take && self.arb.offer_table.val();
        self.grant_entry.next = g(self.arb.offer_entry.val().to_u64()).into();
        self.grant_blocks.next = g(self.arb.offer_blocks.val().to_u64()).into();
        self.grant_weight_left.next = g(self.arb.offer_weight_left.val().to_u64()).into();
        self.grant_high_counter.next = g(self.arb.offer_high_counter.val().to_u64()).into();
        self.tx_vl15_starts.next = self.ltx.vl15_starts.val();
        self.tx_fcp_starts.next = self.ltx.fcp_starts.val();
        self.tx_data_starts.next = self.ltx.data_starts.val();
        self.fcp_framing_error.next = self.ltx.fcp_framing_error.val();
        self.cfg_busy.next = loading;

        // ---- receive ----
        self.fcprx.clock.next = self.clock.val();
        self.fcprx.reset.next = port_reset;
        self.lrx.clock.next = self.clock.val();
        self.lrx.reset.next = port_reset;
        macro_rules! rx_in {
            ($b:ident) => {
                self.$b.rx_valid.next = self.rx_valid.val();
                self.$b.rx_data.next = self.rx_data.val();
                self.$b.rx_keep.next = self.rx_keep.val();
                self.$b.rx_sop.next = self.rx_sop.val();
                self.$b.rx_eop.next = self.rx_eop.val();
                self.$b.rx_link.next = self.rx_link.val();
            };
        }
        rx_in!(fcprx);
        rx_in!(lrx);

        self.rxc.clock.next = self.clock.val();
        self.rxc.reset.next = port_reset;
        self.rxc.accept.next = self.lrx.acc_valid.val();
        self.rxc.accept_vl.next = self.lrx.acc_vl.val();
        self.rxc.accept_blocks.next = self.lrx.acc_blocks.val();
        self.rxc.drain.next = self.drain.val();
        self.rxc.drain_vl.next = self.drain_vl.val();
        self.rxc.drain_blocks.next = self.drain_blocks.val();
        self.rxc.fcp_valid.next = self.fcprx.upd_valid.val();
        self.rxc.fcp_vl.next = self.fcprx.upd_vl.val();
        self.rxc.fcp_fctbs.next = self.fcprx.upd_fctbs.val();

        self.vl15.clock.next = self.clock.val();
        self.vl15.reset.next = port_reset;
        self.vl15.accept.next = self.lrx.vl15_accept.val();
        self.vl15.drain.next = self.vl15_drain.val();

        self.rx_out_valid.next = self.lrx.out_valid.val();
        self.rx_out_data.next = self.lrx.out_data.val();
        self.rx_out_keep.next = self.lrx.out_keep.val();
        self.rx_out_sop.next = self.lrx.out_sop.val();
        self.rx_out_eop.next = self.lrx.out_eop.val();
        self.rx_out_vl.next = self.lrx.out_vl.val();
        self.rx_out_abort.next = self.lrx.out_abort.val();
        self.rx_done.next = self.lrx.done.val();
        self.rx_done_status.next = self.lrx.done_status.val();
        self.rx_commit.next = self.rxc.accepted.val() || self.vl15.kept.val();
        self.rx_overrun.next = self.rxc.dropped.val() || self.vl15.dropped.val();
        self.fccl.next = self.rxc.fccl.val();
        self.overruns.next = self.rxc.overruns.val();
        self.fcp_good_count.next = self.fcprx.good_count.val();
        self.fcp_short_count.next = self.fcprx.short_count.val();
        self.fcp_long_count.next = self.fcprx.long_count.val();
        self.fcp_abort_count.next = self.fcprx.abort_count.val();
        self.fcp_lpcrc_error_count.next = self.fcprx.lpcrc_error_count.val();
        self.fcp_reserved_op_count.next = self.fcprx.reserved_op_count.val();
        self.fcp_vl15_count.next = self.fcprx.vl15_count.val();
        self.fcp_vl_cap_count.next = self.fcprx.vl_cap_count.val();
        self.rx_good_count.next = self.lrx.good_count.val();
        self.rx_vcrc_error_count.next = self.lrx.vcrc_error_count.val();
        self.rx_length_error_count.next = self.lrx.length_error_count.val();
        self.rx_bad_vl_count.next = self.lrx.bad_vl_count.val();
        self.rx_abort_count.next = self.lrx.abort_count.val();
        self.vl15_held.next = self.vl15.held.val();
        self.vl15_drop_count.next = self.vl15.drop_count.val();

        // ---- failsafe ----
        self.fs.clock.next = self.clock.val();
        self.fs.reset.next = port_reset;
        self.fs.upd_valid.next = self.fcprx.upd_valid.val();
        self.fs.upd_vl.next = self.fcprx.upd_vl.val();
        self.fs.overrun.next = self.rxc.dropped.val();
        self.fs.overrun_vl.next = (r.acc_vl_q as u64).into();
        self.fs.period_clocks.next = (spec_period_clocks(W) as u64).into();
        let (fu, fo) = if port_reset { (r.cfg_update, r.cfg_overrun) } else { (r.fs_update, r.fs_overrun) };
        self.fs.update_periods.next = (fu as u64).into();
        self.fs.overrun_periods.next = (fo as u64).into();
        self.resync_req.next = self.fs.resync_req.val();
        self.resync_reason.next = self.fs.resync_reason.val();
        self.resync_vl.next = self.fs.resync_vl.val();
        self.fcp_late.next = self.fs.fcp_late.val();
        self.fctbs.next = self.txc.fctbs_bus.val();
    }

    fn connect(&mut self) {
        macro_rules! c {
            ($($s:ident).+ ; $($rest:tt)*) => { self.$($s).+.connect(); c!($($rest)*); };
            () => {};
        }
        c!(
            txq_pop; vl15_pop; src_rd; src_vl; tx_valid; tx_data; tx_keep; tx_sop; tx_eop; tx_link;
            rx_out_valid; rx_out_data; rx_out_keep; rx_out_sop; rx_out_eop; rx_out_vl; rx_out_abort;
            rx_done; rx_done_status; rx_commit; rx_overrun; cfg_busy;
            grant; grant_vl; grant_table; grant_entry; grant_blocks; grant_weight_left; grant_high_counter;
            fccl; overruns; fcp_good_count; fcp_short_count; fcp_long_count; fcp_abort_count;
            fcp_lpcrc_error_count; fcp_reserved_op_count; fcp_vl15_count; fcp_vl_cap_count;
            rx_good_count; rx_vcrc_error_count; rx_length_error_count; rx_bad_vl_count; rx_abort_count;
            vl15_held; vl15_drop_count; tx_vl15_starts; tx_fcp_starts; tx_data_starts; fcp_framing_error;
            txc.clock; txc.reset; txc.head_blocks; txc.send; txc.send_vl; txc.fcp_valid; txc.fcp_vl; txc.fcp_fccl;
            arb.clock; arb.reset; arb.head_valid; arb.head_len; arb.take; arb.wr_en; arb.wr_table; arb.wr_index;
            arb.wr_vl; arb.wr_weight; arb.vl_high_limit; arb.low_policy; arb.vl_enable;
            fcptx.clock; fcptx.restart; fcptx.link_state; fcptx.refresh_clocks; fcptx.min_gap_clocks;
            fcptx.fctbs; fcptx.fccl; fcptx.fcp_start;
            ltx.clock; ltx.reset; ltx.link_active; ltx.vl15_valid; ltx.vl15_len; ltx.fcp_pending; ltx.fcp_valid;
            ltx.fcp_data; ltx.fcp_keep; ltx.fcp_sop; ltx.fcp_eop; ltx.offer_valid; ltx.offer_vl; ltx.offer_len;
            ltx.src_data;
            fcprx.clock; fcprx.reset; fcprx.rx_valid; fcprx.rx_data; fcprx.rx_keep; fcprx.rx_sop; fcprx.rx_eop; fcprx.rx_link;
            lrx.clock; lrx.reset; lrx.rx_valid; lrx.rx_data; lrx.rx_keep; lrx.rx_sop; lrx.rx_eop; lrx.rx_link;
            rxc.clock; rxc.reset; rxc.accept; rxc.accept_vl; rxc.accept_blocks; rxc.drain; rxc.drain_vl;
            rxc.drain_blocks; rxc.fcp_valid; rxc.fcp_vl; rxc.fcp_fctbs;
            vl15.clock; vl15.reset; vl15.accept; vl15.drain;
        );
        c!(
            resync_req; resync_reason; resync_vl; fcp_late; fctbs;
            fs.clock; fs.reset; fs.upd_valid; fs.upd_vl; fs.overrun; fs.overrun_vl; fs.period_clocks;
            fs.update_periods; fs.overrun_periods;
        );
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(link_port_verilog_body(&self.params))
    }
}

pub type LinkPortVl1W32 = LinkPortUnit<1, 32, 4, 7, 11, 12, 16>;
pub type LinkPortVl2W32 = LinkPortUnit<2, 32, 4, 14, 22, 24, 32>;
pub type LinkPortVl4W32 = LinkPortUnit<4, 32, 4, 28, 44, 48, 64>;
pub type LinkPortVl8W32 = LinkPortUnit<8, 32, 4, 56, 88, 96, 128>;
pub type LinkPortVl15W32 = LinkPortUnit<15, 32, 4, 105, 165, 180, 240>;
pub type LinkPortVl1W64 = LinkPortUnit<1, 64, 8, 7, 11, 12, 16>;
pub type LinkPortVl2W64 = LinkPortUnit<2, 64, 8, 14, 22, 24, 32>;
pub type LinkPortVl4W64 = LinkPortUnit<4, 64, 8, 28, 44, 48, 64>;
pub type LinkPortVl8W64 = LinkPortUnit<8, 64, 8, 56, 88, 96, 128>;
pub type LinkPortVl15W64 = LinkPortUnit<15, 64, 8, 105, 165, 180, 240>;

/// The port's own Verilog: wiring of the blocks (declared by rust-hdl as `<block>$<port>`
/// stubs), the configuration registers and the table loader.
pub fn link_port_verilog_body(p: &PortParams) -> String {
    let n = p.vl_cap;
    let load = p.load_sequence();
    let mut v = String::new();
    let _ = writeln!(v, "// Link port: VLCap {n}, {} bits a clock. Blocks are wired below; see each", p.width);
    let _ = writeln!(v, "// sub-module's header for its cycle contract.");
    let _ = writeln!(v, "localparam VLS = {n};");
    let _ = writeln!(v, "localparam [1:0] LINK_DOWN = 2'd{LINK_DOWN};");
    let _ = writeln!(v, "localparam [1:0] LINK_ACTIVE = 2'd{LINK_ACTIVE};");
    let _ = writeln!(v, "localparam [7:0] LOAD_LEN = 8'd{};", load.len());
    v.push_str(
        "\
// Link init / resync: a reset, or the link Down (SPEC.md 8).
wire port_reset = reset | (link_state == LINK_DOWN);
wire link_active = link_state == LINK_ACTIVE;

// ---- configuration registers (kept across resets; power-up values from the
// generating configuration) ----
",
    );
    let _ = writeln!(v, "reg [7:0] cfg_vl_high_limit;\nreg cfg_low_policy;\nreg [VLS-1:0] cfg_vl_enable;\nreg [15:0] cfg_refresh;\nreg [15:0] cfg_min_gap;\nreg [15:0] cfg_update_periods;\nreg [15:0] cfg_overrun_periods;\nreg [7:0] load_idx;\nreg [VLS-1:0] taken_mask;\nreg [VLS-1:0] txq_valid_q;");
    let _ = writeln!(v, "// The failsafe's thresholds as applied: taken from the registers at a reset.\nreg [15:0] fs_update_periods;\nreg [15:0] fs_overrun_periods;\n// The VL of the previous clock's accept: RX credits' `dropped` answers it a clock late.\nreg [3:0] acc_vl_q;");
    let _ = writeln!(v, "localparam [15:0] FCP_PERIOD_CLOCKS = 16'd{}; // 65,536 symbol times (SPEC.md 5)", spec_period_clocks(p.width));
    let _ = writeln!(
        v,
        "initial begin\n   cfg_vl_high_limit = 8'd{};\n   cfg_low_policy = 1'b{};\n   cfg_vl_enable = {{VLS{{1'b1}}}};\n   cfg_refresh = 16'd{};\n   cfg_min_gap = 16'd{};\n   cfg_update_periods = 16'd{u};\n   cfg_overrun_periods = 16'd{o};\n   fs_update_periods = 16'd{u};\n   fs_overrun_periods = 16'd{o};\n   acc_vl_q = 4'd0;\n   load_idx = 8'd0;\n   taken_mask = {{VLS{{1'b0}}}};\n   txq_valid_q = {{VLS{{1'b0}}}};\nend",
        p.vl_high_limit, p.one_packet as u8, p.refresh_clocks, p.min_gap_clocks, u = p.update_periods, o = p.overrun_periods
    );
    v.push_str(
        "\
// The arbitration tables come up empty; after power-up the loader writes the
// configuration's entries, one a clock, through the arbiter's write port.
wire loading = load_idx < LOAD_LEN;
reg ld_low;
reg [5:0] ld_index;
reg [3:0] ld_vl;
reg [7:0] ld_weight;
always @(*) begin
   ld_low = 1'b0;
   ld_index = 6'd0;
   ld_vl = 4'd0;
   ld_weight = 8'd0;
   case (load_idx)
",
    );
    for (k, (low, i, vl, w)) in load.iter().enumerate() {
        let _ = writeln!(
            v,
            "      8'd{k}: begin ld_low = 1'b{}; ld_index = 6'd{i}; ld_vl = 4'd{vl}; ld_weight = 8'd{w}; end",
            *low as u8
        );
    }
    v.push_str(
        "\
      default: ;
   endcase
end
wire cfg_table_wr = cfg_wr & ~loading & ~cfg_addr[7];
always @(posedge clock) begin
   if (loading) load_idx <= load_idx + 8'd1;
   else if (cfg_wr) begin
      case (cfg_addr)
         8'h80: cfg_vl_high_limit <= cfg_data[7:0];
         8'h81: cfg_low_policy <= cfg_data[0];
         8'h82: cfg_vl_enable <= cfg_data[VLS-1:0];
         8'h83: cfg_refresh <= cfg_data;
         8'h84: cfg_min_gap <= cfg_data;
         8'h85: cfg_update_periods <= cfg_data;
         8'h86: cfg_overrun_periods <= cfg_data;
         default: ;
      endcase
   end
end
// The failsafe takes its thresholds at a reset, as its model does; between resets they hold.
wire [15:0] fs_update_in = port_reset ? cfg_update_periods : fs_update_periods;
wire [15:0] fs_overrun_in = port_reset ? cfg_overrun_periods : fs_overrun_periods;
always @(posedge clock) begin
   fs_update_periods <= fs_update_in;
   fs_overrun_periods <= fs_overrun_in;
   acc_vl_q <= lrx$acc_vl;
end
// The credit check is registered: it speaks for the previous clock's head. So a head
// counts only if it was there the clock before (txq_valid_q) and was not popped then
// (taken_mask): a new head after an empty queue, or after a pop, waits a clock.
wire [VLS-1:0] take_hit = ltx$take ? {{(VLS-1){1'b0}}, 1'b1} << arb$offer_vl : {VLS{1'b0}};
always @(posedge clock) begin
   taken_mask <= take_hit;
   txq_valid_q <= txq_valid;
end

// NP of each head packet: ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16 (SPEC.md 1).
// (An 11-bit sum: PktLen is at most 1048, so it never wraps for a valid packet.)
wire [7*VLS-1:0] head_np;
genvar g;
generate
   for (g = 0; g < VLS; g = g + 1) begin : np
      wire [10:0] sum = txq_len[11*g +: 11] + 11'd13;
      assign head_np[7*g +: 7] = sum[10:4];
      // sum[3:0] is the remainder of the division by 16: not needed.
      /* verilator lint_off UNUSEDSIGNAL */
      wire [3:0] unused_rem = sum[3:0];
      /* verilator lint_on UNUSEDSIGNAL */
   end
endgenerate

// Transmit side.
always @(*) begin
   txc$clock = clock;
   txc$reset = port_reset;
   txc$head_blocks = head_np;
   txc$send = ltx$take;
   txc$send_vl = arb$offer_vl;
   txc$fcp_valid = fcprx$upd_valid;
   txc$fcp_vl = fcprx$upd_vl;
   txc$fcp_fccl = fcprx$upd_fccl;

   arb$clock = clock;
   arb$reset = port_reset;
   arb$head_valid = txq_valid & txq_valid_q & txc$credit_ok & ~taken_mask;
   arb$head_len = txq_len;
   arb$take = ltx$take;
   arb$wr_en = loading | cfg_table_wr;
   arb$wr_table = loading ? ld_low : cfg_addr[6];
   arb$wr_index = loading ? ld_index : cfg_addr[5:0];
   arb$wr_vl = loading ? ld_vl : cfg_data[11:8];
   arb$wr_weight = loading ? ld_weight : cfg_data[7:0];
   arb$vl_high_limit = cfg_vl_high_limit;
   arb$low_policy = cfg_low_policy;
   arb$vl_enable = cfg_vl_enable;

   fcptx$clock = clock;
   fcptx$restart = reset;
   fcptx$link_state = link_state;
   fcptx$refresh_clocks = cfg_refresh;
   fcptx$min_gap_clocks = cfg_min_gap;
   fcptx$fctbs = txc$fctbs_bus;
   fcptx$fccl = rxc$fccl;
   fcptx$fcp_start = ltx$fcp_start;

   ltx$clock = clock;
   ltx$reset = port_reset;
   ltx$link_active = link_active;
   ltx$vl15_valid = vl15_valid;
   ltx$vl15_len = vl15_len;
   ltx$fcp_pending = fcptx$fcp_pending;
   ltx$fcp_valid = fcptx$fcp_valid;
   ltx$fcp_data = fcptx$fcp_data;
   ltx$fcp_keep = fcptx$fcp_keep;
   ltx$fcp_sop = fcptx$fcp_sop;
   ltx$fcp_eop = fcptx$fcp_eop;
   ltx$offer_valid = arb$offer_valid;
   ltx$offer_vl = arb$offer_vl;
   ltx$offer_len = arb$offer_pkt_len;
   ltx$src_data = src_data;

   txq_pop = take_hit;
   vl15_pop = ltx$vl15_take;
   src_rd = ltx$src_rd;
   src_vl = ltx$src_vl;
   tx_valid = ltx$tx_valid;
   tx_data = ltx$tx_data;
   tx_keep = ltx$tx_keep;
   tx_sop = ltx$tx_sop;
   tx_eop = ltx$tx_eop;
   tx_link = ltx$tx_link;
   // The arbiter's fields mean something only with a grant: zero otherwise.
   grant = ltx$take;
   grant_vl = ltx$take ? arb$offer_vl : 4'd0;
   grant_table = ltx$take & arb$offer_table;
   grant_entry = ltx$take ? arb$offer_entry : 6'd0;
   grant_blocks = ltx$take ? arb$offer_blocks : 8'd0;
   grant_weight_left = ltx$take ? arb$offer_weight_left : 9'd0;
   grant_high_counter = ltx$take ? arb$offer_high_counter : 19'd0;
   tx_vl15_starts = ltx$vl15_starts;
   tx_fcp_starts = ltx$fcp_starts;
   tx_data_starts = ltx$data_starts;
   fcp_framing_error = ltx$fcp_framing_error;
   cfg_busy = loading;
end

// Receive side.
always @(*) begin
   fcprx$clock = clock;
   fcprx$reset = port_reset;
   fcprx$rx_valid = rx_valid;
   fcprx$rx_data = rx_data;
   fcprx$rx_keep = rx_keep;
   fcprx$rx_sop = rx_sop;
   fcprx$rx_eop = rx_eop;
   fcprx$rx_link = rx_link;
   lrx$clock = clock;
   lrx$reset = port_reset;
   lrx$rx_valid = rx_valid;
   lrx$rx_data = rx_data;
   lrx$rx_keep = rx_keep;
   lrx$rx_sop = rx_sop;
   lrx$rx_eop = rx_eop;
   lrx$rx_link = rx_link;

   rxc$clock = clock;
   rxc$reset = port_reset;
   rxc$accept = lrx$acc_valid;
   rxc$accept_vl = lrx$acc_vl;
   rxc$accept_blocks = lrx$acc_blocks;
   rxc$drain = drain;
   rxc$drain_vl = drain_vl;
   rxc$drain_blocks = drain_blocks;
   rxc$fcp_valid = fcprx$upd_valid;
   rxc$fcp_vl = fcprx$upd_vl;
   rxc$fcp_fctbs = fcprx$upd_fctbs;

   vl15$clock = clock;
   vl15$reset = port_reset;
   vl15$accept = lrx$vl15_accept;
   vl15$drain = vl15_drain;

   rx_out_valid = lrx$out_valid;
   rx_out_data = lrx$out_data;
   rx_out_keep = lrx$out_keep;
   rx_out_sop = lrx$out_sop;
   rx_out_eop = lrx$out_eop;
   rx_out_vl = lrx$out_vl;
   rx_out_abort = lrx$out_abort;
   rx_done = lrx$done;
   rx_done_status = lrx$done_status;
   rx_commit = rxc$accepted | vl15$kept;
   rx_overrun = rxc$dropped | vl15$dropped;
   fccl = rxc$fccl;
   overruns = rxc$overruns;
   fcp_good_count = fcprx$good_count;
   fcp_short_count = fcprx$short_count;
   fcp_long_count = fcprx$long_count;
   fcp_abort_count = fcprx$abort_count;
   fcp_lpcrc_error_count = fcprx$lpcrc_error_count;
   fcp_reserved_op_count = fcprx$reserved_op_count;
   fcp_vl15_count = fcprx$vl15_count;
   fcp_vl_cap_count = fcprx$vl_cap_count;
   rx_good_count = lrx$good_count;
   rx_vcrc_error_count = lrx$vcrc_error_count;
   rx_length_error_count = lrx$length_error_count;
   rx_bad_vl_count = lrx$bad_vl_count;
   rx_abort_count = lrx$abort_count;
   vl15_held = vl15$held;
   vl15_drop_count = vl15$drop_count;
end

// Failsafe (SPEC.md 8): the FC-update monitor and the overrun threshold request a resync;
// the system around the port retrains the link (drives `reset` / `link_state`).
always @(*) begin
   fs$clock = clock;
   fs$reset = port_reset;
   fs$upd_valid = fcprx$upd_valid;
   fs$upd_vl = fcprx$upd_vl;
   fs$overrun = rxc$dropped;
   fs$overrun_vl = acc_vl_q;
   fs$period_clocks = FCP_PERIOD_CLOCKS;
   fs$update_periods = fs_update_in;
   fs$overrun_periods = fs_overrun_in;
   resync_req = fs$resync_req;
   resync_reason = fs$resync_reason;
   resync_vl = fs$resync_vl;
   fcp_late = fs$fcp_late;
   fctbs = txc$fctbs_bus;
end

// Not needed at the port: the op of a good FCP (the credit blocks take any), the VL of
// the pending FCP, and the link flag of FCP words (the mux marks them itself).
/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, fcprx$upd_op, fcptx$pending_vl, fcptx$fcp_link, fs$overrun_seen, fs$overrun_run, 1'b0};
/* verilator lint_on UNUSEDSIGNAL */
",
    );
    v
}

/// Names of the 16-bit statistics outputs, in [`LinkPortOut::counters`] order.
pub const COUNTERS: [&str; 18] = [
    "fcp_good_count",
    "fcp_short_count",
    "fcp_long_count",
    "fcp_abort_count",
    "fcp_lpcrc_error_count",
    "fcp_reserved_op_count",
    "fcp_vl15_count",
    "fcp_vl_cap_count",
    "rx_good_count",
    "rx_vcrc_error_count",
    "rx_length_error_count",
    "rx_bad_vl_count",
    "rx_abort_count",
    "vl15_drop_count",
    "tx_vl15_starts",
    "tx_fcp_starts",
    "tx_data_starts",
    "vl15_held",
];

/// One clock of the port's inputs (fields of VLs at or above VLCap are ignored).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkPortIn {
    pub reset: bool,
    pub link_state: u8,
    pub txq_valid: u16,
    pub txq_len: [u16; MAX_VLS],
    pub vl15_valid: bool,
    pub vl15_len: u16,
    pub src_data: u64,
    pub rx_valid: bool,
    pub rx_data: u64,
    pub rx_keep: u8,
    pub rx_sop: bool,
    pub rx_eop: bool,
    pub rx_link: bool,
    pub drain: bool,
    pub drain_vl: u8,
    pub drain_blocks: u8,
    pub vl15_drain: bool,
    pub cfg_wr: bool,
    pub cfg_addr: u8,
    pub cfg_data: u16,
}

/// The port's outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkPortOut {
    pub txq_pop: u16,
    pub vl15_pop: bool,
    pub src_rd: bool,
    pub src_vl: u8,
    pub tx_valid: bool,
    pub tx_data: u64,
    pub tx_keep: u8,
    pub tx_sop: bool,
    pub tx_eop: bool,
    pub tx_link: bool,
    pub rx_out_valid: bool,
    pub rx_out_data: u64,
    pub rx_out_keep: u8,
    pub rx_out_sop: bool,
    pub rx_out_eop: bool,
    pub rx_out_vl: u8,
    pub rx_out_abort: bool,
    pub rx_done: bool,
    pub rx_done_status: u8,
    pub rx_commit: bool,
    pub rx_overrun: bool,
    pub cfg_busy: bool,
    pub grant: bool,
    pub grant_vl: u8,
    pub grant_table: bool,
    pub grant_entry: u8,
    pub grant_blocks: u8,
    /// Two's complement, 9 bits.
    pub grant_weight_left: u16,
    /// Two's complement, 19 bits.
    pub grant_high_counter: u32,
    pub fccl: [u16; MAX_VLS],
    pub overruns: [u16; MAX_VLS],
    /// [`COUNTERS`], in order.
    pub counters: [u16; 18],
    pub fcp_framing_error: bool,
    pub resync_req: bool,
    /// 0 = no FC update (update monitor), 1 = overrun threshold.
    pub resync_reason: u8,
    pub resync_vl: u8,
    pub fcp_late: u16,
    pub fctbs: [u16; MAX_VLS],
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize>
    crate::io::HdlIo for LinkPortUnit<N, W, K, HB, HL, FB, OW>
{
    type In = LinkPortIn;
    type Out = LinkPortOut;
    const INPUTS: &'static [crate::io::PortSpec] = &port_specs::INPUTS;
    const OUTPUTS: &'static [crate::io::PortSpec] = &port_specs::OUTPUTS;

    fn clock(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
    fn drive(&mut self, i: &LinkPortIn) {
        let mut w = [0u64; 3];
        pack_fields(&i.txq_len[..N], 11, &mut w);
        let km = (1u64 << K) - 1;
        self.reset.next = i.reset;
        self.link_state.next = (i.link_state as u64 & 3).into();
        self.txq_valid.next = (i.txq_valid as u64 & ((1 << N) - 1)).into();
        self.txq_len.next = bits_from_words::<HL>(&w);
        self.vl15_valid.next = i.vl15_valid;
        self.vl15_len.next = (i.vl15_len as u64 & 0x7ff).into();
        self.src_data.next = (i.src_data & crate::crc16::mask(W)).into();
        self.rx_valid.next = i.rx_valid;
        self.rx_data.next = (i.rx_data & crate::crc16::mask(W)).into();
        self.rx_keep.next = (i.rx_keep as u64 & km).into();
        self.rx_sop.next = i.rx_sop;
        self.rx_eop.next = i.rx_eop;
        self.rx_link.next = i.rx_link;
        self.drain.next = i.drain;
        self.drain_vl.next = (i.drain_vl as u64 & 0xf).into();
        self.drain_blocks.next = (i.drain_blocks as u64 & 0x7f).into();
        self.vl15_drain.next = i.vl15_drain;
        self.cfg_wr.next = i.cfg_wr;
        self.cfg_addr.next = (i.cfg_addr as u64).into();
        self.cfg_data.next = (i.cfg_data as u64).into();
    }
    fn sample(&self) -> LinkPortOut {
        let mut fccl = [0u16; MAX_VLS];
        let mut overruns = [0u16; MAX_VLS];
        let fw = read_words::<FB>(&self.fccl.val());
        let ow = read_words::<OW>(&self.overruns.val());
        let tw = read_words::<FB>(&self.fctbs.val());
        let mut fctbs = [0u16; MAX_VLS];
        for v in 0..N {
            fccl[v] = field(&fw, v, 12) as u16;
            overruns[v] = field(&ow, v, 16) as u16;
            fctbs[v] = field(&tw, v, 12) as u16;
        }
        let c = |s: &Signal<Out, Bits<16>>| s.val().to_u64() as u16;
        LinkPortOut {
            txq_pop: self.txq_pop.val().to_u64() as u16,
            vl15_pop: self.vl15_pop.val(),
            src_rd: self.src_rd.val(),
            src_vl: self.src_vl.val().to_u64() as u8,
            tx_valid: self.tx_valid.val(),
            tx_data: self.tx_data.val().to_u64(),
            tx_keep: self.tx_keep.val().to_u64() as u8,
            tx_sop: self.tx_sop.val(),
            tx_eop: self.tx_eop.val(),
            tx_link: self.tx_link.val(),
            rx_out_valid: self.rx_out_valid.val(),
            rx_out_data: self.rx_out_data.val().to_u64(),
            rx_out_keep: self.rx_out_keep.val().to_u64() as u8,
            rx_out_sop: self.rx_out_sop.val(),
            rx_out_eop: self.rx_out_eop.val(),
            rx_out_vl: self.rx_out_vl.val().to_u64() as u8,
            rx_out_abort: self.rx_out_abort.val(),
            rx_done: self.rx_done.val(),
            rx_done_status: self.rx_done_status.val().to_u64() as u8,
            rx_commit: self.rx_commit.val(),
            rx_overrun: self.rx_overrun.val(),
            cfg_busy: self.cfg_busy.val(),
            grant: self.grant.val(),
            grant_vl: self.grant_vl.val().to_u64() as u8,
            grant_table: self.grant_table.val(),
            grant_entry: self.grant_entry.val().to_u64() as u8,
            grant_blocks: self.grant_blocks.val().to_u64() as u8,
            grant_weight_left: self.grant_weight_left.val().to_u64() as u16,
            grant_high_counter: self.grant_high_counter.val().to_u64() as u32,
            fccl,
            overruns,
            counters: [
                c(&self.fcp_good_count),
                c(&self.fcp_short_count),
                c(&self.fcp_long_count),
                c(&self.fcp_abort_count),
                c(&self.fcp_lpcrc_error_count),
                c(&self.fcp_reserved_op_count),
                c(&self.fcp_vl15_count),
                c(&self.fcp_vl_cap_count),
                c(&self.rx_good_count),
                c(&self.rx_vcrc_error_count),
                c(&self.rx_length_error_count),
                c(&self.rx_bad_vl_count),
                c(&self.rx_abort_count),
                c(&self.vl15_drop_count),
                c(&self.tx_vl15_starts),
                c(&self.tx_fcp_starts),
                c(&self.tx_data_starts),
                self.vl15_held.val().to_u64() as u16,
            ],
            fcp_framing_error: self.fcp_framing_error.val(),
            resync_req: self.resync_req.val(),
            resync_reason: self.resync_reason.val() as u8,
            resync_vl: self.resync_vl.val().to_u64() as u8,
            fcp_late: self.fcp_late.val().to_u64() as u16,
            fctbs,
        }
    }
    fn pack(i: &LinkPortIn, slots: &mut [u64]) {
        let mut s = slots.iter_mut();
        let mut put = |x: u64| *s.next().expect("slot") = x;
        put(i.reset as u64);
        put(i.link_state as u64 & 3);
        put(i.txq_valid as u64 & ((1 << N) - 1));
        let mut w = [0u64; 3];
        pack_fields(&i.txq_len[..N], 11, &mut w);
        for x in w.iter().take(HL.div_ceil(64)) {
            put(*x);
        }
        put(i.vl15_valid as u64);
        put(i.vl15_len as u64 & 0x7ff);
        put(i.src_data & crate::crc16::mask(W));
        put(i.rx_valid as u64);
        put(i.rx_data & crate::crc16::mask(W));
        put(i.rx_keep as u64 & ((1 << K) - 1));
        put(i.rx_sop as u64);
        put(i.rx_eop as u64);
        put(i.rx_link as u64);
        put(i.drain as u64);
        put(i.drain_vl as u64 & 0xf);
        put(i.drain_blocks as u64 & 0x7f);
        put(i.vl15_drain as u64);
        put(i.cfg_wr as u64);
        put(i.cfg_addr as u64);
        put(i.cfg_data as u64);
    }
    fn unpack(slots: &[u64]) -> LinkPortOut {
        let mut s = slots.iter().copied();
        let mut get = || s.next().expect("slot");
        let mut o = LinkPortOut {
            txq_pop: get() as u16,
            vl15_pop: get() != 0,
            src_rd: get() != 0,
            src_vl: get() as u8,
            tx_valid: get() != 0,
            tx_data: get(),
            tx_keep: get() as u8,
            tx_sop: get() != 0,
            tx_eop: get() != 0,
            tx_link: get() != 0,
            rx_out_valid: get() != 0,
            rx_out_data: get(),
            rx_out_keep: get() as u8,
            rx_out_sop: get() != 0,
            rx_out_eop: get() != 0,
            rx_out_vl: get() as u8,
            rx_out_abort: get() != 0,
            rx_done: get() != 0,
            rx_done_status: get() as u8,
            rx_commit: get() != 0,
            rx_overrun: get() != 0,
            cfg_busy: get() != 0,
            grant: get() != 0,
            grant_vl: get() as u8,
            grant_table: get() != 0,
            grant_entry: get() as u8,
            grant_blocks: get() as u8,
            grant_weight_left: get() as u16,
            grant_high_counter: get() as u32,
            ..Default::default()
        };
        let fw: Vec<u64> = (0..FB.div_ceil(64)).map(|_| get()).collect();
        let ow: Vec<u64> = (0..OW.div_ceil(64)).map(|_| get()).collect();
        for v in 0..N {
            o.fccl[v] = field(&fw, v, 12) as u16;
            o.overruns[v] = field(&ow, v, 16) as u16;
        }
        for c in o.counters.iter_mut() {
            *c = get() as u16;
        }
        o.fcp_framing_error = get() != 0;
        o.resync_req = get() != 0;
        o.resync_reason = get() as u8;
        o.resync_vl = get() as u8;
        o.fcp_late = get() as u16;
        let tw: Vec<u64> = (0..FB.div_ceil(64)).map(|_| get()).collect();
        for v in 0..N {
            o.fctbs[v] = field(&tw, v, 12) as u16;
        }
        o
    }
}

/// Port order for the Verilator bridge: must match `pack`/`unpack` above.
mod port_specs {
    use crate::io::PortSpec;
    pub const INPUTS: [PortSpec; 20] = [
        PortSpec::new("reset"),
        PortSpec::new("link_state"),
        PortSpec::new("txq_valid"),
        PortSpec::new("txq_len"),
        PortSpec::new("vl15_valid"),
        PortSpec::new("vl15_len"),
        PortSpec::new("src_data"),
        PortSpec::new("rx_valid"),
        PortSpec::new("rx_data"),
        PortSpec::new("rx_keep"),
        PortSpec::new("rx_sop"),
        PortSpec::new("rx_eop"),
        PortSpec::new("rx_link"),
        PortSpec::new("drain"),
        PortSpec::new("drain_vl"),
        PortSpec::new("drain_blocks"),
        PortSpec::new("vl15_drain"),
        PortSpec::new("cfg_wr"),
        PortSpec::new("cfg_addr"),
        PortSpec::new("cfg_data"),
    ];
    pub const OUTPUTS: [PortSpec; 55] = [
        PortSpec::new("txq_pop"),
        PortSpec::new("vl15_pop"),
        PortSpec::new("src_rd"),
        PortSpec::new("src_vl"),
        PortSpec::new("tx_valid"),
        PortSpec::new("tx_data"),
        PortSpec::new("tx_keep"),
        PortSpec::new("tx_sop"),
        PortSpec::new("tx_eop"),
        PortSpec::new("tx_link"),
        PortSpec::new("rx_out_valid"),
        PortSpec::new("rx_out_data"),
        PortSpec::new("rx_out_keep"),
        PortSpec::new("rx_out_sop"),
        PortSpec::new("rx_out_eop"),
        PortSpec::new("rx_out_vl"),
        PortSpec::new("rx_out_abort"),
        PortSpec::new("rx_done"),
        PortSpec::new("rx_done_status"),
        PortSpec::new("rx_commit"),
        PortSpec::new("rx_overrun"),
        PortSpec::new("cfg_busy"),
        PortSpec::new("grant"),
        PortSpec::new("grant_vl"),
        PortSpec::new("grant_table"),
        PortSpec::new("grant_entry"),
        PortSpec::new("grant_blocks"),
        PortSpec::new("grant_weight_left"),
        PortSpec::new("grant_high_counter"),
        PortSpec::new("fccl"),
        PortSpec::new("overruns"),
        PortSpec::new("fcp_good_count"),
        PortSpec::new("fcp_short_count"),
        PortSpec::new("fcp_long_count"),
        PortSpec::new("fcp_abort_count"),
        PortSpec::new("fcp_lpcrc_error_count"),
        PortSpec::new("fcp_reserved_op_count"),
        PortSpec::new("fcp_vl15_count"),
        PortSpec::new("fcp_vl_cap_count"),
        PortSpec::new("rx_good_count"),
        PortSpec::new("rx_vcrc_error_count"),
        PortSpec::new("rx_length_error_count"),
        PortSpec::new("rx_bad_vl_count"),
        PortSpec::new("rx_abort_count"),
        PortSpec::new("vl15_drop_count"),
        PortSpec::new("tx_vl15_starts"),
        PortSpec::new("tx_fcp_starts"),
        PortSpec::new("tx_data_starts"),
        PortSpec::new("vl15_held"),
        PortSpec::new("fcp_framing_error"),
        PortSpec::new("resync_req"),
        PortSpec::new("resync_reason"),
        PortSpec::new("resync_vl"),
        PortSpec::new("fcp_late"),
        PortSpec::new("fctbs"),
    ];
}
