/* Runtime matmul tests: the blocked, requantized int8 matmul of rt_matmul.h (ALU SHR, MAX 0,
 * MIN 127 before the store) through the runtime with one and with two virtual threads, and with
 * a stream much longer than max_insns (auto flush), on every config and every backend of
 * OVTA_TEST_BACKENDS. Each result is compared bit for bit with the plain-C reference
 * mm_reference (computed directly from A and W). On fsim each case also runs with a random
 * module interleaving (seeded), so a missing dependency token shows up as a wrong result. */
#include "ovta_test_dev.h"
#include "ovta_runtime.h"
#include "rt_matmul.h"

#include <stdio.h>
#include <unistd.h>

static bool g_no_overlap;   /* run_case: ovta_rt_opts.no_overlap */
static uint64_t g_cycles;   /* run_case: the device's cycles (0 on fsim) */

/* Run the matmul once; returns the runtime counters through *st. */
static void run_case(const char *backend, const char *cfgname, uint64_t seed, int vt, uint32_t max_insns,
                     ovta_rt_stats *st) {
  ovta_error err = {0};
  ovta_config cfg;
  ovta_dev_opts o = {0};
  o.seed = seed;
  ovta_dev *dev = ovta_test_dev_open(backend, cfgname, &o, &cfg);
  mm_shape s = mm_shape_for(&cfg);
  mm_run r;
  OVTA_ASSERT_OK(mm_setup(dev, &s, (uint32_t)(seed + 3 * (uint64_t)vt), &r, &err), err);
  ovta_rt_opts ro = {0};
  ro.max_insns = max_insns;
  ro.timeout_ms = 60000;
  ro.no_overlap = g_no_overlap;
  ovta_rt *rt;
  OVTA_ASSERT_OK(ovta_rt_create(dev, &ro, &rt, &err), err);
  OVTA_ASSERT_OK(mm_issue(rt, &s, vt, r.ba, r.bw, r.bc, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 60000, &err), err);
  assert_int_equal(ovta_rt_pending_insns(rt), 0);
  OVTA_ASSERT_OK(mm_collect(dev, &r, &err), err);
  size_t nc = (size_t)s.m * s.n;
  size_t bad = 0, first = nc;
  for (size_t i = 0; i < nc; i++)
    if (r.got[i] != r.ref[i]) {
      if (first == nc) first = i;
      bad++;
    }
  if (bad)
    fail_msg("%s/%s seed %llu vt %d max_insns %u: %zu of %zu outputs differ, first C[%zu][%zu] = %d, expected %d",
             backend, cfgname, (unsigned long long)seed, vt, max_insns, bad, nc, first / (size_t)s.n,
             first % (size_t)s.n, r.got[first], r.ref[first]);
  /* the reference is not degenerate: some outputs are clamped, some are in between */
  size_t mid = 0;
  for (size_t i = 0; i < nc; i++) mid += r.ref[i] > 0 && r.ref[i] < 127;
  assert_true(mid > nc / 8);
  /* the device did exactly the GEMM work of the shape: m/BATCH * n/BLOCK_OUT * k/BLOCK_IN */
  ovta_counters ct;
  ovta_dev_counters(dev, &ct);
  if (max_insns == 0)
    assert_int_equal(ct.gemm_uops, (uint64_t)(s.m / cfg.batch) * (s.n / cfg.block_out) * (s.k / cfg.block_in) +
                                       (uint64_t)(s.m / cfg.batch) * (s.n / cfg.block_out)); /* + resets */
  g_cycles = ct.cycles;
  ovta_rt_stats_get(rt, st);
  ovta_rt_destroy(rt);
  mm_free(&r);
  ovta_dev_close(dev);
}

static void matmul_all(int vt) {
  for (const char *const *b = ovta_test_backends(); *b; b++)
    for (const char *const *c = ovta_test_configs(); *c; c++) {
      uint64_t seeds[] = {0, 12345};
      int nseeds = strcmp(*b, "fsim") ? 1 : 2; /* seeds only change fsim's interleaving */
      for (int i = 0; i < nseeds; i++) {
        ovta_rt_stats st;
        run_case(*b, *c, seeds[i], vt, 0, &st);
        assert_int_equal(st.runs, 1);
        assert_int_equal(st.auto_flushes, 0);
        /* kernels: reset/ALU per ACC part, GEMM per (ACC part, INP/WGT part) pair used */
        assert_int_equal(st.kernels_recorded, vt == 1 ? 2 : 6);
        assert_int_equal(st.kernel_loads, st.kernels_recorded); /* all fit: loaded once */
        assert_int_equal(st.evictions, 0);
        assert_int_equal(st.insns_op[OVTA_OP_FINISH], 1);
        /* jit-runtime/README.md "Overlap": with two threads the requantization of one tile
         * runs beside the GEMMs of the next (the other ACC part); with one, nothing may */
        assert_int_equal(st.overlap_reverted, 0);
        if (vt == 1) assert_int_equal(st.overlap_marked, 0);
        else assert_true(st.overlap_marked > 0);
      }
    }
}

/* The same two-thread matmul with and without overlap on tsim: the same outputs (run_case checks
 * them against the reference) in fewer cycles, by at least a quarter of the ALU micro-ops (two steps a tile, three passes). */
static void test_overlap_cycles(void **state) {
  (void)state;
  for (const char *const *c = ovta_test_configs(); *c; c++) {
    ovta_rt_stats st[2];
    uint64_t cyc[2];
    for (int v = 0; v < 2; v++) {
      g_no_overlap = v == 1;
      run_case("tsim", *c, 0, 2, 0, &st[v]);
      cyc[v] = g_cycles;
    }
    g_no_overlap = false;
    ovta_config cfg;
    ovta_test_config(*c, &cfg);
    mm_shape s = mm_shape_for(&cfg);
    uint64_t alu = 3ull * (uint64_t)(s.m / cfg.batch) * (uint64_t)(s.n / cfg.block_out); /* SHR, MAX, MIN */
    print_message("%s: %llu cycles with overlap (%llu marked), %llu without; %llu ALU micro-ops\n", *c,
                  (unsigned long long)cyc[0], (unsigned long long)st[0].overlap_marked,
                  (unsigned long long)cyc[1], (unsigned long long)alu);
    assert_int_equal(st[1].overlap_marked, 0);
    assert_true(st[0].overlap_marked > 0);
    assert_true(cyc[0] + alu / 4 <= cyc[1]);
  }
}

static void test_matmul_one_thread(void **state) {
  (void)state;
  matmul_all(1);
}

static void test_matmul_two_threads(void **state) {
  (void)state;
  matmul_all(2);
}

/* A stream limited to 23 instructions per run: the matmul splits into many runs, tokens of the
 * two virtual threads are carried across each split, kernels stay resident across runs. */
static void test_auto_flush(void **state) {
  (void)state;
  for (const char *const *b = ovta_test_backends(); *b; b++)
    for (const char *const *c = ovta_test_configs(); *c; c++)
      for (int vt = 1; vt <= 2; vt++) {
        ovta_rt_stats st;
        run_case(*b, *c, strcmp(*b, "fsim") ? 0 : 777, vt, 23, &st);
        assert_true(st.auto_flushes >= 3);
        assert_int_equal(st.runs, st.auto_flushes + 1);
        assert_int_equal(st.insns_op[OVTA_OP_FINISH], st.runs);
        assert_int_equal(st.kernel_loads, st.kernels_recorded); /* never reloaded across runs */
      }
}

/* The dump (env OVTA_RT_DEBUG, OVTA_RT_DEBUG_FILE) holds one line per instruction issued and one
 * "uop" line per micro-op recorded, in the assembler's text form. */
static void test_debug_dump(void **state) {
  (void)state;
  char path[64];
  ovta_test_tmpfile(path, sizeof path, "rt-dump");
  setenv("OVTA_RT_DEBUG", "1", 1); /* instructions only */
  setenv("OVTA_RT_DEBUG_FILE", path, 1);
  ovta_error err = {0};
  ovta_config cfg;
  ovta_dev *dev = ovta_test_dev_open("fsim", "small", NULL, &cfg);
  mm_shape s = mm_shape_for(&cfg);
  mm_run r;
  OVTA_ASSERT_OK(mm_setup(dev, &s, 5, &r, &err), err);
  ovta_rt *rt;
  ovta_rt_opts ro = {0};
  ro.debug = OVTA_RT_DEBUG_UOPS; /* or'ed with the env var */
  OVTA_ASSERT_OK(ovta_rt_create(dev, &ro, &rt, &err), err);
  unsetenv("OVTA_RT_DEBUG");
  unsetenv("OVTA_RT_DEBUG_FILE");
  OVTA_ASSERT_OK(mm_issue(rt, &s, 2, r.ba, r.bw, r.bc, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 60000, &err), err);
  ovta_rt_stats st;
  ovta_rt_stats_get(rt, &st);
  ovta_rt_destroy(rt); /* closes the dump file */
  mm_free(&r);
  ovta_dev_close(dev);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[2048];
  uint64_t ops[OVTA_OP_COUNT] = {0}, uops = 0, configs = 0;
  while (fgets(line, sizeof line, f)) {
    for (int op = 0; op < OVTA_OP_COUNT; op++) {
      size_t l = strlen(ovta_opcode_names[op]);
      if (!strncmp(line, ovta_opcode_names[op], l) && (line[l] == ' ' || line[l] == '\n')) ops[op]++;
    }
    if (!strncmp(line, "uop dst_idx=", 12)) uops++;
    if (!strncmp(line, ".config small", 13)) configs++;
  }
  fclose(f);
  unlink(path);
  assert_int_equal(configs, 1);
  for (int op = 0; op < OVTA_OP_COUNT; op++) assert_int_equal(ops[op], st.insns_op[op]);
  /* hand count: 2 one-uop tile kernels + 4 GEMM kernels of tk = 2 uops */
  assert_int_equal(uops, 2 * 1 + 4 * 2);
  assert_int_equal(st.uops_recorded, uops);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_one_thread),
      cmocka_unit_test(test_matmul_two_threads),
      cmocka_unit_test(test_overlap_cycles),
      cmocka_unit_test(test_auto_flush),
      cmocka_unit_test(test_debug_dump),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
