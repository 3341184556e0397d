/* Fuzz target: the JSON graph reader (text -> ovta_graph_from_json). A graph it accepts must
 * write (ovta_graph_to_json) to text that reads back and writes identically (graph.h section 5),
 * dump (ovta_graph_dump_str), and go through inference and the default pass pipeline or fail with
 * a message. Nothing may crash, hang or leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  ovta_graph *g = NULL;
  ovta_error err = {0};
  int rc = ovta_graph_from_json(text, "fuzz.json", &g, &err);
  if (rc == OVTA_OK) {
    if (!g) abort();
    char *j1 = ovta_graph_to_json(g, &err);
    if (j1) {
      ovta_graph *h = NULL;
      ovta_error e2 = {0};
      if (ovta_graph_from_json(j1, "again.json", &h, &e2)) {
        fprintf(stderr, "written JSON does not read back: %s\n%s\n", e2.msg, j1);
        abort();
      }
      char *j2 = ovta_graph_to_json(h, &e2);
      if (!j2 || strcmp(j1, j2)) {
        fprintf(stderr, "JSON is not stable across read/write:\n%s\n---\n%s\n", j1, j2 ? j2 : "(null)");
        abort();
      }
      free(j2);
      ovta_graph_free(h);
      free(j1);
      free(ovta_graph_dump_str(g));
      rc = ovta_graph_toposort(g, &err);
      if (rc == OVTA_OK) rc = ovta_infer_graph(g, &err);
      if (rc == OVTA_OK) {
        ovta_compile_opts opts = {0};
        rc = ovta_compile_pipeline(g, &opts, &err);
      }
    } else {
      rc = err.code ? err.code : OVTA_EINVAL;
    }
    ovta_graph_free(g);
  } else if (g) {
    abort(); /* an error leaves no graph */
  }
  if (rc != OVTA_OK && err.msg[0] == 0) abort(); /* every error explains itself */
  free(text);
  return 0;
}
