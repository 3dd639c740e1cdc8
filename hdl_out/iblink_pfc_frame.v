// iblink_pfc_frame: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/pfc_frame/iblink_pfc_frame.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: pfc_frame
// config: parameters = QUEUES = 1..8, DATA_WIDTH = 32 or 64
`default_nettype none
// iblink_pfc_frame: the PAUSE/PFC frame builder (SPEC.md 9). It turns the frame pfc_tx
// hands out (the queues it carries, and which carry pause time 0) into the 64 bytes on
// the wire, DATA_WIDTH bits a clock: DA 01-80-C2-00-00-01, SA, EtherType 0x8808, opcode
// 0x0001 (PAUSE: queue 0's PT or 0) or 0x0101 (PFC: the enable vector, the OR of the
// queues' priority masks, then PT0-PT7, each enabled priority its queue's PT or 0),
// zero padding to byte 59, and the FCS (CRC-32, low byte first) from generated XOR
// equations (iblink_crc32_xor_w*).
//
// Cycle contract: in the clock frame_start is high, tx_valid is high with the first word
// (bytes 0..DATA_WIDTH/8-1, byte lane i at tx_data[8i+7:8i]); the other words follow one
// a clock, without gaps, tx_last with the last (512/DATA_WIDTH words). frame_queues and
// frame_zero must hold through the frame (pfc_tx holds them until its next frame).
module iblink_pfc_frame #(
    // RX queues: 1 to 8
    parameter QUEUES = 8,
    // Bits per clock: 32 or 64
    parameter DATA_WIDTH = 64
) (
    input  wire                    clock,
    input  wire                    reset,

    // Configuration: static while running
    // 1: PFC frames; 0: PAUSE frames
    input  wire                    cfg_pfc,
    // Source address, first byte on the wire at [47:40]
    input  wire [47:0]             cfg_sa,
    // PSRQ of queue q at [8q+7:8q] (bit p: priority p)
    input  wire [QUEUES*8-1:0]     cfg_priorities,
    // PT of queue q at [16q+15:16q], in quanta
    input  wire [QUEUES*16-1:0]    cfg_pause_quanta,

    // The frame to send, from pfc_tx
    input  wire                    frame_start,
    input  wire [QUEUES-1:0]       frame_queues,
    input  wire [QUEUES-1:0]       frame_zero,

    // The frame's words, to the MAC (ahead of data)
    output wire                    tx_valid,
    output reg  [DATA_WIDTH-1:0]   tx_data,
    output wire                    tx_last
);

localparam WORDS = 512 / DATA_WIDTH;
localparam integer LAST_I = WORDS - 1;
localparam [3:0] LAST = LAST_I[3:0];

// The word after the one going out, while a frame goes out.
reg       sending;
reg [3:0] next_word;
wire [3:0] word = frame_start ? 4'd0 : next_word;
assign tx_valid = frame_start | sending;
assign tx_last = tx_valid & (word == LAST);

initial begin
   sending = 1'b0;
   next_word = 4'd0;
end

always @(posedge clock) begin
   if (reset) begin
      sending <= 1'b0;
      next_word <= 4'd0;
   end else if (tx_valid) begin
      sending <= word != LAST;
      next_word <= word + 4'd1;
   end
end

// The fields: the enable vector and each priority's time.
reg [7:0]   enable;
reg [127:0] times;
integer q, p;
always @(*) begin
   enable = 8'd0;
   times = 128'd0;
   for (q = 0; q < QUEUES; q = q + 1) begin
      if (frame_queues[q]) enable = enable | cfg_priorities[8*q +: 8];
      for (p = 0; p < 8; p = p + 1) begin
         if (frame_queues[q] && !frame_zero[q] && cfg_priorities[8*q + p])
            times[16*p +: 16] = times[16*p +: 16] | cfg_pause_quanta[16*q +: 16];
      end
   end
end

// Bytes 0..59 (byte b at [8b+7:8b]); 60..63, the FCS, are put in by the last word.
wire [15:0] pause_time = frame_zero[0] ? 16'd0 : cfg_pause_quanta[15:0];
wire [511:0] body;
assign body[47:0]   = 48'h01_00_00_c2_80_01;                           // DA 01-80-C2-00-00-01
assign body[95:48]  = {cfg_sa[7:0], cfg_sa[15:8], cfg_sa[23:16],
                       cfg_sa[31:24], cfg_sa[39:32], cfg_sa[47:40]};  // SA
assign body[111:96] = 16'h08_88;                                       // EtherType 0x8808
assign body[127:112] = cfg_pfc ? 16'h01_01 : 16'h01_00;                // opcode
assign body[143:128] = cfg_pfc ? {enable, 8'h00} : {pause_time[7:0], pause_time[15:8]};
genvar g;
generate
   for (g = 0; g < 8; g = g + 1) begin : pt
      wire [15:0] t = times[16*g +: 16];
      assign body[144 + 16*g +: 16] = cfg_pfc ? {t[7:0], t[15:8]} : 16'd0;
   end
endgenerate
assign body[511:272] = 240'd0;                                         // padding

// The FCS register: over every word but the FCS's own.
reg  [31:0] crc;
wire [31:0] crc_prev = frame_start ? 32'hffff_ffff : crc;
wire [31:0] crc_next;
wire [31:0] fcs;

initial crc = 32'hffff_ffff;
always @(posedge clock) if (tx_valid) crc <= crc_next;

generate
   if (DATA_WIDTH == 64) begin : w64
      iblink_crc32_xor_w64 step (.prev(crc_prev), .data(tx_data), .next(crc_next));
      // The last word: bytes 56..59 (padding, zero) go through the register first.
      wire [31:0] crc_pad;
      iblink_crc32_xor_w32 pad (.prev(crc), .data(32'd0), .next(crc_pad));
      assign fcs = ~crc_pad;
      always @(*) begin
         if (word == LAST) tx_data = {fcs, 32'd0};
         else tx_data = body[64*word[2:0] +: 64];
      end
   end else begin : w32
      iblink_crc32_xor_w32 step (.prev(crc_prev), .data(tx_data), .next(crc_next));
      assign fcs = ~crc;
      always @(*) begin
         if (word == LAST) tx_data = fcs;
         else tx_data = body[32*word +: 32];
      end
   end
endgenerate

endmodule
`default_nettype wire
