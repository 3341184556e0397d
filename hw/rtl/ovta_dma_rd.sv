// ovta_dma_rd: the 2D load engine of a LOAD instruction (isa/ISA.md, LOAD). ovta_dma_req
// issues the AXI read bursts of every DRAM row (whole beats covering the row, split at 4 KiB
// and 256 beats); this module writes SRAM elements in order: padding rows, then per row x_pad_0
// zeros, x_size elements from DRAM, x_pad_1 zeros, then padding rows. Two kinds of element,
// chosen per LOAD by log_eb_i:
//   wide   (element >= one beat): the element is assembled from 2^(log_eb - LOG_BUS_BYTES)
//          beats (first beat lowest), one beat per cycle: the full bus width.
//   narrow (element <  one beat, e.g. micro-ops, INP/OUT rows on a 256/512-bit bus): a beat
//          holds several elements; an element-aligned row may start and end anywhere in a beat.
//          One element per cycle (the SRAM write port), read from the beat at its byte offset;
//          the beat is released after its last element of the row, so a row narrower than a
//          beat, or a beat shared by two rows (x_stride), costs no extra cycles.
// The element appears in the top bits of wr_data_o (the consumer slices the width of its type).
`default_nettype none
module ovta_dma_rd
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
#(
  parameter int unsigned MAXW = 512,  // widest element handled, bits
  parameter int unsigned MINW = 32    // narrowest element handled, bits
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
  // LOG_BUS_BYTES, from a local copy of the bus width: Yosys 0.23 fails to fold a package-level
  // $clog2 (or a $clog2 of a package parameter) in the size casts below
  localparam int unsigned BB = BUS_BITS / 8;
  localparam int unsigned LB = $clog2(BB);
  localparam int unsigned BPE_MAX = MAXW > BUS_BITS ? MAXW / BUS_BITS : 1;  // beats per element
  localparam int unsigned BCW = $clog2(BPE_MAX) + 1;
  localparam int unsigned LOG_MINB = $clog2(MINW / 8);
  // narrow elements start at multiples of MINW/8 bytes in a beat: NU possible positions
  localparam int unsigned NU = MINW < BUS_BITS ? BUS_BITS / MINW : 1;
  localparam int unsigned UW = $clog2(NU) + 1;

  ovta_dma_req u_req (
    .clk_i, .rst_ni, .start_i, .m_i, .log_eb_i, .err_o, .req_valid_o, .req_addr_o, .req_len_o,
    .req_ready_i);

  logic run_q, run_d;                      // writing elements
  logic [19:0] row_q, row_d;               // output row, 0 .. rows-1
  logic [19:0] col_q, col_d;               // output column, 0 .. W-1
  logic [BCW-1:0] beat_q, beat_d;          // wide: beats of the current element received
  logic [15:0] idx_q, idx_d;               // SRAM index
  logic [LB-1:0] off_q, off_d;             // narrow: byte offset of the element in the beat
  logic [LB-1:0] roff_q, roff_d;           // narrow: byte offset of the current DRAM row's start
  logic [LB-1:0] eb_m1;                    // narrow: element bytes - 1
  logic [LB-1:0] gap;                      // narrow: bytes above the element in the beat
  logic [UW-1:0] sh_u;                     // narrow: shift up by sh_u * MINW bits (top-align)
  // lint waiver: with no element wider than a beat (MAXW <= BUS_BITS) nothing is shifted in
  // and only the top MAXW bits of the top-aligned beat are an element
  // verilator lint_off UNUSEDSIGNAL
  logic [BUS_BITS-1:0] top;                // the beat with the element in its top bits
  logic shift;                             // wide: a beat arrives, shift it in
  // verilator lint_on UNUSEDSIGNAL
  logic narrow;                            // the elements are narrower than a beat
  logic [19:0] rows, width;
  logic [19:0] yb, ye, xb, xe;             // data rows [yb, ye), data columns [xb, xe)
  logic is_data, last_elem, last_col, row_last_data;
  logic [BCW-1:0] bpe_m1;                  // wide: beats per element - 1
  logic adv;                               // an element is written: advance

  always_comb begin
    yb = 20'(m_i.y_pad_0);
    ye = yb + 20'(m_i.y_size);
    rows = ye + 20'(m_i.y_pad_1);
    xb = 20'(m_i.x_pad_0);
    xe = xb + 20'(m_i.x_size);
    width = xe + 20'(m_i.x_pad_1);
    narrow = log_eb_i < 4'(LB);
    bpe_m1 = narrow ? '0 : BCW'((32'd1 << (log_eb_i - 4'(LB))) - 32'd1);
    eb_m1 = LB'((32'd1 << log_eb_i) - 32'd1);
    // element at bytes [off, off + eb): move it up by BUS_BYTES - off - eb bytes
    // (off is a multiple of eb, so off + eb - 1 = off | eb_m1)
    gap = ~(off_q | eb_m1);
    sh_u = narrow ? UW'(gap >> LOG_MINB) : '0;
    is_data = row_q >= yb && row_q < ye && col_q >= xb && col_q < xe;
    last_col = col_q == width - 1'b1;
    last_elem = last_col && row_q == rows - 1'b1;
    row_last_data = col_q == xe - 1'b1;

    run_d = run_q;
    row_d = row_q;
    col_d = col_q;
    beat_d = beat_q;
    idx_d = idx_q;
    off_d = off_q;
    roff_d = roff_q;
    shift = 1'b0;
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
          roff_d = LB'(ADDR_W'(m_i.dram_base) << log_eb_i);
          off_d = roff_d;
        end
      end
    end else begin
      if (!is_data) begin
        wr_valid_o = 1'b1;
        adv = 1'b1;
      end else if (narrow) begin
        if (rd_valid_i) begin
          wr_valid_o = 1'b1;
          bytes_o = 16'(32'd1 << log_eb_i);
          adv = 1'b1;
          off_d = off_q + eb_m1 + 1'b1;  // wraps to 0 after the beat's last element
          if ((off_q | eb_m1) == '1 || row_last_data) rd_ready_o = 1'b1;
          if (row_last_data) begin
            // the next DRAM row starts at byte (dram_base + (r+1)*x_stride) * eb mod BUS_BYTES
            roff_d = roff_q + LB'(ADDR_W'(m_i.x_stride) << log_eb_i);
            off_d = roff_d;
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
  // the beat shifted so the element ends at its top bit (wide elements: the beat as it is)
  assign top = rd_data_i << {sh_u, (LOG_MINB + 3)'(0)};

  // the element: padding is zero; else the top-aligned beat above the earlier beats of a wide
  // element. One wide assignment per cycle, for simulation speed.
  if (MAXW > BUS_BITS) begin : g_wide
    localparam int unsigned EW = MAXW - BUS_BITS;
    logic [EW-1:0] elem_q;                 // the beats before the last one (shifted in at the top)
    assign wr_data_o = !is_data ? '0 : {top, elem_q};
    always_ff @(posedge clk_i) begin
      if (shift) elem_q <= EW'({rd_data_i, elem_q} >> BUS_BITS);
    end
  end else begin : g_narrow
    assign wr_data_o = !is_data ? '0 : top[BUS_BITS-1 -: MAXW];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      row_q <= '0;
      col_q <= '0;
      beat_q <= '0;
      idx_q <= '0;
      off_q <= '0;
      roff_q <= '0;
    end else begin
      run_q <= run_d;
      row_q <= row_d;
      col_q <= col_d;
      beat_q <= beat_d;
      idx_q <= idx_d;
      off_q <= off_d;
      roff_q <= roff_d;
    end
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (BUS_BITS >= 64) else $fatal(1, "ovta_dma_rd: bus narrower than 64 bits");
    assert (MINW >= 32 && MINW <= MAXW && (MINW & (MINW - 1)) == 0 && (MAXW & (MAXW - 1)) == 0)
      else $fatal(1, "ovta_dma_rd: element widths must be powers of two, 32 <= MINW <= MAXW");
  end
`endif
endmodule
