/* fuse: Conv/Gemm/MatMul + bias + activation into fused ops; elementwise chains.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* Absorb an activation consumer into fused node n (act "none" so far). */
static int absorb_act(ovta_graph *g, ovta_node *n, ovta_error *err) {
  int u = px_single_user(g, n->outputs[0]);
  if (u < 0 || strcmp(ovta_node_attr_s(n, "act", "none"), "none")) return OVTA_OK;
  ovta_node *a = g->nodes[u];
  const char *op = a->op;
  int rc = OVTA_OK;
  if (!strcmp(op, "Relu")) rc = ovta_node_set_s(n, "act", "relu", err);
  else if (!strcmp(op, "Sigmoid")) rc = ovta_node_set_s(n, "act", "sigmoid", err);
  else if (!strcmp(op, "Tanh")) rc = ovta_node_set_s(n, "act", "tanh", err);
  else if (!strcmp(op, "HardSwish")) rc = ovta_node_set_s(n, "act", "hardswish", err);
  else if (!strcmp(op, "LeakyRelu"))
    rc = ovta_node_set_s(n, "act", "leakyrelu", err) || ovta_node_set_f(n, "act_alpha", ovta_node_attr_f(a, "alpha", 0.01f), err);
  else if (!strcmp(op, "HardSigmoid"))
    rc = ovta_node_set_s(n, "act", "hardsigmoid", err) || ovta_node_set_f(n, "act_alpha", ovta_node_attr_f(a, "alpha", 0.2f), err) ||
         ovta_node_set_f(n, "act_beta", ovta_node_attr_f(a, "beta", 0.5f), err);
  else if (!strcmp(op, "Clip")) {
    ovta_tensor *lo = ovta_node_in(a, 1), *hi = ovta_node_in(a, 2);
    if ((lo && !px_is_const(lo)) || (hi && !px_is_const(hi))) return OVTA_OK;
    rc = ovta_node_set_s(n, "act", "clip", err) ||
         ovta_node_set_f(n, "act_min", lo ? (float)ovta_tensor_get_f(lo, 0) : -INFINITY, err) ||
         ovta_node_set_f(n, "act_max", hi ? (float)ovta_tensor_get_f(hi, 0) : INFINITY, err);
  } else return OVTA_OK;
  if (rc) return err->code ? err->code : rc;
  n->outputs[0] = a->outputs[0];
  ovta_graph_remove_node(g, u);
  return ovta_graph_index(g, err);
}

/* Absorb a following Add of a constant per-channel bias: conv [M] / [M,1,1] / [1,M,1,1],
 * dense [N] / [1,N]. */
static int absorb_bias(ovta_graph *g, ovta_node *n, int64_t M, bool conv, ovta_error *err) {
  int u = px_single_user(g, n->outputs[0]);
  if (u < 0) return OVTA_OK;
  ovta_node *a = g->nodes[u];
  if (strcmp(a->op, "Add") || a->n_inputs != 2) return OVTA_OK;
  ovta_tensor *c = a->inputs[0] == n->outputs[0] ? a->inputs[1] : a->inputs[0];
  if (!px_is_const(c) || c->dtype != OVTA_DT_F32 || ovta_tensor_numel(c) != M) return OVTA_OK;
  /* the channel dim of c must line up with dim 1 (conv, rank 4 output) or the last dim (dense) */
  int orank = n->outputs[0]->rank, ch = conv ? 1 : orank - 1;
  if (c->rank > orank) return OVTA_OK;
  for (int d = 0; d < c->rank; d++) {
    int od = d + orank - c->rank;
    if (c->shape[d] != (od == ch ? M : 1)) return OVTA_OK;
  }
  if (M == 1 && c->rank > 0 && orank - c->rank > ch) return OVTA_OK;
  ovta_tensor *b = ovta_node_in(n, 2);
  int64_t bs[1] = {M};
  ovta_tensor *nb = px_new_const(g, "bias", OVTA_DT_F32, 1, bs, err);
  if (!nb) return err->code;
  for (int64_t m = 0; m < M; m++) ovta_tensor_put_f(nb, m, ovta_tensor_get_f(c, m) + (b ? ovta_tensor_get_f(b, m) : 0));
  if (px_set_inputs(n, 3, err)) return err->code;
  n->inputs[2] = nb;
  n->outputs[0] = a->outputs[0];
  ovta_graph_remove_node(g, u);
  return ovta_graph_index(g, err);
}

/* A: 2-D, or (MatMul) more dims all static: a transformer's projection [..., K] x [K, N]. */
static bool dense_lhs(const ovta_tensor *a, bool gemm) {
  if (!a || a->dtype != OVTA_DT_F32 || a->rank < 2 || (gemm && a->rank != 2)) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] < 1) return false;
  return true;
}

/* Gemm(alpha, beta, transA=0, B const) / MatMul(A [..., K] static, B const 2-D) -> ovta.Dense with
 * W = (transB ? B : B^T) * alpha and bias beta * C when C is constant [N] / [1, N]. (A with more
 * than 2 dims is reshaped around the dense layer at the end of the pass: flatten_dense.) */
static int to_dense(ovta_graph *g, ovta_node *n, ovta_error *err) {
  bool gemm = !strcmp(n->op, "Gemm");
  ovta_tensor *a = ovta_node_in(n, 0), *b = ovta_node_in(n, 1), *c = gemm ? ovta_node_in(n, 2) : NULL;
  if (!dense_lhs(a, gemm) || !px_is_const(b) || b->rank != 2 || b->dtype != OVTA_DT_F32) return 1;
  if (gemm && ovta_node_attr_i(n, "transA", 0)) return 1;
  bool tb = gemm && ovta_node_attr_i(n, "transB", 0);
  double alpha = gemm ? ovta_node_attr_f(n, "alpha", 1) : 1, beta = gemm ? ovta_node_attr_f(n, "beta", 1) : 1;
  int64_t K = tb ? b->shape[1] : b->shape[0], N = tb ? b->shape[0] : b->shape[1];
  if (c && (!px_is_const(c) || ovta_tensor_numel(c) != N || (c->rank == 2 && c->shape[0] != 1) || c->rank > 2)) return 1;
  int64_t ws[2] = {N, K}, bs[1] = {N};
  ovta_tensor *w = px_new_const(g, b->name, OVTA_DT_F32, 2, ws, err);
  if (!w) return err->code;
  for (int64_t i = 0; i < N; i++)
    for (int64_t k = 0; k < K; k++) ovta_tensor_put_f(w, i * K + k, alpha * ovta_tensor_get_f(b, tb ? i * K + k : k * N + i));
  ovta_tensor *nb = NULL;
  if (c) {
    if (!(nb = px_new_const(g, c->name, OVTA_DT_F32, 1, bs, err))) return err->code;
    for (int64_t i = 0; i < N; i++) ovta_tensor_put_f(nb, i, beta * ovta_tensor_get_f(c, i));
  }
  for (int k = n->n_attrs - 1; k >= 0; k--) ovta_node_del_attr(n, n->attrs[k].name);
  if (px_set_op(n, "ovta.Dense", err) || px_set_inputs(n, nb ? 3 : 2, err) || ovta_node_set_s(n, "act", "none", err)) return err->code;
  n->inputs[1] = w;
  if (nb) n->inputs[2] = nb;
  return OVTA_OK;
}

/* A [M, K]-shaped value x that A is a Reshape of, when A has no other use (the previous
 * projection's output Reshape, from flatten_dense): that Reshape removed, x returned; else NULL. */
static ovta_tensor *rows_of(ovta_graph *g, const ovta_tensor *a, int64_t M, int64_t K) {
  if (a->producer < 0 || px_single_user(g, a) < 0) return NULL;
  ovta_node *r = g->nodes[a->producer];
  ovta_tensor *x = r->n_inputs ? r->inputs[0] : NULL;
  if (strcmp(r->op, "Reshape") || !x || x->rank != 2 || x->shape[0] != M || x->shape[1] != K) return NULL;
  ovta_graph_remove_node(g, a->producer);
  return x;
}

/* ovta.Dense n on A [d0, .., dk, K] (rank > 2) -> Reshape(A, [M, K]), the dense layer on
 * [M, K] -> [M, N], Reshape(.., [d0, .., dk, N]) into the original output (M = d0 * .. * dk):
 * the accelerator's dense layer takes rows, and a row-wise product does not care how the rows
 * were arranged. Bias and activation were absorbed before, on the original output. When A is
 * itself the reshaped output of such a layer (projections in a row), the rows are used as they
 * are: no Reshape pair between the two layers. */
static int flatten_dense(ovta_graph *g, ovta_node *n, ovta_error *err) {
  ovta_tensor *a = n->inputs[0], *y = n->outputs[0];
  int64_t M = 1, K = a->shape[a->rank - 1], N = y->shape[y->rank - 1];
  for (int d = 0; d < a->rank - 1; d++) M *= a->shape[d];
  int64_t s_in[2] = {M, K};
  ovta_tensor la = {.rank = 2, .shape = {M, K}}, ly = {.rank = 2, .shape = {M, N}};
  ovta_tensor *so = px_new_ints(g, "shape", y->rank, y->shape, err);
  ovta_tensor *y2 = so ? px_new_value(g, y->name, y->dtype, &ly, err) : NULL;
  ovta_tensor *a2 = y2 ? rows_of(g, a, M, K) : NULL;
  if (y2 && !a2) {
    ovta_tensor *si = px_new_ints(g, "shape", 2, s_in, err);
    a2 = si ? px_new_value(g, a->name, a->dtype, &la, err) : NULL;
    ovta_tensor *in1[2] = {a, si};
    if (a2 && !px_new_node(g, px_node_index(g, n), "Reshape", "reshape", 2, in1, a2, err)) a2 = NULL;
  }
  ovta_tensor *in2[2] = {y2, so};
  if (!a2 || !px_new_node(g, px_node_index(g, n) + 1, "Reshape", "reshape", 2, in2, y, err))
    return err->code ? err->code : OVTA_ENOMEM;
  n->inputs[0] = a2, n->outputs[0] = y2;
  return ovta_graph_index(g, err);
}

static const char *const ELT_UN[] = {"Relu", "Sigmoid", "Tanh", "HardSwish", "Neg", "Abs", "Exp", "Identity", NULL};

static bool elt_unary(const char *op) {
  for (int i = 0; ELT_UN[i]; i++)
    if (!strcmp(op, ELT_UN[i])) return true;
  return false;
}

static bool elt_binary(const char *op) {
  return !strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div");
}

/* Can node m continue a chain whose value is v? Sets *swap when v is the second operand of a
 * commutative op. */
static bool chain_next(const ovta_node *m, const ovta_tensor *v, bool *swap) {
  *swap = false;
  if (m->n_outputs != 1 || !m->outputs[0]) return false;
  if (elt_unary(m->op)) return m->n_inputs == 1 && m->inputs[0] == v;
  if (!elt_binary(m->op) || m->n_inputs != 2 || !m->inputs[0] || !m->inputs[1] || m->inputs[0] == m->inputs[1]) return false;
  if (m->inputs[0] == v) return true;
  if (m->inputs[1] == v && (!strcmp(m->op, "Add") || !strcmp(m->op, "Mul"))) return *swap = true;
  return false;
}

/* Elementwise chains of >= 2 ops with single-use intermediates -> ovta.Eltwise. */
static int fuse_chains(ovta_graph *g, ovta_error *err) {
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool swap;
    if (!n->n_inputs || !chain_next(n, n->inputs[0], &swap)) continue;
    if (n->outputs[0]->dtype != OVTA_DT_F32) continue;
    /* collect */
    char ops[256];
    ovta_tensor *extra[32];
    int ne = 0, len = 1;
    snprintf(ops, sizeof ops, "%s", n->op);
    if (elt_binary(n->op)) extra[ne++] = n->inputs[1];
    ovta_tensor *v = n->outputs[0];
    int last = i;
    for (;;) {
      int u = px_single_user(g, v);
      if (u < 0 || ne >= 31 || strlen(ops) > 200) break;
      ovta_node *m = g->nodes[u];
      if (!chain_next(m, v, &swap) || m->outputs[0]->dtype != OVTA_DT_F32) break;
      if (elt_binary(m->op)) extra[ne++] = swap ? m->inputs[0] : m->inputs[1];
      size_t l = strlen(ops);
      snprintf(ops + l, sizeof ops - l, ",%s", m->op);
      v = m->outputs[0];
      last = u;
      len++;
    }
    if (len < 2) continue;
    /* the extra inputs must be available at the first node: constants, inputs, or produced
     * before it (toposorted graph) */
    bool ok = true;
    for (int k = 0; k < ne; k++) ok &= extra[k]->kind != OVTA_TK_VALUE || (extra[k]->producer >= 0 && extra[k]->producer < i);
    if (!ok) continue;
    ovta_tensor *in[33];
    in[0] = n->inputs[0];
    for (int k = 0; k < ne; k++) in[k + 1] = extra[k];
    ovta_node *f = px_new_node(g, i, "ovta.Eltwise", "eltwise", ne + 1, in, v, err);
    if (!f || ovta_node_set_s(f, "ops", ops, err)) return err->code;
    /* remove the chain's nodes: they are now dead (their final output has a new producer) */
    ovta_tensor *cur = n->outputs[0];
    (void)last;
    ovta_graph_remove_node(g, i + 1); /* n */
    for (int k = 1; k < len; k++) {
      int u = -1;
      for (int j = 0; j < g->n_nodes && u < 0; j++)
        for (int q = 0; q < g->nodes[j]->n_inputs; q++)
          if (g->nodes[j]->inputs[q] == cur && g->nodes[j] != f) u = j;
      if (u < 0) unreachable();
      cur = g->nodes[u]->outputs[0];
      ovta_graph_remove_node(g, u);
    }
    int rc = ovta_graph_index(g, err);
    if (rc) return rc;
  }
  return OVTA_OK;
}

/* fuse: Conv -> ovta.Conv and Gemm/MatMul -> ovta.Dense, absorbing a following constant
 * per-channel Add (bias) and a following activation; then elementwise chains -> ovta.Eltwise. */
int pass_fuse(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool conv = !strcmp(n->op, "Conv");
    if (conv) {
      ovta_tensor *w = ovta_node_in(n, 1);
      if (!w || w->rank < 1 || n->outputs[0]->dtype != OVTA_DT_F32) continue;
      if (px_set_op(n, "ovta.Conv", err) || ovta_node_set_s(n, "act", "none", err)) return err->code;
    } else if (!strcmp(n->op, "Gemm") || !strcmp(n->op, "MatMul")) {
      if ((rc = to_dense(g, n, err)) > 0) continue;
      if (rc) return rc;
    } else continue;
    int64_t M = conv ? ovta_node_in(n, 1)->shape[0] : ovta_node_in(n, 1)->shape[0];
    if (!ovta_node_in(n, 2) || px_is_const(ovta_node_in(n, 2)))
      if ((rc = absorb_bias(g, n, M, conv, err))) return rc;
    if ((rc = absorb_act(g, n, err))) return rc;
    if (!conv && ovta_node_in(n, 0)->rank > 2 && (rc = flatten_dense(g, n, err))) return rc;
    i = px_node_index(g, n);
  }
  if ((rc = fuse_chains(g, err))) return rc;
  return ovta_graph_gc(g, err);
}
