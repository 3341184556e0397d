/* client.c: a remote-run session from the client's side (ovta_remote.h, section 3): connect and
 * say hello with the token, offer a plan folder by hash and send its files only when the server
 * lacks them, load it on a backend, then runs: inputs out, outputs and counters back. What
 * `ovta run|profile|eval --remote` call. Every frame the server sends is checked as the server
 * checks the client's (remote.c). */
#include "ovta_remote.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct ovta_remote {
  int fd;             /* the connection */
  char addr[300];     /* HOST:PORT (errors) */
  size_t max_data;    /* the largest output frame accepted */
};

/* An ERR frame's text as the error; other unexpected types named. */
static int unexpected(ovta_remote *r, const ovta_remote_frame *f, const char *want, ovta_error *err) {
  if (f->type == OVTA_RM_ERR) {
    cJSON *j = NULL;
    ovta_error e2 = {0};
    const cJSON *m = ovta_remote_json_decode(f, &j, &e2) ? NULL : cJSON_GetObjectItemCaseSensitive(j, "error");
    int rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: %s", r->addr, cJSON_IsString(m) ? m->valuestring : "an error without a message");
    cJSON_Delete(j);
    return rc;
  }
  return OVTA_FAIL(err, OVTA_EPARSE, "%s: expected %s, got a %s frame", r->addr, want, ovta_remote_type_tag(f->type));
}

/* A send failed with rc: when the server closed the session after an ERR reply (a request it
 * refused), that reply's message is the error. */
static int after_send_error(ovta_remote *r, int rc, ovta_error *err) {
  if (rc != OVTA_EIO) return rc;
  ovta_remote_frame f;
  uint8_t *buf = NULL;
  ovta_error e2 = {0};
  if (ovta_remote_recv(r->fd, r->max_data, &f, &buf, &e2) == 0 && f.type == OVTA_RM_ERR) rc = unexpected(r, &f, "", err);
  free(buf);
  return rc;
}

/* Receive a JSON reply of type t into *j. */
static int recv_json(ovta_remote *r, ovta_remote_type t, cJSON **j, ovta_error *err) {
  ovta_remote_frame f;
  uint8_t *buf;
  *j = NULL;
  int rc = ovta_remote_recv(r->fd, r->max_data, &f, &buf, err);
  if (rc) return ovta_error_wrap(err, "%s", r->addr), rc;
  rc = f.type == t ? ovta_remote_json_decode(&f, j, err) : unexpected(r, &f, ovta_remote_type_tag(t), err);
  free(buf);
  return rc;
}

static int dial(const char *addr, double timeout_s, int *out, ovta_error *err) {
  char host[256], port[16];
  int rc = ovta_remote_split_addr(addr, host, sizeof host, port, sizeof port, err);
  if (rc) return ovta_error_wrap(err, "--remote"), rc;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV}, *ai;
  int g = getaddrinfo(host, port, &hints, &ai);
  if (g) return OVTA_FAIL(err, OVTA_EIO, "--remote %s: %s", addr, gai_strerror(g));
  int fd = -1;
  for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) close(fd), fd = -1;
  }
  freeaddrinfo(ai);
  if (fd < 0) return OVTA_FAIL(err, OVTA_EIO, "--remote %s: cannot connect: %s", addr, strerror(errno));
  struct timeval tv = {.tv_sec = (time_t)timeout_s, .tv_usec = (suseconds_t)((timeout_s - (double)(time_t)timeout_s) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  *out = fd;
  return 0;
}

int ovta_remote_connect(const char *addr, const char *token_file, double timeout_s, ovta_remote **out, ovta_error *err) {
  char tok[OVTA_REMOTE_MAX_TOKEN + 1];
  *out = NULL;
  if (!token_file) return OVTA_FAIL(err, OVTA_EINVAL, "--remote needs --token-file FILE (the server's shared token)");
  int rc = ovta_remote_read_token(token_file, tok, sizeof tok, err);
  if (rc) return rc;
  ovta_remote *r = calloc(1, sizeof *r);
  if (!r) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  r->fd = -1, r->max_data = OVTA_SIZE_CAP(31);
  snprintf(r->addr, sizeof r->addr, "%s", addr);
  rc = dial(addr, timeout_s > 0 ? timeout_s : 300, &r->fd, err);
  cJSON *j = NULL;
  if (!rc) {
    cJSON *h = cJSON_CreateObject();
    cJSON_AddNumberToObject(h, "version", OVTA_REMOTE_VERSION);
    cJSON_AddStringToObject(h, "token", tok);
    rc = ovta_remote_send_json(r->fd, OVTA_RM_HELO, h, err);
    cJSON_Delete(h);
  }
  memset(tok, 0, sizeof tok);
  if (!rc) rc = recv_json(r, OVTA_RM_OK, &j, err);
  cJSON_Delete(j);
  if (rc) {
    if (r->fd >= 0) close(r->fd);
    free(r);
    return rc;
  }
  *out = r;
  return 0;
}

/* The plan's files read: data[k] (NULL when absent; plan.json required). */
static int read_plan(const char *dir, char *data[OVTA_REMOTE_PLAN_FILES], size_t n[OVTA_REMOTE_PLAN_FILES], ovta_error *err) {
  for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, ovta_remote_plan_files[k]);
    data[k] = NULL, n[k] = 0;
    if (k > 0 && access(path, F_OK) != 0) continue;
    int rc = ovta_read_file(path, OVTA_SIZE_CAP(31), &data[k], &n[k], err);
    if (rc) return rc;
  }
  return 0;
}

/* PLAN, and the files when the server lacks them. */
static int offer(ovta_remote *r, const char *dir, bool *uploaded, ovta_error *err) {
  char *data[OVTA_REMOTE_PLAN_FILES] = {0}, hash[17];
  size_t n[OVTA_REMOTE_PLAN_FILES];
  cJSON *have = NULL;
  int rc = read_plan(dir, data, n, err);
  if (!rc) {
    ovta_remote_plan_hash(data[0], n[0], hash);
    cJSON *p = cJSON_CreateObject(), *fs;
    cJSON_AddStringToObject(p, "hash", hash);
    fs = cJSON_AddObjectToObject(p, "files");
    for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++)
      if (data[k]) cJSON_AddNumberToObject(fs, ovta_remote_plan_files[k], (double)n[k]);
    rc = ovta_remote_send_json(r->fd, OVTA_RM_PLAN, p, err);
    cJSON_Delete(p);
  }
  if (!rc) rc = recv_json(r, OVTA_RM_HAVE, &have, err);
  *uploaded = !rc && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(have, "have"));
  for (int k = 0; !rc && *uploaded && k < OVTA_REMOTE_PLAN_FILES; k++) {
    if (!data[k]) continue;
    const char *nm = ovta_remote_plan_files[k];
    uint8_t h[2] = {(uint8_t)strlen(nm), 0};
    uint8_t pre[2 + 64];
    memcpy(pre, h, 2), memcpy(pre + 2, nm, strlen(nm));
    rc = ovta_remote_send(r->fd, OVTA_RM_FILE, pre, 2 + strlen(nm), data[k], n[k], err);
    if (rc) rc = after_send_error(r, rc, err);
  }
  cJSON_Delete(have);
  for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++) free(data[k]);
  return rc;
}

int ovta_remote_open_plan(ovta_remote *r, const char *dir, const char *backend, int threads, bool trace,
                          bool *uploaded, ovta_error *err) {
  int rc = offer(r, dir, uploaded, err);
  cJSON *ok = NULL;
  if (!rc) {
    cJSON *l = cJSON_CreateObject();
    if (backend) cJSON_AddStringToObject(l, "backend", backend);
    else cJSON_AddNullToObject(l, "backend");
    cJSON_AddNumberToObject(l, "threads", threads);
    cJSON_AddBoolToObject(l, "trace", trace);
    rc = ovta_remote_send_json(r->fd, OVTA_RM_LOAD, l, err);
    cJSON_Delete(l);
  }
  if (!rc) rc = recv_json(r, OVTA_RM_OK, &ok, err);
  cJSON_Delete(ok);
  return rc;
}

void ovta_remote_result_clear(ovta_remote_result *res) {
  for (int i = 0; i < res->nout; i++) free(res->names[i]), ovta_array_clear(&res->outs[i]);
  free(res->names), free(res->outs);
  cJSON_Delete(res->stats);
  memset(res, 0, sizeof *res);
}

/* An OUTP frame appended to res (a copy of its data). */
static int add_output(ovta_remote_result *res, const ovta_remote_frame *f, ovta_error *err) {
  char name[OVTA_REMOTE_MAX_NAME + 1];
  ovta_array v;
  int rc = ovta_remote_tensor_decode(f, name, sizeof name, &v, err);
  if (rc) return rc;
  if (res->nout >= 4096) return OVTA_FAIL(err, OVTA_EINVAL, "more than 4096 outputs");
  char **nn = realloc(res->names, sizeof *nn * (size_t)(res->nout + 1));
  if (nn) res->names = nn;
  ovta_array *no = nn ? realloc(res->outs, sizeof *no * (size_t)(res->nout + 1)) : NULL;
  if (no) res->outs = no;
  void *d = malloc(v.nbytes ? v.nbytes : 1);
  char *nm = strdup(name);
  if (!nn || !no || !d || !nm) {
    free(d), free(nm);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for output %s", name);
  }
  memcpy(d, v.data, v.nbytes);
  res->names[res->nout] = nm;
  res->outs[res->nout] = v;
  res->outs[res->nout++].data = d;
  return 0;
}

/* Frames of a run's reply until OK. */
static int recv_results(ovta_remote *r, ovta_remote_result *res, ovta_error *err) {
  for (;;) {
    ovta_remote_frame f;
    uint8_t *buf;
    int rc = ovta_remote_recv(r->fd, r->max_data, &f, &buf, err);
    if (rc) return ovta_error_wrap(err, "%s", r->addr), rc;
    bool done = f.type == OVTA_RM_OK;
    if (f.type == OVTA_RM_OUTP) rc = add_output(res, &f, err);
    else if (f.type == OVTA_RM_STAT && !res->stats) {
      cJSON *j;
      rc = ovta_remote_json_decode(&f, &j, err);
      cJSON *steps = rc ? NULL : cJSON_DetachItemFromObjectCaseSensitive(j, "steps");
      cJSON_Delete(j);
      if (!rc && !cJSON_IsArray(steps)) rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: STAT without \"steps\"", r->addr);
      if (rc) cJSON_Delete(steps);
      else res->stats = steps;
    } else if (!done) rc = unexpected(r, &f, "OUTP, STAT or OK", err);
    free(buf);
    if (rc || done) return rc;
  }
}

int ovta_remote_run(ovta_remote *r, int n, const char *const *names, const ovta_array *vals, ovta_remote_result *res,
                    ovta_error *err) {
  memset(res, 0, sizeof *res);
  int rc = 0;
  for (int i = 0; !rc && i < n; i++) rc = ovta_remote_send_tensor(r->fd, OVTA_RM_INPT, names[i], &vals[i], err);
  if (!rc) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "stats", true);
    rc = ovta_remote_send_json(r->fd, OVTA_RM_RUN, j, err);
    cJSON_Delete(j);
  }
  if (rc && (rc = after_send_error(r, rc, err)) == OVTA_EIO) ovta_error_wrap(err, "%s", r->addr);
  if (rc) return rc;
  rc = recv_results(r, res, err);
  if (rc) ovta_remote_result_clear(res);
  return rc;
}

int ovta_remote_trace(ovta_remote *r, const char *path, ovta_error *err) {
  int rc = ovta_remote_send(r->fd, OVTA_RM_TRCE, NULL, 0, NULL, 0, err);
  ovta_remote_frame f;
  uint8_t *buf = NULL;
  if (rc) return ovta_error_wrap(err, "%s", r->addr), rc;
  rc = ovta_remote_recv(r->fd, r->max_data, &f, &buf, err);
  if (rc) return ovta_error_wrap(err, "%s", r->addr), rc;
  char name[OVTA_REMOTE_MAX_NAME + 1];
  const uint8_t *data;
  size_t n;
  if (f.type != OVTA_RM_FILE) rc = unexpected(r, &f, "FILE trace.raw", err);
  else if (!(rc = ovta_remote_file_decode(&f, name, sizeof name, &data, &n, err)) && strcmp(name, "trace.raw"))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: sent %s for the trace", r->addr, name);
  if (!rc) rc = ovta_plan_write_file(path, data, n, err);
  free(buf);
  return rc;
}

void ovta_remote_close(ovta_remote *r) {
  if (!r) return;
  ovta_error err = {0};
  ovta_remote_send(r->fd, OVTA_RM_BYE, NULL, 0, NULL, 0, &err);
  close(r->fd);
  free(r);
}
