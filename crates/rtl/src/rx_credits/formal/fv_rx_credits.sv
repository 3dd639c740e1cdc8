`default_nettype none
// Formal harness of iblink_rx_credits (docs/spec.md §4, §8), proven on hdl_out/ by `iblink formal`.
//
// Every input is free each clock (any VL number, VL15 and VLs at or above VLCap included;
// any 7-bit block count, 0 and > 66 included; events for several VLs in one clock).
// The harness keeps its own receiver per VL, written from docs/spec.md §4 and the module's
// cycle contract (not from the RTL):
//   ABR   (mod 4096)  += blocks on an accept that fits; := FCTBS on an FCP
//   used  (= CAPACITY - free)  += blocks on an accept that fits (blocks <= free, checked
//         before this clock's drain); -= blocks on a drain, never below 0 (free never
//         rises above CAPACITY); 0 after reset
//   order in one clock: accept, drain, FCP
//   accepted / dropped: the accept of the previous clock fitted / did not (0 after reset)
//   overruns: the overruns of the clocks before this one, saturating at 0xFFFF, kept
//         across reset
// and checks the DUT against it:
//   P1 occupancy: used <= CAPACITY (free = CAPACITY - used in 0..CAPACITY);
//   P2 FCCL: (FCCL - ABR) mod 4096 == min(free, 2048): never past ABR + free, never past
//      ABR + 2048 (docs/spec.md §4);
//   P3 overrun: an accept with blocks > free is dropped and counted, never stored: used
//      and ABR change only by that clock's drain / FCP, `dropped` (not `accepted`) the
//      next clock, overruns + 1 (saturating) (docs/spec.md §4);
//   P4 accept: an accept that fits raises `accepted` (not `dropped`) the next clock, and
//      adds its blocks to ABR (unless an FCP in the same clock sets ABR) and to used;
//   P5 reset (link init / resync, docs/spec.md §8) clears ABR and used (free = CAPACITY), and
//      keeps the overrun counts;
//   plus the per-clock equality of every output and tapped register with the model.
// Taps (not ports): vl[v].abr and vl[v].used per VL, and the per-VL accept flags
// accept_q / no_fit_q, so that induction ties the DUT's state to the model's.
module fv_rx_credits #(
    parameter VLS = 2,
    parameter CAPACITY = 66
) (
    input wire        clock,
    input wire        reset,
    input wire        accept,
    input wire [3:0]  accept_vl,
    input wire [6:0]  accept_blocks,
    input wire        drain,
    input wire [3:0]  drain_vl,
    input wire [6:0]  drain_blocks,
    input wire        fcp_valid,
    input wire [3:0]  fcp_vl,
    input wire [11:0] fcp_fctbs
);

wire              accepted;
wire              dropped;
wire [12*VLS-1:0] fccl;
wire [16*VLS-1:0] overruns;

iblink_rx_credits #(.VLS(VLS), .CAPACITY(CAPACITY)) dut (
    .clock(clock), .reset(reset),
    .accept(accept), .accept_vl(accept_vl), .accept_blocks(accept_blocks),
    .drain(drain), .drain_vl(drain_vl), .drain_blocks(drain_blocks),
    .fcp_valid(fcp_valid), .fcp_vl(fcp_vl), .fcp_fctbs(fcp_fctbs),
    .accepted(accepted), .dropped(dropped), .fccl(fccl), .overruns(overruns)
);

localparam [12:0] CAP = CAPACITY;

reg past_valid = 1'b0;
always @(posedge clock) past_valid <= 1'b1;

// Taps: the DUT's per-VL accept flags (dut.accept_q / dut.no_fit_q, whole vectors).
(* keep *) wire [VLS-1:0] fv_accept_q;
(* keep *) wire [VLS-1:0] fv_no_fit_q;

wire [VLS-1:0] t_accept_q = fv_accept_q;
wire [VLS-1:0] t_no_fit_q = fv_no_fit_q;

// The model's per-VL "previous clock's accept fitted / was dropped", gathered.
wire [VLS-1:0] m_acc;
wire [VLS-1:0] m_drop;

// 13-bit block counts (wide enough that no sum below wraps).
wire [12:0] b = {6'd0, accept_blocks};
wire [12:0] d = {6'd0, drain_blocks};

genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : p
      // ---- the model of VL v (docs/spec.md §4) ----
      reg [11:0] m_abr = 12'd0;
      reg [12:0] m_used = 13'd0;
      reg [15:0] m_ov = 16'd0;
      reg m_acc_r = 1'b0;
      reg m_drop_r = 1'b0;
      assign m_acc[v] = m_acc_r;
      assign m_drop[v] = m_drop_r;

      wire acc_here = accept && accept_vl == v;
      wire drn_here = drain && drain_vl == v;
      wire fcp_here = fcp_valid && fcp_vl == v;
      wire [12:0] m_free = CAP - m_used;
      wire fits = b <= m_free;                    // checked before this clock's drain
      wire [12:0] u1 = (acc_here && fits) ? m_used + b : m_used;
      wire [12:0] u2 = !drn_here ? u1 : (u1 >= d ? u1 - d : 13'd0);  // free <= CAPACITY
      wire [11:0] a1 = (acc_here && fits) ? m_abr + accept_blocks : m_abr;
      wire [11:0] a2 = fcp_here ? fcp_fctbs : a1;
      always @(posedge clock) begin
         if (reset) begin
            m_abr <= 12'd0;
            m_used <= 13'd0;
            m_acc_r <= 1'b0;
            m_drop_r <= 1'b0;
         end else begin
            m_abr <= a2;
            m_used <= u2;
            m_acc_r <= acc_here && fits;
            m_drop_r <= acc_here && !fits;
            if (acc_here && !fits && m_ov != 16'hffff) m_ov <= m_ov + 16'd1;
         end
      end
      // min(free, 2048)
      wire [11:0] m_credit = (m_free >= 13'd2048) ? 12'h800 : m_free[11:0];

      // ---- taps ----
      (* keep *) wire [11:0] fv_abr;                   // dut.vl[v].abr
      (* keep *) wire [$clog2(CAPACITY + 1)-1:0] fv_used;  // dut.vl[v].used
      wire [12:0] used13 = fv_used + 13'd0;
      wire [11:0] abr_t = fv_abr;
      wire [12:0] free13 = CAP - used13;
      wire [11:0] fccl_v = fccl[12*v +: 12];
      wire [15:0] ov_v = overruns[16*v +: 16];

      // ---- properties ----
      // P1: occupancy never exceeds the buffer.
      always @(*) assert(used13 <= CAP);
      // P2: FCCL = ABR + min(free, 2048) mod 4096, on the DUT's own registers.
      always @(*) assert((fccl_v - abr_t) == ((free13 >= 13'd2048) ? 12'h800 : free13[11:0]));
      // The DUT's registers and outputs are the model's (also the induction invariant:
      // abr / used are internal).
      always @(*) assert(abr_t == m_abr);
      always @(*) assert(used13 == m_used);
      always @(*) assert(fccl_v == m_abr + m_credit);
      always @(*) assert(ov_v == m_ov);
      // Induction invariant: the DUT's per-VL flags hold the previous clock's accept.
      always @(*) assert(t_accept_q[v] == (m_acc_r || m_drop_r));
      always @(*) if (t_accept_q[v]) assert(t_no_fit_q[v] == m_drop_r);

      // P3 / P4 / P5, stated on the DUT's own values one clock apart (q_*: the previous
      // clock's values; $past is only allowed in clocked blocks).
      reg [12:0] q_used, q_b, q_d;
      reg [11:0] q_abr, q_fctbs;
      reg [15:0] q_ov;
      reg q_reset, q_acc, q_drn, q_fcp;
      always @(posedge clock) begin
         q_used <= used13; q_b <= b; q_d <= d; q_abr <= abr_t; q_fctbs <= fcp_fctbs;
         q_ov <= ov_v; q_reset <= reset; q_acc <= acc_here; q_drn <= drn_here;
         q_fcp <= fcp_here;
      end
      wire q_fits = q_b <= CAP - q_used;
      wire [12:0] q_after_acc = q_acc && q_fits ? q_used + q_b : q_used;
      wire [12:0] q_drained = !q_drn ? q_after_acc
                            : (q_after_acc >= q_d ? q_after_acc - q_d : 13'd0);
      wire [11:0] q_abr_kept = q_fcp ? q_fctbs : q_abr;
      wire q_drop = !q_reset && q_acc && !q_fits;   // an overrun in the previous clock
      wire q_take = !q_reset && q_acc && q_fits;    // an accept that fitted
      wire [15:0] q_ov_inc = (q_ov == 16'hffff) ? 16'hffff : q_ov + 16'd1;
      // used: the accept if it fitted, then the drain (never below 0); reset clears.
      always @(*) if (past_valid) assert(used13 == (q_reset ? 13'd0 : q_drained));
      // ABR: += blocks only for an accept that fitted; an FCP of the same clock wins.
      always @(*) if (past_valid) assert(abr_t == (q_reset ? 12'd0 : q_take && !q_fcp ? q_abr + q_b[11:0] : q_abr_kept));
      // P3: an overrun is dropped, counted (saturating), and stores nothing (above).
      always @(*) if (past_valid && q_drop) assert(dropped && !accepted);
      always @(*) if (past_valid) assert(ov_v == (q_drop ? q_ov_inc : q_ov));
      // P4: an accept that fits is reported as taken.
      always @(*) if (past_valid && q_take) assert(accepted && !dropped);
      // P5: reset clears ABR and used (free = CAPACITY) and keeps the count (above).
      always @(*) if (past_valid && q_reset) assert(abr_t == 12'd0 && used13 == 13'd0);
   end
endgenerate

// accepted / dropped answer the previous clock's accept (0 after power-up and reset).
always @(*) assert(accepted == |m_acc);
always @(*) assert(dropped == |m_drop);
reg q_reset_any = 1'b0;
always @(posedge clock) q_reset_any <= reset;
always @(*) if (past_valid && q_reset_any) assert(!accepted && !dropped);
// An accept names one VL: at most one flag per clock.
always @(*) assert(!(accepted && dropped));

endmodule
`default_nettype wire
