/* res.c: a residual add fused into the conv / dense layer producing one of its operands
 * (vta_op.res; compiler/accel/README.md "Fused residual add"): the operator, its checks, packing
 * and reference, its compute-stage epilogue and the schedule stage's fused epilogue.
 *
 * The rule is the unfused pair's int8 rule exactly: c = clamp(requant(acc + bias, shift), clip_min,
 * clip_max) (the conv, as without the add), then y = clamp(requant((c << res_sc) + (r << res_sr),
 * res_shift), res_min, res_max) (ovta.QAdd's rule, int32 wrapping). On the accelerator the other
 * operand r never makes a pass over DRAM of its own: each output tile, after its requantization to
 * c in the ACC, loads its r tile into INP (and the identity block into WGT) and accumulates it onto
 * c by one identity GEMM, as the standalone add copies its second input (accel/alu.c). */

#include <string.h>

#include "accel_internal.h"

void vta_op_fuse_add(vta_op *op, int sc, int sr, int shift, int lo, int hi) {
  op->res = true;
  op->res_sc = sc, op->res_sr = sr, op->res_shift = shift, op->res_min = lo, op->res_max = hi;
}

/* The identity's weight: 2^(sr - sc) when r has the larger shift (r enters the ACC scaled), else 1
 * (c is shifted left by sc - sr in the ACC before r enters). */
static int res_wshift(const vta_op *op) { return op->res_sr > op->res_sc ? op->res_sr - op->res_sc : 0; }

/* The plan's checks of a fused add (plan_conv calls it): the identity copy needs BLOCK_IN =
 * BLOCK_OUT, shifts within 0..15 (no int32 wrap on the way, so the ACC's order of operations is
 * exact), r's weight 2^(sr - sc) an int8 (sr - sc <= 6), one shift for all channels, 16-bit clips. */
int vta_res_check(const vta_plan *p, ovta_error *err) {
  const vta_op *op = &p->op;
  const char *nm = op->name;
  if (!op->res) return OVTA_OK;
  if (op->kind != VTA_CONV && op->kind != VTA_DENSE)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: a fused residual add needs a conv or dense layer", nm);
  if (p->cfg.block_in != p->cfg.block_out)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the fused add's identity copy needs BLOCK_IN = BLOCK_OUT", nm);
  if (op->shifts) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: a fused residual add after per-channel shifts", nm);
  if (op->res_sc < 0 || op->res_sc > 15 || op->res_sr < 0 || op->res_sr > 15 || op->res_shift < 0 ||
      op->res_shift > 15)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the fused add's shifts (%d, %d, %d) are outside 0..15", nm,
                     op->res_sc, op->res_sr, op->res_shift);
  if (op->res_sr - op->res_sc > 6)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the fused add's operand shift exceeds the conv's by more than 6", nm);
  if (op->res_min < -32768 || op->res_max > 32767 || op->res_min > op->res_max)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the fused add's clip is outside the ALU's 16-bit immediates", nm);
  return OVTA_OK;
}

size_t vta_res_ident_bytes(const vta_plan *p) { return (size_t)p->cfg.block_out * p->cfg.block_in; }

void vta_pack_res_ident(const vta_plan *p, int8_t *blk) {
  int BI = p->cfg.block_in, BO = p->cfg.block_out;
  int8_t one = (int8_t)(1 << res_wshift(&p->op));
  for (int o = 0; o < BO; o++)
    for (int i = 0; i < BI; i++) blk[o * BI + i] = o == i ? one : 0;
}

void vta_reference_res(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *bias, const int8_t *r, int8_t *y) {
  vta_reference(op, x, w, bias, y);
  size_t n = (size_t)op->n * op->o * vta_op_out_h(op) * vta_op_out_w(op);
  for (size_t i = 0; i < n; i++) {
    uint32_t s = ((uint32_t)(int32_t)y[i] << op->res_sc) + ((uint32_t)(int32_t)r[i] << op->res_sr);
    y[i] = (int8_t)ovta_requant((int32_t)s, op->res_shift, op->res_min, op->res_max);
  }
}

/* The add's requantization of v: `+ 2^(s-1)` (s > 0), `>> s`, the clip (i32). */
static lir_expr *add_requant(lir_func *f, const vta_op *op, lir_expr *v) {
  int s = op->res_shift;
  if (s > 0) v = lir_bin(f, LIR_SHR, lir_bin(f, LIR_ADD, v, lir_int(f, LIR_I32, 1 << (s - 1))), lir_int(f, LIR_I32, s));
  v = lir_bin(f, LIR_MAX, v, lir_int(f, LIR_I32, op->res_min));
  return lir_bin(f, LIR_MIN, v, lir_int(f, LIR_I32, op->res_max));
}

static lir_expr *shl(lir_func *f, lir_expr *v, int k) { return k ? lir_bin(f, LIR_SHL, v, lir_int(f, LIR_I32, k)) : v; }

/* The compute stage's epilogue (lower.c): c, the conv's clipped result (i32), and r's element (i8) ->
 * the add's rule, `clamp(requant((c << sc) + (i32(r) << sr), s))`. */
lir_expr *vta_res_expr(lir_func *f, const vta_op *op, lir_expr *c, lir_expr *r) {
  lir_expr *v = lir_bin(f, LIR_ADD, shl(f, c, op->res_sc), shl(f, lir_cast(f, LIR_I32, r), op->res_sr));
  return add_requant(f, op, v);
}

/* ---------------------------------------------------------------- the schedule stage's epilogue */

typedef struct rs {
  lir_func *f;
  const vta_plan *p;
  lir_buf *y, *r, *id;      /* DRAM parameters */
  lir_buf *rbuf, *idbuf;    /* the INP / WGT caches of r's tile and of the identity */
  lir_buf *resbuf;          /* the ACC region r enters by the identity GEMM (beside the tile) */
  int done;                 /* store nests rewritten */
  ovta_error *err;
} rs;

typedef struct vsub {
  int n;
  lir_var *from[8];
  lir_expr *to[8];
} vsub;

static lir_expr *subst(lir_func *f, lir_expr *e, const vsub *s) {
  switch (e->kind) {
  case LIR_E_VAR:
    for (int i = 0; i < s->n; i++)
      if (s->from[i] == e->var) return s->to[i];
    return e;
  case LIR_E_LOAD: {
    lir_expr *idx[LIR_MAX_DIMS];
    for (int i = 0; i < e->nargs; i++) idx[i] = subst(f, e->args[i], s);
    return lir_load(f, e->buf, idx);
  }
  case LIR_E_BIN: return lir_bin(f, e->op, subst(f, e->args[0], s), subst(f, e->args[1], s));
  case LIR_E_UN: return lir_un(f, e->op, subst(f, e->args[0], s));
  case LIR_E_CAST: return lir_cast(f, e->dtype, subst(f, e->args[0], s));
  case LIR_E_SELECT: return lir_select(f, subst(f, e->args[0], s), subst(f, e->args[1], s), subst(f, e->args[2], s));
  default: return e;
  }
}

/* The store nest found: its six loops (n, oc, h, w of the tile, b, o) and the store. */
typedef struct snest {
  lir_stmt *loop[6];
  lir_stmt *st;
} snest;

/* Is *slot the store nest `for 6 loops: y[..] = i8(E)`? */
static bool is_store_nest(rs *c, lir_stmt *s, snest *sn) {
  for (int k = 0; k < 6; k++) {
    if (s->kind != LIR_S_FOR) return false;
    sn->loop[k] = s;
    s = s->body;
  }
  if (s->kind != LIR_S_STORE || s->buf != c->y) return false;
  sn->st = s;
  return true;
}

/* Fresh copies of the nest's loop variables named PREFIX + the original's, the substitution to them. */
static void fresh(rs *c, const snest *sn, const char *prefix, lir_var **v, vsub *s) {
  s->n = 6;
  for (int k = 0; k < 6; k++) {
    char nm[64];
    snprintf(nm, sizeof nm, "%s%s", prefix, sn->loop[k]->var->name);
    v[k] = lir_var_new(c->f, nm, LIR_I64);
    s->from[k] = sn->loop[k]->var, s->to[k] = lir_ref(c->f, v[k]);
  }
}

/* for v[0..5] over the nest's extents: body (the innermost extra loop, if any, inside). */
static lir_stmt *close6(rs *c, const snest *sn, lir_var **v, lir_stmt *body) {
  for (int k = 5; k >= 0; k--) body = lir_for(c->f, v[k], lir_i64(c->f, 0), sn->loop[k]->extent, LIR_FOR_SERIAL, body);
  return body;
}

/* The ACC element the store's value reads (acc_buf[part, n, oc, h, w, b, o]). */
static lir_expr *acc_of(lir_expr *e) {
  if (e->kind == LIR_E_LOAD && e->buf->scope == LIR_SCOPE_ACC) return e;
  for (int i = 0; i < e->nargs && e->kind != LIR_E_LOAD; i++) {
    lir_expr *a = acc_of(e->args[i]);
    if (a) return a;
  }
  return NULL;
}

/* The conv's own requantization of the ACC element a (lower.c requant_expr, one shift for all). */
static lir_expr *conv_requant(lir_func *f, const vta_op *op, lir_expr *v) {
  if (op->shift != 0) {
    int s = op->shift >= 32 ? 31 : op->shift;
    if (s > 0) v = lir_bin(f, LIR_SHR, v, lir_int(f, LIR_I32, s));
    else v = s <= -32 ? lir_int(f, LIR_I32, 0) : lir_bin(f, LIR_SHL, v, lir_int(f, LIR_I32, -s));
  }
  v = lir_bin(f, LIR_MAX, v, lir_int(f, LIR_I32, op->clip_min));
  return lir_bin(f, LIR_MIN, v, lir_int(f, LIR_I32, op->clip_max));
}

/* The conv's part of both epilogues, on the ACC element acc of store nest sn: c requantized in
 * place (the conv's own rule), then c <<= sc - sr when c has the larger shift of the add. */
static void conv_part(rs *c, const snest *sn, lir_expr *acc, lir_block *blk) {
  lir_func *f = c->f;
  const vta_op *op = &c->p->op;
  lir_var *v[6];
  vsub s;
  fresh(c, sn, "q", v, &s);
  lir_expr *a = subst(f, acc, &s);
  lir_block_add(blk, close6(c, sn, v, lir_store(f, a->buf, a->args, conv_requant(f, op, a))));
  if (op->res_sc > op->res_sr) {
    fresh(c, sn, "l", v, &s);
    a = subst(f, acc, &s);
    lir_block_add(blk, close6(c, sn, v, lir_store(f, a->buf, a->args, shl(f, a, op->res_sc - op->res_sr))));
  }
}

/* r's tile into INP (the layout of y, same indices as store nest sn), the identity block into WGT,
 * both in ACC/INP part `part`: the copies both forms of the fused add start with. */
static void copy_r_identity(rs *c, const snest *sn, lir_expr *part, lir_block *blk) {
  lir_func *f = c->f;
  int BI = c->p->cfg.block_in, BO = c->p->cfg.block_out;
  lir_var *v[6];
  vsub s;
  fresh(c, sn, "r", v, &s);
  lir_expr *ri[8], *di[6];
  ri[0] = part;
  for (int k = 0; k < 6; k++) ri[1 + k] = lir_ref(f, v[k]), di[k] = subst(f, sn->st->idx[k], &s);
  lir_stmt *cp = close6(c, sn, v, lir_store(f, c->rbuf, ri, lir_load(f, c->r, di)));
  lir_block_add(blk, lir_attr(f, "cache_read", lir_i64(f, 90), cp));
  lir_var *iv[3] = {lir_var_new(f, "id_c0", LIR_I64), lir_var_new(f, "id_c1", LIR_I64), lir_var_new(f, "id_c2", LIR_I64)};
  lir_expr *ii[4] = {part, lir_ref(f, iv[0]), lir_ref(f, iv[1]), lir_ref(f, iv[2])};
  lir_stmt *ic = lir_store(f, c->idbuf, ii, lir_load(f, c->id, ii + 1));
  int64_t iext[3] = {1, BO, BI};
  for (int k = 2; k >= 0; k--) ic = lir_for(f, iv[k], lir_i64(f, 0), lir_i64(f, iext[k]), LIR_FOR_SERIAL, ic);
  lir_block_add(blk, lir_attr(f, "cache_read", lir_i64(f, 91), ic));
}

/* The fused epilogue after the steps (vta_plan.res_pre false), replacing store nest sn (rule above
 * vta_res_schedule). */
static lir_stmt *epilogue_after(rs *c, const snest *sn) {
  lir_func *f = c->f;
  const vta_op *op = &c->p->op;
  int B = c->p->cfg.batch, BI = c->p->cfg.block_in;
  lir_expr *acc = acc_of(sn->st->value);
  lir_expr *part = acc->args[0];
  lir_block blk;
  lir_block_init(&blk, f);
  lir_var *v[6];
  vsub s;
  /* 1. c in place: the conv's requantization; 2. c <<= sc - sr when c has the larger shift */
  conv_part(c, sn, acc, &blk);
  int lo = op->res_sc < op->res_sr ? op->res_sc : op->res_sr;
  lir_expr *a;
  /* 3. r's tile into INP (the layout of y, same indices), the identity block into WGT */
  copy_r_identity(c, sn, part, &blk);
  /* 4. acc += r * identity (one GEMM over the tile) */
  fresh(c, sn, "m", v, &s);
  lir_var *gi = lir_var_new(f, "mi", LIR_I64);
  a = subst(f, acc, &s);
  lir_expr *rr[8], *ww[4] = {part, lir_i64(f, 0), lir_ref(f, v[5]), lir_ref(f, gi)};
  rr[0] = part;
  for (int k = 0; k < 5; k++) rr[1 + k] = lir_ref(f, v[k]);
  rr[6] = lir_ref(f, gi);
  lir_expr *prod = lir_bin(f, LIR_MUL, lir_cast(f, LIR_I32, lir_load(f, c->rbuf, rr)), lir_cast(f, LIR_I32, lir_load(f, c->idbuf, ww)));
  lir_stmt *mac = lir_store(f, a->buf, a->args, lir_bin(f, LIR_ADD, a, prod));
  mac = lir_for(f, gi, lir_i64(f, 0), lir_i64(f, BI), LIR_FOR_SERIAL, mac);
  (void)B;
  lir_block_add(&blk, close6(c, sn, v, mac));
  /* 5. the add's requantization and the store (inject-dma makes it in place before the store) */
  fresh(c, sn, "s", v, &s);
  a = subst(f, acc, &s);
  lir_expr *yi[6];
  for (int k = 0; k < 6; k++) yi[k] = subst(f, sn->st->idx[k], &s);
  lir_expr *val = lir_cast(f, LIR_I8, add_requant(f, op, shl(f, a, lo)));
  lir_block_add(&blk, close6(c, sn, v, lir_store(f, c->y, yi, val)));
  return lir_block_stmt(&blk);
}

/* The fused add's statements for store nest sn (vta_plan.res_pre): *pre, before the tile's step loop (r's tile and the
 * identity copied, res_buf zeroed and r accumulated into it by the identity GEMM), and the
 * returned epilogue replacing the store nest (rule above vta_res_schedule). */
static lir_stmt *epilogue_pre(rs *c, const snest *sn, lir_stmt **pre) {
  lir_func *f = c->f;
  const vta_op *op = &c->p->op;
  int BI = c->p->cfg.block_in;
  lir_expr *acc = acc_of(sn->st->value);
  lir_expr *part = acc->args[0];
  lir_block blk, pb;
  lir_block_init(&blk, f);
  lir_block_init(&pb, f);
  lir_var *v[6];
  vsub s;
  /* before the steps: r's tile into INP (the layout of y, same indices), the identity block into WGT */
  copy_r_identity(c, sn, part, &pb);
  /* res_buf = 0, then res_buf += r x identity (tensorize: GEMM reset, one GEMM) */
  fresh(c, sn, "z", v, &s);
  lir_expr *zi[7];
  zi[0] = part;
  for (int k = 0; k < 6; k++) zi[1 + k] = lir_ref(f, v[k]);
  lir_block_add(&pb, close6(c, sn, v, lir_store(f, c->resbuf, zi, lir_int(f, LIR_I32, 0))));
  fresh(c, sn, "m", v, &s);
  lir_var *gi = lir_var_new(f, "mi", LIR_I64);
  lir_expr *mi[7], *rr[7], *ww[4] = {part, lir_i64(f, 0), lir_ref(f, v[5]), lir_ref(f, gi)};
  mi[0] = rr[0] = part;
  for (int k = 0; k < 6; k++) mi[1 + k] = rr[1 + k] = lir_ref(f, v[k]);
  rr[6] = lir_ref(f, gi);
  lir_expr *m = lir_load(f, c->resbuf, mi);
  lir_expr *prod = lir_bin(f, LIR_MUL, lir_cast(f, LIR_I32, lir_load(f, c->rbuf, rr)), lir_cast(f, LIR_I32, lir_load(f, c->idbuf, ww)));
  lir_stmt *mac = lir_for(f, gi, lir_i64(f, 0), lir_i64(f, BI), LIR_FOR_SERIAL, lir_store(f, c->resbuf, mi, lir_bin(f, LIR_ADD, m, prod)));
  lir_block_add(&pb, close6(c, sn, v, mac));
  *pre = lir_block_stmt(&pb);
  /* after the steps: c in place (the conv's requantization), c <<= sc - sr when c has the larger shift */
  conv_part(c, sn, acc, &blk);
  int lo = op->res_sc < op->res_sr ? op->res_sc : op->res_sr;
  lir_expr *a;
  /* acc += res_buf (ALU ADD, tensor operand) */
  fresh(c, sn, "a", v, &s);
  a = subst(f, acc, &s);
  lir_expr *ai[7];
  ai[0] = part;
  for (int k = 0; k < 6; k++) ai[1 + k] = lir_ref(f, v[k]);
  lir_block_add(&blk, close6(c, sn, v, lir_store(f, a->buf, a->args, lir_bin(f, LIR_ADD, a, lir_load(f, c->resbuf, ai)))));
  /* the add's requantization and the store (inject-dma makes it in place before the store) */
  fresh(c, sn, "s", v, &s);
  a = subst(f, acc, &s);
  lir_expr *yi[6];
  for (int k = 0; k < 6; k++) yi[k] = subst(f, sn->st->idx[k], &s);
  lir_expr *val = lir_cast(f, LIR_I8, add_requant(f, op, shl(f, a, lo)));
  lir_block_add(&blk, close6(c, sn, v, lir_store(f, c->y, yi, val)));
  return lir_block_stmt(&blk);
}

/* A sequence holding the store nest right after the step loop: the fused add's statements around
 * the step loop (epilogue). */
static int rs_visit(lir_walk *w, lir_stmt **slot) {
  rs *c = w->ctx;
  lir_stmt *q = *slot;
  if (q->kind != LIR_S_SEQ) return OVTA_OK;
  for (int i = 1; i < q->n; i++) {
    snest sn;
    if (q->stmts[i]->kind != LIR_S_FOR || !is_store_nest(c, q->stmts[i], &sn)) continue;
    if (!acc_of(sn.st->value))
      return OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "schedule: %s: the store of y reads no ACC element", c->p->op.name);
    if (q->stmts[i - 1]->kind != LIR_S_FOR)
      return OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "schedule: %s: the store nest of y does not follow the step loop", c->p->op.name);
    lir_stmt *pre = NULL, *post = c->p->res_pre ? epilogue_pre(c, &sn, &pre) : epilogue_after(c, &sn);
    lir_block b;
    lir_block_init(&b, c->f);
    for (int k = 0; k < q->n; k++) {
      if (k == i - 1 && pre) lir_block_add(&b, pre);
      lir_block_add(&b, k == i ? post : q->stmts[k]);
    }
    *slot = lir_block_stmt(&b);
    c->done++;
    return OVTA_OK;
  }
  return OVTA_OK;
}

/* Rule (the schedule stage of a conv/dense with a fused residual add; lower.c calls it after the
 * primitive script). Matches the store nest of the tile, `for an_1, ao_1, ah_1, aw_1, ab_1, ai_1:
 * y[Y] = i8(E)` with E reading the ACC tile element A = acc_buf[P, an_1, .., ai_1], and the
 * allocations at the top. Replaces the nest by, each over the same six loops (fresh variables):
 *   A = clamp(A >> shift)               the conv's requantization to c, in place (as without the add);
 *   A = A << (res_sc - res_sr)          when c has the larger shift;
 *   attr cache_read { r_buf[P, ..] = r[Y] }     r's tile into INP (its own region after inp_buf);
 *   attr cache_read { id_buf[P, 0, o, i] = ident[0, o, i] }   the identity (times 2^(sr - sc)) into WGT;
 *   A = A + i32(r_buf[P, .., b, i]) * i32(id_buf[P, 0, o, i])  (over i: one identity GEMM);
 *   y[Y] = i8(clamp(requant(A << lo, res_shift)))             lo = min(sc, sr);
 * and allocates r_buf [vt][t_n][t_oc][t_h][t_w][B][BI] (INP) and id_buf [vt][1][BO][BI] (WGT)
 * inside the allocations at the top (so they are laid out after the conv's buffers of their
 * scopes). A = (c << sc + r << sr) >> lo exactly (the shifts are <= 15: no wrap), so the store
 * writes the add's rule. Refuses a function without such a store nest. */
int vta_res_schedule(const vta_plan *p, lir_func *f, ovta_error *err) {
  int np = f->nparams;
  rs c = {.f = f, .p = p, .err = err};
  if (np < 5) return OVTA_FAIL(err, OVTA_EINTERNAL, "schedule: %s: no r and ident parameters", p->op.name);
  c.y = f->params[np - 3], c.r = f->params[np - 2], c.id = f->params[np - 1];
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int64_t rsz[7] = {p->vt, p->t_n, p->t_oc, p->t_h, p->t_w, B, BI}, isz[4] = {p->vt, 1, BO, BI};
  c.rbuf = lir_buf_new(f, "r_buf", LIR_I8, 7, rsz, LIR_SCOPE_INP);
  c.idbuf = lir_buf_new(f, "id_buf", LIR_I8, 4, isz, LIR_SCOPE_WGT);
  int64_t asz[7] = {p->vt, p->t_n, p->t_oc, p->t_h, p->t_w, B, BO};
  c.resbuf = p->res_pre ? lir_buf_new(f, "res_buf", LIR_I32, 7, asz, LIR_SCOPE_ACC) : NULL;
  lir_walk w = {.visit = rs_visit, .ctx = &c, .what = "schedule", .err = err};
  int rc = lir_walk_stmt(&w, &f->body);
  if (rc) return rc;
  if (c.done != 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "schedule: %s: %d store nests of y, not one", p->op.name, c.done);
  lir_stmt **slot = &f->body;
  while ((*slot)->kind == LIR_S_ALLOC) slot = &(*slot)->body;
  if (c.resbuf) *slot = lir_alloc_stmt(f, c.resbuf, *slot);
  *slot = lir_alloc_stmt(f, c.rbuf, lir_alloc_stmt(f, c.idbuf, *slot));
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "schedule: out of memory") : OVTA_OK;
}

/* ---------------------------------------------------------------- r's loads without a ring slot */

/* Rule (insert-deps' res_step, the cost model): with 2 virtual threads and at least 2 reduction
 * steps a tile, r's loads (r's tile and the identity block) take no compute->load token of their
 * own, and the identity GEMM pushes none: they are not a step of the load/compute ring, so the next
 * step's load waits for the GEMM two steps before it as in a conv without the add (as a step of the
 * ring, r's loads held the next tile's first load back until the GEMM before the identity GEMM was
 * done: ~760 cycles a tile alone in the compute module on ResNet-18's 64x56x56 layer). Safe: r_buf
 * and id_buf of part p = t mod 2 are written only by r's loads of the tiles t, t + 2, .. and read
 * only by their identity GEMMs, and are disjoint from every step's INP/WGT region; the load module
 * issues r's loads of tile t after the loads of a step (the one before them in its order: tile t's
 * last step, "after"; tile t + 1's step kp - 1, pipelined; tile t - 1's last step, "before"), which
 * waited for the GEMM two steps before it in the ring, and with >= 2 steps a tile that GEMM comes
 * after the identity GEMM of tile t - 2 (compute retires in order). With one thread or one step a
 * tile that GEMM can come before it (r's step keeps its own token then). The load->compute token
 * stays: the identity GEMM waits for r's loads. */
bool vta_res_loads_free(const vta_plan *p) { return p->op.res && p->vt == 2 && p->red_steps >= 2; }

/* ---------------------------------------------------------------- the software pipeline across tiles */

/* The steps of tile t + 1 issued before tile t's r step (vta_plan.res_pipe): one per pass of the
 * conv's part of the epilogue (RQ, or SHR, CLP or MAX + MIN; SHL: vta_requant_passes), which the runtime then runs beside
 * them (jit-runtime/README.md "Overlap"), at most all but one step; 0 (no pipeline) when exactly
 * as many steps as the add's passes would follow: the last of them would run beside the last step
 * and the store it hands over would hold up tile t + 2's init, which has nothing to run beside
 * (+1.0k cycles a tile on tsim, ResNet-18 layer1.1 conv2; one step fewer: +1.4k). */
int vta_res_pipe_steps(const vta_plan *p) {
  const vta_op *op = &p->op;
  int K = p->red_steps, k = vta_requant_passes(op->shift, false, op->clip_min, op->clip_max) + (op->res_sc > op->res_sr);
  int add = (op->res_sc && op->res_sr) + vta_requant_passes(op->res_shift, true, op->res_min, op->res_max);
  if (k > K - 1) k = K - 1;
  return K - k == add ? 0 : k;
}

/* A substitution of variables by expressions (the tile loops' by the previous tile's indices, a
 * copied loop's by its fresh variable). */
typedef struct psub {
  int n;
  lir_var *from[32];
  lir_expr *to[32];
} psub;

typedef struct pctx {
  lir_func *f;
  psub s;
  const char *prefix; /* of the fresh loop variables */
  ovta_error *err;
  int rc;
} pctx;

static lir_expr *psubst(pctx *c, lir_expr *e) {
  if (!e) return e;
  lir_expr *a[16];
  if (e->kind == LIR_E_VAR) {
    for (int i = c->s.n; i-- > 0;)
      if (c->s.from[i] == e->var) return c->s.to[i];
    return e;
  }
  if (e->nargs > 16 && e->kind != LIR_E_LOAD) {
    c->rc = OVTA_FAIL(c->err, OVTA_EINTERNAL, "res pipeline: an expression with %d operands", e->nargs);
    return e;
  }
  switch (e->kind) {
  case LIR_E_LOAD: {
    lir_expr *idx[LIR_MAX_DIMS];
    for (int i = 0; i < e->nargs && i < LIR_MAX_DIMS; i++) idx[i] = psubst(c, e->args[i]);
    return lir_load(c->f, e->buf, idx);
  }
  case LIR_E_BIN: return lir_bin(c->f, e->op, psubst(c, e->args[0]), psubst(c, e->args[1]));
  case LIR_E_UN: return lir_un(c->f, e->op, psubst(c, e->args[0]));
  case LIR_E_CAST: return lir_cast(c->f, e->dtype, psubst(c, e->args[0]));
  case LIR_E_SELECT: return lir_select(c->f, psubst(c, e->args[0]), psubst(c, e->args[1]), psubst(c, e->args[2]));
  case LIR_E_CALL:
    for (int i = 0; i < e->nargs; i++) a[i] = psubst(c, e->args[i]);
    return e->op == LIR_OPAQUE ? lir_opaque(c->f, e->callee, e->dtype, e->nargs, a) : lir_call(c->f, e->op, e->dtype, e->nargs, a);
  default: return e;
  }
}

/* A copy of s with the substitution applied, each loop bound to a fresh variable (PREFIX + name). */
static lir_stmt *pcopy(pctx *c, const lir_stmt *s) {
  if (!s) return NULL;
  lir_func *f = c->f;
  switch (s->kind) {
  case LIR_S_SEQ: {
    lir_block b;
    lir_block_init(&b, f);
    for (int i = 0; i < s->n; i++) lir_block_add(&b, pcopy(c, s->stmts[i]));
    return lir_block_stmt(&b);
  }
  case LIR_S_FOR: {
    char nm[64];
    snprintf(nm, sizeof nm, "%s%s", c->prefix, s->var->name);
    lir_var *v = lir_var_new(f, nm, s->var->dtype);
    lir_expr *mn = psubst(c, s->min), *ext = psubst(c, s->extent);
    if (c->s.n == 32) {
      c->rc = OVTA_FAIL(c->err, OVTA_EINTERNAL, "res pipeline: loops nested too deep");
      return lir_eval(f, lir_i64(f, 0));
    }
    c->s.from[c->s.n] = s->var, c->s.to[c->s.n++] = lir_ref(f, v);
    lir_stmt *body = pcopy(c, s->body);
    c->s.n--;
    return lir_for(f, v, mn, ext, s->for_kind, body);
  }
  case LIR_S_IF: return lir_if(f, psubst(c, s->value), pcopy(c, s->body), pcopy(c, s->else_body));
  case LIR_S_ATTR: return lir_attr(f, s->key, psubst(c, s->value), pcopy(c, s->body));
  case LIR_S_EVAL: return lir_eval(f, psubst(c, s->value));
  default:
    c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "res pipeline: a statement not of the insert-deps form in the tile");
    return lir_eval(f, lir_i64(f, 0));
  }
}

/* Is s `eval @ovta.dep_pop(compute, load)` (the first statement of the r step, insert_deps.c res_step)? */
static bool is_pop_c2l(const lir_stmt *s) {
  const lir_expr *e = s->kind == LIR_S_EVAL ? s->value : NULL;
  return e && e->kind == LIR_E_CALL && e->callee && !strcmp(e->callee, "ovta.dep_pop") && e->nargs == 2 &&
         e->args[0]->kind == LIR_E_INT && e->args[0]->ival == OVTA_RT_COMPUTE && e->args[1]->kind == LIR_E_INT &&
         e->args[1]->ival == OVTA_RT_LOAD;
}

static void flat(lir_block *b, lir_stmt *s) {
  if (s->kind == LIR_S_SEQ)
    for (int i = 0; i < s->n; i++) flat(b, s->stmts[i]);
  else lir_block_add(b, s);
}

/* Rule (vta_plan.res_pipe = k > 0; the end of insert-deps, which calls it). Matches the insert-deps
 * form of a conv with a fused add after the steps: `attr vthreads { W..; for i1 .. for in (constant
 * extents e1..en from 0) { attr virtual_thread = .. { P..; for tk in 0..K { step }; E1..; R.. } } }`
 * where R.. begins with the r step's `dep_pop(compute, load)` or, without it (vta_res_loads_free), its
 * first load (E1: the conv's passes, R: r's loads,
 * the identity GEMM, the add's passes, the store with their tokens). With F = the tile's index
 * (i1..in row-major) it becomes
 *   for i1 .. in { attr virtual_thread = .. { P..; for tk in 0..k { step };
 *                    if (F >= 1) { R.. of tile F - 1 };  for tk' in k..K { step }; E1.. } }
 *   R.. of the last tile
 * (R of tile F - 1: its loops copied with fresh variables, i_j replaced by the index of F - 1). The
 * tokens stay matched: each module's sequence is the same interleaving of the same steps (R, with
 * or without a slot of the compute<->load ring, now after step k of the next tile; tile t + 1's ACC part
 * is the other one, and its init pops the store token of tile t - 1, issued before it). Refuses
 * another form, vt < 2, k outside 1..K-1. */
int vta_res_pipeline(const vta_plan *p, lir_func *f, ovta_error *err) {
  int k = p->res_pipe;
  const char *nm = p->op.name;
  lir_stmt *top = f->body;
  if (!p->op.res || p->res_pre || p->vt < 2 || k < 1)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: needs a fused add after the steps and 2 virtual threads", nm);
  if (!top || top->kind != LIR_S_ATTR || strcmp(top->key, "vthreads"))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: the body is not `attr vthreads`", nm);
  lir_block tb;
  lir_block_init(&tb, f);
  flat(&tb, top->body);
  int ni = tb.n - 1;
  lir_stmt *nest = ni >= 0 ? tb.s[ni] : NULL;
  for (int i = 0; i < ni; i++)
    if (tb.s[i]->kind == LIR_S_FOR) nest = NULL;
  if (!nest || nest->kind != LIR_S_FOR)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: not one tile nest at the end", nm);
  /* the tile loops */
  lir_stmt *loops[8];
  int nl = 0;
  lir_stmt *s = nest;
  for (; s->kind == LIR_S_FOR; s = s->body) {
    if (nl == 8 || s->min->kind != LIR_E_INT || s->min->ival != 0 || s->extent->kind != LIR_E_INT)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: tile loop '%s' is not 0..constant", nm, s->var->name);
    loops[nl++] = s;
  }
  if (s->kind != LIR_S_ATTR || strcmp(s->key, "virtual_thread"))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: the tile has no virtual-thread attribute", nm);
  lir_stmt *vattr = s;
  lir_block body;
  lir_block_init(&body, f);
  flat(&body, vattr->body);
  int step = -1, r0 = -1;
  for (int i = 0; i < body.n; i++) {
    if (step < 0 && body.s[i]->kind == LIR_S_FOR) step = i;
    else if (step >= 0 && r0 < 0 && (is_pop_c2l(body.s[i]) || vta_stmt_calls(body.s[i], "ovta.dma_load"))) r0 = i;
  }
  if (step < 0 || r0 < 0)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: no step loop followed by the r step in the tile", nm);
  lir_stmt *sl = body.s[step];
  if (sl->min->kind != LIR_E_INT || sl->min->ival != 0 || sl->extent->kind != LIR_E_INT || k >= sl->extent->ival)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "res pipeline: %s: %d steps before the epilogue, not fewer than the tile's", nm, k);
  int64_t K = sl->extent->ival;
  /* F, the tile's row-major index, and the previous tile's indices */
  lir_expr *F = lir_i64(f, 0);
  int64_t stride[8], st = 1;
  for (int i = nl; i-- > 0;) stride[i] = st, st *= loops[i]->extent->ival;
  for (int i = 0; i < nl; i++) F = lir_add(f, F, lir_muli(f, lir_ref(f, loops[i]->var), stride[i]));
  lir_expr *G = lir_addi(f, F, -1);
  pctx c = {.f = f, .err = err, .prefix = "p_"};
  pctx last = {.f = f, .err = err, .prefix = "l_"};
  for (int i = 0; i < nl; i++) {
    lir_expr *q = lir_bin(f, LIR_FLOORDIV, G, lir_i64(f, stride[i]));
    c.s.from[i] = last.s.from[i] = loops[i]->var;
    c.s.to[i] = lir_bin(f, LIR_FLOORMOD, q, lir_i64(f, loops[i]->extent->ival));
    last.s.to[i] = lir_i64(f, loops[i]->extent->ival - 1);
  }
  c.s.n = last.s.n = nl;
  lir_stmt *rseq = lir_seq(f, body.n - r0, body.s + r0);
  lir_stmt *rprev = pcopy(&c, rseq), *rlast = pcopy(&last, rseq);
  /* the step loop in two: 0..k and k..K (a fresh variable) */
  pctx c2 = {.f = f, .err = err, .prefix = "q_"};
  lir_var *tk2 = lir_var_new(f, "tk_p", sl->var->dtype);
  c2.s.from[0] = sl->var, c2.s.to[0] = lir_ref(f, tk2), c2.s.n = 1;
  lir_stmt *first = lir_for(f, sl->var, sl->min, lir_i64(f, k), sl->for_kind, sl->body);
  lir_stmt *second = lir_for(f, tk2, lir_i64(f, k), lir_i64(f, K - k), sl->for_kind, pcopy(&c2, sl->body));
  if (c.rc || last.rc || c2.rc) return c.rc ? c.rc : last.rc ? last.rc : c2.rc;
  lir_block nb;
  lir_block_init(&nb, f);
  for (int i = 0; i < step; i++) lir_block_add(&nb, body.s[i]);
  lir_block_add(&nb, first);
  lir_block_add(&nb, lir_if(f, lir_bin(f, LIR_GE, F, lir_i64(f, 1)), rprev, NULL));
  lir_block_add(&nb, second);
  for (int i = step + 1; i < r0; i++) lir_block_add(&nb, body.s[i]);
  lir_stmt *in = lir_attr(f, vattr->key, vattr->value, lir_block_stmt(&nb));
  for (int i = nl; i-- > 0;) in = lir_for(f, loops[i]->var, loops[i]->min, loops[i]->extent, loops[i]->for_kind, in);
  lir_block out;
  lir_block_init(&out, f);
  for (int i = 0; i < ni; i++) lir_block_add(&out, tb.s[i]);
  lir_block_add(&out, in);
  lir_block_add(&out, rlast);
  f->body = lir_attr(f, top->key, top->value, lir_block_stmt(&out));
  return lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "res pipeline: out of memory") : OVTA_OK;
}
