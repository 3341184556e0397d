/* remote.c: the remote-run protocol (ovta_remote.h, section 1): frames, their parser over a byte
 * buffer (what tests/fuzz/fuzz_remote.c calls), payload codecs, socket I/O, the token file and
 * file-name checks. serve.c and client.c speak it. */
#include "ovta_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the wire format
 *
 * A session is a TCP stream of frames, each
 *
 *   magic "OVR1" (4 bytes) | type (4 ASCII bytes) | length (uint32, little-endian) | payload
 *
 * checked before anything is allocated: the magic, a known type, and length <= the type's limit
 * (control frames OVTA_REMOTE_MAX_JSON; FILE, INPT, OUTP and STAT - the counters of a plan of
 * any size - the receiver's data limit: the server's --max-bytes, 0 before the token; BYE 0).
 * Payloads:
 *
 *   JSON (HELO PLAN LOAD RUN OK HAVE STAT ERR): one JSON object, UTF-8, not NUL-terminated.
 *   FILE: name length (uint16 LE) | name | the file's bytes. The name is a plain file name
 *         (ovta_remote_name_ok): from the client one of plan.json, params.bin, kernels.so; from
 *         the server trace.raw.
 *   INPT, OUTP (a tensor): name length (uint16 LE, 1..255) | name (no NUL) | dtype (uint8, the
 *         ONNX number of ovta_dtype, not string/undef) | rank (uint8, 0..8) | rank dims (int64
 *         LE each, >= 0) | the elements, C order, little-endian: exactly numel x element size.
 *   BYE, TRCE: empty.
 *
 * The conversation (client -> server, server replies; any request may get ERR {"error": text},
 * after which the server closes the session):
 *
 *   HELO {"version": 1, "token": T}              -> OK {"version": 1}   (first; else ERR)
 *   PLAN {"hash": H, "files": {"plan.json": N, "params.bin": N, "kernels.so": N}}
 *                                                -> HAVE {"have": true|false}
 *   FILE x each file listed (when have is false), no reply
 *   LOAD {"backend": NAME|null, "threads": N, "trace": bool}
 *                                                -> OK {"inputs": [names], "accel_nodes": N, "backend": B}
 *   INPT x each input, then RUN {"stats": bool}   -> OUTP x each output, [STAT [counters]], OK {}
 *   (INPT..RUN repeat: one plan, many runs)
 *   TRCE (LOAD had "trace": true)                -> FILE trace.raw (the device closed, the plan
 *                                                   unloaded: no more runs)
 *   BYE
 *
 * H is FNV-1a 64 of plan.json as 16 hex digits: plan.json records the size and digest of every
 * other file (plan/digest.c), so H names the folder. The server keeps loaded folders under
 * WORK_DIR/plans/H/ once H and every digest checked out, so a plan is sent once. */

static const char magic[4] = {'O', 'V', 'R', '1'};
static const char *const tags[OVTA_RM_NTYPES] = {"HELO", "PLAN", "FILE", "LOAD", "INPT", "RUN ",
                                                 "BYE ", "OK  ", "HAVE", "OUTP", "STAT", "ERR ", "TRCE"};
const char *const ovta_remote_plan_files[OVTA_REMOTE_PLAN_FILES] = {"plan.json", "params.bin", "kernels.so"};

const char *ovta_remote_type_tag(ovta_remote_type t) { return t >= 0 && t < OVTA_RM_NTYPES ? tags[t] : "????"; }

static bool is_data(ovta_remote_type t) { return t == OVTA_RM_FILE || t == OVTA_RM_INPT || t == OVTA_RM_OUTP; }

size_t ovta_remote_max_payload(ovta_remote_type t, size_t max_data) {
  if (t == OVTA_RM_BYE || t == OVTA_RM_TRCE) return 0;
  return is_data(t) || t == OVTA_RM_STAT ? max_data : OVTA_REMOTE_MAX_JSON;
}

static uint32_t get_u32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void put_u32(uint8_t *p, uint32_t v) { p[0] = v & 255, p[1] = v >> 8 & 255, p[2] = v >> 16 & 255, p[3] = v >> 24; }

/* The header's printable form for errors: the 4 type bytes with non-printing ones as '?'. */
static void tag_text(const uint8_t *p, char out[5]) {
  for (int i = 0; i < 4; i++) out[i] = p[i] >= 32 && p[i] < 127 ? (char)p[i] : '?';
  out[4] = 0;
}

int ovta_remote_parse(const uint8_t *buf, size_t n, size_t max_data, ovta_remote_frame *f, size_t *used,
                      ovta_error *err) {
  memset(f, 0, sizeof *f);
  *used = 0;
  if (n < OVTA_REMOTE_HEADER) {
    if (n && memcmp(buf, magic, n < 4 ? n : 4)) return OVTA_FAIL(err, OVTA_EPARSE, "not an ovta remote frame (bad magic)");
    return OVTA_REMOTE_MORE;
  }
  if (memcmp(buf, magic, 4)) return OVTA_FAIL(err, OVTA_EPARSE, "not an ovta remote frame (bad magic)");
  int t = 0;
  while (t < OVTA_RM_NTYPES && memcmp(buf + 4, tags[t], 4)) t++;
  char tx[5];
  tag_text(buf + 4, tx);
  if (t == OVTA_RM_NTYPES) return OVTA_FAIL(err, OVTA_EPARSE, "unknown frame type '%s'", tx);
  uint32_t len = get_u32(buf + 8);
  size_t lim = ovta_remote_max_payload((ovta_remote_type)t, max_data);
  if (len > lim)
    return OVTA_FAIL(err, OVTA_EINVAL, "frame %s of %lu bytes is over its limit of %zu", tx, (unsigned long)len, lim);
  if (n - OVTA_REMOTE_HEADER < len) return OVTA_REMOTE_MORE;
  f->type = (ovta_remote_type)t, f->data = buf + OVTA_REMOTE_HEADER, f->len = len;
  *used = OVTA_REMOTE_HEADER + (size_t)len;
  return 0;
}

/* ---------------------------------------------------------------- payloads */

/* A name (uint16 length + bytes, no NUL) at the start of f's payload into name; *off past it. */
static int name_decode(const ovta_remote_frame *f, char *name, size_t cap, size_t *off, ovta_error *err) {
  if (f->len < 2) return OVTA_FAIL(err, OVTA_EPARSE, "%s frame: no name", tags[f->type]);
  size_t nl = f->data[0] | (size_t)f->data[1] << 8;
  if (nl < 1 || nl > OVTA_REMOTE_MAX_NAME || nl >= cap || nl > f->len - 2)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s frame: a name of %zu bytes", tags[f->type], nl);
  if (memchr(f->data + 2, 0, nl)) return OVTA_FAIL(err, OVTA_EPARSE, "%s frame: a NUL in the name", tags[f->type]);
  memcpy(name, f->data + 2, nl);
  name[nl] = 0;
  *off = 2 + nl;
  return 0;
}

int ovta_remote_tensor_decode(const ovta_remote_frame *f, char *name, size_t cap, ovta_array *a, ovta_error *err) {
  memset(a, 0, sizeof *a);
  size_t off;
  int rc = name_decode(f, name, cap, &off, err);
  if (rc) return rc;
  if (f->len - off < 2) return OVTA_FAIL(err, OVTA_EPARSE, "tensor %s: cut before its type", name);
  ovta_dtype dt = (ovta_dtype)f->data[off];
  int rank = f->data[off + 1];
  off += 2;
  if (ovta_dtype_size(dt) == 0 || !strcmp(ovta_dtype_name(dt), "?"))
    return OVTA_FAIL(err, OVTA_EPARSE, "tensor %s: element type %d", name, (int)dt);
  if (rank > OVTA_MAX_RANK) return OVTA_FAIL(err, OVTA_EPARSE, "tensor %s: rank %d", name, rank);
  if (f->len - off < (size_t)rank * 8) return OVTA_FAIL(err, OVTA_EPARSE, "tensor %s: cut in its shape", name);
  for (int d = 0; d < rank; d++, off += 8) {
    uint64_t v = get_u32(f->data + off) | (uint64_t)get_u32(f->data + off + 4) << 32;
    if (v > (uint64_t)INT64_MAX) return OVTA_FAIL(err, OVTA_EPARSE, "tensor %s: dim %d is negative", name, d);
    a->shape[d] = (int64_t)v;
  }
  int64_t numel = ovta_shape_numel(a->shape, rank);
  size_t es = ovta_dtype_size(dt), rest = f->len - off;
  if (numel < 0 || (uint64_t)numel > (uint64_t)SIZE_MAX / es || (size_t)numel * es != rest)
    return OVTA_FAIL(err, OVTA_EPARSE, "tensor %s: %zu data bytes for its shape", name, rest);
  a->dtype = dt, a->rank = rank, a->data = (void *)(f->data + off), a->nbytes = rest;
  return 0;
}

bool ovta_remote_name_ok(const char *name) {
  size_t n = strlen(name);
  if (n < 1 || n > 64 || name[0] == '.') return false;
  for (const char *c = name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' ||
          *c == '_'))
      return false;
  return true;
}

int ovta_remote_file_decode(const ovta_remote_frame *f, char *name, size_t cap, const uint8_t **data, size_t *n,
                            ovta_error *err) {
  size_t off;
  int rc = name_decode(f, name, cap, &off, err);
  if (rc) return rc;
  if (!ovta_remote_name_ok(name)) return OVTA_FAIL(err, OVTA_EINVAL, "FILE frame: '%s' is not a plain file name", name);
  *data = f->data + off, *n = f->len - off;
  return 0;
}

int ovta_remote_json_decode(const ovta_remote_frame *f, cJSON **out, ovta_error *err) {
  *out = NULL;
  if (is_data(f->type) || f->type == OVTA_RM_BYE || f->type == OVTA_RM_TRCE)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s frame carries no JSON", tags[f->type]);
  cJSON *j = cJSON_ParseWithLength((const char *)f->data, f->len);
  if (!j || !cJSON_IsObject(j)) {
    cJSON_Delete(j);
    return OVTA_FAIL(err, OVTA_EPARSE, "%s frame: not a JSON object", tags[f->type]);
  }
  *out = j;
  return 0;
}

int ovta_remote_plan_decode(const cJSON *j, char hash[17], int64_t bytes[OVTA_REMOTE_PLAN_FILES], ovta_error *err) {
  const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hash"), *fs = cJSON_GetObjectItemCaseSensitive(j, "files");
  if (!cJSON_IsString(h) || strlen(h->valuestring) != 16 || strspn(h->valuestring, "0123456789abcdef") != 16)
    return OVTA_FAIL(err, OVTA_EPARSE, "PLAN: \"hash\" must be 16 lowercase hex digits");
  memcpy(hash, h->valuestring, 17);
  if (!cJSON_IsObject(fs)) return OVTA_FAIL(err, OVTA_EPARSE, "PLAN: no \"files\" object");
  for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++) bytes[k] = -1;
  for (const cJSON *e = fs->child; e; e = e->next) {
    int k = 0;
    while (k < OVTA_REMOTE_PLAN_FILES && strcmp(e->string, ovta_remote_plan_files[k])) k++;
    if (k == OVTA_REMOTE_PLAN_FILES) return OVTA_FAIL(err, OVTA_EINVAL, "PLAN: '%s' is not a plan file", e->string);
    if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 9e15 || e->valuedouble != (double)(int64_t)e->valuedouble)
      return OVTA_FAIL(err, OVTA_EPARSE, "PLAN: the size of %s", e->string);
    bytes[k] = (int64_t)e->valuedouble;
  }
  if (bytes[0] < 0) return OVTA_FAIL(err, OVTA_EINVAL, "PLAN: plan.json is not listed");
  return 0;
}

/* ---------------------------------------------------------------- socket I/O */

static int write_all(int fd, const void *p, size_t n, ovta_error *err) {
  const uint8_t *b = p;
  while (n) {
    ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return OVTA_FAIL(err, errno == EAGAIN || errno == EWOULDBLOCK ? OVTA_ETIMEOUT : OVTA_EIO, "send: %s",
                       errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : strerror(errno));
    b += k, n -= (size_t)k;
  }
  return 0;
}

static int read_all(int fd, void *p, size_t n, ovta_error *err) {
  uint8_t *b = p;
  while (n) {
    ssize_t k = recv(fd, b, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) return OVTA_FAIL(err, OVTA_EIO, "the connection was closed");
    if (k < 0)
      return OVTA_FAIL(err, errno == EAGAIN || errno == EWOULDBLOCK ? OVTA_ETIMEOUT : OVTA_EIO, "receive: %s",
                       errno == EAGAIN || errno == EWOULDBLOCK ? "timed out" : strerror(errno));
    b += k, n -= (size_t)k;
  }
  return 0;
}

int ovta_remote_send(int fd, ovta_remote_type t, const void *p1, size_t n1, const void *p2, size_t n2,
                     ovta_error *err) {
  if (n1 > UINT32_MAX || n2 > UINT32_MAX - n1) return OVTA_FAIL(err, OVTA_EINVAL, "a %s frame over 4 GiB", tags[t]);
  uint8_t h[OVTA_REMOTE_HEADER];
  memcpy(h, magic, 4), memcpy(h + 4, tags[t], 4);
  put_u32(h + 8, (uint32_t)(n1 + n2));
  int rc = write_all(fd, h, sizeof h, err);
  if (!rc && n1) rc = write_all(fd, p1, n1, err);
  if (!rc && n2) rc = write_all(fd, p2, n2, err);
  return rc;
}

int ovta_remote_send_json(int fd, ovta_remote_type t, const cJSON *j, ovta_error *err) {
  char *s = cJSON_PrintUnformatted(j);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int rc = ovta_remote_send(fd, t, s, strlen(s), NULL, 0, err);
  free(s);
  return rc;
}

int ovta_remote_send_tensor(int fd, ovta_remote_type t, const char *name, const ovta_array *a, ovta_error *err) {
  size_t nl = strlen(name);
  if (nl < 1 || nl > OVTA_REMOTE_MAX_NAME) return OVTA_FAIL(err, OVTA_EINVAL, "tensor name '%s': 1..255 bytes", name);
  if (a->rank < 0 || a->rank > OVTA_MAX_RANK) return OVTA_FAIL(err, OVTA_EINVAL, "tensor %s: rank %d", name, a->rank);
  uint8_t h[2 + OVTA_REMOTE_MAX_NAME + 2 + 8 * OVTA_MAX_RANK];
  size_t k = 0;
  h[k++] = nl & 255, h[k++] = (uint8_t)(nl >> 8);
  memcpy(h + k, name, nl), k += nl;
  h[k++] = (uint8_t)a->dtype, h[k++] = (uint8_t)a->rank;
  for (int d = 0; d < a->rank; d++, k += 8) {
    uint64_t v = (uint64_t)a->shape[d];
    put_u32(h + k, (uint32_t)v), put_u32(h + k + 4, (uint32_t)(v >> 32));
  }
  return ovta_remote_send(fd, t, h, k, a->data, a->nbytes, err);
}

int ovta_remote_recv(int fd, size_t max_data, ovta_remote_frame *f, uint8_t **buf, ovta_error *err) {
  *buf = NULL;
  uint8_t h[OVTA_REMOTE_HEADER];
  size_t used;
  int rc = read_all(fd, h, sizeof h, err);
  if (!rc) rc = ovta_remote_parse(h, sizeof h, max_data, f, &used, err);
  if (rc <= 0) { /* an error, or an empty payload (complete) */
    if (!rc) f->data = NULL;
    return rc;
  }
  size_t len = get_u32(h + 8); /* checked against its limit by the parser */
  uint8_t *b = malloc(OVTA_REMOTE_HEADER + len);
  if (!b) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for a frame of %zu bytes", len);
  memcpy(b, h, sizeof h);
  rc = read_all(fd, b + OVTA_REMOTE_HEADER, len, err);
  if (!rc) rc = ovta_remote_parse(b, OVTA_REMOTE_HEADER + len, max_data, f, &used, err);
  if (rc) {
    free(b);
    return rc > 0 ? OVTA_FAIL(err, OVTA_EINTERNAL, "frame incomplete") : rc;
  }
  *buf = b;
  return 0;
}

/* ---------------------------------------------------------------- token, addresses, hash */

int ovta_remote_read_token(const char *path, char *tok, size_t cap, ovta_error *err) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return OVTA_FAIL(err, OVTA_EIO, "--token-file %s: %s", path, strerror(errno));
  struct stat st;
  int rc = 0;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) rc = OVTA_FAIL(err, OVTA_EINVAL, "--token-file %s: not a regular file", path);
  else if (st.st_mode & 077)
    rc = OVTA_FAIL(err, OVTA_EINVAL, "--token-file %s: readable or writable by others (mode %03o): chmod 600 it", path,
                   (unsigned)(st.st_mode & 0777));
  char b[OVTA_REMOTE_MAX_TOKEN + 2];
  ssize_t n = rc ? 0 : read(fd, b, sizeof b - 1);
  close(fd);
  if (rc) return rc;
  if (n < 0) return OVTA_FAIL(err, OVTA_EIO, "--token-file %s: %s", path, strerror(errno));
  b[n] = 0;
  size_t len = strcspn(b, "\r\n");
  if (len == 0 || len > OVTA_REMOTE_MAX_TOKEN || len >= cap || memchr(b, 0, (size_t)n))
    return OVTA_FAIL(err, OVTA_EINVAL, "--token-file %s: the first line must hold 1..%d bytes", path, OVTA_REMOTE_MAX_TOKEN);
  memcpy(tok, b, len);
  tok[len] = 0;
  return 0;
}

int ovta_remote_split_addr(const char *addr, char *host, size_t cap, char *port, size_t pcap, ovta_error *err) {
  const char *c = strrchr(addr, ':');
  const char *p = c ? c + 1 : addr;
  size_t hl = c ? (size_t)(c - addr) : 0;
  if (*p == 0 || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5 || atoi(p) > 65535 || hl >= cap || strlen(p) >= pcap)
    return OVTA_FAIL(err, OVTA_EINVAL, "'%s': expected HOST:PORT", addr);
  if (hl && addr[0] == '[' && addr[hl - 1] == ']') addr++, hl -= 2; /* [::1]:PORT */
  if (hl) memcpy(host, addr, hl), host[hl] = 0;
  else snprintf(host, cap, "127.0.0.1");
  snprintf(port, pcap, "%s", p);
  return 0;
}

void ovta_remote_plan_hash(const void *plan_json, size_t n, char hash[17]) {
  snprintf(hash, 17, "%016llx", (unsigned long long)ovta_fnv1a64(plan_json, n));
}

/* ---------------------------------------------------------------- counters */

cJSON *ovta_remote_stats_json(const ovta_plan *p) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < p->ns; i++) {
    const ovta_plan_step *s = &p->s[i];
    const ovta_plan_stats *l = &s->last;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(a, o);
    cJSON_AddNumberToObject(o, "runs", (double)s->runs);
    cJSON_AddNumberToObject(o, "insns", (double)l->insns);
    cJSON_AddNumberToObject(o, "dev_runs", (double)l->dev_runs);
    cJSON_AddNumberToObject(o, "dev_insns", (double)l->dev_insns);
    cJSON_AddNumberToObject(o, "gemm_uops", (double)l->gemm_uops);
    cJSON_AddNumberToObject(o, "alu_uops", (double)l->alu_uops);
    cJSON_AddBoolToObject(o, "has_cycles", l->has_cycles);
    cJSON_AddNumberToObject(o, "cycles", (double)l->cycles);
    cJSON *br = cJSON_AddArrayToObject(o, "bytes_read");
    for (int m = 0; m < 4; m++) cJSON_AddItemToArray(br, cJSON_CreateNumber((double)l->bytes_read[m]));
    cJSON_AddNumberToObject(o, "bytes_written", (double)l->bytes_written);
    cJSON_AddNumberToObject(o, "ns", (double)l->ns);
  }
  return a;
}

/* A counter field of o: a number 0..2^53. */
static bool counter(const cJSON *o, const char *k, uint64_t *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > 9007199254740992.0) return false;
  *v = (uint64_t)x->valuedouble;
  return true;
}

int ovta_remote_stats_apply(ovta_plan *p, const cJSON *arr, ovta_error *err) {
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != p->ns)
    return OVTA_FAIL(err, OVTA_EPARSE, "counters: expected an array of %d steps", p->ns);
  int i = 0;
  for (const cJSON *o = arr->child; o; o = o->next, i++) {
    ovta_plan_stats *l = &p->s[i].last;
    const cJSON *br = cJSON_GetObjectItemCaseSensitive(o, "bytes_read"), *hc = cJSON_GetObjectItemCaseSensitive(o, "has_cycles");
    bool ok = cJSON_IsObject(o) && counter(o, "runs", &p->s[i].runs) && counter(o, "insns", &l->insns) &&
              counter(o, "dev_runs", &l->dev_runs) && counter(o, "dev_insns", &l->dev_insns) &&
              counter(o, "gemm_uops", &l->gemm_uops) && counter(o, "alu_uops", &l->alu_uops) &&
              counter(o, "cycles", &l->cycles) && counter(o, "bytes_written", &l->bytes_written) &&
              counter(o, "ns", &l->ns) && cJSON_IsBool(hc) && cJSON_IsArray(br) && cJSON_GetArraySize(br) == 4;
    for (int m = 0; ok && m < 4; m++) {
      const cJSON *x = cJSON_GetArrayItem(br, m);
      ok = cJSON_IsNumber(x) && x->valuedouble >= 0 && x->valuedouble <= 9007199254740992.0;
      if (ok) l->bytes_read[m] = (uint64_t)x->valuedouble;
    }
    if (!ok) return OVTA_FAIL(err, OVTA_EPARSE, "counters of step %d (%s): missing or not counts", i, p->s[i].node);
    l->has_cycles = cJSON_IsTrue(hc);
  }
  return 0;
}
