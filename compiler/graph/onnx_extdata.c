/* onnx_extdata.c: ONNX external data -- the bytes of a TensorProto whose data_location is
 * EXTERNAL, read from a file beside the model (onnx/docs/ExternalData.md).
 *
 * The spec: the tensor's external_data holds string key/value pairs
 *   location  the data file's path, relative to the directory of the model file (required)
 *   offset    where the bytes start in that file, in bytes (optional, default 0)
 *   length    how many bytes (optional; absent: up to the end of the file)
 *   checksum  SHA-1 of the bytes (optional; not verified here)
 * and the bytes have raw_data's layout (little-endian, the shape's element count x element size).
 * Other keys are ignored, as onnx's own loader does.
 *
 * The model is a user's input and the location a path it chooses, so it is checked like one:
 *   - not empty, not absolute, no ".." component; only then joined to the model's directory;
 *   - the real path of the result (realpath: every symlink resolved) lies inside the real path of
 *     the model's directory, and is a regular file;
 *   - offset and length are plain decimal numbers <= INT64_MAX; offset <= the file's size,
 *     length <= size - offset, and length equals the bytes the shape needs (checked before the
 *     tensor is allocated, so a lying shape allocates nothing).
 * The bytes are read once, straight into the tensor (pread). A model read from memory or from a
 * pipe has no directory: its external data is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_extdata.h"

/* A decimal number without sign or spaces, at most INT64_MAX. */
static bool parse_size(const char *s, uint64_t *v) {
  *v = 0;
  if (!s || !*s) return false;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    uint64_t d = (uint64_t)(*s - '0');
    if (*v > ((uint64_t)INT64_MAX - d) / 10) return false;
    *v = *v * 10 + d;
  }
  return true;
}

/* The location's own checks, before it touches the file system: relative, no ".." component. */
static int check_location(const char *loc, const char *where, ovta_error *err) {
  if (!loc[0]) return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data: the location is empty", where);
  if (loc[0] == '/')
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': an absolute location is refused (it must be "
                     "relative to the model's directory)", where, loc);
  for (const char *p = loc; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.')
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': a '..' component is refused (the file must "
                       "stay inside the model's directory)", where, loc);
    p += n + (p[n] == '/');
  }
  return OVTA_OK;
}

/* The key/value pairs: location (required), offset, length; each at most once. */
static int read_keys(const Onnx__TensorProto *tp, const char *where, const char **loc, uint64_t *off,
                     uint64_t *len, bool *has_len, ovta_error *err) {
  *loc = NULL, *off = 0, *len = 0, *has_len = false;
  bool has_off = false;
  for (size_t i = 0; i < tp->n_external_data; i++) {
    const Onnx__StringStringEntryProto *e = tp->external_data[i];
    const char *k = e->key ? e->key : "", *v = e->value ? e->value : "";
    bool *seen = !strcmp(k, "offset") ? &has_off : !strcmp(k, "length") ? has_len : NULL;
    if (!strcmp(k, "location")) {
      if (*loc) return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data: key 'location' is given twice", where);
      *loc = v;
    } else if (seen) {
      if (*seen) return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data: key '%s' is given twice", where, k);
      *seen = true;
      if (!parse_size(v, seen == &has_off ? off : len))
        return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data: %s '%.40s' is not a byte count (decimal, "
                         "at most %lld)", where, k, v, (long long)INT64_MAX);
    }
  }
  if (!*loc) return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data without a 'location' key", where);
  return OVTA_OK;
}

/* Resolve dir/loc and open it: its real path must lie inside dir (itself a real path). */
static int open_inside(const char *dir, const char *loc, const char *where, int *fd, ovta_error *err) {
  char joined[PATH_MAX], real[PATH_MAX];
  if ((size_t)snprintf(joined, sizeof joined, "%s/%s", dir, loc) >= sizeof joined)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%.80s...': the path is too long", where, loc);
  if (!realpath(joined, real))
    return OVTA_FAIL(err, OVTA_EIO, "%s: external data '%s': cannot open %s: %s", where, loc, joined, strerror(errno));
  size_t dl = strlen(dir);
  bool inside = dl == 1 ? real[0] == '/' : !strncmp(real, dir, dl) && real[dl] == '/';
  if (!inside)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': it resolves to %s, outside the model's directory "
                     "%s (a symlink out of it is refused)", where, loc, real, dir);
  *fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (*fd < 0) return OVTA_FAIL(err, OVTA_EIO, "%s: external data '%s': cannot open %s: %s", where, loc, real, strerror(errno));
  return OVTA_OK;
}

/* offset and length against the file's size and against the bytes the shape needs. */
static int check_range(int fd, const char *loc, const char *where, uint64_t off, uint64_t len, bool has_len,
                       uint64_t nbytes, ovta_error *err) {
  struct stat st;
  if (fstat(fd, &st) != 0)
    return OVTA_FAIL(err, OVTA_EIO, "%s: external data '%s': cannot stat: %s", where, loc, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': not a regular file", where, loc);
  uint64_t size = (uint64_t)st.st_size;
  if (off > size)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': offset %llu is beyond the file's %llu bytes", where,
                     loc, (unsigned long long)off, (unsigned long long)size);
  if (!has_len) len = size - off;
  if (len > size - off)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': offset %llu + length %llu is beyond the file's %llu "
                     "bytes", where, loc, (unsigned long long)off, (unsigned long long)len, (unsigned long long)size);
  if (len != nbytes)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data '%s': %s %llu bytes, the shape needs %llu", where, loc,
                     has_len ? "length is" : "the file holds", (unsigned long long)len, (unsigned long long)nbytes);
  return OVTA_OK;
}

int onnx_ext_open(const Onnx__TensorProto *tp, const char *dir, const char *where, uint64_t nbytes, onnx_ext *x,
                  ovta_error *err) {
  x->fd = -1, x->offset = 0, x->loc = NULL;
  const char *loc;
  uint64_t len;
  bool has_len;
  int rc = read_keys(tp, where, &loc, &x->offset, &len, &has_len, err);
  if (!rc) rc = check_location(loc, where, err);
  if (rc) return rc;
  if (!dir)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: external data '%s': the model was not read from a file in a "
                     "directory (memory or a pipe), so there is no folder to find it in", where, loc);
  if ((rc = open_inside(dir, loc, where, &x->fd, err))) return rc;
  x->loc = loc;
  if ((rc = check_range(x->fd, loc, where, x->offset, len, has_len, nbytes, err))) onnx_ext_close(x);
  return rc;
}

int onnx_ext_read(onnx_ext *x, void *dst, uint64_t nbytes, const char *where, ovta_error *err) {
  char *p = dst;
  uint64_t done = 0;
  int rc = OVTA_OK;
  while (!rc && done < nbytes) {
    size_t want = nbytes - done > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)(nbytes - done);
    ssize_t got = pread(x->fd, p + done, want, (off_t)(x->offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) rc = OVTA_FAIL(err, OVTA_EIO, "%s: external data '%s': read error: %s", where, x->loc, strerror(errno));
    else if (got == 0)
      rc = OVTA_FAIL(err, OVTA_EIO, "%s: external data '%s': the file ended after %llu of %llu bytes (changed while "
                     "read?)", where, x->loc, (unsigned long long)done, (unsigned long long)nbytes);
    else done += (uint64_t)got;
  }
  onnx_ext_close(x);
  return rc;
}

void onnx_ext_close(onnx_ext *x) {
  if (x->fd >= 0) close(x->fd);
  x->fd = -1;
}

int onnx_model_dir(const char *path, char **dir, ovta_error *err) {
  *dir = NULL;
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return OVTA_OK; /* a pipe, a device: no folder */
  const char *slash = strrchr(path, '/');
  char *d = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  if (!d) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  *dir = realpath(d, NULL);
  int e = errno;
  free(d);
  if (!*dir) return OVTA_FAIL(err, OVTA_EIO, "%s: cannot resolve the model's directory: %s", path, strerror(e));
  return OVTA_OK;
}
