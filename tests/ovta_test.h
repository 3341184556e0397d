/* ovta_test.h: what every test includes: cmocka and the ovta headers, plus assertion helpers
 * that print the ovta error message when a call fails. */
#ifndef OVTA_TEST_H
#define OVTA_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

#endif
