// ovta_tsim_top: the simulation top of tsim (hw/sim/tsim/tsim.cpp), not part of the hardware.
// Wraps ovta_top with one register on every input (AXI4-Lite slave and AXI4 master inputs), so
// no output and no logic of the model depends combinationally on an input of the Verilated
// model: after the clock edge the outputs are final for the cycle, and the harness evaluates
// the model once per cycle (plus a negligible clk-low evaluation) instead of settling inputs
// first. The harness sees its own inputs one cycle late; it models the AXI handshakes with the
// values the design sees (the registered ones), so AXI semantics are unchanged; each handshake
// answer of the DRAM model takes one cycle longer (the harness subtracts it from its latencies).
`default_nettype none
module ovta_tsim_top
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic                     s_awvalid_i,
  output      logic                     s_awready_o,
  input  wire logic [11:0]              s_awaddr_i,
  input  wire logic                     s_wvalid_i,
  output      logic                     s_wready_o,
  input  wire logic [31:0]              s_wdata_i,
  output      logic                     s_bvalid_o,
  input  wire logic                     s_bready_i,
  input  wire logic                     s_arvalid_i,
  output      logic                     s_arready_o,
  input  wire logic [11:0]              s_araddr_i,
  output      logic                     s_rvalid_o,
  input  wire logic                     s_rready_i,
  output      logic [31:0]              s_rdata_o,
  output      logic                     m_arvalid_o,
  input  wire logic                     m_arready_i,
  output      logic [AXI_ADDR_BITS-1:0] m_araddr_o,
  output      logic [7:0]               m_arlen_o,
  output      logic [ID_W-1:0]          m_arid_o,
  output      logic [2:0]               m_arsize_o,
  output      logic [1:0]               m_arburst_o,
  input  wire logic                     m_rvalid_i,
  output      logic                     m_rready_o,
  input  wire logic [BUS_BITS-1:0]      m_rdata_i,
  input  wire logic                     m_rlast_i,
  input  wire logic [ID_W-1:0]          m_rid_i,
  input  wire logic [1:0]               m_rresp_i,
  output      logic                     m_awvalid_o,
  input  wire logic                     m_awready_i,
  output      logic [AXI_ADDR_BITS-1:0] m_awaddr_o,
  output      logic [7:0]               m_awlen_o,
  output      logic [2:0]               m_awsize_o,
  output      logic [1:0]               m_awburst_o,
  output      logic                     m_wvalid_o,
  input  wire logic                     m_wready_i,
  output      logic [BUS_BITS-1:0]      m_wdata_o,
  output      logic [BUS_BYTES-1:0]     m_wstrb_o,
  output      logic                     m_wlast_o,
  input  wire logic                     m_bvalid_i,
  input  wire logic [1:0]               m_bresp_i,
  output      logic                     m_bready_o
);
  // handshake inputs (reset) and payloads (no reset)
  logic awvalid_q, wvalid_q, bready_q, arvalid_q, rready_q;
  logic marready_q, mrvalid_q, mawready_q, mwready_q, mbvalid_q;
  logic [11:0] awaddr_q, araddr_q;
  logic [31:0] wdata_q;
  logic [BUS_BITS-1:0] rdata_q;
  logic rlast_q;
  logic [ID_W-1:0] rid_q;
  logic [1:0] rresp_q, bresp_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {awvalid_q, wvalid_q, bready_q, arvalid_q, rready_q} <= '0;
      {marready_q, mrvalid_q, mawready_q, mwready_q, mbvalid_q} <= '0;
    end else begin
      {awvalid_q, wvalid_q, bready_q, arvalid_q, rready_q} <=
          {s_awvalid_i, s_wvalid_i, s_bready_i, s_arvalid_i, s_rready_i};
      {marready_q, mrvalid_q, mawready_q, mwready_q, mbvalid_q} <=
          {m_arready_i, m_rvalid_i, m_awready_i, m_wready_i, m_bvalid_i};
    end
  end

  always_ff @(posedge clk_i) begin
    awaddr_q <= s_awaddr_i;
    araddr_q <= s_araddr_i;
    wdata_q <= s_wdata_i;
    rdata_q <= m_rdata_i;
    rlast_q <= m_rlast_i;
    rid_q <= m_rid_i;
    rresp_q <= m_rresp_i;
    bresp_q <= m_bresp_i;
  end

  ovta_top u_top (
    .clk_i, .rst_ni,
    .s_awvalid_i(awvalid_q), .s_awready_o, .s_awaddr_i(awaddr_q), .s_wvalid_i(wvalid_q),
    .s_wready_o, .s_wdata_i(wdata_q), .s_bvalid_o, .s_bready_i(bready_q),
    .s_arvalid_i(arvalid_q), .s_arready_o, .s_araddr_i(araddr_q), .s_rvalid_o,
    .s_rready_i(rready_q), .s_rdata_o,
    .m_arvalid_o, .m_arready_i(marready_q), .m_araddr_o, .m_arlen_o, .m_arid_o, .m_arsize_o,
    .m_arburst_o, .m_rvalid_i(mrvalid_q), .m_rready_o, .m_rdata_i(rdata_q), .m_rlast_i(rlast_q),
    .m_rid_i(rid_q), .m_rresp_i(rresp_q), .m_awvalid_o, .m_awready_i(mawready_q), .m_awaddr_o, .m_awlen_o,
    .m_awsize_o, .m_awburst_o, .m_wvalid_o, .m_wready_i(mwready_q), .m_wdata_o, .m_wstrb_o,
    .m_wlast_o, .m_bvalid_i(mbvalid_q), .m_bresp_i(bresp_q),
    .m_bready_o);
endmodule
