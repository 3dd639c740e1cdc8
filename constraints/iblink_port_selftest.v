// Link-port self-test payload for the boards in constraints/. Hand-written.
//
// One emitted link port (`iblink_link_port`, VLCap 4 and 32-bit words by default;
// another VLCap with -DIBLINK_VLS=<N>, 64-bit words with -DIBLINK_DW=64) with its
// transmit stream (m_axis_phy_*) fed back to its receive side (s_axis_phy_*) through two
// register stages (a registered loopback: the port talks to itself, so its own FCPs grant
// it credit), plus a tiny traffic generator and a checker, so that every part of the
// port carries traffic and nothing is optimised away:
//
// * The PHY stalls: m_axis_phy_tready is low one clock in every 16 (as a PHY's SKIP
//   ordered sets would make it), so the port's backpressure path runs on the board too;
//   only words that move are looped back.
// * Generator: every data VL always has a head packet. Packet `s` of VL `v` has
//   PktLen = 6 + ((s + 2v) mod 32) dwords; dword 0 is an LRH with VL v (LVer 0, SL v,
//   LNH 2), dword 1 holds PktLen (LRH bytes 4-5) and the sequence number in SLID, dword
//   k >= 2 is {v[3:0], s[11:0], k[15:0]}. A word holds DATA_WIDTH/32 dwords, dword 0 of a
//   word in its low lanes. `src_data` is a function of the packet being read (kept per
//   VL at its `txq_pop`, named by the port's `src_vl`) and the word index (`src_rd`
//   steps it), like a first-word-fall-through queue.
// * Receive buffer: every committed packet is drained at once (`drain`, its VL and
//   ceil((4 PktLen - 8) / 64) blocks), so credits keep flowing.
// * Checker: on the received stream (`rx_out_*`), dword 0's VL is `rx_out_vl`, dword 1's
//   sequence number is the next one of that VL, every dword k >= 2 is the generator's,
//   and the packet ends where its PktLen says: the VCRC's two bytes follow dword
//   PktLen - 1 (docs/spec.md §3), so the last word's byte lanes are checked too. `err`
//   latches any mismatch, a verdict other than good, an overrun, an aborted packet, a
//   non-zero error counter and a resync request of the port's failsafe (which also
//   restarts the bring-up below).
// * Link bring-up after `rst`: Down (port held in reset) for 16 clocks, LinkInitialize
//   and LinkArm for 1024 clocks each (FCPs flow, no data), then LinkActive.
// * `inject` (a button): while high, bit 0 of every looped-back data word is flipped,
//   so the receiver sees VCRC errors and `err` latches (the checker is alive).
`default_nettype none
`ifndef IBLINK_VLS
`define IBLINK_VLS 4
`endif
`ifndef IBLINK_DW
`define IBLINK_DW 32
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
    // Link word width, its dwords and byte lanes
    localparam integer W = `IBLINK_DW;
    localparam integer D = W / 32;
    localparam integer KW = W / 8;
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
    reg [12*N-1:0] pkt_seq = {12*N{1'b0}};  // the packet of each VL popped last
    reg [11*N-1:0] pkt_len_q = {11*N{1'b0}};
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
                // The popped packet, kept per VL: the port's pop comes late in the clock
                // (it follows the take), so nothing but this VL's own enable is behind it.
                if (txq_pop[g]) begin
                    pkt_seq[12*g +: 12] <= seq[12*g +: 12];
                    pkt_len_q[11*g +: 11] <= txq_len[11*g +: 11];
                end
            end
        end
    endgenerate
    // The packet being read: the port's src_vl (a register, set at its take) names the
    // VL, so its words come from registers alone.
    wire [3:0] cur_vl = src_vl < N ? src_vl : 4'd0;
    wire [11:0] cur_seq = pkt_seq[12*cur_vl +: 12];
    wire [10:0] cur_len = pkt_len_q[11*cur_vl +: 11];
    always @(posedge clk) begin
        if (|txq_pop) rd_idx <= 16'd0;
        else if (src_rd) rd_idx <= rd_idx + 16'd1;
    end
    // Dword k of the packet being read (as the header above says).
    function [31:0] gen_dword(input [3:0] vl, input [11:0] sq, input [10:0] len, input [15:0] k);
        case (k)
            16'd0: gen_dword = {8'h01, 8'h00, vl, 4'b0010, vl, 4'h0};
            16'd1: gen_dword = {sq[7:0], 4'h0, sq[11:8], len[7:0], 5'd0, len[10:8]};
            default: gen_dword = {vl, sq, k};
        endcase
    endfunction
    reg [W-1:0] src_data;
    integer j;
    always @(*)
        for (j = 0; j < D; j = j + 1)
            src_data[32*j +: 32] = gen_dword(cur_vl, cur_seq, cur_len, rd_idx * D[15:0] + j[15:0]);

    // ---- the port, looped back through a PHY that stalls ----
    wire [W-1:0] tx_data;
    wire [KW-1:0] tx_keep;
    wire tx_valid, tx_last;
    wire [1:0] tx_user;
    reg [3:0] phy_slot = 4'd0;
    reg tx_ready = 1'b0;
    always @(posedge clk) begin
        phy_slot <= phy_slot + 4'd1;
        tx_ready <= phy_slot != 4'd15;
    end
    wire moves = tx_valid && tx_ready;
    reg l1_valid = 1'b0, l1_last = 1'b0;
    reg [1:0] l1_user = 2'd0;
    reg [W-1:0] l1_data = {W{1'b0}};
    reg [KW-1:0] l1_keep = {KW{1'b0}};
    reg rx_valid = 1'b0, rx_last = 1'b0;
    reg [1:0] rx_user = 2'd0;
    reg [W-1:0] rx_data = {W{1'b0}};
    reg [KW-1:0] rx_keep = {KW{1'b0}};
    always @(posedge clk) begin
        {l1_valid, l1_last, l1_user, l1_keep} <= {moves, tx_last, tx_user, tx_keep};
        // tuser[0] marks a link packet (an FCP): only data words are corrupted.
        l1_data <= tx_data ^ {{(W-1){1'b0}}, inject & moves & ~tx_user[0]};
        {rx_valid, rx_last, rx_user, rx_keep, rx_data} <= {l1_valid, l1_last, l1_user, l1_keep, l1_data};
    end

    wire rx_out_valid, rx_out_sop, rx_out_eop, rx_out_abort, rx_done, rx_commit, rx_overrun;
    wire [W-1:0] rx_out_data;
    wire [KW-1:0] rx_out_keep;
    wire [3:0] rx_out_vl;
    wire [1:0] rx_done_status;
    reg drain = 1'b0;
    reg [3:0] drain_vl = 4'd0;
    reg [6:0] drain_blocks = 7'd0;
    wire [15:0] fcp_short, fcp_long, fcp_abort, fcp_lpcrc, fcp_resop, fcp_vl15, fcp_vlcap;
    wire [15:0] rx_good, rx_vcrc_err, rx_len_err, rx_bad_vl, rx_abort_cnt, vl15_drops;
    wire [15:0] tx_vl15_starts, tx_fcp_starts;
    wire fcp_framing_error;

    // The port's reset from a flip-flop of its own (a clock after rst): its loads are all
    // in the port, so the placer can put it among them rather than beside the board's.
    reg port_rst = 1'b1;
    always @(posedge clk) port_rst <= rst;
    iblink_link_port #(.VLS(N), .DATA_WIDTH(W)) port (
        .clock(clk), .reset(port_rst), .link_state(link_state),
        .txq_valid(txq_valid), .txq_len(txq_len), .txq_pop(txq_pop),
        .vl15_valid(1'b0), .vl15_len(11'd0), .vl15_pop(vl15_pop),
        .src_rd(src_rd), .src_vl(src_vl), .src_data(src_data),
        .m_axis_phy_tdata(tx_data), .m_axis_phy_tkeep(tx_keep), .m_axis_phy_tvalid(tx_valid),
        .m_axis_phy_tready(tx_ready), .m_axis_phy_tlast(tx_last), .m_axis_phy_tuser(tx_user),
        .s_axis_phy_tdata(rx_data), .s_axis_phy_tkeep(rx_keep), .s_axis_phy_tvalid(rx_valid),
        .s_axis_phy_tlast(rx_last), .s_axis_phy_tuser(rx_user),
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
    // The port's delivery, registered first: the checker then starts at flip-flops and
    // adds nothing to the port's own paths (the drain follows a clock later).
    reg c_valid = 1'b0, c_sop = 1'b0, c_eop = 1'b0, c_abort = 1'b0, c_done = 1'b0, c_commit = 1'b0, c_overrun = 1'b0;
    reg [W-1:0] c_data = {W{1'b0}};
    reg [KW-1:0] c_keep = {KW{1'b0}};
    reg [3:0] c_vl = 4'd0;
    reg [1:0] c_status = 2'd0;
    always @(posedge clk) begin
        {c_valid, c_sop, c_eop, c_abort, c_vl, c_keep, c_data} <=
            {rx_out_valid, rx_out_sop, rx_out_eop, rx_out_abort, rx_out_vl, rx_out_keep, rx_out_data};
        {c_done, c_status, c_commit, c_overrun} <= {rx_done, rx_done_status, rx_commit, rx_overrun};
    end
    reg [12*N-1:0] exp_seq = {12*N{1'b0}};  // next sequence number expected per VL
    reg [10:0] ck_len = 11'd0;
    reg [11:0] ck_seq = 12'd0;
    reg [3:0] last_vl = 4'd0, judged_vl = 4'd0;
    reg [10:0] last_len = 11'd0, judged_len = 11'd0;
    reg bad_word;
    wire [3:0] ck_vl = c_vl < N ? c_vl : 4'd0;  // (a VL >= N is flagged at dword 0)
    wire [11:0] exp_cur = exp_seq[12*ck_vl +: 12];
    // Blocks of the judged packet: ceil((4 PktLen - 8) / 64) (docs/spec.md §1).
    wire [12:0] judged_blocks = {judged_len, 2'b00} + 13'd55;
    // Where the word is in its packet, kept in registers so the compares start at
    // flip-flops: ck_d is the dword index of the next word's lane 0 (a word holds D
    // dwords, so lane q of a word holds dword ck_d + q, an OR as ck_d is a multiple of
    // D); rem is PktLen minus that index, the packet's dwords from there to its end (the
    // VCRC follows them). LRH dword 1 (PktLen, sequence number) is in word 1 / D, lane
    // 1 % D: the word after the first at 32 bits, the first at 64.
    reg [15:0] ck_d = 16'd0;
    reg [11:0] rem = 12'd0;
    reg was_sop = 1'b0;
    localparam [15:0] H1_WORD = 1 / D;
    localparam integer H1_LANE = 1 % D;
    wire [31:0] h1 = c_data[32*H1_LANE +: 32];
    wire at_h1 = c_valid && (D == 1 ? !c_sop && was_sop : c_sop);
    wire header = c_sop || at_h1;
    // The last word: the packet's dwords in the lanes below rem, the VCRC's two bytes in
    // lane rem, nothing above.
    wire [3:0] rem_lane = D == 1 ? 4'd0 : {3'd0, rem[0]};
    wire [KW-1:0] last_keep = ({{(KW-1){1'b0}}, 1'b1} << (4 * rem_lane + 4'd2)) - {{(KW-1){1'b0}}, 1'b1};
    integer q;
    always @(*) begin
        bad_word = 1'b0;
        q = 0;
        if (c_valid) begin
            if (c_eop) bad_word = header || rem >= D[11:0] || c_keep != last_keep;
            else bad_word = c_keep != {KW{1'b1}} || (!header && rem < D[11:0]);
            if (c_sop) bad_word = bad_word || c_data[7:4] != c_vl || c_vl >= N;
            if (at_h1) bad_word = bad_word || h1[7:3] != 5'd0 || h1[23:20] != 4'd0 || {h1[19:16], h1[31:24]} != exp_cur;
            if (!header)
                for (q = 0; q < D; q = q + 1)
                    if (!c_eop || q[11:0] < rem)
                        bad_word = bad_word || c_data[32*q +: 32] != {c_vl, ck_seq, ck_d | q[15:0]};
        end
    end
    always @(posedge clk) begin
        if (c_valid) begin
            ck_d <= (c_sop ? 16'd0 : ck_d) + D[15:0];
            was_sop <= c_sop;
            if (at_h1) begin
                ck_len <= {h1[2:0], h1[15:8]};
                ck_seq <= {h1[19:16], h1[31:24]};
                rem <= {1'b0, h1[2:0], h1[15:8]} - (H1_WORD[11:0] + 12'd1) * D[11:0];
            end else begin
                rem <= rem - D[11:0];
            end
            if (c_eop) begin last_vl <= c_vl; last_len <= ck_len; end
        end
        if (c_done) begin judged_vl <= last_vl; judged_len <= last_len; end
        drain <= c_commit;
        drain_vl <= judged_vl;
        drain_blocks <= judged_blocks[12:6];
        if (c_commit) rx_pkts <= rx_pkts + 24'd1;
        if (rst) rx_pkts <= 24'd0;
    end
    generate
        for (g = 0; g < N; g = g + 1) begin : gen_exp
            always @(posedge clk)
                if (rst) exp_seq[12*g +: 12] <= 12'd0;
                else if (at_h1 && c_vl == g)
                    exp_seq[12*g +: 12] <= {h1[19:16], h1[31:24]} + 12'd1;
        end
    endgenerate
    wire counters_bad = |{fcp_short, fcp_long, fcp_abort, fcp_lpcrc, fcp_resop, fcp_vl15, fcp_vlcap,
                          rx_vcrc_err, rx_len_err, rx_bad_vl, rx_abort_cnt, vl15_drops, fcp_framing_error};
    // Every error, registered before it latches.
    reg bad_q = 1'b0, other_q = 1'b0;
    always @(posedge clk) begin
        bad_q <= bad_word;
        other_q <= (c_done && c_status != 2'd0) || c_overrun || c_abort || counters_bad || resync_req;
        if (rst) begin
            err <= 1'b0;
            data_err <= 1'b0;
        end else begin
            if (bad_q) data_err <= 1'b1;
            if (bad_q || other_q) err <= 1'b1;
        end
    end
endmodule
`default_nettype wire
