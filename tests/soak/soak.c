/* Soak test: one device per config runs, over and over, a fixed reference program, random valid
 * programs (tests/gen/randprog.h) and bad programs (deadlock, out-of-range index, DRAM outside
 * its buffer, a loop stopped by a timeout, an undecodable word, no FINISH), interleaved. Checks:
 * the reference program's output never drifts from its first run nor from the sequential
 * reference; every random program matches its reference although the device holds what earlier
 * programs left in SRAM (the programs are hermetic); every bad program fails with its error code
 * and a message; no DMA buffer is leaked; the device stays usable after every error.
 *
 *   SOAK_SECONDS=N   run for N seconds (make soak: 60)
 *   SOAK_ITERS=N     run N rounds (default 30 when neither is set: the quick version in TESTS)
 *   SOAK_BACKEND=B   backend (default fsim); SOAK_SEED=N interleaving seed of the device (default 0)
 * Prints cmocka-style result lines and one JSON line of totals. */
#include <stdlib.h>
#include <string.h>

#include "driver_impl.h"
#include "ovta_tool.h"
#include "randprog.h"

typedef struct totals {
  unsigned long rounds, reference_runs, random_runs, bad_runs, failures;
} totals;

static void failure(totals *t, const char *cfg, const char *fmt, const char *a, const char *b) {
  t->failures++;
  if (t->failures <= 10) printf("[  ERROR   ] %s: %s%s%s\n", cfg, fmt, a ? a : "", b ? b : "");
}

/* Bad programs as text, with the code each must fail with. */
static const struct {
  const char *name;
  int code;
  const char *text;
} bad[] = {
    {"deadlock", OVTA_EDEADLOCK, "GEMM pop_prev=1 uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\nFINISH\n"},
    {"index", OVTA_EINSN, ".buffer u 4\n.uops u\nuop dst_idx=1\nLOAD memory_type=UOP dram_base=@u y_size=1 x_size=1 x_stride=1\n"
                          "GEMM reset=1 uop_bgn=0 uop_end=1 iter_out=200 iter_in=1 dst_factor_out=100\nFINISH\n"},
    {"dram", OVTA_EINSN, ".buffer a 64\nLOAD memory_type=ACC dram_base=@a+64 y_size=1 x_size=1 x_stride=1\nFINISH\n"},
    {"timeout", OVTA_ETIMEOUT, "GEMM uop_bgn=0 uop_end=64 iter_out=16383 iter_in=16383\nFINISH\n"},
    {"nofinish", OVTA_EINSN, "GEMM uop_bgn=0 uop_end=0 iter_out=1 iter_in=1\n"},
    {"room", OVTA_EDEADLOCK, "FINISH push_next=1\nFINISH push_next=1\nFINISH push_next=1\nFINISH push_next=1\n"
                             "FINISH push_next=1\n"}, /* only a deadlock when DEP_QUEUE_DEPTH < 5 */
};

static int run_bad(ovta_dev *dev, int k, ovta_error *err) {
  if (k == (int)(sizeof bad / sizeof bad[0])) { /* an undecodable word: opcode 7 */
    ovta_buf *b;
    uint8_t w[16] = {7};
    int rc = ovta_buf_alloc(dev, 16, &b, err);
    if (rc) return rc;
    ovta_buf_write(b, 0, w, 16, err);
    rc = ovta_dev_run(dev, b->phys, 1, 1000, err);
    ovta_buf_free(b);
    return rc;
  }
  ovta_program p;
  ovta_asm_diag diag;
  int rc = ovta_asm_parse(bad[k].text, bad[k].name, ovta_dev_config(dev), &p, &diag, err);
  if (rc) return OVTA_EINTERNAL;
  ovta_loaded l;
  rc = ovta_program_load(dev, &p, &l, err);
  if (!rc) rc = ovta_dev_run(dev, l.insn_phys, l.insn_count, 30, err);
  ovta_loaded_free(&l);
  ovta_program_free(&p);
  return rc;
}

static void soak_config(const char *config, const char *backend, uint64_t dev_seed, double seconds,
                        unsigned long iters, uint64_t *rng, totals *t) {
  ovta_config cfg;
  ovta_isa isa;
  ovta_error err;
  if (ovta_config_load(config, &cfg, &err) || ovta_isa_init(&isa, &cfg, &err)) {
    failure(t, config, "config: ", err.msg, NULL);
    return;
  }
  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.seed = dev_seed;
  o.dram_bytes = 64u << 20;
  ovta_dev *dev;
  if (ovta_dev_open(backend, &cfg, &o, &dev, &err)) {
    failure(t, config, "open: ", err.msg, NULL);
    return;
  }
  ovta_program ref;
  rp_result want, first = {0};
  if (rp_generate(&isa, NULL, 424242, &ref, &err) || rp_reference(&ref, &want, &err)) {
    failure(t, config, "reference program: ", err.msg, NULL);
    ovta_dev_close(dev);
    return;
  }
  size_t bufs0 = dev->n_bufs;
  uint64_t t0 = ovta_now_ms();
  int n_bad = (int)(sizeof bad / sizeof bad[0]) + 1;
  for (unsigned long r = 0;; r++) {
    if (seconds > 0 ? (double)(ovta_now_ms() - t0) >= seconds * 1000 : r >= iters) break;
    t->rounds++;
    char why[1024];
    /* the reference program */
    rp_result got;
    if (rp_run_dev(dev, &ref, 60000, &got, &err)) failure(t, config, "reference run failed: ", err.msg, NULL);
    else {
      if (rp_compare(&want, &got, why, sizeof why) > 0) failure(t, config, "reference output drifted: ", why, NULL);
      if (!first.bytes) first = got;
      else {
        if (rp_compare(&first, &got, why, sizeof why) > 0) failure(t, config, "differs from the first run: ", why, NULL);
        rp_result_free(&got);
      }
    }
    t->reference_runs++;
    /* a random program, checked against its own reference */
    *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t seed = *rng >> 20;
    ovta_program p;
    rp_result pw, pg;
    if (rp_generate(&isa, NULL, seed, &p, &err) || rp_reference(&p, &pw, &err)) {
      failure(t, config, "generator: ", err.msg, NULL);
    } else {
      if (rp_run_dev(dev, &p, 60000, &pg, &err)) failure(t, config, "random program failed: ", err.msg, NULL);
      else {
        if (rp_compare(&pw, &pg, why, sizeof why) > 0) {
          snprintf(why + strlen(why), sizeof why - strlen(why), " (seed %llu)", (unsigned long long)seed);
          failure(t, config, "random program differs: ", why, NULL);
        }
        rp_result_free(&pg);
      }
      rp_result_free(&pw);
      ovta_program_free(&p);
    }
    t->random_runs++;
    /* a bad program: its error, with a message */
    int k = (int)(r % (unsigned long)n_bad);
    ovta_error_clear(&err);
    int rc = run_bad(dev, k, &err);
    int want_rc = k < n_bad - 1 ? bad[k].code : OVTA_EINSN;
    if (k < n_bad - 1 && !strcmp(bad[k].name, "room") && cfg.dep_queue_depth >= 5) want_rc = OVTA_OK;
    if (rc != want_rc || (rc && !err.msg[0])) {
      snprintf(why, sizeof why, "bad program %s gave %s (expected %s): ", k < n_bad - 1 ? bad[k].name : "opcode",
               ovta_rc_name(rc), ovta_rc_name(want_rc));
      failure(t, config, why, err.msg, NULL);
    }
    t->bad_runs++;
  }
  rp_result_free(&first);
  rp_result_free(&want);
  ovta_program_free(&ref);
  if (dev->n_bufs != bufs0) failure(t, config, "DMA buffers leaked", NULL, NULL);
  ovta_dev_close(dev);
}

int main(void) {
  const char *e;
  double seconds = (e = getenv("SOAK_SECONDS")) ? atof(e) : 0;
  unsigned long iters = (e = getenv("SOAK_ITERS")) ? strtoul(e, NULL, 0) : 30;
  const char *backend = (e = getenv("SOAK_BACKEND")) && *e ? e : "fsim";
  uint64_t dev_seed = (e = getenv("SOAK_SEED")) ? strtoull(e, NULL, 0) : 0;
  static const char *const configs[] = {"small", "default", "batch2"};
  totals t = {0};
  uint64_t rng = 12345;
  printf("[==========] soak on %s: %s\n", backend,
         seconds > 0 ? "time-bounded" : "round-bounded");
  uint64_t t0 = ovta_now_ms();
  for (int c = 0; c < 3; c++) {
    unsigned long before = t.failures;
    soak_config(configs[c], backend, dev_seed, seconds / 3, iters, &rng, &t);
    printf("[ %s ] soak %s\n", t.failures == before ? "      OK" : " FAILED ", configs[c]);
  }
  printf("{\"backend\": \"%s\", \"seconds\": %.1f, \"rounds\": %lu, \"reference_runs\": %lu, \"random_runs\": %lu, "
         "\"bad_runs\": %lu, \"failures\": %lu}\n",
         backend, (double)(ovta_now_ms() - t0) / 1000, t.rounds, t.reference_runs, t.random_runs, t.bad_runs,
         t.failures);
  if (t.failures) {
    printf("[  FAILED  ] 1 test(s), listed below:\n[  FAILED  ] soak\n");
    return 1;
  }
  printf("[  PASSED  ] 1 test(s).\n");
  return 0;
}
