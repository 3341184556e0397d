// ovta_rtl_pkg: types and constants shared by the RTL modules, derived from the generated
// per-config package ovta_pkg (build/gen/CONFIG/ovta_pkg.sv). Never encodes instruction bits
// by hand: the formats come from ovta_pkg.
`default_nettype none
package ovta_rtl_pkg;
  import ovta_pkg::*;

  // ---- memory bus
  localparam int unsigned BUS_BITS = AXI_DATA_BITS;
  localparam int unsigned BUS_BYTES = AXI_DATA_BITS / 8;
  localparam int unsigned LOG_BUS_BYTES = $clog2(BUS_BYTES);
  localparam int unsigned ADDR_W = 48;  // internal byte-address width (exact, checked vs bus)

  // ---- element widths in bits
  localparam int unsigned INP_BITS = INP_BYTES * 8;
  localparam int unsigned WGT_BITS = WGT_BYTES * 8;
  localparam int unsigned ACC_BITS = ACC_BYTES * 8;
  localparam int unsigned OUT_BITS = OUT_BYTES * 8;

  // ---- read requesters on the shared AXI read channel (ARID)
  localparam int unsigned NREQ = 3;
  localparam int unsigned RQ_FETCH = 0;
  localparam int unsigned RQ_LOAD = 1;
  localparam int unsigned RQ_COMPUTE = 2;
  localparam int unsigned ID_W = 2;

  // ---- a dispatched instruction: its index in the stream and its bits
  typedef struct packed {
    logic [31:0] idx;             // index in the instruction stream
    // the instruction; 128 = INSN_BITS (checked in ovta_top): Yosys 0.23 sizes a struct member
    // declared with a package parameter as one bit, so the width is written out here
    logic [127:0] insn;
  } cmd_t;
  localparam int unsigned CMD_BITS = 32 + INSN_BITS;  // $bits(cmd_t) (Yosys 0.23: no $bits(type))

  // ---- outcome codes (STATUS register; values from isa/encoding.json "status", via ovta_pkg)
  typedef enum logic [3:0] {
    ST_OK = 4'(OUTCOME_OK),               // success
    ST_INSN = 4'(OUTCOME_INSN),           // invalid instruction (static or dynamic rule)
    ST_DEADLOCK = 4'(OUTCOME_DEADLOCK),   // no unit can progress
    ST_NO_FINISH = 4'(OUTCOME_NO_FINISH), // everything retired without a FINISH
    ST_ADDR = 4'(OUTCOME_ADDR),           // a DRAM address beyond the bus, or a misaligned stream
    ST_BUS = 4'(OUTCOME_BUS)              // an AXI error response (RRESP/BRESP SLVERR or DECERR)
  } status_e;

  typedef enum logic [3:0] {
    RULE_NONE = 4'd0,
    RULE_OPCODE = 4'd1,    // unknown opcode
    RULE_RSVD = 4'd2,      // reserved bit set
    RULE_DEP = 4'd3,       // dependency bit naming no queue
    RULE_MEMTYPE = 4'd4,   // memory type not allowed for the opcode
    RULE_PAD = 4'd5,       // padding on anything but INP/ACC loads
    RULE_SRAM = 4'd6,      // SRAM range beyond the buffer
    RULE_UOP = 4'd7,       // uop range outside uop SRAM
    RULE_ALUOP = 4'd8,     // unknown ALU opcode
    RULE_DST = 4'd9,       // GEMM/ALU dst index out of range
    RULE_SRC = 4'd10,      // GEMM/ALU src index out of range
    RULE_WGT = 4'd11,      // GEMM wgt index out of range
    RULE_ADDR = 4'd12      // DRAM byte address beyond AXI_ADDR_BITS
  } rule_e;

  // ---- destination module of an instruction
  typedef enum logic [1:0] {
    DST_LOAD = 2'd0,
    DST_COMPUTE = 2'd1,
    DST_STORE = 2'd2
  } dst_e;

  // ---- per-module debug word (DBG registers): what a module is doing or waiting for
  typedef struct packed {
    logic [17:0] rsvd;        // zero
    logic [2:0] opcode;       // opcode of the current / head instruction
    logic halted;             // stopped on an error
    logic head_valid;         // a command waits at the head of its queue
    logic busy;               // executing an instruction
    logic [3:0] wait_q;       // lacking: pop_prev token, pop_next token, push_prev room, push_next room
    logic [3:0] state;        // FSM state
  } dbg_t;
endpackage
