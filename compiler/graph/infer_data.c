/* infer_data.c: inference of data movement: Flatten, Reshape, Transpose, Concat, Pad, Squeeze,
 * Unsqueeze, Constant.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* Flatten (13): axis in [-r, r] (default 1); Y [prod(d0..d(axis-1)), prod(d(axis)..)]. */
static int infer_flatten(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "axis") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  int64_t axis = ovta_node_attr_i(c->n, "axis", 1);
  if (ix_norm_axis(c, &axis, x->rank, true, "axis")) return c->err->code;
  int64_t s[2] = {ovta_shape_numel(x->shape, (int)axis), ovta_shape_numel(x->shape + axis, x->rank - (int)axis)};
  return ix_set_out(c, 0, x->dtype, 2, s);
}

/* Reshape (14): shape is a constant int64 input; 0 copies the input dim (unless allowzero=1),
 * at most one -1 is inferred from the element count. */
static int infer_reshape(ctx *c) {
  ovta_tensor *x;
  int64_t v[OVTA_MAX_RANK + 1];
  int n;
  if (ix_allow(c, "allowzero") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, v, OVTA_MAX_RANK, &n))
    return c->err->code;
  bool az = ovta_node_attr_i(c->n, "allowzero", 0) != 0;
  int neg = -1;
  int64_t known = 1;
  for (int i = 0; i < n; i++) {
    if (v[i] == 0 && !az) {
      if (i >= x->rank) return ix_bad(c, OVTA_EINVAL, "shape[%d] = 0 copies a dim the input does not have", i);
      v[i] = x->shape[i];
    }
    if (v[i] == -1) {
      if (neg >= 0) return ix_bad(c, OVTA_EINVAL, "shape has more than one -1");
      neg = i;
      continue;
    }
    if (v[i] < -1) return ix_bad(c, OVTA_EINVAL, "shape[%d] = %lld is invalid", i, (long long)v[i]);
    if (v[i] < 0) known = -1;
    else if (known >= 0) known = ovta_shape_numel(&v[i], 1) >= 0 && (v[i] == 0 || known <= ((int64_t)1 << 62) / v[i]) ? known * v[i] : -2;
    if (known == -2) return ix_bad(c, OVTA_EINVAL, "the element count of the new shape overflows");
  }
  int64_t total = ovta_tensor_numel(x);
  if (neg >= 0) {
    if (total < 0 || known < 0) v[neg] = -1;
    else if (known == 0 || total % known) return ix_bad(c, OVTA_EINVAL, "cannot infer the -1 dim: %lld elements into %lld", (long long)total, (long long)known);
    else v[neg] = total / known;
  } else if (total >= 0 && known >= 0 && total != known) {
    return ix_bad(c, OVTA_EINVAL, "cannot reshape %lld elements into %lld", (long long)total, (long long)known);
  }
  return ix_set_out(c, 0, x->dtype, n, v);
}

/* Transpose (13): perm (default reversed dims) is a permutation of 0..r-1; Y[i] = X[perm[i]]. */
static int infer_transpose(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "perm") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  int64_t perm[OVTA_MAX_RANK], s[OVTA_MAX_RANK];
  if (ix_ints_attr(c, "perm", x->rank, perm, 0, 0)) return c->err->code;
  if (!ovta_node_attr(c->n, "perm"))
    for (int i = 0; i < x->rank; i++) perm[i] = x->rank - 1 - i;
  int seen = 0;
  for (int i = 0; i < x->rank; i++) {
    if (perm[i] >= x->rank || (seen & (1 << perm[i]))) return ix_bad(c, OVTA_EINVAL, "perm is not a permutation of 0..%d", x->rank - 1);
    seen |= 1 << perm[i];
    s[i] = x->shape[perm[i]];
  }
  if (ovta_node_set_ints(c->n, "perm", perm, x->rank, c->err)) return c->err->code;
  return ix_set_out(c, 0, x->dtype, x->rank, s);
}

/* Concat (13): axis required in [-r, r-1]; inputs of one type and rank, equal but on axis. */
static int infer_concat(ctx *c) {
  ovta_tensor *x, *y;
  if (ix_allow(c, "axis") || ix_count_io(c, 1, 4096, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (!ovta_node_attr(c->n, "axis")) return ix_bad(c, OVTA_EINVAL, "attribute 'axis' is required");
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0);
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, x->shape, sizeof s);
  for (int i = 1; i < c->n->n_inputs; i++) {
    if (ix_need(c, i, &y)) return c->err->code;
    if (y->dtype != x->dtype || y->rank != x->rank) return ix_bad(c, OVTA_EINVAL, "input %d '%s' differs in type or rank", i, y->name);
    for (int d = 0; d < x->rank; d++) {
      if (d == axis) s[d] = s[d] < 0 || y->shape[d] < 0 ? -1 : s[d] + y->shape[d];
      else if (y->shape[d] != x->shape[d]) return ix_bad(c, OVTA_EINVAL, "input %d '%s' differs in dim %d", i, y->name, d);
    }
  }
  return ix_set_out(c, 0, x->dtype, x->rank, s);
}

/* Pad (13/18): data, pads (constant int64 [2*r], or [2*len(axes)] with the axes input of 18),
 * optional constant_value scalar; mode constant|reflect|edge. Y dim i = d_i + begin_i + end_i. */
static int infer_pad(ctx *c) {
  ovta_tensor *x;
  int64_t p[2 * OVTA_MAX_RANK], ax[OVTA_MAX_RANK];
  int np, na;
  if (ix_allow(c, "mode") || ix_count_io(c, 2, 4, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, p, 2 * OVTA_MAX_RANK, &np) ||
      ix_const_ints(c, 3, ax, OVTA_MAX_RANK, &na))
    return c->err->code;
  const char *mode = ovta_node_attr_s(c->n, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
    return ix_bad(c, OVTA_EINVAL, "mode '%s' is not constant, reflect or edge", mode);
  if (np < 0) return ix_bad(c, OVTA_EINVAL, "input 'pads' is missing");
  int r = x->rank;
  if (na < 0) {
    na = r;
    for (int i = 0; i < r; i++) ax[i] = i;
  }
  if (np != 2 * na) return ix_bad(c, OVTA_EINVAL, "pads has %d values, needs %d", np, 2 * na);
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, x->shape, sizeof s);
  for (int i = 0; i < na; i++) {
    int64_t a = ax[i];
    if (ix_norm_axis(c, &a, r, false, "axes value")) return c->err->code;
    if (s[a] < 0) continue;
    s[a] += p[i] + p[na + i];
    if (s[a] < 0) return ix_bad(c, OVTA_EINVAL, "negative pads remove more than dim %lld holds", (long long)a);
  }
  ovta_tensor *v = ix_in(c, 2);
  if (v && v->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "constant_value must have the data's type");
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* Squeeze (13): axes (optional constant int64 input): remove those dims (each must be 1);
 * without axes remove every dim of size 1. */
static int infer_squeeze(ctx *c) {
  ovta_tensor *x;
  int64_t ax[OVTA_MAX_RANK];
  int na;
  if (ix_allow(c, "") || ix_count_io(c, 1, 2, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, ax, OVTA_MAX_RANK, &na)) return c->err->code;
  bool drop[OVTA_MAX_RANK] = {0};
  if (na < 0) {
    for (int i = 0; i < x->rank; i++) {
      if (x->shape[i] < 0) return ix_bad(c, OVTA_EUNSUPPORTED, "squeezing without axes needs known dims");
      drop[i] = x->shape[i] == 1;
    }
  } else {
    for (int i = 0; i < na; i++) {
      if (ix_norm_axis(c, &ax[i], x->rank, false, "axes value")) return c->err->code;
      if (drop[ax[i]]) return ix_bad(c, OVTA_EINVAL, "axis %lld is listed twice", (long long)ax[i]);
      if (x->shape[ax[i]] != 1 && x->shape[ax[i]] >= 0)
        return ix_bad(c, OVTA_EINVAL, "dim %lld has size %lld, not 1", (long long)ax[i], (long long)x->shape[ax[i]]);
      drop[ax[i]] = true;
    }
  }
  int64_t s[OVTA_MAX_RANK];
  int r = 0;
  for (int i = 0; i < x->rank; i++)
    if (!drop[i]) s[r++] = x->shape[i];
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* Unsqueeze (13): axes (constant int64 input, required) in [-(r+k), r+k-1], no repeats: insert
 * dims of size 1 at those positions of the output. */
static int infer_unsqueeze(ctx *c) {
  ovta_tensor *x;
  int64_t ax[OVTA_MAX_RANK];
  int na;
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, ax, OVTA_MAX_RANK, &na)) return c->err->code;
  int r = x->rank + na;
  if (r > OVTA_MAX_RANK) return ix_bad(c, OVTA_EUNSUPPORTED, "output rank %d is above %d", r, OVTA_MAX_RANK);
  bool ins[OVTA_MAX_RANK] = {0};
  for (int i = 0; i < na; i++) {
    if (ix_norm_axis(c, &ax[i], r, false, "axes value")) return c->err->code;
    if (ins[ax[i]]) return ix_bad(c, OVTA_EINVAL, "axis %lld is listed twice", (long long)ax[i]);
    ins[ax[i]] = true;
  }
  int64_t s[OVTA_MAX_RANK];
  for (int i = 0, k = 0; i < r; i++) s[i] = ins[i] ? 1 : x->shape[k++];
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* Constant (13): the output is the value attribute (the importer turns these into constants;
 * JSON graphs may still hold them). */
static int infer_constant(ctx *c) {
  if (ix_count_io(c, 0, 0, 1, 1)) return c->err->code;
  const ovta_attr *a = ovta_node_attr(c->n, "value");
  if (!a || a->type != OVTA_ATTR_TENSOR || c->n->n_attrs != 1)
    return ix_bad(c, OVTA_EUNSUPPORTED, "only the 'value' tensor attribute is supported");
  return ix_set_out(c, 0, a->t->dtype, a->t->rank, a->t->shape);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_data[] = {
    {"Flatten", infer_flatten},
    {"Reshape", infer_reshape},
    {"Transpose", infer_transpose},
    {"Concat", infer_concat},
    {"Pad", infer_pad},
    {"Squeeze", infer_squeeze},
    {"Unsqueeze", infer_unsqueeze},
    {"Constant", infer_constant},
    {NULL, NULL},
};
