/* test_vta_alu.c: the ALU operators of compiler/accel/alu.c (residual add with requantization, max
 * pooling with padding, global average pooling, nearest upsampling) bit-exact against plain-C
 * references written here (the global average pool also against the CPU int8 path, cpu/pool.c;
 * the upsampling against the CPU int8 Resize, cpu/resize.c, under every coordinate rule the
 * accelerator takes), on fsim for every config
 * (remainder tiles included), on tsim for a reduced shape; and the schedule verifier
 * (compiler/accel/accel.h) rejecting an out-of-bounds access. */
#include "ovta_test.h"
#include "accel.h"
#include "exec.h"

#include <math.h>

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

/* A graph of one node op (inputs named in: "x" the int8 graph input xs, others added by the
 * caller) writing the int8 output "y" of shape ys. */
static ovta_node *one_node(ovta_graph *g, const char *op, int n_in, const char *const *in, const int64_t *xs,
                           const int64_t *ys) {
  ovta_error err = {0};
  ovta_tensor *xt = ovta_graph_get_or_add(g, "x", &err);
  assert_non_null(xt);
  xt->dtype = OVTA_DT_I8, xt->rank = 4, memcpy(xt->shape, xs, 4 * sizeof *xs), xt->kind = OVTA_TK_INPUT;
  const char *out = "y";
  ovta_node *n = ovta_graph_add_node(g, op, "node", n_in, in, 1, &out, &err);
  assert_non_null(n);
  ovta_tensor *yt = ovta_graph_tensor(g, "y");
  yt->dtype = OVTA_DT_I8, yt->rank = 4, memcpy(yt->shape, ys, 4 * sizeof *ys);
  g->inputs = calloc(1, sizeof *g->inputs), g->outputs = calloc(1, sizeof *g->outputs);
  g->inputs[0] = xt, g->n_inputs = 1, g->outputs[0] = yt, g->n_outputs = 1;
  return n;
}

/* g on the CPU int8 path with input x (xs): its output into y (ny bytes); returns the input
 * tensor (caller frees). */
static ovta_tensor *cpu_run(ovta_graph *g, const int64_t *xs, const int8_t *x, int8_t *y, size_t ny) {
  ovta_error err = {0};
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  ovta_tensor *xv = ovta_tensor_new("x", OVTA_DT_I8, 4, xs), *yv;
  OVTA_ASSERT_OK(ovta_tensor_alloc(xv, &err), err);
  memcpy(xv->data, x, xv->nbytes);
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", xv, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &yv, &err), err);
  assert_int_equal(yv->nbytes, ny);
  memcpy(y, yv->data, ny);
  ovta_tensor_free(yv);
  ovta_exec_free(e);
  return xv;
}

/* The CPU int8 path on one ovta.QGlobalAvgPool node (logical NCHW x -> y), checked against the
 * reference evaluator on the same node. */
static void cpu_gap(const vta_op *op, const int8_t *x, int8_t *y) {
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("gap");
  int64_t xs[4] = {op->n, op->c, op->h, op->w}, ys[4] = {op->n, op->c, 1, 1};
  const char *in[1] = {"x"};
  ovta_node *n = one_node(g, "ovta.QGlobalAvgPool", 1, in, xs, ys);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "mult", op->mult, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "shift", op->shift, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "clip_min", op->clip_min, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "clip_max", op->clip_max, &err), err);
  size_t ny = (size_t)op->n * op->c;
  ovta_tensor *xv = cpu_run(g, xs, x, y, ny);
  /* the reference evaluator (graph/eval.c) gives the same */
  ovta_tensor *ye = ovta_tensor_new("y", OVTA_DT_I8, 4, ys);
  OVTA_ASSERT_OK(ovta_eval_node_ref(NULL, g, n, &xv, &ye, &err), err);
  assert_memory_equal(ye->data, y, ny);
  ovta_tensor_free(ye), ovta_tensor_free(xv);
  ovta_graph_free(g);
}

/* y[n, c, r, q] = x[n, c, floor(r / fh), floor(q / fw)], by the coordinates directly. */
static void ref_upsample(const vta_op *op, const int8_t *x, int8_t *y) {
  int OH = op->h * op->up_h, OW = op->w * op->up_w;
  for (int n = 0; n < op->n; n++)
    for (int c = 0; c < op->c; c++)
      for (int r = 0; r < OH; r++)
        for (int q = 0; q < OW; q++) {
          int sr = (int)floor((double)r / op->up_h), sq = (int)floor((double)q / op->up_w);
          y[((n * op->c + c) * OH + r) * OW + q] = x[((n * op->c + c) * op->h + sr) * op->w + sq];
        }
}

/* The CPU int8 path on one ONNX Resize node (scales [1, 1, fh, fw], mode nearest, coordinate mode
 * ct, nearest mode nm) of logical NCHW x into y; ovta_resize_nearest_factors' verdict on it
 * returned (true: the node is an upsampling the accelerator takes). */
static bool cpu_resize(const vta_op *op, const char *ct, const char *nm, const int8_t *x, int8_t *y) {
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("resize");
  int64_t xs[4] = {op->n, op->c, op->h, op->w}, ss[1] = {4};
  int64_t ys[4] = {op->n, op->c, (int64_t)op->h * op->up_h, (int64_t)op->w * op->up_w};
  ovta_tensor *sc = ovta_graph_add_tensor(g, "scales", OVTA_DT_F32, 1, ss, &err);
  assert_non_null(sc);
  sc->kind = OVTA_TK_CONST;
  float sv[4] = {1, 1, (float)op->up_h, (float)op->up_w};
  OVTA_ASSERT_OK(ovta_tensor_set_data(sc, sv, sizeof sv, &err), err);
  const char *in[3] = {"x", "", "scales"};
  ovta_node *n = one_node(g, "Resize", 3, in, xs, ys);
  OVTA_ASSERT_OK(ovta_node_set_s(n, "mode", "nearest", &err), err);
  OVTA_ASSERT_OK(ovta_node_set_s(n, "coordinate_transformation_mode", ct, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_s(n, "nearest_mode", nm, &err), err);
  int64_t f[2];
  char why[256];
  bool up = ovta_resize_nearest_factors(n, g->inputs[0], f, why, sizeof why);
  assert_true(!up || (f[0] == op->up_h && f[1] == op->up_w));
  ovta_tensor_free(cpu_run(g, xs, x, y, (size_t)ys[0] * ys[1] * ys[2] * ys[3]));
  ovta_graph_free(g);
  return up;
}

/* Run op on backend/config (fsim: modules interleaved by seed, 0 the fixed order); compare with the
 * reference; returns the plan's tile count, its virtual threads in *vt (may be NULL). */
static int64_t check_seed(const char *backend, const char *cfgname, const vta_op *op, const vta_knobs *kn, uint64_t seed,
                          int *vt) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, op, kn, &p, &err), err);
  if (vt) *vt = p.vt;
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
  else if (op->kind == VTA_UPSAMPLE) ref_upsample(op, a, ref);
  else ref_pool(op, a, ref);
  /* the library's own references (and for the global average pool the CPU int8 path and the
   * reference evaluator) agree */
  int8_t *ref2 = malloc(ny);
  if (op->kind == VTA_ADD) vta_reference_add(op, a, b, ref2);
  else if (op->kind == VTA_GAP) vta_reference_gap(op, a, ref2);
  else if (op->kind == VTA_UPSAMPLE) vta_reference_upsample(op, a, ref2);
  else vta_reference_maxpool(op, a, ref2);
  assert_memory_equal(ref, ref2, ny);
  if (op->kind == VTA_GAP) cpu_gap(op, a, ref2), assert_memory_equal(ref, ref2, ny);
  if (op->kind == VTA_UPSAMPLE) { /* the CPU Resize computes the same under the rules taken */
    assert_true(cpu_resize(op, "asymmetric", "floor", a, ref2));
    assert_memory_equal(ref, ref2, ny);
  }
  free(ref2);
  vta_pack_x(&cp, a, pa);
  if (op->kind == VTA_ADD) vta_pack_x(&cp, b, pb);
  vta_pack_identity(&p, id);
  ovta_dev *dev;
  ovta_dev_opts o = {0};
  o.seed = seed;
  OVTA_ASSERT_OK(ovta_dev_open(backend, &cfg, &o, &dev, &err), err);
  ovta_buf *bufs[VTA_BUF_COUNT] = {0};
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
  /* the device did the work: its counters agree with the host-code counts (the ALU's; the
   * upsampling is GEMM micro-ops only) */
  vta_counts c;
  OVTA_ASSERT_OK(vta_kernel_count(k, &c, &err), err);
  ovta_counters dc;
  ovta_dev_counters(dev, &dc);
  assert_int_equal(dc.alu_uops, c.alu_uops);
  assert_int_equal(dc.gemm_uops, c.gemm_uops);
  if (op->kind == VTA_UPSAMPLE) assert_true(c.gemm_uops > 0 && c.alu_uops == 0);
  else assert_true(c.alu_uops > 0);
  ovta_rt_destroy(rt);
  for (int i = 0; i < VTA_BUF_COUNT; i++) ovta_buf_free(bufs[i]);
  ovta_dev_close(dev);
  vta_kernel_free(k);
  free(a), free(b), free(pa), free(pb), free(id), free(py), free(y), free(ref);
  return p.tiles;
}

static int64_t check(const char *backend, const char *cfgname, const vta_op *op, const vta_knobs *kn) {
  return check_seed(backend, cfgname, op, kn, 0, NULL);
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
    /* the input with the larger shift enters the one ACC region first (a: shift_a >= shift_b,
     * else b): through the identity times 2^d when the shifts differ by d = 1..6, else through the
     * identity with SHR -d after it (d 0; 9 0 10, 0 9 12: d 9); then the other input. The rounding
     * constant is the fill when the shift applied to the fill on the way (the smaller input shift
     * with a scaled block, the larger without) is below the shift (1 0 3, 1 3 5, 2 5 15, 2 2 15,
     * 1 0 1 above, 9 0 10, 0 9 12), else a separate ALU ADD (3 0 2, 4 3 2, 0 2 2 above); no
     * rounding (shift 0, negative); the clip as CLP (int8 bounds) or MAX + MIN (bounds outside
     * int8: the low byte wraps) */
    static const int cases[][5] = {{3, 0, 2, -128, 127}, {4, 3, 2, -50, 60}, {0, 0, 0, -128, 127},
                                   {0, 1, -1, -300, 300}, {2, 2, 15, -1, 1}, {1, 0, 3, -200, 100},
                                   {1, 3, 5, -128, 127},  {2, 5, 15, -40, 30}, {9, 0, 10, -128, 127},
                                   {0, 9, 12, -100, 100}, {0, 6, 3, -128, 127}};
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

/* The max pool with two virtual threads (INP/WGT/ACC halves, row tiles alternating between them, the
 * window copy in row pieces so the ALU of one tile runs beside the GEMMs of the next): every config,
 * shapes with an even and an odd number of row tiles per block (the part a constant per tile, or
 * floormod of the tile loops), remainder tiles, 3x3 stride 2 and 1, 2x2; the same bytes as the
 * plain-C references and as the one-thread plan, on fsim in the fixed order and with two random
 * module interleavings (a missing token shows as a wrong result); tsim on default (test_tsim). */
static bool fits(const char *cfgname, const vta_op *op, const vta_knobs *k) {
  ovta_error err = {0};
  ovta_config cfg;
  vta_plan p;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  return vta_plan_make(&cfg, op, k, &p, &err) == OVTA_OK;
}

static void test_maxpool_vt2(void **st) {
  /* n c h w k stride pad t_h (0: the plan's); the 56x56 pool's remainder row tile (4 of 6 rows) once
   * put its output region where the part's next window copy wrote it (store_late) */
  static const int cs[][8] = {{2, 32, 12, 12, 3, 2, 1, 0}, {2, 32, 24, 20, 3, 2, 1, 2}, {2, 48, 23, 17, 3, 2, 1, 3},
                              {2, 16, 11, 10, 3, 1, 1, 4}, {2, 16, 8, 8, 2, 2, 0, 0},  {2, 32, 9, 14, 3, 2, 1, 1},
                              {2, 32, 56, 56, 3, 2, 1, 6}, {2, 16, 30, 20, 3, 2, 1, 4}};
  for (const char *const *cf = ovta_test_configs(); *cf; cf++)
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
      vta_op op;
      vta_op_maxpool(&op, "pool_vt", cs[i][0], cs[i][1], cs[i][2], cs[i][3], cs[i][4], cs[i][5], cs[i][6]);
      int vt;
      for (int v = 1; v <= 2; v++) {
        vta_knobs k = {.t_h = cs[i][7], .vthreads = v};
        if (!fits(*cf, &op, &k)) k.t_h = 0; /* config small: the rows asked for do not fit a part */
        if (!fits(*cf, &op, &k) && v == 1) break; /* config small: not even one row of the 56-wide image */
        if (!fits(*cf, &op, &k)) { /* nor one row in half the SRAMs: the plan takes one thread */
          vta_knobs k0 = {0};
          check_seed("fsim", *cf, &op, &k0, 0, &vt);
          assert_int_equal(vt, 1);
          continue;
        }
        int64_t t = check_seed("fsim", *cf, &op, &k, 0, &vt);
        assert_int_equal(vt, v);
        if (v == 2) {
          assert_int_equal(check_seed("fsim", *cf, &op, &k, 0x5eed + i, NULL), t);
          assert_int_equal(check_seed("fsim", *cf, &op, &k, 0x77 + i, NULL), t);
        }
      }
    }
  /* the plan takes two threads for ResNet-18's pool on default (the estimate's choice) */
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_plan p1, p2, p;
  vta_op_maxpool(&op, "pool_r18", 1, 64, 112, 112, 3, 2, 1);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 1}, &p1, &err), err);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 2}, &p2, &err), err);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_true(p2.est < p1.est);
  assert_int_equal(p.vt, 2);
}

/* The max pool's separable form (alu.c sep_ops; two threads): taken exactly where the first tap is
 * alone in its stride phases (stride 2 and 3, kernels 2 and 3; not stride 1 nor a 1x1 window), with the ring (a tile's
 * first window rows read from the row tile before) where kernel > stride; odd sizes, asymmetric
 * pads (the first tap then not the centre; pads 2, 1: tap (2, 1), in the phase of row tap 0, so
 * the tap form), remainder row tiles, two channel blocks a tile; fsim
 * in the fixed order and two random module interleavings, against the references; the tap form
 * (knob epi 1) on the same shapes agrees. */
static void test_maxpool_sep(void **st) {
  /* n c h w k stride pad_t pad_l pad_b pad_r t_h t_oc sep */
  static const int cs[][13] = {{2, 32, 13, 11, 3, 2, 1, 1, 1, 1, 2, 0, 1}, {2, 16, 13, 11, 3, 2, 0, 0, 0, 0, 2, 0, 1},
                               {2, 16, 12, 10, 3, 2, 1, 0, 0, 1, 0, 0, 1}, {2, 16, 9, 9, 2, 2, 0, 0, 0, 0, 0, 0, 1},
                               {2, 16, 10, 10, 3, 3, 0, 0, 0, 0, 1, 0, 1}, {2, 16, 11, 10, 3, 1, 1, 1, 1, 1, 3, 0, 0},
                               {2, 16, 10, 9, 2, 1, 0, 0, 0, 0, 0, 0, 0}, {2, 16, 8, 8, 1, 2, 0, 0, 0, 0, 2, 0, 0},
                               {2, 32, 15, 17, 3, 2, 1, 1, 1, 1, 3, 2, 1}, {2, 16, 14, 9, 3, 2, 2, 1, 2, 1, 2, 0, 0}};
  ovta_error err = {0};
  for (const char *const *cf = ovta_test_configs(); *cf; cf++)
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
      const int *q = cs[i];
      vta_op op;
      vta_op_maxpool(&op, "pool_sep", q[0], q[1], q[2], q[3], q[4], q[5], q[6]);
      op.pad_l = q[7], op.pad_b = q[8], op.pad_r = q[9];
      vta_knobs k = {.t_h = q[10], .t_oc = q[11], .vthreads = 2};
      ovta_config cfg;
      OVTA_ASSERT_OK(ovta_config_load(*cf, &cfg, &err), err);
      vta_plan p;
      if (vta_plan_make(&cfg, &op, &k, &p, &err) != OVTA_OK) continue; /* config small: no fitting tile */
      assert_int_equal(p.pool_sep, q[12]);
      int64_t t = check_seed("fsim", *cf, &op, &k, 0, NULL);
      assert_int_equal(check_seed("fsim", *cf, &op, &k, 0x5e9 + i, NULL), t);
      assert_int_equal(check_seed("fsim", *cf, &op, &k, 0x3a + i, NULL), t);
      k.epi = 1; /* the tap form (config small: its window and output may not fit where the planes do) */
      if (vta_plan_make(&cfg, &op, &k, &p, &err) != OVTA_OK) continue;
      assert_false(p.pool_sep);
      check_seed("fsim", *cf, &op, &k, 0x11 + i, NULL);
    }
  /* ResNet-18's pool on default: separable, two threads */
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_plan p;
  vta_op_maxpool(&op, "pool_r18", 1, 64, 112, 112, 3, 2, 1);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.vt, 2);
  assert_true(p.pool_sep);
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
  /* the sum as one GEMM (gap_sum) with 1 and 2 virtual threads, one channel block a tile (every
   * micro-op of the GEMM into the same output as the one before) and the planner's tiles */
  for (const char *const *cf = ovta_test_configs(); *cf; cf++)
    for (int vt = 1; vt <= 2; vt++)
      for (uint64_t seed = 0; seed < (vt == 2 ? 3u : 1u); seed++) { /* two threads: also two module interleavings */
        int got;
        vta_op_gap(&op, "gap_vt", 2, 64, 3, 5, 4369, 16);
        check_seed("fsim", *cf, &op, &(vta_knobs){.vthreads = vt}, seed, &got);
        assert_int_equal(got, vt);
        check_seed("fsim", *cf, &op, &(vta_knobs){.vthreads = vt, .t_oc = 1}, seed, NULL);
        vta_op_gap(&op, "gap_vt7", 2, 32, 7, 7, 2675, 17);
        check_seed("fsim", *cf, &op, &(vta_knobs){.vthreads = vt, .t_oc = 1}, seed, NULL);
      }
  /* ResNet-18's pool (1x512x7x7): the estimate takes two threads, tiles of 8 channel blocks */
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_plan p;
  vta_op_gap(&op, "gap_r18", 1, 512, 7, 7, 21, 10);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.vt, 2);
  assert_int_equal(p.t_oc, 8);
  check("fsim", "default", &op, NULL);
}

/* Upsampling: random shapes (seeded) on every config - 1..5 channel blocks (several per tile, or
 * one per tile with t_oc 1), factors 1..4 per dim, rows that the tile does not divide (t_h knob:
 * a remainder tile) - against the coordinate reference and the CPU Resize. */
static void test_upsample(void **st) {
  uint32_t s = 2026;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++)
    for (int i = 0; i < 6; i++) {
      vta_op op;
      int nb = !strcmp(*cf, "batch2") ? 2 : 1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 2;
      int c = 16 * (1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 5);
      int h = 1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 9, w = 1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 11;
      int fh = 1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 4, fw = 1 + (int)((s = s * 1103515245u + 12345u) >> 16) % 4;
      if (i == 0) fh = fw = 2; /* the common case */
      vta_op_upsample(&op, "up", nb, c, h, w, fh, fw);
      vta_knobs k = {0};
      if (i % 3 == 1 && h > 2) k.t_h = (h / 2) * fh; /* h / 2 input rows per tile: a remainder tile when h is odd */
      if (i % 3 == 2) k.t_oc = 1;
      check("fsim", *cf, &op, &k);
    }
  vta_op op;
  vta_op_upsample(&op, "up_fpn", 1, 64, 28, 28, 2, 2); /* an FPN level: 64x28x28 -> 64x56x56 */
  check("fsim", "default", &op, NULL);
}

/* The coordinate rules (ovta_resize_nearest_factors): for every coordinate mode (but
 * tf_crop_and_resize) and nearest mode, factors 2 and 3, on two image sizes, a pair taken gives
 * floor(y / f) on the CPU Resize (cpu/resize.c's formulas) and a pair refused does not on one of
 * them: the rule is neither looser than the CPU's arithmetic nor stricter. */
static void test_upsample_rules(void **st) {
  static const char *const CT[] = {"asymmetric", "half_pixel", "pytorch_half_pixel", "half_pixel_symmetric",
                                   "tf_half_pixel_for_nn", "align_corners"};
  static const char *const NM[] = {"floor", "ceil", "round_prefer_floor", "round_prefer_ceil"};
  static const int HW[2][2] = {{5, 7}, {12, 9}};
  int taken = 0;
  for (int f = 2; f <= 3; f++)
    for (size_t i = 0; i < 6; i++)
      for (size_t j = 0; j < 4; j++) {
        bool take = false, same_all = true;
        for (int t = 0; t < 2; t++) {
          vta_op op;
          vta_op_upsample(&op, "rule", 1, 16, HW[t][0], HW[t][1], f, f);
          size_t nx = (size_t)16 * HW[t][0] * HW[t][1], ny = nx * f * f;
          int8_t *x = malloc(nx), *ref = malloc(ny), *y = malloc(ny);
          ovta_test_fill_i8(x, nx, 7);
          ref_upsample(&op, x, ref);
          take = cpu_resize(&op, CT[i], NM[j], x, y);
          bool same = !memcmp(y, ref, ny);
          if (take && !same) fail_msg("%s / %s, factor %d: taken but the CPU Resize differs", CT[i], NM[j], f);
          same_all = same_all && same;
          free(x), free(ref), free(y);
        }
        if (!take && same_all) fail_msg("%s / %s, factor %d: refused but the CPU Resize agrees", CT[i], NM[j], f);
        taken += take;
      }
  /* factor 3: asymmetric and tf_half_pixel_for_nn with floor, the 3 half-pixel modes with either
   * rounding (8); factor 2 these and asymmetric + round_prefer_floor, align_corners with either
   * rounding (11) */
  assert_int_equal(taken, 8 + 11);
}

/* Resize with sizes: [N, C, 2H, 3W] is the upsampling by 2x3 (scale = out / in), [N, C, 2H + 1,
 * 2W] is not (the reason names the dim); mode linear and a resized channel dim are refused too. */
static void test_upsample_sizes(void **st) {
  static const struct {
    int64_t sizes[4];
    const char *mode, *why; /* why: NULL when taken */
  } C[] = {{{1, 16, 10, 21}, "nearest", NULL},
           {{1, 16, 11, 14}, "nearest", "not an integer factor"},
           {{1, 16, 10, 14}, "linear", "mode linear interpolates"},
           {{1, 32, 10, 14}, "nearest", "resizes the batch or channel dim"}};
  for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
    ovta_error err = {0};
    ovta_graph *g = ovta_graph_new("sizes");
    int64_t xs[4] = {1, 16, 5, 7}, ss[1] = {4};
    ovta_tensor *sz = ovta_graph_add_tensor(g, "sizes", OVTA_DT_I64, 1, ss, &err);
    assert_non_null(sz);
    sz->kind = OVTA_TK_CONST;
    OVTA_ASSERT_OK(ovta_tensor_set_data(sz, C[i].sizes, sizeof C[i].sizes, &err), err);
    const char *in[4] = {"x", "", "", "sizes"};
    ovta_node *n = one_node(g, "Resize", 4, in, xs, C[i].sizes);
    OVTA_ASSERT_OK(ovta_node_set_s(n, "mode", C[i].mode, &err), err);
    OVTA_ASSERT_OK(ovta_node_set_s(n, "coordinate_transformation_mode", "asymmetric", &err), err);
    OVTA_ASSERT_OK(ovta_node_set_s(n, "nearest_mode", "floor", &err), err);
    int64_t f[2];
    char why[256] = "";
    bool up = ovta_resize_nearest_factors(n, g->inputs[0], f, why, sizeof why);
    if (C[i].why) {
      assert_false(up);
      if (!strstr(why, C[i].why)) fail_msg("case %zu: reason '%s' without '%s'", i, why, C[i].why);
    } else {
      assert_true(up);
      assert_int_equal(f[0], 2), assert_int_equal(f[1], 3);
    }
    ovta_graph_free(g);
  }
}

static void test_tsim(void **st) {
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (!have) skip();
  vta_op op;
  vta_op_maxpool(&op, "pool_tsim", 1, 16, 8, 8, 3, 2, 1);
  check("tsim", "default", &op, &(vta_knobs){.vthreads = 1});
  check("tsim", "default", &op, &(vta_knobs){.vthreads = 2});
  vta_op_maxpool(&op, "pool_tsim_vt", 1, 32, 24, 20, 3, 2, 1); /* 12 output rows: 6 tiles, or 3 (odd: the part from the tile loops) */
  check("tsim", "default", &op, &(vta_knobs){.t_h = 2, .vthreads = 2});
  check("tsim", "default", &op, &(vta_knobs){.t_h = 5, .vthreads = 2});
  vta_op_maxpool(&op, "pool_tsim_vt2", 2, 16, 11, 10, 3, 1, 1); /* stride 1, 2 images of 3 row tiles */
  check("tsim", "default", &op, &(vta_knobs){.t_h = 4, .vthreads = 2});
  vta_op_add(&op, "add_tsim", 1, 16, 4, 6, 1, 0, 1);
  check("tsim", "default", &op, &(vta_knobs){.t_w = 5});
  vta_op_gap(&op, "gap_tsim", 1, 32, 7, 7, 2675, 17);
  check("tsim", "default", &op, NULL);
  vta_op_gap(&op, "gap_tsim2", 1, 16, 3, 5, 4369, 16);
  check("tsim", "default", &op, NULL);
  vta_op_gap(&op, "gap_tsim_vt", 1, 64, 7, 7, 2675, 17); /* 2 threads; one block a tile: the sum's micro-ops back to back into one output */
  check("tsim", "default", &op, &(vta_knobs){.vthreads = 2});
  check("tsim", "default", &op, &(vta_knobs){.vthreads = 2, .t_oc = 1});
  check("tsim", "default", &op, &(vta_knobs){.vthreads = 1, .t_oc = 1});
  vta_op_upsample(&op, "up_tsim", 1, 48, 5, 6, 2, 3);
  check("tsim", "default", &op, &(vta_knobs){.t_h = 4}); /* 10 output rows in tiles of 4: remainder tile */
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
  vta_op_upsample(&op, "up_wide", 1, 16, 4, 1100, 2, 2); /* 2 x 2200: beyond the 11-bit loop factors */
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  vta_op_upsample(&op, "up_f", 1, 16, 4, 4, 0, 2); /* factor 0: an empty output */
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EINVAL);
  vta_op_upsample(&op, "up_th", 1, 16, 4, 4, 2, 2);
  assert_int_equal(vta_plan_make(&cfg, &op, &(vta_knobs){.t_h = 3}, &p, &err), OVTA_EINVAL); /* not a multiple of 2 */
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
      cmocka_unit_test(test_add),    cmocka_unit_test(test_maxpool), cmocka_unit_test(test_maxpool_vt2), cmocka_unit_test(test_maxpool_sep), cmocka_unit_test(test_gap),
      cmocka_unit_test(test_upsample), cmocka_unit_test(test_upsample_rules), cmocka_unit_test(test_upsample_sizes),
      cmocka_unit_test(test_tsim),
      cmocka_unit_test(test_errors), cmocka_unit_test(test_sched_verify),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
