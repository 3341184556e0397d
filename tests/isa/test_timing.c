/* Time per phase (isa/timing.c, `ovta compile --time-passes`): rows keyed by name and parent in
 * the order first begun, nesting depths, runs summed, a nested phase's wall time within its
 * parent's, the table's rows and total, NULL a no-op, and begins past the depth limit skipped
 * with their ends matched (the phases around them still close correctly). No time is asserted
 * beyond order relations. */
#include "ovta_test.h"

static void test_rows_and_nesting(void **state) {
  (void)state;
  ovta_timing t = {0};
  ovta_timing_begin(&t, "import");
  ovta_timing_end(&t);
  for (int i = 0; i < 3; i++) {
    ovta_timing_begin(&t, "passes");
    ovta_timing_begin(&t, "pass %s", i == 1 ? "quantize" : "infer");
    if (i == 1) {
      ovta_timing_begin(&t, "calibration");
      volatile double s = 0;
      for (int k = 0; k < 200000; k++) s += k;
      ovta_timing_end(&t);
    }
    ovta_timing_end(&t);
    ovta_timing_end(&t);
  }
  ovta_timing_begin(&t, "build");
  ovta_timing_begin(&t, "pass infer"); /* same name, another parent: its own row */
  ovta_timing_end(&t);
  ovta_timing_end(&t);
  assert_int_equal(t.nopen, 0);
  const char *names[] = {"import", "passes", "pass infer", "pass quantize", "calibration", "build", "pass infer"};
  const int depth[] = {0, 0, 1, 1, 2, 0, 1}, runs[] = {1, 3, 2, 1, 1, 1, 1}, parent[] = {-1, -1, 1, 1, 3, -1, 5};
  assert_int_equal(t.n, 7);
  for (int i = 0; i < 7; i++) {
    assert_string_equal(t.rows[i].name, names[i]);
    assert_int_equal(t.rows[i].depth, depth[i]);
    assert_int_equal(t.rows[i].runs, runs[i]);
    assert_int_equal(t.rows[i].parent, parent[i]);
    assert_true(t.rows[i].wall >= 0 && t.rows[i].cpu >= 0);
  }
  assert_true(t.rows[4].wall <= t.rows[3].wall && t.rows[3].wall <= t.rows[1].wall);
  assert_true(t.rows[4].wall > 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ovta_timing_print(&t, f, "title");
  fclose(f);
  int lines = 0;
  for (char *p = buf; *p; p++) lines += *p == '\n';
  assert_int_equal(lines, 3 + 1 + 7 + 1); /* rules and title, header, rows, total */
  assert_non_null(strstr(buf, "  title\n"));
  assert_non_null(strstr(buf, "      calibration\n")); /* depth 2: four spaces after the runs column */
  assert_non_null(strstr(buf, "100.0%"));
  free(buf);
  ovta_timing_free(&t);
  assert_int_equal(t.n, 0);
}

static void test_null_and_depth_limit(void **state) {
  (void)state;
  ovta_timing_begin(NULL, "x"); /* no-ops */
  ovta_timing_end(NULL);
  ovta_timing_print(NULL, stderr, "none");
  ovta_timing t = {0};
  for (int i = 0; i < OVTA_TIMING_DEPTH + 3; i++) ovta_timing_begin(&t, "level %d", i);
  assert_int_equal(t.nopen, OVTA_TIMING_DEPTH);
  assert_int_equal(t.skipped, 3);
  for (int i = 0; i < OVTA_TIMING_DEPTH + 3; i++) ovta_timing_end(&t);
  assert_int_equal(t.nopen, 0);
  assert_int_equal(t.skipped, 0);
  assert_int_equal(t.n, OVTA_TIMING_DEPTH);
  ovta_timing_end(&t); /* an end without a begin: ignored */
  assert_int_equal(t.nopen, 0);
  ovta_timing_free(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_and_nesting),
      cmocka_unit_test(test_null_and_depth_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
