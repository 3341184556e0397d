// ovta_sram: simple dual-port RAM, one write port and one synchronous read port (read-first:
// a read in the cycle of a write to the same address returns the old word). Written so Yosys
// infers block RAM. No reset: contents persist across runs (zero at power-up in simulation
// via --x-initial 0).
`default_nettype none
module ovta_sram #(
  parameter int unsigned WIDTH = 32,   // bits per word
  parameter int unsigned DEPTH = 256   // words
) (
  input  wire logic                     clk_i,
  input  wire logic                     we_i,     // write enable
  input  wire logic [$clog2(DEPTH)-1:0] waddr_i,  // write address
  input  wire logic [WIDTH-1:0]         wdata_i,  // write data
  input  wire logic                     re_i,     // read enable
  input  wire logic [$clog2(DEPTH)-1:0] raddr_i,  // read address
  output      logic [WIDTH-1:0]         rdata_o   // read data, one cycle after re_i
);
  logic [WIDTH-1:0] mem_q [DEPTH];

  always_ff @(posedge clk_i) begin
    if (we_i) mem_q[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_o <= mem_q[raddr_i];
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (DEPTH >= 2 && (DEPTH & (DEPTH - 1)) == 0) else $fatal(1, "ovta_sram: DEPTH must be a power of two");
  end
`endif
endmodule
