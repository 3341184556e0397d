/* The reference evaluator's float matrix product (compiler/graph/eval.c mm_f64: operands packed
 * as doubles, two rows by 16 columns summed in registers, over the thread pool) against the
 * plain scalar loop written here: for every output element, 0, then a * b added in double in k
 * order, times alpha, plus beta * C (broadcast), then ovta.Dense's activation, stored as the
 * output's type. The outputs must be the same bytes (not merely close): calibration's ranges,
 * hence the quantized plan, depend on them. The operands mix magnitudes 2^-20 .. 2^20 so that a
 * sum in another order (or an FMA) gives other bits; test_matmul_detects_reorder checks that the
 * comparison catches one. Shapes: MatMul on rank 1, 2, 3 and 4 operands with broadcast batches,
 * Gemm with transA/transB/alpha/beta and C of shape [N], [M, N], [1, N], [M, 1] and scalar,
 * ovta.Dense with relu and none, K and N not multiples of 4 or 16, N = 1, M odd; float32 and
 * float64 tensors; 1 and 2 threads. test_qdense_exact: ovta.QDense's integer path. */
#include <math.h>

#include "graph.h"
#include "ovta_test.h"

static uint32_t rng = 777u;
static double drand(void) {
  rng = rng * 1664525u + 1013904223u;
  int v = (int)(rng >> 9) % 2001 - 1000;
  rng = rng * 1664525u + 1013904223u;
  int ex = (int)(rng >> 20) % 41 - 20; /* 2^-20 .. 2^20 */
  return v % 9 == 0 ? 0.0 : ldexp((double)v / 977.0, ex);
}

/* One product case. */
typedef struct mcase {
  const char *op;          /* MatMul, Gemm or ovta.Dense */
  ovta_dtype dt;           /* element type of every tensor */
  int ar, br;              /* operand ranks */
  int64_t as[4], bs[4];    /* operand shapes */
  int cr;                  /* C / bias rank (-1: none) */
  int64_t cs[2];           /* its shape */
  int ta, tb;              /* Gemm's transA, transB */
  float alpha, beta;       /* Gemm's alpha, beta */
  const char *act;         /* ovta.Dense's act (NULL: none) */
} mcase;

/* A tensor of g with random values (float32 values rounded from drand). */
static ovta_tensor *rand_tensor(ovta_graph *g, const char *name, ovta_dtype dt, int rank, const int64_t *shape) {
  ovta_error err = {0};
  ovta_tensor *t = ovta_graph_add_tensor(g, name, dt, rank, shape, &err);
  assert_non_null(t);
  t->kind = OVTA_TK_CONST;
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int64_t i = 0; i < ovta_tensor_numel(t); i++) {
    if (dt == OVTA_DT_F32) ((float *)t->data)[i] = (float)drand();
    else ((double *)t->data)[i] = drand() * (1 + 1e-9); /* products not exact in double */
  }
  return t;
}

static double get(const ovta_tensor *t, int64_t i) { return t->dtype == OVTA_DT_F32 ? ((float *)t->data)[i] : ((double *)t->data)[i]; }

/* The output shape of case c (numpy matmul rules, batch dims broadcast) into ys; its rank. */
static int out_shape(const mcase *c, int64_t *ys) {
  int64_t M = c->ar == 1 ? 1 : c->as[c->ta ? c->ar - 1 : c->ar - 2];
  int64_t N = c->br == 1 ? 1 : c->bs[c->tb ? c->br - 2 : c->br - 1];
  int nb = (c->ar > 2 ? c->ar - 2 : 0) > (c->br > 2 ? c->br - 2 : 0) ? c->ar - 2 : (c->br > 2 ? c->br - 2 : 0);
  int r = 0;
  for (int d = 0; d < nb; d++) {
    int da = d - (nb - (c->ar - 2)), db = d - (nb - (c->br - 2));
    int64_t x = c->ar > 2 && da >= 0 ? c->as[da] : 1, y = c->br > 2 && db >= 0 ? c->bs[db] : 1;
    ys[r++] = x > y ? x : y;
  }
  if (c->ar != 1) ys[r++] = M;
  if (c->br != 1) ys[r++] = N;
  return r;
}

/* The scalar rule (file comment), element by element, from the operands' own indexing. */
static void ref_matmul(const mcase *c, const ovta_tensor *a, const ovta_tensor *b, const ovta_tensor *ct, const int64_t *ys,
                       int yr, void *y) {
  int64_t M = c->ar == 1 ? 1 : c->as[c->ta ? c->ar - 1 : c->ar - 2], K = c->as[c->ta ? c->ar - 2 : c->ar - 1];
  int64_t N = c->br == 1 ? 1 : c->bs[c->tb ? c->br - 2 : c->br - 1];
  int nb = yr - (c->ar != 1) - (c->br != 1);
  int64_t batch = 1;
  for (int d = 0; d < nb; d++) batch *= ys[d];
  for (int64_t bt = 0; bt < batch; bt++) {
    int64_t ab = 0, bb = 0, rem = bt, sa = 1, sb = 1; /* matrix index in a and b */
    for (int d = nb - 1; d >= 0; d--) {
      int64_t i = rem % ys[d];
      rem /= ys[d];
      int da = d - (nb - (c->ar - 2)), db = d - (nb - (c->br - 2));
      if (c->ar > 2 && da >= 0) ab += (c->as[da] == 1 ? 0 : i) * sa, sa *= c->as[da];
      if (c->br > 2 && db >= 0) bb += (c->bs[db] == 1 ? 0 : i) * sb, sb *= c->bs[db];
    }
    for (int64_t m = 0; m < M; m++)
      for (int64_t n = 0; n < N; n++) {
        double acc = 0;
        for (int64_t k = 0; k < K; k++)
          acc += get(a, ab * M * K + (c->ta ? k * M + m : m * K + k)) * get(b, bb * K * N + (c->tb ? n * K + k : k * N + n));
        acc *= (double)c->alpha;
        if (ct) {
          int64_t ci = c->cr == 0 ? 0 : c->cr == 1 ? (c->cs[0] == 1 ? 0 : n)
                                                   : (c->cs[0] == 1 ? 0 : m) * c->cs[1] + (c->cs[1] == 1 ? 0 : n);
          acc += (double)c->beta * get(ct, ci);
        }
        if (c->act && !strcmp(c->act, "relu")) acc = acc > 0 ? acc : 0;
        int64_t yi = (bt * M + m) * N + n;
        if (c->dt == OVTA_DT_F32) ((float *)y)[yi] = (float)acc;
        else ((double *)y)[yi] = acc;
      }
  }
}

/* Case c evaluated by ovta_eval_node_ref with `threads` threads; the output bytes into *got
 * (malloc'd) and the reference's into *want; their size. */
static size_t eval_case(const mcase *c, int threads, void **got, void **want) {
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("mm");
  ovta_tensor *a = rand_tensor(g, "a", c->dt, c->ar, c->as);
  ovta_tensor *b = rand_tensor(g, "b", c->dt, c->br, c->bs);
  ovta_tensor *ct = c->cr >= 0 ? rand_tensor(g, "c", c->dt, c->cr, c->cs) : NULL;
  const char *in[3] = {"a", "b", "c"}, *out[1] = {"y"};
  ovta_node *n = ovta_graph_add_node(g, c->op, "m", ct ? 3 : 2, in, 1, out, &err);
  assert_non_null(n);
  if (!strcmp(c->op, "Gemm")) {
    OVTA_ASSERT_OK(ovta_node_set_i(n, "transA", c->ta, &err), err);
    OVTA_ASSERT_OK(ovta_node_set_i(n, "transB", c->tb, &err), err);
    OVTA_ASSERT_OK(ovta_node_set_f(n, "alpha", c->alpha, &err), err);
    OVTA_ASSERT_OK(ovta_node_set_f(n, "beta", c->beta, &err), err);
  }
  if (c->act) OVTA_ASSERT_OK(ovta_node_set_s(n, "act", c->act, &err), err);
  int64_t ys[6];
  int yr = out_shape(c, ys);
  ovta_tensor *y = ovta_tensor_new("y", c->dt, yr, ys);
  assert_non_null(y);
  ovta_tensor *ins[3] = {a, b, ct};
  ovta_set_threads(threads);
  OVTA_ASSERT_OK(ovta_eval_node_ref(NULL, g, n, ins, &y, &err), err);
  ovta_set_threads(0);
  size_t sz = (size_t)ovta_tensor_numel(y) * (c->dt == OVTA_DT_F32 ? 4 : 8);
  *got = malloc(sz + 1), *want = calloc(1, sz + 1);
  memcpy(*got, y->data, sz);
  ref_matmul(c, a, b, ct, ys, yr, *want);
  ovta_tensor_free(y);
  ovta_graph_free(g);
  return sz;
}

#define F32 OVTA_DT_F32
#define F64 OVTA_DT_F64
static const mcase CASES[] = {
    /* op, dt, ar, br, as, bs, cr, cs, ta, tb, alpha, beta, act */
    {"MatMul", F32, 2, 2, {5, 37}, {37, 21}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F64, 2, 2, {7, 33}, {33, 16}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F32, 3, 2, {1, 13, 64}, {64, 40}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F32, 4, 4, {2, 3, 9, 10}, {2, 3, 10, 9}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F64, 4, 3, {2, 1, 6, 11}, {3, 11, 5}, -1, {0}, 0, 0, 1, 1, NULL},  /* broadcast batches both ways */
    {"MatMul", F32, 3, 4, {3, 4, 7}, {2, 1, 7, 18}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F32, 1, 2, {19}, {19, 35}, -1, {0}, 0, 0, 1, 1, NULL},            /* rank-1 a */
    {"MatMul", F64, 2, 1, {6, 19}, {19}, -1, {0}, 0, 0, 1, 1, NULL},            /* rank-1 b: N = 1 */
    {"MatMul", F32, 1, 3, {23}, {4, 23, 3}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F64, 1, 1, {29}, {29}, -1, {0}, 0, 0, 1, 1, NULL},
    {"MatMul", F32, 2, 2, {1, 1}, {1, 1}, -1, {0}, 0, 0, 1, 1, NULL},
    {"Gemm", F32, 2, 2, {9, 31}, {31, 17}, 1, {17}, 0, 0, 1, 1, NULL},
    {"Gemm", F64, 2, 2, {31, 9}, {17, 31}, 2, {9, 17}, 1, 1, 0.75f, -1.5f, NULL},
    {"Gemm", F32, 2, 2, {31, 8}, {31, 33}, 2, {1, 33}, 1, 0, 1.25f, 0.5f, NULL},
    {"Gemm", F64, 2, 2, {8, 45}, {3, 45}, 2, {8, 1}, 0, 1, 3.0f, 2.0f, NULL},
    {"Gemm", F32, 2, 2, {4, 5}, {6, 5}, 0, {0}, 0, 1, -2.0f, 0.25f, NULL},
    {"Gemm", F32, 2, 2, {3, 50}, {50, 2}, -1, {0}, 0, 0, 0.5f, 1, NULL},
    {"ovta.Dense", F32, 2, 2, {11, 70}, {33, 70}, 1, {33}, 0, 1, 1, 1, "relu"},
    {"ovta.Dense", F32, 2, 2, {2, 27}, {1, 27}, 1, {1}, 0, 1, 1, 1, NULL},
    {"ovta.Dense", F64, 2, 2, {5, 40}, {48, 40}, 1, {48}, 0, 1, 1, 1, "relu"},
    {"ovta.Dense", F32, 2, 2, {3, 16}, {20, 16}, -1, {0}, 0, 1, 1, 1, "none"},
};

static void test_matmul_bit_exact(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
    for (int t = 1; t <= 2; t++) {
      void *got, *want;
      size_t sz = eval_case(&CASES[i], t, &got, &want);
      if (memcmp(got, want, sz)) fail_msg("case %zu (%s), %d threads: outputs differ", i, CASES[i].op, t);
      free(got), free(want);
    }
}

/* The comparison is strict enough to catch a sum in another order: float64 operands summed with
 * k descending give other bits than the evaluator's output in some elements. (Float32 operands
 * make exact double products, so an FMA would not change those; the float64 cases cover it.) */
static void test_matmul_detects_reorder(void **state) {
  (void)state;
  mcase c = {"MatMul", F64, 2, 2, {8, 64}, {64, 24}, -1, {0}, 0, 0, 1, 1, NULL};
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("mm");
  ovta_tensor *a = rand_tensor(g, "a", F64, 2, c.as), *b = rand_tensor(g, "b", F64, 2, c.bs);
  const char *in[2] = {"a", "b"}, *out[1] = {"y"};
  ovta_node *n = ovta_graph_add_node(g, "MatMul", "m", 2, in, 1, out, &err);
  assert_non_null(n);
  int64_t ys[2] = {8, 24};
  ovta_tensor *y = ovta_tensor_new("y", F64, 2, ys);
  ovta_tensor *ins[2] = {a, b};
  OVTA_ASSERT_OK(ovta_eval_node_ref(NULL, g, n, ins, &y, &err), err);
  int differ = 0, same = 0;
  for (int64_t m = 0; m < 8; m++)
    for (int64_t j = 0; j < 24; j++) {
      double fwd = 0, rev = 0;
      for (int64_t k = 0; k < 64; k++) fwd += ((double *)a->data)[m * 64 + k] * ((double *)b->data)[k * 24 + j];
      for (int64_t k = 63; k >= 0; k--) rev += ((double *)a->data)[m * 64 + k] * ((double *)b->data)[k * 24 + j];
      double got = ((double *)y->data)[m * 24 + j];
      same += memcmp(&fwd, &got, sizeof got) == 0;
      differ += memcmp(&rev, &got, sizeof got) != 0;
    }
  assert_int_equal(same, 8 * 24);
  assert_true(differ > 8 * 24 / 4);
  ovta_tensor_free(y);
  ovta_graph_free(g);
}

/* ovta.QDense (integer path): x [M][K] and w [N][K] of an integer type, an int32 bias, a shift
 * or per-channel shifts (per_channel 1: 0..11, a shift of 0 among them; 2: 1..12, every one a
 * rounding right shift, the lowering's shorter form), a clip; the scalar rule: sum x * w in
 * int64, plus the bias, the low 32 bits requantized (ovta_requant) and clipped. int16 operands
 * make sums past 2^31 (the low 32 bits then matter). */
static void qdense_case(ovta_dtype dt, int64_t M, int64_t N, int64_t K, int amp, int per_channel, int threads) {
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("qd");
  int64_t xs[2] = {M, K}, ws[2] = {N, K}, bs[1] = {N};
  ovta_tensor *t[3];
  const char *names[3] = {"x", "w", "b"};
  ovta_dtype dts[3] = {dt, dt, OVTA_DT_I32};
  const int64_t *shapes[3] = {xs, ws, bs};
  for (int i = 0; i < 3; i++) {
    t[i] = ovta_graph_add_tensor(g, names[i], dts[i], i < 2 ? 2 : 1, shapes[i], &err);
    assert_non_null(t[i]);
    OVTA_ASSERT_OK(ovta_tensor_alloc(t[i], &err), err);
    for (int64_t j = 0; j < ovta_tensor_numel(t[i]); j++) {
      rng = rng * 1664525u + 1013904223u;
      int v = (int)(rng >> 8) % (2 * amp + 1) - amp;
      if (dts[i] == OVTA_DT_I8) ((int8_t *)t[i]->data)[j] = (int8_t)v;
      else if (dts[i] == OVTA_DT_I16) ((int16_t *)t[i]->data)[j] = (int16_t)v;
      else ((int32_t *)t[i]->data)[j] = v * 64;
    }
  }
  const char *in[3] = {"x", "w", "b"}, *out[1] = {"y"};
  ovta_node *n = ovta_graph_add_node(g, "ovta.QDense", "q", 3, in, 1, out, &err);
  assert_non_null(n);
  int64_t sh[64];
  for (int64_t j = 0; j < N; j++) sh[j] = (j * 7) % 12 + (per_channel == 2);
  if (per_channel) OVTA_ASSERT_OK(ovta_node_set_ints(n, "shifts", sh, (int)N, &err), err);
  else OVTA_ASSERT_OK(ovta_node_set_i(n, "shift", 9, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "clip_min", -100, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "clip_max", 90, &err), err);
  int64_t ys[2] = {M, N};
  ovta_tensor *y = ovta_tensor_new("y", OVTA_DT_I8, 2, ys);
  ovta_set_threads(threads);
  OVTA_ASSERT_OK(ovta_eval_node_ref(NULL, g, n, t, &y, &err), err);
  ovta_set_threads(0);
  int64_t wrapped = 0;
  for (int64_t m = 0; m < M; m++)
    for (int64_t j = 0; j < N; j++) {
      int64_t acc = ((int32_t *)t[2]->data)[j];
      for (int64_t k = 0; k < K; k++) {
        int64_t a = dt == OVTA_DT_I8 ? ((int8_t *)t[0]->data)[m * K + k] : ((int16_t *)t[0]->data)[m * K + k];
        int64_t b = dt == OVTA_DT_I8 ? ((int8_t *)t[1]->data)[j * K + k] : ((int16_t *)t[1]->data)[j * K + k];
        acc += a * b;
      }
      wrapped += acc != (int32_t)acc;
      int32_t want = ovta_requant((int32_t)acc, per_channel ? (int)sh[j] : 9, -100, 90);
      assert_int_equal(((int8_t *)y->data)[m * N + j], want);
    }
  if (dt == OVTA_DT_I16) assert_true(wrapped > 0);
  ovta_tensor_free(y);
  ovta_graph_free(g);
}

static void test_qdense_exact(void **state) {
  (void)state;
  for (int th = 1; th <= 2; th++) {
    qdense_case(OVTA_DT_I8, 7, 37, 70, 127, 0, th);
    qdense_case(OVTA_DT_I8, 1, 5, 3, 127, 1, th);
    qdense_case(OVTA_DT_I8, 12, 64, 200, 127, 1, th);
    qdense_case(OVTA_DT_I8, 12, 64, 200, 127, 2, th);
    qdense_case(OVTA_DT_I16, 5, 19, 40, 32767, 0, th);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_bit_exact),
      cmocka_unit_test(test_matmul_detects_reorder),
      cmocka_unit_test(test_qdense_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
