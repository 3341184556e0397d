/* backend_zynq.c: the "zynq" backend: the accelerator on a Zynq-7000 / Zynq UltraScale+ board,
 * driven from user space.
 *
 *   registers  the AXI4-Lite window of ovta_top (hw/rtl/README.md, "Register map"), mmap'd from
 *              a UIO device (/dev/uioN, map 0) or from /dev/mem at the board's register base
 *              (boards/NAME/board.json "reg_base"); a regular file works too (the virtual board,
 *              driver/backend_vboard.c).
 *   DMA memory one physically contiguous region from u-dma-buf (/dev/udmabufN, with its sysfs
 *              directory giving phys_addr and size), or a reserved region through /dev/mem
 *              (dma=/dev/mem,dma_phys=ADDR,dma_size=BYTES; mapped uncached); buffers are
 *              carved out of it first-fit.
 *   caches     "sync": cached mapping, u-dma-buf's sync_for_device / sync_for_cpu sysfs calls
 *              around device access (the default); "uncached": the region opened with O_SYNC
 *              (no sync calls); "coherent": an I/O-coherent port (HPC/ACP), barriers only.
 *
 * Where things are (first match wins):
 *   ovta_dev_opts.device_path  either a register device path ("/dev/uio1") or a comma-separated
 *                              list of key=value: regs=PATH, reg_base=ADDR, dma=PATH,
 *                              dma_sysfs=DIR, dma_phys=ADDR, dma_size=BYTES,
 *                              cache=sync|uncached|coherent
 *   environment                OVTA_ZYNQ_REGS, OVTA_ZYNQ_REG_BASE, OVTA_ZYNQ_DMA,
 *                              OVTA_ZYNQ_DMA_SYSFS, OVTA_ZYNQ_CACHE
 *   defaults                   /dev/uio0, /dev/udmabuf0, /sys/class/u-dma-buf/<dma name>, sync
 *
 * A run: soft reset (CTRL = 2, wait until CTRL reads 0), INSN_ADDR, INSN_COUNT, CTRL = 1, poll
 * CTRL for done (spinning briefly, then sleeping), read STATUS / ERR_INDEX / counters. On the
 * wall-time limit the unit states are reported; after any failed run (an invalid instruction, an
 * AXI error response, a deadlock, the wall-time limit) the device is soft-reset before the error
 * is returned, so it stops and the next run starts clean. Before starting, the
 * stream's LOAD/STORE rows are checked against the allocated buffers: the hardware itself would
 * read or write any physical address.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver_impl.h"
#include "ovta_board.h"

/* ---------------------------------------------------------------- registers (hw/rtl/README.md) */

enum {
  R_CTRL = 0x00, R_STATUS = 0x04, R_ERR_INDEX = 0x08, R_INSN_ADDR = 0x0C, R_INSN_COUNT = 0x14,
  R_CONFIG_ID = 0x18, R_FINISHES = 0x1C, R_CNT = 0x20, R_RETIRED = 0xC0, R_DBG_LOAD = 0xC4,
  R_TOKENS = 0xDC, R_CMDQ = 0xE0, R_FETCH = 0xE4, R_ERR_VALUE = 0xE8, R_AXI = 0xEC,
  R_WINDOW = 0x100, /* bytes of registers the backend touches */
};
enum { CNT_CYCLES, CNT_INSNS_LOAD, CNT_INSNS_COMPUTE, CNT_INSNS_STORE, CNT_BYTES_UOP, CNT_BYTES_WGT,
       CNT_BYTES_INP, CNT_BYTES_ACC, CNT_BYTES_OUT, CNT_GEMM_UOPS, CNT_ALU_UOPS, CNT_BUSY_LOAD,
       CNT_BUSY_COMPUTE, CNT_BUSY_STORE, CNT_STALL_LOAD, CNT_STALL_COMPUTE, CNT_STALL_STORE };

enum { CACHE_SYNC, CACHE_UNCACHED, CACHE_COHERENT };
static const char *const cache_names[] = {"sync", "uncached", "coherent"};

/* sysfs attributes of u-dma-buf used for cache maintenance */
enum { SY_OFFSET, SY_SIZE, SY_DIRECTION, SY_FOR_DEVICE, SY_FOR_CPU, SY_COUNT };
static const char *const sync_attr[SY_COUNT] = {"sync_offset", "sync_size", "sync_direction",
                                                "sync_for_device", "sync_for_cpu"};

typedef struct zalloc {
  uint64_t off, size; /* offset in the DMA region, bytes */
} zalloc;

typedef struct zynq {
  char regs_path[512], dma_path[512], sysfs_path[600];
  uint64_t reg_base;          /* /dev/mem only */
  uint64_t dma_phys_opt, dma_size_opt; /* dma=/dev/mem: a reserved (CMA / reserved-memory) region */
  int cache;                  /* CACHE_* */
  int reg_fd, dma_fd;
  void *reg_map;              /* the mapping (page aligned) */
  size_t reg_map_len;
  volatile uint32_t *regs;    /* register 0 */
  uint8_t *dma;               /* host view of the DMA region */
  uint64_t dma_phys;          /* its physical address */
  size_t dma_size;            /* its size */
  int sync_fd[SY_COUNT];      /* sysfs attributes (CACHE_SYNC) */
  zalloc *allocs;             /* live allocations sorted by offset */
  size_t n_allocs, cap_allocs;
} zynq;

static uint32_t mmio_rd(void *ctx, uint32_t off) {
  zynq *z = ctx;
  uint32_t v = z->regs[off / 4];
  __sync_synchronize();
  return v;
}
static void mmio_wr(void *ctx, uint32_t off, uint32_t v) {
  zynq *z = ctx;
  __sync_synchronize();
  z->regs[off / 4] = v;
  __sync_synchronize();
}

/* The rest of the register protocol is shared with the xrt backend (ovta_board.h): `z` there
 * is the register access of either. */
#define rd(io, off) ((io)->rd((io)->ctx, (off)))
#define wr(io, off, v) ((io)->wr((io)->ctx, (off), (v)))
static uint64_t rd64(const ovta_board_io *z, uint32_t off) {
  uint32_t hi = rd(z, off + 4), lo = rd(z, off), hi2 = rd(z, off + 4);
  if (hi2 != hi) lo = rd(z, off); /* carried between the reads */
  return (uint64_t)hi2 << 32 | lo;
}

/* ---------------------------------------------------------------- options */

static void copy_str(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = 0;
}

static int parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s) return -1;
  while (*end == ' ' || *end == '\n' || *end == '\t') end++;
  if (*end) return -1;
  *out = v;
  return 0;
}

static int set_cache(zynq *z, const char *v, const char *where, ovta_error *err) {
  for (int i = 0; i < 3; i++)
    if (strcmp(v, cache_names[i]) == 0) {
      z->cache = i;
      return OVTA_OK;
    }
  return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s: cache mode '%s' is not sync, uncached or coherent", where, v);
}

static int set_key(zynq *z, const char *key, size_t klen, const char *val, size_t vlen, const char *where,
                   ovta_error *err) {
  char v[512];
  copy_str(v, sizeof v, val, vlen);
#define KEY(k) (klen == strlen(k) && strncmp(key, k, klen) == 0)
  if (KEY("regs")) snprintf(z->regs_path, sizeof z->regs_path, "%s", v);
  else if (KEY("dma")) snprintf(z->dma_path, sizeof z->dma_path, "%s", v);
  else if (KEY("dma_sysfs")) snprintf(z->sysfs_path, sizeof z->sysfs_path, "%s", v);
  else if (KEY("cache")) return set_cache(z, v, where, err);
  else if (KEY("dma_phys") || KEY("dma_size")) {
    if (parse_u64(v, KEY("dma_phys") ? &z->dma_phys_opt : &z->dma_size_opt))
      return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s: %s '%s' is not a number", where, KEY("dma_phys") ? "dma_phys" : "dma_size", v);
  }
  else if (KEY("reg_base")) {
    if (parse_u64(v, &z->reg_base))
      return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s: reg_base '%s' is not a number", where, v);
  } else {
    char k[64];
    copy_str(k, sizeof k, key, klen);
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s: unknown key '%s' (regs, reg_base, dma, dma_sysfs, dma_phys, dma_size, cache)",
                     where, k);
  }
#undef KEY
  return OVTA_OK;
}

static int parse_opts(zynq *z, const ovta_dev_opts *opts, ovta_error *err) {
  const char *e;
  snprintf(z->regs_path, sizeof z->regs_path, "%s", (e = getenv("OVTA_ZYNQ_REGS")) && *e ? e : "/dev/uio0");
  snprintf(z->dma_path, sizeof z->dma_path, "%s", (e = getenv("OVTA_ZYNQ_DMA")) && *e ? e : "/dev/udmabuf0");
  if ((e = getenv("OVTA_ZYNQ_DMA_SYSFS")) && *e) snprintf(z->sysfs_path, sizeof z->sysfs_path, "%s", e);
  if ((e = getenv("OVTA_ZYNQ_REG_BASE")) && *e && parse_u64(e, &z->reg_base))
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: OVTA_ZYNQ_REG_BASE '%s' is not a number", e);
  if ((e = getenv("OVTA_ZYNQ_CACHE")) && *e && set_cache(z, e, "OVTA_ZYNQ_CACHE", err)) return OVTA_EINVAL;
  const char *d = opts ? opts->device_path : NULL;
  if (d && *d) {
    if (!strchr(d, '=')) {
      snprintf(z->regs_path, sizeof z->regs_path, "%s", d);
    } else {
      for (const char *p = d; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (!eq) {
          char item[128];
          copy_str(item, sizeof item, p, n);
          return OVTA_FAIL(err, OVTA_EINVAL, "zynq: device_path item '%s' is not key=value", item);
        }
        int rc = set_key(z, p, (size_t)(eq - p), eq + 1, n - (size_t)(eq + 1 - p), "device_path", err);
        if (rc) return rc;
        p += n;
        if (*p == ',') p++;
      }
    }
  }
  if (!z->sysfs_path[0]) {
    const char *base = strrchr(z->dma_path, '/');
    snprintf(z->sysfs_path, sizeof z->sysfs_path, "/sys/class/u-dma-buf/%s", base ? base + 1 : z->dma_path);
  }
  return OVTA_OK;
}

/* ---------------------------------------------------------------- opening */

static int open_fail(ovta_error *err, const char *what, const char *path, int e) {
  const char *hint = e == ENOENT ? " (is the bitstream loaded and the driver bound? see boards/README.md)"
                     : (e == EACCES || e == EPERM) ? " (run as root, or give your user access with a udev rule)"
                                                   : "";
  return OVTA_FAIL(err, OVTA_EIO, "zynq: cannot open %s %s: %s%s", what, path, strerror(e), hint);
}

/* Read a small sysfs attribute as a number (hex with 0x, else decimal). */
static int read_attr(const char *dir, const char *name, uint64_t *out, ovta_error *err) {
  char path[700], buf[64];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return open_fail(err, "u-dma-buf attribute", path, errno);
  ssize_t n = read(fd, buf, sizeof buf - 1);
  int e = errno;
  close(fd);
  if (n < 0) return OVTA_FAIL(err, OVTA_EIO, "zynq: reading %s: %s", path, strerror(e));
  buf[n] = 0;
  char *nl = strchr(buf, '\n');
  if (nl) *nl = 0;
  if (parse_u64(buf, out)) return OVTA_FAIL(err, OVTA_EIO, "zynq: %s holds '%s', not a number", path, buf);
  return OVTA_OK;
}

static bool is_dev_mem(const char *path) {
  const char *b = strrchr(path, '/');
  return strcmp(b ? b + 1 : path, "mem") == 0;
}

uint32_t ovta_board_config_id(const ovta_config *c) {
  return (uint32_t)c->log_batch << 24 | (uint32_t)c->log_block << 16 | (uint32_t)(c->axi_data_bits / 8) << 8 | 0x0a;
}

int ovta_board_check_id(const ovta_config *c, uint32_t id, const char *where, ovta_error *err) {
  uint32_t want = ovta_board_config_id(c);
  if ((id & 0xff) != 0x0a)
    return OVTA_FAIL(err, OVTA_ECONFIG, "no ovta accelerator at %s: register CONFIG_ID (0x18) reads 0x%08x, "
                     "expected 0x%08x (bitstream not loaded, or wrong register base?)", where, id, want);
  if (id != want)
    return OVTA_FAIL(err, OVTA_ECONFIG, "the accelerator at %s was built for another config: CONFIG_ID (0x18) "
                     "reads 0x%08x (LOG_BATCH %u, LOG_BLOCK %u, %u-bit bus), config '%s' needs 0x%08x", where, id,
                     id >> 24, id >> 16 & 255, (id >> 8 & 255) * 8, c->name, want);
  return OVTA_OK;
}

static int map_regs(ovta_dev *dev, zynq *z, ovta_error *err) {
  bool devmem = is_dev_mem(z->regs_path);
  if (devmem && !z->reg_base)
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s needs the register base address (reg_base= in device_path or "
                     "OVTA_ZYNQ_REG_BASE; boards/NAME/board.json \"reg_base\")", z->regs_path);
  z->reg_fd = open(z->regs_path, O_RDWR | O_SYNC | O_CLOEXEC);
  if (z->reg_fd < 0) return open_fail(err, "register device", z->regs_path, errno);
  struct stat st;
  if (fstat(z->reg_fd, &st) < 0)
    return OVTA_FAIL(err, OVTA_EIO, "zynq: stat %s: %s", z->regs_path, strerror(errno));
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  off_t off = 0;
  size_t delta = 0, len = page;
  if (devmem) {
    off = (off_t)(z->reg_base & ~(uint64_t)(page - 1));
    delta = (size_t)(z->reg_base - (uint64_t)off);
    len = (delta + R_WINDOW + page - 1) & ~(page - 1);
  } else if (S_ISREG(st.st_mode)) {
    if ((uint64_t)st.st_size < R_WINDOW)
      return OVTA_FAIL(err, OVTA_EINVAL, "zynq: register window file %s is %lld bytes; the register map needs %d",
                       z->regs_path, (long long)st.st_size, R_WINDOW);
  } else if (S_ISCHR(st.st_mode)) {
    /* UIO: map 0's size from sysfs when it is there */
    const char *b = strrchr(z->regs_path, '/');
    char dir[600];
    snprintf(dir, sizeof dir, "/sys/class/uio/%s/maps/map0", b ? b + 1 : z->regs_path);
    uint64_t sz = 0;
    ovta_error e2 = {0};
    if (read_attr(dir, "size", &sz, &e2) == OVTA_OK) {
      if (sz < R_WINDOW)
        return OVTA_FAIL(err, OVTA_EINVAL, "zynq: UIO map 0 of %s is %llu bytes; the register map needs %d (wrong "
                         "address range in the device tree?)", z->regs_path, (unsigned long long)sz, R_WINDOW);
      len = (size_t)sz < page ? page : (size_t)sz;
    }
  } else {
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s is neither a UIO device, /dev/mem nor a file", z->regs_path);
  }
  void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, z->reg_fd, off);
  if (m == MAP_FAILED)
    return OVTA_FAIL(err, OVTA_EIO, "zynq: mmap of %zu bytes of %s at offset 0x%llx: %s", len, z->regs_path,
                     (unsigned long long)off, strerror(errno));
  z->reg_map = m;
  z->reg_map_len = len;
  z->regs = (volatile uint32_t *)((uint8_t *)m + delta);
  /* is it ovta, built for this config? */
  char where[600];
  snprintf(where, sizeof where, "%s%s", z->regs_path, devmem ? " at reg_base" : "");
  return ovta_board_check_id(&dev->cfg, mmio_rd(z, R_CONFIG_ID), where, err);
}

static int map_dma(ovta_dev *dev, zynq *z, ovta_error *err) {
  uint64_t phys = 0, size = 0;
  bool devmem = is_dev_mem(z->dma_path);
  if (devmem) {
    /* a physically contiguous region reserved for ovta (device-tree reserved-memory / CMA),
       mapped uncached through /dev/mem */
    if (!z->dma_phys_opt || !z->dma_size_opt)
      return OVTA_FAIL(err, OVTA_EINVAL, "zynq: dma=%s needs dma_phys= and dma_size= in device_path (the "
                       "reserved region)", z->dma_path);
    phys = z->dma_phys_opt, size = z->dma_size_opt;
    z->cache = CACHE_UNCACHED;
  } else {
    int rc = read_attr(z->sysfs_path, "phys_addr", &phys, err);
    if (!rc) rc = read_attr(z->sysfs_path, "size", &size, err);
    if (rc) return rc;
  }
  if (size == 0 || size > (uint64_t)SIZE_MAX / 2)
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s/size is %llu: a bad DMA region size", z->sysfs_path,
                     (unsigned long long)size);
  if (phys == 0 || phys % 4096)
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: %s/phys_addr 0x%llx is not a page-aligned nonzero address",
                     z->sysfs_path, (unsigned long long)phys);
  int ab = dev->cfg.axi_addr_bits;
  if (ab < 64 && phys + size > (1ull << ab))
    return OVTA_FAIL(err, OVTA_ECONFIG, "zynq: DMA region [0x%llx, 0x%llx) of %s is beyond the %d-bit bus of "
                     "config '%s'", (unsigned long long)phys, (unsigned long long)(phys + size), z->dma_path, ab,
                     dev->cfg.name);
  if (phys + size > (1ull << 32))
    return OVTA_FAIL(err, OVTA_ECONFIG, "zynq: DMA region [0x%llx, 0x%llx) of %s is beyond 4 GiB: the "
                     "INSN_ADDR register (0x0C) holds 32 bits", (unsigned long long)phys,
                     (unsigned long long)(phys + size), z->dma_path);
  int flags = O_RDWR | O_CLOEXEC | (z->cache == CACHE_UNCACHED ? O_SYNC : 0);
  z->dma_fd = open(z->dma_path, flags);
  if (z->dma_fd < 0) return open_fail(err, "DMA buffer device", z->dma_path, errno);
  struct stat st;
  if (fstat(z->dma_fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size < size)
    return OVTA_FAIL(err, OVTA_EINVAL, "zynq: DMA file %s is %lld bytes, less than the %llu of %s/size",
                     z->dma_path, (long long)st.st_size, (unsigned long long)size, z->sysfs_path);
  void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, z->dma_fd, devmem ? (off_t)phys : 0);
  if (m == MAP_FAILED)
    return OVTA_FAIL(err, OVTA_EIO, "zynq: mmap of %llu bytes of %s: %s", (unsigned long long)size, z->dma_path,
                     strerror(errno));
  z->dma = m;
  z->dma_phys = phys;
  z->dma_size = (size_t)size;
  if (z->cache == CACHE_SYNC)
    for (int i = 0; i < SY_COUNT; i++) {
      char path[700];
      snprintf(path, sizeof path, "%s/%s", z->sysfs_path, sync_attr[i]);
      z->sync_fd[i] = open(path, O_WRONLY | O_CLOEXEC);
      if (z->sync_fd[i] < 0) {
        int e = errno;
        return OVTA_FAIL(err, OVTA_EIO, "zynq: cannot open %s: %s (cache=sync needs u-dma-buf's sync attributes; "
                         "cache=uncached opens %s with O_SYNC instead)", path, strerror(e), z->dma_path);
      }
    }
  return OVTA_OK;
}

static void zynq_free(zynq *z) {
  if (!z) return;
  for (int i = 0; i < SY_COUNT; i++)
    if (z->sync_fd[i] >= 0) close(z->sync_fd[i]);
  if (z->dma) munmap(z->dma, z->dma_size);
  if (z->dma_fd >= 0) close(z->dma_fd);
  if (z->reg_map) munmap(z->reg_map, z->reg_map_len);
  if (z->reg_fd >= 0) close(z->reg_fd);
  free(z->allocs);
  free(z);
}

static int zynq_open(ovta_dev *dev, const ovta_dev_opts *opts, ovta_error *err) {
  zynq *z = calloc(1, sizeof *z);
  if (!z) return OVTA_FAIL(err, OVTA_ENOMEM, "zynq: out of host memory");
  z->reg_fd = z->dma_fd = -1;
  for (int i = 0; i < SY_COUNT; i++) z->sync_fd[i] = -1;
  int rc = parse_opts(z, opts, err);
  if (!rc) rc = map_regs(dev, z, err);
  if (!rc) rc = map_dma(dev, z, err);
  if (rc) {
    zynq_free(z);
    return rc;
  }
  if (opts->verbose)
    fprintf(stderr, "zynq: registers %s, DMA %s [0x%llx, +%zu), cache %s\n", z->regs_path, z->dma_path,
            (unsigned long long)z->dma_phys, z->dma_size, cache_names[z->cache]);
  dev->impl = z;
  return OVTA_OK;
}

static void zynq_close(ovta_dev *dev) {
  zynq_free(dev->impl);
  dev->impl = NULL;
}

/* ---------------------------------------------------------------- buffers */

static int zynq_buf_flush(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err);

static int zynq_buf_alloc(ovta_dev *dev, size_t size, ovta_buf *buf, ovta_error *err) {
  zynq *z = dev->impl;
  uint64_t align = dev->buf_align, sz = (size + 63) & ~(uint64_t)63;
  if (z->n_allocs == z->cap_allocs) {
    size_t cap = z->cap_allocs ? 2 * z->cap_allocs : 16;
    zalloc *na = realloc(z->allocs, cap * sizeof *na);
    if (!na) return OVTA_FAIL(err, OVTA_ENOMEM, "zynq: out of host memory");
    z->allocs = na;
    z->cap_allocs = cap;
  }
  /* first fit, aligned by physical address */
  uint64_t prev_end = 0;
  size_t at = z->n_allocs;
  uint64_t off = 0;
  bool found = false;
  for (size_t i = 0; i <= z->n_allocs; i++) {
    uint64_t gap_end = i < z->n_allocs ? z->allocs[i].off : z->dma_size;
    uint64_t p = (z->dma_phys + prev_end + align - 1) & ~(align - 1);
    uint64_t o = p - z->dma_phys;
    if (o <= gap_end && gap_end - o >= sz) {
      off = o, at = i, found = true;
      break;
    }
    if (i < z->n_allocs) prev_end = z->allocs[i].off + z->allocs[i].size;
  }
  if (!found)
    return OVTA_FAIL(err, OVTA_ENOMEM, "zynq: no room for %zu bytes in the DMA region %s (%zu bytes, %zu buffers "
                     "live); give u-dma-buf a larger size", size, z->dma_path, z->dma_size, z->n_allocs);
  memmove(&z->allocs[at + 1], &z->allocs[at], (z->n_allocs - at) * sizeof *z->allocs);
  z->allocs[at] = (zalloc){off, sz};
  z->n_allocs++;
  buf->phys = z->dma_phys + off;
  buf->host = z->dma + off;
  memset(buf->host, 0, size);
  return zynq_buf_flush(dev, buf, 0, size, err);
}

static void zynq_buf_free(ovta_dev *dev, ovta_buf *buf) {
  zynq *z = dev->impl;
  uint64_t off = buf->phys - z->dma_phys;
  for (size_t i = 0; i < z->n_allocs; i++)
    if (z->allocs[i].off == off) {
      memmove(&z->allocs[i], &z->allocs[i + 1], (z->n_allocs - i - 1) * sizeof *z->allocs);
      z->n_allocs--;
      return;
    }
}

static int put_attr(zynq *z, int which, uint64_t v, ovta_error *err) {
  char s[32];
  int n = snprintf(s, sizeof s, "%llu\n", (unsigned long long)v);
  if (pwrite(z->sync_fd[which], s, (size_t)n, 0) != n)
    return OVTA_FAIL(err, OVTA_EIO, "zynq: writing %s/%s: %s", z->sysfs_path, sync_attr[which], strerror(errno));
  return OVTA_OK;
}

/* u-dma-buf cache maintenance: offset, size, direction (1 to device, 2 from device), then the call */
static int dma_sync(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, bool for_device, ovta_error *err) {
  zynq *z = dev->impl;
  __sync_synchronize();
  if (z->cache != CACHE_SYNC || n == 0) return OVTA_OK;
  int rc = put_attr(z, SY_OFFSET, buf->phys - z->dma_phys + off, err);
  if (!rc) rc = put_attr(z, SY_SIZE, n, err);
  if (!rc) rc = put_attr(z, SY_DIRECTION, for_device ? 1 : 2, err);
  if (!rc) rc = put_attr(z, for_device ? SY_FOR_DEVICE : SY_FOR_CPU, 1, err);
  return rc;
}

static int zynq_buf_flush(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  return dma_sync(dev, buf, off, n, true, err);
}
static int zynq_buf_invalidate(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  return dma_sync(dev, buf, off, n, false, err);
}

/* ---------------------------------------------------------------- runs */

/* Is [phys, phys+len) inside one live buffer? */
static bool inside_buf(ovta_dev *dev, uint64_t phys, uint64_t len) {
  ovta_buf *b = ovta_buf_find(dev, phys);
  return b && len <= b->size - (phys - b->phys);
}

/* Check every LOAD/STORE row of the stream against the buffers (instructions that do not decode
 * are left to the hardware, which reports them). */
static int check_dram(ovta_dev *dev, const char *where, const uint8_t *stream, uint32_t count, ovta_error *err) {
  for (uint32_t i = 0; i < count; i++) {
    ovta_insn_bits bits;
    ovta_insn in;
    ovta_insn_bits_load(stream + 16ull * i, &bits);
    if (ovta_insn_decode(&dev->isa, &bits, &in, NULL) != OVTA_OK) continue;
    if (in.opcode != OVTA_OP_LOAD && in.opcode != OVTA_OP_STORE) continue;
    if (in.y_size == 0 || in.x_size == 0) continue;
    uint64_t eb = (uint64_t)ovta_elem_bytes(&dev->cfg, in.memory_type);
    if (eb == 0) continue;
    uint64_t row = (uint64_t)in.x_size * eb;
    uint64_t first = (uint64_t)in.dram_base * eb;
    uint64_t last = ((uint64_t)in.dram_base + (uint64_t)(in.y_size - 1) * in.x_stride) * eb;
    if (last >= first && inside_buf(dev, first, last + row - first)) continue;
    for (uint32_t y = 0; y < in.y_size; y++) {
      uint64_t a = ((uint64_t)in.dram_base + (uint64_t)y * in.x_stride) * eb;
      if (!inside_buf(dev, a, row))
        return OVTA_FAIL(err, OVTA_EINSN, "%s: instruction %u (%s %s): DRAM bytes [0x%llx, 0x%llx) are not inside "
                         "one allocated buffer (checked before starting: the hardware would access them)", where, i,
                         ovta_opcode_name(in.opcode), ovta_mem_type_name(in.memory_type), (unsigned long long)a,
                         (unsigned long long)(a + row));
    }
  }
  return OVTA_OK;
}

static void sleep_us(unsigned us) {
  struct timespec ts = {0, (long)us * 1000};
  nanosleep(&ts, NULL);
}

/* Poll CTRL until (CTRL & mask) == want or timeout_ms passes (0: forever). 1 when reached. */
static int poll_ctrl(const ovta_board_io *z, uint32_t mask, uint32_t want, uint32_t timeout_ms) {
  uint64_t t0 = ovta_now_ms();
  unsigned nap = 2;
  for (unsigned i = 0;; i++) {
    if ((rd(z, R_CTRL) & mask) == want) return 1;
    if (timeout_ms && ovta_now_ms() - t0 > timeout_ms) return (rd(z, R_CTRL) & mask) == want;
    if (i >= 64) {
      sleep_us(nap);
      if (nap < 500) nap += nap / 2 + 1;
    }
  }
}

/* The unit states, as in hw/sim/tsim (hw/rtl/README.md debug registers). */
static void describe(const ovta_board_io *z, char *out, size_t cap) {
  static const char *const mod[] = {"load", "compute", "store"};
  static const char *const qn[3][4] = {{"-", "C2L token", "-", "room in L2C"},
                                       {"L2C token", "S2C token", "room in C2L", "room in C2S"},
                                       {"C2S token", "-", "room in S2C", "-"}};
  static const char *const opn[8] = {"LOAD", "STORE", "GEMM", "FINISH", "ALU", "op5", "op6", "op7"};
  size_t n = 0;
  uint32_t f = rd(z, R_FETCH), tok = rd(z, R_TOKENS), cq = rd(z, R_CMDQ);
  n += (size_t)snprintf(out + n, cap - n, "fetch: %s%s, %u retired; tokens L2C=%u C2L=%u C2S=%u S2C=%u; "
                        "queued load=%u compute=%u store=%u", (f & 1) ? "dispatched all" : "dispatching",
                        (f & 4) ? " (stopped on error)" : "", rd(z, R_RETIRED), tok & 255, tok >> 8 & 255,
                        tok >> 16 & 255, tok >> 24, cq & 1023, cq >> 10 & 1023, cq >> 20 & 1023);
  for (int u = 0; u < 3 && n < cap; u++) {
    uint32_t d = rd(z, R_DBG_LOAD + 8 * u), idx = rd(z, R_DBG_LOAD + 8 * u + 4);
    unsigned w = d >> 4 & 15;
    n += (size_t)snprintf(out + n, cap - n, "; ");
    if (n >= cap) break;
    if (d >> 10 & 1) n += (size_t)snprintf(out + n, cap - n, "%s halted at instruction %u", mod[u], idx);
    else if (d >> 8 & 1) n += (size_t)snprintf(out + n, cap - n, "%s executing instruction %u (state %u)", mod[u], idx, d & 15);
    else if (!(d >> 9 & 1)) n += (size_t)snprintf(out + n, cap - n, "%s idle, queue empty", mod[u]);
    else {
      n += (size_t)snprintf(out + n, cap - n, "%s waits at instruction %u (%s) for", mod[u], idx, opn[d >> 11 & 7]);
      for (int b = 3; b >= 0 && n < cap; b--)
        if (w >> b & 1) n += (size_t)snprintf(out + n, cap - n, " %s", qn[u][3 - b]);
    }
  }
  /* the memory bus (AXI register): a unit waiting on DRAM shows here */
  uint32_t a = rd(z, R_AXI);
  if (n < cap)
    snprintf(out + n, cap - n, "; AXI: %u read bursts in flight%s, %u write responses outstanding%s%s", a & 255,
             (a >> 8 & 1) ? " (an AR waits for ARREADY)" : "", a >> 16 & 255,
             (a >> 25 & 1) ? " (an AW waits for AWREADY)" : "", (a >> 26 & 1) ? " (a W beat waits for WREADY)" : "");
}

static void read_counters(const ovta_board_io *z, ovta_counters *k) {
  memset(k, 0, sizeof *k);
  uint64_t c[17];
  for (int i = 0; i < 17; i++) c[i] = rd64(z, R_CNT + 8 * i);
  k->cycles = c[CNT_CYCLES];
  k->insns_load = c[CNT_INSNS_LOAD];
  k->insns_compute = c[CNT_INSNS_COMPUTE];
  k->insns_store = c[CNT_INSNS_STORE];
  k->bytes_read[OVTA_MEM_UOP] = c[CNT_BYTES_UOP];
  k->bytes_read[OVTA_MEM_WGT] = c[CNT_BYTES_WGT];
  k->bytes_read[OVTA_MEM_INP] = c[CNT_BYTES_INP];
  k->bytes_read[OVTA_MEM_ACC] = c[CNT_BYTES_ACC];
  k->bytes_written = c[CNT_BYTES_OUT];
  k->gemm_uops = c[CNT_GEMM_UOPS];
  k->alu_uops = c[CNT_ALU_UOPS];
  k->busy_load = c[CNT_BUSY_LOAD];
  k->busy_compute = c[CNT_BUSY_COMPUTE];
  k->busy_store = c[CNT_BUSY_STORE];
  k->stall_load = c[CNT_STALL_LOAD];
  k->stall_compute = c[CNT_STALL_COMPUTE];
  k->stall_store = c[CNT_STALL_STORE];
}

static const char *rule_name(unsigned r) {
  static const char *const n[] = {"none", "unknown opcode", "reserved bit set", "dependency bit naming no queue",
                                  "memory type not allowed", "padding not allowed", "SRAM range beyond the buffer",
                                  "uop range outside uop SRAM", "unknown alu_opcode", "dst index out of range",
                                  "src index out of range", "wgt index out of range", "DRAM address beyond the bus"};
  return r < sizeof n / sizeof n[0] ? n[r] : "unknown rule";
}

static int board_outcome(const ovta_board_io *z, uint32_t st, unsigned code, unsigned rule, unsigned unit,
                         unsigned resp, uint32_t idx, const uint8_t *stream, uint32_t insn_count, char *msg,
                         size_t cap);

int ovta_board_run(ovta_dev *dev, const ovta_board_io *z, uint64_t insn_phys, uint32_t insn_count,
                   uint32_t timeout_ms, ovta_error *err) {
  uint64_t bytes = 16ull * insn_count;
  if (!inside_buf(dev, insn_phys, bytes))
    return OVTA_FAIL(err, OVTA_EINSN, "instruction stream [0x%llx, 0x%llx) of %u instructions is not inside one "
                     "allocated buffer", (unsigned long long)insn_phys, (unsigned long long)(insn_phys + bytes),
                     insn_count);
  if (insn_phys % 16)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: instruction stream at 0x%llx is not 16-byte aligned",
                     z->where, (unsigned long long)insn_phys);
  ovta_buf *sb = ovta_buf_find(dev, insn_phys);
  const uint8_t *stream = (const uint8_t *)sb->host + (insn_phys - sb->phys);
  int rc = check_dram(dev, z->where, stream, insn_count, err);
  if (rc) return rc;
  uint64_t t0 = ovta_now_ms();
  /* soft reset, then wait until it took effect */
  wr(z, R_CTRL, 2);
  if (!poll_ctrl(z, 7, 0, 1000))
    return OVTA_FAIL(err, OVTA_ETIMEOUT, "%s: CTRL (0x00) reads 0x%08x 1 s after a soft reset, not 0: the "
                     "accelerator does not respond", z->where, rd(z, R_CTRL));
  wr(z, R_INSN_ADDR, (uint32_t)insn_phys);
  wr(z, R_INSN_COUNT, insn_count);
  wr(z, R_CTRL, 1);
  uint32_t left = 0;
  if (timeout_ms) {
    uint64_t used = ovta_now_ms() - t0;
    left = used >= timeout_ms ? 1 : timeout_ms - (uint32_t)used;
  }
  int done = poll_ctrl(z, 2, 2, left);
  if (!done) {
    char d[900];
    describe(z, d, sizeof d);
    read_counters(z, &dev->counters);
    wr(z, R_CTRL, 2); /* stop it */
    poll_ctrl(z, 7, 0, 1000);
    return OVTA_FAIL(err, OVTA_ETIMEOUT, "%s: timeout (wall-time limit of %u ms) after %llu cycles: %s; device reset",
                     z->where, timeout_ms, (unsigned long long)dev->counters.cycles, d);
  }
  read_counters(z, &dev->counters);
  uint32_t st = rd(z, R_STATUS), idx = rd(z, R_ERR_INDEX);
  /* field positions and codes: isa/encoding.json "status" */
#define FIELD(name) (st >> OVTA_STATUS_##name##_LO & ((1u << OVTA_STATUS_##name##_W) - 1))
  unsigned code = FIELD(OUTCOME), rule = FIELD(RULE), unit = FIELD(UNIT), resp = FIELD(RESP);
#undef FIELD
  if (code == OVTA_OUTCOME_OK) return OVTA_OK;
  char msg[1000];
  rc = board_outcome(z, st, code, rule, unit, resp, idx, stream, insn_count, msg, sizeof msg);
  /* stop whatever is left and leave the device clean for the next run */
  wr(z, R_CTRL, 2);
  bool reset = poll_ctrl(z, 7, 0, 1000);
  return OVTA_FAIL(err, rc, "%s: %s%s", z->where, msg, reset ? (code == OVTA_OUTCOME_BUS ? "; device reset" : "")
                                                             : "; the device does not come out of reset");
}

/* The message and code of a failed run's outcome (STATUS fields). */
static int board_outcome(const ovta_board_io *z, uint32_t st, unsigned code, unsigned rule, unsigned unit,
                         unsigned resp, uint32_t idx, const uint8_t *stream, uint32_t insn_count, char *msg,
                         size_t cap) {
  static const char *const uname[] = {"fetch", "load", "compute", "store"};
  const char *op = idx < insn_count ? ovta_opcode_name(stream[16ull * idx] & 7) : "?";
  if (!op) op = "?";
  switch (code) {
  case OVTA_OUTCOME_INSN:
    if (rule >= 9 && rule <= 11) {
      static const char *const what[] = {"dst", "src", "wgt"};
      snprintf(msg, cap, "instruction %u (%s): %s index %u is out of range (detected by compute)", idx, op,
               what[rule - 9], rd(z, R_ERR_VALUE));
    } else {
      snprintf(msg, cap, "instruction %u (%s): invalid (%s; detected by %s)", idx, op, rule_name(rule), uname[unit]);
    }
    return OVTA_EINSN;
  case OVTA_OUTCOME_DEADLOCK: {
    char d[900];
    describe(z, d, sizeof d);
    snprintf(msg, cap, "deadlock: %s", d);
    return OVTA_EDEADLOCK;
  }
  case OVTA_OUTCOME_NO_FINISH:
    snprintf(msg, cap, "all %u instructions retired without a FINISH (no FINISH)", insn_count);
    return OVTA_EINSN;
  case OVTA_OUTCOME_ADDR:
    snprintf(msg, cap, "instruction %u (%s, %s): %s", idx, op, uname[unit], rule_name(rule));
    return OVTA_EINSN;
  case OVTA_OUTCOME_BUS:
    snprintf(msg, cap, "instruction %u (%s, %s): AXI %s error response %s; the units stopped", idx, op, uname[unit],
             unit == 3 ? "write" : "read", resp == OVTA_BUS_RESP_DECERR ? "DECERR" : "SLVERR");
    return OVTA_EIO;
  default:
    snprintf(msg, cap, "STATUS (0x04) reads 0x%08x: unknown outcome %u", st, code);
    return OVTA_EINTERNAL;
  }
}

static int zynq_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms, ovta_error *err) {
  zynq *z = dev->impl;
  char where[600];
  snprintf(where, sizeof where, "zynq %s", z->regs_path);
  ovta_board_io io = {z, mmio_rd, mmio_wr, where};
  return ovta_board_run(dev, &io, insn_phys, insn_count, timeout_ms, err);
}

const ovta_backend ovta_backend_zynq = {
    .name = "zynq",
    .open = zynq_open,
    .close = zynq_close,
    .run = zynq_run,
    .buf_alloc = zynq_buf_alloc,
    .buf_free = zynq_buf_free,
    .buf_flush = zynq_buf_flush,
    .buf_invalidate = zynq_buf_invalidate,
};
