/* tensorize.c: the tensorize pass (compiler/accel/README.md "Passes", 4): the GEMM reduction's
 * innermost BATCH x BLOCK_OUT x BLOCK_IN loops and their multiply-accumulate become the GEMM
 * intrinsic `@ovta.gemm(acc, inp, wgt)`, an IR-to-IR rewrite of the inject-dma stage. */
#include "accel_internal.h"

#include <string.h>

/* ---------------------------------------------------------------- matching helpers */

/* i32(load) of an 8-bit buffer: the load, else NULL. */
static lir_expr *widened_load(lir_expr *e) {
  if (e->kind != LIR_E_CAST || e->dtype != LIR_I32) return NULL;
  lir_expr *l = e->args[0];
  return l->kind == LIR_E_LOAD && (l->dtype == LIR_I8 || l->dtype == LIR_U8) && l->buf->ndim >= 2 ? l : NULL;
}

/* A multiply-accumulate `acc[I] = acc[I] + i32(a[..]) * i32(b[..])` (either operand order of the
 * sum and of the product): the two operand loads, else false. */
static bool is_mac(const lir_stmt *s, lir_expr **x, lir_expr **y) {
  if (s->kind != LIR_S_STORE || s->value->kind != LIR_E_BIN || s->value->op != LIR_ADD) return false;
  for (int k = 0; k < 2; k++) {
    lir_expr *prod = s->value->args[1 - k];
    if (!lir_loads_stored(s, s->value->args[k]) || prod->kind != LIR_E_BIN || prod->op != LIR_MUL) continue;
    *x = widened_load(prod->args[0]), *y = widened_load(prod->args[1]);
    if (*x && *y) return true;
  }
  return false;
}

/* ---------------------------------------------------------------- the pass */

typedef struct tz {
  lir_func *f;
  const vta_plan *p;
  int found;            /* GEMMs made */
  ovta_error *err;
  lir_walk *w;          /* the walk: the enclosing statements of the one being visited */
} tz;

/* The multiply-accumulate s (the statement being visited) as one GEMM block, or an error naming what is wrong. */
static int tensorize_mac(tz *t, lir_stmt *s, lir_expr *x, lir_expr *y) {
  const ovta_config *cfg = &t->p->cfg;
  const char *an = s->buf->name;
  lir_expr *inp = x->buf->scope == LIR_SCOPE_INP ? x : y, *wgt = inp == x ? y : x;
  if (s->buf->scope != LIR_SCOPE_ACC || s->buf->dtype != LIR_I32 || s->nidx < 2)
    return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED, "tensorize: reduction into %s: not an i32 buffer of the ACC scope", an);
  if (inp->buf->scope != LIR_SCOPE_INP || wgt->buf->scope != LIR_SCOPE_WGT)
    return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED,
                     "tensorize: reduction into %s: the operands %s, %s are not one INP and one WGT buffer", an,
                     x->buf->name, y->buf->name);
  int na = s->nidx, ni = inp->nargs, nw = wgt->nargs;
  lir_var *b = lir_var_of(s->idx[na - 2]), *o = lir_var_of(s->idx[na - 1]), *i = lir_var_of(inp->args[ni - 1]);
  /* acc[.., b, o] += inp[.., b, i] * wgt[.., o, i]: 1 x BLOCK_IN times BLOCK_IN x BLOCK_OUT, BATCH rows */
  if (!b || !o || !i || b == o || i == b || i == o || lir_var_of(inp->args[ni - 2]) != b || lir_var_of(wgt->args[nw - 2]) != o ||
      lir_var_of(wgt->args[nw - 1]) != i)
    return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED,
                     "tensorize: reduction into %s: the last two indices are not %s[.., b, o] += %s[.., b, i] * "
                     "%s[.., o, i] over three loop variables",
                     an, an, inp->buf->name, wgt->buf->name);
  const lir_buf *bb[3] = {s->buf, inp->buf, wgt->buf};
  const int64_t want[3][2] = {{cfg->batch, cfg->block_out}, {cfg->batch, cfg->block_in}, {cfg->block_out, cfg->block_in}};
  for (int k = 0; k < 3; k++)
    if (bb[k]->shape[bb[k]->ndim - 2] != want[k][0] || bb[k]->shape[bb[k]->ndim - 1] != want[k][1])
      return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED, "tensorize: reduction into %s: %s's last two dims are not %lld x %lld",
                       an, bb[k]->name, (long long)want[k][0], (long long)want[k][1]);
  lir_var *vs[3] = {b, o, i};
  for (int k = 0; k < 3; k++)
    if (vta_lead_uses(na, s->idx, vs[k]) || vta_lead_uses(ni, inp->args, vs[k]) || vta_lead_uses(nw, wgt->args, vs[k]))
      return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED,
                       "tensorize: reduction into %s: a leading index depends on the block's loop variables", an);
  /* the three innermost loops, perfectly nested around the statement, bind b, o, i */
  const int64_t ext[3] = {cfg->batch, cfg->block_out, cfg->block_in};
  const char *const what[3] = {"BATCH", "BLOCK_OUT", "BLOCK_IN"};
  lir_stmt *inner = s;
  for (int k = 0; k < 3; k++) {
    int a = t->w->depth - 1 - k;
    lir_stmt *L = a >= 0 ? t->w->anc[a] : NULL;
    if (!L || L->kind != LIR_S_FOR || L->body != inner)
      return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED,
                       "tensorize: reduction into %s: not the body of three perfectly nested loops over b, o, i", an);
    int r = L->var == b ? 0 : L->var == o ? 1 : L->var == i ? 2 : -1;
    if (r < 0)
      return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED,
                       "tensorize: reduction into %s: loop %s is inside the block (only %s, %s, %s may be)", an,
                       L->var->name, b->name, o->name, i->name);
    if (L->min->kind != LIR_E_INT || L->min->ival != 0 || L->extent->kind != LIR_E_INT || L->extent->ival != ext[r])
      return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED, "tensorize: reduction into %s: loop %s is not 0..%lld (%s)", an,
                       L->var->name, (long long)ext[r], what[r]);
    inner = L;
  }
  lir_func *f = t->f;
  lir_expr *args[3] = {vta_block_ref(f, s->buf, na, s->idx), vta_block_ref(f, inp->buf, ni, inp->args),
                       vta_block_ref(f, wgt->buf, nw, wgt->args)};
  *t->w->slot[t->w->depth - 3] = lir_eval(f, lir_opaque(f, "ovta.gemm", LIR_I32, 3, args));
  t->found++;
  return OVTA_OK;
}

/* The first INP- or WGT-scope buffer e reads, else NULL. */
static const lir_buf *reads_operand(const lir_expr *e) {
  if (!e) return NULL;
  if (e->kind == LIR_E_LOAD && (e->buf->scope == LIR_SCOPE_INP || e->buf->scope == LIR_SCOPE_WGT)) return e->buf;
  for (int i = 0; i < e->nargs; i++) {
    const lir_buf *b = reads_operand(e->args[i]);
    if (b) return b;
  }
  return NULL;
}

static int tz_visit(lir_walk *w, lir_stmt **slot) {
  tz *t = w->ctx;
  lir_stmt *s = *slot;
  lir_expr *x, *y;
  const lir_buf *rd;
  if (s->kind != LIR_S_STORE) return OVTA_OK;
  if (is_mac(s, &x, &y)) return tensorize_mac(t, s, x, y);
  if (s->buf->scope == LIR_SCOPE_ACC && (rd = reads_operand(s->value)))
    return OVTA_FAIL(t->err, OVTA_EUNSUPPORTED,
                     "tensorize: the store into %s reads %s but is not a multiply-accumulate %s = %s + i32(inp) * "
                     "i32(wgt)",
                     s->buf->name, rd->name, s->buf->name, s->buf->name);
  return OVTA_OK;
}

/* ---------------------------------------------------------------- GEMM reset */

/* The ACC buffer of the GEMM a perfect nest runs (NULL: not such a nest). */
static const lir_buf *gemm_nest(const lir_stmt *s) {
  while (s && s->kind == LIR_S_FOR) s = s->body;
  if (!s || s->kind != LIR_S_EVAL || s->value->kind != LIR_E_CALL || !s->value->callee ||
      strcmp(s->value->callee, "ovta.gemm") || s->value->nargs != 3 || s->value->args[0]->kind != LIR_E_LOAD)
    return NULL;
  return s->value->args[0]->buf;
}

/* An init nest `for L.., b, o: A[.., b, o] = c` (c constant; b, o the two innermost loops from 0
 * over BATCH x BLOCK_OUT, indexing only A's last two dims): its store, else NULL. */
static const lir_stmt *init_nest(const ovta_config *cfg, const lir_stmt *s, int64_t *c) {
  const lir_stmt *L[2] = {NULL, NULL};
  while (s && s->kind == LIR_S_FOR) L[0] = L[1], L[1] = s, s = s->body;
  if (!s || s->kind != LIR_S_STORE || s->buf->scope != LIR_SCOPE_ACC || s->value->kind != LIR_E_INT || !L[0] ||
      s->nidx < 2 || L[0]->body != L[1])
    return NULL;
  int n = s->nidx;
  lir_var *b = lir_var_of(s->idx[n - 2]), *o = lir_var_of(s->idx[n - 1]);
  if (!b || !o || L[0]->var != b || L[1]->var != o || s->buf->shape[n - 2] != cfg->batch || s->buf->shape[n - 1] != cfg->block_out ||
      vta_lead_uses(n, s->idx, b) || vta_lead_uses(n, s->idx, o))
    return NULL;
  for (int k = 0; k < 2; k++)
    if (L[k]->min->kind != LIR_E_INT || L[k]->min->ival != 0 || L[k]->extent->kind != LIR_E_INT ||
        L[k]->extent->ival != (k ? cfg->block_out : cfg->batch))
      return NULL;
  *c = s->value->ival;
  return s;
}

/* The nest s with its two innermost loops (b, o) replaced by `@ovta.gemm_reset(A[.., 0, 0])`. */
static lir_stmt *reset_nest(lir_func *f, lir_stmt *s, const lir_stmt *st) {
  if (s->body->kind != LIR_S_FOR || s->body->body->kind != LIR_S_FOR) { /* s is the b loop */
    lir_expr *ref = vta_block_ref(f, st->buf, st->nidx, st->idx);
    return lir_eval(f, lir_opaque(f, "ovta.gemm_reset", LIR_I32, 1, &ref));
  }
  return lir_for(f, s->var, s->min, s->extent, s->for_kind, reset_nest(f, s->body, st));
}

/* Rule (reset): in a sequence, the init nests storing 0 into an ACC buffer, in the run of init
 * nests right before a GEMM nest into that buffer, become `for L..: @ovta.gemm_reset(A[.., 0,
 * 0])` (VTA's GEMM reset zeroes the micro-ops' destinations: the region the GEMM then accumulates
 * into; the ALU operators' copy into the ACC through the identity block). Other inits stay for
 * inject-alu (a conv tile's init is followed by its reduction-step loop, not a GEMM nest). */
static void gemm_resets(tz *t, lir_stmt *s) {
  if (!s) return;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) {
      gemm_resets(t, s->stmts[i]);
      const lir_buf *g = gemm_nest(s->stmts[i]);
      for (int j = i - 1; g && j >= 0; j--) {
        int64_t c;
        const lir_stmt *st = init_nest(&t->p->cfg, s->stmts[j], &c);
        if (!st) break;
        if (st->buf == g && c == 0) s->stmts[j] = reset_nest(t->f, s->stmts[j], st);
      }
    }
    return;
  case LIR_S_IF:
    gemm_resets(t, s->body);
    gemm_resets(t, s->else_body);
    return;
  case LIR_S_FOR: case LIR_S_ATTR: case LIR_S_ALLOC: case LIR_S_LET:
    gemm_resets(t, s->body);
    return;
  default:
    return;
  }
}

/* tensorize. Matches every multiply-accumulate `acc[.., b, o] = acc[.., b, o] + i32(inp[.., b, i])
 * * i32(wgt[.., o, i])` (acc an i32 ACC buffer, inp INP, wgt WGT; sum and product in either
 * order). It must be the body of three perfectly nested loops (in any order) binding b, o, i, from
 * 0 over BATCH, BLOCK_OUT and BLOCK_IN of the config; the buffers' last two dims must be those
 * extents; b, o, i must index exactly the last two dims (the leading indices do not use them).
 * Produces, in place of the three loops, `eval @ovta.gemm(acc[.., 0, 0], inp[.., 0, 0],
 * wgt[.., 0, 0])` (leading indices kept): the GEMM intrinsic's 1 x BLOCK_IN times BLOCK_IN x
 * BLOCK_OUT product on BATCH rows. Then the zero inits right before a GEMM nest into their buffer
 * become GEMM resets (rule above gemm_resets). Everything else is left as it is (the loop variables
 * of the three loops disappear with them). Refuses, naming the ACC buffer (and loop), a multiply-
 * accumulate of another form, any other store into an ACC buffer reading an INP or WGT buffer
 * (e.g. a product under a padding select), and a function with no multiply-accumulate. */
int vta_pass_tensorize(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  tz t = {.f = f, .p = p, .err = err};
  lir_walk w = {.visit = tz_visit, .ctx = &t, .what = "tensorize", .err = err};
  t.w = &w;
  int rc = lir_walk_stmt(&w, &f->body);
  if (rc) return rc;
  if (!t.found)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tensorize: no multiply-accumulate into an ACC buffer in %s", f->name);
  gemm_resets(&t, f->body);
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "tensorize: out of memory") : OVTA_OK;
}
