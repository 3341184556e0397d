/* check.c: the checks one random graph goes through (tools/ovta-randgraph/README.md, "Checks").
 *
 * Rule, in order, the first failure ends the case:
 *   1. the JSON reads (RG_PARSE); written as ONNX and read back it dumps identically (RG_ONNX);
 *   2. the reference evaluator (graph layer, double math) runs it on x (RG_REF);
 *   3. fp32 on the CPU path (LLVM -O opt_level) runs (RG_FP32) and is within tolerance of the
 *      reference (RG_FP32_REF) and, when asked, of onnxruntime (RG_ORT): every element
 *      |a - b| <= 1e-4 * (max |b| + |b|), no NaN;
 *   4. calibrated on 4 samples (the first is x) with the accelerator pipeline minus pack and
 *      partition (RG_QUANT), the int8 graph runs on the CPU path (RG_INT8_CPU) and compiled for
 *      the accelerator (vt 1 or 2 by seed) on fsim (RG_ACCEL), the two outputs equal byte for byte
 *      (RG_ACCEL_EQ); the same on tsim when asked (RG_TSIM, RG_TSIM_EQ). */
#include "randgraph.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "ovta_isa.h"

#define RG_TOL 1e-4
#define RG_NCAL 4
/* ovta_accel_pipeline without pack and partition: the int8 graph both paths run */
static const char int8_pipeline[] = "infer,fold,dce,convt,fold-bn,fuse,split-groups,im2col,s2d,infer,fold,dce,quantize,verify";

const char *rg_stage_name(rg_stage s) {
  static const char *names[RG_NSTAGES] = {"ok",         "parse",  "onnx-roundtrip", "ref-eval", "fp32-build-run",
                                          "fp32-vs-ref", "fp32-vs-ort", "quantize",   "int8-cpu", "accel-fsim",
                                          "accel-vs-cpu", "tsim",  "tsim-vs-cpu",    "crash"};
  return s >= 0 && s < RG_NSTAGES ? names[s] : "?";
}

static int fail(rg_result *r, rg_stage s, const ovta_error *err, const char *what) {
  r->stage = s;
  snprintf(r->msg, sizeof r->msg, "%s%s%s", what, err && err->code ? ": " : "", err && err->code ? err->msg : "");
  return 1;
}

/* Inputs of the case: x [1,C,H,W] and calibration [RG_NCAL,C,H,W] (sample 0 = x), uniform in +-1. */
int rg_inputs(const rg_case *c, ovta_tensor **x, ovta_tensor **cal) {
  uint64_t s = c->rng;
  int64_t cs[5] = {RG_NCAL, c->x_shape[1], c->x_shape[2], c->x_shape[3]};
  ovta_error err = {0};
  *x = ovta_tensor_new("x", OVTA_DT_F32, 4, c->x_shape);
  *cal = ovta_tensor_new("calib", OVTA_DT_F32, 4, cs);
  if (!*x || !*cal || ovta_tensor_alloc(*x, &err) || ovta_tensor_alloc(*cal, &err)) return -1;
  int64_t n = ovta_tensor_numel(*x);
  float *xd = (*x)->data, *cd = (*cal)->data;
  for (int64_t i = 0; i < n * RG_NCAL; i++) cd[i] = rg_uniform(&s, 1.0f);
  memcpy(xd, cd, (size_t)n * sizeof *xd);
  return 0;
}

/* |a - b| <= tol * (max |b| + |b|) everywhere; *rel: max |a - b| / max |b|. 0 when it holds. */
static int close_f32(const ovta_tensor *a, const ovta_tensor *b, double *rel, char *why, size_t nwhy) {
  int64_t n = ovta_tensor_numel(b);
  if (a->dtype != OVTA_DT_F32 || b->dtype != OVTA_DT_F32 || ovta_tensor_numel(a) != n || a->rank != b->rank) {
    char sa[128], sb[128];
    ovta_shape_str(a, sa, sizeof sa), ovta_shape_str(b, sb, sizeof sb);
    snprintf(why, nwhy, "shapes differ: %s vs %s", sa, sb);
    return 1;
  }
  const float *pa = a->data, *pb = b->data;
  double mx = 0, md = 0;
  int64_t worst = 0;
  for (int64_t i = 0; i < n; i++) mx = fmax(mx, fabs(pb[i]));
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)pa[i] - pb[i]);
    if (isnan(pa[i]) || isnan(pb[i])) d = INFINITY;
    if (d > md) md = d, worst = i;
  }
  *rel = mx > 0 ? md / mx : md;
  for (int64_t i = 0; i < n; i++) {
    double d = fabs((double)pa[i] - pb[i]);
    if (!(d <= RG_TOL * (mx + fabs(pb[i])))) {
      snprintf(why, nwhy, "element %lld: %.9g vs %.9g (max |ref| %.6g; worst element %lld off by %.3g)", (long long)i, pa[i], pb[i], mx,
               (long long)worst, md);
      return 1;
    }
  }
  return 0;
}

static int same_bytes(const ovta_tensor *a, const ovta_tensor *b, char *why, size_t nwhy) {
  if (a->dtype != b->dtype || a->nbytes != b->nbytes || a->rank != b->rank) {
    snprintf(why, nwhy, "dtype/shape differ (%zu vs %zu bytes)", a->nbytes, b->nbytes);
    return 1;
  }
  if (!memcmp(a->data, b->data, a->nbytes)) return 0;
  int64_t n = ovta_tensor_numel(a), nd = 0, first = -1;
  for (int64_t i = 0; i < n; i++)
    if (ovta_tensor_get_f(a, i) != ovta_tensor_get_f(b, i)) nd++, first = first < 0 ? i : first;
  snprintf(why, nwhy, "%lld of %lld elements differ, first %lld: %.9g vs %.9g", (long long)nd, (long long)n, (long long)first,
           ovta_tensor_get_f(a, first < 0 ? 0 : first), ovta_tensor_get_f(b, first < 0 ? 0 : first));
  return 1;
}

#define RG_MAX_OUT 4
/* Outputs of one run (up to RG_MAX_OUT). */
typedef struct outs {
  int n;                      /* outputs */
  ovta_tensor *y[RG_MAX_OUT]; /* their values */
} outs;

static void outs_free(outs *o) {
  for (int i = 0; i < o->n; i++) ovta_tensor_free(o->y[i]);
  o->n = 0;
}

/* Build g with o, run it on x: *y every output. */
static int build_run(ovta_graph *g, const ovta_exec_opts *o, const ovta_tensor *x, outs *y, int *accel, ovta_error *err) {
  ovta_exec *e = NULL;
  memset(y, 0, sizeof *y);
  int rc = ovta_exec_build(g, o, &e, err);
  if (!rc) rc = ovta_exec_set_input(e, "x", x, err);
  if (!rc) rc = ovta_exec_run(e, err);
  int n = rc ? 0 : ovta_exec_num_outputs(e);
  for (int i = 0; !rc && i < n && i < RG_MAX_OUT; i++)
    if (!(rc = ovta_exec_get_output(e, i, &y->y[i], err))) y->n++;
  if (!rc && accel) *accel = ovta_exec_accel_nodes(e);
  ovta_exec_free(e);
  return rc;
}

/* close_f32 over every output: 0 when all hold; *rel the largest. */
static int close_all(const outs *a, const outs *b, double *rel, char *why, size_t nwhy) {
  if (a->n != b->n) return snprintf(why, nwhy, "%d outputs vs %d", a->n, b->n), 1;
  for (int i = 0; i < a->n; i++) {
    double r = 0;
    char w[400];
    int bad = close_f32(a->y[i], b->y[i], &r, w, sizeof w);
    if (r > *rel) *rel = r;
    if (bad) return snprintf(why, nwhy, "output %d: %s", i, w), 1;
  }
  return 0;
}

static int same_all(const outs *a, const outs *b, char *why, size_t nwhy) {
  if (a->n != b->n) return snprintf(why, nwhy, "%d outputs vs %d", a->n, b->n), 1;
  for (int i = 0; i < a->n; i++) {
    char w[400];
    if (same_bytes(a->y[i], b->y[i], w, sizeof w)) return snprintf(why, nwhy, "output %d: %s", i, w), 1;
  }
  return 0;
}

/* The ONNX form read back dumps like g (both inferred). */
static int onnx_roundtrip(const ovta_graph *g, rg_result *r) {
  ovta_error err = {0};
  void *data = NULL;
  size_t len = 0;
  ovta_graph *h = NULL;
  int rc = ovta_onnx_write_mem(g, &data, &len, &err);
  if (!rc) rc = ovta_onnx_load_mem(data, len, "randgraph.onnx", &h, &err);
  if (!rc) rc = ovta_infer_graph(h, &err);
  free(data);
  if (rc) {
    ovta_graph_free(h);
    return fail(r, RG_ONNX, &err, "ONNX write / read back");
  }
  char *a = ovta_graph_dump_str(g), *b = ovta_graph_dump_str(h);
  int bad = !a || !b || strcmp(a, b);
  if (bad) fail(r, RG_ONNX, NULL, "the ONNX form read back dumps differently");
  free(a), free(b);
  ovta_graph_free(h);
  return bad;
}

/* onnxruntime on g (fp32): model.onnx and x.npy in o->workdir, ort-run.js writes OUT.npy. */
static int ort_check(const ovta_graph *g, const ovta_tensor *x, const outs *yf, const rg_opts *o, rg_result *r) {
  ovta_error err = {0};
  char model[1024], xp[1024], cmd[4096], outp[1200];
  snprintf(model, sizeof model, "%s/model.onnx", o->workdir);
  snprintf(xp, sizeof xp, "%s/x.npy", o->workdir);
  if (ovta_onnx_save(g, model, &err) || ovta_npy_write(xp, x, &err)) return fail(r, RG_ORT, &err, "writing the ort inputs");
  snprintf(cmd, sizeof cmd, "node '%s' run '%s' '%s/ort' x='%s' >'%s/ort.log' 2>&1", o->ort_js, model, o->workdir, xp, o->workdir);
  if (system(cmd)) { /* the log's last line (the ort-run error) into the message */
    char log[1100], line[400] = "", last[400] = "";
    snprintf(log, sizeof log, "%s/ort.log", o->workdir);
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f)) snprintf(last, sizeof last, "%s", line);
    if (f) fclose(f);
    last[strcspn(last, "\n")] = 0;
    snprintf(r->msg, sizeof r->msg, "onnxruntime failed: %s", last);
    r->stage = RG_ORT;
    return 1;
  }
  outs yo = {0};
  for (int i = 0; i < g->n_outputs && i < RG_MAX_OUT; i++, yo.n++) {
    snprintf(outp, sizeof outp, "%s/ort/%s.npy", o->workdir, g->outputs[i]->name);
    if (ovta_npy_read(outp, "ort", &yo.y[i], &err)) {
      outs_free(&yo);
      return fail(r, RG_ORT, &err, "reading the ort output");
    }
  }
  char why[600];
  int bad = close_all(yf, &yo, &r->max_rel_ort, why, sizeof why);
  if (bad) fail(r, RG_ORT, NULL, why);
  r->ort_done = true;
  outs_free(&yo);
  return bad;
}

/* max |a - b| / max |b| over every output (int8 against fp32) */
static double rel_err(const outs *a, const outs *b) {
  double md = 0, mx = 0;
  for (int i = 0; i < a->n && i < b->n; i++) {
    int64_t n = ovta_tensor_numel(b->y[i]);
    if (ovta_tensor_numel(a->y[i]) != n) return INFINITY;
    for (int64_t k = 0; k < n; k++) {
      double u = ovta_tensor_get_f(a->y[i], k), v = ovta_tensor_get_f(b->y[i], k);
      md = fmax(md, fabs(u - v)), mx = fmax(mx, fabs(v));
    }
  }
  return mx > 0 ? md / mx : md;
}

static int int8_checks(uint64_t seed, ovta_graph *g, const ovta_tensor *x, const ovta_tensor *cal, const outs *yf,
                       const rg_opts *o, rg_result *r) {
  ovta_error err = {0};
  ovta_config cfg;
  if (ovta_config_load(o->config, &cfg, &err)) return fail(r, RG_QUANT, &err, "config");
  ovta_graph *q = ovta_graph_clone(g);
  ovta_calib_opts co = {.samples = cal, .count = RG_NCAL, .passes = int8_pipeline, .cfg = &cfg};
  if (!q || ovta_calibrate_quantize(q, &co, NULL, &err)) {
    ovta_graph_free(q);
    return fail(r, RG_QUANT, &err, "calibrate and quantize");
  }
  for (int i = 0; i < q->n_nodes; i++) r->qnodes += !strcmp(q->nodes[i]->op, "ovta.QConv") || !strcmp(q->nodes[i]->op, "ovta.QDense");
  ovta_exec_opts eo;
  ovta_exec_opts_init(&eo);
  eo.cg.opt_level = o->opt_level;
  outs yc = {0}, ya = {0}, yt = {0};
  char why[600];
  int bad = 0;
  if (build_run(q, &eo, x, &yc, NULL, &err)) bad = fail(r, RG_INT8_CPU, &err, "int8 on the CPU path");
  else r->int8_err = rel_err(&yc, yf);
  eo.accel = true, eo.cfg = &cfg, eo.vthreads = 1 + (int)(seed % 2), eo.backend = "fsim";
  if (!bad && build_run(q, &eo, x, &ya, &r->accel_nodes, &err)) bad = fail(r, RG_ACCEL, &err, "int8 with the accelerator on fsim");
  if (!bad && o->inject_fault && ya.n && ya.y[0]->nbytes) ((unsigned char *)ya.y[0]->data)[ya.y[0]->nbytes / 2] ^= 1;
  if (!bad && same_all(&ya, &yc, why, sizeof why)) bad = fail(r, RG_ACCEL_EQ, NULL, why);
  if (!bad && o->tsim) {
    eo.backend = "tsim";
    if (build_run(q, &eo, x, &yt, NULL, &err)) bad = fail(r, RG_TSIM, &err, "int8 with the accelerator on tsim");
    else if (same_all(&yt, &yc, why, sizeof why)) bad = fail(r, RG_TSIM_EQ, NULL, why);
    else r->tsim_done = true;
  }
  outs_free(&yc), outs_free(&ya), outs_free(&yt);
  ovta_graph_free(q);
  return bad;
}

void rg_check(uint64_t seed, const rg_case *c, const rg_opts *o, rg_result *r) {
  memset(r, 0, sizeof *r);
  ovta_error err = {0};
  ovta_graph *g = NULL;
  ovta_tensor *x = NULL, *cal = NULL;
  outs yr = {0}, yf = {0};
  char why[600];
  if (ovta_graph_from_json(c->json, "randgraph.json", &g, &err) || ovta_infer_graph(g, &err)) fail(r, RG_PARSE, &err, "graph");
  else if (onnx_roundtrip(g, r)) {
  } else if (rg_inputs(c, &x, &cal)) fail(r, RG_PARSE, NULL, "inputs: out of memory");
  else if (g->n_outputs > RG_MAX_OUT) fail(r, RG_PARSE, NULL, "too many outputs");
  else if (ovta_graph_run(g, NULL, NULL, &x, NULL, NULL, yr.y, &err)) fail(r, RG_REF, &err, "reference evaluator");
  else {
    yr.n = g->n_outputs;
    ovta_exec_opts eo;
    ovta_exec_opts_init(&eo);
    eo.cg.opt_level = o->opt_level;
    if (build_run(g, &eo, x, &yf, NULL, &err)) fail(r, RG_FP32, &err, "fp32 on the CPU path");
    else if (close_all(&yf, &yr, &r->max_rel_ref, why, sizeof why)) fail(r, RG_FP32_REF, NULL, why);
    else if (o->ort_js && ort_check(g, x, &yf, o, r)) {
    } else int8_checks(seed, g, x, cal, &yf, o, r);
  }
  ovta_tensor_free(x), ovta_tensor_free(cal);
  outs_free(&yr), outs_free(&yf);
  ovta_graph_free(g);
}
