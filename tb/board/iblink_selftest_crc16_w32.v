// Board self-test payload around the emitted CRC-16 unit (hdl_out/iblink_crc16_w32.v).
// Hand-written; the block inside is the generated one.
//
// Every frame, twice over the same LFSR data (WORDS words, the last one k = 1..4 bytes,
// k cycling frame by frame so every byte-enable path is used):
//   pass A: the CRC unit computes C over the frame;
//   pass B: the same frame followed by C's two bytes (low byte first, as on the wire),
//           packed into the last word or spilling into one more word.
// For this CRC (reflected, xorout 0xFFFF) the CRC of a message followed by its own CRC
// is the constant residue 0xAA90 whatever the message: pass B must give it. `fail`
// latches on the first mismatch, `pass` is set once a check succeeded and no check
// failed, `checks` counts frames.
//
// Payload interface (clk, rst in; pass, fail, checks out) is what the board tops in
// constraints/ instantiate; the link-port self-test can replace this module later.
`default_nettype none
module iblink_selftest_crc16_w32 #(
    parameter integer WORDS = 8,
    // Flip this bit of pass B's data (0: none) to show that the check can fail.
    parameter [31:0] INJECT = 32'd0
) (
    input wire clk,
    input wire rst,
    output reg pass,
    output reg fail,
    output reg [15:0] checks
);
    localparam [15:0] RESIDUE = 16'haa90;
    localparam [2:0] S_A = 3'd0, S_WA = 3'd1, S_B = 3'd2, S_BX = 3'd3, S_WB = 3'd4;

    // Galois LFSR, x^32 + x^22 + x^2 + x + 1 (maximal length).
    function [31:0] step(input [31:0] x);
        step = {x[30:0], 1'b0} ^ (x[31] ? 32'h0040_0007 : 32'h0);
    endfunction

    reg [2:0] st;
    reg [7:0] cnt;
    reg [31:0] lfsr, seed;
    reg [15:0] c;
    wire [1:0] km1 = checks[1:0]; // bytes in the frame's last word, minus one

    reg start, valid, last;
    reg [31:0] data;
    reg [3:0] keep;
    wire [15:0] crc;
    wire crc_valid;

    iblink_crc16_w32 dut (
        .clock(clk), .reset(rst), .start(start), .valid(valid), .last(last),
        .data(data), .keep(keep), .crc(crc), .crc_valid(crc_valid)
    );

    wire final_word = (cnt == WORDS - 1);
    reg [3:0] kmask;
    always @(*) begin
        case (km1)
            2'd0: kmask = 4'b0001;
            2'd1: kmask = 4'b0011;
            2'd2: kmask = 4'b0111;
            default: kmask = 4'b1111;
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            st <= S_A; cnt <= 0; lfsr <= 32'h1; seed <= 32'h1; c <= 0;
            start <= 0; valid <= 0; last <= 0; data <= 0; keep <= 0;
            pass <= 0; fail <= 0; checks <= 0;
        end else begin
            start <= 0; valid <= 0; last <= 0;
            case (st)
                S_A: begin // the frame
                    start <= (cnt == 0); valid <= 1; data <= lfsr; lfsr <= step(lfsr);
                    keep <= final_word ? kmask : 4'b1111;
                    last <= final_word;
                    cnt <= final_word ? 8'd0 : cnt + 1;
                    if (final_word) st <= S_WA;
                end
                S_WA: if (crc_valid) begin c <= crc; lfsr <= seed; st <= S_B; end
                S_B: begin // the frame again, with its CRC appended
                    start <= (cnt == 0); valid <= 1; lfsr <= step(lfsr);
                    data <= (cnt == 0) ? lfsr ^ INJECT : lfsr;
                    keep <= 4'b1111;
                    cnt <= final_word ? 8'd0 : cnt + 1;
                    if (final_word) begin
                        case (km1)
                            2'd0: begin data <= {8'h00, c, lfsr[7:0]}; keep <= 4'b0111; last <= 1; st <= S_WB; end
                            2'd1: begin data <= {c, lfsr[15:0]}; last <= 1; st <= S_WB; end
                            2'd2: begin data <= {c[7:0], lfsr[23:0]}; st <= S_BX; end
                            default: st <= S_BX;
                        endcase
                    end
                end
                S_BX: begin // CRC bytes that did not fit
                    valid <= 1; last <= 1;
                    data <= (km1 == 2'd2) ? {24'h0, c[15:8]} : {16'h0, c};
                    keep <= (km1 == 2'd2) ? 4'b0001 : 4'b0011;
                    st <= S_WB;
                end
                S_WB: if (crc_valid) begin
                    if (crc == RESIDUE) pass <= ~fail; else begin fail <= 1; pass <= 0; end
                    checks <= checks + 1;
                    seed <= lfsr; // next frame, new data
                    st <= S_A;
                end
                default: st <= S_A;
            endcase
        end
    end
endmodule
`default_nettype wire
