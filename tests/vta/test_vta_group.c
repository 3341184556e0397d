/* test_vta_group.c: grouped and depthwise conv2d on the accelerator (compiler/accel/README.md,
 * "Grouped convolution"). Every case runs through every lowering stage on fsim (seed 0 and a
 * random module interleaving) and is compared bit for bit with three references: conv_ref written
 * in vta_check.h (grouped ONNX Conv semantics), the accelerator layer's plain-C vta_reference, and
 * the CPU int8 path (a one-node ovta.QConv graph on the plain layout, compiled by cpu/conv.c and
 * run by the executor). Shapes: depthwise 3x3 stride 1 and 2, pad 1 (C = O = 32, 48, 64), groups
 * of one block (G = 2, C = O = 32; G = 4, C = O = 64), groups of several blocks (G = 2, C = O =
 * 64, and 64 -> 128), groups straddling the blocks (G = 2, C = O = 48; channel multiplier 2:
 * every output block reads every input block), with and without bias and ReLU, on every config, 1 and 2 virtual threads,
 * forced tiles with several output blocks per tile; the same graph with the accelerator in the
 * executor (pack, partition, vta_op_from_node) equal to the CPU run; tsim on two shapes;
 * refusals of channels whose padding is no whole group; channels padded to the blocks with all-zero
 * groups (depthwise 72, 88: test_padded); per-channel shifts (test_per_channel; tsim on one). */
#include "vta_check.h"
#include "exec.h"
#include "ovta_driver.h"

#include <stdio.h>

/* A one-node graph y = ovta.QConv(x, w[, b]) of op on the plain layout (w [O][C/G][KH][KW]). */
static ovta_graph *qconv_graph(const vta_op *op, const int8_t *w, const int32_t *b) {
  int cg = op->c / op->groups;
  size_t nw = (size_t)op->o * cg * op->kh * op->kw, cap = nw * 6 + (size_t)op->o * 14 + 4096, k = 0;
  char *js = malloc(cap);
  assert_non_null(js);
  k += (size_t)snprintf(js + k, cap - k,
                        "{\"name\": \"g\", \"opset\": 17, \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"tensors\": [\n"
                        " {\"name\": \"x\", \"kind\": \"input\", \"dtype\": \"i8\", \"shape\": [%d, %d, %d, %d]},\n"
                        " {\"name\": \"w\", \"dtype\": \"i8\", \"shape\": [%d, %d, %d, %d], \"data\": [",
                        op->n, op->c, op->h, op->w, op->o, cg, op->kh, op->kw);
  for (size_t i = 0; i < nw; i++) k += (size_t)snprintf(js + k, cap - k, "%s%d", i ? "," : "", w[i]);
  k += (size_t)snprintf(js + k, cap - k, "]}");
  if (b) {
    k += (size_t)snprintf(js + k, cap - k, ",\n {\"name\": \"b\", \"dtype\": \"i32\", \"shape\": [%d], \"data\": [", op->o);
    for (int i = 0; i < op->o; i++) k += (size_t)snprintf(js + k, cap - k, "%s%d", i ? "," : "", b[i]);
    k += (size_t)snprintf(js + k, cap - k, "]}");
  }
  k += (size_t)snprintf(js + k, cap - k,
                        "],\n \"nodes\": [{\"name\": \"dw\", \"op\": \"ovta.QConv\", \"inputs\": [\"x\", \"w\"%s], "
                        "\"outputs\": [\"y\"], \"attrs\": {\"pads\": [%d, %d, %d, %d], \"strides\": [%d, %d], "
                        "\"group\": %d, \"clip_min\": %d, \"clip_max\": %d, ",
                        b ? ", \"b\"" : "", op->pad_t, op->pad_l, op->pad_b, op->pad_r, op->stride_h, op->stride_w,
                        op->groups, op->clip_min, op->clip_max);
  if (!op->shifts) k += (size_t)snprintf(js + k, cap - k, "\"shift\": %d}}]}\n", op->shift);
  else { /* per-channel: the shifts attribute (graph.h) */
    k += (size_t)snprintf(js + k, cap - k, "\"shifts\": [");
    for (int i = 0; i < op->o; i++) k += (size_t)snprintf(js + k, cap - k, "%s%lld", i ? "," : "", (long long)op->shifts[i]);
    k += (size_t)snprintf(js + k, cap - k, "]}}]}\n");
  }
  assert_true(k < cap);
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_from_json(js, "qconv", &g, &err), err);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  free(js);
  return g;
}

/* Run g's executor (CPU only when o is NULL) on x; the int8 output. *accel: the accelerator nodes;
 * want_in_report: a text the compile report must hold (NULL: none). */
static ovta_tensor *exec_run(ovta_graph *g, const ovta_exec_opts *o, const vta_op *op, const int8_t *x, int *accel,
                             const char *want_in_report) {
  ovta_error err = {0};
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, o, &e, &err), err);
  if (accel) *accel = ovta_exec_accel_nodes(e);
  if (want_in_report && !strstr(ovta_exec_report(e), want_in_report))
    fail_msg("report lacks '%s':\n%s", want_in_report, ovta_exec_report(e));
  int64_t xs[4] = {op->n, op->c, op->h, op->w};
  ovta_tensor *xt = ovta_tensor_new("x", OVTA_DT_I8, 4, xs), *y;
  OVTA_ASSERT_OK(ovta_tensor_alloc(xt, &err), err);
  memcpy(xt->data, x, xt->nbytes);
  OVTA_ASSERT_OK(ovta_exec_set_input(e, "x", xt, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &y, &err), err);
  ovta_tensor_free(xt);
  ovta_exec_free(e);
  return y;
}

static void same_bytes(const int8_t *a, const int8_t *b, size_t n, const char *what, const vta_op *op) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) fail_msg("%s %dx%dx%dx%d->%d g%d: %s differs at %zu: %d, expected %d", op->name, op->n, op->c,
                               op->h, op->w, op->o, op->groups, what, i, a[i], b[i]);
}

/* The other references on vta_check_plan's inputs: vta_reference and the CPU int8 path. */
static void also_cpu(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *b, const int8_t *ref) {
  size_t ny = (size_t)op->n * op->o * vta_op_out_h(op) * vta_op_out_w(op);
  int8_t *y = malloc(ny);
  assert_non_null(y);
  vta_reference(op, x, w, b, y);
  same_bytes(y, ref, ny, "vta_reference", op);
  ovta_graph *g = qconv_graph(op, w, b);
  ovta_tensor *yc = exec_run(g, NULL, op, x, NULL, NULL);
  assert_int_equal(yc->nbytes, ny);
  same_bytes(yc->data, ref, ny, "the cpu int8 path", op);
  ovta_tensor_free(yc);
  ovta_graph_free(g);
  free(y);
}

/* A grouped op: shape, groups, bias, ReLU, a shift keeping most outputs inside the clip. */
static vta_op gop(const char *name, int n, int c, int hw, int o, int groups, int stride, bool bias, bool relu) {
  vta_op op;
  vta_op_conv(&op, name, n, c, hw, hw, o, 3, stride, 1);
  op.groups = groups, op.has_bias = bias;
  if (relu) op.clip_min = 0;
  double target = 5461.0 * sqrt((double)(c / groups * 9)) / 40.0;
  while ((double)(1 << op.shift) < target) op.shift++;
  return op;
}

/* op on cfgname / vt (knobs optional) on fsim: two interleavings, the first also against the
 * other references (skipped when may_refuse and the knobs do not fit). */
static void check_op(const char *cfgname, const vta_op *op, int vt, const vta_knobs *kn, bool may_refuse) {
  vta_plan p;
  if (!plan_of(cfgname, op, vt, kn, may_refuse, &p)) return;
  vta_check_plan_also("fsim", &p, 0, true, also_cpu);
  vta_check_plan("fsim", &p, 0x5eed + (uint64_t)vt, true);
}

static const struct { const char *name; int c, hw, o, groups; } shapes[] = {
    {"dw32", 32, 8, 32, 32},  {"dw48", 48, 7, 48, 48},  {"dw64", 64, 10, 64, 64}, {"g2_32", 32, 8, 32, 2},
    {"g4_64", 64, 6, 64, 4},  {"g2_64", 64, 6, 64, 2},  {"g2_64_128", 64, 6, 128, 2},
    {"g2_48", 48, 6, 48, 2},  {"m2_32", 32, 6, 64, 32}, /* groups of 24, channel multiplier 2: gs 0 */
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static void test_sweep(void **st) {
  (void)st;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (size_t i = 0; i < NSHAPES; i++)
      for (int stride = 1; stride <= 2; stride++)
        for (int v = 0; v < 2; v++) { /* v 0: bias, ReLU, 2 threads; v 1: neither, 1 thread */
          vta_op op = gop(shapes[i].name, cfg.batch, shapes[i].c, shapes[i].hw, shapes[i].o, shapes[i].groups, stride,
                          v == 0, v == 0);
          check_op(*c, &op, 2 - v, NULL, false);
        }
  }
}

/* Forced tiles: several output blocks per tile (their own input blocks side by side in INP),
 * a reduction in steps of one input block (groups of two blocks). */
static void test_tiles(void **st) {
  (void)st;
  vta_op op = gop("dw_t", 1, 64, 14, 64, 64, 1, true, true);
  check_op("default", &op, 2, &(vta_knobs){.t_n = 1, .t_oc = 4, .t_ic = 1, .t_h = 7, .t_w = 14}, false);
  check_op("default", &op, 1, &(vta_knobs){.t_oc = 2, .t_h = 2}, false);
  op = gop("g2_t", 1, 64, 8, 64, 4, 2, false, false); /* 16 channels a group: its own input block */
  check_op("default", &op, 2, &(vta_knobs){.t_oc = 2, .t_h = 4}, false);
  op = gop("g2_t2", 1, 64, 8, 64, 2, 1, true, false); /* 32 a group: all blocks, the others' weights zero */
  check_op("default", &op, 2, &(vta_knobs){.t_oc = 2, .t_ic = 1}, false);
}

/* Tilings: every combination of a few tile sizes (those that divide and fit) on two images
 * blocks, fsim with a random interleaving against conv_ref. */
static void test_tilings(void **st) {
  (void)st;
  int ran = 0;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    static const int sh[][4] = {{64, 64, 64, 1}, {64, 64, 4, 2}, {64, 64, 2, 1}}; /* c, o, groups, stride */
    for (size_t i = 0; i < 3; i++)
      for (int vt = 1; vt <= 2; vt++) {
        vta_op op = gop("tiled", 2 * cfg.batch, sh[i][0], 8, sh[i][1], sh[i][2], sh[i][3], vt == 2, true);
        static const int toc[] = {1, 2, 4}, tic[] = {1, 2}, th[] = {1, 4}, tw[] = {2, 8};
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 2; b++)
            for (int h = 0; h < 2; h++)
              for (int w = 0; w < 2; w++) {
                vta_knobs k = {.t_n = 1 + (a + h + w) % 2, .t_oc = toc[a], .t_ic = tic[b], .t_h = th[h], .t_w = tw[w]};
                vta_plan p;
                if (!plan_of(*c, &op, vt, &k, true, &p)) continue; /* does not fit or divide */
                vta_check_plan("fsim", &p, 0x6eedu + (uint64_t)ran, false);
                ran++;
              }
      }
  }
  assert_true(ran > 100);
}

/* The plan's grouping: the reduction of an output block runs over gk input blocks from ob * gs,
 * so the GEMM does gk blocks per output block (vta_check_plan counts them) and the INP tile holds
 * the tile's own input blocks. */
static void test_plan(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_plan p;
  vta_op op = gop("dw", 1, 96, 56, 96, 96, 1, true, true);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.gk, 1), assert_int_equal(p.gs, 1), assert_int_equal(p.red_steps, 1);
  assert_int_equal(p.in_cb, p.t_oc);
  assert_int_equal(vta_w_bytes(&p), 96 * 16 * 9); /* a diagonal 16x16 tile per tap */
  op = gop("g4", 1, 64, 8, 64, 4, 1, true, true);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.gk, 1), assert_int_equal(p.gs, 1);
  op = gop("g2", 1, 64, 8, 128, 2, 1, true, true);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.gk, 4), assert_int_equal(p.gs, 0);
  assert_int_equal(vta_op_macs(&op), (int64_t)128 * 64 * 32 * 9);
  /* groups straddling the blocks: every output block reads every input block (gs 0), zeros
   * outside the groups; the same bytes as the references */
  op = gop("mult2", 1, 32, 8, 64, 32, 1, false, false); /* depthwise with channel multiplier 2 */
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.gk, 2), assert_int_equal(p.gs, 0);
  check_op("default", &op, 2, NULL, false);
  /* refused: groups that do not divide the channels, dense with groups (channels whose padding
   * is no whole number of groups never reach a plan: test_graph) */
  op = gop("g3", 1, 48, 8, 48, 3, 1, false, false); /* 16 a group but blocks of 16 from 0: aligned */
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  op = gop("g6", 1, 48, 8, 48, 6, 1, false, false); /* 8 a group: two groups a block, aligned */
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  check_op("default", &op, 2, NULL, false);
  op = gop("g12", 1, 48, 8, 96, 12, 1, false, false); /* 4 in, 8 out a group: 2 groups, 8 inputs a block */
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.gk, 3), assert_int_equal(p.gs, 0);
  check_op("default", &op, 1, NULL, false);
  op = gop("bad", 1, 48, 8, 48, 5, 1, false, false);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EINVAL);
  vta_op_dense(&op, "dg", 16, 32, 32);
  op.groups = 2;
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EINVAL);
}

/* The graph executor with the accelerator: pack repacks the grouped weights, partition and
 * vta_op_from_node take the node, the device result equals the CPU run; an unaligned group stays
 * on the CPU with the reason in the report. */
static void test_graph(void **st) {
  (void)st;
  static const int cases[][4] = {{32, 32, 32, 1}, {64, 64, 2, 2}, {64, 128, 2, 1}, {32, 64, 32, 1}, {72, 72, 3, 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    vta_op op = gop("dwg", 1, cases[i][0], 9, cases[i][1], cases[i][2], cases[i][3], true, true);
    size_t nx = (size_t)op.c * 81, nw = (size_t)op.o * (op.c / op.groups) * 9;
    int8_t *x = malloc(nx), *w = malloc(nw);
    int32_t *b = malloc((size_t)op.o * 4);
    assert_non_null(x), assert_non_null(w), assert_non_null(b);
    ovta_test_fill_i8(x, nx, 91 + (uint32_t)i), ovta_test_fill_i8(w, nw, 92 + (uint32_t)i);
    for (int k = 0; k < op.o; k++) b[k] = (k * 7919 % 4001) - 2000;
    ovta_graph *g = qconv_graph(&op, w, b);
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
    ovta_exec_opts o;
    ovta_exec_opts_init(&o);
    o.accel = true, o.cfg = &cfg, o.backend = "fsim";
    int nacc = -1;
    bool aligned = i != 4; /* 72 in 3 groups of 24: the padding to 80 is no whole group */
    ovta_tensor *yc = exec_run(g, NULL, &op, x, NULL, NULL),
                *ya = exec_run(g, &o, &op, x, &nacc,
                               aligned ? "node dw op ovta.QConv: accel: tile"
                                       : "node dw op ovta.QConv: cpu: grouped convolution (group 3): 24 input and 24 "
                                         "output channels per group do not align with the accelerator's channel "
                                         "blocks");
    assert_int_equal(nacc, aligned ? 1 : 0);
    assert_int_equal(yc->nbytes, ya->nbytes);
    same_bytes(ya->data, yc->data, yc->nbytes, "accelerator graph vs cpu", &op);
    int8_t *ref = malloc(yc->nbytes);
    assert_non_null(ref);
    conv_ref(&op, x, w, b, ref);
    same_bytes(yc->data, ref, yc->nbytes, "cpu vs conv_ref", &op);
    free(ref);
    ovta_tensor_free(yc), ovta_tensor_free(ya);
    ovta_graph_free(g);
    free(x), free(w), free(b);
  }
}

/* Channels that are not block multiples (compiler/accel/README.md "Grouped convolution"): pack pads C and O to the blocks with whole all-zero groups (depthwise 72 -> 80
 * groups of one channel, 88 -> 96; 24 channels in 3 groups of 8 -> 4 groups), the device runs
 * the padded grouped conv and Unpack drops the padded outputs. On fsim (tsim: backend not NULL)
 * the accelerator graph equals conv_ref, vta_reference (the logical op) and the CPU int8 path. */
static void check_padded_as(const char *cfgname, const char *backend, int c, int hw, int o, int groups, int stride,
                            bool bias, bool relu, uint32_t seed, const char *want, int want_acc) {
  vta_op op = gop("dwp", 1, c, hw, o, groups, stride, bias, relu);
  size_t nx = (size_t)op.c * hw * hw, nw = (size_t)op.o * (op.c / op.groups) * 9;
  int8_t *x = malloc(nx), *w = malloc(nw);
  int32_t *b = malloc((size_t)op.o * 4);
  assert_non_null(x), assert_non_null(w), assert_non_null(b);
  ovta_test_fill_i8(x, nx, seed), ovta_test_fill_i8(w, nw, seed + 1);
  for (int k = 0; k < op.o; k++) b[k] = (k * 7919 % 4001) - 2000;
  ovta_graph *g = qconv_graph(&op, w, bias ? b : NULL);
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  ovta_exec_opts eo;
  ovta_exec_opts_init(&eo);
  eo.accel = true, eo.cfg = &cfg, eo.backend = backend;
  int nacc = -1;
  ovta_tensor *yc = exec_run(g, NULL, &op, x, NULL, NULL),
              *ya = exec_run(g, &eo, &op, x, &nacc, want);
  assert_int_equal(nacc, want_acc);
  size_t ny = (size_t)op.o * vta_op_out_h(&op) * vta_op_out_w(&op);
  assert_int_equal(yc->nbytes, ny), assert_int_equal(ya->nbytes, ny);
  int8_t *ref = malloc(ny), *vr = malloc(ny);
  assert_non_null(ref), assert_non_null(vr);
  conv_ref(&op, x, w, bias ? b : NULL, ref);
  vta_reference(&op, x, w, bias ? b : NULL, vr);
  size_t mid = 0;
  for (size_t i = 0; i < ny; i++) mid += ref[i] > op.clip_min && ref[i] < op.clip_max;
  if (mid * 2 < ny) fail_msg("dwp %d->%d g%d: only %zu of %zu outputs inside the clip", c, o, groups, mid, ny);
  same_bytes(vr, ref, ny, "vta_reference vs conv_ref", &op);
  same_bytes(yc->data, ref, ny, "cpu vs conv_ref", &op);
  same_bytes(ya->data, ref, ny, backend, &op);
  free(ref), free(vr);
  ovta_tensor_free(yc), ovta_tensor_free(ya);
  ovta_graph_free(g);
  free(x), free(w), free(b);
}

static void check_padded(const char *cfgname, const char *backend, int c, int hw, int o, int groups, int stride,
                         bool bias, bool relu, uint32_t seed) {
  check_padded_as(cfgname, backend, c, hw, o, groups, stride, bias, relu, seed, "node dw op ovta.QConv: accel: tile", 1);
}

static void test_padded(void **st) {
  (void)st;
  static const int cases[][4] = {{72, 72, 72, 9}, {88, 88, 88, 7}, {24, 24, 3, 8}, {40, 40, 40, 6}}; /* c, o, g, hw */
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*cf, &cfg, &err), err);
    if (cfg.block_in != cfg.block_out) continue; /* the executor's CPU fallback needs square blocks */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      for (int stride = 1; stride <= 2; stride++)
        check_padded(*cf, "fsim", cases[i][0], cases[i][3], cases[i][1], cases[i][2], stride, stride == 1, stride == 1,
                     (uint32_t)(100 + 4 * i + (size_t)stride));
  }
  /* the packed weights: 80 groups (72 + 8 all zero) of one diagonal 16x16 tile per tap */
  int64_t gk = -1, gs = -1;
  assert_int_equal(ovta_group_padded(72, 72, 72, 16, 16), 80);
  assert_true(ovta_group_blocks(72, 72, 72, 16, 16, &gk, &gs)), assert_int_equal(gk, 1), assert_int_equal(gs, 1);
  assert_int_equal(ovta_group_padded(88, 88, 88, 16, 16), 96);
  assert_int_equal(ovta_group_padded(24, 24, 3, 16, 16), 4);
  assert_true(ovta_group_blocks(24, 24, 3, 16, 16, &gk, &gs)), assert_int_equal(gk, 1), assert_int_equal(gs, 1);
  assert_int_equal(ovta_group_padded(32, 32, 32, 16, 16), 32);
  /* not a whole number of groups: 24 in 2 groups of 12 (8 to pad); 24 -> 40 in 8 groups (3 in,
   * 5 out: 8 and 8 to pad); channel multiplier 2 (72 -> 144: 8 inputs but no outputs to pad) */
  assert_int_equal(ovta_group_padded(24, 24, 2, 16, 16), -1);
  assert_false(ovta_group_blocks(24, 24, 2, 16, 16, &gk, &gs));
  assert_int_equal(ovta_group_padded(24, 40, 8, 16, 16), -1);
  assert_int_equal(ovta_group_padded(72, 144, 72, 16, 16), -1);
  /* padded exactly but straddling the blocks: 14 -> 28 in 14 groups (multiplier 2: 2 inputs and
   * 4 outputs to pad, 2 groups; 16 outputs a block read 8 inputs, half a block): every output
   * block reads the one input block (gs 0) */
  assert_int_equal(ovta_group_padded(14, 28, 14, 16, 16), 16);
  assert_true(ovta_group_blocks(14, 28, 14, 16, 16, &gk, &gs)), assert_int_equal(gk, 1), assert_int_equal(gs, 0);
  check_padded("default", "fsim", 14, 6, 28, 14, 1, true, true, 77);
  assert_int_equal(ovta_group_padded(72, 72, 5, 16, 16), -1); /* 5 does not divide 72 */
  /* the accelerator refuses the padded op's shape (5 input blocks x 460 x 460 beyond the 16-bit
   * DMA strides): the executor's fallback unpacks the padded weights to the logical ones */
  check_padded_as("default", "fsim", 72, 460, 72, 72, 2, true, true, 123,
                  "node dw op ovta.QConv: cpu (fallback, plain layout): dw: input too large", 0);
}

/* Per-channel shifts (ovta.QConv `shifts`, the quantize pass's grouped convs): around the op's
 * shift, with channels 1..4 at 0, -1 (a left shift), 31 and 40 (the sign); the rest spread by
 * -2..2. */
static int64_t pc_shifts[4096];
static vta_op pc_op(vta_op op) {
  for (int o = 0; o < op.o && o < 4096; o++) pc_shifts[o] = op.shift + o % 5 - 2;
  pc_shifts[1] = 0, pc_shifts[2] = -1, pc_shifts[3] = 31, pc_shifts[4] = 40;
  op.shifts = pc_shifts, op.shift = 0;
  return op;
}

/* The one-node graph of op on the graph executor with the accelerator (config default, backend):
 * the node on the device (its report line holds `want`), the output equal to the CPU run's and
 * conv_ref's. */
static void graph_vs_cpu(const vta_op *op, const char *backend, const char *want) {
  size_t hw = (size_t)op->h * op->w, nx = (size_t)op->c * hw, nw = (size_t)op->o * op->c / op->groups * op->kh * op->kw;
  size_t ny = (size_t)op->o * vta_op_out_h(op) * vta_op_out_w(op);
  int8_t *x = malloc(nx), *w = malloc(nw), *ref = malloc(ny);
  int32_t *b = malloc((size_t)op->o * 4);
  assert_non_null(x), assert_non_null(w), assert_non_null(b), assert_non_null(ref);
  ovta_test_fill_i8(x, nx, 191), ovta_test_fill_i8(w, nw, 192);
  for (int k = 0; k < op->o; k++) b[k] = (k * 7919 % 4001) - 2000;
  ovta_graph *g = qconv_graph(op, w, b);
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.accel = true, o.cfg = &cfg, o.backend = backend;
  int nacc = -1;
  ovta_tensor *yc = exec_run(g, NULL, op, x, NULL, NULL), *ya = exec_run(g, &o, op, x, &nacc, want);
  assert_int_equal(nacc, 1);
  assert_int_equal(yc->nbytes, ya->nbytes);
  same_bytes(ya->data, yc->data, yc->nbytes, "accelerator graph vs cpu", op);
  conv_ref(op, x, w, b, ref);
  same_bytes(yc->data, ref, yc->nbytes, "cpu vs conv_ref", op);
  ovta_tensor_free(yc), ovta_tensor_free(ya);
  ovta_graph_free(g);
  free(x), free(w), free(b), free(ref);
}

/* A per-channel dense layer M x K -> N (bias, shifts of pc_op around 9). */
static vta_op pc_dense(const char *name, int m, int k, int n) {
  vta_op op;
  vta_op_dense(&op, name, m, k, n);
  op.has_bias = true, op.shift = 9;
  return pc_op(op);
}

/* Per-channel shifts on fsim (SHR with the shifts as tensor operand, in the ACC after the bias)
 * bit for bit against conv_ref, vta_reference and the CPU int8 path, on every config (none
 * refused: where bias and shifts do not stay in the ACC each output-channel tile loads its slice),
 * depthwise and grouped, strides 1 and 2, 1 and 2 virtual threads, forced tiles; the graph
 * executor with the accelerator equal to the CPU run; refused without a bias. */
static void test_per_channel(void **st) {
  (void)st;
  int ran = 0, tiled = 0;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (size_t i = 0; i < NSHAPES; i++)
      for (int stride = 1; stride <= 2; stride++) {
        vta_op op = pc_op(gop(shapes[i].name, cfg.batch, shapes[i].c, shapes[i].hw, shapes[i].o, shapes[i].groups,
                              stride, true, stride == 1));
        vta_plan p;
        int vt = 2 - (int)(i % 2);
        OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = vt}, &p, &err), err);
        tiled += p.bias_base < 0;
        check_op(*c, &op, vt, NULL, false);
        ran++;
      }
  }
  printf("per-channel sweep: %d ran, %d with the bias and shifts per output-channel tile\n", ran, tiled);
  assert_true(ran >= 2 * 3 * (int)NSHAPES);
  vta_op op = pc_op(gop("dw_pc_t", 1, 64, 14, 64, 64, 1, true, true));
  check_op("default", &op, 2, &(vta_knobs){.t_n = 1, .t_oc = 2, .t_ic = 1, .t_h = 7, .t_w = 14}, false);
  op = pc_op(gop("plain_pc", 1, 32, 6, 48, 1, 1, true, false)); /* an ungrouped conv takes them too */
  check_op("default", &op, 2, NULL, false);
  /* the graph with the accelerator: the node on the device, equal to the CPU run and conv_ref */
  op = pc_op(gop("dwg_pc", 1, 32, 9, 32, 32, 1, true, true));
  graph_vs_cpu(&op, "fsim", "node dw op ovta.QConv: accel: tile");
  /* refused with the reason (the CPU path keeps it): no bias */
  vta_plan p;
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  op = pc_op(gop("pc_nobias", 1, 32, 8, 32, 32, 1, false, false));
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "pc_nobias: per-channel shifts need a bias"));
  /* 1024 output channels (ob 64: bias and shifts 128 ACC elements, 2 x 128 > 255 with two
   * virtual threads): held whole with one virtual thread, or each tile's slice loaded with two;
   * without the thread knob the plan takes the cheaper estimate, two threads here; all bit-exact */
  op = pc_op(gop("pc_wide", 1, 32, 3, 1024, 1, 1, true, false));
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 1}, &p, &err), err);
  assert_true(p.vt == 1 && p.bias_base >= 0);
  check_op("default", &op, 1, NULL, false);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 2}, &p, &err), err);
  assert_true(p.vt == 2 && p.bias_base < 0);
  check_op("default", &op, 2, NULL, false);
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_true(p.vt == 2 && p.bias_base < 0);
  /* 3072 output channels (convnext_tiny's MLP: ob 192, bias and shifts 384 ACC elements, more than
   * 255 with one virtual thread too): each output-channel tile loads its slice of both, so the
   * plan keeps two virtual threads; conv and dense, vt 1 and 2, forced tiles of 1, 4 and 64 blocks */
  op = pc_op(gop("pc_wider", 1, 32, 3, 3072, 1, 1, true, true));
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  assert_int_equal(p.vt, 2);
  assert_true(p.bias_base < 0);
  assert_int_equal(p.acc_tile, p.t_n * p.t_oc * p.t_h * p.t_w + 2 * p.t_oc);
  check_op("default", &op, 2, NULL, false);
  check_op("default", &op, 1, &(vta_knobs){.t_oc = 4, .vthreads = 1}, false);
  vta_op d = pc_dense("pc_dense", 1, 256, 3072);
  check_op("default", &d, 2, NULL, false);
  check_op("default", &d, 2, &(vta_knobs){.t_oc = 1, .t_ic = 4, .vthreads = 2}, false);
  check_op("default", &d, 2, &(vta_knobs){.t_oc = 64, .vthreads = 2}, false);
  /* the executor: a 1x1 conv 64 -> 2304 (bias and shifts 288 ACC elements) on the accelerator */
  vta_op_conv(&op, "pc_wide1x1", 1, 64, 3, 3, 2304, 1, 1, 0);
  op.has_bias = true, op.shift = 8;
  op = pc_op(op);
  graph_vs_cpu(&op, "fsim", "node dw op ovta.QConv: accel: tile");
}

static void test_tsim(void **st) {
  (void)st;
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (!have) skip();
  vta_plan p;
  vta_op op = gop("dw_tsim", 1, 32, 8, 32, 32, 2, true, true);
  plan_of("default", &op, 2, NULL, false, &p);
  vta_check_plan("tsim", &p, 0, true);
  op = gop("g2_tsim", 1, 64, 6, 64, 2, 1, false, false);
  plan_of("default", &op, 2, NULL, false, &p);
  vta_check_plan("tsim", &p, 0, true);
  check_padded("default", "tsim", 72, 7, 72, 72, 2, true, true, 77); /* 72 channels padded to 80 groups */
  op = pc_op(gop("dw_pc_tsim", 1, 32, 8, 32, 32, 1, true, true)); /* per-channel shifts: SHR with a tensor operand */
  plan_of("default", &op, 2, NULL, false, &p);
  vta_check_plan("tsim", &p, 0, true);
  /* too wide for the ACC: bias and shifts per output-channel tile, two virtual threads; the dense
   * layer against the references and the CPU int8 path, the conv through the executor */
  vta_op d = pc_dense("pc_dense_tsim", 1, 64, 3072);
  plan_of("default", &d, 2, NULL, false, &p);
  assert_true(p.bias_base < 0 && p.vt == 2);
  vta_check_plan_also("tsim", &p, 0, true, also_cpu);
  vta_op_conv(&op, "pc_wide_tsim", 1, 32, 2, 2, 2304, 1, 1, 0);
  op.has_bias = true, op.shift = 8;
  op = pc_op(op);
  graph_vs_cpu(&op, "tsim", "node dw op ovta.QConv: accel: tile");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plan),  cmocka_unit_test(test_sweep), cmocka_unit_test(test_tiles),
      cmocka_unit_test(test_tilings),
      cmocka_unit_test(test_graph), cmocka_unit_test(test_padded), cmocka_unit_test(test_per_channel),
      cmocka_unit_test(test_tsim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
