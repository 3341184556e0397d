/* Replays every file of tests/fuzz/corpus/NAME/ and tests/fuzz/regress/NAME/ through the fuzz
 * target NAME (linked in beside this file) in the normal build, so `make test` keeps every seed
 * and every crash ever found fixed. A crash fails the test by crashing; the target itself checks
 * what must hold (no error without a message, ...). Prints cmocka-style result lines. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_base.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *data;
    size_t len;
    ovta_error err;
    if (ovta_read_file(path, 16 << 20, &data, &len, &err)) continue;
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    (*count)++;
  }
  closedir(d);
  return 0;
}

int main(void) {
  int n = 0;
  replay_dir(OVTA_SRC_DIR "/tests/fuzz/corpus/" FUZZ_NAME, &n);
  replay_dir(OVTA_SRC_DIR "/tests/fuzz/regress/" FUZZ_NAME, &n);
  printf("[==========] fuzz replay %s: %d input(s)\n", FUZZ_NAME, n);
  if (n == 0) {
    printf("[  FAILED  ] 1 test(s), listed below:\n[  FAILED  ] %s: no seed inputs\n", FUZZ_NAME);
    return 1;
  }
  printf("[  PASSED  ] 1 test(s).\n");
  return 0;
}
