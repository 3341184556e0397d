// ovta_cmdq: a command queue (CMD_QUEUE_DEPTH instructions), first-word fall-through on a
// synchronous-read RAM (ovta_sram: block RAM, not LUT RAM). The head is the RAM's read
// register: it is refilled from the RAM in the cycle it is popped (a pop per cycle is
// sustained); an entry pushed into an empty queue is visible at the head two cycles later.
// count_o and full_o count every entry held, the head included (exactly DEPTH fit).
`default_nettype none
module ovta_cmdq #(
  parameter int unsigned WIDTH = 8,  // bits per entry
  parameter int unsigned DEPTH = 4   // entries (power of two, at least 2)
) (
  input  wire logic             clk_i,
  input  wire logic             rst_ni,
  input  wire logic             clr_i,    // empty the queue (start of a run)
  input  wire logic             push_i,   // write data_i (ignored when full)
  input  wire logic [WIDTH-1:0] data_i,
  output      logic             full_o,
  input  wire logic             pop_i,    // drop the head (ignored when empty)
  output      logic             valid_o,  // data_o holds the head
  output      logic [WIDTH-1:0] data_o,   // the head
  output      logic [$clog2(DEPTH):0] count_o  // entries held
);
  localparam int unsigned AW = $clog2(DEPTH);
  logic [AW-1:0] wr_q, rd_q;   // next RAM slot to write, next RAM slot to fetch into the head
  logic [AW:0] cnt_q;          // entries held, the head included
  logic [AW:0] ram_q;          // entries in the RAM not fetched yet (written at earlier edges)
  logic head_q;                // data_o holds the head
  logic do_push, do_pop, fetch;

  assign full_o = cnt_q == (AW + 1)'(DEPTH);
  assign valid_o = head_q;
  assign count_o = cnt_q;
  assign do_push = push_i && !full_o;
  assign do_pop = pop_i && head_q;
  // refill the head when it is empty or leaves; the slot being read is never the one written
  // (they meet only when the RAM part is empty, or full, and then the queue is full)
  assign fetch = ram_q != '0 && (!head_q || do_pop);

  ovta_sram #(.WIDTH(WIDTH), .DEPTH(DEPTH)) u_ram (
    .clk_i, .we_i(do_push), .waddr_i(wr_q), .wdata_i(data_i), .re_i(fetch), .raddr_i(rd_q),
    .rdata_o(data_o));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0;
      rd_q <= '0;
      cnt_q <= '0;
      ram_q <= '0;
      head_q <= 1'b0;
    end else if (clr_i) begin
      wr_q <= '0;
      rd_q <= '0;
      cnt_q <= '0;
      ram_q <= '0;
      head_q <= 1'b0;
    end else begin
      if (do_push) wr_q <= wr_q + 1'b1;
      if (fetch) rd_q <= rd_q + 1'b1;
      cnt_q <= cnt_q + (AW + 1)'(do_push) - (AW + 1)'(do_pop);
      ram_q <= ram_q + (AW + 1)'(do_push) - (AW + 1)'(fetch);
      if (fetch) head_q <= 1'b1;
      else if (do_pop) head_q <= 1'b0;
    end
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (DEPTH >= 2 && (DEPTH & (DEPTH - 1)) == 0) else $fatal(1, "ovta_cmdq: DEPTH must be a power of two");
  end
`endif
endmodule
