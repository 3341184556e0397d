/* elementwise.c: elementwise operators (unary math and activations, broadcasting binaries,
 * variadic Max/Min/Sum/Mean, Pow, Mod, PRelu, Cast, Dropout, Clip, ovta.Eltwise chains) lowered
 * to one flat or broadcast loop nest each. Logic, comparisons and bit shifts: logic.c. */

#include "cpu_internal.h"

/* The intrinsic of the unary operators that are one call. */
static const struct {
  unop_t op;      /* operator */
  lir_intrin fn;  /* its intrinsic */
} CALLS[] = {
    {U_SIGMOID, LIR_SIGMOID}, {U_TANH, LIR_TANH}, {U_ABS, LIR_ABS},     {U_EXP, LIR_EXP},     {U_LOG, LIR_LOG},
    {U_SQRT, LIR_SQRT},       {U_FLOOR, LIR_FLOOR}, {U_CEIL, LIR_CEIL}, {U_ROUND, LIR_ROUND_EVEN}, {U_ERF, LIR_ERF},
    {U_SIN, LIR_SIN},         {U_COS, LIR_COS},   {U_TAN, LIR_TAN},     {U_ASIN, LIR_ASIN},   {U_ACOS, LIR_ACOS},
    {U_ATAN, LIR_ATAN},       {U_SINH, LIR_SINH}, {U_COSH, LIR_COSH},   {U_ASINH, LIR_ASINH}, {U_ACOSH, LIR_ACOSH},
    {U_ATANH, LIR_ATANH},
};

/* One unary operator on value x of dtype t (the rules: the table of lower_unary below). */
lir_expr *cpu_act_expr(L *l, unop_t op, lir_expr *x, double alpha, double beta) {
  lir_dtype t = x->dtype;
  for (size_t k = 0; k < sizeof CALLS / sizeof CALLS[0]; k++)
    if (CALLS[k].op == op) return lir_call1(F, CALLS[k].fn, x);
  lir_expr *zero = cst(l, t, 0), *one = cst(l, t, 1);
  switch (op) {
  case U_RELU: return lir_max(F, x, zero);
  /* LeakyRelu: y = x < 0 ? alpha * x : x */
  case U_LEAKY: return lir_select(F, lir_bin(F, LIR_LT, x, zero), lir_mul(F, cst(l, t, alpha), x), x);
  /* HardSigmoid: y = max(0, min(1, alpha * x + beta)) */
  case U_HSIG: return lir_max(F, lir_min(F, lir_add(F, lir_mul(F, cst(l, t, alpha), x), cst(l, t, beta)), one), zero);
  /* HardSwish: y = x * max(0, min(1, x/6 + 0.5)) */
  case U_HSWISH: {
    lir_expr *h = lir_add(F, lir_mul(F, x, cst(l, t, 1.0 / 6.0)), cst(l, t, 0.5));
    return lir_mul(F, x, lir_max(F, lir_min(F, h, one), zero));
  }
  case U_IDENT: return x;
  case U_NEG: return lir_un(F, LIR_NEG, x);
  /* Reciprocal: y = 1 / x */
  case U_RECIP: return lir_bin(F, LIR_DIV, one, x);
  /* Sign: y = x > 0 ? 1 : x < 0 ? -1 : 0 */
  case U_SIGN:
    return lir_select(F, lir_bin(F, LIR_GT, x, zero), one,
                      lir_select(F, lir_bin(F, LIR_LT, x, zero), cst(l, t, -1), zero));
  /* Elu: y = x < 0 ? alpha * (exp(x) - 1) : x */
  case U_ELU:
    return lir_select(F, lir_bin(F, LIR_LT, x, zero),
                      lir_mul(F, cst(l, t, alpha), lir_sub(F, lir_call1(F, LIR_EXP, x), one)), x);
  /* Selu (alpha, gamma = beta): y = x <= 0 ? gamma * (alpha * exp(x) - alpha) : gamma * x */
  case U_SELU:
    return lir_mul(F, cst(l, t, beta),
                   lir_select(F, lir_bin(F, LIR_LE, x, zero),
                              lir_sub(F, lir_mul(F, cst(l, t, alpha), lir_call1(F, LIR_EXP, x)), cst(l, t, alpha)), x));
  /* Celu: y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
  case U_CELU: {
    lir_expr *e = lir_call1(F, LIR_EXP, lir_bin(F, LIR_DIV, x, cst(l, t, alpha)));
    return lir_add(F, lir_max(F, x, zero), lir_min(F, lir_mul(F, cst(l, t, alpha), lir_sub(F, e, one)), zero));
  }
  /* ThresholdedRelu: y = x > alpha ? x : 0 */
  case U_THRELU: return lir_select(F, lir_bin(F, LIR_GT, x, cst(l, t, alpha)), x, zero);
  /* Softplus: y = log(exp(x) + 1) */
  case U_SOFTPLUS: return lir_call1(F, LIR_LOG, lir_add(F, lir_call1(F, LIR_EXP, x), one));
  /* Softsign: y = x / (1 + |x|) */
  case U_SOFTSIGN: return lir_bin(F, LIR_DIV, x, lir_add(F, one, lir_call1(F, LIR_ABS, x)));
  /* Shrink (bias = alpha, lambd = beta): y = x < -lambd ? x + bias : x > lambd ? x - bias : 0 */
  case U_SHRINK:
    return lir_select(F, lir_bin(F, LIR_LT, x, cst(l, t, -beta)), lir_add(F, x, cst(l, t, alpha)),
                      lir_select(F, lir_bin(F, LIR_GT, x, cst(l, t, beta)), lir_sub(F, x, cst(l, t, alpha)), zero));
  /* Mish: y = x * tanh(log(1 + exp(x))) */
  case U_MISH:
    return lir_mul(F, x, lir_call1(F, LIR_TANH, lir_call1(F, LIR_LOG, lir_add(F, lir_call1(F, LIR_EXP, x), one))));
  default: break;
  }
  unreachable();
}

/* The unary operators: y[i] = f(x[i]) elementwise, f as in cpu_act_expr; the parameters are
 * FLOAT attributes with the ONNX defaults. Integer inputs only where ONNX allows them and the
 * operator means something on them (Relu, Identity, Neg, Abs, Sign, Shrink). */
static const struct {
  const char *op;      /* operator */
  unop_t u;            /* its expression */
  const char *a, *b;   /* its attributes (NULL: none) */
  double da, db;       /* their defaults */
  bool ints;           /* integer inputs allowed */
} UNARY[] = {
    {"Relu", U_RELU, NULL, NULL, 0, 0, true},
    {"Identity", U_IDENT, NULL, NULL, 0, 0, true},
    {"Neg", U_NEG, NULL, NULL, 0, 0, true},
    {"Abs", U_ABS, NULL, NULL, 0, 0, true},
    {"Sign", U_SIGN, NULL, NULL, 0, 0, true},
    {"Shrink", U_SHRINK, "bias", "lambd", 0, 0.5, true},
    {"LeakyRelu", U_LEAKY, "alpha", NULL, 0.01, 0, false},
    {"Sigmoid", U_SIGMOID, NULL, NULL, 0, 0, false},
    {"HardSigmoid", U_HSIG, "alpha", "beta", 0.2, 0.5, false},
    {"HardSwish", U_HSWISH, NULL, NULL, 0, 0, false},
    {"Tanh", U_TANH, NULL, NULL, 0, 0, false},
    {"Exp", U_EXP, NULL, NULL, 0, 0, false},
    {"Log", U_LOG, NULL, NULL, 0, 0, false},
    {"Sqrt", U_SQRT, NULL, NULL, 0, 0, false},
    {"Reciprocal", U_RECIP, NULL, NULL, 0, 0, false},
    {"Floor", U_FLOOR, NULL, NULL, 0, 0, false},
    {"Ceil", U_CEIL, NULL, NULL, 0, 0, false},
    {"Round", U_ROUND, NULL, NULL, 0, 0, false},
    {"Erf", U_ERF, NULL, NULL, 0, 0, false},
    {"Sin", U_SIN, NULL, NULL, 0, 0, false},
    {"Cos", U_COS, NULL, NULL, 0, 0, false},
    {"Tan", U_TAN, NULL, NULL, 0, 0, false},
    {"Asin", U_ASIN, NULL, NULL, 0, 0, false},
    {"Acos", U_ACOS, NULL, NULL, 0, 0, false},
    {"Atan", U_ATAN, NULL, NULL, 0, 0, false},
    {"Sinh", U_SINH, NULL, NULL, 0, 0, false},
    {"Cosh", U_COSH, NULL, NULL, 0, 0, false},
    {"Asinh", U_ASINH, NULL, NULL, 0, 0, false},
    {"Acosh", U_ACOSH, NULL, NULL, 0, 0, false},
    {"Atanh", U_ATANH, NULL, NULL, 0, 0, false},
    {"Elu", U_ELU, "alpha", NULL, 1, 0, false},
    {"Selu", U_SELU, "alpha", "gamma", 1.67326319217681884765625, 1.05070102214813232421875, false},
    {"Celu", U_CELU, "alpha", NULL, 1, 0, false},
    {"ThresholdedRelu", U_THRELU, "alpha", NULL, 1, 0, false},
    {"Softplus", U_SOFTPLUS, NULL, NULL, 0, 0, false},
    {"Softsign", U_SOFTSIGN, NULL, NULL, 0, 0, false},
    {"Mish", U_MISH, NULL, NULL, 0, 0, false},
};

static int lower_unary(L *l) {
  lir_nest n;
  lir_expr *x;
  if (flat_open(l, &n, &x)) return l->err->code;
  lir_buf *X = l->in[0];
  size_t k = 0;
  while (k < sizeof UNARY / sizeof UNARY[0] && strcmp(UNARY[k].op, l->n->op)) k++;
  if (k == sizeof UNARY / sizeof UNARY[0]) return bad(l, "not a unary operator");
  if (!UNARY[k].ints && !lir_dtype_is_float(X->dtype)) return unsup(l, "integer input to a float operator");
  double a = UNARY[k].a ? ovta_node_attr_f(l->n, UNARY[k].a, (float)UNARY[k].da) : 0;
  double b = UNARY[k].b ? ovta_node_attr_f(l->n, UNARY[k].b, (float)UNARY[k].db) : 0;
  if (UNARY[k].a && !ovta_node_attr(l->n, UNARY[k].a)) a = UNARY[k].da; /* the default in double */
  if (UNARY[k].b && !ovta_node_attr(l->n, UNARY[k].b)) b = UNARY[k].db;
  flat_close(l, &n, cpu_act_expr(l, UNARY[k].u, x, a, b), NULL);
  return 0;
}

int cpu_bcast_open(L *l, lir_buf *Y, int nin, lir_nest *n, lir_expr **v) {
  int r = Y->ndim;
  for (int k = 0; k < nin; k++) {
    lir_buf *b = l->in[k];
    if (!b) continue;
    if (b->ndim > r) return bad(l, "input rank above the output rank");
    for (int d = 0; d < b->ndim; d++)
      if (b->shape[d] != 1 && b->shape[d] != Y->shape[r - b->ndim + d]) return bad(l, "shapes do not broadcast");
  }
  lir_nest_open(F, n, r, Y->shape, "i");
  for (int k = 0; k < nin; k++) v[k] = l->in[k] ? bload(l, l->in[k], r, n->idx) : NULL;
  return 0;
}

/* Add, Sub, Mul, Div (and Max/Min of two): C = op(A, B) with multidirectional (numpy)
 * broadcasting: shapes right-aligned, each dim equal or 1. Integer Div truncates toward zero
 * (C semantics, like the ONNX reference for the integer tests). */
/* Y = op(A, B) over three maps of one shape [N, C, H, W] split at h1, some of them half-major
 * (cpu.h): per part, image and channel the part's positions in one vectorized loop, each
 * operand read (Y written) where its layout holds that element; in parallel over (part, image,
 * channel), part-major, so a thread computes the part of every channel that the convs before
 * and after it compute on the same thread. */
static int hm_binary(L *l, lir_binop op, int64_t h1) {
  lir_buf *b[3] = {l->in[0], l->in[1], l->out[0]};
  bool hm[3] = {l->hm_in & 1, l->hm_in >> 1 & 1, l->hm_out & 1}, halo[3] = {l->halo_in & 1, l->halo_in >> 1 & 1, false};
  int64_t N = b[2]->shape[0], C = b[2]->shape[1], H = b[2]->shape[2], HW = H * b[2]->shape[3];
  lir_var *i = lir_var_new(F, "i", LIR_I64), *q = lir_var_new(F, "q", LIR_I64), *pv = lir_var_new(F, "part", LIR_I64);
  lir_var *nv = lir_var_new(F, "n", LIR_I64), *cv = lir_var_new(F, "c", LIR_I64);
  lir_expr *P = lir_ref(F, pv), *n = lir_ref(F, nv), *c = lir_ref(F, cv), *pb = lir_muli(F, P, h1);
  lir_expr *len = lir_addi(F, lir_muli(F, P, HW - 2 * h1), h1), *p = lir_add(F, pb, lir_ref(F, q)), *v[3];
  for (int k = 0; k < 3; k++) { /* an input with halo rows: the part's own positions, read from that part */
    hm_lay m = hm_layout(C, H, b[2]->shape[3], halo[k]);
    if (hm[k]) view_hm(b[k], &m);
    else view1(b[k]);
    v[k] = hm[k] ? hm_el(l, &m, P, n, c, p) : lir_add(F, lir_muli(F, lir_add(F, lir_muli(F, n, C), c), HW), p);
  }
  lir_stmt *st = lir_store1(F, b[2], v[2], lir_bin(F, op, lir_load1(F, b[0], v[0]), lir_load1(F, b[1], v[1])));
  lir_stmt *body = lir_for(F, q, I(0), len, LIR_FOR_VECTORIZED, st);
  lir_expr *r = lir_bin(F, LIR_MOD, lir_ref(F, i), I(N * C));
  body = lir_let(F, pv, lir_bin(F, LIR_DIV, lir_ref(F, i), I(N * C)),
                 lir_let(F, nv, lir_bin(F, LIR_DIV, r, I(C)), lir_let(F, cv, lir_bin(F, LIR_MOD, r, I(C)), body)));
  F->body = lir_for(F, i, I(0), I(2 * N * C), LIR_FOR_PARALLEL, body);
  return 0;
}

/* Whether A, B and Y are maps of one shape [N, C, H, W] that the row-half schedules split: the
 * split (cpu_pos_half), else 0. */
static int64_t hm_same_maps(const lir_buf *A, const lir_buf *B, const lir_buf *Y) {
  if (Y->ndim != 4 || A->ndim != 4 || B->ndim != 4) return 0;
  for (int d = 0; d < 4; d++)
    if (A->shape[d] != Y->shape[d] || B->shape[d] != Y->shape[d]) return 0;
  int64_t h1 = cpu_pos_half(Y->shape[2], Y->shape[3]);
  return h1 > 0 && h1 < Y->shape[2] * Y->shape[3] ? h1 : 0;
}

int cpu_binary(L *l, lir_binop op, bool cmp) {
  lir_buf *A = l->in[0], *B = l->in[1], *Y = l->out[0];
  if (!A || !B || !Y) return bad(l, "missing input or output");
  if (A->dtype != B->dtype) return bad(l, "inputs of different dtypes");
  int64_t h1 = cmp ? 0 : hm_same_maps(A, B, Y); /* half-major operands (cpu.h) */
  if (h1) l->can_in |= 3u, l->can_out |= 1u, l->can_halo_in |= 3u;
  if (h1 && ((l->hm_in & 3) || (l->hm_out & 1))) return hm_binary(l, op, h1);
  lir_nest n;
  lir_expr *v[2];
  if (cpu_bcast_open(l, Y, 2, &n, v)) return l->err->code;
  lir_expr *y = lir_bin(F, op, v[0], v[1]);
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, cmp ? lir_cast(F, LIR_U8, y) : y));
  return 0;
}
static int lower_binary(L *l, lir_binop op) { return cpu_binary(l, op, false); }

/* Max, Min, Sum (8+), Mean: Y = op(X0, X1, ...) over one or more inputs with multidirectional
 * broadcasting; Mean = Sum / count; a NaN input makes a float Max/Min NaN. */
static int lower_variadic(L *l) {
  lir_buf *Y = l->out[0];
  int nin = l->n->n_inputs;
  if (!Y || nin < 1 || nin > MAXIO) return bad(l, "missing input or output");
  for (int k = 0; k < nin; k++)
    if (!l->in[k] || l->in[k]->dtype != Y->dtype) return bad(l, "inputs missing or of another dtype");
  const char *op = l->n->op;
  lir_binop bo = !strcmp(op, "Max") ? LIR_MAX : !strcmp(op, "Min") ? LIR_MIN : LIR_ADD;
  lir_nest n;
  lir_expr *v[MAXIO];
  if (cpu_bcast_open(l, Y, nin, &n, v)) return l->err->code;
  lir_expr *acc = v[0];
  for (int k = 1; k < nin; k++) {
    if (bo == LIR_ADD || !lir_dtype_is_float(Y->dtype)) acc = lir_bin(F, bo, acc, v[k]);
    else /* float Max/Min propagate NaN (numpy's maximum/minimum): keep acc when it wins or is NaN */
      acc = lir_select(F, lir_bin(F, LIR_OR, lir_bin(F, bo == LIR_MAX ? LIR_GT : LIR_LT, acc, v[k]), lir_bin(F, LIR_NE, acc, acc)),
                       acc, v[k]);
  }
  if (!strcmp(op, "Mean")) acc = lir_bin(F, LIR_DIV, acc, cst(l, Y->dtype, nin));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, acc));
  return 0;
}

/* Pow: Z = X ^ Y with multidirectional broadcasting, Z of X's type. A float X: pow in X's type
 * (Y converted to it); an integer X: pow in f64, truncated to X's type (exact while the results
 * stay within 2^53, like the ONNX reference's float path). */
static int lower_pow(L *l) {
  lir_buf *Z = l->out[0];
  if (!l->in[0] || !l->in[1] || !Z) return bad(l, "missing input or output");
  lir_dtype xt = l->in[0]->dtype, ct = lir_dtype_is_float(xt) ? xt : LIR_F64;
  lir_nest n;
  lir_expr *v[2];
  if (cpu_bcast_open(l, Z, 2, &n, v)) return l->err->code;
  lir_expr *args[2] = {lir_cast(F, ct, v[0]), lir_cast(F, ct, v[1])};
  lir_expr *p = lir_call(F, LIR_POW, ct, 2, args);
  F->body = over(l, &n, Z, lir_store(F, Z, n.idx, lir_cast(F, xt, p)));
  return 0;
}

/* Mod: C = A mod B with multidirectional broadcasting; fmod=0: the sign of the divisor
 * (floor-mod, integers), fmod=1: the sign of the dividend (C's % and fmod). */
static int lower_mod(L *l) {
  return lower_binary(l, ovta_node_attr_i(l->n, "fmod", 0) ? LIR_MOD : LIR_FLOORMOD);
}

/* PRelu: Y = X < 0 ? slope * X : X, slope broadcast to X's shape. */
static int lower_prelu(L *l) {
  lir_buf *Y = l->out[0];
  if (!l->in[0] || !l->in[1] || !Y) return bad(l, "missing input or output");
  lir_nest n;
  lir_expr *v[2];
  if (cpu_bcast_open(l, Y, 2, &n, v)) return l->err->code;
  lir_expr *y = lir_select(F, lir_bin(F, LIR_LT, v[0], cst(l, Y->dtype, 0)), lir_mul(F, v[1], v[0]), v[0]);
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, y));
  return 0;
}

/* Cast between bfloat16 (the top 16 bits of a float32) and float32, on the bits (the float32
 * side re-viewed as u32): to float32 y = x << 16; to bfloat16 (as ONNX's reference) NaN ->
 * 0x7FC0, else (x + 0x7FFF + ((x >> 16) & 1)) >> 16, rounding to nearest even. */
static int lower_cast_bf16(L *l, bool from_bf, bool to_bf) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!from_bf) X->dtype = LIR_U32;
  if (!to_bf) Y->dtype = LIR_U32;
  lir_nest n;
  lir_expr *v;
  if (flat_open(l, &n, &v)) return l->err->code;
  if (from_bf && !to_bf) v = lir_bin(F, LIR_SHL, lir_cast(F, LIR_U32, v), lir_int(F, LIR_U32, 16));
  else if (!from_bf && to_bf) {
    lir_expr *nan = lir_bin(F, LIR_GT, lir_bin(F, LIR_AND, v, lir_int(F, LIR_U32, 0x7FFFFFFF)), lir_int(F, LIR_U32, 0x7F800000));
    lir_expr *odd = lir_bin(F, LIR_AND, lir_bin(F, LIR_SHR, v, lir_int(F, LIR_U32, 16)), lir_int(F, LIR_U32, 1));
    lir_expr *r = lir_bin(F, LIR_SHR, lir_add(F, lir_add(F, v, lir_int(F, LIR_U32, 0x7FFF)), odd), lir_int(F, LIR_U32, 16));
    v = lir_select(F, nan, lir_int(F, LIR_U16, 0x7FC0), lir_cast(F, LIR_U16, r));
  }
  flat_close(l, &n, v, NULL);
  return 0;
}

/* Cast, CastLike: Y = X converted to Y's type: float to integer truncates toward zero, integer
 * narrowing wraps, to bool is x != 0 (bool tensors are bytes 0/1); bfloat16 to and from float32
 * (lower_cast_bf16). Strings are refused by the importer. */
static int lower_cast(L *l) {
  bool from_bf = l->tin[0] && l->tin[0]->dtype == OVTA_DT_BF16, to_bf = l->tout[0] && l->tout[0]->dtype == OVTA_DT_BF16;
  if (from_bf || to_bf) return lower_cast_bf16(l, from_bf, to_bf);
  lir_nest n;
  lir_expr *v;
  if (flat_open(l, &n, &v)) return l->err->code;
  if (l->tout[0]->dtype == OVTA_DT_BOOL) v = lir_cast(F, LIR_BOOL, v);
  flat_close(l, &n, lir_cast(F, l->out[0]->dtype, v), NULL);
  return 0;
}

/* Dropout at inference (or training with ratio 0): Y = X; the optional mask output is all true
 * (inference rejects training proper). */
static int lower_dropout(L *l) {
  lir_buf *M = l->out[1];
  lir_nest n;
  lir_expr *x;
  if (flat_open(l, &n, &x)) return l->err->code;
  if (M) view1(M);
  flat_close(l, &n, x, M ? lir_store(F, M, n.idx, cst(l, M->dtype, 1)) : NULL);
  return 0;
}

/* Clip: y = min(max(x, min), max); min/max from attributes (opset < 11) or optional inputs 1, 2
 * (opset >= 11); absent bounds do not clip. */
static int lower_clip(L *l) {
  lir_buf *X = l->in[0];
  lir_nest n;
  lir_expr *v;
  if (flat_open(l, &n, &v)) return l->err->code;
  const ovta_attr *amin = ovta_node_attr(l->n, "min"), *amax = ovta_node_attr(l->n, "max");
  if (amin) v = lir_max(F, v, cst(l, X->dtype, amin->f));
  if (amax) v = lir_min(F, v, cst(l, X->dtype, amax->f));
  if (l->in[1]) v = lir_max(F, v, lir_load1(F, l->in[1], I(0)));
  if (l->in[2]) v = lir_min(F, v, lir_load1(F, l->in[2], I(0)));
  flat_close(l, &n, v, NULL);
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

static int lower_add(L *l) { return lower_binary(l, LIR_ADD); }
static int lower_sub(L *l) { return lower_binary(l, LIR_SUB); }
static int lower_mul(L *l) { return lower_binary(l, LIR_MUL); }
static int lower_div(L *l) { return lower_binary(l, LIR_DIV); }

const cpu_rule cpu_rules_elementwise[] = {
    {"Add", lower_add},          {"Sub", lower_sub},              {"Mul", lower_mul},
    {"Div", lower_div},          {"Max", lower_variadic},         {"Min", lower_variadic},
    {"Sum", lower_variadic},     {"Mean", lower_variadic},        {"Pow", lower_pow},
    {"Mod", lower_mod},          {"PRelu", lower_prelu},          {"Cast", lower_cast},
    {"CastLike", lower_cast},    {"Dropout", lower_dropout},      {"Clip", lower_clip},
    {"ovta.Eltwise", lower_eltwise},
    {"Relu", lower_unary},       {"LeakyRelu", lower_unary},      {"Sigmoid", lower_unary},
    {"HardSigmoid", lower_unary}, {"HardSwish", lower_unary},     {"Tanh", lower_unary},
    {"Neg", lower_unary},        {"Abs", lower_unary},            {"Exp", lower_unary},
    {"Log", lower_unary},        {"Sqrt", lower_unary},
    {"Reciprocal", lower_unary}, {"Floor", lower_unary},          {"Ceil", lower_unary},
    {"Round", lower_unary},      {"Sign", lower_unary},           {"Erf", lower_unary},
    {"Sin", lower_unary},        {"Cos", lower_unary},            {"Tan", lower_unary},
    {"Asin", lower_unary},       {"Acos", lower_unary},           {"Atan", lower_unary},
    {"Sinh", lower_unary},       {"Cosh", lower_unary},           {"Asinh", lower_unary},
    {"Acosh", lower_unary},      {"Atanh", lower_unary},          {"Elu", lower_unary},
    {"Selu", lower_unary},       {"Celu", lower_unary},           {"ThresholdedRelu", lower_unary},
    {"Softplus", lower_unary},   {"Softsign", lower_unary},       {"Shrink", lower_unary},
    {"Mish", lower_unary},       {NULL, NULL},
};
