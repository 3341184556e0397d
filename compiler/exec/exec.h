/* exec.h: the executor layer (compiler/exec/): a whole graph compiled (graph passes, partition,
 * CPU kernels through compiler/cpu/, accelerator kernels through compiler/accel/, one LLVM
 * module), planned in memory, run, saved and loaded, with per-step counters for profilers;
 * calibration and quantization of a float model (calib.c); profile rows and Chrome traces of a
 * run (profile.c). May include every other compiler layer, the JIT runtime and the driver.
 */
#ifndef OVTA_EXEC_H
#define OVTA_EXEC_H

#include "lir.h"
#include "ovta_plan.h"
#include "passes.h"

struct ovta_dev_opts;

/* A graph compiled for the CPU. Every node becomes one function in one LLVM module, compiled to
 * object code once and loaded into the JIT; tensors live in one arena planned by liveness
 * (storage reused once a value is dead), constants in a params blob, inputs and outputs by
 * name. Saved as a folder: plan.json (tensors, offsets, steps), params.bin, kernels.o and
 * kernels.so (kernels.o linked by ld.lld: what `ovta-rt` opens). Run, save and load go through
 * the plan runtime (plan/ovta_plan.h), which `ovta-rt` shares. */
typedef struct ovta_exec ovta_exec;

typedef struct ovta_exec_opts {
  lir_codegen_opts cg;   /* backend options (dump IR, opt level) */
  FILE *dump_lir;        /* print every node's loop IR here, or NULL */
  /* -- accelerator (README-vta.md, "Graph executor") -- */
  bool accel;            /* run ovta.QConv / ovta.QDense on the accelerator: the graph (quantized;
                            packed and partitioned, or not yet: then pack and partition run on a
                            copy) gets one vta kernel per accelerator node, the host code in the
                            same object file as the CPU kernels; the rest runs on the CPU path */
  const ovta_config *cfg;/* the accelerator config (NULL: "default"); copied */
  const char *tuning_json; /* tiling knobs (vta_knobs_from_json), or NULL */
  int vthreads;          /* 1 or 2 (0: 2) */
  FILE *report;          /* print the compile report here (one line per node), or NULL */
  const char *backend;   /* open this device at the end of the build (ovta_exec_attach); NULL/"cpu": none */
  const struct ovta_dev_opts *dev_opts; /* device options for backend (NULL: defaults) */
  ovta_timing *timing;   /* time each step of the build ("build: STEP", nested phases) here, or NULL */
} ovta_exec_opts;
void ovta_exec_opts_init(ovta_exec_opts *o);

/* Compile a graph (it is inferred first with ovta_infer_graph, always: the types a model file
 * declares are recomputed, not trusted; g is not modified otherwise, and may be freed
 * afterwards). o may be NULL. */
int ovta_exec_build(ovta_graph *g, const ovta_exec_opts *o, ovta_exec **out, ovta_error *err);
void ovta_exec_free(ovta_exec *e);
/* Save to / load from a folder (created if missing). Loading JIT-links kernels.o. */
int ovta_exec_save(const ovta_exec *e, const char *dir, ovta_error *err);
int ovta_exec_load(const char *dir, ovta_exec **out, ovta_error *err);
/* Inputs and outputs. */
int ovta_exec_num_inputs(const ovta_exec *e);
int ovta_exec_num_outputs(const ovta_exec *e);
const char *ovta_exec_input_name(const ovta_exec *e, int i);
const char *ovta_exec_output_name(const ovta_exec *e, int i);
/* Copy a value into an input (dtype and shape must match). */
int ovta_exec_set_input(ovta_exec *e, const char *name, const ovta_tensor *t, ovta_error *err);
int ovta_exec_run(ovta_exec *e, ovta_error *err);
/* A standalone copy of output i (free with ovta_tensor_free). */
int ovta_exec_get_output(const ovta_exec *e, int i, ovta_tensor **out, ovta_error *err);
/* Bytes of the planned arena, and the bytes without reuse (sum of all values). */
void ovta_exec_memory(const ovta_exec *e, size_t *arena, size_t *unshared);

/* Accelerator plans: open device `backend` (fsim, tsim, a board) with the plan's config, create
 * the runtime queue, give every accelerator tensor its DMA buffer and upload the weights and
 * biases once. Needed before ovta_exec_run when ovta_exec_accel_nodes(e) > 0. Accelerator
 * nodes run in order, each synchronized (one device run per node, unless the stream exceeds
 * the runtime's 1M-instruction limit). */
int ovta_exec_attach(ovta_exec *e, const char *backend, const struct ovta_dev_opts *o, ovta_error *err);
/* Nodes that run on the accelerator (0 for a CPU plan). */
int ovta_exec_accel_nodes(const ovta_exec *e);
/* The accelerator config of the plan (NULL for a CPU plan). Valid while e lives. */
const ovta_config *ovta_exec_config(const ovta_exec *e);
/* The compile report (one line per node: where it runs and why, tiling, counts); "" for a
 * plan built without accel. Valid while e lives. */
const char *ovta_exec_report(const ovta_exec *e);
/* The LLVM target triple of the plan's object code ("" for a plan saved before it was recorded). */
const char *ovta_exec_target(const ovta_exec *e);
/* Whether the plan's code is for another machine (compiled with a foreign triple: saved, not run). */
bool ovta_exec_foreign(const ovta_exec *e);
/* The plan of the plan runtime behind e (tensors, steps, memory; plan/ovta_plan.h). */
ovta_plan *ovta_exec_plan(ovta_exec *e);

/* Per-step counters, for callers (ovta eval, a profiler): the plan runtime's (plan/ovta_plan.h). */
typedef ovta_plan_stats ovta_exec_node_stats;
int ovta_exec_num_steps(const ovta_exec *e);
int ovta_exec_node_stats_get(const ovta_exec *e, int step, ovta_exec_node_stats *out, ovta_error *err);

/* ---------------------------------------------------------------- Calibration (calib.c) */

/* Writes calibration sample s into dst: numel of the graph's input floats. */
typedef void (*ovta_calib_fill_fn)(void *ctx, int64_t s, float *dst);

/* The calibration samples and the pipeline of ovta_calibrate_quantize. Zero-initialize, then set
 * samples (or fill) and what differs from the defaults. */
typedef struct ovta_calib_opts {
  const ovta_tensor *samples; /* samples [S, ...] (e.g. images [S,H,W]): sample s is elements
                                 [s*K, (s+1)*K) with K = numel of the graph's input; uint8 is
                                 scaled by 1/255, other element types taken as they are */
  ovta_calib_fill_fn fill;    /* instead of samples (then NULL): writes sample s */
  void *fill_ctx;             /* passed to fill */
  int64_t count;              /* samples to use: samples: the first min(count, S) (0: up to
                                 OVTA_CALIB_DEFAULT_COUNT); fill: count >= 1 */
  const char *passes;         /* the pipeline (NULL: ovta_accel_pipeline); it must quantize */
  const ovta_config *cfg;     /* hardware config of the passes (NULL: theirs, 1x16x16) */
  const char *print_after;    /* print the graph after these passes (comma-separated, "all"), or NULL */
  ovta_eval_node_fn eval;     /* evaluation hook for folding and calibration (NULL:
                                 ovta_exec_eval_cached: the reference evaluator, else the CPU path) */
  void *eval_ctx;             /* passed to eval */
  ovta_timing *timing;        /* time each pass and the calibration here (ovta_compile_opts), or NULL */
} ovta_calib_opts;
#define OVTA_CALIB_DEFAULT_COUNT 64

/* Calibrate and quantize the float graph g in place: every sample made a float32 value of g's
 * single input (whose shape must be static: fit symbolic dims first, e.g. batch 1), then the
 * pipeline o->passes run with them (ranges observed by the quantize pass). *used (may be NULL)
 * gets the samples used. Errors name the sample count or the pass. */
int ovta_calibrate_quantize(ovta_graph *g, const ovta_calib_opts *o, int64_t *used, ovta_error *err);
/* Whether g is quantized already (has an ovta.QConv or ovta.QDense): no calibration needed. */
bool ovta_graph_quantized(const ovta_graph *g);
/* The accelerator passes a build with cfg runs on a quantized graph (pack, partition: those the
 * graph has not had) and the index: afterwards the nodes with target OVTA_TARGET_ACCEL are the
 * ones the build plans (`ovta tune` tunes these, by the names the build looks up). */
int ovta_graph_prepare_accel(ovta_graph *g, const ovta_config *cfg, ovta_error *err);
/* The graph's side of the accelerator build's residual-add fusion (exec.c, fuse_adds): the nodes
 * s[i] the two-input node s2 may be fused into, in the order the build tries them, and which input
 * k[i] of s2 each produces - read by s2 alone (not a graph output), the other input produced
 * before it. Returns how many (0..2); the build then needs both planned for the accelerator, s a
 * conv/dense whose plan takes the add (`ovta tune` tunes s with the add that way). */
int ovta_add_fusion_candidates(const ovta_graph *g, int s2, int s[2], int k[2]);
/* Whether the accelerator build fuses residual adds: on unless OVTA_FUSE_ADD=0 (the unfused programs). */
bool ovta_fuse_adds_on(void);

/* ---------------------------------------------------------------- Profiles (profile.c) */

/* One step of the last run, for a per-layer profile table (from ovta_exec_node_stats_get). */
typedef struct ovta_profile_row {
  char *name;              /* graph node name ("total" in the totals row) */
  char *op;                /* its op ("" in the totals row and in plans saved without ops) */
  char *fn;                /* kernel symbol ("" in the totals row) */
  bool accel;              /* ran on the accelerator */
  bool has_cycles;         /* cycles were counted (an accelerator step on a backend counting them) */
  uint64_t cycles;         /* device cycles of the last execution */
  uint64_t dev_runs;       /* device runs of the last execution */
  int64_t macs;            /* multiply-accumulates from the node's logical shapes */
  uint64_t bytes_read[4];  /* DRAM bytes read by type UOP, WGT, INP, ACC (ovta_mem_type order) */
  uint64_t bytes_written;  /* DRAM bytes written (OUT) */
  uint64_t insns;          /* device instructions retired (0 for CPU steps) */
  uint64_t gemm_uops;      /* GEMM micro-ops the device executed */
  uint64_t alu_uops;       /* ALU micro-ops the device executed */
  double us;               /* wall time of the step in microseconds */
} ovta_profile_row;

/* The rows of every step and their totals, with the accelerator's peaks. */
typedef struct ovta_profile {
  int n;                        /* rows: the plan's steps */
  ovta_profile_row *rows;       /* in step order */
  ovta_profile_row total;       /* sums of the rows (has_cycles: some row has) */
  bool has_cfg;                 /* an accelerator plan: cfg and the peaks below are set */
  ovta_config cfg;              /* its config */
  int64_t peak_macs_per_cycle;  /* BATCH x BLOCK_IN x BLOCK_OUT */
  int bus_bytes_per_cycle;      /* AXI_DATA_BITS / 8 */
} ovta_profile;

/* The profile of e's last run (free with ovta_profile_free, also after an error). The rows own
 * their strings: the profile outlives e. */
int ovta_profile_collect(const ovta_exec *e, ovta_profile *p, ovta_error *err);
/* The same from a plan's counters (a plan read from its folder whose counters came back from a
 * remote run, ovta_remote_stats_apply). */
int ovta_profile_collect_plan(const ovta_plan *pl, ovta_profile *p, ovta_error *err);
void ovta_profile_free(ovta_profile *p);
/* MAC utilization of row r: MACs / (cycles x peak MACs per cycle); NAN without cycles. */
double ovta_profile_util(const ovta_profile *p, const ovta_profile_row *r);
/* DRAM bytes row r moved (read and written). */
uint64_t ovta_profile_row_bytes(const ovta_profile_row *r);
/* A Chrome trace (Trace Event JSON) of the run: the device's per-instruction events that tsim
 * wrote to raw (dev_opts.chrome_trace_path; complete once the device is closed) plus a "layers"
 * track (tid 0) with one span per accelerator row over its device run(s). *json (caller frees):
 * the trace, one line. *dev_runs / *layer_runs: device runs in the events, and those the rows
 * expect; when they differ the trace has no layer spans (the caller may warn). */
int ovta_profile_trace(const ovta_profile *p, const char *raw, char **json, int *dev_runs, int *layer_runs,
                       ovta_error *err);

/* The evaluation hook (an ovta_eval_node_fn): evaluate one node on the CPU path (lower,
 * compile, run). ctx is unused (NULL). OVTA_EUNSUPPORTED when the node cannot be lowered. */
int ovta_exec_eval_node(void *ctx, const ovta_graph *g, const ovta_node *n,
                        ovta_tensor *const *inputs, ovta_tensor **outputs, ovta_error *err);

/* An evaluation hook for many runs of the same graph (calibration): ovta_eval_node_ref where it
 * has the operator, else the node on the CPU path, JIT-compiled once and kept in the cache (ctx,
 * an ovta_eval_cache) for the next sample. ovta_calibrate_quantize uses it when given no eval. */
typedef struct ovta_eval_cache ovta_eval_cache;
ovta_eval_cache *ovta_eval_cache_new(void); /* NULL: out of memory */
void ovta_eval_cache_free(ovta_eval_cache *c);
int ovta_exec_eval_cached(void *ctx, const ovta_graph *g, const ovta_node *n,
                          ovta_tensor *const *inputs, ovta_tensor **outputs, ovta_error *err);

#endif
