/* The fsim fuzz target reuses one device per config across inputs (tests/fuzz/fuzz_fsim.c):
 * an input's result must not depend on the inputs before it. Every input of the fsim seed corpus
 * and regression folder (and of the folders given as arguments: a campaign's corpus; -v first
 * lists each input's outcome) runs on a freshly opened device, then on the reused devices in file
 * order, in reverse order and in two shuffled orders; the digests (code, message, counters, DRAM
 * buffers, every SRAM) must agree. The inputs must end in each way a run can end (OK, invalid
 * instruction, deadlock, work budget), so that each is compared. Prints cmocka-style lines. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_fsim.h"
#include "ovta_base.h"

/* One input file. */
typedef struct input {
  char *name;     /* the path */
  uint8_t *data;  /* its bytes */
  size_t len;     /* how many */
  fsim_fuzz_result fresh; /* its result on a freshly opened device */
} input;

static input *ins;       /* the inputs read */
static size_t n_in, cap; /* count and capacity */

static int by_name(const void *a, const void *b) {
  return strcmp(((const input *)a)->name, ((const input *)b)->name);
}

static void read_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    char *data;
    size_t len;
    ovta_error err;
    if (ovta_read_file(path, 16 << 20, &data, &len, &err)) continue;
    if (n_in == cap) {
      cap = cap ? 2 * cap : 64;
      ins = realloc(ins, cap * sizeof *ins);
      if (!ins) abort();
    }
    ins[n_in++] = (input){strdup(path), (uint8_t *)data, len, {0, 0}};
  }
  closedir(d);
}

/* Run every input on the reused devices in the order of idx; the first input whose digest
 * differs from its fresh one (NULL: none). */
static const input *run_order(const size_t *idx) {
  for (size_t k = 0; k < n_in; k++) {
    const input *in = &ins[idx[k]];
    fsim_fuzz_result r;
    fsim_fuzz_one(in->data, in->len, false, &r);
    if (r.rc != in->fresh.rc || r.digest != in->fresh.digest) return in;
  }
  return NULL;
}

int main(int argc, char **argv) {
  read_dir(OVTA_SRC_DIR "/tests/fuzz/corpus/fsim");
  read_dir(OVTA_SRC_DIR "/tests/fuzz/regress/fsim");
  bool verbose = argc > 1 && !strcmp(argv[1], "-v"); /* -v: each input's outcome */
  for (int a = verbose ? 2 : 1; a < argc; a++) read_dir(argv[a]);
  qsort(ins, n_in, sizeof *ins, by_name);
  /* the outcomes the inputs must cover, so that each kind of run end is checked */
  static const int kinds[] = {OVTA_OK, OVTA_EINSN, OVTA_EDEADLOCK, OVTA_ETIMEOUT};
  int seen[4] = {0};
  for (size_t i = 0; i < n_in; i++) {
    fsim_fuzz_one(ins[i].data, ins[i].len, true, &ins[i].fresh);
    for (int k = 0; k < 4; k++) seen[k] += ins[i].fresh.rc == kinds[k];
    if (verbose) printf("%s %s\n", ovta_rc_name(ins[i].fresh.rc), ins[i].name);
  }
  printf("[==========] fsim_order: %zu inputs: %d OK, %d EINSN, %d EDEADLOCK, %d ETIMEOUT (work budget)\n", n_in,
         seen[0], seen[1], seen[2], seen[3]);
  size_t *idx = malloc((n_in ? n_in : 1) * sizeof *idx);
  if (!idx) abort();
  static const char *const orders[4] = {"file order", "reverse order", "shuffle 1", "shuffle 2"};
  int failed = 0;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  for (int o = 0; o < 4; o++) {
    for (size_t k = 0; k < n_in; k++) idx[k] = o == 1 ? n_in - 1 - k : k;
    for (size_t k = n_in; o >= 2 && k > 1; k--) { /* Fisher-Yates, xorshift64 */
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      size_t j = (size_t)(rng % k), t = idx[k - 1];
      idx[k - 1] = idx[j], idx[j] = t;
    }
    const input *bad = run_order(idx);
    if (bad) {
      printf("[  FAILED  ] fsim_order %s: %s gives another result on the reused device than on a fresh one\n",
             orders[o], bad->name);
      failed++;
    } else printf("[       OK ] fsim_order %s (%zu inputs)\n", orders[o], n_in);
  }
  for (int k = 0; k < 4; k++)
    if (!seen[k]) {
      printf("[  FAILED  ] fsim_order: no input ends with %s\n", ovta_rc_name(kinds[k]));
      failed++;
    }
  for (size_t i = 0; i < n_in; i++) free(ins[i].name), free(ins[i].data);
  free(ins);
  free(idx);
  if (failed) printf("[  FAILED  ] %d test(s)\n", failed);
  else printf("[  PASSED  ] 4 test(s).\n");
  return failed != 0;
}
