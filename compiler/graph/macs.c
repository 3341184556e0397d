/* macs.c: multiply-accumulates of a node from its logical shapes (graph.h section 4). */
#include "graph.h"

#include <string.h>

/* Elements of t: its plain shape, or its logical shape when it is in a blocked layout. */
static int64_t logical_numel(const ovta_tensor *t) {
  return t->layout == OVTA_LAYOUT_PLAIN ? ovta_tensor_numel(t) : ovta_shape_numel(t->logical, t->logical_rank);
}

/* Conv and the fused forms whose weights are [O, ...] (ovta.Dense: [N, K]). */
static bool weight_per_output(const char *op) {
  return !strcmp(op, "Conv") || !strcmp(op, "ovta.Conv") || !strcmp(op, "ovta.QConv") || !strcmp(op, "ovta.Dense") ||
         !strcmp(op, "ovta.QDense");
}

/* RNN, GRU, LSTM: per time step and batch entry, every gate row of W [D, G*H, I] and R [D, G*H,
 * H] once: (seq * batch) * (|W| + |R|) (GRU's reset-gate product and the cell updates not
 * counted). */
static int64_t rnn_macs(const ovta_node *n) {
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *r = ovta_node_in(n, 2);
  if (!x || !w || !r || x->rank != 3 || x->shape[2] <= 0) return 0;
  int64_t steps = ovta_tensor_numel(x) / x->shape[2], nw = ovta_tensor_numel(w), nr = ovta_tensor_numel(r);
  return steps > 0 && nw > 0 && nr > 0 ? steps * (nw + nr) : 0;
}

int64_t ovta_node_macs(const ovta_node *n) {
  if (!strcmp(n->op, "RNN") || !strcmp(n->op, "GRU") || !strcmp(n->op, "LSTM")) return rnn_macs(n);
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *y = n->n_outputs ? n->outputs[0] : NULL;
  if (!x || !w || !y) return 0;
  int64_t ny = logical_numel(y), red = 0;
  if (weight_per_output(n->op)) {
    int64_t o = w->layout == OVTA_LAYOUT_PLAIN ? (w->rank > 0 ? w->shape[0] : 0) : w->logical[0];
    int64_t nw = logical_numel(w);
    if (o > 0 && nw > 0) red = nw / o;
  } else if (!strcmp(n->op, "Gemm") && x->rank == 2) {
    red = ovta_node_attr_i(n, "transA", 0) ? x->shape[0] : x->shape[1];
  } else if (!strcmp(n->op, "MatMul") && x->rank >= 1) {
    red = x->shape[x->rank - 1];
  }
  return ny > 0 && red > 0 ? ny * red : 0;
}

int64_t ovta_graph_macs(const ovta_graph *g) {
  int64_t macs = 0;
  for (int i = 0; i < g->n_nodes; i++) macs += ovta_node_macs(g->nodes[i]);
  return macs;
}
