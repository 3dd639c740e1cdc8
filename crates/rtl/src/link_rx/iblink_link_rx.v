`default_nettype none
// iblink_link_rx: the link receive classifier (docs/spec.md §1, §3, §4, §7). Data packets
// (rx_link = 0) are passed to out_* one clock later, VCRC kept; each is checked for
// length (bytes = PktLen*4 + 2, PktLen 6..1048), VCRC and VL, and judged 4 clocks after
// its eop word: done/done_status, and for a good packet one accept (acc_* to the RX
// credits for a data VL, vl15_accept for VL15). Link packets belong to the FCP RX
// framer; their sop only cuts an open data packet (out_abort).
//
// The VCRC is checked by running the CRC over the whole packet, VCRC included, every
// word absorbed whole with the lanes past the packet's end zeroed; on a packet of the
// right length the constant a good one leaves (the residue moved on by the zero padding)
// is folded into the last word's contribution, so a good packet ends with fin == 0. The
// next-state function is split: stage 1 registers the data part B * word, so the loop
// through the CRC register is A * state ^ s1_d. The equations come from the generated
// modules iblink_link_rx_vcrc_w32 / _w64.
//
// Cycle contract: every output is a register. out_* in clock t+1 is the data-packet
// word presented in clock t; out_abort in t+1 for a cutting sop in t. The verdict on a
// packet whose eop word is in clock e shows in e+4 (done, done_status, acc_* or
// vl15_accept). A verdict or out_abort shown in clock t is counted from t+1. A reset in
// clock r drops the word of clock r and every verdict not yet shown; the counters
// (saturating) are kept.
module iblink_link_rx #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4,
    // Link word width: 32 or 64 bits
    parameter DATA_WIDTH = 32,
    // Byte lanes of a word
    parameter KEEP_WIDTH = DATA_WIDTH/8
) (
    input  wire                  clock,
    // Link resync (docs/spec.md §8): the open packet and the pipeline are dropped
    input  wire                  reset,

    // The receive link word stream; rx_keep counts on the eop word only (its highest
    // set bit i: lanes 0..i carry bytes); rx_link: a link packet's word (an FCP)
    input  wire                  rx_valid,
    input  wire [DATA_WIDTH-1:0] rx_data,
    input  wire [KEEP_WIDTH-1:0] rx_keep,
    input  wire                  rx_sop,
    input  wire                  rx_eop,
    input  wire                  rx_link,

    // Data packets for the user's receive buffer, VCRC kept (lanes past the packet's
    // last byte are 0); out_vl: the packet's LRH VL; out_abort: the packet being
    // delivered was cut off by the next item's sop (discard it, it gets no done)
    output reg                   out_valid,
    output reg  [DATA_WIDTH-1:0] out_data,
    output reg  [KEEP_WIDTH-1:0] out_keep,
    output reg                   out_sop,
    output reg                   out_eop,
    output reg  [3:0]            out_vl,
    output reg                   out_abort,

    // The verdict on the latest packet delivered with out_eop: done for one clock,
    // done_status held (0 good, 1 VCRC error, 2 length error, 3 bad VL)
    output reg                   done,
    output reg  [1:0]            done_status,
    // A good packet on a data VL: the RX credits' accept (VL, blocks); on VL15: the
    // VL15 buffer's accept
    output reg                   acc_valid,
    output reg  [3:0]            acc_vl,
    output reg  [6:0]            acc_blocks,
    output reg                   vl15_accept,

    // Saturating statistics, kept across a reset
    output reg  [15:0]           good_count,
    output reg  [15:0]           vcrc_error_count,
    output reg  [15:0]           length_error_count,
    output reg  [15:0]           bad_vl_count,
    output reg  [15:0]           abort_count
);

localparam [1:0] STATUS_GOOD = 2'd0;
localparam [1:0] STATUS_VCRC = 2'd1;
localparam [1:0] STATUS_LENGTH = 2'd2;
localparam [1:0] STATUS_BAD_VL = 2'd3;

// The constants a good packet leaves in the CRC register once its last word is
// absorbed with z zero bytes after its VCRC: A^z * residue (residue = the register
// after any good packet). The last word of a packet of the right length has z = 2 at
// 32 bits; at 64 bits z = 6 (2 bytes in it) or 2 (6 bytes).
localparam [15:0] FOLD_PAD2 = 16'h9d4c;
localparam [15:0] FOLD_PAD6 = 16'h9f66;

// Framing state.
reg open;               // a data packet is being received
reg [10:0] rem;         // the words still to come after the word carrying PktLen, counted down
reg over;               // more words came than rem allowed
reg [10:0] hdr_pktlen;  // LRH:PktLen of the packet (its VL is out_vl)
reg r0_short;           // the stage-0 item ended by the word carrying PktLen (<= 8 bytes)
// Derived from the header a clock after its capture.
reg hd_range_ok;        // PktLen within 6..1048
reg [6:0] hd_blocks;    // ceil((PktLen*4 - 8) / 64) (docs/spec.md §1)
reg hd_vl15, hd_bad_vl;
// Stage 1: the word's CRC contribution and the length verdict.
reg s1_valid, s1_eop, s1_len_ok;
reg [15:0] s1_d;
reg [3:0] s1_vl;
reg s1_vl15, s1_bad_vl;
reg [6:0] s1_blocks;
// Stage 2: the CRC register (reflected LFSR state) and its value after a packet.
reg [15:0] state;
reg [15:0] fin;         // zero when the VCRC is good (see s1_d)
reg s2_end, s2_len_ok;
reg [3:0] s2_vl;
reg s2_vl15, s2_bad_vl;
reg [6:0] s2_blocks;

initial begin
   open = 1'b0;
   rem = 11'd0;
   over = 1'b0;
   hdr_pktlen = 11'd0;
   r0_short = 1'b0;
   hd_range_ok = 1'b0;
   hd_blocks = 7'd0;
   {hd_vl15, hd_bad_vl} = 2'd0;
   {s1_valid, s1_eop, s1_len_ok} = 3'd0;
   s1_d = 16'd0;
   s1_vl = 4'd0;
   {s1_vl15, s1_bad_vl} = 2'd0;
   s1_blocks = 7'd0;
   state = 16'hffff;
   fin = 16'd0;
   {s2_end, s2_len_ok} = 2'd0;
   s2_vl = 4'd0;
   {s2_vl15, s2_bad_vl} = 2'd0;
   s2_blocks = 7'd0;
   out_valid = 1'b0;
   out_data = {DATA_WIDTH{1'b0}};
   out_keep = {KEEP_WIDTH{1'b0}};
   out_sop = 1'b0;
   out_eop = 1'b0;
   out_vl = 4'd0;
   out_abort = 1'b0;
   done = 1'b0;
   done_status = STATUS_GOOD;
   acc_valid = 1'b0;
   acc_vl = 4'd0;
   acc_blocks = 7'd0;
   vl15_accept = 1'b0;
   good_count = 16'd0;
   vcrc_error_count = 16'd0;
   length_error_count = 16'd0;
   bad_vl_count = 16'd0;
   abort_count = 16'd0;
end

// ---- Stage 0: framing and the input register (out_*) ----
// Only words with rx_valid count: gaps inside an item are ignored.
wire data_word = rx_valid & ~rx_link;
// Any item's sop while a data packet is open: that packet never got its eop.
wire abort = rx_valid & rx_sop & open;
wire first = data_word & rx_sop;
wire more = data_word & ~rx_sop & open;
wire take = first | more;
// keep counts on the eop word only: lanes up to its highest set bit carry bytes.
// Lanes past the packet's end are zeroed (the CRC absorbs them as zero bytes).
wire [KEEP_WIDTH-1:0] keep_n;
wire [DATA_WIDTH-1:0] data_n;
genvar l;
generate
   for (l = 0; l < KEEP_WIDTH; l = l + 1) begin : lane
      assign keep_n[l] = ~rx_eop | (|rx_keep[KEEP_WIDTH-1:l]);
      assign data_n[8*l +: 8] = rx_data[8*l +: 8] & {8{keep_n[l]}};
   end
endgenerate
// LRH (IBA; iblink_model::iba): VL = byte 0 [7:4]; PktLen = byte 4 [2:0] . byte 5
// (5 reserved bits first). pk_word: the word that carries it (see the width's section).
wire [10:0] rx_pktlen;
wire pk_word;
// What rem loads: the words after the one carrying PktLen on a packet of the right
// length, plus the value rem ends at on its eop word (REM_END).
wire [10:0] rx_words;

always @(posedge clock) begin
   if (reset) begin
      open <= 1'b0;
      {out_valid, out_sop, out_eop, out_abort, r0_short} <= 5'd0;
   end else begin
      out_valid <= take;
      out_sop <= first;
      out_eop <= take & rx_eop;
      out_abort <= abort;
      r0_short <= (first | pk_word) & rx_eop;
      if (first) begin
         open <= ~rx_eop;
         over <= 1'b0;
      end else if (more) begin
         open <= ~rx_eop;
      end else if (abort) begin
         open <= 1'b0;   // cut by a link packet's sop
      end
      // Count the words after the one carrying PktLen down from what it says.
      if (pk_word) rem <= rx_words;
      else if (more) begin
         if (rem == 11'd0) over <= 1'b1;
         else rem <= rem - 11'd1;
      end
   end
end

// The word is registered every clock, valid or not (out_data and out_keep mean
// something only with out_valid): no enable with a fanout of every data bit. The
// header is loaded by the words that carry it (VL: the sop word; PktLen: pk_word) and
// never reset (only a packet long enough to have written it can pass the length check).
always @(posedge clock) begin
   out_data <= data_n;
   out_keep <= keep_n;
   if (first & ~reset) out_vl <= rx_data[7:4];
   if (pk_word & ~reset) hdr_pktlen <= rx_pktlen;
end

// The packet's VL is one this port lacks: VLCap..14.
wire no_such_vl;
generate
if (VLS == 15) begin : all_vls
   // VLCap 15: every VL but 15 is a data VL.
   assign no_such_vl = 1'b0;
end else begin : some_vls
   localparam [3:0] VL_CAP = VLS[3:0];
   assign no_such_vl = (out_vl >= VL_CAP) & (out_vl != 4'd15);
end
endgenerate

// Header-derived, a clock after the capture (every item longer than the word carrying
// PktLen has it by its eop; a shorter one is a length error whatever it holds).
always @(posedge clock) begin
   // PktLen within 6..1048 as plain logic (comparators would become carry chains):
   // >= 6: some bit of [10:3], or [2:1] both set; <= 1048 = 11'b100_0001_1000:
   // bit 10 clear, or bits [9:5] clear and [4:0] <= 24 (not 11xxx with xxx non-zero).
   hd_range_ok <= ((|hdr_pktlen[10:3]) | (&hdr_pktlen[2:1]))
                & (~hdr_pktlen[10] | (~|hdr_pktlen[9:5] & ~(&hdr_pktlen[4:3] & (|hdr_pktlen[2:0]))));
   // (PktLen + 13) >> 4, without a 12-bit sum.
   hd_blocks <= hdr_pktlen[10:4] + {6'd0, hdr_pktlen[3:0] >= 4'd3};
   hd_vl15 <= out_vl == 4'd15;   // management: the VL15 buffer
   hd_bad_vl <= no_such_vl;
end

// ---- Stage 1: the word's CRC contribution; the length verdict ----
// B * word: the data part of the CRC-16 next-state function over KEEP_WIDTH bytes
// (docs/spec.md §3: poly 0x100B, init 0xFFFF, reflected), from the width's VCRC module.
wire [15:0] d_word;
// The last word of a packet of the right length holds the bytes it should.
wire lb_ok;
// What a good packet leaves in the register after its last word (see FOLD_*).
wire [15:0] fold;
// rem on the eop word of a packet of the right length.
wire [10:0] rem_end;

always @(posedge clock) begin
   if (reset) begin
      {s1_valid, s1_eop, s1_len_ok} <= 3'd0;
   end else begin
      s1_valid <= out_valid;
      s1_eop <= out_eop;
      s1_len_ok <= out_eop & ~r0_short & (rem == rem_end) & ~over & lb_ok & hd_range_ok;
   end
   // On the eop word, fold in what a good packet leaves in the register, so that fin is
   // zero exactly when the VCRC is good.
   s1_d <= d_word ^ (out_eop ? fold : 16'h0000);
   s1_vl <= out_vl;
   s1_vl15 <= hd_vl15;
   s1_bad_vl <= hd_bad_vl;
   s1_blocks <= hd_blocks;
end

// ---- Stage 2: the CRC register ----
// A * state: the state part of the next-state function (at most 15 bits each), from the
// width's VCRC module.
wire [15:0] s_state;
wire [15:0] crc_next = s_state ^ s1_d;
wire s1_end = s1_valid & s1_eop;

always @(posedge clock) begin
   // Restart before the next packet's first word (now in stage 0) is absorbed, and after
   // a packet's last word: a synchronous set.
   if (reset | (out_valid & out_sop) | s1_end) state <= 16'hffff;
   else if (s1_valid) state <= crc_next;
   if (s1_end) fin <= crc_next;
   if (reset) begin
      {s2_end, s2_len_ok} <= 2'd0;
   end else begin
      s2_end <= s1_end;
      s2_len_ok <= s1_len_ok;
   end
   s2_vl <= s1_vl;
   s2_vl15 <= s1_vl15;
   s2_bad_vl <= s1_bad_vl;
   s2_blocks <= s1_blocks;
end

// ---- The width's own logic: where PktLen is, the last word's bytes, the VCRC ----
generate
if (DATA_WIDTH == 64) begin : w64
   iblink_link_rx_vcrc_w64 vcrc (
       .data(out_data),
       .state(state),
       .dpart(d_word),
       .spart(s_state)
   );
   // LRH bytes 4-5 are the first word's lanes 4-5.
   assign rx_pktlen = {rx_data[34:32], rx_data[47:40]};
   assign pk_word = first;
   // PktLen / 2, loaded by word 0, less the words after it: 0 on a right eop.
   assign rx_words = {1'b0, rx_pktlen[10:1]};
   assign rem_end = 11'd0;
   // The last word of a packet of the right length holds 2 bytes (PktLen even) or 6.
   assign lb_ok = hdr_pktlen[0] ? (out_keep[5] & ~out_keep[6]) : (out_keep[1] & ~out_keep[2]);
   // Lane 2 tells a 6-byte last word (z = 2) from a 2-byte one (z = 6).
   assign fold = out_keep[2] ? FOLD_PAD2 : FOLD_PAD6;
end else begin : w32
   iblink_link_rx_vcrc_w32 vcrc (
       .data(out_data),
       .state(state),
       .dpart(d_word),
       .spart(s_state)
   );
   // PktLen comes with the word after the sop, which hdr_next marks: LRH bytes 4-5 are
   // the second word's lanes 0-1.
   reg hdr_next;
   initial hdr_next = 1'b0;
   always @(posedge clock) begin
      if (~reset) begin
         if (first) hdr_next <= ~rx_eop;
         else if (more) hdr_next <= 1'b0;
      end
   end
   assign rx_pktlen = {rx_data[2:0], rx_data[15:8]};
   assign pk_word = more & hdr_next;
   // PktLen, loaded by word 1, less the words after it: 1 on a right eop.
   assign rx_words = rx_pktlen;
   assign rem_end = 11'd1;
   // The last word of a packet of the right length holds 2 bytes (the VCRC).
   assign lb_ok = out_keep[1] & ~out_keep[2];
   assign fold = FOLD_PAD2;
end
endgenerate

// ---- Stage 3: the verdict, in the order length, VCRC, VL ----
wire crc_ok = fin == 16'd0;
wire v_length = s2_end & ~s2_len_ok;
wire v_vcrc = s2_len_ok & ~crc_ok;
wire v_bad_vl = s2_len_ok & crc_ok & s2_bad_vl;
wire v_good = s2_len_ok & crc_ok & ~s2_bad_vl;

always @(posedge clock) begin
   if (reset) begin
      {done, acc_valid, vl15_accept} <= 3'd0;
      done_status <= STATUS_GOOD;
      acc_vl <= 4'd0;
      acc_blocks <= 7'd0;
   end else begin
      done <= s2_end;
      if (s2_end) done_status <= v_length ? STATUS_LENGTH : v_vcrc ? STATUS_VCRC : v_bad_vl ? STATUS_BAD_VL : STATUS_GOOD;
      acc_valid <= v_good & ~s2_vl15;   // to the RX credits (docs/spec.md §4)
      vl15_accept <= v_good & s2_vl15;  // to the VL15 buffer: no credits
      // Loaded for every packet of the right length (a register as the enable, not the
      // VCRC verdict): a good one's values come with its accept.
      if (s2_len_ok) begin
         acc_vl <= s2_vl;
         acc_blocks <= s2_blocks;
      end
   end
end

// Counters: saturating statistics of what was shown; a reset (resync) keeps them.
// Each adds its event (0 or 1) on its carry chain, so no enable net fans out to its 16
// flip-flops (nextpnr would route it through a global buffer), and has a flag set as
// it reaches 16'hffff, so the event is gated by one flip-flop, not a 16-bit AND.
wire ev_good = done & (done_status == STATUS_GOOD);          // data VLs and VL15
wire ev_vcrc = done & (done_status == STATUS_VCRC);          // right length, VCRC mismatch
wire ev_length = done & (done_status == STATUS_LENGTH);      // bytes != PktLen*4 + 2, or PktLen out of 6..1048
wire ev_bad_vl = done & (done_status == STATUS_BAD_VL);      // good packet on a VL this port lacks
wire ev_abort = out_abort;                                   // packets cut off before their eop
reg good_count_full;
reg vcrc_error_count_full;
reg length_error_count_full;
reg bad_vl_count_full;
reg abort_count_full;
initial begin
   good_count_full = 1'b0;
   vcrc_error_count_full = 1'b0;
   length_error_count_full = 1'b0;
   bad_vl_count_full = 1'b0;
   abort_count_full = 1'b0;
end
always @(posedge clock) begin
   good_count <= good_count + {15'd0, ev_good & ~good_count_full};
   if (ev_good & (good_count == 16'hfffe)) good_count_full <= 1'b1;
   vcrc_error_count <= vcrc_error_count + {15'd0, ev_vcrc & ~vcrc_error_count_full};
   if (ev_vcrc & (vcrc_error_count == 16'hfffe)) vcrc_error_count_full <= 1'b1;
   length_error_count <= length_error_count + {15'd0, ev_length & ~length_error_count_full};
   if (ev_length & (length_error_count == 16'hfffe)) length_error_count_full <= 1'b1;
   bad_vl_count <= bad_vl_count + {15'd0, ev_bad_vl & ~bad_vl_count_full};
   if (ev_bad_vl & (bad_vl_count == 16'hfffe)) bad_vl_count_full <= 1'b1;
   abort_count <= abort_count + {15'd0, ev_abort & ~abort_count_full};
   if (ev_abort & (abort_count == 16'hfffe)) abort_count_full <= 1'b1;
end

endmodule
`default_nettype wire
