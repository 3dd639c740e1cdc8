// iblink_eth_rxbuf: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/eth_rxbuf/iblink_eth_rxbuf.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: eth_rxbuf
// config: parameters = QUEUES = 1..8, DATA_WIDTH = 32 or 64, ADDR_BITS = 10..15 (memory words per queue: 2^ADDR_BITS)
`default_nettype none
// iblink_eth_rxbuf: the per-queue receive buffers of an Ethernet flow-control port
// (docs/spec.md §9). Frames from the MAC (s_axis_*) are sorted by their 802.1Q priority
// (PCP; 0 when untagged) into the queue whose priority mask holds it (queue 0 when none
// does). A frame to the PAUSE address 01-80-C2-00-00-01 or with EtherType 0x8808 is for
// the PAUSE/PFC receive side and is not stored. A frame the MAC marks bad (s_axis_tuser
// with its last word: FCS or PHY error, docs/spec.md §10) is not stored and bad is high
// in that clock. Any other data frame is decided in the clock after its last word, from
// what that clock registered: it is stored whole if it is at most 1522 bytes long and
// its words fit in its queue's free space (cfg_size_words less the words held at the
// start of the deciding clock); otherwise it is dropped and drop[q] is high in that
// clock. A stored frame counts from the clock after. fill_bytes is what each queue holds (whole words, in bytes, the word
// offered on its stream included) at the start of the clock: the RX-fill trigger of
// iblink_pfc_tx reads it. The MAC's stream has no tready: a MAC's receive side cannot
// wait.
//
// Each queue offers its oldest stored word on its own AXI4-Stream (m_axis_*, queue q's
// beat at [q]): the word moves in a clock where m_axis_tvalid[q] and m_axis_tready[q]
// are high, and it holds until then. In a clock where a queue offers nothing or its word
// moves, it reads its next stored word (of a frame stored before that clock) from its
// block RAM, offered from the next clock: a reader holding tready high takes a word a
// clock (docs/pfc.md, "Reading").
//
// Every word is written, a clock after it arrives, into every queue's memory just past
// what that queue holds; the queue the frame belongs to keeps it when it is stored by
// moving its commit pointer, the others write over it with the next frame (whose first
// word is written once the store has moved the pointer). So a queue's memory has
// room for cfg_size_words and one maximum frame: cfg_size_words <= 2^ADDR_BITS - 1522/W*8.
// s_axis_tkeep marks the valid byte lanes of the last word (from lane 0 up); the other
// words are whole. m_axis_tdata and m_axis_tkeep mean something only while tvalid.
module iblink_eth_rxbuf #(
    // Queues, 1 to 8
    parameter QUEUES = 4,
    // Bits per clock: 32 or 64
    parameter DATA_WIDTH = 64,
    // Words of memory per queue: 2^ADDR_BITS
    parameter ADDR_BITS = 14
) (
    input  wire                           clock,
    // Synchronous: buffers emptied, the frame in progress forgotten
    input  wire                           reset,

    // Configuration (static while running, and in place a clock before the first
    // frame): queue q's priority mask at
    // [8q+7:8q] (bit p: priority p), its size in words at [16q+15:16q]
    input  wire [8*QUEUES-1:0]            cfg_priorities,
    input  wire [16*QUEUES-1:0]           cfg_size_words,

    // Received frames from the MAC, byte lane i at s_axis_tdata[8i+7:8i], lane 0 first
    input  wire [DATA_WIDTH-1:0]          s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]        s_axis_tkeep,
    input  wire                           s_axis_tvalid,
    input  wire                           s_axis_tlast,
    // With tlast: the MAC marks the frame bad
    input  wire                           s_axis_tuser,

    // One stream per queue: the stored frames, oldest first
    output wire [DATA_WIDTH*QUEUES-1:0]   m_axis_tdata,
    output wire [DATA_WIDTH/8*QUEUES-1:0] m_axis_tkeep,
    output wire [QUEUES-1:0]              m_axis_tvalid,
    input  wire [QUEUES-1:0]              m_axis_tready,
    output wire [QUEUES-1:0]              m_axis_tlast,

    // Bytes held per queue (whole words), at [16q+15:16q]
    output wire [16*QUEUES-1:0]           fill_bytes,
    // The data frame that ended last clock did not fit in queue q (or was over 1522 bytes)
    output wire [QUEUES-1:0]              drop,
    // A frame marked bad (s_axis_tuser) ended this clock: not stored
    output wire                           bad
);

localparam BYTES = DATA_WIDTH / 8;
localparam KB = (DATA_WIDTH == 64) ? 3 : 2;
// Words of a 1522-byte frame
localparam integer MAX_WORDS_I = (1522 + BYTES - 1) / BYTES;
localparam [8:0] MAX_WORDS = MAX_WORDS_I[8:0];
localparam [8:0] LAST_WORD = MAX_WORDS - 9'd1;
// Words holding bytes 0..15 (DA, SA, the tag or the EtherType)
localparam HDR_WORDS = 16 / BYTES;
localparam SW = DATA_WIDTH + BYTES + 1;

// The frame arriving: words before the current one, and whether it ran past a maximum
// frame (its later words are not written).
reg  [8:0] idx;
reg        over;

// Bytes 0..15 of the frame, with the current word in place.
reg  [127:0] hdr;
reg  [127:0] head;
integer w;
always @(*) begin
   head = hdr;
   for (w = 0; w < HDR_WORDS; w = w + 1)
      if ({23'd0, idx} == w) head[DATA_WIDTH*w +: DATA_WIDTH] = s_axis_tdata;
end

// Valid lanes of the current word: the trailing ones of s_axis_tkeep, the index of its
// lowest 0 (a priority encoder, no adders).
localparam integer BYTES_I = BYTES;
localparam [3:0] ALL_LANES = BYTES_I[3:0];
reg  [3:0] lanes;
integer l;
always @(*) begin
   lanes = ALL_LANES;
   for (l = BYTES - 1; l >= 0; l = l - 1)
      if (!s_axis_tkeep[l]) lanes = l[3:0];
end
// The current word has at least k valid lanes: its keep's lanes 0..k-1 are all set (the
// valid lanes are the trailing ones), a compare with a constant without an adder.
function lanes_ge(input [BYTES-1:0] keep, input integer k);
   integer i;
   begin
      lanes_ge = k <= BYTES;
      for (i = 0; i < BYTES; i = i + 1)
         if (i < k && !keep[i]) lanes_ge = 1'b0;
   end
endfunction
localparam integer HDR_WORDS_I = HDR_WORDS;
localparam [8:0] HDR_W = HDR_WORDS_I[8:0];
wire        short = idx < HDR_W;
// At most 1522 bytes: fewer than 1522 / (W/8) whole words before this one, or that many
// and at most the rest in this one.
localparam integer LIM_I = 1522 / BYTES;
localparam [8:0] LIM_IDX = LIM_I[8:0];
localparam integer LIM_L = 1522 % BYTES;
wire        len_ok = idx < LIM_IDX || (idx == LIM_IDX && !lanes_ge(s_axis_tkeep, LIM_L + 1));

// What the frame is, from its first 16 bytes: its queue (one-hot) is the first whose mask
// holds its priority, else queue 0.
function [QUEUES-1:0] queue_of(input [2:0] pr, input [8*QUEUES-1:0] masks);
   integer f;
   reg found;
   begin
      queue_of = {QUEUES{1'b0}};
      found = 1'b0;
      for (f = 0; f < QUEUES; f = f + 1)
         if (!found && masks[8*f + {29'd0, pr}]) begin
            queue_of[f] = 1'b1;
            found = 1'b1;
         end
      if (!found) queue_of[0] = 1'b1;
   end
endfunction
// Each priority's queue, registered from the (static) masks, so a frame's queue is a
// select by its PCP, not a search of the masks behind the header's compares.
reg  [8*QUEUES-1:0] qtab_r;
integer t;
always @(posedge clock)
   for (t = 0; t < 8; t = t + 1)
      qtab_r[QUEUES*t +: QUEUES] <= queue_of(t[2:0], cfg_priorities);
function [QUEUES-1:0] qtab_at(input [2:0] pr, input [8*QUEUES-1:0] tab);
   integer e;
   begin
      qtab_at = tab[QUEUES-1:0];
      for (e = 1; e < 8; e = e + 1)
         if (pr == e[2:0]) qtab_at = tab[QUEUES*e +: QUEUES];
   end
endfunction
wire [QUEUES-1:0] q_untagged = qtab_r[QUEUES-1:0];
// The class of a frame whose last word is word h of its header (h < HDR_WORDS), one per
// h from the registered words before it and the current word wired in place (no mux on
// idx ahead of the compares): the length guards say which fields it has. Word
// HDR_WORDS - 1's class, unguarded, is a longer frame's, registered as the header's last
// word arrives, so a last word past the header decides from flip-flops.
wire [HDR_WORDS-1:0]        ctrl_h;
wire [QUEUES*HDR_WORDS-1:0] qsel_h;
wire                        ctrl_full;
wire [QUEUES-1:0]           qsel_full;
genvar h;
generate
   for (h = 0; h < HDR_WORDS; h = h + 1) begin : hyp
      // The fields: DA (bytes 0-5), bytes 12-13, the PCP (byte 14's top 3 bits), each
      // byte from the current word if it is word h, else from the registered words.
      reg  [47:0] da_b;
      reg  [15:0] ty_b;
      reg  [2:0]  pcp;
      integer y;
      always @(*) begin
         for (y = 0; y < 6; y = y + 1)
            da_b[8*y +: 8] = (y / BYTES == h) ? s_axis_tdata[8*(y % BYTES) +: 8] : hdr[8*y +: 8];
         for (y = 12; y < 14; y = y + 1)
            ty_b[8*(y-12) +: 8] = (y / BYTES == h) ? s_axis_tdata[8*(y % BYTES) +: 8] : hdr[8*y +: 8];
         pcp = (14 / BYTES == h) ? s_axis_tdata[8*(14 % BYTES) + 5 +: 3] : hdr[8*14 + 5 +: 3];
      end
      // The frame is at least n bytes long: the current word, word h, has at least
      // n - h*BYTES valid lanes.
      localparam integer OFF = h * BYTES;
      wire        da_pause = da_b == 48'h01_00_00_c2_80_01;
      wire [15:0] type12 = {ty_b[7:0], ty_b[15:8]};
      wire        is_ctrl = type12 == 16'h8808;
      wire        is_tag = type12 == 16'h8100;
      assign ctrl_h[h] = (lanes_ge(s_axis_tkeep, 6 - OFF) && da_pause) || (lanes_ge(s_axis_tkeep, 14 - OFF) && is_ctrl);
      wire [QUEUES-1:0] q_pcp = qtab_at(pcp, qtab_r);
      assign qsel_h[QUEUES*h +: QUEUES] = (lanes_ge(s_axis_tkeep, 16 - OFF) && is_tag) ? q_pcp : q_untagged;
      if (h == HDR_WORDS - 1) begin : full
         assign ctrl_full = da_pause || is_ctrl;
         assign qsel_full = is_tag ? q_pcp : q_untagged;
      end
   end
endgenerate
reg              ctrl_r;
reg [QUEUES-1:0] qsel_r;
always @(posedge clock)
   if (s_axis_tvalid && idx == HDR_W - 9'd1) begin
      ctrl_r <= ctrl_full;
      qsel_r <= qsel_full;
   end
// The queue (one-hot) of a data frame ending in this word, 0 for a control frame: each
// case (the frame ends in header word v, or past the header) masked by its own
// condition from registers and by its own class, ORed last, so no select by idx stands
// between a compare and the store decision.
reg [QUEUES-1:0] dsel;
integer v;
always @(*) begin
   dsel = qsel_r & {QUEUES{!short && !ctrl_r}};
   for (v = 0; v < HDR_WORDS; v = v + 1)
      dsel = dsel | (qsel_h[QUEUES*v +: QUEUES] & {QUEUES{{23'd0, idx} == v && !ctrl_h[v]}});
end

wire        done = s_axis_tvalid && s_axis_tlast;
// idx moves on to the next word (a word that is not the last, before a maximum frame).
// more: !over && idx != LAST_WORD, and words: idx + 1, both registered with idx.
reg         more;
reg  [9:0]  words;
initial more = 1'b1;
initial words = 10'd1;
wire        step = s_axis_tvalid && !s_axis_tlast && more;

assign bad = done && s_axis_tuser;

// The last word's facts, registered: the queue (one-hot) of a data frame (not control,
// not marked bad) that ended last clock, else 0; whether it is at most 1522 bytes; its
// words; per queue, whether they fit in its free space at the start of this clock
// (room_r). The store is decided from these flip-flops alone.
reg  [QUEUES-1:0] sel_r;
reg               len_r;
reg  [9:0]        words_r;
wire [QUEUES-1:0] room_r;
wire [QUEUES-1:0] st = sel_r & room_r & {QUEUES{len_r}};
// Known from power-up, as m_axis_* below: drop holds no X before the first frame.
initial sel_r = {QUEUES{1'b0}};
always @(posedge clock) begin
   sel_r <= dsel & {QUEUES{done && !s_axis_tuser && !reset}};
   len_r <= !over && len_ok;
   words_r <= words;
end

// The word as stored: the data, its lanes, and whether it is the frame's last; written a
// clock later at its index, past the commit pointer as the store has left it.
wire [BYTES-1:0] keep_n = s_axis_tlast ? ~({BYTES{1'b1}} << lanes) : {BYTES{1'b1}};
wire [SW-1:0]    wr_word = {s_axis_tlast, keep_n, s_axis_tdata};
reg  [SW-1:0]    wr_word_r;
reg  [8:0]       wr_idx_r;
reg              wr_en_r;
always @(posedge clock) begin
   wr_word_r <= wr_word;
   wr_idx_r <= idx;
   wr_en_r <= s_axis_tvalid && !over && !reset;
end
reg  [9:0]        wp1_r;
always @(posedge clock) wp1_r <= words + 10'd1;
// The frame that ended last clock's words, plus and less one (less one: its idx).
wire [ADDR_BITS-1:0] words_ra = {{(ADDR_BITS-10){1'b0}}, words_r};
wire [ADDR_BITS-1:0] wp1_ra = {{(ADDR_BITS-10){1'b0}}, wp1_r};
wire [ADDR_BITS-1:0] wm1_ra = {{(ADDR_BITS-9){1'b0}}, wr_idx_r};

genvar g;
generate
   for (g = 0; g < QUEUES; g = g + 1) begin : queue
      reg  [SW-1:0] mem [0:(1 << ADDR_BITS) - 1];
      reg  [SW-1:0] out;
      // One past the last stored word (commit_ptr); the next word to read from memory;
      // the word offered (or the next to offer when none is). The commit pointer is two
      // registers and a select, so the store loads one flip-flop (pend), not the
      // pointer's enables beside the block RAM: it is c_plus (c_base plus the stored
      // frame's words) in the clock after a store, else c_base, in every clock the value
      // of a pointer moved at the store.
      reg  [ADDR_BITS-1:0] c_base;
      reg  [ADDR_BITS-1:0] c_plus;
      reg                  pend;
      wire [ADDR_BITS-1:0] commit_ptr = pend ? c_plus : c_base;
      reg  [ADDR_BITS-1:0] rd_ptr;
      reg  [ADDR_BITS-1:0] head_ptr;
      reg  valid;
      wire [ADDR_BITS-1:0] held = commit_ptr - head_ptr;
      // held + idx (the words held and the frame's words before this one), a register.
      reg  [ADDR_BITS:0] hi;
      wire moved = valid && m_axis_tready[g];
      // A frame ending this clock fits when held + idx + 1 <= cfg_size_words with held
      // as it stands in the next clock: less a word that moves now, plus the frame
      // stored now, if any. Both cases compared from registers (the second against
      // lim_r, the size less the words of the frame that ended last clock); moved and st
      // pick.
      wire [16:0]        size = {1'b0, cfg_size_words[16*g +: 16]};
      wire [16:0]        hi_x = {{(16-ADDR_BITS){1'b0}}, hi};
      reg  signed [17:0] lim_r;
      wire signed [17:0] hi_sx = {1'b0, hi_x};
      wire fit_n = moved ? hi_x <= size : hi_x < size;
      wire fit_s = moved ? hi_sx <= lim_r : hi_sx < lim_r;
      reg  room_q;
      // held + idx in the next clock: every candidate from registers, the select last.
      // A store here means a frame ended last clock, so idx is 0 now.
      wire [ADDR_BITS:0] idx_x = {{(ADDR_BITS-8){1'b0}}, idx};
      wire [ADDR_BITS:0] one = {{ADDR_BITS{1'b0}}, 1'b1};
      wire [ADDR_BITS:0] hi_dn0 = hi - idx_x;
      wire [ADDR_BITS:0] hi_dn1 = hi - {{(ADDR_BITS-9){1'b0}}, words};
      wire [ADDR_BITS:0] hi_up = hi + one;
      wire [ADDR_BITS:0] hi_dw = hi - one;
      wire [ADDR_BITS:0] hi_sup = hi + {1'b0, wp1_ra};
      wire [ADDR_BITS:0] hi_seq = hi + {1'b0, words_ra};
      wire [ADDR_BITS:0] hi_sdw = hi + {1'b0, wm1_ra};
      // The select's code from the controls alone, then one 8-way select.
      wire up = !done && step;
      wire [2:0] code = st[g] ? (up ? (moved ? 3'd6 : 3'd5) : (moved ? 3'd7 : 3'd6))
                      : done ? (moved ? 3'd1 : 3'd0)
                      : (up == moved) ? 3'd3 : (up ? 3'd2 : 3'd4);
      reg  [ADDR_BITS:0] hi_nx;
      always @(*)
         case (code)
            3'd0: hi_nx = hi_dn0;
            3'd1: hi_nx = hi_dn1;
            3'd2: hi_nx = hi_up;
            3'd3: hi_nx = hi;
            3'd4: hi_nx = hi_dw;
            3'd5: hi_nx = hi_sup;
            3'd6: hi_nx = hi_seq;
            default: hi_nx = hi_sdw;
         endcase
      // A word to read: a frame was stored last clock (its words are past rd_ptr, since a
      // queue never holds 2^ADDR_BITS words), or c_base != rd_ptr, registered (ne_r) from
      // the compares against rd_ptr and rd_ptr + 1, load picking.
      reg  [ADDR_BITS-1:0] rd_p1;
      reg  ne_r;
      initial rd_p1 = {{(ADDR_BITS-1){1'b0}}, 1'b1};
      wire load = (pend || ne_r) && (!valid || m_axis_tready[g]);
      wire ne_n = pend ? (!load || c_plus != rd_p1) : (load ? c_base != rd_p1 : c_base != rd_ptr);

      // Known from power-up (the FPGA's initial value): m_axis_* hold no X before the
      // first word, in a four-state simulator too.
      initial out = {SW{1'b0}};
      // The write address wraps at 2^ADDR_BITS words: a wire of that width, since a
      // simulator may evaluate an index expression wider (Icarus does) and then skip a
      // write past the end of the memory.
      // commit_ptr + wr_idx_r: in the clock after a store, wr_idx_r is 0 (the word came
      // after a last word), so it is c_plus; else wa_n, that sum from the last clock's
      // commit pointer and idx.
      reg  [ADDR_BITS-1:0] wa_n;
      wire [ADDR_BITS-1:0] wr_addr = pend ? c_plus : wa_n;
      always @(posedge clock) begin
         if (wr_en_r) mem[wr_addr] <= wr_word_r;
         if (load) out <= mem[rd_ptr];
      end

      always @(posedge clock) begin
         if (reset) begin
            c_base <= {ADDR_BITS{1'b0}};
            rd_p1 <= {{(ADDR_BITS-1){1'b0}}, 1'b1};
            ne_r <= 1'b0;
            c_plus <= {ADDR_BITS{1'b0}};
            pend <= 1'b0;
            hi <= {(ADDR_BITS+1){1'b0}};
            rd_ptr <= {ADDR_BITS{1'b0}};
            head_ptr <= {ADDR_BITS{1'b0}};
            valid <= 1'b0;
         end else begin
            c_base <= commit_ptr;
            c_plus <= commit_ptr + words_ra;
            wa_n <= commit_ptr + {{(ADDR_BITS-9){1'b0}}, idx};
            pend <= st[g];
            hi <= hi_nx;
            ne_r <= ne_n;
            if (load) begin
               rd_ptr <= rd_p1;
               rd_p1 <= rd_p1 + {{(ADDR_BITS-1){1'b0}}, 1'b1};
            end
            if (moved) head_ptr <= head_ptr + {{(ADDR_BITS-1){1'b0}}, 1'b1};
            if (load) valid <= 1'b1;
            else if (moved) valid <= 1'b0;
         end
      end

      always @(posedge clock) begin
         room_q <= st[g] ? fit_s : fit_n;
         lim_r <= $signed({1'b0, size}) - $signed({8'd0, words});
      end
      assign room_r[g] = room_q;
      assign m_axis_tvalid[g] = valid;
      assign m_axis_tdata[DATA_WIDTH*g +: DATA_WIDTH] = out[DATA_WIDTH-1:0];
      assign m_axis_tkeep[BYTES*g +: BYTES] = out[DATA_WIDTH +: BYTES];
      assign m_axis_tlast[g] = out[SW-1];
      assign fill_bytes[16*g +: 16] = {{(16-ADDR_BITS){1'b0}}, held} << KB;
      assign drop[g] = sel_r[g] && !(len_r && room_r[g]);
   end
endgenerate

always @(posedge clock) begin
   if (s_axis_tvalid) hdr <= head;
   if (reset || done) begin
      idx <= 9'd0;
      over <= 1'b0;
      more <= 1'b1;
      words <= 10'd1;
   end else if (s_axis_tvalid) begin
      if (idx == LAST_WORD) begin
         over <= 1'b1;
         more <= 1'b0;
      end else if (!over) begin
         idx <= idx + 9'd1;
         more <= idx != LAST_WORD - 9'd1;
         words <= words + 10'd1;
      end
   end
end

endmodule

`default_nettype wire
