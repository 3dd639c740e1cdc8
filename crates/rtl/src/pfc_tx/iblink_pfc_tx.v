`default_nettype none
// iblink_pfc_tx: the transmit side of Ethernet PAUSE/PFC flow control (docs/spec.md §9).
// Per RX queue, three triggers: a software request (FCB, one frame), a hardware level,
// and the RX-fill level with RFA/RFD hysteresis (EHFC). It decides which frames go and
// when: refresh before the pause time runs out, a zero-quanta frame on release,
// consolidation of frames due together, merging into the frame waiting for the wire.
// It hands out one frame at a time as the queues it carries; the frame builder turns
// them into bytes with the queues' priority masks and pause times.
//
// A slot is one queue in PFC mode (cfg_pfc = 1); in PAUSE mode slot 0 alone is used:
// its level is the OR of every queue's triggers and it carries queue 0's pause time.
//
// Cycle contract (clock t; a quantum and a frame are both FRAME_CLOCKS = 512/DATA_WIDTH
// clocks):
// - The triggers (fill_bytes, hw_level, sw_req) pass two registers (sampled, each fill
//   level moving its queue's hysteresis; then combined): a change in clock t makes its
//   frame due in t+2. A due frame waits; frames due while it waits merge into it. It is
//   taken in the first later clock with no frame of ours on the wire (the clock its
//   last word moves, frame_done, counts as free) and busy low (busy and frame_done act
//   in their own clock); frame_start is high the clock after that, the clock its first
//   word is offered: t+4 on an idle link. frame_queues and frame_zero hold that frame's
//   fields until the next one.
// - A frame's end L is the clock its last word moves on the wire (frame_done, from the
//   builder), however long the wire stalled it (docs/spec.md §10). A slot's pause time
//   counts from L. While its level stays asserted the refresh is due at
//   L + (PT - cfg_refresh_quanta)*FRAME_CLOCKS - 2, so that its first byte leaves with
//   cfg_refresh_quanta quanta left on an idle link. On a wire that never stalls
//   frame_done comes FRAME_CLOCKS - 1 clocks after frame_start.
// - A software request while the slot's pause frame still waits is not lost: it goes
//   in the next frame.
// - reset (synchronous) clears every trigger, timer and waiting frame.
module iblink_pfc_tx #(
    // RX queues: 1 to 8
    parameter QUEUES = 8,
    // Bits per clock at line rate: 32 or 64
    parameter DATA_WIDTH = 64,
    // Bits of an RX queue's fill level and its thresholds (bytes)
    parameter FILL_BITS = 16,
    // Netlist layout for the device family; both have the same cycle behaviour.
    // "GENERIC": laid out for LUT4 fabrics whose carry chain ends in a LUT that can
    // also hold the logic after it (iCE40). "ECP5": for fabrics whose slice flip-flop
    // has its own synchronous reset and takes a carry chain's sum directly (ECP5).
    parameter TARGET = "GENERIC"
) (
    input  wire                         clock,
    input  wire                         reset,

    // Configuration: static while running
    // 1: PFC frames per queue; 0: plain PAUSE with queue 0's pause time (PFCE)
    input  wire                         cfg_pfc,
    // Send a pause-time-0 frame when a level trigger releases
    input  wire                         cfg_zero_on_release,
    // Quanta of the previous pause time left when a refresh leaves (below every PT)
    input  wire [15:0]                  cfg_refresh_quanta,
    // PT of queue q at [16q+15:16q], in quanta
    input  wire [QUEUES*16-1:0]         cfg_pause_quanta,
    // RX-fill trigger of queue q enabled, with RFA and RFD of queue q at
    // [FILL_BITS*q +: FILL_BITS] (RFD < RFA)
    input  wire [QUEUES-1:0]            cfg_fill_en,
    input  wire [QUEUES*FILL_BITS-1:0]  cfg_rfa,
    input  wire [QUEUES*FILL_BITS-1:0]  cfg_rfd,

    // Triggers
    // RX queue fill levels in bytes, queue q at [FILL_BITS*q +: FILL_BITS]
    input  wire [QUEUES*FILL_BITS-1:0]  fill_bytes,
    // Hardware flow-control levels, bit q for queue q
    input  wire [QUEUES-1:0]            hw_level,
    // Software requests (FCB), one-clock pulses, bit q for queue q
    input  wire [QUEUES-1:0]            sw_req,

    // A data frame is on the wire this clock: no frame of ours is taken
    input  wire                         busy,
    // The last word of our frame moves on the wire this clock (its end, L)
    input  wire                         frame_done,

    // The frame whose first word is offered this clock, and its fields: the slots it
    // carries, and those of them carrying pause time 0 (a release)
    output wire                         frame_start,
    output wire [QUEUES-1:0]            frame_queues,
    output wire [QUEUES-1:0]            frame_zero
);

// Bits of a clock count within a quantum
localparam QC_BITS = (DATA_WIDTH == 64) ? 3 : 4;
localparam CNT_BITS = 16 + QC_BITS;
// The refresh fires when a slot's pause time, PT*FRAME_CLOCKS at the last word and one
// less every clock, reaches cfg_refresh_quanta*FRAME_CLOCKS + 3. The count holds its
// complement (it is loaded with ~(PT*FRAME_CLOCKS) and counts up), so at_fire is
// registered from "count >= ~K", K = cfg_refresh_quanta*FRAME_CLOCKS + 4: the carry out
// of count + K + 1, with no operand inverted.
localparam [QC_BITS-1:0] BEFORE_FIRE_LOW = 4;
localparam ECP5 = (TARGET == "ECP5");
localparam [QUEUES-1:0] SLOT0 = 1;

// Stage 1: the triggers sampled, and each queue's RX-fill hysteresis (asserted above
// RFA, released below RFD) moved on by the fill level this clock.
reg  [QUEUES-1:0] fill_on;
reg  [QUEUES-1:0] hw_r;
reg  [QUEUES-1:0] sw_r;

wire [CNT_BITS-1:0] fire_k = {cfg_refresh_quanta, BEFORE_FIRE_LOW};

genvar q;
generate
   for (q = 0; q < QUEUES; q = q + 1) begin : fill
      wire [FILL_BITS-1:0] f   = fill_bytes[FILL_BITS*q +: FILL_BITS];
      wire [FILL_BITS-1:0] rfa = cfg_rfa[FILL_BITS*q +: FILL_BITS];
      wire [FILL_BITS-1:0] rfd = cfg_rfd[FILL_BITS*q +: FILL_BITS];
      // One compare, against the threshold of the present state: off, f > rfa turns it
      // on; on, f >= rfd (not below RFD) keeps it. Both are the carry out of
      // f + ~threshold + fill_on, with fill_on as the carry in (bit 0 here). Without
      // the trigger, f + 0 + 0 never carries.
      wire [FILL_BITS-1:0] thr_n = ~cfg_fill_en[q] ? {FILL_BITS{1'b0}} : (fill_on[q] ? ~rfd : ~rfa);
      wire [FILL_BITS+1:0] sum = {1'b0, f, 1'b1} + {1'b0, thr_n, fill_on[q] & cfg_fill_en[q]};
      initial fill_on[q] = 1'b0;
      if (ECP5) begin : ff_reset
         // The chain's last sum feeds the flip-flop in its own slice.
         always @(posedge clock)
            if (reset) fill_on[q] <= 1'b0;
            else fill_on[q] <= sum[FILL_BITS+1];
      end else begin : gate_reset
         // The reset gate shares a LUT with the chain's carry out.
         always @(posedge clock) fill_on[q] <= ~reset & sum[FILL_BITS+1];
      end
   end
endgenerate

// Each slot's level trigger and software request this clock.
wire [QUEUES-1:0] q_level_next = hw_r | fill_on;
reg  [QUEUES-1:0] level_now;
reg  [QUEUES-1:0] sw_now;

// Level triggers last clock, for rise and fall.
reg [QUEUES-1:0] level;

// A take (late: busy and frame_done come from the wire in this clock) loads one
// flip-flop, take_q. Every register a take moves is kept as two, its next value with a
// take (_t) and without (_n), and take_q selects between them in the next clock.
reg  take_q;

// A frame of ours is taken and its last word has not moved before this clock. The
// wire is free for the next one from the clock its last word moves.
reg  ours_n;
wire ours = take_q | ours_n;
wire wire_free = (!ours || frame_done) && !busy;

// The waiting frame: slots in it, those carrying 0, those whose pause time a software
// request set, and software requests made while their pause frame waited (they go in
// the next frame).
reg  [QUEUES-1:0] wait_q_t, wait_q_n;
reg  [QUEUES-1:0] wait_zero_t, wait_zero_n;
reg  [QUEUES-1:0] wait_sw_t, wait_sw_n;
reg  [QUEUES-1:0] sw_again_t, sw_again_n;
wire [QUEUES-1:0] wait_q = take_q ? wait_q_t : wait_q_n;
wire [QUEUES-1:0] wait_zero = take_q ? wait_zero_t : wait_zero_n;
wire [QUEUES-1:0] wait_sw = take_q ? wait_sw_t : wait_sw_n;
wire [QUEUES-1:0] sw_again = take_q ? sw_again_t : sw_again_n;
// wait_q is not empty (registered, below)
wire              any_wait;
wire take = wire_free && any_wait;

// The frame taken last: its slots and releases (taken last clock: the waiting frame as
// it stood then).
reg  [QUEUES-1:0] fq_t, fq_n;
reg  [QUEUES-1:0] fz_t, fz_n;
assign frame_start = take_q;
assign frame_queues = take_q ? fq_t : fq_n;
assign frame_zero = take_q ? fz_t : fz_n;

// Refresh timers. arm_hit: the slot's frame leaves its last word now; arm_pt: with a
// pause time (not a release). frame_queues and frame_zero hold the frame on the wire
// until the clock after its end.
reg  [QUEUES-1:0] armed;
wire [QUEUES-1:0] arm_hit = frame_done ? frame_queues : {QUEUES{1'b0}};
wire [QUEUES-1:0] arm_pt = frame_done ? (frame_queues & ~frame_zero) : {QUEUES{1'b0}};
wire [QUEUES-1:0] armed_next;
wire [QUEUES-1:0] wait_q_next_t, wait_q_next_n;
wire [QUEUES-1:0] wait_zero_next_t, wait_zero_next_n;
wire [QUEUES-1:0] wait_sw_next_t, wait_sw_next_n;
wire [QUEUES-1:0] sw_again_next_t, sw_again_next_n;
wire [QUEUES-1:0] new_entry;  // an entry set in the waiting frame this clock
// new_entry apart from frame_done (late, from the wire): set whatever it does, and a
// refresh that the end of its slot's frame in this clock cancels. The ORs below take
// frame_done last.
(* keep *) wire [QUEUES-1:0] entry_sure;
(* keep *) wire [QUEUES-1:0] entry_unless_done;

generate
   for (q = 0; q < QUEUES; q = q + 1) begin : slot
      reg  [CNT_BITS-1:0] count;
      // The count reaches the refresh point this clock (not in the clock after an
      // arm_hit, whose count was not yet loaded).
      reg                 at_fire;
      wire [15:0] pt = cfg_pause_quanta[16*q +: 16];
      wire rose = level_now[q] & ~level[q];
      wire fell = ~level_now[q] & level[q];
      wire refresh_due = level_now[q] & armed[q] & at_fire;
      wire refresh = refresh_due & ~arm_hit[q];
      // A pause time counts from its frame's last byte while the level holds: a rise,
      // a fall or the refresh disarms. Armed implies the level held last clock, so
      // (level_now & level) stands for "no rise or fall".
      assign armed_next[q] = level_now[q] & level[q] & (arm_hit[q] ? arm_pt[q] : (armed[q] & ~at_fire));
      wire set_zero = fell & cfg_zero_on_release;
      // Without a take this clock (0), and with one (1: the waiting frame goes, the
      // software requests that waited start the next). A pause frame of this slot
      // still waiting (pend) sends a software request again after it.
      wire pend0 = wait_q[q] & ~wait_zero[q];
      wire pend1 = sw_again[q];
      wire sw = sw_now[q];
      wire set_pt0 = rose | refresh | (sw & ~pend0);
      wire set_pt1 = rose | refresh | (sw & ~pend1);
      assign new_entry[q] = rose | refresh | sw | set_zero;
      assign entry_sure[q] = rose | sw | set_zero | (refresh_due & ~frame_queues[q]);
      assign entry_unless_done[q] = refresh_due & frame_queues[q];
      // Every new entry is in the next frame; a take leaves the requests that waited.
      assign wait_q_next_t[q] = new_entry[q] | pend1;
      assign wait_q_next_n[q] = new_entry[q] | wait_q[q];
      assign wait_zero_next_t[q] = ~set_pt1 & set_zero;
      assign wait_zero_next_n[q] = ~set_pt0 & (set_zero | wait_zero[q]);
      // A release that turns a software request's pause time into 0 keeps the request:
      // it goes in the next frame, as one made while its frame waits (docs/spec.md §9).
      assign wait_sw_next_t[q] = (pend1 & ~set_zero) | (sw & ~pend1);
      assign wait_sw_next_n[q] = (wait_sw[q] & ~set_zero) | (sw & ~pend0);
      assign sw_again_next_t[q] = pend1 & (sw | set_zero);
      assign sw_again_next_n[q] = pend1 | (sw & pend0) | (set_zero & wait_sw[q]);

      // count >= ~K: the carry out of count + K + 1.
      wire [CNT_BITS+1:0] fire_sum = {1'b0, count, 1'b1} + {1'b0, fire_k, 1'b1};
      initial count = {CNT_BITS{1'b0}};
      initial at_fire = 1'b0;
      always @(posedge clock) begin
         // The count runs on while not armed: a refresh needs armed, and arming loads
         // it (below ~K, as PT > cfg_refresh_quanta). Armed, it passes ~K once.
         count <= arm_hit[q] ? ~{pt, {QC_BITS{1'b0}}} : count + 1'b1;
         at_fire <= ~arm_hit[q] & fire_sum[CNT_BITS+1];
      end
   end
endgenerate

// any_wait: a software request always leaves its slot in the waiting frame (set now, or
// already there), so the frame is empty only if nothing was added. On ECP5 three
// registers: the entries kept (any_old) and those added in each half of the slots
// (any_new_lo, any_new_hi), so that no OR over the slots' new entries comes after them.
generate
   if (ECP5) begin : any_split
      localparam HALF = (QUEUES + 1) / 2;
      reg any_old_t = 1'b0;
      reg any_old_n = 1'b0;
      reg any_new_lo = 1'b0;
      reg any_new_hi = 1'b0;
      always @(posedge clock) begin
         if (reset) begin
            any_old_t <= 1'b0;
            any_old_n <= 1'b0;
            any_new_lo <= 1'b0;
            any_new_hi <= 1'b0;
         end else begin
            any_old_t <= |sw_again;
            any_old_n <= any_wait;
            any_new_lo <= |entry_sure[HALF-1:0] | (~frame_done & |entry_unless_done[HALF-1:0]);
            any_new_hi <= |(entry_sure >> HALF) | (~frame_done & |(entry_unless_done >> HALF));
         end
      end
      assign any_wait = (take_q ? any_old_t : any_old_n) | any_new_lo | any_new_hi;
   end else begin : any_one
      wire new_any = |entry_sure | (~frame_done & |entry_unless_done);
      reg any_t = 1'b0;
      reg any_n = 1'b0;
      always @(posedge clock)
         if (reset) begin
            any_t <= 1'b0;
            any_n <= 1'b0;
         end else begin
            any_t <= |sw_again | new_any;
            any_n <= any_wait | new_any;
         end
      assign any_wait = take_q ? any_t : any_n;
   end
endgenerate

initial begin
   level_now = {QUEUES{1'b0}};
   sw_now = {QUEUES{1'b0}};
   hw_r = {QUEUES{1'b0}};
   sw_r = {QUEUES{1'b0}};
   level = {QUEUES{1'b0}};
   take_q = 1'b0;
   ours_n = 1'b0;
   {wait_q_t, wait_q_n, wait_zero_t, wait_zero_n} = {(4*QUEUES){1'b0}};
   {wait_sw_t, wait_sw_n, sw_again_t, sw_again_n} = {(4*QUEUES){1'b0}};
   armed = {QUEUES{1'b0}};
   {fq_t, fq_n, fz_t, fz_n} = {(4*QUEUES){1'b0}};
end

always @(posedge clock) begin
   if (reset) begin
      level_now <= {QUEUES{1'b0}};
      sw_now <= {QUEUES{1'b0}};
      hw_r <= {QUEUES{1'b0}};
      sw_r <= {QUEUES{1'b0}};
      level <= {QUEUES{1'b0}};
      take_q <= 1'b0;
      ours_n <= 1'b0;
      {wait_q_t, wait_q_n, wait_zero_t, wait_zero_n} <= {(4*QUEUES){1'b0}};
      {wait_sw_t, wait_sw_n, sw_again_t, sw_again_n} <= {(4*QUEUES){1'b0}};
      armed <= {QUEUES{1'b0}};
      {fq_t, fq_n, fz_t, fz_n} <= {(4*QUEUES){1'b0}};
   end else begin
      level_now <= cfg_pfc ? q_level_next : ((|q_level_next) ? SLOT0 : {QUEUES{1'b0}});
      sw_now <= cfg_pfc ? sw_r : ((|sw_r) ? SLOT0 : {QUEUES{1'b0}});
      hw_r <= hw_level;
      sw_r <= sw_req;
      level <= level_now;
      take_q <= take;
      ours_n <= ours & ~frame_done;
      wait_q_t <= wait_q_next_t;
      wait_q_n <= wait_q_next_n;
      wait_zero_t <= wait_zero_next_t;
      wait_zero_n <= wait_zero_next_n;
      wait_sw_t <= wait_sw_next_t;
      wait_sw_n <= wait_sw_next_n;
      sw_again_t <= sw_again_next_t;
      sw_again_n <= sw_again_next_n;
      armed <= armed_next;
      // wait_zero implies wait_q: a release is always an entry of its own.
      fq_t <= wait_q;
      fq_n <= frame_queues;
      fz_t <= wait_zero;
      fz_n <= frame_zero;
   end
end

endmodule
`default_nettype wire
