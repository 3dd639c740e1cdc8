// ULX3S (ECP5 LFE5U-45F) pin-level top: 25 MHz clk_25mhz, led[7:0]; holds wifi_gpio0
// high so the on-board ESP32 does not reset the FPGA. Hand-written.
`default_nettype none
module iblink_ulx3s_top (
    input wire clk_25mhz,
    output wire [7:0] led,
    output wire wifi_gpio0
);
    assign wifi_gpio0 = 1'b1;
    iblink_board_top #(.HB_BIT(24)) top (.clk(clk_25mhz), .led(led));
endmodule
`default_nettype wire
