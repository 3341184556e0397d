/* infer_resize.c: inference of resampling: Resize (10-19; the importer turns Upsample and the
 * 2-input Resize of opset 10 into the opset-13 form, see onnx.c), and ovta_resize_dims(), the
 * output extents and coordinate scales the CPU lowering uses too.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include <math.h>

#include "infer_internal.h"

/* A present, non-empty input (opset 11 models pass empty roi/scales constants for "absent"). */
static const ovta_tensor *given(const ovta_node *n, int i) {
  const ovta_tensor *t = ovta_node_in(n, i);
  if (!t || (t->rank >= 0 && ovta_tensor_numel(t) == 0)) return NULL;
  return t;
}

/* Resize (13/18/19) extents and scales, per dim d of X (rank r):
 *   axes (18; default all dims, negative from the end) name the dims scales/sizes cover (others
 *   keep scale 1 and their extent);
 *   sizes given: out = sizes, scale = out / in; with keep_aspect_ratio_policy (18) not_larger /
 *   not_smaller, scale = the min / max of sizes/in over the axes, out = round(scale * in);
 *   else scales given (> 0): scale as given, out = floor(in * scale) (tf_crop_and_resize:
 *   floor(in * (roi_end - roi_start) * scale)).
 * Exactly one of scales and sizes must be given, as a constant. */
int ovta_resize_dims(const ovta_node *n, const ovta_tensor *x, double *scale, int64_t *out, char *why, size_t nwhy) {
  const ovta_tensor *sc = given(n, 2), *sz = given(n, 3), *roi = given(n, 1);
  int r = x->rank;
  if (!!sc == !!sz) return snprintf(why, nwhy, "exactly one of scales and sizes must be given"), OVTA_EINVAL;
  const ovta_tensor *v = sc ? sc : sz;
  if (!v->data) return snprintf(why, nwhy, "input '%s' must be a constant (the output shape depends on it)", v->name), OVTA_EUNSUPPORTED;
  if (sz && sz->dtype != OVTA_DT_I64) return snprintf(why, nwhy, "sizes must be int64"), OVTA_EINVAL;
  if (sc && !ix_is_float(sc->dtype)) return snprintf(why, nwhy, "scales must be float"), OVTA_EINVAL;
  int ax[OVTA_MAX_RANK], na = r;
  for (int i = 0; i < r; i++) ax[i] = i;
  const ovta_attr *aa = ovta_node_attr(n, "axes");
  if (aa) {
    if (aa->type != OVTA_ATTR_INTS || aa->n > r) return snprintf(why, nwhy, "axes must be at most %d ints", r), OVTA_EINVAL;
    na = aa->n;
    bool seen[OVTA_MAX_RANK] = {0};
    for (int i = 0; i < na; i++) {
      int64_t a = aa->ints[i] < 0 ? aa->ints[i] + r : aa->ints[i];
      if (a < 0 || a >= r || seen[a]) return snprintf(why, nwhy, "axes value %lld is out of range or repeated", (long long)aa->ints[i]), OVTA_EINVAL;
      seen[a] = true;
      ax[i] = (int)a;
    }
  }
  if (ovta_tensor_numel(v) != na) return snprintf(why, nwhy, "%s has %lld values, needs %d", sc ? "scales" : "sizes", (long long)ovta_tensor_numel(v), na), OVTA_EINVAL;
  for (int d = 0; d < r; d++) {
    if (x->shape[d] < 0) return snprintf(why, nwhy, "the input dims must be known"), OVTA_EUNSUPPORTED;
    scale[d] = 1, out[d] = x->shape[d];
  }
  bool crop = !strcmp(ovta_node_attr_s(n, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize");
  if (crop && (!roi || !roi->data || ovta_tensor_numel(roi) != 2 * na))
    return snprintf(why, nwhy, "tf_crop_and_resize needs a constant roi of %d values", 2 * na), OVTA_EUNSUPPORTED;
  if (sz) {
    const char *pol = ovta_node_attr_s(n, "keep_aspect_ratio_policy", "stretch");
    bool nl = !strcmp(pol, "not_larger"), ns = !strcmp(pol, "not_smaller");
    if (!nl && !ns && strcmp(pol, "stretch")) return snprintf(why, nwhy, "keep_aspect_ratio_policy '%s' is unknown", pol), OVTA_EINVAL;
    double keep = nl ? INFINITY : 0;
    for (int i = 0; i < na; i++) {
      int64_t s = ovta_tensor_get_i(sz, i), in = x->shape[ax[i]];
      if (s < 0 || s > ((int64_t)1 << 30)) return snprintf(why, nwhy, "sizes[%d] = %lld is out of range", i, (long long)s), OVTA_EINVAL;
      if (in == 0) return snprintf(why, nwhy, "resizing an empty dim"), OVTA_EINVAL;
      double q = (double)s / (double)in;
      if (nl && q < keep) keep = q;
      if (ns && q > keep) keep = q;
      scale[ax[i]] = q, out[ax[i]] = s;
    }
    if (nl || ns)
      for (int i = 0; i < na; i++) {
        double o = nearbyint(keep * (double)x->shape[ax[i]]);
        if (!(o >= 0 && o < (double)((int64_t)1 << 40))) return snprintf(why, nwhy, "output dim %d is out of range", ax[i]), OVTA_EINVAL;
        scale[ax[i]] = keep, out[ax[i]] = (int64_t)o;
      }
  } else {
    for (int i = 0; i < na; i++) {
      double q = ovta_tensor_get_f(sc, i), in = (double)x->shape[ax[i]];
      if (!(q > 0 && q < (double)(1 << 20))) return snprintf(why, nwhy, "scales[%d] = %g must be positive", i, q), OVTA_EINVAL;
      double f = crop ? ovta_tensor_get_f(roi, na + i) - ovta_tensor_get_f(roi, i) : 1;
      double o = floor(in * f * q);
      if (!(o >= 0 && o < (double)((int64_t)1 << 40))) return snprintf(why, nwhy, "output dim %d is out of range", ax[i]), OVTA_EINVAL;
      scale[ax[i]] = q, out[ax[i]] = (int64_t)o;
    }
  }
  return OVTA_OK;
}

/* Does nearest mode round the source coordinate of output x = f * q + k (0 <= k < f) to q for an
 * integer factor f > 1 (scale exactly f; the CPU lowering's formulas, cpu/resize.c)?
 *   asymmetric x / f = q + k/f, fraction k/f in [0, 1): floor gives q; round_prefer_floor (up
 *     when the fraction > 1/2) only for f = 2 (fraction 0 or 1/2); ceil, round_prefer_ceil not.
 *   tf_half_pixel_for_nn (x + 1/2) / f = q + (k + 1/2)/f, fraction in (0, 1): floor gives q.
 *   half_pixel, pytorch_half_pixel (out > 1), half_pixel_symmetric (whose offset is 0 when
 *     out = f * in) (x + 1/2) / f - 1/2 = q + (k - (f-1)/2)/f, offset within (-1/2, 1/2):
 *     rounding (either tie rule; no ties) gives q (q = 0, k small: -0.x rounds up to 0).
 *   align_corners x (in-1)/(out-1) with f = 2: x = 2q + k is q + (k (in-1) - q)/(2 in - 1), the offset
 *     in (-1/2, 0] for k = 0 and in [0, 1/2) for k = 1 (no ties: odd denominator): rounding
 *     gives q; for f >= 3 (k = 2, q = 0: 2 (in-1)/(3 in - 1) > 1/2 once in >= 3) not.
 *   tf_crop_and_resize: not q for every x. */
static const char *nearest_floor_why(const char *ct, const char *nm, int64_t f) {
  bool rnd = !strcmp(nm, "round_prefer_floor") || !strcmp(nm, "round_prefer_ceil");
  if (!strcmp(ct, "asymmetric"))
    return !strcmp(nm, "floor") || (f == 2 && !strcmp(nm, "round_prefer_floor"))
               ? NULL
               : "asymmetric coordinates take the source pixel floor(y / f) only with nearest_mode floor (or "
                 "round_prefer_floor for the factor 2)";
  if (!strcmp(ct, "tf_half_pixel_for_nn"))
    return !strcmp(nm, "floor") ? NULL : "tf_half_pixel_for_nn takes the source pixel floor(y / f) only with nearest_mode floor";
  if (!strcmp(ct, "half_pixel") || !strcmp(ct, "pytorch_half_pixel") || !strcmp(ct, "half_pixel_symmetric"))
    return rnd ? NULL : "half-pixel coordinates take the source pixel floor(y / f) only with nearest_mode round_prefer_floor or round_prefer_ceil";
  if (!strcmp(ct, "align_corners"))
    return rnd && f == 2 ? NULL
                         : "align_corners takes the source pixel floor(y / f) only for the factor 2 with nearest_mode "
                           "round_prefer_floor or round_prefer_ceil";
  return "its coordinate_transformation_mode does not map output pixel y to the source pixel floor(y / f)";
}

bool ovta_resize_nearest_factors(const ovta_node *n, const ovta_tensor *x, int64_t f[2], char *why, size_t nwhy) {
  double scale[OVTA_MAX_RANK];
  int64_t out[OVTA_MAX_RANK];
  const char *mode = ovta_node_attr_s(n, "mode", "nearest");
  const char *ct = ovta_node_attr_s(n, "coordinate_transformation_mode", "half_pixel");
  const char *nm = ovta_node_attr_s(n, "nearest_mode", "round_prefer_floor");
  if (strcmp(n->op, "Resize")) return snprintf(why, nwhy, "not a Resize"), false;
  if (strcmp(mode, "nearest"))
    return snprintf(why, nwhy, "mode %s interpolates (the accelerator copies nearest pixels)", mode), false;
  if (!x || x->rank != 4) return snprintf(why, nwhy, "input of rank %d, not an NCHW feature map", x ? x->rank : -1), false;
  char w2[200];
  if (ovta_resize_dims(n, x, scale, out, w2, sizeof w2)) return snprintf(why, nwhy, "%s", w2), false;
  if (out[0] != x->shape[0] || out[1] != x->shape[1] || scale[0] != 1 || scale[1] != 1)
    return snprintf(why, nwhy, "resizes the batch or channel dim"), false;
  for (int d = 0; d < 2; d++) {
    int64_t in = x->shape[2 + d];
    f[d] = in > 0 ? out[2 + d] / in : 0;
    if (in < 1 || f[d] < 1 || out[2 + d] != f[d] * in || scale[2 + d] != (double)f[d])
      return snprintf(why, nwhy, "scale %g on dim %d is not an integer factor", scale[2 + d], 2 + d), false;
    const char *bad = f[d] > 1 ? nearest_floor_why(ct, nm, f[d]) : NULL;
    if (bad)
      return snprintf(why, nwhy, "coordinate_transformation_mode %s with nearest_mode %s: %s", ct, nm, bad), false;
  }
  return true;
}

/* Resize (13/18/19): X, optional roi (float, [2 * len(axes)]: starts then ends, for
 * tf_crop_and_resize), scales (float) or sizes (int64), one of them, constant; extents and
 * scales per ovta_resize_dims. mode nearest (default) | linear | cubic;
 * coordinate_transformation_mode half_pixel (default) | half_pixel_symmetric |
 * pytorch_half_pixel | align_corners | asymmetric | tf_half_pixel_for_nn | tf_crop_and_resize;
 * nearest_mode round_prefer_floor (default) | round_prefer_ceil | floor | ceil; cubic_coeff_a
 * (-0.75), exclude_outside (0), extrapolation_value (0); antialias (18) must be 0 (refused).
 * Linear and cubic need float data. Y has X's type. */
static int infer_resize(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "antialias,axes,coordinate_transformation_mode,cubic_coeff_a,exclude_outside,extrapolation_value,"
                  "keep_aspect_ratio_policy,mode,nearest_mode") ||
      ix_count_io(c, 1, 4, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  const char *mode = ovta_node_attr_s(c->n, "mode", "nearest");
  const char *ct = ovta_node_attr_s(c->n, "coordinate_transformation_mode", "half_pixel");
  const char *nm = ovta_node_attr_s(c->n, "nearest_mode", "round_prefer_floor");
  static const char *const CT[] = {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                                   "tf_half_pixel_for_nn", "tf_crop_and_resize", NULL};
  static const char *const NM[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL};
  bool ok = false;
  for (int i = 0; CT[i]; i++) ok |= !strcmp(ct, CT[i]);
  if (!ok) return ix_bad(c, OVTA_EINVAL, "coordinate_transformation_mode '%s' is unknown", ct);
  ok = false;
  for (int i = 0; NM[i]; i++) ok |= !strcmp(nm, NM[i]);
  if (!ok) return ix_bad(c, OVTA_EINVAL, "nearest_mode '%s' is unknown", nm);
  bool near = !strcmp(mode, "nearest");
  if (!near && strcmp(mode, "linear") && strcmp(mode, "cubic")) return ix_bad(c, OVTA_EINVAL, "mode '%s' is not nearest, linear or cubic", mode);
  if (!near && !ix_is_float(x->dtype)) return ix_bad(c, OVTA_EUNSUPPORTED, "mode %s on %s data (only float)", mode, ovta_dtype_name(x->dtype));
  if (ovta_node_attr_i(c->n, "antialias", 0) != 0) return ix_bad(c, OVTA_EUNSUPPORTED, "antialias=1 is not supported");
  double scale[OVTA_MAX_RANK];
  int64_t out[OVTA_MAX_RANK];
  char why[256];
  int rc = ovta_resize_dims(c->n, x, scale, out, why, sizeof why);
  if (rc) return ix_bad(c, rc, "%s", why);
  return ix_set_out(c, 0, x->dtype, x->rank, out);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_resize[] = {
    {"Resize", infer_resize},
    {NULL, NULL},
};
