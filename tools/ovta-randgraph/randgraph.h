/* randgraph.h: the compiler's differential fuzzer (tools/ovta-randgraph/README.md): a random
 * valid graph from a seed (gen.c) and the checks one graph goes through (check.c): fp32 on the
 * CPU path against the reference evaluator (and onnxruntime for a sample), int8 on the CPU path
 * against the accelerator on fsim (and tsim for a sample) byte for byte. */
#ifndef OVTA_RANDGRAPH_H
#define OVTA_RANDGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#define RG_MAX_OPS 16

/* One generated case. */
typedef struct rg_case {
  char *json;                 /* the graph in ovta's JSON form (malloc'ed) */
  int64_t x_shape[4];         /* the input x: [1, C, H, W] */
  int depth;                  /* operators drawn (a branch conv counts with its Add/Concat) */
  int nodes;                  /* nodes in the graph */
  int noutputs;               /* graph outputs (1..4) */
  int nops;                   /* distinct operators used */
  char ops[RG_MAX_OPS][24];   /* their names */
  uint64_t rng;               /* the stream after the graph: inputs and calibration follow it */
} rg_case;

/* The graph of seed (deterministic). */
int rg_generate(uint64_t seed, rg_case *out);
/* The splitmix64 stream; uniform floats in +-a. */
uint64_t rg_next(uint64_t *s);
float rg_uniform(uint64_t *s, float a);

/* What to check, and where the sampled extras go. */
typedef struct rg_opts {
  const char *config;   /* accelerator config name */
  bool tsim;            /* also run the int8 plan on tsim */
  const char *ort_js;   /* tools/ort-ref/ort-run.js for the onnxruntime sample, or NULL */
  const char *workdir;  /* scratch folder of this case (the ONNX model and arrays for ort) */
  int opt_level;        /* LLVM -O of the CPU builds */
  bool inject_fault;    /* flip one bit of the accelerator's output (the checker's own test) */
} rg_opts;

/* The stages a case goes through; a failure names the first that failed. */
typedef enum rg_stage {
  RG_OK = 0,
  RG_PARSE,     /* the JSON graph read back (a generator bug) */
  RG_ONNX,      /* ONNX written and read back to the same graph */
  RG_REF,       /* the reference evaluator ran */
  RG_FP32,      /* compiled and ran fp32 on the CPU path */
  RG_FP32_REF,  /* fp32 within tolerance of the reference evaluator */
  RG_ORT,       /* fp32 within tolerance of onnxruntime */
  RG_QUANT,     /* calibrated and quantized */
  RG_INT8_CPU,  /* compiled and ran int8 on the CPU path */
  RG_ACCEL,     /* compiled and ran int8 with the accelerator on fsim */
  RG_ACCEL_EQ,  /* the accelerator's int8 output equals the CPU path's, byte for byte */
  RG_TSIM,      /* ran on tsim */
  RG_TSIM_EQ,   /* tsim equals the CPU path, byte for byte */
  RG_CRASH,     /* the case's process died (signal) or timed out */
  RG_NSTAGES
} rg_stage;
const char *rg_stage_name(rg_stage s);

/* What one case did (passed from the case's process to the driver through a pipe). */
typedef struct rg_result {
  int stage;            /* rg_stage: RG_OK or the first failure */
  char msg[1024];       /* why it failed */
  int qnodes;           /* ovta.QConv / ovta.QDense after quantization */
  int accel_nodes;      /* nodes the accelerator ran */
  bool ort_done;        /* onnxruntime compared */
  bool tsim_done;       /* tsim compared */
  double max_rel_ref;   /* fp32: max |ovta - ref| / (max |ref|) */
  double max_rel_ort;   /* fp32: the same against onnxruntime */
  double int8_err;      /* int8 (CPU path) against fp32: max |int8 - fp32| / max |fp32| (information, not a check) */
} rg_result;

struct ovta_tensor;
/* The case's input x [1,C,H,W] and calibration samples [4,C,H,W] (sample 0 is x), from c->rng. */
int rg_inputs(const rg_case *c, struct ovta_tensor **x, struct ovta_tensor **cal);

/* Run the checks on one case (in the calling process; the driver forks for it). */
void rg_check(uint64_t seed, const rg_case *c, const rg_opts *o, rg_result *r);

#endif
