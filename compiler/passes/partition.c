/* partition: accel/cpu targets and regions.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

static bool desc_supports(const ovta_target_desc *t, const ovta_graph *g, const ovta_node *n) {
  if (t->supports) return t->supports(t->ctx, g, n);
  for (int i = 0; t->ops && t->ops[i]; i++)
    if (!strcmp(t->ops[i], n->op)) return true;
  return false;
}

static bool accel_supports(void *ctx, const ovta_graph *g, const ovta_node *n) {
  if (!strcmp(n->op, "ovta.Pack") || !strcmp(n->op, "ovta.Unpack")) return true;
  if (!strcmp(n->op, "ovta.QAdd") || !strcmp(n->op, "ovta.QMaxPool")) {
    /* int8 in the act layout; whether the ALU kernels take the shape is the executor's check
     * (vta_op_from_node, vta_plan_make), which falls back to the cpu with the reason */
    const ovta_tensor *y = n->n_outputs ? n->outputs[0] : NULL;
    if (!y || y->dtype != OVTA_DT_I8 || y->layout != OVTA_LAYOUT_ACT) return false;
    for (int k = 0; k < n->n_inputs; k++)
      if (!n->inputs[k] || n->inputs[k]->dtype != OVTA_DT_I8 || n->inputs[k]->layout != OVTA_LAYOUT_ACT) return false;
    return n->n_inputs == (strcmp(n->op, "ovta.QAdd") ? 1 : 2);
  }
  if (strcmp(n->op, "ovta.QConv") && strcmp(n->op, "ovta.QDense")) return false;
  /* grouped convolutions too: pack took only those whose channels align with the groups and
   * the blocks (the others stay plain, so cpu); whether the shape fits is the executor's check */
  const ovta_tensor *x = ovta_node_in(n, 0), *y = n->outputs[0];
  return x && x->dtype == OVTA_DT_I8 && y && y->dtype == OVTA_DT_I8 && x->layout == OVTA_LAYOUT_ACT;
}

const ovta_target_desc ovta_target_accel = {"ovta-accel", accel_supports, NULL, NULL};

static int uf_find(int *p, int i) {
  while (p[i] != i) i = p[i] = p[p[i]];
  return i;
}

/* partition: each node gets target accel when the target description supports it, else cpu;
 * regions are the connected components of same-target nodes (numbered in node order). */
int pass_partition(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  const ovta_target_desc *t = o->target ? o->target : &ovta_target_accel;
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int nn = g->n_nodes;
  int *p = malloc((size_t)(nn + 1) * sizeof *p), *id = malloc((size_t)(nn + 1) * sizeof *id);
  if (!p || !id) {
    free(p), free(id);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  for (int i = 0; i < nn; i++) {
    p[i] = i, id[i] = -1;
    g->nodes[i]->target = desc_supports(t, g, g->nodes[i]) ? OVTA_TARGET_ACCEL : OVTA_TARGET_CPU;
  }
  for (int i = 0; i < nn; i++) {
    ovta_node *n = g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++) {
      ovta_tensor *x = n->inputs[k];
      if (!x || x->producer < 0 || g->nodes[x->producer]->target != n->target) continue;
      int a = uf_find(p, i), b = uf_find(p, x->producer);
      if (a != b) p[a < b ? b : a] = a < b ? a : b;
    }
  }
  int next = 0;
  for (int i = 0; i < nn; i++) {
    int r = uf_find(p, i);
    if (id[r] < 0) id[r] = next++;
    g->nodes[i]->region = id[r];
  }
  free(p), free(id);
  return OVTA_OK;
}
