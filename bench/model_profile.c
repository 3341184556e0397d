/* model_profile.c: one inference of a compiled model folder (`ovta compile` output: plan.json,
 * params.bin, kernels.o; compiler/exec/README.md) with the time of every step, as JSON.
 *
 *   build/bench/model_profile MODEL.ovta --input NAME=X.npy [--reference Y.npy] [--warmup N]
 *
 * The plan is loaded and run by the executor (compiler/exec/exec.h): warm-up inferences first
 * (page faults, first-touch), then the timed one, whose per-step wall times and MACs come from
 * the executor's profile rows (ovta_profile_collect: kernel time of each step, MACs from the
 * node's logical shapes). Per step: node, kernel, microseconds, multiply-accumulates and GMAC/s.
 * With --reference, the largest |output - ref|.
 *
 * This is the fp32 CPU-path baseline: "accel_cycles" is null for every step. Plans compiled
 * with `--target accel` are profiled by `ovta profile` (tools/ovta/cmd_profile.c, the same
 * profile rows with device cycles on tsim); this program refuses them and says so. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "exec.h"

/* The command line. */
typedef struct mopts {
  const char *dir;        /* the compiled model folder */
  const char *input;      /* --input NAME=X.npy */
  const char *reference;  /* --reference Y.npy, or NULL */
  int warmup;             /* --warmup N: untimed inferences first (default 1) */
  double compile_s;       /* --compile-s S, copied into the JSON (-1: not given) */
} mopts;

/* The timed inference. */
typedef struct timing {
  double first_us;        /* the first warm-up inference (0 without warm-up) */
  double total_us;        /* the timed inference */
  double maxd;            /* largest |output - reference| (-1: no --reference) */
} timing;

static int fail(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "model_profile: error: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 1;
}

static int parse_args(int argc, char **argv, mopts *o) {
  *o = (mopts){.warmup = 1, .compile_s = -1};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--input") && i + 1 < argc) o->input = argv[++i];
    else if (!strcmp(argv[i], "--reference") && i + 1 < argc) o->reference = argv[++i];
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) o->warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--compile-s") && i + 1 < argc) o->compile_s = atof(argv[++i]);
    else if (argv[i][0] != '-' && !o->dir) o->dir = argv[i];
    else {
      fprintf(stderr, "usage: model_profile MODEL.ovta --input NAME=X.npy [--reference Y.npy] [--warmup N] [--compile-s S]\n");
      return 2;
    }
  }
  if (!o->dir || !o->input || !strchr(o->input, '=')) return fail("%s%sneeds a model folder and --input NAME=X.npy", "", "");
  return 0;
}

/* The plan of o->dir, a CPU plan. */
static int load_plan(const mopts *o, ovta_exec **e) {
  ovta_error err = {0};
  if (ovta_exec_load(o->dir, e, &err)) return fail("%s%s", err.msg, "");
  char n[32];
  snprintf(n, sizeof n, "%d", ovta_exec_accel_nodes(*e));
  if (ovta_exec_accel_nodes(*e) > 0)
    return fail("%s: %s node(s) run on the accelerator: an accelerator plan; profile it with `ovta profile`", o->dir, n);
  return 0;
}

/* --input NAME=X.npy into the plan's input NAME. */
static int set_input(const mopts *o, ovta_exec *e) {
  const char *eq = strchr(o->input, '=');
  char in_name[256];
  snprintf(in_name, sizeof in_name, "%.*s", (int)(eq - o->input), o->input);
  ovta_error err = {0};
  ovta_tensor *x = NULL;
  if (ovta_npy_read(eq + 1, in_name, &x, &err)) return fail("%s%s", err.msg, "");
  int i = 0;
  while (i < ovta_exec_num_inputs(e) && strcmp(ovta_exec_input_name(e, i), in_name)) i++;
  int rc = 0;
  if (i == ovta_exec_num_inputs(e)) rc = fail("--input %s: the model has no input of that name%s", o->input, "");
  else if (ovta_exec_set_input(e, in_name, x, &err))
    rc = fail("--input %s: dtype or size differs from the model's %s", o->input, in_name);
  ovta_tensor_free(x);
  return rc;
}

/* The warm-up inferences, then the timed one. */
static int run_timed(ovta_exec *e, int warmup, timing *t) {
  ovta_error err = {0};
  for (int r = 0; r < warmup; r++) {
    double a = ovta_now_s();
    if (ovta_exec_run(e, &err)) return fail("%s%s", err.msg, "");
    if (r == 0) t->first_us = (ovta_now_s() - a) * 1e6;
  }
  double a = ovta_now_s();
  if (ovta_exec_run(e, &err)) return fail("%s%s", err.msg, "");
  t->total_us = (ovta_now_s() - a) * 1e6;
  return 0;
}

/* The largest |output 0 - reference| into t->maxd. */
static int compare_reference(const char *reference, const ovta_exec *e, timing *t) {
  ovta_error err = {0};
  ovta_tensor *y = NULL, *ref = NULL;
  if (ovta_exec_get_output(e, 0, &y, &err) || ovta_npy_read(reference, "reference", &ref, &err)) {
    ovta_tensor_free(y);
    return fail("%s%s", err.msg, "");
  }
  int rc = 0;
  if (ref->nbytes != y->nbytes || ref->dtype != OVTA_DT_F32 || y->dtype != OVTA_DT_F32) {
    rc = fail("--reference %s: not float32 of the size of output %s", reference, y->name);
  } else {
    const float *p = y->data, *q = ref->data;
    t->maxd = 0;
    for (int64_t i = 0; i < ovta_tensor_numel(y); i++) t->maxd = fmax(t->maxd, fabs((double)p[i] - (double)q[i]));
  }
  ovta_tensor_free(y), ovta_tensor_free(ref);
  return rc;
}

/* One step's JSON object. */
static cJSON *layer_json(const ovta_profile_row *r) {
  cJSON *l = cJSON_CreateObject();
  cJSON_AddStringToObject(l, "node", r->name);
  cJSON_AddStringToObject(l, "fn", r->fn);
  cJSON_AddNumberToObject(l, "us", round(r->us * 10) / 10);
  cJSON_AddNumberToObject(l, "macs", (double)r->macs);
  cJSON_AddNumberToObject(l, "gmac_per_s", r->us > 0 ? round((double)r->macs / r->us / 1e3 * 100) / 100 : 0);
  cJSON_AddNullToObject(l, "accel_cycles");
  return l;
}

/* Bytes of the plan's params blob (the size of DIR/params.bin). */
static double params_bytes(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/params.bin", dir);
  struct stat st;
  return stat(path, &st) == 0 ? (double)st.st_size : 0;
}

static void print_json(const mopts *o, const ovta_exec *e, const ovta_profile *p, const timing *t) {
  cJSON *r = cJSON_CreateObject(), *layers = cJSON_AddArrayToObject(r, "layers");
  cJSON_AddStringToObject(r, "model", o->dir);
  cJSON_AddStringToObject(r, "backend", "cpu");
  if (o->compile_s >= 0) cJSON_AddNumberToObject(r, "compile_s", o->compile_s);
  for (int s = 0; s < p->n; s++) cJSON_AddItemToArray(layers, layer_json(&p->rows[s]));
  size_t arena, unshared;
  ovta_exec_memory(e, &arena, &unshared);
  int64_t macs = p->total.macs;
  cJSON_AddNumberToObject(r, "steps", p->n);
  cJSON_AddNumberToObject(r, "macs", (double)macs);
  cJSON_AddNumberToObject(r, "total_us", round(t->total_us * 10) / 10);
  cJSON_AddNumberToObject(r, "first_run_us", round(t->first_us * 10) / 10);
  cJSON_AddNumberToObject(r, "gmac_per_s", t->total_us > 0 ? round((double)macs / t->total_us / 1e3 * 100) / 100 : 0);
  cJSON_AddNumberToObject(r, "arena_bytes", (double)arena);
  cJSON_AddNumberToObject(r, "params_bytes", params_bytes(o->dir));
  if (o->reference) cJSON_AddNumberToObject(r, "max_abs_diff_vs_reference", t->maxd);
  else cJSON_AddNullToObject(r, "max_abs_diff_vs_reference");
  cJSON_AddNullToObject(r, "accel_cycles");
  char *txt = cJSON_Print(r);
  puts(txt);
  free(txt);
  cJSON_Delete(r);
}

int main(int argc, char **argv) {
  mopts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc;
  ovta_exec *e = NULL;
  ovta_profile p = {0};
  ovta_error err = {0};
  timing t = {.maxd = -1};
  rc = load_plan(&o, &e);
  if (!rc) rc = set_input(&o, e);
  if (!rc) rc = run_timed(e, o.warmup, &t);
  if (!rc && o.reference) rc = compare_reference(o.reference, e, &t);
  if (!rc && ovta_profile_collect(e, &p, &err)) rc = fail("%s%s", err.msg, "");
  if (!rc) print_json(&o, e, &p, &t);
  ovta_profile_free(&p);
  ovta_exec_free(e);
  return rc;
}
