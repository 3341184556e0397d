/* A residual block through the whole stack: conv -> relu -> conv -> add(residual) -> relu ->
 * maxpool -> flatten -> dense, built here in float, quantized with calibration (quantize pass:
 * ovta.QConv, ovta.QAdd with the ReLU fused, ovta.QMaxPool, int8 Flatten, ovta.QDense), then
 *   1. the all-CPU int8 run (cpu/lower.c) against a plain-C int8 reference written in this file
 *      from the quantized graph's constants and attributes;
 *   2. the accelerator run (pack, partition, vta GEMM + ALU kernels; the add fused into the second
 *      conv, and with OVTA_FUSE_ADD=0 its own step) on fsim for the three
 *      configs, bit-exact against the CPU run, with int8 flowing between the accelerator nodes
 *      (no Quantize/Dequantize, no Pack/Unpack between conv, conv, add and pool);
 *   3. an add whose shift the ALU cannot take (16..31) falls back to the CPU with the reason in
 *      the report and stays bit-exact. */
#include "ovta_test_model.h"
#include "accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define C_IN 16
#define C 32
#define HW 8
#define PH 4 /* pooled: 3x3 stride 2 pad 1 */
#define NOUT 10
#define NCAL 4

static unsigned rng = 2024;
static double uni(void) { /* [-1, 1) */
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffffff) / 8388608.0 - 1.0;
}

static ovta_tensor *cst(ovta_graph *g, const char *name, int rank, const int64_t *shape, double scale) {
  ovta_error err = {0};
  ovta_tensor *t = ovta_graph_add_tensor(g, name, OVTA_DT_F32, rank, shape, &err);
  assert_non_null(t);
  t->kind = OVTA_TK_CONST;
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int64_t i = 0; i < ovta_tensor_numel(t); i++) ((float *)t->data)[i] = (float)(uni() * scale);
  return t;
}

static ovta_node *node(ovta_graph *g, const char *op, const char *name, int ni, const char *const *in, const char *out) {
  ovta_error err = {0};
  ovta_node *n = ovta_graph_add_node(g, op, name, ni, in, 1, &out, &err);
  assert_non_null(n);
  return n;
}

/* The float model; conv2's weights 4x larger so the residual's two inputs get different scales. */
static ovta_graph *float_graph(void) {
  ovta_error err = {0};
  rng = 2024;
  ovta_graph *g = ovta_graph_new("residual");
  int64_t xs[4] = {1, C_IN, HW, HW}, w1s[4] = {C, C_IN, 3, 3}, w2s[4] = {C, C, 3, 3}, bs[1] = {C}, w3s[2] = {NOUT, C * PH * PH},
          b3s[1] = {NOUT};
  ovta_tensor *x = ovta_graph_add_tensor(g, "x", OVTA_DT_F32, 4, xs, &err);
  assert_non_null(x);
  x->kind = OVTA_TK_INPUT;
  cst(g, "w1", 4, w1s, 0.12), cst(g, "b1", 1, bs, 0.1), cst(g, "w2", 4, w2s, 0.4), cst(g, "b2", 1, bs, 0.1);
  cst(g, "w3", 2, w3s, 0.05), cst(g, "b3", 1, b3s, 0.1);
  int64_t one[2] = {1, 1}, pad1[4] = {1, 1, 1, 1}, k3[2] = {3, 3}, s2[2] = {2, 2};
  ovta_node *c1 = node(g, "Conv", "conv1", 3, (const char *[]){"x", "w1", "b1"}, "c1");
  node(g, "Relu", "relu1", 1, (const char *[]){"c1"}, "r1");
  ovta_node *c2 = node(g, "Conv", "conv2", 3, (const char *[]){"r1", "w2", "b2"}, "c2");
  node(g, "Add", "add", 2, (const char *[]){"c2", "r1"}, "s");
  node(g, "Relu", "relu2", 1, (const char *[]){"s"}, "a");
  ovta_node *mp = node(g, "MaxPool", "pool", 1, (const char *[]){"a"}, "p");
  node(g, "Flatten", "flatten", 1, (const char *[]){"p"}, "f");
  ovta_node *fc = node(g, "Gemm", "fc", 3, (const char *[]){"f", "w3", "b3"}, "y");
  ovta_node *cv[2] = {c1, c2};
  for (int i = 0; i < 2; i++) {
    OVTA_ASSERT_OK(ovta_node_set_ints(cv[i], "kernel_shape", k3, 2, &err), err);
    OVTA_ASSERT_OK(ovta_node_set_ints(cv[i], "pads", pad1, 4, &err), err);
    OVTA_ASSERT_OK(ovta_node_set_ints(cv[i], "strides", one, 2, &err), err);
  }
  OVTA_ASSERT_OK(ovta_node_set_ints(mp, "kernel_shape", k3, 2, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_ints(mp, "pads", pad1, 4, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_ints(mp, "strides", s2, 2, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(fc, "transB", 1, &err), err);
  g->inputs = calloc(1, sizeof *g->inputs), g->outputs = calloc(1, sizeof *g->outputs);
  g->inputs[0] = x, g->n_inputs = 1;
  g->outputs[0] = ovta_graph_tensor(g, "y"), g->n_outputs = 1;
  return g;
}

static ovta_tensor *input(double scale) {
  int64_t xs[4] = {1, C_IN, HW, HW};
  ovta_tensor *t = ovta_tensor_new("x", OVTA_DT_F32, 4, xs);
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int i = 0; i < C_IN * HW * HW; i++) ((float *)t->data)[i] = (float)(uni() * scale);
  return t;
}

/* Calibration sample s: random inputs, drawn in sample order like input(1.0). */
static void calib_fill(void *ctx, int64_t s, float *dst) {
  (void)ctx, (void)s;
  for (int i = 0; i < C_IN * HW * HW; i++) dst[i] = (float)uni();
}

static ovta_graph *int8_graph(void) {
  ovta_error err = {0};
  ovta_graph *g = float_graph();
  ovta_calib_opts co = {.fill = calib_fill, .count = NCAL, .passes = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify"};
  OVTA_ASSERT_OK(ovta_calibrate_quantize(g, &co, NULL, &err), err);
  return g;
}

static ovta_node *find_op(const ovta_graph *g, const char *op, int which) {
  for (int i = 0; i < g->n_nodes; i++)
    if (!strcmp(g->nodes[i]->op, op) && which-- == 0) return g->nodes[i];
  return NULL;
}

static int count_op(const ovta_graph *g, const char *op) {
  int k = 0;
  for (int i = 0; i < g->n_nodes; i++) k += !strcmp(g->nodes[i]->op, op);
  return k;
}

/* ---------------------------------------------------------------- plain-C int8 reference */

static int32_t rq(int64_t acc, int shift, int lo, int hi) { /* exact: no wrap at these magnitudes */
  int64_t r = shift > 0 ? (acc + ((int64_t)1 << (shift - 1))) >> shift : acc * ((int64_t)1 << -shift);
  return (int32_t)(r < lo ? lo : r > hi ? hi : r);
}

static void ref_conv(const ovta_node *n, const int8_t *x, int ci, int8_t *y) {
  const int8_t *w = n->inputs[1]->data;
  const int32_t *b = n->inputs[2]->data;
  int sh = (int)ovta_node_attr_i(n, "shift", 0), lo = (int)ovta_node_attr_i(n, "clip_min", 0),
      hi = (int)ovta_node_attr_i(n, "clip_max", 0);
  for (int o = 0; o < C; o++)
    for (int i = 0; i < HW; i++)
      for (int j = 0; j < HW; j++) {
        int64_t acc = b[o];
        for (int c = 0; c < ci; c++)
          for (int u = 0; u < 3; u++)
            for (int v = 0; v < 3; v++) {
              int ii = i + u - 1, jj = j + v - 1;
              if (ii >= 0 && ii < HW && jj >= 0 && jj < HW) acc += x[(c * HW + ii) * HW + jj] * w[((o * ci + c) * 3 + u) * 3 + v];
            }
        y[(o * HW + i) * HW + j] = (int8_t)rq(acc, sh, lo, hi);
      }
}

/* logits of the int8 graph for x, computed from its constants and attributes */
static void reference(const ovta_graph *g, const ovta_tensor *xf, float *logits) {
  const ovta_node *q = find_op(g, "QuantizeLinear", 0), *c1 = find_op(g, "ovta.QConv", 0), *c2 = find_op(g, "ovta.QConv", 1);
  const ovta_node *ad = find_op(g, "ovta.QAdd", 0), *fc = find_op(g, "ovta.QDense", 0), *dq = find_op(g, "DequantizeLinear", 0);
  assert_non_null(q), assert_non_null(c1), assert_non_null(c2), assert_non_null(ad), assert_non_null(fc), assert_non_null(dq);
  static int8_t x[C_IN * HW * HW], r1[C * HW * HW], c2o[C * HW * HW], a[C * HW * HW], p[C * PH * PH];
  double sc = ovta_tensor_get_f(q->inputs[1], 0);
  for (int i = 0; i < C_IN * HW * HW; i++) {
    double v = nearbyint(((const float *)xf->data)[i] / sc); /* QuantizeLinear: half to even */
    x[i] = (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
  }
  assert_true(c1->inputs[0] == q->outputs[0] && c2->inputs[0] == c1->outputs[0]);
  ref_conv(c1, x, C_IN, r1);
  ref_conv(c2, r1, C, c2o);
  /* residual add: A = conv2, B = relu1's output */
  assert_true(ad->inputs[0] == c2->outputs[0] && ad->inputs[1] == c1->outputs[0]);
  int sa = (int)ovta_node_attr_i(ad, "shift_a", -1), sb = (int)ovta_node_attr_i(ad, "shift_b", -1),
      sh = (int)ovta_node_attr_i(ad, "shift", 0), lo = (int)ovta_node_attr_i(ad, "clip_min", 0),
      hi = (int)ovta_node_attr_i(ad, "clip_max", 0);
  for (int i = 0; i < C * HW * HW; i++) a[i] = (int8_t)rq((int64_t)c2o[i] * (1 << sa) + (int64_t)r1[i] * (1 << sb), sh, lo, hi);
  /* max pool 3x3 stride 2 pad 1: padding never wins */
  for (int c = 0; c < C; c++)
    for (int i = 0; i < PH; i++)
      for (int j = 0; j < PH; j++) {
        int m = -1000;
        for (int u = 0; u < 3; u++)
          for (int v = 0; v < 3; v++) {
            int ii = 2 * i + u - 1, jj = 2 * j + v - 1;
            if (ii >= 0 && ii < HW && jj >= 0 && jj < HW && a[(c * HW + ii) * HW + jj] > m) m = a[(c * HW + ii) * HW + jj];
          }
        p[(c * PH + i) * PH + j] = (int8_t)m;
      }
  /* dense on the flattened pool output (NCHW order) */
  const int8_t *w = fc->inputs[1]->data;
  const int32_t *b = fc->inputs[2]->data;
  int fs = (int)ovta_node_attr_i(fc, "shift", 0), flo = (int)ovta_node_attr_i(fc, "clip_min", 0),
      fhi = (int)ovta_node_attr_i(fc, "clip_max", 0);
  double ys = ovta_tensor_get_f(dq->inputs[1], 0);
  for (int o = 0; o < NOUT; o++) {
    int64_t acc = b[o];
    for (int k = 0; k < C * PH * PH; k++) acc += p[k] * w[o * C * PH * PH + k];
    logits[o] = (float)(rq(acc, fs, flo, fhi) * ys);
  }
}

/* ---------------------------------------------------------------- tests */

/* The quantize pass's int8 graph: every op quantized, int8 all the way from the input's
 * QuantizeLinear to the logits' DequantizeLinear; the add's two scales differ. */
static void test_quantized_graph(void **st) {
  (void)st;
  ovta_graph *g = int8_graph();
  assert_int_equal(count_op(g, "ovta.QConv"), 2);
  assert_int_equal(count_op(g, "ovta.QAdd"), 1);
  assert_int_equal(count_op(g, "ovta.QMaxPool"), 1);
  assert_int_equal(count_op(g, "ovta.QDense"), 1);
  assert_int_equal(count_op(g, "QuantizeLinear"), 1);
  assert_int_equal(count_op(g, "DequantizeLinear"), 1);
  assert_int_equal(count_op(g, "Add") + count_op(g, "Relu") + count_op(g, "MaxPool") + count_op(g, "ovta.Eltwise"), 0);
  ovta_node *ad = find_op(g, "ovta.QAdd", 0), *mp = find_op(g, "ovta.QMaxPool", 0), *fl = find_op(g, "Flatten", 0);
  assert_int_equal(ovta_node_attr_i(ad, "clip_min", -1), 0); /* the ReLU after the add */
  assert_int_equal(ovta_node_attr_i(ad, "clip_max", -1), 127);
  int sa = (int)ovta_node_attr_i(ad, "shift_a", -1), sb = (int)ovta_node_attr_i(ad, "shift_b", -1);
  int ea = ad->inputs[0]->quant.exp, eb = ad->inputs[1]->quant.exp, ey = ad->outputs[0]->quant.exp;
  int e0 = ea < eb ? ea : eb;
  assert_true(ea != eb); /* conv2's 4x weights: the residual inputs have different scales */
  assert_int_equal(sa, ea - e0);
  assert_int_equal(sb, eb - e0);
  assert_int_equal(ovta_node_attr_i(ad, "shift", -99), ey - e0);
  assert_int_equal(mp->inputs[0], ad->outputs[0]);
  assert_int_equal(mp->outputs[0]->dtype, OVTA_DT_I8);
  assert_int_equal(mp->outputs[0]->quant.exp, ey); /* same scale */
  assert_int_equal(fl->inputs[0], mp->outputs[0]);
  assert_int_equal(fl->outputs[0]->dtype, OVTA_DT_I8);
  assert_int_equal(find_op(g, "ovta.QDense", 0)->inputs[0], fl->outputs[0]);
  ovta_graph_free(g);
}

/* The CPU int8 run against the plain-C reference; and not a trivial output. */
static void test_cpu_reference(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_graph *g = int8_graph();
  ovta_exec *cpu;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &cpu, &err), err);
  int nonzero = 0, pos = 0, neg = 0;
  for (int k = 0; k < 4; k++) {
    ovta_tensor *x = input(1.5), *y = ovta_test_run1(cpu, x);
    float want[NOUT];
    reference(g, x, want);
    assert_int_equal(y->nbytes, sizeof want);
    for (int o = 0; o < NOUT; o++) {
      if (want[o] != ((float *)y->data)[o]) fail_msg("input %d logit %d: cpu %g, reference %g", k, o, ((float *)y->data)[o], want[o]);
      nonzero += want[o] != 0, pos += want[o] > 0, neg += want[o] < 0;
    }
    ovta_tensor_free(x), ovta_tensor_free(y);
  }
  assert_true(nonzero > 30 && pos > 5 && neg > 5);
  ovta_exec_free(cpu);
  ovta_graph_free(g);
}

static void accel_on_fused(const char *cfgname, bool force_fallback, bool fuse);

/* With the add fused into the conv producing one of its inputs (the exec's default), then with
 * OVTA_FUSE_ADD=0 (the add its own step); a forced fallback once. */
static void accel_on(const char *cfgname, bool force_fallback) {
  for (int fuse = 1; fuse >= (force_fallback ? 1 : 0); fuse--) {
    setenv("OVTA_FUSE_ADD", fuse ? "1" : "0", 1);
    accel_on_fused(cfgname, force_fallback, fuse);
  }
  unsetenv("OVTA_FUSE_ADD");
}

static void accel_on_fused(const char *cfgname, bool force_fallback, bool fuse) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  ovta_graph *g = int8_graph();
  if (force_fallback) /* a requantization shift the ALU's 16-bit rounding immediate cannot hold */
    OVTA_ASSERT_OK(ovta_node_set_i(find_op(g, "ovta.QAdd", 0), "shift", 20, &err), err);
  ovta_exec *cpu, *acc;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &cpu, &err), err);
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.accel = true, o.cfg = &cfg, o.backend = "fsim";
  OVTA_ASSERT_OK(ovta_exec_build(g, &o, &acc, &err), err);
  const char *rep = ovta_exec_report(acc);
  if (force_fallback) {
    assert_int_equal(ovta_exec_accel_nodes(acc), 4);
    assert_non_null(strstr(rep, "op ovta.QAdd: cpu (fallback, plain layout)"));
    assert_non_null(strstr(rep, "shift/clip outside the ALU's 16-bit immediates"));
  } else if (fuse) { /* the add in the second conv's step: the same steps without the add's */
    assert_int_equal(ovta_exec_accel_nodes(acc), 4);
    assert_non_null(strstr(rep, "op ovta.QAdd: accel: fused into node"));
    assert_non_null(strstr(rep, "op ovta.QMaxPool: accel: tile"));
    static const char *const want[] = {"QuantizeLinear", "ovta.Pack", "ovta.QConv", "ovta.QConv", "ovta.QMaxPool",
                                       "ovta.Unpack", "Flatten",  "ovta.Pack", "ovta.QDense", "ovta.Unpack",
                                       "DequantizeLinear"};
    assert_int_equal(ovta_exec_num_steps(acc), 11);
    for (int i = 0; i < 11; i++) {
      ovta_exec_node_stats s;
      OVTA_ASSERT_OK(ovta_exec_node_stats_get(acc, i, &s, &err), err);
      if (strcmp(s.op, want[i])) fail_msg("%s: step %d is %s, expected %s", cfgname, i, s.op, want[i]);
    }
  } else {
    assert_int_equal(ovta_exec_accel_nodes(acc), 5);
    assert_non_null(strstr(rep, "op ovta.QAdd: accel: tile"));
    assert_non_null(strstr(rep, "op ovta.QMaxPool: accel: tile"));
    /* the steps: quantize, pack, conv, conv, add, pool on the device back to back, then
     * unpack, flatten (int8), pack, dense, unpack, dequantize */
    static const char *const want[] = {"QuantizeLinear", "ovta.Pack", "ovta.QConv", "ovta.QConv", "ovta.QAdd",
                                       "ovta.QMaxPool",  "ovta.Unpack", "Flatten",  "ovta.Pack", "ovta.QDense",
                                       "ovta.Unpack",    "DequantizeLinear"};
    assert_int_equal(ovta_exec_num_steps(acc), 12);
    for (int i = 0; i < 12; i++) {
      ovta_exec_node_stats s;
      OVTA_ASSERT_OK(ovta_exec_node_stats_get(acc, i, &s, &err), err);
      if (strcmp(s.op, want[i])) fail_msg("%s: step %d is %s, expected %s", cfgname, i, s.op, want[i]);
    }
  }
  for (int k = 0; k < 3; k++) {
    ovta_tensor *x = input(1.5), *yc = ovta_test_run1(cpu, x), *ya = ovta_test_run1(acc, x);
    OVTA_ASSERT_SAME_F32(yc, ya, "%s: input %d, the accelerator's logits against the cpu's", cfgname, k);
    ovta_tensor_free(x), ovta_tensor_free(yc), ovta_tensor_free(ya);
  }
  /* the ALU nodes ran on the device: identity-copy GEMM micro-ops and ALU micro-ops */
  for (int i = 0; i < ovta_exec_num_steps(acc); i++) {
    ovta_exec_node_stats s;
    OVTA_ASSERT_OK(ovta_exec_node_stats_get(acc, i, &s, &err), err);
    if (!s.accel) continue;
    assert_int_equal(s.dev_runs, 1);
    assert_true(s.gemm_uops > 0 && s.alu_uops > 0);
  }
  ovta_exec_free(acc), ovta_exec_free(cpu);
  ovta_graph_free(g);
}

static void test_fsim_default(void **st) { (void)st, accel_on("default", false); }
static void test_fsim_small(void **st) { (void)st, accel_on("small", false); }
static void test_fsim_batch2(void **st) { (void)st, accel_on("batch2", false); }
static void test_fallback(void **st) { (void)st, accel_on("default", true); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quantized_graph), cmocka_unit_test(test_cpu_reference),
      cmocka_unit_test(test_fsim_default),    cmocka_unit_test(test_fsim_small),
      cmocka_unit_test(test_fsim_batch2),     cmocka_unit_test(test_fallback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
