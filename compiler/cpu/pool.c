/* pool.c: pooling: MaxPool (and ovta.QMaxPool), AveragePool, LpPool, GlobalAveragePool (and
 * ovta.QGlobalAvgPool), GlobalMaxPool. */

#include "cpu_internal.h"

/* The lowest value of dtype t (MaxPool's start): -inf, 0 or the integer minimum. */
static double lowest(lir_dtype t) {
  if (lir_dtype_is_float(t)) return -INFINITY;
  if (t == LIR_U8 || t == LIR_U16 || t == LIR_U32) return 0;
  return t == LIR_I8 ? -128 : t == LIR_I16 ? -32768 : -2147483648.0;
}

/* maxpool_rows for float 2-D pools of column stride 2 (dilation 1): each input row the window
 * reads is first split into its two column phases, P[b, w] = X[..., 2w + b], in one loop (both
 * loads together read the row consecutively: LLVM deinterleaves them; the stride-2 loads of the
 * plain row schedule became gathers on AVX-512, ResNet-18's max pool 707 us against int8's 230);
 * then for each kernel column kw the outputs whose column 2*ow - pl + kw is inside X take
 * max(row[ow], P[b, ow + q]), b and q the phase and offset of kw - pl: unit-stride loads. The
 * same maxima in the same order as the row schedule: the same bits. Float only: the 8-bit
 * QMaxPool ran slower so (230 -> 302 us; LLVM deinterleaves its stride-2 byte loads well). */
static int maxpool_rows_s2(L *l, lir_buf *X, lir_buf *Y, const convp *c, lir_expr *init) {
  int64_t OW = Y->shape[3], IW = X->shape[3], KW = c->kern[1], pl = c->pad[1], PW = (IW + 1) / 2;
  lir_nest n, r;
  lir_nest_open(F, &n, 3, Y->shape, "o");
  lir_nest_open(F, &r, 1, c->kern, "r");
  lir_expr *ih = lir_add(F, lir_addi(F, lir_muli(F, n.idx[2], c->stride[0]), -c->pad[0]), lir_muli(F, r.idx[0], c->dil[0]));
  lir_expr *inb = lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, ih, I(0)), lir_bin(F, LIR_LT, ih, I(X->shape[2])));
  lir_expr *y = clampi(l, ih, 0, X->shape[2] - 1);
  lir_buf *P = lir_buf_new(F, "ph", X->dtype, 2, (int64_t[]){2, PW}, LIR_SCOPE_LOCAL);
  lir_buf *row = lir_buf_new(F, "row", X->dtype, 1, &OW, LIR_SCOPE_LOCAL);
  lir_var *w = lir_var_new(F, "w", LIR_I64);
  lir_expr *Wv = lir_ref(F, w);
  lir_block in;
  lir_block_init(&in, F);
  lir_stmt *pair[2];
  for (int b = 0; b < 2; b++)
    pair[b] = lir_store(F, P, (lir_expr *[]){I(b), Wv}, lir_load(F, X, (lir_expr *[]){n.idx[0], n.idx[1], y, lir_addi(F, lir_muli(F, Wv, 2), b)}));
  lir_block_add(&in, lir_for(F, w, I(0), I(IW / 2), LIR_FOR_VECTORIZED, lir_seq(F, 2, pair)));
  if (IW % 2) lir_block_add(&in, lir_store(F, P, (lir_expr *[]){I(0), I(IW / 2)}, lir_load(F, X, (lir_expr *[]){n.idx[0], n.idx[1], y, I(IW - 1)})));
  for (int64_t kw = 0; kw < KW; kw++) {
    int64_t d = kw - pl, b = d - 2 * floor_div(d, 2), q = floor_div(d, 2); /* column 2*ow + d = 2*(ow + q) + b */
    int64_t lo = floor_div(-d + 1, 2), hi = floor_div(IW - 1 - d, 2) + 1; /* 0 <= 2*ow + d < IW */
    if (lo < 0) lo = 0;
    if (hi > OW) hi = OW;
    if (hi <= lo) continue;
    lir_var *ow = lir_var_new(F, "ow", LIR_I64);
    lir_expr *o = lir_ref(F, ow);
    lir_block_add(&in, lir_for(F, ow, I(lo), I(hi - lo), LIR_FOR_VECTORIZED,
        lir_store(F, row, &o, lir_max(F, lir_load(F, row, &o), lir_load(F, P, (lir_expr *[]){I(b), lir_addi(F, o, q)})))));
  }
  lir_var *j0 = lir_var_new(F, "j", LIR_I64), *j1 = lir_var_new(F, "j", LIR_I64);
  lir_expr *e0 = lir_ref(F, j0), *e1 = lir_ref(F, j1);
  lir_stmt *s[3] = {lir_for(F, j0, I(0), I(OW), LIR_FOR_VECTORIZED, lir_store(F, row, &e0, init)),
                    lir_nest_close(F, &r, lir_if(F, inb, lir_block_stmt(&in), NULL), LIR_FOR_SERIAL),
                    lir_for(F, j1, I(0), I(OW), LIR_FOR_VECTORIZED,
                            lir_store(F, Y, (lir_expr *[]){n.idx[0], n.idx[1], n.idx[2], e1}, lir_load(F, row, &e1)))};
  int64_t work = lir_buf_numel(Y) * c->kern[0] * KW;
  lir_stmt *rows = lir_alloc_stmt(F, row, lir_alloc_stmt(F, P, lir_seq(F, 3, s)));
  lir_stmt *par = cpu_par_outer(l, &n, rows, LIR_FOR_SERIAL, work);
  F->body = par ? par : lir_nest_close(F, &n, rows, LIR_FOR_SERIAL);
  return 0;
}

/* MaxPool without the Indices output (and ovta.QMaxPool), the row schedule: for n, c and the
 * output dims but the last: row[:] = init; for the kernel dims, the outer ones under a test that
 * their input position is inside X (one per row), for the last output dim ow over the range whose
 * input position ow*s - a (a = pad - kw*d) is inside X (vectorized, no test): row[ow] =
 * max(row[ow], x); then Y's row = row. Each output takes the maxima of the generic schedule, the
 * in-bounds window positions in the same order, so the results are the same bits. */
static int maxpool_rows(L *l, lir_buf *X, lir_buf *Y, const convp *c, lir_expr *init) {
  int yr = Y->ndim, ls = c->k - 1;
  int64_t OW = Y->shape[yr - 1], IW = X->shape[yr - 1], s_ = c->stride[ls];
  lir_nest n, r;
  lir_nest_open(F, &n, yr - 1, Y->shape, "o");
  lir_nest_open(F, &r, c->k, c->kern, "r");
  lir_expr *xi[LIR_MAX_DIMS], *inb = NULL;
  xi[0] = n.idx[0];
  xi[1] = n.idx[1];
  for (int i = 0; i < ls; i++) {
    lir_expr *pos = lir_add(F, lir_addi(F, lir_muli(F, n.idx[2 + i], c->stride[i]), -c->pad[i]),
                            lir_muli(F, r.idx[i], c->dil[i]));
    int64_t in = X->shape[2 + i];
    inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, pos, I(0)), lir_bin(F, LIR_LT, pos, I(in))));
    xi[2 + i] = clampi(l, pos, 0, in - 1);
  }
  lir_var *ow = lir_var_new(F, "ow", LIR_I64), *j0 = lir_var_new(F, "j", LIR_I64), *j1 = lir_var_new(F, "j", LIR_I64);
  lir_expr *owe = lir_ref(F, ow), *e0 = lir_ref(F, j0), *e1 = lir_ref(F, j1);
  lir_expr *a = lir_sub(F, I(c->pad[ls]), lir_muli(F, r.idx[ls], c->dil[ls]));
  lir_expr *lo = lir_max(F, I(0), lir_bin(F, LIR_FLOORDIV, lir_addi(F, a, s_ - 1), I(s_)));
  lir_expr *hi = lir_min(F, I(OW), lir_addi(F, lir_bin(F, LIR_FLOORDIV, lir_addi(F, a, IW - 1), I(s_)), 1));
  xi[yr - 1] = lir_sub(F, lir_muli(F, owe, s_), a);
  lir_buf *row = lir_buf_new(F, "row", X->dtype, 1, &OW, LIR_SCOPE_LOCAL);
  lir_stmt *upd = lir_for(F, ow, lo, lir_max(F, I(0), lir_sub(F, hi, lo)), LIR_FOR_VECTORIZED,
                          lir_store(F, row, &owe, lir_max(F, lir_load(F, row, &owe), lir_load(F, X, xi))));
  if (inb) upd = lir_if(F, inb, upd, NULL);
  lir_expr *oidx[LIR_MAX_DIMS];
  for (int d = 0; d < yr - 1; d++) oidx[d] = n.idx[d];
  oidx[yr - 1] = e1;
  lir_stmt *s[3] = {lir_for(F, j0, I(0), I(OW), LIR_FOR_VECTORIZED, lir_store(F, row, &e0, init)),
                    lir_nest_close(F, &r, upd, LIR_FOR_SERIAL),
                    lir_for(F, j1, I(0), I(OW), LIR_FOR_VECTORIZED, lir_store(F, Y, oidx, lir_load(F, row, &e1)))};
  /* per output row (its own local row), rows in parallel when the pool is large */
  int64_t work = lir_buf_numel(Y);
  for (int i = 0; i < c->k; i++) work *= c->kern[i];
  lir_stmt *rows = lir_alloc_stmt(F, row, lir_seq(F, 3, s));
  lir_stmt *par = cpu_par_outer(l, &n, rows, LIR_FOR_SERIAL, work);
  F->body = par ? par : lir_nest_close(F, &n, rows, LIR_FOR_SERIAL);
  return 0;
}

/* MaxPool (and ovta.QMaxPool, int8, graph.h): y = max over the window (kernel_shape, strides, pads/auto_pad, dilations,
 * ceil_mode via the inferred output shape) of the in-bounds x; the optional Indices output
 * (int64) is the flat index into x of the first maximum: row-major (storage_order 0), or with
 * the spatial dims column-major (storage_order 1): ((n*C + c)*W + w)*H + h in 2-D.
 * AveragePool: y = sum of in-bounds x / count, count = in-bounds elements, or with
 * count_include_pad = 1 the window elements inside the padded input [-pad, in + pad_end).
 * LpPool (p, default 2): y = (sum of |x|^p over the in-bounds window)^(1/p). */
static int lower_pool(L *l, bool is_max) {
  double lp = strcmp(l->n->op, "LpPool") == 0 ? (double)ovta_node_attr_i(l->n, "p", 2) : 0;
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  bool colmajor = ovta_node_attr_i(l->n, "storage_order", 0) != 0;
  int nk;
  const int64_t *ks = ints(l, "kernel_shape", &nk);
  if (!ks || nk != X->ndim - 2) return bad(l, "kernel_shape missing or of the wrong rank");
  convp c;
  int rc = cpu_window(l, X, Y, ks, &c);
  if (rc) return rc;
  if (!is_max && !lir_dtype_is_float(X->dtype)) return unsup(l, "integer AveragePool/LpPool");
  bool incl = ovta_node_attr_i(l->n, "count_include_pad", 0) != 0;
  if (is_max && !l->out[1] && Y->shape[Y->ndim - 1] > 0) {
    if (c.k == 2 && c.stride[1] == 2 && c.dil[1] == 1 && lir_dtype_is_float(X->dtype))
      return maxpool_rows_s2(l, X, Y, &c, cst(l, X->dtype, lowest(X->dtype)));
    return maxpool_rows(l, X, Y, &c, cst(l, X->dtype, lowest(X->dtype)));
  }
  lir_nest n, r;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "o");
  lir_nest_open(F, &r, c.k, c.kern, "r");
  lir_expr *xi[LIR_MAX_DIMS], *inb = NULL, *inpad = NULL;
  xi[0] = n.idx[0];
  xi[1] = n.idx[1];
  for (int i = 0; i < c.k; i++) {
    lir_expr *pos = lir_add(F, lir_addi(F, lir_muli(F, n.idx[2 + i], c.stride[i]), -c.pad[i]),
                            lir_muli(F, r.idx[i], c.dil[i]));
    int64_t in = X->shape[2 + i];
    inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, pos, I(0)), lir_bin(F, LIR_LT, pos, I(in))));
    inpad = band(l, inpad, lir_bin(F, LIR_LT, pos, I(in + c.pad_end[i])));
    xi[2 + i] = clampi(l, pos, 0, in - 1);
  }
  lir_dtype t = X->dtype;
  lir_buf *acc = lir_buf_new(F, "acc", t, 0, NULL, LIR_SCOPE_LOCAL);
  lir_buf *cnt = lir_buf_new(F, "cnt", LIR_I64, 0, NULL, LIR_SCOPE_LOCAL);
  lir_buf *IX = is_max ? l->out[1] : NULL;
  if (IX && IX->dtype != LIR_I64) return bad(l, "Indices output not int64");
  lir_expr *x = lir_load(F, X, xi);
  lir_expr *a = lir_load(F, acc, NULL);
  lir_block blk, inner;
  lir_block_init(&blk, F);
  lir_block_init(&inner, F);
  double init;
  if (is_max) {
    init = lowest(t);
    if (IX) {
      /* cnt holds the flat index of the first maximum */
      lir_expr *flat = NULL;
      for (int q = 0; q < X->ndim; q++) {
        int d = colmajor && q >= 2 ? X->ndim - 1 - (q - 2) : q;
        flat = flat ? lir_add(F, lir_muli(F, flat, X->shape[d]), xi[d]) : xi[d];
      }
      lir_expr *gt = lir_bin(F, LIR_AND, inb, lir_bin(F, LIR_GT, x, a));
      lir_block_add(&inner, lir_if(F, gt, lir_seq(F, 2, (lir_stmt *[]){lir_store(F, acc, NULL, x), lir_store(F, cnt, NULL, flat)}), NULL));
    } else {
      lir_block_add(&inner, lir_store(F, acc, NULL, lir_select(F, inb, lir_max(F, a, x), a)));
    }
  } else if (lp > 0) {
    init = 0;
    lir_expr *ax = lir_call1(F, LIR_ABS, x);
    lir_expr *px = lp == 1 ? ax : lp == 2 ? lir_mul(F, ax, ax) : lir_call(F, LIR_POW, t, 2, (lir_expr *[]){ax, cst(l, t, lp)});
    lir_block_add(&inner, lir_store(F, acc, NULL, lir_select(F, inb, lir_add(F, a, px), a)));
  } else {
    init = 0;
    lir_block_add(&inner, lir_store(F, acc, NULL, lir_select(F, inb, lir_add(F, a, x), a)));
    lir_expr *one = lir_cast(F, LIR_I64, lir_select(F, incl ? inpad : inb, lir_int(F, LIR_I32, 1), lir_int(F, LIR_I32, 0)));
    lir_block_add(&inner, lir_store(F, cnt, NULL, lir_add(F, lir_load(F, cnt, NULL), one)));
  }
  lir_block_add(&blk, lir_store(F, acc, NULL, cst(l, t, init)));
  lir_block_add(&blk, lir_store(F, cnt, NULL, I(0)));
  lir_block_add(&blk, lir_nest_close(F, &r, lir_block_stmt(&inner), LIR_FOR_SERIAL));
  lir_expr *v = lir_load(F, acc, NULL);
  if (lp == 2) v = lir_call1(F, LIR_SQRT, v);
  else if (lp > 1) v = lir_call(F, LIR_POW, t, 2, (lir_expr *[]){v, cst(l, t, 1.0 / lp)});
  else if (!is_max && lp == 0) v = lir_bin(F, LIR_DIV, v, lir_cast(F, t, lir_load(F, cnt, NULL)));
  lir_block_add(&blk, lir_store(F, Y, n.idx, v));
  if (IX) lir_block_add(&blk, lir_store(F, IX, n.idx, lir_load(F, cnt, NULL)));
  F->body = lir_nest_close(F, &n, lir_alloc_stmt(F, acc, lir_alloc_stmt(F, cnt, lir_block_stmt(&blk))), LIR_FOR_SERIAL);
  return 0;
}

/* GlobalAveragePool: y[n, c, 1...] = mean over all spatial positions of x[n, c, ...];
 * GlobalMaxPool: the maximum instead. */
static int lower_global(L *l, bool is_max) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (X->ndim < 3 || !lir_dtype_is_float(X->dtype)) return unsup(l, "input not float of rank >= 3");
  if (is_max && lir_buf_numel(X) == 0) return unsup(l, "an empty input");
  int64_t nc = X->shape[0] * X->shape[1], sp = lir_buf_numel(X) / (nc ? nc : 1);
  view(X, 2, (int64_t[]){nc, sp});
  view(Y, 1, &nc);
  lir_var *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_buf *acc = lir_buf_new(F, "acc", X->dtype, 0, NULL, LIR_SCOPE_LOCAL);
  lir_expr *ii = lir_ref(F, i), *jj = lir_ref(F, j);
  lir_stmt *s[3] = {
      lir_store(F, acc, NULL, cst(l, X->dtype, is_max ? -INFINITY : 0)),
      lir_for(F, j, I(0), I(sp), LIR_FOR_SERIAL,
              lir_store(F, acc, NULL, lir_bin(F, is_max ? LIR_MAX : LIR_ADD, lir_load(F, acc, NULL), lir_load(F, X, (lir_expr *[]){ii, jj})))),
      lir_store(F, Y, &ii, is_max ? lir_load(F, acc, NULL) : lir_bin(F, LIR_DIV, lir_load(F, acc, NULL), cst(l, X->dtype, (double)sp)))};
  /* each (n, c) summed by one thread: in parallel when large */
  lir_for_kind k = nc >= 8 && nc * sp >= 32768 ? LIR_FOR_PARALLEL : LIR_FOR_SERIAL;
  F->body = lir_for(F, i, I(0), I(nc), k, lir_alloc_stmt(F, acc, lir_seq(F, 3, s)));
  return 0;
}

/* MaxUnpool: y = 0, then y[c] = x[i] for every element i of X, with c the coordinates of the
 * flat index I[i] in the default output shape D = [N, C, (d - 1) stride + kernel - pads ...]
 * (MaxPool's Indices); with output_shape, Y may be larger than D (the extra elements stay 0) and
 * coordinates outside Y are dropped. An index is clamped into D. */
static int lower_maxunpool(L *l) {
  lir_buf *X = l->in[0], *IX = l->in[1], *Y = l->out[0];
  if (!X || !IX || !Y || X->ndim != Y->ndim || X->ndim < 3) return bad(l, "missing input or output");
  int r = X->ndim, nsp = r - 2, nk, ns, np;
  const int64_t *ks = ints(l, "kernel_shape", &nk), *st = ints(l, "strides", &ns), *pd = ints(l, "pads", &np);
  if (!ks || nk != nsp) return bad(l, "kernel_shape");
  int64_t D[LIR_MAX_DIMS], ds[LIR_MAX_DIMS], nd = 1;
  D[0] = X->shape[0], D[1] = X->shape[1];
  for (int d = 0; d < nsp; d++)
    D[2 + d] = (X->shape[2 + d] - 1) * (st && ns == nsp ? st[d] : 1) + ks[d] - (pd && np == 2 * nsp ? pd[d] + pd[nsp + d] : 0);
  for (int d = r - 1; d >= 0; d--) ds[d] = nd, nd *= D[d] > 0 ? D[d] : 1;
  view1(X), view1(IX);
  lir_var *z = lir_var_new(F, "z", LIR_I64), *i = lir_var_new(F, "i", LIR_I64), *q = lir_var_new(F, "q", LIR_I64);
  lir_expr *zi = lir_ref(F, z), *Q = lir_ref(F, q), *yi[LIR_MAX_DIMS], *in = NULL;
  for (int d = 0; d < r; d++) {
    yi[d] = lir_bin(F, LIR_MOD, lir_bin(F, LIR_DIV, Q, I(ds[d])), I(D[d] > 0 ? D[d] : 1));
    if (D[d] > Y->shape[d]) in = band(l, in, lir_bin(F, LIR_LT, yi[d], I(Y->shape[d])));
  }
  lir_stmt *put = lir_store(F, Y, yi, lir_load1(F, X, lir_ref(F, i)));
  if (in) put = lir_if(F, in, put, NULL);
  lir_stmt *zero = lir_for(F, z, I(0), I(lir_buf_numel(Y)), LIR_FOR_VECTORIZED, lir_store1(F, Y, zi, cst(l, Y->dtype, 0)));
  lir_stmt *scat = lir_for(F, i, I(0), I(lir_buf_numel(X)), LIR_FOR_SERIAL,
                           lir_let(F, q, clampi(l, as_type(l, LIR_I64, lir_load1(F, IX, lir_ref(F, i))), 0, nd - 1), put));
  F->body = SEQ(zero, scat);
  return 0;
}

/* ovta.QGlobalAvgPool (graph.h): y[n, c] = clamp(ovta_requant(sum_hw(x[n, c]) * mult, shift),
 * clip_min, clip_max), the sum and product in int32 (wrapping). */
static int lower_qgap(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (X->ndim != 4 || X->dtype != LIR_I8 || Y->dtype != LIR_I8) return bad(l, "X and Y must be int8, X of rank 4");
  int64_t nc = X->shape[0] * X->shape[1], sp = X->shape[2] * X->shape[3];
  if (lir_buf_numel(Y) != nc) return bad(l, "Y is not [N, C, 1, 1]");
  view(X, 2, (int64_t[]){nc, sp});
  view(Y, 1, &nc);
  post p = {.kind = P_QFUSED, .shift = (int)ovta_node_attr_i(l->n, "shift", 0),
            .qlo = ovta_node_attr_i(l->n, "clip_min", -128), .qhi = ovta_node_attr_i(l->n, "clip_max", 127)};
  int64_t mult = ovta_node_attr_i(l->n, "mult", 1);
  lir_var *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_buf *acc = lir_buf_new(F, "acc", LIR_I32, 0, NULL, LIR_SCOPE_LOCAL);
  lir_expr *ii = lir_ref(F, i), *jj = lir_ref(F, j);
  lir_expr *x = lir_cast(F, LIR_I32, lir_load(F, X, (lir_expr *[]){ii, jj}));
  lir_expr *prod = lir_bin(F, LIR_MUL, lir_load(F, acc, NULL), lir_int(F, LIR_I32, mult));
  lir_stmt *s[3] = {lir_store(F, acc, NULL, lir_int(F, LIR_I32, 0)),
                    lir_for(F, j, I(0), I(sp), LIR_FOR_SERIAL, lir_store(F, acc, NULL, lir_bin(F, LIR_ADD, lir_load(F, acc, NULL), x))),
                    cpu_post_store(l, &p, Y, &ii, NULL, prod)};
  F->body = lir_for(F, i, I(0), I(nc), LIR_FOR_SERIAL, lir_alloc_stmt(F, acc, lir_seq(F, 3, s)));
  return 0;
}

/* ---------------------------------------------------------------- table */

static int lower_maxpool(L *l) { return lower_pool(l, true); }
static int lower_avgpool(L *l) { return lower_pool(l, false); }
static int lower_global_avg(L *l) { return lower_global(l, false); }
static int lower_global_max(L *l) { return lower_global(l, true); }

const cpu_rule cpu_rules_pool[] = {
    {"MaxPool", lower_maxpool},
    {"ovta.QMaxPool", lower_maxpool},
    {"AveragePool", lower_avgpool},
    {"GlobalAveragePool", lower_global_avg},
    {"GlobalMaxPool", lower_global_max},
    {"ovta.QGlobalAvgPool", lower_qgap},
    {"LpPool", lower_avgpool},
    {"MaxUnpool", lower_maxunpool},
    {NULL, NULL},
};
