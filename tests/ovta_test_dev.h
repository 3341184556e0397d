/* ovta_test_dev.h: devices for the tests: a config by name and a device of a backend on it. */
#ifndef OVTA_TEST_DEV_H
#define OVTA_TEST_DEV_H

#include "ovta_test.h"
#include "ovta_driver.h"

/* Load config cfgname into *cfg and open a device of backend on it (opts may be NULL); *cfg must
 * stay valid while the device is open. Fails the test on an error. */
static inline ovta_dev *ovta_test_dev_open(const char *backend, const char *cfgname, const ovta_dev_opts *opts,
                                           ovta_config *cfg) {
  ovta_error err = {0};
  ovta_dev *dev = NULL;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, cfg, &err), err);
  OVTA_ASSERT_OK(ovta_dev_open(backend, cfg, opts, &dev, &err), err);
  return dev;
}

#endif
