/* digest.c: the plan folder's manifest of digests (ovta_plan.h section 2). At compile time
 * ovta_plan_seal records in plan.json, for every file of the folder (params.bin, kernels.o,
 * kernels.so), its size and FNV-1a 64 digest ("files"), and last the digest of plan.json itself
 * ("plan_fnv1a64": the FNV-1a 64 of plan.json's bytes with that member's 16 hex digits read as
 * '0'). At load each command checks plan.json and the files it reads (ovta_plan_check_manifest,
 * ovta_plan_check_file): a file truncated, extended, modified or missing is refused with one error
 * naming it. Plans written before the manifest (no "plan_fnv1a64") are refused too: recompile.
 * FNV-1a (Fowler, Noll, Vo): h = 0xcbf29ce484222325; per byte h ^= b, h *= 0x100000001b3. It
 * catches damage, not tampering (no secret). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "ovta_plan.h"

#define KEY "\"plan_fnv1a64\""

const char *const ovta_plan_file_names[OVTA_PLAN_MAX_FILES] = {"params.bin", "kernels.o", "kernels.so"};

uint64_t ovta_fnv1a64(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
  return h;
}

/* Where the 16 hex digits of plan.json's own digest start in txt (len bytes), or NULL: after the
 * last KEY, optional white space, ':', white space and '"'; followed by '"'. */
static char *self_digits(char *txt, size_t len) {
  char *k = NULL;
  for (char *p = txt; (p = memmem(p, len - (size_t)(p - txt), KEY, strlen(KEY))); p++) k = p;
  if (!k) return NULL;
  char *p = k + strlen(KEY), *end = txt + len;
  while (p < end && strchr(" \t\r\n", *p)) p++;
  if (p >= end || *p++ != ':') return NULL;
  while (p < end && strchr(" \t\r\n", *p)) p++;
  if (end - p < 18 || *p != '"' || p[17] != '"') return NULL;
  return p + 1;
}

/* The digest of plan.json text with its own digits as '0' (digits: where they are). */
static uint64_t self_digest(char *digits, const char *txt, size_t len) {
  char keep[16];
  memcpy(keep, digits, 16);
  memset(digits, '0', 16);
  uint64_t h = ovta_fnv1a64(txt, len);
  memcpy(digits, keep, 16);
  return h;
}

/* 16 lowercase hex digits as a number. */
static bool parse_hex16(const char *s, uint64_t *v) {
  *v = 0;
  for (int i = 0; i < 16; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return false;
    *v = *v << 4 | (uint64_t)d;
  }
  return true;
}

int ovta_plan_check_manifest(char *txt, size_t len, const char *where, ovta_error *err) {
  char *d = self_digits(txt, len);
  uint64_t want;
  if (!d) return 1; /* no digest: the caller tells an old plan from a damaged one */
  if (!parse_hex16(d, &want) || self_digest(d, txt, len) != want)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: damaged: its digest does not match its content (modified or cut since ovta compile)", where);
  return 0;
}

int ovta_plan_load_files(ovta_plan *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *fs = cJSON_GetObjectItemCaseSensitive(root, "files"), *f;
  const cJSON *self = cJSON_GetObjectItemCaseSensitive(root, "plan_fnv1a64");
  uint64_t v;
  if (!self)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: no digests of the plan's files (a plan written before ovta checked them): recompile it with ovta compile", where);
  /* (a well-formed one was checked against the text by ovta_plan_check_manifest) */
  if (!cJSON_IsString(self) || strlen(self->valuestring) != 16 || !parse_hex16(self->valuestring, &v) || !cJSON_IsObject(fs))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed manifest (files, plan_fnv1a64)", where);
  cJSON_ArrayForEach(f, fs) {
    int k = 0;
    while (k < OVTA_PLAN_MAX_FILES && strcmp(f->string, ovta_plan_file_names[k]) != 0) k++;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(f, "bytes"), *h = cJSON_GetObjectItemCaseSensitive(f, "fnv1a64");
    ovta_plan_file *pf = &e->files[k < OVTA_PLAN_MAX_FILES ? k : 0];
    if (k == OVTA_PLAN_MAX_FILES || pf->listed || !cJSON_IsNumber(b) || b->valuedouble < 0 || b->valuedouble > 0x1p50 ||
        !cJSON_IsString(h) || strlen(h->valuestring) != 16 || !parse_hex16(h->valuestring, &pf->fnv1a64))
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed manifest (files: %s)", where, f->string ? f->string : "?");
    pf->listed = true, pf->bytes = (uint64_t)b->valuedouble;
  }
  return 0;
}

int ovta_plan_check_file(const ovta_plan *e, const char *dir, const char *name, const void *data, size_t n,
                         ovta_error *err) {
  int k = 0;
  while (k < OVTA_PLAN_MAX_FILES && strcmp(name, ovta_plan_file_names[k]) != 0) k++;
  if (k == OVTA_PLAN_MAX_FILES || !e->files[k].listed)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s/%s: not in the plan's manifest (plan.json files)", dir, name);
  const ovta_plan_file *f = &e->files[k];
  if (n != f->bytes)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s/%s: damaged: %zu bytes, the plan's manifest says %" PRIu64 " (cut or extended since ovta compile)",
                     dir, name, n, f->bytes);
  if (ovta_fnv1a64(data, n) != f->fnv1a64)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s/%s: damaged: its digest differs from the plan's manifest (modified since ovta compile)", dir, name);
  return 0;
}

int ovta_plan_check_path(const ovta_plan *e, const char *dir, const char *name, ovta_error *err) {
  char path[4200], *d;
  size_t n;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = ovta_read_file(path, OVTA_SIZE_CAP(34), &d, &n, err);
  if (rc) return rc;
  rc = ovta_plan_check_file(e, dir, name, d, n, err);
  free(d);
  return rc;
}

/* The "files" member: size and digest of every file of the folder that exists. */
static int add_files(cJSON *root, const char *dir, ovta_error *err) {
  cJSON *fs = cJSON_AddObjectToObject(root, "files");
  for (int k = 0; fs && k < OVTA_PLAN_MAX_FILES; k++) {
    char path[4200], *d, hex[17];
    size_t n;
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, ovta_plan_file_names[k]);
    if (stat(path, &st) != 0 && errno == ENOENT) continue;
    int rc = ovta_read_file(path, OVTA_SIZE_CAP(34), &d, &n, err);
    if (rc) return rc;
    snprintf(hex, sizeof hex, "%016" PRIx64, ovta_fnv1a64(d, n));
    free(d);
    cJSON *o = cJSON_AddObjectToObject(fs, ovta_plan_file_names[k]);
    if (!o || !cJSON_AddNumberToObject(o, "bytes", (double)n) || !cJSON_AddStringToObject(o, "fnv1a64", hex)) fs = NULL;
  }
  return fs ? 0 : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
}

int ovta_plan_seal(const char *dir, ovta_error *err) {
  char path[4200], *txt;
  size_t len;
  snprintf(path, sizeof path, "%s/plan.json", dir);
  int rc = ovta_read_file(path, OVTA_SIZE_CAP(34), &txt, &len, err);
  if (rc) return rc;
  cJSON *root = cJSON_ParseWithLength(txt, len);
  free(txt);
  if (!root) return OVTA_FAIL(err, OVTA_EPARSE, "%s: not valid JSON", path);
  cJSON_DeleteItemFromObjectCaseSensitive(root, "files");
  cJSON_DeleteItemFromObjectCaseSensitive(root, "plan_fnv1a64");
  rc = add_files(root, dir, err);
  if (!rc && !cJSON_AddStringToObject(root, "plan_fnv1a64", "0000000000000000")) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  txt = rc ? NULL : cJSON_Print(root);
  cJSON_Delete(root);
  if (rc) return rc;
  if (!txt) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory writing %s", path);
  len = strlen(txt);
  char *d = self_digits(txt, len), hex[17];
  snprintf(hex, sizeof hex, "%016" PRIx64, ovta_fnv1a64(txt, len));
  memcpy(d, hex, 16);
  rc = ovta_plan_write_file(path, txt, len, err);
  free(txt);
  return rc;
}
