`default_nettype none
// iblink_crc16: CRC-16 of a packet, one word of DATA_WIDTH bits a clock (docs/spec.md §3): the
// FCP's LPCRC and a data packet's VCRC. Polynomial 0x100B, init 0xFFFF, reflected in and
// out, final XOR 0xFFFF; the CRC goes on the wire low byte first (crc[7:0]).
//
// state holds the reflected LFSR register. The state after n bytes is a linear map of the
// 16 state bits and the 8n data bits, derived at generation time: the generated module
// iblink_crc16_xor_w<DATA_WIDTH> holds it as one flat XOR per state bit and byte count
// (smaller and quicker to elaborate than an unrolled LFSR loop), and keep picks the byte
// count, so one clock covers a whole word (an FCP's four header bytes at 32 bits).
//
// A packet ends with its last word, after which state restarts by itself, so packets
// may follow back to back; start restarts a packet (the old one is abandoned).
//
// Cycle contract: a word presented in clock t is absorbed at the end of clock t; for a
// last word, crc shows its packet's CRC from clock t+1 (until the next last word or a
// reset) and crc_valid is 1 during clock t+1 only. A reset in clock t clears crc and
// crc_valid and restarts state at the end of clock t.
module iblink_crc16 #(
    // Bits per clock: 8, 16, 32 or 64
    parameter DATA_WIDTH = 32,
    // Byte enables
    parameter KEEP_WIDTH = DATA_WIDTH/8
) (
    input  wire                  clock,
    // Synchronous: drops a packet in progress, clears crc and crc_valid
    input  wire                  reset,

    // Word input. With valid: start begins a packet (state restarts at 0xFFFF), last
    // ends it. Byte lane i is data[8i+7:8i], lane 0 first on the wire. keep is
    // contiguous from lane 0: its highest set bit i means lanes 0..i carry bytes; all
    // zero means the word carries none.
    input  wire                  start,
    input  wire                  valid,
    input  wire                  last,
    input  wire [DATA_WIDTH-1:0] data,
    input  wire [KEEP_WIDTH-1:0] keep,

    // The CRC of the latest packet, and a one-clock strobe when it is new
    output reg  [15:0]           crc,
    output reg                   crc_valid
);

reg [15:0] state;
initial begin
   state = 16'hffff;
   crc = 16'h0000;
   crc_valid = 1'b0;
end

// Register feeding this word: a new packet restarts at the init value.
wire [15:0] prev = start ? 16'hffff : state;

// State after n bytes of this word (lanes 0..n-1) at [16n-1:16n-16], n = 1..KEEP_WIDTH,
// from the generated equations; keep's highest set bit says how many bytes count.
wire [16*KEEP_WIDTH-1:0] next_bytes;
reg [15:0] next;
generate
   if (DATA_WIDTH == 8 && KEEP_WIDTH == 1) begin : eq
      iblink_crc16_xor_w8 xor_w8 (.prev(prev), .data(data), .next_bytes(next_bytes));
      always @(*) next = keep ? next_bytes : prev;
   end else if (DATA_WIDTH == 16 && KEEP_WIDTH == 2) begin : eq
      iblink_crc16_xor_w16 xor_w16 (.prev(prev), .data(data), .next_bytes(next_bytes));
      always @(*) begin
         casez (keep)
            2'b1?: next = next_bytes[31:16];
            2'b01: next = next_bytes[15:0];
            default: next = prev; // no byte enabled
         endcase
      end
   end else if (DATA_WIDTH == 32 && KEEP_WIDTH == 4) begin : eq
      iblink_crc16_xor_w32 xor_w32 (.prev(prev), .data(data), .next_bytes(next_bytes));
      always @(*) begin
         casez (keep)
            4'b1???: next = next_bytes[63:48];
            4'b01??: next = next_bytes[47:32];
            4'b001?: next = next_bytes[31:16];
            4'b0001: next = next_bytes[15:0];
            default: next = prev; // no byte enabled
         endcase
      end
   end else if (DATA_WIDTH == 64 && KEEP_WIDTH == 8) begin : eq
      iblink_crc16_xor_w64 xor_w64 (.prev(prev), .data(data), .next_bytes(next_bytes));
      always @(*) begin
         casez (keep)
            8'b1???????: next = next_bytes[127:112];
            8'b01??????: next = next_bytes[111:96];
            8'b001?????: next = next_bytes[95:80];
            8'b0001????: next = next_bytes[79:64];
            8'b00001???: next = next_bytes[63:48];
            8'b000001??: next = next_bytes[47:32];
            8'b0000001?: next = next_bytes[31:16];
            8'b00000001: next = next_bytes[15:0];
            default: next = prev; // no byte enabled
         endcase
      end
   end else begin : eq
      // Fails elaboration: DATA_WIDTH is 8, 16, 32 or 64 and KEEP_WIDTH is DATA_WIDTH/8.
      iblink_crc16_unsupported_data_width unsupported ();
   end
endgenerate

always @(posedge clock) begin
   if (reset) begin
      state <= 16'hffff;
      crc <= 16'h0000;
      crc_valid <= 1'b0;
   end else begin
      crc_valid <= valid & last;
      if (valid) begin
         // After the last word the register restarts, ready for the next packet.
         state <= last ? 16'hffff : next;
         if (last) crc <= ~next;
      end
   end
end

endmodule
`default_nettype wire
