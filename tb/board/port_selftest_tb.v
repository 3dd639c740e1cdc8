// Icarus testbench of the link-port board self-test (constraints/iblink_port_selftest.v):
// after bring-up the looped-back port delivers the generator's packets on every data VL
// with no error of any kind; then `inject` corrupts looped-back words and the error
// latches (the checker is alive).
`timescale 1ns/1ps
`default_nettype none
module port_selftest_tb;
    reg clk = 0, rst = 1, inject = 0;
    always #5 clk = ~clk;
    wire active, err, data_err;
    wire [23:0] rx_pkts;
    wire [15:0] fcp_good, tx_data_starts;
    iblink_port_selftest dut (.clk(clk), .rst(rst), .inject(inject), .active(active), .err(err),
        .data_err(data_err), .rx_pkts(rx_pkts), .fcp_good(fcp_good), .tx_data_starts(tx_data_starts));
    integer i, v;
    initial begin
        repeat (4) @(posedge clk);
        rst = 0;
        for (i = 0; i < 40000 && rx_pkts < 24'd600; i = i + 1) @(posedge clk);
        if (rx_pkts < 24'd600) begin
            $display("FAIL: %0d packets received in %0d clocks (active=%b, %0d data starts, %0d FCPs)",
                     rx_pkts, i, active, tx_data_starts, fcp_good);
            $finish_and_return(1);
        end
        if (err || data_err || !active || fcp_good == 16'd0) begin
            $display("FAIL: err=%b data_err=%b active=%b fcp_good=%0d after %0d packets", err, data_err, active, fcp_good, rx_pkts);
            $finish_and_return(1);
        end
        for (v = 0; v < dut.N; v = v + 1)
            if (dut.exp_seq[12*v +: 12] == 12'd0) begin
                $display("FAIL: no packet of VL %0d arrived", v);
                $finish_and_return(1);
            end
        $display("clean: %0d packets received and checked in %0d clocks after reset (VL 0: %0d ... VL %0d: %0d), %0d data starts, %0d FCPs received, no error",
                 rx_pkts, i, dut.exp_seq[11:0], dut.N - 1, dut.exp_seq[12*(dut.N-1) +: 12], tx_data_starts, fcp_good);
        inject = 1;
        repeat (200) @(posedge clk);
        inject = 0;
        repeat (50) @(posedge clk);
        if (!err) begin $display("FAIL: injected bit errors not caught"); $finish_and_return(1); end
        $display("PASS: link-port loopback self-test; injected errors caught (data_err=%b)", data_err);
        $finish;
    end
endmodule
`default_nettype wire
