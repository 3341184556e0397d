/* sample.c: sampling at computed coordinates: GridSample, RoiAlign. Coordinates and weights in
 * double; every read index is clamped into X (the padding rules decide the value first). */

#include "cpu_internal.h"

static lir_expr *f64(L *l, double v) { return lir_float(F, LIR_F64, v); }
static lir_expr *dbin(L *l, lir_binop op, lir_expr *a, lir_expr *b) { return lir_bin(F, op, a, b); }
static lir_expr *to64(L *l, lir_expr *e) { return as_type(l, LIR_F64, e); }
#define FAR 1e9 /* coordinates beyond +-FAR (and NaN) become -FAR: far outside X, safe to convert */
/* v, or -FAR when NaN or beyond +-FAR (so every index made from it is defined and clamped). */
static lir_expr *tame(L *l, lir_expr *v) {
  lir_expr *ok = lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, v, f64(l, -FAR)), lir_bin(F, LIR_LE, v, f64(l, FAR)));
  return lir_select(F, ok, v, f64(l, -FAR));
}

/* A list of lets wrapped around a body, innermost last. */
typedef struct lets {
  int n;                /* lets so far */
  lir_var *v[48];       /* their variables */
  lir_expr *val[48];    /* and values */
} lets;
/* let name = e (of e's dtype); its reference. */
static lir_expr *let(L *l, lets *s, const char *name, lir_expr *e) {
  lir_var *v = lir_var_new(F, name, e->dtype);
  s->v[s->n] = v, s->val[s->n++] = e;
  return lir_ref(F, v);
}
static lir_stmt *wrap(L *l, const lets *s, lir_stmt *body) {
  for (int i = s->n - 1; i >= 0; i--) body = lir_let(F, s->v[i], s->val[i], body);
  return body;
}

/* GridSample's reflection of coordinate x (a variable) into [lo, hi]: reflected at the border
 * it crosses until inside: d = distance past the border, k = floor(d / (hi - lo)),
 * r = d - k (hi - lo); below lo: k even ? lo + r : hi - r; above hi: k even ? hi - r : lo + r. */
static lir_expr *reflect(L *l, lir_expr *x, double lo, double hi) {
  double rng = hi - lo;
  if (rng <= 0) return f64(l, lo);
  lir_expr *d[2] = {dbin(l, LIR_SUB, f64(l, lo), x), dbin(l, LIR_SUB, x, f64(l, hi))}, *res[2];
  for (int s = 0; s < 2; s++) {
    lir_expr *k = lir_call1(F, LIR_FLOOR, dbin(l, LIR_DIV, d[s], f64(l, rng)));
    lir_expr *r = dbin(l, LIR_SUB, d[s], dbin(l, LIR_MUL, k, f64(l, rng)));
    lir_expr *even = lir_bin(F, LIR_EQ, lir_bin(F, LIR_AND, lir_cast(F, LIR_I64, k), I(1)), I(0));
    lir_expr *near = s == 0 ? dbin(l, LIR_ADD, f64(l, lo), r) : dbin(l, LIR_SUB, f64(l, hi), r);
    lir_expr *far = s == 0 ? dbin(l, LIR_SUB, f64(l, hi), r) : dbin(l, LIR_ADD, f64(l, lo), r);
    res[s] = lir_select(F, even, near, far);
  }
  return lir_select(F, lir_bin(F, LIR_LT, x, f64(l, lo)), res[0], lir_select(F, lir_bin(F, LIR_GT, x, f64(l, hi)), res[1], x));
}

/* What GridSample needs at every tap. */
typedef struct gs {
  lir_buf *X;              /* the input */
  lir_expr *n, *c;         /* batch and channel of the output element */
  int pad;                 /* 0 zeros, 1 border, 2 reflection */
  double lo[2], hi[2];     /* the reflection borders (x, y) */
} gs;

/* X[n, c, y, x] at integer coordinates with the padding rule: zeros: 0 outside; border: the
 * clamped pixel; reflection: the coordinate reflected into the borders, truncated. As f64. */
static lir_expr *gs_pixel(L *l, const gs *g, lir_expr *y, lir_expr *x) {
  int64_t H = g->X->shape[2], W = g->X->shape[3];
  lir_expr *inb = NULL;
  if (g->pad == 0)
    inb = band(l, band(l, lir_bin(F, LIR_GE, x, I(0)), lir_bin(F, LIR_LT, x, I(W))),
               band(l, lir_bin(F, LIR_GE, y, I(0)), lir_bin(F, LIR_LT, y, I(H))));
  if (g->pad == 2) {
    x = lir_cast(F, LIR_I64, reflect(l, lir_cast(F, LIR_F64, x), g->lo[0], g->hi[0]));
    y = lir_cast(F, LIR_I64, reflect(l, lir_cast(F, LIR_F64, y), g->lo[1], g->hi[1]));
  }
  lir_expr *v = to64(l, lir_load(F, g->X, (lir_expr *[]){g->n, g->c, clampi(l, y, 0, H - 1), clampi(l, x, 0, W - 1)}));
  return inb ? lir_select(F, inb, v, f64(l, 0)) : v;
}

/* The cubic convolution weights (A = -0.75) of the 4 taps at fractional offset t in [0, 1). */
static void cubic_w(L *l, lir_expr *t, lir_expr **w) {
  const double A = -0.75;
  lir_expr *z[4] = {dbin(l, LIR_ADD, t, f64(l, 1)), t, dbin(l, LIR_SUB, f64(l, 1), t), dbin(l, LIR_SUB, f64(l, 2), t)};
  for (int k = 0; k < 4; k++) {
    lir_expr *q = z[k];
    if (k == 0 || k == 3) /* ((A z - 5A) z + 8A) z - 4A */
      w[k] = dbin(l, LIR_SUB, dbin(l, LIR_MUL, dbin(l, LIR_ADD, dbin(l, LIR_MUL, dbin(l, LIR_SUB, dbin(l, LIR_MUL, f64(l, A), q), f64(l, 5 * A)), q), f64(l, 8 * A)), q), f64(l, 4 * A));
    else /* ((A + 2) z - (A + 3)) z z + 1 */
      w[k] = dbin(l, LIR_ADD, dbin(l, LIR_MUL, dbin(l, LIR_MUL, dbin(l, LIR_SUB, dbin(l, LIR_MUL, f64(l, A + 2), q), f64(l, A + 3)), q), q), f64(l, 1));
  }
}

/* GridSample (16; 2-D), for y[n, c, i, j] with (gx, gy) = grid[n, i, j]:
 *   x = align_corners ? (gx + 1) / 2 * (W - 1) : ((gx + 1) W - 1) / 2   (y likewise with H)
 *   nearest: x, y rounded half to even.
 *   borders: align_corners ? [0, W-1] : [-0.5, W-0.5]; when x or y is outside them (not bicubic,
 *   as onnxruntime and PyTorch: its taps alone are padded): border padding clamps both into
 *   [0, W-1] x [0, H-1], reflection reflects both into the borders.
 *   nearest: the pixel at (trunc y, trunc x); bilinear: the 4 pixels around (floor, floor + 1)
 *   weighted by 1 - frac and frac; bicubic: the 16 pixels floor - 1 .. floor + 2 with the cubic
 *   weights (A = -0.75) of the fractions.
 *   A pixel outside X: zeros 0, border the clamped one, reflection the reflected one. */
static int lower_gridsample(L *l) {
  lir_buf *X = l->in[0], *G = l->in[1], *Y = l->out[0];
  if (!X || !G || !Y || X->ndim != 4 || Y->ndim != 4) return bad(l, "missing input or output");
  const char *ms = ovta_node_attr_s(l->n, "mode", "bilinear"), *ps = ovta_node_attr_s(l->n, "padding_mode", "zeros");
  int mode = !strcmp(ms, "nearest") ? 0 : !strcmp(ms, "bilinear") || !strcmp(ms, "linear") ? 1 : 2;
  bool ac = ovta_node_attr_i(l->n, "align_corners", 0) != 0;
  gs g = {X, NULL, NULL, !strcmp(ps, "border") ? 1 : !strcmp(ps, "reflection") ? 2 : 0, {0}, {0}};
  int64_t ext[2] = {X->shape[3], X->shape[2]}; /* W, H */
  if ((ext[0] == 0 || ext[1] == 0) && lir_buf_numel(Y) > 0) return unsup(l, "an empty spatial dim of X");
  for (int a = 0; a < 2; a++) g.lo[a] = ac ? 0 : -0.5, g.hi[a] = ac ? (double)(ext[a] - 1) : (double)ext[a] - 0.5;
  lir_nest n;
  lir_nest_open(F, &n, 4, Y->shape, "o");
  g.n = n.idx[0], g.c = n.idx[1];
  lets s = {0};
  lir_expr *p[2], *oob = NULL;
  for (int a = 0; a < 2; a++) {
    lir_expr *gv = to64(l, lir_load(F, G, (lir_expr *[]){n.idx[0], n.idx[2], n.idx[3], I(a)}));
    lir_expr *g1 = dbin(l, LIR_ADD, gv, f64(l, 1)), *v;
    if (ac) v = dbin(l, LIR_MUL, g1, f64(l, (double)(ext[a] - 1) / 2));
    else v = dbin(l, LIR_DIV, dbin(l, LIR_SUB, dbin(l, LIR_MUL, g1, f64(l, (double)ext[a])), f64(l, 1)), f64(l, 2));
    if (mode == 0) v = lir_call1(F, LIR_ROUND_EVEN, v);
    p[a] = let(l, &s, a ? "y" : "x", tame(l, v));
    lir_expr *o = lir_bin(F, LIR_OR, lir_bin(F, LIR_LT, p[a], f64(l, g.lo[a])), lir_bin(F, LIR_GT, p[a], f64(l, g.hi[a])));
    oob = oob ? lir_bin(F, LIR_OR, oob, o) : o;
  }
  if (g.pad && mode != 2) {
    lir_expr *ob = let(l, &s, "oob", oob), *q[2];
    for (int a = 0; a < 2; a++)
      q[a] = g.pad == 1 ? lir_max(F, lir_min(F, p[a], f64(l, (double)(ext[a] - 1))), f64(l, 0)) : reflect(l, p[a], g.lo[a], g.hi[a]);
    for (int a = 0; a < 2; a++) p[a] = let(l, &s, a ? "yp" : "xp", lir_select(F, ob, q[a], p[a]));
  }
  lir_expr *v;
  if (mode == 0) {
    v = gs_pixel(l, &g, lir_cast(F, LIR_I64, p[1]), lir_cast(F, LIR_I64, p[0]));
  } else {
    lir_expr *fl[2], *fr[2], *w[2][4];
    for (int a = 0; a < 2; a++) {
      lir_expr *f = let(l, &s, a ? "fy" : "fx", lir_call1(F, LIR_FLOOR, p[a]));
      fl[a] = let(l, &s, a ? "iy" : "ix", lir_cast(F, LIR_I64, f));
      fr[a] = let(l, &s, a ? "ty" : "tx", dbin(l, LIR_SUB, p[a], f));
      if (mode == 1) w[a][0] = dbin(l, LIR_SUB, f64(l, 1), fr[a]), w[a][1] = fr[a];
      else cubic_w(l, fr[a], w[a]);
    }
    int nt = mode == 1 ? 2 : 4, t0 = mode == 1 ? 0 : -1;
    v = NULL;
    for (int i = 0; i < nt; i++) {
      lir_expr *row = NULL;
      for (int j = 0; j < nt; j++) {
        lir_expr *t = dbin(l, LIR_MUL, w[0][j], gs_pixel(l, &g, lir_addi(F, fl[1], t0 + i), lir_addi(F, fl[0], t0 + j)));
        row = row ? dbin(l, LIR_ADD, row, t) : t;
      }
      row = dbin(l, LIR_MUL, w[1][i], row);
      v = v ? dbin(l, LIR_ADD, v, row) : row;
    }
  }
  lir_stmt *body = wrap(l, &s, lir_store(F, Y, n.idx, lir_cast(F, Y->dtype, v)));
  F->body = lir_nest_close(F, &n, body, LIR_FOR_SERIAL);
  return 0;
}

/* RoiAlign (16), for y[r, c, i, j], with roi = rois[r] * spatial_scale - o (o = 0.5 for
 * half_pixel, 0 for output_half_pixel), b = batch_indices[r]:
 *   w = x2 - x1, h = y2 - y1 (output_half_pixel: at least 1); bin = (h / out_h, w / out_w);
 *   samples per bin gh x gw = sampling_ratio, or ceil(h / out_h) x ceil(w / out_w) when 0
 *   (taken as 0 when negative, NaN or above 65536);
 *   sample (iy, ix): yy = y1 + i bin_h + (iy + 0.5) bin_h / gh, xx likewise;
 *   a sample with yy < -1, yy > H, xx < -1 or xx > W is 0; else yy, xx are raised to >= 0 and
 *   bilinear-interpolated from X[b, c] (a coordinate at or past the last pixel takes it);
 *   avg: the sum of the samples / max(gh gw, 1); max: the max over the samples of the largest
 *   of the 4 weighted pixels (onnxruntime's rule; 0 with no samples). */
static int lower_roialign(L *l) {
  lir_buf *X = l->in[0], *R = l->in[1], *B = l->in[2], *Y = l->out[0];
  if (!X || !R || !B || !Y || X->ndim != 4 || Y->ndim != 4) return bad(l, "missing input or output");
  bool mx = !strcmp(ovta_node_attr_s(l->n, "mode", "avg"), "max");
  bool hp = !strcmp(ovta_node_attr_s(l->n, "coordinate_transformation_mode", "half_pixel"), "half_pixel");
  double ss = ovta_node_attr_f(l->n, "spatial_scale", 1.0f), off = hp ? 0.5 : 0;
  int64_t sr = ovta_node_attr_i(l->n, "sampling_ratio", 0), H = X->shape[2], W = X->shape[3], oh = Y->shape[2], ow = Y->shape[3];
  int64_t ext[2] = {H, W}, outd[2] = {oh, ow};
  if ((H == 0 || W == 0 || X->shape[0] == 0) && lir_buf_numel(Y) > 0) return unsup(l, "an empty X");
  lir_nest n;
  lir_nest_open(F, &n, 4, Y->shape, "o");
  lets s = {0};
  lir_expr *b = let(l, &s, "b", clampi(l, as_type(l, LIR_I64, lir_load1(F, B, n.idx[0])), 0, X->shape[0] - 1));
  lir_expr *st[2], *bin[2], *gn[2], *cnt;
  for (int a = 0; a < 2; a++) { /* a = 0: y (rows), 1: x (columns); rois are x1, y1, x2, y2 */
    lir_expr *c1 = dbin(l, LIR_SUB, dbin(l, LIR_MUL, to64(l, lir_load(F, R, (lir_expr *[]){n.idx[0], I(1 - a)})), f64(l, ss)), f64(l, off));
    lir_expr *c2 = dbin(l, LIR_SUB, dbin(l, LIR_MUL, to64(l, lir_load(F, R, (lir_expr *[]){n.idx[0], I(3 - a)})), f64(l, ss)), f64(l, off));
    st[a] = let(l, &s, a ? "x1" : "y1", c1);
    lir_expr *len = dbin(l, LIR_SUB, c2, st[a]);
    if (!hp) len = lir_max(F, len, f64(l, 1));
    lir_expr *lv = let(l, &s, a ? "rw" : "rh", len);
    bin[a] = let(l, &s, a ? "bw" : "bh", dbin(l, LIR_DIV, lv, f64(l, (double)outd[a])));
    lir_expr *cg = lir_call1(F, LIR_CEIL, dbin(l, LIR_DIV, lv, f64(l, (double)outd[a])));
    lir_expr *cok = lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, cg, f64(l, 0)), lir_bin(F, LIR_LE, cg, f64(l, 65536)));
    lir_expr *g = sr > 0 ? I(sr) : lir_cast(F, LIR_I64, lir_select(F, cok, cg, f64(l, 0)));
    gn[a] = let(l, &s, a ? "gw" : "gh", g);
  }
  cnt = let(l, &s, "cnt", lir_mul(F, gn[0], gn[1]));
  lir_buf *acc = sc_new(l, "acc", LIR_F64);
  lir_var *iv[2] = {lir_var_new(F, "sy", LIR_I64), lir_var_new(F, "sx", LIR_I64)};
  lets t = {0};
  lir_expr *pos[2], *lo[2], *hi[2], *fr[2], *out = NULL;
  for (int a = 0; a < 2; a++) {
    lir_expr *frac = dbin(l, LIR_DIV, dbin(l, LIR_MUL, dbin(l, LIR_ADD, lir_cast(F, LIR_F64, lir_ref(F, iv[a])), f64(l, 0.5)), bin[a]),
                          lir_cast(F, LIR_F64, gn[a]));
    lir_expr *p = let(l, &t, a ? "xx" : "yy", dbin(l, LIR_ADD, dbin(l, LIR_ADD, st[a], dbin(l, LIR_MUL, lir_cast(F, LIR_F64, n.idx[2 + a]), bin[a])), frac));
    /* outside [-1, extent] (NaN too): the sample is 0, its coordinate replaced by 0 */
    lir_expr *o = lir_un(F, LIR_NOT, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, p, f64(l, -1)), lir_bin(F, LIR_LE, p, f64(l, (double)ext[a]))));
    lir_expr *ov = let(l, &t, a ? "ox" : "oy", o);
    out = out ? lir_bin(F, LIR_OR, out, ov) : ov;
    lir_expr *q = let(l, &t, a ? "xq" : "yq", lir_select(F, ov, f64(l, 0), lir_max(F, p, f64(l, 0))));
    lir_expr *edge = let(l, &t, a ? "ex" : "ey", lir_bin(F, LIR_GE, lir_cast(F, LIR_I64, q), I(ext[a] - 1)));
    lo[a] = let(l, &t, a ? "xl" : "yl", lir_select(F, edge, I(ext[a] - 1), lir_cast(F, LIR_I64, q)));
    hi[a] = lir_select(F, edge, I(ext[a] - 1), lir_addi(F, lo[a], 1));
    pos[a] = lir_select(F, edge, f64(l, (double)(ext[a] - 1)), q);
    fr[a] = let(l, &t, a ? "lx" : "ly", dbin(l, LIR_SUB, pos[a], lir_cast(F, LIR_F64, lo[a])));
  }
  lir_expr *terms[4];
  for (int k = 0; k < 4; k++) {
    lir_expr *yi = k < 2 ? lo[0] : hi[0], *xi = k % 2 ? hi[1] : lo[1];
    lir_expr *wy = k < 2 ? dbin(l, LIR_SUB, f64(l, 1), fr[0]) : fr[0], *wx = k % 2 ? fr[1] : dbin(l, LIR_SUB, f64(l, 1), fr[1]);
    lir_expr *px = to64(l, lir_load(F, X, (lir_expr *[]){b, n.idx[1], clampi(l, yi, 0, H - 1), clampi(l, xi, 0, W - 1)}));
    terms[k] = dbin(l, LIR_MUL, dbin(l, LIR_MUL, wy, wx), px);
  }
  lir_expr *sv = mx ? lir_max(F, lir_max(F, lir_max(F, terms[0], terms[1]), terms[2]), terms[3])
                    : dbin(l, LIR_ADD, dbin(l, LIR_ADD, terms[0], terms[1]), dbin(l, LIR_ADD, terms[2], terms[3]));
  sv = lir_select(F, out, f64(l, 0), sv);
  lir_stmt *upd = sc_set(l, acc, mx ? lir_max(F, sc_get(l, acc), sv) : dbin(l, LIR_ADD, sc_get(l, acc), sv));
  lir_stmt *loops = lir_for(F, iv[0], I(0), gn[0], LIR_FOR_SERIAL, lir_for(F, iv[1], I(0), gn[1], LIR_FOR_SERIAL, wrap(l, &t, upd)));
  lir_expr *res = mx ? lir_select(F, lir_bin(F, LIR_EQ, cnt, I(0)), f64(l, 0), sc_get(l, acc))
                     : dbin(l, LIR_DIV, sc_get(l, acc), lir_cast(F, LIR_F64, lir_max(F, cnt, I(1))));
  lir_stmt *body = SEQ(sc_set(l, acc, f64(l, mx ? -INFINITY : 0)), loops, lir_store(F, Y, n.idx, lir_cast(F, Y->dtype, res)));
  F->body = lir_nest_close(F, &n, lir_alloc_stmt(F, acc, wrap(l, &s, body)), LIR_FOR_SERIAL);
  return 0;
}

const cpu_rule cpu_rules_sample[] = {
    {"GridSample", lower_gridsample},
    {"RoiAlign", lower_roialign},
    {NULL, NULL},
};
