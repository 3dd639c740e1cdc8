`default_nettype none
// iblink_vl_arb: the data-VL arbiter (docs/spec.md §6; seed 003 "Data VL Arbitration
// Description"): the high- and low-priority VLArbitrationTables (64 entries each: VL,
// Weight), VLHighLimit and HighPriCounter, both low-table policies and the per-VL
// software enables. VL15 > FCP > data is the port's business: this block picks among
// data VLs, one packet per take. Reference model: iblink_model::arbiter::VlArbiter.
//
// Cycle contract (clock t):
//   heads   an offer shown at t is decided on head_valid/head_len as sampled at t-3.
//   take    with offer_valid at t: the offered packet is the consumer's and the state
//           commits. No offer at t+1..t+3; the next at t+4 whenever an entry is
//           eligible (on heads of t+1 on: the taken VL's new head must show by t+1).
//   offer   between takes it follows the heads, three clocks late; a take commits
//           exactly the offer shown in its clock. The offer fields mean nothing while
//           offer_valid is 0.
//   config  table writes, vl_high_limit / low_policy / vl_enable changes and reset act
//           one clock after they are presented, after a take of that same clock; no
//           offer for the 4 clocks that follow.
// Pipeline: A (t-3) ready bit per entry (and masked to the entries after the active one);
// B (t-2) the next entry of each table and which table sends; C (t-1) read the chosen
// entry (VL, index; its Weight from its table's block RAM).
// The offer's PktLen, blocks, remaining weight and HighPriCounter are a select by the
// offered VL (and one subtraction) from the C registers.
// Power-up: tables empty, VLHighLimit 0, weight policy, no VL enabled (as if those
// inputs had been 0 the clock before).
//
// The two tables' logic is written out twice, once per table (hi_*, lo_*), the same
// text but for the prefix and the table-select constant: edit both.
// (Not one text: a module instantiated twice, and a generate loop over both, each broke the 2 % LUT4/Fmax rule; docs/synthesis-history.md.)
module iblink_vl_arb #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4
) (
    input  wire                clock,
    // Link init or resync: pointers to entry 0 (weights reloaded), HighPriCounter
    // reloaded, the high table's turn; the tables are kept
    input  wire                reset,

    // Heads: bit v, VL v has a head packet whose credit check passes; its LRH:PktLen
    // (dwords) at [11v+10:11v]
    input  wire [VLS-1:0]      head_valid,
    input  wire [11*VLS-1:0]   head_len,

    // The consumer takes the offer shown this clock (ignored without offer_valid)
    input  wire                take,

    // Write one table entry: wr_table 0 high, 1 low; entry wr_index := (wr_vl, wr_weight)
    input  wire                wr_en,
    input  wire                wr_table,
    input  wire [5:0]          wr_index,
    input  wire [3:0]          wr_vl,
    input  wire [7:0]          wr_weight,

    // Configuration registers: VLHighLimit; low_policy 0 the active low entry sends
    // until its weight is exhausted, 1 one low packet per low turn; per-VL enables
    input  wire [7:0]          vl_high_limit,
    input  wire                low_policy,
    input  wire [VLS-1:0]      vl_enable,

    // The offer: the packet to send (VL, table 0 high / 1 low, entry), its PktLen and
    // blocks (docs/spec.md §1), the entry's remaining weight once it is sent and HighPriCounter
    // once it is sent, before any reload (both two's complement)
    output reg                 offer_valid,
    output reg  [3:0]          offer_vl,
    output reg                 offer_table,
    output reg  [5:0]          offer_entry,
    output reg  [10:0]         offer_pkt_len,
    output reg  [7:0]          offer_blocks,
    output reg  [8:0]          offer_weight_left,
    output reg  [18:0]         offer_high_counter
);

// Bits a table entry keeps of its stored VL (a VL below VLCap, or 15 for an entry that
// is skipped): the bits that hold VLCap - 1, plus one set only for 15; four at VLCap 8
// and 15, where 15 already needs all four.
localparam VB = (VLS <= 1) ? 1 : (VLS <= 2) ? 2 : (VLS <= 4) ? 3 : 4;
// VLCap as a 4-bit constant, to compare with a VL
localparam [3:0] VL_CAP = VLS[3:0];

integer i;
integer v;
integer quad;

// Blocks of a packet (docs/spec.md §1): ceil((PktLen*4 - 8) / 64) = (PktLen + 13) / 16,
// that is PktLen / 16, plus one when PktLen mod 16 is 3 or more.
function [7:0] blocks_of;
   input [10:0] len;
   blocks_of = {1'b0, len[10:4]} + {7'd0, len[3:0] > 4'd2};
endfunction

// Of four flags, where the first set one is, and a value chosen by it, from the
// lower three flags (3, or the fourth value, when none of them is set: whether the
// fourth is set does not matter).
function [1:0] first_of4;
   input [2:0] x;
   first_of4 = x[0] ? 2'd0 : x[1] ? 2'd1 : x[2] ? 2'd2 : 2'd3;
endfunction
function [3:0] pick_of4;
   input [2:0] x;
   input [15:0] vals;
   pick_of4 = x[0] ? vals[3:0] : x[1] ? vals[7:4] : x[2] ? vals[11:8] : vals[15:12];
endfunction
// pick_of4 at 2 bits, kept apart: one function for both widths (the 2-bit values
// padded) is the same logic but Yosys maps it slower (docs/synthesis-history.md).
function [1:0] pick2_of4;
   input [2:0] x;
   input [7:0] vals;
   pick2_of4 = x[0] ? vals[1:0] : x[1] ? vals[3:2] : x[2] ? vals[5:4] : vals[7:6];
endfunction
// The 4-bit value of the bank a one-hot (or zero) bank vector names.
function [3:0] bank_sel;
   input [3:0] bank;
   input [15:0] vals;
   bank_sel = ({4{bank[0]}} & vals[3:0]) | ({4{bank[1]}} & vals[7:4])
            | ({4{bank[2]}} & vals[11:8]) | ({4{bank[3]}} & vals[15:12]);
endfunction

genvar g;

// ---- Configuration as sampled; it acts one clock later ----
reg ev_wr;                 // a table write to apply
reg ev_wr_low;             //   into the low table (else the high table)
reg [5:0] ev_wr_index;
reg [3:0] ev_wr_vl_stored;  // what the write stores as the entry's VL (decided as sampled)
reg [7:0] ev_wr_weight;
reg ev_reset;
reg ev_limit;              // VLHighLimit changed: the HighPriCounter reloads
reg [7:0] limit_in;        // vl_high_limit, low_policy, vl_enable of the clock before
reg policy_in;
reg [VLS-1:0] enable_in;
// ---- Configuration in effect ----
reg [7:0] limit;           // VLHighLimit
reg one_packet;            // low_policy 1: one low-table packet per low turn
reg [VLS-1:0] enable;      // software VL enables
// ---- Arbiter state (docs/spec.md §6) ----
reg signed [18:0] high_counter;  // HighPriCounter, dwords
reg low_turn;              // the low table is active
reg low_open;              // weight policy: the low turn goes on with its active entry
reg [2:0] hold;            // clocks until an offer may show again
// ---- A take, committed the clock after ----
reg t1_go;
reg t1_low;
reg signed [8:0] t1_wl;
reg signed [18:0] t1_hc;
// ---- Stage A: PktLens as sampled ----
reg [11*VLS-1:0] a_len;
// ---- Stage B ----
reg [11*VLS-1:0] b_len;
// ---- Stage C: the offer (with offer_valid, offer_table, offer_entry, offer_vl) ----
reg c_cont;                // the offered entry is the active one and goes on
reg signed [8:0] c_rem;    // the remaining weight of the offered entry's table
reg c_count;               // the packet counts against HighPriCounter
reg signed [18:0] c_counter;  // HighPriCounter after the packet when it does not count
reg [11*VLS-1:0] c_len;    // every VL's PktLen and blocks, as sampled
reg [8*VLS-1:0] c_blocks;
reg [12*VLS-1:0] c_counter_low;  // per VL: {borrow, (HighPriCounter - PktLen) mod 2048}
reg [VLS-1:0] offer_vl_hot;  // offer_vl decoded (bit v: offer_vl == v), so the offer's
                             // per-VL selects start at flip-flops, not behind a compare

initial begin
   ev_wr = 1'b0; ev_wr_low = 1'b0; ev_wr_index = 6'd0; ev_wr_vl_stored = 4'd15; ev_wr_weight = 8'd0;
   ev_reset = 1'b0; ev_limit = 1'b0; limit_in = 8'd0; policy_in = 1'b0; enable_in = {VLS{1'b0}};
   limit = 8'd0; one_packet = 1'b0; enable = {VLS{1'b0}};
   high_counter = 19'sd0; low_turn = 1'b0; low_open = 1'b0; hold = 3'd0;
   t1_go = 1'b0; t1_low = 1'b0; t1_wl = 9'sd0; t1_hc = 19'sd0;
   a_len = {11*VLS{1'b0}}; b_len = {11*VLS{1'b0}}; c_len = {11*VLS{1'b0}}; c_blocks = {8*VLS{1'b0}};
   c_counter_low = {12*VLS{1'b0}}; offer_vl_hot = {VLS{1'b0}};
   c_cont = 1'b0; c_rem = 9'sd0; c_count = 1'b0; c_counter = 19'sd0;
   offer_valid = 1'b0; offer_vl = 4'd0; offer_table = 1'b0; offer_entry = 6'd0;
end

// VLs a ready entry may name: head present with credits and enabled. Entries that can
// never send (weight 0, VL15, VL at or above VLCap) are stored with VL 15, never ready.
wire [15:0] vl_ready = {{(16-VLS){1'b0}}, head_valid & enable};
wire take_now = take & offer_valid;
wire config_now = wr_en | reset | (vl_high_limit != limit_in) | (low_policy != policy_in)
                | (vl_enable != enable_in);
wire [2:0] hold_next = config_now ? 3'd4 : take_now ? 3'd3 : (hold != 3'd0) ? hold - 3'd1 : 3'd0;
wire [18:0] reload = {1'b0, limit, 10'd0};   // VLHighLimit * 1024 dwords
wire [7:0] counter_upper_less1 = high_counter[18:11] - 8'd1;

// ======== high-priority table ========
// VLArbitrationTable entries: the VL as stored, 15 if the entry is skipped; the Weights
// are in `weights` below. A stored VL is below VLCap or 15, so only its low VB bits are
// kept (VB = 1/2/3/4/4 for VLCap 1/2/4/8/15); below four, the top kept bit is set only
// for 15 and the bits above it copy it. Four bits at every VLCap were flip-flops that
// always equal the top kept bit (Yosys cannot prove it): 192/128/64 per table at VLCap 1/2/4.
reg [VB-1:0] hi_vs [0:63];
wire [255:0] hi_vlf;           // every entry's 4-bit VL, entry i at [4i+3:4i]
generate
   for (g = 0; g < 64; g = g + 1) begin : hi_vl_widen
      if (VB == 4) begin : whole
         assign hi_vlf[4*g +: 4] = hi_vs[g];
      end else begin : copied
         // The bits above the kept ones copy the top kept bit.
         assign hi_vlf[4*g +: 4] = {{(4-VB){hi_vs[g][VB-1]}}, hi_vs[g]};
      end
   end
endgenerate
reg [7:0] hi_w0;               // entry 0's Weight (for reset)
reg [5:0] hi_ptr;              // active entry
reg signed [8:0] hi_rem;       // its remaining weight (a packet may overdraw it)
reg hi_rem_pos;                // hi_rem > 0
reg [63:0] hi_gt;              // entries after the active one (bit i: i > hi_ptr)
reg [3:0] hi_act_vl;           // the active entry's VL as stored
reg [63:0] hi_rdy;             // stage A: entry ready
reg [63:0] hi_rdy_gt;          // stage A: entry ready and after the active one
reg hi_act_rdy;                // stage A: the active entry ready
// Stage B: the first ready entry after the active one, wrapping, in pieces (see below):
reg [3:0] hi_pick_bank;        //   the bank (group of 16 entries) holding it, one-hot (0: none)
reg [15:0] hi_pick_sub;        //   per bank, the index within it of the bank's first candidate
reg [15:0] hi_pick_bvl;        //   per bank, that candidate's VL
reg hi_pick_cont;              // stage B: the active entry goes on instead (weight left, ready)
initial begin
   for (i = 0; i < 64; i = i + 1) begin
      hi_vs[i] = {VB{1'b1}};
   end
   hi_w0 = 8'd0;
   hi_ptr = 6'd0; hi_rem = 9'sd0; hi_rem_pos = 1'b0; hi_gt = ~64'd1; hi_act_vl = 4'd15;
   hi_rdy = 64'd0; hi_rdy_gt = 64'd0; hi_act_rdy = 1'b0; hi_pick_cont = 1'b0;
   hi_pick_bank = 4'd0; hi_pick_sub = 16'd0; hi_pick_bvl = 16'd0;
end

// Stage A: the entry's VL is ready; also masked to the entries after the active one.
// (The pointer moves in the clock of a take, so it is current here for every offer that
// can be shown; the remaining weight, committed a clock later, is only needed in B.)
// The 16:1 lookup is two kept 8:1 halves, so that the mask by hi_gt shares the last
// LUT with the halves' select instead of following it (a LUT level less).
(* keep *) wire [63:0] hi_m8l;    // vl_ready[{0, vl[2:0]}]
(* keep *) wire [63:0] hi_m8h;    // vl_ready[{1, vl[2:0]}]
wire [63:0] hi_rdy_n;
generate
   for (g = 0; g < 64; g = g + 1) begin : hi_lookup
      assign hi_m8l[g] = vl_ready[{1'b0, hi_vlf[4*g +: 3]}];
      assign hi_m8h[g] = vl_ready[{1'b1, hi_vlf[4*g +: 3]}];
      assign hi_rdy_n[g] = hi_vlf[4*g+3] ? hi_m8h[g] : hi_m8l[g];
   end
endgenerate
always @(posedge clock) begin
   hi_rdy <= hi_rdy_n;
   hi_rdy_gt <= hi_gt & hi_rdy_n;
   hi_act_rdy <= vl_ready[hi_act_vl];
end

// Stage B: the model's find(): the active entry while it has weight and is ready, else
// the first ready entry after it, wrapping. The scan does not look at the remaining
// weight: whether the active entry goes on is a bit of its own, resolved in C.
// The pick is the first rdy_gt entry when there is one, else the first rdy entry. It is
// found, and registered, in pieces that C puts together with one AND-OR level: which
// group of 16 entries (a "bank") holds it, one-hot, the same prefix scan over the
// banks' ORs; and for every bank, its own first candidate's index within the bank and
// VL (only the picked bank's are used), mux trees over groups of 4 whose selects are
// the groups' ORs. The VL trees are left unkept so that ABC can merge their levels
// (kept, they cost up to 130 LUT4 more on ECP5 and ran slower). Registering the pick
// as a 64-bit one-hot put a 64-to-6 encoder in front of C's Weights read and a 64-way
// AND-OR in front of offer_vl: the ECP5 critical paths.
(* keep *) wire [15:0] hi_a4;        // some rdy in group of 4 g
(* keep *) wire [15:0] hi_b4;        // some rdy_gt in group of 4 g
(* keep *) wire [3:0] hi_a16;        // some rdy in bank m
(* keep *) wire [3:0] hi_b16;        // some rdy_gt in bank m
(* keep *) wire [3:0] hi_pa16;       // some rdy_gt anywhere, or some rdy in an earlier bank
(* keep *) wire [3:0] hi_pb16;       // some rdy_gt in an earlier bank
(* keep *) wire [31:0] hi_ea;        // per group of 4: where its first rdy is
(* keep *) wire [31:0] hi_eb;        // per group of 4: where its first rdy_gt is
wire [63:0] hi_va;                   // per group of 4: the VL of its first rdy entry
wire [63:0] hi_vb;                   // per group of 4: the VL of its first rdy_gt entry
wire hi_any_gt = |hi_b16;           // the pick is a rdy_gt entry (else it wraps)
wire [3:0] hi_bank_n;
wire [15:0] hi_sub_n;
wire [15:0] hi_bvl_n;
generate
   for (g = 0; g < 16; g = g + 1) begin : hi_scan4
      assign hi_a4[g] = |hi_rdy[4*g +: 4];
      assign hi_b4[g] = |hi_rdy_gt[4*g +: 4];
      assign hi_ea[2*g +: 2] = first_of4(hi_rdy[4*g +: 3]);
      assign hi_eb[2*g +: 2] = first_of4(hi_rdy_gt[4*g +: 3]);
      assign hi_va[4*g +: 4] = pick_of4(hi_rdy[4*g +: 3],
         hi_vlf[16*g +: 16]);
      assign hi_vb[4*g +: 4] = pick_of4(hi_rdy_gt[4*g +: 3],
         hi_vlf[16*g +: 16]);
   end
   for (g = 0; g < 4; g = g + 1) begin : hi_scan16
      assign hi_a16[g] = |hi_a4[4*g +: 4];
      assign hi_b16[g] = |hi_b4[4*g +: 4];
      if (g == 0) begin : hi_first16
         assign hi_pa16[g] = |hi_b16;
         assign hi_pb16[g] = 1'b0;
      end else begin : hi_later16
         assign hi_pa16[g] = (|hi_b16) | (|hi_a16[0 +: g]);
         assign hi_pb16[g] = |hi_b16[0 +: g];
      end
      assign hi_bank_n[g] = (hi_a16[g] & ~hi_pa16[g]) | (hi_b16[g] & ~hi_pb16[g]);
      // The bank's first candidate: its first group with one, then that group's own.
      wire [3:0] sa = {first_of4(hi_a4[4*g +: 3]), pick2_of4(hi_a4[4*g +: 3], hi_ea[8*g +: 8])};
      wire [3:0] sb = {first_of4(hi_b4[4*g +: 3]), pick2_of4(hi_b4[4*g +: 3], hi_eb[8*g +: 8])};
      wire [3:0] la = pick_of4(hi_a4[4*g +: 3], hi_va[16*g +: 16]);
      wire [3:0] lb = pick_of4(hi_b4[4*g +: 3], hi_vb[16*g +: 16]);
      assign hi_sub_n[4*g +: 4] = hi_any_gt ? sb : sa;
      assign hi_bvl_n[4*g +: 4] = hi_any_gt ? lb : la;
   end
endgenerate
// Some entry is ready; the active entry still has weight left and is ready.
wire hi_found = |hi_a16;
wire hi_cont = hi_rem_pos & hi_act_rdy;
always @(posedge clock) begin
   hi_pick_bank <= hi_bank_n;
   hi_pick_sub <= hi_sub_n;
   hi_pick_bvl <= hi_bvl_n;
   hi_pick_cont <= hi_cont;
end

// Stage C input: the picked entry's index and VL (0 when none), and the same for the
// active entry when it goes on.
wire [5:0] hi_scan_idx = {hi_pick_bank[3] | hi_pick_bank[2], hi_pick_bank[3] | hi_pick_bank[1],
                           bank_sel(hi_pick_bank, hi_pick_sub)};
wire [3:0] hi_scan_vl = bank_sel(hi_pick_bank, hi_pick_bvl);
wire [5:0] hi_e_idx = hi_pick_cont ? hi_ptr : hi_scan_idx;
wire [3:0] hi_e_vl = hi_pick_cont ? hi_act_vl : hi_scan_vl;

// A take moves the pointer at once (the offered entry becomes the active one); its
// remaining weight is committed the clock after (t1_*); configuration of the clock of
// the take acts after that: a write, then reset. (No take can come in the clock a
// configuration change acts: offers are held off.)
wire hi_take = take_now & (offer_table == 1'b0);
wire hi_commit = t1_go & (t1_low == 1'b0);
wire hi_wr = ev_wr & (ev_wr_low == 1'b0);
// A write to the active entry reloads its remaining weight (the model's write_entry).
wire hi_wr_active = hi_wr & (ev_wr_index == hi_ptr);
wire [7:0] hi_w0_n = (hi_wr && ev_wr_index == 6'd0) ? ev_wr_weight : hi_w0;
wire [3:0] hi_vl0_n = (hi_wr && ev_wr_index == 6'd0) ? ev_wr_vl_stored : hi_vlf[3:0];
always @(posedge clock) begin
   if (hi_wr) hi_vs[ev_wr_index] <= ev_wr_vl_stored[VB-1:0];
   hi_w0 <= hi_w0_n;
   if (ev_reset) begin
      hi_ptr <= 6'd0;
      hi_gt <= ~64'd1;
      hi_act_vl <= hi_vl0_n;
   end else if (hi_wr_active) begin
      hi_act_vl <= ev_wr_vl_stored;
   end else if (hi_take) begin
      hi_ptr <= offer_entry;
      hi_gt <= ~64'd1 << offer_entry;
      hi_act_vl <= offer_vl;
   end
   if (ev_reset) begin
      hi_rem <= $signed({1'b0, hi_w0_n});
      hi_rem_pos <= |hi_w0_n;
   end else if (hi_wr_active) begin
      hi_rem <= $signed({1'b0, ev_wr_weight});
      hi_rem_pos <= |ev_wr_weight;
   end else if (hi_commit) begin
      hi_rem <= t1_wl;
      hi_rem_pos <= ~t1_wl[8] & (|t1_wl);
   end
end

// The table's Weights (block RAM on iCE40): the picked entry's Weight is read at the end
// of stage C and shows during the offer. One RAM per table, so that the read address is
// the table's own pick (the table choice selects the read data instead). The address is
// the scan's pick even when the active entry goes on: the offer then uses the remaining
// weight (c_cont), never this read, so pick_cont stays off the address.
reg [7:0] hi_weights [0:63];
reg [7:0] hi_weight_q;
initial begin
   for (i = 0; i < 64; i = i + 1) hi_weights[i] = 8'd0;
   hi_weight_q = 8'd0;
end
always @(posedge clock) begin
   if (hi_wr) hi_weights[ev_wr_index] <= ev_wr_weight;
   hi_weight_q <= hi_weights[hi_scan_idx];
end

// ======== low-priority table ========
// VLArbitrationTable entries: the VL as stored, 15 if the entry is skipped; the Weights
// are in `weights` below. A stored VL is below VLCap or 15, so only its low VB bits are
// kept (VB = 1/2/3/4/4 for VLCap 1/2/4/8/15); below four, the top kept bit is set only
// for 15 and the bits above it copy it. Four bits at every VLCap were flip-flops that
// always equal the top kept bit (Yosys cannot prove it): 192/128/64 per table at VLCap 1/2/4.
reg [VB-1:0] lo_vs [0:63];
wire [255:0] lo_vlf;           // every entry's 4-bit VL, entry i at [4i+3:4i]
generate
   for (g = 0; g < 64; g = g + 1) begin : lo_vl_widen
      if (VB == 4) begin : whole
         assign lo_vlf[4*g +: 4] = lo_vs[g];
      end else begin : copied
         // The bits above the kept ones copy the top kept bit.
         assign lo_vlf[4*g +: 4] = {{(4-VB){lo_vs[g][VB-1]}}, lo_vs[g]};
      end
   end
endgenerate
reg [7:0] lo_w0;               // entry 0's Weight (for reset)
reg [5:0] lo_ptr;              // active entry
reg signed [8:0] lo_rem;       // its remaining weight (a packet may overdraw it)
reg lo_rem_pos;                // lo_rem > 0
reg [63:0] lo_gt;              // entries after the active one (bit i: i > lo_ptr)
reg [3:0] lo_act_vl;           // the active entry's VL as stored
reg [63:0] lo_rdy;             // stage A: entry ready
reg [63:0] lo_rdy_gt;          // stage A: entry ready and after the active one
reg lo_act_rdy;                // stage A: the active entry ready
// Stage B: the first ready entry after the active one, wrapping, in pieces (see below):
reg [3:0] lo_pick_bank;        //   the bank (group of 16 entries) holding it, one-hot (0: none)
reg [15:0] lo_pick_sub;        //   per bank, the index within it of the bank's first candidate
reg [15:0] lo_pick_bvl;        //   per bank, that candidate's VL
reg lo_pick_cont;              // stage B: the active entry goes on instead (weight left, ready)
initial begin
   for (i = 0; i < 64; i = i + 1) begin
      lo_vs[i] = {VB{1'b1}};
   end
   lo_w0 = 8'd0;
   lo_ptr = 6'd0; lo_rem = 9'sd0; lo_rem_pos = 1'b0; lo_gt = ~64'd1; lo_act_vl = 4'd15;
   lo_rdy = 64'd0; lo_rdy_gt = 64'd0; lo_act_rdy = 1'b0; lo_pick_cont = 1'b0;
   lo_pick_bank = 4'd0; lo_pick_sub = 16'd0; lo_pick_bvl = 16'd0;
end

// Stage A: the entry's VL is ready; also masked to the entries after the active one.
// (The pointer moves in the clock of a take, so it is current here for every offer that
// can be shown; the remaining weight, committed a clock later, is only needed in B.)
// The 16:1 lookup is two kept 8:1 halves, so that the mask by lo_gt shares the last
// LUT with the halves' select instead of following it (a LUT level less).
(* keep *) wire [63:0] lo_m8l;    // vl_ready[{0, vl[2:0]}]
(* keep *) wire [63:0] lo_m8h;    // vl_ready[{1, vl[2:0]}]
wire [63:0] lo_rdy_n;
generate
   for (g = 0; g < 64; g = g + 1) begin : lo_lookup
      assign lo_m8l[g] = vl_ready[{1'b0, lo_vlf[4*g +: 3]}];
      assign lo_m8h[g] = vl_ready[{1'b1, lo_vlf[4*g +: 3]}];
      assign lo_rdy_n[g] = lo_vlf[4*g+3] ? lo_m8h[g] : lo_m8l[g];
   end
endgenerate
always @(posedge clock) begin
   lo_rdy <= lo_rdy_n;
   lo_rdy_gt <= lo_gt & lo_rdy_n;
   lo_act_rdy <= vl_ready[lo_act_vl];
end

// Stage B: the model's find(): the active entry while it has weight and is ready, else
// the first ready entry after it, wrapping. The scan does not look at the remaining
// weight: whether the active entry goes on is a bit of its own, resolved in C.
// The pick is the first rdy_gt entry when there is one, else the first rdy entry. It is
// found, and registered, in pieces that C puts together with one AND-OR level: which
// group of 16 entries (a "bank") holds it, one-hot, the same prefix scan over the
// banks' ORs; and for every bank, its own first candidate's index within the bank and
// VL (only the picked bank's are used), mux trees over groups of 4 whose selects are
// the groups' ORs. The VL trees are left unkept so that ABC can merge their levels
// (kept, they cost up to 130 LUT4 more on ECP5 and ran slower). Registering the pick
// as a 64-bit one-hot put a 64-to-6 encoder in front of C's Weights read and a 64-way
// AND-OR in front of offer_vl: the ECP5 critical paths.
(* keep *) wire [15:0] lo_a4;        // some rdy in group of 4 g
(* keep *) wire [15:0] lo_b4;        // some rdy_gt in group of 4 g
(* keep *) wire [3:0] lo_a16;        // some rdy in bank m
(* keep *) wire [3:0] lo_b16;        // some rdy_gt in bank m
(* keep *) wire [3:0] lo_pa16;       // some rdy_gt anywhere, or some rdy in an earlier bank
(* keep *) wire [3:0] lo_pb16;       // some rdy_gt in an earlier bank
(* keep *) wire [31:0] lo_ea;        // per group of 4: where its first rdy is
(* keep *) wire [31:0] lo_eb;        // per group of 4: where its first rdy_gt is
wire [63:0] lo_va;                   // per group of 4: the VL of its first rdy entry
wire [63:0] lo_vb;                   // per group of 4: the VL of its first rdy_gt entry
wire lo_any_gt = |lo_b16;           // the pick is a rdy_gt entry (else it wraps)
wire [3:0] lo_bank_n;
wire [15:0] lo_sub_n;
wire [15:0] lo_bvl_n;
generate
   for (g = 0; g < 16; g = g + 1) begin : lo_scan4
      assign lo_a4[g] = |lo_rdy[4*g +: 4];
      assign lo_b4[g] = |lo_rdy_gt[4*g +: 4];
      assign lo_ea[2*g +: 2] = first_of4(lo_rdy[4*g +: 3]);
      assign lo_eb[2*g +: 2] = first_of4(lo_rdy_gt[4*g +: 3]);
      assign lo_va[4*g +: 4] = pick_of4(lo_rdy[4*g +: 3],
         lo_vlf[16*g +: 16]);
      assign lo_vb[4*g +: 4] = pick_of4(lo_rdy_gt[4*g +: 3],
         lo_vlf[16*g +: 16]);
   end
   for (g = 0; g < 4; g = g + 1) begin : lo_scan16
      assign lo_a16[g] = |lo_a4[4*g +: 4];
      assign lo_b16[g] = |lo_b4[4*g +: 4];
      if (g == 0) begin : lo_first16
         assign lo_pa16[g] = |lo_b16;
         assign lo_pb16[g] = 1'b0;
      end else begin : lo_later16
         assign lo_pa16[g] = (|lo_b16) | (|lo_a16[0 +: g]);
         assign lo_pb16[g] = |lo_b16[0 +: g];
      end
      assign lo_bank_n[g] = (lo_a16[g] & ~lo_pa16[g]) | (lo_b16[g] & ~lo_pb16[g]);
      // The bank's first candidate: its first group with one, then that group's own.
      wire [3:0] sa = {first_of4(lo_a4[4*g +: 3]), pick2_of4(lo_a4[4*g +: 3], lo_ea[8*g +: 8])};
      wire [3:0] sb = {first_of4(lo_b4[4*g +: 3]), pick2_of4(lo_b4[4*g +: 3], lo_eb[8*g +: 8])};
      wire [3:0] la = pick_of4(lo_a4[4*g +: 3], lo_va[16*g +: 16]);
      wire [3:0] lb = pick_of4(lo_b4[4*g +: 3], lo_vb[16*g +: 16]);
      assign lo_sub_n[4*g +: 4] = lo_any_gt ? sb : sa;
      assign lo_bvl_n[4*g +: 4] = lo_any_gt ? lb : la;
   end
endgenerate
// Some entry is ready; the active entry still has weight left and is ready.
wire lo_found = |lo_a16;
wire lo_cont = lo_rem_pos & lo_act_rdy;
always @(posedge clock) begin
   lo_pick_bank <= lo_bank_n;
   lo_pick_sub <= lo_sub_n;
   lo_pick_bvl <= lo_bvl_n;
   lo_pick_cont <= lo_cont;
end

// Stage C input: the picked entry's index and VL (0 when none), and the same for the
// active entry when it goes on.
wire [5:0] lo_scan_idx = {lo_pick_bank[3] | lo_pick_bank[2], lo_pick_bank[3] | lo_pick_bank[1],
                           bank_sel(lo_pick_bank, lo_pick_sub)};
wire [3:0] lo_scan_vl = bank_sel(lo_pick_bank, lo_pick_bvl);
wire [5:0] lo_e_idx = lo_pick_cont ? lo_ptr : lo_scan_idx;
wire [3:0] lo_e_vl = lo_pick_cont ? lo_act_vl : lo_scan_vl;

// A take moves the pointer at once (the offered entry becomes the active one); its
// remaining weight is committed the clock after (t1_*); configuration of the clock of
// the take acts after that: a write, then reset. (No take can come in the clock a
// configuration change acts: offers are held off.)
wire lo_take = take_now & (offer_table == 1'b1);
wire lo_commit = t1_go & (t1_low == 1'b1);
wire lo_wr = ev_wr & (ev_wr_low == 1'b1);
// A write to the active entry reloads its remaining weight (the model's write_entry).
wire lo_wr_active = lo_wr & (ev_wr_index == lo_ptr);
wire [7:0] lo_w0_n = (lo_wr && ev_wr_index == 6'd0) ? ev_wr_weight : lo_w0;
wire [3:0] lo_vl0_n = (lo_wr && ev_wr_index == 6'd0) ? ev_wr_vl_stored : lo_vlf[3:0];
always @(posedge clock) begin
   if (lo_wr) lo_vs[ev_wr_index] <= ev_wr_vl_stored[VB-1:0];
   lo_w0 <= lo_w0_n;
   if (ev_reset) begin
      lo_ptr <= 6'd0;
      lo_gt <= ~64'd1;
      lo_act_vl <= lo_vl0_n;
   end else if (lo_wr_active) begin
      lo_act_vl <= ev_wr_vl_stored;
   end else if (lo_take) begin
      lo_ptr <= offer_entry;
      lo_gt <= ~64'd1 << offer_entry;
      lo_act_vl <= offer_vl;
   end
   if (ev_reset) begin
      lo_rem <= $signed({1'b0, lo_w0_n});
      lo_rem_pos <= |lo_w0_n;
   end else if (lo_wr_active) begin
      lo_rem <= $signed({1'b0, ev_wr_weight});
      lo_rem_pos <= |ev_wr_weight;
   end else if (lo_commit) begin
      lo_rem <= t1_wl;
      lo_rem_pos <= ~t1_wl[8] & (|t1_wl);
   end
end

// The table's Weights (block RAM on iCE40): the picked entry's Weight is read at the end
// of stage C and shows during the offer. One RAM per table, so that the read address is
// the table's own pick (the table choice selects the read data instead). The address is
// the scan's pick even when the active entry goes on: the offer then uses the remaining
// weight (c_cont), never this read, so pick_cont stays off the address.
reg [7:0] lo_weights [0:63];
reg [7:0] lo_weight_q;
initial begin
   for (i = 0; i < 64; i = i + 1) lo_weights[i] = 8'd0;
   lo_weight_q = 8'd0;
end
always @(posedge clock) begin
   if (lo_wr) lo_weights[ev_wr_index] <= ev_wr_weight;
   lo_weight_q <= lo_weights[lo_scan_idx];
end

// ======== Stage B: choose the table (the model's grant(), docs/spec.md §6) ========
// A low turn under the weight policy goes on with its active entry while it can.
wire lo_continues = low_turn & low_open & lo_cont;
// The high table's turn (or a low turn that has just ended).
wire high_first = ~low_turn | low_open;
// High first: the low table only when the high table has nothing (the counter reloads).
// A fresh low turn: the high table only when the low table has nothing.
wire pick_low = lo_continues | (high_first ? ~hi_found : lo_found);
reg b_any;                 // some entry of either table is ready
reg b_low;                 // the low table sends
reg b_reload;              // a low packet because the high table had nothing: the counter reloads
initial begin
   b_any = 1'b0; b_low = 1'b0; b_reload = 1'b0;
end
always @(posedge clock) begin
   b_any <= hi_found | lo_found;
   b_low <= pick_low;
   b_reload <= pick_low & ~lo_continues & high_first & ~hi_found;
end

// ======== Stage C: read the chosen entry ========
wire [3:0] pick_vl = b_low ? lo_e_vl : hi_e_vl;
wire [5:0] pick_idx = b_low ? lo_e_idx : hi_e_idx;

// The offered entry's Weight, read from its table's RAM at the end of stage C.
wire [7:0] offer_weight = offer_table ? lo_weight_q : hi_weight_q;

always @(posedge clock) begin
   offer_valid <= b_any & (hold_next == 3'd0);
   offer_table <= b_low;
   offer_entry <= pick_idx;
   offer_vl <= pick_vl;
   for (v = 0; v < VLS; v = v + 1) offer_vl_hot[v] <= pick_vl == v[3:0];
   // The entry's weight before this packet: what is left while the active entry goes
   // on, else its Weight reloaded (offer_weight).
   c_cont <= b_low ? lo_pick_cont : hi_pick_cont;
   c_rem <= b_low ? lo_rem : hi_rem;
   // HighPriCounter once the packet is sent: a high packet counts its PktLen (not under
   // VLHighLimit 255, c_count); a low packet leaves it, reloaded if the high table had
   // nothing.
   c_count <= ~b_low & (limit != 8'd255);
   c_counter <= b_reload ? $signed(reload) : high_counter;
   for (v = 0; v < VLS; v = v + 1) begin
      c_blocks[8*v +: 8] <= blocks_of(b_len[11*v +: 11]);
      // The low 11 bits of HighPriCounter - PktLen for every VL, and the borrow.
      c_counter_low[12*v +: 12] <= {1'b0, high_counter[10:0]} - {1'b0, b_len[11*v +: 11]};
   end
   c_len <= b_len;
   b_len <= a_len;
   a_len <= head_len;
   hold <= hold_next;
end

// ======== The offer: the offered VL's numbers ========
// Every VL's {low bits of HighPriCounter - PktLen, blocks, PktLen}, selected by
// offer_vl_hot: first per group of 4 VLs, kept as LUT boundaries so the select is a
// balanced tree (a group, then an OR over the groups) and not the chain of ORs the
// mapper otherwise builds in front of offer_weight_left's subtraction. Groups of 4, not
// pairs: pairs map larger on ECP5 (docs/synthesis-history.md).
localparam QUADS = (VLS + 3) / 4;
wire [31*VLS-1:0] per_vl;
(* keep *) wire [31*QUADS-1:0] quad_sel;
generate
   for (g = 0; g < VLS; g = g + 1) begin : g_per_vl
      assign per_vl[31*g +: 31] = {c_counter_low[12*g +: 12], c_blocks[8*g +: 8], c_len[11*g +: 11]};
   end
   for (g = 0; g < QUADS; g = g + 1) begin : g_quad
      reg [30:0] q;
      integer k;
      always @(*) begin
         q = 31'd0;
         for (k = 4*g; k < 4*g + 4 && k < VLS; k = k + 1)
            q = q | ({31{offer_vl_hot[k]}} & per_vl[31*k +: 31]);
      end
      assign quad_sel[31*g +: 31] = q;
   end
endgenerate
reg [11:0] counter_low;
// HighPriCounter's upper bits when the packet causes no borrow (or does not count).
wire [7:0] counter_upper_kept = c_count ? high_counter[18:11] : c_counter[18:11];
always @(*) begin
   {counter_low, offer_blocks, offer_pkt_len} = 31'd0;
   // Its own loop variable: v is the clocked blocks' (one variable in both kinds of block
   // is a register with two drivers to Yosys's check).
   for (quad = 0; quad < QUADS; quad = quad + 1)
      {counter_low, offer_blocks, offer_pkt_len} = {counter_low, offer_blocks, offer_pkt_len} | quad_sel[31*quad +: 31];
   // The entry's weight once this packet is sent (may go negative).
   offer_weight_left = (c_cont ? c_rem : $signed({1'b0, offer_weight})) - $signed({1'b0, offer_blocks});
   // HighPriCounter's upper bits: the borrow selects last, so behind the select there is
   // one LUT (borrow, c_count, counter_upper_less1, counter_upper_kept).
   offer_high_counter[18:11] = (c_count & counter_low[11]) ? counter_upper_less1 : counter_upper_kept;
   offer_high_counter[10:0] = c_count ? counter_low[10:0] : c_counter[10:0];
end

// ======== Take, commit, configuration ========
always @(posedge clock) begin
   t1_go <= take_now;
   t1_low <= offer_table;
   t1_wl <= offer_weight_left;
   t1_hc <= offer_high_counter;
   // The take of the clock before (docs/spec.md §6).
   if (t1_go) begin
      if (!t1_low) begin
         // A high packet: once the counter is negative it reloads and the low table
         // becomes active.
         high_counter <= t1_hc[18] ? $signed(reload) : t1_hc;
         low_turn <= t1_hc[18];
         low_open <= 1'b0;
      end else begin
         // A low packet: the turn is over after one packet (one-packet policy) or when
         // the entry's weight is exhausted.
         high_counter <= t1_hc;
         low_turn <= ~(one_packet | t1_wl[8] | ~(|t1_wl));
         low_open <= ~(one_packet | t1_wl[8] | ~(|t1_wl));
      end
   end
   // Configuration sampled the clock before, after the take.
   if (ev_limit) high_counter <= $signed({1'b0, limit_in, 10'd0});
   if (ev_reset) begin
      high_counter <= $signed({1'b0, limit_in, 10'd0});
      low_turn <= 1'b0;
      low_open <= 1'b0;
   end
   limit <= limit_in;
   one_packet <= policy_in;
   enable <= enable_in;
   // This clock's configuration, sampled.
   ev_wr <= wr_en;
   ev_wr_low <= wr_table;
   ev_wr_index <= wr_index;
   // Whether the entry can send is decided here, as the write is sampled, so that the
   // Weight compare is not in front of the table and act_vl (ECP5's critical path at
   // VLCap 1, 2 and 4 when it was decided from the sampled write).
   ev_wr_vl_stored <= (wr_weight != 8'd0 && wr_vl < VL_CAP) ? wr_vl : 4'd15;
   ev_wr_weight <= wr_weight;
   ev_reset <= reset;
   ev_limit <= vl_high_limit != limit_in;
   limit_in <= vl_high_limit;
   policy_in <= low_policy;
   enable_in <= vl_enable;
end
endmodule
`default_nettype wire
