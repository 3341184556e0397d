/* sched.c: schedule primitives over the loop IR (compiler/accel/accel.h): split (exact, guarded,
 * tail), reorder, cache_read / cache_write into a scope, compute_at with region shrinking, virtual
 * threads, and a verifier with symbolic bounds. Rewrites build new nodes (copy on write), so
 * shared expression nodes are never mutated. */
#include "accel_internal.h"

#include <stdlib.h>
#include <string.h>

void vta_sched_init(vta_sched *s, lir_func *f) {
  memset(s, 0, sizeof *s);
  s->f = f;
}

/* ---------------------------------------------------------------- finding */

static lir_stmt **find_rec(lir_stmt **slot, const char *var) {
  lir_stmt *s = *slot;
  if (!s) return NULL;
  if (s->kind == LIR_S_FOR && s->var && !strcmp(s->var->name, var)) return slot;
  lir_stmt **r = NULL;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n && !r; i++) r = find_rec(&s->stmts[i], var);
    return r;
  case LIR_S_IF:
    r = find_rec(&s->body, var);
    return r ? r : find_rec(&s->else_body, var);
  case LIR_S_FOR: case LIR_S_LET: case LIR_S_ALLOC: case LIR_S_ATTR:
    return find_rec(&s->body, var);
  default:
    return NULL;
  }
}

lir_stmt **vta_sched_find_loop(lir_func *f, const char *var) {
  if (!f || !var) return NULL;
  return find_rec(&f->body, var);
}

static lir_buf *find_buf(lir_func *f, const char *name) {
  for (int i = 0; i < f->nbufs; i++)
    if (!strcmp(f->bufs[i]->name, name)) return f->bufs[i];
  return NULL;
}

/* ---------------------------------------------------------------- rewriting */

/* A rewrite: variable substitutions, a buffer redirect with per-dim index transforms, renaming of
 * bound variables (when duplicating a body). */
typedef struct rw {
  lir_func *f;
  int nsub;
  lir_var *from[16];
  lir_expr *to[16];
  lir_buf *bfrom, *bto;      /* loads/stores of bfrom go to bto */
  bool loads, stores;        /* which accesses to redirect */
  lir_expr *off[LIR_MAX_DIMS]; /* subtract from each index (NULL: none) */
  bool unclamp[LIR_MAX_DIMS];  /* drop a max(min(A, hi), lo) around the index first */
  lir_expr *lead;            /* prepend this index (vthread part) */
  int nlead;                 /* leading indices prepended before `lead` (fission's expansion) */
  lir_expr *leads[LIR_MAX_DIMS]; /* those indices, outermost first */
  bool fresh;                /* bound variables get fresh copies */
} rw;

static lir_expr *rw_e(rw *c, lir_expr *e);

static lir_expr *simplify(lir_func *f, lir_expr *e);

static void rw_idx(rw *c, int n, lir_expr **in, lir_expr **out, int *nout) {
  int k = 0;
  for (int i = 0; i < c->nlead; i++) out[k++] = c->leads[i];
  if (c->lead) out[k++] = c->lead;
  for (int i = 0; i < n; i++) {
    lir_expr *ix = in[i], *inner;
    if (c->unclamp[i] && vta_is_clamp(ix, &inner, NULL, NULL)) ix = inner;
    ix = rw_e(c, ix);
    if (c->off[i]) ix = simplify(c->f, lir_sub(c->f, ix, c->off[i]));
    out[k++] = ix;
  }
  *nout = k;
}

static lir_expr *rw_e(rw *c, lir_expr *e) {
  if (!e) return NULL;
  lir_func *f = c->f;
  switch (e->kind) {
  case LIR_E_INT: case LIR_E_FLOAT:
    return e;
  case LIR_E_VAR:
    for (int i = c->nsub - 1; i >= 0; i--)
      if (c->from[i] == e->var) return c->to[i];
    return e;
  case LIR_E_LOAD: {
    lir_expr *idx[LIR_MAX_DIMS + 1];
    if (e->buf == c->bfrom && c->loads) {
      int n;
      rw_idx(c, e->nargs, e->args, idx, &n);
      return lir_load(f, c->bto, idx);
    }
    for (int i = 0; i < e->nargs; i++) idx[i] = rw_e(c, e->args[i]);
    return lir_load(f, e->buf, idx);
  }
  case LIR_E_BIN:
    return lir_bin(f, e->op, rw_e(c, e->args[0]), rw_e(c, e->args[1]));
  case LIR_E_UN:
    return lir_un(f, e->op, rw_e(c, e->args[0]));
  case LIR_E_CAST:
    return lir_cast(f, e->dtype, rw_e(c, e->args[0]));
  case LIR_E_SELECT:
    return lir_select(f, rw_e(c, e->args[0]), rw_e(c, e->args[1]), rw_e(c, e->args[2]));
  case LIR_E_CALL: {
    lir_expr **a = lir_alloc(f, sizeof(lir_expr *) * (size_t)(e->nargs ? e->nargs : 1));
    if (!a) return e;
    for (int i = 0; i < e->nargs; i++) a[i] = rw_e(c, e->args[i]);
    if (e->op == LIR_OPAQUE) return lir_opaque(f, e->callee, e->dtype, e->nargs, a);
    return lir_call(f, e->op, e->dtype, e->nargs, a);
  }
  }
  return e;
}

static lir_var *rw_bind(rw *c, lir_var *v) {
  if (!c->fresh || c->nsub >= 16) return v;
  lir_var *nv = lir_var_new(c->f, v->name, v->dtype);
  c->from[c->nsub] = v, c->to[c->nsub++] = lir_ref(c->f, nv);
  return nv;
}

static lir_stmt *rw_s(rw *c, lir_stmt *s) {
  if (!s) return NULL;
  lir_func *f = c->f;
  switch (s->kind) {
  case LIR_S_SEQ: {
    lir_stmt **a = lir_alloc(f, sizeof(lir_stmt *) * (size_t)(s->n ? s->n : 1));
    if (!a) return s;
    for (int i = 0; i < s->n; i++) a[i] = rw_s(c, s->stmts[i]);
    return lir_seq(f, s->n, a);
  }
  case LIR_S_FOR: {
    int save = c->nsub;
    lir_expr *mn = rw_e(c, s->min), *ex = rw_e(c, s->extent);
    lir_var *v = rw_bind(c, s->var);
    lir_stmt *r = lir_for(f, v, mn, ex, s->for_kind, rw_s(c, s->body));
    c->nsub = save;
    return r;
  }
  case LIR_S_LET: {
    int save = c->nsub;
    lir_expr *val = rw_e(c, s->value);
    lir_var *v = rw_bind(c, s->var);
    lir_stmt *r = lir_let(f, v, val, rw_s(c, s->body));
    c->nsub = save;
    return r;
  }
  case LIR_S_STORE: {
    lir_expr *idx[LIR_MAX_DIMS + 1];
    lir_expr *val = rw_e(c, s->value);
    if (s->buf == c->bfrom && c->stores) {
      int n;
      rw_idx(c, s->nidx, s->idx, idx, &n);
      return lir_store(f, c->bto, idx, val);
    }
    for (int i = 0; i < s->nidx; i++) idx[i] = rw_e(c, s->idx[i]);
    return lir_store(f, s->buf, idx, val);
  }
  case LIR_S_IF:
    return lir_if(f, rw_e(c, s->value), rw_s(c, s->body), rw_s(c, s->else_body));
  case LIR_S_ALLOC:
    return lir_alloc_stmt(f, s->buf, rw_s(c, s->body));
  case LIR_S_ATTR:
    return lir_attr(f, s->key, rw_e(c, s->value), rw_s(c, s->body));
  case LIR_S_EVAL:
    return lir_eval(f, rw_e(c, s->value));
  }
  return s;
}

/* ---------------------------------------------------------------- affine analysis */

/* An affine index in canonical form: terms in order of appearance, then the constant. */
static lir_expr *simplify(lir_func *f, lir_expr *e) {
  lir_affine a = lir_affine_of(e);
  return a.ok ? lir_affine_expr(f, &a) : e;
}

/* Loop variable ranges in scope. */
typedef struct ranges {
  int n;
  lir_var *v[64];
  int64_t lo[64], hi[64];
} ranges;

static bool range_of(const ranges *rg, const lir_var *v, int64_t *lo, int64_t *hi) {
  for (int i = rg->n - 1; i >= 0; i--)
    if (rg->v[i] == v) {
      *lo = rg->lo[i], *hi = rg->hi[i];
      return true;
    }
  return false;
}

/* min/max of a over the ranges; vars without a range fail. */
static bool aff_bounds(const lir_affine *a, const ranges *rg, int64_t *mn, int64_t *mx) {
  if (!a->ok) return false;
  int64_t lo = a->c, hi = a->c;
  for (int i = 0; i < a->n; i++) {
    int64_t l, h;
    if (a->k[i] == 0) continue;
    if (!range_of(rg, a->v[i], &l, &h)) return false;
    if (a->k[i] > 0) lo += a->k[i] * l, hi += a->k[i] * h;
    else lo += a->k[i] * h, hi += a->k[i] * l;
  }
  *mn = lo, *mx = hi;
  return true;
}

static bool const_of(const lir_expr *e, int64_t *v) {
  lir_affine a = lir_affine_of(e);
  if (!a.ok) return false;
  for (int i = 0; i < a.n; i++)
    if (a.k[i]) return false;
  *v = a.c;
  return true;
}

static bool push_range(ranges *rg, const lir_stmt *s) {
  int64_t mn, mnhi, ex;
  if (rg->n >= 64) return false;
  lir_affine am = lir_affine_of(s->min);
  if (!const_of(s->extent, &ex) || !aff_bounds(&am, rg, &mn, &mnhi)) return false;
  rg->v[rg->n] = s->var, rg->lo[rg->n] = mn, rg->hi[rg->n] = mnhi + ex - 1;
  rg->n++;
  return true;
}

/* ---------------------------------------------------------------- split */

int vta_sched_split(vta_sched *s, const char *var, int64_t factor, vta_split_mode mode, ovta_error *err) {
  lir_func *f = s->f;
  lir_stmt **slot = vta_sched_find_loop(f, var);
  if (!slot) return OVTA_FAIL(err, OVTA_EINVAL, "split: no loop '%s' in %s", var ? var : "", f->name);
  lir_stmt *L = *slot;
  int64_t ext;
  if (!const_of(L->extent, &ext)) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "split %s: extent is not constant", var);
  if (factor <= 0) return OVTA_FAIL(err, OVTA_EINVAL, "split %s: factor %lld must be > 0", var, (long long)factor);
  if (mode == VTA_SPLIT_EXACT && ext % factor)
    return OVTA_FAIL(err, OVTA_EINVAL, "split %s: factor %lld does not divide extent %lld (use guard or tail)", var,
                     (long long)factor, (long long)ext);
  char nb[128];
  snprintf(nb, sizeof nb, "%s_o", var);
  lir_var *vo = lir_var_new(f, nb, LIR_I64);
  snprintf(nb, sizeof nb, "%s_i", var);
  lir_var *vi = lir_var_new(f, nb, LIR_I64);
  int64_t q = mode == VTA_SPLIT_GUARD ? (ext + factor - 1) / factor : ext / factor, r = ext % factor;
  lir_expr *val = lir_add(f, L->min, lir_add(f, lir_muli(f, lir_ref(f, vo), factor), lir_ref(f, vi)));
  rw c = {.f = f, .nsub = 1, .from = {L->var}, .to = {val}};
  lir_stmt *body = rw_s(&c, L->body);
  if (mode == VTA_SPLIT_GUARD && r)
    body = lir_if(f, lir_bin(f, LIR_LT, lir_add(f, lir_muli(f, lir_ref(f, vo), factor), lir_ref(f, vi)), lir_i64(f, ext)),
                  body, NULL);
  lir_stmt *main = lir_for(f, vo, lir_i64(f, 0), lir_i64(f, q), LIR_FOR_SERIAL,
                           lir_for(f, vi, lir_i64(f, 0), lir_i64(f, factor), L->for_kind, body));
  if (mode == VTA_SPLIT_TAIL && r) {
    snprintf(nb, sizeof nb, "%s_t", var);
    lir_var *vt = lir_var_new(f, nb, LIR_I64);
    rw t = {.f = f, .nsub = 1, .from = {L->var}, .to = {lir_add(f, L->min, lir_addi(f, lir_ref(f, vt), q * factor))},
            .fresh = true};
    lir_stmt *tail = lir_for(f, vt, lir_i64(f, 0), lir_i64(f, r), L->for_kind, rw_s(&t, L->body));
    if (q == 0) {
      *slot = tail;
    } else {
      lir_stmt *two[2] = {main, tail};
      *slot = lir_seq(f, 2, two);
    }
  } else {
    *slot = main;
  }
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "split %s: out of memory", var) : OVTA_OK;
}

/* ---------------------------------------------------------------- reorder */

int vta_sched_reorder(vta_sched *s, const char *const *vars, int n, ovta_error *err) {
  lir_func *f = s->f;
  if (n < 1 || n > 16) return OVTA_FAIL(err, OVTA_EINVAL, "reorder: 1..16 loops");
  /* the outermost: the one whose perfect nest holds all others */
  for (int i = 0; i < n; i++) {
    lir_stmt **slot = vta_sched_find_loop(f, vars[i]);
    if (!slot) return OVTA_FAIL(err, OVTA_EINVAL, "reorder: no loop '%s' in %s", vars[i], f->name);
    lir_stmt *chain[16];
    int m = 0;
    lir_stmt *cur = *slot;
    while (m < n && cur && cur->kind == LIR_S_FOR) {
      int j = 0;
      while (j < n && strcmp(cur->var->name, vars[j])) j++;
      if (j == n) break;
      chain[m++] = cur;
      cur = cur->body;
    }
    if (m < n) continue;
    lir_stmt *inner = chain[n - 1]->body;
    lir_stmt *by[16];
    for (int j = 0; j < n; j++) {
      by[j] = NULL;
      for (int k = 0; k < n; k++)
        if (!strcmp(chain[k]->var->name, vars[j])) by[j] = chain[k];
      if (!by[j]) return OVTA_FAIL(err, OVTA_EINVAL, "reorder: loop '%s' named twice", vars[j]);
    }
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        if (lir_uses_var(by[j]->min, by[k]->var) || lir_uses_var(by[j]->extent, by[k]->var))
          return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "reorder: bounds of '%s' depend on '%s'", vars[j], vars[k]);
    for (int j = n - 1; j >= 0; j--) inner = lir_for(f, by[j]->var, by[j]->min, by[j]->extent, by[j]->for_kind, inner);
    *slot = inner;
    return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "reorder: out of memory") : OVTA_OK;
  }
  return OVTA_FAIL(err, OVTA_EINVAL, "reorder: loops %s.. are not a perfect nest in %s", vars[0], f->name);
}

/* ---------------------------------------------------------------- caches */

static lir_stmt *full_copy(lir_func *f, lir_buf *dst, lir_buf *src, const char *pfx) {
  lir_nest ns;
  lir_nest_open(f, &ns, src->ndim, src->shape, pfx);
  lir_expr *v = lir_load(f, src, ns.idx);
  if (v->dtype != dst->dtype) v = lir_cast(f, dst->dtype, v);
  return lir_nest_close(f, &ns, lir_store(f, dst, ns.idx, v), LIR_FOR_SERIAL);
}

static int cache_new(vta_sched *s, const char *buf, lir_scope scope, const char *name, bool write, ovta_error *err) {
  lir_func *f = s->f;
  const char *what = write ? "cache_write" : "cache_read";
  lir_buf *b = buf ? find_buf(f, buf) : NULL;
  if (!b) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no buffer '%s' in %s", what, buf ? buf : "", f->name);
  if (!name || !*name || find_buf(f, name)) return OVTA_FAIL(err, OVTA_EINVAL, "%s %s: name '%s' taken or empty", what, buf, name ? name : "");
  if (s->ncache == VTA_SCHED_MAX_CACHES) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: too many caches", what);
  if ((unsigned)scope >= LIR_SCOPE_COUNT) return OVTA_FAIL(err, OVTA_EINVAL, "%s %s: bad scope", what, buf);
  lir_buf *c = lir_buf_new(f, name, b->dtype, b->ndim, b->shape, scope);
  if (!c) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", what);
  rw r = {.f = f, .bfrom = b, .bto = c, .loads = true, .stores = write};
  lir_stmt *body = rw_s(&r, f->body);
  char pfx[64];
  snprintf(pfx, sizeof pfx, "%.40s_c", name);
  lir_stmt *cp = lir_attr(f, what, lir_i64(f, s->ncache), write ? full_copy(f, b, c, pfx) : full_copy(f, c, b, pfx));
  lir_stmt *two[2] = {write ? body : cp, write ? cp : body};
  f->body = lir_alloc_stmt(f, c, lir_seq(f, 2, two));
  s->cache[s->ncache++] = (struct vta_sched_cache){.cache = c, .orig = b, .write = write};
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", what) : OVTA_OK;
}

int vta_sched_cache_read(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err) {
  return cache_new(s, buf, scope, name, false, err);
}
int vta_sched_cache_write(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err) {
  return cache_new(s, buf, scope, name, true, err);
}

static struct vta_sched_cache *cache_get(vta_sched *s, const char *name, int *id) {
  for (int i = 0; i < s->ncache; i++)
    if (!strcmp(s->cache[i].cache->name, name)) {
      *id = i;
      return &s->cache[i];
    }
  return NULL;
}

/* Remove the ALLOC of b (keeping its body) and the copy attr with id; returns whether both found. */
static int unplace(lir_func *f, lir_stmt **slot, lir_buf *b, int64_t id, int found) {
  lir_stmt *s = *slot;
  if (!s) return found;
  if (s->kind == LIR_S_ALLOC && s->buf == b) {
    *slot = s->body;
    return unplace(f, slot, b, id, found | 1);
  }
  if (s->kind == LIR_S_ATTR && (!strcmp(s->key, "cache_read") || !strcmp(s->key, "cache_write")) &&
      s->value->kind == LIR_E_INT && s->value->ival == id) {
    *slot = lir_seq(f, 0, NULL);
    return found | 2;
  }
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) found = unplace(f, &s->stmts[i], b, id, found);
    return found;
  case LIR_S_IF:
    found = unplace(f, &s->body, b, id, found);
    return unplace(f, &s->else_body, b, id, found);
  case LIR_S_FOR: case LIR_S_LET: case LIR_S_ALLOC: case LIR_S_ATTR:
    return unplace(f, &s->body, b, id, found);
  default:
    return found;
  }
}

static void set_shape(lir_buf *b, int ndim, const int64_t *shape) {
  int64_t sh[LIR_MAX_DIMS];
  memcpy(sh, shape, sizeof(int64_t) * (size_t)ndim);
  b->ndim = ndim;
  int64_t st = 1;
  for (int i = ndim - 1; i >= 0; i--) b->shape[i] = sh[i], b->strides[i] = st, st *= sh[i];
}

/* Ranges of the loops enclosing target (exclusive) into rg; true when found. */
static bool ranges_to(const lir_stmt *s, const lir_stmt *target, ranges *rg) {
  if (!s) return false;
  if (s == target) return true;
  int save = rg->n;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++)
      if (ranges_to(s->stmts[i], target, rg)) return true;
    return false;
  case LIR_S_IF:
    return ranges_to(s->body, target, rg) || ranges_to(s->else_body, target, rg);
  case LIR_S_FOR:
    push_range(rg, s);
    if (ranges_to(s->body, target, rg)) return true;
    rg->n = save;
    return false;
  case LIR_S_LET: case LIR_S_ALLOC: case LIR_S_ATTR:
    return ranges_to(s->body, target, rg);
  default:
    return false;
  }
}

/* Region of the accesses to b inside a statement, relative to the variables bound outside it. */
typedef struct region {
  int nacc;
  bool fail;
  char why[96];
  lir_affine outer[LIR_MAX_DIMS];  /* the outer part (terms only) of the first access */
  int64_t lo[LIR_MAX_DIMS], hi[LIR_MAX_DIMS];
  bool clamp[LIR_MAX_DIMS];
  const lir_expr *clamp_e[LIR_MAX_DIMS]; /* a clamp expression (for its constants) */
} region;

static bool aff_same_terms(const lir_affine *a, const lir_affine *b) {
  for (int i = 0; i < a->n; i++) {
    int64_t kb = 0;
    for (int j = 0; j < b->n; j++)
      if (b->v[j] == a->v[i]) kb = b->k[j];
    if (kb != a->k[i]) return false;
  }
  for (int j = 0; j < b->n; j++) {
    int64_t ka = 0;
    for (int i = 0; i < a->n; i++)
      if (a->v[i] == b->v[j]) ka = a->k[i];
    if (ka != b->k[j]) return false;
  }
  return true;
}

static void reg_access(region *R, const lir_buf *b, int n, lir_expr *const *idx, const ranges *inner) {
  if (R->fail) return;
  for (int d = 0; d < n; d++) {
    lir_expr *ix = idx[d], *in;
    bool cl = vta_is_clamp(ix, &in, NULL, NULL);
    if (cl) ix = in;
    lir_affine a = lir_affine_of(ix);
    if (!a.ok) {
      R->fail = true;
      snprintf(R->why, sizeof R->why, "index %d of %s is not affine", d, b->name);
      return;
    }
    lir_affine o = {.ok = true}, i = {.ok = true, .c = a.c};
    for (int t = 0; t < a.n; t++) {
      int64_t l, h;
      if (range_of(inner, a.v[t], &l, &h)) lir_affine_add(&i, a.v[t], a.k[t]);
      else if (a.k[t]) lir_affine_add(&o, a.v[t], a.k[t]);
    }
    int64_t mn, mx;
    if (!aff_bounds(&i, inner, &mn, &mx)) {
      R->fail = true;
      snprintf(R->why, sizeof R->why, "index %d of %s has no bounds", d, b->name);
      return;
    }
    if (R->nacc == 0) {
      R->outer[d] = o, R->lo[d] = mn, R->hi[d] = mx, R->clamp[d] = cl, R->clamp_e[d] = cl ? idx[d] : NULL;
    } else {
      if (!aff_same_terms(&R->outer[d], &o) || R->clamp[d] != cl) {
        R->fail = true;
        snprintf(R->why, sizeof R->why, "accesses to %s differ in dim %d beyond constants", b->name, d);
        return;
      }
      if (mn < R->lo[d]) R->lo[d] = mn;
      if (mx > R->hi[d]) R->hi[d] = mx;
    }
  }
  R->nacc++;
}

static void reg_e(region *R, const lir_buf *b, const lir_expr *e, const ranges *inner) {
  if (!e) return;
  if (e->kind == LIR_E_LOAD && e->buf == b) reg_access(R, b, e->nargs, e->args, inner);
  for (int i = 0; i < e->nargs; i++) reg_e(R, b, e->args[i], inner);
}

static void reg_s(region *R, const lir_buf *b, const lir_stmt *s, ranges *inner) {
  if (!s) return;
  int save = inner->n;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) reg_s(R, b, s->stmts[i], inner);
    break;
  case LIR_S_FOR:
    reg_e(R, b, s->min, inner), reg_e(R, b, s->extent, inner);
    if (!push_range(inner, s)) {
      R->fail = true;
      snprintf(R->why, sizeof R->why, "loop %s has no constant bounds", s->var->name);
    }
    reg_s(R, b, s->body, inner);
    break;
  case LIR_S_STORE:
    reg_e(R, b, s->value, inner);
    for (int i = 0; i < s->nidx; i++) reg_e(R, b, s->idx[i], inner);
    if (s->buf == b) reg_access(R, b, s->nidx, s->idx, inner);
    break;
  case LIR_S_IF:
    reg_e(R, b, s->value, inner);
    reg_s(R, b, s->body, inner), reg_s(R, b, s->else_body, inner);
    break;
  case LIR_S_LET: case LIR_S_ATTR: case LIR_S_EVAL:
    reg_e(R, b, s->value, inner);
    reg_s(R, b, s->body, inner);
    break;
  case LIR_S_ALLOC:
    reg_s(R, b, s->body, inner);
    break;
  }
  inner->n = save;
}

static lir_expr *aff_expr(lir_func *f, const lir_affine *a) {
  lir_expr *e = lir_i64(f, a->c);
  for (int i = 0; i < a->n; i++)
    if (a->k[i]) e = lir_add(f, e, lir_muli(f, lir_ref(f, a->v[i]), a->k[i]));
  return e;
}

int vta_sched_compute_at(vta_sched *s, const char *cache, const char *var, ovta_error *err) {
  lir_func *f = s->f;
  int id;
  struct vta_sched_cache *c = cache ? cache_get(s, cache, &id) : NULL;
  if (!c) return OVTA_FAIL(err, OVTA_EINVAL, "compute_at: no cache '%s' (cache_read/cache_write first)", cache ? cache : "");
  if (c->placed) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "compute_at %s: already placed", cache);
  if (!vta_sched_find_loop(f, var)) return OVTA_FAIL(err, OVTA_EINVAL, "compute_at %s: no loop '%s'", cache, var ? var : "");
  if (unplace(f, &f->body, c->cache, id, 0) != 3)
    return OVTA_FAIL(err, OVTA_EINTERNAL, "compute_at %s: its copy nest is gone", cache);
  lir_stmt **slot = vta_sched_find_loop(f, var);
  lir_stmt *L = *slot;
  ranges outer = {0}, inner = {0};
  ranges_to(f->body, L, &outer);
  push_range(&outer, L);
  region R = {0};
  reg_s(&R, c->cache, L->body, &inner);
  if (R.fail) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "compute_at %s under %s: %s", cache, var, R.why);
  if (!R.nacc) return OVTA_FAIL(err, OVTA_EINVAL, "compute_at %s: loop %s does not use it", cache, var);
  lir_buf *C = c->cache, *B = c->orig;
  int nd = C->ndim;
  int64_t ext[LIR_MAX_DIMS];
  lir_expr *base[LIR_MAX_DIMS];
  for (int d = 0; d < nd; d++) {
    lir_affine o = R.outer[d];
    o.c = R.lo[d];
    base[d] = aff_expr(f, &o);
    ext[d] = R.hi[d] - R.lo[d] + 1;
  }
  /* rewrite the accesses in the loop body: C[idx] -> C[idx - base] (clamps dropped) */
  rw r = {.f = f, .bfrom = C, .bto = C, .loads = true, .stores = true};
  for (int d = 0; d < nd; d++) r.off[d] = base[d], r.unclamp[d] = R.clamp[d];
  lir_stmt *body = rw_s(&r, L->body);
  set_shape(C, nd, ext);
  /* the copy nest over the region; a guard where the region may leave B */
  char pfx[64];
  snprintf(pfx, sizeof pfx, "%.40s_c", C->name);
  lir_nest ns;
  lir_nest_open(f, &ns, nd, ext, pfx);
  lir_expr *bi[LIR_MAX_DIMS], *guard = NULL;
  ranges all = outer;
  for (int d = 0; d < nd && all.n < 64; d++) all.v[all.n] = ns.vars[d], all.lo[all.n] = 0, all.hi[all.n++] = ext[d] - 1;
  for (int d = 0; d < nd; d++) {
    bi[d] = lir_add(f, base[d], ns.idx[d]);
    if (R.clamp[d]) {
      const lir_expr *ce = R.clamp_e[d];
      bi[d] = lir_max(f, lir_min(f, bi[d], ce->args[0]->args[1]), ce->args[1]);
      continue;
    }
    lir_affine a = lir_affine_of(bi[d]);
    int64_t mn, mx;
    if (aff_bounds(&a, &all, &mn, &mx) && mn >= 0 && mx < B->shape[d]) continue;
    lir_expr *g = lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, bi[d], lir_i64(f, 0)), lir_bin(f, LIR_LT, bi[d], lir_i64(f, B->shape[d])));
    guard = guard ? lir_bin(f, LIR_AND, guard, g) : g;
  }
  lir_stmt *st;
  if (c->write) {
    lir_expr *v = lir_load(f, C, ns.idx);
    if (v->dtype != B->dtype) v = lir_cast(f, B->dtype, v);
    st = lir_store(f, B, bi, v);
  } else {
    lir_expr *v = lir_load(f, B, bi);
    if (v->dtype != C->dtype) v = lir_cast(f, C->dtype, v);
    st = lir_store(f, C, ns.idx, v);
  }
  if (guard) st = lir_if(f, guard, st, NULL);
  lir_stmt *cp = lir_attr(f, c->write ? "cache_write" : "cache_read", lir_i64(f, id), lir_nest_close(f, &ns, st, LIR_FOR_SERIAL));
  lir_stmt *two[2] = {c->write ? body : cp, c->write ? cp : body};
  *slot = lir_for(f, L->var, L->min, L->extent, L->for_kind, lir_alloc_stmt(f, C, lir_seq(f, 2, two)));
  c->placed = true;
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "compute_at: out of memory") : OVTA_OK;
}

/* ---------------------------------------------------------------- virtual threads */

/* Rule: the loops named are nested (each inside the body of the one before; constant extents,
 * min 0); their fused iteration index t = ((v1 * E2 + v2) * E3 + v3) ... gives the part
 * floormod(t, n). The body of the innermost named loop gets `attr virtual_thread = part` (none for
 * n = 1); each cache gets a leading part dimension of n indexed by it, its allocation hoisted out
 * of the innermost loop. A cache that is written in one iteration and read in another would be
 * wrong: ping-pong parts are only correct for caches filled and used within one iteration. */
int vta_sched_vthread_fused(vta_sched *s, const char *const *vars, int nvars, int n, const char *const *caches, int ncaches,
                            ovta_error *err) {
  lir_func *f = s->f;
  if (nvars < 1 || nvars > 8) return OVTA_FAIL(err, OVTA_EINVAL, "vthread: 1..8 loops");
  const char *var = vars[nvars - 1];
  if (n < 1 || n > 8) return OVTA_FAIL(err, OVTA_EINVAL, "vthread %s: %d threads (1..8)", var, n);
  lir_stmt **slot = NULL;
  lir_expr *t = lir_i64(f, 0);
  for (int i = 0; i < nvars; i++) {
    lir_stmt **sl = i == 0 ? vta_sched_find_loop(f, vars[i]) : find_rec(&(*slot)->body, vars[i]);
    if (!sl)
      return i == 0 ? OVTA_FAIL(err, OVTA_EINVAL, "vthread: no loop '%s' in %s", vars[i], f->name)
                    : OVTA_FAIL(err, OVTA_EINVAL, "vthread: no loop '%s' inside loop '%s'", vars[i], vars[i - 1]);
    int64_t mn, ex;
    if (!const_of((*sl)->min, &mn) || mn != 0 || !const_of((*sl)->extent, &ex))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "vthread: loop '%s' needs min 0 and a constant extent", vars[i]);
    t = lir_add(f, lir_muli(f, t, ex), lir_ref(f, (*sl)->var));
    slot = sl;
  }
  lir_stmt *L = *slot;
  lir_expr *part = n == 1 ? lir_i64(f, 0) : lir_bin(f, LIR_FLOORMOD, t, lir_i64(f, n));
  lir_stmt *body = L->body;
  lir_buf *hoist[VTA_SCHED_MAX_CACHES];
  if (ncaches > VTA_SCHED_MAX_CACHES) return OVTA_FAIL(err, OVTA_EINVAL, "vthread %s: too many caches", var);
  for (int i = 0; i < ncaches; i++) {
    int id;
    struct vta_sched_cache *c = cache_get(s, caches[i], &id);
    if (!c || !c->placed)
      return OVTA_FAIL(err, OVTA_EINVAL, "vthread %s: '%s' is not a cache placed with compute_at (or a scoped buffer)", var,
                       caches[i]);
    lir_buf *C = c->cache;
    if (C->ndim + 1 > LIR_MAX_DIMS) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "vthread %s: %s has too many dims", var, C->name);
    if (!(unplace(f, &body, C, -1, 0) & 1))
      return OVTA_FAIL(err, OVTA_EINVAL, "vthread %s: %s is not allocated inside the loop", var, C->name);
    int64_t sh[LIR_MAX_DIMS];
    sh[0] = n;
    for (int d = 0; d < C->ndim; d++) sh[d + 1] = C->shape[d];
    set_shape(C, C->ndim + 1, sh);
    rw r = {.f = f, .bfrom = C, .bto = C, .loads = true, .stores = true, .lead = part};
    body = rw_s(&r, body);
    hoist[i] = C;
  }
  if (n > 1) body = lir_attr(f, "virtual_thread", part, body);
  lir_stmt *out = lir_for(f, L->var, L->min, L->extent, L->for_kind, body);
  for (int i = ncaches - 1; i >= 0; i--) out = lir_alloc_stmt(f, hoist[i], out);
  *slot = out;
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "vthread: out of memory") : OVTA_OK;
}

int vta_sched_vthread(vta_sched *s, const char *var, int n, const char *const *caches, int ncaches, ovta_error *err) {
  if (!var) return OVTA_FAIL(err, OVTA_EINVAL, "vthread: no loop named");
  return vta_sched_vthread_fused(s, &var, 1, n, caches, ncaches, err);
}

/* ---------------------------------------------------------------- fission (reduction decomposition) */

/* Buffers a statement writes (stores) and accesses (loads or stores); false when more than cap. */
typedef struct bufset {
  int nw, na;
  const lir_buf *w[32], *a[32];
} bufset;

static void bs_add(const lir_buf **v, int *n, const lir_buf *b) {
  for (int i = 0; i < *n; i++)
    if (v[i] == b) return;
  if (*n < 32) v[(*n)++] = b;
}
static void bs_e(bufset *bs, const lir_expr *e) {
  if (!e) return;
  if (e->kind == LIR_E_LOAD) bs_add(bs->a, &bs->na, e->buf);
  for (int i = 0; i < e->nargs; i++) bs_e(bs, e->args[i]);
}
static void bs_s(bufset *bs, const lir_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) bs_s(bs, s->stmts[i]);
    return;
  case LIR_S_FOR:
    bs_e(bs, s->min), bs_e(bs, s->extent), bs_s(bs, s->body);
    return;
  case LIR_S_STORE:
    bs_e(bs, s->value);
    for (int i = 0; i < s->nidx; i++) bs_e(bs, s->idx[i]);
    bs_add(bs->w, &bs->nw, s->buf), bs_add(bs->a, &bs->na, s->buf);
    return;
  case LIR_S_IF:
    bs_e(bs, s->value), bs_s(bs, s->body), bs_s(bs, s->else_body);
    return;
  case LIR_S_LET: case LIR_S_ATTR: case LIR_S_EVAL:
    bs_e(bs, s->value), bs_s(bs, s->body);
    return;
  case LIR_S_ALLOC:
    bs_s(bs, s->body);
    return;
  }
}
static bool bs_has(const lir_buf *const *v, int n, const lir_buf *b) {
  for (int i = 0; i < n; i++)
    if (v[i] == b) return true;
  return false;
}

/* Rule (loop distribution with scalar expansion; TVM's decompose_reduction generalized): the loops
 * L1..Lk from loop `var` down (a perfect nest: each body is the next loop; constant min and extent),
 * then allocations A1..Am, then a sequence S1..Sn (n >= 2):
 *   for L1..Lk { alloc A1..Am { S1; ..; Sn } }
 *   -> alloc A1'..Am' { for L1..Lk { S1' }; for L1_2..Lk_2 { S2' }; ..; for L1_n..Lk_n { Sn' } }
 * Ai' is Ai with the leading dimensions ext(L1)..ext(Lk): every access Ai[idx] becomes
 * Ai'[L1 - min1, .., Lk - mink, idx] (each iteration keeps its own element: the per-element
 * accumulator becomes a tile). Copy j >= 2 binds fresh variables named `V_j`. Legal when no buffer
 * other than the Ai written by one statement is accessed by another (then every Sj of every
 * iteration only sees its own iteration's Ai elements and buffers no other statement touches:
 * running all iterations of S1, then of S2, .. gives the same stores). Refused otherwise, naming
 * the buffer. */
int vta_sched_fission(vta_sched *s, const char *var, ovta_error *err) {
  lir_func *f = s->f;
  lir_stmt **slot = vta_sched_find_loop(f, var);
  if (!slot) return OVTA_FAIL(err, OVTA_EINVAL, "fission: no loop '%s' in %s", var ? var : "", f->name);
  lir_stmt *loops[LIR_MAX_DIMS];
  int k = 0;
  lir_stmt *cur = *slot;
  while (cur && cur->kind == LIR_S_FOR) {
    if (k == LIR_MAX_DIMS) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "fission %s: more than %d loops", var, LIR_MAX_DIMS);
    int64_t mn, ex;
    if (!const_of(cur->min, &mn) || !const_of(cur->extent, &ex))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "fission %s: loop '%s' has no constant bounds", var, cur->var->name);
    loops[k++] = cur;
    cur = cur->body;
  }
  lir_buf *al[8];
  int na = 0;
  while (cur && cur->kind == LIR_S_ALLOC) {
    if (na == 8) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "fission %s: more than 8 allocations", var);
    if (cur->buf->ndim + k > LIR_MAX_DIMS)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "fission %s: %s would have more than %d dims", var, cur->buf->name, LIR_MAX_DIMS);
    al[na++] = cur->buf;
    cur = cur->body;
  }
  if (!cur || cur->kind != LIR_S_SEQ || cur->n < 2)
    return OVTA_FAIL(err, OVTA_EINVAL, "fission %s: the nest holds no sequence of statements to distribute", var);
  int n = cur->n;
  if (n > 16) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "fission %s: more than 16 statements", var);
  /* legality: buffers written by one statement (other than the expanded ones) are private to it */
  bufset *bs = calloc((size_t)n, sizeof *bs);
  if (!bs) return OVTA_FAIL(err, OVTA_ENOMEM, "fission: out of memory");
  for (int j = 0; j < n; j++) bs_s(&bs[j], cur->stmts[j]);
  for (int j = 0; j < n; j++)
    for (int w = 0; w < bs[j].nw; w++) {
      const lir_buf *b = bs[j].w[w];
      bool expanded = false;
      for (int i = 0; i < na; i++) expanded |= al[i] == b;
      if (expanded) continue;
      for (int i = 0; i < n; i++)
        if (i != j && bs_has(bs[i].a, bs[i].na, b)) {
          int rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED,
                             "fission %s: %s is written by statement %d and accessed by statement %d of the nest", var,
                             b->name, j + 1, i + 1);
          free(bs);
          return rc;
        }
    }
  free(bs);
  /* expand the allocations */
  lir_expr *lead[LIR_MAX_DIMS];
  int64_t ext[LIR_MAX_DIMS];
  for (int i = 0; i < k; i++) {
    const_of(loops[i]->extent, &ext[i]);
    lead[i] = simplify(f, lir_sub(f, lir_ref(f, loops[i]->var), loops[i]->min));
  }
  lir_stmt **parts = lir_alloc(f, sizeof(lir_stmt *) * (size_t)n);
  if (!parts) return OVTA_FAIL(err, OVTA_ENOMEM, "fission: out of memory");
  for (int a = 0; a < na; a++) { /* new shapes first: accesses are built with the buffer's rank */
    int64_t sh[LIR_MAX_DIMS];
    for (int i = 0; i < k; i++) sh[i] = ext[i];
    for (int d = 0; d < al[a]->ndim; d++) sh[k + d] = al[a]->shape[d];
    set_shape(al[a], al[a]->ndim + k, sh);
  }
  for (int j = 0; j < n; j++) {
    lir_stmt *st = cur->stmts[j];
    for (int a = 0; a < na; a++) {
      rw r = {.f = f, .bfrom = al[a], .bto = al[a], .loads = true, .stores = true, .nlead = k};
      for (int i = 0; i < k; i++) r.leads[i] = lead[i];
      st = rw_s(&r, st);
    }
    lir_var *vs[LIR_MAX_DIMS];
    if (j > 0) { /* fresh loop variables for the copy */
      rw r = {.f = f, .nsub = k};
      for (int i = 0; i < k; i++) {
        char nb[128];
        snprintf(nb, sizeof nb, "%s_%d", loops[i]->var->name, j + 1);
        vs[i] = lir_var_new(f, nb, loops[i]->var->dtype);
        r.from[i] = loops[i]->var, r.to[i] = lir_ref(f, vs[i]);
      }
      st = rw_s(&r, st);
    } else {
      for (int i = 0; i < k; i++) vs[i] = loops[i]->var;
    }
    for (int i = k - 1; i >= 0; i--) st = lir_for(f, vs[i], loops[i]->min, loops[i]->extent, loops[i]->for_kind, st);
    parts[j] = st;
  }
  lir_stmt *out = lir_seq(f, n, parts);
  for (int a = na - 1; a >= 0; a--) out = lir_alloc_stmt(f, al[a], out);
  *slot = out;
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "fission %s: out of memory", var) : OVTA_OK;
}

/* ---------------------------------------------------------------- naming, scopes, allocations */

/* Rule: the loop of `var` binds a new variable `name` (which must be free); its uses in the body
 * follow. */
int vta_sched_rename(vta_sched *s, const char *var, const char *name, ovta_error *err) {
  lir_func *f = s->f;
  lir_stmt **slot = vta_sched_find_loop(f, var);
  if (!slot) return OVTA_FAIL(err, OVTA_EINVAL, "rename: no loop '%s' in %s", var ? var : "", f->name);
  if (!name || !*name) return OVTA_FAIL(err, OVTA_EINVAL, "rename %s: empty name", var);
  lir_stmt *L = *slot;
  lir_var *nv = lir_var_new(f, name, L->var->dtype);
  if (!nv) return OVTA_FAIL(err, OVTA_ENOMEM, "rename: out of memory");
  if (strcmp(nv->name, name)) return OVTA_FAIL(err, OVTA_EINVAL, "rename %s: name '%s' is taken", var, name);
  rw r = {.f = f, .nsub = 1, .from = {L->var}, .to = {lir_ref(f, nv)}};
  *slot = lir_for(f, nv, L->min, L->extent, L->for_kind, rw_s(&r, L->body));
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "rename: out of memory") : OVTA_OK;
}

/* Rule: an allocated (not parameter) buffer moves to `scope`, renamed to `name` when given (free);
 * it is remembered like a placed cache, so vthread can give it parts. */
int vta_sched_set_scope(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err) {
  lir_func *f = s->f;
  lir_buf *b = buf ? find_buf(f, buf) : NULL;
  if (!b) return OVTA_FAIL(err, OVTA_EINVAL, "set_scope: no buffer '%s' in %s", buf ? buf : "", f->name);
  if (b->is_param) return OVTA_FAIL(err, OVTA_EINVAL, "set_scope %s: a parameter stays in its scope", buf);
  if ((unsigned)scope >= LIR_SCOPE_COUNT) return OVTA_FAIL(err, OVTA_EINVAL, "set_scope %s: bad scope", buf);
  if (s->ncache == VTA_SCHED_MAX_CACHES) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "set_scope %s: too many caches", buf);
  if (name && strcmp(name, b->name)) {
    if (!*name || find_buf(f, name)) return OVTA_FAIL(err, OVTA_EINVAL, "set_scope %s: name '%s' taken or empty", buf, name);
    const char *nm = lir_strdup(f, name);
    if (!nm) return OVTA_FAIL(err, OVTA_ENOMEM, "set_scope: out of memory");
    b->name = nm;
  }
  b->scope = scope;
  s->cache[s->ncache++] = (struct vta_sched_cache){.cache = b, .orig = NULL, .write = true, .placed = true};
  return OVTA_OK;
}

/* Rule: the allocation of `buf` moves to the top of the function (its shape is constant; an
 * allocation has no initial value, so allocating once instead of per iteration changes nothing). */
int vta_sched_hoist_alloc(vta_sched *s, const char *buf, ovta_error *err) {
  lir_func *f = s->f;
  lir_buf *b = buf ? find_buf(f, buf) : NULL;
  if (!b) return OVTA_FAIL(err, OVTA_EINVAL, "hoist_alloc: no buffer '%s' in %s", buf ? buf : "", f->name);
  if (!(unplace(f, &f->body, b, -1, 0) & 1)) return OVTA_FAIL(err, OVTA_EINVAL, "hoist_alloc %s: not allocated", buf);
  f->body = lir_alloc_stmt(f, b, f->body);
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "hoist_alloc: out of memory") : OVTA_OK;
}

/* ---------------------------------------------------------------- verifier */

typedef struct vctx {
  ranges rg;
  int rc;
  ovta_error *err;
  const lir_func *f;
} vctx;

static void v_access(vctx *c, const lir_buf *b, int n, lir_expr *const *idx) {
  if (c->rc) return;
  for (int d = 0; d < n && d < b->ndim; d++) {
    lir_affine a = lir_affine_of(idx[d]);
    int64_t mn, mx;
    if (!aff_bounds(&a, &c->rg, &mn, &mx)) continue;
    if (mn < 0 || mx >= b->shape[d]) {
      c->rc = OVTA_FAIL(c->err, OVTA_EINVAL, "%s: index %d of %s ranges %lld..%lld, outside 0..%lld", c->f->name, d,
                        b->name, (long long)mn, (long long)mx, (long long)b->shape[d] - 1);
      return;
    }
  }
}

static void v_e(vctx *c, const lir_expr *e) {
  if (!e || c->rc) return;
  if (e->kind == LIR_E_LOAD) v_access(c, e->buf, e->nargs, e->args);
  for (int i = 0; i < e->nargs; i++) v_e(c, e->args[i]);
}

static void v_s(vctx *c, const lir_stmt *s) {
  if (!s || c->rc) return;
  int save = c->rg.n;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) v_s(c, s->stmts[i]);
    break;
  case LIR_S_FOR:
    v_e(c, s->min), v_e(c, s->extent);
    push_range(&c->rg, s);
    v_s(c, s->body);
    break;
  case LIR_S_STORE:
    v_e(c, s->value);
    v_access(c, s->buf, s->nidx, s->idx);
    break;
  case LIR_S_IF: /* guarded: the condition may be what keeps accesses in bounds */
    v_e(c, s->value);
    break;
  case LIR_S_ATTR: case LIR_S_LET: case LIR_S_EVAL:
    v_e(c, s->value);
    v_s(c, s->body);
    break;
  case LIR_S_ALLOC:
    v_s(c, s->body);
    break;
  }
  c->rg.n = save;
}

int vta_sched_verify(const lir_func *f, ovta_error *err) {
  int rc = lir_verify(f, false, err);
  if (rc) return rc;
  vctx c = {.err = err, .f = f};
  v_s(&c, f->body);
  return c.rc;
}

void vta_sched_cpu_scopes(lir_func *f) {
  for (int i = 0; i < f->nbufs; i++)
    if (f->bufs[i]->scope > LIR_SCOPE_LOCAL) f->bufs[i]->scope = LIR_SCOPE_LOCAL;
}

/* ---------------------------------------------------------------- scripts */

static int scope_parse(const char *s) {
  for (int i = 0; i < LIR_SCOPE_COUNT; i++)
    if (!strcmp(s, lir_scope_name((lir_scope)i))) return i;
  return -1;
}

int vta_sched_apply(vta_sched *s, const char *script, FILE *dump, ovta_error *err) {
  size_t len = strlen(script ? script : "");
  char *buf = malloc(len + 1);
  if (!buf) return OVTA_FAIL(err, OVTA_ENOMEM, "sched: out of memory");
  memcpy(buf, script ? script : "", len + 1);
  int rc = OVTA_OK, step = 0;
  for (char *sv = NULL, *cmd = strtok_r(buf, ";", &sv); cmd && !rc; cmd = strtok_r(NULL, ";", &sv)) {
    const char *tok[20];
    int nt = 0;
    char shown[256];
    snprintf(shown, sizeof shown, "%s", cmd);
    for (char *s2 = NULL, *t = strtok_r(cmd, " \t\n", &s2); t && nt < 20; t = strtok_r(NULL, " \t\n", &s2)) tok[nt++] = t;
    if (!nt) continue;
    step++;
    const char *p = tok[0];
    if (!strcmp(p, "split") && (nt == 3 || nt == 4)) {
      vta_split_mode m = VTA_SPLIT_EXACT;
      if (nt == 4) {
        if (!strcmp(tok[3], "guard")) m = VTA_SPLIT_GUARD;
        else if (!strcmp(tok[3], "tail")) m = VTA_SPLIT_TAIL;
        else if (strcmp(tok[3], "exact")) rc = OVTA_FAIL(err, OVTA_EINVAL, "sched: split mode '%s'", tok[3]);
      }
      if (!rc) rc = vta_sched_split(s, tok[1], strtoll(tok[2], NULL, 10), m, err);
    } else if (!strcmp(p, "reorder") && nt >= 2) {
      rc = vta_sched_reorder(s, tok + 1, nt - 1, err);
    } else if ((!strcmp(p, "cache_read") || !strcmp(p, "cache_write")) && nt == 4) {
      int sc = scope_parse(tok[2]);
      if (sc < 0) rc = OVTA_FAIL(err, OVTA_EINVAL, "sched: unknown scope '%s'", tok[2]);
      else if (p[6] == 'r') rc = vta_sched_cache_read(s, tok[1], (lir_scope)sc, tok[3], err);
      else rc = vta_sched_cache_write(s, tok[1], (lir_scope)sc, tok[3], err);
    } else if (!strcmp(p, "compute_at") && nt == 3) {
      rc = vta_sched_compute_at(s, tok[1], tok[2], err);
    } else if (!strcmp(p, "vthread") && nt >= 3) {
      char lv[256];
      const char *vs[8];
      int nv = 0;
      snprintf(lv, sizeof lv, "%s", tok[1]);
      for (char *s3 = NULL, *t = strtok_r(lv, ",", &s3); t && nv < 8; t = strtok_r(NULL, ",", &s3)) vs[nv++] = t;
      rc = vta_sched_vthread_fused(s, vs, nv, (int)strtol(tok[2], NULL, 10), tok + 3, nt - 3, err);
    } else if (!strcmp(p, "fission") && nt == 2) {
      rc = vta_sched_fission(s, tok[1], err);
    } else if (!strcmp(p, "rename") && nt == 3) {
      rc = vta_sched_rename(s, tok[1], tok[2], err);
    } else if (!strcmp(p, "set_scope") && (nt == 3 || nt == 4)) {
      int sc = scope_parse(tok[2]);
      if (sc < 0) rc = OVTA_FAIL(err, OVTA_EINVAL, "sched: unknown scope '%s'", tok[2]);
      else rc = vta_sched_set_scope(s, tok[1], (lir_scope)sc, nt == 4 ? tok[3] : NULL, err);
    } else if (!strcmp(p, "hoist_alloc") && nt == 2) {
      rc = vta_sched_hoist_alloc(s, tok[1], err);
    } else {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "sched: cannot parse '%s'", shown);
    }
    if (!rc) {
      rc = vta_sched_verify(s->f, err);
      if (rc) ovta_error_wrap(err, "after '%s'", shown);
    }
    if (!rc && dump) {
      fprintf(dump, "// after %d: %s\n", step, shown);
      lir_dump(dump, s->f);
    }
  }
  free(buf);
  return rc;
}
