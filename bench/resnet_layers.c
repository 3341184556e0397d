/* resnet_layers.c: ResNet-18 conv layers C2..C11 compiled by the accelerator lowering
 * (compiler/accel/accel.h) and run on each backend (env OVTA_BENCH_BACKENDS, default "fsim") and config
 * (env OVTA_BENCH_CONFIGS, default "default"), with 1 and 2 virtual threads; env OVTA_BENCH_LAYERS
 * (e.g. "C4,C7,C10") runs only those layers; also MobileNetV2-like depthwise layers DW1..DW3
 * (grouped conv, group = channels). One JSON line per run:
 * the plan, instructions and micro-ops of the host code and of the device, bytes moved, the MACs
 * of the layer and those the GEMM core did (gemm_macs: a depthwise layer's diagonal tiles are
 * 1/BLOCK_IN useful), and when the backend counts cycles (tsim): cycles, the planner's estimate
 * of them (est_cycles, vta_plan.est) and MAC utilization =
 * MACs / (cycles * B*BI*BO), GEMM utilization = GEMM micro-ops / cycles, busy and stall cycles of
 * the load, compute and store modules.
 * Every result is checked against the plain-C reference (vta_reference); a mismatch exits 1. */
#include "accel.h"

#include <stdlib.h>
#include <string.h>

typedef struct layer { const char *name; int hw, c, o, k, s, g; } layer; /* g: groups (0: 1) */
static const layer L[] = {
    {"C2", 56, 64, 64, 3, 1, 1},   {"C3", 56, 64, 128, 3, 2, 1},  {"C4", 56, 64, 128, 1, 2, 1}, {"C5", 28, 128, 128, 3, 1, 1},
    {"C6", 28, 128, 256, 3, 2, 1}, {"C7", 28, 128, 256, 1, 2, 1}, {"C8", 14, 256, 256, 3, 1, 1}, {"C9", 14, 256, 512, 3, 2, 1},
    {"C10", 14, 256, 512, 1, 2, 1}, {"C11", 7, 512, 512, 3, 1, 1},
    /* MobileNetV2-like depthwise 3x3 layers (group = channels) */
    {"DW1", 56, 96, 96, 3, 1, 96}, {"DW2", 56, 144, 144, 3, 2, 144}, {"DW3", 28, 192, 192, 3, 1, 192},
};

static void fill(int8_t *x, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 7u;
  for (size_t i = 0; i < n; i++) s = s * 1103515245u + 12345u, x[i] = (int8_t)(s >> 16);
}

static int one(const char *backend, const ovta_config *cfg, const layer *l, int vt, ovta_error *err) {
  vta_op op;
  vta_op_conv(&op, l->name, cfg->batch, l->c, l->hw, l->hw, l->o, l->k, l->s, l->k / 2);
  op.has_bias = true, op.shift = l->g > 1 ? 6 : 12, op.clip_min = 0;
  if (l->g > 1) op.groups = l->g;
  vta_knobs k = {.vthreads = vt};
  vta_plan p;
  int rc = vta_plan_make(cfg, &op, &k, &p, err);
  if (rc) return rc;
  vta_kernel *kern;
  if ((rc = vta_compile(&p, NULL, NULL, &kern, err))) return rc;
  vta_counts cnt;
  rc = vta_kernel_count(kern, &cnt, err);
  size_t nx = vta_x_bytes(&p), nw = vta_w_bytes(&p), ny = vta_y_bytes(&p), nb = vta_bias_bytes(&p);
  int8_t *x = malloc(nx), *w = malloc(nw), *px = malloc(nx), *pw = malloc(nw), *py = malloc(ny), *y = malloc(ny),
         *ref = malloc(ny);
  int32_t *b = malloc((size_t)op.o * 4), *pb = malloc(nb);
  ovta_dev *dev = NULL;
  ovta_rt *rt = NULL;
  ovta_buf *bufs[VTA_BUF_COUNT] = {0};
  if (!rc && (!x || !w || !px || !pw || !py || !y || !ref || !b || !pb)) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (!rc) {
    fill(x, nx, 1), fill(w, nw, 2);
    for (int i = 0; i < op.o; i++) b[i] = i * 13 - 500;
    vta_reference(&op, x, w, b, ref);
    vta_pack_x(&p, x, px), vta_pack_w(&p, w, pw), vta_pack_bias(&p, b, pb);
    rc = ovta_dev_open(backend, cfg, NULL, &dev, err);
  }
  if (!rc) rc = ovta_buf_alloc(dev, nx, &bufs[VTA_BUF_X], err);
  if (!rc) rc = ovta_buf_alloc(dev, nw, &bufs[VTA_BUF_W], err);
  if (!rc) rc = ovta_buf_alloc(dev, nb, &bufs[VTA_BUF_BIAS], err);
  if (!rc) rc = ovta_buf_alloc(dev, ny, &bufs[VTA_BUF_Y], err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_X], 0, px, nx, err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_W], 0, pw, nw, err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_BIAS], 0, pb, nb, err);
  ovta_rt_opts ro = {.max_insns = 1u << 20}; /* one run: the device counters cover the layer */
  if (!rc) rc = ovta_rt_create(dev, &ro, &rt, err);
  if (!rc) rc = vta_kernel_issue(kern, rt, bufs, err);
  if (!rc) rc = ovta_rt_synchronize(rt, 0, err);
  if (!rc) rc = ovta_buf_read(bufs[VTA_BUF_Y], 0, py, ny, err);
  if (!rc) {
    vta_unpack_y(&p, py, y);
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++) bad += y[i] != ref[i];
    ovta_rt_stats st;
    ovta_rt_stats_get(rt, &st);
    ovta_counters dc;
    ovta_dev_counters(dev, &dc);
    double macs = (double)vta_op_macs(&op);
    printf("{\"layer\": \"%s\", \"backend\": \"%s\", \"config\": \"%s\", \"vthreads\": %d, \"tile\": [%d, %d, %d, %d, %d], "
           "\"macs\": %.0f, \"gemm_macs\": %.0f, \"host_insns\": %llu, \"insns\": %llu, \"runs\": %llu, \"kernels\": %llu, "
           "\"uops_recorded\": %llu, \"uop_loads\": %llu, \"gemm_uops\": %llu, \"alu_uops\": %llu, "
           "\"bytes_inp\": %llu, \"bytes_wgt\": %llu, \"bytes_acc\": %llu, \"bytes_uop\": %llu, \"bytes_out\": %llu, "
           "\"bytes_total\": %llu, \"mismatches\": %zu",
           l->name, backend, cfg->name, vt, p.t_n, p.t_oc, p.t_ic, p.t_h, p.t_w, macs,
           (double)dc.gemm_uops * cfg->batch * cfg->block_in * cfg->block_out, (unsigned long long)cnt.insns,
           (unsigned long long)st.insns, (unsigned long long)st.runs, (unsigned long long)cnt.kernels,
           (unsigned long long)cnt.uops_recorded, (unsigned long long)st.kernel_loads,
           (unsigned long long)dc.gemm_uops, (unsigned long long)dc.alu_uops,
           (unsigned long long)dc.bytes_read[OVTA_MEM_INP], (unsigned long long)dc.bytes_read[OVTA_MEM_WGT],
           (unsigned long long)dc.bytes_read[OVTA_MEM_ACC], (unsigned long long)dc.bytes_read[OVTA_MEM_UOP],
           (unsigned long long)dc.bytes_written,
           (unsigned long long)(dc.bytes_read[OVTA_MEM_INP] + dc.bytes_read[OVTA_MEM_WGT] + dc.bytes_read[OVTA_MEM_ACC] +
                                dc.bytes_read[OVTA_MEM_UOP] + dc.bytes_written),
           bad);
    if (dc.cycles)
      printf(", \"est_cycles\": %.0f, \"cycles\": %llu, \"mac_utilization\": %.4f, \"gemm_utilization\": %.4f, \"busy\": [%llu, %llu, %llu], \"stall\": [%llu, %llu, %llu]",
             p.est, (unsigned long long)dc.cycles, macs / ((double)dc.cycles * cfg->batch * cfg->block_in * cfg->block_out),
             (double)dc.gemm_uops / (double)dc.cycles,
             (unsigned long long)dc.busy_load, (unsigned long long)dc.busy_compute, (unsigned long long)dc.busy_store,
             (unsigned long long)dc.stall_load, (unsigned long long)dc.stall_compute, (unsigned long long)dc.stall_store);
    printf("}\n");
    fflush(stdout);
    if (bad) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "%s: %zu outputs differ from the reference", l->name, bad);
  }
  ovta_rt_destroy(rt);
  ovta_dev_close(dev);
  vta_kernel_free(kern);
  free(x), free(w), free(px), free(pw), free(py), free(y), free(ref), free(b), free(pb);
  return rc;
}

/* Every layer (OVTA_BENCH_LAYERS: those named) with 1 and 2 virtual threads on backend b, config c. */
static int run_config(const char *b, const char *c) {
  ovta_config cfg;
  ovta_error err = {0};
  if (ovta_config_load(c, &cfg, &err)) {
    ovta_error_print(stderr, &err);
    return -1;
  }
  const char *only = getenv("OVTA_BENCH_LAYERS");
  int status = 0;
  for (size_t i = 0; i < sizeof L / sizeof L[0]; i++) {
    if (only && *only && !ovta_list_has(only, ", ", L[i].name)) continue;
    for (int vt = 1; vt <= 2; vt++)
      if (one(b, &cfg, &L[i], vt, &err)) {
        ovta_error_print(stderr, &err);
        status = 1;
      }
  }
  return status;
}

int main(void) {
  const char *be = getenv("OVTA_BENCH_BACKENDS"), *cf = getenv("OVTA_BENCH_CONFIGS");
  const char *backends = be && *be ? be : "fsim", *configs = cf && *cf ? cf : "default";
  int status = 0;
  char b[256], c[256];
  for (const char *pb = backends; ovta_list_next(&pb, ", ", b, sizeof b);)
    for (const char *pc = configs; ovta_list_next(&pc, ", ", c, sizeof c);) {
      int rc = run_config(b, c);
      if (rc < 0) return 1; /* a config that does not load */
      status |= rc;
    }
  return status;
}
