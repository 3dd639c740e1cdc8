`default_nettype none
// Formal harness: a miter of iblink_crc16_dword (32 bits a clock, pipelined, latency 3)
// against iblink_crc16 at DATA_WIDTH 32 (latency 1) on whole-dword packets, proven on
// hdl_out/ by `iblink formal` (docs/spec.md §3: one CRC-16, two units).
//
// Every input of the dword unit is free each clock: reset, start, valid, last and data,
// with any gaps. The reference unit reads the same stream two clocks later, with keep =
// 4'b1111 (whole dwords), so both absorb a word in the same clock; the words a reset of
// the dword unit drops (those presented in its clock and the one before) reach the
// reference without valid, and the reference is reset two clocks after the dword unit
// (its state restarts when the dword unit's first word after the reset arrives).
//
// Properties:
//   P1: crc_valid of the two units agree, except in the clock after a reset of the
//       dword unit (its contract: a last word presented two clocks before a reset still
//       loads crc, but crc_valid stays 0);
//   P2: when crc_valid, the two CRCs are equal.
// Inductive invariant (1-inductive, proven with CryptoMiniSat: see docs/formal.md):
//   - acc, the dword unit's running CRC (the complemented register), is the complement
//     of the register the reference's word of this clock starts from, outside the two
//     clocks after a reset, and 0 in the second;
//   - y is the stage-1 map of the previous clock's word and e the stage-2 map of the word
//     before (computed by copies of the unit's own networks on the harness's delayed
//     words: the invariant says which word each register holds, the miter compares the
//     networks); e_crc is e when stage 2 holds a last word;
//   - every flag is its function of the last two clocks' inputs.
// Taps: the dword unit's registers and the reference's state (internal).
module fv_crc16_miter (
    input wire        clock,
    input wire        reset,
    input wire        start,
    input wire        valid,
    input wire        last,
    input wire [31:0] data
);

wire [15:0] dw_crc, ref_crc;
wire        dw_crc_valid, ref_crc_valid;

iblink_crc16_dword dw_unit (
    .clock(clock), .reset(reset),
    .start(start), .valid(valid), .last(last), .data(data),
    .crc(dw_crc), .crc_valid(dw_crc_valid)
);

// The stream two clocks later: d1 = the previous clock's inputs, d2 = the one before.
reg        d1_reset = 1'b0, d1_start = 1'b0, d1_valid = 1'b0, d1_last = 1'b0;
reg [31:0] d1_data = 32'd0;
reg        d2_reset = 1'b0, d2_start = 1'b0, d2_valid = 1'b0, d2_last = 1'b0;
reg [31:0] d2_data = 32'd0;
always @(posedge clock) begin
   d1_reset <= reset;
   d1_start <= start;
   d1_valid <= valid;
   d1_last <= last;
   d1_data <= data;
   d2_reset <= d1_reset;
   d2_start <= d1_start;
   d2_valid <= d1_valid;
   d2_last <= d1_last;
   d2_data <= d1_data;
end

// A word presented in clock t is dropped by a reset in t or t+1 (the dword unit's
// contract); the reference takes it in t+2 only if neither happened.
wire ref_valid = d2_valid & ~d2_reset & ~d1_reset;
wire ref_start = ref_valid & d2_start;

iblink_crc16 #(.DATA_WIDTH(32)) ref_unit (
    .clock(clock), .reset(d2_reset),
    .start(ref_start), .valid(ref_valid), .last(d2_last), .data(d2_data),
    .keep(4'b1111),
    .crc(ref_crc), .crc_valid(ref_crc_valid)
);

// P1, P2.
always @(*) begin
   assert(dw_crc_valid == (ref_crc_valid & ~d1_reset));
   if (dw_crc_valid) assert(dw_crc == ref_crc);
end

(* keep *) wire [15:0] fv_acc;        // tap: dw_unit.acc
(* keep *) wire [15:0] fv_ref_state;  // tap: ref_unit.state
(* keep *) wire [15:0] fv_y;          // taps: dw_unit.y, .e, .e_crc and the flags
(* keep *) wire [15:0] fv_e;
(* keep *) wire [15:0] fv_e_crc;
(* keep *) wire        fv_valid_1, fv_last_1, fv_last_1_hi, fv_last_2, fv_last_2_hi;
(* keep *) wire        fv_acc_en, fv_acc_en_hi, fv_acc_clr, fv_acc_clr_hi;

`ifndef IBLINK_FV_PLANTED
// Clocks since power-up, up to 2: e holds a word's map once a word has had time to reach
// it (at power-up e is 0, the map of no word).
reg [1:0] age = 2'd0;
always @(posedge clock) if (age != 2'd2) age <= age + 2'd1;

// The register the reference's word of this clock starts from (iblink_crc16's prev).
wire [15:0] ref_prev = ref_start ? 16'hffff : fv_ref_state;

// The stage maps of the delayed words, by the unit's own networks.
wire [15:0] m_y1, m_y2, m_e2;
iblink_crc16_dword_xor m_a (.data(d1_data), .y(16'd0), .acc(16'd0), .e(16'd0), .e_crc(16'd0),
   .y_next(m_y1), .e_next(), .acc_next(), .crc_next());
iblink_crc16_dword_xor m_b (.data(d2_data), .y(16'd0), .acc(16'd0), .e(16'd0), .e_crc(16'd0),
   .y_next(m_y2), .e_next(), .acc_next(), .crc_next());
iblink_crc16_dword_xor m_c (.data(32'd0), .y(m_y2), .acc(16'd0), .e(16'd0), .e_crc(16'd0),
   .y_next(), .e_next(m_e2), .acc_next(), .crc_next());

always @(*) begin
   if (!d2_reset && !d1_reset) assert(fv_acc == ~ref_prev);
   if (d2_reset) assert(fv_acc == 16'd0);
   assert(fv_y == m_y1);
   if (age == 2'd2) assert(fv_e == m_e2);
   if (age == 2'd0) assert(!d1_valid && !d1_reset);   // before it, the power-up values
   if (age != 2'd2) assert(!d2_valid && !d2_reset);
   assert(age != 2'd3);
   if (fv_last_2) assert(fv_e_crc == fv_e);
   assert(fv_valid_1 == (d1_valid & ~d1_reset));
   assert(fv_last_1 == (d1_valid & d1_last & ~d1_reset));
   assert(fv_last_1_hi == fv_last_1);
   assert(fv_last_2 == (d2_valid & d2_last & ~d2_reset & ~d1_reset));
   assert(fv_last_2_hi == fv_last_2);
   assert(fv_acc_en == (d1_reset | (d1_valid & d1_start) | (d2_valid & ~d2_reset)));
   assert(fv_acc_en_hi == fv_acc_en);
   assert(fv_acc_clr == (d1_reset | (d1_valid & d1_start) | (d2_valid & d2_last & ~d2_reset)));
   assert(fv_acc_clr_hi == fv_acc_clr);
end
`endif

endmodule
`default_nettype wire
