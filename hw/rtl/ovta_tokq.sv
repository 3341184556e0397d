// ovta_tokq: a dependency-token queue between two modules. Tokens carry no data, so the
// queue is a counter of DEPTH tokens at most.
`default_nettype none
module ovta_tokq #(
  parameter int unsigned DEPTH = 4  // tokens held at most
) (
  input  wire logic clk_i,
  input  wire logic rst_ni,
  input  wire logic clr_i,    // empty the queue (start of a run)
  input  wire logic push_i,   // add a token (the producer checked room_o before starting)
  input  wire logic pop_i,    // take a token (the consumer checked tok_o before starting)
  output      logic tok_o,    // holds at least one token
  output      logic room_o,   // can take another token
  output      logic [$clog2(DEPTH+1)-1:0] count_o  // tokens held
);
  localparam int unsigned CW = $clog2(DEPTH + 1);
  logic [CW-1:0] cnt_q;

  assign tok_o = cnt_q != '0;
  assign room_o = cnt_q != CW'(DEPTH);
  assign count_o = cnt_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cnt_q <= '0;
    else if (clr_i) cnt_q <= '0;
    else cnt_q <= cnt_q + CW'(push_i && room_o) - CW'(pop_i && tok_o);
  end
endmodule
