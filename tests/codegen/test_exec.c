/* Graph executor tests: a small float network (Conv+Relu+MaxPool+Flatten+Gemm+Softmax) and an
 * int8 pipeline (QuantizeLinear -> QLinearMatMul -> DequantizeLinear) built as JSON, compiled,
 * run, and compared with plain C references written here; memory planning reuses storage;
 * save/load runs the same plan again; .npy files match the format spec byte for byte; the
 * evaluation hook; errors name the place; operators run in parallel give the same bytes for any
 * thread count. */
#include "ovta_test.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "cpu.h"
#include "exec.h"

enum { C_IN = 2, H = 6, W = 6, C_OUT = 3, K = 3, HP = 3, WP = 3, FC = 4, FLAT = C_OUT * HP * WP };

static float wconv(int i) { return sinf((float)i * 0.37f) * 0.5f; }
static float bconv(int i) { return 0.1f * (float)i - 0.1f; }
static float wfc(int i) { return cosf((float)i * 0.11f) * 0.2f; }
static float xin(int i) { return (float)((i * 7) % 13) / 6.5f - 1.0f; }

/* JSON list of n values of fn. */
static void list(char *buf, size_t cap, int n, float (*fn)(int)) {
  size_t k = 0;
  for (int i = 0; i < n; i++) k += (size_t)snprintf(buf + k, cap - k, "%s%.9g", i ? ", " : "", fn(i));
}

static ovta_graph *float_net(void) {
  static char json[65536];
  char lw[8192], lb[256], lf[8192];
  list(lw, sizeof lw, C_OUT * C_IN * K * K, wconv);
  list(lb, sizeof lb, C_OUT, bconv);
  list(lf, sizeof lf, FC * FLAT, wfc);
  snprintf(json, sizeof json,
           "{\"name\": \"net\", \"opset\": 17, \"inputs\": [\"x\"], \"outputs\": [\"prob\"],\n"
           " \"tensors\": [\n"
           "  {\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, %d, %d, %d]},\n"
           "  {\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [%d, %d, %d, %d], \"data\": [%s]},\n"
           "  {\"name\": \"b\", \"dtype\": \"f32\", \"shape\": [%d], \"data\": [%s]},\n"
           "  {\"name\": \"wfc\", \"dtype\": \"f32\", \"shape\": [%d, %d], \"data\": [%s]}],\n"
           " \"nodes\": [\n"
           "  {\"name\": \"conv\", \"op\": \"Conv\", \"inputs\": [\"x\", \"w\", \"b\"], \"outputs\": [\"c\"], \"attrs\": {\"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"relu\", \"op\": \"Relu\", \"inputs\": [\"c\"], \"outputs\": [\"r\"]},\n"
           "  {\"name\": \"pool\", \"op\": \"MaxPool\", \"inputs\": [\"r\"], \"outputs\": [\"p\"], \"attrs\": {\"kernel_shape\": [2, 2], \"strides\": [2, 2]}},\n"
           "  {\"name\": \"flat\", \"op\": \"Flatten\", \"inputs\": [\"p\"], \"outputs\": [\"f\"]},\n"
           "  {\"name\": \"fc\", \"op\": \"Gemm\", \"inputs\": [\"f\", \"wfc\"], \"outputs\": [\"g\"], \"attrs\": {\"transB\": 1}},\n"
           "  {\"name\": \"sm\", \"op\": \"Softmax\", \"inputs\": [\"g\"], \"outputs\": [\"prob\"]}]}\n",
           C_IN, H, W, C_OUT, C_IN, K, K, lw, C_OUT, lb, FC, FLAT, lf);
  ovta_graph *g;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_graph_from_json(json, "float_net", &g, &err), err);
  return g;
}

/* The same network in plain C. */
static void float_ref(const float *x, float *prob) {
  float c[C_OUT][H][W], p[FLAT], g[FC];
  for (int o = 0; o < C_OUT; o++)
    for (int h = 0; h < H; h++)
      for (int w = 0; w < W; w++) {
        float s = bconv(o);
        for (int ci = 0; ci < C_IN; ci++)
          for (int kh = 0; kh < K; kh++)
            for (int kw = 0; kw < K; kw++) {
              int ih = h - 1 + kh, iw = w - 1 + kw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              s += x[(ci * H + ih) * W + iw] * wconv(((o * C_IN + ci) * K + kh) * K + kw);
            }
        c[o][h][w] = s > 0 ? s : 0;
      }
  for (int o = 0; o < C_OUT; o++)
    for (int h = 0; h < HP; h++)
      for (int w = 0; w < WP; w++) {
        float m = -INFINITY;
        for (int a = 0; a < 2; a++)
          for (int b = 0; b < 2; b++) m = fmaxf(m, c[o][2 * h + a][2 * w + b]);
        p[(o * HP + h) * WP + w] = m;
      }
  float mx = -INFINITY, sum = 0;
  for (int j = 0; j < FC; j++) {
    g[j] = 0;
    for (int k = 0; k < FLAT; k++) g[j] += p[k] * wfc(j * FLAT + k);
    mx = fmaxf(mx, g[j]);
  }
  for (int j = 0; j < FC; j++) sum += (prob[j] = expf(g[j] - mx));
  for (int j = 0; j < FC; j++) prob[j] /= sum;
}

static ovta_tensor *input_x(void) {
  ovta_tensor *t = ovta_tensor_new("x", OVTA_DT_F32, 4, (int64_t[]){1, C_IN, H, W});
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int i = 0; i < C_IN * H * W; i++) ((float *)t->data)[i] = xin(i);
  return t;
}

static void check_prob(ovta_exec *e, const float *want) {
  ovta_error err = {0};
  ovta_tensor *out;
  OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &out, &err), err);
  assert_string_equal(out->name, "prob");
  assert_int_equal(out->rank, 2);
  assert_int_equal(out->shape[1], FC);
  for (int j = 0; j < FC; j++) assert_float_equal(((float *)out->data)[j], want[j], 1e-5 * fabsf(want[j]) + 1e-7);
  ovta_tensor_free(out);
}

static void test_float_net(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g = float_net();
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  ovta_graph_free(g);
  assert_int_equal(ovta_exec_num_inputs(e), 1);
  assert_string_equal(ovta_exec_input_name(e, 0), "x");
  assert_string_equal(ovta_exec_output_name(e, 0), "prob");
  ovta_tensor *x = input_x();
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", x, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  float want[FC];
  float_ref((float *)x->data, want);
  check_prob(e, want);
  /* storage reuse: the arena is smaller than all values side by side */
  size_t arena, unshared;
  ovta_exec_memory(e, &arena, &unshared);
  assert_true(arena > 0);
  assert_true(arena < unshared);
  /* a second run on the same inputs gives the same result (inputs are not clobbered) */
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  check_prob(e, want);
  /* save, load into a fresh executor (object code, no recompilation), run */
  char dir[64];
  ovta_test_tmpdir(dir, sizeof dir, "exec");
  OVTA_ASSERT_OK(ovta_exec_save(e, dir, &err), err);
  ovta_exec_free(e);
  OVTA_ASSERT_OK(ovta_exec_load(dir, &e, &err), err);
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", x, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  check_prob(e, want);
  /* errors name the place */
  ovta_tensor *bad = ovta_tensor_new("x", OVTA_DT_F32, 2, (int64_t[]){3, 4});
  OVTA_ASSERT_OK(ovta_tensor_alloc(bad, &err), err);
  assert_int_equal(ovta_exec_set_input(e, "x", bad, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "input x: shape 3x4"));
  assert_int_equal(ovta_exec_set_input(e, "nosuch", x, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "nosuch"));
  ovta_tensor_free(bad);
  ovta_exec_free(e);
  /* a damaged plan is an error, not a crash */
  char path[256];
  snprintf(path, sizeof path, "%s/plan.json", dir);
  FILE *f = fopen(path, "w");
  fputs("{\"format\": \"ovta-exec-1\", \"tensors\": [{\"name\": 3}], \"steps\": [], \"inputs\": [], \"outputs\": []}", f);
  fclose(f);
  assert_int_equal(ovta_exec_load(dir, &e, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "plan.json"));
  ovta_test_rm_rf(dir);
  ovta_tensor_free(x);
}

/* Round half to even and saturate, by hand. */
static int q8(double v) {
  double r = floor(v), d = v - r;
  if (d > 0.5 || (d == 0.5 && fmod(r, 2) != 0)) r += 1;
  return r < -128 ? -128 : r > 127 ? 127 : (int)r;
}

static void test_int8_pipeline(void **state) {
  (void)state;
  /* y = Dequantize(QLinearMatMul(Quantize(a, 0.05), bq)), all int8 symmetric */
  static const char *json =
      "{\"name\": \"q\", \"opset\": 13, \"inputs\": [\"a\"], \"outputs\": [\"y\"],\n"
      " \"tensors\": [\n"
      "  {\"name\": \"a\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [2, 3]},\n"
      "  {\"name\": \"sa\", \"dtype\": \"f32\", \"shape\": [], \"data\": [0.05]},\n"
      "  {\"name\": \"za\", \"dtype\": \"i8\", \"shape\": [], \"data\": [0]},\n"
      "  {\"name\": \"bq\", \"dtype\": \"i8\", \"shape\": [3, 2], \"data\": [10, -20, 30, 40, -50, 60]},\n"
      "  {\"name\": \"sb\", \"dtype\": \"f32\", \"shape\": [], \"data\": [0.02]},\n"
      "  {\"name\": \"sy\", \"dtype\": \"f32\", \"shape\": [], \"data\": [0.01]}],\n"
      " \"nodes\": [\n"
      "  {\"name\": \"quant\", \"op\": \"QuantizeLinear\", \"inputs\": [\"a\", \"sa\", \"za\"], \"outputs\": [\"aq\"]},\n"
      "  {\"name\": \"mm\", \"op\": \"QLinearMatMul\", \"inputs\": [\"aq\", \"sa\", \"za\", \"bq\", \"sb\", \"za\", \"sy\", \"za\"], \"outputs\": [\"yq\"]},\n"
      "  {\"name\": \"deq\", \"op\": \"DequantizeLinear\", \"inputs\": [\"yq\", \"sy\", \"za\"], \"outputs\": [\"y\"]}]}\n";
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, "int8", &g, &err), err);
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  ovta_graph_free(g);
  const float a[6] = {0.125f, -0.075f, 7.0f, 0.025f, -0.3f, 0.49f}; /* halves, saturation */
  ovta_tensor *t = ovta_tensor_new("a", OVTA_DT_F32, 2, (int64_t[]){2, 3});
  OVTA_ASSERT_OK(ovta_tensor_set_data(t, a, sizeof a, &err), err);
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "a", t, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  ovta_tensor *y;
  OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &y, &err), err);
  const int b[6] = {10, -20, 30, 40, -50, 60};
  int aq[6];
  for (int i = 0; i < 6; i++) aq[i] = q8((double)a[i] / 0.05f);
  assert_int_equal(aq[0], 2);  /* 2.5 -> 2 */
  assert_int_equal(aq[1], -2); /* -1.5 -> -2 */
  assert_int_equal(aq[2], 127);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      int acc = 0;
      for (int k = 0; k < 3; k++) acc += aq[i * 3 + k] * b[k * 2 + j];
      int yq = q8((double)acc * ((double)0.05f * (double)0.02f / (double)0.01f));
      assert_float_equal(((float *)y->data)[i * 2 + j], (float)yq * 0.01f, 1e-7);
    }
  ovta_tensor_free(y);
  ovta_tensor_free(t);
  ovta_exec_free(e);
}

/* .npy: the header follows the format spec (written out here by hand) and reads back. */
static void test_npy(void **state) {
  (void)state;
  ovta_error err = {0};
  const float v[6] = {1, -2, 3.5f, 0, 1e-3f, 7};
  ovta_tensor *t = ovta_tensor_new("v", OVTA_DT_F32, 2, (int64_t[]){2, 3});
  OVTA_ASSERT_OK(ovta_tensor_set_data(t, v, sizeof v, &err), err);
  char path[64];
  ovta_test_tmpfile(path, sizeof path, "npy");
  OVTA_ASSERT_OK(ovta_npy_write(path, t, &err), err);
  size_t n;
  unsigned char *buf = (unsigned char *)ovta_test_read_file(path, &n);
  const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  assert_int_equal(n, 128 + 24);
  assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
  assert_int_equal(buf[8] | buf[9] << 8, 128 - 10);
  assert_memory_equal(buf + 10, dict, strlen(dict));
  assert_int_equal(buf[127], '\n');
  assert_int_equal(buf[126], ' ');
  assert_memory_equal(buf + 128, v, sizeof v);
  ovta_tensor *r;
  OVTA_ASSERT_OK(ovta_npy_read(path, "r", &r, &err), err);
  assert_int_equal(r->dtype, OVTA_DT_F32);
  assert_int_equal(r->rank, 2);
  assert_int_equal(r->shape[0], 2);
  assert_int_equal(r->shape[1], 3);
  assert_memory_equal(r->data, v, sizeof v);
  ovta_tensor_free(r);
  /* a 1-D int8 array: shape (5,) and '|i1' */
  ovta_tensor *q = ovta_tensor_new("q", OVTA_DT_I8, 1, (int64_t[]){5});
  OVTA_ASSERT_OK(ovta_tensor_alloc(q, &err), err);
  OVTA_ASSERT_OK(ovta_npy_write(path, q, &err), err);
  free(buf);
  buf = (unsigned char *)ovta_test_read_file(path, &n);
  assert_int_equal(n, 128 + 5); /* 10 + 57 + 1 header bytes pad to 128 */
  assert_memory_equal(buf + 10, "{'descr': '|i1', 'fortran_order': False, 'shape': (5,), }", 57);
  /* truncated data is an error naming the file */
  FILE *f = fopen(path, "wb");
  fwrite(buf, 1, 130, f);
  fclose(f);
  free(buf);
  assert_int_equal(ovta_npy_read(path, "q", &r, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, path));
  unlink(path);
  ovta_tensor_free(q);
  ovta_tensor_free(t);
}

/* The evaluation hook: one node on given tensors. */
static void test_eval_hook(void **state) {
  (void)state;
  static const char *json =
      "{\"name\": \"h\", \"opset\": 17, \"inputs\": [\"a\", \"b\"], \"outputs\": [\"c\"],\n"
      " \"tensors\": [{\"name\": \"a\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [2, 3]},\n"
      "  {\"name\": \"b\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [3]}],\n"
      " \"nodes\": [{\"name\": \"mul\", \"op\": \"Mul\", \"inputs\": [\"a\", \"b\"], \"outputs\": [\"c\"]},\n"
      "  {\"name\": \"odd\", \"op\": \"NotAnOperator\", \"inputs\": [\"c\"], \"outputs\": [\"d\"]}]}\n";
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, "hook", &g, &err), err);
  ovta_infer_node(g, g->nodes[0], &err);
  const float av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {-1, 0.5f, 2};
  ovta_tensor *a = ovta_tensor_new("a", OVTA_DT_F32, 2, (int64_t[]){2, 3}), *b = ovta_tensor_new("b", OVTA_DT_F32, 1, (int64_t[]){3});
  ovta_tensor *c = ovta_tensor_new("c", OVTA_DT_F32, 2, (int64_t[]){2, 3});
  OVTA_ASSERT_OK(ovta_tensor_set_data(a, av, sizeof av, &err), err);
  OVTA_ASSERT_OK(ovta_tensor_set_data(b, bv, sizeof bv, &err), err);
  ovta_tensor *ins[2] = {a, b};
  OVTA_ASSERT_OK(ovta_exec_eval_node(NULL, g, g->nodes[0], ins, &c, &err), err);
  for (int i = 0; i < 6; i++) assert_float_equal(((float *)c->data)[i], av[i] * bv[i % 3], 0);
  /* an operator the CPU path does not have */
  ovta_tensor *d = ovta_tensor_new("d", OVTA_DT_F32, 2, (int64_t[]){2, 3});
  assert_int_equal(ovta_exec_eval_node(NULL, g, g->nodes[1], &c, &d, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "odd"));
  assert_non_null(strstr(err.msg, "NotAnOperator"));
  ovta_tensor_free(a);
  ovta_tensor_free(b);
  ovta_tensor_free(c);
  ovta_tensor_free(d);
  ovta_graph_free(g);
}

/* The fused operators of graph.h (ovta.Conv/Dense/QConv/QDense/Eltwise) against the graph
 * layer's independent reference evaluator (ovta_eval_node_ref, plain C). */
/* got against the evaluator's want: same dtype and size, f32 within 1e-5 relative + abs_tol,
 * integers equal; returns how many of want's elements are nonzero (so a case can show it is not
 * trivially all zeros). */
static int64_t assert_matches(const ovta_tensor *got, const ovta_tensor *want, double abs_tol) {
  int64_t n = ovta_tensor_numel(want), nonzero = 0;
  assert_int_equal(got->dtype, want->dtype);
  assert_int_equal(ovta_tensor_numel(got), n);
  for (int64_t j = 0; j < n; j++) {
    double w = ovta_tensor_get_f(want, j), v = ovta_tensor_get_f(got, j);
    nonzero += w != 0;
    if (got->dtype == OVTA_DT_F32) assert_float_equal(v, w, 1e-5 * fabs(w) + abs_tol);
    else assert_int_equal((int64_t)v, (int64_t)w);
  }
  return nonzero;
}

static void test_fused_ops(void **state) {
  (void)state;
  static char json[16384];
  char wf[2048], wq[1024], wd[1024], bq[256];
  size_t k = 0;
  for (int i = 0; i < 4 * 2 * 3 * 3; i++) k += (size_t)snprintf(wf + k, sizeof wf - k, "%s%.6g", i ? "," : "", sinf((float)i) * 0.5f);
  k = 0;
  for (int i = 0; i < 4 * 2 * 3 * 3; i++) k += (size_t)snprintf(wq + k, sizeof wq - k, "%s%d", i ? "," : "", (i * 37) % 255 - 127);
  k = 0;
  for (int i = 0; i < 3 * 8; i++) k += (size_t)snprintf(wd + k, sizeof wd - k, "%s%d", i ? "," : "", (i * 53) % 201 - 100);
  k = 0;
  for (int i = 0; i < 4; i++) k += (size_t)snprintf(bq + k, sizeof bq - k, "%s%d", i ? "," : "", i * 300 - 500);
  snprintf(json, sizeof json,
           "{\"name\": \"fused\", \"opset\": 17, \"inputs\": [\"xf\", \"xq\", \"df\", \"dq\", \"e\"],\n"
           " \"outputs\": [\"yc\", \"yq\", \"yd\", \"ydq\", \"ye\"],\n"
           " \"tensors\": [\n"
           "  {\"name\": \"xf\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 2, 5, 6]},\n"
           "  {\"name\": \"xq\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [1, 2, 5, 6]},\n"
           "  {\"name\": \"df\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [2, 8]},\n"
           "  {\"name\": \"dq\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [2, 8]},\n"
           "  {\"name\": \"e\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [2, 1]},\n"
           "  {\"name\": \"wf\", \"dtype\": \"f32\", \"shape\": [4, 2, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wq\", \"dtype\": \"i8\", \"shape\": [4, 2, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"bq\", \"dtype\": \"i32\", \"shape\": [4], \"data\": [%s]},\n"
           "  {\"name\": \"wd\", \"dtype\": \"f32\", \"shape\": [3, 8], \"data\": [%s]},\n"
           "  {\"name\": \"wdq\", \"dtype\": \"i8\", \"shape\": [3, 8], \"data\": [%s]}],\n"
           " \"nodes\": [\n"
           "  {\"name\": \"c\", \"op\": \"ovta.Conv\", \"inputs\": [\"xf\", \"wf\"], \"outputs\": [\"yc\"], \"attrs\": {\"pads\": [1, 1, 1, 1], \"strides\": [2, 1], \"act\": \"leakyrelu\", \"act_alpha\": 0.1}},\n"
           "  {\"name\": \"q\", \"op\": \"ovta.QConv\", \"inputs\": [\"xq\", \"wq\", \"bq\"], \"outputs\": [\"yq\"], \"attrs\": {\"pads\": [1, 1, 1, 1], \"shift\": 7, \"clip_min\": 0, \"clip_max\": 127}},\n"
           "  {\"name\": \"d\", \"op\": \"ovta.Dense\", \"inputs\": [\"df\", \"wd\"], \"outputs\": [\"yd\"], \"attrs\": {\"act\": \"clip\", \"act_min\": -50, \"act_max\": 60}},\n"
           "  {\"name\": \"dq\", \"op\": \"ovta.QDense\", \"inputs\": [\"dq\", \"wdq\"], \"outputs\": [\"ydq\"], \"attrs\": {\"shift\": 5, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"el\", \"op\": \"ovta.Eltwise\", \"inputs\": [\"df\", \"e\", \"df\"], \"outputs\": [\"ye\"], \"attrs\": {\"ops\": \"Add,Tanh,Mul,HardSwish\"}}]}\n",
           wf, wq, bq, wd, wd);
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, "fused", &g, &err), err);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  ovta_tensor *in[5];
  for (int i = 0; i < 5; i++) {
    ovta_tensor *gi = g->inputs[i];
    in[i] = ovta_tensor_new(gi->name, gi->dtype, gi->rank, gi->shape);
    OVTA_ASSERT_OK(ovta_tensor_alloc(in[i], &err), err);
    for (int64_t j = 0; j < ovta_tensor_numel(gi); j++)
      ovta_tensor_put_f(in[i], j, gi->dtype == OVTA_DT_F32 ? cos((double)(j + i)) * 3.0 : (double)((j * 29 + i) % 255 - 127));
  }
  ovta_tensor *want[5] = {0};
  OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, in, NULL, NULL, want, &err), err);
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  for (int i = 0; i < 5; i++) OVTA_ASSERT_OK(ovta_exec_set_input(e, in[i]->name, in[i], &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  for (int o = 0; o < 5; o++) {
    ovta_tensor *got;
    OVTA_ASSERT_OK(ovta_exec_get_output(e, o, &got, &err), err);
    assert_true(assert_matches(got, want[o], 1e-6) > 0); /* the case is not trivially all zeros */
    ovta_tensor_free(got);
    ovta_tensor_free(want[o]);
  }
  for (int i = 0; i < 5; i++) ovta_tensor_free(in[i]);
  ovta_exec_free(e);
  ovta_graph_free(g);
}

/* Elementwise operators the shipped ONNX node tests do not cover (Mish; Sign, Shrink, Pow and
 * variadic Max on integers; Softsign, BitShift RIGHT, NaN through float Max/Min), against C
 * references written here. */
static void test_untested_elementwise(void **state) {
  (void)state;
  const char *json =
      "{\"name\": \"elt\", \"opset\": 17, \"inputs\": [\"x\", \"i\", \"u\"],\n"
      " \"outputs\": [\"mish\", \"sign\", \"shr\", \"pw\", \"mx\", \"ss\", \"bs\", \"fmx\", \"fmn\"],\n"
      " \"tensors\": [\n"
      "  {\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [2, 5]},\n"
      "  {\"name\": \"i\", \"kind\": \"input\", \"dtype\": \"i32\", \"shape\": [2, 5]},\n"
      "  {\"name\": \"u\", \"kind\": \"input\", \"dtype\": \"u16\", \"shape\": [2, 5]},\n"
      "  {\"name\": \"two\", \"dtype\": \"i32\", \"shape\": [1], \"data\": [2]},\n"
      "  {\"name\": \"col\", \"dtype\": \"i32\", \"shape\": [2, 1], \"data\": [-1, 3]},\n"
      "  {\"name\": \"sh\", \"dtype\": \"u16\", \"shape\": [5], \"data\": [0, 1, 3, 15, 16]},\n"
      "  {\"name\": \"half\", \"dtype\": \"f32\", \"shape\": [5], \"data\": [0.5, 0.5, 0.5, 0.5, 0.5]}],\n"
      " \"nodes\": [\n"
      "  {\"name\": \"m\", \"op\": \"Mish\", \"inputs\": [\"x\"], \"outputs\": [\"mish\"]},\n"
      "  {\"name\": \"s\", \"op\": \"Sign\", \"inputs\": [\"i\"], \"outputs\": [\"sign\"]},\n"
      "  {\"name\": \"k\", \"op\": \"Shrink\", \"inputs\": [\"i\"], \"outputs\": [\"shr\"], \"attrs\": {\"lambd\": 2.0, \"bias\": 1.0}},\n"
      "  {\"name\": \"p\", \"op\": \"Pow\", \"inputs\": [\"i\", \"two\"], \"outputs\": [\"pw\"]},\n"
      "  {\"name\": \"x3\", \"op\": \"Max\", \"inputs\": [\"i\", \"col\", \"two\"], \"outputs\": [\"mx\"]},\n"
      "  {\"name\": \"sf\", \"op\": \"Softsign\", \"inputs\": [\"x\"], \"outputs\": [\"ss\"]},\n"
      "  {\"name\": \"b\", \"op\": \"BitShift\", \"inputs\": [\"u\", \"sh\"], \"outputs\": [\"bs\"], \"attrs\": {\"direction\": \"RIGHT\"}},\n"
      "  {\"name\": \"fx\", \"op\": \"Max\", \"inputs\": [\"half\", \"x\"], \"outputs\": [\"fmx\"]},\n"
      "  {\"name\": \"fn\", \"op\": \"Min\", \"inputs\": [\"x\", \"half\"], \"outputs\": [\"fmn\"]}]}\n";
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, "elt", &g, &err), err);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  float xv[10];
  int32_t iv[10];
  uint16_t uv[10];
  for (int k = 0; k < 10; k++) xv[k] = (float)(k - 5) * 0.9f, iv[k] = k * 3 - 14, uv[k] = (uint16_t)(40000 + k * 911);
  xv[7] = NAN; /* float Max/Min propagate it, whichever side it is on */
  ovta_tensor *in[3] = {ovta_tensor_new("x", OVTA_DT_F32, 2, (int64_t[]){2, 5}),
                        ovta_tensor_new("i", OVTA_DT_I32, 2, (int64_t[]){2, 5}),
                        ovta_tensor_new("u", OVTA_DT_U16, 2, (int64_t[]){2, 5})};
  OVTA_ASSERT_OK(ovta_tensor_set_data(in[0], xv, sizeof xv, &err), err);
  OVTA_ASSERT_OK(ovta_tensor_set_data(in[1], iv, sizeof iv, &err), err);
  OVTA_ASSERT_OK(ovta_tensor_set_data(in[2], uv, sizeof uv, &err), err);
  for (int k = 0; k < 3; k++) OVTA_ASSERT_OK(ovta_exec_set_input(e, in[k]->name, in[k], &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  ovta_tensor *o[9];
  for (int k = 0; k < 9; k++) OVTA_ASSERT_OK(ovta_exec_get_output(e, k, &o[k], &err), err);
  static const int sh[5] = {0, 1, 3, 15, 16};
  for (int k = 0; k < 10; k++) {
    double x = xv[k];
    int i = iv[k], col = k < 5 ? -1 : 3;
    if (k == 7) {
      assert_true(isnan(ovta_tensor_get_f(o[0], k)) && isnan(ovta_tensor_get_f(o[7], k)) && isnan(ovta_tensor_get_f(o[8], k)));
    } else {
      assert_float_equal(ovta_tensor_get_f(o[0], k), x * tanh(log1p(exp(x))), 1e-5 * fabs(x) + 1e-6);
      assert_float_equal(ovta_tensor_get_f(o[5], k), x / (1 + fabs(x)), 1e-6);
      assert_float_equal(ovta_tensor_get_f(o[7], k), fmax(x, 0.5), 0);
      assert_float_equal(ovta_tensor_get_f(o[8], k), fmin(x, 0.5), 0);
    }
    assert_int_equal(ovta_tensor_get_i(o[1], k), i > 0 ? 1 : i < 0 ? -1 : 0);
    assert_int_equal(ovta_tensor_get_i(o[2], k), i < -2 ? i + 1 : i > 2 ? i - 1 : 0);
    assert_int_equal(ovta_tensor_get_i(o[3], k), i * i);
    int m = i > col ? i : col;
    assert_int_equal(ovta_tensor_get_i(o[4], k), m > 2 ? m : 2);
    assert_int_equal(ovta_tensor_get_i(o[6], k), sh[k % 5] >= 16 ? 0 : uv[k] >> sh[k % 5]);
  }
  for (int k = 0; k < 9; k++) ovta_tensor_free(o[k]);
  for (int k = 0; k < 3; k++) ovta_tensor_free(in[k]);
  ovta_exec_free(e);
  ovta_graph_free(g);
}

/* The graph of json, inferred, and its ni inputs (float: sin(j * 0.37 + i) * 2; integers: (j * 29 +
 * i) % 255 - 127) in in[]. */
static ovta_graph *graph_inputs(const char *json, const char *name, ovta_tensor **in, int ni) {
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, name, &g, &err), err);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  assert_int_equal(g->n_inputs, ni);
  for (int i = 0; i < ni; i++) {
    ovta_tensor *gi = g->inputs[i];
    in[i] = ovta_tensor_new(gi->name, gi->dtype, gi->rank, gi->shape);
    OVTA_ASSERT_OK(ovta_tensor_alloc(in[i], &err), err);
    for (int64_t j = 0; j < ovta_tensor_numel(gi); j++)
      ovta_tensor_put_f(in[i], j, gi->dtype == OVTA_DT_F32 ? sin((double)j * 0.37 + i) * 2.0 : (double)((j * 29 + i) % 255 - 127));
  }
  return g;
}

/* Runs e on in[] with 1..threads threads: the outputs equal the evaluator's want[] (floats within
 * tol; integers exactly; over a quarter nonzero and, 8-bit with clipped set, over half not at
 * +-127), the same bytes for every thread count. Frees want[] and in[]. */
static void check_threads(ovta_exec *e, ovta_tensor **in, int ni, ovta_tensor **want, int no, int threads, double tol, bool clipped) {
  ovta_error err = {0};
  ovta_tensor *first[32] = {0};
  assert_true(no <= 32);
  for (int i = 0; i < ni; i++) OVTA_ASSERT_OK(ovta_exec_set_input(e, in[i]->name, in[i], &err), err);
  for (int t = 1; t <= threads; t++) {
    ovta_set_threads(t);
    OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
    for (int o = 0; o < no; o++) {
      ovta_tensor *got;
      OVTA_ASSERT_OK(ovta_exec_get_output(e, o, &got, &err), err);
      int64_t n = ovta_tensor_numel(want[o]);
      if (t == 1) {
        assert_true(assert_matches(got, want[o], tol) > n / 4); /* not trivially zeros */
        int64_t inside = 0;
        for (int64_t j = 0; j < n && clipped && got->dtype == OVTA_DT_I8; j++) inside += abs(((int8_t *)got->data)[j]) < 127;
        assert_true(!clipped || got->dtype != OVTA_DT_I8 || inside > n / 2);
        first[o] = got;
      } else {
        assert_int_equal(got->dtype, first[o]->dtype);
        assert_int_equal(ovta_tensor_numel(got), n);
        assert_memory_equal(got->data, first[o]->data, (size_t)n * ovta_dtype_size(got->dtype));
        ovta_tensor_free(got);
      }
    }
  }
  ovta_set_threads(0);
  for (int o = 0; o < no; o++) ovta_tensor_free(want[o]), ovta_tensor_free(first[o]);
  for (int i = 0; i < ni; i++) ovta_tensor_free(in[i]);
}

/* Operators run in parallel (isa/parallel.c) when large: an elementwise nest split over its
 * channel loop (Add with broadcasting, ovta.Eltwise), one split into blocks of its only loop
 * (Relu of a long vector), maps of 8 rows or more split in row halves (the Adds of 64x32x32
 * and of 2x24x27x27, odd rows, broadcast along the last dim: the let outer indices), MaxPool
 * and ovta.QMaxPool by rows, GlobalAveragePool by channel, pointwise convs split at their row
 * halves rounded down to whole tiles (20x20: 192 of 400; 14x14: 96 of 196, a tail tile in the
 * second half; int8 26x26: 320 of 676, the second half longer), depthwise convs in row halves
 * (row form 9x36, odd rows), the flat ones split at the pointwise convs' position when it is on a
 * 64-byte line (20x20: 192, row 9 cut at column 12; stride 2 56x56 -> 28x28, phase planes: 384,
 * row 13 cut at column 20; int8 20x20 planes are not whole lines: row halves), and
 * convs whose few output-channel blocks are split into groups of spatial tiles (a float 3x3 conv
 * of 8 channels, a pointwise one with a tail tile, an int8 ovta.QConv of 1152 taps: two exact f32
 * chunks), and a depthwise conv of 20-wide rows (its flat form, channels in parallel). Outputs
 * with 1, 2 and 3 threads: byte-identical, and equal to the graph evaluator's
 * (compiler/graph/eval.c; integers exactly, floats within rounding). */
static void test_parallel_ops(void **state) {
  (void)state;
  size_t cap = 1 << 20, k = 0;
  char *json = malloc(cap), *wc = malloc(65536), *wp = malloc(65536), *wq = malloc(262144), *wd = malloc(65536);
  char *wq2 = malloc(131072), *wpq = malloc(65536), *wdq = malloc(65536), *wd2 = malloc(65536), *wp2 = malloc(65536);
  assert_non_null(json), assert_non_null(wc), assert_non_null(wp), assert_non_null(wq), assert_non_null(wd);
  assert_non_null(wq2), assert_non_null(wpq), assert_non_null(wdq), assert_non_null(wd2), assert_non_null(wp2);
  for (int i = 0; i < 8 * 16 * 9; i++) k += (size_t)snprintf(wc + k, 65536 - k, "%s%.6g", i ? "," : "", sinf((float)i * 0.7f) * 0.2f);
  k = 0;
  for (int i = 0; i < 16 * 24; i++) k += (size_t)snprintf(wp + k, 65536 - k, "%s%.6g", i ? "," : "", cosf((float)i * 0.3f) * 0.3f);
  k = 0;
  for (int i = 0; i < 32 * 9; i++) k += (size_t)snprintf(wd + k, 65536 - k, "%s%.6g", i ? "," : "", cosf((float)i * 1.3f) * 0.4f);
  k = 0;
  for (int i = 0; i < 16 * 128 * 9; i++) k += (size_t)snprintf(wq + k, 262144 - k, "%s%d", i ? "," : "", (i * 37) % 255 - 127);
  k = 0;
  for (int i = 0; i < 8 * 128 * 9; i++) k += (size_t)snprintf(wq2 + k, 131072 - k, "%s%d", i ? "," : "", (i * 53) % 251 - 125);
  k = 0;
  for (int i = 0; i < 24 * 64; i++) k += (size_t)snprintf(wpq + k, 65536 - k, "%s%d", i ? "," : "", (i * 41) % 255 - 127);
  k = 0;
  for (int i = 0; i < 32 * 9; i++) k += (size_t)snprintf(wdq + k, 65536 - k, "%s%d", i ? "," : "", (i * 17) % 255 - 127);
  k = 0; /* a depthwise conv with rows of 16 outputs, stride 2: the row form, two row groups */
  for (int i = 0; i < 16 * 9; i++) k += (size_t)snprintf(wd2 + k, 65536 - k, "%s%.6g", i ? "," : "", sinf((float)i * 0.9f) * 0.5f);
  k = 0; /* a pointwise conv on 14x14: row halves of 98 positions, split at 96 (whole tiles) */
  for (int i = 0; i < 8 * 16; i++) k += (size_t)snprintf(wp2 + k, 65536 - k, "%s%.6g", i ? "," : "", sinf((float)i * 0.45f) * 0.4f);
  snprintf(json, cap,
           "{\"name\": \"par\", \"opset\": 17, \"inputs\": [\"a\", \"b\", \"v\", \"xc\", \"xp\", \"xq\", \"xd\", \"xpq\", \"xdq\", \"xd2\", \"xs\", \"bs\", \"xp2\", \"xd3\", \"xd4\"],\n"
           " \"outputs\": [\"add\", \"elt\", \"relu\", \"mp\", \"qmp\", \"gap\", \"yc\", \"yp\", \"yq\", \"yd\", \"ypq\", \"ydq\", \"yq2\", \"yi\", \"yd2\", \"adds\", \"yp2\", \"yd3\", \"yd4\"],\n"
           " \"tensors\": [\n"
           "  {\"name\": \"a\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 64, 32, 32]},\n"
           "  {\"name\": \"b\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [64, 1, 1]},\n"
           "  {\"name\": \"v\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [70001]},\n"
           "  {\"name\": \"xc\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 16, 30, 30]},\n"
           "  {\"name\": \"xp\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 24, 20, 20]},\n"
           "  {\"name\": \"xq\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [1, 128, 10, 10]},\n"
           "  {\"name\": \"xd\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 32, 20, 20]},\n"
           "  {\"name\": \"xpq\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [1, 64, 26, 26]},\n"
           "  {\"name\": \"xdq\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [1, 32, 20, 20]},\n"
           "  {\"name\": \"wq2\", \"dtype\": \"i8\", \"shape\": [8, 128, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wpq\", \"dtype\": \"i8\", \"shape\": [24, 64, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wdq\", \"dtype\": \"i8\", \"shape\": [32, 1, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"zx\", \"dtype\": \"i8\", \"shape\": [], \"data\": [3]},\n"
           "  {\"name\": \"xd2\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 16, 31, 31]},\n"
           "  {\"name\": \"xs\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [2, 24, 27, 27]},\n"
           "  {\"name\": \"bs\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [24, 27, 1]},\n"
           "  {\"name\": \"xp2\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 16, 14, 14]},\n"
           "  {\"name\": \"wp2\", \"dtype\": \"f32\", \"shape\": [8, 16, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"xd3\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 16, 9, 36]},\n"
           "  {\"name\": \"xd4\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 16, 56, 56]},\n"
           "  {\"name\": \"wd2\", \"dtype\": \"f32\", \"shape\": [16, 1, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wd\", \"dtype\": \"f32\", \"shape\": [32, 1, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wc\", \"dtype\": \"f32\", \"shape\": [8, 16, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wp\", \"dtype\": \"f32\", \"shape\": [16, 24, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wq\", \"dtype\": \"i8\", \"shape\": [16, 128, 3, 3], \"data\": [%s]}],\n"
           " \"nodes\": [\n"
           "  {\"name\": \"n0\", \"op\": \"Add\", \"inputs\": [\"a\", \"b\"], \"outputs\": [\"add\"]},\n"
           "  {\"name\": \"n1\", \"op\": \"ovta.Eltwise\", \"inputs\": [\"a\", \"add\"], \"outputs\": [\"elt\"], \"attrs\": {\"ops\": \"Mul,Tanh\"}},\n"
           "  {\"name\": \"n2\", \"op\": \"Relu\", \"inputs\": [\"v\"], \"outputs\": [\"relu\"]},\n"
           "  {\"name\": \"n3\", \"op\": \"MaxPool\", \"inputs\": [\"a\"], \"outputs\": [\"mp\"], \"attrs\": {\"kernel_shape\": [3, 3], \"strides\": [2, 2], \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n4\", \"op\": \"ovta.QMaxPool\", \"inputs\": [\"xq\"], \"outputs\": [\"qmp\"], \"attrs\": {\"kernel_shape\": [3, 3], \"strides\": [1, 1], \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n5\", \"op\": \"GlobalAveragePool\", \"inputs\": [\"a\"], \"outputs\": [\"gap\"]},\n"
           "  {\"name\": \"n6\", \"op\": \"Conv\", \"inputs\": [\"xc\", \"wc\"], \"outputs\": [\"yc\"], \"attrs\": {\"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n7\", \"op\": \"Conv\", \"inputs\": [\"xp\", \"wp\"], \"outputs\": [\"yp\"]},\n"
           "  {\"name\": \"n8\", \"op\": \"ovta.QConv\", \"inputs\": [\"xq\", \"wq\"], \"outputs\": [\"yq\"], \"attrs\": {\"pads\": [1, 1, 1, 1], \"shift\": 12, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"n9\", \"op\": \"Conv\", \"inputs\": [\"xd\", \"wd\"], \"outputs\": [\"yd\"], \"attrs\": {\"group\": 32, \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n10\", \"op\": \"ovta.QConv\", \"inputs\": [\"xpq\", \"wpq\"], \"outputs\": [\"ypq\"], \"attrs\": {\"shift\": 13, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"n11\", \"op\": \"ovta.QConv\", \"inputs\": [\"xdq\", \"wdq\"], \"outputs\": [\"ydq\"], \"attrs\": {\"group\": 32, \"pads\": [1, 1, 1, 1], \"shift\": 9, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"n12\", \"op\": \"ovta.QConv\", \"inputs\": [\"xq\", \"wq2\"], \"outputs\": [\"yq2\"], \"attrs\": {\"pads\": [1, 1, 1, 1], \"shift\": 12, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"n13\", \"op\": \"ConvInteger\", \"inputs\": [\"xq\", \"wq2\", \"zx\"], \"outputs\": [\"yi\"], \"attrs\": {\"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n14\", \"op\": \"Conv\", \"inputs\": [\"xd2\", \"wd2\"], \"outputs\": [\"yd2\"], \"attrs\": {\"group\": 16, \"strides\": [2, 2], \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n15\", \"op\": \"Add\", \"inputs\": [\"xs\", \"bs\"], \"outputs\": [\"adds\"]},\n"
           "  {\"name\": \"n16\", \"op\": \"Conv\", \"inputs\": [\"xp2\", \"wp2\"], \"outputs\": [\"yp2\"]},\n"
           "  {\"name\": \"n17\", \"op\": \"Conv\", \"inputs\": [\"xd3\", \"wd2\"], \"outputs\": [\"yd3\"], \"attrs\": {\"group\": 16, \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"n18\", \"op\": \"Conv\", \"inputs\": [\"xd4\", \"wd2\"], \"outputs\": [\"yd4\"], \"attrs\": {\"group\": 16, \"strides\": [2, 2], \"pads\": [1, 1, 1, 1]}}]}\n",
           wq2, wpq, wdq, wp2, wd2, wd, wc, wp, wq);
  free(wc), free(wp), free(wq), free(wd), free(wq2), free(wpq), free(wdq), free(wd2), free(wp2);
  ovta_error err = {0};
  enum { NI = 15, NO = 19 };
  ovta_tensor *in[NI], *want[NO] = {0};
  ovta_graph *g = graph_inputs(json, "par", in, NI);
  free(json);
  OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, in, NULL, NULL, want, &err), err);
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  /* the 8-bit weights of the tiled (wq) and pointwise (wpq) QConvs are held as f32 (converted
   * once); the depthwise one's (wdq) and those also read by ConvInteger with a zero point (wq2,
   * generic schedule) stay int8: the outputs below are the evaluator's either way */
  const ovta_plan *pl = ovta_exec_plan(e);
  const char *wn[4] = {"wq", "wpq", "wdq", "wq2"};
  ovta_dtype wt[4] = {OVTA_DT_F32, OVTA_DT_F32, OVTA_DT_I8, OVTA_DT_I8};
  for (int w = 0; w < 4; w++) {
    int found = 0;
    for (int x = 0; x < pl->nt; x++)
      if (!strcmp(pl->t[x].name, wn[w])) {
        found++;
        assert_int_equal(pl->t[x].dtype, wt[w]);
        assert_int_equal(pl->t[x].where, OVTA_PLAN_PARAMS);
        size_t numel = 1;
        for (int d = 0; d < pl->t[x].rank; d++) numel *= (size_t)pl->t[x].shape[d];
        assert_int_equal(pl->t[x].nbytes, numel * ovta_dtype_size(wt[w]));
      }
    assert_int_equal(found, 1);
  }
  check_threads(e, in, NI, want, NO, 3, 1e-5, false);
  ovta_exec_free(e);
  ovta_graph_free(g);
}

/* JSON list of n values sin(i * a) * m. */
static char *wlist(int n, double a, double m) {
  size_t cap = (size_t)n * 16 + 16, k = 0;
  char *b = malloc(cap);
  assert_non_null(b);
  for (int i = 0; i < n; i++) k += (size_t)snprintf(b + k, cap - k, "%s%.6g", i ? "," : "", sin((double)i * a) * m);
  return b;
}

/* JSON list of n integers ((i * a) % 255) - 127 (8-bit weights). */
static char *ilist(int n, int a) {
  size_t cap = (size_t)n * 6 + 16, k = 0;
  char *b = malloc(cap);
  assert_non_null(b);
  for (int i = 0; i < n; i++) k += (size_t)snprintf(b + k, cap - k, "%s%d", i ? "," : "", (i * a) % 255 - 127);
  return b;
}

/* Pointwise convs whose tail tile is no multiple of 4 wide (7x7 maps: 32 + 17 positions; 5x5:
 * 25): the blocks copy their weights transposed (conv_tiled.c, wt_fill) when 8-bit, or float
 * with C <= WT_C_MAX (320), and read them in place otherwise (a float conv of C = 328). Also
 * per-channel shifts (ovta.QConv `shifts`): all in 1..31 (a pointwise conv: the lowering's
 * shorter rounding right shift) and with 0 and negative ones (a depthwise conv). Each gives
 * the evaluator's values (floats within rounding, integers exactly) and the same bytes with 1
 * and 2 threads. */
static void test_pointwise_tails(void **state) {
  (void)state;
  char *wa = wlist(40 * 24, 0.37, 0.3), *wb = wlist(16 * 328, 0.11, 0.05), *wc = ilist(40 * 24, 41), *wd = ilist(16 * 328, 29);
  char *we = wlist(12 * 8, 0.71, 0.4), *wg = ilist(24 * 9, 37);
  char sf[256] = "", sg[256] = "";
  for (int i = 0, kf = 0, kg = 0; i < 40; i++) {
    kf += snprintf(sf + kf, sizeof sf - (size_t)kf, "%s%d", i ? "," : "", 5 + i % 7);               /* 5..11 */
    if (i < 24) kg += snprintf(sg + kg, sizeof sg - (size_t)kg, "%s%d", i ? "," : "", i % 4 ? 6 + i % 5 : -(i % 8) / 4); /* 0, -1, 6..10 */
  }
  size_t cap = 1 << 17;
  char *json = malloc(cap);
  assert_non_null(json);
  snprintf(json, cap,
           "{\"name\": \"pwt\", \"opset\": 17, \"inputs\": [\"xa\", \"xb\", \"xc\", \"xd\", \"xe\"],\n"
           " \"outputs\": [\"ya\", \"yb\", \"yc\", \"yd\", \"ye\", \"yf\", \"yg\"],\n"
           " \"tensors\": [\n"
           "  {\"name\": \"xa\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 24, 7, 7]},\n"
           "  {\"name\": \"xb\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 328, 7, 7]},\n"
           "  {\"name\": \"xc\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [1, 24, 7, 7]},\n"
           "  {\"name\": \"xd\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [1, 328, 7, 7]},\n"
           "  {\"name\": \"xe\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 8, 5, 5]},\n"
           "  {\"name\": \"wa\", \"dtype\": \"f32\", \"shape\": [40, 24, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wb\", \"dtype\": \"f32\", \"shape\": [16, 328, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wc\", \"dtype\": \"i8\", \"shape\": [40, 24, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wd\", \"dtype\": \"i8\", \"shape\": [16, 328, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"we\", \"dtype\": \"f32\", \"shape\": [12, 8, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wg\", \"dtype\": \"i8\", \"shape\": [24, 1, 3, 3], \"data\": [%s]}],\n"
           " \"nodes\": [\n"
           "  {\"name\": \"a\", \"op\": \"Conv\", \"inputs\": [\"xa\", \"wa\"], \"outputs\": [\"ya\"]},\n"
           "  {\"name\": \"b\", \"op\": \"Conv\", \"inputs\": [\"xb\", \"wb\"], \"outputs\": [\"yb\"]},\n"
           "  {\"name\": \"c\", \"op\": \"ovta.QConv\", \"inputs\": [\"xc\", \"wc\"], \"outputs\": [\"yc\"], \"attrs\": {\"shift\": 9, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"d\", \"op\": \"ovta.QConv\", \"inputs\": [\"xd\", \"wd\"], \"outputs\": [\"yd\"], \"attrs\": {\"shift\": 13, \"clip_min\": -128, \"clip_max\": 127}},\n"
           "  {\"name\": \"e\", \"op\": \"Conv\", \"inputs\": [\"xe\", \"we\"], \"outputs\": [\"ye\"]},\n"
           "  {\"name\": \"f\", \"op\": \"ovta.QConv\", \"inputs\": [\"xc\", \"wc\"], \"outputs\": [\"yf\"], \"attrs\": {\"shifts\": [%s], \"clip_min\": -127, \"clip_max\": 127}},\n"
           "  {\"name\": \"g\", \"op\": \"ovta.QConv\", \"inputs\": [\"xc\", \"wg\"], \"outputs\": [\"yg\"], \"attrs\": {\"group\": 24, \"pads\": [1, 1, 1, 1], \"shifts\": [%s], \"clip_min\": 0, \"clip_max\": 127}}]}\n",
           wa, wb, wc, wd, we, wg, sf, sg);
  free(wa), free(wb), free(wc), free(wd), free(we), free(wg);
  ovta_error err = {0};
  enum { NI = 5, NO = 7 };
  ovta_tensor *in[NI], *want[NO] = {0};
  ovta_graph *g = graph_inputs(json, "pwt", in, NI);
  free(json);
  OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, in, NULL, NULL, want, &err), err);
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  check_threads(e, in, NI, want, NO, 2, 1e-4, true);
  ovta_exec_free(e);
  ovta_graph_free(g);
}

/* Half-major maps (compiler/cpu/cpu.h): MobileNetV2-like chains whose inner maps the executor
 * stores per part (pointwise -> depthwise -> pointwise -> Add, a strided depthwise conv whose
 * split cuts an input row (28x28 at 384) or falls on a row boundary (56x56), a 14x14 depthwise
 * conv split at 96, an Add of a half-major and a plain map) give the evaluator's values, the same
 * bytes for 1-3 threads, and the same bytes as with every map plain (OVTA_HALF_MAJOR=0). The
 * maps the stride-1 depthwise convs read (28x28 flat split at 384, also read by an Add and a
 * pointwise conv; 14x14 at 96; 56x56 in row halves) have the halo rows with OVTA_HALO=1 (more
 * bytes in the plan), the others not; the same bytes without them (the default). */
static void test_half_major(void **state) {
  (void)state;
  char *wa = wlist(24 * 8, 0.31, 0.4), *wb = wlist(24 * 9, 0.77, 0.5), *wc = wlist(8 * 24, 0.53, 0.3), *wd = wlist(16 * 24, 0.29, 0.3);
  char *we = wlist(16 * 9, 0.91, 0.5), *wf = wlist(8 * 16, 0.43, 0.4), *wg = wlist(16 * 8, 0.67, 0.4);
  size_t cap = 1 << 16;
  char *json = malloc(cap);
  assert_non_null(json);
  snprintf(json, cap,
           "{\"name\": \"hm\", \"opset\": 17, \"inputs\": [\"x\", \"x56\"], \"outputs\": [\"y\", \"s2\", \"y56\", \"s3\", \"y8\", \"d5\"],\n"
           " \"tensors\": [\n"
           "  {\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 8, 28, 28]},\n"
           "  {\"name\": \"x56\", \"kind\": \"input\", \"dtype\": \"f32\", \"shape\": [1, 8, 56, 56]},\n"
           "  {\"name\": \"wa\", \"dtype\": \"f32\", \"shape\": [24, 8, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wb\", \"dtype\": \"f32\", \"shape\": [24, 1, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wc\", \"dtype\": \"f32\", \"shape\": [8, 24, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wd\", \"dtype\": \"f32\", \"shape\": [16, 24, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"we\", \"dtype\": \"f32\", \"shape\": [16, 1, 3, 3], \"data\": [%s]},\n"
           "  {\"name\": \"wf\", \"dtype\": \"f32\", \"shape\": [8, 16, 1, 1], \"data\": [%s]},\n"
           "  {\"name\": \"wg\", \"dtype\": \"f32\", \"shape\": [16, 8, 1, 1], \"data\": [%s]}],\n"
           " \"nodes\": [\n"
           "  {\"name\": \"pw1\", \"op\": \"Conv\", \"inputs\": [\"x\", \"wa\"], \"outputs\": [\"e1\"]},\n"
           "  {\"name\": \"dw1\", \"op\": \"Conv\", \"inputs\": [\"e1\", \"wb\"], \"outputs\": [\"d1\"], \"attrs\": {\"group\": 24, \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"pw2\", \"op\": \"Conv\", \"inputs\": [\"d1\", \"wc\"], \"outputs\": [\"p2\"]},\n"
           "  {\"name\": \"add1\", \"op\": \"Add\", \"inputs\": [\"p2\", \"x\"], \"outputs\": [\"s1\"]},\n"
           "  {\"name\": \"pw3\", \"op\": \"Conv\", \"inputs\": [\"s1\", \"wa\"], \"outputs\": [\"e3\"]},\n"
           "  {\"name\": \"dw2\", \"op\": \"Conv\", \"inputs\": [\"e3\", \"wb\"], \"outputs\": [\"d2\"], \"attrs\": {\"group\": 24, \"strides\": [2, 2], \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"pw4\", \"op\": \"Conv\", \"inputs\": [\"d2\", \"wd\"], \"outputs\": [\"p4\"]},\n"
           "  {\"name\": \"dw3\", \"op\": \"Conv\", \"inputs\": [\"p4\", \"we\"], \"outputs\": [\"d3\"], \"attrs\": {\"group\": 16, \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"pw5\", \"op\": \"Conv\", \"inputs\": [\"d3\", \"wf\"], \"outputs\": [\"y\"]},\n"
           "  {\"name\": \"add2\", \"op\": \"Add\", \"inputs\": [\"s1\", \"p2\"], \"outputs\": [\"s2\"]},\n"
           "  {\"name\": \"pw6\", \"op\": \"Conv\", \"inputs\": [\"x56\", \"wg\"], \"outputs\": [\"e56\"]},\n"
           "  {\"name\": \"dw4\", \"op\": \"Conv\", \"inputs\": [\"e56\", \"we\"], \"outputs\": [\"d56\"], \"attrs\": {\"group\": 16, \"strides\": [2, 2], \"pads\": [1, 1, 1, 1]}},\n"
           "  {\"name\": \"pw7\", \"op\": \"Conv\", \"inputs\": [\"d56\", \"wf\"], \"outputs\": [\"y56\"]},\n"
           "  {\"name\": \"add3\", \"op\": \"Add\", \"inputs\": [\"e1\", \"d1\"], \"outputs\": [\"s3\"]},\n"
           "  {\"name\": \"pw8\", \"op\": \"Conv\", \"inputs\": [\"e1\", \"wc\"], \"outputs\": [\"y8\"]},\n"
           "  {\"name\": \"pw9\", \"op\": \"Conv\", \"inputs\": [\"x56\", \"wg\"], \"outputs\": [\"e9\"]},\n"
           "  {\"name\": \"dw5\", \"op\": \"Conv\", \"inputs\": [\"e9\", \"we\"], \"outputs\": [\"d5\"], \"attrs\": {\"group\": 16, \"pads\": [1, 1, 1, 1]}}]}\n",
           wa, wb, wc, wd, we, wf, wg);
  free(wa), free(wb), free(wc), free(wd), free(we), free(wf), free(wg);
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(json, "hm", &g, &err), err);
  free(json);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  /* the schedules' answers: each conv above can read and write its maps half-major, the Add both
   * inputs; with halo rows: the pointwise convs and Adds read them, the pointwise convs write
   * them, the stride-1 depthwise convs read them (and gain), the strided ones not (group 1 of
   * their output split reads input rows two or more above the input's split) */
  const char *nodes[] = {"pw1", "dw1", "pw2", "add1", "pw3", "dw2", "pw4", "dw3", "pw6", "dw4", "dw5"};
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
    lir_lower_opts o = {0};
    lir_func *f;
    OVTA_ASSERT_OK(lir_lower_node_opts(g, ovta_graph_node(g, nodes[i]), "f", &o, &f, &err), err);
    lir_func_free(f);
    bool add = !strncmp(nodes[i], "add", 3), pw = nodes[i][0] == 'p', dw1 = !strcmp(nodes[i], "dw1") || !strcmp(nodes[i], "dw3") || !strcmp(nodes[i], "dw5");
    assert_int_equal(o.can_out, 1u);
    assert_int_equal(o.can_in, add ? 3u : 1u);
    assert_int_equal(o.can_halo_in, add ? 3u : pw || dw1 ? 1u : 0u);
    assert_int_equal(o.can_halo_out, pw ? 1u : 0u);
    assert_int_equal(o.gain_halo_in, dw1 ? 1u : 0u);
  }
  enum { NI = 2, NO = 6 };
  ovta_tensor *in[NI];
  for (int i = 0; i < NI; i++) {
    ovta_tensor *gi = g->inputs[i];
    in[i] = ovta_tensor_new(gi->name, gi->dtype, gi->rank, gi->shape);
    OVTA_ASSERT_OK(ovta_tensor_alloc(in[i], &err), err);
    for (int64_t j = 0; j < ovta_tensor_numel(gi); j++) ovta_tensor_put_f(in[i], j, sin((double)j * 0.37 + i) * 2.0);
  }
  ovta_tensor *want[NO] = {0}, *first[NO] = {0};
  OVTA_ASSERT_OK(ovta_graph_run(g, NULL, NULL, in, NULL, NULL, want, &err), err);
  for (int plain = 0; plain < 3; plain++) { /* with halo rows (OVTA_HALO=1), without (the default), every map plain */
    if (plain != 1) setenv(plain ? "OVTA_HALF_MAJOR" : "OVTA_HALO", plain ? "0" : "1", 1);
    ovta_exec *e;
    OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
    unsetenv("OVTA_HALO"), unsetenv("OVTA_HALF_MAJOR");
    /* the maps with halo rows hold more than their elements: exactly the halo maps */
    const ovta_plan *pl = ovta_exec_plan(e);
    int halo = 0;
    for (int x = 0; x < pl->nt; x++) {
      size_t numel = 1;
      for (int d = 0; d < pl->t[x].rank; d++) numel *= (size_t)pl->t[x].shape[d];
      bool h = !strcmp(pl->t[x].name, "e1") || !strcmp(pl->t[x].name, "p4") || !strcmp(pl->t[x].name, "e9");
      if (pl->t[x].nbytes != numel * ovta_dtype_size(pl->t[x].dtype)) {
        assert_true(!plain && h);
        halo++;
      }
    }
    assert_int_equal(halo, plain ? 0 : 3);
    for (int i = 0; i < NI; i++) OVTA_ASSERT_OK(ovta_exec_set_input(e, in[i]->name, in[i], &err), err);
    for (int t = 1; t <= 3; t++) {
      ovta_set_threads(t);
      OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
      for (int o = 0; o < NO; o++) {
        ovta_tensor *got;
        OVTA_ASSERT_OK(ovta_exec_get_output(e, o, &got, &err), err);
        int64_t n = ovta_tensor_numel(want[o]);
        if (!first[o]) {
          assert_true(assert_matches(got, want[o], 1e-5) > n / 4); /* not trivially zeros */
          first[o] = got;
        } else {
          assert_int_equal(ovta_tensor_numel(got), n);
          assert_memory_equal(got->data, first[o]->data, (size_t)n * ovta_dtype_size(got->dtype));
          ovta_tensor_free(got);
        }
      }
    }
    ovta_set_threads(0);
    ovta_exec_free(e);
  }
  for (int o = 0; o < NO; o++) ovta_tensor_free(want[o]), ovta_tensor_free(first[o]);
  for (int i = 0; i < NI; i++) ovta_tensor_free(in[i]);
  ovta_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_float_net),
      cmocka_unit_test(test_int8_pipeline),
      cmocka_unit_test(test_npy),
      cmocka_unit_test(test_eval_hook),
      cmocka_unit_test(test_fused_ops),
      cmocka_unit_test(test_untested_elementwise),
      cmocka_unit_test(test_parallel_ops),
      cmocka_unit_test(test_half_major),
      cmocka_unit_test(test_pointwise_tails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
