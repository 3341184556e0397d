/* runner.c: the local trial runner: each trial measured in a forked worker process (so a crash
 * or a hang costs only that trial), at most `jobs` at a time, the result sent back over a pipe,
 * a worker past the timeout killed (compiler/tune/tune.h). */
#include "tune.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A running worker. */
typedef struct worker {
  pid_t pid;          /* 0: slot free */
  int fd;             /* read end of its pipe */
  int trial;          /* index of its trial */
  double deadline;    /* monotonic seconds (0: none) */
} worker;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The worker's side: measure, write the result, exit without running the parent's atexit. */
static void child(const tune_runner *r, const tune_trial *t, int fd) {
  tune_result res = {0};
  ovta_error e = {0};
  if (tune_measure(r, t, &res.cycles, &e)) snprintf(res.error, sizeof res.error, "%.199s", e.msg);
  else res.ok = true;
  ssize_t w = write(fd, &res, sizeof res);
  _exit(w == (ssize_t)sizeof res ? 0 : 1);
}

static int start(const tune_runner *r, const tune_trial *t, int i, worker *w, ovta_error *err) {
  int p[2];
  if (pipe(p)) return OVTA_FAIL(err, OVTA_EIO, "tune: pipe: %s", strerror(errno));
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]), close(p[1]);
    return OVTA_FAIL(err, OVTA_EIO, "tune: fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(p[0]);
    child(r, &t[i], p[1]);
  }
  close(p[1]);
  *w = (worker){.pid = pid, .fd = p[0], .trial = i, .deadline = r->timeout_s > 0 ? now_s() + r->timeout_s : 0};
  return OVTA_OK;
}

/* Collect worker w (its result is readable, or it timed out: kill it). */
static void finish(const tune_runner *r, worker *w, bool timed_out, tune_result *res) {
  tune_result got = {0};
  int status = 0;
  if (timed_out) kill(w->pid, SIGKILL);
  ssize_t n = timed_out ? 0 : read(w->fd, &got, sizeof got);
  waitpid(w->pid, &status, 0);
  close(w->fd);
  if (timed_out) {
    *res = (tune_result){0};
    snprintf(res->error, sizeof res->error, "timeout after %g s", r->timeout_s);
  } else if (n != (ssize_t)sizeof got) {
    *res = (tune_result){0};
    snprintf(res->error, sizeof res->error, "worker died (%s %d)", WIFSIGNALED(status) ? "signal" : "status",
             WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  } else {
    *res = got;
    res->error[sizeof res->error - 1] = 0;
  }
  w->pid = 0;
}

/* Wait for one worker to report or pass its deadline, and collect it. */
static void wait_one(const tune_runner *r, worker *ws, int nw, tune_result *res) {
  for (;;) {
    struct pollfd pf[64];
    int idx[64], np = 0;
    double next = 0, t = now_s();
    for (int i = 0; i < nw; i++) {
      if (!ws[i].pid) continue;
      if (ws[i].deadline && t >= ws[i].deadline) {
        finish(r, &ws[i], true, &res[ws[i].trial]);
        return;
      }
      if (ws[i].deadline && (!next || ws[i].deadline < next)) next = ws[i].deadline;
      pf[np] = (struct pollfd){.fd = ws[i].fd, .events = POLLIN}, idx[np++] = i;
    }
    int ms = next ? (int)((next - t) * 1000) + 1 : -1;
    int k = poll(pf, (nfds_t)np, ms);
    for (int j = 0; k > 0 && j < np; j++)
      if (pf[j].revents) {
        finish(r, &ws[idx[j]], false, &res[ws[idx[j]].trial]);
        return;
      }
  }
}

int tune_run_batch(const tune_runner *r, const tune_trial *t, int n, tune_result *res, ovta_error *err) {
  worker ws[64] = {0};
  int nw = r->jobs < 1 ? 1 : r->jobs > 64 ? 64 : r->jobs, running = 0, rc = OVTA_OK;
  for (int i = 0; i < n || running;) {
    if (i < n && running < nw && !rc) {
      int s = 0;
      while (ws[s].pid) s++;
      if ((rc = start(r, t, i, &ws[s], err))) { i = n; continue; }
      i++, running++;
      continue;
    }
    if (!running) break;
    wait_one(r, ws, nw, res);
    running--;
  }
  return rc;
}
