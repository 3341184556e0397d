/* fold-bn: BatchNormalization folded into the preceding Conv.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* fold-bn: BatchNormalization(Conv(x, W, B)) with constant W, B and BN parameters, the conv
 * output used only by the BN, becomes Conv(x, W', B'):
 *   k[m] = scale[m] / sqrt(var[m] + epsilon)
 *   W'[m, ...] = W[m, ...] * k[m];  B'[m] = (B[m] - mean[m]) * k[m] + bias[m]   (B = 0 if absent) */
int pass_fold_bn(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *bn = g->nodes[i];
    if (strcmp(bn->op, "BatchNormalization") || bn->n_inputs != 5 || !bn->inputs[0]) continue;
    ovta_tensor *x = bn->inputs[0];
    if (x->producer < 0) continue;
    ovta_node *cv = g->nodes[x->producer];
    bool conv = !strcmp(cv->op, "Conv") || (!strcmp(cv->op, "ovta.Conv") && !strcmp(ovta_node_attr_s(cv, "act", "none"), "none"));
    if (!conv || px_single_user(g, x) != i) continue;
    ovta_tensor *w = ovta_node_in(cv, 1), *b = ovta_node_in(cv, 2);
    bool ok = px_is_const(w) && w->dtype == OVTA_DT_F32 && (!b || (px_is_const(b) && b->dtype == OVTA_DT_F32));
    for (int k = 1; k < 5; k++) ok &= px_is_const(bn->inputs[k]);
    if (!ok || w->rank < 1) continue;
    int64_t M = w->shape[0], per = ovta_tensor_numel(w) / (M ? M : 1);
    for (int k = 1; k < 5; k++) ok &= ovta_tensor_numel(bn->inputs[k]) == M;
    if (!ok) continue;
    float eps = ovta_node_attr_f(bn, "epsilon", 1e-5f);
    int64_t bs[1] = {M};
    ovta_tensor *w2 = px_new_const(g, w->name, OVTA_DT_F32, w->rank, w->shape, err);
    ovta_tensor *b2 = w2 ? px_new_const(g, b ? b->name : "bias", OVTA_DT_F32, 1, bs, err) : NULL;
    if (!b2) return err->code;
    for (int64_t m = 0; m < M; m++) {
      double k = ovta_tensor_get_f(bn->inputs[1], m) / sqrt(ovta_tensor_get_f(bn->inputs[4], m) + eps);
      for (int64_t j = 0; j < per; j++) ovta_tensor_put_f(w2, m * per + j, ovta_tensor_get_f(w, m * per + j) * k);
      double bb = b ? ovta_tensor_get_f(b, m) : 0;
      ovta_tensor_put_f(b2, m, (bb - ovta_tensor_get_f(bn->inputs[3], m)) * k + ovta_tensor_get_f(bn->inputs[2], m));
    }
    if (px_set_inputs(cv, 3, err)) return err->code;
    cv->inputs[1] = w2;
    cv->inputs[2] = b2;
    cv->outputs[0] = bn->outputs[0];
    ovta_graph_remove_node(g, i);
    if ((rc = ovta_graph_index(g, err))) return rc;
    i--;
  }
  return ovta_graph_gc(g, err);
}
