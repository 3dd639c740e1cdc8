`default_nettype none
// iblink_eth_txq: the per-queue transmit queues of an Ethernet flow-control port and
// their scheduler (docs/spec.md §9). Each queue takes one word a clock from its user
// (s_axis_tvalid/s_axis_tready) while it holds fewer than cfg_tx_words words; a frame may go from
// the clock after its last word was taken (store and forward). In a clock with no frame
// on the wire and no PAUSE/PFC word on it (ctrl, the frame builder's tx_valid), the next
// queue in round-robin order after the last one served that holds a whole frame and none
// of whose priorities is paused starts one, its first word on tx_* in that clock; a
// frame once started (its first word offered) is sent whole. tx_* is the wire, an
// AXI4-Stream beat (docs/spec.md §10): a word moves in a clock with m_axis_tvalid and m_axis_tready
// both high, and while m_axis_tready is low the word offered and m_axis_tvalid hold; a word leaves
// its queue in the clock it moves. It is the data word, else the PAUSE/PFC word (the port
// never has both; the builder holds its word under the same m_axis_tready). tx_busy (a data
// word offered that is not a last word moving now) is iblink_pfc_tx's busy: a waiting
// PAUSE/PFC frame is taken in the clock a data frame's last word moves and follows it
// back to back.
//
// A queue's memory is read every clock at the word it will show next, with the word
// being written passed straight through when it is that one, so the queue's oldest word
// is always in a register and a frame goes back to back after another with a registered
// block RAM read. s_axis_tkeep marks the valid byte lanes of a frame's last word (from lane 0
// up); the other words are whole. m_axis_tdata and m_axis_tkeep mean something only while m_axis_tvalid.
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

    // Priorities held by received PAUSE/PFC frames; a PAUSE/PFC word for the wire (the
    // frame builder's tx_valid, tx_data, tx_last: whole words)
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

// The frame on the wire (its first word offered), from queue cur (one-hot); the queues
// after the one served last, in round-robin order before the wrap (a mask).
reg                sending;
reg  [QUEUES-1:0]  cur;
reg  [QUEUES-1:0]  after;

// Per queue: its oldest word, whether it holds a whole frame not yet started, whether
// none of its priorities is paused.
wire [SW*QUEUES-1:0] head;
wire [QUEUES-1:0]    whole;
wire [QUEUES-1:0]    free;

// The next queue in round-robin order with a whole frame and no priority paused: the
// lowest such queue after the one served last, else the lowest of all (one-hot; every
// input a register or static).
wire [QUEUES-1:0] elig = whole & free;
wire [QUEUES-1:0] elig_after = elig & after;
reg  [QUEUES-1:0] pick;
reg               seen_a;
reg               seen_e;
integer k;
always @(*) begin
   pick = {QUEUES{1'b0}};
   seen_a = 1'b0;
   seen_e = 1'b0;
   for (k = 0; k < QUEUES; k = k + 1) begin
      pick[k] = (elig_after != {QUEUES{1'b0}}) ? (elig_after[k] && !seen_a) : (elig[k] && !seen_e);
      seen_a = seen_a || elig_after[k];
      seen_e = seen_e || elig[k];
   end
end
wire any = elig != {QUEUES{1'b0}};

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

// The queues after a picked one.
reg  [QUEUES-1:0] after_pick;
reg               past;
integer a;
always @(*) begin
   after_pick = {QUEUES{1'b0}};
   past = 1'b0;
   for (a = 0; a < QUEUES; a = a + 1) begin
      after_pick[a] = past;
      past = past || pick[a];
   end
end

// Power-up as after reset: the last queue served last, so queue 0 comes first.
initial begin
   sending = 1'b0;
   cur = {QUEUES{1'b0}};
   after = {QUEUES{1'b0}};
end

always @(posedge clock) begin
   if (reset) begin
      sending <= 1'b0;
      cur <= {QUEUES{1'b0}};
      after <= {QUEUES{1'b0}};
   end else begin
      if (data_valid) begin
         sending <= !last_moves;
         cur <= sel;
      end
      if (start) after <= after_pick;
   end
end

genvar g;
generate
   for (g = 0; g < QUEUES; g = g + 1) begin : queue
      reg  [SW-1:0] mem [0:(1 << ADDR_BITS) - 1];
      reg  [SW-1:0] out;
      // Next word to write and to send (one bit more than the address: full vs empty).
      reg  [ADDR_BITS:0] wr_ptr;
      reg  [ADDR_BITS:0] rd_ptr;
      reg  [15:0] frames;
      // frames != 0, kept in a flip-flop beside the count.
      reg  has_frame;
      wire [ADDR_BITS:0] held = wr_ptr - rd_ptr;
      assign s_axis_tready[g] = {{(15-ADDR_BITS){1'b0}}, held} < cfg_tx_words;
      wire take = s_axis_tvalid[g] && s_axis_tready[g];
      wire pop = data_valid && m_axis_tready && sel[g];
      wire go = start && pick[g];

      // The word as stored: data, lanes (whole but on the last word), last.
      wire [BYTES-1:0] keep_in = s_axis_tkeep[BYTES*g +: BYTES];
      reg  [BYTES-1:0] keep_n;
      reg              run;
      integer l;
      always @(*) begin
         run = 1'b1;
         for (l = 0; l < BYTES; l = l + 1) begin
            run = run && (keep_in[l] || !s_axis_tlast[g]);
            keep_n[l] = run;
         end
      end
      wire [SW-1:0] wr_word = {s_axis_tlast[g], keep_n, s_axis_tdata[DATA_WIDTH*g +: DATA_WIDTH]};
      wire [ADDR_BITS-1:0] wa = wr_ptr[ADDR_BITS-1:0];
      // The read address: this word's, or the next one's when it moves now. Both and
      // their bypass compares come from registers; pop (late: the scheduler, the wire's
      // ready) only selects.
      wire [ADDR_BITS-1:0] ra0 = rd_ptr[ADDR_BITS-1:0];
      wire [ADDR_BITS-1:0] ra1 = ra0 + {{(ADDR_BITS-1){1'b0}}, 1'b1};
      wire [ADDR_BITS-1:0] ra = pop ? ra1 : ra0;
      wire bypass = take && (pop ? wa == ra1 : wa == ra0);

      always @(posedge clock) begin
         if (take) mem[wa] <= wr_word;
         out <= bypass ? wr_word : mem[ra];
      end

      initial begin
         wr_ptr = {(ADDR_BITS+1){1'b0}};
         rd_ptr = {(ADDR_BITS+1){1'b0}};
         frames = 16'd0;
         has_frame = 1'b0;
      end
      always @(posedge clock) begin
         if (reset) begin
            wr_ptr <= {(ADDR_BITS+1){1'b0}};
            rd_ptr <= {(ADDR_BITS+1){1'b0}};
            frames <= 16'd0;
            has_frame <= 1'b0;
         end else begin
            if (take) wr_ptr <= wr_ptr + {{ADDR_BITS{1'b0}}, 1'b1};
            if (pop) rd_ptr <= rd_ptr + {{ADDR_BITS{1'b0}}, 1'b1};
            frames <= frames + {15'd0, take && s_axis_tlast[g]} - {15'd0, go};
            has_frame <= (take && s_axis_tlast[g]) || frames > 16'd1 || (frames == 16'd1 && !go);
         end
      end

      assign head[SW*g +: SW] = out;
      assign whole[g] = has_frame;
      assign free[g] = (paused & cfg_priorities[8*g +: 8]) == 8'd0;
   end
endgenerate

endmodule

`default_nettype wire
