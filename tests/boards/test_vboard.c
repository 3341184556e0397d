/* Board backends on the virtual board: the "zynq" backend code (driver/backend_zynq.c), with its
 * register writes, polling and u-dma-buf cache calls, driving the Verilator model through a
 * memory-mapped register window and a shared DMA region (driver/backend_vboard.c).
 *
 *   1. fsim vs vboard: directed programs on every config; every DRAM buffer byte for byte, the
 *      error code and failing instruction, the counters (fsim is the golden model).
 *   2. The zynq backend's own behaviour: cache maintenance calls, the DRAM pre-check, timeouts
 *      and recovery, state across runs, the zynq backend pointed at a board started by hand.
 *   3. The zynq backend's failures: missing device, bad sizes, wrong bitstream, bad options.
 *
 * Needs build/tsim/CONFIG/libovta_tsim.so (boards/boards.mk builds them before this test). */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ovta_test.h"
#include "fsim/against.h"
#include "ovta_vboard.h"

/* ---------------------------------------------------------------- 1. fsim vs vboard */

static void against_fsim(tp_builder fn, int variant, int expect_rc) {
  for (const char *const *cf = ovta_test_configs(); *cf; cf++) tp_against_fsim("vboard", *cf, fn, variant, NULL, expect_rc);
}

/* GEMM: INP/WGT loads with tokens both ways, accumulation chains, outer/inner loops, a reset.
 * variant 0/1: different data and uop orders. */
static void build_gemm(tprog *p, tp_bufs *s, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 1234 + (uint64_t)variant;
  enum { NI = 6, NW = 3, NO = 4 };
  ovta_buf *x = tp_rand_buf(p, s, NI * (size_t)c->inp_bytes, &seed);
  ovta_buf *w = tp_rand_buf(p, s, NW * (size_t)c->wgt_bytes, &seed);
  ovta_uop u[7];
  memset(u, 0, sizeof u);
  int nu = 1;
  for (int k = 0; k < 3; k++)
    for (int d = 0; d < 2; d++) {
      int kk = variant ? 2 - k : k;
      u[nu].dst_idx = (uint32_t)d, u[nu].src_idx = (uint32_t)(d + kk), u[nu].wgt_idx = (uint32_t)kk, nu++;
    }
  ovta_buf *ub = tp_keep(s, tp_uops(p, u, (size_t)nu));
  ovta_buf *out = tp_keep(s, tp_buf(p, 4 * NO * (size_t)c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, (uint32_t)nu, (uint32_t)nu);
  tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, x, OVTA_MEM_INP, 0), 2, NI / 2, NI / 2);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, w, OVTA_MEM_WGT, 0), 1, NW, NW), 0, 0, 0, 1);
  tp_deps(tp_gemm(p, 1, 0, 1, NO, 1, 1, 0, 0, 0, 0, 0), 1, 0, 1, 0);
  tp_deps(tp_load(p, OVTA_MEM_INP, NI, tp_elem(p, x, OVTA_MEM_INP, 0), 1, NI, NI), 0, 1, 0, 1);
  tp_deps(tp_gemm(p, 0, 1, (uint32_t)nu, 2, 1, 2, 0, 2, 0, 0, 0), 1, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 1, (uint32_t)nu, 1, 2, 0, 1, 0, 1, 0, 0), 0, 0, 0, 1);
  tp_store_words(p, out, NO, 0);
}

/* ALU: op = variant % 5, immediate (variant < 5) or vector-vector on random accumulators. */
static void build_alu(tprog *p, tp_bufs *s, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 77 + (uint64_t)variant;
  enum { N = 3 };
  uint32_t op = (uint32_t)(variant % 5);
  ovta_buf *a = tp_rand_buf(p, s, 2 * N * (size_t)c->acc_bytes, &seed);
  if (op == OVTA_ALU_SHR) { /* shift amounts in -36..36 */
    size_t nw = N * (size_t)c->acc_bytes / 4;
    int32_t *v = malloc(nw * 4);
    for (size_t i = 0; i < nw; i++) v[i] = (int32_t)(tp_rand(&seed) % 73) - 36;
    OVTA_ASSERT_OK(ovta_buf_write(a, N * (size_t)c->acc_bytes, v, nw * 4, &p->err), p->err);
    free(v);
  }
  ovta_uop u[2] = {{0}};
  u[1].dst_idx = 0, u[1].src_idx = N;
  ovta_buf *ub = tp_keep(s, tp_uops(p, u, 2));
  ovta_buf *out = tp_keep(s, tp_buf(p, 4 * N * (size_t)c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 2, 2);
  tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, a, OVTA_MEM_ACC, 0), 1, 2 * N, 2 * N);
  if (variant < 5) {
    static const int32_t imm[] = {-5, 9, -32768, 32767};
    static const int32_t sh[] = {2, -3, 33, -33};
    for (int i = 0; i < 4; i++) tp_alu(p, op, 1, op == OVTA_ALU_SHR ? sh[i] : imm[i], 0, 1, N, 1, 1);
  } else {
    tp_alu(p, op, 0, 0, 1, 2, N, 1, 1);
  }
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 0, 0, 1, 1, 0, 0), 0, 0, 0, 1);
  tp_store_words(p, out, N, 0);
}

/* Padded INP (through a GEMM) and ACC loads. */
static void build_pad(tprog *p, tp_bufs *s, int variant) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 31 + (uint64_t)variant;
  uint32_t y0 = (uint32_t)variant & 1, y1 = (uint32_t)variant >> 1 & 1, x0 = 1 + (uint32_t)variant % 2, x1 = 2;
  uint32_t rows = 2, cols = 2, W = x0 + cols + x1, total = (y0 + rows + y1) * W;
  ovta_buf *x = tp_rand_buf(p, s, rows * 3 * (size_t)c->inp_bytes, &seed);
  ovta_buf *w = tp_rand_buf(p, s, (size_t)c->wgt_bytes, &seed);
  ovta_buf *a = tp_rand_buf(p, s, rows * 3 * (size_t)c->acc_bytes, &seed);
  ovta_uop u[1] = {{0}};
  ovta_buf *ub = tp_keep(s, tp_uops(p, u, 1));
  ovta_buf *out = tp_keep(s, tp_buf(p, 2 * total * (size_t)c->out_bytes));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_pad(tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, x, OVTA_MEM_INP, 0), rows, cols, 3), y0, y1, x0, x1);
  tp_deps(tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, w, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_gemm(p, 1, 0, 1, total, 1, 1, 0, 0, 0, 0, 0), 1, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 0, 1, total, 1, 1, 0, 1, 0, 0, 0), 0, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, 0), 1, total, total), 1, 0, 1, 0);
  tp_pad(tp_deps(tp_load(p, OVTA_MEM_ACC, 0, tp_elem(p, a, OVTA_MEM_ACC, 0), rows, cols, 3), 0, 1, 0, 0), y0, y1,
         x0, x1);
  tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 0, 0, 1, total, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_store(p, 0, tp_elem(p, out, OVTA_MEM_OUT, total * (size_t)c->out_bytes), 1, total, total), 1, 0, 1, 0);
  tp_deps(tp_finish(p), 0, 1, 0, 0);
}

/* Errors: 0 dst index out of range at 3; 1 unknown opcode at 2; 2 deadlock; 3 no FINISH. */
static void build_err(tprog *p, tp_bufs *s, int variant) {
  const ovta_config *c = p->cfg;
  ovta_uop u[1] = {{0}};
  ovta_buf *ub = tp_keep(s, tp_uops(p, u, 1));
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, ub, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_gemm(p, 1, 0, 1, 2, 1, 1, 0, 0, 0, 0, 0);
  switch (variant) {
  case 0:
    tp_alu(p, OVTA_ALU_ADD, 1, 3, 0, 1, 2, 1, 0);
    tp_gemm(p, 1, 0, 1, 3, 1, (uint32_t)c->acc_depth / 2, 0, 0, 0, 0, 0);
    break;
  case 1: tp_raw(p, 7, 0); break;
  case 2: tp_deps(tp_alu(p, OVTA_ALU_ADD, 1, 1, 0, 1, 2, 1, 0), 1, 0, 0, 0); break;
  case 3: return;
  }
  tp_finish(p);
}

static void test_gemm(void **state) {
  (void)state;
  against_fsim(build_gemm, 0, OVTA_OK);
  against_fsim(build_gemm, 1, OVTA_OK);
}

static void test_alu(void **state) {
  (void)state;
  for (int v = 0; v < 10; v++) against_fsim(build_alu, v, OVTA_OK);
}

static void test_padded(void **state) {
  (void)state;
  for (int v = 0; v < 4; v++) against_fsim(build_pad, v, OVTA_OK);
}

static void test_errors(void **state) {
  (void)state;
  against_fsim(build_err, 0, OVTA_EINSN);
  against_fsim(build_err, 1, OVTA_EINSN);
  against_fsim(build_err, 2, OVTA_EDEADLOCK);
  against_fsim(build_err, 3, OVTA_EINSN);
}

/* ---------------------------------------------------------------- 2. zynq behaviour */

static uint64_t ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The number at the start of a file, or -1. */
static long long file_num(const char *dir, const char *name) {
  char path[700], buf[64] = "";
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strtoll(buf, NULL, 0);
}

/* The sysfs directory of the vboard behind a "vboard" device: its device_path names it. */
static void open_on_board(tprog *p, ovta_vboard **vb, const char *config) {
  memset(p, 0, sizeof *p);
  OVTA_ASSERT_OK(ovta_config_load(config, &p->cfg_store, &p->err), p->err);
  ovta_vboard_opts vo = {0};
  vo.dma_bytes = 8u << 20;
  OVTA_ASSERT_OK(ovta_vboard_start(&p->cfg_store, &vo, vb, &p->err), p->err);
  ovta_dev_opts o = {0};
  o.device_path = ovta_vboard_device_path(*vb);
  /* the plain zynq backend, pointed at the board's files */
  OVTA_ASSERT_OK(ovta_dev_open("zynq", &p->cfg_store, &o, &p->dev, &p->err), p->err);
  p->isa = ovta_dev_isa(p->dev);
  p->cfg = ovta_dev_config(p->dev);
}

/* Results through the zynq backend on a board started by hand; the u-dma-buf sync calls name
 * the right ranges and directions; runs go through the register window. */
static void test_zynq_on_board(void **state) {
  (void)state;
  tprog p;
  ovta_vboard *vb;
  open_on_board(&p, &vb, "small");
  char sys[700];
  snprintf(sys, sizeof sys, "%s/sysfs/udmabuf0", ovta_vboard_dir(vb));
  const int n = 5;
  const size_t eb = (size_t)p.cfg->inp_bytes;
  int8_t *x = malloc(n * eb);
  for (size_t i = 0; i < n * eb; i++) x[i] = (int8_t)(i * 7 + 3);
  ovta_buf *bx = tp_buf_from(&p, x, n * eb);
  /* the write flushed: to-device sync of exactly that range */
  assert_int_equal(file_num(sys, "sync_for_device"), 1);
  assert_int_equal(file_num(sys, "sync_direction"), 1);
  assert_int_equal(file_num(sys, "sync_offset"), (long long)(bx->phys - OVTA_VBOARD_DMA_PHYS));
  assert_int_equal(file_num(sys, "sync_size"), (long long)(n * eb));
  assert_int_equal(bx->phys % 64, 0);
  /* copy INP to OUT through an identity GEMM: x * I = x when BLOCK_IN = BLOCK_OUT */
  const int BI = p.cfg->block_in, BO = p.cfg->block_out;
  int8_t *wi = calloc((size_t)BO * BI, 1);
  for (int o = 0; o < BO; o++) wi[o * BI + o] = 1;
  ovta_buf *bw = tp_buf_from(&p, wi, (size_t)BO * BI);
  ovta_uop u = {0, 0, 0};
  ovta_buf *bu = tp_uops(&p, &u, 1), *bo = tp_buf(&p, n * eb);
  tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, bx, OVTA_MEM_INP, 0), 1, n, n);
  tp_deps(tp_load(&p, OVTA_MEM_WGT, 0, tp_elem(&p, bw, OVTA_MEM_WGT, 0), 1, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_gemm(&p, 1, 0, 1, n, 1, 1, 0, 0, 0, 0, 0), 1, 0, 0, 0);
  tp_deps(tp_gemm(&p, 0, 0, 1, n, 1, 1, 0, 1, 0, 0, 0), 0, 0, 0, 1);
  tp_deps(tp_store(&p, 0, tp_elem(&p, bo, OVTA_MEM_OUT, 0), 1, n, n), 1, 0, 0, 0);
  tp_finish(&p);
  uint64_t w0, r0, w1, r1;
  ovta_vboard_stats(vb, &w0, &r0);
  tp_run_ok(&p);
  ovta_vboard_stats(vb, &w1, &r1);
  assert_int_equal(r1 - r0, 1);     /* one start */
  assert_true(w1 - w0 >= 4);        /* soft reset, address, count, start */
  int8_t *got = tp_read(&p, bo, 0, n * eb);
  assert_memory_equal(got, x, n * eb);
  /* the read invalidated: from-device sync of that range */
  assert_int_equal(file_num(sys, "sync_for_cpu"), 1);
  assert_int_equal(file_num(sys, "sync_direction"), 2);
  assert_int_equal(file_num(sys, "sync_offset"), (long long)(bo->phys - OVTA_VBOARD_DMA_PHYS));
  assert_int_equal(file_num(sys, "sync_size"), (long long)(n * eb));
  ovta_counters k;
  ovta_dev_counters(p.dev, &k);
  assert_int_equal(k.insns_load, 2);
  assert_int_equal(k.gemm_uops, 2 * n);
  assert_int_equal(k.bytes_written, n * eb);
  assert_true(k.cycles >= (uint64_t)(2 * n));
  free(got), free(x), free(wi);
  tp_close(&p);
  ovta_vboard_stop(vb);
}

/* A LOAD reaching past its buffer is refused before the start (the hardware would read it);
 * a long run times out, and the device runs correctly after both. */
static void test_precheck_and_timeout(void **state) {
  (void)state;
  tprog p;
  tp_open(&p, "vboard", "default", 0);
  ovta_buf *b1 = tp_buf(&p, (size_t)p.cfg->inp_bytes);
  tp_finish(&p);
  tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, b1, OVTA_MEM_INP, 0), 1, 2, 2);
  assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
  if (!strstr(p.err.msg, "instruction 1") || !strstr(p.err.msg, "DRAM")) fail_msg("message: %s", p.err.msg);
  /* strided rows: the second row lands outside */
  tp_reset(&p);
  ovta_buf *b4 = tp_buf(&p, 4 * (size_t)p.cfg->inp_bytes);
  tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, b4, OVTA_MEM_INP, 0), 2, 1, 4);
  tp_finish(&p);
  assert_int_equal(tp_run(&p, 10000), OVTA_EINSN);
  if (!strstr(p.err.msg, "instruction 0")) fail_msg("message: %s", p.err.msg);
  /* ... and the same rows within the buffer run */
  tp_reset(&p);
  tp_load(&p, OVTA_MEM_INP, 0, tp_elem(&p, b4, OVTA_MEM_INP, 0), 2, 1, 3);
  tp_finish(&p);
  tp_run_ok(&p);
  /* a run of 268 million micro-ops stops at the wall-time limit */
  tp_reset(&p);
  ovta_uop u = {0, 0, 0};
  ovta_buf *bu = tp_uops(&p, &u, 1);
  tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_gemm(&p, 0, 0, 1, 16383, 16383, 0, 0, 0, 0, 0, 0);
  tp_finish(&p);
  uint64_t t0 = ms_now();
  assert_int_equal(tp_run(&p, 50), OVTA_ETIMEOUT);
  assert_true(ms_now() - t0 < 5000);
  if (!strstr(p.err.msg, "timeout") || !strstr(p.err.msg, "compute")) fail_msg("message: %s", p.err.msg);
  ovta_counters k;
  ovta_dev_counters(p.dev, &k);
  assert_true(k.gemm_uops > 0);
  /* afterwards a program gives fsim's result */
  ovta_buf_free(bu), ovta_buf_free(b1), ovta_buf_free(b4);
  tp_close(&p);
  against_fsim(build_gemm, 0, OVTA_OK);
}

/* SRAM contents persist from one run to the next on one device (no reset between runs). */
static void test_two_runs(void **state) {
  (void)state;
  tprog p;
  tp_open(&p, "vboard", "batch2", 0);
  const uint32_t n = 3;
  const size_t ab = (size_t)p.cfg->acc_bytes, ob = (size_t)p.cfg->out_bytes;
  int32_t *a = malloc(n * ab);
  for (size_t i = 0; i < n * ab / 4; i++) a[i] = (int32_t)(i * 5) - 20;
  ovta_buf *ba = tp_buf_from(&p, a, n * ab), *bo = tp_buf(&p, n * ob);
  ovta_uop u = {0, 0, 0};
  ovta_buf *bu = tp_uops(&p, &u, 1);
  tp_load(&p, OVTA_MEM_UOP, 0, tp_elem(&p, bu, OVTA_MEM_UOP, 0), 1, 1, 1);
  tp_load(&p, OVTA_MEM_ACC, 0, tp_elem(&p, ba, OVTA_MEM_ACC, 0), 1, n, n);
  tp_finish(&p);
  tp_run_ok(&p);
  tp_reset(&p);
  tp_deps(tp_alu(&p, OVTA_ALU_ADD, 1, 1, 0, 1, n, 1, 1), 0, 0, 0, 1);
  tp_deps(tp_store(&p, 0, tp_elem(&p, bo, OVTA_MEM_OUT, 0), 1, n, n), 1, 0, 0, 0);
  tp_finish(&p);
  tp_run_ok(&p);
  int8_t *got = tp_read(&p, bo, 0, n * ob);
  for (size_t i = 0; i < n * ob; i++) assert_int_equal(got[i], (int8_t)(uint8_t)(a[i] + 1));
  free(got), free(a);
  tp_close(&p);
}

/* ---------------------------------------------------------------- 3. zynq failures */

static char tmpdir[256];

static void put(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void put_sized(const char *name, size_t bytes, uint32_t config_id) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
  if (bytes >= 0x20) assert_int_equal(pwrite(fd, &config_id, 4, 0x18), 4);
  close(fd);
}

/* Open zynq with a device_path built from tmpdir; expect rc and a message containing `part`. */
static void expect_open(const char *config, const char *spec, int rc, const char *part) {
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load(config, &cfg, &err), err);
  char dp[1024];
  snprintf(dp, sizeof dp, spec, tmpdir, tmpdir, tmpdir);
  ovta_dev_opts o = {0};
  o.device_path = dp;
  ovta_dev *dev = NULL;
  int got = ovta_dev_open("zynq", &cfg, &o, &dev, &err);
  if (got == OVTA_OK) ovta_dev_close(dev);
  if (got != rc) fail_msg("%s: expected %s, got %s: %s", dp, ovta_rc_name(rc), ovta_rc_name(got), err.msg);
  if (!strstr(err.msg, part)) fail_msg("%s: message \"%s\" lacks \"%s\"", dp, err.msg, part);
}

static void test_zynq_errors(void **state) {
  (void)state;
  ovta_test_tmpdir(tmpdir, sizeof tmpdir, "zynq-test");
  char sys[300];
  snprintf(sys, sizeof sys, "%s/sys", tmpdir);
  assert_int_equal(mkdir(sys, 0700), 0);
  /* small: LOG_BATCH 0, LOG_BLOCK 3, bus 64 bits */
  ovta_config small;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load("small", &small, &err), err);
  uint32_t id = (uint32_t)small.log_batch << 24 | (uint32_t)small.log_block << 16 |
                (uint32_t)(small.axi_data_bits / 8) << 8 | 0x0a;
  put_sized("regs", 4096, id);
  put_sized("regs_tiny", 64, id);
  put_sized("regs_zero", 4096, 0);
  put_sized("regs_other", 4096, id + (1u << 16)); /* another LOG_BLOCK */
  put_sized("dma", 1 << 20, 0);
  put("sys/phys_addr", "0x20000000\n");
  put("sys/size", "1048576\n");
  for (const char *a = "sync_offset\0sync_size\0sync_direction\0sync_for_device\0sync_for_cpu\0"; *a; a += strlen(a) + 1) {
    char n[64];
    snprintf(n, sizeof n, "sys/%s", a);
    put(n, "0\n");
  }
  const char *ok = "regs=%s/regs,dma=%s/dma,dma_sysfs=%s/sys";
  /* every file in place: opens, allocates, frees (it never runs: nothing serves the window) */
  {
    char dp[1024];
    snprintf(dp, sizeof dp, ok, tmpdir, tmpdir, tmpdir);
    ovta_dev_opts o = {0};
    o.device_path = dp;
    ovta_dev *dev = NULL;
    OVTA_ASSERT_OK(ovta_dev_open("zynq", &small, &o, &dev, &err), err);
    ovta_buf *b = NULL, *c = NULL, *d = NULL;
    OVTA_ASSERT_OK(ovta_buf_alloc(dev, 1000, &b, &err), err);
    OVTA_ASSERT_OK(ovta_buf_alloc(dev, 3000, &c, &err), err);
    assert_int_equal(b->phys, 0x20000000);
    assert_true(c->phys >= b->phys + 1000);
    ovta_buf_free(b);
    OVTA_ASSERT_OK(ovta_buf_alloc(dev, 500, &d, &err), err); /* first fit: the freed gap */
    assert_int_equal(d->phys, 0x20000000);
    assert_int_equal(ovta_buf_alloc(dev, 2u << 20, &b, &err), OVTA_ENOMEM);
    assert_non_null(strstr(err.msg, "dma"));
    /* a stream outside every buffer */
    assert_int_equal(ovta_dev_run(dev, 0x20080000, 1, 100, &err), OVTA_EINSN);
    ovta_dev_close(dev);
  }
  expect_open("small", "regs=%s/nonexistent,dma=%s/dma,dma_sysfs=%s/sys", OVTA_EIO, "nonexistent");
  expect_open("small", "regs=%s/regs,dma=%s/nodma,dma_sysfs=%s/sys", OVTA_EIO, "nodma");
  expect_open("small", "regs=%s/regs,dma=%s/dma,dma_sysfs=%s/nosys", OVTA_EIO, "nosys/phys_addr");
  expect_open("small", "regs=%s/regs_tiny,dma=%s/dma,dma_sysfs=%s/sys", OVTA_EINVAL, "64 bytes");
  expect_open("small", "regs=%s/regs_zero,dma=%s/dma,dma_sysfs=%s/sys", OVTA_ECONFIG, "CONFIG_ID");
  expect_open("small", "regs=%s/regs_other,dma=%s/dma,dma_sysfs=%s/sys", OVTA_ECONFIG, "another config");
  expect_open("default", ok, OVTA_ECONFIG, "another config");
  expect_open("small", "regs=%s/regs,dma=%s/dma,dma_sysfs=%s/sys,cache=writeback", OVTA_EINVAL, "writeback");
  expect_open("small", "regs=%s/regs,dma=%s/dma,dma_sysfs=%s/sys,speed=3", OVTA_EINVAL, "speed");
  expect_open("small", "regs=/dev/mem,dma=%s/dma,dma_sysfs=%s/sys", OVTA_EINVAL, "reg_base");
  expect_open("small", "regs=%s/regs,dma=/dev/mem,dma_sysfs=%s/sys", OVTA_EINVAL, "dma_phys");
  expect_open("small", "regs=%s/regs,dma=/dev/mem,dma_phys=0x1000,dma_size=lots", OVTA_EINVAL, "lots");
  /* DMA sizes: zero, larger than the file, not a number; a bad address */
  put("sys/size", "0\n");
  expect_open("small", ok, OVTA_EINVAL, "size is 0");
  put("sys/size", "4194304\n");
  expect_open("small", ok, OVTA_EINVAL, "less than");
  put("sys/size", "lots\n");
  expect_open("small", ok, OVTA_EIO, "not a number");
  put("sys/size", "1048576\n");
  put("sys/phys_addr", "0x20000010\n");
  expect_open("small", ok, OVTA_EINVAL, "page-aligned");
  put("sys/phys_addr", "0xfff80000\n");
  put("sys/size", "2097152\n");
  put_sized("dma", 2 << 20, 0);
  expect_open("small", ok, OVTA_ECONFIG, "beyond");
  /* permission: only meaningful when not root (root opens anything) */
  if (geteuid() != 0) {
    char path[512];
    snprintf(path, sizeof path, "%s/regs", tmpdir);
    chmod(path, 0);
    expect_open("small", ok, OVTA_EIO, "Permission denied");
  }
  ovta_test_rm_rf(tmpdir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_zynq_errors),   cmocka_unit_test(test_zynq_on_board),
      cmocka_unit_test(test_gemm),          cmocka_unit_test(test_alu),
      cmocka_unit_test(test_padded),        cmocka_unit_test(test_errors),
      cmocka_unit_test(test_precheck_and_timeout), cmocka_unit_test(test_two_runs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
