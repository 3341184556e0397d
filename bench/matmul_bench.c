/* matmul_bench: the blocked, requantized matmul of tests/runtime/rt_matmul.h through the JIT
 * runtime with 1 and 2 virtual threads, on each backend (env OVTA_BENCH_BACKENDS, default "fsim")
 * and config (env OVTA_BENCH_CONFIGS, default "default,small,batch2"). Prints one JSON object
 * per line: instructions and micro-ops issued (runtime counters), wall time, the device counters
 * and, when the backend reports cycles (tsim), cycles and GEMM utilization =
 * MACs / (cycles * BATCH*BLOCK_IN*BLOCK_OUT). The result is checked against the plain-C
 * reference ("correct"). Two cases per config: "tile", the shape of tests/runtime (default
 * 256x256x64: a quarter of its micro-ops are ALU, an eighth resets), and "compute_bound"
 * (mm_shape_compute_bound: K = 1024, big tiles, GEMM dominates). Usage: make bench-matmul */
#include <stdio.h>

#include "rt_matmul.h"

static int bench_one(const char *backend, const char *cfgname, int vt, bool compute_bound) {
  ovta_error err = {0};
  ovta_config cfg;
  ovta_dev *dev = NULL;
  ovta_rt *rt = NULL;
  mm_run r = {0};
  int rc = ovta_config_load(cfgname, &cfg, &err);
  if (!rc) rc = ovta_dev_open(backend, &cfg, NULL, &dev, &err);
  if (rc) {
    ovta_error_print(stderr, &err);
    return rc;
  }
  mm_shape s = compute_bound ? mm_shape_compute_bound(&cfg) : mm_shape_for(&cfg);
  rc = mm_setup(dev, &s, 1, &r, &err);
  if (!rc) rc = ovta_rt_create(dev, NULL, &rt, &err);
  double t0 = ovta_now_s();
  if (!rc) rc = mm_issue(rt, &s, vt, r.ba, r.bw, r.bc, &err);
  if (!rc) rc = ovta_rt_synchronize(rt, 0, &err);
  double t1 = ovta_now_s();
  if (!rc) rc = mm_collect(dev, &r, &err);
  if (rc) {
    ovta_error_print(stderr, &err);
  } else {
    ovta_rt_stats st;
    ovta_rt_stats_get(rt, &st);
    ovta_counters ct;
    ovta_dev_counters(dev, &ct);
    bool ok = memcmp(r.got, r.ref, (size_t)s.m * s.n) == 0;
    uint64_t macs = (uint64_t)s.m * s.n * s.k;
    char *rj = ovta_rt_stats_to_json(&st), *dj = ovta_counters_to_json(&ct);
    printf("{\"bench\": \"matmul\", \"case\": \"%s\", \"backend\": \"%s\", \"config\": \"%s\", "
           "\"virtual_threads\": %d, \"m\": %d, \"n\": %d, \"k\": %d, \"correct\": %s, \"insns\": %llu, \"uops_recorded\": %llu, "
           "\"gemm_uops\": %llu, \"alu_uops\": %llu, \"macs\": %llu, \"wall_ms\": %.3f",
           compute_bound ? "compute_bound" : "tile", backend, cfgname, vt, s.m, s.n, s.k, ok ? "true" : "false", (unsigned long long)st.insns,
           (unsigned long long)st.uops_recorded, (unsigned long long)ct.gemm_uops, (unsigned long long)ct.alu_uops,
           (unsigned long long)macs, (t1 - t0) * 1e3);
    if (ct.cycles) {
      double util = (double)macs / ((double)ct.cycles * cfg.batch * cfg.block_in * cfg.block_out);
      printf(", \"cycles\": %llu, \"gemm_utilization\": %.4f", (unsigned long long)ct.cycles, util);
    }
    printf(", \"runtime\": %s, \"device\": %s}\n", rj ? rj : "null", dj ? dj : "null");
    free(rj);
    free(dj);
    if (!ok) rc = OVTA_EINTERNAL;
  }
  ovta_rt_destroy(rt);
  mm_free(&r);
  ovta_dev_close(dev);
  return rc;
}

int main(void) {
  const char *be = getenv("OVTA_BENCH_BACKENDS"), *cf = getenv("OVTA_BENCH_CONFIGS");
  const char *backends = be && *be ? be : "fsim", *configs = cf && *cf ? cf : "default,small,batch2";
  int fails = 0;
  char b[256], c[256];
  for (const char *pb = backends; ovta_list_next(&pb, ", ", b, sizeof b);)
    for (const char *pc = configs; ovta_list_next(&pc, ", ", c, sizeof c);)
      for (int cb = 0; cb <= 1; cb++)
        for (int vt = 1; vt <= 2; vt++) fails += bench_one(b, c, vt, cb) != 0;
  return fails ? 1 : 0;
}
