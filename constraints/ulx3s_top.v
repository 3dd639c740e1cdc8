// ULX3S (ECP5 LFE5U-45F) pin-level top: 25 MHz clk_25mhz, led[7:0], FIRE1 (btn[1]) resets
// the link, FIRE2 (btn[2]) injects bit errors while pressed; holds wifi_gpio0 high so the
// on-board ESP32 does not reset the FPGA. Hand-written.
`default_nettype none
module iblink_ulx3s_top (
    input wire clk_25mhz,
    input wire [2:1] btn,
    output wire [7:0] led,
    output wire wifi_gpio0
);
    assign wifi_gpio0 = 1'b1;
    iblink_board_top #(.HB_BIT(24), .PKT_BIT(20)) top (
        .clk(clk_25mhz), .rst_btn(btn[1]), .inject_btn(btn[2]), .led(led)
    );
endmodule
`default_nettype wire
