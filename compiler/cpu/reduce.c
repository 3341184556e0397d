/* reduce.c: reductions: Reduce* (ten kinds), ArgMax/ArgMin, CumSum, TopK, Einsum.
 * Float sums accumulate in f64, integer ones in i64 (the result is then converted back). */

#include "cpu_internal.h"

/* The lowest and highest value of dtype t (-inf/+inf for floats). */
static double lowest(lir_dtype t) {
  switch (t) {
  case LIR_F32: case LIR_F64: return -INFINITY;
  case LIR_I8: return -128;
  case LIR_I16: return -32768;
  case LIR_I32: return -2147483648.0;
  case LIR_I64: return -9223372036854775808.0;
  default: return 0;
  }
}
static lir_expr *lowest_e(L *l, lir_dtype t) {
  if (t == LIR_I64) return lir_int(F, t, INT64_MIN);
  return cst(l, t, lowest(t));
}
static lir_expr *highest_e(L *l, lir_dtype t) {
  switch (t) {
  case LIR_F32: case LIR_F64: return cst(l, t, INFINITY);
  case LIR_I8: return lir_int(F, t, 127);
  case LIR_U8: return lir_int(F, t, 255);
  case LIR_I16: return lir_int(F, t, 32767);
  case LIR_U16: return lir_int(F, t, 65535);
  case LIR_I32: return lir_int(F, t, 2147483647);
  case LIR_U32: return lir_int(F, t, 4294967295LL);
  case LIR_I64: return lir_int(F, t, INT64_MAX);
  default: return lir_int(F, t, -1); /* U64: all ones */
  }
}

/* ---------------------------------------------------------------- Reduce* */

typedef enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_PROD, R_L1, R_L2, R_LOGSUM, R_LSE, R_SSQ } redop;
static const char *const RED_NAMES[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                                        "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", NULL};

/* The accumulator type: X's for Max/Min, else f64 (float X) or i64 (integer X). */
static lir_dtype acc_type(redop op, lir_dtype xt) {
  if (op == R_MAX || op == R_MIN) return xt;
  return lir_dtype_is_float(xt) ? LIR_F64 : LIR_I64;
}
static lir_expr *red_init(L *l, redop op, lir_dtype at) {
  if (op == R_MAX) return lowest_e(l, at);
  if (op == R_MIN) return highest_e(l, at);
  return cst(l, at, op == R_PROD ? 1 : 0);
}
/* acc (op) x, x already in the accumulator type (for R_LSE: exp(x - max) was taken by the caller). */
static lir_expr *red_update(L *l, redop op, lir_expr *acc, lir_expr *x) {
  switch (op) {
  case R_MAX: return lir_max(F, acc, x);
  case R_MIN: return lir_min(F, acc, x);
  case R_PROD: return lir_mul(F, acc, x);
  case R_L1: return lir_add(F, acc, lir_call1(F, LIR_ABS, x));
  case R_L2: case R_SSQ: return lir_add(F, acc, lir_mul(F, x, x));
  default: return lir_add(F, acc, x);
  }
}
/* The result from the accumulator (cnt: the reduced element count; mx: the max for R_LSE). */
static lir_expr *red_final(L *l, redop op, lir_expr *acc, int64_t cnt, lir_expr *mx) {
  switch (op) {
  case R_MEAN: /* integers: truncating; an empty integer mean is 0, not a division by zero */
    return lir_bin(F, LIR_DIV, acc, cst(l, acc->dtype, (double)(cnt || lir_dtype_is_float(acc->dtype) ? cnt : 1)));
  case R_L2: return lir_call1(F, LIR_SQRT, acc);
  case R_LOGSUM: return lir_call1(F, LIR_LOG, acc);
  case R_LSE:
    /* log(sum(exp(x - m))) + m; all -inf (or no elements): -inf */
    return lir_select(F, lir_bin(F, LIR_EQ, mx, cst(l, LIR_F64, -INFINITY)), cst(l, LIR_F64, -INFINITY),
                      lir_add(F, lir_call1(F, LIR_LOG, acc), mx));
  default: return acc;
  }
}

/* The reduced axes (mask) from the `axes` attribute or a constant input 1; *runtime when input 1
 * is a non-empty graph input. */
static int red_mask(L *l, int r, bool *mask, bool *runtime) {
  int n = 0;
  const int64_t *a = ints(l, "axes", &n);
  int64_t v[LIR_MAX_DIMS + 1];
  const ovta_tensor *at = l->n->n_inputs > 1 ? l->tin[1] : NULL;
  *runtime = false;
  if (!a && at) {
    n = (int)ovta_tensor_numel(at);
    if (n > LIR_MAX_DIMS) return bad(l, "too many axes");
    if (!at->data) {
      *runtime = n > 0;
      for (int d = 0; d < r; d++) mask[d] = false;
      if (n > 0) return 0;
    } else {
      for (int i = 0; i < n; i++) v[i] = ovta_tensor_get_i(at, i);
      a = v;
    }
  }
  bool noop = ovta_node_attr_i(l->n, "noop_with_empty_axes", 0) != 0;
  for (int d = 0; d < r; d++) mask[d] = n == 0 && !noop;
  for (int i = 0; i < n; i++) {
    int d = norm_axis(a[i], r);
    if (d < 0 || d >= r) return bad(l, "axis out of range");
    mask[d] = true;
  }
  return 0;
}

/* Reduce* with axes known only at run time (a graph input of n values): the mask and the
 * output strides are computed first; when the kept dims' element count equals Y's, every
 * element of X is folded into an accumulator per Y element (else Y is left as zeros). */
static int lower_reduce_rt(L *l, redop op) {
  lir_buf *X = l->in[0], *Y = l->out[0], *A = l->in[1];
  int r = X->ndim;
  if (op == R_LSE) return unsup(l, "ReduceLogSumExp with axes given at run time");
  lir_dtype at = acc_type(op, X->dtype);
  int64_t ny = lir_buf_numel(Y), nx = lir_buf_numel(X), na = lir_buf_numel(A), rr = r;
  view1(Y);
  view1(A);
  lir_buf *mask = lir_buf_new(F, "mask", LIR_I64, 1, &rr, LIR_SCOPE_LOCAL);
  lir_buf *ystr = lir_buf_new(F, "ystr", LIR_I64, 1, &rr, LIR_SCOPE_LOCAL);
  lir_buf *cnt = sc_new(l, "cnt", LIR_I64);
  lir_buf *acc = lir_buf_new(F, "acc", at, 1, &ny, LIR_SCOPE_LOCAL);
  lir_block b;
  lir_block_init(&b, F);
  lir_var *d = lir_var_new(F, "d", LIR_I64), *j = lir_var_new(F, "j", LIR_I64), *a = lir_var_new(F, "a", LIR_I64);
  lir_block_add(&b, lir_for(F, d, I(0), I(r), LIR_FOR_SERIAL, lir_store1(F, mask, lir_ref(F, d), I(0))));
  lir_expr *av = lir_ref(F, a);
  lir_expr *an = lir_select(F, lir_bin(F, LIR_LT, av, I(0)), lir_addi(F, av, r), av);
  lir_var *a2 = lir_var_new(F, "an", LIR_I64);
  lir_expr *a2v = lir_ref(F, a2);
  lir_stmt *mark = lir_if(F, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, a2v, I(0)), lir_bin(F, LIR_LT, a2v, I(r))),
                          lir_store1(F, mask, a2v, I(1)), NULL);
  lir_block_add(&b, lir_for(F, j, I(0), I(na), LIR_FOR_SERIAL,
                            lir_let(F, a, as_type(l, LIR_I64, lir_load1(F, A, lir_ref(F, j))), lir_let(F, a2, an, mark))));
  lir_block_add(&b, sc_set(l, cnt, I(1)));
  for (int k = r - 1; k >= 0; k--) {
    lir_expr *m = lir_bin(F, LIR_NE, lir_load1(F, mask, I(k)), I(0));
    lir_block_add(&b, lir_store1(F, ystr, I(k), lir_select(F, m, I(0), sc_get(l, cnt))));
    lir_block_add(&b, sc_set(l, cnt, lir_mul(F, sc_get(l, cnt), lir_select(F, m, I(1), I(X->shape[k])))));
  }
  /* the work, when the kept element count matches Y */
  lir_var *y = lir_var_new(F, "y", LIR_I64);
  lir_nest n;
  lir_nest_open(F, &n, r, X->shape, "i");
  lir_expr *yi = I(0);
  for (int k = 0; k < r; k++) yi = lir_add(F, yi, lir_mul(F, n.idx[k], lir_load1(F, ystr, I(k))));
  lir_var *yv = lir_var_new(F, "yi", LIR_I64);
  lir_expr *x = as_type(l, at, lir_load(F, X, n.idx));
  lir_stmt *upd = lir_let(F, yv, yi,
                          lir_store1(F, acc, lir_ref(F, yv), red_update(l, op, lir_load1(F, acc, lir_ref(F, yv)), x)));
  int64_t per = ny > 0 ? nx / ny : 0;
  lir_var *y2 = lir_var_new(F, "y", LIR_I64);
  lir_stmt *fin = lir_for(F, y2, I(0), I(ny), LIR_FOR_SERIAL,
                          lir_store1(F, Y, lir_ref(F, y2),
                                     as_type(l, Y->dtype, red_final(l, op, lir_load1(F, acc, lir_ref(F, y2)), per, NULL))));
  lir_stmt *work = SEQ(lir_for(F, y, I(0), I(ny), LIR_FOR_SERIAL, lir_store1(F, acc, lir_ref(F, y), red_init(l, op, at))),
                       lir_nest_close(F, &n, upd, LIR_FOR_SERIAL), fin);
  lir_var *y3 = lir_var_new(F, "y", LIR_I64);
  lir_stmt *zero = lir_for(F, y3, I(0), I(ny), LIR_FOR_SERIAL, lir_store1(F, Y, lir_ref(F, y3), cst(l, Y->dtype, 0)));
  lir_block_add(&b, lir_if(F, lir_bin(F, LIR_EQ, sc_get(l, cnt), I(ny)), lir_alloc_stmt(F, acc, work), zero));
  F->body = lir_alloc_stmt(F, mask, lir_alloc_stmt(F, ystr, lir_alloc_stmt(F, cnt, lir_block_stmt(&b))));
  return 0;
}

/* ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1 (sum |x|), ReduceL2
 * (sqrt(sum x^2)), ReduceLogSum (log(sum x)), ReduceLogSumExp (log(sum exp x), computed as
 * m + log(sum exp(x - m)) with m the max), ReduceSumSquare (sum x^2) over the axes (attribute or
 * input; none: all, or none with noop_with_empty_axes = 1); keepdims only changes Y's shape.
 * Empty reductions give the identity (Mean: 0/0 = nan). One accumulator per output element. */
static int lower_reduce(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  redop op = R_SUM;
  while (RED_NAMES[op] && strcmp(RED_NAMES[op], l->n->op)) op++;
  int r = X->ndim;
  bool mask[LIR_MAX_DIMS], rt;
  if (red_mask(l, r, mask, &rt)) return l->err->code;
  if (rt) return lower_reduce_rt(l, op);
  int64_t kext[LIR_MAX_DIMS], rext[LIR_MAX_DIMS], cnt = 1;
  int kd[LIR_MAX_DIMS], rd[LIR_MAX_DIMS], nk = 0, nr = 0;
  for (int d = 0; d < r; d++)
    if (mask[d]) rd[nr] = d, rext[nr++] = X->shape[d], cnt *= X->shape[d];
    else kd[nk] = d, kext[nk++] = X->shape[d];
  view(Y, nk, kext);
  lir_dtype at = acc_type(op, X->dtype);
  lir_buf *acc = sc_new(l, "acc", at), *mx = op == R_LSE ? sc_new(l, "mx", LIR_F64) : NULL;
  lir_nest on, in;
  lir_nest_open(F, &on, nk, kext, "i");
  lir_nest_open(F, &in, nr, rext, "k");
  lir_expr *xi[LIR_MAX_DIMS];
  for (int k = 0; k < nk; k++) xi[kd[k]] = on.idx[k];
  for (int k = 0; k < nr; k++) xi[rd[k]] = in.idx[k];
  lir_expr *x = as_type(l, at, lir_load(F, X, xi));
  lir_block b;
  lir_block_init(&b, F);
  if (op == R_LSE) {
    lir_nest mn;
    lir_nest_open(F, &mn, nr, rext, "m");
    lir_expr *mi[LIR_MAX_DIMS];
    for (int k = 0; k < nk; k++) mi[kd[k]] = on.idx[k];
    for (int k = 0; k < nr; k++) mi[rd[k]] = mn.idx[k];
    lir_block_add(&b, sc_set(l, mx, cst(l, LIR_F64, -INFINITY)));
    lir_block_add(&b, lir_nest_close(F, &mn, sc_set(l, mx, lir_max(F, sc_get(l, mx), as_type(l, LIR_F64, lir_load(F, X, mi)))),
                                     LIR_FOR_SERIAL));
    x = lir_call1(F, LIR_EXP, lir_sub(F, x, sc_get(l, mx)));
  }
  lir_block_add(&b, sc_set(l, acc, red_init(l, op, at)));
  lir_block_add(&b, lir_nest_close(F, &in, sc_set(l, acc, red_update(l, op, sc_get(l, acc), x)), LIR_FOR_SERIAL));
  lir_block_add(&b, lir_store(F, Y, on.idx, as_type(l, Y->dtype, red_final(l, op, sc_get(l, acc), cnt, mx ? sc_get(l, mx) : NULL))));
  lir_stmt *body = lir_alloc_stmt(F, acc, lir_block_stmt(&b));
  if (mx) body = lir_alloc_stmt(F, mx, body);
  F->body = lir_nest_close(F, &on, body, LIR_FOR_SERIAL);
  return 0;
}

/* ---------------------------------------------------------------- ArgMax, ArgMin */

/* ArgMax/ArgMin: Y[o, i] = the index k along `axis` of the largest (smallest) X[o, k, i]; the
 * first such index, or the last with select_last_index = 1. Y int64. */
static int lower_argmax(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  int r = X->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  bool mx = !strcmp(l->n->op, "ArgMax"), last = ovta_node_attr_i(l->n, "select_last_index", 0) != 0;
  if (axis < 0 || axis >= r || X->shape[axis] < 1) return bad(l, "bad axis");
  int64_t outer = 1, inner = 1, A = X->shape[axis];
  for (int d = 0; d < r; d++)
    if (d < axis) outer *= X->shape[d];
    else if (d > axis) inner *= X->shape[d];
  int64_t sx[3] = {outer, A, inner}, sy[2] = {outer, inner};
  view(X, 3, sx);
  view(Y, 2, sy);
  lir_buf *best = sc_new(l, "best", X->dtype), *bi = sc_new(l, "bi", LIR_I64);
  lir_nest n;
  lir_nest_open(F, &n, 2, sy, "i");
  lir_var *k = lir_var_new(F, "k", LIR_I64), *v = lir_var_new(F, "v", X->dtype);
  lir_expr *vv = lir_ref(F, v);
  lir_binop cmp = mx ? (last ? LIR_GE : LIR_GT) : (last ? LIR_LE : LIR_LT);
  lir_stmt *upd = lir_let(F, v, lir_load(F, X, (lir_expr *[]){n.idx[0], lir_ref(F, k), n.idx[1]}),
                          lir_if(F, lir_bin(F, cmp, vv, sc_get(l, best)), SEQ(sc_set(l, best, vv), sc_set(l, bi, lir_ref(F, k))), NULL));
  lir_stmt *body = SEQ(sc_set(l, best, lir_load(F, X, (lir_expr *[]){n.idx[0], I(0), n.idx[1]})), sc_set(l, bi, I(0)),
                       lir_for(F, k, I(1), I(A - 1), LIR_FOR_SERIAL, upd), lir_store(F, Y, n.idx, sc_get(l, bi)));
  F->body = lir_nest_close(F, &n, lir_alloc_stmt(F, best, lir_alloc_stmt(F, bi, body)), LIR_FOR_SERIAL);
  return 0;
}

/* ---------------------------------------------------------------- CumSum */

/* The CumSum loops for one axis d: per (o, i) a running sum over k (reverse: from the end);
 * exclusive stores the sum before adding x. Flat indexing, so one function holds every axis. */
static lir_stmt *cumsum_axis(L *l, int d, bool excl, bool rev) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  int r = X->ndim;
  int64_t outer = 1, A = X->shape[d], inner = 1;
  for (int e = 0; e < r; e++)
    if (e < d) outer *= X->shape[e];
    else if (e > d) inner *= X->shape[e];
  lir_dtype at = lir_dtype_is_float(X->dtype) ? LIR_F64 : LIR_I64;
  lir_buf *acc = sc_new(l, "acc", at);
  lir_nest n;
  int64_t sh[2] = {outer, inner};
  lir_nest_open(F, &n, 2, sh, "i");
  lir_var *k = lir_var_new(F, "k", LIR_I64), *fi = lir_var_new(F, "f", LIR_I64);
  lir_expr *kk = rev ? lir_sub(F, I(A - 1), lir_ref(F, k)) : lir_ref(F, k);
  lir_expr *flat = lir_add(F, lir_mul(F, lir_add(F, lir_muli(F, n.idx[0], A), kk), I(inner)), n.idx[1]);
  lir_expr *f = lir_ref(F, fi);
  lir_stmt *add = sc_set(l, acc, lir_add(F, sc_get(l, acc), as_type(l, at, lir_load1(F, X, f))));
  lir_stmt *st = lir_store1(F, Y, f, as_type(l, Y->dtype, sc_get(l, acc)));
  lir_stmt *step = lir_let(F, fi, flat, excl ? SEQ(st, add) : SEQ(add, st));
  lir_stmt *body = SEQ(sc_set(l, acc, cst(l, at, 0)), lir_for(F, k, I(0), I(A), LIR_FOR_SERIAL, step));
  return lir_nest_close(F, &n, lir_alloc_stmt(F, acc, body), LIR_FOR_SERIAL);
}

/* CumSum: y[..., k, ...] = sum of x[..., j, ...] over j <= k (exclusive: j < k; reverse: j >= k,
 * exclusive reverse: j > k) along `axis` (input 1; a graph input is read at run time and
 * selects one of the per-axis loops; out of range: Y is left untouched). */
static int lower_cumsum(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0], *Ax = l->in[1];
  if (!X || !Y || !Ax) return bad(l, "missing input or output");
  bool excl = ovta_node_attr_i(l->n, "exclusive", 0) != 0, rev = ovta_node_attr_i(l->n, "reverse", 0) != 0;
  int r = X->ndim;
  const ovta_tensor *at = l->tin[1];
  if (at->data) {
    int d = norm_axis(ovta_tensor_get_i(at, 0), r);
    if (d < 0 || d >= r) return bad(l, "axis out of range");
    F->body = cumsum_axis(l, d, excl, rev);
    return 0;
  }
  view1(Ax);
  lir_var *a = lir_var_new(F, "axis", LIR_I64);
  lir_expr *av = lir_ref(F, a);
  lir_expr *an = lir_select(F, lir_bin(F, LIR_LT, av, I(0)), lir_addi(F, av, r), av);
  lir_var *a2 = lir_var_new(F, "ax", LIR_I64);
  lir_block b;
  lir_block_init(&b, F);
  for (int d = 0; d < r; d++)
    lir_block_add(&b, lir_if(F, lir_bin(F, LIR_EQ, lir_ref(F, a2), I(d)), cumsum_axis(l, d, excl, rev), NULL));
  F->body = lir_let(F, a, as_type(l, LIR_I64, lir_load1(F, Ax, I(0))), lir_let(F, a2, an, lir_block_stmt(&b)));
  return 0;
}

/* ---------------------------------------------------------------- TopK */

/* TopK: along `axis`, the K = Values.shape[axis] largest (largest = 1) or smallest elements,
 * sorted, equal values by lower index first. Output j is the best element strictly after
 * output j-1 in that order (selection, O(K * n) per row; no scratch). */
static int lower_topk(L *l) {
  lir_buf *X = l->in[0], *V = l->out[0], *Ix = l->out[1];
  if (!X || !V || !Ix) return bad(l, "missing input or output");
  int r = X->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", -1), r);
  bool largest = ovta_node_attr_i(l->n, "largest", 1) != 0;
  if (axis < 0 || axis >= r) return bad(l, "bad axis");
  int64_t outer = 1, inner = 1, A = X->shape[axis], K = V->shape[axis];
  for (int d = 0; d < r; d++)
    if (d < axis) outer *= X->shape[d];
    else if (d > axis) inner *= X->shape[d];
  int64_t sx[3] = {outer, A, inner}, sy[3] = {outer, K, inner}, so[2] = {outer, inner};
  view(X, 3, sx);
  view(V, 3, sy);
  view(Ix, 3, sy);
  lir_dtype t = X->dtype;
  lir_buf *pv = sc_new(l, "pv", t), *pi = sc_new(l, "pi", LIR_I64), *bv = sc_new(l, "bv", t), *bi = sc_new(l, "bi", LIR_I64);
  lir_nest n;
  lir_nest_open(F, &n, 2, so, "i");
  lir_var *j = lir_var_new(F, "j", LIR_I64), *k = lir_var_new(F, "k", LIR_I64), *v = lir_var_new(F, "v", t);
  lir_expr *vv = lir_ref(F, v), *kv = lir_ref(F, k);
  lir_binop worse = largest ? LIR_LT : LIR_GT, better = largest ? LIR_GT : LIR_LT;
  lir_expr *after = lir_bin(F, LIR_OR, lir_bin(F, LIR_EQ, lir_ref(F, j), I(0)),
                            lir_bin(F, LIR_OR, lir_bin(F, worse, vv, sc_get(l, pv)),
                                    lir_bin(F, LIR_AND, lir_bin(F, LIR_EQ, vv, sc_get(l, pv)), lir_bin(F, LIR_GT, kv, sc_get(l, pi)))));
  lir_expr *beats = lir_bin(F, LIR_OR, lir_bin(F, LIR_LT, sc_get(l, bi), I(0)), lir_bin(F, better, vv, sc_get(l, bv)));
  lir_stmt *scan = lir_let(F, v, lir_load(F, X, (lir_expr *[]){n.idx[0], kv, n.idx[1]}),
                           lir_if(F, lir_bin(F, LIR_AND, after, beats), SEQ(sc_set(l, bv, vv), sc_set(l, bi, kv)), NULL));
  lir_expr *oi[3] = {n.idx[0], lir_ref(F, j), n.idx[1]};
  lir_stmt *one = SEQ(sc_set(l, bi, I(-1)), sc_set(l, bv, cst(l, t, 0)), lir_for(F, k, I(0), I(A), LIR_FOR_SERIAL, scan),
                      lir_store(F, V, oi, sc_get(l, bv)), lir_store(F, Ix, oi, sc_get(l, bi)), sc_set(l, pv, sc_get(l, bv)),
                      sc_set(l, pi, sc_get(l, bi)));
  lir_stmt *body = SEQ(sc_set(l, pv, cst(l, t, 0)), sc_set(l, pi, I(-1)), lir_for(F, j, I(0), I(K), LIR_FOR_SERIAL, one));
  body = lir_alloc_stmt(F, pv, lir_alloc_stmt(F, pi, lir_alloc_stmt(F, bv, lir_alloc_stmt(F, bi, body))));
  F->body = lir_nest_close(F, &n, body, LIR_FOR_SERIAL);
  return 0;
}

/* ---------------------------------------------------------------- Einsum */

/* Einsum (1 or 2 operands): one loop per output label, inside them one per summed label (in an
 * input, not in the output); each operand is indexed by the loops of its labels (a repeated
 * label indexes the diagonal); Y = the sum of the products (f64 / i64 accumulator). */
static int lower_einsum(L *l) {
  lir_buf *Y = l->out[0], *X[2] = {l->in[0], l->n->n_inputs > 1 ? l->in[1] : NULL};
  int nops = X[1] ? 2 : 1, ranks[2] = {X[0]->ndim, X[1] ? X[1]->ndim : 0};
  const char *eq = ovta_node_attr_s(l->n, "equation", "");
  char labels[3][OVTA_MAX_RANK + 1], out[OVTA_MAX_RANK + 1] = {0}, msg[160], m2[300];
  if (ovta_einsum_parse(eq, nops, ranks, labels, out, msg, sizeof msg)) {
    snprintf(m2, sizeof m2, "equation \"%s\": %s", eq, msg);
    return unsup(l, m2);
  }
  int64_t ext[128];
  for (int i = 0; i < 128; i++) ext[i] = -1;
  char sum[2 * LIR_MAX_DIMS + 1] = {0};
  int ns = 0;
  for (int i = 0; i < nops; i++)
    for (int d = 0; labels[i][d]; d++) {
      int ch = (unsigned char)labels[i][d];
      ext[ch] = X[i]->shape[d];
      if (!strchr(out, ch) && !strchr(sum, ch)) sum[ns++] = (char)ch;
    }
  int no = (int)strlen(out);
  int64_t oext[LIR_MAX_DIMS], sext[2 * LIR_MAX_DIMS];
  for (int d = 0; d < no; d++) oext[d] = ext[(unsigned char)out[d]];
  for (int d = 0; d < ns; d++) sext[d] = ext[(unsigned char)sum[d]];
  if (ns > LIR_MAX_DIMS) return unsup(l, "too many summed labels");
  view(Y, no, oext);
  lir_nest on, sn;
  lir_nest_open(F, &on, no, oext, "i");
  lir_nest_open(F, &sn, ns, sext, "s");
  lir_expr *var[128] = {0};
  for (int d = 0; d < no; d++) var[(unsigned char)out[d]] = on.idx[d];
  for (int d = 0; d < ns; d++) var[(unsigned char)sum[d]] = sn.idx[d];
  lir_dtype at = lir_dtype_is_float(Y->dtype) ? LIR_F64 : LIR_I64;
  lir_expr *prod = NULL;
  for (int i = 0; i < nops; i++) {
    lir_expr *xi[LIR_MAX_DIMS];
    for (int d = 0; labels[i][d]; d++) xi[d] = var[(unsigned char)labels[i][d]];
    lir_expr *x = as_type(l, at, lir_load(F, X[i], xi));
    prod = prod ? lir_mul(F, prod, x) : x;
  }
  lir_buf *acc = sc_new(l, "acc", at);
  lir_stmt *body = SEQ(sc_set(l, acc, cst(l, at, 0)),
                       lir_nest_close(F, &sn, sc_set(l, acc, lir_add(F, sc_get(l, acc), prod)), LIR_FOR_SERIAL),
                       lir_store(F, Y, on.idx, as_type(l, Y->dtype, sc_get(l, acc))));
  F->body = lir_nest_close(F, &on, lir_alloc_stmt(F, acc, body), LIR_FOR_SERIAL);
  return 0;
}

/* ---------------------------------------------------------------- table */

const cpu_rule cpu_rules_reduce[] = {
    {"ReduceSum", lower_reduce},
    {"ReduceMean", lower_reduce},
    {"ReduceMax", lower_reduce},
    {"ReduceMin", lower_reduce},
    {"ReduceProd", lower_reduce},
    {"ReduceL1", lower_reduce},
    {"ReduceL2", lower_reduce},
    {"ReduceLogSum", lower_reduce},
    {"ReduceLogSumExp", lower_reduce},
    {"ReduceSumSquare", lower_reduce},
    {"ArgMax", lower_argmax},
    {"ArgMin", lower_argmax},
    {"CumSum", lower_cumsum},
    {"TopK", lower_topk},
    {"Einsum", lower_einsum},
    {NULL, NULL},
};
