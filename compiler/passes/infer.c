/* infer, verify: the inference and structural-check passes.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* infer: topological order, then shape/type inference of every node. */
int pass_infer(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_toposort(g, err);
  return rc ? rc : ovta_infer_graph(g, err);
}

/* verify: the structural checks of ovta_graph_verify, and every tensor typed. */
int pass_verify(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_verify(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_tensors; i++) {
    const ovta_tensor *t = g->tensors[i];
    if ((t->uses || t->producer >= 0) && (t->dtype == OVTA_DT_UNDEF || t->rank < 0))
      return OVTA_FAIL(err, OVTA_EINVAL, "%s: tensor '%s' has no inferred type", g->origin, t->name);
  }
  return OVTA_OK;
}
