/* matmul.c: the matmul family (Gemm, MatMul, MatMulInteger, QLinearMatMul) and the store of an
 * accumulator shared with the conv family. */

#include "cpu_internal.h"

/* ovta_requant's shift of i32 v by the i32 amount s known only at run time (a per-channel shift):
 * sp = max(s, 0), sn = max(-s, 0); ((v + r) >> sp) << sn with r = 2^(sp-1) for s in 1..31 else 0
 * (wrapping add; LIR's shifts by 32 or more give the sign fill / 0, ovta_requant's rule for
 * s >= 32 / s <= -32). pos: every s is in 1..31, so (v + 2^(s-1)) >> s (one shift less per
 * element: int8 MobileNetV2's depthwise convs have per-channel shifts). */
static lir_expr *cpu_requant_var(L *l, lir_expr *v, lir_expr *s, bool pos) {
  lir_expr *zero = lir_int(F, LIR_I32, 0), *one = lir_int(F, LIR_I32, 1);
  if (pos) return lir_bin(F, LIR_SHR, lir_add(F, v, lir_bin(F, LIR_SHL, one, lir_sub(F, s, one))), s);
  lir_expr *sp = lir_max(F, s, zero), *sn = lir_max(F, lir_un(F, LIR_NEG, s), zero);
  lir_expr *r = lir_bin(F, LIR_SHL, one, lir_max(F, lir_sub(F, sp, one), zero));
  r = lir_select(F, lir_bin(F, LIR_AND, lir_bin(F, LIR_GT, s, zero), lir_bin(F, LIR_LE, s, lir_int(F, LIR_I32, 31))), r, zero);
  v = lir_bin(F, LIR_SHR, lir_add(F, v, r), sp);
  return lir_bin(F, LIR_SHL, v, sn);
}

/* The store of acc into Y at oidx; ch is the output-channel index (bias, per-channel scales). */
lir_stmt *cpu_post_store(L *l, const post *p, lir_buf *Y, lir_expr **oidx, lir_expr *ch, lir_expr *acc) {
  lir_expr *v = acc;
  switch (p->kind) {
  case P_STORE: break;
  case P_BIAS_F:
    if (p->bias) v = lir_add(F, v, lir_load1(F, p->bias, ch));
    v = cpu_act_expr(l, p->act, v, p->act_a, p->act_b);
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
    return lir_store(F, Y, oidx, cpu_sat_cast(l, r, Y->dtype));
  }
  case P_QFUSED: {
    /* ovta_requant: shift in 1..31: (acc + 2^(shift-1)) >> shift (wrapping add, arithmetic
     * shift); 0: acc; < 0: acc << -shift; >= 32: sign; then clamp. */
    if (p->bias) v = lir_add(F, v, lir_load1(F, p->bias, ch));
    int s = p->shift;
    if (p->shifts) v = cpu_requant_var(l, v, lir_load1(F, p->shifts, ch), p->shifts_pos);
    else if (s >= 1 && s <= 31)
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
lir_expr *cpu_prod(L *l, lir_dtype acc, lir_expr *x, lir_expr *zx, lir_expr *w, lir_expr *zw) {
  if (acc != LIR_I32) return lir_mul(F, lir_cast(F, acc, x), lir_cast(F, acc, w));
  x = lir_cast(F, LIR_I32, x);
  w = lir_cast(F, LIR_I32, w);
  if (zx) x = lir_sub(F, x, lir_cast(F, LIR_I32, zx));
  if (zw) w = lir_sub(F, w, lir_cast(F, LIR_I32, zw));
  return lir_mul(F, x, w);
}

/* a * b + c: fmuladd in f32, else in acc_t (i32) on the widened operands. */
static lir_expr *dot_madd(L *l, lir_dtype acc_t, lir_expr *a, lir_expr *b, lir_expr *c) {
  if (acc_t == LIR_F32) return lir_call(F, LIR_FMULADD, LIR_F32, 3, (lir_expr *[]){a, b, c});
  return lir_add(F, cpu_prod(l, acc_t, a, NULL, b, NULL), c);
}

/* Y[i, n] = post(sum_k A[i, k] * B[n, k]) for 2-D A [M, K], B [N, K] (Gemm transB, ovta.Dense,
 * and in i32 ovta.QDense): both rows contiguous, so the sum runs as a dot product: 16 partial
 * sums part[j] over k = 16 kb + j (vectorized fmuladd; i32: multiply-add of the widened
 * operands), added in order j = 0..15, then the K % 16 last products; in parallel over n. The
 * same order for any thread count (and i32 sums, wrapping, are the same in any order). */
static int matmul_dot(L *l, lir_buf *A, lir_buf *B, lir_buf *Y, lir_dtype acc_t, const post *p) {
  int64_t M = A->shape[0], K = A->shape[1], N = B->shape[0], P = 16, KB = K / 16, ps = 16;
  lir_buf *part = lir_buf_new(F, "part", acc_t, 1, &ps, LIR_SCOPE_LOCAL), *sum = sc_new(l, "sum", acc_t);
  lir_var *n = lir_var_new(F, "n", LIR_I64), *i = lir_var_new(F, "i", LIR_I64), *kb = lir_var_new(F, "kb", LIR_I64);
  lir_var *j = lir_var_new(F, "j", LIR_I64), *j0 = lir_var_new(F, "j", LIR_I64), *j1 = lir_var_new(F, "j", LIR_I64);
  lir_var *k = lir_var_new(F, "k", LIR_I64);
  lir_expr *Nv = lir_ref(F, n), *Iv = lir_ref(F, i), *J = lir_ref(F, j), *J0 = lir_ref(F, j0), *J1 = lir_ref(F, j1);
  lir_expr *kk = lir_add(F, lir_muli(F, lir_ref(F, kb), P), J), *Kv = lir_ref(F, k);
  lir_expr *fma = dot_madd(l, acc_t, lir_load(F, A, (lir_expr *[]){Iv, kk}), lir_load(F, B, (lir_expr *[]){Nv, kk}),
                           lir_load1(F, part, J));
  lir_expr *fma1 = dot_madd(l, acc_t, lir_load(F, A, (lir_expr *[]){Iv, Kv}), lir_load(F, B, (lir_expr *[]){Nv, Kv}),
                            sc_get(l, sum));
  lir_expr *zero = cst(l, acc_t, 0);
  lir_stmt *one = SEQ(lir_for(F, j0, I(0), I(P), LIR_FOR_VECTORIZED, lir_store1(F, part, J0, zero)),
                      lir_for(F, kb, I(0), I(KB), LIR_FOR_SERIAL, lir_for(F, j, I(0), I(P), LIR_FOR_VECTORIZED, lir_store1(F, part, J, fma))),
                      sc_set(l, sum, zero),
                      lir_for(F, j1, I(0), I(P), LIR_FOR_SERIAL, sc_set(l, sum, lir_add(F, sc_get(l, sum), lir_load1(F, part, J1)))),
                      lir_for(F, k, I(KB * P), I(K - KB * P), LIR_FOR_SERIAL, sc_set(l, sum, fma1)),
                      cpu_post_store(l, p, Y, (lir_expr *[]){Iv, Nv}, Nv, sc_get(l, sum)));
  lir_stmt *body = lir_for(F, i, I(0), I(M), LIR_FOR_SERIAL, one);
  F->body = lir_for(F, n, I(0), I(N), LIR_FOR_PARALLEL, lir_alloc_stmt(F, part, lir_alloc_stmt(F, sum, body)));
  return 0;
}

/* Batched matmul Y[..., M, N] = sum_k A[..., M, K] * B[..., K, N] with numpy broadcasting of the
 * batch dims and 1-D operands (a 1-D A is [1, K] with M removed from Y; a 1-D B is [K, 1] with N
 * removed). ta/tb: 2-D operands transposed (Gemm). za/zb: zero points (scalar, per row of A /
 * per column of B). ch_col: the output channel for post is the column (else the row). */
int cpu_matmul_core(L *l, lir_buf *A, lir_buf *B, lir_buf *Y, bool ta, bool tb, lir_dtype acc_t,
                       lir_buf *za, lir_buf *zb, const post *p) {
  if (A->ndim < 1 || B->ndim < 1) return bad(l, "scalar operand");
  bool f32 = acc_t == LIR_F32 && A->dtype == LIR_F32 && B->dtype == LIR_F32;
  bool q8 = acc_t == LIR_I32 && (A->dtype == LIR_I8 || A->dtype == LIR_U8) && (B->dtype == LIR_I8 || B->dtype == LIR_U8);
  if (tb && !ta && A->ndim == 2 && B->ndim == 2 && Y->ndim == 2 && (f32 || q8) && !za && !zb &&
      A->shape[1] == B->shape[1] && Y->shape[0] == A->shape[0] && Y->shape[1] == B->shape[0])
    return matmul_dot(l, A, B, Y, acc_t, p);
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
  lir_expr *t = cpu_prod(l, acc_t, lir_load(F, A, ai), za ? pload(l, za, row) : NULL, lir_load(F, B, bi),
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
                              cpu_post_store(l, p, Y, oidx, oidx[yr - 1], lir_load(F, acc, &oidx[yr - 1]))));
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
  return cpu_matmul_core(l, l->in[0], l->in[1], l->out[0], ovta_node_attr_i(l->n, "transA", 0) != 0,
                     ovta_node_attr_i(l->n, "transB", 0) != 0, l->out[0]->dtype, NULL, NULL, &p);
}

/* MatMul: numpy matmul (batched, broadcasting, 1-D operands promoted then squeezed). */
static int lower_matmul(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  if (!lir_dtype_is_float(l->out[0]->dtype)) return unsup(l, "integer MatMul (use MatMulInteger)");
  post p = {.kind = P_STORE};
  return cpu_matmul_core(l, l->in[0], l->in[1], l->out[0], false, false, l->out[0]->dtype, NULL, NULL, &p);
}

/* MatMulInteger: Y(int32) = sum_k (A - a_zero_point) * (B - b_zero_point); zero points scalar or
 * per row of A / per column of B. */
static int lower_matmul_integer(L *l) {
  if (!l->in[0] || !l->in[1] || !l->out[0]) return bad(l, "missing input or output");
  post p = {.kind = P_STORE};
  return cpu_matmul_core(l, l->in[0], l->in[1], l->out[0], false, false, LIR_I32, l->in[2], l->in[3], &p);
}

/* QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp):
 * y = saturate(round_half_even(sum (a - a_zp)(b - b_zp) * a_scale * b_scale / y_scale) + y_zp). */
static int lower_qlinear_matmul(L *l) {
  for (int i = 0; i < 8; i++)
    if (!l->in[i] && i != 2 && i != 5) return bad(l, "missing input");
  if (lir_buf_numel(l->in[1]) > 1) return unsup(l, "per-row a_scale");
  post p = {.kind = P_QLINEAR, .sa = l->in[1], .sb = l->in[4], .sy = l->in[6], .zy = l->in[7]};
  return cpu_matmul_core(l, l->in[0], l->in[3], l->out[0], false, false, LIR_I32, l->in[2], l->in[5], &p);
}

/* Det: y[b] = det(x[b]) for each M x M matrix of X [*, M, M] (an empty matrix gives 1): LU
 * with partial pivoting in f64 (pivot: the largest |a[i][k]| for i >= k, the first on ties; a row
 * swap negates), y = the signed product of the pivots; elimination stops below a zero pivot. */
static int lower_det(L *l) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  if (!X || !Y || X->ndim < 2) return bad(l, "missing input or output");
  int64_t M = X->shape[X->ndim - 1], nb = lir_buf_numel(Y), sh[3] = {nb, M, M}, mm[2] = {M, M};
  view(X, 3, sh), view1(Y);
  lir_buf *a = lir_buf_new(F, "a", LIR_F64, 2, mm, LIR_SCOPE_LOCAL), *det = sc_new(l, "det", LIR_F64);
  lir_buf *piv = sc_new(l, "p", LIR_I64), *best = sc_new(l, "best", LIR_F64);
  lir_var *b = lir_var_new(F, "b", LIR_I64), *k = lir_var_new(F, "k", LIR_I64), *i = lir_var_new(F, "i", LIR_I64);
  lir_var *j = lir_var_new(F, "j", LIR_I64), *i2 = lir_var_new(F, "i", LIR_I64), *j2 = lir_var_new(F, "j", LIR_I64);
  lir_var *j3 = lir_var_new(F, "j", LIR_I64), *t = lir_var_new(F, "t", LIR_F64), *fv = lir_var_new(F, "f", LIR_F64);
  lir_var *i3 = lir_var_new(F, "i", LIR_I64);
  lir_expr *B = lir_ref(F, b), *K = lir_ref(F, k), *Iv = lir_ref(F, i), *J = lir_ref(F, j), *K1 = lir_addi(F, K, 1);
  lir_expr *rest = lir_sub(F, I(M), K1), *P = sc_get(l, piv);
#define A2(r, c) lir_load(F, a, (lir_expr *[]){(r), (c)})
  lir_stmt *load = lir_for(F, i, I(0), I(M), LIR_FOR_SERIAL, lir_for(F, j, I(0), I(M), LIR_FOR_VECTORIZED,
      lir_store(F, a, (lir_expr *[]){Iv, J}, lir_cast(F, LIR_F64, lir_load(F, X, (lir_expr *[]){B, Iv, J})))));
  /* the pivot row */
  lir_expr *ai = lir_call1(F, LIR_ABS, A2(lir_ref(F, i2), K));
  lir_stmt *search = lir_for(F, i2, K1, rest, LIR_FOR_SERIAL,
      lir_if(F, lir_bin(F, LIR_GT, ai, sc_get(l, best)), SEQ(sc_set(l, best, ai), sc_set(l, piv, lir_ref(F, i2))), NULL));
  lir_expr *J2 = lir_ref(F, j2);
  lir_stmt *swap = lir_if(F, lir_bin(F, LIR_NE, P, K), SEQ(lir_for(F, j2, I(0), I(M), LIR_FOR_SERIAL, lir_let(F, t, A2(K, J2),
      SEQ(lir_store(F, a, (lir_expr *[]){K, J2}, A2(P, J2)), lir_store(F, a, (lir_expr *[]){P, J2}, lir_ref(F, t))))),
      sc_set(l, det, lir_un(F, LIR_NEG, sc_get(l, det)))), NULL);
  /* elimination below the pivot */
  lir_expr *I2 = lir_ref(F, i3), *J3 = lir_ref(F, j3);
  lir_stmt *elim = lir_for(F, i3, K1, rest, LIR_FOR_SERIAL, lir_let(F, fv, lir_bin(F, LIR_DIV, A2(I2, K), A2(K, K)),
      lir_for(F, j3, K1, rest, LIR_FOR_SERIAL, lir_store(F, a, (lir_expr *[]){I2, J3},
          lir_bin(F, LIR_SUB, A2(I2, J3), lir_bin(F, LIR_MUL, lir_ref(F, fv), A2(K, J3)))))));
  lir_stmt *step = SEQ(sc_set(l, piv, K), sc_set(l, best, lir_call1(F, LIR_ABS, A2(K, K))), search, swap,
                       sc_set(l, det, lir_bin(F, LIR_MUL, sc_get(l, det), A2(K, K))),
                       lir_if(F, lir_bin(F, LIR_NE, A2(K, K), lir_float(F, LIR_F64, 0)), elim, NULL));
#undef A2
  lir_stmt *one = SEQ(load, sc_set(l, det, lir_float(F, LIR_F64, 1)), lir_for(F, k, I(0), I(M), LIR_FOR_SERIAL, step),
                      lir_store1(F, Y, B, lir_cast(F, Y->dtype, sc_get(l, det))));
  lir_stmt *body = lir_for(F, b, I(0), I(nb), LIR_FOR_SERIAL, one);
  F->body = lir_alloc_stmt(F, a, lir_alloc_stmt(F, det, lir_alloc_stmt(F, piv, lir_alloc_stmt(F, best, body))));
  return 0;
}

const cpu_rule cpu_rules_matmul[] = {
    {"Gemm", lower_gemm},
    {"MatMul", lower_matmul},
    {"MatMulInteger", lower_matmul_integer},
    {"QLinearMatMul", lower_qlinear_matmul},
    {"Det", lower_det},
    {NULL, NULL},
};
