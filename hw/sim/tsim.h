/* tsim.h: the C API of the Verilator simulation of hw/rtl ("tsim").
 *
 * The model is built per config into build/tsim/CONFIG/libovta_tsim.so (hw/sim/tsim.mk) and
 * loaded with dlopen by driver/backend_tsim.c, so libovta.a does not depend on a config. The
 * library exports the functions of section 3 under these names; TSIM_SYMBOLS lists them.
 *
 * Sections:
 *   1. DRAM     - how the harness reaches the driver's simulated DRAM.
 *   2. Results  - what a run reports: status, failing instruction, counters, unit states.
 *   3. Model    - create, run, register access, destroy.
 *
 * Nothing here aborts on bad input: functions return a tsim_status and fill a message.
 */
#ifndef OVTA_TSIM_H
#define OVTA_TSIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TSIM_API_VERSION 3

/* ---------------------------------------------------------------- 1. DRAM */

/* The DRAM behind the model's AXI4 port. The harness checks every burst with `inside` (the
 * ISA's bounds rule: the bytes lie in one allocated buffer) and reads/writes through `host`. */
typedef struct tsim_dram {
  void *ctx;                                                   /* passed back to the callbacks */
  int (*inside)(void *ctx, uint64_t phys, uint64_t len);       /* 1: [phys, phys+len) allocated */
  void *(*host)(void *ctx, uint64_t phys, uint64_t len);       /* host pointer, NULL: unmapped */
} tsim_dram;

/* Fault injection (hw/sim/README.md, "Faults"): the DRAM model answers one burst with an AXI
 * error response, or holds one read burst back. Bursts are counted per run from 1, reads and
 * writes apart; a fault fires once in the model's life (at the first run that reaches it), so
 * the run after it is clean. */
typedef enum tsim_fault_kind {
  TSIM_FAULT_NONE = 0,
  TSIM_FAULT_RRESP,   /* read burst: every beat answered with `resp` */
  TSIM_FAULT_BRESP,   /* write burst: its B response is `resp` */
  TSIM_FAULT_RSTALL,  /* read burst: its first beat comes `stall_cycles` later */
} tsim_fault_kind;
typedef struct tsim_fault {
  tsim_fault_kind kind;       /* what */
  uint64_t nth;               /* the nth burst of its channel in a run (1-based); 0: by address */
  uint64_t addr, len;         /* nth == 0: the first burst overlapping [addr, addr+len) */
  unsigned resp;              /* RRESP/BRESP code: 2 SLVERR (0: 2), 3 DECERR */
  uint64_t stall_cycles;      /* TSIM_FAULT_RSTALL: extra cycles before the first beat */
} tsim_fault;
#define TSIM_MAX_FAULTS 4

/* Options; zero fields take the defaults. */
typedef struct tsim_opts {
  unsigned read_latency;      /* cycles from AR accepted to the first R beat (0: 32) */
  unsigned write_latency;     /* cycles from the last W beat to B (0: 16) */
  unsigned beats_per_cycle_x16; /* bus beats per cycle times 16 (0: 16, one beat per cycle) */
  uint64_t watchdog_cycles;   /* stop a run with no progress for this long (0: 1000000) */
  const char *fst_path;       /* write an FST waveform here (needs the trace build), NULL: none */
  const char *chrome_trace_path; /* write a Chrome trace JSON timeline here (any build), NULL:
                                    none: one event per instruction executed by load, compute
                                    and store (start/end cycle, opcode, index), over every run
                                    of the model; completed by tsim_destroy */
  tsim_fault faults[TSIM_MAX_FAULTS]; /* faults to inject (kind NONE: unused slot) */
} tsim_opts;

/* ---------------------------------------------------------------- 2. Results */

typedef enum tsim_status {
  TSIM_OK = 0,          /* every instruction retired, at least one FINISH */
  TSIM_EINSN = 1,       /* invalid instruction (index and rule in the result) */
  TSIM_EDEADLOCK = 2,   /* no unit can make progress (unit states in the message) */
  TSIM_ENOFINISH = 3,   /* everything retired without a FINISH */
  TSIM_EDRAM = 4,       /* a DRAM access outside an allocated buffer (or beyond the bus) */
  TSIM_ETIMEOUT = 5,    /* watchdog or cycle limit: the model hung (states in the message) */
  TSIM_EARG = 6,        /* a bad argument, or a harness problem (trace file) */
  TSIM_EBUS = 7,        /* an AXI error response (RRESP/BRESP): unit, response, instruction */
} tsim_status;

/* Counter indices (the hardware counter registers, hw/rtl/README.md). */
enum {
  TSIM_CNT_CYCLES, TSIM_CNT_INSNS_LOAD, TSIM_CNT_INSNS_COMPUTE, TSIM_CNT_INSNS_STORE,
  TSIM_CNT_BYTES_UOP, TSIM_CNT_BYTES_WGT, TSIM_CNT_BYTES_INP, TSIM_CNT_BYTES_ACC,
  TSIM_CNT_BYTES_OUT, TSIM_CNT_GEMM_UOPS, TSIM_CNT_ALU_UOPS, TSIM_CNT_BUSY_LOAD,
  TSIM_CNT_BUSY_COMPUTE, TSIM_CNT_BUSY_STORE, TSIM_CNT_STALL_LOAD, TSIM_CNT_STALL_COMPUTE,
  TSIM_CNT_STALL_STORE, TSIM_CNT_BUSY_FETCH, TSIM_NCNT
};

typedef struct tsim_result {
  tsim_status status;        /* outcome */
  int64_t insn_index;        /* failing instruction (-1: none / not known) */
  unsigned rule;             /* hardware rule code (hw/rtl/README.md, ERR rules) */
  unsigned unit;             /* failing unit: 0 fetch, 1 load, 2 compute, 3 store */
  unsigned resp;             /* TSIM_EBUS: the AXI response (2 SLVERR, 3 DECERR) */
  uint64_t counters[TSIM_NCNT]; /* counters of the run */
  uint64_t finishes;         /* FINISH instructions retired */
  uint64_t sim_cycles;       /* clock cycles simulated for the run (including register access) */
  char msg[768];             /* one line: what happened and where */
} tsim_result;

/* ---------------------------------------------------------------- 3. Model */

typedef struct tsim tsim;

/* Static description of the compiled model, to check it against the driver's config. */
typedef struct tsim_info {
  int api_version;           /* TSIM_API_VERSION */
  const char *config;        /* config name it was built for */
  int log_batch, log_block;  /* BATCH, BLOCK of the model */
  int axi_data_bits;         /* bus width */
  int uop_depth, inp_depth, wgt_depth, acc_depth; /* SRAM depths */
  int trace;                 /* 1: built with FST tracing */
} tsim_info;

void tsim_get_info(tsim_info *out);
/* Create a model; NULL on failure with the reason in err (err_len bytes). */
tsim *tsim_create(const tsim_dram *dram, const tsim_opts *opts, char *err, size_t err_len);
void tsim_destroy(tsim *t);
/* Run count instructions at insn_addr (16-byte aligned). max_cycles 0: no limit besides the
 * watchdog; timeout_ms 0: no wall-time limit. The model is soft-reset first (SRAM contents
 * persist; bursts the DRAM model still holds from an earlier run are dropped). Returns
 * res->status. */
tsim_status tsim_run(tsim *t, uint64_t insn_addr, uint32_t count, uint64_t max_cycles,
                     uint32_t timeout_ms, tsim_result *res);

/* The functions as pointer types, for dlsym. */
typedef void (*tsim_get_info_fn)(tsim_info *);
typedef tsim *(*tsim_create_fn)(const tsim_dram *, const tsim_opts *, char *, size_t);
typedef void (*tsim_destroy_fn)(tsim *);
typedef tsim_status (*tsim_run_fn)(tsim *, uint64_t, uint32_t, uint64_t, uint32_t, tsim_result *);
typedef uint32_t (*tsim_reg_read_fn)(tsim *, uint32_t);
typedef void (*tsim_reg_write_fn)(tsim *, uint32_t, uint32_t);
/* AXI4-Lite register access (byte address). A write of CTRL with bit 1 (soft reset) also drops
 * the bursts the DRAM model holds (an interconnect reset along with the core). */
uint32_t tsim_reg_read(tsim *t, uint32_t addr);
void tsim_reg_write(tsim *t, uint32_t addr, uint32_t value);

#ifdef __cplusplus
}
#endif

#endif
