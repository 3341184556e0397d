/* infer_sample.c: inference of the sampling operators: GridSample (16; the 2-D form of 20),
 * RoiAlign (16).
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* GridSample (16): X [N, C, H, W] float, grid [N, Ho, Wo, 2] (x, y in [-1, 1]) of X's type;
 * Y [N, C, Ho, Wo]. mode bilinear (default) | nearest | bicubic (20's linear | cubic taken too),
 * padding_mode zeros (default) | border | reflection, align_corners 0 (default) | 1. Only the
 * 2-D (4-D tensor) form. */
static int infer_gridsample(ctx *c) {
  ovta_tensor *x, *g;
  if (ix_allow(c, "mode,padding_mode,align_corners") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &g))
    return c->err->code;
  if (x->rank != 4) return ix_bad(c, OVTA_EUNSUPPORTED, "input rank %d: only 4-D X (2 spatial dims) is supported", x->rank);
  if (g->rank != 4 || g->shape[3] != 2) return ix_bad(c, OVTA_EINVAL, "grid must be [N, Ho, Wo, 2]");
  if (!ix_is_float(x->dtype) || g->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "X and grid must be float of one type");
  if (x->shape[0] >= 0 && g->shape[0] >= 0 && x->shape[0] != g->shape[0]) return ix_bad(c, OVTA_EINVAL, "X and grid batch differ");
  const char *m = ovta_node_attr_s(c->n, "mode", "bilinear"), *p = ovta_node_attr_s(c->n, "padding_mode", "zeros");
  if (strcmp(m, "bilinear") && strcmp(m, "nearest") && strcmp(m, "bicubic") && strcmp(m, "linear") && strcmp(m, "cubic"))
    return ix_bad(c, OVTA_EINVAL, "mode '%s' is unknown", m);
  if (strcmp(p, "zeros") && strcmp(p, "border") && strcmp(p, "reflection")) return ix_bad(c, OVTA_EINVAL, "padding_mode '%s' is unknown", p);
  int64_t s[4] = {x->shape[0], x->shape[1], g->shape[1], g->shape[2]};
  return ix_set_out(c, 0, x->dtype, 4, s);
}

/* RoiAlign (16): X [N, C, H, W] float, rois [R, 4] (x1, y1, x2, y2) of X's type,
 * batch_indices [R] int64; Y [R, C, output_height, output_width] (default 1 x 1);
 * mode avg (default) | max, coordinate_transformation_mode half_pixel (default) |
 * output_half_pixel, sampling_ratio >= 0 (0: adaptive), spatial_scale (default 1). */
static int infer_roialign(ctx *c) {
  ovta_tensor *x, *r, *b;
  if (ix_allow(c, "coordinate_transformation_mode,mode,output_height,output_width,sampling_ratio,spatial_scale") ||
      ix_count_io(c, 3, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &r) || ix_need(c, 2, &b))
    return c->err->code;
  if (x->rank != 4 || !ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "X must be 4-D float");
  if (r->rank != 2 || r->shape[1] != 4 || r->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "rois must be [R, 4] of X's type");
  if (b->rank != 1 || (b->dtype != OVTA_DT_I64 && b->dtype != OVTA_DT_I32) || b->shape[0] != r->shape[0])
    return ix_bad(c, OVTA_EINVAL, "batch_indices must be [R] int64");
  const char *m = ovta_node_attr_s(c->n, "mode", "avg"), *t = ovta_node_attr_s(c->n, "coordinate_transformation_mode", "half_pixel");
  if (strcmp(m, "avg") && strcmp(m, "max")) return ix_bad(c, OVTA_EINVAL, "mode '%s' is unknown", m);
  if (strcmp(t, "half_pixel") && strcmp(t, "output_half_pixel")) return ix_bad(c, OVTA_EINVAL, "coordinate_transformation_mode '%s' is unknown", t);
  int64_t oh = ovta_node_attr_i(c->n, "output_height", 1), ow = ovta_node_attr_i(c->n, "output_width", 1);
  int64_t sr = ovta_node_attr_i(c->n, "sampling_ratio", 0);
  if (oh < 1 || ow < 1 || oh > (1 << 20) || ow > (1 << 20)) return ix_bad(c, OVTA_EINVAL, "output_height/width must be >= 1");
  if (sr < 0 || sr > 4096) return ix_bad(c, OVTA_EINVAL, "sampling_ratio %lld is out of range", (long long)sr);
  int64_t s[4] = {r->shape[0], x->shape[1], oh, ow};
  return ix_set_out(c, 0, x->dtype, 4, s);
}

const infer_rule infer_rules_sample[] = {
    {"GridSample", infer_gridsample},
    {"RoiAlign", infer_roialign},
    {NULL, NULL},
};
