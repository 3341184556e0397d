/* infer_norm.c: inference of the normalizations and the losses: LogSoftmax, Hardmax,
 * LayerNormalization, InstanceNormalization, LRN, MeanVarianceNormalization,
 * SoftmaxCrossEntropyLoss, NegativeLogLikelihoodLoss (Softmax and BatchNormalization live in
 * infer_elementwise.c / infer_conv.c). The ONNX rule of each operator stands above its
 * function; infer.c says what inference guarantees. */

#include "infer_internal.h"

/* LogSoftmax, Hardmax: opset < 13: axis (default 1) in [-r, r-1], the input coerced to 2-D
 * [prod(dims < axis), prod(dims >= axis)] and normalized over the second; opset >= 13: axis
 * (default -1), normalized over that axis only. LogSoftmax: x - max - log(sum(exp(x - max)));
 * Hardmax: 1 at the first maximum, 0 elsewhere. Y has X's type (float) and shape. */
static int infer_softmax_like(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "axis") || ix_attr_type(c, "axis", OVTA_ATTR_INT) || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  bool old = c->g->opset && c->g->opset < 13;
  int64_t axis = ovta_node_attr_i(c->n, "axis", old ? 1 : -1);
  if (!ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input must be float");
  if (x->rank < 1) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 1");
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  return ix_same_as(c, 0, x);
}

/* The float types the normalizations compute in. */
static int need_float(ctx *c, const ovta_tensor *t) {
  if (t->dtype != OVTA_DT_F32 && t->dtype != OVTA_DT_F64)
    return ix_bad(c, OVTA_EUNSUPPORTED, "'%s' has type %s (f32/f64 only)", t->name, ovta_dtype_name(t->dtype));
  return OVTA_OK;
}

/* t broadcasts (unidirectionally, right-aligned) to the trailing dims shape[0..n). */
static int bcast_to(ctx *c, const ovta_tensor *t, int n, const int64_t *shape) {
  if (t->rank > n) return ix_bad(c, OVTA_EINVAL, "'%s' has rank %d > %d", t->name, t->rank, n);
  for (int d = 0; d < t->rank; d++) {
    int64_t want = shape[n - t->rank + d];
    if (t->shape[d] != 1 && t->shape[d] != want)
      return ix_bad(c, OVTA_EINVAL, "'%s' does not broadcast to the normalized shape (dim %d: %lld vs %lld)", t->name, d,
                    (long long)t->shape[d], (long long)want);
  }
  return OVTA_OK;
}

/* LayerNormalization (17): X, Scale, optional B; axis (-1) in [-r, r-1], epsilon (1e-5),
 * stash_type (1). The statistics run over the dims axis..r-1: Y = (X - mean) / sqrt(var +
 * epsilon) * Scale + B (Scale, B broadcast to X.shape[axis:]). Optional outputs Mean and
 * InvStdDev (1 / sqrt(var + epsilon)): f32, X's shape with dims axis.. set to 1. */
static int infer_layernorm(ctx *c) {
  ovta_tensor *x, *s, *b;
  if (ix_allow(c, "axis,epsilon,stash_type") || ix_attr_type(c, "axis", OVTA_ATTR_INT) ||
      ix_attr_type(c, "epsilon", OVTA_ATTR_FLOAT) || ix_attr_type(c, "stash_type", OVTA_ATTR_INT) ||
      ix_count_io(c, 2, 3, 1, 3) || ix_need(c, 0, &x) || ix_need(c, 1, &s) || need_float(c, x))
    return c->err->code;
  int64_t axis = ovta_node_attr_i(c->n, "axis", -1);
  if (ovta_node_attr_i(c->n, "stash_type", 1) != 1) return ix_bad(c, OVTA_EUNSUPPORTED, "stash_type other than 1 (float)");
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  int n = x->rank - (int)axis;
  if (s->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "Scale '%s' differs in type from X", s->name);
  if (bcast_to(c, s, n, x->shape + axis)) return c->err->code;
  if ((b = ix_in(c, 2))) {
    if (ix_need(c, 2, &b)) return c->err->code;
    if (b->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "B '%s' differs in type from X", b->name);
    if (bcast_to(c, b, n, x->shape + axis)) return c->err->code;
  }
  int64_t st[OVTA_MAX_RANK];
  for (int d = 0; d < x->rank; d++) st[d] = d < axis ? x->shape[d] : 1;
  if (ix_same_as(c, 0, x) || ix_set_out(c, 1, OVTA_DT_F32, x->rank, st) || ix_set_out(c, 2, OVTA_DT_F32, x->rank, st))
    return c->err->code;
  return OVTA_OK;
}

/* InstanceNormalization (1, 6): input [N, C, D1...] (rank >= 3), scale [C], B [C]; epsilon
 * (1e-5). Per (n, c) over the spatial dims: y = scale[c] * (x - mean) / sqrt(var + epsilon) + B[c]. */
static int infer_instancenorm(ctx *c) {
  ovta_tensor *x, *s, *b;
  if (ix_allow(c, "epsilon") || ix_attr_type(c, "epsilon", OVTA_ATTR_FLOAT) || ix_count_io(c, 3, 3, 1, 1) ||
      ix_need(c, 0, &x) || ix_need(c, 1, &s) || ix_need(c, 2, &b) || need_float(c, x))
    return c->err->code;
  if (x->rank < 3) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 3");
  for (int i = 1; i <= 2; i++) {
    ovta_tensor *t = i == 1 ? s : b;
    if (t->dtype != x->dtype || t->rank != 1 || t->shape[0] != x->shape[1])
      return ix_bad(c, OVTA_EINVAL, "'%s' must be a 1-D %s tensor of C = %lld values", t->name, ovta_dtype_name(x->dtype),
                    (long long)x->shape[1]);
  }
  return ix_same_as(c, 0, x);
}

/* LRN (1, 13): X [N, C, D1...] (rank >= 3); size (required, >= 1), alpha (1e-4), beta (0.75),
 * bias (1). square_sum[n,c,..] = sum of x[n,i,..]^2 for i in [c - floor((size-1)/2),
 * c + ceil((size-1)/2)] within [0, C); y = x / (bias + alpha / size * square_sum)^beta. */
static int infer_lrn(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "size,alpha,beta,bias") || ix_attr_type(c, "size", OVTA_ATTR_INT) ||
      ix_attr_type(c, "alpha", OVTA_ATTR_FLOAT) || ix_attr_type(c, "beta", OVTA_ATTR_FLOAT) ||
      ix_attr_type(c, "bias", OVTA_ATTR_FLOAT) || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x) || need_float(c, x))
    return c->err->code;
  if (ovta_node_attr_i(c->n, "size", 0) < 1) return ix_bad(c, OVTA_EINVAL, "attribute 'size' (>= 1) is required");
  if (x->rank < 3) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 3");
  return ix_same_as(c, 0, x);
}

/* MeanVarianceNormalization (9, 13): axes (default [0, 2, 3]); Y = (X - mean) / sqrt(var + 1e-9)
 * with mean and var = mean((X - mean)^2) over the axes (the 1e-9 of the ONNX function body). */
static int infer_mvn(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "axes") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x) || need_float(c, x)) return c->err->code;
  const ovta_attr *a = ovta_node_attr(c->n, "axes");
  if (a) {
    if (a->type != OVTA_ATTR_INTS) return ix_bad(c, OVTA_EINVAL, "attribute 'axes' must be a list of ints");
    bool seen[OVTA_MAX_RANK] = {0};
    for (int i = 0; i < a->n; i++) {
      int64_t ax = a->ints[i];
      if (ix_norm_axis(c, &ax, x->rank, false, "axis")) return c->err->code;
      if (seen[ax]) return ix_bad(c, OVTA_EINVAL, "axis %lld appears twice", (long long)ax);
      seen[ax] = true;
    }
  } else if (x->rank < 4) {
    return ix_bad(c, OVTA_EINVAL, "the default axes [0, 2, 3] need rank >= 4");
  }
  return ix_same_as(c, 0, x);
}

/* NegativeLogLikelihoodLoss (12, 13): input [N, C, d1...], target [N, d1...] (int32/int64),
 * optional weight [C]; reduction ("mean", "sum", "none"), ignore_index (optional).
 * loss[n, d] = -input[n, target[n, d], d] * weight[target[n, d]] (0 where target == ignore_index);
 * none: loss [N, d1...]; sum: its sum; mean: its sum / the sum of the weights used (scalar).
 * SoftmaxCrossEntropyLoss (12, 13): scores, labels, optional weights, the same attributes:
 * log_prob = LogSoftmax(scores, axis 1), then the loss above on log_prob; optional output 1
 * log_prob (scores' shape). Targets outside [0, C) other than ignore_index (an error in ONNX)
 * read the nearest class. */
static int infer_loss(ctx *c) {
  ovta_tensor *x, *t, *w;
  bool sce = !strcmp(c->n->op, "SoftmaxCrossEntropyLoss");
  if (ix_allow(c, "reduction,ignore_index") || ix_attr_type(c, "ignore_index", OVTA_ATTR_INT) ||
      ix_attr_type(c, "reduction", OVTA_ATTR_STRING) || ix_count_io(c, 2, 3, 1, sce ? 2 : 1) || ix_need(c, 0, &x) ||
      ix_need(c, 1, &t) || need_float(c, x))
    return c->err->code;
  if (x->rank < 2) return ix_bad(c, OVTA_EINVAL, "input must have rank >= 2");
  if (t->dtype != OVTA_DT_I32 && t->dtype != OVTA_DT_I64) return ix_bad(c, OVTA_EINVAL, "target must be int32/int64");
  bool ok = t->rank == x->rank - 1 && t->shape[0] == x->shape[0];
  for (int d = 1; ok && d < t->rank; d++) ok = t->shape[d] == x->shape[d + 1];
  if (!ok) return ix_bad(c, OVTA_EINVAL, "target must have the input's shape without dim 1");
  if ((w = ix_in(c, 2))) {
    if (ix_need(c, 2, &w)) return c->err->code;
    if (w->dtype != x->dtype || w->rank != 1 || w->shape[0] != x->shape[1])
      return ix_bad(c, OVTA_EINVAL, "weight must be a 1-D %s tensor of C values", ovta_dtype_name(x->dtype));
  }
  const char *red = ovta_node_attr_s(c->n, "reduction", "mean");
  if (strcmp(red, "mean") && strcmp(red, "sum") && strcmp(red, "none"))
    return ix_bad(c, OVTA_EINVAL, "reduction '%s' is not mean, sum or none", red);
  int64_t scalar_shape[1] = {1}; /* rank 0: no dims read, but not a null pointer */
  int rc = !strcmp(red, "none") ? ix_set_out(c, 0, x->dtype, t->rank, t->shape) : ix_set_out(c, 0, x->dtype, 0, scalar_shape);
  if (rc || (sce && ix_same_as(c, 1, x))) return c->err->code;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_norm[] = {
    {"LogSoftmax", infer_softmax_like},
    {"Hardmax", infer_softmax_like},
    {"LayerNormalization", infer_layernorm},
    {"InstanceNormalization", infer_instancenorm},
    {"LRN", infer_lrn},
    {"MeanVarianceNormalization", infer_mvn},
    {"NegativeLogLikelihoodLoss", infer_loss},
    {"SoftmaxCrossEntropyLoss", infer_loss},
    {NULL, NULL},
};
