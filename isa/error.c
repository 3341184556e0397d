/* error.c: the one error type (ovta_base.h section 1). */
#include "ovta_base.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>

int ovta_error_set(ovta_error *e, int code, const char *file, int line, const char *fmt, ...) {
  if (!e) return code;
  e->code = code;
  e->file = file;
  e->line = line;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

int ovta_error_wrap(ovta_error *e, const char *fmt, ...) {
  if (!e) return OVTA_EINTERNAL;
  char prefix[256], old[sizeof e->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof old);
  snprintf(e->msg, sizeof e->msg, "%s: %.500s", prefix, old);
  return e->code;
}

void ovta_error_clear(ovta_error *e) {
  if (!e) return;
  e->code = OVTA_OK;
  e->file = NULL;
  e->line = 0;
  e->msg[0] = 0;
}

const char *ovta_rc_name(int code) {
  switch (code) {
  case OVTA_OK: return "ok";
  case OVTA_EINVAL: return "invalid-argument";
  case OVTA_ENOMEM: return "out-of-memory";
  case OVTA_EIO: return "io";
  case OVTA_EPARSE: return "parse";
  case OVTA_ECONFIG: return "config";
  case OVTA_EINSN: return "invalid-instruction";
  case OVTA_EDEADLOCK: return "deadlock";
  case OVTA_ETIMEOUT: return "timeout";
  case OVTA_EUNSUPPORTED: return "unsupported";
  case OVTA_EINTERNAL: return "internal";
  default: return "unknown";
  }
}

void ovta_error_print(FILE *f, const ovta_error *e) {
  if (!e || e->code == OVTA_OK) return;
  fprintf(f, "ovta: error: %s [%s at %s:%d]\n", e->msg, ovta_rc_name(e->code),
          e->file ? e->file : "?", e->line);
}

_Noreturn void ovta_unreachable_at(const char *file, int line, const char *what) {
  fprintf(stderr, "ovta: internal error at %s:%d in %s; please report this bug\n", file, line, what);
  abort();
}

int ovta_read_file(const char *path, size_t max_bytes, char **data, size_t *len, ovta_error *err) {
  *data = NULL;
  if (len) *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: cannot open: %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) {
    fclose(f);
    return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
  }
  for (;;) {
    if (n == cap) {
      char probe;
      if (cap >= max_bytes && fread(&probe, 1, 1, f) == 0) break; /* exactly at the limit */
      if (cap >= max_bytes) {
        free(buf);
        fclose(f);
        return OVTA_FAIL(err, OVTA_EIO, "%s: larger than the limit of %zu bytes", path, max_bytes);
      }
      size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
      char *nb = realloc(buf, ncap + 1);
      if (!nb) {
        free(buf);
        fclose(f);
        return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return OVTA_FAIL(err, OVTA_EIO, "%s: read error", path);
  }
  buf[n] = 0;
  *data = buf;
  if (len) *len = n;
  return OVTA_OK;
}
