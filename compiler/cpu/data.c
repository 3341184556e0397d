/* data.c: data movement: Flatten, Reshape, Squeeze, Unsqueeze, Identity (copies), Transpose,
 * Concat, Pad. */

#include "cpu_internal.h"

/* Flatten, Reshape, Squeeze, Unsqueeze, Identity: the same elements in the same (row-major)
 * order with another shape: y[i] = x[i]. (Reshape's shape input, Squeeze/Unsqueeze's axes are
 * already folded into the inferred output shape.) */
static int lower_copy(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (lir_buf_numel(X) != lir_buf_numel(Y)) return bad(l, "element counts differ");
  if (X->dtype != Y->dtype) return bad(l, "dtypes differ");
  view1(X);
  view1(Y);
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, n.idx)));
  return 0;
}

/* Transpose: y[j0..] = x[...] with y's dim d = x's dim perm[d] (default: reversed). */
static int lower_transpose(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  int np, r = X->ndim;
  const int64_t *perm = ints(l, "perm", &np);
  if (perm && np != r) return bad(l, "perm length differs from the rank");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS];
  bool seen[LIR_MAX_DIMS] = {0};
  for (int d = 0; d < r; d++) {
    int p = perm ? (int)perm[d] : r - 1 - d;
    if (p < 0 || p >= r || seen[p]) return bad(l, "perm is not a permutation");
    seen[p] = true;
    if (X->shape[p] != Y->shape[d]) return bad(l, "output shape does not match perm");
    xi[p] = n.idx[d];
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* Concat: y is the inputs joined along `axis` (negative counts from the end). */
static int lower_concat(L *l) {
  lir_buf *Y = l->out[0];
  if (!Y) return bad(l, "missing output");
  int r = Y->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  if (axis < 0 || axis >= r) return bad(l, "axis out of range");
  lir_block blk;
  lir_block_init(&blk, F);
  int64_t off = 0;
  for (int i = 0; i < l->n->n_inputs && i < MAXIO; i++) {
    lir_buf *X = l->in[i];
    if (!X) continue;
    if (X->ndim != r) return bad(l, "inputs of different ranks");
    lir_nest n;
    lir_nest_open(F, &n, r, X->shape, "i");
    lir_expr *yi[LIR_MAX_DIMS];
    for (int d = 0; d < r; d++) yi[d] = d == axis ? lir_addi(F, n.idx[d], off) : n.idx[d];
    lir_block_add(&blk, over(l, &n, X, lir_store(F, Y, yi, lir_load(F, X, n.idx))));
    off += X->shape[axis];
  }
  if (off != Y->shape[axis]) return bad(l, "input extents along axis do not sum to the output");
  F->body = lir_block_stmt(&blk);
  return 0;
}

/* Pad (data, [pads], [constant_value]) or attributes pads/value (opset < 11): y[i] = x[i - pad_begin]
 * where inside; outside: mode constant -> value; edge -> the nearest edge element;
 * reflect -> mirrored without repeating the edge. pads must be constant. */
static int lower_pad(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  int r = X->ndim;
  int64_t pads[2 * LIR_MAX_DIMS] = {0};
  int np;
  const int64_t *pa = ints(l, "pads", &np);
  if (l->tin[1]) {
    const ovta_tensor *pt = l->tin[1];
    if (!pt->data) return unsup(l, "pads not a constant");
    np = (int)ovta_tensor_numel(pt);
    if (np != 2 * r) return bad(l, "pads length is not 2 * rank");
    for (int i = 0; i < np; i++) pads[i] = ovta_tensor_get_i(pt, i);
  } else if (pa) {
    if (np != 2 * r) return bad(l, "pads length is not 2 * rank");
    memcpy(pads, pa, sizeof(int64_t) * (size_t)np);
  }
  if (l->n->n_inputs > 3 && l->in[3]) return unsup(l, "the axes input");
  const char *mode = ovta_node_attr_s(l->n, "mode", "constant");
  int m = strcmp(mode, "constant") == 0 ? 0 : strcmp(mode, "edge") == 0 ? 1 : strcmp(mode, "reflect") == 0 ? 2 : -1;
  if (m < 0) return unsup(l, "pad mode");
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS], *inb = NULL;
  for (int d = 0; d < r; d++) {
    int64_t in = X->shape[d];
    if (Y->shape[d] != in + pads[d] + pads[r + d]) return bad(l, "output shape does not match pads");
    lir_expr *p = lir_addi(F, n.idx[d], -pads[d]);
    if (pads[d] == 0 && pads[r + d] <= 0) {
      xi[d] = p;
      continue;
    }
    if (m == 0) {
      inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, p, I(0)), lir_bin(F, LIR_LT, p, I(in))));
      xi[d] = clampi(l, p, 0, in - 1);
    } else if (m == 1) {
      xi[d] = clampi(l, p, 0, in - 1);
    } else {
      if (in < 2 || pads[d] >= in || pads[r + d] >= in) return unsup(l, "reflect padding as large as the input");
      /* p < 0 -> -p; p >= in -> 2(in-1) - p */
      lir_expr *q = lir_select(F, lir_bin(F, LIR_LT, p, I(0)), lir_un(F, LIR_NEG, p), p);
      xi[d] = lir_select(F, lir_bin(F, LIR_GE, q, I(in)), lir_sub(F, I(2 * (in - 1)), q), q);
    }
  }
  lir_expr *v = lir_load(F, X, xi);
  if (inb) {
    lir_expr *cv = cst(l, X->dtype, ovta_node_attr_f(l->n, "value", 0.0f));
    if (l->in[2]) cv = lir_load1(F, l->in[2], I(0));
    v = lir_select(F, inb, v, cv);
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

const cpu_rule cpu_rules_data[] = {
    {"Flatten", lower_copy},
    {"Reshape", lower_copy},
    {"Squeeze", lower_copy},
    {"Unsqueeze", lower_copy},
    {"Identity", lower_copy},
    {"Transpose", lower_transpose},
    {"Concat", lower_concat},
    {"Pad", lower_pad},
    {NULL, NULL},
};
