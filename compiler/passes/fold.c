/* fold: constant folding through the evaluation hook.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

#define FOLD_MAX_ELEMS ((int64_t)1 << 24)

/* fold: a node whose inputs are all constant is evaluated (opts->eval, else the reference
 * evaluator) and replaced by constants. Nodes the evaluator does not support stay. */
int pass_fold(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  ovta_eval_node_fn ev = o->eval ? o->eval : ovta_eval_node_ref;
  for (int i = 0; i < g->n_nodes;) {
    ovta_node *n = g->nodes[i];
    bool all = true;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && !px_is_const(n->inputs[k])) all = false;
    for (int k = 0; k < n->n_outputs; k++) {
      ovta_tensor *t = n->outputs[k];
      if (t && (ovta_tensor_numel(t) < 0 || ovta_tensor_numel(t) > FOLD_MAX_ELEMS || t->dtype == OVTA_DT_UNDEF)) all = false;
    }
    if (!all || (n->n_inputs == 0 && strcmp(n->op, "Constant"))) {
      i++;
      continue;
    }
    ovta_tensor *outs[8] = {0};
    if (n->n_outputs > 8 || n->n_outputs < 1) {
      i++;
      continue;
    }
    int rc = OVTA_OK;
    for (int k = 0; k < n->n_outputs && !rc; k++)
      if (n->outputs[k]) {
        ovta_tensor *t = n->outputs[k];
        outs[k] = ovta_tensor_new(t->name, t->dtype, t->rank, t->shape);
        if (!outs[k]) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
        else outs[k]->layout = t->layout, outs[k]->logical_rank = t->logical_rank,
             memcpy(outs[k]->logical, t->logical, sizeof t->logical);
      }
    if (!rc) rc = ev(o->eval ? o->eval_ctx : NULL, g, n, n->inputs, outs, err);
    bool done = !rc;
    for (int k = 0; k < n->n_outputs && done; k++)
      if (n->outputs[k] && !outs[k]->data) done = false;
    if (done)
      for (int k = 0; k < n->n_outputs; k++) {
        ovta_tensor *t = n->outputs[k];
        if (!t) continue;
        free(t->data);
        t->data = outs[k]->data;
        t->nbytes = outs[k]->nbytes;
        outs[k]->data = NULL;
        t->kind = OVTA_TK_CONST;
      }
    for (int k = 0; k < n->n_outputs; k++) ovta_tensor_free(outs[k]);
    if (rc == OVTA_EUNSUPPORTED) {
      ovta_error_clear(err);
      i++;
      continue;
    }
    if (rc) return ovta_error_wrap(err, "folding node '%s' (%s)", n->name, n->op);
    if (!done) {
      i++;
      continue;
    }
    ovta_graph_remove_node(g, i);
  }
  return ovta_graph_gc(g, err);
}
