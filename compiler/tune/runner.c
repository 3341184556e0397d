/* runner.c: the local runner: each task run in a forked worker process (so a crash or a hang
 * costs only that task), at most `jobs` at a time, its fixed-size result sent back over a pipe,
 * a worker past the timeout killed with its whole process group (the tools it started too). The
 * tuner's trials (tune_run_batch) and the sweep's design points (`ovta sweep`) both run here
 * (compiler/tune/tune.h). */
#include "tune.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A running worker. */
typedef struct worker {
  pid_t pid;          /* 0: slot free */
  int fd;             /* read end of its pipe */
  int task;           /* index of its task */
  double deadline;    /* monotonic seconds (0: none) */
} worker;

/* What a pool run needs. */
typedef struct pool_run {
  const tune_pool *p;  /* jobs and timeout */
  tune_task_fn fn;     /* the task */
  void *ctx;           /* fn's context */
  char *out;           /* n results of `size` bytes */
  size_t size;         /* bytes of one result */
  char (*why)[200];    /* per task: "" or the pool's reason it has no result */
} pool_run;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The worker's side: its own process group, run the task, write the result, exit without the
 * parent's atexit handlers. */
static void child(const pool_run *pr, int i, int fd) {
  setpgid(0, 0);
  char *res = calloc(1, pr->size);
  if (!res) _exit(1);
  pr->fn(pr->ctx, i, res);
  size_t off = 0;
  while (off < pr->size) {
    ssize_t w = write(fd, res + off, pr->size - off);
    if (w <= 0) _exit(1);
    off += (size_t)w;
  }
  _exit(0);
}

static int start(const pool_run *pr, int i, worker *w, ovta_error *err) {
  int p[2];
  if (pipe(p)) return OVTA_FAIL(err, OVTA_EIO, "runner: pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]), close(p[1]);
    return OVTA_FAIL(err, OVTA_EIO, "runner: fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(p[0]);
    child(pr, i, p[1]);
  }
  setpgid(pid, pid); /* also here: no race with a kill before the child's own call */
  close(p[1]);
  *w = (worker){.pid = pid, .fd = p[0], .task = i, .deadline = pr->p->timeout_s > 0 ? now_s() + pr->p->timeout_s : 0};
  return OVTA_OK;
}

/* Read exactly size bytes (a result may exceed the pipe's atomic size); the count read. */
static size_t read_all(int fd, char *buf, size_t size) {
  size_t off = 0;
  while (off < size) {
    ssize_t r = read(fd, buf + off, size - off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    off += (size_t)r;
  }
  return off;
}

/* Collect worker w (its result is readable, or it timed out: kill its group). */
static void finish(const pool_run *pr, worker *w, bool timed_out) {
  int status = 0, i = w->task;
  char *res = pr->out + (size_t)i * pr->size;
  if (timed_out) kill(-w->pid, SIGKILL), kill(w->pid, SIGKILL);
  size_t n = timed_out ? 0 : read_all(w->fd, res, pr->size);
  waitpid(w->pid, &status, 0);
  close(w->fd);
  pr->why[i][0] = 0;
  if (timed_out) snprintf(pr->why[i], sizeof pr->why[i], "timeout after %g s", pr->p->timeout_s);
  else if (n != pr->size)
    snprintf(pr->why[i], sizeof pr->why[i], "worker died (%s %d)", WIFSIGNALED(status) ? "signal" : "status",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  if (pr->why[i][0]) memset(res, 0, pr->size);
  w->pid = 0;
}

/* Wait for one worker to report or pass its deadline, and collect it. */
static void wait_one(const pool_run *pr, worker *ws, int nw) {
  for (;;) {
    struct pollfd pf[64];
    int idx[64], np = 0;
    double next = 0, t = now_s();
    for (int i = 0; i < nw; i++) {
      if (!ws[i].pid) continue;
      if (ws[i].deadline && t >= ws[i].deadline) {
        finish(pr, &ws[i], true);
        return;
      }
      if (ws[i].deadline && (!next || ws[i].deadline < next)) next = ws[i].deadline;
      pf[np] = (struct pollfd){.fd = ws[i].fd, .events = POLLIN}, idx[np++] = i;
    }
    int ms = next ? (int)((next - t) * 1000) + 1 : -1;
    int k = poll(pf, (nfds_t)np, ms);
    for (int j = 0; k > 0 && j < np; j++)
      if (pf[j].revents) {
        finish(pr, &ws[idx[j]], false);
        return;
      }
  }
}

int tune_pool_run(const tune_pool *p, int n, tune_task_fn fn, void *ctx, void *out, size_t size, char (*why)[200],
                  ovta_error *err) {
  worker ws[64] = {0};
  pool_run pr = {.p = p, .fn = fn, .ctx = ctx, .out = out, .size = size, .why = why};
  int nw = p->jobs < 1 ? 1 : p->jobs > 64 ? 64 : p->jobs, running = 0, rc = OVTA_OK;
  for (int i = 0; i < n || running;) {
    if (i < n && running < nw && !rc) {
      int s = 0;
      while (ws[s].pid) s++;
      if ((rc = start(&pr, i, &ws[s], err))) { i = n; continue; }
      i++, running++;
      continue;
    }
    if (!running) break;
    wait_one(&pr, ws, nw);
    running--;
  }
  return rc;
}

/* ---------------------------------------------------------------- The tuner's trials */

/* Context of a trial task. */
typedef struct trial_ctx {
  const tune_runner *r;   /* backend, config */
  const tune_trial *t;    /* the trials */
} trial_ctx;

static void trial_task(void *ctx, int i, void *out) {
  const trial_ctx *c = ctx;
  tune_result *res = out;
  ovta_error e = {0};
  if (tune_measure(c->r, &c->t[i], &res->cycles, &e)) snprintf(res->error, sizeof res->error, "%.199s", e.msg);
  else res->ok = true;
}

int tune_run_batch(const tune_runner *r, const tune_trial *t, int n, tune_result *res, ovta_error *err) {
  if (r->slurm) return tune_run_batch_slurm(r, t, n, res, err);
  char (*why)[200] = calloc((size_t)n + 1, sizeof *why);
  if (!why) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  trial_ctx c = {r, t};
  tune_pool p = {.jobs = r->jobs, .timeout_s = r->timeout_s};
  int rc = tune_pool_run(&p, n, trial_task, &c, res, sizeof *res, why, err);
  for (int i = 0; !rc && i < n; i++)
    if (why[i][0]) res[i] = (tune_result){0}, snprintf(res[i].error, sizeof res[i].error, "%s", why[i]);
    else res[i].error[sizeof res[i].error - 1] = 0;
  free(why);
  return rc;
}
