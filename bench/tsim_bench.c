/* tsim_bench: the tsim model (Verilator, cycle-accurate) on a GEMM-heavy, two ALU-heavy (tensor
 * operand, immediate) and a DMA-heavy program, sized from the config. Prints one JSON object
 * per program: simulated cycles, wall time, simulated cycles per second of wall time (the speed
 * of the model), and what the hardware achieved: GEMM and ALU micro-ops per cycle (overall and
 * per busy compute cycle), DMA bytes per cycle (load and store, against the bus width). sim_cycles_per_cpu_s divides by the
 * process's CPU time instead of wall time (steadier on a shared machine). Usage: tsim_bench [CONFIG [REPEAT]]
 * (make bench-tsim [BENCH_CONFIG=small]). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* CPU time of this process: the speed measure that holds up on a loaded, shared machine */
static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* An instruction stream under construction. */
typedef struct stream {
  ovta_dev *d;
  ovta_buf *s;
  int n, cap;
} stream;

static int put(stream *st, ovta_insn *in) {
  ovta_insn_bits b;
  uint8_t bytes[16];
  if (st->n >= st->cap) return OVTA_FAIL(&err, OVTA_EINVAL, "tsim_bench: stream full"), 1;
  if (ovta_insn_encode(ovta_dev_isa(st->d), in, &b, &err)) return 1;
  ovta_insn_bits_store(&b, bytes);
  return ovta_buf_write(st->s, (size_t)st->n++ * 16, bytes, 16, &err);
}

/* Run the stream `repeat` times; print the JSON line of the program. */
static int measure(stream *st, const ovta_config *cfg, const char *name, int repeat) {
  ovta_counters k, sum;
  memset(&sum, 0, sizeof sum);
  double t0 = ovta_now_s(), p0 = cpu_s();
  for (int r = 0; r < repeat; r++) {
    CHECK(ovta_dev_run(st->d, st->s->phys, (uint32_t)st->n, 0, &err));
    ovta_dev_counters(st->d, &k);
    sum.cycles += k.cycles;
    sum.gemm_uops += k.gemm_uops;
    sum.alu_uops += k.alu_uops;
    sum.busy_compute += k.busy_compute;
    sum.busy_load += k.busy_load;
    sum.busy_store += k.busy_store;
    sum.bytes_written += k.bytes_written;
    for (int m = 0; m < 5; m++) sum.bytes_read[m] += k.bytes_read[m];
  }
  double wall = ovta_now_s() - t0, cpu = cpu_s() - p0;
  uint64_t ld = sum.bytes_read[OVTA_MEM_INP] + sum.bytes_read[OVTA_MEM_WGT];
  double c = (double)sum.cycles;
  printf("{\"bench\": \"tsim\", \"program\": \"%s\", \"config\": \"%s\", \"runs\": %d, \"instructions\": %d, "
         "\"cycles\": %llu, \"wall_s\": %.3f, \"sim_cycles_per_s\": %.0f, \"cpu_s\": %.3f, "
         "\"sim_cycles_per_cpu_s\": %.0f, \"gemm_uops\": %llu, "
         "\"gemm_uops_per_cycle\": %.3f, \"gemm_uops_per_busy_compute_cycle\": %.3f, \"alu_uops\": %llu, "
         "\"alu_uops_per_cycle\": %.3f, \"alu_uops_per_busy_compute_cycle\": %.3f, \"bus_bytes\": %d, "
         "\"load_bytes\": %llu, \"load_bytes_per_cycle\": %.2f, \"load_bytes_per_busy_cycle\": %.2f, "
         "\"store_bytes\": %llu, \"store_bytes_per_cycle\": %.2f, \"store_bytes_per_busy_cycle\": %.2f}\n",
         name, cfg->name, repeat, st->n, (unsigned long long)sum.cycles, wall, c / wall, cpu, c / cpu,
         (unsigned long long)sum.gemm_uops, (double)sum.gemm_uops / c,
         sum.busy_compute ? (double)sum.gemm_uops / (double)sum.busy_compute : 0.0,
         (unsigned long long)sum.alu_uops, (double)sum.alu_uops / c,
         sum.busy_compute ? (double)sum.alu_uops / (double)sum.busy_compute : 0.0, cfg->axi_data_bits / 8,
         (unsigned long long)ld, (double)ld / c, sum.busy_load ? (double)ld / (double)sum.busy_load : 0.0,
         (unsigned long long)sum.bytes_written, (double)sum.bytes_written / c,
         sum.busy_store ? (double)sum.bytes_written / (double)sum.busy_store : 0.0);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  const char *config = argc > 1 ? argv[1] : "default";
  int repeat = argc > 2 ? atoi(argv[2]) : 5;
  if (repeat < 1) repeat = 1;
  ovta_config cfg;
  CHECK(ovta_config_load(config, &cfg, &err));
  ovta_dev *d;
  CHECK(ovta_dev_open("tsim", &cfg, NULL, &d, &err));
  const ovta_isa *isa = ovta_dev_isa(d);
  /* sizes from the SRAM depths: nu micro-ops (dst i, src i, wgt i) over io x ii iterations */
  uint32_t nu = min_u(16, cfg.uop_depth), ne = min_u(cfg.acc_depth, cfg.inp_depth);
  uint32_t io = min_u(16, ne / nu), ii = min_u(4, cfg.wgt_depth / nu);
  uint32_t nx = io * nu, nw = ii * nu, no = io * nu;
  uint32_t uw[16];
  for (uint32_t i = 0; i < nu; i++) {
    ovta_uop u = {.dst_idx = i, .src_idx = i, .wgt_idx = i};
    CHECK(ovta_uop_encode(isa, &u, &uw[i], &err));
  }
  ovta_buf *ub, *xb, *wb, *ob;
  CHECK(ovta_buf_alloc(d, sizeof uw, &ub, &err));
  CHECK(ovta_buf_write(ub, 0, uw, nu * 4, &err));
  CHECK(ovta_buf_alloc(d, (size_t)nx * cfg.inp_bytes, &xb, &err));
  CHECK(ovta_buf_alloc(d, (size_t)nw * cfg.wgt_bytes, &wb, &err));
  CHECK(ovta_buf_alloc(d, (size_t)no * cfg.out_bytes, &ob, &err));
  uint32_t eu = (uint32_t)(ub->phys / 4), ex = (uint32_t)(xb->phys / cfg.inp_bytes),
           ew = (uint32_t)(wb->phys / cfg.wgt_bytes), eo = (uint32_t)(ob->phys / cfg.out_bytes);
  stream st = {d, NULL, 0, 256};
  CHECK(ovta_buf_alloc(d, (size_t)st.cap * 16, &st.s, &err));
  ovta_insn in;
#define I(...) (memset(&in, 0, sizeof in), __VA_ARGS__, put(&st, &in))

  /* GEMM-heavy: load once, then 64 GEMMs of nu x io x ii micro-ops, store once */
  CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_UOP, in.dram_base = eu, in.y_size = 1, in.x_size = nu, in.x_stride = nu));
  CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_INP, in.dram_base = ex, in.y_size = 1, in.x_size = nx, in.x_stride = nx));
  CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_WGT, in.dram_base = ew, in.y_size = 1, in.x_size = nw, in.x_stride = nw, in.push_next = 1));
  enum { NG = 64 };
  for (int g = 0; g < NG; g++)
    CHECK(I(in.opcode = OVTA_OP_GEMM, in.pop_prev = g == 0, in.uop_bgn = 0, in.uop_end = nu, in.iter_out = io, in.iter_in = ii,
            in.dst_factor_out = nu, in.src_factor_out = nu, in.wgt_factor_in = nu, in.push_next = g == NG - 1));
  CHECK(I(in.opcode = OVTA_OP_STORE, in.memory_type = OVTA_MEM_OUT, in.dram_base = eo, in.y_size = 1, in.x_size = no, in.x_stride = no, in.pop_prev = 1, in.push_prev = 1));
  CHECK(I(in.opcode = OVTA_OP_FINISH, in.pop_next = 1));
  if (measure(&st, &cfg, "gemm", repeat)) return 1;

  /* ALU-heavy: 64 ALU instructions of nu x io x ii micro-ops (ADD; the uops' src = dst, a
   * tensor operand read through the second ACC port, or an immediate) */
  for (int imm = 0; imm < 2; imm++) {
    st.n = 0;
    CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_UOP, in.dram_base = eu, in.y_size = 1, in.x_size = nu, in.x_stride = nu));
    for (int g = 0; g < NG; g++)
      CHECK(I(in.opcode = OVTA_OP_ALU, in.alu_opcode = OVTA_ALU_ADD, in.use_imm = (uint32_t)imm, in.imm = 1, in.uop_bgn = 0,
              in.uop_end = nu, in.iter_out = io, in.iter_in = ii, in.dst_factor_out = nu, in.src_factor_out = nu));
    CHECK(I(in.opcode = OVTA_OP_FINISH));
    if (measure(&st, &cfg, imm ? "alu_imm" : "alu_tensor", repeat)) return 1;
  }

  /* DMA-heavy: 48 loads (INP and WGT, whole buffers) and 48 stores, no compute but FINISH */
  st.n = 0;
  for (int r = 0; r < 48; r++) {
    if (r % 2) CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_WGT, in.dram_base = ew, in.y_size = 1, in.x_size = nw, in.x_stride = nw));
    else CHECK(I(in.opcode = OVTA_OP_LOAD, in.memory_type = OVTA_MEM_INP, in.dram_base = ex, in.y_size = 1, in.x_size = nx, in.x_stride = nx));
    CHECK(I(in.opcode = OVTA_OP_STORE, in.memory_type = OVTA_MEM_OUT, in.dram_base = eo, in.y_size = 1, in.x_size = no, in.x_stride = no));
  }
  CHECK(I(in.opcode = OVTA_OP_FINISH));
  if (measure(&st, &cfg, "dma", repeat)) return 1;
  ovta_dev_close(d);
  return 0;
}
