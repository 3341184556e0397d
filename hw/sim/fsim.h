/* fsim.h: the functional simulator fsim (isa/ISA.md, exactly; no cycles). It depends on isa/
 * only; driver/backend_fsim.c wraps it as the driver backend "fsim" (ovta_dev_open("fsim", ...)).
 *
 * Sections:
 *   1. DRAM      - how the simulator reaches DRAM.
 *   2. Simulator - create, run, free.
 *   3. Debug     - read access to the on-chip SRAMs.
 *
 * Model: fetch dispatches in order into three command queues of CMD_QUEUE_DEPTH; the load,
 * compute and store modules each execute their queue in order, taking and giving tokens in the
 * four dependency queues (L2C, C2L, C2S, S2C) of DEP_QUEUE_DEPTH. A step of a module executes
 * one whole instruction. With seed 0 the units run in a fixed order (fetch, load, compute,
 * store, each as far as it can, repeated); with a seed each step picks a random runnable unit,
 * so a program that lacks a token can give different results across seeds.
 * See hw/sim/README.md.
 */
#ifndef OVTA_FSIM_H
#define OVTA_FSIM_H

#include "ovta_isa.h"

/* ---------------------------------------------------------------- 1. DRAM */

/* The DRAM the simulator reads and writes (instruction stream, LOAD, STORE), addressed by
 * physical byte address. */
typedef struct fsim_dram {
  void *ctx; /* passed back to host */
  /* the host address of [phys, phys+len) when the range lies inside one allocated buffer (the
   * ISA's DRAM bounds rule), else NULL */
  void *(*host)(void *ctx, uint64_t phys, uint64_t len);
} fsim_dram;

/* ---------------------------------------------------------------- 2. Simulator */

typedef struct fsim fsim;

/* Work units: one per instruction a module executes, one per GEMM/ALU micro-op (reset ones too;
 * also those the overlap check walks). The wall clock is read after every this many. */
#define OVTA_FSIM_CLOCK_EVERY 8192u

/* Create a simulator of isa->cfg with zeroed SRAMs. isa and dram.ctx must outlive it. verbose:
 * 0 quiet, 1 one line per run on stderr, 2 also one line per executed instruction. Fails with
 * OVTA_ENOMEM. */
int fsim_new(const ovta_isa *isa, fsim_dram dram, unsigned verbose, fsim **out, ovta_error *err);
/* Free a simulator; NULL is a no-op. */
void fsim_free(fsim *s);
/* Run `count` (> 0) instructions at physical address insn_phys, until done (OVTA_OK), an error
 * (OVTA_EINSN, OVTA_EDEADLOCK), timeout_ms of wall time or more work than the budget
 * (fsim_set_budget) (OVTA_ETIMEOUT; 0: no limit). seed 0:
 * fixed order, else seeded interleaving. *counters is zeroed, then counts the run (cycle fields
 * stay 0). SRAMs keep their contents from one run to the next; it can run again after any error. */
int fsim_exec(fsim *s, uint64_t insn_phys, uint32_t count, uint32_t timeout_ms, uint64_t seed,
              ovta_counters *counters, ovta_error *err);
/* The work budget of every later run, in work units (above; 0, the default: no limit). A run
 * that would do more than `work` units stops there with OVTA_ETIMEOUT ("timeout after a work
 * budget of N units ..."), mid-instruction when a GEMM/ALU is what exceeds it; unlike
 * timeout_ms this is deterministic: the same program stops at the same point whatever the
 * machine's load, in either scheduling mode. */
void fsim_set_budget(fsim *s, uint64_t work);
/* Zero the SRAMs, as at fsim_new (only those written since: cheap after small programs). */
void fsim_clear(fsim *s);

/* ---------------------------------------------------------------- 3. Debug */

/* The SRAM of a memory type (UOP: the raw 32-bit micro-ops; WGT, INP, OUT: int8; ACC: int32,
 * host order): *data points at depth * element bytes, valid until fsim_free. Fails (only) with
 * OVTA_EINVAL when the type is unknown. */
int fsim_sram(const fsim *s, uint32_t mem_type, const void **data, size_t *bytes, ovta_error *err);

#endif
