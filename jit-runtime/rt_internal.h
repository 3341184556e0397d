/* rt_internal.h: the command queue's internals, shared by runtime.c and kernels.c.
 *
 * Sections:
 *   1. Kernels  - a recorded micro-op kernel and the uop SRAM ring.
 *   2. Queue    - struct ovta_rt: the stream, token accounting, kernels, counters.
 *   3. Helpers  - emission and dumps (runtime.c), used by kernels.c.
 */
#ifndef OVTA_RT_INTERNAL_H
#define OVTA_RT_INTERNAL_H

#include "ovta_runtime.h"

/* ---------------------------------------------------------------- 1. Kernels */

/* One loop level of a kernel. */
typedef struct rt_loop {
  uint32_t extent;  /* iterations */
  uint32_t dst;     /* added to dst_idx per iteration */
  uint32_t src;     /* added to src_idx per iteration */
  uint32_t wgt;     /* added to wgt_idx per iteration */
} rt_loop;

typedef struct rt_kernel {
  uint64_t key;       /* the caller's key */
  ovta_uop *uops;     /* micro-ops in order */
  size_t n_uops;      /* count */
  size_t cap_uops;    /* capacity of uops */
  rt_loop loop[2];    /* loop[0] outer, loop[1] inner; unused levels have extent 1, factors 0 */
  int n_loops;        /* levels opened while recording */
  int open_loops;     /* levels still open while recording */
  bool frozen;        /* recording finished: uops encoded into buf */
  ovta_buf *buf;      /* DMA buffer with the encoded micro-ops (after freezing) */
  bool resident;      /* loaded into uop SRAM (for the instructions issued so far) */
  uint32_t base;      /* first uop SRAM index when resident */
  uint32_t max_dst;   /* largest dst_idx, src_idx, wgt_idx of the micro-ops */
  uint32_t max_src;
  uint32_t max_wgt;
} rt_kernel;

/* ACC/OUT footprint of a GEMM/ALU in the stream, as index intervals (overlap scheduling). */
typedef struct rt_fp {
  bool known;         /* a GEMM/ALU issued over a kernel (anything else: a barrier) */
  bool empty;         /* its loop nest runs no micro-op */
  uint32_t dst_lo;    /* ACC/OUT indices it writes (and reads): [dst_lo, dst_hi] */
  uint32_t dst_hi;
  bool reads_src;     /* an ALU tensor operand: also reads ACC [src_lo, src_hi] */
  uint32_t src_lo;
  uint32_t src_hi;
} rt_fp;

/* ---------------------------------------------------------------- 2. Queue */

/* Dependency queues (isa/ISA.md): load->compute, compute->load, compute->store, store->compute. */
enum { RT_Q_L2C = 0, RT_Q_C2L = 1, RT_Q_C2S = 2, RT_Q_S2C = 3, RT_Q_COUNT = 4 };

struct ovta_rt {
  ovta_dev *dev;               /* the device */
  const ovta_config *cfg;      /* its config */
  const ovta_isa *isa;         /* its field layout */
  ovta_rt_opts opts;           /* options (max_insns filled in) */
  /* -- the stream not yet run -- */
  ovta_insn *insns;            /* decoded instructions in stream order */
  uint8_t *stage;              /* module of each instruction (ovta_rt_stage) */
  rt_fp *fp;                   /* footprint of each instruction (GEMM/ALU over a kernel) */
  uint32_t n_insns;            /* count */
  uint32_t cap_insns;          /* capacity of insns and stage */
  long last[3];                /* index of the last instruction per module, -1 when none */
  bool pend_pop_prev[3];       /* the next instruction of the module pops its prev queue */
  bool pend_pop_next[3];       /* ... its next queue */
  uint64_t pushed[RT_Q_COUNT]; /* tokens pushed per queue since the last synchronize */
  uint64_t popped[RT_Q_COUNT]; /* tokens popped (or pending pops) per queue */
  ovta_buf *insn_buf;          /* DMA buffer the stream is copied into (grown as needed) */
  bool flushing;               /* inside a run: no auto flush */
  bool overlap;                /* schedule GEMM/ALU for overlap before a run (!opts.no_overlap) */
  /* -- kernels -- */
  rt_kernel **kernels;         /* every kernel recorded, in recording order */
  size_t n_kernels, cap_kernels;
  uint32_t *ktab;              /* hash table key -> index+1 into kernels (0: empty slot) */
  size_t ktab_cap;             /* slots (power of two) */
  rt_kernel *cur;              /* the kernel scope open (kernel_begin .. kernel_end), or NULL */
  bool recording;              /* cur is being recorded in this scope */
  int32_t *uop_owner;          /* per uop SRAM index: index of the resident kernel, -1 free */
  uint32_t ring_head;          /* next uop SRAM index the FIFO ring allocates from */
  /* -- counters and debug -- */
  ovta_rt_stats stats;         /* counters */
  unsigned debug;              /* OVTA_RT_DEBUG_* bits in effect */
  FILE *dbg;                   /* dump target (stderr or an opened file) */
  bool dbg_owned;              /* dbg was opened here */
};

/* ---------------------------------------------------------------- 3. Helpers */

/* Emit instruction `in` on its module: attach that module's pending pops, check (encode and
 * static rules), append. Fails with OVTA_EINVAL naming `what` when the instruction is invalid. */
int rt_emit(ovta_rt *rt, ovta_insn *in, const char *what, ovta_error *err);
/* The module an instruction runs on. */
ovta_rt_stage rt_stage_of(const ovta_insn *in);
/* Run the stream now when it has reached max_insns (called at the start of every call that
 * emits). */
int rt_maybe_flush(ovta_rt *rt, ovta_error *err);
/* Forget every resident kernel (after a failed run: uop SRAM contents unknown). */
void rt_uop_invalidate(ovta_rt *rt);
/* Forget the resident kernels overlapping uop SRAM [bgn, end) (a LOAD UOP the caller issued
 * overwrites them); each counts as an eviction. */
void rt_uop_clobber(ovta_rt *rt, uint32_t bgn, uint64_t end);
/* Free every kernel. */
void rt_kernels_free(ovta_rt *rt);
/* Print one instruction in the text form (no newline). */
void rt_format_insn(const ovta_insn *in, char *buf, size_t cap);

#endif
