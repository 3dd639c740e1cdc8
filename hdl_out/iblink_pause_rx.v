// iblink_pause_rx: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/pause_rx/iblink_pause_rx.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: pause_rx
// config: parameters = DATA_WIDTH = 32 or 64, COUNT_BITS (counter width)
`default_nettype none
// iblink_pause_rx: the receive side of Ethernet PAUSE/PFC flow control (docs/spec.md §9). It
// watches the frames the MAC receives; a frame of 14 bytes or more to the PAUSE address
// 01-80-C2-00-00-01 or with EtherType 0x8808 is a control frame and is checked: 64
// bytes long, FCS good (the CRC-32 over the whole frame leaves the residue 0xDEBB20E3),
// DA, EtherType, then opcode 0x0001 (PAUSE) or 0x0101 (PFC); before all of them, the
// MAC's mark (rx_user with the last word: FCS or PHY error, docs/spec.md §10). The first
// failure is counted and nothing else happens. A good frame loads the pause timers of its
// priorities (all eight for PAUSE, the enabled ones for PFC) with its times in clocks
// (quanta x 512/DATA_WIDTH); paused[p] is high while priority p's timer runs. A time of
// 0 releases; a new frame reloads. Other frames are data and are not looked at.
//
// Cycle contract (docs/spec.md §10, "The PAUSE/PFC receive side"): the MAC's word is
// registered as it arrives, with the data part of its CRC-32 step, and the block works
// on that copy a clock later. A frame's fields are taken in the clock after its last
// word (rx_valid and rx_last) and it is decided in the next, from the registered FCS;
// its timers and counters change at the end of that clock, so paused shows it from the
// third clock after the last word, for exactly as many clocks as the frame says. rx_keep
// marks the valid byte lanes of the last word (from lane 0 up); the other words are
// whole.
module iblink_pause_rx #(
    // Bits per clock: 32 or 64
    parameter DATA_WIDTH = 64,
    // Bits of each frame counter (they wrap)
    parameter COUNT_BITS = 16
) (
    input  wire                    clock,
    // Synchronous: timers, counters and the frame in progress cleared
    input  wire                    reset,

    // Received frames from the MAC, byte lane i at rx_data[8i+7:8i], lane 0 first
    input  wire                    rx_valid,
    input  wire [DATA_WIDTH-1:0]   rx_data,
    input  wire [DATA_WIDTH/8-1:0] rx_keep,
    input  wire                    rx_last,
    // With rx_last: the MAC marks the frame bad
    input  wire                    rx_user,

    // Priorities held by a received PAUSE/PFC frame
    output wire [7:0]              paused,

    // Good frames, and control frames dropped by cause
    output reg  [COUNT_BITS-1:0]   cnt_pause,
    output reg  [COUNT_BITS-1:0]   cnt_pfc,
    output reg  [COUNT_BITS-1:0]   cnt_length,
    output reg  [COUNT_BITS-1:0]   cnt_fcs,
    output reg  [COUNT_BITS-1:0]   cnt_da,
    output reg  [COUNT_BITS-1:0]   cnt_ethertype,
    output reg  [COUNT_BITS-1:0]   cnt_opcode,
    output reg  [COUNT_BITS-1:0]   cnt_marked
);

localparam BYTES = DATA_WIDTH / 8;
localparam WORDS = 64 / BYTES;
localparam QC_BITS = (DATA_WIDTH == 64) ? 3 : 4;
localparam TIMER_BITS = 16 + QC_BITS;
// Words holding bytes 0..33 (DA to PT7)
localparam HDR_WORDS = (34 + BYTES - 1) / BYTES;
localparam integer LAST_I = WORDS - 1;
localparam [3:0] LAST = LAST_I[3:0];
// The word and lane of the EtherType's first byte (byte 12)
localparam integer TYPE_W = 12 / BYTES;
localparam integer TYPE_L = 12 % BYTES;
localparam [3:0] TYPE_IDX = TYPE_W[3:0];
localparam [47:0] PAUSE_DA = 48'h01_00_00_c2_80_01;
localparam [COUNT_BITS-1:0] ONE = 1;

// The input stage: the MAC's word as it arrived last clock, and the data part of its
// CRC-32 step (the step is linear: the register after a word is F(register) ^ G(word),
// so only F is left for the register's own loop). A word arriving in a reset clock is
// dropped with the frame it belongs to. Below, the current word and the last word's
// clock are the input stage's.
reg                  in_valid, in_last, in_user, in_full;
reg [DATA_WIDTH-1:0] in_data;
reg [BYTES-1:0]      in_keep;
reg [31:0]           in_crc;
wire [31:0] crc_g;
wire [31:0] crc_f;
// And what its lanes are, were it the word of the DA (at 32 bits, words 0 and 1: in_da0
// and in_da1) or of the EtherType.
reg                  in_da0, in_da1, in_type;
wire m_da0, m_da1;
generate
   if (DATA_WIDTH == 64) begin : da64
      assign m_da0 = rx_data[47:0] == PAUSE_DA;
      assign m_da1 = 1'b1;
   end else begin : da32
      assign m_da0 = rx_data[31:0] == PAUSE_DA[31:0];
      assign m_da1 = rx_data[15:0] == PAUSE_DA[47:32];
   end
endgenerate
wire m_type = rx_data[8*TYPE_L +: 16] == 16'h08_88;

// Words of this frame before the current one (idx), saturating: long.
reg [3:0] idx;
reg       long;

// The frame so far: bytes 0..HDR_WORDS*BYTES-1, byte b at [8b+7:8b]; with the current
// word in place (the fields of a short frame may be in it).
reg  [HDR_WORDS*DATA_WIDTH-1:0] hdr;
reg  [HDR_WORDS*DATA_WIDTH-1:0] head;
integer w;
always @(*) begin
   head = hdr;
   for (w = 0; w < HDR_WORDS; w = w + 1)
      if (!long && {28'd0, idx} == w) head[DATA_WIDTH*w +: DATA_WIDTH] = in_data;
end

// The FCS register over every byte of the frame, as the step takes it: all ones before a
// frame's first word (set by the last word, so no select on first stands before the
// step). The step in two halves: G of the arriving word (into in_crc), F of the
// register.
reg  [31:0] crc;
generate
   if (DATA_WIDTH == 64) begin : w64
      iblink_crc32_xor_w64 step_g (.prev(32'd0), .data(rx_data), .next(crc_g));
      iblink_crc32_xor_w64 step_f (.prev(crc), .data(64'd0), .next(crc_f));
   end else begin : w32
      iblink_crc32_xor_w32 step_g (.prev(32'd0), .data(rx_data), .next(crc_g));
      iblink_crc32_xor_w32 step_f (.prev(crc), .data(32'd0), .next(crc_f));
   end
endgenerate
wire [31:0] crc_next = crc_f ^ in_crc;
// The residue check of the register after the last word, a nibble at a time: fcs_eq[i]
// is crc[4i+3:4i] == the residue's, as the word is added.
localparam [31:0] RESIDUE = 32'hdebb_20e3;
reg  [7:0] fcs_eq;
integer n;
reg  [7:0] fcs_eq_next;
always @(*)
   for (n = 0; n < 8; n = n + 1) fcs_eq_next[n] = crc_next[4*n +: 4] == RESIDUE[4*n +: 4];

// Bytes in the frame, at its last word: 14 or more; exactly 64. The valid lanes run from
// lane 0 up, so "lane k valid" is "k + 1 lanes or more": 14 bytes or more is a word past
// the one holding byte 13, or that word with byte 13's lane valid.
localparam integer W13 = 13 / BYTES;
localparam integer L13 = 13 % BYTES;
localparam [3:0] W13_IDX = W13[3:0];
wire ge14 = long || idx > W13_IDX || (idx == W13_IDX && in_keep[L13]);
wire is64 = !long && idx == LAST && in_full;

// The last word's clock: what the frame is. The DA and the EtherType as the words came
// (da_acc, type_acc); a frame of 14 bytes or more has its DA in the words before its
// last, its EtherType may be in the last.
wire done = in_valid && in_last;
reg  da_acc, type_acc;
wire da_now   = da_acc;
wire type_now = (!long && idx == TYPE_IDX) ? in_type : type_acc;
reg  decide, control, is64_r, da_ok, type_ok, marked;
// The opcode as hdr stood last clock: a 64-byte frame's last word is two or more past
// the opcode's.
reg  op_pause, op_pfc;

// The next clock: the decision. fcs_eq and hdr hold the whole frame (a 64-byte frame's
// last word is past the header), whatever word of the next frame is current now.
wire [15:0] opcode = {hdr[119:112], hdr[127:120]};
wire [15:0] f16 = {hdr[135:128], hdr[143:136]};  // PAUSE: the time; PFC: the enable vector
wire fcs_ok = &fcs_eq;
wire d_marked = decide && control && marked;
wire checked = decide && control && !marked;
wire d_length = checked && !is64_r;
wire d_fcs = checked && is64_r && !fcs_ok;
wire d_da = checked && is64_r && fcs_ok && !da_ok;
wire d_type = checked && is64_r && fcs_ok && da_ok && !type_ok;
wire good = checked && is64_r && fcs_ok && da_ok && type_ok;
wire g_pause = good && op_pause;
wire g_pfc = good && op_pfc;
wire d_opcode = good && !g_pause && !g_pfc;

initial begin
   in_valid = 1'b0;
   in_last = 1'b0;
   in_user = 1'b0;
   in_data = {DATA_WIDTH{1'b0}};
   in_keep = {BYTES{1'b0}};
   in_full = 1'b0;
   in_crc = 32'd0;
   in_da0 = 1'b0;
   in_da1 = 1'b0;
   in_type = 1'b0;
   da_acc = 1'b0;
   type_acc = 1'b0;
   op_pause = 1'b0;
   op_pfc = 1'b0;
   decide = 1'b0;
   control = 1'b0;
   is64_r = 1'b0;
   da_ok = 1'b0;
   type_ok = 1'b0;
   marked = 1'b0;
   idx = 4'd0;
   long = 1'b0;
   hdr = {HDR_WORDS*DATA_WIDTH{1'b0}};
   crc = 32'hffff_ffff;
   fcs_eq = 8'd0;
   cnt_pause = {COUNT_BITS{1'b0}};
   cnt_pfc = {COUNT_BITS{1'b0}};
   cnt_length = {COUNT_BITS{1'b0}};
   cnt_fcs = {COUNT_BITS{1'b0}};
   cnt_da = {COUNT_BITS{1'b0}};
   cnt_ethertype = {COUNT_BITS{1'b0}};
   cnt_opcode = {COUNT_BITS{1'b0}};
   cnt_marked = {COUNT_BITS{1'b0}};
end

always @(posedge clock) begin
   in_valid <= rx_valid && !reset;
   in_data <= rx_data;
   in_keep <= rx_keep;
   in_full <= &rx_keep;
   in_last <= rx_last;
   in_user <= rx_user;
   in_crc <= crc_g;
   in_da0 <= m_da0;
   in_da1 <= m_da1;
   in_type <= m_type;
   op_pause <= opcode == 16'h0001;
   op_pfc <= opcode == 16'h0101;
   if (in_valid && !long) begin
      if (idx == 4'd0) da_acc <= in_da0;
      else if (idx == 4'd1) da_acc <= da_acc && in_da1;
      if (idx == TYPE_IDX) type_acc <= in_type;
   end
   if (in_valid) begin
      hdr <= head;
      fcs_eq <= fcs_eq_next;
   end
   if (reset || done) crc <= 32'hffff_ffff;
   else if (in_valid) crc <= crc_next;
   control <= ge14 && (da_now || type_now);
   is64_r <= is64;
   da_ok <= da_now;
   type_ok <= type_now;
   marked <= in_user;
   if (reset) begin
      decide <= 1'b0;
      idx <= 4'd0;
      long <= 1'b0;
      cnt_pause <= {COUNT_BITS{1'b0}};
      cnt_pfc <= {COUNT_BITS{1'b0}};
      cnt_length <= {COUNT_BITS{1'b0}};
      cnt_fcs <= {COUNT_BITS{1'b0}};
      cnt_da <= {COUNT_BITS{1'b0}};
      cnt_ethertype <= {COUNT_BITS{1'b0}};
      cnt_opcode <= {COUNT_BITS{1'b0}};
      cnt_marked <= {COUNT_BITS{1'b0}};
   end else begin
      decide <= done;
      if (done) begin
         idx <= 4'd0;
         long <= 1'b0;
      end else if (in_valid) begin
         if (idx == 4'd15) long <= 1'b1;
         else idx <= idx + 4'd1;
      end
      if (g_pause) cnt_pause <= cnt_pause + ONE;
      if (g_pfc) cnt_pfc <= cnt_pfc + ONE;
      if (d_length) cnt_length <= cnt_length + ONE;
      if (d_fcs) cnt_fcs <= cnt_fcs + ONE;
      if (d_da) cnt_da <= cnt_da + ONE;
      if (d_type) cnt_ethertype <= cnt_ethertype + ONE;
      if (d_opcode) cnt_opcode <= cnt_opcode + ONE;
      if (d_marked) cnt_marked <= cnt_marked + ONE;
   end
end

// The pause timers, in clocks. What a good frame would do to each is settled in its last
// word's clock, when the header is whole in hdr (a 64-byte frame's last word is past
// it): whether it loads the timer (all but the FCS), and with what; the next clock's
// decision only adds the registered FCS check.
wire cand = done && is64 && da_acc && type_acc && !in_user;
genvar p;
generate
   for (p = 0; p < 8; p = p + 1) begin : prio
      reg [TIMER_BITS-1:0] timer;
      wire [15:0] pt = {hdr[144 + 16*p +: 8], hdr[152 + 16*p +: 8]};
      reg  [15:0] quanta;
      reg         will_load;
      initial will_load = 1'b0;
      always @(posedge clock) begin
         quanta <= op_pause ? f16 : pt;
         will_load <= !reset && cand && (op_pause || (op_pfc && f16[p]));
      end
      // fcs_eq's own copy, kept (not merged with the others), so the check that
      // completes a load is made beside this timer rather than fanned out from one place.
      (* keep *) reg [7:0] fcs_eq_p;
      initial fcs_eq_p = 8'd0;
      always @(posedge clock)
         if (in_valid) fcs_eq_p <= fcs_eq_next;
      wire load = will_load && &fcs_eq_p;
      // run: timer != 0, kept in a register beside it (from the timer's next value), so
      // paused leaves a flip-flop rather than a wide OR.
      reg run;
      initial timer = {TIMER_BITS{1'b0}};
      initial run = 1'b0;
      always @(posedge clock) begin
         if (reset) begin
            timer <= {TIMER_BITS{1'b0}};
            run <= 1'b0;
         end else if (load) begin
            timer <= {quanta, {QC_BITS{1'b0}}};
            run <= quanta != 16'd0;
         end else if (run) begin
            timer <= timer - 1'b1;
            run <= timer != {{(TIMER_BITS-1){1'b0}}, 1'b1};
         end
      end
      assign paused[p] = run;
   end
endgenerate

endmodule
`default_nettype wire
