/* Repeatability: one compiled model, many runs in one process, the same outputs every time.
 * (VTA's Chisel RTL once carried state from one run into the next; a device, runtime or
 * executor that keeps stale SRAM contents, tokens, kernel-cache entries or arena values would
 * show up here as a run whose output differs.)
 *
 * The shipped Fashion-MNIST CNN (models/fmnist), compiled once per plan:
 *   - fp32 on the CPU path: 60 runs over 5 test images, every run's logits bit-identical to that
 *     image's first run, and the first runs within 1e-4 of torch's own logits (torch_logits.npy,
 *     the independent reference);
 *   - int8 (quantized with 16 calibration images) on the CPU path: 60 runs, bit-identical per
 *     image; this is also the reference of the accelerator runs;
 *   - int8 with the accelerator on fsim (default config): 60 runs over the 5 images (interleaved,
 *     and the same image twice in a row), each bit-identical to the CPU int8 logits of its image;
 *   - the same on tsim (skipped when tsim is not built): 5 runs over 2 images.
 * Images alternate, so a run that reads anything left over from the previous one differs. */
#include "ovta_test_model.h"
#include "ovta_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIMG 5
#define RUNS 60

static ovta_graph *fp32_graph(void) {
  ovta_graph *g = fmnist_load();
  ovta_error err = {0};
  ovta_compile_opts co = {0};
  OVTA_ASSERT_OK(ovta_compile_pipeline(g, &co, &err), err);
  return g;
}

/* The test images as inputs of e. */
static void images(ovta_exec *e, ovta_tensor *x[NIMG]) {
  ovta_error err = {0};
  ovta_tensor *imgs;
  OVTA_ASSERT_OK(ovta_npy_read(FM "test_images.npy", "imgs", &imgs, &err), err);
  for (int i = 0; i < NIMG; i++) x[i] = image(imgs, i, ovta_exec_input_name(e, 0));
  ovta_tensor_free(imgs);
}

/* Run e `runs` times over the first m images in the order 0,1,..,m-1,m-1,0,1,... (an image twice
 * in a row once per round too); every output must equal want[image] bit for bit (when want is
 * given) or that image's first output. first[] receives the first outputs (caller frees; NULL for
 * images not run). */
static void repeat(ovta_exec *e, const char *what, int runs, int m, ovta_tensor *const want[NIMG], ovta_tensor *first[NIMG]) {
  ovta_tensor *x[NIMG];
  images(e, x);
  for (int i = 0; i < NIMG; i++) first[i] = NULL;
  int k = 0, seen[NIMG] = {0};
  for (int r = 0; r < runs; r++) {
    int i = k % (m + 1);
    if (i == m) i = m - 1; /* the last image twice in a row */
    k++;
    ovta_tensor *y = ovta_test_run1(e, x[i]);
    assert_int_equal(y->dtype, OVTA_DT_F32);
    assert_int_equal(y->nbytes, 10 * sizeof(float));
    const ovta_tensor *ref = want ? want[i] : first[i];
    if (ref) OVTA_ASSERT_SAME_F32(ref, y, "%s: run %d (image %d, its run %d), logits", what, r, i, seen[i]);
    seen[i]++;
    if (!first[i]) first[i] = y;
    else ovta_tensor_free(y);
  }
  for (int i = 0; i < NIMG; i++) {
    if (i < m) assert_non_null(first[i]);
    if (i < m) assert_true(seen[i] >= 2); /* every image ran at least twice */
    ovta_tensor_free(x[i]);
  }
}

static void free_all(ovta_tensor *t[NIMG]) {
  for (int i = 0; i < NIMG; i++)
    if (t[i]) ovta_tensor_free(t[i]);
}

/* fp32 on the CPU: repeatable, and equal to torch's logits within 1e-4. */
static void test_fp32_cpu(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_graph *g = fp32_graph();
  ovta_exec *e;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &e, &err), err);
  ovta_graph_free(g);
  ovta_tensor *first[NIMG];
  repeat(e, "fp32 cpu", RUNS, NIMG, NULL, first);
  ovta_tensor *torch;
  OVTA_ASSERT_OK(ovta_npy_read(FM "torch_logits.npy", "torch", &torch, &err), err);
  assert_int_equal(torch->dtype, OVTA_DT_F32);
  assert_true(torch->rank == 2 && torch->shape[1] == 10 && torch->shape[0] >= NIMG);
  for (int i = 0; i < NIMG; i++)
    for (int c = 0; c < 10; c++) {
      float a = ((const float *)first[i]->data)[c], b = ((const float *)torch->data)[i * 10 + c];
      if (!(fabsf(a - b) <= 1e-4f)) fail_msg("fp32 image %d logit %d: %.9g, torch %.9g", i, c, a, b);
    }
  ovta_tensor_free(torch);
  free_all(first);
  ovta_exec_free(e);
}

/* int8: the CPU plan is the reference; the accelerator plan on `backend` must match it on
 * every one of `runs` runs. */
static void int8_on(const char *backend, int runs, int m) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  ovta_exec *cpu, *acc;
  ovta_graph *g = fmnist_int8_execs(&cfg, backend, &cpu, &acc);
  ovta_graph_free(g);
  assert_true(ovta_exec_accel_nodes(acc) >= 3);
  ovta_tensor *ref[NIMG], *got[NIMG];
  repeat(cpu, "int8 cpu", runs, m, NULL, ref);
  /* the images give different logits (a run returning the previous image's output would differ) */
  for (int i = 1; i < m; i++) assert_true(memcmp(ref[0]->data, ref[i]->data, ref[0]->nbytes) != 0);
  char what[64];
  snprintf(what, sizeof what, "int8 accelerator on %s", backend);
  repeat(acc, what, runs, m, ref, got);
  /* the accelerator really ran: device micro-ops in its last run */
  int accel_steps = 0;
  for (int i = 0; i < ovta_exec_num_steps(acc); i++) {
    ovta_exec_node_stats s;
    OVTA_ASSERT_OK(ovta_exec_node_stats_get(acc, i, &s, &err), err);
    if (!s.accel) continue;
    accel_steps++;
    assert_true(s.runs >= (uint64_t)runs);
    assert_true(s.gemm_uops > 0);
  }
  assert_int_equal(accel_steps, ovta_exec_accel_nodes(acc));
  free_all(ref);
  free_all(got);
  ovta_exec_free(acc);
  ovta_exec_free(cpu);
}

static void test_int8_fsim(void **st) {
  (void)st;
  int8_on("fsim", RUNS, NIMG);
}

static void test_int8_tsim(void **st) {
  (void)st;
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (!have) skip();
  int8_on("tsim", 5, 2); /* images 0, 1, 1, 0, 1 */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fp32_cpu),
      cmocka_unit_test(test_int8_fsim),
      cmocka_unit_test(test_int8_tsim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
