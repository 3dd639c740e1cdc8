// iblink_fcp_rx: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/fcp_rx/iblink_fcp_rx.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: fcp_rx
// config: parameters = VLS = 1, 2, 4, 8 or 15 (VLCap); DATA_WIDTH = 32 or 64; KEEP_WIDTH = DATA_WIDTH/8
// config: latency_eop_to_upd = 3
// config: counter_bits = 16
`default_nettype none
// iblink_fcp_rx: FCP receive framer (docs/spec.md §2, §3, §4).
//
// Link packets (rx_link) are taken out of the receive link word stream and checked as
// Flow Control Packets: exactly 6 bytes; LPCRC over bytes 0-3 in bytes 4-5, low byte
// first; Op 0 or 1; VL below VLCap and not VL15, checked in that order (the model's). A
// good one is a one-clock upd_valid: the RX credit block takes ABR[upd_vl] := upd_fctbs,
// the TX credit block CL[upd_vl] := upd_fccl. Every discarded one is counted under its
// reason; the counters saturate at 16'hFFFF and a reset (resync) keeps them.
//
// Framing: a link packet starts on a word with rx_valid & rx_sop & rx_link and ends on
// the next link word with rx_eop. Its length is DATA_WIDTH/8 bytes per word before the
// eop word plus the lanes up to the highest set rx_keep bit of the eop word. A word with
// rx_sop (link or data) while a packet is open aborts it. Words without rx_valid are
// ignored; so are link words with no open packet and no sop, and data words.
//
// Pipeline: stage 0 frames the word and captures the bytes, with the expected LPCRC
// (iblink_lpcrc, generated from the CRC equations) computed as the LPCRC bytes are
// captured: at 64 bits from the word itself (one word holds all six bytes), at 32 bits
// from the captured header while the second word arrives. Stage 1 registers what ended
// (six bytes, short, long) or was aborted. Stage 2 compares the expected LPCRC with
// the received one and, beside it, registers the verdict the packet gets should they
// match (Op, then VL15, then VLCap, or good: one-hot), so stage 3 is one AND into the
// output registers and the counters' enables.
//
// Cycle contract: the verdict for a link packet whose eop word is presented in clock e
// shows in clock e+3 (upd_valid with upd_*, or its counter one higher); an abort seen in
// clock s (the aborting sop) is counted from clock s+3. One packet per clock at most, no
// back-pressure. A reset in clock r drops the inputs of clock r and every verdict not
// yet shown (those of eops in clocks r-2, r-1, r). All outputs are registers; upd_op,
// upd_vl, upd_fctbs, upd_fccl hold the last good FCP (0 after a reset).
module iblink_fcp_rx #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4,
    // Link word width: 32 or 64
    parameter DATA_WIDTH = 32,
    parameter KEEP_WIDTH = DATA_WIDTH/8
) (
    input  wire                  clock,
    // Link init or resync (docs/spec.md §8): the open packet and the pipeline are dropped
    input  wire                  reset,

    // Receive link word stream; byte k is rx_data[8k+7:8k], byte 0 first on the wire.
    // rx_keep is read on the eop word only.
    input  wire                  rx_valid,
    input  wire [DATA_WIDTH-1:0] rx_data,
    input  wire [KEEP_WIDTH-1:0] rx_keep,
    input  wire                  rx_sop,
    input  wire                  rx_eop,
    // The word belongs to a link packet (data-packet words are ignored)
    input  wire                  rx_link,

    // A good FCP, for one clock: Op (0 normal, 1 init), VL (below VLS), FCTBS, FCCL
    output reg                   upd_valid,
    output reg                   upd_op,
    output reg  [3:0]            upd_vl,
    output reg  [11:0]           upd_fctbs,
    output reg  [11:0]           upd_fccl,

    // Saturating counters: good FCPs, and discards by reason
    output reg  [15:0]           good_count,
    output reg  [15:0]           short_count,        // fewer than 6 bytes
    output reg  [15:0]           long_count,         // more than 6 bytes
    output reg  [15:0]           abort_count,        // cut by a new sop
    output reg  [15:0]           lpcrc_error_count,  // 6 bytes, LPCRC mismatch
    output reg  [15:0]           reserved_op_count,  // good LPCRC, Op 2-15
    output reg  [15:0]           vl15_count,         // good LPCRC and Op, VL15
    output reg  [15:0]           vl_cap_count        // good LPCRC and Op, VL VLS..14
);

// VLCap as a 4-bit value, for the compare with a received VL.
localparam [3:0] VL_CAP = VLS[3:0];

// Framing state.
reg open;              // a link packet is being collected
reg [1:0] words;       // its link words so far, saturating at 2
reg [31:0] head;       // bytes 0-3: Op|FCTBS|VL|FCCL, byte k in [8k+7:8k]
reg [15:0] lpcrc_rx;   // bytes 4-5: the LPCRC as received (byte 4 is its low byte)
reg [15:0] lpcrc_exp;  // the LPCRC bytes 0-3 call for, captured with lpcrc_rx
// Stage 1: what ended in the previous clock (6 bytes, short or long) or was aborted.
reg s1_six, s1_short, s1_long, s1_abort;
// Stage 2: the checks on the captured bytes. For a 6-byte packet exactly one of
// s2_op_bad, s2_vl15, s2_vl_cap, s2_good is set: its verdict should the LPCRC match,
// decided here beside the LPCRC compare so that stage 3 only ANDs.
reg s2_six, s2_short, s2_long, s2_abort;
reg s2_crc_ok;          // expected LPCRC == received
reg s2_op_bad, s2_vl15, s2_vl_cap, s2_good;
reg s2_op_init;
reg [3:0] s2_vl;
reg [11:0] s2_fctbs, s2_fccl;

initial begin
   open = 1'b0;
   words = 2'd0;
   head = 32'd0;
   lpcrc_rx = 16'd0;
   lpcrc_exp = 16'd0;
   {s1_six, s1_short, s1_long, s1_abort} = 4'd0;
   {s2_six, s2_short, s2_long, s2_abort} = 4'd0;
   s2_crc_ok = 1'b0;
   {s2_op_bad, s2_vl15, s2_vl_cap, s2_good} = 4'd0;
   s2_op_init = 1'b0;
   s2_vl = 4'd0;
   s2_fctbs = 12'd0;
   s2_fccl = 12'd0;
   upd_valid = 1'b0;
   upd_op = 1'b0;
   upd_vl = 4'd0;
   upd_fctbs = 12'd0;
   upd_fccl = 12'd0;
   good_count = 16'd0;
   short_count = 16'd0;
   long_count = 16'd0;
   abort_count = 16'd0;
   lpcrc_error_count = 16'd0;
   reserved_op_count = 16'd0;
   vl15_count = 16'd0;
   vl_cap_count = 16'd0;
end

// ---- Stage 0: framing ----
// Only words with rx_valid count: gaps inside an item are ignored.
wire link_word = rx_valid & rx_link;
// Any item's sop while a link packet is open: that packet never got its eop.
wire abort = rx_valid & rx_sop & open;
wire first = link_word & rx_sop;
wire more = link_word & ~rx_sop & open;
wire ends = (first | more) & rx_eop;   // the packet's last word
// Words before this one in its packet; keep counts on the eop word only (only the
// last word of an item may be partial).
wire [1:0] prior_words = rx_sop ? 2'd0 : words;
reg [3:0] last_bytes;   // highest set keep bit + 1
// Length = DATA_WIDTH/8 * prior_words + last_bytes; 6 is an FCP.
wire len_short;
wire len_six;
// The header bytes the expected LPCRC is computed from (per width, below).
wire [31:0] crc_in;
wire [15:0] lpcrc_calc;

generate
   if (DATA_WIDTH == 32) begin : w32
      always @(*) begin
         casez (rx_keep)
            4'b1???: last_bytes = 4'd4;
            4'b01??: last_bytes = 4'd3;
            4'b001?: last_bytes = 4'd2;
            4'b0001: last_bytes = 4'd1;
            default: last_bytes = 4'd0;
         endcase
      end
      // 6 only as a full word then 2 bytes.
      assign len_short = (prior_words == 2'd0) | ((prior_words == 2'd1) & (last_bytes < 4'd2));
      assign len_six = (prior_words == 2'd1) & (last_bytes == 4'd2);
      // From the header captured a word earlier, while the second word arrives.
      assign crc_in = head;
   end else begin : w64
      always @(*) begin
         casez (rx_keep)
            8'b1???????: last_bytes = 4'd8;
            8'b01??????: last_bytes = 4'd7;
            8'b001?????: last_bytes = 4'd6;
            8'b0001????: last_bytes = 4'd5;
            8'b00001???: last_bytes = 4'd4;
            8'b000001??: last_bytes = 4'd3;
            8'b0000001?: last_bytes = 4'd2;
            8'b00000001: last_bytes = 4'd1;
            default: last_bytes = 4'd0;
         endcase
      end
      // 6 only as one word of 6 bytes.
      assign len_short = (prior_words == 2'd0) & (last_bytes < 4'd6);
      assign len_six = (prior_words == 2'd0) & (last_bytes == 4'd6);
      // Lanes 6-7 never hold FCP bytes: on a 6-byte FCP keep leaves them out.
      wire [15:0] unused_lanes_6_7 = rx_data[63:48];
      // From the word itself: one word carries all six bytes.
      assign crc_in = rx_data[31:0];
   end
endgenerate

// Expected LPCRC of bytes 0-3: the generated XOR equations (iblink_lpcrc).
iblink_lpcrc lpcrc_eq (
    .head(crc_in),
    .lpcrc(lpcrc_calc)
);

always @(posedge clock) begin
   if (reset) begin
      open <= 1'b0;
      words <= 2'd0;
      {s1_six, s1_short, s1_long, s1_abort} <= 4'd0;
   end else begin
      s1_six <= ends & len_six;
      s1_short <= ends & len_short;
      s1_long <= ends & ~len_short & ~len_six;
      s1_abort <= abort;
      if (first) begin
         open <= ~rx_eop;
         words <= 2'd1;
      end else if (more) begin
         open <= ~rx_eop;
         if (words != 2'd2) words <= words + 2'd1;
      end else if (abort) begin
         open <= 1'b0;   // a data item's sop
      end
   end
end

// The captured bytes need no reset: a packet ends only after its sop wrote them.
// The expected LPCRC is captured with the received one.
generate
   if (DATA_WIDTH == 32) begin : capture_w32
      always @(posedge clock) begin
         if (first) head <= rx_data[31:0];
         // The second word carries bytes 4-5.
         if (more & (words == 2'd1)) begin
            lpcrc_rx <= rx_data[15:0];
            lpcrc_exp <= lpcrc_calc;
         end
      end
   end else begin : capture_w64
      always @(posedge clock) begin
         // One word carries all six bytes.
         if (first) begin
            head <= rx_data[31:0];
            lpcrc_rx <= rx_data[47:32];
            lpcrc_exp <= lpcrc_calc;
         end
      end
   end
endgenerate

// ---- Stage 2: LPCRC and field checks on the captured bytes ----
// Fields (docs/spec.md §2): Op = byte 0 [7:4], FCTBS = byte 0 [3:0] . byte 1,
// VL = byte 2 [7:4], FCCL = byte 2 [3:0] . byte 3.
wire [3:0] head_op = head[7:4];
wire [3:0] head_vl = head[23:20];
wire op_reserved = head_op >= 4'd2;
wire vl15 = head_vl == 4'd15;                  // VL15: no flow control
wire vl_over = (head_vl >= VL_CAP) & ~vl15;    // no such data VL at this VLCap

always @(posedge clock) begin
   if (reset) begin
      {s2_six, s2_short, s2_long, s2_abort} <= 4'd0;
      {s2_op_bad, s2_vl15, s2_vl_cap, s2_good} <= 4'd0;
   end else begin
      {s2_six, s2_short, s2_long, s2_abort} <= {s1_six, s1_short, s1_long, s1_abort};
      // Op before VL, as the model checks them.
      s2_op_bad <= s1_six & op_reserved;
      s2_vl15 <= s1_six & ~op_reserved & vl15;
      s2_vl_cap <= s1_six & ~op_reserved & vl_over;
      s2_good <= s1_six & ~op_reserved & ~vl15 & ~vl_over;
   end
   s2_crc_ok <= lpcrc_exp == lpcrc_rx;
   s2_op_init <= head_op == 4'd1;
   s2_vl <= head_vl;
   s2_fctbs <= {head[3:0], head[15:8]};
   s2_fccl <= {head[19:16], head[31:24]};
end

// ---- Stage 3: verdict, in the model's order: length, LPCRC, Op, VL15, VLCap ----
// (short/long/abort need no LPCRC: they are counted straight from stage 2.)
wire v_lpcrc = s2_six & ~s2_crc_ok;
wire v_op = s2_op_bad & s2_crc_ok;
wire v_vl15 = s2_vl15 & s2_crc_ok;
wire v_vl_cap = s2_vl_cap & s2_crc_ok;
wire v_good = s2_good & s2_crc_ok;

always @(posedge clock) begin
   if (reset) begin
      upd_valid <= 1'b0;
      upd_op <= 1'b0;
      upd_vl <= 4'd0;
      upd_fctbs <= 12'd0;
      upd_fccl <= 12'd0;
   end else begin
      upd_valid <= v_good;
      if (v_good) begin
         upd_op <= s2_op_init;
         upd_vl <= s2_vl;
         upd_fctbs <= s2_fctbs;
         upd_fccl <= s2_fccl;
      end
   end
end

// Counters: saturating statistics; a reset (resync) keeps them and counts nothing.
always @(posedge clock) begin
   if (~reset) begin
      if (v_good & (~&good_count)) good_count <= good_count + 16'd1;
      if (s2_short & (~&short_count)) short_count <= short_count + 16'd1;
      if (s2_long & (~&long_count)) long_count <= long_count + 16'd1;
      if (s2_abort & (~&abort_count)) abort_count <= abort_count + 16'd1;
      if (v_lpcrc & (~&lpcrc_error_count)) lpcrc_error_count <= lpcrc_error_count + 16'd1;
      if (v_op & (~&reserved_op_count)) reserved_op_count <= reserved_op_count + 16'd1;
      if (v_vl15 & (~&vl15_count)) vl15_count <= vl15_count + 16'd1;
      if (v_vl_cap & (~&vl_cap_count)) vl_cap_count <= vl_cap_count + 16'd1;
   end
end

endmodule
`default_nettype wire
