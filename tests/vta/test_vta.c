/* Accelerator lowering tests (compiler/accel/accel.h): conv2d and dense compiled through every stage to
 * host code, issued on the runtime and run on every backend of OVTA_TEST_BACKENDS, compared bit
 * for bit with a plain-C int8 reference computed here from the logical inputs.
 *
 * ResNet-18 layers C2..C11, with 1 and 2 virtual threads: reduced shapes (channels / 4, spatial
 * size / 4, at least one block) on every config; full-size layers on default (three of them; all ten
 * with OVTA_VTA_FULL=1, on every config: `make test-vta-full`). On fsim every case also runs with
 * a random module interleaving, so a missing dependency token gives a wrong result. */
#include "vta_check.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

static const layer resnet[] = VTA_RESNET18_LAYERS;
#define NLAYERS (sizeof resnet / sizeof resnet[0])

static void every_backend(const char *cfg, const vta_op *op, int vt, const vta_knobs *k) {
  for (const char *const *b = ovta_test_backends(); *b; b++) {
    run_op(*b, cfg, op, vt, k, 0);
    if (!strcmp(*b, "fsim")) run_op(*b, cfg, op, vt, k, 0x5eed + (uint64_t)vt);
  }
}

static void test_resnet_reduced(void **st) {
  (void)st;
  each_resnet_layer(4, every_backend);
}

static void test_resnet_full(void **st) {
  (void)st;
  bool all = getenv("OVTA_VTA_FULL") && *getenv("OVTA_VTA_FULL") == '1';
  static const int some[] = {0, 4, 9}; /* C2, C6, C11 */
  const char *const def[] = {"default", NULL};
  for (const char *const *c = all ? ovta_test_configs() : def; *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (size_t j = 0; j < (all ? NLAYERS : 3); j++)
      for (int vt = 1; vt <= 2; vt++) {
        vta_op op;
        layer_op(&resnet[all ? j : (size_t)some[j]], 1, cfg.batch, &op);
        every_backend(*c, &op, vt, NULL);
      }
  }
}

static void test_dense(void **st) {
  (void)st;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (int vt = 1; vt <= 2; vt++) {
      vta_op op;
      vta_op_dense(&op, "fc", 8 * cfg.batch, 512, 64); /* ResNet-18's fc in, a 64-wide slice */
      op.has_bias = true, op.shift = 10;
      every_backend(*c, &op, vt, NULL);
      vta_op_dense(&op, "mm", 32 * cfg.batch, 64, 96);
      op.shift = 8, op.clip_min = -100, op.clip_max = 100;
      every_backend(*c, &op, vt, NULL);
      /* 2048 outputs: too many bias elements to hold for the whole op, each tile loads its own */
      vta_op_dense(&op, "wide", 2 * cfg.batch, 64, 2048);
      op.has_bias = true, op.shift = 7;
      ovta_error err2 = {0};
      vta_plan p;
      OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 2}, &p, &err2), err2);
      assert_true(p.bias_base < 0);
      every_backend(*c, &op, vt, NULL);
    }
  }
}

/* tile knobs change the schedule, never the result; the tuning JSON sets them */
static void test_knobs(void **st) {
  (void)st;
  vta_op op;
  vta_op_conv(&op, "k", 1, 64, 14, 14, 64, 3, 1, 1);
  op.shift = 11, op.has_bias = true;
  vta_knobs ks[] = {{1, 1, 1, 1, 14, 0, 0, 0}, {1, 4, 4, 2, 7, 0, 0, 0}, {1, 2, 2, 7, 2, 0, 0, 0}, {1, 1, 4, 14, 14, 0, 0, 0}};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    for (int vt = 1; vt <= 2; vt++) run_op("fsim", "default", &op, vt, &ks[i], 3);
  ovta_error err = {0};
  vta_knobs k = {0};
  OVTA_ASSERT_OK(vta_knobs_from_json("{\"default\": {\"vthreads\": 1}, \"ops\": {\"k\": {\"t_oc\": 2, \"t_h\": 7}}}",
                                     "t", "k", &k, &err),
                 err);
  assert_int_equal(k.vthreads, 1), assert_int_equal(k.t_oc, 2), assert_int_equal(k.t_h, 7), assert_int_equal(k.t_w, 0);
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &k, &p, &err), err);
  assert_int_equal(p.t_oc, 2), assert_int_equal(p.t_h, 7), assert_int_equal(p.vt, 1);
  /* bad knobs and bad JSON are errors naming the op / the knob */
  k.t_h = 5;
  assert_int_equal(vta_plan_make(&cfg, &op, &k, &p, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "t_h"));
  assert_int_equal(vta_knobs_from_json("{\"ops\": {\"k\": {\"t_q\": 1}}}", "t", "k", &k, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "t_q"));
  /* a tile too large for the SRAMs */
  vta_knobs big = {1, 4, 4, 14, 14, 2, 0, 0};
  OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
  op.c = op.o = 32; /* 4 blocks of 8 */
  assert_int_equal(vta_plan_make(&cfg, &op, &big, &p, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "no tiling fits"));
}

/* what cannot run on the accelerator is refused with a reason (the CPU path takes it) */
static void test_unsupported(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_plan p;
  vta_op_conv(&op, "odd", 1, 24, 8, 8, 16, 3, 1, 1);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "odd"));
  vta_op_conv(&op, "sh", 1, 16, 8, 8, 16, 3, 1, 1);
  op.shift = 20; /* fine since the rounding constant is the ACC's initial value (not an ADD immediate) */
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  op.shift = 40000; /* the SHR immediate is 16 bits */
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "16-bit immediates"));
  op.shift = 3, op.clip_min = -40000;
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  vta_op_conv(&op, "pad", 1, 16, 8, 8, 16, 3, 1, 16);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
  vta_op_conv(&op, "neg", 1, 16, 8, 8, 16, 0, 1, 0);
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EINVAL);
}

/* negative and large shifts, clip ranges, with and without bias: the ALU program (MOV init, SHR,
 * CLP or MAX + MIN) matches the reference semantics; 1 and 2 virtual threads */
static void test_requant_edges(void **st) {
  (void)st;
  static const int shifts[] = {0, 1, 12, 15, 16, 20, 31, 32, 40, -1, -5, -40};
  static const int clips[][2] = {{-128, 127}, {0, 127}, {-20, 90}, {-300, 300}, {-1000, 5}};
  for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++)
    for (size_t c = 0; c < sizeof clips / sizeof clips[0]; c++)
      for (int bias = 0; bias < 2; bias++) {
        vta_op op;
        vta_op_dense(&op, "rq", 16, 32, 32);
        op.shift = shifts[i], op.has_bias = bias;
        op.clip_min = clips[c][0], op.clip_max = clips[c][1];
        ovta_error err = {0};
        ovta_config cfg;
        OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
        vta_plan p;
        OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &(vta_knobs){.vthreads = 1 + (int)(i % 2)}, &p, &err), err);
        vta_kernel *k;
        OVTA_ASSERT_OK(vta_compile(&p, NULL, NULL, &k, &err), err);
        /* run and compare with vta_reference (shift semantics of isa/ISA.md SHR); biases large
         * enough for every shift to matter, the rounding constant folded in by the packing */
        size_t nx = vta_x_bytes(&p), nw = vta_w_bytes(&p), ny = vta_y_bytes(&p), nb = vta_bias_bytes(&p);
        int8_t x[16 * 32], w[32 * 32], px[16 * 32], pw[32 * 32], py[16 * 32], y[16 * 32], ref[16 * 32];
        int32_t b[32], pb[32];
        assert_true(nb <= sizeof pb);
        ovta_test_fill_i8(x, nx, 5), ovta_test_fill_i8(w, nw, 6);
        for (int o = 0; o < 32; o++) b[o] = o * 70001 - 1100000 + (o == 7 ? INT32_MAX - 2000000 : 0);
        vta_reference(&op, x, w, bias ? b : NULL, ref);
        vta_pack_x(&p, x, px), vta_pack_w(&p, w, pw), vta_pack_bias(&p, b, pb);
        ovta_dev *dev;
        OVTA_ASSERT_OK(ovta_dev_open("fsim", &cfg, NULL, &dev, &err), err);
        ovta_buf *bf[VTA_BUF_COUNT] = {0};
        OVTA_ASSERT_OK(ovta_buf_alloc(dev, nx, &bf[0], &err), err);
        OVTA_ASSERT_OK(ovta_buf_alloc(dev, nw, &bf[1], &err), err);
        OVTA_ASSERT_OK(ovta_buf_alloc(dev, nb, &bf[2], &err), err);
        OVTA_ASSERT_OK(ovta_buf_alloc(dev, ny, &bf[3], &err), err);
        OVTA_ASSERT_OK(ovta_buf_write(bf[0], 0, px, nx, &err), err);
        OVTA_ASSERT_OK(ovta_buf_write(bf[1], 0, pw, nw, &err), err);
        OVTA_ASSERT_OK(ovta_buf_write(bf[2], 0, pb, nb, &err), err);
        if (!bias) ovta_buf_free(bf[2]), bf[2] = NULL; /* a bias-free op reads no bias buffer */
        ovta_rt *rt;
        OVTA_ASSERT_OK(ovta_rt_create(dev, NULL, &rt, &err), err);
        OVTA_ASSERT_OK(vta_kernel_issue(k, rt, bf, &err), err);
        OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 60000, &err), err);
        OVTA_ASSERT_OK(ovta_buf_read(bf[3], 0, py, ny, &err), err);
        vta_unpack_y(&p, py, y);
        if (memcmp(y, ref, ny)) fail_msg("shift %d clip %d..%d bias %d: differs", op.shift, op.clip_min, op.clip_max, bias);
        ovta_rt_destroy(rt);
        ovta_dev_close(dev);
        vta_kernel_free(k);
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resnet_reduced), cmocka_unit_test(test_resnet_full), cmocka_unit_test(test_dense),
      cmocka_unit_test(test_knobs),          cmocka_unit_test(test_unsupported), cmocka_unit_test(test_requant_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
