// fv_vl_arb: formal harness of iblink_vl_arb (the data-VL arbiter, docs/spec.md §6 and §7).
//
// Every input is arbitrary in every clock: heads, takes, table writes, VLHighLimit, the
// low policy, the VL enables and reset. No assumption is made. The tables are the DUT's
// own (written by the free wr_* inputs); under induction their contents are arbitrary,
// so the proof covers every table (and every rewrite of one while traffic flows).
//
// What is proven, against the module's header cycle contract ("an offer shown at t is
// decided on head_valid/head_len as sampled at t-3"; configuration "acts one clock after
// it is presented"):
//  1. Offers are legal (docs/spec.md §6 "An entry ... naming VL15, a VL at or above VLCap, or
//     a disabled VL, is skipped"; "eligible while ... its VL has a packet whose credit
//     check passes"): whenever offer_valid, offer_vl < VLS (so never VL15), the offered
//     VL had head_valid (a head packet whose credit check passes) 3 clocks before, it
//     was enabled then, the offered table entry names offer_vl, and offer_pkt_len is
//     that VL's head_len of 3 clocks before. A take is a take of an offer, so no grant
//     is ever made to an empty, credit-less, disabled, VL15 or >= VLCap VL.
//  2. Table storage (docs/spec.md §6 "An entry with Weight 0, or naming VL15, a VL at or above
//     VLCap ... is skipped"): a write of (vl, weight) to an entry stores vl if weight != 0
//     and vl < VLCap, else 15 (never eligible), visible 2 clocks after the write.
//  3. VLHighLimit (docs/spec.md §6: VLHighLimit 1-254, "limit x 1024 dwords may be sent from
//     the high table before the low table gets a turn"; HighPriCounter counts PktLen
//     dwords; a high packet starts while the counter is not negative): hs counts the
//     dwords of high-table packets taken while the low table had an eligible entry (as
//     the offer saw it, 3 clocks before), since the low table last sent or last had
//     nothing eligible at a take, or since reset / a VLHighLimit change (both reload the
//     counter). Before every such high take hs <= VLHighLimit x 1024: the high table
//     never sends more than limit x 1024 dwords plus one packet while the low table has
//     an eligible packet. Checked for every limit but 255 (no limit), 0 included.
//  4. The offered HighPriCounter of a high packet is HighPriCounter - PktLen (unchanged
//     under VLHighLimit 255).
//  5. After a reset or a VLHighLimit change, HighPriCounter is VLHighLimit x 1024.
//
// "Low eligible" is computed here from the stored table (tap of the DUT's entry VLs,
// whose storage rule property 2 checks), head_valid and the enables, independently of
// the DUT's ready/scan logic.
`default_nettype none
module fv_vl_arb #(
    parameter VLS = 4
) (
    input wire               clock,
    input wire               reset,
    input wire [VLS-1:0]     head_valid,
    input wire [11*VLS-1:0]  head_len,
    input wire               take,
    input wire               wr_en,
    input wire               wr_table,
    input wire [5:0]         wr_index,
    input wire [3:0]         wr_vl,
    input wire [7:0]         wr_weight,
    input wire [7:0]         vl_high_limit,
    input wire               low_policy,
    input wire [VLS-1:0]     vl_enable
);

wire        offer_valid;
wire [3:0]  offer_vl;
wire        offer_table;
wire [5:0]  offer_entry;
wire [10:0] offer_pkt_len;
wire [7:0]  offer_blocks;
wire [8:0]  offer_weight_left;
wire [18:0] offer_high_counter;

iblink_vl_arb #(.VLS(VLS)) dut (
    .clock(clock), .reset(reset), .head_valid(head_valid), .head_len(head_len),
    .take(take), .wr_en(wr_en), .wr_table(wr_table), .wr_index(wr_index), .wr_vl(wr_vl),
    .wr_weight(wr_weight), .vl_high_limit(vl_high_limit), .low_policy(low_policy),
    .vl_enable(vl_enable), .offer_valid(offer_valid), .offer_vl(offer_vl),
    .offer_table(offer_table), .offer_entry(offer_entry), .offer_pkt_len(offer_pkt_len),
    .offer_blocks(offer_blocks), .offer_weight_left(offer_weight_left),
    .offer_high_counter(offer_high_counter));

// ---- Taps (formal.toml): DUT-internal signals ----
(* keep *) wire [255:0] fv_hi_vlf;    // dut.hi_vlf: every high entry's stored VL (4i+3:4i)
(* keep *) wire [255:0] fv_lo_vlf;    // dut.lo_vlf
(* keep *) wire [5:0]   fv_hi_ptr;    // dut.hi_ptr: the active high entry
(* keep *) wire [3:0]   fv_hi_act_vl; // dut.hi_act_vl: its VL as stored (a copy)
(* keep *) wire [5:0]   fv_lo_ptr;
(* keep *) wire [3:0]   fv_lo_act_vl;
(* keep *) wire [7:0]   fv_limit_in;  // dut.limit_in, dut.limit: VLHighLimit sampled, in effect
(* keep *) wire [7:0]   fv_limit;
(* keep *) wire [VLS-1:0] fv_enable_in; // dut.enable_in, dut.enable
(* keep *) wire [VLS-1:0] fv_enable;
(* keep *) wire [18:0]  fv_hc;        // dut.high_counter: HighPriCounter (signed)
(* keep *) wire         fv_low_turn;  // dut.low_turn
(* keep *) wire         fv_low_open;  // dut.low_open
(* keep *) wire         fv_t1_go;     // dut.t1_go: a take is being committed this clock
(* keep *) wire [2:0]   fv_hold;      // dut.hold: clocks until an offer may show again
(* keep *) wire [63:0]  fv_lo_rdy;    // dut.lo_rdy: stage A, low entry ready (a clock ago)
(* keep *) wire         fv_b_any;     // dut.b_any: stage B, some entry was ready
(* keep *) wire         fv_b_low;     // dut.b_low: stage B, the low table sends

// ---- Configuration as the contract says it acts (power-up: as if 0 the clock before) ----
reg [7:0]     h_lim_in = 8'd0;       // vl_high_limit of the clock before
reg [7:0]     h_lim = 8'd0;          // VLHighLimit in effect
reg [VLS-1:0] h_en_in = {VLS{1'b0}};
reg [VLS-1:0] h_en = {VLS{1'b0}};    // VL enables in effect
reg           h_rst_q = 1'b0;        // reset of the clock before: acts in this clock
always @(posedge clock) begin
    h_lim_in <= vl_high_limit;
    h_lim <= h_lim_in;
    h_en_in <= vl_enable;
    h_en <= h_en_in;
    h_rst_q <= reset;
end
// Invariants: these registers are the DUT's, delayed the same way.
always @(*) begin
    assert(fv_limit_in == h_lim_in);
    assert(fv_limit == h_lim);
    assert(fv_enable_in == h_en_in);
    assert(fv_enable == h_en);
end

// ---- Readiness from the stored tables (independent of the DUT's scan) ----
// A VL is ready: below VLCap, a head whose credit check passes, enabled.
// (Vectors widened to 16 bits so that any VL indexes a defined bit.)
function vl_ok;
    input [3:0] vl;
    input [15:0] hv;
    input [15:0] en;
    begin
        vl_ok = (vl < VLS) && hv[vl] && en[vl];
    end
endfunction
wire [15:0] hv16 = {{(16-VLS){1'b0}}, head_valid};
wire [15:0] en16 = {{(16-VLS){1'b0}}, h_en};
wire [63:0] lo_elig_e;
genvar g;
generate for (g = 0; g < 64; g = g + 1) begin : ent
    assign lo_elig_e[g] = vl_ok(fv_lo_vlf[4*g +: 4], hv16, en16);
    // An entry stores a VL below VLCap or 15 (invariant: property 2 is the only way in).
    always @(*) begin
        assert(fv_hi_vlf[4*g +: 4] < VLS || fv_hi_vlf[4*g +: 4] == 4'd15);
        assert(fv_lo_vlf[4*g +: 4] < VLS || fv_lo_vlf[4*g +: 4] == 4'd15);
    end
end endgenerate
wire lo_elig = |lo_elig_e;

// ---- Heads, enables and low eligibility as sampled 3 clocks before ----
reg [15:0]       hv1 = 0, hv2 = 0, hv3 = 0;
reg [11*16-1:0]  hl1 = 0, hl2 = 0, hl3 = 0;
reg [15:0]       en1 = 0, en2 = 0, en3 = 0;
reg              le1 = 0, le2 = 0, le3 = 0;
always @(posedge clock) begin
    hv1 <= hv16;       hv2 <= hv1; hv3 <= hv2;
    hl1 <= {{(11*(16-VLS)){1'b0}}, head_len}; hl2 <= hl1; hl3 <= hl2;
    en1 <= en16;       en2 <= en1; en3 <= en2;
    le1 <= lo_elig;    le2 <= le1; le3 <= le2;
end

// ---- 1. offers are legal ----
wire [3:0] offered_stored = offer_table ? fv_lo_vlf[4*offer_entry +: 4] : fv_hi_vlf[4*offer_entry +: 4];
always @(*) begin
    if (offer_valid) begin
        assert(offer_vl < VLS);                         // property 1
        assert(hv3[offer_vl]);                          // property 1
        assert(en3[offer_vl]);                          // property 1
        assert(offered_stored == offer_vl);             // property 1
        assert(offer_pkt_len == hl3[11*offer_vl +: 11]); // property 1
    end
end

// ---- 2. table storage ----
reg        w1 = 1'b0, w2 = 1'b0;
reg        w1_t, w2_t;
reg [5:0]  w1_i, w2_i;
reg [3:0]  w1_v, w2_v;
always @(posedge clock) begin
    w1 <= wr_en; w2 <= w1;
    w1_t <= wr_table; w2_t <= w1_t;
    w1_i <= wr_index; w2_i <= w1_i;
    w1_v <= (wr_weight != 8'd0 && wr_vl < VLS) ? wr_vl : 4'd15;
    w2_v <= w1_v;
end
wire [3:0] written = w2_t ? fv_lo_vlf[4*w2_i +: 4] : fv_hi_vlf[4*w2_i +: 4];
always @(*) if (w2) assert(written == w2_v);            // property 2

// ---- 3. VLHighLimit ----
wire take_now = take && offer_valid;
wire hi_take = take_now && !offer_table;
wire lo_take = take_now && offer_table;
wire counted = hi_take && le3;              // a high packet while the low table had one
wire [19:0] lim_dw = {2'd0, h_lim, 10'd0};  // VLHighLimit x 1024 dwords
wire limited = h_lim != 8'd255;
reg [19:0] hs = 20'd0;
always @(posedge clock) begin
    // Reset and a VLHighLimit change (acting this clock) reload HighPriCounter.
    if (h_rst_q || h_lim_in != h_lim) hs <= 20'd0;
    else if (lo_take || (hi_take && !le3)) hs <= 20'd0;
    else if (counted) hs <= hs + {9'd0, offer_pkt_len};
end
always @(*) if (counted && limited) assert(hs <= lim_dw); // property 3

// ---- 4. the offered HighPriCounter (docs/spec.md §6: a high packet subtracts its PktLen in
// dwords, not under VLHighLimit 255; offer_high_counter is the counter once the offered
// packet is sent, before any reload: module header) ----
always @(*) if (offer_valid && !offer_table)
    assert(offer_high_counter == (limited ? fv_hc - {8'd0, offer_pkt_len} : fv_hc)); // property 4

// ---- 5. the reload (docs/spec.md §6: limit x 1024 dwords may be sent from the high table
// before the low table gets a turn, so HighPriCounter starts there): in the clock after
// a reset or a VLHighLimit change acts, HighPriCounter is the new VLHighLimit x 1024 ----
reg cfg_q = 1'b0;   // a reset or a VLHighLimit change acted in the clock before
always @(posedge clock) cfg_q <= h_rst_q || h_lim_in != h_lim;
always @(*) if (cfg_q) assert(fv_hc == {1'b0, h_lim, 10'd0});   // property 5

// ---- Inductive invariants (left out of planted-bug runs: there the properties above
// must fail by themselves) ----
`ifndef IBLINK_FV_PLANTED
// Inductive invariants of the limit (checked only in a settled clock, with no take being
// committed; VLHighLimit not 255):
//  - the high table's turn (or a low turn under the weight policy that may hand back):
//    0 <= HighPriCounter <= limit x 1024 and hs + HighPriCounter <= limit x 1024, since
//    hs grows by exactly what the counter loses, both restart together, and a counter
//    going negative reloads it and opens a low turn;
//  - a fresh low turn: HighPriCounter was just reloaded (== limit x 1024); the next high
//    take can only come when the low table had nothing (which resets hs).
wire signed [23:0] hs_s = {4'd0, hs};
wire signed [23:0] lim_s = {4'd0, lim_dw};
wire signed [23:0] hc_s = $signed({{5{fv_hc[18]}}, fv_hc});
always @(*) begin
    if (limited && !fv_t1_go && !h_rst_q && h_lim_in == h_lim) begin
        // hs never passes the limit by more than one packet.
        assert(hs <= lim_dw + 20'd2047);
        if (!fv_low_turn || fv_low_open) begin
            assert(hc_s >= 0 && hc_s <= lim_s);
            assert(hs_s + hc_s <= lim_s);
        end else begin
            assert(hc_s == lim_s);
        end
    end
end

// ---- Invariants of the offer timing (the contract's gaps) ----
// An offer shows only with hold 0; a take sets hold to 3 (4 with a configuration change
// in the same clock), a configuration change to 4, so while a take is committed or a
// configuration acts (reset, VLHighLimit, enables, a table write of the clock before)
// hold is 3 or 4 and no offer shows: the state an offer was decided on is settled.
always @(*) begin
    assert(fv_hold <= 3'd4);
    if (offer_valid) assert(fv_hold == 3'd0);
    assert(!fv_t1_go || (fv_hold >= 3'd3 && !offer_valid));
    if (h_rst_q || h_lim_in != h_lim || h_en_in != h_en || w1) assert(fv_hold == 3'd4);
end

// ---- Invariants of the table decision (stage by stage, to the offer) ----
// Stage A's low ready bits are the harness's low eligibility of the clock before. At
// stage B a high pick although the low table had an eligible entry is only made in the
// high table's turn (or a low turn that hands back): the decision tree of docs/spec.md §6. The
// state it was made on is still the state while hold <= 1 (no take, commit or
// configuration since), and so at the offer.
always @(*) begin
    assert(le1 == |fv_lo_rdy);
    assert(!(fv_hold <= 3'd1 && fv_b_any && !fv_b_low && le2) || !fv_low_turn || fv_low_open);
    assert(!(offer_valid && !offer_table && le3) || !fv_low_turn || fv_low_open);
end

// ---- Invariants of the pick path ----
// The active entry's VL register is a copy of the entry's stored VL: it is loaded with
// the offered VL at a take (property 1: the entry names it), with the written VL when the
// active entry is written, and with entry 0's at reset.
always @(*) begin
    assert(fv_hi_act_vl == fv_hi_vlf[4*fv_hi_ptr +: 4]);
    assert(fv_lo_act_vl == fv_lo_vlf[4*fv_lo_ptr +: 4]);
end
`endif

endmodule
`default_nettype wire
