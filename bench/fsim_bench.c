/* fsim_bench: simulated GEMM micro-ops per second of wall time on fsim, as JSON (one object
 * per config). Each run is a single GEMM of ITER_OUT x ITER_IN x UOPS micro-ops over distinct
 * accumulators, inputs and weights, the shape of a convolution layer's inner loops.
 *   make bench-fsim            or   build/bench/fsim_bench [config ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_driver.h"

#define CHECK(call)                                                                                \
  do {                                                                                             \
    if ((call) != OVTA_OK) {                                                                       \
      ovta_error_print(stderr, &err);                                                              \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

static int bench(const char *config, int first) {
  ovta_error err;
  ovta_config cfg;
  ovta_dev *dev;
  CHECK(ovta_config_load(config, &cfg, &err));
  CHECK(ovta_dev_open("fsim", &cfg, NULL, &dev, &err));
  const ovta_isa *isa = ovta_dev_isa(dev);
  /* uops: dst k, src k, wgt k for k < U (inside every config's buffers) */
  uint32_t U = 16;
  while (U > 1 && (U > (uint32_t)cfg.acc_depth / 4 || U > (uint32_t)cfg.inp_depth / 4 || U > (uint32_t)cfg.wgt_depth))
    U /= 2;
  ovta_buf *bu, *bi;
  CHECK(ovta_buf_alloc(dev, U * 4, &bu, &err));
  for (uint32_t k = 0; k < U; k++) {
    ovta_uop u = {k, k, k};
    uint32_t w;
    CHECK(ovta_uop_encode(isa, &u, &w, &err));
    memcpy((uint8_t *)bu->host + 4 * k, &w, 4);
  }
  /* iterations: j walks src/dst blocks of U, i repeats; indices stay inside the SRAMs */
  uint32_t iter_in = 2, iter_out = 16383; /* ~0.5 M micro-ops with U = 16 */
  ovta_insn prog[3];
  memset(prog, 0, sizeof prog);
  prog[0] = (ovta_insn){.opcode = OVTA_OP_LOAD, .memory_type = OVTA_MEM_UOP, .dram_base = (uint32_t)(bu->phys / 4),
                        .y_size = 1, .x_size = U, .x_stride = U};
  prog[1] = (ovta_insn){.opcode = OVTA_OP_GEMM, .uop_end = U, .iter_out = iter_out, .iter_in = iter_in,
                        .dst_factor_in = U, .src_factor_in = U};
  prog[2] = (ovta_insn){.opcode = OVTA_OP_FINISH};
  CHECK(ovta_buf_alloc(dev, sizeof prog, &bi, &err));
  for (int i = 0; i < 3; i++) {
    ovta_insn_bits b;
    CHECK(ovta_insn_encode(isa, &prog[i], &b, &err));
    ovta_insn_bits_store(&b, (uint8_t *)bi->host + 16 * i);
  }
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = ovta_now_s();
    CHECK(ovta_dev_run(dev, bi->phys, 3, 0, &err));
    double t = ovta_now_s() - t0;
    if (t < best) best = t;
  }
  ovta_counters c;
  ovta_dev_counters(dev, &c);
  double macs = (double)c.gemm_uops * cfg.batch * cfg.block_in * cfg.block_out;
  printf("%s  {\"config\": \"%s\", \"gemm_uops\": %llu, \"seconds\": %.4f, \"gemm_uops_per_s\": %.0f, "
         "\"macs_per_s\": %.0f}",
         first ? "" : ",\n", config, (unsigned long long)c.gemm_uops, best, (double)c.gemm_uops / best, macs / best);
  ovta_dev_close(dev);
  return 0;
}

int main(int argc, char **argv) {
  static const char *const defaults[] = {"default", "small", "batch2"};
  int n = argc > 1 ? argc - 1 : 3;
  printf("{\"bench\": \"fsim\", \"results\": [\n");
  for (int i = 0; i < n; i++)
    if (bench(argc > 1 ? argv[i + 1] : defaults[i], i == 0)) return 1;
  printf("\n]}\n");
  return 0;
}
