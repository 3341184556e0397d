/* conv_tiled.c: the fast schedules of float 2-D convs (cpu_conv_core takes them when they
 * apply): a register-tiled direct conv and a depthwise one. The rules are those of Conv
 * (conv.c: Y[n, m, oh, ow] = sum_{c, kh, kw} X[n, g*Cg + c, oh*sh - pt + kh*dh, ow*sw - pl + kw*dw]
 * * W[m, c, kh, kw], zero outside X, then the post-op of the accumulator). Every output element
 * is summed by one thread over (c, kh, kw) in that order from 0 (the post-op adds the bias), so
 * results do not depend on the thread count. */

#include "cpu_internal.h"

#define TILE_M 8  /* output channels of a register tile */
#define ROW_TILES_MIN 24 /* output rows at least this wide are tiled row by row */
#define TILE_W 32 /* output positions of a register tile (two 16-float vectors) */
/* Output channels of a register tile where the target prefers 256-bit vectors (lir_lower_opts.vec_bits:
 * AVX-512 on AMD Zen) in the pointwise convs and the 8-bit convs whose taps go in chunks (tile_sum):
 * 8 x 32 is 32 accumulator vectors there, and LLVM 15 spilled them (the chunked tap loop: 44 stack
 * accesses per two taps against 9 per four unchunked; some pointwise tiles kept every accumulator
 * on the stack). With 4, on Zen 4: int8 ResNet-18's convs on 128-512 channels 3.7 -> 2.4 ms each
 * (the float convs' speed), MobileNetV2's pointwise convs up to 2.6x faster (bench/README.md "Issue
 * 16 (2026-11-28 04:30)"). The direct convs otherwise keep 8 (4 was 5% slower for them). */
#define NARROW_TILE_M 4

/* Output channels of a register tile for M channels (of a group): 8, 4, 2 or 1 dividing M, at
 * most NARROW_TILE_M when narrow and the target prefers 256-bit vectors. */
static int64_t tile_m(const L *l, int64_t M, bool narrow) {
  int64_t mt = M % 8 == 0 ? 8 : M % 4 == 0 ? 4 : M % 2 == 0 ? 2 : 1;
  return narrow && l->vec_bits == 256 && mt > NARROW_TILE_M ? NARROW_TILE_M : mt;
}
#define PAR_MIN 64   /* float convs' parallel loops get at least this many iterations when the tiles allow */
#define PAR_MIN_I8 16 /* 8-bit ones converting weights (each iteration converts its block's weights to f32) */
#define WT_C_MAX 320 /* float pointwise convs with an odd tail copy their weights transposed up to this C */
#define F32W_TILES 32 /* 8-bit convs take their weights as f32 (lir_lower_node_f32w) when the converting
                       * schedule would convert a block for at most this many spatial tiles */

/* Into how many groups of consecutive spatial tiles (of `tiles`) a parallel loop over `blocks`
 * channel blocks splits each block, so that it has at least pm iterations: few blocks (a layer
 * with few output channels) would leave threads idle or unbalanced. The loop then runs over
 * (group, block), group-major. (MobileNetV2 with 2 threads: pm 16 -> 64 5.0 -> 4.6 ms; int8
 * ResNet-18 with 64: 31.7 -> 33-37 ms, its weights converted once per group.) */
static int64_t tile_groups(int64_t blocks, int64_t tiles, int64_t pm) {
  if (blocks < 1) return 1; /* an empty conv (zero output channels): nothing to split */
  int64_t tg = (pm + blocks - 1) / blocks;
  return tg < 1 ? 1 : tg > tiles ? (tiles < 1 ? 1 : tiles) : tg;
}

/* The geometry of one conv: X[n] zero-padded and split into its stride phases: plane
 * (c, a, b) of XP holds the padded input rows y = a (mod sh) and columns x = b (mod sw), element
 * (y / sh, x / sw), PHs x PWs. Output (oh, ow) reads tap (kh, kw) at padded (oh*sh + kh*dh,
 * ow*sw + kw*dw): plane (c, (kh*dh) % sh, (kw*dw) % sw), element p + ((kh*dh) / sh) * PWs +
 * (kw*dw) / sw with p = oh * PWs + ow. So the output positions p of a PWs-wide plane (columns
 * ow >= OW computed and dropped) read consecutive inputs, whatever the stride: tiles of TILE_W
 * consecutive p, across rows (small outputs: little is dropped) or, for rows of ROW_TILES_MIN
 * outputs or more, from the start of a row (ow0 = k*TILE_W): then a tile stores one contiguous
 * row segment, a vectorized loop, instead of testing and placing each position. */
typedef struct geom {
  int64_t N, C, IH, IW, M, Cg, KH, KW, OH, OW, G; /* shapes, groups */
  int64_t sh, sw, dh, dw, pt, pl;                 /* strides, dilations, leading pads */
  int64_t PHs, PWs, plane;                        /* a phase plane: rows, columns, PHs*PWs */
  bool rows;                                      /* tiles within output rows (OW >= ROW_TILES_MIN) */
  int64_t wb;                                     /* rows: tiles per output row */
  int64_t tiles;                                  /* spatial tiles per output channel */
  int64_t xp_len;                                 /* XP's elements (tail margin included) */
} geom;

static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

static void geom_of(const lir_buf *X, const lir_buf *W, const lir_buf *Y, const convp *c, int64_t G, geom *q) {
  q->N = X->shape[0], q->C = X->shape[1], q->IH = X->shape[2], q->IW = X->shape[3];
  q->M = W->shape[0], q->Cg = W->shape[1], q->KH = W->shape[2], q->KW = W->shape[3];
  q->OH = Y->shape[2], q->OW = Y->shape[3], q->G = G;
  q->sh = c->stride[0], q->sw = c->stride[1], q->dh = c->dil[0], q->dw = c->dil[1];
  q->pt = c->pad[0], q->pl = c->pad[1];
  /* the interior, and every tap of every output */
  q->PHs = imax((q->IH + q->pt + q->sh - 1) / q->sh, q->OH + (q->KH - 1) * q->dh / q->sh);
  q->PWs = imax((q->IW + q->pl + q->sw - 1) / q->sw, q->OW + (q->KW - 1) * q->dw / q->sw);
  q->plane = q->PHs * q->PWs;
  q->rows = q->OW >= ROW_TILES_MIN;
  q->wb = (q->OW + TILE_W - 1) / TILE_W;
  q->tiles = q->rows ? q->OH * q->wb : (q->OH * q->PWs + TILE_W - 1) / TILE_W;
  /* the last tile of the last plane reads up to TILE_W - 1 + PWs positions past it */
  q->xp_len = q->C * q->sh * q->sw * q->plane + TILE_W + q->PWs;
}


/* The range [*lo, *hi) of plane rows (or columns) r of phase a whose padded position r*s + a
 * lies inside the input, i.e. 0 <= r*s + a - pad < in, clipped to [0, n]. */
static void inside(int64_t s, int64_t a, int64_t pad, int64_t in, int64_t n, int64_t *lo, int64_t *hi) {
  *lo = floor_div(pad - a + s - 1, s), *hi = floor_div(in - 1 + pad - a, s) + 1;
  *lo = *lo < 0 ? 0 : *lo > n ? n : *lo;
  *hi = *hi < *lo ? *lo : *hi > n ? n : *hi;
}

/* A loop storing 0 into XP[b0 + z] for z in [0, len) (nothing when len <= 0). */
static lir_stmt *zeros(L *l, lir_buf *XP, lir_expr *b0, int64_t len) {
  if (len <= 0) return lir_seq(F, 0, NULL);
  lir_var *z = lir_var_new(F, "z", LIR_I64);
  return lir_for(F, z, I(0), I(len), LIR_FOR_VECTORIZED, lir_store1(F, XP, lir_add(F, b0, lir_ref(F, z)), cst(l, XP->dtype, 0)));
}

/* A loop storing 0 into XP[b0 + z] for z in [0, len), len an expression (nothing when <= 0). */
static lir_stmt *zeros_rt(L *l, lir_buf *XP, lir_expr *b0, lir_expr *len) {
  lir_var *z = lir_var_new(F, "z", LIR_I64);
  return lir_for(F, z, I(0), lir_max(F, I(0), len), LIR_FOR_VECTORIZED, lir_store1(F, XP, lir_add(F, b0, lir_ref(F, z)), cst(l, XP->dtype, 0)));
}

/* XP[rb[b] + w] = X[n, C, y, w*sw + b - pl] for w in [w0, w0 + len), every column phase b in
 * one loop (the loads of all phases together read X's row consecutively: interleaved loads, not
 * gathers); serial for the few edge columns. xb: X is viewed 1-D (half-major) and its row y
 * starts at xb; NULL: X[n, C, y, x]. */
static lir_stmt *row_copy(L *l, const geom *q, lir_buf *X, lir_buf *XP, lir_expr **xi, lir_expr **rb, int64_t b0,
                          int64_t nb, int64_t w0, int64_t len, lir_for_kind k, lir_expr *xb) {
  if (len <= 0) return lir_seq(F, 0, NULL);
  lir_var *w = lir_var_new(F, "w", LIR_I64);
  lir_expr *Wv = lir_ref(F, w);
  lir_stmt *st[8];
  for (int64_t b = b0; b < b0 + nb; b++) {
    lir_expr *x = lir_addi(F, lir_muli(F, Wv, q->sw), b - q->pl);
    lir_expr *v = xb ? lir_load1(F, X, lir_add(F, xb, x)) : lir_load(F, X, (lir_expr *[]){xi[0], xi[1], xi[2], x});
    st[b - b0] = lir_store1(F, XP, lir_add(F, rb[b], Wv), as_type(l, XP->dtype, v));
  }
  return lir_for(F, w, I(w0), I(len), k, lir_seq(F, (int)nb, st));
}

/* The copies of input row y (xi[2]) into the row of every column phase b (at rb[b]): the edge
 * columns where only some phases are inside one by one, then the columns [C0, C1) where all are
 * in one vectorized loop; xb: X viewed 1-D with row y at xb (half-major), NULL: X 4-D. */
static lir_stmt *row_copies(L *l, const geom *q, lir_buf *X, lir_buf *XP, lir_expr **xi, lir_expr **rb, const int64_t *c0,
                            const int64_t *c1, int64_t C0, int64_t C1, lir_expr *xb) {
  lir_block row;
  lir_block_init(&row, F);
  for (int64_t b = 0; b < q->sw; b++) {
    lir_block_add(&row, row_copy(l, q, X, XP, xi, rb, b, 1, c0[b], (C0 < c1[b] ? C0 : c1[b]) - c0[b], LIR_FOR_SERIAL, xb));
    lir_block_add(&row, row_copy(l, q, X, XP, xi, rb, b, 1, C1 > c0[b] ? C1 : c0[b], c1[b] - (C1 > c0[b] ? C1 : c0[b]), LIR_FOR_SERIAL, xb));
  }
  lir_block_add(&row, row_copy(l, q, X, XP, xi, rb, 0, q->sw, C0, C1 - C0, LIR_FOR_VECTORIZED, xb));
  return lir_block_stmt(&row);
}

/* Where a depthwise conv reads X (chan_copy): half-major split at h1 (cpu.h), with halo rows or
 * not (lay), the group G reading (0 or 1; halo: its own part). */
typedef struct dw_src {
  int64_t h1;  /* the split */
  hm_lay lay;  /* X's layout */
  bool halo;   /* with halo rows */
  lir_expr *G; /* the group copying */
} dw_src;

/* row_copies from a half-major X (xs): a whole row from the part holding it, with constant
 * bounds; the row the split cuts, per column phase, the columns before the split from the first
 * part and the rest from the second (vectorized loops each). (One loop with bounds known at run
 * time: the 14x14 depthwise convs ran 25% slower, their 14-column rows copied by scalar loops.)
 * With halo rows: every row from group G's own part (whole rows there, the cut one too); a row
 * outside that part zeroed (rows only the dropped outputs of the group's window read:
 * conv_depthwise checks that its kept outputs read none). */
static lir_stmt *row_copies_hm(L *l, const geom *q, lir_buf *X, lir_buf *XP, lir_expr **xi, lir_expr **rb, const int64_t *c0,
                               const int64_t *c1, int64_t C0, int64_t C1, const dw_src *xs) {
  int64_t h1 = xs->h1, ys = h1 / q->IW, xc = h1 % q->IW;
  lir_expr *yc = lir_muli(F, xi[2], q->IW);
  if (xs->halo) {
    int64_t r0, r1;
    hm_rows(&xs->lay, q->IW, &r0, &r1);
    lir_expr *in = lir_select(F, lir_bin(F, LIR_EQ, xs->G, I(0)), lir_bin(F, LIR_LT, xi[2], I(r0)), lir_bin(F, LIR_GE, xi[2], I(r1)));
    lir_block z;
    lir_block_init(&z, F);
    for (int64_t b = 0; b < q->sw; b++) lir_block_add(&z, zeros(l, XP, lir_addi(F, rb[b], c0[b]), c1[b] - c0[b]));
    return lir_if(F, in, row_copies(l, q, X, XP, xi, rb, c0, c1, C0, C1, hm_el(l, &xs->lay, xs->G, xi[0], xi[1], yc)), lir_block_stmt(&z));
  }
  lir_expr *b0 = hm_el(l, &xs->lay, I(0), xi[0], xi[1], yc), *b1 = hm_el(l, &xs->lay, I(1), xi[0], xi[1], yc);
  lir_stmt *whole = row_copies(l, q, X, XP, xi, rb, c0, c1, C0, C1, lir_select(F, lir_bin(F, LIR_LT, yc, I(h1)), b0, b1));
  if (!xc) return whole;
  lir_block cut;
  lir_block_init(&cut, F);
  for (int64_t b = 0; b < q->sw; b++) { /* column x = w*sw + b - pl is before the split for w < wc */
    int64_t wc = -floor_div(-(xc + q->pl - b), q->sw);
    wc = wc < c0[b] ? c0[b] : wc > c1[b] ? c1[b] : wc;
    lir_block_add(&cut, row_copy(l, q, X, XP, xi, rb, b, 1, c0[b], wc - c0[b], LIR_FOR_VECTORIZED, b0));
    lir_block_add(&cut, row_copy(l, q, X, XP, xi, rb, b, 1, wc, c1[b] - wc, LIR_FOR_VECTORIZED, b1));
  }
  return lir_if(F, lir_bin(F, LIR_EQ, xi[2], I(ys)), lir_block_stmt(&cut), whole);
}

/* Channel C of X[n] into its phase planes at XP[cb..] (converted to XP's type): per row phase
 * a, known while lowering, the rows outside the input zeroed; per inside row, in each column
 * phase b's plane the columns outside the input zeroed, the edge columns where only some
 * phases are inside copied one by one, and the columns where all are inside in one vectorized
 * loop over consecutive XP elements (no division per element, no scattered stores). */
static lir_stmt *chan_copy(L *l, const geom *q, lir_buf *X, lir_buf *XP, lir_expr *n, lir_expr *C, lir_expr *cb, lir_expr *wlo,
                           lir_expr *whi, const dw_src *xs) {
  lir_block blk;
  lir_block_init(&blk, F);
  int64_t c0[8], c1[8], C0 = 0, C1 = q->PWs;
  for (int64_t b = 0; b < q->sw; b++) {
    inside(q->sw, b, q->pl, q->IW, q->PWs, &c0[b], &c1[b]);
    C0 = c0[b] > C0 ? c0[b] : C0, C1 = c1[b] < C1 ? c1[b] : C1;
  }
  if (C1 < C0) C1 = C0;
  for (int64_t a = 0; a < q->sh; a++) {
    int64_t r0, r1;
    inside(q->sh, a, q->pt, q->IH, q->PHs, &r0, &r1);
    lir_expr *h0 = I(r0), *hn = I(r1 - r0); /* the plane rows copied: first, count */
    for (int64_t b = 0; b < q->sw; b++) {
      lir_expr *pb = lir_add(F, cb, I((a * q->sw + b) * q->plane)); /* plane (a, b) */
      if (wlo) { /* only the rows [wlo, whi) of the window */
        lir_expr *z1 = lir_max(F, wlo, I(r1));
        lir_block_add(&blk, zeros_rt(l, XP, lir_add(F, pb, lir_muli(F, wlo, q->PWs)), lir_muli(F, lir_sub(F, lir_min(F, I(r0), whi), wlo), q->PWs)));
        lir_block_add(&blk, zeros_rt(l, XP, lir_add(F, pb, lir_muli(F, z1, q->PWs)), lir_muli(F, lir_sub(F, whi, z1), q->PWs)));
      } else {
        lir_block_add(&blk, zeros(l, XP, pb, r0 * q->PWs));
        lir_block_add(&blk, zeros(l, XP, lir_addi(F, pb, r1 * q->PWs), (q->PHs - r1) * q->PWs));
      }
    }
    if (r1 <= r0) continue;
    if (wlo) h0 = lir_max(F, wlo, I(r0)), hn = lir_max(F, I(0), lir_sub(F, lir_min(F, whi, I(r1)), h0));
    lir_var *h = lir_var_new(F, "h", LIR_I64);
    lir_expr *H = lir_ref(F, h), *rb[8], *xi[3] = {n, C, lir_addi(F, lir_muli(F, H, q->sh), a - q->pt)};
    lir_block row;
    lir_block_init(&row, F);
    for (int64_t b = 0; b < q->sw; b++) {
      rb[b] = lir_add(F, cb, lir_addi(F, lir_muli(F, H, q->PWs), (a * q->sw + b) * q->plane));
      lir_block_add(&row, zeros(l, XP, rb[b], c0[b]));
      lir_block_add(&row, zeros(l, XP, lir_addi(F, rb[b], c1[b]), q->PWs - c1[b]));
    }
    lir_block_add(&row, xs ? row_copies_hm(l, q, X, XP, xi, rb, c0, c1, C0, C1, xs) : row_copies(l, q, X, XP, xi, rb, c0, c1, C0, C1, NULL));
    lir_block_add(&blk, lir_for(F, h, h0, hn, LIR_FOR_SERIAL, lir_block_stmt(&row)));
  }
  return lir_block_stmt(&blk);
}

/* Where tap (kh, kw) of input channel c (of the group) starts in XP, for output position 0. */
static lir_expr *tap_off(L *l, const geom *q, lir_expr *Cv, lir_expr *KH, lir_expr *KW) {
  lir_expr *ty = lir_muli(F, KH, q->dh), *tx = lir_muli(F, KW, q->dw);
  lir_expr *pa = q->sh > 1 ? lir_bin(F, LIR_MOD, ty, I(q->sh)) : I(0), *pb = q->sw > 1 ? lir_bin(F, LIR_MOD, tx, I(q->sw)) : I(0);
  lir_expr *ra = q->sh > 1 ? lir_bin(F, LIR_DIV, ty, I(q->sh)) : ty, *rb = q->sw > 1 ? lir_bin(F, LIR_DIV, tx, I(q->sw)) : tx;
  lir_expr *plane = lir_add(F, lir_muli(F, lir_add(F, lir_muli(F, Cv, q->sh), pa), q->sw), pb);
  return lir_add(F, lir_muli(F, plane, q->plane), lir_add(F, lir_muli(F, ra, q->PWs), rb));
}

/* XP = X[n] in phase planes (a parallel loop over channels), then the zero tail margin. */
static lir_stmt *pad_copy(L *l, const geom *q, lir_buf *X, lir_buf *XP, lir_expr *n) {
  lir_var *c = lir_var_new(F, "c", LIR_I64), *t = lir_var_new(F, "t", LIR_I64);
  int64_t cplane = q->sh * q->sw * q->plane;
  lir_expr *C = lir_ref(F, c);
  lir_stmt *tail = lir_for(F, t, I(q->C * cplane), I(q->xp_len - q->C * cplane), LIR_FOR_SERIAL,
                           lir_store1(F, XP, lir_ref(F, t), cst(l, XP->dtype, 0)));
  return SEQ(lir_for(F, c, I(0), I(q->C), LIR_FOR_PARALLEL, chan_copy(l, q, X, XP, n, C, lir_muli(F, C, cplane), NULL, NULL, NULL)), tail);
}

/* A loop nest zeroing b [mt, TILE_W]. */
static lir_stmt *tile_zero(L *l, lir_buf *b, int64_t mt) {
  lir_var *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_expr *zi[2] = {lir_ref(F, i), lir_ref(F, j)};
  return lir_for(F, i, I(0), I(mt), LIR_FOR_UNROLLED,
                 lir_for(F, j, I(0), I(TILE_W), LIR_FOR_VECTORIZED, lir_store(F, b, zi, cst(l, b->dtype, 0))));
}

/* acc[i][j] += sum over r in [r0, r0 + rx) of XP[base + off[r] + j*s] * W[m0 + i, r] (W viewed
 * [M, R]; f32, fmuladd), the i loop unrolled and the j loop vectorized so the accumulators stay
 * in vector registers. */
static lir_stmt *tile_taps(L *l, lir_buf *acc, lir_buf *XP, lir_buf *W, lir_buf *off, int64_t mt, lir_expr *r0,
                           lir_expr *rx, lir_expr *m0, lir_expr *base, int64_t s) {
  lir_var *r = lir_var_new(F, "r", LIR_I64), *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_var *o = lir_var_new(F, "o", LIR_I64), *wv = lir_var_new(F, "wv", acc->dtype);
  lir_expr *Rr = lir_ref(F, r), *Iv = lir_ref(F, i), *J = lir_ref(F, j);
  lir_expr *x = lir_load1(F, XP, lir_add(F, lir_ref(F, o), lir_muli(F, J, s)));
  lir_expr *ai[2] = {Iv, J};
  lir_expr *fma = lir_call(F, LIR_FMULADD, acc->dtype, 3, (lir_expr *[]){x, lir_ref(F, wv), lir_load(F, acc, ai)});
  lir_stmt *jl = lir_for(F, j, I(0), I(TILE_W), LIR_FOR_VECTORIZED, lir_store(F, acc, ai, fma));
  lir_expr *w = lir_load(F, W, (lir_expr *[]){lir_add(F, m0, Iv), Rr});
  lir_stmt *il = lir_for(F, i, I(0), I(mt), LIR_FOR_UNROLLED, lir_let(F, wv, w, jl));
  return lir_for(F, r, r0, rx, LIR_FOR_SERIAL, lir_let(F, o, lir_add(F, lir_load1(F, off, Rr), base), il));
}

/* One exact chunk of an 8-bit tile: acc = the f32 sum over r in [r0, r0 + rx), then
 * iacc += i32(acc). */
static lir_stmt *tile_chunk(L *l, lir_buf *acc, lir_buf *iacc, lir_buf *XP, lir_buf *W, lir_buf *off, int64_t mt,
                            lir_expr *r0, int64_t rx, lir_expr *m0, lir_expr *base, int64_t s) {
  lir_var *k = lir_var_new(F, "k", LIR_I64);
  lir_expr *K = lir_ref(F, k);
  lir_expr *add = lir_add(F, lir_load1(F, iacc, K), lir_cast(F, LIR_I32, lir_load1(F, acc, K)));
  /* one flat loop over the mt rows (contiguous): unit-stride vectors. (As two loops, i serial
   * and j vectorized, LLVM unrolled j and vectorized i: gathers and scatters of stride TILE_W.) */
  lir_stmt *fold = lir_for(F, k, I(0), I(mt * TILE_W), LIR_FOR_VECTORIZED, lir_store1(F, iacc, K, add));
  return SEQ(tile_zero(l, acc, mt), tile_taps(l, acc, XP, W, off, mt, r0, I(rx), m0, base, s), fold);
}

/* The register tile (mt output channels from m0, TILE_W positions from the XP offset base with
 * step s) summed over r = (c, kh, kw) from 0 in f32 into acc. 8-bit convs (iacc: their i32
 * sums): the taps in chunks of ch (then one of R % ch), each summed exactly in f32 (integer
 * products and partial sums below 2^24), converted and added into iacc: the same wrapping i32
 * sum. Every tap loop has a constant extent (the accumulators stay in registers). */
static lir_stmt *tile_sum(L *l, lir_buf *acc, lir_buf *iacc, lir_buf *XP, lir_buf *W, lir_buf *off, int64_t mt, int64_t R,
                          int64_t ch, lir_expr *m0, lir_expr *base, int64_t s) {
  if (!iacc || R <= ch) return SEQ(tile_zero(l, acc, mt), tile_taps(l, acc, XP, W, off, mt, I(0), I(R), m0, base, s));
  lir_var *k = lir_var_new(F, "k", LIR_I64);
  lir_stmt *full = R / ch ? lir_for(F, k, I(0), I(R / ch), LIR_FOR_SERIAL,
                                    tile_chunk(l, acc, iacc, XP, W, off, mt, lir_muli(F, lir_ref(F, k), ch), ch, m0, base, s))
                          : lir_seq(F, 0, NULL);
  lir_stmt *tail = R % ch ? tile_chunk(l, acc, iacc, XP, W, off, mt, I(R / ch * ch), R % ch, m0, base, s) : lir_seq(F, 0, NULL);
  return SEQ(tile_zero(l, iacc, mt), full, tail);
}

/* wb[i, r] = f32(W[m0 + i, r]) for i < mt, r < R (W viewed [M, R]): an 8-bit block's weights. */
static lir_stmt *wb_fill(L *l, lir_buf *wb, lir_buf *W, lir_expr *m0, int64_t mt, int64_t R) {
  lir_var *i = lir_var_new(F, "i", LIR_I64), *r = lir_var_new(F, "r", LIR_I64);
  lir_expr *Iv = lir_ref(F, i), *Rv = lir_ref(F, r);
  return lir_for(F, i, I(0), I(mt), LIR_FOR_SERIAL, lir_for(F, r, I(0), I(R), LIR_FOR_VECTORIZED,
      lir_store(F, wb, (lir_expr *[]){Iv, Rv}, lir_cast(F, LIR_F32, lir_load(F, W, (lir_expr *[]){lir_add(F, m0, Iv), Rv})))));
}

/* wt[r, i] = f32(W[m0 + i, r]) for i < mt, r < R (W viewed [M, R]): a block's weights transposed,
 * so that the mt weights of each r are contiguous. */
static lir_stmt *wt_fill(L *l, lir_buf *wt, lir_buf *W, lir_expr *m0, int64_t mt, int64_t R) {
  lir_var *i = lir_var_new(F, "i", LIR_I64), *r = lir_var_new(F, "r", LIR_I64);
  lir_expr *Iv = lir_ref(F, i), *Rv = lir_ref(F, r);
  return lir_for(F, r, I(0), I(R), LIR_FOR_SERIAL, lir_for(F, i, I(0), I(mt), LIR_FOR_UNROLLED,
      lir_store(F, wt, (lir_expr *[]){Rv, Iv}, as_type(l, LIR_F32, lir_load(F, W, (lir_expr *[]){lir_add(F, m0, Iv), Rv})))));
}

/* The tiled conv: for n: XP = X[n] in phase planes; off[r] = tap_off(c, kh, kw); then in parallel
 * over blocks of mt output channels (mt: 8, or 4, 2, 1 dividing M/G), every spatial tile summed
 * (tile_sum) and stored through the post-op. */
static int conv_tiled(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, lir_dtype acc_t, const geom *q, const post *p, lir_dtype wdt) {
  int64_t Mg = q->M / q->G, R = q->Cg * q->KH * q->KW;
  int64_t xl = q->xp_len, acc_sh[2] = {TILE_M, TILE_W};
  lir_buf *XP = lir_buf_new(F, "xp", LIR_F32, 1, &xl, LIR_SCOPE_LOCAL);
  lir_buf *off = lir_buf_new(F, "off", LIR_I64, 1, &R, LIR_SCOPE_LOCAL);
  view(W, 2, (int64_t[]){q->M, R});
  lir_buf *acc = lir_buf_new(F, "acc", LIR_F32, 2, acc_sh, LIR_SCOPE_LOCAL);
  int64_t mx = X->dtype == LIR_U8 ? 255 : 128, mw = wdt == LIR_U8 ? 255 : 128, ch = ((int64_t)1 << 24) / (mx * mw);
  bool i8 = acc_t == LIR_I32; /* 8-bit: i32 sums of exact f32 chunks, W's block converted (or W given in f32) */
  int64_t mt = tile_m(l, Mg, i8 && R > ch);
  int64_t nb = q->M / mt, ts8 = (q->tiles + tile_groups(nb, q->tiles, PAR_MIN_I8) - 1) / tile_groups(nb, q->tiles, PAR_MIN_I8);
  if (i8 && W->dtype == LIR_F32 && ts8 > F32W_TILES) return cpu_no_f32w(l); /* converting pays little here */
  bool conv_w = i8 && W->dtype != LIR_F32; /* each block converts its W rows */
  lir_buf *iacc = i8 && R > ch ? lir_buf_new(F, "iacc", LIR_I32, 2, acc_sh, LIR_SCOPE_LOCAL) : NULL;
  lir_buf *wb = conv_w ? lir_buf_new(F, "wb", LIR_F32, 2, (int64_t[]){mt, R}, LIR_SCOPE_LOCAL) : NULL;
  /* off[r] */
  lir_var *c = lir_var_new(F, "c", LIR_I64), *kh = lir_var_new(F, "kh", LIR_I64), *kw = lir_var_new(F, "kw", LIR_I64);
  lir_expr *Cv = lir_ref(F, c), *KH = lir_ref(F, kh), *KW = lir_ref(F, kw);
  lir_expr *ri = lir_add(F, lir_muli(F, lir_add(F, lir_muli(F, Cv, q->KH), KH), q->KW), KW);
  lir_expr *ov = tap_off(l, q, Cv, KH, KW);
  lir_stmt *offs = lir_for(F, c, I(0), I(q->Cg), LIR_FOR_SERIAL, lir_for(F, kh, I(0), I(q->KH), LIR_FOR_SERIAL,
      lir_for(F, kw, I(0), I(q->KW), LIR_FOR_SERIAL, lir_store1(F, off, ri, ov))));
  /* per image */
  int64_t tg = tile_groups(nb, q->tiles, conv_w ? PAR_MIN_I8 : PAR_MIN), ts = (q->tiles + tg - 1) / tg; /* ts tiles per group */
  tg = (q->tiles + ts - 1) / ts;
  lir_var *n = lir_var_new(F, "n", LIR_I64), *mb = lir_var_new(F, "mb", LIR_I64), *t = lir_var_new(F, "t", LIR_I64);
  lir_expr *MB = lir_ref(F, mb), *T = lir_ref(F, t), *Nv = lir_ref(F, n);
  /* (group, block) group-major: a thread's run of iterations covers the same tiles (the same
   * input positions, in its cache) for consecutive blocks */
  lir_expr *m0 = lir_muli(F, tg == 1 ? MB : nb > 1 ? lir_bin(F, LIR_MOD, MB, I(nb)) : I(0), mt);
  lir_expr *t0 = tg > 1 ? lir_muli(F, nb > 1 ? lir_bin(F, LIR_DIV, MB, I(nb)) : MB, ts) : NULL; /* the group's first tile */
  lir_expr *cbase = lir_muli(F, lir_muli(F, lir_bin(F, LIR_DIV, m0, I(Mg)), q->Cg), q->sh * q->sw * q->plane);
  lir_expr *oh = q->rows ? lir_bin(F, LIR_DIV, T, I(q->wb)) : NULL;
  lir_expr *ow0 = q->rows ? lir_muli(F, lir_bin(F, LIR_MOD, T, I(q->wb)), TILE_W) : NULL;
  lir_expr *p0 = q->rows ? lir_add(F, lir_muli(F, oh, q->PWs), ow0) : lir_muli(F, T, TILE_W);
  lir_stmt *sum = tile_sum(l, acc, iacc, XP, wb ? wb : W, off, mt, R, ch, wb ? I(0) : m0, lir_add(F, cbase, p0), 1);
  lir_var *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_expr *Iv = lir_ref(F, i), *J = lir_ref(F, j), *m = lir_add(F, m0, Iv), *yi[4];
  lir_expr *a = iacc ? lir_load(F, iacc, (lir_expr *[]){Iv, J}) : as_type(l, acc_t, lir_load(F, acc, (lir_expr *[]){Iv, J}));
  yi[0] = Nv, yi[1] = m;
  lir_stmt *stores;
  if (q->rows) { /* the row segment ow0 .. min(ow0 + TILE_W, OW) */
    yi[2] = oh, yi[3] = lir_add(F, ow0, J);
    lir_expr *len = lir_min(F, I(TILE_W), lir_sub(F, I(q->OW), ow0));
    stores = lir_for(F, i, I(0), I(mt), LIR_FOR_SERIAL,
                     lir_for(F, j, I(0), len, LIR_FOR_VECTORIZED, cpu_post_store(l, p, Y, yi, m, a)));
  } else { /* position j of the tile, when it is an output */
    lir_expr *pos = lir_add(F, p0, J);
    yi[2] = lir_bin(F, LIR_DIV, pos, I(q->PWs)), yi[3] = lir_bin(F, LIR_MOD, pos, I(q->PWs));
    lir_expr *ok = lir_bin(F, LIR_AND, lir_bin(F, LIR_LT, pos, I(q->OH * q->PWs)), lir_bin(F, LIR_LT, yi[3], I(q->OW)));
    lir_stmt *st = lir_if(F, ok, cpu_post_store(l, p, Y, yi, m, a), NULL);
    stores = lir_for(F, i, I(0), I(mt), LIR_FOR_SERIAL, lir_for(F, j, I(0), I(TILE_W), LIR_FOR_SERIAL, st));
  }
  lir_stmt *tiles = tg > 1 ? lir_for(F, t, t0, lir_min(F, I(ts), lir_sub(F, I(q->tiles), t0)), LIR_FOR_SERIAL, SEQ(sum, stores))
                           : lir_for(F, t, I(0), I(q->tiles), LIR_FOR_SERIAL, SEQ(sum, stores));
  lir_stmt *blk = lir_alloc_stmt(F, acc, tiles);
  if (wb) blk = lir_alloc_stmt(F, wb, SEQ(wb_fill(l, wb, W, m0, mt, R), blk)); /* wb[i, r] = W[m0 + i, r] in f32, then the tiles */
  if (iacc) blk = lir_alloc_stmt(F, iacc, blk);
  lir_stmt *blocks = lir_for(F, mb, I(0), I(nb * tg), LIR_FOR_PARALLEL, blk); /* (tile group, block) */
  lir_stmt *img = lir_for(F, n, I(0), I(q->N), LIR_FOR_SERIAL, SEQ(pad_copy(l, q, X, XP, Nv), blocks));
  F->body = lir_alloc_stmt(F, XP, lir_alloc_stmt(F, off, SEQ(offs, img)));
  return 0;
}

/* Where a pointwise conv's tiles are (pw_part): whether X / Y are half-major (cpu.h: viewed 1-D,
 * each part of every channel contiguous), their layouts, and the parts holding the tile. */
typedef struct pw_at {
  int64_t HW;    /* positions per channel */
  hm_lay lx, ly; /* X's and Y's layouts (when half-major) */
  bool hx, hy;   /* X, Y half-major */
  int64_t xk, yk; /* the part of X the tile reads, the part of Y it writes */
  bool wt;        /* W is the block's weights transposed, [C, mt] (wt_fill) */
} pw_at;

/* One pointwise tile: acc[i][j] = sum_c f32(X[n, c, p0 + j]) * W[wm + i, c] (fmuladd, c from 0)
 * for i < mt, j < wd, then Y[n, m0 + i, p0 + j] = post(acc[i][j] in acc_t), one vectorized
 * segment per i. W: the conv's weights (wm = m0), or an 8-bit block converted to f32 (wm = 0).
 * X and Y as `at` says (half-major: the element of part xk / yk). */
static lir_stmt *pw_tile(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, const post *p, lir_dtype acc_t,
                         int64_t mt, int64_t C, lir_expr *n, lir_expr *m0, lir_expr *wm, lir_expr *p0, int64_t wd, lir_buf *XF,
                         const pw_at *at) {
  lir_buf *acc = lir_buf_new(F, "acc", LIR_F32, 2, (int64_t[]){mt, TILE_W}, LIR_SCOPE_LOCAL);
  lir_var *c = lir_var_new(F, "c", LIR_I64), *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_var *wv = lir_var_new(F, "wv", LIR_F32), *i1 = lir_var_new(F, "i", LIR_I64), *j1 = lir_var_new(F, "j", LIR_I64);
  lir_expr *Cv = lir_ref(F, c), *ai[2] = {lir_ref(F, i), lir_ref(F, j)}, *si[2] = {lir_ref(F, i1), lir_ref(F, j1)};
  lir_expr *xp = lir_add(F, p0, ai[1]);
  lir_expr *x = XF ? lir_load(F, XF, (lir_expr *[]){Cv, xp})
                   : as_type(l, LIR_F32, at->hx ? lir_load1(F, X, hm_el(l, &at->lx, I(at->xk), n, Cv, xp))
                                                : lir_load(F, X, (lir_expr *[]){n, Cv, xp}));
  lir_expr *fma = lir_call(F, LIR_FMULADD, LIR_F32, 3, (lir_expr *[]){x, lir_ref(F, wv), lir_load(F, acc, ai)});
  lir_stmt *jl = lir_for(F, j, I(0), I(wd), LIR_FOR_VECTORIZED, lir_store(F, acc, ai, fma));
  lir_expr *wi[2] = {at->wt ? Cv : lir_add(F, wm, ai[0]), at->wt ? ai[0] : Cv};
  lir_stmt *il = lir_for(F, i, I(0), I(mt), LIR_FOR_UNROLLED, lir_let(F, wv, lir_load(F, W, wi), jl));
  lir_expr *m = lir_add(F, m0, si[0]), *yp = lir_add(F, p0, si[1]);
  lir_expr *yi[3] = {n, m, yp}, *yh[1] = {at->hy ? hm_el(l, &at->ly, I(at->yk), n, m, yp) : NULL};
  lir_stmt *st = lir_for(F, i1, I(0), I(mt), LIR_FOR_SERIAL, lir_for(F, j1, I(0), I(wd), LIR_FOR_VECTORIZED,
      cpu_post_store(l, p, Y, at->hy ? yh : yi, m, as_type(l, acc_t, lir_load(F, acc, si)))));
  return lir_alloc_stmt(F, acc, SEQ(tile_zero(l, acc, mt), lir_for(F, c, I(0), I(C), LIR_FOR_SERIAL, il), st));
}

/* One part of a pointwise conv's positions: its segments seg[k] = {first position, length, the
 * part of X read}, each in full tiles of TILE_W then one tile of its len % TILE_W last ones,
 * the tiles numbered in order across the segments; subgroup sub (known at run time, ts tiles
 * each) runs tiles [sub*ts, sub*ts + ts), NULL: all. */
static lir_stmt *pw_part(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, const post *p, lir_dtype acc_t, int64_t mt,
                         int64_t C, lir_expr *n, lir_expr *m0, lir_expr *wm, lir_buf *XF, int nseg, const int64_t (*seg)[3],
                         lir_expr *sub, int64_t ts, pw_at at) {
  lir_block blk;
  lir_block_init(&blk, F);
  for (int64_t k = 0, tg = 0; k < nseg; k++) { /* tg: the segment's first tile number */
    int64_t pb = seg[k][0], full = seg[k][1] / TILE_W, rest = seg[k][1] % TILE_W;
    at.xk = seg[k][2];
    lir_var *t = lir_var_new(F, "t", LIR_I64);
    lir_stmt *tile = pw_tile(l, X, W, Y, p, acc_t, mt, C, n, m0, wm, lir_addi(F, lir_muli(F, lir_ref(F, t), TILE_W), pb), TILE_W, XF, &at);
    /* the segment's tiles u in [0, full) numbered tg + u: those of [sub*ts, sub*ts + ts) */
    lir_expr *lo = NULL, *cnt = I(full);
    if (sub && !tg) lo = lir_muli(F, sub, ts), cnt = lir_min(F, I(ts), lir_sub(F, I(full), lir_min(F, lo, I(full))));
    else if (sub) {
      lo = lir_min(F, lir_max(F, lir_addi(F, lir_muli(F, sub, ts), -tg), I(0)), I(full));
      cnt = lir_max(F, I(0), lir_sub(F, lir_min(F, I(full), lir_addi(F, lir_muli(F, sub, ts), ts - tg)), lo));
    }
    if (full) lir_block_add(&blk, lir_for(F, t, lo ? lo : I(0), cnt, LIR_FOR_SERIAL, tile));
    if (rest) { /* in the subgroup holding it */
      lir_stmt *tail = pw_tile(l, X, W, Y, p, acc_t, mt, C, n, m0, wm, I(pb + full * TILE_W), rest, XF, &at);
      lir_block_add(&blk, sub ? lir_if(F, lir_bin(F, LIR_EQ, sub, I((tg + full) / ts)), tail, NULL) : tail);
    }
    tg += full + (rest > 0);
  }
  return lir_block_stmt(&blk);
}

/* The segments of part k (of np) of a pointwise conv's positions (pw_part): its positions (all,
 * or Y's part: [0, h1) / [h1, HW), with halo rows [0, e0) / [s1, HW)), cut where the part of
 * half-major X holding them changes (X's own part k first); returns their count and sets *tiles
 * to the part's number of tiles. */
static int pw_segments(const pw_at *at, int64_t np, int64_t k, int64_t (*seg)[3], int64_t *tiles) {
  int64_t a = np > 1 && k ? at->ly.s1 : 0, b = np > 1 && !k ? at->ly.e0 : at->HW;
  int64_t xa = at->hx && k ? at->lx.s1 : 0, xb = at->hx && !k ? at->lx.e0 : at->HW; /* X's part k */
  int ns = 0;
  if (a < xa) seg[ns][0] = a, seg[ns][1] = xa - a, seg[ns++][2] = 0;       /* before X's part 1: from part 0 */
  int64_t ma = a > xa ? a : xa, mb = b < xb ? b : xb;
  if (mb > ma) seg[ns][0] = ma, seg[ns][1] = mb - ma, seg[ns++][2] = k;   /* X's own part */
  if (b > xb) seg[ns][0] = xb, seg[ns][1] = b - xb, seg[ns++][2] = 1;      /* past X's part 0: from part 1 */
  *tiles = 0;
  for (int i = 0; i < ns; i++) *tiles += (seg[i][1] + TILE_W - 1) / TILE_W;
  return ns;
}

/* Pointwise convs (1x1, stride 1, no padding, one group): Y[n, m, p] = sum_c X[n, c, p] *
 * W[m, c] over the flat positions p < HW = OH*OW, read from X where it is (every position is an
 * output and none is padding, so no copy): in parallel over blocks of mt output channels, the
 * register tiles of mt x TILE_W positions, then one tile of the HW % TILE_W last ones. Maps split
 * in row halves (cpu_row_half) are two parts, split there rounded down to whole tiles, each
 * tiled so (a tile never crosses the split): the
 * parallel loop over (half, subgroup of tiles, block) half-major, as the depthwise convs and
 * elementwise nests before and after (MobileNetV2's 28x28 and 14x14 stages: the pointwise
 * split over tiles fell at another position than the depthwise one over rows). 8-bit X and W
 * (i32 acc_t, C at most one exact chunk, see tile_sum): X converted to f32 once per image, the
 * block's W rows converted to f32 first (wb, unless given as f32), the exact f32 sum converted
 * to i32. */
static int conv_pointwise(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, lir_dtype acc_t, const geom *q, const post *p) {
  bool i8 = acc_t == LIR_I32, conv_w = i8 && W->dtype != LIR_F32; /* 8-bit: each block converts its W rows (unless W is f32) */
  int64_t HW = q->OH * q->OW, mt = tile_m(l, q->M, true);
  int64_t full = HW / TILE_W, rest = HW % TILE_W;
  view(X, 3, (int64_t[]){q->N, q->C, HW});
  view(Y, 3, (int64_t[]){q->N, q->M, HW});
  view(W, 2, (int64_t[]){q->M, q->C});
  int64_t nb = q->M / mt, nt = full + (rest > 0), tg8 = tile_groups(nb, nt, PAR_MIN_I8);
  if (i8 && !conv_w && (nt + tg8 - 1) / tg8 > F32W_TILES) return cpu_no_f32w(l); /* converting pays little here */
  /* parts: [0, h1) and [h1, HW) or one; h1 the row halves' split rounded down to whole tiles
   * (a tail tile in each half cost 8% at 14x14: 98 = 3 x 32 + 2; 96 is 2 positions off the
   * depthwise conv's split); per part sg subgroups of ts tiles */
  _Static_assert(TILE_W == CPU_SPLIT_ALIGN, "the parts of the pointwise convs are whole tiles");
  int64_t h1 = cpu_pos_half(q->OH, q->OW);
  int64_t np = h1 ? 2 : 1;
  /* half-major X / Y (cpu.h): float convs split in two parts, the node's own tensors; with halo
   * rows too (Y: each part computes the rows of the other part next to the split again) */
  bool hm_ok = !i8 && h1 > 0 && X == l->in[0] && Y == l->out[0];
  l->can_in |= hm_ok ? 1u : 0u, l->can_out |= hm_ok ? 1u : 0u;
  l->can_halo_in |= hm_ok ? 1u : 0u, l->can_halo_out |= hm_ok ? 1u : 0u;
  pw_at at = {HW, {q->C, HW, h1, h1}, {q->M, HW, h1, h1}, hm_ok && (l->hm_in & 1), hm_ok && (l->hm_out & 1), 0, 0, false};
  if (at.hx) at.lx = hm_layout(q->C, q->OH, q->OW, l->halo_in & 1), view_hm(X, &at.lx);
  if (at.hy) at.ly = hm_layout(q->M, q->OH, q->OW, l->halo_out & 1), view_hm(Y, &at.ly);
  int64_t seg[2][3][3], ns[2], nt2[2] = {0, 0};
  for (int64_t k = 0; k < np; k++) ns[k] = pw_segments(&at, np, k, seg[k], &nt2[k]);
  int64_t ntp = imax(nt2[0], nt2[1]); /* tiles of the larger part */
  /* a tail tile whose width is no multiple of 4 left a scalar column per row, which LLVM 15
   * vectorized across the mt rows, gathering their weights (stride C): 8-bit MobileNetV2's 7x7
   * projections (tails of 17) ran 1.23x their fp32 time. Then each block copies its weights
   * transposed (wt_fill) and the tiles read the mt weights of a channel from one place: 8-bit
   * convs always, float ones (which LLVM did not gather) when C <= WT_C_MAX (on Zen 4, 1 thread:
   * the 7x7 expansions 160 -> 960 207-225 -> 168-170 us, but the projections 960 -> 160
   * 176 -> 196 us). */
  bool odd_tail = false;
  for (int64_t k = 0; k < np; k++)
    for (int64_t i = 0; i < ns[k]; i++) odd_tail |= seg[k][i][1] % TILE_W % 4 != 0;
  at.wt = odd_tail && (i8 || q->C <= WT_C_MAX);
  int64_t sg = tile_groups(nb * np, ntp, PAR_MIN), ts = (ntp + sg - 1) / sg;
  sg = (ntp + ts - 1) / ts;
  lir_var *n = lir_var_new(F, "n", LIR_I64), *mb = lir_var_new(F, "mb", LIR_I64);
  lir_expr *Nv = lir_ref(F, n), *MB = lir_ref(F, mb);
  lir_expr *m0 = lir_muli(F, np * sg == 1 ? MB : nb > 1 ? lir_bin(F, LIR_MOD, MB, I(nb)) : I(0), mt); /* group-major */
  lir_expr *g = np * sg > 1 ? (nb > 1 ? lir_bin(F, LIR_DIV, MB, I(nb)) : MB) : NULL; /* (part, subgroup) */
  lir_expr *sub = sg > 1 ? (np > 1 ? lir_bin(F, LIR_MOD, g, I(sg)) : g) : NULL;
  lir_buf *wb = at.wt    ? lir_buf_new(F, "wt", LIR_F32, 2, (int64_t[]){q->C, mt}, LIR_SCOPE_LOCAL)
               : conv_w ? lir_buf_new(F, "wb", LIR_F32, 2, (int64_t[]){mt, q->C}, LIR_SCOPE_LOCAL) : W;
  lir_expr *wm = conv_w || at.wt ? I(0) : m0;
  /* 8-bit X: converted to f32 once per image (XF [C, HW]), not by every block as it reads it
   * (MobileNetV2's int8 pointwise convs ran 1.1-1.6x the fp32 time); in parallel when large,
   * over (half, channel) when split like the tiles */
  lir_buf *XF = i8 ? lir_buf_new(F, "xf", LIR_F32, 2, (int64_t[]){q->C, HW}, LIR_SCOPE_LOCAL) : NULL;
  lir_stmt *xfill = NULL;
  if (XF) {
    lir_var *c = lir_var_new(F, "c", LIR_I64), *k = lir_var_new(F, "k", LIR_I64), *hc = lir_var_new(F, "hc", LIR_I64);
    lir_expr *xi[2] = {lir_ref(F, c), lir_ref(F, k)};
    bool par = q->C * HW >= 32768 && q->C >= 8, split = par && np > 1;
    lir_expr *half = split ? lir_bin(F, LIR_DIV, lir_ref(F, hc), I(q->C)) : NULL; /* half 0: [0, h1), 1: [h1, HW) */
    lir_expr *k0 = split ? lir_muli(F, half, h1) : I(0), *kn = split ? lir_addi(F, lir_muli(F, half, HW - 2 * h1), h1) : I(HW);
    lir_stmt *conv = lir_for(F, k, k0, kn, LIR_FOR_VECTORIZED,
                             lir_store(F, XF, xi, as_type(l, LIR_F32, lir_load(F, X, (lir_expr *[]){Nv, xi[0], xi[1]}))));
    xfill = split ? lir_for(F, hc, I(0), I(2 * q->C), LIR_FOR_PARALLEL, lir_let(F, c, lir_bin(F, LIR_MOD, lir_ref(F, hc), I(q->C)), conv))
                  : lir_for(F, c, I(0), I(q->C), par ? LIR_FOR_PARALLEL : LIR_FOR_SERIAL, conv);
  }
  lir_stmt *body = pw_part(l, X, wb, Y, p, acc_t, mt, q->C, Nv, m0, wm, XF, (int)ns[0], seg[0], sub, ts, at);
  if (np > 1) {
    lir_expr *k = sg > 1 ? lir_bin(F, LIR_DIV, g, I(sg)) : g;
    at.yk = 1;
    body = lir_if(F, lir_bin(F, LIR_EQ, k, I(0)), body, pw_part(l, X, wb, Y, p, acc_t, mt, q->C, Nv, m0, wm, XF, (int)ns[1], seg[1], sub, ts, at));
  }
  lir_stmt *blk = body;
  if (at.wt) blk = lir_alloc_stmt(F, wb, SEQ(wt_fill(l, wb, W, m0, mt, q->C), blk));
  else if (conv_w) blk = lir_alloc_stmt(F, wb, SEQ(wb_fill(l, wb, W, m0, mt, q->C), blk));
  lir_stmt *blocks = lir_for(F, mb, I(0), I(nb * np * sg), LIR_FOR_PARALLEL, blk);
  F->body = XF ? lir_alloc_stmt(F, XF, lir_for(F, n, I(0), I(q->N), LIR_FOR_SERIAL, SEQ(xfill, blocks)))
               : lir_for(F, n, I(0), I(q->N), LIR_FOR_SERIAL, blocks);
  return 0;
}

/* The flat-form depthwise conv's split of each output plane into its two groups, or 0 (the row
 * halves): the pointwise convs' (cpu_pos_half) when it falls on a line (cpu_pos_split) and the
 * groups' flat positions rounded out to whole vectors stay inside XP and their windows (group 1
 * reads no row above the cut one). The isolated 28x28 conv (192 channels) on two threads: 47-49
 * -> 36-46 us (one thread as before); a C model of its loop: 1.41x faster on two threads split
 * mid-line, 1.89x when each thread writes its own lines, 1.95x split by channel. */
static int64_t dw_split(const geom *q, const lir_buf *Y, bool hm) {
  int64_t HW = q->OH * q->OW, s = cpu_pos_half(q->OH, q->OW), eb = lir_dtype_bytes(Y->dtype);
  int64_t fl16 = (q->OH * q->PWs + 15) / 16 * 16, last = 0; /* the last XP element read (whole vectors) */
  for (int64_t t = 0; t < q->KH * q->KW; t++) {
    int64_t ty = (t / q->KW) * q->dh, tx = (t % q->KW) * q->dw;
    int64_t off = ((ty % q->sh) * q->sw + tx % q->sw) * q->plane + (ty / q->sh) * q->PWs + tx / q->sw;
    last = off > last ? off : last;
  }
  last += fl16 - 1;
  int64_t sc = s % q->OW, sj = s / q->OW * q->PWs + sc; /* group 1 starts at sj rounded down to a vector */
  /* group 0's last vector reads inside its window (the cut row and the next), group 1 no row above the cut one */
  bool win = hm ? (sj + 15) / 16 * 16 - 1 + (q->KW - 1) * q->dw / q->sw < (sj / q->PWs + 2) * q->PWs : q->OW + 16 + q->KW <= 2 * q->PWs;
  bool fits = last < q->sh * q->sw * q->plane + q->PWs && win && sc >= sj % 16;
  /* half-major Y (hm): each group writes its own part, no line shared whatever the split */
  return fits && (hm ? s > 0 && s < HW : cpu_pos_split(s, cpu_row_half(q->OH) * q->OW, HW, eb)) ? s : 0;
}

/* Depthwise (G = C = M, one input channel per output channel): in parallel over channels, the
 * channel's phase planes (geom) in a local f32 buffer XP (8-bit X converted: their products and
 * sums over the at most DW_TAPS taps are exact integers in f32, so the i32 sum is the same),
 * then each output is one fmuladd chain over the taps (kh, kw) in order from 0, with the tap
 * weights held in registers (lets) and the tap offsets constants: along each output row,
 * vectorized over ow, for rows of DW_ROW_MIN outputs or more (but those shorter than 2 DW_ROW_MIN
 * and not a multiple of it: a row of 28 is one vector and a scalar remainder of 12, 28x28 maps
 * ran 15-20% faster flat); else over the flat plane positions
 * p = oh*PWs + ow into a local buffer (columns ow >= OW computed and dropped by the stores). */
/* Y's index of output (n, c, oh, ow) of group G: plain [N, C, OH, OW], or half-major split at h1
 * (G's part; Y viewed 1-D). */
static lir_expr **dw_yi(L *l, const geom *q, int64_t h1, lir_expr *G, lir_expr *n, lir_expr *c, lir_expr *oh, lir_expr *ow,
                        lir_expr **yi) {
  yi[0] = n, yi[1] = c, yi[2] = oh, yi[3] = ow;
  if (!h1) return yi;
  hm_lay m = hm_layout(q->M, q->OH, q->OW, false);
  yi[0] = hm_el(l, &m, G, n, c, lir_add(F, lir_muli(F, oh, q->OW), ow));
  return yi;
}

/* Whether, X half-major with halo rows (cpu.h), each group's kept outputs read only rows of its
 * own part: group 0's output rows [0, b0], group 1's [a1, OH), for the flat form split at S
 * (row sr = S / OW in both when cut) or the row groups of rg rows (S = 0). */
static bool dw_halo_covers(const geom *q, int64_t S, int64_t rg) {
  hm_lay m = hm_layout(q->C, q->IH, q->IW, true);
  int64_t b0 = S ? S / q->OW - (S % q->OW == 0) : rg - 1, a1 = S ? S / q->OW : rg, r0, r1;
  int64_t hi0 = imax(b0 * q->sh - q->pt + (q->KH - 1) * q->dh, 0), lo1 = imax(a1 * q->sh - q->pt, 0);
  hm_rows(&m, q->IW, &r0, &r1);
  return (hi0 < q->IH ? hi0 : q->IH - 1) < r0 && lo1 >= r1;
}

#define DW_TAPS 64    /* at most this many taps (KH*KW) on this schedule */
#define DW_ROW_MIN 16 /* outputs per row for the row form */
static int conv_depthwise(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, lir_dtype acc_t, const geom *q, const post *p) {
  int64_t T = q->KH * q->KW, cplane = q->sh * q->sw * q->plane, xl = cplane + q->PWs, fl = q->OH * q->PWs;
  /* row groups: the parallel loop over (group, channel), group-major, each iteration copying
   * only the plane rows its outputs read (the pool gives each thread the same slice of
   * iterations in every loop: the rows of a thread's group are those it wrote in the conv
   * before, and those the next conv's tiles read on the same thread) */
  int64_t rg = cpu_row_half(q->OH) ? cpu_row_half(q->OH) : q->OH, ng = (q->OH + rg - 1) / rg; /* halves (cpu_internal.h) */
  bool flat = q->OW < DW_ROW_MIN || (q->OW < 2 * DW_ROW_MIN && q->OW % DW_ROW_MIN != 0);
  lir_buf *XP = lir_buf_new(F, "xp", LIR_F32, 1, &xl, LIR_SCOPE_LOCAL);
  /* flat: the sums in a local row buffer (f32), or for 8-bit convs their outputs (the
   * requantization vectorized over the flat positions, not per output row of 7-28: int8
   * MobileNetV2's depthwise convs ran 1.4-2.2x their fp32 time) */
  bool q8 = acc_t != LIR_F32;
  int64_t S = flat && cpu_row_half(q->OH) ? dw_split(q, Y, false) : 0;
  /* half-major (cpu.h) Y: float, when its groups are the parts (flat: split there, dw_split);
   * X: float (row_copies_hm) */
  int64_t hy = cpu_pos_half(q->OH, q->OW), hx = cpu_pos_half(q->IH, q->IW);
  int64_t Sh = flat && hy ? dw_split(q, Y, true) : 0;
  bool y_ok = !q8 && Y == l->out[0] && hy > 0 && ng > 1 && (flat && Sh ? Sh == hy : rg * q->OW == hy);
  bool x_ok = !q8 && X == l->in[0] && hx > 0;
  /* X with halo rows (cpu.h): in groups (the row halves), each one's kept outputs reading only
   * rows of its own part, Y half-major or not (the depthwise 3x3 convs of 8 rows or more) */
  bool halo_ok = x_ok && ng > 1 && dw_halo_covers(q, S, rg) && (!y_ok || dw_halo_covers(q, flat ? Sh : 0, rg));
  l->can_in |= x_ok ? 1u : 0u, l->can_out |= y_ok ? 1u : 0u;
  l->can_halo_in |= halo_ok ? 1u : 0u, l->gain_halo_in |= halo_ok ? 1u : 0u;
  hy = y_ok && (l->hm_out & 1) ? hy : 0, hx = x_ok && (l->hm_in & 1) ? hx : 0;
  bool xh = hx && halo_ok && (l->halo_in & 1);
  hm_lay xly = hm_layout(q->C, q->IH, q->IW, xh);
  if (hy) S = Sh, view1(Y);
  if (hx) view_hm(X, &xly);
  int64_t sr = S / q->OW, sc = S % q->OW, sj = sr * q->PWs + sc;
  int64_t fl16 = S ? (fl + 15) / 16 * 16 : fl; /* split: each group's positions in whole vectors */
  lir_buf *row = flat ? lir_buf_new(F, "row", q8 ? Y->dtype : LIR_F32, 1, &fl16, LIR_SCOPE_LOCAL) : NULL;
  lir_var *n = lir_var_new(F, "n", LIR_I64), *c = lir_var_new(F, "c", LIR_I64), *oh = lir_var_new(F, "oh", LIR_I64);
  lir_var *j = lir_var_new(F, "j", LIR_I64), *wv[DW_TAPS];
  lir_expr *Nv = lir_ref(F, n), *Cv = lir_ref(F, c), *OH = lir_ref(F, oh), *J = lir_ref(F, j);
  lir_var *gc = lir_var_new(F, "gc", LIR_I64), *o0 = lir_var_new(F, "o0", LIR_I64); /* (group, channel); the group's first row */
  lir_var *gv = lir_var_new(F, "g", LIR_I64);
  lir_expr *G = lir_ref(F, gv), *yi[4];
  /* flat form in two groups: split the outputs at the pointwise convs' position when that puts
   * every cache line of Y in one group (dw_split), else at the row halves */
  lir_expr *O0 = ng > 1 ? lir_ref(F, o0) : I(0), *ON = ng > 1 ? lir_min(F, I(rg), lir_sub(F, I(q->OH), O0)) : I(q->OH);
  if (S) /* group 0: rows [0, sr] (row sr up to column sc), group 1: rows [sr, OH) (row sr from column sc) */
    ON = lir_addi(F, lir_muli(F, G, q->OH - 2 * sr - (sc > 0)), sr + (sc > 0));
  view1(W);
  /* the chain at plane position P: s = fmuladd(XP[P + off(t)], w_t, s), t = kh*KW + kw */
  lir_expr *P = flat ? J : lir_add(F, lir_muli(F, OH, q->PWs), J), *sum = lir_f32(F, 0);
  for (int64_t t = 0; t < T; t++) {
    int64_t ty = (t / q->KW) * q->dh, tx = (t % q->KW) * q->dw;
    int64_t off = ((ty % q->sh) * q->sw + tx % q->sw) * q->plane + (ty / q->sh) * q->PWs + tx / q->sw;
    wv[t] = lir_var_new(F, "wv", LIR_F32);
    sum = lir_call(F, LIR_FMULADD, LIR_F32, 3, (lir_expr *[]){lir_load1(F, XP, lir_addi(F, P, off)), lir_ref(F, wv[t]), sum});
  }
  lir_stmt *body;
  if (!flat) {
    body = lir_for(F, oh, O0, ON, LIR_FOR_SERIAL, lir_for(F, j, I(0), I(q->OW), LIR_FOR_VECTORIZED,
        cpu_post_store(l, p, Y, dw_yi(l, q, hy, G, Nv, Cv, OH, J, yi), Cv, as_type(l, acc_t, sum))));
  } else {
    lir_var *ow = lir_var_new(F, "ow", LIR_I64);
    lir_expr *OW = lir_ref(F, ow), *v = lir_load1(F, row, lir_add(F, lir_muli(F, OH, q->PWs), OW));
    lir_stmt *fill = q8 ? cpu_post_store(l, p, row, (lir_expr *[]){J}, Cv, as_type(l, acc_t, sum)) : lir_store1(F, row, J, sum);
    lir_stmt *st = q8 ? lir_store(F, Y, (lir_expr *[]){Nv, Cv, OH, OW}, v)
                      : cpu_post_store(l, p, Y, dw_yi(l, q, hy, G, Nv, Cv, OH, OW, yi), Cv, as_type(l, acc_t, v));
    if (!S) {
      body = SEQ(lir_for(F, j, lir_muli(F, O0, q->PWs), lir_muli(F, ON, q->PWs), LIR_FOR_VECTORIZED, fill),
                 lir_for(F, oh, O0, ON, LIR_FOR_SERIAL, lir_for(F, ow, I(0), I(q->OW), LIR_FOR_VECTORIZED, st)));
    } else { /* group g's flat positions in whole vectors (those past the split computed and
              * dropped), its whole rows, then its part of row sr (constant bounds per group) */
      int64_t j1 = sj / 16 * 16, e0 = (sj + 15) / 16 * 16, e1 = (fl - j1 + 15) / 16 * 16;
      lir_stmt *part[2];
      for (int g = 0; g < 2; g++) {
        lir_var *ow2 = lir_var_new(F, "ow", LIR_I64);
        lir_expr *v2 = lir_load1(F, row, lir_addi(F, lir_ref(F, ow2), sr * q->PWs));
        lir_stmt *st2 = q8 ? lir_store(F, Y, (lir_expr *[]){Nv, Cv, I(sr), lir_ref(F, ow2)}, v2)
                           : cpu_post_store(l, p, Y, dw_yi(l, q, hy, I(g), Nv, Cv, I(sr), lir_ref(F, ow2), yi), Cv, as_type(l, acc_t, v2));
        int64_t c0 = g ? sc : 0, c1 = g ? q->OW : sc;
        part[g] = c1 > c0 ? lir_for(F, ow2, I(c0), I(c1 - c0), LIR_FOR_VECTORIZED, st2) : lir_seq(F, 0, NULL);
      }
      body = SEQ(lir_for(F, j, lir_muli(F, G, j1), lir_addi(F, lir_muli(F, G, e1 - e0), e0), LIR_FOR_VECTORIZED, fill),
                 lir_for(F, oh, lir_muli(F, G, sr + 1), lir_addi(F, lir_muli(F, G, q->OH - 2 * sr - 1), sr), LIR_FOR_SERIAL,
                         lir_for(F, ow, I(0), I(q->OW), LIR_FOR_VECTORIZED, st)),
                 lir_if(F, lir_bin(F, LIR_EQ, G, I(0)), part[0], part[1]));
    }
  }
  for (int64_t t = T - 1; t >= 0; t--)
    body = lir_let(F, wv[t], as_type(l, LIR_F32, lir_load1(F, W, lir_addi(F, lir_muli(F, Cv, T), t))), body);
  /* a group's window of plane rows: its outputs' taps (and, flat, the next row, which the dropped
   * columns of its last row read) */
  lir_expr *whi = ng > 1 ? lir_min(F, I(q->PHs), lir_add(F, O0, lir_addi(F, ON, (q->KH - 1) * q->dh / q->sh + flat))) : NULL;
  dw_src xs = {hx, xly, xh, G};
  lir_stmt *chan = SEQ(chan_copy(l, q, X, XP, Nv, Cv, I(0), ng > 1 ? O0 : NULL, whi, hx ? &xs : NULL), zeros(l, XP, I(cplane), q->PWs), body);
  if (row) chan = lir_alloc_stmt(F, row, chan);
  chan = lir_alloc_stmt(F, XP, chan);
  lir_stmt *par = ng > 1 ? lir_for(F, gc, I(0), I(ng * q->C), LIR_FOR_PARALLEL,
                                   lir_let(F, c, lir_bin(F, LIR_MOD, lir_ref(F, gc), I(q->C)),
                                           lir_let(F, gv, lir_bin(F, LIR_DIV, lir_ref(F, gc), I(q->C)),
                                                   lir_let(F, o0, lir_muli(F, G, S ? sr : rg), chan))))
                         : lir_for(F, c, I(0), I(q->C), LIR_FOR_PARALLEL, chan);
  F->body = lir_for(F, n, I(0), I(q->N), LIR_FOR_SERIAL, par);
  return 0;
}

/* Float convs (f32 accumulators), and integer convs of 8-bit X and W without zero points (i32
 * accumulators: wrapping sums, the same whatever their order). */
int cpu_conv_fast(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, const convp *c, int64_t G, lir_dtype acc_t, const post *p) {
  /* wdt: W's element type; lir_lower_node_f32w passes 8-bit weights (input 1) as f32 */
  bool f32w = l->w8 != LIR_VOID && W == l->in[1];
  lir_dtype wdt = f32w ? l->w8 : W->dtype;
  bool f32 = acc_t == LIR_F32 && X->dtype == LIR_F32 && W->dtype == LIR_F32 && Y->dtype == LIR_F32;
  bool i8 = acc_t == LIR_I32 && (X->dtype == LIR_I8 || X->dtype == LIR_U8) && (wdt == LIR_I8 || wdt == LIR_U8);
  /* row_copy: at most 8 column phases; chan_copy builds all sh x sw phase planes of every channel,
   * unrolled per row phase: a stride far past the kernel (a fuzzed 3x3 conv with stride 62 x 7 made
   * 1,360 loops and 12 s of LLVM time) goes to the generic schedule */
  if (c->k != 2 || (!f32 && !i8) || c->stride[0] > 8 || c->stride[1] > 8) return 1;
  geom q;
  geom_of(X, W, Y, c, G, &q);
  if (G == q.C && q.Cg == 1 && q.M == q.C && q.KH * q.KW <= DW_TAPS)
    return f32w ? cpu_no_f32w(l) : conv_depthwise(l, X, W, Y, acc_t, &q, p); /* its weights: per channel, in registers */
  if (q.Cg * q.KH * q.KW < 4) return 1; /* too little to sum per output: the generic schedule */
  int64_t mx = X->dtype == LIR_U8 ? 255 : 128, mw = wdt == LIR_U8 ? 255 : 128; /* 8-bit: exact in one chunk */
  if ((f32 || q.C <= ((int64_t)1 << 24) / (mx * mw)) && G == 1 && q.KH == 1 && q.KW == 1 && q.sh == 1 && q.sw == 1 &&
      q.pt == 0 && q.pl == 0 && q.OH == q.IH && q.OW == q.IW)
    return conv_pointwise(l, X, W, Y, acc_t, &q, p);
  return conv_tiled(l, X, W, Y, acc_t, &q, p, wdt);
}
