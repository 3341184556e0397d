/* lower.c: graph operators -> loop IR for the CPU (cpu.h).
 *
 * Every lowering function has the ONNX rule it implements written above it. Conventions:
 * the function's parameters are the node's present inputs then its present outputs, with the
 * tensors' (inferred, static) shapes; L.in[i] / L.out[i] are NULL for omitted ones. A lowering may
 * re-view a parameter with another shape of the same element count (view()). */
#include "cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXIO 16

typedef struct L {
  lir_func *f;                      /* function being built */
  const ovta_graph *g;              /* graph (opset) */
  const ovta_node *n;               /* node lowered */
  lir_buf *in[MAXIO];               /* per input slot: its parameter, NULL if omitted */
  const ovta_tensor *tin[MAXIO];    /* per input slot: the tensor */
  lir_buf *out[4];                  /* per output slot */
  const ovta_tensor *tout[4];       /* per output slot: the tensor */
  ovta_error *err;                  /* where errors go */
} L;

#define F (l->f)
#define I(v) lir_i64(l->f, (v))

static int unsup(L *l, const char *what) {
  return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s", l->n->name, l->n->op, what);
}
static int bad(L *l, const char *what) {
  return OVTA_FAIL(l->err, OVTA_EINVAL, "node %s (%s): %s", l->n->name, l->n->op, what);
}

lir_dtype lir_from_ovta_dtype(ovta_dtype t) {
  switch (t) {
  case OVTA_DT_F32: return LIR_F32;
  case OVTA_DT_F64: return LIR_F64;
  case OVTA_DT_U8: return LIR_U8;
  case OVTA_DT_I8: return LIR_I8;
  case OVTA_DT_U16: return LIR_U16;
  case OVTA_DT_I16: return LIR_I16;
  case OVTA_DT_I32: return LIR_I32;
  case OVTA_DT_U32: return LIR_U32;
  case OVTA_DT_I64: return LIR_I64;
  case OVTA_DT_U64: return LIR_U64;
  case OVTA_DT_BOOL: return LIR_U8;
  default: return LIR_VOID;
  }
}

/* Re-view a parameter with another row-major shape of the same element count. */
static void view(lir_buf *b, int ndim, const int64_t *shape) {
  int64_t st = 1;
  b->ndim = ndim;
  for (int i = ndim - 1; i >= 0; i--) {
    b->shape[i] = shape[i];
    b->strides[i] = st;
    st *= shape[i];
  }
}
static void view1(lir_buf *b) {
  int64_t n = lir_buf_numel(b);
  view(b, 1, &n);
}

/* A constant of dtype t. */
static lir_expr *cst(L *l, lir_dtype t, double v) {
  if (lir_dtype_is_float(t)) return lir_float(F, t, v);
  return lir_int(F, t, (int64_t)v);
}

/* Element of buffer b broadcast (ONNX multidirectional, right-aligned) to an output index of
 * rank r. */
static lir_expr *bload(L *l, lir_buf *b, int r, lir_expr **idx) {
  lir_expr *bi[LIR_MAX_DIMS];
  for (int d = 0; d < b->ndim; d++) bi[d] = b->shape[d] == 1 ? I(0) : idx[r - b->ndim + d];
  return lir_load(F, b, bi);
}

/* A scalar or per-axis parameter (scale/zero point): element idx[axis] if it has more than one
 * element, else element 0. */
static lir_expr *pload(L *l, lir_buf *b, lir_expr *axis_idx) {
  if (lir_buf_numel(b) <= 1) return lir_load1(F, b, I(0));
  return lir_load1(F, b, axis_idx);
}

static lir_expr *band(L *l, lir_expr *a, lir_expr *b) { return a ? lir_bin(F, LIR_AND, a, b) : b; }
static lir_expr *clampi(L *l, lir_expr *e, int64_t lo, int64_t hi) {
  return lir_max(F, lir_min(F, e, I(hi)), I(lo));
}

/* Loop nest over the shape of a buffer, innermost loop vectorized. */
static lir_stmt *over(L *l, lir_nest *n, lir_buf *b, lir_stmt *body) {
  (void)l;
  return lir_nest_close(F, n, body, LIR_FOR_VECTORIZED);
}

/* The attribute ints (NULL when absent) and its count. */
static const int64_t *ints(L *l, const char *name, int *cnt) {
  const ovta_attr *a = ovta_node_attr(l->n, name);
  if (!a || a->type != OVTA_ATTR_INTS) {
    *cnt = 0;
    return NULL;
  }
  *cnt = a->n;
  return a->ints;
}

static int norm_axis(int64_t a, int r) { return (int)(a < 0 ? a + r : a); }

/* ---------------------------------------------------------------- elementwise */

typedef enum { U_RELU, U_LEAKY, U_SIGMOID, U_HSIG, U_HSWISH, U_TANH, U_IDENT, U_NEG, U_ABS, U_EXP } unop_t;

/* One unary activation on value x of dtype t. */
static lir_expr *act_expr(L *l, unop_t op, lir_expr *x, double alpha, double beta) {
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
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, act_expr(l, op, lir_load(F, X, n.idx), alpha, beta)));
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

/* ---------------------------------------------------------------- quantization */

/* Saturate a float value (already rounded) into integer dtype t and convert. */
static lir_expr *sat_cast(L *l, lir_expr *v, lir_dtype t) {
  double lo, hi;
  switch (t) {
  case LIR_U8: lo = 0, hi = 255; break;
  case LIR_I8: lo = -128, hi = 127; break;
  case LIR_U16: lo = 0, hi = 65535; break;
  case LIR_I16: lo = -32768, hi = 32767; break;
  case LIR_I32: lo = -2147483648.0, hi = 2147483520.0; break; /* largest f32 below 2^31 */
  default: return lir_cast(F, t, v);
  }
  lir_dtype ft = v->dtype;
  return lir_cast(F, t, lir_max(F, lir_min(F, v, cst(l, ft, hi)), cst(l, ft, lo)));
}

/* QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point); y_scale and
 * y_zero_point scalars or 1-D along `axis` (default 1); output dtype that of y_zero_point
 * (uint8 when absent). */
static int lower_quantize(L *l) {
  lir_buf *X = l->in[0], *S = l->in[1], *Z = l->in[2], *Y = l->out[0];
  if (!X || !S || !Y) return bad(l, "missing input or output");
  if (X->dtype != LIR_F32 || S->dtype != LIR_F32) return unsup(l, "x or y_scale not float32");
  int axis = norm_axis(ovta_node_attr_i(l->n, "axis", 1), Y->ndim);
  if (lir_buf_numel(S) > 1 && (axis < 0 || axis >= Y->ndim)) return bad(l, "axis out of range");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *ax = Y->ndim ? n.idx[axis < Y->ndim ? axis : 0] : I(0);
  lir_expr *q = lir_call1(F, LIR_ROUND_EVEN, lir_bin(F, LIR_DIV, lir_load(F, X, n.idx), pload(l, S, ax)));
  if (Z) q = lir_add(F, q, lir_cast(F, LIR_F32, pload(l, Z, ax)));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, sat_cast(l, q, Y->dtype)));
  return 0;
}

/* DequantizeLinear: y = (x - x_zero_point) * x_scale (per-axis like QuantizeLinear). */
static int lower_dequantize(L *l) {
  lir_buf *X = l->in[0], *S = l->in[1], *Z = l->in[2], *Y = l->out[0];
  if (!X || !S || !Y) return bad(l, "missing input or output");
  if (Y->dtype != LIR_F32) return unsup(l, "output not float32");
  int axis = norm_axis(ovta_node_attr_i(l->n, "axis", 1), Y->ndim);
  if (lir_buf_numel(S) > 1 && (axis < 0 || axis >= Y->ndim)) return bad(l, "axis out of range");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *ax = Y->ndim ? n.idx[axis < Y->ndim ? axis : 0] : I(0);
  lir_expr *x = lir_cast(F, LIR_I32, lir_load(F, X, n.idx));
  if (Z) x = lir_sub(F, x, lir_cast(F, LIR_I32, pload(l, Z, ax)));
  lir_expr *v = lir_mul(F, lir_cast(F, LIR_F32, x), pload(l, S, ax));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* ---------------------------------------------------------------- matmul family */

/* What happens to the accumulator of a matmul or conv at one output element. */
typedef struct post {
  int kind;          /* P_STORE, P_BIAS_F, P_QLINEAR, P_GEMM, P_QFUSED */
  lir_buf *bias;     /* bias per output channel (P_BIAS_F, P_QLINEAR, P_QFUSED), may be NULL */
  lir_buf *sa, *sb;  /* P_QLINEAR: scales of the two operands (scalar or per channel) */
  lir_buf *sy, *zy;  /* P_QLINEAR: output scale and zero point */
  double alpha, beta;/* P_GEMM: Y = alpha*acc + beta*C (bias = C, broadcast) */
  unop_t act;        /* activation after the bias (fused ops) */
  double act_a, act_b; /* activation parameters */
  double clip_lo, clip_hi; /* clip activation bounds */
  bool clip;         /* apply clip_lo/clip_hi */
  int shift;         /* P_QFUSED: ovta_requant shift */
  int64_t qlo, qhi;  /* P_QFUSED: clamp bounds */
} post;
enum { P_STORE, P_BIAS_F, P_QLINEAR, P_GEMM, P_QFUSED };

/* The store of acc into Y at oidx; ch is the output-channel index (bias, per-channel scales). */
static lir_stmt *post_store(L *l, const post *p, lir_buf *Y, lir_expr **oidx, lir_expr *ch, lir_expr *acc) {
  lir_expr *v = acc;
  switch (p->kind) {
  case P_STORE: break;
  case P_BIAS_F:
    if (p->bias) v = lir_add(F, v, lir_load1(F, p->bias, ch));
    v = act_expr(l, p->act, v, p->act_a, p->act_b);
    if (p->clip) v = lir_max(F, lir_min(F, v, cst(l, v->dtype, p->clip_hi)), cst(l, v->dtype, p->clip_lo));
    break;
  case P_GEMM:
    if (p->alpha != 1.0) v = lir_mul(F, cst(l, v->dtype, p->alpha), v);
    if (p->bias && p->beta != 0.0) {
      lir_expr *c = bload(l, p->bias, Y->ndim, oidx);
      if (p->beta != 1.0) c = lir_mul(F, cst(l, v->dtype, p->beta), c);
      v = lir_add(F, v, c);
    }
    break;
  case P_QLINEAR: {
    /* y = saturate(round_half_even(acc * (sa * sb / sy)) + zy) */
    if (p->bias) v = lir_add(F, v, lir_load1(F, p->bias, ch));
    lir_expr *m = lir_mul(F, lir_cast(F, LIR_F64, pload(l, p->sa, ch)), lir_cast(F, LIR_F64, pload(l, p->sb, ch)));
    m = lir_bin(F, LIR_DIV, m, lir_cast(F, LIR_F64, lir_load1(F, p->sy, I(0))));
    lir_expr *r = lir_call1(F, LIR_ROUND_EVEN, lir_mul(F, lir_cast(F, LIR_F64, v), m));
    if (p->zy) r = lir_add(F, r, lir_cast(F, LIR_F64, lir_load1(F, p->zy, I(0))));
    return lir_store(F, Y, oidx, sat_cast(l, r, Y->dtype));
  }
  case P_QFUSED: {
    /* ovta_requant: shift in 1..31: (acc + 2^(shift-1)) >> shift (wrapping add, arithmetic
     * shift); 0: acc; < 0: acc << -shift; >= 32: sign; then clamp. */
    if (p->bias) v = lir_add(F, v, lir_load1(F, p->bias, ch));
    int s = p->shift;
    if (s >= 1 && s <= 31)
      v = lir_bin(F, LIR_SHR, lir_add(F, v, lir_int(F, LIR_I32, (int64_t)1 << (s - 1))), lir_int(F, LIR_I32, s));
    else if (s < 0 && s > -32) v = lir_bin(F, LIR_SHL, v, lir_int(F, LIR_I32, -s));
    else if (s <= -32) v = lir_int(F, LIR_I32, 0);
    else if (s >= 32) v = lir_bin(F, LIR_SHR, v, lir_int(F, LIR_I32, 31));
    v = lir_max(F, lir_min(F, v, lir_int(F, LIR_I32, p->qhi)), lir_int(F, LIR_I32, p->qlo));
    return lir_store(F, Y, oidx, lir_cast(F, Y->dtype, v));
  }
  }
  return lir_store(F, Y, oidx, lir_cast(F, Y->dtype, v));
}

/* The product term of a matmul/conv: float, or integer (x - zx) * (w - zw) in i32. */
static lir_expr *prod(L *l, lir_dtype acc, lir_expr *x, lir_expr *zx, lir_expr *w, lir_expr *zw) {
  if (acc != LIR_I32) return lir_mul(F, lir_cast(F, acc, x), lir_cast(F, acc, w));
  x = lir_cast(F, LIR_I32, x);
  w = lir_cast(F, LIR_I32, w);
  if (zx) x = lir_sub(F, x, lir_cast(F, LIR_I32, zx));
  if (zw) w = lir_sub(F, w, lir_cast(F, LIR_I32, zw));
  return lir_mul(F, x, w);
}

/* Batched matmul Y[..., M, N] = sum_k A[..., M, K] * B[..., K, N] with numpy broadcasting of the
 * batch dims and 1-D operands (a 1-D A is [1, K] with M removed from Y; a 1-D B is [K, 1] with N
 * removed). ta/tb: 2-D operands transposed (Gemm). za/zb: zero points (scalar, per row of A /
 * per column of B). ch_col: the output channel for post is the column (else the row). */
static int matmul_core(L *l, lir_buf *A, lir_buf *B, lir_buf *Y, bool ta, bool tb, lir_dtype acc_t,
                       lir_buf *za, lir_buf *zb, const post *p) {
  if (A->ndim < 1 || B->ndim < 1) return bad(l, "scalar operand");
  bool a1 = A->ndim == 1, b1 = B->ndim == 1;
  if (a1) view(A, 2, (int64_t[]){1, A->shape[0]});
  if (b1) view(B, 2, (int64_t[]){B->shape[0], 1});
  int64_t M = A->shape[A->ndim - (ta ? 1 : 2)], K = A->shape[A->ndim - (ta ? 2 : 1)];
  int64_t K2 = B->shape[B->ndim - (tb ? 1 : 2)], N = B->shape[B->ndim - (tb ? 2 : 1)];
  if (K != K2) return bad(l, "inner dimensions differ");
  /* Y as [batch..., M, N] */
  int64_t ys[LIR_MAX_DIMS];
  int yr = 0;
  int nb = (A->ndim > B->ndim ? A->ndim : B->ndim) - 2;
  if (Y->ndim - (a1 ? 0 : 1) - (b1 ? 0 : 1) != nb) return bad(l, "output rank does not match the operands");
  for (int d = 0; d < nb; d++) ys[yr++] = Y->shape[d];
  ys[yr++] = M;
  ys[yr++] = N;
  if (ovta_shape_numel(ys, yr) != lir_buf_numel(Y)) return bad(l, "output shape does not match the operands");
  view(Y, yr, ys);
  for (int k = 0; k < 2; k++) {
    lir_buf *b = k ? B : A;
    for (int d = 0; d < b->ndim - 2; d++) {
      int64_t e = b->shape[d], o = ys[nb - (b->ndim - 2) + d];
      if (e != 1 && e != o) return bad(l, "batch dimensions do not broadcast");
    }
  }
  /* for batch..., i: row[:] = 0; for k: for j (vectorized): row[j] += A[i,k] B[k,j]; then the
   * post-op over j. The j loop is innermost so rows of B stream contiguously. */
  lir_nest n;
  lir_nest_open(F, &n, yr - 1, ys, "i");
  lir_var *k = lir_var_new(F, "k", LIR_I64), *j1 = lir_var_new(F, "j", LIR_I64);
  lir_var *j2 = lir_var_new(F, "j", LIR_I64), *j3 = lir_var_new(F, "j", LIR_I64);
  lir_expr *kk = lir_ref(F, k), *col = lir_ref(F, j2);
  lir_expr *ai[LIR_MAX_DIMS], *bi[LIR_MAX_DIMS];
  for (int d = 0; d < A->ndim - 2; d++) ai[d] = A->shape[d] == 1 ? I(0) : n.idx[nb - (A->ndim - 2) + d];
  for (int d = 0; d < B->ndim - 2; d++) bi[d] = B->shape[d] == 1 ? I(0) : n.idx[nb - (B->ndim - 2) + d];
  lir_expr *row = n.idx[nb];
  ai[A->ndim - 2] = ta ? kk : row;
  ai[A->ndim - 1] = ta ? row : kk;
  bi[B->ndim - 2] = tb ? col : kk;
  bi[B->ndim - 1] = tb ? kk : col;
  lir_buf *acc = lir_buf_new(F, "acc", acc_t, 1, &N, LIR_SCOPE_LOCAL);
  lir_expr *t = prod(l, acc_t, lir_load(F, A, ai), za ? pload(l, za, row) : NULL, lir_load(F, B, bi),
                     zb ? pload(l, zb, col) : NULL);
  lir_stmt *upd = lir_store(F, acc, &col, lir_add(F, lir_load(F, acc, &col), t));
  lir_expr *oidx[LIR_MAX_DIMS];
  for (int d = 0; d < yr - 1; d++) oidx[d] = n.idx[d];
  oidx[yr - 1] = lir_ref(F, j3);
  lir_block blk;
  lir_block_init(&blk, F);
  lir_expr *c1 = lir_ref(F, j1);
  lir_block_add(&blk, lir_for(F, j1, I(0), I(N), LIR_FOR_VECTORIZED, lir_store(F, acc, &c1, cst(l, acc_t, 0))));
  lir_block_add(&blk, lir_for(F, k, I(0), I(K), LIR_FOR_SERIAL, lir_for(F, j2, I(0), I(N), LIR_FOR_VECTORIZED, upd)));
  lir_block_add(&blk, lir_for(F, j3, I(0), I(N), LIR_FOR_VECTORIZED,
                              post_store(l, p, Y, oidx, oidx[yr - 1], lir_load(F, acc, &oidx[yr - 1]))));
  F->body = lir_alloc_stmt(F, acc, lir_nest_close(F, &n, lir_block_stmt(&blk), LIR_FOR_SERIAL));
  return 0;
}

/* Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (M x K), B' = transB ? B^T : B
 * (K x N); C optional, unidirectionally broadcast to (M, N). alpha, beta default 1. */
static int lower_gemm(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  if (l->in[0]->ndim != 2 || l->in[1]->ndim != 2) return bad(l, "A and B must be 2-D");
  post p = {.kind = P_GEMM, .bias = l->in[2], .alpha = ovta_node_attr_f(l->n, "alpha", 1.0f),
            .beta = ovta_node_attr_f(l->n, "beta", 1.0f)};
  if (!lir_dtype_is_float(l->out[0]->dtype)) return unsup(l, "integer Gemm");
  return matmul_core(l, l->in[0], l->in[1], l->out[0], ovta_node_attr_i(l->n, "transA", 0) != 0,
                     ovta_node_attr_i(l->n, "transB", 0) != 0, l->out[0]->dtype, NULL, NULL, &p);
}

/* MatMul: numpy matmul (batched, broadcasting, 1-D operands promoted then squeezed). */
static int lower_matmul(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(l->out[0]->dtype)) return unsup(l, "integer MatMul (use MatMulInteger)");
  post p = {.kind = P_STORE};
  return matmul_core(l, l->in[0], l->in[1], l->out[0], false, false, l->out[0]->dtype, NULL, NULL, &p);
}

/* MatMulInteger: Y(int32) = sum_k (A - a_zero_point) * (B - b_zero_point); zero points scalar or
 * per row of A / per column of B. */
static int lower_matmul_integer(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_STORE};
  return matmul_core(l, l->in[0], l->in[1], l->out[0], false, false, LIR_I32, l->in[2], l->in[3], &p);
}

/* QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp):
 * y = saturate(round_half_even(sum (a - a_zp)(b - b_zp) * a_scale * b_scale / y_scale) + y_zp). */
static int lower_qlinear_matmul(L *l) {
  for (int i = 0; i < 8; i++)
    if (!l->in[i] && i != 2 && i != 5) return bad(l, "missing input");
  if (lir_buf_numel(l->in[1]) > 1) return unsup(l, "per-row a_scale");
  post p = {.kind = P_QLINEAR, .sa = l->in[1], .sb = l->in[4], .sy = l->in[6], .zy = l->in[7]};
  return matmul_core(l, l->in[0], l->in[3], l->out[0], false, false, LIR_I32, l->in[2], l->in[5], &p);
}

/* ---------------------------------------------------------------- conv */

typedef struct convp {
  int k;                       /* spatial dims */
  int64_t stride[LIR_MAX_DIMS];  /* strides */
  int64_t dil[LIR_MAX_DIMS];     /* dilations */
  int64_t pad[LIR_MAX_DIMS];     /* padding at the start of each spatial dim */
  int64_t pad_end[LIR_MAX_DIMS]; /* padding at the end */
  int64_t kern[LIR_MAX_DIMS];    /* kernel extent */
} convp;

/* Resolve strides, dilations, pads (explicit or auto_pad) of a conv/pool window over input X
 * (spatial dims from 2) giving output Y. kern: the window. */
static int window(L *l, const lir_buf *X, const lir_buf *Y, const int64_t *kern, convp *c) {
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
static int conv_core(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, lir_dtype acc_t, lir_buf *zx, lir_buf *zw,
                     const post *p) {
  if (X->ndim < 3 || W->ndim != X->ndim || Y->ndim != X->ndim) return bad(l, "X, W, Y ranks differ or below 3");
  convp c;
  int rc = window(l, X, Y, W->shape + 2, &c);
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
  lir_expr *t = prod(l, acc_t, lir_load(F, X, xi), zx ? lir_load1(F, zx, I(0)) : NULL, lir_load(F, W, wi),
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
                              post_store(l, p, Y, oidx, n.idx[1], lir_load(F, acc, &oidx[yr - 1]))));
  F->body = lir_alloc_stmt(F, acc, lir_nest_close(F, &n, lir_block_stmt(&blk), LIR_FOR_SERIAL));
  return 0;
}

/* Conv (X, W, [B]): 1-D/2-D/3-D cross-correlation with pads (or auto_pad), strides, dilations,
 * group (depthwise when group = C), bias B[M] added per output channel. */
static int lower_conv(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(l->out[0]->dtype)) return unsup(l, "integer Conv");
  post p = {.kind = P_BIAS_F, .bias = l->in[2], .act = U_IDENT};
  return conv_core(l, l->in[0], l->in[1], l->out[0], l->out[0]->dtype, NULL, NULL, &p);
}

/* ConvInteger (x, w, [x_zero_point], [w_zero_point]): y(int32) = conv(x - x_zp, w - w_zp);
 * w_zero_point scalar or per output channel. */
static int lower_conv_integer(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_STORE};
  return conv_core(l, l->in[0], l->in[1], l->out[0], LIR_I32, l->in[2], l->in[3], &p);
}

/* QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, [B:int32]):
 * y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B) * x_scale * w_scale / y_scale) + y_zp);
 * w_scale and w_zp scalar or per output channel. */
static int lower_qlinear_conv(L *l) {
  for (int i = 0; i < 8; i++)
    if (!l->in[i] && i != 2 && i != 5 && i != 7) return bad(l, "missing input");
  post p = {.kind = P_QLINEAR, .bias = l->in[8], .sa = l->in[1], .sb = l->in[4], .sy = l->in[6], .zy = l->in[7]};
  return conv_core(l, l->in[0], l->in[3], l->out[0], LIR_I32, l->in[2], l->in[5], &p);
}

/* The activation of a fused op (attribute "act"). */
static int fused_act(L *l, post *p) {
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
  int rc = fused_act(l, &p);
  if (rc) return rc;
  if (dense) {
    if (l->in[0]->ndim != 2 || l->in[1]->ndim != 2) return bad(l, "X and W must be 2-D");
    return matmul_core(l, l->in[0], l->in[1], l->out[0], false, true, LIR_F32, NULL, NULL, &p);
  }
  return conv_core(l, l->in[0], l->in[1], l->out[0], LIR_F32, NULL, NULL, &p);
}

/* ovta.QConv / ovta.QDense: int8 acc = sum x*w (int32) + b; y = clamp(ovta_requant(acc, shift),
 * clip_min, clip_max). */
static int lower_fused_q(L *l, bool dense) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_QFUSED, .bias = l->in[2], .shift = (int)ovta_node_attr_i(l->n, "shift", 0),
            .qlo = ovta_node_attr_i(l->n, "clip_min", -128), .qhi = ovta_node_attr_i(l->n, "clip_max", 127)};
  if (dense) {
    if (l->in[0]->ndim != 2 || l->in[1]->ndim != 2) return bad(l, "X and W must be 2-D");
    return matmul_core(l, l->in[0], l->in[1], l->out[0], false, true, LIR_I32, NULL, NULL, &p);
  }
  return conv_core(l, l->in[0], l->in[1], l->out[0], LIR_I32, NULL, NULL, &p);
}

/* ovta.QAdd (graph.h): y = clamp(ovta_requant((a << shift_a) + (b << shift_b), shift), clip_min,
 * clip_max) in int32 (wrapping), A, B, Y of one shape. */
static int lower_qadd(L *l) {
  lir_buf *A = l->in[0], *B = l->in[1], *Y = l->out[0];
  if (!A || !B || !Y) return bad(l, "missing input or output");
  if (lir_buf_numel(A) != lir_buf_numel(Y) || lir_buf_numel(B) != lir_buf_numel(Y)) return bad(l, "A, B and Y differ in size");
  int sa = (int)ovta_node_attr_i(l->n, "shift_a", 0), sb = (int)ovta_node_attr_i(l->n, "shift_b", 0);
  if (sa < 0 || sa > 31 || sb < 0 || sb > 31) return bad(l, "shift_a/shift_b outside 0..31");
  view1(A), view1(B), view1(Y);
  post p = {.kind = P_QFUSED, .shift = (int)ovta_node_attr_i(l->n, "shift", 0),
            .qlo = ovta_node_attr_i(l->n, "clip_min", -128), .qhi = ovta_node_attr_i(l->n, "clip_max", 127)};
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  lir_expr *a = lir_bin(F, LIR_SHL, lir_cast(F, LIR_I32, lir_load(F, A, n.idx)), lir_int(F, LIR_I32, sa));
  lir_expr *b = lir_bin(F, LIR_SHL, lir_cast(F, LIR_I32, lir_load(F, B, n.idx)), lir_int(F, LIR_I32, sb));
  F->body = lir_nest_close(F, &n, post_store(l, &p, Y, n.idx, NULL, lir_add(F, a, b)), LIR_FOR_SERIAL);
  return 0;
}

/* ---------------------------------------------------------------- pools, normalization */

/* MaxPool (and ovta.QMaxPool, int8, graph.h): y = max over the window (kernel_shape, strides, pads/auto_pad, dilations,
 * ceil_mode via the inferred output shape) of the in-bounds x; the optional Indices output
 * (int64) is the flat index into x of the first maximum: row-major (storage_order 0), or with
 * the spatial dims column-major (storage_order 1): ((n*C + c)*W + w)*H + h in 2-D.
 * AveragePool: y = sum of in-bounds x / count, count = in-bounds elements, or with
 * count_include_pad = 1 the window elements inside the padded input [-pad, in + pad_end). */
static int lower_pool(L *l, bool is_max) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  bool colmajor = ovta_node_attr_i(l->n, "storage_order", 0) != 0;
  int nk;
  const int64_t *ks = ints(l, "kernel_shape", &nk);
  if (!ks || nk != X->ndim - 2) return bad(l, "kernel_shape missing or of the wrong rank");
  convp c;
  int rc = window(l, X, Y, ks, &c);
  if (rc) return rc;
  if (!is_max && !lir_dtype_is_float(X->dtype)) return unsup(l, "integer AveragePool");
  bool incl = ovta_node_attr_i(l->n, "count_include_pad", 0) != 0;
  lir_nest n, r;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "o");
  lir_nest_open(F, &r, c.k, c.kern, "r");
  lir_expr *xi[LIR_MAX_DIMS], *inb = NULL, *inpad = NULL;
  xi[0] = n.idx[0];
  xi[1] = n.idx[1];
  for (int i = 0; i < c.k; i++) {
    lir_expr *pos = lir_add(F, lir_addi(F, lir_muli(F, n.idx[2 + i], c.stride[i]), -c.pad[i]),
                            lir_muli(F, r.idx[i], c.dil[i]));
    int64_t in = X->shape[2 + i];
    inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, pos, I(0)), lir_bin(F, LIR_LT, pos, I(in))));
    inpad = band(l, inpad, lir_bin(F, LIR_LT, pos, I(in + c.pad_end[i])));
    xi[2 + i] = clampi(l, pos, 0, in - 1);
  }
  lir_dtype t = X->dtype;
  lir_buf *acc = lir_buf_new(F, "acc", t, 0, NULL, LIR_SCOPE_LOCAL);
  lir_buf *cnt = lir_buf_new(F, "cnt", LIR_I64, 0, NULL, LIR_SCOPE_LOCAL);
  lir_buf *IX = is_max ? l->out[1] : NULL;
  if (IX && IX->dtype != LIR_I64) return bad(l, "Indices output not int64");
  lir_expr *x = lir_load(F, X, xi);
  lir_expr *a = lir_load(F, acc, NULL);
  lir_block blk, inner;
  lir_block_init(&blk, F);
  lir_block_init(&inner, F);
  double init;
  if (is_max) {
    if (lir_dtype_is_float(t)) init = -INFINITY;
    else if (t == LIR_U8 || t == LIR_U16 || t == LIR_U32) init = 0;
    else init = t == LIR_I8 ? -128 : t == LIR_I16 ? -32768 : -2147483648.0;
    if (IX) {
      /* cnt holds the flat index of the first maximum */
      lir_expr *flat = NULL;
      for (int q = 0; q < X->ndim; q++) {
        int d = colmajor && q >= 2 ? X->ndim - 1 - (q - 2) : q;
        flat = flat ? lir_add(F, lir_muli(F, flat, X->shape[d]), xi[d]) : xi[d];
      }
      lir_expr *gt = lir_bin(F, LIR_AND, inb, lir_bin(F, LIR_GT, x, a));
      lir_block_add(&inner, lir_if(F, gt, lir_seq(F, 2, (lir_stmt *[]){lir_store(F, acc, NULL, x), lir_store(F, cnt, NULL, flat)}), NULL));
    } else {
      lir_block_add(&inner, lir_store(F, acc, NULL, lir_select(F, inb, lir_max(F, a, x), a)));
    }
  } else {
    init = 0;
    lir_block_add(&inner, lir_store(F, acc, NULL, lir_select(F, inb, lir_add(F, a, x), a)));
    lir_expr *one = lir_cast(F, LIR_I64, lir_select(F, incl ? inpad : inb, lir_int(F, LIR_I32, 1), lir_int(F, LIR_I32, 0)));
    lir_block_add(&inner, lir_store(F, cnt, NULL, lir_add(F, lir_load(F, cnt, NULL), one)));
  }
  lir_block_add(&blk, lir_store(F, acc, NULL, cst(l, t, init)));
  lir_block_add(&blk, lir_store(F, cnt, NULL, I(0)));
  lir_block_add(&blk, lir_nest_close(F, &r, lir_block_stmt(&inner), LIR_FOR_SERIAL));
  lir_expr *v = lir_load(F, acc, NULL);
  if (!is_max) v = lir_bin(F, LIR_DIV, v, lir_cast(F, t, lir_load(F, cnt, NULL)));
  lir_block_add(&blk, lir_store(F, Y, n.idx, v));
  if (IX) lir_block_add(&blk, lir_store(F, IX, n.idx, lir_load(F, cnt, NULL)));
  F->body = lir_nest_close(F, &n, lir_alloc_stmt(F, acc, lir_alloc_stmt(F, cnt, lir_block_stmt(&blk))), LIR_FOR_SERIAL);
  return 0;
}

/* GlobalAveragePool: y[n, c, 1...] = mean over all spatial positions of x[n, c, ...]. */
static int lower_global_avg(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (X->ndim < 3 || !lir_dtype_is_float(X->dtype)) return unsup(l, "input not float of rank >= 3");
  int64_t nc = X->shape[0] * X->shape[1], sp = lir_buf_numel(X) / (nc ? nc : 1);
  view(X, 2, (int64_t[]){nc, sp});
  view(Y, 1, &nc);
  lir_var *i = lir_var_new(F, "i", LIR_I64), *j = lir_var_new(F, "j", LIR_I64);
  lir_buf *acc = lir_buf_new(F, "acc", X->dtype, 0, NULL, LIR_SCOPE_LOCAL);
  lir_expr *ii = lir_ref(F, i), *jj = lir_ref(F, j);
  lir_stmt *s[3] = {
      lir_store(F, acc, NULL, cst(l, X->dtype, 0)),
      lir_for(F, j, I(0), I(sp), LIR_FOR_SERIAL,
              lir_store(F, acc, NULL, lir_add(F, lir_load(F, acc, NULL), lir_load(F, X, (lir_expr *[]){ii, jj})))),
      lir_store(F, Y, &ii, lir_bin(F, LIR_DIV, lir_load(F, acc, NULL), cst(l, X->dtype, (double)sp)))};
  F->body = lir_for(F, i, I(0), I(nc), LIR_FOR_SERIAL, lir_alloc_stmt(F, acc, lir_seq(F, 3, s)));
  return 0;
}

/* BatchNormalization (inference; X, scale, B, mean, var): y = (x - mean[c]) / sqrt(var[c] + epsilon)
 * * scale[c] + B[c], c the dim-1 index; epsilon default 1e-5. training_mode = 1 unsupported. */
static int lower_batchnorm(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  for (int i = 0; i < 5; i++)
    if (!l->in[i]) return bad(l, "missing input");
  if (!Y) return bad(l, "missing output");
  if (ovta_node_attr_i(l->n, "training_mode", 0) || l->out[1] || l->out[2]) return unsup(l, "training_mode");
  if (X->ndim < 2 || !lir_dtype_is_float(X->dtype)) return unsup(l, "input not float of rank >= 2");
  int64_t C = X->shape[1], nc = X->shape[0] * C, inner = nc > 0 ? lir_buf_numel(X) / nc : 0;
  int64_t sh[3] = {X->shape[0], C, inner};
  view(X, 3, sh);
  view(Y, 3, sh);
  double eps = ovta_node_attr_f(l->n, "epsilon", 1e-5f);
  lir_dtype t = X->dtype;
  lir_nest n;
  lir_nest_open(F, &n, 3, sh, "i");
  lir_expr *c = n.idx[1];
  lir_expr *den = lir_call1(F, LIR_SQRT, lir_add(F, lir_load1(F, l->in[4], c), cst(l, t, eps)));
  lir_expr *v = lir_bin(F, LIR_DIV, lir_sub(F, lir_load(F, X, n.idx), lir_load1(F, l->in[3], c)), den);
  v = lir_add(F, lir_mul(F, v, lir_load1(F, l->in[1], c)), lir_load1(F, l->in[2], c));
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* Softmax: y = exp(x - max) / sum(exp(x - max)) over `axis` (opset >= 13, default -1), or over
 * all dims from `axis` on (opset < 13, default 1: the input coerced to 2-D). */
static int lower_softmax(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(X->dtype)) return unsup(l, "integer input");
  int r = X->ndim;
  bool old = l->g->opset && l->g->opset < 13;
  int axis = norm_axis(ovta_node_attr_i(l->n, "axis", old ? 1 : -1), r);
  if (axis < 0 || axis >= (r ? r : 1)) return bad(l, "axis out of range");
  int64_t outer = 1, red = 1, inner = 1;
  for (int d = 0; d < r; d++) {
    if (d < axis) outer *= X->shape[d];
    else if (d == axis || old) red *= X->shape[d];
    else inner *= X->shape[d];
  }
  int64_t sh[3] = {outer, red, inner};
  view(X, 3, sh);
  view(Y, 3, sh);
  lir_dtype t = X->dtype;
  lir_var *o = lir_var_new(F, "o", LIR_I64), *in = lir_var_new(F, "in", LIR_I64);
  lir_var *k1 = lir_var_new(F, "k", LIR_I64), *k2 = lir_var_new(F, "k", LIR_I64), *k3 = lir_var_new(F, "k", LIR_I64);
  lir_buf *mx = lir_buf_new(F, "mx", t, 0, NULL, LIR_SCOPE_LOCAL), *sm = lir_buf_new(F, "sum", t, 0, NULL, LIR_SCOPE_LOCAL);
  lir_expr *oo = lir_ref(F, o), *ii = lir_ref(F, in);
#define XI(k) (lir_expr *[]){oo, lir_ref(F, k), ii}
  lir_stmt *s[6] = {
      lir_store(F, mx, NULL, cst(l, t, -INFINITY)),
      lir_for(F, k1, I(0), I(red), LIR_FOR_SERIAL, lir_store(F, mx, NULL, lir_max(F, lir_load(F, mx, NULL), lir_load(F, X, XI(k1))))),
      lir_store(F, sm, NULL, cst(l, t, 0)),
      lir_for(F, k2, I(0), I(red), LIR_FOR_SERIAL, NULL),
      lir_for(F, k3, I(0), I(red), LIR_FOR_SERIAL,
              lir_store(F, Y, XI(k3), lir_bin(F, LIR_DIV, lir_load(F, Y, XI(k3)), lir_load(F, sm, NULL)))),
      NULL};
  lir_expr *e = lir_call1(F, LIR_EXP, lir_sub(F, lir_load(F, X, XI(k2)), lir_load(F, mx, NULL)));
  lir_var *ev = lir_var_new(F, "e", t);
  s[3]->body = lir_let(F, ev, e,
                       lir_seq(F, 2, (lir_stmt *[]){lir_store(F, Y, XI(k2), lir_ref(F, ev)),
                                                    lir_store(F, sm, NULL, lir_add(F, lir_load(F, sm, NULL), lir_ref(F, ev)))}));
#undef XI
  lir_stmt *body = lir_alloc_stmt(F, mx, lir_alloc_stmt(F, sm, lir_seq(F, 5, s)));
  F->body = lir_for(F, o, I(0), I(outer), LIR_FOR_SERIAL, lir_for(F, in, I(0), I(inner), LIR_FOR_SERIAL, body));
  return 0;
}

/* ---------------------------------------------------------------- data movement */

/* Flatten, Reshape, Squeeze, Unsqueeze, Identity: the same elements in the same (row-major)
 * order with another shape: y[i] = x[i]. (Reshape's shape input, Squeeze/Unsqueeze's axes are
 * already folded into the inferred output shape.) */
static int lower_copy(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  if (lir_buf_numel(X) != lir_buf_numel(Y)) return bad(l, "element counts differ");
  if (X->dtype != Y->dtype) return bad(l, "dtypes differ");
  view1(X);
  view1(Y);
  lir_nest n;
  lir_nest_open(F, &n, 1, Y->shape, "i");
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, n.idx)));
  return 0;
}

/* Transpose: y[j0..] = x[...] with y's dim d = x's dim perm[d] (default: reversed). */
static int lower_transpose(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  int np, r = X->ndim;
  const int64_t *perm = ints(l, "perm", &np);
  if (perm && np != r) return bad(l, "perm length differs from the rank");
  lir_nest n;
  lir_nest_open(F, &n, Y->ndim, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS];
  bool seen[LIR_MAX_DIMS] = {0};
  for (int d = 0; d < r; d++) {
    int p = perm ? (int)perm[d] : r - 1 - d;
    if (p < 0 || p >= r || seen[p]) return bad(l, "perm is not a permutation");
    seen[p] = true;
    if (X->shape[p] != Y->shape[d]) return bad(l, "output shape does not match perm");
    xi[p] = n.idx[d];
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, lir_load(F, X, xi)));
  return 0;
}

/* Concat: y is the inputs joined along `axis` (negative counts from the end). */
static int lower_concat(L *l) {
  lir_buf *Y = l->out[0];
  if (!Y) return bad(l, "missing output");
  int r = Y->ndim, axis = norm_axis(ovta_node_attr_i(l->n, "axis", 0), r);
  if (axis < 0 || axis >= r) return bad(l, "axis out of range");
  lir_block blk;
  lir_block_init(&blk, F);
  int64_t off = 0;
  for (int i = 0; i < l->n->n_inputs && i < MAXIO; i++) {
    lir_buf *X = l->in[i];
    if (!X) continue;
    if (X->ndim != r) return bad(l, "inputs of different ranks");
    lir_nest n;
    lir_nest_open(F, &n, r, X->shape, "i");
    lir_expr *yi[LIR_MAX_DIMS];
    for (int d = 0; d < r; d++) yi[d] = d == axis ? lir_addi(F, n.idx[d], off) : n.idx[d];
    lir_block_add(&blk, over(l, &n, X, lir_store(F, Y, yi, lir_load(F, X, n.idx))));
    off += X->shape[axis];
  }
  if (off != Y->shape[axis]) return bad(l, "input extents along axis do not sum to the output");
  F->body = lir_block_stmt(&blk);
  return 0;
}

/* Pad (data, [pads], [constant_value]) or attributes pads/value (opset < 11): y[i] = x[i - pad_begin]
 * where inside; outside: mode constant -> value; edge -> the nearest edge element;
 * reflect -> mirrored without repeating the edge. pads must be constant. */
static int lower_pad(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y) return bad(l, "missing input or output");
  int r = X->ndim;
  int64_t pads[2 * LIR_MAX_DIMS] = {0};
  int np;
  const int64_t *pa = ints(l, "pads", &np);
  if (l->tin[1]) {
    const ovta_tensor *pt = l->tin[1];
    if (!pt->data) return unsup(l, "pads not a constant");
    np = (int)ovta_tensor_numel(pt);
    if (np != 2 * r) return bad(l, "pads length is not 2 * rank");
    for (int i = 0; i < np; i++) pads[i] = ovta_tensor_get_i(pt, i);
  } else if (pa) {
    if (np != 2 * r) return bad(l, "pads length is not 2 * rank");
    memcpy(pads, pa, sizeof(int64_t) * (size_t)np);
  }
  if (l->n->n_inputs > 3 && l->in[3]) return unsup(l, "the axes input");
  const char *mode = ovta_node_attr_s(l->n, "mode", "constant");
  int m = strcmp(mode, "constant") == 0 ? 0 : strcmp(mode, "edge") == 0 ? 1 : strcmp(mode, "reflect") == 0 ? 2 : -1;
  if (m < 0) return unsup(l, "pad mode");
  lir_nest n;
  lir_nest_open(F, &n, r, Y->shape, "i");
  lir_expr *xi[LIR_MAX_DIMS], *inb = NULL;
  for (int d = 0; d < r; d++) {
    int64_t in = X->shape[d];
    if (Y->shape[d] != in + pads[d] + pads[r + d]) return bad(l, "output shape does not match pads");
    lir_expr *p = lir_addi(F, n.idx[d], -pads[d]);
    if (pads[d] == 0 && pads[r + d] <= 0) {
      xi[d] = p;
      continue;
    }
    if (m == 0) {
      inb = band(l, inb, lir_bin(F, LIR_AND, lir_bin(F, LIR_GE, p, I(0)), lir_bin(F, LIR_LT, p, I(in))));
      xi[d] = clampi(l, p, 0, in - 1);
    } else if (m == 1) {
      xi[d] = clampi(l, p, 0, in - 1);
    } else {
      if (in < 2 || pads[d] >= in || pads[r + d] >= in) return unsup(l, "reflect padding as large as the input");
      /* p < 0 -> -p; p >= in -> 2(in-1) - p */
      lir_expr *q = lir_select(F, lir_bin(F, LIR_LT, p, I(0)), lir_un(F, LIR_NEG, p), p);
      xi[d] = lir_select(F, lir_bin(F, LIR_GE, q, I(in)), lir_sub(F, I(2 * (in - 1)), q), q);
    }
  }
  lir_expr *v = lir_load(F, X, xi);
  if (inb) {
    lir_expr *cv = cst(l, X->dtype, ovta_node_attr_f(l->n, "value", 0.0f));
    if (l->in[2]) cv = lir_load1(F, l->in[2], I(0));
    v = lir_select(F, inb, v, cv);
  }
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
        v = act_expr(l, uo[k], v, 0, 0);
        done = true;
      }
    if (!done) return unsup(l, "eltwise op");
  }
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, v));
  return 0;
}

/* ---------------------------------------------------------------- dispatch */

static const char *const SUPPORTED[] = {
    "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Max", "Min", "Relu", "LeakyRelu", "Clip",
    "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Softmax", "MaxPool", "AveragePool",
    "GlobalAveragePool", "BatchNormalization", "Flatten", "Reshape", "Transpose", "Concat", "Pad",
    "Squeeze", "Unsqueeze", "Identity", "QuantizeLinear", "DequantizeLinear", "QLinearConv",
    "QLinearMatMul", "ConvInteger", "MatMulInteger", "Neg", "Abs", "Exp",
    "ovta.Conv", "ovta.Dense", "ovta.QConv", "ovta.QDense", "ovta.Eltwise", "ovta.QAdd", "ovta.QMaxPool", NULL};

bool lir_lower_supported(const char *op) {
  for (int i = 0; SUPPORTED[i]; i++)
    if (strcmp(op, SUPPORTED[i]) == 0) return true;
  return false;
}

static int dispatch(L *l) {
  const char *op = l->n->op;
#define IS(s) (strcmp(op, s) == 0)
  if (IS("Conv")) return lower_conv(l);
  if (IS("Gemm")) return lower_gemm(l);
  if (IS("MatMul")) return lower_matmul(l);
  if (IS("Add")) return lower_binary(l, LIR_ADD);
  if (IS("Sub")) return lower_binary(l, LIR_SUB);
  if (IS("Mul")) return lower_binary(l, LIR_MUL);
  if (IS("Div")) return lower_binary(l, LIR_DIV);
  if (IS("Max") || IS("Min")) {
    if (l->n->n_inputs != 2) return unsup(l, "other than two inputs");
    return lower_binary(l, IS("Max") ? LIR_MAX : LIR_MIN);
  }
  if (IS("Relu")) return lower_unary(l, U_RELU, 0, 0);
  if (IS("LeakyRelu")) return lower_unary(l, U_LEAKY, ovta_node_attr_f(l->n, "alpha", 0.01f), 0);
  if (IS("Sigmoid")) return lower_unary(l, U_SIGMOID, 0, 0);
  if (IS("HardSigmoid"))
    return lower_unary(l, U_HSIG, ovta_node_attr_f(l->n, "alpha", 0.2f), ovta_node_attr_f(l->n, "beta", 0.5f));
  if (IS("HardSwish")) return lower_unary(l, U_HSWISH, 0, 0);
  if (IS("Tanh")) return lower_unary(l, U_TANH, 0, 0);
  if (IS("Neg")) return lower_unary(l, U_NEG, 0, 0);
  if (IS("Abs")) return lower_unary(l, U_ABS, 0, 0);
  if (IS("Exp")) return lower_unary(l, U_EXP, 0, 0);
  if (IS("Clip")) return lower_clip(l);
  if (IS("Softmax")) return lower_softmax(l);
  if (IS("MaxPool") || IS("ovta.QMaxPool")) return lower_pool(l, true);
  if (IS("ovta.QAdd")) return lower_qadd(l);
  if (IS("AveragePool")) return lower_pool(l, false);
  if (IS("GlobalAveragePool")) return lower_global_avg(l);
  if (IS("BatchNormalization")) return lower_batchnorm(l);
  if (IS("Flatten") || IS("Reshape") || IS("Squeeze") || IS("Unsqueeze") || IS("Identity")) return lower_copy(l);
  if (IS("Transpose")) return lower_transpose(l);
  if (IS("Concat")) return lower_concat(l);
  if (IS("Pad")) return lower_pad(l);
  if (IS("QuantizeLinear")) return lower_quantize(l);
  if (IS("DequantizeLinear")) return lower_dequantize(l);
  if (IS("QLinearConv")) return lower_qlinear_conv(l);
  if (IS("QLinearMatMul")) return lower_qlinear_matmul(l);
  if (IS("ConvInteger")) return lower_conv_integer(l);
  if (IS("MatMulInteger")) return lower_matmul_integer(l);
  if (IS("ovta.Conv")) return lower_fused_float(l, false);
  if (IS("ovta.Dense")) return lower_fused_float(l, true);
  if (IS("ovta.QConv")) return lower_fused_q(l, false);
  if (IS("ovta.QDense")) return lower_fused_q(l, true);
  if (IS("ovta.Eltwise")) return lower_eltwise(l);
#undef IS
  return unsup(l, "operator not supported on the CPU path");
}

/* A parameter for a tensor: its dtype and static shape. */
static int param_for(L *l, const ovta_tensor *t, const char *role, lir_buf **out) {
  lir_dtype dt = lir_from_ovta_dtype(t->dtype);
  if (dt == LIR_VOID)
    return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s has dtype %s", l->n->name, l->n->op, role,
                     t->name, ovta_dtype_name(t->dtype));
  if (t->rank < 0 || t->rank > LIR_MAX_DIMS)
    return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s has unknown rank", l->n->name, l->n->op,
                     role, t->name);
  for (int d = 0; d < t->rank; d++)
    if (t->shape[d] < 0)
      return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s has a dynamic shape", l->n->name,
                       l->n->op, role, t->name);
  if (t->layout != OVTA_LAYOUT_PLAIN)
    return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s is in a packed layout", l->n->name,
                     l->n->op, role, t->name);
  *out = lir_param(l->f, t->name, dt, t->rank, t->shape);
  return 0;
}

int lir_lower_node(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out, ovta_error *err) {
  *out = NULL;
  L l0 = {0}, *l = &l0;
  l->g = g;
  l->n = n;
  l->err = err;
  if (n->n_inputs > MAXIO || n->n_outputs > 4)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): too many inputs or outputs", n->name, n->op);
  if (!lir_lower_supported(n->op))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): operator not supported on the CPU path", n->name, n->op);
  l->f = lir_func_new(fname);
  if (!l->f) return OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
  int rc = 0;
  for (int i = 0; i < n->n_inputs && !rc; i++)
    if ((l->tin[i] = n->inputs[i])) rc = param_for(l, n->inputs[i], "input", &l->in[i]);
  for (int i = 0; i < n->n_outputs && !rc; i++)
    if ((l->tout[i] = n->outputs[i])) rc = param_for(l, n->outputs[i], "output", &l->out[i]);
  if (!rc) rc = dispatch(l);
  if (!rc) {
    rc = lir_verify(l->f, true, err);
    if (rc) ovta_error_wrap(err, "lowering node %s (%s)", n->name, n->op);
  }
  if (rc) {
    lir_func_free(l->f);
    return rc;
  }
  *out = l->f;
  return 0;
}
