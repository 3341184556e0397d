/* index.c: gathers, scatters and index operators: Gather, GatherElements, GatherND, ScatterND,
 * ScatterElements (and Scatter), OneHot, Compress, ReverseSequence, TfIdfVectorizer (n-gram counts
 * against a constant pool).
 * An index read from a tensor counts from the end of its dim when negative and is clamped into
 * the dim (out-of-range indices are an error in ONNX; clamping keeps every access in bounds). */

#include "cpu_internal.h"

/* Index value v (any integer or float type) into a dim of size dim: + dim when negative, then
 * clamped into [0, dim-1]. */
static lir_expr *gidx(L *l, lir_expr *v, int64_t dim) {
  if (v->dtype != LIR_I64) v = lir_cast(F, LIR_I64, v);
  lir_expr *w = lir_select(F, lir_bin(F, LIR_LT, v, I(0)), lir_addi(F, v, dim), v);
  return clampi(l, w, 0, dim > 0 ? dim - 1 : 0);
}

/* Indices into a dim of size 0 have nothing to address: only fine when nothing is read. */
static int empty_dim(L *l, int64_t dim, const lir_buf *reads) {
  return dim == 0 && lir_buf_numel(reads) > 0 ? bad(l, "indices into an empty dim") : 0;
}

/* The reduction of ScatterND/ScatterElements: none (NULL: plain store), add, mul, max, min. */
static int reduction(L *l, int *op) {
  const char *m = ovta_node_attr_s(l->n, "reduction", "none");
  *op = !strcmp(m, "none") ? -1 : !strcmp(m, "add") ? LIR_ADD : !strcmp(m, "mul") ? LIR_MUL : !strcmp(m, "max") ? LIR_MAX
      : !strcmp(m, "min") ? LIR_MIN : -2;
  return *op == -2 ? unsup(l, "reduction mode") : 0;
}
static lir_expr *combine(L *l, int op, lir_expr *old, lir_expr *v) { return op < 0 ? v : lir_bin(F, (lir_binop)op, old, v); }

/* Y = X element for element (the start of every scatter). */
static lir_stmt *copy_all(L *l, lir_buf *X, lir_buf *Y) {
  int64_t n = lir_buf_numel(Y);
  lir_var *i = lir_var_new(F, "c", LIR_I64);
  lir_expr *ii = lir_ref(F, i);
  return lir_for(F, i, I(0), I(n), LIR_FOR_VECTORIZED, lir_store1(F, Y, ii, lir_load1(F, X, ii)));
}

/* Gather: y[a.., i.., b..] = x[a.., idx(indices[i..]), b..] (axis default 0). */
static int lower_gather(L *l) {
  lir_buf *X = l->in[0], *IX = l->in[1], *Y = l->out[0];
  if (!X || !IX || !Y) return bad(l, "missing input or output");
  int r = X->ndim, q = IX->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  if (axis < 0 || axis >= r || Y->ndim != r + q - 1) return bad(l, "axis or output rank");
  if (empty_dim(l, X->shape[axis], Y)) return l->err->code;
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS];
  for (int d = 0; d < r; d++)
    xi[d] = d < axis ? n.idx[d] : d == axis ? gidx(l, lir_load(F, IX, q ? n.idx + axis : NULL), X->shape[axis]) : n.idx[d + q - 1];
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* GatherElements: y[i..] = x[i.. with dim axis = idx(indices[i..])]. */
static int lower_gather_elements(L *l) {
  lir_buf *X = l->in[0], *IX = l->in[1], *Y = l->out[0];
  if (!X || !IX || !Y) return bad(l, "missing input or output");
  int r = X->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  if (axis < 0 || axis >= r || Y->ndim != r) return bad(l, "axis or output rank");
  if (empty_dim(l, X->shape[axis], Y)) return l->err->code;
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS];
  for (int d = 0; d < r; d++) xi[d] = d == axis ? gidx(l, lir_load(F, IX, n.idx), X->shape[d]) : n.idx[d];
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* GatherND (batch_dims b, k = indices.shape[-1]): y[i.., j..] = x[i_0..i_(b-1),
 * idx(indices[i.., 0]) .. idx(indices[i.., k-1]), j..]. */
static int lower_gather_nd(L *l) {
  lir_buf *X = l->in[0], *IX = l->in[1], *Y = l->out[0];
  if (!X || !IX || !Y) return bad(l, "missing input or output");
  int r = X->ndim, q = IX->ndim, b = (int)ovta_node_attr_i(l->n, "batch_dims", 0);
  int k = (int)IX->shape[q - 1];
  if (b + k > r || Y->ndim != q - 1 + r - b - k) return bad(l, "shapes do not match");
  for (int d = b; d < b + k; d++)
    if (empty_dim(l, X->shape[d], Y)) return l->err->code;
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS], *ii[LIR_MAX_DIMS];
  for (int d = 0; d < q - 1; d++) ii[d] = n.idx[d];
  for (int d = 0; d < r; d++) {
    if (d < b) xi[d] = n.idx[d];
    else if (d < b + k) {
      ii[q - 1] = I(d - b);
      xi[d] = gidx(l, lir_load(F, IX, ii), X->shape[d]);
    } else xi[d] = n.idx[q - 1 + d - b - k];
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* ScatterND: y = x; then in order over i of indices.shape[:-1] and j of the rest of updates:
 * y[idx(indices[i, 0]) .. idx(indices[i, k-1]), j..] = updates[i.., j..] (or combined with the
 * reduction add/mul/max/min). The update loop is serial (duplicate indices apply in order). */
static int lower_scatter_nd(L *l) {
  lir_buf *X = l->in[0], *IX = l->in[1], *U = l->in[2], *Y = l->out[0];
  if (!X || !IX || !U || !Y) return bad(l, "missing input or output");
  int op;
  if (reduction(l, &op)) return l->err->code;
  int r = X->ndim, q = IX->ndim, k = (int)IX->shape[q - 1];
  if (k > r || U->ndim != q - 1 + r - k) return bad(l, "shapes do not match");
  for (int d = 0; d < k; d++)
    if (empty_dim(l, X->shape[d], U)) return l->err->code;
  lir_nest n;
  lir_nest_open(F, &n, U->ndim, U->shape, "u");
  lir_expr *yi[LIR_MAX_DIMS], *ii[LIR_MAX_DIMS];
  for (int d = 0; d < q - 1; d++) ii[d] = n.idx[d];
  for (int d = 0; d < r; d++) {
    if (d < k) {
      ii[q - 1] = I(d);
      yi[d] = gidx(l, lir_load(F, IX, ii), X->shape[d]);
    } else yi[d] = n.idx[q - 1 + d - k];
  }
  lir_stmt *st = lir_store(F, Y, yi, combine(l, op, lir_load(F, Y, yi), lir_load(F, U, n.idx)));
  F->body = lir_seq(F, 2, (lir_stmt *[]){copy_all(l, X, Y), lir_nest_close(F, &n, st, LIR_FOR_SERIAL)});
  return 0;
}

/* ScatterElements / Scatter: y = x; then in order over i of indices: y[i.. with dim axis =
 * idx(indices[i..])] = updates[i..] (or combined with the reduction). Serial. */
static int lower_scatter_elements(L *l) {
  lir_buf *X = l->in[0], *IX = l->in[1], *U = l->in[2], *Y = l->out[0];
  if (!X || !IX || !U || !Y) return bad(l, "missing input or output");
  int op;
  if (reduction(l, &op)) return l->err->code;
  int r = X->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  if (axis < 0 || axis >= r || IX->ndim != r) return bad(l, "axis or ranks");
  if (empty_dim(l, X->shape[axis], IX)) return l->err->code;
  lir_nest n;
  lir_nest_open(F, &n, r, IX->shape, "u");
  lir_expr *yi[LIR_MAX_DIMS];
  for (int d = 0; d < r; d++) yi[d] = d == axis ? gidx(l, lir_load(F, IX, n.idx), X->shape[d]) : n.idx[d];
  lir_stmt *st = lir_store(F, Y, yi, combine(l, op, lir_load(F, Y, yi), lir_load(F, U, n.idx)));
  F->body = lir_seq(F, 2, (lir_stmt *[]){copy_all(l, X, Y), lir_nest_close(F, &n, st, LIR_FOR_SERIAL)});
  return 0;
}

/* OneHot: y[a.., d, b..] = values[1] if int(indices[a.., b..]) (+ depth when negative) == d,
 * else values[0] (d runs along axis, default -1). */
static int lower_onehot(L *l) {
  lir_buf *IX = l->in[0], *V = l->in[2], *Y = l->out[0];
  if (!IX || !V || !Y) return bad(l, "missing input or output");
  int r = Y->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", -1), r);
  if (axis < 0 || axis >= r || IX->ndim != r - 1) return bad(l, "axis or ranks");
  int64_t depth = Y->shape[axis];
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *ii[LIR_MAX_DIMS];
  for (int d = 0, k = 0; d < r; d++)
    if (d != axis) ii[k++] = n.idx[d];
  lir_expr *v = lir_load(F, IX, r > 1 ? ii : NULL);
  if (v->dtype != LIR_I64) v = lir_cast(F, LIR_I64, v);
  v = lir_select(F, lir_bin(F, LIR_LT, v, I(0)), lir_addi(F, v, depth), v);
  lir_expr *hot = lir_bin(F, LIR_EQ, v, n.idx[axis]);
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_select(F, hot, lir_load1(F, V, I(1)), lir_load1(F, V, I(0)))));
  return 0;
}

/* Compress: x viewed as [pre, dim, post] around axis (flattened without axis); in order over j
 * of the condition, where condition[j] is true: y[p, cnt, s] = x[p, j, s] for every p, s, then
 * cnt += 1. (The condition is read at run time; its count of true values is y's extent.) */
static int lower_compress(L *l) {
  lir_buf *X = l->in[0], *C = l->in[1], *Y = l->out[0];
  if (!X || !C || !Y) return bad(l, "missing input or output");
  const ovta_attr *a = ovta_node_attr(l->n, "axis");
  int64_t pre = 1, dim, post = 1;
  if (a) {
    int axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), X->ndim);
    if (axis < 0 || axis >= X->ndim) return bad(l, "axis out of range");
    for (int d = 0; d < axis; d++) pre *= X->shape[d];
    for (int d = axis + 1; d < X->ndim; d++) post *= X->shape[d];
    dim = X->shape[axis];
  } else {
    dim = lir_buf_numel(X);
  }
  int64_t pp = pre * post, ny = lir_buf_numel(Y) / (pp > 0 ? pp : 1);
  view(X, 3, (int64_t[]){pre, dim, post});
  view(Y, 3, (int64_t[]){pre, ny, post});
  lir_buf *cnt = lir_buf_new(F, "cnt", LIR_I64, 0, NULL, LIR_SCOPE_LOCAL);
  lir_var *j = lir_var_new(F, "j", LIR_I64);
  lir_expr *jj = lir_ref(F, j);
  lir_nest n;
  lir_nest_open(F, &n, 2, (int64_t[]){pre, post}, "i");
  lir_expr *c = clampi(l, lir_load(F, cnt, NULL), 0, ny > 0 ? ny - 1 : 0);
  lir_stmt *cp = lir_nest_close(F, &n, lir_store(F, Y, (lir_expr *[]){n.idx[0], c, n.idx[1]}, lir_load(F, X, (lir_expr *[]){n.idx[0], jj, n.idx[1]})),
                                LIR_FOR_SERIAL);
  lir_stmt *inc = lir_store(F, cnt, NULL, lir_addi(F, lir_load(F, cnt, NULL), 1));
  lir_expr *on = lir_bin(F, LIR_NE, lir_load1(F, C, jj), lir_int(F, C->dtype, 0));
  lir_stmt *loop = lir_for(F, j, I(0), I(lir_buf_numel(C)), LIR_FOR_SERIAL, lir_if(F, on, lir_seq(F, 2, (lir_stmt *[]){cp, inc}), NULL));
  F->body = lir_alloc_stmt(F, cnt, lir_seq(F, 2, (lir_stmt *[]){lir_store(F, cnt, NULL, I(0)), loop}));
  return 0;
}

/* ReverseSequence: y[b, t, ..] = x[b, len[b] - 1 - t, ..] where t < len[b] (len clamped into
 * [0, T]), else x[b, t, ..]; b along batch_axis (default 1), t along time_axis (default 0). */
static int lower_reverse_sequence(L *l) {
  lir_buf *X = l->in[0], *SL = l->in[1], *Y = l->out[0];
  if (!X || !SL || !Y) return bad(l, "missing input or output");
  int ba = (int)ovta_node_attr_i(l->n, "batch_axis", 1), ta = (int)ovta_node_attr_i(l->n, "time_axis", 0);
  if (ba < 0 || ba > 1 || ta < 0 || ta > 1 || ba == ta) return bad(l, "batch_axis/time_axis");
  int64_t T = X->shape[ta];
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *len = clampi(l, lir_cast(F, LIR_I64, lir_load1(F, SL, n.idx[ba])), 0, T);
  lir_expr *t = n.idx[ta];
  lir_expr *src = lir_select(F, lir_bin(F, LIR_LT, t, len), lir_sub(F, lir_addi(F, len, -1), t), t);
  lir_expr *xi[LIR_MAX_DIMS];
  for (int d = 0; d < Y->ndim; d++) xi[d] = d == ta ? clampi(l, src, 0, T > 0 ? T - 1 : 0) : n.idx[d];
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* A local table of n values (dtype t: iv when given, else fv), its fill stores added to blk. */
static lir_buf *table(L *l, const char *name, lir_dtype t, int64_t n, const int64_t *iv, const float *fv, lir_block *blk) {
  lir_buf *b = lir_buf_new(F, name, t, 1, &n, LIR_SCOPE_LOCAL);
  for (int64_t k = 0; k < n; k++) lir_block_add(blk, lir_store1(F, b, I(k), iv ? cst(l, t, (double)iv[k]) : cst(l, t, fv[k])));
  return b;
}

/* The pool's n-grams of one length, sorted (a duplicate shows) and hashed while lowering. */
typedef struct tfgrams {
  int n;       /* their length */
  int64_t k;   /* how many */
  lir_buf *P;  /* [k * n] their items, the n-grams in ascending lexicographic order */
  lir_buf *O;  /* [k] the output coordinate of each */
  lir_buf *W;  /* [k] the weight of each; NULL when the mode needs none (TF, or no weights) */
  lir_buf *H;  /* [2^bits] hash table: the sorted index of an n-gram, or -1 for an empty slot */
  int bits;    /* log2 of H's size (at least 4 k slots) */
  int probes;  /* the longest run of slots a lookup may need (linear probing, known here) */
} tfgrams;

#define TF_HMUL 0x9E3779B97F4A7C15ull /* the hash's multiplier (2^64 / golden ratio) */

/* The hash of n items: h = (h ^ item) * TF_HMUL over the items (mod 2^64), its top bits. */
static uint64_t gram_hash(const int64_t *v, int n, int bits) {
  uint64_t h = 0;
  for (int j = 0; j < n; j++) h = (h ^ (uint64_t)v[j]) * TF_HMUL;
  return h >> (64 - bits);
}

/* The hash table of t's sorted n-grams (items) into a local table (stores into blk). */
static int tfidf_hash(L *l, tfgrams *t, const int64_t *items, lir_block *blk) {
  t->bits = 2;
  while (((int64_t)1 << t->bits) < 4 * t->k) t->bits++;
  int64_t size = (int64_t)1 << t->bits, *slot = lir_alloc(F, (size_t)size * sizeof *slot);
  if (!slot) return bad(l, "out of memory");
  for (int64_t q = 0; q < size; q++) slot[q] = -1;
  t->probes = 1;
  for (int64_t r = 0; r < t->k; r++) {
    int64_t h = (int64_t)gram_hash(items + r * t->n, t->n, t->bits), d = 0;
    while (slot[(h + d) & (size - 1)] >= 0) d++;
    slot[(h + d) & (size - 1)] = r;
    if (d + 1 > t->probes) t->probes = (int)(d + 1);
  }
  t->H = table(l, "hash", LIR_I64, size, slot, NULL, blk);
  return 0;
}

/* qsort_r order of two n-grams (pointers to their len items): lexicographic. */
static int cmp_gram(const void *a, const void *b, void *len) {
  const int64_t *x = *(const int64_t *const *)a, *y = *(const int64_t *const *)b;
  for (int j = 0; j < *(const int *)len; j++)
    if (x[j] != y[j]) return x[j] < y[j] ? -1 : 1;
  return 0;
}

/* The sorted tables of the len-grams (their stores added to blk); a pool holding one twice is
 * an error (onnxruntime refuses it too). */
static int tfidf_tables(L *l, const ovta_tfidf_pool *p, int len, bool wanted, tfgrams *t, lir_block *blk) {
  int np, ni;
  const int64_t *pool = ints(l, "pool_int64s", &np), *idx = ints(l, "ngram_indexes", &ni), *run = pool + p->start[len - 1];
  const ovta_attr *w = ovta_node_attr(l->n, "weights");
  int64_t k = t->k = p->count[len - 1];
  t->n = len;
  if (k > (1 << 24)) return unsup(l, "more than 2^24 n-grams of one length");
  const int64_t **ord = lir_alloc(F, (size_t)k * sizeof *ord);
  int64_t *items = lir_alloc(F, (size_t)(k * len) * sizeof *items), *oi = lir_alloc(F, (size_t)k * sizeof *oi);
  float *wv = lir_alloc(F, (size_t)k * sizeof *wv);
  if (!ord || !items || !oi || !wv) return bad(l, "out of memory");
  for (int64_t g = 0; g < k; g++) ord[g] = run + g * len;
  qsort_r(ord, (size_t)k, sizeof *ord, cmp_gram, &len);
  for (int64_t g = 0; g < k; g++) {
    if (g > 0 && !cmp_gram(&ord[g - 1], &ord[g], &len)) return bad(l, "pool_int64s holds an n-gram twice");
    int64_t at = p->first[len - 1] + (ord[g] - run) / len;
    memcpy(items + g * len, ord[g], (size_t)len * sizeof *items);
    oi[g] = idx[at], wv[g] = w && w->type == OVTA_ATTR_FLOATS ? w->floats[at] : 1.0f;
  }
  t->P = table(l, "pool", LIR_I64, k * len, items, NULL, blk);
  t->O = table(l, "outidx", LIR_I64, k, oi, NULL, blk);
  t->W = wanted && w ? table(l, "weights", LIR_F32, k, NULL, wv, blk) : NULL;
  return tfidf_hash(l, t, items, blk);
}

/* Pool n-gram r (sorted) equal to the n-gram xs of X. */
static lir_expr *gram_eq(L *l, const tfgrams *t, lir_expr *r, lir_expr **xs) {
  lir_expr *e = NULL;
  for (int j = 0; j < t->n; j++) e = band(l, e, lir_bin(F, LIR_EQ, lir_load1(F, t->P, lir_addi(F, lir_muli(F, r, t->n), j)), xs[j]));
  return e;
}

/* cnt[r] += 1 where pool n-gram r equals xs: xs's hash (gram_hash, in u64 arithmetic), then
 * the slots from there on while they are not empty, at most t->probes of them. */
static lir_stmt *tfidf_find(L *l, const tfgrams *t, lir_expr **xs, lir_buf *cnt) {
  lir_expr *h = lir_int(F, LIR_U64, 0);
  for (int j = 0; j < t->n; j++)
    h = lir_bin(F, LIR_MUL, lir_bin(F, LIR_XOR, h, lir_cast(F, LIR_U64, xs[j])), lir_int(F, LIR_U64, (int64_t)TF_HMUL));
  lir_buf *live = sc_new(l, "live", LIR_BOOL);
  lir_var *home = lir_var_new(F, "home", LIR_I64), *q = lir_var_new(F, "q", LIR_I64), *rv = lir_var_new(F, "r", LIR_I64);
  lir_expr *r = lir_ref(F, rv), *size = I((int64_t)1 << t->bits);
  lir_expr *at = lir_bin(F, LIR_AND, lir_add(F, lir_ref(F, home), lir_ref(F, q)), lir_addi(F, size, -1));
  lir_stmt *hit = lir_if(F, gram_eq(l, t, r, xs), lir_store1(F, cnt, r, lir_addi(F, lir_load1(F, cnt, r), 1)), NULL);
  lir_stmt *probe = lir_let(F, rv, lir_load1(F, t->H, at),
                            lir_if(F, lir_bin(F, LIR_LT, r, I(0)), sc_set(l, live, lir_int(F, LIR_BOOL, 0)), hit));
  lir_stmt *loop = lir_for(F, q, I(0), I(t->probes), LIR_FOR_SERIAL, lir_if(F, sc_get(l, live), probe, NULL));
  lir_expr *hv = lir_cast(F, LIR_I64, lir_bin(F, LIR_SHR, h, lir_int(F, LIR_U64, 64 - t->bits)));
  return lir_alloc_stmt(F, live, lir_let(F, home, hv, SEQ(sc_set(l, live, lir_int(F, LIR_BOOL, 1)), loop)));
}

/* Y[b, O[r]] += the value of count c (cnt[r]) in the mode: c (TF), c > 0 ? w : 0 (IDF), c * w
 * (TFIDF); w = W[r], 1 without weights. */
static lir_stmt *tfidf_add(L *l, const tfgrams *t, lir_expr *b, lir_expr *r, lir_buf *cnt) {
  lir_expr *c = lir_load1(F, cnt, r), *cf = lir_cast(F, LIR_F32, c), *w = t->W ? lir_load1(F, t->W, r) : lir_f32(F, 1);
  lir_expr *v = !strcmp(ovta_node_attr_s(l->n, "mode", "TF"), "IDF") ? lir_select(F, lir_bin(F, LIR_GT, c, I(0)), w, lir_f32(F, 0))
                : t->W ? lir_bin(F, LIR_MUL, cf, w) : cf;
  lir_expr *yi[2] = {b, lir_load1(F, t->O, r)};
  return lir_store(F, l->out[0], yi, lir_bin(F, LIR_ADD, lir_load(F, l->out[0], yi), v));
}

/* The nest of one gram length (the rule above lower_tfidf): per row, the counts of its pool
 * n-grams over every skip and start, then Y += their values. */
static lir_stmt *tfidf_length(L *l, const tfgrams *t, int64_t skips) {
  lir_buf *X = l->in[0], *cnt = lir_buf_new(F, "cnt", LIR_I64, 1, &t->k, LIR_SCOPE_LOCAL);
  lir_var *b = lir_var_new(F, "b", LIR_I64), *s = lir_var_new(F, "s", LIR_I64), *i = lir_var_new(F, "i", LIR_I64);
  lir_var *z = lir_var_new(F, "z", LIR_I64), *r = lir_var_new(F, "r", LIR_I64);
  lir_expr *dist = lir_addi(F, lir_ref(F, s), 1), *xs[OVTA_TFIDF_MAX_LEN];
  for (int j = 0; j < t->n; j++) {
    lir_expr *xi[2] = {lir_ref(F, b), lir_add(F, lir_ref(F, i), lir_mul(F, I(j), dist))};
    xs[j] = as_type(l, LIR_I64, lir_load(F, X, xi));
  }
  lir_expr *room = lir_max(F, lir_sub(F, I(X->shape[1]), lir_muli(F, dist, t->n - 1)), I(0));
  lir_stmt *scan = lir_for(F, i, I(0), room, LIR_FOR_SERIAL, tfidf_find(l, t, xs, cnt));
  scan = lir_for(F, s, I(0), I(t->n == 1 ? 1 : skips + 1), LIR_FOR_SERIAL, scan);
  lir_stmt *zero = lir_for(F, z, I(0), I(t->k), LIR_FOR_VECTORIZED, lir_store1(F, cnt, lir_ref(F, z), I(0)));
  lir_stmt *add = lir_for(F, r, I(0), I(t->k), LIR_FOR_SERIAL, tfidf_add(l, t, lir_ref(F, b), lir_ref(F, r), cnt));
  return lir_for(F, b, I(0), I(X->shape[0]), LIR_FOR_SERIAL, lir_alloc_stmt(F, cnt, SEQ(zero, scan, add)));
}

/* TfIdfVectorizer (ONNX 9; onnxruntime's reading where the text leaves room). Each row of X
 * ([C] is one row) is scanned for the pool's n-grams of length n in [min_gram_length,
 * max_gram_length]: with s skips (s in 0..max_skip_count) the n-gram starting at i is x[i],
 * x[i + (s+1)], .., x[i + (n-1)(s+1)], inside the row. "Note that we may consider all skips up
 * to S when generating the n-grams": every s counts separately, except for 1-grams, which skips
 * do not change and which count once per position (the node tests' uniandbigrams_skip5: the
 * 1-gram 3 found 3 times in [1 1 3 3 3 7 ..], not 3 * 6). With count c of pool n-gram g:
 * Y[row, ngram_indexes[g]] += c (TF), (c > 0 ? weights[g] : 0) (IDF: counts truncated to 1,
 * scaled), c * weights[g] (TFIDF); without weights, weights[g] = 1. Weights are parallel to
 * the pool, as the spec and onnxruntime 1.30 read them; coordinates no n-gram has stay 0, and
 * n-grams sharing a coordinate add up (as onnxruntime's TF and TFIDF; its IDF keeps the weight of
 * the last such n-gram its scan finds, which the spec does not say).
 * Schedule: the n-grams of each length sorted while lowering (local tables: items, output
 * coordinate, weight) and hashed into an open-addressing table (linear probing, >= 4 slots per
 * n-gram, the longest probe run known while lowering); Y = 0; per length and row, for every
 * skip and start, X's n-gram is hashed and looked up, a hit counted in a local per-n-gram
 * count; then Y += the counts' values. */
static int lower_tfidf(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  char why[200];
  ovta_tfidf_pool p;
  if (ovta_tfidf_pool_of(l->n, &p, why, sizeof why)) return bad(l, why);
  int64_t lo = ovta_node_attr_i(l->n, "min_gram_length", 1), hi = ovta_node_attr_i(l->n, "max_gram_length", 1);
  int64_t rows = X->ndim == 2 ? X->shape[0] : 1, cols = X->shape[X->ndim - 1];
  bool weights = strcmp(ovta_node_attr_s(l->n, "mode", "TF"), "TF") != 0;
  int64_t skips = ovta_node_attr_i(l->n, "max_skip_count", 0);
  skips = skips < cols ? skips : cols; /* more skips fit no n-gram of 2 or more in a row */
  view(X, 2, (int64_t[]){rows, cols});
  view(Y, 2, (int64_t[]){rows, p.out_size});
  lir_block blk, nests;
  lir_block_init(&blk, F);
  lir_block_init(&nests, F);
  lir_nest z;
  lir_nest_open(F, &z, 2, Y->shape, "e");
  lir_block_add(&nests, over(l, &z, Y, lir_store(F, Y, z.idx, lir_f32(F, 0))));
  tfgrams t[OVTA_TFIDF_MAX_LEN];
  int nt = 0;
  for (int64_t n = lo; n <= hi && n <= p.ngroups; n++) {
    if (!p.count[n - 1]) continue;
    if (tfidf_tables(l, &p, (int)n, weights, &t[nt], &blk)) return l->err->code;
    lir_block_add(&nests, tfidf_length(l, &t[nt++], skips));
  }
  lir_block_add(&blk, lir_block_stmt(&nests));
  lir_stmt *body = lir_block_stmt(&blk);
  for (int k = 0; k < nt; k++) {
    if (t[k].W) body = lir_alloc_stmt(F, t[k].W, body);
    body = lir_alloc_stmt(F, t[k].P, lir_alloc_stmt(F, t[k].O, lir_alloc_stmt(F, t[k].H, body)));
  }
  F->body = body;
  return 0;
}

const cpu_rule cpu_rules_index[] = {
    {"Gather", lower_gather},
    {"GatherElements", lower_gather_elements},
    {"GatherND", lower_gather_nd},
    {"ScatterND", lower_scatter_nd},
    {"ScatterElements", lower_scatter_elements},
    {"Scatter", lower_scatter_elements},
    {"OneHot", lower_onehot},
    {"Compress", lower_compress},
    {"ReverseSequence", lower_reverse_sequence},
    {"TfIdfVectorizer", lower_tfidf},
    {NULL, NULL},
};
