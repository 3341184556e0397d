/* randprog.c: random valid programs, the sequential reference, the differential runner
 * (randprog.h; the token scheme is explained there). */
#include "randprog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ovta_tool.h"

/* ---------------------------------------------------------------- helpers */

static uint64_t rnd64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform in [lo, hi] (hi >= lo). */
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)(rnd64(s) % (uint64_t)(hi - lo + 1));
}
static bool chance(uint64_t *s, int pct) { return (int)(rnd64(s) % 100) < pct; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

void rp_opts_default(rp_opts *o) {
  o->max_tiles = 6;
  o->max_loads = 3;
  o->max_ops = 3;
  o->max_uops = 6;
  o->max_iters = 24;
  o->max_stores = 3;
  o->hermetic = true;
  o->no_tokens = false;
}

void rp_result_free(rp_result *r) {
  if (!r) return;
  free(r->bytes);
  memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- 1. Generator */

enum { B_INP, B_WGT, B_ACC, B_UOP, B_OUT, B_COUNT };
static const char *const buf_names[B_COUNT] = {"inp", "wgt", "acc", "uop", "out"};

typedef struct gen {
  ovta_program *p;
  const ovta_config *cfg;
  uint64_t rng;
  uint64_t pair_rng;       /* the overlapping pairs' choices (a stream of their own) */
  rp_opts o;
  int rl, rc;              /* regions of INP/WGT, of ACC/OUT */
  uint64_t pool[B_COUNT];  /* elements in each pool (of its memory type; OUT for out) */
  uint32_t *uops;          /* the uop pool, grown as micro-ops are generated */
  size_t n_uops, cap_uops;
  size_t cap_insns;
  ovta_error *err;
} gen;

/* Group of instruction indices (one module, one tile). */
typedef struct group {
  size_t idx[64];
  int n;
} group;

static int push_insn(gen *g, const ovta_insn *in, int buf, group *grp) {
  ovta_program *p = g->p;
  if (p->n_insns == g->cap_insns) {
    size_t cap = g->cap_insns ? 2 * g->cap_insns : 64;
    ovta_asm_insn *a = realloc(p->insns, cap * sizeof *a);
    if (!a) return OVTA_FAIL(g->err, OVTA_ENOMEM, "randprog: out of memory");
    p->insns = a;
    g->cap_insns = cap;
  }
  p->insns[p->n_insns] = (ovta_asm_insn){.insn = *in, .dram_buf = buf, .line = 0};
  if (grp) {
    if (grp->n == 64) unreachable();
    grp->idx[grp->n++] = p->n_insns;
  }
  p->n_insns++;
  return OVTA_OK;
}

static int add_uop_words(gen *g, const uint32_t *w, size_t n, size_t *at) {
  if (g->n_uops + n > g->cap_uops) {
    size_t cap = g->cap_uops ? g->cap_uops : 64;
    while (cap < g->n_uops + n) cap *= 2;
    uint32_t *a = realloc(g->uops, cap * sizeof *a);
    if (!a) return OVTA_FAIL(g->err, OVTA_ENOMEM, "randprog: out of memory");
    g->uops = a;
    g->cap_uops = cap;
  }
  *at = g->n_uops;
  memcpy(g->uops + g->n_uops, w, n * sizeof *w);
  g->n_uops += n;
  return OVTA_OK;
}

/* SRAM region r of n regions of a memory type: [*base, *base + *size). */
static void region(gen *g, uint32_t mt, int r, int n, int64_t *base, int64_t *size) {
  int64_t depth = ovta_sram_depth(g->cfg, mt == OVTA_MEM_OUT ? OVTA_MEM_ACC : mt);
  *size = depth / n;
  *base = (int64_t)r * *size;
}

/* A LOAD of mt into SRAM [rb, rb+rs) from its pool, with random shape, padding (INP/ACC) and
 * stride. sync: x_size 0. */
static void gen_load(gen *g, uint32_t mt, int64_t rb, int64_t rs, bool sync, ovta_insn *in) {
  memset(in, 0, sizeof *in);
  in->opcode = OVTA_OP_LOAD;
  in->memory_type = mt;
  if (sync) {
    in->y_size = (uint32_t)rnd(&g->rng, 0, 3);
    return;
  }
  bool pad = mt == OVTA_MEM_INP || mt == OVTA_MEM_ACC;
  int64_t x = rnd(&g->rng, 1, min64(rs, 12));
  int64_t xp0 = 0, xp1 = 0, yp0 = 0, yp1 = 0;
  if (pad && chance(&g->rng, 50)) {
    xp0 = rnd(&g->rng, 0, min64(15, rs - x));
    xp1 = rnd(&g->rng, 0, min64(15, rs - x - xp0));
  }
  int64_t W = xp0 + x + xp1, rows_max = rs / W;
  if (pad && chance(&g->rng, 50) && rows_max >= 2) {
    yp0 = rnd(&g->rng, 0, min64(3, rows_max - 1));
    yp1 = rnd(&g->rng, 0, min64(3, rows_max - 1 - yp0));
  }
  int64_t y = rnd(&g->rng, 1, min64(6, rows_max - yp0 - yp1));
  int64_t stride;
  switch (rnd(&g->rng, 0, 3)) {
  case 0: stride = x; break;
  case 1: stride = x + rnd(&g->rng, 1, 5); break;
  case 2: stride = rnd(&g->rng, 0, x); break; /* overlapping rows, even all the same row */
  default: stride = rnd(&g->rng, 0, 3 * x); break;
  }
  int64_t pool = (int64_t)g->pool[mt == OVTA_MEM_WGT ? B_WGT : mt == OVTA_MEM_INP ? B_INP : B_ACC];
  while (y > 1 && (y - 1) * stride + x > pool) y--;
  if (x > pool) x = pool;
  int64_t span = (y - 1) * stride + x;
  int64_t used = (yp0 + y + yp1) * W;
  in->sram_base = (uint32_t)(rb + rnd(&g->rng, 0, rs - used));
  in->dram_base = (uint32_t)rnd(&g->rng, 0, pool - span);
  in->y_size = (uint32_t)y, in->x_size = (uint32_t)x, in->x_stride = (uint32_t)stride;
  in->y_pad_0 = (uint32_t)yp0, in->y_pad_1 = (uint32_t)yp1, in->x_pad_0 = (uint32_t)xp0, in->x_pad_1 = (uint32_t)xp1;
}

/* One loop axis: factors for io x ii iterations inside a region of rs elements; *slack gets
 * how far the micro-op's index can be from the region base. Factors <= fmax (field width). */
static void gen_axis(gen *g, int64_t io, int64_t ii, int64_t rs, int64_t fmax, uint32_t *fo, uint32_t *fi,
                     int64_t *slack) {
  int64_t budget = rs - 1;
  int64_t a = 0, b = 0;
  if (io > 1 && chance(&g->rng, 80)) a = rnd(&g->rng, 0, min64(fmax, budget / (io - 1)));
  budget -= (io > 1 ? io - 1 : 0) * a;
  if (ii > 1 && chance(&g->rng, 80)) b = rnd(&g->rng, 0, min64(fmax, budget / (ii - 1)));
  budget -= (ii > 1 ? ii - 1 : 0) * b;
  *fo = (uint32_t)a, *fi = (uint32_t)b, *slack = budget;
}

static int64_t field_max(gen *g, ovta_format fmt, const char *name) {
  int n;
  const ovta_field_spec *s = ovta_format_specs(fmt, &n);
  for (int i = 0; i < n; i++)
    if (s[i].name && !strcmp(s[i].name, name)) {
      int w = g->p->isa.pos[fmt][i].width;
      return w >= 62 ? INT64_MAX : (1ll << w) - 1;
    }
  unreachable();
}

/* A GEMM or ALU with its micro-ops and the LOAD UOP bringing them in (appended to grp). dst in
 * ACC [ab, ab+as); GEMM src in INP [ib, ib+is), wgt in WGT [wb, wb+ws); ALU src in ACC. */
static int gen_op(gen *g, bool gemm, int64_t ab, int64_t as, int64_t ib, int64_t is, int64_t wb, int64_t ws,
                  group *grp) {
  ovta_insn in;
  memset(&in, 0, sizeof in);
  in.opcode = gemm ? OVTA_OP_GEMM : OVTA_OP_ALU;
  ovta_format fmt = gemm ? OVTA_FMT_GEMM : OVTA_FMT_ALU;
  int64_t nu = rnd(&g->rng, 1, g->o.max_uops);
  int64_t udepth = g->cfg->uop_depth;
  if (nu > udepth) nu = udepth;
  int64_t io = rnd(&g->rng, 1, g->o.max_iters), ii = rnd(&g->rng, 1, max64(1, g->o.max_iters / io));
  if (chance(&g->rng, 30)) ii = 1;
  in.reset = chance(&g->rng, 10);
  int64_t dsl, ssl, wsl;
  gen_axis(g, io, ii, as, field_max(g, fmt, "dst_factor_out"), &in.dst_factor_out, &in.dst_factor_in, &dsl);
  if (gemm) {
    gen_axis(g, io, ii, is, field_max(g, fmt, "src_factor_out"), &in.src_factor_out, &in.src_factor_in, &ssl);
    gen_axis(g, io, ii, ws, field_max(g, fmt, "wgt_factor_out"), &in.wgt_factor_out, &in.wgt_factor_in, &wsl);
  } else {
    gen_axis(g, io, ii, as, field_max(g, fmt, "src_factor_out"), &in.src_factor_out, &in.src_factor_in, &ssl);
    wsl = 0;
    in.alu_opcode = (uint32_t)rnd(&g->rng, 0, OVTA_ALU_COUNT - 1);
    in.use_imm = chance(&g->rng, 50);
    if (in.alu_opcode == OVTA_ALU_SHR) in.imm = (int32_t)rnd(&g->rng, -40, 40);
    else if (in.alu_opcode == OVTA_ALU_MUL) in.imm = (int32_t)rnd(&g->rng, -300, 300);
    else in.imm = (int32_t)rnd(&g->rng, -32768, 32767);
  }
  in.iter_out = (uint32_t)io, in.iter_in = (uint32_t)ii;
  /* the micro-ops, encoded */
  uint32_t w[256];
  for (int64_t k = 0; k < nu; k++) {
    ovta_uop u = {.dst_idx = (uint32_t)(ab + rnd(&g->rng, 0, dsl))};
    if (gemm) u.src_idx = (uint32_t)(ib + rnd(&g->rng, 0, ssl)), u.wgt_idx = (uint32_t)(wb + rnd(&g->rng, 0, wsl));
    else u.src_idx = (uint32_t)(ab + rnd(&g->rng, 0, ssl));
    if (in.reset && chance(&g->rng, 50)) u.src_idx = u.wgt_idx = 0; /* not read */
    int rc = ovta_uop_encode(&g->p->isa, &u, &w[k], g->err);
    if (rc) return rc;
  }
  /* LOAD UOP: 1-D, or rows of x micro-ops with a DRAM stride (the gaps hold junk) */
  int64_t x = nu, y = 1, stride = nu;
  if (nu > 1 && chance(&g->rng, 30)) {
    for (x = rnd(&g->rng, 1, nu); nu % x; x--) {
    }
    y = nu / x;
    stride = x + rnd(&g->rng, 0, 3);
  }
  uint32_t laid[256 * 4];
  int64_t span = (y - 1) * stride + x;
  for (int64_t i = 0; i < span; i++) laid[i] = (uint32_t)rnd64(&g->rng);
  for (int64_t r = 0; r < y; r++)
    for (int64_t c = 0; c < x; c++) laid[r * stride + c] = w[r * x + c];
  size_t at;
  int rc = add_uop_words(g, laid, (size_t)span, &at);
  if (rc) return rc;
  ovta_insn ld;
  memset(&ld, 0, sizeof ld);
  ld.opcode = OVTA_OP_LOAD;
  ld.memory_type = OVTA_MEM_UOP;
  ld.sram_base = (uint32_t)rnd(&g->rng, 0, udepth - nu);
  ld.dram_base = (uint32_t)at;
  ld.y_size = (uint32_t)y, ld.x_size = (uint32_t)x, ld.x_stride = (uint32_t)stride;
  if ((rc = push_insn(g, &ld, B_UOP, grp))) return rc;
  in.uop_bgn = ld.sram_base;
  in.uop_end = (uint32_t)(ld.sram_base + nu);
  if (chance(&g->rng, 4)) in.uop_end = in.uop_bgn;   /* empty */
  else if (chance(&g->rng, 3)) in.iter_in = 0;        /* empty */
  return push_insn(g, &in, -1, grp);
}

/* A STORE of OUT [rb, rb+rs) to the out buffer. */
static void gen_store(gen *g, int64_t rb, int64_t rs, bool sync, ovta_insn *in) {
  memset(in, 0, sizeof *in);
  in->opcode = OVTA_OP_STORE;
  in->memory_type = OVTA_MEM_OUT;
  if (sync) {
    in->y_size = (uint32_t)rnd(&g->rng, 0, 3);
    return;
  }
  int64_t pool = (int64_t)g->pool[B_OUT];
  int64_t x = rnd(&g->rng, 1, min64(min64(rs, 12), pool));
  int64_t y = rnd(&g->rng, 1, min64(6, rs / x));
  int64_t stride = chance(&g->rng, 50) ? x : rnd(&g->rng, 0, 3 * x);
  while (y > 1 && (y - 1) * stride + x > pool) y--;
  in->sram_base = (uint32_t)(rb + rnd(&g->rng, 0, rs - y * x));
  in->dram_base = (uint32_t)rnd(&g->rng, 0, pool - ((y - 1) * stride + x));
  in->y_size = (uint32_t)y, in->x_size = (uint32_t)x, in->x_stride = (uint32_t)stride;
}

/* Token bits of a group: the pop on an instruction at or before the first one touching the shared
 * SRAM (touch[k]), the matching push on one at or after the last, and never before the pop (so
 * at most R tokens are outstanding). Both return a position in the group. */
static int pick_pop(gen *g, const group *grp, const bool *touch) {
  int first = grp->n - 1;
  for (int k = 0; k < grp->n; k++)
    if (touch[k]) {
      first = k;
      break;
    }
  return (int)rnd(&g->rng, 0, first);
}
static int pick_push(gen *g, const group *grp, const bool *touch, int not_before) {
  int last = not_before;
  for (int k = grp->n - 1; k >= 0; k--)
    if (touch[k]) {
      last = k;
      break;
    }
  if (last < not_before) last = not_before;
  return (int)rnd(&g->rng, last, grp->n - 1);
}
#define GI(grp, k) (g->p->insns[(grp)->idx[(k)]].insn)

static bool is_sync(const ovta_insn *in) { return in->x_size == 0; }
static bool loops_run(const ovta_insn *in) { return in->iter_out && in->iter_in && in->uop_bgn != in->uop_end; }

static int gen_load_group(gen *g, int t, int T, group *grp) {
  int64_t ib, is, wb, ws;
  region(g, OVTA_MEM_INP, t % g->rl, g->rl, &ib, &is);
  region(g, OVTA_MEM_WGT, t % g->rl, g->rl, &wb, &ws);
  int n = (int)rnd(&g->rng, 1, g->o.max_loads);
  for (int k = 0; k < n; k++) {
    ovta_insn in;
    bool inp = chance(&g->rng, 50);
    gen_load(g, inp ? OVTA_MEM_INP : OVTA_MEM_WGT, inp ? ib : wb, inp ? is : ws, chance(&g->rng, 8), &in);
    int rc = push_insn(g, &in, inp ? B_INP : B_WGT, grp);
    if (rc) return rc;
  }
  bool touch[64];
  for (int k = 0; k < grp->n; k++) touch[k] = !is_sync(&g->p->insns[grp->idx[k]].insn);
  int k = pick_pop(g, grp, touch);
  if (t >= g->rl) GI(grp, k).pop_next = 1;        /* C2L */
  GI(grp, pick_push(g, grp, touch, k)).push_next = 1; /* L2C */
  (void)T;
  return OVTA_OK;
}

/* Two GEMM/ALU (mostly one of each) back to back, the first in one ACC half of [ab, ab+as) and
 * the second in the other (dst and ALU src), the second marked to overlap the first: safe by
 * construction, so fsim's check must pass and tsim must run them concurrently to the same bytes.
 * Both LOAD UOPs come first, the second outside the first op's micro-ops (else no mark). */
static int gen_pair(gen *g, int64_t ab, int64_t as, int64_t half, int64_t ib, int64_t is, int64_t wb, int64_t ws,
                    group *grp) {
  bool g1 = chance(&g->pair_rng, 50), g2 = chance(&g->pair_rng, 85) ? !g1 : g1, low_first = chance(&g->pair_rng, 50);
  int64_t lo_b = ab, lo_s = half - ab, hi_b = half, hi_s = ab + as - half;
  int rc = gen_op(g, g1, low_first ? lo_b : hi_b, low_first ? lo_s : hi_s, ib, is, wb, ws, grp);
  if (!rc) rc = gen_op(g, g2, low_first ? hi_b : lo_b, low_first ? hi_s : lo_s, ib, is, wb, ws, grp);
  if (rc) return rc;
  /* the group ends LOAD UOP 1, op 1, LOAD UOP 2, op 2 */
  ovta_asm_insn *ld1 = &g->p->insns[grp->idx[grp->n - 4]], *op1 = &g->p->insns[grp->idx[grp->n - 3]];
  ovta_asm_insn *ld2 = &g->p->insns[grp->idx[grp->n - 2]], *op2 = &g->p->insns[grp->idx[grp->n - 1]];
  int64_t b1 = op1->insn.uop_bgn, e1 = b1 + (int64_t)ld1->insn.x_size * ld1->insn.y_size;
  int64_t n2 = (int64_t)ld2->insn.x_size * ld2->insn.y_size, b2 = ld2->insn.sram_base;
  if (b2 < e1 && b2 + n2 > b1) { /* the second load would overwrite op 1's micro-ops: move it */
    if (e1 + n2 <= g->cfg->uop_depth) b2 = e1;
    else if (b1 >= n2) b2 = b1 - n2;
    else return OVTA_OK; /* no room: leave the pair sequential, unmarked */
  }
  int64_t len2 = (int64_t)op2->insn.uop_end - op2->insn.uop_bgn;
  ld2->insn.sram_base = (uint32_t)b2;
  op2->insn.uop_bgn = (uint32_t)b2, op2->insn.uop_end = (uint32_t)(b2 + len2);
  ovta_asm_insn t = *op1; /* LOAD UOP 2 before op 1 */
  *op1 = *ld2;
  *ld2 = t;
  op2->insn.overlap = 1;
  return OVTA_OK;
}

static int gen_compute_group(gen *g, int t, int T, group *grp) {
  int64_t ib, is, wb, ws, ab, as;
  region(g, OVTA_MEM_INP, t % g->rl, g->rl, &ib, &is);
  region(g, OVTA_MEM_WGT, t % g->rl, g->rl, &wb, &ws);
  region(g, OVTA_MEM_ACC, t % g->rc, g->rc, &ab, &as);
  int n = (int)rnd(&g->rng, 0, g->o.max_ops);
  int rc;
  if (chance(&g->rng, 40)) {
    ovta_insn in;
    gen_load(g, OVTA_MEM_ACC, ab, as, chance(&g->rng, 10), &in);
    if ((rc = push_insn(g, &in, B_ACC, grp))) return rc;
  }
  /* a region holding both ACC halves can carry an overlapping pair (isa/ISA.md "Overlap") */
  int64_t half = g->cfg->acc_depth / 2;
  bool straddles = ab < half && ab + as > half;
  for (int k = 0; k < n; k++) {
    if (straddles && k + 1 < n && chance(&g->pair_rng, 60)) {
      if ((rc = gen_pair(g, ab, as, half, ib, is, wb, ws, grp))) return rc;
      k++;
      continue;
    }
    if ((rc = gen_op(g, chance(&g->rng, 55), ab, as, ib, is, wb, ws, grp))) return rc;
  }
  if (grp->n == 0) { /* a group needs an instruction to carry its tokens: an ACC sync */
    ovta_insn in;
    gen_load(g, OVTA_MEM_ACC, ab, as, true, &in);
    if ((rc = push_insn(g, &in, B_ACC, grp))) return rc;
  }
  bool reads[64], writes[64];
  for (int k = 0; k < grp->n; k++) {
    const ovta_insn *in = &g->p->insns[grp->idx[k]].insn;
    bool run = (in->opcode == OVTA_OP_GEMM || in->opcode == OVTA_OP_ALU) && loops_run(in);
    reads[k] = run && in->opcode == OVTA_OP_GEMM && !in->reset; /* INP/WGT */
    writes[k] = run;                                             /* OUT */
  }
  int k = pick_pop(g, grp, reads);
  GI(grp, k).pop_prev = 1;                                        /* L2C */
  if (t + g->rl < T) GI(grp, pick_push(g, grp, reads, k)).push_prev = 1; /* C2L */
  k = pick_pop(g, grp, writes);
  if (t >= g->rc) GI(grp, k).pop_next = 1;                        /* S2C */
  GI(grp, pick_push(g, grp, writes, k)).push_next = 1;            /* C2S */
  return OVTA_OK;
}

static int gen_store_group(gen *g, int t, int T, group *grp) {
  int64_t ab, as;
  region(g, OVTA_MEM_ACC, t % g->rc, g->rc, &ab, &as);
  int n = (int)rnd(&g->rng, 1, g->o.max_stores);
  for (int k = 0; k < n; k++) {
    ovta_insn in;
    gen_store(g, ab, as, chance(&g->rng, 8), &in);
    int rc = push_insn(g, &in, B_OUT, grp);
    if (rc) return rc;
  }
  bool touch[64];
  for (int k = 0; k < grp->n; k++) touch[k] = !is_sync(&g->p->insns[grp->idx[k]].insn);
  int k = pick_pop(g, grp, touch);
  GI(grp, k).pop_prev = 1;                                        /* C2S */
  if (t + g->rc < T) GI(grp, pick_push(g, grp, touch, k)).push_prev = 1; /* S2C */
  return OVTA_OK;
}

/* Prologue (hermetic): every INP/WGT element by the load module, OUT and ACC zeroed then ACC
 * loaded by compute. Rows of x elements with a small stride, so a pool smaller than the SRAM
 * defines it all. */
static int gen_prologue(gen *g, group *lgrp, group *cgrp) {
  static const uint32_t types[3] = {OVTA_MEM_INP, OVTA_MEM_WGT, OVTA_MEM_ACC};
  static const int bufs[3] = {B_INP, B_WGT, B_ACC};
  int rc;
  /* zero ACC and OUT: one micro-op {0,0,0} and a GEMM reset over every ACC index */
  uint32_t zero = 0;
  size_t at;
  if ((rc = add_uop_words(g, &zero, 1, &at))) return rc;
  ovta_insn in;
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_UOP, in.dram_base = (uint32_t)at;
  in.y_size = 1, in.x_size = 1, in.x_stride = 1;
  if ((rc = push_insn(g, &in, B_UOP, cgrp))) return rc;
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_GEMM, in.reset = 1, in.uop_bgn = 0, in.uop_end = 1;
  in.iter_out = (uint32_t)g->cfg->acc_depth, in.iter_in = 1, in.dst_factor_out = 1;
  if ((rc = push_insn(g, &in, -1, cgrp))) return rc;
  for (int k = 0; k < 3; k++) {
    int64_t depth = ovta_sram_depth(g->cfg, types[k]), pool = (int64_t)g->pool[bufs[k]];
    int64_t x = pool / 2;
    while (depth % x) x /= 2;
    int64_t y = depth / x;
    int64_t smax = y > 1 ? min64(x, (pool - x) / (y - 1)) : x;
    int64_t stride = rnd(&g->rng, smax ? 1 : 0, smax);
    memset(&in, 0, sizeof in);
    in.opcode = OVTA_OP_LOAD, in.memory_type = types[k];
    in.dram_base = (uint32_t)rnd(&g->rng, 0, pool - ((y - 1) * stride + x));
    in.y_size = (uint32_t)y, in.x_size = (uint32_t)x, in.x_stride = (uint32_t)stride;
    if ((rc = push_insn(g, &in, bufs[k], k == 2 ? cgrp : lgrp))) return rc;
  }
  return OVTA_OK;
}

static int add_buffer(gen *g, int b, uint64_t bytes, ovta_data_kind kind) {
  ovta_program *p = g->p;
  ovta_asm_buffer *nb = realloc(p->bufs, (p->n_bufs + 1) * sizeof *nb);
  if (!nb) return OVTA_FAIL(g->err, OVTA_ENOMEM, "randprog: out of memory");
  p->bufs = nb;
  ovta_asm_buffer *bf = &p->bufs[p->n_bufs];
  memset(bf, 0, sizeof *bf);
  snprintf(bf->name, sizeof bf->name, "%s", buf_names[b]);
  bf->size = bytes;
  bf->init = malloc(bytes ? bytes : 1);
  if (!bf->init) return OVTA_FAIL(g->err, OVTA_ENOMEM, "randprog: out of memory");
  for (uint64_t i = 0; i < bytes; i++) bf->init[i] = (uint8_t)rnd64(&g->rng);
  if (kind == OVTA_DATA_INT32) /* mostly small accumulators, some extreme ones */
    for (uint64_t i = 0; i + 4 <= bytes; i += 4) {
      int64_t v = chance(&g->rng, 80) ? rnd(&g->rng, -5000, 5000) : rnd(&g->rng, INT32_MIN, INT32_MAX);
      for (int k = 0; k < 4; k++) bf->init[i + k] = (uint8_t)((uint64_t)v >> (8 * k));
    }
  p->n_bufs++;
  ovta_asm_data *nd = realloc(p->data, (p->n_data + 1) * sizeof *nd);
  if (!nd) return OVTA_FAIL(g->err, OVTA_ENOMEM, "randprog: out of memory");
  p->data = nd;
  p->data[p->n_data++] = (ovta_asm_data){.buffer = b, .off = 0, .len = bytes, .kind = kind};
  return OVTA_OK;
}

int rp_generate(const ovta_isa *isa, const rp_opts *o, uint64_t seed, ovta_program *out, ovta_error *err) {
  ovta_program_init(out, isa);
  snprintf(out->config, sizeof out->config, "%s", isa->cfg.name);
  snprintf(out->origin, sizeof out->origin, "randprog-%s-%llu.s", isa->cfg.name, (unsigned long long)seed);
  gen G = {.p = out, .cfg = &isa->cfg, .rng = seed * 0x2545f4914f6cdd1dull + 0x1234567ull,
           .pair_rng = seed * 0x9e3779b97f4a7c15ull + 0x51ed27ull, .err = err};
  gen *g = &G;
  if (o) g->o = *o;
  else rp_opts_default(&g->o);
  if (g->o.max_tiles < 1 || g->o.max_loads < 1 || g->o.max_stores < 1 || g->o.max_ops < 0 ||
      g->o.max_uops < 1 || g->o.max_uops > 256 || g->o.max_iters < 1 || g->o.max_loads + 2 * g->o.max_ops + 4 > 64 ||
      g->o.max_stores > 64)
    return OVTA_FAIL(err, OVTA_EINVAL, "randprog: bad options");
  int dep = g->cfg->dep_queue_depth;
  g->rl = (int)rnd(&g->rng, 1, min64(3, dep));
  g->rc = (int)rnd(&g->rng, 1, min64(3, dep));
  int la = (int)rnd(&g->rng, 0, g->rl - 1);
  int T = (int)rnd(&g->rng, 1, g->o.max_tiles);
  /* pools (elements): powers of two, at most the SRAM depth (the prologue needs pool/2 | depth) */
  const uint32_t pool_mt[B_COUNT] = {OVTA_MEM_INP, OVTA_MEM_WGT, OVTA_MEM_ACC, OVTA_MEM_UOP, OVTA_MEM_OUT};
  for (int b = 0; b < B_COUNT; b++) {
    if (b == B_UOP) continue;
    int64_t depth = ovta_sram_depth(g->cfg, pool_mt[b] == OVTA_MEM_OUT ? OVTA_MEM_ACC : pool_mt[b]);
    int64_t cap = b == B_WGT ? 64 : b == B_OUT ? 256 : 128;
    g->pool[b] = (uint64_t)min64(depth, cap << rnd(&g->rng, 0, 1));
  }
  int rc = OVTA_OK;
  for (int b = 0; b < B_COUNT && !rc; b++) /* uop: filled as micro-ops are made, sized at the end */
    rc = add_buffer(g, b, b == B_UOP ? 0 : g->pool[b] * (uint64_t)ovta_elem_bytes(g->cfg, pool_mt[b]),
                    b == B_ACC ? OVTA_DATA_INT32 : b == B_UOP ? OVTA_DATA_UOP : OVTA_DATA_HEX);
  if (!rc && g->o.hermetic) {
    group lg = {0}, cg = {0};
    rc = gen_prologue(g, &lg, &cg);
  }
  for (int s = 0; !rc && s < T + la; s++) {
    group lg = {0}, cg = {0}, sg = {0};
    if (s < T) rc = gen_load_group(g, s, T, &lg);
    int t = s - la;
    if (!rc && t >= 0 && t < T) rc = gen_compute_group(g, t, T, &cg);
    if (!rc && t >= 0 && t < T) rc = gen_store_group(g, t, T, &sg);
  }
  if (!rc) {
    ovta_insn fin;
    memset(&fin, 0, sizeof fin);
    fin.opcode = OVTA_OP_FINISH;
    rc = push_insn(g, &fin, -1, NULL);
  }
  if (!rc && g->o.no_tokens)
    for (size_t i = 0; i < out->n_insns; i++) {
      ovta_insn *in = &out->insns[i].insn;
      in->pop_prev = in->pop_next = in->push_prev = in->push_next = 0;
    }
  if (!rc && g->n_uops == 0) { /* no micro-ops at all: the buffer still needs a byte */
    uint32_t zero = 0;
    size_t at;
    rc = add_uop_words(g, &zero, 1, &at);
  }
  if (!rc) { /* the uop pool buffer */
    ovta_asm_buffer *ub = &out->bufs[B_UOP];
    free(ub->init);
    ub->size = g->n_uops * 4;
    ub->init = malloc(ub->size ? ub->size : 1);
    if (!ub->init || !ub->size) rc = OVTA_FAIL(err, OVTA_ENOMEM, "randprog: out of memory");
    else memcpy(ub->init, g->uops, ub->size);
    for (size_t i = 0; i < out->n_data; i++)
      if (out->data[i].buffer == B_UOP) out->data[i].len = ub->size;
  }
  if (!rc) {
    out->dumps = malloc(sizeof *out->dumps);
    if (!out->dumps) rc = OVTA_FAIL(err, OVTA_ENOMEM, "randprog: out of memory");
    else {
      out->dumps[0] = (ovta_asm_dump){.buffer = B_OUT, .off = 0, .len = out->bufs[B_OUT].size, .kind = OVTA_DATA_HEX};
      out->n_dumps = 1;
    }
  }
  free(g->uops);
  if (rc) ovta_program_free(out);
  return rc;
}

/* ---------------------------------------------------------------- 2. Reference */

/* Sequential machine state: SRAMs as plain arrays, DRAM as the program's buffers (copies). */
typedef struct ref {
  const ovta_program *p;
  const ovta_config *c;
  uint8_t **mem;        /* per program buffer */
  ovta_uop *uop;        /* decoded micro-ops */
  int8_t *inp, *wgt, *out;
  int32_t *acc;
  ovta_counters ctr;
  ovta_error *err;
} ref;

/* Byte range [elem*eb, +len) of program buffer b, or NULL when outside. */
static uint8_t *ref_dram(ref *r, int b, uint64_t elem, uint64_t eb, uint64_t len) {
  uint64_t off = elem * eb, size = r->p->bufs[b].size;
  if (off > size || len > size - off) return NULL;
  return r->mem[b] + off;
}

static int32_t ref_alu(uint32_t op, int32_t a, int32_t s) {
  int64_t A = a, S = s, v;
  switch (op) {
  case OVTA_ALU_MIN: return A < S ? a : s;
  case OVTA_ALU_MAX: return A > S ? a : s;
  case OVTA_ALU_ADD: v = A + S; break;
  case OVTA_ALU_MUL: v = (int64_t)((uint64_t)A * (uint64_t)S); break;
  case OVTA_ALU_MOV: return s;
  case OVTA_ALU_CLP: { /* isa/ISA.md: bounds are the low two bytes of s, as int8 */
    int64_t lo = (int8_t)(uint8_t)(S & 0xff), hi = (int8_t)(uint8_t)((S >> 8) & 0xff);
    v = A < lo ? lo : A;
    return (int32_t)(v > hi ? hi : v);
  }
  case OVTA_ALU_RQ: { /* isa/ISA.md: sh, round, lo code, hi in the low 16 bits of s */
    int64_t sh = S & 31, hi = (int8_t)(uint8_t)((S >> 8) & 0xff), code = (S >> 6) & 3;
    int64_t lo = code == 0 ? -128 : code == 1 ? 0 : code == 2 ? -hi : -hi - 1;
    int64_t x = (int64_t)(int32_t)(uint32_t)((uint64_t)A + ((S >> 5 & 1) && sh ? (uint64_t)1 << (sh - 1) : 0));
    int64_t d = (int64_t)1 << sh, q = x / d; /* floor division by 2^sh */
    if (x % d && x < 0) q--;
    q = q < lo ? lo : q;
    return (int32_t)(q > hi ? hi : q);
  }
  case OVTA_ALU_SHR:
    if (S >= 32) S = 31;
    if (S >= 0) { /* floor division by 2^S */
      int64_t d = (int64_t)1 << S, q = A / d;
      if (A % d && A < 0) q--;
      return (int32_t)q;
    }
    if (S <= -32) return 0;
    v = (int64_t)((uint64_t)A * ((uint64_t)1 << -S));
    break;
  default: return 0;
  }
  uint32_t u = (uint32_t)((uint64_t)v & 0xffffffffu);
  return u >= 0x80000000u ? (int32_t)((int64_t)u - 0x100000000ll) : (int32_t)u;
}

static int ref_insn(ref *r, size_t i) {
  const ovta_asm_insn *ai = &r->p->insns[i];
  const ovta_insn *in = &ai->insn;
  const ovta_config *c = r->c;
  if (in->opcode == OVTA_OP_FINISH) return OVTA_OK;
  if (in->opcode == OVTA_OP_LOAD || in->opcode == OVTA_OP_STORE) {
    bool to_load = in->opcode == OVTA_OP_LOAD && (in->memory_type == OVTA_MEM_INP || in->memory_type == OVTA_MEM_WGT);
    if (in->opcode == OVTA_OP_STORE) r->ctr.insns_store++;
    else if (to_load) r->ctr.insns_load++;
    else r->ctr.insns_compute++;
    if (in->x_size == 0) return OVTA_OK;
    if (ai->dram_buf < 0) return OVTA_FAIL(r->err, OVTA_EINVAL, "reference: instruction %zu: plain dram_base", i);
    uint32_t mt = in->memory_type;
    uint64_t eb = (uint64_t)ovta_elem_bytes(c, mt), row = (uint64_t)in->x_size * eb;
    uint64_t depth = (uint64_t)ovta_sram_depth(c, mt == OVTA_MEM_OUT ? OVTA_MEM_ACC : mt);
    if (in->opcode == OVTA_OP_STORE) {
      if ((uint64_t)in->sram_base + (uint64_t)in->y_size * in->x_size > depth)
        return OVTA_FAIL(r->err, OVTA_EINSN, "reference: instruction %zu: STORE SRAM range", i);
      for (uint64_t y = 0; y < in->y_size; y++) {
        uint8_t *d = ref_dram(r, ai->dram_buf, in->dram_base + y * in->x_stride, eb, row);
        if (!d) return OVTA_FAIL(r->err, OVTA_EINSN, "reference: instruction %zu: STORE row %llu outside", i,
                                 (unsigned long long)y);
        memcpy(d, r->out + ((uint64_t)in->sram_base + y * in->x_size) * eb, row);
      }
      r->ctr.bytes_written += in->y_size * row;
      return OVTA_OK;
    }
    uint64_t W = (uint64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
    uint64_t n = ((uint64_t)in->y_pad_0 + in->y_size + in->y_pad_1) * W;
    if (in->sram_base + n > depth) return OVTA_FAIL(r->err, OVTA_EINSN, "reference: instruction %zu: LOAD SRAM range", i);
    uint8_t *tmp = calloc(n ? n : 1, eb);
    if (!tmp) return OVTA_FAIL(r->err, OVTA_ENOMEM, "reference: out of memory");
    for (uint64_t y = 0; y < in->y_size; y++) {
      const uint8_t *s = ref_dram(r, ai->dram_buf, in->dram_base + y * in->x_stride, eb, row);
      if (!s) {
        free(tmp);
        return OVTA_FAIL(r->err, OVTA_EINSN, "reference: instruction %zu: LOAD row outside", i);
      }
      memcpy(tmp + (((in->y_pad_0 + y) * W) + in->x_pad_0) * eb, s, row);
    }
    for (uint64_t e = 0; e < n; e++) {
      uint64_t k = in->sram_base + e;
      const uint8_t *s = tmp + e * eb;
      switch (mt) {
      case OVTA_MEM_UOP: {
        uint32_t w = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
        ovta_uop_decode(&r->p->isa, w, &r->uop[k]);
        break;
      }
      case OVTA_MEM_INP: memcpy(r->inp + k * eb, s, eb); break;
      case OVTA_MEM_WGT: memcpy(r->wgt + k * eb, s, eb); break;
      case OVTA_MEM_ACC:
        for (uint64_t q = 0; q < eb / 4; q++)
          r->acc[k * (eb / 4) + q] =
              (int32_t)((uint32_t)s[4 * q] | (uint32_t)s[4 * q + 1] << 8 | (uint32_t)s[4 * q + 2] << 16 |
                        (uint32_t)s[4 * q + 3] << 24);
        break;
      }
    }
    free(tmp);
    r->ctr.bytes_read[mt] += in->y_size * row;
    return OVTA_OK;
  }
  /* GEMM, ALU */
  bool gemm = in->opcode == OVTA_OP_GEMM;
  r->ctr.insns_compute++;
  if (!loops_run(in)) return OVTA_OK;
  if (in->uop_end > (uint32_t)c->uop_depth || in->uop_bgn > in->uop_end)
    return OVTA_FAIL(r->err, OVTA_EINSN, "reference: instruction %zu: uop range", i);
  int B = c->batch, BI = c->block_in, BO = c->block_out;
  for (uint64_t a = 0; a < in->iter_out; a++)
    for (uint64_t b = 0; b < in->iter_in; b++)
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        const ovta_uop *u = &r->uop[k];
        uint64_t d = u->dst_idx + a * in->dst_factor_out + b * in->dst_factor_in;
        uint64_t s = u->src_idx + a * in->src_factor_out + b * in->src_factor_in;
        uint64_t w = u->wgt_idx + a * in->wgt_factor_out + b * in->wgt_factor_in;
        bool rd_src = !in->reset && !(!gemm && in->use_imm);
        if (d >= (uint64_t)c->acc_depth || (rd_src && s >= (uint64_t)(gemm ? c->inp_depth : c->acc_depth)) ||
            (gemm && !in->reset && w >= (uint64_t)c->wgt_depth))
          return OVTA_FAIL(r->err, OVTA_EINSN, "reference: instruction %zu: index out of range", i);
        for (int bb = 0; bb < B; bb++)
          for (int o = 0; o < BO; o++) {
            int32_t *acc = &r->acc[(d * B + bb) * BO + o];
            if (in->reset) *acc = 0;
            else if (gemm) {
              int64_t sum = *acc;
              for (int q = 0; q < BI; q++)
                sum += (int64_t)r->inp[(s * B + bb) * BI + q] * r->wgt[(w * BO + o) * BI + q];
              *acc = ref_alu(OVTA_ALU_ADD, (int32_t)(uint32_t)((uint64_t)sum & 0xffffffffu), 0);
            } else {
              int32_t sv = in->use_imm ? in->imm : r->acc[(s * B + bb) * BO + o];
              *acc = ref_alu(in->alu_opcode, *acc, sv);
            }
            r->out[(d * B + bb) * BO + o] = (int8_t)(uint8_t)((uint32_t)*acc & 0xff);
          }
        if (gemm) r->ctr.gemm_uops++;
        else r->ctr.alu_uops++;
      }
  return OVTA_OK;
}

int rp_reference(const ovta_program *p, rp_result *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  const ovta_config *c = &p->isa.cfg;
  ref R = {.p = p, .c = c, .err = err};
  R.mem = calloc(p->n_bufs + 1, sizeof *R.mem);
  R.uop = calloc((size_t)c->uop_depth, sizeof *R.uop);
  R.inp = calloc((size_t)c->inp_depth, (size_t)c->inp_bytes);
  R.wgt = calloc((size_t)c->wgt_depth, (size_t)c->wgt_bytes);
  R.acc = calloc((size_t)c->acc_depth, (size_t)c->acc_bytes);
  R.out = calloc((size_t)c->acc_depth, (size_t)c->out_bytes);
  int rc = OVTA_OK;
  if (!R.mem || !R.uop || !R.inp || !R.wgt || !R.acc || !R.out) rc = OVTA_FAIL(err, OVTA_ENOMEM, "reference: out of memory");
  for (size_t b = 0; !rc && b < p->n_bufs; b++) {
    R.mem[b] = malloc(p->bufs[b].size ? p->bufs[b].size : 1);
    if (!R.mem[b]) rc = OVTA_FAIL(err, OVTA_ENOMEM, "reference: out of memory");
    else memcpy(R.mem[b], p->bufs[b].init, p->bufs[b].size);
  }
  bool finish = false;
  for (size_t i = 0; !rc && i < p->n_insns; i++) {
    rc = ref_insn(&R, i);
    if (p->insns[i].insn.opcode == OVTA_OP_FINISH) finish = true, R.ctr.insns_compute++;
  }
  if (!rc && !finish) rc = OVTA_FAIL(err, OVTA_EINSN, "reference: no FINISH");
  size_t total = 0;
  for (size_t d = 0; d < p->n_dumps; d++) total += p->dumps[d].len;
  if (!rc && !(out->bytes = malloc(total ? total : 1))) rc = OVTA_FAIL(err, OVTA_ENOMEM, "reference: out of memory");
  if (!rc) {
    for (size_t d = 0; d < p->n_dumps; d++) {
      memcpy(out->bytes + out->len, R.mem[p->dumps[d].buffer] + p->dumps[d].off, p->dumps[d].len);
      out->len += p->dumps[d].len;
    }
    out->ctr = R.ctr;
  }
  for (size_t b = 0; R.mem && b < p->n_bufs; b++) free(R.mem[b]);
  free(R.mem);
  free(R.uop);
  free(R.inp);
  free(R.wgt);
  free(R.acc);
  free(R.out);
  if (rc) rp_result_free(out);
  return rc;
}

/* ---------------------------------------------------------------- 3. Runner */

int rp_run_dev(ovta_dev *dev, const ovta_program *p, uint32_t timeout_ms, rp_result *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  ovta_loaded l;
  int rc = ovta_program_load(dev, p, &l, err);
  if (rc) return rc;
  rc = ovta_dev_run(dev, l.insn_phys, l.insn_count, timeout_ms, err);
  size_t total = 0;
  for (size_t d = 0; d < p->n_dumps; d++) total += p->dumps[d].len;
  if (!rc && !(out->bytes = malloc(total ? total : 1))) rc = OVTA_FAIL(err, OVTA_ENOMEM, "rp_run: out of memory");
  for (size_t d = 0; !rc && d < p->n_dumps; d++) {
    rc = ovta_loaded_read(&l, p->dumps[d].buffer, p->dumps[d].off, out->bytes + out->len, p->dumps[d].len, err);
    out->len += p->dumps[d].len;
  }
  ovta_dev_counters(dev, &out->ctr);
  ovta_loaded_free(&l);
  if (rc) rp_result_free(out);
  return rc;
}

int rp_run(const char *backend, uint64_t interleave, const ovta_program *p, uint32_t timeout_ms, rp_result *out,
           ovta_error *err) {
  memset(out, 0, sizeof *out);
  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.seed = interleave;
  o.dram_bytes = 32u << 20;
  ovta_dev *dev;
  int rc = ovta_dev_open(backend, &p->isa.cfg, &o, &dev, err);
  if (rc) return rc;
  rc = rp_run_dev(dev, p, timeout_ms, out, err);
  ovta_dev_close(dev);
  return rc;
}

int rp_compare(const rp_result *want, const rp_result *got, char *why, size_t cap) {
  if (want->len != got->len) {
    snprintf(why, cap, "dump length %zu, expected %zu", got->len, want->len);
    return 1;
  }
  for (size_t i = 0; i < want->len; i++)
    if (want->bytes[i] != got->bytes[i]) {
      size_t n = 0;
      for (size_t k = i; k < want->len; k++) n += want->bytes[k] != got->bytes[k];
      snprintf(why, cap, "dump byte %zu is 0x%02x, expected 0x%02x (%zu bytes differ)", i, got->bytes[i],
               want->bytes[i], n);
      return 1;
    }
  const ovta_counters *a = &want->ctr, *b = &got->ctr;
#define CMP(f)                                                                                     \
  if (a->f != b->f) {                                                                              \
    snprintf(why, cap, "counter %s is %llu, expected %llu", #f, (unsigned long long)b->f, (unsigned long long)a->f); \
    return 1;                                                                                      \
  }
  CMP(insns_load) CMP(insns_compute) CMP(insns_store) CMP(bytes_written) CMP(gemm_uops) CMP(alu_uops)
  CMP(bytes_read[OVTA_MEM_UOP]) CMP(bytes_read[OVTA_MEM_WGT]) CMP(bytes_read[OVTA_MEM_INP]) CMP(bytes_read[OVTA_MEM_ACC])
#undef CMP
  return -1;
}

/* ---------------------------------------------------------------- 4. Diff */

const char *rp_diff_backends(void) {
  const char *e = getenv("OVTA_DIFF_BACKENDS");
  return e && *e ? e : "fsim,fsim-interleaved";
}

static void save_program(const ovta_program *p, const char *dir, const char *config, uint64_t seed, char *path,
                         size_t cap) {
  path[0] = 0;
  if (!dir) return;
  mkdir(dir, 0777);
  snprintf(path, cap, "%s/%s-%llu.s", dir, config, (unsigned long long)seed);
  FILE *f = fopen(path, "w");
  if (!f) {
    path[0] = 0;
    return;
  }
  fprintf(f, "# randprog seed %llu, config %s: failed the differential test\n", (unsigned long long)seed, config);
  ovta_error e;
  ovta_program_write(f, p, &e);
  fclose(f);
}

/* One earlier run of rp_diff, for the cycle check of a repeated NAME@seed. */
typedef struct rp_spec_run {
  char name[64];      /* backend name */
  char spec[96];      /* the spec as given (for messages) */
  uint64_t seed;      /* interleaving seed */
  ovta_counters ctr;  /* its counters */
} rp_spec_run;

/* 1 (message in d) when an earlier run of the same backend and seed counted other cycles than got */
static int same_cycles(const rp_spec_run *prev, int n, const char *name, uint64_t seed, const rp_result *got,
                       char *d, size_t cap) {
  for (int i = 0; i < n; i++) {
    const ovta_counters *a = &prev[i].ctr, *b = &got->ctr;
    if (strcmp(prev[i].name, name) || prev[i].seed != seed) continue;
#define CYC(f)                                                                                     \
  if (a->f != b->f) {                                                                              \
    snprintf(d, cap, "counter %s is %llu, %s counted %llu", #f, (unsigned long long)b->f, prev[i].spec, \
             (unsigned long long)a->f);                                                            \
    return 1;                                                                                      \
  }
    CYC(cycles) CYC(busy_load) CYC(busy_compute) CYC(busy_store) CYC(stall_load) CYC(stall_compute) CYC(stall_store)
#undef CYC
  }
  return 0;
}

/* rp_run with $OVTA_TSIM_LIB set to lib for the run (NULL: unchanged) */
static int rp_run_lib(const char *name, const char *lib, uint64_t interleave, const ovta_program *p, rp_result *out,
                      ovta_error *err) {
  if (!lib) return rp_run(name, interleave, p, 60000, out, err);
  const char *old = getenv("OVTA_TSIM_LIB");
  char *keep = old ? strdup(old) : NULL;
  setenv("OVTA_TSIM_LIB", lib, 1);
  int rc = rp_run(name, interleave, p, 600000, out, err);
  if (keep) setenv("OVTA_TSIM_LIB", keep, 1);
  else unsetenv("OVTA_TSIM_LIB");
  free(keep);
  return rc;
}

int rp_diff(const char *config, const rp_opts *o, uint64_t seed, const char *specs, const char *fail_dir, char *why,
            size_t cap) {
  ovta_config cfg;
  ovta_isa isa;
  ovta_error err;
  ovta_error_clear(&err);
  if (ovta_config_load(config, &cfg, &err) || ovta_isa_init(&isa, &cfg, &err)) {
    snprintf(why, cap, "config %s: %s", config, err.msg);
    return -1;
  }
  ovta_program p;
  if (rp_generate(&isa, o, seed, &p, &err)) {
    snprintf(why, cap, "generator, config %s seed %llu: %s", config, (unsigned long long)seed, err.msg);
    return -1;
  }
  rp_result want;
  char path[512];
  if (rp_reference(&p, &want, &err)) {
    save_program(&p, fail_dir, cfg.name, seed, path, sizeof path);
    snprintf(why, cap, "generator made an invalid program, config %s seed %llu: %s [%s]", config,
             (unsigned long long)seed, err.msg, path);
    ovta_program_free(&p);
    return -1;
  }
  char list[1024];
  snprintf(list, sizeof list, "%s", specs ? specs : rp_diff_backends());
  int status = 0;
  rp_spec_run prev[8];  /* earlier single runs, for the cycle check of a repeated NAME@seed */
  int nprev = 0;
  for (char *save = NULL, *t = strtok_r(list, ", ", &save); t && !status; t = strtok_r(NULL, ", ", &save)) {
    char name[64];
    uint64_t seeds[3] = {0};
    int ns = 1;
    const char *lib = strchr(t, '=');
    snprintf(name, sizeof name, "%.*s", lib ? (int)(lib - t) : (int)strlen(t), t);
    if (lib) lib++;
    if (!strcmp(name, "fsim-interleaved")) {
      snprintf(name, sizeof name, "fsim");
      ns = 3;
      for (int k = 0; k < 3; k++) seeds[k] = seed * 3 + (uint64_t)k + 1;
    } else {
      char *at = strchr(name, '@');
      if (at) *at = 0, seeds[0] = strtoull(at + 1, NULL, 0);
    }
    for (int k = 0; k < ns && !status; k++) {
      rp_result got;
      char d[300];
      if (rp_run_lib(name, lib, seeds[k], &p, &got, &err)) {
        snprintf(why, cap, "config %s seed %llu on %s (interleave %llu): run failed: %s: %s", config,
                 (unsigned long long)seed, t, (unsigned long long)seeds[k], ovta_rc_name(err.code), err.msg);
        status = 1;
        break;
      }
      if (rp_compare(&want, &got, d, sizeof d) > 0 || (ns == 1 && same_cycles(prev, nprev, name, seeds[k], &got, d, sizeof d))) {
        snprintf(why, cap, "config %s seed %llu on %s (interleave %llu) differs from the reference: %s", config,
                 (unsigned long long)seed, t, (unsigned long long)seeds[k], d);
        status = 1;
      } else if (ns == 1 && nprev < 8) {
        rp_spec_run *r = &prev[nprev++];
        snprintf(r->name, sizeof r->name, "%s", name);
        snprintf(r->spec, sizeof r->spec, "%.*s", (int)sizeof r->spec - 1, t);
        r->seed = seeds[k];
        r->ctr = got.ctr;
      }
      rp_result_free(&got);
    }
  }
  if (status) {
    save_program(&p, fail_dir, cfg.name, seed, path, sizeof path);
    if (path[0]) snprintf(why + strlen(why), cap - strlen(why), " [saved %s]", path);
  }
  rp_result_free(&want);
  ovta_program_free(&p);
  return status;
}
