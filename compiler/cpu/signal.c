/* signal.c: signal processing: HannWindow, HammingWindow, BlackmanWindow, DFT, STFT,
 * MelWeightMatrix. Transforms are direct sums (O(n^2) per transform, no FFT), accumulated in
 * f64 with the angle reduced modulo 2 pi exactly ((k t) mod n), as numpy's FFT in double the
 * ONNX reference uses. */

#include "cpu_internal.h"

#define TWO_PI 6.283185307179586476925286766559

static lir_expr *f64(L *l, double v) { return lir_float(F, LIR_F64, v); }
static lir_expr *dadd(L *l, lir_expr *a, lir_expr *b) { return lir_bin(F, LIR_ADD, a, b); }
static lir_expr *dsub(L *l, lir_expr *a, lir_expr *b) { return lir_bin(F, LIR_SUB, a, b); }
static lir_expr *dmul(L *l, lir_expr *a, lir_expr *b) { return lir_bin(F, LIR_MUL, a, b); }

/* The windows (17), N = size when periodic (default 1), else size - 1, n = 0 .. size-1,
 * computed in double and converted to output_datatype:
 *   HannWindow      y[n] = sin(pi n / N)^2  (= 0.5 - 0.5 cos(2 pi n / N))
 *   HammingWindow   y[n] = 25/46 - 21/46 cos(2 pi n / N)
 *   BlackmanWindow  y[n] = 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N) */
static int lower_window(L *l, double a0, double a1, double a2) {
  lir_buf *Y = l->out[0];
  if (!Y || Y->ndim != 1) return bad(l, "missing output");
  int64_t size = Y->shape[0];
  double N = ovta_node_attr_i(l->n, "periodic", 1) ? (double)size : (double)(size - 1);
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "n");
  lir_expr *ang = lir_bin(F, LIR_DIV, dmul(l, lir_cast(F, LIR_F64, n.idx[0]), f64(l, TWO_PI)), f64(l, N));
  lir_expr *y = dsub(l, f64(l, a0), dmul(l, f64(l, a1), lir_call1(F, LIR_COS, ang)));
  if (a2 != 0) y = dadd(l, y, dmul(l, f64(l, a2), lir_call1(F, LIR_COS, dmul(l, ang, f64(l, 2)))));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_cast(F, Y->dtype, y)));
  return 0;
}
static int lower_hann(L *l) { return lower_window(l, 0.5, 0.5, 0); }
static int lower_hamming(L *l) { return lower_window(l, 25.0 / 46.0, 21.0 / 46.0, 0); }
static int lower_blackman(L *l) { return lower_window(l, 0.42, 0.5, 0.08); }

/* One complex accumulation over t = 0 .. len-1 into the f64 scalars re, im:
 *   th = sign 2 pi ((k t) mod n) / n;  (re, im) += (xr + i xi) (cos th + i sin th)
 * xr, xi (NULL: 0) are expressions in t. */
static lir_stmt *cdft_loop(L *l, lir_buf *re, lir_buf *im, lir_var *t, int64_t len, lir_expr *k, int64_t n, double sign,
                           lir_expr *xr, lir_expr *xi) {
  lir_expr *kt = lir_bin(F, LIR_MOD, lir_mul(F, k, lir_ref(F, t)), I(n));
  lir_var *th = lir_var_new(F, "th", LIR_F64);
  lir_expr *thv = dmul(l, lir_cast(F, LIR_F64, kt), f64(l, sign * TWO_PI / (double)n));
  lir_expr *c = lir_call1(F, LIR_COS, lir_ref(F, th)), *s = lir_call1(F, LIR_SIN, lir_ref(F, th));
  xr = lir_cast(F, LIR_F64, xr);
  lir_expr *dr = dmul(l, xr, c), *di = dmul(l, xr, s);
  if (xi) {
    xi = lir_cast(F, LIR_F64, xi);
    dr = dsub(l, dr, dmul(l, xi, s));
    di = dadd(l, di, dmul(l, xi, c));
  }
  lir_stmt *acc = SEQ(sc_set(l, re, dadd(l, sc_get(l, re), dr)), sc_set(l, im, dadd(l, sc_get(l, im), di)));
  return lir_for(F, t, I(0), I(len), LIR_FOR_SERIAL, lir_let(F, th, thv, acc));
}

/* The body around cdft_loop at one output element: re = im = 0, the loop, then Y[yi.., 0] = re *
 * scale, Y[yi.., 1] = im * scale (yi has Y's rank; its last index is overwritten). */
static lir_stmt *cdft_elem(L *l, lir_buf *Y, lir_expr **yi, lir_buf *re, lir_buf *im, lir_stmt *loop, double scale) {
  int r = Y->ndim;
  lir_expr *i0[LIR_MAX_DIMS], *i1[LIR_MAX_DIMS];
  memcpy(i0, yi, sizeof(lir_expr *) * (size_t)r);
  memcpy(i1, yi, sizeof(lir_expr *) * (size_t)r);
  i0[r - 1] = I(0), i1[r - 1] = I(1);
  lir_expr *vr = sc_get(l, re), *vi = sc_get(l, im);
  if (scale != 1) vr = dmul(l, vr, f64(l, scale)), vi = dmul(l, vi, f64(l, scale));
  lir_stmt *body = SEQ(sc_set(l, re, f64(l, 0)), sc_set(l, im, f64(l, 0)), loop, lir_store(F, Y, i0, lir_cast(F, Y->dtype, vr)),
                       lir_store(F, Y, i1, lir_cast(F, Y->dtype, vi)));
  return lir_alloc_stmt(F, re, lir_alloc_stmt(F, im, body));
}

/* DFT (17; the axis input of 20): along axis, with n = dft_length (default the axis dim; the
 * signal zero-padded or cut to n), for every other index and every bin k of Y's axis dim
 * (0 .. n-1, onesided 0 .. n/2):
 *   y[k] = s sum_{t<n} x[t] exp(-+ 2 pi i k t / n)   (- forward, + inverse; s = 1, inverse 1/n)
 * x complex from the last dim (2: re, im; 1: real). */
static int lower_dft(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim != Y->ndim) return bad(l, "missing input or output");
  int r = X->ndim;
  int64_t ax = ovta_node_attr_i(l->n, "axis", 1);
  if (l->g->opset >= 20) ax = l->tin[2] && l->tin[2]->data ? ovta_tensor_get_i(l->tin[2], 0) : -2;
  int axis = norm_axis(ax, r);
  if (axis < 0 || axis >= r - 1) return bad(l, "axis");
  bool inv = ovta_node_attr_i(l->n, "inverse", 0) != 0;
  int64_t n = X->shape[axis];
  if (l->tin[1]) {
    if (!l->tin[1]->data) return unsup(l, "dft_length must be a constant");
    n = ovta_tensor_get_i(l->tin[1], 0);
  }
  if (n < 1) return bad(l, "dft length");
  int64_t len = n < X->shape[axis] ? n : X->shape[axis];
  lir_nest o;
  lir_nest_open(F, &o, r - 1, Y->shape, "o");
  lir_var *t = lir_var_new(F, "t", LIR_I64);
  lir_expr *xi[LIR_MAX_DIMS], *yi[LIR_MAX_DIMS];
  for (int d = 0; d < r - 1; d++) xi[d] = d == axis ? lir_ref(F, t) : o.idx[d], yi[d] = o.idx[d];
  yi[r - 1] = I(0);
  xi[r - 1] = I(0);
  lir_expr *xr = lir_load(F, X, xi), *xim = NULL;
  if (X->shape[r - 1] == 2) {
    lir_expr *x1[LIR_MAX_DIMS];
    memcpy(x1, xi, sizeof x1);
    x1[r - 1] = I(1);
    xim = lir_load(F, X, x1);
  }
  lir_buf *re = sc_new(l, "re", LIR_F64), *im = sc_new(l, "im", LIR_F64);
  lir_stmt *loop = cdft_loop(l, re, im, t, len, o.idx[axis], n, inv ? 1 : -1, xr, xim);
  F->body = lir_nest_close(F, &o, cdft_elem(l, Y, yi, re, im, loop, inv ? 1.0 / (double)n : 1), LIR_FOR_SERIAL);
  return 0;
}

/* STFT (17): frame f of the signal starts at f * frame_step; with w the window (all ones when
 * absent) and L = frame_length, for every bin k (onesided: 0 .. L/2):
 *   y[b, f, k] = sum_{t<L} x[b, f * frame_step + t] w[t] exp(-2 pi i k t / L)
 * (re, im in the last dim of Y; x complex from its last dim, 1: real). */
static int lower_stft(L *l) {
  lir_buf *X = l->in[0], *W = l->in[2], *Y = l->out[0];
  if (!X || !Y || X->ndim != 3 || Y->ndim != 4) return bad(l, "missing input or output");
  int64_t step = l->tin[1] && l->tin[1]->data ? ovta_tensor_get_i(l->tin[1], 0) : 0;
  int64_t fl = W ? W->shape[0] : l->tin[3] && l->tin[3]->data ? ovta_tensor_get_i(l->tin[3], 0) : 0;
  if (step < 1 || fl < 1) return unsup(l, "frame_step and frame_length must be constants");
  if ((Y->shape[1] - 1) * step + fl > X->shape[1]) return bad(l, "frames past the signal");
  lir_nest o;
  lir_nest_open(F, &o, 3, Y->shape, "o");
  lir_var *t = lir_var_new(F, "t", LIR_I64);
  lir_expr *pos = lir_add(F, lir_muli(F, o.idx[1], step), lir_ref(F, t));
  lir_expr *xr = lir_load(F, X, (lir_expr *[]){o.idx[0], pos, I(0)}), *xim = NULL;
  if (X->shape[2] == 2) xim = lir_load(F, X, (lir_expr *[]){o.idx[0], pos, I(1)});
  if (W) {
    lir_expr *w = lir_load1(F, W, lir_ref(F, t));
    xr = lir_bin(F, LIR_MUL, xr, w);
    if (xim) xim = lir_bin(F, LIR_MUL, xim, w);
  }
  lir_buf *re = sc_new(l, "re", LIR_F64), *im = sc_new(l, "im", LIR_F64);
  lir_stmt *loop = cdft_loop(l, re, im, t, fl, o.idx[2], fl, -1, xr, xim);
  lir_expr *yi[4] = {o.idx[0], o.idx[1], o.idx[2], I(0)};
  F->body = lir_nest_close(F, &o, cdft_elem(l, Y, yi, re, im, loop, 1), LIR_FOR_SERIAL);
  return 0;
}

/* MelWeightMatrix (17), as the ONNX reference computes it (the edges' mel values in float, the
 * rest in double): M = num_mel_bins, bins f_i for i = 0 .. M+1:
 *   lo = 2595 log10(1 + lower_edge_hertz / 700), hi likewise, step = (hi - lo) / (M + 2)
 *   f_i = floor((dft_length + 1) * 700 (10^((i step + lo) / 2595) - 1) / sample_rate)
 * y = 0, then for each column i with l = f_i, c = f_(i+1), h = f_(i+2):
 *   c == l: y[c, i] = 1, else y[j, i] = (j - l) / (c - l) for j in l .. c;
 *   y[j, i] = (h - j) / (h - c) for j in c .. h-1
 * Rows outside Y (bins past dft_length/2) are skipped. The matrix is built while lowering (all
 * inputs are constants): the stores of each triangle. */
static int lower_mel(L *l) {
  lir_buf *Y = l->out[0];
  if (!Y || Y->ndim != 2) return bad(l, "missing output");
  for (int i = 0; i < 5; i++)
    if (!l->tin[i] || !l->tin[i]->data) return unsup(l, "the inputs must be constants");
  int64_t M = Y->shape[1], rows = Y->shape[0], len = ovta_tensor_get_i(l->tin[1], 0), rate = ovta_tensor_get_i(l->tin[2], 0);
  float lo32 = (float)ovta_tensor_get_f(l->tin[3], 0), hi32 = (float)ovta_tensor_get_f(l->tin[4], 0);
  float lo = 2595.0f * log10f(1.0f + lo32 / 700.0f), hi = 2595.0f * log10f(1.0f + hi32 / 700.0f);
  float step = (hi - lo) / (float)(M + 2);
  int64_t *f = malloc(sizeof(int64_t) * (size_t)(M + 2));
  if (!f) return OVTA_FAIL(l->err, OVTA_ENOMEM, "node %s: out of memory", l->n->name);
  for (int64_t i = 0; i < M + 2; i++) {
    double hz = 700 * (pow(10, ((double)i * (double)step + (double)lo) / 2595) - 1);
    double b = floor((double)(len + 1) * hz / (double)rate);
    if (!(b > -1e15 && b < 1e15)) {
      free(f);
      return bad(l, "the edge frequencies give bins out of range");
    }
    f[i] = (int64_t)b;
  }
  lir_block b;
  lir_block_init(&b, F);
  lir_var *z = lir_var_new(F, "z", LIR_I64);
  int64_t ne = rows * M;
  lir_block_add(&b, lir_for(F, z, I(0), I(ne), LIR_FOR_VECTORIZED, lir_store1(F, Y, lir_ref(F, z), cst(l, Y->dtype, 0))));
  for (int64_t i = 0; i < M; i++) {
    int64_t lf = f[i], c = f[i + 1], h = f[i + 2];
    /* the rising ramp over [lf, c] (unless c == lf), then the falling one over [c, h) */
    int64_t a[2] = {lf, c}, e[2] = {c + 1, h};
    if (c == lf && c >= 0 && c < rows) lir_block_add(&b, lir_store(F, Y, (lir_expr *[]){I(c), I(i)}, cst(l, Y->dtype, 1)));
    for (int p = c == lf ? 1 : 0; p < 2; p++) {
      int64_t s0 = a[p] < 0 ? 0 : a[p], s1 = e[p] > rows ? rows : e[p];
      if (s1 <= s0) continue;
      lir_var *j = lir_var_new(F, "j", LIR_I64);
      lir_expr *jf = lir_cast(F, LIR_F64, lir_ref(F, j)), *v;
      if (p == 1) v = lir_bin(F, LIR_DIV, dsub(l, f64(l, (double)h), jf), f64(l, (double)(h - c)));
      else v = lir_bin(F, LIR_DIV, dsub(l, jf, f64(l, (double)lf)), f64(l, (double)(c - lf)));
      lir_block_add(&b, lir_for(F, j, I(s0), I(s1 - s0), LIR_FOR_SERIAL,
                                lir_store(F, Y, (lir_expr *[]){lir_ref(F, j), I(i)}, lir_cast(F, Y->dtype, v))));
    }
  }
  free(f);
  F->body = lir_block_stmt(&b);
  return 0;
}

const cpu_rule cpu_rules_signal[] = {
    {"HannWindow", lower_hann},
    {"HammingWindow", lower_hamming},
    {"BlackmanWindow", lower_blackman},
    {"DFT", lower_dft},
    {"STFT", lower_stft},
    {"MelWeightMatrix", lower_mel},
    {NULL, NULL},
};
