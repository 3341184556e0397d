/* Fuzz target: the remote-run protocol's parser (plan/remote.c): a byte stream of frames as a
 * server or client receives it. Each frame is parsed over the buffer (ovta_remote_parse), then
 * its payload decoded as the receiver would: a tensor (INPT, OUTP), a file (FILE), a JSON object
 * (control frames) and, for PLAN and STAT, its fields. Must hold: every error has a message; a
 * parsed frame lies inside the buffer; a decoded tensor's bytes match its shape and type; a
 * decoded file name is a plain name; a tensor sent again (ovta_remote_send_tensor through a
 * socket pair) parses back to the same name, type, shape and bytes. A 4 KiB data limit keeps
 * the inputs small. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ovta_remote.h"

#define MAX_DATA 4096

static void must(bool ok) {
  if (!ok) abort();
}

/* The tensor a sent through a socket pair and parsed back: identical. */
static void round_trip(const char *name, const ovta_array *a) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return;
  ovta_error err = {0};
  int rc = ovta_remote_send_tensor(sv[0], OVTA_RM_OUTP, name, a, &err);
  close(sv[0]);
  ovta_remote_frame f;
  uint8_t *buf = NULL;
  if (!rc) rc = ovta_remote_recv(sv[1], MAX_DATA * 2, &f, &buf, &err);
  close(sv[1]);
  must(rc == 0 || err.msg[0]);
  if (!rc) {
    char n2[OVTA_REMOTE_MAX_NAME + 1];
    ovta_array b;
    must(ovta_remote_tensor_decode(&f, n2, sizeof n2, &b, &err) == 0);
    must(!strcmp(n2, name) && b.dtype == a->dtype && b.rank == a->rank && b.nbytes == a->nbytes);
    must(!memcmp(b.shape, a->shape, sizeof(int64_t) * (size_t)a->rank) && !memcmp(b.data, a->data, a->nbytes));
  }
  free(buf);
}

static void decode(const ovta_remote_frame *f) {
  ovta_error err = {0};
  char name[OVTA_REMOTE_MAX_NAME + 1];
  int rc;
  if (f->type == OVTA_RM_INPT || f->type == OVTA_RM_OUTP) {
    ovta_array a;
    rc = ovta_remote_tensor_decode(f, name, sizeof name, &a, &err);
    if (!rc) {
      must(a.nbytes == (size_t)ovta_shape_numel(a.shape, a.rank) * ovta_dtype_size(a.dtype));
      must((const uint8_t *)a.data + a.nbytes == f->data + f->len);
      round_trip(name, &a);
    }
  } else if (f->type == OVTA_RM_FILE) {
    const uint8_t *d;
    size_t n;
    rc = ovta_remote_file_decode(f, name, sizeof name, &d, &n, &err);
    if (!rc) must(ovta_remote_name_ok(name) && !strchr(name, '/') && strcmp(name, "..") && d + n == f->data + f->len);
  } else if (f->type == OVTA_RM_BYE) {
    rc = 0;
  } else {
    cJSON *j;
    rc = ovta_remote_json_decode(f, &j, &err);
    if (!rc && f->type == OVTA_RM_PLAN) {
      char h[17];
      int64_t b[OVTA_REMOTE_PLAN_FILES];
      rc = ovta_remote_plan_decode(j, h, b, &err);
      if (!rc) must(strlen(h) == 16 && b[0] >= 0);
    } else if (!rc && f->type == OVTA_RM_STAT) {
      ovta_plan p = {0};
      ovta_plan_step s[2] = {{.node = "a"}, {.node = "b"}};
      p.ns = 2, p.s = s;
      rc = ovta_remote_stats_apply(&p, cJSON_GetObjectItemCaseSensitive(j, "steps"), &err);
    }
    cJSON_Delete(j);
  }
  must(rc == 0 || err.msg[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t off = 0;
  while (off < size) {
    ovta_remote_frame f;
    size_t used = 0;
    ovta_error err = {0};
    int rc = ovta_remote_parse(data + off, size - off, MAX_DATA, &f, &used, &err);
    if (rc == OVTA_REMOTE_MORE) break;
    must(rc == 0 || err.msg[0]);
    if (rc) break;
    must(used >= OVTA_REMOTE_HEADER && used <= size - off && f.data + f.len == data + off + used);
    must(f.len <= ovta_remote_max_payload(f.type, MAX_DATA));
    decode(&f);
    off += used;
  }
  return 0;
}
