/* fuzz_fsim.h: the fsim fuzz target's one-input function, shared with its order test
 * (tests/fuzz/test_fsim_order.c). */
#ifndef OVTA_FUZZ_FSIM_H
#define OVTA_FUZZ_FSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Work budget of every fuzzed run (ovta_dev_opts.work_budget: one unit per instruction executed
 * and per GEMM/ALU micro-op); tests/fuzz/README.md, "fsim", says why this much. */
#ifndef FSIM_FUZZ_BUDGET
#define FSIM_FUZZ_BUDGET 4096u
#endif

/* What a run gave (for tests/fuzz/test_fsim_order.c). */
typedef struct fsim_fuzz_result {
  int rc;          /* the run's code (OVTA_OK when the input was too short to run) */
  uint64_t digest; /* a hash of what the run left: code, message, counters, data buffers, SRAMs */
} fsim_fuzz_result;

/* Run one fuzz input (tests/fuzz/fuzz_fsim.c) on the config's reused device (fresh: on a device
 * opened for it and closed after). res (NULL: the digest is not computed) gets the result.
 * Aborts when a check fails. */
void fsim_fuzz_one(const uint8_t *data, size_t size, bool fresh, fsim_fuzz_result *res);

#endif
