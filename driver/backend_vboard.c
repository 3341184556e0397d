/* backend_vboard.c: the virtual board (ovta_vboard.h) and the "vboard" backend.
 *
 * The "vboard" backend starts a virtual board per device and then hands every call, unchanged,
 * to the "zynq" backend (driver/backend_zynq.c) pointed at the board's files: register writes,
 * polling, u-dma-buf cache calls and all. Only the paths differ from a real board.
 * ovta_dev_opts: dram_bytes sizes the DMA region (0: 64 MiB), dram_latency goes to the model,
 * device_path (optional) is the directory to create the board's files in; the files are
 * removed as soon as both sides have opened them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver_impl.h"
#include "ovta_vboard.h"
#include "tsim.h"

#define NWORDS 64 /* registers 0x00..0xFC */
enum { R_CTRL = 0x00, R_INSN_ADDR = 0x0C, R_INSN_COUNT = 0x14 };
static const uint32_t writable[] = {R_INSN_ADDR, R_INSN_COUNT};
static const char *const sysfs_files[] = {"phys_addr", "size", "sync_mode", "dma_coherent", "sync_offset",
                                          "sync_size", "sync_direction", "sync_for_device", "sync_for_cpu"};
#define NSYSFS (sizeof sysfs_files / sizeof sysfs_files[0])

struct ovta_vboard {
  char dir[512];             /* the board's directory */
  bool made_dir;             /* we created it */
  char devpath[2200];        /* device_path for the zynq backend */
  int regs_fd, dma_fd;
  int lock_fd;               /* DIR/lock, flock'ed while serving */
  char cleaned[1024];        /* stale board directories removed at start */
  uint32_t *regs;            /* the register window (4 KiB) */
  uint8_t *dma;              /* the DMA region */
  size_t dma_size;
  void *so;                  /* the model */
  tsim *t;
  tsim_destroy_fn destroy;
  tsim_reg_read_fn rr;
  tsim_reg_write_fn rw;
  pthread_t th;
  bool started;
  int stop;                  /* atomic: ask the server to stop */
  uint32_t shadow[NWORDS];   /* what the server last published in the writable registers */
  uint64_t n_writes, n_runs; /* atomic: statistics */
};

/* ---------------------------------------------------------------- model DRAM */

static int dram_inside(void *ctx, uint64_t phys, uint64_t len) {
  ovta_vboard *v = ctx;
  return phys >= OVTA_VBOARD_DMA_PHYS && len <= v->dma_size && phys - OVTA_VBOARD_DMA_PHYS <= v->dma_size - len;
}
static void *dram_host(void *ctx, uint64_t phys, uint64_t len) {
  ovta_vboard *v = ctx;
  return dram_inside(ctx, phys, len) ? v->dma + (phys - OVTA_VBOARD_DMA_PHYS) : NULL;
}

/* ---------------------------------------------------------------- server */

static uint32_t ld(ovta_vboard *v, uint32_t addr) { return __atomic_load_n(&v->regs[addr / 4], __ATOMIC_ACQUIRE); }
static bool cas(ovta_vboard *v, uint32_t addr, uint32_t expect, uint32_t val) {
  return __atomic_compare_exchange_n(&v->regs[addr / 4], &expect, val, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
static bool is_writable(uint32_t addr) {
  for (size_t i = 0; i < sizeof writable / sizeof writable[0]; i++)
    if (writable[i] == addr) return true;
  return false;
}

/* Publish every register but CTRL: read-only ones plainly, writable ones unless the driver wrote
 * them meanwhile. */
static void publish_all(ovta_vboard *v) {
  for (uint32_t a = 4; a < 4 * NWORDS; a += 4) {
    uint32_t val = v->rr(v->t, a);
    if (is_writable(a)) {
      if (cas(v, a, v->shadow[a / 4], val)) v->shadow[a / 4] = val;
    } else {
      __atomic_store_n(&v->regs[a / 4], val, __ATOMIC_RELEASE);
    }
  }
}

/* Publish CTRL (marked) unless a driver write is pending. */
static void publish_ctrl(ovta_vboard *v, uint32_t val) {
  for (;;) {
    uint32_t cur = ld(v, R_CTRL);
    if (!(cur & OVTA_VBOARD_CTRL_MARK)) return;
    if (cas(v, R_CTRL, cur, val | OVTA_VBOARD_CTRL_MARK)) return;
  }
}

static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void *serve(void *arg) {
  ovta_vboard *v = arg;
  bool running = false;
  uint64_t last_pub = 0;
  unsigned idle_us = 5;
  while (!__atomic_load_n(&v->stop, __ATOMIC_ACQUIRE)) {
    bool busy = false;
    /* CTRL first: everything the driver wrote before it is visible once it is */
    uint32_t c = ld(v, R_CTRL);
    for (size_t i = 0; i < sizeof writable / sizeof writable[0]; i++) {
      uint32_t a = writable[i], val = ld(v, a);
      if (val == v->shadow[a / 4]) continue;
      v->rw(v->t, a, val);
      __atomic_add_fetch(&v->n_writes, 1, __ATOMIC_RELAXED);
      uint32_t back = v->rr(v->t, a);
      v->shadow[a / 4] = cas(v, a, val, back) ? back : val;
      busy = true;
    }
    if (!(c & OVTA_VBOARD_CTRL_MARK)) {
      v->rw(v->t, R_CTRL, c);
      __atomic_add_fetch(&v->n_writes, 1, __ATOMIC_RELAXED);
      if (c & 1) __atomic_add_fetch(&v->n_runs, 1, __ATOMIC_RELAXED);
      uint32_t now = v->rr(v->t, R_CTRL);
      running = now & 1;
      /* not running (reset, or a run that ended at once): its results first, then CTRL */
      if (!running) publish_all(v);
      cas(v, R_CTRL, c, now | OVTA_VBOARD_CTRL_MARK);
      last_pub = now_us();
      busy = true;
    }
    if (running) {
      /* each register read clocks the model a few cycles */
      uint32_t now = 1;
      for (int i = 0; i < 256 && (now & 1); i++) now = v->rr(v->t, R_CTRL);
      if (!(now & 1)) {
        running = false;
        publish_all(v);
        publish_ctrl(v, now);
      } else if (now_us() - last_pub > 5000) {
        publish_all(v); /* so a driver that gives up sees the unit states of now */
        last_pub = now_us();
      }
      busy = true;
    }
    if (busy) {
      idle_us = 5;
    } else {
      struct timespec ts = {0, (long)idle_us * 1000};
      nanosleep(&ts, NULL);
      if (idle_us < 200) idle_us *= 2;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- board files */

static int write_file(const char *path, const char *text, ovta_error *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return OVTA_FAIL(err, OVTA_EIO, "vboard: cannot create %s: %s", path, strerror(errno));
  size_t n = strlen(text);
  ssize_t w = write(fd, text, n);
  close(fd);
  if (w != (ssize_t)n) return OVTA_FAIL(err, OVTA_EIO, "vboard: cannot write %s", path);
  return OVTA_OK;
}

static int make_sized(const char *path, size_t bytes, int *fd_out, void **map_out, ovta_error *err) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return OVTA_FAIL(err, OVTA_EIO, "vboard: cannot create %s: %s", path, strerror(errno));
  *fd_out = fd;
  if (ftruncate(fd, (off_t)bytes) < 0)
    return OVTA_FAIL(err, OVTA_EIO, "vboard: cannot size %s to %zu bytes: %s", path, bytes, strerror(errno));
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) return OVTA_FAIL(err, OVTA_EIO, "vboard: mmap of %s: %s", path, strerror(errno));
  *map_out = m;
  return OVTA_OK;
}

static void remove_files(ovta_vboard *v) {
  char p[700];
  for (size_t i = 0; i < NSYSFS; i++) {
    snprintf(p, sizeof p, "%s/sysfs/udmabuf0/%s", v->dir, sysfs_files[i]);
    unlink(p);
  }
  snprintf(p, sizeof p, "%s/sysfs/udmabuf0", v->dir);
  rmdir(p);
  snprintf(p, sizeof p, "%s/sysfs", v->dir);
  rmdir(p);
  snprintf(p, sizeof p, "%s/regs", v->dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/udmabuf0", v->dir);
  unlink(p);
  snprintf(p, sizeof p, "%s/lock", v->dir);
  unlink(p);
  if (v->made_dir) rmdir(v->dir);
}

/* ---------------------------------------------------------------- stale boards */

/* Is the board directory `dir` stale: its lock file exists and nobody holds it, or it has no
 * lock file and is older than a minute (a server killed before it made one)? */
static bool board_stale(const char *dir) {
  char p[700];
  snprintf(p, sizeof p, "%s/lock", dir);
  int fd = open(p, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    struct stat st;
    return errno == ENOENT && stat(dir, &st) == 0 && time(NULL) - st.st_mtime > 60;
  }
  bool free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
  close(fd); /* drops the lock again */
  return free_;
}

/* Remove the files a board creates in dir (and dir itself when rm_dir). */
static void remove_board(const char *dir, bool rm_dir) {
  DIR *d = opendir(dir); /* a lock.PID of a server killed before it renamed it (take_lock) */
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "lock.", 5)) continue;
    char p[800];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    unlink(p);
  }
  if (d) closedir(d);
  ovta_vboard tmp;
  memset(&tmp, 0, sizeof tmp);
  snprintf(tmp.dir, sizeof tmp.dir, "%s", dir);
  tmp.made_dir = rm_dir;
  remove_files(&tmp);
}

static void note_cleaned(ovta_vboard *v, const char *dir) {
  size_t n = strlen(v->cleaned);
  snprintf(v->cleaned + n, sizeof v->cleaned - n, "%s%s", n ? " " : "", dir);
}

/* Remove the stale ovta-vboard-* directories under base. */
static void clean_stale(ovta_vboard *v, const char *base) {
  DIR *d = opendir(base);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "ovta-vboard-", 12)) continue;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", base, e->d_name);
    if (!board_stale(dir)) continue;
    remove_board(dir, true);
    note_cleaned(v, dir);
  }
  closedir(d);
}

/* Create DIR/lock and hold it (flock) while the board lives. It is made and locked under
 * another name and then renamed, so a `lock` another process sees is always locked already. */
static int take_lock(ovta_vboard *v, ovta_error *err) {
  char p[700], tmp[720];
  snprintf(p, sizeof p, "%s/lock", v->dir);
  int held = open(p, O_RDWR | O_CLOEXEC);
  if (held >= 0) {
    bool busy = flock(held, LOCK_EX | LOCK_NB) < 0;
    close(held);
    if (busy)
      return OVTA_FAIL(err, OVTA_EIO, "vboard: %s is in use by another virtual board (its lock %s is held)", v->dir, p);
  }
  snprintf(tmp, sizeof tmp, "%s/lock.%ld", v->dir, (long)getpid());
  v->lock_fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (v->lock_fd < 0) return OVTA_FAIL(err, OVTA_EIO, "vboard: cannot create %s: %s", tmp, strerror(errno));
  if (flock(v->lock_fd, LOCK_EX | LOCK_NB) < 0 || rename(tmp, p) < 0) {
    unlink(tmp);
    return OVTA_FAIL(err, OVTA_EIO, "vboard: cannot lock %s: %s", p, strerror(errno));
  }
  return OVTA_OK;
}

static int load_model(ovta_vboard *v, const ovta_config *c, const ovta_vboard_opts *o, ovta_error *err) {
  char path[1024];
  const char *lib = getenv("OVTA_TSIM_LIB"), *dir = getenv("OVTA_TSIM_DIR");
  if (lib && *lib) snprintf(path, sizeof path, "%s", lib);
  else if (dir && *dir) snprintf(path, sizeof path, "%s/%s/libovta_tsim.so", dir, c->name);
  else snprintf(path, sizeof path, "%s/build/tsim/%s/libovta_tsim.so", OVTA_SRC_DIR, c->name);
  v->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!v->so)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "vboard: cannot load the model of config '%s' (%s); build it with "
                     "`make tsim-%s`", c->name, dlerror(), c->name);
  tsim_get_info_fn info = (tsim_get_info_fn)dlsym(v->so, "tsim_get_info");
  tsim_create_fn create = (tsim_create_fn)dlsym(v->so, "tsim_create");
  v->destroy = (tsim_destroy_fn)dlsym(v->so, "tsim_destroy");
  v->rr = (tsim_reg_read_fn)dlsym(v->so, "tsim_reg_read");
  v->rw = (tsim_reg_write_fn)dlsym(v->so, "tsim_reg_write");
  if (!info || !create || !v->destroy || !v->rr || !v->rw)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "vboard: %s lacks the tsim_* entry points", path);
  tsim_info in;
  info(&in);
  if (in.api_version != TSIM_API_VERSION || in.log_batch != c->log_batch || in.log_block != c->log_block ||
      in.axi_data_bits != c->axi_data_bits || in.uop_depth != c->uop_depth || in.inp_depth != c->inp_depth ||
      in.wgt_depth != c->wgt_depth || in.acc_depth != c->acc_depth)
    return OVTA_FAIL(err, OVTA_ECONFIG, "vboard: %s was built for config '%s', which does not match config '%s'",
                     path, in.config, c->name);
  tsim_dram d = {v, dram_inside, dram_host};
  tsim_opts to = {0};
  to.read_latency = o ? o->dram_latency : 0;
  to.write_latency = o ? o->dram_write_latency : 0;
  to.beats_per_cycle_x16 = o ? o->dram_beats_x16 : 0;
  int frc = ovta_tsim_faults_parse(o ? o->faults : NULL, to.faults, err);
  if (frc) return frc;
  char msg[512] = "";
  v->t = create(&d, &to, msg, sizeof msg);
  if (!v->t) return OVTA_FAIL(err, OVTA_EINTERNAL, "vboard: %s", msg);
  return OVTA_OK;
}

int ovta_vboard_start(const ovta_config *cfg, const ovta_vboard_opts *opts, ovta_vboard **out, ovta_error *err) {
  if (!out) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_vboard_start: out is NULL");
  *out = NULL;
  if (!cfg) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_vboard_start: config is NULL");
  ovta_vboard *v = calloc(1, sizeof *v);
  if (!v) return OVTA_FAIL(err, OVTA_ENOMEM, "vboard: out of host memory");
  v->regs_fd = v->dma_fd = v->lock_fd = -1;
  v->dma_size = opts && opts->dma_bytes ? opts->dma_bytes : (64u << 20);
  v->dma_size = (v->dma_size + 4095) & ~(size_t)4095;
  int rc = OVTA_OK;
  if (cfg->axi_addr_bits < 64 && OVTA_VBOARD_DMA_PHYS + v->dma_size > (1ull << cfg->axi_addr_bits))
    rc = OVTA_FAIL(err, OVTA_EINVAL, "vboard: a DMA region of %zu bytes at 0x%llx does not fit %d address bits",
                   v->dma_size, (unsigned long long)OVTA_VBOARD_DMA_PHYS, cfg->axi_addr_bits);
  if (!rc && opts && opts->dir && *opts->dir) {
    snprintf(v->dir, sizeof v->dir, "%s", opts->dir);
    if (mkdir(v->dir, 0700) == 0) {
      v->made_dir = true;
    } else if (errno != EEXIST) {
      rc = OVTA_FAIL(err, OVTA_EIO, "vboard: cannot create %s: %s", v->dir, strerror(errno));
    } else {
      char lp[700];
      struct stat st;
      snprintf(lp, sizeof lp, "%s/lock", v->dir);
      if (stat(lp, &st) == 0 && board_stale(v->dir)) { /* a killed server's files: clean them */
        remove_board(v->dir, false);
        note_cleaned(v, v->dir);
      }
    }
  } else if (!rc) {
    const char *base = getenv("OVTA_VBOARD_DIR");
    struct stat st;
    if (!base || !*base) base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    clean_stale(v, base);
    snprintf(v->dir, sizeof v->dir, "%s/ovta-vboard-XXXXXX", base);
    if (mkdtemp(v->dir)) v->made_dir = true;
    else rc = OVTA_FAIL(err, OVTA_EIO, "vboard: cannot create a directory in %s: %s", base, strerror(errno));
  }
  if (!rc) rc = take_lock(v, err);
  char p[700], text[64];
  if (!rc) {
    snprintf(p, sizeof p, "%s/regs", v->dir);
    rc = make_sized(p, 4096, &v->regs_fd, (void **)&v->regs, err);
  }
  if (!rc) {
    snprintf(p, sizeof p, "%s/udmabuf0", v->dir);
    rc = make_sized(p, v->dma_size, &v->dma_fd, (void **)&v->dma, err);
  }
  if (!rc) {
    snprintf(p, sizeof p, "%s/sysfs", v->dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/sysfs/udmabuf0", v->dir);
    if (mkdir(p, 0700) < 0 && errno != EEXIST)
      rc = OVTA_FAIL(err, OVTA_EIO, "vboard: cannot create %s: %s", p, strerror(errno));
  }
  for (size_t i = 0; !rc && i < NSYSFS; i++) {
    snprintf(p, sizeof p, "%s/sysfs/udmabuf0/%s", v->dir, sysfs_files[i]);
    if (i == 0) snprintf(text, sizeof text, "0x%llx\n", (unsigned long long)OVTA_VBOARD_DMA_PHYS);
    else if (i == 1) snprintf(text, sizeof text, "%zu\n", v->dma_size);
    else if (i == 2) snprintf(text, sizeof text, "1\n");
    else snprintf(text, sizeof text, "0\n");
    rc = write_file(p, text, err);
  }
  if (!rc) rc = load_model(v, cfg, opts, err);
  if (!rc) {
    /* the window as the hardware shows it after reset */
    publish_all(v);
    __atomic_store_n(&v->regs[0], v->rr(v->t, R_CTRL) | OVTA_VBOARD_CTRL_MARK, __ATOMIC_RELEASE);
    snprintf(v->devpath, sizeof v->devpath, "regs=%s/regs,dma=%s/udmabuf0,dma_sysfs=%s/sysfs/udmabuf0,cache=sync",
             v->dir, v->dir, v->dir);
    int e = pthread_create(&v->th, NULL, serve, v);
    if (e) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "vboard: cannot start the server thread: %s", strerror(e));
    else v->started = true;
  }
  if (rc) {
    ovta_vboard_stop(v);
    return rc;
  }
  *out = v;
  return OVTA_OK;
}

const char *ovta_vboard_dir(const ovta_vboard *vb) { return vb ? vb->dir : NULL; }
const char *ovta_vboard_cleaned(const ovta_vboard *vb) { return vb ? vb->cleaned : ""; }
const char *ovta_vboard_device_path(const ovta_vboard *vb) { return vb ? vb->devpath : NULL; }

void ovta_vboard_stats(const ovta_vboard *vb, uint64_t *reg_writes, uint64_t *runs) {
  if (reg_writes) *reg_writes = vb ? __atomic_load_n(&vb->n_writes, __ATOMIC_RELAXED) : 0;
  if (runs) *runs = vb ? __atomic_load_n(&vb->n_runs, __ATOMIC_RELAXED) : 0;
}

void ovta_vboard_stop(ovta_vboard *v) {
  if (!v) return;
  if (v->started) {
    __atomic_store_n(&v->stop, 1, __ATOMIC_RELEASE);
    pthread_join(v->th, NULL);
  }
  if (v->t) v->destroy(v->t);
  if (v->so) dlclose(v->so);
  if (v->regs) munmap(v->regs, 4096);
  if (v->dma) munmap(v->dma, v->dma_size);
  if (v->regs_fd >= 0) close(v->regs_fd);
  if (v->dma_fd >= 0) close(v->dma_fd);
  if (v->dir[0]) remove_files(v);
  if (v->lock_fd >= 0) close(v->lock_fd); /* after the files are gone: no one can take it over */
  free(v);
}

/* ---------------------------------------------------------------- the "vboard" backend */

typedef struct vb_be {
  ovta_vboard *vb;
  void *zynq; /* the zynq backend's state */
} vb_be;

/* Call the zynq backend with its own state in dev->impl. */
#define ZYNQ_CALL(dev, expr)                                                                       \
  do {                                                                                             \
    vb_be *b_ = (dev)->impl;                                                                       \
    (dev)->impl = b_->zynq;                                                                        \
    expr;                                                                                          \
    b_->zynq = (dev)->impl;                                                                        \
    (dev)->impl = b_;                                                                              \
  } while (0)

static int vb_open(ovta_dev *dev, const ovta_dev_opts *opts, ovta_error *err) {
  vb_be *b = calloc(1, sizeof *b);
  if (!b) return OVTA_FAIL(err, OVTA_ENOMEM, "vboard: out of host memory");
  ovta_vboard_opts vo = {0};
  vo.dir = opts->device_path;
  vo.dma_bytes = opts->dram_bytes;
  vo.dram_latency = opts->dram_latency;
  vo.dram_write_latency = opts->dram_write_latency;
  vo.dram_beats_x16 = opts->dram_beats_x16;
  vo.faults = ovta_tsim_faults_spec(opts);
  int rc = ovta_vboard_start(&dev->cfg, &vo, &b->vb, err);
  if (rc) {
    free(b);
    return rc;
  }
  ovta_dev_opts zo = *opts;
  zo.device_path = ovta_vboard_device_path(b->vb);
  rc = ovta_backend_zynq.open(dev, &zo, err);
  if (rc) {
    ovta_vboard_stop(b->vb);
    free(b);
    return rc;
  }
  b->zynq = dev->impl;
  dev->impl = b;
  if (opts->verbose && ovta_vboard_cleaned(b->vb)[0])
    fprintf(stderr, "vboard: removed stale board directories (their servers are gone): %s\n",
            ovta_vboard_cleaned(b->vb));
  /* both sides hold descriptors and mappings now: the names can go, so nothing is left behind
     in /dev/shm even when the process dies without closing the device */
  remove_files(b->vb);
  b->vb->dir[0] = 0;
  return OVTA_OK;
}

static void vb_close(ovta_dev *dev) {
  vb_be *b = dev->impl;
  if (!b) return;
  ZYNQ_CALL(dev, ovta_backend_zynq.close(dev));
  ovta_vboard_stop(b->vb);
  free(b);
  dev->impl = NULL;
}

static int vb_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms, ovta_error *err) {
  int rc;
  ZYNQ_CALL(dev, rc = ovta_backend_zynq.run(dev, insn_phys, insn_count, timeout_ms, err));
  return rc;
}
static int vb_buf_alloc(ovta_dev *dev, size_t size, ovta_buf *buf, ovta_error *err) {
  int rc;
  ZYNQ_CALL(dev, rc = ovta_backend_zynq.buf_alloc(dev, size, buf, err));
  return rc;
}
static void vb_buf_free(ovta_dev *dev, ovta_buf *buf) { ZYNQ_CALL(dev, ovta_backend_zynq.buf_free(dev, buf)); }
static int vb_flush(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  int rc;
  ZYNQ_CALL(dev, rc = ovta_backend_zynq.buf_flush(dev, buf, off, n, err));
  return rc;
}
static int vb_invalidate(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err) {
  int rc;
  ZYNQ_CALL(dev, rc = ovta_backend_zynq.buf_invalidate(dev, buf, off, n, err));
  return rc;
}

const ovta_backend ovta_backend_vboard = {
    .name = "vboard",
    .open = vb_open,
    .close = vb_close,
    .run = vb_run,
    .buf_alloc = vb_buf_alloc,
    .buf_free = vb_buf_free,
    .buf_flush = vb_flush,
    .buf_invalidate = vb_invalidate,
};
