/* fsim.h: the functional simulator, backend "fsim" (isa/ISA.md, exactly; no cycles).
 *
 * Sections:
 *   1. Backend - the driver backend (open it with ovta_dev_open("fsim", ...)).
 *   2. Debug   - read access to the on-chip SRAMs of an open fsim device.
 *
 * Model: fetch dispatches in order into three command queues of CMD_QUEUE_DEPTH; the load,
 * compute and store modules each execute their queue in order, taking and giving tokens in the
 * four dependency queues (L2C, C2L, C2S, S2C) of DEP_QUEUE_DEPTH. A step of a module executes
 * one whole instruction. With opts.seed == 0 the units run in a fixed order (fetch, load,
 * compute, store, each as far as it can, repeated); with a seed each step picks a random
 * runnable unit, so a program that lacks a token can give different results across seeds.
 * See hw/sim/README.md.
 */
#ifndef OVTA_FSIM_H
#define OVTA_FSIM_H

#include "ovta_driver.h"

/* ---------------------------------------------------------------- 1. Backend */

extern const ovta_backend ovta_backend_fsim;

/* Read the wall clock after this much work: micro-ops, with each executed instruction counting 64. */
#define OVTA_FSIM_CLOCK_EVERY 65536u

/* ---------------------------------------------------------------- 2. Debug */

/* The SRAM of a memory type (UOP: the raw 32-bit micro-ops; WGT, INP, OUT: int8; ACC: int32,
 * host order) of an fsim device: *data points at depth * element bytes. Fails with OVTA_EINVAL
 * when dev is not an fsim device or the type is unknown. */
int ovta_fsim_sram(ovta_dev *dev, uint32_t mem_type, const void **data, size_t *bytes, ovta_error *err);

#endif
