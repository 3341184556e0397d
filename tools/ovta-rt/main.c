/* ovta-rt: the runtime alone. `ovta-rt run PLAN --input NAME=FILE.npy ... --output-dir DIR
 * [--backend NAME] [--stats]` runs a plan folder written by `ovta compile` (plan.json, params.bin,
 * kernels.so) through the plan runtime (plan/ovta_plan.h), the driver and the JIT runtime: no
 * compiler, no LLVM, no protobuf (tests/cli/test_ovta_rt.sh checks its ldd and nm). `ovta-rt serve
 * --token-file F --work-dir D [--listen ADDR:PORT]` serves remote runs (plan/ovta_remote.h) for
 * `ovta run|profile|eval --remote`. Errors are one `ovta-rt: error:` line on stderr, exit 1; usage
 * errors exit 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_plan.h"
#include "ovta_remote.h"

static const char *help =
    "usage: ovta-rt run PLAN --input NAME=FILE.npy ... --output-dir DIR [--backend NAME] [--stats] [--threads N]\n"
    "       ovta-rt serve --token-file FILE --work-dir DIR [--listen ADDR:PORT] (remote runs; serve --help)\n\n"
    "Run a plan folder made by `ovta compile` (plan.json, params.bin, kernels.so) without the\n"
    "compiler: the CPU kernels from kernels.so, the accelerator nodes of a plan compiled with\n"
    "--target accel on a device. plan.json, params.bin and kernels.so must match the digests\n"
    "ovta compile recorded in plan.json. Writes DIR/OUTPUT_NAME.npy for every graph output (characters\n"
    "other than letters, digits, '.', '-' and '_' in the name become '_').\n\n"
    "options:\n"
    "  --input NAME=FILE.npy   value of graph input NAME (repeatable)\n"
    "  --output-dir DIR        where the outputs go (created; default: .)\n"
    "  --backend NAME          the device of an accelerator plan (default: fsim); this build has:\n"
    "                          %s\n"
    "  --stats                 print per-node counters (accelerator: instructions, micro-ops, cycles)\n"
    "  --threads N             threads of the CPU kernels (default: every core; same results)\n";

/* The backends compiled in (a cross build for a board: zynq and fsim), joined by sep. */
static const char *backends(const char *sep) {
  static char buf[256];
  size_t n = 0;
  buf[0] = 0;
  for (const char *const *b = ovta_backend_names(); *b && n < sizeof buf; b++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? sep : "", *b);
  return buf;
}

static void print_help(void) { printf(help, backends(", ")); }

static const char *serve_help =
    "usage: ovta-rt serve --token-file FILE --work-dir DIR [--listen ADDR:PORT] [options]\n\n"
    "Serve remote runs: `ovta run|profile|eval --remote HOST:PORT --token-file FILE` on another\n"
    "machine sends a plan folder (only when this server does not have it yet: plans are kept by\n"
    "hash in DIR/plans/) and its inputs; the plan runs here and the outputs and counters go back.\n"
    "One client at a time uses the device; the others wait in turn. Every request needs the token.\n"
    "The uploaded plan's kernels.so runs here as native code: give the token only to whoever may\n"
    "run programs on this machine.\n\n"
    "options:\n"
    "  --listen ADDR:PORT  where to listen (default 127.0.0.1:9091, loopback only; 0.0.0.0:PORT\n"
    "                      for every interface; port 0: any free port, printed)\n"
    "  --token-file FILE   the shared token, its first line; the file must be private (chmod 600)\n"
    "  --work-dir DIR      plans/ (kept by hash) and sessions/ (per-connection folders) go here\n"
    "  --backend NAME      the device of accelerator plans, whatever the client asks\n"
    "                      (default: the client's choice, else fsim); this build has: %s\n"
    "  --threads N         threads of the CPU kernels (default: the client's, else every core)\n"
    "  --timeout S         seconds a receive or send may wait (default 30)\n"
    "  --session-limit S   seconds a whole session may take (default 600)\n"
    "  --max-bytes N       the largest plan file or input accepted, in bytes (default 256 MiB)\n"
    "  --max-session-bytes N  bytes a session may hold at once: the plan's files it sent plus\n"
    "                      its inputs (default 1 GiB)\n"
    "  --max-sessions N    exit after N sessions (default: serve until killed)\n"
    "  --in-process        serve each session in the server process instead of a child process\n"
    "                      (for emulators whose fork hangs, e.g. Debian bookworm's qemu-user; a\n"
    "                      crash then ends the server, and --session-limit is checked between\n"
    "                      requests only)\n";

/* A number argument in [lo, hi] into *v. */
static bool number(const char *s, double lo, double hi, double *v) {
  char *end = NULL;
  double d = s ? strtod(s, &end) : 0;
  if (!s || !*s || *end || !(d >= lo && d <= hi)) return false;
  *v = d;
  return true;
}

#define MAX_IN 64

/* The options of one `ovta-rt run`. */
typedef struct ropts {
  const char *plan;             /* the plan folder */
  const char *outdir;           /* --output-dir (default .) */
  const char *in_name[MAX_IN];  /* --input NAME=FILE: the names (allocated) */
  const char *in_file[MAX_IN];  /* and the files */
  int nin;                      /* --input options */
  const char *backend;          /* --backend NAME, or NULL */
  bool stats;                   /* --stats */
  int threads;                  /* --threads N (0: every core) */
} ropts;

static int usage(const char *msg, const char *arg) {
  fprintf(stderr, "ovta-rt: error: %s%s (see `ovta-rt run --help`)\n", msg, arg ? arg : "");
  return 2;
}

/* argv[*i] is option name: its value (the next argument, or after '=') into *val. */
static bool opt(int argc, char **argv, int *i, const char *name, const char **val) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n) != 0) return false;
  if (argv[*i][n] == '=' && val) *val = argv[*i] + n + 1;
  else if (argv[*i][n] == 0 && val) *val = *i + 1 < argc ? argv[++*i] : NULL;
  else if (argv[*i][n] != 0) return false;
  return true;
}

/* All arguments after `run` into o: 0, 2 on a usage error, -1 after --help. */
static int parse_args(int argc, char **argv, ropts *o) {
  const char *v = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      print_help();
      return -1;
    } else if (opt(argc, argv, &i, "--input", &v)) {
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!eq || eq == v || !eq[1]) return usage("--input needs NAME=FILE.npy", NULL);
      if (o->nin == MAX_IN) return usage("too many inputs", NULL);
      o->in_name[o->nin] = strndup(v, (size_t)(eq - v));
      o->in_file[o->nin++] = eq + 1;
    } else if (opt(argc, argv, &i, "--output-dir", &v)) {
      if (!v) return usage("--output-dir needs a folder", NULL);
      o->outdir = v;
    } else if (opt(argc, argv, &i, "--backend", &v)) {
      if (!v) return usage("--backend needs a name", NULL);
      o->backend = v;
    } else if (opt(argc, argv, &i, "--threads", &v)) {
      char *end = NULL;
      long n = v ? strtol(v, &end, 10) : 0;
      if (!v || *end || n < 1 || n > 64) return usage("--threads needs 1..64", NULL);
      o->threads = (int)n;
    } else if (opt(argc, argv, &i, "--stats", NULL)) {
      o->stats = true;
    } else if (argv[i][0] == '-') {
      return usage("unknown option ", argv[i]);
    } else if (!o->plan) {
      o->plan = argv[i];
    } else {
      return usage("more than one plan given", NULL);
    }
  }
  return o->plan ? 0 : usage("no plan folder given", NULL);
}

/* The plan loaded; an accelerator plan attached to --backend (default fsim). */
static int open_plan(const ropts *o, ovta_plan **p, ovta_error *err) {
  int rc = ovta_plan_load(o->plan, p, err);
  if (rc) return rc;
  if (ovta_plan_accel_nodes(*p) > 0) {
    const char *b = o->backend ? o->backend : "fsim";
    if (!strcmp(b, "cpu"))
      return OVTA_FAIL(err, OVTA_EINVAL, "%s runs %d node(s) on the accelerator: use --backend %s",
                       o->plan, ovta_plan_accel_nodes(*p), backends("|"));
    return ovta_plan_attach(*p, b, NULL, err);
  }
  if (o->backend && strcmp(o->backend, "cpu"))
    return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: %s was compiled for the cpu (ovta compile --target accel)",
                     o->backend, o->plan);
  return 0;
}

/* `ovta-rt run ...`: inputs read, plan loaded and run, outputs written. */
static int cmd_run(int argc, char **argv) {
  ropts o = {.outdir = "."};
  ovta_array vals[MAX_IN] = {0};
  ovta_plan *p = NULL;
  ovta_error err = {0};
  int rc = parse_args(argc, argv, &o);
  if (!rc) {
    ovta_set_threads(o.threads); /* the pool the kernels' parallel loops call (isa/parallel.c) */
    for (int i = 0; i < o.nin && !rc; i++) rc = ovta_npy_load(o.in_file[i], &vals[i], &err);
    if (!rc) rc = open_plan(&o, &p, &err);
    if (!rc) rc = ovta_plan_set_inputs(p, o.nin, o.in_name, o.in_file, vals, &err);
    if (!rc) rc = ovta_plan_run(p, &err);
    if (!rc && o.stats) rc = ovta_plan_print_stats(p, stdout, &err);
    if (!rc) rc = ovta_plan_write_outputs(p, o.outdir, stdout, &err);
    if (rc) fprintf(stderr, "ovta-rt: error: %s\n", err.msg), rc = 1;
  }
  for (int i = 0; i < o.nin; i++) ovta_array_clear(&vals[i]), free((char *)o.in_name[i]);
  ovta_plan_free(p);
  return rc < 0 ? 0 : rc;
}

static int usage_serve(const char *msg) {
  fprintf(stderr, "ovta-rt: error: %s (see `ovta-rt serve --help`)\n", msg);
  return 2;
}

/* `ovta-rt serve ...`: serve until killed (or --max-sessions). */
static int cmd_serve(int argc, char **argv) {
  ovta_serve_opts o = {.timeout_s = 30, .session_s = 600, .max_data = OVTA_REMOTE_DEFAULT_MAX_DATA, .log = stderr};
  const char *v = NULL;
  double d;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(serve_help, backends(", "));
      return 0;
    } else if (opt(argc, argv, &i, "--listen", &v)) {
      if (!v) return usage_serve("--listen needs ADDR:PORT");
      o.listen = v;
    } else if (opt(argc, argv, &i, "--token-file", &v)) {
      if (!v) return usage_serve("--token-file needs a file");
      o.token_file = v;
    } else if (opt(argc, argv, &i, "--work-dir", &v)) {
      if (!v) return usage_serve("--work-dir needs a folder");
      o.work_dir = v;
    } else if (opt(argc, argv, &i, "--backend", &v)) {
      if (!v) return usage_serve("--backend needs a name");
      o.backend = v;
    } else if (opt(argc, argv, &i, "--threads", &v)) {
      if (!number(v, 1, 64, &d) || d != (int)d) return usage_serve("--threads needs 1..64");
      o.threads = (int)d;
    } else if (opt(argc, argv, &i, "--timeout", &v)) {
      if (!number(v, 0.1, 86400, &d)) return usage_serve("--timeout needs seconds (0.1..86400)");
      o.timeout_s = d;
    } else if (opt(argc, argv, &i, "--session-limit", &v)) {
      if (!number(v, 1, 864000, &d) || d != (int)d) return usage_serve("--session-limit needs whole seconds");
      o.session_s = (int)d;
    } else if (opt(argc, argv, &i, "--max-bytes", &v)) {
      if (!number(v, 1024, 4294967295.0, &d) || d != (double)(uint64_t)d) return usage_serve("--max-bytes needs 1024..4294967295");
      o.max_data = d > (double)SIZE_MAX ? SIZE_MAX : (size_t)d;
    } else if (opt(argc, argv, &i, "--max-session-bytes", &v)) {
      if (!number(v, 1024, 1e15, &d) || d != (double)(uint64_t)d) return usage_serve("--max-session-bytes needs 1024..1e15");
      o.max_session = (uint64_t)d;
    } else if (opt(argc, argv, &i, "--in-process", NULL)) {
      o.in_process = true;
    } else if (opt(argc, argv, &i, "--max-sessions", &v)) {
      if (!number(v, 1, 1e9, &d) || d != (int)d) return usage_serve("--max-sessions needs a count");
      o.max_sessions = (int)d;
    } else {
      fprintf(stderr, "ovta-rt: error: unknown argument %s (see `ovta-rt serve --help`)\n", argv[i]);
      return 2;
    }
  }
  if (!o.token_file) return usage_serve("--token-file FILE is required (a private file holding the shared token)");
  if (!o.work_dir) return usage_serve("--work-dir DIR is required");
  ovta_error err = {0};
  if (ovta_remote_serve(&o, &err)) {
    fprintf(stderr, "ovta-rt: error: %s\n", err.msg);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    print_help();
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "serve")) return cmd_serve(argc - 1, argv + 1);
  if (argc < 2 || strcmp(argv[1], "run") != 0) return usage("expected a command: run or serve", NULL);
  return cmd_run(argc - 1, argv + 1);
}
