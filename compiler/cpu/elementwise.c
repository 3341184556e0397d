/* elementwise.c: elementwise operators (unary activations, broadcasting binaries, Clip,
 * ovta.Eltwise chains) lowered to one flat or broadcast loop nest each. */

#include "cpu_internal.h"

/* One unary activation on value x of dtype t. */
lir_expr *cpu_act_expr(L *l, unop_t op, lir_expr *x, double alpha, double beta) {
  lir_dtype t = x->dtype;
  switch (op) {
  case U_RELU: return lir_max(F, x, cst(l, t, 0));
  /* LeakyRelu: y = x < 0 ? alpha * x : x */
  case U_LEAKY:
    return lir_select(F, lir_bin(F, LIR_LT, x, cst(l, t, 0)), lir_mul(F, cst(l, t, alpha), x), x);
  case U_SIGMOID: return lir_call1(F, LIR_SIGMOID, x);
  /* HardSigmoid: y = max(0, min(1, alpha * x + beta)) */
  case U_HSIG:
    return lir_max(F, lir_min(F, lir_add(F, lir_mul(F, cst(l, t, alpha), x), cst(l, t, beta)), cst(l, t, 1)),
                   cst(l, t, 0));
  /* HardSwish: y = x * max(0, min(1, x/6 + 0.5)) */
  case U_HSWISH: {
    lir_expr *h = lir_add(F, lir_mul(F, x, cst(l, t, 1.0 / 6.0)), cst(l, t, 0.5));
    return lir_mul(F, x, lir_max(F, lir_min(F, h, cst(l, t, 1)), cst(l, t, 0)));
  }
  case U_TANH: return lir_call1(F, LIR_TANH, x);
  case U_IDENT: return x;
  case U_NEG: return lir_un(F, LIR_NEG, x);
  case U_ABS: return lir_call1(F, LIR_ABS, x);
  case U_EXP: return lir_call1(F, LIR_EXP, x);
  }
  unreachable();
}

/* Relu, LeakyRelu (alpha 0.01), Sigmoid, HardSigmoid (alpha 0.2, beta 0.5), HardSwish, Tanh,
 * Identity: y[i] = f(x[i]) elementwise. */
static int lower_unary(L *l, unop_t op, double alpha, double beta) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (op != U_RELU && op != U_IDENT && op != U_NEG && op != U_ABS && !lir_dtype_is_float(X->dtype))
    return unsup(l, "integer input to a float activation");
  view1(X);
  view1(Y);
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, cpu_act_expr(l, op, lir_load(F, X, n.idx), alpha, beta)));
  return 0;
}

/* Add, Sub, Mul, Div (and Max/Min of two): C = op(A, B) with multidirectional (numpy)
 * broadcasting: shapes right-aligned, each dim equal or 1. Integer Div truncates toward zero
 * (C semantics, like the ONNX reference for the integer tests). */
static int lower_binary(L *l, lir_binop op) {
  lir_buf *A = l->in[0], *B = l->in[1], *Y = l->out[0];
  if (!A || !B || !Y) return bad(l, "missing input or output");
  if (A->dtype != B->dtype) return bad(l, "inputs of different dtypes");
  int r = Y->ndim;
  for (int k = 0; k < 2; k++) {
    lir_buf *b = l->in[k];
    if (b->ndim > r) return bad(l, "input rank above the output rank");
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d] != 1 && b->shape[d] != Y->shape[r - b->ndim + d])
        return bad(l, "shapes do not broadcast");
  }
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *v = lir_bin(F, op, bload(l, A, r, n.idx), bload(l, B, r, n.idx));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* Clip: y = min(max(x, min), max); min/max from attributes (opset < 11) or optional inputs 1, 2
 * (opset >= 11); absent bounds do not clip. */
static int lower_clip(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  view1(X);
  view1(Y);
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  lir_expr *v = lir_load(F, X, n.idx);
  const ovta_attr *amin = ovta_node_attr(l->n, "min"), *amax = ovta_node_attr(l->n, "max");
  if (amin) v = lir_max(F, v, cst(l, X->dtype, amin->f));
  if (amax) v = lir_min(F, v, cst(l, X->dtype, amax->f));
  if (l->in[1]) v = lir_max(F, v, lir_load1(F, l->in[1], I(0)));
  if (l->in[2]) v = lir_min(F, v, lir_load1(F, l->in[2], I(0)));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* ovta.Eltwise (X, E1, ...): v = X; for each op in "ops": v = op(v[, next E]) with broadcasting. */
static int lower_eltwise(L *l) {
  lir_buf *Y = l->out[0];
  if (!l->in[0] || !Y) return bad(l, "missing input or output");
  const char *ops = ovta_node_attr_s(l->n, "ops", "");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *v = bload(l, l->in[0], Y->ndim, n.idx);
  int next = 1;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", ops);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    static const char *const bn[4] = {"Add", "Sub", "Mul", "Div"};
    static const lir_binop bo[4] = {LIR_ADD, LIR_SUB, LIR_MUL, LIR_DIV};
    static const char *const un[8] = {"Relu", "Sigmoid", "Tanh", "HardSwish", "Neg", "Abs", "Exp", "Identity"};
    static const unop_t uo[8] = {U_RELU, U_SIGMOID, U_TANH, U_HSWISH, U_NEG, U_ABS, U_EXP, U_IDENT};
    bool done = false;
    for (int k = 0; k < 4 && !done; k++)
      if (strcmp(tok, bn[k]) == 0) {
        if (next >= l->n->n_inputs || next >= MAXIO || !l->in[next]) return bad(l, "too few inputs for ops");
        v = lir_bin(F, bo[k], v, bload(l, l->in[next++], Y->ndim, n.idx));
        done = true;
      }
    for (int k = 0; k < 8 && !done; k++)
      if (strcmp(tok, un[k]) == 0) {
        v = cpu_act_expr(l, uo[k], v, 0, 0);
        done = true;
      }
    if (!done) return unsup(l, "eltwise op");
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* ---------------------------------------------------------------- table */

/* Max, Min of exactly two inputs (the binary rule above). */
static int lower_maxmin(L *l) {
  if (l->n->n_inputs != 2) return unsup(l, "other than two inputs");
  return lower_binary(l, strcmp(l->n->op, "Max") == 0 ? LIR_MAX : LIR_MIN);
}

static int lower_add(L *l) { return lower_binary(l, LIR_ADD); }
static int lower_sub(L *l) { return lower_binary(l, LIR_SUB); }
static int lower_mul(L *l) { return lower_binary(l, LIR_MUL); }
static int lower_div(L *l) { return lower_binary(l, LIR_DIV); }
static int lower_relu(L *l) { return lower_unary(l, U_RELU, 0, 0); }
static int lower_leaky(L *l) { return lower_unary(l, U_LEAKY, ovta_node_attr_f(l->n, "alpha", 0.01f), 0); }
static int lower_sigmoid(L *l) { return lower_unary(l, U_SIGMOID, 0, 0); }
static int lower_hardsigmoid(L *l) { return lower_unary(l, U_HSIG, ovta_node_attr_f(l->n, "alpha", 0.2f), ovta_node_attr_f(l->n, "beta", 0.5f)); }
static int lower_hardswish(L *l) { return lower_unary(l, U_HSWISH, 0, 0); }
static int lower_tanh(L *l) { return lower_unary(l, U_TANH, 0, 0); }
static int lower_neg(L *l) { return lower_unary(l, U_NEG, 0, 0); }
static int lower_abs(L *l) { return lower_unary(l, U_ABS, 0, 0); }
static int lower_exp(L *l) { return lower_unary(l, U_EXP, 0, 0); }

const cpu_rule cpu_rules_elementwise[] = {
    {"Add", lower_add},
    {"Sub", lower_sub},
    {"Mul", lower_mul},
    {"Div", lower_div},
    {"Max", lower_maxmin},
    {"Min", lower_maxmin},
    {"Relu", lower_relu},
    {"LeakyRelu", lower_leaky},
    {"Sigmoid", lower_sigmoid},
    {"HardSigmoid", lower_hardsigmoid},
    {"HardSwish", lower_hardswish},
    {"Tanh", lower_tanh},
    {"Neg", lower_neg},
    {"Abs", lower_abs},
    {"Exp", lower_exp},
    {"Clip", lower_clip},
    {"ovta.Eltwise", lower_eltwise},
    {NULL, NULL},
};
