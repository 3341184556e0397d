// ovta_decode: the static rules of isa/ISA.md ("Invalid instructions", the same as
// ovta_insn_check in isa/isa.c) and the routing of an instruction to its module.
// Purely combinational; fetch applies it to each instruction before dispatch.
`default_nettype none
module ovta_decode
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic [INSN_BITS-1:0] insn_i,   // the instruction
  output      dst_e                 dst_o,    // the module that executes it
  output      logic                 err_o,    // it breaks a static rule
  output      rule_e                rule_o    // which rule
);
  // lint waiver: each view uses only its own fields of the instruction
  // verilator lint_off UNUSEDSIGNAL
  mem_t m;
  gemm_t g;
  alu_t a;
  // verilator lint_on UNUSEDSIGNAL
  logic [2:0] op;
  logic [INSN_BITS-1:0] cov;  // bits covered by a field of the instruction's format

  assign m = insn_i;
  assign g = insn_i;
  assign a = insn_i;
  assign op = insn_i[2:0];

  // Covered-bit masks: every named field set to ones; the generated reserved fields stay zero.
  function automatic logic [INSN_BITS-1:0] mem_mask();
    mem_t x = '0;
    x.opcode = '1; x.pop_prev = '1; x.pop_next = '1; x.push_prev = '1; x.push_next = '1;
    x.memory_type = '1; x.sram_base = '1; x.dram_base = '1; x.y_size = '1; x.x_size = '1;
    x.x_stride = '1; x.y_pad_0 = '1; x.y_pad_1 = '1; x.x_pad_0 = '1; x.x_pad_1 = '1;
    return INSN_BITS'(x);
  endfunction
  function automatic logic [INSN_BITS-1:0] gemm_mask();
    gemm_t x = '0;
    x.opcode = '1; x.pop_prev = '1; x.pop_next = '1; x.push_prev = '1; x.push_next = '1;
    x.reset = '1; x.uop_bgn = '1; x.uop_end = '1; x.iter_out = '1; x.iter_in = '1;
    x.dst_factor_out = '1; x.dst_factor_in = '1; x.src_factor_out = '1; x.src_factor_in = '1;
    x.wgt_factor_out = '1; x.wgt_factor_in = '1;
    return INSN_BITS'(x);
  endfunction
  function automatic logic [INSN_BITS-1:0] alu_mask();
    alu_t x = '0;
    x.opcode = '1; x.pop_prev = '1; x.pop_next = '1; x.push_prev = '1; x.push_next = '1;
    x.reset = '1; x.uop_bgn = '1; x.uop_end = '1; x.iter_out = '1; x.iter_in = '1;
    x.dst_factor_out = '1; x.dst_factor_in = '1; x.src_factor_out = '1; x.src_factor_in = '1;
    x.alu_opcode = '1; x.use_imm = '1; x.imm = '1;
    return INSN_BITS'(x);
  endfunction
  function automatic logic [INSN_BITS-1:0] finish_mask();
    finish_t x = '0;
    x.opcode = '1; x.pop_prev = '1; x.pop_next = '1; x.push_prev = '1; x.push_next = '1;
    return INSN_BITS'(x);
  endfunction

  // SRAM range of a LOAD/STORE: end index and the depth of its memory type
  logic [47:0] rows, cols, sram_end, depth;
  logic is_load_mod, pad;

  always_comb begin
    unique case (op)
      OP_LOAD, OP_STORE: cov = mem_mask();
      OP_GEMM: cov = gemm_mask();
      OP_ALU: cov = alu_mask();
      default: cov = finish_mask();
    endcase
    rows = 48'(m.y_pad_0) + 48'(m.y_size) + 48'(m.y_pad_1);
    cols = 48'(m.x_pad_0) + 48'(m.x_size) + 48'(m.x_pad_1);
    sram_end = 48'(m.sram_base) + rows * cols;
    unique case (m.memory_type)
      MEM_UOP: depth = 48'(UOP_DEPTH);
      MEM_WGT: depth = 48'(WGT_DEPTH);
      MEM_INP: depth = 48'(INP_DEPTH);
      MEM_ACC: depth = 48'(ACC_DEPTH);
      default: depth = 48'(OUT_DEPTH);
    endcase
    is_load_mod = op == OP_LOAD && (m.memory_type == MEM_INP || m.memory_type == MEM_WGT);
    pad = m.y_pad_0 != '0 || m.y_pad_1 != '0 || m.x_pad_0 != '0 || m.x_pad_1 != '0;

    dst_o = DST_COMPUTE;
    if (is_load_mod) dst_o = DST_LOAD;
    else if (op == OP_STORE) dst_o = DST_STORE;

    err_o = 1'b1;
    rule_o = RULE_NONE;
    if (op > OP_ALU) rule_o = RULE_OPCODE;
    else if ((insn_i & ~cov) != '0) rule_o = RULE_RSVD;
    else if (op == OP_LOAD || op == OP_STORE) begin
      if (m.memory_type > MEM_OUT) rule_o = RULE_MEMTYPE;
      else if (is_load_mod && (m.pop_prev != '0 || m.push_prev != '0)) rule_o = RULE_DEP;
      else if (op == OP_STORE && (m.pop_next != '0 || m.push_next != '0)) rule_o = RULE_DEP;
      else if (op == OP_LOAD && m.memory_type == MEM_OUT) rule_o = RULE_MEMTYPE;
      else if (op == OP_STORE && m.memory_type != MEM_OUT) rule_o = RULE_MEMTYPE;
      else if (m.x_size == '0) rule_o = RULE_NONE;
      else if (pad && !(op == OP_LOAD && (m.memory_type == MEM_INP || m.memory_type == MEM_ACC)))
        rule_o = RULE_PAD;
      else if (sram_end > depth) rule_o = RULE_SRAM;
    end else if (op == OP_GEMM || op == OP_ALU) begin
      if (32'(g.uop_bgn) > 32'(g.uop_end) || 32'(g.uop_end) > 32'(UOP_DEPTH)) rule_o = RULE_UOP;
      else if (op == OP_ALU && a.alu_opcode > ALU_MUL) rule_o = RULE_ALUOP;
    end
    if (rule_o == RULE_NONE) err_o = 1'b0;
  end
endmodule
