/* infer_data.c: inference of data movement: Flatten, Reshape, Transpose, Concat, Pad, Squeeze,
 * Unsqueeze, Constant.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include <math.h>

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
 * optional constant_value scalar; mode constant|reflect|edge|wrap (19). Y dim i = d_i + begin_i + end_i. */
static int infer_pad(ctx *c) {
  ovta_tensor *x;
  int64_t p[2 * OVTA_MAX_RANK], ax[OVTA_MAX_RANK];
  int np, na;
  if (ix_allow(c, "mode") || ix_count_io(c, 2, 4, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, p, 2 * OVTA_MAX_RANK, &np) ||
      ix_const_ints(c, 3, ax, OVTA_MAX_RANK, &na))
    return c->err->code;
  const char *mode = ovta_node_attr_s(c->n, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge") && strcmp(mode, "wrap"))
    return ix_bad(c, OVTA_EINVAL, "mode '%s' is not constant, reflect, edge or wrap", mode);
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
  /* a constant of another type is converted (the importer's float value of Pad < 11) */
  if (v && v->dtype != x->dtype && !v->data) return ix_bad(c, OVTA_EINVAL, "constant_value must have the data's type");
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

/* Shape (15): Y int64 [end - start], the input's dims start..end-1; start (default 0) and end
 * (default r) count from the end when negative and are clamped into [0, r]. */
static int infer_shape(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "start,end") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  int r = x->rank;
  int64_t st = ovta_node_attr_i(c->n, "start", 0), en = ovta_node_attr_i(c->n, "end", r);
  if (st < 0) st += r;
  if (en < 0) en += r;
  st = st < 0 ? 0 : st > r ? r : st;
  en = en < 0 ? 0 : en > r ? r : en;
  int64_t n = en > st ? en - st : 0;
  return ix_set_out(c, 0, OVTA_DT_I64, 1, &n);
}

/* Size (13): Y int64 scalar, the input's element count. */
static int infer_size(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  int64_t none[1] = {0};
  return ix_set_out(c, 0, OVTA_DT_I64, 0, none);
}

/* Slice (13; the importer turns the attributes of opset < 10 into inputs): starts, ends and the
 * optional axes (default 0..len-1, negative count from the end, no repeats) and steps (default 1,
 * never 0) are constant int32/int64 inputs. Per sliced axis of size d: negative start/end get + d;
 * step > 0 clamps start and end into [0, d], step < 0 clamps start into [0, d-1] and end into
 * [-1, d-1]; the output dim is max(0, ceil((end - start) / step)), y[i] = x[start + i * step]. */
static int infer_slice(ctx *c) {
  ovta_tensor *x;
  int64_t st[OVTA_MAX_RANK], en[OVTA_MAX_RANK], ax[OVTA_MAX_RANK], sp[OVTA_MAX_RANK];
  int ns, ne, na, np;
  if (ix_allow(c, "") || ix_count_io(c, 3, 5, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, st, OVTA_MAX_RANK, &ns) ||
      ix_const_ints(c, 2, en, OVTA_MAX_RANK, &ne) || ix_const_ints(c, 3, ax, OVTA_MAX_RANK, &na) ||
      ix_const_ints(c, 4, sp, OVTA_MAX_RANK, &np))
    return c->err->code;
  if (ns != ne) return ix_bad(c, OVTA_EINVAL, "starts has %d values, ends %d", ns, ne);
  if ((na >= 0 && na != ns) || (np >= 0 && np != ns))
    return ix_bad(c, OVTA_EINVAL, "axes and steps must have as many values as starts (%d)", ns);
  if (ns > x->rank) return ix_bad(c, OVTA_EINVAL, "%d slices for rank %d", ns, x->rank);
  int64_t start[OVTA_MAX_RANK], step[OVTA_MAX_RANK], dim[OVTA_MAX_RANK];
  int rc = ovta_slice_params(x, st, en, na >= 0 ? ax : NULL, np >= 0 ? sp : NULL, ns, start, step, dim);
  if (rc == 1) return ix_bad(c, OVTA_EINVAL, "an axis is out of range or repeated");
  if (rc == 2) return ix_bad(c, OVTA_EINVAL, "a step is 0");
  return ix_set_out(c, 0, x->dtype, x->rank, dim);
}

/* The per-dim start, step and output extent of a Slice (the rule above infer_slice); axes and
 * steps may be NULL (defaults). 0, 1 for a bad or repeated axis, 2 for a zero step. Unknown input
 * dims give unknown output dims. */
int ovta_slice_params(const ovta_tensor *x, const int64_t *st, const int64_t *en, const int64_t *ax, const int64_t *sp,
                      int na, int64_t *start, int64_t *step, int64_t *dim) {
  int r = x->rank;
  bool seen[OVTA_MAX_RANK] = {0};
  for (int d = 0; d < r; d++) start[d] = 0, step[d] = 1, dim[d] = x->shape[d];
  for (int i = 0; i < na; i++) {
    int64_t a = ax ? ax[i] : i;
    if (a < 0) a += r;
    if (a < 0 || a >= r || seen[a]) return 1;
    seen[a] = true;
    int64_t s = sp ? sp[i] : 1, d = x->shape[a];
    if (s == 0) return 2;
    step[a] = s;
    if (d < 0) {
      dim[a] = -1;
      continue;
    }
    int64_t b = st[i], e = en[i];
    if (b < 0) b = b < -d ? 0 : b + d;
    if (e < 0) e = e < -d - 1 ? -1 : e + d;
    if (s > 0) {
      b = b < 0 ? 0 : b > d ? d : b;
      e = e < 0 ? 0 : e > d ? d : e;
    } else {
      b = b < 0 ? 0 : b > d - 1 ? d - 1 : b;
      e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
    }
    /* ceil(span / |s|) without overflow for any step */
    int64_t span = s > 0 ? e - b : b - e;
    uint64_t as = s > 0 ? (uint64_t)s : (uint64_t)0 - (uint64_t)s;
    start[a] = b;
    dim[a] = span > 0 ? (int64_t)(((uint64_t)span - 1) / as) + 1 : 0;
  }
  return 0;
}

/* Split (13/18; the importer turns the attribute split of opset < 13 into input 1): along axis
 * (default 0), the sizes in the constant input split (summing to the dim), else num_outputs
 * (18) or the output count: equal parts of ceil(d / n), the last one smaller. */
static int infer_split(ctx *c) {
  ovta_tensor *x;
  int64_t sz[64];
  int ns;
  if (c->n->n_outputs > 64) return ix_bad(c, OVTA_EUNSUPPORTED, "%d outputs (at most 64 are supported)", c->n->n_outputs);
  if (ix_allow(c, "axis,num_outputs") || ix_count_io(c, 1, 2, 1, 64) || ix_need(c, 0, &x) || ix_const_ints(c, 1, sz, 64, &ns))
    return c->err->code;
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0);
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  int no = c->n->n_outputs;
  int64_t d = x->shape[axis];
  if (ns >= 0) {
    if (ns != no) return ix_bad(c, OVTA_EINVAL, "split has %d values for %d outputs", ns, no);
    int64_t sum = 0;
    for (int i = 0; i < ns; i++) {
      if (sz[i] < 0) return ix_bad(c, OVTA_EINVAL, "split[%d] is negative", i);
      sum += sz[i];
    }
    if (d >= 0 && sum != d) return ix_bad(c, OVTA_EINVAL, "split sums to %lld, the dim is %lld", (long long)sum, (long long)d);
  } else {
    int64_t k = ovta_node_attr_i(c->n, "num_outputs", no);
    if (k != no) return ix_bad(c, OVTA_EINVAL, "num_outputs is %lld, the node has %d outputs", (long long)k, no);
    if (d < 0) return ix_bad(c, OVTA_EUNSUPPORTED, "splitting a dim of unknown size");
    int64_t part = (d + no - 1) / no;
    for (int i = 0; i < no; i++) {
      int64_t left = d - part * i;
      sz[i] = left < 0 ? 0 : left < part ? left : part;
    }
    if (ovta_node_attr(c->n, "num_outputs") == NULL && d % no)
      return ix_bad(c, OVTA_EINVAL, "dim %lld does not split into %d equal parts", (long long)d, no);
  }
  for (int i = 0; i < no; i++) {
    int64_t s[OVTA_MAX_RANK];
    memcpy(s, x->shape, sizeof s);
    s[axis] = sz[i];
    if (ix_set_out(c, i, x->dtype, x->rank, s)) return c->err->code;
  }
  return OVTA_OK;
}

/* Expand (13): Y = X broadcast (multidirectional) with the constant int64 shape input. */
static int infer_expand(ctx *c) {
  ovta_tensor *x;
  int64_t v[OVTA_MAX_RANK];
  int n;
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, v, OVTA_MAX_RANK, &n))
    return c->err->code;
  ovta_tensor sh = {0};
  sh.name = (char *)"shape";
  sh.rank = n;
  for (int i = 0; i < n; i++) {
    if (v[i] < 0) return ix_bad(c, OVTA_EINVAL, "shape[%d] is negative", i);
    sh.shape[i] = v[i];
  }
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_broadcast(c, x, &sh, &r, s)) return c->err->code;
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* Tile (13): repeats is a constant int64 input of r values >= 0; Y dim i = d_i * repeats_i,
 * y[i] = x[i mod d]. */
static int infer_tile(ctx *c) {
  ovta_tensor *x;
  int64_t v[OVTA_MAX_RANK];
  int n;
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_const_ints(c, 1, v, OVTA_MAX_RANK, &n))
    return c->err->code;
  if (n != x->rank) return ix_bad(c, OVTA_EINVAL, "repeats has %d values for rank %d", n, x->rank);
  int64_t s[OVTA_MAX_RANK];
  for (int i = 0; i < n; i++) {
    if (v[i] < 0 || v[i] > ((int64_t)1 << 30)) return ix_bad(c, OVTA_EINVAL, "repeats[%d] = %lld is out of range", i, (long long)v[i]);
    if (x->shape[i] > ((int64_t)1 << 40)) return ix_bad(c, OVTA_EINVAL, "dim %d is too large", i);
    s[i] = x->shape[i] < 0 ? -1 : x->shape[i] * v[i];
  }
  return ix_set_out(c, 0, x->dtype, n, s);
}

/* ConstantOfShape (9): the constant int64 input is the shape (values >= 0); every element is
 * the one-element tensor attribute value (default float 0), of its type. */
static int infer_constant_of_shape(ctx *c) {
  int64_t v[OVTA_MAX_RANK];
  int n;
  if (ix_allow(c, "value") || ix_count_io(c, 1, 1, 1, 1) || ix_const_ints(c, 0, v, OVTA_MAX_RANK, &n)) return c->err->code;
  const ovta_attr *a = ovta_node_attr(c->n, "value");
  ovta_dtype dt = OVTA_DT_F32;
  if (a) {
    if (a->type != OVTA_ATTR_TENSOR || !a->t || ovta_tensor_numel(a->t) != 1)
      return ix_bad(c, OVTA_EINVAL, "attribute 'value' must be a one-element tensor");
    dt = a->t->dtype;
  }
  for (int i = 0; i < n; i++)
    if (v[i] < 0) return ix_bad(c, OVTA_EINVAL, "shape[%d] is negative", i);
  return ix_set_out(c, 0, dt, n, v);
}

/* Range (11): start, limit, delta are constant scalars of one numeric type; Y of that type,
 * [max(0, ceil((limit - start) / delta))], y[i] = start + i * delta. */
static int infer_range(ctx *c) {
  ovta_tensor *t[3];
  if (ix_allow(c, "") || ix_count_io(c, 3, 3, 1, 1)) return c->err->code;
  for (int i = 0; i < 3; i++) {
    if (ix_need(c, i, &t[i])) return c->err->code;
    if (!t[i]->data) return ix_bad(c, OVTA_EUNSUPPORTED, "input %d '%s' must be a constant (the output size depends on it)", i, t[i]->name);
    if (ovta_tensor_numel(t[i]) != 1 || t[i]->dtype != t[0]->dtype) return ix_bad(c, OVTA_EINVAL, "inputs must be scalars of one type");
  }
  double st = ovta_tensor_get_f(t[0], 0), li = ovta_tensor_get_f(t[1], 0), de = ovta_tensor_get_f(t[2], 0);
  if (de == 0) return ix_bad(c, OVTA_EINVAL, "delta is 0");
  double k = ceil((li - st) / de);
  if (!(k < (double)((int64_t)1 << 40))) return ix_bad(c, OVTA_EINVAL, "the range is too long");
  int64_t n = k > 0 ? (int64_t)k : 0;
  return ix_set_out(c, 0, t[0]->dtype, 1, &n);
}

/* Trilu (14): rank >= 2, optional int64 scalar k (default 0), upper (default 1); Y = X with the
 * elements outside the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dims 0. */
static int infer_trilu(ctx *c) {
  ovta_tensor *x, *k = ix_in(c, 1);
  if (ix_allow(c, "upper") || ix_count_io(c, 1, 2, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (x->rank < 2) return ix_bad(c, OVTA_EINVAL, "input rank %d is below 2", x->rank);
  if (k && (k->dtype != OVTA_DT_I64 || (k->rank > 0 && ovta_tensor_numel(k) != 1))) return ix_bad(c, OVTA_EINVAL, "k must be an int64 scalar");
  return ix_same_as(c, 0, x);
}

/* DepthToSpace (13) / SpaceToDepth (13): X [N, C, H, W], blocksize b >= 1. DepthToSpace: C % b^2
 * == 0, Y [N, C/b^2, H*b, W*b]; mode DCR (default) y[n, c, h*b+i, w*b+j] = x[n, (i*b + j)*C/b^2 +
 * c, h, w], CRD x[n, c*b^2 + i*b + j, h, w]. SpaceToDepth: H, W % b == 0, Y [N, C*b^2, H/b, W/b],
 * y[n, (i*b + j)*C + c, h, w] = x[n, c, h*b+i, w*b+j]. */
static int infer_space_depth(ctx *c, bool to_space) {
  ovta_tensor *x;
  if (ix_allow(c, to_space ? "blocksize,mode" : "blocksize") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  if (x->rank != 4) return ix_bad(c, OVTA_EINVAL, "input rank %d is not 4", x->rank);
  int64_t b = ovta_node_attr_i(c->n, "blocksize", 0);
  if (b < 1 || b > 4096) return ix_bad(c, OVTA_EINVAL, "blocksize %lld is invalid", (long long)b);
  const char *mode = ovta_node_attr_s(c->n, "mode", "DCR");
  if (strcmp(mode, "DCR") && strcmp(mode, "CRD")) return ix_bad(c, OVTA_EINVAL, "mode '%s' is not DCR or CRD", mode);
  int64_t s[4] = {x->shape[0], x->shape[1], x->shape[2], x->shape[3]};
  for (int i = 1; i < 4; i++)
    if (s[i] > ((int64_t)1 << 40) / (b * b)) return ix_bad(c, OVTA_EINVAL, "dim %d is too large", i);
  if (to_space) {
    if (s[1] >= 0 && s[1] % (b * b)) return ix_bad(c, OVTA_EINVAL, "channels %lld are not a multiple of blocksize^2", (long long)s[1]);
    s[1] = s[1] < 0 ? -1 : s[1] / (b * b);
    s[2] = s[2] < 0 ? -1 : s[2] * b;
    s[3] = s[3] < 0 ? -1 : s[3] * b;
  } else {
    if ((s[2] >= 0 && s[2] % b) || (s[3] >= 0 && s[3] % b)) return ix_bad(c, OVTA_EINVAL, "height and width must be multiples of blocksize");
    s[1] = s[1] < 0 ? -1 : s[1] * b * b;
    s[2] = s[2] < 0 ? -1 : s[2] / b;
    s[3] = s[3] < 0 ? -1 : s[3] / b;
  }
  return ix_set_out(c, 0, x->dtype, 4, s);
}
static int infer_depth_to_space(ctx *c) { return infer_space_depth(c, true); }
static int infer_space_to_depth(ctx *c) { return infer_space_depth(c, false); }

/* EyeLike (9): X rank 2; Y of X's shape and of type dtype (default X's), 1 where j - i == k
 * (default 0), else 0. */
static int infer_eyelike(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "dtype,k") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (x->rank != 2) return ix_bad(c, OVTA_EINVAL, "input rank %d is not 2", x->rank);
  int64_t dt = ovta_node_attr_i(c->n, "dtype", x->dtype);
  if (dt < 1 || dt > 13 || dt == OVTA_DT_STRING || dt == OVTA_DT_F16) return ix_bad(c, OVTA_EUNSUPPORTED, "dtype %lld is not supported", (long long)dt);
  return ix_set_out(c, 0, (ovta_dtype)dt, 2, x->shape);
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
    {"Shape", infer_shape},
    {"Size", infer_size},
    {"Slice", infer_slice},
    {"Split", infer_split},
    {"Expand", infer_expand},
    {"Tile", infer_tile},
    {"ConstantOfShape", infer_constant_of_shape},
    {"Range", infer_range},
    {"Trilu", infer_trilu},
    {"DepthToSpace", infer_depth_to_space},
    {"SpaceToDepth", infer_space_to_depth},
    {"EyeLike", infer_eyelike},
    {NULL, NULL},
};
