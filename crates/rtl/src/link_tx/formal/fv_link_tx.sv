// fv_link_tx: formal harness of iblink_link_tx (the link TX multiplexer and streamer).
//
// What is proven (docs/spec.md §5 "Transmit priority, at packet boundaries only (never
// fragmenting a packet): VL15 packets > FCPs > data VLs"; data only in LinkActive;
// docs/spec.md §2/3 item sizes), against the module's header cycle contract:
//  1. Decisions: the start pulses (vl15_take, fcp_start, take) fire only at an item
//     boundary (idle, or the last slot of the item in progress), never with reset, and at
//     a boundary exactly the spec's winner fires: VL15 if vl15_valid, else the FCP if
//     fcp_pending, else the data offer if link_active and offer_valid.
//  2. Reads: a packet started in clock s reads its source queue (src_vl = 15 for VL15,
//     offer_vl for data) with src_rd in clocks s+1 .. s+ceil(4 PktLen / W), one word per
//     clock, and src_rd is never high otherwise (an FCP reads nothing).
//  3. Wire: item word k is on tx_* in clock s+4+k, the item's words back to back, sop
//     on the first, eop on the last, tx_link on an FCP's; its keep is the item's
//     ceil(wire bytes / W) words' byte count (packet 4 PktLen + 2 bytes with the VCRC,
//     FCP 6); its data lanes are the source word read 3 clocks before (src_rd -> wire is
//     3 clocks), or the FCP framer's word presented 4 clocks before; bytes past keep are 0.
//     So the output beats of an item are the input beats of its source, in order, with
//     no beat of another item in between (the VCRC value itself is not checked here).
//  4. An independent wire monitor: between a tx_sop and its tx_eop every clock carries a
//     word of the same kind and no other sop (no interleaving on the wire), and a word
//     outside a packet starts one.
//  5. Reset (clock r): no pulse and no src_rd in r; from r+1 the wire is idle and the
//     transmitter is at a boundary.
//  6. Backpressure (docs/spec.md §10): the sink's tx_ready is an unconstrained input. A
//     clock moves when tx_ready is high or tx_valid low; every clock count above counts
//     moving clocks (the model below advances only in them), so in a clock that does not
//     move nothing starts, nothing is read and no FCP word is taken (fcp_ready low), and
//     an independent check: a word offered under tx_ready low is offered again, unchanged,
//     in the next clock (valid, data, keep, sop, eop, link), unless a reset drops it.
//     The wire monitor (4) follows the words that move.
//  7. The FCP's last beat (docs/spec.md §10): fcp_done is high exactly in a clock where
//     the model's word on the wire is an FCP's last word and it moves (tx_ready): the
//     clock the FCP framer's periods count from.
//
// The model below (h_*) is the contract's slot sequencer written from the spec: a start
// in clock s makes clocks s+1 .. s+n the item's slots, n = ceil(wire bytes / W), and the
// last slot is the next decision clock (zero bubble).
//
// Assumptions: none. Every input is arbitrary in every clock (the handshake rules of the
// interface -- fcp_pending held until fcp_start, the framer's words -- are not needed:
// each property is stated relative to what the DUT sampled). offer_vl is not restricted
// to data VLs: the block reads whichever queue it names.
`default_nettype none
module fv_link_tx #(
    parameter DATA_WIDTH = 32
) (
    input wire                  clock,
    input wire                  reset,
    input wire                  link_active,
    input wire                  vl15_valid,
    input wire [10:0]           vl15_len,
    input wire                  fcp_pending,
    input wire                  fcp_valid,
    input wire [DATA_WIDTH-1:0] fcp_data,
    input wire [DATA_WIDTH/8-1:0] fcp_keep,
    input wire                  fcp_sop,
    input wire                  fcp_eop,
    input wire                  offer_valid,
    input wire [3:0]            offer_vl,
    input wire [10:0]           offer_len,
    input wire [DATA_WIDTH-1:0] src_data,
    input wire                  tx_ready
);
localparam KW = DATA_WIDTH / 8;              // byte lanes
localparam KL = (DATA_WIDTH == 64) ? 3 : 2;  // log2(KW)
localparam LB = (DATA_WIDTH == 64) ? 10 : 11; // the DUT's a_left width

wire vl15_take, fcp_start, fcp_ready, fcp_done, take, src_rd;
wire [3:0] src_vl;
wire tx_valid, tx_sop, tx_eop, tx_link, fcp_framing_error;
wire [DATA_WIDTH-1:0] tx_data;
wire [KW-1:0] tx_keep;
wire [15:0] vl15_starts, fcp_starts, data_starts;

iblink_link_tx #(.DATA_WIDTH(DATA_WIDTH)) dut (
    .clock(clock), .reset(reset), .link_active(link_active),
    .vl15_valid(vl15_valid), .vl15_len(vl15_len), .vl15_take(vl15_take),
    .fcp_pending(fcp_pending), .fcp_start(fcp_start), .fcp_ready(fcp_ready), .fcp_done(fcp_done), .fcp_valid(fcp_valid),
    .fcp_data(fcp_data), .fcp_keep(fcp_keep), .fcp_sop(fcp_sop), .fcp_eop(fcp_eop),
    .offer_valid(offer_valid), .offer_vl(offer_vl), .offer_len(offer_len), .take(take),
    .src_rd(src_rd), .src_vl(src_vl), .src_data(src_data),
    .tx_ready(tx_ready), .tx_valid(tx_valid), .tx_data(tx_data), .tx_keep(tx_keep), .tx_sop(tx_sop),
    .tx_eop(tx_eop), .tx_link(tx_link), .fcp_framing_error(fcp_framing_error),
    .vl15_starts(vl15_starts), .fcp_starts(fcp_starts), .data_starts(data_starts));

// ---------------- The contract's slot model ----------------
// (Kept as registers counted down per slot, not as arithmetic on a slot index: z3 4.8.12
// spends minutes expanding the nested definitions of the latter.)
reg        h_act = 1'b0;    // this clock is a slot of an item
reg        h_fcp = 1'b0;    // the item is an FCP
reg        h_first = 1'b0;  // its first slot
reg [3:0]  h_src = 4'd0;    // a packet's source queue
reg        h_odd = 1'b0;    // a packet's PktLen is odd
reg [15:0] h_rb = 16'd0;    // wire bytes of the item from this slot's word on
reg [15:0] h_rd = 16'd0;    // data bytes of the item from this slot's word on (0: none left)
// Wire bytes of an item: a packet is 4 PktLen bytes read from its queue plus its 2-byte
// VCRC (docs/spec.md §1, §3), an FCP 6 bytes, all of them the framer's (docs/spec.md §2).
wire [10:0] s_len = vl15_valid ? vl15_len : offer_len;
wire [15:0] s_db = {3'd0, s_len, 2'b00};
wire h_last = h_act && h_rb <= KW;
// Three stages to the wire (slot at t -> tx_* at t+3, the contract's src_rd -> wire):
// d3 is the model's wire word. The model moves when the sink takes it or there is none.
reg d1_v = 1'b0, d2_v = 1'b0, d3_v = 1'b0;
wire h_adv = tx_ready || !d3_v;
// A boundary: idle or the item's last slot (docs/spec.md §5: never fragment).
wire h_bnd = !h_act || h_last;

// The spec's decision at a boundary (docs/spec.md §5: VL15 > FCP > data; data in LinkActive).
wire s_vl15 = h_bnd && h_adv && !reset && vl15_valid;
wire s_fcp  = h_bnd && h_adv && !reset && !vl15_valid && fcp_pending;
wire s_data = h_bnd && h_adv && !reset && !vl15_valid && !fcp_pending && link_active && offer_valid;

// The framer's word of the previous moving clock (FCP word k is presented in moving clock
// s+k and used in slot k, moving clock s+1+k).
reg [DATA_WIDTH-1:0] fcp_prev = {DATA_WIDTH{1'b0}};

// ---- 1. decisions ----
always @(*) begin
    assert(vl15_take == s_vl15);
    assert(fcp_start == s_fcp);
    assert(take == s_data);
    assert(fcp_ready == h_adv);
end

// ---- 2. reads: every slot of a packet with data bytes left reads one word ----
wire h_read = h_act && h_adv && !reset && !h_fcp && h_rd != 16'd0;
always @(*) begin
    assert(src_rd == h_read);
    if (h_read) assert(src_vl == h_src);
end

// ---- the slot's expected wire word ----
// Bytes of the item in this slot's word, and its data bytes (the rest is VCRC).
wire [KL:0] nb = (h_rb >= KW) ? KW : h_rb[KL:0];
wire [KL:0] nd = (h_rd >= KW) ? KW : h_rd[KL:0];
wire [KW-1:0] slot_keep = ~({KW{1'b1}} << nb);
wire [KW-1:0] slot_dkeep = ~({KW{1'b1}} << nd);
wire [DATA_WIDTH-1:0] slot_data = h_fcp ? fcp_prev : src_data;

reg d1_sop, d2_sop, d3_sop, d1_eop, d2_eop, d3_eop, d1_link, d2_link, d3_link;
reg [KW-1:0] d1_keep, d2_keep, d3_keep, d1_dkeep, d2_dkeep, d3_dkeep;
reg [DATA_WIDTH-1:0] d1_data, d2_data, d3_data;

always @(posedge clock) begin
    if (h_adv) fcp_prev <= fcp_data;
    // Slot model.
    if (reset) begin
        h_act <= 1'b0;
    end else if (!h_adv) begin
        // Nothing moves.
    end else if (h_bnd) begin
        h_act <= s_vl15 || s_fcp || s_data;
        h_fcp <= s_fcp;
        h_first <= 1'b1;
        h_rb <= s_fcp ? 16'd6 : s_db + 16'd2;
        h_rd <= s_fcp ? 16'd6 : s_db;
        if (s_vl15 || s_data) begin
            h_src <= s_vl15 ? 4'd15 : offer_vl;
            h_odd <= s_len[0];
        end
    end else begin
        h_first <= 1'b0;
        h_rb <= h_rb - KW;
        h_rd <= (h_rd > KW) ? h_rd - KW : 16'd0;
    end
    // Wire model (reset: from r+1 the wire is idle, the pipeline is dropped).
    if (reset) begin
        d1_v <= 1'b0;
        d2_v <= 1'b0;
        d3_v <= 1'b0;
    end else if (h_adv) begin
        d1_v <= h_act;
        d2_v <= d1_v;
        d3_v <= d2_v;
    end
    if (h_adv) begin
        d1_sop <= h_first; d1_eop <= h_last; d1_link <= h_fcp;
        d1_keep <= slot_keep; d1_dkeep <= slot_dkeep; d1_data <= slot_data;
        d2_sop <= d1_sop; d2_eop <= d1_eop; d2_link <= d1_link;
        d2_keep <= d1_keep; d2_dkeep <= d1_dkeep; d2_data <= d1_data;
        d3_sop <= d2_sop; d3_eop <= d2_eop; d3_link <= d2_link;
        d3_keep <= d2_keep; d3_dkeep <= d2_dkeep; d3_data <= d2_data;
    end
end

// ---- 3. the wire ----
function [DATA_WIDTH-1:0] lanes;   // a keep as a byte mask
    input [KW-1:0] k;
    integer j;
    begin
        for (j = 0; j < KW; j = j + 1) lanes[8*j +: 8] = {8{k[j]}};
    end
endfunction
always @(*) begin
    assert(tx_valid == d3_v);
    assert(tx_sop == (d3_v && d3_sop));
    assert(tx_eop == (d3_v && d3_eop));
    assert(tx_link == (d3_v && d3_link));
    // 7. The FCP's last beat moves.
    assert(fcp_done == (d3_v && d3_eop && d3_link && tx_ready));
    assert(tx_keep == (d3_v ? d3_keep : {KW{1'b0}}));
    if (d3_v) assert(((tx_data ^ d3_data) & lanes(d3_dkeep)) == {DATA_WIDTH{1'b0}});
    // Bytes past tx_keep are 0 (all 0 when tx_valid is 0).
    assert((tx_data & ~lanes(tx_keep)) == {DATA_WIDTH{1'b0}});
end

// ---- 4. independent wire monitor: no interleaving (of the words that move) ----
reg w_in = 1'b0;      // inside a packet (after its sop, before its eop)
reg w_link = 1'b0;    // its kind
always @(posedge clock) begin
    if (reset) w_in <= 1'b0;
    else if (tx_valid && tx_ready && tx_sop && !tx_eop) begin w_in <= 1'b1; w_link <= tx_link; end
    else if (tx_valid && tx_ready && tx_eop) w_in <= 1'b0;
end

// ---- 6. a word offered under tx_ready low holds (independent of the model) ----
reg p_hold = 1'b0;
reg p_sop = 1'b0, p_eop = 1'b0, p_link = 1'b0;
reg [KW-1:0] p_keep = {KW{1'b0}};
reg [DATA_WIDTH-1:0] p_data = {DATA_WIDTH{1'b0}};
always @(posedge clock) begin
    p_hold <= tx_valid && !tx_ready && !reset;
    p_sop <= tx_sop; p_eop <= tx_eop; p_link <= tx_link; p_keep <= tx_keep; p_data <= tx_data;
end
always @(*) begin
    if (p_hold) begin
        assert(tx_valid);
        assert(tx_sop == p_sop && tx_eop == p_eop && tx_link == p_link);
        assert(tx_keep == p_keep && tx_data == p_data);
    end
end
always @(*) begin
    if (w_in) assert(tx_valid && !tx_sop && tx_link == w_link);
    if (!w_in && tx_valid) assert(tx_sop);
end

// ---- Inductive invariants: the DUT's stage A equals the model ----
// A model word's (keep, data keep) as an item's word may have them.
function word_ok;
    input eop, link;
    input [KW-1:0] k, dk;
    begin
        if (!eop) word_ok = (k == {KW{1'b1}}) && (dk == {KW{1'b1}});
        else if (link) word_ok = (k == ((KW == 8) ? 8'h3f : 8'h03)) && (dk == k);
        else word_ok = (k == 8'h03 && dk == 8'h00) || (KW == 8 && k == 8'h3f && dk == 8'h0f);
    end
endfunction
// Taps (formal.toml): dut.a_active, a_fcp, a_first, a_left, a_last, w64.odd. These hold
// because stage A is the model's state in another encoding: a_left counts the slots
// after this one (n - 1 - k), a_last is a_left == 0 registered, a_first is k == 0, and
// src_vl / odd are loaded from the same sampled inputs at the decision clock.
(* keep *) wire fv_a_active;
(* keep *) wire fv_a_fcp;
(* keep *) wire fv_a_first;
(* keep *) wire [LB-1:0] fv_a_left;
(* keep *) wire fv_a_last;
// Stages B and C, and the held FCP word: a stall may last any number of clocks, so
// induction needs them equal to the model's d1 / d2 (and fcp_prev) too.
(* keep *) wire [DATA_WIDTH-1:0] fv_fcp_q;
(* keep *) wire fv_b_valid, fv_b_sop, fv_b_eop, fv_b_link, fv_b_crc;
(* keep *) wire [DATA_WIDTH-1:0] fv_b_data;
(* keep *) wire fv_c_valid, fv_c_sop, fv_c_eop, fv_c_link, fv_c_crc;
(* keep *) wire [KW-1:0] fv_c_keep;
(* keep *) wire [DATA_WIDTH-1:0] fv_c_data;
// (Left out of planted-bug runs: there the properties above must fail by themselves.)
`ifndef IBLINK_FV_PLANTED
always @(*) begin
    assert(fv_a_active == h_act);
    if (h_act) begin
        // The model's own range: a packet's wire bytes left are its data bytes left plus
        // the VCRC (4 PktLen + 2 - k W), an FCP's equal them; at least one byte is left.
        assert(h_rb != 16'd0);
        if (h_fcp) assert(h_rd == h_rb && h_rb == (h_first ? 16'd6 : 16'd6 - KW));
        else assert(h_rb == h_rd + 16'd2 && h_rb <= 16'd8190 && h_rb[1:0] == 2'd2);
        assert(fv_a_fcp == h_fcp);
        assert(fv_a_first == h_first);
        assert(fv_a_last == h_last);
        // a_left: the slots after this one, ceil(h_rb / KW) - 1.
        assert({{(16-LB){1'b0}}, fv_a_left} == (h_rb - 16'd1) >> KL);
        if (!h_fcp) assert(src_vl == h_src);
    end
    // The wire monitor agrees with the model's pipeline: inside a packet exactly when the
    // word on the wire is an item's word after its first.
    assert(w_in == (d3_v && !d3_sop));
    if (w_in) assert(w_link == d3_link);
    // Each model word's keep and data lanes are those of an item's word (docs/spec.md §2,
    // §3): full before the last; an FCP's last 6 - (n-1) W bytes; a packet's last the
    // VCRC alone (2 bytes) or, at 64 bits, 4 data bytes and the VCRC.
    if (d1_v) assert(word_ok(d1_eop, d1_link, d1_keep, d1_dkeep));
    if (d2_v) assert(word_ok(d2_eop, d2_link, d2_keep, d2_dkeep));
    if (d3_v) assert(word_ok(d3_eop, d3_link, d3_keep, d3_dkeep));
    // The model's words are items' words back to back (a stall may hold any of them for
    // any number of clocks): a word that is not its item's last is followed, in the
    // stage behind it, by its item's next word; a last word, or none, by a first or none.
    assert((d3_v && !d3_eop) == (d2_v && !d2_sop));
    if (d3_v && !d3_eop) assert(d2_link == d3_link);
    assert((d2_v && !d2_eop) == (d1_v && !d1_sop));
    if (d2_v && !d2_eop) assert(d1_link == d2_link);
    assert((d1_v && !d1_eop) == (h_act && !h_first));
    if (d1_v && !d1_eop) assert(d1_link == h_fcp);
    // Stages B and C hold the model's d1 and d2 (a VCRC-only word: a packet's word
    // without data bytes); the FCP word held is the model's.
    assert(fv_fcp_q == fcp_prev);
    assert(fv_b_valid == d1_v);
    if (d1_v) begin
        assert(fv_b_sop == d1_sop && fv_b_eop == d1_eop && fv_b_link == d1_link);
        assert(fv_b_crc == (!d1_link && d1_eop && d1_keep == {{(KW-2){1'b0}}, 2'b11}));
        assert(((fv_b_data ^ d1_data) & lanes(d1_dkeep)) == {DATA_WIDTH{1'b0}});
    end
    assert(fv_c_valid == d2_v);
    if (d2_v) begin
        assert(fv_c_sop == d2_sop && fv_c_eop == d2_eop && fv_c_link == d2_link);
        assert(fv_c_crc == (!d2_link && d2_eop && d2_keep == {{(KW-2){1'b0}}, 2'b11}));
        assert(fv_c_keep == d2_keep);
        assert((fv_c_data ^ d2_data) == (d2_data & ~lanes(d2_dkeep)));
    end
end
`endif
generate if (DATA_WIDTH == 32) begin : w32
    // Lanes 2-3 of stage B's word carry nothing: its last word (VCRC or FCP LPCRC).
    (* keep *) wire fv_b_zero_hi;
`ifndef IBLINK_FV_PLANTED
    always @(*) if (d1_v) assert(fv_b_zero_hi == d1_eop);
`endif
end endgenerate
generate if (DATA_WIDTH == 64) begin : w64
    // odd: the packet's PktLen is odd (its last slot reads 4 bytes and carries the VCRC).
    (* keep *) wire fv_odd;
    // Stage B's ending kinds and empty lanes, and stage C's odd ending.
    (* keep *) wire fv_b_merge, fv_b_zero_mid, fv_b_zero_hi, fv_c_merge;
`ifndef IBLINK_FV_PLANTED
    // The model's own: a packet's wire bytes left are 8 j + 6 for an odd PktLen (4 data
    // bytes and the VCRC in the last word), 8 j + 2 for an even one.
    always @(*) if (h_act && !h_fcp) assert(fv_odd == h_odd && h_rb[2] == h_odd);
    always @(*) begin
        if (d1_v) begin
            assert(fv_b_merge == (!d1_link && d1_eop && d1_keep == 8'h3f));
            assert(fv_b_zero_mid == (!d1_link && d1_eop));
            assert(fv_b_zero_hi == (d1_link || d1_eop));
        end
        if (d2_v) assert(fv_c_merge == (!d2_link && d2_eop && d2_keep == 8'h3f));
    end
`endif
end endgenerate

endmodule
`default_nettype wire
