// ovta_load: the load module. Executes LOAD INP / LOAD WGT from its command queue in order,
// one at a time: waits until the C2L token (pop_next) is there and L2C has room (push_next),
// pops, runs the 2D DMA (ovta_dma_rd) into the INP or WGT SRAM, then pushes.
`default_nettype none
module ovta_load
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  // command queue head
  input  wire logic                     cmd_valid_i,
  input  wire cmd_t                     cmd_i,
  output      logic                     cmd_pop_o,
  // tokens
  input  wire logic                     c2l_tok_i,   // pop_next source
  output      logic                     c2l_pop_o,
  input  wire logic                     l2c_room_i,  // push_next target
  output      logic                     l2c_push_o,
  // SRAM writes
  output      logic                     inp_we_o,
  output      logic                     wgt_we_o,
  output      logic [15:0]              wr_idx_o,
  output      logic [WGT_BITS-1:0]      wr_data_o,   // element in the top bits
  // status
  output      logic                     retire_o,    // pulse: an instruction retired
  output      logic                     busy_o,      // executing
  output      logic                     stall_o,     // head waits on a token or room
  output      logic                     quiet_o,     // can make no progress by itself
  output      logic                     err_o,       // halted on an error
  output      logic [31:0]              idx_o,       // index of the current / head instruction
  output      dbg_t                     dbg_o,
  output      logic [15:0]              bytes_inp_o, // DRAM bytes read this cycle, INP
  output      logic [15:0]              bytes_wgt_o, // ... WGT
  // reads
  output      logic                     req_valid_o,
  output      logic [AXI_ADDR_BITS-1:0] req_addr_o,
  output      logic [7:0]               req_len_o,
  input  wire logic                     req_ready_i,
  input  wire logic                     rd_valid_i,
  input  wire logic [BUS_BITS-1:0]      rd_data_i,
  output      logic                     rd_ready_o
);
  typedef enum logic [3:0] {S_IDLE, S_RUN, S_HALT} state_e;
  state_e state_q, state_d;
  cmd_t cur_q, cur_d;     // the executing instruction
  // lint waiver: only some fields of the head are needed
  // verilator lint_off UNUSEDSIGNAL
  mem_t hm, cm;           // head and current as LOAD/STORE format
  // verilator lint_on UNUSEDSIGNAL
  logic ok_pop, ok_push, can_start, start, done, dma_err;
  logic [15:0] bytes;
  logic [3:0] log_eb;

  assign hm = cmd_i.insn;
  assign cm = cur_q.insn;
  assign ok_pop = !hm.pop_next || c2l_tok_i;
  assign ok_push = !hm.push_next || l2c_room_i;
  assign can_start = cmd_valid_i && ok_pop && ok_push;
  assign log_eb = cm.memory_type == MEM_WGT ? 4'($clog2(WGT_BYTES)) : 4'($clog2(INP_BYTES));

  always_comb begin
    state_d = state_q;
    cur_d = cur_q;
    cmd_pop_o = 1'b0;
    c2l_pop_o = 1'b0;
    l2c_push_o = 1'b0;
    retire_o = 1'b0;
    unique case (state_q)
      S_IDLE: begin
        if (can_start) begin
          cmd_pop_o = 1'b1;
          c2l_pop_o = hm.pop_next;
          cur_d = cmd_i;
          state_d = S_RUN;
        end
      end
      S_RUN: begin
        if (dma_err) state_d = S_HALT;
        else if (done) begin
          l2c_push_o = cm.push_next;
          retire_o = 1'b1;
          state_d = S_IDLE;
        end
      end
      S_HALT: ;
      default: state_d = S_HALT;
    endcase
  end

  // the engine starts the cycle after the pop (cur_q then holds the instruction)
  logic start_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      cur_q <= '0;
      start_q <= 1'b0;
    end else begin
      state_q <= state_d;
      cur_q <= cur_d;
      start_q <= cmd_pop_o;
    end
  end
  assign start = start_q;

  logic wr_valid;
  ovta_dma_rd #(.MAXW(WGT_BITS), .MINW(INP_BITS < WGT_BITS ? INP_BITS : WGT_BITS)) u_dma (
    .clk_i, .rst_ni, .start_i(start), .m_i(cm), .log_eb_i(log_eb),
    .done_o(done), .err_o(dma_err),
    .wr_valid_o(wr_valid), .wr_idx_o(wr_idx_o), .wr_data_o(wr_data_o), .bytes_o(bytes),
    .req_valid_o, .req_addr_o, .req_len_o, .req_ready_i, .rd_valid_i, .rd_data_i, .rd_ready_o);

  assign inp_we_o = wr_valid && cm.memory_type == MEM_INP;
  assign wgt_we_o = wr_valid && cm.memory_type == MEM_WGT;
  assign bytes_inp_o = cm.memory_type == MEM_INP ? bytes : '0;
  assign bytes_wgt_o = cm.memory_type == MEM_WGT ? bytes : '0;

  assign busy_o = state_q == S_RUN;
  assign stall_o = state_q == S_IDLE && cmd_valid_i && !can_start;
  assign quiet_o = state_q == S_HALT || (state_q == S_IDLE && !can_start);
  assign err_o = state_q == S_HALT;
  assign idx_o = state_q == S_IDLE ? cmd_i.idx : cur_q.idx;
  always_comb begin
    dbg_o = '0;
    dbg_o.state = 4'(state_q);
    dbg_o.busy = busy_o;
    dbg_o.head_valid = cmd_valid_i;
    dbg_o.halted = err_o;
    dbg_o.opcode = state_q == S_IDLE ? cmd_i.insn[2:0] : cur_q.insn[2:0];
    dbg_o.wait_q = {1'b0, cmd_valid_i && !ok_pop, 1'b0, cmd_valid_i && !ok_push};
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (WGT_BITS >= INP_BITS) else $fatal(1, "ovta_load: INP elements wider than WGT elements");
  end
`endif
endmodule
