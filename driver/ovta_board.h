/* ovta_board.h: the register protocol of the board backends (driver internals, not public API).
 *
 * driver/backend_zynq.c implements it once over any register access (hw/rtl/README.md register
 * map): the zynq backend through an mmap'd window, the xrt backend through XRT's kernel register
 * calls, the vboard backend through the zynq backend.
 */
#ifndef OVTA_BOARD_H
#define OVTA_BOARD_H

#include "driver_impl.h"

/* 32-bit register access at a byte offset of the AXI4-Lite window. */
typedef struct ovta_board_io {
  void *ctx;
  uint32_t (*rd)(void *ctx, uint32_t off);
  void (*wr)(void *ctx, uint32_t off, uint32_t v);
  const char *where; /* for messages: "zynq /dev/uio0", "xrt device 0" */
} ovta_board_io;

/* CONFIG_ID register (0x18) value the accelerator built for cfg reads. */
uint32_t ovta_board_config_id(const ovta_config *cfg);
/* Check a CONFIG_ID read back against cfg: OVTA_ECONFIG naming `where` when it differs. */
int ovta_board_check_id(const ovta_config *cfg, uint32_t id, const char *where, ovta_error *err);
/* A run: the stream must lie in one of dev's buffers (its host copy is read); every
 * LOAD/STORE row is checked against the buffers; then soft reset, INSN_ADDR, INSN_COUNT, start,
 * poll (timeout_ms, 0: none), status, counters into dev->counters. */
int ovta_board_run(ovta_dev *dev, const ovta_board_io *io, uint64_t insn_phys, uint32_t insn_count,
                   uint32_t timeout_ms, ovta_error *err);

#endif
