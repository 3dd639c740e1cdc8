// iblink_port_ctrl: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/port_ctrl/iblink_port_ctrl.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: link_port
// config: parameters = VLS, PERIOD_CLOCKS, the configuration registers' power-up values, LOAD_LEN and LOAD_TABLE
`default_nettype none
// iblink_port_ctrl: the link port's own logic, between its blocks (docs/spec.md §5, §6, §8).
//
// - Link init / resync: a reset, or the link Down, resets every block (port_reset).
// - The configuration registers (VLHighLimit, low-table policy, VL enables, FCP refresh
//   and on-change gap, the failsafe's thresholds), written through cfg_wr/cfg_addr/
//   cfg_data and kept across resets; power-up values are parameters.
// - The table loader: after power-up it writes the configuration's arbitration table
//   entries (LOAD_TABLE, LOAD_LEN of them), one a clock, through the arbiter's write
//   port; cfg_wr is ignored meanwhile (cfg_busy).
// - The heads the arbiter sees: TX credits' check is registered and speaks for the
//   previous clock's head, so a head counts only if it was there the clock before
//   (txq_valid_q) and was not popped then (taken_mask).
// - NP of each head packet, the pops, the grant report, and the receive verdicts.
//
// Cycle contract: every output is combinational from the inputs and the registers;
// the registers load at the clock edge.
module iblink_port_ctrl #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4,
    // FCP period in clocks: 65,536 symbol times at the link word width (docs/spec.md §5)
    parameter PERIOD_CLOCKS = 16384,
    // Power-up values of the configuration registers
    parameter VL_HIGH_LIMIT = 4,
    parameter LOW_POLICY = 0,
    parameter REFRESH_CLOCKS = 14336,
    parameter MIN_GAP_CLOCKS = 64,
    parameter UPDATE_PERIODS = 2,
    parameter OVERRUN_PERIODS = 2,
    // Table entries loaded after power-up: entry k at [19k+18:19k] is
    // {low table, index[5:0], VL[3:0], weight[7:0]}; at most 64 + 64
    parameter LOAD_LEN = 4,
    parameter [19*128-1:0] LOAD_TABLE = {2356'd0, 76'h866810890208a040040}
) (
    input  wire               clock,

    // Port inputs
    input  wire               reset,
    input  wire [1:0]         link_state,
    input  wire [VLS-1:0]     txq_valid,
    input  wire [11*VLS-1:0]  txq_len,
    input  wire               cfg_wr,
    input  wire [7:0]         cfg_addr,
    input  wire [15:0]        cfg_data,

    // From the blocks
    input  wire [VLS-1:0]     credit_ok,
    input  wire               take,
    input  wire [3:0]         offer_vl,
    input  wire               offer_table,
    input  wire [5:0]         offer_entry,
    input  wire [7:0]         offer_blocks,
    input  wire [8:0]         offer_weight_left,
    input  wire [18:0]        offer_high_counter,
    input  wire [3:0]         acc_vl,
    input  wire               accepted,
    input  wire               dropped,
    input  wire               vl15_kept,
    input  wire               vl15_dropped,

    // To every block: link init / resync; LinkActive
    output wire               port_reset,
    output wire               link_active,

    // To TX credits and the arbiter
    output wire [7*VLS-1:0]   head_blocks,
    output wire [VLS-1:0]     head_valid,
    output wire               wr_en,
    output wire               wr_table,
    output wire [5:0]         wr_index,
    output wire [3:0]         wr_vl,
    output wire [7:0]         wr_weight,
    output wire [7:0]         vl_high_limit,
    output wire               low_policy,
    output wire [VLS-1:0]     vl_enable,

    // To the FCP TX framer
    output wire [15:0]        refresh_clocks,
    output wire [15:0]        min_gap_clocks,

    // To the failsafe
    output wire [15:0]        period_clocks,
    output wire [15:0]        update_periods,
    output wire [15:0]        overrun_periods,
    output wire [3:0]         overrun_vl,

    // Port outputs
    output wire [VLS-1:0]     txq_pop,
    output wire               grant,
    output wire [3:0]         grant_vl,
    output wire               grant_table,
    output wire [5:0]         grant_entry,
    output wire [7:0]         grant_blocks,
    output wire [8:0]         grant_weight_left,
    output wire [18:0]        grant_high_counter,
    output wire               rx_commit,
    output wire               rx_overrun,
    output wire               cfg_busy
);

localparam [1:0] LINK_DOWN = 2'd0;
localparam [1:0] LINK_ACTIVE = 2'd3;
localparam [7:0] LOAD_N = LOAD_LEN[7:0];

assign port_reset = reset | (link_state == LINK_DOWN);
assign link_active = link_state == LINK_ACTIVE;

// ---- configuration registers (kept across resets) ----
reg [7:0] cfg_vl_high_limit;
reg cfg_low_policy;
reg [VLS-1:0] cfg_vl_enable;
reg [15:0] cfg_refresh;
reg [15:0] cfg_min_gap;
reg [15:0] cfg_update_periods;
reg [15:0] cfg_overrun_periods;
// The failsafe's thresholds as applied: taken from the registers at a reset.
reg [15:0] fs_update_periods;
reg [15:0] fs_overrun_periods;
// The VL of the previous clock's accept: RX credits' `dropped` answers it a clock late.
reg [3:0] acc_vl_q;
reg [7:0] load_idx;
reg [VLS-1:0] taken_mask;
reg [VLS-1:0] txq_valid_q;
initial begin
   cfg_vl_high_limit = VL_HIGH_LIMIT[7:0];
   cfg_low_policy = LOW_POLICY[0];
   cfg_vl_enable = {VLS{1'b1}};
   cfg_refresh = REFRESH_CLOCKS[15:0];
   cfg_min_gap = MIN_GAP_CLOCKS[15:0];
   cfg_update_periods = UPDATE_PERIODS[15:0];
   cfg_overrun_periods = OVERRUN_PERIODS[15:0];
   fs_update_periods = UPDATE_PERIODS[15:0];
   fs_overrun_periods = OVERRUN_PERIODS[15:0];
   acc_vl_q = 4'd0;
   load_idx = 8'd0;
   taken_mask = {VLS{1'b0}};
   txq_valid_q = {VLS{1'b0}};
end

// ---- the table loader ----
// load_idx counts up to LOAD_N and stops there.
wire loading = load_idx != LOAD_N;
wire [18:0] ld = LOAD_TABLE[19*load_idx +: 19];
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
assign wr_en = loading | cfg_table_wr;
assign wr_table = loading ? ld[18] : cfg_addr[6];
assign wr_index = loading ? ld[17:12] : cfg_addr[5:0];
assign wr_vl = loading ? ld[11:8] : cfg_data[11:8];
assign wr_weight = loading ? ld[7:0] : cfg_data[7:0];
assign vl_high_limit = cfg_vl_high_limit;
assign low_policy = cfg_low_policy;
assign vl_enable = cfg_vl_enable;
assign refresh_clocks = cfg_refresh;
assign min_gap_clocks = cfg_min_gap;
assign cfg_busy = loading;

// ---- failsafe thresholds: taken at a reset, as its model does; held between ----
assign period_clocks = PERIOD_CLOCKS[15:0];
assign update_periods = port_reset ? cfg_update_periods : fs_update_periods;
assign overrun_periods = port_reset ? cfg_overrun_periods : fs_overrun_periods;
assign overrun_vl = acc_vl_q;
always @(posedge clock) begin
   fs_update_periods <= update_periods;
   fs_overrun_periods <= overrun_periods;
   acc_vl_q <= acc_vl;
end

// ---- heads: NP, and which the arbiter may see ----
genvar g;
generate
   for (g = 0; g < VLS; g = g + 1) begin : vl
      localparam [3:0] VL = g;
      // NP = ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16 (docs/spec.md §1): an 11-bit sum,
      // which never wraps for a valid PktLen (at most 1048).
      wire [10:0] sum = txq_len[11*g +: 11] + 11'd13;
      assign head_blocks[7*g +: 7] = sum[10:4];
      // sum[3:0] is the remainder of the division by 16: not needed.
      /* verilator lint_off UNUSEDSIGNAL */
      wire [3:0] unused_rem = sum[3:0];
      /* verilator lint_on UNUSEDSIGNAL */
      assign txq_pop[g] = take & (offer_vl == VL);
   end
endgenerate
assign head_valid = txq_valid & txq_valid_q & credit_ok & ~taken_mask;
always @(posedge clock) begin
   taken_mask <= txq_pop;
   txq_valid_q <= txq_valid;
end

// ---- the grant report: the arbiter's fields mean something only with a grant ----
assign grant = take;
assign grant_vl = take ? offer_vl : 4'd0;
assign grant_table = take & offer_table;
assign grant_entry = take ? offer_entry : 6'd0;
assign grant_blocks = take ? offer_blocks : 8'd0;
assign grant_weight_left = take ? offer_weight_left : 9'd0;
assign grant_high_counter = take ? offer_high_counter : 19'd0;

// ---- the receive verdict on a good packet: kept, or dropped (overrun / VL15 full) ----
assign rx_commit = accepted | vl15_kept;
assign rx_overrun = dropped | vl15_dropped;

endmodule
`default_nettype wire
