/* infer_logic.c: inference of the logical, comparison and bitwise operators, Where, IsNaN and
 * IsInf. The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* A and B of one type (types: "bool", "num" or "int"), multidirectional broadcasting; the output
 * is bool (bool_out) or of that type. */
static int binary(ctx *c, const char *attrs, const char *types, bool bool_out) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, attrs) || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 1, &b)) return c->err->code;
  if (a->dtype != b->dtype)
    return ix_bad(c, OVTA_EINVAL, "inputs '%s' (%s) and '%s' (%s) differ in type", a->name, ovta_dtype_name(a->dtype), b->name,
                  ovta_dtype_name(b->dtype));
  ovta_dtype t = a->dtype;
  bool ok = !strcmp(types, "bool") ? t == OVTA_DT_BOOL
            : !strcmp(types, "uint") ? (t == OVTA_DT_U8 || t == OVTA_DT_U16 || t == OVTA_DT_U32 || t == OVTA_DT_U64)
                                     : t != OVTA_DT_STRING && t != OVTA_DT_UNDEF;
  if (!ok) return ix_bad(c, OVTA_EINVAL, "inputs of type %s are not allowed (%s)", ovta_dtype_name(t), types);
  if (ix_broadcast(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, bool_out ? OVTA_DT_BOOL : t, r, s);
}

/* And, Or, Xor (7): bool A, B, multidirectional broadcasting -> bool. */
static int infer_logical(ctx *c) { return binary(c, "", "bool", true); }

/* Equal, Less, Greater (13), LessOrEqual, GreaterOrEqual (16): A, B of one type (numeric; Equal
 * also bool), multidirectional broadcasting -> bool. */
static int infer_compare(ctx *c) { return binary(c, "", "any", true); }

/* BitShift (11): X, Y of one unsigned integer type, multidirectional broadcasting; direction
 * ("LEFT" or "RIGHT", required): Z = X << Y or X >> Y. */
static int infer_bitshift(ctx *c) {
  if (ix_attr_type(c, "direction", OVTA_ATTR_STRING)) return c->err->code;
  const char *d = ovta_node_attr_s(c->n, "direction", NULL);
  if (!d || (strcmp(d, "LEFT") && strcmp(d, "RIGHT")))
    return ix_bad(c, OVTA_EINVAL, "attribute 'direction' must be LEFT or RIGHT");
  return binary(c, "direction", "uint", false);
}

/* Not (1): bool X -> bool Y of its shape. */
static int infer_not(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (x->dtype != OVTA_DT_BOOL) return ix_bad(c, OVTA_EINVAL, "input '%s' must be bool", x->name);
  return ix_same_as(c, 0, x);
}

/* IsNaN (13): float X -> bool Y (x is NaN). IsInf (10): float X -> bool Y (x is +inf and
 * detect_positive, default 1, or -inf and detect_negative, default 1). */
static int infer_isnan_isinf(ctx *c) {
  ovta_tensor *x;
  bool inf = !strcmp(c->n->op, "IsInf");
  if (ix_allow(c, inf ? "detect_negative,detect_positive" : "") || ix_attr_type(c, "detect_negative", OVTA_ATTR_INT) ||
      ix_attr_type(c, "detect_positive", OVTA_ATTR_INT) || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x))
    return c->err->code;
  if (!ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "input '%s' must be float", x->name);
  return ix_set_out(c, 0, OVTA_DT_BOOL, x->rank, x->shape);
}

/* Where (16): bool condition, X and Y of one type, multidirectional broadcasting over the three;
 * output = condition ? X : Y, of X's type. */
static int infer_where(ctx *c) {
  ovta_tensor *cd, *x, *y;
  if (ix_allow(c, "") || ix_count_io(c, 3, 3, 1, 1) || ix_need(c, 0, &cd) || ix_need(c, 1, &x) || ix_need(c, 2, &y))
    return c->err->code;
  if (cd->dtype != OVTA_DT_BOOL) return ix_bad(c, OVTA_EINVAL, "condition '%s' must be bool", cd->name);
  if (x->dtype != y->dtype) return ix_bad(c, OVTA_EINVAL, "X and Y differ in type");
  ovta_tensor acc = *cd;
  int r;
  int64_t s[OVTA_MAX_RANK];
  for (int i = 1; i <= 2; i++) {
    if (ix_broadcast(c, &acc, i == 1 ? x : y, &r, s)) return c->err->code;
    acc.rank = r;
    memcpy(acc.shape, s, sizeof s);
  }
  return ix_set_out(c, 0, x->dtype, acc.rank, acc.shape);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_logic[] = {
    {"And", infer_logical},           {"Or", infer_logical},
    {"Xor", infer_logical},           {"Not", infer_not},
    {"Equal", infer_compare},         {"Less", infer_compare},
    {"Greater", infer_compare},       {"LessOrEqual", infer_compare},
    {"GreaterOrEqual", infer_compare}, {"BitShift", infer_bitshift},
    {"IsNaN", infer_isnan_isinf},     {"IsInf", infer_isnan_isinf},
    {"Where", infer_where},           {NULL, NULL},
};
