// ovta_alu: the vector ALU, one op (isa/ISA.md, ALU) on BATCH x BLOCK_OUT int32 lanes.
// Combinational; the result is zero unless en_i (a simulator then skips the lanes in cycles
// without an ALU micro-op).
`default_nettype none
module ovta_alu
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                en_i,    // an ALU micro-op uses r_o (zero otherwise)
  input  wire logic [2:0]          op_i,    // alu_opcode_e
  input  wire logic [ACC_BITS-1:0] a_i,     // acc[dst]
  input  wire logic [ACC_BITS-1:0] s_i,     // acc[src] or the immediate in every lane
  output      logic [ACC_BITS-1:0] r_o      // op(a, s)
);
  for (genvar l = 0; l < int'(BATCH * BLOCK_OUT); l++) begin : g_l
    logic signed [31:0] a, s, r;
    logic signed [31:0] rq_v, rq_lo, rq_hi;   // RQ: (a + rounding) >>> sh, its bounds
    assign a = $signed(a_i[32 * l +: 32]);
    assign s = $signed(s_i[32 * l +: 32]);
    always_comb begin
      r = '0;
      rq_v = '0;
      rq_lo = '0;
      rq_hi = '0;
      if (en_i) unique case (op_i)
        ALU_MIN: r = a < s ? a : s;
        ALU_MAX: r = a > s ? a : s;
        ALU_ADD: r = a + s;
        ALU_MUL: r = a * s;
        ALU_MOV: r = s;
        ALU_CLP: begin   // clip into [sext(s[7:0]), sext(s[15:8])]
          if (a < 32'($signed(s[7:0]))) r = 32'($signed(s[7:0]));
          else r = a;
          if (r > 32'($signed(s[15:8]))) r = 32'($signed(s[15:8]));
        end
        ALU_RQ: begin    // sh = s[4:0], round s[5], lo code s[7:6], hi = sext(s[15:8])
          rq_v = a + ((s[5] && s[4:0] != 5'd0) ? 32'sd1 <<< (s[4:0] - 5'd1) : 32'sd0);
          rq_v = rq_v >>> s[4:0];
          rq_hi = 32'($signed(s[15:8]));
          unique case (s[7:6])
            2'd0: rq_lo = -32'sd128;
            2'd1: rq_lo = 32'sd0;
            2'd2: rq_lo = -rq_hi;
            default: rq_lo = ~rq_hi;
          endcase
          r = rq_v < rq_lo ? rq_lo : rq_v;
          if (r > rq_hi) r = rq_hi;
        end
        ALU_SHR: begin
          if (s >= 32'sd32) r = a >>> 31;
          else if (s >= 32'sd0) r = a >>> s[4:0];
          else if (s >= -32'sd31) r = a << (5'd0 - s[4:0]);
          else r = '0;
        end
        default: r = a;
      endcase
    end
    assign r_o[32 * l +: 32] = r;
  end
endmodule
