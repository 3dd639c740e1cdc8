// ECP5-5G Versa (LFE5UM5G-45F-8BG381C) pin-level top. Hand-written. The board's 100 MHz
// oscillator (differential, clk100) drives the PLL, whose output is the port clock at
// 156.25 MHz: 10GbE's word clock at 64 bits, and 4x SDR's 125 MHz with a quarter to spare,
// so one PLL output could run both ports. Around it, the link-port self-test at 64 bits
// (constraints/iblink_board_top.v, built with -DIBLINK_DW=64). The push-button rst_n
// (low when pressed) and the PLL's lock reset the link; a DIP switch (inject_sw, on =
// high) injects bit errors; the user LEDs light when driven low.
`default_nettype none
module iblink_versa5g_top (
    input wire clk100,
    input wire rst_n,
    input wire inject_sw,
    output wire [7:0] led_n
);
    // 100 MHz / 16 = 6.25 MHz at the phase detector, x 25 through the feedback from CLKOP
    // = 156.25 MHz; the VCO runs at 4 x 156.25 = 625 MHz (CLKOP_DIV 4), inside its range.
    wire clk, locked;
    EHXPLLL #(
        .CLKI_DIV(16),
        .CLKFB_DIV(25),
        .CLKOP_DIV(4),
        .CLKOP_CPHASE(3),
        .CLKOP_FPHASE(0),
        .CLKOP_ENABLE("ENABLED"),
        .OUTDIVIDER_MUXA("DIVA"),
        .FEEDBK_PATH("CLKOP"),
        .PLLRST_ENA("DISABLED"),
        .INTFB_WAKE("DISABLED"),
        .STDBY_ENABLE("DISABLED"),
        .DPHASE_SOURCE("DISABLED")
    ) pll (
        .CLKI(clk100), .CLKFB(clk), .CLKOP(clk), .LOCK(locked),
        .RST(1'b0), .STDBY(1'b0), .ENCLKOP(1'b0), .PLLWAKESYNC(1'b0),
        .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b0), .PHASESTEP(1'b0), .PHASELOADREG(1'b0)
    );

    // Heartbeat bit 27: about 0.86 s half period at 156.25 MHz; received-packet counter
    // bit 23: about 1 Hz with 64-bit words.
    wire [7:0] led;
    iblink_board_top #(.HB_BIT(27), .PKT_BIT(23)) top (
        .clk(clk), .rst_btn(!rst_n || !locked), .inject_btn(inject_sw), .led(led)
    );
    assign led_n = ~led;
endmodule
`default_nettype wire
