// ovta_regs: the AXI4-Lite control slave (register map in hw/rtl/README.md). Holds the
// writable registers (insn address and count) and turns CTRL writes into start / soft-reset
// pulses; reads return rd_data_i, the word at rd_addr_o (ovta_rdmux), registered at the AR
// handshake.
`default_nettype none
module ovta_regs #(
  parameter int unsigned NREGS = 64   // readable words (byte addresses 0 .. 4*NREGS-1)
) (
  input  wire logic        clk_i,
  input  wire logic        rst_ni,
  // AXI4-Lite slave
  input  wire logic        s_awvalid_i,
  output      logic        s_awready_o,
  input  wire logic [11:0] s_awaddr_i,
  input  wire logic        s_wvalid_i,
  output      logic        s_wready_o,
  input  wire logic [31:0] s_wdata_i,
  output      logic        s_bvalid_o,
  input  wire logic        s_bready_i,
  input  wire logic        s_arvalid_i,
  output      logic        s_arready_o,
  input  wire logic [11:0] s_araddr_i,
  output      logic        s_rvalid_o,
  input  wire logic        s_rready_i,
  output      logic [31:0] s_rdata_o,
  // registers
  output      logic [9:0]  rd_addr_o,         // word address of a read (AR channel)
  input  wire logic [31:0] rd_data_i,         // the word at rd_addr_o
  output      logic        start_o,           // pulse: CTRL bit 0 written as 1
  output      logic        soft_rst_o,        // pulse: CTRL bit 1 written as 1
  output      logic [31:0] insn_addr_o,       // INSN_ADDR
  output      logic [31:0] insn_count_o       // INSN_COUNT
);
  localparam logic [11:0] A_CTRL = 12'h000, A_INSN_ADDR = 12'h00C, A_INSN_COUNT = 12'h014;
  logic wr;
  assign wr = s_awvalid_i && s_wvalid_i && !s_bvalid_o;
  assign s_awready_o = wr;
  assign s_wready_o = wr;
  assign s_arready_o = !s_rvalid_o;
  assign rd_addr_o = s_araddr_i[11:2];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_bvalid_o <= 1'b0;
      s_rvalid_o <= 1'b0;
      s_rdata_o <= '0;
      start_o <= 1'b0;
      soft_rst_o <= 1'b0;
      insn_addr_o <= '0;
      insn_count_o <= '0;
    end else begin
      start_o <= 1'b0;
      soft_rst_o <= 1'b0;
      if (wr) begin
        s_bvalid_o <= 1'b1;
        unique case (s_awaddr_i)
          A_CTRL: begin
            start_o <= s_wdata_i[0];
            soft_rst_o <= s_wdata_i[1];
          end
          A_INSN_ADDR: insn_addr_o <= s_wdata_i;
          A_INSN_COUNT: insn_count_o <= s_wdata_i;
          default: ;
        endcase
      end else if (s_bready_i) begin
        s_bvalid_o <= 1'b0;
      end
      if (s_arvalid_i && s_arready_o) begin
        s_rvalid_o <= 1'b1;
        s_rdata_o <= (32'(s_araddr_i) >> 2) < NREGS ? rd_data_i : 32'hdead_beef;
      end else if (s_rready_i) begin
        s_rvalid_o <= 1'b0;
      end
    end
  end
endmodule
