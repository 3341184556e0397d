/* tsim tests: directed programs run on tsim (the Verilator model of hw/rtl) and on fsim (the
 * golden model); every DRAM buffer of the program must come out byte for byte the same, and the
 * error code and failing instruction index must agree. Plus register-level tests of the model
 * through its C API (hw/sim/tsim.h): start/done, cycle counter, error status and index, and
 * two identical runs in a row.
 *
 * Needs the models build/tsim/CONFIG/libovta_tsim.so (hw/sim/tsim.mk builds them before these
 * tests). Configs: every one of ovta_test_configs(), plus the wide-bus test configs (wide: a
 * 512-bit bus, wide256: 256 bits) whose INP/OUT/ACC elements and micro-ops are narrower than a
 * beat. */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <unistd.h>

#include "ovta_test.h"
#include "fsim/against.h"
#include "tsim.h"

/* ---------------------------------------------------------------- fsim vs tsim */

/* The configs of the fsim-vs-tsim tests: ovta_test_configs() and the wide-bus configs. */
static const char *const *tsim_configs(void) {
  static const char *list[16];
  if (!list[0]) {
    int n = 0;
    for (const char *const *cf = ovta_test_configs(); *cf && n < 13; cf++) list[n++] = *cf;
    list[n++] = "wide";
    list[n++] = "wide256";
    list[n] = NULL;
  }
  return list;
}

/* run_on: the instruction stream starts this many instructions (16 bytes each) into its
 * buffer, so on a 256/512-bit bus it starts inside a beat. */
static int g_skip;

/* tp_run with the stream g_skip instructions into its buffer. */
static int run_skip(tprog *p, uint32_t timeout_ms) {
  if (!g_skip) return tp_run(p, timeout_ms);
  if (p->stream) ovta_buf_free(p->stream);
  p->stream = tp_buf(p, (p->n + (size_t)g_skip) * 16);
  for (size_t i = 0; i < p->n; i++) {
    ovta_insn_bits b;
    OVTA_ASSERT_OK(ovta_insn_encode(p->isa, &p->e[i].in, &b, &p->err), p->err);
    uint8_t bytes[16];
    ovta_insn_bits_store(&b, bytes);
    OVTA_ASSERT_OK(ovta_buf_write(p->stream, (i + (size_t)g_skip) * 16, bytes, 16, &p->err), p->err);
  }
  ovta_error_clear(&p->err);
  return ovta_dev_run(p->dev, p->stream->phys + 16 * (uint64_t)g_skip, (uint32_t)p->n, timeout_ms, &p->err);
}

/* Run on both backends and every config; compare DRAM, rc, failing index and counters. */
static void compare(tp_builder fn, int variant, int expect_rc) {
  for (const char *const *cf = tsim_configs(); *cf; cf++) tp_against_fsim("tsim", *cf, fn, variant, run_skip, expect_rc);
}

/* GEMM with tokens between all modules: load INP/WGT (load module, in two halves with C2L/L2C
 * tokens), uops with read-after-write chains (same dst back to back), loops with factors,
 * reset, then store through a strided store. variant: 0 plain, 1 uops loaded at an odd offset. */
static void build_gemm(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 7 + (uint64_t)variant;
  enum { NI = 8, NW = 4, NO = 4 };
  ovta_buf *x = tp_rand_buf(p, bs, NI * c->inp_bytes, &seed);
  ovta_buf *w = tp_rand_buf(p, bs, NW * c->wgt_bytes, &seed);
  ovta_uop u[8];
  memset(u, 0, sizeof u);
  /* uops 1..: acc[i] += x[i + k] * w[k] chains; uop 0 = {0,0,0} for the shifts */
  int nu = 1;
  for (int d = 0; d < 2; d++)
    for (int k = 0; k < 3; k++) u[nu].dst_idx = (uint32_t)d, u[nu].src_idx = (uint32_t)(d + k), u[nu].wgt_idx = (uint32_t)k, nu++;
  int off = variant ? 1 : 0;
  ovta_uop uu[9];
  memset(uu, 0, sizeof uu);
  memcpy(uu + off, u, sizeof u);
  ovta_buf *ub = tp_keep(bs, tp_uops(p, uu, (size_t)(nu + off)));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 4 * NO * c->out_bytes * 2));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0) + (uint32_t)off, 1, (uint32_t)nu, (uint32_t)nu);
  tp_deps(tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, x, OVTA_MEM_INP, 0), 2, NI / 2, NI / 2), 0, 0, 0, 0);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, w, OVTA_MEM_WGT, 0), 1, NW, NW), 0, 0, 0, 1);
  tp_deps(tp_gemm(p, 1, 0, 1, NO, 1, 1, 0, 0, 0, 0, 0), 1, 0, 1, 0);   /* reset acc[0..NO) */
  /* a second load that must wait for compute's token (C2L) */
  tp_deps(tp_load(p, OVTA_MEM_INP, NI, tp_elem(p, x, OVTA_MEM_INP, 0), 1, NI, NI), 0, 1, 0, 1);
  tp_deps(tp_gemm(p, 0, 1, (uint32_t)nu, 2, 1, 2, 0, 2, 0, 0, 0), 1, 0, 0, 0); /* iter_out 2: dst +2, src +2 */
  tp_deps(tp_gemm(p, 0, 1, (uint32_t)nu, 1, 2, 0, 1, 0, 1, 0, 0), 0, 0, 0, 1); /* iter_in 2 */
  tp_store_words(p, out, NO, 0);
}

static void test_gemm(void **state) {
  (void)state;
  compare(build_gemm, 0, OVTA_OK);
  compare(build_gemm, 1, OVTA_OK);
}

/* Every ALU op, with an immediate (variant 0..7: one op, several immediates in sequence) and
 * vector-vector (variant 8..15: random words, so RQ sees every shift, round bit and lo code), on
 * random accumulators loaded with an ACC load. */
static void build_alu(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 99 + (uint64_t)variant;
  enum { N = 4 };
  uint32_t op = (uint32_t)(variant % OVTA_ALU_COUNT);
  ovta_buf *a = tp_rand_buf(p, bs, 2 * N * c->acc_bytes, &seed);
  if (op == OVTA_ALU_SHR && variant >= OVTA_ALU_COUNT) {
    /* vector shift amounts in -40..40 for the second half */
    int32_t *v = malloc(N * c->acc_bytes);
    for (size_t i = 0; i < N * (size_t)c->acc_bytes / 4; i++) v[i] = (int32_t)(tp_rand(&seed) % 81) - 40;
    OVTA_ASSERT_OK(ovta_buf_write(a, N * c->acc_bytes, v, N * c->acc_bytes, &p->err), p->err);
    free(v);
  }
  ovta_uop u[3] = {{0}};
  u[1].dst_idx = 0, u[1].src_idx = N;
  ovta_buf *ub = tp_keep(bs, tp_uops(p, u, 2));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 4 * N * c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 2, 2);
  tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, a, OVTA_MEM_ACC, 0), 1, 2 * N, 2 * N);
  if (variant < OVTA_ALU_COUNT) {
    static const int32_t imms[] = {-3, 7, -32768, 32767, 1};
    static const int32_t shr[] = {3, -5, 31, 40, -40};
    /* RQ: round + >> 1 into [-128, 127], >> 2 into [-10, 10], round + >> 4 into int4, lo 0 > hi -5, >> 9 ReLU */
    static const int32_t rq[] = {0x7f21, 0x0a82, 0x07e4, 0xfb40 - 0x10000, 0x7f49};
    for (int i = 0; i < 5; i++)
      tp_alu(p, op, 1, op == OVTA_ALU_SHR ? shr[i] : op == OVTA_ALU_RQ ? rq[i] : imms[i], 0, 1, N, 1, 1);
  } else {
    tp_alu(p, op, 0, 0, 1, 2, N, 1, 1);
    tp_alu(p, op, 0, 0, 0, 1, N, 1, 0); /* src = dst 0 for every i: a chain on acc[0] */
  }
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 0, 0, 1, 1, 0, 0), 0, 0, 0, 1);
  tp_store_words(p, out, N, 0);
}

static void test_alu(void **state) {
  (void)state;
  for (int v = 0; v < 2 * OVTA_ALU_COUNT; v++) compare(build_alu, v, OVTA_OK);
}

/* Back-to-back ALU micro-ops with a tensor operand that read what the micro-op just before
 * wrote (the ACC read of a micro-op is issued before the previous one's write lands, so the RTL
 * forwards it, for dst and for src): src == previous dst, dst == previous dst, src == dst, a
 * distance of two micro-ops (no forwarding: the write is in the SRAM), across loop iterations,
 * and through iter_in/iter_out factors. variant: the ALU op (ADD, MAX, MOV first). */
static const uint32_t chain_ops[] = {OVTA_ALU_ADD, OVTA_ALU_MAX, OVTA_ALU_MOV, OVTA_ALU_MIN,
                                     OVTA_ALU_MUL, OVTA_ALU_CLP, OVTA_ALU_SHR, OVTA_ALU_RQ};
static void build_alu_chain(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 1234 + (uint64_t)variant;
  enum { N = 32 };
  uint32_t op = chain_ops[variant];
  ovta_buf *a = tp_rand_buf(p, bs, N * c->acc_bytes, &seed);
  static const uint32_t du[][2] = {
      {0, 0},                                   /* 0: {dst, src} = {i, i} for store_words */
      {1, 2},   {3, 1},   {4, 3},   {5, 4},     /* 1-4: src == previous dst */
      {6, 7},   {6, 8},   {6, 9},               /* 5-7: dst == previous dst */
      {10, 10}, {10, 10}, {11, 10}, {10, 11},   /* 8-11: src == dst == previous dst, both ways */
      {12, 13}, {14, 15}, {15, 12}, {13, 14},   /* 12-15: the element of two micro-ops before */
      {2, 5},                                   /* 16: the next iteration's uop 1 reads src 2 */
      {17, 16},                                 /* 17: with factors: src (i, j) == dst (i, j-1) */
  };
  enum { NU = sizeof du / sizeof du[0] };
  ovta_uop u[NU];
  memset(u, 0, sizeof u);
  for (int i = 0; i < NU; i++) u[i].dst_idx = du[i][0], u[i].src_idx = du[i][1];
  ovta_buf *ub = tp_keep(bs, tp_uops(p, u, NU));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 4 * N * c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, NU, NU);
  tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, a, OVTA_MEM_ACC, 0), 1, N, N);
  tp_alu(p, op, 0, 0, 1, 17, 3, 0, 0);                 /* uops 1..16 three times */
  ovta_insn *in = tp_alu(p, op, 0, 0, 17, 18, 2, 4, 4); /* dst 17 + 4i + j, src 16 + 4i + j */
  in->iter_in = 4, in->dst_factor_in = 1, in->src_factor_in = 1;
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 0, 0, 1, 1, 0, 0), 0, 0, 0, 1);
  tp_store_words(p, out, N, 0);
}

static void test_alu_chain(void **state) {
  (void)state;
  for (int v = 0; v < (int)(sizeof chain_ops / sizeof chain_ops[0]); v++) compare(build_alu_chain, v, OVTA_OK);
}

/* ---------------------------------------------------------------- ALU throughput */

/* ovta_exec's pipeline: A (uop read), B (indices, SRAM reads), C (compute, write). The compute
 * module is busy from the cycle after it pops a GEMM/ALU (the first micro-op in A) to the cycle
 * its last micro-op is in C: at one micro-op per cycle, uops + (EXEC_STAGES - 1) cycles. A
 * FINISH is busy for one cycle (ovta_compute's S_START). */
enum { EXEC_STAGES = 3, FINISH_BUSY = 1 };

/* One run of ALU `op` (tensor operand or immediate) over 16 uops x iter_out x iter_in on a tsim
 * device whose uop SRAM holds the chain {dst k + 1, src k} (each src the previous dst); returns
 * the run's counters. */
static ovta_counters alu_run(tprog *p, uint32_t op, uint32_t use_imm, uint32_t io, uint32_t ii) {
  tp_reset(p);
  ovta_insn *in = tp_alu(p, op, use_imm, use_imm ? 3 : 0, 0, 16, io, 0, 0);
  in->iter_in = ii;
  tp_finish(p);
  tp_run_ok(p);
  ovta_counters k;
  ovta_dev_counters(p->dev, &k);
  assert_int_equal(k.alu_uops, 16ull * io * ii);
  assert_int_equal(k.insns_compute, 2);
  return k;
}

static void test_alu_throughput(void **state) {
  (void)state;
  static const struct { uint32_t op, use_imm; } cases[] = {
      {OVTA_ALU_ADD, 0}, {OVTA_ALU_MOV, 0}, {OVTA_ALU_MAX, 0}, {OVTA_ALU_ADD, 1}, {OVTA_ALU_MOV, 1}};
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    tprog p;
    tp_open(&p, "tsim", *cf, 0);
    uint64_t seed = 77;
    ovta_uop u[16];
    memset(u, 0, sizeof u);
    for (uint32_t k = 0; k < 16; k++) u[k].dst_idx = k + 1, u[k].src_idx = k;
    ovta_buf *ub = tp_uops(&p, u, 16);
    uint8_t *d = malloc(17 * p.cfg->acc_bytes);
    for (size_t i = 0; i < 17 * (size_t)p.cfg->acc_bytes; i++) d[i] = (uint8_t)tp_rand(&seed);
    ovta_buf *ab = tp_buf_from(&p, d, 17 * (size_t)p.cfg->acc_bytes);
    free(d);
    tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, ub, OVTA_MEM_UOP, 0), 1, 16, 16);
    tp_load(&p, OVTA_MEM_ACC, 0, tp_elem(&p, ab, OVTA_MEM_ACC, 0), 1, 17, 17);
    tp_finish(&p);
    tp_run_ok(&p);  /* the SRAMs keep uops and accumulators for the runs below */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      ovta_counters k1 = alu_run(&p, cases[c].op, cases[c].use_imm, 8, 8);   /* 1,024 micro-ops */
      ovta_counters k2 = alu_run(&p, cases[c].op, cases[c].use_imm, 16, 8);  /* 2,048 */
      uint64_t fill = EXEC_STAGES - 1 + FINISH_BUSY;
      if (k1.busy_compute > k1.alu_uops + fill || k2.busy_compute > k2.alu_uops + fill)
        fail_msg("%s: ALU %s %s: busy %llu cycles for %llu micro-ops, %llu for %llu (at most uops + %llu)", *cf,
                 ovta_alu_op_names[cases[c].op], cases[c].use_imm ? "imm" : "tensor",
                 (unsigned long long)k1.busy_compute, (unsigned long long)k1.alu_uops,
                 (unsigned long long)k2.busy_compute, (unsigned long long)k2.alu_uops, (unsigned long long)fill);
      assert_true(k1.busy_compute >= k1.alu_uops);
      /* 1,024 more micro-ops, exactly 1,024 more busy cycles */
      assert_int_equal(k2.busy_compute - k1.busy_compute, k2.alu_uops - k1.alu_uops);
    }
    tp_close(&p);
  }
}

/* isa/ISA.md "Overlap": GEMMs on the lower ACC half alternate with ALU instructions on the upper
 * half, each marked to overlap the one before (variant 0) or not (variant 1: the same program
 * run one instruction after the other). The GEMMs chain on one dst per iteration (forwarding
 * inside slot G), the ADD reads a tensor operand in its own half, the short ALU that pushes the
 * store's token finishes before the long GEMM it overlaps (so it must retire after it: the
 * store reads both halves). N: micro-op iterations (N <= ACC_DEPTH / 4). */
static void build_overlap(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 41 + (uint64_t)variant;
  const uint32_t H = (uint32_t)c->acc_depth / 2, N = H / 2 < 32 ? H / 2 : 32;
  ovta_buf *x = tp_rand_buf(p, bs, (N + 1) * c->inp_bytes, &seed);
  ovta_buf *w = tp_rand_buf(p, bs, 2 * c->wgt_bytes, &seed);
  ovta_buf *lo = tp_rand_buf(p, bs, N * c->acc_bytes, &seed);
  ovta_buf *hi = tp_rand_buf(p, bs, 2 * N * c->acc_bytes, &seed);
  ovta_uop u[3] = {{.dst_idx = 0, .src_idx = 0, .wgt_idx = 0}, {.dst_idx = 0, .src_idx = 1, .wgt_idx = 1},
                   {.dst_idx = H, .src_idx = H + N}};
  ovta_buf *ub = tp_keep(bs, tp_uops(p, u, 3));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 2 * N * c->out_bytes));
  uint32_t ov = variant == 0;
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 3, 3);
  tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, x, OVTA_MEM_INP, 0), 1, N + 1, N + 1);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, w, OVTA_MEM_WGT, 0), 1, 2, 2), 0, 0, 0, 1);
  tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, lo, OVTA_MEM_ACC, 0), 1, N, N);
  tp_load(p, OVTA_MEM_ACC, H, tp_elem(p, hi, OVTA_MEM_ACC, 0), 1, 2 * N, 2 * N);
  tp_deps(tp_gemm(p, 0, 0, 2, N, 1, 1, 0, 1, 0, 0, 0), 1, 0, 0, 0);          /* acc[i] += x[i] w0 + x[i+1] w1 */
  tp_alu(p, OVTA_ALU_ADD, 0, 0, 2, 3, N, 1, 1)->overlap = ov;                 /* acc[H+i] += acc[H+N+i] */
  tp_gemm(p, 0, 0, 2, N, 1, 1, 0, 1, 0, 0, 0)->overlap = ov;                  /* again */
  tp_deps(tp_alu(p, OVTA_ALU_SHR, 1, 1, 2, 3, N / 2, 1, 0), 0, 0, 0, 1)->overlap = ov; /* short, pushes C2S */
  tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, 0), 1, N, N), 1, 0, 0, 0);
  tp_deps(tp_store(p, H, tp_elem(p, out, OVTA_MEM_OUT, N * c->out_bytes), 1, N, N), 0, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
}

static void test_overlap(void **state) {
  (void)state;
  compare(build_overlap, 0, OVTA_OK);
  compare(build_overlap, 1, OVTA_OK);
  /* overlapped, compute is busy for about the GEMMs' micro-ops: the ALU ones (N + N/2) hide */
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    uint64_t busy[2];
    for (int v = 0; v < 2; v++) {
      tprog p;
      tp_bufs bs = {0};
      tp_open(&p, "tsim", *cf, 0);
      build_overlap(&p, &bs, v);
      tp_run_ok(&p);
      ovta_counters k;
      ovta_dev_counters(p.dev, &k);
      busy[v] = k.busy_compute;
      tp_close(&p);
    }
    uint32_t H = 0;
    ovta_config cfg;
    ovta_test_config(*cf, &cfg);
    H = (uint32_t)cfg.acc_depth / 2;
    uint64_t n = H / 2 < 32 ? H / 2 : 32, hidden = n + n / 2;
    print_message("%s: compute busy %llu cycles overlapped, %llu not (%llu ALU micro-ops)\n", *cf,
                  (unsigned long long)busy[0], (unsigned long long)busy[1], (unsigned long long)hidden);
    if (busy[1] < busy[0] + hidden || busy[1] > busy[0] + hidden + 6)
      fail_msg("%s: compute busy %llu cycles overlapped, %llu not: expected the %llu ALU micro-ops hidden (+ 0..6)",
               *cf, (unsigned long long)busy[0], (unsigned long long)busy[1], (unsigned long long)hidden);
  }
}

/* Padded INP and ACC loads; the INP goes through a GEMM with one weight, ACC straight out. */
static void build_pad(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 5 + (uint64_t)variant;
  uint32_t y0 = (uint32_t)variant % 2, y1 = (uint32_t)(variant / 2) % 2, x0 = (uint32_t)variant % 3, x1 = 1;
  uint32_t rows = 2, cols = 3, W = x0 + cols + x1, total = (y0 + rows + y1) * W;
  ovta_buf *x = tp_rand_buf(p, bs, rows * 4 * c->inp_bytes, &seed);
  ovta_buf *w = tp_rand_buf(p, bs, c->wgt_bytes, &seed);
  ovta_buf *a = tp_rand_buf(p, bs, rows * 4 * c->acc_bytes, &seed);
  ovta_uop u[2] = {{0}};
  ovta_buf *ub = tp_keep(bs, tp_uops(p, u, 1));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 8 * total * c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_pad(tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, x, OVTA_MEM_INP, 0), rows, cols, 4), y0, y1, x0, x1);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, w, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_gemm(p, 1, 0, 1, total, 1, 1, 0, 0, 0, 0, 0), 1, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 0, 1, total, 1, 1, 0, 1, 0, 0, 0), 0, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, 0), 1, total, total), 1, 0, 1, 0);
  tp_pad(tp_deps(tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, a, OVTA_MEM_ACC, 0), rows, cols, 4), 0, 1, 0, 0), y0, y1,
         x0, x1);
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 0, 0, 1, total, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, total * c->out_bytes), 2, total / 2, total), 1, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
}

static void test_padded_loads(void **state) {
  (void)state;
  for (int v = 0; v < 4; v++) compare(build_pad, v, OVTA_OK);
}

/* Rows that start and end inside a bus beat (on the wide configs, whose INP/OUT/ACC elements are
 * narrower than a beat; element-aligned rows on the others): ACC and INP loads at element offset
 * `variant` or across a 4 KiB boundary, rows of 1..5 elements, contiguous, gapped and
 * overlapping strides, padding; OUT stores at other offsets with contiguous, beat-sharing
 * (stride 1: every row rewrites part of the one before) and gapped strides, one across 4 KiB. */
static void build_narrow(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 31 + (uint64_t)variant;
  uint32_t v = (uint32_t)variant;
  ovta_buf *a = tp_rand_buf(p, bs, 8192 + 16 * (size_t)c->acc_bytes, &seed);
  ovta_buf *x = tp_rand_buf(p, bs, 8192 + 16 * (size_t)c->inp_bytes, &seed);
  ovta_buf *w = tp_rand_buf(p, bs, c->wgt_bytes, &seed);
  ovta_uop u[1] = {{0}};
  ovta_buf *ub = tp_keep(bs, tp_uops(p, u, 1));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 8192 + 64 * (size_t)c->out_bytes));
  uint32_t xs = 1 + v % 5, x0 = v % 2, W = x0 + xs + 1, total = 4 * W;
  uint32_t stride = v % 3 == 0 ? xs : v % 3 == 1 ? xs + 1 : 1;
  /* ACC rows at offset v, or ending 1..4 elements past 4 KiB */
  uint32_t a0 = v % 2 ? tp_elem(p, a, OVTA_MEM_ACC, 4096) - (1 + v % 4) : tp_elem(p, a, OVTA_MEM_ACC, 0) + v;
  uint32_t i0 = v % 2 ? tp_elem(p, x, OVTA_MEM_INP, 4096) - (1 + v % 3) : tp_elem(p, x, OVTA_MEM_INP, 0) + v + 1;
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_pad(tp_load(p, OVTA_MEM_ACC, 0, a0, 3, xs, stride), 1, 0, x0, 1);
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 1, 0, 1, total, 1, 1), 0, 0, 0, 1);
  /* store 1: rows of 1..5 elements at offset 3v mod 8 */
  uint32_t sx = 1 + (v + 2) % 5, sy = total / sx < 4 ? total / sx : 4;
  uint32_t ss = (v / 2) % 3 == 0 ? sx : (v / 2) % 3 == 1 ? 1 : sx + 3;
  tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, 0) + (3 * v) % 8, sy, sx, ss), 1, 0, 1, 0);
  /* INP rows like the ACC rows, through a GEMM with one weight */
  tp_pad(tp_load(p, OVTA_MEM_INP, 0, i0, 3, xs, stride), 1, 0, x0, 1);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, w, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_gemm(p, 1, 0, 1, total, 1, 1, 0, 0, 0, 0, 0), 1, 1, 0, 0);
  tp_deps(tp_gemm(p, 0, 0, 1, total, 1, 1, 0, 1, 0, 0, 0), 0, 0, 0, 1);
  /* store 2: two rows, the first ending 1..3 elements past 4 KiB */
  uint32_t s2 = tp_elem(p, out, OVTA_MEM_OUT, 4096) - (1 + v % 3);
  tp_deps(tp_store(p, 0, s2, 2, total / 2, total / 2 + v % 3), 1, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
}

static void test_narrow_rows(void **state) {
  (void)state;
  for (int v = 0; v < 12; v++) {
    g_skip = v % 4; /* and the instruction stream 0..3 instructions into its buffer */
    compare(build_narrow, v, OVTA_OK);
  }
  g_skip = 0;
}

/* Errors: variant 0 GEMM dst out of range at instruction 3; 1 raw unknown opcode at 2;
 * 2 deadlock (compute pops a token nobody pushes); 3 no FINISH; 4 store outside any buffer. */
static void build_err(tprog *p, tp_bufs *bs, int variant) {
  const ovta_config *c = p->cfg;
  ovta_uop u[1] = {{0}};
  ovta_buf *ub = tp_keep(bs, tp_uops(p, u, 1));
  ovta_buf *out = tp_keep(bs, tp_buf(p, 4 * c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_gemm(p, 1, 0, 1, 2, 1, 1, 0, 0, 0, 0, 0);
  switch (variant) {
  case 0:
    tp_alu(p, OVTA_ALU_ADD, 1, 1, 0, 1, 2, 1, 0);
    tp_gemm(p, 1, 0, 1, 3, 1, (uint32_t)c->acc_depth / 2, 0, 0, 0, 0, 0);
    break;
  case 1: tp_raw(p, 7, 0); break;
  case 2: tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 1, 0, 1, 2, 1, 0), 1, 0, 0, 0); break;
  case 3: return;
  case 4:
    tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 1, 0, 1, 2, 1, 0), 0, 0, 0, 1);
    tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, 0), 1, 8, 8), 1, 0, 0, 0);
    break;
  }
  tp_finish(p);
}

static void test_errors(void **state) {
  (void)state;
  compare(build_err, 0, OVTA_EINSN);
  compare(build_err, 1, OVTA_EINSN);
  compare(build_err, 2, OVTA_EDEADLOCK);
  compare(build_err, 3, OVTA_EINSN);
  compare(build_err, 4, OVTA_EINSN);
}

/* ---------------------------------------------------------------- the C API directly */

typedef struct api {
  void *so;
  tsim_get_info_fn info;
  tsim_create_fn create;
  tsim_destroy_fn destroy;
  tsim_run_fn run;
  tsim_reg_read_fn rd;
  tsim_reg_write_fn wr;
} api;

static void api_open(api *a, const char *config) {
  char path[1024];
  snprintf(path, sizeof path, "%s/build/tsim/%s/libovta_tsim.so", OVTA_SRC_DIR, config);
  a->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!a->so) fail_msg("%s", dlerror());
  a->info = (tsim_get_info_fn)dlsym(a->so, "tsim_get_info");
  a->create = (tsim_create_fn)dlsym(a->so, "tsim_create");
  a->destroy = (tsim_destroy_fn)dlsym(a->so, "tsim_destroy");
  a->run = (tsim_run_fn)dlsym(a->so, "tsim_run");
  a->rd = (tsim_reg_read_fn)dlsym(a->so, "tsim_reg_read");
  a->wr = (tsim_reg_write_fn)dlsym(a->so, "tsim_reg_write");
  assert_true(a->info && a->create && a->destroy && a->run && a->rd && a->wr);
}

/* A flat 64 KiB DRAM at 0x1000 for the register tests. */
enum { DBASE = 0x1000, DSIZE = 1 << 16 };
static uint8_t dmem[DSIZE];
static int d_inside(void *ctx, uint64_t a, uint64_t n) { return a >= DBASE && a + n <= DBASE + DSIZE; }
static void *d_host(void *ctx, uint64_t a, uint64_t n) { return d_inside(ctx, a, n) ? dmem + (a - DBASE) : NULL; }

static void put_insn(const ovta_isa *isa, int i, const ovta_insn *in) {
  ovta_insn_bits b;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_insn_encode(isa, in, &b, &err), err);
  ovta_insn_bits_store(&b, dmem + 16 * i);
}

static void test_registers(void **state) {
  (void)state;
  api a;
  api_open(&a, "small");
  ovta_config cfg;
  ovta_isa isa;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
  OVTA_ASSERT_OK(ovta_isa_init(&isa, &cfg, &err), err);
  tsim_info info;
  a.info(&info);
  assert_int_equal(info.log_block, cfg.log_block);
  tsim_dram d = {NULL, d_inside, d_host};
  char msg[256];
  tsim *t = a.create(&d, NULL, msg, sizeof msg);
  if (!t) fail_msg("%s", msg);
  memset(dmem, 0, sizeof dmem);
  /* program: 100-iteration ALU on acc[0], FINISH */
  ovta_insn in;
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_ALU, in.alu_opcode = OVTA_ALU_ADD, in.use_imm = 1, in.imm = 1;
  in.uop_bgn = 0, in.uop_end = 1, in.iter_out = 100, in.iter_in = 1;
  put_insn(&isa, 0, &in);
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_FINISH;
  put_insn(&isa, 1, &in);
  /* by hand through the registers: address, count, start, poll done */
  assert_int_equal(a.rd(t, 0x00) & 1, 0);  /* not running */
  a.wr(t, 0x0C, DBASE);
  a.wr(t, 0x14, 2);
  assert_int_equal(a.rd(t, 0x0C), DBASE);
  assert_int_equal(a.rd(t, 0x14), 2);
  a.wr(t, 0x00, 1);
  assert_int_equal(a.rd(t, 0x00) & 1, 1);   /* running (100 uops take longer than this read) */
  int polls = 0;
  while (!(a.rd(t, 0x00) & 2) && polls < 10000) polls++;
  assert_true(polls < 10000);
  assert_int_equal(a.rd(t, 0x00) & 4, 0);   /* no error */
  assert_int_equal(a.rd(t, 0x04) & 15, 0);  /* STATUS ok */
  uint64_t cycles = a.rd(t, 0x20) | (uint64_t)a.rd(t, 0x24) << 32;
  assert_true(cycles >= 100);               /* at most one uop per cycle */
  assert_int_equal(a.rd(t, 0x20 + 8 * TSIM_CNT_ALU_UOPS), 100);
  assert_int_equal(a.rd(t, 0x1C), 1);       /* one FINISH */
  /* the same through tsim_run, twice: identical cycle counts */
  tsim_result r1, r2;
  assert_int_equal(a.run(t, DBASE, 2, 0, 0, &r1), TSIM_OK);
  assert_int_equal(a.run(t, DBASE, 2, 0, 0, &r2), TSIM_OK);
  assert_int_equal(r1.counters[TSIM_CNT_CYCLES], r2.counters[TSIM_CNT_CYCLES]);
  assert_int_equal(r1.counters[TSIM_CNT_ALU_UOPS], 100);
  /* a longer loop takes more cycles */
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_ALU, in.alu_opcode = OVTA_ALU_ADD, in.use_imm = 1, in.imm = 1;
  in.uop_bgn = 0, in.uop_end = 1, in.iter_out = 1000, in.iter_in = 1;
  put_insn(&isa, 0, &in);
  assert_int_equal(a.run(t, DBASE, 2, 0, 0, &r2), TSIM_OK);
  assert_true(r2.counters[TSIM_CNT_CYCLES] >= r1.counters[TSIM_CNT_CYCLES] + 900);
  /* an invalid instruction at index 1: STATUS = INSN with the index; the device runs again after */
  dmem[16] = 6; /* opcode 6 */
  assert_int_equal(a.run(t, DBASE, 2, 0, 0, &r1), TSIM_EINSN);
  assert_int_equal(r1.insn_index, 1);
  assert_int_equal(a.rd(t, 0x04) & 15, 1);
  assert_int_equal(a.rd(t, 0x08), 1);
  assert_int_equal(a.rd(t, 0x00) & 4, 4);
  put_insn(&isa, 1, &in);  /* the ALU again instead: retires everything without FINISH */
  assert_int_equal(a.run(t, DBASE, 2, 0, 0, &r1), TSIM_ENOFINISH);
  /* a stream outside DRAM */
  assert_int_equal(a.run(t, DBASE + DSIZE, 1, 0, 0, &r1), TSIM_EDRAM);
  a.destroy(t);
  dlclose(a.so);
}

/* The Chrome trace (tsim_opts.chrome_trace_path): LOAD INP -> GEMM -> STORE chained by tokens,
 * then FINISH. One event per instruction on the unit that executes it, named by opcode (and
 * memory type), and the token chain orders them: each starts after the one it waits for ends. */
static void test_chrome_trace(void **state) {
  (void)state;
  api a;
  api_open(&a, "small");
  ovta_config cfg;
  ovta_isa isa;
  ovta_error err;
  OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
  OVTA_ASSERT_OK(ovta_isa_init(&isa, &cfg, &err), err);
  char path[64];
  ovta_test_tmpfile(path, sizeof path, "chrome");
  tsim_dram d = {NULL, d_inside, d_host};
  tsim_opts o = {0};
  o.chrome_trace_path = path;
  char msg[256];
  tsim *t = a.create(&d, &o, msg, sizeof msg);
  if (!t) fail_msg("%s", msg);
  memset(dmem, 0, sizeof dmem);
  ovta_insn in;
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_INP, in.push_next = 1;
  in.dram_base = (DBASE + 0x8000) / cfg.inp_bytes, in.y_size = 1, in.x_size = 16, in.x_stride = 16;
  put_insn(&isa, 0, &in);
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_GEMM, in.pop_prev = 1, in.push_next = 1, in.reset = 1;
  in.uop_bgn = 0, in.uop_end = 1, in.iter_out = 50, in.iter_in = 1;
  put_insn(&isa, 1, &in);
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_STORE, in.memory_type = OVTA_MEM_OUT, in.pop_prev = 1;
  in.dram_base = (DBASE + 0xC000) / cfg.out_bytes, in.y_size = 1, in.x_size = 16, in.x_stride = 16;
  put_insn(&isa, 2, &in);
  memset(&in, 0, sizeof in);
  in.opcode = OVTA_OP_FINISH;
  put_insn(&isa, 3, &in);
  tsim_result r;
  assert_int_equal(a.run(t, DBASE, 4, 0, 0, &r), TSIM_OK);
  a.destroy(t);
  dlclose(a.so);
  char *text = ovta_test_read_file(path, NULL);
  unlink(path);
  cJSON *j = cJSON_Parse(text);
  if (!j) fail_msg("the Chrome trace is not JSON: %.200s", text);
  free(text);
  assert_true(cJSON_IsArray(j));
  static const char *const want_name[] = {"LOAD INP", "GEMM", "STORE OUT", "FINISH"};
  static const char *const want_cat[] = {"load", "compute", "store", "compute"};
  double c0[4], c1[4];
  int seen[4] = {0}, threads = 0;
  cJSON *e;
  cJSON_ArrayForEach(e, j) {
    const char *ph = cJSON_GetStringValue(cJSON_GetObjectItem(e, "ph"));
    assert_non_null(ph);
    if (!strcmp(ph, "M")) {
      threads++;
      continue;
    }
    assert_string_equal(ph, "X");
    cJSON *args = cJSON_GetObjectItem(e, "args");
    int i = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(args, "insn"));
    assert_true(i >= 0 && i < 4);
    seen[i]++;
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(e, "name")), want_name[i]);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(e, "cat")), want_cat[i]);
    c0[i] = cJSON_GetNumberValue(cJSON_GetObjectItem(args, "start_cycle"));
    c1[i] = cJSON_GetNumberValue(cJSON_GetObjectItem(args, "end_cycle"));
    assert_true(c0[i] < c1[i] && c1[i] <= (double)r.counters[TSIM_CNT_CYCLES] + 1);
  }
  cJSON_Delete(j);
  for (int i = 0; i < 4; i++) assert_int_equal(seen[i], 1);
  assert_int_equal(threads, 3);
  assert_true(c0[1] >= c1[0]);      /* GEMM waits for the L2C token of the LOAD */
  assert_true(c0[2] >= c1[1]);      /* STORE waits for the C2S token of the GEMM */
  assert_true(c1[1] - c0[1] >= 50); /* 50 micro-ops */
}

/* ---------------------------------------------------------------- DRAM model */

/* Cycles of a DMA-heavy program under the DRAM timing of o: LOAD of n WGT elements (load module),
 * a one-element ACC LOAD (compute) after it, a STORE of m OUT elements (store) after that, FINISH
 * after the store; each waits for the one before by a token. Read beats (instructions included)
 * go to *beats. */
static uint64_t dram_run(const char *cfg, const ovta_dev_opts *o, uint32_t n, uint32_t m, uint64_t *beats) {
  tprog p;
  tp_open_opts(&p, "tsim", cfg, o);
  ovta_buf *w = tp_buf(&p, (size_t)n * p.cfg->wgt_bytes), *a = tp_buf(&p, p.cfg->acc_bytes);
  ovta_buf *out = tp_buf(&p, (size_t)m * p.cfg->out_bytes);
  tp_deps(tp_load(&p, OVTA_MEM_WGT, 0, tp_elem(&p, w, OVTA_MEM_WGT, 0), 1, n, n), 0, 0, 0, 1);
  tp_deps(tp_load(&p, OVTA_MEM_ACC, 0, tp_elem(&p, a, OVTA_MEM_ACC, 0), 1, 1, 1), 1, 0, 0, 1);
  tp_deps(tp_store(&p, 0, tp_elem(&p, out, OVTA_MEM_OUT, 0), 1, m, m), 1, 0, 1, 0);
  tp_deps(tp_finish(&p), 0, 1, 0, 0);
  tp_run_ok(&p);
  ovta_counters k;
  ovta_dev_counters(p.dev, &k);
  uint64_t bus = (uint64_t)p.cfg->axi_data_bits / 8, rd = 4 * 16; /* the stream: 4 instructions */
  for (int t = 0; t < OVTA_MEM_COUNT; t++) rd += k.bytes_read[t];
  *beats = (rd + bus - 1) / bus;
  assert_int_equal(k.bytes_written, (uint64_t)m * p.cfg->out_bytes);
  ovta_buf_free(w), ovta_buf_free(a), ovta_buf_free(out);
  tp_close(&p);
  return k.cycles;
}

/* The DRAM model's knobs (ovta_dev_opts dram_latency, dram_write_latency, dram_beats_x16) against
 * the bus model of hw/sim/README.md: the program's reads depend on each other (the stream, then the
 * WGT load, then the ACC load), so 100 more cycles of read latency cost at least 300 cycles and at
 * most 100 per read burst; 200 more cycles of write response at least 200 (FINISH waits for the
 * store's responses) and at most 200 per write burst; half the read bandwidth costs one more cycle
 * per read beat (the load module takes one beat per cycle: at half rate every beat waits one). */
static void test_dram_model(void **state) {
  (void)state;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    ovta_config c;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load(*cf, &c, &err), err);
    uint32_t n = (uint32_t)(16384 / c.wgt_bytes), m = (uint32_t)(4096 / c.out_bytes);
    if (n > (uint32_t)c.wgt_depth) n = (uint32_t)c.wgt_depth;
    if (m > (uint32_t)c.out_depth) m = (uint32_t)c.out_depth;
    uint64_t bus = (uint64_t)c.axi_data_bits / 8, beats, beats2, rd = (uint64_t)n * c.wgt_bytes, wr = (uint64_t)m * c.out_bytes;
    uint64_t max_burst = 4096 < 256 * bus ? 4096 : 256 * bus; /* AXI4: 256 beats, no 4 KiB crossing */
    uint64_t rbursts = 1 + (rd + max_burst - 1) / max_burst + 1, wbursts = (wr + max_burst - 1) / max_burst;
    ovta_dev_opts o = {0};
    uint64_t base = dram_run(*cf, &o, n, m, &beats);
    o.dram_latency = 132;
    uint64_t slow_r = dram_run(*cf, &o, n, m, &beats2);
    o.dram_latency = 0, o.dram_write_latency = 216;
    uint64_t slow_w = dram_run(*cf, &o, n, m, &beats2);
    o.dram_write_latency = 0, o.dram_beats_x16 = 8;
    uint64_t half = dram_run(*cf, &o, n, m, &beats2);
    print_message("%s: %llu cycles; read latency +100: %llu; write latency +200: %llu; half read bandwidth: "
                  "%llu (%llu read beats)\n", *cf, (unsigned long long)base, (unsigned long long)slow_r,
                  (unsigned long long)slow_w, (unsigned long long)half, (unsigned long long)beats);
    assert_int_equal(beats, beats2);
    assert_true(slow_r >= base + 300 && slow_r <= base + 100 * rbursts);
    assert_true(slow_w >= base + 200 && slow_w <= base + 200 * wbursts);
    assert_true(half * 20 >= (base + beats) * 19 && half * 20 <= (base + beats) * 21);
    o.dram_beats_x16 = 17; /* more than a beat per cycle: refused */
    ovta_dev *d = NULL;
    assert_int_equal(ovta_dev_open("tsim", &c, &o, &d, &err), OVTA_EINVAL);
    assert_non_null(strstr(err.msg, "at most one beat per cycle"));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm),         cmocka_unit_test(test_alu),
      cmocka_unit_test(test_alu_chain),    cmocka_unit_test(test_alu_throughput),
      cmocka_unit_test(test_overlap),
      cmocka_unit_test(test_padded_loads), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_narrow_rows),  cmocka_unit_test(test_registers),
      cmocka_unit_test(test_chrome_trace), cmocka_unit_test(test_dram_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
