/* prog.h: a small builder for test programs: instruction streams (encoded with
 * ovta_insn_encode), micro-op buffers (ovta_uop_encode) and DRAM data buffers, run on any
 * backend through the driver. Header-only; include after ovta_test.h. Failures in set-up are
 * cmocka failures; the run's own result is returned for the test to check.
 *
 *   tprog p; tp_open(&p, "fsim", "small", 0);
 *   ovta_buf *x = tp_buf(&p, bytes);           // data buffer (zeroed)
 *   tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, x, OVTA_MEM_INP, 0), 1, 4, 4)->push_next = 1;
 *   ...; tp_finish(&p);
 *   int rc = tp_run(&p, 0);                     // p.err holds the message
 *   tp_close(&p);
 */
#ifndef OVTA_TEST_PROG_H
#define OVTA_TEST_PROG_H

#include "ovta_test_dev.h"

/* One instruction of a program: decoded fields, or raw bits (to test bad words). */
typedef struct tp_entry {
  ovta_insn in;        /* fields to encode */
  bool raw;            /* use bits as they are */
  ovta_insn_bits bits; /* raw instruction words */
} tp_entry;

typedef struct tprog {
  ovta_dev *dev;            /* the device */
  const ovta_isa *isa;      /* its ISA */
  const ovta_config *cfg;   /* its config */
  ovta_config cfg_store;    /* the loaded config (dev refers to it) */
  tp_entry *e;              /* instructions */
  size_t n, cap;            /* count and capacity */
  ovta_buf *stream;         /* the last run's instruction buffer */
  ovta_error err;           /* the last failing call's error */
} tprog;

/* tp_open with device options (dram_bytes 0: 64 MiB). */
static inline void tp_open_opts(tprog *p, const char *backend, const char *config, const ovta_dev_opts *opts) {
  memset(p, 0, sizeof *p);
  ovta_dev_opts o = *opts;
  if (!o.dram_bytes) o.dram_bytes = 64u << 20;
  p->dev = ovta_test_dev_open(backend, config, &o, &p->cfg_store);
  p->isa = ovta_dev_isa(p->dev);
  p->cfg = ovta_dev_config(p->dev);
}

static inline void tp_open(tprog *p, const char *backend, const char *config, uint64_t seed) {
  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.seed = seed;
  tp_open_opts(p, backend, config, &o);
}

/* Forget the instructions (keep the device, its SRAMs and buffers). */
static inline void tp_reset(tprog *p) {
  p->n = 0;
  if (p->stream) ovta_buf_free(p->stream);
  p->stream = NULL;
}

static inline void tp_close(tprog *p) {
  tp_reset(p);
  free(p->e);
  ovta_dev_close(p->dev);
  memset(p, 0, sizeof *p);
}

static inline tp_entry *tp_push(tprog *p) {
  if (p->n == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 32;
    p->e = realloc(p->e, p->cap * sizeof *p->e);
    assert_non_null(p->e);
  }
  tp_entry *e = &p->e[p->n++];
  memset(e, 0, sizeof *e);
  return e;
}

/* Append an instruction of `opcode` with every field 0; set fields through the pointer
 * (valid until the next append). */
static inline ovta_insn *tp_add(tprog *p, uint32_t opcode) {
  tp_entry *e = tp_push(p);
  e->in.opcode = opcode;
  return &e->in;
}

/* Append raw instruction words. */
static inline void tp_raw(tprog *p, uint64_t w0, uint64_t w1) {
  tp_entry *e = tp_push(p);
  e->raw = true;
  e->bits.w[0] = w0;
  e->bits.w[1] = w1;
}

static inline ovta_insn *tp_load(tprog *p, uint32_t mt, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x,
                                 uint32_t stride) {
  ovta_insn *in = tp_add(p, OVTA_OP_LOAD);
  in->memory_type = mt, in->sram_base = sram, in->dram_base = dram;
  in->y_size = y, in->x_size = x, in->x_stride = stride;
  return in;
}

static inline ovta_insn *tp_pad(ovta_insn *in, uint32_t y0, uint32_t y1, uint32_t x0, uint32_t x1) {
  in->y_pad_0 = y0, in->y_pad_1 = y1, in->x_pad_0 = x0, in->x_pad_1 = x1;
  return in;
}

static inline ovta_insn *tp_store(tprog *p, uint32_t sram, uint32_t dram, uint32_t y, uint32_t x, uint32_t stride) {
  ovta_insn *in = tp_add(p, OVTA_OP_STORE);
  in->memory_type = OVTA_MEM_OUT, in->sram_base = sram, in->dram_base = dram;
  in->y_size = y, in->x_size = x, in->x_stride = stride;
  return in;
}

/* GEMM over uops [bgn, end) with iter_out/iter_in and the six factors (dst, src, wgt; out, in). */
static inline ovta_insn *tp_gemm(tprog *p, uint32_t reset, uint32_t bgn, uint32_t end, uint32_t io, uint32_t ii,
                                 uint32_t dfo, uint32_t dfi, uint32_t sfo, uint32_t sfi, uint32_t wfo, uint32_t wfi) {
  ovta_insn *in = tp_add(p, OVTA_OP_GEMM);
  in->reset = reset, in->uop_bgn = bgn, in->uop_end = end, in->iter_out = io, in->iter_in = ii;
  in->dst_factor_out = dfo, in->dst_factor_in = dfi, in->src_factor_out = sfo, in->src_factor_in = sfi;
  in->wgt_factor_out = wfo, in->wgt_factor_in = wfi;
  return in;
}

/* ALU `op` over uops [bgn, end), iter_out only (dst/src factor_out), imm when use_imm. */
static inline ovta_insn *tp_alu(tprog *p, uint32_t op, uint32_t use_imm, int32_t imm, uint32_t bgn, uint32_t end,
                                uint32_t io, uint32_t dfo, uint32_t sfo) {
  ovta_insn *in = tp_add(p, OVTA_OP_ALU);
  in->alu_opcode = op, in->use_imm = use_imm, in->imm = imm;
  in->uop_bgn = bgn, in->uop_end = end, in->iter_out = io, in->iter_in = 1;
  in->dst_factor_out = dfo, in->src_factor_out = sfo;
  return in;
}

static inline ovta_insn *tp_finish(tprog *p) { return tp_add(p, OVTA_OP_FINISH); }

/* Set the four dependency bits. */
static inline ovta_insn *tp_deps(ovta_insn *in, int pop_prev, int pop_next, int push_prev, int push_next) {
  in->pop_prev = (uint32_t)pop_prev, in->pop_next = (uint32_t)pop_next;
  in->push_prev = (uint32_t)push_prev, in->push_next = (uint32_t)push_next;
  return in;
}

/* A zeroed data buffer of `bytes`. */
static inline ovta_buf *tp_buf(tprog *p, size_t bytes) {
  ovta_buf *b = NULL;
  OVTA_ASSERT_OK(ovta_buf_alloc(p->dev, bytes, &b, &p->err), p->err);
  return b;
}

/* A buffer initialised from `data`. */
static inline ovta_buf *tp_buf_from(tprog *p, const void *data, size_t bytes) {
  ovta_buf *b = tp_buf(p, bytes);
  OVTA_ASSERT_OK(ovta_buf_write(b, 0, data, bytes, &p->err), p->err);
  return b;
}

/* The DRAM element index (what instructions hold) of byte `off` of buffer b, for memory type mt. */
static inline uint32_t tp_elem(tprog *p, const ovta_buf *b, uint32_t mt, size_t off) {
  uint64_t eb = (uint64_t)ovta_elem_bytes(p->cfg, mt);
  uint64_t a = b->phys + off;
  assert_int_equal(a % eb, 0);
  return (uint32_t)(a / eb);
}

/* A buffer holding n micro-ops, encoded. */
static inline ovta_buf *tp_uops(tprog *p, const ovta_uop *u, size_t n) {
  uint32_t *w = calloc(n ? n : 1, 4);
  assert_non_null(w);
  for (size_t i = 0; i < n; i++) OVTA_ASSERT_OK(ovta_uop_encode(p->isa, &u[i], &w[i], &p->err), p->err);
  ovta_buf *b = tp_buf_from(p, w, n * 4);
  free(w);
  return b;
}

/* Encode the instructions into a fresh buffer and run them. Returns the run's rc (p->err). */
static inline int tp_run(tprog *p, uint32_t timeout_ms) {
  if (p->stream) ovta_buf_free(p->stream);
  p->stream = tp_buf(p, p->n * 16);
  for (size_t i = 0; i < p->n; i++) {
    ovta_insn_bits b = p->e[i].bits;
    if (!p->e[i].raw) {
      int rc = ovta_insn_encode(p->isa, &p->e[i].in, &b, &p->err);
      if (rc) fail_msg("encoding instruction %zu: %s", i, p->err.msg);
    }
    uint8_t bytes[16];
    ovta_insn_bits_store(&b, bytes);
    OVTA_ASSERT_OK(ovta_buf_write(p->stream, i * 16, bytes, 16, &p->err), p->err);
  }
  ovta_error_clear(&p->err);
  return ovta_dev_run(p->dev, p->stream->phys, (uint32_t)p->n, timeout_ms, &p->err);
}

/* tp_run that must succeed. */
static inline void tp_run_ok(tprog *p) {
  int rc = tp_run(p, 60000);
  if (rc) fail_msg("run on %s/%s: %s: %s", ovta_dev_backend(p->dev), p->cfg->name, ovta_rc_name(rc), p->err.msg);
}

/* Read a buffer into a fresh host array (caller frees). */
static inline void *tp_read(tprog *p, ovta_buf *b, size_t off, size_t n) {
  void *h = malloc(n ? n : 1);
  assert_non_null(h);
  OVTA_ASSERT_OK(ovta_buf_read(b, off, h, n, &p->err), p->err);
  return h;
}

/* Deterministic test data. */
static inline uint32_t tp_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*s >> 33);
}

/* Run the statement(s) once per backend (OVTA_TEST_BACKENDS) and config, each on a fresh device. */
#define TP_FOR_EACH_DEVICE(p, seed, ...)                                                                   \
  do {                                                                                                     \
    for (const char *const *be_ = ovta_test_backends(); *be_; be_++)                                       \
      for (const char *const *cf_ = ovta_test_configs(); *cf_; cf_++) {                                    \
        tp_open((p), *be_, *cf_, (seed));                                                                  \
        __VA_ARGS__;                                                                                       \
        tp_close(p);                                                                                       \
      }                                                                                                    \
  } while (0)

#endif
