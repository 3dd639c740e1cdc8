//! The link port, described once: its blocks and what drives each input. The
//! [`netlist!`](crate::netlist) description gives the Rust stepper [`LinkPortTwin`]
//! (each block's twin, called in the `schedule`'s order, then every clock edge) and the
//! Verilog top ([`variant`]): the same connections, as named-port instances.

use super::{LinkPortIn, LinkPortOut, PortParams};
use super::ParamError;
use std::fmt::Write as _;
use crate::emit::{EmittedModule, Variant};
use crate::failsafe::spec_period_clocks;
use crate::netlist::{file_list, Parameterised};
use crate::port_ctrl::{PortCtrlParams, PortCtrlTwin};
use crate::tx_credits::TxCreditsTwin;

use crate::fcp_rx::FcpRxTwin;
use crate::fcp_tx::FcpTxTwin;
use crate::failsafe::FailsafeTwin;
use crate::link_rx::LinkRxTwin;
use crate::link_tx::LinkTxTwin;
use crate::rx_credits::RxCreditsTwin;
use crate::vl15_rx::Vl15RxTwin;
use crate::vl_arb::VlArbTwin;

crate::netlist! {
    /// The link port's Rust stepper: every block's twin, wired as the Verilog top wires
    /// the modules.
    pub struct LinkPortTwin (LinkPortIn => LinkPortOut), outputs LinkPortNets {
        ctl: PortCtrlTwin {
            reset <- top.reset;
            link_state <- top.link_state;
            txq_valid <- top.txq_valid;
            txq_len <- top.txq_len;
            cfg_wr <- top.cfg_wr;
            cfg_addr <- top.cfg_addr;
            cfg_data <- top.cfg_data;
            credit_ok <- txc.credit_ok;
            take <- ltx.take;
            offer_vl <- arb.vl;
            offer_table <- arb.low;
            offer_entry <- arb.entry;
            offer_blocks <- arb.blocks;
            offer_weight_left <- arb.weight_left;
            offer_high_counter <- arb.high_counter;
            acc_vl <- lrx.acc_vl;
            accepted <- rxc.accepted;
            dropped <- rxc.dropped;
            vl15_kept <- vl15rx.kept;
            vl15_dropped <- vl15rx.dropped;
        }
        txc: TxCreditsTwin {
            reset <- ctl.port_reset;
            head_blocks <- ctl.head_blocks;
            send <- ltx.take;
            send_vl <- arb.vl;
            fcp_valid <- fcprx.upd_valid;
            fcp_vl <- fcprx.upd_vl;
            fcp_fccl <- fcprx.upd_fccl;
        }
        arb: VlArbTwin {
            reset <- ctl.port_reset;
            head_valid <- ctl.head_valid;
            head_len <- top.txq_len;
            take <- ltx.take;
            wr_en <- ctl.wr_en;
            wr_low <- ctl.wr_table;
            wr_index <- ctl.wr_index;
            wr_vl <- ctl.wr_vl;
            wr_weight <- ctl.wr_weight;
            vl_high_limit <- ctl.vl_high_limit;
            one_packet <- ctl.low_policy;
            vl_enable <- ctl.vl_enable;
        }
        fcptx: FcpTxTwin {
            restart <- top.reset;
            link_state <- top.link_state;
            refresh_clocks <- ctl.refresh_clocks;
            min_gap_clocks <- ctl.min_gap_clocks;
            fctbs <- txc.fctbs;
            fccl <- rxc.fccl;
            fcp_start <- ltx.fcp_start;
            fcp_ready <- ltx.fcp_ready;
            fcp_done <- ltx.fcp_done;
        }
        ltx: LinkTxTwin {
            reset <- ctl.port_reset;
            link_active <- ctl.link_active;
            vl15_valid <- top.vl15_valid;
            vl15_len <- top.vl15_len;
            fcp_pending <- fcptx.fcp_pending;
            fcp_valid <- fcptx.fcp_valid;
            fcp_data <- fcptx.fcp_data;
            fcp_keep <- fcptx.fcp_keep;
            fcp_sop <- fcptx.fcp_sop;
            fcp_eop <- fcptx.fcp_eop;
            offer_valid <- arb.offer_valid;
            offer_vl <- arb.vl;
            offer_len <- arb.pkt_len;
            src_data <- top.src_data;
            tx_ready <- top.m_axis_phy_tready;
        }
        fcprx: FcpRxTwin {
            reset <- ctl.port_reset;
            rx_valid <- top.s_axis_phy_tvalid;
            rx_data <- top.s_axis_phy_tdata;
            rx_keep <- top.s_axis_phy_tkeep;
            rx_sop <- top.s_axis_phy_tuser[1];
            rx_eop <- top.s_axis_phy_tlast;
            rx_link <- top.s_axis_phy_tuser[0];
        }
        lrx: LinkRxTwin {
            reset <- ctl.port_reset;
            rx_valid <- top.s_axis_phy_tvalid;
            rx_data <- top.s_axis_phy_tdata;
            rx_keep <- top.s_axis_phy_tkeep;
            rx_sop <- top.s_axis_phy_tuser[1];
            rx_eop <- top.s_axis_phy_tlast;
            rx_link <- top.s_axis_phy_tuser[0];
        }
        rxc: RxCreditsTwin {
            reset <- ctl.port_reset;
            accept <- lrx.acc_valid;
            accept_vl <- lrx.acc_vl;
            accept_blocks <- lrx.acc_blocks;
            drain <- top.drain;
            drain_vl <- top.drain_vl;
            drain_blocks <- top.drain_blocks;
            fcp_valid <- fcprx.upd_valid;
            fcp_vl <- fcprx.upd_vl;
            fcp_fctbs <- fcprx.upd_fctbs;
        }
        vl15rx: Vl15RxTwin {
            reset <- ctl.port_reset;
            accept <- lrx.vl15_accept;
            drain <- top.vl15_drain;
        }
        fs: FailsafeTwin {
            reset <- ctl.port_reset;
            upd_valid <- fcprx.upd_valid;
            upd_vl <- fcprx.upd_vl;
            overrun <- rxc.dropped;
            overrun_vl <- ctl.overrun_vl;
            period_clocks <- ctl.period_clocks;
            update_periods <- ctl.update_periods;
            overrun_periods <- ctl.overrun_periods;
        }
    }
    top(o) {
        "txq_pop" o.txq_pop => ctl.txq_pop;
        "vl15_pop" o.vl15_pop => ltx.vl15_take;
        "src_rd" o.src_rd => ltx.src_rd;
        "src_vl" o.src_vl => ltx.src_vl;
        "m_axis_phy_tdata" o.m_axis_phy_tdata => ltx.tx.data;
        "m_axis_phy_tkeep" o.m_axis_phy_tkeep => ltx.tx.keep;
        "m_axis_phy_tvalid" o.m_axis_phy_tvalid => ltx.tx.valid;
        "m_axis_phy_tlast" o.m_axis_phy_tlast => ltx.tx.eop;
        "m_axis_phy_tuser" o.m_axis_phy_tuser => ltx.tx.sop[1];
        "m_axis_phy_tuser" o.m_axis_phy_tuser => ltx.tx.link[0];
        "rx_out_valid" o.rx_out_valid => lrx.out_valid;
        "rx_out_data" o.rx_out_data => lrx.out_data;
        "rx_out_keep" o.rx_out_keep => lrx.out_keep;
        "rx_out_sop" o.rx_out_sop => lrx.out_sop;
        "rx_out_eop" o.rx_out_eop => lrx.out_eop;
        "rx_out_vl" o.rx_out_vl => lrx.out_vl;
        "rx_out_abort" o.rx_out_abort => lrx.out_abort;
        "rx_done" o.rx_done => lrx.done;
        "rx_done_status" o.rx_done_status => lrx.done_status;
        "rx_commit" o.rx_commit => ctl.rx_commit;
        "rx_overrun" o.rx_overrun => ctl.rx_overrun;
        "cfg_busy" o.cfg_busy => ctl.cfg_busy;
        "grant" o.grant => ctl.grant;
        "grant_vl" o.grant_vl => ctl.grant_vl;
        "grant_table" o.grant_table => ctl.grant_table;
        "grant_entry" o.grant_entry => ctl.grant_entry;
        "grant_blocks" o.grant_blocks => ctl.grant_blocks;
        "grant_weight_left" o.grant_weight_left => ctl.grant_weight_left;
        "grant_high_counter" o.grant_high_counter => ctl.grant_high_counter;
        "fccl" o.fccl => rxc.fccl;
        "overruns" o.overruns => rxc.overruns;
        "fcp_good_count" o.counters[0] => fcprx.counts.good;
        "fcp_short_count" o.counters[1] => fcprx.counts.short;
        "fcp_long_count" o.counters[2] => fcprx.counts.long;
        "fcp_abort_count" o.counters[3] => fcprx.counts.abort;
        "fcp_lpcrc_error_count" o.counters[4] => fcprx.counts.lpcrc_error;
        "fcp_reserved_op_count" o.counters[5] => fcprx.counts.reserved_op;
        "fcp_vl15_count" o.counters[6] => fcprx.counts.vl15;
        "fcp_vl_cap_count" o.counters[7] => fcprx.counts.vl_cap;
        "rx_good_count" o.counters[8] => lrx.counts.good;
        "rx_vcrc_error_count" o.counters[9] => lrx.counts.vcrc_error;
        "rx_length_error_count" o.counters[10] => lrx.counts.length_error;
        "rx_bad_vl_count" o.counters[11] => lrx.counts.bad_vl;
        "rx_abort_count" o.counters[12] => lrx.counts.abort;
        "vl15_drop_count" o.counters[13] => vl15rx.drop_count;
        "tx_vl15_starts" o.counters[14] => ltx.vl15_starts;
        "tx_fcp_starts" o.counters[15] => ltx.fcp_starts;
        "tx_data_starts" o.counters[16] => ltx.data_starts;
        "vl15_held" o.counters[17] => vl15rx.held;
        "fcp_framing_error" o.fcp_framing_error => ltx.fcp_framing_error;
        "resync_req" o.resync_req => fs.resync_req;
        "resync_reason" o.resync_reason => fs.resync_reason;
        "resync_vl" o.resync_vl => fs.resync_vl;
        "fcp_late" o.fcp_late => fs.fcp_late;
        "fctbs" o.fctbs => txc.fctbs;
    }
    // Outputs of the arbiter, TX credits and the receive path are registered; the port's
    // own logic needs only the link state first; the FCP framer's first word follows
    // link TX's fcp_start, which follows the framer's pending FCP: so the framer and
    // link TX go twice; the port logic's pops and grant report follow link TX's take.
    schedule [ctl, txc, arb, fcprx, lrx, rxc, vl15rx, fs, fcptx, ltx, fcptx, ltx, ctl]
    names {
        txc.fctbs = "fctbs_bus";
        arb.vl = "offer_vl";
        arb.low = "offer_table";
        arb.entry = "offer_entry";
        arb.pkt_len = "offer_pkt_len";
        arb.blocks = "offer_blocks";
        arb.weight_left = "offer_weight_left";
        arb.high_counter = "offer_high_counter";
        arb.wr_low = "wr_table";
        arb.one_packet = "low_policy";
        ltx.tx.valid = "tx_valid";
        ltx.tx.data = "tx_data";
        ltx.tx.keep = "tx_keep";
        ltx.tx.sop = "tx_sop";
        ltx.tx.eop = "tx_eop";
        ltx.tx.link = "tx_link";
        fcprx.counts.good = "good_count";
        fcprx.counts.short = "short_count";
        fcprx.counts.long = "long_count";
        fcprx.counts.abort = "abort_count";
        fcprx.counts.lpcrc_error = "lpcrc_error_count";
        fcprx.counts.reserved_op = "reserved_op_count";
        fcprx.counts.vl15 = "vl15_count";
        fcprx.counts.vl_cap = "vl_cap_count";
        lrx.counts.good = "good_count";
        lrx.counts.vcrc_error = "vcrc_error_count";
        lrx.counts.length_error = "length_error_count";
        lrx.counts.bad_vl = "bad_vl_count";
        lrx.counts.abort = "abort_count";
    }
}

/// The port logic's parameters for a port configuration.
pub fn ctrl_params(p: &PortParams) -> PortCtrlParams {
    PortCtrlParams {
        vls: p.vl_cap,
        period_clocks: spec_period_clocks(p.width),
        vl_high_limit: p.vl_high_limit,
        one_packet: p.one_packet,
        refresh_clocks: p.refresh_clocks,
        min_gap_clocks: p.min_gap_clocks,
        update_periods: p.update_periods,
        overrun_periods: p.overrun_periods,
        load: p.load_sequence(),
    }
}

impl LinkPortTwin {
    /// The port generated from `p`, at power-up.
    pub fn new(p: &PortParams) -> Self {
        let (n, w) = (p.vl_cap, p.width);
        Self::__new(
            PortCtrlTwin::new(ctrl_params(p)),
            TxCreditsTwin::new(n),
            VlArbTwin::new(n),
            FcpTxTwin::new(n, w),
            LinkTxTwin::new(w),
            FcpRxTwin::new(n, w),
            LinkRxTwin::new(n, w),
            RxCreditsTwin::new(n, p.buffer_blocks),
            Vl15RxTwin::new(p.vl15_packets),
            FailsafeTwin::new(n),
        )
    }
}

/// The name of a configuration of the top (its rows in tests and reports).
pub fn top_name(p: &PortParams) -> String {
    format!("iblink_link_port_vl{}_w{}", p.vl_cap, p.width)
}

/// Every block's configuration inside the port, by instance name (`p` checked).
fn blocks(p: &PortParams) -> Vec<(&'static str, Variant)> {
    let (n, w) = (p.vl_cap, p.width);
    let c = ctrl_params(p);
    let ctl = Variant {
        name: format!("{}_ctl", top_name(p)),
        block: "link_port",
        top: crate::port_ctrl::SOURCE.module.to_string(),
        params: c.verilog_params(),
        modules: vec![crate::port_ctrl::module()],
        ports: c.ports(),
    };
    vec![
        ("ctl", ctl),
        // The credit check registered as a result: credit_ok feeds the arbiter's first stage.
        ("txc", crate::tx_credits::variant_check_ahead(n)),
        ("arb", crate::vl_arb::variant(n)),
        ("fcptx", crate::fcp_tx::variant(n, w)),
        ("ltx", crate::link_tx::variant(w)),
        ("fcprx", crate::fcp_rx::variant(n, w)),
        ("lrx", crate::link_rx::variant(n, w)),
        ("rxc", crate::rx_credits::variant(n, p.buffer_blocks)),
        ("vl15rx", crate::vl15_rx::variant(p.vl15_packets)),
        ("fs", crate::failsafe::variant(n)),
    ]
}

/// The link port's one module, parameterised: every configuration is it with its
/// parameters set ([`variant`]).
pub const MODULE: &str = "iblink_link_port";

/// The top's header: what it is, and where its parts are documented.
const HEADER: &str = "//
// iblink_link_port: the link port: per-VL transmit queues -> TX credits -> VL arbiter ->
// link TX (VL15 > FCP > data, VCRC) -> the link, with the FCP TX framer; and back: FCP
// RX and link RX -> RX credits / VL15 buffer. One module for every configuration: VLCap
// and width are parameters, and so is the configuration the port powers up with (its
// arbitration tables as LOAD_LEN entries of LOAD_TABLE, loaded after power-up; the
// defaults are the tables `iblink emit` uses: a low table of weight 64 per data VL).
// `iblink emit --config FILE` writes a wrapper that sets them from a port file. Each
// instance's module documents its ports and cycle contract; the port's own registers and
// the configuration map (cfg_addr) are in iblink_port_ctrl.v. Wire side: AXI4-Stream,
// m_axis_phy_* to the PHY (a word moves when tvalid and tready are high, and holds while
// tready is low: the PHY's backpressure, docs/spec.md §10; tie tready high for a wire
// that never stalls) and s_axis_phy_* from it (no tready); tlast ends an item, tuser[1]
// marks its first word (an IBA start delimiter goes before it), tuser[0] every word of a
// link packet (an FCP: SLP, not SDP). The user side is not AXI4-Stream, on purpose: to
// arbitrate and charge credits before a word moves, the arbiter must see every data VL's
// head packet at once (txq_valid/txq_len, a packet popped with txq_pop, its words read by
// src_rd/src_vl/src_data), which one stream cannot show; and delivery is
// credit-accounted (rx_out_* into the user's buffer, its blocks returned with drain), so
// a slow reader stalls the sender through FCCL, the link's own flow control, not through
// a ready. Files: iblink_link_port.f.
";

/// The module's parameters, the instance parameters that take another name, and the
/// constant function the default tables come from.
fn parameterised() -> Parameterised {
    let p = |c: &str, d: &str| (c.to_string(), d.to_string());
    Parameterised {
        params: vec![
            p("Data VLs (VLCap, docs/spec.md §7): 1, 2, 4, 8 or 15", "VLS = 4"),
            p("Link word width: 32 or 64 bits, and its byte lanes", "DATA_WIDTH = 32"),
            p("", "KEEP_WIDTH = DATA_WIDTH/8"),
            p("Receive buffer per data VL, 64-byte blocks (66..4095); VL15 buffer, packets (1..255)", "BUFFER_BLOCKS = 256"),
            p("", "VL15_PACKETS = 1"),
            p(
                "Power-up configuration (the registers cfg_wr rewrites): FCP refresh and\non-change gap in clocks (docs/spec.md §5), VLHighLimit, the low table's policy\n(0 weight, 1 one packet a turn; docs/spec.md §6), and the failsafe's periods\n(docs/spec.md §8)",
                "REFRESH_CLOCKS = 57344/KEEP_WIDTH",
            ),
            p("", "MIN_GAP_CLOCKS = 256/KEEP_WIDTH"),
            p("", "VL_HIGH_LIMIT = 4"),
            p("", "LOW_POLICY = 0"),
            p("", "UPDATE_PERIODS = 2"),
            p("", "OVERRUN_PERIODS = 2"),
            p(
                "Arbitration table entries loaded after power-up, entry k at [19k+18:19k]:\n{low table, index[5:0], VL[3:0], weight[7:0]}",
                "LOAD_LEN = VLS",
            ),
            p("", "[19*128-1:0] LOAD_TABLE = default_load_table(VLS)"),
        ],
        body: "// The FCP period: 65,536 symbol times (docs/spec.md §5, §8).
localparam PERIOD_CLOCKS = 65536/KEEP_WIDTH;

// The default tables: low-table entry v names VL v with weight 64, for every data VL.
function [19*128-1:0] default_load_table(input integer vls);
    integer v;
    begin
        default_load_table = {19*128{1'b0}};
        for (v = 0; v < vls; v = v + 1)
            default_load_table[19*v +: 19] = {1'b1, v[5:0], v[3:0], 8'd64};
    end
endfunction

"
        .to_string(),
        rename: vec![
            ("ctl", "PERIOD_CLOCKS", "PERIOD_CLOCKS".to_string()),
            ("rxc", "CAPACITY", "BUFFER_BLOCKS".to_string()),
            ("vl15rx", "CAPACITY", "VL15_PACKETS".to_string()),
        ],
    }
}

/// The module's parameters for configuration `p` (all of them, the defaults included).
pub fn params(p: &PortParams) -> Vec<(String, String)> {
    let mut v = vec![
        ("VLS".to_string(), p.vl_cap.to_string()),
        ("DATA_WIDTH".to_string(), p.width.to_string()),
        ("BUFFER_BLOCKS".to_string(), p.buffer_blocks.to_string()),
        ("VL15_PACKETS".to_string(), p.vl15_packets.to_string()),
    ];
    v.extend(ctrl_params(p).verilog_params().into_iter().filter(|(k, _)| k != "VLS" && k != "PERIOD_CLOCKS"));
    v
}

/// The port generated from `p`: `iblink_link_port` with `p`'s parameters (named
/// `iblink_link_port_vl<N>_w<W>`), every module it instantiates, and its file list.
pub fn variant(p: &PortParams) -> Result<Variant, ParamError> {
    p.check()?;
    let name = top_name(p);
    let ports = crate::with_link_port!((p.vl_cap, p.width), |T| crate::io::top_ports(&T::new(p.clone())),
        _ => unreachable!("checked: VLCap {} at {} bits", p.vl_cap, p.width));
    let blocks = blocks(p);
    Ok(crate::netlist::composed_variant(
        &LinkPortTwin::DESCRIPTION,
        MODULE,
        &name,
        "link_port",
        HEADER,
        &parameterised(),
        params(p),
        ports,
        &blocks,
    )
    .unwrap_or_else(|e| panic!("the link port's netlist: {e}")))
}

/// A configured port as its own module: `name` (ports as at `p`) instantiating
/// `iblink_link_port` with `p`'s parameters, so differently configured ports live in one
/// design; then every module that needs, and (through [`files_of`]) `<name>.f`.
/// `source` says where the configuration came from (the header names it).
pub fn wrapper(p: &PortParams, name: &str, source: &str) -> Result<Variant, WrapperError> {
    let inner = variant(p)?;
    if !is_identifier(name) {
        return Err(WrapperError::Name(name.to_string(), "not a Verilog identifier (a letter or _, then letters, digits, _; not a keyword)".into()));
    }
    if inner.modules.iter().any(|m| m.name == name) {
        return Err(WrapperError::Name(name.to_string(), "the name of one of the port's own modules".into()));
    }
    let mut v = String::new();
    let _ = writeln!(
        v,
        "//\n// {name}: the link port configured from {source}: {MODULE} with the parameters\n\
         // below (the configuration above). Files: {name}.f.\n`default_nettype none\nmodule {name} ("
    );
    let decls: Vec<String> = inner
        .ports
        .iter()
        .map(|port| {
            let dir = if port.dir == crate::io::Dir::Input { "input " } else { "output" };
            let w = crate::verilog::range(&port.width.to_string());
            format!("    {dir} wire {w:<9} {}", port.name)
        })
        .collect();
    let _ = writeln!(v, "{}\n);\n", decls.join(",\n"));
    let params: Vec<String> = inner.params.iter().map(|(k, x)| format!("    .{k}({x})")).collect();
    let conns: Vec<String> = inner.ports.iter().map(|port| format!("    .{0}({0})", port.name)).collect();
    let _ = writeln!(v, "{MODULE} #(\n{}\n) port (\n{}\n);\n\nendmodule\n`default_nettype wire", params.join(",\n"), conns.join(",\n"));
    let mut modules = vec![crate::emit::generated(name, "link_port", p.config_lines(), &v)];
    modules.extend(inner.modules);
    Ok(Variant { name: name.to_string(), block: "link_port", top: name.to_string(), params: vec![], modules, ports: inner.ports })
}

/// Why a configured port's wrapper cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum WrapperError {
    #[error(transparent)]
    Param(#[from] ParamError),
    #[error("name `{0}`: {1}")]
    Name(String, String),
}

/// A Verilog identifier (simple, not escaped, not a keyword).
pub fn is_identifier(s: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "always", "and", "assign", "begin", "buf", "case", "default", "else", "end", "endcase", "endfunction",
        "endgenerate", "endmodule", "for", "function", "generate", "genvar", "if", "initial", "inout", "input",
        "integer", "localparam", "logic", "module", "nand", "nor", "not", "or", "output", "parameter", "reg",
        "signed", "wire", "xor",
    ];
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
        && !KEYWORDS.contains(&s)
}

/// The file list of a composed top (`<module>.f`): its modules' files, top first.
pub fn files_of(v: &Variant) -> EmittedModule {
    let files: Vec<String> = v.modules.iter().map(|m| m.file_name()).collect();
    file_list(&format!("{}.f", v.top), v.block, &files)
}
