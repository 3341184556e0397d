/* The "xrt" backend without a card: it is in the backend table exactly when XRT's headers were
 * there at build time (boards/boards.mk); opening gives a clear error naming the device, the
 * runtime library or the option at fault, and never aborts. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* the condition boards/boards.mk builds the backend under */
#if defined(__has_include)
#if __has_include(</usr/include/xrt/xrt/xrt_device.h>)
#define OVTA_HAVE_XRT 1
#endif
#endif

#include "ovta_test.h"
#include "ovta_driver.h"

static bool listed(const char *name) {
  for (const char *const *n = ovta_backend_names(); *n; n++)
    if (strcmp(*n, name) == 0) return true;
  return false;
}

static int try_open(const char *device_path, ovta_error *err) {
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("alveo-u250", &cfg, err), *err);
  ovta_dev_opts o = {0};
  o.device_path = device_path;
  ovta_dev *dev = NULL;
  ovta_error_clear(err);
  int rc = ovta_dev_open("xrt", &cfg, &o, &dev, err);
  if (rc == OVTA_OK) ovta_dev_close(dev);
  assert_true(rc != OVTA_OK); /* there is no card here */
  assert_null(dev);
  return rc;
}

static void expect(const char *device_path, int rc, const char *part) {
  ovta_error err = {0};
  int got = try_open(device_path, &err);
  if (got != rc) fail_msg("'%s': expected %s, got %s: %s", device_path ? device_path : "(null)", ovta_rc_name(rc),
                          ovta_rc_name(got), err.msg);
  if (!strstr(err.msg, part)) fail_msg("'%s': message \"%s\" lacks \"%s\"", device_path, err.msg, part);
}

#ifdef OVTA_HAVE_XRT
static void test_listed(void **state) {
  (void)state;
  assert_true(listed("xrt"));
}

static void test_bad_options(void **state) {
  (void)state;
  expect("card7", OVTA_EINVAL, "card7");
  expect("-1", OVTA_EINVAL, "-1");
  expect("device=zero", OVTA_EINVAL, "zero");
  expect("device=0,colour=red", OVTA_EINVAL, "colour");
  expect("kernel=", OVTA_EINVAL, "kernel");
  expect("device", OVTA_EINVAL, "device_path");
  setenv("OVTA_XRT_DEVICE", "x", 1);
  expect(NULL, OVTA_EINVAL, "OVTA_XRT_DEVICE");
  unsetenv("OVTA_XRT_DEVICE");
}

static void test_no_runtime(void **state) {
  (void)state;
  setenv("OVTA_XRT_LIB", "/nonexistent/libxrt_coreutil.so.2", 1);
  expect("0", OVTA_EUNSUPPORTED, "/nonexistent/libxrt_coreutil.so.2");
  setenv("OVTA_XRT_LIB", "libm.so.6", 1); /* a library without the XRT functions */
  expect("0", OVTA_EUNSUPPORTED, "xrtDeviceOpen");
  unsetenv("OVTA_XRT_LIB");
}

/* XRT's own failures (it aborts the process when XILINX_XRT is wrong) become errors. */
static void test_no_card(void **state) {
  (void)state;
  const char *saved = getenv("XILINX_XRT");
  char *keep = saved ? strdup(saved) : NULL;
  unsetenv("XILINX_XRT");
  expect("0", OVTA_EUNSUPPORTED, "XILINX_XRT is not set");
  setenv("XILINX_XRT", "/nonexistent-xrt", 1);
  expect("0", OVTA_EUNSUPPORTED, "/nonexistent-xrt/lib/libxrt_core.so.2");
  /* a prefix where XRT finds itself: no card, a clean error */
  const char *core = "/usr/lib/x86_64-linux-gnu/libxrt_core.so.2";
  struct stat st;
  if (stat(core, &st) == 0) {
    char dir[] = "/tmp/ovta-xrt-XXXXXX", lib[64], link[96];
    assert_non_null(mkdtemp(dir));
    snprintf(lib, sizeof lib, "%s/lib", dir);
    snprintf(link, sizeof link, "%s/libxrt_core.so.2", lib);
    assert_int_equal(mkdir(lib, 0700), 0);
    assert_int_equal(symlink(core, link), 0);
    setenv("XILINX_XRT", dir, 1);
    expect("0", OVTA_EIO, "xrt device 0: cannot open the card");
    expect("device=3", OVTA_EIO, "xrt device 3");
    unlink(link), rmdir(lib), rmdir(dir);
  }
  if (keep) setenv("XILINX_XRT", keep, 1);
  else unsetenv("XILINX_XRT");
  free(keep);
}
#else
static void test_not_listed(void **state) {
  (void)state;
  assert_false(listed("xrt"));
  expect("0", OVTA_EUNSUPPORTED, "unknown backend 'xrt'");
}
#endif

int main(void) {
  const struct CMUnitTest tests[] = {
#ifdef OVTA_HAVE_XRT
      cmocka_unit_test(test_listed), cmocka_unit_test(test_bad_options), cmocka_unit_test(test_no_runtime),
      cmocka_unit_test(test_no_card),
#else
      cmocka_unit_test(test_not_listed),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
