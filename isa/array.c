/* array.c: element types, shapes, dense arrays and NumPy .npy files (ovta_base.h section 5): shared
 * by the compiler (compiler/graph/ wraps them in tensors) and the plan runtime (plan/).
 *
 * .npy format: "\x93NUMPY", major, minor, header length (u16 LE for 1.0, u32 LE for 2.0/3.0), then
 * an ASCII Python dict {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
 * spaces and a final '\n' so the data starts at a multiple of 64 bytes; then the raw data. */
#include "ovta_base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- types */

static const struct {
  ovta_dtype t;
  const char *name;
  size_t size;
} DTYPES[] = {
    {OVTA_DT_UNDEF, "?", 0},   {OVTA_DT_F32, "f32", 4},    {OVTA_DT_U8, "u8", 1},
    {OVTA_DT_I8, "i8", 1},     {OVTA_DT_U16, "u16", 2},    {OVTA_DT_I16, "i16", 2},
    {OVTA_DT_I32, "i32", 4},   {OVTA_DT_I64, "i64", 8},    {OVTA_DT_STRING, "string", 0},
    {OVTA_DT_BOOL, "bool", 1}, {OVTA_DT_F16, "f16", 2},    {OVTA_DT_F64, "f64", 8},
    {OVTA_DT_U32, "u32", 4},   {OVTA_DT_U64, "u64", 8},    {OVTA_DT_BF16, "bf16", 2},
};
#define N_DTYPES (int)(sizeof DTYPES / sizeof DTYPES[0])

size_t ovta_dtype_size(ovta_dtype t) {
  for (int i = 0; i < N_DTYPES; i++)
    if (DTYPES[i].t == t) return DTYPES[i].size;
  return 0;
}

const char *ovta_dtype_name(ovta_dtype t) {
  for (int i = 0; i < N_DTYPES; i++)
    if (DTYPES[i].t == t) return DTYPES[i].name;
  return "?";
}

ovta_dtype ovta_dtype_parse(const char *name) {
  for (int i = 1; i < N_DTYPES; i++)
    if (strcmp(DTYPES[i].name, name) == 0) return DTYPES[i].t;
  return OVTA_DT_UNDEF;
}


#define NUMEL_MAX ((int64_t)1 << 62)

int64_t ovta_shape_numel(const int64_t *shape, int rank) {
  if (rank < 0) return -1;
  int64_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (shape[i] < 0) return -1;
    if (shape[i] == 0) n = 0;
    else if (n > NUMEL_MAX / shape[i]) return -1;
    else n *= shape[i];
  }
  return n;
}

void ovta_array_clear(ovta_array *a) {
  free(a->data);
  memset(a, 0, sizeof *a);
}

void ovta_shape_text(const int64_t *s, int r, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "x" : "", (long long)s[i]);
  if (r == 0) snprintf(buf, n, "scalar");
}

/* ---------------------------------------------------------------- .npy files */

static const struct {
  const char *descr; /* without the byte-order character */
  ovta_dtype dt;     /* tensor dtype */
} DESCR[] = {{"f4", OVTA_DT_F32}, {"f8", OVTA_DT_F64}, {"i1", OVTA_DT_I8},  {"u1", OVTA_DT_U8},
             {"i2", OVTA_DT_I16}, {"u2", OVTA_DT_U16}, {"i4", OVTA_DT_I32}, {"u4", OVTA_DT_U32},
             {"i8", OVTA_DT_I64}, {"u8", OVTA_DT_U64}, {"b1", OVTA_DT_BOOL}};

/* The value text after 'key': in the header dict, or NULL. */
static const char *dict_value(const char *h, const char *key) {
  char pat[32];
  snprintf(pat, sizeof pat, "'%s'", key);
  const char *p = strstr(h, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ' || *p == ':') p++;
  return p;
}

int ovta_npy_load(const char *path, ovta_array *out, ovta_error *err) {
  ovta_array_clear(out);
  char *d;
  size_t n;
  int rc = ovta_read_file(path, OVTA_SIZE_CAP(34), &d, &n, err);
  if (rc) return rc;
  if (n < 10 || memcmp(d, "\x93NUMPY", 6) != 0) {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: not a .npy file (bad magic)", path);
    goto done;
  }
  unsigned major = (unsigned char)d[6];
  size_t hl, hs;
  if (major == 1) hl = (unsigned char)d[8] | (size_t)(unsigned char)d[9] << 8, hs = 10;
  else if ((major == 2 || major == 3) && n >= 12)
    hl = (unsigned char)d[8] | (size_t)(unsigned char)d[9] << 8 | (size_t)(unsigned char)d[10] << 16 |
         (size_t)(unsigned char)d[11] << 24,
    hs = 12;
  else {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: unsupported .npy version %u", path, major);
    goto done;
  }
  if (hl > n - hs) {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: header length %zu past the end of the file", path, hl);
    goto done;
  }
  char *h = malloc(hl + 1);
  if (!h) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  memcpy(h, d + hs, hl);
  h[hl] = 0;
  for (size_t i = 0; i < hl; i++) /* one line in messages: the padding's '\n' and control bytes */
    if ((unsigned char)h[i] < ' ') h[i] = ' ';
  for (size_t i = hl; i > 0 && h[i - 1] == ' '; i--) h[i - 1] = 0;
  const char *ds = dict_value(h, "descr"), *fo = dict_value(h, "fortran_order"), *sh = dict_value(h, "shape");
  ovta_dtype dt = OVTA_DT_UNDEF;
  int rank = 0;
  int64_t shape[OVTA_MAX_RANK];
  if (!ds || !fo || !sh || *ds != '\'' || *sh != '(') {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: header without descr, fortran_order or shape: %.100s", path, h);
    goto hdone;
  }
  if (strncmp(fo, "False", 5) != 0) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: Fortran-order arrays are not supported", path);
    goto hdone;
  }
  char bo = ds[1];
  for (size_t i = 0; bo && i < sizeof DESCR / sizeof DESCR[0]; i++) /* bo 0: the header ends at ds + 1 */
    if (strncmp(ds + 2, DESCR[i].descr, 2) == 0 && ds[4] == '\'') dt = DESCR[i].dt;
  if (dt == OVTA_DT_UNDEF || (bo != '<' && bo != '|' && !(bo == '=' ))) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: dtype %.*s not supported (little-endian numbers and bool only)", path,
                   (int)strcspn(ds + 1, "'") + 2 > 12 ? 12 : (int)strcspn(ds + 1, "'") + 2, ds);
    goto hdone;
  }
  int shlen = (int)strcspn(sh, ")") + (strchr(sh, ')') ? 1 : 0); /* the shape's text in messages */
  if (shlen > 80) shlen = 80;
  const char *p = sh + 1;
  while (*p && *p != ')') {
    while (*p == ' ' || *p == ',') p++;
    if (*p == ')') break;
    char *end;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || errno || rank >= OVTA_MAX_RANK) {
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: bad shape %.*s", path, shlen, sh);
      goto hdone;
    }
    shape[rank++] = v;
    p = end;
  }
  int64_t numel = ovta_shape_numel(shape, rank);
  if (numel < 0 || numel > (int64_t)(OVTA_SIZE_CAP(40) / ovta_dtype_size(dt))) {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: the element count of shape %.*s overflows", path, shlen, sh);
    goto hdone;
  }
  size_t bytes = (size_t)numel * ovta_dtype_size(dt);
  if (bytes > n - hs - hl) {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: shape needs %zu bytes of data, the file has %zu", path, bytes, n - hs - hl);
    goto hdone;
  }
  if (!(out->data = malloc(bytes ? bytes : 1))) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", path);
    goto hdone;
  }
  memcpy(out->data, d + hs + hl, bytes);
  out->dtype = dt, out->rank = rank, out->nbytes = bytes;
  memcpy(out->shape, shape, sizeof(int64_t) * (size_t)rank);
hdone:
  free(h);
done:
  free(d);
  return rc;
}

int ovta_npy_store(const char *path, const char *name, ovta_dtype dt, int rank, const int64_t *shape,
                   const void *data, size_t nbytes, ovta_error *err) {
  const char *descr = NULL;
  for (size_t i = 0; i < sizeof DESCR / sizeof DESCR[0]; i++)
    if (DESCR[i].dt == dt) descr = DESCR[i].descr;
  if (!descr) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: tensor %s of dtype %s has no .npy type", path, name,
                               ovta_dtype_name(dt));
  int64_t numel = ovta_shape_numel(shape, rank);
  size_t bytes = numel < 0 ? 0 : (size_t)numel * ovta_dtype_size(dt);
  if (numel < 0 || (bytes && (!data || nbytes < bytes)))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: tensor %s has no data or an unknown shape", path, name);
  char h[512];
  int k = snprintf(h, sizeof h, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                   strcmp(descr, "i1") == 0 || strcmp(descr, "u1") == 0 || strcmp(descr, "b1") == 0 ? '|' : '<', descr);
  for (int i = 0; i < rank; i++) k += snprintf(h + k, sizeof h - (size_t)k, "%lld,%s", (long long)shape[i],
                                                  i + 1 < rank ? " " : "");
  if (rank > 1) k--; /* numpy writes (2, 3) but (5,) */
  k += snprintf(h + k, sizeof h - (size_t)k, "), }");
  int total = 10 + k + 1;
  int pad = (64 - total % 64) % 64;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
  size_t hl = (size_t)k + (size_t)pad + 1;
  pre[8] = hl & 0xff;
  pre[9] = (hl >> 8) & 0xff;
  FILE *f = fopen(path, "wb");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno));
  fwrite(pre, 1, 10, f);
  fwrite(h, 1, (size_t)k, f);
  for (int i = 0; i < pad; i++) fputc(' ', f);
  fputc('\n', f);
  if (bytes) fwrite(data, 1, bytes, f);
  if (fclose(f) != 0) return OVTA_FAIL(err, OVTA_EIO, "%s: write failed", path);
  return 0;
}
