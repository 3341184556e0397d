/* infer_conv.c: inference of convolutions, pools and BatchNormalization (and the fused ovta.Conv,
 * ovta.QConv, ovta.QMaxPool, ovta.QGlobalAvgPool).
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* Window attributes shared by Conv and the pools, made explicit. */
typedef struct win {
  int nsp;                        /* spatial dims */
  int64_t k[OVTA_MAX_RANK];       /* kernel_shape */
  int64_t s[OVTA_MAX_RANK];       /* strides */
  int64_t d[OVTA_MAX_RANK];       /* dilations */
  int64_t p[2 * OVTA_MAX_RANK];   /* pads: begins then ends */
} win;

/* Output spatial dims of a window op over x (dims 2..), per the ONNX Conv/pool rules:
 *   NOTSET: out = floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1   (ceil with ceil_mode)
 *   VALID:  out = ceil((in - ((k-1)*d + 1) + 1) / s), no padding
 *   SAME_UPPER / SAME_LOWER: out = ceil(in / s); total pad = max(0, (out-1)*s + (k-1)*d + 1 - in),
 *   split evenly, the odd one at the end (UPPER) or beginning (LOWER).
 * Rewrites the node's attributes to the explicit form (auto_pad NOTSET, explicit pads). */
static int window(ctx *c, const ovta_tensor *x, win *w, bool dil, bool ceil_mode, int64_t *out) {
  w->nsp = x->rank - 2;
  int nsp = w->nsp;
  if (nsp < 1) return ix_bad(c, OVTA_EINVAL, "input '%s' must have rank >= 3, has %d", x->name, x->rank);
  if (ix_ints_attr(c, "strides", nsp, w->s, 1, 1) || ix_ints_attr(c, "pads", 2 * nsp, w->p, 0, 0)) return c->err->code;
  if (dil ? ix_ints_attr(c, "dilations", nsp, w->d, 1, 1) : OVTA_OK) return c->err->code;
  if (!dil)
    for (int i = 0; i < nsp; i++) w->d[i] = 1;
  const char *ap = ovta_node_attr_s(c->n, "auto_pad", "NOTSET");
  bool same_u = !strcmp(ap, "SAME_UPPER"), same_l = !strcmp(ap, "SAME_LOWER"), valid = !strcmp(ap, "VALID");
  if (!same_u && !same_l && !valid && strcmp(ap, "NOTSET"))
    return ix_bad(c, OVTA_EINVAL, "auto_pad '%s' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", ap);
  if (strcmp(ap, "NOTSET") && ovta_node_attr(c->n, "pads"))
    return ix_bad(c, OVTA_EINVAL, "pads and auto_pad %s cannot be used together", ap);
  for (int i = 0; i < nsp; i++) {
    int64_t in = x->shape[2 + i], ek = (w->k[i] - 1) * w->d[i] + 1;
    if (in < 0) {
      out[i] = -1;
      continue;
    }
    if (same_u || same_l) {
      int64_t o = (in + w->s[i] - 1) / w->s[i];
      int64_t tot = (o - 1) * w->s[i] + ek - in;
      if (tot < 0) tot = 0;
      w->p[i] = same_u ? tot / 2 : tot - tot / 2;
      w->p[nsp + i] = tot - w->p[i];
      out[i] = o;
      continue;
    }
    if (valid) w->p[i] = w->p[nsp + i] = 0;
    int64_t span = in + w->p[i] + w->p[nsp + i] - ek;
    if (span < 0)
      return ix_bad(c, OVTA_EINVAL, "the window (%lld, dilated) is larger than the padded input dim %d (%lld)", (long long)ek,
                 2 + i, (long long)(in + w->p[i] + w->p[nsp + i]));
    out[i] = (ceil_mode ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
    /* ONNX (like PyTorch) drops a last window that would start entirely in the end padding */
    if (ceil_mode && (out[i] - 1) * w->s[i] >= in + w->p[i]) out[i]--;
  }
  ovta_error *e = c->err;
  if (ovta_node_set_ints(c->n, "kernel_shape", w->k, nsp, e) || ovta_node_set_ints(c->n, "strides", w->s, nsp, e) ||
      ovta_node_set_ints(c->n, "pads", w->p, 2 * nsp, e) ||
      (dil && ovta_node_set_ints(c->n, "dilations", w->d, nsp, e)))
    return e->code;
  if (ovta_node_attr(c->n, "auto_pad") && ovta_node_set_s(c->n, "auto_pad", "NOTSET", e)) return e->code;
  return OVTA_OK;
}

/* Conv shape rule (Conv 11, ConvInteger 10, QLinearConv 10, ovta.Conv/QConv):
 * X [N, C, D1..Dn], W [M, C/group, k1..kn], optional B [M]; group (default 1) divides C and M;
 * kernel_shape (if given) equals W's spatial dims. Y [N, M, out1..outn] (see window()). */
static int conv_shape(ctx *c, const ovta_tensor *x, const ovta_tensor *w, const ovta_tensor *b, int *rank, int64_t *s) {
  if (w->rank != x->rank) return ix_bad(c, OVTA_EINVAL, "weight '%s' has rank %d, input has %d", w->name, w->rank, x->rank);
  win wn;
  int nsp = x->rank - 2;
  if (nsp < 1) return ix_bad(c, OVTA_EINVAL, "input '%s' must have rank >= 3", x->name);
  for (int i = 0; i < nsp; i++) wn.k[i] = w->shape[2 + i];
  const ovta_attr *ks = ovta_node_attr(c->n, "kernel_shape");
  if (ks) {
    if (ks->type != OVTA_ATTR_INTS || ks->n != nsp) return ix_bad(c, OVTA_EINVAL, "kernel_shape needs %d ints", nsp);
    for (int i = 0; i < nsp; i++)
      if (w->shape[2 + i] >= 0 && ks->ints[i] != w->shape[2 + i])
        return ix_bad(c, OVTA_EINVAL, "kernel_shape[%d] = %lld does not match weight '%s' (%lld)", i, (long long)ks->ints[i],
                   w->name, (long long)w->shape[2 + i]);
  }
  for (int i = 0; i < nsp; i++)
    if (wn.k[i] < 1) return ix_bad(c, OVTA_EINVAL, "weight '%s' needs known spatial dims >= 1", w->name);
  const ovta_attr *ga = ovta_node_attr(c->n, "group");
  if (ga && ga->type != OVTA_ATTR_INT) return ix_bad(c, OVTA_EINVAL, "attribute 'group' must be an int");
  int64_t group = ga ? ga->i : 1;
  int64_t C = x->shape[1], M = w->shape[0];
  if (group < 1) return ix_bad(c, OVTA_EINVAL, "group %lld must be >= 1", (long long)group);
  if (C >= 0 && (C % group || w->shape[1] * group != C))
    return ix_bad(c, OVTA_EINVAL, "input channels %lld do not match group %lld x weight channels %lld", (long long)C,
               (long long)group, (long long)w->shape[1]);
  if (M >= 0 && M % group) return ix_bad(c, OVTA_EINVAL, "output channels %lld are not a multiple of group %lld", (long long)M, (long long)group);
  if (b && (b->rank != 1 || (M >= 0 && b->shape[0] != M)))
    return ix_bad(c, OVTA_EINVAL, "bias '%s' must have shape [%lld]", b->name, (long long)M);
  if (ovta_node_set_i(c->n, "group", group, c->err)) return c->err->code;
  *rank = x->rank;
  s[0] = x->shape[0];
  s[1] = M;
  return window(c, x, &wn, true, false, s + 2);
}

#define CONV_ATTRS "auto_pad,dilations,group,kernel_shape,pads,strides"

/* Conv (11): X, W, optional B, all of one float type. */
static int infer_conv(ctx *c) {
  ovta_tensor *x, *w, *b = ix_in(c, 2);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, CONV_ATTRS) || ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &w) || (b && ix_need(c, 2, &b)))
    return c->err->code;
  if (!ix_is_float(x->dtype) || w->dtype != x->dtype || (b && b->dtype != x->dtype))
    return ix_bad(c, OVTA_EINVAL, "X, W and B must be of one float type");
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* ovta.Conv: Conv + bias + activation (graph.h). */
static int infer_fconv(ctx *c) {
  ovta_tensor *x, *w, *b = ix_in(c, 2);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, CONV_ATTRS ",act,act_min,act_max,act_alpha,act_beta") || ix_check_act(c) || ix_count_io(c, 2, 3, 1, 1) ||
      ix_need(c, 0, &x) || ix_need(c, 1, &w) || (b && ix_need(c, 2, &b)))
    return c->err->code;
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* ovta.QConv: int8 conv + int32 bias + requantize + clip (graph.h); per-channel `shifts`: one
 * INT per output channel (W's first dim). */
static int infer_qconv(ctx *c) {
  ovta_tensor *x, *w, *b = ix_in(c, 2);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, CONV_ATTRS ",shift,shifts,clip_min,clip_max") || ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &w) ||
      (b && ix_need(c, 2, &b)))
    return c->err->code;
  if (x->dtype != OVTA_DT_I8 || w->dtype != OVTA_DT_I8 || (b && b->dtype != OVTA_DT_I32))
    return ix_bad(c, OVTA_EINVAL, "X and W must be i8 and B i32");
  const ovta_attr *sh = ovta_node_attr(c->n, "shifts");
  if (sh && (sh->type != OVTA_ATTR_INTS || w->rank < 1 || sh->n != w->shape[0]))
    return ix_bad(c, OVTA_EINVAL, "shifts must be INTS, one per output channel");
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, OVTA_DT_I8, r, s);
}

/* ConvInteger (10): x, w (u8/i8), optional x_zero_point, w_zero_point; Y int32, Conv shape. */
static int infer_convinteger(ctx *c) {
  ovta_tensor *x, *w;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, CONV_ATTRS) || ix_count_io(c, 2, 4, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &w)) return c->err->code;
  if ((x->dtype != OVTA_DT_U8 && x->dtype != OVTA_DT_I8) || (w->dtype != OVTA_DT_U8 && w->dtype != OVTA_DT_I8))
    return ix_bad(c, OVTA_EINVAL, "x and w must be u8 or i8");
  if (conv_shape(c, x, w, NULL, &r, s)) return c->err->code;
  return ix_set_out(c, 0, OVTA_DT_I32, r, s);
}

/* QLinearConv (10): x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
 * optional B (int32); Y has y_zero_point's type, the Conv shape. */
static int infer_qlinearconv(ctx *c) {
  ovta_tensor *x, *w, *yz, *b = ix_in(c, 8);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, CONV_ATTRS) || ix_count_io(c, 8, 9, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 3, &w) || ix_need(c, 7, &yz) ||
      (b && ix_need(c, 8, &b)))
    return c->err->code;
  if (b && b->dtype != OVTA_DT_I32) return ix_bad(c, OVTA_EINVAL, "B must be int32");
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, yz->dtype, r, s);
}

/* ConvTranspose (11): X [N, C, D1..Dn], W [C, M/group, k1..kn], optional B [M], one float
 * type; group divides C; strides, dilations (default 1), output_padding (default 0, below the
 * stride or the dilation). Spatial output: output_shape when given (its last n values), else
 * SAME_UPPER/SAME_LOWER: in * s, else s*(in-1) + output_padding + (k-1)*d + 1 - pb - pe. With
 * output_shape or SAME_*, total = s*(in-1) + output_padding + (k-1)*d + 1 - out is split:
 * SAME_UPPER puts floor(total/2) at the beginning, otherwise total - floor(total/2); the end gets
 * the rest (a negative total, an output_shape above the full size, gives negative pads: output
 * positions no input reaches, which hold the bias).
 * Rewrites the attributes to the explicit form (pads, strides, dilations, output_padding, group,
 * kernel_shape; auto_pad NOTSET, output_shape removed). Y [N, M, out..]. */
static int infer_convtranspose(ctx *c) {
  ovta_tensor *x, *w, *b = ix_in(c, 2);
  if (ix_allow(c, "auto_pad,dilations,group,kernel_shape,output_padding,output_shape,pads,strides") || ix_count_io(c, 2, 3, 1, 1) ||
      ix_need(c, 0, &x) || ix_need(c, 1, &w) || (b && ix_need(c, 2, &b)))
    return c->err->code;
  if (!ix_is_float(x->dtype) || w->dtype != x->dtype || (b && b->dtype != x->dtype))
    return ix_bad(c, OVTA_EINVAL, "X, W and B must be of one float type");
  int nsp = x->rank - 2;
  if (nsp < 1 || w->rank != x->rank) return ix_bad(c, OVTA_EINVAL, "X and W must have one rank >= 3");
  int64_t g = ovta_node_attr_i(c->n, "group", 1);
  if (g < 1 || (x->shape[1] >= 0 && (x->shape[1] % g || x->shape[1] != w->shape[0])))
    return ix_bad(c, OVTA_EINVAL, "channels %lld do not match W (%lld) and group %lld", (long long)x->shape[1], (long long)w->shape[0], (long long)g);
  int64_t m = w->shape[1] * g;
  if (b && (b->rank != 1 || b->shape[0] != m)) return ix_bad(c, OVTA_EINVAL, "B must be [%lld]", (long long)m);
  int64_t st[OVTA_MAX_RANK], dl[OVTA_MAX_RANK], op[OVTA_MAX_RANK], pd[2 * OVTA_MAX_RANK], ks[OVTA_MAX_RANK];
  if (ix_ints_attr(c, "strides", nsp, st, 1, 1) || ix_ints_attr(c, "dilations", nsp, dl, 1, 1) ||
      ix_ints_attr(c, "output_padding", nsp, op, 0, 0) || ix_ints_attr(c, "pads", 2 * nsp, pd, 0, -(1 << 20)) ||
      ix_ints_attr(c, "kernel_shape", nsp, ks, 1, 1))
    return c->err->code;
  for (int i = 0; i < nsp; i++) {
    if (ovta_node_attr(c->n, "kernel_shape") && ks[i] != w->shape[2 + i]) return ix_bad(c, OVTA_EINVAL, "kernel_shape differs from W");
    ks[i] = w->shape[2 + i];
    if (op[i] >= st[i] && op[i] >= dl[i]) return ix_bad(c, OVTA_EINVAL, "output_padding[%d] must be below the stride or the dilation", i);
  }
  const char *ap = ovta_node_attr_s(c->n, "auto_pad", "NOTSET");
  bool su = !strcmp(ap, "SAME_UPPER"), sl = !strcmp(ap, "SAME_LOWER"), valid = !strcmp(ap, "VALID");
  if (!su && !sl && !valid && strcmp(ap, "NOTSET")) return ix_bad(c, OVTA_EINVAL, "auto_pad '%s' is unknown", ap);
  const ovta_attr *os = ovta_node_attr(c->n, "output_shape");
  if (os && (os->type != OVTA_ATTR_INTS || os->n < nsp)) return ix_bad(c, OVTA_EINVAL, "output_shape needs %d ints", nsp);
  int64_t s[OVTA_MAX_RANK];
  s[0] = x->shape[0], s[1] = m;
  for (int i = 0; i < nsp; i++) {
    int64_t in = x->shape[2 + i];
    if (in < 0) return ix_bad(c, OVTA_EUNSUPPORTED, "spatial dims must be known");
    if (in > ((int64_t)1 << 40)) return ix_bad(c, OVTA_EINVAL, "dim %d is too large", 2 + i);
    int64_t full = st[i] * (in - 1) + op[i] + (ks[i] - 1) * dl[i] + 1;
    if (valid) pd[i] = pd[nsp + i] = 0;
    if (os || su || sl) {
      int64_t out = os ? os->ints[os->n - nsp + i] : in * st[i];
      if (out < 1 || out > ((int64_t)1 << 40)) return ix_bad(c, OVTA_EINVAL, "output dim %d would be %lld", 2 + i, (long long)out);
      int64_t tot = full - out, half = tot >= 0 ? tot / 2 : -((-tot + 1) / 2); /* floor(tot / 2) */
      pd[i] = su ? half : tot - half;
      pd[nsp + i] = tot - pd[i];
      s[2 + i] = out;
    } else {
      s[2 + i] = full - pd[i] - pd[nsp + i];
    }
    if (s[2 + i] < 1) return ix_bad(c, OVTA_EINVAL, "output dim %d would be %lld", 2 + i, (long long)s[2 + i]);
  }
  ovta_error *e = c->err;
  if (ovta_node_set_ints(c->n, "kernel_shape", ks, nsp, e) || ovta_node_set_ints(c->n, "strides", st, nsp, e) ||
      ovta_node_set_ints(c->n, "pads", pd, 2 * nsp, e) || ovta_node_set_ints(c->n, "dilations", dl, nsp, e) ||
      ovta_node_set_ints(c->n, "output_padding", op, nsp, e) || ovta_node_set_i(c->n, "group", g, e))
    return e->code;
  if (ovta_node_attr(c->n, "auto_pad") && ovta_node_set_s(c->n, "auto_pad", "NOTSET", e)) return e->code;
  if (os) ovta_node_del_attr(c->n, "output_shape");
  return ix_set_out(c, 0, x->dtype, x->rank, s);
}

/* MaxPool (12) / AveragePool (11) / LpPool (18, p default 2, dilations): X [N, C, D...]; kernel_shape required; strides, pads,
 * auto_pad, ceil_mode; MaxPool: dilations, storage_order, optional Indices output (int64);
 * AveragePool: count_include_pad. Y [N, C, out...] (window()). */
static int infer_pool(ctx *c) {
  bool q = !strcmp(c->n->op, "ovta.QMaxPool"), mx = q || !strcmp(c->n->op, "MaxPool"), lp = !strcmp(c->n->op, "LpPool");
  ovta_tensor *x;
  if (ix_allow(c, q    ? "auto_pad,ceil_mode,dilations,kernel_shape,pads,strides"
               : mx ? "auto_pad,ceil_mode,dilations,kernel_shape,pads,storage_order,strides"
               : lp ? "auto_pad,ceil_mode,dilations,kernel_shape,p,pads,strides"
                    : "auto_pad,ceil_mode,count_include_pad,kernel_shape,pads,strides") ||
      ix_count_io(c, 1, 1, 1, mx && !q ? 2 : 1) || ix_need(c, 0, &x))
    return c->err->code;
  if (q && x->dtype != OVTA_DT_I8) return ix_bad(c, OVTA_EINVAL, "X must be i8");
  const ovta_attr *ks = ovta_node_attr(c->n, "kernel_shape");
  int nsp = x->rank - 2;
  if (nsp < 1) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 3");
  if (!ks || ks->type != OVTA_ATTR_INTS || ks->n != nsp)
    return ix_bad(c, OVTA_EINVAL, "attribute 'kernel_shape' (%d ints) is required", nsp);
  win w;
  for (int i = 0; i < nsp; i++) {
    if (ks->ints[i] < 1 || ks->ints[i] > (1 << 20)) return ix_bad(c, OVTA_EINVAL, "kernel_shape[%d] is out of range", i);
    w.k[i] = ks->ints[i];
  }
  int64_t s[OVTA_MAX_RANK];
  s[0] = x->shape[0], s[1] = x->shape[1];
  int64_t cm = ovta_node_attr_i(c->n, "ceil_mode", 0);
  if (cm != 0 && cm != 1) return ix_bad(c, OVTA_EINVAL, "ceil_mode must be 0 or 1");
  if (lp && (!ix_is_float(x->dtype) || ovta_node_attr_i(c->n, "p", 2) < 1)) return ix_bad(c, OVTA_EINVAL, "LpPool needs a float input and p >= 1");
  if (window(c, x, &w, mx || lp, cm != 0, s + 2)) return c->err->code;
  for (int i = 0; i < nsp; i++)
    if (w.p[i] >= w.k[i] || w.p[nsp + i] >= w.k[i])
      return ix_bad(c, OVTA_EINVAL, "pad %lld is not smaller than the kernel %lld in dim %d", (long long)w.p[i], (long long)w.k[i], i);
  if (ix_set_out(c, 0, x->dtype, x->rank, s)) return c->err->code;
  return ix_set_out(c, 1, OVTA_DT_I64, x->rank, s);
}

/* GlobalAveragePool (1), GlobalMaxPool (1): X [N, C, D...] -> Y [N, C, 1, ...]. */
static int infer_gap(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (x->rank < 3) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 3");
  int64_t s[OVTA_MAX_RANK];
  s[0] = x->shape[0], s[1] = x->shape[1];
  for (int i = 2; i < x->rank; i++) s[i] = 1;
  return ix_set_out(c, 0, x->dtype, x->rank, s);
}

/* ovta.QGlobalAvgPool (graph.h): X i8 [N, C, H, W] -> Y i8 [N, C, 1, 1]; mult 1..32767, shift
 * 0..30. */
static int infer_qgap(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "mult,shift,clip_min,clip_max") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (x->rank != 4 || x->dtype != OVTA_DT_I8) return ix_bad(c, OVTA_EINVAL, "X must be i8 of rank 4");
  int64_t m = ovta_node_attr_i(c->n, "mult", 1), s = ovta_node_attr_i(c->n, "shift", 0);
  if (m < 1 || m > 32767 || s < 0 || s > 30) return ix_bad(c, OVTA_EINVAL, "mult must be 1..32767 and shift 0..30");
  int64_t ys[4] = {x->shape[0], x->shape[1], 1, 1};
  return ix_set_out(c, 0, OVTA_DT_I8, 4, ys);
}

/* BatchNormalization (9/14/15), inference: X [N, C, ...], scale, B, input_mean, input_var all
 * [C]; Y = scale * (X - mean) / sqrt(var + epsilon) + B. training_mode must be 0 (the extra
 * training outputs are not supported). */
static int infer_bn(ctx *c) {
  ovta_tensor *x, *p;
  if (ix_allow(c, "epsilon,momentum,spatial,training_mode") || ix_attr_type(c, "epsilon", OVTA_ATTR_FLOAT) ||
      ix_count_io(c, 5, 5, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  if (ovta_node_attr_i(c->n, "training_mode", 0) != 0) return ix_bad(c, OVTA_EUNSUPPORTED, "training_mode 1 is not supported");
  if (ovta_node_attr_i(c->n, "spatial", 1) != 1) return ix_bad(c, OVTA_EUNSUPPORTED, "spatial 0 is not supported");
  if (x->rank < 2 || !ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "X must be a float tensor of rank >= 2");
  for (int i = 1; i < 5; i++) {
    if (ix_need(c, i, &p)) return c->err->code;
    if (p->rank != 1 || (x->shape[1] >= 0 && p->shape[0] != x->shape[1]))
      return ix_bad(c, OVTA_EINVAL, "input %d '%s' must have shape [%lld]", i, p->name, (long long)x->shape[1]);
  }
  return ix_same_as(c, 0, x);
}

/* MaxUnpool (11): X [N, C, D...] float, I (int64, X's shape; flat indices into Y as MaxPool's
 * Indices give them), optional output_shape (input 2, a constant); kernel_shape required,
 * strides (default 1), pads (default 0). Y: output_shape, else [N, C, (d - 1) stride + kernel -
 * pad_begin - pad_end ...]. */
static int infer_maxunpool(ctx *c) {
  ovta_tensor *x, *ix;
  if (ix_allow(c, "kernel_shape,strides,pads") || ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &ix))
    return c->err->code;
  int r = x->rank, nsp = r - 2;
  if (r < 3 || !ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "X must be float of rank >= 3");
  if (ix->dtype != OVTA_DT_I64 || ix->rank != r) return ix_bad(c, OVTA_EINVAL, "I must be int64 of X's rank");
  int64_t ks[OVTA_MAX_RANK], st[OVTA_MAX_RANK], pd[2 * OVTA_MAX_RANK], s[OVTA_MAX_RANK];
  if (!ovta_node_attr(c->n, "kernel_shape")) return ix_bad(c, OVTA_EINVAL, "kernel_shape is required");
  if (ix_ints_attr(c, "kernel_shape", nsp, ks, 1, 1) || ix_ints_attr(c, "strides", nsp, st, 1, 1) ||
      ix_ints_attr(c, "pads", 2 * nsp, pd, 0, 0))
    return c->err->code;
  int cnt;
  if (ix_in(c, 2)) {
    if (ix_const_ints(c, 2, s, OVTA_MAX_RANK, &cnt)) return c->err->code;
    if (cnt != r) return ix_bad(c, OVTA_EINVAL, "output_shape has %d values for rank %d", cnt, r);
    for (int d = 0; d < r; d++)
      if (s[d] < 0 || (d < 2 && x->shape[d] >= 0 && s[d] != x->shape[d])) return ix_bad(c, OVTA_EINVAL, "output_shape dim %d is invalid", d);
  } else {
    s[0] = x->shape[0], s[1] = x->shape[1];
    for (int d = 0; d < nsp; d++)
      s[2 + d] = x->shape[2 + d] < 0 ? -1 : (x->shape[2 + d] - 1) * st[d] + ks[d] - pd[d] - pd[nsp + d];
    for (int d = 0; d < nsp; d++)
      if (x->shape[2 + d] >= 0 && s[2 + d] < 0) return ix_bad(c, OVTA_EINVAL, "the pads exceed the output (dim %d)", 2 + d);
  }
  return ix_set_out(c, 0, x->dtype, r, s);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_conv[] = {
    {"Conv", infer_conv},
    {"ConvInteger", infer_convinteger},
    {"QLinearConv", infer_qlinearconv},
    {"MaxPool", infer_pool},
    {"AveragePool", infer_pool},
    {"GlobalAveragePool", infer_gap},
    {"GlobalMaxPool", infer_gap},
    {"LpPool", infer_pool},
    {"MaxUnpool", infer_maxunpool},
    {"ConvTranspose", infer_convtranspose},
    {"BatchNormalization", infer_bn},
    {"ovta.Conv", infer_fconv},
    {"ovta.QConv", infer_qconv},
    {"ovta.QMaxPool", infer_pool},
    {"ovta.QGlobalAvgPool", infer_qgap},
    {NULL, NULL},
};
