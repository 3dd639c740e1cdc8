`default_nettype none
// Formal harness of iblink_fcp_rx (docs/spec.md §2, §3, §7), proven on hdl_out/ by `iblink formal`.
//
// Every input is free each clock (no assumptions: the module's contract takes any word
// stream, any reset, no back-pressure). The harness frames the link packets itself from
// the stream rules in the module header (valid/sop/eop/link; keep read on the eop word
// only, its highest set bit i meaning lanes 0..i carry bytes), keeps bytes 0-5 of the
// packet being received, and decides from docs/spec.md alone whether it is a good FCP:
//   - exactly 6 bytes (docs/spec.md §2: the 6-byte form);
//   - LPCRC (bytes 4-5, low byte first) == CRC-16 of bytes 0-3, computed by the
//     harness's own bit-serial reflected CRC (docs/spec.md §3: poly 0x100B, init 0xFFFF,
//     reflected in/out, xorout 0xFFFF), not by iblink_lpcrc;
//   - Op (byte 0 [7:4]) is 0 or 1 (docs/spec.md §2: 2-15 reserved, discarded);
//   - VL (byte 2 [7:4]) below VLCap (docs/spec.md §7; VL15 and VLCap..14 are no data VL).
// Checked (module contract: the verdict of an eop in clock e shows in e+3; a reset in
// clock r drops the eops of clocks r-2..r; upd_* hold the last good FCP, 0 after reset):
//   P1  upd_valid == "the packet whose eop was 3 clocks ago is a good FCP" (both ways:
//       nothing else is accepted, and every good FCP is);
//   P2  upd_op, upd_vl, upd_fctbs, upd_fccl == the fields of the last good FCP as
//       received (docs/spec.md §2: Op byte0[7:4], FCTBS byte0[3:0].byte1, VL byte2[7:4],
//       FCCL byte2[3:0].byte3), 0 after a reset;
//   P3  good_count counts exactly the upd_valid pulses (saturating at 0xFFFF).
// The LPCRC a good FCP must carry is the harness's CRC of the harness's bytes 0-3 (see
// h_exp for how it is computed so that z3 can compare it with the DUT's). The asserts
// marked INV are inductive invariants tying the DUT's framing and capture registers
// (taps) to the harness's; each says why it holds. Planted-bug runs leave them out.
module fv_fcp_rx #(
    parameter VLS = 4,
    parameter DATA_WIDTH = 32
) (
    input wire                    clock,
    input wire                    reset,
    input wire                    rx_valid,
    input wire [DATA_WIDTH-1:0]   rx_data,
    input wire [DATA_WIDTH/8-1:0] rx_keep,
    input wire                    rx_sop,
    input wire                    rx_eop,
    input wire                    rx_link
);

localparam BPW = DATA_WIDTH / 8;   // bytes per word

wire        upd_valid, upd_op;
wire [3:0]  upd_vl;
wire [11:0] upd_fctbs, upd_fccl;
wire [15:0] good_count, short_count, long_count, abort_count;
wire [15:0] lpcrc_error_count, reserved_op_count, vl15_count, vl_cap_count;

iblink_fcp_rx #(.VLS(VLS), .DATA_WIDTH(DATA_WIDTH)) dut (
    .clock(clock), .reset(reset),
    .rx_valid(rx_valid), .rx_data(rx_data), .rx_keep(rx_keep),
    .rx_sop(rx_sop), .rx_eop(rx_eop), .rx_link(rx_link),
    .upd_valid(upd_valid), .upd_op(upd_op), .upd_vl(upd_vl),
    .upd_fctbs(upd_fctbs), .upd_fccl(upd_fccl),
    .good_count(good_count), .short_count(short_count), .long_count(long_count),
    .abort_count(abort_count), .lpcrc_error_count(lpcrc_error_count),
    .reserved_op_count(reserved_op_count), .vl15_count(vl15_count),
    .vl_cap_count(vl_cap_count)
);

// ---- docs/spec.md §3: CRC-16, bit-serial, reflected (0x100B reflected = 0xD008) ----
// The bit-serial loop runs at elaboration only (constant arguments), on the 32 unit
// vectors of the header: a CRC is affine in its message, crc(h) = crc(0) ^ the XOR of
// the columns of h's set bits. At run time each LPCRC bit is a flat XOR of header bits,
// the same function as the loop (z3 stalls on the 32-step serial chain itself; a flat
// XOR over the same vector as the DUT's equations it compares at once: see h_exp).
function [15:0] crc16_byte(input [15:0] c, input [7:0] b);
   integer i;
   reg [15:0] r;
   begin
      r = c ^ {8'd0, b};
      for (i = 0; i < 8; i = i + 1)
         r = (r >> 1) ^ ({16{r[0]}} & 16'hD008);
      crc16_byte = r;
   end
endfunction
// LPCRC of bytes 0-3 (byte k at [8k+7:8k]): init 0xFFFF, xorout 0xFFFF, bit-serial.
function [15:0] lpcrc_serial(input [31:0] h);
   begin
      lpcrc_serial = crc16_byte(crc16_byte(crc16_byte(crc16_byte(16'hFFFF,
                     h[7:0]), h[15:8]), h[23:16]), h[31:24]) ^ 16'hFFFF;
   end
endfunction
// Columns 0-31: the LPCRC's change when header bit i is set; column 32: LPCRC of 0.
function [16*33-1:0] lpcrc_columns(input integer unused);
   integer i;
   reg [16*33-1:0] m;
   begin
      m = 0;
      for (i = 0; i < 32; i = i + 1)
         m[16*i +: 16] = lpcrc_serial(32'd1 << i) ^ lpcrc_serial(32'd0);
      m[16*32 +: 16] = lpcrc_serial(32'd0);
      lpcrc_columns = m;
   end
endfunction
localparam [16*33-1:0] LPCRC_COLS = lpcrc_columns(0);
function [15:0] lpcrc_of(input [31:0] h);
   integer b, i;
   begin
      for (b = 0; b < 16; b = b + 1) begin
         // bit b: the XOR of the header bits whose column has bit b set, in ascending
         // order, then the constant (a canonical flat form: should the RTL's equations
         // be the same function, z3 sees the same XOR chains and needs no XOR reasoning)
         lpcrc_of[b] = 1'b0;
         for (i = 0; i < 32; i = i + 1)
            lpcrc_of[b] = lpcrc_of[b] ^ (h[i] & LPCRC_COLS[16 * i + b]);
         if (LPCRC_COLS[16 * 32 + b]) lpcrc_of[b] = ~lpcrc_of[b];
      end
   end
endfunction
// Self-checks of the harness CRC against docs/spec.md §3: the example 10 00 00 00 -> 0x0558
// (through the columns), and the check value "123456789" -> 0x0A3D (bit-serial).
always @(*) begin
   assert(lpcrc_of(32'h0000_0010) == 16'h0558);
   assert((crc16_byte(crc16_byte(crc16_byte(crc16_byte(crc16_byte(crc16_byte(crc16_byte(
          crc16_byte(crc16_byte(16'hFFFF, "1"), "2"), "3"), "4"), "5"), "6"), "7"), "8"),
          "9") ^ 16'hFFFF) == 16'h0A3D);
end

// docs/spec.md §2 and §7 on the six bytes (byte k at [8k+7:8k]).
function good_fields(input [47:0] b);   // Op 0 or 1, VL below VLCap
   begin
      good_fields = (b[7:4] < 4'd2) && (b[23:20] < VLS);
   end
endfunction

// ---- The harness's framing (module header, "Framing") ----
// Lanes the word carries: all, except on the eop word: lanes 0..i, i the highest set
// keep bit (none if keep is 0).
wire [BPW-1:0] lane_on;
wire [DATA_WIDTH-1:0] dm;   // the word, lanes past the packet's end zeroed
genvar gl;
generate
   for (gl = 0; gl < BPW; gl = gl + 1) begin : lane
      assign lane_on[gl] = ~rx_eop | (|rx_keep[BPW-1:gl]);
      assign dm[8 * gl +: 8] = rx_data[8 * gl +: 8] & {8{lane_on[gl]}};
   end
endgenerate
// The word's byte count (lanes 0..i are on: count them).
reg [3:0] k_bytes;
integer j;
always @(*) begin
   k_bytes = 4'd0;
   for (j = 0; j < BPW; j = j + 1)
      k_bytes = k_bytes + {3'd0, lane_on[j]};
end

reg        f_open = 1'b0;   // a link packet is being received
reg [4:0]  f_cnt = 5'd0;    // its bytes so far, saturating at 31 (> 6 is all that matters)
reg [47:0] f_b = 48'd0;     // its bytes 0-5 so far, byte k at [8k+7:8k]

wire f_first = rx_valid & rx_link & rx_sop;           // a link packet starts
wire f_more = rx_valid & rx_link & ~rx_sop & f_open;  // its next word
wire f_cut = rx_valid & rx_sop & ~rx_link & f_open;   // a data sop cuts it
wire f_end = (f_first | f_more) & rx_eop;
// Byte count and bytes 0-5 with this word (whole-vector muxes only).
wire [4:0] f_prior = f_first ? 5'd0 : f_cnt;
wire [5:0] f_sum = {1'b0, f_prior} + {2'b0, k_bytes};
wire [4:0] n_cnt = f_sum[5] ? 5'd31 : f_sum[4:0];
wire [47:0] n_b;
generate
   if (BPW == 8) begin : nb64
      // Bytes 0-5 are lanes 0-5 of the first word; later words hold bytes 8 and up.
      assign n_b = f_first ? dm[47:0] : f_b;
   end else begin : nb32
      // Bytes 0-3: the first word; bytes 4-5: lanes 0-1 of the second.
      assign n_b = f_first ? {16'd0, dm} : (f_cnt == 5'd4) ? {dm[15:0], f_b[31:0]} : f_b;
   end
endgenerate

always @(posedge clock) begin
   if (reset) begin
      f_open <= 1'b0;
   end else if (f_first | f_more) begin
      f_open <= ~rx_eop;
      f_cnt <= n_cnt;
      f_b <= n_b;
   end else if (f_cut) begin
      f_open <= 1'b0;
   end
end

// The verdict, moved along to clock e+3 (a reset drops what is in flight). In the
// clock after the eop f_b still holds the packet's bytes (a new packet writes them at
// the end of that clock at the earliest), so stage 1 judges f_b.
reg q1_six = 1'b0, q2_six = 1'b0;
reg q2_good = 1'b0, q3_good = 1'b0;
reg [47:0] q2_b = 48'd0;
// The harness's LPCRC. z3 cannot relate two CRC parity trees whose inputs are equal
// only through the transition relation (the same 32 bits in different frames or
// registers): it did not finish such a step in 10 minutes, while the same trees over one
// vector are compared at once. So the harness applies its own CRC to the vector the DUT
// feeds its CRC unit (tap fv_crc_in) in the clock a 6-byte packet ends, asserts there
// that this vector is the packet's bytes 0-3 as the harness framed them, and keeps the
// result: h_exp is the harness's CRC of the harness's bytes.
wire v0_six = f_end & (n_cnt == 5'd6);   // a 6-byte link packet ends
(* keep *) wire [31:0] fv_crc_in;
wire [31:0] v0_head = (BPW == 8) ? dm[31:0] : f_b[31:0];   // bytes 0-3 at that eop
reg [15:0] h_exp = 16'd0;
always @(posedge clock) if (v0_six) h_exp <= lpcrc_of(fv_crc_in);
always @(*) if (v0_six) assert(fv_crc_in == v0_head);
wire f_crc_ok = h_exp == f_b[47:32];
reg q2_crc_ok = 1'b0;
wire q1_good = q1_six & f_crc_ok & good_fields(f_b);
always @(posedge clock) begin
   if (reset) begin
      {q1_six, q2_six, q2_good, q3_good} <= 4'd0;
   end else begin
      q1_six <= v0_six;
      q2_six <= q1_six;
      q2_good <= q1_good;
      q3_good <= q2_good;
   end
   q2_b <= f_b;
   q2_crc_ok <= f_crc_ok;
end

// The last good FCP's fields (P2): set as upd_valid rises, 0 after a reset.
reg        l_op = 1'b0;
reg [3:0]  l_vl = 4'd0;
reg [11:0] l_fctbs = 12'd0, l_fccl = 12'd0;
always @(posedge clock) begin
   if (reset) begin
      l_op <= 1'b0; l_vl <= 4'd0; l_fctbs <= 12'd0; l_fccl <= 12'd0;
   end else if (q2_good) begin
      l_op <= q2_b[4];                       // Op is 0 or 1 here
      l_vl <= q2_b[23:20];
      l_fctbs <= {q2_b[3:0], q2_b[15:8]};
      l_fccl <= {q2_b[19:16], q2_b[31:24]};
   end
end

// good_count (P3): one higher with each upd_valid (same clock), saturating, kept
// across a reset.
reg [15:0] l_good = 16'd0;
always @(posedge clock)
   if (!reset && q2_good && l_good != 16'hFFFF) l_good <= l_good + 16'd1;

// ---- Properties ----
always @(*) begin
   // P1: accepted exactly when good (docs/spec.md §2, §3, §7), 3 clocks after the eop.
   assert(upd_valid == q3_good);
   // P2: the reported fields are the received bytes of the last good FCP.
   assert(upd_op == l_op);
   assert(upd_vl == l_vl);
   assert(upd_fctbs == l_fctbs);
   assert(upd_fccl == l_fccl);
   // A reported VL is a data VL of this port (docs/spec.md §7).
   if (upd_valid) assert(upd_vl < VLS);
   // P3
   assert(good_count == l_good);
end

// ---- Inductive invariants (INV), on DUT registers seen through taps ----
// (Left out of planted-bug runs: there the properties above must fail by themselves.)
(* keep *) wire        fv_open;
(* keep *) wire [1:0]  fv_words;
(* keep *) wire [31:0] fv_head;   // the DUT's bytes 0-3 register
(* keep *) wire [15:0] fv_lpcrc_rx, fv_lpcrc_exp;
(* keep *) wire        fv_s1_six, fv_s2_six, fv_s2_crc_ok, fv_s2_good, fv_s2_op_init;
(* keep *) wire [3:0]  fv_s2_vl;
(* keep *) wire [11:0] fv_s2_fctbs, fv_s2_fccl;
`ifndef IBLINK_FV_PLANTED
always @(*) begin
   // INV open: both frame the same packets (same sop/eop/cut/reset rules).
   assert(fv_open == f_open);
   if (f_open) begin
      // INV words: an open packet has only full words so far, so its bytes are
      // BPW * words (the DUT saturates words at 2, the harness f_cnt at 31).
      if (BPW == 4) assert((fv_words == 2'd1 && f_cnt == 5'd4) || (fv_words == 2'd2 && f_cnt >= 5'd8));
      else          assert((fv_words == 2'd1 && f_cnt == 5'd8) || (fv_words == 2'd2 && f_cnt >= 5'd16));
      // INV head: the first (full) word wrote bytes 0-3 in both.
      assert(fv_head == f_b[31:0]);
      // INV LPCRC capture: bytes 4-5 once the word holding them is in (64 bits: the
      // first word; 32 bits: the second).
      if (BPW == 8 || fv_words == 2'd2) begin
         assert(fv_lpcrc_rx == f_b[47:32]);
      end
   end
   // INV stage 1: a 6-byte packet ended last clock; its bytes are still captured, in
   // the DUT as in f_b (a new packet writes them at the end of this clock at the
   // earliest), and the DUT's expected LPCRC is the harness's.
   assert(fv_s1_six == q1_six);
   if (q1_six) begin
      assert(fv_head == f_b[31:0]);
      assert(fv_lpcrc_rx == f_b[47:32]);
      assert(fv_lpcrc_exp == h_exp);
   end
   // INV stage 2: the registered checks of that packet.
   assert(fv_s2_six == q2_six);
   assert(fv_s2_good == (q2_six & good_fields(q2_b)));
   if (q2_six) begin
      assert(fv_s2_crc_ok == q2_crc_ok);
      assert(q2_good == (q2_crc_ok & good_fields(q2_b)));
      assert(fv_s2_op_init == (q2_b[7:4] == 4'd1));
      assert(fv_s2_vl == q2_b[23:20]);
      assert(fv_s2_fctbs == {q2_b[3:0], q2_b[15:8]});
      assert(fv_s2_fccl == {q2_b[19:16], q2_b[31:24]});
   end else begin
      assert(!q2_good);
   end
end
`endif

endmodule
`default_nettype wire
