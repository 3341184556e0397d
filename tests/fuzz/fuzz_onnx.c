/* Fuzz target: the ONNX importer (bytes -> ovta_onnx_load_mem), then, for a model it accepts,
 * shape/type inference (ovta_infer_graph) and the default pass pipeline (ovta_compile_pipeline:
 * infer, fold with the built-in evaluator, dce, fold-bn, fuse, verify), and the JSON form of the
 * result: it must read back and write the identical text (graph.h section 5). Every error must
 * explain itself; nothing may crash, hang or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

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
      if (rc == OVTA_OK) json_roundtrip(g);
    }
    ovta_graph_free(g);
  } else if (g) {
    abort(); /* an error leaves no graph */
  }
  if (rc != OVTA_OK && err.msg[0] == 0) abort(); /* every error explains itself */
  return 0;
}
