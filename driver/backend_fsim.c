/* backend_fsim.c: the "fsim" backend: the functional simulator (hw/sim/fsim.h) running against
 * the driver's simulated DRAM (driver/simdram.c), plus ovta_fsim_sram and ovta_fsim_reset
 * (ovta_driver.h).
 */
#include "driver_impl.h"
#include "fsim.h"

/* fsim_dram.host: the host address of [phys, phys+len) when it lies inside one live allocation. */
static void *dram_host(void *ctx, uint64_t phys, uint64_t len) {
  ovta_simdram *d = ctx;
  return ovta_simdram_inside(d, phys, len) ? ovta_simdram_host(d, phys, len) : NULL;
}

static int fsim_be_open(ovta_dev *dev, const ovta_dev_opts *opts, ovta_error *err) {
  fsim_dram dram = {dev->dram, dram_host};
  fsim *s;
  int rc = fsim_new(&dev->isa, dram, opts->verbose, &s, err);
  if (rc) return rc;
  fsim_set_budget(s, opts->work_budget);
  dev->impl = s;
  return OVTA_OK;
}

static void fsim_be_close(ovta_dev *dev) {
  fsim_free(dev->impl);
  dev->impl = NULL;
}

static int fsim_be_run(ovta_dev *dev, uint64_t insn_phys, uint32_t insn_count, uint32_t timeout_ms,
                       ovta_error *err) {
  return fsim_exec(dev->impl, insn_phys, insn_count, timeout_ms, dev->opts.seed, &dev->counters, err);
}

const ovta_backend ovta_backend_fsim = {
    .name = "fsim",
    .open = fsim_be_open,
    .close = fsim_be_close,
    .run = fsim_be_run,
};

int ovta_fsim_sram(ovta_dev *dev, uint32_t mem_type, const void **data, size_t *bytes, ovta_error *err) {
  if (!dev || dev->backend != &ovta_backend_fsim || !dev->impl)
    return OVTA_FAIL(err, OVTA_EINVAL, "ovta_fsim_sram: not an fsim device");
  /* fsim_sram fails only on an unknown type: report it under this function's name */
  if (fsim_sram(dev->impl, mem_type, data, bytes, NULL))
    return OVTA_FAIL(err, OVTA_EINVAL, "ovta_fsim_sram: unknown memory type %u", mem_type);
  return OVTA_OK;
}

int ovta_fsim_reset(ovta_dev *dev, uint64_t seed, ovta_error *err) {
  if (!dev || dev->backend != &ovta_backend_fsim || !dev->impl)
    return OVTA_FAIL(err, OVTA_EINVAL, "ovta_fsim_reset: not an fsim device");
  fsim_clear(dev->impl);
  dev->opts.seed = seed;
  return OVTA_OK;
}
