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
  // verilator lint_on UNUSEDSIGNAL
  logic [2:0] op;
  logic [INSN_BITS-1:0] cov;  // bits covered by a field of the instruction's format

  assign m = insn_i;
  assign g = insn_i;
  assign op = insn_i[2:0];

  // Covered-bit masks: every named field of the format (positions from the generated package);
  // the reserved bits stay zero.
  function automatic logic [INSN_BITS-1:0] fm(input int unsigned lo, input int unsigned w);
    logic [INSN_BITS-1:0] one;
    one = 1;
    fm = ((one << w) - one) << lo;
  endfunction
  localparam logic [INSN_BITS-1:0] DEP_MASK =
    fm(MEM_OPCODE_LO, MEM_OPCODE_W) | fm(MEM_POP_PREV_LO, MEM_POP_PREV_W) |
    fm(MEM_POP_NEXT_LO, MEM_POP_NEXT_W) | fm(MEM_PUSH_PREV_LO, MEM_PUSH_PREV_W) |
    fm(MEM_PUSH_NEXT_LO, MEM_PUSH_NEXT_W);
  localparam logic [INSN_BITS-1:0] MEM_MASK = DEP_MASK |
    fm(MEM_MEMORY_TYPE_LO, MEM_MEMORY_TYPE_W) | fm(MEM_SRAM_BASE_LO, MEM_SRAM_BASE_W) |
    fm(MEM_DRAM_BASE_LO, MEM_DRAM_BASE_W) | fm(MEM_Y_SIZE_LO, MEM_Y_SIZE_W) |
    fm(MEM_X_SIZE_LO, MEM_X_SIZE_W) | fm(MEM_X_STRIDE_LO, MEM_X_STRIDE_W) |
    fm(MEM_Y_PAD_0_LO, MEM_Y_PAD_0_W) | fm(MEM_Y_PAD_1_LO, MEM_Y_PAD_1_W) |
    fm(MEM_X_PAD_0_LO, MEM_X_PAD_0_W) | fm(MEM_X_PAD_1_LO, MEM_X_PAD_1_W);
  localparam logic [INSN_BITS-1:0] LOOP_MASK =   // fields GEMM and ALU share
    fm(GEMM_OPCODE_LO, GEMM_OPCODE_W) | fm(GEMM_POP_PREV_LO, GEMM_POP_PREV_W) |
    fm(GEMM_POP_NEXT_LO, GEMM_POP_NEXT_W) | fm(GEMM_PUSH_PREV_LO, GEMM_PUSH_PREV_W) |
    fm(GEMM_PUSH_NEXT_LO, GEMM_PUSH_NEXT_W) | fm(GEMM_RESET_LO, GEMM_RESET_W) |
    fm(GEMM_UOP_BGN_LO, GEMM_UOP_BGN_W) | fm(GEMM_UOP_END_LO, GEMM_UOP_END_W) |
    fm(GEMM_ITER_OUT_LO, GEMM_ITER_OUT_W) | fm(GEMM_ITER_IN_LO, GEMM_ITER_IN_W) |
    fm(GEMM_OVERLAP_LO, GEMM_OVERLAP_W) |
    fm(GEMM_DST_FACTOR_OUT_LO, GEMM_DST_FACTOR_OUT_W) |
    fm(GEMM_DST_FACTOR_IN_LO, GEMM_DST_FACTOR_IN_W) |
    fm(GEMM_SRC_FACTOR_OUT_LO, GEMM_SRC_FACTOR_OUT_W) |
    fm(GEMM_SRC_FACTOR_IN_LO, GEMM_SRC_FACTOR_IN_W);
  localparam logic [INSN_BITS-1:0] GEMM_MASK = LOOP_MASK |
    fm(GEMM_WGT_FACTOR_OUT_LO, GEMM_WGT_FACTOR_OUT_W) |
    fm(GEMM_WGT_FACTOR_IN_LO, GEMM_WGT_FACTOR_IN_W);
  localparam logic [INSN_BITS-1:0] ALU_MASK = LOOP_MASK |
    fm(ALU_ALU_OPCODE_LO, ALU_ALU_OPCODE_W) | fm(ALU_USE_IMM_LO, ALU_USE_IMM_W) |
    fm(ALU_IMM_LO, ALU_IMM_W);
  localparam logic [INSN_BITS-1:0] FINISH_MASK =
    fm(FINISH_OPCODE_LO, FINISH_OPCODE_W) | fm(FINISH_POP_PREV_LO, FINISH_POP_PREV_W) |
    fm(FINISH_POP_NEXT_LO, FINISH_POP_NEXT_W) | fm(FINISH_PUSH_PREV_LO, FINISH_PUSH_PREV_W) |
    fm(FINISH_PUSH_NEXT_LO, FINISH_PUSH_NEXT_W);
  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (GEMM_OPCODE_LO == ALU_OPCODE_LO && GEMM_ITER_IN_LO == ALU_ITER_IN_LO &&
            GEMM_SRC_FACTOR_IN_LO == ALU_SRC_FACTOR_IN_LO)
      else $fatal(1, "ovta_decode: GEMM and ALU must share their loop fields");
  end
`endif

  // SRAM range of a LOAD/STORE: end index and the depth of its memory type
  logic [47:0] rows, cols, sram_end, depth;
  logic is_load_mod, pad;

  always_comb begin
    unique case (op)
      OP_LOAD, OP_STORE: cov = MEM_MASK;
      OP_GEMM: cov = GEMM_MASK;
      OP_ALU: cov = ALU_MASK;
      default: cov = FINISH_MASK;
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
      // every 3-bit alu_opcode is defined since RQ (7): RULE_ALUOP cannot occur
      if (32'(g.uop_bgn) > 32'(g.uop_end) || 32'(g.uop_end) > 32'(UOP_DEPTH)) rule_o = RULE_UOP;
    end
    if (rule_o == RULE_NONE) err_o = 1'b0;
  end
endmodule
