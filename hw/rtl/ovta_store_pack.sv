// ovta_store_pack: the data side of a STORE (ovta_store): reads the x_size * y_size OUT
// elements from sram_base on (one SRAM read per cycle into a 4-entry element FIFO, so reads
// keep pace with a consumer taking one element per cycle) and turns them into AXI write beats
// with byte strobes, in the order ovta_store's bursts need them (row after row, each row
// covering whole beats from the beat of its first byte to the beat of its last byte):
//   OUT_BYTES >= BUS_BYTES: each element is OUT_BYTES / BUS_BYTES beats (lowest first), all
//     strobes set: one beat per cycle, the full bus width.
//   OUT_BYTES <  BUS_BYTES: a beat has EPB element slots; a row starts at the slot of its DRAM
//     address (dram_base + r * x_stride mod EPB) and ends after x_size elements, so its first
//     and last beats may be partial (strobes only on the row's bytes; the other bytes of the
//     beat, which may belong to another row, are left alone). One element per cycle (the OUT
//     SRAM read port): a full beat every EPB cycles; the beat on offer is held in a register
//     while the next one is assembled, so a W stall does not stop the assembly at once.
`default_nettype none
module ovta_store_pack
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
(
  input  wire logic                     clk_i,
  input  wire logic                     rst_ni,
  input  wire logic                     start_i,      // pulse: a STORE begins
  // lint waiver: only the geometry fields of the STORE are needed
  // verilator lint_off UNUSEDSIGNAL
  input  wire mem_t                     m_i,          // the STORE (read at start_i only)
  // verilator lint_on UNUSEDSIGNAL
  // OUT SRAM read port
  output      logic                     out_re_o,
  output      logic [$clog2(OUT_DEPTH)-1:0] out_raddr_o,
  input  wire logic [OUT_BITS-1:0]      out_rdata_i,
  // write beats, in order
  output      logic                     beat_valid_o,
  output      logic [BUS_BITS-1:0]      beat_data_o,
  output      logic [BUS_BYTES-1:0]     beat_strb_o,
  output      logic [15:0]              beat_bytes_o, // bytes strobed in the beat
  input  wire logic                     beat_take_i
);
  localparam int unsigned FD = 4;                    // element FIFO entries

  // ---- prefetch: OUT SRAM -> element FIFO
  logic [31:0] ereq_q;                    // elements still to read for this STORE
  // lint waiver: SRAM indices are 16 bits wide, the SRAM uses the bits of its depth
  // verilator lint_off UNUSEDSIGNAL
  logic [15:0] sidx_q;                    // next OUT SRAM index to read
  // verilator lint_on UNUSEDSIGNAL
  logic inflight_q;                       // a read was issued last cycle
  logic f_valid, f_take;
  logic [OUT_BITS-1:0] f_data;
  logic [$clog2(FD):0] f_cnt;

  assign out_re_o = ereq_q != '0 && (32'(f_cnt) + 32'(inflight_q)) < 32'(FD);
  assign out_raddr_o = $clog2(OUT_DEPTH)'(sidx_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ereq_q <= '0;
      sidx_q <= '0;
      inflight_q <= 1'b0;
    end else begin
      inflight_q <= out_re_o;
      if (start_i) begin
        ereq_q <= m_i.x_size == '0 ? '0 : 32'(m_i.x_size) * 32'(m_i.y_size);
        sidx_q <= m_i.sram_base;
      end else if (out_re_o) begin
        ereq_q <= ereq_q - 1'b1;
        sidx_q <= sidx_q + 1'b1;
      end
    end
  end

  // lint waiver: the FIFO never fills (reads are issued only with room), full_o is not needed
  // verilator lint_off PINCONNECTEMPTY
  ovta_fifo #(.WIDTH(OUT_BITS), .DEPTH(FD)) u_elems (
    .clk_i, .rst_ni, .clr_i(1'b0), .push_i(inflight_q), .data_i(out_rdata_i), .full_o(),
    .pop_i(f_take), .valid_o(f_valid), .data_o(f_data), .count_o(f_cnt));
  // verilator lint_on PINCONNECTEMPTY

  if (OUT_BYTES >= BUS_BYTES) begin : g_wide
    // ---- an element is BPE whole beats
    localparam int unsigned BPE = OUT_BYTES / BUS_BYTES;
    logic [$clog2(BPE):0] bsel_q;         // beat within the head element
    assign beat_valid_o = f_valid;
    assign beat_data_o = f_data[BUS_BITS * bsel_q +: BUS_BITS];
    assign beat_strb_o = '1;
    assign beat_bytes_o = 16'(BUS_BYTES);
    assign f_take = beat_take_i && 32'(bsel_q) == 32'(BPE - 1);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) bsel_q <= '0;
      else if (beat_take_i) bsel_q <= f_take ? '0 : bsel_q + 1'b1;
    end
  end else begin : g_narrow
    // ---- a beat holds EPB element slots
    localparam int unsigned EPB = BUS_BYTES / OUT_BYTES;
    localparam int unsigned SW = $clog2(EPB);
    logic [SW-1:0] slot_q, slot_d;        // slot of the next element
    logic [SW-1:0] rslot_q, rslot_d;      // slot of the current row's first element
    logic [15:0] rem_q, rem_d;            // elements of the current row not yet placed
    logic [15:0] xs_q;                    // x_size of the STORE
    logic [SW-1:0] xst_q;                 // its x_stride mod EPB
    logic [BUS_BITS-1:0] asm_q, asm_d;    // the beat being assembled
    logic [EPB-1:0] amask_q, amask_d;     // its filled slots
    logic [SW:0] acnt_q, acnt_d;          // how many
    logic [BUS_BITS-1:0] od_q;            // the beat on offer
    logic [EPB-1:0] om_q;                 // its slots
    logic [SW:0] ocnt_q;
    logic ov_q;                           // a beat is on offer
    logic complete, out_free, place;

    always_comb begin
      complete = slot_q == '1 || rem_q == 16'd1;       // this element ends the beat
      out_free = !ov_q || beat_take_i;
      place = f_valid && (!complete || out_free);
      asm_d = asm_q;
      asm_d[OUT_BITS * slot_q +: OUT_BITS] = f_data;
      amask_d = amask_q;
      amask_d[slot_q] = 1'b1;
      acnt_d = acnt_q + 1'b1;
      slot_d = slot_q + 1'b1;
      rslot_d = rslot_q;
      rem_d = rem_q - 1'b1;
      if (rem_q == 16'd1) begin  // the row's last element: the next row starts at its slot
        rslot_d = rslot_q + xst_q;
        slot_d = rslot_d;
        rem_d = xs_q;
      end
    end
    assign f_take = place;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        slot_q <= '0;
        rslot_q <= '0;
        rem_q <= '0;
        xs_q <= '0;
        xst_q <= '0;
        amask_q <= '0;
        acnt_q <= '0;
        om_q <= '0;
        ocnt_q <= '0;
        ov_q <= 1'b0;
      end else if (start_i) begin
        slot_q <= SW'(m_i.dram_base);
        rslot_q <= SW'(m_i.dram_base);
        rem_q <= m_i.x_size;
        xs_q <= m_i.x_size;
        xst_q <= SW'(m_i.x_stride);
        amask_q <= '0;
        acnt_q <= '0;
      end else begin
        if (beat_take_i) ov_q <= 1'b0;
        if (place) begin
          slot_q <= slot_d;
          rslot_q <= rslot_d;
          rem_q <= rem_d;
          if (complete) begin
            om_q <= amask_d;
            ocnt_q <= acnt_d;
            ov_q <= 1'b1;
            amask_q <= '0;
            acnt_q <= '0;
          end else begin
            amask_q <= amask_d;
            acnt_q <= acnt_d;
          end
        end
      end
    end
    // data registers: no reset (bytes without a strobe are never written)
    always_ff @(posedge clk_i) begin
      if (place) begin
        asm_q <= asm_d;
        if (complete) od_q <= asm_d;
      end
    end

    assign beat_valid_o = ov_q;
    assign beat_data_o = od_q;
    for (genvar s = 0; s < EPB; s++) begin : g_strb
      assign beat_strb_o[OUT_BYTES * s +: OUT_BYTES] = {OUT_BYTES{om_q[s]}};
    end
    assign beat_bytes_o = 16'(32'(ocnt_q) * OUT_BYTES);
  end
endmodule
