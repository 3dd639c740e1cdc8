// iblink_eth_txq: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/eth_txq/iblink_eth_txq.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: eth_txq
// config: parameters = QUEUES = 1..8, DATA_WIDTH = 32 or 64, ADDR_BITS = 1..15 (memory words per queue: 2^ADDR_BITS)
`default_nettype none
// iblink_eth_txq: the per-queue transmit queues of an Ethernet flow-control port and
// their scheduler (docs/spec.md §9). Each queue takes one word a clock from its user
// (s_axis_tvalid/s_axis_tready) while it holds fewer than cfg_tx_words words; a frame may go from
// the clock after its last word was taken (store and forward). In a clock with no frame
// on the wire and no PAUSE/PFC word on it (ctrl, the frame builder's tx_valid), the next
// queue in round-robin order after the last one served that holds a whole frame and none
// of whose priorities was paused two clocks before starts one (a pause or a release
// is seen two clocks after it comes: docs/spec.md §10), its first word on tx_* in that clock; a
// frame once started (its first word offered) is sent whole. tx_* is the wire, an
// AXI4-Stream beat (docs/spec.md §10): a word moves in a clock with m_axis_tvalid and m_axis_tready
// both high, and while m_axis_tready is low the word offered and m_axis_tvalid hold; a word leaves
// its queue in the clock it moves. It is the data word, else the PAUSE/PFC word (the port
// never has both; the builder holds its word under the same m_axis_tready). tx_busy (a data
// word offered that is not a last word moving now) is iblink_pfc_tx's busy: a waiting
// PAUSE/PFC frame is taken in the clock a data frame's last word moves and follows it
// back to back.
//
// A queue's oldest words, up to three, wait in a ring of three flip-flop slots (the
// oldest is the word offered); the block RAM behind them is read at a fetch pointer, a
// register, whenever fewer than three words are in the slots and the block RAM's output
// together, and a word written while the block RAM holds none not yet fetched goes
// straight to a slot. So the block RAM's address and the word offered both come from
// registers, not from this clock's pop, and a frame goes back to back after another.
// s_axis_tkeep marks the valid byte lanes of a frame's last word (from lane 0 up); the
// other words are whole. m_axis_tdata and m_axis_tkeep mean something only while
// m_axis_tvalid.
module iblink_eth_txq #(
    // Queues, 1 to 8
    parameter QUEUES = 4,
    // Bits per clock: 32 or 64
    parameter DATA_WIDTH = 64,
    // Words of memory per queue: 2^ADDR_BITS
    parameter ADDR_BITS = 10
) (
    input  wire                           clock,
    // Synchronous: queues emptied
    input  wire                           reset,

    // Configuration (static while running): queue q's priority mask at [8q+7:8q]
    // (bit p: priority p), the words a queue holds at most (<= 2^ADDR_BITS)
    input  wire [8*QUEUES-1:0]            cfg_priorities,
    input  wire [15:0]                    cfg_tx_words,

    // Users: one frame stream per queue, byte lane i at [8i+7:8i] of its word
    input  wire [QUEUES-1:0]              s_axis_tvalid,
    input  wire [DATA_WIDTH*QUEUES-1:0]   s_axis_tdata,
    input  wire [DATA_WIDTH/8*QUEUES-1:0] s_axis_tkeep,
    input  wire [QUEUES-1:0]              s_axis_tlast,
    output wire [QUEUES-1:0]              s_axis_tready,

    // Priorities held by received PAUSE/PFC frames (the choice reads them two clocks
    // later); a PAUSE/PFC word for the wire (the frame builder's tx_valid, tx_data,
    // tx_last: whole words)
    input  wire [7:0]                     paused,
    input  wire                           ctrl,
    input  wire [DATA_WIDTH-1:0]          ctrl_data,
    input  wire                           ctrl_last,

    // The wire: a data word, else the PAUSE/PFC word; it moves when m_axis_tready is high
    output wire                           m_axis_tvalid,
    output wire [DATA_WIDTH-1:0]          m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0]        m_axis_tkeep,
    output wire                           m_axis_tlast,
    input  wire                           m_axis_tready,
    output wire                           tx_busy
);

localparam BYTES = DATA_WIDTH / 8;
localparam SW = DATA_WIDTH + BYTES + 1;

// The frame on the wire (its first word offered), from queue cur (one-hot); per queue,
// the queues before it in round-robin order after the one served last (blocks of the
// queues past that one, kept as registers so the round robin reads flip-flops).
reg                sending;
reg  [QUEUES-1:0]  cur;
reg  [QUEUES*QUEUES-1:0] blk;

// Per queue: its oldest word.
wire [SW*QUEUES-1:0] head;

// Per queue k, the queues that come before it in round-robin order after the one served
// last, from the queues past that one (aft, a mask; none: the last queue served last):
// queue j at [QUEUES*k+j].
function [QUEUES*QUEUES-1:0] blocks;
   input [QUEUES-1:0] aft;
   integer k, j;
   begin
      for (k = 0; k < QUEUES; k = k + 1)
         for (j = 0; j < QUEUES; j = j + 1)
            blocks[QUEUES*k+j] = (j < k) ? (!aft[k] || aft[j]) : (j > k) ? (!aft[k] && aft[j]) : 1'b0;
   end
endfunction

// The round robin (one-hot): the queue of elig none of whose blockers (blocks) is in elig.
function [QUEUES-1:0] rr;
   input [QUEUES-1:0] elig;
   input [QUEUES*QUEUES-1:0] bl;
   integer k;
   begin
      for (k = 0; k < QUEUES; k = k + 1)
         rr[k] = elig[k] && (elig & bl[QUEUES*k +: QUEUES]) == {QUEUES{1'b0}};
   end
endfunction

// The queues after a one-hot one.
function [QUEUES-1:0] past;
   input [QUEUES-1:0] oh;
   reg               seen;
   integer k;
   begin
      seen = 1'b0;
      for (k = 0; k < QUEUES; k = k + 1) begin
         past[k] = seen;
         seen = seen || oh[k];
      end
   end
endfunction

// The next queue in round-robin order after the one served last with a whole frame and
// no priority paused two clocks before (one-hot), and whether there is one:
// registered, from the values has_frame and blk take at this clock's end and from
// free_q (paused in the clock before); the start, late (ctrl), selects between the two cases last.
reg  [QUEUES-1:0] pick;
reg               any;
// Per queue, whole at this clock's end without a start now, and if it starts now; no
// priority paused in the clock before.
wire [QUEUES-1:0] whole_n0;
wire [QUEUES-1:0] whole_n1;
wire [QUEUES-1:0] free_n;
wire [QUEUES-1:0] elig_n0 = whole_n0 & free_n;
wire [QUEUES-1:0] elig_n1 = whole_n1 & free_n;

wire start = !sending && !ctrl && any;
wire [QUEUES-1:0] sel = sending ? cur : pick;
// The word offered: an AND-OR over the queues' heads by the one-hot select.
reg  [SW-1:0] word;
integer m;
always @(*) begin
   word = {SW{1'b0}};
   for (m = 0; m < QUEUES; m = m + 1)
      word = word | (head[SW*m +: SW] & {SW{sel[m]}});
end

wire data_valid = sending || start;
// The word offered is the frame's last and it moves now.
wire last_moves = word[SW-1] && m_axis_tready;
assign m_axis_tvalid = data_valid || ctrl;
assign m_axis_tdata = data_valid ? word[DATA_WIDTH-1:0] : ctrl_data;
assign m_axis_tkeep = data_valid ? word[DATA_WIDTH +: BYTES] : {BYTES{1'b1}};
assign m_axis_tlast = data_valid ? word[SW-1] : ctrl_last;
assign tx_busy = data_valid && !last_moves;

// Power-up as after reset: the last queue served last, so queue 0 comes first.
initial begin
   sending = 1'b0;
   cur = {QUEUES{1'b0}};
   blk = blocks({QUEUES{1'b0}});
   pick = {QUEUES{1'b0}};
   any = 1'b0;
end

always @(posedge clock) begin
   if (reset) begin
      sending <= 1'b0;
      cur <= {QUEUES{1'b0}};
      blk <= blocks({QUEUES{1'b0}});
      pick <= {QUEUES{1'b0}};
      any <= 1'b0;
   end else begin
      if (data_valid) begin
         sending <= !last_moves;
         cur <= sel;
      end
      if (start) blk <= blocks(past(pick));
      pick <= start ? rr(elig_n1, blocks(past(pick))) : rr(elig_n0, blk);
      any <= start ? elig_n1 != {QUEUES{1'b0}} : elig_n0 != {QUEUES{1'b0}};
   end
end

genvar g;
generate
   for (g = 0; g < QUEUES; g = g + 1) begin : queue
      reg  [SW-1:0] mem [0:(1 << ADDR_BITS) - 1];
      // Next word to write (one bit more than the address).
      reg  [ADDR_BITS:0] wr_ptr;
      // The read side: the next word to fetch from the block RAM (fptr), the words
      // written and not yet fetched (npend, which is wr_ptr - fptr kept as a counter of
      // its own so that pend2's next value compares a register, not a difference; pend:
      // there are some; pend2: more than one); dout,
      // the block RAM's output, holds the word fetched last clock when dv; the oldest
      // words in the slots s0, s1, s2 (cnt of them: 0 to 3); room is cnt + dv <= 2.
      reg  [ADDR_BITS:0] fptr;
      reg  [ADDR_BITS:0] npend;
      reg  pend;
      reg  pend2;
      reg  [SW-1:0] dout;
      reg  dv;
      reg  [SW-1:0] s0, s1, s2;
      reg  [1:0] cnt;
      reg  room;
      reg  [15:0] frames;
      // frames != 0 and frames > 1, kept in flip-flops beside the count.
      reg  has_frame;
      reg  more;
      // Words held (words written and not yet moved) and one more, kept as registers; rdy is
      // held < cfg_tx_words, kept in a flip-flop. Each next value is one of three made
      // from registers (the count one less, the same, one more), chosen by this clock's
      // take and pop (late). rdy is 1 at power-up: a queue's room is at least a maximum
      // frame.
      reg  [ADDR_BITS:0] held;
      reg  [ADDR_BITS:0] held_p1;
      reg  rdy;
      wire [16:0] words17 = {1'b0, cfg_tx_words};
      wire lt_less = {{(16-ADDR_BITS){1'b0}}, held} <= words17;
      wire lt_same = {{(16-ADDR_BITS){1'b0}}, held} < words17;
      wire lt_more = {{(16-ADDR_BITS){1'b0}}, held_p1} < words17;
      wire [ADDR_BITS:0] one = {{ADDR_BITS{1'b0}}, 1'b1};
      assign s_axis_tready[g] = rdy;
      wire take = s_axis_tvalid[g] && rdy;
      // A frame's last word is taken now: the queue holds one more whole frame.
      wire ends = take && s_axis_tlast[g];
      wire pop = data_valid && m_axis_tready && sel[g];
      wire go = start && pick[g];

      // The word as stored: data, lanes (whole but on the last word), last.
      wire [BYTES-1:0] keep_in = s_axis_tkeep[BYTES*g +: BYTES];
      // Lane l is valid when lanes 0 to l all are (each lane its own AND, none read
      // through another's).
      reg  [BYTES-1:0] keep_n;
      integer l;
      always @(*)
         for (l = 0; l < BYTES; l = l + 1)
            keep_n[l] = !s_axis_tlast[g] || (keep_in | ~({BYTES{1'b1}} >> (BYTES - 1 - l))) == {BYTES{1'b1}};
      wire [SW-1:0] wr_word = {s_axis_tlast[g], keep_n, s_axis_tdata[DATA_WIDTH*g +: DATA_WIDTH]};
      wire [ADDR_BITS-1:0] wa = wr_ptr[ADDR_BITS-1:0];
      // Fetch from the block RAM when it holds a word not yet fetched and there is room
      // (both registers); a word written now goes straight to the flip-flops when the
      // block RAM holds none not yet fetched and there is room.
      wire fetch = pend && room;
      wire byp = take && !pend && room;
      always @(posedge clock) begin
         if (take) mem[wa] <= wr_word;
         dout <= mem[fptr[ADDR_BITS-1:0]];
      end

      // The flip-flops are a ring of three slots: the oldest word in slot rp (one-hot
      // rp_oh), the next word coming in goes to slot wp (one-hot wp_oh), the one after it
      // to the slot after that. dout's word comes in when dv, then the word written when
      // byp. Slot wp, when free (cnt < 3), takes dv ? dout : the word written in every
      // clock, and slot wp + 1, when free (cnt < 2), the word written: what is taken is
      // counted by wp and cnt alone, and a free slot's contents are never read. So no
      // slot waits on this clock's take or pop.
      wire [SW-1:0] in0 = dv ? dout : wr_word;
      reg  [2:0] rp_oh;
      reg  [2:0] wp_oh;
      wire [2:0] wp_oh1 = {wp_oh[1:0], wp_oh[2]};
      wire [2:0] wr0 = wp_oh & {3{cnt != 2'd3}};
      wire [2:0] wr1 = wp_oh1 & {3{!cnt[1]}};
      wire [1:0] cnt_n = cnt - {1'b0, pop} + {1'b0, dv} + {1'b0, byp};
      // room next: cnt_n + fetch <= 2.
      wire room_n = {1'b0, cnt_n} + {2'b00, fetch} <= 3'd2;

      initial begin
         wr_ptr = {(ADDR_BITS+1){1'b0}};
         fptr = {(ADDR_BITS+1){1'b0}};
         npend = {(ADDR_BITS+1){1'b0}};
         pend = 1'b0;
         pend2 = 1'b0;
         dv = 1'b0;
         cnt = 2'd0;
         room = 1'b1;
         frames = 16'd0;
         has_frame = 1'b0;
         more = 1'b0;
         held = {(ADDR_BITS+1){1'b0}};
         held_p1 = {{ADDR_BITS{1'b0}}, 1'b1};
         rdy = 1'b1;
      end
      always @(posedge clock) begin
         if (reset) begin
            wr_ptr <= {(ADDR_BITS+1){1'b0}};
            fptr <= {(ADDR_BITS+1){1'b0}};
            npend <= {(ADDR_BITS+1){1'b0}};
            pend <= 1'b0;
            pend2 <= 1'b0;
            dv <= 1'b0;
            cnt <= 2'd0;
            room <= 1'b1;
            frames <= 16'd0;
            has_frame <= 1'b0;
            more <= 1'b0;
            held <= {(ADDR_BITS+1){1'b0}};
            held_p1 <= {{ADDR_BITS{1'b0}}, 1'b1};
            rdy <= cfg_tx_words != 16'd0;
         end else begin
            if (take) wr_ptr <= wr_ptr + {{ADDR_BITS{1'b0}}, 1'b1};
            if (fetch || byp) fptr <= fptr + {{ADDR_BITS{1'b0}}, 1'b1};
            // Words not yet fetched: + a word written that did not go straight through,
            // - a fetch (never both a fetch and byp).
            if ((take && !byp) != fetch)
               npend <= fetch ? npend - one : npend + one;
            pend <= fetch ? (pend2 || (take && !byp)) : (pend || (take && !byp));
            pend2 <= fetch ? (npend > {{(ADDR_BITS-1){1'b0}}, 2'd2} || (pend2 && take && !byp))
                           : (pend2 || (pend && take && !byp));
            dv <= fetch;
            cnt <= cnt_n;
            room <= room_n;
            frames <= frames + {15'd0, ends} - {15'd0, go};
            has_frame <= go ? whole_n1[g] : whole_n0[g];
            // frames + ends - go > 1
            more <= (go == ends) ? more : ends ? has_frame : frames > 16'd2;
            if (take != pop) begin
               held <= take ? held + one : held - one;
               held_p1 <= take ? held_p1 + one : held_p1 - one;
            end
            rdy <= (take == pop) ? lt_same : take ? lt_more : lt_less;
         end
      end

      always @(posedge clock) begin
         if (wr0[0]) s0 <= in0; else if (wr1[0]) s0 <= wr_word;
         if (wr0[1]) s1 <= in0; else if (wr1[1]) s1 <= wr_word;
         if (wr0[2]) s2 <= in0; else if (wr1[2]) s2 <= wr_word;
      end
      initial begin
         rp_oh = 3'b001;
         wp_oh = 3'b001;
      end
      always @(posedge clock) begin
         if (reset) begin
            rp_oh <= 3'b001;
            wp_oh <= 3'b001;
         end else begin
            if (pop) rp_oh <= {rp_oh[1:0], rp_oh[2]};
            if (dv && byp) wp_oh <= {wp_oh[0], wp_oh[2:1]};
            else if (dv || byp) wp_oh <= wp_oh1;
         end
      end

      assign head[SW*g +: SW] = (s0 & {SW{rp_oh[0]}}) | (s1 & {SW{rp_oh[1]}}) | (s2 & {SW{rp_oh[2]}});
      assign whole_n0[g] = ends || has_frame;
      assign whole_n1[g] = pick[g] ? ends || more : whole_n0[g];
      // No priority of the queue paused, as paused was in the clock before: kept in a
      // flip-flop beside the choice, so the choice reads it two clocks after pause_rx
      // shows it (docs/spec.md §10). 1 at power-up and after reset (nothing seen paused).
      reg free_q;
      initial free_q = 1'b1;
      always @(posedge clock) free_q <= reset || (paused & cfg_priorities[8*g +: 8]) == 8'd0;
      assign free_n[g] = free_q;
   end
endgenerate

endmodule

`default_nettype wire
