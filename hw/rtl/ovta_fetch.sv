// ovta_fetch: reads insn_count instructions from DRAM at insn_addr in bursts into a small
// buffer, checks each against the static rules (ovta_decode) and dispatches it in order to the
// command queue of its module, stalling while that queue is full. On an invalid instruction
// it stops dispatching and reports the index and rule. An instruction is 128 bits: on a 64-bit
// bus it is two beats; on a 256/512-bit bus a beat holds 2/4 of them, unpacked one per cycle
// (the dispatch rate), and the stream (16-byte aligned) may start and end inside a beat. Every
// burst but the stream's last then ends at a beat boundary (requests are trimmed to one), so
// the receive side knows each beat's instructions from the stream address alone.
`default_nettype none
module ovta_fetch
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic                     start_i,      // pulse: begin a run
  input  wire logic                     stop_i,       // another unit failed: dispatch no more
  input  wire logic [AXI_ADDR_BITS-1:0] insn_addr_i,  // byte address of the stream (16-aligned)
  input  wire logic [31:0]              insn_count_i, // instructions in the stream
  // dispatch to the three command queues
  output      logic [2:0]               push_o,       // per dst_e
  output      cmd_t                     cmd_o,
  input  wire logic [2:0]               full_i,
  // status
  output      logic                     done_o,       // everything dispatched (or stopped)
  output      logic                     err_o,        // stopped on an invalid instruction
  output      rule_e                    err_rule_o,
  output      logic [31:0]              err_idx_o,
  output      logic                     quiet_o,      // can make no progress by itself
  output      logic                     busy_o,       // cycles with a read outstanding or a dispatch
  output      logic [31:0]              rx_idx_o,     // index of the next instruction to arrive
  // reads
  output      logic                     req_valid_o,
  output      logic [AXI_ADDR_BITS-1:0] req_addr_o,
  output      logic [7:0]               req_len_o,
  input  wire logic                     req_ready_i,
  input  wire logic                     rd_valid_i,
  input  wire logic [BUS_BITS-1:0]      rd_data_i,
  output      logic                     rd_ready_o
);
  localparam int unsigned BUF = 16;          // instructions buffered
  localparam int unsigned MAXB = 8;          // instructions per burst at most
  localparam int unsigned BPI = INSN_BITS > BUS_BITS ? INSN_BITS / BUS_BITS : 1;  // beats/insn
  localparam int unsigned IPB = BUS_BITS > INSN_BITS ? BUS_BITS / INSN_BITS : 1;  // insns/beat
  localparam int unsigned LIPB = IPB > 1 ? $clog2(IPB) : 1;
  localparam logic [AXI_ADDR_BITS-1:0] BUS_MASK = AXI_ADDR_BITS'(BUS_BYTES - 1);
  localparam int unsigned BW = $clog2(BUF + 1);

  logic active_q;                    // a run is in progress
  logic [31:0] req_n_q;              // instructions requested
  logic [31:0] disp_n_q;             // instructions dispatched
  logic [AXI_ADDR_BITS-1:0] addr_q;  // next request address
  logic [BW-1:0] resv_q;             // buffer entries held or in flight
  logic stopped_q;                   // stopped on an error
  logic err_q;
  rule_e rule_q;
  logic [31:0] eidx_q;

  // buffer
  logic b_push, b_valid, b_pop;
  logic [INSN_BITS-1:0] b_in, b_head;
  logic [BW-1:0] b_cnt;

  // lint waiver: full_o is not needed, requests reserve room in the buffer (resv_q)
  // verilator lint_off PINCONNECTEMPTY
  ovta_fifo #(.WIDTH(INSN_BITS), .DEPTH(BUF)) u_buf (
    .clk_i, .rst_ni, .clr_i(start_i), .push_i(b_push), .data_i(b_in), .full_o(),
    .pop_i(b_pop), .valid_o(b_valid), .data_o(b_head), .count_o(b_cnt));
  // verilator lint_on PINCONNECTEMPTY

  // request sizing: up to MAXB instructions, not past the stream end, a 4 KiB boundary or room
  logic [31:0] left;
  logic [8:0] to_4k, n;
  logic [LIPB-1:0] slot0, tail;      // slot of the burst's first instruction; past the last beat
  always_comb begin
    left = insn_count_i - req_n_q;
    to_4k = 9'((13'h1000 - {1'b0, addr_q[11:0]}) >> 4);
    n = 9'(MAXB);
    if (32'(n) > left) n = 9'(left);
    if (n > to_4k) n = to_4k;
    if (32'(n) > 32'(BUF) - 32'(resv_q)) n = 9'(32'(BUF) - 32'(resv_q));
    slot0 = IPB > 1 ? LIPB'(addr_q >> 4) : '0;
    tail = IPB > 1 ? LIPB'(slot0 + LIPB'(n)) : '0;
    // several instructions per beat: end the burst at a beat boundary unless it ends the stream
    if (32'(n) != left && tail != '0) n = n > 9'(tail) ? n - 9'(tail) : '0;
  end
  assign req_valid_o = active_q && !stopped_q && n != '0;
  assign req_addr_o = addr_q & ~BUS_MASK;
  assign req_len_o = IPB > 1 ? 8'((32'(slot0) + 32'(n) + IPB - 1) / IPB - 1) : 8'(32'(n) * BPI - 1);

  if (IPB > 1) begin : g_unpack
    // a beat into instructions, one per cycle; the beat is released after its last one
    logic [LIPB-1:0] rs_q;           // slot of the next instruction in the beat
    logic [31:0] rx_n_q;             // instructions received in this run
    assign b_push = rd_valid_i;
    assign b_in = rd_data_i[INSN_BITS * rs_q +: INSN_BITS];
    assign rd_ready_o = rs_q == '1 || rx_n_q + 1'b1 == insn_count_i;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rs_q <= '0;
        rx_n_q <= '0;
      end else if (start_i) begin
        rs_q <= LIPB'(insn_addr_i >> 4);
        rx_n_q <= '0;
      end else if (rd_valid_i) begin
        rs_q <= rs_q + 1'b1;
        rx_n_q <= rx_n_q + 1'b1;
      end
    end
  end else begin : g_asm
    // beats into instructions (first beat lowest); BPI = 1 or 2
    logic [INSN_BITS-1:0] asm_q;     // assembling an instruction from beats
    logic beat_q;                    // beats of it received (when BPI = 2)
    logic [INSN_BITS-1:0] asm_next;
    assign asm_next = INSN_BITS'({rd_data_i, asm_q} >> BUS_BITS);
    assign rd_ready_o = 1'b1;
    assign b_push = BPI == 1 ? rd_valid_i : rd_valid_i && beat_q;
    assign b_in = BPI == 1 ? INSN_BITS'(rd_data_i) : asm_next;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        asm_q <= '0;
        beat_q <= 1'b0;
      end else if (start_i) begin
        beat_q <= 1'b0;
      end else if (rd_valid_i) begin
        asm_q <= asm_next;
        beat_q <= !beat_q;
      end
    end
  end

  // decode and dispatch the head
  dst_e dst;
  logic bad;
  rule_e rule;
  ovta_decode u_dec (.insn_i(b_head), .dst_o(dst), .err_o(bad), .rule_o(rule));

  logic can_disp;
  always_comb begin
    can_disp = active_q && !stopped_q && !stop_i && b_valid && !bad && !full_i[dst];
    push_o = '0;
    if (can_disp) push_o[dst] = 1'b1;
    b_pop = can_disp;
  end
  assign cmd_o.idx = disp_n_q;
  assign cmd_o.insn = b_head;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q <= 1'b0;
      req_n_q <= '0;
      disp_n_q <= '0;
      addr_q <= '0;
      resv_q <= '0;
      stopped_q <= 1'b0;
      err_q <= 1'b0;
      rule_q <= RULE_NONE;
      eidx_q <= '0;
    end else if (start_i) begin
      active_q <= 1'b1;
      req_n_q <= '0;
      disp_n_q <= '0;
      addr_q <= insn_addr_i;
      resv_q <= '0;
      stopped_q <= 1'b0;
      err_q <= 1'b0;
      rule_q <= RULE_NONE;
    end else begin
      if (req_valid_o && req_ready_i) begin
        req_n_q <= req_n_q + 32'(n);
        addr_q <= addr_q + AXI_ADDR_BITS'({n, 4'b0});
      end
      resv_q <= resv_q + ((req_valid_o && req_ready_i) ? BW'(n) : '0) - BW'(b_pop);
      if (can_disp) disp_n_q <= disp_n_q + 1'b1;
      if (active_q && !stopped_q && b_valid && bad) begin
        stopped_q <= 1'b1;
        err_q <= 1'b1;
        rule_q <= rule;
        eidx_q <= disp_n_q;
      end
      if (stop_i) stopped_q <= 1'b1;
    end
  end

  assign done_o = active_q && (stopped_q || disp_n_q == insn_count_i);
  assign err_o = err_q;
  assign err_rule_o = rule_q;
  assign err_idx_o = eidx_q;
  // quiet: nothing in flight, and either finished/stopped or the head's queue is full
  assign quiet_o = !active_q || (resv_q == BW'(b_cnt) &&
                   (done_o || (b_valid && !bad && full_i[dst])));
  assign busy_o = active_q && !done_o;
  // instructions received = dispatched + buffered: the beat on the bus carries this one (on a
  // 256/512-bit bus, whose beat is taken with its last instruction: the beat's last one)
  assign rx_idx_o = disp_n_q + 32'(b_cnt);

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (BUS_BITS >= 64 && BUS_BITS <= 512) else $fatal(1, "ovta_fetch: bus must be 64 to 512 bits");
  end
`endif
endmodule
