/* infer_elementwise.c: inference of elementwise operators, Softmax, ovta.Eltwise and ovta.QAdd.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* The unary operators: Y has X's type and shape. Which inputs they take and their (FLOAT)
 * attributes with the ONNX defaults:
 *   any type: Identity; numeric (and bool, as before): Relu, Neg, Abs; numeric: Sign;
 *   float: Sigmoid, Tanh, HardSwish, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round (half to
 *   even), Erf, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Softplus
 *   (log(exp(x) + 1)), Softsign (x / (1 + |x|)), Mish (x * tanh(softplus(x))),
 *   LeakyRelu (alpha 0.01), HardSigmoid (alpha 0.2, beta 0.5), Elu (alpha 1), Celu (alpha 1),
 *   Selu (alpha 1.6732632, gamma 1.0507010), ThresholdedRelu (alpha 1), Shrink (bias 0,
 *   lambd 0.5; numeric types). */
enum { T_ANY, T_NUM, T_FLOAT };
static const struct {
  const char *op;    /* operator */
  const char *attrs; /* its FLOAT attributes */
  int types;         /* T_ANY, T_NUM or T_FLOAT */
} UNARY[] = {
    {"Identity", "", T_ANY},     {"Relu", "", T_ANY},          {"Neg", "", T_ANY},
    {"Abs", "", T_ANY},          {"Sign", "", T_NUM},          {"Shrink", "bias,lambd", T_NUM},
    {"Sigmoid", "", T_FLOAT},    {"Tanh", "", T_FLOAT},        {"HardSwish", "", T_FLOAT},
    {"Exp", "", T_FLOAT},        {"Log", "", T_FLOAT},         {"Sqrt", "", T_FLOAT},
    {"Reciprocal", "", T_FLOAT}, {"Floor", "", T_FLOAT},       {"Ceil", "", T_FLOAT},
    {"Round", "", T_FLOAT},      {"Erf", "", T_FLOAT},         {"Sin", "", T_FLOAT},
    {"Cos", "", T_FLOAT},        {"Tan", "", T_FLOAT},         {"Asin", "", T_FLOAT},
    {"Acos", "", T_FLOAT},       {"Atan", "", T_FLOAT},        {"Sinh", "", T_FLOAT},
    {"Cosh", "", T_FLOAT},       {"Asinh", "", T_FLOAT},       {"Acosh", "", T_FLOAT},
    {"Atanh", "", T_FLOAT},      {"Softplus", "", T_FLOAT},    {"Softsign", "", T_FLOAT},
    {"Mish", "", T_FLOAT},       {"LeakyRelu", "alpha", T_FLOAT}, {"HardSigmoid", "alpha,beta", T_FLOAT},
    {"Elu", "alpha", T_FLOAT},   {"Celu", "alpha", T_FLOAT},   {"Selu", "alpha,gamma", T_FLOAT},
    {"ThresholdedRelu", "alpha", T_FLOAT},
};

/* Integer or float, not bool. */
static bool is_num(ovta_dtype t) { return t != OVTA_DT_BOOL && t != OVTA_DT_UNDEF && t != OVTA_DT_STRING; }

static int infer_unary(ctx *c) {
  ovta_tensor *x;
  size_t k = 0;
  while (k < sizeof UNARY / sizeof UNARY[0] && strcmp(UNARY[k].op, c->n->op)) k++;
  if (k == sizeof UNARY / sizeof UNARY[0]) return ix_bad(c, OVTA_EINVAL, "not a unary operator");
  if (ix_allow(c, UNARY[k].attrs)) return c->err->code;
  for (int i = 0; i < c->n->n_attrs; i++)
    if (ix_attr_type(c, c->n->attrs[i].name, OVTA_ATTR_FLOAT)) return c->err->code;
  if (ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (UNARY[k].types == T_FLOAT && !ix_is_float(x->dtype))
    return ix_bad(c, OVTA_EINVAL, "input '%s' must be a float tensor, is %s", x->name, ovta_dtype_name(x->dtype));
  if (UNARY[k].types == T_NUM && !is_num(x->dtype))
    return ix_bad(c, OVTA_EINVAL, "input '%s' must be a numeric tensor, is %s", x->name, ovta_dtype_name(x->dtype));
  return ix_same_as(c, 0, x);
}

/* Max, Min, Sum, Mean (8+, 13+): one or more inputs of one type (Sum and Mean: float),
 * multidirectional broadcasting over all of them. */
static int infer_variadic(ctx *c) {
  ovta_tensor *a, *b;
  if (ix_allow(c, "") || ix_count_io(c, 1, 1 << 20, 1, 1) || ix_need(c, 0, &a)) return c->err->code;
  bool flt = !strcmp(c->n->op, "Sum") || !strcmp(c->n->op, "Mean");
  if (flt ? !ix_is_float(a->dtype) : !is_num(a->dtype))
    return ix_bad(c, OVTA_EINVAL, "input '%s' has type %s", a->name, ovta_dtype_name(a->dtype));
  ovta_tensor acc = *a;
  for (int i = 1; i < c->n->n_inputs; i++) {
    if (ix_need(c, i, &b)) return c->err->code;
    if (b->dtype != a->dtype)
      return ix_bad(c, OVTA_EINVAL, "inputs '%s' (%s) and '%s' (%s) differ in type", a->name, ovta_dtype_name(a->dtype),
                    b->name, ovta_dtype_name(b->dtype));
    int r;
    int64_t s[OVTA_MAX_RANK];
    if (ix_broadcast(c, &acc, b, &r, s)) return c->err->code;
    acc.rank = r;
    memcpy(acc.shape, s, sizeof s);
  }
  return ix_set_out(c, 0, a->dtype, acc.rank, acc.shape);
}

/* Pow (15): Z = X ^ Y, X and Y numeric of possibly different types, multidirectional
 * broadcasting; Z has X's type. */
static int infer_pow(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 1, &b)) return c->err->code;
  if (!is_num(a->dtype) || !is_num(b->dtype)) return ix_bad(c, OVTA_EINVAL, "inputs must be numeric");
  if (ix_broadcast(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, a->dtype, r, s);
}

/* Mod (13): C = A mod B, one numeric type, multidirectional broadcasting; fmod (int, default
 * 0): 0 gives the sign of the divisor (integers only), 1 the sign of the dividend (C fmod);
 * float inputs need fmod = 1. */
static int infer_mod(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "fmod") || ix_attr_type(c, "fmod", OVTA_ATTR_INT) || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &a) ||
      ix_need(c, 1, &b))
    return c->err->code;
  int64_t fm = ovta_node_attr_i(c->n, "fmod", 0);
  if (fm != 0 && fm != 1) return ix_bad(c, OVTA_EINVAL, "fmod must be 0 or 1, is %lld", (long long)fm);
  if (a->dtype != b->dtype || !is_num(a->dtype)) return ix_bad(c, OVTA_EINVAL, "inputs must be numeric of one type");
  if (ix_is_float(a->dtype) && fm != 1) return ix_bad(c, OVTA_EINVAL, "float inputs need fmod=1");
  if (ix_broadcast(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, a->dtype, r, s);
}

/* PRelu (16): Y = X < 0 ? slope * X : X; slope of X's type, unidirectionally broadcastable to
 * X; Y has X's shape. */
static int infer_prelu(ctx *c) {
  ovta_tensor *x, *sl;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &sl)) return c->err->code;
  if (x->dtype != sl->dtype || !is_num(x->dtype)) return ix_bad(c, OVTA_EINVAL, "X and slope must be numeric of one type");
  if (ix_broadcast(c, x, sl, &r, s)) return c->err->code;
  if (r != x->rank || memcmp(s, x->shape, sizeof(int64_t) * (size_t)r))
    return ix_bad(c, OVTA_EINVAL, "slope '%s' does not broadcast to X's shape", sl->name);
  return ix_same_as(c, 0, x);
}

/* Cast (13): Y = X converted to type `to` (an ONNX TensorProto data type); CastLike (15): to the
 * type of input 1. Strings and the 8-bit floats are not tensor types here. */
static int infer_cast(ctx *c) {
  ovta_tensor *x, *like = NULL;
  bool cl = !strcmp(c->n->op, "CastLike");
  if (ix_allow(c, cl ? "" : "to,saturate") || ix_attr_type(c, "to", OVTA_ATTR_INT) ||
      ix_count_io(c, cl ? 2 : 1, cl ? 2 : 1, 1, 1) || ix_need(c, 0, &x) || (cl && ix_need(c, 1, &like)))
    return c->err->code;
  ovta_dtype to;
  if (cl) to = like->dtype;
  else {
    const ovta_attr *a = ovta_node_attr(c->n, "to");
    if (!a) return ix_bad(c, OVTA_EINVAL, "attribute 'to' is required");
    to = (ovta_dtype)a->i;
    if (a->i == OVTA_DT_STRING) return ix_bad(c, OVTA_EUNSUPPORTED, "cast to string is not supported");
    if (a->i < 1 || (a->i > OVTA_DT_U64 && a->i != OVTA_DT_BF16) || !strcmp(ovta_dtype_name(to), "?"))
      return ix_bad(c, OVTA_EUNSUPPORTED, "cast to ONNX data type %lld is not supported", (long long)a->i);
  }
  bool bf = x->dtype == OVTA_DT_BF16 || to == OVTA_DT_BF16;
  if (bf && !((x->dtype == OVTA_DT_BF16 || x->dtype == OVTA_DT_F32) && (to == OVTA_DT_BF16 || to == OVTA_DT_F32)))
    return ix_bad(c, OVTA_EUNSUPPORTED, "bfloat16 is cast only to and from float32 (here %s to %s)", ovta_dtype_name(x->dtype),
                  ovta_dtype_name(to));
  return ix_set_out(c, 0, to, x->rank, x->shape);
}

/* Dropout (13) at inference: Y = X (ratio ignored), the optional mask output all true. Inputs
 * ratio and training_mode are optional; training_mode must be a constant, and true only with a
 * constant ratio of 0 (then nothing is dropped either); training proper (random masks) is
 * refused. Attribute seed (12+), ratio (< 12). */
static int infer_dropout(ctx *c) {
  ovta_tensor *x, *tm;
  if (ix_allow(c, "seed,ratio,is_test") || ix_count_io(c, 1, 3, 1, 2) || ix_need(c, 0, &x)) return c->err->code;
  if ((tm = ix_in(c, 2))) {
    ovta_tensor *r = ix_in(c, 1);
    if (!tm->data) return ix_bad(c, OVTA_EUNSUPPORTED, "training_mode input '%s' is not a constant (training)", tm->name);
    bool zero_ratio = r && r->data && ovta_tensor_numel(r) == 1 && ovta_tensor_get_f(r, 0) == 0;
    if (ovta_tensor_numel(tm) == 1 && ovta_tensor_get_i(tm, 0) && !zero_ratio)
      return ix_bad(c, OVTA_EUNSUPPORTED, "training_mode=true (training, random masks) is not supported");
  }
  if (ix_same_as(c, 0, x)) return c->err->code;
  return ix_set_out(c, 1, OVTA_DT_BOOL, x->rank, x->shape);
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
    {"Relu", infer_unary},        {"LeakyRelu", infer_unary}, {"Sigmoid", infer_unary},
    {"HardSigmoid", infer_unary}, {"HardSwish", infer_unary}, {"Tanh", infer_unary},
    {"Identity", infer_unary},    {"Neg", infer_unary},       {"Abs", infer_unary},
    {"Exp", infer_unary},         {"Log", infer_unary},       {"Sqrt", infer_unary},
    {"Reciprocal", infer_unary},  {"Floor", infer_unary},     {"Ceil", infer_unary},
    {"Round", infer_unary},       {"Sign", infer_unary},      {"Erf", infer_unary},
    {"Sin", infer_unary},         {"Cos", infer_unary},       {"Tan", infer_unary},
    {"Asin", infer_unary},        {"Acos", infer_unary},      {"Atan", infer_unary},
    {"Sinh", infer_unary},        {"Cosh", infer_unary},      {"Asinh", infer_unary},
    {"Acosh", infer_unary},       {"Atanh", infer_unary},     {"Elu", infer_unary},
    {"Selu", infer_unary},        {"Celu", infer_unary},      {"ThresholdedRelu", infer_unary},
    {"Softplus", infer_unary},    {"Softsign", infer_unary},  {"Shrink", infer_unary},
    {"Mish", infer_unary},        {"Max", infer_variadic},    {"Min", infer_variadic},
    {"Sum", infer_variadic},      {"Mean", infer_variadic},   {"Pow", infer_pow},
    {"Mod", infer_mod},           {"PRelu", infer_prelu},     {"Cast", infer_cast},
    {"CastLike", infer_cast},     {"Dropout", infer_dropout},
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
