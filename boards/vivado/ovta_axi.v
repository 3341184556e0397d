// ovta_axi: Verilog-2001 wrapper of ovta_top (hw/rtl) with AXI port names Vivado's IP
// integrator and Vitis recognise: s_axi_control (AXI4-Lite, the register map of
// hw/rtl/README.md) and m_axi_gmem (AXI4 master to DRAM), clocked by ap_clk, reset by ap_rst_n.
// IP integrator cannot reference a SystemVerilog module directly, hence this file.
// DATA_WIDTH must equal the config's AXI_DATA_BITS (boards/NAME/config.json).
/* verilator lint_off UNUSEDSIGNAL */
module ovta_axi #(
  parameter integer DATA_WIDTH = 64,
  parameter integer ADDR_WIDTH = 32,
  parameter integer ID_WIDTH = 2
) (
  (* X_INTERFACE_PARAMETER = "ASSOCIATED_BUSIF s_axi_control:m_axi_gmem, ASSOCIATED_RESET ap_rst_n" *)
  (* X_INTERFACE_INFO = "xilinx.com:signal:clock:1.0 ap_clk CLK" *)
  input  wire                    ap_clk,
  (* X_INTERFACE_PARAMETER = "POLARITY ACTIVE_LOW" *)
  (* X_INTERFACE_INFO = "xilinx.com:signal:reset:1.0 ap_rst_n RST" *)
  input  wire                    ap_rst_n,
  // AXI4-Lite slave
  input  wire [11:0]             s_axi_control_awaddr,
  input  wire                    s_axi_control_awvalid,
  output wire                    s_axi_control_awready,
  input  wire [31:0]             s_axi_control_wdata,
  input  wire [3:0]              s_axi_control_wstrb,
  input  wire                    s_axi_control_wvalid,
  output wire                    s_axi_control_wready,
  output wire [1:0]              s_axi_control_bresp,
  output wire                    s_axi_control_bvalid,
  input  wire                    s_axi_control_bready,
  input  wire [11:0]             s_axi_control_araddr,
  input  wire                    s_axi_control_arvalid,
  output wire                    s_axi_control_arready,
  output wire [31:0]             s_axi_control_rdata,
  output wire [1:0]              s_axi_control_rresp,
  output wire                    s_axi_control_rvalid,
  input  wire                    s_axi_control_rready,
  // AXI4 master
  output wire [ID_WIDTH-1:0]     m_axi_gmem_arid,
  output wire [ADDR_WIDTH-1:0]   m_axi_gmem_araddr,
  output wire [7:0]              m_axi_gmem_arlen,
  output wire [2:0]              m_axi_gmem_arsize,
  output wire [1:0]              m_axi_gmem_arburst,
  output wire [3:0]              m_axi_gmem_arcache,
  output wire [2:0]              m_axi_gmem_arprot,
  output wire                    m_axi_gmem_arlock,
  output wire [3:0]              m_axi_gmem_arqos,
  output wire                    m_axi_gmem_arvalid,
  input  wire                    m_axi_gmem_arready,
  input  wire [ID_WIDTH-1:0]     m_axi_gmem_rid,
  input  wire [DATA_WIDTH-1:0]   m_axi_gmem_rdata,
  input  wire [1:0]              m_axi_gmem_rresp,
  input  wire                    m_axi_gmem_rlast,
  input  wire                    m_axi_gmem_rvalid,
  output wire                    m_axi_gmem_rready,
  output wire [ID_WIDTH-1:0]     m_axi_gmem_awid,
  output wire [ADDR_WIDTH-1:0]   m_axi_gmem_awaddr,
  output wire [7:0]              m_axi_gmem_awlen,
  output wire [2:0]              m_axi_gmem_awsize,
  output wire [1:0]              m_axi_gmem_awburst,
  output wire [3:0]              m_axi_gmem_awcache,
  output wire [2:0]              m_axi_gmem_awprot,
  output wire                    m_axi_gmem_awlock,
  output wire [3:0]              m_axi_gmem_awqos,
  output wire                    m_axi_gmem_awvalid,
  input  wire                    m_axi_gmem_awready,
  output wire [DATA_WIDTH-1:0]   m_axi_gmem_wdata,
  output wire [DATA_WIDTH/8-1:0] m_axi_gmem_wstrb,
  output wire                    m_axi_gmem_wlast,
  output wire                    m_axi_gmem_wvalid,
  input  wire                    m_axi_gmem_wready,
  input  wire [ID_WIDTH-1:0]     m_axi_gmem_bid,
  input  wire [1:0]              m_axi_gmem_bresp,
  input  wire                    m_axi_gmem_bvalid,
  output wire                    m_axi_gmem_bready
);
  assign s_axi_control_bresp = 2'b00;
  assign s_axi_control_rresp = 2'b00;
  // normal, non-secure data accesses; modifiable, bufferable (HP ports ignore coherency bits)
  assign m_axi_gmem_arcache = 4'b0011;
  assign m_axi_gmem_awcache = 4'b0011;
  assign m_axi_gmem_arprot = 3'b000;
  assign m_axi_gmem_awprot = 3'b000;
  assign m_axi_gmem_arlock = 1'b0;
  assign m_axi_gmem_awlock = 1'b0;
  assign m_axi_gmem_arqos = 4'b0000;
  assign m_axi_gmem_awqos = 4'b0000;
  assign m_axi_gmem_awid = {ID_WIDTH{1'b0}};

  ovta_top u_top (
    .clk_i(ap_clk), .rst_ni(ap_rst_n),
    .s_awvalid_i(s_axi_control_awvalid), .s_awready_o(s_axi_control_awready),
    .s_awaddr_i(s_axi_control_awaddr),
    .s_wvalid_i(s_axi_control_wvalid), .s_wready_o(s_axi_control_wready),
    .s_wdata_i(s_axi_control_wdata),
    .s_bvalid_o(s_axi_control_bvalid), .s_bready_i(s_axi_control_bready),
    .s_arvalid_i(s_axi_control_arvalid), .s_arready_o(s_axi_control_arready),
    .s_araddr_i(s_axi_control_araddr),
    .s_rvalid_o(s_axi_control_rvalid), .s_rready_i(s_axi_control_rready),
    .s_rdata_o(s_axi_control_rdata),
    .m_arvalid_o(m_axi_gmem_arvalid), .m_arready_i(m_axi_gmem_arready),
    .m_araddr_o(m_axi_gmem_araddr), .m_arlen_o(m_axi_gmem_arlen), .m_arid_o(m_axi_gmem_arid),
    .m_arsize_o(m_axi_gmem_arsize), .m_arburst_o(m_axi_gmem_arburst),
    .m_rvalid_i(m_axi_gmem_rvalid), .m_rready_o(m_axi_gmem_rready),
    .m_rdata_i(m_axi_gmem_rdata), .m_rlast_i(m_axi_gmem_rlast), .m_rid_i(m_axi_gmem_rid),
    .m_awvalid_o(m_axi_gmem_awvalid), .m_awready_i(m_axi_gmem_awready),
    .m_awaddr_o(m_axi_gmem_awaddr), .m_awlen_o(m_axi_gmem_awlen),
    .m_awsize_o(m_axi_gmem_awsize), .m_awburst_o(m_axi_gmem_awburst),
    .m_wvalid_o(m_axi_gmem_wvalid), .m_wready_i(m_axi_gmem_wready),
    .m_wdata_o(m_axi_gmem_wdata), .m_wstrb_o(m_axi_gmem_wstrb), .m_wlast_o(m_axi_gmem_wlast),
    .m_bvalid_i(m_axi_gmem_bvalid), .m_bready_o(m_axi_gmem_bready)
  );
endmodule
