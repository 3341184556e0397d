/* Thread pool tests (isa/parallel.c): every iteration runs exactly once for any thread count and
 * loop size (counted per iteration), results equal the serial ones bit for bit, a loop started
 * inside a body runs serially, and a child process after fork() runs loops (it once hung: the
 * child waited for the parent's workers). */
#include "ovta_test.h"

#include <sys/wait.h>
#include <unistd.h>

#define N 1000

static int hits[N];     /* times each iteration ran */
static double out[N];   /* per iteration: a sum whose value depends on its order */

static void count_body(void *ctx, int64_t lo, int64_t hi) {
  (void)ctx;
  for (int64_t i = lo; i < hi; i++) __atomic_add_fetch(&hits[i], 1, __ATOMIC_RELAXED);
}

static void sum_body(void *ctx, int64_t lo, int64_t hi) {
  const double *in = ctx;
  for (int64_t i = lo; i < hi; i++) {
    double s = 0;
    for (int k = 0; k < 200; k++) s += in[(i * 7 + k) % N] / (k + 1);
    out[i] = s;
  }
}

static void test_each_iteration_once(void **state) {
  (void)state;
  const int64_t sizes[] = {0, 1, 2, 3, 7, 64, N};
  for (int t = 1; t <= 4; t++) {
    ovta_set_threads(t);
    assert_int_equal(ovta_get_threads(), t);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
      memset(hits, 0, sizeof hits);
      ovta_par_for(count_body, NULL, sizes[k]);
      for (int64_t i = 0; i < N; i++) assert_int_equal(hits[i], i < sizes[k] ? 1 : 0);
    }
  }
  ovta_set_threads(0);
  assert_true(ovta_get_threads() >= 1);
}

static void test_same_results_any_threads(void **state) {
  (void)state;
  static double in[N], ref[N];
  for (int i = 0; i < N; i++) in[i] = (i % 13) * 0.37 - 1.1;
  ovta_set_threads(1);
  ovta_par_for(sum_body, in, N);
  memcpy(ref, out, sizeof ref);
  for (int t = 2; t <= 3; t++) {
    ovta_set_threads(t);
    for (int rep = 0; rep < 20; rep++) {
      memset(out, 0, sizeof out);
      ovta_par_for(sum_body, in, N);
      assert_memory_equal(out, ref, sizeof ref);
    }
  }
}

/* A body that starts a loop itself: the inner loop runs on the calling thread. */
static void nested_body(void *ctx, int64_t lo, int64_t hi) {
  (void)ctx;
  for (int64_t i = lo; i < hi; i++) ovta_par_for(count_body, NULL, N);
}

static void test_nested_serial(void **state) {
  (void)state;
  ovta_set_threads(2);
  memset(hits, 0, sizeof hits);
  ovta_par_for(nested_body, NULL, 4);
  for (int i = 0; i < N; i++) assert_int_equal(hits[i], 4);
}

static void test_fork_child(void **state) {
  (void)state;
  ovta_set_threads(2);
  ovta_par_for(count_body, NULL, N); /* the parent's workers exist */
  pid_t c = fork();
  assert_true(c >= 0);
  if (c == 0) {
    alarm(20); /* a hang fails the test instead of blocking it */
    memset(hits, 0, sizeof hits);
    ovta_par_for(count_body, NULL, N);
    ovta_par_for(count_body, NULL, N);
    for (int i = 0; i < N; i++)
      if (hits[i] != 2) _exit(1);
    _exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(c, &st, 0), c);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_iteration_once),
      cmocka_unit_test(test_same_results_any_threads),
      cmocka_unit_test(test_nested_serial),
      cmocka_unit_test(test_fork_child),
  };
  return cmocka_run_group_tests_name("isa parallel", tests, NULL, NULL);
}
