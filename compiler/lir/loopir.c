/* loopir.c: loop IR nodes, builder, queries, verifier and text dump (see lir.h). */
#include "lir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- types */

static const char *const DT_NAMES[LIR_DTYPE_COUNT] = {"void", "bool", "i8",  "u8",  "i16", "u16",
                                                      "i32",  "u32",  "i64", "u64", "f32", "f64", "f16"};
static const int DT_BYTES[LIR_DTYPE_COUNT] = {0, 1, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2};

const char *lir_dtype_name(lir_dtype t) { return (unsigned)t < LIR_DTYPE_COUNT ? DT_NAMES[t] : "?"; }
int lir_dtype_bytes(lir_dtype t) { return (unsigned)t < LIR_DTYPE_COUNT ? DT_BYTES[t] : 0; }
bool lir_dtype_is_float(lir_dtype t) { return t == LIR_F32 || t == LIR_F64 || t == LIR_F16; }
bool lir_dtype_is_int(lir_dtype t) { return t >= LIR_I8 && t <= LIR_U64; }
bool lir_dtype_is_signed(lir_dtype t) {
  return t == LIR_I8 || t == LIR_I16 || t == LIR_I32 || t == LIR_I64 || lir_dtype_is_float(t);
}
lir_dtype lir_dtype_parse(const char *name) {
  for (int i = 1; i < LIR_DTYPE_COUNT; i++)
    if (strcmp(name, DT_NAMES[i]) == 0) return (lir_dtype)i;
  return LIR_VOID;
}

static const char *const SCOPE_NAMES[LIR_SCOPE_COUNT] = {"global", "local", "inp", "wgt",
                                                         "acc",    "out",   "uop"};
const char *lir_scope_name(lir_scope s) { return (unsigned)s < LIR_SCOPE_COUNT ? SCOPE_NAMES[s] : "?"; }

static const char *const FOR_NAMES[] = {"serial", "unrolled", "vectorized", "parallel"};
const char *lir_for_kind_name(lir_for_kind k) { return (unsigned)k < 4 ? FOR_NAMES[k] : "?"; }

/* ---------------------------------------------------------------- arena */

typedef struct lir_chunk {
  struct lir_chunk *next; /* older chunk */
  size_t used;            /* bytes handed out */
  size_t cap;             /* bytes in data */
  _Alignas(16) unsigned char data[];
} lir_chunk;

struct lir_arena {
  lir_chunk *head; /* newest chunk */
  bool oom;        /* an allocation failed */
};

void *lir_alloc(lir_func *f, size_t bytes) {
  lir_arena *a = f->arena;
  bytes = (bytes + 15) & ~(size_t)15;
  if (!a->head || a->head->used + bytes > a->head->cap) {
    size_t cap = bytes > 65536 ? bytes : 65536;
    lir_chunk *c = malloc(sizeof *c + cap);
    if (!c) {
      a->oom = true;
      return NULL;
    }
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += bytes;
  memset(p, 0, bytes);
  return p;
}

bool lir_func_oom(const lir_func *f) { return f->arena->oom; }

const char *lir_strdup(lir_func *f, const char *s) {
  size_t n = strlen(s);
  char *p = lir_alloc(f, n + 1);
  if (!p) return "?";
  memcpy(p, s, n + 1);
  return p;
}

lir_func *lir_func_new(const char *name) {
  lir_func *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->arena = calloc(1, sizeof *f->arena);
  if (!f->arena) {
    free(f);
    return NULL;
  }
  f->name = lir_strdup(f, name);
  return f;
}

void lir_func_free(lir_func *f) {
  if (!f) return;
  lir_chunk *c = f->arena->head;
  while (c) {
    lir_chunk *n = c->next;
    free(c);
    c = n;
  }
  free(f->arena);
  free(f);
}

/* Grow an arena array of pointers to hold n+1 (doubling). */
static void **grow(lir_func *f, void **arr, int n) {
  if (n == 0 || (n & (n - 1)) == 0) { /* n is 0 or a power of two: full */
    int cap = n == 0 ? 8 : n * 2;
    void **na = lir_alloc(f, sizeof(void *) * (size_t)cap);
    if (!na) return NULL;
    if (n) memcpy(na, arr, sizeof(void *) * (size_t)n);
    return na;
  }
  return arr;
}

/* Dummies returned when out of memory, so builders never hand out NULL. */
static lir_expr oom_expr = {.kind = LIR_E_INT, .dtype = LIR_I64};
static lir_stmt oom_stmt = {.kind = LIR_S_SEQ};
static lir_var oom_var = {.name = "oom", .dtype = LIR_I64, .id = -1};
static lir_buf oom_buf = {.name = "oom", .dtype = LIR_F32, .id = -1};

/* ---------------------------------------------------------------- names */

static bool name_taken(lir_func *f, const char *s) {
  for (int i = 0; i < f->nbufs; i++)
    if (strcmp(f->bufs[i]->name, s) == 0) return true;
  for (int i = 0; i < f->nvars; i++)
    if (strcmp(f->vars[i]->name, s) == 0) return true;
  return false;
}

/* Name s's suffix N when s is base_N as "%s_%d" writes it (N >= 1, no leading zero), else 0. */
static long suffix_of(const char *s, const char *base, size_t n) {
  if (strncmp(s, base, n) || s[n] != '_' || s[n + 1] < '1' || s[n + 1] > '9') return 0;
  long v = 0;
  for (const char *p = s + n + 1; *p; p++) {
    if (*p < '0' || *p > '9' || v > 100000000) return 0;
    v = v * 10 + (*p - '0');
  }
  return v;
}

/* The smallest N >= 1 such that base_N names no buffer or variable: one scan of the names (the
 * answer is at most their count + 1), instead of one scan per N tried. */
static int lowest_free_suffix(lir_func *f, const char *base, size_t n) {
  int total = f->nbufs + f->nvars;
  unsigned char *taken = calloc((size_t)total + 2, 1);
  if (!taken) { /* out of memory: the slow search */
    char buf[128];
    for (int i = 1;; i++) {
      snprintf(buf, sizeof buf, "%s_%d", base, i);
      if (!name_taken(f, buf)) return i;
    }
  }
  for (int i = 0; i < total; i++) {
    long v = suffix_of(i < f->nbufs ? f->bufs[i]->name : f->vars[i - f->nbufs]->name, base, n);
    if (v > 0 && v <= total + 1) taken[v] = 1;
  }
  int i = 1;
  while (taken[i]) i++;
  free(taken);
  return i;
}

/* A unique identifier-like name based on want (non-identifier characters become '_'). */
static const char *unique_name(lir_func *f, const char *want) {
  char base[96];
  size_t n = 0;
  for (const char *p = want; *p && n < sizeof base - 1; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    base[n++] = ok ? c : '_';
  }
  base[n] = 0;
  if (n == 0) strcpy(base, "t");
  if (!name_taken(f, base)) return lir_strdup(f, base);
  char buf[128];
  snprintf(buf, sizeof buf, "%s_%d", base, lowest_free_suffix(f, base, n));
  return lir_strdup(f, buf);
}

/* ---------------------------------------------------------------- buffers, vars */

lir_buf *lir_buf_new(lir_func *f, const char *name, lir_dtype t, int ndim, const int64_t *shape,
                     lir_scope scope) {
  lir_buf *b = lir_alloc(f, sizeof *b);
  void **nb = grow(f, (void **)f->bufs, f->nbufs);
  if (!b || !nb || ndim < 0 || ndim > LIR_MAX_DIMS) return &oom_buf;
  b->name = unique_name(f, name);
  b->dtype = t;
  b->ndim = ndim;
  int64_t st = 1;
  for (int i = ndim - 1; i >= 0; i--) {
    b->shape[i] = shape[i];
    b->strides[i] = st;
    st *= shape[i];
  }
  b->scope = scope;
  b->id = f->nbufs;
  f->bufs = (lir_buf **)nb;
  f->bufs[f->nbufs++] = b;
  return b;
}

lir_buf *lir_param(lir_func *f, const char *name, lir_dtype t, int ndim, const int64_t *shape) {
  lir_buf *b = lir_buf_new(f, name, t, ndim, shape, LIR_SCOPE_GLOBAL);
  void **np = grow(f, (void **)f->params, f->nparams);
  if (b == &oom_buf || !np) return &oom_buf;
  b->is_param = true;
  f->params = (lir_buf **)np;
  f->params[f->nparams++] = b;
  return b;
}

int64_t lir_buf_numel(const lir_buf *b) {
  int64_t n = 1;
  for (int i = 0; i < b->ndim; i++) n *= b->shape[i];
  return n;
}

lir_var *lir_var_new(lir_func *f, const char *name, lir_dtype t) {
  lir_var *v = lir_alloc(f, sizeof *v);
  void **nv = grow(f, (void **)f->vars, f->nvars);
  if (!v || !nv) return &oom_var;
  v->name = unique_name(f, name);
  v->dtype = t;
  v->id = f->nvars;
  f->vars = (lir_var **)nv;
  f->vars[f->nvars++] = v;
  return v;
}

/* ---------------------------------------------------------------- expressions */

static lir_expr *mk(lir_func *f, lir_expr_kind k, lir_dtype t, int nargs) {
  lir_expr *e = lir_alloc(f, sizeof *e);
  if (!e) return NULL;
  e->kind = k;
  e->dtype = t;
  e->nargs = nargs;
  if (nargs) {
    e->args = lir_alloc(f, sizeof(lir_expr *) * (size_t)nargs);
    if (!e->args) return NULL;
  }
  return e;
}

lir_expr *lir_int(lir_func *f, lir_dtype t, int64_t v) {
  lir_expr *e = mk(f, LIR_E_INT, t, 0);
  if (!e) return &oom_expr;
  e->ival = v;
  return e;
}
lir_expr *lir_i64(lir_func *f, int64_t v) { return lir_int(f, LIR_I64, v); }
lir_expr *lir_float(lir_func *f, lir_dtype t, double v) {
  lir_expr *e = mk(f, LIR_E_FLOAT, t, 0);
  if (!e) return &oom_expr;
  e->fval = v;
  return e;
}
lir_expr *lir_f32(lir_func *f, double v) { return lir_float(f, LIR_F32, v); }
lir_expr *lir_ref(lir_func *f, lir_var *v) {
  lir_expr *e = mk(f, LIR_E_VAR, v->dtype, 0);
  if (!e) return &oom_expr;
  e->var = v;
  return e;
}
lir_expr *lir_load(lir_func *f, lir_buf *b, lir_expr **idx) {
  lir_expr *e = mk(f, LIR_E_LOAD, b->dtype, b->ndim);
  if (!e) return &oom_expr;
  e->buf = b;
  for (int i = 0; i < b->ndim; i++) e->args[i] = idx[i];
  return e;
}

/* Row-major unflattening of a flat index, for lir_load1/lir_store1. */
static void unflatten(lir_func *f, lir_buf *b, lir_expr *flat, lir_expr **idx) {
  int64_t st = 1;
  for (int i = b->ndim - 1; i >= 0; i--) {
    lir_expr *q = st == 1 ? flat : lir_bin(f, LIR_DIV, flat, lir_i64(f, st));
    idx[i] = i == 0 ? q : lir_bin(f, LIR_MOD, q, lir_i64(f, b->shape[i]));
    st *= b->shape[i];
  }
}
lir_expr *lir_load1(lir_func *f, lir_buf *b, lir_expr *flat) {
  lir_expr *idx[LIR_MAX_DIMS];
  unflatten(f, b, flat, idx);
  return lir_load(f, b, idx);
}

static bool is_cmp(int op) { return op >= LIR_EQ && op <= LIR_GE; }

static bool is_c(const lir_expr *e, int64_t *v);

/* i64 constant folding: both operands constant, or division by 1. */
static bool fold(lir_binop op, lir_expr *a, lir_expr *b, int64_t *r) {
  int64_t x, y;
  bool cb = is_c(b, &y);
  if (cb && y == 1 && (op == LIR_DIV || op == LIR_FLOORDIV) && a->kind == LIR_E_INT && a->dtype == LIR_I64) {
    *r = a->ival;
    return true;
  }
  if (!cb || !is_c(a, &x)) return false;
  switch (op) {
  case LIR_ADD: *r = x + y; return true;
  case LIR_SUB: *r = x - y; return true;
  case LIR_MUL: *r = x * y; return true;
  case LIR_MIN: *r = x < y ? x : y; return true;
  case LIR_MAX: *r = x > y ? x : y; return true;
  case LIR_FLOORDIV:
    if (y == 0) return false;
    *r = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
    return true;
  default: return false;
  }
}

lir_expr *lir_bin(lir_func *f, lir_binop op, lir_expr *a, lir_expr *b) {
  int64_t r;
  if (fold(op, a, b, &r)) return lir_i64(f, r);
  if ((op == LIR_DIV || op == LIR_FLOORDIV) && b->kind == LIR_E_INT && b->dtype == LIR_I64 && b->ival == 1 &&
      a->dtype == LIR_I64)
    return a;
  lir_expr *e = mk(f, LIR_E_BIN, is_cmp(op) ? LIR_BOOL : a->dtype, 2);
  if (!e) return &oom_expr;
  e->op = op;
  e->args[0] = a;
  e->args[1] = b;
  return e;
}
lir_expr *lir_un(lir_func *f, lir_unop op, lir_expr *a) {
  lir_expr *e = mk(f, LIR_E_UN, a->dtype, 1);
  if (!e) return &oom_expr;
  e->op = op;
  e->args[0] = a;
  return e;
}
lir_expr *lir_cast(lir_func *f, lir_dtype t, lir_expr *a) {
  if (a->dtype == t) return a;
  lir_expr *e = mk(f, LIR_E_CAST, t, 1);
  if (!e) return &oom_expr;
  e->args[0] = a;
  return e;
}
lir_expr *lir_select(lir_func *f, lir_expr *c, lir_expr *a, lir_expr *b) {
  lir_expr *e = mk(f, LIR_E_SELECT, a->dtype, 3);
  if (!e) return &oom_expr;
  e->args[0] = c;
  e->args[1] = a;
  e->args[2] = b;
  return e;
}
lir_expr *lir_call(lir_func *f, lir_intrin fn, lir_dtype t, int n, lir_expr **args) {
  lir_expr *e = mk(f, LIR_E_CALL, t, n);
  if (!e) return &oom_expr;
  e->op = fn;
  for (int i = 0; i < n; i++) e->args[i] = args[i];
  return e;
}
lir_expr *lir_call1(lir_func *f, lir_intrin fn, lir_expr *a) { return lir_call(f, fn, a->dtype, 1, &a); }
bool lir_is_runtime_call(const lir_expr *e) {
  return e && e->kind == LIR_E_CALL && e->op == LIR_OPAQUE && e->callee &&
         strncmp(e->callee, LIR_RUNTIME_PREFIX, strlen(LIR_RUNTIME_PREFIX)) == 0;
}

lir_expr *lir_opaque(lir_func *f, const char *callee, lir_dtype t, int n, lir_expr **args) {
  lir_expr *e = lir_call(f, LIR_OPAQUE, t, n, args);
  if (e != &oom_expr) e->callee = lir_strdup(f, callee);
  return e;
}

static bool is_c(const lir_expr *e, int64_t *v) {
  if (e->kind == LIR_E_INT && e->dtype == LIR_I64) {
    *v = e->ival;
    return true;
  }
  return false;
}

lir_expr *lir_add(lir_func *f, lir_expr *a, lir_expr *b) {
  int64_t x, y;
  bool ca = is_c(a, &x), cb = is_c(b, &y);
  if (ca && cb) return lir_i64(f, x + y);
  if (ca && x == 0) return b;
  if (cb && y == 0) return a;
  return lir_bin(f, LIR_ADD, a, b);
}
lir_expr *lir_sub(lir_func *f, lir_expr *a, lir_expr *b) {
  int64_t x, y;
  bool ca = is_c(a, &x), cb = is_c(b, &y);
  if (ca && cb) return lir_i64(f, x - y);
  if (cb && y == 0) return a;
  return lir_bin(f, LIR_SUB, a, b);
}
lir_expr *lir_mul(lir_func *f, lir_expr *a, lir_expr *b) {
  int64_t x, y;
  bool ca = is_c(a, &x), cb = is_c(b, &y);
  if (ca && cb) return lir_i64(f, x * y);
  if ((ca && x == 0) || (cb && y == 0)) return lir_i64(f, 0);
  if (ca && x == 1) return b;
  if (cb && y == 1) return a;
  return lir_bin(f, LIR_MUL, a, b);
}
lir_expr *lir_min(lir_func *f, lir_expr *a, lir_expr *b) { return lir_bin(f, LIR_MIN, a, b); }
lir_expr *lir_max(lir_func *f, lir_expr *a, lir_expr *b) { return lir_bin(f, LIR_MAX, a, b); }
lir_expr *lir_addi(lir_func *f, lir_expr *a, int64_t b) { return lir_add(f, a, lir_i64(f, b)); }
lir_expr *lir_muli(lir_func *f, lir_expr *a, int64_t b) { return lir_mul(f, a, lir_i64(f, b)); }

/* ---------------------------------------------------------------- statements */

static lir_stmt *mks(lir_func *f, lir_stmt_kind k) {
  lir_stmt *s = lir_alloc(f, sizeof *s);
  if (s) s->kind = k;
  return s;
}

lir_stmt *lir_seq(lir_func *f, int n, lir_stmt **ss) {
  lir_stmt *s = mks(f, LIR_S_SEQ);
  if (!s) return &oom_stmt;
  s->stmts = lir_alloc(f, sizeof(lir_stmt *) * (size_t)(n ? n : 1));
  if (!s->stmts) return &oom_stmt;
  s->n = n;
  for (int i = 0; i < n; i++) s->stmts[i] = ss[i];
  return s;
}
lir_stmt *lir_for(lir_func *f, lir_var *v, lir_expr *min, lir_expr *extent, lir_for_kind k,
                  lir_stmt *body) {
  lir_stmt *s = mks(f, LIR_S_FOR);
  if (!s) return &oom_stmt;
  s->var = v;
  s->min = min;
  s->extent = extent;
  s->for_kind = k;
  s->body = body;
  return s;
}
lir_stmt *lir_store(lir_func *f, lir_buf *b, lir_expr **idx, lir_expr *value) {
  lir_stmt *s = mks(f, LIR_S_STORE);
  if (!s) return &oom_stmt;
  s->buf = b;
  s->nidx = b->ndim;
  s->idx = lir_alloc(f, sizeof(lir_expr *) * (size_t)(b->ndim ? b->ndim : 1));
  if (!s->idx) return &oom_stmt;
  for (int i = 0; i < b->ndim; i++) s->idx[i] = idx[i];
  s->value = value;
  return s;
}
lir_stmt *lir_store1(lir_func *f, lir_buf *b, lir_expr *flat, lir_expr *value) {
  lir_expr *idx[LIR_MAX_DIMS];
  unflatten(f, b, flat, idx);
  return lir_store(f, b, idx, value);
}
lir_stmt *lir_let(lir_func *f, lir_var *v, lir_expr *value, lir_stmt *body) {
  lir_stmt *s = mks(f, LIR_S_LET);
  if (!s) return &oom_stmt;
  s->var = v;
  s->value = value;
  s->body = body;
  return s;
}
lir_stmt *lir_if(lir_func *f, lir_expr *cond, lir_stmt *then_s, lir_stmt *else_s) {
  lir_stmt *s = mks(f, LIR_S_IF);
  if (!s) return &oom_stmt;
  s->value = cond;
  s->body = then_s;
  s->else_body = else_s;
  return s;
}
lir_stmt *lir_alloc_stmt(lir_func *f, lir_buf *b, lir_stmt *body) {
  lir_stmt *s = mks(f, LIR_S_ALLOC);
  if (!s) return &oom_stmt;
  s->buf = b;
  s->body = body;
  return s;
}
lir_stmt *lir_attr(lir_func *f, const char *key, lir_expr *value, lir_stmt *body) {
  lir_stmt *s = mks(f, LIR_S_ATTR);
  if (!s) return &oom_stmt;
  s->key = lir_strdup(f, key);
  s->value = value;
  s->body = body;
  return s;
}
lir_stmt *lir_eval(lir_func *f, lir_expr *e) {
  lir_stmt *s = mks(f, LIR_S_EVAL);
  if (!s) return &oom_stmt;
  s->value = e;
  return s;
}

lir_stmt *lir_with_body(lir_func *f, lir_stmt *s, lir_stmt *body, lir_stmt *else_body) {
  if (body == s->body && else_body == s->else_body) return s;
  switch (s->kind) {
  case LIR_S_FOR: return lir_for(f, s->var, s->min, s->extent, s->for_kind, body);
  case LIR_S_LET: return lir_let(f, s->var, s->value, body);
  case LIR_S_IF: return lir_if(f, s->value, body, else_body);
  case LIR_S_ALLOC: return lir_alloc_stmt(f, s->buf, body);
  case LIR_S_ATTR: return lir_attr(f, s->key, s->value, body);
  default: return s;
  }
}

void lir_block_init(lir_block *b, lir_func *f) {
  b->f = f;
  b->n = 0;
  b->cap = 0;
  b->s = NULL;
}
void lir_block_add(lir_block *b, lir_stmt *s) {
  if (b->n == b->cap) {
    int cap = b->cap ? b->cap * 2 : 8;
    lir_stmt **ns = lir_alloc(b->f, sizeof(lir_stmt *) * (size_t)cap);
    if (!ns) return;
    if (b->n) memcpy(ns, b->s, sizeof(lir_stmt *) * (size_t)b->n);
    b->s = ns;
    b->cap = cap;
  }
  b->s[b->n++] = s;
}
lir_stmt *lir_block_stmt(lir_block *b) {
  if (b->n == 1) return b->s[0];
  return lir_seq(b->f, b->n, b->s);
}

void lir_nest_open(lir_func *f, lir_nest *n, int ndim, const int64_t *ext, const char *prefix) {
  n->n = ndim;
  for (int i = 0; i < ndim; i++) {
    char nm[64];
    snprintf(nm, sizeof nm, "%s%d", prefix, i);
    n->vars[i] = lir_var_new(f, nm, LIR_I64);
    n->idx[i] = lir_ref(f, n->vars[i]);
    n->ext[i] = ext[i];
  }
}
lir_stmt *lir_nest_close(lir_func *f, lir_nest *n, lir_stmt *body, lir_for_kind innermost) {
  for (int i = n->n - 1; i >= 0; i--)
    body = lir_for(f, n->vars[i], lir_i64(f, 0), lir_i64(f, n->ext[i]),
                   i == n->n - 1 ? innermost : LIR_FOR_SERIAL, body);
  return body;
}

/* ---------------------------------------------------------------- queries */

bool lir_expr_eq(const lir_expr *a, const lir_expr *b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind || a->dtype != b->dtype || a->nargs != b->nargs) return false;
  switch (a->kind) {
  case LIR_E_INT: return a->ival == b->ival;
  case LIR_E_FLOAT: return a->fval == b->fval;
  case LIR_E_VAR: return a->var == b->var;
  case LIR_E_LOAD:
    if (a->buf != b->buf) return false;
    break;
  case LIR_E_BIN: case LIR_E_UN:
    if (a->op != b->op) return false;
    break;
  case LIR_E_CALL:
    if (a->op != b->op || (a->callee != b->callee && (!a->callee || !b->callee || strcmp(a->callee, b->callee))))
      return false;
    break;
  default:
    break;
  }
  for (int i = 0; i < a->nargs; i++)
    if (!lir_expr_eq(a->args[i], b->args[i])) return false;
  return true;
}

bool lir_uses_var(const lir_expr *e, const lir_var *v) {
  if (!e) return false;
  if (e->kind == LIR_E_VAR) return e->var == v;
  for (int i = 0; i < e->nargs; i++)
    if (lir_uses_var(e->args[i], v)) return true;
  return false;
}

lir_var *lir_var_of(const lir_expr *e) { return e && e->kind == LIR_E_VAR ? e->var : NULL; }

bool lir_loads_stored(const lir_stmt *st, const lir_expr *e) {
  if (!e || e->kind != LIR_E_LOAD || e->buf != st->buf || e->nargs != st->nidx) return false;
  for (int i = 0; i < st->nidx; i++)
    if (!lir_expr_eq(e->args[i], st->idx[i])) return false;
  return true;
}

void lir_affine_add(lir_affine *a, lir_var *v, int64_t k) {
  for (int i = 0; i < a->n; i++)
    if (a->v[i] == v) {
      a->k[i] += k;
      return;
    }
  if (a->n == LIR_AFFINE_TERMS) {
    a->ok = false;
    return;
  }
  a->v[a->n] = v, a->k[a->n++] = k;
}

lir_affine lir_affine_of(const lir_expr *e) {
  lir_affine r = {.ok = true};
  if (!e) return (lir_affine){0};
  switch (e->kind) {
  case LIR_E_INT: r.c = e->ival; return r;
  case LIR_E_VAR: lir_affine_add(&r, e->var, 1); return r;
  case LIR_E_CAST: return lir_dtype_is_int(e->dtype) ? lir_affine_of(e->args[0]) : (lir_affine){0};
  case LIR_E_UN:
    if (e->op != LIR_NEG) return (lir_affine){0};
    r = lir_affine_of(e->args[0]);
    r.c = -r.c;
    for (int i = 0; i < r.n; i++) r.k[i] = -r.k[i];
    return r;
  case LIR_E_BIN: {
    lir_affine a = lir_affine_of(e->args[0]), b = lir_affine_of(e->args[1]);
    if (!a.ok || !b.ok) return (lir_affine){0};
    if (e->op == LIR_ADD || e->op == LIR_SUB) {
      int64_t sg = e->op == LIR_ADD ? 1 : -1;
      a.c += sg * b.c;
      for (int i = 0; i < b.n && a.ok; i++) lir_affine_add(&a, b.v[i], sg * b.k[i]);
      return a;
    }
    if (e->op == LIR_MUL && (a.n == 0 || b.n == 0)) {
      lir_affine *x = a.n ? &a : &b;
      int64_t m = a.n ? b.c : a.c;
      x->c *= m;
      for (int i = 0; i < x->n; i++) x->k[i] *= m;
      return *x;
    }
    return (lir_affine){0};
  }
  default:
    return (lir_affine){0};
  }
}

lir_expr *lir_affine_expr(lir_func *f, const lir_affine *a) {
  lir_expr *r = NULL;
  for (int i = 0; i < a->n; i++) {
    if (!a->k[i]) continue;
    lir_expr *t = lir_muli(f, lir_ref(f, a->v[i]), a->k[i]);
    r = r ? lir_add(f, r, t) : t;
  }
  if (!r) return lir_i64(f, a->c);
  return a->c ? lir_addi(f, r, a->c) : r;
}

int lir_walk_stmt(lir_walk *w, lir_stmt **slot) {
  lir_stmt *s = *slot;
  if (!s) return 0;
  int rc = w->visit(w, slot);
  if (rc || s->kind == LIR_S_STORE || s->kind == LIR_S_EVAL) return rc;
  if (w->depth == LIR_WALK_DEPTH) return OVTA_FAIL(w->err, OVTA_EUNSUPPORTED, "%s: statements nested too deep", w->what);
  w->anc[w->depth] = s, w->slot[w->depth++] = slot;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n && !rc; i++) rc = lir_walk_stmt(w, &s->stmts[i]);
    break;
  case LIR_S_IF:
    rc = lir_walk_stmt(w, &s->body);
    if (!rc) rc = lir_walk_stmt(w, &s->else_body);
    break;
  default: /* FOR, LET, ALLOC, ATTR */
    rc = lir_walk_stmt(w, &s->body);
    break;
  }
  w->depth--;
  return rc;
}

/* ---------------------------------------------------------------- verifier */

typedef struct vctx {
  const lir_func *f; /* function checked */
  bool cpu;          /* CPU backend restrictions */
  ovta_error *err;   /* where errors go */
  char *var_bound;   /* per var: currently in scope */
  char *var_seen;    /* per var: ever bound (each var is bound once) */
  char *buf_live;    /* per buf: currently usable */
} vctx;

static int v_expr(vctx *c, const lir_expr *e);

static int v_index(vctx *c, const lir_buf *b, int n, lir_expr *const *idx, const char *what) {
  const char *fn = c->f->name;
  if (b->id < 0 || b->id >= c->f->nbufs || c->f->bufs[b->id] != b)
    return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: %s of a buffer not of this function", fn, what);
  if (!c->buf_live[b->id])
    return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: %s of buffer %s outside its allocation", fn, what,
                     b->name);
  if (n != b->ndim)
    return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: %s of %s with %d indices, buffer has %d dims", fn,
                     what, b->name, n, b->ndim);
  for (int i = 0; i < n; i++) {
    int rc = v_expr(c, idx[i]);
    if (rc) return rc;
    if (!lir_dtype_is_int(idx[i]->dtype))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: %s of %s: index %d is %s, not an integer", fn,
                       what, b->name, i, lir_dtype_name(idx[i]->dtype));
    if (idx[i]->kind == LIR_E_INT && (idx[i]->ival < 0 || idx[i]->ival >= b->shape[i]))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: %s of %s: index %d = %" PRId64 " out of [0, %" PRId64 ")",
                       fn, what, b->name, i, idx[i]->ival, b->shape[i]);
  }
  if (c->cpu && b->scope != LIR_SCOPE_GLOBAL && b->scope != LIR_SCOPE_LOCAL)
    return OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "%s: buffer %s in scope %s is not CPU memory", fn,
                     b->name, lir_scope_name(b->scope));
  return 0;
}

static int v_expr(vctx *c, const lir_expr *e) {
  const char *fn = c->f->name;
  if (!e) return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: missing expression", fn);
  if ((unsigned)e->dtype >= LIR_DTYPE_COUNT)
    return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: expression with a bad dtype", fn);
  switch (e->kind) {
  case LIR_E_INT:
    if (!lir_dtype_is_int(e->dtype) && e->dtype != LIR_BOOL)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: integer constant of type %s", fn, lir_dtype_name(e->dtype));
    return 0;
  case LIR_E_FLOAT:
    if (!lir_dtype_is_float(e->dtype))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: float constant of type %s", fn, lir_dtype_name(e->dtype));
    return 0;
  case LIR_E_VAR:
    if (e->var->id < 0 || e->var->id >= c->f->nvars || c->f->vars[e->var->id] != e->var)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: variable %s not of this function", fn, e->var->name);
    if (!c->var_bound[e->var->id])
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: variable %s used outside its loop/let", fn, e->var->name);
    return 0;
  case LIR_E_LOAD:
    if (e->dtype != e->buf->dtype)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: load of %s with dtype %s", fn, e->buf->name,
                       lir_dtype_name(e->dtype));
    return v_index(c, e->buf, e->nargs, e->args, "load");
  case LIR_E_BIN: {
    int rc;
    if ((rc = v_expr(c, e->args[0])) || (rc = v_expr(c, e->args[1]))) return rc;
    lir_dtype a = e->args[0]->dtype, b = e->args[1]->dtype;
    if (a != b)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: binary op %d on %s and %s", fn, e->op,
                       lir_dtype_name(a), lir_dtype_name(b));
    bool fl = lir_dtype_is_float(a);
    if (fl && (e->op == LIR_SHL || e->op == LIR_SHR || e->op == LIR_AND || e->op == LIR_OR ||
               e->op == LIR_XOR || e->op == LIR_FLOORDIV || e->op == LIR_FLOORMOD))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: integer op %d on %s", fn, e->op, lir_dtype_name(a));
    if (a == LIR_BOOL && !(e->op == LIR_AND || e->op == LIR_OR || e->op == LIR_XOR ||
                           e->op == LIR_EQ || e->op == LIR_NE))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: op %d on bool", fn, e->op);
    if (e->dtype != (is_cmp(e->op) ? LIR_BOOL : a))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: binary op %d with result %s", fn, e->op,
                       lir_dtype_name(e->dtype));
    return 0;
  }
  case LIR_E_UN: {
    int rc = v_expr(c, e->args[0]);
    if (rc) return rc;
    if (e->op == LIR_NOT && lir_dtype_is_float(e->dtype))
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: not on %s", fn, lir_dtype_name(e->dtype));
    return 0;
  }
  case LIR_E_CAST:
    if (e->dtype == LIR_VOID) return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: cast to void", fn);
    return v_expr(c, e->args[0]);
  case LIR_E_SELECT: {
    int rc;
    for (int i = 0; i < 3; i++)
      if ((rc = v_expr(c, e->args[i]))) return rc;
    if (e->args[0]->dtype != LIR_BOOL)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: select condition is %s, not bool", fn,
                       lir_dtype_name(e->args[0]->dtype));
    if (e->args[1]->dtype != e->args[2]->dtype || e->dtype != e->args[1]->dtype)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: select of %s and %s", fn,
                       lir_dtype_name(e->args[1]->dtype), lir_dtype_name(e->args[2]->dtype));
    return 0;
  }
  case LIR_E_CALL: {
    int rc;
    for (int i = 0; i < e->nargs; i++)
      if ((rc = v_expr(c, e->args[i]))) return rc;
    if (e->op == LIR_OPAQUE) {
      if (c->cpu && lir_is_runtime_call(e)) {
        /* host code calling the JIT runtime: int32 result, integer arguments (passed as i64) */
        if (e->dtype != LIR_I32 || e->nargs > LIR_RUNTIME_MAX_ARGS)
          return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: runtime call %s: needs an i32 result and at most %d arguments",
                           fn, e->callee, LIR_RUNTIME_MAX_ARGS);
        for (int i = 0; i < e->nargs; i++)
          if (!lir_dtype_is_int(e->args[i]->dtype))
            return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: runtime call %s: argument %d is %s, not an integer", fn,
                             e->callee, i, lir_dtype_name(e->args[i]->dtype));
        return 0;
      }
      if (c->cpu)
        return OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "%s: opaque intrinsic %s has no CPU code", fn,
                         e->callee ? e->callee : "?");
      return 0;
    }
    if ((unsigned)e->op >= LIR_INTRIN_COUNT)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: bad intrinsic %d", fn, e->op);
    int want = e->op == LIR_POW ? 2 : e->op == LIR_FMULADD ? 3 : 1;
    if (e->nargs != want)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: intrinsic %d with %d args", fn, e->op, e->nargs);
    bool int_ok = e->op == LIR_ABS;
    for (int i = 0; i < e->nargs; i++)
      if (e->args[i]->dtype != e->dtype || (!lir_dtype_is_float(e->dtype) && !int_ok))
        return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: intrinsic %d on %s", fn, e->op,
                         lir_dtype_name(e->args[i]->dtype));
    return 0;
  }
  }
  return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: bad expression kind %d", fn, e->kind);
}

static int v_bind(vctx *c, lir_var *v) {
  const char *fn = c->f->name;
  if (v->id < 0 || v->id >= c->f->nvars || c->f->vars[v->id] != v)
    return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: variable %s not of this function", fn, v->name);
  if (c->var_seen[v->id])
    return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: variable %s bound twice", fn, v->name);
  c->var_seen[v->id] = c->var_bound[v->id] = 1;
  return 0;
}

static int v_stmt(vctx *c, const lir_stmt *s) {
  const char *fn = c->f->name;
  int rc;
  if (!s) return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: missing statement", fn);
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++)
      if ((rc = v_stmt(c, s->stmts[i]))) return rc;
    return 0;
  case LIR_S_FOR:
    if ((rc = v_expr(c, s->min)) || (rc = v_expr(c, s->extent))) return rc;
    if (s->var->dtype != LIR_I64 || s->min->dtype != LIR_I64 || s->extent->dtype != LIR_I64)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: loop %s: variable, min and extent must be i64", fn,
                       s->var->name);
    if (s->extent->kind == LIR_E_INT && s->extent->ival < 0)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: loop %s: negative extent %" PRId64, fn,
                       s->var->name, s->extent->ival);
    if ((rc = v_bind(c, s->var))) return rc;
    rc = v_stmt(c, s->body);
    c->var_bound[s->var->id] = 0;
    return rc;
  case LIR_S_STORE:
    if ((rc = v_index(c, s->buf, s->nidx, s->idx, "store"))) return rc;
    if ((rc = v_expr(c, s->value))) return rc;
    if (s->value->dtype != s->buf->dtype)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: store of %s into %s of %s", fn,
                       lir_dtype_name(s->value->dtype), s->buf->name, lir_dtype_name(s->buf->dtype));
    return 0;
  case LIR_S_LET:
    if ((rc = v_expr(c, s->value))) return rc;
    if (s->value->dtype != s->var->dtype)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: let %s of type %s bound to %s", fn, s->var->name,
                       lir_dtype_name(s->var->dtype), lir_dtype_name(s->value->dtype));
    if ((rc = v_bind(c, s->var))) return rc;
    rc = v_stmt(c, s->body);
    c->var_bound[s->var->id] = 0;
    return rc;
  case LIR_S_IF:
    if ((rc = v_expr(c, s->value))) return rc;
    if (s->value->dtype != LIR_BOOL)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: if condition is %s, not bool", fn,
                       lir_dtype_name(s->value->dtype));
    if ((rc = v_stmt(c, s->body))) return rc;
    return s->else_body ? v_stmt(c, s->else_body) : 0;
  case LIR_S_ALLOC:
    if (s->buf->id < 0 || s->buf->id >= c->f->nbufs || c->f->bufs[s->buf->id] != s->buf)
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: allocation of a foreign buffer", fn);
    if (s->buf->is_param || c->buf_live[s->buf->id])
      return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: buffer %s allocated twice", fn, s->buf->name);
    c->buf_live[s->buf->id] = 1;
    rc = v_stmt(c, s->body);
    c->buf_live[s->buf->id] = 0;
    return rc;
  case LIR_S_ATTR:
    if (s->value && (rc = v_expr(c, s->value))) return rc;
    return v_stmt(c, s->body);
  case LIR_S_EVAL:
    return v_expr(c, s->value);
  }
  return OVTA_FAIL(c->err, OVTA_EINVAL, "%s: bad statement kind %d", fn, s->kind);
}

int lir_verify(const lir_func *f, bool cpu, ovta_error *err) {
  if (f->arena->oom) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory while building", f->name);
  vctx c = {f, cpu, err, calloc((size_t)f->nvars + 1, 1), calloc((size_t)f->nvars + 1, 1),
            calloc((size_t)f->nbufs + 1, 1)};
  int rc = 0;
  if (!c.var_bound || !c.var_seen || !c.buf_live) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory in the verifier", f->name);
    goto out;
  }
  for (int i = 0; i < f->nparams; i++) {
    lir_buf *b = f->params[i];
    c.buf_live[b->id] = 1;
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d] < 0) {
        rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: buffer %s has negative extent", f->name, b->name);
        goto out;
      }
    if (b->dtype == LIR_VOID || b->dtype == LIR_BOOL) {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: buffer %s of type %s", f->name, b->name, lir_dtype_name(b->dtype));
      goto out;
    }
  }
  if (f->body) rc = v_stmt(&c, f->body);
out:
  free(c.var_bound);
  free(c.var_seen);
  free(c.buf_live);
  return rc;
}

/* ---------------------------------------------------------------- text dump */

static const char *const BIN_SYM[LIR_BINOP_COUNT] = {
    "+", "-", "*", "/", "%", "floordiv", "floormod", "min", "max", "<<", ">>",
    "&", "|", "^", "==", "!=", "<", "<=", ">", ">="};
static const char *const INTRIN_NAMES[LIR_INTRIN_COUNT] = {
    "exp", "log", "tanh", "sqrt", "abs", "floor", "ceil", "round_even", "erf", "pow", "sigmoid",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "fmuladd", "opaque"};

static void d_expr(FILE *o, const lir_expr *e) {
  switch (e->kind) {
  case LIR_E_INT:
    if (e->dtype == LIR_I64) fprintf(o, "%" PRId64, e->ival);
    else fprintf(o, "%" PRId64 "%s", e->ival, lir_dtype_name(e->dtype));
    return;
  case LIR_E_FLOAT:
    fprintf(o, "%.9g%s", e->fval, e->dtype == LIR_F32 ? "f" : e->dtype == LIR_F16 ? "h" : "d");
    return;
  case LIR_E_VAR:
    fputs(e->var->name, o);
    return;
  case LIR_E_LOAD:
    fprintf(o, "%s[", e->buf->name);
    for (int i = 0; i < e->nargs; i++) {
      if (i) fputs(", ", o);
      d_expr(o, e->args[i]);
    }
    fputc(']', o);
    return;
  case LIR_E_BIN:
    if (e->op == LIR_MIN || e->op == LIR_MAX || e->op == LIR_FLOORDIV || e->op == LIR_FLOORMOD) {
      fprintf(o, "%s(", BIN_SYM[e->op]);
      d_expr(o, e->args[0]);
      fputs(", ", o);
      d_expr(o, e->args[1]);
      fputc(')', o);
    } else {
      fputc('(', o);
      d_expr(o, e->args[0]);
      fprintf(o, " %s ", BIN_SYM[e->op]);
      d_expr(o, e->args[1]);
      fputc(')', o);
    }
    return;
  case LIR_E_UN:
    fputs(e->op == LIR_NEG ? "-" : "!", o);
    d_expr(o, e->args[0]);
    return;
  case LIR_E_CAST:
    fprintf(o, "%s(", lir_dtype_name(e->dtype));
    d_expr(o, e->args[0]);
    fputc(')', o);
    return;
  case LIR_E_SELECT:
    fputs("select(", o);
    for (int i = 0; i < 3; i++) {
      if (i) fputs(", ", o);
      d_expr(o, e->args[i]);
    }
    fputc(')', o);
    return;
  case LIR_E_CALL:
    if (e->op == LIR_OPAQUE) fprintf(o, "@%s:%s(", e->callee ? e->callee : "?", lir_dtype_name(e->dtype));
    else fprintf(o, "%s(", (unsigned)e->op < LIR_INTRIN_COUNT ? INTRIN_NAMES[e->op] : "?");
    for (int i = 0; i < e->nargs; i++) {
      if (i) fputs(", ", o);
      d_expr(o, e->args[i]);
    }
    fputc(')', o);
    return;
  }
}

static void d_buf(FILE *o, const lir_buf *b) {
  fprintf(o, "%s: %s[", b->name, lir_dtype_name(b->dtype));
  for (int i = 0; i < b->ndim; i++) fprintf(o, "%s%" PRId64, i ? ", " : "", b->shape[i]);
  fprintf(o, "] %s", lir_scope_name(b->scope));
}

static void ind(FILE *o, int d) {
  for (int i = 0; i < d; i++) fputs("  ", o);
}

static void d_stmt(FILE *o, const lir_stmt *s, int d) {
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) d_stmt(o, s->stmts[i], d);
    return;
  case LIR_S_FOR:
    ind(o, d);
    fprintf(o, "for %s in ", s->var->name);
    d_expr(o, s->min);
    fputs("..+", o);
    d_expr(o, s->extent);
    fprintf(o, " %s {\n", lir_for_kind_name(s->for_kind));
    d_stmt(o, s->body, d + 1);
    ind(o, d);
    fputs("}\n", o);
    return;
  case LIR_S_STORE:
    ind(o, d);
    fprintf(o, "%s[", s->buf->name);
    for (int i = 0; i < s->nidx; i++) {
      if (i) fputs(", ", o);
      d_expr(o, s->idx[i]);
    }
    fputs("] = ", o);
    d_expr(o, s->value);
    fputc('\n', o);
    return;
  case LIR_S_LET:
    ind(o, d);
    fprintf(o, "let %s: %s = ", s->var->name, lir_dtype_name(s->var->dtype));
    d_expr(o, s->value);
    fputc('\n', o);
    d_stmt(o, s->body, d);
    return;
  case LIR_S_IF:
    ind(o, d);
    fputs("if ", o);
    d_expr(o, s->value);
    fputs(" {\n", o);
    d_stmt(o, s->body, d + 1);
    if (s->else_body) {
      ind(o, d);
      fputs("} else {\n", o);
      d_stmt(o, s->else_body, d + 1);
    }
    ind(o, d);
    fputs("}\n", o);
    return;
  case LIR_S_ALLOC:
    ind(o, d);
    fputs("alloc ", o);
    d_buf(o, s->buf);
    fputc('\n', o);
    d_stmt(o, s->body, d);
    return;
  case LIR_S_ATTR:
    ind(o, d);
    fprintf(o, "attr %s", s->key);
    if (s->value) {
      fputs(" = ", o);
      d_expr(o, s->value);
    }
    fputs(" {\n", o);
    d_stmt(o, s->body, d + 1);
    ind(o, d);
    fputs("}\n", o);
    return;
  case LIR_S_EVAL:
    ind(o, d);
    fputs("eval ", o);
    d_expr(o, s->value);
    fputc('\n', o);
    return;
  }
}

void lir_dump(FILE *o, const lir_func *f) {
  fprintf(o, "func %s(", f->name);
  for (int i = 0; i < f->nparams; i++) {
    if (i) fputs(", ", o);
    d_buf(o, f->params[i]);
  }
  fputs(") {\n", o);
  if (f->body) d_stmt(o, f->body, 1);
  fputs("}\n", o);
}

char *lir_dump_str(const lir_func *f) {
  char *s = NULL;
  size_t n = 0;
  FILE *o = open_memstream(&s, &n);
  if (!o) return NULL;
  lir_dump(o, f);
  fclose(o);
  return s;
}
