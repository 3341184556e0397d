/* against.h: run one directed program (built by tests/fsim/prog.h) on two backends and compare
 * them: every DRAM buffer byte for byte, the result code, the failing instruction's index and
 * the counters both count. Used by the tsim tests (fsim against the Verilator model) and the
 * board tests (fsim against the virtual board). Header-only, like prog.h. */
#ifndef OVTA_TEST_AGAINST_H
#define OVTA_TEST_AGAINST_H

#include "fsim/prog.h"

#define TP_MAXB 16

/* The DRAM buffers of a program: all of them come back for the comparison. */
typedef struct tp_bufs {
  ovta_buf *b[TP_MAXB]; /* every buffer of the program, in allocation order */
  int n;                /* count */
} tp_bufs;

static inline ovta_buf *tp_keep(tp_bufs *bs, ovta_buf *b) {
  assert_true(bs->n < TP_MAXB);
  bs->b[bs->n++] = b;
  return b;
}

/* A buffer of n random bytes, kept. */
static inline ovta_buf *tp_rand_buf(tprog *p, tp_bufs *bs, size_t n, uint64_t *seed) {
  uint8_t *d = malloc(n);
  for (size_t i = 0; i < n; i++) d[i] = (uint8_t)tp_rand(seed);
  ovta_buf *b = tp_buf_from(p, d, n);
  free(d);
  return tp_keep(bs, b);
}

/* Store OUT [0, n) into `out`, then shift the accumulators right by 8 and store again, four
 * times, so all 32 accumulator bits reach DRAM; ends with FINISH. The previous instruction must
 * push_next (C2S). u_self: index of a micro-op {dst 0, src 0}. */
static inline void tp_store_words(tprog *p, ovta_buf *out, uint32_t n, uint32_t u_self) {
  for (uint32_t k = 0; k < 4; k++) {
    if (k) tp_deps(tp_alu(p, OVTA_ALU_SHR, 1, 8, u_self, u_self + 1, n, 1, 1), 0, 1, 0, 1);
    tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, (size_t)k * n * p->cfg->out_bytes), 1, n, n), 1, 0, 1, 0);
  }
  tp_deps(tp_finish(p), 0, 1, 0, 0);
}

/* Builds a program (variant: the test's own variations) and keeps its buffers. */
typedef void (*tp_builder)(tprog *p, tp_bufs *bs, int variant);
/* Runs the built program (tp_run, or a variant of it). */
typedef int (*tp_runner)(tprog *p, uint32_t timeout_ms);

/* What a run left behind. */
typedef struct tp_outcome {
  int rc;                 /* run result */
  char msg[768];          /* its message */
  uint8_t *dram[TP_MAXB]; /* every buffer after the run */
  size_t size[TP_MAXB];   /* their sizes */
  int n;                  /* count */
  ovta_counters k;        /* counters */
} tp_outcome;

static inline void tp_outcome_run(const char *backend, const char *config, tp_builder fn, int variant, tp_runner run,
                                  tp_outcome *o) {
  tprog p;
  tp_bufs bs = {0};
  tp_open(&p, backend, config, 0);
  fn(&p, &bs, variant);
  o->rc = run ? run(&p, 120000) : tp_run(&p, 120000);
  snprintf(o->msg, sizeof o->msg, "%s", p.err.msg);
  o->n = bs.n;
  for (int i = 0; i < bs.n; i++) {
    o->size[i] = bs.b[i]->size;
    o->dram[i] = tp_read(&p, bs.b[i], 0, bs.b[i]->size);
  }
  ovta_dev_counters(p.dev, &o->k);
  tp_close(&p);
}

static inline void tp_outcome_free(tp_outcome *o) {
  for (int i = 0; i < o->n; i++) free(o->dram[i]), o->dram[i] = NULL;
}

/* The index N of "instruction N" in a message, or -1. */
static inline long tp_insn_index(const char *msg) {
  const char *s = strstr(msg, "instruction ");
  return s ? strtol(s + 12, NULL, 10) : -1;
}

/* Run fn on fsim (the golden model) and on `backend` with `config`; fsim must give expect_rc,
 * the backend the same result, failing instruction, DRAM bytes and (on success) counters. */
static inline void tp_against_fsim(const char *backend, const char *config, tp_builder fn, int variant,
                                   tp_runner run, int expect_rc) {
  tp_outcome f = {0}, t = {0};
  tp_outcome_run("fsim", config, fn, variant, run, &f);
  tp_outcome_run(backend, config, fn, variant, run, &t);
  if (f.rc != expect_rc) fail_msg("%s variant %d: fsim gave %s: %s", config, variant, ovta_rc_name(f.rc), f.msg);
  if (t.rc != f.rc)
    fail_msg("%s variant %d: fsim %s (%s) but %s %s (%s)", config, variant, ovta_rc_name(f.rc), f.msg, backend,
             ovta_rc_name(t.rc), t.msg);
  if (f.rc == OVTA_EINSN && tp_insn_index(t.msg) != tp_insn_index(f.msg))
    fail_msg("%s variant %d: fsim '%s' but %s '%s'", config, variant, f.msg, backend, t.msg);
  assert_int_equal(t.n, f.n);
  for (int i = 0; i < f.n; i++)
    for (size_t j = 0; j < f.size[i]; j++)
      if (f.dram[i][j] != t.dram[i][j])
        fail_msg("%s variant %d: buffer %d byte %zu: fsim %02x %s %02x", config, variant, i, j, f.dram[i][j],
                 backend, t.dram[i][j]);
  if (f.rc == OVTA_OK) {
    assert_int_equal(t.k.insns_load, f.k.insns_load);
    assert_int_equal(t.k.insns_compute, f.k.insns_compute);
    assert_int_equal(t.k.insns_store, f.k.insns_store);
    assert_int_equal(t.k.gemm_uops, f.k.gemm_uops);
    assert_int_equal(t.k.alu_uops, f.k.alu_uops);
    assert_int_equal(t.k.bytes_written, f.k.bytes_written);
    for (int m = 0; m < OVTA_MEM_COUNT; m++) assert_int_equal(t.k.bytes_read[m], f.k.bytes_read[m]);
    assert_true(t.k.cycles > 0);
  }
  tp_outcome_free(&f);
  tp_outcome_free(&t);
}

#endif
