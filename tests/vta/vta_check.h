/* vta_check.h: run an accelerator plan through the whole lowering on a backend and compare its
 * output with a plain-C int8 reference written here (tests/vta/test_vta.c, test_vta_passes.c). */
#ifndef OVTA_TEST_VTA_CHECK_H
#define OVTA_TEST_VTA_CHECK_H

#include "ovta_test.h"
#include "ovta_driver.h"
#include "ovta_runtime.h"
#include "accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ResNet-18's convolutions C2..C11: input size, channels in and out, kernel, stride (pad k/2). */
typedef struct layer { const char *name; int hw, c, o, k, s; } layer;
#define VTA_RESNET18_LAYERS                                                                      \
  {                                                                                              \
    {"C2", 56, 64, 64, 3, 1}, {"C3", 56, 64, 128, 3, 2}, {"C4", 56, 64, 128, 1, 2},              \
        {"C5", 28, 128, 128, 3, 1}, {"C6", 28, 128, 256, 3, 2}, {"C7", 28, 128, 256, 1, 2},      \
        {"C8", 14, 256, 256, 3, 1}, {"C9", 14, 256, 512, 3, 2}, {"C10", 14, 256, 512, 1, 2},     \
        {"C11", 7, 512, 512, 3, 1},                                                              \
  }

/* Layer l with channels and size / div (at least one block of 16 and 4 pixels), n images, bias,
 * ReLU, and a shift that keeps most outputs inside the clip: a product of two random int8 has a
 * standard deviation near 5461, so aim at about 40 after the shift (sqrt(C*K*K) terms). */
static inline void layer_op(const layer *l, int div, int n, vta_op *op) {
  int hw = l->hw / div, c = l->c / div, o = l->o / div;
  if (hw < 4) hw = 4;
  if (c < 16) c = 16;
  if (o < 16) o = 16;
  vta_op_conv(op, l->name, n, c, hw, hw, o, l->k, l->s, l->k / 2);
  op->has_bias = true;
  double target = 5461.0 * sqrt((double)(c * l->k * l->k)) / 40.0;
  int sh = 0;
  while ((double)(1 << sh) < target) sh++;
  op->shift = sh;
  op->clip_min = 0;
}

/* fn(config, op, vt, NULL) for ResNet-18 C2..C11 with channels and size / div (layer_op, one batch
 * block of images) on every config of ovta_test_configs(), 1 and 2 virtual threads. */
static inline void each_resnet_layer(int div, void (*fn)(const char *, const vta_op *, int, const vta_knobs *)) {
  static const layer resnet18[] = VTA_RESNET18_LAYERS;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (size_t i = 0; i < sizeof resnet18 / sizeof resnet18[0]; i++)
      for (int vt = 1; vt <= 2; vt++) {
        vta_op op;
        layer_op(&resnet18[i], div, cfg.batch, &op);
        fn(*c, &op, vt, NULL);
      }
  }
}

/* The plan of op on cfgname with vt threads (tile knobs optional); false when the planner refuses
 * it (the knobs do not fit or divide), which fails the test unless may_refuse. */
static inline bool plan_of(const char *cfgname, const vta_op *op, int vt, const vta_knobs *kn, bool may_refuse,
                           vta_plan *p) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  vta_knobs k = {0};
  if (kn) k = *kn;
  k.vthreads = vt;
  int rc = vta_plan_make(&cfg, op, &k, p, &err);
  if (rc && !may_refuse) OVTA_ASSERT_OK(rc, err);
  return rc == OVTA_OK;
}

/* The plan of the example of tests/vta/conv.test: conv2d 8x8x32 -> 32, 3x3, stride 2, pad 1, bias,
 * shift 9, ReLU, tile n1 oc1 ic1 h2 w4, 2 virtual threads (2 reduction steps). */
static inline void example_plan(vta_plan *p) {
  vta_op op;
  vta_op_conv(&op, "example", 1, 32, 8, 8, 32, 3, 2, 1);
  op.has_bias = true, op.shift = 9, op.clip_min = 0;
  vta_knobs k = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 2, .t_w = 4};
  plan_of("default", &op, 2, &k, false, p);
}

/* The text dump of f (caller frees); f is freed. */
static inline char *dump_of(lir_func *f) {
  char *s = lir_dump_str(f);
  assert_non_null(s);
  lir_func_free(f);
  return s;
}

/* The reference, written out here on logical NCHW / OIHW tensors (not vta_reference; grouped:
 * W [O][C/groups][KH][KW], output channel o sums over the C/groups input channels of its group
 * o / (O/groups), as ONNX Conv): int32 sum plus bias, the rounding constant 2^(shift-1) for shifts 1..31, then the SHR rule of isa/ISA.md
 * (>= 32: sign; -31..-1: left shift, wrapping; <= -32: 0), then the clip. */
static inline void conv_ref(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *b, int8_t *y) {
  int OH = (op->h + op->pad_t + op->pad_b - op->kh) / op->stride_h + 1;
  int OW = (op->w + op->pad_l + op->pad_r - op->kw) / op->stride_w + 1;
  for (int n = 0; n < op->n; n++)
    for (int o = 0; o < op->o; o++)
      for (int i = 0; i < OH; i++)
        for (int j = 0; j < OW; j++) {
          int64_t acc = b ? b[o] : 0;
          int G = op->groups > 1 ? op->groups : 1, cg = op->c / G, g = o / (op->o / G);
          for (int c = 0; c < cg; c++)
            for (int u = 0; u < op->kh; u++)
              for (int v = 0; v < op->kw; v++) {
                int ih = i * op->stride_h - op->pad_t + u, iw = j * op->stride_w - op->pad_l + v;
                if (ih >= 0 && ih < op->h && iw >= 0 && iw < op->w)
                  acc += x[((n * op->c + g * cg + c) * op->h + ih) * op->w + iw] * w[((o * cg + c) * op->kh + u) * op->kw + v];
              }
          int32_t a = (int32_t)acc; /* sums here stay far inside int32 */
          int s = op->shifts ? (int)op->shifts[o] : op->shift; /* per-channel shifts: channel o's */
          if (s >= 1 && s <= 31) a = (int32_t)((uint32_t)a + (1u << (s - 1)));
          if (s >= 32) a = a < 0 ? -1 : 0;
          else if (s >= 0) a >>= s;
          else a = s <= -32 ? 0 : (int32_t)((uint32_t)a << -s);
          if (a < op->clip_min) a = op->clip_min;
          if (a > op->clip_max) a = op->clip_max;
          y[((n * op->o + o) * OH + i) * OW + j] = (int8_t)a;
        }
}

/* Another reference the caller compares on the inputs of vta_check_plan_also (logical x, w, bias
 * or NULL, conv_ref's output). */
typedef void (*vta_check_also_fn)(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *b,
                                  const int8_t *ref);

/* Compile plan p (vta_compile: every stage, the host code through LLVM), run it on backend (fsim:
 * modules interleaved by seed), compare every output byte with conv_ref (and, when also is not
 * NULL, let it compare conv_ref's output with its own reference). mid: also require most
 * outputs inside the clip (a shift chosen so the check is not vacuous). Also checks the device's
 * GEMM/ALU micro-op counts against the dry count and the lowering's ALU passes per output. */
static inline void vta_check_plan_also(const char *backend, const vta_plan *pp, uint64_t seed, bool mid_check,
                                       vta_check_also_fn also) {
  ovta_error err = {0};
  vta_plan p = *pp;
  ovta_config cfg = p.cfg;
  const vta_op *op = &p.op;
  int vt = p.vt;
  const char *cfgname = cfg.name;
  vta_kernel *kern;
  OVTA_ASSERT_OK(vta_compile(&p, NULL, NULL, &kern, &err), err);
  size_t nx = vta_x_bytes(&p), nw = vta_w_bytes(&p), ny = vta_y_bytes(&p), nb = vta_bias_bytes(&p);
  int8_t *x = malloc(nx), *w = malloc(nw), *px = malloc(nx), *pw = malloc(nw), *py = malloc(ny), *y = malloc(ny),
         *ref = malloc(ny);
  int32_t *b = malloc((size_t)op->o * 4), *pb = malloc(nb);
  assert_non_null(x), assert_non_null(w), assert_non_null(px), assert_non_null(pw), assert_non_null(py);
  assert_non_null(y), assert_non_null(ref), assert_non_null(b), assert_non_null(pb);
  ovta_test_fill_i8(x, nx, (uint32_t)seed + 11), ovta_test_fill_i8(w, nw, (uint32_t)seed + 12);
  for (int i = 0; i < op->o; i++) b[i] = (i * 7919 % 4001) - 2000;
  conv_ref(op, x, w, op->has_bias ? b : NULL, ref);
  if (also) also(op, x, w, op->has_bias ? b : NULL, ref);
  vta_pack_x(&p, x, px), vta_pack_w(&p, w, pw), vta_pack_bias(&p, b, pb);
  ovta_dev_opts o = {0};
  o.seed = seed;
  ovta_dev *dev;
  OVTA_ASSERT_OK(ovta_dev_open(backend, &cfg, &o, &dev, &err), err);
  ovta_buf *bufs[VTA_BUF_COUNT] = {0};
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, nx, &bufs[VTA_BUF_X], &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, nw, &bufs[VTA_BUF_W], &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, nb, &bufs[VTA_BUF_BIAS], &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, ny, &bufs[VTA_BUF_Y], &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(bufs[VTA_BUF_X], 0, px, nx, &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(bufs[VTA_BUF_W], 0, pw, nw, &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(bufs[VTA_BUF_BIAS], 0, pb, nb, &err), err);
  ovta_rt *rt;
  OVTA_ASSERT_OK(ovta_rt_create(dev, NULL, &rt, &err), err);
  OVTA_ASSERT_OK(vta_kernel_issue(kern, rt, bufs, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 600000, &err), err);
  OVTA_ASSERT_OK(ovta_buf_read(bufs[VTA_BUF_Y], 0, py, ny, &err), err);
  vta_unpack_y(&p, py, y);
  size_t bad = 0, first = ny, mid = 0;
  for (size_t i = 0; i < ny; i++) {
    if (y[i] != ref[i] && first == ny) first = i;
    bad += y[i] != ref[i];
    mid += ref[i] > op->clip_min && ref[i] < op->clip_max;
  }
  if (bad)
    fail_msg("%s %s/%s vt %d seed %llu: %zu of %zu outputs differ, first at %zu: %d, expected %d", op->name, backend,
             cfgname, vt, (unsigned long long)seed, bad, ny, first, y[first], ref[first]);
  if (mid_check) assert_true(mid > ny / 4); /* the shift keeps most outputs unclamped: not vacuous */
  /* the device did the GEMM work the dry count predicts, when the stream ran in one go */
  vta_counts cnt;
  OVTA_ASSERT_OK(vta_kernel_count(kern, &cnt, &err), err);
  ovta_rt_stats st;
  ovta_rt_stats_get(rt, &st);
  if (st.runs == 1) {
    ovta_counters dc;
    ovta_dev_counters(dev, &dc);
    assert_int_equal(dc.gemm_uops, cnt.gemm_uops);
    assert_int_equal(dc.alu_uops, cnt.alu_uops);
  }
  /* GEMM micro-ops are MAC blocks only (no reset pass: the ALU MOV starts each accumulator from
   * the bias); the ALU runs per output element the init (MOV; bias-free with shift 16..31: MOV 1
   * and a left shift), then one RQ (one shift > 0, hi int8, lo -128, 0, -hi or -hi-1: isa/ISA.md)
   * or SHR (shift != 0) and CLP (int8 bounds, else MAX + MIN) */
  int64_t macs_blocks = vta_op_macs(op) / ((int64_t)cfg.batch * cfg.block_in * cfg.block_out);
  if (op->groups > 1) /* grouped: each output block multiplies its gk input blocks (block-diagonal tiles) */
    macs_blocks = (int64_t)op->n / cfg.batch * (op->o / cfg.block_out) * p.oh * p.ow * p.gk * op->kh * op->kw;
  int64_t outs = (int64_t)op->n / cfg.batch * (op->o / cfg.block_out) * p.oh * p.ow;
  assert_int_equal((int64_t)cnt.gemm_uops, macs_blocks);
  bool i8clip = op->clip_min >= -128 && op->clip_min <= 127 && op->clip_max >= -128 && op->clip_max <= 127;
  int lo = op->clip_min, hi = op->clip_max;
  bool rq = !op->shifts && op->shift > 0 && hi >= -128 && hi <= 127 && (lo == -128 || lo == 0 || lo == -hi || lo == -hi - 1);
  int passes = (!op->has_bias && op->shift >= 16 && op->shift <= 31 ? 2 : 1) +
               (rq ? 1 : (op->shift != 0 || op->shifts) + (i8clip ? 1 : 2));
  assert_int_equal((int64_t)cnt.alu_uops, outs * passes);
  ovta_rt_destroy(rt);
  ovta_dev_close(dev);
  vta_kernel_free(kern);
  free(x), free(w), free(px), free(pw), free(py), free(y), free(ref), free(b), free(pb);
}

static inline void vta_check_plan(const char *backend, const vta_plan *pp, uint64_t seed, bool mid_check) {
  vta_check_plan_also(backend, pp, seed, mid_check, NULL);
}

/* Plan op on cfgname with vt threads (tile knobs optional) and check it (vta_check_plan). */
static inline void run_op(const char *backend, const char *cfgname, const vta_op *op, int vt, const vta_knobs *kn,
                          uint64_t seed) {
  vta_plan p;
  plan_of(cfgname, op, vt, kn, false, &p);
  vta_check_plan(backend, &p, seed, true);
}

#endif
