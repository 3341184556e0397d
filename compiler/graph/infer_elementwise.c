/* infer_elementwise.c: inference of elementwise operators, Softmax, ovta.Eltwise and ovta.QAdd.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* Relu, Sigmoid, Tanh, HardSwish, Identity, Neg, Abs, Exp: Y has X's type and shape.
 * LeakyRelu: alpha (float, default 0.01). HardSigmoid: alpha (0.2), beta (0.5). */
static int infer_unary(ctx *c) {
  int rc;
  ovta_tensor *x;
  const char *op = c->n->op;
  if (!strcmp(op, "LeakyRelu")) rc = ix_allow(c, "alpha") || ix_attr_type(c, "alpha", OVTA_ATTR_FLOAT);
  else if (!strcmp(op, "HardSigmoid"))
    rc = ix_allow(c, "alpha,beta") || ix_attr_type(c, "alpha", OVTA_ATTR_FLOAT) || ix_attr_type(c, "beta", OVTA_ATTR_FLOAT);
  else rc = ix_allow(c, "");
  if (rc || (rc = ix_count_io(c, 1, 1, 1, 1)) || (rc = ix_need(c, 0, &x))) return c->err->code;
  if (strcmp(op, "Identity") && strcmp(op, "Relu") && strcmp(op, "Neg") && strcmp(op, "Abs") && !ix_is_float(x->dtype))
    return ix_bad(c, OVTA_EINVAL, "input '%s' must be a float tensor, is %s", x->name, ovta_dtype_name(x->dtype));
  return ix_same_as(c, 0, x);
}

/* Clip (11+): Y = min(max(X, min), max); min/max optional scalar inputs of X's type. */
static int infer_clip(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "") || ix_count_io(c, 1, 3, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  for (int i = 1; i <= 2; i++) {
    ovta_tensor *b = ix_in(c, i);
    if (b && (b->dtype != x->dtype || (b->rank > 0 && ovta_tensor_numel(b) != 1)))
      return ix_bad(c, OVTA_EINVAL, "input %d '%s' must be a scalar of type %s", i, b->name, ovta_dtype_name(x->dtype));
  }
  return ix_same_as(c, 0, x);
}

/* Add, Sub, Mul, Div (7+): A and B of the same type, multidirectional broadcasting. */
static int infer_binary(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 1, &b)) return c->err->code;
  if (a->dtype != b->dtype)
    return ix_bad(c, OVTA_EINVAL, "inputs '%s' (%s) and '%s' (%s) differ in type", a->name, ovta_dtype_name(a->dtype), b->name,
               ovta_dtype_name(b->dtype));
  if (ix_broadcast(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, a->dtype, r, s);
}

/* Softmax (13+): axis (default -1) in [-r, r-1]; Y has X's type and shape. */
static int infer_softmax(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "axis") || ix_attr_type(c, "axis", OVTA_ATTR_INT) || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  int64_t axis = ovta_node_attr_i(c->n, "axis", -1);
  if (!ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input must be float");
  if (ix_norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  return ix_same_as(c, 0, x);
}

static const char *const ELT_UNARY[] = {"Relu", "Sigmoid", "Tanh", "HardSwish", "Neg", "Abs", "Exp", "Identity", NULL};
static const char *const ELT_BINARY[] = {"Add", "Sub", "Mul", "Div", NULL};

static int in_list(const char *s, size_t n, const char *const *l) {
  for (int i = 0; l[i]; i++)
    if (strlen(l[i]) == n && !strncmp(l[i], s, n)) return 1;
  return 0;
}

/* ovta.Eltwise: the chain in "ops" (graph.h); the output broadcasts every input. */
static int infer_eltwise(ctx *c) {
  ovta_tensor *x, *y;
  if (ix_allow(c, "ops") || ix_need(c, 0, &x)) return c->err->code;
  const char *ops = ovta_node_attr_s(c->n, "ops", NULL);
  if (!ops || !*ops) return ix_bad(c, OVTA_EINVAL, "attribute 'ops' is required");
  int nbin = 0;
  for (const char *p = ops; *p;) {
    const char *q = strchr(p, ',');
    size_t l = q ? (size_t)(q - p) : strlen(p);
    if (in_list(p, l, ELT_BINARY)) nbin++;
    else if (!in_list(p, l, ELT_UNARY)) return ix_bad(c, OVTA_EINVAL, "'%.*s' is not an Eltwise op", (int)l, p);
    p = q ? q + 1 : p + l;
  }
  if (c->n->n_inputs != 1 + nbin || c->n->n_outputs != 1)
    return ix_bad(c, OVTA_EINVAL, "needs %d inputs for its %d binary ops, and one output", 1 + nbin, nbin);
  ovta_tensor acc = *x;
  for (int i = 1; i <= nbin; i++) {
    if (ix_need(c, i, &y)) return c->err->code;
    if (y->dtype != x->dtype) return ix_bad(c, OVTA_EINVAL, "input %d differs in type", i);
    int r;
    int64_t s[OVTA_MAX_RANK];
    if (ix_broadcast(c, &acc, y, &r, s)) return c->err->code;
    acc.rank = r;
    memcpy(acc.shape, s, sizeof s);
  }
  return ix_set_out(c, 0, x->dtype, acc.rank, acc.shape);
}

/* ovta.QAdd (graph.h): A, B i8 of one shape (no broadcasting) -> Y i8 of that shape;
 * shift_a, shift_b in 0..31. */
static int infer_qadd(ctx *c) {
  ovta_tensor *a, *b;
  if (ix_allow(c, "shift_a,shift_b,shift,clip_min,clip_max") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &a) ||
      ix_need(c, 1, &b))
    return c->err->code;
  if (a->dtype != OVTA_DT_I8 || b->dtype != OVTA_DT_I8) return ix_bad(c, OVTA_EINVAL, "A and B must be i8");
  if (a->rank != b->rank || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)(a->rank > 0 ? a->rank : 0)))
    return ix_bad(c, OVTA_EINVAL, "A and B must have the same shape (no broadcasting)");
  int64_t sa = ovta_node_attr_i(c->n, "shift_a", 0), sb = ovta_node_attr_i(c->n, "shift_b", 0);
  if (sa < 0 || sa > 31 || sb < 0 || sb > 31) return ix_bad(c, OVTA_EINVAL, "shift_a and shift_b must be 0..31");
  return ix_set_out(c, 0, OVTA_DT_I8, a->rank, a->shape);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_elementwise[] = {
    {"Relu", infer_unary},
    {"LeakyRelu", infer_unary},
    {"Sigmoid", infer_unary},
    {"HardSigmoid", infer_unary},
    {"HardSwish", infer_unary},
    {"Tanh", infer_unary},
    {"Identity", infer_unary},
    {"Neg", infer_unary},
    {"Abs", infer_unary},
    {"Exp", infer_unary},
    {"Clip", infer_clip},
    {"Add", infer_binary},
    {"Sub", infer_binary},
    {"Mul", infer_binary},
    {"Div", infer_binary},
    {"Softmax", infer_softmax},
    {"ovta.Eltwise", infer_eltwise},
    {"ovta.QAdd", infer_qadd},
    {NULL, NULL},
};
