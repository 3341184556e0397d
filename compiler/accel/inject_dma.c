/* inject_dma.c: the inject-dma pass (compiler/accel/accel.h section 3, compiler/accel/README.md "Passes", 3): the copy
 * nests of the schedule stage become 2D strided DMA intrinsics, the padding select of the
 * reduction goes into the DMA's zero padding, and the requantizing store nest becomes an in-place
 * requantization of the ACC tile followed by a dma_store. Everything is read from the IR; the plan
 * gives only the store pipelining knob q_chunks. */
#include "accel_internal.h"

#include <string.h>

/* ---------------------------------------------------------------- index helpers */

static int64_t gcd64(int64_t a, int64_t b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

/* ---------------------------------------------------------------- pass state */

#define DMA_LOOPS 32
#define DMA_CACHES 8

typedef struct dctx {
  lir_func *f;
  const vta_plan *p;
  ovta_error *err;
  int rc;
  int nl; /* enclosing loops (outermost first) */
  lir_stmt *loops[DMA_LOOPS];
  /* caches whose DMA zero-fills a halo: for the row and the column dim, the SRAM dim, the DRAM
   * position of its element 0 (the copy's unclamped index minus the copy loop) and the clamp bounds */
  int npad, pad_cap; /* (arena; the ALU operators' unrolled row tiles have one cache each) */
  struct dpad {
    lir_buf *sram;
    int sdim[2];
    lir_affine at[2];
    int64_t lo[2], hi[2];
  } *pad;
  /* caches compacted along a strided dim: reads divide that index by g */
  int ncomp;
  struct {
    lir_buf *sram;
    int dim;
    int64_t g;
  } comp[DMA_CACHES];
  /* the perfect nests storing into an ACC buffer seen so far (the tile's init, the reduction): the
   * accumulator of an output element whose requantized value reads none (a constant: shift <= -32) */
  int nacc;
  lir_stmt *acc_nest[DMA_CACHES];
} dctx;

#define F (c->f)

static int fail(dctx *c, int code, const char *fmt, const char *what) {
  if (!c->rc) c->rc = OVTA_FAIL(c->err, code, fmt, what);
  return c->rc;
}

/* ---------------------------------------------------------------- transfers */

/* A copy nest between a DRAM parameter and an SRAM buffer: loops L (perfect, from 0, constant
 * extents) around one access pair. The last two DRAM dims are the DMA element (BATCH x BLOCK or
 * BLOCK x BLOCK): indexed by two nest loops spanning them, the same two on the SRAM side. Every
 * other DRAM dim d is `outer_d + coef_d * L_j` (or such an index clamped: a halo row/column) with
 * outer_d free of nest loops; L_j indexes one SRAM dim exactly, in the same order. */
typedef struct xfer {
  int nl;
  lir_var *lv[10];
  int64_t lext[10];
  lir_buf *sram, *dram;
  lir_expr **si, **di;
  int nd;                         /* DRAM copy dims (all but the element) */
  int var_of[8], sdim[8];         /* nest loop and SRAM dim of each copy dim (-1: none) */
  int64_t coef[8];
  lir_affine outer[8];
  bool clamped[8];
  int64_t lo[8], hi[8];
  int64_t ext[8], dst[8], sst[8]; /* extent, DRAM stride, SRAM stride (elements) */
  int role[8];                    /* 0 host loop, 1 in x, 2 in y */
  int64_t xs, ys, stride;
  int first;                      /* first SRAM dim of the copy (before: lead indices, the part) */
} xfer;

static int loop_of(const xfer *x, const lir_var *v) {
  for (int i = 0; i < x->nl; i++)
    if (x->lv[i] == v) return i;
  return -1;
}

/* Collect a perfect nest from s; returns the innermost statement. */
static lir_stmt *nest_of(lir_stmt *s, xfer *x) {
  x->nl = 0;
  while (s && s->kind == LIR_S_FOR) {
    if (x->nl == 10 || s->min->kind != LIR_E_INT || s->min->ival != 0 || s->extent->kind != LIR_E_INT) return NULL;
    x->lv[x->nl] = s->var, x->lext[x->nl++] = s->extent->ival;
    s = s->body;
  }
  return s;
}

/* Strides of the copy dims (elements of the DMA type): DRAM row-major times the loop's coefficient,
 * SRAM row-major over the copied dims. */
static void xfer_strides(xfer *x) {
  int sn = x->sram->ndim;
  for (int d = 0; d < x->nd; d++) {
    int64_t ds = 1, ss = 1;
    for (int e = d + 1; e < x->nd; e++) ds *= x->dram->shape[e];
    if (x->sdim[d] >= 0)
      for (int s = x->sdim[d] + 1; s < sn - 2; s++) ss *= x->sram->shape[s];
    x->dst[d] = ds * (x->coef[d] ? x->coef[d] : 1), x->sst[d] = ss;
  }
}

/* Analyse the access pair of a copy nest; false (with an error naming the SRAM buffer) when it is
 * not a 2D-strided transfer. */
static bool xfer_match(dctx *c, xfer *x) {
  lir_buf *S = x->sram, *D = x->dram;
  const char *nm = S->name;
  int sn = S->ndim, dn = D->ndim;
  if (!D->is_param || dn < 3 || sn < 3 || dn - 2 > 8) return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: not an SRAM <-> DRAM tensor copy", nm), false;
  for (int k = 1; k <= 2; k++) {
    lir_expr *a = x->di[dn - k], *b = x->si[sn - k];
    if (a->kind != LIR_E_VAR || b->kind != LIR_E_VAR || a->var != b->var || loop_of(x, a->var) < 0 ||
        x->lext[loop_of(x, a->var)] != D->shape[dn - k] || S->shape[sn - k] != D->shape[dn - k])
      return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: the element dims are not copied whole", nm), false;
  }
  x->nd = dn - 2;
  int prev = -1;
  for (int d = 0; d < x->nd; d++) {
    lir_expr *ix = x->di[d], *in;
    x->clamped[d] = vta_is_clamp(ix, &in, &x->lo[d], &x->hi[d]);
    if (x->clamped[d]) ix = in;
    lir_affine a = lir_affine_of(ix);
    if (!a.ok) return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: a DRAM index is not affine", nm), false;
    x->var_of[d] = -1, x->coef[d] = 0, x->sdim[d] = -1;
    lir_affine o = {.ok = true, .c = a.c};
    for (int i = 0; i < a.n; i++) {
      int j = loop_of(x, a.v[i]);
      if (j < 0) {
        lir_affine_add(&o, a.v[i], a.k[i]);
      } else if (a.k[i] != 0) {
        if (x->var_of[d] >= 0 || a.k[i] < 0)
          return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: a DRAM dim is not one strided loop", nm), false;
        x->var_of[d] = j, x->coef[d] = a.k[i];
      }
    }
    x->outer[d] = o;
    x->ext[d] = 1;
    if (x->var_of[d] >= 0) {
      x->ext[d] = x->lext[x->var_of[d]];
      for (int s = 0; s < sn - 2; s++)
        if (x->si[s]->kind == LIR_E_VAR && x->si[s]->var == x->lv[x->var_of[d]]) x->sdim[d] = s;
      if (x->sdim[d] < 0 || x->sdim[d] <= prev || S->shape[x->sdim[d]] != x->ext[d])
        return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: SRAM dims do not follow the DRAM dims", nm), false;
      prev = x->sdim[d];
    }
  }
  /* every nest loop is used by one DRAM dim (or the element); SRAM lead dims are loop-free */
  for (int j = 0; j < x->nl; j++) {
    bool used = x->di[dn - 1]->var == x->lv[j] || x->di[dn - 2]->var == x->lv[j];
    for (int d = 0; d < x->nd; d++) used = used || x->var_of[d] == j;
    if (!used) return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: a copy loop indexes no DRAM dim", nm), false;
  }
  int first = sn - 2;
  for (int d = 0; d < x->nd; d++)
    if (x->sdim[d] >= 0 && x->sdim[d] < first) first = x->sdim[d];
  for (int s = 0; s < first; s++) {
    lir_affine a = lir_affine_of(x->si[s]);
    for (int i = 0; a.ok && i < a.n; i++)
      if (loop_of(x, a.v[i]) >= 0) return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: an SRAM lead index uses a copy loop", nm), false;
  }
  for (int s = first; s < sn - 2; s++) {
    bool hit = false;
    for (int d = 0; d < x->nd; d++) hit = hit || x->sdim[d] == s;
    if (!hit && S->shape[s] != 1) return fail(c, OVTA_EUNSUPPORTED, "inject-dma: copy of %s: an SRAM dim is not copied", nm), false;
  }
  x->first = first;
  xfer_strides(x);
  return true;
}

/* Group the dims: x = the innermost contiguous run, y = the next dims with a constant DRAM stride
 * and SRAM rows packed, the rest host loops. With the plan's as_written (the ALU operators): x = at
 * most the two innermost dims, y = the next dim whatever its extent, the rest host loops. */
static void xfer_plan(xfer *x, bool as_written) {
  int d = x->nd - 1;
  x->xs = 1;
  if (as_written) {
    for (int n = 0; n < 2 && d >= 0 && x->dst[d] == x->xs && x->sst[d] == x->xs; n++) x->xs *= x->ext[d], x->role[d--] = 1;
    x->ys = 1, x->stride = x->xs;
    if (d >= 0 && x->sst[d] == x->xs && x->dst[d] <= 65535) x->stride = x->dst[d], x->ys = x->ext[d], x->role[d--] = 2;
    for (; d >= 0; d--) x->role[d] = 0;
    return;
  }
  while (d >= 0 && (x->ext[d] == 1 || (x->dst[d] == x->xs && x->sst[d] == x->xs))) x->xs *= x->ext[d], x->role[d--] = 1;
  x->ys = 1, x->stride = x->xs;
  if (d >= 0 && x->sst[d] == x->xs && x->dst[d] <= 65535) {
    x->stride = x->dst[d], x->ys = x->ext[d], x->role[d--] = 2;
    while (d >= 0 && (x->ext[d] == 1 || (x->sst[d] == x->xs * x->ys && x->dst[d] == x->stride * x->ys)))
      x->ys *= x->ext[d], x->role[d--] = 2;
  }
  for (; d >= 0; d--) x->role[d] = 0;
}

/* Host loop names by transfer kind and copy dim. */
static const char *host_name(int mem, bool store, int d) {
  static const char *const in[4] = {"cn", "cc", "cr", "cw"}, *const wg[4] = {"wo", "wc", "wh", "ww"},
                           *const bi[4] = {"bo", "bb", "bi", "bj"}, *const st[4] = {"sn", "so", "sh", "sw"};
  const char *const *t = store ? st : mem == OVTA_MEM_INP ? in : mem == OVTA_MEM_WGT ? wg : bi;
  return d < 4 ? t[d] : "hl";
}

/* The DMA call(s) of an analysed transfer: host loops over the role-0 dims around one
 * dma_load(mem, sram_ref, dram_ref, x_size, y_size, x_stride, pads x0 y0 x1 y1) /
 * dma_store(sram_ref, dram_ref, x_size, y_size, x_stride); the references are the first element
 * (host loop indices added). dorg: the DRAM origin of each copy dim; sorg: an SRAM origin per copy
 * dim (NULL: 0); pads: x0 y0 x1 y1 (the sizes shrink by them) or NULL. */
static lir_stmt *xfer_emit(dctx *c, const xfer *x, int mem, bool store, lir_expr **dorg, lir_expr **sorg,
                           lir_expr *const *pads) {
  lir_var *hv[8] = {0};
  for (int d = 0; d < x->nd; d++)
    if (x->role[d] == 0) hv[d] = lir_var_new(F, host_name(mem, store, d), LIR_I64);
  int sn = x->sram->ndim, dn = x->dram->ndim;
  lir_expr *si[LIR_MAX_DIMS], *di[LIR_MAX_DIMS];
  for (int s = 0; s < sn; s++) si[s] = s < x->first ? x->si[s] : lir_i64(F, 0);
  for (int d = 0; d < x->nd; d++) {
    lir_expr *h = hv[d] ? lir_ref(F, hv[d]) : NULL;
    di[d] = lir_add(F, dorg[d], h ? h : lir_i64(F, 0));
    if (x->sdim[d] >= 0) {
      lir_expr *o = sorg ? sorg[d] : NULL;
      si[x->sdim[d]] = o ? (h ? lir_add(F, o, h) : o) : (h ? h : lir_i64(F, 0));
    }
  }
  di[dn - 2] = lir_i64(F, 0), di[dn - 1] = lir_i64(F, 0);
  lir_expr *args[11];
  int n = 0;
  if (!store) args[n++] = lir_i64(F, mem);
  args[n++] = lir_load(F, x->sram, si);
  args[n++] = lir_load(F, x->dram, di);
  args[n++] = pads ? lir_sub(F, lir_i64(F, x->xs), lir_add(F, pads[0], pads[2])) : lir_i64(F, x->xs);
  args[n++] = pads ? lir_sub(F, lir_i64(F, x->ys), lir_add(F, pads[1], pads[3])) : lir_i64(F, x->ys);
  args[n++] = lir_i64(F, x->stride);
  if (!store)
    for (int i = 0; i < 4; i++) args[n++] = pads ? pads[i] : lir_i64(F, 0);
  lir_stmt *s = lir_eval(F, lir_opaque(F, store ? "ovta.dma_store" : "ovta.dma_load", LIR_I32, n, args));
  for (int d = x->nd - 1; d >= 0; d--)
    if (hv[d]) s = lir_for(F, hv[d], lir_i64(F, 0), lir_i64(F, x->ext[d]), LIR_FOR_SERIAL, s);
  return s;
}

/* ---------------------------------------------------------------- strided-row compaction */

typedef struct rd_scan {
  const lir_buf *b;
  int dim;
  int64_t g;    /* gcd of the constants and the coefficients of the loops with several values */
  bool any;     /* a read seen */
  bool multi;   /* a loop with several values seen */
  int64_t kmax; /* the largest coefficient of the single-valued loops */
  int nl;
  lir_var *v[DMA_LOOPS];
  int64_t ext[DMA_LOOPS];
} rd_scan;

static void scan_e(rd_scan *r, const lir_expr *e) {
  if (!e) return;
  if (e->kind == LIR_E_LOAD && e->buf == r->b) {
    lir_affine a = lir_affine_of(e->args[r->dim]);
    if (!a.ok) {
      r->g = 1;
    } else {
      r->any = true;
      r->g = gcd64(r->g, a.c);
      for (int i = 0; i < a.n; i++) {
        int64_t ext = 0; /* unknown: any value */
        for (int j = r->nl - 1; j >= 0; j--)
          if (r->v[j] == a.v[i]) {
            ext = r->ext[j];
            break;
          }
        if (ext != 1) r->g = gcd64(r->g, a.k[i]), r->multi = true;
        else if (a.k[i] > r->kmax) r->kmax = a.k[i];
      }
    }
  }
  for (int i = 0; i < e->nargs; i++) scan_e(r, e->args[i]);
}

static void scan_s(rd_scan *r, const lir_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) scan_s(r, s->stmts[i]);
    return;
  case LIR_S_FOR: {
    int64_t ext = s->extent->kind == LIR_E_INT ? s->extent->ival : 0;
    if (r->nl < DMA_LOOPS) r->v[r->nl] = s->var, r->ext[r->nl++] = ext;
    scan_s(r, s->body);
    r->nl--;
    return;
  }
  case LIR_S_STORE:
    for (int i = 0; i < s->nidx; i++) scan_e(r, s->idx[i]);
    scan_e(r, s->value);
    return;
  case LIR_S_IF:
    scan_e(r, s->value);
    scan_s(r, s->body);
    scan_s(r, s->else_body);
    return;
  case LIR_S_ATTR:
    if (!strcmp(s->key, "cache_read") || !strcmp(s->key, "cache_write")) return; /* the copy itself */
    scan_e(r, s->value);
    scan_s(r, s->body);
    return;
  case LIR_S_LET: case LIR_S_ALLOC:
    scan_s(r, s->body);
    return;
  case LIR_S_EVAL:
    scan_e(r, s->value);
    return;
  }
}

/* An index divided by g: constants and loop multiples divide, the loop variables that are always 0
 * stay (a product by g becomes one by 1). */
static lir_expr *div_index(dctx *c, lir_expr *e, int64_t g) {
  switch (e->kind) {
  case LIR_E_INT: return lir_i64(F, e->ival / g);
  case LIR_E_VAR: return e;
  case LIR_E_BIN:
    if (e->op == LIR_ADD) return lir_add(F, div_index(c, e->args[0], g), div_index(c, e->args[1], g));
    if (e->op == LIR_MUL && e->args[1]->kind == LIR_E_INT && e->args[1]->ival % g == 0)
      return lir_muli(F, e->args[0], e->args[1]->ival / g);
    if (e->op == LIR_MUL && e->args[0]->kind == LIR_E_INT && e->args[0]->ival % g == 0)
      return lir_muli(F, e->args[1], e->args[0]->ival / g);
    return e;
  default:
    return e;
  }
}

/* div_index checked: the result times g is the index up to the terms whose coefficient g does not
 * divide (loops the scan found single-valued, i.e. 0). */
static lir_expr *compact_index(dctx *c, lir_expr *e, int64_t g, const lir_buf *b) {
  lir_expr *r = div_index(c, e, g);
  lir_affine a = lir_affine_of(e), q = lir_affine_of(r);
  bool ok = a.ok && q.ok && q.c * g == a.c && q.n == a.n;
  for (int i = 0; ok && i < a.n; i++)
    ok = q.v[i] == a.v[i] && (a.k[i] % g ? q.k[i] == a.k[i] : q.k[i] * g == a.k[i]);
  if (!ok) fail(c, OVTA_EUNSUPPORTED, "inject-dma: a read of %s cannot be compacted", b->name);
  return r;
}

/* ---------------------------------------------------------------- copies */

/* Rule (cache read): `attr cache_read { for L..: S[lead.., L..] = D[outer + L.., Le1, Le2] }` with S
 * in INP/WGT/ACC becomes host loops + dma_load. Halo copies (clamped DRAM indices: rows and columns
 * of a padded conv's input, the two innermost copy dims, clamp [0, n-1]) load rows x columns per
 * outer index with the part outside the DRAM tensor as DMA padding (pads from the origin of the
 * tile: max(-o, 0) before, max(o + extent - n, 0) after); the cache is remembered as zero-padded.
 * An unpadded cache whose reads use only every g-th element of a copy dim (other than the innermost)
 * is compacted first: the SRAM dim shrinks to ceil(n/g), the DRAM stride of the dim grows by g and the
 * reads divide their index by g (a 1-row kernel with a row stride: only the rows read are loaded).
 * g is the gcd of the index constants and of the coefficients of the loops with several values; a
 * dim read at one position only (all its loops single-valued) takes the largest coefficient (the
 * output row step, as for a taller tile). */
static lir_stmt *lower_cache_read(dctx *c, lir_stmt *attr) {
  xfer x = {0};
  lir_stmt *st = nest_of(attr->body, &x);
  if (!st || st->kind != LIR_S_STORE || st->value->kind != LIR_E_LOAD || x.nl == 0) {
    fail(c, OVTA_EUNSUPPORTED, "inject-dma: %s: a cache_read that is not a perfect copy nest", "attr");
    return attr;
  }
  x.sram = st->buf, x.si = st->idx, x.dram = st->value->buf, x.di = st->value->args;
  lir_scope sc = x.sram->scope;
  int mem = sc == LIR_SCOPE_INP ? OVTA_MEM_INP : sc == LIR_SCOPE_WGT ? OVTA_MEM_WGT : sc == LIR_SCOPE_ACC ? OVTA_MEM_ACC : -1;
  if (mem < 0) {
    fail(c, OVTA_EUNSUPPORTED, "inject-dma: cache %s is not in inp/wgt/acc", x.sram->name);
    return attr;
  }
  if (!xfer_match(c, &x)) return attr;
  int nclamp = 0;
  for (int d = 0; d < x.nd; d++) nclamp += x.clamped[d];
  if (nclamp == 0) {
    /* strided compaction */
    for (int d = 0; d + 1 < x.nd; d++) {
      if (x.sdim[d] < 0) continue;
      rd_scan r = {.b = x.sram, .dim = x.sdim[d]};
      scan_s(&r, c->f->body);
      if (!r.multi && r.g == 0) r.g = r.kmax; /* one position read: the step of its loops */
      if (!r.any || r.g <= 1) continue;
      if (c->ncomp == DMA_CACHES) {
        fail(c, OVTA_EUNSUPPORTED, "inject-dma: cache %s: too many compactions", x.sram->name);
        return attr;
      }
      lir_buf *b = x.sram;
      int64_t n = (x.ext[d] + r.g - 1) / r.g;
      b->shape[x.sdim[d]] = n;
      int64_t s1 = 1;
      for (int i = b->ndim - 1; i >= 0; i--) b->strides[i] = s1, s1 *= b->shape[i];
      c->comp[c->ncomp].sram = b, c->comp[c->ncomp].dim = x.sdim[d], c->comp[c->ncomp++].g = r.g;
      x.ext[d] = n, x.coef[d] *= r.g;
      xfer_strides(&x);
    }
  }
  lir_expr *org[8], *pads[4];
  if (nclamp) {
    int r = x.nd - 2, w = x.nd - 1;
    if (nclamp != 2 || r < 0 || !x.clamped[r] || !x.clamped[w] || x.coef[r] != 1 || x.coef[w] != 1 || x.lo[r] != 0 ||
        x.lo[w] != 0 || x.sst[w] != 1 || x.sst[r] != x.ext[w]) {
      fail(c, OVTA_EUNSUPPORTED, "inject-dma: cache %s: the clamped (halo) dims are not the innermost, packed rows and columns",
           x.sram->name);
      return attr;
    }
    if (c->npad == c->pad_cap) {
      int ncap = c->pad_cap ? 2 * c->pad_cap : 8;
      struct dpad *n = lir_alloc(F, sizeof *n * (size_t)ncap);
      if (!n) {
        fail(c, OVTA_ENOMEM, "inject-dma: %s: out of memory", x.sram->name);
        return attr;
      }
      if (c->npad) memcpy(n, c->pad, sizeof *n * (size_t)c->npad);
      c->pad = n, c->pad_cap = ncap;
    }
    for (int d = 0; d < r; d++) x.role[d] = 0;
    x.role[r] = 2, x.role[w] = 1;
    x.xs = x.ext[w], x.ys = x.ext[r], x.stride = x.dst[r];
    lir_expr *h0 = lir_affine_expr(F, &x.outer[r]), *w0 = lir_affine_expr(F, &x.outer[w]), *z = lir_i64(F, 0);
    int64_t H = x.hi[r] + 1, W = x.hi[w] + 1;
    pads[1] = lir_max(F, lir_sub(F, z, h0), z);
    pads[3] = lir_max(F, lir_sub(F, lir_add(F, h0, lir_i64(F, x.ext[r])), lir_i64(F, H)), z);
    pads[0] = lir_max(F, lir_sub(F, z, w0), z);
    pads[2] = lir_max(F, lir_sub(F, lir_add(F, w0, lir_i64(F, x.ext[w])), lir_i64(F, W)), z);
    for (int d = 0; d < r; d++) org[d] = lir_affine_expr(F, &x.outer[d]);
    org[r] = lir_max(F, h0, z), org[w] = lir_max(F, w0, z);
    int k = c->npad++;
    c->pad[k].sram = x.sram;
    c->pad[k].sdim[0] = x.sdim[r], c->pad[k].at[0] = x.outer[r], c->pad[k].lo[0] = x.lo[r], c->pad[k].hi[0] = x.hi[r];
    c->pad[k].sdim[1] = x.sdim[w], c->pad[k].at[1] = x.outer[w], c->pad[k].lo[1] = x.lo[w], c->pad[k].hi[1] = x.hi[w];
    return xfer_emit(c, &x, mem, false, org, NULL, pads);
  }
  xfer_plan(&x, c->p->as_written);
  for (int d = 0; d < x.nd; d++) org[d] = lir_affine_expr(F, &x.outer[d]);
  return xfer_emit(c, &x, mem, false, org, NULL, NULL);
}

/* ---------------------------------------------------------------- the requantizing store */

/* The one load of an ACC buffer in e (NULL when none or several), not counting the amount of a
 * SHR (the per-channel shifts, a tensor operand of the requantization). */
static const lir_expr *acc_load(const lir_expr *e, int *count) {
  if (!e) return NULL;
  const lir_expr *r = NULL;
  if (e->kind == LIR_E_LOAD && e->buf->scope == LIR_SCOPE_ACC) r = e, (*count)++;
  for (int i = 0; i < e->nargs; i++) {
    if (i == 1 && e->kind == LIR_E_BIN && e->op == LIR_SHR && e->args[1]->kind == LIR_E_LOAD)
      continue; /* a shift amount from the ACC (per-channel shifts) is an operand, not the element */
    const lir_expr *q = acc_load(e->args[i], count);
    if (q) r = q;
  }
  return r;
}

/* Substitute variables (copy on write). */
typedef struct vsub {
  int n;
  lir_var *from[12];
  lir_expr *to[12];
} vsub;

static lir_expr *subst(dctx *c, lir_expr *e, const vsub *s) {
  switch (e->kind) {
  case LIR_E_VAR:
    for (int i = 0; i < s->n; i++)
      if (s->from[i] == e->var) return s->to[i];
    return e;
  case LIR_E_INT: case LIR_E_FLOAT:
    return e;
  case LIR_E_LOAD: {
    lir_expr *idx[LIR_MAX_DIMS];
    for (int i = 0; i < e->nargs; i++) idx[i] = subst(c, e->args[i], s);
    return lir_load(F, e->buf, idx);
  }
  case LIR_E_BIN: return lir_bin(F, e->op, subst(c, e->args[0], s), subst(c, e->args[1], s));
  case LIR_E_UN: return lir_un(F, e->op, subst(c, e->args[0], s));
  case LIR_E_CAST: return lir_cast(F, e->dtype, subst(c, e->args[0], s));
  case LIR_E_SELECT: return lir_select(F, subst(c, e->args[0], s), subst(c, e->args[1], s), subst(c, e->args[2], s));
  default: return e;
  }
}

/* The base of a variable name (without a trailing _N), for the fresh loops of a copied nest. */
static lir_var *fresh_var(dctx *c, const lir_var *v) {
  char b[96];
  snprintf(b, sizeof b, "%s", v->name);
  char *u = strrchr(b, '_');
  if (u && u[1]) {
    bool digits = true;
    for (char *q = u + 1; *q; q++) digits = digits && *q >= '0' && *q <= '9';
    if (digits) *u = 0;
  }
  return lir_var_new(F, b, v->dtype);
}

/* The requantization in place on the ACC and the store of a store nest (chunk: output-channel
 * blocks tq * q .. + q of copy dim cd, tq a loop variable; else NULL). */
static lir_stmt *requant_store(dctx *c, const xfer *x0, lir_expr *inner, const lir_expr *acc, lir_var *tq, int cd, int64_t q) {
  xfer x = *x0;
  vsub s = {0};
  int64_t lext[10];
  lir_var *lv[10];
  for (int j = 0; j < x.nl; j++) {
    lext[j] = x.lext[j], lv[j] = x.lv[j];
    if (tq) {
      lv[j] = fresh_var(c, x.lv[j]);
      lir_expr *r = lir_ref(F, lv[j]);
      if (j == x.var_of[cd]) lext[j] = q, r = lir_add(F, lir_muli(F, lir_ref(F, tq), q), r);
      s.from[s.n] = x.lv[j], s.to[s.n++] = r;
    }
  }
  lir_expr *val = tq ? subst(c, inner, &s) : inner;
  const lir_expr *ac = tq ? subst(c, (lir_expr *)acc, &s) : acc;
  lir_stmt *body = lir_store(F, ac->buf, ac->args, val);
  for (int j = x.nl - 1; j >= 0; j--) body = lir_for(F, lv[j], lir_i64(F, 0), lir_i64(F, lext[j]), LIR_FOR_SERIAL, body);
  lir_expr *org[8], *sorg[8] = {0};
  for (int d = 0; d < x.nd; d++) org[d] = lir_affine_expr(F, &x.outer[d]);
  if (tq) {
    lir_expr *t = lir_muli(F, lir_ref(F, tq), q);
    x.ext[cd] = q;
    sorg[cd] = t;
    org[cd] = lir_add(F, t, org[cd]);
  }
  xfer_plan(&x, c->p->as_written);
  lir_stmt *store = xfer_emit(c, &x, OVTA_MEM_OUT, true, org, tq ? sorg : NULL, NULL);
  if (inner == acc) return store; /* a plain copy out (the max pool's output): nothing to requantize */
  lir_stmt *two[2] = {body, store};
  return lir_seq(F, 2, two);
}

/* The element of an ACC nest's buffer at the store nest's loop position (same extents; NULL when
 * the nests differ). */
static const lir_expr *nest_acc(dctx *c, lir_stmt *init, const xfer *x) {
  xfer y = {0};
  lir_stmt *st = nest_of(init, &y);
  if (!st || y.nl != x->nl) return NULL;
  vsub s = {0};
  for (int j = 0; j < y.nl; j++) {
    if (y.lext[j] != x->lext[j] || s.n == 12) return NULL;
    s.from[s.n] = y.lv[j], s.to[s.n++] = lir_ref(F, x->lv[j]);
  }
  lir_expr *idx[LIR_MAX_DIMS];
  for (int i = 0; i < st->nidx; i++) idx[i] = subst(c, st->idx[i], &s);
  return lir_load(F, st->buf, idx);
}

/* Rule (store): a perfect nest `for L..: Y[outer + L.., Le1, Le2] = cast(E(A[lead.., L..]))` with Y
 * a DRAM parameter, A an ACC buffer and one ACC load in E becomes `for L..: A[..] = E(A[..])` (the
 * requantization in place; none when E is the element itself, a plain copy out) then host loops +
 * dma_store(A, Y). With the plan's q_chunks > 1 the
 * last tile (fused index of the enclosing loops == their iteration count - 1) is requantized and
 * stored in q_chunks chunks of the outermost copy dim of extent > 1 (loop tq): the store of one
 * chunk overlaps the ALU work of the next; with epi_chunks every tile (q_chunks is then
 * VTA_EPI_CHUNKS). */
static lir_stmt *lower_store(dctx *c, lir_stmt *nest) {
  xfer x = {0};
  lir_stmt *st = nest_of(nest, &x);
  if (!st || st->kind != LIR_S_STORE || st->value->kind != LIR_E_CAST || st->value->dtype != st->buf->dtype) {
    fail(c, OVTA_EUNSUPPORTED, "inject-dma: store nest %s: not a requantizing copy nest", nest->var->name);
    return nest;
  }
  int cnt = 0;
  lir_expr *inner = st->value->args[0];
  const lir_expr *acc = acc_load(inner, &cnt);
  for (int i = c->nacc - 1; i >= 0 && cnt == 0 && !acc; i--) acc = nest_acc(c, c->acc_nest[i], &x);
  if (!acc || cnt > 1) {
    fail(c, OVTA_EUNSUPPORTED, "inject-dma: store to %s: not one ACC element per output element", st->buf->name);
    return nest;
  }
  x.sram = acc->buf, x.si = acc->args, x.dram = st->buf, x.di = st->idx;
  if (!xfer_match(c, &x)) return nest;
  for (int d = 0; d < x.nd; d++)
    if (x.clamped[d]) {
      fail(c, OVTA_EUNSUPPORTED, "inject-dma: store to %s: clamped index", st->buf->name);
      return nest;
    }
  lir_stmt *whole = requant_store(c, &x, inner, acc, NULL, 0, 0);
  int nq = c->p->q_chunks;
  if (nq <= 1) return whole;
  int cd = -1;
  for (int d = 0; d < x.nd && cd < 0; d++)
    if (x.ext[d] > 1) cd = d;
  if (cd < 0 || x.var_of[cd] < 0 || x.ext[cd] % nq) {
    fail(c, OVTA_EUNSUPPORTED, "inject-dma: store to %s: q_chunks does not divide the store", st->buf->name);
    return nest;
  }
  lir_var *tq = lir_var_new(F, "tq", LIR_I64);
  lir_stmt *chunks = requant_store(c, &x, inner, acc, tq, cd, x.ext[cd] / nq);
  chunks = lir_for(F, tq, lir_i64(F, 0), lir_i64(F, nq), LIR_FOR_SERIAL, chunks);
  lir_expr *tile = lir_i64(F, 0);
  int64_t tiles = 1;
  for (int i = 0; i < c->nl; i++) {
    lir_stmt *L = c->loops[i];
    if (L->extent->kind != LIR_E_INT || L->min->kind != LIR_E_INT || L->min->ival != 0) {
      fail(c, OVTA_EUNSUPPORTED, "inject-dma: tile loop %s without constant bounds", L->var->name);
      return nest;
    }
    tile = lir_add(F, lir_muli(F, tile, L->extent->ival), lir_ref(F, L->var));
    tiles *= L->extent->ival;
  }
  if (tiles == 1 || c->p->epi_chunks) return chunks; /* a chunked epilogue: every tile in q_chunks = VTA_EPI_CHUNKS */
  return lir_if(F, lir_bin(F, LIR_EQ, tile, lir_i64(F, tiles - 1)), chunks, whole);
}

/* Does e load buffer b? */
static bool loads_buf(const lir_expr *e, const lir_buf *b) {
  if (!e) return false;
  if (e->kind == LIR_E_LOAD && e->buf == b) return true;
  for (int i = 0; i < e->nargs; i++)
    if (loads_buf(e->args[i], b)) return true;
  return false;
}

/* Rule (chunked init): with the plan's epi_chunks, a tile's ACC init nest (perfect loops down to a
 * store into an ACC buffer that does not read it: the bias MOV or the constant fill) becomes `for eq
 * in 0..VTA_EPI_CHUNKS { nest over the output-channel blocks eq * h .. + h }` (h = t_oc / VTA_EPI_CHUNKS, the
 * loop indexing the ACC tile's channel dim split; the chunk loop outside the nest, so fold-uops makes
 * one kernel per chunk and insert-deps gives each its own store->compute token). NULL when the nest
 * is no such init (it stays as it is). */
static lir_stmt *chunk_init(dctx *c, lir_stmt *nest) {
  lir_stmt *L[12], *t = nest;
  int n = 0;
  while (t->kind == LIR_S_FOR && n < 12) L[n++] = t, t = t->body;
  int nq = VTA_EPI_CHUNKS;
  if (t->kind != LIR_S_STORE || t->buf->scope != LIR_SCOPE_ACC || t->nidx < 5) return NULL;
  if (loads_buf(t->value, t->buf)) return NULL; /* reads what it writes: the reduction */
  const lir_var *ov = lir_var_of(t->idx[t->nidx - 5]); /* [.., t_oc, t_h, t_w, B, BO] */
  int k = -1;
  for (int i = 0; i < n && ov; i++)
    if (L[i]->var == ov) k = i;
  if (k < 0 || L[k]->min->kind != LIR_E_INT || L[k]->min->ival != 0 || L[k]->extent->kind != LIR_E_INT ||
      L[k]->extent->ival % nq)
    return NULL;
  int64_t h = L[k]->extent->ival / nq;
  lir_var *tq = lir_var_new(F, "eq", LIR_I64);
  vsub sb = {.n = 1, .from = {L[k]->var}, .to = {lir_add(F, lir_muli(F, lir_ref(F, tq), h), lir_ref(F, L[k]->var))}};
  lir_expr *idx[LIR_MAX_DIMS];
  for (int i = 0; i < t->nidx; i++) idx[i] = subst(c, t->idx[i], &sb);
  lir_stmt *body = lir_store(F, t->buf, idx, subst(c, t->value, &sb));
  for (int i = n - 1; i >= 0; i--)
    body = lir_for(F, L[i]->var, L[i]->min, i == k ? lir_i64(F, h) : L[i]->extent, L[i]->for_kind, body);
  lir_stmt *one[1] = {body};
  return lir_for(F, tq, lir_i64(F, 0), lir_i64(F, nq), LIR_FOR_SERIAL, lir_seq(F, 1, one));
}

/* A store nest: perfect loops down to a store into a DRAM parameter. */
static bool is_store_nest(const lir_stmt *s) {
  while (s && s->kind == LIR_S_FOR) s = s->body;
  return s && s->kind == LIR_S_STORE && s->buf->is_param;
}

/* ---------------------------------------------------------------- reduction */

/* Do two affine forms denote the same value (same constant, same coefficient for every variable)? */
static bool affine_same(const lir_affine *a, const lir_affine *b) {
  if (!a->ok || !b->ok || a->c != b->c) return false;
  lir_affine d = *a;
  for (int i = 0; i < b->n; i++) lir_affine_add(&d, b->v[i], -b->k[i]);
  if (!d.ok) return false;
  for (int i = 0; i < d.n; i++)
    if (d.k[i]) return false;
  return true;
}

/* The padded-cache load that is a factor of the product P (`i32(L) * X` in either order), else NULL;
 * *pi gets its pad record. */
static const lir_expr *padded_factor(dctx *c, const lir_expr *P, int *pi) {
  if (P->kind != LIR_E_BIN || P->op != LIR_MUL) return NULL;
  for (int k = 0; k < 2; k++) {
    const lir_expr *l = P->args[k];
    if (l->kind == LIR_E_CAST) l = l->args[0];
    if (l->kind != LIR_E_LOAD) continue;
    for (int i = 0; i < c->npad; i++)
      if (c->pad[i].sram == l->buf) return *pi = i, l;
  }
  return NULL;
}

/* Is every conjunct of cond a bound test of the DRAM position the load L of padded cache i reads
 * (`A >= lo` or `A < hi + 1` of the row or the column, A equal to the cache's origin plus L's
 * index as affine forms)? Then cond is false only where L reads the halo, which the DMA filled
 * with zeros. */
static bool tests_halo(dctx *c, const lir_expr *cond, const lir_expr *L, int i) {
  if (cond->kind != LIR_E_BIN) return false;
  if (cond->op == LIR_AND) return tests_halo(c, cond->args[0], L, i) && tests_halo(c, cond->args[1], L, i);
  if ((cond->op != LIR_GE && cond->op != LIR_LT) || cond->args[1]->kind != LIR_E_INT) return false;
  lir_affine a = lir_affine_of(cond->args[0]);
  for (int d = 0; d < 2; d++) {
    int64_t bound = cond->op == LIR_GE ? c->pad[i].lo[d] : c->pad[i].hi[d] + 1;
    if (cond->args[1]->ival != bound) continue;
    lir_affine pos = c->pad[i].at[d], idx = lir_affine_of(L->args[c->pad[i].sdim[d]]);
    if (!idx.ok) continue;
    for (int t = 0; t < idx.n; t++) lir_affine_add(&pos, idx.v[t], idx.k[t]);
    pos.c += idx.c;
    if (affine_same(&a, &pos)) return true;
  }
  return false;
}

/* Rule (reduction): `select(cond, P, 0)` becomes P when P is a product with a factor L loaded from
 * a zero-padded cache and cond only tests that L's DRAM position lies inside the image (tests_halo):
 * where cond fails, L is DMA padding, so P is 0 as well. Reads of a compacted cache divide the
 * compacted index. */
static lir_expr *rw_expr(dctx *c, lir_expr *e) {
  switch (e->kind) {
  case LIR_E_SELECT:
    if (e->args[2]->kind == LIR_E_INT && e->args[2]->ival == 0) {
      int pi;
      const lir_expr *L = padded_factor(c, e->args[1], &pi);
      if (L && tests_halo(c, e->args[0], L, pi)) return rw_expr(c, e->args[1]);
    }
    break;
  case LIR_E_LOAD: {
    lir_expr *idx[LIR_MAX_DIMS];
    bool ch = false;
    for (int i = 0; i < e->nargs; i++) {
      idx[i] = rw_expr(c, e->args[i]);
      for (int k = 0; k < c->ncomp; k++)
        if (c->comp[k].sram == e->buf && c->comp[k].dim == i) idx[i] = compact_index(c, idx[i], c->comp[k].g, e->buf);
      ch = ch || idx[i] != e->args[i];
    }
    return ch ? lir_load(F, e->buf, idx) : e;
  }
  default:
    break;
  }
  if (e->kind == LIR_E_INT || e->kind == LIR_E_FLOAT || e->kind == LIR_E_VAR || e->kind == LIR_E_CALL) return e;
  lir_expr *a[3];
  bool ch = false;
  for (int i = 0; i < e->nargs; i++) a[i] = rw_expr(c, e->args[i]), ch = ch || a[i] != e->args[i];
  if (!ch) return e;
  switch (e->kind) {
  case LIR_E_BIN: return lir_bin(F, e->op, a[0], a[1]);
  case LIR_E_UN: return lir_un(F, e->op, a[0]);
  case LIR_E_CAST: return lir_cast(F, e->dtype, a[0]);
  case LIR_E_SELECT: return lir_select(F, a[0], a[1], a[2]);
  default: return e;
  }
}

/* ---------------------------------------------------------------- walk */

static lir_stmt *rw_stmt(dctx *c, lir_stmt *s) {
  if (!s || c->rc) return s;
  switch (s->kind) {
  case LIR_S_SEQ: {
    /* nested sequences left by the primitives are spliced (empty ones vanish, one statement is
     * itself); a lowered store nest (requantization + store) stays one SEQ statement */
    lir_block b;
    lir_block_init(&b, F);
    for (int i = 0; i < s->n; i++) {
      lir_stmt *r = rw_stmt(c, s->stmts[i]);
      if (s->stmts[i]->kind == LIR_S_SEQ && r->kind == LIR_S_SEQ)
        for (int k = 0; k < r->n; k++) lir_block_add(&b, r->stmts[k]);
      else
        lir_block_add(&b, r);
    }
    return b.n == 1 ? b.s[0] : lir_seq(F, b.n, b.s);
  }
  case LIR_S_FOR: {
    if (is_store_nest(s)) return lower_store(c, s);
    const lir_stmt *in = s;
    while (in && in->kind == LIR_S_FOR) in = in->body;
    bool head = c->nl == 0 || c->loops[c->nl - 1]->body != s; /* not the inner part of a nest */
    if (head && in && in->kind == LIR_S_STORE && in->buf->scope == LIR_SCOPE_ACC) {
      if (c->nacc == DMA_CACHES) memmove(c->acc_nest, c->acc_nest + 1, sizeof c->acc_nest[0] * --c->nacc);
      c->acc_nest[c->nacc++] = s;
      lir_stmt *ch = c->p->epi_chunks ? chunk_init(c, (lir_stmt *)s) : NULL;
      if (ch) return ch;
    }
    if (c->nl == DMA_LOOPS) {
      fail(c, OVTA_EUNSUPPORTED, "inject-dma: loop %s nested too deep", s->var->name);
      return s;
    }
    c->loops[c->nl++] = s;
    lir_stmt *b = rw_stmt(c, s->body);
    c->nl--;
    return lir_with_body(F, s, b, NULL);
  }
  case LIR_S_ATTR:
    if (!strcmp(s->key, "cache_read")) return lower_cache_read(c, s);
    if (!strcmp(s->key, "cache_write")) {
      fail(c, OVTA_EUNSUPPORTED, "inject-dma: %s: cache_write copies are not lowered", "attr");
      return s;
    }
    return lir_with_body(F, s, rw_stmt(c, s->body), NULL);
  case LIR_S_ALLOC: case LIR_S_LET:
    return lir_with_body(F, s, rw_stmt(c, s->body), NULL);
  case LIR_S_IF: {
    lir_stmt *b = rw_stmt(c, s->body), *e = rw_stmt(c, s->else_body);
    return lir_with_body(F, s, b, e);
  }
  case LIR_S_STORE: {
    lir_expr *v = rw_expr(c, s->value);
    lir_expr *idx[LIR_MAX_DIMS];
    bool ch = v != s->value;
    for (int i = 0; i < s->nidx; i++) idx[i] = rw_expr(c, s->idx[i]), ch = ch || idx[i] != s->idx[i];
    if (!ch) return s;
    return lir_store(F, s->buf, idx, v);
  }
  case LIR_S_EVAL:
    return s;
  }
  return s;
}

/* Nothing of the copies is left: no select (a padding guard that no DMA padding covers), no DRAM
 * access but the DMA calls, no cache attribute. */
static bool left_select(const lir_expr *e) {
  if (e->kind == LIR_E_SELECT) return true; /* a guard no DMA padding covers */
  if (e->kind == LIR_E_LOAD && e->buf->is_param) return true;
  for (int i = 0; i < e->nargs; i++)
    if (left_select(e->args[i])) return true;
  return false;
}

static bool left_in_store(const lir_stmt *s) {
  if (s->buf->is_param || left_select(s->value)) return true;
  for (int i = 0; i < s->nidx; i++)
    if (left_select(s->idx[i])) return true;
  return false;
}

static const lir_stmt *check_left(const lir_stmt *s) {
  if (!s) return NULL;
  const lir_stmt *r = NULL;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n && !r; i++) r = check_left(s->stmts[i]);
    return r;
  case LIR_S_STORE: return left_in_store(s) ? s : NULL;
  case LIR_S_IF:
    r = check_left(s->body);
    return r ? r : check_left(s->else_body);
  case LIR_S_ATTR:
    if (!strcmp(s->key, "cache_read") || !strcmp(s->key, "cache_write")) return s;
    return check_left(s->body);
  case LIR_S_FOR: case LIR_S_LET: case LIR_S_ALLOC:
    return check_left(s->body);
  default:
    return NULL;
  }
}

/* The pass (rules above each part): every copy nest and the store nest of the schedule stage become
 * DMA; refused (naming the buffer) when a copy is not a 2D-strided transfer of whole DMA elements or
 * a padding select is left that no DMA padding covers. */
int vta_pass_inject_dma(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  dctx cc = {.f = f, .p = p, .err = err}, *c = &cc;
  lir_stmt *b = rw_stmt(c, f->body);
  if (c->rc) return c->rc;
  const lir_stmt *left = check_left(b);
  if (left)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED,
                     "inject-dma: %s %s in %s: not a copy nest of the schedule (DRAM access or padding select left)",
                     left->kind == LIR_S_STORE ? "store to" : "attr", left->kind == LIR_S_STORE ? left->buf->name : left->key,
                     f->name);
  f->body = b;
  return OVTA_OK;
}
