/* ovta_test.h: what every test includes: cmocka and the ovta headers, plus assertion helpers
 * that print the ovta error message when a call fails, and the fixtures the tests share
 * (configs, random data, scratch files, reading files). Further shared fixtures:
 * tests/ovta_test_dev.h (devices), tests/ovta_test_model.h (whole models, Fashion-MNIST). */
#ifndef OVTA_TEST_H
#define OVTA_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The config `name` into *cfg; fails the test on an error. */
static inline void ovta_test_config(const char *name, ovta_config *cfg) {
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load(name, cfg, &err), err);
}

/* The ISA of config `name` into *isa; fails the test on an error. */
static inline void ovta_test_isa(const char *name, ovta_isa *isa) {
  ovta_config cfg;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_config_load(name, &cfg, &err), err);
  OVTA_ASSERT_OK(ovta_isa_init(isa, &cfg, &err), err);
}

/* Program p in the assembler's text form (ovta_program_write), as a malloc'd string. */
static inline char *ovta_test_program_text(const ovta_program *p) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_program_write(f, p, &err), err);
  fclose(f);
  return text;
}

/* n pseudo-random int8 values, the same for the same seed. */
static inline void ovta_test_fill_i8(int8_t *x, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 7u;
  for (size_t i = 0; i < n; i++) s = s * 1103515245u + 12345u, x[i] = (int8_t)(s >> 16);
}

/* The positive integer in environment variable `name` (e.g. a seed count), else dflt. */
static inline int ovta_test_env_int(const char *name, int dflt) {
  const char *e = getenv(name);
  int n = e ? atoi(e) : 0;
  return n > 0 ? n : dflt;
}

/* A new empty folder /tmp/ovta-TAG-XXXXXX, its path in path[cap] (remove it with ovta_test_rm_rf). */
static inline void ovta_test_tmpdir(char *path, size_t cap, const char *tag) {
  snprintf(path, cap, "/tmp/ovta-%s-XXXXXX", tag);
  if (!mkdtemp(path)) fail_msg("mkdtemp %s failed", path);
}

/* A new empty file /tmp/ovta-TAG-XXXXXX, its path in path[cap] (remove it with unlink). */
static inline void ovta_test_tmpfile(char *path, size_t cap, const char *tag) {
  snprintf(path, cap, "/tmp/ovta-%s-XXXXXX", tag);
  int fd = mkstemp(path);
  if (fd < 0) fail_msg("mkstemp %s failed", path);
  close(fd);
}

/* Remove path and everything below it (a scratch folder of ovta_test_tmpdir). */
static inline void ovta_test_rm_rf(const char *path) {
  char cmd[1100];
  assert_true(strncmp(path, "/tmp/ovta-", 10) == 0); /* only scratch files of the tests */
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  assert_int_equal(system(cmd), 0);
}

/* The whole file at path (at most 64 MiB), NUL-terminated, malloc'd; its length in *len when len
 * is given. Fails the test when it cannot be read. */
static inline char *ovta_test_read_file(const char *path, size_t *len) {
  char *data = NULL;
  size_t n = 0;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_read_file(path, (size_t)64 << 20, &data, &n, &err), err);
  if (len) *len = n;
  return data;
}

#endif
