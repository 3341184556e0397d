/* resize.c: resampling: Resize (and Upsample / Resize-10, which the importer turns into the
 * opset-13 form). */

#include "cpu_internal.h"

#define MAXTAP 4

/* Resize (ONNX 13-19, the reference's 1-D interpolation applied per dim): for every output
 * element and every resized dim d (in != out or scale != 1, or tf_crop_and_resize), the source
 * coordinate xo from the output index x, in = X dim, out = Y dim, s = scale, outf = s * in:
 *   half_pixel (default)   (x + 0.5) / s - 0.5
 *   half_pixel_symmetric   in/2 * (1 - out/outf) + (x + 0.5) / s - 0.5
 *   pytorch_half_pixel     outf == 1 ? -0.5 : (x + 0.5) / s - 0.5
 *   align_corners          outf == 1 ? 0 : x * (in - 1) / (outf - 1)
 *   asymmetric             x / s
 *   tf_half_pixel_for_nn   (x + 0.5) / s
 *   tf_crop_and_resize     outf == 1 ? (a + b) / 2 * (in - 1) : a * (in - 1) + x * (b - a) * (in - 1) / (outf - 1)
 *                          with roi [a, b] for the dim; xo outside [0, in-1] -> extrapolation_value
 * x0 = floor(xo), r = xo - x0; neighbours outside the input take the edge value.
 *   nearest: x0, or x0 + 1 when r > 0.5 (round_prefer_floor), r >= 0.5 (round_prefer_ceil),
 *            r > 0 (ceil), never (floor);
 *   linear:  (1 - r) x[x0] + r x[x0 + 1];
 *   cubic:   sum over t in -1..2 of c_t(r) x[x0 + t] (Keys kernel with cubic_coeff_a A); with
 *            exclude_outside the weights of neighbours outside the input are 0 and the rest are
 *            renormalized to sum 1.
 * Multi-dim linear/cubic: the product of the per-dim weights (separable), in double. */
static int lower_resize(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim != Y->ndim) return bad(l, "missing input or output");
  int r = X->ndim;
  double scale[LIR_MAX_DIMS];
  int64_t outd[LIR_MAX_DIMS];
  char why[256];
  if (ovta_resize_dims(l->n, l->tin[0], scale, outd, why, sizeof why)) return unsup(l, why);
  for (int d = 0; d < r; d++)
    if (outd[d] != Y->shape[d]) return bad(l, "output shape does not match scales/sizes");
  const char *mode = ovta_node_attr_s(l->n, "mode", "nearest");
  const char *ct = ovta_node_attr_s(l->n, "coordinate_transformation_mode", "half_pixel");
  const char *nm = ovta_node_attr_s(l->n, "nearest_mode", "round_prefer_floor");
  int m = !strcmp(mode, "nearest") ? 0 : !strcmp(mode, "linear") ? 1 : !strcmp(mode, "cubic") ? 2 : -1;
  if (m < 0) return unsup(l, "mode");
  if (m > 0 && !lir_dtype_is_float(Y->dtype)) return unsup(l, "linear/cubic on integer data");
  double A = ovta_node_attr_f(l->n, "cubic_coeff_a", -0.75f);
  bool excl = ovta_node_attr_i(l->n, "exclude_outside", 0) != 0;
  bool crop = !strcmp(ct, "tf_crop_and_resize");
  /* roi per dim (crop only): axes attribute or all dims */
  double ra[LIR_MAX_DIMS], rb[LIR_MAX_DIMS];
  for (int d = 0; d < r; d++) ra[d] = 0, rb[d] = 1;
  if (crop) {
    const ovta_tensor *roi = l->tin[1];
    int na;
    const int64_t *ax = ints(l, "axes", &na);
    if (!ax) na = r;
    if (!roi || !roi->data || ovta_tensor_numel(roi) != 2 * na) return unsup(l, "tf_crop_and_resize needs a constant roi");
    for (int i = 0; i < na; i++) {
      int d = ax ? norm_axis(ax[i], r) : i;
      ra[d] = ovta_tensor_get_f(roi, i), rb[d] = ovta_tensor_get_f(roi, na + i);
    }
  }
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "o");
  lir_expr *xi[LIR_MAX_DIMS], *outside = NULL;
  int rs[LIR_MAX_DIMS], nrs = 0;             /* resized dims (linear/cubic taps) */
  lir_expr *tidx[LIR_MAX_DIMS][MAXTAP], *tw[LIR_MAX_DIMS][MAXTAP];
  lir_var *lv[3 * LIR_MAX_DIMS];
  lir_expr *lval[3 * LIR_MAX_DIMS];
  int nl = 0;
  int ntap = m == 2 ? 4 : 2, t0 = m == 2 ? -1 : 0;
  for (int d = 0; d < r; d++) {
    int64_t in = X->shape[d], out = Y->shape[d];
    double s = scale[d], outf = s * (double)in;
    if (!crop && in == out && s == 1) {
      xi[d] = n.idx[d];
      continue;
    }
    if (in == 0 || out == 0) return unsup(l, "an empty dim");
    lir_expr *xf = lir_cast(F, LIR_F64, n.idx[d]);
    lir_expr *hp = lir_bin(F, LIR_DIV, lir_bin(F, LIR_ADD, xf, lir_float(F, LIR_F64, 0.5)), lir_float(F, LIR_F64, s));
    lir_expr *xo;
    if (!strcmp(ct, "half_pixel")) xo = lir_bin(F, LIR_SUB, hp, lir_float(F, LIR_F64, 0.5));
    else if (!strcmp(ct, "half_pixel_symmetric"))
      xo = lir_bin(F, LIR_ADD, hp, lir_float(F, LIR_F64, (double)in / 2 * (1 - (double)out / outf) - 0.5));
    else if (!strcmp(ct, "pytorch_half_pixel")) xo = outf == 1 ? lir_float(F, LIR_F64, -0.5) : lir_bin(F, LIR_SUB, hp, lir_float(F, LIR_F64, 0.5));
    else if (!strcmp(ct, "align_corners"))
      xo = outf == 1 ? lir_float(F, LIR_F64, 0) : lir_bin(F, LIR_DIV, lir_bin(F, LIR_MUL, xf, lir_float(F, LIR_F64, (double)(in - 1))), lir_float(F, LIR_F64, outf - 1));
    else if (!strcmp(ct, "asymmetric")) xo = lir_bin(F, LIR_DIV, xf, lir_float(F, LIR_F64, s));
    else if (!strcmp(ct, "tf_half_pixel_for_nn")) xo = hp;
    else if (crop) {
      double a = ra[d], b = rb[d], w = (double)(in - 1);
      xo = outf == 1 ? lir_float(F, LIR_F64, (b - a) * w / 2 + a * w)
                     : lir_bin(F, LIR_ADD, lir_bin(F, LIR_DIV, lir_bin(F, LIR_MUL, xf, lir_float(F, LIR_F64, (b - a) * w)), lir_float(F, LIR_F64, outf - 1)),
                               lir_float(F, LIR_F64, a * w));
    } else return unsup(l, "coordinate_transformation_mode");
    lir_var *vxo = lir_var_new(F, "xo", LIR_F64), *vx0 = lir_var_new(F, "x0", LIR_I64), *vr = lir_var_new(F, "r", LIR_F64);
    lir_expr *rxo = lir_ref(F, vxo), *fl = lir_call1(F, LIR_FLOOR, rxo);
    lv[nl] = vxo, lval[nl++] = xo;
    lv[nl] = vx0, lval[nl++] = lir_cast(F, LIR_I64, fl);
    lv[nl] = vr, lval[nl++] = lir_bin(F, LIR_SUB, rxo, fl);
    lir_expr *x0 = lir_ref(F, vx0), *rr = lir_ref(F, vr);
    if (crop) {
      lir_expr *o = lir_bin(F, LIR_OR, lir_bin(F, LIR_LT, rxo, lir_float(F, LIR_F64, 0)), lir_bin(F, LIR_GT, rxo, lir_float(F, LIR_F64, (double)(in - 1))));
      outside = outside ? lir_bin(F, LIR_OR, outside, o) : o;
    }
    if (m == 0) {
      lir_expr *up;
      if (!strcmp(nm, "floor")) up = NULL;
      else if (!strcmp(nm, "ceil")) up = lir_bin(F, LIR_GT, rr, lir_float(F, LIR_F64, 0));
      else if (!strcmp(nm, "round_prefer_ceil")) up = lir_bin(F, LIR_GE, rr, lir_float(F, LIR_F64, 0.5));
      else if (!strcmp(nm, "round_prefer_floor")) up = lir_bin(F, LIR_GT, rr, lir_float(F, LIR_F64, 0.5));
      else return unsup(l, "nearest_mode");
      lir_expr *ix = up ? lir_add(F, x0, lir_cast(F, LIR_I64, lir_select(F, up, lir_int(F, LIR_I32, 1), lir_int(F, LIR_I32, 0)))) : x0;
      xi[d] = clampi(l, ix, 0, in - 1);
      continue;
    }
    rs[nrs] = d;
    lir_expr *one = lir_float(F, LIR_F64, 1);
    lir_expr *w[MAXTAP];
    if (m == 1) {
      w[0] = lir_bin(F, LIR_SUB, one, rr), w[1] = rr;
    } else {
      lir_expr *a = lir_float(F, LIR_F64, A), *ap2 = lir_float(F, LIR_F64, A + 2), *ap3 = lir_float(F, LIR_F64, A + 3);
      lir_expr *a5 = lir_float(F, LIR_F64, 5 * A), *a8 = lir_float(F, LIR_F64, 8 * A), *a4 = lir_float(F, LIR_F64, 4 * A);
      lir_expr *q = lir_bin(F, LIR_SUB, one, rr);
      /* far taps: ((A*z - 5A)*z + 8A)*z - 4A with z = r + 1 or 2 - r; near taps: ((A+2)*z - (A+3))*z*z + 1, z = r or 1 - r */
      lir_expr *z[4] = {lir_bin(F, LIR_ADD, rr, one), rr, q, lir_bin(F, LIR_ADD, q, one)};
      for (int k = 0; k < 4; k++) {
        if (k == 0 || k == 3)
          w[k] = lir_bin(F, LIR_SUB, lir_bin(F, LIR_MUL, lir_bin(F, LIR_ADD, lir_bin(F, LIR_MUL, lir_bin(F, LIR_SUB, lir_bin(F, LIR_MUL, a, z[k]), a5), z[k]), a8), z[k]), a4);
        else
          w[k] = lir_bin(F, LIR_ADD, lir_bin(F, LIR_MUL, lir_bin(F, LIR_MUL, lir_bin(F, LIR_SUB, lir_bin(F, LIR_MUL, ap2, z[k]), ap3), z[k]), z[k]), one);
      }
    }
    lir_expr *sum = NULL;
    for (int k = 0; k < ntap; k++) {
      lir_expr *p = lir_addi(F, x0, t0 + k);
      if (excl) {
        lir_expr *inb = lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, p, I(0)), lir_bin(F, LIR_LT, p, I(in)));
        w[k] = lir_select(F, inb, w[k], lir_float(F, LIR_F64, 0));
        sum = sum ? lir_bin(F, LIR_ADD, sum, w[k]) : w[k];
      }
      tidx[nrs][k] = clampi(l, p, 0, in - 1);
    }
    for (int k = 0; k < ntap; k++) tw[nrs][k] = excl ? lir_bin(F, LIR_DIV, w[k], sum) : w[k];
    nrs++;
  }
  lir_expr *v;
  if (m == 0 || nrs == 0) {
    v = lir_load(F, X, xi);
  } else {
    /* sum over every combination of taps of the resized dims */
    int64_t combos = 1;
    for (int i = 0; i < nrs; i++) combos *= ntap;
    if (combos > 4096) return unsup(l, "too many resized dims for linear/cubic");
    v = NULL;
    for (int64_t cidx = 0; cidx < combos; cidx++) {
      int64_t rem = cidx;
      lir_expr *wt = NULL, *li[LIR_MAX_DIMS];
      memcpy(li, xi, sizeof li);
      for (int i = nrs - 1; i >= 0; i--) {
        int k = (int)(rem % ntap);
        rem /= ntap;
        li[rs[i]] = tidx[i][k];
        wt = wt ? lir_bin(F, LIR_MUL, wt, tw[i][k]) : tw[i][k];
      }
      lir_expr *term = lir_bin(F, LIR_MUL, wt, lir_cast(F, LIR_F64, lir_load(F, X, li)));
      v = v ? lir_bin(F, LIR_ADD, v, term) : term;
    }
    v = lir_cast(F, Y->dtype, v);
  }
  if (outside) v = lir_select(F, outside, cst(l, Y->dtype, ovta_node_attr_f(l->n, "extrapolation_value", 0)), v);
  lir_stmt *body = lir_store(F, Y, n.idx, v);
  for (int i = nl - 1; i >= 0; i--) body = lir_let(F, lv[i], lval[i], body);
  F->body = lir_nest_close(F, &n, body, LIR_FOR_SERIAL);
  return 0;
}

const cpu_rule cpu_rules_resize[] = {
    {"Resize", lower_resize},
    {NULL, NULL},
};
