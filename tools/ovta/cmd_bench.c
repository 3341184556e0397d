/* cmd_bench.c: `ovta bench`: run the standard benchmarks and print one JSON document.
 *
 * A front for the benchmark programs the build makes (build/bench/, each printing JSON; the
 * same programs as the bench-* make targets) and for `ovta profile` on the shipped model:
 *   matmul   build/bench/matmul_bench   blocked matmul through the runtime, 1 and 2 virtual threads
 *   layers   build/bench/resnet_layers  ResNet-18 conv layers C2..C11 through the accelerator lowering
 *   fsim     build/bench/fsim_bench     fsim speed (GEMM micro-ops and MACs per second)
 *   tsim     build/bench/tsim_bench     tsim speed and achieved GEMM / DMA rates
 *   fmnist   ovta profile               the Fashion-MNIST CNN, int8, one image, per layer
 *   resnet18 bench/resnet18.sh          ResNet-18 end to end (needs torch; not in the default set)
 * Every child's stdout is parsed as a sequence of JSON values; a child that fails or prints no
 * JSON makes the benchmark "ok": false and the command exit 1 after printing the document. */
#include "ovta_tool.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static const char *help =
    "usage: ovta bench [--only LIST] [--backend fsim|tsim] [--config NAME] [--list]\n\n"
    "Run the standard benchmarks and print one JSON object on stdout:\n"
    "{\"date\", \"backend\", \"config\", \"benchmarks\": [{\"name\", \"command\", \"ok\", \"seconds\",\n"
    "\"results\": [the JSON values the benchmark printed]}]}. Progress goes to stderr.\n\n"
    "benchmarks (default: matmul,layers,fsim,tsim,fmnist):\n"
    "  matmul    blocked requantized matmul through the JIT runtime, 1 and 2 virtual threads\n"
    "            (build/bench/matmul_bench; make bench-matmul)\n"
    "  layers    ResNet-18 conv layers C2..C11 through the accelerator lowering, vt 1 and 2,\n"
    "            checked against the C reference (build/bench/resnet_layers; make bench-layers)\n"
    "  fsim      fsim speed: GEMM micro-ops and MACs per second (make bench-fsim)\n"
    "  tsim      tsim speed and achieved GEMM micro-ops / DMA bytes per cycle (make bench-tsim)\n"
    "  fmnist    `ovta profile --json` of the shipped Fashion-MNIST CNN (int8, one image)\n"
    "  resnet18  ResNet-18 end to end: export (torch), int8 compile, one inference with a\n"
    "            per-layer profile (bench/resnet18.sh; make bench-resnet18); minutes\n\n"
    "options:\n"
    "  --only LIST       comma-separated benchmark names\n"
    "  --backend NAME    where matmul, layers, fmnist and resnet18 run: tsim (default: cycles and\n"
    "                    utilization) or fsim (fast, no cycles)\n"
    "  --config NAME     hardware config (default: each benchmark's own; tsim and fmnist: default)\n"
    "  --list            print the benchmark names and exit\n";

static const char *const names[] = {"matmul", "layers", "fsim", "tsim", "fmnist", "resnet18"};
enum { NBENCH = sizeof names / sizeof names[0] };
static const char defaults[] = "matmul,layers,fsim,tsim,fmnist";

/* Run argv (with extra environment pairs "K=V" in env, NULL-terminated), capture stdout. */
static int run_capture(char *const *argv, const char *const *env, char **out, size_t *len, int *status) {
  int fd[2];
  *out = NULL, *len = 0, *status = -1;
  if (pipe(fd) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return -1;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]), close(fd[1]);
    for (int i = 0; env && env[i]; i++) putenv((char *)env[i]);
    execvp(argv[0], argv);
    fprintf(stderr, "ovta bench: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fd[1]);
  size_t cap = 1 << 16;
  char *b = malloc(cap);
  for (;;) {
    if (b && *len + 4096 > cap) {
      char *n2 = realloc(b, cap * 2);
      if (!n2) free(b), b = NULL;
      else b = n2, cap *= 2;
    }
    char tmp[4096];
    ssize_t r = read(fd[0], b ? b + *len : tmp, 4096);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (b) *len += (size_t)r;
  }
  close(fd[0]);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  if (!b) return -1;
  b[*len] = 0;
  *out = b;
  return 0;
}

/* Every JSON value in text, appended to arr; the count, or -1 when something is not JSON. */
static int parse_values(const char *text, size_t len, cJSON *arr) {
  const char *p = text, *end = text + len;
  int n = 0;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    if (p >= end) break;
    const char *stop = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(p, (size_t)(end - p), &stop, false);
    if (!v || !stop || stop <= p) {
      cJSON_Delete(v);
      return -1;
    }
    cJSON_AddItemToArray(arr, v);
    n++;
    p = stop;
  }
  return n;
}

/* The options of one `ovta bench`. */
typedef struct bopts {
  const char *only;     /* --only LIST (default: defaults) */
  const char *backend;  /* --backend fsim|tsim */
  const char *config;   /* --config NAME, or NULL (each benchmark's own) */
} bopts;

/* Where the benchmark programs are and what their children get. */
typedef struct bench_env {
  char self[4096];      /* this binary (/proc/self/exe) */
  char bdir[4096];      /* its folder: the build, with bench/ in it */
  const char *cfg;      /* --config, or "default" */
  char env_b[64], env_c[128], env_rb[64], env_rc[128]; /* storage of the "K=V" pairs in envs */
  const char *envs[6];  /* the children's extra environment, NULL-terminated */
} bench_env;

/* One benchmark's command line. */
typedef struct bench_cmd {
  char prog[4200], a1[4200], a2[4200], a3[4200]; /* storage of the arguments */
  char *args[24];       /* argv, NULL-terminated */
  int na;               /* arguments */
} bench_cmd;

/* All arguments into o: 0, 2 on a usage error, -1 after --help or --list. */
static int parse_args(int argc, char **argv, bopts *o) {
  const char *v;
  *o = (bopts){.only = defaults, .backend = "tsim"};
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    } else if (tool_opt(argc, argv, &i, "--list", NULL)) {
      for (int k = 0; k < NBENCH; k++) printf("%s\n", names[k]);
      return -1;
    } else if (tool_opt(argc, argv, &i, "--only", &v)) {
      if (!v || !*v) return tool_usage("bench", "--only needs a list of benchmark names");
      o->only = v;
    } else if (tool_opt(argc, argv, &i, "--backend", &v)) {
      if (!v || (strcmp(v, "fsim") && strcmp(v, "tsim"))) return tool_usage("bench", "--backend needs fsim or tsim");
      o->backend = v;
    } else if (tool_opt(argc, argv, &i, "--config", &v)) {
      if (!v || !*v) return tool_usage("bench", "--config needs a name");
      o->config = v;
    } else {
      return tool_usage("bench", "unexpected argument %s", argv[i]);
    }
  }
  return 0;
}

/* Which benchmarks --only names, checked before anything runs: 0, or 2 on a usage error. */
static int select_benchmarks(const char *only, bool want[NBENCH]) {
  char t[4096];
  for (const char *p = only; ovta_list_next(&p, ",", t, sizeof t);) {
    int k = 0;
    while (k < NBENCH && strcmp(names[k], t)) k++;
    if (k == NBENCH) return tool_usage("bench", "unknown benchmark '%s' (see `ovta bench --list`)", t);
    want[k] = true;
  }
  return 0;
}

/* The programs' folder (next to this binary) and the children's environment (backend and
 * config for the bench programs and resnet18.sh). */
static int bench_env_init(const bopts *o, bench_env *b) {
  ssize_t sl = readlink("/proc/self/exe", b->self, sizeof b->self - 1);
  if (sl <= 0) return tool_fail("cannot find the ovta binary (/proc/self/exe): %s", strerror(errno));
  b->self[sl] = 0;
  snprintf(b->bdir, sizeof b->bdir, "%s", b->self);
  dirname(b->bdir);
  b->cfg = o->config ? o->config : "default";
  snprintf(b->env_b, sizeof b->env_b, "OVTA_BENCH_BACKENDS=%s", o->backend);
  snprintf(b->env_rb, sizeof b->env_rb, "BACKEND=%s", o->backend);
  snprintf(b->env_c, sizeof b->env_c, "OVTA_BENCH_CONFIGS=%s", b->cfg);
  snprintf(b->env_rc, sizeof b->env_rc, "CONFIG=%s", b->cfg);
  const char *envs[] = {b->env_b, b->env_rb, b->env_rc, "OVTA_BENCH_JSON=1", o->config ? b->env_c : NULL, NULL};
  memcpy(b->envs, envs, sizeof envs);
  return 0;
}

/* The command line of benchmark nm. */
static void bench_command(const char *nm, const bopts *o, bench_env *b, bench_cmd *c) {
  memset(c, 0, sizeof *c);
  char **args = c->args;
  int na = 0;
  if (!strcmp(nm, "matmul") || !strcmp(nm, "layers") || !strcmp(nm, "fsim")) {
    snprintf(c->prog, sizeof c->prog, "%s/bench/%s", b->bdir,
             !strcmp(nm, "matmul") ? "matmul_bench" : !strcmp(nm, "layers") ? "resnet_layers" : "fsim_bench");
    args[na++] = c->prog;
  } else if (!strcmp(nm, "tsim")) {
    snprintf(c->prog, sizeof c->prog, "%s/bench/tsim_bench", b->bdir);
    args[na++] = c->prog, args[na++] = (char *)b->cfg;
  } else if (!strcmp(nm, "fmnist")) {
    snprintf(c->a1, sizeof c->a1, "%s/models/fmnist/fmnist_cnn.onnx", OVTA_SRC_DIR);
    snprintf(c->a2, sizeof c->a2, "%s/models/fmnist/test_images.npy", OVTA_SRC_DIR);
    snprintf(c->a3, sizeof c->a3, "%s/models/fmnist/calib_images.npy", OVTA_SRC_DIR);
    args[na++] = b->self, args[na++] = "profile", args[na++] = c->a1, args[na++] = "--images", args[na++] = c->a2;
    args[na++] = "--calib", args[na++] = c->a3, args[na++] = "--backend", args[na++] = (char *)o->backend;
    args[na++] = "--config", args[na++] = (char *)b->cfg, args[na++] = "--json";
  } else { /* resnet18 */
    snprintf(c->a1, sizeof c->a1, "%s/bench/resnet18.sh", OVTA_SRC_DIR);
    snprintf(c->a2, sizeof c->a2, "%s", b->bdir);
    args[na++] = "bash", args[na++] = c->a1, args[na++] = c->a2;
  }
  c->na = na;
}

/* Run benchmark nm: its object {name, command, ok, [error], seconds, results} appended to arr.
 * Whether it succeeded. */
static bool run_benchmark(const char *nm, const bopts *o, bench_env *b, cJSON *arr) {
  bench_cmd c;
  bench_command(nm, o, b, &c);
  cJSON *bj = cJSON_CreateObject();
  cJSON_AddStringToObject(bj, "name", nm);
  char cmd[8192];
  size_t cl = 0;
  cmd[0] = 0;
  for (int i = 0; i < c.na && cl < sizeof cmd; i++) cl += (size_t)snprintf(cmd + cl, sizeof cmd - cl, "%s%s", i ? " " : "", c.args[i]);
  cJSON_AddStringToObject(bj, "command", cmd);
  fprintf(stderr, "ovta bench: %s ...\n", nm);
  double t0 = ovta_now_s();
  char *out = NULL;
  size_t len = 0;
  int st = 0;
  bool ok = false;
  char why[4400] = "";
  cJSON *res = cJSON_CreateArray();
  if (c.args[0] == c.prog && access(c.prog, X_OK) != 0) {
    snprintf(why, sizeof why, "%s is not built (make all)", c.prog);
  } else if (run_capture(c.args, b->envs, &out, &len, &st) != 0) {
    snprintf(why, sizeof why, "cannot run %s", c.args[0]);
  } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    snprintf(why, sizeof why, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  } else {
    int n = parse_values(out, len, res);
    if (n <= 0) snprintf(why, sizeof why, n < 0 ? "its output is not JSON" : "it printed no JSON");
    else ok = true;
  }
  free(out);
  double sec = ovta_now_s() - t0;
  cJSON_AddBoolToObject(bj, "ok", ok);
  if (!ok) cJSON_AddStringToObject(bj, "error", why);
  cJSON_AddNumberToObject(bj, "seconds", (double)(int64_t)(sec * 100 + 0.5) / 100);
  cJSON_AddItemToObject(bj, "results", res);
  cJSON_AddItemToArray(arr, bj);
  fprintf(stderr, "ovta bench: %s %s (%.1f s)%s%s\n", nm, ok ? "done" : "FAILED", sec, ok ? "" : ": ", why);
  return ok;
}

/* The document's head: {date, ovta, backend, config}. */
static cJSON *document(const bopts *o) {
  cJSON *doc = cJSON_CreateObject();
  char date[32];
  time_t tt = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
  cJSON_AddStringToObject(doc, "date", date);
  cJSON_AddStringToObject(doc, "ovta", OVTA_VERSION);
  cJSON_AddStringToObject(doc, "backend", o->backend);
  if (o->config) cJSON_AddStringToObject(doc, "config", o->config);
  else cJSON_AddNullToObject(doc, "config");
  return doc;
}

int ovta_cmd_bench(int argc, char **argv) {
  bopts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  bool want[NBENCH] = {0};
  if ((rc = select_benchmarks(o.only, want))) return rc;
  if (o.config) {
    ovta_config c;
    ovta_error err = {0};
    if (ovta_config_load(o.config, &c, &err)) return tool_error(&err, NULL);
  }
  bench_env b;
  if ((rc = bench_env_init(&o, &b))) return rc;
  cJSON *doc = document(&o), *arr = cJSON_AddArrayToObject(doc, "benchmarks");
  const char *first_failed = NULL;
  for (int k = 0; k < NBENCH; k++)
    if (want[k] && !run_benchmark(names[k], &o, &b, arr) && !first_failed) first_failed = names[k];
  char *s = cJSON_Print(doc);
  cJSON_Delete(doc);
  if (!s) return tool_fail("out of memory");
  printf("%s\n", s);
  free(s);
  if (first_failed) return tool_fail("benchmark %s failed (see its \"error\" in the JSON)", first_failed);
  return 0;
}
