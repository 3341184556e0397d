/* ovta_runtime.h: the JIT runtime: the API a compiler's generated host code calls to build and run
 * instruction streams (the role of TVM VTA's runtime, designed in C with ovta's error convention).
 *
 * A command queue (ovta_rt) is bound to one device and used by one thread. Calls append
 * instructions to a host-side stream; ovta_rt_synchronize runs it on the device and waits.
 *
 * Sections:
 *   1. Queues        - create, destroy, options, counters, debug dumps.
 *   2. Memory        - 2D loads (with padding) and 2D stores.
 *   3. Kernels       - micro-op kernels: record once by key, cached in uop SRAM.
 *   4. Compute       - GEMM and ALU instructions over the current kernel.
 *   5. Dependencies  - tokens between the load, compute and store modules (VTA's DepPush/DepPop).
 *   6. Running       - synchronize.
 *
 * Every function that can fail returns an ovta_rc and fills the ovta_error (may be NULL); a call
 * that fails appends nothing to the stream. Misuse (a bad index, a call out of order) gives
 * OVTA_EINVAL naming the call and the offending value. Nothing here aborts on bad input.
 *
 * Sources: jit-runtime/runtime.c (sections 1, 2, 5, 6), jit-runtime/kernels.c (sections 3, 4).
 */
#ifndef OVTA_RUNTIME_H
#define OVTA_RUNTIME_H

#include "ovta_driver.h"

typedef struct ovta_rt ovta_rt;

/* ---------------------------------------------------------------- 1. Queues */

/* The three modules of the machine (isa/ISA.md, "Machine"), in VTA's order: load < compute <
 * store, so for a module "prev" is the one below it and "next" the one above. */
typedef enum ovta_rt_stage {
  OVTA_RT_LOAD = 0,    /* LOAD of INP and WGT */
  OVTA_RT_COMPUTE = 1, /* LOAD of UOP and ACC, GEMM, ALU, FINISH */
  OVTA_RT_STORE = 2,   /* STORE */
} ovta_rt_stage;

/* Debug dump switches (ovta_rt_opts.debug, ovta_rt_set_debug, env var OVTA_RT_DEBUG). */
#define OVTA_RT_DEBUG_INSNS 1u /* each run's instruction stream, one instruction a line */
#define OVTA_RT_DEBUG_UOPS 2u  /* each kernel's micro-ops when it is recorded */

/* Options for ovta_rt_create; a zeroed struct gives the defaults. */
typedef struct ovta_rt_opts {
  uint32_t max_insns;    /* instructions in one run: when the stream reaches this many, the next
                            call runs it first (auto flush; tokens are carried over) (0: 65536) */
  uint32_t timeout_ms;   /* wall-time limit of runs started by an auto flush (0: none) */
  unsigned debug;        /* OVTA_RT_DEBUG_* bits; or'ed with the env var OVTA_RT_DEBUG */
  const char *debug_path;/* dump to this file (appended) instead of stderr (NULL: stderr) */
  bool no_overlap;       /* run the stream as issued: no overlap scheduling of GEMM/ALU
                            (jit-runtime/README.md "Overlap"; also env OVTA_RT_OVERLAP=0) */
} ovta_rt_opts;

/* Counters of the runtime itself, since ovta_rt_create (ovta_rt_stats_reset clears them). */
typedef struct ovta_rt_stats {
  uint64_t insns;             /* instructions emitted, all kinds (syncs and FINISH included) */
  uint64_t insns_op[OVTA_OP_COUNT]; /* ... by opcode */
  uint64_t sync_insns;        /* of those, token-only syncs (x_size = 0) the runtime added */
  uint64_t runs;              /* device runs (ovta_rt_synchronize and auto flushes) */
  uint64_t auto_flushes;      /* runs started because the stream reached max_insns */
  uint64_t kernels_recorded;  /* distinct kernels recorded */
  uint64_t uops_recorded;     /* micro-ops in them */
  uint64_t kernel_loads;      /* LOAD UOP instructions emitted (a kernel made resident) */
  uint64_t kernel_hits;       /* GEMM/ALU pushes whose kernel was already resident */
  uint64_t evictions;         /* resident kernels evicted from uop SRAM to make room */
  uint64_t uop_bytes;         /* bytes of micro-ops loaded into uop SRAM */
  uint64_t overlap_marked;    /* GEMM/ALU emitted with the overlap bit (isa/ISA.md "Overlap") */
  uint64_t overlap_moved;     /* GEMM/ALU the overlap scheduling moved */
  uint64_t overlap_reverted;  /* streams whose scheduled order failed the token check (run as issued) */
  uint64_t uop_loads_merged;  /* LOAD UOPs merged into the one before as one more row (made syncs) */
} ovta_rt_stats;

/* Create a command queue on dev (which must outlive it). The queue owns the device's uop SRAM:
 * use one queue per device at a time. */
int ovta_rt_create(ovta_dev *dev, const ovta_rt_opts *opts, ovta_rt **out, ovta_error *err);
/* Free the queue, its kernels and buffers. Instructions not synchronized are dropped. */
void ovta_rt_destroy(ovta_rt *rt);
/* The calling thread's current queue (thread-local, NULL until set; destroying it clears it for
 * the destroying thread): for generated code that does not pass a queue around. */
void ovta_rt_thread_set(ovta_rt *rt);
ovta_rt *ovta_rt_thread_get(void);
ovta_dev *ovta_rt_dev(const ovta_rt *rt);
void ovta_rt_stats_get(const ovta_rt *rt, ovta_rt_stats *out);
void ovta_rt_stats_reset(ovta_rt *rt);
/* Counters as a JSON object (caller frees); NULL on out of memory. */
char *ovta_rt_stats_to_json(const ovta_rt_stats *s);
/* Change the debug switches; path NULL dumps to stderr. */
int ovta_rt_set_debug(ovta_rt *rt, unsigned debug, const char *path, ovta_error *err);
/* Instructions in the stream not yet run. */
uint32_t ovta_rt_pending_insns(const ovta_rt *rt);
/* The stream not yet run (decoded; valid until the next call on rt), *n its length. */
const ovta_insn *ovta_rt_stream(const ovta_rt *rt, uint32_t *n);

/* ---------------------------------------------------------------- 2. Memory */

/* Zero padding around a 2D load (each 0..15, INP and ACC loads only). */
typedef struct ovta_rt_pad {
  uint32_t x0;  /* zero elements before each row */
  uint32_t y0;  /* zero rows before the first row */
  uint32_t x1;  /* zero elements after each row */
  uint32_t y1;  /* zero rows after the last row */
} ovta_rt_pad;

/* LOAD (isa/ISA.md): y_size rows of x_size elements of `type` (WGT, INP, ACC or UOP), row r from
 * element `elem_offset + r * x_stride` of buf, into SRAM from `sram_base` on, with padding (NULL:
 * none). INP/WGT go to the load module, ACC/UOP to the compute module: dependency calls name the
 * module the load runs on (ovta_rt_load_stage). */
int ovta_rt_load_2d(ovta_rt *rt, ovta_mem_type type, uint32_t sram_base, ovta_buf *buf,
                    uint64_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
                    const ovta_rt_pad *pad, ovta_error *err);
/* STORE: y_size rows of x_size OUT elements from SRAM `sram_base` (row r at sram_base +
 * r * x_size) to element `elem_offset + r * x_stride` of buf. `type` must be OVTA_MEM_OUT. */
int ovta_rt_store_2d(ovta_rt *rt, ovta_mem_type type, uint32_t sram_base, ovta_buf *buf,
                     uint64_t elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
                     ovta_error *err);
/* The module a LOAD of `type` runs on. */
ovta_rt_stage ovta_rt_load_stage(ovta_mem_type type);

/* ---------------------------------------------------------------- 3. Kernels */

/* A kernel is a list of micro-ops inside up to two loops, recorded once under a caller-chosen key
 * and cached. Usage:
 *
 *   bool rec;
 *   ovta_rt_kernel_begin(rt, key, &rec, err);      // opens the kernel scope
 *   if (rec) {                                       // not cached yet: record it now
 *     ovta_rt_loop_begin(rt, extent, dst_f, src_f, wgt_f, err);   // outer loop (optional)
 *     ovta_rt_loop_begin(rt, extent, dst_f, src_f, wgt_f, err);   // inner loop (optional)
 *     ovta_rt_uop_push(rt, dst, src, wgt, err);      // one or more
 *     ovta_rt_loop_end(rt, err); ovta_rt_loop_end(rt, err);
 *   }
 *   ovta_rt_push_gemm(rt, reset, err);               // any number of GEMM/ALU pushes
 *   ovta_rt_kernel_end(rt, err);                     // closes the scope
 *
 * The first push (or kernel_end) freezes a recorded kernel. A pushed kernel that is not resident
 * in uop SRAM is loaded (LOAD UOP from a DMA buffer holding its micro-ops) at a place taken from
 * a FIFO ring over uop SRAM, evicting the kernels it overlaps. Uop SRAM persists across runs, so
 * a resident kernel is not reloaded after a synchronize (unless a run failed: then every kernel
 * is reloaded on next use). */
int ovta_rt_kernel_begin(ovta_rt *rt, uint64_t key, bool *must_record, ovta_error *err);
/* Open a loop level (at most two, before the first micro-op): `extent` iterations (1..16383),
 * each adding the factors to the micro-op's dst (ACC), src (INP for GEMM, ACC for ALU) and wgt
 * indices. The first level opened is the outer loop. */
int ovta_rt_loop_begin(ovta_rt *rt, uint32_t extent, uint32_t dst_factor, uint32_t src_factor,
                       uint32_t wgt_factor, ovta_error *err);
int ovta_rt_loop_end(ovta_rt *rt, ovta_error *err);
/* Append a micro-op (dst: ACC index, src: INP or ACC index, wgt: WGT index). */
int ovta_rt_uop_push(ovta_rt *rt, uint32_t dst, uint32_t src, uint32_t wgt, ovta_error *err);
int ovta_rt_kernel_end(ovta_rt *rt, ovta_error *err);
/* Is a kernel with this key recorded / resident in uop SRAM? */
bool ovta_rt_kernel_cached(const ovta_rt *rt, uint64_t key);
bool ovta_rt_kernel_resident(const ovta_rt *rt, uint64_t key);

/* ---------------------------------------------------------------- 4. Compute */

/* GEMM over the current kernel (between kernel_begin and kernel_end). With reset, the
 * accumulators the kernel addresses are zeroed (src and wgt ignored). The kernel's indices with
 * all loop iterations must stay inside ACC, INP and WGT SRAM. */
int ovta_rt_push_gemm(ovta_rt *rt, bool reset, ovta_error *err);
/* ALU over the current kernel: acc[dst] = op(acc[dst], use_imm ? imm : acc[src]), or zero with
 * reset. imm is a signed 16-bit value. */
int ovta_rt_push_alu(ovta_rt *rt, ovta_alu_op op, bool use_imm, int32_t imm, bool reset,
                     ovta_error *err);

/* ---------------------------------------------------------------- 5. Dependencies */

/* VTA's meaning: ovta_rt_dep_push(from, to) gives a token from `from` to `to` once everything
 * issued so far on `from` has completed; ovta_rt_dep_pop(from, to) makes the next instruction
 * issued on `to` wait for (and take) such a token. from and to must be neighbours (load-compute
 * or compute-store). The push goes onto the last instruction of `from` (its push_prev/push_next
 * bit) or, when that cannot carry it, onto a sync instruction; the pop goes onto the next
 * instruction of `to`. A pop needs a token pushed before it (since the last synchronize). */
int ovta_rt_dep_push(ovta_rt *rt, ovta_rt_stage from, ovta_rt_stage to, ovta_error *err);
int ovta_rt_dep_pop(ovta_rt *rt, ovta_rt_stage from, ovta_rt_stage to, ovta_error *err);

/* ---------------------------------------------------------------- 6. Running */

/* Run everything issued: consume the tokens still outstanding, append FINISH (after syncs that
 * make it wait for the load and store modules), copy the stream into the instruction DMA
 * buffer, run it with `timeout_ms` (0: none), and reset the stream and the token counts.
 * An empty stream runs nothing. On a failed run the stream is dropped too and the error names
 * the run and the instruction (the uop cache is then invalidated). */
int ovta_rt_synchronize(ovta_rt *rt, uint32_t timeout_ms, ovta_error *err);

#endif
