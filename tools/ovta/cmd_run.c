/* cmd_run.c: `ovta run MODEL --input NAME=FILE.npy|FILE.png ... --output-dir DIR`: run a compiled model
 * (a folder from `ovta compile`) or a model file (compiled on the fly) on the CPU, writing one
 * .npy per graph output named after it. */
#include "ovta_tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec.h"

static const char *help =
    "usage: ovta run MODEL.ovta|MODEL.onnx|MODEL.json --input NAME=FILE.npy ... --output-dir DIR\n\n"
    "Run a model: a folder made by `ovta compile` (loaded, no recompilation; one compiled with\n"
    "--target accel runs its accelerator nodes on --backend), or a model file on the CPU path\n"
    "(compiled first). Every graph input needs one --input; symbolic dims of a model\n"
    "file take the shape of the given array. Writes DIR/OUTPUT_NAME.npy for every graph output\n"
    "(characters other than letters, digits, '.', '-' and '_' in the name become '_').\n\n"
    "options:\n"
    "  --input NAME=FILE.npy   value of graph input NAME (repeatable); FILE.png (gray, RGB,\n"
    "                          RGBA, palette; 8 or 16 bits) is fed as float32 [1,C,H,W] =\n"
    "                          pixel/255 (gray: C = 1)\n"
    "  --output-dir DIR        where the outputs go (created; default: .)\n"
    "  --repeat N              after one untimed run, N timed runs: prints the mean wall time\n"
    "                          per run and the medians of the wall and CPU (all threads) time\n"
    "  --threads N             threads for the CPU kernels' parallel loops (default: every\n"
    "                          core); results are the same for any N\n"
    "  --backend NAME          cpu, or a device (fsim, tsim, ...) for a folder compiled with\n"
    "                          `ovta compile --target accel` (default for those: fsim)\n"
    "  --stats                 print per-node counters (accelerator: instructions, micro-ops, cycles)\n"
    TOOL_REMOTE_HELP;

#define MAX_IN 64

/* The options of one `ovta run`. */
typedef struct ropts {
  const char *model;            /* a compiled folder or a model file */
  const char *outdir;           /* --output-dir (default .) */
  const char *in_name[MAX_IN];  /* --input NAME=FILE: the names (allocated) */
  const char *in_file[MAX_IN];  /* and the files */
  int nin;                      /* --input options */
  int64_t repeat;               /* --repeat N (0: once, untimed) */
  const char *backend;          /* --backend NAME, or NULL */
  bool stats;                   /* --stats */
  int64_t threads;              /* --threads N (0: every core) */
  tool_remote remote;           /* --remote HOST:PORT: run on `ovta-rt serve` there */
} ropts;

/* All arguments into o: 0, 2 on a usage error, -1 after --help. */
static int parse_args(int argc, char **argv, ropts *o) {
  const char *v;
  int r;
  for (int i = 1; i < argc; i++) {
    if ((r = tool_remote_opt("run", argc, argv, &i, &o->remote))) {
      if (r == 2) return 2;
    } else if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    } else if (tool_opt(argc, argv, &i, "--input", &v)) {
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!eq || eq == v || !eq[1]) return tool_usage("run", "--input needs NAME=FILE.npy");
      if (o->nin == MAX_IN) return tool_usage("run", "more than %d inputs", MAX_IN);
      o->in_name[o->nin] = strndup(v, (size_t)(eq - v));
      o->in_file[o->nin++] = eq + 1;
    } else if (tool_opt(argc, argv, &i, "--output-dir", &v)) {
      if (!v) return tool_usage("run", "--output-dir needs a folder");
      o->outdir = v;
    } else if (tool_opt(argc, argv, &i, "--backend", &v)) {
      if (!v) return tool_usage("run", "--backend needs a name");
      o->backend = v;
    } else if (tool_opt(argc, argv, &i, "--stats", NULL)) {
      o->stats = true;
    } else if (tool_opt(argc, argv, &i, "--repeat", &v)) {
      if (!v || !tool_number(v, 1, 1000000, &o->repeat)) return tool_usage("run", "--repeat needs a count");
    } else if (tool_opt(argc, argv, &i, "--threads", &v)) {
      if (!v || !tool_number(v, 1, 64, &o->threads)) return tool_usage("run", "--threads needs 1..64");
    } else if (argv[i][0] == '-') {
      return tool_usage("run", "unknown option %s", argv[i]);
    } else if (!o->model) {
      o->model = argv[i];
    } else {
      return tool_usage("run", "more than one model given");
    }
  }
  if (!o->model) return tool_usage("run", "no model given");
  if (o->remote.addr && o->repeat) return tool_usage("run", "--repeat runs here, not with --remote");
  if (o->remote.token_file && !o->remote.addr) return tool_usage("run", "--token-file goes with --remote");
  return 0;
}

/* A folder from `ovta compile`; accelerator plans attached to --backend (default fsim). */
static int open_folder(const ropts *o, ovta_exec **e, ovta_error *err) {
  int rc = ovta_exec_load(o->model, e, err);
  /* a plan compiled --target accel needs its device even when no node landed on the accelerator
   * (ovta-randgraph seed 8142: it could be run neither with nor without --backend) */
  if (!rc && (ovta_exec_accel_nodes(*e) > 0 || ovta_exec_config(*e))) {
    const char *b = o->backend ? o->backend : "fsim";
    if (!strcmp(b, "cpu"))
      return OVTA_FAIL(err, OVTA_EINVAL,
                       "%s runs %d node(s) on the accelerator: use --backend fsim|tsim (or compile with --target cpu)",
                       o->model, ovta_exec_accel_nodes(*e));
    return ovta_exec_attach(*e, b, NULL, err);
  }
  if (!rc && o->backend && strcmp(o->backend, "cpu"))
    return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: %s was compiled for the cpu (ovta compile --target accel)",
                     o->backend, o->model);
  return rc;
}

/* Graph input t takes the shape of value v given in file (only its symbolic dims may differ). */
static int fit_input(const ropts *o, ovta_tensor *t, const ovta_tensor *v, const char *file, ovta_error *err) {
  bool unknown = t->rank < 0, clash = t->rank >= 0 && t->rank != v->rank;
  for (int d = 0; d < t->rank; d++) {
    unknown |= t->shape[d] < 0;
    clash |= d < v->rank && t->shape[d] >= 0 && t->shape[d] != v->shape[d];
  }
  if (clash) { /* only the symbolic dims may take the array's (known dims must match) */
    char want[160], got[160];
    ovta_shape_str(t, want, sizeof want);
    ovta_shape_str(v, got, sizeof got);
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: shape %s does not match input %s of %s (%s)", file, got, t->name, o->model,
                     want);
  }
  if (unknown) {
    t->rank = v->rank;
    memcpy(t->shape, v->shape, sizeof t->shape);
  }
  return 0;
}

/* A model file compiled for the CPU path, its symbolic input dims from the given arrays. */
static int compile_model(const ropts *o, ovta_tensor *const *vals, ovta_graph **g, ovta_exec **e, ovta_error *err) {
  int rc = ovta_graph_load(o->model, g, err);
  for (int i = 0; !rc && i < (*g)->n_inputs; i++)
    for (int k = 0; !rc && k < o->nin; k++)
      if (strcmp((*g)->inputs[i]->name, o->in_name[k]) == 0) rc = fit_input(o, (*g)->inputs[i], vals[k], o->in_file[k], err);
  if (!rc && (rc = ovta_exec_build(*g, NULL, e, err)) && !strstr(err->msg, o->model))
    ovta_error_wrap(err, "%s", o->model); /* errors name the file */
  return rc;
}


/* Every graph input gets its --input value (the plan runtime's check, shared with ovta-rt). */
static int feed_inputs(const ropts *o, ovta_exec *e, ovta_tensor *const *vals, ovta_error *err) {
  ovta_array a[MAX_IN];
  for (int k = 0; k < o->nin; k++) { /* views of the tensors, not copies */
    a[k] = (ovta_array){.dtype = vals[k]->dtype, .rank = vals[k]->rank, .data = vals[k]->data, .nbytes = vals[k]->nbytes};
    memcpy(a[k].shape, vals[k]->shape, sizeof a[k].shape);
  }
  return ovta_plan_set_inputs(ovta_exec_plan(e), o->nin, o->in_name, o->in_file, a, err);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n-1] (sorted in place). */
static double median(double *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One run, then --repeat N timed runs: the mean wall time, the median wall and CPU times. */
static int run_model(const ropts *o, ovta_exec *e, ovta_error *err) {
  int rc = ovta_exec_run(e, err);
  if (rc || o->repeat <= 0) return rc;
  double *wall = malloc(sizeof(double) * (size_t)o->repeat), *cpu = malloc(sizeof(double) * (size_t)o->repeat);
  if (!wall || !cpu) {
    free(wall), free(cpu);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %lld timings", (long long)o->repeat);
  }
  double a = ovta_now_s();
  for (int64_t r = 0; r < o->repeat && !rc; r++) {
    double w0 = ovta_now_s(), c0 = ovta_cpu_s();
    rc = ovta_exec_run(e, err);
    wall[r] = ovta_now_s() - w0, cpu[r] = ovta_cpu_s() - c0;
  }
  double us = (ovta_now_s() - a) * 1e6 / (double)o->repeat;
  if (!rc)
    printf("time per run: %.3f us (%lld runs, %d threads); median %.3f us, CPU time median %.3f us\n", us,
           (long long)o->repeat, ovta_get_threads(), median(wall, o->repeat) * 1e6, median(cpu, o->repeat) * 1e6);
  free(wall), free(cpu);
  return rc;
}



/* The plan to run: a folder loaded, or a model file compiled (only on the cpu). */
static int open_plan(const ropts *o, ovta_tensor *const *vals, ovta_graph **g, ovta_exec **e, ovta_error *err) {
  struct stat st;
  if (stat(o->model, &st) == 0 && S_ISDIR(st.st_mode)) return open_folder(o, e, err);
  if (o->backend && strcmp(o->backend, "cpu"))
    return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: compile the model first with `ovta compile --target accel --calib ...`",
                     o->backend);
  return compile_model(o, vals, g, e, err);
}

/* --remote: the folder run by `ovta-rt serve`; the outputs and --stats as a local run prints them. */
static int run_remote(const ropts *o, ovta_tensor *const *vals, ovta_error *err) {
  struct stat st;
  if (stat(o->model, &st) != 0 || !S_ISDIR(st.st_mode))
    return OVTA_FAIL(err, OVTA_EINVAL, "--remote runs a folder made by `ovta compile`; %s is not one", o->model);
  ovta_array a[MAX_IN];
  for (int k = 0; k < o->nin; k++) { /* views of the tensors, not copies */
    a[k] = (ovta_array){.dtype = vals[k]->dtype, .rank = vals[k]->rank, .data = vals[k]->data, .nbytes = vals[k]->nbytes};
    memcpy(a[k].shape, vals[k]->shape, sizeof a[k].shape);
  }
  ovta_remote *r = NULL;
  ovta_plan p;
  ovta_remote_result res = {0};
  int rc = tool_remote_open(&o->remote, o->model, o->backend, (int)o->threads, false, &r, &p, err);
  if (!rc) rc = tool_remote_run(r, &p, o->nin, o->in_name, a, &res, err);
  if (!rc && o->stats) rc = ovta_plan_print_stats(&p, stdout, err);
  if (!rc && mkdir(o->outdir, 0777) != 0 && errno != EEXIST)
    rc = OVTA_FAIL(err, OVTA_EIO, "%s: %s", o->outdir, strerror(errno));
  for (int i = 0; !rc && i < res.nout; i++) rc = ovta_plan_write_array(o->outdir, res.names[i], &res.outs[i], stdout, err);
  ovta_remote_result_clear(&res);
  ovta_remote_close(r);
  ovta_plan_release(&p);
  return rc;
}

int ovta_cmd_run(int argc, char **argv) {
  ropts o = {.outdir = "."};
  int rc = parse_args(argc, argv, &o);
  ovta_error err = {0};
  ovta_tensor *vals[MAX_IN] = {0};
  ovta_graph *g = NULL;
  ovta_exec *e = NULL;
  if (rc) goto done; /* usage (2) or --help (-1) */
  ovta_set_threads((int)o.threads);
  for (int i = 0; i < o.nin && !rc; i++) rc = tool_input_read(o.in_file[i], o.in_name[i], &vals[i], &err);
  if (!rc && o.remote.addr) {
    rc = run_remote(&o, vals, &err);
    if (rc) rc = tool_error(&err, NULL);
    goto done;
  }
  if (!rc) rc = open_plan(&o, vals, &g, &e, &err);
  if (!rc) rc = feed_inputs(&o, e, vals, &err);
  if (!rc) rc = run_model(&o, e, &err);
  if (!rc && o.stats) rc = ovta_plan_print_stats(ovta_exec_plan(e), stdout, &err);
  if (!rc) rc = ovta_plan_write_outputs(ovta_exec_plan(e), o.outdir, stdout, &err);
  if (rc) rc = tool_error(&err, NULL);
done:
  for (int i = 0; i < o.nin; i++) {
    ovta_tensor_free(vals[i]);
    free((char *)o.in_name[i]);
  }
  ovta_exec_free(e);
  ovta_graph_free(g);
  return rc < 0 ? 0 : rc;
}
