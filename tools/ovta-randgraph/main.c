/* ovta-randgraph: the compiler's differential fuzzer (tools/ovta-randgraph/README.md).
 *
 *   ovta-randgraph [--seed N] [--count N | --seconds S] [--out DIR] [--ort PATH/ort-run.js]
 *                  [--ort-every K] [--tsim-every K] [--config NAME] [-O N] [-q] [--inject-fault]
 *   ovta-randgraph --print SEED        the graph of SEED (JSON) on stdout
 *   ovta-randgraph --write SEED DIR    the case of SEED as files: graph.json, model.onnx, x.npy, calib.npy
 *
 * Seeds N, N+1, ... each make one graph (gen.c) checked in a child process (check.c), so a
 * crash or a hang (120 CPU s, 900 s wall) is a finding, not the end of the run. A failing seed gets a reproducer
 * folder DIR/seed-N (the case's files, repro.txt: stage, message, the commands to replay it) and
 * the run goes on (SIGINT or SIGTERM: it stops after the current case). At the end: graphs tried, failures by stage, per-operator counts; exit 1 when
 * a case failed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "randgraph.h"

#define CASE_CPU_S 120   /* CPU seconds a case may use (SIGXCPU): a loop, whatever the load */
#define CASE_WALL_S 900  /* wall seconds (SIGALRM): a case blocked */
#define MAX_OPNAMES 32

typedef struct opts {
  uint64_t seed;       /* first seed */
  long count;          /* cases (0: until seconds) */
  double seconds;      /* run for this long (0: count) */
  const char *out;     /* reproducer folders go here */
  int ort_every;       /* onnxruntime on every K-th seed (0: never) */
  int tsim_every;      /* tsim on every K-th seed (0: never) */
  bool quiet;          /* no line per case */
  rg_opts ro;          /* what the checks need */
} opts;

static volatile sig_atomic_t stop; /* SIGINT / SIGTERM: finish the case, print the summary */
static void on_stop(int sig) { stop = sig; }

/* Totals of a run. */
typedef struct totals {
  long tried, failed, ort, tsim, qnodes, accel_nodes, nodes;
  long by_stage[RG_NSTAGES];
  char opname[MAX_OPNAMES][24];
  long opcount[MAX_OPNAMES];
  int nop;
  double max_rel_ref, max_rel_ort;
  long int8_far;        /* cases whose int8 output is off the fp32 one by > 25% of its range */
  double int8_worst;    /* the largest such error, and its seed */
  uint64_t int8_worst_seed;
} totals;

static void usage(FILE *f) {
  fputs("usage: ovta-randgraph [--seed N] [--count N | --seconds S] [--out DIR] [--ort PATH/ort-run.js]\n"
        "                      [--ort-every K] [--tsim-every K] [--config NAME] [-O N] [-q]\n"
        "       ovta-randgraph --print SEED | --write SEED DIR\n\n"
        "The compiler's differential fuzzer: seed N makes a random valid graph (convs, dense, pools,\n"
        "adds, concats, activations, reshapes); each is compiled fp32 for the CPU (checked against the\n"
        "reference evaluator, and onnxruntime on every K-th seed) and int8 for the CPU path and the\n"
        "accelerator (fsim; tsim on every K-th seed), whose outputs must be equal byte for byte.\n\n"
        "  --seed N        first seed (default 1)\n"
        "  --count N       cases to run (default 100 unless --seconds)\n"
        "  --seconds S     run new seeds until S seconds have passed\n"
        "  --out DIR       reproducer folders DIR/seed-N of failing seeds (default build/fuzz-compiler)\n"
        "  --ort JS        tools/ort-ref/ort-run.js (NODE_PATH must find onnxruntime-node)\n"
        "  --ort-every K   onnxruntime on seeds divisible by K (default 10; 0: never)\n"
        "  --tsim-every K  tsim on seeds divisible by K (default 20; 0: never)\n"
        "  --config NAME   accelerator config (default: default)\n"
        "  -O N            LLVM optimization level of the CPU builds (default 3)\n"
        "  -q              no line per case: failures, a progress line every 100 graphs, the summary\n"
        "  --inject-fault  flip one bit of every accelerator output (tests the checker: all must fail)\n"
        "  --print SEED    print the graph of SEED (JSON) and exit\n"
        "  --write SEED DIR  write the case of SEED (graph.json, model.onnx, x.npy, calib.npy) and exit\n",
        f);
}

static bool num(const char *s, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  *v = s ? strtod(s, &end) : 0;
  return s && *s && !*end && !errno && *v >= lo && *v <= hi;
}

static int parse(int argc, char **argv, opts *o, int *print, uint64_t *pseed, const char **wdir) {
  double v;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *n = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) return usage(stdout), -1;
    else if (!strcmp(a, "-q")) o->quiet = true;
    else if (!strcmp(a, "--inject-fault")) o->ro.inject_fault = true;
    else if (!strcmp(a, "--seed") && num(n, 0, 1e18, &v)) o->seed = (uint64_t)v, i++;
    else if (!strcmp(a, "--count") && num(n, 1, 1e9, &v)) o->count = (long)v, i++;
    else if (!strcmp(a, "--seconds") && num(n, 1, 1e7, &v)) o->seconds = v, i++;
    else if (!strcmp(a, "--out") && n) o->out = n, i++;
    else if (!strcmp(a, "--ort") && n) o->ro.ort_js = n, i++;
    else if (!strcmp(a, "--ort-every") && num(n, 0, 1e9, &v)) o->ort_every = (int)v, i++;
    else if (!strcmp(a, "--tsim-every") && num(n, 0, 1e9, &v)) o->tsim_every = (int)v, i++;
    else if (!strcmp(a, "--config") && n) o->ro.config = n, i++;
    else if (!strcmp(a, "-O") && num(n, 0, 3, &v)) o->ro.opt_level = (int)v, i++;
    else if (!strcmp(a, "--print") && num(n, 0, 1e18, &v)) *print = 1, *pseed = (uint64_t)v, i++;
    else if (!strcmp(a, "--write") && num(n, 0, 1e18, &v) && i + 2 < argc) *print = 2, *pseed = (uint64_t)v, *wdir = argv[i + 2], i += 2;
    else {
      fprintf(stderr, "ovta-randgraph: error: bad argument %s%s%s (see --help)\n", a, n ? " " : "", n ? n : "");
      return 2;
    }
  }
  if (!o->count && !o->seconds) o->count = 100;
  return 0;
}

/* mkdir -p */
static void mkdirs(const char *dir) {
  char p[1024];
  snprintf(p, sizeof p, "%s", dir);
  for (char *q = p + 1; *q; q++)
    if (*q == '/') *q = 0, mkdir(p, 0777), *q = '/';
  mkdir(p, 0777);
}

/* The case's files in dir: graph.json, model.onnx, x.npy, calib.npy. */
static int write_case(const rg_case *c, const char *dir) {
  char p[1200];
  ovta_error err = {0};
  ovta_graph *g = NULL;
  ovta_tensor *x = NULL, *cal = NULL;
  mkdirs(dir);
  snprintf(p, sizeof p, "%s/graph.json", dir);
  FILE *f = fopen(p, "w");
  int rc = !f || fputs(c->json, f) < 0;
  if (f) rc |= fclose(f) != 0;
  if (rc) fprintf(stderr, "ovta-randgraph: error: %s: cannot write\n", p);
  snprintf(p, sizeof p, "%s/model.onnx", dir);
  if (!rc && (ovta_graph_from_json(c->json, "graph.json", &g, &err) || ovta_onnx_save(g, p, &err))) rc = 1;
  if (!rc && rg_inputs(c, &x, &cal)) rc = 1;
  snprintf(p, sizeof p, "%s/x.npy", dir);
  if (!rc && ovta_npy_write(p, x, &err)) rc = 1;
  snprintf(p, sizeof p, "%s/calib.npy", dir);
  if (!rc && ovta_npy_write(p, cal, &err)) rc = 1;
  if (err.code) ovta_error_print(stderr, &err);
  ovta_graph_free(g), ovta_tensor_free(x), ovta_tensor_free(cal);
  return rc;
}

/* A failing seed's folder: the case and repro.txt. */
static void reproducer(const opts *o, uint64_t seed, const rg_case *c, const rg_result *r) {
  char dir[1024], p[1200];
  snprintf(dir, sizeof dir, "%s/seed-%llu", o->out, (unsigned long long)seed);
  if (write_case(c, dir)) return;
  snprintf(p, sizeof p, "%s/repro.txt", dir);
  FILE *f = fopen(p, "w");
  if (!f) return;
  fprintf(f, "seed %llu: %s: %s\n\nreplay (from the repository root):\n"
             "  build/ovta-randgraph --seed %llu --count 1 --config %s -O %d%s%s\n"
             "the int8 plan with the accelerator from the command line:\n"
             "  build/ovta compile %s/graph.json --target accel --config %s --calib %s/calib.npy --report -o /tmp/a.ovta\n"
             "  build/ovta run /tmp/a.ovta --backend fsim --input x=%s/x.npy --output-dir /tmp/a.out\n"
             "fp32 on the CPU path:  build/ovta run %s/graph.json --input x=%s/x.npy --output-dir /tmp/f.out\n",
          (unsigned long long)seed, rg_stage_name((rg_stage)r->stage), r->msg, (unsigned long long)seed, o->ro.config,
          o->ro.opt_level, r->tsim_done || (o->tsim_every && seed % (uint64_t)o->tsim_every == 0) ? " --tsim-every 1" : " --tsim-every 0",
          o->ro.ort_js ? " --ort tools/ort-ref/ort-run.js --ort-every 1" : "", dir, o->ro.config, dir, dir, dir, dir);
  fclose(f);
}

/* One case in a child process: the result through a pipe; a signal or a timeout is RG_CRASH. */
static void run_case(const opts *o, uint64_t seed, const rg_case *c, rg_result *r) {
  int fd[2];
  memset(r, 0, sizeof *r);
  fflush(stdout), fflush(stderr);
  if (pipe(fd)) {
    r->stage = RG_CRASH, snprintf(r->msg, sizeof r->msg, "pipe: %s", strerror(errno));
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGINT, SIG_IGN), signal(SIGTERM, SIG_DFL); /* Ctrl-C: the case finishes, then the summary */
    close(fd[0]);
    struct rlimit cpu = {CASE_CPU_S, CASE_CPU_S + 5};
    setrlimit(RLIMIT_CPU, &cpu);
    alarm(CASE_WALL_S);
    rg_opts ro = o->ro;
    char work[1100];
    snprintf(work, sizeof work, "%s/work-%d", o->out, (int)getpid());
    ro.workdir = work;
    ro.tsim = o->tsim_every && seed % (uint64_t)o->tsim_every == 0;
    if (!(o->ro.ort_js && o->ort_every && seed % (uint64_t)o->ort_every == 0)) ro.ort_js = NULL;
    else mkdirs(work);
    rg_result res;
    rg_check(seed, c, &ro, &res);
    if (ro.ort_js) {
      char cmd[1300];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
      if (system(cmd)) { /* left behind: harmless */
      }
    }
    ssize_t w = write(fd[1], &res, sizeof res);
    _exit(w == (ssize_t)sizeof res ? 0 : 3);
  }
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    r->stage = RG_CRASH, snprintf(r->msg, sizeof r->msg, "fork: %s", strerror(errno));
    return;
  }
  ssize_t got = 0, k;
  while (got < (ssize_t)sizeof *r && ((k = read(fd[0], (char *)r + got, sizeof *r - (size_t)got)) > 0 || (k < 0 && errno == EINTR)))
    got += k > 0 ? k : 0;
  close(fd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (got != (ssize_t)sizeof *r) {
    memset(r, 0, sizeof *r);
    r->stage = RG_CRASH;
    if (WIFSIGNALED(st))
      snprintf(r->msg, sizeof r->msg, "the case's process died: signal %d (%s)%s", WTERMSIG(st), strsignal(WTERMSIG(st)),
               WTERMSIG(st) == SIGALRM ? ", the wall-clock timeout" : WTERMSIG(st) == SIGXCPU ? ", the CPU time limit" : "");
    else snprintf(r->msg, sizeof r->msg, "the case's process exited with status %d without a result", WEXITSTATUS(st));
  }
}

static void count_ops(totals *t, const rg_case *c) {
  for (int i = 0; i < c->nops; i++) {
    int k = 0;
    while (k < t->nop && strcmp(t->opname[k], c->ops[i])) k++;
    if (k == t->nop && t->nop < MAX_OPNAMES) snprintf(t->opname[t->nop++], sizeof t->opname[0], "%s", c->ops[i]);
    if (k < t->nop) t->opcount[k]++;
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void summary(const totals *t, double secs) {
  printf("ovta-randgraph: %ld graphs tried in %.0f s (%ld nodes; %ld ovta.QConv/QDense, %ld ran on the accelerator), "
         "%ld against onnxruntime, %ld on tsim; %ld failed\n",
         t->tried, secs, t->nodes, t->qnodes, t->accel_nodes, t->ort, t->tsim, t->failed);
  for (int s = 1; s < RG_NSTAGES; s++)
    if (t->by_stage[s]) printf("  failed at %s: %ld\n", rg_stage_name((rg_stage)s), t->by_stage[s]);
  printf("  graphs using each operator:");
  for (int k = 0; k < t->nop; k++) printf(" %s %ld%s", t->opname[k], t->opcount[k], k + 1 < t->nop ? "," : "\n");
  if (!t->nop) printf("\n");
  printf("  fp32 max error / max |ref|: %.3g against the reference evaluator, %.3g against onnxruntime\n", t->max_rel_ref,
         t->max_rel_ort);
  printf("  int8 against fp32 (information): %ld graphs off by > 25%% of the output's range, the worst %.3g (seed %llu)\n",
         t->int8_far, t->int8_worst, (unsigned long long)t->int8_worst_seed);
}

int main(int argc, char **argv) {
  opts o = {.seed = 1, .out = "build/fuzz-compiler", .ort_every = 10, .tsim_every = 20, .ro = {.config = "default", .opt_level = 3}};
  int print = 0;
  uint64_t pseed = 0;
  const char *wdir = NULL;
  int rc = parse(argc, argv, &o, &print, &pseed, &wdir);
  if (rc) return rc < 0 ? 0 : rc;
  if (print) {
    rg_case c;
    rg_generate(pseed, &c);
    rc = print == 1 ? fputs(c.json, stdout) < 0 : write_case(&c, wdir);
    free(c.json);
    return rc ? 1 : 0;
  }
  totals t = {0};
  double t0 = now();
  struct sigaction sa = {.sa_handler = on_stop};
  sigaction(SIGINT, &sa, NULL), sigaction(SIGTERM, &sa, NULL);
  for (uint64_t seed = o.seed;; seed++) {
    if (o.count && t.tried >= o.count) break;
    if ((o.seconds && now() - t0 >= o.seconds) || stop) break;
    rg_case c;
    rg_result r;
    rg_generate(seed, &c);
    run_case(&o, seed, &c, &r);
    t.tried++, t.nodes += c.nodes, t.qnodes += r.qnodes, t.accel_nodes += r.accel_nodes;
    t.ort += r.ort_done, t.tsim += r.tsim_done;
    if (r.max_rel_ref > t.max_rel_ref) t.max_rel_ref = r.max_rel_ref;
    if (r.max_rel_ort > t.max_rel_ort) t.max_rel_ort = r.max_rel_ort;
    t.int8_far += r.int8_err > 0.25;
    if (r.int8_err > t.int8_worst) t.int8_worst = r.int8_err, t.int8_worst_seed = seed;
    count_ops(&t, &c);
    if (r.stage) {
      t.failed++, t.by_stage[r.stage]++;
      reproducer(&o, seed, &c, &r);
      printf("FAIL seed %llu (%d nodes): %s: %s -> %s/seed-%llu\n", (unsigned long long)seed, c.nodes,
             rg_stage_name((rg_stage)r.stage), r.msg, o.out, (unsigned long long)seed);
    } else if (r.int8_err > 0.25) { /* not a failure (int8 is not fp32), but a quantization bug looks like this */
      printf("note seed %llu: int8 off the fp32 output by %.3g of its range\n", (unsigned long long)seed, r.int8_err);
    } else if (!o.quiet) {
      printf("ok   seed %llu: %d nodes, %d quantized, %d on the accelerator%s%s\n", (unsigned long long)seed, c.nodes, r.qnodes,
             r.accel_nodes, r.ort_done ? ", ort" : "", r.tsim_done ? ", tsim" : "");
    }
    if (o.quiet && t.tried % 100 == 0)
      printf("... %ld graphs in %.0f s, %ld failed\n", t.tried, now() - t0, t.failed);
    fflush(stdout);
    free(c.json);
  }
  summary(&t, now() - t0);
  return t.failed ? 1 : 0;
}
