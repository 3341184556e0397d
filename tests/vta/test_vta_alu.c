/* test_vta_alu.c: the ALU operators of compiler/accel/alu.c (residual add with requantization, max
 * pooling with padding, global average pooling) bit-exact against plain-C references written here
 * (the global average pool also against the CPU int8 path, cpu/pool.c), on fsim for every config
 * (remainder tiles included), on tsim for a reduced shape; and the schedule verifier
 * (compiler/accel/accel.h) rejecting an out-of-bounds access. */
#include "ovta_test.h"
#include "accel.h"
#include "exec.h"

/* independent references (logical NCHW) */
static void ref_add(const vta_op *op, const int8_t *a, const int8_t *b, int8_t *y) {
  for (size_t i = 0; i < (size_t)op->n * op->c * op->h * op->w; i++) {
    int64_t v = (int64_t)a[i] * (1 << op->shift_a) + (int64_t)b[i] * (1 << op->shift_b); /* small: no wrap */
    if (op->shift > 0) v = (v + (1 << (op->shift - 1))) >> op->shift; /* arithmetic (floor) */
    if (op->shift < 0) v *= 1 << -op->shift;
    v = v < op->clip_min ? op->clip_min : v > op->clip_max ? op->clip_max : v;
    y[i] = (int8_t)v;
  }
}
static void ref_pool(const vta_op *op, const int8_t *x, int8_t *y) {
  int OH = (op->h + op->pad_t + op->pad_b - op->kh) / op->stride_h + 1;
  int OW = (op->w + op->pad_l + op->pad_r - op->kw) / op->stride_w + 1;
  for (int n = 0; n < op->n; n++)
    for (int c = 0; c < op->c; c++)
      for (int i = 0; i < OH; i++)
        for (int j = 0; j < OW; j++) {
          int m = -1000;
          for (int a = 0; a < op->kh; a++)
            for (int b = 0; b < op->kw; b++) {
              int r = i * op->stride_h + a - op->pad_t, q = j * op->stride_w + b - op->pad_l;
              if (r >= 0 && r < op->h && q >= 0 && q < op->w) {
                int v = x[((n * op->c + c) * op->h + r) * op->w + q];
                m = v > m ? v : m;
              }
            }
          y[((n * op->c + c) * OH + i) * OW + j] = (int8_t)m;
        }
}

/* y[n, c] = round(sum * mult / 2^shift) (half up: floor(v / 2^s + 1/2)) clipped, in 64 bits. */
static void ref_gap(const vta_op *op, const int8_t *x, int8_t *y) {
  int hw = op->h * op->w;
  for (int nc = 0; nc < op->n * op->c; nc++) {
    int64_t s = 0;
    for (int i = 0; i < hw; i++) s += x[nc * hw + i];
    int64_t v = s * op->mult;
    if (op->shift > 0) v = (v + ((int64_t)1 << (op->shift - 1))) >> op->shift;
    y[nc] = (int8_t)(v < op->clip_min ? op->clip_min : v > op->clip_max ? op->clip_max : v);
  }
}

/* The CPU int8 path on one ovta.QGlobalAvgPool node (logical NCHW x -> y), checked against the
 * reference evaluator on the same node. */
static void cpu_gap(const vta_op *op, const int8_t *x, int8_t *y) {
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("gap");
  int64_t xs[4] = {op->n, op->c, op->h, op->w}, ys[4] = {op->n, op->c, 1, 1};
  ovta_tensor *xt = ovta_graph_add_tensor(g, "x", OVTA_DT_I8, 4, xs, &err), *yt;
  assert_non_null(xt);
  xt->kind = OVTA_TK_INPUT;
  const char *in[1] = {"x"}, *out = "y";
  ovta_node *n = ovta_graph_add_node(g, "ovta.QGlobalAvgPool", "gap", 1, in, 1, &out, &err);
  assert_non_null(n);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "mult", op->mult, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "shift", op->shift, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "clip_min", op->clip_min, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "clip_max", op->clip_max, &err), err);
  yt = ovta_graph_tensor(g, "y");
  yt->dtype = OVTA_DT_I8, yt->rank = 4, memcpy(yt->shape, ys, sizeof ys);
  g->inputs = calloc(1, sizeof *g->inputs), g->outputs = calloc(1, sizeof *g->outputs);
  g->inputs[0] = xt, g->n_inputs = 1, g->outputs[0] = yt, g->n_outputs = 1;
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  ovta_tensor *xv = ovta_tensor_new("x", OVTA_DT_I8, 4, xs), *yv;
  OVTA_ASSERT_OK(ovta_tensor_alloc(xv, &err), err);
  memcpy(xv->data, x, xv->nbytes);
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", xv, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &yv, &err), err);
  assert_int_equal(yv->nbytes, (size_t)op->n * op->c);
  memcpy(y, yv->data, yv->nbytes);
  /* the reference evaluator (graph/eval.c) gives the same */
  ovta_tensor *ye = ovta_tensor_new("y", OVTA_DT_I8, 4, ys);
  OVTA_ASSERT_OK(ovta_eval_node_ref(NULL, g, n, &xv, &ye, &err), err);
  assert_memory_equal(ye->data, y, yv->nbytes);
  ovta_tensor_free(ye);
  ovta_tensor_free(xv), ovta_tensor_free(yv);
  ovta_exec_free(e);
  ovta_graph_free(g);
}

/* Run op on backend/config; compare with the reference; returns the plan's tile count. */
static int64_t check(const char *backend, const char *cfgname, const vta_op *op, const vta_knobs *kn) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, op, kn, &p, &err), err);
  vta_kernel *k;
  OVTA_ASSERT_OK(vta_compile(&p, NULL, NULL, &k, &err), err);
  /* x/y through the conv packing helpers (same activation layout); o = c */
  vta_op cop = *op;
  cop.kind = VTA_CONV;
  vta_plan cp = p;
  cp.op = cop;
  size_t nx = vta_x_bytes(&p), ny = vta_y_bytes(&p), nw = vta_w_bytes(&p), nb = vta_bias_bytes(&p);
  int8_t *a = malloc(nx), *b = malloc(nx), *pa = malloc(nx), *pb = calloc(1, nw > nx ? nw : nx), *id = malloc(nb),
         *py = malloc(ny), *y = malloc(ny), *ref = malloc(ny);
  assert_non_null(a), assert_non_null(ref);
  ovta_test_fill_i8(a, nx, 3), ovta_test_fill_i8(b, nx, 4);
  if (op->kind == VTA_ADD) ref_add(op, a, b, ref);
  else if (op->kind == VTA_GAP) ref_gap(op, a, ref);
  else ref_pool(op, a, ref);
  /* the library's own references (and for the global average pool the CPU int8 path and the
   * reference evaluator) agree */
  int8_t *ref2 = malloc(ny);
  if (op->kind == VTA_ADD) vta_reference_add(op, a, b, ref2);
  else if (op->kind == VTA_GAP) vta_reference_gap(op, a, ref2);
  else vta_reference_maxpool(op, a, ref2);
  assert_memory_equal(ref, ref2, ny);
  if (op->kind == VTA_GAP) cpu_gap(op, a, ref2), assert_memory_equal(ref, ref2, ny);
  free(ref2);
  vta_pack_x(&cp, a, pa);
  if (op->kind == VTA_ADD) vta_pack_x(&cp, b, pb);
  vta_pack_identity(&p, id);
  ovta_dev *dev;
  OVTA_ASSERT_OK(ovta_dev_open(backend, &cfg, NULL, &dev, &err), err);
  ovta_buf *bufs[VTA_BUF_COUNT];
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, nx, &bufs[VTA_BUF_X], &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, nw, &bufs[VTA_BUF_W], &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, nb, &bufs[VTA_BUF_BIAS], &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, ny, &bufs[VTA_BUF_Y], &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(bufs[VTA_BUF_X], 0, pa, nx, &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(bufs[VTA_BUF_W], 0, pb, nw, &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(bufs[VTA_BUF_BIAS], 0, id, nb, &err), err);
  ovta_rt *rt;
  OVTA_ASSERT_OK(ovta_rt_create(dev, NULL, &rt, &err), err);
  OVTA_ASSERT_OK(vta_kernel_issue(k, rt, bufs, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 600000, &err), err);
  OVTA_ASSERT_OK(ovta_buf_read(bufs[VTA_BUF_Y], 0, py, ny, &err), err);
  vta_unpack_y(&cp, py, y);
  size_t bad = 0, first = ny;
  for (size_t i = 0; i < ny; i++)
    if (y[i] != ref[i]) bad++, first = first < i ? first : i;
  if (bad) fail_msg("%s %s %s: %zu of %zu differ (first %zu: %d vs %d)", op->name, backend, cfgname, bad, ny, first, y[first], ref[first]);
  /* the ALU did the work: device counters agree with the host-code counts */
  vta_counts c;
  OVTA_ASSERT_OK(vta_kernel_count(k, &c, &err), err);
  ovta_counters dc;
  ovta_dev_counters(dev, &dc);
  assert_int_equal(dc.alu_uops, c.alu_uops);
  assert_true(c.alu_uops > 0);
  ovta_rt_destroy(rt);
  for (int i = 0; i < VTA_BUF_COUNT; i++) ovta_buf_free(bufs[i]);
  ovta_dev_close(dev);
  vta_kernel_free(k);
  free(a), free(b), free(pa), free(pb), free(id), free(py), free(y), free(ref);
  return p.tiles;
}

static void test_add(void **st) {
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    vta_op op;
    vta_op_add(&op, "add", 2, 32, 7, 9, 1, 0, 1);
    op.clip_min = -100, op.clip_max = 90;
    check("fsim", *cf, &op, NULL);
    vta_op_add(&op, "add_relu", 2, 16, 5, 5, 0, 2, 2);
    op.clip_min = 0;
    vta_knobs k = {.t_w = 7}; /* 50 (batch2: 25) elements in tiles of 7: a remainder tile */
    check("fsim", *cf, &op, &k);
    /* where the rounding constant goes: into a's fill (above), b's fill (shift_a >= shift), a
     * separate ALU ADD (both input shifts >= shift); no rounding (shift 0, negative); the clip
     * as CLP (int8 bounds) or MAX + MIN (bounds outside int8: the low byte wraps) */
    static const int cases[][5] = {{3, 0, 2, -128, 127}, {4, 3, 2, -50, 60}, {0, 0, 0, -128, 127},
                                   {0, 1, -1, -300, 300}, {2, 2, 15, -1, 1}, {1, 0, 3, -200, 100}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      vta_op_add(&op, "add_chain", 2, 16, 3, 5, cases[i][0], cases[i][1], cases[i][2]);
      op.clip_min = cases[i][3], op.clip_max = cases[i][4];
      check("fsim", *cf, &op, NULL);
    }
  }
}

static void test_maxpool(void **st) {
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    vta_op op;
    vta_op_maxpool(&op, "pool", 2, 32, 12, 12, 3, 2, 1); /* ResNet-18's pool, reduced */
    check("fsim", *cf, &op, NULL);
    vta_op_maxpool(&op, "pool2", 2, 16, 8, 8, 2, 2, 0);
    check("fsim", *cf, &op, NULL);
    vta_op_maxpool(&op, "pool_rem", 2, 16, 11, 10, 3, 1, 1);
    vta_knobs k = {.t_h = 4}; /* 11 output rows in tiles of 4: remainder tile of 3 */
    assert_int_equal(check("fsim", *cf, &op, &k) % 3, 0); /* row tiles 4, 4, 3 per image block / channel tile */
  }
}

/* The quantize rule's (mult, shift) pairs (gap_scale, passes/quantize.c) for 7x7 at one exponent
 * (2675 / 2^17) and with the output 4x finer (2675 / 2^15), 4x4 (1 / 2^4: a pure shift), 3x5 (4369 /
 * 2^16), 14x14 (2675 / 2^19), 1x1 (1 / 2^0), 2x2 with the output 8x coarser (1 / 2^5); and a
 * multiplier that saturates the clip (7 / 2^1). */
static void test_gap(void **st) {
  static const int cases[][6] = {{2, 32, 7, 7, 2675, 17}, {2, 32, 7, 7, 2675, 15}, {2, 16, 4, 4, 1, 4},
                                 {2, 16, 3, 5, 4369, 16},  {2, 16, 1, 1, 1, 0},
                                 {2, 16, 2, 2, 1, 5},      {2, 16, 2, 2, 7, 1}};
  for (const char *const *cf = ovta_test_configs(); *cf; cf++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      vta_op op;
      const int *q = cases[i];
      vta_op_gap(&op, "gap", q[0], q[1], q[2], q[3], q[4], q[5]);
      check("fsim", *cf, &op, NULL);
    }
  vta_op op;
  vta_op_gap(&op, "gap14", 1, 16, 14, 14, 2675, 19); /* 196 pixels: more than config small's INP */
  check("fsim", "default", &op, NULL);
  vta_op_gap(&op, "gap_small_tile", 2, 64, 5, 5, 5243, 17);
  check("fsim", "default", &op, &(vta_knobs){.t_oc = 1}); /* 4 channel tiles per image block */
}

static void test_tsim(void **st) {
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (!have) skip();
  vta_op op;
  vta_op_maxpool(&op, "pool_tsim", 1, 16, 8, 8, 3, 2, 1);
  check("tsim", "default", &op, NULL);
  vta_op_add(&op, "add_tsim", 1, 16, 4, 6, 1, 0, 1);
  check("tsim", "default", &op, &(vta_knobs){.t_w = 5});
  vta_op_gap(&op, "gap_tsim", 1, 32, 7, 7, 2675, 17);
  check("tsim", "default", &op, NULL);
  vta_op_gap(&op, "gap_tsim2", 1, 16, 3, 5, 4369, 16);
  check("tsim", "default", &op, NULL);
}

static void test_errors(void **st) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_plan p;
  vta_op_maxpool(&op, "pool_pad", 1, 16, 8, 8, 2, 2, 2);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  vta_op_add(&op, "add_c", 1, 8, 4, 4, 0, 0, 0);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  vta_op_gap(&op, "gap_big", 1, 16, 14, 14, 2675, 19); /* config small: the image exceeds INP (128) */
  OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op_gap(&op, "gap_mult", 1, 16, 4, 4, 40000, 4); /* not a 16-bit immediate */
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  vta_op_add(&op, "add_vt", 1, 16, 4, 4, 0, 0, 0);
  assert_int_equal(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 2}, &p, &err), OVTA_EUNSUPPORTED);
}

/* the schedule verifier catches an access outside its buffer; split refuses bad factors */
static void test_sched_verify(void **st) {
  ovta_error err = {0};
  lir_func *f = lir_func_new("oob");
  int64_t s[1] = {10};
  lir_buf *x = lir_param(f, "x", LIR_I32, 1, s);
  lir_var *i = lir_var_new(f, "i", LIR_I64);
  lir_expr *ix[1] = {lir_addi(f, lir_ref(f, i), 1)};
  f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, 10), LIR_FOR_SERIAL, lir_store(f, x, ix, lir_int(f, LIR_I32, 0)));
  assert_int_equal(vta_sched_verify(f, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "index 0 of x ranges 1..10"));
  vta_sched sc;
  vta_sched_init(&sc, f);
  assert_int_equal(vta_sched_split(&sc, "i", 0, VTA_SPLIT_EXACT, &err), OVTA_EINVAL);
  assert_int_equal(vta_sched_split(&sc, "nope", 2, VTA_SPLIT_EXACT, &err), OVTA_EINVAL);
  OVTA_ASSERT_OK(vta_sched_split(&sc, "i", 5, VTA_SPLIT_EXACT, &err), err);
  assert_int_equal(vta_sched_verify(f, &err), OVTA_EINVAL); /* still out of bounds after the split */
  lir_func_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_add),    cmocka_unit_test(test_maxpool), cmocka_unit_test(test_gap), cmocka_unit_test(test_tsim),
      cmocka_unit_test(test_errors), cmocka_unit_test(test_sched_verify),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
