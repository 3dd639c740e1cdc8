// iblink_crc16_dword: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/crc16_dword/iblink_crc16_dword.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: crc16_dword
// config: data_width = 32
// config: latency_last_to_crc = 3
`default_nettype none
// iblink_crc16_dword: CRC-16 (docs/spec.md §3) over whole dwords, 32 bits a clock, pipelined:
// the link path's VCRC and LPCRC unit. Same CRC as iblink_crc16 (poly 0x100B, init
// 0xFFFF, reflected, final XOR 0xFFFF, crc[7:0] first on the wire), without keep and
// without restarting in the clock of start, so it runs at a higher clock rate.
//
// acc is the running CRC (the complemented LFSR register; 0 = init value). Per word:
//   stage 1: y = A16*data_lo ^ data_hi         (A16, A32: the register's map after 16, 32 bits)
//   stage 2: e = A16*y ^ K                      (K = A32*FFFFh ^ FFFFh: init and final XOR)
//   loop:    acc <= A32*acc ^ e;  crc <= the same from e_crc on the last word
// Only the loop's XOR is in the loop; the data term is computed ahead. The maps are
// derived at generation time: iblink_crc16_dword_xor (generated) holds them as
// two-level networks of 4-input XORs, whose level-1 XORs are (* keep *) wires so
// synthesis keeps the loop two LUT4s deep.
// start does not touch the loop: it clears acc one clock ahead (while its word is in
// stage 1), through the flip-flops' clear, as last does after the last word. acc_en
// and acc_clr drive the enable and clear pins straight from flip-flops, one copy per
// byte (*_hi for the high byte), so no control net drives more than 15 flip-flops
// (nextpnr-ice40 moves a larger one onto a global buffer, a detour).
// crc loads from its own level-2 XORs fed by e_crc, a copy of e loaded only for last
// words: with one XOR per bit driving both acc and crc, neither flip-flop could share a
// logic cell with it.
//
// Cycle contract: a word presented in clock t is absorbed at the end of clock t+2; for
// a last word, crc and crc_valid show during clock t+3 (latency 3), crc_valid for one
// clock. One word a clock, back to back, with any valid = 0 gaps; after a last word the
// unit restarts by itself (start is for abandoning a packet). A reset in clock r drops
// the words presented in r and r-1; a last word presented in r-2 still loads crc at the
// end of r, but crc_valid stays 0; reset does not clear crc otherwise.
module iblink_crc16_dword (
    input  wire        clock,
    // Synchronous: drops the words in flight, clears crc_valid; the next packet starts
    // from the init value
    input  wire        reset,

    // Word input. With valid: start begins a packet (one in progress is abandoned),
    // last ends it. Byte i is data[8i+7:8i], byte 0 first on the wire.
    input  wire        start,
    input  wire        valid,
    input  wire        last,
    input  wire [31:0] data,

    // The CRC of the latest packet to leave the pipeline, and a one-clock strobe when
    // it is new
    output reg  [15:0] crc,
    output reg         crc_valid
);

reg [15:0] y;
reg [15:0] e;
reg [15:0] e_crc;   // e of a last word, for crc's own XORs
reg [15:0] acc;
reg valid_1;        // stage 1 holds a word
reg last_1;         // ... and it ends a packet
reg last_2;         // stage 2 holds a packet's last word
reg acc_en;         // acc loads at the end of this clock...
reg acc_clr;        // ... with 0: a start word is in stage 1, the last word in stage 2, or reset
reg last_1_hi;      // copies of last_1, last_2, acc_en, acc_clr for the high bytes
reg last_2_hi;
reg acc_en_hi;
reg acc_clr_hi;
initial begin
   y = 16'd0;
   e = 16'd0;
   e_crc = 16'd0;
   acc = 16'd0;
   valid_1 = 1'b0;
   last_1 = 1'b0;
   last_2 = 1'b0;
   acc_en = 1'b0;
   acc_clr = 1'b0;
   last_1_hi = 1'b0;
   last_2_hi = 1'b0;
   acc_en_hi = 1'b0;
   acc_clr_hi = 1'b0;
   crc = 16'd0;
   crc_valid = 1'b0;
end

// The XOR networks (generated).
wire [15:0] y_next;
wire [15:0] e_next;
wire [15:0] acc_next;
wire [15:0] crc_next;
iblink_crc16_dword_xor nets (
   .data(data),
   .y(y),
   .acc(acc),
   .e(e),
   .e_crc(e_crc),
   .y_next(y_next),
   .e_next(e_next),
   .acc_next(acc_next),
   .crc_next(crc_next)
);

always @(posedge clock) begin
   y <= y_next;
   e <= e_next;
   // e_crc, acc and crc: the low byte's enables and clears here; the high byte's are
   // the *_hi copies below.
   if (last_1) e_crc[7:0] <= e_next[7:0];
   if (last_1_hi) e_crc[15:8] <= e_next[15:8];
   // acc_clr implies acc_en: the enable and clear pins come straight from flip-flops.
   if (acc_en) acc[7:0] <= acc_clr ? 8'd0 : acc_next[7:0];
   if (acc_en_hi) acc[15:8] <= acc_clr_hi ? 8'd0 : acc_next[15:8];
   if (last_2) crc[7:0] <= crc_next[7:0];
   if (last_2_hi) crc[15:8] <= crc_next[15:8];
   if (reset) begin
      valid_1 <= 1'b0;
      last_1 <= 1'b0;
      last_2 <= 1'b0;
      crc_valid <= 1'b0;
      acc_en <= 1'b1;
      acc_clr <= 1'b1;
   end else begin
      valid_1 <= valid;
      last_1 <= valid & last;
      last_2 <= last_1;
      crc_valid <= last_2;
      // Next clock's acc control: a start word now clears acc while it is in stage 1;
      // a word in stage 1 now is absorbed next clock (or, the last one, clears acc).
      acc_en <= (valid & start) | valid_1;
      acc_clr <= (valid & start) | last_1;
   end
   // The same values, written without a reset branch so that synthesis keeps them
   // apart: no control net drives more than 15 flip-flops (see the header).
   last_1_hi <= valid & last & ~reset;
   last_2_hi <= last_1 & ~reset;
   acc_en_hi <= reset | (valid & start) | valid_1;
   acc_clr_hi <= reset | (valid & start) | last_1;
end

endmodule
`default_nettype wire
