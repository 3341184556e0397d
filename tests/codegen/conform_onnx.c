/* ONNX conformance runner for the CPU path: every ONNX backend node test in the test-data folder
 * (default /usr/share/libonnx-testdata/data/node, or the second argument) whose model uses only operators of
 * the CPU lowering's required list is imported (compiler/graph/onnx.c), compiled (ovta_exec_build:
 * loop IR -> LLVM O3 -> object code -> JIT), run on test_data_set_0/input_N.pb, and compared
 * with output_N.pb (the independent reference shipped with ONNX).
 *
 * Tolerances: integer outputs exact. Float outputs: |got - want| <= ATOL + RTOL * |want| with
 * RTOL = 1e-5, ATOL = 1e-6 for every operator (the transcendental ones, Tanh, Sigmoid, Softmax,
 * use libm's tanhf/expf, accurate to ~1 ulp, so the same bound holds).
 *
 * Output: one line per test, cmocka style ("[       OK ]", "[  FAILED  ]", "[  SKIPPED ]" with
 * the reason: an operator, attribute or dtype the CPU path does not support), then the counts
 * as "[  PASSED  ] N test(s)." etc. for tests/run.sh. Exit 1 if any test failed.
 * Options: -v prints the failing elements; -a runs every folder, not only the in-scope ones (for
 * work on operators outside the required list); a second argument filters test names (substring). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "onnx.pb-c.h"

#define RTOL 1e-5
#define ATOL 1e-6

/* The operators the CPU lowering is required to cover (a test is in scope when its model uses
 * only these). */
static const char *const REQUIRED[] = {
    "Conv", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "LeakyRelu", "Clip", "Sigmoid",
    "HardSigmoid", "HardSwish", "Tanh", "Softmax", "MaxPool", "AveragePool", "GlobalAveragePool",
    "BatchNormalization", "Flatten", "Reshape", "Transpose", "Concat", "Pad", "Squeeze", "Unsqueeze",
    "Identity", "QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger",
    "MatMulInteger", NULL};

static bool required(const char *op) {
  for (int i = 0; REQUIRED[i]; i++)
    if (strcmp(op, REQUIRED[i]) == 0) return true;
  return false;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_float(ovta_dtype t) { return t == OVTA_DT_F32 || t == OVTA_DT_F64; }

typedef enum { R_PASS, R_FAIL, R_SKIP, R_OUT } result;

static bool run_all; /* -a: every folder is in scope */

/* In scope: the model's nodes (read with protobuf-c directly, so a model the importer rejects
 * is still classified) all use required operators. */
static bool in_scope(const char *model) {
  ovta_error err;
  char *d;
  size_t n;
  if (ovta_read_file(model, (size_t)1 << 30, &d, &n, &err)) return false;
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, (const uint8_t *)d);
  free(d);
  if (!m) return false;
  bool ok = m->graph && m->graph->n_node > 0;
  for (size_t i = 0; ok && i < m->graph->n_node; i++) {
    const Onnx__NodeProto *nd = m->graph->node[i];
    ok = nd->op_type && (!nd->domain || !*nd->domain) && required(nd->op_type);
  }
  onnx__model_proto__free_unpacked(m, NULL);
  return ok;
}

/* Graph inputs that an operator needs as a constant (Reshape's shape, Squeeze/Unsqueeze's axes,
 * Pad's pads): the test binds them to their test data before inference, like a model would
 * carry them as initializers. */
static bool shape_input(const ovta_graph *g, const ovta_tensor *t) {
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    const char *op = n->op;
    bool want = strcmp(op, "Reshape") == 0 || strcmp(op, "Squeeze") == 0 || strcmp(op, "Unsqueeze") == 0 ||
                strcmp(op, "Pad") == 0;
    if (want && n->n_inputs > 1 && n->inputs[1] == t) return true;
  }
  return false;
}

/* Run one test folder; msg receives the detail for the report line. */
static result run_one(const char *dir, bool verbose, char *msg, size_t mn) {
  char path[2200];
  ovta_error err = {0};
  ovta_graph *g = NULL;
  ovta_exec *e = NULL;
  result r = R_PASS;
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  if (!run_all && !in_scope(path)) return R_OUT;
  int rc = ovta_onnx_load(path, &g, &err);
  if (rc) {
    snprintf(msg, mn, "import: %s", err.msg);
    return rc == OVTA_EUNSUPPORTED ? R_SKIP : R_FAIL;
  }
  for (int i = 0; i < g->n_nodes; i++)
    if (strcmp(g->nodes[i]->op, "BatchNormalization") == 0 && ovta_node_attr_i(g->nodes[i], "training_mode", 0)) {
      snprintf(msg, mn, "node %s: BatchNormalization training_mode=1 (training) is not supported", g->nodes[i]->name);
      ovta_graph_free(g);
      return R_SKIP;
    }
  /* inputs: input_N.pb for g->inputs[N] */
  int nin = g->n_inputs;
  ovta_tensor **in = calloc((size_t)nin + 1, sizeof *in), **feed = NULL;
  int kept = 0;
  for (int i = 0; i < nin; i++) {
    snprintf(path, sizeof path, "%s/test_data_set_0/input_%d.pb", dir, i);
    if ((rc = ovta_onnx_read_tensor(path, &in[i], &err))) {
      snprintf(msg, mn, "reading input %d: %s", i, err.msg);
      r = rc == OVTA_EUNSUPPORTED ? R_SKIP : R_FAIL;
      goto done;
    }
    ovta_tensor *gi = g->inputs[i];
    if (shape_input(g, gi)) {
      gi->kind = OVTA_TK_CONST;
      if ((rc = ovta_tensor_set_data(gi, in[i]->data, in[i]->nbytes, &err))) {
        snprintf(msg, mn, "binding %s: %s", gi->name, err.msg);
        r = R_FAIL;
        goto done;
      }
    }
    bool unknown = gi->rank < 0;
    for (int d = 0; d < gi->rank; d++) unknown |= gi->shape[d] < 0;
    if (unknown) {
      gi->rank = in[i]->rank;
      memcpy(gi->shape, in[i]->shape, sizeof gi->shape);
    }
  }
  /* bound inputs are constants now: drop them from the graph inputs */
  feed = calloc((size_t)nin + 1, sizeof *feed);
  for (int i = 0; i < nin; i++)
    if (g->inputs[i]->kind != OVTA_TK_CONST) feed[kept] = in[i], g->inputs[kept++] = g->inputs[i];
  g->n_inputs = kept;
  if ((rc = ovta_infer_graph(g, &err))) {
    snprintf(msg, mn, "inference: %s", err.msg);
    r = rc == OVTA_EUNSUPPORTED ? R_SKIP : R_FAIL;
    goto done;
  }
  if ((rc = ovta_exec_build(g, NULL, &e, &err))) {
    snprintf(msg, mn, "compile: %s", err.msg);
    r = rc == OVTA_EUNSUPPORTED ? R_SKIP : R_FAIL;
    goto done;
  }
  for (int i = 0; i < kept; i++)
    if ((rc = ovta_exec_set_input(e, g->inputs[i]->name, feed[i], &err))) {
      snprintf(msg, mn, "input: %s", err.msg);
      r = R_FAIL;
      goto done;
    }
  if ((rc = ovta_exec_run(e, &err))) {
    snprintf(msg, mn, "run: %s", err.msg);
    r = R_FAIL;
    goto done;
  }
  double max_abs = 0, max_rel = 0;
  int64_t bad = 0, total = 0;
  for (int o = 0; o < ovta_exec_num_outputs(e); o++) {
    ovta_tensor *want = NULL, *got = NULL;
    snprintf(path, sizeof path, "%s/test_data_set_0/output_%d.pb", dir, o);
    if ((rc = ovta_onnx_read_tensor(path, &want, &err)) || (rc = ovta_exec_get_output(e, o, &got, &err))) {
      snprintf(msg, mn, "output %d: %s", o, err.msg);
      r = R_FAIL;
      ovta_tensor_free(want);
      goto done;
    }
    int64_t n = ovta_tensor_numel(want);
    if (want->dtype != got->dtype || n != ovta_tensor_numel(got) || want->rank != got->rank) {
      char a[64], b[64];
      ovta_shape_str(got, a, sizeof a);
      ovta_shape_str(want, b, sizeof b);
      snprintf(msg, mn, "output %s: got %s %s, want %s %s", got->name, ovta_dtype_name(got->dtype), a,
               ovta_dtype_name(want->dtype), b);
      r = R_FAIL;
      ovta_tensor_free(want);
      ovta_tensor_free(got);
      goto done;
    }
    for (int64_t i = 0; i < n; i++) {
      total++;
      if (is_float(want->dtype)) {
        double w = ovta_tensor_get_f(want, i), v = ovta_tensor_get_f(got, i), d = fabs(v - w);
        if (isnan(w) && isnan(v)) continue;
        if (!(d <= ATOL + RTOL * fabs(w))) {
          bad++;
          if (verbose && bad < 10) printf("    %s[%lld]: got %.9g want %.9g\n", got->name, (long long)i, v, w);
        }
        if (d > max_abs || isnan(d)) max_abs = d;
        if (w != 0 && d / fabs(w) > max_rel) max_rel = d / fabs(w);
      } else {
        int64_t w = ovta_tensor_get_i(want, i), v = ovta_tensor_get_i(got, i);
        double d = fabs((double)v - (double)w);
        if (d > max_abs) max_abs = d;
        if (v != w) {
          bad++;
          if (verbose && bad < 10) printf("    %s[%lld]: got %lld want %lld\n", got->name, (long long)i, (long long)v, (long long)w);
        }
      }
    }
    ovta_tensor_free(want);
    ovta_tensor_free(got);
  }
  if (bad) {
    snprintf(msg, mn, "%lld of %lld elements outside tolerance, max abs err %.3g, max rel err %.3g", (long long)bad,
             (long long)total, max_abs, max_rel);
    r = R_FAIL;
  } else {
    snprintf(msg, mn, "%lld elements, max abs err %.3g, max rel err %.3g", (long long)total, max_abs, max_rel);
  }
done:
  free(feed);
  for (int i = 0; i < nin; i++) ovta_tensor_free(in[i]);
  free(in);
  ovta_exec_free(e);
  ovta_graph_free(g);
  return r;
}

int main(int argc, char **argv) {
  bool verbose = false;
  const char *root = "/usr/share/libonnx-testdata/data/node", *filter = NULL;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0) verbose = true;
    else if (strcmp(argv[i], "-a") == 0) run_all = true;
    else if (pos++ == 0) filter = argv[i];
    else root = argv[i];
  }
  DIR *d = opendir(root);
  if (!d) {
    printf("[  SKIPPED ] 1 test(s), listed below:\n[  SKIPPED ] onnx conformance: no test data at %s\n", root);
    return 0;
  }
  char **names = NULL;
  int nn = 0, cap = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (strncmp(de->d_name, "test_", 5) != 0) continue;
    if (filter && !strstr(de->d_name, filter)) continue;
    if (nn == cap) names = realloc(names, sizeof(char *) * (size_t)(cap = cap ? cap * 2 : 256));
    names[nn++] = strdup(de->d_name);
  }
  closedir(d);
  qsort(names, (size_t)nn, sizeof *names, cmp_str);
  int np = 0, nf = 0, ns = 0;
  char **failed = calloc((size_t)nn + 1, sizeof *failed);
  for (int i = 0; i < nn; i++) {
    char dir[2048], msg[1024] = "";
    snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
    result r = run_one(dir, verbose, msg, sizeof msg);
    switch (r) {
    case R_PASS: printf("[       OK ] %s: %s\n", names[i], msg), np++; break;
    case R_FAIL: printf("[  FAILED  ] %s: %s\n", names[i], msg), failed[nf++] = names[i]; break;
    case R_SKIP: printf("[  SKIPPED ] %s: %s\n", names[i], msg), ns++; break;
    case R_OUT: break;
    }
    fflush(stdout);
  }
  printf("[==========] %d ONNX node test(s) in scope run (of %d folders).\n", np + nf + ns, nn);
  printf("[  PASSED  ] %d test(s).\n", np);
  if (ns) printf("[  SKIPPED ] %d test(s).\n", ns);
  if (nf) {
    printf("[  FAILED  ] %d test(s), listed below:\n", nf);
    for (int i = 0; i < nf; i++) printf("[  FAILED  ] %s\n", failed[i]);
  }
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  free(failed);
  return nf ? 1 : 0;
}
