/* infer_matmul.c: inference of Gemm, MatMul, MatMulInteger, QLinearMatMul and ovta.Dense / ovta.QDense.
 * The ONNX rule of each operator stands above its function; infer.c says what inference
 * guarantees. */

#include "infer_internal.h"

/* Gemm (11/13): Y = alpha * A' * B' + beta * C; A' = transA ? A^T : A [M, K], B' [K, N];
 * C optional, unidirectionally broadcastable to [M, N]. */
static int infer_gemm(ctx *c) {
  ovta_tensor *a, *b, *cc = ix_in(c, 2);
  if (ix_allow(c, "alpha,beta,transA,transB") || ix_attr_type(c, "alpha", OVTA_ATTR_FLOAT) ||
      ix_attr_type(c, "beta", OVTA_ATTR_FLOAT) || ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 1, &b) ||
      (cc && ix_need(c, 2, &cc)))
    return c->err->code;
  if (a->rank != 2 || b->rank != 2) return ix_bad(c, OVTA_EINVAL, "A and B must be 2-D");
  if (b->dtype != a->dtype || (cc && cc->dtype != a->dtype)) return ix_bad(c, OVTA_EINVAL, "A, B and C differ in type");
  bool ta = ovta_node_attr_i(c->n, "transA", 0), tb = ovta_node_attr_i(c->n, "transB", 0);
  int64_t M = a->shape[ta ? 1 : 0], K = a->shape[ta ? 0 : 1], K2 = b->shape[tb ? 1 : 0], N = b->shape[tb ? 0 : 1];
  if (K >= 0 && K2 >= 0 && K != K2) return ix_bad(c, OVTA_EINVAL, "inner dims differ: %lld vs %lld", (long long)K, (long long)K2);
  int64_t s[2] = {M, N};
  if (cc) {
    if (cc->rank > 2) return ix_bad(c, OVTA_EINVAL, "C must have rank <= 2");
    for (int i = 0; i < cc->rank; i++) {
      int64_t d = cc->shape[i], want = s[2 - cc->rank + i];
      if (d != 1 && d != want && d >= 0 && want >= 0)
        return ix_bad(c, OVTA_EINVAL, "C '%s' does not broadcast to [%lld, %lld]", cc->name, (long long)M, (long long)N);
    }
  }
  return ix_set_out(c, 0, a->dtype, 2, s);
}

/* numpy matmul shapes (MatMul 13, MatMulInteger 10, QLinearMatMul 10): 1-D A gets a leading 1
 * (then dropped), 1-D B a trailing 1 (then dropped); batch dims broadcast. */
static int matmul_shape(ctx *c, const ovta_tensor *a, const ovta_tensor *b, int *rank, int64_t *s) {
  if (a->rank < 1 || b->rank < 1) return ix_bad(c, OVTA_EINVAL, "inputs must have rank >= 1");
  ovta_tensor aa = *a, bb = *b;
  if (a->rank == 1) aa.rank = 2, aa.shape[0] = 1, aa.shape[1] = a->shape[0];
  if (b->rank == 1) bb.rank = 2, bb.shape[0] = b->shape[0], bb.shape[1] = 1;
  int64_t K = aa.shape[aa.rank - 1], K2 = bb.shape[bb.rank - 2];
  if (K >= 0 && K2 >= 0 && K != K2)
    return ix_bad(c, OVTA_EINVAL, "inner dims differ: '%s' has %lld, '%s' has %lld", a->name, (long long)K, b->name, (long long)K2);
  ovta_tensor ba = aa, bbb = bb;
  ba.rank -= 2, bbb.rank -= 2;
  int r;
  if (ix_broadcast(c, &ba, &bbb, &r, s)) return c->err->code;
  if (a->rank != 1) s[r++] = aa.shape[aa.rank - 2];
  if (b->rank != 1) s[r++] = bb.shape[bb.rank - 1];
  *rank = r;
  return OVTA_OK;
}

/* MatMul (13): float or int A, B of one type. */
static int infer_matmul(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "") || ix_count_io(c, 2, 2, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 1, &b)) return c->err->code;
  if (a->dtype != b->dtype) return ix_bad(c, OVTA_EINVAL, "A and B differ in type");
  if (matmul_shape(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, a->dtype, r, s);
}

/* MatMulInteger (10): A, B (u8/i8), optional zero points; Y int32. */
static int infer_matmulinteger(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "") || ix_count_io(c, 2, 4, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 1, &b)) return c->err->code;
  if (matmul_shape(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, OVTA_DT_I32, r, s);
}

/* QLinearMatMul (10): a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp; Y has y_zp's type. */
static int infer_qlinearmatmul(ctx *c) {
  ovta_tensor *a, *b, *yz;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (ix_allow(c, "") || ix_count_io(c, 8, 8, 1, 1) || ix_need(c, 0, &a) || ix_need(c, 3, &b) || ix_need(c, 7, &yz)) return c->err->code;
  if (matmul_shape(c, a, b, &r, s)) return c->err->code;
  return ix_set_out(c, 0, yz->dtype, r, s);
}

/* ovta.Dense: X [M, K], W [N, K], optional B [N] -> [M, N]; ovta.QDense the same in int8, with
 * `shift` or per-channel `shifts` (one INT per output channel, W's first dim). */
static int infer_dense(ctx *c) {
  bool q = !strcmp(c->n->op, "ovta.QDense");
  ovta_tensor *x, *w, *b = ix_in(c, 2);
  if (ix_allow(c, q ? "shift,shifts,clip_min,clip_max" : "act,act_min,act_max,act_alpha,act_beta") || (!q && ix_check_act(c)) ||
      ix_count_io(c, 2, 3, 1, 1) || ix_need(c, 0, &x) || ix_need(c, 1, &w) || (b && ix_need(c, 2, &b)))
    return c->err->code;
  if (x->rank != 2 || w->rank != 2) return ix_bad(c, OVTA_EINVAL, "X and W must be 2-D");
  if (x->shape[1] >= 0 && w->shape[1] >= 0 && x->shape[1] != w->shape[1])
    return ix_bad(c, OVTA_EINVAL, "inner dims differ: %lld vs %lld", (long long)x->shape[1], (long long)w->shape[1]);
  if (b && (b->rank != 1 || b->shape[0] != w->shape[0])) return ix_bad(c, OVTA_EINVAL, "B must have shape [%lld]", (long long)w->shape[0]);
  if (q && (x->dtype != OVTA_DT_I8 || w->dtype != OVTA_DT_I8 || (b && b->dtype != OVTA_DT_I32)))
    return ix_bad(c, OVTA_EINVAL, "X and W must be i8 and B i32");
  const ovta_attr *sh = q ? ovta_node_attr(c->n, "shifts") : NULL;
  if (sh && (sh->type != OVTA_ATTR_INTS || sh->n != w->shape[0]))
    return ix_bad(c, OVTA_EINVAL, "shifts must be INTS, one per output channel");
  int64_t s[2] = {x->shape[0], w->shape[0]};
  return ix_set_out(c, 0, q ? OVTA_DT_I8 : x->dtype, 2, s);
}

/* Det (11): X [*, M, M] float; Y [*] (a scalar for a 2-D X), the determinant of each matrix. */
static int infer_det(ctx *c) {
  ovta_tensor *x;
  if (ix_allow(c, "") || ix_count_io(c, 1, 1, 1, 1) || ix_need(c, 0, &x)) return c->err->code;
  if (x->rank < 2 || !ix_is_float(x->dtype)) return ix_bad(c, OVTA_EINVAL, "X must be float of rank >= 2");
  if (x->shape[x->rank - 1] != x->shape[x->rank - 2]) return ix_bad(c, OVTA_EINVAL, "the matrices are not square");
  return ix_set_out(c, 0, x->dtype, x->rank - 2, x->shape);
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_matmul[] = {
    {"Gemm", infer_gemm},
    {"MatMul", infer_matmul},
    {"MatMulInteger", infer_matmulinteger},
    {"QLinearMatMul", infer_qlinearmatmul},
    {"Det", infer_det},
    {"ovta.Dense", infer_dense},
    {"ovta.QDense", infer_dense},
    {NULL, NULL},
};
