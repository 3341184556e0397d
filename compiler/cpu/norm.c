/* norm.c: normalizations: BatchNormalization (inference), Softmax, LogSoftmax, Hardmax,
 * LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization, and the losses
 * NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. Statistics and sums run in f64. */

#include "cpu_internal.h"

/* BatchNormalization (inference; X, scale, B, mean, var): y = (x - mean[c]) / sqrt(var[c] + epsilon)
 * * scale[c] + B[c], c the dim-1 index; epsilon default 1e-5. training_mode = 1 unsupported. */
static int lower_batchnorm(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  for (int i = 0; i < 5; i++)
    if (!l->in[i]) return bad(l, "missing input");
  if (!Y) return bad(l, "missing output");
  if (ovta_node_attr_i(l->n, "training_mode", 0) || l->out[1] || l->out[2]) return unsup(l, "training_mode");
  if (X->ndim < 2 || !lir_dtype_is_float(X->dtype)) return unsup(l, "input not float of rank >= 2");
  int64_t C = X->shape[1], nc = X->shape[0] * C, inner = nc > 0 ? lir_buf_numel(X) / nc : 0;
  int64_t sh[3] = {X->shape[0], C, inner};
  view(X, 3, sh);
  view(Y, 3, sh);
  double eps = ovta_node_attr_f(l->n, "epsilon", 1e-5f);
  lir_dtype t = X->dtype;
  lir_nest n;
  lir_nest_open(F, &n, 3, sh, "i");
  lir_expr *c = n.idx[1];
  lir_expr *den = lir_call1(F, LIR_SQRT, lir_add(F, lir_load1(F, l->in[4], c), cst(l, t, eps)));
  lir_expr *v = lir_bin(F, LIR_DIV, lir_sub(F, lir_load(F, X, n.idx), lir_load1(F, l->in[3], c)), den);
  v = lir_add(F, lir_mul(F, v, lir_load1(F, l->in[1], c)), lir_load1(F, l->in[2], c));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* Softmax: y = exp(x - max) / sum(exp(x - max)) over `axis` (opset >= 13, default -1), or over
 * all dims from `axis` on (opset < 13, default 1: the input coerced to 2-D). */
static int lower_softmax(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(X->dtype)) return unsup(l, "integer input");
  int r = X->ndim;
  bool old = l->g->opset && l->g->opset < 13;
  int axis = norm_axis(ovta_node_attr_i(l->n, "axis", old ? 1 : -1), r);
  if (axis < 0 || axis >= (r ? r : 1)) return bad(l, "axis out of range");
  int64_t outer = 1, red = 1, inner = 1;
  for (int d = 0; d < r; d++) {
    if (d < axis) outer *= X->shape[d];
    else if (d == axis || old) red *= X->shape[d];
    else inner *= X->shape[d];
  }
  int64_t sh[3] = {outer, red, inner};
  view(X, 3, sh);
  view(Y, 3, sh);
  lir_dtype t = X->dtype;
  lir_var *o = lir_var_new(F, "o", LIR_I64), *in = lir_var_new(F, "in", LIR_I64);
  lir_var *k1 = lir_var_new(F, "k", LIR_I64), *k2 = lir_var_new(F, "k", LIR_I64), *k3 = lir_var_new(F, "k", LIR_I64);
  lir_buf *mx = lir_buf_new(F, "mx", t, 0, NULL, LIR_SCOPE_LOCAL), *sm = lir_buf_new(F, "sum", t, 0, NULL, LIR_SCOPE_LOCAL);
  lir_expr *oo = lir_ref(F, o), *ii = lir_ref(F, in);
#define XI(k) (lir_expr *[]){oo, lir_ref(F, k), ii}
  lir_stmt *s[6] = {
      lir_store(F, mx, NULL, cst(l, t, -INFINITY)),
      lir_for(F, k1, I(0), I(red), LIR_FOR_SERIAL, lir_store(F, mx, NULL, lir_max(F, lir_load(F, mx, NULL), lir_load(F, X, XI(k1))))),
      lir_store(F, sm, NULL, cst(l, t, 0)),
      lir_for(F, k2, I(0), I(red), LIR_FOR_SERIAL, NULL),
      lir_for(F, k3, I(0), I(red), LIR_FOR_SERIAL,
              lir_store(F, Y, XI(k3), lir_bin(F, LIR_DIV, lir_load(F, Y, XI(k3)), lir_load(F, sm, NULL)))),
      NULL};
  lir_expr *e = lir_call1(F, LIR_EXP, lir_sub(F, lir_load(F, X, XI(k2)), lir_load(F, mx, NULL)));
  lir_var *ev = lir_var_new(F, "e", t);
  s[3]->body = lir_let(F, ev, e,
                       lir_seq(F, 2, (lir_stmt *[]){lir_store(F, Y, XI(k2), lir_ref(F, ev)),
                                                    lir_store(F, sm, NULL, lir_add(F, lir_load(F, sm, NULL), lir_ref(F, ev)))}));
#undef XI
  lir_stmt *body = lir_alloc_stmt(F, mx, lir_alloc_stmt(F, sm, lir_seq(F, 5, s)));
  F->body = lir_for(F, o, I(0), I(outer), LIR_FOR_SERIAL, lir_for(F, in, I(0), I(inner), LIR_FOR_SERIAL, body));
  return 0;
}

/* The outer/reduced/inner split of a softmax-like op: opset < 13 coerces to 2-D over axis..r-1
 * (default axis 1), 13+ normalizes over axis alone (default -1). */
static int softmax_split(L *l, int64_t sh[3]) {
  lir_buf *X = l->in[0];
  int r = X->ndim;
  bool old = l->g->opset && l->g->opset < 13;
  int axis = norm_axis(ovta_node_attr_i(l->n, "axis", old ? 1 : -1), r);
  if (axis < 0 || axis >= (r ? r : 1)) return bad(l, "axis out of range");
  sh[0] = sh[1] = sh[2] = 1;
  for (int d = 0; d < r; d++) sh[d < axis ? 0 : d == axis || old ? 1 : 2] *= X->shape[d];
  return 0;
}

/* LogSoftmax: y = x - m - log(sum(exp(x - m))), m the max, over the axis (opset >= 13) or the
 * dims axis.. (opset < 13, coerced 2-D). Hardmax: y = 1 at the first maximum, else 0, over the
 * same elements. */
static int lower_softmax_like(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(X->dtype)) return unsup(l, "integer input");
  int64_t sh[3], so[2];
  if (softmax_split(l, sh)) return l->err->code;
  view(X, 3, sh);
  view(Y, 3, sh);
  so[0] = sh[0], so[1] = sh[2];
  if (sh[1] == 0) return 0;
  lir_dtype t = X->dtype;
  lir_nest n;
  lir_nest_open(F, &n, 2, so, "i");
  lir_var *k[3];
  lir_expr *x[3];
  for (int i = 0; i < 3; i++) {
    k[i] = lir_var_new(F, "k", LIR_I64);
    x[i] = lir_load(F, X, (lir_expr *[]){n.idx[0], lir_ref(F, k[i]), n.idx[1]});
  }
  lir_expr *yi = NULL;
  lir_stmt *body;
  lir_buf *mx = sc_new(l, "mx", t), *b2;
  if (!strcmp(l->n->op, "Hardmax")) {
    b2 = sc_new(l, "bi", LIR_I64);
    lir_var *v = lir_var_new(F, "v", t);
    lir_stmt *upd = lir_let(F, v, x[0],
                            lir_if(F, lir_bin(F, LIR_GT, lir_ref(F, v), sc_get(l, mx)),
                                   SEQ(sc_set(l, mx, lir_ref(F, v)), sc_set(l, b2, lir_ref(F, k[0]))), NULL));
    yi = lir_select(F, lir_bin(F, LIR_EQ, lir_ref(F, k[1]), sc_get(l, b2)), cst(l, t, 1), cst(l, t, 0));
    body = SEQ(sc_set(l, mx, lir_load(F, X, (lir_expr *[]){n.idx[0], I(0), n.idx[1]})), sc_set(l, b2, I(0)),
               lir_for(F, k[0], I(1), I(sh[1] - 1), LIR_FOR_SERIAL, upd),
               lir_for(F, k[1], I(0), I(sh[1]), LIR_FOR_SERIAL,
                       lir_store(F, Y, (lir_expr *[]){n.idx[0], lir_ref(F, k[1]), n.idx[1]}, yi)));
  } else {
    b2 = sc_new(l, "sum", LIR_F64);
    lir_expr *m64 = as_type(l, LIR_F64, sc_get(l, mx));
    lir_expr *lse = lir_add(F, m64, lir_call1(F, LIR_LOG, sc_get(l, b2)));
    body = SEQ(sc_set(l, mx, cst(l, t, -INFINITY)),
               lir_for(F, k[0], I(0), I(sh[1]), LIR_FOR_SERIAL, sc_set(l, mx, lir_max(F, sc_get(l, mx), x[0]))),
               sc_set(l, b2, cst(l, LIR_F64, 0)),
               lir_for(F, k[1], I(0), I(sh[1]), LIR_FOR_SERIAL,
                       sc_set(l, b2, lir_add(F, sc_get(l, b2), lir_call1(F, LIR_EXP, lir_sub(F, as_type(l, LIR_F64, x[1]), m64))))),
               lir_for(F, k[2], I(0), I(sh[1]), LIR_FOR_SERIAL,
                       lir_store(F, Y, (lir_expr *[]){n.idx[0], lir_ref(F, k[2]), n.idx[1]},
                                 as_type(l, t, lir_sub(F, as_type(l, LIR_F64, x[2]), lse)))));
  }
  F->body = lir_nest_close(F, &n, lir_alloc_stmt(F, mx, lir_alloc_stmt(F, b2, body)), LIR_FOR_SERIAL);
  return 0;
}

/* The index of X from the kept dims' indices kidx and the reduced dims' ridx (mask: reduced). */
static void merge_idx(int r, const bool *mask, lir_expr **kidx, lir_expr **ridx, lir_expr **xi) {
  for (int d = 0, k = 0, j = 0; d < r; d++) xi[d] = mask[d] ? ridx[j++] : kidx[k++];
}

/* Statements setting mean and inv (f64 scalars) from X over the dims in mask at the kept
 * indices kidx: mean, var = mean((x - mean)^2), inv = 1 / sqrt(var + eps) (or, mvn,
 * 1 / (sqrt(var) + eps)). */
static lir_stmt *moments(L *l, lir_buf *X, const bool *mask, lir_expr **kidx, double eps, bool mvn, lir_buf *mean,
                         lir_buf *inv) {
  int r = X->ndim, nr = 0;
  int64_t rext[LIR_MAX_DIMS], cnt = 1;
  for (int d = 0; d < r; d++)
    if (mask[d]) rext[nr++] = X->shape[d], cnt *= X->shape[d];
  lir_nest a, b;
  lir_nest_open(F, &a, nr, rext, "k");
  lir_nest_open(F, &b, nr, rext, "k");
  lir_expr *xa[LIR_MAX_DIMS], *xb[LIR_MAX_DIMS];
  merge_idx(r, mask, kidx, a.idx, xa);
  merge_idx(r, mask, kidx, b.idx, xb);
  lir_expr *va = as_type(l, LIR_F64, lir_load(F, X, xa));
  lir_expr *dv = lir_sub(F, as_type(l, LIR_F64, lir_load(F, X, xb)), sc_get(l, mean));
  lir_expr *var = lir_bin(F, LIR_DIV, sc_get(l, inv), cst(l, LIR_F64, (double)cnt));
  lir_expr *den = mvn ? lir_add(F, lir_call1(F, LIR_SQRT, var), cst(l, LIR_F64, eps))
                      : lir_call1(F, LIR_SQRT, lir_add(F, var, cst(l, LIR_F64, eps)));
  return SEQ(sc_set(l, mean, cst(l, LIR_F64, 0)),
             lir_nest_close(F, &a, sc_set(l, mean, lir_add(F, sc_get(l, mean), va)), LIR_FOR_SERIAL),
             sc_set(l, mean, lir_bin(F, LIR_DIV, sc_get(l, mean), cst(l, LIR_F64, (double)cnt))),
             sc_set(l, inv, cst(l, LIR_F64, 0)),
             lir_nest_close(F, &b, sc_set(l, inv, lir_add(F, sc_get(l, inv), lir_mul(F, dv, dv))), LIR_FOR_SERIAL),
             sc_set(l, inv, lir_bin(F, LIR_DIV, cst(l, LIR_F64, 1), den)));
}

/* LayerNormalization: over the dims axis.. (default -1): Y = (X - mean) * inv * Scale + B with
 * inv = 1 / sqrt(var + epsilon) (epsilon default 1e-5), Scale and B broadcast (right-aligned) to
 * those dims; Mean and InvStdDev (optional) get mean and inv per leading index.
 * InstanceNormalization: over the dims 2.. per (n, c): Y = (X - mean) * inv * scale[c] + B[c].
 * MeanVarianceNormalization: over `axes` (default [0, 2, 3]): Y = (X - mean) / (sqrt(var) + 1e-9). */
static int lower_layernorm(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(X->dtype)) return unsup(l, "integer input");
  const char *op = l->n->op;
  int r = X->ndim, kind = !strcmp(op, "LayerNormalization") ? 0 : !strcmp(op, "InstanceNormalization") ? 1 : 2;
  bool mask[LIR_MAX_DIMS];
  double eps = kind == 2 ? 1e-9 : ovta_node_attr_f(l->n, "epsilon", 1e-5f);
  int axis = kind == 0 ? norm_axis(ovta_node_attr_i(l->n, "axis", -1), r) : 2;
  if (axis < 0 || axis >= r) return bad(l, "axis out of range");
  for (int d = 0; d < r; d++) mask[d] = d >= axis;
  if (kind == 2) {
    int na;
    const int64_t *ax = ints(l, "axes", &na);
    static const int64_t dflt[3] = {0, 2, 3};
    if (!ax) ax = dflt, na = 3;
    for (int d = 0; d < r; d++) mask[d] = false;
    for (int i = 0; i < na; i++) {
      int d = norm_axis(ax[i], r);
      if (d < 0 || d >= r) return bad(l, "axis out of range");
      mask[d] = true;
    }
  }
  int64_t kext[LIR_MAX_DIMS], rext[LIR_MAX_DIMS];
  int nk = 0, nr = 0;
  for (int d = 0; d < r; d++)
    if (mask[d]) rext[nr++] = X->shape[d];
    else kext[nk++] = X->shape[d];
  lir_nest on, w;
  lir_nest_open(F, &on, nk, kext, "i");
  lir_nest_open(F, &w, nr, rext, "j");
  lir_buf *mean = sc_new(l, "mean", LIR_F64), *inv = sc_new(l, "inv", LIR_F64);
  lir_expr *xi[LIR_MAX_DIMS];
  merge_idx(r, mask, on.idx, w.idx, xi);
  lir_expr *v = lir_mul(F, lir_sub(F, as_type(l, LIR_F64, lir_load(F, X, xi)), sc_get(l, mean)), sc_get(l, inv));
  lir_buf *S = l->in[1], *B = l->n->n_inputs > 2 ? l->in[2] : NULL;
  if (kind == 0) {
    v = lir_mul(F, v, as_type(l, LIR_F64, bload(l, S, nr, w.idx)));
    if (B) v = lir_add(F, v, as_type(l, LIR_F64, bload(l, B, nr, w.idx)));
  } else if (kind == 1) {
    v = lir_add(F, lir_mul(F, v, as_type(l, LIR_F64, lir_load1(F, S, on.idx[1]))), as_type(l, LIR_F64, lir_load1(F, B, on.idx[1])));
  }
  lir_block b;
  lir_block_init(&b, F);
  lir_block_add(&b, moments(l, X, mask, on.idx, eps, kind == 2, mean, inv));
  lir_block_add(&b, lir_nest_close(F, &w, lir_store(F, Y, xi, as_type(l, Y->dtype, v)), LIR_FOR_SERIAL));
  for (int o = 1; kind == 0 && o <= 2; o++) {
    lir_buf *M = l->out[o];
    if (!M) continue;
    view(M, nk, kext);
    lir_block_add(&b, lir_store(F, M, on.idx, as_type(l, M->dtype, sc_get(l, o == 1 ? mean : inv))));
  }
  F->body = lir_nest_close(F, &on, lir_alloc_stmt(F, mean, lir_alloc_stmt(F, inv, lir_block_stmt(&b))), LIR_FOR_SERIAL);
  return 0;
}

/* LRN: y[n,c,..] = x / (bias + alpha / size * sum of x[n,i,..]^2)^beta, i over
 * [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to [0, C); alpha 1e-4, beta 0.75, bias 1. */
static int lower_lrn(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim < 3) return bad(l, "missing input or output, or rank < 3");
  int64_t size = ovta_node_attr_i(l->n, "size", 1), lo = (size - 1) / 2, hi = size - 1 - lo;
  double alpha = ovta_node_attr_f(l->n, "alpha", 1e-4f), beta = ovta_node_attr_f(l->n, "beta", 0.75f),
         bias = ovta_node_attr_f(l->n, "bias", 1.0f);
  int64_t C = X->shape[1], sh[3] = {X->shape[0], C, C ? lir_buf_numel(X) / (X->shape[0] * C != 0 ? X->shape[0] * C : 1) : 0};
  view(X, 3, sh);
  view(Y, 3, sh);
  lir_nest n;
  lir_nest_open(F, &n, 3, sh, "i");
  lir_buf *acc = sc_new(l, "acc", LIR_F64);
  lir_var *i = lir_var_new(F, "c", LIR_I64);
  lir_expr *first = lir_max(F, lir_sub(F, n.idx[1], I(lo)), I(0));
  lir_expr *end = lir_min(F, lir_addi(F, n.idx[1], hi + 1), I(C));
  lir_expr *xv = as_type(l, LIR_F64, lir_load(F, X, (lir_expr *[]){n.idx[0], lir_ref(F, i), n.idx[2]}));
  lir_expr *base = lir_add(F, cst(l, LIR_F64, bias), lir_mul(F, cst(l, LIR_F64, alpha / (double)size), sc_get(l, acc)));
  lir_expr *den = lir_call(F, LIR_POW, LIR_F64, 2, (lir_expr *[]){base, cst(l, LIR_F64, beta)});
  lir_stmt *body = SEQ(sc_set(l, acc, cst(l, LIR_F64, 0)),
                       lir_for(F, i, first, lir_sub(F, end, first), LIR_FOR_SERIAL,
                               sc_set(l, acc, lir_add(F, sc_get(l, acc), lir_mul(F, xv, xv)))),
                       lir_store(F, Y, n.idx, as_type(l, Y->dtype, lir_bin(F, LIR_DIV, as_type(l, LIR_F64, lir_load(F, X, n.idx)), den))));
  F->body = lir_nest_close(F, &n, lir_alloc_stmt(F, acc, body), LIR_FOR_SERIAL);
  return 0;
}

/* NegativeLogLikelihoodLoss: loss[n, d] = -P[n, t, d] * w[t] with t = target[n, d] (w = 1 without
 * weights; 0 where t == ignore_index); none: loss; sum: its sum; mean: sum / sum of the w used.
 * SoftmaxCrossEntropyLoss: the same on P = LogSoftmax(scores) over dim 1, written to output 1
 * when present (else to a local buffer). */
static int lower_loss(L *l) {
  lir_buf *X = l->in[0], *T = l->in[1], *W = l->n->n_inputs > 2 ? l->in[2] : NULL, *Y = l->out[0];
  if (!X || !T || !Y) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(X->dtype)) return unsup(l, "integer input");
  bool sce = !strcmp(l->n->op, "SoftmaxCrossEntropyLoss");
  const char *red = ovta_node_attr_s(l->n, "reduction", "mean");
  bool none = !strcmp(red, "none"), mean = !strcmp(red, "mean");
  const ovta_attr *iia = ovta_node_attr(l->n, "ignore_index");
  int64_t ii = iia ? ovta_node_attr_i(l->n, "ignore_index", 0) : 0;
  int64_t N = X->shape[0], C = X->shape[1], D = N * C != 0 ? lir_buf_numel(X) / (N * C) : 0;
  int64_t sx[3] = {N, C, D}, st[2] = {N, D};
  view(X, 3, sx);
  view(T, 2, st);
  if (none) view(Y, 2, st);
  lir_dtype t = X->dtype;
  lir_buf *P = X, *lp = NULL;
  lir_block b;
  lir_block_init(&b, F);
  if (sce) {
    P = l->out[1];
    if (!P) P = lp = lir_buf_new(F, "logp", t, 3, sx, LIR_SCOPE_LOCAL);
    else view(P, 3, sx);
    lir_nest n;
    lir_nest_open(F, &n, 2, st, "i");
    lir_buf *mx = sc_new(l, "mx", LIR_F64), *sm = sc_new(l, "sum", LIR_F64);
    lir_var *k[3];
    lir_expr *x[3];
    for (int i = 0; i < 3; i++) {
      k[i] = lir_var_new(F, "c", LIR_I64);
      x[i] = as_type(l, LIR_F64, lir_load(F, X, (lir_expr *[]){n.idx[0], lir_ref(F, k[i]), n.idx[1]}));
    }
    lir_expr *lse = lir_add(F, sc_get(l, mx), lir_call1(F, LIR_LOG, sc_get(l, sm)));
    lir_stmt *body = SEQ(sc_set(l, mx, cst(l, LIR_F64, -INFINITY)),
                         lir_for(F, k[0], I(0), I(C), LIR_FOR_SERIAL, sc_set(l, mx, lir_max(F, sc_get(l, mx), x[0]))),
                         sc_set(l, sm, cst(l, LIR_F64, 0)),
                         lir_for(F, k[1], I(0), I(C), LIR_FOR_SERIAL,
                                 sc_set(l, sm, lir_add(F, sc_get(l, sm), lir_call1(F, LIR_EXP, lir_sub(F, x[1], sc_get(l, mx)))))),
                         lir_for(F, k[2], I(0), I(C), LIR_FOR_SERIAL,
                                 lir_store(F, P, (lir_expr *[]){n.idx[0], lir_ref(F, k[2]), n.idx[1]},
                                           as_type(l, t, lir_sub(F, x[2], lse)))));
    lir_block_add(&b, lir_nest_close(F, &n, lir_alloc_stmt(F, mx, lir_alloc_stmt(F, sm, body)), LIR_FOR_SERIAL));
  }
  lir_buf *acc = sc_new(l, "acc", LIR_F64), *ws = sc_new(l, "wsum", LIR_F64);
  lir_nest n;
  lir_nest_open(F, &n, 2, st, "i");
  lir_var *tv = lir_var_new(F, "t", LIR_I64), *wv = lir_var_new(F, "w", LIR_F64), *vv = lir_var_new(F, "v", LIR_F64);
  lir_expr *tr = lir_ref(F, tv);
  lir_expr *tc = clampi(l, tr, 0, C - 1);
  lir_expr *w = W ? as_type(l, LIR_F64, lir_load1(F, W, tc)) : cst(l, LIR_F64, 1);
  if (iia) w = lir_select(F, lir_bin(F, LIR_EQ, tr, I(ii)), cst(l, LIR_F64, 0), w);
  lir_expr *v = lir_mul(F, lir_un(F, LIR_NEG, as_type(l, LIR_F64, lir_load(F, P, (lir_expr *[]){n.idx[0], tc, n.idx[1]}))),
                        lir_ref(F, wv));
  lir_stmt *use = none ? lir_store(F, Y, n.idx, as_type(l, Y->dtype, lir_ref(F, vv)))
                       : SEQ(sc_set(l, acc, lir_add(F, sc_get(l, acc), lir_ref(F, vv))),
                             sc_set(l, ws, lir_add(F, sc_get(l, ws), lir_ref(F, wv))));
  lir_stmt *inner = lir_let(F, tv, as_type(l, LIR_I64, lir_load(F, T, n.idx)), lir_let(F, wv, w, lir_let(F, vv, v, use)));
  lir_block_add(&b, sc_set(l, acc, cst(l, LIR_F64, 0)));
  lir_block_add(&b, sc_set(l, ws, cst(l, LIR_F64, 0)));
  lir_block_add(&b, lir_nest_close(F, &n, inner, LIR_FOR_SERIAL));
  if (!none) {
    lir_expr *res = mean ? lir_bin(F, LIR_DIV, sc_get(l, acc), sc_get(l, ws)) : sc_get(l, acc);
    view1(Y);
    lir_block_add(&b, lir_store1(F, Y, I(0), as_type(l, Y->dtype, res)));
  }
  lir_stmt *body = lir_alloc_stmt(F, acc, lir_alloc_stmt(F, ws, lir_block_stmt(&b)));
  F->body = lp ? lir_alloc_stmt(F, lp, body) : body;
  return 0;
}

const cpu_rule cpu_rules_norm[] = {
    {"BatchNormalization", lower_batchnorm},
    {"Softmax", lower_softmax},
    {"LogSoftmax", lower_softmax_like},
    {"Hardmax", lower_softmax_like},
    {"LayerNormalization", lower_layernorm},
    {"InstanceNormalization", lower_layernorm},
    {"MeanVarianceNormalization", lower_layernorm},
    {"LRN", lower_lrn},
    {"NegativeLogLikelihoodLoss", lower_loss},
    {"SoftmaxCrossEntropyLoss", lower_loss},
    {NULL, NULL},
};
