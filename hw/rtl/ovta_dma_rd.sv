// ovta_dma_rd: the 2D load engine of a LOAD instruction (isa/ISA.md, LOAD). ovta_dma_req
// issues the AXI read bursts of every DRAM row (split at 4 KiB and 256 beats); this module
// writes SRAM elements in order: padding rows, then per row x_pad_0 zeros, x_size elements
// from DRAM, x_pad_1 zeros, then padding rows. Elements of at least one bus beat are assembled
// from beats (first beat lowest); in UOP mode each element is one 32-bit word of a beat. The
// element appears in the top bits of wr_data_o (the consumer slices the width of its type).
`default_nettype none
module ovta_dma_rd
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
#(
  parameter int unsigned MAXW = 512  // widest element handled, bits
) (
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  // command
  input  wire logic                     start_i,      // pulse: begin the LOAD in m_i
  // lint waiver: opcode, dependency bits and memory type are the caller's
  // verilator lint_off UNUSEDSIGNAL
  input  wire mem_t                     m_i,          // the LOAD (held while busy_o)
  // verilator lint_on UNUSEDSIGNAL
  input  wire logic [3:0]               log_eb_i,     // log2 bytes of an element
  input  wire logic                     uop_mode_i,   // elements are 32-bit micro-ops
  output      logic                     done_o,       // pulse: the LOAD completed
  output      logic                     err_o,        // pulse: a DRAM address beyond the bus
  // SRAM writes
  output      logic                     wr_valid_o,   // write an element
  output      logic [15:0]              wr_idx_o,     // at this SRAM index
  output      logic [MAXW-1:0]          wr_data_o,    // element in the top bits
  output      logic [15:0]              bytes_o,      // DRAM bytes consumed this cycle
  // read requests and beats (ovta_rd_arb)
  output      logic                     req_valid_o,
  output      logic [AXI_ADDR_BITS-1:0] req_addr_o,
  output      logic [7:0]               req_len_o,
  input  wire logic                     req_ready_i,
  input  wire logic                     rd_valid_i,
  input  wire logic [BUS_BITS-1:0]      rd_data_i,
  output      logic                     rd_ready_o
);
  localparam int unsigned UPB = BUS_BITS / 32;  // micro-ops per beat
  localparam int unsigned LUPB = $clog2(UPB);

  ovta_dma_req u_req (
    .clk_i, .rst_ni, .start_i, .m_i, .log_eb_i, .err_o, .req_valid_o, .req_addr_o, .req_len_o,
    .req_ready_i);

  // ---------------------------------------------------------------- write side
  logic run_q, run_d;                      // writing elements
  logic [19:0] row_q, row_d;               // output row, 0 .. rows-1
  logic [19:0] col_q, col_d;               // output column, 0 .. W-1
  logic [5:0] beat_q, beat_d;              // beats of the current element received
  logic [15:0] idx_q, idx_d;               // SRAM index
  logic [LUPB:0] word_q, word_d;           // UOP mode: word within the beat
  logic [LUPB:0] wbase_q, wbase_d;         // UOP mode: first word of the current DRAM row
  localparam int unsigned EW = MAXW - BUS_BITS;
  logic [EW-1:0] elem_q;                   // the beats before the last one (shifted in at the top)
  logic shift;                             // a beat of an element arrives: shift it into elem_q
  logic [31:0] uop_word;                   // UOP mode: the micro-op of this cycle
  logic [19:0] rows, width;
  logic [19:0] yb, ye, xb, xe;             // data rows [yb, ye), data columns [xb, xe)
  logic is_data, last_elem, last_col, row_last_data;
  logic [5:0] bpe_m1;                      // beats per element - 1
  logic adv;                               // an element is written: advance

  always_comb begin
    yb = 20'(m_i.y_pad_0);
    ye = yb + 20'(m_i.y_size);
    rows = ye + 20'(m_i.y_pad_1);
    xb = 20'(m_i.x_pad_0);
    xe = xb + 20'(m_i.x_size);
    width = xe + 20'(m_i.x_pad_1);
    bpe_m1 = uop_mode_i ? 6'd0 : 6'((1 << (log_eb_i - 4'(LOG_BUS_BYTES))) - 1);
    is_data = row_q >= yb && row_q < ye && col_q >= xb && col_q < xe;
    last_col = col_q == width - 1'b1;
    last_elem = last_col && row_q == rows - 1'b1;
    row_last_data = col_q == xe - 1'b1;

    run_d = run_q;
    row_d = row_q;
    col_d = col_q;
    beat_d = beat_q;
    idx_d = idx_q;
    word_d = word_q;
    wbase_d = wbase_q;
    shift = 1'b0;
    uop_word = rd_data_i[32 * word_q[LUPB-1:0] +: 32];
    wr_valid_o = 1'b0;
    rd_ready_o = 1'b0;
    bytes_o = '0;
    done_o = 1'b0;
    adv = 1'b0;

    if (!run_q) begin
      if (start_i) begin
        if (m_i.x_size == '0 || rows == '0) done_o = 1'b1;  // a sync or nothing to write
        else begin
          run_d = 1'b1;
          row_d = '0;
          col_d = '0;
          beat_d = '0;
          idx_d = m_i.sram_base;
          wbase_d = (LUPB + 1)'(m_i.dram_base[LUPB:0] & (LUPB + 1)'(UPB - 1));
          word_d = (LUPB + 1)'(m_i.dram_base[LUPB:0] & (LUPB + 1)'(UPB - 1));
        end
      end
    end else begin
      if (!is_data) begin
        wr_valid_o = 1'b1;
        adv = 1'b1;
      end else if (uop_mode_i) begin
        if (rd_valid_i) begin
          wr_valid_o = 1'b1;
          bytes_o = 16'd4;
          adv = 1'b1;
          if (word_q == (LUPB + 1)'(UPB - 1) || row_last_data) begin
            rd_ready_o = 1'b1;
            word_d = '0;
          end else begin
            word_d = word_q + 1'b1;
          end
          if (row_last_data) begin
            // next DRAM row starts at (dram_base + (r+1)*x_stride) mod UPB
            wbase_d = (LUPB + 1)'((wbase_q + (LUPB + 1)'(m_i.x_stride)) & (LUPB + 1)'(UPB - 1));
            word_d = wbase_d;
          end
        end
      end else begin
        rd_ready_o = 1'b1;
        if (rd_valid_i) begin
          bytes_o = 16'(BUS_BYTES);
          shift = 1'b1;
          beat_d = beat_q + 1'b1;
          if (beat_q == bpe_m1) begin
            wr_valid_o = 1'b1;
            beat_d = '0;
            adv = 1'b1;
          end
        end
      end
      if (adv) begin
        idx_d = idx_q + 1'b1;
        if (last_col) begin
          col_d = '0;
          row_d = row_q + 1'b1;
        end else begin
          col_d = col_q + 1'b1;
        end
        if (last_elem) begin
          run_d = 1'b0;
          done_o = 1'b1;
        end
      end
    end
  end
  assign wr_idx_o = idx_q;
  // the element: padding is zero; else this beat on top of the ones before it (UOP mode: the
  // micro-op in the top 32 bits). One wide assignment per cycle, for simulation speed.
  assign wr_data_o = !is_data ? '0 :
      {uop_mode_i ? uop_word : rd_data_i[BUS_BITS-1 -: 32], rd_data_i[BUS_BITS-33:0],
       elem_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      row_q <= '0;
      col_q <= '0;
      beat_q <= '0;
      idx_q <= '0;
      word_q <= '0;
      wbase_q <= '0;
    end else begin
      run_q <= run_d;
      row_q <= row_d;
      col_q <= col_d;
      beat_q <= beat_d;
      idx_q <= idx_d;
      word_q <= word_d;
      wbase_q <= wbase_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (shift) elem_q <= EW'({rd_data_i, elem_q} >> BUS_BITS);
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (MAXW > BUS_BITS) else $fatal(1, "ovta_dma_rd: elements must be wider than the bus");
    assert (BUS_BITS >= 64) else $fatal(1, "ovta_dma_rd: bus narrower than 64 bits");
  end
`endif
endmodule
