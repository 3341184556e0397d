/* data.c: data movement: Flatten, Reshape, Squeeze, Unsqueeze, Identity (copies), Transpose,
 * Concat, Pad, Shape, Size, Slice, Split, Expand, Tile, ConstantOfShape, Range, Trilu,
 * DepthToSpace, SpaceToDepth, EyeLike. */

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

/* The values of constant integer input i (shape-like inputs: inference required them constant);
 * -1 when absent, -2 when not a constant. */
static int cints(L *l, int i, int64_t *v, int max) {
  const ovta_tensor *t = i < MAXIO ? l->tin[i] : NULL;
  if (!t) return -1;
  if (!t->data) return -2;
  int64_t n = ovta_tensor_numel(t);
  if (n > max) return -2;
  for (int64_t k = 0; k < n; k++) v[k] = ovta_tensor_get_i(t, k);
  return (int)n;
}

/* Pad (data, pads, [constant_value], [axes]; the importer turns the attributes of opset < 11
 * into inputs): pads (constant) holds the begin values then the end values of the listed axes
 * (default all; negative axes count from the end); y[i] = x[i - pad_begin] where inside;
 * outside, mode constant -> constant_value (default 0); edge -> the nearest edge element;
 * reflect -> mirrored without repeating the edge (period 2(d-1), any pad size); wrap -> x[(i -
 * pad_begin) mod d]. Negative pads crop. */
static int lower_pad(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  int r = X->ndim;
  int64_t pads[2 * LIR_MAX_DIMS] = {0}, pv[2 * LIR_MAX_DIMS], ax[LIR_MAX_DIMS];
  int np = cints(l, 1, pv, 2 * LIR_MAX_DIMS), na = cints(l, 3, ax, LIR_MAX_DIMS);
  if (np < 0) return unsup(l, "pads not a constant");
  if (na == -2) return unsup(l, "axes not a constant");
  if (na < 0) {
    na = r;
    for (int i = 0; i < r; i++) ax[i] = i;
  }
  if (np != 2 * na) return bad(l, "pads length is not 2 * the number of axes");
  for (int i = 0; i < na; i++) {
    int a = norm_axis(ax[i], r);
    if (a < 0 || a >= r) return bad(l, "axis out of range");
    pads[a] = pv[i], pads[r + a] = pv[na + i];
  }
  const char *mode = ovta_node_attr_s(l->n, "mode", "constant");
  int m = !strcmp(mode, "constant") ? 0 : !strcmp(mode, "edge") ? 1 : !strcmp(mode, "reflect") ? 2 : !strcmp(mode, "wrap") ? 3 : -1;
  if (m < 0) return unsup(l, "pad mode");
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS], *inb = NULL;
  for (int d = 0; d < r; d++) {
    int64_t in = X->shape[d];
    if (Y->shape[d] != in + pads[d] + pads[r + d]) return bad(l, "output shape does not match pads");
    lir_expr *p = lir_addi(F, n.idx[d], -pads[d]);
    if (pads[d] <= 0 && pads[r + d] <= 0) {
      xi[d] = p;
      continue;
    }
    if (in == 0) return unsup(l, "padding an empty dim");
    if (m == 0) {
      inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, p, I(0)), lir_bin(F, LIR_LT, p, I(in))));
      xi[d] = clampi(l, p, 0, in - 1);
    } else if (m == 1 || (m == 2 && in == 1)) {
      xi[d] = clampi(l, p, 0, in - 1);
    } else if (m == 3) {
      xi[d] = lir_bin(F, LIR_FLOORMOD, p, I(in));
    } else {
      /* q = p mod 2(in-1); q < in ? q : 2(in-1) - q */
      int64_t per = 2 * (in - 1);
      lir_expr *q = lir_bin(F, LIR_FLOORMOD, p, I(per));
      xi[d] = lir_select(F, lir_bin(F, LIR_LT, q, I(in)), q, lir_sub(F, I(per), q));
    }
  }
  lir_expr *v = lir_load(F, X, xi);
  if (inb) {
    lir_expr *cv = cst(l, X->dtype, 0);
    if (l->in[2]) cv = lir_load1(F, l->in[2], I(0));
    if (cv->dtype != X->dtype) cv = lir_cast(F, X->dtype, cv);
    v = lir_select(F, inb, v, cv);
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* Shape: y[i] = dim start + i of x (start/end of opset 15 already resolved into y's extent by
 * inference: start clamped into [0, r] after adding r when negative). */
static int lower_shape(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || Y->ndim != 1) return bad(l, "missing input or output");
  int r = X->ndim;
  int64_t st = ovta_node_attr_i(l->n, "start", 0);
  if (st < 0) st += r;
  st = st < 0 ? 0 : st > r ? r : st;
  lir_block blk;
  lir_block_init(&blk, F);
  for (int64_t i = 0; i < Y->shape[0]; i++) lir_block_add(&blk, lir_store1(F, Y, I(i), lir_int(F, Y->dtype, X->shape[st + i])));
  F->body = blk.n ? lir_block_stmt(&blk) : NULL;
  return 0;
}

/* Size: y = the element count of x (an int64 scalar). */
static int lower_size(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  F->body = lir_store1(F, Y, I(0), lir_int(F, Y->dtype, lir_buf_numel(X)));
  return 0;
}

/* Slice: y[i...] = x[start_d + i_d * step_d ...]; per sliced axis of size d: negative start/end
 * get + d, step > 0 clamps both into [0, d], step < 0 clamps start into [0, d-1] and end into
 * [-1, d-1] (the extent, max(0, ceil((end - start) / step)), is y's inferred shape). */
static int lower_slice(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim != Y->ndim) return bad(l, "missing input or output");
  int64_t st[LIR_MAX_DIMS], en[LIR_MAX_DIMS], ax[LIR_MAX_DIMS], sp[LIR_MAX_DIMS];
  int ns = cints(l, 1, st, LIR_MAX_DIMS), ne = cints(l, 2, en, LIR_MAX_DIMS), na = cints(l, 3, ax, LIR_MAX_DIMS),
      np = cints(l, 4, sp, LIR_MAX_DIMS);
  if (ns < 0 || ne != ns || na == -2 || np == -2) return unsup(l, "starts/ends/axes/steps must be constants");
  int r = X->ndim;
  int64_t start[LIR_MAX_DIMS] = {0}, step[LIR_MAX_DIMS];
  for (int d = 0; d < r; d++) step[d] = 1;
  for (int i = 0; i < ns; i++) {
    int a = na >= 0 ? norm_axis(ax[i], r) : i;
    if (a < 0 || a >= r) return bad(l, "axis out of range");
    int64_t s = np >= 0 ? sp[i] : 1, d = X->shape[a], b = st[i];
    if (s == 0) return bad(l, "step 0");
    if (b < 0) b = b < -d ? 0 : b + d;
    b = s > 0 ? (b > d ? d : b) : (b > d - 1 ? d - 1 : b);
    start[a] = b, step[a] = s;
  }
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS];
  for (int d = 0; d < r; d++) xi[d] = lir_addi(F, lir_muli(F, n.idx[d], step[d]), start[d]);
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* Split: output k is x's slice along axis (default 0) from the sum of the sizes before it, of
 * its inferred extent (sizes from the split input, num_outputs or equal parts). */
static int lower_split(L *l) {
  lir_buf *X = l->in[0];
  if (!X) return bad(l, "missing input");
  int r = X->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  if (axis < 0 || axis >= r) return bad(l, "axis out of range");
  lir_block blk;
  lir_block_init(&blk, F);
  int64_t off = 0;
  for (int k = 0; k < l->n->n_outputs && k < MAXOUT; k++) {
    lir_buf *Y = l->out[k];
    if (!Y) continue;
    if (Y->ndim != r) return bad(l, "outputs of different ranks");
    lir_nest n;
    lir_nest_open(F, &n, r, Y->shape, "i");
    lir_expr *xi[LIR_MAX_DIMS];
    for (int d = 0; d < r; d++) xi[d] = d == axis ? lir_addi(F, n.idx[d], off) : n.idx[d];
    lir_block_add(&blk, over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi))));
    off += Y->shape[axis];
  }
  if (off > X->shape[axis]) return bad(l, "output extents exceed the input");
  F->body = blk.n ? lir_block_stmt(&blk) : NULL;
  return 0;
}

/* Expand: y = x broadcast (multidirectional, right-aligned) to y's shape. */
static int lower_expand(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim > Y->ndim) return bad(l, "missing input or output");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, bload(l, X, Y->ndim, n.idx)));
  return 0;
}

/* Tile: y[i...] = x[i_d mod d_d ...]. */
static int lower_tile(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim != Y->ndim) return bad(l, "missing input or output");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS];
  for (int d = 0; d < X->ndim; d++)
    xi[d] = X->shape[d] == Y->shape[d] ? n.idx[d] : X->shape[d] <= 1 ? I(0) : lir_bin(F, LIR_MOD, n.idx[d], I(X->shape[d]));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* The value of a one-element tensor as a constant of dtype t (integers exactly). */
static lir_expr *tval(L *l, const ovta_tensor *v, lir_dtype t) {
  if (!v || !v->data) return cst(l, t, 0);
  if (lir_dtype_is_float(t)) return lir_float(F, t, ovta_tensor_get_f(v, 0));
  return lir_int(F, t, ovta_tensor_get_i(v, 0));
}

/* ConstantOfShape: every element of y is the attribute value (default float 0). */
static int lower_constant_of_shape(L *l) {
  lir_buf *Y = l->out[0];
  if (!Y) return bad(l, "missing output");
  const ovta_attr *a = ovta_node_attr(l->n, "value");
  lir_expr *v = tval(l, a && a->type == OVTA_ATTR_TENSOR ? a->t : NULL, Y->dtype);
  view1(Y);
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* Range: y[i] = start + i * delta (start, delta constant scalars; the extent is inferred). */
static int lower_range(L *l) {
  lir_buf *Y = l->out[0];
  if (!Y || !l->tin[0] || !l->tin[2]) return bad(l, "missing input or output");
  if (!l->tin[0]->data || !l->tin[2]->data) return unsup(l, "start and delta must be constants");
  lir_dtype t = Y->dtype;
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  lir_expr *v = lir_add(F, tval(l, l->tin[0], t), lir_bin(F, LIR_MUL, lir_cast(F, t, n.idx[0]), tval(l, l->tin[2], t)));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* Trilu: y[..., i, j] = x[..., i, j] where j - i >= k (upper, default) or j - i <= k (upper=0),
 * else 0; k is the optional int64 scalar input (default 0). */
static int lower_trilu(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0], *K = l->in[1];
  if (!X || !Y || X->ndim < 2) return bad(l, "missing input or output");
  bool upper = ovta_node_attr_i(l->n, "upper", 1) != 0;
  int r = Y->ndim;
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *k = K ? lir_cast(F, LIR_I64, lir_load1(F, K, I(0))) : I(0);
  lir_expr *dj = lir_sub(F, n.idx[r - 1], n.idx[r - 2]);
  lir_expr *keep = lir_bin(F, upper ? LIR_GE : LIR_LE, dj, k);
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_select(F, keep, lir_load(F, X, n.idx), cst(l, Y->dtype, 0))));
  return 0;
}

/* DepthToSpace (blocksize b, C' = C / b^2): y[n, c, h*b+i, w*b+j] = x[n, (i*b + j)*C' + c, h, w]
 * (mode DCR, default) or x[n, c*b^2 + i*b + j, h, w] (CRD). SpaceToDepth: y[n, (i*b + j)*C + c,
 * h, w] = x[n, c, h*b+i, w*b+j]. Both loop over the spatial side viewed as [N, C, H, b, W, b]. */
static int lower_space_depth(L *l, bool to_space) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim != 4 || Y->ndim != 4) return bad(l, "missing input or output");
  int64_t b = ovta_node_attr_i(l->n, "blocksize", 1);
  bool crd = strcmp(ovta_node_attr_s(l->n, "mode", "DCR"), "CRD") == 0;
  lir_buf *S = to_space ? Y : X, *D = to_space ? X : Y; /* spatial side, depth side */
  int64_t c = S->shape[1], h = D->shape[2], w = D->shape[3];
  view(S, 6, (int64_t[]){S->shape[0], c, h, b, w, b});
  lir_nest n;
  lir_nest_open(F, &n, 6, S->shape, "i");
  lir_expr **v = n.idx; /* n c h i w j */
  lir_expr *bij = lir_add(F, lir_muli(F, v[3], b), v[5]);
  lir_expr *dc = to_space && crd ? lir_add(F, lir_muli(F, v[1], b * b), bij) : lir_add(F, lir_muli(F, bij, c), v[1]);
  lir_expr *di[4] = {v[0], dc, v[2], v[4]};
  if (to_space) F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, di)));
  else F->body = over(l, &n, Y, lir_store(F, Y, di, lir_load(F, X, n.idx)));
  return 0;
}
static int lower_depth_to_space(L *l) { return lower_space_depth(l, true); }
static int lower_space_to_depth(L *l) { return lower_space_depth(l, false); }

/* EyeLike: y[i, j] = 1 where j - i == k (default 0), else 0, in y's dtype. */
static int lower_eyelike(L *l) {
  lir_buf *Y = l->out[0];
  if (!Y || Y->ndim != 2) return bad(l, "missing output");
  int64_t k = ovta_node_attr_i(l->n, "k", 0);
  lir_nest n;
  lir_nest_open(F, &n, 2, Y->shape, "i");
  lir_expr *on = lir_bin(F, LIR_EQ, lir_sub(F, n.idx[1], n.idx[0]), I(k));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_select(F, on, cst(l, Y->dtype, 1), cst(l, Y->dtype, 0))));
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
    {"Shape", lower_shape},
    {"Size", lower_size},
    {"Slice", lower_slice},
    {"Split", lower_split},
    {"Expand", lower_expand},
    {"Tile", lower_tile},
    {"ConstantOfShape", lower_constant_of_shape},
    {"Range", lower_range},
    {"Trilu", lower_trilu},
    {"DepthToSpace", lower_depth_to_space},
    {"SpaceToDepth", lower_space_to_depth},
    {"EyeLike", lower_eyelike},
    {NULL, NULL},
};
