/* Runtime core tests: dependency calls mapped onto the pop/push bits (expected bits derived by
 * hand from the module table of isa/ISA.md), 2D loads with padding against a plain-C model of
 * the LOAD rule, uop-cache eviction on the `small` config (uop SRAM of 128 micro-ops) with the
 * result checked against plain-C arithmetic, a kernel's LOAD UOP placed before the GEMM an ALU of
 * the other ACC half runs beside (overlap), recovery after a failed run, and misuse giving
 * OVTA_EINVAL with a message that names the problem. */
#include "ovta_test_dev.h"
#include "ovta_runtime.h"

#include <pthread.h>
#include <stdio.h>

typedef struct fixture {
  ovta_config cfg;
  ovta_dev *dev;
  ovta_rt *rt;
} fixture;

static void open_fx(fixture *fx, const char *backend, const char *cfgname) {
  ovta_error err = {0};
  fx->dev = ovta_test_dev_open(backend, cfgname, NULL, &fx->cfg);
  OVTA_ASSERT_OK(ovta_rt_create(fx->dev, NULL, &fx->rt, &err), err);
}

static void close_fx(fixture *fx) {
  ovta_rt_destroy(fx->rt);
  ovta_dev_close(fx->dev);
}

static void expect_einval(int rc, const ovta_error *err, const char *needle) {
  if (rc != OVTA_EINVAL) fail_msg("expected invalid-argument, got %s: %s", ovta_rc_name(rc), err->msg);
  assert_int_equal(err->code, OVTA_EINVAL);
  if (!strstr(err->msg, needle)) fail_msg("message '%s' does not mention '%s'", err->msg, needle);
}

/* One instruction's dependency bits as a 4-bit pattern pop_prev pop_next push_prev push_next. */
static int bits(const ovta_insn *in) {
  return (int)(in->pop_prev << 3 | in->pop_next << 2 | in->push_prev << 1 | in->push_next);
}

/* Dependency mapping (isa/ISA.md module table): load pushes L2C with push_next and pops C2L
 * with pop_next; compute pops L2C/S2C with pop_prev/pop_next and pushes C2L/C2S with
 * push_prev/push_next; store pops C2S with pop_prev and pushes S2C with push_prev. */
static void test_dep_bits(void **state) {
  (void)state;
  fixture fx;
  open_fx(&fx, "fsim", "default");
  ovta_error err = {0};
  ovta_rt *rt = fx.rt;
  ovta_buf *b;
  OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, 4096, &b, &err), err);
  /* 0: compute sync carrying the credit push to load (no compute instruction yet) */
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_LOAD, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_LOAD, &err), err);
  /* 1: LOAD INP pops C2L (pop_next) and then pushes L2C (push_next) */
  OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_INP, 0, b, 0, 1, 1, 1, NULL, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, &err), err);
  /* 2: LOAD UOP (kernel not resident) takes the pending L2C pop; 3: GEMM */
  bool rec;
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 1, &rec, &err), err);
  assert_true(rec);
  OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 0, &err), err);
  OVTA_ASSERT_OK(ovta_rt_push_gemm(rt, false, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_LOAD, &err), err);  /* GEMM push_prev */
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err); /* GEMM push_next */
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
  /* 4: STORE pops C2S (pop_prev), pushes S2C (push_prev) */
  OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 0, b, 0, 1, 1, 1, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, &err), err);
  /* 5: a second push into the same queue cannot go on the STORE again: a store sync */
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, &err), err);
  /* 6: ALU (kernel resident now: no LOAD UOP) pops S2C (pop_next) */
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 1, &rec, &err), err);
  assert_false(rec);
  OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 1, false, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  uint32_t n;
  const ovta_insn *s = ovta_rt_stream(rt, &n);
  assert_int_equal(n, 7);
  assert_int_equal(s[0].opcode, OVTA_OP_LOAD);
  assert_int_equal(s[0].memory_type, OVTA_MEM_UOP);
  assert_int_equal(s[0].x_size, 0);
  assert_int_equal(bits(&s[0]), 0x2); /* push_prev */
  assert_int_equal(s[1].memory_type, OVTA_MEM_INP);
  assert_int_equal(bits(&s[1]), 0x5); /* pop_next, push_next */
  assert_int_equal(s[2].memory_type, OVTA_MEM_UOP);
  assert_int_equal(s[2].x_size, 1);
  assert_int_equal(bits(&s[2]), 0x8); /* pop_prev */
  assert_int_equal(s[3].opcode, OVTA_OP_GEMM);
  assert_int_equal(bits(&s[3]), 0x3); /* push_prev, push_next */
  assert_int_equal(s[4].opcode, OVTA_OP_STORE);
  assert_int_equal(bits(&s[4]), 0xa); /* pop_prev, push_prev */
  assert_int_equal(s[5].opcode, OVTA_OP_STORE);
  assert_int_equal(s[5].x_size, 0);
  assert_int_equal(bits(&s[5]), 0x2);
  assert_int_equal(s[6].opcode, OVTA_OP_ALU);
  assert_int_equal(bits(&s[6]), 0x4); /* pop_next */
  /* synchronize: one compute sync drains the S2C token left (2 pushed, 1 popped), one load
   * sync the C2L token left (2 pushed, 1 popped); that load sync also carries the final L2C push
   * (its push_next is free), the store needs a new sync for its final S2C push (instruction 5
   * pushes S2C already); then FINISH: 7 + 2 + 1 + 1 instructions */
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
  assert_int_equal(ovta_rt_pending_insns(rt), 0);
  ovta_counters ct;
  ovta_dev_counters(fx.dev, &ct);
  assert_int_equal(ct.insns_store, 2 + 1);                                /* STORE, sync, final sync */
  assert_int_equal(ct.insns_load + ct.insns_compute + ct.insns_store, 7 + 2 + 1 + 1);
  ovta_buf_free(b);
  close_fx(&fx);
}

/* Padded 2D INP load, then GEMM with an identity weight copies INP to OUT: the OUT bytes must
 * equal a plain-C model of the LOAD rule (zero rows/elements around strided DRAM rows). */
static void test_load_padding(void **state) {
  (void)state;
  for (const char *const *be = ovta_test_backends(); *be; be++)
    for (const char *const *cn = ovta_test_configs(); *cn; cn++) {
      fixture fx;
      open_fx(&fx, *be, *cn);
      ovta_error err = {0};
      const ovta_config *c = &fx.cfg;
      int B = c->batch, BI = c->block_in, BO = c->block_out;
      const uint32_t xs = 3, ys = 2, stride = 5, off = 1;
      const ovta_rt_pad pad = {1, 2, 2, 1}; /* x0 y0 x1 y1 */
      uint32_t W = pad.x0 + xs + pad.x1, H = pad.y0 + ys + pad.y1, total = W * H;
      ovta_buf *bi, *bw, *bo;
      size_t in_elems = off + (ys - 1) * stride + xs;
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, in_elems * c->inp_bytes, &bi, &err), err);
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, (size_t)c->wgt_bytes, &bw, &err), err);
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, (size_t)total * c->out_bytes, &bo, &err), err);
      int8_t *x = malloc(in_elems * c->inp_bytes), *wt = calloc((size_t)c->wgt_bytes, 1);
      for (size_t i = 0; i < in_elems * c->inp_bytes; i++) x[i] = (int8_t)(i * 7 + 1);
      for (int o = 0; o < BO && o < BI; o++) wt[o * BI + o] = 1; /* identity */
      OVTA_ASSERT_OK(ovta_buf_write(bi, 0, x, in_elems * c->inp_bytes, &err), err);
      OVTA_ASSERT_OK(ovta_buf_write(bw, 0, wt, (size_t)c->wgt_bytes, &err), err);
      ovta_rt *rt = fx.rt;
      OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_INP, 4, bi, off, xs, ys, stride, &pad, &err), err);
      OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_WGT, 0, bw, 0, 1, 1, 1, NULL, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, &err), err);
      bool rec;
      OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 7, &rec, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, total, 1, 1, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 4, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_gemm(rt, true, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_gemm(rt, false, &err), err);
      OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 0, bo, 0, W, H, W, &err), err);
      OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
      int8_t *got = malloc((size_t)total * c->out_bytes);
      OVTA_ASSERT_OK(ovta_buf_read(bo, 0, got, (size_t)total * c->out_bytes, &err), err);
      for (uint32_t r = 0; r < H; r++)
        for (uint32_t e = 0; e < W; e++)
          for (int b = 0; b < B; b++)
            for (int o = 0; o < BO; o++) {
              int8_t want = 0;
              bool inside = r >= pad.y0 && r < pad.y0 + ys && e >= pad.x0 && e < pad.x0 + xs;
              if (inside && o < BI) {
                size_t elem = off + (r - pad.y0) * stride + (e - pad.x0);
                want = x[elem * c->inp_bytes + (size_t)b * BI + o];
              }
              int8_t g = got[((size_t)(r * W + e) * B + b) * BO + o];
              if (g != want)
                fail_msg("%s/%s: row %u elem %u [%d][%d] = %d, expected %d", *be, *cn, r, e, b, o, g, want);
            }
      free(got);
      free(x);
      free(wt);
      ovta_buf_free(bi);
      ovta_buf_free(bw);
      ovta_buf_free(bo);
      close_fx(&fx);
    }
}

/* ALU with a tensor operand (src is an ACC index) and with immediates, on every config and
 * backend: acc[d] for d < N, s = acc[N + d]; ADD s, MUL s, MAX s, SHR 3 (immediate), then the low
 * 8 bits stored. Reference: 32-bit wrapping arithmetic in plain C. */
static void test_alu_tensor(void **state) {
  (void)state;
  for (const char *const *be = ovta_test_backends(); *be; be++)
    for (const char *const *cn = ovta_test_configs(); *cn; cn++) {
      fixture fx;
      open_fx(&fx, *be, *cn);
      ovta_error err = {0};
      const ovta_config *c = &fx.cfg;
      const uint32_t N = 24;
      int lanes = c->batch * c->block_out;
      size_t n = (size_t)2 * N * lanes;
      int32_t *init = malloc(n * 4);
      uint32_t x = 99;
      for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        init[i] = (int32_t)(x >> 8) - (1 << 23); /* about +-2^23 */
      }
      ovta_buf *ba, *bo;
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, n * 4, &ba, &err), err);
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, (size_t)N * c->out_bytes, &bo, &err), err);
      OVTA_ASSERT_OK(ovta_buf_write(ba, 0, init, n * 4, &err), err);
      ovta_rt *rt = fx.rt;
      /* ACC rows: 2 rows of N elements, stride N (a 2D ACC load on the compute module) */
      OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_ACC, 0, ba, 0, N, 2, N, NULL, &err), err);
      bool rec;
      OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 42, &rec, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, N / 4, 4, 4, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, 2, 2, 2, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, N, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 1, N + 1, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, false, 0, false, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_MUL, false, 0, false, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_MAX, false, 0, false, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_SHR, true, 3, false, &err), err);
      OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 0, bo, 0, N, 1, N, &err), err);
      OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
      int8_t *got = malloc((size_t)N * lanes);
      OVTA_ASSERT_OK(ovta_buf_read(bo, 0, got, (size_t)N * lanes, &err), err);
      for (uint32_t d = 0; d < N; d++)
        for (int l = 0; l < lanes; l++) {
          uint32_t a = (uint32_t)init[d * lanes + l], sv = (uint32_t)init[(N + d) * lanes + l];
          a = a + sv;
          a = a * sv;
          if ((int32_t)a < (int32_t)sv) a = sv;
          int32_t v = (int32_t)a;
          v = v >= 0 ? v / 8 : -((-(int64_t)v + 7) / 8); /* arithmetic shift = floor division */
          int8_t want = (int8_t)(uint8_t)(uint32_t)v;
          if (got[d * lanes + l] != want)
            fail_msg("%s/%s: element %u lane %d = %d, expected %d", *be, *cn, d, l, got[d * lanes + l], want);
        }
      free(got);
      free(init);
      ovta_buf_free(ba);
      ovta_buf_free(bo);
      close_fx(&fx);
    }
}

/* jit-runtime/README.md "Overlap": a kernel's first LOAD UOP between two GEMMs and an ALU of the
 * other ACC half goes before the last GEMM, so the ALU runs beside it (overlap bit; fsim checks
 * the bit's rule). Two reset GEMMs zero ACC [0, N); then a new kernel adds 5 to [H, H + N) (H =
 * ACC_DEPTH / 2, loaded from DRAM): as issued, its LOAD UOP would sit between the second GEMM and
 * the ALU. OUT checked against plain-C arithmetic. */
static void test_uop_load_hoist(void **state) {
  (void)state;
  for (const char *const *be = ovta_test_backends(); *be; be++)
    for (const char *const *cn = ovta_test_configs(); *cn; cn++) {
      fixture fx;
      open_fx(&fx, *be, *cn);
      ovta_error err = {0};
      const ovta_config *c = &fx.cfg;
      const uint32_t N = 8, H = (uint32_t)c->acc_depth / 2;
      int lanes = c->batch * c->block_out;
      size_t n = (size_t)N * lanes;
      int32_t *init = malloc(n * 4);
      for (size_t i = 0; i < n; i++) init[i] = (int32_t)(i * 37 % 251) - 125;
      ovta_buf *ba, *bo;
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, n * 4, &ba, &err), err);
      OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, (size_t)2 * N * c->out_bytes, &bo, &err), err);
      OVTA_ASSERT_OK(ovta_buf_write(ba, 0, init, n * 4, &err), err);
      ovta_rt *rt = fx.rt;
      OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_ACC, H, ba, 0, N, 1, N, NULL, &err), err);
      bool rec;
      OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 7, &rec, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, N, 1, 0, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_gemm(rt, true, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_gemm(rt, true, &err), err);
      OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 8, &rec, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, N, 1, 0, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_uop_push(rt, H, 0, 0, &err), err);
      OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 5, false, &err), err);
      OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
      OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 0, bo, 0, N, 1, N, &err), err);
      OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, H, bo, N, N, 1, N, &err), err);
      OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
      ovta_rt_stats st;
      ovta_rt_stats_get(rt, &st);
      assert_int_equal(st.kernel_loads, 2);
      assert_int_equal(st.overlap_reverted, 0);
      assert_int_equal(st.overlap_marked, 1); /* the ALU beside the second GEMM */
      int8_t *got = malloc(2 * n);
      OVTA_ASSERT_OK(ovta_buf_read(bo, 0, got, 2 * n, &err), err);
      for (size_t i = 0; i < n; i++) {
        if (got[i] != 0) fail_msg("%s/%s: reset element %zu = %d", *be, *cn, i, got[i]);
        int8_t want = (int8_t)(uint8_t)(uint32_t)(init[i] + 5);
        if (got[n + i] != want) fail_msg("%s/%s: element %zu = %d, expected %d", *be, *cn, i, got[n + i], want);
      }
      free(got);
      free(init);
      ovta_buf_free(ba);
      ovta_buf_free(bo);
      close_fx(&fx);
    }
}

/* Kernel i (i = 0..5) of 40 micro-ops adds i+1 to ACC elements (5i + j) % 64, j = 0..39; uop
 * SRAM of `small` holds 128 micro-ops, so three such kernels fit. A 1-uop kernel looped 64 times
 * (ADD 0) then writes every OUT element. */
#define EV_ELEMS 64
#define EV_UOPS 40

static void ev_push(ovta_rt *rt, int i, int64_t *model) {
  ovta_error err = {0};
  bool rec;
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 100 + (uint64_t)i, &rec, &err), err);
  if (rec)
    for (int j = 0; j < EV_UOPS; j++) OVTA_ASSERT_OK(ovta_rt_uop_push(rt, (uint32_t)((5 * i + j) % EV_ELEMS), 0, 0, &err), err);
  OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, i + 1, false, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  for (int j = 0; j < EV_UOPS; j++) model[(5 * i + j) % EV_ELEMS] += i + 1;
}

static void test_uop_eviction(void **state) {
  (void)state;
  for (const char *const *be = ovta_test_backends(); *be; be++) {
    fixture fx;
    open_fx(&fx, *be, "small");
    ovta_error err = {0};
    const ovta_config *c = &fx.cfg;
    assert_int_equal(c->uop_depth, 128);
    ovta_rt *rt = fx.rt;
    int lanes = c->batch * c->block_out;
    size_t nacc = (size_t)EV_ELEMS * lanes;
    int32_t *init = malloc(nacc * 4);
    int64_t model[EV_ELEMS] = {0};
    for (size_t i = 0; i < nacc; i++) init[i] = (int32_t)(i * 37 % 200) - 100;
    ovta_buf *ba, *bo;
    OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, nacc * 4, &ba, &err), err);
    OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, (size_t)EV_ELEMS * c->out_bytes, &bo, &err), err);
    OVTA_ASSERT_OK(ovta_buf_write(ba, 0, init, nacc * 4, &err), err); /* little-endian host */
    OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_ACC, 0, ba, 0, EV_ELEMS, 1, EV_ELEMS, NULL, &err), err);
    /* phase 1: kernels 0..2 fit */
    for (int i = 0; i < 3; i++) ev_push(rt, i, model);
    OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
    ovta_rt_stats st;
    ovta_rt_stats_get(rt, &st);
    assert_int_equal(st.kernel_loads, 3);
    assert_int_equal(st.evictions, 0);
    assert_int_equal(st.uop_bytes, 3 * EV_UOPS * 4);
    /* phase 2: still resident after the synchronize: no reload, the device reads no uops */
    for (int i = 0; i < 3; i++) assert_true(ovta_rt_kernel_resident(rt, 100 + (uint64_t)i));
    for (int i = 2; i >= 0; i--) ev_push(rt, i, model);
    OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
    ovta_rt_stats_get(rt, &st);
    assert_int_equal(st.kernel_loads, 3);
    assert_int_equal(st.kernel_hits, 3);
    ovta_counters ct;
    ovta_dev_counters(fx.dev, &ct);
    assert_int_equal(ct.bytes_read[OVTA_MEM_UOP], 0);
    /* phase 3: kernels 3..5 take the ring over: each evicts one of 0..2 */
    for (int i = 3; i < 6; i++) ev_push(rt, i, model);
    ovta_rt_stats_get(rt, &st);
    assert_int_equal(st.kernel_loads, 6);
    assert_int_equal(st.evictions, 3);
    for (int i = 0; i < 3; i++) assert_false(ovta_rt_kernel_resident(rt, 100 + (uint64_t)i));
    /* phase 4: kernel 0 again: reloaded (evicting kernel 3), in the same run */
    ev_push(rt, 0, model);
    ev_push(rt, 4, model); /* still resident */
    ovta_rt_stats_get(rt, &st);
    assert_int_equal(st.kernel_loads, 7);
    assert_int_equal(st.evictions, 4);
    assert_int_equal(st.kernel_hits, 4);
    assert_true(ovta_rt_kernel_resident(rt, 100));
    assert_false(ovta_rt_kernel_resident(rt, 103));
    assert_true(ovta_rt_kernel_cached(rt, 103));
    /* write every OUT element: a 1-uop kernel looped over all 64 (ADD 0) */
    bool rec;
    OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 200, &rec, &err), err);
    OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, EV_ELEMS, 1, 0, 0, &err), err);
    OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 0, &err), err);
    OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
    OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 0, false, &err), err);
    OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
    OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
    OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
    OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 0, bo, 0, EV_ELEMS, 1, EV_ELEMS, &err), err);
    OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
    int8_t *got = malloc((size_t)EV_ELEMS * c->out_bytes);
    OVTA_ASSERT_OK(ovta_buf_read(bo, 0, got, (size_t)EV_ELEMS * c->out_bytes, &err), err);
    for (int e = 0; e < EV_ELEMS; e++)
      for (int l = 0; l < lanes; l++) {
        int8_t want = (int8_t)(uint8_t)((int64_t)init[e * lanes + l] + model[e]);
        if (got[e * lanes + l] != want)
          fail_msg("%s: element %d lane %d = %d, expected %d", *be, e, l, got[e * lanes + l], want);
      }
    /* a LOAD UOP issued by the caller over uop SRAM [0, 2) replaces kernel 0 (at 0..39): the
     * cache forgets it and reloads it on next use */
    assert_true(ovta_rt_kernel_resident(rt, 100));
    OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_UOP, 0, ba, 0, 2, 1, 2, NULL, &err), err);
    assert_false(ovta_rt_kernel_resident(rt, 100));
    ovta_rt_stats_get(rt, &st);
    assert_int_equal(st.evictions, 6); /* 4 above, kernel 200 (at 40) evicted kernel 4, this one */
    free(got);
    free(init);
    ovta_buf_free(ba);
    ovta_buf_free(bo);
    close_fx(&fx);
  }
}

/* A run that fails on the device (a LOAD from a freed buffer) reports the run and the device's
 * message; the queue is usable again and kernels are reloaded (uop SRAM unknown after a failure). */
static void test_failed_run_recovers(void **state) {
  (void)state;
  fixture fx;
  open_fx(&fx, "fsim", "small");
  ovta_error err = {0};
  ovta_rt *rt = fx.rt;
  ovta_buf *gone, *bo;
  OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, 4096, &gone, &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, 4096, &bo, &err), err);
  bool rec;
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 9, &rec, &err), err);
  OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 0, &err), err);
  OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 1, true, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  /* (run once first, so the instruction buffer is allocated before `gone` is freed and cannot
   * take its place) */
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
  assert_true(ovta_rt_kernel_resident(rt, 9));
  OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_ACC, 1, gone, 0, 1, 1, 1, NULL, &err), err);
  ovta_buf_free(gone);
  int rc = ovta_rt_synchronize(rt, 10000, &err);
  assert_int_not_equal(rc, OVTA_OK);
  if (!strstr(err.msg, "runtime run 2")) fail_msg("message: %s", err.msg);
  assert_false(ovta_rt_kernel_resident(rt, 9));
  assert_int_equal(ovta_rt_pending_insns(rt), 0);
  /* again, valid: reset gives 0 then ADD 5 -> 5 in every lane */
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 9, &rec, &err), err);
  assert_false(rec);
  OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 0, true, &err), err);
  OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 5, false, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 0, bo, 0, 1, 1, 1, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
  ovta_rt_stats st;
  ovta_rt_stats_get(rt, &st);
  assert_int_equal(st.kernel_loads, 2);
  int8_t got[8];
  OVTA_ASSERT_OK(ovta_buf_read(bo, 0, got, 8, &err), err);
  for (int i = 0; i < 8; i++) assert_int_equal(got[i], 5);
  ovta_buf_free(bo);
  close_fx(&fx);
}

static void test_misuse(void **state) {
  (void)state;
  fixture fx;
  open_fx(&fx, "fsim", "small");
  ovta_error err = {0};
  ovta_rt *rt = fx.rt;
  ovta_buf *b;
  OVTA_ASSERT_OK(ovta_buf_alloc(fx.dev, 4096, &b, &err), err);
  bool rec;
  /* GEMM/ALU outside a kernel */
  expect_einval(ovta_rt_push_gemm(rt, false, &err), &err, "outside a kernel");
  expect_einval(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 1, false, &err), &err, "outside a kernel");
  /* unbalanced pops */
  expect_einval(ovta_rt_dep_pop(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, &err), &err, "unbalanced");
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, &err), err);
  expect_einval(ovta_rt_dep_pop(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, &err), &err, "store->compute queue has no token");
  expect_einval(ovta_rt_dep_push(rt, OVTA_RT_LOAD, OVTA_RT_STORE, &err), &err, "no dependency queue");
  expect_einval(ovta_rt_dep_push(rt, (ovta_rt_stage)7, OVTA_RT_STORE, &err), &err, "not OVTA_RT_LOAD");
  uint32_t before = ovta_rt_pending_insns(rt);
  /* SRAM indices beyond the config (INP 128, WGT 64, ACC 128 elements on small) */
  expect_einval(ovta_rt_load_2d(rt, OVTA_MEM_INP, 127, b, 0, 2, 1, 2, NULL, &err), &err, "beyond the INP buffer of 128");
  ovta_rt_pad pad = {0, 0, 0, 1};
  expect_einval(ovta_rt_load_2d(rt, OVTA_MEM_ACC, 100, b, 0, 7, 4, 7, &pad, &err), &err, "beyond the ACC buffer");
  expect_einval(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 120, b, 0, 3, 3, 3, &err), &err, "beyond the OUT buffer");
  expect_einval(ovta_rt_load_2d(rt, OVTA_MEM_WGT, 0, b, 0, 1, 1, 1, &pad, &err), &err, "padding");
  expect_einval(ovta_rt_load_2d(rt, OVTA_MEM_OUT, 0, b, 0, 1, 1, 1, NULL, &err), &err, "cannot be loaded");
  expect_einval(ovta_rt_store_2d(rt, OVTA_MEM_ACC, 0, b, 0, 1, 1, 1, &err), &err, "only OUT");
  expect_einval(ovta_rt_load_2d(rt, OVTA_MEM_INP, 0, b, 500, 20, 1, 20, NULL, &err), &err, "buffer holds 512");
  /* kernels whose loops reach beyond an SRAM */
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 1, &rec, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, 65, 2, 0, 0, &err), err);
  OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 1, 0, 0, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
  expect_einval(ovta_rt_push_gemm(rt, true, &err), &err, "dst index reaches 129"); /* 1 + 64*2 */
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 2, &rec, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, 2, 0, 0, 40, &err), err);
  OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 30, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
  expect_einval(ovta_rt_push_gemm(rt, false, &err), &err, "wgt index reaches 70");
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  /* recording out of order */
  expect_einval(ovta_rt_uop_push(rt, 0, 0, 0, &err), &err, "no kernel is open");
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 3, &rec, &err), err);
  expect_einval(ovta_rt_kernel_begin(rt, 4, &rec, &err), &err, "still open");
  OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, 2, 1, 1, 1, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_begin(rt, 2, 1, 1, 1, &err), err);
  expect_einval(ovta_rt_loop_begin(rt, 2, 1, 1, 1, &err), &err, "at most two");
  expect_einval(ovta_rt_uop_push(rt, 128, 0, 0, &err), &err, "dst_idx");
  expect_einval(ovta_rt_push_gemm(rt, false, &err), &err, "open loop");
  OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 0, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
  OVTA_ASSERT_OK(ovta_rt_loop_end(rt, &err), err);
  expect_einval(ovta_rt_loop_end(rt, &err), &err, "no open loop");
  expect_einval(ovta_rt_push_alu(rt, (ovta_alu_op)9, true, 0, false, &err), &err, "unknown ALU opcode");
  expect_einval(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, 40000, false, &err), &err, "signed 16 bits");
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 3, &rec, &err), err);
  assert_false(rec);
  expect_einval(ovta_rt_uop_push(rt, 0, 0, 0, &err), &err, "already recorded");
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  expect_einval(ovta_rt_kernel_end(rt, &err), &err, "no kernel is open");
  /* a kernel without micro-ops */
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 6, &rec, &err), err);
  expect_einval(ovta_rt_push_gemm(rt, false, &err), &err, "no micro-ops");
  expect_einval(ovta_rt_kernel_end(rt, &err), &err, "no micro-ops");
  /* a kernel larger than uop SRAM */
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 5, &rec, &err), err);
  for (int i = 0; i < 129; i++) OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 0, 0, 0, &err), err);
  expect_einval(ovta_rt_kernel_end(rt, &err), &err, "uop SRAM holds 128");
  assert_false(ovta_rt_kernel_cached(rt, 5));
  /* none of the failed calls appended anything; the queue still runs */
  assert_int_equal(ovta_rt_pending_insns(rt), before);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
  ovta_buf_free(b);
  close_fx(&fx);
}

/* 1500 ALU ADDs (immediates 1..1500) on one ACC element: one run of 1500+ instructions (the
 * instruction buffer grows from 256), then the same with max_insns = 100 (16 runs). Reference:
 * the sum, low 8 bits per lane. */
static void long_stream(uint32_t max_insns, uint64_t want_runs) {
  ovta_error err = {0};
  ovta_config cfg;
  ovta_dev *dev = ovta_test_dev_open("fsim", "small", NULL, &cfg);
  ovta_rt_opts ro = {0};
  ro.max_insns = max_insns;
  ovta_rt *rt;
  OVTA_ASSERT_OK(ovta_rt_create(dev, &ro, &rt, &err), err);
  int lanes = cfg.batch * cfg.block_out;
  int32_t init[64];
  for (int l = 0; l < lanes; l++) init[l] = 1000 * l - 3000;
  ovta_buf *ba, *bo;
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, 4096, &ba, &err), err);
  OVTA_ASSERT_OK(ovta_buf_alloc(dev, 4096, &bo, &err), err);
  OVTA_ASSERT_OK(ovta_buf_write(ba, 0, init, (size_t)lanes * 4, &err), err);
  OVTA_ASSERT_OK(ovta_rt_load_2d(rt, OVTA_MEM_ACC, 5, ba, 0, 1, 1, 1, NULL, &err), err);
  bool rec;
  OVTA_ASSERT_OK(ovta_rt_kernel_begin(rt, 1, &rec, &err), err);
  OVTA_ASSERT_OK(ovta_rt_uop_push(rt, 5, 0, 0, &err), err);
  for (int i = 1; i <= 1500; i++) OVTA_ASSERT_OK(ovta_rt_push_alu(rt, OVTA_ALU_ADD, true, i, false, &err), err);
  OVTA_ASSERT_OK(ovta_rt_kernel_end(rt, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, &err), err);
  OVTA_ASSERT_OK(ovta_rt_store_2d(rt, OVTA_MEM_OUT, 5, bo, 0, 1, 1, 1, &err), err);
  OVTA_ASSERT_OK(ovta_rt_synchronize(rt, 10000, &err), err);
  ovta_rt_stats st;
  ovta_rt_stats_get(rt, &st);
  assert_int_equal(st.runs, want_runs);
  assert_int_equal(st.kernel_loads, 1);
  int8_t got[64];
  OVTA_ASSERT_OK(ovta_buf_read(bo, 0, got, (size_t)lanes, &err), err);
  for (int l = 0; l < lanes; l++) assert_int_equal(got[l], (int8_t)(uint8_t)(init[l] + 1500 * 1501 / 2));
  ovta_rt_destroy(rt);
  ovta_buf_free(ba);
  ovta_buf_free(bo);
  ovta_dev_close(dev);
}

static void test_long_stream(void **state) {
  (void)state;
  long_stream(0, 1);
  long_stream(100, 16); /* 1505 instructions and the final syncs in runs of 100 */
}

/* The thread-local current queue: set in this thread, absent in another, cleared by destroy. */
static void *other_thread(void *arg) {
  (void)arg;
  return ovta_rt_thread_get();
}

static void test_thread_queue(void **state) {
  (void)state;
  fixture fx;
  open_fx(&fx, "fsim", "small");
  assert_null(ovta_rt_thread_get());
  ovta_rt_thread_set(fx.rt);
  assert_ptr_equal(ovta_rt_thread_get(), fx.rt);
  pthread_t t;
  void *seen = (void *)1;
  assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
  assert_int_equal(pthread_join(t, &seen), 0);
  assert_null(seen);
  close_fx(&fx);
  assert_null(ovta_rt_thread_get());
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dep_bits),
      cmocka_unit_test(test_load_padding),
      cmocka_unit_test(test_alu_tensor),
      cmocka_unit_test(test_uop_load_hoist),
      cmocka_unit_test(test_uop_eviction),
      cmocka_unit_test(test_failed_run_recovers),
      cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_thread_queue),
      cmocka_unit_test(test_long_stream),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
