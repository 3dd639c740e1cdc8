// Pin-level board top shared by the boards in constraints/: a clock, a reset button, an
// error-injection button, eight LEDs. Hand-written. It holds the link-port self-test
// (constraints/iblink_port_selftest.v: the default port, VLCap 4 at 32 bits, with its
// transmit stream looped back to its receive side, a traffic generator and a checker)
// behind a power-on reset and two-flop synchronisers on the buttons.
//
// LEDs: led[0] heartbeat (about 0.7 s half period), led[1] LinkActive, led[2] pass
// (active, packets received, no error), led[3] error latched (any kind), led[4] data
// mismatch latched, led[5] received-packet counter bit PKT_BIT (blinks while packets are
// checked), led[6] data-packet start counter bit 15 (flickers with transmit traffic),
// led[7] FCPs received.
`default_nettype none
module iblink_board_top #(
    // Heartbeat counter bit: 23 at 12 MHz, 24 at 25 MHz.
    parameter integer HB_BIT = 23,
    // Received-packet counter bit on led[5]: about 1 Hz at 12 MHz with bit 19.
    parameter integer PKT_BIT = 19
) (
    input wire clk,
    input wire rst_btn,     // active high, asynchronous to clk
    input wire inject_btn,  // active high: corrupt looped-back words while pressed
    output wire [7:0] led
);
    reg [3:0] por = 4'd0;
    always @(posedge clk) if (~&por) por <= por + 4'd1;
    reg [1:0] rst_sync = 2'b11, inj_sync = 2'b00;
    always @(posedge clk) begin
        rst_sync <= {rst_sync[0], rst_btn};
        inj_sync <= {inj_sync[0], inject_btn};
    end
    reg rst = 1'b1;
    always @(posedge clk) rst <= ~&por | rst_sync[1];

    reg [HB_BIT:0] hb = 0;
    always @(posedge clk) hb <= hb + 1'b1;

    wire active, err, data_err;
    wire [23:0] rx_pkts;
    wire [15:0] fcp_good, tx_data_starts;
    iblink_port_selftest payload (
        .clk(clk), .rst(rst), .inject(inj_sync[1]),
        .active(active), .err(err), .data_err(data_err), .rx_pkts(rx_pkts),
        .fcp_good(fcp_good), .tx_data_starts(tx_data_starts)
    );

    reg [7:0] led_q = 8'd0;
    always @(posedge clk)
        led_q <= {fcp_good != 16'd0, tx_data_starts[15], rx_pkts[PKT_BIT], data_err, err,
                  active && !err && rx_pkts != 24'd0, active, hb[HB_BIT]};
    assign led = led_q;
endmodule
`default_nettype wire
