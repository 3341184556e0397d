// ovta_gemm: the GEMM core, BATCH x BLOCK_OUT dot products of BLOCK_IN int8 x int8 products,
// each added to an int32 accumulator (two's-complement wrap-around). Combinational.
// Two outputs (o, o+1) share each input x: one multiply x * (w0 + w1 * 2^16), a 25 x 8 bit
// signed product that fits one DSP48 multiplier, gives both products: x*w0 is the low 16 bits
// (signed; |x*w0| <= 2^14), x*w1 the rest plus the borrow of the low half. So a DSP computes
// two int8 MACs (BATCH * BLOCK_IN * BLOCK_OUT / 2 multipliers).
// The output is zero unless en_i: a simulator (Verilator) then skips the products in cycles
// without a GEMM micro-op, and hardware only needs an AND per output bit.
`default_nettype none
module ovta_gemm
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                en_i,   // a GEMM micro-op uses acc_o (zero otherwise)
  input  wire logic [INP_BITS-1:0] inp_i,  // x[b][i], int8, byte b*BLOCK_IN + i
  input  wire logic [WGT_BITS-1:0] wgt_i,  // w[o][i], int8, byte o*BLOCK_IN + i
  input  wire logic [ACC_BITS-1:0] acc_i,  // a[b][o], int32, word b*BLOCK_OUT + o
  output      logic [ACC_BITS-1:0] acc_o   // a + x . w
);
  for (genvar b = 0; b < int'(BATCH); b++) begin : g_b
    for (genvar o = 0; o < int'(BLOCK_OUT); o += 2) begin : g_o
      logic signed [31:0] sum0, sum1;
      // p = x * wp, wp = w0 + w1 * 2^16 (25 bits signed): |x| <= 2^7, |wp| < 2^23 + 2^7, so the
      // product fits 32 signed bits and p[31:16] is the upper part (p[32] of a 33-bit product
      // equals p[31]). Written in 32-bit arithmetic (Yosys still narrows the multiplier to
      // 8 x 25 bits, one DSP48E1) and sum0's half as shifts: Verilator then emits about half
      // the sign extensions, and tsim is bound by the size of this code (bench/README.md
      // "tsim speed").
      // Two forms of the same sums: Verilator (tsim) compiles the two int8 products as two
      // 32-bit multiplies (`ifdef VERILATOR: about a third less x86 code per cycle than the
      // packed form, gemm-heavy tsim +37%), synthesis (Yosys, `else) the packed form above.
      // They agree because x*w0 + x*w1 * 2^16 = p with |x*w0| <= 2^14: the low signed half of p
      // is x*w0 and the rest, p[31:16] + p[15], is x*w1. `make test-netlist` checks it: the
      // Yosys netlist (the packed form) runs random programs against the RTL model (the form
      // for Verilator) and must give the same bytes and cycles (hw/rtl/README.md).
`ifndef VERILATOR
      logic signed [31:0] p;
`endif
      always_comb begin
        sum0 = '0;
        sum1 = '0;
`ifndef VERILATOR
        p = '0;
`endif
        if (en_i) begin
          sum0 = $signed(acc_i[32 * (b * BLOCK_OUT + o) +: 32]);
          sum1 = $signed(acc_i[32 * (b * BLOCK_OUT + o + 1) +: 32]);
          for (int i = 0; i < int'(BLOCK_IN); i++) begin
`ifdef VERILATOR
            sum0 = sum0 + 32'($signed(inp_i[8 * (b * BLOCK_IN + i) +: 8])) *
                          32'($signed(wgt_i[8 * (o * BLOCK_IN + i) +: 8]));
            sum1 = sum1 + 32'($signed(inp_i[8 * (b * BLOCK_IN + i) +: 8])) *
                          32'($signed(wgt_i[8 * ((o + 1) * BLOCK_IN + i) +: 8]));
`else
            p = 32'($signed(inp_i[8 * (b * BLOCK_IN + i) +: 8])) *
                (32'($signed(wgt_i[8 * ((o + 1) * BLOCK_IN + i) +: 8])) * 65536 +
                 32'($signed(wgt_i[8 * (o * BLOCK_IN + i) +: 8])));
            sum0 = sum0 + ((p <<< 16) >>> 16);
            sum1 = sum1 + 32'($signed(p[31:16])) + 32'(p[15]);
`endif
          end
        end
      end
      assign acc_o[32 * (b * BLOCK_OUT + o) +: 32] = sum0;
      assign acc_o[32 * (b * BLOCK_OUT + o + 1) +: 32] = sum1;
    end
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (BLOCK_OUT % 2 == 0) else $fatal(1, "ovta_gemm: BLOCK_OUT must be even");
  end
`endif
endmodule
