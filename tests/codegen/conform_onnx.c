/* ONNX conformance runner for the CPU path: every ONNX backend node test in the test-data folder
 * (default /usr/share/libonnx-testdata/data/node, or the second argument) is imported
 * (compiler/graph/onnx.c), compiled (ovta_exec_build: loop IR -> LLVM O3 -> object code -> JIT),
 * run on test_data_set_0/input_N.pb, and compared with output_N.pb (the independent reference
 * shipped with ONNX).
 *
 * Each test runs in a child process (fork), so a crash or a hang (60 s) is one failed test; the
 * child ends with exit(), so the sanitizer build's leak checker checks every test.
 * A test PASSES when every output matches; it is SKIPPED (one line naming the node, the operator
 * and the feature) when the importer, inference or the lowering refuses the model with
 * OVTA_EUNSUPPORTED; it FAILS on a numeric mismatch, a crash, a timeout or any other error.
 *
 * Tolerances: integer and bool outputs exact. Float outputs: |got - want| <= ATOL + RTOL * |want|
 * with RTOL = 1e-5 (a few tests with imprecise data 1e-3, see LOOSE), ATOL = 1e-6 for every operator (the transcendental ones use libm or LLVM's
 * intrinsics, accurate to ~1 ulp, so the same bound holds); NaN matches NaN.
 *
 * Output: one line per test, cmocka style ("[       OK ]", "[  FAILED  ]", "[  SKIPPED ]" with
 * the reason), the counts as "[  PASSED  ] N test(s)." etc. for tests/run.sh, then a table per
 * operator: the tests whose model uses it (a test counts under every operator of its graph),
 * how many of them passed, were refused or failed, and how many refusals name a node of that
 * operator ("blocks"), then "N of M pass". Exit 1 if any test failed.
 * Options: -v prints the failing elements; a first argument filters test names (substring);
 * -a is accepted for compatibility (every folder always runs). */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec.h"
#include "onnx.pb-c.h"

#define RTOL 1e-5
#define ATOL 1e-6
/* Tests whose expected outputs are less precise than RTOL, compared with ONNX's own default
 * rtol 1e-3 (folder names starting so, the _expanded forms too): the windows' were made with
 * pi = 3.1415 (onnx/backend/test/case/node/window.py: cos(2 * 3.1415 * n / N)), 5e-4 relative
 * off the operators' definition (2 pi; the function bodies' Tau = 6.28319); GridSample bicubic's
 * and RoiAlign's are written out with 4 decimals (up to 1.7e-4 relative off); tests/codegen/
 * node_extra's STFT outputs are onnxruntime's float32 sums (off by ~3e-6 where terms cancel). */
#define RTOL_LOOSE 1e-3
/* bfloat16 outputs: within one bf16 ulp (8 significant bits). The cast tests' FLOAT->BFLOAT16
 * data were made by truncating the float32 bits (the old ONNX test generator); ONNX's reference
 * (float32_to_bfloat16) and this compiler round to nearest even. */
#define RTOL_BF16 (1.0 / 128)
static const char *const LOOSE[] = {"test_hannwindow", "test_hammingwindow", "test_blackmanwindow", "test_gridsample_bicubic",
                                    "test_roialign", "test_x_stft"};
#define TIMEOUT_S 60
#define MAX_OPS 64 /* distinct operators per model counted in the table */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_float(ovta_dtype t) { return t == OVTA_DT_F32 || t == OVTA_DT_F64 || t == OVTA_DT_F16 || t == OVTA_DT_BF16; }

typedef enum { R_PASS, R_FAIL, R_SKIP } result;

/* A model's graph read with protobuf-c directly (so a model the importer rejects is still
 * counted and its refusal placed at a node), NULL when unreadable. */
static Onnx__ModelProto *read_model(const char *model) {
  ovta_error err;
  char *d;
  size_t n;
  if (ovta_read_file(model, (size_t)1 << 30, &d, &n, &err)) return NULL;
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, n, (const uint8_t *)d);
  free(d);
  if (m && !m->graph) onnx__model_proto__free_unpacked(m, NULL), m = NULL;
  return m;
}

/* A node's operator for the table: "domain:Op" outside the default domain. */
static void op_name(const Onnx__NodeProto *nd, char *out, size_t n) {
  if (nd->domain && *nd->domain && strcmp(nd->domain, "ai.onnx"))
    snprintf(out, n, "%s:%s", nd->domain, nd->op_type ? nd->op_type : "?");
  else snprintf(out, n, "%s", nd->op_type ? nd->op_type : "?");
}

/* The distinct operators of the model (at most max). */
static int model_ops(const Onnx__ModelProto *m, char ops[][64], int max) {
  int k = 0;
  for (size_t i = 0; m && i < m->graph->n_node; i++) {
    char name[64];
    op_name(m->graph->node[i], name, sizeof name);
    bool seen = false;
    for (int j = 0; j < k && !seen; j++) seen = !strcmp(ops[j], name);
    if (!seen && k < max) snprintf(ops[k++], 64, "%s", name);
  }
  return k;
}

/* Does msg name value v ('v' or "tensor v:")? */
static bool names_value(const char *msg, const char *v) {
  char pat[300];
  if (!v || !*v) return false;
  snprintf(pat, sizeof pat, "'%s'", v);
  if (strstr(msg, pat)) return true;
  snprintf(pat, sizeof pat, "tensor %s:", v);
  return strstr(msg, pat) != NULL;
}

/* A refusal that names no node of the model (a graph value's type, an opset): append the node it
 * concerns, the first one using a value the message names, else the first outside the default
 * domain, else the first node. */
static void place_refusal(const Onnx__ModelProto *m, char *msg, size_t mn) {
  if (!m || !m->graph->n_node) return;
  for (size_t i = 0; i < m->graph->n_node; i++) {
    char pat[80], op[64];
    op_name(m->graph->node[i], op, sizeof op);
    snprintf(pat, sizeof pat, "(%s)", m->graph->node[i]->op_type ? m->graph->node[i]->op_type : "?");
    if (strstr(msg, pat)) return; /* already placed */
  }
  size_t at = m->graph->n_node;
  for (size_t i = 0; at == m->graph->n_node && i < m->graph->n_node; i++) {
    const Onnx__NodeProto *nd = m->graph->node[i];
    for (size_t k = 0; k < nd->n_input + nd->n_output; k++)
      if (names_value(msg, k < nd->n_input ? nd->input[k] : nd->output[k - nd->n_input])) at = i;
  }
  for (size_t i = 0; at == m->graph->n_node && i < m->graph->n_node; i++)
    if (m->graph->node[i]->domain && *m->graph->node[i]->domain && strcmp(m->graph->node[i]->domain, "ai.onnx")) at = i;
  if (at == m->graph->n_node) at = 0;
  const Onnx__NodeProto *nd = m->graph->node[at];
  char op[64], name[128];
  op_name(nd, op, sizeof op);
  if (nd->name && *nd->name) snprintf(name, sizeof name, "%s", nd->name);
  else snprintf(name, sizeof name, "%s_%zu", nd->op_type ? nd->op_type : "node", at); /* the importer's name */
  size_t l = strlen(msg);
  snprintf(msg + l, mn - l, " [at node '%s' (%s)]", name, op);
}

/* The inputs ONNX operators take as shapes, axes, counts or sizes, which a compiler needs as
 * constants (a model carries them as initializers or computes them from constants): input slot
 * bits per operator. The runner binds graph inputs feeding these slots to their test data before
 * inference, so every operator family gets them without editing this file. */
static const struct {
  const char *op;  /* operator */
  unsigned slots;  /* bit i: input i */
} SHAPE_INPUTS[] = {
    {"Reshape", 1u << 1},         {"Squeeze", 1u << 1},           {"Unsqueeze", 1u << 1},
    {"Pad", 1u << 1 | 1u << 3},   {"Expand", 1u << 1},            {"Tile", 1u << 1},
    {"Slice", 0xfu << 1},         {"Resize", 7u << 1},            {"Upsample", 1u << 1},
    {"TopK", 1u << 1},            {"OneHot", 1u << 1},            {"Range", 7u},
    {"ConstantOfShape", 1u},      {"Split", 1u << 1},             {"CumSum", 1u << 1},
    {"Trilu", 1u << 1},           {"MaxUnpool", 1u << 2},         {"CenterCropPad", 1u << 1},
    {"ReduceSum", 1u << 1},       {"ReduceMean", 1u << 1},        {"ReduceMax", 1u << 1},
    {"ReduceMin", 1u << 1},       {"ReduceProd", 1u << 1},        {"ReduceL1", 1u << 1},
    {"ReduceL2", 1u << 1},        {"ReduceLogSum", 1u << 1},      {"ReduceLogSumExp", 1u << 1},
    {"ReduceSumSquare", 1u << 1}, {"Dropout", 3u << 1},           {"NonMaxSuppression", 7u << 2},
    {"DFT", 3u << 1},             {"STFT", 1u << 1 | 1u << 3},    {"HannWindow", 1u},
    {"HammingWindow", 1u},        {"BlackmanWindow", 1u},         {"MelWeightMatrix", 0x1fu},
    {"ReverseSequence", 1u << 1}, {"Col2Im", 3u << 1},
};

/* Does t feed a SHAPE_INPUTS slot, directly or (scalars, as an operator's function body computes
 * a size: Cast, Sub, Div ... of the size input before a Range) through the nodes it flows into
 * (not through Shape/Size, which read only its shape)? seen[]: nodes visited. */
static bool feeds_shape(const ovta_graph *g, const ovta_tensor *t, bool *seen, bool direct_only) {
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    bool uses = false;
    for (int s = 0; s < n->n_inputs; s++) {
      if (n->inputs[s] != t) continue;
      uses = true;
      for (size_t k = 0; k < sizeof SHAPE_INPUTS / sizeof SHAPE_INPUTS[0]; k++)
        if (s < 32 && !strcmp(n->op, SHAPE_INPUTS[k].op) && SHAPE_INPUTS[k].slots >> s & 1) return true;
    }
    if (!uses || direct_only || seen[i] || !strcmp(n->op, "Shape") || !strcmp(n->op, "Size")) continue;
    seen[i] = true;
    for (int o = 0; o < n->n_outputs; o++)
      if (n->outputs[o] && feeds_shape(g, n->outputs[o], seen, false)) return true;
  }
  return false;
}

static bool shape_input(const ovta_graph *g, const ovta_tensor *t) {
  bool scalar = t->rank == 0 || (t->rank == 1 && t->shape[0] == 1);
  bool *seen = calloc((size_t)g->n_nodes + 1, 1);
  bool r = seen && feeds_shape(g, t, seen, !scalar);
  free(seen);
  return r;
}

/* bf16_bits: ONNX's cast tests store bfloat16 data as uint16 tensors of its bits; the runner
 * reads such a tensor as bfloat16 where the model has a bfloat16 value. */

/* Run one test folder; msg receives the detail for the report line. */
static result run_one(const char *dir, bool verbose, char *msg, size_t mn) {
  char path[2200];
  ovta_error err = {0};
  ovta_graph *g = NULL;
  ovta_exec *e = NULL;
  result r = R_PASS;
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  int rc = ovta_onnx_load(path, &g, &err);
  if (rc) {
    snprintf(msg, mn, "import: %s", err.msg);
    return rc == OVTA_EUNSUPPORTED ? R_SKIP : R_FAIL;
  }
  for (int i = 0; i < g->n_nodes; i++)
    if (strcmp(g->nodes[i]->op, "BatchNormalization") == 0 && ovta_node_attr_i(g->nodes[i], "training_mode", 0)) {
      snprintf(msg, mn, "node '%s' (BatchNormalization): training_mode=1 (training) is not supported", g->nodes[i]->name);
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
    if (in[i]->dtype == OVTA_DT_U16 && gi->dtype == OVTA_DT_BF16) in[i]->dtype = OVTA_DT_BF16; /* see bf16_bits */
    if (shape_input(g, gi)) {
      gi->kind = OVTA_TK_CONST;
      if ((rc = ovta_tensor_set_data(gi, in[i]->data, in[i]->nbytes, &err))) {
        snprintf(msg, mn, "binding %s: %s", gi->name, err.msg);
        r = R_FAIL;
        goto done;
      }
    }
    /* unknown dims take the data's; so does a declared shape the data does not have (the
     * castlike bfloat16 tests declare `like` 3x4 and ship one element, whose type alone counts) */
    bool unknown = gi->rank < 0 || gi->rank != in[i]->rank;
    for (int d = 0; d < gi->rank && !unknown; d++) unknown |= gi->shape[d] < 0 || gi->shape[d] != in[i]->shape[d];
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
  double max_abs = 0, max_rel = 0, rtol = RTOL;
  int64_t bad = 0, total = 0;
  const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
  for (size_t k = 0; k < sizeof LOOSE / sizeof LOOSE[0]; k++)
    if (!strncmp(base, LOOSE[k], strlen(LOOSE[k]))) rtol = RTOL_LOOSE;
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
    if (want->dtype == OVTA_DT_U16 && got->dtype == OVTA_DT_BF16) want->dtype = OVTA_DT_BF16; /* see bf16_bits */
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
        if ((isnan(w) && isnan(v)) || v == w) continue; /* NaNs, equal infinities */
        if (!(d <= ATOL + (want->dtype == OVTA_DT_BF16 ? RTOL_BF16 : rtol) * fabs(w))) {
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

/* run_one in a child process: a crash or a hang fails only this test. */
static result run_forked(const char *dir, bool verbose, char *msg, size_t mn) {
  int fd[2];
  fflush(stdout);
  if (pipe(fd)) return run_one(dir, verbose, msg, mn);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return run_one(dir, verbose, msg, mn);
  }
  if (pid == 0) {
    close(fd[0]);
    alarm(TIMEOUT_S);
    char m[1024] = "";
    result r = run_one(dir, verbose, m, sizeof m);
    fflush(stdout);
    char out[1100];
    int len = snprintf(out, sizeof out, "%d %s", (int)r, m);
    if (write(fd[1], out, (size_t)len) < 0) _exit(3);
    exit(0); /* not _exit: the leak checker of the sanitizer build runs at exit */
  }
  close(fd[1]);
  char buf[1100];
  size_t got = 0;
  ssize_t k;
  while (got < sizeof buf - 1 && (k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)k;
  buf[got] = 0;
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st);
    snprintf(msg, mn, sig == SIGALRM ? "timed out after %d s" : "crashed with signal %d (%s)",
             sig == SIGALRM ? TIMEOUT_S : sig, strsignal(sig));
    return R_FAIL;
  }
  int r;
  int off = 0;
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || sscanf(buf, "%d %n", &r, &off) < 1 || r < R_PASS || r > R_SKIP) {
    snprintf(msg, mn, "the test process exited with status %d (a sanitizer report on stderr?)",
             WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return R_FAIL;
  }
  snprintf(msg, mn, "%s", buf + off);
  return (result)r;
}

/* One row of the operator table. */
typedef struct oprow {
  char op[64];                    /* operator ("domain:Op" outside the default domain) */
  int tests, pass, skip, fail;    /* tests using it and their results */
  int blocks;                     /* refusals whose reason names a node of this operator */
} oprow;

static oprow *row_of(oprow **rows, int *nr, int *cap, const char *op) {
  for (int i = 0; i < *nr; i++)
    if (!strcmp((*rows)[i].op, op)) return &(*rows)[i];
  if (*nr == *cap) *rows = realloc(*rows, sizeof **rows * (size_t)(*cap = *cap ? *cap * 2 : 128));
  oprow *r = &(*rows)[(*nr)++];
  memset(r, 0, sizeof *r);
  snprintf(r->op, sizeof r->op, "%s", op);
  return r;
}

static int cmp_row(const void *a, const void *b) { return strcmp(((const oprow *)a)->op, ((const oprow *)b)->op); }

int main(int argc, char **argv) {
  bool verbose = false;
  const char *root = "/usr/share/libonnx-testdata/data/node", *filter = NULL;
  int pos = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-v") == 0) verbose = true;
    else if (strcmp(argv[i], "-a") == 0) continue; /* every folder always runs */
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
  int np = 0, nf = 0, ns = 0, nr = 0, rcap = 0;
  oprow *rows = NULL;
  char **failed = calloc((size_t)nn + 1, sizeof *failed);
  static char ops[MAX_OPS][64];
  for (int i = 0; i < nn; i++) {
    char dir[2048], model[2100], msg[1024] = "";
    snprintf(dir, sizeof dir, "%s/%s", root, names[i]);
    snprintf(model, sizeof model, "%s/model.onnx", dir);
    Onnx__ModelProto *m = read_model(model);
    int nops = model_ops(m, ops, MAX_OPS);
    result r = run_forked(dir, verbose, msg, sizeof msg);
    for (char *p; (p = strstr(msg, model));) /* the test's name is on the line already */
      memmove(p, p + strlen(model) + 2 * !strncmp(p + strlen(model), ": ", 2), strlen(p + strlen(model)) + 1 - 2 * !strncmp(p + strlen(model), ": ", 2));
    if (r == R_SKIP) place_refusal(m, msg, sizeof msg);
    if (m) onnx__model_proto__free_unpacked(m, NULL);
    switch (r) {
    case R_PASS: printf("[       OK ] %s: %s\n", names[i], msg), np++; break;
    case R_FAIL: printf("[  FAILED  ] %s: %s\n", names[i], msg), failed[nf++] = names[i]; break;
    case R_SKIP: printf("[  SKIPPED ] %s: %s\n", names[i], msg), ns++; break;
    }
    fflush(stdout);
    if (!nops) snprintf(ops[nops++], 64, "(no readable node)");
    int blamed = -1;
    for (int k = 0; k < nops; k++) {
      oprow *row = row_of(&rows, &nr, &rcap, ops[k]);
      row->tests++;
      *(r == R_PASS ? &row->pass : r == R_SKIP ? &row->skip : &row->fail) += 1;
      char pat[80];
      snprintf(pat, sizeof pat, "(%s)", ops[k]);
      if (r == R_SKIP && blamed < 0 && strstr(msg, pat)) blamed = k, row->blocks++;
    }
  }
  printf("[==========] %d ONNX node test(s) run (of %d folders).\n", np + nf + ns, nn);
  printf("[  PASSED  ] %d test(s).\n", np);
  if (ns) printf("[  SKIPPED ] %d test(s).\n", ns);
  if (nf) {
    printf("[  FAILED  ] %d test(s), listed below:\n", nf);
    for (int i = 0; i < nf; i++) printf("[  FAILED  ] %s\n", failed[i]);
  }
  qsort(rows, (size_t)nr, sizeof *rows, cmp_row);
  printf("\nONNX node tests per operator (a test counts under every operator its model uses; blocks: refusals\n"
         "naming a node of that operator)\n");
  printf("  %-36s %6s %6s %7s %6s %6s\n", "operator", "tests", "passed", "refused", "failed", "blocks");
  for (int i = 0; i < nr; i++)
    printf("  %-36s %6d %6d %7d %6d %6d\n", rows[i].op, rows[i].tests, rows[i].pass, rows[i].skip, rows[i].fail,
           rows[i].blocks);
  printf("%d of %d pass (%d refused, %d failed)\n", np, nn, ns, nf);
  for (int i = 0; i < nn; i++) free(names[i]);
  free(names);
  free(failed);
  free(rows);
  return nf ? 1 : 0;
}
