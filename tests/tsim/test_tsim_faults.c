/* Fault tests (hw/sim/README.md, "Faults"): the tsim DRAM model answers one burst with an AXI
 * error response (RRESP/BRESP SLVERR or DECERR) or holds a read burst back; the RTL ends the run
 * with STATUS outcome BUS, the driver returns OVTA_EIO naming the unit and the instruction index
 * and soft-resets the device; a stall beyond the driver's limit ends in OVTA_ETIMEOUT with the
 * units' and the bus's state. After each failure, the next run on the same device (same process)
 * must give the bytes fsim gives for the same program.
 *
 * Each fault kind is aimed at one unit through the burst it hits: the first read burst is
 * fetch's, the reads of a buffer's bytes belong to the LOAD that reads it (load or compute), the
 * first write burst is the first STORE's, and so on; the expected instruction index is the one
 * the program put there. Backends: tsim, and the virtual board ("vboard": the same model behind
 * the zynq backend's register protocol) when compiled in. Configs: small (64-bit bus) and wide
 * (512-bit bus: 4 instructions per beat). */
#include "ovta_test.h"
#include "fsim/against.h"

/* The program's instruction indices (see build). */
enum { I_UOP = 0, I_WGT = 1, I_INP = 2, I_STORE0 = 5, I_STORE2 = 9, N_INSN = 13 };
enum { NI = 4, NW = 4, NO = 4 };

typedef struct prog_bufs {
  ovta_buf *x, *w, *u, *out; /* INP, WGT, micro-ops, OUT */
} prog_bufs;

/* LOAD UOP; LOAD WGT; LOAD INP (push L2C); GEMM reset of acc 0..3 (the SRAMs keep what an
 * earlier run left); GEMM (pop L2C, push C2S); then four STOREs of the accumulators shifted by
 * 0, 8, 16, 24 (tp_store_words: STORE, ALU, STORE, ..., FINISH). */
static void build(tprog *p, prog_bufs *b) {
  const ovta_config *c = p->cfg;
  uint64_t seed = 41;
  tp_bufs bs = {0};
  b->x = tp_rand_buf(p, &bs, NI * c->inp_bytes, &seed);
  b->w = tp_rand_buf(p, &bs, NW * c->wgt_bytes, &seed);
  ovta_uop u[4];
  memset(u, 0, sizeof u);
  for (int k = 1; k < 4; k++) u[k].dst_idx = (uint32_t)(k - 1), u[k].src_idx = (uint32_t)k, u[k].wgt_idx = (uint32_t)k;
  b->u = tp_uops(p, u, 4);
  b->out = tp_buf(p, 4 * NO * c->out_bytes);
  tp_reset(p);
  tp_load(p, OVTA_MEM_UOP, 0, tp_elem(p, b->u, OVTA_MEM_UOP, 0), 1, 4, 4);
  tp_load(p, OVTA_MEM_WGT, 0, tp_elem(p, b->w, OVTA_MEM_WGT, 0), 1, NW, NW);
  tp_deps(tp_load(p, OVTA_MEM_INP, 0, tp_elem(p, b->x, OVTA_MEM_INP, 0), 1, NI, NI), 0, 0, 0, 1);
  tp_gemm(p, 1, 0, 1, NO, 1, 1, 0, 0, 0, 0, 0);
  tp_deps(tp_gemm(p, 0, 1, 4, 1, 1, 0, 0, 0, 0, 0, 0), 1, 0, 0, 1);
  tp_store_words(p, b->out, NO, 0);
  assert_int_equal(p->n, N_INSN);
}

/* The OUT bytes fsim gives for the program (the reference). */
static uint8_t *reference(const char *config, size_t *n) {
  tprog p;
  prog_bufs b;
  tp_open(&p, "fsim", config, 0);
  build(&p, &b);
  tp_run_ok(&p);
  *n = b.out->size;
  uint8_t *r = tp_read(&p, b.out, 0, *n);
  tp_close(&p);
  return r;
}

/* A fault aimed at one instruction. The spec's %s is replaced by the hit buffer's byte range. */
typedef struct fault_case {
  const char *spec;  /* fault spec, with "%s" for "0xADDR+LEN" of `which` */
  int which;         /* 0 none, 1 INP, 2 uops, 3 the third STORE's bytes */
  long index;        /* the instruction the error must name (-1: by bus width, fetch) */
  const char *text;  /* what the message must say */
} fault_case;

static const fault_case cases[] = {
    {"rresp@1", 0, -1, ", fetch): AXI read error response SLVERR"},
    {"rresp@%s", 1, I_INP, "(LOAD, load): AXI read error response SLVERR"},
    {"rresp@%s=decerr", 2, I_UOP, "(LOAD, compute): AXI read error response DECERR"},
    {"bresp@1", 0, I_STORE0, "(STORE, store): AXI write error response SLVERR"},
    {"bresp@%s=decerr", 3, I_STORE2, "(STORE, store): AXI write error response DECERR"},
};

static void spec_for(const fault_case *fc, tprog *p, const prog_bufs *b, char *out, size_t cap) {
  char range[64] = "";
  if (fc->which == 1) snprintf(range, sizeof range, "0x%llx+1", (unsigned long long)b->x->phys);
  if (fc->which == 2) snprintf(range, sizeof range, "0x%llx+1", (unsigned long long)b->u->phys);
  if (fc->which == 3)
    snprintf(range, sizeof range, "0x%llx+1", (unsigned long long)(b->out->phys + 2ull * NO * p->cfg->out_bytes));
  snprintf(out, cap, fc->spec, range);
}

/* Run the program twice on one device with the fault: the first run fails as the case says,
 * the second gives the reference bytes. */
static void check_case(const char *backend, const char *config, const fault_case *fc, const uint8_t *ref,
                       size_t ref_n) {
  /* the buffers' addresses are the same on every fresh device: find them on a first one */
  tprog p;
  prog_bufs b;
  tp_open(&p, backend, config, 0);
  build(&p, &b);
  char spec[128];
  spec_for(fc, &p, &b, spec, sizeof spec);
  tp_close(&p);

  ovta_dev_opts o;
  memset(&o, 0, sizeof o);
  o.faults = spec;
  tp_open_opts(&p, backend, config, &o);
  build(&p, &b);
  int rc = tp_run(&p, 60000);
  if (rc != OVTA_EIO)
    fail_msg("%s/%s fault %s: want an io error, got %s: %s", backend, config, spec, ovta_rc_name(rc), p.err.msg);
  /* fetch: the instruction the failing beat carries; a 64/128-bit beat carries part of one
   * instruction (the first burst's first beat: instruction 0), a wider beat several, and the
   * error is taken with the beat's last one */
  long want = fc->index >= 0 ? fc->index : (p.cfg->axi_data_bits <= 128 ? 0 : p.cfg->axi_data_bits / 128 - 1);
  if (tp_insn_index(p.err.msg) != want || !strstr(p.err.msg, fc->text) || !strstr(p.err.msg, "device reset"))
    fail_msg("%s/%s fault %s: want instruction %ld \"%s\", got: %s", backend, config, spec, want, fc->text,
             p.err.msg);
  /* the next run on the same device is clean */
  tp_run_ok(&p);
  uint8_t *got = tp_read(&p, b.out, 0, ref_n);
  for (size_t i = 0; i < ref_n; i++)
    if (got[i] != ref[i])
      fail_msg("%s/%s after fault %s: OUT byte %zu: fsim %02x, %s %02x", backend, config, spec, i, ref[i], backend,
               got[i]);
  free(got);
  tp_close(&p);
}

static bool have_backend(const char *name) {
  for (const char *const *n = ovta_backend_names(); *n; n++)
    if (!strcmp(*n, name)) return true;
  return false;
}

static void test_error_responses(void **state) {
  (void)state;
  static const char *const configs[] = {"small", "wide"};
  static const char *const backends[] = {"tsim", "vboard"};
  for (size_t c = 0; c < 2; c++) {
    size_t n;
    uint8_t *ref = reference(configs[c], &n);
    for (size_t be = 0; be < 2; be++) {
      if (!have_backend(backends[be])) continue;
      for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) check_case(backends[be], configs[c], &cases[k], ref, n);
    }
    free(ref);
  }
}

/* A read burst held back far beyond the limits: the wall-time limit (timeout_ms) and tsim's
 * watchdog both end the run with the state of every unit and of the bus (tsim: its DRAM model's
 * view; vboard: the zynq driver reads the AXI register); then a clean run on the same device. */
static void test_stall(void **state) {
  (void)state;
  size_t n;
  uint8_t *ref = reference("small", &n);
  for (int k = 0; k < 3; k++) {
    const char *backend = k < 2 ? "tsim" : "vboard";
    bool watchdog = k == 1;
    if (!have_backend(backend)) continue;
    ovta_dev_opts o;
    memset(&o, 0, sizeof o);
    o.faults = "stall@2:100000000";
    if (watchdog) o.watchdog_cycles = 20000;
    tprog p;
    prog_bufs b;
    tp_open_opts(&p, backend, "small", &o);
    build(&p, &b);
    int rc = tp_run(&p, watchdog ? 0 : 300);
    if (rc != OVTA_ETIMEOUT) fail_msg("%s stall: want a timeout, got %s: %s", backend, ovta_rc_name(rc), p.err.msg);
    const char *must[] = {watchdog ? "watchdog: no progress" : "timeout (wall-time limit", "retired",
                          "executing instruction", k < 2 ? "held back by the DRAM" : "read bursts in flight",
                          "device reset"};
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
      if (!strstr(p.err.msg, must[i])) fail_msg("%s stall: no \"%s\" in: %s", backend, must[i], p.err.msg);
    tp_run_ok(&p);
    uint8_t *got = tp_read(&p, b.out, 0, n);
    assert_memory_equal(got, ref, n);
    free(got);
    tp_close(&p);
  }
  free(ref);
}

/* Bad specs are refused at open with a message naming them. */
static void test_bad_specs(void **state) {
  (void)state;
  static const char *const bad[] = {"rresp", "rresp@0", "rresp@x", "stall@1", "bresp@1=oops", "flip@1",
                                    "rresp@1,rresp@2,rresp@3,rresp@4,rresp@5", "rresp@0x100+0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ovta_config cfg;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_config_load("small", &cfg, &err), err);
    ovta_dev_opts o;
    memset(&o, 0, sizeof o);
    o.faults = bad[i];
    ovta_dev *dev = NULL;
    int rc = ovta_dev_open("tsim", &cfg, &o, &dev, &err);
    if (rc != OVTA_EINVAL || !strstr(err.msg, "fault")) fail_msg("spec '%s': rc %d: %s", bad[i], rc, err.msg);
    assert_null(dev);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_error_responses),
      cmocka_unit_test(test_stall),
      cmocka_unit_test(test_bad_specs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
