// ovta_dma_req: the request side of a LOAD's 2D read (ovta_dma_rd): one AXI read burst after
// another for every DRAM row r (element dram_base + r * x_stride, x_size elements, whole beats
// covering them), each split at 4 KiB boundaries and at 256 beats. Stops with err_o when a row
// ends beyond the AXI address space.
`default_nettype none
module ovta_dma_req
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic                     start_i,      // pulse: begin the LOAD in m_i
  // lint waiver: only the DRAM-side fields are used here
  // verilator lint_off UNUSEDSIGNAL
  input  wire mem_t                     m_i,          // the LOAD (held while busy)
  // verilator lint_on UNUSEDSIGNAL
  input  wire logic [3:0]               log_eb_i,     // log2 bytes of an element
  output      logic                     err_o,        // pulse: a row beyond the bus
  output      logic                     req_valid_o,
  output      logic [AXI_ADDR_BITS-1:0] req_addr_o,
  output      logic [7:0]               req_len_o,
  input  wire logic                     req_ready_i
);
  localparam logic [ADDR_W-1:0] BUS_MASK = ADDR_W'(BUS_BYTES) - ADDR_W'(1);  // byte in a beat

  typedef enum logic [1:0] {RQ_IDLE, RQ_ROW, RQ_BURST} rq_e;
  rq_e rq_q, rq_d;
  logic [15:0] rq_row_q, rq_row_d;        // DRAM rows requested so far
  logic [ADDR_W-1:0] rq_elem_q, rq_elem_d; // element index of the row: dram_base + r*x_stride
  logic [ADDR_W-1:0] rq_addr_q, rq_addr_d; // next burst byte address
  logic [31:0] rq_beats_q, rq_beats_d;     // beats left in the row
  logic [ADDR_W-1:0] row_a, row_end, row_a0, row_e1;
  logic [12:0] to_4k;                      // beats up to the next 4 KiB boundary
  logic [31:0] blen;                       // beats of this burst
  logic rq_err;

  always_comb begin
    row_a = rq_elem_q << log_eb_i;
    row_end = row_a + (ADDR_W'(m_i.x_size) << log_eb_i);
    row_a0 = row_a & ~BUS_MASK;
    row_e1 = (row_end + BUS_MASK) & ~BUS_MASK;
    to_4k = 13'((13'h1000 - {1'b0, rq_addr_q[11:0]}) >> LOG_BUS_BYTES);
    blen = rq_beats_q;
    if (blen > 32'd256) blen = 32'd256;
    if (blen > 32'(to_4k)) blen = 32'(to_4k);
    rq_d = rq_q;
    rq_row_d = rq_row_q;
    rq_elem_d = rq_elem_q;
    rq_addr_d = rq_addr_q;
    rq_beats_d = rq_beats_q;
    req_valid_o = 1'b0;
    rq_err = 1'b0;
    unique case (rq_q)
      RQ_IDLE: begin
        if (start_i && m_i.x_size != '0 && m_i.y_size != '0) begin
          rq_d = RQ_ROW;
          rq_row_d = '0;
          rq_elem_d = ADDR_W'(m_i.dram_base);
        end
      end
      RQ_ROW: begin
        if (row_e1 > (ADDR_W'(1) << AXI_ADDR_BITS)) begin
          rq_err = 1'b1;
          rq_d = RQ_IDLE;
        end else begin
          rq_addr_d = row_a0;
          rq_beats_d = 32'((row_e1 - row_a0) >> LOG_BUS_BYTES);
          rq_d = RQ_BURST;
        end
      end
      RQ_BURST: begin
        req_valid_o = 1'b1;
        if (req_ready_i) begin
          rq_addr_d = rq_addr_q + (ADDR_W'(blen) << LOG_BUS_BYTES);
          rq_beats_d = rq_beats_q - blen;
          if (rq_beats_q == blen) begin
            rq_row_d = rq_row_q + 1'b1;
            rq_elem_d = rq_elem_q + ADDR_W'(m_i.x_stride);
            rq_d = (rq_row_q + 1'b1 == m_i.y_size) ? RQ_IDLE : RQ_ROW;
          end
        end
      end
      default: rq_d = RQ_IDLE;
    endcase
  end
  assign req_addr_o = rq_addr_q[AXI_ADDR_BITS-1:0];
  assign req_len_o = 8'(blen - 1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rq_q <= RQ_IDLE;
      rq_row_q <= '0;
      rq_elem_q <= '0;
      rq_addr_q <= '0;
      rq_beats_q <= '0;
    end else begin
      rq_q <= rq_d;
      rq_row_q <= rq_row_d;
      rq_elem_q <= rq_elem_d;
      rq_addr_q <= rq_addr_d;
      rq_beats_q <= rq_beats_d;
    end
  end
  assign err_o = rq_err;
endmodule
