/* The lowering passes (compiler/accel/README.md "Passes": inject-dma, tensorize, inject-alu,
 * fold-uops, insert-deps, host, each an IR-to-IR rewrite of the stage before) on a wide set of
 * plans: each plan goes through every pass to host code, runs on fsim with a random module
 * interleaving and must give the plain-C reference's bytes (tests/vta/vta_check.h); plus the
 * passes' refusals of input they cannot lower, each naming what it could not lower.
 *
 * Plans: ResNet-18 C2..C11 full size on every config, 1 and 2 virtual threads
 * (several reduction steps, chunked last stores, shared and per-tile bias, strided-row loads); a
 * sweep of forced tilings on the reduced layers with two batch blocks; host loops around GEMM
 * kernels and the chunked store; dense with a shared and a per-tile bias; bias-free convs and the
 * requantization corners (shift 0, 16, 20, 40, -3, -40; clips wider than int8). Until the passes
 * replaced it, the plan-driven emitter they were written against gave the same IR text for every
 * one of these plans (7,134 stage comparisons). */
#include "vta_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const layer resnet[] = VTA_RESNET18_LAYERS;
#define NLAYERS (sizeof resnet / sizeof resnet[0])

static int compared; /* plans run */

/* Lower the plan of op through every pass (vta_compile: the host code through LLVM), run it on fsim
 * with a random module interleaving (a missing token shows as a wrong result) and compare every
 * output byte with the plain-C reference of vta_check.h. */
static void check_plan(const vta_plan *p) {
  vta_check_plan("fsim", p, 0x5eedu + (uint64_t)compared, false);
  compared++;
}

static void check(const char *cfgname, const vta_op *op, int vt, const vta_knobs *kn) {
  vta_plan p;
  plan_of(cfgname, op, vt, kn, false, &p);
  check_plan(&p);
}

/* ResNet-18 C2..C11 full size on every config (the reduced layers run in tests/vta/test_vta.c). */
static void test_resnet(void **st) {
  (void)st;
  each_resnet_layer(1, check);
}

static void test_tilings_dense_nobias(void **st) {
  (void)st;
  vta_op op;
  layer_op(&resnet[3], 4, 1, &op);
  vta_knobs k = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 1, .t_w = 7};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  layer_op(&resnet[1], 4, 1, &op);
  k = (vta_knobs){.t_n = 1, .t_oc = 2, .t_ic = 1, .t_h = 7, .t_w = 1};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  /* two batch blocks per tile: the bias copy has three loops (batch blocks, output-channel blocks,
   * pixels), one of them a micro-op loop; a shared and a per-tile bias */
  vta_op_conv(&op, "tn2", 2, 32, 8, 8, 32, 3, 1, 1);
  op.has_bias = true, op.shift = 9, op.clip_min = 0;
  k = (vta_knobs){.t_n = 2, .t_oc = 2, .t_ic = 1, .t_h = 4, .t_w = 8};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  vta_op_dense(&op, "wide_tn2", 4, 64, 2048);
  op.has_bias = true, op.shift = 8;
  k = (vta_knobs){.t_n = 2, .t_oc = 4};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  vta_op_conv(&op, "example", 1, 32, 8, 8, 32, 3, 2, 1); /* tests/vta/conv.test */
  op.has_bias = true, op.shift = 9, op.clip_min = 0;
  k = (vta_knobs){.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 2, .t_w = 4};
  check("default", &op, 2, &k);
  /* host loops around the chunked last store (sn, so), around GEMM kernels (gn, go) */
  vta_op_conv(&op, "hostloops", 1, 32, 8, 8, 32, 3, 1, 1);
  op.has_bias = true, op.shift = 8;
  k = (vta_knobs){.t_n = 1, .t_oc = 2, .t_ic = 2, .t_h = 2, .t_w = 4};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  vta_op_conv(&op, "batchtile", 2, 32, 8, 8, 32, 3, 1, 1);
  k = (vta_knobs){.t_n = 2, .t_oc = 1, .t_ic = 1, .t_h = 2, .t_w = 8};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  vta_op_dense(&op, "fcloops", 16, 512, 64);
  op.has_bias = true, op.shift = 10;
  k = (vta_knobs){.t_n = 4, .t_oc = 2, .t_ic = 4, .t_h = 1, .t_w = 1};
  for (int vt = 1; vt <= 2; vt++) check("default", &op, vt, &k);
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (int vt = 1; vt <= 2; vt++) {
      vta_op_dense(&op, "fc", 8 * cfg.batch, 512, 64);
      op.has_bias = true, op.shift = 10;
      check(*c, &op, vt, NULL);
      vta_op_dense(&op, "wide", 2 * cfg.batch, 64, 2048);
      op.has_bias = true, op.shift = 8;
      check(*c, &op, vt, NULL);
      vta_op_conv(&op, "nobias", cfg.batch, 32, 8, 8, 32, 3, 1, 1);
      op.shift = 9;
      check(*c, &op, vt, NULL);
      op.shift = 20;
      op.clip_min = -4, op.clip_max = 4;
      check(*c, &op, vt, NULL);
      op.shift = 0; /* no rounding constant, no SHR */
      op.clip_min = -300, op.clip_max = 300; /* wider than int8: MAX and MIN, not CLP */
      check(*c, &op, vt, NULL);
      op.shift = 16; /* rounding constant 2^15: just beyond the immediate (MOV 1, SHR -15) */
      op.clip_min = -128, op.clip_max = 300; /* one bound int8, the other not */
      check(*c, &op, vt, NULL);
      op.clip_min = 0, op.clip_max = 127;
      op.shift = 40; /* >= 32: scalar `>> 31`, ALU immediate 40 */
      check(*c, &op, vt, NULL);
      op.shift = -3; /* left shift: SHR -3 */
      check(*c, &op, vt, NULL);
      op.shift = -40; /* everything shifted out: scalar constant 0, SHR -40 */
      check(*c, &op, vt, NULL);
    }
  }
}

/* Pass pass on the emitter's stage `from` (optionally edited) must refuse, naming `want`. */
static void refuses(const vta_plan *p, vta_stage from, vta_pass_fn pass, const char *loop, int64_t ext,
                    const char *want) {
  ovta_error err = {0};
  lir_func *f = NULL;
  OVTA_ASSERT_OK(vta_lower_uid(p, from, "k", 5, &f, &err), err);
  if (loop) { /* change the extent of a loop */
    lir_stmt **sl = vta_sched_find_loop(f, loop);
    assert_non_null(sl);
    (*sl)->extent = lir_i64(f, ext);
  }
  assert_int_not_equal(pass(p, 5, f, &err), 0);
  if (!strstr(err.msg, want)) fprintf(stderr, "error '%s' does not name '%s'\n", err.msg, want);
  assert_non_null(strstr(err.msg, want));
  lir_func_free(f);
}

/* tensorize and inject-alu refuse what they cannot lower, by name. */
static void test_tens_refusals(void **st) {
  (void)st;
  vta_pass_fn tz = vta_stage_pass(VTA_S_TENSORIZE), alu = vta_stage_pass(VTA_S_ALU);
  assert_non_null(tz), assert_non_null(alu);
  vta_plan p;
  example_plan(&p);
  refuses(&p, VTA_S_DMA, tz, "gi", 8, "loop gi is not 0..16 (BLOCK_OUT)");
  refuses(&p, VTA_S_TENSORIZE, tz, NULL, 0, "no multiply-accumulate");
  refuses(&p, VTA_S_SCHEDULE, tz, NULL, 0, "the store into acc_buf reads inp_buf but is not a multiply-accumulate");
  refuses(&p, VTA_S_DMA, alu, NULL, 0, "the reduction into acc_buf is not tensorized");
  refuses(&p, VTA_S_TENSORIZE, alu, "ai", 8, "store into acc_buf: loop ai is not 0..16");
  refuses(&p, VTA_S_ALU, alu, NULL, 0, "no ACC init nest");
}

/* A sweep of forced tilings (every fitting combination of a few tile sizes) on the reduced layers
 * with two batch blocks, every config: more shapes of the folded loops (merges, host loops). */
static void test_sweep(void **st) {
  (void)st;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (size_t i = 0; i < NLAYERS; i++)
      for (int vt = 1; vt <= 2; vt++) {
        vta_op op;
        layer_op(&resnet[i], 4, 2 * cfg.batch, &op);
        static const int toc[] = {1, 2, 4}, tic[] = {1, 2}, th[] = {1, 2, 7}, tw[] = {1, 2, 14};
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 2; b++)
            for (int h = 0; h < 3; h++)
              for (int w = 0; w < 3; w++) {
                vta_knobs k = {.t_n = 1 + (a + h + w) % 2, .t_oc = toc[a], .t_ic = tic[b], .t_h = th[h], .t_w = tw[w],
                               .vthreads = vt};
                vta_plan p;
                if (plan_of(*c, &op, vt, &k, true, &p)) check_plan(&p); /* else: does not fit or divide */
              }
      }
  }
}

/* The first EVAL of callee `name` in s (NULL: none). */
static lir_stmt *find_eval(lir_stmt *s, const char *name) {
  if (!s) return NULL;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++) {
      lir_stmt *t = find_eval(s->stmts[i], name);
      if (t) return t;
    }
    return NULL;
  case LIR_S_EVAL:
    return s->value->kind == LIR_E_CALL && s->value->callee && !strcmp(s->value->callee, name) ? s : NULL;
  case LIR_S_IF: {
    lir_stmt *t = find_eval(s->body, name);
    return t ? t : find_eval(s->else_body, name);
  }
  default:
    return find_eval(s->body, name);
  }
}

/* fold-uops refuses what it cannot fold, naming the statement: an SRAM index not affine in the
 * loops, a part index that depends on a loop, a scalar store into an SRAM buffer (the tensorize
 * stage's ACC init, not an ALU intrinsic). */
static void test_fold_refuses(void **st) {
  (void)st;
  ovta_error err = {0};
  vta_plan p;
  example_plan(&p);
  for (int c = 0; c < 3; c++) {
    lir_func *f = NULL;
    OVTA_ASSERT_OK(vta_lower_uid(&p, c == 2 ? VTA_S_TENSORIZE : VTA_S_ALU, "k", 5, &f, &err), err);
    if (c < 2) {
      lir_stmt *g = find_eval(f->body, "ovta.gemm");
      assert_non_null(g);
      lir_expr *inp = g->value->args[1], *acc = g->value->args[0];
      if (c == 0) /* inp row index floormod(.., 5) */
        inp->args[3] = lir_bin(f, LIR_FLOORMOD, inp->args[3], lir_i64(f, 5));
      else /* the ACC part follows the innermost loop */
        acc->args[0] = inp->args[4]->args[1];
    }
    ovta_error_clear(&err);
    assert_int_equal(vta_pass_fold(&p, 5, f, &err), OVTA_EUNSUPPORTED);
    static const char *const want[3] = {"@ovta.gemm in loop gx: index 3 of inp_buf is not affine in the loops",
                                        "@ovta.gemm in loop gx: the part index of acc_buf depends on loop gx",
                                        "scalar store into SRAM buffer acc_buf"};
    if (!strstr(err.msg, want[c])) fprintf(stderr, "got: %s\n", err.msg);
    assert_non_null(strstr(err.msg, want[c]));
    lir_func_free(f);
  }
}

/* pass(p, f) must refuse with OVTA_EUNSUPPORTED and a message containing `want`. */
static void expect_refusal(vta_pass_fn pass, const vta_plan *p, lir_func *f, const char *want) {
  ovta_error err = {0};
  int rc = pass(p, 5, f, &err);
  if (rc != OVTA_EUNSUPPORTED || !strstr(err.msg, want)) fprintf(stderr, "rc %d: %s (want: %s)\n", rc, err.msg, want);
  assert_int_equal(rc, OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, want));
  lir_func_free(f);
}

/* insert-deps and host refuse input they cannot prove or lower, naming the statement. */
static void test_deps_refusals(void **st) {
  (void)st;
  vta_plan p;
  example_plan(&p);
  ovta_error err = {0};
  vta_pass_fn deps = vta_stage_pass(VTA_S_DEPS), host = vta_stage_pass(VTA_S_HOST);
  assert_non_null(deps), assert_non_null(host);
  lir_func *f;
  /* tokens already there */
  OVTA_ASSERT_OK(vta_lower_uid(&p, VTA_S_DEPS, "k", 5, &f, &err), err);
  expect_refusal(deps, &p, f, "call @ovta.dep_push: the input already has dependency tokens");
  /* the GEMMs of a step moved before its loads */
  OVTA_ASSERT_OK(vta_lower_uid(&p, VTA_S_FOLD, "k", 5, &f, &err), err);
  lir_stmt **tk = vta_sched_find_loop(f, "tk");
  assert_non_null(tk);
  lir_stmt *seq = (*tk)->body->body;
  assert_int_equal(seq->kind, LIR_S_SEQ);
  lir_stmt *last = seq->stmts[seq->n - 1];
  memmove(&seq->stmts[1], &seq->stmts[0], sizeof(lir_stmt *) * (size_t)(seq->n - 1));
  seq->stmts[0] = last;
  expect_refusal(deps, &p, f, "a load after the GEMMs of the reduction step");
  /* a tile without its virtual-thread attribute (2 threads) */
  OVTA_ASSERT_OK(vta_lower_uid(&p, VTA_S_FOLD, "k", 5, &f, &err), err);
  lir_stmt **tw = vta_sched_find_loop(f, "tw");
  assert_non_null(tw);
  (*tw)->body = (*tw)->body->body;
  expect_refusal(deps, &p, f, "the tile has no virtual-thread attribute");
  /* the store moved before the reduction */
  OVTA_ASSERT_OK(vta_lower_uid(&p, VTA_S_FOLD, "k", 5, &f, &err), err);
  tw = vta_sched_find_loop(f, "tw");
  seq = (*tw)->body->body;
  assert_int_equal(seq->kind, LIR_S_SEQ);
  last = seq->stmts[seq->n - 1]; /* the requantization-and-store block */
  assert_int_equal(last->kind, LIR_S_SEQ);
  lir_stmt *store = last->stmts[last->n - 1];
  memmove(&last->stmts[1], &last->stmts[0], sizeof(lir_stmt *) * (size_t)(last->n - 1));
  last->stmts[0] = store;
  seq->stmts[seq->n - 1] = seq->stmts[seq->n - 2], seq->stmts[seq->n - 2] = last;
  expect_refusal(deps, &p, f, "call @ovta.dma_store: a store before the reduction of the tile");
  /* host code with SRAM buffers left */
  OVTA_ASSERT_OK(vta_lower_uid(&p, VTA_S_ALU, "k", 5, &f, &err), err);
  expect_refusal(host, &p, f, "an SRAM allocation left in the host code");
  /* tiles without reduction steps (an add): one whose loads no GEMM reads; one whose requantization
   * and store come before its loads */
  vta_op op;
  vta_op_add(&op, "add", 1, 16, 2, 3, 1, 0, 1);
  vta_plan pa;
  plan_of("default", &op, 1, &(vta_knobs){.t_w = 4}, false, &pa);
  for (int c = 0; c < 2; c++) {
    OVTA_ASSERT_OK(vta_lower_uid(&pa, VTA_S_FOLD, "k", 5, &f, &err), err);
    tk = vta_sched_find_loop(f, "tt");
    assert_non_null(tk);
    seq = (*tk)->body;
    assert_int_equal(seq->kind, LIR_S_SEQ);
    int n = 0;
    for (int i = 0; i < seq->n; i++)
      if (c == 1 || !find_eval(seq->stmts[i], "ovta.gemm")) seq->stmts[n++] = seq->stmts[i];
    seq->n = n;
    if (c == 1) { /* the requantization and store first */
      lir_stmt *st = seq->stmts[n - 1];
      memmove(&seq->stmts[1], &seq->stmts[0], sizeof(lir_stmt *) * (size_t)(n - 1));
      seq->stmts[0] = st;
    }
    expect_refusal(deps, &pa, f, c ? "attr uop_kernel: a tile (without reduction steps) that does not begin with its loads"
                                   : "call @ovta.dma_load: a tile whose loads no GEMM reads");
  }
}

/* vta_lower_run runs the stages in order, each once on the IR carried forward: the dumps it takes
 * along the way are, stage for stage, the IR vta_lower gives for that stage alone, a run stopped at
 * a stage ends with that stage's IR, and only the stages named are dumped. */
static void stages_carried(const vta_plan *p) {
  ovta_error err = {0};
  char *all = NULL, *two = NULL;
  size_t n = 0, n2 = 0;
  FILE *m = open_memstream(&all, &n), *m2 = open_memstream(&two, &n2);
  assert_true(m && m2);
  lir_func *f;
  vta_lower_opts o = {.fname = "k", .uid = 1, .last = VTA_S_HOST, .print_after = "all", .dump = m};
  OVTA_ASSERT_OK(vta_lower_run(p, &o, &f, &err), err);
  char *final = dump_of(f);
  o.print_after = "tensorize,fold-uops", o.dump = m2;
  OVTA_ASSERT_OK(vta_lower_run(p, &o, &f, &err), err);
  lir_func_free(f);
  fclose(m), fclose(m2);
  size_t at = 0;
  for (int s = 0; s < VTA_S_COUNT; s++) {
    assert_non_null(vta_stage_pass((vta_stage)s));
    assert_int_equal(vta_stage_parse(vta_stage_name((vta_stage)s)), s);
    OVTA_ASSERT_OK(vta_lower(p, (vta_stage)s, "k", &f, &err), err);
    char *one = dump_of(f), head[96];
    snprintf(head, sizeof head, "// *** IR after pass %s ***\n", vta_stage_name((vta_stage)s));
    assert_true(!strncmp(all + at, head, strlen(head)));
    at += strlen(head);
    if (strncmp(all + at, one, strlen(one))) fail_msg("%s: stage %s differs from vta_lower's", p->op.name, head);
    at += strlen(one);
    if (s == VTA_S_HOST) assert_string_equal(final, one);
    if (s == VTA_S_TENSORIZE) assert_non_null(strstr(two, one));
    free(one);
  }
  assert_int_equal(at, n);
  assert_int_equal(strstr(two, "after pass fold-uops") - two > 0, 1);
  assert_null(strstr(two, "after pass inject-alu"));
  free(all), free(two), free(final);
  /* a run stopped at the schedule stage */
  o = (vta_lower_opts){.fname = "k", .uid = 1, .last = VTA_S_SCHEDULE};
  OVTA_ASSERT_OK(vta_lower_run(p, &o, &f, &err), err);
  lir_func *g;
  OVTA_ASSERT_OK(vta_lower(p, VTA_S_SCHEDULE, "k", &g, &err), err);
  char *a = dump_of(f), *b = dump_of(g);
  assert_string_equal(a, b);
  free(a), free(b);
  o.print_after = "inject-dma,nope";
  assert_int_equal(vta_lower_run(p, &o, &f, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "unknown pass 'nope'"));
}

static void test_stages_carried(void **st) {
  (void)st;
  vta_plan p;
  example_plan(&p);
  stages_carried(&p);
  vta_op op;
  vta_op_dense(&op, "dense", 2, 64, 48);
  op.has_bias = true, op.shift = 20;
  plan_of("batch2", &op, 1, NULL, false, &p);
  stages_carried(&p);
  /* a depthwise conv (tests/vta/dwconv.test) */
  vta_op_conv(&op, "dw", 1, 32, 8, 8, 32, 3, 1, 1);
  op.groups = 32, op.has_bias = true, op.shift = 6;
  plan_of("default", &op, 2, &(vta_knobs){.t_n = 1, .t_oc = 2, .t_ic = 1, .t_h = 4, .t_w = 8}, false, &p);
  stages_carried(&p);
  /* the ALU operators go through the same stages */
  vta_op_add(&op, "add", 2, 32, 3, 5, 1, 0, 2);
  plan_of("default", &op, 1, &(vta_knobs){.t_w = 4}, false, &p);
  stages_carried(&p);
  vta_op_maxpool(&op, "pool", 2, 16, 7, 7, 3, 2, 1);
  plan_of("small", &op, 1, &(vta_knobs){.t_h = 2}, false, &p);
  stages_carried(&p);
}

/* The sweeps above ran something. */
static void test_ran_plans(void **st) {
  (void)st;
  assert_true(compared > 1000);
  print_message("%d plans run bit-exact on fsim\n", compared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resnet),
      cmocka_unit_test(test_tilings_dense_nobias),
      cmocka_unit_test(test_tens_refusals),
      cmocka_unit_test(test_sweep),
      cmocka_unit_test(test_fold_refuses),
      cmocka_unit_test(test_deps_refusals),
      cmocka_unit_test(test_ran_plans),
      cmocka_unit_test(test_stages_carried),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
