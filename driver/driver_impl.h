/* driver_impl.h: driver internals shared by the backends (not part of the public API).
 *
 * A backend is one file driver/backend_NAME.c defining one `const ovta_backend ovta_backend_NAME`
 * plus one line in the table in driver/driver.c. The simulator backends (fsim, tsim) adapt a
 * driver-independent simulator API (hw/sim/fsim.h, hw/sim/tsim.h) to the driver.
 *
 * Sections:
 *   1. Simulated DRAM - driver/simdram.c: the physical memory of the simulator backends.
 *   2. Devices        - struct ovta_dev, what every backend sees.
 *   3. Backend table  - the backends the driver knows. fsim is always built (its table entry is
 *                       unconditional); every backend driver/backend_NAME.c is compiled in when
 *                       its file exists (driver/driver.mk then defines OVTA_BACKEND_NAME for
 *                       driver/driver.c).
 *   4. Helpers        - small things backends share (wall clock for timeouts).
 */
#ifndef OVTA_DRIVER_IMPL_H
#define OVTA_DRIVER_IMPL_H

#include "ovta_driver.h"

/* ---------------------------------------------------------------- 1. Simulated DRAM */

/* Physical address where simulated DRAM starts (nonzero, so phys 0 is never valid). */
#define OVTA_SIMDRAM_BASE 0x10000000ull

typedef struct ovta_simdram ovta_simdram;

/* Reserve `bytes` of simulated DRAM at physical address `base` (mmap'd lazily: untouched pages
 * cost nothing). Every allocation is aligned to `align` bytes (a power of two >= 64). */
int ovta_simdram_open(uint64_t base, size_t bytes, size_t align, ovta_simdram **out, ovta_error *err);
void ovta_simdram_close(ovta_simdram *d);
/* First-fit allocation of `size` bytes (> 0), zero-filled; *phys gets its address. `tag` is
 * kept with it (the driver stores the ovta_buf). OVTA_ENOMEM when no gap is large enough. */
int ovta_simdram_alloc(ovta_simdram *d, size_t size, void *tag, uint64_t *phys, ovta_error *err);
/* Free the allocation starting at phys (no-op when there is none); its memory is zeroed. */
void ovta_simdram_free(ovta_simdram *d, uint64_t phys);
/* Is [phys, phys+len) entirely inside one live allocation? (the ISA's DRAM bounds rule; len 0
 * asks about the single address phys). O(1) for repeated hits on one allocation, else
 * O(log allocations). */
bool ovta_simdram_inside(ovta_simdram *d, uint64_t phys, uint64_t len);
/* The tag of the live allocation containing phys, or NULL. */
void *ovta_simdram_find(ovta_simdram *d, uint64_t phys);
/* Host pointer for [phys, phys+len) when the range lies inside the DRAM region (allocated or
 * not), else NULL. Valid until ovta_simdram_close. */
void *ovta_simdram_host(ovta_simdram *d, uint64_t phys, uint64_t len);
/* The region: first physical address and size in bytes. */
uint64_t ovta_simdram_base(const ovta_simdram *d);
size_t ovta_simdram_size(const ovta_simdram *d);
/* Number of live allocations. */
size_t ovta_simdram_count(const ovta_simdram *d);

/* ---------------------------------------------------------------- 2. Devices */

struct ovta_dev {
  const ovta_backend *backend; /* the backend's function table */
  ovta_config cfg;             /* copy of the config the device was opened with */
  ovta_isa isa;                /* field layout for cfg */
  ovta_dev_opts opts;          /* copy of the options (strings still owned by the caller) */
  ovta_counters counters;      /* counters of the last run: zeroed by ovta_dev_run before the
                                  backend's run, filled by the backend */
  ovta_simdram *dram;          /* simulated DRAM (backends with buf_alloc == NULL), else NULL */
  size_t buf_align;            /* alignment of every buffer: >= 64 and >= every element size */
  ovta_buf **bufs;             /* live buffers (unsorted), for ovta_buf_find and close */
  size_t n_bufs, cap_bufs;     /* count and capacity of bufs */
  void *impl;                  /* the backend's own state (set by backend->open) */
};

/* ---------------------------------------------------------------- 3. Backend table */

/* Defined by each backend's file. */
extern const ovta_backend ovta_backend_fsim;   /* driver/backend_fsim.c (always built) */
extern const ovta_backend ovta_backend_tsim;   /* driver/backend_tsim.c (OVTA_BACKEND_TSIM) */
extern const ovta_backend ovta_backend_zynq;   /* driver/backend_zynq.c (OVTA_BACKEND_ZYNQ) */
extern const ovta_backend ovta_backend_xrt;    /* driver/backend_xrt.c (OVTA_BACKEND_XRT) */
extern const ovta_backend ovta_backend_vboard; /* driver/backend_vboard.c (OVTA_BACKEND_VBOARD) */

/* The backend of that name, or NULL. */
const ovta_backend *ovta_backend_find(const char *name);

/* ---------------------------------------------------------------- 4. Helpers */

struct tsim_fault;
/* Parse a fault spec (hw/sim/README.md, "Faults") into at most TSIM_MAX_FAULTS entries of out
 * (zeroed first); NULL or "" is no fault. driver/backend_tsim.c; used by the vboard too. */
int ovta_tsim_faults_parse(const char *spec, struct tsim_fault *out, ovta_error *err);
/* The fault spec of a device: opts->faults, else $OVTA_TSIM_FAULT, else NULL. */
const char *ovta_tsim_faults_spec(const ovta_dev_opts *opts);

/* Monotonic wall time in milliseconds. */
uint64_t ovta_now_ms(void);

#endif
