// Icarus testbench of the board self-test: a good CRC unit passes FRAMES checks with
// every last-word byte count; with INJECT set the first check fails.
`timescale 1ns/1ps
`default_nettype none
module selftest_tb;
    reg clk = 0, rst = 1;
    always #5 clk = ~clk;
    wire pass_ok, fail_ok, pass_bad, fail_bad;
    wire [15:0] checks_ok, checks_bad;
    iblink_selftest_crc16_w32 ok (.clk(clk), .rst(rst), .pass(pass_ok), .fail(fail_ok), .checks(checks_ok));
    iblink_selftest_crc16_w32 #(.INJECT(32'h0000_0100)) bad (.clk(clk), .rst(rst), .pass(pass_bad), .fail(fail_bad), .checks(checks_bad));
    integer i;
    initial begin
        repeat (4) @(posedge clk);
        rst = 0;
        for (i = 0; i < 20000 && checks_ok < 16'd64; i = i + 1) @(posedge clk);
        if (checks_ok < 16'd64) begin $display("FAIL: only %0d checks", checks_ok); $finish_and_return(1); end
        if (fail_ok || !pass_ok) begin $display("FAIL: good unit: pass=%b fail=%b after %0d checks", pass_ok, fail_ok, checks_ok); $finish_and_return(1); end
        if (!fail_bad || pass_bad) begin $display("FAIL: injected error not caught: pass=%b fail=%b", pass_bad, fail_bad); $finish_and_return(1); end
        $display("PASS: %0d frames checked (residue 0xAA90, last word 1..4 bytes); injected error caught", checks_ok);
        $finish;
    end
endmodule
`default_nettype wire
