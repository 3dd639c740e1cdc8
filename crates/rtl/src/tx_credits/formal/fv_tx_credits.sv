`default_nettype none
// Formal harness of iblink_tx_credits (docs/spec.md §4, §8), proven on hdl_out/ by `iblink formal`.
//
// Every input is free each clock. The harness keeps its own FCTBS and CL per VL, written
// from docs/spec.md §4 (not from the RTL), and checks:
//   - FCTBS advances by exactly NP of the sent VL's head packet on a send, mod 4096,
//     and only on a send for that VL (VL15 and VLs at or above VLCap change nothing);
//   - credit_ok[v] is 1 exactly when the check (CL - CR) mod 4096 <= 2048, CR = FCTBS + NP,
//     held for the registers and NP of the previous clock (the module's contract: the
//     check is registered), and that clock was not a reset;
//   - reset clears FCTBS and CL (so nothing may be sent until an FCP arrives: CL = 0).
// Tap: the DUT's CL register per VL (not a port), so that induction can tie it to the
// harness's CL; FCTBS is a port (fctbs_bus).
module fv_tx_credits #(
    parameter VLS = 4,
    // The DUT's layout (iblink_tx_credits: where the check is registered)
    parameter CHECK_AHEAD = 0
) (
    input wire              clock,
    input wire              reset,
    input wire [7*VLS-1:0]  head_blocks,
    input wire              send,
    input wire [3:0]        send_vl,
    input wire              fcp_valid,
    input wire [3:0]        fcp_vl,
    input wire [11:0]       fcp_fccl
);

wire [VLS-1:0]    credit_ok;
wire [12*VLS-1:0] fctbs_bus;

iblink_tx_credits #(.VLS(VLS), .CHECK_AHEAD(CHECK_AHEAD)) dut (
    .clock(clock), .reset(reset), .head_blocks(head_blocks),
    .send(send), .send_vl(send_vl),
    .fcp_valid(fcp_valid), .fcp_vl(fcp_vl), .fcp_fccl(fcp_fccl),
    .credit_ok(credit_ok), .fctbs_bus(fctbs_bus)
);

reg past_valid = 1'b0;
always @(posedge clock) past_valid <= 1'b1;

genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : p
      // docs/spec.md §4: the transmitter's registers for VL v.
      reg [11:0] f_fctbs = 12'd0;
      reg [11:0] f_cl = 12'd0;
      wire [11:0] np = {5'd0, head_blocks[7*v +: 7]};
      always @(posedge clock) begin
         if (reset) begin
            f_fctbs <= 12'd0;
            f_cl <= 12'd0;
         end else begin
            if (send && send_vl == v) f_fctbs <= f_fctbs + np;
            if (fcp_valid && fcp_vl == v) f_cl <= fcp_fccl;
         end
      end
      // The check of docs/spec.md §4 on this clock's registers.
      wire [11:0] f_margin = f_cl - (f_fctbs + np);
      wire f_may_send = f_margin <= 12'd2048;

      (* keep *) wire [11:0] fv_cl;  // tap: dut.vl[v].cl

      // FCTBS is the sum of the NPs sent since reset, mod 4096 (the register is the port).
      always @(*) assert(fctbs_bus[12*v +: 12] == f_fctbs);
      // CL is the FCCL of the latest FCP (an invariant for induction: CL is internal).
      always @(*) assert(fv_cl == f_cl);
      // credit_ok is the previous clock's check, and 0 after power-up or a reset.
      always @(posedge clock)
         if (past_valid) assert(credit_ok[v] == (!$past(reset) && $past(f_may_send)));
      always @(*) if (!past_valid) assert(!credit_ok[v]);
   end
endgenerate

endmodule
`default_nettype wire
