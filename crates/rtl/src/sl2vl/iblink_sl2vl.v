`default_nettype none
// iblink_sl2vl: the SLtoVL mapping table (docs/spec.md §7). SL0..SL14 each choose a data VL;
// SL15 is management and always uses VL15, whatever was written.
//
// Per programmable SL s (generate block sl[s]): vl holds SL s's data VL in the VL_BITS
// bits a VL below VLCap needs (a refused write never reaches the table, so the upper
// bits would always be 0); at VLCap 1 nothing is stored (every SL maps to VL0). A write
// naming SL15 or a VL at or above VLCap is refused rather than truncated: the table can
// never send a packet to a VL the port does not have.
//
// Cycle contract: lookup_vl is combinational, from lookup_sl and the table as it is
// during the clock. A write in clock t changes the table at the end of t (lookups see it
// from clock t+1); wr_reject during t+1 says whether it was refused. A reset in clock t
// restores the default map SL s -> VL (s mod VLCap) at the end of t and clears
// wr_reject.
module iblink_sl2vl #(
    // Data VLs (VLCap): 1, 2, 4, 8 or 15
    parameter VLS = 4
) (
    input  wire       clock,
    // Synchronous: back to the default map SL s -> VL (s mod VLCap)
    input  wire       reset,

    // Program one entry (the subnet manager's write)
    input  wire       wr_en,
    input  wire [3:0] wr_sl,
    input  wire [3:0] wr_vl,

    // SL of the packet being queued, and its VL
    input  wire [3:0] lookup_sl,
    output reg  [3:0] lookup_vl,

    // The write of the previous clock named SL15 or a VL at or above VLCap and was ignored
    output reg        wr_reject
);

// Bits that hold every VL below VLCap: 0, 1, 2, 3, 4 at VLCap 1, 2, 4, 8, 15.
localparam VL_BITS = $clog2(VLS);
localparam [3:0] VL_CAP = VLS[3:0];

initial wr_reject = 1'b0;

// Refuse writes naming SL15 (fixed to VL15) or a VL this port does not have.
wire vl_ok = wr_vl < VL_CAP;
wire wr_ok = (wr_sl != 4'd15) && vl_ok;

always @(posedge clock) wr_reject <= ~reset & wr_en & ~wr_ok;

// SL s's VL at [4s+3:4s], zero-extended.
wire [4*15-1:0] table_vl;

genvar s;
generate
   for (s = 0; s < 15; s = s + 1) begin : sl
      localparam [3:0] SL = s;
      localparam integer DEFAULT = s % VLS;
      localparam [3:0] DEFAULT_VL = DEFAULT[3:0];
      if (VL_BITS == 0) begin : none
         assign table_vl[4*s +: 4] = 4'd0;
      end else begin : stored
         reg [VL_BITS-1:0] vl;
         initial vl = DEFAULT_VL[VL_BITS-1:0];
         // The enable is the SL match, wr_en and the VL check (SL15 cannot match an
         // entry), so the decode stays two LUT levels deep.
         always @(posedge clock) begin
            if (reset) vl <= DEFAULT_VL[VL_BITS-1:0];
            else if (wr_en && wr_sl == SL && vl_ok) vl <= wr_vl[VL_BITS-1:0];
         end
         if (VL_BITS == 4) begin : full
            assign table_vl[4*s +: 4] = vl;
         end else begin : ext
            assign table_vl[4*s +: 4] = {{(4-VL_BITS){1'b0}}, vl};
         end
      end
   end
endgenerate

always @(*) begin
   case (lookup_sl)
      4'd0: lookup_vl = table_vl[3:0];
      4'd1: lookup_vl = table_vl[7:4];
      4'd2: lookup_vl = table_vl[11:8];
      4'd3: lookup_vl = table_vl[15:12];
      4'd4: lookup_vl = table_vl[19:16];
      4'd5: lookup_vl = table_vl[23:20];
      4'd6: lookup_vl = table_vl[27:24];
      4'd7: lookup_vl = table_vl[31:28];
      4'd8: lookup_vl = table_vl[35:32];
      4'd9: lookup_vl = table_vl[39:36];
      4'd10: lookup_vl = table_vl[43:40];
      4'd11: lookup_vl = table_vl[47:44];
      4'd12: lookup_vl = table_vl[51:48];
      4'd13: lookup_vl = table_vl[55:52];
      4'd14: lookup_vl = table_vl[59:56];
      default: lookup_vl = 4'd15; // SL15: management, always VL15
   endcase
end

endmodule
`default_nettype wire
