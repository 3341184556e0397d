/* The inject-dma pass (compiler/accel/inject_dma.c, compiler/accel/README.md "Passes", 3) on a sweep of shapes wider
 * than tests/vta/test_vta_passes.c (kernels 1 and 3, strides 1..3, pads 0..2, forced tilings with
 * one-row/one-column tiles, dense, constant requantization, every config, 1 and 2 virtual threads):
 * each plan goes through every pass and runs on fsim bit-exact against the plain-C reference of
 * vta_check.h; inputs the pass cannot lower are refused with an error naming what it could not
 * lower; the strided-row layout of a 1x1 stride-2 input comes from the reads. */
#include "vta_check.h"

#include <stdlib.h>
#include <string.h>

static int compared, planned_out;

/* The plan through every pass, run on fsim against the reference; tilings the planner refuses
 * (the knobs do not fit or divide) are counted, not run. */
static void check(const char *cfgname, const vta_op *op, int vt, const vta_knobs *kn) {
  vta_plan p;
  if (!plan_of(cfgname, op, vt, kn, true, &p)) {
    planned_out++;
    return;
  }
  vta_check_plan("fsim", &p, 0x5eedu + (uint64_t)compared, false);
  compared++;
}

static void test_conv_sweep(void **st) {
  (void)st;
  static const vta_knobs tiles[] = {
      {0}, {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 1, .t_w = 1}, {.t_n = 1, .t_oc = 2, .t_ic = 1, .t_h = 1, .t_w = 4},
      {.t_n = 1, .t_oc = 1, .t_ic = 2, .t_h = 4, .t_w = 1}, {.t_n = 1, .t_oc = 2, .t_ic = 2, .t_h = 2, .t_w = 2}};
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (int k = 1; k <= 3; k += 2)
      for (int s = 1; s <= 3; s++)
        for (int pad = 0; pad <= 2; pad++)
          for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++)
            for (int vt = 1; vt <= 2; vt++) {
              vta_op op;
              vta_op_conv(&op, "sweep", cfg.batch, 2 * cfg.block_in, 12, 12, 2 * cfg.block_out, k, s, pad);
              op.has_bias = (s + pad) % 2 == 0;
              op.shift = 7;
              op.clip_min = 0;
              check(*c, &op, vt, t ? &tiles[t] : NULL);
            }
  }
  assert_true(compared > 100);
}

static void test_dense_and_requant(void **st) {
  (void)st;
  static const int shifts[] = {-40, -3, 0, 9, 20};
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*c, &cfg, &err), err);
    for (int vt = 1; vt <= 2; vt++)
      for (size_t i = 0; i < sizeof shifts / sizeof shifts[0]; i++) {
        vta_op op;
        vta_op_dense(&op, "fc", 4 * cfg.batch, 4 * cfg.block_in, 8 * cfg.block_out);
        op.has_bias = i % 2, op.shift = shifts[i];
        check(*c, &op, vt, NULL);
        vta_knobs k = {.t_n = 2, .t_oc = 2, .t_ic = 1, .t_h = 1, .t_w = 1};
        check(*c, &op, vt, &k);
      }
  }
}

/* ---------------------------------------------------------------- refusals */

/* The first `attr cache_read` whose copy writes buffer `name`. */
static lir_stmt *find_copy(lir_stmt *s, const char *name) {
  if (!s) return NULL;
  if (s->kind == LIR_S_ATTR && !strcmp(s->key, "cache_read")) {
    lir_stmt *in = s->body;
    while (in && in->kind == LIR_S_FOR) in = in->body;
    if (in && in->kind == LIR_S_STORE && !strcmp(in->buf->name, name)) return in;
  }
  lir_stmt *r = NULL;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n && !r; i++) r = find_copy(s->stmts[i], name);
    return r;
  case LIR_S_IF:
    r = find_copy(s->body, name);
    return r ? r : find_copy(s->else_body, name);
  case LIR_S_FOR: case LIR_S_LET: case LIR_S_ALLOC: case LIR_S_ATTR:
    return find_copy(s->body, name);
  default:
    return NULL;
  }
}

/* The first select expression in s (the reduction's padding select). */
static lir_expr *find_select_e(lir_expr *e) {
  if (!e) return NULL;
  if (e->kind == LIR_E_SELECT) return e;
  for (int i = 0; i < e->nargs; i++) {
    lir_expr *r = find_select_e(e->args[i]);
    if (r) return r;
  }
  return NULL;
}
static lir_expr *find_select(lir_stmt *s) {
  if (!s) return NULL;
  lir_expr *r = NULL;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n && !r; i++) r = find_select(s->stmts[i]);
    return r;
  case LIR_S_STORE:
    return find_select_e(s->value);
  case LIR_S_IF:
    r = find_select(s->body);
    return r ? r : find_select(s->else_body);
  case LIR_S_FOR: case LIR_S_LET: case LIR_S_ALLOC: case LIR_S_ATTR:
    return find_select(s->body);
  default:
    return NULL;
  }
}

static void expect_refused(const vta_plan *p, lir_func *f, const char *needle) {
  ovta_error err = {0};
  int rc = vta_pass_inject_dma(p, 5, f, &err);
  if (rc == OVTA_OK || !strstr(err.msg, needle)) fprintf(stderr, "rc %d: %s (want '%s')\n", rc, err.msg, needle);
  assert_int_equal(rc, OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "inject-dma"));
  assert_non_null(strstr(err.msg, needle));
  lir_func_free(f);
}

static void test_refusals(void **st) {
  (void)st;
  vta_plan p;
  example_plan(&p);
  ovta_error err = {0};
  lir_func *f;
  /* the compute stage: no copies, the output stored from a local accumulator */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_COMPUTE, "k", &f, &err), err);
  expect_refused(&p, f, "not a copy nest");
  /* SRAM dims of the input copy swapped: not a strided transfer */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  lir_stmt *cp = find_copy(f->body, "inp_buf");
  assert_non_null(cp);
  lir_expr *t = cp->idx[3];
  cp->idx[3] = cp->idx[4], cp->idx[4] = t;
  expect_refused(&p, f, "inp_buf");
  /* a DRAM index that is not affine in the copy loops */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  cp = find_copy(f->body, "wgt_buf");
  assert_non_null(cp);
  lir_expr **di = cp->value->args;
  di[2] = lir_bin(f, LIR_FLOORDIV, di[2], lir_i64(f, 2));
  expect_refused(&p, f, "wgt_buf");
  /* the element dims not copied whole */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  cp = find_copy(f->body, "wgt_buf");
  cp->value->args[5] = lir_i64(f, 0);
  expect_refused(&p, f, "element dims");
  /* a padding select whose cache is not zero-padded (the halo clamp dropped from the input copy):
   * the select stays and the pass refuses */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  cp = find_copy(f->body, "inp_buf");
  for (int d = 2; d <= 3; d++) cp->value->args[d] = cp->value->args[d]->args[0]->args[0];
  expect_refused(&p, f, "padding select");
  /* a select whose bound test is off by one row from the position the padded load reads: where it
   * fails the load may hold image data, so the select is not the halo's and stays (refused) */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  lir_expr *sel = find_select(f->body);
  assert_non_null(sel);
  lir_expr *bt = sel->args[0];
  while (bt->kind == LIR_E_BIN && bt->op == LIR_AND) bt = bt->args[0]; /* the first bound test */
  bt->args[0] = lir_add(f, bt->args[0], lir_i64(f, 1));
  expect_refused(&p, f, "padding select");
  /* the same select around a sum instead of a product: a zero load does not make it zero */
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  sel = find_select(f->body);
  sel->args[1]->op = LIR_ADD;
  expect_refused(&p, f, "padding select");
}

/* The in_rs layout comes from the reads: a 1x1 stride-2 conv's input cache keeps only the rows the
 * GEMM reads (t_h rows, DRAM row stride 2W). */
static void test_strided_rows(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  vta_op op;
  vta_op_conv(&op, "ds", 1, 32, 16, 16, 32, 1, 2, 0);
  op.shift = 5;
  vta_plan p;
  vta_knobs k = {.t_n = 1, .t_oc = 1, .t_ic = 1, .t_h = 4, .t_w = 8, .vthreads = 1};
  OVTA_ASSERT_OK(vta_plan_make(&cfg, &op, &k, &p, &err), err);
  assert_int_equal(p.in_rs, 2);
  lir_func *f;
  OVTA_ASSERT_OK(vta_lower(&p, VTA_S_SCHEDULE, "k", &f, &err), err);
  lir_buf *inp = NULL;
  for (int i = 0; i < f->nbufs; i++)
    if (!strcmp(f->bufs[i]->name, "inp_buf")) inp = f->bufs[i];
  assert_non_null(inp);
  assert_int_equal(inp->shape[3], 7); /* (t_h - 1) * 2 + 1 rows in the schedule */
  OVTA_ASSERT_OK(vta_pass_inject_dma(&p, 5, f, &err), err);
  assert_int_equal(inp->shape[3], 4);
  char *s = dump_of(f);
  assert_non_null(strstr(s, ", 15, 4, 32, 0, 0, 0, 0)")); /* 15 columns x 4 rows, row stride 2 x 16 */
  free(s);
}

static void test_compared_something(void **st) {
  (void)st;
  fprintf(stderr, "inject-dma: %d plans run bit-exact on fsim, %d tilings the planner refused\n", compared, planned_out);
  assert_true(compared > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_sweep),   cmocka_unit_test(test_dense_and_requant),
      cmocka_unit_test(test_refusals),     cmocka_unit_test(test_strided_rows),
      cmocka_unit_test(test_compared_something),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
