`default_nettype none
// iblink_vl15_rx: VL15 receive buffer occupancy (docs/spec.md §4, §7). VL15 carries subnet
// management packets and has no credits, so an SMP that arrives while the buffer is full
// is dropped, and counted here.
//
// held never exceeds CAPACITY, so full and empty are equality compares; the count steps
// by one through +1 and -1 computed side by side, so no carry chain waits for another
// (an arrival compare, +1 and then -1 in series was slower).
//
// Cycle contract: all outputs are registers. An arrival (accept) in clock t is judged
// against held as it is during t, before that clock's drain: a full buffer drops even if
// a packet leaves in the same clock. kept or dropped is 1 during clock t+1 for it, and
// held during t+1 counts it and that clock's drain (ignored when the buffer is empty
// after the arrival). drop_count saturates at 65535. A reset in clock t empties the
// buffer and clears kept and dropped at the end of t; it keeps drop_count (statistics
// since power-up).
module iblink_vl15_rx #(
    // Packets the buffer holds: 1..255 (the IBA minimum is 1)
    parameter CAPACITY = 1
) (
    input  wire        clock,
    // Link resync: the buffer empties; the drop count is kept
    input  wire        reset,

    // A VL15 packet arrived
    input  wire        accept,
    // The management agent took a packet (ignored when empty)
    input  wire        drain,

    // What became of the packet of the previous clock
    output reg         kept,
    output reg         dropped,
    // Packets in the buffer
    output reg  [7:0]  held,
    // Packets dropped since power-up, saturating
    output reg  [15:0] drop_count
);

localparam [7:0] CAP = CAPACITY[7:0];

initial begin
   held = 8'd0;
   drop_count = 16'd0;
   kept = 1'b0;
   dropped = 1'b0;
end

wire full = held == CAP;
wire empty = held == 8'd0;
wire arrive_kept = accept & ~full;
// A drain takes a packet if one is held after this clock's arrival.
wire leave = drain & (~empty | arrive_kept);
wire [7:0] held_up = held + 8'd1;
wire [7:0] held_down = held - 8'd1;

always @(posedge clock) begin
   if (reset) begin
      held <= 8'd0;
      kept <= 1'b0;
      dropped <= 1'b0;
   end else begin
      kept <= arrive_kept;
      dropped <= accept & full;
      if (arrive_kept & ~leave) held <= held_up;
      else if (leave & ~arrive_kept) held <= held_down;
      if (accept & full & (drop_count != 16'hffff)) drop_count <= drop_count + 16'd1;
   end
end

endmodule
`default_nettype wire
