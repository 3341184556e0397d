// ovta_compute: the compute module. Executes LOAD UOP/ACC, GEMM, ALU and FINISH from its
// command queue in order under the token rule (pops L2C/S2C, pushes C2L/C2S). Two execution
// slots, one ovta_exec each: slot G runs GEMMs, slot A ALU instructions. An instruction starts
// when both slots are empty, or, with its overlap bit (isa/ISA.md "Overlap"), when its own slot
// is empty and the other one holds only the instruction right before it; instructions retire
// (push their tokens) in order, one a cycle. LOAD and FINISH run alone.
// Owns the uop SRAM (two copies: a read port per slot), the accumulator SRAM in two banks
// (the ACC halves, each two copies: two read ports and a write port per bank) and the write
// side of the OUT SRAM (two banks; its read port serves the store module).
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
  // the debug state numbers of before: 0 idle (here: running GEMM/ALU slots), 3 executing (S_RUN with a slot occupied)
  typedef enum logic [3:0] {S_RUN = 4'd0, S_START = 4'd1, S_DMA = 4'd2, S_HALT = 4'd4} state_e;
  localparam int unsigned AW = $clog2(ACC_DEPTH);   // ACC/OUT index bits; bit AW-1 is the bank
  localparam int unsigned HD = ACC_DEPTH / 2;       // words per bank
  state_e state_q, state_d;
  cmd_t cur_q, cur_d;     // the LOAD/FINISH running; the failing instruction once halted
  // lint waiver: only some fields are needed
  // verilator lint_off UNUSEDSIGNAL
  mem_t hm, cm;           // head and current as LOAD format
  gemm_t hg;              // head as GEMM format (the overlap bit sits at the same place for ALU)
  // verilator lint_on UNUSEDSIGNAL
  logic [2:0] cop, hop;    // opcode of the current instruction, of the queue head
  logic ok_pop, ok_push, can_start, is_uop;
  rule_e rule_q, rule_d;

  assign hm = cmd_i.insn;
  assign hg = cmd_i.insn;
  assign cm = cur_q.insn;
  assign cop = cur_q.insn[2:0];
  assign hop = cmd_i.insn[2:0];
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

  // two slots: index 0 = G (GEMM), 1 = A (ALU)
  logic [1:0] ex_start, ex_done, ex_err, uop_re, acc_re_a, ex_we;
  // lint waiver: slot G (GEMM) never reads ACC port b
  // verilator lint_off UNUSEDSIGNAL
  logic [1:0] acc_re_b;
  // verilator lint_on UNUSEDSIGNAL
  rule_e ex_rule_g, ex_rule_a;   // per slot (no arrays of enums or structs: Yosys 0.23)
  logic [31:0] ex_val [2];
  logic [$clog2(UOP_DEPTH)-1:0] uop_raddr [2];
  logic [UOP_BITS-1:0] uop_rdata [2];
  // the wide (and address) signals of a slot are named per slot, g_* and a_*, not unpacked
  // arrays: Verilator copies an array element fed by a port every cycle
  logic [AW-1:0] g_ra_a, a_ra_a, a_ra_b, g_waddr, a_waddr;
  logic [ACC_BITS-1:0] g_rd_a, a_rd_a, a_rd_b, g_wacc, a_wacc;
  logic [OUT_BITS-1:0] g_wout, a_wout;
  // lint waiver: slot G never reads ACC port b
  // verilator lint_off UNUSEDSIGNAL
  logic [AW-1:0] g_ra_b;
  // verilator lint_on UNUSEDSIGNAL
  cmd_t slot_g_q, slot_a_q;  // the instruction each slot holds (a free slot's exec sees the head)
  logic [1:0] occ_q, fin_q, ferr_q;   // slot holds an instruction; it finished (with an error)
  logic [1:0] g_unused;    // slot A's GEMM outputs, slot G's ALU outputs (always 0)
  // lint waiver: slot A reads no INP/WGT, slot G no second ACC operand
  // verilator lint_off UNUSEDSIGNAL
  logic a_inp_re, a_wgt_re;
  logic [$clog2(INP_DEPTH)-1:0] a_inp_ra;
  logic [$clog2(WGT_DEPTH)-1:0] a_wgt_ra;
  // verilator lint_on UNUSEDSIGNAL
  ovta_exec #(.GEMM_EN(1'b1), .ALU_EN(1'b0)) u_exec_g (
    .clk_i, .rst_ni, .start_i(ex_start[0]), .insn_i(occ_q[0] ? slot_g_q.insn : cmd_i.insn),
    .done_o(ex_done[0]), .err_o(ex_err[0]), .rule_o(ex_rule_g), .err_val_o(ex_val[0]),
    .gemm_uop_o, .alu_uop_o(g_unused[0]),
    .uop_re_o(uop_re[0]), .uop_raddr_o(uop_raddr[0]), .uop_rdata_i(uop_rdata[0]),
    .inp_re_o, .inp_raddr_o, .inp_rdata_i, .wgt_re_o, .wgt_raddr_o, .wgt_rdata_i,
    .acc_re_a_o(acc_re_a[0]), .acc_raddr_a_o(g_ra_a), .acc_rdata_a_i(g_rd_a),
    .acc_re_b_o(acc_re_b[0]), .acc_raddr_b_o(g_ra_b), .acc_rdata_b_i('0),
    .we_o(ex_we[0]), .waddr_o(g_waddr), .wacc_o(g_wacc), .wout_o(g_wout));
  ovta_exec #(.GEMM_EN(1'b0), .ALU_EN(1'b1)) u_exec_a (
    .clk_i, .rst_ni, .start_i(ex_start[1]), .insn_i(occ_q[1] ? slot_a_q.insn : cmd_i.insn),
    .done_o(ex_done[1]), .err_o(ex_err[1]), .rule_o(ex_rule_a), .err_val_o(ex_val[1]),
    .gemm_uop_o(g_unused[1]), .alu_uop_o,
    .uop_re_o(uop_re[1]), .uop_raddr_o(uop_raddr[1]), .uop_rdata_i(uop_rdata[1]),
    .inp_re_o(a_inp_re), .inp_raddr_o(a_inp_ra), .inp_rdata_i('0),
    .wgt_re_o(a_wgt_re), .wgt_raddr_o(a_wgt_ra), .wgt_rdata_i('0),
    .acc_re_a_o(acc_re_a[1]), .acc_raddr_a_o(a_ra_a), .acc_rdata_a_i(a_rd_a),
    .acc_re_b_o(acc_re_b[1]), .acc_raddr_b_o(a_ra_b), .acc_rdata_b_i(a_rd_b),
    .we_o(ex_we[1]), .waddr_o(a_waddr), .wacc_o(a_wacc), .wout_o(a_wout));

  // ---------------------------------------------------------------- memories
  // uop: a copy per slot, both written by LOAD UOP
  logic [UOP_BITS-1:0] uop_wd;
  assign uop_wd = dma_data[ACC_BITS-1 -: UOP_BITS];
  ovta_sram_2r #(.WIDTH(UOP_BITS), .DEPTH(UOP_DEPTH)) u_uop (
    .clk_i, .we_i(dma_wr && is_uop), .waddr_i($clog2(UOP_DEPTH)'(dma_idx)), .wdata_i(uop_wd),
    .re_a_i(uop_re[0]), .raddr_a_i(uop_raddr[0]), .rdata_a_o(uop_rdata[0]),
    .re_b_i(uop_re[1]), .raddr_b_i(uop_raddr[1]), .rdata_b_o(uop_rdata[1]));

  // ACC and OUT in two banks, the halves of the index space (bit AW-1). Port a of a bank
  // serves the slot whose dst is in it (both slots in one bank at once: a broken overlap
  // promise), port b the ALU's tensor operand; the write port the slot writing into it, else
  // LOAD ACC. A slot's read data comes from the bank it read (registered with the read).
  // (Two banks written out, bank 0 and bank 1, with the wide signals named per bank: no
  // generate loop over unpacked arrays of words, which Verilator copies every cycle.)
  logic [1:0] g_wb, a_wb, d_wb;   // slot G, slot A, LOAD ACC writes into bank k
  logic [1:0] bk_we, bk_re_a, bk_re_b, bk_asel;
  logic [AW-2:0] bk0_wa, bk1_wa, bk0_ra_a, bk1_ra_a;
  logic [ACC_BITS-1:0] bk0_wd, bk1_wd, bk0_rd_a, bk1_rd_a, bk0_rd_b, bk1_rd_b;
  logic [OUT_BITS-1:0] bk0_wout, bk1_wout, bk0_out_rd, bk1_out_rd;
  logic [1:0] rsel_a_q;    // bank each slot's port-a read came from
  logic rsel_b_q, osel_q;  // bank of slot A's port-b read, of the store's OUT read
  logic dma_acc;
  assign dma_acc = dma_wr && !is_uop;
  always_comb begin
    for (int k = 0; k < 2; k++) begin
      g_wb[k] = ex_we[0] && g_waddr[AW-1] == 1'(k);
      a_wb[k] = ex_we[1] && a_waddr[AW-1] == 1'(k);
      d_wb[k] = dma_acc && dma_idx[AW-1] == 1'(k);
      bk_we[k] = g_wb[k] || a_wb[k] || d_wb[k];
      bk_asel[k] = acc_re_a[1] && a_ra_a[AW-1] == 1'(k);   // 1: slot A reads port a
      bk_re_a[k] = bk_asel[k] || (acc_re_a[0] && g_ra_a[AW-1] == 1'(k));
      bk_re_b[k] = acc_re_b[1] && a_ra_b[AW-1] == 1'(k);
    end
    bk0_wa = g_wb[0] ? g_waddr[AW-2:0] : (a_wb[0] ? a_waddr[AW-2:0] : dma_idx[AW-2:0]);
    bk1_wa = g_wb[1] ? g_waddr[AW-2:0] : (a_wb[1] ? a_waddr[AW-2:0] : dma_idx[AW-2:0]);
    if (g_wb[0]) bk0_wd = g_wacc;
    else if (a_wb[0]) bk0_wd = a_wacc;
    else bk0_wd = dma_data[ACC_BITS-1 -: ACC_BITS];
    if (g_wb[1]) bk1_wd = g_wacc;
    else if (a_wb[1]) bk1_wd = a_wacc;
    else bk1_wd = dma_data[ACC_BITS-1 -: ACC_BITS];
    bk0_wout = g_wb[0] ? g_wout : a_wout;
    bk1_wout = g_wb[1] ? g_wout : a_wout;
    bk0_ra_a = bk_asel[0] ? a_ra_a[AW-2:0] : g_ra_a[AW-2:0];
    bk1_ra_a = bk_asel[1] ? a_ra_a[AW-2:0] : g_ra_a[AW-2:0];
  end
  ovta_sram_2r #(.WIDTH(ACC_BITS), .DEPTH(HD)) u_acc0 (
    .clk_i, .we_i(bk_we[0]), .waddr_i(bk0_wa), .wdata_i(bk0_wd),
    .re_a_i(bk_re_a[0]), .raddr_a_i(bk0_ra_a), .rdata_a_o(bk0_rd_a),
    .re_b_i(bk_re_b[0]), .raddr_b_i(a_ra_b[AW-2:0]), .rdata_b_o(bk0_rd_b));
  ovta_sram_2r #(.WIDTH(ACC_BITS), .DEPTH(HD)) u_acc1 (
    .clk_i, .we_i(bk_we[1]), .waddr_i(bk1_wa), .wdata_i(bk1_wd),
    .re_a_i(bk_re_a[1]), .raddr_a_i(bk1_ra_a), .rdata_a_o(bk1_rd_a),
    .re_b_i(bk_re_b[1]), .raddr_b_i(a_ra_b[AW-2:0]), .rdata_b_o(bk1_rd_b));
  ovta_sram #(.WIDTH(OUT_BITS), .DEPTH(HD)) u_out0 (
    .clk_i, .we_i(g_wb[0] || a_wb[0]), .waddr_i(bk0_wa), .wdata_i(bk0_wout),
    .re_i(out_re_i && !out_raddr_i[AW-1]), .raddr_i(out_raddr_i[AW-2:0]), .rdata_o(bk0_out_rd));
  ovta_sram #(.WIDTH(OUT_BITS), .DEPTH(HD)) u_out1 (
    .clk_i, .we_i(g_wb[1] || a_wb[1]), .waddr_i(bk1_wa), .wdata_i(bk1_wout),
    .re_i(out_re_i && out_raddr_i[AW-1]), .raddr_i(out_raddr_i[AW-2:0]), .rdata_o(bk1_out_rd));
  assign g_rd_a = rsel_a_q[0] ? bk1_rd_a : bk0_rd_a;
  assign a_rd_a = rsel_a_q[1] ? bk1_rd_a : bk0_rd_a;
  assign a_rd_b = rsel_b_q ? bk1_rd_b : bk0_rd_b;
  assign out_rdata_o = osel_q ? bk1_out_rd : bk0_out_rd;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rsel_a_q <= '0;
      rsel_b_q <= 1'b0;
      osel_q <= 1'b0;
    end else begin
      if (acc_re_a[0]) rsel_a_q[0] <= g_ra_a[AW-1];
      if (acc_re_a[1]) rsel_a_q[1] <= a_ra_a[AW-1];
      if (acc_re_b[1]) rsel_b_q <= a_ra_b[AW-1];
      if (out_re_i) osel_q <= out_raddr_i[AW-1];
    end
  end

  // ---------------------------------------------------------------- control
  rule_e frule_g_q, frule_a_q;        // the rule of a slot's error, held until it retires
  logic [31:0] fval_q [2];
  logic old_q;              // with both slots occupied: the one holding the older instruction
  logic [1:0] last_q;       // slot of the instruction started last (2: a LOAD/FINISH, or none)
  logic [1:0] fin_now, err_now;
  logic oldest, hs, hov, ex_head, slot_ok, ret, halt, any_occ;
  assign any_occ = occ_q != '0;
  logic [31:0] val_d, val_q;
  cmd_t rc;                 // the instruction retiring (the oldest slot's)
  logic [1:0] other_push;   // push_next, push_prev of the instruction in the head's other slot
  assign hs = hop == OP_ALU;
  assign hov = hg.overlap;
  assign ex_head = hop == OP_GEMM || hop == OP_ALU;
  always_comb begin
    for (int s = 0; s < 2; s++) begin
      fin_now[s] = occ_q[s] && (fin_q[s] || ex_done[s]);
      err_now[s] = fin_q[s] ? ferr_q[s] : ex_err[s];
    end
    oldest = (occ_q[0] && occ_q[1]) ? old_q : occ_q[1];
    rc = oldest ? slot_a_q : slot_g_q;
    other_push = hs ? slot_g_q.insn[6:5] : slot_a_q.insn[6:5];
    ret = state_q == S_RUN && fin_now[oldest] && !err_now[oldest];
    halt = state_q == S_RUN && fin_now[oldest] && err_now[oldest];
    // the head may start in its slot: both empty, or the other holds just its predecessor and
    // the head has the overlap bit and pushes into no queue the other pushes into
    slot_ok = !occ_q[hs] && (!occ_q[!hs] ||
              (hov && last_q == 2'(!hs) && !(hm.push_prev && other_push[0]) &&
               !(hm.push_next && other_push[1])));
  end

  always_comb begin
    state_d = state_q;
    cur_d = cur_q;
    rule_d = rule_q;
    val_d = val_q;
    cmd_pop_o = 1'b0;
    l2c_pop_o = 1'b0;
    s2c_pop_o = 1'b0;
    c2l_push_o = 1'b0;
    c2s_push_o = 1'b0;
    retire_o = 1'b0;
    finish_o = 1'b0;
    dma_start = 1'b0;
    ex_start = '0;
    unique case (state_q)
      S_RUN: begin
        if (halt) begin
          cur_d = rc;
          rule_d = fin_q[oldest] ? (oldest ? frule_a_q : frule_g_q) : (oldest ? ex_rule_a : ex_rule_g);
          val_d = fin_q[oldest] ? fval_q[oldest] : ex_val[oldest];
          state_d = S_HALT;
        end else begin
          if (ret) begin   // the oldest slot's instruction retires: in order, one a cycle
            retire_o = 1'b1;
            c2l_push_o = rc.insn[5];
            c2s_push_o = rc.insn[6];
          end
          if (can_start && (ex_head ? slot_ok : occ_q == '0)) begin
            cmd_pop_o = 1'b1;
            l2c_pop_o = hm.pop_prev;
            s2c_pop_o = hm.pop_next;
            // GEMM and ALU start their micro-op loop at once (the slot reads the queue head now)
            if (ex_head) ex_start[hs] = 1'b1;
            else begin
              cur_d = cmd_i;
              state_d = S_START;
            end
          end
        end
      end
      S_START: begin
        if (cop == OP_LOAD) begin
          dma_start = 1'b1;
          if (dma_done) begin  // a sync completes at once
            retire_o = 1'b1;
            c2l_push_o = cm.push_prev;
            c2s_push_o = cm.push_next;
            state_d = S_RUN;
          end else state_d = S_DMA;
        end else begin  // FINISH
          finish_o = 1'b1;
          retire_o = 1'b1;
          c2l_push_o = cm.push_prev;
          c2s_push_o = cm.push_next;
          state_d = S_RUN;
        end
      end
      S_DMA: begin
        if (dma_err) begin
          rule_d = RULE_ADDR;
          state_d = S_HALT;
        end else if (dma_done) begin
          retire_o = 1'b1;
          c2l_push_o = cm.push_prev;
          c2s_push_o = cm.push_next;
          state_d = S_RUN;
        end
      end
      S_HALT: ;
      default: state_d = S_HALT;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_RUN;
      cur_q <= '0;
      rule_q <= RULE_NONE;
      val_q <= '0;
      occ_q <= '0;
      fin_q <= '0;
      ferr_q <= '0;
      frule_g_q <= RULE_NONE;
      frule_a_q <= RULE_NONE;
      fval_q[0] <= '0;
      fval_q[1] <= '0;
      slot_g_q <= '0;
      slot_a_q <= '0;
      old_q <= 1'b0;
      last_q <= 2'd2;
    end else begin
      state_q <= state_d;
      cur_q <= cur_d;
      rule_q <= rule_d;
      val_q <= val_d;
      for (int s = 0; s < 2; s++) begin
        if (ex_start[s]) begin
          occ_q[s] <= 1'b1;
          fin_q[s] <= 1'b0;
        end else if (ret && oldest == 1'(s)) begin
          occ_q[s] <= 1'b0;
          fin_q[s] <= 1'b0;
        end else if (occ_q[s] && ex_done[s]) begin
          fin_q[s] <= 1'b1;
          ferr_q[s] <= ex_err[s];
          fval_q[s] <= ex_val[s];
        end
      end
      if (ex_start[0]) slot_g_q <= cmd_i;
      if (ex_start[1]) slot_a_q <= cmd_i;
      if (!ex_start[0] && !(ret && !oldest) && occ_q[0] && ex_done[0]) frule_g_q <= ex_rule_g;
      if (!ex_start[1] && !(ret && oldest) && occ_q[1] && ex_done[1]) frule_a_q <= ex_rule_a;
      if (ex_start != '0) begin
        last_q <= {1'b0, hs};
        old_q <= !hs;
      end else if (state_d == S_START) last_q <= 2'd2;
    end
  end

  assign busy_o = state_q == S_START || state_q == S_DMA || (state_q == S_RUN && any_occ);
  assign stall_o = state_q == S_RUN && !any_occ && cmd_valid_i && !can_start;
  assign quiet_o = state_q == S_HALT || (state_q == S_RUN && !any_occ && !can_start);
  assign err_o = state_q == S_HALT;
  assign rule_o = rule_q;
  assign err_val_o = val_q;
  assign idx_o = state_q == S_RUN ? (any_occ ? rc.idx : cmd_i.idx) : cur_q.idx;
  always_comb begin
    dbg_o = '0;
    dbg_o.state = (state_q == S_RUN && any_occ) ? 4'd3 : 4'(state_q);
    dbg_o.busy = busy_o;
    dbg_o.head_valid = cmd_valid_i;
    dbg_o.halted = err_o;
    dbg_o.opcode = state_q == S_RUN ? (any_occ ? rc.insn[2:0] : cmd_i.insn[2:0]) : cur_q.insn[2:0];
    dbg_o.wait_q = {cmd_valid_i && (hm.pop_prev && !l2c_tok_i), cmd_valid_i && (hm.pop_next && !s2c_tok_i),
                    cmd_valid_i && (hm.push_prev && !c2l_room_i), cmd_valid_i && (hm.push_next && !c2s_room_i)};
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (ALU_OVERLAP_LO == GEMM_OVERLAP_LO) else $fatal(1, "ovta_compute: overlap bit of ALU and GEMM differ");
    assert (ACC_DEPTH == OUT_DEPTH) else $fatal(1, "ovta_compute: ACC and OUT banks need equal depths");
  end
`endif
endmodule
