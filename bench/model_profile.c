/* model_profile.c: one inference of a compiled model folder (`ovta compile` output: plan.json,
 * params.bin, kernels.o; compiler/lir/README.md) with the time of every step, as JSON.
 *
 *   build/bench/model_profile MODEL.ovta --input NAME=X.npy [--reference Y.npy] [--warmup N]
 *
 * The steps of plan.json are run in order on one arena, exactly as the executor runs them, with
 * a clock around each kernel call: a warm-up inference first (page faults, first-touch), then the
 * timed one. Per step: node, kernel, microseconds, multiply-accumulates (Conv/Dense/Gemm/MatMul
 * steps, from the argument shapes) and GMAC/s. With --reference, the largest |output - ref|.
 *
 * This is the fp32 CPU-path baseline: "accel_cycles" is null for every step. Plans compiled
 * with `--target accel` are profiled by `ovta profile` (tools/ovta/cmd_profile.c: the executor's
 * per-step counters, ovta_exec_node_stats_get, with device cycles on tsim); this program refuses
 * them and says so. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h"

typedef struct ptensor {
  const char *name;
  ovta_dtype dtype;
  int rank;
  int64_t shape[OVTA_MAX_RANK];
  bool param;
  size_t offset, nbytes;
} ptensor;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int fail(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "model_profile: error: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 1;
}

static char *read_file(const char *dir, const char *name, size_t *len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *d = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
    free(d);
    d = NULL;
  }
  fclose(f);
  if (d) d[n] = 0, *len = (size_t)n;
  return d;
}

static int64_t numel(const ptensor *t) { return ovta_shape_numel(t->shape, t->rank); }

/* Multiply-accumulates of a step from its kernel name and argument shapes (inputs then outputs). */
static int64_t step_macs(const char *fn, const ptensor *const *a, int n) {
  if (n < 3) return 0;
  const ptensor *y = a[n - 1], *x = a[0], *w = a[1];
  if (strstr(fn, "Conv") || strstr(fn, "Dense")) return w->shape[0] > 0 ? numel(y) * (numel(w) / w->shape[0]) : 0;
  if (strstr(fn, "Gemm") || strstr(fn, "MatMul")) return x->rank >= 1 ? numel(y) * x->shape[x->rank - 1] : 0;
  return 0;
}

int main(int argc, char **argv) {
  const char *dir = NULL, *input = NULL, *reference = NULL;
  int warmup = 1;
  double compile_s = -1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--input") && i + 1 < argc) input = argv[++i];
    else if (!strcmp(argv[i], "--reference") && i + 1 < argc) reference = argv[++i];
    else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--compile-s") && i + 1 < argc) compile_s = atof(argv[++i]);
    else if (argv[i][0] != '-' && !dir) dir = argv[i];
    else {
      fprintf(stderr, "usage: model_profile MODEL.ovta --input NAME=X.npy [--reference Y.npy] [--warmup N] [--compile-s S]\n");
      return 2;
    }
  }
  const char *eq = input ? strchr(input, '=') : NULL;
  if (!dir || !eq) return fail("%s%sneeds a model folder and --input NAME=X.npy", "", "");
  size_t plen = 0, parlen = 0, objlen = 0;
  char *plan = read_file(dir, "plan.json", &plen), *params = read_file(dir, "params.bin", &parlen),
       *obj = read_file(dir, "kernels.o", &objlen);
  if (!plan || !params || !obj) return fail("%s: cannot read plan.json, params.bin or kernels.o%s", dir, "");
  cJSON *root = cJSON_Parse(plan);
  const cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, "tensors"), *ss = cJSON_GetObjectItemCaseSensitive(root, "steps");
  const cJSON *ins = cJSON_GetObjectItemCaseSensitive(root, "inputs"), *outs = cJSON_GetObjectItemCaseSensitive(root, "outputs");
  const cJSON *ab = cJSON_GetObjectItemCaseSensitive(root, "arena_bytes");
  if (!cJSON_IsArray(ts) || !cJSON_IsArray(ss) || !cJSON_IsArray(ins) || !cJSON_IsArray(outs) || !cJSON_IsNumber(ab))
    return fail("%s/plan.json: not an ovta-exec plan%s", dir, "");
  int nt = cJSON_GetArraySize(ts), ns = cJSON_GetArraySize(ss);
  ptensor *t = calloc((size_t)nt + 1, sizeof *t);
  size_t arena_bytes = (size_t)ab->valuedouble;
  char *arena = aligned_alloc(64, (arena_bytes + 64) / 64 * 64);
  if (!t || !arena) return fail("out of memory%s%s", "", "");
  memset(arena, 0, arena_bytes);
  for (int i = 0; i < nt; i++) {
    const cJSON *it = cJSON_GetArrayItem(ts, i), *sh = cJSON_GetObjectItemCaseSensitive(it, "shape");
    const cJSON *wh = cJSON_GetObjectItemCaseSensitive(it, "where");
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
    if (!cJSON_IsString(nm) || !cJSON_IsString(wh) || (strcmp(wh->valuestring, "arena") && strcmp(wh->valuestring, "params")))
      return fail("%s: tensor %s lives in device memory: an accelerator plan; profile it with `ovta profile`", dir,
                  cJSON_IsString(nm) ? nm->valuestring : "?");
    t[i].name = cJSON_GetObjectItemCaseSensitive(it, "name")->valuestring;
    t[i].dtype = ovta_dtype_parse(cJSON_GetObjectItemCaseSensitive(it, "dtype")->valuestring);
    t[i].rank = cJSON_GetArraySize(sh);
    for (int d = 0; d < t[i].rank && d < OVTA_MAX_RANK; d++) t[i].shape[d] = (int64_t)cJSON_GetArrayItem(sh, d)->valuedouble;
    t[i].param = !strcmp(wh->valuestring, "params");
    t[i].offset = (size_t)cJSON_GetObjectItemCaseSensitive(it, "offset")->valuedouble;
    t[i].nbytes = (size_t)cJSON_GetObjectItemCaseSensitive(it, "bytes")->valuedouble;
    if (t[i].offset + t[i].nbytes > (t[i].param ? parlen : arena_bytes))
      return fail("%s: tensor %s out of range", dir, t[i].name);
  }
  /* the input */
  char in_name[256];
  snprintf(in_name, sizeof in_name, "%.*s", (int)(eq - input), input);
  ovta_error err = {0};
  ovta_tensor *x = NULL, *ref = NULL;
  if (ovta_npy_read(eq + 1, in_name, &x, &err)) return fail("%s%s", err.msg, "");
  bool set = false;
  for (int i = 0; i < cJSON_GetArraySize(ins); i++) {
    const ptensor *p = &t[(int)cJSON_GetArrayItem(ins, i)->valuedouble];
    if (strcmp(p->name, in_name)) continue;
    if (p->nbytes != x->nbytes || p->dtype != x->dtype) return fail("--input %s: dtype or size differs from the model's %s", input, p->name);
    memcpy(arena + p->offset, x->data, x->nbytes);
    set = true;
  }
  if (!set) return fail("--input %s: the model has no input of that name%s", input, "");
  /* the kernels */
  lir_jit *jit = NULL;
  if (lir_jit_new(&jit, &err) || lir_jit_add_object(jit, obj, objlen, "kernels.o", &err)) return fail("%s%s", err.msg, "");
  lir_kernel_fn *fns = calloc((size_t)ns + 1, sizeof *fns);
  void ***argv_s = calloc((size_t)ns + 1, sizeof *argv_s);
  const ptensor ***targs = calloc((size_t)ns + 1, sizeof *targs);
  int *nargs = calloc((size_t)ns + 1, sizeof *nargs);
  double *us = calloc((size_t)ns + 1, sizeof *us);
  for (int s = 0; s < ns; s++) {
    const cJSON *st = cJSON_GetArrayItem(ss, s), *ar = cJSON_GetObjectItemCaseSensitive(st, "args");
    const char *fn = cJSON_GetObjectItemCaseSensitive(st, "fn")->valuestring;
    void *fp;
    if (lir_jit_lookup(jit, fn, &fp, &err)) return fail("%s%s", err.msg, "");
    fns[s] = (lir_kernel_fn)fp;
    nargs[s] = cJSON_GetArraySize(ar);
    argv_s[s] = calloc((size_t)nargs[s] + 1, sizeof(void *));
    targs[s] = calloc((size_t)nargs[s] + 1, sizeof(ptensor *));
    for (int k = 0; k < nargs[s]; k++) {
      int ti = (int)cJSON_GetArrayItem(ar, k)->valuedouble;
      if (ti < 0 || ti >= nt) return fail("%s: step %s has a bad argument", dir, fn);
      targs[s][k] = &t[ti];
      argv_s[s][k] = (t[ti].param ? params : arena) + t[ti].offset;
    }
  }
  double first = 0;
  for (int r = 0; r < warmup; r++) {
    double a = now_us();
    for (int s = 0; s < ns; s++) fns[s](argv_s[s]);
    if (r == 0) first = now_us() - a;
  }
  double total0 = now_us();
  for (int s = 0; s < ns; s++) {
    double a = now_us();
    fns[s](argv_s[s]);
    us[s] = now_us() - a;
  }
  double total = now_us() - total0;
  /* the output against the reference */
  double maxd = -1;
  const ptensor *y = &t[(int)cJSON_GetArrayItem(outs, 0)->valuedouble];
  if (reference) {
    if (ovta_npy_read(reference, "reference", &ref, &err)) return fail("%s%s", err.msg, "");
    if (ref->nbytes != y->nbytes || ref->dtype != OVTA_DT_F32 || y->dtype != OVTA_DT_F32)
      return fail("--reference %s: not float32 of the size of output %s", reference, y->name);
    const float *p = (const float *)(arena + y->offset), *q = ref->data;
    maxd = 0;
    for (int64_t i = 0; i < numel(y); i++) maxd = fmax(maxd, fabs((double)p[i] - (double)q[i]));
  }
  /* JSON */
  cJSON *r = cJSON_CreateObject(), *layers = cJSON_AddArrayToObject(r, "layers");
  cJSON_AddStringToObject(r, "model", dir);
  cJSON_AddStringToObject(r, "backend", "cpu");
  if (compile_s >= 0) cJSON_AddNumberToObject(r, "compile_s", compile_s);
  int64_t macs_total = 0;
  for (int s = 0; s < ns; s++) {
    const cJSON *st = cJSON_GetArrayItem(ss, s);
    cJSON *l = cJSON_CreateObject();
    const char *fn = cJSON_GetObjectItemCaseSensitive(st, "fn")->valuestring;
    int64_t m = step_macs(fn, targs[s], nargs[s]);
    macs_total += m;
    cJSON_AddStringToObject(l, "node", cJSON_GetObjectItemCaseSensitive(st, "node")->valuestring);
    cJSON_AddStringToObject(l, "fn", fn);
    cJSON_AddNumberToObject(l, "us", round(us[s] * 10) / 10);
    cJSON_AddNumberToObject(l, "macs", (double)m);
    cJSON_AddNumberToObject(l, "gmac_per_s", us[s] > 0 ? round((double)m / us[s] / 1e3 * 100) / 100 : 0);
    cJSON_AddNullToObject(l, "accel_cycles");
    cJSON_AddItemToArray(layers, l);
  }
  cJSON_AddNumberToObject(r, "steps", ns);
  cJSON_AddNumberToObject(r, "macs", (double)macs_total);
  cJSON_AddNumberToObject(r, "total_us", round(total * 10) / 10);
  cJSON_AddNumberToObject(r, "first_run_us", round(first * 10) / 10);
  cJSON_AddNumberToObject(r, "gmac_per_s", total > 0 ? round((double)macs_total / total / 1e3 * 100) / 100 : 0);
  cJSON_AddNumberToObject(r, "arena_bytes", (double)arena_bytes);
  cJSON_AddNumberToObject(r, "params_bytes", (double)parlen);
  if (reference) cJSON_AddNumberToObject(r, "max_abs_diff_vs_reference", maxd);
  else cJSON_AddNullToObject(r, "max_abs_diff_vs_reference");
  cJSON_AddNullToObject(r, "accel_cycles");
  char *txt = cJSON_Print(r);
  puts(txt);
  free(txt);
  cJSON_Delete(r);
  cJSON_Delete(root);
  for (int s = 0; s < ns; s++) free(argv_s[s]), free(targs[s]);
  free(argv_s), free(targs), free(fns), free(nargs), free(us), free(t);
  lir_jit_free(jit);
  ovta_tensor_free(x), ovta_tensor_free(ref);
  free(arena), free(plan), free(params), free(obj);
  return 0;
}
