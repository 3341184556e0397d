/* driver.c: the backend table, devices, runs, counters and DMA buffers (ovta_driver.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "driver_impl.h"

/* ---------------------------------------------------------------- Backend table */

/* Every backend the driver knows; one line each. fsim is always built; the others exist when
 * their file does: driver/driver.mk defines OVTA_BACKEND_NAME for each driver/backend_NAME.c. */
static const ovta_backend *const *backend_table(void) {
  static const ovta_backend *table[] = {
      &ovta_backend_fsim, /* driver/backend_fsim.c: functional simulator (hw/sim/fsim.c) */
#ifdef OVTA_BACKEND_TSIM
      &ovta_backend_tsim, /* driver/backend_tsim.c: Verilator model of hw/rtl */
#endif
#ifdef OVTA_BACKEND_ZYNQ
      &ovta_backend_zynq, /* driver/backend_zynq.c: Zynq boards through UIO */
#endif
#ifdef OVTA_BACKEND_XRT
      &ovta_backend_xrt, /* driver/backend_xrt.c: Alveo boards through XRT */
#endif
#ifdef OVTA_BACKEND_VBOARD
      &ovta_backend_vboard, /* driver/backend_vboard.c: a virtual board (register window file) */
#endif
      NULL,
  };
  return table;
}
#define BACKEND_TABLE_MAX 8

const ovta_backend *ovta_backend_find(const char *name) {
  for (const ovta_backend *const *t = backend_table(); *t; t++)
    if ((*t)->name && name && strcmp((*t)->name, name) == 0) return *t;
  return NULL;
}

const char *const *ovta_backend_names(void) {
  static const char *names[BACKEND_TABLE_MAX + 1];
  int n = 0;
  for (const ovta_backend *const *t = backend_table(); *t && n < BACKEND_TABLE_MAX; t++)
    if ((*t)->name) names[n++] = (*t)->name;
  names[n] = NULL;
  return names;
}

uint64_t ovta_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---------------------------------------------------------------- Devices */

static size_t pow2_at_least(size_t v) {
  size_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

int ovta_dev_open(const char *backend, const ovta_config *cfg, const ovta_dev_opts *opts, ovta_dev **out,
                  ovta_error *err) {
  if (!out) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_dev_open: out is NULL");
  *out = NULL;
  if (!backend || !cfg) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_dev_open: backend or config is NULL");
  const ovta_backend *be = ovta_backend_find(backend);
  if (!be) {
    char list[256] = "";
    for (const char *const *n = ovta_backend_names(); *n; n++) {
      if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, *n, sizeof list - strlen(list) - 1);
    }
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "unknown backend '%s' (compiled in: %s)", backend, list);
  }
  if (opts && opts->faults && *opts->faults && strcmp(be->name, "tsim") && strcmp(be->name, "vboard"))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "faults '%s': only the tsim model's DRAM injects faults (backends tsim, "
                     "vboard; fsim has no memory bus), not backend %s", opts->faults, be->name);
  if (opts && opts->work_budget && strcmp(be->name, "fsim"))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "work budget %llu: only fsim counts work (tsim: watchdog_cycles), not "
                     "backend %s", (unsigned long long)opts->work_budget, be->name);
  if (opts && opts->dram_beats_x16 > 16)
    return OVTA_FAIL(err, OVTA_EINVAL, "DRAM bandwidth %u/16 beats per cycle: at most one beat per cycle (16)",
                     opts->dram_beats_x16);
  if (opts && (opts->dram_latency > 1000000 || opts->dram_write_latency > 1000000))
    return OVTA_FAIL(err, OVTA_EINVAL, "DRAM latency %u/%u cycles: at most 1000000", opts->dram_latency,
                     opts->dram_write_latency);
  ovta_dev *dev = calloc(1, sizeof *dev);
  if (!dev) return OVTA_FAIL(err, OVTA_ENOMEM, "ovta_dev_open: out of host memory");
  dev->backend = be;
  dev->cfg = *cfg;
  if (opts) dev->opts = *opts;
  int rc = ovta_isa_init(&dev->isa, cfg, err);
  if (rc) {
    free(dev);
    return rc;
  }
  size_t maxe = 64;
  for (uint32_t mt = 0; mt < OVTA_MEM_COUNT; mt++) {
    size_t eb = (size_t)ovta_elem_bytes(cfg, mt);
    if (eb > maxe) maxe = eb;
  }
  dev->buf_align = pow2_at_least(maxe);
  if (!be->buf_alloc) {
    uint64_t bytes = dev->opts.dram_bytes ? dev->opts.dram_bytes : OVTA_SIMDRAM_DEFAULT_BYTES;
    if (cfg->axi_addr_bits < 64 && OVTA_SIMDRAM_BASE + bytes > (1ull << cfg->axi_addr_bits)) {
      free(dev);
      return OVTA_FAIL(err, OVTA_EINVAL,
                       "ovta_dev_open: simulated DRAM of %llu bytes at 0x%llx does not fit %d address bits",
                       (unsigned long long)bytes, (unsigned long long)OVTA_SIMDRAM_BASE, cfg->axi_addr_bits);
    }
    rc = ovta_simdram_open(OVTA_SIMDRAM_BASE, dev->opts.dram_bytes, dev->buf_align, &dev->dram, err);
    if (rc) {
      free(dev);
      return rc;
    }
  }
  rc = be->open ? be->open(dev, &dev->opts, err) : OVTA_OK;
  if (rc) {
    ovta_error_wrap(err, "opening backend %s", be->name);
    ovta_simdram_close(dev->dram);
    free(dev);
    return rc;
  }
  *out = dev;
  return OVTA_OK;
}

void ovta_dev_close(ovta_dev *dev) {
  if (!dev) return;
  while (dev->n_bufs) ovta_buf_free(dev->bufs[dev->n_bufs - 1]);
  if (dev->backend->close) dev->backend->close(dev);
  ovta_simdram_close(dev->dram);
  free(dev->bufs);
  free(dev);
}

const ovta_config *ovta_dev_config(const ovta_dev *dev) { return dev ? &dev->cfg : NULL; }
const ovta_isa *ovta_dev_isa(const ovta_dev *dev) { return dev ? &dev->isa : NULL; }
const char *ovta_dev_backend(const ovta_dev *dev) { return dev ? dev->backend->name : NULL; }

int ovta_dev_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms, ovta_error *err) {
  if (!dev) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_dev_run: device is NULL");
  memset(&dev->counters, 0, sizeof dev->counters);
  if (insn_count == 0) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_dev_run: insn_count is 0");
  uint64_t bytes = (uint64_t)insn_count * 16u;
  if (insn_phys + bytes < insn_phys)
    return OVTA_FAIL(err, OVTA_EINVAL, "ovta_dev_run: instruction stream at 0x%llx wraps the address space",
                     (unsigned long long)insn_phys);
  /* isa/ISA.md, dynamic rules: the instruction stream itself must lie inside an allocated buffer */
  if (dev->dram && !ovta_simdram_inside(dev->dram, insn_phys, bytes))
    return OVTA_FAIL(err, OVTA_EINSN,
                     "instruction stream [0x%llx, 0x%llx) of %u instructions is not inside one allocated buffer",
                     (unsigned long long)insn_phys, (unsigned long long)(insn_phys + bytes), insn_count);
  if (!dev->backend->run) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "backend %s cannot run", dev->backend->name);
  return dev->backend->run(dev, insn_phys, insn_count, timeout_ms, err);
}

void ovta_dev_counters(const ovta_dev *dev, ovta_counters *out) {
  if (!out) return;
  if (!dev) memset(out, 0, sizeof *out);
  else *out = dev->counters;
}

char *ovta_counters_to_json(const ovta_counters *c) {
  if (!c) return NULL;
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  bool ok = true;
#define NUM(obj, key, v) ok = ok && cJSON_AddNumberToObject((obj), (key), (double)(v)) != NULL
  NUM(o, "insns_load", c->insns_load);
  NUM(o, "insns_compute", c->insns_compute);
  NUM(o, "insns_store", c->insns_store);
  cJSON *br = cJSON_AddObjectToObject(o, "bytes_read");
  ok = ok && br;
  if (br)
    for (int mt = 0; mt < OVTA_MEM_COUNT; mt++)
      if (mt != OVTA_MEM_OUT) NUM(br, ovta_mem_type_names[mt], c->bytes_read[mt]);
  NUM(o, "bytes_written", c->bytes_written);
  NUM(o, "gemm_uops", c->gemm_uops);
  NUM(o, "alu_uops", c->alu_uops);
  NUM(o, "cycles", c->cycles);
  NUM(o, "busy_load", c->busy_load);
  NUM(o, "busy_compute", c->busy_compute);
  NUM(o, "busy_store", c->busy_store);
  NUM(o, "stall_load", c->stall_load);
  NUM(o, "stall_compute", c->stall_compute);
  NUM(o, "stall_store", c->stall_store);
#undef NUM
  char *s = ok ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(o);
  return s;
}

/* ---------------------------------------------------------------- Buffers */

int ovta_buf_alloc(ovta_dev *dev, size_t size, ovta_buf **out, ovta_error *err) {
  if (!out) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_buf_alloc: out is NULL");
  *out = NULL;
  if (!dev) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_buf_alloc: device is NULL");
  if (size == 0) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_buf_alloc: size is 0");
  if (dev->n_bufs == dev->cap_bufs) {
    size_t cap = dev->cap_bufs ? 2 * dev->cap_bufs : 16;
    ovta_buf **nb = realloc(dev->bufs, cap * sizeof *nb);
    if (!nb) return OVTA_FAIL(err, OVTA_ENOMEM, "ovta_buf_alloc: out of host memory");
    dev->bufs = nb;
    dev->cap_bufs = cap;
  }
  ovta_buf *b = calloc(1, sizeof *b);
  if (!b) return OVTA_FAIL(err, OVTA_ENOMEM, "ovta_buf_alloc: out of host memory");
  b->dev = dev;
  b->size = size;
  int rc;
  if (dev->backend->buf_alloc) {
    rc = dev->backend->buf_alloc(dev, size, b, err);
  } else {
    rc = ovta_simdram_alloc(dev->dram, size, b, &b->phys, err);
    if (rc == OVTA_OK) b->host = ovta_simdram_host(dev->dram, b->phys, size);
  }
  if (rc) {
    free(b);
    return rc;
  }
  dev->bufs[dev->n_bufs++] = b;
  *out = b;
  return OVTA_OK;
}

void ovta_buf_free(ovta_buf *buf) {
  if (!buf) return;
  ovta_dev *dev = buf->dev;
  for (size_t i = 0; i < dev->n_bufs; i++)
    if (dev->bufs[i] == buf) {
      dev->bufs[i] = dev->bufs[--dev->n_bufs];
      break;
    }
  if (dev->backend->buf_free) dev->backend->buf_free(dev, buf);
  else ovta_simdram_free(dev->dram, buf->phys);
  free(buf);
}

static int range_ok(const ovta_buf *buf, size_t off, size_t n, const char *what, ovta_error *err) {
  if (!buf) return OVTA_FAIL(err, OVTA_EINVAL, "%s: buffer is NULL", what);
  if (off > buf->size || n > buf->size - off)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: range [%zu, +%zu) is outside the buffer of %zu bytes at 0x%llx", what,
                     off, n, buf->size, (unsigned long long)buf->phys);
  return OVTA_OK;
}

int ovta_buf_flush(ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  int rc = range_ok(buf, off, n, "ovta_buf_flush", err);
  if (rc) return rc;
  return buf->dev->backend->buf_flush ? buf->dev->backend->buf_flush(buf->dev, buf, off, n, err) : OVTA_OK;
}

int ovta_buf_invalidate(ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  int rc = range_ok(buf, off, n, "ovta_buf_invalidate", err);
  if (rc) return rc;
  return buf->dev->backend->buf_invalidate ? buf->dev->backend->buf_invalidate(buf->dev, buf, off, n, err)
                                           : OVTA_OK;
}

int ovta_buf_write(ovta_buf *buf, size_t off, const void *src, size_t n, ovta_error *err) {
  int rc = range_ok(buf, off, n, "ovta_buf_write", err);
  if (rc) return rc;
  if (n && !src) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_buf_write: source is NULL");
  if (n) memcpy((uint8_t *)buf->host + off, src, n);
  return ovta_buf_flush(buf, off, n, err);
}

int ovta_buf_read(ovta_buf *buf, size_t off, void *dst, size_t n, ovta_error *err) {
  int rc = range_ok(buf, off, n, "ovta_buf_read", err);
  if (rc) return rc;
  if (n && !dst) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_buf_read: destination is NULL");
  rc = ovta_buf_invalidate(buf, off, n, err);
  if (rc) return rc;
  if (n) memcpy(dst, (const uint8_t *)buf->host + off, n);
  return OVTA_OK;
}

ovta_buf *ovta_buf_find(ovta_dev *dev, uint64_t phys) {
  if (!dev) return NULL;
  if (dev->dram) return ovta_simdram_find(dev->dram, phys);
  for (size_t i = 0; i < dev->n_bufs; i++) {
    ovta_buf *b = dev->bufs[i];
    if (phys >= b->phys && phys - b->phys < b->size) return b;
  }
  return NULL;
}
