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

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

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

int ovta_cmd_bench(int argc, char **argv) {
  const char *only = defaults, *backend = "tsim", *config = NULL, *v;
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return 0;
    } else if (tool_opt(argc, argv, &i, "--list", NULL)) {
      for (int k = 0; k < NBENCH; k++) printf("%s\n", names[k]);
      return 0;
    } else if (tool_opt(argc, argv, &i, "--only", &v)) {
      if (!v || !*v) return tool_usage("bench", "--only needs a list of benchmark names");
      only = v;
    } else if (tool_opt(argc, argv, &i, "--backend", &v)) {
      if (!v || (strcmp(v, "fsim") && strcmp(v, "tsim"))) return tool_usage("bench", "--backend needs fsim or tsim");
      backend = v;
    } else if (tool_opt(argc, argv, &i, "--config", &v)) {
      if (!v || !*v) return tool_usage("bench", "--config needs a name");
      config = v;
    } else {
      return tool_usage("bench", "unexpected argument %s", argv[i]);
    }
  }
  /* which benchmarks, checked before anything runs */
  bool want[NBENCH] = {0};
  char *list = strdup(only), *save = NULL;
  for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int k = 0;
    while (k < NBENCH && strcmp(names[k], t)) k++;
    if (k == NBENCH) {
      int rc = tool_usage("bench", "unknown benchmark '%s' (see `ovta bench --list`)", t);
      free(list);
      return rc;
    }
    want[k] = true;
  }
  free(list);
  if (config) {
    ovta_config c;
    ovta_error err = {0};
    if (ovta_config_load(config, &c, &err)) return tool_error(&err, NULL);
  }
  /* where the programs are: next to this binary */
  char self[4096], bdir[4096];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) return tool_fail("cannot find the ovta binary (/proc/self/exe): %s", strerror(errno));
  self[sl] = 0;
  snprintf(bdir, sizeof bdir, "%s", self);
  dirname(bdir);
  const char *cfg = config ? config : "default";
  /* the children's environment: backend and config for the bench programs and resnet18.sh */
  char env_b[64], env_c[128], env_rb[64], env_rc[128];
  snprintf(env_b, sizeof env_b, "OVTA_BENCH_BACKENDS=%s", backend);
  snprintf(env_rb, sizeof env_rb, "BACKEND=%s", backend);
  snprintf(env_c, sizeof env_c, "OVTA_BENCH_CONFIGS=%s", cfg);
  snprintf(env_rc, sizeof env_rc, "CONFIG=%s", cfg);
  const char *envs[] = {env_b, env_rb, env_rc, "OVTA_BENCH_JSON=1", config ? env_c : NULL, NULL};

  cJSON *doc = cJSON_CreateObject(), *arr;
  char date[32];
  time_t tt = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
  cJSON_AddStringToObject(doc, "date", date);
  cJSON_AddStringToObject(doc, "ovta", OVTA_VERSION);
  cJSON_AddStringToObject(doc, "backend", backend);
  if (config) cJSON_AddStringToObject(doc, "config", config);
  else cJSON_AddNullToObject(doc, "config");
  arr = cJSON_AddArrayToObject(doc, "benchmarks");
  const char *first_failed = NULL;
  for (int k = 0; k < NBENCH; k++) {
    if (!want[k]) continue;
    char prog[4200], a1[4200], a2[4200], a3[4200];
    char *args[24] = {0};
    int na = 0;
    const char *nm = names[k];
    if (!strcmp(nm, "matmul") || !strcmp(nm, "layers") || !strcmp(nm, "fsim")) {
      snprintf(prog, sizeof prog, "%s/bench/%s", bdir,
               !strcmp(nm, "matmul") ? "matmul_bench" : !strcmp(nm, "layers") ? "resnet_layers" : "fsim_bench");
      args[na++] = prog;
    } else if (!strcmp(nm, "tsim")) {
      snprintf(prog, sizeof prog, "%s/bench/tsim_bench", bdir);
      args[na++] = prog, args[na++] = (char *)cfg;
    } else if (!strcmp(nm, "fmnist")) {
      snprintf(a1, sizeof a1, "%s/models/fmnist/fmnist_cnn.onnx", OVTA_SRC_DIR);
      snprintf(a2, sizeof a2, "%s/models/fmnist/test_images.npy", OVTA_SRC_DIR);
      snprintf(a3, sizeof a3, "%s/models/fmnist/calib_images.npy", OVTA_SRC_DIR);
      args[na++] = self, args[na++] = "profile", args[na++] = a1, args[na++] = "--images", args[na++] = a2;
      args[na++] = "--calib", args[na++] = a3, args[na++] = "--backend", args[na++] = (char *)backend;
      args[na++] = "--config", args[na++] = (char *)cfg, args[na++] = "--json";
    } else { /* resnet18 */
      snprintf(a1, sizeof a1, "%s/bench/resnet18.sh", OVTA_SRC_DIR);
      snprintf(a2, sizeof a2, "%s", bdir);
      args[na++] = "bash", args[na++] = a1, args[na++] = a2;
    }
    cJSON *b = cJSON_CreateObject();
    cJSON_AddStringToObject(b, "name", nm);
    char cmd[8192];
    size_t cl = 0;
    cmd[0] = 0;
    for (int i = 0; i < na && cl < sizeof cmd; i++) cl += (size_t)snprintf(cmd + cl, sizeof cmd - cl, "%s%s", i ? " " : "", args[i]);
    cJSON_AddStringToObject(b, "command", cmd);
    fprintf(stderr, "ovta bench: %s ...\n", nm);
    double t0 = now_s();
    char *out = NULL;
    size_t len = 0;
    int st = 0;
    bool ok = false;
    char why[4400] = "";
    cJSON *res = cJSON_CreateArray();
    if (args[0] == prog && access(prog, X_OK) != 0) {
      snprintf(why, sizeof why, "%s is not built (make all)", prog);
    } else if (run_capture(args, envs, &out, &len, &st) != 0) {
      snprintf(why, sizeof why, "cannot run %s", args[0]);
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      snprintf(why, sizeof why, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    } else {
      int n = parse_values(out, len, res);
      if (n <= 0) snprintf(why, sizeof why, n < 0 ? "its output is not JSON" : "it printed no JSON");
      else ok = true;
    }
    free(out);
    double sec = now_s() - t0;
    cJSON_AddBoolToObject(b, "ok", ok);
    if (!ok) cJSON_AddStringToObject(b, "error", why);
    cJSON_AddNumberToObject(b, "seconds", (double)(int64_t)(sec * 100 + 0.5) / 100);
    cJSON_AddItemToObject(b, "results", res);
    cJSON_AddItemToArray(arr, b);
    fprintf(stderr, "ovta bench: %s %s (%.1f s)%s%s\n", nm, ok ? "done" : "FAILED", sec, ok ? "" : ": ", why);
    if (!ok && !first_failed) first_failed = nm;
  }
  char *s = cJSON_Print(doc);
  cJSON_Delete(doc);
  if (!s) return tool_fail("out of memory");
  printf("%s\n", s);
  free(s);
  if (first_failed) return tool_fail("benchmark %s failed (see its \"error\" in the JSON)", first_failed);
  return 0;
}
