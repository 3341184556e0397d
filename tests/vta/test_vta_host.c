/* Host code through LLVM (compiler/accel/accel.h, vta_compile): the host-stage loop IR of conv2d and dense
 * is compiled by codegen.c into a JIT that calls the runtime shims ovta_vrt_* as external symbols.
 * For each case the LLVM host function and the reference IR walker issue onto two queues: the
 * instruction streams must be identical instruction for instruction, the dry-run counts equal,
 * and both device results bit-exact with the plain-C int8 reference of vta_check.h. Also: the host
 * function in an object file keeps the runtime calls as undefined symbols and runs again after
 * loading that object into a fresh JIT (the deployment path of `ovta compile`). */
#include "vta_check.h"

#include <stdlib.h>
#include <string.h>

typedef struct side {
  ovta_dev *dev;
  ovta_rt *rt;
  ovta_buf *bufs[VTA_BUF_COUNT];
} side;

static void side_open(side *s, const char *backend, const ovta_config *cfg, const vta_plan *p, const int8_t *px,
                      const int8_t *pw, const int32_t *pb) {
  ovta_error err = {0};
  memset(s, 0, sizeof *s);
  OVTA_ASSERT_OK(ovta_dev_open(backend, cfg, NULL, &s->dev, &err), err);
  size_t sz[VTA_BUF_COUNT] = {vta_x_bytes(p), vta_w_bytes(p), vta_bias_bytes(p), vta_y_bytes(p)};
  for (int i = 0; i < VTA_BUF_COUNT; i++)
    if (sz[i]) OVTA_ASSERT_OK(ovta_buf_alloc(s->dev, sz[i], &s->bufs[i], &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(s->bufs[VTA_BUF_X], 0, px, sz[0], &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(s->bufs[VTA_BUF_W], 0, pw, sz[1], &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(s->bufs[VTA_BUF_BIAS], 0, pb, sz[2], &err), err);
  ovta_rt_opts ro = {0};
  ro.max_insns = 1u << 20; /* one run: the whole stream stays pending for the comparison */
  OVTA_ASSERT_OK(ovta_rt_create(s->dev, &ro, &s->rt, &err), err);
}

static void side_close(side *s) {
  ovta_rt_destroy(s->rt);
  ovta_dev_close(s->dev);
}

/* The stream of a, b must be the same instruction for instruction (buffer addresses agree since
 * both devices allocate the same buffers in the same order). */
static void same_stream(side *a, side *b, const char *what) {
  uint32_t na, nb;
  const ovta_insn *ia = ovta_rt_stream(a->rt, &na);
  ovta_insn *copy = malloc(sizeof *copy * (na + 1));
  assert_non_null(copy);
  memcpy(copy, ia, sizeof *copy * na);
  const ovta_insn *ib = ovta_rt_stream(b->rt, &nb);
  if (na != nb) fail_msg("%s: LLVM host code issued %u instructions, the walker %u", what, na, nb);
  assert_true(na > 4);
  const ovta_isa *isa = ovta_dev_isa(a->dev);
  for (uint32_t i = 0; i < na; i++) {
    ovta_insn_bits ea, eb;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_insn_encode(isa, &copy[i], &ea, &err), err);
    OVTA_ASSERT_OK(ovta_insn_encode(isa, &ib[i], &eb, &err), err);
    if (ea.w[0] != eb.w[0] || ea.w[1] != eb.w[1])
      fail_msg("%s: instruction %u differs between LLVM and walker", what, i);
  }
  free(copy);
}

static void check(const char *backend, const char *cfgname, const vta_op *op, int vt) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  vta_knobs k = {.vthreads = vt};
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, op, &k, &p, &err), err);
  vta_kernel *kern;
  OVTA_ASSERT_OK(vta_compile(&p, NULL, NULL, &kern, &err), err);
  assert_true(vta_kernel_has_jit(kern));
  size_t nx = vta_x_bytes(&p), nw = vta_w_bytes(&p), ny = vta_y_bytes(&p), nb = vta_bias_bytes(&p);
  int8_t *x = malloc(nx), *w = malloc(nw), *px = malloc(nx), *pw = malloc(nw), *ya = malloc(ny), *yb = malloc(ny),
         *y = malloc(ny), *ref = malloc(ny);
  int32_t *b = malloc((size_t)op->o * 4), *pb = malloc(nb);
  assert_true(x && w && px && pw && ya && yb && y && ref && b && pb);
  ovta_test_fill_i8(x, nx, 5), ovta_test_fill_i8(w, nw, 6);
  for (int i = 0; i < op->o; i++) b[i] = (i * 7919 % 4001) - 2000;
  conv_ref(op, x, w, op->has_bias ? b : NULL, ref);
  vta_pack_x(&p, x, px), vta_pack_w(&p, w, pw), vta_pack_bias(&p, b, pb);

  side L, W;
  side_open(&L, backend, &cfg, &p, px, pw, pb);
  side_open(&W, backend, &cfg, &p, px, pw, pb);
  OVTA_ASSERT_OK(vta_kernel_issue_mode(kern, L.rt, L.bufs, VTA_HOST_LLVM, &err), err);
  OVTA_ASSERT_OK(vta_kernel_issue_mode(kern, W.rt, W.bufs, VTA_HOST_WALK, &err), err);
  same_stream(&L, &W, op->name);
  OVTA_ASSERT_OK(ovta_rt_synchronize(L.rt, 600000, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(W.rt, 600000, &err), err);
  OVTA_ASSERT_OK(ovta_buf_read(L.bufs[VTA_BUF_Y], 0, ya, ny, &err), err);
  OVTA_ASSERT_OK(ovta_buf_read(W.bufs[VTA_BUF_Y], 0, yb, ny, &err), err);
  assert_memory_equal(ya, yb, ny);
  vta_unpack_y(&p, ya, y);
  size_t bad = 0, mid = 0;
  for (size_t i = 0; i < ny; i++) bad += y[i] != ref[i], mid += ref[i] > op->clip_min && ref[i] < op->clip_max;
  if (bad) fail_msg("%s %s/%s vt %d: %zu of %zu outputs differ from the reference", op->name, backend, cfgname, vt, bad, ny);
  assert_true(mid > ny / 4);

  /* dry-run counts: same through both */
  vta_counts ca, cb;
  OVTA_ASSERT_OK(vta_kernel_count_mode(kern, &ca, VTA_HOST_LLVM, &err), err);
  OVTA_ASSERT_OK(vta_kernel_count_mode(kern, &cb, VTA_HOST_WALK, &err), err);
  assert_memory_equal(&ca, &cb, sizeof ca);
  assert_true(ca.insns > 0);
  side_close(&L), side_close(&W);
  vta_kernel_free(kern);
  free(x), free(w), free(px), free(pw), free(ya), free(yb), free(y), free(ref), free(b), free(pb);
}

static void test_conv_llvm_vs_walker(void **st) {
  (void)st;
  vta_op op;
  vta_op_conv(&op, "conv3x3", 1, 32, 14, 14, 32, 3, 1, 1);
  op.has_bias = true, op.shift = 9, op.clip_min = 0;
  check("fsim", "default", &op, 2);
  check("fsim", "default", &op, 1);
  vta_op_conv(&op, "conv_s2", 1, 32, 16, 16, 64, 3, 2, 1);
  op.shift = 9;
  check("fsim", "small", &op, 2);
  vta_op_conv(&op, "conv_b2", 2, 16, 8, 8, 32, 3, 1, 1);
  op.shift = 8, op.has_bias = true;
  check("fsim", "batch2", &op, 2);
}

static void test_dense_llvm_vs_walker(void **st) {
  (void)st;
  vta_op op;
  vta_op_dense(&op, "dense", 16, 128, 64);
  op.has_bias = true, op.shift = 9;
  check("fsim", "default", &op, 2);
  vta_op_dense(&op, "dense_m1", 1, 64, 32);
  op.shift = 7;
  check("fsim", "default", &op, 1);
}

/* tsim: one case, when the backend is built in */
static void test_tsim(void **st) {
  (void)st;
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (!have) skip();
  vta_op op;
  vta_op_conv(&op, "conv_tsim", 1, 16, 8, 8, 32, 3, 1, 1);
  op.has_bias = true, op.shift = 8;
  check("tsim", "default", &op, 2);
}

/* Object code: the runtime calls stay undefined in the object, a fresh JIT with the runtime
 * symbols defined resolves them and the host function issues the same stream. */
static void test_object_file(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_op_dense(&op, "objdense", 1, 32, 32);
  op.shift = 6;
  vta_plan p;
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, NULL, &p, &err), err);
  vta_compile_opts co = {.no_jit = true, .symbol = "host_objdense"};
  vta_kernel *k;
  OVTA_ASSERT_OK(vta_compile_ex(&p, &co, &k, &err), err);
  assert_false(vta_kernel_has_jit(k));
  lir_module *m;
  OVTA_ASSERT_OK(lir_module_new("obj", NULL, &m, &err), err);
  OVTA_ASSERT_OK(vta_kernel_module_add(k, m, &err), err);
  OVTA_ASSERT_OK(lir_module_optimize(m, &err), err);
  char *ir = lir_module_ir(m);
  assert_non_null(ir);
  assert_non_null(strstr(ir, "declare i32 @ovta_vrt_load(i64"));
  free(ir);
  void *obj;
  size_t len;
  OVTA_ASSERT_OK(lir_module_emit_object_mem(m, &obj, &len, &err), err);
  lir_module_free(m);
  /* a fresh JIT with the runtime symbols defined absolutely resolves the host function */
  lir_jit *j;
  OVTA_ASSERT_OK(lir_jit_new(&j, &err), err);
  OVTA_ASSERT_OK(vta_jit_define_runtime(j, &err), err);
  OVTA_ASSERT_OK(lir_jit_add_object(j, obj, len, "host.o", &err), err);
  void *fp;
  OVTA_ASSERT_OK(lir_jit_lookup(j, "host_objdense", &fp, &err), err);
  vta_counts a, b;
  memset(&a, 0, sizeof a);
  vta_rt_ctx c = {.cfg = &p.cfg, .counts = &a};
  OVTA_ASSERT_OK(vta_host_call((lir_kernel_fn)fp, "objdense", &c, &err), err);
  free(c.seen);
  OVTA_ASSERT_OK(vta_kernel_count_mode(k, &b, VTA_HOST_WALK, &err), err);
  a.insns = a.insns_load + a.insns_store + a.insns_gemm + a.insns_alu + a.insns_acc_load;
  assert_int_equal(a.insns, b.insns);
  assert_int_equal(a.gemm_uops, b.gemm_uops);
  assert_int_equal(a.bytes_wgt, b.bytes_wgt);
  lir_jit_free(j);
  free(obj);
  vta_kernel_free(k);
}

/* The CPU verifier: runtime calls pass, other opaque calls are still refused. */
static void test_verifier(void **st) {
  (void)st;
  ovta_error err = {0};
  lir_func *f = lir_func_new("v");
  lir_expr *a[2] = {lir_i64(f, 1), lir_i64(f, 0)};
  lir_stmt *s[2] = {lir_eval(f, lir_opaque(f, "ovta_vrt_dep_push", LIR_I32, 2, a)),
                    lir_eval(f, lir_opaque(f, "ovta.gemm", LIR_I32, 1, a))};
  f->body = s[0];
  OVTA_ASSERT_OK(lir_verify(f, true, &err), err);
  f->body = lir_seq(f, 2, s);
  assert_int_equal(lir_verify(f, true, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "ovta.gemm"));
  f->body = lir_eval(f, lir_opaque(f, "ovta_vrt_dep_push", LIR_I64, 2, a));
  assert_int_equal(lir_verify(f, true, &err), OVTA_EINVAL);
  lir_func_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_llvm_vs_walker), cmocka_unit_test(test_dense_llvm_vs_walker),
      cmocka_unit_test(test_tsim),                cmocka_unit_test(test_object_file),
      cmocka_unit_test(test_verifier),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
