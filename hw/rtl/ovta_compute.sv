// ovta_compute: the compute module. Executes LOAD UOP/ACC, GEMM, ALU and FINISH from its
// command queue in order, one at a time, under the token rule (pops L2C/S2C, pushes C2L/C2S).
// Owns the uop SRAM, the accumulator SRAM (two copies: two read ports, ovta_sram_2r) and the
// write side of the OUT SRAM (whose read port serves the store module).
`default_nettype none
module ovta_compute
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic                     cmd_valid_i,
  input  wire cmd_t                     cmd_i,
  output      logic                     cmd_pop_o,
  input  wire logic                     l2c_tok_i,   // pop_prev source
  output      logic                     l2c_pop_o,
  input  wire logic                     s2c_tok_i,   // pop_next source
  output      logic                     s2c_pop_o,
  input  wire logic                     c2l_room_i,  // push_prev target
  output      logic                     c2l_push_o,
  input  wire logic                     c2s_room_i,  // push_next target
  output      logic                     c2s_push_o,
  // INP / WGT SRAM read ports
  output      logic                          inp_re_o,
  output      logic [$clog2(INP_DEPTH)-1:0]  inp_raddr_o,
  input  wire logic [INP_BITS-1:0]           inp_rdata_i,
  output      logic                          wgt_re_o,
  output      logic [$clog2(WGT_DEPTH)-1:0]  wgt_raddr_o,
  input  wire logic [WGT_BITS-1:0]           wgt_rdata_i,
  // OUT SRAM read port (store)
  input  wire logic                          out_re_i,
  input  wire logic [$clog2(OUT_DEPTH)-1:0]  out_raddr_i,
  output      logic [OUT_BITS-1:0]           out_rdata_o,
  // status
  output      logic                     retire_o,
  output      logic                     finish_o,    // pulse: a FINISH retired
  output      logic                     busy_o,
  output      logic                     stall_o,
  output      logic                     quiet_o,
  output      logic                     err_o,       // halted on an error
  output      rule_e                    rule_o,      // why
  output      logic [31:0]              err_val_o,   // the offending index (dynamic rules)
  output      logic [31:0]              idx_o,
  output      dbg_t                     dbg_o,
  output      logic [15:0]              bytes_uop_o,
  output      logic [15:0]              bytes_acc_o,
  output      logic                     gemm_uop_o,
  output      logic                     alu_uop_o,
  // reads
  output      logic                     req_valid_o,
  output      logic [AXI_ADDR_BITS-1:0] req_addr_o,
  output      logic [7:0]               req_len_o,
  input  wire logic                     req_ready_i,
  input  wire logic                     rd_valid_i,
  input  wire logic [BUS_BITS-1:0]      rd_data_i,
  output      logic                     rd_ready_o
);
  typedef enum logic [3:0] {S_IDLE, S_START, S_DMA, S_EXEC, S_HALT} state_e;
  state_e state_q, state_d;
  cmd_t cur_q, cur_d;
  // lint waiver: only some fields are needed
  // verilator lint_off UNUSEDSIGNAL
  mem_t hm, cm;           // head and current as LOAD format
  // verilator lint_on UNUSEDSIGNAL
  logic [2:0] cop, hop;    // opcode of the current instruction, of the queue head
  logic [INSN_BITS-1:0] ex_insn;  // the instruction ovta_exec runs (the head when it starts)
  logic ok_pop, ok_push, can_start, is_uop;
  rule_e rule_q, rule_d;

  assign hm = cmd_i.insn;
  assign cm = cur_q.insn;
  assign cop = cur_q.insn[2:0];
  assign hop = cmd_i.insn[2:0];
  assign ex_insn = state_q == S_IDLE ? cmd_i.insn : cur_q.insn;
  assign ok_pop = (!hm.pop_prev || l2c_tok_i) && (!hm.pop_next || s2c_tok_i);
  assign ok_push = (!hm.push_prev || c2l_room_i) && (!hm.push_next || c2s_room_i);
  assign can_start = cmd_valid_i && ok_pop && ok_push;
  assign is_uop = cm.memory_type == MEM_UOP;

  // ---------------------------------------------------------------- units
  logic dma_start, dma_done, dma_err, dma_wr;
  // lint waiver: SRAM indices are 16 bits wide, each SRAM uses the bits of its depth
  // verilator lint_off UNUSEDSIGNAL
  logic [15:0] dma_idx;
  // verilator lint_on UNUSEDSIGNAL
  logic [15:0] dma_bytes;
  logic [ACC_BITS-1:0] dma_data;
  ovta_dma_rd #(.MAXW(ACC_BITS), .MINW(UOP_BITS)) u_dma (
    .clk_i, .rst_ni, .start_i(dma_start), .m_i(cm),
    .log_eb_i(is_uop ? 4'($clog2(UOP_BYTES)) : 4'($clog2(ACC_BYTES))),
    .done_o(dma_done), .err_o(dma_err),
    .wr_valid_o(dma_wr), .wr_idx_o(dma_idx), .wr_data_o(dma_data), .bytes_o(dma_bytes),
    .req_valid_o, .req_addr_o, .req_len_o, .req_ready_i, .rd_valid_i, .rd_data_i, .rd_ready_o);
  assign bytes_uop_o = is_uop ? dma_bytes : '0;
  assign bytes_acc_o = is_uop ? '0 : dma_bytes;

  logic ex_start, ex_done, ex_err;
  rule_e ex_rule;
  logic [31:0] ex_val, val_q;
  logic uop_re, acc_re_a, acc_re_b, ex_we;
  logic [$clog2(UOP_DEPTH)-1:0] uop_raddr;
  logic [UOP_BITS-1:0] uop_rdata;
  logic [$clog2(ACC_DEPTH)-1:0] acc_ra_a, acc_ra_b, ex_waddr;
  logic [ACC_BITS-1:0] acc_rd_a, acc_rd_b, ex_wacc;
  logic [OUT_BITS-1:0] ex_wout;
  ovta_exec u_exec (
    .clk_i, .rst_ni, .start_i(ex_start), .insn_i(ex_insn), .done_o(ex_done), .err_o(ex_err),
    .rule_o(ex_rule), .err_val_o(ex_val), .gemm_uop_o, .alu_uop_o,
    .uop_re_o(uop_re), .uop_raddr_o(uop_raddr), .uop_rdata_i(uop_rdata),
    .inp_re_o, .inp_raddr_o, .inp_rdata_i, .wgt_re_o, .wgt_raddr_o, .wgt_rdata_i,
    .acc_re_a_o(acc_re_a), .acc_raddr_a_o(acc_ra_a), .acc_rdata_a_i(acc_rd_a),
    .acc_re_b_o(acc_re_b), .acc_raddr_b_o(acc_ra_b), .acc_rdata_b_i(acc_rd_b),
    .we_o(ex_we), .waddr_o(ex_waddr), .wacc_o(ex_wacc), .wout_o(ex_wout));

  // ---------------------------------------------------------------- memories
  logic acc_we;
  logic [$clog2(ACC_DEPTH)-1:0] acc_wa;
  logic [ACC_BITS-1:0] acc_wd;
  assign acc_we = ex_we || (dma_wr && !is_uop);
  assign acc_wa = ex_we ? ex_waddr : $clog2(ACC_DEPTH)'(dma_idx);
  assign acc_wd = ex_we ? ex_wacc : dma_data[ACC_BITS-1 -: ACC_BITS];

  ovta_sram #(.WIDTH(UOP_BITS), .DEPTH(UOP_DEPTH)) u_uop (
    .clk_i, .we_i(dma_wr && is_uop), .waddr_i($clog2(UOP_DEPTH)'(dma_idx)),
    .wdata_i(dma_data[ACC_BITS-1 -: UOP_BITS]), .re_i(uop_re), .raddr_i(uop_raddr),
    .rdata_o(uop_rdata));
  // both copies take every write (DMA loads and micro-ops): port a reads dst, port b src
  ovta_sram_2r #(.WIDTH(ACC_BITS), .DEPTH(ACC_DEPTH)) u_acc (
    .clk_i, .we_i(acc_we), .waddr_i(acc_wa), .wdata_i(acc_wd),
    .re_a_i(acc_re_a), .raddr_a_i(acc_ra_a), .rdata_a_o(acc_rd_a),
    .re_b_i(acc_re_b), .raddr_b_i(acc_ra_b), .rdata_b_o(acc_rd_b));
  ovta_sram #(.WIDTH(OUT_BITS), .DEPTH(OUT_DEPTH)) u_out (
    .clk_i, .we_i(ex_we), .waddr_i(ex_waddr), .wdata_i(ex_wout), .re_i(out_re_i),
    .raddr_i(out_raddr_i), .rdata_o(out_rdata_o));

  // ---------------------------------------------------------------- control
  always_comb begin
    state_d = state_q;
    cur_d = cur_q;
    rule_d = rule_q;
    cmd_pop_o = 1'b0;
    l2c_pop_o = 1'b0;
    s2c_pop_o = 1'b0;
    c2l_push_o = 1'b0;
    c2s_push_o = 1'b0;
    retire_o = 1'b0;
    finish_o = 1'b0;
    dma_start = 1'b0;
    ex_start = 1'b0;
    unique case (state_q)
      S_IDLE: if (can_start) begin
        cmd_pop_o = 1'b1;
        l2c_pop_o = hm.pop_prev;
        s2c_pop_o = hm.pop_next;
        cur_d = cmd_i;
        // GEMM and ALU start the micro-op loop at once (ex_insn is the queue head this cycle)
        if (hop == OP_GEMM || hop == OP_ALU) begin
          ex_start = 1'b1;
          state_d = S_EXEC;
        end else state_d = S_START;
      end
      S_START: begin
        if (cop == OP_LOAD) begin
          dma_start = 1'b1;
          if (dma_done) begin  // a sync completes at once
            retire_o = 1'b1;
            c2l_push_o = cm.push_prev;
            c2s_push_o = cm.push_next;
            state_d = S_IDLE;
          end else state_d = S_DMA;
        end else begin  // FINISH (GEMM and ALU go from S_IDLE to S_EXEC)
          finish_o = 1'b1;
          retire_o = 1'b1;
          c2l_push_o = cm.push_prev;
          c2s_push_o = cm.push_next;
          state_d = S_IDLE;
        end
      end
      S_DMA, S_EXEC: begin
        if ((state_q == S_DMA && dma_err) || (state_q == S_EXEC && ex_done && ex_err)) begin
          rule_d = state_q == S_DMA ? RULE_ADDR : ex_rule;
          state_d = S_HALT;
        end else if ((state_q == S_DMA && dma_done) || (state_q == S_EXEC && ex_done)) begin
          retire_o = 1'b1;
          c2l_push_o = cm.push_prev;
          c2s_push_o = cm.push_next;
          state_d = S_IDLE;
        end
      end
      S_HALT: ;
      default: state_d = S_HALT;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      cur_q <= '0;
      rule_q <= RULE_NONE;
      val_q <= '0;
    end else begin
      if (state_q == S_EXEC && ex_done && ex_err) val_q <= ex_val;
      state_q <= state_d;
      cur_q <= cur_d;
      rule_q <= rule_d;
    end
  end

  assign busy_o = state_q != S_IDLE && state_q != S_HALT;
  assign stall_o = state_q == S_IDLE && cmd_valid_i && !can_start;
  assign quiet_o = state_q == S_HALT || (state_q == S_IDLE && !can_start);
  assign err_o = state_q == S_HALT;
  assign rule_o = rule_q;
  assign err_val_o = val_q;
  assign idx_o = state_q == S_IDLE ? cmd_i.idx : cur_q.idx;
  always_comb begin
    dbg_o = '0;
    dbg_o.state = 4'(state_q);
    dbg_o.busy = busy_o;
    dbg_o.head_valid = cmd_valid_i;
    dbg_o.halted = err_o;
    dbg_o.opcode = state_q == S_IDLE ? cmd_i.insn[2:0] : cur_q.insn[2:0];
    dbg_o.wait_q = {cmd_valid_i && (hm.pop_prev && !l2c_tok_i), cmd_valid_i && (hm.pop_next && !s2c_tok_i),
                    cmd_valid_i && (hm.push_prev && !c2l_room_i), cmd_valid_i && (hm.push_next && !c2s_room_i)};
  end
endmodule
