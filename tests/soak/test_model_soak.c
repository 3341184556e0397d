/* Model soak: the shipped Fashion-MNIST CNN (models/fmnist), int8, compiled once for the
 * accelerator and run back to back in this one process, on fsim and on tsim (skipped when tsim
 * is not built). Checks:
 *   - every run's logits are bit-identical to the CPU int8 plan's logits of its image (the
 *     reference, itself run once per image) and to the first accelerator run of that image;
 *   - after a warm-up (the first WARMUP runs, or 1 when there are fewer than 10), the process's
 *     resident memory (/proc/self/statm) grows by at most RSS_SLACK and the heap in use
 *     (mallinfo2's uordblks) by at most HEAP_SLACK over all the remaining runs (a leak per run,
 *     however small, would show over 100 runs). Not checked in the sanitizer builds: their
 *     allocator keeps freed memory in quarantine and mallinfo2 does not see it.
 * Images cycle over NIMG test images, so a run that reads what the previous one left differs.
 *
 *   SOAK_FSIM_RUNS=N  accelerator runs on fsim (default 100: the version in `make test`)
 *   SOAK_TSIM_RUNS=N  on tsim (default 5)
 * `make test-soak-long` runs 1,000 and 50. Each test prints one line of figures: runs, seconds,
 * resident memory before the first run, after the warm-up and at the end, heap growth. */
#include "ovta_test_model.h"
#include "ovta_driver.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NIMG 5
#define WARMUP 10
#define RSS_SLACK ((long)256 << 10) /* bytes of resident memory the measured runs may add */
#define HEAP_SLACK ((long)16 << 10) /* bytes of heap in use they may add */

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Resident bytes of this process (the second field of /proc/self/statm, in pages). */
static long rss_bytes(void) {
  long size = 0, res = -1;
  FILE *f = fopen("/proc/self/statm", "r");
  assert_non_null(f);
  int n = fscanf(f, "%ld %ld", &size, &res);
  fclose(f);
  assert_int_equal(n, 2);
  return res * sysconf(_SC_PAGESIZE);
}

/* Bytes of heap in use (allocated by malloc and not freed). */
static long heap_bytes(void) { return (long)mallinfo2().uordblks; }

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* A positive count from environment variable var, else def. */
static int env_count(const char *var, int def) {
  const char *v = getenv(var);
  if (!v || !*v) return def;
  char *end;
  long n = strtol(v, &end, 10);
  if (*end || n < 1 || n > 10000000) fail_msg("%s=%s: expected a count from 1 to 10000000", var, v);
  return (int)n;
}

static bool have_backend(const char *name) {
  for (const char *const *b = ovta_backend_names(); *b; b++)
    if (!strcmp(*b, name)) return true;
  return false;
}

/* The int8 model run `runs` times on backend, checked against the CPU int8 plan (see top). */
static void soak(const char *backend, int runs) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  ovta_exec *cpu, *acc;
  ovta_graph *g = fmnist_int8_execs(&cfg, backend, &cpu, &acc);
  ovta_graph_free(g);
  assert_true(ovta_exec_accel_nodes(acc) >= 3);

  ovta_tensor *imgs, *x[NIMG], *ref[NIMG], *first[NIMG] = {0};
  OVTA_ASSERT_OK(ovta_npy_read(FM "test_images.npy", "imgs", &imgs, &err), err);
  for (int i = 0; i < NIMG; i++) {
    x[i] = image(imgs, i, ovta_exec_input_name(cpu, 0));
    ref[i] = ovta_test_run1(cpu, x[i]);
    assert_int_equal(ref[i]->nbytes, 10 * sizeof(float));
    if (i) assert_true(memcmp(ref[0]->data, ref[i]->data, ref[0]->nbytes) != 0); /* the images differ */
  }
  ovta_tensor_free(imgs);

  int warm = runs < WARMUP ? 1 : WARMUP;
  long rss0 = rss_bytes(), rss_w = 0, heap_w = 0;
  double t0 = seconds();
  for (int r = 0; r < runs; r++) {
    if (r == warm) rss_w = rss_bytes(), heap_w = heap_bytes();
    int i = r % NIMG;
    ovta_tensor *y = ovta_test_run1(acc, x[i]);
    OVTA_ASSERT_SAME_F32(ref[i], y, "%s: run %d (image %d), logits against the CPU int8 plan", backend, r, i);
    if (!first[i]) first[i] = y;
    else {
      OVTA_ASSERT_SAME_F32(first[i], y, "%s: run %d (image %d), logits against its first run", backend, r, i);
      ovta_tensor_free(y);
    }
  }
  double dt = seconds() - t0;
  long rss1 = rss_bytes(), heap1 = heap_bytes();
  if (runs <= warm) rss_w = rss1, heap_w = heap1;
  printf("[  FIGURES ] soak %s: %d runs in %.2f s (%.2f ms/run); RSS %ld KiB before, %ld KiB after %d warm-up run(s), "
         "%ld KiB after (growth %ld KiB); heap growth after warm-up %ld bytes%s\n",
         backend, runs, dt, dt * 1e3 / runs, rss0 >> 10, rss_w >> 10, warm, rss1 >> 10, (rss1 - rss_w) >> 10,
         heap1 - heap_w, SANITIZED ? " (sanitizer build: not checked)" : "");
  if (!SANITIZED) {
    if (rss1 - rss_w > RSS_SLACK)
      fail_msg("%s: resident memory grew by %ld bytes over %d runs after the warm-up (limit %ld)", backend,
               rss1 - rss_w, runs - warm, RSS_SLACK);
    if (heap1 - heap_w > HEAP_SLACK)
      fail_msg("%s: heap in use grew by %ld bytes over %d runs after the warm-up (limit %ld)", backend,
               heap1 - heap_w, runs - warm, HEAP_SLACK);
  }
  for (int i = 0; i < NIMG; i++) {
    ovta_tensor_free(x[i]), ovta_tensor_free(ref[i]);
    if (first[i]) ovta_tensor_free(first[i]);
  }
  ovta_exec_free(acc);
  ovta_exec_free(cpu);
}

static void test_soak_fsim(void **st) {
  (void)st;
  soak("fsim", env_count("SOAK_FSIM_RUNS", 100));
}

static void test_soak_tsim(void **st) {
  (void)st;
  if (!have_backend("tsim")) skip();
  soak("tsim", env_count("SOAK_TSIM_RUNS", 5));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_soak_fsim),
      cmocka_unit_test(test_soak_tsim),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
