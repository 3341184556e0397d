// ovta_fifo: synchronous first-word-fall-through FIFO (fetch's burst buffer; the command queues
// are ovta_cmdq). The head is visible on data_o while valid_o; pop_i removes it. Storage is an
// array read combinationally.
`default_nettype none
module ovta_fifo #(
  parameter int unsigned WIDTH = 8,  // bits per entry
  parameter int unsigned DEPTH = 4   // entries (power of two)
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             clr_i,    // empty the FIFO (start of a run)
  input  wire logic             push_i,   // write data_i (ignored when full)
  input  wire logic [WIDTH-1:0] data_i,
  output      logic             full_o,
  input  wire logic             pop_i,    // drop the head (ignored when empty)
  output      logic             valid_o,  // not empty
  output      logic [WIDTH-1:0] data_o,   // the head
  output      logic [$clog2(DEPTH):0] count_o  // entries held
);
  localparam int unsigned AW = $clog2(DEPTH);
  logic [WIDTH-1:0] mem_q [DEPTH];
  logic [AW-1:0] wr_q, rd_q;
  logic [AW:0] cnt_q;
  logic do_push, do_pop;

  assign full_o = cnt_q == (AW + 1)'(DEPTH);
  assign valid_o = cnt_q != '0;
  assign data_o = mem_q[rd_q];
  assign count_o = cnt_q;
  assign do_push = push_i && !full_o;
  assign do_pop = pop_i && valid_o;

  always_ff @(posedge clk_i) begin
    if (do_push) mem_q[wr_q] <= data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0;
      rd_q <= '0;
      cnt_q <= '0;
    end else if (clr_i) begin
      wr_q <= '0;
      rd_q <= '0;
      cnt_q <= '0;
    end else begin
      if (do_push) wr_q <= wr_q + 1'b1;
      if (do_pop) rd_q <= rd_q + 1'b1;
      cnt_q <= cnt_q + (AW + 1)'(do_push) - (AW + 1)'(do_pop);
    end
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (DEPTH >= 2 && (DEPTH & (DEPTH - 1)) == 0) else $fatal(1, "ovta_fifo: DEPTH must be a power of two");
  end
`endif
endmodule
