/* norm.c: normalizations: BatchNormalization (inference), Softmax. */

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

const cpu_rule cpu_rules_norm[] = {
    {"BatchNormalization", lower_batchnorm},
    {"Softmax", lower_softmax},
    {NULL, NULL},
};
