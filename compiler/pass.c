/* pass.c: the graph passes and the flat pipeline that runs them (graph.h section 10),
 * like QBE's main.c: a list of named passes, each able to dump the IR after it ran.
 * The pass list and what each pass guarantees are in compiler/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* ---------------------------------------------------------------- helpers */

/* A new constant tensor with zeroed data. */
static ovta_tensor *new_const(ovta_graph *g, const char *base, ovta_dtype dt, int rank, const int64_t *shape,
                              ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  if (!nm) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  ovta_tensor *t = ovta_graph_add_tensor(g, nm, dt, rank, shape, err);
  free(nm);
  if (!t) return NULL;
  t->kind = OVTA_TK_CONST;
  if (ovta_tensor_alloc(t, err)) return NULL;
  return t;
}

static ovta_tensor *new_scalar(ovta_graph *g, const char *base, ovta_dtype dt, double v, ovta_error *err) {
  ovta_tensor *t = new_const(g, base, dt, 0, NULL, err);
  if (t) ovta_tensor_put_f(t, 0, v);
  return t;
}

/* A new value tensor shaped like `like` (NULL: unknown). */
static ovta_tensor *new_value(ovta_graph *g, const char *base, ovta_dtype dt, const ovta_tensor *like, ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  if (!nm) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  ovta_tensor *t = ovta_graph_add_tensor(g, nm, dt, like ? like->rank : -1, like ? like->shape : NULL, err);
  free(nm);
  return t;
}

/* A new node at position pos with the given tensors. */
static ovta_node *new_node(ovta_graph *g, int pos, const char *op, const char *base, int ni, ovta_tensor *const *in,
                           ovta_tensor *out, ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  ovta_node *n = nm ? ovta_node_new(op, nm, ni, 1) : NULL;
  free(nm);
  if (!n) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  for (int i = 0; i < ni; i++) n->inputs[i] = in[i];
  n->outputs[0] = out;
  if (ovta_graph_insert_node(g, pos, n, err)) {
    ovta_node_free(n);
    return NULL;
  }
  return n;
}

static int set_op(ovta_node *n, const char *op, ovta_error *err) {
  char *s = strdup(op);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  free(n->op);
  n->op = s;
  return OVTA_OK;
}

static int set_inputs(ovta_node *n, int cnt, ovta_error *err) {
  if (cnt <= n->n_inputs) {
    n->n_inputs = cnt;
    return OVTA_OK;
  }
  ovta_tensor **a = realloc(n->inputs, (size_t)cnt * sizeof *a);
  if (!a) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = n->n_inputs; i < cnt; i++) a[i] = NULL;
  n->inputs = a;
  n->n_inputs = cnt;
  return OVTA_OK;
}

static bool is_graph_output(const ovta_graph *g, const ovta_tensor *t) {
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t) return true;
  return false;
}

/* The only node reading t (index), or -1 when t has another use or is a graph output. */
static int single_user(const ovta_graph *g, const ovta_tensor *t) {
  if (is_graph_output(g, t)) return -1;
  int who = -1, cnt = 0;
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; k < g->nodes[i]->n_inputs; k++)
      if (g->nodes[i]->inputs[k] == t) who = i, cnt++;
  return cnt == 1 ? who : -1;
}

static int node_index(const ovta_graph *g, const ovta_node *n) {
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i] == n) return i;
  unreachable();
}

static bool is_const(const ovta_tensor *t) { return t && t->data != NULL; }

/* ---------------------------------------------------------------- infer, verify */

/* infer: topological order, then shape/type inference of every node. */
static int pass_infer(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_toposort(g, err);
  return rc ? rc : ovta_infer_graph(g, err);
}

/* verify: the structural checks of ovta_graph_verify, and every tensor typed. */
static int pass_verify(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_verify(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_tensors; i++) {
    const ovta_tensor *t = g->tensors[i];
    if ((t->uses || t->producer >= 0) && (t->dtype == OVTA_DT_UNDEF || t->rank < 0))
      return OVTA_FAIL(err, OVTA_EINVAL, "%s: tensor '%s' has no inferred type", g->origin, t->name);
  }
  return OVTA_OK;
}

/* ---------------------------------------------------------------- fold */

#define FOLD_MAX_ELEMS ((int64_t)1 << 24)

/* fold: a node whose inputs are all constant is evaluated (opts->eval, else the reference
 * evaluator) and replaced by constants. Nodes the evaluator does not support stay. */
static int pass_fold(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  ovta_eval_node_fn ev = o->eval ? o->eval : ovta_eval_node_ref;
  for (int i = 0; i < g->n_nodes;) {
    ovta_node *n = g->nodes[i];
    bool all = true;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && !is_const(n->inputs[k])) all = false;
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

/* ---------------------------------------------------------------- dce */

/* dce: remove nodes none of whose outputs reach a graph output, then unused tensors. */
static int pass_dce(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
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

/* ---------------------------------------------------------------- fold-bn */

/* fold-bn: BatchNormalization(Conv(x, W, B)) with constant W, B and BN parameters, the conv
 * output used only by the BN, becomes Conv(x, W', B'):
 *   k[m] = scale[m] / sqrt(var[m] + epsilon)
 *   W'[m, ...] = W[m, ...] * k[m];  B'[m] = (B[m] - mean[m]) * k[m] + bias[m]   (B = 0 if absent) */
static int pass_fold_bn(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *bn = g->nodes[i];
    if (strcmp(bn->op, "BatchNormalization") || bn->n_inputs != 5 || !bn->inputs[0]) continue;
    ovta_tensor *x = bn->inputs[0];
    if (x->producer < 0) continue;
    ovta_node *cv = g->nodes[x->producer];
    bool conv = !strcmp(cv->op, "Conv") || (!strcmp(cv->op, "ovta.Conv") && !strcmp(ovta_node_attr_s(cv, "act", "none"), "none"));
    if (!conv || single_user(g, x) != i) continue;
    ovta_tensor *w = ovta_node_in(cv, 1), *b = ovta_node_in(cv, 2);
    bool ok = is_const(w) && w->dtype == OVTA_DT_F32 && (!b || (is_const(b) && b->dtype == OVTA_DT_F32));
    for (int k = 1; k < 5; k++) ok &= is_const(bn->inputs[k]);
    if (!ok || w->rank < 1) continue;
    int64_t M = w->shape[0], per = ovta_tensor_numel(w) / (M ? M : 1);
    for (int k = 1; k < 5; k++) ok &= ovta_tensor_numel(bn->inputs[k]) == M;
    if (!ok) continue;
    float eps = ovta_node_attr_f(bn, "epsilon", 1e-5f);
    int64_t bs[1] = {M};
    ovta_tensor *w2 = new_const(g, w->name, OVTA_DT_F32, w->rank, w->shape, err);
    ovta_tensor *b2 = w2 ? new_const(g, b ? b->name : "bias", OVTA_DT_F32, 1, bs, err) : NULL;
    if (!b2) return err->code;
    for (int64_t m = 0; m < M; m++) {
      double k = ovta_tensor_get_f(bn->inputs[1], m) / sqrt(ovta_tensor_get_f(bn->inputs[4], m) + eps);
      for (int64_t j = 0; j < per; j++) ovta_tensor_put_f(w2, m * per + j, ovta_tensor_get_f(w, m * per + j) * k);
      double bb = b ? ovta_tensor_get_f(b, m) : 0;
      ovta_tensor_put_f(b2, m, (bb - ovta_tensor_get_f(bn->inputs[3], m)) * k + ovta_tensor_get_f(bn->inputs[2], m));
    }
    if (set_inputs(cv, 3, err)) return err->code;
    cv->inputs[1] = w2;
    cv->inputs[2] = b2;
    cv->outputs[0] = bn->outputs[0];
    ovta_graph_remove_node(g, i);
    if ((rc = ovta_graph_index(g, err))) return rc;
    i--;
  }
  return ovta_graph_gc(g, err);
}

/* ---------------------------------------------------------------- fuse */

/* Absorb an activation consumer into fused node n (act "none" so far). */
static int absorb_act(ovta_graph *g, ovta_node *n, ovta_error *err) {
  int u = single_user(g, n->outputs[0]);
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
    if ((lo && !is_const(lo)) || (hi && !is_const(hi))) return OVTA_OK;
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
  int u = single_user(g, n->outputs[0]);
  if (u < 0) return OVTA_OK;
  ovta_node *a = g->nodes[u];
  if (strcmp(a->op, "Add") || a->n_inputs != 2) return OVTA_OK;
  ovta_tensor *c = a->inputs[0] == n->outputs[0] ? a->inputs[1] : a->inputs[0];
  if (!is_const(c) || c->dtype != OVTA_DT_F32 || ovta_tensor_numel(c) != M) return OVTA_OK;
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
  ovta_tensor *nb = new_const(g, "bias", OVTA_DT_F32, 1, bs, err);
  if (!nb) return err->code;
  for (int64_t m = 0; m < M; m++) ovta_tensor_put_f(nb, m, ovta_tensor_get_f(c, m) + (b ? ovta_tensor_get_f(b, m) : 0));
  if (set_inputs(n, 3, err)) return err->code;
  n->inputs[2] = nb;
  n->outputs[0] = a->outputs[0];
  ovta_graph_remove_node(g, u);
  return ovta_graph_index(g, err);
}

/* Gemm(alpha, beta, transA=0, B const) / MatMul(A 2-D, B const 2-D) -> ovta.Dense with
 * W = (transB ? B : B^T) * alpha and bias beta * C when C is constant [N] / [1, N]. */
static int to_dense(ovta_graph *g, ovta_node *n, ovta_error *err) {
  bool gemm = !strcmp(n->op, "Gemm");
  ovta_tensor *a = ovta_node_in(n, 0), *b = ovta_node_in(n, 1), *c = gemm ? ovta_node_in(n, 2) : NULL;
  if (!a || a->rank != 2 || a->dtype != OVTA_DT_F32 || !is_const(b) || b->rank != 2 || b->dtype != OVTA_DT_F32) return 1;
  if (gemm && ovta_node_attr_i(n, "transA", 0)) return 1;
  bool tb = gemm && ovta_node_attr_i(n, "transB", 0);
  double alpha = gemm ? ovta_node_attr_f(n, "alpha", 1) : 1, beta = gemm ? ovta_node_attr_f(n, "beta", 1) : 1;
  int64_t K = tb ? b->shape[1] : b->shape[0], N = tb ? b->shape[0] : b->shape[1];
  if (c && (!is_const(c) || ovta_tensor_numel(c) != N || (c->rank == 2 && c->shape[0] != 1) || c->rank > 2)) return 1;
  int64_t ws[2] = {N, K}, bs[1] = {N};
  ovta_tensor *w = new_const(g, b->name, OVTA_DT_F32, 2, ws, err);
  if (!w) return err->code;
  for (int64_t i = 0; i < N; i++)
    for (int64_t k = 0; k < K; k++) ovta_tensor_put_f(w, i * K + k, alpha * ovta_tensor_get_f(b, tb ? i * K + k : k * N + i));
  ovta_tensor *nb = NULL;
  if (c) {
    if (!(nb = new_const(g, c->name, OVTA_DT_F32, 1, bs, err))) return err->code;
    for (int64_t i = 0; i < N; i++) ovta_tensor_put_f(nb, i, beta * ovta_tensor_get_f(c, i));
  }
  for (int k = n->n_attrs - 1; k >= 0; k--) ovta_node_del_attr(n, n->attrs[k].name);
  if (set_op(n, "ovta.Dense", err) || set_inputs(n, nb ? 3 : 2, err) || ovta_node_set_s(n, "act", "none", err)) return err->code;
  n->inputs[1] = w;
  if (nb) n->inputs[2] = nb;
  return OVTA_OK;
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
      int u = single_user(g, v);
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
    ovta_node *f = new_node(g, i, "ovta.Eltwise", "eltwise", ne + 1, in, v, err);
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
static int pass_fuse(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool conv = !strcmp(n->op, "Conv");
    if (conv) {
      ovta_tensor *w = ovta_node_in(n, 1);
      if (!w || w->rank < 1 || n->outputs[0]->dtype != OVTA_DT_F32) continue;
      if (set_op(n, "ovta.Conv", err) || ovta_node_set_s(n, "act", "none", err)) return err->code;
    } else if (!strcmp(n->op, "Gemm") || !strcmp(n->op, "MatMul")) {
      if ((rc = to_dense(g, n, err)) > 0) continue;
      if (rc) return rc;
    } else continue;
    int64_t M = conv ? ovta_node_in(n, 1)->shape[0] : ovta_node_in(n, 1)->shape[0];
    if (!ovta_node_in(n, 2) || is_const(ovta_node_in(n, 2)))
      if ((rc = absorb_bias(g, n, M, conv, err))) return rc;
    if ((rc = absorb_act(g, n, err))) return rc;
    i = node_index(g, n);
  }
  if ((rc = fuse_chains(g, err))) return rc;
  return ovta_graph_gc(g, err);
}

/* ---------------------------------------------------------------- quantize */

typedef struct calib {
  float *absmax;  /* per tensor id */
} calib;

static void observe(void *ctx, const ovta_tensor *t, const ovta_tensor *v) {
  calib *c = ctx;
  int64_t n = ovta_tensor_numel(v);
  for (int64_t i = 0; i < n; i++) {
    float a = (float)fabs(ovta_tensor_get_f(v, i));
    if (a > c->absmax[t->id]) c->absmax[t->id] = a;
  }
}

static float const_absmax(const ovta_tensor *t) {
  float m = 0;
  int64_t n = ovta_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) m = fmaxf(m, (float)fabs(ovta_tensor_get_f(t, i)));
  return m;
}

static bool quantizable(const ovta_node *n) {
  if (strcmp(n->op, "ovta.Conv") && strcmp(n->op, "ovta.Dense")) return false;
  const char *a = ovta_node_attr_s(n, "act", "none");
  if (strcmp(a, "none") && strcmp(a, "relu") && strcmp(a, "clip")) return false;
  ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
  return x && x->dtype == OVTA_DT_F32 && is_const(w) && w->dtype == OVTA_DT_F32 && (!b || is_const(b)) && !is_const(x);
}

static bool same_shape(const ovta_tensor *a, const ovta_tensor *b) {
  if (a->rank != b->rank || a->rank < 0) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d] || a->shape[d] < 0) return false;
  return true;
}

/* A residual add the quantize pass can make ovta.QAdd: `Add(A, B)` or `ovta.Eltwise(A, B)` with
 * ops "Add" / "Add,Relu"; A, B non-constant f32 of the output's shape (rank 2 or 4, no
 * broadcasting). *relu tells whether a ReLU follows. */
static bool qadd_match(const ovta_node *n, ovta_tensor **a, ovta_tensor **b, bool *relu) {
  *relu = false;
  if (n->n_outputs != 1 || !n->outputs[0] || n->n_inputs != 2 || !n->inputs[0] || !n->inputs[1]) return false;
  if (!strcmp(n->op, "ovta.Eltwise")) {
    const char *ops = ovta_node_attr_s(n, "ops", "");
    if (!strcmp(ops, "Add,Relu")) *relu = true;
    else if (strcmp(ops, "Add")) return false;
  } else if (strcmp(n->op, "Add")) return false;
  *a = n->inputs[0], *b = n->inputs[1];
  const ovta_tensor *y = n->outputs[0];
  if ((*a)->dtype != OVTA_DT_F32 || (*b)->dtype != OVTA_DT_F32 || y->dtype != OVTA_DT_F32) return false;
  if (is_const(*a) || is_const(*b) || (y->rank != 4 && y->rank != 2)) return false;
  return same_shape(*a, y) && same_shape(*b, y);
}

/* A max pooling the quantize pass can make ovta.QMaxPool: 2-D MaxPool (rank 4) without the
 * Indices output, dilations 1, ceil_mode 0, on a non-constant f32. */
static bool qpool_match(const ovta_node *n) {
  if (strcmp(n->op, "MaxPool") || n->n_inputs != 1 || !n->inputs[0] || n->n_outputs < 1 || !n->outputs[0]) return false;
  if (n->n_outputs > 1 && n->outputs[1]) return false;
  const ovta_tensor *x = n->inputs[0];
  if (x->dtype != OVTA_DT_F32 || x->rank != 4 || is_const(x) || ovta_node_attr_i(n, "ceil_mode", 0) != 0) return false;
  if (ovta_node_attr_i(n, "storage_order", 0) != 0) return false;
  const ovta_attr *d = ovta_node_attr(n, "dilations"), *k = ovta_node_attr(n, "kernel_shape");
  if (!k || k->type != OVTA_ATTR_INTS || k->n != 2) return false;
  if (d && (d->type != OVTA_ATTR_INTS || d->n != 2 || d->ints[0] != 1 || d->ints[1] != 1)) return false;
  return true;
}

enum { QK_NONE = 0, QK_LINEAR, QK_ADD, QK_POOL, QK_FLAT };

/* The quantized twin of float tensor x with exponent ex: the one a quantized producer made, else
 * a new QuantizeLinear inserted before *pos (which moves on). */
static ovta_tensor *q_input(ovta_graph *g, ovta_tensor *x, int ex, int nt0, ovta_tensor **qtwin, int *pos,
                            ovta_error *err) {
  ovta_tensor *xq = x->id < nt0 ? qtwin[x->id] : NULL;
  if (xq && xq->quant.exp == ex) return xq;
  ovta_tensor *sc = new_scalar(g, "scale", OVTA_DT_F32, ldexp(1.0, ex), err);
  ovta_tensor *zp = sc ? new_scalar(g, "zero_point", OVTA_DT_I8, 0, err) : NULL;
  xq = zp ? new_value(g, x->name, OVTA_DT_I8, x, err) : NULL;
  if (!xq) return NULL;
  xq->quant = (ovta_quant){true, ex, 0};
  ovta_tensor *qi[3] = {x, sc, zp};
  if (!new_node(g, *pos, "QuantizeLinear", "quantize", 3, qi, xq, err)) return NULL;
  (*pos)++;
  if (x->id < nt0) qtwin[x->id] = xq;
  return xq;
}

/* Node at *pos now produces yq (int8, exponent ey) instead of float y: remember the twin and
 * insert a DequantizeLinear restoring y for float users after it (*pos moves to it). */
static int q_output(ovta_graph *g, ovta_node *n, ovta_tensor *y, int ey, int nt0, ovta_tensor **qtwin, int *pos,
                    ovta_error *err) {
  ovta_tensor *yq = new_value(g, y->name, OVTA_DT_I8, y, err);
  if (!yq) return err->code;
  yq->quant = (ovta_quant){true, ey, 0};
  n->outputs[0] = yq;
  if (y->id < nt0) qtwin[y->id] = yq;
  ovta_tensor *sc = new_scalar(g, "scale", OVTA_DT_F32, ldexp(1.0, ey), err);
  ovta_tensor *zp = sc ? new_scalar(g, "zero_point", OVTA_DT_I8, 0, err) : NULL;
  ovta_tensor *di[3] = {yq, sc, zp};
  if (!zp || !new_node(g, *pos + 1, "DequantizeLinear", "dequantize", 3, di, y, err)) return err->code ? err->code : OVTA_ENOMEM;
  (*pos)++;
  return OVTA_OK;
}

/* quantize: ovta.Conv / ovta.Dense with activation none/relu/clip become ovta.QConv /
 * ovta.QDense (graph.h): symmetric per-tensor int8 with power-of-two scales. Exponents:
 *   activations: the tensor's "quant" annotation if present, else from the calibration range
 *     (max |x| over opts->calib samples run through opts->eval): ovta_quant_exp_for(absmax);
 *   weights: ovta_quant_exp_for(max |W|);  bias: int32 with exp(X) + exp(W);
 *   shift = exp(Y) - exp(X) - exp(W); clip: relu [0, 127], clip [q(min), q(max)], none [-127, 127].
 * Then residual adds and max pools fed by quantized values (qadd_match / qpool_match, at least
 * one input produced quantized) become ovta.QAdd / ovta.QMaxPool: an input produced quantized is
 * used as it is (its exponent), e0 = min(exp(A), exp(B)) (|exp(A) - exp(B)| <= 16, else the add
 * stays float), shift_a/shift_b align to e0, shift = exp(Y) - e0, clip [0, 127] with ReLU else
 * [-127, 127]; a max pool keeps its input's exponent, and so does a Flatten of a quantized value
 * (int8 Flatten). A conv/dense input produced quantized is used at its exponent. A QuantizeLinear (scale 2^e, zero point
 * 0, int8) feeds each quantized input that is not already produced quantized; a
 * DequantizeLinear restores the float value for other users (dce removes the unused ones). */
static int pass_quantize(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int nt0 = g->n_tensors, nn0 = g->n_nodes;
  int *texp = calloc((size_t)nt0 + 1, sizeof *texp);
  char *have = calloc((size_t)nt0 + 1, 1), *willq = calloc((size_t)nt0 + 1, 1), *kind = calloc((size_t)nn0 + 1, 1);
  ovta_tensor **qtwin = calloc((size_t)nt0 + 1, sizeof *qtwin);
  ovta_node **orig = calloc((size_t)nn0 + 1, sizeof *orig);
  calib cb = {calloc((size_t)nt0 + 1, sizeof(float))};
  if (!texp || !have || !willq || !kind || !qtwin || !orig || !cb.absmax) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    goto done;
  }
  /* which nodes become quantized (in order: an add/pool needs a quantized producer), which
   * activation tensors need an exponent, and which lack an annotation */
  const ovta_tensor *missing = NULL;
  for (int i = 0; i < nn0; i++) {
    ovta_node *n = orig[i] = g->nodes[i];
    ovta_tensor *ts[3] = {0}, *a, *b;
    bool relu;
    if (quantizable(n)) kind[i] = QK_LINEAR, ts[0] = n->inputs[0], ts[1] = n->outputs[0];
    else if (qadd_match(n, &a, &b, &relu) && (willq[a->id] || willq[b->id]))
      kind[i] = QK_ADD, ts[0] = a, ts[1] = b, ts[2] = n->outputs[0];
    else if (qpool_match(n) && willq[n->inputs[0]->id]) kind[i] = QK_POOL, ts[0] = n->inputs[0];
    else if (!strcmp(n->op, "Flatten") && n->n_inputs == 1 && n->inputs[0] && n->n_outputs == 1 && n->outputs[0] &&
             n->inputs[0]->dtype == OVTA_DT_F32 && willq[n->inputs[0]->id])
      kind[i] = QK_FLAT; /* data movement: int8 in, int8 out, same exponent */
    else continue;
    willq[n->outputs[0]->id] = 1;
    for (int k = 0; k < 3; k++) {
      if (!ts[k]) continue;
      if (ts[k]->quant.valid) have[ts[k]->id] = 1, texp[ts[k]->id] = ts[k]->quant.exp;
      else if (!missing) missing = ts[k];
    }
  }
  if (missing) {
    if (o->n_calib <= 0) {
      rc = OVTA_FAIL(err, OVTA_EINVAL,
                     "%s: tensor '%s' needs a quantization scale: give calibration samples or a \"quant\" annotation",
                     g->origin, missing->name);
      goto done;
    }
    for (int s = 0; s < o->n_calib; s++)
      if ((rc = ovta_graph_run(g, o->eval, o->eval_ctx, o->calib[s], observe, &cb, NULL, err))) {
        ovta_error_wrap(err, "calibration sample %d", s);
        goto done;
      }
    for (int i = 0; i < nt0; i++)
      if (!have[i]) texp[i] = ovta_quant_exp_for(cb.absmax[i]), have[i] = 1;
  }
  for (int j = 0; j < nn0; j++) {
    if (!kind[j]) continue;
    ovta_node *n = orig[j];
    int i = node_index(g, n);
    if (kind[j] == QK_FLAT) {
      ovta_tensor *x = n->inputs[0], *y = n->outputs[0];
      ovta_tensor *xq = x->id < nt0 ? qtwin[x->id] : NULL;
      if (!xq) continue; /* its producer stayed float */
      if (y->dtype != OVTA_DT_F32) continue;
      n->inputs[0] = xq;
      if (q_output(g, n, y, xq->quant.exp, nt0, qtwin, &i, err)) goto fail;
      continue;
    }
    if (kind[j] == QK_POOL) {
      ovta_tensor *x = n->inputs[0], *y = n->outputs[0];
      ovta_tensor *xq = x->id < nt0 ? qtwin[x->id] : NULL;
      int ex = xq ? xq->quant.exp : texp[x->id];
      if (!(xq = q_input(g, x, ex, nt0, qtwin, &i, err))) goto fail;
      if (set_op(n, "ovta.QMaxPool", err)) goto fail;
      ovta_node_del_attr(n, "storage_order");
      if (set_inputs(n, 1, err)) goto fail;
      n->n_outputs = 1;
      n->inputs[0] = xq;
      if (q_output(g, n, y, ex, nt0, qtwin, &i, err)) goto fail;
      continue;
    }
    if (kind[j] == QK_ADD) {
      ovta_tensor *a, *b, *y = n->outputs[0];
      bool relu;
      if (!qadd_match(n, &a, &b, &relu)) continue;
      ovta_tensor *aq = a->id < nt0 ? qtwin[a->id] : NULL, *bq = b->id < nt0 ? qtwin[b->id] : NULL;
      int ea = aq ? aq->quant.exp : texp[a->id], eb = bq ? bq->quant.exp : texp[b->id], ey = texp[y->id];
      if (ea - eb > 16 || eb - ea > 16) continue; /* scales too far apart: stays float */
      int e0 = ea < eb ? ea : eb;
      if (!(aq = q_input(g, a, ea, nt0, qtwin, &i, err)) || !(bq = q_input(g, b, eb, nt0, qtwin, &i, err))) goto fail;
      if (set_op(n, "ovta.QAdd", err)) goto fail;
      ovta_node_del_attr(n, "ops");
      if (ovta_node_set_i(n, "shift_a", ea - e0, err) || ovta_node_set_i(n, "shift_b", eb - e0, err) ||
          ovta_node_set_i(n, "shift", ey - e0, err) || ovta_node_set_i(n, "clip_min", relu ? 0 : -127, err) ||
          ovta_node_set_i(n, "clip_max", 127, err))
        goto fail;
      n->inputs[0] = aq, n->inputs[1] = bq;
      if (q_output(g, n, y, ey, nt0, qtwin, &i, err)) goto fail;
      continue;
    }
    ovta_tensor *x = n->inputs[0], *w = n->inputs[1], *b = ovta_node_in(n, 2), *y = n->outputs[0];
    ovta_tensor *xq = x->id < nt0 ? qtwin[x->id] : NULL;
    /* an input produced quantized (e.g. by a max pool or a flatten keeping their input's scale)
     * is taken at its exponent */
    int ex = xq ? xq->quant.exp : texp[x->id], ey = texp[y->id], ew = ovta_quant_exp_for(const_absmax(w));
    xq = q_input(g, x, ex, nt0, qtwin, &i, err);
    if (!xq) goto fail;
    /* weights and bias */
    ovta_tensor *wq = new_const(g, w->name, OVTA_DT_I8, w->rank, w->shape, err);
    if (!wq) goto fail;
    wq->quant = (ovta_quant){true, ew, 0};
    int64_t nw = ovta_tensor_numel(w);
    for (int64_t k = 0; k < nw; k++) ((int8_t *)wq->data)[k] = ovta_quant_i8((float)ovta_tensor_get_f(w, k), ew);
    ovta_tensor *bq = NULL;
    if (b) {
      if (!(bq = new_const(g, b->name, OVTA_DT_I32, b->rank, b->shape, err))) goto fail;
      bq->quant = (ovta_quant){true, ex + ew, 0};
      int64_t nb = ovta_tensor_numel(b);
      for (int64_t k = 0; k < nb; k++) ((int32_t *)bq->data)[k] = ovta_quant_i32((float)ovta_tensor_get_f(b, k), ex + ew);
    }
    /* requantization */
    const char *a = ovta_node_attr_s(n, "act", "none");
    int lo = -127, hi = 127;
    if (!strcmp(a, "relu")) lo = 0;
    else if (!strcmp(a, "clip")) {
      lo = ovta_quant_i8(ovta_node_attr_f(n, "act_min", -INFINITY), ey);
      hi = ovta_quant_i8(ovta_node_attr_f(n, "act_max", INFINITY), ey);
    }
    bool conv = !strcmp(n->op, "ovta.Conv");
    const char *drop[] = {"act", "act_min", "act_max", "act_alpha", "act_beta"};
    for (int k = 0; k < 5; k++) ovta_node_del_attr(n, drop[k]);
    if (set_op(n, conv ? "ovta.QConv" : "ovta.QDense", err) || ovta_node_set_i(n, "shift", ey - ex - ew, err) ||
        ovta_node_set_i(n, "clip_min", lo, err) || ovta_node_set_i(n, "clip_max", hi, err))
      goto fail;
    n->inputs[0] = xq, n->inputs[1] = wq;
    if (b) n->inputs[2] = bq;
    if (q_output(g, n, y, ey, nt0, qtwin, &i, err)) goto fail;
  }
  rc = ovta_graph_index(g, err);
  goto done;
fail:
  rc = err->code ? err->code : OVTA_ENOMEM;
done:
  free(texp);
  free(have);
  free(willq);
  free(kind);
  free(qtwin);
  free(orig);
  free(cb.absmax);
  if (rc) return rc;
  return pass_dce(g, o, err);
}

/* ---------------------------------------------------------------- pack */

static void cfg_blocks(const ovta_compile_opts *o, int64_t *bt, int64_t *bi, int64_t *bo) {
  *bt = o->cfg ? o->cfg->batch : 1;
  *bi = o->cfg ? o->cfg->block_in : 16;
  *bo = o->cfg ? o->cfg->block_out : 16;
}

/* Weight [O, I, KH, KW] (or [O, I]) -> [O/bo, I/bi, KH, KW, bo, bi], zero padded. */
static ovta_tensor *pack_wgt(ovta_graph *g, const ovta_tensor *w, int64_t bi, int64_t bo, ovta_error *err) {
  int64_t O = w->shape[0], I = w->shape[1], KH = w->rank == 4 ? w->shape[2] : 1, KW = w->rank == 4 ? w->shape[3] : 1;
  int64_t s[6] = {(O + bo - 1) / bo, (I + bi - 1) / bi, KH, KW, bo, bi};
  ovta_tensor *p = new_const(g, w->name, w->dtype, 6, s, err);
  if (!p) return NULL;
  p->layout = OVTA_LAYOUT_WGT;
  p->logical_rank = w->rank;
  memcpy(p->logical, w->shape, sizeof p->logical);
  p->quant = w->quant;
  for (int64_t o = 0; o < O; o++)
    for (int64_t i = 0; i < I; i++)
      for (int64_t h = 0; h < KH; h++)
        for (int64_t x = 0; x < KW; x++) {
          int64_t src = ((o * I + i) * KH + h) * KW + x;
          int64_t dst = ((((o / bo) * s[1] + i / bi) * KH + h) * KW + x) * bo * bi + (o % bo) * bi + i % bi;
          ((int8_t *)p->data)[dst] = ((const int8_t *)w->data)[src];
        }
  return p;
}

/* Pack an ALU operator (ovta.QAdd, ovta.QMaxPool) at *pi: its activation inputs through ovta.Pack
 * (or the packed twin a packed producer made), the output in the act layout with channel
 * blocks of block_in, an ovta.Unpack for plain users. Needs block_in == block_out (the
 * accelerator copies through an identity weight block); rank 4 (QAdd also rank 2). */
static int pack_alu(ovta_graph *g, int *pi, int64_t bt, int64_t bi, int64_t bo, int nt0, ovta_tensor **twin,
                    ovta_error *err) {
  ovta_node *n = g->nodes[*pi];
  bool add = !strcmp(n->op, "ovta.QAdd");
  int ni = add ? 2 : 1;
  ovta_tensor *y = n->outputs[0];
  if (bi != bo || n->n_inputs != ni || !y || (y->rank != 4 && !(add && y->rank == 2)) || ovta_tensor_numel(y) < 0)
    return OVTA_OK;
  for (int k = 0; k < ni; k++) {
    ovta_tensor *x = n->inputs[k];
    if (!x || x->layout != OVTA_LAYOUT_PLAIN || x->rank != y->rank || ovta_tensor_numel(x) < 0) return OVTA_OK;
  }
  for (int k = 0; k < ni; k++) {
    ovta_tensor *x = n->inputs[k];
    ovta_tensor *xp = x->id >= 0 && x->id < nt0 ? twin[x->id] : NULL;
    if (!xp) {
      if (!(xp = new_value(g, x->name, x->dtype, NULL, err))) return err->code;
      ovta_node *pk = new_node(g, *pi, "ovta.Pack", "pack", 1, &x, xp, err);
      if (!pk || ovta_node_set_s(pk, "layout", "act", err) || ovta_node_set_i(pk, "batch", bt, err) ||
          ovta_node_set_i(pk, "block_in", bi, err) || ovta_node_set_i(pk, "block_out", bo, err) ||
          ovta_infer_node(g, pk, err))
        return err->code ? err->code : OVTA_ENOMEM;
      (*pi)++;
      if (x->id >= 0 && x->id < nt0) twin[x->id] = xp;
    }
    n->inputs[k] = xp;
  }
  ovta_tensor *yp = new_value(g, y->name, y->dtype, NULL, err);
  if (!yp) return err->code;
  int64_t N = y->shape[0], C = y->shape[1], H = y->rank == 4 ? y->shape[2] : 1, W = y->rank == 4 ? y->shape[3] : 1;
  int64_t ys[6] = {(N + bt - 1) / bt, (C + bi - 1) / bi, H, W, bt, bi};
  yp->dtype = y->dtype, yp->rank = 6, memcpy(yp->shape, ys, sizeof ys);
  yp->layout = OVTA_LAYOUT_ACT, yp->logical_rank = y->rank, memcpy(yp->logical, y->shape, sizeof yp->logical);
  yp->quant = y->quant;
  n->outputs[0] = yp;
  if (y->id >= 0 && y->id < nt0) twin[y->id] = yp;
  ovta_node *up = new_node(g, *pi + 1, "ovta.Unpack", "unpack", 1, &yp, y, err);
  if (!up || ovta_node_set_ints(up, "shape", y->shape, y->rank, err)) return err->code ? err->code : OVTA_ENOMEM;
  (*pi)++;
  return OVTA_OK;
}

/* pack: ovta.QConv (group 1, 2-D) and ovta.QDense move to the accelerator's blocked layouts
 * (ovta_layout in graph.h) for opts->cfg's batch, block_in, block_out: weights and bias are
 * repacked as constants (zero padded), activations go through ovta.Pack, and an ovta.Unpack
 * restores the plain value for users that are not packed ops (dce removes unused ones).
 * Consecutive packed ops pass the packed tensor directly when block_in == block_out. */
static int pass_pack(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int64_t bt, bi, bo;
  cfg_blocks(o, &bt, &bi, &bo);
  int nt0 = g->n_tensors;
  ovta_tensor **twin = calloc((size_t)nt0 + 1, sizeof *twin);
  if (!twin) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool conv = !strcmp(n->op, "ovta.QConv");
    if (!strcmp(n->op, "ovta.QAdd") || !strcmp(n->op, "ovta.QMaxPool")) {
      if ((rc = pack_alu(g, &i, bt, bi, bo, nt0, twin, err))) {
        free(twin);
        return rc;
      }
      continue;
    }
    if (!conv && strcmp(n->op, "ovta.QDense")) continue;
    ovta_tensor *x = n->inputs[0], *w = n->inputs[1], *b = ovta_node_in(n, 2), *y = n->outputs[0];
    if (x->layout != OVTA_LAYOUT_PLAIN || !is_const(w) || (b && !is_const(b))) continue;
    if (conv && (x->rank != 4 || ovta_node_attr_i(n, "group", 1) != 1)) continue;
    if (ovta_tensor_numel(x) < 0) continue;
    ovta_tensor *xp = x->id < nt0 && bi == bo ? twin[x->id] : NULL;
    if (!xp) {
      if (!(xp = new_value(g, x->name, x->dtype, NULL, err))) goto fail;
      ovta_node *pk = new_node(g, i, "ovta.Pack", "pack", 1, &x, xp, err);
      if (!pk || ovta_node_set_s(pk, "layout", "act", err) || ovta_node_set_i(pk, "batch", bt, err) ||
          ovta_node_set_i(pk, "block_in", bi, err) || ovta_node_set_i(pk, "block_out", bo, err) ||
          ovta_infer_node(g, pk, err))
        goto fail;
      i++;
    }
    ovta_tensor *wp = pack_wgt(g, w, bi, bo, err);
    if (!wp) goto fail;
    ovta_tensor *bp = NULL;
    if (b) {
      int64_t s[2] = {(b->shape[0] + bo - 1) / bo, bo};
      if (!(bp = new_const(g, b->name, b->dtype, 2, s, err))) goto fail;
      memcpy(bp->data, b->data, b->nbytes);
      bp->layout = OVTA_LAYOUT_ACC, bp->logical_rank = 1, bp->logical[0] = b->shape[0], bp->quant = b->quant;
    }
    ovta_tensor *yp = new_value(g, y->name, y->dtype, NULL, err);
    if (!yp) goto fail;
    int64_t N = y->shape[0], C = y->shape[1], H = y->rank == 4 ? y->shape[2] : 1, W = y->rank == 4 ? y->shape[3] : 1;
    int64_t ys[6] = {(N + bt - 1) / bt, (C + bo - 1) / bo, H, W, bt, bo};
    yp->dtype = y->dtype, yp->rank = 6, memcpy(yp->shape, ys, sizeof ys);
    yp->layout = OVTA_LAYOUT_ACT, yp->logical_rank = y->rank, memcpy(yp->logical, y->shape, sizeof yp->logical);
    yp->quant = y->quant;
    n->inputs[0] = xp, n->inputs[1] = wp;
    if (b) n->inputs[2] = bp;
    n->outputs[0] = yp;
    if (y->id < nt0) twin[y->id] = yp;
    ovta_node *up = new_node(g, i + 1, "ovta.Unpack", "unpack", 1, &yp, y, err);
    if (!up || ovta_node_set_ints(up, "shape", y->shape, y->rank, err)) goto fail;
    i++;
  }
  free(twin);
  return pass_dce(g, o, err);
fail:
  free(twin);
  return err->code ? err->code : OVTA_ENOMEM;
}

/* ---------------------------------------------------------------- partition */

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
  if (ovta_node_attr_i(n, "group", 1) != 1) return false;
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
static int pass_partition(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
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

/* ---------------------------------------------------------------- pipeline */

static const ovta_pass PASSES[] = {
    {"infer", "topological order, shape/type inference, explicit Conv/pool attributes", pass_infer},
    {"fold", "evaluate nodes whose inputs are all constant", pass_fold},
    {"dce", "remove nodes that do not reach a graph output, and unused tensors", pass_dce},
    {"fold-bn", "fold BatchNormalization into the preceding Conv", pass_fold_bn},
    {"fuse", "Conv/Gemm/MatMul + bias + activation -> ovta.Conv/ovta.Dense; elementwise chains -> ovta.Eltwise", pass_fuse},
    {"quantize", "int8 power-of-two quantization: ovta.Conv/Dense -> ovta.QConv/QDense, residual Add -> ovta.QAdd, MaxPool -> ovta.QMaxPool", pass_quantize},
    {"pack", "blocked accelerator layouts for ovta.QConv/QDense/QAdd/QMaxPool (ovta.Pack/Unpack)", pass_pack},
    {"partition", "assign accel/cpu targets and regions", pass_partition},
    {"verify", "structural checks; every used tensor typed", pass_verify},
};

const char ovta_default_pipeline[] = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,verify";
const char ovta_accel_pipeline[] = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,pack,partition,verify";

const ovta_pass *ovta_passes(int *n) {
  *n = (int)(sizeof PASSES / sizeof PASSES[0]);
  return PASSES;
}

const ovta_pass *ovta_pass_find(const char *name) {
  for (size_t i = 0; i < sizeof PASSES / sizeof PASSES[0]; i++)
    if (!strcmp(PASSES[i].name, name)) return &PASSES[i];
  return NULL;
}

static bool listed(const char *list, const char *name) {
  if (!list) return false;
  if (!strcmp(list, "all")) return true;
  size_t l = strlen(name);
  for (const char *p = list; *p;) {
    const char *q = strchr(p, ',');
    size_t m = q ? (size_t)(q - p) : strlen(p);
    if (m == l && !strncmp(p, name, l)) return true;
    p = q ? q + 1 : p + m;
  }
  return false;
}

int ovta_compile_pipeline(ovta_graph *g, const ovta_compile_opts *opts, ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  ovta_compile_opts none = {0};
  if (!opts) opts = &none;
  const char *list = opts->passes ? opts->passes : ovta_default_pipeline;
  FILE *dump = opts->dump ? opts->dump : stderr;
  /* check every name first, so a typo fails before any work */
  for (const char *p = list; *p;) {
    const char *q = strchr(p, ',');
    size_t m = q ? (size_t)(q - p) : strlen(p);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(m < 63 ? m : 63), p);
    if (m && !ovta_pass_find(name)) return OVTA_FAIL(err, OVTA_EINVAL, "unknown pass '%s'", name);
    p = q ? q + 1 : p + m;
  }
  for (const char *p = list; *p;) {
    const char *q = strchr(p, ',');
    size_t m = q ? (size_t)(q - p) : strlen(p);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(m < 63 ? m : 63), p);
    p = q ? q + 1 : p + m;
    if (!m) continue;
    const ovta_pass *ps = ovta_pass_find(name);
    ovta_error_clear(err);
    int rc = ps->run(g, opts, err);
    if (!rc) rc = ovta_graph_verify(g, err);
    if (rc) return ovta_error_wrap(err, "pass %s", name);
    if (listed(opts->print_after, name)) {
      fprintf(dump, "// after %s\n", name);
      ovta_graph_dump(dump, g);
    }
  }
  return OVTA_OK;
}
