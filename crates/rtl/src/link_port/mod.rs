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
//! emitted Verilog top `iblink_link_port_vl<N>_w<W>`, which instantiates each block's
//! module by named ports (`iblink_tx_credits #(.VLS(4)) txc (...)`), with a file list
//! `iblink_link_port_vl<N>_w<W>.f` naming every file it needs.
//!
//! Three descriptions of the port, each for one job: [`netlist`] (the stepper and the
//! Verilog top, one text); `PortCycleModel` (`crates/sim/src/blocks/link_port_model.rs`),
//! the blocks' reference models wired as the port, sharing with the RTL only the In/Out
//! records and the blocks' documented latencies, the lockstep's oracle
//! (`crates/sim/tests/lockstep/link_port.rs`); and `iblink_model::port::PortPair`, the
//! item-level model the system runs are judged against. The back ends, the two-port bench
//! and the random stimulus are in `crates/sim/src/blocks/link_port.rs`; the failsafe's
//! requests through the whole port in `crates/sim/tests/lockstep/link_port_failsafe.rs`.
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

use crate::bits::{bits_from_words, field, pack_fields, read_words};
use crate::io::Opaque;
use crate::twin::Twin;
use crate::rx_credits::DEFAULT_CAPACITY;
use crate::vl::MAX_VLS;
use rust_hdl::prelude::*;

pub mod netlist;
pub use netlist::{LinkPortNets, LinkPortTwin};
pub use crate::port_ctrl::{
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
    pub fctbs: Signal<Out, Bits<FB>>,    twin: Opaque<LinkPortTwin>,
    params: Opaque<PortParams>,
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize> Default for LinkPortUnit<N, W, K, HB, HL, FB, OW> {
    /// The port with [`PortParams::defaults`].
    fn default() -> Self {
        Self::new(PortParams::defaults(N, W))
    }
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize> LinkPortUnit<N, W, K, HB, HL, FB, OW> {
    /// The port generated from `p` (whose `vl_cap` and `width` must be `N` and `W`).
    pub fn new(p: PortParams) -> Self {
        assert!(p.vl_cap == N && p.width == W, "PortParams for VLCap {} x {} bits given to a VLCap {N} x {W} port", p.vl_cap, p.width);
        assert!(K * 8 == W && HB == 7 * N && HL == 11 * N && FB == 12 * N && OW == 16 * N);
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
            twin: Opaque(LinkPortTwin::new(&p)),
            params: Opaque(p),
        }
    }

    pub fn params(&self) -> &PortParams {
        &self.params
    }

    /// The inputs as the twin takes them.
    fn inputs(&self) -> LinkPortIn {
        let lens = read_words::<HL>(&self.txq_len.val());
        let mut txq_len = [0u16; MAX_VLS];
        for (v, x) in txq_len.iter_mut().enumerate().take(N) {
            *x = field(&lens, v, 11) as u16;
        }
        LinkPortIn {
            reset: self.reset.val(),
            link_state: self.link_state.val().to_u64() as u8,
            txq_valid: self.txq_valid.val().to_u64() as u16,
            txq_len,
            vl15_valid: self.vl15_valid.val(),
            vl15_len: self.vl15_len.val().to_u64() as u16,
            src_data: self.src_data.val().to_u64(),
            rx_valid: self.rx_valid.val(),
            rx_data: self.rx_data.val().to_u64(),
            rx_keep: self.rx_keep.val().to_u64() as u8,
            rx_sop: self.rx_sop.val(),
            rx_eop: self.rx_eop.val(),
            rx_link: self.rx_link.val(),
            drain: self.drain.val(),
            drain_vl: self.drain_vl.val().to_u64() as u8,
            drain_blocks: self.drain_blocks.val().to_u64() as u8,
            vl15_drain: self.vl15_drain.val(),
            cfg_wr: self.cfg_wr.val(),
            cfg_addr: self.cfg_addr.val().to_u64() as u8,
            cfg_data: self.cfg_data.val().to_u64() as u16,
        }
    }
}

/// Blocks of a packet from its PktLen (docs/spec.md §1), as the TX credit block's 7-bit NP:
/// `ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16`, computed as the Verilog does (an
/// 11-bit sum; PktLen is at most 1048, so it never wraps for a valid packet).
#[inline]
pub const fn np_of(pkt_len: u16) -> u16 {
    ((pkt_len + 13) & 0x7ff) >> 4
}


impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize> Logic for LinkPortUnit<N, W, K, HB, HL, FB, OW> {
    fn update(&mut self) {
        let i = self.inputs();
        if self.clock.pos_edge() {
            self.twin.tick(&i);
        }
        let o = self.twin.eval(&i);
        self.show(&o);
    }

    fn connect(&mut self) {
        self.txq_pop.connect();
        self.vl15_pop.connect();
        self.src_rd.connect();
        self.src_vl.connect();
        self.tx_valid.connect();
        self.tx_data.connect();
        self.tx_keep.connect();
        self.tx_sop.connect();
        self.tx_eop.connect();
        self.tx_link.connect();
        self.rx_out_valid.connect();
        self.rx_out_data.connect();
        self.rx_out_keep.connect();
        self.rx_out_sop.connect();
        self.rx_out_eop.connect();
        self.rx_out_vl.connect();
        self.rx_out_abort.connect();
        self.rx_done.connect();
        self.rx_done_status.connect();
        self.rx_commit.connect();
        self.rx_overrun.connect();
        self.cfg_busy.connect();
        self.grant.connect();
        self.grant_vl.connect();
        self.grant_table.connect();
        self.grant_entry.connect();
        self.grant_blocks.connect();
        self.grant_weight_left.connect();
        self.grant_high_counter.connect();
        self.fccl.connect();
        self.overruns.connect();
        self.fcp_good_count.connect();
        self.fcp_short_count.connect();
        self.fcp_long_count.connect();
        self.fcp_abort_count.connect();
        self.fcp_lpcrc_error_count.connect();
        self.fcp_reserved_op_count.connect();
        self.fcp_vl15_count.connect();
        self.fcp_vl_cap_count.connect();
        self.rx_good_count.connect();
        self.rx_vcrc_error_count.connect();
        self.rx_length_error_count.connect();
        self.rx_bad_vl_count.connect();
        self.rx_abort_count.connect();
        self.vl15_held.connect();
        self.vl15_drop_count.connect();
        self.tx_vl15_starts.connect();
        self.tx_fcp_starts.connect();
        self.tx_data_starts.connect();
        self.fcp_framing_error.connect();
        self.resync_req.connect();
        self.resync_reason.connect();
        self.resync_vl.connect();
        self.fcp_late.connect();
        self.fctbs.connect();
    }

    fn hdl(&self) -> Verilog {
        let v = netlist::variant(&self.params).expect("a generated port configuration");
        let cores: Vec<&str> = v.modules[1..].iter().map(|m| m.text.as_str()).collect();
        crate::emit::rust_hdl_wrapper(self, &v.top, &[], &format!("{}\n{}", v.modules[0].text, cores.join("\n")))
    }
}

impl<const N: usize, const W: usize, const K: usize, const HB: usize, const HL: usize, const FB: usize, const OW: usize> LinkPortUnit<N, W, K, HB, HL, FB, OW> {
    /// Drive the output signals from the twin's outputs.
    fn show(&mut self, o: &LinkPortOut) {
        let mut fw = [0u64; 3];
        let mut ow = [0u64; 4];
        let mut tw = [0u64; 3];
        pack_fields(&o.fccl[..N], 12, &mut fw);
        pack_fields(&o.overruns[..N], 16, &mut ow);
        pack_fields(&o.fctbs[..N], 12, &mut tw);
        self.txq_pop.next = (o.txq_pop as u64).into();
        self.vl15_pop.next = o.vl15_pop;
        self.src_rd.next = o.src_rd;
        self.src_vl.next = (o.src_vl as u64).into();
        self.tx_valid.next = o.tx_valid;
        self.tx_data.next = o.tx_data.into();
        self.tx_keep.next = (o.tx_keep as u64).into();
        self.tx_sop.next = o.tx_sop;
        self.tx_eop.next = o.tx_eop;
        self.tx_link.next = o.tx_link;
        self.rx_out_valid.next = o.rx_out_valid;
        self.rx_out_data.next = o.rx_out_data.into();
        self.rx_out_keep.next = (o.rx_out_keep as u64).into();
        self.rx_out_sop.next = o.rx_out_sop;
        self.rx_out_eop.next = o.rx_out_eop;
        self.rx_out_vl.next = (o.rx_out_vl as u64).into();
        self.rx_out_abort.next = o.rx_out_abort;
        self.rx_done.next = o.rx_done;
        self.rx_done_status.next = (o.rx_done_status as u64).into();
        self.rx_commit.next = o.rx_commit;
        self.rx_overrun.next = o.rx_overrun;
        self.cfg_busy.next = o.cfg_busy;
        self.grant.next = o.grant;
        self.grant_vl.next = (o.grant_vl as u64).into();
        self.grant_table.next = o.grant_table;
        self.grant_entry.next = (o.grant_entry as u64).into();
        self.grant_blocks.next = (o.grant_blocks as u64).into();
        self.grant_weight_left.next = (o.grant_weight_left as u64).into();
        self.grant_high_counter.next = (o.grant_high_counter as u64).into();
        self.fccl.next = bits_from_words::<FB>(&fw);
        self.overruns.next = bits_from_words::<OW>(&ow);
        let c = |k: usize| -> Bits<16> { (o.counters[k] as u64).into() };
        self.fcp_good_count.next = c(0);
        self.fcp_short_count.next = c(1);
        self.fcp_long_count.next = c(2);
        self.fcp_abort_count.next = c(3);
        self.fcp_lpcrc_error_count.next = c(4);
        self.fcp_reserved_op_count.next = c(5);
        self.fcp_vl15_count.next = c(6);
        self.fcp_vl_cap_count.next = c(7);
        self.rx_good_count.next = c(8);
        self.rx_vcrc_error_count.next = c(9);
        self.rx_length_error_count.next = c(10);
        self.rx_bad_vl_count.next = c(11);
        self.rx_abort_count.next = c(12);
        self.vl15_drop_count.next = c(13);
        self.tx_vl15_starts.next = c(14);
        self.tx_fcp_starts.next = c(15);
        self.tx_data_starts.next = c(16);
        self.vl15_held.next = (o.counters[17] as u64 & 0xff).into();
        self.fcp_framing_error.next = o.fcp_framing_error;
        self.resync_req.next = o.resync_req;
        self.resync_reason.next = o.resync_reason != 0;
        self.resync_vl.next = (o.resync_vl as u64).into();
        self.fcp_late.next = (o.fcp_late as u64).into();
        self.fctbs.next = bits_from_words::<FB>(&tw);
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
