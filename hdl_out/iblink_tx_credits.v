// iblink_tx_credits: emitted by iblink-rtl 0.1.0 (rust-hdl 0.46) from
// crates/rtl/src/tx_credits/iblink_tx_credits.v. Do not edit here:
// edit the source, run `make emit` and review the diff.
// block: tx_credits
// config: parameters = VLS = 1, 2, 4, 8 or 15 (VLCap), CHECK_AHEAD = 0 or 1 (where the check is registered)
`default_nettype none
// iblink_tx_credits: transmitter credits, one set per data VL (docs/spec.md §4, §8).
//
// Per data VL v (generate block vl[v]):
//   fctbs  FCTBS, blocks sent since link init, mod 4096
//   cl     CL, the FCCL of the latest FCP received (0 after link init: nothing goes)
// The head packet of VL v (NP blocks) may go iff (CL - CR) mod 4096 <= 2048, CR = FCTBS + NP.
// credit_ok is that check one clock late, in one of two layouts (CHECK_AHEAD), the same
// cycle behaviour:
//   0  cr_q = CR and cl_q = CL of the previous clock are registered and compared in
//      credit_ok's clock (ok_en: that clock was not a reset). The adder and the compare
//      sit in different clocks: the block alone on iCE40 wants this.
//   1  the check itself is made in the previous clock and registered (ok_q, 0 after a
//      reset), so credit_ok is a flip-flop: the link port sets this, as there credit_ok
//      feeds the arbiter's first stage in the same clock. It is made from D = (CL -
//      FCTBS) mod 4096, beside NP's own adder: as NP < 128 < 2048, it passes iff
//      NP <= D <= NP + 2048. On iCE40 the compares behind D's chain make the block
//      alone larger and slower (docs/synthesis-history.md), hence two layouts.
// Every send is recorded, checked or not: FCTBS counts the blocks that went on the wire.
// A send and an FCP for the same VL in one clock both take effect at that clock's edge.
//
// Cycle contract: fctbs_bus during clock t is FCTBS during t (the registers). credit_ok
// during t is the check of clock t-1 (FCTBS, CL and head_blocks as they were then); 0 in
// the first clock and in the clock after a reset. A new CL from an FCP in clock t shows
// in credit_ok from clock t+2.
module iblink_tx_credits #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4,
    // Where the credit check is registered: 0 its operands, 1 its result (see the top)
    parameter CHECK_AHEAD = 0
) (
    input  wire              clock,
    // Link init or resync (docs/spec.md §8): FCTBS = CL = 0 on every VL
    input  wire              reset,

    // NP of VL v's head packet at [7v+6:7v] (a packet is at most 66 blocks)
    input  wire [7*VLS-1:0]  head_blocks,

    // The head packet of send_vl goes out this clock: FCTBS += its NP.
    // A VL at or above VLCap (VL15 included) is ignored.
    input  wire              send,
    input  wire [3:0]        send_vl,

    // An FCP for fcp_vl was received: CL := fcp_fccl
    input  wire              fcp_valid,
    input  wire [3:0]        fcp_vl,
    input  wire [11:0]       fcp_fccl,

    // Bit v: VL v's head packet passed the credit check in the previous clock
    output wire [VLS-1:0]    credit_ok,
    // FCTBS of VL v at [12v+11:12v] (for the FCP TX framer)
    output wire [12*VLS-1:0] fctbs_bus
);

reg ok_en;
initial ok_en = 1'b0;
always @(posedge clock) ok_en <= ~reset;

genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : vl
      localparam [3:0] VL = v;
      // This VL's selects: VL15 and VLs at or above VLCap hit nothing.
      wire send_hit = send & (send_vl == VL);
      wire fcp_hit = fcp_valid & (fcp_vl == VL);
      reg [11:0] fctbs;
      reg [11:0] cl;
      initial begin
         fctbs = 12'd0;
         cl = 12'd0;
      end
      wire [6:0] np = head_blocks[7*v +: 7];
      // CR: FCTBS once the head packet has gone; it is FCTBS's next value on a send.
      wire [11:0] cr = fctbs + {5'd0, np};
      if (CHECK_AHEAD) begin : ahead
         reg ok_q;
         initial ok_q = 1'b0;
         // (CL - CR) mod 4096 <= 2048 as NP <= D <= NP + 2048, D = (CL - FCTBS) mod 4096:
         // D >= NP, and D < 2048 or D - 2048 <= NP (both compares on NP's 7 bits).
         wire [11:0] d = cl - fctbs;
         wire d_ge_np = (|d[11:7]) | (d[6:0] >= np);
         wire d_top_le_np = ~(|d[10:7]) & (d[6:0] <= np);
         always @(posedge clock) ok_q <= ~reset & d_ge_np & (~d[11] | d_top_le_np);
         assign credit_ok[v] = ok_q;
         // ok_en is the other layout's.
         /* verilator lint_off UNUSEDSIGNAL */
         wire unused_ok_en = ok_en;
         /* verilator lint_on UNUSEDSIGNAL */
      end else begin : behind
         reg [11:0] cr_q;
         reg [11:0] cl_q;
         initial begin
            cr_q = 12'd0;
            cl_q = 12'd0;
         end
         // The pipeline registers load every clock, reset or not.
         always @(posedge clock) begin
            cr_q <= cr;
            cl_q <= cl;
         end
         // (CL - CR) mod 4096: only its top bit is needed (set: 2048 or more).
         wire cl_minus_cr_msb;
         wire [10:0] unused_cl_minus_cr_low;
         assign {cl_minus_cr_msb, unused_cl_minus_cr_low} = cl_q - cr_q;
         // A margin of exactly 2048 also passes; compared off CR so it runs beside CL - CR.
         wire at_window = cr_q == {~cl_q[11], cl_q[10:0]};
         assign credit_ok[v] = ok_en & (~cl_minus_cr_msb | at_window);
      end
      assign fctbs_bus[12*v +: 12] = fctbs;
      always @(posedge clock) begin
         if (reset) begin
            fctbs <= 12'd0;
            cl <= 12'd0;
         end else begin
            if (send_hit) fctbs <= cr;
            if (fcp_hit) cl <= fcp_fccl;
         end
      end
   end
endgenerate

endmodule
`default_nettype wire
