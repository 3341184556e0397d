/* backend_tsim.c: the "tsim" backend: the Verilator model of hw/rtl, loaded with dlopen from
 * build/tsim/CONFIG/libovta_tsim.so (hw/sim/tsim.mk; C API in hw/sim/tsim.h), running against
 * the driver's simulated DRAM (driver/simdram.c).
 *
 * Which library: $OVTA_TSIM_LIB (a path) if set, else $OVTA_TSIM_DIR/CONFIG/libovta_tsim.so,
 * else OVTA_SRC_DIR/build/tsim/CONFIG/libovta_tsim.so; with a trace path the "CONFIG-trace"
 * build is used. The model's config (block, batch, bus, SRAM depths) must match the device's.
 * A Chrome trace JSON timeline (one event per instruction and unit) goes to
 * ovta_dev_opts.chrome_trace_path, else to $OVTA_TSIM_CHROME_TRACE when set.
 * Faults (ovta_dev_opts.faults, else $OVTA_TSIM_FAULT): the DRAM model answers with AXI error
 * responses or stalls (hw/sim/README.md, "Faults"); the spec parser is here.
 * After a failed run the model is soft-reset (CTRL bit 1) before the error is returned.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver_impl.h"
#include "tsim.h"

typedef struct tsim_be {
  void *so;                   /* dlopen handle */
  tsim *t;                    /* the model */
  tsim_destroy_fn destroy;    /* entry points */
  tsim_run_fn run;
  tsim_reg_write_fn reg_write;
  ovta_simdram *dram;         /* the device's DRAM */
} tsim_be;

/* ---------------------------------------------------------------- fault specs */

static int parse_num(const char *s, const char **end, uint64_t *v) {
  char *e;
  errno = 0;
  if (*s < '0' || *s > '9') return -1;
  *v = strtoull(s, &e, 0);
  if (errno || e == s) return -1;
  *end = e;
  return 0;
}

/* ITEM := KIND '@' (N | ADDR '+' LEN) ['=' slverr|decerr] [':' CYCLES]
 * KIND := rresp | bresp | stall */
static int parse_item(const char *s, size_t n, struct tsim_fault *f, ovta_error *err) {
  char it[128];
  if (n >= sizeof it) return OVTA_FAIL(err, OVTA_EINVAL, "fault '%.*s...': too long", 40, s);
  memcpy(it, s, n);
  it[n] = 0;
  const char *at = strchr(it, '@'), *p;
  static const struct { const char *name; tsim_fault_kind kind; } kinds[] = {
      {"rresp", TSIM_FAULT_RRESP}, {"bresp", TSIM_FAULT_BRESP}, {"stall", TSIM_FAULT_RSTALL}};
  memset(f, 0, sizeof *f);
  for (size_t k = 0; at && k < sizeof kinds / sizeof kinds[0]; k++)
    if ((size_t)(at - it) == strlen(kinds[k].name) && !strncmp(it, kinds[k].name, (size_t)(at - it)))
      f->kind = kinds[k].kind;
  if (!f->kind)
    return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': expected rresp@N, bresp@N or stall@N:CYCLES (N: the Nth "
                     "burst of a run, or ADDR+LEN: the first burst touching those bytes)", it);
  uint64_t a;
  if (parse_num(at + 1, &p, &a)) return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': expected a number after '@'", it);
  if (*p == '+') {
    f->addr = a;
    if (parse_num(p + 1, &p, &f->len) || !f->len)
      return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': expected a byte count > 0 after '+'", it);
  } else if (a == 0) {
    return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': bursts are counted from 1", it);
  } else {
    f->nth = a;
  }
  if (*p == '=' && f->kind != TSIM_FAULT_RSTALL) {
    if (!strcmp(p + 1, "slverr")) f->resp = 2;
    else if (!strcmp(p + 1, "decerr")) f->resp = 3;
    else return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': the response is slverr or decerr", it);
    p += strlen(p);
  } else if (*p == ':' && f->kind == TSIM_FAULT_RSTALL) {
    if (parse_num(p + 1, &p, &f->stall_cycles) || *p || !f->stall_cycles)
      return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': expected a cycle count > 0 after ':'", it);
  } else if (f->kind == TSIM_FAULT_RSTALL) {
    return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': a stall needs ':CYCLES'", it);
  }
  if (*p) return OVTA_FAIL(err, OVTA_EINVAL, "fault '%s': unexpected '%s'", it, p);
  return OVTA_OK;
}

int ovta_tsim_faults_parse(const char *spec, struct tsim_fault *out, ovta_error *err) {
  memset(out, 0, TSIM_MAX_FAULTS * sizeof *out);
  int n = 0;
  for (const char *s = spec; s && *s;) {
    size_t len = strcspn(s, ",");
    if (n == TSIM_MAX_FAULTS) return OVTA_FAIL(err, OVTA_EINVAL, "faults '%s': at most %d", spec, TSIM_MAX_FAULTS);
    int rc = parse_item(s, len, &out[n++], err);
    if (rc) return rc;
    s += len + (s[len] == ',');
  }
  return OVTA_OK;
}

const char *ovta_tsim_faults_spec(const ovta_dev_opts *opts) {
  if (opts && opts->faults) return opts->faults;
  const char *e = getenv("OVTA_TSIM_FAULT");
  return e && *e ? e : NULL;
}

static int dram_inside(void *ctx, uint64_t phys, uint64_t len) {
  return ovta_simdram_inside((ovta_simdram *)ctx, phys, len);
}
static void *dram_host(void *ctx, uint64_t phys, uint64_t len) {
  return ovta_simdram_host((ovta_simdram *)ctx, phys, len);
}

static int tsim_open(ovta_dev *dev, const ovta_dev_opts *opts, ovta_error *err) {
  const ovta_config *c = &dev->cfg;
  bool trace = opts->trace_path != NULL;
  char path[1024];
  const char *lib = getenv("OVTA_TSIM_LIB"), *dir = getenv("OVTA_TSIM_DIR");
  if (lib && *lib) snprintf(path, sizeof path, "%s", lib);
  else if (dir && *dir) snprintf(path, sizeof path, "%s/%s%s/libovta_tsim.so", dir, c->name, trace ? "-trace" : "");
  else snprintf(path, sizeof path, "%s/build/tsim/%s%s/libovta_tsim.so", OVTA_SRC_DIR, c->name, trace ? "-trace" : "");
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tsim: cannot load the model of config '%s' (%s); build it with "
                     "`make tsim-%s%s`", c->name, dlerror(), c->name, trace ? "-trace" : "");
  tsim_get_info_fn info = (tsim_get_info_fn)dlsym(so, "tsim_get_info");
  tsim_create_fn create = (tsim_create_fn)dlsym(so, "tsim_create");
  tsim_destroy_fn destroy = (tsim_destroy_fn)dlsym(so, "tsim_destroy");
  tsim_run_fn run = (tsim_run_fn)dlsym(so, "tsim_run");
  tsim_reg_write_fn reg_write = (tsim_reg_write_fn)dlsym(so, "tsim_reg_write");
  if (!info || !create || !destroy || !run || !reg_write) {
    dlclose(so);
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tsim: %s lacks the tsim_* entry points", path);
  }
  tsim_info in;
  info(&in);
  if (in.api_version != TSIM_API_VERSION || in.log_batch != c->log_batch || in.log_block != c->log_block ||
      in.axi_data_bits != c->axi_data_bits || in.uop_depth != c->uop_depth || in.inp_depth != c->inp_depth ||
      in.wgt_depth != c->wgt_depth || in.acc_depth != c->acc_depth) {
    /* in.config points into the library: format the message before closing it */
    OVTA_FAIL(err, OVTA_ECONFIG, "tsim: %s was built for config '%s' (API %d, want %d), which does not match "
              "config '%s' (rebuild: `make tsim-%s`)", path, in.config ? in.config : "?", in.api_version,
              TSIM_API_VERSION, c->name, c->name);
    dlclose(so);
    return OVTA_ECONFIG;
  }
  tsim_be *b = calloc(1, sizeof *b);
  if (!b) {
    dlclose(so);
    return OVTA_FAIL(err, OVTA_ENOMEM, "tsim: out of host memory");
  }
  tsim_dram d = {dev->dram, dram_inside, dram_host};
  tsim_opts o = {0};
  int frc = ovta_tsim_faults_parse(ovta_tsim_faults_spec(opts), o.faults, err);
  if (frc) {
    free(b);
    dlclose(so);
    return frc;
  }
  o.read_latency = opts->dram_latency;
  o.write_latency = opts->dram_write_latency;
  o.beats_per_cycle_x16 = opts->dram_beats_x16;
  o.watchdog_cycles = opts->watchdog_cycles;
  o.fst_path = opts->trace_path;
  /* Chrome trace: the option, else $OVTA_TSIM_CHROME_TRACE (for tools without the option) */
  const char *ct = getenv("OVTA_TSIM_CHROME_TRACE");
  o.chrome_trace_path = opts->chrome_trace_path ? opts->chrome_trace_path : (ct && *ct ? ct : NULL);
  char msg[512] = "";
  b->t = create(&d, &o, msg, sizeof msg);
  if (!b->t) {
    free(b);
    dlclose(so);
    return OVTA_FAIL(err, OVTA_EINTERNAL, "tsim: %s", msg);
  }
  b->so = so;
  b->destroy = destroy;
  b->run = run;
  b->reg_write = reg_write;
  b->dram = dev->dram;
  dev->impl = b;
  return OVTA_OK;
}

static void tsim_close(ovta_dev *dev) {
  tsim_be *b = dev->impl;
  if (!b) return;
  b->destroy(b->t);
  dlclose(b->so);
  free(b);
  dev->impl = NULL;
}

static int tsim_be_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms,
                       ovta_error *err) {
  tsim_be *b = dev->impl;
  tsim_result r;
  tsim_status st = b->run(b->t, insn_phys, insn_count, 0, timeout_ms, &r);
  ovta_counters *k = &dev->counters;
  memset(k, 0, sizeof *k);
  k->insns_load = r.counters[TSIM_CNT_INSNS_LOAD];
  k->insns_compute = r.counters[TSIM_CNT_INSNS_COMPUTE];
  k->insns_store = r.counters[TSIM_CNT_INSNS_STORE];
  k->bytes_read[OVTA_MEM_UOP] = r.counters[TSIM_CNT_BYTES_UOP];
  k->bytes_read[OVTA_MEM_WGT] = r.counters[TSIM_CNT_BYTES_WGT];
  k->bytes_read[OVTA_MEM_INP] = r.counters[TSIM_CNT_BYTES_INP];
  k->bytes_read[OVTA_MEM_ACC] = r.counters[TSIM_CNT_BYTES_ACC];
  k->bytes_written = r.counters[TSIM_CNT_BYTES_OUT];
  k->gemm_uops = r.counters[TSIM_CNT_GEMM_UOPS];
  k->alu_uops = r.counters[TSIM_CNT_ALU_UOPS];
  k->cycles = r.counters[TSIM_CNT_CYCLES];
  k->busy_load = r.counters[TSIM_CNT_BUSY_LOAD];
  k->busy_compute = r.counters[TSIM_CNT_BUSY_COMPUTE];
  k->busy_store = r.counters[TSIM_CNT_BUSY_STORE];
  k->stall_load = r.counters[TSIM_CNT_STALL_LOAD];
  k->stall_compute = r.counters[TSIM_CNT_STALL_COMPUTE];
  k->stall_store = r.counters[TSIM_CNT_STALL_STORE];
  if (st == TSIM_OK) return OVTA_OK;
  /* soft reset: the units stop, the DRAM model drops what it holds; the next run is clean */
  b->reg_write(b->t, 0x00, 2);
  switch (st) {
  case TSIM_EBUS: return OVTA_FAIL(err, OVTA_EIO, "tsim: %s; device reset", r.msg);
  case TSIM_ETIMEOUT: return OVTA_FAIL(err, OVTA_ETIMEOUT, "tsim: %s; device reset", r.msg);
  case TSIM_EINSN:
  case TSIM_ENOFINISH:
  case TSIM_EDRAM: return OVTA_FAIL(err, OVTA_EINSN, "tsim: %s", r.msg);
  case TSIM_EDEADLOCK: return OVTA_FAIL(err, OVTA_EDEADLOCK, "tsim: %s", r.msg);
  default: return OVTA_FAIL(err, OVTA_EINVAL, "tsim: %s", r.msg);
  }
}

const ovta_backend ovta_backend_tsim = {
    .name = "tsim",
    .open = tsim_open,
    .close = tsim_close,
    .run = tsim_be_run,
};
