/* tsim_bench: cycles of GEMM-heavy and DMA-heavy programs on the tsim model (cycle-accurate),
 * printed as JSON: GEMM micro-ops per cycle, DMA bytes per cycle. Usage: tsim_bench [CONFIG] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_driver.h"

#define CHECK(call)                                                                                \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_) {                                                                                     \
      ovta_error_print(stderr, &err);                                                              \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

static ovta_error err;

static int put(ovta_dev *d, ovta_buf *s, int i, ovta_insn *in) {
  ovta_insn_bits b;
  uint8_t bytes[16];
  if (ovta_insn_encode(ovta_dev_isa(d), in, &b, &err)) return 1;
  ovta_insn_bits_store(&b, bytes);
  return ovta_buf_write(s, (size_t)i * 16, bytes, 16, &err);
}

int main(int argc, char **argv) {
  const char *config = argc > 1 ? argv[1] : "default";
  ovta_config cfg;
  CHECK(ovta_config_load(config, &cfg, &err));
  ovta_dev *d;
  CHECK(ovta_dev_open("tsim", &cfg, NULL, &d, &err));
  const ovta_isa *isa = ovta_dev_isa(d);
  /* 16 uops: dst i, src i, wgt i */
  uint32_t nu = 16, uw[16];
  for (uint32_t i = 0; i < nu; i++) {
    ovta_uop u = {.dst_idx = i, .src_idx = i, .wgt_idx = i};
    CHECK(ovta_uop_encode(isa, &u, &uw[i], &err));
  }
  ovta_buf *ub, *xb, *wb, *ob, *s;
  size_t nx = 256, nw = 64, no = 256;
  CHECK(ovta_buf_alloc(d, sizeof uw, &ub, &err));
  CHECK(ovta_buf_write(ub, 0, uw, sizeof uw, &err));
  CHECK(ovta_buf_alloc(d, nx * cfg.inp_bytes, &xb, &err));
  CHECK(ovta_buf_alloc(d, nw * cfg.wgt_bytes, &wb, &err));
  CHECK(ovta_buf_alloc(d, no * cfg.out_bytes, &ob, &err));
  CHECK(ovta_buf_alloc(d, 16 * 16, &s, &err));
  int n = 0;
  ovta_insn in;
#define I(...) (memset(&in, 0, sizeof in), __VA_ARGS__, put(d, s, n++, &in))
  uint32_t eu = (uint32_t)(ub->phys / 4), ex = (uint32_t)(xb->phys / cfg.inp_bytes),
           ew = (uint32_t)(wb->phys / cfg.wgt_bytes), eo = (uint32_t)(ob->phys / cfg.out_bytes);
  CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_UOP, in.dram_base = eu, in.y_size = 1, in.x_size = nu, in.x_stride = nu));
  CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_INP, in.dram_base = ex, in.y_size = 1, in.x_size = (uint32_t)nx, in.x_stride = (uint32_t)nx));
  CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_WGT, in.dram_base = ew, in.y_size = 1, in.x_size = (uint32_t)nw, in.x_stride = (uint32_t)nw, in.push_next = 1));
  /* 16 uops x 16 x 4 = 1024 uops per GEMM, four GEMMs */
  for (int g = 0; g < 4; g++)
    CHECK(I(in.opcode = OVTA_OP_GEMM, in.pop_prev = g == 0, in.uop_bgn = 0, in.uop_end = nu, in.iter_out = 16, in.iter_in = 4,
            in.dst_factor_out = 16, in.src_factor_out = 16, in.wgt_factor_in = 16, in.push_next = g == 3));
  CHECK(I(in.opcode = OVTA_OP_STORE, in.memory_type = OVTA_MEM_OUT, in.dram_base = eo, in.y_size = 1, in.x_size = (uint32_t)no, in.x_stride = (uint32_t)no, in.pop_prev = 1, in.push_prev = 1));
  CHECK(I(in.opcode = OVTA_OP_FINISH, in.pop_next = 1));
  CHECK(ovta_dev_run(d, s->phys, (uint32_t)n, 0, &err));
  ovta_counters k;
  ovta_dev_counters(d, &k);
  uint64_t dma = k.bytes_read[OVTA_MEM_INP] + k.bytes_read[OVTA_MEM_WGT] + k.bytes_written;
  printf("{\"config\": \"%s\", \"cycles\": %llu, \"gemm_uops\": %llu, \"busy_compute\": %llu, "
         "\"gemm_uops_per_busy_compute_cycle\": %.3f, \"busy_load\": %llu, \"load_bytes_per_busy_cycle\": %.3f, "
         "\"busy_store\": %llu, \"store_bytes_per_busy_cycle\": %.3f, \"dma_bytes\": %llu}\n",
         config, (unsigned long long)k.cycles, (unsigned long long)k.gemm_uops, (unsigned long long)k.busy_compute,
         (double)k.gemm_uops / (double)k.busy_compute, (unsigned long long)k.busy_load,
         (double)(k.bytes_read[OVTA_MEM_INP] + k.bytes_read[OVTA_MEM_WGT]) / (double)k.busy_load,
         (unsigned long long)k.busy_store, (double)k.bytes_written / (double)k.busy_store, (unsigned long long)dma);
  ovta_dev_close(d);
  return 0;
}
