/* backend_xrt.c: the "xrt" backend: the accelerator on an Alveo card (boards/alveo-u250) through
 * XRT's native C API (Debian's libxrt-dev headers; the runtime library libxrt_coreutil.so.2 is
 * loaded with dlopen when a device is opened, so nothing else links against XRT).
 *
 * Built only when the XRT headers are installed (boards/boards.mk drops this file otherwise).
 *
 *   device     xrtDeviceOpen(index) or xrtDeviceOpenByBDF, then xrtDeviceLoadXclbinFile
 *   registers  the RTL kernel "ovta" opened exclusively (xrtPLKernelOpenExclusive), its AXI4-Lite
 *              window read and written with xrtKernelReadRegister / xrtKernelWriteRegister; the
 *              register protocol is the boards' one (driver/ovta_board.h)
 *   buffers    one buffer object per ovta_buf (xrtBOAlloc in the memory bank of the kernel's
 *              m_axi argument, xrtBOMap, xrtBOAddress), synced with xrtBOSync
 *
 * Where things are: ovta_dev_opts.device_path is a device index ("0"), or key=value items
 * separated by commas: device=INDEX, bdf=DDDD:BB:DD.F, xclbin=PATH, kernel=NAME. Else env
 * OVTA_XRT_DEVICE, OVTA_XRT_XCLBIN, OVTA_XRT_KERNEL. Defaults: device 0, the xclbin
 * boards/alveo-u250/build/ovta.xclbin of the source tree, kernel "ovta".
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include "ovta_board.h"

/* The XRT entry points used, resolved from the library. */
#define XRT_FUNCS(X)                                                                               \
  X(xrtDeviceOpen) X(xrtDeviceOpenByBDF) X(xrtDeviceClose) X(xrtDeviceLoadXclbinFile)             \
  X(xrtDeviceGetXclbinUUID) X(xrtPLKernelOpenExclusive) X(xrtKernelClose) X(xrtKernelArgGroupId)   \
  X(xrtKernelReadRegister) X(xrtKernelWriteRegister) X(xrtBOAlloc) X(xrtBOFree) X(xrtBOMap)        \
  X(xrtBOAddress) X(xrtBOSync)

typedef struct xrt_api {
  void *so;
#define X(f) __typeof__(f) *f;
  XRT_FUNCS(X)
#undef X
} xrt_api;

typedef struct xbo {
  ovta_buf *buf;
  xrtBufferHandle bo;
} xbo;

typedef struct xrt_be {
  xrt_api api;
  xrtDeviceHandle dh;
  xrtKernelHandle kh;
  int group;            /* memory bank of the kernel's m_axi argument */
  char where[600];      /* "xrt device 0 (xclbin ...)" for messages */
  xbo *bos;             /* live buffer objects */
  size_t n_bos, cap_bos;
} xrt_be;

/* Library name: $OVTA_XRT_LIB, else libxrt_coreutil.so.2. */
static int load_api(xrt_api *a, ovta_error *err) {
  const char *lib = getenv("OVTA_XRT_LIB");
  if (!lib || !*lib) lib = "libxrt_coreutil.so.2";
  a->so = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!a->so)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "xrt: cannot load the XRT runtime %s (%s); install XRT (Debian: "
                     "libxrt1) or set OVTA_XRT_LIB", lib, dlerror());
#define X(f)                                                                                       \
  a->f = (__typeof__(f) *)dlsym(a->so, #f);                                                        \
  if (!a->f) {                                                                                     \
    dlclose(a->so);                                                                                \
    a->so = NULL;                                                                                  \
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "xrt: %s lacks %s (XRT too old?)", lib, #f);          \
  }
  XRT_FUNCS(X)
#undef X
  return OVTA_OK;
}

typedef struct xrt_opts {
  long device;          /* index, or -1 with a bdf */
  char bdf[64];
  char xclbin[512];
  char kernel[128];
} xrt_opts;

static int parse_index(const char *v, long *out) {
  char *end;
  errno = 0;
  long d = strtol(v, &end, 10);
  if (errno || end == v || *end || d < 0) return -1;
  *out = d;
  return 0;
}

static int xrt_parse(const ovta_dev_opts *opts, xrt_opts *o, ovta_error *err) {
  memset(o, 0, sizeof *o);
  const char *e;
  if ((e = getenv("OVTA_XRT_DEVICE")) && *e && parse_index(e, &o->device))
    return OVTA_FAIL(err, OVTA_EINVAL, "xrt: OVTA_XRT_DEVICE '%s' is not a device index", e);
  if ((e = getenv("OVTA_XRT_XCLBIN")) && *e) snprintf(o->xclbin, sizeof o->xclbin, "%s", e);
  else snprintf(o->xclbin, sizeof o->xclbin, "%s/boards/alveo-u250/build/ovta.xclbin", OVTA_SRC_DIR);
  snprintf(o->kernel, sizeof o->kernel, "%s", (e = getenv("OVTA_XRT_KERNEL")) && *e ? e : "ovta");
  const char *d = opts ? opts->device_path : NULL;
  if (!d || !*d) return OVTA_OK;
  if (!strchr(d, '=')) {
    if (parse_index(d, &o->device))
      return OVTA_FAIL(err, OVTA_EINVAL, "xrt: device_path '%s' is not a device index or key=value list", d);
    return OVTA_OK;
  }
  for (const char *p = d; *p;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char item[600];
    snprintf(item, sizeof item, "%.*s", (int)n, p);
    char *eq = strchr(item, '=');
    if (!eq) return OVTA_FAIL(err, OVTA_EINVAL, "xrt: device_path item '%s' is not key=value", item);
    *eq = 0;
    const char *k = item, *v = eq + 1;
    if (strcmp(k, "device") == 0) {
      if (parse_index(v, &o->device)) return OVTA_FAIL(err, OVTA_EINVAL, "xrt: device '%s' is not an index", v);
    } else if (strcmp(k, "bdf") == 0) {
      snprintf(o->bdf, sizeof o->bdf, "%s", v);
    } else if (strcmp(k, "xclbin") == 0) {
      snprintf(o->xclbin, sizeof o->xclbin, "%s", v);
    } else if (strcmp(k, "kernel") == 0) {
      if (!*v) return OVTA_FAIL(err, OVTA_EINVAL, "xrt: empty kernel name");
      snprintf(o->kernel, sizeof o->kernel, "%s", v);
    } else {
      return OVTA_FAIL(err, OVTA_EINVAL, "xrt: device_path: unknown key '%s' (device, bdf, xclbin, kernel)", k);
    }
    p += n;
    if (*p == ',') p++;
  }
  return OVTA_OK;
}

static void xrt_free(xrt_be *x) {
  if (!x) return;
  for (size_t i = 0; i < x->n_bos; i++) x->api.xrtBOFree(x->bos[i].bo);
  if (x->kh) x->api.xrtKernelClose(x->kh);
  if (x->dh) x->api.xrtDeviceClose(x->dh);
  if (x->api.so) dlclose(x->api.so);
  free(x->bos);
  free(x);
}

static uint32_t k_rd(void *ctx, uint32_t off) {
  xrt_be *x = ctx;
  uint32_t v = 0;
  if (x->api.xrtKernelReadRegister(x->kh, off, &v) != 0) v = 0xffffffffu;
  return v;
}
static void k_wr(void *ctx, uint32_t off, uint32_t v) {
  xrt_be *x = ctx;
  x->api.xrtKernelWriteRegister(x->kh, off, v);
}

/* XRT throws from places its C API does not catch (the process aborts) when it cannot find its
 * own pieces: check those first, then try the device open in a child process. */
static int xrt_env_ok(const char *dev_name, ovta_error *err) {
  const char *x = getenv("XILINX_XRT");
  if (!x || !*x)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: XILINX_XRT is not set (source XRT's setup.sh; with Debian's "
                     "XRT point it at a directory whose lib/ holds libxrt_core.so.2)", dev_name);
  char path[700];
  snprintf(path, sizeof path, "%s/lib/libxrt_core.so.2", x);
  struct stat st;
  if (stat(path, &st) != 0)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: XILINX_XRT=%s but %s does not exist (XRT would abort)", dev_name,
                     x, path);
  return OVTA_OK;
}

static int probe_open(xrt_api *a, const xrt_opts *o, const char *dev_name, ovta_error *err) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return OVTA_OK; /* cannot probe: go ahead */
  if (pid == 0) {
    xrtDeviceHandle d = o->bdf[0] ? a->xrtDeviceOpenByBDF(o->bdf) : a->xrtDeviceOpen((unsigned)o->device);
    _exit(d ? 0 : 3);
  }
  int status = 0;
  for (int i = 0; i < 3000; i++) { /* up to 30 s */
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0) return OVTA_OK;
    if (i == 2999) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return OVTA_FAIL(err, OVTA_ETIMEOUT, "%s: XRT did not open the card within 30 s", dev_name);
    }
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return OVTA_OK;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
    return OVTA_FAIL(err, OVTA_EIO, "%s: cannot open the card (is an Alveo card installed, its xocl/xclmgmt "
                     "drivers loaded? `xbutil examine` lists the cards)", dev_name);
  return OVTA_FAIL(err, OVTA_EIO, "%s: XRT aborted while opening the card (%s %d; its message is above)", dev_name,
                   WIFSIGNALED(status) ? "signal" : "exit status",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static int xrt_open(ovta_dev *dev, const ovta_dev_opts *opts, ovta_error *err) {
  xrt_opts o;
  int rc = xrt_parse(opts, &o, err);
  if (rc) return rc;
  char dev_name[96];
  if (o.bdf[0]) snprintf(dev_name, sizeof dev_name, "xrt device %s", o.bdf);
  else snprintf(dev_name, sizeof dev_name, "xrt device %ld", o.device);
  xrt_be *x = calloc(1, sizeof *x);
  if (!x) return OVTA_FAIL(err, OVTA_ENOMEM, "xrt: out of host memory");
  rc = load_api(&x->api, err);
  if (rc) {
    free(x);
    return rc;
  }
  rc = xrt_env_ok(dev_name, err);
  if (!rc) rc = probe_open(&x->api, &o, dev_name, err);
  if (rc) {
    xrt_free(x);
    return rc;
  }
  errno = 0;
  x->dh = o.bdf[0] ? x->api.xrtDeviceOpenByBDF(o.bdf) : x->api.xrtDeviceOpen((unsigned)o.device);
  if (!x->dh) {
    int e = errno;
    xrt_free(x);
    return OVTA_FAIL(err, OVTA_EIO, "%s: cannot open the card%s%s (is an Alveo card installed, its xocl/xclmgmt "
                     "drivers loaded? `xbutil examine` lists the cards)", dev_name, e ? ": " : "", e ? strerror(e) : "");
  }
  if (x->api.xrtDeviceLoadXclbinFile(x->dh, o.xclbin) != 0) {
    int e = errno;
    xrt_free(x);
    return OVTA_FAIL(err, OVTA_EIO, "%s: cannot load xclbin %s%s%s (build it with boards/alveo-u250/build.sh)",
                     dev_name, o.xclbin, e ? ": " : "", e ? strerror(e) : "");
  }
  xuid_t uuid;
  memset(uuid, 0, sizeof uuid);
  x->api.xrtDeviceGetXclbinUUID(x->dh, uuid);
  x->kh = x->api.xrtPLKernelOpenExclusive(x->dh, uuid, o.kernel);
  if (!x->kh) {
    xrt_free(x);
    return OVTA_FAIL(err, OVTA_EIO, "%s: xclbin %s has no kernel '%s' (or it is in use)", dev_name, o.xclbin, o.kernel);
  }
  x->group = x->api.xrtKernelArgGroupId(x->kh, 0);
  snprintf(x->where, sizeof x->where, "%s kernel %s", dev_name, o.kernel);
  rc = ovta_board_check_id(&dev->cfg, k_rd(x, 0x18), x->where, err);
  if (rc) {
    xrt_free(x);
    return rc;
  }
  dev->impl = x;
  return OVTA_OK;
}

static void xrt_close(ovta_dev *dev) {
  xrt_free(dev->impl);
  dev->impl = NULL;
}

static xbo *find_bo(xrt_be *x, const ovta_buf *buf) {
  for (size_t i = 0; i < x->n_bos; i++)
    if (x->bos[i].buf == buf) return &x->bos[i];
  return NULL;
}

static int xrt_buf_alloc(ovta_dev *dev, size_t size, ovta_buf *buf, ovta_error *err) {
  xrt_be *x = dev->impl;
  if (x->n_bos == x->cap_bos) {
    size_t cap = x->cap_bos ? 2 * x->cap_bos : 16;
    xbo *nb = realloc(x->bos, cap * sizeof *nb);
    if (!nb) return OVTA_FAIL(err, OVTA_ENOMEM, "xrt: out of host memory");
    x->bos = nb;
    x->cap_bos = cap;
  }
  xrtBufferHandle bo = x->api.xrtBOAlloc(x->dh, size, 0, (xrtMemoryGroup)x->group);
  if (!bo) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: xrtBOAlloc of %zu bytes in bank %d failed", x->where, size, x->group);
  void *host = x->api.xrtBOMap(bo);
  uint64_t phys = x->api.xrtBOAddress(bo);
  int ab = dev->cfg.axi_addr_bits;
  const char *why = !host ? "cannot be mapped"
                    : phys % dev->buf_align ? "is not aligned to the config's element size"
                    : (ab < 64 && phys + size > (1ull << ab)) ? "lies beyond the config's address bits"
                    : phys + size > (1ull << 32) ? "lies beyond 4 GiB (the INSN_ADDR register holds 32 bits)"
                                                 : NULL;
  if (why) {
    x->api.xrtBOFree(bo);
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: buffer of %zu bytes at device address 0x%llx %s", x->where, size,
                     (unsigned long long)phys, why);
  }
  x->bos[x->n_bos++] = (xbo){buf, bo};
  buf->phys = phys;
  buf->host = host;
  memset(host, 0, size);
  if (x->api.xrtBOSync(bo, XCL_BO_SYNC_BO_TO_DEVICE, size, 0) != 0) {
    x->bos[--x->n_bos] = (xbo){0};
    x->api.xrtBOFree(bo);
    return OVTA_FAIL(err, OVTA_EIO, "%s: xrtBOSync of a new buffer failed", x->where);
  }
  return OVTA_OK;
}

static void xrt_buf_free(ovta_dev *dev, ovta_buf *buf) {
  xrt_be *x = dev->impl;
  xbo *b = find_bo(x, buf);
  if (!b) return;
  x->api.xrtBOFree(b->bo);
  *b = x->bos[--x->n_bos];
}

static int bo_sync(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, int to_device, ovta_error *err) {
  xrt_be *x = dev->impl;
  xbo *b = find_bo(x, buf);
  if (!b) return OVTA_FAIL(err, OVTA_EINVAL, "%s: buffer at 0x%llx is not one of this device's", x->where,
                           (unsigned long long)buf->phys);
  if (n == 0) return OVTA_OK;
  enum xclBOSyncDirection d = to_device ? XCL_BO_SYNC_BO_TO_DEVICE : XCL_BO_SYNC_BO_FROM_DEVICE;
  if (x->api.xrtBOSync(b->bo, d, n, off) != 0)
    return OVTA_FAIL(err, OVTA_EIO, "%s: xrtBOSync %s of [%zu, +%zu) of the buffer at 0x%llx failed", x->where,
                     to_device ? "to device" : "from device", off, n, (unsigned long long)buf->phys);
  return OVTA_OK;
}
static int xrt_flush(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  return bo_sync(dev, buf, off, n, 1, err);
}
static int xrt_invalidate(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  return bo_sync(dev, buf, off, n, 0, err);
}

static int xrt_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms, ovta_error *err) {
  xrt_be *x = dev->impl;
  ovta_board_io io = {x, k_rd, k_wr, x->where};
  return ovta_board_run(dev, &io, insn_phys, insn_count, timeout_ms, err);
}

const ovta_backend ovta_backend_xrt = {
    .name = "xrt",
    .open = xrt_open,
    .close = xrt_close,
    .run = xrt_run,
    .buf_alloc = xrt_buf_alloc,
    .buf_free = xrt_buf_free,
    .buf_flush = xrt_flush,
    .buf_invalidate = xrt_invalidate,
};
