/* infer_index.c: inference of the gather/scatter/index operators: Gather, GatherElements,
 * GatherND, ScatterND, ScatterElements, Scatter, OneHot, Compress, ReverseSequence; NonZero and
 * Unique are refused (their output shape depends on the data).
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. Indices are int32 or int64; a negative index counts from the end of its dim. */

#include "infer_internal.h"

static bool is_index(ovta_dtype t) { return t == OVTA_DT_I32 || t == OVTA_DT_I64; }

/* Gather (13): data rank r >= 1, indices rank q, axis in [-r, r-1] (default 0); Y has rank
 * q + r - 1: data's dims before axis, indices' dims, data's dims after axis;
 * y[a.., i.., b..] = data[a.., indices[i..], b..]. */
static int infer_gather(ctx *c) {
  ovta_tensor *x, *ix;
  if (ix_allow(c, "axis") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &ix)) return c->err->code;
  if (!is_index(ix->dtype)) return ix_bad(c, OVTA_EINVAL, "indices must be int32 or int64");
  if (x->rank < 1) return ix_bad(c, OVTA_EINVAL, "data must have rank >= 1");
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0);
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  int r = x->rank + ix->rank - 1;
  if (r > OVTA_MAX_RANK) return ix_bad(c, OVTA_EUNSUPPORTED, "output rank %d is above %d", r, OVTA_MAX_RANK);
  int64_t s[OVTA_MAX_RANK];
  int k = 0;
  for (int d = 0; d < axis; d++) s[k++] = x->shape[d];
  for (int d = 0; d < ix->rank; d++) s[k++] = ix->shape[d];
  for (int d = (int)axis + 1; d < x->rank; d++) s[k++] = x->shape[d];
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* GatherElements (13): data and indices of one rank r >= 1, axis in [-r, r-1] (default 0);
 * Y has indices' shape; y[i..] = data[i.. with dim axis replaced by indices[i..]]. */
static int infer_gather_elements(ctx *c) {
  ovta_tensor *x, *ix;
  if (ix_allow(c, "axis") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &ix)) return c->err->code;
  if (!is_index(ix->dtype)) return ix_bad(c, OVTA_EINVAL, "indices must be int32 or int64");
  if (x->rank < 1 || ix->rank != x->rank) return ix_bad(c, OVTA_EINVAL, "data and indices must have one rank >= 1");
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0);
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  return ix_set_out(c, 0, x->dtype, ix->rank, ix->shape);
}

/* GatherND (13): data rank r >= 1, indices rank q >= 1 with k = indices.shape[-1] known,
 * batch_dims b >= 0 (default 0) with b < min(q, r), the first b dims equal, b + k <= r; Y is
 * indices.shape[:-1] + data.shape[b+k:]; y[i.., j..] = data[i_0..i_(b-1), indices[i.., 0..k-1], j..]. */
static int infer_gather_nd(ctx *c) {
  ovta_tensor *x, *ix;
  if (ix_allow(c, "batch_dims") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &ix)) return c->err->code;
  if (ix->dtype != OVTA_DT_I64) return ix_bad(c, OVTA_EINVAL, "indices must be int64");
  int64_t b = ovta_node_attr_i(c->n, "batch_dims", 0);
  int q = ix->rank, r = x->rank;
  if (r < 1 || q < 1) return ix_bad(c, OVTA_EINVAL, "data and indices must have rank >= 1");
  if (b < 0 || b >= q || b >= r) return ix_bad(c, OVTA_EINVAL, "batch_dims %lld is out of range", (long long)b);
  int64_t k = ix->shape[q - 1];
  if (k < 0) return ix_bad(c, OVTA_EUNSUPPORTED, "the last dim of indices must be known");
  if (b + k > r) return ix_bad(c, OVTA_EINVAL, "indices address %lld dims of rank %d data", (long long)(b + k), r);
  for (int d = 0; d < b; d++)
    if (x->shape[d] != ix->shape[d]) return ix_bad(c, OVTA_EINVAL, "batch dim %d differs", d);
  int64_t s[OVTA_MAX_RANK];
  int n = 0;
  if (q - 1 + r - (b + k) > OVTA_MAX_RANK) return ix_bad(c, OVTA_EUNSUPPORTED, "output rank is above %d", OVTA_MAX_RANK);
  for (int d = 0; d < q - 1; d++) s[n++] = ix->shape[d];
  for (int d = (int)(b + k); d < r; d++) s[n++] = x->shape[d];
  return ix_set_out(c, 0, x->dtype, n, s);
}

/* The reduction attribute of ScatterND/ScatterElements (16/18): none, add, mul, max, min. */
static int check_reduction(ctx *c) {
  const char *m = ovta_node_attr_s(c->n, "reduction", "none");
  if (strcmp(m, "none") && strcmp(m, "add") && strcmp(m, "mul") && strcmp(m, "max") && strcmp(m, "min"))
    return ix_bad(c, OVTA_EINVAL, "reduction '%s' is not none, add, mul, max or min", m);
  return OVTA_OK;
}

/* ScatterND (16/18): Y = copy of data (rank r), then for every i of indices.shape[:-1] (k =
 * indices.shape[-1] <= r): Y[indices[i, :], ...] = updates[i, ...] (reduction none), or combined
 * with add/mul/max/min; updates.shape = indices.shape[:-1] + data.shape[k:]. */
static int infer_scatter_nd(ctx *c) {
  ovta_tensor *x, *ix, *u;
  if (ix_allow(c, "reduction") || ix_count_io(c, 3, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &ix) || ix_need(c, 2, &u) ||
      check_reduction(c))
    return c->err->code;
  if (ix->dtype != OVTA_DT_I64) return ix_bad(c, OVTA_EINVAL, "indices must be int64");
  int q = ix->rank, r = x->rank;
  int64_t k = q > 0 ? ix->shape[q - 1] : -1;
  if (q < 1 || k < 0 || k > r) return ix_bad(c, OVTA_EINVAL, "indices' last dim must be known and at most the data's rank");
  if (u->dtype != x->dtype || u->rank != q - 1 + r - k) return ix_bad(c, OVTA_EINVAL, "updates has the wrong type or rank");
  for (int d = 0; d < u->rank; d++) {
    int64_t want = d < q - 1 ? ix->shape[d] : x->shape[k + d - (q - 1)];
    if (want >= 0 && u->shape[d] >= 0 && want != u->shape[d]) return ix_bad(c, OVTA_EINVAL, "updates dim %d is %lld, not %lld", d, (long long)u->shape[d], (long long)want);
  }
  return ix_same_as(c, 0, x);
}

/* ScatterElements (16/18) and Scatter (9-10, the same without reduction): data, indices and
 * updates of one rank, indices and updates of one shape, axis in [-r, r-1] (default 0); Y = copy
 * of data, then for every i of indices: Y[i with dim axis replaced by indices[i]] = updates[i]
 * (or combined with the reduction). */
static int infer_scatter_elements(ctx *c) {
  ovta_tensor *x, *ix, *u;
  bool old = !strcmp(c->n->op, "Scatter");
  if (ix_allow(c, old ? "axis" : "axis,reduction") || ix_count_io(c, 3, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &ix) ||
      ix_need(c, 2, &u) || check_reduction(c))
    return c->err->code;
  if (!is_index(ix->dtype)) return ix_bad(c, OVTA_EINVAL, "indices must be int32 or int64");
  if (u->dtype != x->dtype || ix->rank != x->rank || u->rank != x->rank) return ix_bad(c, OVTA_EINVAL, "data, indices and updates must have one rank (and updates data's type)");
  for (int d = 0; d < ix->rank; d++)
    if (ix->shape[d] != u->shape[d]) return ix_bad(c, OVTA_EINVAL, "indices and updates differ in dim %d", d);
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0);
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  return ix_same_as(c, 0, x);
}

/* OneHot (11): indices (any numeric type, rank q), depth (a constant scalar, > 0), values
 * [off, on] (rank 1, 2 values); axis in [-(q+1), q] (default -1). Y has values' type and rank
 * q + 1 with depth inserted at axis; y = on where the index (truncated to an integer, + depth
 * when negative) equals the position along axis, else off. */
static int infer_onehot(ctx *c) {
  ovta_tensor *ix, *dp, *v;
  if (ix_allow(c, "axis") || ix_count_io(c, 3, 3, 1, 1) || ix_need(c, 0, &ix) || ix_need(c, 1, &dp) || ix_need(c, 2, &v))
    return c->err->code;
  if (!dp->data) return ix_bad(c, OVTA_EUNSUPPORTED, "input 'depth' must be a constant (the output shape depends on it)");
  if (ovta_tensor_numel(dp) != 1) return ix_bad(c, OVTA_EINVAL, "depth must be a scalar");
  if (v->rank != 1 || v->shape[0] != 2) return ix_bad(c, OVTA_EINVAL, "values must hold 2 elements");
  double depth = ovta_tensor_get_f(dp, 0);
  if (!(depth >= 1 && depth < (1 << 30))) return ix_bad(c, OVTA_EINVAL, "depth %g is out of range", depth);
  int r = ix->rank + 1;
  if (r > OVTA_MAX_RANK) return ix_bad(c, OVTA_EUNSUPPORTED, "output rank %d is above %d", r, OVTA_MAX_RANK);
  int64_t axis = ovta_node_attr_i(c->n, "axis", -1);
  if (ix_norm_axis(c, &axis, r, false, "axis")) return c->err->code;
  int64_t s[OVTA_MAX_RANK];
  for (int d = 0, k = 0; d < r; d++) s[d] = d == axis ? (int64_t)depth : ix->shape[k++];
  return ix_set_out(c, 0, v->dtype, r, s);
}

/* Compress (11): condition is a constant 1-D bool tensor; without axis the input is flattened.
 * Along axis (in [-r, r-1]) keep the slices whose condition is true (a condition shorter than
 * the dim is false beyond its end); Y's dim there is the count of true values. */
static int infer_compress(ctx *c) {
  ovta_tensor *x, *cd;
  if (ix_allow(c, "axis") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &cd)) return c->err->code;
  if (!cd->data) return ix_bad(c, OVTA_EUNSUPPORTED, "input 'condition' must be a constant (the output shape depends on it)");
  if (cd->rank != 1) return ix_bad(c, OVTA_EINVAL, "condition must be 1-D");
  const ovta_attr *a = ovta_node_attr(c->n, "axis");
  int64_t axis = a ? ovta_node_attr_i(c->n, "axis", 0) : 0, dim;
  int64_t s[OVTA_MAX_RANK];
  int r;
  if (a) {
    if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
    memcpy(s, x->shape, sizeof s);
    r = x->rank;
    dim = x->shape[axis];
  } else {
    r = 1;
    dim = ovta_tensor_numel(x);
  }
  if (dim < 0) return ix_bad(c, OVTA_EUNSUPPORTED, "the compressed dim must be known");
  if (cd->shape[0] > dim) return ix_bad(c, OVTA_EINVAL, "condition has %lld values for a dim of %lld", (long long)cd->shape[0], (long long)dim);
  int64_t n = 0;
  for (int64_t i = 0; i < cd->shape[0]; i++) n += ovta_tensor_get_i(cd, i) != 0;
  s[a ? axis : 0] = n;
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* ReverseSequence (10): x rank >= 2, batch_axis and time_axis (defaults 1 and 0) distinct, in
 * {0, 1}; sequence_lens int64 [batch]; y[b, t, ..] = x[b, len[b] - 1 - t, ..] for t < len[b],
 * else x[b, t, ..]. */
static int infer_reverse_sequence(ctx *c) {
  ovta_tensor *x, *sl;
  if (ix_allow(c, "batch_axis,time_axis") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &sl))
    return c->err->code;
  int64_t ba = ovta_node_attr_i(c->n, "batch_axis", 1), ta = ovta_node_attr_i(c->n, "time_axis", 0);
  if (x->rank < 2) return ix_bad(c, OVTA_EINVAL, "input rank must be >= 2");
  if ((ba != 0 && ba != 1) || (ta != 0 && ta != 1) || ba == ta) return ix_bad(c, OVTA_EINVAL, "batch_axis and time_axis must be 0 and 1");
  if (!is_index(sl->dtype) || sl->rank != 1 || (sl->shape[0] >= 0 && x->shape[ba] >= 0 && sl->shape[0] != x->shape[ba]))
    return ix_bad(c, OVTA_EINVAL, "sequence_lens must be int64 [batch]");
  return ix_same_as(c, 0, x);
}

/* NonZero, Unique: refused; the output shape depends on the input values, and the CPU path
 * compiles static shapes only. */
static int infer_data_dependent(ctx *c) {
  return ix_bad(c, OVTA_EUNSUPPORTED, "the output shape of %s depends on the input data (only static shapes are compiled)", c->n->op);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_index[] = {
    {"Gather", infer_gather},
    {"GatherElements", infer_gather_elements},
    {"GatherND", infer_gather_nd},
    {"ScatterND", infer_scatter_nd},
    {"ScatterElements", infer_scatter_elements},
    {"Scatter", infer_scatter_elements},
    {"OneHot", infer_onehot},
    {"Compress", infer_compress},
    {"ReverseSequence", infer_reverse_sequence},
    {"NonZero", infer_data_dependent},
    {"Unique", infer_data_dependent},
    {NULL, NULL},
};
