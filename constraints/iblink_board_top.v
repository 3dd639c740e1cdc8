// Pin-level board top shared by the boards in constraints/: a clock in, eight LEDs out.
// Hand-written. It holds the self-test payload (today tb/board/iblink_selftest_crc16_w32.v
// around the emitted CRC-16 unit; later the link-port self-test with the same
// clk/rst -> pass/fail/checks interface) behind a power-on reset.
//
// LEDs: led[0] heartbeat (about 1.4 Hz), led[1] pass (checks running and all good),
// led[2] fail (latched), led[7:3] check counter bits 20..16 (visible activity).
`default_nettype none
module iblink_board_top #(
    // Heartbeat counter bit: 23 at 12 MHz, 24 at 25 MHz gives a 0.7 s half period.
    parameter integer HB_BIT = 23
) (
    input wire clk,
    output wire [7:0] led
);
    reg [3:0] por = 4'd0;
    wire rst = ~&por;
    always @(posedge clk) if (rst) por <= por + 4'd1;

    reg [HB_BIT:0] hb = 0;
    always @(posedge clk) hb <= hb + 1'b1;

    wire pass, fail;
    wire [15:0] checks;
    reg [4:0] activity = 5'd0;
    always @(posedge clk) activity <= checks[15:11];

    iblink_selftest_crc16_w32 payload (.clk(clk), .rst(rst), .pass(pass), .fail(fail), .checks(checks));

    assign led = {activity, fail, pass, hb[HB_BIT]};
endmodule
`default_nettype wire
