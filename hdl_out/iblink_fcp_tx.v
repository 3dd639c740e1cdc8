// iblink_fcp_tx: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/fcp_tx/iblink_fcp_tx.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: fcp_tx
// config: parameters = VLS = 1, 2, 4, 8 or 15 (VLCap); DATA_WIDTH = 32 or 64; KEEP_WIDTH = DATA_WIDTH/8
// config: timer_bits = 16
// config: latency_due_to_pending = 2
// config: sample_to_sop = 1
`default_nettype none
// iblink_fcp_tx: FCP transmit framer and scheduler (docs/spec.md §2, §3, §5).
//
// Chooses the next data VL due an FCP (its refresh period passed, or its FCCL changed
// and the minimum gap passed; refresh first, then round robin after the last VL sent),
// keeps that FCP built in the pend_* registers (reloaded from the inputs every clock)
// and streams it when the link TX mux grants it with fcp_start. Bytes (docs/spec.md §2, §3):
// header Op<<28 | FCTBS<<16 | VL<<12 | FCCL big-endian, then its LPCRC (iblink_lpcrc,
// generated from the CRC equations), low byte first. At 32 bits word 0 is bytes 0-3
// (keep 4'b1111) and word 1 the LPCRC (keep 4'b0011); at 64 bits one word, bytes 0-5
// (keep 8'h3F). Every stream output is 0 while fcp_valid is 0.
//
// Scheduling without per-VL timers: one free-running 16-bit now; a VL's two deadlines
// (refresh, minimum gap) are values of now, and a flag is set in the clock after now
// equals the deadline and held until the VL's next start. A period c counts from the
// clock its FCP's last beat moves on the wire (fcp_done from the mux, docs/spec.md §10),
// L: it ends at L + c - START_TO_DONE, START_TO_DONE being the clocks from an FCP's
// start to its last beat on a wire that never stalls, so on such a wire it ends c
// clocks after the start, as it did when periods counted from the start. The deadline
// is taken at fcp_done (now + c - 1 - START_TO_DONE); until then the VL's FCP is on
// its way (a small queue of the FCPs started and not yet done, oldest first) and its
// flag stays clear whatever the wire does. A period of START_TO_DONE clocks or less
// (a test setting) ends before the FCP could have left: it counts from the start
// (deadline now + c - 1, taken at the start), as before. Both reach the VL's register a
// clock later, and are compared as registered copies in that clock. The
// round robin is kept as masks (the VLs after a VL) and one-hot VLs, so a search is
// masks, a prefix OR and an encoder. Two registers hold VLs: next (chosen one FCP ahead,
// as if the FCPs ahead of it were already sent) and pending (the built FCP); both
// searches, with and without this clock's start, run side by side and the late
// fcp_start selects one, so due VLs go back to back.
//
// Cycle contract: fcp_start in clock p while fcp_pending: the first word is on fcp_* in
// clock p (combinational from fcp_start; everything else is a register or a gated
// register), at 32 bits the second word from p+1 until the clock the mux takes it
// (fcp_ready; the mux's pipeline stalls with the wire, docs/spec.md §10). The FCP carries link_state, fctbs and
// fccl as driven in clock p-1. With nothing pending or chosen, a VL whose refresh falls
// due in clock t is pending in t+2; an FCCL change driven in t (gap passed) in t+3.
// After restart (or LINK_DOWN) in clock r nothing is pending from r+1 and VL0's FCP is
// pending in r+3. refresh_clocks and min_gap_clocks are registered and apply to each VL
// from its next FCP (change them together with restart); 0 acts as 1. fcp_done acts in
// its own clock (its deadline counts from its edge); FCPs started and not done are
// forgotten with restart (the mux drops them with the same reset).
module iblink_fcp_tx #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4,
    // Link word width: 32 or 64
    parameter DATA_WIDTH = 32,
    parameter KEEP_WIDTH = DATA_WIDTH/8
) (
    input  wire                  clock,
    // Link init or resync (docs/spec.md §8): every VL due at once (round robin from VL0);
    // the FCP being chosen or pending is dropped (one already started finishes)
    input  wire                  restart,
    // Link state code: 0 LINK_DOWN (held in restart), 1 LINK_INIT (Op 1),
    // 2 LINK_ARM, 3 LINK_ACTIVE (Op 0)
    input  wire [1:0]            link_state,

    // A VL is refresh-due this many clocks after its last FCP started
    input  wire [15:0]           refresh_clocks,
    // A VL whose FCCL changed is due this many clocks after its last FCP started
    input  wire [15:0]           min_gap_clocks,

    // This port's FCTBS (TX credits) and FCCL (RX credits) of VL v at [12v+11:12v]
    input  wire [12*VLS-1:0]     fctbs,
    input  wire [12*VLS-1:0]     fccl,

    // From the link TX mux: the pending FCP's first word goes out this clock; the mux
    // takes the word on fcp_* this clock (32 bits: the second word holds until then)
    input  wire                  fcp_start,
    input  wire                  fcp_ready,
    // From the link TX mux: the last beat of the oldest FCP started and not yet done
    // moves on the wire this clock (FCPs leave in the order they started)
    input  wire                  fcp_done,
    // A fully built FCP waits for fcp_start, and its VL (0 while none)
    output reg                   fcp_pending,
    output reg  [3:0]            pending_vl,

    // FCP words on the link word stream (fcp_link set on every FCP word)
    output reg                   fcp_valid,
    output reg                   fcp_sop,
    output reg                   fcp_eop,
    output reg                   fcp_link,
    output reg  [DATA_WIDTH-1:0] fcp_data,
    output reg  [KEEP_WIDTH-1:0] fcp_keep
);

// link_state codes (iblink_rtl::link).
localparam [1:0] LINK_DOWN = 2'd0;
localparam [1:0] LINK_INIT = 2'd1;

localparam [VLS-1:0] NO_VL = {VLS{1'b0}};
localparam [VLS-1:0] ALL_VLS = {VLS{1'b1}};
// Clocks from an FCP's start to its last beat on a wire that never stalls (the mux's
// start to wire, 4 clocks, and its words after the first: iblink_rtl::fcp_tx::START_TO_DONE).
localparam [15:0] START_TO_DONE = (DATA_WIDTH == 32) ? 16'd5 : 16'd4;
// FCPs on their way at most: one starts in every moving clock at most (every second at
// 32 bits) and the oldest is done in the START_TO_DONE-th moving clock after its start.
localparam FLIGHT = (DATA_WIDTH == 32) ? 3 : 4;

// The time base of the per-VL deadlines: counts every clock, wrapping.
reg [15:0] now;
// The configuration as a start uses it: c - 1, and c <= 1. Registered, so it takes
// effect a clock late: change it together with restart.
reg [15:0] refresh_m1;
reg refresh_le1;
reg [15:0] gap_m1;
reg gap_le1;
// The same from the last beat: c <= START_TO_DONE (counts from the start), c - 1 -
// START_TO_DONE, and c <= START_TO_DONE + 1 (the flag is set at fcp_done).
reg refresh_short;
reg [15:0] refresh_md;
reg refresh_led;
reg gap_short;
reg [15:0] gap_md;
reg gap_led;
// The FCPs started and not yet done, oldest in [VLS-1:0], each its VL one-hot (0: none).
reg [FLIGHT*VLS-1:0] flight;
// Round robin: the VLs at or after the one following the last VL sent (all after a
// restart). A mask rather than a number, so the search needs no adder or shifter.
reg [VLS-1:0] rr_from;
// next: the VL to build when the pending FCP starts (or when nothing is pending),
// one-hot, and the mask of the VLs after it (its number is encoded from next_oh when it
// moves into pend_vl, so the search does not end in an encoder).
reg next_valid;
reg [VLS-1:0] next_oh;
reg [VLS-1:0] next_above;
// pending: the built FCP (Op is 1 when pend_init), reloaded from the inputs every clock,
// and its VL one-hot and the mask of the VLs after it.
reg pend_valid;
reg [3:0] pend_vl;
reg [VLS-1:0] pend_oh;
reg [VLS-1:0] pend_above;
reg pend_init;
reg [11:0] pend_fctbs;
reg [11:0] pend_fccl;

initial begin
   now = 16'd0;
   refresh_m1 = 16'd0;
   refresh_le1 = 1'b0;
   gap_m1 = 16'd0;
   gap_le1 = 1'b0;
   refresh_short = 1'b0;
   refresh_md = 16'd0;
   refresh_led = 1'b0;
   gap_short = 1'b0;
   gap_md = 16'd0;
   gap_led = 1'b0;
   rr_from = ALL_VLS;
   next_valid = 1'b0;
   next_oh = NO_VL;
   next_above = NO_VL;
   pend_valid = 1'b0;
   pend_vl = 4'd0;
   pend_oh = NO_VL;
   pend_above = NO_VL;
   pend_init = 1'b0;
   pend_fctbs = 12'd0;
   pend_fccl = 12'd0;
end

always @(posedge clock) begin
   now <= now + 16'd1;
   // c - 1 wraps to 65535 for c = 0; harmless: with c <= 1 a start sets the flag at
   // once (le1) and only a start clears it, so that deadline never matters. (A zero
   // test here would clear 16 flip-flops through one net on a global buffer.)
   refresh_m1 <= refresh_clocks - 16'd1;
   refresh_le1 <= refresh_clocks <= 16'd1;
   gap_m1 <= min_gap_clocks - 16'd1;
   gap_le1 <= min_gap_clocks <= 16'd1;
   // Only used when c > START_TO_DONE: then c - 1 - START_TO_DONE does not wrap.
   refresh_short <= refresh_clocks <= START_TO_DONE;
   refresh_md <= refresh_clocks - 16'd1 - START_TO_DONE;
   refresh_led <= refresh_clocks <= START_TO_DONE + 16'd1;
   gap_short <= min_gap_clocks <= START_TO_DONE;
   gap_md <= min_gap_clocks - 16'd1 - START_TO_DONE;
   gap_led <= min_gap_clocks <= START_TO_DONE + 16'd1;
end

// Link init or resync, or the link is down: every VL due at once, nothing pending.
wire restart_all = restart | (link_state == LINK_DOWN);
// The pending FCP can start (at 32 bits: not while its predecessor's second word goes).
wire pending;
// The mux takes the pending FCP: its first word goes out now, the scheduler commits.
wire take = fcp_start & pending;
wire [VLS-1:0] commit = take ? pend_oh : NO_VL;

// Deadlines for a start in this clock: the model's since_last is 1 in the next clock
// and reaches c (c >= 1) in the clock after the one in which now is now + c - 1.
wire [15:0] refresh_at = now + refresh_m1;
wire [15:0] gap_at = now + gap_m1;
// Deadlines for a last beat in this clock (a period longer than START_TO_DONE).
wire [15:0] refresh_done_at = now + refresh_md;
wire [15:0] gap_done_at = now + gap_md;

// The FCPs on their way: a VL's is (in_flight), and the oldest one's last beat moves now
// and no later FCP of its VL is on its way (done_oh: its periods count from now).
reg [VLS-1:0] in_flight;
reg [VLS-1:0] later;
integer f;
always @(*) begin
   in_flight = NO_VL;
   later = NO_VL;
   for (f = 0; f < FLIGHT; f = f + 1) in_flight = in_flight | flight[VLS*f +: VLS];
   for (f = 1; f < FLIGHT; f = f + 1) later = later | flight[VLS*f +: VLS];
end
wire [VLS-1:0] done_oh = fcp_done ? flight[VLS-1:0] & ~later : NO_VL;
// The queue: the oldest leaves with fcp_done (the rest move down), then a started FCP
// joins in the first empty entry (entries are filled from 0 up).
wire [FLIGHT*VLS-1:0] flight_shift = fcp_done ? {{VLS{1'b0}}, flight[FLIGHT*VLS-1:VLS]} : flight;
wire [FLIGHT-1:0] shift_used;
wire [FLIGHT*VLS-1:0] flight_next;
genvar e;
generate
   for (e = 0; e < FLIGHT; e = e + 1) begin : fl
      assign shift_used[e] = |flight_shift[VLS*e +: VLS];
      if (e == 0) begin : first
         assign flight_next[VLS*e +: VLS] = shift_used[e] ? flight_shift[VLS*e +: VLS] : commit;
      end else begin : rest
         assign flight_next[VLS*e +: VLS] = (shift_used[e] | ~shift_used[e-1]) ? flight_shift[VLS*e +: VLS] : commit;
      end
   end
endgenerate
initial flight = {FLIGHT*VLS{1'b0}};
always @(posedge clock) flight <= restart_all ? {FLIGHT*VLS{1'b0}} : flight_next;

// The deadlines a start or a last beat stores reach the VL's registers a clock late,
// from these registers (commit_q, and refresh_done_q / gap_done_q: the VLs whose
// deadline comes from the last beat): so the late fcp_start and fcp_done enable only
// each VL's flags and last_fccl, not its 32 deadline flip-flops. In that clock the
// VL's deadline register is stale, and its compares are made against these values
// (one compare each, shared: one VL starts and one FCP is done a clock).
reg [VLS-1:0] commit_q;
reg [VLS-1:0] refresh_done_q;
reg [VLS-1:0] gap_done_q;
reg [15:0] refresh_at_q;
reg [15:0] gap_at_q;
reg [15:0] refresh_done_at_q;
reg [15:0] gap_done_at_q;
initial begin
   commit_q = NO_VL;
   refresh_done_q = NO_VL;
   gap_done_q = NO_VL;
   refresh_at_q = 16'd0;
   gap_at_q = 16'd0;
   refresh_done_at_q = 16'd0;
   gap_done_at_q = 16'd0;
end
always @(posedge clock) begin
   commit_q <= restart_all ? NO_VL : commit;
   refresh_done_q <= (restart_all | refresh_short) ? NO_VL : done_oh;
   gap_done_q <= (restart_all | gap_short) ? NO_VL : done_oh;
   refresh_at_q <= refresh_at;
   gap_at_q <= gap_at;
   refresh_done_at_q <= refresh_done_at;
   gap_done_at_q <= gap_done_at;
end
wire now_at_refresh_q = now == refresh_at_q;
wire now_at_gap_q = now == gap_at_q;
wire now_at_refresh_done_q = now == refresh_done_at_q;
wire now_at_gap_done_q = now == gap_done_at_q;

// Per data VL, in generate block vl[v]. A flag is set in the clock after now reaches
// its deadline and stays set until the VL's next start (deadlines are at most 65535
// clocks ahead, so the first match is the right one); no counter or compare per VL.
//   refresh_deadline, refresh_due   the model's refresh_due (its period has passed)
//   gap_deadline, gap_ok            the model's gap_passed
//   last_fccl                       the FCCL this VL's last FCP carried
//   changed                         the FCCL of the previous clock differs from last_fccl
//                                   (registered: no compare in front of the round robin)
wire [VLS-1:0] refresh_due;
wire [VLS-1:0] change_due;   // FCCL differed from last_fccl a clock ago, and gap_ok
genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : vl
      reg [15:0] refresh_deadline;
      reg [15:0] gap_deadline;
      reg due_q;
      reg gap_ok;
      reg [11:0] last_fccl;
      reg changed;
      initial begin
         changed = 1'b0;
         refresh_deadline = 16'd0;
         gap_deadline = 16'd0;
         due_q = 1'b1;
         gap_ok = 1'b1;
         last_fccl = 12'd0;
      end
      assign refresh_due[v] = due_q;
      assign change_due[v] = changed & gap_ok;
      wire [11:0] fccl_now = fccl[12*v +: 12];
      // now equals the deadline (the one stored in the previous clock while it is on its
      // way into the register: a start's wins, as it did when stored at once).
      wire at_refresh = commit_q[v] ? now_at_refresh_q
                      : refresh_done_q[v] ? now_at_refresh_done_q : now == refresh_deadline;
      wire at_gap = commit_q[v] ? now_at_gap_q
                  : gap_done_q[v] ? now_at_gap_done_q : now == gap_deadline;
      always @(posedge clock) begin
         if (commit_q[v]) refresh_deadline <= refresh_at_q;
         else if (refresh_done_q[v]) refresh_deadline <= refresh_done_at_q;
         if (commit_q[v]) gap_deadline <= gap_at_q;
         else if (gap_done_q[v]) gap_deadline <= gap_done_at_q;
         // Against last_fccl as this edge leaves it.
         changed <= (commit[v] & ~restart_all) ? fccl_now != pend_fccl : fccl_now != last_fccl;
         if (restart_all) begin
            due_q <= 1'b1;
            gap_ok <= 1'b1;
         end else if (commit[v]) begin
            // The model's on_sent, then this clock's tick (the deadlines follow from
            // refresh_at_q / gap_at_q).
            last_fccl <= pend_fccl;
            due_q <= refresh_le1;
            gap_ok <= gap_le1;
         end else begin
            // A long period: its deadline is taken at the last beat, and is stale until
            // then.
            if (done_oh[v] & ~refresh_short) due_q <= refresh_led;
            else if (at_refresh && (refresh_short || !in_flight[v])) due_q <= 1'b1;
            if (done_oh[v] & ~gap_short) gap_ok <= gap_led;
            else if (at_gap && (gap_short || !in_flight[v])) gap_ok <= 1'b1;
         end
      end
   end
endgenerate

// The lowest set bit of vec: {below, one-hot}, below[k] = a bit of vec under k is set
// (the VLs after the lowest one).
function [2*VLS-1:0] lowest;
   input [VLS-1:0] vec;
   reg [VLS-1:0] below;
   integer k;
   begin
      below[0] = 1'b0;
      for (k = 1; k < VLS; k = k + 1) below[k] = below[k-1] | vec[k-1];
      lowest = {below, vec & ~below};
   end
endfunction

// One round-robin search (the model's next_due): the lowest VL of the first non-empty
// vector among refresh-due VLs at or after `from`, all refresh-due VLs, changed VLs at
// or after `from`, all changed VLs. Returns {found, after it, it one-hot}. The four
// lowest-bit searches run side by side and the non-empty flags select one, rather than
// selecting a vector first and searching it after.
function [2*VLS:0] pick;
   input [VLS-1:0] rdue;
   input [VLS-1:0] cdue;
   input [VLS-1:0] from;
   reg [2*VLS-1:0] l0, l1, l2, l3;
   begin
      l0 = lowest(rdue & from);
      l1 = lowest(rdue);
      l2 = lowest(cdue & from);
      l3 = lowest(cdue);
      if (|(rdue & from)) pick = {1'b1, l0};
      else if (|rdue) pick = {1'b1, l1};
      else if (|(cdue & from)) pick = {1'b1, l2};
      else pick = {|cdue, l3};
   end
endfunction

// The number of a one-hot VL vector (0 for none).
function [3:0] vl_of;
   input [VLS-1:0] oh;
   integer k;
   begin
      vl_of = 4'd0;
      for (k = 0; k < VLS; k = k + 1)
         if (oh[k]) vl_of = vl_of | k[3:0];
   end
endfunction

// The next VL is chosen as if the FCPs ahead of it were already sent: they are excluded
// and round robin starts after the last of them. Both cases are searched; the late
// fcp_start only selects between them.
// No start this clock: the VL pending after the edge (pending, else next) is ahead.
wire [VLS-1:0] excl0 = pend_valid ? pend_oh : next_valid ? next_oh : NO_VL;
wire [VLS-1:0] from0 = pend_valid ? pend_above : next_valid ? next_above : rr_from;
wire [2*VLS:0] pick0 = pick(refresh_due & ~excl0, change_due & ~excl0, from0);
// The pending FCP starts now: it and the next one are ahead.
wire [VLS-1:0] excl1 = pend_oh | (next_valid ? next_oh : NO_VL);
wire [VLS-1:0] from1 = next_valid ? next_above : pend_above;
wire [2*VLS:0] pick1 = pick(refresh_due & ~excl1, change_due & ~excl1, from1);

// The builder: refresh the pending VL's FCP, or build the next VL's when it moves in.
// Both VLs' FCTBS and FCCL are selected side by side and keep_pend (behind the late
// fcp_start) chooses last, so the start is one LUT from these registers.
wire keep_pend = pend_valid & ~take;
wire [VLS-1:0] build_oh = keep_pend ? pend_oh : next_oh;
reg [11:0] pend_sel_fctbs;
reg [11:0] pend_sel_fccl;
reg [11:0] next_sel_fctbs;
reg [11:0] next_sel_fccl;
integer b;
always @(*) begin
   pend_sel_fctbs = 12'd0;
   pend_sel_fccl = 12'd0;
   next_sel_fctbs = 12'd0;
   next_sel_fccl = 12'd0;
   for (b = 0; b < VLS; b = b + 1) begin
      pend_sel_fctbs = pend_sel_fctbs | (fctbs[12*b +: 12] & {12{pend_oh[b]}});
      pend_sel_fccl = pend_sel_fccl | (fccl[12*b +: 12] & {12{pend_oh[b]}});
      next_sel_fctbs = next_sel_fctbs | (fctbs[12*b +: 12] & {12{next_oh[b]}});
      next_sel_fccl = next_sel_fccl | (fccl[12*b +: 12] & {12{next_oh[b]}});
   end
end
wire [11:0] build_fctbs = keep_pend ? pend_sel_fctbs : next_sel_fctbs;
wire [11:0] build_fccl = keep_pend ? pend_sel_fccl : next_sel_fccl;

always @(posedge clock) begin
   pend_vl <= keep_pend ? pend_vl : vl_of(next_oh);
   pend_oh <= build_oh;
   pend_above <= keep_pend ? pend_above : next_above;
   pend_init <= link_state == LINK_INIT;  // docs/spec.md §5: Op 1 in LinkInitialize, else 0
   pend_fctbs <= build_fctbs;
   pend_fccl <= build_fccl;
   if (restart_all) begin
      rr_from <= ALL_VLS;
      next_valid <= 1'b0;
      next_oh <= NO_VL;
      next_above <= NO_VL;
      pend_valid <= 1'b0;
   end else begin
      if (take) rr_from <= pend_above;
      {next_valid, next_above, next_oh} <= take ? pick1 : pick0;
      pend_valid <= keep_pend | next_valid;
   end
end

// The pending FCP's bytes 0-3 in wire order (byte k in [8k+7:8k]): the header
// Op<<28 | FCTBS<<16 | VL<<12 | FCCL, big-endian (docs/spec.md §2).
wire [31:0] hdr = {pend_fccl[7:0], pend_vl, pend_fccl[11:8], pend_fctbs[7:0], 3'b000, pend_init, pend_fctbs[11:8]};
// Its LPCRC (docs/spec.md §3): the generated XOR equations (iblink_lpcrc); bytes 4-5 on the
// wire, low byte first. hdr[7:5] (the Op's upper bits) are 0 and fold away.
wire [15:0] lpcrc;
iblink_lpcrc lpcrc_eq (
    .head(hdr),
    .lpcrc(lpcrc)
);

generate
   if (DATA_WIDTH == 32) begin : w32
      // The second word (the LPCRC, in crc_q) goes out this clock.
      reg busy;
      reg [15:0] crc_q;
      initial begin
         busy = 1'b0;
         crc_q = 16'd0;
      end
      assign pending = pend_valid & ~busy;

      // The LPCRC goes a clock after the header (registered when the FCP starts) and
      // stays until the mux takes it.
      always @(posedge clock) begin
         busy <= take | (busy & ~fcp_ready);
         if (take) crc_q <= lpcrc;
      end

      // Word 0: bytes 0-3; word 1: bytes 4-5. Every output is 0 between FCP words.
      always @(*) begin
         fcp_pending = pending;
         pending_vl = pending ? pend_vl : 4'd0;
         fcp_valid = take | busy;
         fcp_sop = take;
         fcp_eop = busy;
         fcp_link = take | busy;
         fcp_keep = take ? 4'b1111 : busy ? 4'b0011 : 4'b0000;
         fcp_data = take ? hdr : busy ? {16'd0, crc_q} : 32'd0;
      end
   end else begin : w64
      // One word, taken with fcp_start: fcp_ready plays no part.
      wire unused_fcp_ready = fcp_ready;
      assign pending = pend_valid;

      // One word: bytes 0-5. Every output is 0 between FCPs.
      always @(*) begin
         fcp_pending = pending;
         pending_vl = pending ? pend_vl : 4'd0;
         fcp_valid = take;
         fcp_sop = take;
         fcp_eop = take;
         fcp_link = take;
         fcp_keep = take ? 8'h3f : 8'h00;
         fcp_data = take ? {16'd0, lpcrc, hdr} : 64'd0;
      end
   end
endgenerate

endmodule
`default_nettype wire
