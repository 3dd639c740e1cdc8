`default_nettype none
// iblink_pfc_frame: the PAUSE/PFC frame builder (docs/spec.md §9). It turns the frame pfc_tx
// hands out (the queues it carries, and which carry pause time 0) into the 64 bytes on
// the wire, DATA_WIDTH bits a clock: DA 01-80-C2-00-00-01, SA, EtherType 0x8808, opcode
// 0x0001 (PAUSE: queue 0's PT or 0) or 0x0101 (PFC: the enable vector, the OR of the
// queues' priority masks, then PT0-PT7, each enabled priority its queue's PT or 0),
// zero padding to byte 59, and the FCS (CRC-32, low byte first) from generated XOR
// equations (iblink_crc32_xor_w*). Each word but the first is built the clock before
// it is offered, into a register.
//
// Cycle contract: in the clock frame_start is high, tx_valid is high with the first word
// (bytes 0..DATA_WIDTH/8-1, byte lane i at tx_data[8i+7:8i]); tx_* is an AXI4-Stream beat
// (docs/spec.md §10): a word moves in a clock tx_ready is high, and while it is low the
// word offered and tx_valid hold; the next word is offered the clock after one moves,
// tx_last with the last (512/DATA_WIDTH words), frame_done in the clock it moves.
// frame_queues and frame_zero must hold through the frame (pfc_tx holds them until its
// next frame), and frame_start comes only while no frame is in progress (in the clock
// after the last word moved at the earliest).
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

    // The frame's words, to the MAC (ahead of data); a word moves when tx_ready is high
    output wire                    tx_valid,
    output reg  [DATA_WIDTH-1:0]   tx_data,
    output wire                    tx_last,
    input  wire                    tx_ready,
    // The last word moves this clock: the frame's end, for pfc_tx
    output wire                    frame_done
);

localparam WORDS = 512 / DATA_WIDTH;
localparam integer LAST_I = WORDS - 1;
localparam [3:0] LAST = LAST_I[3:0];

// A frame in progress after its first clock, and the index of the word it offers.
reg       sending;
reg [3:0] next_word;
wire [3:0] word = frame_start ? 4'd0 : next_word;
assign tx_valid = frame_start | sending;
assign tx_last = tx_valid & (word == LAST);
wire moves = tx_valid & tx_ready;
assign frame_done = tx_last & tx_ready;

initial begin
   sending = 1'b0;
   next_word = 4'd0;
end

always @(posedge clock) begin
   if (reset) begin
      sending <= 1'b0;
      next_word <= 4'd0;
   end else if (moves) begin
      sending <= word != LAST;
      next_word <= word + 4'd1;
   end else if (frame_start) begin
      // The first word waits: it is offered again from data_r.
      sending <= 1'b1;
      next_word <= 4'd0;
   end
end

// The enable vector: the OR of the frame's queues' masks.
reg [7:0] enable;
integer q;
always @(*) begin
   enable = 8'd0;
   for (q = 0; q < QUEUES; q = q + 1)
      if (frame_queues[q]) enable = enable | cfg_priorities[8*q +: 8];
end

// The pause time of priority p (PFC): its queue's PT when the queue is in the frame and
// not released (queues' masks do not overlap), else 0.
reg [127:0] times;
integer tp, tq;
always @(*) begin
   times = 128'd0;
   for (tp = 0; tp < 8; tp = tp + 1)
      for (tq = 0; tq < QUEUES; tq = tq + 1)
         if (frame_queues[tq] && !frame_zero[tq] && cfg_priorities[8*tq + tp])
            times[16*tp +: 16] = times[16*tp +: 16] | cfg_pause_quanta[16*tq +: 16];
end

// The frame these inputs stand for, bytes 0..59 (byte b at [8b+7:8b]); bytes 60..63, the
// FCS, are put in by the last word.
localparam [511:0] FIXED = {384'd0,
                            8'h01, 8'h00,                               // opcode, low byte
                            16'h08_88,                                  // EtherType 0x8808
                            48'd0,                                      // SA
                            48'h01_00_00_c2_80_01};                     // DA 01-80-C2-00-00-01
wire [15:0] pause_time = frame_zero[0] ? 16'd0 : cfg_pause_quanta[15:0];
reg  [511:0] frame_now;
integer tb;
always @(*) begin
   frame_now = FIXED;
   frame_now[95:48] = {cfg_sa[7:0], cfg_sa[15:8], cfg_sa[23:16],
                       cfg_sa[31:24], cfg_sa[39:32], cfg_sa[47:40]};
   frame_now[119:112] = cfg_pfc ? 8'h01 : 8'h00;
   frame_now[143:128] = cfg_pfc ? {enable, 8'h00} : {pause_time[7:0], pause_time[15:8]};
   for (tb = 0; tb < 8; tb = tb + 1)
      frame_now[144 + 16*tb +: 16] = cfg_pfc ? {times[16*tb +: 8], times[16*tb + 8 +: 8]} : 16'd0;
end

// The frame as it stood at frame_start (the inputs are held through it): the words after
// the first are built from it.
reg [511:0] frame_r;
initial frame_r = FIXED;
always @(posedge clock)
   if (frame_start) frame_r <= frame_now;

// The index of the word after the one offered (the word data_r is built for when that
// one moves), kept beside next_word.
reg [3:0] build;
initial build = 4'd1;
always @(posedge clock) begin
   if (reset) build <= 4'd1;
   else if (moves) build <= frame_start ? 4'd2 : build + 4'd1;
   else if (frame_start) build <= 4'd1;
end

// The FCS register: over every word but the FCS's own, a word added when it moves; all
// ones while no frame is in progress (set by the last word and by reset), so a frame's
// first word finds it ready. The bytes the FCS is built over after the register (at 64
// bits 48..55 and 56..59, at 32 bits 56..59) are padding, zero: the FCS is a function of
// the register alone.
reg  [31:0] crc;
wire [31:0] crc_next;
wire [31:0] crc_first;
wire [31:0] crc_fcs;
wire [DATA_WIDTH-1:0] fcs_word;
reg  [DATA_WIDTH-1:0] data_r;

initial crc = 32'hffff_ffff;
initial data_r = {DATA_WIDTH{1'b0}};

generate
   if (DATA_WIDTH == 64) begin : w64
      iblink_crc32_xor_w64 step (.prev(crc), .data(data_r), .next(crc_next));
      iblink_crc32_xor_w64 first (.prev(32'hffff_ffff), .data(frame_now[63:0]), .next(crc_first));
      // The last word: bytes 56..59 go through the register first.
      iblink_crc32_xor_w64_z32 pad (.prev(crc), .data(64'd0), .next(crc_fcs));
      assign fcs_word = {~crc_fcs, 32'd0};
   end else begin : w32
      iblink_crc32_xor_w32 step (.prev(crc), .data(data_r), .next(crc_next));
      iblink_crc32_xor_w32 first (.prev(32'hffff_ffff), .data(frame_now[31:0]), .next(crc_first));
      iblink_crc32_xor_w32 pad (.prev(crc), .data(32'd0), .next(crc_fcs));
      assign fcs_word = ~crc_fcs;
   end
endgenerate

// The first word is the DA and SA bytes alone; the others come from data_r (the first
// too, while it waits).
always @(*) tx_data = frame_start ? frame_now[DATA_WIDTH-1:0] : data_r;

always @(posedge clock) begin
   if (reset || frame_done) crc <= 32'hffff_ffff;
   else if (moves) crc <= frame_start ? crc_first : crc_next;
   if (moves) begin
      if (frame_start) data_r <= frame_now[DATA_WIDTH +: DATA_WIDTH];
      else if (build == LAST) data_r <= fcs_word;
      else data_r <= frame_r[DATA_WIDTH*build[$clog2(WORDS)-1:0] +: DATA_WIDTH];
   end else if (frame_start) begin
      data_r <= frame_now[DATA_WIDTH-1:0];
   end
end

endmodule
`default_nettype wire
