// tb_nl_unit: the RTL unit (r) and its Yosys netlist (n, module renamed nl_unit_nl) on the same inputs.
module tb_nl_unit(input logic clk, input logic rst_n, input logic cmd_valid, input logic [159:0] cmd,
  input logic inp_we, input logic wgt_we, input logic [15:0] ld_idx, input logic [511:0] ld_data,
  input logic out_re, input logic [6:0] out_ra,
  output logic pop_r, output logic pop_n, output logic [63:0] out_r, output logic [63:0] out_n,
  output logic ret_r, output logic ret_n, output logic err_r, output logic err_n);
  nl_unit r(.clk, .rst_n, .cmd_valid, .cmd, .inp_we, .wgt_we, .ld_idx, .ld_data, .out_re, .out_ra,
         .pop(pop_r), .out_rd(out_r), .ret(ret_r), .err(err_r));
  nl_unit_nl n(.clk, .rst_n, .cmd_valid, .cmd, .inp_we, .wgt_we, .ld_idx, .ld_data, .out_re, .out_ra,
         .pop(pop_n), .out_rd(out_n), .ret(ret_n), .err(err_n));
`ifdef NL_PROBE
  // run.sh with NL_PROBE=1: the exec stage-C signals of both models, each cycle they differ
  // (the netlist keeps these names as escaped identifiers: \r.u_exec.res etc.)
  // each: res, inp_rdata_i, wgt_rdata_i, acc_rdata_a_i, fw_data_q, u (the micro-op)
  logic [1375:0] pr, pn;
  assign pr = {r.r.u_exec.res, r.r.u_exec.inp_rdata_i, r.r.u_exec.wgt_rdata_i,
               r.r.u_exec.acc_rdata_a_i, r.r.u_exec.fw_data_q, r.r.u_exec.u};
  assign pn = {n.\r.u_exec.res , n.\r.u_exec.inp_rdata_i , n.\r.u_exec.wgt_rdata_i ,
               n.\r.u_exec.acc_rdata_a_i , n.\r.u_exec.fw_data_q , n.\r.u_exec.u };
  int cy = 0;
  always @(posedge clk) begin
    cy <= cy + 1;
    if (pr !== pn) begin
      $display("cy %0d rtl res %h inp %h wgt %h acc_a %h fw %h uop %h", cy, pr[1375:1120],
               pr[1119:1056], pr[1055:544], pr[543:288], pr[287:32], pr[31:0]);
      $display("cy %0d nl  res %h inp %h wgt %h acc_a %h fw %h uop %h", cy, pn[1375:1120],
               pn[1119:1056], pn[1055:544], pn[543:288], pn[287:32], pn[31:0]);
    end
  end
`endif
endmodule
