/* ovta_vboard.h: the virtual board (driver/backend_vboard.c): the Verilator model of hw/rtl
 * (hw/sim/tsim.h) served behind the same memory-mapped register window and DMA memory the "zynq"
 * backend (driver/backend_zynq.c) uses on a real board, so that backend runs unchanged here.
 *
 * A virtual board is a directory (in /dev/shm unless told otherwise) holding
 *   regs                    the register window (4 KiB file; stands in for /dev/uio0)
 *   udmabuf0                the DMA region (stands in for /dev/udmabuf0)
 *   sysfs/udmabuf0/         phys_addr, size, sync_* (stand in for /sys/class/u-dma-buf/udmabuf0)
 *   lock                    held (flock) by the serving process for its whole life
 * and a server thread that watches the register window and drives the model's AXI4-Lite port
 * (tsim_reg_write / tsim_reg_read) and serves the model's DRAM from the DMA region.
 *
 * Register protocol of the window: the server publishes every register's read value; it marks
 * the CTRL words it publishes with bit 31 (unused by the hardware, ignored by the driver), so a
 * CTRL word without it is a fresh write by the driver. Other writable registers (INSN_ADDR,
 * INSN_COUNT) are forwarded when they differ from what the server last published; the server
 * forwards them before the CTRL write that follows them. All updates by the server are
 * compare-and-swap, so a driver write is never lost.
 *
 * The "vboard" backend opens one of these per device (a thread in the process). The same server
 * runs as its own process too: `build/ovta-vboard --config NAME --dir DIR` (boards/vboard_main.c),
 * after which `ovta ... --backend zynq` with OVTA_ZYNQ_REGS=DIR/regs OVTA_ZYNQ_DMA=DIR/udmabuf0
 * OVTA_ZYNQ_DMA_SYSFS=DIR/sysfs/udmabuf0 talks to it as to a board.
 *
 * Stale boards: a server killed with SIGKILL cannot remove its files, but the kernel drops its
 * lock. ovta_vboard_start removes every board directory (ovta-vboard-*) in its base directory
 * whose lock nobody holds (and, with opts.dir, that directory's files when unlocked; a locked
 * one is refused as in use), and lists what it removed in ovta_vboard_cleaned. A client (the
 * zynq backend) creates no files and holds no locks: killing it leaves nothing behind, and the
 * next client's run starts with a soft reset.
 */
#ifndef OVTA_VBOARD_H
#define OVTA_VBOARD_H

#include "ovta_isa.h"

/* Physical address of the virtual board's DMA region (as u-dma-buf would report it). */
#define OVTA_VBOARD_DMA_PHYS 0x10000000ull
/* Bit 31 of a CTRL word published by the server. */
#define OVTA_VBOARD_CTRL_MARK 0x80000000u

typedef struct ovta_vboard ovta_vboard;

typedef struct ovta_vboard_opts {
  const char *dir;        /* directory to create the files in; NULL: a fresh one under
                             $OVTA_VBOARD_DIR, /dev/shm or /tmp (removed again on stop) */
  size_t dma_bytes;       /* size of the DMA region (0: 64 MiB) */
  unsigned dram_latency;  /* model's DRAM read latency in cycles (0: its default) */
  unsigned dram_write_latency; /* model's DRAM write response latency (0: its default) */
  unsigned dram_beats_x16;     /* model's DRAM bandwidth, beats per cycle x 16 (0: 16) */
  uint64_t watchdog_cycles; /* unused by the server (the driver times out); reserved */
  const char *faults;     /* faults for the model's DRAM (hw/sim/README.md, "Faults"), NULL: none */
} ovta_vboard_opts;

/* Create the files, load the model of cfg (as the tsim backend does: $OVTA_TSIM_LIB,
 * $OVTA_TSIM_DIR or build/tsim/CONFIG/libovta_tsim.so) and start serving. */
int ovta_vboard_start(const ovta_config *cfg, const ovta_vboard_opts *opts, ovta_vboard **out, ovta_error *err);
/* Stale board directories removed by ovta_vboard_start ("" when none), space-separated. */
const char *ovta_vboard_cleaned(const ovta_vboard *vb);
/* The directory of the board's files. */
const char *ovta_vboard_dir(const ovta_vboard *vb);
/* A device_path for the zynq backend naming this board's files (regs=...,dma=...,...). */
const char *ovta_vboard_device_path(const ovta_vboard *vb);
/* Register writes forwarded to the model and runs started so far (for tests). */
void ovta_vboard_stats(const ovta_vboard *vb, uint64_t *reg_writes, uint64_t *runs);
/* Stop serving, unload the model, remove the files it created. NULL is a no-op. */
void ovta_vboard_stop(ovta_vboard *vb);

#endif
