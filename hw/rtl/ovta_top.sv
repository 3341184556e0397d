// ovta_top: the accelerator. Fetch dispatches into three command queues; load, compute and
// store run them under the dependency-token rule (four token queues); one AXI4 master (reads
// shared by fetch/load/compute through ovta_rd_arb, writes from store) and one AXI4-Lite
// control slave (ovta_regs; map in hw/rtl/README.md). An AXI error response (RRESP/BRESP
// SLVERR or DECERR) ends the run (STATUS outcome BUS) and holds the units in reset until the
// next soft reset, so nothing more is read or written.
`default_nettype none
module ovta_top
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  // AXI4-Lite control slave
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
  // AXI4 master (INCR bursts of full-width beats)
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
  localparam int unsigned NREGS = 64;
  localparam int unsigned NCNT = 18;

  // ---------------------------------------------------------------- control and reset
  logic start, soft_rst, core_rst_n;
  logic [31:0] insn_addr, insn_count;
  logic [9:0] reg_addr;               // register read: word address and value (ovta_rdmux)
  logic [31:0] reg_data;
  logic soft_rst_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) soft_rst_q <= 1'b0;
    else soft_rst_q <= soft_rst;
  end
  assign core_rst_n = rst_ni && !soft_rst_q;
  // units: also held in reset after a bus error (bus_halt_q) until the next soft reset
  logic bus_halt_q, unit_rst_n;
  assign unit_rst_n = core_rst_n && !bus_halt_q;

  ovta_regs #(.NREGS(NREGS)) u_regs (
    .clk_i, .rst_ni, .s_awvalid_i, .s_awready_o, .s_awaddr_i, .s_wvalid_i, .s_wready_o,
    .s_wdata_i, .s_bvalid_o, .s_bready_i, .s_arvalid_i, .s_arready_o, .s_araddr_i, .s_rvalid_o,
    .s_rready_i, .s_rdata_o, .rd_addr_o(reg_addr), .rd_data_i(reg_data), .start_o(start),
    .soft_rst_o(soft_rst),
    .insn_addr_o(insn_addr), .insn_count_o(insn_count));

  logic running, done;
  status_e status;
  logic [3:0] rule;
  logic [1:0] err_unit, err_resp;
  logic [31:0] err_idx, finishes, retired;
  logic [NCNT*64-1:0] cnt;            // counter c at [64c +: 64]
  logic [NCNT*16-1:0] inc;            // increment of counter c at [16c +: 16]
  logic run_start;
  assign run_start = start && !running;

  // ---------------------------------------------------------------- queues
  logic [2:0] q_push, q_full, q_valid, q_pop;
  cmd_t q_in;
  logic [CMD_BITS-1:0] q_head [3];  // cmd_t each (Yosys 0.23: no unpacked arrays of structs)
  localparam int unsigned QCW = $clog2(CMD_QUEUE_DEPTH) + 1;
  logic [QCW-1:0] q_cnt [3];
  for (genvar q = 0; q < 3; q++) begin : g_cmdq
    ovta_cmdq #(.WIDTH(CMD_BITS), .DEPTH(CMD_QUEUE_DEPTH)) u_q (
      .clk_i, .rst_ni(core_rst_n), .clr_i(run_start), .push_i(q_push[q]), .data_i(q_in),
      .full_o(q_full[q]), .pop_i(q_pop[q]), .valid_o(q_valid[q]), .data_o(q_head[q]),
      .count_o(q_cnt[q]));
  end

  // token queues: 0 L2C, 1 C2L, 2 C2S, 3 S2C
  logic [3:0] t_push, t_pop, t_tok, t_room;
  localparam int unsigned TCW = $clog2(DEP_QUEUE_DEPTH + 1);
  logic [TCW-1:0] t_cnt [4];
  for (genvar t = 0; t < 4; t++) begin : g_tokq
    ovta_tokq #(.DEPTH(DEP_QUEUE_DEPTH)) u_t (
      .clk_i, .rst_ni(core_rst_n), .clr_i(run_start), .push_i(t_push[t]), .pop_i(t_pop[t]),
      .tok_o(t_tok[t]), .room_o(t_room[t]), .count_o(t_cnt[t]));
  end

  // ---------------------------------------------------------------- read arbiter
  logic [NREQ-1:0] rq_valid, rq_ready, rd_valid, rd_ready;
  logic [NREQ*AXI_ADDR_BITS-1:0] rq_addr;  // requester r at [A*r +: A]
  logic [NREQ*8-1:0] rq_len;
  logic [BUS_BITS-1:0] rd_data;
  logic [7:0] rd_inflight;                 // read bursts in flight (AXI register)
  ovta_rd_arb u_arb (
    .clk_i, .rst_ni(unit_rst_n), .req_valid_i(rq_valid), .req_addr_i(rq_addr), .req_len_i(rq_len),
    .req_ready_o(rq_ready), .rd_valid_o(rd_valid), .rd_data_o(rd_data),
    .rd_ready_i(rd_ready), .inflight_o(rd_inflight), .arvalid_o(m_arvalid_o), .arready_i(m_arready_i),
    .araddr_o(m_araddr_o), .arlen_o(m_arlen_o), .arid_o(m_arid_o), .rvalid_i(m_rvalid_i),
    .rready_o(m_rready_o), .rdata_i(m_rdata_i), .rlast_i(m_rlast_i), .rid_i(m_rid_i));
  assign m_arsize_o = 3'(LOG_BUS_BYTES);
  assign m_arburst_o = 2'b01;
  assign m_awsize_o = 3'(LOG_BUS_BYTES);
  assign m_awburst_o = 2'b01;

  // ---------------------------------------------------------------- units
  logic f_done, f_err, f_quiet, f_busy;
  rule_e f_rule;
  logic [31:0] f_idx, f_rx_idx;
  logic [3:0] quiet, uerr;
  logic [2:0] retire, stall;
  // busy and m_idx are read by the tsim harness for its Chrome trace (hw/sim/tsim/tsim.cpp)
  logic [2:0] busy /*verilator public_flat_rd*/;
  logic finish;
  logic [31:0] m_idx [3] /*verilator public_flat_rd*/;
  dbg_t d_load, d_comp, d_store;
  rule_e c_rule;
  logic [31:0] c_val;
  logic [15:0] b_inp, b_wgt, b_uop, b_acc, b_out;
  logic g_uop, a_uop;
  logic [15:0] wr_outs;                    // write responses outstanding (AXI register)

  ovta_fetch u_fetch (
    .clk_i, .rst_ni(unit_rst_n), .start_i(run_start), .stop_i(uerr[3:1] != '0),
    .insn_addr_i(AXI_ADDR_BITS'(insn_addr)), .insn_count_i(insn_count), .push_o(q_push),
    .cmd_o(q_in), .full_i(q_full), .done_o(f_done), .err_o(f_err), .err_rule_o(f_rule),
    .err_idx_o(f_idx), .quiet_o(f_quiet), .busy_o(f_busy), .rx_idx_o(f_rx_idx),
    .req_valid_o(rq_valid[RQ_FETCH]), .req_addr_o(rq_addr[AXI_ADDR_BITS * RQ_FETCH +: AXI_ADDR_BITS]),
    .req_len_o(rq_len[8 * RQ_FETCH +: 8]),
    .req_ready_i(rq_ready[RQ_FETCH]), .rd_valid_i(rd_valid[RQ_FETCH]), .rd_data_i(rd_data),
    .rd_ready_o(rd_ready[RQ_FETCH]));

  logic inp_we, wgt_we;
  // lint waiver: SRAM indices are 16 bits wide, each SRAM uses the bits of its depth
  // verilator lint_off UNUSEDSIGNAL
  logic [15:0] ld_idx;
  // verilator lint_on UNUSEDSIGNAL
  logic [WGT_BITS-1:0] ld_data;
  ovta_load u_load (
    .clk_i, .rst_ni(unit_rst_n), .cmd_valid_i(q_valid[DST_LOAD]), .cmd_i(q_head[DST_LOAD]),
    .cmd_pop_o(q_pop[DST_LOAD]), .c2l_tok_i(t_tok[1]), .c2l_pop_o(t_pop[1]),
    .l2c_room_i(t_room[0]), .l2c_push_o(t_push[0]), .inp_we_o(inp_we), .wgt_we_o(wgt_we),
    .wr_idx_o(ld_idx), .wr_data_o(ld_data), .retire_o(retire[0]), .busy_o(busy[0]),
    .stall_o(stall[0]), .quiet_o(quiet[1]), .err_o(uerr[1]), .idx_o(m_idx[0]), .dbg_o(d_load),
    .bytes_inp_o(b_inp), .bytes_wgt_o(b_wgt),
    .req_valid_o(rq_valid[RQ_LOAD]), .req_addr_o(rq_addr[AXI_ADDR_BITS * RQ_LOAD +: AXI_ADDR_BITS]),
    .req_len_o(rq_len[8 * RQ_LOAD +: 8]),
    .req_ready_i(rq_ready[RQ_LOAD]), .rd_valid_i(rd_valid[RQ_LOAD]), .rd_data_i(rd_data),
    .rd_ready_o(rd_ready[RQ_LOAD]));

  logic inp_re, wgt_re, out_re;
  logic [$clog2(INP_DEPTH)-1:0] inp_ra;
  logic [$clog2(WGT_DEPTH)-1:0] wgt_ra;
  logic [$clog2(OUT_DEPTH)-1:0] out_ra;
  logic [INP_BITS-1:0] inp_rd;
  logic [WGT_BITS-1:0] wgt_rd;
  logic [OUT_BITS-1:0] out_rd;
  ovta_sram #(.WIDTH(INP_BITS), .DEPTH(INP_DEPTH)) u_inp (
    .clk_i, .we_i(inp_we), .waddr_i($clog2(INP_DEPTH)'(ld_idx)),
    .wdata_i(ld_data[WGT_BITS-1 -: INP_BITS]), .re_i(inp_re), .raddr_i(inp_ra), .rdata_o(inp_rd));
  ovta_sram #(.WIDTH(WGT_BITS), .DEPTH(WGT_DEPTH)) u_wgt (
    .clk_i, .we_i(wgt_we), .waddr_i($clog2(WGT_DEPTH)'(ld_idx)), .wdata_i(ld_data),
    .re_i(wgt_re), .raddr_i(wgt_ra), .rdata_o(wgt_rd));

  ovta_compute u_compute (
    .clk_i, .rst_ni(unit_rst_n), .cmd_valid_i(q_valid[DST_COMPUTE]), .cmd_i(q_head[DST_COMPUTE]),
    .cmd_pop_o(q_pop[DST_COMPUTE]), .l2c_tok_i(t_tok[0]), .l2c_pop_o(t_pop[0]),
    .s2c_tok_i(t_tok[3]), .s2c_pop_o(t_pop[3]), .c2l_room_i(t_room[1]), .c2l_push_o(t_push[1]),
    .c2s_room_i(t_room[2]), .c2s_push_o(t_push[2]),
    .inp_re_o(inp_re), .inp_raddr_o(inp_ra), .inp_rdata_i(inp_rd),
    .wgt_re_o(wgt_re), .wgt_raddr_o(wgt_ra), .wgt_rdata_i(wgt_rd),
    .out_re_i(out_re), .out_raddr_i(out_ra), .out_rdata_o(out_rd),
    .retire_o(retire[1]), .finish_o(finish), .busy_o(busy[1]), .stall_o(stall[1]),
    .quiet_o(quiet[2]), .err_o(uerr[2]), .rule_o(c_rule), .err_val_o(c_val), .idx_o(m_idx[1]), .dbg_o(d_comp),
    .bytes_uop_o(b_uop), .bytes_acc_o(b_acc), .gemm_uop_o(g_uop), .alu_uop_o(a_uop),
    .req_valid_o(rq_valid[RQ_COMPUTE]), .req_addr_o(rq_addr[AXI_ADDR_BITS * RQ_COMPUTE +: AXI_ADDR_BITS]),
    .req_len_o(rq_len[8 * RQ_COMPUTE +: 8]), .req_ready_i(rq_ready[RQ_COMPUTE]),
    .rd_valid_i(rd_valid[RQ_COMPUTE]), .rd_data_i(rd_data), .rd_ready_o(rd_ready[RQ_COMPUTE]));

  ovta_store u_store (
    .clk_i, .rst_ni(unit_rst_n), .cmd_valid_i(q_valid[DST_STORE]), .cmd_i(q_head[DST_STORE]),
    .cmd_pop_o(q_pop[DST_STORE]), .c2s_tok_i(t_tok[2]), .c2s_pop_o(t_pop[2]),
    .s2c_room_i(t_room[3]), .s2c_push_o(t_push[3]),
    .out_re_o(out_re), .out_raddr_o(out_ra), .out_rdata_i(out_rd),
    .retire_o(retire[2]), .busy_o(busy[2]), .stall_o(stall[2]), .quiet_o(quiet[3]),
    .err_o(uerr[3]), .idx_o(m_idx[2]), .dbg_o(d_store), .outs_o(wr_outs), .bytes_o(b_out),
    .awvalid_o(m_awvalid_o), .awready_i(m_awready_i), .awaddr_o(m_awaddr_o), .awlen_o(m_awlen_o),
    .wvalid_o(m_wvalid_o), .wready_i(m_wready_i), .wdata_o(m_wdata_o), .wstrb_o(m_wstrb_o),
    .wlast_o(m_wlast_o),
    .bvalid_i(m_bvalid_i), .bready_o(m_bready_o));

  assign quiet[0] = f_quiet;
  assign uerr[0] = f_err;

  // ---------------------------------------------------------------- AXI error responses
  // An R beat or B response with RRESP/BRESP[1] set (SLVERR, DECERR) taken while running: the
  // unit is the RID (fetch, load, compute) or store for B; its instruction is the one it
  // executes (load/compute/store run one at a time and wait for their own bursts: exact) or,
  // for fetch, the instruction the beat carries.
  logic r_err, b_err, bus_err;
  logic [1:0] bus_unit, bus_resp;
  logic [31:0] bus_idx;
  assign r_err = m_rvalid_i && m_rready_o && m_rresp_i[1];
  assign b_err = m_bvalid_i && m_bready_o && m_bresp_i[1];
  assign bus_err = running && !bus_halt_q && (r_err || b_err);
  always_comb begin
    bus_unit = 2'd3;
    bus_resp = m_bresp_i;
    bus_idx = m_idx[2];
    if (r_err) begin  // R first when both happen in one cycle
      bus_unit = 2'(m_rid_i);
      bus_resp = m_rresp_i;
      unique case (m_rid_i)
        ID_W'(RQ_FETCH): bus_idx = f_rx_idx;
        ID_W'(RQ_LOAD): bus_idx = m_idx[0];
        default: bus_idx = m_idx[1];
      endcase
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) bus_halt_q <= 1'b0;
    else if (soft_rst_q) bus_halt_q <= 1'b0;
    else if (bus_err) bus_halt_q <= 1'b1;
  end

  // ---------------------------------------------------------------- run control, counters
  assign inc = {16'(f_busy), 16'(stall[2]), 16'(stall[1]), 16'(stall[0]), 16'(busy[2]),
                16'(busy[1]), 16'(busy[0]), 16'(a_uop), 16'(g_uop), b_out, b_acc, b_inp, b_wgt,
                b_uop, 16'(retire[2]), 16'(retire[1]), 16'(retire[0]), 16'd1};
  ovta_ctrl #(.NCNT(NCNT)) u_ctrl (
    .clk_i, .rst_ni(core_rst_n), .start_i(run_start), .insn_count_i(insn_count), .quiet_i(quiet),
    .err_i(uerr), .err_idx_i({m_idx[2], m_idx[1], m_idx[0], f_idx}),
    .err_rule_i({RULE_ADDR, c_rule, RULE_ADDR, f_rule}), .fetch_done_i(f_done),
    .bus_err_i(bus_err), .bus_unit_i(bus_unit), .bus_resp_i(bus_resp), .bus_idx_i(bus_idx),
    .retire_i(retire), .finish_i(finish), .inc_i(inc), .running_o(running), .done_o(done),
    .status_o(status), .rule_o(rule), .err_unit_o(err_unit), .err_idx_o(err_idx), .err_resp_o(err_resp),
    .finishes_o(finishes), .retired_o(retired), .cnt_o(cnt));

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (INSN_BITS == 128 && $bits(cmd_t) == CMD_BITS) else $fatal(1, "ovta_top: cmd_t must hold INSN_BITS");
  end
`endif

  // ---------------------------------------------------------------- register file (reads)
  function automatic logic [7:0] sat8(logic [31:0] v);
    sat8 = v > 32'd255 ? 8'd255 : v[7:0];
  endfunction
  ovta_rdmux #(.NCNT(NCNT)) u_rdmux (
    .addr_i(reg_addr), .data_o(reg_data), .running_i(running), .done_i(done), .status_i(status),
    .rule_i(rule), .err_unit_i(err_unit), .err_resp_i(err_resp), .err_idx_i(err_idx), .insn_addr_i(insn_addr),
    .insn_count_i(insn_count), .finishes_i(finishes), .cnt_i(cnt), .retired_i(retired),
    .dbg_i({32'(d_store), 32'(d_comp), 32'(d_load)}), .idx_i({m_idx[2], m_idx[1], m_idx[0]}),
    .tokens_i({sat8(32'(t_cnt[3])), sat8(32'(t_cnt[2])), sat8(32'(t_cnt[1])), sat8(32'(t_cnt[0]))}),
    .cmdq_i({2'd0, 10'(q_cnt[2]), 10'(q_cnt[1]), 10'(q_cnt[0])}),
    .fetch_i({f_err, f_quiet, f_done}), .err_val_i(c_val),
    .axi_i({5'd0, m_wvalid_o && !m_wready_i, m_awvalid_o && !m_awready_i, bus_halt_q, sat8(32'(wr_outs)),
            7'd0, m_arvalid_o && !m_arready_i, rd_inflight}));
endmodule
