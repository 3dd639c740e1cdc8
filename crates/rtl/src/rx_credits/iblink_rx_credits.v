`default_nettype none
// iblink_rx_credits: receiver credits, one set per data VL (docs/spec.md §4, §8; seed 000
// "Credit Limit Calculation").
//
// Per data VL v (generate block vl[v]):
//   abr            ABR, Adjusted Blocks Received, mod 4096: += blocks on accept,
//                  := FCTBS on FCP
//   used           blocks held, CAPACITY - free (free is the Free Space Count,
//                  0..CAPACITY): += blocks on accept, -= blocks on drain; 0 at power-up
//                  and after reset (an FPGA flip-flop powers up at 0: a register starting
//                  at CAPACITY would need an inverter between it and every chain)
//   overrun_count  packets dropped for lack of space up to the previous clock (16 bits,
//                  saturating; kept across resync: they are statistics)
// FCCL = (ABR + min(free, 2048)) mod 4096.
//
// In one clock the events for a VL apply in the order accept (checked against free
// before this clock's drain), drain (free never rises above CAPACITY), FCP (ABR takes
// the FCP's FCTBS). VL numbers at or above VLCap (VL15 included) are ignored.
//
// used is a loop (accept check, drain, clamp at CAPACITY, all in one clock), so it
// cannot be pipelined without changing which packets fit. Instead every outcome is
// computed side by side from the register and this clock's inputs, each on one carry
// chain, and carry-outs pick one: used + a + SPARE passes 2^FB when the packet does not
// fit (a > free); used - d and used + a - d go negative when a drain would take free
// above CAPACITY. Sums of three operands go through one carry-save LUT level into a
// single chain. No enable or set/reset net drives more than 15 flip-flops (nextpnr-ice40
// would move it onto a global buffer, a detour): used has at most 12 bits, and each
// overrun counter is fed from registers only.
//
// Cycle contract: fccl during clock t is FCCL from the registers during t (the events
// of clocks up to t-1). accepted / dropped during t say whether the accept of clock t-1
// was taken / was a buffer overrun (0 after a clock with reset). overruns during t
// counts the overruns of clocks up to t-1.
module iblink_rx_credits #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4,
    // Buffer blocks per VL: 66 (one largest packet) to 4095 (a 12-bit count)
    parameter CAPACITY = 256
) (
    input  wire              clock,
    // Link init or resync (docs/spec.md §8): ABR = 0, free = CAPACITY; overrun counts are kept
    input  wire              reset,

    // A data packet of accept_blocks arrived for accept_vl: if it fits, ABR += blocks
    // and free -= blocks; if not, it is dropped and counted
    input  wire              accept,
    input  wire [3:0]        accept_vl,
    input  wire [6:0]        accept_blocks,

    // The higher layer took a packet of drain_blocks out of drain_vl's buffer:
    // free += blocks (never above CAPACITY)
    input  wire              drain,
    input  wire [3:0]        drain_vl,
    input  wire [6:0]        drain_blocks,

    // An FCP for fcp_vl was received: ABR := fcp_fctbs
    input  wire              fcp_valid,
    input  wire [3:0]        fcp_vl,
    input  wire [11:0]       fcp_fctbs,

    // The accept of the previous clock was taken / was dropped (a buffer overrun)
    output wire              accepted,
    output wire              dropped,
    // FCCL of VL v at [12v+11:12v]
    output wire [12*VLS-1:0] fccl,
    // Overruns of VL v at [16v+15:16v], saturating at 0xFFFF
    output wire [16*VLS-1:0] overruns
);

localparam FB = $clog2(CAPACITY + 1);  // bits of used
localparam [FB-1:0] CAP = CAPACITY[FB-1:0];
localparam [FB-1:0] SPARE = ~CAP;  // 2^FB - 1 - CAPACITY

// Per VL, registered: an accept for this VL in the previous clock, and its carry-out
// (it did not fit). accepted and dropped are decoded from them (flip-flops next to each
// VL's chain rather than one flip-flop collecting carry-outs from every VL).
reg [VLS-1:0] accept_q;
reg [VLS-1:0] no_fit_q;
initial begin
   accept_q = {VLS{1'b0}};
   no_fit_q = {VLS{1'b0}};
end
// The block counts, FB+1 bits wide (the top bit is the sign of a difference).
wire [FB:0] a = {{(FB-6){1'b0}}, accept_blocks};
wire [FB:0] d = {{(FB-6){1'b0}}, drain_blocks};
wire [FB-1:0] a_lo = a[FB-1:0];
wire [FB-1:0] d_lo = d[FB-1:0];
wire [VLS-1:0] accepts;
wire [VLS-1:0] no_fits;

genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : vl
      localparam [3:0] VL = v;
      reg [11:0] abr;
      reg [FB-1:0] used;
      reg [15:0] overrun_count;
      initial begin
         abr = 12'd0;
         used = {FB{1'b0}};
         overrun_count = 16'd0;
      end
      // This clock's events for this VL (kept as nets: the decodes are early, and each
      // late carry-out meets them in the LUTs after the chains).
      (* keep *) wire accept_here = accept & (accept_vl == VL);
      (* keep *) wire drain_here = drain & (drain_vl == VL);
      (* keep *) wire fcp_here = fcp_valid & (fcp_vl == VL);
      // Accept: used + a + SPARE >= 2^FB exactly when a > free (an overrun); only the
      // carry-out of this sum is used.
      wire [FB-1:0] fit_s = used ^ a_lo ^ SPARE;
      wire [FB-1:0] fit_c = (used & a_lo) | (used & SPARE) | (a_lo & SPARE);
      wire no_fit;
      wire [FB-1:0] fit_sum_unused;
      assign {no_fit, fit_sum_unused} = {1'b0, fit_s} + {fit_c, 1'b0};
      assign accepts[v] = accept_here;
      assign no_fits[v] = no_fit;
      // The outcomes, each on its own chain from the register and the raw inputs:
      // accept alone, used + a; accept and drain, used + a - d = used + a + ~d + 1 (a
      // carry-save level, sum s and carries c, then s + {c, 1}); drain alone, used - d.
      // A negative result is the clamp: draining more than is held cannot raise free
      // above the buffer size.
      wire [FB-1:0] acc_used = used + a_lo;
      wire [FB:0] both_s = {1'b0, used} ^ a ^ ~d;
      wire [FB-1:0] both_c = (used & a_lo) | (used & ~d_lo) | (a_lo & ~d_lo);
      wire [FB:0] both_used = both_s + {both_c, 1'b1};
      wire [FB:0] dr_used = {1'b0, used} - d;
      // The late accept decision selects between two values prepared from early
      // terms (kept as nets, so the select is one LUT after the carry-out, into the
      // data input, and not folded into a shared term). Each hold value goes
      // through an AND with the inverted select of its branch (a no-op there), so that
      // synthesis does not turn the hold into a clock enable driven by the carry-out
      // (the iCE40 enable pin is a slow route).
      wire [FB-1:0] if_took = drain_here ? (both_used[FB] ? {FB{1'b0}} : both_used[FB-1:0]) : acc_used;
      wire [FB-1:0] if_not = drain_here ? (dr_used[FB] ? {FB{1'b0}} : dr_used[FB-1:0]) : used & {FB{~drain_here}};
      (* keep *) wire [11:0] abr_if_not = fcp_here ? fcp_fctbs : abr & {12{~fcp_here}};
      (* keep *) wire [11:0] abr_if_fits = accept_here ? (fcp_here ? fcp_fctbs : abr + {5'd0, accept_blocks}) : abr_if_not;
      always @(posedge clock) begin
         if (reset) begin
            // Link init or resync (docs/spec.md §8): ABR = 0, free = CAPACITY.
            used <= {FB{1'b0}};
            abr <= 12'd0;
         end else begin
            // Events in the order accept, drain, FCP.
            // (Written with the carry-out as the outer select, so that it is the
            // last LUT input rather than part of a shared accept-and-fits term.)
            used <= accept_here ? (no_fit ? if_not : if_took) : if_not;
            abr <= no_fit ? abr_if_not : abr_if_fits;
         end
      end
      // Overruns: the count is one clock behind, and the output adds the overrun the
      // flags above registered in the previous clock (saturating at 0xFFFF); the count
      // then takes that output. So the counter is fed from registers only, not from
      // this clock's carry-out, and shows each overrun in the next clock as the
      // contract says.
      wire pending_overrun = accept_q[v] & no_fit_q[v];
      wire [15:0] overruns_now = overrun_count + {15'd0, pending_overrun & ~(&overrun_count)};
      always @(posedge clock) overrun_count <= overruns_now;
      assign overruns[16*v +: 16] = overruns_now;
      // FCCL = ABR + min(free, 2048), with free = CAPACITY - used = ~used + CAPACITY + 1.
      if (CAPACITY >= 2048) begin : capped
         // min(free, 2048): free >= 2048 exactly when used <= CAPACITY - 2048.
         wire window = used <= CAP - 12'd2048;
         wire [11:0] credit = window ? 12'h800 : CAP - used;
         assign fccl[12*v +: 12] = abr + credit;
      end else begin : uncapped
         // free < 2048 always: abr + ~used + (CAPACITY + 1), one carry-save level, one
         // chain.
         localparam [11:0] CAP_PLUS_1 = CAPACITY[11:0] + 12'd1;
         wire [11:0] nused = {{(12-FB){1'b1}}, ~used};
         wire [11:0] fccl_s = abr ^ nused ^ CAP_PLUS_1;
         wire [10:0] fccl_c = (abr[10:0] & nused[10:0]) | (abr[10:0] & CAP_PLUS_1[10:0]) | (nused[10:0] & CAP_PLUS_1[10:0]);
         assign fccl[12*v +: 12] = fccl_s + {fccl_c, 1'b0};
      end
   end
endgenerate

// accepted / dropped from flip-flops of their own, decoded from the same clock's
// accept and carry-outs that accept_q / no_fit_q take: the failsafe's overrun count
// starts from a register, not from an OR over every VL's flags.
reg accepted_q;
reg dropped_q;
initial begin
   accepted_q = 1'b0;
   dropped_q = 1'b0;
end
assign accepted = accepted_q;
assign dropped = dropped_q;

always @(posedge clock) begin
   accept_q <= reset ? {VLS{1'b0}} : accepts;
   no_fit_q <= no_fits;
   accepted_q <= ~reset & |(accepts & ~no_fits);
   dropped_q <= ~reset & |(accepts & no_fits);
end

endmodule
`default_nettype wire
