`default_nettype none
// iblink_tx_credits: transmitter credits, one set per data VL (docs/spec.md §4, §8).
//
// Per data VL v (generate block vl[v]):
//   fctbs  FCTBS, blocks sent since link init, mod 4096
//   cl     CL, the FCCL of the latest FCP received (0 after link init: nothing goes)
//   ok_q   the check of the previous clock, 0 if that clock was a reset
// The head packet of VL v (NP blocks) may go iff (CL - CR) mod 4096 <= 2048, CR = FCTBS + NP.
// credit_ok is that check one clock late, straight from ok_q, so the arbiter's first
// stage starts at a flip-flop. The check is made from D = (CL - FCTBS) mod 4096, which
// runs beside NP's own adder: as NP < 128 < 2048, it passes iff NP <= D <= NP + 2048.
// Every send is recorded, checked or not: FCTBS counts the blocks that went on the wire.
// A send and an FCP for the same VL in one clock both take effect at that clock's edge.
//
// Cycle contract: fctbs_bus during clock t is FCTBS during t (the registers). credit_ok
// during t is the check of clock t-1 (FCTBS, CL and head_blocks as they were then); 0 in
// the first clock and in the clock after a reset. A new CL from an FCP in clock t shows
// in credit_ok from clock t+2.
module iblink_tx_credits #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4
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

genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : vl
      localparam [3:0] VL = v;
      // This VL's selects: VL15 and VLs at or above VLCap hit nothing.
      wire send_hit = send & (send_vl == VL);
      wire fcp_hit = fcp_valid & (fcp_vl == VL);
      reg [11:0] fctbs;
      reg [11:0] cl;
      reg ok_q;
      initial begin
         fctbs = 12'd0;
         cl = 12'd0;
         ok_q = 1'b0;
      end
      wire [6:0] np = head_blocks[7*v +: 7];
      // CR: FCTBS once the head packet has gone; it is FCTBS's next value on a send.
      wire [11:0] cr = fctbs + {5'd0, np};
      // (CL - CR) mod 4096 <= 2048 as NP <= D <= NP + 2048, D = (CL - FCTBS) mod 4096:
      // D >= NP, and D < 2048 or D - 2048 <= NP (both compares on NP's 7 bits).
      wire [11:0] d = cl - fctbs;
      wire d_ge_np = (|d[11:7]) | (d[6:0] >= np);
      wire d_top_le_np = ~(|d[10:7]) & (d[6:0] <= np);
      always @(posedge clock) ok_q <= ~reset & d_ge_np & (~d[11] | d_top_le_np);
      assign credit_ok[v] = ok_q;
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
