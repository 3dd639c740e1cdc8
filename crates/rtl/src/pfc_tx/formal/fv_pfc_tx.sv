`default_nettype none
// Formal harness of iblink_pfc_tx in PFC mode (PFC = 1) or PAUSE mode (PFC = 0)
// (docs/spec.md §9), checked on hdl_out/ by `iblink formal`. Every input is free each clock
// but for the assumptions below.
//
// The harness keeps, per queue, from docs/spec.md §9 and the block's port contract (not from
// its registers):
//   - the queue's level trigger: the hardware level, or the RX-fill trigger as docs/spec.md
//     9 defines it (asserted when the fill rises above RFA, released when it falls
//     below RFD, when enabled);
// and per slot (PFC mode: one per queue; PAUSE mode: slot 0 alone, whose level is any
// queue's level trigger and whose software request is any queue's, with queue 0's PT):
//   - the pause the link partner is under from this side: a frame carrying the slot
//     with a pause time holds it for PT quanta (x 8 clocks at 64 bits) from the clock
//     its last word moves on the wire (docs/spec.md §10);
// and the wire: the builder offers a frame's 8 words from its frame_start clock, the
// next the clock after one moves, and a word moves in a clock tx_ready is high; the
// clock the last one moves is the block's frame_done;
// and checks, per slot:
//   P1 a level trigger that stays asserted is never left without a pause that covers
//      it: once the first frame can have left (LEVEL_SETTLE clocks), every clock has
//      pause time left (the refresh, docs/spec.md §9, leaves before the pause runs out);
//   P2 when a queue's triggers are all off, no frame carries it with a pause time
//      (but one already taken, or one a software request left waiting), and a release
//      frame (pause time 0) comes only for a fall of its level, at most one per fall;
//      none at all with zero_quanta_on_release off;
//   P3 PAUSE mode: no frame carries any slot but slot 0;
//   P5 a frame starts only once the last word of the one before has moved (the
//      builder's rule, docs/spec.md §10);
//   P4 a software request is followed by a frame carrying its slot with a pause time
//      within OFF_SETTLE clocks, or as long after the level's last fall (docs/spec.md §9: one
//      frame per request, not lost while its frame waits, nor when a release replaces
//      the pause time it set).
//
// Assumptions (the block's contract with its user, and this check's scope):
//   - configuration static while running (the port's documented rule);
//   - RFD < RFA (docs/spec.md §9, a configuration error otherwise);
//   - refresh_quanta 4 and PT 5 or 6: the timer is the same logic for any PT, and these
//     make a refresh period 8 to 16 clocks, so the BMC depth sees several;
//   - busy (a data frame on the wire) at most BUSY_MAX clocks in a row: the scope of
//     the check (a real maximum frame is 191 clocks at 64 bits; the refresh must then
//     leave that much earlier, which refresh_quanta sets);
//   - tx_ready low for one clock at a time, at least three clocks apart, so a frame
//     takes at most 11 clocks on the wire: the scope of the check, for the same reason
//     (a stall delays the refresh as long as it lasts, so the pause time left when the
//     refresh is due, refresh_quanta, must cover the stalls the port's MAC makes);
//   - reset only in the first clock.
module fv_pfc_tx #(
    parameter QUEUES = 2,
    // 1: PFC mode; 0: PAUSE mode (cfg_pfc)
    parameter PFC = 1,
    // 1: the module's ECP5 netlist layout (TARGET = "ECP5"); 0: its default
    parameter ECP5 = 0
) (
    input wire                       clock,
    input wire                       reset,
    input wire                       cfg_zero_on_release,
    input wire [15:0]                cfg_refresh_quanta,
    input wire [QUEUES*16-1:0]       cfg_pause_quanta,
    input wire [QUEUES-1:0]          cfg_fill_en,
    input wire [QUEUES*16-1:0]       cfg_rfa,
    input wire [QUEUES*16-1:0]       cfg_rfd,
    input wire [QUEUES*16-1:0]       fill_bytes,
    input wire [QUEUES-1:0]          hw_level,
    input wire [QUEUES-1:0]          sw_req,
    input wire                       busy,
    input wire                       tx_ready
);

localparam FRAME_CLOCKS = 8;     // 64 bits a clock
localparam BUSY_MAX = 7;
// Clocks a frame takes on the wire at most: its 8 words and 3 stalls.
localparam FRAME_WIRE = FRAME_CLOCKS + 3;
// A level asserted from clock t0 on: due at t0 + 2, taken after at most our own frame
// on the wire and BUSY_MAX clocks of data, first word the clock after, last word
// FRAME_WIRE - 1 clocks later at the latest.
localparam LEVEL_SETTLE = 2 + FRAME_WIRE + BUSY_MAX + 1 + FRAME_WIRE - 1;
// A frame with a pause time decided before the triggers went off (one waiting, or a
// software request deferred behind it) starts within two takes of it.
localparam OFF_SETTLE = 2 + 2 * (FRAME_WIRE + BUSY_MAX + 1) + 2;

wire             frame_start;
wire [QUEUES-1:0] frame_queues;
wire [QUEUES-1:0] frame_zero;

// The builder on the wire: a frame in progress after its frame_start clock, and the
// words of it moved before this clock.
reg       sending = 1'b0;
reg [3:0] moved = 4'd0;
wire      offered = frame_start || sending;
wire [3:0] word = frame_start ? 4'd0 : moved;
wire      frame_done = offered && tx_ready && word == FRAME_CLOCKS - 1;
always @(posedge clock)
   if (reset) begin
      sending <= 1'b0;
      moved <= 4'd0;
   end else if (offered) begin
      sending <= !frame_done;
      moved <= word + {3'd0, tx_ready};
   end

iblink_pfc_tx #(.QUEUES(QUEUES), .DATA_WIDTH(64), .FILL_BITS(16), .TARGET(ECP5 ? "ECP5" : "GENERIC")) dut (
    .clock(clock), .reset(reset),
    .cfg_pfc(PFC != 0), .cfg_zero_on_release(cfg_zero_on_release),
    .cfg_refresh_quanta(cfg_refresh_quanta), .cfg_pause_quanta(cfg_pause_quanta),
    .cfg_fill_en(cfg_fill_en), .cfg_rfa(cfg_rfa), .cfg_rfd(cfg_rfd),
    .fill_bytes(fill_bytes), .hw_level(hw_level), .sw_req(sw_req), .busy(busy),
    .frame_done(frame_done),
    .frame_start(frame_start), .frame_queues(frame_queues), .frame_zero(frame_zero)
);

reg past_valid = 1'b0;
always @(posedge clock) past_valid <= 1'b1;

// Reset in the first clock only; configuration static.
always @(*) assume(reset == !past_valid);
// (Held in registers from the first clock and assumed equal every clock, so the last
// clock of a trace is constrained too.)
wire [1+16+QUEUES*(16+1+16+16)-1:0] cfg =
   {cfg_zero_on_release, cfg_refresh_quanta, cfg_pause_quanta, cfg_fill_en, cfg_rfa, cfg_rfd};
reg  [1+16+QUEUES*(16+1+16+16)-1:0] cfg0;
always @(posedge clock) if (!past_valid) cfg0 <= cfg;
always @(*) if (past_valid) assume(cfg == cfg0);
always @(*) assume(cfg_refresh_quanta == 16'd4);

// busy at most BUSY_MAX clocks in a row; tx_ready low for one clock at a time, at least
// three clocks apart (since_low: clocks since it was last low, up to 3).
reg [3:0] busy_run = 4'd0;
always @(posedge clock) busy_run <= busy ? busy_run + 4'd1 : 4'd0;
always @(*) if (busy) assume(busy_run < BUSY_MAX);
reg [1:0] since_low = 2'd3;
always @(posedge clock) since_low <= !tx_ready ? 2'd0 : (since_low == 2'd3 ? 2'd3 : since_low + 2'd1);
always @(*) if (since_low != 2'd3) assume(tx_ready);

// P5: no frame starts while one is on the wire.
always @(*) if (sending) assert(!frame_start);

// Each queue's level trigger, as of this clock's inputs.
wire [QUEUES-1:0] q_level;

genvar q;
generate
   for (q = 0; q < QUEUES; q = q + 1) begin : t
      wire [15:0] pt  = cfg_pause_quanta[16*q +: 16];
      wire [15:0] rfa = cfg_rfa[16*q +: 16];
      wire [15:0] rfd = cfg_rfd[16*q +: 16];
      wire [15:0] f   = fill_bytes[16*q +: 16];
      always @(*) assume(pt == 16'd5 || pt == 16'd6);
      always @(*) assume(rfd < rfa);

      // docs/spec.md §9, EHFC: above RFA asserts, below RFD releases. fill_now is the trigger
      // with this clock's fill level taken in; level, the queue's level trigger as of
      // this clock's inputs.
      // A reset clears the triggers: the inputs of its clock are not taken.
      reg  fill_on = 1'b0;
      wire fill_now = !reset && cfg_fill_en[q] && (fill_on ? !(f < rfd) : (f > rfa));
      always @(posedge clock) fill_on <= fill_now;
      assign q_level[q] = !reset && (hw_level[q] || fill_now);
   end

   for (q = 0; q < QUEUES; q = q + 1) begin : p
      // The slot's level, software request and pause time.
      wire level = PFC ? q_level[q] : (q == 0 && |q_level);
      wire sw = PFC ? sw_req[q] : (q == 0 && |sw_req);
      wire [15:0] pt = cfg_pause_quanta[16*(PFC ? q : 0) +: 16];

      // Clocks the level has held (up to the last clock), clocks since it was last
      // asserted, and since the last software request; all saturate.
      reg [6:0] held = 7'd0;
      reg [6:0] off = 7'd0;
      reg [6:0] no_sw = 7'd0;
      always @(posedge clock) begin
         held <= !level ? 7'd0 : (held == 7'd127 ? held : held + 7'd1);
         off <= level ? 7'd0 : (off == 7'd127 ? off : off + 7'd1);
         no_sw <= sw ? 7'd0 : (no_sw == 7'd127 ? no_sw : no_sw + 7'd1);
      end

      // The pause from this side: a frame with q and a pause time, from the clock its
      // last word moves (the frame's fields hold until then); then PT x 8 clocks.
      wire pt_start = frame_start && frame_queues[q] && !frame_zero[q];
      wire zero_start = frame_start && frame_queues[q] && frame_zero[q];
      wire at_last = frame_done && frame_queues[q] && !frame_zero[q];
      reg [8:0] pause_left = 9'd0;
      always @(posedge clock)
         pause_left <= at_last ? {pt[5:0], 3'd0} - 9'd1 : (pause_left == 9'd0 ? 9'd0 : pause_left - 9'd1);
      wire covered = at_last || pause_left != 9'd0;

      // P1: a held level is covered.
      always @(*) if (level && held > LEVEL_SETTLE) assert(covered);

      // P2: no pause time for a queue that has been off (pt_allowed, below); a release
      // frame only for a fall of the level, one per fall at most (releases owed: falls
      // less releases).

      reg       level_was = 1'b0;
      wire      falls = level_was && !level;
      reg [5:0] owed = 6'd0;
      always @(posedge clock) begin
         level_was <= level;
         owed <= owed + {5'd0, falls} - {5'd0, zero_start};
      end
      always @(*) if (zero_start) assert(cfg_zero_on_release && owed != 6'd0);

      // P4: a software request is answered: a frame carrying the slot with its pause
      // time starts within OFF_SETTLE clocks, counted again from each fall of the level
      // (the release goes first, the request in the frame after) (sw_age: clocks since
      // the oldest request no such frame has followed, or since the last fall after it;
      // 0: none).
      reg [6:0] sw_age = 7'd0;
      reg       sw_seen = 1'b0;
      always @(posedge clock) begin
         sw_age <= reset ? 7'd0 : pt_start ? {6'd0, sw}
                 : sw_age != 7'd0 ? (falls ? 7'd1 : sw_age + 7'd1) : {6'd0, sw};
         sw_seen <= !reset && (sw_seen || sw);
      end
      always @(*) if (sw_age != 7'd0) assert(sw_age <= OFF_SETTLE);

      // (P2) When a pause time may start for a slot that is off: OFF_SETTLE clocks after
      // a software request (one deferred behind its waiting frame goes in the next);
      // after the level's fall, only a frame already taken when the block saw the fall
      // (its first byte 3 clocks after the first clock off), as the fall turns a waiting
      // pause time into the release; with release frames off, a waiting pause time
      // still goes; and, once the slot has had a software request, OFF_SETTLE clocks
      // after a fall (a request whose pause time a release replaced goes after it, P4).
      wire pt_allowed = no_sw <= OFF_SETTLE
                     || off <= (cfg_zero_on_release && !sw_seen ? 7'd3 : OFF_SETTLE);
      always @(*) if (pt_start) assert(pt_allowed);
   end
endgenerate

// P3: PAUSE mode uses slot 0 alone.
always @(*) if (!PFC && frame_start) assert(frame_queues == {{(QUEUES-1){1'b0}}, 1'b1});

endmodule
`default_nettype wire
