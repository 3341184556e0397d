// ovta_gemm: the GEMM core, BATCH x BLOCK_OUT dot products of BLOCK_IN int8 x int8 products,
// each added to an int32 accumulator (two's-complement wrap-around). Combinational; the
// products are written as plain signed multiplies so synthesis maps them to DSPs.
`default_nettype none
module ovta_gemm
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic [INP_BITS-1:0] inp_i,  // x[b][i], int8, byte b*BLOCK_IN + i
  input  wire logic [WGT_BITS-1:0] wgt_i,  // w[o][i], int8, byte o*BLOCK_IN + i
  input  wire logic [ACC_BITS-1:0] acc_i,  // a[b][o], int32, word b*BLOCK_OUT + o
  output      logic [ACC_BITS-1:0] acc_o   // a + x . w
);
  for (genvar b = 0; b < int'(BATCH); b++) begin : g_b
    for (genvar o = 0; o < int'(BLOCK_OUT); o++) begin : g_o
      logic signed [31:0] sum;
      always_comb begin
        sum = $signed(acc_i[32 * (b * BLOCK_OUT + o) +: 32]);
        for (int i = 0; i < int'(BLOCK_IN); i++) begin
          sum = sum + 32'($signed(inp_i[8 * (b * BLOCK_IN + i) +: 8]) *
                          $signed(wgt_i[8 * (o * BLOCK_IN + i) +: 8]));
        end
      end
      assign acc_o[32 * (b * BLOCK_OUT + o) +: 32] = sum;
    end
  end
endmodule
