//! The link port: every link-layer block of one InfiniBand port composed (docs/spec.md §2–§7).
//!
//! Transmit: the user's per-VL queues → [`crate::tx_credits`] (credit check) →
//! [`crate::vl_arb`] (data-VL arbitration) → [`crate::link_tx`] (VL15 > FCP > data, VCRC)
//! → the link word stream, with [`crate::fcp_tx`] building FCPs from this port's FCTBS and
//! FCCL. Receive: the link word stream → [`crate::fcp_rx`] (FCPs: ABR := FCTBS, CL := FCCL)
//! and [`crate::link_rx`] (LRH, length, VCRC, VL) → [`crate::rx_credits`] /
//! [`crate::vl15_rx`] → the user's receive buffer.
//!
//! Each block keeps its own cycle contract (see its module). The port is described once,
//! in [`netlist`]: its instances and what drives each input. From that description come
//! the Rust stepper [`LinkPortTwin`] (the blocks' twins called in a fixed order) and the
//! emitted Verilog top: one parameterised module `iblink_link_port` for every
//! configuration, which instantiates each block's module by named ports
//! (`iblink_tx_credits #(.VLS(VLS)) txc (...)`), with a file list `iblink_link_port.f`
//! naming every file it needs. A configuration (`iblink_link_port_vl<N>_w<W>`) is that
//! module with its parameters set.
//!
//! Three descriptions of the port, each for one job: [`netlist`] (the stepper and the
//! Verilog top, one text); `PortCycleModel` (`crates/sim/src/blocks/link_port_model.rs`),
//! the blocks' reference models wired as the port, sharing with the RTL only the In/Out
//! records and the blocks' documented latencies, the lockstep's oracle
//! (`crates/sim/tests/lockstep/link_port.rs`); and `iblink_model::port::PortPair`, the
//! item-level model the system runs are judged against. The back ends and the two-port
//! bench are in `crates/sim/src/blocks/link_port.rs`, the lockstep's random stimulus in
//! `crates/sim/src/blocks/link_port_stimulus.rs`; the failsafe's requests through the
//! whole port in `crates/sim/tests/lockstep/link_port_failsafe.rs`.
//!
//! # User interface (VLCap `N`, `W`-bit link words, `K = W/8` lanes)
//! | port | dir | meaning |
//! |---|---|---|
//! | `reset` | in | link init / resync (docs/spec.md §8): credits, arbiter pointers, FCP timers and both paths restart; configuration registers are kept. `link_state` = Down acts as a held reset |
//! | `link_state[2]` | in | [`crate::link`] codes: Down, LinkInitialize (FCP Op 1, no data), LinkArm (Op 0, no data), LinkActive (data flows) |
//! | `txq_valid[N]`, `txq_len[11N]` | in | per data VL: the head packet of the user's transmit queue and its LRH:PktLen |
//! | `txq_pop[N]` | out | one-hot pulse: that head packet started (pop its descriptor) |
//! | `vl15_valid`, `vl15_len[11]`, `vl15_pop` | in/in/out | the same for the VL15 (management) queue |
//! | `src_rd`, `src_vl[4]`, `src_data[W]` | out/out/in | packet words: the queue `src_vl` (15 = VL15) presents its next word on `src_data` (first-word fall-through); `src_rd` consumes it |
//! | `m_axis_phy_tdata[W]`, `m_axis_phy_tkeep[W/8]`, `m_axis_phy_tvalid`, `m_axis_phy_tlast`, `m_axis_phy_tuser[2]` | out | the transmit link word stream, AXI4-Stream: `tlast` on an item's last word, `tuser` [`TUSER_START`] on its first, [`TUSER_LINK`] on every word of a link packet (an FCP) |
//! | `m_axis_phy_tready` | in | the PHY takes the word this clock (backpressure, e.g. an IB PHY's SKIP ordered sets); a word holds, whole, while it is low. Items stay whole and in order, priorities are decided at item boundaries, timers count every clock (docs/spec.md §10; [`crate::link_tx`]). Tie high for a wire that never stalls |
//! | `s_axis_phy_tdata[W]`, `s_axis_phy_tkeep[W/8]`, `s_axis_phy_tvalid`, `s_axis_phy_tlast`, `s_axis_phy_tuser[2]` | in | the receive link word stream, the same encoding (no `tready`: a PHY's receive side cannot wait) |
//! | `rx_out_valid/data/keep/sop/eop/vl`, `rx_out_abort` | out | received data and VL15 packets, VCRC kept, for the user's receive buffer ([`crate::link_rx`]) |
//! | `rx_done`, `rx_done_status[2]` | out | the verdict on the last delivered packet (0 good, 1 VCRC, 2 length, 3 bad VL) |
//! | `rx_commit`, `rx_overrun` | out | the clock after a good `rx_done`: keep the packet, or drop it (credit overrun, or VL15 buffer full) |
//! | `drain`, `drain_vl[4]`, `drain_blocks[7]`, `vl15_drain` | in | the higher layer took a packet out of the receive buffer of a data VL / VL15 |
//! | `cfg_wr`, `cfg_addr[8]`, `cfg_data[16]` | in | configuration write (map below) |
//! | `cfg_busy` | out | the arbitration tables are being loaded from the generated configuration (after power-up); `cfg_wr` is ignored meanwhile |
//! | `grant`, `grant_vl[4]`, `grant_table`, `grant_entry[6]`, `grant_blocks[8]`, `grant_weight_left[9]`, `grant_high_counter[19]` | out | a data packet started, with the arbiter's decision (the `iblink arb-trace` numbers) |
//! | `fccl[12N]`, `overruns[16N]` | out | each VL's FCCL (what this port advertises) and buffer overruns |
//! | `fctbs[12N]` | out | each VL's FCTBS (blocks sent since link init), as advertised in this port's FCPs |
//! | `resync_req`, `resync_reason`, `resync_vl[4]` | out | the failsafe ([`crate::failsafe`], docs/spec.md §8) requests a link resync: a one-clock strobe; reason 0 = no FC update for `resync_vl`, 1 = overrun threshold. The port does not retrain itself: the link logic around it resets both ends (`reset`, then LinkInitialize until init FCPs have crossed, then LinkActive). The FCP period is 65,536 symbol times (16384 clocks at 32 bits, 8192 at 64) |
//! | `fcp_late[N]` | out | no FCP for that VL for more than one FCP period |
//! | counters | out | `fcp_*_count`, `rx_*_count`, `vl15_drop_count`, `tx_*_starts` (16 bits, saturating or wrapping as their block says) and `fcp_framing_error` |
//!
//! The configuration map (`cfg_addr`) and why a new head is hidden for a clock are in
//! [`crate::port_ctrl`], which holds the port's own registers.
//!
//! Cost: with packets of 4 clocks (minimum PktLen at 64 bits) from a
//! single VL the arbiter decides one clock later than the packet ends — one idle clock;
//! packets of 5 clocks or more, and any mix of VLs, go back to back.

use crate::rx_credits::DEFAULT_CAPACITY;
use crate::vl::MAX_VLS;
use rust_hdl::prelude::*;

pub mod netlist;
pub use netlist::{LinkPortNets, LinkPortTwin};
pub use crate::port_ctrl::{
    np_of,
    CFG_HIGH, CFG_LOW, CFG_LOW_POLICY, CFG_MIN_GAP, CFG_OVERRUN_PERIODS, CFG_REFRESH, CFG_UPDATE_PERIODS,
    CFG_VL_ENABLE, CFG_VL_HIGH_LIMIT,
};

/// Entries per VLArbitrationTable.
pub const TABLE_ENTRIES: usize = 64;

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
    /// Failsafe (docs/spec.md §8): resync when no FCP arrives for a VL for more than this many
    /// FCP periods (0 = monitor off).
    pub update_periods: u16,
    /// Failsafe: resync when a VL has overruns in more than this many consecutive periods.
    pub overrun_periods: u16,
}

/// Port values no block is generated for.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    #[error("VLCap {vls} with {width}-bit link words is not generated: VLCap 1, 2, 4, 8 or 15, width 32 or 64")]
    Variant { vls: usize, width: usize },
    #[error("a receive buffer of {0} blocks is not supported: 66..=4095 blocks per VL")]
    Capacity(u16),
    #[error("a VL15 buffer of {0} packets is not supported: 1..=255 packets")]
    Vl15Capacity(usize),
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

    /// Whether the blocks are generated for these values.
    pub fn check(&self) -> Result<(), ParamError> {
        if !crate::vl::VL_CAPS.contains(&self.vl_cap) || !crate::link_rx::WIDTHS.contains(&self.width) {
            return Err(ParamError::Variant { vls: self.vl_cap, width: self.width });
        }
        if !(crate::rx_credits::MIN_CAPACITY..=crate::rx_credits::MAX_CAPACITY).contains(&self.buffer_blocks) {
            return Err(ParamError::Capacity(self.buffer_blocks));
        }
        if !(crate::vl15_rx::MIN_CAPACITY..=crate::vl15_rx::MAX_CAPACITY).contains(&self.vl15_packets) {
            return Err(ParamError::Vl15Capacity(self.vl15_packets));
        }
        Ok(())
    }

    /// The table writes the loader makes after power-up: (low table?, index, VL, weight).
    pub fn load_sequence(&self) -> Vec<(bool, u8, u8, u8)> {
        let hi = self.high.iter().enumerate().map(|(i, &(v, w))| (false, i as u8, v, w));
        let lo = self.low.iter().enumerate().map(|(i, &(v, w))| (true, i as u8, v, w));
        hi.chain(lo).collect()
    }
}

crate::hdl_block! {
    /// The link port for VLCap `N` and `W`-bit words. `K = W/8`, `HB = 7N`, `HL = 11N`,
    /// `FB = 12N`, `OW = 16N` (the packed per-VL buses). Its `update` runs
    /// [`LinkPortTwin`]; its `hdl()` instantiates the generated top.
    pub struct LinkPortUnit<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize> {
        twin: LinkPortTwin,
        params: PortParams,
    }
    check: K * 8 == W && HB == 7 * N && HL == 11 * N && FB == 12 * N && OW == 16 * N;
    default: Self::new(PortParams::defaults(N, W));
    hdl: |u| {
        let v = netlist::variant(&u.params).expect("a generated port configuration");
        let cores: Vec<&str> = v.modules[1..].iter().map(|m| m.text.as_str()).collect();
        crate::emit::rust_hdl_wrapper(u, &v.top, &v.params, &format!("{}\n{}", v.modules[0].text, cores.join("\n")))
    };
    ports(i: LinkPortIn, o: LinkPortOut) {
        reset: in Bit = i.reset;
        link_state: in Bits<2> = i.link_state;
        txq_valid: in Bits<N> = i.txq_valid;
        txq_len: in Bits<HL> = i.txq_len, each 11;
        txq_pop: out Bits<N> = o.txq_pop;
        vl15_valid: in Bit = i.vl15_valid;
        vl15_len: in Bits<11> = i.vl15_len;
        vl15_pop: out Bit = o.vl15_pop;
        src_rd: out Bit = o.src_rd;
        src_vl: out Bits<4> = o.src_vl;
        src_data: in Bits<W> = i.src_data;
        m_axis_phy_tdata: out Bits<W> = o.m_axis_phy_tdata;
        m_axis_phy_tkeep: out Bits<K> = o.m_axis_phy_tkeep;
        m_axis_phy_tvalid: out Bit = o.m_axis_phy_tvalid;
        m_axis_phy_tready: in Bit = i.m_axis_phy_tready;
        m_axis_phy_tlast: out Bit = o.m_axis_phy_tlast;
        m_axis_phy_tuser: out Bits<2> = o.m_axis_phy_tuser;
        s_axis_phy_tdata: in Bits<W> = i.s_axis_phy_tdata;
        s_axis_phy_tkeep: in Bits<K> = i.s_axis_phy_tkeep;
        s_axis_phy_tvalid: in Bit = i.s_axis_phy_tvalid;
        s_axis_phy_tlast: in Bit = i.s_axis_phy_tlast;
        s_axis_phy_tuser: in Bits<2> = i.s_axis_phy_tuser;
        rx_out_valid: out Bit = o.rx_out_valid;
        rx_out_data: out Bits<W> = o.rx_out_data;
        rx_out_keep: out Bits<K> = o.rx_out_keep;
        rx_out_sop: out Bit = o.rx_out_sop;
        rx_out_eop: out Bit = o.rx_out_eop;
        rx_out_vl: out Bits<4> = o.rx_out_vl;
        rx_out_abort: out Bit = o.rx_out_abort;
        rx_done: out Bit = o.rx_done;
        rx_done_status: out Bits<2> = o.rx_done_status;
        rx_commit: out Bit = o.rx_commit;
        rx_overrun: out Bit = o.rx_overrun;
        drain: in Bit = i.drain;
        drain_vl: in Bits<4> = i.drain_vl;
        drain_blocks: in Bits<7> = i.drain_blocks;
        vl15_drain: in Bit = i.vl15_drain;
        cfg_wr: in Bit = i.cfg_wr;
        cfg_addr: in Bits<8> = i.cfg_addr;
        cfg_data: in Bits<16> = i.cfg_data;
        cfg_busy: out Bit = o.cfg_busy;
        grant: out Bit = o.grant;
        grant_vl: out Bits<4> = o.grant_vl;
        grant_table: out Bit = o.grant_table;
        grant_entry: out Bits<6> = o.grant_entry;
        grant_blocks: out Bits<8> = o.grant_blocks;
        grant_weight_left: out Bits<9> = o.grant_weight_left;
        grant_high_counter: out Bits<19> = o.grant_high_counter;
        fccl: out Bits<FB> = o.fccl, each 12;
        overruns: out Bits<OW> = o.overruns, each 16;
        fcp_good_count: out Bits<16> = o.counters[0];
        fcp_short_count: out Bits<16> = o.counters[1];
        fcp_long_count: out Bits<16> = o.counters[2];
        fcp_abort_count: out Bits<16> = o.counters[3];
        fcp_lpcrc_error_count: out Bits<16> = o.counters[4];
        fcp_reserved_op_count: out Bits<16> = o.counters[5];
        fcp_vl15_count: out Bits<16> = o.counters[6];
        fcp_vl_cap_count: out Bits<16> = o.counters[7];
        rx_good_count: out Bits<16> = o.counters[8];
        rx_vcrc_error_count: out Bits<16> = o.counters[9];
        rx_length_error_count: out Bits<16> = o.counters[10];
        rx_bad_vl_count: out Bits<16> = o.counters[11];
        rx_abort_count: out Bits<16> = o.counters[12];
        vl15_held: out Bits<8> = o.counters[17];
        vl15_drop_count: out Bits<16> = o.counters[13];
        tx_vl15_starts: out Bits<16> = o.counters[14];
        tx_fcp_starts: out Bits<16> = o.counters[15];
        tx_data_starts: out Bits<16> = o.counters[16];
        fcp_framing_error: out Bit = o.fcp_framing_error;
        resync_req: out Bit = o.resync_req;
        resync_reason: out Bit = o.resync_reason;
        resync_vl: out Bits<4> = o.resync_vl;
        fcp_late: out Bits<N> = o.fcp_late;
        fctbs: out Bits<FB> = o.fctbs, each 12;
    }
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize> LinkPortUnit<N, W, K, HB, HL, FB, OW> {
    /// The port generated from `p` (whose `vl_cap` and `width` must be `N` and `W`).
    pub fn new(p: PortParams) -> Self {
        assert!(p.vl_cap == N && p.width == W, "PortParams for VLCap {} x {} bits given to a VLCap {N} x {W} port", p.vl_cap, p.width);
        Self::with_twin(LinkPortTwin::new(&p), p)
    }

    pub fn params(&self) -> &PortParams {
        &self.params
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

/// The link word streams' `tuser` (docs/spec.md §10): the word is an item's first (an
/// IBA start delimiter, SDP or SLP, goes before it) ...
pub const TUSER_START: u8 = 0b10;
/// ... the word belongs to a link packet, an FCP (SLP, not SDP, starts it).
pub const TUSER_LINK: u8 = 0b01;

/// A `tuser` value.
pub fn tuser(start: bool, link: bool) -> u8 {
    (start as u8) << 1 | link as u8
}

/// One clock of the port's inputs (fields of VLs at or above VLCap are ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkPortIn {
    pub reset: bool,
    pub link_state: u8,
    pub txq_valid: u16,
    pub txq_len: [u16; MAX_VLS],
    pub vl15_valid: bool,
    pub vl15_len: u16,
    pub src_data: u64,
    /// The PHY takes the word on `m_axis_phy_*` (AXI4-Stream backpressure, docs/spec.md §10).
    pub m_axis_phy_tready: bool,
    pub s_axis_phy_tdata: u64,
    pub s_axis_phy_tkeep: u8,
    pub s_axis_phy_tvalid: bool,
    /// The item's last word.
    pub s_axis_phy_tlast: bool,
    /// [`TUSER_START`], [`TUSER_LINK`].
    pub s_axis_phy_tuser: u8,
    pub drain: bool,
    pub drain_vl: u8,
    pub drain_blocks: u8,
    pub vl15_drain: bool,
    pub cfg_wr: bool,
    pub cfg_addr: u8,
    pub cfg_data: u16,
}

impl Default for LinkPortIn {
    /// Everything 0, except `m_axis_phy_tready`: a wire that never stalls.
    fn default() -> Self {
        Self {
            reset: false,
            link_state: 0,
            txq_valid: 0,
            txq_len: [0; MAX_VLS],
            vl15_valid: false,
            vl15_len: 0,
            src_data: 0,
            m_axis_phy_tready: true,
            s_axis_phy_tdata: 0,
            s_axis_phy_tkeep: 0,
            s_axis_phy_tvalid: false,
            s_axis_phy_tlast: false,
            s_axis_phy_tuser: 0,
            drain: false,
            drain_vl: 0,
            drain_blocks: 0,
            vl15_drain: false,
            cfg_wr: false,
            cfg_addr: 0,
            cfg_data: 0,
        }
    }
}

/// The port's outputs during a clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkPortOut {
    pub txq_pop: u16,
    pub vl15_pop: bool,
    pub src_rd: bool,
    pub src_vl: u8,
    pub m_axis_phy_tdata: u64,
    pub m_axis_phy_tkeep: u8,
    pub m_axis_phy_tvalid: bool,
    /// The item's last word.
    pub m_axis_phy_tlast: bool,
    /// [`TUSER_START`], [`TUSER_LINK`].
    pub m_axis_phy_tuser: u8,
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

impl LinkPortIn {
    /// The receive word is an item's first.
    pub fn rx_start(&self) -> bool {
        self.s_axis_phy_tuser & TUSER_START != 0
    }

    /// The receive word belongs to a link packet.
    pub fn rx_link(&self) -> bool {
        self.s_axis_phy_tuser & TUSER_LINK != 0
    }
}

impl LinkPortOut {
    /// The transmit word is an item's first.
    pub fn tx_start(&self) -> bool {
        self.m_axis_phy_tuser & TUSER_START != 0
    }

    /// The transmit word belongs to a link packet (an FCP).
    pub fn tx_link(&self) -> bool {
        self.m_axis_phy_tuser & TUSER_LINK != 0
    }
}

