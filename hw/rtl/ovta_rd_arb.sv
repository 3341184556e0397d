// ovta_rd_arb: shares the AXI4 read channels (AR, R) between the read requesters (fetch, load,
// compute). Round-robin on AR, at most AXI_MAX_OUTSTANDING bursts in flight, the requester's
// number as ARID; R beats are routed back by RID. Requesters keep bursts inside 4 KiB and
// at most 256 beats, and always accept the beats of bursts they asked for.
`default_nettype none
module ovta_rd_arb
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  // requesters
  input  wire logic [NREQ-1:0]          req_valid_i,  // a burst request
  input  wire logic [NREQ*AXI_ADDR_BITS-1:0] req_addr_i, // its byte address (r at [A*r +: A])
  input  wire logic [NREQ*8-1:0]        req_len_i,    // beats - 1 (r at [8r +: 8])
  output      logic [NREQ-1:0]          req_ready_o,  // request taken
  output      logic [7:0]               inflight_o,   // bursts in flight (AXI register, saturating)
  output      logic [NREQ-1:0]          rd_valid_o,   // a beat for this requester
  output      logic [BUS_BITS-1:0]      rd_data_o,    // the beat (shared)
  input  wire logic [NREQ-1:0]          rd_ready_i,   // requester takes the beat
  // AXI4 read channels
  output      logic                     arvalid_o,
  input  wire logic                     arready_i,
  output      logic [AXI_ADDR_BITS-1:0] araddr_o,
  output      logic [7:0]               arlen_o,
  output      logic [ID_W-1:0]          arid_o,
  input  wire logic                     rvalid_i,
  output      logic                     rready_o,
  input  wire logic [BUS_BITS-1:0]      rdata_i,
  input  wire logic                     rlast_i,
  input  wire logic [ID_W-1:0]          rid_i
);
  localparam int unsigned OW = $clog2(AXI_MAX_OUTSTANDING + 1);
  logic [OW-1:0] out_q;          // bursts in flight (AR accepted, last beat not yet seen)
  logic [ID_W-1:0] last_q;       // last granted requester (round-robin pointer)
  logic ar_valid_q;              // an AR is being presented
  logic [AXI_ADDR_BITS-1:0] ar_addr_q;
  logic [7:0] ar_len_q;
  logic [ID_W-1:0] ar_id_q;
  logic grant;                   // take a new request this cycle
  logic [ID_W-1:0] pick;         // which one
  logic found;
  logic r_done;                  // a burst's last beat is taken

  always_comb begin
    found = 1'b0;
    pick = '0;
    for (int k = 1; k <= int'(NREQ); k++) begin
      if (!found && req_valid_i[(int'(last_q) + k) % int'(NREQ)]) begin
        found = 1'b1;
        pick = ID_W'((int'(last_q) + k) % int'(NREQ));
      end
    end
  end

  assign r_done = rvalid_i && rready_o && rlast_i;
  assign grant = found && (!ar_valid_q || arready_i) &&
                 (out_q + OW'(ar_valid_q)) < OW'(AXI_MAX_OUTSTANDING);

  always_comb begin
    req_ready_o = '0;
    if (grant) req_ready_o[pick] = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_q <= '0;
      last_q <= '0;
      ar_valid_q <= 1'b0;
      ar_addr_q <= '0;
      ar_len_q <= '0;
      ar_id_q <= '0;
    end else begin
      out_q <= out_q + OW'(ar_valid_q && arready_i) - OW'(r_done);
      if (grant) begin
        ar_valid_q <= 1'b1;
        ar_addr_q <= req_addr_i[AXI_ADDR_BITS * pick +: AXI_ADDR_BITS];
        ar_len_q <= req_len_i[8 * pick +: 8];
        ar_id_q <= pick;
        last_q <= pick;
      end else if (arready_i) begin
        ar_valid_q <= 1'b0;
      end
    end
  end

  assign arvalid_o = ar_valid_q;
  assign inflight_o = 32'(out_q) > 255 ? 8'd255 : 8'(out_q);
  assign araddr_o = ar_addr_q;
  assign arlen_o = ar_len_q;
  assign arid_o = ar_id_q;

  always_comb begin
    rd_valid_o = '0;
    rready_o = 1'b0;
    for (int k = 0; k < int'(NREQ); k++) begin
      if (rid_i == ID_W'(k)) begin
        rd_valid_o[k] = rvalid_i;
        rready_o = rd_ready_i[k];
      end
    end
  end
  assign rd_data_o = rdata_i;

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (AXI_MAX_OUTSTANDING >= 1) else $fatal(1, "ovta_rd_arb: AXI_MAX_OUTSTANDING must be >= 1");
  end
`endif
endmodule
