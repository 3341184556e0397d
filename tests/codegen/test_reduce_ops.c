/* The reduction and normalization family on the CPU path where the ONNX node tests do not
 * look: integer types, ties (ArgMax/ArgMin select_last_index, TopK equal values by lower index),
 * empty reductions (the identities), axes and CumSum's axis given at run time, Einsum's
 * refusal naming the equation. Each case is a one-node JSON graph, inferred, compiled, run on
 * one input and compared with values written out here. */
#include "ovta_test.h"

#include <math.h>
#include <stdio.h>

#include "exec.h"

static int opset = 13; /* of the graphs run() builds */

/* One node `op` over input x (dtype dt, shape), attributes attrs (JSON object body), extra
 * tensors/inputs; returns output `out` (0 or 1) after a run, or NULL with err when the build
 * fails. */
static ovta_tensor *run(const char *op, const char *attrs, const char *dt, const char *shape, const void *data,
                        size_t nbytes, const char *extra_tensors, const char *extra_inputs, const char *outs, int out,
                        ovta_error *err) {
  char json[4096];
  ovta_dtype d = !strcmp(dt, "f32") ? OVTA_DT_F32 : !strcmp(dt, "i32") ? OVTA_DT_I32 : !strcmp(dt, "u8") ? OVTA_DT_U8
                 : !strcmp(dt, "i8")  ? OVTA_DT_I8
                                      : OVTA_DT_I64;
  snprintf(json, sizeof json,
           "{\"name\": \"t\", \"opset\": %d, \"inputs\": [\"x\"%s], \"outputs\": [%s],\n"
           " \"tensors\": [{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"%s\", \"shape\": [%s]}%s],\n"
           " \"nodes\": [{\"name\": \"n\", \"op\": \"%s\", \"inputs\": [\"x\"%s], \"outputs\": [%s], \"attrs\": {%s}}]}\n",
           opset, extra_inputs && strstr(extra_inputs, "\"rt\"") ? ", \"rt\"" : "", outs, dt, shape, extra_tensors ? extra_tensors : "",
           op, extra_inputs ? extra_inputs : "", outs, attrs);
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, op, &g, err), *err);
  ovta_exec *e = NULL;
  int rc = ovta_infer_graph(g, err);
  if (!rc) rc = ovta_exec_build(g, NULL, &e, err);
  ovta_tensor *x = ovta_tensor_new("x", d, g->inputs[0]->rank, g->inputs[0]->shape), *y = NULL;
  ovta_graph_free(g);
  if (rc) {
    ovta_tensor_free(x);
    return NULL;
  }
  OVTA_ASSERT_OK(ovta_tensor_set_data(x, data, nbytes, err), *err);
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", x, err), *err);
  OVTA_ASSERT_OK(ovta_exec_run(e, err), *err);
  OVTA_ASSERT_OK(ovta_exec_get_output(e, out, &y, err), *err);
  ovta_tensor_free(x);
  ovta_exec_free(e);
  return y;
}

static void expect_i(ovta_tensor *y, int n, const int64_t *want) {
  assert_non_null(y);
  assert_int_equal(ovta_tensor_numel(y), n);
  for (int i = 0; i < n; i++) assert_int_equal(ovta_tensor_get_i(y, i), want[i]);
  ovta_tensor_free(y);
}
static void expect_f(ovta_tensor *y, int n, const double *want) {
  assert_non_null(y);
  assert_int_equal(ovta_tensor_numel(y), n);
  for (int i = 0; i < n; i++) {
    double v = ovta_tensor_get_f(y, i);
    if (isinf(want[i])) assert_true(v == want[i]);
    else assert_float_equal(v, want[i], 1e-6);
  }
  ovta_tensor_free(y);
}

#define OUTY "\"y\""
#define XI32 "i32", "2, 3", (int32_t[]){1, -2, 3, 4, 5, -6}, 6 * sizeof(int32_t)

/* int32 reductions over axis 1 of [[1, -2, 3], [4, 5, -6]] (keepdims 0); Mean truncates. */
static void test_int_reduce(void **state) {
  (void)state;
  ovta_error err = {0};
  const char *ax = "\"axes\": [1], \"keepdims\": 0";
  expect_i(run("ReduceSum", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){2, 3});
  expect_i(run("ReduceMax", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){3, 5});
  expect_i(run("ReduceMin", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){-2, -6});
  expect_i(run("ReduceProd", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){-6, -120});
  expect_i(run("ReduceMean", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){0, 1});
  expect_i(run("ReduceL1", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){6, 15});
  expect_i(run("ReduceSumSquare", ax, XI32, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){14, 77});
  /* uint8 max over axis 0, keepdims */
  expect_i(run("ReduceMax", "\"axes\": [0]", "u8", "2, 2", (uint8_t[]){200, 3, 100, 250}, 4, NULL, NULL, OUTY, 0, &err),
           2, (int64_t[]){200, 250});
}

/* Reductions over an empty axis give the identities (an integer mean: 0); noop_with_empty_axes
 * copies. */
static void test_empty_reduce(void **state) {
  (void)state;
  ovta_error err = {0};
  float none[1] = {0};
  const char *ax = "\"axes\": [1], \"keepdims\": 0";
  expect_f(run("ReduceSum", ax, "f32", "2, 0", none, 0, NULL, NULL, OUTY, 0, &err), 2, (double[]){0, 0});
  expect_f(run("ReduceProd", ax, "f32", "2, 0", none, 0, NULL, NULL, OUTY, 0, &err), 2, (double[]){1, 1});
  expect_f(run("ReduceMax", ax, "f32", "2, 0", none, 0, NULL, NULL, OUTY, 0, &err), 2, (double[]){-INFINITY, -INFINITY});
  expect_f(run("ReduceMin", ax, "f32", "2, 0", none, 0, NULL, NULL, OUTY, 0, &err), 2, (double[]){INFINITY, INFINITY});
  expect_f(run("ReduceLogSumExp", ax, "f32", "2, 0", none, 0, NULL, NULL, OUTY, 0, &err), 2,
           (double[]){-INFINITY, -INFINITY});
  int32_t inone[1] = {0};
  expect_i(run("ReduceMean", ax, "i32", "2, 0", inone, 0, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){0, 0});
  expect_f(run("ReduceSum", "\"noop_with_empty_axes\": 1", "f32", "3", (float[]){1, 2, 3}, 12, NULL, NULL, OUTY, 0, &err),
           3, (double[]){1, 2, 3});
}

/* ArgMax/ArgMin: the first extreme index, or the last with select_last_index. */
static void test_arg_ties(void **state) {
  (void)state;
  ovta_error err = {0};
  int32_t x[8] = {5, 7, 7, 1, 2, 2, 9, 2};
  expect_i(run("ArgMax", "\"axis\": 1", "i32", "2, 4", x, sizeof x, NULL, NULL, OUTY, 0, &err), 2, (int64_t[]){1, 2});
  expect_i(run("ArgMax", "\"axis\": 1, \"select_last_index\": 1", "i32", "2, 4", x, sizeof x, NULL, NULL, OUTY, 0, &err),
           2, (int64_t[]){2, 2});
  int8_t xi[8] = {5, 1, 7, 1, 2, 2, 9, 2};
  expect_i(run("ArgMin", "\"axis\": 1, \"keepdims\": 0", "i8", "2, 4", xi, sizeof xi, NULL, NULL, OUTY, 0, &err), 2,
           (int64_t[]){1, 0});
  expect_i(run("ArgMin", "\"axis\": 1, \"select_last_index\": 1", "i8", "2, 4", xi, sizeof xi, NULL, NULL, OUTY, 0, &err), 2,
           (int64_t[]){3, 3});
}

/* TopK: sorted, equal values by lower index first. */
static void test_topk_ties(void **state) {
  (void)state;
  ovta_error err = {0};
  float x[5] = {3, 1, 3, 2, 3};
  const char *k2 = ", {\"name\": \"k\", \"dtype\": \"i64\", \"shape\": [1], \"data\": [2]}";
  const char *k3 = ", {\"name\": \"k\", \"dtype\": \"i64\", \"shape\": [1], \"data\": [3]}";
  const char *outs = "\"v\", \"i\"";
  expect_f(run("TopK", "", "f32", "5", x, sizeof x, k2, ", \"k\"", outs, 0, &err), 2, (double[]){3, 3});
  expect_i(run("TopK", "", "f32", "5", x, sizeof x, k2, ", \"k\"", outs, 1, &err), 2, (int64_t[]){0, 2});
  expect_f(run("TopK", "\"largest\": 0", "f32", "5", x, sizeof x, k3, ", \"k\"", outs, 0, &err), 3, (double[]){1, 2, 3});
  expect_i(run("TopK", "\"largest\": 0", "f32", "5", x, sizeof x, k3, ", \"k\"", outs, 1, &err), 3, (int64_t[]){1, 3, 0});
}

/* CumSum on int64, reverse exclusive; ReduceSum with the axes as a constant input. */
static void test_cumsum_axes_input(void **state) {
  (void)state;
  ovta_error err = {0};
  const char *a0 = ", {\"name\": \"a\", \"dtype\": \"i32\", \"shape\": [], \"data\": [0]}";
  expect_i(run("CumSum", "\"reverse\": 1, \"exclusive\": 1", "i64", "4", (int64_t[]){1, 2, 3, 4}, 32, a0, ", \"a\"", OUTY, 0,
               &err),
           4, (int64_t[]){9, 7, 4, 0});
  const char *ax = ", {\"name\": \"a\", \"dtype\": \"i64\", \"shape\": [1], \"data\": [-1]}";
  expect_i(run("ReduceSum", "\"keepdims\": 0", XI32, ax, ", \"a\"", OUTY, 0, &err), 2, (int64_t[]){2, 3});
}

/* Einsum: a matrix product on int32; an equation with three operands is refused by name. */
static void test_einsum(void **state) {
  (void)state;
  ovta_error err = {0};
  const char *w = ", {\"name\": \"w\", \"dtype\": \"i32\", \"shape\": [3, 1], \"data\": [1, 10, 100]}";
  expect_i(run("Einsum", "\"equation\": \"ij,jk->ik\"", XI32, w, ", \"w\"", OUTY, 0, &err), 2, (int64_t[]){281, -546});
  assert_null(run("Einsum", "\"equation\": \"ij,jk,kl->il\"", XI32, w, ", \"w\", \"w\"", OUTY, 0, &err));
  assert_int_equal(err.code, OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "ij,jk,kl->il"));
  /* malformed equations are refused, not read past their buffers */
  const char *badeq[] = {"i.j->ij", "......ij->ij", "ij->abcdefghij", "ij->ii", "ij->k", NULL};
  for (int i = 0; badeq[i]; i++) {
    char a[64];
    snprintf(a, sizeof a, "\"equation\": \"%s\"", badeq[i]);
    assert_null(run("Einsum", a, XI32, NULL, NULL, OUTY, 0, &err));
    assert_int_equal(err.code, OVTA_EUNSUPPORTED);
  }
}

/* LogSoftmax and Hardmax before opset 13: the input coerced to 2-D at axis (default 1), so
 * [2, 2, 2] normalizes over the last 4 elements of each batch; from 13 over one axis. */
static void test_softmax_old_opset(void **state) {
  (void)state;
  ovta_error err = {0};
  float x[8] = {1, 2, 3, 4, 4, 3, 9, 1};
  double want[8];
  for (int b = 0; b < 2; b++) {
    double s = 0;
    for (int i = 0; i < 4; i++) s += exp(x[b * 4 + i]);
    for (int i = 0; i < 4; i++) want[b * 4 + i] = x[b * 4 + i] - log(s);
  }
  opset = 11;
  expect_f(run("LogSoftmax", "", "f32", "2, 2, 2", x, sizeof x, NULL, NULL, OUTY, 0, &err), 8, want);
  expect_f(run("Hardmax", "", "f32", "2, 2, 2", x, sizeof x, NULL, NULL, OUTY, 0, &err), 8, (double[]){0, 0, 0, 1, 0, 0, 1, 0});
  opset = 13;
  expect_f(run("Hardmax", "", "f32", "2, 2, 2", x, sizeof x, NULL, NULL, OUTY, 0, &err), 8, (double[]){0, 1, 0, 1, 1, 0, 1, 0});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_int_reduce), cmocka_unit_test(test_empty_reduce),       cmocka_unit_test(test_arg_ties),
      cmocka_unit_test(test_topk_ties),  cmocka_unit_test(test_cumsum_axes_input), cmocka_unit_test(test_einsum),
      cmocka_unit_test(test_softmax_old_opset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
