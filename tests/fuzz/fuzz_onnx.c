/* Fuzz target: the ONNX importer (bytes -> ovta_onnx_load_mem), then, for a model it accepts,
 * shape/type inference (ovta_infer_graph) and the default pass pipeline (ovta_compile_pipeline:
 * infer, fold with the built-in evaluator, dce, fold-bn, fuse, verify), and the JSON form of the
 * result: it must read back and write the identical text (graph.h section 5). A small accepted
 * model (every tensor's shape known, at most EXEC_MAX_ELEMS elements each and EXEC_MAX_TOTAL in
 * all, at most EXEC_MAX_NODES nodes) is then compiled for the CPU path (ovta_exec_build, LLVM at
 * -O0) and run once on zero inputs: the lowerings of every operator see fuzzed attributes and
 * constants. Every error must explain itself; nothing may crash, hang or leak.
 * Speed (tests/fuzz/README.md, "onnx speed"): the build is -O0 for the machine code generator
 * too, and one object code cache (lir_obj_cache, keyed by the module's whole LLVM IR text) serves
 * every input: a model lowering to kernels compiled before loads that object code into its own
 * JIT and runs it, without LLVM's code generator. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "passes.h"

#define EXEC_MAX_ELEMS ((int64_t)1 << 16)
#define EXEC_MAX_TOTAL ((int64_t)1 << 20)
#define EXEC_MAX_NODES 32
#define OBJ_CACHE_BYTES ((size_t)64 << 20) /* IR text and object code kept */

static lir_obj_cache *obj_cache; /* every input's, made at the first build (NULL: none) */

static void json_roundtrip(const ovta_graph *g) {
  ovta_error err = {0};
  char *j1 = ovta_graph_to_json(g, &err);
  if (!j1) {
    if (err.msg[0] == 0) abort();
    return;
  }
  ovta_graph *h = NULL;
  if (ovta_graph_from_json(j1, "again.json", &h, &err)) {
    fprintf(stderr, "written JSON does not read back: %s\n", err.msg);
    abort();
  }
  char *j2 = ovta_graph_to_json(h, &err);
  if (!j2 || strcmp(j1, j2)) {
    fprintf(stderr, "JSON is not stable across read/write\n");
    abort();
  }
  free(j2);
  ovta_graph_free(h);
  free(j1);
}

/* Small enough to compile and run: shapes known and element counts capped (a refusal by the
 * executor is fine, but a fuzzed model asking for gigabytes would only test the allocator). */
static bool small_enough(const ovta_graph *g) {
  if (g->n_nodes > EXEC_MAX_NODES || g->n_outputs == 0) return false;
  int64_t total = 0;
  for (int i = 0; i < g->n_tensors; i++) {
    const ovta_tensor *t = g->tensors[i];
    if (t->rank < 0) return false;
    for (int d = 0; d < t->rank; d++)
      if (t->shape[d] < 0) return false;
    int64_t n = ovta_tensor_numel(t);
    if (n < 0 || n > EXEC_MAX_ELEMS) return false;
    total += n;
  }
  return total <= EXEC_MAX_TOTAL;
}

/* Compile for the CPU path and run once (the arena starts zeroed: inputs are zeros). */
static void exec_once(ovta_graph *g) {
  if (!small_enough(g)) return;
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.cg.opt_level = 0;
  ovta_error cerr = {0};
  if (!obj_cache && lir_obj_cache_new(OBJ_CACHE_BYTES, &obj_cache, &cerr)) obj_cache = NULL;
  o.cg.obj_cache = obj_cache;
  ovta_exec *e = NULL;
  ovta_error err = {0};
  int rc = ovta_exec_build(g, &o, &e, &err);
  if (rc == OVTA_OK) {
    if (!e) abort();
    rc = ovta_exec_run(e, &err);
    for (int i = 0; rc == OVTA_OK && i < ovta_exec_num_outputs(e); i++) {
      ovta_tensor *t = NULL;
      rc = ovta_exec_get_output(e, i, &t, &err);
      ovta_tensor_free(t);
    }
    ovta_exec_free(e);
  }
  if (rc != OVTA_OK && err.msg[0] == 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ovta_graph *g = NULL;
  ovta_error err = {0};
  int rc = ovta_onnx_load_mem(data, size, "fuzz.onnx", &g, &err);
  if (rc == OVTA_OK) {
    if (!g) abort();
    rc = ovta_infer_graph(g, &err);
    if (rc == OVTA_OK) {
      ovta_compile_opts opts = {0};
      rc = ovta_compile_pipeline(g, &opts, &err);
      if (rc == OVTA_OK) {
        json_roundtrip(g);
        exec_once(g);
      }
    }
    ovta_graph_free(g);
  } else if (g) {
    abort(); /* an error leaves no graph */
  }
  if (rc != OVTA_OK && err.msg[0] == 0) abort(); /* every error explains itself */
  return 0;
}
