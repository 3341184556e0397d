/* slurm.c: the Slurm runner: n commands as one job array (sbatch --array), watched with squeue
 * until none is pending or running, each task's stdout collected from the shared working folder;
 * a task without its output (failed, cancelled, timed out, node lost) is resubmitted up to
 * `retries` times and then reported with Slurm's state (sacct, when accounting is there) and its
 * log. Rule: a task's output file appears only complete (written to a temporary name, renamed
 * when the command exits 0), so a present file is a finished task (compiler/tune/tune.h). */
#include "tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int tune_run_capture(char *const *argv, char **out, const char *errpath) {
  int fd[2];
  if (out) *out = NULL;
  if (pipe(fd)) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]), close(fd[1]);
    int e = errpath && !strcmp(errpath, "-")
                ? 2
                : open(errpath ? errpath : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (e >= 0 && e != 2) dup2(e, 2), close(e);
    if (!out && errpath && strcmp(errpath, "-")) dup2(2, 1); /* nothing to capture: stdout to the log too */
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0, cap = 4096;
  char *b = malloc(cap);
  for (;;) {
    if (b && len + 1024 > cap) {
      char *nb = realloc(b, cap *= 2);
      if (!nb) free(b);
      b = nb;
    }
    char tmp[1024];
    ssize_t r = read(fd[0], b ? b + len : tmp, 1023);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (b) len += (size_t)r;
  }
  close(fd[0]);
  if (b) b[len] = 0;
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (out)
    *out = b;
  else
    free(b);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* s into f single-quoted for sh. */
static void sh_quote(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++)
    if (*s == '\'')
      fputs("'\\''", f);
    else
      fputc(*s, f);
  fputc('\'', f);
}

/* The array script: task i runs its command, stdout to out.i.tmp, renamed to out.i on success. */
static int write_script(const char *dir, int n, const char *const *const *argvs, ovta_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/tasks.sh", dir);
  FILE *f = fopen(path, "w");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "slurm: %s: %s", path, strerror(errno));
  fprintf(f, "#!/bin/sh\n# ovta: one Slurm array task per command (compiler/tune/slurm.c)\nd=");
  sh_quote(f, dir);
  fprintf(f, "\ni=$SLURM_ARRAY_TASK_ID\ncase \"$i\" in\n");
  for (int i = 0; i < n; i++) {
    fprintf(f, "%d) set --", i);
    for (const char *const *a = argvs[i]; *a; a++) fputc(' ', f), sh_quote(f, *a);
    fputs(" ;;\n", f);
  }
  fprintf(f, "*) echo \"ovta: no task $i\" >&2; exit 2 ;;\nesac\n"
             "\"$@\" > \"$d/out.$i.tmp\" 2> \"$d/err.$i\" && mv \"$d/out.$i.tmp\" \"$d/out.$i\"\n");
  if (fclose(f)) return OVTA_FAIL(err, OVTA_EIO, "slurm: %s: write failed", path);
  return OVTA_OK;
}

static void last_line(const char *path, char *buf, size_t cap);

/* sbatch the tasks with todo[i] set; *job gets the job id. */
static int submit(const tune_slurm *s, const char *dir, const char *name, int n, const bool *todo, long *job,
                  ovta_error *err) {
  size_t cap = (size_t)n * 12 + 32;
  char *list = malloc(cap), *argv[64], tbuf[32], lbuf[4300], sbuf[4300], *extra = NULL;
  if (!list) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  size_t len = 0;
  for (int i = 0; i < n; i++)
    if (todo[i]) len += (size_t)snprintf(list + len, cap - len, "%s%d", len ? "," : "", i);
  if (s->max_running > 0) snprintf(list + len, cap - len, "%%%d", s->max_running);
  int a = 0;
  argv[a++] = "sbatch", argv[a++] = "--parsable", argv[a++] = "--job-name", argv[a++] = (char *)name;
  argv[a++] = "--array", argv[a++] = list;
  snprintf(lbuf, sizeof lbuf, "%s/slurm-%%a.log", dir);
  argv[a++] = "--output", argv[a++] = lbuf, argv[a++] = "--chdir", argv[a++] = (char *)dir;
  if (s->partition) argv[a++] = "--partition", argv[a++] = (char *)s->partition;
  if (s->timeout_s > 0) {
    snprintf(tbuf, sizeof tbuf, "%d", (int)ceil(s->timeout_s / 60));
    argv[a++] = "--time", argv[a++] = tbuf;
  }
  if (s->extra && (extra = strdup(s->extra)))
    for (char *tok = strtok(extra, " "); tok && a < 60; tok = strtok(NULL, " ")) argv[a++] = tok;
  snprintf(sbuf, sizeof sbuf, "%s/tasks.sh", dir);
  argv[a++] = sbuf, argv[a] = NULL;
  char *out = NULL, epath[4300], said[160];
  snprintf(epath, sizeof epath, "%s/sbatch.err", dir);
  remove(epath);
  int st = tune_run_capture(argv, &out, epath);
  free(list), free(extra);
  char *end = NULL;
  *job = out ? strtol(out, &end, 10) : 0;
  int rc = OVTA_OK;
  if (st != 0 || *job <= 0 || !end || (*end && *end != ';' && *end != '\n')) {
    last_line(epath, said, sizeof said); /* sbatch's own reason */
    rc = OVTA_FAIL(err, OVTA_EIO, "slurm: sbatch failed (status %d): %s", st,
                   said[0] ? said : "no reason given; is Slurm installed and its controller up (sinfo)?");
  }
  free(out);
  return rc;
}

/* Wait until job has no task left in squeue. */
static int watch(const tune_slurm *s, long job, ovta_error *err) {
  char jb[32];
  snprintf(jb, sizeof jb, "%ld", job);
  char *argv[] = {"squeue", "-h", "-r", "-j", jb, "-o", "%i %T", NULL};
  int fails = 0;
  double poll = s->poll_s > 0 ? s->poll_s : 2;
  for (;;) {
    char *out = NULL;
    int st = tune_run_capture(argv, &out, NULL);
    /* squeue fails for a job id it no longer knows (finished long ago): that is "none left" */
    bool left = st == 0 && out && strspn(out, " \n") != strlen(out);
    free(out);
    if (st != 0 && ++fails > 30) return OVTA_FAIL(err, OVTA_EIO, "slurm: squeue keeps failing on job %ld", job);
    if (st == 0 && !left) return OVTA_OK;
    if (st != 0 && fails > 2) return OVTA_OK;
    struct timespec ts = {(time_t)poll, (long)((poll - (time_t)poll) * 1e9)};
    nanosleep(&ts, NULL);
  }
}

/* Slurm's state of task i of job (sacct; "" when accounting is off). */
static void task_state(long job, int i, char *st, size_t cap) {
  char jb[48];
  snprintf(jb, sizeof jb, "%ld_%d", job, i);
  char *argv[] = {"sacct", "-n", "-X", "-P", "-j", jb, "-o", "State", NULL}, *out = NULL;
  st[0] = 0;
  if (tune_run_capture(argv, &out, NULL) == 0 && out) snprintf(st, cap, "%.*s", (int)strcspn(out, "\n "), out);
  free(out);
}

/* The last line of a file (a task's stderr), into buf. */
static void last_line(const char *path, char *buf, size_t cap) {
  char *text = NULL;
  size_t len = 0;
  ovta_error e = {0};
  buf[0] = 0;
  if (ovta_read_file(path, 1 << 20, &text, &len, &e) || !text) return;
  while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = 0;
  char *nl = strrchr(text, '\n');
  snprintf(buf, cap, "%s", nl ? nl + 1 : text);
  free(text);
}

/* Collect the outputs of the tasks in todo; a task with its output leaves todo. */
static void collect(const char *dir, int n, bool *todo, char **outs, long job, char (*why)[200]) {
  for (int i = 0; i < n; i++) {
    if (!todo[i]) continue;
    char path[4300], st[64], line[120];
    snprintf(path, sizeof path, "%s/out.%d", dir, i);
    ovta_error e = {0};
    size_t len = 0;
    if (!ovta_read_file(path, 1 << 24, &outs[i], &len, &e) && outs[i]) {
      todo[i] = false, why[i][0] = 0;
      continue;
    }
    task_state(job, i, st, sizeof st);
    snprintf(path, sizeof path, "%s/err.%d", dir, i);
    last_line(path, line, sizeof line);
    snprintf(why[i], sizeof why[i], "slurm task %ld_%d failed%s%s%s (%s)", job, i, st[0] ? " (" : "", st,
             st[0] ? ")" : "", line[0] ? line : "no output; see its slurm-N.log");
  }
}

int tune_slurm_run(const tune_slurm *s, const char *name, int n, const char *const *const *argvs, char **outs,
                   char (*why)[200], ovta_error *err) {
  static int batch;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/%s.%ld.%d", s->workdir, name, (long)getpid(), batch++);
  if (mkdir(s->workdir, 0777) && errno != EEXIST)
    return OVTA_FAIL(err, OVTA_EIO, "slurm: %s: %s", s->workdir, strerror(errno));
  if (mkdir(dir, 0777) && errno != EEXIST) return OVTA_FAIL(err, OVTA_EIO, "slurm: %s: %s", dir, strerror(errno));
  bool *todo = malloc((size_t)n + 1);
  if (!todo) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++) todo[i] = true, outs[i] = NULL, why[i][0] = 0;
  int rc = write_script(dir, n, argvs, err);
  for (int round = 0; !rc && round <= s->retries; round++) {
    int left = 0;
    for (int i = 0; i < n; i++) left += todo[i];
    if (!left) break;
    if (round)
      fprintf(stderr, "ovta: slurm: resubmitting %d failed task(s) (retry %d of %d)\n", left, round, s->retries);
    long job = 0;
    if ((rc = submit(s, dir, name, n, todo, &job, err))) break;
    fprintf(stderr, "ovta: slurm: job %ld, %d task(s) in %s\n", job, left, dir);
    if ((rc = watch(s, job, err))) break;
    collect(dir, n, todo, outs, job, why);
  }
  free(todo);
  return rc;
}

/* ---------------------------------------------------------------- The tuner's trials */

/* One `ovta tune --measure` output line into res. */
static void parse_measure(const char *out, tune_result *res) {
  cJSON *j = cJSON_Parse(out);
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "cycles"), *e = cJSON_GetObjectItemCaseSensitive(j, "error");
  *res = (tune_result){0};
  if (cJSON_IsNumber(c) && c->valuedouble >= 0)
    res->ok = true, res->cycles = (uint64_t)c->valuedouble;
  else if (cJSON_IsString(e))
    snprintf(res->error, sizeof res->error, "%.199s", e->valuestring);
  else
    snprintf(res->error, sizeof res->error, "unreadable --measure output: %.60s", out);
  cJSON_Delete(j);
}

/* Write trial i's JSON file; its path into path. */
static int write_trial(const char *dir, const tune_trial *t, int i, char *path, size_t cap, ovta_error *err) {
  char *js = tune_trial_to_json(t);
  if (!js) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  snprintf(path, cap, "%s/trial.%d.json", dir, i);
  FILE *f = fopen(path, "w");
  int ok = f && fputs(js, f) >= 0;
  if (f && fclose(f)) ok = 0;
  free(js);
  return ok ? OVTA_OK : OVTA_FAIL(err, OVTA_EIO, "slurm: %s: cannot write", path);
}

int tune_run_batch_slurm(const tune_runner *r, const tune_trial *t, int n, tune_result *res, ovta_error *err) {
  static int batch;
  const tune_slurm *s = r->slurm;
  char dir[4096], wd[32] = "";
  snprintf(dir, sizeof dir, "%s/trials.%ld.%d", s->workdir, (long)getpid(), batch++);
  if ((mkdir(s->workdir, 0777) && errno != EEXIST) || (mkdir(dir, 0777) && errno != EEXIST))
    return OVTA_FAIL(err, OVTA_EIO, "slurm: %s: %s", dir, strerror(errno));
  if (r->watchdog_cycles) snprintf(wd, sizeof wd, "%llu", (unsigned long long)r->watchdog_cycles);
  char(*paths)[4200] = calloc((size_t)n + 1, sizeof *paths), (*why)[200] = calloc((size_t)n + 1, sizeof *why);
  const char *(*argv)[12] = calloc((size_t)n + 1, sizeof *argv);
  const char *const **argvs = calloc((size_t)n + 1, sizeof *argvs);
  char **outs = calloc((size_t)n + 1, sizeof *outs);
  int rc = paths && why && argv && argvs && outs ? OVTA_OK : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < n; i++) {
    rc = write_trial(dir, &t[i], i, paths[i], sizeof paths[i], err);
    const char *a[12] = {s->exe,      "tune",     "--measure",
                         paths[i],    "--config", r->cfgname,
                         "--backend", r->backend, wd[0] ? "--watchdog" : NULL,
                         wd,          NULL};
    memcpy(argv[i], a, sizeof a);
    argvs[i] = argv[i];
  }
  if (!rc) rc = tune_slurm_run(s, "ovta-tune", n, argvs, outs, why, err);
  for (int i = 0; !rc && i < n; i++) {
    if (outs[i])
      parse_measure(outs[i], &res[i]);
    else
      res[i] = (tune_result){0}, snprintf(res[i].error, sizeof res[i].error, "%s", why[i]);
  }
  for (int i = 0; outs && i < n; i++) free(outs[i]);
  free(paths), free(why), free(argv), free(argvs), free(outs);
  return rc;
}
