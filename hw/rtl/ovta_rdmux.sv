// ovta_rdmux: the read side of the register file (map in hw/rtl/README.md): the 32-bit value
// of one word address, selected by a case (one word, not a vector of all registers, so a
// simulator evaluates only the addressed word). Words not in the map read as zero.
`default_nettype none
module ovta_rdmux
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
#(
  parameter int unsigned NCNT = 18   // 64-bit event counters
) (
  input  wire logic [9:0]            addr_i,       // word address (byte address / 4)
  output      logic [31:0]           data_o,
  input  wire logic                  running_i,
  input  wire logic                  done_i,
  input  wire status_e               status_i,
  input  wire logic [3:0]            rule_i,
  input  wire logic [1:0]            err_unit_i,
  input  wire logic [1:0]            err_resp_i,   // AXI response of a bus error
  input  wire logic [31:0]           err_idx_i,
  input  wire logic [31:0]           insn_addr_i,
  input  wire logic [31:0]           insn_count_i,
  input  wire logic [31:0]           finishes_i,
  input  wire logic [NCNT*64-1:0]    cnt_i,        // counter c at [64c +: 64]
  input  wire logic [31:0]           retired_i,
  input  wire logic [3*32-1:0]       dbg_i,        // DBG words: load, compute, store at [32u +: 32]
  input  wire logic [3*32-1:0]       idx_i,        // IDX word of load, compute, store
  input  wire logic [31:0]           tokens_i,     // TOKENS
  input  wire logic [31:0]           cmdq_i,       // CMDQ
  input  wire logic [2:0]            fetch_i,      // FETCH: stopped on error, quiet, done
  input  wire logic [31:0]           err_val_i,    // ERR_VALUE
  input  wire logic [31:0]           axi_i         // AXI
);
  localparam int unsigned CNT0 = 8;   // word of counter 0, low half

  always_comb begin
    data_o = '0;
    unique case (addr_i)
      10'd0: data_o = {29'd0, status_i != ST_OK && done_i, done_i, running_i};
      10'd1: begin  // STATUS: field positions from isa/encoding.json "status"
        data_o[STATUS_OUTCOME_LO +: STATUS_OUTCOME_W] = STATUS_OUTCOME_W'(status_i);
        data_o[STATUS_RULE_LO +: STATUS_RULE_W] = STATUS_RULE_W'(rule_i);
        data_o[STATUS_UNIT_LO +: STATUS_UNIT_W] = STATUS_UNIT_W'(err_unit_i);
        data_o[STATUS_RESP_LO +: STATUS_RESP_W] = STATUS_RESP_W'(err_resp_i);
      end
      10'd2: data_o = err_idx_i;
      10'd3: data_o = insn_addr_i;
      10'd5: data_o = insn_count_i;
      10'd6: data_o = {8'(LOG_BATCH), 8'(LOG_BLOCK), 8'(AXI_DATA_BITS / 8), 8'h0a};  // CONFIG_ID
      10'd7: data_o = finishes_i;
      10'd48: data_o = retired_i;
      10'd49: data_o = dbg_i[0 +: 32];
      10'd50: data_o = idx_i[0 +: 32];
      10'd51: data_o = dbg_i[32 +: 32];
      10'd52: data_o = idx_i[32 +: 32];
      10'd53: data_o = dbg_i[64 +: 32];
      10'd54: data_o = idx_i[64 +: 32];
      10'd55: data_o = tokens_i;
      10'd56: data_o = cmdq_i;
      10'd57: data_o = {29'd0, fetch_i};
      10'd58: data_o = err_val_i;
      10'd59: data_o = axi_i;
      default: begin
        // counters: words CNT0 + 2c (low), CNT0 + 2c + 1 (high)
        if (32'(addr_i) >= CNT0 && 32'(addr_i) < CNT0 + 2 * NCNT)
          data_o = cnt_i[32 * (32'(addr_i) - CNT0) +: 32];
      end
    endcase
  end

  // parameter checks (simulation and lint; Yosys 0.23 cannot parse assert ... else)
`ifndef SYNTHESIS
  initial begin
    assert (CNT0 + 2 * NCNT <= 48) else $fatal(1, "ovta_rdmux: counters overlap RETIRED");
  end
`endif
endmodule
