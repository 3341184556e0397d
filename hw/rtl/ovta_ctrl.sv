// ovta_ctrl: run control and event counters. A run starts on `start_i` and ends when every
// instruction retired (success with a FINISH, else "no FINISH"), or when no unit can make
// progress any more (after an error: the error with the lowest instruction index; otherwise a
// deadlock). An AXI error response ends the run in the cycle it is seen (ST_BUS: unit, response
// and that unit's instruction; the first one wins). Counters are cleared at the start of a run
// and count while it runs.
`default_nettype none
module ovta_ctrl
  import ovta_pkg::*;
  import ovta_rtl_pkg::*;
#(
  parameter int unsigned NCNT = 18   // 64-bit event counters
) (
  input  wire logic                  clk_i,
  input  wire logic                  rst_ni,
  input  wire logic                  start_i,       // pulse: begin a run
  input  wire logic [31:0]           insn_count_i,
  // units: 0 fetch, 1 load, 2 compute, 3 store
  input  wire logic [3:0]            quiet_i,       // unit can make no progress by itself
  input  wire logic [3:0]            err_i,         // unit stopped on an error
  input  wire logic [4*32-1:0]       err_idx_i,     // index of the failing instruction, unit u at [32u +: 32]
  input  wire logic [4*4-1:0]        err_rule_i,    // rule_e of the failure, unit u at [4u +: 4]
  input  wire logic                  fetch_done_i,  // fetch dispatched everything
  input  wire logic                  bus_err_i,     // pulse: an AXI error response (R or B handshake)
  input  wire logic [1:0]            bus_unit_i,    // its unit (RID, or 3: store for B)
  input  wire logic [1:0]            bus_resp_i,    // the response (SLVERR, DECERR)
  input  wire logic [31:0]           bus_idx_i,     // the instruction of that unit
  input  wire logic [2:0]            retire_i,      // pulses: load, compute, store retired one
  input  wire logic                  finish_i,      // pulse: a FINISH retired
  input  wire logic [NCNT*16-1:0]    inc_i,         // counter increments, counter c at [16c +: 16]
  output      logic                  running_o,     // a run is in progress
  output      logic                  done_o,        // the last run ended
  output      status_e               status_o,      // its outcome
  output      logic [3:0]            rule_o,        // the rule broken (rule_e; ST_INSN, ST_ADDR)
  output      logic [1:0]            err_unit_o,    // the unit that failed
  output      logic [31:0]           err_idx_o,     // the failing instruction
  output      logic [1:0]            err_resp_o,    // ST_BUS: the AXI response
  output      logic [31:0]           finishes_o,    // FINISH instructions retired
  output      logic [31:0]           retired_o,     // instructions retired
  output      logic [NCNT*64-1:0]    cnt_o          // the counters, counter c at [64c +: 64]
);
  logic [1:0] quiet_n_q;   // consecutive cycles everything was quiet
  logic all_retired, any_err, quiet_all, end_run;
  logic [1:0] pick;
  logic [31:0] pick_idx;

  assign all_retired = fetch_done_i && !err_i[0] && retired_o == insn_count_i;
  assign any_err = err_i != '0;
  assign quiet_all = quiet_i == 4'hf;
  assign end_run = running_o && (all_retired || quiet_n_q == 2'd2);

  always_comb begin
    pick = '0;
    pick_idx = '1;
    for (int u = 0; u < 4; u++) begin
      if (err_i[u] && err_idx_i[32 * u +: 32] <= pick_idx) begin
        pick = 2'(u);
        pick_idx = err_idx_i[32 * u +: 32];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running_o <= 1'b0;
      done_o <= 1'b0;
      status_o <= ST_OK;
      rule_o <= 4'(RULE_NONE);
      err_unit_o <= '0;
      err_idx_o <= '0;
      err_resp_o <= '0;
      finishes_o <= '0;
      retired_o <= '0;
      quiet_n_q <= '0;
    end else if (start_i && !running_o) begin
      running_o <= 1'b1;
      done_o <= 1'b0;
      status_o <= ST_OK;
      rule_o <= 4'(RULE_NONE);
      err_unit_o <= '0;
      err_idx_o <= '0;
      err_resp_o <= '0;
      finishes_o <= '0;
      retired_o <= '0;
      quiet_n_q <= '0;
    end else if (running_o) begin
      retired_o <= retired_o + 32'(retire_i[0]) + 32'(retire_i[1]) + 32'(retire_i[2]);
      finishes_o <= finishes_o + 32'(finish_i);
      quiet_n_q <= !quiet_all ? 2'd0 : (quiet_n_q == 2'd2 ? 2'd2 : quiet_n_q + 1'b1);
      if (bus_err_i) begin
        running_o <= 1'b0;
        done_o <= 1'b1;
        status_o <= ST_BUS;
        rule_o <= 4'(RULE_NONE);
        err_unit_o <= bus_unit_i;
        err_idx_o <= bus_idx_i;
        err_resp_o <= bus_resp_i;
      end else if (end_run) begin
        running_o <= 1'b0;
        done_o <= 1'b1;
        if (any_err) begin
          status_o <= err_rule_i[4 * pick +: 4] == 4'(RULE_ADDR) ? ST_ADDR : ST_INSN;
          rule_o <= err_rule_i[4 * pick +: 4];
          err_unit_o <= pick;
          err_idx_o <= pick_idx;
        end else if (all_retired) begin
          status_o <= finishes_o != '0 ? ST_OK : ST_NO_FINISH;
        end else begin
          status_o <= ST_DEADLOCK;
        end
      end
    end
  end

  // event counters: one 64-bit register each (cleared at the start of a run, count while running)
  for (genvar c = 0; c < int'(NCNT); c++) begin : g_cnt
    logic [63:0] cnt_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) cnt_q <= '0;
      else if (start_i && !running_o) cnt_q <= '0;
      else if (running_o) cnt_q <= cnt_q + 64'(inc_i[16 * c +: 16]);
    end
    assign cnt_o[64 * c +: 64] = cnt_q;
  end
endmodule
