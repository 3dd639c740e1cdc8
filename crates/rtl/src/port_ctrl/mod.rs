//! The link port's own logic between its blocks (docs/spec.md §5, §6, §8): link init, the
//! configuration registers and their power-up loader, the heads the arbiter may see,
//! NP of each head, the pops, the grant report and the receive verdicts.
//!
//! In this folder: the Verilog module `iblink_port_ctrl.v` and here its Rust cycle twin
//! [`PortCtrlTwin`]. It is checked as part of the link port (`crate::link_port`):
//! lockstep of the port against the reference models and Verilator.
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
//! samples, so `head_valid[v]` is low in both clocks (`taken_mask`, and `txq_valid_q`:
//! the head must have been valid the clock before).

use crate::emit::{EmittedModule, VerilogSource};
use crate::io::{Dir, Port};
use crate::link::{LINK_ACTIVE, LINK_DOWN};
use crate::twin::Twin;
use crate::vl::MAX_VLS;

/// The hand-written module.
pub const SOURCE: VerilogSource = VerilogSource {
    module: "iblink_port_ctrl",
    path: "crates/rtl/src/port_ctrl/iblink_port_ctrl.v",
    text: include_str!("iblink_port_ctrl.v"),
};

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
/// Table entries the loader holds at most (64 high + 64 low).
pub const LOAD_MAX: usize = 128;

/// What the module is generated with (its parameters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortCtrlParams {
    pub vls: usize,
    pub period_clocks: u16,
    pub vl_high_limit: u8,
    pub one_packet: bool,
    pub refresh_clocks: u16,
    pub min_gap_clocks: u16,
    pub update_periods: u16,
    pub overrun_periods: u16,
    /// (low table?, index, VL, weight), written one a clock after power-up.
    pub load: Vec<(bool, u8, u8, u8)>,
}

impl PortCtrlParams {
    /// `(parameter, value)` for an instance.
    pub fn verilog_params(&self) -> Vec<(String, String)> {
        let entries: Vec<u64> = self
            .load
            .iter()
            .map(|&(low, i, v, w)| (low as u64) << 18 | ((i as u64) & 0x3f) << 12 | ((v as u64) & 0xf) << 8 | w as u64)
            .collect();
        let mut words = [0u64; LOAD_MAX * 19 / 64 + 1];
        crate::bits::pack_fields(&entries, 19, &mut words);
        let hex: String = (0..19 * LOAD_MAX / 4)
            .rev()
            .map(|n| char::from_digit(crate::bits::field(&words, n, 4) as u32, 16).unwrap())
            .collect();
        let hex = hex.trim_start_matches('0');
        vec![
            ("VLS".into(), self.vls.to_string()),
            ("PERIOD_CLOCKS".into(), self.period_clocks.to_string()),
            ("VL_HIGH_LIMIT".into(), self.vl_high_limit.to_string()),
            ("LOW_POLICY".into(), (self.one_packet as u8).to_string()),
            ("REFRESH_CLOCKS".into(), self.refresh_clocks.to_string()),
            ("MIN_GAP_CLOCKS".into(), self.min_gap_clocks.to_string()),
            ("UPDATE_PERIODS".into(), self.update_periods.to_string()),
            ("OVERRUN_PERIODS".into(), self.overrun_periods.to_string()),
            ("LOAD_LEN".into(), self.load.len().to_string()),
            ("LOAD_TABLE".into(), format!("{}'h{}", 19 * LOAD_MAX, if hex.is_empty() { "0" } else { hex })),
        ]
    }

    /// The module's ports at these parameters, in declaration order.
    pub fn ports(&self) -> Vec<Port> {
        let n = self.vls;
        let i = |name: &str, width: usize| Port { name: name.into(), width, dir: Dir::Input };
        let o = |name: &str, width: usize| Port { name: name.into(), width, dir: Dir::Output };
        vec![
            i("clock", 1),
            i("reset", 1),
            i("link_state", 2),
            i("txq_valid", n),
            i("txq_len", 11 * n),
            i("cfg_wr", 1),
            i("cfg_addr", 8),
            i("cfg_data", 16),
            i("credit_ok", n),
            i("take", 1),
            i("offer_vl", 4),
            i("offer_table", 1),
            i("offer_entry", 6),
            i("offer_blocks", 8),
            i("offer_weight_left", 9),
            i("offer_high_counter", 19),
            i("acc_vl", 4),
            i("accepted", 1),
            i("dropped", 1),
            i("vl15_kept", 1),
            i("vl15_dropped", 1),
            o("port_reset", 1),
            o("link_active", 1),
            o("head_blocks", 7 * n),
            o("head_valid", n),
            o("wr_en", 1),
            o("wr_table", 1),
            o("wr_index", 6),
            o("wr_vl", 4),
            o("wr_weight", 8),
            o("vl_high_limit", 8),
            o("low_policy", 1),
            o("vl_enable", n),
            o("refresh_clocks", 16),
            o("min_gap_clocks", 16),
            o("period_clocks", 16),
            o("update_periods", 16),
            o("overrun_periods", 16),
            o("overrun_vl", 4),
            o("txq_pop", n),
            o("grant", 1),
            o("grant_vl", 4),
            o("grant_table", 1),
            o("grant_entry", 6),
            o("grant_blocks", 8),
            o("grant_weight_left", 9),
            o("grant_high_counter", 19),
            o("rx_commit", 1),
            o("rx_overrun", 1),
            o("cfg_busy", 1),
        ]
    }
}

/// `hdl_out/iblink_port_ctrl.v`.
pub fn module() -> EmittedModule {
    SOURCE.emit(
        "link_port",
        vec![("parameters".into(), "VLS, PERIOD_CLOCKS, the configuration registers' power-up values, LOAD_LEN and LOAD_TABLE".into())],
    )
}

/// One clock of inputs (Rust field = Verilog port).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCtrlIn {
    pub reset: bool,
    pub link_state: u8,
    pub txq_valid: u16,
    pub txq_len: [u16; MAX_VLS],
    pub cfg_wr: bool,
    pub cfg_addr: u8,
    pub cfg_data: u16,
    pub credit_ok: u16,
    pub take: bool,
    pub offer_vl: u8,
    pub offer_table: bool,
    pub offer_entry: u8,
    pub offer_blocks: u16,
    pub offer_weight_left: i16,
    pub offer_high_counter: i32,
    pub acc_vl: u8,
    pub accepted: bool,
    pub dropped: bool,
    pub vl15_kept: bool,
    pub vl15_dropped: bool,
}

/// The outputs during a clock (Rust field = Verilog port).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortCtrlOut {
    pub port_reset: bool,
    pub link_active: bool,
    /// NP of each head packet (7 bits).
    pub head_blocks: [u8; MAX_VLS],
    pub head_valid: u16,
    pub wr_en: bool,
    pub wr_table: bool,
    pub wr_index: u8,
    pub wr_vl: u8,
    pub wr_weight: u8,
    pub vl_high_limit: u8,
    pub low_policy: bool,
    pub vl_enable: u16,
    pub refresh_clocks: u16,
    pub min_gap_clocks: u16,
    pub period_clocks: u16,
    pub update_periods: u16,
    pub overrun_periods: u16,
    pub overrun_vl: u8,
    pub txq_pop: u16,
    pub grant: bool,
    pub grant_vl: u8,
    pub grant_table: bool,
    pub grant_entry: u8,
    pub grant_blocks: u8,
    /// Two's complement, 9 bits.
    pub grant_weight_left: u16,
    /// Two's complement, 19 bits.
    pub grant_high_counter: u32,
    pub rx_commit: bool,
    pub rx_overrun: bool,
    pub cfg_busy: bool,
}

/// The registers.
#[derive(Clone, Debug)]
struct Regs {
    vl_high_limit: u8,
    one_packet: bool,
    vl_enable: u16,
    refresh: u16,
    min_gap: u16,
    cfg_update: u16,
    cfg_overrun: u16,
    fs_update: u16,
    fs_overrun: u16,
    acc_vl_q: u8,
    load_idx: usize,
    taken_mask: u16,
    txq_valid_q: u16,
}

/// Blocks of a packet from its PktLen (docs/spec.md §1), as the TX credit block's 7-bit NP:
/// `ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16`, computed as the Verilog does (an
/// 11-bit sum; PktLen is at most 1048, so it never wraps for a valid packet).
#[inline]
pub const fn np_of(pkt_len: u16) -> u16 {
    ((pkt_len + 13) & 0x7ff) >> 4
}

/// The Rust cycle twin of `iblink_port_ctrl`.
#[derive(Clone, Debug)]
pub struct PortCtrlTwin {
    p: PortCtrlParams,
    vl_mask: u16,
    r: Regs,
}

impl PortCtrlTwin {
    pub fn new(p: PortCtrlParams) -> Self {
        assert!(p.load.len() <= LOAD_MAX, "PortCtrlTwin: {} table entries", p.load.len());
        let vl_mask = ((1u32 << p.vls) - 1) as u16;
        let r = Regs {
            vl_high_limit: p.vl_high_limit,
            one_packet: p.one_packet,
            vl_enable: vl_mask,
            refresh: p.refresh_clocks,
            min_gap: p.min_gap_clocks,
            cfg_update: p.update_periods,
            cfg_overrun: p.overrun_periods,
            fs_update: p.update_periods,
            fs_overrun: p.overrun_periods,
            acc_vl_q: 0,
            load_idx: 0,
            taken_mask: 0,
            txq_valid_q: 0,
        };
        Self { p, vl_mask, r }
    }

    #[inline]
    fn port_reset(i: &PortCtrlIn) -> bool {
        i.reset || i.link_state & 3 == LINK_DOWN
    }

    #[inline]
    fn txq_pop(&self, i: &PortCtrlIn) -> u16 {
        if i.take && (i.offer_vl as usize) < self.p.vls {
            1 << i.offer_vl
        } else {
            0
        }
    }
}

impl Twin for PortCtrlTwin {
    type In = PortCtrlIn;
    type Out = PortCtrlOut;

    fn eval(&self, i: &PortCtrlIn) -> PortCtrlOut {
        let r = &self.r;
        let port_reset = Self::port_reset(i);
        let loading = r.load_idx != self.p.load.len();
        let (wr_en, wr_table, wr_index, wr_vl, wr_weight) = if loading {
            let (low, x, v, w) = self.p.load[r.load_idx];
            (true, low, x & 0x3f, v & 0xf, w)
        } else {
            let a = i.cfg_addr;
            let d = i.cfg_data;
            (i.cfg_wr && a & 0x80 == 0, a & 0x40 != 0, a & 0x3f, ((d >> 8) & 0xf) as u8, d as u8)
        };
        let mut head_blocks = [0u8; MAX_VLS];
        for (v, h) in head_blocks.iter_mut().enumerate().take(self.p.vls) {
            *h = np_of(i.txq_len[v] & 0x7ff) as u8;
        }
        let take = i.take;
        let g = |x: u64| if take { x } else { 0 };
        PortCtrlOut {
            port_reset,
            link_active: i.link_state & 3 == LINK_ACTIVE,
            head_blocks,
            head_valid: i.txq_valid & r.txq_valid_q & i.credit_ok & !r.taken_mask & self.vl_mask,
            wr_en,
            wr_table,
            wr_index,
            wr_vl,
            wr_weight,
            vl_high_limit: r.vl_high_limit,
            low_policy: r.one_packet,
            vl_enable: r.vl_enable,
            refresh_clocks: r.refresh,
            min_gap_clocks: r.min_gap,
            period_clocks: self.p.period_clocks,
            update_periods: if port_reset { r.cfg_update } else { r.fs_update },
            overrun_periods: if port_reset { r.cfg_overrun } else { r.fs_overrun },
            overrun_vl: r.acc_vl_q,
            txq_pop: self.txq_pop(i),
            grant: take,
            grant_vl: g(i.offer_vl as u64 & 0xf) as u8,
            grant_table: take && i.offer_table,
            grant_entry: g(i.offer_entry as u64 & 0x3f) as u8,
            grant_blocks: g(i.offer_blocks as u64 & 0xff) as u8,
            grant_weight_left: g(i.offer_weight_left as u16 as u64 & 0x1ff) as u16,
            grant_high_counter: g(i.offer_high_counter as u32 as u64 & 0x7ffff) as u32,
            rx_commit: i.accepted || i.vl15_kept,
            rx_overrun: i.dropped || i.vl15_dropped,
            cfg_busy: loading,
        }
    }

    fn tick(&mut self, i: &PortCtrlIn) {
        let port_reset = Self::port_reset(i);
        let pop = self.txq_pop(i);
        let r = &mut self.r;
        let loading = r.load_idx != self.p.load.len();
        // The failsafe's thresholds: taken at a reset, held between.
        if port_reset {
            r.fs_update = r.cfg_update;
            r.fs_overrun = r.cfg_overrun;
        }
        if loading {
            r.load_idx += 1;
        } else if i.cfg_wr {
            let d = i.cfg_data;
            match i.cfg_addr {
                CFG_VL_HIGH_LIMIT => r.vl_high_limit = d as u8,
                CFG_LOW_POLICY => r.one_packet = d & 1 == 1,
                CFG_VL_ENABLE => r.vl_enable = d & self.vl_mask,
                CFG_REFRESH => r.refresh = d,
                CFG_MIN_GAP => r.min_gap = d,
                CFG_UPDATE_PERIODS => r.cfg_update = d,
                CFG_OVERRUN_PERIODS => r.cfg_overrun = d,
                _ => {}
            }
        }
        r.acc_vl_q = i.acc_vl & 0xf;
        r.taken_mask = pop;
        r.txq_valid_q = i.txq_valid & self.vl_mask;
    }
}
