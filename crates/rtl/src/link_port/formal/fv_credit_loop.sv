`default_nettype none
// Proven split (`split = true` in ../formal.toml; crates/formal/src/split.rs): one proof
// per assertion, which asserts it and assumes every other one at the previous clock and
// those of a lower rank (`// NAME: rank N, uses A B` after an assertion) in the same
// clock; proven together they are the whole harness, by induction on time and, within a
// clock, on rank. Whole, its induction step does not finish (z3 4.8 or 5.x, cvc5 1.0,
// ABC pdr; docs/formal.md). The credit bounds go through ghosts of the blocks in flight
// and lost (g_fl, g_lost) and a chain of one-event lemmas (ranks 2-4, below).
// Formal harness of the credit loop (docs/spec.md §4, §5, §8), proven on hdl_out/ by
// `iblink formal`: one iblink_tx_credits and one iblink_rx_credits, one data VL, joined
// by an abstract link. Every choice of the link and of both ends is free each clock:
//   - the transmitter's head packet (1..66 blocks) and whether it goes; it goes only as
//     iblink_tx_credits' cycle contract allows (credit_ok during t is the check of clock
//     t-1, so: credit_ok, no send in t-1, the same head as in t-1);
//   - data on the link, in order, each piece arriving or lost; the pieces are any split
//     or merge of the blocks sent (1..66 blocks each), which covers every packet
//     boundary;
//   - the transmitter's FCP (its FCTBS) in order with the data, arriving or lost; a newer
//     one sent while one is in flight makes the older one lost;
//   - the receiver's FCP (its FCCL), arriving after any delay or lost, the same way;
//   - the higher layer draining any blocks from the receive buffer, any clock;
//   - link init (docs/spec.md §8): both ends reset, the link emptied.
// In one clock the receiver applies accept, drain, FCP (its cycle contract), so a data
// piece sent after an FCP never arrives in the clock that FCP does (on the wire the FCP
// ends first, and link RX takes longer over a data packet than FCP RX over an FCP).
//
// Properties:
//   P1 no overrun: the receiver never drops a packet for lack of space (`dropped` is
//      never 1), and every block in flight has room waiting: used + in flight <= CAPACITY;
//   P2 conservation: ABR + blocks in flight + blocks lost since the last FCTBS taken =
//      FCTBS (mod 4096), split at the FCP in flight, if one is; so once an FCP sent after
//      the last loss has arrived, both ends agree: ABR = FCTBS - blocks in flight, and
//      ABR = FCTBS when the link is empty (P2b).
// The inductive invariant (left out of planted-bug runs) is the credit one, with every
// quantity as an unwrapped distance so that no modular compare is ambiguous:
//   c = (CL - FCTBS) mod 4096;  F = blocks in flight;  L = blocks lost since the last sync
//   I1  c + F + L <= min(free, 2048)       (so c <= 2048: CL is never behind FCTBS)
//   I2  an FCCL in flight, W: c <= (W - FCTBS) mod 4096 and (W - FCTBS) + F + L <= min(free, 2048)
//       (FCCL never falls: an accept moves ABR and free together, a drain raises free, an
//       FCP moves ABR forward by the blocks lost; so the CL the transmitter holds and every
//       FCCL on the way are at most today's ABR + min(free, 2048))
//   I3  the transmitter's registered check is the previous clock's check.
// Taps (not ports): tx.vl[0].cl, tx.vl[0].ahead.ok_q, rx.vl[0].abr, rx.vl[0].used.
module fv_credit_loop #(
    parameter CAPACITY = 66
) (
    input wire        clock,
    // Link init or resync of both ends (docs/spec.md §8): the link is emptied
    input wire        link_init,
    // The transmitter's head packet, and whether it goes this clock
    input wire [6:0]  head_np,
    input wire        send,
    // The data piece at the head of the link leaves it: step_np blocks, arrived or lost
    input wire        data_step,
    input wire [6:0]  step_np,
    input wire        data_lost,
    // The transmitter's FCP: sent (FCTBS now), arrives, is lost
    input wire        tfcp_send,
    input wire        tfcp_arrive,
    input wire        tfcp_lost,
    // The receiver's FCP: sent (FCCL now), arrives, is lost
    input wire        rfcp_send,
    input wire        rfcp_arrive,
    input wire        rfcp_lost,
    // The higher layer takes drain_np blocks from the receive buffer
    input wire        drain,
    input wire [6:0]  drain_np
);

// Widths: no quantity the invariant bounds exceeds RMAX = min(CAPACITY, 2048) blocks, so
// the link's counters have GW bits (room for RMAX plus one packet before a bug is seen)
// and sums of them AW bits; FCTBS, ABR, CL and FCCL keep docs/spec.md's 12 bits.
localparam ROOM_MAX = CAPACITY < 2048 ? CAPACITY : 2048;
localparam GW = $clog2(ROOM_MAX + 1) + 1;
localparam AW = GW + 2;
localparam [AW-1:0] CAP = CAPACITY;
localparam [AW-1:0] RMAX = ROOM_MAX;

// ---- the link's state (harness) ----
reg [11:0] v_fctbs = 12'd0;   // the transmitter's FCP in flight carries this FCTBS
reg        v_pend = 1'b0;
reg [11:0] w_fccl = 12'd0;    // the receiver's FCP in flight carries this FCCL
reg        w_pend = 1'b0;
reg [GW-1:0] f_before = 0;  // data blocks in flight sent before the FCP in flight (all, if none)
reg [GW-1:0] f_after = 0;    // data blocks in flight sent after it
reg [GW-1:0] lost = 0;       // data blocks lost since the receiver last took an FCTBS

// Ghosts: CL - FCTBS and (FCCL in flight) - FCTBS as plain numbers.
reg [AW-1:0] g_c = 0;
reg [AW-1:0] g_cw = 0;
wire arrive = data_step & ~data_lost;
wire [GW-1:0] step_g = data_step ? step_np : 7'd0;

// ---- the two ends ----
wire        credit_ok;
wire [11:0] fctbs;
wire        accepted;
wire        dropped;
wire [11:0] fccl;
wire [15:0] overruns;

// In the layout the link port uses (the check registered as a result).
iblink_tx_credits #(.VLS(1), .CHECK_AHEAD(1)) tx (
    .clock(clock), .reset(link_init),
    .head_blocks(head_np),
    .send(send), .send_vl(4'd0),
    .fcp_valid(rfcp_arrive), .fcp_vl(4'd0), .fcp_fccl(w_fccl),
    .credit_ok(credit_ok), .fctbs_bus(fctbs)
);

iblink_rx_credits #(.VLS(1), .CAPACITY(CAPACITY)) rx (
    .clock(clock), .reset(link_init),
    .accept(arrive), .accept_vl(4'd0), .accept_blocks(step_np),
    .drain(drain), .drain_vl(4'd0), .drain_blocks(drain_np),
    .fcp_valid(tfcp_arrive), .fcp_vl(4'd0), .fcp_fctbs(v_fctbs),
    .accepted(accepted), .dropped(dropped), .fccl(fccl), .overruns(overruns)
);

// ---- taps ----
(* keep *) wire [11:0] fv_cl;     // tx.vl[0].cl
(* keep *) wire        fv_ok_q;   // tx.vl[0].ahead.ok_q
(* keep *) wire [11:0] fv_abr;    // rx.vl[0].abr
(* keep *) wire [$clog2(CAPACITY + 1)-1:0] fv_used;  // rx.vl[0].used

// ---- the previous clock (harness) ----
reg        past_valid = 1'b0;
reg        q_init = 1'b0;
reg        q_send = 1'b0;
reg [6:0]  q_np = 7'd0;
reg [11:0] q_fctbs = 12'd0;
reg [11:0] q_cl = 12'd0;
always @(posedge clock) begin
   past_valid <= 1'b1;
   q_init <= link_init;
   q_send <= send;
   q_np <= head_np;
   q_fctbs <= fctbs;
   q_cl <= fv_cl;
end

// ---- what the environment does (assumptions) ----
// A packet is 1..66 blocks (docs/spec.md §1: PktLen 6..1048).
always @(*) assume(head_np >= 7'd1 && head_np <= 7'd66);
// The transmitter sends only what iblink_tx_credits' cycle contract allows.
always @(*) if (send) assume(credit_ok && past_valid && !q_init && !q_send && head_np == q_np);
// Data leaves the link in order: a piece of what was sent before the FCP in flight.
always @(*) if (data_step) assume(step_np >= 7'd1 && step_np <= 7'd66 && step_np <= f_before);
// The transmitter's FCP arrives after every block sent before it (this clock's piece
// may be the last of them), or is lost; only one of the two.
always @(*) if (tfcp_arrive) assume(v_pend && f_before == step_g);
always @(*) if (tfcp_lost) assume(v_pend && !tfcp_arrive);
// The receiver's FCP arrives or is lost, once.
always @(*) if (rfcp_arrive) assume(w_pend);
always @(*) if (rfcp_lost) assume(w_pend && !rfcp_arrive);

// ---- the link's next state ----
// This clock's piece leaves; the FCP in flight arrives (the data behind it is now at the
// head; the receiver has taken FCTBS, so nothing is lost since) or is lost (the data
// behind it joins the data before it); a new FCP from the transmitter goes behind all
// data sent so far (an older one still in flight is lost); this clock's send goes last.
wire [GW-1:0] fb1 = f_before - step_g;
wire [GW-1:0] lost1 = data_lost ? lost + step_g : lost;
wire        v_gone = tfcp_arrive | tfcp_lost;
wire [GW-1:0] fb2 = tfcp_arrive ? f_after : tfcp_lost ? fb1 + f_after : fb1;
wire [GW-1:0] fa2 = v_gone ? {GW{1'b0}} : f_after;
wire        vp2 = v_pend & ~v_gone;
wire [GW-1:0] fb3 = (tfcp_send & vp2) ? fb2 + fa2 : fb2;
wire [GW-1:0] fa3 = (tfcp_send & vp2) ? {GW{1'b0}} : fa2;
wire        vp3 = vp2 | tfcp_send;
wire [GW-1:0] np_g = send ? head_np : 7'd0;
always @(posedge clock) begin
   if (link_init) begin
      v_pend <= 1'b0;
      w_pend <= 1'b0;
      f_before <= 0;
      f_after <= 0;
      lost <= 0;
   end else begin
      f_before <= vp3 ? fb3 : fb3 + np_g;
      f_after <= vp3 ? fa3 + np_g : fa3;
      lost <= tfcp_arrive ? {GW{1'b0}} : lost1;
      v_pend <= vp3;
      if (tfcp_send) v_fctbs <= fctbs;
      w_pend <= (w_pend & ~rfcp_arrive & ~rfcp_lost) | rfcp_send;
      if (rfcp_send) w_fccl <= fccl;
   end
end

// ---- properties ----
// Ghost of the receiver's occupancy, from docs/spec.md §4 (accept if it fits, then drain, never
// below 0).
reg [AW-1:0] g_used = 0;
wire [AW-1:0] g_u1 = (arrive && {{(AW-7){1'b0}}, step_np} <= CAP - g_used) ? g_used + step_np : g_used;
wire [AW-1:0] g_dn = {{(AW-7){1'b0}}, drain_np};
wire [AW-1:0] g_used_n = drain ? (g_u1 >= g_dn ? g_u1 - g_dn : 0) : g_u1;
always @(posedge clock) g_used <= link_init ? 0 : g_used_n;
wire [AW-1:0] used_a = g_used;
wire [AW-1:0] free_a = CAP - used_a;
// min(free, 2048) for an occupancy u <= CAPACITY (asserted below for g_used); with
// CAPACITY <= 2048 that is free itself, and the constant select leaves a plain difference.
function [AW-1:0] room_of(input [AW-1:0] u);
   room_of = (CAPACITY <= 2048) ? CAP - u : (CAP - u >= RMAX) ? RMAX : CAP - u;
endfunction
wire [AW-1:0] room = room_of(g_used);
wire [AW-1:0] in_flight = {2'd0, f_before} + {2'd0, f_after};
wire [AW-1:0] unsynced = in_flight + {2'd0, lost};
wire [AW-1:0] np_a = send ? head_np : 7'd0;
wire [AW-1:0] step_a = {2'd0, step_g};
// CL - FCTBS and (FCCL in flight) - FCTBS next clock: the CL the transmitter holds after
// this clock's FCP (x_c), the FCCL in flight after this clock's FCP (x_cw), less NP sent.
wire [AW-1:0] x_c = rfcp_arrive ? g_cw : g_c;
wire [AW-1:0] x_cw = rfcp_send ? room - unsynced : g_cw;
wire [AW-1:0] g_c_n = x_c - np_a;
wire [AW-1:0] g_cw_n = x_cw - np_a;
always @(posedge clock) begin
   if (link_init) begin
      g_c <= 0;
      g_cw <= 0;
   end else begin
      g_c <= g_c_n;
      g_cw <= g_cw_n;
   end
end
wire w_pend_n = (w_pend & ~rfcp_arrive & ~rfcp_lost) | rfcp_send;
// Ghosts of the blocks in flight and lost, moved by the clock's events only (none of the
// link's muxes), asserted equal to the link's counters; the credit bounds read them.
reg [AW-1:0] g_fl = 0;
reg [AW-1:0] g_lost = 0;
wire [AW-1:0] fl_1 = g_fl + np_a;                                   // after the send
wire [AW-1:0] fl_2 = fl_1 - step_a;                                 // after the data step
wire [AW-1:0] lost_2 = data_lost ? g_lost + step_a : g_lost;
wire [AW-1:0] lost_3 = tfcp_arrive ? {AW{1'b0}} : lost_2;           // after the FCTBS taken
always @(posedge clock) begin
   g_fl <= link_init ? 0 : fl_2;
   g_lost <= link_init ? 0 : lost_3;
end
// The credit bounds as sums that cannot wrap (SW bits hold four AW-bit terms):
//   X + in flight + lost <= room  <=>  X + in flight + lost + (RMAX - room) <= RMAX,
// and the same sums after each of the clock's events in turn (send, data step, drain),
// so that each step of the induction is one small lemma.
localparam SW = AW + 2;
wire [SW-1:0] rest_0 = {2'd0, g_fl} + {2'd0, g_lost} + {2'd0, RMAX - room};
wire [SW-1:0] rest_1 = {2'd0, fl_1} + {2'd0, g_lost} + {2'd0, RMAX - room};
wire [SW-1:0] rest_2 = {2'd0, fl_2} + {2'd0, lost_2} + {2'd0, RMAX - room_of(g_u1)};
wire [SW-1:0] rest_4 = {2'd0, fl_2} + {2'd0, lost_3} + {2'd0, RMAX - room_of(g_used_n)};
wire [SW-1:0] load_c = {2'd0, g_c} + rest_0;
wire [SW-1:0] load_cw = {2'd0, g_cw} + rest_0;
wire [SW-1:0] load_xc = {2'd0, x_c} + rest_0;
wire [SW-1:0] load_xcw = {2'd0, x_cw} + rest_0;
wire [SW-1:0] load_c_n = {2'd0, g_c_n} + rest_4;
wire [SW-1:0] load_cw_n = {2'd0, g_cw_n} + rest_4;
wire [SW-1:0] np_s = {2'd0, np_a};
// The counters modulo 4096, for sums with ABR and FCTBS.
wire [11:0] fb12 = f_before;
wire [11:0] fa12 = f_after;
wire [11:0] lost12 = lost;

// P1: no overrun.
always @(*) assert(!dropped);
always @(*) assert(fv_used == g_used);
always @(*) assert(used_a <= CAP && used_a + in_flight <= CAP); // used:
// P2: conservation of blocks, split at the transmitter's FCP in flight.
always @(*) if (v_pend) assert(fv_abr + fb12 + lost12 == v_fctbs && v_fctbs + fa12 == fctbs);
always @(*) if (!v_pend) assert(f_after == 0 && fv_abr + fb12 + lost12 == fctbs);
// P2b: nothing in flight, nothing lost since the last FCTBS taken: both ends agree.
always @(*) if (!v_pend && in_flight == 0 && lost == 0) assert(fv_abr == fctbs);

`ifndef IBLINK_FV_PLANTED
// The inductive invariant (above).
wire [11:0] c12 = fv_cl - fctbs;
wire [AW-1:0] c = c12;      // (c12 <= RMAX: asserted below)
wire [11:0] cw12 = w_fccl - fctbs;
wire [AW-1:0] cw = cw12;
always @(*) assert(c12 <= ROOM_MAX);
wire [11:0] g_c12 = g_c;
wire [11:0] g_cw12 = g_cw;
always @(*) assert(c12 == g_c12);
always @(*) if (w_pend) assert(cw12 == g_cw12);
always @(*) if (send) assert(g_c >= head_np);
always @(*) assert(g_c + unsynced <= room); // bc_room: rank 2
always @(*) if (w_pend) assert(cw12 <= ROOM_MAX);
always @(*) if (w_pend) assert(g_c <= g_cw);
always @(*) if (w_pend) assert(g_cw + unsynced <= room); // bcw_room: rank 2
// FCTBS moves only by the previous clock's send; link init clears both ends.
always @(*) if (past_valid && !q_init) assert(fctbs == q_fctbs + (q_send ? {5'd0, q_np} : 12'd0));
always @(*) if (q_init) assert(fctbs == 12'd0 && fv_cl == 12'd0 && fv_abr == 12'd0 && fv_used == 0);
// The registered check is the previous clock's (docs/spec.md §4), 0 after link init.
wire [11:0] q_margin = q_cl - (q_fctbs + {5'd0, q_np});
always @(*) assert(fv_ok_q == (past_valid && !q_init && q_margin <= 12'd2048));
// The previous clock's CL lies between FCTBS and CL (CL never falls).
always @(*) if (past_valid && !q_send && !q_init) assert(q_cl - fctbs <= c12);
// The ghosts of the link's counters (rank 0: from the previous clock).
always @(*) assert(g_fl == in_flight); // fl:
always @(*) assert(g_lost == {2'd0, lost}); // lost:
// The credit bounds as sums (rank 1: each is the previous clock's last lemma below); the
// two bounds above (rank 2) follow from them in the same clock.
always @(*) assert(load_c <= RMAX); // bc: rank 1
always @(*) if (w_pend) assert(load_cw <= RMAX); // bcw: rank 1
// The clock's events one at a time (ranks 2-4, each from the lower ranks in the same clock):
// the FCP from the receiver, the send (moves NP from the credit to the link), the data
// step (moves blocks from the link to the buffer or to lost), the FCTBS taken and the
// drain (both only lower the sum); so the sums next clock are still bounded.
always @(*) if (!link_init) assert(load_xc <= RMAX); // xc: rank 2, uses bc bcw
always @(*) if (send) assert(x_c >= np_a); // nc: rank 2
always @(*) if (!link_init && w_pend_n) assert(load_xcw <= RMAX); // xcw: rank 3, uses bc_room bcw fl lost used
always @(*) if (send && w_pend_n) assert(x_cw >= np_a); // nw: rank 3
always @(*) assert(rest_1 == rest_0 + np_s); // r1: rank 3
always @(*) assert(rest_2 <= rest_1); // r2: rank 3
always @(*) assert(rest_4 <= rest_2); // r4: rank 3
always @(*) if (!link_init) assert(load_c_n <= RMAX); // fc: rank 4, uses xc nc r1 r2 r4
always @(*) if (!link_init && w_pend_n) assert(load_cw_n <= RMAX); // fcw: rank 4, uses xcw nw r1 r2 r4
`endif

endmodule
`default_nettype wire
