/* The `schedule` stage built by schedule primitives (compiler/accel/accel.h, compiler/accel/README.md "Passes"
 * 2 and "Schedule primitives"): vta_lower(plan, VTA_S_SCHEDULE) applies the plan's primitive
 * script (split, reorder, rename, fission, set_scope, cache_read, compute_at, vthread,
 * hoist_alloc) to the compute stage. Each case checks the result with vta_sched_verify, compiles
 * it on the CPU JIT (accelerator scopes mapped to local, vta_sched_cpu_scopes) and compares every
 * output byte with the plain-C reference vta_reference, bit for bit.
 *
 * Cases: ResNet-18 C2..C11 reduced (/4, as tests/vta/test_vta.c) on every config (default, small,
 * batch2) with 1 and 2 virtual threads; dense with a shared and a per-tile bias; bias-free convs
 * (rounding constant as the initial value; shift 20); forced tilings (several reduction steps);
 * the fission primitive's refusal of an illegal distribution. */
#include "vta_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const layer resnet[] = VTA_RESNET18_LAYERS;
#define NLAYERS (sizeof resnet / sizeof resnet[0])

/* Lower op's schedule stage on cfgname with vt threads (knobs optional), run it on the CPU JIT,
 * compare with vta_reference. */
static void check_sched(const char *cfgname, const vta_op *op, int vt, const vta_knobs *kn) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  vta_knobs k = {0};
  if (kn) k = *kn;
  k.vthreads = vt;
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, op, &k, &p, &err), err);
  lir_func *f = NULL;
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "sched", &f, &err), err);
  OVTA_ASSERT_OK(vta_sched_verify(f, &err), err);
  /* the buffers of the plan: parts x tile shapes in their scopes */
  bool seen_acc = false, seen_inp = false, seen_wgt = false;
  for (int i = 0; i < f->nbufs; i++) {
    const lir_buf *b = f->bufs[i];
    if (!strcmp(b->name, "acc_buf")) {
      seen_acc = true;
      assert_int_equal(b->scope, LIR_SCOPE_ACC);
      int64_t want[7] = {p.vt, p.t_n, p.t_oc, p.t_h, p.t_w, cfg.batch, cfg.block_out};
      assert_int_equal(b->ndim, 7);
      for (int d = 0; d < 7; d++) assert_int_equal(b->shape[d], want[d]);
    } else if (!strcmp(b->name, "wgt_buf")) {
      seen_wgt = true;
      assert_int_equal(b->scope, LIR_SCOPE_WGT);
      int64_t want[7] = {p.vt, p.t_oc, p.t_ic, op->kh, op->kw, cfg.block_out, cfg.block_in};
      for (int d = 0; d < 7; d++) assert_int_equal(b->shape[d], want[d]);
    } else if (!strcmp(b->name, "inp_buf")) {
      seen_inp = true;
      assert_int_equal(b->scope, LIR_SCOPE_INP);
      assert_int_equal(b->shape[0], p.vt);
      assert_int_equal(b->shape[2], p.t_ic);
      if (p.in_rs == 1) assert_int_equal(b->shape[3], p.in_h), assert_int_equal(b->shape[4], p.in_w);
    }
  }
  assert_true(seen_acc && seen_inp && seen_wgt);
  size_t nx = vta_x_bytes(&p), nw = vta_w_bytes(&p), ny = vta_y_bytes(&p), nb = vta_bias_bytes(&p);
  int8_t *x = malloc(nx), *w = malloc(nw), *px = malloc(nx), *pw = malloc(nw), *py = calloc(ny, 1), *y = malloc(ny),
         *ref = malloc(ny);
  int32_t *b = malloc((size_t)op->o * 4), *pb = malloc(nb);
  assert_true(x && w && px && pw && py && y && ref && b && pb);
  ovta_test_fill_i8(x, nx, 11), ovta_test_fill_i8(w, nw, 12);
  for (int i = 0; i < op->o; i++) b[i] = (i * 7919 % 4001) - 2000;
  vta_reference(op, x, w, op->has_bias ? b : NULL, ref);
  vta_pack_x(&p, x, px), vta_pack_w(&p, w, pw);
  if (op->has_bias) vta_pack_bias(&p, b, pb);
  /* the CPU JIT of the scheduled function (parameters x, w, [bias,] y) */
  vta_sched_cpu_scopes(f);
  lir_codegen_opts o;
  lir_codegen_opts_init(&o);
  lir_module *m = NULL;
  lir_jit *j = NULL;
  void *fn = NULL;
  OVTA_ASSERT_OK(lir_module_new("sched", &o, &m, &err), err);
  OVTA_ASSERT_OK(lir_module_add(m, f, &err), err);
  OVTA_ASSERT_OK(lir_module_optimize(m, &err), err);
  OVTA_ASSERT_OK(lir_jit_new(&j, &err), err);
  OVTA_ASSERT_OK(lir_jit_add_module(j, m, &err), err);
  OVTA_ASSERT_OK(lir_jit_lookup(j, f->name, &fn, &err), err);
  void *args[4];
  int na = 0;
  args[na++] = px, args[na++] = pw;
  if (op->has_bias) args[na++] = pb;
  args[na++] = py;
  assert_int_equal(na, f->nparams);
  ((lir_kernel_fn)fn)(args);
  vta_unpack_y(&p, py, y);
  size_t bad = 0, first = ny, mid = 0;
  for (size_t i = 0; i < ny; i++) {
    if (y[i] != ref[i] && first == ny) first = i;
    bad += y[i] != ref[i];
    mid += ref[i] > op->clip_min && ref[i] < op->clip_max;
  }
  if (bad)
    fail_msg("%s %s vt %d: %zu of %zu outputs differ, first at %zu: %d, expected %d", op->name, cfgname, vt, bad, ny,
             first, y[first], ref[first]);
  assert_true(mid > ny / 8); /* not vacuous: most outputs inside the clip */
  lir_jit_free(j);
  lir_module_free(m);
  lir_func_free(f);
  free(x), free(w), free(px), free(pw), free(py), free(y), free(ref), free(b), free(pb);
}

static void test_resnet_reduced(void **st) {
  (void)st;
  each_resnet_layer(4, check_sched);
}

/* forced tilings: several reduction steps (t_ic 1), several tiles per dimension, odd halos */
static void test_tilings(void **st) {
  (void)st;
  vta_op op;
  layer_op(&resnet[3], 4, 1, &op); /* C5 reduced: 32 channels, 7x7, 3x3 pad 1 */
  vta_knobs k = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 1, .t_w = 7};
  for (int vt = 1; vt <= 2; vt++) check_sched("default", &op, vt, &k);
  layer_op(&resnet[1], 4, 1, &op); /* C3 reduced: stride 2 */
  k = (vta_knobs){.t_n = 1, .t_oc = 2, .t_ic = 1, .t_h = 7, .t_w = 1};
  for (int vt = 1; vt <= 2; vt++) check_sched("default", &op, vt, &k);
}

/* dense: the whole bias shared, and (2048 outputs) per-tile bias copies; bias-free ops whose
 * accumulators start from the rounding constant (shift 20: beyond the 16-bit immediate) */
static void test_dense_and_no_bias(void **st) {
  (void)st;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (int vt = 1; vt <= 2; vt++) {
      vta_op op;
      vta_op_dense(&op, "fc", 8 * cfg.batch, 512, 64);
      op.has_bias = true, op.shift = 10;
      check_sched(*c, &op, vt, NULL);
      vta_op_dense(&op, "wide", 2 * cfg.batch, 64, 2048);
      op.has_bias = true, op.shift = 8;
      check_sched(*c, &op, vt, NULL);
      vta_op_conv(&op, "nobias", cfg.batch, 32, 8, 8, 32, 3, 1, 1);
      op.shift = 9;
      check_sched(*c, &op, vt, NULL);
      op.shift = 20;
      op.clip_min = -4, op.clip_max = 4;
      check_sched(*c, &op, vt, NULL);
    }
  }
}

/* the plan behind the wide dense really keeps its bias per tile (the per-tile copy is tested) */
static void test_per_tile_bias_plan(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_op_dense(&op, "wide", 2 * cfg.batch, 64, 2048);
  op.has_bias = true, op.shift = 8;
  vta_knobs k = {.vthreads = 2};
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &k, &p, &err), err);
  assert_true(p.bias_base < 0);
  lir_func *f = NULL;
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "sched", &f, &err), err);
  bool found = false;
  for (int i = 0; i < f->nbufs; i++)
    if (!strcmp(f->bufs[i]->name, "bias_buf")) {
      found = true;
      assert_int_equal(f->bufs[i]->ndim, 4); /* [vt, t_oc, B, BO] */
      assert_int_equal(f->bufs[i]->shape[0], 2);
      assert_int_equal(f->bufs[i]->shape[1], p.t_oc);
    }
  assert_true(found);
  lir_func_free(f);
}

/* fission refuses a distribution that would reorder a buffer's writes and reads: the matmul
 * C[i, j] = 0; for k: C[i, j] += .. (C is written by both statements, not an expanded buffer) */
static void test_fission_refused(void **st) {
  (void)st;
  lir_func *f = lir_func_new("mm");
  assert_non_null(f);
  int64_t as[2] = {4, 3}, cs[2] = {4, 4};
  lir_buf *A = lir_param(f, "A", LIR_I8, 2, as), *B = lir_param(f, "B", LIR_I8, 2, as), *C = lir_param(f, "C", LIR_I32, 2, cs);
  lir_var *i = lir_var_new(f, "i", LIR_I64), *jv = lir_var_new(f, "j", LIR_I64), *kv = lir_var_new(f, "k", LIR_I64);
  lir_expr *ci[2] = {lir_ref(f, i), lir_ref(f, jv)}, *ai[2] = {lir_ref(f, i), lir_ref(f, kv)},
           *bi[2] = {lir_ref(f, jv), lir_ref(f, kv)};
  lir_expr *prod = lir_bin(f, LIR_MUL, lir_cast(f, LIR_I32, lir_load(f, A, ai)), lir_cast(f, LIR_I32, lir_load(f, B, bi)));
  lir_stmt *two[2] = {lir_store(f, C, ci, lir_int(f, LIR_I32, 0)),
                      lir_for(f, kv, lir_i64(f, 0), lir_i64(f, 3), LIR_FOR_SERIAL,
                              lir_store(f, C, ci, lir_bin(f, LIR_ADD, lir_load(f, C, ci), prod)))};
  f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, 4), LIR_FOR_SERIAL,
                    lir_for(f, jv, lir_i64(f, 0), lir_i64(f, 4), LIR_FOR_SERIAL, lir_seq(f, 2, two)));
  vta_sched s;
  vta_sched_init(&s, f);
  ovta_error err = {0};
  assert_int_equal(vta_sched_fission(&s, "i", &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "C is written by statement 1 and accessed by statement 2"));
  assert_int_equal(vta_sched_fission(&s, "nope", &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "no loop 'nope'"));
  assert_int_equal(vta_sched_fission(&s, "k", &err), OVTA_EINVAL); /* no sequence under k */
  lir_func_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resnet_reduced),
      cmocka_unit_test(test_tilings),
      cmocka_unit_test(test_dense_and_no_bias),
      cmocka_unit_test(test_per_tile_bias_plan),
      cmocka_unit_test(test_fission_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
