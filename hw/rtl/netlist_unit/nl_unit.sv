// nl_unit: ovta_compute with the INP and WGT SRAMs wired as in ovta_top (small config widths), the
// unit of hw/rtl/netlist_unit/run.sh. Its write side (the load module in ovta_top) is ports here.
module nl_unit(input logic clk, input logic rst_n, input logic cmd_valid, input logic [159:0] cmd,
  input logic inp_we, input logic wgt_we, input logic [15:0] ld_idx, input logic [511:0] ld_data,
  input logic out_re, input logic [6:0] out_ra,
  output logic pop, output logic [63:0] out_rd, output logic ret, output logic err);
  logic [31:0] ev, idx; logic [31:0] dbg; logic [3:0] rule;
  logic [15:0] bu, ba;
  logic x1, x2, x3, x4, x7, x8, x9, x10, x11, x12, x13, x14;
  logic [31:0] rqa; logic [7:0] rql;
  logic inp_re, wgt_re; logic [6:0] inp_ra; logic [5:0] wgt_ra; logic [63:0] inp_rd; logic [511:0] wgt_rd;
  ovta_sram #(.WIDTH(64), .DEPTH(128)) u_inp (
    .clk_i(clk), .we_i(inp_we), .waddr_i(7'(ld_idx)),
    .wdata_i(ld_data[511 -: 64]), .re_i(inp_re), .raddr_i(inp_ra), .rdata_o(inp_rd));
  ovta_sram #(.WIDTH(512), .DEPTH(64)) u_wgt (
    .clk_i(clk), .we_i(wgt_we), .waddr_i(6'(ld_idx)), .wdata_i(ld_data),
    .re_i(wgt_re), .raddr_i(wgt_ra), .rdata_o(wgt_rd));
  ovta_compute r(.clk_i(clk), .rst_ni(rst_n), .cmd_valid_i(cmd_valid), .cmd_i(cmd), .cmd_pop_o(pop),
    .l2c_tok_i(1'b1), .l2c_pop_o(x1), .s2c_tok_i(1'b1), .s2c_pop_o(x2), .c2l_room_i(1'b1), .c2l_push_o(x3),
    .c2s_room_i(1'b1), .c2s_push_o(x4), .inp_re_o(inp_re), .inp_raddr_o(inp_ra), .inp_rdata_i(inp_rd),
    .wgt_re_o(wgt_re), .wgt_raddr_o(wgt_ra), .wgt_rdata_i(wgt_rd), .out_re_i(out_re), .out_raddr_i(out_ra),
    .out_rdata_o(out_rd), .retire_o(ret), .finish_o(x7), .busy_o(x8), .stall_o(x9), .quiet_o(x10),
    .err_o(err), .rule_o(rule), .err_val_o(ev), .idx_o(idx), .dbg_o(dbg), .bytes_uop_o(bu),
    .bytes_acc_o(ba), .gemm_uop_o(x11), .alu_uop_o(x12), .req_valid_o(x13), .req_addr_o(rqa),
    .req_len_o(rql), .req_ready_i(1'b1), .rd_valid_i(1'b0), .rd_data_i(64'd0), .rd_ready_o(x14));
endmodule
