/* infer_index.c: inference of the gather/scatter/index operators: Gather, GatherElements,
 * GatherND, ScatterND, ScatterElements, Scatter, OneHot, Compress, ReverseSequence,
 * TfIdfVectorizer (and ovta_tfidf_pool_of, its pool, shared with the CPU lowering); NonZero and
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

/* An INTS attribute of n (NULL and *cnt 0 when absent or of another type). */
static const int64_t *attr_ints(const ovta_node *n, const char *name, int *cnt) {
  const ovta_attr *a = ovta_node_attr(n, name);
  *cnt = a && a->type == OVTA_ATTR_INTS ? a->n : 0;
  return *cnt ? a->ints : NULL;
}

#define WHY(...) (snprintf(why, nwhy, __VA_ARGS__), OVTA_EINVAL)

/* TfIdfVectorizer's pool (graph.h): ngram_counts[len-1] is where the n-grams of length len start
 * in the pool; the next length's start (the pool's end for the last) ends them, a whole number of
 * len-item n-grams. ngram_indexes has one output coordinate (>= 0) per n-gram of the pool, in
 * pool order; weights, when given, as many values. pool_strings (string tensors) is refused. */
int ovta_tfidf_pool_of(const ovta_node *n, ovta_tfidf_pool *p, char *why, size_t nwhy) {
  int np, nc, ni;
  const int64_t *pool = attr_ints(n, "pool_int64s", &np), *cnt = attr_ints(n, "ngram_counts", &nc);
  const int64_t *idx = attr_ints(n, "ngram_indexes", &ni);
  const ovta_attr *w = ovta_node_attr(n, "weights");
  if (ovta_node_attr(n, "pool_strings"))
    return snprintf(why, nwhy, "pool_strings (string tensors) is not supported"), OVTA_EUNSUPPORTED;
  if (!pool) return WHY("pool_int64s must hold the pool's n-grams");
  if (!cnt) return WHY("ngram_counts must be given");
  if (nc > OVTA_TFIDF_MAX_LEN) return snprintf(why, nwhy, "n-grams longer than %d", OVTA_TFIDF_MAX_LEN), OVTA_EUNSUPPORTED;
  p->ngroups = nc;
  int64_t total = 0;
  for (int k = 0; k < nc; k++) {
    int64_t end = k + 1 < nc ? cnt[k + 1] : np;
    if (cnt[k] < 0 || cnt[k] > end || end > np)
      return WHY("ngram_counts[%d] = %lld is outside the pool of %d items or past the next count", k, (long long)cnt[k], np);
    if ((end - cnt[k]) % (k + 1)) return WHY("the %lld pool items of %d-grams are not whole %d-grams", (long long)(end - cnt[k]), k + 1, k + 1);
    p->start[k] = cnt[k], p->count[k] = (end - cnt[k]) / (k + 1), p->first[k] = total;
    total += p->count[k];
  }
  if (ni != total) return WHY("ngram_indexes has %d values for the pool's %lld n-grams", ni, (long long)total);
  if (w && (w->type != OVTA_ATTR_FLOATS || w->n != ni)) return WHY("weights must hold one float per n-gram (%d)", ni);
  p->out_size = 0;
  for (int k = 0; k < ni; k++) {
    if (idx[k] < 0 || idx[k] >= (1 << 30)) return WHY("ngram_indexes[%d] = %lld is out of range", k, (long long)idx[k]);
    if (idx[k] + 1 > p->out_size) p->out_size = idx[k] + 1;
  }
  return OVTA_OK;
}

/* TfIdfVectorizer (9): X int32/int64 [C] or [N, C] (string with pool_strings: refused); Y float
 * [max(ngram_indexes) + 1] or [N, that]. mode TF, IDF or TFIDF; min_gram_length >= 1,
 * max_gram_length >= min_gram_length, max_skip_count >= 0 (all required); the pool as
 * ovta_tfidf_pool_of checks it. The counting rule is above its lowering (cpu/index.c). */
static int infer_tfidf(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "max_gram_length,max_skip_count,min_gram_length,mode,ngram_counts,ngram_indexes,pool_int64s,pool_strings,weights") ||
      ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  char why[200];
  ovta_tfidf_pool p;
  int rc = ovta_tfidf_pool_of(c->n, &p, why, sizeof why);
  if (rc) return ix_bad(c, rc, "%s", why);
  if (x->dtype != OVTA_DT_I32 && x->dtype != OVTA_DT_I64) return ix_bad(c, OVTA_EINVAL, "X must be int32 or int64");
  if (x->rank != 1 && x->rank != 2) return ix_bad(c, OVTA_EINVAL, "X must be [C] or [N, C]");
  const char *m = ovta_node_attr_s(c->n, "mode", "");
  if (strcmp(m, "TF") && strcmp(m, "IDF") && strcmp(m, "TFIDF")) return ix_bad(c, OVTA_EINVAL, "mode '%s' is not TF, IDF or TFIDF", m);
  int64_t lo = ovta_node_attr_i(c->n, "min_gram_length", 0), hi = ovta_node_attr_i(c->n, "max_gram_length", 0);
  if (lo < 1 || hi < lo || ovta_node_attr_i(c->n, "max_skip_count", -1) < 0)
    return ix_bad(c, OVTA_EINVAL, "min_gram_length >= 1, max_gram_length >= min_gram_length and max_skip_count >= 0 are required");
  int64_t s[2] = {x->shape[0], p.out_size};
  return x->rank == 1 ? ix_set_out(c, 0, OVTA_DT_F32, 1, s + 1) : ix_set_out(c, 0, OVTA_DT_F32, 2, s);
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
    {"TfIdfVectorizer", infer_tfidf},
    {"NonZero", infer_data_dependent},
    {"Unique", infer_data_dependent},
    {NULL, NULL},
};
