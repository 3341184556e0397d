/* serve.c: `ovta-rt serve` (ovta_remote.h, section 2): sessions of the remote-run protocol
 * (remote.c has the wire format), one at a time.
 *
 * Rules: the socket listens where told (loopback by default); the token file must be private
 * (mode 600); the first frame must be HELO with the token; every frame is checked by the parser
 * before its payload is read (type, size limit) and every payload before use; uploaded files
 * keep plain names (ovta_remote_name_ok) inside WORK_DIR/sessions/N/, and a plan moves to
 * WORK_DIR/plans/HASH/ only once its hash and every file digest check out. Each session runs in
 * a child process with a per-receive timeout and a whole-session deadline (alarm): a hostile
 * request gets an ERR reply and ends only its session; a dropped or stalled client frees the
 * device when its child ends. The parent waits for one child before accepting the next
 * connection, so concurrent clients queue on the device (the listen backlog). --in-process
 * (emulators whose fork hangs) serves sessions in the server itself: the same checks, but a
 * crash ends the server and the session limit is checked between frames. */
#include "ovta_remote.h"

#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_IN 64

/* One session's state (in its child). */
typedef struct session {
  const ovta_serve_opts *o; /* the server's options */
  const char *token;        /* the shared token */
  int fd;                   /* the connection */
  int id;                   /* session number (logs, folder) */
  char dir[4096];           /* WORK_DIR/sessions/ID */
  bool hello;               /* the token was checked */
  bool offered;             /* PLAN seen */
  bool cached;              /* the server had the plan */
  char hash[17];            /* the plan's hash */
  int64_t want[OVTA_REMOTE_PLAN_FILES]; /* declared sizes (-1: not sent) */
  bool got[OVTA_REMOTE_PLAN_FILES];     /* received */
  uint64_t received;        /* bytes received in FILE frames */
  uint64_t held;            /* bytes of the inputs kept (in_val) */
  ovta_plan *plan;          /* loaded (LOAD) */
  int nin;                  /* inputs given (INPT) */
  char *in_name[MAX_IN];    /* their names */
  ovta_array in_val[MAX_IN];/* their values (copies) */
  int runs;                 /* RUNs done */
  bool trace;               /* LOAD asked the device for a trace (SESSION_DIR/trace.raw) */
  double deadline;          /* the session ends at this time (ovta_now_s) */
} session;

static void remove_session_dir(const char *dir);
static void slog(const session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void slog(const session *s, const char *fmt, ...) {
  if (!s->o->log) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(s->o->log, "ovta-rt serve: session %d: ", s->id);
  vfprintf(s->o->log, fmt, ap);
  fputc('\n', s->o->log);
  fflush(s->o->log);
  va_end(ap);
}

/* Reply ERR with err's message (logged); returns rc. */
static int reply_err(session *s, int rc, const ovta_error *err) {
  slog(s, "error: %s", err->msg);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "error", err->msg);
  ovta_error e2 = {0};
  ovta_remote_send_json(s->fd, OVTA_RM_ERR, j, &e2);
  cJSON_Delete(j);
  return rc;
}

/* Whether a equals b (same length) in time independent of where they differ. */
static bool same_token(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  unsigned char d = na != nb;
  for (size_t i = 0; i < na && i < nb; i++) d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0;
}

static int on_hello(session *s, const ovta_remote_frame *f, ovta_error *err) {
  cJSON *j;
  int rc = ovta_remote_json_decode(f, &j, err);
  if (rc) return rc;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "version"), *t = cJSON_GetObjectItemCaseSensitive(j, "token");
  if (!cJSON_IsNumber(v) || v->valueint != OVTA_REMOTE_VERSION)
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "protocol version: this server speaks %d", OVTA_REMOTE_VERSION);
  else if (!cJSON_IsString(t) || !same_token(t->valuestring, s->token))
    rc = OVTA_FAIL(err, OVTA_EINVAL, "refused: bad token");
  cJSON_Delete(j);
  if (rc) return rc;
  s->hello = true;
  cJSON *r = cJSON_CreateObject();
  cJSON_AddNumberToObject(r, "version", OVTA_REMOTE_VERSION);
  rc = ovta_remote_send_json(s->fd, OVTA_RM_OK, r, err);
  cJSON_Delete(r);
  return rc;
}

/* The session's byte cap (files sent plus inputs kept). */
static uint64_t session_cap(const session *s) { return s->o->max_session ? s->o->max_session : OVTA_REMOTE_DEFAULT_MAX_SESSION; }

static void plan_dir(const session *s, char *out, size_t n) { snprintf(out, n, "%s/plans/%s", s->o->work_dir, s->hash); }

static int on_plan(session *s, const ovta_remote_frame *f, ovta_error *err) {
  if (s->offered) return OVTA_FAIL(err, OVTA_EINVAL, "PLAN: one plan per session");
  cJSON *j;
  int rc = ovta_remote_json_decode(f, &j, err);
  if (!rc) rc = ovta_remote_plan_decode(j, s->hash, s->want, err);
  cJSON_Delete(j);
  if (rc) return rc;
  for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++)
    if (s->want[k] > (int64_t)s->o->max_data)
      return OVTA_FAIL(err, OVTA_EINVAL, "PLAN: %s of %lld bytes is over the limit of %zu", ovta_remote_plan_files[k],
                       (long long)s->want[k], s->o->max_data);
  uint64_t total = 0;
  for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++) total += s->want[k] > 0 ? (uint64_t)s->want[k] : 0;
  if (total > session_cap(s))
    return OVTA_FAIL(err, OVTA_EINVAL, "PLAN: %llu bytes of files, over the session limit of %llu (--max-session-bytes)",
                     (unsigned long long)total, (unsigned long long)session_cap(s));
  char d[4200];
  plan_dir(s, d, sizeof d);
  struct stat st;
  s->offered = true, s->cached = stat(d, &st) == 0 && S_ISDIR(st.st_mode);
  snprintf(d, sizeof d, "%s/plan", s->dir);
  if (!s->cached && mkdir(d, 0700) != 0) return OVTA_FAIL(err, OVTA_EIO, "session folder: %s", strerror(errno));
  slog(s, "plan %s %s", s->hash, s->cached ? "cached: not sent again" : "not here: to be sent");
  cJSON *r = cJSON_CreateObject();
  cJSON_AddBoolToObject(r, "have", s->cached);
  rc = ovta_remote_send_json(s->fd, OVTA_RM_HAVE, r, err);
  cJSON_Delete(r);
  return rc;
}

static int on_file(session *s, const ovta_remote_frame *f, ovta_error *err) {
  char name[OVTA_REMOTE_MAX_NAME + 1], path[4400];
  const uint8_t *data;
  size_t n;
  int rc = ovta_remote_file_decode(f, name, sizeof name, &data, &n, err);
  if (rc) return rc;
  if (!s->offered || s->cached || s->plan) return OVTA_FAIL(err, OVTA_EINVAL, "FILE %s: not expected now", name);
  int k = 0;
  while (k < OVTA_REMOTE_PLAN_FILES && strcmp(name, ovta_remote_plan_files[k])) k++;
  if (k == OVTA_REMOTE_PLAN_FILES || s->want[k] < 0) return OVTA_FAIL(err, OVTA_EINVAL, "FILE %s: not a file of the plan", name);
  if (s->got[k]) return OVTA_FAIL(err, OVTA_EINVAL, "FILE %s: sent twice", name);
  if ((int64_t)n != s->want[k])
    return OVTA_FAIL(err, OVTA_EINVAL, "FILE %s: %zu bytes, PLAN said %lld", name, n, (long long)s->want[k]);
  snprintf(path, sizeof path, "%s/plan/%s", s->dir, name);
  rc = ovta_plan_write_file(path, data, n, err);
  if (rc) return rc;
  s->got[k] = true, s->received += n;
  return 0;
}

/* The uploaded folder checked (hash, then every digest when loading) and loaded. */
static int load_uploaded(session *s, ovta_error *err) {
  char dir[4200], path[4300], dst[4200];
  for (int k = 0; k < OVTA_REMOTE_PLAN_FILES; k++)
    if (s->want[k] >= 0 && !s->got[k]) return OVTA_FAIL(err, OVTA_EINVAL, "LOAD: %s was not sent", ovta_remote_plan_files[k]);
  snprintf(dir, sizeof dir, "%s/plan", s->dir);
  snprintf(path, sizeof path, "%s/plan.json", dir);
  char *txt;
  size_t n;
  int rc = ovta_read_file(path, s->o->max_data, &txt, &n, err);
  if (rc) return rc;
  char h[17];
  ovta_remote_plan_hash(txt, n, h);
  free(txt);
  if (strcmp(h, s->hash)) return OVTA_FAIL(err, OVTA_EINVAL, "plan.json's hash is %s, PLAN said %s", h, s->hash);
  rc = ovta_plan_load(dir, &s->plan, err);
  if (rc) return rc;
  plan_dir(s, dst, sizeof dst);
  if (rename(dir, dst) != 0 && errno != EEXIST && errno != ENOTEMPTY)
    slog(s, "warning: could not keep the plan in %s: %s", dst, strerror(errno));
  slog(s, "plan %s received (%llu bytes) and kept", s->hash, (unsigned long long)s->received);
  return 0;
}

static int on_load(session *s, const ovta_remote_frame *f, ovta_error *err) {
  if (!s->offered || s->plan) return OVTA_FAIL(err, OVTA_EINVAL, "LOAD: %s", s->plan ? "loaded already" : "no PLAN yet");
  cJSON *j;
  int rc = ovta_remote_json_decode(f, &j, err);
  if (rc) return rc;
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "backend"), *t = cJSON_GetObjectItemCaseSensitive(j, "threads");
  s->trace = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "trace"));
  char backend[64] = "";
  if (cJSON_IsString(b)) snprintf(backend, sizeof backend, "%s", b->valuestring);
  int threads = cJSON_IsNumber(t) && t->valuedouble >= 1 && t->valuedouble <= 64 ? t->valueint : 0;
  if ((b && !cJSON_IsString(b) && !cJSON_IsNull(b)) || strlen(backend) > 32)
    rc = OVTA_FAIL(err, OVTA_EINVAL, "LOAD: \"backend\" must be a name or null");
  cJSON_Delete(j);
  if (rc) return rc;
  ovta_set_threads(s->o->threads ? s->o->threads : threads);
  if (s->cached) {
    char d[4200];
    plan_dir(s, d, sizeof d);
    rc = ovta_plan_load(d, &s->plan, err);
    if (rc) { /* damaged since it was kept: dropped, so that the next client sends it again */
      slog(s, "plan %s kept in %s does not load: removed", s->hash, d);
      remove_session_dir(d);
    }
  } else {
    rc = load_uploaded(s, err);
  }
  if (rc) return rc;
  if (s->o->backend) snprintf(backend, sizeof backend, "%s", s->o->backend);
  int na = ovta_plan_accel_nodes(s->plan);
  if (na > 0 && !strcmp(backend, "cpu")) {
    rc = OVTA_FAIL(err, OVTA_EINVAL, "the plan runs %d node(s) on the accelerator: --backend cpu cannot run it", na);
  } else if (na > 0) {
    if (!backend[0]) snprintf(backend, sizeof backend, "fsim");
    char tr[4200];
    snprintf(tr, sizeof tr, "%s/trace.raw", s->dir);
    ovta_dev_opts dopts = {.chrome_trace_path = s->trace ? tr : NULL};
    rc = ovta_plan_attach(s->plan, backend, &dopts, err);
  } else if (backend[0] && strcmp(backend, "cpu")) {
    rc = OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: the plan was compiled for the cpu (ovta compile --target accel)", backend);
  }
  if (rc) return rc;
  slog(s, "plan %s loaded (%d accelerator node(s)%s%s)", s->hash, na, na ? " on " : "", na ? backend : "");
  cJSON *r = cJSON_CreateObject(), *ins = cJSON_AddArrayToObject(r, "inputs");
  for (int i = 0; i < s->plan->nin; i++) cJSON_AddItemToArray(ins, cJSON_CreateString(s->plan->t[s->plan->in[i]].name));
  cJSON_AddNumberToObject(r, "accel_nodes", na);
  cJSON_AddStringToObject(r, "backend", na ? backend : "cpu");
  rc = ovta_remote_send_json(s->fd, OVTA_RM_OK, r, err);
  cJSON_Delete(r);
  return rc;
}

static int on_input(session *s, const ovta_remote_frame *f, ovta_error *err) {
  char name[OVTA_REMOTE_MAX_NAME + 1];
  ovta_array v;
  int rc = ovta_remote_tensor_decode(f, name, sizeof name, &v, err);
  if (rc) return rc;
  if (!s->plan) return OVTA_FAIL(err, OVTA_EINVAL, "INPT %s: no plan loaded", name);
  int k = 0;
  while (k < s->nin && strcmp(s->in_name[k], name)) k++;
  if (k == MAX_IN) return OVTA_FAIL(err, OVTA_EINVAL, "INPT %s: more than %d inputs", name, MAX_IN);
  uint64_t held = s->held - (k < s->nin ? s->in_val[k].nbytes : 0) + v.nbytes; /* a resent input replaces its value */
  if (s->received + held > session_cap(s))
    return OVTA_FAIL(err, OVTA_EINVAL, "INPT %s: %llu bytes held with it, over the session limit of %llu (--max-session-bytes)",
                     name, (unsigned long long)(s->received + held), (unsigned long long)session_cap(s));
  ovta_array c = v;
  c.data = malloc(v.nbytes ? v.nbytes : 1);
  char *nm = k == s->nin ? strdup(name) : NULL;
  if (!c.data || (k == s->nin && !nm)) {
    free(c.data), free(nm);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for input %s", name);
  }
  memcpy(c.data, v.data, v.nbytes);
  if (k == s->nin) s->in_name[s->nin++] = nm;
  ovta_array_clear(&s->in_val[k]);
  s->in_val[k] = c, s->held = held;
  return 0;
}

static int on_run(session *s, const ovta_remote_frame *f, ovta_error *err) {
  if (!s->plan) return OVTA_FAIL(err, OVTA_EINVAL, "RUN: no plan loaded");
  cJSON *j;
  int rc = ovta_remote_json_decode(f, &j, err);
  if (rc) return rc;
  bool stats = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "stats"));
  cJSON_Delete(j);
  const char *files[MAX_IN];
  for (int k = 0; k < s->nin; k++) files[k] = "INPT";
  rc = ovta_plan_set_inputs(s->plan, s->nin, (const char *const *)s->in_name, files, s->in_val, err);
  if (!rc) rc = ovta_plan_run(s->plan, err);
  for (int i = 0; !rc && i < s->plan->nout; i++) {
    ovta_array a = {0};
    rc = ovta_plan_get_output(s->plan, i, &a, err);
    if (!rc) rc = ovta_remote_send_tensor(s->fd, OVTA_RM_OUTP, s->plan->t[s->plan->out[i]].name, &a, err);
    ovta_array_clear(&a);
  }
  if (!rc && stats) {
    cJSON *st = cJSON_CreateObject();
    cJSON_AddItemToObject(st, "steps", ovta_remote_stats_json(s->plan));
    rc = ovta_remote_send_json(s->fd, OVTA_RM_STAT, st, err);
    cJSON_Delete(st);
  }
  if (!rc) {
    cJSON *r = cJSON_CreateObject();
    rc = ovta_remote_send_json(s->fd, OVTA_RM_OK, r, err);
    cJSON_Delete(r);
  }
  if (!rc) slog(s, "run %d done (%d input(s), %d output(s))", ++s->runs, s->nin, s->plan->nout);
  return rc;
}

/* TRCE: the device closed (its trace complete), the trace sent back as FILE trace.raw. */
static int on_trace(session *s, ovta_error *err) {
  if (!s->plan || !s->trace) return OVTA_FAIL(err, OVTA_EINVAL, "TRCE: %s", s->plan ? "LOAD asked for no trace" : "no plan loaded");
  ovta_plan_free(s->plan); /* closes the device: the trace is complete */
  s->plan = NULL;
  char path[4200];
  snprintf(path, sizeof path, "%s/trace.raw", s->dir);
  char *data;
  size_t n;
  if (access(path, F_OK) != 0) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "TRCE: the device recorded no trace (tsim does)");
  int rc = ovta_read_file(path, OVTA_SIZE_CAP(31), &data, &n, err);
  if (rc) return rc;
  static const uint8_t name[2 + 9] = {9, 0, 't', 'r', 'a', 'c', 'e', '.', 'r', 'a', 'w'};
  rc = ovta_remote_send(s->fd, OVTA_RM_FILE, name, sizeof name, data, n, err);
  free(data);
  if (!rc) slog(s, "trace sent (%zu bytes)", n);
  return rc;
}

/* One frame handled: 0 to go on, 1 after BYE, else an error. */
static int handle(session *s, const ovta_remote_frame *f, ovta_error *err) {
  if (!s->hello && f->type != OVTA_RM_HELO) return OVTA_FAIL(err, OVTA_EINVAL, "refused: HELO with the token first");
  switch (f->type) {
  case OVTA_RM_HELO: return s->hello ? OVTA_FAIL(err, OVTA_EINVAL, "HELO twice") : on_hello(s, f, err);
  case OVTA_RM_PLAN: return on_plan(s, f, err);
  case OVTA_RM_FILE: return on_file(s, f, err);
  case OVTA_RM_LOAD: return on_load(s, f, err);
  case OVTA_RM_INPT: return on_input(s, f, err);
  case OVTA_RM_RUN: return on_run(s, f, err);
  case OVTA_RM_TRCE: return on_trace(s, err);
  case OVTA_RM_BYE: return 1;
  default: return OVTA_FAIL(err, OVTA_EINVAL, "a %s frame is the server's to send", ovta_remote_type_tag(f->type));
  }
}

/* Remove dir and the plain files in it, and its "plan" folder's (what a session writes). */
static void remove_session_dir(const char *dir) {
  char sub[4200];
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 0) snprintf(sub, sizeof sub, "%s/plan", dir);
    else snprintf(sub, sizeof sub, "%s", dir);
    DIR *d = opendir(sub);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char p[4500];
      snprintf(p, sizeof p, "%s/%s", sub, e->d_name);
      unlink(p);
    }
    if (d) closedir(d);
    rmdir(sub);
  }
}

/* The session on fd until BYE, an error (replied with ERR) or the connection ends. */
static int run_session(session *s) {
  ovta_error err = {0};
  int rc = 0;
  while (!rc) {
    ovta_remote_frame f;
    uint8_t *buf = NULL;
    if (ovta_now_s() > s->deadline) { /* --in-process has no alarm: checked between frames */
      OVTA_FAIL(&err, OVTA_ETIMEOUT, "over the session time limit (%d s)", s->o->session_s);
      reply_err(s, -1, &err);
      break;
    }
    /* before the token, data frames are refused by size (no large buffer for a stranger) */
    rc = ovta_remote_recv(s->fd, s->hello ? s->o->max_data : 0, &f, &buf, &err);
    if (rc == OVTA_EIO || rc == OVTA_ETIMEOUT) { /* closed, dropped or stalled: nobody to tell */
      slog(s, "ended: %s", err.msg);
      free(buf);
      break;
    }
    if (!rc) rc = handle(s, &f, &err);
    free(buf);
    if (rc < 0) reply_err(s, rc, &err);
  }
  if (rc == 1) slog(s, "ended (%d run(s))", s->runs), rc = 0;
  ovta_plan_free(s->plan);
  for (int k = 0; k < s->nin; k++) free(s->in_name[k]), ovta_array_clear(&s->in_val[k]);
  return rc;
}

/* One connection's session: its folder, timeouts, the frames, the folder removed; 0 when it
 * ended well. */
static int serve_one(const ovta_serve_opts *o, const char *token, int fd, int id, int server_pid) {
  session s = {.o = o, .token = token, .fd = fd, .id = id, .deadline = ovta_now_s() + o->session_s};
  struct timeval tv = {.tv_sec = (time_t)o->timeout_s, .tv_usec = (suseconds_t)((o->timeout_s - (double)(time_t)o->timeout_s) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  snprintf(s.dir, sizeof s.dir, "%s/sessions/%d-%d", o->work_dir, server_pid, id);
  int rc;
  if (mkdir(s.dir, 0700) != 0) {
    ovta_error err = {0};
    OVTA_FAIL(&err, OVTA_EIO, "session folder %s: %s", s.dir, strerror(errno));
    rc = reply_err(&s, 1, &err);
  } else {
    rc = run_session(&s);
    remove_session_dir(s.dir);
  }
  shutdown(fd, SHUT_RDWR);
  close(fd);
  return rc;
}

/* The session of fd in a child process (alarm: the whole session's deadline), waited for. */
static void serve_forked(const ovta_serve_opts *o, const char *token, int lfd, int fd, int id) {
  pid_t pid = fork();
  if (pid == 0) {
    close(lfd);
    alarm((unsigned)o->session_s); /* a stalled session or run ends with SIGALRM */
    _exit(serve_one(o, token, fd, id, (int)getppid()) ? 1 : 0);
  }
  close(fd);
  if (pid < 0) {
    if (o->log) fprintf(o->log, "ovta-rt serve: session %d: fork: %s\n", id, strerror(errno));
    return;
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(st) && o->log)
    fprintf(o->log, "ovta-rt serve: session %d: ended by signal %d%s\n", id, WTERMSIG(st),
            WTERMSIG(st) == SIGALRM ? " (over the session time limit)" : ""), fflush(o->log);
  char d[4200];
  snprintf(d, sizeof d, "%s/sessions/%d-%d", o->work_dir, (int)getpid(), id);
  remove_session_dir(d); /* what a killed session left */
}

/* The listening socket on o->listen; its address as text into where. */
static int listen_on(const ovta_serve_opts *o, int *out, char *where, size_t n, ovta_error *err) {
  char host[256], port[16];
  int rc = ovta_remote_split_addr(o->listen ? o->listen : "127.0.0.1:9091", host, sizeof host, port, sizeof port, err);
  if (rc) return ovta_error_wrap(err, "--listen"), rc;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV}, *ai;
  int g = getaddrinfo(host, port, &hints, &ai);
  if (g) return OVTA_FAIL(err, OVTA_EINVAL, "--listen %s: %s", o->listen, gai_strerror(g));
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 16) != 0) {
    rc = OVTA_FAIL(err, OVTA_EIO, "--listen %s:%s: %s", host, port, strerror(errno));
    if (fd >= 0) close(fd);
  }
  freeaddrinfo(ai);
  if (rc) return rc;
  struct sockaddr_storage sa;
  socklen_t sl = sizeof sa;
  char h[NI_MAXHOST], p[NI_MAXSERV];
  if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 &&
      getnameinfo((struct sockaddr *)&sa, sl, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV) == 0)
    snprintf(where, n, "%s:%s", h, p);
  else snprintf(where, n, "%s:%s", host, port);
  *out = fd;
  return 0;
}

/* WORK_DIR, WORK_DIR/plans and WORK_DIR/sessions, created private when missing. */
static int make_work_dir(const char *w, ovta_error *err) {
  const char *sub[3] = {"", "/plans", "/sessions"};
  for (int i = 0; i < 3; i++) {
    char d[4200];
    snprintf(d, sizeof d, "%s%s", w, sub[i]);
    struct stat st;
    if (mkdir(d, 0700) != 0 && (errno != EEXIST || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)))
      return OVTA_FAIL(err, OVTA_EIO, "--work-dir %s: %s", d, strerror(errno));
  }
  return 0;
}

int ovta_remote_serve(const ovta_serve_opts *o, ovta_error *err) {
  char token[OVTA_REMOTE_MAX_TOKEN + 1], where[NI_MAXHOST + NI_MAXSERV + 2];
  if (!o->token_file) return OVTA_FAIL(err, OVTA_EINVAL, "--token-file is required (a private file holding the shared token)");
  if (!o->work_dir) return OVTA_FAIL(err, OVTA_EINVAL, "--work-dir is required");
  int rc = ovta_remote_read_token(o->token_file, token, sizeof token, err);
  if (!rc) rc = make_work_dir(o->work_dir, err);
  int lfd = -1;
  if (!rc) rc = listen_on(o, &lfd, where, sizeof where, err);
  if (rc) return rc;
  signal(SIGPIPE, SIG_IGN);
  if (o->log) fprintf(o->log, "ovta-rt serve: listening on %s (work dir %s)\n", where, o->work_dir), fflush(o->log);
  for (int id = 1; !o->max_sessions || id <= o->max_sessions; id++) {
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    int fd = accept(lfd, (struct sockaddr *)&sa, &sl);
    if (fd < 0) {
      id--;
      if (errno == EINTR || errno == ECONNABORTED) continue;
      rc = OVTA_FAIL(err, OVTA_EIO, "accept: %s", strerror(errno));
      break;
    }
    char h[NI_MAXHOST] = "?", p[NI_MAXSERV] = "?";
    getnameinfo((struct sockaddr *)&sa, sl, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV);
    if (o->log) fprintf(o->log, "ovta-rt serve: session %d: from %s:%s\n", id, h, p), fflush(o->log);
    if (o->in_process) serve_one(o, token, fd, id, (int)getpid());
    else serve_forked(o, token, lfd, fd, id);
  }
  close(lfd);
  return rc;
}
