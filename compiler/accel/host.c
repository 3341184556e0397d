/* host.c: the host pass (compiler/accel/README.md "Passes", 8): the accelerator intrinsics of the
 * insert-deps IR become calls into the runtime shims (ovta_vrt_*, compiler/accel/run.c), DRAM buffer
 * references become (handle, flat element offset), micro-op recording scopes become `if
 * (kernel_begin(key) != 0)`. What is left is host loops, ifs, attributes and runtime calls. */

#include <string.h>

#include "accel_internal.h"

typedef struct hctx {
  lir_func *f;
  ovta_error *err;
  int rc;
  lir_buf *bufs[VTA_BUF_COUNT]; /* the DRAM parameter of each handle (bias: NULL without one) */
} hctx;

/* Intrinsic -> runtime shim. */
static const struct { const char *from, *to; } shims[] = {
    {"ovta.dma_load", "ovta_vrt_load"},       {"ovta.dma_store", "ovta_vrt_store"},
    {"ovta.dep_push", "ovta_vrt_dep_push"},   {"ovta.dep_pop", "ovta_vrt_dep_pop"},
    {"ovta.uop_loop_begin", "ovta_vrt_loop_begin"}, {"ovta.uop_loop_end", "ovta_vrt_loop_end"},
    {"ovta.uop", "ovta_vrt_uop"},             {"ovta.gemm", "ovta_vrt_gemm"},
    {"ovta.alu", "ovta_vrt_alu"},             {"ovta.kernel_end", "ovta_vrt_kernel_end"}};

static int refuse(hctx *c, const char *what, const char *why) {
  return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "host: %s: %s: %s", c->f->name, what, why);
}

/* An argument the host computes: integer arithmetic of loop variables and constants (no buffer
 * access, no call). */
static bool host_expr(const lir_expr *e) {
  if (e->kind == LIR_E_LOAD || e->kind == LIR_E_CALL || e->kind == LIR_E_FLOAT) return false;
  for (int i = 0; i < e->nargs; i++)
    if (!host_expr(e->args[i])) return false;
  return true;
}

/* DRAM reference `buf[i0, .., ik, 0, 0]` (a parameter; the last two dims are the BATCH x BLOCK
 * element) -> its handle and the flat element offset ((i0 * s1 + i1) * s2 + ..). */
static bool dram_ref(hctx *c, const char *callee, const lir_expr *r, lir_expr **handle, lir_expr **off) {
  if (r->kind != LIR_E_LOAD) return refuse(c, callee, "the DRAM operand is not a buffer reference"), false;
  int h = -1;
  for (int i = 0; i < VTA_BUF_COUNT; i++)
    if (c->bufs[i] && c->bufs[i] == r->buf) h = i;
  if (h < 0) {
    char why[160];
    snprintf(why, sizeof why, "%s is not a DRAM parameter of the operator", r->buf->name);
    return refuse(c, callee, why), false;
  }
  int n = r->buf->ndim - 2;
  if (n < 1 || r->nargs != r->buf->ndim) return refuse(c, callee, "a DRAM reference without element dims"), false;
  for (int i = n; i < r->nargs; i++)
    if (r->args[i]->kind != LIR_E_INT || r->args[i]->ival != 0) {
      char why[160];
      snprintf(why, sizeof why, "the reference into %s does not start at a DMA element (index %d is not 0)", r->buf->name, i);
      return refuse(c, callee, why), false;
    }
  lir_expr *v = lir_i64(c->f, 0);
  for (int i = 0; i < n; i++) {
    if (!host_expr(r->args[i])) return refuse(c, callee, "a DRAM index the host cannot compute"), false;
    v = lir_add(c->f, lir_muli(c->f, v, r->buf->shape[i]), r->args[i]);
  }
  *handle = lir_i64(c->f, h);
  *off = v;
  return true;
}

/* One intrinsic call -> its runtime call (NULL: refused). */
static lir_expr *host_call(hctx *c, const lir_expr *e) {
  if (e->kind != LIR_E_CALL || e->op != LIR_OPAQUE || !e->callee)
    return refuse(c, "an evaluated expression", "not an accelerator intrinsic"), NULL;
  const char *to = NULL;
  for (size_t i = 0; i < sizeof shims / sizeof shims[0] && !to; i++)
    if (!strcmp(e->callee, shims[i].from)) to = shims[i].to;
  if (!to) return refuse(c, e->callee, "no runtime call for this intrinsic"), NULL;
  bool load = !strcmp(to, "ovta_vrt_load"), store = !strcmp(to, "ovta_vrt_store");
  int dram = load ? 2 : store ? 1 : -1; /* the DRAM operand: after (type,) sram */
  lir_expr *args[LIR_RUNTIME_MAX_ARGS];
  int n = 0;
  if (e->nargs + (dram >= 0) > LIR_RUNTIME_MAX_ARGS) return refuse(c, e->callee, "too many arguments"), NULL;
  for (int i = 0; i < e->nargs; i++) {
    if (i == dram) {
      if (!dram_ref(c, e->callee, e->args[i], &args[n], &args[n + 1])) return NULL;
      n += 2;
      continue;
    }
    if (!host_expr(e->args[i])) return refuse(c, e->callee, "an argument that is not host integer arithmetic"), NULL;
    args[n++] = e->args[i];
  }
  if (dram >= e->nargs) return refuse(c, e->callee, "no DRAM operand"), NULL;
  return lir_opaque(c->f, to, LIR_I32, n, args);
}

/* Rewrite s (copy on write: an unchanged statement is returned as it is; NULL: refused). */
static lir_stmt *host_stmt(hctx *c, lir_stmt *s) {
  lir_func *f = c->f;
  if (!s) return NULL;
  switch (s->kind) {
  case LIR_S_SEQ: {
    lir_stmt **v = lir_alloc(f, sizeof(lir_stmt *) * (size_t)(s->n ? s->n : 1));
    if (!v) return refuse(c, "a sequence", "out of memory"), NULL;
    for (int i = 0; i < s->n; i++)
      if (!(v[i] = host_stmt(c, s->stmts[i]))) return NULL;
    return lir_seq(f, s->n, v);
  }
  case LIR_S_FOR: {
    if (!host_expr(s->min) || !host_expr(s->extent)) return refuse(c, s->var->name, "loop bounds the host cannot compute"), NULL;
    lir_stmt *b = host_stmt(c, s->body);
    return b ? lir_for(f, s->var, s->min, s->extent, s->for_kind, b) : NULL;
  }
  case LIR_S_IF: {
    if (!host_expr(s->value)) return refuse(c, "an if", "a condition the host cannot compute"), NULL;
    lir_stmt *t = host_stmt(c, s->body), *e = NULL;
    if (!t || (s->else_body && !(e = host_stmt(c, s->else_body)))) return NULL;
    return lir_if(f, s->value, t, e);
  }
  case LIR_S_ATTR: {
    if (!strcmp(s->key, "uop_kernel")) { /* record the micro-ops when the runtime asks for them */
      if (!host_expr(s->value)) return refuse(c, "attr uop_kernel", "a key the host cannot compute"), NULL;
      lir_stmt *b = host_stmt(c, s->body);
      if (!b) return NULL;
      lir_expr *key = s->value;
      lir_expr *kb = lir_opaque(f, "ovta_vrt_kernel_begin", LIR_I32, 1, &key);
      return lir_if(f, lir_bin(f, LIR_NE, kb, lir_int(f, LIR_I32, 0)), b, NULL);
    }
    if (strcmp(s->key, "vthreads") && strcmp(s->key, "virtual_thread")) {
      char what[96];
      snprintf(what, sizeof what, "attr %s", s->key);
      return refuse(c, what, "an attribute the host code does not keep"), NULL;
    }
    lir_stmt *b = host_stmt(c, s->body);
    return b ? lir_attr(f, s->key, s->value, b) : NULL;
  }
  case LIR_S_EVAL: {
    lir_expr *e = host_call(c, s->value);
    return e ? lir_eval(f, e) : NULL;
  }
  case LIR_S_STORE:
    return refuse(c, s->buf->name, "a buffer store left in the host code"), NULL;
  case LIR_S_ALLOC:
    return refuse(c, s->buf->name, "an SRAM allocation left in the host code"), NULL;
  case LIR_S_LET:
    return refuse(c, s->var->name, "a let in the host code"), NULL;
  }
  return refuse(c, "a statement", "unknown kind"), NULL;
}

/* Rule. Matches the insert-deps IR: host loops, ifs, `attr vthreads` / `virtual_thread`, `attr
 * uop_kernel = KEY { micro-op recording }` and evaluated intrinsics ovta.dma_load, dma_store,
 * dep_push/pop, uop_loop_begin/end, uop, gemm, alu, kernel_end whose operands are host integer
 * arithmetic, the DRAM operand of a DMA a reference `P[i.., 0, 0]` into a parameter. The
 * parameters are x, w, [bias,] y [, r, ident] (handles VTA_BUF_X, W, BIAS, Y [, R, ID: a fused residual add's
 * other operand and identity block, int8]: x and w first, y last but for those, the int32
 * bias - 3-dim, or [2][O/BO][B][BO] for per-channel shifts loaded per tile - or the ALU operators'
 * int8 identity block between them when the op has one; x, w, y int8, at least one dim before the
 * element's two). Produces the runtime calls ovta_vrt_load (type,
 * sram, handle, flat offset, ..), ovta_vrt_store (sram, handle, offset, ..), ovta_vrt_dep_push/pop,
 * loop_begin/end, uop, gemm, alu, kernel_end, and `if (ovta_vrt_kernel_begin(KEY) != 0) { .. }` for
 * the recording scope. Refuses, naming it, any other statement (buffer stores, allocations, lets,
 * other attributes), an unknown intrinsic, a DRAM operand that is not a parameter reference at a
 * DMA element, an argument with a buffer access. */
int vta_pass_host(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  hctx c = {.f = f, .err = err};
  int np = f->nparams, nr = p->op.res ? 2 : 0; /* a fused add: r and ident after y */
  if (np - nr != 3 && np - nr != 4)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "host: %s: %d parameters, not x, w, [bias,] y%s", f->name, np,
                     nr ? ", r, ident" : "");
  c.bufs[VTA_BUF_X] = f->params[0];
  c.bufs[VTA_BUF_W] = f->params[1];
  c.bufs[VTA_BUF_Y] = f->params[np - 1 - nr];
  if (np - nr == 4) c.bufs[VTA_BUF_BIAS] = f->params[2];
  if (nr) c.bufs[VTA_BUF_R] = f->params[np - 2], c.bufs[VTA_BUF_ID] = f->params[np - 1];
  for (int i = 0; i < VTA_BUF_COUNT; i++) {
    const lir_buf *b = c.bufs[i];
    if (!b) continue;
    bool ok = b->scope == LIR_SCOPE_GLOBAL && b->ndim >= 3 &&
              (i == VTA_BUF_BIAS ? (b->dtype == LIR_I32 && (b->ndim == 3 || b->ndim == 4)) || b->dtype == LIR_I8 : b->dtype == LIR_I8);
    if (!ok)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "host: %s: parameter %s is not the %s operand of the DRAM layout", f->name,
                       b->name, i == VTA_BUF_X ? "x" : i == VTA_BUF_W ? "w" : i == VTA_BUF_BIAS ? "bias" : i == VTA_BUF_Y ? "y"
                       : i == VTA_BUF_R ? "r" : "ident");
  }
  lir_stmt *b = host_stmt(&c, f->body);
  if (!b) return c.rc ? c.rc : OVTA_FAIL(err, OVTA_EUNSUPPORTED, "host: %s: empty function", f->name);
  f->body = b;
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "host: %s: out of memory", f->name) : OVTA_OK;
}
