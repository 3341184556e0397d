/* lower.c: the lowering stages of an accelerator operator (compiler/accel/accel.h section 3), from the
 * scalar loop nest to host code calling the runtime, and vta_lower_run, which runs them in order,
 * each once on the IR carried forward. The compute stage is emitted from the plan (the operator's
 * definition); the schedule stage is the compute stage rewritten by schedule primitives (accel.h,
 * script from the plan: sched_script); every later stage is an IR-to-IR pass over the stage before
 * it (accel/inject_dma.c, accel/tensorize.c, accel/inject_alu.c, accel/fold_uops.c,
 * accel/insert_deps.c, accel/host.c). Spec: compiler/accel/README.md, "Passes". */

#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"

/* Emitter state of the compute stage. */
typedef struct em {
  lir_func *f;            /* the function being built */
  const vta_plan *p;      /* the operator and its plan */
  lir_buf *x, *w, *b, *y; /* DRAM parameters (b: NULL without a bias) */
  lir_buf *r;             /* a fused residual add's other operand (NULL: none) */
  ovta_error *err;        /* where errors go */
} em;

#define F (e->f)
static lir_expr *I(em *e, int64_t v) { return lir_i64(F, v); }
static lir_expr *R(em *e, lir_var *v) { return lir_ref(F, v); }
static lir_expr *ADD(em *e, lir_expr *a, lir_expr *b) { return lir_add(F, a, b); }
static lir_expr *MULI(em *e, lir_expr *a, int64_t b) { return lir_muli(F, a, b); }

/* A loop nest over ext[0..n-1] (extent-1 loops kept: stable dumps); body built by the caller. */
typedef struct nest {
  int n;
  lir_var *v[10];
  int64_t ext[10];
} nest;
static void nest_open(em *e, nest *ns, int n, const int64_t *ext, const char *const *names) {
  ns->n = n;
  for (int i = 0; i < n; i++) ns->v[i] = lir_var_new(F, names[i], LIR_I64), ns->ext[i] = ext[i];
}
static lir_stmt *nest_close(em *e, nest *ns, lir_stmt *body) {
  for (int i = ns->n - 1; i >= 0; i--) body = lir_for(F, ns->v[i], I(e, 0), I(e, ns->ext[i]), LIR_FOR_SERIAL, body);
  return body;
}

/* ---------------------------------------------------------------- requantization */

/* The requantization after the reduction, as scalar IR (until inject-alu makes it ALU work): the rounding
 * constant is already in the accumulator (its initial value: bias + vta_requant_round), so only
 * the shift (arithmetic right, or wrapping left for a negative shift) and the clip remain. Per-channel
 * shifts (sh, the channel's element ob blocks after its bias): `v >> sh` (SHR with the tensor
 * operand takes every amount by the ISA's rule, which is ovta_requant's). */
static lir_expr *requant_expr(em *e, lir_expr *v, lir_expr *sh) {
  const vta_op *op = &e->p->op;
  if (sh) v = lir_bin(F, LIR_SHR, v, sh);
  else if (op->shift != 0) {
    int s = op->shift >= 32 ? 31 : op->shift;
    if (s > 0) v = lir_bin(F, LIR_SHR, v, lir_int(F, LIR_I32, s));
    else v = s <= -32 ? lir_int(F, LIR_I32, 0) : lir_bin(F, LIR_SHL, v, lir_int(F, LIR_I32, -s));
  }
  v = lir_bin(F, LIR_MAX, v, lir_int(F, LIR_I32, op->clip_min));
  return lir_bin(F, LIR_MIN, v, lir_int(F, LIR_I32, op->clip_max));
}

/* ---------------------------------------------------------------- stage compute */

/* Whether the bias parameter is viewed [2][O/BO][B][BO] (bias, then the per-channel shifts): per-channel
 * shifts with a per-tile bias, so that an output-channel tile's slice of both is one region
 * [2][t_oc][B][BO] for compute_at (in the [2*O/BO][B][BO] view, the same bytes, the two accesses
 * differ by O/BO blocks and their bounding region would span them). */
static bool bias_split(const vta_plan *p) { return p->op.shifts && p->op.has_bias && p->bias_base < 0; }

/* Channel block oc's bias (half 0) or shift (half 1) element [b][o] of the bias parameter. */
static lir_expr *bias_ref(em *e, const nest *o, int half) {
  const vta_plan *p = e->p;
  lir_expr *oc = R(e, o->v[1]), *b = R(e, o->v[4]), *ch = R(e, o->v[5]);
  if (bias_split(p)) return lir_load(F, e->b, (lir_expr *[4]){I(e, half), oc, b, ch});
  return lir_load(F, e->b, (lir_expr *[3]){half ? ADD(e, oc, I(e, p->ob)) : oc, b, ch});
}

static lir_stmt *emit_compute(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  nest o;
  int64_t oext[6] = {p->nb, p->ob, p->oh, p->ow, B, BO};
  static const char *const on[6] = {"n", "oc", "oh", "ow", "b", "o"};
  nest_open(e, &o, 6, oext, on);
  lir_buf *acc = lir_buf_new(F, "acc", LIR_I32, 0, NULL, LIR_SCOPE_LOCAL);
  lir_block blk;
  lir_block_init(&blk, F);
  lir_expr *init = lir_int(F, LIR_I32, vta_requant_round(op)); /* bias: rounding folded in */
  if (op->has_bias) init = bias_ref(e, &o, 0);
  lir_block_add(&blk, lir_store(F, acc, NULL, init));
  nest r;
  int64_t rext[4] = {p->gk, op->kh, op->kw, BI}; /* grouped: the input blocks of output block oc */
  static const char *const rn[4] = {"ic", "kh", "kw", "i"};
  nest_open(e, &r, 4, rext, rn);
  lir_expr *ih = ADD(e, ADD(e, MULI(e, R(e, o.v[2]), op->stride_h), I(e, -op->pad_t)), R(e, r.v[1]));
  lir_expr *iw = ADD(e, ADD(e, MULI(e, R(e, o.v[3]), op->stride_w), I(e, -op->pad_l)), R(e, r.v[2]));
  bool padded = op->pad_t || op->pad_l || op->pad_b || op->pad_r;
  lir_expr *ihc = padded ? lir_max(F, lir_min(F, ih, I(e, op->h - 1)), I(e, 0)) : ih;
  lir_expr *iwc = padded ? lir_max(F, lir_min(F, iw, I(e, op->w - 1)), I(e, 0)) : iw;
  lir_expr *ib = p->gs ? ADD(e, MULI(e, R(e, o.v[1]), p->gs), R(e, r.v[0])) : R(e, r.v[0]); /* oc * gs + ic */
  lir_expr *xi[6] = {R(e, o.v[0]), ib, ihc, iwc, R(e, o.v[4]), R(e, r.v[3])};
  lir_expr *wi[6] = {R(e, o.v[1]), R(e, r.v[0]), R(e, r.v[1]), R(e, r.v[2]), R(e, o.v[5]), R(e, r.v[3])};
  lir_expr *prod = lir_bin(F, LIR_MUL, lir_cast(F, LIR_I32, lir_load(F, e->x, xi)),
                           lir_cast(F, LIR_I32, lir_load(F, e->w, wi)));
  if (padded) {
    lir_expr *in = lir_bin(F, LIR_AND,
                           lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, ih, I(e, 0)), lir_bin(F, LIR_LT, ih, I(e, op->h))),
                           lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, iw, I(e, 0)), lir_bin(F, LIR_LT, iw, I(e, op->w))));
    prod = lir_select(F, in, prod, lir_int(F, LIR_I32, 0));
  }
  lir_block_add(&blk, nest_close(e, &r, lir_store(F, acc, NULL, lir_bin(F, LIR_ADD, lir_load(F, acc, NULL), prod))));
  lir_expr *yi[6];
  for (int i = 0; i < 6; i++) yi[i] = R(e, o.v[i]);
  lir_expr *sh = NULL;
  if (op->shifts) sh = bias_ref(e, &o, 1);
  lir_expr *yv = requant_expr(e, lir_load(F, acc, NULL), sh);
  if (e->r) yv = vta_res_expr(F, op, yv, lir_load(F, e->r, yi)); /* the fused add (res.c) */
  lir_block_add(&blk, lir_store(F, e->y, yi, lir_cast(F, LIR_I8, yv)));
  return nest_close(e, &o, lir_alloc_stmt(F, acc, lir_block_stmt(&blk)));
}

/* ---------------------------------------------------------------- stage schedule: primitives */

/* The schedule primitives (accel.h) that turn the compute stage into the schedule stage of the
 * plan (compiler/accel/README.md "Passes", 2): output tiles tn to th tw (split + reorder), the per-element
 * accumulator distributed into init / reduction / requantize-and-store nests over the tile
 * (fission: `acc` becomes the tile), the reduction split into steps tk of t_ic channel blocks
 * moved outside the tile's loops (split + reorder), `acc` in the ACC scope as acc_buf, the bias,
 * weights and input cached in acc/wgt/inp at the tile / step (the whole bias once when the plan
 * shares it), ping-pong parts over the fused tile index (ACC, bias) and step index (INP, WGT), the
 * allocations at the top, the tile's nests renamed to the loop names the later stages keep (init
 * an.., reduction gn.., requantize-and-store an_1..). Returns false when the script did not fit buf. */
static bool sched_script(const vta_plan *p, char *buf, size_t n) {
  const vta_op *op = &p->op;
  bool tile_bias = op->has_bias && p->bias_base < 0;
  int w = snprintf(buf, n,
                   "split n %d; split oc %d; split oh %d; split ow %d; "
                   "reorder n_o oc_o oh_o ow_o n_i oc_i oh_i ow_i b o; "
                   "rename n_o tn; rename oc_o to; rename oh_o th; rename ow_o tw; "
                   "fission n_i; split ic %d; rename ic_o tk; "
                   "reorder tk n_i_2 oc_i_2 oh_i_2 ow_i_2 ic_i kh kw b_2 o_2 i; "
                   "set_scope acc acc acc_buf; %s%s"
                   "cache_read w wgt wgt_buf; compute_at wgt_buf tk; cache_read x inp inp_buf; compute_at inp_buf tk; "
                   "vthread tn,to,th,tw %d acc_buf%s; vthread tn,to,th,tw,tk %d inp_buf wgt_buf; "
                   "%shoist_alloc acc_buf; hoist_alloc wgt_buf; hoist_alloc inp_buf; "
                   "rename n_i an; rename oc_i ao; rename oh_i ah; rename ow_i aw; rename b ab; rename o ai; "
                   "rename n_i_2 gn; rename oc_i_2 go; rename oh_i_2 gh; rename ow_i_2 gw; rename ic_i gc; rename kh gy; "
                   "rename kw gx; rename b_2 gb; rename o_2 gi; rename i gk; "
                   "rename n_i_3 an_1; rename oc_i_3 ao_1; rename oh_i_3 ah_1; rename ow_i_3 aw_1; rename b_3 ab_1; "
                   "rename o_3 ai_1",
                   p->t_n, p->t_oc, p->t_h, p->t_w, p->t_ic, op->has_bias ? "cache_read bias acc bias_buf; " : "",
                   tile_bias ? "compute_at bias_buf tw; " : "", p->vt, tile_bias ? " bias_buf" : "", p->vt,
                   tile_bias ? "hoist_alloc bias_buf; " : "");
  return w > 0 && (size_t)w < n;
}

/* ---------------------------------------------------------------- stages compute and schedule */

/* The compute stage (vta_pass_fn on an empty function): the parameters x, w, [bias,] y [, r, ident: a
 * fused residual add, res.c] in the packed layouts of accel.h, then the operator's scalar nest over
 * them (ALU operators: alu.c). */
int vta_pass_compute(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  if (f->nparams || f->body) return OVTA_FAIL(err, OVTA_EINVAL, "compute: %s: the function is not empty", f->name);
  if (vta_kind_alu(p->op.kind)) return vta_alu_compute(p, f, err);
  em ec = {.f = f, .p = p, .err = err}, *e = &ec;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int64_t xs[6] = {p->nb, p->cb, p->op.h, p->op.w, B, BI};
  int64_t ws[6] = {p->ob, p->gk, p->op.kh, p->op.kw, BO, BI};
  int64_t bs[4] = {p->op.shifts ? 2 * p->ob : p->ob, B, BO}; /* per-channel shifts after the bias */
  if (bias_split(p)) bs[0] = 2, bs[1] = p->ob, bs[2] = B, bs[3] = BO;
  int64_t ys[6] = {p->nb, p->ob, p->oh, p->ow, B, BO};
  e->x = lir_param(f, "x", LIR_I8, 6, xs);
  e->w = lir_param(f, "w", LIR_I8, 6, ws);
  if (p->op.has_bias) e->b = lir_param(f, "bias", LIR_I32, bias_split(p) ? 4 : 3, bs);
  e->y = lir_param(f, "y", LIR_I8, 6, ys);
  if (p->op.res) { /* a fused residual add: r in y's layout, the identity block (res.c) */
    int64_t is[3] = {1, BO, BI};
    e->r = lir_param(f, "r", LIR_I8, 6, ys);
    lir_param(f, "ident", LIR_I8, 3, is);
  }
  f->body = emit_compute(e);
  return OVTA_OK;
}

/* The schedule stage (vta_pass_fn on the compute stage): the plan's primitive script applied, the
 * result under `attr vthreads`. */
int vta_pass_schedule(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  if (vta_kind_alu(p->op.kind)) return vta_alu_schedule(p, uid, f, err);
  char script[2048];
  if (!sched_script(p, script, sizeof script)) return OVTA_FAIL(err, OVTA_EINTERNAL, "schedule script too long");
  vta_sched sc;
  vta_sched_init(&sc, f);
  int rc = vta_sched_apply(&sc, script, NULL, err);
  if (!rc && p->op.res) rc = vta_res_schedule(p, f, err); /* the fused add's epilogue (res.c) */
  if (rc) return rc;
  f->body = lir_attr(f, "vthreads", lir_i64(f, p->vt), f->body);
  return OVTA_OK;
}

/* ---------------------------------------------------------------- the stages in order */

static const struct {
  const char *name;
  vta_pass_fn pass;
} stages[VTA_S_COUNT] = {
    [VTA_S_COMPUTE] = {"compute", vta_pass_compute},          /* this file */
    [VTA_S_SCHEDULE] = {"schedule", vta_pass_schedule},       /* this file, primitives in sched.c */
    [VTA_S_DMA] = {"inject-dma", vta_pass_inject_dma},        /* inject_dma.c */
    [VTA_S_TENSORIZE] = {"tensorize", vta_pass_tensorize},    /* tensorize.c */
    [VTA_S_ALU] = {"inject-alu", vta_pass_inject_alu},        /* inject_alu.c */
    [VTA_S_FOLD] = {"fold-uops", vta_pass_fold},              /* fold_uops.c */
    [VTA_S_DEPS] = {"insert-deps", vta_pass_insert_deps},     /* insert_deps.c */
    [VTA_S_HOST] = {"host", vta_pass_host},                   /* host.c */
};

const char *vta_stage_name(vta_stage s) { return (unsigned)s < VTA_S_COUNT ? stages[s].name : "?"; }

int vta_stage_parse(const char *name) {
  for (int i = 0; i < VTA_S_COUNT; i++)
    if (!strcmp(name, stages[i].name)) return i;
  return -1;
}

vta_pass_fn vta_stage_pass(vta_stage s) { return (unsigned)s < VTA_S_COUNT ? stages[s].pass : NULL; }

/* Is stage `name` in the comma-separated list (or is the list "all")? */
static bool wants(const char *list, const char *name) {
  if (!list) return false;
  if (!strcmp(list, "all")) return true;
  size_t n = strlen(name);
  for (const char *s = list; (s = strstr(s, name)); s += n)
    if ((s == list || s[-1] == ',') && (s[n] == 0 || s[n] == ',')) return true;
  return false;
}

/* A lowering run: the IR carried from stage to stage. */
typedef struct lowering {
  const vta_plan *p;
  const vta_lower_opts *o;
  lir_func *f;     /* the IR after the last stage run */
  bool done;       /* o->last reached */
  int rc;          /* the first failure */
  ovta_error *err;
} lowering;

/* Run stage s (its pass on the IR so far) unless the run has stopped (o->last reached or a
 * failure); verify the result and dump it when asked. */
static void stage(lowering *l, vta_stage s) {
  if (l->done || l->rc) return;
  const vta_plan *p = l->p;
  int rc = stages[s].pass(p, l->o->uid & 0x7fffffff, l->f, l->err);
  if (!rc) rc = lir_func_oom(l->f) ? OVTA_FAIL(l->err, OVTA_ENOMEM, "%s: out of memory", p->op.name) : lir_verify(l->f, false, l->err);
  if (rc) {
    ovta_error_wrap(l->err, "%s: after pass %s", p->op.name, stages[s].name);
    l->rc = rc;
    return;
  }
  if (wants(l->o->print_after, stages[s].name)) {
    FILE *od = l->o->dump ? l->o->dump : stderr;
    fprintf(od, "// *** IR after pass %s ***\n", stages[s].name);
    lir_dump(od, l->f);
  }
  l->done = s == l->o->last;
}

int vta_lower_run(const vta_plan *p, const vta_lower_opts *o, lir_func **out, ovta_error *err) {
  *out = NULL;
  if ((unsigned)o->last >= VTA_S_COUNT) return OVTA_FAIL(err, OVTA_EINVAL, "vta_lower: bad stage %d", (int)o->last);
  if (o->print_after && strcmp(o->print_after, "all")) { /* every name must be a stage */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->print_after);
    for (char *sv = NULL, *t = strtok_r(buf, ",", &sv); t; t = strtok_r(NULL, ",", &sv))
      if (vta_stage_parse(t) < 0) return OVTA_FAIL(err, OVTA_EINVAL, "--print-after: unknown pass '%s'", t);
  }
  lowering l = {.p = p, .o = o, .err = err, .f = lir_func_new(o->fname ? o->fname : "vta")};
  if (!l.f) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", p->op.name);
  /* each stage once, on the IR carried forward (compiler/accel/README.md, "Passes") */
  stage(&l, VTA_S_COMPUTE);   /* the operator as a scalar nest over DRAM */
  stage(&l, VTA_S_SCHEDULE);  /* tiles, SRAM caches, virtual threads (schedule primitives) */
  stage(&l, VTA_S_DMA);       /* copy nests -> 2D DMA, in-place requantization before the store */
  stage(&l, VTA_S_TENSORIZE); /* multiply-accumulate blocks -> GEMM */
  stage(&l, VTA_S_ALU);       /* ACC init, requantization, ALU operators' updates -> ALU */
  stage(&l, VTA_S_FOLD);      /* loop nests -> micro-op kernels, flat SRAM indices */
  stage(&l, VTA_S_DEPS);      /* load/compute/store tokens */
  stage(&l, VTA_S_HOST);      /* runtime calls */
  if (l.rc) {
    lir_func_free(l.f);
    return l.rc;
  }
  *out = l.f;
  return OVTA_OK;
}

int vta_lower_uid(const vta_plan *p, vta_stage s, const char *fname, uint64_t uid, lir_func **out, ovta_error *err) {
  vta_lower_opts o = {.fname = fname, .uid = uid, .last = s};
  return vta_lower_run(p, &o, out, err);
}

int vta_lower(const vta_plan *p, vta_stage s, const char *fname, lir_func **out, ovta_error *err) {
  return vta_lower_uid(p, s, fname, 1, out, err);
}
