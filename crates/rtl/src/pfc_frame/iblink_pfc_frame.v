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

// A frame in progress after its first clock, the index of the word it offers, and
// whether that is the first word (it waited in the frame_start clock).
reg       sending;
reg [3:0] next_word;
reg       first_held;
wire [3:0] word = frame_start ? 4'd0 : next_word;
assign tx_valid = frame_start | sending;
assign tx_last = tx_valid & (word == LAST);
wire moves = tx_valid & tx_ready;
assign frame_done = tx_last & tx_ready;

initial begin
   sending = 1'b0;
   next_word = 4'd0;
   first_held = 1'b0;
end

always @(posedge clock) begin
   if (reset) begin
      sending <= 1'b0;
      next_word <= 4'd0;
      first_held <= 1'b0;
   end else if (moves) begin
      sending <= word != LAST;
      next_word <= word + 4'd1;
      first_held <= 1'b0;
   end else if (frame_start) begin
      // The first word waits: it is offered again from data_r.
      sending <= 1'b1;
      next_word <= 4'd0;
      first_held <= 1'b1;
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

// Bytes 0..59 but the pause times PT0-PT7 (bytes 18..33, left 0 here); byte b at
// [8b+7:8b]. Bytes 60..63, the FCS, are put in by the last word.
wire [15:0] pause_time = frame_zero[0] ? 16'd0 : cfg_pause_quanta[15:0];
wire [511:0] body;
assign body[47:0]    = 48'h01_00_00_c2_80_01;                          // DA 01-80-C2-00-00-01
assign body[95:48]   = {cfg_sa[7:0], cfg_sa[15:8], cfg_sa[23:16],
                        cfg_sa[31:24], cfg_sa[39:32], cfg_sa[47:40]}; // SA
assign body[111:96]  = 16'h08_88;                                      // EtherType 0x8808
assign body[127:112] = cfg_pfc ? 16'h01_01 : 16'h01_00;                // opcode
assign body[143:128] = cfg_pfc ? {enable, 8'h00} : {pause_time[7:0], pause_time[15:8]};
assign body[511:144] = 368'd0;                                         // PT0-PT7, padding

// The word after this one (its index), built into data_r for the next clock.
localparam LANES = DATA_WIDTH / 16;
wire [3:0] next_index = word + 4'd1;
wire [DATA_WIDTH-1:0] next_body = body[DATA_WIDTH*next_index[$clog2(WORDS)-1:0] +: DATA_WIDTH];

// The pause times in that word: 16-bit lane j is halfword h = next_index*LANES + j of
// the frame, PT(h - 9) for h = 9..16; each is its queue's PT when the queue is in the
// frame and not released (queues' masks do not overlap).
wire [DATA_WIDTH-1:0] next_times;
genvar j;
generate
   for (j = 0; j < LANES; j = j + 1) begin : lane
      localparam integer H0 = j;
      localparam [5:0] J = H0[5:0];
      localparam [5:0] LANES6 = LANES[5:0];
      wire [5:0] h = {2'b00, next_index} * LANES6 + J;
      // h - 9, modulo 8
      wire [2:0] pr = h[2:0] - 3'd1;
      reg [15:0] t;
      integer k, pi;
      always @(*) begin
         t = 16'd0;
         pi = {29'd0, pr};
         for (k = 0; k < QUEUES; k = k + 1)
            if (frame_queues[k] && !frame_zero[k] && cfg_priorities[8*k + pi])
               t = t | cfg_pause_quanta[16*k +: 16];
      end
      wire in_times = cfg_pfc && h >= 6'd9 && h <= 6'd16;
      assign next_times[16*j +: 16] = in_times ? {t[7:0], t[15:8]} : 16'd0;
   end
endgenerate

// The FCS register: over every word but the FCS's own, a word added when it moves; fcs:
// the FCS if the next word is the last.
reg  [31:0] crc;
wire [31:0] crc_prev = (frame_start | first_held) ? 32'hffff_ffff : crc;
wire [31:0] crc_next;
wire [31:0] fcs;
wire [DATA_WIDTH-1:0] fcs_word;
reg  [DATA_WIDTH-1:0] data_r;

initial crc = 32'hffff_ffff;
initial data_r = {DATA_WIDTH{1'b0}};

generate
   if (DATA_WIDTH == 64) begin : w64
      iblink_crc32_xor_w64 step (.prev(crc_prev), .data(tx_data), .next(crc_next));
      // The last word: bytes 56..59 (padding, zero) go through the register first.
      wire [31:0] crc_pad;
      iblink_crc32_xor_w64_z32 pad (.prev(crc_prev), .data(tx_data), .next(crc_pad));
      assign fcs = ~crc_pad;
      assign fcs_word = {fcs, 32'd0};
   end else begin : w32
      iblink_crc32_xor_w32 step (.prev(crc_prev), .data(tx_data), .next(crc_next));
      assign fcs = ~crc_next;
      assign fcs_word = fcs;
   end
endgenerate

// The first word is the DA and SA bytes alone; the others come from data_r (the first
// too, while it waits).
always @(*) tx_data = frame_start ? body[DATA_WIDTH-1:0] : data_r;

always @(posedge clock) begin
   if (moves) begin
      crc <= crc_next;
      data_r <= (next_index == LAST) ? fcs_word : (next_body | next_times);
   end else if (frame_start) begin
      data_r <= body[DATA_WIDTH-1:0];
   end
end

endmodule
`default_nettype wire
