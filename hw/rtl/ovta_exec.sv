// ovta_exec: runs one GEMM or ALU instruction, one micro-op per cycle, in three stages:
//   A  loop counters (i, j, k) -> uop SRAM read, index offsets;
//   B  indices = uop fields + offsets, range check (dynamic rules) -> INP/WGT/ACC reads;
//   C  GEMM core or ALU -> ACC and OUT writes.
// A micro-op in C that reads an ACC element the previous micro-op wrote (as dst or as src)
// takes the forwarded value (the SRAM read was issued before that write), so the sequential
// semantics hold. The ACC SRAM has two read ports (two copies, ovta_sram_2r): port a reads
// acc[dst], port b acc[src] of an ALU micro-op with a tensor operand, in the same cycle, so
// every micro-op takes one cycle in each stage. The compute module has two of these, one with
// only the GEMM core (GEMM_EN) and one with only the ALU (ALU_EN), for its two slots.
`default_nettype none
module ovta_exec
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
#(
  parameter bit GEMM_EN = 1'b1,   // runs GEMMs (the GEMM core); 0: every instruction is an ALU
  parameter bit ALU_EN = 1'b1     // runs ALU instructions (the ALU); 0: every instruction is a GEMM
) (
  input  wire logic                          clk_i,
  input  wire logic                          rst_ni,
  input  wire logic                          start_i,    // pulse: run the instruction in insn_i
  input  wire logic [INSN_BITS-1:0]          insn_i,     // GEMM or ALU (from start_i to done_o)
  output      logic                          done_o,     // pulse: completed (or failed)
  output      logic                          err_o,      // with done_o: a dynamic rule broke
  output      rule_e                         rule_o,     // which
  output      logic [31:0]                   err_val_o,  // the offending index
  output      logic                          gemm_uop_o, // pulse: a GEMM micro-op executed
  output      logic                          alu_uop_o,  // pulse: an ALU micro-op executed
  // uop SRAM read port
  output      logic                          uop_re_o,
  output      logic [$clog2(UOP_DEPTH)-1:0]  uop_raddr_o,
  input  wire logic [UOP_BITS-1:0]           uop_rdata_i,
  // INP / WGT SRAM read ports
  output      logic                          inp_re_o,
  output      logic [$clog2(INP_DEPTH)-1:0]  inp_raddr_o,
  input  wire logic [INP_BITS-1:0]           inp_rdata_i,
  output      logic                          wgt_re_o,
  output      logic [$clog2(WGT_DEPTH)-1:0]  wgt_raddr_o,
  input  wire logic [WGT_BITS-1:0]           wgt_rdata_i,
  // ACC SRAM: read port a (dst), read port b (src of an ALU micro-op with a tensor operand)
  output      logic                          acc_re_a_o,
  output      logic [$clog2(ACC_DEPTH)-1:0]  acc_raddr_a_o,
  input  wire logic [ACC_BITS-1:0]           acc_rdata_a_i,
  output      logic                          acc_re_b_o,
  output      logic [$clog2(ACC_DEPTH)-1:0]  acc_raddr_b_o,
  input  wire logic [ACC_BITS-1:0]           acc_rdata_b_i,
  // ACC and OUT write port
  output      logic                          we_o,       // write ACC and OUT at dst
  output      logic [$clog2(ACC_DEPTH)-1:0]  waddr_o,
  output      logic [ACC_BITS-1:0]           wacc_o,
  output      logic [OUT_BITS-1:0]           wout_o
);
  localparam int unsigned KW = UOP_IDX_BITS + 1;
  // lint waiver: each view uses only its own fields of the instruction
  // verilator lint_off UNUSEDSIGNAL
  gemm_t g;
  alu_t a;
  // verilator lint_on UNUSEDSIGNAL
  logic is_alu;
  assign g = insn_i;
  assign a = insn_i;
  assign is_alu = ALU_EN && (!GEMM_EN || insn_i[2:0] == OP_ALU);

  // ---------------------------------------------------------------- stage A
  logic run_q, active_q, killed_q;
  logic [KW-1:0] k_q;
  logic [13:0] i_q, j_q;
  logic [31:0] d_i_q, d_ij_q, s_i_q, s_ij_q, w_i_q, w_ij_q;  // offsets at i, and at (i, j)
  logic last_k, last_j, last_i, empty;

  assign last_k = k_q == KW'(g.uop_end) - 1'b1;
  assign last_j = j_q == 14'(g.iter_in) - 1'b1;
  assign last_i = i_q == 14'(g.iter_out) - 1'b1;
  assign empty = g.iter_out == '0 || g.iter_in == '0 || 32'(g.uop_bgn) == 32'(g.uop_end);
  // the src factors: GEMM's index the INP SRAM, ALU's the ACC (widths and bit positions differ
  // when the two depths do, e.g. a 512-entry INP with a 128-entry ACC)
  logic [31:0] sf_out, sf_in;
  assign sf_out = is_alu ? 32'(a.src_factor_out) : 32'(g.src_factor_out);
  assign sf_in = is_alu ? 32'(a.src_factor_in) : 32'(g.src_factor_in);
  assign uop_re_o = run_q && !killed_q;
  assign uop_raddr_o = $clog2(UOP_DEPTH)'(k_q);

  // ---------------------------------------------------------------- stage B
  logic vb_q;
  logic [31:0] db_q, sb_q, wb_q;   // offsets of the uop in B
  // lint waiver: the reserved bits of a micro-op (small configs) are not used
  // verilator lint_off UNUSEDSIGNAL
  uop_t u;
  // verilator lint_on UNUSEDSIGNAL
  logic [31:0] dst, src, wgt;
  logic bad_dst, bad_src, bad_wgt, vb_ok, rd_src, rd_dst;
  assign u = uop_rdata_i;
  always_comb begin
    dst = 32'(u.dst_idx) + db_q;
    src = 32'(u.src_idx) + sb_q;
    wgt = 32'(u.wgt_idx) + wb_q;
    bad_dst = dst >= 32'(ACC_DEPTH);
    bad_src = !g.reset && (is_alu ? (!a.use_imm && src >= 32'(ACC_DEPTH)) : src >= 32'(INP_DEPTH));
    bad_wgt = !g.reset && !is_alu && wgt >= 32'(WGT_DEPTH);
    vb_ok = vb_q && !killed_q && !bad_dst && !bad_src && !bad_wgt;
    // the ACC operands a micro-op uses: src for an ALU tensor operand, dst unless reset or MOV
    rd_src = is_alu && !a.use_imm && !g.reset;
    rd_dst = !g.reset && !(is_alu && a.alu_opcode == ALU_MOV);
  end
  assign inp_re_o = vb_ok && !is_alu;
  assign inp_raddr_o = $clog2(INP_DEPTH)'(src);
  assign wgt_re_o = vb_ok && !is_alu;
  assign wgt_raddr_o = $clog2(WGT_DEPTH)'(wgt);
  assign acc_re_a_o = vb_ok && rd_dst;
  assign acc_raddr_a_o = $clog2(ACC_DEPTH)'(dst);
  assign acc_re_b_o = vb_ok && rd_src;
  assign acc_raddr_b_o = $clog2(ACC_DEPTH)'(src);

  // ---------------------------------------------------------------- stage C
  logic vc_q;
  logic [$clog2(ACC_DEPTH)-1:0] dc_q, sc_q;   // dst and src of the uop in C
  logic fw_q;                                 // the previous cycle wrote fw_idx_q
  logic [$clog2(ACC_DEPTH)-1:0] fw_idx_q;
  logic [ACC_BITS-1:0] fw_data_q;
  logic [ACC_BITS-1:0] av, sv, gemm_r, alu_r, res;

  // an element the previous cycle wrote comes from fw_data_q (its read was issued before);
  // the operands are zero without a micro-op in C (the cores ignore them then), so an idle
  // slot costs a simulator no wide copies
  always_comb begin
    av = '0;
    sv = '0;
    if (vc_q) begin
      av = (fw_q && fw_idx_q == dc_q) ? fw_data_q : acc_rdata_a_i;
      if (is_alu)
        sv = a.use_imm ? {(BATCH * BLOCK_OUT){32'($signed(a.imm))}}
                       : ((fw_q && fw_idx_q == sc_q) ? fw_data_q : acc_rdata_b_i);
    end
  end
  ovta_gemm u_gemm (.en_i(vc_q && !is_alu && !g.reset), .inp_i(inp_rdata_i), .wgt_i(wgt_rdata_i),
                    .acc_i(av), .acc_o(gemm_r));
  ovta_alu u_alu (.en_i(vc_q && is_alu && !g.reset), .op_i(a.alu_opcode), .a_i(av), .s_i(sv),
                  .r_o(alu_r));
  assign res = g.reset ? '0 : (is_alu ? alu_r : gemm_r);
  assign we_o = vc_q;
  assign waddr_o = dc_q;
  assign wacc_o = res;
  for (genvar l = 0; l < int'(BATCH * BLOCK_OUT); l++) begin : g_out
    assign wout_o[8 * l +: 8] = res[32 * l +: 8];
  end
  assign gemm_uop_o = vc_q && !is_alu;
  assign alu_uop_o = vc_q && is_alu;

  // ---------------------------------------------------------------- control
  logic fail;
  assign fail = vb_q && !killed_q && !vb_ok;
  always_comb begin
    // done while the last micro-op is in C: its writes land at this clock edge, before any
    // unit can act on the tokens pushed now (and before the next instruction's first read)
    done_o = active_q && ((!run_q && !vb_q) || fail);
    err_o = fail;
    rule_o = bad_dst ? RULE_DST : (bad_src ? RULE_SRC : RULE_WGT);
    err_val_o = bad_dst ? dst : (bad_src ? src : wgt);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      active_q <= 1'b0;
      killed_q <= 1'b0;
      k_q <= '0;
      i_q <= '0;
      j_q <= '0;
      {d_i_q, d_ij_q, s_i_q, s_ij_q, w_i_q, w_ij_q} <= '0;
      vb_q <= 1'b0;
      {db_q, sb_q, wb_q} <= '0;
      vc_q <= 1'b0;
      dc_q <= '0;
      sc_q <= '0;
      fw_q <= 1'b0;
      fw_idx_q <= '0;
    end else begin
      // A
      if (start_i) begin
        active_q <= 1'b1;
        run_q <= !empty;
        killed_q <= 1'b0;
        k_q <= KW'(g.uop_bgn);
        i_q <= '0;
        j_q <= '0;
        {d_i_q, d_ij_q, s_i_q, s_ij_q, w_i_q, w_ij_q} <= '0;
      end else if (run_q) begin
        if (fail) run_q <= 1'b0;
        else if (!last_k) k_q <= k_q + 1'b1;
        else begin
          k_q <= KW'(g.uop_bgn);
          if (!last_j) begin
            j_q <= j_q + 1'b1;
            d_ij_q <= d_ij_q + 32'(g.dst_factor_in);
            s_ij_q <= s_ij_q + sf_in;
            w_ij_q <= w_ij_q + (is_alu ? '0 : 32'(g.wgt_factor_in));
          end else begin
            j_q <= '0;
            i_q <= i_q + 1'b1;
            d_i_q <= d_i_q + 32'(g.dst_factor_out);
            s_i_q <= s_i_q + sf_out;
            w_i_q <= w_i_q + (is_alu ? '0 : 32'(g.wgt_factor_out));
            d_ij_q <= d_i_q + 32'(g.dst_factor_out);
            s_ij_q <= s_i_q + sf_out;
            w_ij_q <= w_i_q + (is_alu ? '0 : 32'(g.wgt_factor_out));
            if (last_i) run_q <= 1'b0;
          end
        end
      end
      if (done_o) active_q <= 1'b0;
      if (fail) killed_q <= 1'b1;
      // B
      vb_q <= run_q && !killed_q && !fail && !start_i;
      db_q <= d_ij_q;
      sb_q <= s_ij_q;
      wb_q <= w_ij_q;
      // C
      vc_q <= vb_ok;
      dc_q <= $clog2(ACC_DEPTH)'(dst);
      sc_q <= $clog2(ACC_DEPTH)'(src);
      fw_q <= vc_q;
      fw_idx_q <= dc_q;
    end
  end

  // only read with fw_q (the cycle after a micro-op in C): an idle slot copies no data
  always_ff @(posedge clk_i) begin
    if (vc_q) fw_data_q <= res;
  end
endmodule
