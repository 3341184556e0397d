// ovta_sram_2r: RAM with one write port and two synchronous read ports (2R1W), built from two
// copies of ovta_sram that both take every write: port a reads copy A, port b copy B. Each copy
// is one simple-dual-port block RAM (the standard 2R1W construction; a true dual-port RAM would
// need its second port for the write). Both ports read-first like ovta_sram. No reset.
`default_nettype none
module ovta_sram_2r #(
  parameter int unsigned WIDTH = 32,   // bits per word
  parameter int unsigned DEPTH = 256   // words
) (
  input  wire logic                     clk_i,
  input  wire logic                     we_i,       // write enable (both copies)
  input  wire logic [$clog2(DEPTH)-1:0] waddr_i,    // write address
  input  wire logic [WIDTH-1:0]         wdata_i,    // write data
  input  wire logic                     re_a_i,     // port a: read enable
  input  wire logic [$clog2(DEPTH)-1:0] raddr_a_i,  // port a: read address
  output      logic [WIDTH-1:0]         rdata_a_o,  // port a: data, one cycle after re_a_i
  input  wire logic                     re_b_i,     // port b: read enable
  input  wire logic [$clog2(DEPTH)-1:0] raddr_b_i,  // port b: read address
  output      logic [WIDTH-1:0]         rdata_b_o   // port b: data, one cycle after re_b_i
);
  ovta_sram #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_a (
    .clk_i, .we_i, .waddr_i, .wdata_i, .re_i(re_a_i), .raddr_i(raddr_a_i), .rdata_o(rdata_a_o));
  ovta_sram #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_b (
    .clk_i, .we_i, .waddr_i, .wdata_i, .re_i(re_b_i), .raddr_i(raddr_b_i), .rdata_o(rdata_b_o));
endmodule
