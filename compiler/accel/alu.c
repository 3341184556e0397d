/* alu.c: ALU operators on the accelerator (compiler/accel/accel.h): residual add with requantization,
 * max pooling, global average pooling and nearest-neighbour upsampling - their plan, references, compute stage and schedule
 * stage; every later stage is the passes' (lower.c). All bring int8 tensors into the accumulator
 * with a GEMM against the identity weight block (INP -> ACC, exact), then run on the ALU: the add's
 * inputs accumulated into one region with a left shift between them, MAX with a tensor operand over
 * the window, the channel blocks unrolled into micro-ops (maxpool, after a MOV of a tap inside the
 * image for the whole tile; window positions in the padding are skipped, which is -inf padding), ADD
 * over the whole image's window then MUL, ADD, SHR, CLP (global average pool); the upsampling is the
 * identity GEMM alone, its micro-ops reading input pixel (r / fh, q / fw) for output pixel (r, q)
 * (nothing on the ALU but the zero fill of the ACC tile). Tile sizes need not divide the
 * extents: the last tile is a remainder tile with its own constant sizes. One virtual thread, but
 * the max pool takes two where its estimate (pool_est) says so: INP/WGT/ACC halves, row tiles
 * alternating, the window copy in pieces and taps paired per ALU instruction so one tile's ALU runs
 * beside the next tile's GEMMs (pool_tile); where the first tap is alone in its stride phases, the
 * separable form instead (sep_tile: the window as stride-phase planes, row then column maxima in
 * place, each input row loaded and copied once). Spec: compiler/accel/README.md, "ALU operators". */

#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"

/* ---------------------------------------------------------------- ops, plan, references */

static bool tap_rect(const vta_op *op, int oh0, int th, int OW, int ky, int kx, int *r);
static int full_tap(const vta_op *op, int oh0, int th, int OW);
static int tap_groups(const vta_op *op, int oh0, int th, int OW, bool pair, int (*grp)[2]);
static int pool_rows_piece(const vta_op *op, int tc, int ih, int na);
static int pool_tiling(const ovta_config *cfg, const vta_op *op, const vta_knobs *kp, int vt, vta_plan *p, ovta_error *err);

/* A step of a max-pool tile in the separable form (sep_ops): a GEMM reset or identity copy of a
 * rectangle of a phase plane, or an ALU MAX of a rectangle of one plane with a shifted rectangle of
 * another. Plane (py, px) of a tile holds the window element of window row t, column q with t mod
 * stride_h = py, q mod stride_w = px at [t / stride_h][q / stride_w]. */
typedef struct sep_op {
  int kind;           /* 0 GEMM reset, 1 GEMM identity copy (from INP), 2 ALU MAX */
  int dy, dx;         /* the plane written (row phase, column phase) */
  int sy, sx;         /* MAX: the plane read */
  int r0, r1, c0, c1; /* the rows and columns written (plane indices) */
  int di, dj;         /* MAX: the element read is the one written + (di, dj), in plane (sy, sx) */
  bool ring;          /* MAX: plane (sy, sx) of the other part (the tile before's, di includes its t_h) */
} sep_op;
static int sep_home(const vta_op *op, int oh, int ow, int th);
static int sep_ops(const vta_plan *p, int oh0, int th, sep_op *o);
static int sep_skip(const vta_plan *p, int oh0);
static int64_t sep_acc(const vta_op *op, int th, int in_w, int ow);

void vta_op_add(vta_op *op, const char *name, int n, int c, int h, int w, int shift_a, int shift_b, int shift) {
  vta_op_conv(op, name ? name : "add", n, c, h, w, c, 1, 1, 0);
  op->kind = VTA_ADD;
  op->shift_a = shift_a, op->shift_b = shift_b, op->shift = shift;
}

void vta_op_maxpool(vta_op *op, const char *name, int n, int c, int h, int w, int k, int stride, int pad) {
  vta_op_conv(op, name ? name : "maxpool", n, c, h, w, c, k, stride, pad);
  op->kind = VTA_MAXPOOL;
}

void vta_op_gap(vta_op *op, const char *name, int n, int c, int h, int w, int mult, int shift) {
  vta_op_conv(op, name ? name : "gap", n, c, h, w, c, 1, 1, 0);
  op->kind = VTA_GAP;
  op->kh = h, op->kw = w;
  op->mult = mult, op->shift = shift;
  op->clip_min = -127, op->clip_max = 127;
}

void vta_op_upsample(vta_op *op, const char *name, int n, int c, int h, int w, int fh, int fw) {
  vta_op_conv(op, name ? name : "upsample", n, c, h, w, c, 1, 1, 0);
  op->kind = VTA_UPSAMPLE;
  op->up_h = fh, op->up_w = fw;
}

/* The upsampling's tiling (plan fields as the pools'): t_oc channel blocks x t_h output rows (a
 * multiple of fh: t_h / fh input rows) x the full width; the most rows, then the most channel
 * blocks, such that INP holds t_oc x t_h / fh x W, ACC t_oc x t_h x OW, the unrolled micro-ops
 * (t_oc x fh x fw) fit the kernel budget and the hardware loop factors (fh x OW on the ACC, W on
 * the INP) fit their 11 bits. */
static int upsample_plan(const ovta_config *cfg, const vta_op *op, const vta_knobs *k, vta_plan *p, ovta_error *err) {
  const char *nm = op->name;
  int fh = op->up_h, fw = op->up_w;
  if (fh < 1 || fw < 1 || fh > 64 || fw > 64)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: upsampling factors %dx%d outside 1..64", nm, fh, fw);
  if ((int64_t)fh * p->ow > 2047 || op->w > 2047)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: rows too wide for the micro-op loop factors (11 bits)", nm);
  if (k->t_h && k->t_h % fh)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: t_h %d is not a multiple of the factor %d", nm, k->t_h, fh);
  int best_r = 0, best_c = 0;
  for (int r = op->h; r >= 1 && !best_r; r--) { /* r input rows */
    if (k->t_h && r * fh != k->t_h) continue;
    for (int tc = p->cb; tc >= 1; tc--) {
      if (p->cb % tc || tc > 64 || (k->t_oc && tc != k->t_oc) || tc * fh * fw > p->uop_budget) continue;
      int64_t x = (int64_t)tc * r * op->w, y = (int64_t)tc * r * fh * p->ow;
      if (x <= cfg->inp_depth && y <= cfg->acc_depth && (int64_t)r * fh * p->ow <= 65535) {
        best_r = r, best_c = tc;
        break;
      }
    }
  }
  if (!best_r)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: no tiling fits the SRAMs of config %s (a row needs more than inp "
                     "%d / acc %d elements)", nm, cfg->name, cfg->inp_depth, cfg->acc_depth);
  p->t_n = 1, p->t_oc = p->t_ic = best_c, p->t_h = best_r * fh, p->t_w = p->ow;
  p->in_h = best_r, p->in_w = op->w;
  p->inp_tile = best_c * best_r * op->w, p->wgt_tile = 1, p->acc_tile = best_c * best_r * fh * p->ow;
  p->tiles = (int64_t)p->nb * (p->cb / best_c) * ((op->h + best_r - 1) / best_r);
  snprintf(p->why, sizeof p->why, "upsample %dx%d: %d channel blocks x %d input rows per tile (%s)", fh, fw, best_c,
           best_r, op->h % best_r ? "remainder tile" : "rows divide");
  return OVTA_OK;
}

int vta_alu_plan_make(const ovta_config *cfg, const vta_op *op, const vta_knobs *kn, vta_plan *p, ovta_error *err) {
  memset(p, 0, sizeof *p);
  p->op = *op;
  p->cfg = *cfg;
  const char *nm = op->name;
  int B = cfg->batch, BI = cfg->block_in;
  vta_knobs k = {0};
  if (kn) k = *kn;
  if (k.vthreads > 1 && op->kind != VTA_MAXPOOL && op->kind != VTA_GAP)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: the ALU operators but the pools run with one virtual thread", nm);
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
  p->as_written = true;
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
    p->inp_tile = (int)(2 * t), p->acc_tile = (int)t, p->wgt_tile = 2;
    p->tiles = (E + t - 1) / t;
    snprintf(p->why, sizeof p->why, "add: %lld elements in tiles of %lld", (long long)E, (long long)t);
    return OVTA_OK;
  }
  if (op->kind == VTA_UPSAMPLE) {
    if (op->kh != 1 || op->kw != 1 || op->stride_h != 1 || op->stride_w != 1 || op->pad_t || op->pad_l || op->pad_b ||
        op->pad_r)
      return OVTA_FAIL(err, OVTA_EINVAL, "%s: an upsampling has no window (1x1, stride 1, no pads)", nm);
    return upsample_plan(cfg, op, &k, p, err);
  }
  if (op->kind == VTA_GAP && (op->kh != op->h || op->kw != op->w || op->stride_h != 1 || op->stride_w != 1 ||
                              op->pad_t || op->pad_l || op->pad_b || op->pad_r))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: a global pool's window is the whole image (stride 1, no pads)", nm);
  if (op->kind == VTA_GAP && (op->mult < 1 || op->mult > 32767 || op->shift < 0 || op->shift > 30 ||
                              op->clip_min < -128 || op->clip_max > 127 || op->clip_min > op->clip_max))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: multiplier %d outside 1..32767, shift %d outside 0..30 or a clip "
                     "outside int8 (the ALU's immediates)", nm, op->mult, op->shift);
  if (op->pad_t >= op->kh || op->pad_b >= op->kh || op->pad_l >= op->kw || op->pad_r >= op->kw || op->pad_t > 15 ||
      op->pad_b > 15 || op->pad_l > 15 || op->pad_r > 15)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: padding must be below the window and at most 15", nm);
  if (op->w > 65535 || (int64_t)op->h * op->w > 65535)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input too large for 16-bit DMA strides", nm);
  if (op->kind != VTA_MAXPOOL && op->kind != VTA_GAP) return pool_tiling(cfg, op, &k, 1, p, err);
  /* the pools: one or two virtual threads (the knob, else the one estimated faster) */
  if (k.vthreads == 1 || k.vthreads == 2) return pool_tiling(cfg, op, &k, k.vthreads, p, err);
  vta_plan p2 = *p;
  int rc1 = pool_tiling(cfg, op, &k, 1, p, err), rc2 = pool_tiling(cfg, op, &k, 2, &p2, NULL);
  if (rc1 == OVTA_OK && rc2 == OVTA_OK && p2.est < p->est) *p = p2;
  else if (rc1 != OVTA_OK && rc2 == OVTA_OK) *p = p2, rc1 = OVTA_OK;
  return rc1;
}

/* ALU micro-ops of one pool tile in its instructions (schedule: pool_tile): the -128 fill when no
 * tap covers the tile, then per tap group (tap_groups; pair: two threads) its rectangle times its
 * taps, t_oc channel blocks. Returns the instructions, their sizes in a[]. */
static int pool_tile_alu(const vta_op *op, int tc, int oh0, int th, int OW, bool pair, int64_t *a) {
  int grp[op->kh * op->kw][2], n = 0, r[4];
  if (op->kind == VTA_GAP || full_tap(op, oh0, th, OW) < 0) a[n++] = (int64_t)th * OW * tc;
  int ng = tap_groups(op, oh0, th, OW, pair, grp);
  for (int i = 0; i < ng; i++) {
    tap_rect(op, oh0, th, OW, grp[i][0] / op->kw, grp[i][0] % op->kw, r);
    a[n++] = (int64_t)(r[1] - r[0]) * (r[3] - r[2]) * tc * (grp[i][1] >= 0 ? 2 : 1);
  }
  return n;
}

/* The compute module's time for GEMMs g[0..ng) interleaved with ALU instructions a[0..na) (G1 A1 G2
 * A2 ..., the rest of either after; the runtime's order): an instruction of the other kind than the
 * one before it starts when its slot is free and the instruction two before that has finished (the
 * two execution slots, hw/rtl/README.md), one of the same kind when both slots are free. */
static double pool_lanes(const double *g, int ng, const int64_t *a, int na) {
  double end[3] = {0, 0, 0}, t = 0; /* end of the last three instructions, newest first */
  int prev = -1;
  for (int i = 0, j = 0; i < ng || j < na;) {
    int kind = i < ng && (j >= na || i <= j) ? 0 : 1; /* 0: a GEMM */
    double x = kind ? (double)a[j++] : g[i++], st;
    if (prev >= 0 && kind != prev) st = end[1] > end[2] ? end[1] : end[2];
    else st = end[0] > end[1] ? end[0] : end[1];
    end[2] = end[1], end[1] = end[0], end[0] = st + x;
    if (end[0] > t) t = end[0];
    prev = kind;
  }
  return t;
}

/* The pool's estimated cycles (vta_plan.est; tsim, default DRAM model: a bus beat a cycle, 40 cycles
 * of latency a DMA): per tile the loads L (the INP rows in the image; the identity block: one
 * thread every tile, two threads the first tile of each part), the
 * window copy G (a GEMM reset and an identity GEMM per window element), the ALU instructions (sum
 * A), the store S, 14 cycles an instruction. One thread: the next tile's load runs beside this
 * tile's ALU and store, the rest is serial: G + max(A + S, L). Two threads: the runtime runs each ALU
 * instruction of a tile beside one GEMM piece of the next (pool_rows_piece) - the pair takes the
 * longer, a piece without an ALU its own - and the loads beside both: the tile takes max(L, pairs),
 * the first tile also (G + A + S + L) / 2 (nothing beside it). The separable form (sep_ops): the
 * tile's GEMMs beside the tile before's MAXes in the same lane model, a GEMM SEP_ROW cycles a row
 * more than its micro-ops, no instruction term but the loads' and store's, the first tile a
 * quarter of its work; its loads without the ring's rows. Measured (tsim, 2026-11-27):
 * bench/README.md "Max pool with two virtual threads", "The max pool's separable form". */
enum { SEP_ROW = 6 }; /* the separable form's estimate: cycles a row of a GEMM's rectangle costs beyond its
                        micro-ops (fitted to tsim, bench/README.md "The max pool's separable form") */
static double pool_est(const vta_plan *p) {
  const vta_op *op = &p->op;
  double bpe = (double)p->cfg.batch * p->cfg.block_in, bus = p->cfg.axi_data_bits / 8.0, t = 0, fill = 0;
  int tc = p->t_oc, iw = p->in_w, R = (p->oh + p->t_h - 1) / p->t_h, nt = op->kh * op->kw + 1;
  int64_t *a = calloc((size_t)R * nt, sizeof *a); /* per row tile its ALU instructions */
  int *na = calloc((size_t)R, sizeof *na);
  if (!a || !na) {
    free(a), free(na);
    return 1e30;
  }
  for (int j = 0; j < R; j++) {
    int oh0 = j * p->t_h, th = oh0 + p->t_h <= p->oh ? p->t_h : p->oh - oh0;
    na[j] = pool_tile_alu(op, tc, oh0, th, p->ow, p->vt > 1, a + (size_t)j * nt);
  }
  for (int j = 0; j < R; j++) {
    int oh0 = j * p->t_h, th = oh0 + p->t_h <= p->oh ? p->t_h : p->oh - oh0, ih = (th - 1) * op->stride_h + op->kh;
    int r0 = oh0 * op->stride_h - op->pad_t, r1 = r0 + ih;
    if (p->pool_sep) r0 += sep_skip(p, oh0); /* the ring's rows are not loaded */
    int rows = (r1 < op->h ? r1 : op->h) - (r0 > 0 ? r0 : 0), ng = 2;
    double L = (double)tc * rows * op->w * bpe / bus + 40; /* and the identity block's (pool_tile) */
    if (p->vt == 1 || j < 2) L += bpe * p->cfg.block_out / bus + 40;
    double S = (double)tc * th * p->ow * bpe / bus + 40, G = 2.0 * tc * ih * iw, A = 0, c;
    for (int i = 0; i < na[j]; i++) A += (double)a[(size_t)j * nt + i];
    if (p->pool_sep) { /* sep_ops: GEMMs of this tile beside the MAXes of the tile before */
      sep_op so[4 * op->kh * op->kw + 8];
      int n = sep_ops(p, oh0, th, so), np = 0, pj = (j + R - 1) % R, poh0 = pj * p->t_h;
      double gp[n];
      for (int i = 0; i < n; i++) /* a micro-op a cycle, SEP_ROW cycles more a row (the outer loop level) */
        if (so[i].kind < 2) gp[np++] = (double)tc * (so[i].r1 - so[i].r0) * (so[i].c1 - so[i].c0 + SEP_ROW);
      int m = sep_ops(p, poh0, poh0 + p->t_h <= p->oh ? p->t_h : p->oh - poh0, so), nq = 0;
      int64_t ap[m > 0 ? m : 1];
      for (int i = 0; i < m; i++)
        if (so[i].kind == 2) ap[nq++] = (int64_t)tc * (so[i].r1 - so[i].r0) * (so[i].c1 - so[i].c0);
      G = A = 0;
      for (int i = 0; i < np; i++) G += gp[i];
      for (int i = 0; i < nq; i++) A += (double)ap[i];
      double lanes = pool_lanes(gp, np, ap, nq); /* (the instructions' issue: in SEP_ROW) */
      ng = -3, na[j] = 3; /* the instruction term below: the tile's 3 loads and store only */
      c = L > lanes ? L : lanes;
      if (j == 0) fill = (G + A + S + L) / 4; /* the first tile: nothing beside its GEMMs */
    } else if (p->vt > 1) { /* the GEMM pieces in order (pool_tile): the rest's reset, g rows reset and copied, the rest's copy */
      int g = pool_rows_piece(op, tc, ih, na[j]), rest = ih % g, np = 0, pj = (j + R - 1) % R;
      double gp[2 * ih * tc + 2];
      for (int ci = 0; ci < tc; ci++) {
        if (rest) gp[np++] = (double)rest * iw;
        for (int r = 0; r + g <= ih; r += g) gp[np++] = (double)g * iw, gp[np++] = (double)g * iw;
        if (rest) gp[np++] = (double)rest * iw;
      }
      double lanes = pool_lanes(gp, np, a + (size_t)pj * nt, na[pj]); /* beside the tile before's ALU */
      ng = np;
      c = L > lanes ? L : lanes;
      if (j == 0) fill = (G + A + S + L) / 2;
    } else {
      c = G + (A + S > L ? A + S : L);
    }
    t += c + 14.0 * (na[j] + ng + 3);
  }
  free(a), free(na);
  return t * p->nb * (p->cb / p->t_oc) + fill;
}

/* The global average pool's estimated cycles (vta_plan.est; tsim, default DRAM model: a bus beat a
 * cycle, ~40 cycles of latency a DMA): per tile the load L of its channel blocks' images (one
 * transfer) and of the identity block, the GEMM G (gap_sum: the reset, a micro-op per pixel and
 * block), the requantization A (a pass per output vector, ~4 cycles of issue), the store S; the
 * load of tile t waits for the GEMM of tile t - vt (its INP part), each GEMM for its load and the
 * one before, each store for its requantization. 1x512x7x7 (ResNet-18) on tsim: 1 thread, 32
 * blocks a tile 5,146 cycles (estimate 5,032); 2 threads, 16 / 8 / 4 blocks 4,385 / 4,136 / 4,368
 * (4,274 / 4,072 / 4,304). */
static double gap_est(const vta_plan *p) {
  const vta_op *op = &p->op;
  double bpe = (double)p->cfg.batch * p->cfg.block_in, bus = p->cfg.axi_data_bits / 8.0, hw = (double)op->h * op->w;
  double tc = p->t_oc, np = (op->mult != 1) + (op->shift > 15) + 1;
  double L = tc * hw * bpe / bus + 40 + bpe * p->cfg.block_out / bus + 40, G = tc * hw + tc + 8, A = np * (tc + 4);
  double S = tc * bpe / bus + 40, ld = 0, cp = 0, st = 0, gend[2] = {0, 0};
  for (int64_t t = 0; t < p->tiles; t++) {
    int q = (int)(t % p->vt);
    ld = (t >= p->vt && gend[q] > ld ? gend[q] : ld) + L;
    cp = (ld > cp ? ld : cp) + G;
    gend[q] = cp;
    cp += A;
    st = (cp > st ? cp : st) + S;
  }
  return st;
}

/* The plan's tile fields for th output rows of tc channel blocks (window width in_w). */
static void pool_fill(vta_plan *p, const vta_op *op, int th, int tc, int in_w) {
  p->t_n = 1, p->t_oc = p->t_ic = tc, p->t_h = th, p->t_w = p->ow;
  p->in_h = (th - 1) * op->stride_h + op->kh, p->in_w = in_w;
  p->inp_tile = tc * p->in_h * in_w, p->wgt_tile = 1, p->acc_tile = p->inp_tile + tc * th * p->ow;
  if (op->kind == VTA_GAP) p->acc_tile = tc * th * p->ow; /* no window in the ACC: the sum's GEMM (gap_sum) */
  if (p->pool_sep) p->acc_tile = (int)(tc * sep_acc(op, th, in_w, p->ow));
  p->tiles = (int64_t)p->nb * (p->cb / tc) * ((p->oh + th - 1) / th);
}

/* The pools' tiling with vt virtual threads (INP, WGT and ACC in vt parts): t_oc channel blocks x
 * t_h output rows x the full width, the most rows, then the most channel blocks, whose INP rows
 * fit an INP part and window + output tile an ACC part. */
static int pool_tiling(const ovta_config *cfg, const vta_op *op, const vta_knobs *kp, int vt, vta_plan *p, ovta_error *err) {
  const char *nm = op->name;
  vta_knobs k = *kp;
  p->vt = vt;
  p->inp_part = cfg->inp_depth / vt, p->wgt_part = cfg->wgt_depth / vt, p->acc_part = cfg->acc_depth / vt;
  /* tile: t_oc channel blocks x t_h output rows x the full width; one thread: the most rows, then
   * channels; two threads: of each row count's most channels, the one estimated fastest */
  int in_w = (p->ow - 1) * op->stride_w + op->kw;
  int best_h = 0, best_c = 0;
  bool best_sep = false;
  double best = -1;
  for (int th = p->oh; th >= 1 && (!best_h || (vt > 1 && op->kind == VTA_MAXPOOL)); th--) {
    if (k.t_h && th != k.t_h) continue;
    int ih = (th - 1) * op->stride_h + op->kh;
    for (int tc = p->cb; tc >= 1; tc--) {
      if (p->cb % tc || tc > 64 || (k.t_oc && tc != k.t_oc)) continue;
      int64_t x = (int64_t)tc * ih * in_w, y = (int64_t)tc * th * p->ow;
      bool sep = vt > 1 && op->kind == VTA_MAXPOOL && k.epi != 1 && sep_home(op, p->oh, p->ow, th) >= 0;
      if (sep && tc > 1 && !k.t_oc) continue; /* sep: one channel block a tile (1x128x28x28, 5 rows: 2 blocks
                                                 21,038 tsim cycles, 1 block 7 rows 17,640) */
      if (sep) y = tc * sep_acc(op, th, in_w, p->ow) - x; /* the planes instead of window + output */
      if (op->kind == VTA_GAP) y -= x; /* the output only (gap_sum) */
      if (x <= p->inp_part && x + y <= p->acc_part && (int64_t)th * p->ow <= 65535 && ih <= 16383 && in_w <= 16383) {
        p->pool_sep = sep;
        pool_fill(p, op, th, tc, in_w);
        double e = op->kind == VTA_MAXPOOL ? pool_est(p) : gap_est(p);
        if (best < 0 || e < best) best_h = th, best_c = tc, best = e, best_sep = sep;
        if (op->kind != VTA_GAP) break; /* the max pool: the most channel blocks; the GAP: the fastest */
      }
    }
  }
  if (!best_h)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: no tiling fits the SRAMs of config %s (a row of windows needs "
                     "more than inp %d / acc %d elements)", nm, cfg->name, p->inp_part, p->acc_part);
  p->pool_sep = best_sep;
  pool_fill(p, op, best_h, best_c, in_w);
  p->store_late = vt > 1 && op->kind != VTA_GAP; /* the window copy (GEMM) writes win_buf, the store reads acc_buf: pool_tile */
  p->store_gemms = p->pool_sep ? 2 : 0; /* sep: the output plane's reset and copy come last (sep_ops) */
  snprintf(p->why, sizeof p->why, "%s%s: %d channel blocks x %d rows per tile (%s)", op->kind == VTA_GAP ? "gap" : "maxpool",
           p->pool_sep ? " separable" : "", best_c, best_h, p->oh % best_h ? "remainder tile" : "rows divide");
  { /* the estimate picks the threads */
    size_t n = strlen(p->why);
    p->est = best;
    snprintf(p->why + n, sizeof p->why - n, ", estimated cost %.0f", p->est);
  }
  return OVTA_OK;
}

/* The add's weight shift: the difference d of its input shifts when 1 <= d <= 6 (2^d fits an int8
 * weight), else 0. The input with the larger shift is then copied into the ACC through the
 * identity times 2^d (the second block of its identity buffer) instead of a SHR -d after it. */
int vta_add_wshift(const vta_op *op) {
  int d = op->shift_a > op->shift_b ? op->shift_a - op->shift_b : op->shift_b - op->shift_a;
  return d >= 1 && d <= 6 ? d : 0;
}

void vta_pack_identity(const vta_plan *p, int8_t *blk) {
  int BI = p->cfg.block_in, BO = p->cfg.block_out;
  for (int o = 0; o < BO; o++)
    for (int i = 0; i < BI; i++) blk[o * BI + i] = o == i;
  if (p->op.kind != VTA_ADD) return;
  int8_t one = (int8_t)(1 << vta_add_wshift(&p->op)); /* the add's second block: 2^d on the diagonal */
  for (int o = 0; o < BO; o++)
    for (int i = 0; i < BI; i++) blk[(BO + o) * BI + i] = o == i ? one : 0;
}


void vta_reference_add(const vta_op *op, const int8_t *a, const int8_t *b, int8_t *y) {
  size_t n = (size_t)op->n * op->c * op->h * op->w;
  for (size_t i = 0; i < n; i++) {
    uint32_t s = ((uint32_t)(int32_t)a[i] << op->shift_a) + ((uint32_t)(int32_t)b[i] << op->shift_b);
    y[i] = (int8_t)ovta_requant((int32_t)s, op->shift, op->clip_min, op->clip_max);
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

/* y[n, c] = clamp(ovta_requant(sum over the image of x[n, c] * mult, shift), clip_min, clip_max)
 * (ovta.QGlobalAvgPool, graph.h; the product wraps, which the quantize rule never reaches). */
void vta_reference_gap(const vta_op *op, const int8_t *x, int8_t *y) {
  size_t hw = (size_t)op->h * op->w;
  for (size_t nc = 0; nc < (size_t)op->n * op->c; nc++) {
    int32_t sum = 0;
    for (size_t i = 0; i < hw; i++) sum += x[nc * hw + i];
    y[nc] = (int8_t)ovta_requant((int32_t)((uint32_t)sum * (uint32_t)op->mult), op->shift, op->clip_min, op->clip_max);
  }
}

/* y[n, c, r, q] = x[n, c, r / up_h, q / up_w] (nearest, the floor rule). */
void vta_reference_upsample(const vta_op *op, const int8_t *x, int8_t *y) {
  int OH = op->h * op->up_h, OW = op->w * op->up_w;
  for (size_t nc = 0; nc < (size_t)op->n * op->c; nc++)
    for (int r = 0; r < OH; r++)
      for (int q = 0; q < OW; q++)
        y[(nc * OH + r) * OW + q] = x[(nc * op->h + r / op->up_h) * op->w + q / op->up_w];
}

/* The global average pool's requantization of the window sum v as the ALU runs it: `v * mult`
 * (none for 1), the rounding and shift - shift 1..15: `(v + 2^(shift-1)) >> shift`; 16..30:
 * `((v >> (shift-15)) + 2^14) >> 15`, equal since floor((a + 2^14 * 2^t) / 2^t) = floor(a / 2^t) +
 * 2^14 and floor(floor(a / 2^t) / 2^15) = floor(a / 2^(t+15)) (the rounding constant stays a 16-bit
 * ADD immediate) - and the clip. */
static lir_expr *gap_requant(lir_func *f, const vta_op *op, lir_expr *v) {
  int s = op->shift;
  if (op->mult != 1) v = lir_bin(f, LIR_MUL, v, lir_int(f, LIR_I32, op->mult));
  if (s > 15) v = lir_bin(f, LIR_SHR, v, lir_int(f, LIR_I32, s - 15)), s = 15;
  if (s > 0) v = lir_bin(f, LIR_SHR, lir_bin(f, LIR_ADD, v, lir_int(f, LIR_I32, 1 << (s - 1))), lir_int(f, LIR_I32, s));
  v = lir_bin(f, LIR_MAX, v, lir_int(f, LIR_I32, op->clip_min));
  return lir_bin(f, LIR_MIN, v, lir_int(f, LIR_I32, op->clip_max));
}

/* ---------------------------------------------------------------- compute stage */

/* The compute stage: the scalar nest over the packed DRAM tensors. */
static lir_stmt *alu_compute(const vta_plan *p, lir_func *f, lir_buf *x, lir_buf *w, lir_buf *y) {
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in;
  lir_nest o;
  if (op->kind == VTA_ADD) { /* elementwise: over the packed tensors viewed as [elements][B][BI] */
    int64_t aext[3] = {(int64_t)p->nb * p->cb * op->h * op->w, B, BI};
    lir_nest_open(f, &o, 3, aext, "o");
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
  int64_t oext[6] = {p->nb, p->cb, p->oh, p->ow, B, BI};
  lir_nest_open(f, &o, 6, oext, "o");
  if (op->kind == VTA_UPSAMPLE) { /* y[o] = x[n, c, r / up_h, q / up_w, b, i] */
    lir_expr *xi[6] = {o.idx[0], o.idx[1], lir_bin(f, LIR_DIV, o.idx[2], lir_i64(f, op->up_h)),
                       lir_bin(f, LIR_DIV, o.idx[3], lir_i64(f, op->up_w)), o.idx[4], o.idx[5]};
    return lir_nest_close(f, &o, lir_store(f, y, o.idx, lir_load(f, x, xi)), LIR_FOR_SERIAL);
  }
  lir_buf *m = lir_buf_new(f, "m", LIR_I32, 0, NULL, LIR_SCOPE_LOCAL);
  lir_nest r;
  int64_t rext[2] = {op->kh, op->kw};
  lir_nest_open(f, &r, 2, rext, "k");
  lir_expr *ih = lir_add(f, lir_addi(f, lir_muli(f, o.idx[2], op->stride_h), -op->pad_t), r.idx[0]);
  lir_expr *iw = lir_add(f, lir_addi(f, lir_muli(f, o.idx[3], op->stride_w), -op->pad_l), r.idx[1]);
  lir_expr *z = lir_i64(f, 0);
  lir_expr *in = lir_bin(f, LIR_AND, lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, ih, z), lir_bin(f, LIR_LT, ih, lir_i64(f, op->h))),
                         lir_bin(f, LIR_AND, lir_bin(f, LIR_GE, iw, z), lir_bin(f, LIR_LT, iw, lir_i64(f, op->w))));
  lir_expr *xi[6] = {o.idx[0], o.idx[1], lir_max(f, lir_min(f, ih, lir_i64(f, op->h - 1)), lir_i64(f, 0)),
                     lir_max(f, lir_min(f, iw, lir_i64(f, op->w - 1)), lir_i64(f, 0)), o.idx[4], o.idx[5]};
  bool gap = op->kind == VTA_GAP; /* the sum, from 0, requantized; else the max from -128 */
  int32_t m0 = gap ? 0 : -128;
  lir_expr *v = lir_select(f, in, lir_cast(f, LIR_I32, lir_load(f, x, xi)), lir_int(f, LIR_I32, m0));
  lir_stmt *upd = lir_store(f, m, NULL, lir_bin(f, gap ? LIR_ADD : LIR_MAX, lir_load(f, m, NULL), v));
  lir_expr *res = gap ? gap_requant(f, op, lir_load(f, m, NULL)) : lir_load(f, m, NULL);
  lir_stmt *three[3] = {lir_store(f, m, NULL, lir_int(f, LIR_I32, m0)), lir_nest_close(f, &r, upd, LIR_FOR_SERIAL),
                        lir_store(f, y, o.idx, lir_cast(f, LIR_I8, res))};
  return lir_nest_close(f, &o, lir_alloc_stmt(f, m, lir_seq(f, 3, three)), LIR_FOR_SERIAL);
}


/* The compute stage's parameters: add - x (a), w (b), y as [N/B*C/BI*H*W][B][BI] (the packed
 * layout viewed flat: the add is elementwise); maxpool, gap, upsample - x, y in the packed layout, w unused; all -
 * ident, the identity block [1][BO][BI] (in the bias slot), which the schedule stage copies with. */
int vta_alu_compute(const vta_plan *p, lir_func *f, ovta_error *err) {
  (void)err;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int64_t E = (int64_t)p->nb * p->cb * p->op.h * p->op.w;
  int64_t xs[6] = {p->nb, p->cb, p->op.h, p->op.w, B, BI}, ys[6] = {p->nb, p->cb, p->oh, p->ow, B, BO};
  bool add = p->op.kind == VTA_ADD;
  int64_t fs[3] = {E, B, BI}, fy[3] = {E, B, BO}, is[3] = {add ? 2 : 1, BO, BI};
  lir_buf *x = add ? lir_param(f, "x", LIR_I8, 3, fs) : lir_param(f, "x", LIR_I8, 6, xs);
  lir_buf *w = add ? lir_param(f, "w", LIR_I8, 3, fs) : lir_param(f, "w", LIR_I8, 3, is);
  lir_param(f, "ident", LIR_I8, 3, is);
  lir_buf *y = add ? lir_param(f, "y", LIR_I8, 3, fy) : lir_param(f, "y", LIR_I8, 6, ys);
  f->body = alu_compute(p, f, x, w, y);
  return OVTA_OK;
}

/* ---------------------------------------------------------------- schedule stage */

/* Emitter state of the schedule stage. */
typedef struct se {
  lir_func *f;
  const vta_plan *p;
  lir_buf *x, *w, *id, *y; /* the parameters (add: w = b; maxpool: w unused), id the identity block */
  int ncache;              /* cache_read attributes so far (their ids) */
  lir_var *pv[2];          /* the max pool with two threads: the part of the tile being emitted is */
  int64_t pk[2], pc;       /* floormod(pk[0] * pv[0] + pk[1] * pv[1] + pc, 2) (pmod), else the constant pc */
  bool pmod;
} se;

#define SF (e->f)
static lir_expr *SI(se *e, int64_t v) { return lir_i64(SF, v); }
static lir_expr *SR(se *e, lir_var *v) { return lir_ref(SF, v); }

/* The SRAM part of the tile being emitted (a fresh expression; 0 with one thread). */
static lir_expr *part(se *e) {
  if (!e->pmod) return SI(e, e->pc);
  lir_expr *v = SI(e, e->pc);
  for (int i = 0; i < 2; i++)
    if (e->pk[i]) v = lir_add(SF, lir_muli(SF, SR(e, e->pv[i]), e->pk[i]), v);
  return lir_bin(SF, LIR_FLOORMOD, v, SI(e, 2));
}

/* Loops v[0..n-1] over ext (from 0, outermost first), named; sn_close makes the outermost
 * `nunrolled` of them unrolled loops (micro-op loops for fold-uops). */
typedef struct snest {
  int n;
  lir_var *v[8];
  int64_t ext[8];
} snest;
static void sn_open(se *e, snest *s, int n, const int64_t *ext, const char *const *names) {
  s->n = n;
  for (int i = 0; i < n; i++) s->v[i] = lir_var_new(SF, names[i], LIR_I64), s->ext[i] = ext[i];
}
static lir_stmt *sn_close(se *e, snest *s, lir_stmt *body, int nunrolled) {
  for (int i = s->n - 1; i >= 0; i--)
    body = lir_for(SF, s->v[i], SI(e, 0), SI(e, s->ext[i]), i < nunrolled ? LIR_FOR_UNROLLED : LIR_FOR_SERIAL, body);
  return body;
}

/* `attr cache_read = ID { for c..: S[lead.., c.., b, i] = D[dorg + c.., b, i] }`: the copy of a
 * DRAM tensor's region into an SRAM cache; nl copy dims (their extents ext, their SRAM dims after
 * the nlead lead indices), DRAM index d of copy dim k = dorg[d] + c_k (clamped to [0, n-1] when
 * clamp[d]), the element copied whole. */
static lir_stmt *cache_copy(se *e, lir_buf *S, int nlead, lir_expr *const *lead, lir_buf *D, lir_expr *const *dorg,
                            const int *copy_of, const bool *clamp, int nl, const int64_t *ext) {
  static const char *const nm[6] = {"c0", "c1", "c2", "c3", "c4", "c5"};
  snest s;
  int64_t cext[8];
  for (int k = 0; k < nl; k++) cext[k] = ext[k];
  cext[nl] = S->shape[S->ndim - 2], cext[nl + 1] = S->shape[S->ndim - 1];
  sn_open(e, &s, nl + 2, cext, nm);
  lir_expr *si[LIR_MAX_DIMS], *di[LIR_MAX_DIMS];
  for (int i = 0; i < nlead; i++) si[i] = lead[i];
  for (int k = 0; k < nl; k++) si[nlead + k] = SR(e, s.v[k]);
  si[S->ndim - 2] = SR(e, s.v[nl]), si[S->ndim - 1] = SR(e, s.v[nl + 1]);
  for (int d = 0; d < D->ndim - 2; d++) {
    lir_expr *ix = dorg[d];
    if (copy_of[d] >= 0) ix = lir_add(SF, ix, SR(e, s.v[copy_of[d]]));
    if (clamp[d]) ix = lir_max(SF, lir_min(SF, ix, SI(e, D->shape[d] - 1)), SI(e, 0));
    di[d] = ix;
  }
  di[D->ndim - 2] = SR(e, s.v[nl]), di[D->ndim - 1] = SR(e, s.v[nl + 1]);
  lir_stmt *st = lir_store(SF, S, si, lir_load(SF, D, di));
  return lir_attr(SF, "cache_read", SI(e, ++e->ncache), sn_close(e, &s, st, 0));
}

/* The identity block(s) into WGT: wgt[0, c0, o, i] = ident[c0, o, i] (the add: two blocks). */
static lir_stmt *ident_copy(se *e, lir_buf *wgt) {
  lir_expr *lead[1] = {part(e)}, *dorg[1] = {SI(e, 0)};
  static const int copy_of[1] = {0};
  static const bool clamp[1] = {false};
  int64_t ext[1] = {e->id->shape[0]};
  return cache_copy(e, wgt, 1, lead, e->id, dorg, copy_of, clamp, 1, ext);
}

/* The element A[lead.., idx.., b, o] (lead: constants; idx k: org[k] + L_k * step[k], org and step
 * NULL for 0 and 1). */
static lir_expr *elem(se *e, lir_buf *A, int nlead, const int64_t *lead, int n, lir_var *const *L, const int64_t *org,
                      const int64_t *step, lir_var *b, lir_var *o) {
  lir_expr *ix[LIR_MAX_DIMS];
  for (int i = 0; i < nlead; i++) ix[i] = i ? SI(e, lead[i]) : part(e); /* lead[0]: the part (0 given) */
  for (int k = 0; k < n; k++) {
    lir_expr *v = step && step[k] != 1 ? lir_muli(SF, SR(e, L[k]), step[k]) : SR(e, L[k]);
    ix[nlead + k] = org && org[k] ? lir_add(SF, SI(e, org[k]), v) : v;
  }
  ix[nlead + n] = SR(e, b), ix[nlead + n + 1] = SR(e, o);
  return lir_load(SF, A, ix);
}

/* `for L.. (the first nu unrolled), b, o: A[..] = V`: an elementwise nest on an ACC region. */
static lir_stmt *acc_store(se *e, snest *s, int nu, lir_expr *dst, lir_expr *v) {
  return sn_close(e, s, lir_store(SF, dst->buf, dst->args, v), nu);
}

static lir_expr *i32c(se *e, int64_t v) { return lir_int(SF, LIR_I32, v); }

/* The add's order and fill: the input with the larger shift (hi) enters the ACC first, the other
 * (lo) second, one region for both (sa >= sb: a first; ties: a first). The shift g applied to the
 * fill on the way: hi when the difference hi - lo is a SHR between the copies, lo when it is the
 * weight 2^(hi-lo) of the first copy (vta_add_wshift). The rounding constant r = 2^(shift-1) is the
 * initial value as r >> g when g < shift (exact: (r >> g) << g = r), else it is returned as the
 * immediate of one ALU ADD before the shift (0: none). *first is 0 (a) or 1 (b), *fill the
 * initial value. The plan keeps shift <= 15. */
static int32_t add_order(const vta_op *op, int *first, int32_t *fill) {
  int32_t r = vta_requant_round(op);
  *first = op->shift_b > op->shift_a;
  int hi = *first ? op->shift_b : op->shift_a, lo = *first ? op->shift_a : op->shift_b;
  int g = vta_add_wshift(op) ? lo : hi;
  *fill = 0;
  if (!r) return 0;
  if (g < op->shift) {
    *fill = r >> g;
    return 0;
  }
  return r;
}

/* The requantization of an add's sum (rounding constant r already in it unless radd): `+ radd`, the
 * shift (>= 32: the saturated `>> 31`; < 0: a wrapping left shift), the clip. */
static lir_expr *add_requant(se *e, lir_expr *v, int32_t radd) {
  const vta_op *op = &e->p->op;
  if (radd) v = lir_bin(SF, LIR_ADD, v, i32c(e, radd));
  if (op->shift > 0) v = lir_bin(SF, LIR_SHR, v, i32c(e, op->shift >= 32 ? 31 : op->shift));
  if (op->shift < 0) v = lir_bin(SF, LIR_SHL, v, i32c(e, -op->shift));
  v = lir_bin(SF, LIR_MAX, v, i32c(e, op->clip_min));
  return lir_bin(SF, LIR_MIN, v, i32c(e, op->clip_max));
}

/* `for e, b, o[, i]: acc[0, e, b, o] = V`: one elementwise nest over the tile's ACC region (V
 * built by the caller from the nest's variables, acc element `a`). */
static lir_expr *acc_elem(se *e, lir_buf *acc, snest *n) {
  return elem(e, acc, 1, (int64_t[]){0}, 1, n->v, NULL, NULL, n->v[1], n->v[2]);
}

/* One add tile of s elements from flat element `tv * T + base` (tv: the tile loop, or NULL): a
 * and b into INP [2][s] (a first), the two identity blocks into WGT (the identity, and the
 * identity times 2^d, d = vta_add_wshift), then one ACC region [s]: the fill (0, or the rounding
 * constant: add_order), the input P with the larger shift hi copied in by a GEMM - with the
 * scaled block when 1 <= hi - lo <= 6, else the identity and `<<= hi - lo` after it - the other
 * input Q added by a GEMM with the identity, `<<= lo`, the requantizing store. The sum is
 * ((fill + P * 2^(hi-lo)) + Q) << lo, or ((fill + P) << (hi - lo) + Q) << lo: both (P << hi) +
 * (Q << lo) + r, wrapping, the ovta.QAdd rule (vta_reference_add), in 4-6 ALU/GEMM passes per
 * element instead of a region per input (two fills, the shifts, a tensor ADD). */
static lir_stmt *add_tile(se *e, lir_var *tv, int64_t T, int64_t base, int64_t s) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int64_t is[5] = {1, 2, s, B, BI}, ws[4] = {1, 2, BO, BI}, as[4] = {1, s, B, BO};
  lir_buf *inp = lir_buf_new(SF, "inp_buf", LIR_I8, 5, is, LIR_SCOPE_INP);
  lir_buf *wgt = lir_buf_new(SF, "wgt_buf", LIR_I8, 4, ws, LIR_SCOPE_WGT);
  lir_buf *acc = lir_buf_new(SF, "acc_buf", LIR_I32, 4, as, LIR_SCOPE_ACC);
  lir_block blk;
  lir_block_init(&blk, SF);
  for (int j = 0; j < 2; j++) {
    lir_expr *lead[2] = {SI(e, 0), SI(e, j)}, *dorg[1] = {tv ? lir_muli(SF, SR(e, tv), T) : SI(e, base)};
    static const int copy_of[1] = {0};
    static const bool clamp[1] = {false};
    lir_block_add(&blk, cache_copy(e, inp, 2, lead, j ? e->w : e->x, dorg, copy_of, clamp, 1, &s));
  }
  lir_block_add(&blk, ident_copy(e, wgt));
  int first;
  int32_t fill, radd = add_order(op, &first, &fill);
  int hi = first ? op->shift_b : op->shift_a, lo = first ? op->shift_a : op->shift_b, d = vta_add_wshift(op);
  static const char *const en[4] = {"e", "b", "o", "i"};
  snest n;
  sn_open(e, &n, 3, (int64_t[]){s, B, BO}, en); /* acc[e] = fill */
  lir_block_add(&blk, acc_store(e, &n, 0, acc_elem(e, acc, &n), i32c(e, fill)));
  for (int k = 0; k < 2; k++) {
    int j = k ? !first : first; /* the INP row of the input copied now */
    /* acc[e] += i32(inp[j, e]) * i32(identity) */
    sn_open(e, &n, 4, (int64_t[]){s, B, BO, BI}, en);
    lir_expr *a = acc_elem(e, acc, &n);
    lir_expr *x = elem(e, inp, 2, (int64_t[]){0, j}, 1, n.v, NULL, NULL, n.v[1], n.v[3]);
    lir_expr *wi[4] = {SI(e, 0), SI(e, !k && d), SR(e, n.v[2]), SR(e, n.v[3])}; /* the scaled block: P */
    lir_expr *prod = lir_bin(SF, LIR_MUL, lir_cast(SF, LIR_I32, x), lir_cast(SF, LIR_I32, lir_load(SF, wgt, wi)));
    lir_block_add(&blk, acc_store(e, &n, 0, a, lir_bin(SF, LIR_ADD, lir_load(SF, acc, a->args), prod)));
    int sh = k ? lo : d ? 0 : hi - lo; /* acc[e] <<= sh */
    if (!sh) continue;
    sn_open(e, &n, 3, (int64_t[]){s, B, BO}, en);
    a = acc_elem(e, acc, &n);
    lir_block_add(&blk, acc_store(e, &n, 0, a, lir_bin(SF, LIR_SHL, lir_load(SF, acc, a->args), i32c(e, sh))));
  }
  /* y = the requantized sum */
  sn_open(e, &n, 3, (int64_t[]){s, B, BO}, en);
  {
    lir_expr *a = acc_elem(e, acc, &n);
    lir_expr *off = tv ? lir_muli(SF, SR(e, tv), T) : SI(e, base);
    lir_expr *yi[3] = {lir_add(SF, off, SR(e, n.v[0])), SR(e, n.v[1]), SR(e, n.v[2])};
    lir_block_add(&blk, sn_close(e, &n, lir_store(SF, e->y, yi, lir_cast(SF, LIR_I8, add_requant(e, a, radd))), 0));
  }
  lir_stmt *body = lir_block_stmt(&blk);
  return lir_alloc_stmt(SF, inp, lir_alloc_stmt(SF, wgt, lir_alloc_stmt(SF, acc, body)));
}

/* The rows of a pool / upsampling tile into INP: inp[0, c, r, q] = x[tn, tc * t_oc + c, r0 + r,
 * q0 + q] over t_oc x nr x nq (clamp: indices clamped, which the DMA pads with zeros). */
static lir_stmt *rows_load(se *e, lir_buf *inp, lir_var *tn, lir_var *tcv, int r0, int q0, int nr, int nq, bool clamp_rq) {
  int tc = e->p->t_oc;
  lir_expr *lead[1] = {part(e)};
  lir_expr *dorg[4] = {SR(e, tn), lir_muli(SF, SR(e, tcv), tc), SI(e, r0), SI(e, q0)};
  static const int copy_of[4] = {-1, 0, 1, 2};
  const bool clamp[4] = {false, false, clamp_rq, clamp_rq};
  int64_t ext[3] = {tc, nr, nq};
  return cache_copy(e, inp, 1, lead, e->x, dorg, copy_of, clamp, 3, ext);
}

/* The store of an output tile: y[tn, tc * t_oc + c, oh0 + r, q] = i8(acc[0, c, r, q]) over t_oc x
 * th x OW. */
static lir_stmt *tile_store(se *e, lir_buf *acc, lir_var *tn, lir_var *tcv, int oh0, int th) {
  const vta_plan *p = e->p;
  int tc = p->t_oc;
  static const char *const crq[5] = {"c", "r", "q", "b", "o"};
  snest n;
  sn_open(e, &n, 5, (int64_t[]){tc, th, p->ow, p->cfg.batch, p->cfg.block_out}, crq);
  lir_expr *a = elem(e, acc, 1, (int64_t[]){0}, 3, n.v, NULL, NULL, n.v[3], n.v[4]);
  lir_expr *yi[6] = {SR(e, tn), lir_add(SF, lir_muli(SF, SR(e, tcv), tc), SR(e, n.v[0])), lir_addi(SF, SR(e, n.v[1]), oh0),
                     SR(e, n.v[2]), SR(e, n.v[3]), SR(e, n.v[4])};
  return sn_close(e, &n, lir_store(SF, e->y, yi, lir_cast(SF, LIR_I8, a)), 0);
}

/* The rectangle r = {r0, r1, c0, c1} of output rows [r0, r1) and columns [c0, c1) of a pool tile
 * (output rows [oh0, oh0 + th), OW columns) whose window tap (ky, kx) lies in the image; false when
 * it is empty. */
static bool tap_rect(const vta_op *op, int oh0, int th, int OW, int ky, int kx, int *r) {
  int r0 = 0, r1 = th, c0 = 0, c1 = OW, s_h = op->stride_h, s_w = op->stride_w;
  while (r0 < th && (oh0 + r0) * s_h + ky - op->pad_t < 0) r0++;
  while (r1 > r0 && (oh0 + r1 - 1) * s_h + ky - op->pad_t >= op->h) r1--;
  while (c0 < OW && c0 * s_w + kx - op->pad_l < 0) c0++;
  while (c1 > c0 && (c1 - 1) * s_w + kx - op->pad_l >= op->w) c1--;
  r[0] = r0, r[1] = r1, r[2] = c0, r[3] = c1;
  return r0 < r1 && c0 < c1;
}

/* The max pool's first tap: a window tap (ky * kw + kx; the centre tried first) inside the image for
 * every output of the tile, so acc starts as that tap's element (an ALU MOV) instead of -128 and a
 * MAX: the same maximum (the reference's -128 start is below or equal to every int8). -1: none
 * (pads whose sum reaches the window), the -128 fill then. */
static int full_tap(const vta_op *op, int oh0, int th, int OW) {
  int n = op->kh * op->kw, c = (op->kh / 2) * op->kw + op->kw / 2, r[4];
  for (int i = 0; i < n; i++) {
    int t = (c + i) % n;
    if (tap_rect(op, oh0, th, OW, t / op->kw, t % op->kw, r) && r[0] == 0 && r[1] == th && r[2] == 0 && r[3] == OW) return t;
  }
  return -1;
}

/* The window rows [r0, r0 + nr) of channel blocks [c0, c0 + nc) into the ACC: `win = 0` (a GEMM
 * reset, tensorize; what bit 0) then `win += i32(inp) * i32(identity)` (the identity GEMM; bit 1). */
static void win_copy(se *e, lir_block *blk, lir_buf *inp, lir_buf *wgt, lir_buf *win, int c0, int nc, int r0, int nr,
                     int what) {
  const vta_plan *p = e->p;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out, iw = p->in_w;
  static const char *const crq[6] = {"c", "r", "q", "b", "o", "i"};
  int64_t org[3] = {c0, r0, 0};
  snest n;
  if (what & 1) { /* win = 0 */
    sn_open(e, &n, 5, (int64_t[]){nc, nr, iw, B, BO}, crq);
    lir_block_add(blk, acc_store(e, &n, 0, elem(e, win, 1, (int64_t[]){0}, 3, n.v, org, NULL, n.v[3], n.v[4]), i32c(e, 0)));
  }
  if (!(what & 2)) return;
  sn_open(e, &n, 6, (int64_t[]){nc, nr, iw, B, BO, BI}, crq); /* win += i32(inp) * i32(identity) */
  lir_expr *a = elem(e, win, 1, (int64_t[]){0}, 3, n.v, org, NULL, n.v[3], n.v[4]);
  lir_expr *x = elem(e, inp, 1, (int64_t[]){0}, 3, n.v, org, NULL, n.v[3], n.v[5]);
  lir_expr *wi[4] = {part(e), SI(e, 0), SR(e, n.v[4]), SR(e, n.v[5])};
  lir_expr *prod = lir_bin(SF, LIR_MUL, lir_cast(SF, LIR_I32, x), lir_cast(SF, LIR_I32, lir_load(SF, wgt, wi)));
  lir_block_add(blk, acc_store(e, &n, 0, a, lir_bin(SF, LIR_ADD, lir_load(SF, win, a->args), prod)));
}

/* The global average pool's sum as one GEMM (rule: pool_tile): `acc[c, 0, 0] = 0` (a GEMM reset),
 * then `for r, q, c, b, o, i: acc[c, 0, 0, b, o] += i32(inp[c, r, q, b, i]) * i32(id[o, i])` -
 * fold-uops merges r and q (the window's pixels) into the outer hardware level (its ACC factor 0: every
 * pixel adds into the same output) and makes c the inner one, so consecutive micro-ops add into
 * different outputs. The int32 sum of at most 65535 int8 pixels cannot wrap. */
static void gap_sum(se *e, lir_block *blk, lir_buf *inp, lir_buf *wgt, lir_buf *acc, int tc, int ih, int iw) {
  const vta_plan *p = e->p;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  static const char *const crq[6] = {"c", "r", "q", "b", "o", "i"}, *rqc[6] = {"r", "q", "c", "b", "o", "i"};
  snest n;
  sn_open(e, &n, 5, (int64_t[]){tc, 1, 1, B, BO}, crq); /* acc = 0 */
  lir_block_add(blk, acc_store(e, &n, 0, elem(e, acc, 1, (int64_t[]){0}, 3, n.v, NULL, NULL, n.v[3], n.v[4]), i32c(e, 0)));
  sn_open(e, &n, 6, (int64_t[]){ih, iw, tc, B, BO, BI}, rqc);
  lir_expr *ai[6] = {part(e), SR(e, n.v[2]), SI(e, 0), SI(e, 0), SR(e, n.v[3]), SR(e, n.v[4])};
  lir_expr *xi[6] = {part(e), SR(e, n.v[2]), SR(e, n.v[0]), SR(e, n.v[1]), SR(e, n.v[3]), SR(e, n.v[5])};
  lir_expr *wi[4] = {part(e), SI(e, 0), SR(e, n.v[4]), SR(e, n.v[5])};
  lir_expr *a = lir_load(SF, acc, ai);
  lir_expr *prod = lir_bin(SF, LIR_MUL, lir_cast(SF, LIR_I32, lir_load(SF, inp, xi)), lir_cast(SF, LIR_I32, lir_load(SF, wgt, wi)));
  lir_block_add(blk, acc_store(e, &n, 0, a, lir_bin(SF, LIR_ADD, lir_load(SF, acc, a->args), prod)));
}

/* Two window taps of a max-pool tile in one ALU instruction (two threads): `for c, u (unrolled: the
 * micro-ops), rows, columns: acc = max(acc, win[tap (ky, kx) + u * (dy, dx)])` over their common
 * rectangle r (the micro-ops of one output element follow each other: ISA.md, each sees the one
 * before). Fewer, longer ALU instructions pair with the other thread's GEMM pieces. */
static lir_stmt *tap_pair(se *e, lir_buf *acc, lir_buf *win, const int *r, int ky, int kx, int dy, int dx) {
  const vta_plan *p = e->p;
  int s_h = p->op.stride_h, s_w = p->op.stride_w;
  static const char *const nm[6] = {"c", "u", "r", "q", "b", "o"};
  snest n;
  sn_open(e, &n, 6, (int64_t[]){p->t_oc, 2, r[1] - r[0], r[3] - r[2], p->cfg.batch, p->cfg.block_out}, nm);
  lir_expr *ai[6] = {part(e), SR(e, n.v[0]), lir_addi(SF, SR(e, n.v[2]), r[0]), lir_addi(SF, SR(e, n.v[3]), r[2]),
                     SR(e, n.v[4]), SR(e, n.v[5])};
  lir_expr *wr = lir_add(SF, lir_muli(SF, SR(e, n.v[2]), s_h), lir_muli(SF, SR(e, n.v[1]), dy));
  lir_expr *wc = lir_add(SF, lir_muli(SF, SR(e, n.v[3]), s_w), lir_muli(SF, SR(e, n.v[1]), dx));
  lir_expr *xi[6] = {part(e), SR(e, n.v[0]), lir_addi(SF, wr, (int64_t)r[0] * s_h + ky), lir_addi(SF, wc, (int64_t)r[2] * s_w + kx),
                     SR(e, n.v[4]), SR(e, n.v[5])};
  lir_expr *a = lir_load(SF, acc, ai);
  lir_expr *v = lir_bin(SF, LIR_MAX, lir_load(SF, acc, a->args), lir_load(SF, win, xi));
  return sn_close(e, &n, lir_store(SF, acc, a->args, v), 2);
}

/* The rows g of one piece of a two-thread pool tile's window copy (a GEMM reset and an identity
 * GEMM per piece of g rows of one channel block): the most rows that still give two pieces more
 * than the tile's na ALU instructions. The runtime places each ALU instruction of the other
 * thread's tile beside one GEMM of this one (jit-runtime/README.md "Overlap"), so they all find one
 * and that tile's last ALU ends two pieces before this tile's copy does (tsim, 1x64x56x56: g 4 44,235
 * cycles, 5 48,127, 2 52,690; ResNet-18's 112x112: g 2 the fastest of 1..3). */
static int pool_rows_piece(const vta_op *op, int tc, int ih, int na) {
  (void)op;
  int g = ih;
  while (g > 1 && 2 * tc * ((ih + g - 1) / g) < na + 2) g--;
  return g;
}

/* The ALU passes of a max-pool tile (the first tap's MOV or the -128 fill, a MAX per other tap in
 * the image). */
static int pool_nalu(const vta_op *op, int oh0, int th, int OW) {
  int grp[op->kh * op->kw][2];
  return (full_tap(op, oh0, th, OW) < 0) + tap_groups(op, oh0, th, OW, true, grp);
}

/* The ALU instructions of a pool tile's window taps in order: grp[i] = {tap, second tap or -1}; the
 * first tap (full_tap: a MOV) first, then every other tap whose rectangle in the image is not
 * empty, in order; with pair, a later tap over the same rectangle joins it (tap_pair). Returns their
 * count. */
static int tap_groups(const vta_op *op, int oh0, int th, int OW, bool pair, int (*grp)[2]) {
  int ntap = op->kh * op->kw, first = op->kind == VTA_GAP ? -1 : full_tap(op, oh0, th, OW), n = 0, r[4], r2[4];
  bool done[ntap];
  memset(done, 0, sizeof done);
  for (int t = 0; t < ntap; t++) {
    int tap = first < 0 ? t : t == 0 ? first : t <= first ? t - 1 : t;
    if (done[tap] || !tap_rect(op, oh0, th, OW, tap / op->kw, tap % op->kw, r)) continue;
    done[tap] = true;
    grp[n][0] = tap, grp[n][1] = -1;
    for (int u = t + 1; u < ntap && pair && tap != first && grp[n][1] < 0; u++) {
      int t2 = first < 0 ? u : u <= first ? u - 1 : u;
      if (!done[t2] && tap_rect(op, oh0, th, OW, t2 / op->kw, t2 % op->kw, r2) && !memcmp(r, r2, sizeof r))
        grp[n][1] = t2, done[t2] = true;
    }
    n++;
  }
  return n;
}

/* One max-pool tile: output rows [oh0, oh0 + th) of the t_oc channel blocks from block tc * t_oc
 * of image block tn (tn, tc: the tile loops). The input rows and columns with their halo into INP
 * (clamped indices: the DMA pads them with zeros), the identity block into WGT, the window rows
 * copied into ACC (win_buf) by a GEMM with the identity (initial value 0); the output tile
 * (acc_buf) starts as the first tap's window element (full_tap; else at -128), then per other
 * window position (ky, kx) one max with the window element over the output rectangle whose window
 * element lies in the image (the channel blocks unrolled:
 * micro-ops); then the store. A global average pool's tile (one output pixel, the window the
 * whole image, no pads): its channel blocks' images into INP in one transfer (unclamped indices),
 * no window in the ACC: acc_buf zeroed and every pixel accumulated into it by one GEMM with the
 * identity (gap_sum), then the requantization in place (gap_requant: MUL, ADD, SHR, CLP), then the
 * store. */
static lir_stmt *pool_tile(se *e, lir_var *tn, lir_var *tcv, int oh0, int th) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int tc = p->t_oc, OW = p->ow, s_h = op->stride_h, s_w = op->stride_w;
  int ih = (th - 1) * s_h + op->kh, iw = p->in_w, ih0 = oh0 * s_h - op->pad_t;
  /* two threads: a remainder tile's window takes the full tile's rows, so its output region starts
   * where every tile of the part has it (the next tile's window copy does not wait for this one's
   * store: store_late) */
  int bh = p->vt > 1 ? p->in_h : ih;
  int64_t is[6] = {p->vt, tc, ih, iw, B, BI}, ws[4] = {p->vt, 1, BO, BI}, xs[6] = {p->vt, tc, bh, iw, B, BO},
          ys[6] = {p->vt, tc, th, OW, B, BO};
  lir_buf *inp = lir_buf_new(SF, "inp_buf", LIR_I8, 6, is, LIR_SCOPE_INP);
  lir_buf *wgt = lir_buf_new(SF, "wgt_buf", LIR_I8, 4, ws, LIR_SCOPE_WGT);
  lir_buf *acc = lir_buf_new(SF, "acc_buf", LIR_I32, 6, ys, LIR_SCOPE_ACC);
  lir_block blk;
  lir_block_init(&blk, SF);
  bool gap = op->kind == VTA_GAP; /* no pads: its channel blocks' images in one transfer (unclamped indices) */
  lir_block_add(&blk, rows_load(e, inp, tn, tcv, ih0, -op->pad_l, ih, iw, !gap));
  if (p->vt == 1 || oh0 < 2 * p->t_h) /* two threads: the first tile of each part loads it, the rest reuse it */
    lir_block_add(&blk, ident_copy(e, wgt));
  static const char *const crq[6] = {"c", "r", "q", "b", "o", "i"};
  snest n;
  if (gap) { /* the sum by one GEMM into acc_buf, then its requantization in place, the store */
    gap_sum(e, &blk, inp, wgt, acc, tc, ih, iw);
    sn_open(e, &n, 5, (int64_t[]){tc, th, OW, B, BO}, crq);
    lir_expr *a = elem(e, acc, 1, (int64_t[]){0}, 3, n.v, NULL, NULL, n.v[3], n.v[4]);
    lir_block_add(&blk, acc_store(e, &n, 0, a, gap_requant(SF, op, lir_load(SF, acc, a->args))));
    lir_block_add(&blk, tile_store(e, acc, tn, tcv, oh0, th)); /* y = i8(acc) */
    return lir_alloc_stmt(SF, inp, lir_alloc_stmt(SF, wgt, lir_alloc_stmt(SF, acc, lir_block_stmt(&blk))));
  }
  lir_buf *win = lir_buf_new(SF, "win_buf", LIR_I32, 6, xs, LIR_SCOPE_ACC);
  if (p->vt == 1) {
    win_copy(e, &blk, inp, wgt, win, 0, tc, 0, ih, 3);
  } else {
    /* in pieces of g rows of one channel block (pool_rows_piece); the last rows' reset first (beside
     * the short MOV), their copy last */
    int g = pool_rows_piece(op, tc, ih, pool_nalu(op, oh0, th, OW)), rest;
    rest = ih % g;
    for (int c = 0; c < tc; c++) {
      if (rest) win_copy(e, &blk, inp, wgt, win, c, 1, ih - rest, rest, 1);
      for (int r = 0; r + g <= ih; r += g) win_copy(e, &blk, inp, wgt, win, c, 1, r, g, 3);
      if (rest) win_copy(e, &blk, inp, wgt, win, c, 1, ih - rest, rest, 2);
    }
  }
  int first = full_tap(op, oh0, th, OW); /* the tap moved into acc first */
  if (first < 0) {
    sn_open(e, &n, 5, (int64_t[]){tc, th, OW, B, BO}, crq); /* acc = -128 */
    lir_expr *a = elem(e, acc, 1, (int64_t[]){0}, 3, n.v, NULL, NULL, n.v[3], n.v[4]);
    lir_block_add(&blk, acc_store(e, &n, 0, a, i32c(e, -128)));
  }
  int ntap = op->kh * op->kw, grp[ntap][2], ng = tap_groups(op, oh0, th, OW, p->vt > 1, grp);
  for (int i = 0; i < ng; i++) { /* acc = max(acc, window element) over the rectangle in the image */
    int tap = grp[i][0], ky = tap / op->kw, kx = tap % op->kw, two = grp[i][1], r[4];
    tap_rect(op, oh0, th, OW, ky, kx, r);
    if (two >= 0) {
      lir_block_add(&blk, tap_pair(e, acc, win, r, ky, kx, two / op->kw - ky, two % op->kw - kx));
      continue;
    }
    sn_open(e, &n, 5, (int64_t[]){tc, r[1] - r[0], r[3] - r[2], B, BO}, crq);
    lir_expr *a = elem(e, acc, 1, (int64_t[]){0}, 3, n.v, (int64_t[]){0, r[0], r[2]}, NULL, n.v[3], n.v[4]);
    lir_expr *x = elem(e, win, 1, (int64_t[]){0}, 3, n.v, (int64_t[]){0, (int64_t)r[0] * s_h + ky, (int64_t)r[2] * s_w + kx},
                       (int64_t[]){1, s_h, s_w}, n.v[3], n.v[4]);
    lir_expr *v = tap == first ? x : lir_bin(SF, LIR_MAX, lir_load(SF, acc, a->args), x); /* first: MOV */
    lir_block_add(&blk, acc_store(e, &n, 1, a, v));
  }
  lir_block_add(&blk, tile_store(e, acc, tn, tcv, oh0, th)); /* y = i8(acc) */
  lir_stmt *body = lir_block_stmt(&blk);
  return lir_alloc_stmt(SF, inp, lir_alloc_stmt(SF, wgt, lir_alloc_stmt(SF, win, lir_alloc_stmt(SF, acc, body))));
}

/* ---------------------------------------------------------------- the max pool's separable form */

/* The separable form's home tap (ky0 * kw + kx0) of a max pool with th output rows a tile: the first
 * tap (full_tap) of every row tile, the same for all, and alone in its row phase (ky mod stride_h)
 * and in its column phase (kx mod stride_w), so its planes are read by no other tap and hold
 * exactly the outputs (th x OW); -1 when there is none (stride 1 with a kernel over 1, pads whose sum
 * reaches the window, a 1x1 window): the tap form then. */
static int sep_home(const vta_op *op, int oh, int ow, int th) {
  int t0 = -1;
  if (op->kh * op->kw < 2) return -1; /* one tap: no MAX (the tap form's MOV) */
  for (int oh0 = 0; oh0 < oh; oh0 += th) {
    int t = full_tap(op, oh0, oh0 + th <= oh ? th : oh - oh0, ow);
    if (t < 0 || (oh0 && t != t0)) return -1;
    t0 = t;
  }
  int ky0 = t0 / op->kw, kx0 = t0 % op->kw;
  for (int ky = 0; ky < op->kh; ky++)
    if (ky != ky0 && ky % op->stride_h == ky0 % op->stride_h) return -1;
  for (int kx = 0; kx < op->kw; kx++)
    if (kx != kx0 && kx % op->stride_w == kx0 % op->stride_w) return -1;
  return t0;
}

/* Rows and columns of plane (py, px) of a full tile (th output rows; in_w window columns). */
static int sep_rows(const vta_op *op, int th, int py) {
  int ih = (th - 1) * op->stride_h + op->kh;
  return (ih - py + op->stride_h - 1) / op->stride_h;
}
static int sep_cols(const vta_op *op, int in_w, int px) { return (in_w - px + op->stride_w - 1) / op->stride_w; }

/* ACC elements of one channel block of a separable tile: its planes (the phases some tap reads:
 * min(kernel, stride) each way); the home tap's plane is the output tile, th x OW. */
static int64_t sep_acc(const vta_op *op, int th, int in_w, int ow) {
  (void)ow;
  int64_t n = 0;
  for (int py = 0; py < op->kh && py < op->stride_h; py++)
    for (int px = 0; px < op->kw && px < op->stride_w; px++) n += (int64_t)sep_rows(op, th, py) * sep_cols(op, in_w, px);
  return n;
}

/* The range [*a, *b) of plane indices i (window index w = i * s + ph, at image index o + w) whose
 * element lies in the window (w < n) and in the image [0, size). */
static void sep_range(int n, int s, int ph, int o, int size, int *a, int *b) {
  int lo = o < 0 ? -o : 0, hi = size - o < n ? size - o : n; /* window indices in the image */
  *a = lo <= ph ? 0 : (lo - ph + s - 1) / s;
  *b = hi <= ph ? 0 : (hi - 1 - ph) / s + 1;
  if (*b < *a) *b = *a;
}

/* The steps of a separable max-pool tile (output rows [oh0, oh0 + th)), in order: for every plane
 * but the home tap's (hy, hx), then for it (the output: store->compute is popped before it,
 * store_gemms), a GEMM reset and an identity copy of its window elements in the image; then the
 * row maxima: per row phase py (the home one last) and column tap kx != kx0, plane (py, hx) = max
 * with plane (py, kx mod sw) shifted by kx / sw columns over its rows in the image and the columns
 * whose tap lies in the image; then the column maxima on the output: per row tap ky != ky0, max with
 * plane (ky mod sh, hx) shifted by ky / sh rows over the output rows whose tap lies in the image.
 * The home planes' element (i, j) is output (i, j)'s (kx0 < sw, ky0 < sh: sep_home), so the output
 * ends as the maximum over the window's taps in the image. Returns the count. */
static int sep_ops(const vta_plan *p, int oh0, int th, sep_op *o) {
  const vta_op *op = &p->op;
  int sh = op->stride_h, sw = op->stride_w, home = sep_home(op, p->oh, p->ow, p->t_h), n = 0;
  int ky0 = home / op->kw, kx0 = home % op->kw, hy = ky0 % sh, hx = kx0 % sw;
  int nyp = op->kh < sh ? op->kh : sh, nxp = op->kw < sw ? op->kw : sw;
  int ih = (th - 1) * sh + op->kh, r_org = oh0 * sh - op->pad_t, r[4], skip = sep_skip(p, oh0);
  for (int k = 0; k < nyp * nxp + 1; k++) { /* the planes, the home one last */
    if (k == hy * nxp + hx) continue;
    int py = k < nyp * nxp ? k / nxp : hy, px = k < nyp * nxp ? k % nxp : hx, a, b, c, d;
    sep_range(ih, sh, py, r_org, op->h, &a, &b);
    sep_range(p->in_w, sw, px, -op->pad_l, op->w, &c, &d);
    if (a * sh + py < skip) a = (skip - py + sh - 1) / sh; /* the ring's rows: the tile before has them */
    if (a >= b || c == d) continue;
    for (int z = 0; z < 2; z++) o[n++] = (sep_op){z, py, px, 0, 0, a, b, c, d, 0, 0, false};
  }
  for (int ky = 0; ky < op->kh && skip; ky++) /* the ring: rows of the tile before, the first ALU work */
    if (ky != ky0 && tap_rect(op, oh0, th, p->ow, ky, kx0, r)) {
      int e = (skip - ky + sh - 1) / sh; /* output rows [r0, e) read a window row below skip */
      if (e > r[1]) e = r[1];
      if (r[0] < e) o[n++] = (sep_op){2, hy, hx, ky % sh, hx, r[0], e, 0, p->ow, ky / sh + p->t_h, 0, true};
    }
  for (int k = 0; k < nyp; k++) { /* row maxima, the home row phase last */
    int py = k == nyp - 1 ? hy : k < hy ? k : k + 1, a, b;
    sep_range(ih, sh, py, r_org, op->h, &a, &b);
    if (a * sh + py < skip) a = (skip - py + sh - 1) / sh;
    for (int kx = 0; kx < op->kw && a < b; kx++)
      if (kx != kx0 && tap_rect(op, oh0, th, p->ow, ky0, kx, r))
        o[n++] = (sep_op){2, py, hx, py, kx % sw, a, b, r[2], r[3], 0, kx / sw, false};
  }
  for (int ky = 0; ky < op->kh; ky++) /* column maxima on the output (the ring's rows done first) */
    if (ky != ky0 && tap_rect(op, oh0, th, p->ow, ky, kx0, r)) {
      while (r[0] < r[1] && r[0] * sh + ky < skip) r[0]++;
      if (r[0] < r[1]) o[n++] = (sep_op){2, hy, hx, ky % sh, hx, r[0], r[1], 0, p->ow, ky / sh, 0, false};
    }
  return n;
}

/* The ring of a separable tile: its first window rows [0, kh - stride_h), the last of the row tile
 * before (the other part, a full tile), are neither loaded nor copied when the tile is not its
 * block's first and none of them is a home row (the tile before copied them, took their row maxima
 * and still holds them: the column maxima read them there, sep_ops; the runtime orders the next
 * window copy of that part after those reads, its footprints). The rows skipped (0: none). */
static int sep_skip(const vta_plan *p, int oh0) {
  const vta_op *op = &p->op;
  int sh = op->stride_h, home = sep_home(op, p->oh, p->ow, p->t_h), skip = op->kh - sh;
  if (oh0 == 0 || skip <= 0 || p->vt < 2) return 0;
  for (int t = 0; t < skip; t++)
    if (t % sh == (home / op->kw) % sh) return 0;
  return skip;
}

/* One max-pool tile in the separable form (sep_ops; the plan's pool_sep, two threads): the window
 * rows into INP as pool_tile's, the identity block into WGT with the first tile of each part, the
 * phase planes in the ACC (pl_YX; the output plane acc_buf last, so it sits where every tile of the
 * part has it), the steps of sep_ops (the channel blocks unrolled: micro-ops), the store. */
static lir_stmt *sep_tile(se *e, lir_var *tn, lir_var *tcv, int oh0, int th) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int tc = p->t_oc, sh = op->stride_h, sw = op->stride_w, ih = (th - 1) * sh + op->kh, iw = p->in_w;
  int skip = sep_skip(p, oh0); /* window rows [0, skip): the tile before's (the ring) */
  int home = sep_home(op, p->oh, p->ow, p->t_h), hy = (home / op->kw) % sh, hx = (home % op->kw) % sw;
  int nyp = op->kh < sh ? op->kh : sh, nxp = op->kw < sw ? op->kw : sw;
  int64_t is[6] = {p->vt, tc, ih - skip, iw, B, BI}, ws[4] = {p->vt, 1, BO, BI}, ys[6] = {p->vt, tc, th, p->ow, B, BO};
  lir_buf *inp = lir_buf_new(SF, "inp_buf", LIR_I8, 6, is, LIR_SCOPE_INP);
  lir_buf *wgt = lir_buf_new(SF, "wgt_buf", LIR_I8, 4, ws, LIR_SCOPE_WGT);
  lir_buf *pl[nyp * nxp];
  for (int py = 0; py < nyp; py++)
    for (int px = 0; px < nxp; px++) {
      char nm[32];
      snprintf(nm, sizeof nm, "pl_%d%d", py, px);
      int64_t s[6] = {p->vt, tc, sep_rows(op, p->t_h, py), sep_cols(op, iw, px), B, BO}; /* the full tile's */
      pl[py * nxp + px] = py == hy && px == hx ? NULL : lir_buf_new(SF, nm, LIR_I32, 6, s, LIR_SCOPE_ACC);
    }
  lir_buf *acc = lir_buf_new(SF, "acc_buf", LIR_I32, 6, ys, LIR_SCOPE_ACC);
  pl[hy * nxp + hx] = acc;
  lir_block blk;
  lir_block_init(&blk, SF);
  lir_block_add(&blk, rows_load(e, inp, tn, tcv, oh0 * sh - op->pad_t + skip, -op->pad_l, ih - skip, iw, true));
  if (oh0 < 2 * p->t_h) lir_block_add(&blk, ident_copy(e, wgt)); /* the first tile of each part */
  static const char *const crq[6] = {"c", "r", "q", "b", "o", "i"};
  sep_op so[4 * op->kh * op->kw + 8];
  int nso = sep_ops(p, oh0, th, so);
  for (int k = 0; k < nso; k++) {
    const sep_op *s = &so[k];
    lir_buf *D = pl[s->dy * nxp + s->dx];
    int64_t org[3] = {0, s->r0, s->c0};
    snest n;
    if (s->kind == 0) { /* plane = 0 (a GEMM reset) */
      sn_open(e, &n, 5, (int64_t[]){tc, s->r1 - s->r0, s->c1 - s->c0, B, BO}, crq);
      lir_block_add(&blk, acc_store(e, &n, 1, elem(e, D, 1, (int64_t[]){0}, 3, n.v, org, NULL, n.v[3], n.v[4]), i32c(e, 0)));
    } else if (s->kind == 1) { /* plane += i32(inp[r * sh + py, q * sw + px]) * i32(identity) */
      sn_open(e, &n, 6, (int64_t[]){tc, s->r1 - s->r0, s->c1 - s->c0, B, BO, BI}, crq);
      lir_expr *a = elem(e, D, 1, (int64_t[]){0}, 3, n.v, org, NULL, n.v[3], n.v[4]);
      lir_expr *x = elem(e, inp, 1, (int64_t[]){0}, 3, n.v, (int64_t[]){0, (int64_t)s->r0 * sh + s->dy - skip, (int64_t)s->c0 * sw + s->dx},
                         (int64_t[]){1, sh, sw}, n.v[3], n.v[5]);
      lir_expr *wi[4] = {part(e), SI(e, 0), SR(e, n.v[4]), SR(e, n.v[5])};
      lir_expr *prod = lir_bin(SF, LIR_MUL, lir_cast(SF, LIR_I32, x), lir_cast(SF, LIR_I32, lir_load(SF, wgt, wi)));
      lir_block_add(&blk, acc_store(e, &n, 1, a, lir_bin(SF, LIR_ADD, lir_load(SF, D, a->args), prod)));
    } else { /* plane = max(plane, the src plane's element (di, dj) further) */
      sn_open(e, &n, 5, (int64_t[]){tc, s->r1 - s->r0, s->c1 - s->c0, B, BO}, crq);
      lir_expr *a = elem(e, D, 1, (int64_t[]){0}, 3, n.v, org, NULL, n.v[3], n.v[4]);
      int64_t pc = e->pc;
      if (s->ring) e->pc = e->pmod ? pc + 1 : 1 - pc; /* the other part */
      lir_expr *x = elem(e, pl[s->sy * nxp + s->sx], 1, (int64_t[]){0}, 3, n.v, (int64_t[]){0, s->r0 + s->di, s->c0 + s->dj},
                         NULL, n.v[3], n.v[4]);
      e->pc = pc;
      lir_block_add(&blk, acc_store(e, &n, 1, a, lir_bin(SF, LIR_MAX, lir_load(SF, D, a->args), x)));
    }
  }
  lir_block_add(&blk, tile_store(e, acc, tn, tcv, oh0, th)); /* y = i8(acc) */
  lir_stmt *body = lir_alloc_stmt(SF, acc, lir_block_stmt(&blk));
  for (int k = nyp * nxp - 1; k >= 0; k--)
    if (pl[k] != acc) body = lir_alloc_stmt(SF, pl[k], body);
  return lir_alloc_stmt(SF, inp, lir_alloc_stmt(SF, wgt, body));
}

/* One upsampling tile: output rows [oh0, oh0 + th) (th a multiple of fh: input rows [oh0 / fh,
 * + th / fh)) of the t_oc channel blocks from block tc * t_oc of image block tn. The input rows into
 * INP, the identity block into WGT, the ACC tile zeroed, then one GEMM with the identity writing
 * output pixel (r * fh + a, q * fw + b) from input pixel (r, q): the channel blocks and the factor
 * offsets a, b unrolled (micro-ops), the input rows and columns the two hardware levels; then the
 * store of the ACC tile as int8 (the values are int8 already: no ALU work but the zero fill). */
static lir_stmt *upsample_tile(se *e, lir_var *tn, lir_var *tcv, int oh0, int th) {
  const vta_plan *p = e->p;
  const vta_op *op = &p->op;
  int B = p->cfg.batch, BI = p->cfg.block_in, BO = p->cfg.block_out;
  int tc = p->t_oc, fh = op->up_h, fw = op->up_w, W = op->w, OW = p->ow, ih = th / fh;
  int64_t is[6] = {1, tc, ih, W, B, BI}, ws[4] = {1, 1, BO, BI}, as[6] = {1, tc, th, OW, B, BO};
  lir_buf *inp = lir_buf_new(SF, "inp_buf", LIR_I8, 6, is, LIR_SCOPE_INP);
  lir_buf *wgt = lir_buf_new(SF, "wgt_buf", LIR_I8, 4, ws, LIR_SCOPE_WGT);
  lir_buf *acc = lir_buf_new(SF, "acc_buf", LIR_I32, 6, as, LIR_SCOPE_ACC);
  lir_block blk;
  lir_block_init(&blk, SF);
  lir_block_add(&blk, rows_load(e, inp, tn, tcv, oh0 / fh, 0, ih, W, false));
  lir_block_add(&blk, ident_copy(e, wgt));
  static const char *const crq[6] = {"c", "r", "q", "b", "o", "i"};
  snest n;
  sn_open(e, &n, 5, (int64_t[]){tc, th, OW, B, BO}, crq); /* acc = 0 */
  lir_block_add(&blk, acc_store(e, &n, 0, elem(e, acc, 1, (int64_t[]){0}, 3, n.v, NULL, NULL, n.v[3], n.v[4]), i32c(e, 0)));
  /* acc[c, r * fh + a, q * fw + b] += i32(inp[c, r, q]) * i32(identity) */
  sn_open(e, &n, 8, (int64_t[]){tc, fh, fw, ih, W, B, BO, BI}, (const char *const[]){"c", "a", "d", "r", "q", "b", "o", "i"});
  {
    lir_expr *ai[6] = {SI(e, 0), SR(e, n.v[0]), lir_add(SF, lir_muli(SF, SR(e, n.v[3]), fh), SR(e, n.v[1])),
                       lir_add(SF, lir_muli(SF, SR(e, n.v[4]), fw), SR(e, n.v[2])), SR(e, n.v[5]), SR(e, n.v[6])};
    lir_expr *a = lir_load(SF, acc, ai);
    lir_expr *xi[6] = {SI(e, 0), SR(e, n.v[0]), SR(e, n.v[3]), SR(e, n.v[4]), SR(e, n.v[5]), SR(e, n.v[7])};
    lir_expr *wi[4] = {SI(e, 0), SI(e, 0), SR(e, n.v[6]), SR(e, n.v[7])};
    lir_expr *prod = lir_bin(SF, LIR_MUL, lir_cast(SF, LIR_I32, lir_load(SF, inp, xi)), lir_cast(SF, LIR_I32, lir_load(SF, wgt, wi)));
    lir_block_add(&blk, acc_store(e, &n, 3, a, lir_bin(SF, LIR_ADD, lir_load(SF, acc, a->args), prod)));
  }
  lir_block_add(&blk, tile_store(e, acc, tn, tcv, oh0, th)); /* y = i8(acc) */
  lir_stmt *body = lir_block_stmt(&blk);
  return lir_alloc_stmt(SF, inp, lir_alloc_stmt(SF, wgt, lir_alloc_stmt(SF, acc, body)));
}

/* The schedule stage of an ALU operator (a vta_pass_fn on its compute stage; emitted from the plan,
 * one virtual thread): add - tiles of t_w elements (tt) and a remainder tile; maxpool, gap, upsample - image
 * blocks (tn) x channel tiles (tc), the row tiles unrolled (constant pads and rectangles). */
int vta_alu_schedule(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  if (f->nparams != 4)
    return OVTA_FAIL(err, OVTA_EINTERNAL, "schedule: %s: not the compute stage of an ALU operator", f->name);
  se ec = {.f = f, .p = p, .x = f->params[0], .w = f->params[1], .id = f->params[2], .y = f->params[3]}, *e = &ec;
  lir_block top;
  lir_block_init(&top, f);
  if (p->op.kind == VTA_ADD) {
    int64_t E = (int64_t)p->nb * p->cb * p->op.h * p->op.w, t = p->t_w, q = E / t, r = E % t;
    if (q) {
      lir_var *tv = lir_var_new(f, "tt", LIR_I64);
      lir_block_add(&top, lir_for(f, tv, SI(e, 0), SI(e, q), LIR_FOR_SERIAL, add_tile(e, tv, t, 0, t)));
    }
    if (r) lir_block_add(&top, add_tile(e, NULL, t, q * t, r)); /* remainder tile */
  } else {
    lir_var *nv = lir_var_new(f, "tn", LIR_I64), *cv = lir_var_new(f, "tc", LIR_I64);
    lir_block rows;
    lir_block_init(&rows, f);
    /* two threads: row tile j of block (tn, tc) in part (tn * ncb * R + tc * R + j) % 2, constant when R is even */
    int64_t R = (p->oh + p->t_h - 1) / p->t_h, ncb = p->cb / p->t_oc;
    e->pv[0] = nv, e->pv[1] = cv, e->pk[0] = ncb * R % 2, e->pk[1] = R % 2;
    for (int oh0 = 0, j = 0; oh0 < p->oh; oh0 += p->t_h, j++) {
      int th = oh0 + p->t_h <= p->oh ? p->t_h : p->oh - oh0;
      e->pmod = p->vt > 1 && (e->pk[0] || e->pk[1]), e->pc = p->vt > 1 ? j % 2 : 0;
      lir_block_add(&rows, p->op.kind == VTA_UPSAMPLE ? upsample_tile(e, nv, cv, oh0, th)
                           : p->pool_sep                ? sep_tile(e, nv, cv, oh0, th)
                                                        : pool_tile(e, nv, cv, oh0, th));
    }
    lir_stmt *body = lir_block_stmt(&rows);
    if (p->vt > 1) { /* the part of the block's first tile (insert-deps' form of a ping-pong body) */
      e->pmod = true, e->pc = 0;
      body = lir_attr(f, "virtual_thread", part(e), body);
    }
    e->pmod = false, e->pc = 0;
    lir_block_add(&top, lir_for(f, nv, SI(e, 0), SI(e, p->nb), LIR_FOR_SERIAL,
                                lir_for(f, cv, SI(e, 0), SI(e, ncb), LIR_FOR_SERIAL, body)));
  }
  f->body = lir_attr(f, "vthreads", SI(e, p->vt), lir_block_stmt(&top));
  return OVTA_OK;
}
