// Link-port self-test payload for the boards in constraints/. Hand-written.
//
// One emitted link port (`iblink_link_port`, VLCap 4 and 32-bit words by default;
// another VLCap with -DIBLINK_VLS=<N>) with its transmit
// word stream fed back to its receive side through two register stages (a registered
// loopback: the port talks to itself, so its own FCPs grant it credit), plus a tiny
// traffic generator and a checker, so that every part of the port carries traffic and
// nothing is optimised away:
//
// * Generator: every data VL always has a head packet. Packet `s` of VL `v` has
//   PktLen = 6 + ((s + 2v) mod 32) dwords; word 0 is an LRH with VL v (LVer 0, SL v,
//   LNH 2), word 1 holds PktLen (LRH bytes 4-5) and the sequence number in SLID, word
//   k >= 2 is {v[3:0], s[11:0], k[15:0]}. `src_data` is a function of the packet being
//   read (captured at `txq_pop`) and the word index (`src_rd` steps it), like a
//   first-word-fall-through queue.
// * Receive buffer: every committed packet is drained at once (`drain`, its VL and
//   ceil((4 PktLen - 8) / 64) blocks), so credits keep flowing.
// * Checker: on the received stream (`rx_out_*`), word 0's VL is `rx_out_vl`, word 1's
//   PktLen matches the word count and its sequence number is the next one of that VL,
//   and every word k >= 2 is the generator's. `err` latches any mismatch, a verdict
//   other than good, an overrun, an aborted packet, a non-zero error counter and a
//   resync request of the port's failsafe (which also restarts the bring-up below).
// * Link bring-up after `rst`: Down (port held in reset) for 16 clocks, LinkInitialize
//   and LinkArm for 1024 clocks each (FCPs flow, no data), then LinkActive.
// * `inject` (a button): while high, bit 0 of every looped-back data word is flipped,
//   so the receiver sees VCRC errors and `err` latches (the checker is alive).
`default_nettype none
`ifndef IBLINK_VLS
`define IBLINK_VLS 4
`endif
module iblink_port_selftest (
    input wire clk,
    input wire rst,
    input wire inject,
    output reg active,          // link in LinkActive
    output reg err,             // any error seen since rst (latched)
    output reg data_err,        // a received word differed from the generator's (latched)
    output reg [23:0] rx_pkts,  // good packets received and checked
    output wire [15:0] fcp_good,
    output wire [15:0] tx_data_starts
);
    localparam integer N = `IBLINK_VLS;
    localparam [1:0] DOWN = 2'd0, INIT = 2'd1, ARM = 2'd2, ACT = 2'd3;

    // ---- link bring-up ----
    reg [1:0] link_state = DOWN;
    reg [10:0] bring = 11'd0;
    wire resync_req;
    always @(posedge clk) begin
        // The port asks for a resync (its failsafe): the link logic retrains it.
        if (rst || resync_req) begin
            link_state <= DOWN;
            bring <= 11'd0;
        end else if (link_state != ACT) begin
            bring <= bring + 11'd1;
            if (link_state == DOWN && bring == 11'd15) begin link_state <= INIT; bring <= 11'd0; end
            if (link_state == INIT && bring == 11'd1023) begin link_state <= ARM; bring <= 11'd0; end
            if (link_state == ARM && bring == 11'd1023) begin link_state <= ACT; bring <= 11'd0; end
        end
        active <= link_state == ACT;
    end

    // ---- generator ----
    function [10:0] pkt_len(input [3:0] v, input [11:0] s);
        pkt_len = 11'd6 + {6'd0, s[4:0] + {v[3:0], 1'b0}};
    endfunction
    reg [12*N-1:0] seq = {12*N{1'b0}};  // next packet of each VL, 12 bits each
    reg [N-1:0] txq_valid = {N{1'b0}};
    reg [11*N-1:0] txq_len = {11*N{1'b0}};
    wire [N-1:0] txq_pop;
    wire vl15_pop, src_rd;
    wire [3:0] src_vl;
    reg [3:0] cur_vl = 4'd0;
    reg [11:0] cur_seq = 12'd0;
    reg [10:0] cur_len = 11'd0;
    reg [15:0] rd_idx = 16'd0;
    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : gen_vl
            always @(posedge clk) begin
                if (rst) seq[12*g +: 12] <= 12'd0;
                else if (txq_pop[g]) seq[12*g +: 12] <= seq[12*g +: 12] + 12'd1;
                // The head, registered: after a pop the VL shows no head for a clock
                // (its PktLen is then stale; the port masks a VL for the clock after
                // its grant anyway), then the next packet's.
                txq_valid[g] <= !rst && !txq_pop[g];
                txq_len[11*g +: 11] <= pkt_len(g, seq[12*g +: 12]);
            end
        end
    endgenerate
    // The popped VL's packet, as an AND-OR over the one-hot pop: the port's pop comes late
    // in the clock (it follows the take), so the capture adds one level of logic behind
    // it and no encoder, index mux or adder (txq_len already holds the head's PktLen).
    reg [3:0] pop_vl;
    reg [11:0] pop_seq;
    reg [10:0] pop_len;
    integer v;
    always @(*) begin
        pop_vl = 4'd0;
        pop_seq = 12'd0;
        pop_len = 11'd0;
        for (v = 0; v < N; v = v + 1) begin
            pop_vl = pop_vl | ({4{txq_pop[v]}} & v[3:0]);
            pop_seq = pop_seq | ({12{txq_pop[v]}} & seq[12*v +: 12]);
            pop_len = pop_len | ({11{txq_pop[v]}} & txq_len[11*v +: 11]);
        end
    end
    always @(posedge clk) begin
        if (|txq_pop) begin
            cur_vl <= pop_vl;
            cur_seq <= pop_seq;
            cur_len <= pop_len;
            rd_idx <= 16'd0;
        end else if (src_rd) begin
            rd_idx <= rd_idx + 16'd1;
        end
    end
    reg [31:0] src_data;
    always @(*) begin
        case (rd_idx)
            16'd0: src_data = {8'h01, 8'h00, cur_vl, 4'b0010, cur_vl, 4'h0};
            16'd1: src_data = {cur_seq[7:0], 4'h0, cur_seq[11:8], cur_len[7:0], 5'd0, cur_len[10:8]};
            default: src_data = {cur_vl, cur_seq, rd_idx};
        endcase
    end

    // ---- the port, looped back ----
    wire tx_valid, tx_sop, tx_eop, tx_link;
    wire [31:0] tx_data;
    wire [3:0] tx_keep;
    reg l1_valid = 1'b0, l1_sop = 1'b0, l1_eop = 1'b0, l1_link = 1'b0;
    reg [31:0] l1_data = 32'd0;
    reg [3:0] l1_keep = 4'd0;
    reg rx_valid = 1'b0, rx_sop = 1'b0, rx_eop = 1'b0, rx_link = 1'b0;
    reg [31:0] rx_data = 32'd0;
    reg [3:0] rx_keep = 4'd0;
    always @(posedge clk) begin
        {l1_valid, l1_sop, l1_eop, l1_link, l1_keep} <= {tx_valid, tx_sop, tx_eop, tx_link, tx_keep};
        l1_data <= tx_data ^ {31'd0, inject & tx_valid & ~tx_link};
        {rx_valid, rx_sop, rx_eop, rx_link, rx_keep, rx_data} <= {l1_valid, l1_sop, l1_eop, l1_link, l1_keep, l1_data};
    end

    wire rx_out_valid, rx_out_sop, rx_out_eop, rx_out_abort, rx_done, rx_commit, rx_overrun;
    wire [31:0] rx_out_data;
    wire [3:0] rx_out_keep, rx_out_vl;
    wire [1:0] rx_done_status;
    reg drain = 1'b0;
    reg [3:0] drain_vl = 4'd0;
    reg [6:0] drain_blocks = 7'd0;
    wire [15:0] fcp_short, fcp_long, fcp_abort, fcp_lpcrc, fcp_resop, fcp_vl15, fcp_vlcap;
    wire [15:0] rx_good, rx_vcrc_err, rx_len_err, rx_bad_vl, rx_abort_cnt, vl15_drops;
    wire [15:0] tx_vl15_starts, tx_fcp_starts;
    wire fcp_framing_error;

    iblink_link_port #(.VLS(N)) port (
        .clock(clk), .reset(rst), .link_state(link_state),
        .txq_valid(txq_valid), .txq_len(txq_len), .txq_pop(txq_pop),
        .vl15_valid(1'b0), .vl15_len(11'd0), .vl15_pop(vl15_pop),
        .src_rd(src_rd), .src_vl(src_vl), .src_data(src_data),
        .tx_valid(tx_valid), .tx_data(tx_data), .tx_keep(tx_keep), .tx_sop(tx_sop), .tx_eop(tx_eop), .tx_link(tx_link),
        .rx_valid(rx_valid), .rx_data(rx_data), .rx_keep(rx_keep), .rx_sop(rx_sop), .rx_eop(rx_eop), .rx_link(rx_link),
        .rx_out_valid(rx_out_valid), .rx_out_data(rx_out_data), .rx_out_keep(rx_out_keep), .rx_out_sop(rx_out_sop),
        .rx_out_eop(rx_out_eop), .rx_out_vl(rx_out_vl), .rx_out_abort(rx_out_abort),
        .rx_done(rx_done), .rx_done_status(rx_done_status), .rx_commit(rx_commit), .rx_overrun(rx_overrun),
        .drain(drain), .drain_vl(drain_vl), .drain_blocks(drain_blocks), .vl15_drain(1'b0),
        .cfg_wr(1'b0), .cfg_addr(8'd0), .cfg_data(16'd0), .cfg_busy(),
        .grant(), .grant_vl(), .grant_table(), .grant_entry(), .grant_blocks(), .grant_weight_left(), .grant_high_counter(),
        .fccl(), .overruns(),
        .fcp_good_count(fcp_good), .fcp_short_count(fcp_short), .fcp_long_count(fcp_long), .fcp_abort_count(fcp_abort),
        .fcp_lpcrc_error_count(fcp_lpcrc), .fcp_reserved_op_count(fcp_resop), .fcp_vl15_count(fcp_vl15),
        .fcp_vl_cap_count(fcp_vlcap),
        .rx_good_count(rx_good), .rx_vcrc_error_count(rx_vcrc_err), .rx_length_error_count(rx_len_err),
        .rx_bad_vl_count(rx_bad_vl), .rx_abort_count(rx_abort_cnt),
        .vl15_held(), .vl15_drop_count(vl15_drops),
        .tx_vl15_starts(tx_vl15_starts), .tx_fcp_starts(tx_fcp_starts), .tx_data_starts(tx_data_starts),
        .fcp_framing_error(fcp_framing_error),
        .resync_req(resync_req), .resync_reason(), .resync_vl(), .fcp_late(), .fctbs()
    );

    // ---- checker and receive buffer ----
    reg [12*N-1:0] exp_seq = {12*N{1'b0}};  // next sequence number expected per VL
    reg [15:0] ck_idx = 16'd0;
    reg [10:0] ck_len = 11'd0;
    reg [11:0] ck_seq = 12'd0;
    reg [3:0] last_vl = 4'd0, judged_vl = 4'd0;
    reg [10:0] last_len = 11'd0, judged_len = 11'd0;
    reg bad_word;
    wire [3:0] ck_vl = rx_out_vl < N ? rx_out_vl : 4'd0;  // (a VL >= N is flagged at sop)
    wire [11:0] exp_cur = exp_seq[12*ck_vl +: 12];
    // Blocks of the judged packet: ceil((4 PktLen - 8) / 64) (docs/spec.md §1).
    wire [12:0] judged_blocks = {judged_len, 2'b00} + 13'd55;
    always @(*) begin
        bad_word = 1'b0;
        if (rx_out_valid) begin
            if (rx_out_sop) bad_word = rx_out_data[7:4] != rx_out_vl || rx_out_vl >= N;
            else if (ck_idx == 16'd1) bad_word = rx_out_data[7:3] != 5'd0 || rx_out_data[23:20] != 4'd0
                || {rx_out_data[19:16], rx_out_data[31:24]} != exp_cur;
            else if (rx_out_eop) bad_word = ck_idx != {5'd0, ck_len} || rx_out_keep != 4'b0011;
            else bad_word = rx_out_data != {rx_out_vl, ck_seq, ck_idx} || ck_idx >= {5'd0, ck_len};
        end
    end
    always @(posedge clk) begin
        if (rx_out_valid) begin
            ck_idx <= rx_out_sop ? 16'd1 : ck_idx + 16'd1;
            if (!rx_out_sop && ck_idx == 16'd1) begin
                ck_len <= {rx_out_data[2:0], rx_out_data[15:8]};
                ck_seq <= {rx_out_data[19:16], rx_out_data[31:24]};
            end
            if (rx_out_eop) begin last_vl <= rx_out_vl; last_len <= ck_len; end
        end
        if (rx_done) begin judged_vl <= last_vl; judged_len <= last_len; end
        drain <= rx_commit;
        drain_vl <= judged_vl;
        drain_blocks <= judged_blocks[12:6];
        if (rx_commit) rx_pkts <= rx_pkts + 24'd1;
        if (rst) rx_pkts <= 24'd0;
    end
    generate
        for (g = 0; g < N; g = g + 1) begin : gen_exp
            always @(posedge clk)
                if (rst) exp_seq[12*g +: 12] <= 12'd0;
                else if (rx_out_valid && !rx_out_sop && ck_idx == 16'd1 && rx_out_vl == g)
                    exp_seq[12*g +: 12] <= {rx_out_data[19:16], rx_out_data[31:24]} + 12'd1;
        end
    endgenerate
    wire counters_bad = |{fcp_short, fcp_long, fcp_abort, fcp_lpcrc, fcp_resop, fcp_vl15, fcp_vlcap,
                          rx_vcrc_err, rx_len_err, rx_bad_vl, rx_abort_cnt, vl15_drops, fcp_framing_error};
    always @(posedge clk) begin
        if (rst) begin
            err <= 1'b0;
            data_err <= 1'b0;
        end else begin
            if (bad_word) data_err <= 1'b1;
            if (bad_word || (rx_done && rx_done_status != 2'd0) || rx_overrun || rx_out_abort || counters_bad || resync_req)
                err <= 1'b1;
        end
    end
endmodule
`default_nettype wire
