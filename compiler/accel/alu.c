/* alu.c: ALU operators on the accelerator (compiler/accel/accel.h): residual add with requantization and
 * max pooling. Both bring int8 tensors into the accumulator with a GEMM against the identity weight
 * block (INP -> ACC, exact), then run on the ALU: ADD with a tensor operand (add), MAX with a tensor
 * operand over the window through the micro-op loops (maxpool; window positions in the padding are
 * skipped, which is -inf padding). Tile sizes need not divide the extents: the last tile is a
 * remainder tile with its own constant sizes. Emitted straight as host code (one virtual thread,
 * load/compute/store tokens as in accel/lower.c); the compute stage is the scalar nest.
 * Spec: compiler/accel/README.md, "ALU operators". */

#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"

/* ---------------------------------------------------------------- ops, plan, references */

void vta_op_add(vta_op *op, const char *name, int n, int c, int h, int w, int shift_a, int shift_b, int shift) {
  vta_op_conv(op, name ? name : "add", n, c, h, w, c, 1, 1, 0);
  op->kind = VTA_ADD;
  op->shift_a = shift_a, op->shift_b = shift_b, op->shift = shift;
}

void vta_op_maxpool(vta_op *op, const char *name, int n, int c, int h, int w, int k, int stride, int pad) {
  vta_op_conv(op, name ? name : "maxpool", n, c, h, w, c, k, stride, pad);
  op->kind = VTA_MAXPOOL;
}


int vta_alu_plan_make(const ovta_config *cfg, const vta_op *op, const vta_knobs *kn, vta_plan *p, ovta_error *err) {
  memset(p, 0, sizeof *p);
  p->op = *op;
  p->cfg = *cfg;
  const char *nm = op->name;
  int B = cfg->batch, BI = cfg->block_in;
  vta_knobs k = {0};
  if (kn) k = *kn;
  if (k.vthreads > 1)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the ALU operators run with one virtual thread", nm);
  p->vt = 1;
  p->in_rs = 1;
  p->bias_base = -1;
  p->q_chunks = 1;
  if (op->n <= 0 || op->c <= 0 || op->h <= 0 || op->w <= 0 || op->kh <= 0 || op->kw <= 0 || op->stride_h <= 0 ||
      op->stride_w <= 0 || op->pad_t < 0 || op->pad_l < 0 || op->pad_b < 0 || op->pad_r < 0 || op->o != op->c)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: bad shape", nm);
  if (op->n % B) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: batch %d is not a multiple of BATCH %d", nm, op->n, B);
  if (op->c % BI) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: channels %d not a multiple of BLOCK_IN %d", nm, op->c, BI);
  if (cfg->block_in != cfg->block_out)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the identity copy needs BLOCK_IN = BLOCK_OUT", nm);
  p->nb = op->n / B, p->cb = p->ob = op->c / BI;
  p->oh = vta_op_out_h(op), p->ow = vta_op_out_w(op);
  if (p->oh <= 0 || p->ow <= 0) return OVTA_FAIL(err, OVTA_EINVAL, "%s: empty output", nm);
  p->inp_part = cfg->inp_depth, p->wgt_part = cfg->wgt_depth, p->acc_part = cfg->acc_depth;
  p->uop_budget = cfg->uop_depth / 4;
  p->red_steps = 1;
  if (op->kind == VTA_ADD) {
    if (op->shift_a < 0 || op->shift_a > 31 || op->shift_b < 0 || op->shift_b > 31)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input shifts must be 0..31", nm);
    if ((op->shift >= 16 && op->shift <= 31) || op->shift < -31 || op->shift > 32767 || op->clip_min < -32768 ||
        op->clip_max > 32767 || op->clip_min > op->clip_max)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: shift/clip outside the ALU's 16-bit immediates", nm);
    int64_t E = (int64_t)p->nb * p->cb * op->h * op->w;
    int64_t t = cfg->inp_depth / 2;
    if (cfg->acc_depth / 2 < t) t = cfg->acc_depth / 2;
    if (t > 8191) t = 8191;
    if (k.t_w) t = k.t_w < t ? k.t_w : t;
    if (t > E) t = E;
    if (t < 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: no tile fits the SRAMs", nm);
    p->t_n = 1, p->t_oc = 1, p->t_ic = 1, p->t_h = 1, p->t_w = (int)t;
    p->in_h = 1, p->in_w = (int)t;
    p->inp_tile = p->acc_tile = (int)(2 * t), p->wgt_tile = 1;
    p->tiles = (E + t - 1) / t;
    snprintf(p->why, sizeof p->why, "add: %lld elements in tiles of %lld", (long long)E, (long long)t);
    return OVTA_OK;
  }
  if (op->pad_t >= op->kh || op->pad_b >= op->kh || op->pad_l >= op->kw || op->pad_r >= op->kw || op->pad_t > 15 ||
      op->pad_b > 15 || op->pad_l > 15 || op->pad_r > 15)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: padding must be below the window and at most 15", nm);
  if (op->w > 65535 || (int64_t)op->h * op->w > 65535)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input too large for 16-bit DMA strides", nm);
  /* tile: t_oc channel blocks x t_h output rows x the full width; largest rows, then channels */
  int in_w = (p->ow - 1) * op->stride_w + op->kw;
  int best_h = 0, best_c = 0;
  for (int th = p->oh; th >= 1 && !best_h; th--) {
    if (k.t_h && th != k.t_h) continue;
    int ih = (th - 1) * op->stride_h + op->kh;
    for (int tc = p->cb; tc >= 1; tc--) {
      if (p->cb % tc || tc > 64 || (k.t_oc && tc != k.t_oc)) continue;
      int64_t x = (int64_t)tc * ih * in_w, y = (int64_t)tc * th * p->ow;
      if (x <= cfg->inp_depth && x + y <= cfg->acc_depth && (int64_t)th * p->ow <= 65535 && ih <= 16383 && in_w <= 16383) {
        best_h = th, best_c = tc;
        break;
      }
    }
  }
  if (!best_h)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: no tiling fits the SRAMs of config %s (a row of windows needs "
                     "more than inp %d / acc %d elements)", nm, cfg->name, cfg->inp_depth, cfg->acc_depth);
  p->t_n = 1, p->t_oc = p->t_ic = best_c, p->t_h = best_h, p->t_w = p->ow;
  p->in_h = (best_h - 1) * op->stride_h + op->kh, p->in_w = in_w;
  p->inp_tile = best_c * p->in_h * in_w, p->wgt_tile = 1, p->acc_tile = p->inp_tile + best_c * best_h * p->ow;
  p->tiles = (int64_t)p->nb * (p->cb / best_c) * ((p->oh + best_h - 1) / best_h);
  snprintf(p->why, sizeof p->why, "maxpool: %d channel blocks x %d rows per tile (%s)", best_c, best_h,
           p->oh % best_h ? "remainder tile" : "rows divide");
  return OVTA_OK;
}

void vta_pack_identity(const vta_plan *p, int8_t *blk) {
  int BI = p->cfg.block_in, BO = p->cfg.block_out;
  for (int o = 0; o < BO; o++)
    for (int i = 0; i < BI; i++) blk[o * BI + i] = o == i;
}

static int32_t requant(const vta_op *op, uint32_t acc) {
  int32_t r = (int32_t)acc, s = op->shift;
  if (s >= 32) r = r < 0 ? -1 : 0;
  else if (s > 0) r = (int32_t)(acc + (1u << (s - 1))) >> s;
  else if (s <= -32) r = 0;
  else if (s < 0) r = (int32_t)(acc << -s);
  if (r < op->clip_min) r = op->clip_min;
  if (r > op->clip_max) r = op->clip_max;
  return r;
}

void vta_reference_add(const vta_op *op, const int8_t *a, const int8_t *b, int8_t *y) {
  size_t n = (size_t)op->n * op->c * op->h * op->w;
  for (size_t i = 0; i < n; i++) {
    uint32_t s = ((uint32_t)(int32_t)a[i] << op->shift_a) + ((uint32_t)(int32_t)b[i] << op->shift_b);
    y[i] = (int8_t)requant(op, s);
  }
}

void vta_reference_maxpool(const vta_op *op, const int8_t *x, int8_t *y) {
  int OH = vta_op_out_h(op), OW = vta_op_out_w(op);
  for (int n = 0; n < op->n; n++)
    for (int c = 0; c < op->c; c++)
      for (int oh = 0; oh < OH; oh++)
        for (int ow = 0; ow < OW; ow++) {
          int m = -128;
          for (int i = 0; i < op->kh; i++)
            for (int j = 0; j < op->kw; j++) {
              int ih = oh * op->stride_h - op->pad_t + i, iw = ow * op->stride_w - op->pad_l + j;
              if (ih < 0 || ih >= op->h || iw < 0 || iw >= op->w) continue;
              int v = x[(((size_t)n * op->c + c) * op->h + ih) * op->w + iw];
              if (v > m) m = v;
            }
          y[(((size_t)n * op->c + c) * OH + oh) * OW + ow] = (int8_t)m;
        }
}

/* ---------------------------------------------------------------- host code */

typedef struct ae {
  lir_func *f;
  const vta_plan *p;
  uint64_t uid;
  int site; /* kernel emission sites so far (part of the key) */
} ae;

static lir_expr *I(ae *e, int64_t v) { return lir_i64(e->f, v); }

static lir_stmt *callv(ae *e, const char *name, int n, lir_expr **a) {
  return lir_eval(e->f, lir_opaque(e->f, name, LIR_I32, n, a));
}
static lir_stmt *calli(ae *e, const char *name, int n, const int64_t *v) {
  lir_expr *a[12];
  for (int i = 0; i < n; i++) a[i] = I(e, v[i]);
  return callv(e, name, n, a);
}
static lir_stmt *dep(ae *e, bool push, int from, int to) {
  int64_t v[2] = {from, to};
  return calli(e, push ? "ovta_vrt_dep_push" : "ovta_vrt_dep_pop", 2, v);
}

/* A micro-op kernel: up to two loop levels {ext, dst, src, wgt}, nu micro-ops {dst, src, wgt},
 * then the instructions: gemm reset flags (gemm >= 0) and ALU (op, use_imm, imm) triples. */
typedef struct kspec {
  int nl;            /* loop levels (0..2) */
  int64_t l[2][4];   /* per level: extent, dst, src, wgt factors */
  int nu;            /* micro-ops */
  int64_t u[64][3];  /* per micro-op: dst, src, wgt */
  int ngemm;         /* GEMM instructions on the kernel */
  int gemm[2];       /* their reset flags */
  int nalu;          /* ALU instructions after them */
  int64_t alu[8][3]; /* per ALU instruction: opcode, use_imm, imm */
} kspec;

static void kernel(ae *e, lir_block *out, const kspec *k) {
  lir_func *f = e->f;
  int64_t key = (int64_t)(e->uid << 32 | (uint64_t)5 << 24) + e->site++;
  lir_block rec;
  lir_block_init(&rec, f);
  for (int i = 0; i < k->nl; i++) lir_block_add(&rec, calli(e, "ovta_vrt_loop_begin", 4, k->l[i]));
  for (int i = 0; i < k->nu; i++) lir_block_add(&rec, calli(e, "ovta_vrt_uop", 3, k->u[i]));
  for (int i = 0; i < k->nl; i++) lir_block_add(&rec, callv(e, "ovta_vrt_loop_end", 0, NULL));
  lir_expr *kb = lir_opaque(f, "ovta_vrt_kernel_begin", LIR_I32, 1, (lir_expr *[]){I(e, key)});
  lir_block_add(out, lir_if(f, lir_bin(f, LIR_NE, kb, lir_int(f, LIR_I32, 0)), lir_block_stmt(&rec), NULL));
  for (int i = 0; i < k->ngemm; i++) lir_block_add(out, calli(e, "ovta_vrt_gemm", 1, (int64_t[]){k->gemm[i]}));
  for (int i = 0; i < k->nalu; i++) lir_block_add(out, calli(e, "ovta_vrt_alu", 3, k->alu[i]));
  lir_block_add(out, callv(e, "ovta_vrt_kernel_end", 0, NULL));
}

/* The requantization after the add: SHR by the shift (when not 0), then CLP when both clip bounds
 * are int8, else MAX and MIN (the rounding constant is added before: add_round). */
static int requant_ops(const vta_op *op, int64_t ops[8][3]) {
  int n = 0;
  int32_t clp;
  if (op->shift != 0) ops[n][0] = OVTA_ALU_SHR, ops[n][1] = 1, ops[n++][2] = op->shift;
  if (vta_clip_imm(op, &clp)) {
    ops[n][0] = OVTA_ALU_CLP, ops[n][1] = 1, ops[n++][2] = clp;
  } else {
    ops[n][0] = OVTA_ALU_MAX, ops[n][1] = 1, ops[n++][2] = op->clip_min;
    ops[n][0] = OVTA_ALU_MIN, ops[n][1] = 1, ops[n++][2] = op->clip_max;
  }
  return n;
}

/* Where the add's rounding constant r = 2^(shift-1) goes: into the initial value of input a's ACC
 * region (r >> shift_a, when shift_a < shift: (a + (r >> shift_a)) << shift_a = (a << shift_a) + r,
 * wrapping) or else of b's; *init_a / *init_b get the fills (0: none); returns the immediate of a
 * separate ALU ADD when neither input shift allows it (0: none). The plan keeps shift <= 15. */
static int32_t add_round(const vta_op *op, int32_t *init_a, int32_t *init_b) {
  int32_t r = vta_requant_round(op);
  *init_a = *init_b = 0;
  if (!r) return 0;
  if (op->shift_a < op->shift) *init_a = r >> op->shift_a;
  else if (op->shift_b < op->shift) *init_b = r >> op->shift_b;
  else return r;
  return 0;
}

/* One add tile of s elements at flat element offset `off` (an expression). */
static lir_stmt *add_tile(ae *e, lir_expr *off, int64_t s) {
  const vta_op *op = &e->p->op;
  lir_func *f = e->f;
  lir_block b;
  lir_block_init(&b, f);
  lir_block_add(&b, dep(e, false, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  lir_expr *la[11] = {I(e, OVTA_MEM_INP), I(e, 0), I(e, VTA_BUF_X), off, I(e, s), I(e, 1), I(e, s), I(e, 0), I(e, 0), I(e, 0), I(e, 0)};
  lir_block_add(&b, callv(e, "ovta_vrt_load", 11, la));
  lir_expr *lb[11] = {I(e, OVTA_MEM_INP), I(e, s), I(e, VTA_BUF_W), off, I(e, s), I(e, 1), I(e, s), I(e, 0), I(e, 0), I(e, 0), I(e, 0)};
  lir_block_add(&b, callv(e, "ovta_vrt_load", 11, lb));
  lir_block_add(&b, calli(e, "ovta_vrt_load", 11, (int64_t[]){OVTA_MEM_WGT, 0, VTA_BUF_BIAS, 0, 1, 1, 1, 0, 0, 0, 0}));
  lir_block_add(&b, dep(e, true, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  lir_block_add(&b, dep(e, false, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  lir_block_add(&b, dep(e, false, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  /* ACC[0, 2s) = 0 (a region whose initial value carries the rounding constant: MOV of it), then
   * += INP[j] x identity: a in ACC[0, s), b in ACC[s, 2s) */
  int32_t ia, ib, radd = add_round(op, &ia, &ib);
  if (!ia && !ib) {
    kernel(e, &b, &(kspec){.nl = 1, .l = {{2 * s, 1, 0, 0}}, .nu = 1, .ngemm = 1, .gemm = {1}});
  } else {
    for (int r = 0; r < 2; r++) {
      int32_t v = r ? ib : ia;
      kspec k = {.nl = 1, .l = {{s, 1, 0, 0}}, .nu = 1, .u = {{r * s, 0, 0}}};
      if (v) k.nalu = 1, k.alu[0][0] = OVTA_ALU_MOV, k.alu[0][1] = 1, k.alu[0][2] = v;
      else k.ngemm = 1, k.gemm[0] = 1;
      kernel(e, &b, &k);
    }
  }
  kernel(e, &b, &(kspec){.nl = 1, .l = {{2 * s, 1, 1, 0}}, .nu = 1, .ngemm = 1, .gemm = {0}});
  lir_block_add(&b, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  if (op->shift_a) kernel(e, &b, &(kspec){.nl = 1, .l = {{s, 1, 0, 0}}, .nu = 1, .nalu = 1, .alu = {{OVTA_ALU_SHR, 1, -op->shift_a}}});
  if (op->shift_b)
    kernel(e, &b, &(kspec){.nl = 1, .l = {{s, 1, 0, 0}}, .nu = 1, .u = {{s, 0, 0}}, .nalu = 1, .alu = {{OVTA_ALU_SHR, 1, -op->shift_b}}});
  kernel(e, &b, &(kspec){.nl = 1, .l = {{s, 1, 1, 0}}, .nu = 1, .u = {{0, s, 0}}, .nalu = 1, .alu = {{OVTA_ALU_ADD, 0, 0}}});
  kspec rq = {.nl = 1, .l = {{s, 1, 0, 0}}, .nu = 1};
  if (radd) rq.alu[rq.nalu][0] = OVTA_ALU_ADD, rq.alu[rq.nalu][1] = 1, rq.alu[rq.nalu++][2] = radd;
  rq.nalu += requant_ops(op, rq.alu + rq.nalu);
  kernel(e, &b, &rq);
  lir_block_add(&b, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_STORE));
  lir_block_add(&b, dep(e, false, OVTA_RT_COMPUTE, OVTA_RT_STORE));
  lir_expr *st[6] = {I(e, 0), I(e, VTA_BUF_Y), off, I(e, s), I(e, 1), I(e, s)};
  lir_block_add(&b, callv(e, "ovta_vrt_store", 6, st));
  lir_block_add(&b, dep(e, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  return lir_block_stmt(&b);
}

/* One maxpool tile: output rows [oh0, oh0 + th) of t_oc channel blocks from block `cbase` (expr) of
 * image block `nbv` (expr). */
static lir_stmt *pool_tile(ae *e, lir_expr *nbv, lir_expr *cbase, int oh0, int th) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  lir_func *f = e->f;
  int tc = p->t_oc, H = op->h, W = op->w, OW = p->ow, s_h = op->stride_h, s_w = op->stride_w;
  int ih = (th - 1) * s_h + op->kh, iw = p->in_w;
  int ih0 = oh0 * s_h - op->pad_t;
  int pt = ih0 < 0 ? -ih0 : 0, pb = ih0 + ih > H ? ih0 + ih - H : 0;
  int pl = op->pad_l, pr = (OW - 1) * s_w + op->kw - op->pad_l > W ? (OW - 1) * s_w + op->kw - op->pad_l - W : 0;
  int64_t X = (int64_t)tc * ih * iw; /* ACC: X [tc][ih][iw], then Y [tc][th][OW] */
  lir_block b;
  lir_block_init(&b, f);
  lir_block_add(&b, dep(e, false, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  lir_var *cc = lir_var_new(f, "pc", LIR_I64);
  lir_expr *blk = lir_add(f, lir_muli(f, nbv, p->cb), lir_add(f, cbase, lir_ref(f, cc)));
  lir_expr *off = lir_addi(f, lir_muli(f, blk, (int64_t)H * W), (int64_t)(ih0 + pt) * W);
  lir_expr *la[11] = {I(e, OVTA_MEM_INP), lir_muli(f, lir_ref(f, cc), (int64_t)ih * iw), I(e, VTA_BUF_X), off,
                      I(e, iw - pl - pr), I(e, ih - pt - pb), I(e, W), I(e, pl), I(e, pt), I(e, pr), I(e, pb)};
  lir_block_add(&b, lir_for(f, cc, I(e, 0), I(e, tc), LIR_FOR_SERIAL, callv(e, "ovta_vrt_load", 11, la)));
  lir_block_add(&b, calli(e, "ovta_vrt_load", 11, (int64_t[]){OVTA_MEM_WGT, 0, VTA_BUF_BIAS, 0, 1, 1, 1, 0, 0, 0, 0}));
  lir_block_add(&b, dep(e, true, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  lir_block_add(&b, dep(e, false, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  lir_block_add(&b, dep(e, false, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  kernel(e, &b, &(kspec){.nl = 1, .l = {{X, 1, 0, 0}}, .nu = 1, .ngemm = 1, .gemm = {1}});
  kernel(e, &b, &(kspec){.nl = 1, .l = {{X, 1, 1, 0}}, .nu = 1, .ngemm = 1, .gemm = {0}});
  lir_block_add(&b, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  /* Y = -128: one MOV fill */
  int64_t ny = (int64_t)tc * th * OW;
  kernel(e, &b, &(kspec){.nl = 1, .l = {{ny, 1, 0, 0}}, .nu = 1, .u = {{X, 0, 0}}, .nalu = 1, .alu = {{OVTA_ALU_MOV, 1, -128}}});
  /* MAX over the window: per (ky, kx) the output rectangle whose window position is in the image */
  for (int ky = 0; ky < op->kh; ky++)
    for (int kx = 0; kx < op->kw; kx++) {
      int r0 = 0, r1 = th, c0 = 0, c1 = OW;
      while (r0 < th && (oh0 + r0) * s_h + ky - op->pad_t < 0) r0++;
      while (r1 > r0 && (oh0 + r1 - 1) * s_h + ky - op->pad_t >= H) r1--;
      while (c0 < OW && c0 * s_w + kx - op->pad_l < 0) c0++;
      while (c1 > c0 && (c1 - 1) * s_w + kx - op->pad_l >= W) c1--;
      if (r0 >= r1 || c0 >= c1) continue;
      kspec k = {.nl = 2, .l = {{r1 - r0, OW, (int64_t)s_h * iw, 0}, {c1 - c0, 1, s_w, 0}}, .nu = tc, .nalu = 1,
                 .alu = {{OVTA_ALU_MAX, 0, 0}}};
      for (int c = 0; c < tc && c < 64; c++) {
        k.u[c][0] = X + (int64_t)c * th * OW + (int64_t)r0 * OW + c0;
        k.u[c][1] = (int64_t)c * ih * iw + (int64_t)(r0 * s_h + ky) * iw + (int64_t)c0 * s_w + kx;
        k.u[c][2] = 0;
      }
      kernel(e, &b, &k);
    }
  lir_block_add(&b, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_STORE));
  lir_block_add(&b, dep(e, false, OVTA_RT_COMPUTE, OVTA_RT_STORE));
  lir_expr *yoff = lir_addi(f, lir_muli(f, lir_add(f, lir_muli(f, nbv, p->ob), cbase), (int64_t)p->oh * OW), (int64_t)oh0 * OW);
  lir_expr *st[6] = {I(e, X), I(e, VTA_BUF_Y), yoff, I(e, (int64_t)th * OW), I(e, tc), I(e, (int64_t)p->oh * OW)};
  lir_block_add(&b, callv(e, "ovta_vrt_store", 6, st));
  lir_block_add(&b, dep(e, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  return lir_block_stmt(&b);
}

static lir_stmt *alu_host(ae *e) {
  const vta_plan *p = e->p;
  lir_func *f = e->f;
  lir_block top;
  lir_block_init(&top, f);
  lir_block_add(&top, dep(e, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  lir_block_add(&top, dep(e, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  if (p->op.kind == VTA_ADD) {
    int64_t E = (int64_t)p->nb * p->cb * p->op.h * p->op.w, t = p->t_w, q = E / t, r = E % t;
    if (q) {
      lir_var *tv = lir_var_new(f, "tt", LIR_I64);
      lir_block_add(&top, lir_for(f, tv, I(e, 0), I(e, q), LIR_FOR_SERIAL, add_tile(e, lir_muli(f, lir_ref(f, tv), t), t)));
    }
    if (r) lir_block_add(&top, add_tile(e, I(e, q * t), r)); /* remainder tile */
  } else {
    lir_var *nv = lir_var_new(f, "tn", LIR_I64), *cv = lir_var_new(f, "tc", LIR_I64);
    lir_block rows;
    lir_block_init(&rows, f);
    lir_expr *cbase = lir_muli(f, lir_ref(f, cv), p->t_oc);
    for (int oh0 = 0; oh0 < p->oh; oh0 += p->t_h) /* row tiles unrolled: constant pads and rectangles */
      lir_block_add(&rows, pool_tile(e, lir_ref(f, nv), cbase, oh0, oh0 + p->t_h <= p->oh ? p->t_h : p->oh - oh0));
    lir_block_add(&top, lir_for(f, nv, I(e, 0), I(e, p->nb), LIR_FOR_SERIAL,
                                lir_for(f, cv, I(e, 0), I(e, p->cb / p->t_oc), LIR_FOR_SERIAL, lir_block_stmt(&rows))));
  }
  return lir_attr(f, "vthreads", I(e, 1), lir_block_stmt(&top));
}

/* The compute stage: the scalar nest over the packed DRAM tensors. */
static lir_stmt *alu_compute(ae *e, lir_buf *x, lir_buf *w, lir_buf *y) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  lir_func *f = e->f;
  int B = p->cfg.batch, BI = p->cfg.block_in;
  lir_nest o;
  int64_t oext[6] = {p->nb, p->cb, p->oh, p->ow, B, BI};
  lir_nest_open(f, &o, 6, oext, "o");
  if (op->kind == VTA_ADD) {
    lir_expr *va = lir_bin(f, LIR_SHL, lir_cast(f, LIR_I32, lir_load(f, x, o.idx)), lir_int(f, LIR_I32, op->shift_a));
    lir_expr *vb = lir_bin(f, LIR_SHL, lir_cast(f, LIR_I32, lir_load(f, w, o.idx)), lir_int(f, LIR_I32, op->shift_b));
    lir_expr *v = lir_bin(f, LIR_ADD, va, vb);
    if (vta_requant_round(op)) v = lir_bin(f, LIR_ADD, v, lir_int(f, LIR_I32, vta_requant_round(op)));
    if (op->shift != 0) {
      int sh = op->shift >= 32 ? 31 : op->shift;
      if (sh > 0) v = lir_bin(f, LIR_SHR, v, lir_int(f, LIR_I32, sh));
      else v = sh <= -32 ? lir_int(f, LIR_I32, 0) : lir_bin(f, LIR_SHL, v, lir_int(f, LIR_I32, -sh));
    }
    v = lir_bin(f, LIR_MIN, lir_bin(f, LIR_MAX, v, lir_int(f, LIR_I32, op->clip_min)), lir_int(f, LIR_I32, op->clip_max));
    return lir_nest_close(f, &o, lir_store(f, y, o.idx, lir_cast(f, LIR_I8, v)), LIR_FOR_SERIAL);
  }
  lir_buf *m = lir_buf_new(f, "m", LIR_I32, 0, NULL, LIR_SCOPE_LOCAL);
  lir_nest r;
  int64_t rext[2] = {op->kh, op->kw};
  lir_nest_open(f, &r, 2, rext, "k");
  lir_expr *ih = lir_add(f, lir_addi(f, lir_muli(f, o.idx[2], op->stride_h), -op->pad_t), r.idx[0]);
  lir_expr *iw = lir_add(f, lir_addi(f, lir_muli(f, o.idx[3], op->stride_w), -op->pad_l), r.idx[1]);
  lir_expr *in = lir_bin(f, LIR_AND, lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, ih, I(e, 0)), lir_bin(f, LIR_LT, ih, I(e, op->h))),
                         lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, iw, I(e, 0)), lir_bin(f, LIR_LT, iw, I(e, op->w))));
  lir_expr *xi[6] = {o.idx[0], o.idx[1], lir_max(f, lir_min(f, ih, I(e, op->h - 1)), I(e, 0)),
                     lir_max(f, lir_min(f, iw, I(e, op->w - 1)), I(e, 0)), o.idx[4], o.idx[5]};
  lir_expr *v = lir_select(f, in, lir_cast(f, LIR_I32, lir_load(f, x, xi)), lir_int(f, LIR_I32, -128));
  lir_stmt *upd = lir_store(f, m, NULL, lir_bin(f, LIR_MAX, lir_load(f, m, NULL), v));
  lir_stmt *three[3] = {lir_store(f, m, NULL, lir_int(f, LIR_I32, -128)), lir_nest_close(f, &r, upd, LIR_FOR_SERIAL),
                        lir_store(f, y, o.idx, lir_cast(f, LIR_I8, lir_load(f, m, NULL)))};
  return lir_nest_close(f, &o, lir_alloc_stmt(f, m, lir_seq(f, 3, three)), LIR_FOR_SERIAL);
}


int vta_alu_compute(const vta_plan *p, lir_func *f, ovta_error *err) {
  (void)err;
  ae ec = {.f = f, .p = p}, *e = &ec;
  int B = p->cfg.batch, BI = p->cfg.block_in;
  int64_t xs[6] = {p->nb, p->cb, p->op.h, p->op.w, B, BI};
  int64_t ys[6] = {p->nb, p->cb, p->oh, p->ow, B, BI};
  int64_t is[2] = {p->cfg.block_out, BI};
  lir_buf *x = lir_param(f, "x", LIR_I8, 6, xs);
  lir_buf *w = p->op.kind == VTA_ADD ? lir_param(f, "w", LIR_I8, 6, xs) : lir_param(f, "w", LIR_I8, 2, is);
  lir_param(f, "ident", LIR_I8, 2, is);
  lir_buf *y = lir_param(f, "y", LIR_I8, 6, ys);
  f->body = alu_compute(e, x, w, y);
  return OVTA_OK;
}

bool vta_alu_direct(const vta_plan *p) { return p->op.kind == VTA_ADD || p->op.kind == VTA_MAXPOOL; }

/* The direct path: every stage after compute is the host code (one virtual thread). */
int vta_alu_host(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)err;
  ae ec = {.f = f, .p = p, .uid = uid & 0x7fffffff}, *e = &ec;
  f->body = alu_host(e);
  return OVTA_OK;
}
