`default_nettype none
// iblink_link_tx: the link TX path of a port (docs/spec.md §2, §3, §5). At each item boundary
// VL15 > FCP > data (data only in LinkActive); items are never fragmented and go back to
// back without a bubble. Data and VL15 packets get their VCRC (docs/spec.md §3, CRC-16, low
// byte first) appended: at 32 bits as an extra word (keep 0011); at 64 bits an odd PktLen
// ends with 4 data bytes and the VCRC (keep 0x3F), an even one with an extra word (keep
// 0x03). An FCP is 6 bytes: 2 words at 32 bits, 1 at 64.
//
// Pipeline (decision clock s, item of n words):
//   s          decision: vl15_take / fcp_start / take (combinational); FCP word 0 arrives
//   s+1+k      stage A, slot k: src_rd reads source word k (queue src_vl); FCP word k is
//              taken from fcp_q (it arrived in clock s+k)
//   s+2+k      stage B: word k and its kind; the data's share of the VCRC update is formed
//   s+3+k      stage C: the VCRC register absorbs word k; the wire word is formed
//   s+4+k      tx_*: word k on the wire
// The next decision is the last slot (s+n): the next sop follows the eop directly.
// Backpressure (docs/spec.md §10): the pipeline moves (adv) in a clock where tx_ready is
// high or the wire word is empty. A clock without adv is frozen as a whole: no decision,
// no src_rd, no FCP word taken, every stage and the wire word hold. The clocks above
// count moving clocks; with tx_ready always high every clock moves.
// The VCRC update is linear, next = A(state) ^ B(data): B(data) is registered a stage
// ahead, so the loop through crc_state is A(state) ^ p_q alone (timing). The equations
// come from the generated modules iblink_link_tx_vcrc_w32 / _w64.
//
// Cycle contract:
// - Combinational: vl15_take from vl15_valid, tx_ready and reset; fcp_start from
//   vl15_valid, fcp_pending, tx_ready and reset; take from vl15_valid, fcp_pending,
//   link_active, offer_valid, tx_ready and reset; src_rd from tx_ready and reset;
//   fcp_ready and fcp_done from tx_ready. Each also from registers. Every other input (vl15_len,
//   offer_vl, offer_len, fcp_valid/data/keep/sop/eop, src_data) is only sampled at the
//   clock edge, and only in a moving clock; every other output is a register.
// - Start pulse in clock s -> tx_sop in s+4; src_rd in clock t -> that word on tx_* in
//   t+3; an FCP word taken in clock t (fcp_ready) -> on tx_* in t+4; each counted in
//   moving clocks. A word on tx_* holds until it moves (tx_valid & tx_ready).
// - reset in clock r: no pulse and no src_rd in r; tx_* in r still shows what was
//   registered; from r+1 the wire is idle and the transmitter is at a boundary. src_vl
//   and the counters keep their values.
module iblink_link_tx #(
    // Link word width: 32 or 64 bits
    parameter DATA_WIDTH = 32,
    // Byte lanes of a word
    parameter KEEP_WIDTH = DATA_WIDTH/8
) (
    input  wire                  clock,
    // Link Down or resync: drops the item in progress and the pipeline
    input  wire                  reset,
    // LinkActive: data packets may start (VL15 and FCPs go in every state but Down)
    input  wire                  link_active,

    // The user's head VL15 packet and its LRH:PktLen; vl15_take: it starts this clock
    input  wire                  vl15_valid,
    input  wire [10:0]           vl15_len,
    output wire                  vl15_take,

    // The FCP TX framer holds a built FCP; fcp_start: it starts this clock, the framer
    // presents word 0 in this clock and word k in the k-th moving clock after (it holds
    // a word while fcp_ready is low; checked, see fcp_framing_error)
    input  wire                  fcp_pending,
    output wire                  fcp_start,
    output wire                  fcp_ready,
    // An FCP's last word moves on the wire this clock (its last beat, docs/spec.md §10);
    // FCPs leave in the order they started
    output wire                  fcp_done,
    input  wire                  fcp_valid,
    input  wire [DATA_WIDTH-1:0] fcp_data,
    input  wire [KEEP_WIDTH-1:0] fcp_keep,
    input  wire                  fcp_sop,
    input  wire                  fcp_eop,

    // The VL arbiter's offer: a data packet of data VL offer_vl, PktLen offer_len;
    // take: it starts this clock
    input  wire                  offer_valid,
    input  wire [3:0]            offer_vl,
    input  wire [10:0]           offer_len,
    output wire                  take,

    // Source queues (first-word-fall-through): src_rd consumes one word of queue src_vl
    // (15 = VL15); src_data is that queue's next word
    output wire                  src_rd,
    output reg  [3:0]            src_vl,
    input  wire [DATA_WIDTH-1:0] src_data,

    // The link word stream (bytes past tx_keep are 0; all 0 when tx_valid is 0). The
    // PHY takes the word with tx_ready (AXI4-Stream): it moves when tx_valid & tx_ready,
    // and holds while tx_ready is low (docs/spec.md §10)
    input  wire                  tx_ready,
    output reg                   tx_valid,
    output reg  [DATA_WIDTH-1:0] tx_data,
    output reg  [KEEP_WIDTH-1:0] tx_keep,
    output reg                   tx_sop,
    output reg                   tx_eop,
    output reg                   tx_link,

    // Sticky until reset: an FCP word arrived without fcp_valid or not framed as a
    // 6-byte FCP's
    output reg                   fcp_framing_error,
    // Items started since power-up, by kind, wrapping (reset keeps them)
    output reg  [15:0]           vl15_starts,
    output reg  [15:0]           fcp_starts,
    output reg  [15:0]           data_starts
);

// Bits of a_left: up to ceil((4 * 2047 + 2) / KEEP_WIDTH) - 1 slots after the first.
localparam LEFT_BITS = (DATA_WIDTH == 64) ? 10 : 11;

// ---- Stage A: slot sequencer ----
// a_active: this clock is a slot of an item; a_fcp: it is an FCP; a_first: its first slot;
// a_left: slots of the item after this one; a_last: a_left == 0, a register of its own
// so the boundary below is one gate from flip-flops.
reg a_active;
reg a_fcp;
reg a_first;
reg [LEFT_BITS-1:0] a_left;
reg a_last;
// 64 bits: odd PktLen, so the last slot reads 4 data bytes and carries the VCRC (0 at 32).
wire a_odd;
// The start pulses of the previous clock, {data, FCP, VL15}, for the counters.
reg [2:0] started_q;
// The framer's FCP word of the previous clock: FCP word k is used in slot k, one clock
// after it arrives, where a packet's word k is read.
reg [DATA_WIDTH-1:0] fcp_q;

// The pipeline moves this clock: the wire word moves or there is none.
wire adv = tx_ready | ~tx_valid;
wire last_slot = a_active & a_last;
// Item boundary: idle, or the last slot of the current item (docs/spec.md §5: never fragment).
wire boundary = ~a_active | a_last;
// Transmit priority VL15 > FCP > data (docs/spec.md §5); data only in LinkActive. The *_wins
// terms depend on inputs only; a start is a win at a boundary in a moving clock.
wire fcp_wins = ~vl15_valid & fcp_pending;
wire data_wins = ~vl15_valid & ~fcp_pending & link_active & offer_valid;
wire pick_vl15 = boundary & adv & vl15_valid;
wire pick_fcp = boundary & adv & fcp_wins;
wire pick_data = boundary & adv & data_wins;
// The winner's length and slot count (used at a boundary only).
wire [10:0] pkt_len = vl15_valid ? vl15_len : offer_len;
// Slots after the first: ceil((4 PktLen + 2) / KEEP_WIDTH) - 1 for a packet, 1 (32 bits)
// or 0 (64 bits) for an FCP.
wire [LEFT_BITS-1:0] left_init;
// The framer's word(s) do not look like a 6-byte FCP's.
wire fcp_word_bad;

assign vl15_take = pick_vl15 & ~reset;
assign fcp_start = pick_fcp & ~reset;
assign take = pick_data & ~reset;
// Every slot of a packet reads, except the VCRC-only word (an odd PktLen has none).
assign src_rd = a_active & ~a_fcp & (~a_last | a_odd) & adv & ~reset;
assign fcp_ready = adv;
assign fcp_done = tx_valid & tx_ready & tx_link & tx_eop;

// ---- Stage B: the slot's word and its kind ----
// b_crc: the VCRC-only word ending a packet (b_merge, 64 bits: the odd ending, 4 data
// bytes then the VCRC; b_zero_*: lanes that carry none of the word's bytes; both in the
// width's section below).
reg b_valid;
reg b_sop;
reg b_eop;
reg b_link;
reg b_crc;
reg [DATA_WIDTH-1:0] b_data;
// Stage B's word as stage C takes it: its keep, and the word with its empty lanes cleared.
wire [KEEP_WIDTH-1:0] b_keep_c;
wire [DATA_WIDTH-1:0] b_data_c;

// ---- Stage C: the VCRC register and the wire word ----
reg c_valid;
reg c_sop;
reg c_eop;
reg c_link;
reg c_crc;
reg [KEEP_WIDTH-1:0] c_keep;
// The word, lanes past its bytes already 0.
reg [DATA_WIDTH-1:0] c_data;
// The running VCRC (reflected LFSR state), 0xFFFF between packets.
reg [15:0] crc_state;
// Stage C's word ends a packet (the VCRC restarts after it).
wire c_ends;
// The VCRC after absorbing stage C's word: A(crc_state) ^ the registered data share.
wire [15:0] crc_next;
// The VCRC, complemented, in the lanes of stage C's word that carry it (0 elsewhere).
wire [DATA_WIDTH-1:0] c_vcrc;

// ---- The width's own logic: slot counts, the FCP check, lanes, the VCRC parts ----
generate
if (DATA_WIDTH == 64) begin : w64
   reg odd;
   reg b_merge;
   reg b_zero_mid;
   reg b_zero_hi;
   reg c_merge;
   // The data's share of the VCRC update: 8 bytes, and the low 4 of an odd ending,
   // each split by pairs of lanes (at most 16 terms a part: two LUT levels), and the
   // state's share after 8 bytes and after 4 (an odd ending).
   wire [15:0] dpart_8b_0;
   wire [15:0] dpart_8b_1;
   wire [15:0] dpart_8b_2;
   wire [15:0] dpart_8b_3;
   wire [15:0] dpart_4b_0;
   wire [15:0] dpart_4b_1;
   wire [15:0] spart_8b;
   wire [15:0] spart_4b;
   iblink_link_tx_vcrc_w64 vcrc (
       .data(b_data),
       .state(crc_state),
       .dpart_8b_0(dpart_8b_0),
       .dpart_8b_1(dpart_8b_1),
       .dpart_8b_2(dpart_8b_2),
       .dpart_8b_3(dpart_8b_3),
       .dpart_4b_0(dpart_4b_0),
       .dpart_4b_1(dpart_4b_1),
       .spart_8b(spart_8b),
       .spart_4b(spart_4b)
   );
   // The data's share, registered.
   reg [15:0] p_q0;
   reg [15:0] p_q1;
   reg [15:0] p_q2;
   reg [15:0] p_q3;
   reg [15:0] p4_q0;
   reg [15:0] p4_q1;
   initial begin
      odd = 1'b0;
      b_merge = 1'b0;
      b_zero_mid = 1'b0;
      b_zero_hi = 1'b0;
      c_merge = 1'b0;
      p_q0 = 16'd0;
      p_q1 = 16'd0;
      p_q2 = 16'd0;
      p_q3 = 16'd0;
      p4_q0 = 16'd0;
      p4_q1 = 16'd0;
   end
   always @(posedge clock) begin
      if (adv) begin
         c_merge <= b_merge;
         p_q0 <= dpart_8b_0;
         p_q1 <= dpart_8b_1;
         p_q2 <= dpart_8b_2;
         p_q3 <= dpart_8b_3;
         p4_q0 <= dpart_4b_0;
         p4_q1 <= dpart_4b_1;
      end
      if (~reset & adv) begin
         b_merge <= last_slot & ~a_fcp & odd;
         // Lanes 4-5 carry no data in a packet's ending word; 6-7 none in an FCP either.
         b_zero_mid <= last_slot & ~a_fcp;
         b_zero_hi <= last_slot | a_fcp;
         if (boundary) odd <= ~fcp_wins & pkt_len[0];
      end
   end
   assign a_odd = odd;
   assign left_init = fcp_wins ? 10'd0 : pkt_len[10:1];
   // The framer's word must look like a 6-byte FCP's: one word, keep 0x3f.
   assign fcp_word_bad = pick_fcp & ~(fcp_valid & fcp_sop & fcp_eop & (fcp_keep == 8'h3f));
   assign b_keep_c = b_crc ? 8'h03 : b_zero_hi ? 8'h3f : 8'hff;
   assign b_data_c = {b_zero_hi ? 16'd0 : b_data[63:48], b_zero_mid ? 16'd0 : b_data[47:32], b_crc ? 32'd0 : b_data[31:0]};
   assign c_ends = c_crc | c_merge;
   assign crc_next = spart_8b ^ p_q0 ^ p_q1 ^ p_q2 ^ p_q3;
   assign c_vcrc = {16'd0, c_merge ? ~(spart_4b ^ p4_q0 ^ p4_q1) : 16'd0, 16'd0, c_crc ? ~crc_state : 16'd0};
end else begin : w32
   reg b_zero_hi;
   // The data's share of the VCRC update (4 bytes, at most 24 terms) and the state's.
   wire [15:0] dpart_4b;
   wire [15:0] spart_4b;
   iblink_link_tx_vcrc_w32 vcrc (
       .data(b_data),
       .state(crc_state),
       .dpart_4b(dpart_4b),
       .spart_4b(spart_4b)
   );
   // The data's share, registered.
   reg [15:0] p_q;
   initial begin
      b_zero_hi = 1'b0;
      p_q = 16'd0;
   end
   always @(posedge clock) begin
      if (adv) p_q <= dpart_4b;
      // Lanes 2-3 carry nothing in a VCRC-only word or an FCP's second word.
      if (~reset & adv) b_zero_hi <= last_slot;
   end
   assign a_odd = 1'b0;
   assign left_init = fcp_wins ? 11'd1 : pkt_len;
   // The framer's words must look like a 6-byte FCP's: word 0 with fcp_start (keep
   // 1111), word 1 in the next clock, the FCP's first slot (keep 0011).
   wire fcp_word0_bad = pick_fcp & ~(fcp_valid & fcp_sop & ~fcp_eop & (fcp_keep == 4'b1111));
   wire fcp_word1_bad = a_active & a_fcp & ~a_last & ~(fcp_valid & ~fcp_sop & fcp_eop & (fcp_keep == 4'b0011));
   assign fcp_word_bad = fcp_word0_bad | fcp_word1_bad;
   assign b_keep_c = b_zero_hi ? 4'b0011 : 4'b1111;
   assign b_data_c = {b_zero_hi ? 16'd0 : b_data[31:16], b_crc ? 16'd0 : b_data[15:0]};
   assign c_ends = c_crc;
   assign crc_next = spart_4b ^ p_q;
   assign c_vcrc = {16'd0, c_crc ? ~crc_state : 16'd0};
end
endgenerate

initial begin
   a_active = 1'b0;
   a_fcp = 1'b0;
   a_first = 1'b0;
   a_left = {LEFT_BITS{1'b0}};
   a_last = 1'b0;
   src_vl = 4'd0;
   started_q = 3'd0;
   fcp_q = {DATA_WIDTH{1'b0}};
   b_valid = 1'b0;
   b_sop = 1'b0;
   b_eop = 1'b0;
   b_link = 1'b0;
   b_crc = 1'b0;
   b_data = {DATA_WIDTH{1'b0}};
   c_valid = 1'b0;
   c_sop = 1'b0;
   c_eop = 1'b0;
   c_link = 1'b0;
   c_crc = 1'b0;
   c_keep = {KEEP_WIDTH{1'b0}};
   c_data = {DATA_WIDTH{1'b0}};
   crc_state = 16'hffff;
   tx_valid = 1'b0;
   tx_data = {DATA_WIDTH{1'b0}};
   tx_keep = {KEEP_WIDTH{1'b0}};
   tx_sop = 1'b0;
   tx_eop = 1'b0;
   tx_link = 1'b0;
   fcp_framing_error = 1'b0;
   vl15_starts = 16'd0;
   fcp_starts = 16'd0;
   data_starts = 16'd0;
end

always @(posedge clock) begin
   // Loaded in every moving clock: read only where a slot or a valid says so.
   if (adv) begin
      fcp_q <= fcp_data;
      b_data <= a_fcp ? fcp_q : src_data;
      c_sop <= b_sop;
      c_eop <= b_eop;
      c_link <= b_link;
      c_crc <= b_crc;
      c_keep <= b_keep_c;
      c_data <= b_data_c;
   end
   // Statistics: items started, by kind (wrapping), counted a clock after the pulse so
   // the 16-bit adders stay off the boundary path; a reset does not clear them.
   started_q <= {pick_data, pick_fcp, pick_vl15} & {3{~reset}};
   vl15_starts <= vl15_starts + {15'd0, started_q[0]};
   fcp_starts <= fcp_starts + {15'd0, started_q[1]};
   data_starts <= data_starts + {15'd0, started_q[2]};
   if (reset) begin
      // Link Down or resync: the item in progress and the pipeline are dropped.
      a_active <= 1'b0;
      b_valid <= 1'b0;
      c_valid <= 1'b0;
      crc_state <= 16'hffff;
      tx_valid <= 1'b0;
      tx_data <= {DATA_WIDTH{1'b0}};
      tx_keep <= {KEEP_WIDTH{1'b0}};
      tx_sop <= 1'b0;
      tx_eop <= 1'b0;
      tx_link <= 1'b0;
      fcp_framing_error <= 1'b0;
   end else if (adv) begin
      // Stage C -> wire (all 0 without a word).
      tx_valid <= c_valid;
      tx_data <= c_valid ? c_data | c_vcrc : {DATA_WIDTH{1'b0}};
      tx_keep <= c_valid ? c_keep : {KEEP_WIDTH{1'b0}};
      tx_sop <= c_valid & c_sop;
      tx_eop <= c_valid & c_eop;
      tx_link <= c_valid & c_link;
      // The VCRC covers every data byte; after a packet's ending word it restarts.
      if (c_valid & ~c_link) crc_state <= c_ends ? 16'hffff : crc_next;
      // Stage B -> C.
      c_valid <= b_valid;
      // Stage A -> B.
      b_valid <= a_active;
      b_sop <= a_first;
      b_eop <= last_slot;
      b_link <= a_fcp;
      b_crc <= last_slot & ~a_fcp & ~a_odd;
      // Stage A: the next slot, or the next item.
      if (boundary) begin
         a_active <= vl15_valid | fcp_wins | data_wins;
         a_fcp <= fcp_wins;
         a_first <= 1'b1;
         a_left <= left_init;
         a_last <= left_init == {LEFT_BITS{1'b0}};
         if (vl15_valid) src_vl <= 4'd15;
         else if (data_wins) src_vl <= offer_vl;
      end else begin
         a_first <= 1'b0;
         a_left <= a_left - {{(LEFT_BITS-1){1'b0}}, 1'b1};
         a_last <= a_left == {{(LEFT_BITS-1){1'b0}}, 1'b1};
      end
      if (fcp_word_bad) fcp_framing_error <= 1'b1;
   end
end

endmodule
`default_nettype wire
