// iCE40-HX8K Breakout Board (ICE40HX8K-B-EVN) pin-level top: 12 MHz clock on J3, eight
// LEDs. The board has no user button: rst_n and inject_n are header pins with the
// FPGA's pull-up (constraints/ice40-hx8k-breakout.pcf); connect one to GND to reset the
// link / to inject bit errors. Hand-written.
`default_nettype none
module iblink_hx8k_top (
    input wire clk,
    input wire rst_n,
    input wire inject_n,
    output wire [7:0] led
);
    iblink_board_top #(.HB_BIT(23), .PKT_BIT(19)) top (
        .clk(clk), .rst_btn(~rst_n), .inject_btn(~inject_n), .led(led)
    );
endmodule
`default_nettype wire
