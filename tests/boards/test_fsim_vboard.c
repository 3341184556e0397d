/* The directed fsim tests (tests/fsim/test_fsim.c: references computed independently in C) on
 * the virtual board: runs build/tests/fsim/test_fsim with OVTA_TEST_BACKENDS=vboard, so the zynq
 * backend code (through driver/backend_vboard.c) must give the reference results on every
 * config. Its cmocka report is this test's report. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  (void)argc;
  char self[4096], path[4200];
  snprintf(self, sizeof self, "%s", argv[0]);
  snprintf(path, sizeof path, "%s/../fsim/test_fsim", dirname(self));
  setenv("OVTA_TEST_BACKENDS", "vboard", 1);
  execl(path, path, (char *)NULL);
  fprintf(stderr, "test_fsim_vboard: cannot run %s: %s\n", path, strerror(errno));
  return 1;
}
