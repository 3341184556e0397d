/* ovta_test.h: what every test includes: cmocka and the ovta headers, plus assertion helpers
 * that print the ovta error message when a call fails. */
#ifndef OVTA_TEST_H
#define OVTA_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ovta_isa.h"

/* Assert that an ovta call returned OVTA_OK; print its error otherwise. */
#define OVTA_ASSERT_OK(call, err)                                                                  \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_ != OVTA_OK) fail_msg("%s -> %s: %s", #call, ovta_rc_name(rc_), (err).msg);             \
  } while (0)

/* Configs every backend test runs on, NULL-terminated. */
static inline const char *const *ovta_test_configs(void) {
  static const char *const list[] = {"default", "small", "batch2", NULL};
  return list;
}

/* Backends to test: env OVTA_TEST_BACKENDS, comma-separated (default "fsim"), NULL-terminated.
 * The same tests then run on tsim with OVTA_TEST_BACKENDS=fsim,tsim. */
static inline const char *const *ovta_test_backends(void) {
  static char buf[256];
  static const char *list[16];
  const char *env = getenv("OVTA_TEST_BACKENDS");
  if (!env || !*env) env = "fsim";
  snprintf(buf, sizeof buf, "%s", env);
  int n = 0;
  for (char *save = NULL, *t = strtok_r(buf, ", ", &save); t && n < 15; t = strtok_r(NULL, ", ", &save))
    list[n++] = t;
  list[n] = NULL;
  return list;
}

#endif
