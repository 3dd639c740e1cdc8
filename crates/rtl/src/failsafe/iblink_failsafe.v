`default_nettype none
// iblink_failsafe: the transmitter-detected flow-control update monitor and the
// receiver-detected buffer-overrun threshold (docs/spec.md §8; seed 001 "Failsafe
// Mechanisms"), both of which request a link resync.
//
// One clock is one step of the reference model: reset() if reset, on_fcp / on_overrun
// for this clock's strobes, tick(); a trip resyncs the port, which resets the failsafe.
//   timer      the shared period clock: clocks into the current FCP period
//   timer_m1   timer - 1; timer_is0: timer == 0 (kept beside timer, for the compares below)
// Per data VL v, in generate block vl[v]:
//   phase_m1   timer in the clock of the VL's last FCP, minus one (phase_is0: that timer
//              was 0): whenever timer is back at it, a whole period has passed since that
//              FCP (a boundary)
//   at_phase   timer == phase in this clock, computed a clock ahead
//   upd_left   update monitor: boundaries left before a resync (loaded with update_periods);
//              upd_is1: upd_left == 1, computed a clock ahead
//   late       no FCP for more than one period (a boundary has passed)
//   seen       an overrun in the current period
//   run        the last period ended with overruns
//   consec     consecutive periods with overruns
//   trip_u     this clock's update-monitor trip; trip: this clock's trip, either reason
// The update monitor needs no timer per VL: an FCP stores the shared timer as the VL's
// phase, and every later clock where timer equals it again is a whole period since that
// FCP; upd_left counts those boundaries down, and the trip is the boundary that finds
// upd_left == 1. Every compare is made a clock ahead and registered, so that a trip is a
// few gates behind flip-flops.
//
// Cycle contract (clock t is one model step): resync_req is set during clock t+2 when
// clock t's tick trips, with resync_reason and resync_vl (held until the next request);
// the block resets itself after a trip (clock t+1 starts from the reset state).
// overrun_seen, overrun_run and fcp_late during clock t+1 are the state after clock t.
// A clock with reset is a whole step from the reset state; the first clock after
// power-up acts as a reset. The configuration inputs may change only in a clock with
// reset.
module iblink_failsafe #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4
) (
    input  wire           clock,
    // Link init or resync (docs/spec.md §8): the model's reset(), applied as this clock starts;
    // this clock's strobes still count
    input  wire           reset,

    // A good FCP for upd_vl arrived (the FCP RX framer's strobe)
    input  wire           upd_valid,
    input  wire [3:0]     upd_vl,
    // A data packet for overrun_vl was dropped for lack of buffer space
    input  wire           overrun,
    input  wire [3:0]     overrun_vl,

    // Configuration, read every clock; change it only in a clock with reset.
    // Clocks in one FCP period (65536 / bytes per clock; 0 acts as 1)
    input  wire [15:0]    period_clocks,
    // Resync when no FCP arrives for a VL for more than this many periods (0: off)
    input  wire [15:0]    update_periods,
    // Resync when a VL has overruns in more than this many consecutive periods
    input  wire [15:0]    overrun_periods,

    // One-clock strobe: the failsafe tripped, the port resyncs
    output reg            resync_req,
    // Why, held until the next request: 0 = no flow-control update, 1 = overrun threshold
    output reg            resync_reason,
    // The VL that tripped, held with resync_reason
    output reg  [3:0]     resync_vl,
    // Bit v: VL v had an overrun in the current period so far
    output wire [VLS-1:0] overrun_seen,
    // Bit v: VL v's last period ended with overruns
    output wire [VLS-1:0] overrun_run,
    // Bit v: no FCP for VL v for more than one period
    output wire [VLS-1:0] fcp_late
);

// One-hot VL selects (VL15 and VLs at or above VLCap hit nothing).
localparam [VLS-1:0] VL0_HOT = 1;
wire [VLS-1:0] upd_hit = upd_valid ? VL0_HOT << upd_vl : {VLS{1'b0}};
wire [VLS-1:0] ovr_hit = overrun ? VL0_HOT << overrun_vl : {VLS{1'b0}};
wire [VLS-1:0] trip_u_w;
wire [VLS-1:0] trip_w;
wire [VLS-1:0] trip_nr;  // this clock's trips if it has no reset (before their registers)
reg started;
reg [15:0] timer;
reg [15:0] timer_m1;
reg timer_is0;
// Registered: does the period end with this clock, if no reset starts it over (timer + 1
// >= period_clocks, computed a clock ahead so the compare is not behind the reset mux).
reg end_q;
// period_clocks - 2, as last clock's configuration had it.
reg [15:0] p_m2;
initial begin
   started = 1'b0;
   timer = 16'd0;
   timer_m1 = 16'hffff;
   timer_is0 = 1'b1;
   end_q = 1'b0;
   p_m2 = 16'd0;
   resync_req = 1'b0;
   resync_reason = 1'b0;
   resync_vl = 4'd0;
end
// The previous clock tripped: the port resyncs and with it the failsafe, so this clock
// starts from the reset state (model: the port's resync() calls failsafe.reset()). The
// first clock after power-up does too.
// (Registered as one bit: the OR of every VL's trip is not in front of the reset fan-out.)
reg fresh;
initial fresh = 1'b0;
wire rst = reset | fresh | ~started;
// The period ends with this clock when timer + 1 >= period_clocks, with timer 0 in a
// reset (0 acts as 1, as in the model): from a reset that is period_clocks <= 1, else end_q. The configuration
// changes only in a clock with reset (see the module doc), so end_q, computed with last
// clock's period_clocks, holds.
// (As reductions: Yosys maps a compare with a constant to a carry chain, and these are in
// front of every trip.)
wire p_le_1 = ~|period_clocks[15:1];
wire p_le_2 = ~|period_clocks[15:2] & ~&period_clocks[1:0];
wire period_end = rst ? p_le_1 : end_q;
wire op_is0 = overrun_periods == 16'd0;
wire op_is1 = overrun_periods == 16'd1;
// overrun_periods - 1, as last clock's configuration had it (this clock's outside a
// reset, where it is used): consec + 1 == overrun_periods is consec == op_m1.
reg [15:0] op_m1;
initial op_m1 = 16'hffff;
always @(posedge clock) op_m1 <= overrun_periods - 16'd1;
// In a reset clock only the overrun threshold can trip: a one-clock period, an overrun
// and overrun_periods 0. So the OR of the trips is taken for a clock without a reset,
// and rst selects last (not in front of every VL's trip logic and the OR).
wire trip_in_reset = p_le_1 & (|ovr_hit) & op_is0;
always @(posedge clock) fresh <= rst ? trip_in_reset : |trip_nr;
wire [15:0] timer_inc = timer + 16'd1;
// timer + 2 >= period_clocks, as timer >= period_clocks - 2 against last clock's
// configuration (this clock's outside a reset, where it is used): one carry chain
// between registers instead of an adder feeding a compare. (period_clocks < 2 never
// gets here: every clock then ends a period, and end_q stays p_le_1.)
always @(posedge clock) p_m2 <= period_clocks - 16'd2;
wire end_next = timer >= p_m2;
// update_periods 0 turns the update monitor off. Registered: it is only used outside a
// reset clock (a boundary needs one), where the configuration is last clock's.
reg monitor_on;
initial monitor_on = 1'b0;
always @(posedge clock) begin
   started <= 1'b1;
   // The next clock's timer is 0 (a period ends), 1 (a reset started one), or timer + 1;
   // end_q is then whether that timer + 1 reaches period_clocks.
   timer <= period_end ? 16'd0 : rst ? 16'd1 : timer_inc;
   timer_m1 <= period_end ? 16'hffff : rst ? 16'd0 : timer;
   timer_is0 <= period_end | (~rst & (&timer));
   end_q <= period_end ? p_le_1 : rst ? p_le_2 : end_next;
   monitor_on <= update_periods != 16'd0;
end
genvar v;
generate
   for (v = 0; v < VLS; v = v + 1) begin : vl
      reg [15:0] phase_m1;
      reg phase_is0;
      reg at_phase;
      reg [15:0] upd_left;
      reg upd_is1;
      reg [15:0] consec;
      reg at_thr;
      reg late;
      reg seen;
      reg run;
      reg trip_u;
      reg trip;
      initial begin
         phase_m1 = 16'hffff;
         phase_is0 = 1'b1;
         at_phase = 1'b1;
         upd_left = 16'd0;
         upd_is1 = 1'b0;
         consec = 16'd0;
         at_thr = 1'b0;
         late = 1'b0;
         seen = 1'b0;
         run = 1'b0;
         trip_u = 1'b0;
         trip = 1'b0;
      end
      // An FCP for this VL, or a reset: the VL counts as refreshed in this clock.
      wire anchor = rst | upd_hit[v];
      // A whole period since the VL's last FCP ends with this clock.
      wire boundary = ~anchor & at_phase;
      // upd_left - 1 from the register alone: the strobes only enable and select it.
      wire [15:0] upd_dec = upd_left - 16'd1;
      // An overrun in this period, this clock's included.
      wire ev = (seen & ~rst) | ovr_hit[v];
      // docs/spec.md §8 "more than N periods" without an FCP: the N-th boundary.
      wire trip_upd = monitor_on & boundary & upd_is1;
      // docs/spec.md §8 overruns in "more than N consecutive periods": the (N+1)-th in a row.
      // (rst selects between the zero test and at_thr, consec == overrun_periods.)
      wire trip_ovr = period_end & ev & (rst ? op_is0 : at_thr);
      always @(posedge clock) begin
         // The phase is this clock's timer: 0 after a reset, else timer.
         if (anchor) begin
            phase_m1 <= rst ? 16'hffff : timer_m1;
            phase_is0 <= rst | timer_is0;
         end
         // Next clock's timer == phase. The next timer is 0 when the period ends, else 1
         // after a reset or timer + 1; the next phase is this clock's timer after an anchor. So
         // with an anchor they are equal only when the period ends and that timer is 0; without
         // one, timer + 1 == phase is timer == phase - 1: no adder in front of the compare.
         at_phase <= anchor ? period_end & (rst | timer_is0)
                            : period_end ? phase_is0 : (timer == phase_m1);
         // A boundary takes one off. The decrement is made from the register alone and
         // the strobes only enable and select (anchor overrides at_phase, so boundary is
         // not needed): not the carry-in of a 16-bit chain. Written as an enable: as a
         // three-way select, or with at_phase subtracted as an arithmetic term, Yosys
         // mapped the ECP5 ports with far more LUTs and wide muxes.
         if (anchor | at_phase) upd_left <= anchor ? update_periods : upd_dec;
         upd_is1 <= anchor ? (update_periods == 16'd1)
                           : boundary ? (upd_left == 16'd2) : (upd_left == 16'd1);
         // Cleared by an FCP or reset, set by a boundary: plain logic, so no clock enable
         // (on iCE40 a late enable goes through a global buffer).
         late <= ~anchor & (late | boundary);
         seen <= ev & ~period_end;
         run <= period_end ? ev : (run & ~rst);
         // After a reset the count starts from 0, so it is 1 or 0: the increment works on
         // the register alone and rst selects after it (not a carry chain behind rst).
         consec <= rst ? {15'd0, period_end & ev}
                       : period_end ? (ev ? consec + 16'd1 : 16'd0) : consec;
         // Next clock's consec == overrun_periods, beside consec's own update (so the
         // 16-bit compare is not in front of the trip): after a reset consec is 1 or 0,
         // at a period end consec + 1 or 0, else it and the configuration hold.
         at_thr <= rst ? (period_end & ev ? op_is1 : op_is0)
                       : period_end ? (ev ? consec == op_m1 : op_is0) : at_thr;
         trip_u <= trip_upd;
         trip <= trip_upd | trip_ovr;
      end
      assign trip_u_w[v] = trip_u;
      assign trip_w[v] = trip;
      // trip_upd | trip_ovr when rst is 0: anchor is the FCP strobe, the period ends with
      // end_q and the overrun count is consec (at_thr: it equals overrun_periods).
      assign trip_nr[v] = (monitor_on & ~upd_hit[v] & at_phase & upd_is1)
                        | (end_q & (seen | ovr_hit[v]) & at_thr);
      assign fcp_late[v] = late;
      assign overrun_seen[v] = seen;
      assign overrun_run[v] = run;
   end
endgenerate

// The VL of the lowest set bit.
function [3:0] lowest_vl;
   input [VLS-1:0] x;
   integer k;
   begin
      lowest_vl = 4'd0;
      for (k = VLS - 1; k >= 0; k = k - 1)
         if (x[k]) lowest_vl = k[3:0];
   end
endfunction

// The request, a clock after the trips: the model's order is the update monitor first,
// then the overrun threshold, lowest VL first. Reason and VL hold until the next one.
always @(posedge clock) begin
   resync_req <= fresh;
   if (fresh) begin
      resync_reason <= ~|trip_u_w;
      resync_vl <= |trip_u_w ? lowest_vl(trip_u_w) : lowest_vl(trip_w);
   end
end

endmodule
`default_nettype wire
