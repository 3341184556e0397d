/* vta_lower.c: the lowering stages of an accelerator operator (compiler/vta.h section 3), from the
 * scalar loop nest to host code calling the runtime. The compute stage is emitted from the plan;
 * the schedule stage is the compute stage rewritten by schedule primitives (vta_sched.h, script
 * from the plan: sched_script); the stages from inject-dma on are built from the plan by one
 * emitter whose stage number switches each construct to its lowered form (emit_tiled), the
 * reference of the IR-to-IR passes in stage_pass (inject-dma: vta_dma.c); the dump of stage s is
 * what pass s produces (spec: compiler/README-vta.md). */
#include "vta.h"
#include "vta_fold.h"
#include "vta_sched.h"

#include <stdlib.h>
#include <string.h>

static const char *const stage_names[VTA_S_COUNT] = {"compute", "schedule", "inject-dma", "tensorize",
                                                     "inject-alu", "fold-uops", "insert-deps", "host"};

const char *vta_stage_name(vta_stage s) { return (unsigned)s < VTA_S_COUNT ? stage_names[s] : "?"; }

int vta_stage_parse(const char *name) {
  for (int i = 0; i < VTA_S_COUNT; i++)
    if (!strcmp(name, stage_names[i])) return i;
  return -1;
}

/* Emitter state. */
typedef struct em {
  lir_func *f;
  const vta_plan *p;
  int st;                 /* stage being built */
  uint64_t uid;           /* kernel-key prefix of this compile */
  lir_buf *x, *w, *b, *y; /* DRAM parameters */
  lir_buf *inp, *wgt, *acc, *bias; /* SRAM buffers (stages schedule..alu) */
  lir_expr *tv[4];        /* tile loop indices: n, oc, h, w (in tiles) */
  lir_expr *a;            /* ACC part of this tile: tile % vt */
  lir_expr *pp;           /* INP/WGT part of this reduction step */
  lir_expr *tk;           /* reduction step within the tile */
  lir_expr *tq;           /* requantization/store chunk of the tile (NULL: one chunk) */
  int qoc;                /* output-channel blocks per chunk (t_oc / q_chunks) */
  int kseq;               /* kernel kinds used so far */
  int rc;
  ovta_error *err;
} em;

#define F (e->f)
static lir_expr *I(em *e, int64_t v) { return lir_i64(F, v); }
static lir_expr *R(em *e, lir_var *v) { return lir_ref(F, v); }
static lir_expr *ADD(em *e, lir_expr *a, lir_expr *b) { return lir_add(F, a, b); }
static lir_expr *MULI(em *e, lir_expr *a, int64_t b) { return lir_muli(F, a, b); }

static lir_stmt *call(em *e, const char *name, int n, lir_expr **args) {
  return lir_eval(F, lir_opaque(F, name, LIR_I32, n, args));
}
static lir_stmt *call0(em *e, const char *name) { return call(e, name, 0, NULL); }
static lir_stmt *call2(em *e, const char *name, int64_t a, int64_t b) {
  lir_expr *args[2] = {I(e, a), I(e, b)};
  return call(e, name, 2, args);
}
/* Runtime-level names from the host stage on, descriptive intrinsic names before. */
static const char *nm(em *e, const char *base) {
  static const struct { const char *a, *b; } map[] = {
      {"dma_load", "ovta_vrt_load"}, {"dma_store", "ovta_vrt_store"}, {"dep_push", "ovta_vrt_dep_push"},
      {"dep_pop", "ovta_vrt_dep_pop"}, {"kernel_begin", "ovta_vrt_kernel_begin"},
      {"uop_loop_begin", "ovta_vrt_loop_begin"}, {"uop_loop_end", "ovta_vrt_loop_end"}, {"uop", "ovta_vrt_uop"},
      {"gemm", "ovta_vrt_gemm"}, {"alu", "ovta_vrt_alu"}, {"kernel_end", "ovta_vrt_kernel_end"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(base, map[i].a)) {
      if (e->st >= VTA_S_HOST) return map[i].b;
      char buf[64];
      snprintf(buf, sizeof buf, "ovta.%s", base);
      return lir_strdup(F, buf);
    }
  unreachable();
}

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

/* The requantization after the reduction, as scalar IR (stages before inject-alu): the rounding
 * constant is already in the accumulator (its initial value: bias + vta_requant_round), so only
 * the shift (arithmetic right, or wrapping left for a negative shift) and the clip remain. */
static lir_expr *requant_expr(em *e, lir_expr *v) {
  const vta_op *op = &e->p->op;
  if (op->shift != 0) {
    int s = op->shift >= 32 ? 31 : op->shift;
    if (s > 0) v = lir_bin(F, LIR_SHR, v, lir_int(F, LIR_I32, s));
    else v = s <= -32 ? lir_int(F, LIR_I32, 0) : lir_bin(F, LIR_SHL, v, lir_int(F, LIR_I32, -s));
  }
  v = lir_bin(F, LIR_MAX, v, lir_int(F, LIR_I32, op->clip_min));
  return lir_bin(F, LIR_MIN, v, lir_int(F, LIR_I32, op->clip_max));
}

/* An ALU program over the whole ACC tile: immediate instructions in order. */
typedef struct alu_prog {
  int n;          /* instructions */
  int op[4];      /* OVTA_ALU_* opcodes */
  int32_t imm[4]; /* their 16-bit immediates (CLP: the packed int8 bounds) */
} alu_prog;

static void alu_push(alu_prog *a, int op, int32_t imm) { a->op[a->n] = op, a->imm[a->n++] = imm; }

/* The ACC fill of a bias-free op: MOV of the rounding constant, or (shift 16..31, the constant
 * beyond the 16-bit immediate) MOV 1 then a left shift by shift - 1. */
static void init_alu(const vta_op *op, alu_prog *a) {
  int32_t r = vta_requant_round(op);
  a->n = 0;
  if (r <= 32767) alu_push(a, OVTA_ALU_MOV, r);
  else alu_push(a, OVTA_ALU_MOV, 1), alu_push(a, OVTA_ALU_SHR, -(op->shift - 1));
}

/* The requantization after the GEMMs: SHR by the shift (when not 0), then CLP when both clip
 * bounds are int8, else MAX and MIN. */
static void requant_alu(const vta_op *op, alu_prog *a) {
  a->n = 0;
  int32_t clp;
  if (op->shift != 0) alu_push(a, OVTA_ALU_SHR, op->shift);
  if (vta_clip_imm(op, &clp)) {
    alu_push(a, OVTA_ALU_CLP, clp);
  } else {
    alu_push(a, OVTA_ALU_MAX, op->clip_min);
    alu_push(a, OVTA_ALU_MIN, op->clip_max);
  }
}

/* Intrinsic names of the ALU opcodes (stages inject-alu .. tensorize-level IR). */
static const char *const alu_names[7] = {"ovta.alu_min", "ovta.alu_max", "ovta.alu_add", "ovta.alu_shr",
                                         "ovta.alu_mul", "ovta.alu_mov", "ovta.alu_clp"};

/* One ALU intrinsic call on acc with an immediate (CLP printed with its two bounds). */
static lir_stmt *alu_imm_call(em *e, lir_expr *acc, int op, int32_t imm) {
  if (op == OVTA_ALU_CLP) {
    lir_expr *args[3] = {acc, lir_int(F, LIR_I32, (int8_t)(imm & 0xff)), lir_int(F, LIR_I32, (int8_t)((imm >> 8) & 0xff))};
    return call(e, alu_names[op], 3, args);
  }
  lir_expr *args[2] = {acc, lir_int(F, LIR_I32, imm)};
  return call(e, alu_names[op], 2, args);
}

/* ---------------------------------------------------------------- stage compute */

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
  if (op->has_bias) {
    lir_expr *bi[3] = {R(e, o.v[1]), R(e, o.v[4]), R(e, o.v[5])};
    init = lir_load(F, e->b, bi);
  }
  lir_block_add(&blk, lir_store(F, acc, NULL, init));
  nest r;
  int64_t rext[4] = {p->cb, op->kh, op->kw, BI};
  static const char *const rn[4] = {"ic", "kh", "kw", "i"};
  nest_open(e, &r, 4, rext, rn);
  lir_expr *ih = ADD(e, ADD(e, MULI(e, R(e, o.v[2]), op->stride_h), I(e, -op->pad_t)), R(e, r.v[1]));
  lir_expr *iw = ADD(e, ADD(e, MULI(e, R(e, o.v[3]), op->stride_w), I(e, -op->pad_l)), R(e, r.v[2]));
  bool padded = op->pad_t || op->pad_l || op->pad_b || op->pad_r;
  lir_expr *ihc = padded ? lir_max(F, lir_min(F, ih, I(e, op->h - 1)), I(e, 0)) : ih;
  lir_expr *iwc = padded ? lir_max(F, lir_min(F, iw, I(e, op->w - 1)), I(e, 0)) : iw;
  lir_expr *xi[6] = {R(e, o.v[0]), R(e, r.v[0]), ihc, iwc, R(e, o.v[4]), R(e, r.v[3])};
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
  lir_block_add(&blk, lir_store(F, e->y, yi, lir_cast(F, LIR_I8, requant_expr(e, lir_load(F, acc, NULL)))));
  return nest_close(e, &o, lir_alloc_stmt(F, acc, lir_block_stmt(&blk)));
}

/* ---------------------------------------------------------------- copies (cache read/write, DMA) */

/* A copy between DRAM and SRAM over dims d (outer first) with extents and element strides on
 * both sides; `org[d]` is the DRAM index of the tile origin per dim of the DRAM buffer. */
typedef struct copy {
  int nd;
  int64_t ext[6], dst[6], sst[6]; /* extent, DRAM stride, SRAM stride (elements) */
  int role[6];                    /* 0 host loop, 1 in x, 2 in y */
  int64_t xs, ys, stride;
} copy;

/* Group the dims: x = innermost contiguous run, y = the next dims with a constant DRAM stride
 * and SRAM rows packed, the rest host loops (2D strided DMA, README-vta.md "inject-dma"). */
static void copy_plan(copy *c) {
  int d = c->nd - 1;
  c->xs = 1;
  while (d >= 0 && (c->ext[d] == 1 || (c->dst[d] == c->xs && c->sst[d] == c->xs))) c->xs *= c->ext[d], c->role[d--] = 1;
  c->ys = 1, c->stride = c->xs;
  if (d >= 0 && c->sst[d] == c->xs && c->dst[d] <= 65535) {
    c->stride = c->dst[d], c->ys = c->ext[d], c->role[d--] = 2;
    while (d >= 0 && (c->ext[d] == 1 || (c->sst[d] == c->xs * c->ys && c->dst[d] == c->stride * c->ys)))
      c->ys *= c->ext[d], c->role[d--] = 2;
  }
  for (; d >= 0; d--) c->role[d] = 0;
}

/* Emit DMA calls of a planned copy. dram/sram_idx: per dim, the index expression of the origin
 * (DRAM: within the DRAM buffer dims, same order; SRAM: within the SRAM buffer). */
typedef struct dma_args {
  int mem;            /* OVTA_MEM_* */
  lir_buf *dram;      /* DRAM parameter */
  int handle;         /* VTA_BUF_* */
  lir_buf *sram;      /* SRAM buffer (stages before fold-uops) */
  int64_t sram_base_const; /* flat offset inside the part */
  lir_expr *part_base;     /* flat part base (fold-uops on) */
  lir_expr *sram_lead;     /* leading SRAM index: the part (before fold-uops) */
  bool store;
  lir_expr *pads[4];  /* x0 y0 x1 y1 or NULL */
  lir_expr *sram_org[8]; /* SRAM index origin per copy dim (stages before fold-uops; NULL: 0) */
} dma_args;

static lir_expr *flat(em *e, lir_buf *b, lir_expr **idx, int n) {
  /* elements of the DMA type: all but the last two (BATCH x BLOCK) dims */
  lir_expr *v = I(e, 0);
  for (int i = 0; i < n; i++) v = ADD(e, MULI(e, v, b->shape[i]), idx[i]);
  return v;
}

static lir_stmt *emit_dma(em *e, const copy *c, dma_args *a, lir_expr **dram_org, int ndram,
                          const int *dram_dim_of, const char *const *names) {
  /* host loops over role-0 dims */
  nest hn;
  int64_t ext[6];
  const char *hnames[6];
  int hmap[6], nh = 0;
  for (int d = 0; d < c->nd; d++)
    if (c->role[d] == 0) hmap[nh] = d, hnames[nh] = names[d], ext[nh++] = c->ext[d];
  nest_open(e, &hn, nh, ext, hnames);
  lir_expr *hv[6] = {0};
  for (int i = 0; i < nh; i++) hv[hmap[i]] = R(e, hn.v[i]);
  /* DRAM index */
  lir_expr *di[8];
  for (int i = 0; i < ndram; i++) di[i] = dram_org[i];
  for (int d = 0; d < c->nd; d++)
    if (hv[d] && dram_dim_of[d] >= 0) di[dram_dim_of[d]] = ADD(e, di[dram_dim_of[d]], hv[d]);
  lir_expr *soff = I(e, a->sram_base_const);
  for (int d = 0; d < c->nd; d++)
    if (hv[d]) soff = ADD(e, soff, MULI(e, hv[d], c->sst[d]));
  lir_expr *args[11];
  int n = 0;
  if (!a->store) args[n++] = I(e, a->mem);
  if (e->st < VTA_S_FOLD) {
    /* SRAM as a buffer reference: copy dim d is SRAM buffer dim d + 1 (after the part) */
    lir_expr *si[8];
    si[0] = a->sram_lead;
    for (int i = 1; i < a->sram->ndim; i++) {
      si[i] = (i - 1 < c->nd && hv[i - 1]) ? hv[i - 1] : I(e, 0);
      if (i - 1 < c->nd && a->sram_org[i - 1]) si[i] = hv[i - 1] ? ADD(e, a->sram_org[i - 1], hv[i - 1]) : a->sram_org[i - 1];
    }
    args[n++] = lir_load(F, a->sram, si);
  } else {
    args[n++] = ADD(e, a->part_base, soff);
  }
  if (e->st < VTA_S_HOST) {
    lir_expr *dd[8];
    for (int i = 0; i < ndram; i++) dd[i] = di[i];
    dd[ndram] = I(e, 0), dd[ndram + 1] = I(e, 0);
    args[n++] = lir_load(F, a->dram, dd);
  } else {
    args[n++] = I(e, a->handle);
    args[n++] = flat(e, a->dram, di, ndram);
  }
  args[n++] = a->pads[0] ? lir_sub(F, I(e, c->xs), lir_add(F, a->pads[0], a->pads[2])) : I(e, c->xs);
  args[n++] = a->pads[1] ? lir_sub(F, I(e, c->ys), lir_add(F, a->pads[1], a->pads[3])) : I(e, c->ys);
  args[n++] = I(e, c->stride);
  if (!a->store)
    for (int i = 0; i < 4; i++) args[n++] = a->pads[i] ? a->pads[i] : I(e, 0);
  return nest_close(e, &hn, call(e, nm(e, a->store ? "dma_store" : "dma_load"), n, args));
}

static lir_expr *ih_of(em *e, lir_expr *r) {
  const vta_plan *p = e->p;
  return ADD(e, MULI(e, e->tv[2], (int64_t)p->t_h * p->op.stride_h), ADD(e, MULI(e, r, p->in_rs), I(e, -p->op.pad_t)));
}
static lir_expr *iw_of(em *e, lir_expr *c) {
  const vta_plan *p = e->p;
  return ADD(e, MULI(e, e->tv[3], (int64_t)p->t_w * p->op.stride_w), ADD(e, c, I(e, -p->op.pad_l)));
}
static lir_expr *ix_acc_sram(em *e, lir_expr **v, lir_expr **o) {
  o[0] = e->a;
  for (int i = 0; i < 6; i++) o[i + 1] = v[i];
  return NULL;
}

static const char *const cn6[6] = {"cn", "cc", "cr", "cw", "cb", "ci"};

static lir_stmt *emit_load_inp(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  copy c = {.nd = 4, .ext = {p->t_n, p->t_ic, p->in_h, p->in_w},
            .dst = {(int64_t)p->cb * op->h * op->w, (int64_t)op->h * op->w, (int64_t)op->w * p->in_rs, 1},
            .sst = {(int64_t)p->t_ic * p->in_h * p->in_w, (int64_t)p->in_h * p->in_w, p->in_w, 1}};
  dma_args a = {.mem = OVTA_MEM_INP, .dram = e->x, .handle = VTA_BUF_X, .sram = e->inp, .sram_lead = e->pp,
                .part_base = MULI(e, e->pp, p->inp_part)};
  lir_expr *org[4] = {MULI(e, e->tv[0], p->t_n), MULI(e, e->tk, p->t_ic), NULL, NULL};
  bool padded = op->pad_t || op->pad_l || op->pad_b || op->pad_r;
  if (padded) {
    /* rows and columns of the halo outside the image become DMA padding */
    c.role[0] = c.role[1] = 0, c.role[2] = 2, c.role[3] = 1;
    c.xs = p->in_w, c.ys = p->in_h, c.stride = op->w;
    lir_expr *h0 = ih_of(e, I(e, 0)), *w0 = iw_of(e, I(e, 0));
    a.pads[1] = lir_max(F, lir_sub(F, I(e, 0), h0), I(e, 0));
    a.pads[3] = lir_max(F, lir_sub(F, ADD(e, h0, I(e, p->in_h)), I(e, op->h)), I(e, 0));
    a.pads[0] = lir_max(F, lir_sub(F, I(e, 0), w0), I(e, 0));
    a.pads[2] = lir_max(F, lir_sub(F, ADD(e, w0, I(e, p->in_w)), I(e, op->w)), I(e, 0));
    org[2] = lir_max(F, h0, I(e, 0)), org[3] = lir_max(F, w0, I(e, 0));
  } else {
    copy_plan(&c);
    org[2] = ih_of(e, I(e, 0)), org[3] = iw_of(e, I(e, 0));
  }
  static const int dd[4] = {0, 1, 2, 3};
  return emit_dma(e, &c, &a, org, 4, dd, cn6);
}

static lir_stmt *emit_load_wgt(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  copy c = {.nd = 4, .ext = {p->t_oc, p->t_ic, op->kh, op->kw},
            .dst = {(int64_t)p->cb * op->kh * op->kw, (int64_t)op->kh * op->kw, op->kw, 1},
            .sst = {(int64_t)p->t_ic * op->kh * op->kw, (int64_t)op->kh * op->kw, op->kw, 1}};
  copy_plan(&c);
  dma_args a = {.mem = OVTA_MEM_WGT, .dram = e->w, .handle = VTA_BUF_W, .sram = e->wgt, .sram_lead = e->pp,
                .part_base = MULI(e, e->pp, p->wgt_part)};
  lir_expr *org[4] = {MULI(e, e->tv[1], p->t_oc), MULI(e, e->tk, p->t_ic), I(e, 0), I(e, 0)};
  static const int dd[4] = {0, 1, 2, 3};
  static const char *const n[4] = {"wo", "wc", "wh", "ww"};
  return emit_dma(e, &c, &a, org, 4, dd, n);
}

static lir_stmt *emit_load_bias(em *e) {
  const vta_plan *p = e->p;
  if (p->bias_base >= 0) { /* the whole bias, once */
    static const char *const n[3] = {"bo", "bb", "bi"};
    copy c = {.nd = 1, .ext = {p->ob}, .dst = {1}, .sst = {1}};
    copy_plan(&c);
    dma_args a = {.mem = OVTA_MEM_ACC, .dram = e->b, .handle = VTA_BUF_BIAS, .sram = e->bias, .sram_lead = I(e, 0),
                  .part_base = I(e, p->bias_base)};
    lir_expr *org[1] = {I(e, 0)};
    static const int dd[1] = {0};
    return emit_dma(e, &c, &a, org, 1, dd, n);
  }
  copy c = {.nd = 1, .ext = {p->t_oc}, .dst = {1}, .sst = {1}};
  copy_plan(&c);
  int64_t acc_elems = (int64_t)p->t_n * p->t_oc * p->t_h * p->t_w;
  dma_args a = {.mem = OVTA_MEM_ACC, .dram = e->b, .handle = VTA_BUF_BIAS, .sram = e->bias, .sram_lead = e->a,
                .part_base = ADD(e, MULI(e, e->a, p->acc_part), I(e, acc_elems))};
  lir_expr *org[1] = {MULI(e, e->tv[1], p->t_oc)};
  static const int dd[1] = {0};
  static const char *const n[1] = {"bo"};
  return emit_dma(e, &c, &a, org, 1, dd, n);
}

/* The output-channel block of chunk-local block v within the tile. */
static lir_expr *chunk_oc(em *e, lir_expr *v) { return e->tq ? ADD(e, MULI(e, e->tq, e->qoc), v) : v; }

/* Store of the tile's current chunk (output-channel blocks tq * qoc .. + qoc). */
static lir_stmt *emit_store(em *e) {
  const vta_plan *p = e->p;
  static const char *const n[6] = {"sn", "so", "sh", "sw", "sb", "si"};
  copy c = {.nd = 4, .ext = {p->t_n, e->qoc, p->t_h, p->t_w},
            .dst = {(int64_t)p->ob * p->oh * p->ow, (int64_t)p->oh * p->ow, p->ow, 1},
            .sst = {(int64_t)p->t_oc * p->t_h * p->t_w, (int64_t)p->t_h * p->t_w, p->t_w, 1}};
  copy_plan(&c);
  lir_expr *pb = MULI(e, e->a, p->acc_part);
  if (e->tq) pb = ADD(e, pb, MULI(e, e->tq, (int64_t)e->qoc * p->t_h * p->t_w));
  dma_args a = {.mem = OVTA_MEM_OUT, .dram = e->y, .handle = VTA_BUF_Y, .sram = e->acc, .sram_lead = e->a,
                .part_base = pb, .store = true};
  if (e->tq) a.sram_org[1] = MULI(e, e->tq, e->qoc);
  lir_expr *org[4] = {MULI(e, e->tv[0], p->t_n), chunk_oc(e, MULI(e, e->tv[1], p->t_oc)), MULI(e, e->tv[2], p->t_h),
                      MULI(e, e->tv[3], p->t_w)};
  static const int dd[4] = {0, 1, 2, 3};
  return emit_dma(e, &c, &a, org, 4, dd, n);
}

/* ---------------------------------------------------------------- compute on SRAM */

/* Tensorized statements fold into micro-op kernels by vta_fold_loops (compiler/vta_fold.h, shared
 * with the fold-uops pass). */
typedef vta_aloop aloop;
typedef vta_fold fold;
#define fold_loops vta_fold_loops

/* Kernel kinds (part of the key). */
enum { K_TILE = 1, K_GEMM = 2, K_BIAS = 3, K_REQ = 4 };

/* Emit a folded kernel: host loops { kernel_begin(key); record {loop levels; uops}; pushes; end }.
 * base: flat dst/src/wgt bases; push(e) adds the GEMM/ALU pushes. */
static lir_stmt *emit_kernel(em *e, const fold *fo, lir_expr *const base[3], int kind, lir_expr *parts,
                             lir_stmt *pushes) {
  nest hn;
  int64_t hext[8];
  const char *hname[8];
  for (int i = 0; i < fo->nh; i++) hext[i] = fo->h[i].ext, hname[i] = fo->h[i].name;
  nest_open(e, &hn, fo->nh, hext, hname);
  lir_expr *b[3] = {base[0], base[1], base[2]};
  lir_expr *hidx = I(e, 0);
  for (int i = 0; i < fo->nh; i++) {
    for (int k = 0; k < 3; k++) b[k] = ADD(e, b[k], MULI(e, R(e, hn.v[i]), fo->h[i].f[k]));
    hidx = ADD(e, MULI(e, hidx, fo->h[i].ext), R(e, hn.v[i]));
  }
  /* key: compile uid (bits 32..62), kind (28..31), parts (20..27: ACC/INP parts, for the bias
   * copy of a shared bias also the output-channel tile), host iteration (0..19) */
  lir_expr *key = ADD(e, I(e, (int64_t)(e->uid << 32 | (uint64_t)kind << 28)), ADD(e, MULI(e, parts, 1 << 20), hidx));
  lir_block rec;
  lir_block_init(&rec, F);
  for (int i = 0; i < fo->nl; i++) {
    lir_expr *a[4] = {I(e, fo->l[i].ext), I(e, fo->l[i].f[0]), I(e, fo->l[i].f[1]), I(e, fo->l[i].f[2])};
    lir_block_add(&rec, call(e, nm(e, "uop_loop_begin"), 4, a));
  }
  nest un;
  int64_t uext[8];
  const char *uname[8];
  for (int i = 0; i < fo->nu; i++) uext[i] = fo->u[i].ext, uname[i] = fo->u[i].name;
  nest_open(e, &un, fo->nu, uext, uname);
  lir_expr *ub[3] = {b[0], b[1], b[2]};
  for (int i = 0; i < fo->nu; i++)
    for (int k = 0; k < 3; k++) ub[k] = ADD(e, ub[k], MULI(e, R(e, un.v[i]), fo->u[i].f[k]));
  lir_block_add(&rec, nest_close(e, &un, call(e, nm(e, "uop"), 3, ub)));
  for (int i = 0; i < fo->nl; i++) lir_block_add(&rec, call0(e, nm(e, "uop_loop_end")));
  lir_block body;
  lir_block_init(&body, F);
  if (e->st >= VTA_S_HOST) {
    lir_expr *kb = lir_opaque(F, nm(e, "kernel_begin"), LIR_I32, 1, &key);
    lir_block_add(&body, lir_if(F, lir_bin(F, LIR_NE, kb, lir_int(F, LIR_I32, 0)), lir_block_stmt(&rec), NULL));
  } else {
    lir_block_add(&body, lir_attr(F, "uop_kernel", key, lir_block_stmt(&rec)));
  }
  lir_block_add(&body, pushes);
  lir_block_add(&body, call0(e, nm(e, "kernel_end")));
  return nest_close(e, &hn, lir_block_stmt(&body));
}

static lir_stmt *push_gemm(em *e, int reset) {
  lir_expr *a = I(e, reset);
  return call(e, nm(e, "gemm"), 1, &a);
}
static lir_stmt *push_alu(em *e, int op, int use_imm, int imm) {
  lir_expr *a[3] = {I(e, op), I(e, use_imm), I(e, imm)};
  return call(e, nm(e, "alu"), 3, a);
}

/* The whole ACC tile as loops (dst only): reset and requantization. */
static void tile_loops(const vta_plan *p, aloop *l) {
  l[0] = (aloop){"an", p->t_n, {(int64_t)p->t_oc * p->t_h * p->t_w, 0, 0}, 0};
  l[1] = (aloop){"ao", p->t_oc, {(int64_t)p->t_h * p->t_w, 0, 0}, 0};
  l[2] = (aloop){"ah", p->t_h, {p->t_w, 0, 0}, 0};
  l[3] = (aloop){"aw", p->t_w, {1, 0, 0}, 0};
}

static const char *const an6[6] = {"an", "ao", "ah", "aw", "ab", "ai"};

/* The bias-copy kernel: the ACC tile as loops with src = the tile's bias element of its output
 * channel block (bias_buf follows the tile in the ACC part). */
static lir_stmt *emit_bias_kernel(em *e, lir_stmt *pushes) {
  const vta_plan *p = e->p;
  aloop l[4];
  tile_loops(p, l);
  l[1].f[1] = 1; /* bias element per output-channel block */
  fold fo;
  fold_loops(l, 4, p->uop_budget, &fo);
  if (p->bias_base >= 0) { /* src: the tile's first bias element in the shared region; one kernel per output-channel tile */
    lir_expr *base[3] = {MULI(e, e->a, p->acc_part), ADD(e, I(e, p->bias_base), MULI(e, e->tv[1], p->t_oc)), I(e, 0)};
    return emit_kernel(e, &fo, base, K_BIAS, ADD(e, e->a, MULI(e, e->tv[1], p->vt)), pushes);
  }
  int64_t acc_elems = (int64_t)p->t_n * p->t_oc * p->t_h * p->t_w;
  lir_expr *base[3] = {MULI(e, e->a, p->acc_part), ADD(e, MULI(e, e->a, p->acc_part), I(e, acc_elems)), I(e, 0)};
  return emit_kernel(e, &fo, base, K_BIAS, e->a, pushes);
}

/* An immediate ALU program over the whole ACC tile (chunk: over the current chunk's output-channel
 * blocks): one kernel (one micro-op, the region as loop levels). */
static lir_stmt *emit_tile_alu(em *e, const alu_prog *ap, bool chunk) {
  const vta_plan *p = e->p;
  aloop l[4];
  tile_loops(p, l);
  lir_expr *base[3] = {MULI(e, e->a, p->acc_part), I(e, 0), I(e, 0)};
  int kind = K_TILE;
  lir_expr *parts = e->a;
  if (chunk && e->tq) {
    l[1].ext = e->qoc;
    base[0] = ADD(e, base[0], MULI(e, e->tq, (int64_t)e->qoc * p->t_h * p->t_w));
    kind = K_REQ, parts = ADD(e, e->a, MULI(e, e->tq, p->vt));
  }
  fold fo;
  fold_loops(l, 4, 1, &fo);
  lir_block pushes;
  lir_block_init(&pushes, F);
  for (int i = 0; i < ap->n; i++) lir_block_add(&pushes, push_alu(e, ap->op[i], 1, ap->imm[i]));
  return emit_kernel(e, &fo, base, kind, parts, lir_block_stmt(&pushes));
}

/* acc init = the value the reduction starts from: the bias (with the rounding constant folded in,
 * vta_pack_bias) or the rounding constant. Scalar copy up to tensorize; inject-alu: ALU MOV with
 * the bias as tensor operand (one read per element) or an immediate fill (init_alu). It replaces
 * VTA's GEMM reset pass, bias add and rounding add. */
static lir_stmt *emit_init(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BO = p->cfg.block_out;
  alu_prog ap;
  init_alu(op, &ap);
  if (e->st < VTA_S_FOLD) {
    bool scalar = e->st < VTA_S_ALU;
    int64_t ext[6] = {p->t_n, p->t_oc, p->t_h, p->t_w, B, BO};
    nest ns;
    nest_open(e, &ns, scalar ? 6 : 4, ext, an6);
    lir_expr *v[6], *si[7];
    for (int i = 0; i < ns.n; i++) v[i] = R(e, ns.v[i]);
    if (!scalar) v[4] = v[5] = I(e, 0);
    ix_acc_sram(e, v, si);
    lir_expr *bias = NULL;
    if (op->has_bias && p->bias_base >= 0) {
      lir_expr *bi[3] = {ADD(e, MULI(e, e->tv[1], p->t_oc), v[1]), v[4], v[5]};
      bias = lir_load(F, e->bias, bi);
    } else if (op->has_bias) {
      lir_expr *bi[4] = {e->a, v[1], v[4], v[5]};
      bias = lir_load(F, e->bias, bi);
    }
    if (scalar)
      return nest_close(e, &ns, lir_store(F, e->acc, si, bias ? bias : lir_int(F, LIR_I32, vta_requant_round(op))));
    if (bias) {
      lir_expr *args[2] = {lir_load(F, e->acc, si), bias};
      return nest_close(e, &ns, call(e, alu_names[OVTA_ALU_MOV], 2, args));
    }
    lir_block in;
    lir_block_init(&in, F);
    for (int i = 0; i < ap.n; i++) lir_block_add(&in, alu_imm_call(e, lir_load(F, e->acc, si), ap.op[i], ap.imm[i]));
    return nest_close(e, &ns, lir_block_stmt(&in));
  }
  if (op->has_bias) return emit_bias_kernel(e, push_alu(e, OVTA_ALU_MOV, 0, 0));
  return emit_tile_alu(e, &ap, false);
}

static void gemm_loops(const vta_plan *p, aloop *l) {
  const vta_op *op = &p->op;
  l[0] = (aloop){"gn", p->t_n, {(int64_t)p->t_oc * p->t_h * p->t_w, (int64_t)p->t_ic * p->in_h * p->in_w, 0}, 0};
  l[1] = (aloop){"go", p->t_oc, {(int64_t)p->t_h * p->t_w, 0, (int64_t)p->t_ic * op->kh * op->kw}, 0};
  l[2] = (aloop){"gh", p->t_h, {p->t_w, (int64_t)(op->stride_h / p->in_rs) * p->in_w, 0}, 0};
  l[3] = (aloop){"gw", p->t_w, {1, op->stride_w, 0}, 0};
  l[4] = (aloop){"gc", p->t_ic, {0, (int64_t)p->in_h * p->in_w, (int64_t)op->kh * op->kw}, 0};
  l[5] = (aloop){"gy", op->kh, {0, p->in_w, op->kw}, 0};
  l[6] = (aloop){"gx", op->kw, {0, 1, 1}, 0};
}

static lir_stmt *emit_gemm(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  static const char *const gn[10] = {"gn", "go", "gh", "gw", "gc", "gy", "gx", "gb", "gi", "gk"};
  if (e->st < VTA_S_FOLD) {
    bool scalar = e->st < VTA_S_TENSORIZE;
    int64_t ext[10] = {p->t_n, p->t_oc, p->t_h, p->t_w, p->t_ic, op->kh, op->kw, B, BO, BI};
    nest ns;
    nest_open(e, &ns, scalar ? 10 : 7, ext, gn);
    lir_expr *v[10];
    for (int i = 0; i < ns.n; i++) v[i] = R(e, ns.v[i]);
    lir_expr *z = I(e, 0);
    lir_expr *ai[7] = {e->a, v[0], v[1], v[2], v[3], scalar ? v[7] : z, scalar ? v[8] : z};
    lir_expr *ii[7] = {e->pp, v[0], v[4], ADD(e, MULI(e, v[2], op->stride_h / p->in_rs), v[5]),
                       ADD(e, MULI(e, v[3], op->stride_w), v[6]), scalar ? v[7] : z, scalar ? v[9] : z};
    lir_expr *wi[7] = {e->pp, v[1], v[4], v[5], v[6], scalar ? v[8] : z, scalar ? v[9] : z};
    lir_stmt *body;
    if (scalar) {
      lir_expr *prod = lir_bin(F, LIR_MUL, lir_cast(F, LIR_I32, lir_load(F, e->inp, ii)),
                               lir_cast(F, LIR_I32, lir_load(F, e->wgt, wi)));
      body = lir_store(F, e->acc, ai, lir_bin(F, LIR_ADD, lir_load(F, e->acc, ai), prod));
    } else {
      lir_expr *args[3] = {lir_load(F, e->acc, ai), lir_load(F, e->inp, ii), lir_load(F, e->wgt, wi)};
      body = call(e, "ovta.gemm", 3, args);
    }
    return nest_close(e, &ns, body);
  }
  aloop l[7];
  gemm_loops(p, l);
  fold fo;
  fold_loops(l, 7, p->uop_budget, &fo);
  lir_expr *base[3] = {MULI(e, e->a, p->acc_part), MULI(e, e->pp, p->inp_part), MULI(e, e->pp, p->wgt_part)};
  return emit_kernel(e, &fo, base, K_GEMM, ADD(e, MULI(e, e->a, 2), e->pp), push_gemm(e, 0));
}

/* requantization after the reduction (the bias and rounding constant are in the initial value), of
 * the tile's current chunk */
static lir_stmt *emit_epilogue(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BO = p->cfg.block_out;
  alu_prog ap;
  requant_alu(op, &ap);
  if (e->st < VTA_S_FOLD) {
    bool scalar = e->st < VTA_S_ALU;
    int64_t ext[6] = {p->t_n, e->qoc, p->t_h, p->t_w, B, BO};
    nest ns;
    nest_open(e, &ns, scalar ? 6 : 4, ext, an6);
    lir_expr *v[6], *si[7];
    for (int i = 0; i < ns.n; i++) v[i] = R(e, ns.v[i]);
    v[1] = chunk_oc(e, v[1]);
    if (!scalar) v[4] = v[5] = I(e, 0);
    ix_acc_sram(e, v, si);
    if (scalar) return nest_close(e, &ns, lir_store(F, e->acc, si, requant_expr(e, lir_load(F, e->acc, si))));
    lir_block in;
    lir_block_init(&in, F);
    for (int i = 0; i < ap.n; i++) lir_block_add(&in, alu_imm_call(e, lir_load(F, e->acc, si), ap.op[i], ap.imm[i]));
    return nest_close(e, &ns, lir_block_stmt(&in));
  }
  return emit_tile_alu(e, &ap, true);
}

/* ---------------------------------------------------------------- tiled program */

static lir_stmt *dep(em *e, bool push, int from, int to) {
  return call2(e, nm(e, push ? "dep_push" : "dep_pop"), from, to);
}

/* A tile's requantization and store in nq output-channel chunks: compute hands each chunk to the
 * store (one compute->store token each); the caller returns the ACC part after the last store. */
static lir_stmt *emit_requant_store(em *e, int nq) {
  const vta_plan *p = e->p;
  bool deps = e->st >= VTA_S_DEPS;
  lir_var *qv = nq > 1 ? lir_var_new(F, "tq", LIR_I64) : NULL;
  e->tq = qv ? R(e, qv) : NULL;
  e->qoc = p->t_oc / nq;
  lir_block q;
  lir_block_init(&q, F);
  lir_block_add(&q, emit_epilogue(e));
  if (deps) {
    lir_block_add(&q, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_STORE));
    lir_block_add(&q, dep(e, false, OVTA_RT_COMPUTE, OVTA_RT_STORE));
  }
  lir_block_add(&q, emit_store(e));
  lir_stmt *qs = lir_block_stmt(&q);
  e->tq = NULL, e->qoc = p->t_oc;
  return qv ? lir_for(F, qv, I(e, 0), I(e, nq), LIR_FOR_SERIAL, qs) : qs;
}

/* The tiled program of stages inject-dma .. host (the schedule stage comes from lower_schedule). */
static lir_stmt *emit_tiled(em *e) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  bool deps = e->st >= VTA_S_DEPS;
  bool sram_bufs = e->st < VTA_S_FOLD;
  if (sram_bufs) {
    int64_t is[7] = {p->vt, p->t_n, p->t_ic, p->in_h, p->in_w, B, BI};
    int64_t ws[7] = {p->vt, p->t_oc, p->t_ic, op->kh, op->kw, BO, BI};
    int64_t as[7] = {p->vt, p->t_n, p->t_oc, p->t_h, p->t_w, B, BO};
    int64_t bs[4] = {p->vt, p->t_oc, B, BO};
    e->inp = lir_buf_new(F, "inp_buf", LIR_I8, 7, is, LIR_SCOPE_INP);
    e->wgt = lir_buf_new(F, "wgt_buf", LIR_I8, 7, ws, LIR_SCOPE_WGT);
    e->acc = lir_buf_new(F, "acc_buf", LIR_I32, 7, as, LIR_SCOPE_ACC);
    int64_t ball[3] = {p->ob, B, BO};
    if (op->has_bias && p->bias_base >= 0) e->bias = lir_buf_new(F, "bias_buf", LIR_I32, 3, ball, LIR_SCOPE_ACC);
    else if (op->has_bias) e->bias = lir_buf_new(F, "bias_buf", LIR_I32, 4, bs, LIR_SCOPE_ACC);
  }
  nest tn;
  int64_t text[4] = {p->nb / p->t_n, p->ob / p->t_oc, p->oh / p->t_h, p->ow / p->t_w};
  static const char *const tname[4] = {"tn", "to", "th", "tw"};
  nest_open(e, &tn, 4, text, tname);
  lir_expr *tile = I(e, 0);
  for (int i = 0; i < 4; i++) e->tv[i] = R(e, tn.v[i]), tile = ADD(e, MULI(e, tile, text[i]), e->tv[i]);
  e->a = p->vt == 1 ? I(e, 0) : lir_bin(F, LIR_FLOORMOD, tile, I(e, p->vt));
  lir_var *kv = lir_var_new(F, "tk", LIR_I64);
  e->tk = R(e, kv);
  lir_expr *step = ADD(e, MULI(e, tile, p->red_steps), e->tk);
  e->pp = p->vt == 1 ? I(e, 0) : lir_bin(F, LIR_FLOORMOD, step, I(e, p->vt));

  lir_block t;
  lir_block_init(&t, F);
  if (deps) lir_block_add(&t, dep(e, false, OVTA_RT_STORE, OVTA_RT_COMPUTE)); /* ACC part free */
  if (op->has_bias && p->bias_base < 0) lir_block_add(&t, emit_load_bias(e));
  lir_block_add(&t, emit_init(e));
  lir_block r;
  lir_block_init(&r, F);
  if (deps) lir_block_add(&r, dep(e, false, OVTA_RT_COMPUTE, OVTA_RT_LOAD)); /* INP/WGT part free */
  lir_block_add(&r, emit_load_inp(e));
  lir_block_add(&r, emit_load_wgt(e));
  if (deps) {
    lir_block_add(&r, dep(e, true, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
    lir_block_add(&r, dep(e, false, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  }
  lir_block_add(&r, emit_gemm(e));
  if (deps) lir_block_add(&r, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  lir_stmt *red = lir_block_stmt(&r);
  if (p->vt > 1) red = lir_attr(F, "virtual_thread", e->pp, red);
  lir_block_add(&t, lir_for(F, kv, I(e, 0), I(e, p->red_steps), LIR_FOR_SERIAL, red));
  /* requantization and store; the last tile's in q_chunks output-channel chunks (its store is not
   * hidden behind other work: chunked, only the last chunk's store is) */
  lir_stmt *whole = emit_requant_store(e, 1);
  if (p->q_chunks == 1) lir_block_add(&t, whole);
  else if (p->tiles == 1) lir_block_add(&t, emit_requant_store(e, p->q_chunks));
  else
    lir_block_add(&t, lir_if(F, lir_bin(F, LIR_EQ, tile, I(e, p->tiles - 1)), emit_requant_store(e, p->q_chunks), whole));
  if (deps) lir_block_add(&t, dep(e, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  lir_stmt *tb = lir_block_stmt(&t);
  if (p->vt > 1) tb = lir_attr(F, "virtual_thread", e->a, tb);
  lir_block top;
  lir_block_init(&top, F);
  if (op->has_bias && p->bias_base >= 0) lir_block_add(&top, emit_load_bias(e)); /* the whole bias, once */
  if (deps)
    for (int v = 0; v < p->vt; v++) {
      lir_block_add(&top, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
      lir_block_add(&top, dep(e, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
    }
  lir_block_add(&top, nest_close(e, &tn, tb));
  lir_stmt *s = lir_block_stmt(&top);
  if (sram_bufs) {
    if (e->bias) s = lir_alloc_stmt(F, e->bias, s);
    s = lir_alloc_stmt(F, e->acc, s);
    s = lir_alloc_stmt(F, e->wgt, s);
    s = lir_alloc_stmt(F, e->inp, s);
  }
  return lir_attr(F, "vthreads", I(e, p->vt), s);
}


/* ---------------------------------------------------------------- stage schedule: primitives */

/* The schedule primitives (vta_sched.h) that turn the compute stage into the schedule stage of the
 * plan (README-vta.md "Passes", 2): output tiles tn to th tw (split + reorder), the per-element
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

/* The schedule stage: the compute stage rewritten by the plan's primitive script, under
 * `attr vthreads`. */
static int lower_schedule(em *e) {
  char script[2048];
  if (!sched_script(e->p, script, sizeof script)) return OVTA_FAIL(e->err, OVTA_EINTERNAL, "schedule script too long");
  F->body = emit_compute(e);
  vta_sched sc;
  vta_sched_init(&sc, F);
  int rc = vta_sched_apply(&sc, script, NULL, e->err);
  if (rc) return rc;
  F->body = lir_attr(F, "vthreads", I(e, e->p->vt), F->body);
  return OVTA_OK;
}

int vta_alu_lower(const vta_plan *p, vta_stage s, const char *fname, uint64_t uid, lir_func **out, ovta_error *err);

/* The plan-driven emitter: stage s built directly from the plan (compute, schedule by primitives,
 * and - for the stages without a pass yet - every construct up to s in its lowered form). */
int vta_lower_emit(const vta_plan *p, vta_stage s, const char *fname, uint64_t uid, lir_func **out, ovta_error *err) {
  *out = NULL;
  if (p->op.kind == VTA_ADD || p->op.kind == VTA_MAXPOOL) return vta_alu_lower(p, s, fname, uid, out, err);
  if ((unsigned)s >= VTA_S_COUNT) return OVTA_FAIL(err, OVTA_EINVAL, "vta_lower: bad stage %d", (int)s);
  lir_func *f = lir_func_new(fname);
  if (!f) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", p->op.name);
  em ec = {.f = f, .p = p, .st = s, .uid = uid & 0x7fffffff, .err = err}, *e = &ec;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int64_t xs[6] = {p->nb, p->cb, p->op.h, p->op.w, B, BI};
  int64_t ws[6] = {p->ob, p->cb, p->op.kh, p->op.kw, BO, BI};
  int64_t bs[3] = {p->ob, B, BO};
  int64_t ys[6] = {p->nb, p->ob, p->oh, p->ow, B, BO};
  e->x = lir_param(f, "x", LIR_I8, 6, xs);
  e->w = lir_param(f, "w", LIR_I8, 6, ws);
  if (p->op.has_bias) e->b = lir_param(f, "bias", LIR_I32, 3, bs);
  e->y = lir_param(f, "y", LIR_I8, 6, ys);
  int rc = OVTA_OK;
  if (s == VTA_S_SCHEDULE) rc = lower_schedule(e);
  else f->body = s == VTA_S_COMPUTE ? emit_compute(e) : emit_tiled(e);
  if (!rc) rc = lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", p->op.name) : lir_verify(f, false, err);
  if (rc) {
    ovta_error_wrap(err, "%s: after pass %s", p->op.name, vta_stage_name(s));
    lir_func_free(f);
    return rc;
  }
  *out = f;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- the pass pipeline */

/* The passes that rewrite the previous stage's IR (conv2d and dense). A stage without one is
 * still emitted from the plan by vta_lower_emit. */
static const vta_pass_fn stage_pass[VTA_S_COUNT] = {
    [VTA_S_DMA] = vta_pass_inject_dma, /* inject-dma (vta_dma.c) */
    [VTA_S_TENSORIZE] = vta_pass_tensorize, /* tensorize (vta_tensorize.c) */
    [VTA_S_ALU] = vta_pass_inject_alu, /* inject-alu (vta_inject_alu.c) */
    [VTA_S_FOLD] = vta_pass_fold, /* fold-uops (vta_fold.c) */
    [VTA_S_DEPS] = vta_pass_insert_deps, /* insert-deps (vta_deps.c) */
    [VTA_S_HOST] = vta_pass_host, /* host (vta_host.c) */
};

vta_pass_fn vta_stage_pass(vta_stage s) { return (unsigned)s < VTA_S_COUNT ? stage_pass[s] : NULL; }

int vta_lower_uid(const vta_plan *p, vta_stage s, const char *fname, uint64_t uid, lir_func **out, ovta_error *err) {
  *out = NULL;
  bool alu_op = p->op.kind == VTA_ADD || p->op.kind == VTA_MAXPOOL;
  if (alu_op || (unsigned)s >= VTA_S_COUNT || !stage_pass[s]) return vta_lower_emit(p, s, fname, uid, out, err);
  lir_func *f;
  int rc = vta_lower_uid(p, s - 1, fname, uid, &f, err);
  if (rc) return rc;
  rc = stage_pass[s](p, uid & 0x7fffffff, f, err);
  if (!rc) rc = lir_func_oom(f) ? OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", p->op.name) : lir_verify(f, false, err);
  if (rc) {
    ovta_error_wrap(err, "%s: after pass %s", p->op.name, vta_stage_name(s));
    lir_func_free(f);
    return rc;
  }
  *out = f;
  return OVTA_OK;
}

int vta_lower(const vta_plan *p, vta_stage s, const char *fname, lir_func **out, ovta_error *err) {
  return vta_lower_uid(p, s, fname, 1, out, err);
}
