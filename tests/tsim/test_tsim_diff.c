/* Differential test of tsim (the Verilator model of hw/rtl) against fsim (the golden model) and
 * the sequential reference interpreter of tests/gen/randprog.c, on random valid programs: every
 * program's output buffer and counters must come out byte for byte the same on all three.
 *
 * Per config (small, default, batch2, wide, wide256, and tests/gen/regress/small-inp4k.json)
 * TSIM_DIFF_SEEDS programs (default 120 / 50 / 40 / 80 / 60 / 60: about a minute in all;
 * `make test-diff-long` runs thousands). small-inp4k (small with a 4 KiB INP SRAM, 512
 * entries, and a 128-entry ACC) is the one config whose INP and ACC depths differ, so its GEMM
 * and ALU formats place the src factors at different bits (an ALU once took GEMM's, ovta
 * issue 18). wide (a
 * 512-bit bus) and wide256 (256 bits) have INP/OUT (and wide: ACC) elements and micro-ops
 * narrower than a beat, so most rows start or end inside a beat (dram_base is a random element)
 * and many are narrower than one. Four program shapes (the default
 * generator options, long micro-op loops, many small tiles, no hermetic prologue). A mismatch
 * prints its config, shape and seed, and saves the program as build/randprog-fail/CONFIG-SEED.s;
 *   build/ovta-randprog --diff --config CONFIG --seeds SEED:SEED --backends fsim,tsim [SHAPE]
 * with the shape's options (printed too) reproduces it, as does `ovta sim` on the saved file. */
#include "ovta_test.h"

#include "randprog.h"

typedef struct shape {
  const char *name;
  const char *args;  /* the ovta-randprog options of the shape */
  void (*set)(rp_opts *o);
} shape;

static void sh_default(rp_opts *o) { (void)o; }
static void sh_long(rp_opts *o) {
  o->max_uops = 24;
  o->max_iters = 96;
  o->max_tiles = 3;
}
static void sh_tiles(rp_opts *o) {
  o->max_tiles = 16;
  o->max_ops = 2;
  o->max_uops = 3;
}
static void sh_open(rp_opts *o) { o->hermetic = false; }

static const shape shapes[] = {
    {"default", "", sh_default},
    {"long", "--uops 24 --iters 96 --tiles 3", sh_long},
    {"tiles", "--tiles 16 --ops 2 --uops 3", sh_tiles},
    {"open", "--no-hermetic", sh_open},
};

static void diff_config(const char *config, int dflt) {
  int bad = 0, n = ovta_test_env_int("TSIM_DIFF_SEEDS", dflt);
  const char *specs = "fsim,tsim";
  for (int s = 1; s <= n && bad < 5; s++) {
    const shape *sh = &shapes[s % 4];
    rp_opts o;
    rp_opts_default(&o);
    sh->set(&o);
    char why[1024];
    int rc = rp_diff(config, &o, (uint64_t)s, specs, "build/randprog-fail", why, sizeof why);
    if (rc) {
      print_error("MISMATCH config %s shape %s seed %d: %s\n  reproduce: build/ovta-randprog --diff "
                  "--config %s --seeds %d:%d --backends %s %s\n",
                  config, sh->name, s, why, config, s, s, specs, sh->args);
      bad++;
      if (rc < 0) break;
    }
  }
  if (bad) fail_msg("%d program(s) of config %s differ between fsim and tsim (seeds above)", bad, config);
}

static void diff_small(void **st) { diff_config("small", 120); }
static void diff_default(void **st) { diff_config("default", 50); }
static void diff_batch2(void **st) { diff_config("batch2", 40); }
static void diff_wide(void **st) { diff_config("wide", 80); }
static void diff_wide256(void **st) { diff_config("wide256", 60); }
static void diff_small_inp4k(void **st) { diff_config(OVTA_SRC_DIR "/tests/gen/regress/small-inp4k.json", 60); }

/* The spec NAME=LIB (make test-netlist: "tsim,tsim=NETLIST.so") runs NAME on another model: a
 * library that does not exist fails the run with its path in the message; a second copy of the
 * same model agrees on bytes, counters and (a repeated NAME) every cycle counter. */
static void diff_model_override(void **st) {
  char why[1024], lib[1024];
  int rc = rp_diff("small", NULL, 3, "tsim=/nonexistent/libovta_tsim.so", NULL, why, sizeof why);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(why, "/nonexistent/libovta_tsim.so"));
  snprintf(lib, sizeof lib, "%s/build/tsim/small/libovta_tsim.so", OVTA_SRC_DIR);
  char specs[1100];
  snprintf(specs, sizeof specs, "tsim,tsim=%s", lib);
  for (int s = 1; s <= 8; s++) {
    rc = rp_diff("small", NULL, (uint64_t)s, specs, "build/randprog-fail", why, sizeof why);
    if (rc) fail_msg("seed %d on %s: %s", s, specs, why);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(diff_small),
      cmocka_unit_test(diff_default),
      cmocka_unit_test(diff_batch2),
      cmocka_unit_test(diff_wide),
      cmocka_unit_test(diff_wide256),
      cmocka_unit_test(diff_small_inp4k),
      cmocka_unit_test(diff_model_override),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
