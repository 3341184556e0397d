/* logic.c: logical, comparison and bitwise operators, Where, IsNaN and IsInf lowered to one
 * broadcast loop nest each. Bool tensors are bytes 0/1 (LIR_U8); a comparison's LIR_BOOL is
 * widened to that on store. */

#include "cpu_internal.h"

/* A LIR_BOOL value as a bool tensor's byte. */
static lir_expr *byte(L *l, lir_expr *b) { return lir_cast(F, LIR_U8, b); }

/* And, Or, Xor: bool A, B (bytes 0/1), broadcasting: the bitwise op is the logical one. */
static int lower_and(L *l) { return cpu_binary(l, LIR_AND, false); }
static int lower_or(L *l) { return cpu_binary(l, LIR_OR, false); }
static int lower_xor(L *l) { return cpu_binary(l, LIR_XOR, false); }

/* Equal, Less, Greater, LessOrEqual, GreaterOrEqual: Y = A op B (bool), broadcasting; float
 * comparisons are ordered (false with a NaN). */
static int lower_equal(L *l) { return cpu_binary(l, LIR_EQ, true); }
static int lower_less(L *l) { return cpu_binary(l, LIR_LT, true); }
static int lower_greater(L *l) { return cpu_binary(l, LIR_GT, true); }
static int lower_less_equal(L *l) { return cpu_binary(l, LIR_LE, true); }
static int lower_greater_equal(L *l) { return cpu_binary(l, LIR_GE, true); }

/* BitShift: Z = X << Y (direction LEFT) or X >> Y (RIGHT, logical: unsigned types), broadcasting;
 * a shift by the bit width or more gives 0. */
static int lower_bitshift(L *l) {
  lir_buf *Z = l->out[0];
  if (!l->in[0] || !l->in[1] || !Z) return bad(l, "missing input or output");
  bool left = !strcmp(ovta_node_attr_s(l->n, "direction", ""), "LEFT");
  lir_nest n;
  lir_expr *v[2];
  if (cpu_bcast_open(l, Z, 2, &n, v)) return l->err->code;
  lir_dtype t = Z->dtype;
  lir_expr *s = lir_bin(F, left ? LIR_SHL : LIR_SHR, v[0], v[1]);
  lir_expr *big = lir_bin(F, LIR_GE, v[1], cst(l, t, 8 * lir_dtype_bytes(t)));
  F->body = over(l, &n, Z, lir_store(F, Z, n.idx, lir_select(F, big, cst(l, t, 0), s)));
  return 0;
}

/* Not: Y = !X on bool (byte x ^ 1). */
static int lower_not(L *l) {
  lir_nest n;
  lir_expr *x;
  if (flat_open(l, &n, &x)) return l->err->code;
  flat_close(l, &n, lir_bin(F, LIR_XOR, x, cst(l, l->in[0]->dtype, 1)), NULL);
  return 0;
}

/* IsNaN: Y = x != x. IsInf: Y = (detect_positive && x == +inf) || (detect_negative && x == -inf). */
static int lower_isnan_isinf(L *l) {
  lir_nest n;
  lir_expr *x, *y;
  if (flat_open(l, &n, &x)) return l->err->code;
  lir_buf *X = l->in[0];
  if (!lir_dtype_is_float(X->dtype)) return bad(l, "input must be float");
  if (!strcmp(l->n->op, "IsNaN")) y = lir_bin(F, LIR_NE, x, x);
  else {
    bool pos = ovta_node_attr_i(l->n, "detect_positive", 1), neg = ovta_node_attr_i(l->n, "detect_negative", 1);
    lir_expr *p = lir_bin(F, LIR_EQ, x, lir_float(F, X->dtype, INFINITY));
    lir_expr *m = lir_bin(F, LIR_EQ, x, lir_float(F, X->dtype, -INFINITY));
    y = pos && neg ? lir_bin(F, LIR_OR, p, m) : pos ? p : neg ? m : lir_int(F, LIR_BOOL, 0);
  }
  flat_close(l, &n, byte(l, y), NULL);
  return 0;
}

/* Where: Y = condition ? X : Y with multidirectional broadcasting over the three. */
static int lower_where(L *l) {
  lir_buf *Y = l->out[0];
  if (!l->in[0] || !l->in[1] || !l->in[2] || !Y) return bad(l, "missing input or output");
  lir_nest n;
  lir_expr *v[3];
  if (cpu_bcast_open(l, Y, 3, &n, v)) return l->err->code;
  lir_expr *y = lir_select(F, lir_cast(F, LIR_BOOL, v[0]), v[1], v[2]);
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, y));
  return 0;
}

/* ---------------------------------------------------------------- table */

const cpu_rule cpu_rules_logic[] = {
    {"And", lower_and},
    {"Or", lower_or},
    {"Xor", lower_xor},
    {"Not", lower_not},
    {"Equal", lower_equal},
    {"Less", lower_less},
    {"Greater", lower_greater},
    {"LessOrEqual", lower_less_equal},
    {"GreaterOrEqual", lower_greater_equal},
    {"BitShift", lower_bitshift},
    {"IsNaN", lower_isnan_isinf},
    {"IsInf", lower_isnan_isinf},
    {"Where", lower_where},
    {NULL, NULL},
};
