// ovta_store: the store module. Executes STORE (OUT) from its command queue in order: waits
// for the C2S token (pop_prev) and S2C room (push_prev), pops, then per row reads x_size OUT
// elements from sram_base + r*x_size and writes them to DRAM (AW + W bursts split at 4 KiB and
// 256 beats), waits for every write response, and pushes. A row's bursts cover whole beats from
// the beat of its first byte to the beat of its last: with OUT elements narrower than a beat
// the first and last beats are partial, and ovta_store_pack sets the strobes of the row's
// bytes only.
`default_nettype none
module ovta_store
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic                     cmd_valid_i,
  input  wire cmd_t                     cmd_i,
  output      logic                     cmd_pop_o,
  input  wire logic                     c2s_tok_i,   // pop_prev source
  output      logic                     c2s_pop_o,
  input  wire logic                     s2c_room_i,  // push_prev target
  output      logic                     s2c_push_o,
  // OUT SRAM read port
  output      logic                     out_re_o,
  output      logic [$clog2(OUT_DEPTH)-1:0] out_raddr_o,
  input  wire logic [OUT_BITS-1:0]      out_rdata_i,
  // status
  output      logic                     retire_o,
  output      logic                     busy_o,
  output      logic                     stall_o,
  output      logic                     quiet_o,
  output      logic                     err_o,
  output      logic [31:0]              idx_o,
  output      dbg_t                     dbg_o,
  output      logic [15:0]              outs_o,       // write responses outstanding (AXI register)
  output      logic [15:0]              bytes_o,     // DRAM bytes written this cycle
  // AXI4 write channels
  output      logic                     awvalid_o,
  input  wire logic                     awready_i,
  output      logic [AXI_ADDR_BITS-1:0] awaddr_o,
  output      logic [7:0]               awlen_o,
  output      logic                     wvalid_o,
  input  wire logic                     wready_i,
  output      logic [BUS_BITS-1:0]      wdata_o,
  output      logic [BUS_BYTES-1:0]     wstrb_o,
  output      logic                     wlast_o,
  input  wire logic                     bvalid_i,
  output      logic                     bready_o
);
  localparam int unsigned LOG_OB = $clog2(OUT_BYTES);
  localparam logic [ADDR_W-1:0] BUS_MASK = ADDR_W'(BUS_BYTES) - ADDR_W'(1);  // byte in a beat
  typedef enum logic [3:0] {S_IDLE, S_ROW, S_AW, S_W, S_RESP, S_HALT} state_e;
  state_e state_q, state_d;
  cmd_t cur_q, cur_d;
  // lint waiver: only some fields are needed
  // verilator lint_off UNUSEDSIGNAL
  mem_t hm, cm;           // head and current instruction
  // verilator lint_on UNUSEDSIGNAL
  logic ok_pop, ok_push, can_start;
  logic [15:0] row_q, row_d;              // DRAM row
  logic [ADDR_W-1:0] elem_q, elem_d;      // DRAM element index of the row
  logic [ADDR_W-1:0] addr_q, addr_d;      // next burst address
  logic [31:0] beats_q, beats_d;          // beats left in the row
  logic [8:0] blen_q, blen_d;             // beats of the current burst
  logic [8:0] sent_q, sent_d;             // beats of it sent
  logic [15:0] outs_q;                    // write responses outstanding
  assign outs_o = outs_q;
  logic [ADDR_W-1:0] row_a, row_end, row_a0, row_e1;
  logic [12:0] to_4k;
  logic [31:0] blen;

  assign hm = cmd_i.insn;
  assign cm = cur_q.insn;
  assign ok_pop = !hm.pop_prev || c2s_tok_i;
  assign ok_push = !hm.push_prev || s2c_room_i;
  assign can_start = cmd_valid_i && ok_pop && ok_push;

  // ---- the data: OUT SRAM -> write beats with strobes (ovta_store_pack)
  logic beat_valid, beat_take;
  logic [15:0] beat_bytes;
  ovta_store_pack u_pack (
    .clk_i, .rst_ni, .start_i(cmd_pop_o), .m_i(hm), .out_re_o, .out_raddr_o, .out_rdata_i,
    .beat_valid_o(beat_valid), .beat_data_o(wdata_o), .beat_strb_o(wstrb_o),
    .beat_bytes_o(beat_bytes), .beat_take_i(beat_take));

  always_comb begin
    row_a = elem_q << LOG_OB;
    row_end = row_a + (ADDR_W'(cm.x_size) << LOG_OB);
    row_a0 = row_a & ~BUS_MASK;                  // the row's beats: [row_a0, row_e1)
    row_e1 = (row_end + BUS_MASK) & ~BUS_MASK;
    to_4k = 13'((13'h1000 - {1'b0, addr_q[11:0]}) >> LOG_BUS_BYTES);
    blen = beats_q;
    if (blen > 32'd256) blen = 32'd256;
    if (blen > 32'(to_4k)) blen = 32'(to_4k);

    state_d = state_q;
    cur_d = cur_q;
    row_d = row_q;
    elem_d = elem_q;
    addr_d = addr_q;
    beats_d = beats_q;
    blen_d = blen_q;
    sent_d = sent_q;
    cmd_pop_o = 1'b0;
    c2s_pop_o = 1'b0;
    s2c_push_o = 1'b0;
    retire_o = 1'b0;
    awvalid_o = 1'b0;
    wvalid_o = 1'b0;
    wlast_o = 1'b0;
    beat_take = 1'b0;
    unique case (state_q)
      S_IDLE: if (can_start) begin
        cmd_pop_o = 1'b1;
        c2s_pop_o = hm.pop_prev;
        cur_d = cmd_i;
        row_d = '0;
        elem_d = ADDR_W'(hm.dram_base);
        state_d = (hm.x_size == '0 || hm.y_size == '0) ? S_RESP : S_ROW;
      end
      S_ROW: begin
        if (row_end > (ADDR_W'(1) << AXI_ADDR_BITS)) state_d = S_HALT;
        else begin
          addr_d = row_a0;
          beats_d = 32'((row_e1 - row_a0) >> LOG_BUS_BYTES);
          state_d = S_AW;
        end
      end
      S_AW: begin
        awvalid_o = 1'b1;
        if (awready_i) begin
          blen_d = 9'(blen);
          sent_d = '0;
          addr_d = addr_q + (ADDR_W'(blen) << LOG_BUS_BYTES);
          beats_d = beats_q - blen;
          state_d = S_W;
        end
      end
      S_W: begin
        wvalid_o = beat_valid;
        wlast_o = sent_q == blen_q - 1'b1;
        if (wvalid_o && wready_i) begin
          beat_take = 1'b1;
          sent_d = sent_q + 1'b1;
          if (wlast_o) begin
            if (beats_q != '0) state_d = S_AW;
            else if (row_q + 1'b1 == cm.y_size) state_d = S_RESP;
            else begin
              row_d = row_q + 1'b1;
              elem_d = elem_q + ADDR_W'(cm.x_stride);
              state_d = S_ROW;
            end
          end
        end
      end
      S_RESP: if (outs_q == '0 || (outs_q == 16'd1 && bvalid_i)) begin
        s2c_push_o = cm.push_prev;
        retire_o = 1'b1;
        state_d = S_IDLE;
      end
      S_HALT: ;
      default: state_d = S_HALT;
    endcase
  end
  assign awaddr_o = addr_q[AXI_ADDR_BITS-1:0];
  assign awlen_o = 8'(blen - 1);
  assign bready_o = 1'b1;
  assign bytes_o = beat_take ? beat_bytes : '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_IDLE;
      cur_q <= '0;
      row_q <= '0;
      elem_q <= '0;
      addr_q <= '0;
      beats_q <= '0;
      blen_q <= '0;
      sent_q <= '0;
      outs_q <= '0;
    end else begin
      state_q <= state_d;
      cur_q <= cur_d;
      row_q <= row_d;
      elem_q <= elem_d;
      addr_q <= addr_d;
      beats_q <= beats_d;
      blen_q <= blen_d;
      sent_q <= sent_d;
      outs_q <= outs_q + 16'(awvalid_o && awready_i) - 16'(bvalid_i);
    end
  end

  assign busy_o = state_q != S_IDLE && state_q != S_HALT;
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
    dbg_o.wait_q = {cmd_valid_i && !ok_pop, 1'b0, cmd_valid_i && !ok_push, 1'b0};
  end
endmodule
