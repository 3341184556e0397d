/* ovta_driver.h: one C API for every backend.
 *
 * Backends: "fsim" (the functional simulator of hw/sim/fsim.h), "tsim" (the Verilator model of
 * hw/rtl, hw/sim/tsim.h) and the board backends ("zynq", "xrt", "vboard"). Every backend is a
 * file driver/backend_NAME.c; the simulators' own APIs under hw/sim/ know nothing of the driver.
 * A program is a stream of 16-byte
 * instructions in a DMA buffer; the device runs it against DRAM and reports done or an error.
 *
 * Sections:
 *   1. Devices   - open, close, run, counters.
 *   2. Buffers   - physically contiguous DMA buffers with physical addresses.
 *   3. Backends  - what a backend implements (driver/driver.c keeps the table).
 *   4. Debug     - backend-specific inspection (fsim's SRAMs).
 *
 * Every function that can fail returns an ovta_rc and fills the ovta_error (may be NULL).
 * Nothing here aborts or exits on bad input.
 */
#ifndef OVTA_DRIVER_H
#define OVTA_DRIVER_H

#include "ovta_isa.h"

/* Default size of simulated DRAM (ovta_dev_opts.dram_bytes = 0). */
#define OVTA_SIMDRAM_DEFAULT_BYTES (256ull << 20)

typedef struct ovta_dev ovta_dev;
typedef struct ovta_buf ovta_buf;

/* ---------------------------------------------------------------- 1. Devices */

/* Options for ovta_dev_open; a zeroed struct gives the defaults. */
typedef struct ovta_dev_opts {
  size_t dram_bytes;       /* simulators: size of simulated DRAM (0: 256 MiB; a plan raises it to fit) */
  uint64_t seed;           /* fsim: 0 runs the modules in a fixed order; otherwise interleaves
                              them in a random order (from this seed) that the tokens allow */
  const char *trace_path;  /* tsim: write an FST waveform here (NULL: none) */
  const char *chrome_trace_path; /* tsim: write a Chrome trace JSON timeline (NULL: none) */
  uint64_t watchdog_cycles;/* tsim: stop a run with no progress for this long (0: default) */
  unsigned dram_latency;   /* tsim, vboard: DRAM read latency in cycles, AR to first R beat (0: 32) */
  unsigned dram_write_latency; /* tsim, vboard: cycles from the last W beat to B (0: 16) */
  unsigned dram_beats_x16; /* tsim, vboard: DRAM bandwidth in bus beats per cycle x 16, 1..16
                              (0: 16, one beat per cycle; 8: a beat every other cycle) */
  unsigned verbose;        /* 0 quiet, 1 progress, 2 per-instruction trace on stderr */
  const char *device_path; /* boards: UIO device or register window file (NULL: default) */
  const char *faults;      /* tsim, vboard: faults the DRAM model injects (hw/sim/README.md,
                              "Faults": "rresp@3", "bresp@1=decerr", "stall@2:5000000", ...);
                              NULL: $OVTA_TSIM_FAULT when set, else none */
  uint64_t work_budget;    /* fsim: a run doing more work than this stops with OVTA_ETIMEOUT
                              ("timeout after a work budget of N units ..."), deterministically,
                              whatever the load (0: no limit; other backends refuse it). Units:
                              one per instruction executed and per GEMM/ALU micro-op
                              (hw/sim/fsim.h) */
} ovta_dev_opts;

/* Open a device. `backend` is a name from ovta_backend_names(); cfg must stay valid. */
int ovta_dev_open(const char *backend, const ovta_config *cfg, const ovta_dev_opts *opts,
                  ovta_dev **out, ovta_error *err);
/* Close a device; buffers still allocated on it are freed too. NULL is a no-op. */
void ovta_dev_close(ovta_dev *dev);
const ovta_config *ovta_dev_config(const ovta_dev *dev);
const ovta_isa *ovta_dev_isa(const ovta_dev *dev);
const char *ovta_dev_backend(const ovta_dev *dev);

/* Run insn_count (> 0) instructions at physical address insn_phys; returns when done, on an error
 * (OVTA_EINSN, OVTA_EDEADLOCK, ...: the message names the instruction index and module state),
 * on an AXI error response of the memory bus (OVTA_EIO: "instruction N (OP, unit): AXI read
 * error response SLVERR ..."), or after timeout_ms of wall time (OVTA_ETIMEOUT; 0: no limit;
 * the message lists what each unit and queue was doing) or, on fsim, past the device's
 * work_budget (OVTA_ETIMEOUT, "timeout after a work budget of N units ..."). After an error the device is
 * soft-reset before the call returns, and every run starts with a soft reset, so the device can
 * run again after any error. */
int ovta_dev_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms,
                 ovta_error *err);
/* Counters of the last run (ovta_counters is defined in ovta_isa.h, "Counters"). */
void ovta_dev_counters(const ovta_dev *dev, ovta_counters *out);
/* Counters as a JSON object (caller frees); NULL on out of memory. */
char *ovta_counters_to_json(const ovta_counters *c);

/* Names of the backends compiled in, NULL-terminated. */
const char *const *ovta_backend_names(void);

/* ---------------------------------------------------------------- 2. Buffers */

/* A DMA buffer: physically contiguous memory the device reads and writes. */
struct ovta_buf {
  ovta_dev *dev;     /* owner */
  uint64_t phys;     /* physical address, what instructions point at */
  void *host;        /* host mapping: after writing it call ovta_buf_flush, before reading
                        device results ovta_buf_invalidate (no-ops on simulators) */
  size_t size;       /* bytes */
};

/* Allocate `size` bytes aligned to at least 64 bytes and to the largest element size of the
 * config, so phys / ovta_elem_bytes(cfg, type) is an exact element index for every memory type
 * (zero-filled on simulators). */
int ovta_buf_alloc(ovta_dev *dev, size_t size, ovta_buf **out, ovta_error *err);
void ovta_buf_free(ovta_buf *buf);
/* Copy into / out of a buffer, with bounds checks; write flushes, read invalidates. */
int ovta_buf_write(ovta_buf *buf, size_t off, const void *src, size_t n, ovta_error *err);
int ovta_buf_read(ovta_buf *buf, size_t off, void *dst, size_t n, ovta_error *err);
int ovta_buf_flush(ovta_buf *buf, size_t off, size_t n, ovta_error *err);
int ovta_buf_invalidate(ovta_buf *buf, size_t off, size_t n, ovta_error *err);
/* The buffer holding physical address `phys`, or NULL. */
ovta_buf *ovta_buf_find(ovta_dev *dev, uint64_t phys);

/* ---------------------------------------------------------------- 3. Backends */

/* What a backend implements. Simulator backends get DRAM from driver/simdram.c. */
typedef struct ovta_backend {
  const char *name;                /* "fsim", "tsim", ... */
  int (*open)(ovta_dev *dev, const ovta_dev_opts *opts, ovta_error *err); /* sets dev->impl */
  void (*close)(ovta_dev *dev);
  int (*run)(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms,
             ovta_error *err);
  /* buffers: NULL to use the simulated DRAM of driver/simdram.c */
  int (*buf_alloc)(ovta_dev *dev, size_t size, ovta_buf *buf, ovta_error *err);
  void (*buf_free)(ovta_dev *dev, ovta_buf *buf);
  int (*buf_flush)(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err);
  int (*buf_invalidate)(ovta_dev *dev, ovta_buf *buf, size_t off, size_t n, ovta_error *err);
} ovta_backend;

/* ---------------------------------------------------------------- 4. Debug */

/* The SRAM of a memory type (UOP: the raw 32-bit micro-ops; WGT, INP, OUT: int8; ACC: int32,
 * host order) of an fsim device (driver/backend_fsim.c): *data points at depth * element bytes.
 * Fails with OVTA_EINVAL when dev is not an fsim device or the type is unknown. */
int ovta_fsim_sram(ovta_dev *dev, uint32_t mem_type, const void **data, size_t *bytes, ovta_error *err);
/* Return an fsim device to its state at open, with `seed` as its interleaving seed from now on
 * (ovta_dev_opts.seed): SRAMs zeroed (only those written since, so cheap after small programs).
 * Buffers are left alone: with every buffer freed too (freed DRAM reads as zero), the next run
 * gives what it gives on a freshly opened device (a fuzz target reuses one device this way).
 * Fails with OVTA_EINVAL when dev is not an fsim device. */
int ovta_fsim_reset(ovta_dev *dev, uint64_t seed, ovta_error *err);

#endif
