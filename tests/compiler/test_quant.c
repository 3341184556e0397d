/* Quantization arithmetic against independent float references (plain C math, then rounding),
 * and the quantize pass end to end: calibration ranges, chosen exponents, and the int8 graph's
 * result against a float convolution computed here. */
#include <math.h>

#include "exec.h"
#include "passes.h"
#include "ovta_test.h"

static unsigned rng = 12345;
static double uni(void) { /* [0, 1) */
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffffff) / 16777216.0;
}

static double round_away(double v) { return v >= 0 ? floor(v + 0.5) : -floor(-v + 0.5); }

static void test_quant_i8_i32(void **state) {
  (void)state;
  for (int i = 0; i < 20000; i++) {
    int e = (int)(uni() * 16) - 12;
    float x = (float)((uni() * 2 - 1) * 300 * pow(2, e));
    double r = round_away(x / pow(2, e));
    double want8 = r > 127 ? 127 : r < -127 ? -127 : r;
    assert_int_equal(ovta_quant_i8(x, e), (int)want8);
    assert_int_equal(ovta_quant_i32(x, e), (int)r); /* well inside int32 */
  }
  /* ties round away from zero, saturation */
  assert_int_equal(ovta_quant_i8(2.5f, 0), 3);
  assert_int_equal(ovta_quant_i8(-2.5f, 0), -3);
  assert_int_equal(ovta_quant_i8(0.375f, -3), 3);
  assert_int_equal(ovta_quant_i8(1000, 0), 127);
  assert_int_equal(ovta_quant_i8(-1000, 0), -127);
  assert_int_equal(ovta_quant_i32(1e30f, 0), 2147483647);
}

static void test_requant(void **state) {
  (void)state;
  for (int i = 0; i < 50000; i++) {
    int s = 1 + (int)(uni() * 20);
    int32_t acc = (int32_t)((uni() * 2 - 1) * (1 << 30));
    double want = floor(acc / pow(2, s) + 0.5); /* round half up, as ADD then SHR does */
    int32_t lo = -128 + (int)(uni() * 100), hi = 127 - (int)(uni() * 100);
    double clamped = want < lo ? lo : want > hi ? hi : want;
    assert_int_equal(ovta_requant(acc, s, lo, hi), (int32_t)clamped);
    assert_int_equal(ovta_requant(acc, s, INT32_MIN, INT32_MAX), (int32_t)want);
  }
  /* shift 0 and left shifts: acc * 2^-s */
  for (int i = 0; i < 1000; i++) {
    int s = -(int)(uni() * 8);
    int32_t acc = (int32_t)((uni() * 2 - 1) * 1000);
    assert_int_equal(ovta_requant(acc, s, INT32_MIN, INT32_MAX), (int32_t)(acc * pow(2, -s)));
  }
  /* exactly at .5: rounds up (toward +inf), like ADD 2^(s-1) then arithmetic SHR */
  assert_int_equal(ovta_requant(6, 2, -128, 127), 2);   /* 1.5 -> 2 */
  assert_int_equal(ovta_requant(-6, 2, -128, 127), -1); /* -1.5 -> -1 */
  assert_int_equal(ovta_requant(-7, 2, -128, 127), -2); /* -1.75 -> -2 */
  /* ISA.md SHR corner cases */
  assert_int_equal(ovta_requant(-5, 40, INT32_MIN, INT32_MAX), -1);
  assert_int_equal(ovta_requant(5, 40, INT32_MIN, INT32_MAX), 0);
  assert_int_equal(ovta_requant(5, -40, INT32_MIN, INT32_MAX), 0);
}

static void test_exp_for(void **state) {
  (void)state;
  for (int i = 0; i < 5000; i++) {
    float a = (float)(uni() * pow(2, (int)(uni() * 40) - 20));
    if (a == 0) continue;
    int e = ovta_quant_exp_for(a);
    /* the definition: the smallest e with a / 2^e <= 127 */
    assert_true(127 * pow(2, e) >= a);
    assert_true(127 * pow(2, e - 1) < a);
  }
  assert_int_equal(ovta_quant_exp_for(127), 0);
  assert_int_equal(ovta_quant_exp_for(127.5f), 1);
  assert_int_equal(ovta_quant_exp_for(1), -6); /* 127/64 >= 1 > 127/128 */
  assert_int_equal(ovta_quant_exp_for(0), 0);
}

/* A float 3x3 conv (pad 1) + relu on [1,1,4,4] -> [1,2,4,4], computed directly. */
static const float W[2][9] = {{0.5f, -0.25f, 0.125f, 1, 0.75f, -0.5f, 0.25f, 0.5f, -1},
                              {-0.3f, 0.2f, 0.1f, 0.4f, -0.6f, 0.05f, 0.7f, -0.1f, 0.2f}};
static const float B[2] = {0.1f, -0.2f};

static void conv_ref(const float *x, float *y) {
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) {
        double acc = B[m];
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            int ii = i + a - 1, jj = j + b - 1;
            if (ii >= 0 && ii < 4 && jj >= 0 && jj < 4) acc += x[ii * 4 + jj] * W[m][a * 3 + b];
          }
        y[(m * 4 + i) * 4 + j] = acc > 0 ? (float)acc : 0;
      }
}

static const char GRAPH[] =
    "{\"name\": \"q\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"tensors\": ["
    "{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 1, 4, 4]},"
    "{\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [2, 1, 3, 3], \"data\": [0.5, -0.25, 0.125, 1, 0.75, -0.5, 0.25, 0.5, -1,"
    " -0.3, 0.2, 0.1, 0.4, -0.6, 0.05, 0.7, -0.1, 0.2]},"
    "{\"name\": \"b\", \"dtype\": \"f32\", \"shape\": [2], \"data\": [0.1, -0.2]}],"
    "\"nodes\": [{\"name\": \"conv\", \"op\": \"Conv\", \"inputs\": [\"x\", \"w\", \"b\"], \"outputs\": [\"c\"], \"attrs\": {\"pads\": [1, 1, 1, 1]}},"
    "{\"name\": \"relu\", \"op\": \"Relu\", \"inputs\": [\"c\"], \"outputs\": [\"y\"]}]}";

static int exp_def(double absmax) { /* smallest e with absmax / 2^e <= 127, by search */
  int e = -40;
  while (127 * pow(2, e) < absmax) e++;
  return e;
}

static void test_quantize_pass(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(GRAPH, "q.json", &g, &err), err);
  /* two calibration samples; sample 1 has the extreme input -3 */
  int64_t shape[4] = {1, 1, 4, 4};
  ovta_tensor *s[2];
  float xs[2][16], ys[32];
  double xmax = 0, ymax = 0;
  for (int k = 0; k < 2; k++) {
    s[k] = ovta_tensor_new("x", OVTA_DT_F32, 4, shape);
    ovta_tensor_alloc(s[k], &err);
    for (int i = 0; i < 16; i++) xs[k][i] = (float)(uni() * 1.8 - 0.9);
    if (k == 1) xs[k][5] = -3;
    memcpy(s[k]->data, xs[k], sizeof xs[k]);
    conv_ref(xs[k], ys);
    for (int i = 0; i < 16; i++) xmax = fmax(xmax, fabs(xs[k][i]));
    for (int i = 0; i < 32; i++) ymax = fmax(ymax, ys[i]);
  }
  ovta_tensor *const s0[1] = {s[0]}, *const s1[1] = {s[1]};
  ovta_tensor *const *samples[2] = {s0, s1};
  ovta_compile_opts o = {0};
  o.passes = "infer,fuse,quantize";
  o.n_calib = 2;
  o.calib = samples;
  OVTA_ASSERT_OK(ovta_compile_pipeline(g, &o, &err), err);
  int ex = exp_def(xmax), ey = exp_def(ymax), ew = exp_def(1.0); /* max |W| = 1 */
  assert_int_equal(ex, -5);                                     /* 3 / 2^-5 = 96 <= 127 */
  const ovta_node *q = ovta_graph_node(g, "conv");
  assert_non_null(q);
  assert_string_equal(q->op, "ovta.QConv");
  assert_int_equal(q->inputs[0]->quant.exp, ex);
  assert_int_equal(q->inputs[1]->quant.exp, ew);
  assert_int_equal(q->outputs[0]->quant.exp, ey);
  assert_int_equal(ovta_node_attr_i(q, "shift", 99), ey - ex - ew);
  assert_int_equal(ovta_node_attr_i(q, "clip_min", 99), 0);
  assert_int_equal(ovta_node_attr_i(q, "clip_max", 99), 127);
  for (int i = 0; i < 18; i++) /* weights: round(W * 2^-ew) */
    assert_int_equal(ovta_tensor_get_i(q->inputs[1], i), (int)round_away(W[i / 9][i % 9] * pow(2, -ew)));
  for (int m = 0; m < 2; m++) assert_int_equal(ovta_tensor_get_i(q->inputs[2], m), (int)round_away(B[m] * pow(2, -(ex + ew))));
  /* the int8 graph tracks the float result within a few output steps */
  for (int trial = 0; trial < 20; trial++) {
    float x[16], want[32];
    for (int i = 0; i < 16; i++) x[i] = (float)(uni() * 4 - 2);
    conv_ref(x, want);
    ovta_tensor *in = ovta_tensor_new("x", OVTA_DT_F32, 4, shape), *out[1] = {0};
    ovta_tensor_alloc(in, &err);
    memcpy(in->data, x, sizeof x);
    ovta_tensor *const ins[1] = {in};
    OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, ins, NULL, NULL, out, &err), err);
    double step = pow(2, ey);
    for (int i = 0; i < 32; i++) {
      double got = ovta_tensor_get_f(out[0], i), lim = fmin(want[i], 127 * step);
      if (fabs(got - lim) > 3 * step) fail_msg("element %d: %g, float %g (step %g)", i, got, want[i], step);
    }
    ovta_tensor_free(in);
    ovta_tensor_free(out[0]);
  }
  ovta_tensor_free(s[0]);
  ovta_tensor_free(s[1]);
  ovta_graph_free(g);
}

/* A depthwise 3x3 conv (pad 1), DC = 24 channels on 8x8, whose channel c has weights uniform in
 * [-1, 1] scaled by 2^-(c % 6) (the ranges per-tensor scales lose), and its float reference. */
enum { DC = 24, DH = 8 };
static float dw_w[DC * 9], dw_b[DC];

static void dw_ref(const float *x, float *y) {
  for (int c = 0; c < DC; c++)
    for (int i = 0; i < DH; i++)
      for (int j = 0; j < DH; j++) {
        double acc = dw_b[c];
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            int ii = i + a - 1, jj = j + b - 1;
            if (ii >= 0 && ii < DH && jj >= 0 && jj < DH) acc += x[(c * DH + ii) * DH + jj] * dw_w[c * 9 + a * 3 + b];
          }
        y[(c * DH + i) * DH + j] = (float)acc;
      }
}

/* The depthwise graph quantized (calibration: 4 samples uniform in [-1, 1]), per-channel unless
 * per_tensor. */
static ovta_graph *dw_quantized(bool per_tensor, ovta_tensor *const *const *samples) {
  char js[8192];
  size_t k = (size_t)snprintf(js, sizeof js,
                              "{\"name\": \"dw\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"tensors\": ["
                              "{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, %d, %d, %d]},"
                              "{\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [%d, 1, 3, 3], \"data\": [",
                              DC, DH, DH, DC);
  for (int i = 0; i < DC * 9; i++) k += (size_t)snprintf(js + k, sizeof js - k, "%s%.9g", i ? "," : "", dw_w[i]);
  k += (size_t)snprintf(js + k, sizeof js - k, "]}, {\"name\": \"b\", \"dtype\": \"f32\", \"shape\": [%d], \"data\": [", DC);
  for (int i = 0; i < DC; i++) k += (size_t)snprintf(js + k, sizeof js - k, "%s%.9g", i ? "," : "", dw_b[i]);
  k += (size_t)snprintf(js + k, sizeof js - k,
                        "]}], \"nodes\": [{\"name\": \"dw\", \"op\": \"Conv\", \"inputs\": [\"x\", \"w\", \"b\"], "
                        "\"outputs\": [\"y\"], \"attrs\": {\"group\": %d, \"pads\": [1, 1, 1, 1]}}]}",
                        DC);
  assert_true(k < sizeof js);
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(js, "dw.json", &g, &err), err);
  ovta_compile_opts o = {0};
  o.passes = "infer,fuse,quantize";
  o.n_calib = 4, o.calib = samples, o.quant_per_tensor = per_tensor;
  OVTA_ASSERT_OK(ovta_compile_pipeline(g, &o, &err), err);
  return g;
}

static double cosine(const float *a, const float *b, int n) {
  double ab = 0, aa = 0, bb = 0;
  for (int i = 0; i < n; i++) ab += (double)a[i] * b[i], aa += (double)a[i] * a[i], bb += (double)b[i] * b[i];
  return ab / sqrt(aa * bb);
}

/* Per-channel weight exponents on a depthwise conv (the quantize rule for grouped convs): the
 * shifts are exp(Y) - exp(X) - ew[c] with ew[c] from channel c's max |W|; the int8 output (the
 * reference evaluator and the CPU int8 path, which agree bit for bit) against the float conv
 * computed here: the cosine of the whole output (dominated by the large channels) and the mean
 * over channels of each channel's cosine (what a following layer that rescales channels, a
 * batch norm or a pointwise conv, sees) are both higher than with one exponent per tensor; the
 * whole output's above 0.99 (the channels' mean stays below: the output is per tensor, so a
 * small channel's output has few int8 levels either way); and the mean over channels of the
 * dequantized weights' cosine, the error per-channel exponents remove, above 0.999. */
static void test_per_channel_accuracy(void **state) {
  (void)state;
  for (int c = 0; c < DC; c++) {
    for (int i = 0; i < 9; i++) dw_w[c * 9 + i] = (float)((uni() * 2 - 1) * pow(2, -(c % 6)));
    dw_b[c] = (float)((uni() * 2 - 1) * 0.1 * pow(2, -(c % 6)));
  }
  enum { NX = DC * DH * DH };
  int64_t shape[4] = {1, DC, DH, DH};
  ovta_error err = {0};
  ovta_tensor *cal[4];
  ovta_tensor *const *samples[4];
  ovta_tensor *cals[4][1];
  for (int s = 0; s < 4; s++) {
    cal[s] = ovta_tensor_new("x", OVTA_DT_F32, 4, shape);
    OVTA_ASSERT_OK(ovta_tensor_alloc(cal[s], &err), err);
    for (int i = 0; i < NX; i++) ((float *)cal[s]->data)[i] = (float)(uni() * 2 - 1);
    cals[s][0] = cal[s], samples[s] = cals[s];
  }
  double cos[2] = {0, 0}, cosc[2] = {0, 0}, cosw[2] = {0, 0};
  for (int pt = 0; pt < 2; pt++) {
    ovta_graph *g = dw_quantized(pt == 1, samples);
    const ovta_node *q = ovta_graph_node(g, "dw");
    assert_non_null(q);
    assert_string_equal(q->op, "ovta.QConv");
    const ovta_attr *shs = ovta_node_attr(q, "shifts");
    int ex = q->inputs[0]->quant.exp, ey = q->outputs[0]->quant.exp;
    double wc = 0; /* the dequantized weights, channel by channel */
    for (int c = 0; c < DC; c++) {
      int ew = shs ? ey - ex - (int)shs->ints[c] : q->inputs[1]->quant.exp;
      float wd[9];
      for (int i = 0; i < 9; i++) wd[i] = (float)ldexp((double)ovta_tensor_get_i(q->inputs[1], c * 9 + i), ew);
      wc += cosine(wd, dw_w + c * 9, 9) / DC;
    }
    cosw[pt] = wc;
    if (pt == 0) {
      assert_non_null(shs), assert_int_equal(shs->n, DC);
      assert_null(ovta_node_attr(q, "shift"));
      for (int c = 0; c < DC; c++) {
        double mx = 0;
        for (int i = 0; i < 9; i++) mx = fmax(mx, fabs(dw_w[c * 9 + i]));
        assert_int_equal(shs->ints[c], ey - ex - exp_def(mx));
      }
    } else {
      assert_null(shs);
    }
    ovta_exec *e;
    OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
    float want[NX];
    double num = 0, numc = 0;
    for (int t = 0; t < 8; t++) {
      ovta_tensor *in = ovta_tensor_new("x", OVTA_DT_F32, 4, shape), *out[1] = {0}, *yc;
      OVTA_ASSERT_OK(ovta_tensor_alloc(in, &err), err);
      for (int i = 0; i < NX; i++) ((float *)in->data)[i] = (float)(uni() * 2 - 1);
      dw_ref(in->data, want);
      ovta_tensor *const ins[1] = {in};
      OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, ins, NULL, NULL, out, &err), err);
      OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", in, &err), err);
      OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
      OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &yc, &err), err);
      assert_int_equal(yc->nbytes, out[0]->nbytes);
      assert_memory_equal(yc->data, out[0]->data, yc->nbytes); /* the CPU int8 path == the evaluator */
      num += cosine(out[0]->data, want, NX);
      for (int c = 0; c < DC; c++) numc += cosine((const float *)out[0]->data + c * DH * DH, want + c * DH * DH, DH * DH) / DC;
      ovta_tensor_free(in), ovta_tensor_free(out[0]), ovta_tensor_free(yc);
    }
    cos[pt] = num / 8, cosc[pt] = numc / 8;
    ovta_exec_free(e);
    ovta_graph_free(g);
  }
  fprintf(stderr,
          "depthwise int8 vs fp32 cosine (per-channel / per-tensor): whole output %.6f / %.6f; mean of the "
          "channels' outputs %.6f / %.6f; mean of the channels' weights %.6f / %.6f\n",
          cos[0], cos[1], cosc[0], cosc[1], cosw[0], cosw[1]);
  assert_true(cos[0] > cos[1]), assert_true(cosc[0] > cosc[1]), assert_true(cosw[0] > cosw[1]);
  assert_true(cos[0] > 0.99), assert_true(cosw[0] > 0.999);
  for (int s = 0; s < 4; s++) ovta_tensor_free(cal[s]);
}

/* ovta.Pack: element (n, c, h, w) of [1,3,2,2] lands at [n/bt][c/bi][h][w][n%bt][c%bi] with
 * block_in 2, batch 1: shape [1, 2, 2, 2, 1, 2]; the padded channel 3 is zero. */
static void test_pack_layout(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g;
  const char *js = "{\"inputs\": [\"x\"], \"outputs\": [\"y\"], \"tensors\": [{\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"i8\","
                   " \"shape\": [1, 3, 2, 2]}], \"nodes\": [{\"name\": \"p\", \"op\": \"ovta.Pack\", \"inputs\": [\"x\"], "
                   "\"outputs\": [\"y\"], \"attrs\": {\"layout\": \"act\", \"batch\": 1, \"block_in\": 2, \"block_out\": 2}}]}";
  OVTA_ASSERT_OK(ovta_graph_from_json(js, "pack.json", &g, &err), err);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  const ovta_tensor *y = g->outputs[0];
  int64_t want[6] = {1, 2, 2, 2, 1, 2};
  assert_int_equal(y->rank, 6);
  for (int i = 0; i < 6; i++) assert_int_equal(y->shape[i], want[i]);
  assert_int_equal(y->layout, OVTA_LAYOUT_ACT);
  int64_t s[4] = {1, 3, 2, 2};
  ovta_tensor *x = ovta_tensor_new("x", OVTA_DT_I8, 4, s), *out[1] = {0};
  ovta_tensor_alloc(x, &err);
  for (int i = 0; i < 12; i++) ((int8_t *)x->data)[i] = (int8_t)(i + 1);
  ovta_tensor *const ins[1] = {x};
  OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, ins, NULL, NULL, out, &err), err);
  const int8_t *p = out[0]->data;
  for (int c = 0; c < 4; c++)
    for (int h = 0; h < 2; h++)
      for (int w = 0; w < 2; w++) {
        int at = ((c / 2 * 2 + h) * 2 + w) * 2 + c % 2;
        assert_int_equal(p[at], c < 3 ? (c * 2 + h) * 2 + w + 1 : 0);
      }
  ovta_tensor_free(x);
  ovta_tensor_free(out[0]);
  ovta_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quant_i8_i32), cmocka_unit_test(test_requant),       cmocka_unit_test(test_exp_for),
      cmocka_unit_test(test_quantize_pass), cmocka_unit_test(test_per_channel_accuracy), cmocka_unit_test(test_pack_layout),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
