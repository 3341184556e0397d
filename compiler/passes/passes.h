/* passes.h: the graph-pass layer (compiler/passes/): one file per pass (its rule above it), the
 * pass registry and the pipeline (pipeline.c). Passes rewrite a graph in place.
 * May include: graph.h. Where to add a pass: compiler/passes/README.md.
 *
 * Sections:
 *   1. Targets     - what the accelerator supports (partitioning).
 *   2. Passes      - the pass interface and the pipeline.
 */
#ifndef OVTA_PASSES_H
#define OVTA_PASSES_H

#include "graph.h"

/* ---------------------------------------------------------------- 1. Targets */

/* What a target can run. supports() decides per node (after quantization and fusion). */
typedef struct ovta_target_desc {
  const char *name;                                  /* e.g. "ovta-accel" */
  bool (*supports)(void *ctx, const ovta_graph *g, const ovta_node *n); /* NULL: use ops */
  const char *const *ops;                            /* NULL-terminated op list when supports==NULL */
  void *ctx;                                         /* passed to supports */
} ovta_target_desc;

/* The accelerator: ovta.QConv (group 1) and ovta.QDense with int8 in/out, ovta.Pack/Unpack. */
extern const ovta_target_desc ovta_target_accel;

/* Why node n of g is not run by the accelerator target (ovta_target_accel) after the accelerator
 * passes (quantize, pack, partition), in one phrase written into buf; NULL when it is. Used by
 * the compile report for every node on the CPU. */
const char *ovta_accel_why_not(const ovta_graph *g, const ovta_node *n, char *buf, size_t len);

/* ---------------------------------------------------------------- 2. Passes */

/* Options every pass sees. Zero-initialize, then set what you need. */
typedef struct ovta_compile_opts {
  const ovta_config *cfg;          /* hardware config (batch/block_in/block_out); NULL: 1x16x16 */
  const char *passes;              /* comma-separated pass list; NULL: the default pipeline */
  const char *print_after;         /* comma-separated pass names to dump after, or "all" */
  FILE *dump;                      /* where dumps go (NULL: stderr) */
  ovta_eval_node_fn eval;          /* evaluation hook for folding/calibration (NULL: built-in) */
  void *eval_ctx;                  /* passed to eval */
  int n_calib;                     /* calibration samples */
  ovta_tensor *const *const *calib;/* calib[s][i]: sample s, value for g->inputs[i] */
  const ovta_target_desc *target;  /* partition target (NULL: ovta_target_accel) */
  bool quant_per_tensor;           /* quantize: one weight exponent per tensor everywhere */
  ovta_timing *timing;             /* time each pass ("pass NAME"; quantize: also its calibration) here, or NULL */
} ovta_compile_opts;

/* A pass: transforms the graph in place. */
typedef int (*ovta_pass_fn)(ovta_graph *g, const ovta_compile_opts *opts, ovta_error *err);

typedef struct ovta_pass {
  const char *name;   /* the name used in --passes / --print-after */
  const char *help;   /* one line */
  ovta_pass_fn run;   /* the transformation */
} ovta_pass;

/* Every pass, in default pipeline order; *n receives the count. */
const ovta_pass *ovta_passes(int *n);
/* Pass by name, or NULL. */
const ovta_pass *ovta_pass_find(const char *name);
/* The default pipeline (float, target-independent) as a comma-separated list. */
extern const char ovta_default_pipeline[];
/* The accelerator pipeline: the default one, then quantize, pack, partition. */
extern const char ovta_accel_pipeline[];
/* Run the pipeline (opts->passes or the default), dumping as opts->print_after says.
 * Errors are prefixed with the pass name. */
int ovta_compile_pipeline(ovta_graph *g, const ovta_compile_opts *opts, ovta_error *err);

#endif
