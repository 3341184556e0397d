/* fold_uops.c: the fold-uops pass (compiler/accel/README.md "Passes", 6): the IR after inject-alu, with SRAM
 * buffers and tensor intrinsics inside loop nests, becomes micro-op kernels over flat SRAM element
 * indices, the loops folded by fold_loops. */
#include "accel_internal.h"

#include <string.h>

/* ---------------------------------------------------------------- loop folding */

/* An affine loop of a tensorized statement: extent and the factors of its variable on the flat
 * SRAM element indices dst, src, wgt; `id` is the loop's position in the nest (a merged loop keeps
 * its outer loop's name and id). */
typedef struct aloop {
  const char *name;
  int64_t ext, f[3];
  int id;
} aloop;

#define FOLD_MAX_LOOPS 10

/* The folded kernel: nh host loops (outer first; one kernel per host iteration), nl <= 2
 * hardware loop levels (outer first), nu micro-op loops (outer first). */
typedef struct fold {
  int nh, nl, nu;
  aloop h[8], l[2], u[8];
} fold;

/* Fold n <= FOLD_MAX_LOOPS loops (outer first): loops of extent 1 vanish (unless keep1); adjacent loops with
 * proportional factors merge (outer factors = inner extent x inner factors, merged extent <=
 * 16383); the two longest (extent <= 16383; ties: the inner one) become the hardware levels; the
 * innermost others become micro-ops while their product stays within `budget`; the rest stay host
 * loops. */
static void fold_loops(const aloop *in, int n, int64_t budget, bool keep1, fold *fo) {
  aloop L[FOLD_MAX_LOOPS];
  int m = 0;
  for (int i = 0; i < n && i < FOLD_MAX_LOOPS; i++)
    if (keep1 || in[i].ext > 1) L[m++] = in[i];
  /* merge j into i (i outer) when factors of i = ext(j) * factors of j */
  for (int i = 0; i + 1 < m;) {
    aloop *a = &L[i], *b = &L[i + 1];
    bool ok = a->ext * b->ext <= 16383;
    for (int k = 0; k < 3; k++) ok = ok && a->f[k] == b->ext * b->f[k];
    if (ok) {
      b->ext *= a->ext;
      b->name = a->name;
      b->id = a->id;
      memmove(&L[i], &L[i + 1], sizeof(aloop) * (size_t)(m - i - 1));
      m--;
    } else {
      i++;
    }
  }
  /* the two longest loops (ties: the inner one) become the hardware levels */
  int pick[2] = {-1, -1};
  for (int t = 0; t < 2; t++)
    for (int i = m - 1; i >= 0; i--)
      if (i != pick[0] && L[i].ext <= 16383 && (pick[t] < 0 || L[i].ext > L[pick[t]].ext)) pick[t] = i;
  fo->nl = 0;
  if (pick[0] >= 0 && pick[1] >= 0 && pick[1] < pick[0]) {
    int t = pick[0];
    pick[0] = pick[1], pick[1] = t;
  }
  for (int t = 0; t < 2; t++)
    if (pick[t] >= 0) fo->l[fo->nl++] = L[pick[t]];
  aloop rest[FOLD_MAX_LOOPS];
  int nr = 0;
  for (int i = 0; i < m; i++)
    if (i != pick[0] && i != pick[1]) rest[nr++] = L[i];
  int64_t prod = 1;
  int cut = nr;
  while (cut > 0 && prod * rest[cut - 1].ext <= budget) prod *= rest[--cut].ext;
  fo->nh = cut, fo->nu = nr - cut;
  for (int i = 0; i < cut; i++) fo->h[i] = rest[i];
  for (int i = cut; i < nr; i++) fo->u[i - cut] = rest[i];
}

/* ---------------------------------------------------------------- the pass */

/* Kernel kinds (key bits 28..31; the emitter's K_*): the whole ACC tile without a tensor operand,
 * a GEMM, an ALU statement with a tensor operand (the bias copy), an ACC region offset by an outer
 * loop (a chunk of the last tile's requantization), a GEMM reset; with the plan's as_written, every
 * nest (bits 0..27: its number); an ALU statement whose tensor operand is in the per-channel shifts
 * (the second half of the bias buffer, shared or per-tile: its own micro-ops beside the bias copy's). */
enum { KIND_TILE = 1, KIND_GEMM = 2, KIND_SRC = 3, KIND_CHUNK = 4, KIND_RESET = 5, KIND_NEST = 6, KIND_SRC_SHIFTS = 7,
       KIND_GEMM_RES = 8, /* a GEMM reading an INP buffer after the first of its part: a fused add's identity GEMM */
       KIND_SRC_TILE = 9 /* an ALU tensor operand of the destination's shape: a fused add's r region */ };

/* Where an SRAM buffer lives: parted buffers [vt, .., B, BLOCK] at `off` in each part of `part`
 * elements (index 0 = the part); a buffer without a part dimension at `off` (the shared bias). */
typedef struct sram {
  lir_buf *b;
  bool parted;
  int64_t part, off;
} sram;

typedef struct fctx {
  lir_func *f;
  const vta_plan *p;
  uint64_t uid;
  ovta_error *err;
  int rc;
  int ns, cap;
  sram *s;   /* the SRAM buffers laid out (arena) */
  int nests; /* kernels made (as_written: their keys) */
  struct seen_kernel *seen; /* as_written with two threads: the kernels made, to share equal ones (arena) */
  int nseen, capseen;
  const lir_stmt *encl[32]; /* the loops enclosing the statement being rewritten (outer first) */
  int nencl;
} fctx;

/* A kernel made (kernel_emit), by what makes it: the folded loops, the operands' base indices, the
 * pushes; and the nest number its key took. */
typedef struct seen_kernel {
  fold fo;          /* its loops: hardware levels and micro-op loops with their factors */
  lir_expr *b[3];   /* the flat base index of its dst, src and wgt operands */
  lir_stmt *pushes; /* its GEMM / ALU pushes */
  int64_t nest;     /* the nest number in its key */
} seen_kernel;

#define F (c->f)

static const sram *sram_of(const fctx *c, const lir_buf *b) {
  for (int i = 0; i < c->ns; i++)
    if (c->s[i].b == b) return &c->s[i];
  return NULL;
}

/* Elements of an SRAM buffer (in one part when parted). */
static int64_t sram_elems(const sram *r) {
  const lir_buf *b = r->b;
  int64_t n = 1;
  for (int d = r->parted ? 1 : 0; d < b->ndim - 2; d++) n *= b->shape[d];
  return n;
}

static bool uses_sram(const fctx *c, const lir_expr *e) {
  if (e->kind == LIR_E_LOAD && sram_of(c, e->buf)) return true;
  for (int i = 0; i < e->nargs; i++)
    if (uses_sram(c, e->args[i])) return true;
  return false;
}

/* The SRAM layout from the allocations (in order): per scope, the parted buffers one after the
 * other in each part (ACC: the tile, then a per-tile bias), an ACC buffer [blocks, B, BLOCK] without
 * a part dimension at plan.bias_base; a buffer's space is reserved while its allocation's body runs
 * (sibling allocations, e.g. the ALU operators' tiles, reuse it). Refuses a buffer that does not fit
 * its part. */
static int layout_s(fctx *c, const lir_stmt *s, int64_t used[LIR_SCOPE_COUNT]) {
  if (!s || c->rc) return c->rc;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) layout_s(c, s->stmts[i], used);
    return c->rc;
  case LIR_S_IF:
    layout_s(c, s->body, used);
    return layout_s(c, s->else_body, used);
  case LIR_S_ALLOC: {
    lir_buf *b = s->buf;
    if (b->scope == LIR_SCOPE_INP || b->scope == LIR_SCOPE_WGT || b->scope == LIR_SCOPE_ACC) {
      const vta_plan *p = c->p;
      if (c->ns == c->cap) {
        int ncap = c->cap ? 2 * c->cap : 16;
        sram *n = lir_alloc(F, sizeof *n * (size_t)ncap);
        if (!n) return c->rc = OVTA_FAIL(c->err, OVTA_ENOMEM, "fold-uops: out of memory");
        if (c->ns) memcpy(n, c->s, sizeof *n * (size_t)c->ns);
        c->s = n, c->cap = ncap;
      }
      if (b->ndim < 3)
        return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED,
                                 "fold-uops: SRAM buffer %s has %d dimensions (want [.., rows, columns] of the element)",
                                 b->name, b->ndim);
      sram *r = &c->s[c->ns++];
      r->b = b;
      int64_t part = b->scope == LIR_SCOPE_INP ? p->inp_part : b->scope == LIR_SCOPE_WGT ? p->wgt_part : p->acc_part;
      int64_t elems = 1;
      if (b->scope == LIR_SCOPE_ACC && b->ndim == 3) { /* no part dimension: the shared region */
        elems = b->shape[0];
        if (p->bias_base < 0 || p->bias_base + elems > p->acc_part * p->vt)
          return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED,
                                   "fold-uops: ACC buffer %s without a part dimension but no shared ACC region in the plan",
                                   b->name);
        r->parted = false, r->part = 0, r->off = p->bias_base;
      } else {
        for (int d = 1; d < b->ndim - 2; d++) elems *= b->shape[d];
        if (b->shape[0] != p->vt || used[b->scope] + elems > part)
          return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED,
                                   "fold-uops: SRAM buffer %s (%lld parts of %lld elements) does not fit %d parts of %lld",
                                   b->name, (long long)b->shape[0], (long long)elems, p->vt, (long long)part);
        r->parted = true, r->part = part, r->off = used[b->scope];
        int64_t before = used[b->scope];
        used[b->scope] += elems;
        layout_s(c, s->body, used);
        used[b->scope] = before;
        return c->rc;
      }
    }
    return layout_s(c, s->body, used);
  }
  case LIR_S_FOR: case LIR_S_LET: case LIR_S_ATTR:
    return layout_s(c, s->body, used);
  default:
    return c->rc;
  }
}

/* A reference to an SRAM buffer as a flat element index: part base (lead * part + offset +
 * constant), the factors of the nest's loop variables, and the other variables' terms (outer
 * loops: a chunk, an output-channel tile). */
typedef struct flatref {
  const sram *s;
  lir_expr *lead;    /* the part index (NULL: no part dimension) */
  int64_t c;         /* constant offset within the part (with the buffer's offset) */
  int64_t k[FOLD_MAX_LOOPS]; /* factor of nest loop i */
  int n;             /* other variables */
  lir_var *v[LIR_AFFINE_TERMS];
  int64_t vk[LIR_AFFINE_TERMS];
} flatref;

/* Flatten ref (a load of an SRAM buffer) over the nest loops `loops`; what names the statement in
 * errors. Refuses indices not affine in the loops, a part index that depends on them, and an
 * index into the element (the last two dimensions must be 0: intrinsics work on whole elements). */
static int flatten(fctx *c, const lir_expr *ref, lir_stmt *const *loops, int nl, const char *what, flatref *r) {
  memset(r, 0, sizeof *r);
  if (ref->kind != LIR_E_LOAD || !(r->s = sram_of(c, ref->buf)))
    return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: operand is not an SRAM buffer reference", what);
  const lir_buf *b = ref->buf;
  int d0 = 0;
  if (r->s->parted) {
    r->lead = ref->args[0], d0 = 1;
    for (int i = 0; i < nl; i++)
      if (lir_uses_var(r->lead, loops[i]->var))
        return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: the part index of %s depends on loop %s",
                                 what, b->name, loops[i]->var->name);
  }
  r->c = r->s->off;
  int64_t stride[LIR_MAX_DIMS];
  stride[b->ndim - 1] = 1;
  for (int d = b->ndim - 2; d >= 0; d--) stride[d] = d >= b->ndim - 3 ? 1 : stride[d + 1] * b->shape[d + 1];
  for (int d = d0; d < b->ndim; d++) {
    lir_affine a = lir_affine_of(ref->args[d]);
    if (!a.ok)
      return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: index %d of %s is not affine in the loops",
                               what, d, b->name);
    if (d >= b->ndim - 2) {
      if (a.n || a.c)
        return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED,
                                 "fold-uops: %s: index %d of %s addresses inside the element (want 0)", what, d, b->name);
      continue;
    }
    r->c += a.c * stride[d];
    for (int t = 0; t < a.n; t++) {
      int i = 0;
      while (i < nl && loops[i]->var != a.v[t]) i++;
      if (i < nl) {
        r->k[i] += a.k[t] * stride[d];
        continue;
      }
      int j = 0;
      while (j < r->n && r->v[j] != a.v[t]) j++;
      if (j == r->n) {
        if (r->n == LIR_AFFINE_TERMS) return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: too many terms", what);
        r->v[r->n] = a.v[t], r->vk[r->n++] = 0;
      }
      r->vk[j] += a.k[t] * stride[d];
    }
  }
  return OVTA_OK;
}

/* The flat index without the nest loops: part base, constant, then the other variables' terms. */
static lir_expr *flat_base(fctx *c, const flatref *r) {
  lir_expr *e = r->lead ? lir_add(F, lir_muli(F, r->lead, r->s->part), lir_i64(F, r->c)) : lir_i64(F, r->c);
  for (int j = 0; j < r->n; j++) e = lir_add(F, e, lir_muli(F, lir_ref(F, r->v[j]), r->vk[j]));
  return e;
}

static lir_stmt *call(fctx *c, const char *name, int n, lir_expr **args) {
  return lir_eval(F, lir_opaque(F, name, LIR_I32, n, args));
}

static bool is_call(const lir_stmt *s, const char *name) {
  return s->kind == LIR_S_EVAL && s->value->kind == LIR_E_CALL && s->value->op == LIR_OPAQUE &&
         !strcmp(s->value->callee, name);
}

static int alu_opcode(const lir_stmt *s) {
  for (int i = 0; i < OVTA_ALU_COUNT; i++)
    if (is_call(s, vta_alu_intrin[i])) return i;
  return -1;
}

static bool is_compute(const lir_stmt *s) {
  return is_call(s, "ovta.gemm") || is_call(s, "ovta.gemm_reset") || alu_opcode(s) >= 0;
}

static bool is_compute_body(const lir_stmt *s) {
  if (s->kind != LIR_S_SEQ) return is_compute(s);
  for (int i = 0; i < s->n; i++)
    if (!is_compute(s->stmts[i])) return false;
  return s->n > 0;
}

static bool is_dma(const lir_stmt *s) { return is_call(s, "ovta.dma_load") || is_call(s, "ovta.dma_store"); }

/* The loops of a nest: constant extents from 0. */
static int nest_loops(fctx *c, lir_stmt *const *loops, int nl, const char *what, aloop *al) {
  for (int i = 0; i < nl; i++) {
    const lir_stmt *l = loops[i];
    if (l->min->kind != LIR_E_INT || l->min->ival != 0 || l->extent->kind != LIR_E_INT || l->extent->ival < 1)
      return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED,
                               "fold-uops: %s: loop %s does not run from 0 over a constant extent", what, l->var->name);
    al[i] = (aloop){.name = l->var->name, .ext = l->extent->ival, .id = i};
  }
  return OVTA_OK;
}

/* The operands of a tensor-intrinsic nest, flattened over its loops: r[0] the ACC destination,
 * r[1] the INP operand (GEMM) or the ALU tensor operand, r[2] the WGT operand (GEMM); has[k] when
 * present. pushes: the GEMM / ALU instructions the kernel issues. */
typedef struct kops {
  const char *what;    /* "@intrinsic in loop L" (errors) */
  lir_stmt *const *loops;
  int nl;
  bool gemm, reset;    /* a GEMM (reset: @ovta.gemm_reset, the ACC operand only) */
  flatref r[3];
  bool has[3];
  const lir_expr *src; /* the ALU tensor operand (NULL: immediates only) */
  lir_block pushes;
} kops;

static int refuse_k(fctx *c, const kops *k, const char *why) {
  return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: %s", k->what, why);
}

/* One @ovta.gemm(acc, inp, wgt) / @ovta.gemm_reset(acc): parted ACC, INP, WGT operands, not
 * offset by outer loops, INP and WGT in the same part. */
static int gemm_operands(fctx *c, const lir_expr *g, int nst, kops *k) {
  int na = k->reset ? 1 : 3;
  if (nst != 1 || g->nargs != na)
    return refuse_k(c, k, k->reset ? "want one @ovta.gemm_reset(acc) in the nest" : "want one @ovta.gemm(acc, inp, wgt) in the nest");
  static const lir_scope want[3] = {LIR_SCOPE_ACC, LIR_SCOPE_INP, LIR_SCOPE_WGT};
  for (int i = 0; i < na; i++) {
    flatref *r = &k->r[i];
    if (flatten(c, g->args[i], k->loops, k->nl, k->what, r)) return c->rc;
    if (r->s->b->scope != want[i] || !r->lead)
      return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: operand %d (%s) is not a parted %s buffer",
                               k->what, i, r->s->b->name, lir_scope_name(want[i]));
    for (int j = 0; j < r->n; j++)
      if (r->vk[j])
        return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: operand %s is offset by outer loop %s",
                                 k->what, r->s->b->name, r->v[j]->name);
    k->has[i] = true;
  }
  if (!k->reset && !lir_expr_eq(k->r[1].lead, k->r[2].lead)) return refuse_k(c, k, "INP and WGT parts differ");
  lir_expr *z = lir_i64(F, k->reset);
  lir_block_add(&k->pushes, call(c, "ovta.gemm", 1, &z));
  return OVTA_OK;
}

/* A sequence of @ovta.alu_OP(acc, imm | src) on one ACC reference, the tensor operands all the
 * same: one ALU push each (CLP's bounds as its immediate (hi << 8) | (lo & 0xff); RQ's
 * `alu_rq(acc, sh, round, lo, hi)` as vta_rq_imm's). */
static int alu_operands(fctx *c, lir_stmt *const *st, int nst, kops *k) {
  const lir_expr *first = st[0]->value;
  for (int i = 0; i < nst; i++) {
    const lir_expr *e = st[i]->value;
    int op = alu_opcode(st[i]);
    if (op < 0 || e->nargs != (op == OVTA_ALU_CLP ? 3 : op == OVTA_ALU_RQ ? 5 : 2) ||
        !lir_expr_eq(e->args[0], first->args[0]))
      return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED,
                               "fold-uops: %s: statement %d of the nest is not an ALU intrinsic on the same ACC reference",
                               k->what, i);
    lir_expr *a[3];
    if (e->args[1]->kind == LIR_E_LOAD) {
      if (op == OVTA_ALU_CLP || op == OVTA_ALU_RQ || (k->src && !lir_expr_eq(k->src, e->args[1])))
        return refuse_k(c, k, "different tensor operands in one nest");
      k->src = e->args[1];
      a[0] = lir_i64(F, op), a[1] = lir_i64(F, 0), a[2] = lir_i64(F, 0);
    } else {
      for (int j = 1; j < e->nargs; j++)
        if (e->args[j]->kind != LIR_E_INT) return refuse_k(c, k, "ALU immediate is not a constant");
      int64_t imm = e->args[1]->ival;
      if (op == OVTA_ALU_CLP) { /* (hi << 8) | (lo & 0xff) as a signed 16-bit immediate */
        int32_t v = (int32_t)(((uint32_t)e->args[2]->ival & 0xffu) << 8 | ((uint32_t)e->args[1]->ival & 0xffu));
        imm = v >= 32768 ? v - 65536 : v;
      }
      int32_t rq;
      if (op == OVTA_ALU_RQ) {
        if (!vta_rq_imm((int)imm, e->args[2]->ival != 0, e->args[3]->ival, e->args[4]->ival, &rq))
          return refuse_k(c, k, "RQ's shift or clip has no immediate");
        imm = rq;
      }
      a[0] = lir_i64(F, op), a[1] = lir_i64(F, 1), a[2] = lir_i64(F, imm);
    }
    lir_block_add(&k->pushes, call(c, "ovta.alu", 3, a));
  }
  if (flatten(c, first->args[0], k->loops, k->nl, k->what, &k->r[0])) return c->rc;
  if (k->src && flatten(c, k->src, k->loops, k->nl, k->what, &k->r[1])) return c->rc;
  k->has[1] = k->src != NULL;
  if (k->r[0].s->b->scope != LIR_SCOPE_ACC || !k->r[0].lead || (k->src && k->r[1].s->b->scope != LIR_SCOPE_ACC))
    return refuse_k(c, k, "operands are not ACC buffers (the destination parted)");
  /* (as written: the max pool's separable ring reads the tile before's part, alu.c sep_skip; the
   * micro-ops take each operand's own part) */
  if (k->src && k->r[1].lead && !c->p->as_written && !lir_expr_eq(k->r[1].lead, k->r[0].lead))
    return refuse_k(c, k, "source and destination in different ACC parts");
  return OVTA_OK;
}

/* Is v the variable of an enclosing loop with one iteration (the output-channel tile loop of a
 * tile spanning every channel block: the shared bias's offset beside a chunk's)? */
static bool single_iter(const fctx *c, const lir_var *v) {
  for (int i = 0; i < c->nencl; i++)
    if (c->encl[i]->var == v)
      return c->encl[i]->extent->kind == LIR_E_INT && c->encl[i]->extent->ival == 1 && c->encl[i]->min->kind == LIR_E_INT;
  return false;
}

/* The kernel key's kind and parts (bits 28..31, 20..27): a GEMM, 2 x ACC part + INP part; an ALU
 * kernel, the ACC part + vt x the one outer variable the operands are offset by (a chunk, the
 * output-channel tile of a shared bias), kind by the tensor operand and the offset. NULL: refused. */
static lir_expr *key_parts(fctx *c, const kops *k, int *kind) {
  if (k->reset) {
    *kind = KIND_RESET;
    return k->r[0].lead;
  }
  if (k->gemm) {
    *kind = k->r[1].s->off ? KIND_GEMM_RES : KIND_GEMM;
    return lir_add(F, lir_muli(F, k->r[0].lead, 2), k->r[1].lead); /* vt <= 2 */
  }
  lir_var *outer = NULL;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < (k->has[i] ? k->r[i].n : 0); j++) {
      if (!k->r[i].vk[j]) continue;
      if (outer && outer != k->r[i].v[j] && single_iter(c, outer)) outer = NULL; /* always 0: names no kernel */
      if (outer && outer != k->r[i].v[j] && single_iter(c, k->r[i].v[j])) continue;
      if (outer && outer != k->r[i].v[j]) {
        c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: operands offset by outer loops %s and %s", k->what,
                          outer->name, k->r[i].v[j]->name);
        return NULL;
      }
      outer = k->r[i].v[j];
    }
  *kind = k->src ? KIND_SRC : outer ? KIND_CHUNK : KIND_TILE;
  const lir_buf *db = k->r[0].s->b, *sb = k->has[1] ? k->r[1].s->b : NULL;
  if (k->src && sb && sb != db && sb->ndim == db->ndim && !memcmp(sb->shape, db->shape, sizeof(int64_t) * (size_t)db->ndim))
    *kind = KIND_SRC_TILE;
  const vta_plan *p = c->p;
  if (k->src && p->op.shifts && k->has[1] && k->r[1].c - k->r[1].s->off >= sram_elems(k->r[1].s) / 2)
    *kind = KIND_SRC_SHIFTS; /* the bias buffer's second half: the shifts */
  lir_expr *parts = k->r[0].lead;
  return outer ? lir_add(F, parts, lir_muli(F, lir_ref(F, outer), c->p->vt)) : parts;
}

static bool stmt_eq(const lir_stmt *a, const lir_stmt *b) {
  int na = a->kind == LIR_S_SEQ ? a->n : 1, nb = b->kind == LIR_S_SEQ ? b->n : 1;
  if (na != nb) return false;
  for (int i = 0; i < na; i++) {
    const lir_stmt *x = a->kind == LIR_S_SEQ ? a->stmts[i] : a, *y = b->kind == LIR_S_SEQ ? b->stmts[i] : b;
    if (x->kind != LIR_S_EVAL || y->kind != LIR_S_EVAL || !lir_expr_eq(x->value, y->value)) return false;
  }
  return true;
}

/* The nest number of an equal kernel made before (as_written with two threads: the max pool's row
 * tiles repeat the same micro-ops in each part), else a new one, remembered; -1: out of memory. */
static int64_t nest_number(fctx *c, const fold *fo, lir_expr *const *b, lir_stmt *pushes) {
  if (c->p->vt < 2) return c->nests++;
  for (int i = 0; i < c->nseen; i++) {
    const seen_kernel *k = &c->seen[i];
    if (k->fo.nl != fo->nl || k->fo.nu != fo->nu || !stmt_eq(k->pushes, pushes)) continue;
    bool eq = true;
    for (int j = 0; j < fo->nl && eq; j++)
      eq = k->fo.l[j].ext == fo->l[j].ext && !memcmp(k->fo.l[j].f, fo->l[j].f, sizeof fo->l[j].f);
    for (int j = 0; j < fo->nu && eq; j++)
      eq = k->fo.u[j].ext == fo->u[j].ext && !memcmp(k->fo.u[j].f, fo->u[j].f, sizeof fo->u[j].f);
    for (int j = 0; j < 3 && eq; j++) eq = lir_expr_eq(k->b[j], b[j]);
    if (eq) return k->nest;
  }
  if (c->nseen == c->capseen) {
    int ncap = c->capseen ? 2 * c->capseen : 64;
    seen_kernel *n = lir_alloc(F, sizeof *n * (size_t)ncap);
    if (!n) return -1;
    if (c->nseen) memcpy(n, c->seen, sizeof *n * (size_t)c->nseen);
    c->seen = n, c->capseen = ncap;
  }
  c->seen[c->nseen++] = (seen_kernel){.fo = *fo, .b = {b[0], b[1], b[2]}, .pushes = pushes, .nest = c->nests};
  return c->nests++;
}

/* The kernel of a folded nest: host loops around `attr uop_kernel = KEY { hardware levels, micro-op
 * loops around one uop }`, the pushes, kernel_end. parts NULL: the key of the nest's number. */
static lir_stmt *kernel_emit(fctx *c, kops *k, const fold *fo, int kind, lir_expr *parts) {
  lir_stmt *const *loops = k->loops;
  lir_expr *b[3];
  for (int i = 0; i < 3; i++) b[i] = k->has[i] ? flat_base(c, &k->r[i]) : lir_i64(F, 0);
  lir_expr *hidx = lir_i64(F, 0);
  int64_t hiters = 1;
  for (int i = 0; i < fo->nh; i++) {
    lir_expr *v = lir_ref(F, loops[fo->h[i].id]->var);
    for (int j = 0; j < 3; j++) b[j] = lir_add(F, b[j], lir_muli(F, v, fo->h[i].f[j]));
    hidx = lir_add(F, lir_muli(F, hidx, fo->h[i].ext), v);
    hiters *= fo->h[i].ext;
  }
  if (hiters > (1 << 20)) {
    c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: %lld host iterations exceed the kernel key's 20 bits",
                      k->what, (long long)hiters);
    return NULL;
  }
  int64_t nest = 0;
  if (!parts || kind == KIND_NEST) {
    lir_stmt *ps = lir_block_stmt(&k->pushes);
    nest = kind == KIND_NEST ? nest_number(c, fo, b, ps) : c->nests++;
    if (nest < 0) {
      c->rc = OVTA_FAIL(c->err, OVTA_ENOMEM, "fold-uops: out of memory");
      return NULL;
    }
  }
  lir_expr *base = lir_i64(F, (int64_t)(c->uid << 32 | (uint64_t)kind << 28) + nest);
  lir_expr *key = parts ? lir_add(F, base, lir_add(F, lir_muli(F, parts, 1 << 20), hidx)) : base;
  lir_block rec;
  lir_block_init(&rec, F);
  for (int i = 0; i < fo->nl; i++) {
    lir_expr *a[4] = {lir_i64(F, fo->l[i].ext), lir_i64(F, fo->l[i].f[0]), lir_i64(F, fo->l[i].f[1]),
                      lir_i64(F, fo->l[i].f[2])};
    lir_block_add(&rec, call(c, "ovta.uop_loop_begin", 4, a));
  }
  lir_expr *ub[3] = {b[0], b[1], b[2]};
  for (int i = 0; i < fo->nu; i++)
    for (int j = 0; j < 3; j++) ub[j] = lir_add(F, ub[j], lir_muli(F, lir_ref(F, loops[fo->u[i].id]->var), fo->u[i].f[j]));
  lir_stmt *u = call(c, "ovta.uop", 3, ub);
  for (int i = fo->nu - 1; i >= 0; i--)
    u = lir_for(F, loops[fo->u[i].id]->var, lir_i64(F, 0), lir_i64(F, fo->u[i].ext), LIR_FOR_SERIAL, u);
  lir_block_add(&rec, u);
  for (int i = 0; i < fo->nl; i++) lir_block_add(&rec, call(c, "ovta.uop_loop_end", 0, NULL));
  lir_block kb;
  lir_block_init(&kb, F);
  lir_block_add(&kb, lir_attr(F, "uop_kernel", key, lir_block_stmt(&rec)));
  lir_block_add(&kb, lir_block_stmt(&k->pushes));
  lir_block_add(&kb, call(c, "ovta.kernel_end", 0, NULL));
  lir_stmt *ks = lir_block_stmt(&kb);
  for (int i = fo->nh - 1; i >= 0; i--)
    ks = lir_for(F, loops[fo->h[i].id]->var, lir_i64(F, 0), lir_i64(F, fo->h[i].ext), LIR_FOR_SERIAL, ks);
  return ks;
}

/* Rule (as written): with the plan's as_written (the ALU operators), a nest with unrolled loops is
 * taken as written - those loops are the micro-op loops, the others (at most two) the hardware
 * levels in order, nothing merged or dropped; any other nest folds by fold_loops keeping its
 * extent-1 loops; no host loops; every nest is its own kernel (key: kind 6, the nest's number, and
 * in bits 20..27 the ACC part when it is not a constant: the max pool's two threads). */
static int written_fold(fctx *c, const kops *k, const aloop *al, fold *fo) {
  bool unrolled = false;
  for (int i = 0; i < k->nl; i++) unrolled = unrolled || k->loops[i]->for_kind == LIR_FOR_UNROLLED;
  if (!unrolled) {
    fold_loops(al, k->nl, k->gemm || k->src ? c->p->uop_budget : 1, true, fo);
  } else {
    fo->nh = fo->nl = fo->nu = 0;
    for (int i = 0; i < k->nl; i++) {
      if (k->loops[i]->for_kind == LIR_FOR_UNROLLED) fo->u[fo->nu++] = al[i];
      else if (fo->nl < 2) fo->l[fo->nl++] = al[i];
      else return refuse_k(c, k, "more than two loops besides the unrolled (micro-op) ones");
    }
  }
  if (fo->nh) return refuse_k(c, k, "more loops than two hardware levels and the micro-op budget hold");
  return OVTA_OK;
}

/* Rule (tensor intrinsics): a perfect nest of loops (constant extents from 0) around one
 * `@ovta.gemm(acc, inp, wgt)` or a sequence of `@ovta.alu_OP(acc, imm | src)` on one ACC reference
 * (the tensor operands all the same) becomes one micro-op kernel per host iteration:
 *   for HOST.. { attr uop_kernel = KEY { uop_loop_begin(ext, dst, src, wgt)..; for UOP.. { uop(dst,
 *   src, wgt) }; uop_loop_end().. }; gemm(0) | alu(op, use_imm, imm)..; kernel_end() }
 * Each loop's factors are the affine coefficients of its variable in the flat SRAM indices of the
 * operands (part base + offsets, `flatten`); fold_loops picks the hardware levels, micro-op
 * loops (budget: plan.uop_budget for a GEMM or an ALU statement with a tensor operand, 1 for an
 * immediate-only ALU program: the region as loop levels, one micro-op) and host loops, which bind
 * the variables of the loops they come from (a merged loop: its outer loop's). Key: compile uid
 * (bits 32..62), kind (28..31: GEMM; ALU with a tensor operand; immediate ALU on the ACC region;
 * the same offset by an outer variable, a chunk), parts (20..27: GEMM 2 x ACC part + INP part, else
 * the ACC part + vt x the outer variable the operands are offset by: the chunk, the output-channel
 * tile of a shared bias), host iteration (0..19). Refused: indices not affine in the loops, a part
 * index depending on them, operands of the wrong SRAM scope, mixed GEMM/ALU statements or different
 * operands in one nest, more than one outer variable in the offsets (none for a GEMM), immediates
 * that are not constants. */
static lir_stmt *fold_kernel(fctx *c, lir_stmt *const *loops, int nl, lir_stmt *body) {
  int nst = body->kind == LIR_S_SEQ ? body->n : 1;
  lir_stmt *const *st = body->kind == LIR_S_SEQ ? body->stmts : &body;
  char what[160];
  snprintf(what, sizeof what, "@%s in loop %s", st[0]->value->callee, nl ? loops[nl - 1]->var->name : "(none)");
  bool reset = is_call(st[0], "ovta.gemm_reset");
  kops k = {.what = what, .loops = loops, .nl = nl, .gemm = reset || is_call(st[0], "ovta.gemm"), .reset = reset,
            .has = {true, false, false}};
  if (nl > FOLD_MAX_LOOPS) {
    c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: more than %d loops", what, FOLD_MAX_LOOPS);
    return NULL;
  }
  aloop al[FOLD_MAX_LOOPS];
  if (nest_loops(c, loops, nl, what, al)) return NULL;
  lir_block_init(&k.pushes, F);
  if (k.gemm ? gemm_operands(c, st[0]->value, nst, &k) : alu_operands(c, st, nst, &k)) return NULL;
  for (int i = 0; i < nl; i++)
    for (int j = 0; j < 3; j++) al[i].f[j] = k.has[j] ? k.r[j].k[i] : 0;
  fold fo;
  int64_t budget = k.gemm || k.src ? c->p->uop_budget : 1;
  if (c->p->as_written) { /* a part that is not a constant (the max pool's two threads): in the key too */
    lir_expr *pl = k.r[0].lead;
    return written_fold(c, &k, al, &fo) ? NULL : kernel_emit(c, &k, &fo, KIND_NEST, pl && pl->kind != LIR_E_INT ? pl : NULL);
  }
  fold_loops(al, nl, budget, false, &fo);
  int kind;
  lir_expr *parts = key_parts(c, &k, &kind);
  return parts ? kernel_emit(c, &k, &fo, kind, parts) : NULL;
}

/* Rule (DMA): `@ovta.dma_load(type, sram_ref, ..)` / `@ovta.dma_store(sram_ref, ..)` inside a
 * perfect nest of host loops (possibly none): the SRAM reference becomes its flat element index,
 * `part base + offsets` (part base, constant and outer variables' terms) + the nest loops' terms in
 * loop order; the loops stay. Refused: a reference not affine in the loops (flatten). */
static lir_stmt *fold_dma(fctx *c, lir_stmt *const *loops, int nl, lir_stmt *s) {
  const lir_expr *e = s->value;
  int si = is_call(s, "ovta.dma_store") ? 0 : 1;
  char what[160];
  snprintf(what, sizeof what, "@%s", e->callee);
  if (e->nargs <= si) {
    c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: %s: missing SRAM operand", what);
    return NULL;
  }
  flatref r;
  if (flatten(c, e->args[si], loops, nl, what, &r)) return NULL;
  lir_expr *off = lir_i64(F, 0);
  for (int i = 0; i < nl; i++) off = lir_add(F, off, lir_muli(F, lir_ref(F, loops[i]->var), r.k[i]));
  lir_expr **args = lir_alloc(F, sizeof *args * (size_t)e->nargs);
  if (!args) return s;
  for (int i = 0; i < e->nargs; i++) args[i] = e->args[i];
  args[si] = lir_add(F, flat_base(c, &r), off);
  lir_stmt *n = call(c, e->callee, e->nargs, args);
  for (int i = nl - 1; i >= 0; i--)
    n = lir_for(F, loops[i]->var, loops[i]->min, loops[i]->extent, loops[i]->for_kind, n);
  return n;
}

/* A statement that is neither a tensor intrinsic nor a DMA: must not touch the SRAM buffers any
 * more (they are not allocated after this pass). */
static lir_stmt *check_plain(fctx *c, lir_stmt *s, const lir_expr *e) {
  if (e && uses_sram(c, e))
    c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: a %s%s%s accesses an SRAM buffer (not a tensor intrinsic or DMA)",
                      s->kind == LIR_S_STORE ? "store into " : s->kind == LIR_S_EVAL ? "call" : "loop/if/let/attr",
                      s->kind == LIR_S_STORE ? s->buf->name : s->kind == LIR_S_EVAL && s->value->callee ? " @" : "",
                      s->kind == LIR_S_EVAL && s->value->callee ? s->value->callee : "");
  return s;
}

static lir_stmt *rw_s(fctx *c, lir_stmt *s) {
  if (!s || c->rc) return s;
  switch (s->kind) {
  case LIR_S_SEQ: {
    lir_stmt **n = NULL;
    for (int i = 0; i < s->n; i++) {
      lir_stmt *t = rw_s(c, s->stmts[i]);
      if (c->rc) return s;
      if (t != s->stmts[i] && !n) {
        n = lir_alloc(F, sizeof *n * (size_t)s->n);
        if (!n) return s;
        memcpy(n, s->stmts, sizeof *n * (size_t)s->n);
      }
      if (n) n[i] = t;
    }
    return n ? lir_seq(F, s->n, n) : s;
  }
  case LIR_S_FOR: {
    /* the perfect nest from here */
    lir_stmt *loops[FOLD_MAX_LOOPS + 8];
    int nl = 0;
    lir_stmt *t = s;
    while (t->kind == LIR_S_FOR && nl < (int)(sizeof loops / sizeof loops[0])) loops[nl++] = t, t = t->body;
    if (t->kind != LIR_S_FOR && is_compute_body(t)) return fold_kernel(c, loops, nl, t);
    if (t->kind != LIR_S_FOR && is_dma(t)) return fold_dma(c, loops, nl, t);
    check_plain(c, s, s->min);
    check_plain(c, s, s->extent);
    bool track = c->nencl < (int)(sizeof c->encl / sizeof c->encl[0]);
    if (track) c->encl[c->nencl++] = s;
    lir_stmt *nb = rw_s(c, s->body);
    if (track) c->nencl--;
    return lir_with_body(F, s, nb, NULL);
  }
  case LIR_S_EVAL:
    if (is_compute(s)) return fold_kernel(c, NULL, 0, s);
    if (is_dma(s)) return fold_dma(c, NULL, 0, s);
    return check_plain(c, s, s->value);
  case LIR_S_STORE:
    if (sram_of(c, s->buf)) {
      c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "fold-uops: a scalar store into SRAM buffer %s (not a tensor intrinsic)",
                        s->buf->name);
      return s;
    }
    for (int i = 0; i < s->nidx; i++) check_plain(c, s, s->idx[i]);
    return check_plain(c, s, s->value);
  case LIR_S_ALLOC: {
    lir_stmt *b = rw_s(c, s->body);
    if (sram_of(c, s->buf)) return b; /* SRAM references are flat indices now */
    return lir_with_body(F, s, b, NULL);
  }
  case LIR_S_LET: case LIR_S_ATTR:
    check_plain(c, s, s->value);
    return lir_with_body(F, s, rw_s(c, s->body), NULL);
  case LIR_S_IF: {
    check_plain(c, s, s->value);
    lir_stmt *t = rw_s(c, s->body), *e = rw_s(c, s->else_body);
    return lir_with_body(F, s, t, e);
  }
  }
  return s;
}

/* The fold-uops pass (vta_pass_fn). SRAM buffers (INP, WGT, ACC allocations) are laid out from
 * their allocations (layout_s) and the allocations removed; every tensor-intrinsic nest becomes a
 * micro-op kernel (fold_kernel), every DMA's SRAM operand a flat element index (fold_dma); other
 * statements stay, and may not access an SRAM buffer. */
int vta_pass_fold(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  fctx cx = {.f = f, .p = p, .uid = uid & 0x7fffffff, .err = err}, *c = &cx;
  int64_t used[LIR_SCOPE_COUNT] = {0};
  if (layout_s(c, f->body, used)) return c->rc;
  lir_stmt *b = rw_s(c, f->body);
  if (c->rc) return c->rc;
  f->body = b;
  return OVTA_OK;
}
