/* fsim directed tests, on every config and every backend in OVTA_TEST_BACKENDS (default fsim).
 *
 * Every expected DRAM result is computed here in plain C directly from the input data (matmul,
 * requantisation, the ALU table and SHR rule of isa/ISA.md written out independently with 64-bit
 * arithmetic), never by interpreting instructions. Full 32-bit accumulator values are read back
 * by storing OUT (low 8 bits), shifting right by 8 and storing again, four times. */
#include "prog.h"

/* ---------------------------------------------------------------- references */

/* floor(a / 2^k) for 0 <= k <= 62, with 64-bit division (no shift operator). */
static int64_t floor_div_pow2(int64_t a, int k) {
  int64_t d = 1;
  for (int i = 0; i < k; i++) d *= 2;
  int64_t q = a / d;
  if (a % d != 0 && a < 0) q -= 1;
  return q;
}

/* The low 32 bits of v as a two's-complement int32. */
static int32_t wrap32(int64_t v) {
  uint64_t u = (uint64_t)v & 0xffffffffull;
  return u >= 0x80000000ull ? (int32_t)(int64_t)(u - 0x100000000ull) : (int32_t)u;
}

/* isa/ISA.md ALU table, independently. */
static int32_t ref_alu(uint32_t op, int32_t a, int32_t s) {
  int64_t A = a, S = s;
  switch (op) {
  case OVTA_ALU_MIN: return A <= S ? a : s;
  case OVTA_ALU_MAX: return A >= S ? a : s;
  case OVTA_ALU_ADD: return wrap32(A + S);
  case OVTA_ALU_MUL: return wrap32(A * S);
  case OVTA_ALU_MOV: return s;
  case OVTA_ALU_CLP: {
    int64_t lo = S & 0xff, hi = (S >> 8) & 0xff; /* bytes as int8 */
    if (lo >= 128) lo -= 256;
    if (hi >= 128) hi -= 256;
    int64_t x = A < lo ? lo : A; /* max(a, lo), then min(., hi) */
    return (int32_t)(x > hi ? hi : x);
  }
  case OVTA_ALU_RQ: { /* s's bits by 64-bit division: sh = s mod 32, bit 5 round, bits 6-7 lo, 8-15 hi */
    int64_t u = S < 0 ? S + 4294967296ll : S;
    int sh = (int)(u % 32), rnd = (int)(u / 32 % 2), code = (int)(u / 64 % 4);
    int64_t hi = u / 256 % 256, r = 1;
    if (hi >= 128) hi -= 256;
    for (int i = 0; i + 1 < sh; i++) r *= 2;
    int64_t v = floor_div_pow2(wrap32(A + (rnd && sh > 0 ? r : 0)), sh);
    int64_t lo = code == 0 ? -128 : code == 1 ? 0 : code == 2 ? -hi : -hi - 1;
    v = v < lo ? lo : v; /* max(v, lo), then min(., hi) */
    return (int32_t)(v > hi ? hi : v);
  }
  case OVTA_ALU_SHR:
    if (S >= 32) return A < 0 ? -1 : 0;
    if (S >= 0) return (int32_t)floor_div_pow2(A, (int)S);
    if (S <= -32) return 0;
    {
      int64_t m = 1;
      for (int i = 0; i < -S; i++) m *= 2;
      return wrap32(A * m);
    }
  }
  fail_msg("bad op");
  return 0;
}

/* ---------------------------------------------------------------- program pieces */

/* Append: store OUT [0, n) to `out` (4 times n elements: byte k of each accumulator at element
 * block k), shifting the accumulators right by 8 in between, then FINISH. The instruction before
 * must push_next (C2S). `u_self` is a uop {dst 0}. */
static void emit_store_words(tprog *p, ovta_buf *out, uint32_t n, uint32_t u_self) {
  for (uint32_t k = 0; k < 4; k++) {
    if (k) tp_deps(tp_alu(p, OVTA_ALU_SHR, 1, 8, u_self, u_self + 1, n, 1, 0), 0, 1, 0, 1);
    tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, (size_t)k * n * p->cfg->out_bytes), 1, n, n), 1, 0, 1, 0);
  }
  tp_deps(tp_finish(p), 0, 1, 0, 0);
}

/* The n*E accumulators written by emit_store_words. */
static int32_t *read_words(tprog *p, ovta_buf *out, uint32_t n) {
  size_t vals = (size_t)n * p->cfg->batch * p->cfg->block_out;
  uint8_t *bytes = tp_read(p, out, 0, 4 * vals);
  int32_t *w = calloc(vals, sizeof *w);
  for (size_t v = 0; v < vals; v++) {
    uint32_t u = 0;
    for (int k = 0; k < 4; k++) u |= (uint32_t)bytes[k * vals + v] << (8 * k);
    w[v] = (int32_t)u;
  }
  free(bytes);
  return w;
}

/* ---------------------------------------------------------------- GEMM + requant */

/* R rows of KB input blocks times NB x KB weight blocks; GEMM, then >>8, MAX 0, MIN 127, store.
 * Checks the stored bytes against a C matmul + requant. Returns the run's rc (0 when checked). */
enum { R = 2, KB = 2, NB = 2 };

static void run_requant(tprog *p, uint64_t data_seed) {
  const int B = p->cfg->batch, BI = p->cfg->block_in, BO = p->cfg->block_out;
  size_t nx = (size_t)R * KB * B * BI, nw = (size_t)NB * KB * BO * BI, ny = (size_t)R * NB * B * BO;
  int8_t *x = malloc(nx), *w = malloc(nw), *want = malloc(ny);
  uint64_t rs = data_seed;
  for (size_t i = 0; i < nx; i++) x[i] = (int8_t)(tp_rand(&rs) & 0xff);
  for (size_t i = 0; i < nw; i++) w[i] = (int8_t)(tp_rand(&rs) & 0xff);
  /* element (r*KB+kb) of x holds x[b][i], column k = kb*BI+i of row (r, b);
     element (o*KB+kb) of w holds w[oo][i], row n = o*BO+oo, column k = kb*BI+i */
  for (int r = 0; r < R; r++)
    for (int o = 0; o < NB; o++)
      for (int b = 0; b < B; b++)
        for (int oo = 0; oo < BO; oo++) {
          int64_t acc = 0;
          for (int kb = 0; kb < KB; kb++)
            for (int i = 0; i < BI; i++)
              acc += (int64_t)x[((size_t)(r * KB + kb) * B + b) * BI + i] * w[((size_t)(o * KB + kb) * BO + oo) * BI + i];
          int64_t q = floor_div_pow2(acc, 8);
          q = q < 0 ? 0 : q > 127 ? 127 : q;
          want[((size_t)(r * NB + o) * B + b) * BO + oo] = (int8_t)q;
        }
  ovta_uop u[KB + 1];
  for (int kb = 0; kb < KB; kb++) u[kb] = (ovta_uop){0, (uint32_t)kb, (uint32_t)kb};
  u[KB] = (ovta_uop){0, 0, 0};
  ovta_buf *bu = tp_uops(p, u, KB + 1), *bx = tp_buf_from(p, x, nx), *bw = tp_buf_from(p, w, nw);
  ovta_buf *by = tp_buf(p, ny);
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, KB + 1, KB + 1);
  tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, bx, OVTA_MEM_INP, 0), 1, R * KB, R * KB);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, bw, OVTA_MEM_WGT, 0), 1, NB * KB, NB * KB), 0, 0, 0, 1);
  tp_gemm(p, 1, KB, KB + 1, R * NB, 1, 1, 0, 0, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 0, KB, NB, R, 1, NB, 0, KB, KB, 0), 1, 0, 0, 0);
  tp_alu(p, OVTA_ALU_SHR, 1, 8, KB, KB + 1, R * NB, 1, 0);
  tp_alu(p, OVTA_ALU_MAX, 1, 0, KB, KB + 1, R * NB, 1, 0);
  tp_deps(tp_alu(p, OVTA_ALU_MIN, 1, 127, KB, KB + 1, R * NB, 1, 0), 0, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, by, OVTA_MEM_OUT, 0), 1, R * NB, R * NB), 1, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
  tp_run_ok(p);
  int8_t *got = tp_read(p, by, 0, ny);
  for (size_t i = 0; i < ny; i++)
    if (got[i] != want[i])
      fail_msg("%s/%s seed %llu: output byte %zu is %d, reference %d", ovta_dev_backend(p->dev), p->cfg->name,
               (unsigned long long)data_seed, i, got[i], want[i]);
  free(got);
  free(x), free(w), free(want);
  ovta_buf_free(bu), ovta_buf_free(bx), ovta_buf_free(bw), ovta_buf_free(by);
}

static void test_gemm_requant(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    run_requant(&p, 1);
    run_requant(&p, 2); /* SRAMs persist: a second program on the same device */
  });
}

/* The program's counters, derived by hand from its shape. */
static void test_counters(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    run_requant(&p, 3);
    const uint64_t B = (uint64_t)p.cfg->batch, BI = (uint64_t)p.cfg->block_in, BO = (uint64_t)p.cfg->block_out;
    ovta_counters c;
    ovta_dev_counters(p.dev, &c);
    assert_int_equal(c.insns_load, 2);    /* LOAD INP, LOAD WGT */
    assert_int_equal(c.insns_compute, 7); /* LOAD UOP, 2 GEMM, 3 ALU, FINISH */
    assert_int_equal(c.insns_store, 1);
    assert_int_equal(c.bytes_read[OVTA_MEM_UOP], (KB + 1) * 4);
    assert_int_equal(c.bytes_read[OVTA_MEM_INP], R * KB * B * BI);
    assert_int_equal(c.bytes_read[OVTA_MEM_WGT], NB * KB * BO * BI);
    assert_int_equal(c.bytes_read[OVTA_MEM_ACC], 0);
    assert_int_equal(c.bytes_written, R * NB * B * BO);
    assert_int_equal(c.gemm_uops, R * NB + NB * R * KB);
    assert_int_equal(c.alu_uops, 3 * R * NB);
    char *js = ovta_counters_to_json(&c);
    assert_non_null(js);
    char want[64];
    snprintf(want, sizeof want, "\"gemm_uops\":%d", R * NB + NB * R * KB);
    assert_non_null(strstr(js, want));
    snprintf(want, sizeof want, "\"WGT\":%llu", (unsigned long long)(NB * KB * BO * BI));
    assert_non_null(strstr(js, want));
    free(js);
  });
}

/* ---------------------------------------------------------------- ALU */

typedef struct alu_case {
  uint32_t op;
  int use_imm;
  int32_t imm;
} alu_case;

/* Load ACC a at [0, n) and s at [n, 2n), run ALU op(dst i, src n+i), read back all 32 bits. */
static void run_alu_case(tprog *p, const alu_case *ac, uint64_t data_seed) {
  const uint32_t n = 3;
  const size_t E = (size_t)p->cfg->batch * p->cfg->block_out, vals = n * E;
  int32_t *a = malloc(vals * 4), *s = malloc(vals * 4);
  uint64_t rs = data_seed;
  for (size_t i = 0; i < vals; i++) {
    a[i] = (int32_t)tp_rand(&rs);
    if (i % 3 == 0) a[i] = (int32_t)(tp_rand(&rs) % 2001) - 1000; /* small values too */
    s[i] = ac->op == OVTA_ALU_SHR ? (int32_t)(tp_rand(&rs) % 81) - 40 : (int32_t)tp_rand(&rs);
    if (ac->op == OVTA_ALU_SHR && i < 8) s[i] = (int32_t[]){0, 31, 32, -31, -32, 1, -1, 33}[i];
  }
  ovta_uop u[2] = {{0, n, 0}, {0, 0, 0}};
  ovta_buf *bu = tp_uops(p, u, 2), *ba = tp_buf_from(p, a, vals * 4), *bs = tp_buf_from(p, s, vals * 4);
  ovta_buf *bo = tp_buf(p, 4 * n * (size_t)p->cfg->out_bytes);
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 2, 2);
  tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, ba, OVTA_MEM_ACC, 0), 1, n, n);
  tp_load(p, OVTA_MEM_ACC, n, tp_elem(p, bs, OVTA_MEM_ACC, 0), 1, n, n);
  tp_deps(tp_alu(p, ac->op, (uint32_t)ac->use_imm, ac->imm, 0, 1, n, 1, 1), 0, 0, 0, 1);
  emit_store_words(p, bo, n, 1);
  tp_run_ok(p);
  int32_t *got = read_words(p, bo, n);
  for (size_t i = 0; i < vals; i++) {
    int32_t sv = ac->use_imm ? ac->imm : s[i];
    int32_t want = ref_alu(ac->op, a[i], sv);
    if (got[i] != want)
      fail_msg("%s/%s ALU %s %s%d: element %zu: op(%d, %d) = %d, reference %d", ovta_dev_backend(p->dev),
               p->cfg->name, ovta_alu_op_name(ac->op), ac->use_imm ? "imm " : "tensor ", ac->use_imm ? ac->imm : 0,
               i, a[i], sv, got[i], want);
  }
  free(got), free(a), free(s);
  ovta_buf_free(bu), ovta_buf_free(ba), ovta_buf_free(bs), ovta_buf_free(bo);
}

static void test_alu_ops(void **state) {
  (void)state;
  static const alu_case cases[] = {
      {OVTA_ALU_MIN, 1, -5},    {OVTA_ALU_MIN, 1, 127},  {OVTA_ALU_MIN, 0, 0},     {OVTA_ALU_MAX, 1, 7},
      {OVTA_ALU_MAX, 0, 0},     {OVTA_ALU_ADD, 1, -1000}, {OVTA_ALU_ADD, 1, 32767}, {OVTA_ALU_ADD, 0, 0},
      {OVTA_ALU_SHR, 1, 0},     {OVTA_ALU_SHR, 1, 3},    {OVTA_ALU_SHR, 1, 31},    {OVTA_ALU_SHR, 1, 32},
      {OVTA_ALU_SHR, 1, 40},    {OVTA_ALU_SHR, 1, -1},   {OVTA_ALU_SHR, 1, -4},    {OVTA_ALU_SHR, 1, -31},
      {OVTA_ALU_SHR, 1, -32},   {OVTA_ALU_SHR, 1, -40},  {OVTA_ALU_SHR, 1, -32768}, {OVTA_ALU_SHR, 0, 0},
      {OVTA_ALU_MUL, 1, -3},    {OVTA_ALU_MUL, 1, 1000}, {OVTA_ALU_MUL, 0, 0},
      {OVTA_ALU_MOV, 1, -7},    {OVTA_ALU_MOV, 1, 32767}, {OVTA_ALU_MOV, 0, 0},
      {OVTA_ALU_CLP, 1, 0x7f00}, {OVTA_ALU_CLP, 1, 0x7f80}, {OVTA_ALU_CLP, 1, 0x807f - 0x10000}, {OVTA_ALU_CLP, 1, 0x0a05},
      {OVTA_ALU_CLP, 1, 0x050a}, {OVTA_ALU_CLP, 1, -1},   {OVTA_ALU_CLP, 0, 0},
      {OVTA_ALU_RQ, 1, 0x7f49},  {OVTA_ALU_RQ, 1, 0x7f21}, {OVTA_ALU_RQ, 1, 0x7f3f},  {OVTA_ALU_RQ, 1, 0x7f20},
      {OVTA_ALU_RQ, 1, 0x0a82},  {OVTA_ALU_RQ, 1, 0x07e4}, {OVTA_ALU_RQ, 1, 0xfb40 - 0x10000}, {OVTA_ALU_RQ, 1, -1},
      {OVTA_ALU_RQ, 0, 0},
  };
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_alu_case(&p, &cases[i], 100 + i);
  });
}

/* RQ (isa/ISA.md ALU) on hand-picked values, the expected results worked out by hand: each case
 * one accumulator, one immediate `(hi << 8) | (lo code << 6) | (round << 5) | sh`. */
typedef struct rq_case {
  int32_t a, imm, want;
} rq_case;

static const rq_case rq_cases[] = {
    {-5, 0x7f21, -2},              /* (-5 + 1) >> 1 = -2 */
    {-6, 0x7f21, -3},              /* (-6 + 1) >> 1 = floor(-2.5) = -3 */
    {-7, 0x7f21, -3},              /* -3.5 rounds up: (-7 + 1) >> 1 = -3 */
    {-7, 0x7f01, -4},              /* no rounding: -7 >> 1 = -4 */
    {1000, 0x7f20, 127},           /* sh 0: the round bit adds nothing, 1000 clipped to 127 */
    {-1000, 0x7f20, -128},         /* sh 0, lo code 0: -128 */
    {77, 0x7f00, 77},              /* sh 0 inside the range: a itself */
    {INT32_MIN, 0x7f1f, -1},       /* sh 31: the sign */
    {INT32_MAX, 0x7f1f, 0},        /* sh 31 of a positive: 0 */
    {INT32_MAX, 0x7f3f, -1},       /* + 2^30 wraps to -1073741825, >> 31 = -1 */
    {-1000, 0x7f49, 0},            /* >> 9 with ReLU (lo code 1): -2 -> 0 */
    {70000, 0x7f49, 127},          /* 70000 >> 9 = 136 -> 127 */
    {5120, 0x7f49, 10},            /* 5120 >> 9 = 10 */
    {100, 0xfb40 - 0x10000, -5},   /* lo 0 > hi -5: max(100, 0) = 100, min(100, -5) = -5 */
    {-100, 0xfb40 - 0x10000, -5},  /* max(-100, 0) = 0, min(0, -5) = -5: hi when lo > hi */
    {-100, 0x0a82, -10},           /* lo code 2 (-hi): -100 >> 2 = -25 -> -10 */
    {30, 0x0a82, 7},               /* 30 >> 2 = 7 */
    {41, 0x0a82, 10},              /* 41 >> 2 = 10 = hi */
    {-200, 0x07e4, -8},            /* lo code 3 (~hi = -8, int4): (-200 + 8) >> 4 = -12 -> -8 */
    {100, 0x07e4, 6},              /* (100 + 8) >> 4 = 6 */
    {-24, 0x07e4, -1},             /* (-24 + 8) >> 4 = -1 */
    {-1, -1, -1},                  /* imm -1: sh 31, round, lo code 3 with hi -1 (lo 0 > hi): -1 */
};

static void test_rq_values(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    const size_t E = (size_t)p.cfg->batch * p.cfg->block_out;
    for (size_t c = 0; c < sizeof rq_cases / sizeof rq_cases[0]; c++) {
      int32_t *a = calloc(E, 4);
      for (size_t i = 0; i < E; i++) a[i] = rq_cases[c].a;
      assert_int_equal(ref_alu(OVTA_ALU_RQ, rq_cases[c].a, rq_cases[c].imm), rq_cases[c].want);
      ovta_uop u = {0, 0, 0};
      ovta_buf *bu = tp_uops(&p, &u, 1), *ba = tp_buf_from(&p, a, E * 4), *bo = tp_buf(&p, 4 * (size_t)p.cfg->out_bytes);
      tp_reset(&p);
      tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
      tp_load(&p, OVTA_MEM_ACC, 0, tp_elem(&p, ba, OVTA_MEM_ACC, 0), 1, 1, 1);
      tp_deps(tp_alu(&p, OVTA_ALU_RQ, 1, rq_cases[c].imm, 0, 1, 1, 0, 0), 0, 0, 0, 1);
      emit_store_words(&p, bo, 1, 0);
      tp_run_ok(&p);
      int32_t *got = read_words(&p, bo, 1);
      for (size_t i = 0; i < E; i++)
        if (got[i] != rq_cases[c].want)
          fail_msg("%s/%s RQ case %zu: RQ(%d, imm 0x%x) = %d, by hand %d", ovta_dev_backend(p.dev), p.cfg->name, c,
                   rq_cases[c].a, (unsigned)rq_cases[c].imm & 0xffffu, got[i], rq_cases[c].want);
      free(got), free(a);
      ovta_buf_free(bu), ovta_buf_free(ba), ovta_buf_free(bo);
    }
  });
}

/* ReLU: MAX with immediate 0, checked on hand-picked values. */
static void test_relu(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    const size_t E = (size_t)p.cfg->batch * p.cfg->block_out;
    int32_t *a = calloc(E, 4);
    static const int32_t in[8] = {-1, 0, 1, -129, 300, INT32_MIN, INT32_MAX, -7};
    for (size_t i = 0; i < E; i++) a[i] = in[i % 8];
    ovta_uop u = {0, 0, 0};
    ovta_buf *bu = tp_uops(&p, &u, 1), *ba = tp_buf_from(&p, a, E * 4), *bo = tp_buf(&p, 4 * E);
    tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
    tp_load(&p, OVTA_MEM_ACC, 0, tp_elem(&p, ba, OVTA_MEM_ACC, 0), 1, 1, 1);
    tp_deps(tp_alu(&p, OVTA_ALU_MAX, 1, 0, 0, 1, 1, 0, 0), 0, 0, 0, 1);
    emit_store_words(&p, bo, 1, 0);
    tp_run_ok(&p);
    int32_t *got = read_words(&p, bo, 1);
    static const int32_t relu[8] = {0, 0, 1, 0, 300, 0, INT32_MAX, 0}; /* by hand */
    for (size_t i = 0; i < E; i++) assert_int_equal(got[i], relu[i % 8]);
    free(got), free(a);
  });
}

/* Shift-and-scale: (a + s) >> k with a bias tensor s, on values where nothing wraps. */
static void test_shift_and_scale(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    const uint32_t n = 2, k = 5;
    const size_t E = (size_t)p.cfg->batch * p.cfg->block_out, vals = n * E;
    int32_t *a = malloc(vals * 4), *s = malloc(vals * 4);
    uint64_t rs = 7;
    for (size_t i = 0; i < vals; i++) {
      a[i] = (int32_t)(tp_rand(&rs) % 200001) - 100000;
      s[i] = (int32_t)(tp_rand(&rs) % 2001) - 1000;
    }
    ovta_uop u[2] = {{0, n, 0}, {0, 0, 0}};
    ovta_buf *bu = tp_uops(&p, u, 2), *ba = tp_buf_from(&p, a, vals * 4), *bs = tp_buf_from(&p, s, vals * 4);
    ovta_buf *bo = tp_buf(&p, 4 * vals);
    tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 2, 2);
    tp_load(&p, OVTA_MEM_ACC, 0, tp_elem(&p, ba, OVTA_MEM_ACC, 0), 1, n, n);
    tp_load(&p, OVTA_MEM_ACC, n, tp_elem(&p, bs, OVTA_MEM_ACC, 0), 1, n, n);
    tp_alu(&p, OVTA_ALU_ADD, 0, 0, 0, 1, n, 1, 1);
    tp_deps(tp_alu(&p, OVTA_ALU_SHR, 1, (int32_t)k, 1, 2, n, 1, 0), 0, 0, 0, 1);
    emit_store_words(&p, bo, n, 1);
    tp_run_ok(&p);
    int32_t *got = read_words(&p, bo, n);
    for (size_t i = 0; i < vals; i++) {
      int64_t sum = (int64_t)a[i] + s[i];
      int64_t want = sum >= 0 ? sum / 32 : -((-sum + 31) / 32); /* floor((a+s) / 2^5) */
      assert_int_equal(got[i], want);
    }
    free(got), free(a), free(s);
  });
}

/* ---------------------------------------------------------------- padded loads */

typedef struct pads {
  uint32_t y0, y1, x0, x1;
} pads;
static const pads PADS[] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {1, 2, 2, 1}};
enum { PY = 2, PX = 3, PSTRIDE = 5 }; /* rows, columns, DRAM row stride (elements) */

/* INP: garbage fill, padded load over it, identity GEMM copies INP to OUT, store. */
static void run_pad_inp(tprog *p, const pads *pd) {
  const int B = p->cfg->batch, BI = p->cfg->block_in, BO = p->cfg->block_out;
  const uint32_t W = pd->x0 + PX + pd->x1, Y = pd->y0 + PY + pd->y1, n = Y * W;
  const size_t eb = (size_t)B * BI;
  int8_t *src = malloc(PY * PSTRIDE * eb), *junk = malloc(n * eb), *wi = calloc((size_t)BO * BI, 1);
  for (size_t i = 0; i < PY * PSTRIDE * eb; i++) src[i] = (int8_t)(1 + i % 100);
  for (size_t i = 0; i < n * eb; i++) junk[i] = -77;
  for (int o = 0; o < BO; o++) wi[o * BI + o] = 1;
  /* expected INP SRAM [0, n): data where a row/column is inside, 0 in the pads */
  int8_t *want = calloc(n * eb, 1);
  for (uint32_t r = 0; r < Y; r++)
    for (uint32_t c = 0; c < W; c++)
      if (r >= pd->y0 && r < pd->y0 + PY && c >= pd->x0 && c < pd->x0 + PX)
        memcpy(want + (r * W + c) * eb, src + ((r - pd->y0) * PSTRIDE + (c - pd->x0)) * eb, eb);
  ovta_uop u = {0, 0, 0};
  ovta_buf *bu = tp_uops(p, &u, 1), *bs = tp_buf_from(p, src, PY * PSTRIDE * eb), *bj = tp_buf_from(p, junk, n * eb);
  ovta_buf *bw = tp_buf_from(p, wi, (size_t)BO * BI), *bo = tp_buf(p, n * eb);
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, bj, OVTA_MEM_INP, 0), 1, n, n);
  tp_pad(tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, bs, OVTA_MEM_INP, 0), PY, PX, PSTRIDE), pd->y0, pd->y1, pd->x0, pd->x1);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, bw, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
  tp_gemm(p, 1, 0, 1, n, 1, 1, 0, 0, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 0, 1, n, 1, 1, 0, 1, 0, 0, 0), 1, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, bo, OVTA_MEM_OUT, 0), 1, n, n), 1, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
  tp_run_ok(p);
  int8_t *got = tp_read(p, bo, 0, n * eb);
  for (size_t i = 0; i < n * eb; i++)
    if (got[i] != want[i])
      fail_msg("%s INP pads %u,%u,%u,%u: byte %zu (element %zu) is %d, expected %d", p->cfg->name, pd->y0, pd->y1,
               pd->x0, pd->x1, i, i / eb, got[i], want[i]);
  free(got), free(src), free(junk), free(wi), free(want);
  ovta_buf_free(bu), ovta_buf_free(bs), ovta_buf_free(bj), ovta_buf_free(bw), ovta_buf_free(bo);
}

/* ACC: garbage fill, padded load over it, ALU ADD 0 (writes OUT), read back all 32 bits. */
static void run_pad_acc(tprog *p, const pads *pd) {
  const uint32_t W = pd->x0 + PX + pd->x1, Y = pd->y0 + PY + pd->y1, n = Y * W;
  const size_t E = (size_t)p->cfg->batch * p->cfg->block_out;
  int32_t *src = malloc(PY * PSTRIDE * E * 4), *junk = malloc(n * E * 4), *want = calloc(n * E, 4);
  for (size_t i = 0; i < PY * PSTRIDE * E; i++) src[i] = (int32_t)(0x01020304 * (i + 1));
  for (size_t i = 0; i < n * E; i++) junk[i] = -123456789;
  for (uint32_t r = 0; r < Y; r++)
    for (uint32_t c = 0; c < W; c++)
      if (r >= pd->y0 && r < pd->y0 + PY && c >= pd->x0 && c < pd->x0 + PX)
        memcpy(want + (r * W + c) * E, src + ((r - pd->y0) * PSTRIDE + (c - pd->x0)) * E, E * 4);
  ovta_uop u = {0, 0, 0};
  ovta_buf *bu = tp_uops(p, &u, 1), *bs = tp_buf_from(p, src, PY * PSTRIDE * E * 4),
           *bj = tp_buf_from(p, junk, n * E * 4), *bo = tp_buf(p, 4 * n * E);
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, bj, OVTA_MEM_ACC, 0), 1, n, n);
  tp_pad(tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, bs, OVTA_MEM_ACC, 0), PY, PX, PSTRIDE), pd->y0, pd->y1, pd->x0, pd->x1);
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 0, 0, 1, n, 1, 0), 0, 0, 0, 1);
  emit_store_words(p, bo, n, 0);
  tp_run_ok(p);
  int32_t *got = read_words(p, bo, n);
  for (size_t i = 0; i < n * E; i++)
    if (got[i] != want[i])
      fail_msg("%s ACC pads %u,%u,%u,%u: value %zu (element %zu) is %d, expected %d", p->cfg->name, pd->y0, pd->y1,
               pd->x0, pd->x1, i, i / E, got[i], want[i]);
  free(got), free(src), free(junk), free(want);
  ovta_buf_free(bu), ovta_buf_free(bs), ovta_buf_free(bj), ovta_buf_free(bo);
}

static void test_padded_loads(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    for (size_t i = 0; i < sizeof PADS / sizeof PADS[0]; i++) {
      run_pad_inp(&p, &PADS[i]);
      run_pad_acc(&p, &PADS[i]);
    }
  });
}

/* ACC round trip: load ACC, ALU (ADD imm 0: the identity), store: all 32 bits come back. */
static void test_acc_roundtrip(void **state) {
  (void)state;
  static const pads none = {0, 0, 0, 0};
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, run_pad_acc(&p, &none));
}

/* ---------------------------------------------------------------- state across runs */

/* Copy INP [0, n) to OUT with identity weights and store it (uops, weights loaded each time). */
static int8_t *copy_inp_out(tprog *p, uint32_t n) {
  const int BI = p->cfg->block_in, BO = p->cfg->block_out;
  const size_t eb = (size_t)p->cfg->out_bytes;
  int8_t *wi = calloc((size_t)BO * BI, 1), *junk = malloc(n * eb);
  for (int o = 0; o < BO; o++) wi[o * BI + o] = 1;
  memset(junk, 0x33, n * eb); /* so that zeros in the result were written by the device */
  ovta_uop u = {0, 0, 0};
  ovta_buf *bu = tp_uops(p, &u, 1), *bw = tp_buf_from(p, wi, (size_t)BO * BI), *bo = tp_buf_from(p, junk, n * eb);
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, bw, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
  tp_gemm(p, 1, 0, 1, n, 1, 1, 0, 0, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 0, 1, n, 1, 1, 0, 1, 0, 0, 0), 1, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, bo, OVTA_MEM_OUT, 0), 1, n, n), 1, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
  tp_run_ok(p);
  int8_t *got = tp_read(p, bo, 0, n * eb);
  free(wi), free(junk);
  ovta_buf_free(bu), ovta_buf_free(bw), ovta_buf_free(bo);
  return got;
}

/* SRAMs are zero when the device opens and keep their contents from one run to the next. */
static void test_sram_state(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    const uint32_t n = 4;
    const size_t eb = (size_t)p.cfg->inp_bytes;
    int8_t *got = copy_inp_out(&p, n);
    for (size_t i = 0; i < n * eb; i++) assert_int_equal(got[i], 0);
    free(got);
    /* run 1 loads INP only */
    int8_t *x = malloc(n * eb);
    for (size_t i = 0; i < n * eb; i++) x[i] = (int8_t)(i * 3 - 50);
    ovta_buf *bx = tp_buf_from(&p, x, n * eb);
    tp_reset(&p);
    tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, bx, OVTA_MEM_INP, 0), 1, n, n);
    tp_finish(&p);
    tp_run_ok(&p);
    /* run 2 reads it */
    got = copy_inp_out(&p, n);
    assert_memory_equal(got, x, n * eb);
    free(got), free(x);
    ovta_buf_free(bx);
  });
}

/* ---------------------------------------------------------------- errors */

static void assert_contains(const char *msg, const char *part) {
  if (!strstr(msg, part)) fail_msg("message \"%s\" lacks \"%s\"", msg, part);
}

static void test_deadlock(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    /* a token never given: compute pops L2C, load never pushes */
    tp_load(&p, OVTA_MEM_INP, 0, 0, 0, 0, 0); /* sync, no push */
    tp_deps(tp_gemm(&p, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), 1, 0, 0, 0);
    tp_finish(&p);
    assert_int_equal(tp_run(&p, 10000), OVTA_EDEADLOCK);
    assert_contains(p.err.msg, "compute waits at instruction 1");
    assert_contains(p.err.msg, "L2C");
    assert_contains(p.err.msg, "load idle");
    /* room never made: DEP_QUEUE_DEPTH+1 pushes into C2S, store never pops */
    tp_reset(&p);
    uint32_t d = (uint32_t)p.cfg->dep_queue_depth;
    for (uint32_t i = 0; i <= d; i++) tp_deps(tp_finish(&p), 0, 0, 0, 1);
    assert_int_equal(tp_run(&p, 10000), OVTA_EDEADLOCK);
    char want[96];
    snprintf(want, sizeof want, "compute waits at instruction %u (FINISH) for room in C2S", d);
    assert_contains(p.err.msg, want);
    /* the device runs a good program afterwards */
    run_requant(&p, 4);
  });
}

static void test_invalid_instructions(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    /* a bad opcode word at index 2: the two FINISHes before it retire, nothing after */
    tp_finish(&p);
    tp_finish(&p);
    tp_raw(&p, 7, 0);
    tp_finish(&p);
    assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
    assert_contains(p.err.msg, "instruction 2");
    ovta_counters c;
    ovta_dev_counters(p.dev, &c);
    assert_int_equal(c.insns_compute, 2);
    run_requant(&p, 5);

    /* an ACC index out of range inside a GEMM loop: dst = 2*i reaches acc_depth at i = depth/2 */
    tp_reset(&p);
    ovta_uop u = {0, 0, 0};
    ovta_buf *bu = tp_uops(&p, &u, 1);
    uint32_t io = (uint32_t)p.cfg->acc_depth / 2 + 1;
    tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
    tp_gemm(&p, 0, 0, 1, io, 1, 2, 0, 0, 0, 0, 0);
    tp_finish(&p);
    assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
    assert_contains(p.err.msg, "instruction 1");
    char want[64];
    snprintf(want, sizeof want, "dst index %d", p.cfg->acc_depth);
    assert_contains(p.err.msg, want);
    run_requant(&p, 6);

    /* a DRAM row outside any allocation: 2 elements from a 1-element buffer */
    tp_reset(&p);
    ovta_buf *b1 = tp_buf(&p, (size_t)p.cfg->inp_bytes);
    tp_finish(&p);
    tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, b1, OVTA_MEM_INP, 0), 1, 2, 2);
    assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
    assert_contains(p.err.msg, "instruction 1");
    assert_contains(p.err.msg, "DRAM");
    run_requant(&p, 7);

    /* a STORE of INP */
    tp_reset(&p);
    tp_finish(&p);
    tp_store(&p, 0, tp_elem(&p, b1, OVTA_MEM_INP, 0), 1, 1, 1)->memory_type = OVTA_MEM_INP;
    assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
    assert_contains(p.err.msg, "instruction 1");
    assert_contains(p.err.msg, "STORE");
    run_requant(&p, 8);

    /* a stream without FINISH */
    tp_reset(&p);
    tp_load(&p, OVTA_MEM_INP, 0, 0, 0, 0, 0);
    assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
    assert_contains(p.err.msg, "no FINISH");
    ovta_buf_free(bu), ovta_buf_free(b1);
  });
}

/* isa/ISA.md "Overlap": fsim checks the promise of a GEMM/ALU with overlap = 1 (disjoint ACC/OUT
 * footprints, dst in the other ACC half than the previous GEMM/ALU's) and names both indices. */
static int overlap_run(tprog *p, ovta_buf *bu, uint32_t use_imm, bool load_between, uint32_t ov) {
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 3, 3);
  tp_gemm(p, 1, 0, 1, 4, 1, 1, 0, 0, 0, 0, 0); /* reset acc[0..4): uop 0 = {0, 0, 0} */
  if (load_between) tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 3, 3);
  tp_alu(p, OVTA_ALU_ADD, use_imm, 1, 1, 2, 4, 1, 1)->overlap = ov; /* uop 1: the case's dst and src */
  tp_finish(p);
  return tp_run(p, 10000);
}

static void test_overlap_check(void **state) {
  (void)state;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    tprog p;
    tp_open(&p, "fsim", *cf, 0);
    const uint32_t H = (uint32_t)p.cfg->acc_depth / 2;
    /* the ALU's first dst and src (4 iterations, +1 each), its operand, its bit, a LOAD before it,
     * the error (NULL: it runs) */
    const struct { uint32_t dst, src, use_imm, ov; bool load_between; const char *want; } c[] = {
        {H, H + 8, 0, 1, false, NULL},          /* other half, own src: allowed */
        {H, 2, 0, 1, false, "read by it and written"}, /* src inside the GEMM's dst */
        {3, H, 1, 1, false, "written by it and written"}, /* dst 3 both write */
        {8, H, 1, 1, false, "ACC halves"},       /* disjoint, but the same half */
        {8, H, 1, 1, true, NULL},                /* a LOAD in between: the bit has no effect */
        {3, 0, 0, 0, false, NULL},               /* no bit: anything goes */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
      ovta_uop u[3] = {{0, 0, 0}, {.dst_idx = c[k].dst, .src_idx = c[k].src}, {0, 0, 0}};
      ovta_buf *bu = tp_uops(&p, u, 3);
      int rc = overlap_run(&p, bu, c[k].use_imm, c[k].load_between, c[k].ov);
      if (!c[k].want) {
        if (rc) fail_msg("%s case %zu: %s", *cf, k, p.err.msg);
      } else {
        if (rc != OVTA_EINSN) fail_msg("%s case %zu: ran (%s), expected an overlap error", *cf, k, ovta_rc_name(rc));
        assert_contains(p.err.msg, "instruction 2 (ALU): overlap=1");
        assert_contains(p.err.msg, "instruction 1 (GEMM)");
        assert_contains(p.err.msg, c[k].want);
      }
      ovta_buf_free(bu);
    }
    tp_close(&p);
  }
}

static void test_timeout(void **state) {
  (void)state;
  tprog p;
  TP_FOR_EACH_DEVICE(&p, 0, {
    ovta_uop u = {0, 0, 0};
    ovta_buf *bu = tp_uops(&p, &u, 1);
    tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
    tp_gemm(&p, 0, 0, 1, 16383, 16383, 0, 0, 0, 0, 0, 0); /* 268 million micro-ops */
    tp_finish(&p);
    assert_int_equal(tp_run(&p, 20), OVTA_ETIMEOUT);
    assert_contains(p.err.msg, "timeout");
    run_requant(&p, 9);
    ovta_buf_free(bu);
  });
}

/* A LOAD UOP of one micro-op, a GEMM of iter_in micro-ops (factors 0) and a FINISH: under the
 * budget rule of hw/sim/fsim.h, 3 + iter_in units of work (seed 0). */
static int run_loop(tprog *p, ovta_buf *bu, uint32_t iter_in) {
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_gemm(p, 0, 0, 1, 1, iter_in, 0, 0, 0, 0, 0, 0);
  tp_finish(p);
  return tp_run(p, 0);
}

/* ovta_dev_opts.work_budget: exact (a program doing W units runs under a budget of W, not of
 * W - 1), a huge loop stops at once with the budget named, results under a budget are the
 * reference's, the device runs normally afterwards; other backends refuse a budget. */
static void test_work_budget(void **state) {
  (void)state;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    const struct { uint64_t budget; uint32_t iter; int rc; const char *want; } c[] = {
        {3 + 1000, 1000, OVTA_OK, NULL},
        {3 + 999, 1000, OVTA_ETIMEOUT, "fsim: timeout after a work budget of 1002 units: 3 of 3"},
        {500, 1000, OVTA_ETIMEOUT, "budget of 500 units while executing instruction 1 (GEMM)"},
        {1000000, 16383, OVTA_OK, NULL},
        {1000000, 16383u * 16383u, OVTA_ETIMEOUT, "instruction 1 (GEMM)"}, /* 268 M micro-ops */
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
      ovta_dev_opts o = {.work_budget = c[k].budget};
      tprog p;
      tp_open_opts(&p, "fsim", *cf, &o);
      ovta_uop u = {0, 0, 0};
      ovta_buf *bu = tp_uops(&p, &u, 1);
      uint32_t io = c[k].iter > 16383 ? 16383 : 1, ii = c[k].iter > 16383 ? 16383 : c[k].iter;
      tp_reset(&p);
      tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
      tp_gemm(&p, 0, 0, 1, io, ii, 0, 0, 0, 0, 0, 0);
      tp_finish(&p);
      int rc = tp_run(&p, 0);
      if (rc != c[k].rc) fail_msg("%s case %zu: %s (%s)", *cf, k, ovta_rc_name(rc), p.err.msg);
      if (c[k].want) assert_contains(p.err.msg, c[k].want);
      if (rc == OVTA_OK) {
        ovta_counters ctr;
        ovta_dev_counters(p.dev, &ctr);
        assert_int_equal(ctr.gemm_uops, c[k].iter);
      }
      if (c[k].budget >= 1000000) run_requant(&p, 11); /* well under the budget: the reference result */
      assert_int_equal(run_loop(&p, bu, 1000), c[k].budget >= 3 + 1000 ? OVTA_OK : OVTA_ETIMEOUT);
      ovta_buf_free(bu);
      tp_close(&p);
    }
  }
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  ovta_dev_opts o = {.work_budget = 1};
  for (const char *const *be = ovta_backend_names(); *be; be++) {
    if (!strcmp(*be, "fsim")) continue;
    ovta_dev *dev = NULL;
    assert_int_equal(ovta_dev_open(*be, &cfg, &o, &dev, &err), OVTA_EUNSUPPORTED);
    assert_contains(err.msg, "only fsim counts work");
    assert_null(dev);
  }
}

/* ovta_fsim_reset: every SRAM back to zero, the new seed used; refused for no fsim device. */
static void test_fsim_reset(void **state) {
  (void)state;
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
    tprog p;
    tp_open(&p, "fsim", *cf, 0);
    run_requant(&p, 12);
    ovta_error err = {0};
    const void *d;
    size_t n;
    int nonzero = 0;
    for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) {
      OVTA_ASSERT_OK(ovta_fsim_sram(p.dev, mt, &d, &n, &err), err);
      for (size_t i = 0; i < n; i++) nonzero += ((const uint8_t *)d)[i] != 0;
    }
    assert_true(nonzero > 0);
    OVTA_ASSERT_OK(ovta_fsim_reset(p.dev, 7, &err), err);
    for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) {
      OVTA_ASSERT_OK(ovta_fsim_sram(p.dev, mt, &d, &n, &err), err);
      for (size_t i = 0; i < n; i++)
        if (((const uint8_t *)d)[i]) fail_msg("%s: %s byte %zu not zero after the reset", *cf, ovta_mem_type_name(mt), i);
    }
    run_requant(&p, 13); /* seeded now: a correctly tokened program gives the reference */
    tp_close(&p);
  }
  ovta_error err = {0};
  assert_int_equal(ovta_fsim_reset(NULL, 0, &err), OVTA_EINVAL);
  assert_contains(err.msg, "not an fsim device");
}

/* ---------------------------------------------------------------- interleaving */

/* A correctly tokened program gives the reference result under every seed. */
static void test_seeds_agree(void **state) {
  (void)state;
  tprog p;
  for (uint64_t seed = 1; seed <= 6; seed++) TP_FOR_EACH_DEVICE(&p, seed, run_requant(&p, 10));
}

/* A missing L2C token between LOAD INP and the GEMM reading it: depending on the order the
 * GEMM sees the loaded data (identity weights: OUT = x) or the zeroed SRAM (OUT = 0). Across
 * seeds both must occur (fresh device each time), and nothing else. */
static void test_seeds_race(void **state) {
  (void)state;
  /* Only fsim interleaves by seed; other backends (tsim: one deterministic schedule) skip. */
  int tested = 0;
  for (const char *const *be = ovta_test_backends(); *be; be++) {
    if (strcmp(*be, "fsim") != 0) continue;
    tested++;
    for (const char *const *cf = ovta_test_configs(); *cf; cf++) {
      int saw_data = 0, saw_zero = 0;
      for (uint64_t seed = 1; seed <= 16; seed++) {
        tprog p;
        tp_open(&p, *be, *cf, seed);
        const int B = p.cfg->batch, BI = p.cfg->block_in, BO = p.cfg->block_out;
        const size_t eb = (size_t)B * BI;
        int8_t *x = malloc(eb), *wi = calloc((size_t)BO * BI, 1);
        for (size_t i = 0; i < eb; i++) x[i] = (int8_t)(i + 1);
        for (int o = 0; o < BO; o++) wi[o * BI + o] = 1;
        ovta_uop u = {0, 0, 0};
        ovta_buf *bu = tp_uops(&p, &u, 1), *bx = tp_buf_from(&p, x, eb), *bw = tp_buf_from(&p, wi, (size_t)BO * BI);
        ovta_buf *bo = tp_buf(&p, eb);
        tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
        tp_deps(tp_load(&p, OVTA_MEM_WGT, 0, tp_elem(&p, bw, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
        tp_deps(tp_gemm(&p, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0), 1, 0, 0, 0);
        tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, bx, OVTA_MEM_INP, 0), 1, 1, 1); /* no push: the bug */
        tp_deps(tp_gemm(&p, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0), 0, 0, 0, 1);
        tp_deps(tp_store(&p, 0, tp_elem(&p, bo, OVTA_MEM_OUT, 0), 1, 1, 1), 1, 0, 1, 0);
        tp_deps(tp_finish(&p), 0, 1, 0, 0);
        tp_run_ok(&p);
        int8_t *got = tp_read(&p, bo, 0, eb);
        int8_t *zero = calloc(eb, 1);
        if (memcmp(got, x, eb) == 0) saw_data++;
        else if (memcmp(got, zero, eb) == 0) saw_zero++;
        else fail_msg("%s seed %llu: output is neither the data nor zero", *cf, (unsigned long long)seed);
        free(got), free(zero), free(x), free(wi);
        tp_close(&p);
      }
      if (!saw_data || !saw_zero)
        fail_msg("%s/%s: the racing program gave the same result on all 16 seeds (data %d, zero %d)", *be, *cf,
                 saw_data, saw_zero);
    }
  }
  if (!tested) skip(); /* no backend with interleaving seeds in OVTA_TEST_BACKENDS */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_requant),   cmocka_unit_test(test_counters),
      cmocka_unit_test(test_alu_ops),        cmocka_unit_test(test_rq_values),      cmocka_unit_test(test_relu),
      cmocka_unit_test(test_shift_and_scale), cmocka_unit_test(test_padded_loads),
      cmocka_unit_test(test_acc_roundtrip),  cmocka_unit_test(test_sram_state),
      cmocka_unit_test(test_deadlock),
      cmocka_unit_test(test_invalid_instructions), cmocka_unit_test(test_overlap_check),
      cmocka_unit_test(test_timeout),       cmocka_unit_test(test_work_budget),
      cmocka_unit_test(test_fsim_reset),
      cmocka_unit_test(test_seeds_agree),    cmocka_unit_test(test_seeds_race),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
