/* cmd_eval.c: `ovta eval MODEL --images X.npy --labels Y.npy ...`: a classifier compiled twice,
 * fp32 on the CPU path and int8 (calibrated, quantized by the graph passes), both run on the
 * same images; prints top-1 accuracy of each, their agreement, the agreement of fp32 with
 * reference logits, times, and accelerator cycles / MAC utilization when the int8 model runs on
 * a backend that counts cycles.
 *
 * Where a model runs is an `engine` (section 2): the graph executor (ovta_exec) on the CPU path,
 * or in its accelerator mode attached to a device (engine_open_accel: one ovta_exec_build call
 * with accel and backend set; per-step device cycles from ovta_exec_node_stats_get). */
#include "ovta_tool.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "exec.h"

static const char *help =
    "usage: ovta eval MODEL.onnx|MODEL.json --images X.npy --labels Y.npy [options]\n\n"
    "Evaluate a classifier: the model is compiled twice, fp32 on the CPU path and int8 (the\n"
    "passes infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify: symmetric int8 with\n"
    "power-of-two scales, activation ranges calibrated on --calib images), and both run on the\n"
    "first N images one at a time (batch 1). Prints top-1 accuracy of fp32 and int8 against the\n"
    "labels, top-1 agreement of int8 with fp32 (and of fp32 with --reference logits), the largest\n"
    "logit differences, compile and run times, and accelerator cycles and MAC utilization per\n"
    "image when the int8 model runs on a backend that counts cycles.\n\n"
    "The model needs one float input [N,C,H,W] (N symbolic or 1) and one output [N,K] (K classes).\n"
    "Images: uint8 [N,H,W] (one channel) or [N,C,H,W]. Preprocessing (--preprocess):\n"
    "  unit   x = (pixel / 255 - mean) / std   (default; mean 0, std 1: pixels to [0, 1])\n"
    "  none   x = (value - mean) / std        (images float32 already, or uint8 taken as is)\n"
    "Labels: integers [N]; reference logits: float32 [N,K].\n\n"
    "options:\n"
    "  --images FILE.npy     the images (required); or a folder of .png files (taken in name\n"
    "                        order, all one size: uint8 [N,H,W] gray or [N,C,H,W])\n"
    "  --labels FILE.npy     their labels (required)\n"
    "  --reference FILE.npy  reference fp32 logits (e.g. torch's) to check the fp32 path against\n"
    "  --calib FILE.npy      calibration images, same format (default: the first 64 --images)\n"
    "  --calib-count K       use the first K calibration images (default: all, at most 1000)\n"
    "  --count N             evaluate the first N images (default: all)\n"
    "  --backend NAME        where the int8 model runs: cpu (default), fsim, tsim\n"
    "  --config NAME         hardware config of the accelerator backend (default: $OVTA_CONFIG or\n"
    "                        \"default\")\n"
    "  --preprocess MODE     unit (default) or none, see above; --mean M, --std S\n"
    "  --json                print the results as one JSON object instead of text\n"
    "  --quiet               no progress on stderr (else a bar on a terminal, a line per tenth\n"
    "                        of the images otherwise)\n\n"
    "With --backend fsim|tsim (or a board) the int8 model's ovta.QConv / ovta.QDense nodes run on\n"
    "the accelerator through the graph executor (the rest on the CPU path); tsim counts cycles:\n"
    "MAC utilization = MACs of the accelerator nodes / (cycles * BATCH * BLOCK_IN * BLOCK_OUT).\n"
    "A model with no node the accelerator can run is refused, never run on the CPU instead.\n";

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* ---------------------------------------------------------------- 1. Data */

typedef enum prep_mode { PREP_UNIT = 0, PREP_NONE } prep_mode;

typedef struct prep {
  prep_mode mode;
  double mean, std;
} prep;

/* Images from a .npy: [N,H,W] or [N,C,H,W], uint8 (or float32 with --preprocess none). */
typedef struct dataset {
  const char *path;
  ovta_tensor *t;
  int64_t n, c, h, w;
} dataset;

static int images_open(const char *path, const char *opt, const prep *pp, dataset *d, ovta_error *err) {
  memset(d, 0, sizeof *d);
  d->path = path;
  struct stat st; /* a folder: its *.png files sorted by name, stacked (image.c) */
  int rc = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? tool_png_dir_read(path, "images", &d->t, err)
                                                       : ovta_npy_read(path, "images", &d->t, err);
  if (rc) return ovta_error_wrap(err, "%s", opt), rc;
  ovta_tensor *t = d->t;
  char s[128];
  ovta_shape_str(t, s, sizeof s);
  if (t->rank != 3 && t->rank != 4)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s %s: images must be [N,H,W] or [N,C,H,W], not %s %s", opt, path,
                     ovta_dtype_name(t->dtype), s);
  if (t->dtype != OVTA_DT_U8 && !(pp->mode == PREP_NONE && t->dtype == OVTA_DT_F32))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s %s: images must be uint8%s, not %s %s", opt, path,
                     pp->mode == PREP_NONE ? " or float32" : " (float32 needs --preprocess none)",
                     ovta_dtype_name(t->dtype), s);
  d->n = t->shape[0];
  d->c = t->rank == 4 ? t->shape[1] : 1;
  d->h = t->shape[t->rank - 2];
  d->w = t->shape[t->rank - 1];
  if (d->n < 1 || d->c < 1 || d->h < 1 || d->w < 1)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s %s: no images in %s", opt, path, s);
  return 0;
}

static void dataset_free(dataset *d) { ovta_tensor_free(d->t), d->t = NULL; }

/* Image i, preprocessed, into dst (c*h*w floats). unit: pixel / 255 in float32 arithmetic, as
 * numpy's `x.astype(np.float32) / 255` and torchvision's ToTensor compute it. */
static void image_get(const dataset *d, const prep *pp, int64_t i, float *dst) {
  int64_t k = d->c * d->h * d->w, off = i * k;
  bool norm = pp->mean != 0 || pp->std != 1;
  for (int64_t j = 0; j < k; j++) {
    float v = d->t->dtype == OVTA_DT_U8 ? (float)((const uint8_t *)d->t->data)[off + j]
                                        : ((const float *)d->t->data)[off + j];
    if (pp->mode == PREP_UNIT) v = v / 255.0f;
    dst[j] = norm ? (float)(((double)v - pp->mean) / pp->std) : v;
  }
}

/* The largest index of the first max (NaN never wins). */
static int argmax(const float *v, int64_t n) {
  int b = 0;
  for (int64_t i = 1; i < n; i++)
    if (v[i] > v[b]) b = (int)i;
  return b;
}

/* ---------------------------------------------------------------- 2. Engines */

/* What one run of a model on an engine reports besides its output. */
typedef struct run_stats {
  bool has_cycles;     /* the engine counts accelerator cycles */
  uint64_t cycles;     /* accelerator cycles of this run */
  int64_t accel_macs;  /* multiply-accumulates of the nodes that ran on the accelerator */
} run_stats;

/* A compiled model and where it runs: the graph executor on the CPU path, or with its
 * ovta.QConv / ovta.QDense nodes on an accelerator backend. */
typedef struct engine {
  char where[32];                /* "cpu", "fsim", "tsim", ... */
  ovta_exec *exec;               /* the compiled plan */
  int accel_nodes;               /* nodes on the accelerator (0: CPU path only) */
  int64_t peak_macs_per_cycle;   /* accelerator: batch * block_in * block_out (0: none) */
  const ovta_graph *g;           /* the compiled graph (MACs of the accelerator nodes by name) */
} engine;

static int64_t node_macs(const ovta_node *n);

/* g compiled for the CPU path (LLVM). */
static int engine_open_cpu(ovta_graph *g, engine *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  snprintf(out->where, sizeof out->where, "cpu");
  out->g = g;
  return ovta_exec_build(g, NULL, &out->exec, err);
}

/* The int8 graph g (quantized, not yet packed) on accelerator backend `backend` with config cfg:
 * the graph executor with accel on (pack and partition run on a copy; ovta.QConv / ovta.QDense
 * become accelerator kernels, the rest stays on the CPU path), attached to the device. A plan
 * with no node on the accelerator is refused: never CPU numbers reported as accelerator ones. */
static int engine_open_accel(ovta_graph *g, const char *backend, const ovta_config *cfg, engine *out,
                             ovta_error *err) {
  memset(out, 0, sizeof *out);
  snprintf(out->where, sizeof out->where, "%s", backend);
  out->g = g;
  out->peak_macs_per_cycle = (int64_t)cfg->batch * cfg->block_in * cfg->block_out;
  ovta_exec_opts eo;
  ovta_exec_opts_init(&eo);
  eo.accel = true;
  eo.cfg = cfg;
  eo.backend = backend;
  int rc = ovta_exec_build(g, &eo, &out->exec, err);
  if (rc) return ovta_error_wrap(err, "--backend %s", backend), rc;
  out->accel_nodes = ovta_exec_accel_nodes(out->exec);
  if (out->accel_nodes == 0)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED,
                     "--backend %s: no node of the int8 model can run on the accelerator (config %s); use --backend cpu",
                     backend, cfg->name);
  return 0;
}

/* One run: the output, and for accelerator plans the device cycles of the accelerator steps
 * (has_cycles false on fsim, which counts none) and their MACs. */
static int engine_run(engine *en, const char *in_name, const ovta_tensor *x, ovta_tensor **y, run_stats *st,
                      ovta_error *err) {
  memset(st, 0, sizeof *st);
  int rc = ovta_exec_set_input(en->exec, in_name, x, err);
  if (!rc) rc = ovta_exec_run(en->exec, err);
  if (!rc) rc = ovta_exec_get_output(en->exec, 0, y, err);
  for (int i = 0; !rc && en->accel_nodes && i < ovta_exec_num_steps(en->exec); i++) {
    ovta_exec_node_stats ns;
    if ((rc = ovta_exec_node_stats_get(en->exec, i, &ns, err))) break;
    if (!ns.accel) continue;
    st->has_cycles |= ns.has_cycles;
    st->cycles += ns.cycles;
    const ovta_node *n = ovta_graph_node(en->g, ns.node);
    if (n) st->accel_macs += node_macs(n);
  }
  return rc;
}

static void engine_close(engine *e) {
  ovta_exec_free(e->exec);
  e->exec = NULL;
}

/* ---------------------------------------------------------------- 3. Models */

/* The pipeline of the int8 model on the CPU path: the accelerator pipeline without pack and
 * partition (the CPU path runs ovta.QConv / ovta.QDense on plain layouts). */
static const char int8_cpu_pipeline[] = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify";

/* Load the model and check it is a classifier we can feed: one float input [N?,C,H,W] whose
 * batch dim becomes 1, one output. */
static int model_load(const char *path, const dataset *d, ovta_graph **out, ovta_error *err) {
  ovta_graph *g = NULL;
  int rc = ovta_graph_load(path, &g, err);
  if (rc) return rc;
  if (g->n_inputs != 1 || g->n_outputs != 1) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: ovta eval needs a model with one input and one output, not %d and %d",
                   path, g->n_inputs, g->n_outputs);
    goto fail;
  }
  ovta_tensor *in = g->inputs[0];
  char s[128];
  ovta_shape_str(in, s, sizeof s);
  if (in->rank != 4 || (in->dtype != OVTA_DT_F32 && in->dtype != OVTA_DT_UNDEF)) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input '%s' is %s %s; ovta eval needs a float image input [N,C,H,W]",
                   path, in->name, ovta_dtype_name(in->dtype), s);
    goto fail;
  }
  if (in->shape[0] > 1) {
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input '%s' has batch %lld; ovta eval runs batch 1 (N symbolic or 1)",
                   path, in->name, (long long)in->shape[0]);
    goto fail;
  }
  int64_t want[3] = {d->c, d->h, d->w};
  for (int k = 1; k < 4; k++)
    if (in->shape[k] >= 0 && in->shape[k] != want[k - 1]) {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "--images %s: images are %lldx%lldx%lld (CxHxW) but input '%s' of %s is %s",
                     d->path, (long long)d->c, (long long)d->h, (long long)d->w, in->name, path, s);
      goto fail;
    }
  in->dtype = OVTA_DT_F32;
  in->shape[0] = 1;
  for (int k = 1; k < 4; k++) in->shape[k] = want[k - 1];
  *out = g;
  return 0;
fail:
  ovta_graph_free(g);
  return rc;
}

/* Multiply-accumulates of one node (Conv, Gemm, MatMul and the fused ovta.* forms; 0 for
 * others): numel(Y) * reduction length. */
static int64_t node_macs(const ovta_node *n) {
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *y = n->n_outputs ? n->outputs[0] : NULL;
  if (!x || !w || !y) return 0;
  int64_t ny = y->layout == OVTA_LAYOUT_PLAIN ? ovta_tensor_numel(y) : ovta_shape_numel(y->logical, y->logical_rank);
  int64_t red = 0;
  const char *op = n->op;
  if (!strcmp(op, "Conv") || !strcmp(op, "ovta.Conv") || !strcmp(op, "ovta.QConv") || !strcmp(op, "ovta.Dense") ||
      !strcmp(op, "ovta.QDense")) {
    int64_t o = w->layout == OVTA_LAYOUT_PLAIN ? w->shape[0] : w->logical[0];
    int64_t nw = w->layout == OVTA_LAYOUT_PLAIN ? ovta_tensor_numel(w) : ovta_shape_numel(w->logical, w->logical_rank);
    if (o > 0 && nw > 0) red = nw / o;
  } else if (!strcmp(op, "Gemm") && x->rank == 2) {
    red = ovta_node_attr_i(n, "transA", 0) ? x->shape[0] : x->shape[1];
  } else if (!strcmp(op, "MatMul") && x->rank >= 1) {
    red = x->shape[x->rank - 1];
  }
  return ny > 0 && red > 0 ? ny * red : 0;
}

static int64_t graph_macs(const ovta_graph *g) {
  int64_t macs = 0;
  for (int i = 0; i < g->n_nodes; i++) macs += node_macs(g->nodes[i]);
  return macs;
}

static int count_ops(const ovta_graph *g, const char *a, const char *b) {
  int k = 0;
  for (int i = 0; i < g->n_nodes; i++) k += !strcmp(g->nodes[i]->op, a) || !strcmp(g->nodes[i]->op, b);
  return k;
}

/* ---------------------------------------------------------------- 4. The command */

typedef struct opts {
  const char *model, *images, *labels, *reference, *calib, *backend, *config;
  int64_t count, calib_count;
  prep pp;
  bool json, quiet;
} opts;

typedef struct side {
  int64_t correct;
  double compile_s, run_s;
  uint64_t cycles;
  bool has_cycles;
  int64_t accel_macs; /* MACs run on the accelerator, all images */
} side;

static bool parse_double(const char *s, double *out) {
  if (!s || !*s) return false;
  char *end;
  double v = strtod(s, &end);
  if (*end || !isfinite(v)) return false;
  *out = v;
  return true;
}

static int parse_args(int argc, char **argv, opts *o) {
  const char *v;
  memset(o, 0, sizeof *o);
  o->backend = "cpu";
  o->count = -1;
  o->calib_count = -1;
  o->pp.std = 1.0;
  for (int i = 1; i < argc; i++) {
    const char **str = NULL;
    if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    } else if (tool_opt(argc, argv, &i, "--images", &v)) str = &o->images;
    else if (tool_opt(argc, argv, &i, "--labels", &v)) str = &o->labels;
    else if (tool_opt(argc, argv, &i, "--reference", &v)) str = &o->reference;
    else if (tool_opt(argc, argv, &i, "--calib", &v)) str = &o->calib;
    else if (tool_opt(argc, argv, &i, "--backend", &v)) str = &o->backend;
    else if (tool_opt(argc, argv, &i, "--config", &v)) str = &o->config;
    else if (tool_opt(argc, argv, &i, "--count", &v)) {
      if (!v || !tool_number(v, 1, INT64_C(1) << 40, &o->count)) return tool_usage("eval", "--count needs a number >= 1");
      continue;
    } else if (tool_opt(argc, argv, &i, "--calib-count", &v)) {
      if (!v || !tool_number(v, 1, 1000, &o->calib_count)) return tool_usage("eval", "--calib-count needs 1..1000");
      continue;
    } else if (tool_opt(argc, argv, &i, "--preprocess", &v)) {
      if (v && !strcmp(v, "unit")) o->pp.mode = PREP_UNIT;
      else if (v && !strcmp(v, "none")) o->pp.mode = PREP_NONE;
      else return tool_usage("eval", "--preprocess needs unit or none");
      continue;
    } else if (tool_opt(argc, argv, &i, "--mean", &v)) {
      if (!parse_double(v, &o->pp.mean)) return tool_usage("eval", "--mean needs a number");
      continue;
    } else if (tool_opt(argc, argv, &i, "--std", &v)) {
      if (!parse_double(v, &o->pp.std) || o->pp.std == 0) return tool_usage("eval", "--std needs a non-zero number");
      continue;
    } else if (tool_opt(argc, argv, &i, "--json", NULL)) {
      o->json = true;
      continue;
    } else if (tool_opt(argc, argv, &i, "--quiet", NULL)) {
      o->quiet = true;
      continue;
    } else if (argv[i][0] == '-') {
      return tool_usage("eval", "unknown option %s", argv[i]);
    } else if (!o->model) {
      o->model = argv[i];
      continue;
    } else {
      return tool_usage("eval", "more than one model given");
    }
    if (!v || !*v) return tool_usage("eval", "%s needs a value", argv[i][0] == '-' ? argv[i] : argv[i - 1]);
    *str = v;
  }
  if (!o->model) return tool_usage("eval", "no model given");
  if (!o->images) return tool_usage("eval", "no --images given");
  if (!o->labels) return tool_usage("eval", "no --labels given");
  bool known = !strcmp(o->backend, "cpu");
#ifdef OVTA_HAVE_DRIVER
  for (const char *const *b = ovta_backend_names(); *b; b++) known |= !strcmp(*b, o->backend);
#endif
  if (!known) return tool_usage("eval", "unknown backend '%s' (cpu, or a driver backend: fsim, tsim, ...)", o->backend);
  return 0;
}

/* Useful MACs per available MAC slot of the cycles the accelerator steps took. */
static double mac_util(const side *q, const engine *e8) {
  return e8->peak_macs_per_cycle > 0 && q->cycles > 0
             ? (double)q->accel_macs / ((double)q->cycles * (double)e8->peak_macs_per_cycle)
             : 0;
}

static void print_text(const opts *o, const char *cfg_name, const ovta_graph *g8, int64_t n, int64_t n_calib,
                       const char *calib_from, int64_t macs, int nq, int nqable, const side *f, const side *q,
                       int64_t agree, double maxd_q, const int64_t *ref_agree, double maxd_ref,
                       const engine *e8, double wall) {
  const ovta_tensor *in = g8->inputs[0];
  char s[64];
  ovta_shape_str(in, s, sizeof s);
  printf("ovta eval %s: %lld images of %s (%s), labels %s\n", o->model, (long long)n, o->images,
         o->pp.mode == PREP_UNIT ? "pixels / 255" : "values as given", o->labels);
  printf("  model         input %s [%s] f32, %.3f MMAC per image\n", in->name, s, (double)macs / 1e6);
  printf("  int8          %d of %d conv/dense layers int8, calibrated on %lld images of %s\n", nq, nqable,
         (long long)n_calib, calib_from);
  printf("  fp32 top-1    %6.2f%%  (%lld/%lld correct)\n", 100.0 * (double)f->correct / (double)n,
         (long long)f->correct, (long long)n);
  printf("  int8 top-1    %6.2f%%  (%lld/%lld correct, %+.2f points vs fp32)\n", 100.0 * (double)q->correct / (double)n,
         (long long)q->correct, (long long)n, 100.0 * (double)(q->correct - f->correct) / (double)n);
  printf("  int8 vs fp32  %6.2f%%  top-1 agreement (%lld/%lld), max |logit difference| %.4g\n",
         100.0 * (double)agree / (double)n, (long long)agree, (long long)n, maxd_q);
  if (ref_agree)
    printf("  fp32 vs ref   %6.2f%%  top-1 agreement (%lld/%lld), max |logit difference| %.3g (%s)\n",
           100.0 * (double)*ref_agree / (double)n, (long long)*ref_agree, (long long)n, maxd_ref, base_name(o->reference));
  printf("  time          fp32: compile %.2f s, %.3f ms/image; int8 (%s): compile+calibrate %.2f s, %.3f ms/image; "
         "total %.2f s\n",
         f->compile_s, 1e3 * f->run_s / (double)n, e8->where, q->compile_s, 1e3 * q->run_s / (double)n, wall);
  if (q->has_cycles) {
    printf("  accelerator   %s (%s): %d nodes, %.0f cycles/image, MAC utilization %.2f%% (%.3f MMAC/image on it)\n",
           e8->where, cfg_name, e8->accel_nodes, (double)q->cycles / (double)n, 100 * mac_util(q, e8),
           (double)q->accel_macs / (double)n / 1e6);
  } else if (e8->accel_nodes) {
    printf("  accelerator   %s (%s): %d nodes (%.3f MMAC/image); %s counts no cycles (tsim does)\n", e8->where, cfg_name,
           e8->accel_nodes, (double)q->accel_macs / (double)n / 1e6, e8->where);
  } else {
    printf("  accelerator   none: the int8 model ran on the CPU path (no cycle counts)\n");
  }
}

static int print_json(const opts *o, int64_t n, int64_t n_calib, const char *calib_from, int64_t macs, int nq,
                      int nqable, const side *f, const side *q, int64_t agree, double maxd_q, const int64_t *ref_agree,
                      double maxd_ref, const engine *e8, double wall, const char *cfg_name) {
  cJSON *r = cJSON_CreateObject();
  if (!r) return tool_fail("out of memory");
  cJSON_AddStringToObject(r, "model", o->model);
  cJSON_AddStringToObject(r, "images", o->images);
  cJSON_AddStringToObject(r, "labels", o->labels);
  if (o->reference) cJSON_AddStringToObject(r, "reference", o->reference);
  else cJSON_AddNullToObject(r, "reference");
  cJSON_AddNumberToObject(r, "count", (double)n);
  cJSON_AddStringToObject(r, "preprocess", o->pp.mode == PREP_UNIT ? "unit" : "none");
  cJSON_AddStringToObject(r, "backend", o->backend);
  cJSON_AddStringToObject(r, "config", cfg_name);
  cJSON_AddNumberToObject(r, "macs_per_image", (double)macs);
  const side *sides[2] = {f, q};
  const char *names[2] = {"fp32", "int8"};
  for (int k = 0; k < 2; k++) {
    cJSON *s = cJSON_AddObjectToObject(r, names[k]);
    if (!s) break;
    cJSON_AddStringToObject(s, "where", k ? e8->where : "cpu");
    cJSON_AddNumberToObject(s, "correct", (double)sides[k]->correct);
    cJSON_AddNumberToObject(s, "top1", (double)sides[k]->correct / (double)n);
    cJSON_AddNumberToObject(s, "compile_s", sides[k]->compile_s);
    cJSON_AddNumberToObject(s, "run_s", sides[k]->run_s);
    cJSON_AddNumberToObject(s, "ms_per_image", 1e3 * sides[k]->run_s / (double)n);
    if (k == 1) {
      cJSON_AddNumberToObject(s, "quantized_layers", nq);
      cJSON_AddNumberToObject(s, "quantizable_layers", nqable);
      cJSON_AddStringToObject(s, "calib", calib_from);
      cJSON_AddNumberToObject(s, "calib_count", (double)n_calib);
      cJSON_AddNumberToObject(s, "accel_nodes", e8->accel_nodes);
      cJSON_AddNumberToObject(s, "accel_macs_per_image", (double)q->accel_macs / (double)n);
      if (q->has_cycles) {
        cJSON_AddNumberToObject(s, "cycles_per_image", (double)q->cycles / (double)n);
        cJSON_AddNumberToObject(s, "mac_utilization", mac_util(q, e8));
      } else {
        cJSON_AddNullToObject(s, "cycles_per_image");
        cJSON_AddNullToObject(s, "mac_utilization");
      }
    }
  }
  cJSON *a = cJSON_AddObjectToObject(r, "int8_vs_fp32");
  if (a) {
    cJSON_AddNumberToObject(a, "agree", (double)agree);
    cJSON_AddNumberToObject(a, "agreement", (double)agree / (double)n);
    cJSON_AddNumberToObject(a, "max_abs_diff", maxd_q);
  }
  if (ref_agree) {
    cJSON *b = cJSON_AddObjectToObject(r, "fp32_vs_reference");
    if (b) {
      cJSON_AddNumberToObject(b, "agree", (double)*ref_agree);
      cJSON_AddNumberToObject(b, "agreement", (double)*ref_agree / (double)n);
      cJSON_AddNumberToObject(b, "max_abs_diff", maxd_ref);
    }
  } else {
    cJSON_AddNullToObject(r, "fp32_vs_reference");
  }
  cJSON_AddNumberToObject(r, "wall_s", wall);
  char *txt = cJSON_Print(r);
  cJSON_Delete(r);
  if (!txt) return tool_fail("out of memory");
  printf("%s\n", txt);
  free(txt);
  return 0;
}

int ovta_cmd_eval(int argc, char **argv) {
  opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  double t_start = now_s();
  ovta_error err = {0};
  dataset imgs = {0}, cal = {0};
  ovta_tensor *labels = NULL, *ref = NULL, *x = NULL;
  ovta_tensor **calib_vals = NULL;
  ovta_tensor *const **calib_ptrs = NULL;
  ovta_graph *g = NULL, *g32 = NULL, *g8 = NULL;
  engine e32 = {0}, e8 = {0};
  side f = {0}, q = {0};
  int64_t n = 0, n_calib = 0, k_cls = 0, agree = 0, ref_agree = 0;
  double maxd_q = 0, maxd_ref = 0;
  char calib_from[512];
  tool_progress prog = {0};
  ovta_config cfg;
  const char *cfg_name = tool_config_name(o.config);

  /* data */
  if ((rc = ovta_config_load(cfg_name, &cfg, &err))) goto out;
  if ((rc = images_open(o.images, "--images", &o.pp, &imgs, &err))) goto out;
  n = o.count > 0 ? o.count : imgs.n;
  if (n > imgs.n) {
    rc = OVTA_FAIL(&err, OVTA_EINVAL, "--count %lld: %s holds %lld images", (long long)n, o.images, (long long)imgs.n);
    goto out;
  }
  if ((rc = ovta_npy_read(o.labels, "labels", &labels, &err))) {
    ovta_error_wrap(&err, "--labels");
    goto out;
  }
  {
    char s[128];
    ovta_shape_str(labels, s, sizeof s);
    bool intty = labels->dtype == OVTA_DT_U8 || labels->dtype == OVTA_DT_I8 || labels->dtype == OVTA_DT_I16 ||
                 labels->dtype == OVTA_DT_U16 || labels->dtype == OVTA_DT_I32 || labels->dtype == OVTA_DT_I64 ||
                 labels->dtype == OVTA_DT_U32 || labels->dtype == OVTA_DT_U64;
    if (!intty || labels->rank != 1 || labels->shape[0] < n) {
      rc = OVTA_FAIL(&err, OVTA_EINVAL, "--labels %s: labels must be integers [N] with N >= %lld, not %s %s", o.labels,
                     (long long)n, ovta_dtype_name(labels->dtype), s);
      goto out;
    }
  }
  if (o.calib) {
    if ((rc = images_open(o.calib, "--calib", &o.pp, &cal, &err))) goto out;
    if (cal.c != imgs.c || cal.h != imgs.h || cal.w != imgs.w) {
      rc = OVTA_FAIL(&err, OVTA_EINVAL, "--calib %s: calibration images are %lldx%lldx%lld but --images are %lldx%lldx%lld",
                     o.calib, (long long)cal.c, (long long)cal.h, (long long)cal.w, (long long)imgs.c,
                     (long long)imgs.h, (long long)imgs.w);
      goto out;
    }
    n_calib = cal.n < 1000 ? cal.n : 1000;
    snprintf(calib_from, sizeof calib_from, "%s", o.calib);
  } else {
    n_calib = imgs.n < 64 ? imgs.n : 64;
    snprintf(calib_from, sizeof calib_from, "%s (no --calib)", o.images);
  }
  if (o.calib_count > 0) {
    if (o.calib_count > (o.calib ? cal.n : imgs.n)) {
      rc = OVTA_FAIL(&err, OVTA_EINVAL, "--calib-count %lld: %s holds %lld images", (long long)o.calib_count,
                     o.calib ? o.calib : o.images, (long long)(o.calib ? cal.n : imgs.n));
      goto out;
    }
    n_calib = o.calib_count;
  }

  /* the model, then its classes and the reference logits */
  if ((rc = model_load(o.model, &imgs, &g, &err))) goto out;
  if ((rc = ovta_infer_graph(g, &err))) goto out;
  {
    ovta_tensor *y = g->outputs[0];
    char s[128];
    ovta_shape_str(y, s, sizeof s);
    if (y->dtype != OVTA_DT_F32 || y->rank != 2 || y->shape[0] != 1 || y->shape[1] < 1) {
      rc = OVTA_FAIL(&err, OVTA_EUNSUPPORTED, "%s: output '%s' is %s %s; ovta eval needs float logits [N,K]", o.model,
                     y->name, ovta_dtype_name(y->dtype), s);
      goto out;
    }
    k_cls = y->shape[1];
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t l = ovta_tensor_get_i(labels, i);
    if (l < 0 || l >= k_cls) {
      rc = OVTA_FAIL(&err, OVTA_EINVAL, "--labels %s: label %lld of image %lld is outside the model's %lld classes",
                     o.labels, (long long)l, (long long)i, (long long)k_cls);
      goto out;
    }
  }
  if (o.reference) {
    if ((rc = ovta_npy_read(o.reference, "reference", &ref, &err))) {
      ovta_error_wrap(&err, "--reference");
      goto out;
    }
    char s[128];
    ovta_shape_str(ref, s, sizeof s);
    if (ref->dtype != OVTA_DT_F32 || ref->rank != 2 || ref->shape[0] < n || ref->shape[1] != k_cls) {
      rc = OVTA_FAIL(&err, OVTA_EINVAL, "--reference %s: logits must be float32 [N,%lld] with N >= %lld, not %s %s",
                     o.reference, (long long)k_cls, (long long)n, ovta_dtype_name(ref->dtype), s);
      goto out;
    }
  }
  int64_t shape[4] = {1, imgs.c, imgs.h, imgs.w};
  const char *in_name = g->inputs[0]->name;

  /* int8: calibrate, quantize, compile (the accelerator hook refuses here, before the long run) */
  double t0 = now_s();
  {
    g8 = ovta_graph_clone(g);
    calib_vals = calloc((size_t)n_calib, sizeof *calib_vals);
    calib_ptrs = calloc((size_t)n_calib, sizeof *calib_ptrs);
    if (!g8 || !calib_vals || !calib_ptrs) {
      rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
      goto out;
    }
    const dataset *cd = o.calib ? &cal : &imgs;
    for (int64_t s = 0; s < n_calib; s++) {
      ovta_tensor *t = ovta_tensor_new(in_name, OVTA_DT_F32, 4, shape);
      if (!t || (rc = ovta_tensor_alloc(t, &err))) {
        ovta_tensor_free(t);
        rc = rc ? rc : OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
        goto out;
      }
      image_get(cd, &o.pp, s, t->data);
      calib_vals[s] = t;
      calib_ptrs[s] = &calib_vals[s];
    }
    ovta_compile_opts co = {0};
    co.cfg = &cfg;
    co.passes = int8_cpu_pipeline;
    co.n_calib = (int)n_calib;
    co.calib = calib_ptrs;
    if ((rc = ovta_compile_pipeline(g8, &co, &err))) goto out;
    if (strcmp(o.backend, "cpu")) rc = engine_open_accel(g8, o.backend, &cfg, &e8, &err);
    else rc = engine_open_cpu(g8, &e8, &err);
    if (rc) goto out;
  }
  q.compile_s = now_s() - t0;

  /* fp32 */
  t0 = now_s();
  g32 = ovta_graph_clone(g);
  if (!g32) {
    rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
    goto out;
  }
  {
    ovta_compile_opts co = {0};
    co.cfg = &cfg;
    co.passes = ovta_default_pipeline;
    if ((rc = ovta_compile_pipeline(g32, &co, &err))) goto out;
    if ((rc = engine_open_cpu(g32, &e32, &err))) goto out;
  }
  f.compile_s = now_s() - t0;
  int64_t macs = graph_macs(g32);
  int nq = count_ops(g8, "ovta.QConv", "ovta.QDense"), nqable = count_ops(g32, "ovta.Conv", "ovta.Dense");

  /* the run: every image through both models */
  x = ovta_tensor_new(in_name, OVTA_DT_F32, 4, shape);
  if (!x || (rc = ovta_tensor_alloc(x, &err))) {
    rc = rc ? rc : OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
    goto out;
  }
  tool_progress_start(&prog, "ovta eval", n, o.quiet);
  for (int64_t i = 0; i < n; i++) {
    image_get(&imgs, &o.pp, i, x->data);
    ovta_tensor *y32 = NULL, *y8 = NULL;
    run_stats st32 = {0}, st8 = {0};
    double a = now_s();
    rc = engine_run(&e32, in_name, x, &y32, &st32, &err);
    double b = now_s();
    if (!rc) rc = engine_run(&e8, in_name, x, &y8, &st8, &err);
    double c = now_s();
    if (!rc && (ovta_tensor_numel(y32) != k_cls || ovta_tensor_numel(y8) != k_cls || y32->dtype != OVTA_DT_F32 ||
                y8->dtype != OVTA_DT_F32))
      rc = OVTA_FAIL(&err, OVTA_EINTERNAL, "image %lld: an output is not %lld float logits", (long long)i,
                     (long long)k_cls);
    if (rc) {
      ovta_tensor_free(y32), ovta_tensor_free(y8);
      ovta_error_wrap(&err, "image %lld", (long long)i);
      goto out;
    }
    f.run_s += b - a;
    q.run_s += c - b;
    if (st8.has_cycles) q.has_cycles = true, q.cycles += st8.cycles;
    q.accel_macs += st8.accel_macs;
    const float *l32 = y32->data, *l8 = y8->data;
    int p32 = argmax(l32, k_cls), p8 = argmax(l8, k_cls);
    int64_t lab = ovta_tensor_get_i(labels, i);
    f.correct += p32 == lab;
    q.correct += p8 == lab;
    agree += p32 == p8;
    for (int64_t k = 0; k < k_cls; k++) maxd_q = fmax(maxd_q, fabs((double)l8[k] - (double)l32[k]));
    if (ref) {
      const float *lr = (const float *)ref->data + i * k_cls;
      ref_agree += argmax(lr, k_cls) == p32;
      for (int64_t k = 0; k < k_cls; k++) maxd_ref = fmax(maxd_ref, fabs((double)lr[k] - (double)l32[k]));
    }
    ovta_tensor_free(y32), ovta_tensor_free(y8);
    char extra[96];
    snprintf(extra, sizeof extra, "fp32 %.1f%% int8 %.1f%%", 100.0 * (double)f.correct / (double)(i + 1),
             100.0 * (double)q.correct / (double)(i + 1));
    tool_progress_update(&prog, i + 1, extra);
  }
  tool_progress_finish(&prog);
  double wall = now_s() - t_start;
  if (o.json)
    rc = print_json(&o, n, n_calib, calib_from, macs, nq, nqable, &f, &q, agree, maxd_q, ref ? &ref_agree : NULL,
                    maxd_ref, &e8, wall, cfg.name);
  else
    print_text(&o, cfg.name, g8, n, n_calib, calib_from, macs, nq, nqable, &f, &q, agree, maxd_q,
               ref ? &ref_agree : NULL, maxd_ref, &e8, wall);
out:
  tool_progress_finish(&prog);
  if (rc && err.code) tool_error(&err, NULL);
  engine_close(&e32);
  engine_close(&e8);
  for (int64_t s = 0; calib_vals && s < n_calib; s++) ovta_tensor_free(calib_vals[s]);
  free(calib_vals);
  free(calib_ptrs);
  ovta_tensor_free(x);
  ovta_tensor_free(labels);
  ovta_tensor_free(ref);
  dataset_free(&imgs);
  dataset_free(&cal);
  ovta_graph_free(g);
  ovta_graph_free(g32);
  ovta_graph_free(g8);
  return rc ? 1 : 0;
}
