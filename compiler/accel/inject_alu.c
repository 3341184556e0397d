/* inject_alu.c: the inject-alu pass (compiler/accel/README.md "Passes", 5): the scalar
 * elementwise nests left on the ACC after tensorize - the accumulator's initial value and the
 * requantization after the GEMMs - become ALU intrinsics over BATCH x BLOCK_OUT elements
 * (`@ovta.alu_mov`, `alu_shr`, `alu_clp`, `alu_max`, `alu_min`), an IR-to-IR rewrite of the
 * tensorize stage. */
#include "accel_internal.h"

/* ---------------------------------------------------------------- matching helpers */

static bool is_int(const lir_expr *e, int64_t *v) {
  if (!e || e->kind != LIR_E_INT || !lir_dtype_is_int(e->dtype)) return false;
  *v = e->ival;
  return true;
}

/* ---------------------------------------------------------------- the pass */

typedef struct az {
  lir_func *f;
  const vta_plan *p;
  ovta_error *err;
  int inits, requants;  /* nests rewritten */
  lir_walk *w;          /* the walk: the enclosing statements of the one being visited */
  lir_block out;        /* the ALU calls replacing the nest being rewritten */
  const lir_stmt *st;   /* its store: the calls' ACC operand is st->buf[.., 0, 0] */
} az;

/* One ALU call on the block with an immediate (i32). CLP takes its two bounds. */
static void alu_imm(az *a, int op, int64_t imm, int64_t imm2) {
  bool clp = op == OVTA_ALU_CLP;
  lir_expr *args[3] = {vta_block_ref(a->f, a->st->buf, a->st->nidx, a->st->idx), lir_int(a->f, LIR_I32, imm),
                       clp ? lir_int(a->f, LIR_I32, imm2) : NULL};
  lir_block_add(&a->out, lir_eval(a->f, lir_opaque(a->f, vta_alu_intrin[op], LIR_I32, clp ? 3 : 2, args)));
}

static bool imm16(int64_t v) { return v >= -32768 && v <= 32767; }

/* The initial value c as ALU immediates: MOV c when it fits 16 bits, else (the rounding constant
 * 2^k of a shift 16..31) MOV 1 then SHR -k (a left shift). */
static int init_const(az *a, const lir_stmt *s, int64_t c) {
  if (imm16(c)) {
    alu_imm(a, OVTA_ALU_MOV, c, 0);
    return OVTA_OK;
  }
  for (int k = 15; k <= 30; k++)
    if (c == (int64_t)1 << k) {
      alu_imm(a, OVTA_ALU_MOV, 1, 0);
      alu_imm(a, OVTA_ALU_SHR, -k, 0);
      return OVTA_OK;
    }
  return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED,
                   "inject-alu: the initial value %lld of %s fits neither a 16-bit immediate nor MOV 1, SHR", (long long)c,
                   s->buf->name);
}

/* The requantization `min(max(X, lo), hi)` of the stored element as SHR (X a shifted load of it)
 * then CLP (both bounds int8) or MAX lo, MIN hi. X: the element (no SHR), `elem >> k` (SHR k; k 31
 * is the saturated form of every shift >= 31: the op's shift when it is one, as the emitter
 * writes it), `elem << k` (SHR -k), the constant 0 (everything shifted out: SHR by the op's shift
 * when it is <= -32, else -32). Returns 1 when v is not of this form. */
static int requant(az *a, const lir_stmt *s, const lir_expr *v) {
  int64_t lo, hi, k;
  if (v->kind != LIR_E_BIN || v->op != LIR_MIN || !is_int(v->args[1], &hi)) return 1;
  const lir_expr *m = v->args[0];
  if (m->kind != LIR_E_BIN || m->op != LIR_MAX || !is_int(m->args[1], &lo)) return 1;
  const lir_expr *x = m->args[0];
  int shift = a->p->op.shift;
  if (lir_loads_stored(s, x)) {
    /* no shift */
  } else if (x->kind == LIR_E_BIN && x->op == LIR_SHR && lir_loads_stored(s, x->args[0]) && is_int(x->args[1], &k) && k >= 0 &&
             k <= 31) {
    alu_imm(a, OVTA_ALU_SHR, k == 31 && shift >= 31 ? shift : k, 0);
  } else if (x->kind == LIR_E_BIN && x->op == LIR_SHL && lir_loads_stored(s, x->args[0]) && is_int(x->args[1], &k) && k >= 1 &&
             k <= 31) {
    alu_imm(a, OVTA_ALU_SHR, -k, 0);
  } else if (is_int(x, &k) && k == 0) {
    alu_imm(a, OVTA_ALU_SHR, shift <= -32 ? shift : -32, 0);
  } else {
    return 1;
  }
  if (!imm16(lo) || !imm16(hi))
    return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED, "inject-alu: the clip %lld..%lld of %s is outside the 16-bit immediates",
                     (long long)lo, (long long)hi, s->buf->name);
  if (lo >= -128 && lo <= 127 && hi >= -128 && hi <= 127) {
    alu_imm(a, OVTA_ALU_CLP, lo, hi);
  } else {
    alu_imm(a, OVTA_ALU_MAX, lo, 0);
    alu_imm(a, OVTA_ALU_MIN, hi, 0);
  }
  return OVTA_OK;
}

/* A multiply-accumulate into its own buffer (what tensorize turns into GEMMs). */
static bool is_mac(const lir_stmt *s) {
  const lir_expr *v = s->value;
  if (v->kind != LIR_E_BIN || v->op != LIR_ADD) return false;
  for (int k = 0; k < 2; k++)
    if (lir_loads_stored(s, v->args[k]) && v->args[1 - k]->kind == LIR_E_BIN && v->args[1 - k]->op == LIR_MUL) return true;
  return false;
}

/* A store into an ACC buffer: the body of the elementwise nest over its last two dims (b over
 * BATCH, o over BLOCK_OUT), replaced by ALU calls on the block. */
static int alu_store(az *a, lir_stmt *s) {
  const ovta_config *cfg = &a->p->cfg;
  const char *an = s->buf->name;
  if (is_mac(s))
    return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED,
                     "inject-alu: the reduction into %s is not tensorized (into @ovta.gemm: tensorize first)", an);
  int n = s->nidx;
  lir_var *b = n >= 2 ? lir_var_of(s->idx[n - 2]) : NULL, *o = n >= 2 ? lir_var_of(s->idx[n - 1]) : NULL;
  if (!b || !o || b == o || s->buf->dtype != LIR_I32 || s->buf->shape[n - 2] != cfg->batch ||
      s->buf->shape[n - 1] != cfg->block_out)
    return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED,
                     "inject-alu: store into %s: not elementwise over an i32 ACC element (last two dims %d x %d indexed "
                     "by two loop variables)",
                     an, cfg->batch, cfg->block_out);
  if (vta_lead_uses(n, s->idx, b) || vta_lead_uses(n, s->idx, o))
    return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED, "inject-alu: store into %s: a leading index uses %s or %s", an, b->name,
                     o->name);
  /* the two innermost loops, perfectly nested around the store, bind b and o */
  const lir_stmt *inner = s;
  for (int k = 0; k < 2; k++) {
    int d = a->w->depth - 1 - k;
    const lir_stmt *L = d >= 0 ? a->w->anc[d] : NULL;
    if (!L || L->kind != LIR_S_FOR || L->body != inner || (L->var != b && L->var != o))
      return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED,
                       "inject-alu: store into %s: not the body of two perfectly nested loops over %s, %s", an, b->name,
                       o->name);
    int64_t want = L->var == b ? cfg->batch : cfg->block_out;
    if (L->min->kind != LIR_E_INT || L->min->ival != 0 || L->extent->kind != LIR_E_INT || L->extent->ival != want)
      return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED, "inject-alu: store into %s: loop %s is not 0..%lld", an, L->var->name,
                       (long long)want);
    inner = L;
  }
  lir_func *f = a->f;
  lir_block_init(&a->out, f);
  a->st = s;
  const lir_expr *v = s->value;
  int64_t c;
  int rc;
  if (v->kind == LIR_E_LOAD && v->buf != s->buf && v->buf->scope == LIR_SCOPE_ACC && v->dtype == LIR_I32 &&
      v->nargs >= 2 && lir_var_of(v->args[v->nargs - 2]) == b && lir_var_of(v->args[v->nargs - 1]) == o &&
      v->buf->shape[v->nargs - 2] == cfg->batch && v->buf->shape[v->nargs - 1] == cfg->block_out) {
    /* the bias element: MOV with the bias block as tensor operand */
    if (vta_lead_uses(v->nargs, v->args, b) || vta_lead_uses(v->nargs, v->args, o))
      return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED, "inject-alu: init of %s: a leading index of %s uses %s or %s", an,
                       v->buf->name, b->name, o->name);
    lir_expr *args[2] = {vta_block_ref(f, s->buf, n, s->idx), vta_block_ref(f, v->buf, v->nargs, v->args)};
    lir_block_add(&a->out, lir_eval(f, lir_opaque(f, vta_alu_intrin[OVTA_ALU_MOV], LIR_I32, 2, args)));
    a->inits++;
  } else if (is_int(v, &c)) {
    if ((rc = init_const(a, s, c))) return rc;
    a->inits++;
  } else if (!(rc = requant(a, s, v))) {
    a->requants++;
  } else {
    if (rc != 1) return rc;
    return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED,
                     "inject-alu: store into %s: the value is neither an ACC element (bias), a constant, nor "
                     "min(max(%s >> s, lo), hi)",
                     an, an);
  }
  *a->w->slot[a->w->depth - 2] = lir_block_stmt(&a->out);
  return OVTA_OK;
}

static int az_visit(lir_walk *w, lir_stmt **slot) {
  lir_stmt *s = *slot;
  return s->kind == LIR_S_STORE && s->buf->scope == LIR_SCOPE_ACC ? alu_store(w->ctx, s) : OVTA_OK;
}

/* inject-alu. Matches every store into an ACC-scope buffer: it must be `acc[.., b, o] = V`, the
 * body of two perfectly nested loops (either order) binding b and o from 0 over BATCH and
 * BLOCK_OUT of the config, acc i32 with those last two dims, the leading indices free of b, o.
 * In place of the two loops (their variables disappear), with A = acc[.., 0, 0]:
 *   V = bias[.., b, o] (another i32 ACC buffer, same last two dims and indexing): the init from the
 *       bias, `@ovta.alu_mov(A, bias[.., 0, 0])` (tensor operand);
 *   V = constant c: the init, `alu_mov(A, c)` when c fits 16 bits, else for c = 2^k (the rounding
 *       constant of a shift 16..31) `alu_mov(A, 1); alu_shr(A, -k)`;
 *   V = min(max(X, lo), hi) with X = acc[.., b, o] shifted: the requantization, `alu_shr(A, s)`
 *       (X = `acc >> s`; `acc << s` gives -s; no SHR for X = acc; the saturated forms `>> 31` and
 *       the constant 0 take the op's shift when it is >= 31 / <= -32, else 31 / -32), then
 *       `alu_clp(A, lo, hi)` when lo and hi are int8 (vta_clip_imm's encoding), else
 *       `alu_max(A, lo); alu_min(A, hi)`.
 * Refuses, naming the buffer (and loop), any other store into an ACC buffer (an untensorized
 * reduction, other values, indexing or loops), immediates beyond 16 bits, and a function without
 * both an init and a requantization. */
int vta_pass_inject_alu(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  az a = {.f = f, .p = p, .err = err};
  lir_walk w = {.visit = az_visit, .ctx = &a, .what = "inject-alu", .err = err};
  a.w = &w;
  int rc = lir_walk_stmt(&w, &f->body);
  if (rc) return rc;
  if (!a.inits || !a.requants)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "inject-alu: no ACC %s nest in %s", a.inits ? "requantization" : "init",
                     f->name);
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "inject-alu: out of memory") : OVTA_OK;
}
