/* conv.c: the conv family (Conv, ConvInteger, QLinearConv) and the fused float / int8
 * conv and dense operators of graph.h (ovta.Conv, ovta.Dense, ovta.QConv, ovta.QDense). */

#include "cpu_internal.h"

/* Resolve strides, dilations, pads (explicit or auto_pad) of a conv/pool window over input X
 * (spatial dims from 2) giving output Y. kern: the window. */
int cpu_window(L *l, const lir_buf *X, const lir_buf *Y, const int64_t *kern, convp *c) {
  c->k = X->ndim - 2;
  if (c->k < 1) return bad(l, "input needs at least one spatial dimension");
  int ns, nd, np;
  const int64_t *st = ints(l, "strides", &ns), *dl = ints(l, "dilations", &nd), *pd = ints(l, "pads", &np);
  if ((st && ns != c->k) || (dl && nd != c->k) || (pd && np != 2 * c->k))
    return bad(l, "strides/dilations/pads do not match the spatial rank");
  const char *ap = ovta_node_attr_s(l->n, "auto_pad", "NOTSET");
  for (int i = 0; i < c->k; i++) {
    c->kern[i] = kern[i];
    c->stride[i] = st ? st[i] : 1;
    c->dil[i] = dl ? dl[i] : 1;
    c->pad[i] = pd ? pd[i] : 0;
    c->pad_end[i] = pd ? pd[c->k + i] : 0;
    if (c->stride[i] < 1 || c->dil[i] < 1) return bad(l, "stride or dilation below 1");
    if (strcmp(ap, "SAME_UPPER") == 0 || strcmp(ap, "SAME_LOWER") == 0) {
      int64_t in = X->shape[2 + i], out = Y->shape[2 + i];
      int64_t total = (out - 1) * c->stride[i] + (kern[i] - 1) * c->dil[i] + 1 - in;
      if (total < 0) total = 0;
      c->pad[i] = ap[5] == 'U' ? total / 2 : total - total / 2;
      c->pad_end[i] = total - c->pad[i];
    } else if (strcmp(ap, "VALID") == 0) {
      c->pad[i] = c->pad_end[i] = 0;
    } else if (strcmp(ap, "NOTSET") != 0) {
      return unsup(l, "auto_pad value");
    }
  }
  return 0;
}

/* Conv core: Y[n, m, o...] = sum_{c, k...} X[n, g*C/G + c, o*s - pad + k*d] * W[m, c, k...] with
 * G = group, g = m / (M/G); positions outside X contribute nothing (zero padding; for integer
 * convs the padded x equals the zero point, so the product is zero). */
int cpu_conv_core(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, lir_dtype acc_t, lir_buf *zx, lir_buf *zw,
                     const post *p) {
  if (X->ndim < 3 || W->ndim != X->ndim || Y->ndim != X->ndim) return bad(l, "X, W, Y ranks differ or below 3");
  convp c;
  int rc = cpu_window(l, X, Y, W->shape + 2, &c);
  if (rc) return rc;
  int nk;
  const int64_t *ks = ints(l, "kernel_shape", &nk);
  for (int i = 0; ks && i < nk && i < c.k; i++)
    if (ks[i] != W->shape[2 + i]) return bad(l, "kernel_shape differs from W");
  int64_t G = ovta_node_attr_i(l->n, "group", 1);
  int64_t C = X->shape[1], M = W->shape[0], Cg = W->shape[1];
  if (G < 1 || C % G || M % G || Cg != C / G || Y->shape[1] != M) return bad(l, "channels do not match group");
  for (int i = 0; i < c.k; i++) {
    int64_t o = (X->shape[2 + i] + c.pad[i] + c.pad_end[i] - ((c.kern[i] - 1) * c.dil[i] + 1)) / c.stride[i] + 1;
    if (o != Y->shape[2 + i]) return bad(l, "output shape does not match the conv attributes");
  }
  if (!zx && !zw) { /* 2-D float and 8-bit convs: the tiled schedules (conv_tiled.c) */
    rc = cpu_conv_fast(l, X, W, Y, &c, G, acc_t, p);
    if (rc <= 0) return rc;
  }
  if (l->w8 != LIR_VOID) return cpu_no_f32w(l); /* the generic schedule reads 8-bit W */
  /* for n, m, spatial dims but the last: row[:] = 0; for c, k...: for the last output dim ow over
   * the range where the input position is inside (so no test, vectorized): row[ow] += x * w;
   * then the post-op over ow. Outer spatial dims keep a select on their bounds. */
  int yr = Y->ndim, ls = c.k - 1; /* last spatial dim */
  int64_t OW = Y->shape[yr - 1], IW = X->shape[yr - 1];
  lir_nest n, r;
  lir_nest_open(F, &n, yr - 1, Y->shape, "o");
  int64_t rext[LIR_MAX_DIMS];
  rext[0] = Cg;
  for (int i = 0; i < c.k; i++) rext[1 + i] = c.kern[i];
  lir_nest_open(F, &r, 1 + c.k, rext, "r");
  lir_var *ow = lir_var_new(F, "ow", LIR_I64), *j1 = lir_var_new(F, "j", LIR_I64), *j3 = lir_var_new(F, "j", LIR_I64);
  lir_expr *owe = lir_ref(F, ow);
  lir_expr *xi[LIR_MAX_DIMS], *wi[LIR_MAX_DIMS], *inb = NULL;
  xi[0] = n.idx[0];
  xi[1] = G == 1 ? r.idx[0] : lir_add(F, lir_muli(F, lir_bin(F, LIR_DIV, n.idx[1], I(M / G)), Cg), r.idx[0]);
  wi[0] = n.idx[1];
  wi[1] = r.idx[0];
  for (int i = 0; i < ls; i++) {
    lir_expr *pos = lir_add(F, lir_addi(F, lir_muli(F, n.idx[2 + i], c.stride[i]), -c.pad[i]),
                            lir_muli(F, r.idx[1 + i], c.dil[i]));
    int64_t in = X->shape[2 + i];
    bool may_lo = c.pad[i] > 0, may_hi = (Y->shape[2 + i] - 1) * c.stride[i] - c.pad[i] + (c.kern[i] - 1) * c.dil[i] >= in;
    if (may_lo) inb = band(l, inb, lir_bin(F, LIR_GE, pos, I(0)));
    if (may_hi) inb = band(l, inb, lir_bin(F, LIR_LT, pos, I(in)));
    xi[2 + i] = (may_lo || may_hi) ? clampi(l, pos, 0, in - 1) : pos;
    wi[2 + i] = r.idx[1 + i];
  }
  /* last dim: position ow*s - pad + kw*d = ow*s - a with a = pad - kw*d; inside for
   * ow in [max(0, ceil(a/s)), min(OW, floor((IW-1+a)/s) + 1)) */
  int64_t s_ = c.stride[ls];
  lir_expr *kw = r.idx[1 + ls];
  lir_expr *a = lir_sub(F, I(c.pad[ls]), lir_muli(F, kw, c.dil[ls]));
  lir_expr *lo = lir_max(F, I(0), lir_bin(F, LIR_FLOORDIV, lir_addi(F, a, s_ - 1), I(s_)));
  lir_expr *hi = lir_min(F, I(OW), lir_addi(F, lir_bin(F, LIR_FLOORDIV, lir_addi(F, a, IW - 1), I(s_)), 1));
  lir_expr *ext = lir_max(F, I(0), lir_sub(F, hi, lo));
  xi[yr - 1] = lir_sub(F, lir_muli(F, owe, s_), a);
  wi[yr - 1] = kw;
  lir_expr *t = cpu_prod(l, acc_t, lir_load(F, X, xi), zx ? lir_load1(F, zx, I(0)) : NULL, lir_load(F, W, wi),
                     zw ? pload(l, zw, n.idx[1]) : NULL);
  if (inb) t = lir_select(F, inb, t, cst(l, acc_t, 0));
  lir_buf *acc = lir_buf_new(F, "acc", acc_t, 1, &OW, LIR_SCOPE_LOCAL);
  lir_stmt *upd = lir_for(F, ow, lo, ext, LIR_FOR_VECTORIZED,
                          lir_store(F, acc, &owe, lir_add(F, lir_load(F, acc, &owe), t)));
  lir_expr *oidx[LIR_MAX_DIMS];
  for (int d = 0; d < yr - 1; d++) oidx[d] = n.idx[d];
  oidx[yr - 1] = lir_ref(F, j3);
  lir_expr *c1 = lir_ref(F, j1);
  lir_block blk;
  lir_block_init(&blk, F);
  lir_block_add(&blk, lir_for(F, j1, I(0), I(OW), LIR_FOR_VECTORIZED, lir_store(F, acc, &c1, cst(l, acc_t, 0))));
  lir_block_add(&blk, lir_nest_close(F, &r, upd, LIR_FOR_SERIAL));
  lir_block_add(&blk, lir_for(F, j3, I(0), I(OW), LIR_FOR_VECTORIZED,
                              cpu_post_store(l, p, Y, oidx, n.idx[1], lir_load(F, acc, &oidx[yr - 1]))));
  F->body = lir_alloc_stmt(F, acc, lir_nest_close(F, &n, lir_block_stmt(&blk), LIR_FOR_SERIAL));
  return 0;
}

/* Conv (X, W, [B]): 1-D/2-D/3-D cross-correlation with pads (or auto_pad), strides, dilations,
 * group (depthwise when group = C), bias B[M] added per output channel. */
static int lower_conv(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(l->out[0]->dtype)) return unsup(l, "integer Conv");
  post p = {.kind = P_BIAS_F, .bias = l->in[2], .act = U_IDENT};
  return cpu_conv_core(l, l->in[0], l->in[1], l->out[0], l->out[0]->dtype, NULL, NULL, &p);
}

/* ConvInteger (x, w, [x_zero_point], [w_zero_point]): y(int32) = conv(x - x_zp, w - w_zp);
 * w_zero_point scalar or per output channel. */
static int lower_conv_integer(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_STORE};
  return cpu_conv_core(l, l->in[0], l->in[1], l->out[0], LIR_I32, l->in[2], l->in[3], &p);
}

/* QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, [B:int32]):
 * y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B) * x_scale * w_scale / y_scale) + y_zp);
 * w_scale and w_zp scalar or per output channel. */
static int lower_qlinear_conv(L *l) {
  for (int i = 0; i < 8; i++)
    if (!l->in[i] && i != 2 && i != 5 && i != 7) return bad(l, "missing input");
  post p = {.kind = P_QLINEAR, .bias = l->in[8], .sa = l->in[1], .sb = l->in[4], .sy = l->in[6], .zy = l->in[7]};
  return cpu_conv_core(l, l->in[0], l->in[3], l->out[0], LIR_I32, l->in[2], l->in[5], &p);
}

/* The activation of a fused op (attribute "act"). */
int cpu_fused_act(L *l, post *p) {
  const char *a = ovta_node_attr_s(l->n, "act", "none");
  p->act = U_IDENT;
  if (strcmp(a, "none") == 0) return 0;
  if (strcmp(a, "relu") == 0) p->act = U_RELU;
  else if (strcmp(a, "clip") == 0) {
    p->clip = true;
    p->clip_lo = ovta_node_attr_f(l->n, "act_min", -INFINITY);
    p->clip_hi = ovta_node_attr_f(l->n, "act_max", INFINITY);
  } else if (strcmp(a, "leakyrelu") == 0) p->act = U_LEAKY, p->act_a = ovta_node_attr_f(l->n, "act_alpha", 0.01f);
  else if (strcmp(a, "sigmoid") == 0) p->act = U_SIGMOID;
  else if (strcmp(a, "tanh") == 0) p->act = U_TANH;
  else if (strcmp(a, "hardsigmoid") == 0)
    p->act = U_HSIG, p->act_a = ovta_node_attr_f(l->n, "act_alpha", 0.2f), p->act_b = ovta_node_attr_f(l->n, "act_beta", 0.5f);
  else if (strcmp(a, "hardswish") == 0) p->act = U_HSWISH;
  else return unsup(l, "fused activation");
  return 0;
}

/* ovta.Conv / ovta.Dense: float conv / X[M,K] * W[N,K]^T, + bias, then the activation. */
static int lower_fused_float(L *l, bool dense) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_BIAS_F, .bias = l->in[2]};
  int rc = cpu_fused_act(l, &p);
  if (rc) return rc;
  if (dense) {
    if (l->in[0]->ndim != 2 || l->in[1]->ndim != 2) return bad(l, "X and W must be 2-D");
    return cpu_matmul_core(l, l->in[0], l->in[1], l->out[0], false, true, LIR_F32, NULL, NULL, &p);
  }
  return cpu_conv_core(l, l->in[0], l->in[1], l->out[0], LIR_F32, NULL, NULL, &p);
}

/* ovta.QConv / ovta.QDense with `shifts` (graph.h): a local i32 buffer of the per-channel shifts (clamped to
 * -32..32, the same requantization), filled at the start; *fill: its stores; *pos: every shift
 * in 1..31. */
static int qconv_shifts(L *l, lir_buf **sb, lir_stmt **fill, bool *pos) {
  const ovta_attr *a = ovta_node_attr(l->n, "shifts");
  *sb = NULL, *fill = NULL, *pos = true;
  if (!a) return 0;
  int64_t m = l->in[1]->ndim > 0 ? l->in[1]->shape[0] : -1;
  if (a->type != OVTA_ATTR_INTS || a->n != m) return bad(l, "shifts must be one INT per output channel");
  *sb = lir_buf_new(F, "shifts", LIR_I32, 1, &m, LIR_SCOPE_LOCAL);
  lir_block blk;
  lir_block_init(&blk, F);
  for (int64_t o = 0; o < m; o++) {
    int64_t v = a->ints[o] < -32 ? -32 : a->ints[o] > 32 ? 32 : a->ints[o];
    *pos &= v >= 1 && v <= 31;
    lir_expr *i = I(o);
    lir_block_add(&blk, lir_store(F, *sb, &i, lir_int(F, LIR_I32, v)));
  }
  *fill = lir_block_stmt(&blk);
  return 0;
}

/* ovta.QConv / ovta.QDense: int8 acc = sum x*w (int32) + b; y = clamp(ovta_requant(acc, shift),
 * clip_min, clip_max); with `shifts`: shifts[m] for output channel m. */
static int lower_fused_q(L *l, bool dense) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_QFUSED, .bias = l->in[2], .shift = (int)ovta_node_attr_i(l->n, "shift", 0),
            .qlo = ovta_node_attr_i(l->n, "clip_min", -128), .qhi = ovta_node_attr_i(l->n, "clip_max", 127)};
  if (dense && (l->in[0]->ndim != 2 || l->in[1]->ndim != 2)) return bad(l, "X and W must be 2-D");
  lir_stmt *fill;
  int rc = qconv_shifts(l, &p.shifts, &fill, &p.shifts_pos);
  if (!rc)
    rc = dense ? cpu_matmul_core(l, l->in[0], l->in[1], l->out[0], false, true, LIR_I32, NULL, NULL, &p)
               : cpu_conv_core(l, l->in[0], l->in[1], l->out[0], LIR_I32, NULL, NULL, &p);
  if (!rc && p.shifts) F->body = lir_alloc_stmt(F, p.shifts, SEQ(fill, F->body));
  return rc;
}

/* ---------------------------------------------------------------- table */

static int lower_fused_conv(L *l) { return lower_fused_float(l, false); }
static int lower_fused_dense(L *l) { return lower_fused_float(l, true); }
static int lower_qconv(L *l) { return lower_fused_q(l, false); }
static int lower_qdense(L *l) { return lower_fused_q(l, true); }

/* ConvTranspose: y[n, m, o..] = B[m] + sum over c of group g = m / (M/G) and k..:
 * x[n, g*C/G + c, i..] * W[g*C/G + c, m - g*M/G, k..] over the i.. with o = i*s - pad_begin + k*d
 * (inference made pads, strides, dilations and group explicit and resolved output_shape /
 * auto_pad into pads and Y's shape). Scheduled as a scatter: y = B (or 0); then for n, input
 * channel c, m of its group, k.., i..: y[n, m, i*s - pad_begin + k*d] += x[n, c, i..] * W[c, m, k..],
 * each product once (no taps that miss); rows outside y are skipped (if), and the innermost
 * loop over the last input dim runs only where the output position is inside y (vectorized:
 * its iterations write distinct outputs). */
static int lower_convtranspose(L *l) {
  lir_buf *X = l->in[0], *W = l->in[1], *Bb = l->in[2], *Y = l->out[0];
  if (!X || !W || !Y || X->ndim < 3 || W->ndim != X->ndim || Y->ndim != X->ndim) return bad(l, "X, W, Y ranks differ or below 3");
  int k = X->ndim - 2, ns, nd, np;
  const int64_t *st = ints(l, "strides", &ns), *dl = ints(l, "dilations", &nd), *pd = ints(l, "pads", &np);
  if ((st && ns != k) || (dl && nd != k) || (pd && np != 2 * k)) return bad(l, "strides/dilations/pads do not match the spatial rank");
  int64_t G = ovta_node_attr_i(l->n, "group", 1), C = X->shape[1], Mg = W->shape[1], Cg = C / (G > 0 ? G : 1);
  if (G < 1 || C % G || W->shape[0] != C || Y->shape[1] != Mg * G) return bad(l, "channels do not match group");
  lir_dtype t = Y->dtype;
  /* y = bias */
  lir_nest yn;
  lir_nest_open(F, &yn, Y->ndim, Y->shape, "y");
  lir_stmt *init = lir_nest_close(F, &yn, lir_store(F, Y, yn.idx, Bb ? lir_load1(F, Bb, yn.idx[1]) : cst(l, t, 0)), LIR_FOR_VECTORIZED);
  /* n, c, m, k.., i.. (all but the last input dim) */
  int64_t ext[LIR_MAX_DIMS + 4];
  int ne = 0;
  ext[ne++] = X->shape[0], ext[ne++] = C, ext[ne++] = Mg;
  for (int i = 0; i < k; i++) ext[ne++] = W->shape[2 + i];
  for (int i = 0; i < k - 1; i++) ext[ne++] = X->shape[2 + i];
  lir_nest n;
  lir_nest_open(F, &n, ne, ext, "t");
  lir_expr *nn = n.idx[0], *c = n.idx[1], *ml = n.idx[2], **kk = n.idx + 3, **ii = n.idx + 3 + k;
  lir_expr *m = G == 1 ? ml : lir_add(F, lir_muli(F, lir_bin(F, LIR_DIV, c, I(Cg)), Mg), ml);
  lir_expr *xi[LIR_MAX_DIMS], *wi[LIR_MAX_DIMS], *yi[LIR_MAX_DIMS], *inb = NULL;
  xi[0] = nn, xi[1] = c, wi[0] = c, wi[1] = ml, yi[0] = nn, yi[1] = m;
  for (int i = 0; i < k - 1; i++) {
    int64_t s = st ? st[i] : 1, d = dl ? dl[i] : 1, pb = pd ? pd[i] : 0, out = Y->shape[2 + i];
    lir_expr *o = lir_add(F, lir_addi(F, lir_muli(F, ii[i], s), -pb), lir_muli(F, kk[i], d));
    inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, o, I(0)), lir_bin(F, LIR_LT, o, I(out))));
    xi[2 + i] = ii[i], wi[2 + i] = kk[i], yi[2 + i] = o;
  }
  /* last dim: o = iw*s - a with a = pad_begin - kw*d, inside y for
   * iw in [max(0, ceil(a/s)), min(IW, floor((OUT-1+a)/s) + 1)) */
  int ls = k - 1;
  int64_t s = st ? st[ls] : 1, d = dl ? dl[ls] : 1, pb = pd ? pd[ls] : 0, OUT = Y->shape[2 + ls], IW = X->shape[2 + ls];
  lir_expr *a = lir_sub(F, I(pb), lir_muli(F, kk[ls], d));
  lir_expr *lo = lir_max(F, I(0), lir_bin(F, LIR_FLOORDIV, lir_addi(F, a, s - 1), I(s)));
  lir_expr *hi = lir_min(F, I(IW), lir_addi(F, lir_bin(F, LIR_FLOORDIV, lir_addi(F, a, OUT - 1), I(s)), 1));
  lir_var *iw = lir_var_new(F, "iw", LIR_I64);
  lir_expr *iwe = lir_ref(F, iw);
  xi[2 + ls] = iwe, wi[2 + ls] = kk[ls], yi[2 + ls] = lir_sub(F, lir_muli(F, iwe, s), a);
  lir_stmt *upd = lir_store(F, Y, yi, lir_add(F, lir_load(F, Y, yi), lir_mul(F, lir_load(F, X, xi), lir_load(F, W, wi))));
  lir_stmt *row = lir_for(F, iw, lo, lir_max(F, I(0), lir_sub(F, hi, lo)), LIR_FOR_VECTORIZED, upd);
  if (inb) row = lir_if(F, inb, row, NULL);
  F->body = lir_seq(F, 2, (lir_stmt *[]){init, lir_nest_close(F, &n, row, LIR_FOR_SERIAL)});
  return 0;
}

const cpu_rule cpu_rules_conv[] = {
    {"Conv", lower_conv},
    {"ConvTranspose", lower_convtranspose},
    {"ConvInteger", lower_conv_integer},
    {"QLinearConv", lower_qlinear_conv},
    {"ovta.Conv", lower_fused_conv},
    {"ovta.Dense", lower_fused_dense},
    {"ovta.QConv", lower_qconv},
    {"ovta.QDense", lower_qdense},
    {NULL, NULL},
};
