/* A residual add fused into the conv producing one operand (vta_op.res, compiler/accel/res.c):
 * the fused program's output bytes against the unfused programs' (the conv, then the standalone
 * add, accel/alu.c, on the conv's packed output) and against a plain-C reference written here
 * (conv_ref, then the add's int8 rule), on fsim with two module interleavings, every config,
 * 1 and 2 virtual threads, r entering after the steps and before them (its own ACC region) and
 * after them pipelined across tiles (vta_plan.res_pipe; all three forms forced by the res_form knob), shift combinations that take each form of the epilogue (c shifted left
 * before r enters, r through the identity times 2^d, no shift; the rounding constant or none;
 * CLP and MAX/MIN clips; a ReLU on the add); r's loads as a step of the load/compute ring (one
 * thread, one step a tile) and without a slot of it (two threads, two steps or more); a layer in
 * each form on tsim and the pipelined form on tsim on every config; the plan's refusals. */
#include "vta_check.h"

/* One program run on backend: the packed buffers in, y's bytes out (caller frees). */
static int8_t *run_bufs(const char *backend, uint64_t seed, const vta_plan *p, const void *const in[VTA_BUF_COUNT],
                        const size_t sz[VTA_BUF_COUNT]) {
  ovta_error err = {0};
  vta_kernel *k;
  OVTA_ASSERT_OK(vta_compile(p, NULL, NULL, &k, &err), err);
  ovta_dev_opts o = {0};
  o.seed = seed;
  ovta_dev *dev;
  OVTA_ASSERT_OK(ovta_dev_open(backend, &p->cfg, &o, &dev, &err), err);
  ovta_buf *bufs[VTA_BUF_COUNT] = {0};
  for (int i = 0; i < VTA_BUF_COUNT; i++) {
    if (!sz[i]) continue;
    OVTA_ASSERT_OK(ovta_buf_alloc(dev, sz[i], &bufs[i], &err), err);
    if (in[i]) OVTA_ASSERT_OK(ovta_buf_write(bufs[i], 0, in[i], sz[i], &err), err);
  }
  ovta_rt *rt;
  OVTA_ASSERT_OK(ovta_rt_create(dev, NULL, &rt, &err), err);
  OVTA_ASSERT_OK(vta_kernel_issue(k, rt, bufs, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 600000, &err), err);
  int8_t *y = malloc(sz[VTA_BUF_Y]);
  assert_non_null(y);
  OVTA_ASSERT_OK(ovta_buf_read(bufs[VTA_BUF_Y], 0, y, sz[VTA_BUF_Y], &err), err);
  ovta_rt_destroy(rt);
  ovta_dev_close(dev);
  vta_kernel_free(k);
  return y;
}

/* r (logical [N][O][OH][OW]) into y's packed layout. */
static void pack_like_y(const vta_plan *p, const int8_t *r, int8_t *pr) {
  int B = p->cfg.batch, BO = p->cfg.block_out, O = p->op.o;
  for (int n = 0; n < p->op.n; n++)
    for (int o = 0; o < O; o++)
      for (int h = 0; h < p->oh; h++)
        for (int w = 0; w < p->ow; w++)
          pr[((((size_t)(n / B) * p->ob + o / BO) * p->oh + h) * p->ow + w) * B * BO + (n % B) * BO + o % BO] =
              r[(((size_t)n * O + o) * p->oh + h) * p->ow + w];
}

/* The add's rule written out: (c << sc) + (r << sr) wrapping, + 2^(s-1) for s 1..15, >> s, clip. */
static int8_t add_rule(int c, int r, int sc, int sr, int s, int lo, int hi) {
  int32_t v = (int32_t)(((uint32_t)(int32_t)c << sc) + ((uint32_t)(int32_t)r << sr));
  if (s > 0) v = (int32_t)((uint32_t)v + (1u << (s - 1))) >> s;
  return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* Cases run whose r loads take a slot of the load/compute ring (one thread or one step a tile) and
 * cases whose r loads take none (two threads, two steps or more: res.c vta_res_loads_free). */
static int ring_cases, free_cases;

/* fsim's module interleavings (seeds 1..fsim_seeds) each fused case runs with. */
static uint64_t fsim_seeds = 2;

/* A fused case: conv op (its res fields set) on cfgname with vt threads: fused = unfused bytes =
 * reference, on fsim with seeds 1 and 2. Returns the plan's res_pipe (the pipelined form's steps). */
static int check_case(const char *backend, const char *cfgname, const vta_op *fop, int vt, const vta_knobs *kn) {
  vta_plan pf, pc, pa;
  if (!plan_of(cfgname, fop, vt, kn, false, &pf)) return 0;
  if (pf.vt == 2 && pf.red_steps >= 2) free_cases++;
  else ring_cases++;
  vta_op cop = *fop, aop;
  cop.res = false;
  plan_of(cfgname, &cop, vt, kn, false, &pc);
  vta_op_add(&aop, "add", fop->n, fop->o, pc.oh, pc.ow, fop->res_sc, fop->res_sr, fop->res_shift);
  aop.clip_min = fop->res_min, aop.clip_max = fop->res_max;
  plan_of(cfgname, &aop, 1, NULL, false, &pa);
  size_t nx = vta_x_bytes(&pf), nw = vta_w_bytes(&pf), ny = vta_y_bytes(&pf), nb = vta_bias_bytes(&pf);
  size_t ni = vta_res_ident_bytes(&pf), na = vta_bias_bytes(&pa);
  int8_t *x = malloc(nx), *w = malloc(nw), *px = malloc(nx), *pw = malloc(nw), *r = malloc(ny), *pr = malloc(ny);
  int8_t *ref = malloc(ny), *yf = malloc(ny), id[4096], aid[8192];
  int32_t *b = malloc((size_t)fop->o * 4), *pb = malloc(nb);
  assert_true(x && w && px && pw && r && pr && ref && yf && b && pb);
  ovta_test_fill_i8(x, nx, 21), ovta_test_fill_i8(w, nw, 22), ovta_test_fill_i8(r, ny, 23);
  for (int i = 0; i < fop->o; i++) b[i] = (i * 7919 % 4001) - 2000;
  conv_ref(&cop, x, w, fop->has_bias ? b : NULL, ref);
  size_t mid = 0;
  for (size_t i = 0; i < ny; i++) {
    ref[i] = add_rule(ref[i], r[i], fop->res_sc, fop->res_sr, fop->res_shift, fop->res_min, fop->res_max);
    mid += ref[i] > fop->res_min && ref[i] < fop->res_max;
  }
  if (mid <= ny / 8) fail_msg("%s: %zu of %zu sums inside the clip: vacuous", fop->name, mid, ny);
  vta_pack_x(&pf, x, px), vta_pack_w(&pf, w, pw), vta_pack_bias(&pf, b, pb), pack_like_y(&pf, r, pr);
  vta_pack_res_ident(&pf, id), vta_pack_identity(&pa, aid);
  for (uint64_t seed = 1; seed <= (strcmp(backend, "fsim") ? 1u : fsim_seeds); seed++) {
    /* fused */
    const void *fin[VTA_BUF_COUNT] = {px, pw, pb, NULL, pr, id};
    size_t fsz[VTA_BUF_COUNT] = {nx, nw, nb, ny, ny, ni};
    int8_t *f = run_bufs(backend, seed, &pf, fin, fsz);
    /* unfused: the conv, then the add on its packed output (a) and r (b) */
    const void *cin[VTA_BUF_COUNT] = {px, pw, pb, NULL};
    size_t csz[VTA_BUF_COUNT] = {nx, nw, nb, ny};
    int8_t *c = run_bufs(backend, seed, &pc, cin, csz);
    const void *ain[VTA_BUF_COUNT] = {c, pr, aid, NULL};
    size_t asz[VTA_BUF_COUNT] = {ny, ny, na, ny};
    int8_t *u = run_bufs(backend, seed, &pa, ain, asz);
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++) bad += f[i] != u[i];
    if (bad) fail_msg("%s %s/%s vt %d seed %llu: %zu of %zu fused bytes differ from the unfused programs'", fop->name,
                      backend, cfgname, vt, (unsigned long long)seed, bad, ny);
    vta_unpack_y(&pf, f, yf);
    for (size_t i = 0; i < ny; i++) bad += yf[i] != ref[i];
    if (bad) fail_msg("%s %s/%s vt %d: %zu of %zu outputs differ from the reference", fop->name, backend, cfgname, vt, bad, ny);
    free(f), free(c), free(u);
  }
  if (pf.res_pipe) { /* the pipelined host code through the IR walker too: the same counts */
    ovta_error err = {0};
    vta_kernel *k;
    vta_counts ca, cb;
    OVTA_ASSERT_OK(vta_compile(&pf, NULL, NULL, &k, &err), err);
    OVTA_ASSERT_OK(vta_kernel_count_mode(k, &ca, VTA_HOST_LLVM, &err), err);
    OVTA_ASSERT_OK(vta_kernel_count_mode(k, &cb, VTA_HOST_WALK, &err), err);
    assert_memory_equal(&ca, &cb, sizeof ca);
    assert_true(ca.insns > 0);
    vta_kernel_free(k);
  }
  free(x), free(w), free(px), free(pw), free(r), free(pr), free(ref), free(yf), free(b), free(pb);
  return pf.res_pipe;
}

/* conv 3x3 or 1x1 on every config, vt 1 and 2, each (sc, sr, shift, clip) form. */
static void test_res_forms(void **state) {
  (void)state;
  static const int forms[][5] = {
      {1, 0, 1, 0, 127},     /* ResNet-18's (1, 0, 1) with the ReLU: c << 1, rounding ADD, CLP */
      {0, 0, 0, -128, 127},  /* no shift at all */
      {0, 2, 1, -128, 127},  /* r through the identity times 4 */
      {1, 0, 0, 0, 127},     /* no rounding */
      {2, 1, 3, -300, 300},  /* lo = 1 (SHR -1 before the rounding), MAX/MIN */
  };
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*cf, &cfg, &err), err);
    int piped = 0; /* cases planned in the pipelined form */
    ring_cases = free_cases = 0;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
      for (int vt = 1; vt <= 2; vt++) {
        vta_op op;
        int k = f % 2 ? 1 : 3;
        vta_op_conv(&op, f % 2 ? "res1x1" : "res3x3", cfg.batch, 32, 8, 8, 32, k, f == 3 ? 2 : 1, k / 2);
        op.has_bias = f != 2, op.shift = k == 3 ? 12 : 10, op.clip_min = f == 1 ? 0 : -128; /* most c inside int8 */
        vta_op_fuse_add(&op, forms[f][0], forms[f][1], forms[f][2], forms[f][3], forms[f][4]);
        for (int form = 1; form <= 3; form++) { /* r after the steps, before them (vta_plan.res_pre), pipelined */
          vta_knobs kf = {.res_form = form};
          check_case("fsim", *cf, &op, vt, &kf);
          vta_knobs kn = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 2, .t_w = 0, .res_form = form}; /* several tiles and steps */
          if (f == 0 || form == 3) piped += check_case("fsim", *cf, &op, vt, &kn) > 0;
        }
      }
    /* the pipelined form where it applies (2 threads, several tiles and steps, not as many steps
     * after r's as add passes): 64 channels, 4 steps of one block, each shift form */
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
      vta_op op;
      vta_op_conv(&op, "respipe", cfg.batch, 4 * cfg.block_in, 6, 6, 2 * cfg.block_out, 3, 1, 1);
      op.has_bias = true, op.shift = 12, op.clip_min = -128;
      vta_op_fuse_add(&op, forms[f][0], forms[f][1], forms[f][2], forms[f][3], forms[f][4]);
      vta_knobs kn = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 2, .res_form = 3};
      piped += check_case("fsim", *cf, &op, 2, &kn) > 0;
    }
    if (piped < 5) fail_msg("%s: the pipelined form in only %d cases", *cf, piped);
    if (ring_cases < 5 || free_cases < 5)
      fail_msg("%s: r's loads in the ring in %d cases, without a slot in %d", *cf, ring_cases, free_cases);
  }
}

/* r's loads and the token ring (res.c vta_res_loads_free), under many module interleavings on every
 * config: with one step a tile (1 or 2 threads) the step load before r's may wait only for the GEMM
 * ahead of the identity GEMM that last read r_buf, so r's loads must keep their ring step (taking
 * them off it gave 190 of 2048 bytes wrong on default, one thread, seed 17); with two steps and two
 * threads they take no slot, in every form. */
static void test_res_ring(void **state) {
  (void)state;
  fsim_seeds = 24;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*cf, &cfg, &err), err);
    vta_op op;
    vta_op_conv(&op, "resring", cfg.batch, 2 * cfg.block_in, 8, 8, 2 * cfg.block_out, 3, 1, 1);
    op.has_bias = true, op.shift = 12, op.clip_min = -128;
    vta_op_fuse_add(&op, 1, 0, 1, 0, 127);
    ring_cases = free_cases = 0;
    for (int vt = 1; vt <= 2; vt++) /* one step a tile: r's loads a step of the ring */
      check_case("fsim", *cf, &op, vt, &(vta_knobs){.t_n = 1, .t_oc = 1, .t_ic = 2, .t_h = 2, .res_form = 1});
    if (ring_cases != 2 || free_cases) fail_msg("%s: one step a tile planned otherwise", *cf);
    fsim_seeds = 8;
    for (int form = 1; form <= 3; form++) /* two steps, two threads: no slot */
      check_case("fsim", *cf, &op, 2, &(vta_knobs){.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 2, .res_form = form});
    if (free_cases != 3) fail_msg("%s: two steps, two threads planned otherwise", *cf);
    fsim_seeds = 24;
  }
  fsim_seeds = 2;
}

/* A dense layer with the add; a ResNet-18 C5-sized layer (/2) on tsim. */
static void test_res_dense_tsim(void **state) {
  (void)state;
  vta_op op;
  vta_op_dense(&op, "resdense", 16, 64, 32);
  op.has_bias = true, op.shift = 6;
  vta_op_fuse_add(&op, 2, 2, 2, -128, 127);
  check_case("fsim", "default", &op, 2, NULL);
  vta_op_conv(&op, "resC5", 1, 64, 14, 14, 64, 3, 1, 1);
  op.has_bias = true, op.shift = 10, op.clip_min = 0;
  vta_op_fuse_add(&op, 1, 0, 1, 0, 127);
  for (int form = 1; form <= 3; form++) {
    vta_knobs kf = {.res_form = form, .t_h = form == 3 ? 7 : 0}; /* pipelined: 4 tiles of 4 steps */
    int pipe = check_case("tsim", "default", &op, 2, &kf);
    /* the conv's passes before r's step: RQ (>> 10 into [0, 127]) and SHL 1 */
    if (form == 3 && pipe != 2) fail_msg("resC5: %d steps of the next tile before r's step, not 2", pipe);
  }
  /* the pipelined form on tsim on every config: 4 steps, several tiles, ResNet-18's (1, 0, 1) */
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*cf, &cfg, &err), err);
    vta_op_conv(&op, "respipe", cfg.batch, 4 * cfg.block_in, 6, 6, 2 * cfg.block_out, 3, 1, 1);
    op.has_bias = true, op.shift = 12, op.clip_min = 0;
    vta_op_fuse_add(&op, 1, 0, 1, 0, 127);
    vta_knobs kn = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 2, .res_form = 3};
    if (check_case("tsim", *cf, &op, 2, &kn) <= 0) fail_msg("%s: respipe not pipelined on tsim", *cf);
  }
}

/* The plan refuses what the fused epilogue does not take (the executor keeps the add then). */
static void test_res_refusals(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_plan p;
  int64_t shs[32] = {0};
  static const struct { int sc, sr, s; bool shifts; const char *why; } bad[] = {
      {0, 7, 1, false, "by more than 6"}, {16, 0, 1, false, "outside 0..15"}, {0, 0, 16, false, "outside 0..15"},
      {1, 0, 1, true, "per-channel shifts"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    vta_op_conv(&op, "r", 1, 32, 8, 8, 32, 3, 1, 1);
    op.has_bias = true, op.shift = 9;
    if (bad[i].shifts) op.shifts = shs;
    vta_op_fuse_add(&op, bad[i].sc, bad[i].sr, bad[i].s, -128, 127);
    err = (ovta_error){0};
    assert_int_equal(vta_plan_make(&cfg, &op, NULL, &p, &err), OVTA_EUNSUPPORTED);
    if (!strstr(err.msg, bad[i].why)) fail_msg("refusal %zu: '%s' lacks '%s'", i, err.msg, bad[i].why);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_res_forms),
      cmocka_unit_test(test_res_ring),
      cmocka_unit_test(test_res_dense_tsim),
      cmocka_unit_test(test_res_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
