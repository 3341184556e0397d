/* ovta_plan.h: the plan runtime (plan/): a compiled plan folder (plan.json, params.bin, the CPU
 * kernels as kernels.so) loaded, bound to its code, attached to a device and run, with per-step
 * counters; and the runtime shims the accelerator host code calls (ovta_vrt_*, vrt.c). No
 * compiler, no LLVM, no protobuf: the layer below compiler/ (compiler/exec/ builds plans into
 * this structure and saves them; `ovta-rt` and `ovta run` both load them through here).
 * May include: ovta_base.h, hw/sim, driver, jit-runtime.
 *
 * Sections:
 *   1. Plans       - the tensor table, the steps, the memory (plan.c)
 *   2. Load, save  - plan.json + params.bin; code from kernels.so (dlopen) or a caller's resolver;
 *                    the manifest of digests of the folder's files (digest.c)
 *   3. Run         - inputs, device, run, outputs, counters
 *   4. Shims       - ovta_vrt_*: the runtime calls of the accelerator host code (vrt.c)
 *   5. Commands    - what `ovta run` and `ovta-rt run` share: inputs, outputs, --stats (io.c)
 */
#ifndef OVTA_PLAN_H
#define OVTA_PLAN_H

#include "ovta_base.h"
#include "ovta_driver.h"
#include "ovta_runtime.h"

/* ---------------------------------------------------------------- 1. Plans */

#define OVTA_PLAN_FORMAT "ovta-exec-1"
#define OVTA_PLAN_ALIGN 64                         /* arena and params offsets */
#define OVTA_PLAN_MAX_ARENA OVTA_SIZE_CAP(34)      /* 16 GiB (32-bit: SIZE_MAX): the largest arena or tensor */

/* A step's entry point: one pointer per argument (CPU kernels), none used (host code). */
typedef void (*ovta_kernel_fn)(void **args);

/* Buffer handles of the accelerator host code (the order of a vta step's "bufs"). */
enum { OVTA_VBUF_X = 0, OVTA_VBUF_W = 1, OVTA_VBUF_BIAS = 2, OVTA_VBUF_Y = 3,
       OVTA_VBUF_R = 4,  /* a conv with a fused residual add: the add's other operand */
       OVTA_VBUF_ID = 5, /* and its identity block */
       OVTA_VBUF_COUNT };
/* Handles a plan file's "bufs" may list: the first four (plans before the fused add) or all. */
#define OVTA_VBUF_OLD 4

/* Where a tensor lives. */
typedef enum ovta_plan_where {
  OVTA_PLAN_ARENA = 0,  /* the arena (inputs, values), at offset */
  OVTA_PLAN_PARAMS = 1, /* the params blob (constants), at offset */
  OVTA_PLAN_DMA = 2,    /* its own DMA buffer (a value the accelerator reads or writes) */
} ovta_plan_where;

typedef struct ovta_plan_tensor {
  char *name;                    /* graph tensor name */
  ovta_dtype dtype;              /* element type */
  int rank;                      /* dims */
  int64_t shape[OVTA_MAX_RANK];  /* static shape */
  size_t nbytes;                 /* bytes (an arena tensor may hold more than its elements: compiler/cpu/cpu.h, half-major maps) */
  ovta_plan_where where;         /* arena, params or DMA buffer */
  size_t offset;                 /* byte offset in the arena or params blob */
  bool dma;                      /* the accelerator reads/writes it: lives in a DMA buffer */
  ovta_buf *buf;                 /* that buffer (after ovta_plan_attach) */
} ovta_plan_tensor;

/* Per-step counters, for callers (ovta run --stats, ovta eval, a profiler). Accelerator steps:
 * compile-time counts from the host code, and device counters of the last run (cycles when the
 * backend counts them, i.e. not on fsim). */
typedef struct ovta_plan_stats {
  const char *node;       /* graph node name */
  const char *fn;         /* kernel symbol */
  bool accel;             /* ran on the accelerator */
  const char *detail;     /* accelerator: tiling (vta_plan_str); cpu: "" */
  uint64_t insns;         /* runtime instructions of one run (all kinds, syncs and FINISH included) */
  uint64_t uops_recorded; /* micro-ops in the kernels recorded by the host code */
  uint64_t kernels;       /* distinct micro-op kernels */
  uint64_t runs;          /* times the step ran */
  uint64_t dev_runs;      /* device runs of the last execution (1 normally) */
  uint64_t dev_insns;     /* instructions the device retired (last execution, last device run) */
  uint64_t gemm_uops, alu_uops; /* device micro-op executions (last execution, last device run) */
  bool has_cycles;        /* the backend counts cycles */
  uint64_t cycles;        /* device cycles of the last execution */
  /* -- for profilers (ovta profile) -- */
  const char *op;         /* the graph node's op ("" in plans saved before it was recorded) */
  int64_t macs;           /* multiply-accumulates of the node from its logical shapes (Conv, Gemm,
                             MatMul, ovta.[Q]Conv, ovta.[Q]Dense; 0 for other ops) */
  uint64_t bytes_read[4]; /* accelerator: DRAM bytes read by type UOP, WGT, INP, ACC (ovta_mem_type
                             order; last execution, last device run) */
  uint64_t bytes_written; /* accelerator: DRAM bytes written by STORE (same) */
  uint64_t ns;            /* wall time of the last execution in ns (CPU: the kernel; accelerator:
                             host code + device run + synchronize) */
} ovta_plan_stats;

typedef struct ovta_plan_step {
  char *node;         /* node name (for errors) */
  char *fn;           /* kernel symbol */
  int nargs;          /* arguments */
  int *args;          /* tensor index per argument */
  ovta_kernel_fn call;/* resolved entry point */
  bool vta;           /* an accelerator step: fn is host code calling the runtime */
  int vb[OVTA_VBUF_COUNT]; /* vta: tensor of x, w, bias (ACC-expanded, -1: none), y */
  char *detail;       /* vta: tiling */
  uint64_t insns, uops_recorded, kernels; /* vta: counts of the host code */
  uint64_t runs;      /* executions */
  char *op;           /* node op (profilers) */
  int64_t macs;       /* node MACs from its logical shapes (profilers) */
  ovta_plan_stats last; /* device counters of the last execution */
} ovta_plan_step;

/* The files of a plan folder besides plan.json, in the order of ovta_plan_file_names. */
#define OVTA_PLAN_MAX_FILES 3
extern const char *const ovta_plan_file_names[OVTA_PLAN_MAX_FILES]; /* params.bin, kernels.o, kernels.so */

/* One file's entry in the manifest (plan.json "files"). */
typedef struct ovta_plan_file {
  bool listed;       /* the manifest lists it */
  uint64_t bytes;    /* its size */
  uint64_t fnv1a64;  /* FNV-1a 64 of its bytes */
} ovta_plan_file;

/* A plan: filled by the compiler (compiler/exec/) or read from a folder (ovta_plan_read). */
typedef struct ovta_plan {
  int nt;               /* tensors */
  ovta_plan_tensor *t;  /* tensors */
  int ns;               /* steps */
  ovta_plan_step *s;    /* steps, in node order */
  int nin, nout;        /* graph inputs / outputs */
  int *in, *out;        /* tensor index of each */
  size_t arena_size;    /* planned arena bytes */
  size_t unshared;      /* bytes if no storage were reused */
  unsigned char *arena; /* the arena (ovta_plan_bind) */
  size_t params_size;   /* params bytes */
  unsigned char *params;/* constants */
  char *triple, *cpu, *features; /* the machine of the code (LLVM triple, CPU, features; NULL: unrecorded) */
  void **argv;          /* scratch argument vector */
  int max_args;         /* its capacity */
  bool accel;           /* has accelerator steps */
  ovta_config cfg;      /* their config */
  char *report;         /* compile report */
  ovta_dev *dev;        /* attached device */
  ovta_rt *rt;          /* its queue */
  void *so;             /* kernels.so's dlopen handle (ovta_plan_load), or NULL */
  ovta_plan_file files[OVTA_PLAN_MAX_FILES]; /* the manifest of a plan read from a folder */
} ovta_plan;

/* Free what p holds (device, buffers, blobs, code handle); p itself is the caller's. */
void ovta_plan_release(ovta_plan *p);

/* ---------------------------------------------------------------- 2. Load, save */

/* Read DIR/plan.json and DIR/params.bin into *p (zeroed first): every offset and size checked
 * against the blobs; no code loaded yet. Errors name the file. */
int ovta_plan_read(const char *dir, ovta_plan *p, ovta_error *err);
/* Resolves a step's symbol to its entry point (a JIT's lookup, dlsym). */
typedef int (*ovta_plan_resolve_fn)(void *ctx, const char *sym, void **fp, ovta_error *err);
/* Allocate the arena and resolve every step's entry point through resolve(ctx, ...). */
int ovta_plan_bind(ovta_plan *p, ovta_plan_resolve_fn resolve, void *ctx, ovta_error *err);
/* A whole plan folder for this machine: ovta_plan_read, DIR/kernels.so opened (dlopen; its host
 * code finds the ovta_vrt_* shims in the executable), ovta_plan_bind. Free with ovta_plan_free. */
int ovta_plan_load(const char *dir, ovta_plan **out, ovta_error *err);
void ovta_plan_free(ovta_plan *p);
/* Write DIR/plan.json and DIR/params.bin (DIR created if missing); the code is the caller's. */
int ovta_plan_save(const ovta_plan *p, const char *dir, ovta_error *err);
/* Record in DIR/plan.json the size and FNV-1a 64 digest of every file of the folder present
 * (ovta_plan_file_names), then plan.json's own digest (digest.c has the format). Run last, once
 * every file is written (ovta compile). */
int ovta_plan_seal(const char *dir, ovta_error *err);
/* FNV-1a 64 of n bytes. */
uint64_t ovta_fnv1a64(const void *data, size_t n);
/* plan.json's text (len bytes, where: its path) against its own digest: 0 when it matches, 1
 * when it has none (an old plan, or cut before the digest: the caller tells which), else an
 * error naming the file. */
int ovta_plan_check_manifest(char *txt, size_t len, const char *where, ovta_error *err);
struct cJSON;
/* The manifest's "files" into p->files; a plan without digests is refused ("recompile"). */
int ovta_plan_load_files(ovta_plan *p, const struct cJSON *root, const char *where, ovta_error *err);
/* DIR/NAME's bytes (data, n: already read) against the manifest: an error naming the file when
 * it is not listed, its size differs or its digest does. */
int ovta_plan_check_file(const ovta_plan *p, const char *dir, const char *name, const void *data, size_t n,
                         ovta_error *err);
/* The same for DIR/NAME read from disk (a file another library opens, e.g. kernels.so). */
int ovta_plan_check_path(const ovta_plan *p, const char *dir, const char *name, ovta_error *err);
/* Write n bytes to a file. */
int ovta_plan_write_file(const char *path, const void *d, size_t n, ovta_error *err);

/* ---------------------------------------------------------------- 3. Run */

/* Accelerator plans: open device `backend` (fsim, tsim, a board) with the plan's config, create
 * the runtime queue, give every accelerator tensor its DMA buffer and upload the weights and
 * biases once. Needed before ovta_plan_run when ovta_plan_accel_nodes(p) > 0. */
int ovta_plan_attach(ovta_plan *p, const char *backend, const ovta_dev_opts *o, ovta_error *err);
/* Steps that run on the accelerator (0 for a CPU plan). */
int ovta_plan_accel_nodes(const ovta_plan *p);
/* Copy nbytes of data into input `name` (dtype and shape must match). */
int ovta_plan_set_input(ovta_plan *p, const char *name, ovta_dtype dt, int rank, const int64_t *shape,
                        const void *data, size_t nbytes, ovta_error *err);
/* Run every step in order; accelerator steps each synchronized. */
int ovta_plan_run(ovta_plan *p, ovta_error *err);
/* A copy of output i (*out cleared first; free with ovta_array_clear). */
int ovta_plan_get_output(const ovta_plan *p, int i, ovta_array *out, ovta_error *err);
/* The counters of step i. */
int ovta_plan_stats_get(const ovta_plan *p, int i, ovta_plan_stats *out, ovta_error *err);

/* ---------------------------------------------------------------- 4. Shims (vrt.c) */

/* What the host code of an accelerator operator issued (dry runs count without a device). */
typedef struct ovta_vrt_counts {
  uint64_t insns_load, insns_store, insns_gemm, insns_alu, insns_acc_load; /* issued by the host IR */
  uint64_t insns;        /* their sum */
  uint64_t kernels;      /* distinct micro-op kernels */
  uint64_t uops_recorded;/* micro-ops in them */
  uint64_t gemm_uops;    /* GEMM micro-op executions (reset included) */
  uint64_t alu_uops;     /* ALU micro-op executions */
  uint64_t bytes_inp, bytes_wgt, bytes_acc, bytes_out; /* DRAM bytes moved (padding excluded) */
  uint64_t tokens;       /* dependency pushes */
} ovta_vrt_counts;

/* The context the shims run on (the calling thread's, ovta_vrt_ctx_set). */
typedef struct ovta_vrt_ctx {
  ovta_rt *rt;                      /* NULL: dry run, only count */
  ovta_buf *bufs[OVTA_VBUF_COUNT];  /* the buffers behind the handles */
  const ovta_config *cfg;           /* the accelerator config */
  ovta_vrt_counts *counts;          /* may be NULL */
  int rc;                           /* first error */
  ovta_error err;                   /* its message */
  uint64_t *seen;                   /* dry run: kernel keys seen (open addressing) */
  size_t seen_cap, seen_n;          /* its capacity and count */
  uint64_t cur_uops, cur_iters;     /* dry run: current kernel's size */
  int cur_levels;                   /* dry run: current kernel's loop levels */
} ovta_vrt_ctx;
void ovta_vrt_ctx_set(ovta_vrt_ctx *c);
ovta_vrt_ctx *ovta_vrt_ctx_get(void);
/* Call a host function with context c; c->rc / c->err tell the first failing runtime call (then
 * returned, prefixed with name). */
int ovta_vrt_call(ovta_kernel_fn fn, const char *name, ovta_vrt_ctx *c, ovta_error *err);
int32_t ovta_vrt_load(int64_t type, int64_t sram, int64_t buf, int64_t off, int64_t xs, int64_t ys,
                      int64_t stride, int64_t px0, int64_t py0, int64_t px1, int64_t py1);
int32_t ovta_vrt_store(int64_t sram, int64_t buf, int64_t off, int64_t xs, int64_t ys, int64_t stride);
int32_t ovta_vrt_dep_push(int64_t from, int64_t to);
int32_t ovta_vrt_dep_pop(int64_t from, int64_t to);
int32_t ovta_vrt_kernel_begin(int64_t key); /* 1: record the kernel now */
int32_t ovta_vrt_loop_begin(int64_t ext, int64_t dst, int64_t src, int64_t wgt);
int32_t ovta_vrt_loop_end(void);
int32_t ovta_vrt_uop(int64_t dst, int64_t src, int64_t wgt);
int32_t ovta_vrt_gemm(int64_t reset);
int32_t ovta_vrt_alu(int64_t op, int64_t use_imm, int64_t imm);
int32_t ovta_vrt_kernel_end(void);

/* ---------------------------------------------------------------- 5. Commands (io.c) */

/* Every graph input gets its value: vals[k] is input names[k], read from files[k] (named in
 * errors); every name must be a graph input. */
int ovta_plan_set_inputs(ovta_plan *p, int n, const char *const *names, const char *const *files,
                         const ovta_array *vals, ovta_error *err);
/* Every output as DIR/NAME.npy (DIR created; characters other than letters, digits, '.', '-' and
 * '_' in NAME become '_'), one line "NAME: DTYPE SHAPE -> PATH" each on log (may be NULL). */
int ovta_plan_write_outputs(const ovta_plan *p, const char *dir, FILE *log, ovta_error *err);
/* One array as DIR/NAME.npy (NAME made safe as above; DIR must exist), its line on log. */
int ovta_plan_write_array(const char *dir, const char *name, const ovta_array *a, FILE *log, ovta_error *err);
/* --stats: one line per step (cpu: runs; accel: instructions, micro-ops, cycles when counted). */
int ovta_plan_print_stats(const ovta_plan *p, FILE *f, ovta_error *err);

#endif
