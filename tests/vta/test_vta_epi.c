/* The chunked epilogue (vta_plan.epi_chunks, compiler/accel/README.md "Chunked epilogue"): every
 * tile's bias MOV, requantization and store in two output-channel chunks, each chunk's store
 * handing its half of the ACC part to the MOV of the tile two later by its own token. Output bytes
 * against the plain-C reference (conv_ref, vta_check.h) on fsim (two module interleavings) and
 * tsim, every config of ovta_test_configs(): 1x1 stride-2 and 3x3 convs, with a bias, without
 * one (the constant fill in chunks; a shift of 20: MOV 1 and a left shift), MAX/MIN clips, a dense
 * layer, one- and several-step tiles; the same plans with whole tiles give the same bytes; the
 * plan takes the form only where it applies; the cost model picks it for ResNet-18 C4. */
#include "vta_check.h"

/* One case: a conv (dense: m = n images x c inputs -> o, on 1x1 images) and its tile knobs (t_oc
 * is every output block: a held bias allows no other with the chunks). */
typedef struct ecase {
  const char *name;
  bool dense;         /* vta_op_dense(m = 4 x BATCH, k = c, n = o) */
  int c, hw, o, k, s; /* channels in, input size, channels out, kernel, stride (pad k/2) */
  bool bias;          /* with a bias */
  int shift, lo, hi;  /* requantization */
  int t_ic, t_h, t_w; /* tile knobs (0: the planner's) */
} ecase;

/* Every config: the case with the chunked epilogue forced plans chunked and runs bit-exact against
 * conv_ref on fsim (seeds 1, 2) and tsim; the whole-tile plan of the same tile on fsim too. */
static void check_chunked(const ecase *e) {
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_config cfg;
    ovta_test_config(*c, &cfg);
    vta_op op;
    if (e->dense) vta_op_dense(&op, e->name, 4 * cfg.batch, e->c, e->o); /* 4 rows of images: 4 tiles */
    else vta_op_conv(&op, e->name, cfg.batch, e->c, e->hw, e->hw, e->o, e->k, e->s, e->k / 2);
    op.has_bias = e->bias, op.shift = e->shift, op.clip_min = e->lo, op.clip_max = e->hi;
    vta_knobs k = {.epi = 2, .t_n = 1, .t_oc = e->o / cfg.block_out, .t_ic = e->t_ic, .t_h = e->t_h, .t_w = e->t_w};
    vta_plan p;
    plan_of(*c, &op, 2, &k, false, &p);
    if (!p.epi_chunks) fail_msg("%s on %s: the plan did not take the chunked epilogue", op.name, *c);
    assert_int_equal(p.q_chunks, 2);
    assert_true(p.tiles > 2);
    vta_check_plan("fsim", &p, 1, false);
    vta_check_plan("fsim", &p, 2, false);
    vta_check_plan("tsim", &p, 3, false);
    k.epi = 1, k.t_ic = p.t_ic, k.t_h = p.t_h, k.t_w = p.t_w;
    plan_of(*c, &op, 2, &k, false, &p);
    assert_false(p.epi_chunks);
    vta_check_plan("fsim", &p, 1, false);
  }
}

/* ResNet-18 C4-like (1x1 stride 2) with several steps a tile and with one, a padded multi-tap kernel. */
static void test_epi_convs(void **state) {
  (void)state;
  static const ecase cs[] = {
      {"c4", false, 32, 14, 32, 1, 2, true, 8, 0, 127, 1, 1, 0},
      {"c4_1step", false, 32, 14, 32, 1, 2, true, 8, -127, 127, 2, 1, 0},
      {"k2pad", false, 16, 8, 32, 2, 1, true, 9, 0, 127, 1, 1, 0}, /* padded 2x2: small fits no 3x3 */
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) check_chunked(&cs[i]);
}

/* No bias (the rounding constant filled in chunks: MOV 2^(s-1); shift 20: MOV 1 and SHR -19),
 * clips outside int8 (MAX and MIN: three passes a chunk), no shift, a dense layer. */
static void test_epi_forms(void **state) {
  (void)state;
  static const ecase cs[] = {
      {"nobias", false, 16, 8, 32, 1, 1, false, 7, 0, 127, 0, 1, 0},
      {"shift20", false, 16, 8, 32, 1, 1, false, 20, -300, 300, 0, 1, 0},
      {"maxmin", false, 16, 8, 32, 1, 1, true, 9, -1000, 1000, 0, 1, 0},
      {"noshift", false, 16, 8, 32, 1, 1, true, 0, -128, 127, 0, 1, 0},
      {"dense", true, 64, 1, 32, 1, 1, true, 9, -128, 127, 1, 0, 0},
  };
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) check_chunked(&cs[i]);
}

/* The form only where it applies (epi_ok): one thread, an odd t_oc, a shared bias with more than
 * one output-channel tile, per-channel shifts; the cost model's pick for ResNet-18 C4 (default). */
static void test_epi_plan(void **state) {
  (void)state;
  vta_op op;
  vta_plan p;
  vta_op_conv(&op, "c4", 1, 64, 56, 56, 128, 1, 2, 0);
  op.has_bias = true, op.shift = 12, op.clip_min = 0;
  plan_of("default", &op, 2, NULL, false, &p);
  assert_true(p.epi_chunks);
  char s[256];
  vta_plan_str(&p, s, sizeof s);
  assert_non_null(strstr(s, "epilogue in 2 chunks"));
  vta_knobs k = {.epi = 2};
  plan_of("default", &op, 1, &k, false, &p);
  assert_false(p.epi_chunks);
  k = (vta_knobs){.epi = 2, .t_oc = 1};
  plan_of("default", &op, 2, &k, false, &p);
  assert_false(p.epi_chunks);
  k = (vta_knobs){.epi = 2, .t_oc = 4};
  plan_of("default", &op, 2, &k, false, &p);
  assert_false(p.epi_chunks); /* the held bias offset by the channel tile and the chunk */
  static int64_t shs[128];
  for (int i = 0; i < 128; i++) shs[i] = 6 + i % 4;
  op.shifts = shs;
  k = (vta_knobs){.epi = 2};
  plan_of("default", &op, 2, &k, false, &p);
  assert_false(p.epi_chunks);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_epi_convs),
      cmocka_unit_test(test_epi_forms),
      cmocka_unit_test(test_epi_plan),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
