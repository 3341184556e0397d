/* dce: dead-code elimination.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* dce: remove nodes none of whose outputs reach a graph output, then unused tensors. */
int pass_dce(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  char *live = calloc((size_t)g->n_tensors + 1, 1);
  if (!live) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < g->n_outputs; i++) live[g->outputs[i]->id] = 1;
  char *keep = calloc((size_t)g->n_nodes + 1, 1);
  if (!keep) {
    free(live);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  for (int i = g->n_nodes - 1; i >= 0; i--) {
    ovta_node *n = g->nodes[i];
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && live[n->outputs[k]->id]) keep[i] = 1;
    if (keep[i])
      for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k]) live[n->inputs[k]->id] = 1;
  }
  for (int i = g->n_nodes - 1; i >= 0; i--)
    if (!keep[i]) ovta_graph_remove_node(g, i);
  free(live);
  free(keep);
  return ovta_graph_gc(g, err);
}
