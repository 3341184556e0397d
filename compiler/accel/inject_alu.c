/* inject_alu.c: the inject-alu pass (compiler/accel/README.md "Passes", 5): the scalar
 * elementwise nests left on the ACC after tensorize - an accumulator's initial value, the
 * requantization after the GEMMs (with a multiplier: the global average pool's), and the ALU
 * operators' updates (a left shift, a sum or a maximum with another ACC element) - become ALU
 * intrinsics over BATCH x BLOCK_OUT elements (`@ovta.alu_mov`, `alu_shr`, `alu_add`, `alu_mul`,
 * `alu_max`, `alu_min`, `alu_clp`, `alu_rq`), an IR-to-IR rewrite of
 * the tensorize stage. */
#include "accel_internal.h"

/* ---------------------------------------------------------------- matching helpers */

static bool is_int(const lir_expr *e, int64_t *v) {
  if (!e || e->kind != LIR_E_INT || !lir_dtype_is_int(e->dtype)) return false;
  *v = e->ival;
  return true;
}

static bool imm16(int64_t v) { return v >= -32768 && v <= 32767; }

/* ---------------------------------------------------------------- the pass */

typedef struct az {
  lir_func *f;
  const vta_plan *p;
  ovta_error *err;
  int inits, requants, updates; /* nests rewritten */
  lir_walk *w;                  /* the walk: the enclosing statements of the one being visited */
  lir_block out;                /* the ALU calls replacing the nest being rewritten */
  const lir_stmt *st;           /* its store: the calls' ACC operand is st->buf[.., 0, 0] */
  lir_var *b, *o;               /* the element's loop variables */
} az;

/* One ALU call on the block with an immediate (i32). CLP takes its two bounds. */
static void alu_imm(az *a, int op, int64_t imm, int64_t imm2) {
  bool clp = op == OVTA_ALU_CLP;
  lir_expr *args[3] = {vta_block_ref(a->f, a->st->buf, a->st->nidx, a->st->idx), lir_int(a->f, LIR_I32, imm),
                       clp ? lir_int(a->f, LIR_I32, imm2) : NULL};
  lir_block_add(&a->out, lir_eval(a->f, lir_opaque(a->f, vta_alu_intrin[op], LIR_I32, clp ? 3 : 2, args)));
}

/* Is v another ACC element of the block `R[.., b, o]` (i32, the same last two dims and loop
 * variables, leading indices free of them): a tensor operand? */
static bool tensor_operand(az *a, const lir_expr *v) {
  const ovta_config *cfg = &a->p->cfg;
  int n = v->nargs;
  return v->kind == LIR_E_LOAD && v->buf->scope == LIR_SCOPE_ACC && v->dtype == LIR_I32 && n >= 2 &&
         !lir_loads_stored(a->st, v) && lir_var_of(v->args[n - 2]) == a->b && lir_var_of(v->args[n - 1]) == a->o &&
         v->buf->shape[n - 2] == cfg->batch && v->buf->shape[n - 1] == cfg->block_out &&
         !vta_lead_uses(n, v->args, a->b) && !vta_lead_uses(n, v->args, a->o);
}

/* One ALU call on the block with a tensor operand (the other element's block). */
static void alu_src(az *a, int op, const lir_expr *v) {
  lir_expr *args[2] = {vta_block_ref(a->f, a->st->buf, a->st->nidx, a->st->idx),
                       vta_block_ref(a->f, v->buf, v->nargs, v->args)};
  lir_block_add(&a->out, lir_eval(a->f, lir_opaque(a->f, vta_alu_intrin[op], LIR_I32, 2, args)));
}

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

/* The ALU program computing x from the stored element, appended in order: x = the element (none),
 * `X >> k` (SHR k; k 31 is the saturated form of every shift >= 31: the op's shift when it is one,
 * as the compute stage writes it), `X << k` (SHR -k), `X + c` / `X + T` (ADD), `X * c` / `X * T`
 * (MUL, the low 32 bits: the global average pool's multiplier), `max(X, c)` /
 * `max(X, T)` (MAX), `min` likewise (c a 16-bit constant, T a tensor operand, either order);
 * inside a clip the constant 0 is everything shifted out (SHR by the op's shift when it is <= -32,
 * else -32). Returns 1 when x is not of this form. */
static int chain(az *a, const lir_stmt *s, const lir_expr *x, bool in_clip) {
  int64_t k;
  int shift = a->p->op.shift, rc;
  if (lir_loads_stored(s, x)) return OVTA_OK;
  if (in_clip && is_int(x, &k) && k == 0) {
    alu_imm(a, OVTA_ALU_SHR, shift <= -32 ? shift : -32, 0);
    return OVTA_OK;
  }
  if (x->kind != LIR_E_BIN) return 1;
  if (x->op == LIR_SHR && tensor_operand(a, x->args[1])) { /* per-channel shifts */
    if (chain(a, s, x->args[0], false)) return 1;
    alu_src(a, OVTA_ALU_SHR, x->args[1]);
    return OVTA_OK;
  }
  if (x->op == LIR_SHR || x->op == LIR_SHL) {
    if (!is_int(x->args[1], &k) || k < (x->op == LIR_SHR ? 0 : 1) || k > 31 || (rc = chain(a, s, x->args[0], false)))
      return 1;
    alu_imm(a, OVTA_ALU_SHR, x->op == LIR_SHL ? -k : k == 31 && shift >= 31 ? shift : k, 0);
    return OVTA_OK;
  }
  int op = x->op == LIR_ADD ? OVTA_ALU_ADD : x->op == LIR_MUL ? OVTA_ALU_MUL : x->op == LIR_MAX ? OVTA_ALU_MAX
           : x->op == LIR_MIN ? OVTA_ALU_MIN : -1;
  if (op < 0) return 1;
  for (int i = 0; i < 2; i++) { /* the chain on one side, the operand on the other */
    const lir_expr *v = x->args[1 - i];
    bool imm = is_int(v, &k) && imm16(k);
    if (!imm && !tensor_operand(a, v)) continue;
    if ((rc = chain(a, s, x->args[i], false))) continue;
    if (imm) alu_imm(a, op, k, 0);
    else alu_src(a, op, v);
    return OVTA_OK;
  }
  return 1;
}

/* `alu_rq(A, sh, round, lo, hi)` for `min(max(X, lo), hi)` with X = `(Y [+ 2^(sh-1)]) >> sh`
 * (sh 1..31, the rounding constant on either side; vta_rq_imm encodes sh, lo, hi): Y's program
 * (chain), then RQ. Returns 1 (a->out as it was) when X is not of this form. */
static int requant_rq(az *a, const lir_stmt *s, const lir_expr *x, int64_t lo, int64_t hi) {
  int64_t k, c;
  int32_t imm;
  if (x->kind != LIR_E_BIN || x->op != LIR_SHR || !is_int(x->args[1], &k) || k < 1 || k > 31) return 1;
  const lir_expr *y = x->args[0];
  bool rnd = false;
  if (y->kind == LIR_E_BIN && y->op == LIR_ADD)
    for (int i = 0; i < 2 && !rnd; i++)
      if (is_int(y->args[1 - i], &c) && c == (int64_t)1 << (k - 1)) rnd = true, y = y->args[i];
  if (!vta_rq_imm((int)k, rnd, lo, hi, &imm)) return 1;
  lir_block saved = a->out;
  if (chain(a, s, y, false)) {
    a->out = saved;
    return 1;
  }
  lir_expr *args[5] = {vta_block_ref(a->f, a->st->buf, a->st->nidx, a->st->idx), lir_int(a->f, LIR_I32, k),
                       lir_int(a->f, LIR_I32, rnd), lir_int(a->f, LIR_I32, lo), lir_int(a->f, LIR_I32, hi)};
  lir_block_add(&a->out, lir_eval(a->f, lir_opaque(a->f, vta_alu_intrin[OVTA_ALU_RQ], LIR_I32, 5, args)));
  return OVTA_OK;
}

/* The requantization `min(max(X, lo), hi)` (lo, hi constants): RQ when it takes it (requant_rq),
 * else X's program (chain), then CLP when both bounds are int8, else MAX lo, MIN hi. Returns 1
 * when v is not of this form. */
static int requant(az *a, const lir_stmt *s, const lir_expr *v) {
  int64_t lo, hi;
  if (v->kind != LIR_E_BIN || v->op != LIR_MIN || !is_int(v->args[1], &hi)) return 1;
  const lir_expr *m = v->args[0];
  if (m->kind != LIR_E_BIN || m->op != LIR_MAX || !is_int(m->args[1], &lo)) return 1;
  if (!requant_rq(a, s, m->args[0], lo, hi)) return OVTA_OK;
  lir_block saved = a->out;
  if (chain(a, s, m->args[0], true)) {
    a->out = saved;
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

/* The ALU program of the value stored (rules above vta_pass_inject_alu), into a->out. */
static int value_ops(az *a, const lir_stmt *s) {
  const lir_expr *v = s->value;
  int64_t c;
  int rc;
  if (tensor_operand(a, v)) { /* another ACC element (the bias): MOV with it as tensor operand */
    alu_src(a, OVTA_ALU_MOV, v);
    a->inits++;
  } else if (is_int(v, &c)) {
    if ((rc = init_const(a, s, c))) return rc;
    a->inits++;
  } else if (!(rc = requant(a, s, v))) {
    a->requants++;
  } else if (rc != 1) {
    return rc;
  } else if (!lir_loads_stored(s, v) && !chain(a, s, v, false)) {
    a->updates++;
  } else {
    return OVTA_FAIL(a->err, OVTA_EUNSUPPORTED,
                     "inject-alu: store into %s: the value is neither an ACC element (bias), a constant, "
                     "min(max(%s >> s, lo), hi), nor an update of the element by shifts, ADD, MAX or MIN",
                     s->buf->name, s->buf->name);
  }
  return OVTA_OK;
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
  lir_block_init(&a->out, a->f);
  a->st = s, a->b = b, a->o = o;
  int rc = value_ops(a, s);
  if (rc) return rc;
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
 *   V = R[.., b, o] (another i32 ACC element, same last two dims and indexing: the bias): the
 *       init from it, `@ovta.alu_mov(A, R[.., 0, 0])` (tensor operand);
 *   V = constant c: the init, `alu_mov(A, c)` when c fits 16 bits, else for c = 2^k (the rounding
 *       constant of a shift 16..31) `alu_mov(A, 1); alu_shr(A, -k)`;
 *   V = min(max(X, lo), hi): the requantization; when X = `(Y [+ 2^(s-1)]) >> s` (s 1..31) and
 *       vta_rq_imm encodes s, lo, hi: Y's program (chain), then one `alu_rq(A, s, round, lo, hi)`
 *       (round 1 when the rounding constant is there: ISA.md RQ); else X's program (chain: `acc >> s` gives
 *       `alu_shr(A, s)`, `acc << s` -s, `acc + c` `alu_add(A, c)`, `acc * c` `alu_mul(A, c)`,
 *       nested in the order applied; the
 *       saturated forms `>> 31` and the constant 0 take the op's shift when it is >= 31 / <= -32,
 *       else 31 / -32; `acc >> R[.., b, o]`, per-channel shifts, `alu_shr(A, R[.., 0, 0])`), then `alu_clp(A, lo, hi)` when lo and hi are int8 (vta_clip_imm's
 *       encoding), else `alu_max(A, lo); alu_min(A, hi)`;
 *   V = an update of the element (chain without the clip; the ALU operators): `acc << k`
 *       `alu_shr(A, -k)`, `acc + R[.., b, o]` `alu_add(A, R[.., 0, 0])`, `max(acc, R[..])`
 *       `alu_max(A, R[..])` (tensor operands), with constants the immediate forms.
 * Refuses, naming the buffer (and loop), any other store into an ACC buffer (an untensorized
 * reduction, other values, indexing or loops), immediates beyond 16 bits, and a function without
 * any such store (but the upsampling's, VTA_UPSAMPLE: an identity GEMM whose ACC tile tensorize
 * zeroes by the GEMM reset, no ALU work at all). */
int vta_pass_inject_alu(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  az a = {.f = f, .p = p, .err = err};
  lir_walk w = {.visit = az_visit, .ctx = &a, .what = "inject-alu", .err = err};
  a.w = &w;
  int rc = lir_walk_stmt(&w, &f->body);
  if (rc) return rc;
  if (!a.inits && !a.requants && !a.updates && p->op.kind != VTA_UPSAMPLE)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "inject-alu: no ACC init nest, requantization or update in %s", f->name);
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "inject-alu: out of memory") : OVTA_OK;
}
