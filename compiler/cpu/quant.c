/* quant.c: quantization operators: QuantizeLinear, DequantizeLinear, and ovta.QAdd. */

#include "cpu_internal.h"

/* Saturate a float value (already rounded) into integer dtype t and convert. */
lir_expr *cpu_sat_cast(L *l, lir_expr *v, lir_dtype t) {
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
  F->body = over(l, &n, Y, lir_store(F, Y, n.idx, cpu_sat_cast(l, q, Y->dtype)));
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
  F->body = lir_nest_close(F, &n, cpu_post_store(l, &p, Y, n.idx, NULL, lir_add(F, a, b)), LIR_FOR_SERIAL);
  return 0;
}

/* DynamicQuantizeLinear (its ONNX function body, in float32): lo = min(0, min x), hi = max(0,
 * max x); y_scale = (hi - lo) / 255; y_zero_point = saturate(round_half_even(0 - lo / y_scale))
 * (u8); y = saturate(round_half_even(x / y_scale) + y_zero_point). An all-zero x (y_scale 0)
 * gives y = 0, y_zero_point = 0. */
static int lower_dynquant(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0], *S = l->out[1], *Z = l->out[2];
  if (!X || !Y || !S || !Z || X->dtype != LIR_F32) return bad(l, "missing input or output");
  view1(X), view1(Y);
  int64_t n = lir_buf_numel(X);
  lir_buf *lo = sc_new(l, "lo", LIR_F32), *hi = sc_new(l, "hi", LIR_F32);
  lir_var *i = lir_var_new(F, "i", LIR_I64), *k = lir_var_new(F, "k", LIR_I64), *sv = lir_var_new(F, "s", LIR_F32);
  lir_var *dv = lir_var_new(F, "d", LIR_F32), *zv = lir_var_new(F, "zp", LIR_F32);
  lir_expr *x = lir_load1(F, X, lir_ref(F, i));
  lir_stmt *range = lir_for(F, i, I(0), I(n), LIR_FOR_SERIAL,
                            SEQ(sc_set(l, lo, lir_min(F, sc_get(l, lo), x)), sc_set(l, hi, lir_max(F, sc_get(l, hi), x))));
  lir_expr *s = lir_bin(F, LIR_DIV, lir_bin(F, LIR_SUB, sc_get(l, hi), sc_get(l, lo)), lir_f32(F, 255));
  lir_expr *S_ = lir_ref(F, sv), *D = lir_ref(F, dv), *Zp = lir_ref(F, zv);
  lir_expr *d = lir_select(F, lir_bin(F, LIR_EQ, S_, lir_f32(F, 0)), lir_f32(F, 1), S_); /* the divisor */
  lir_expr *zp = lir_call1(F, LIR_ROUND_EVEN, lir_bin(F, LIR_SUB, lir_f32(F, 0), lir_bin(F, LIR_DIV, sc_get(l, lo), D)));
  lir_expr *q = lir_bin(F, LIR_ADD, lir_call1(F, LIR_ROUND_EVEN, lir_bin(F, LIR_DIV, lir_load1(F, X, lir_ref(F, k)), D)), Zp);
  lir_stmt *quant = lir_for(F, k, I(0), I(n), LIR_FOR_SERIAL, lir_store1(F, Y, lir_ref(F, k), cpu_sat_cast(l, q, LIR_U8)));
  lir_stmt *tail = lir_let(F, sv, s, lir_let(F, dv, d, lir_let(F, zv, lir_max(F, lir_min(F, zp, lir_f32(F, 255)), lir_f32(F, 0)),
      SEQ(lir_store1(F, S, I(0), S_), lir_store1(F, Z, I(0), cpu_sat_cast(l, Zp, LIR_U8)), quant))));
  lir_stmt *body = SEQ(sc_set(l, lo, lir_f32(F, 0)), sc_set(l, hi, lir_f32(F, 0)), range, tail);
  F->body = lir_alloc_stmt(F, lo, lir_alloc_stmt(F, hi, body));
  return 0;
}

const cpu_rule cpu_rules_quant[] = {
    {"QuantizeLinear", lower_quantize},
    {"DequantizeLinear", lower_dequantize},
    {"DynamicQuantizeLinear", lower_dynquant},
    {"ovta.QAdd", lower_qadd},
    {NULL, NULL},
};
