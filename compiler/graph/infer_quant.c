/* infer_quant.c: inference of QuantizeLinear, DequantizeLinear and the accelerator layouts
 * (ovta.Pack / ovta.Unpack).
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* QuantizeLinear (10/13): y = saturate(round(x / y_scale) + y_zero_point); Y has y_zero_point's
 * type (u8 when absent); scale/zero point scalars or 1-D along `axis` (default 1). */
static int infer_quantize(ctx *c) {
  ovta_tensor *x, *sc, *zp = ix_in(c, 2);
  if (ix_allow(c, "axis") || ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &sc)) return c->err->code;
  if (!ix_is_float(x->dtype) && x->dtype != OVTA_DT_I32) return ix_bad(c, OVTA_EINVAL, "x must be float or int32");
  if (sc->rank > 1) return ix_bad(c, OVTA_EINVAL, "y_scale must be a scalar or 1-D");
  if (sc->rank == 1) {
    int64_t ax = ovta_node_attr_i(c->n, "axis", 1);
    if (ix_norm_axis(c, &ax, x->rank, false, "axis")) return c->err->code;
    if (sc->shape[0] != x->shape[ax]) return ix_bad(c, OVTA_EINVAL, "y_scale has %lld values for axis size %lld",
                                                 (long long)sc->shape[0], (long long)x->shape[ax]);
  }
  ovta_dtype dt = zp ? zp->dtype : OVTA_DT_U8;
  if (dt != OVTA_DT_U8 && dt != OVTA_DT_I8) return ix_bad(c, OVTA_EINVAL, "y_zero_point must be u8 or i8");
  return ix_set_out(c, 0, dt, x->rank, x->shape);
}

/* DequantizeLinear (10/13): y = (x - x_zero_point) * x_scale; Y has x_scale's type. */
static int infer_dequantize(ctx *c) {
  ovta_tensor *x, *sc;
  if (ix_allow(c, "axis") || ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &sc)) return c->err->code;
  if (sc->rank > 1) return ix_bad(c, OVTA_EINVAL, "x_scale must be a scalar or 1-D");
  return ix_set_out(c, 0, sc->dtype, x->rank, x->shape);
}

/* DynamicQuantizeLinear (11): X float32; Y u8 of X's shape, y_scale f32 and y_zero_point u8
 * scalars: the range [min(0, min x), max(0, max x)] mapped onto 0..255. */
static int infer_dynquant(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "") || ix_count_io(c, 1, 1, 3, 3) || ix_need(c, 0, &x)) return c->err->code;
  if (x->dtype != OVTA_DT_F32) return ix_bad(c, OVTA_EINVAL, "x must be float32");
  if (ix_set_out(c, 0, OVTA_DT_U8, x->rank, x->shape) || ix_set_out(c, 1, OVTA_DT_F32, 0, NULL)) return c->err->code;
  return ix_set_out(c, 2, OVTA_DT_U8, 0, NULL);
}

/* The packed shape for a logical shape (ovta_layout in graph.h). */
static int packed_shape(ctx *c, ovta_layout l, const ovta_tensor *x, int64_t bt, int64_t bi, int64_t bo, int64_t *s) {
  int64_t d0 = x->shape[0], d1 = x->rank > 1 ? x->shape[1] : 1;
  int64_t h = x->rank == 4 ? x->shape[2] : 1, w = x->rank == 4 ? x->shape[3] : 1;
  if (l == OVTA_LAYOUT_ACC) {
    if (x->rank != 1) return ix_bad(c, OVTA_EINVAL, "layout acc needs a 1-D input");
    s[0] = (d0 + bo - 1) / bo, s[1] = bo;
    return 2;
  }
  if (x->rank != 2 && x->rank != 4) return ix_bad(c, OVTA_EINVAL, "packing needs a 2-D or 4-D input");
  for (int i = 0; i < x->rank; i++)
    if (x->shape[i] < 0) return ix_bad(c, OVTA_EINVAL, "packing needs known dims");
  int64_t r0 = l == OVTA_LAYOUT_ACT ? bt : bo;
  s[0] = (d0 + r0 - 1) / r0, s[1] = (d1 + bi - 1) / bi, s[2] = h, s[3] = w, s[4] = r0, s[5] = bi;
  return 6;
}

/* ovta.Pack: layout, batch, block_in, block_out. ovta.Unpack: shape. */
static int infer_pack(ctx *c) {
  ovta_tensor *x;
  bool pack = !strcmp(c->n->op, "ovta.Pack");
  if (ix_allow(c, pack ? "layout,batch,block_in,block_out" : "shape") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  ovta_tensor *o = c->n->outputs[0];
  if (!pack) {
    const ovta_attr *a = ovta_node_attr(c->n, "shape");
    if (!a || a->type != OVTA_ATTR_INTS || a->n > OVTA_MAX_RANK) return ix_bad(c, OVTA_EINVAL, "attribute 'shape' (ints) is required");
    if (ix_set_out(c, 0, x->dtype, a->n, a->ints)) return c->err->code;
    o->layout = OVTA_LAYOUT_PLAIN;
    return OVTA_OK;
  }
  const char *ls = ovta_node_attr_s(c->n, "layout", "");
  ovta_layout l = !strcmp(ls, "act") ? OVTA_LAYOUT_ACT : !strcmp(ls, "wgt") ? OVTA_LAYOUT_WGT : !strcmp(ls, "acc") ? OVTA_LAYOUT_ACC : OVTA_LAYOUT_PLAIN;
  if (l == OVTA_LAYOUT_PLAIN) return ix_bad(c, OVTA_EINVAL, "layout must be act, wgt or acc");
  int64_t bt = ovta_node_attr_i(c->n, "batch", 0), bi = ovta_node_attr_i(c->n, "block_in", 0), bo = ovta_node_attr_i(c->n, "block_out", 0);
  if (bt < 1 || bi < 1 || bo < 1 || bt > 4096 || bi > 4096 || bo > 4096) return ix_bad(c, OVTA_EINVAL, "batch, block_in and block_out must be 1..4096");
  int64_t s[OVTA_MAX_RANK];
  int r = packed_shape(c, l, x, bt, bi, bo, s);
  if (r < 0 || c->err->code) return c->err->code ? c->err->code : OVTA_EINVAL;
  if (ix_set_out(c, 0, x->dtype, r, s)) return c->err->code;
  o->layout = l;
  o->logical_rank = x->rank;
  memcpy(o->logical, x->shape, sizeof o->logical);
  o->quant = x->quant;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_quant[] = {
    {"QuantizeLinear", infer_quantize},
    {"DynamicQuantizeLinear", infer_dynquant},
    {"DequantizeLinear", infer_dequantize},
    {"ovta.Pack", infer_pack},
    {"ovta.Unpack", infer_pack},
    {NULL, NULL},
};
