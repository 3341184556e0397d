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
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    "  --threads N           threads of the CPU kernels (default: every core; same results)\n"
    "  --backend NAME        where the int8 model runs: cpu (default), fsim, tsim\n"
    "  --config NAME         hardware config of the accelerator backend (default: $OVTA_CONFIG or\n"
    "                        \"default\")\n"
    "  --tuning FILE.json    tiling knobs per accelerator node (as ovta compile; ovta tune writes it)\n"
    "  --preprocess MODE     unit (default) or none, see above; --mean M, --std S\n"
    "  --json                print the results as one JSON object instead of text\n"
    "  --quiet               no progress on stderr (else a bar on a terminal, a line per tenth\n"
    "                        of the images otherwise)\n"
    TOOL_REMOTE_HELP
    "                        (the int8 model, compiled here, runs there on --backend; fp32 here)\n"
    "  --triple T, --mcpu C  with --remote: compile the int8 model for the server's machine (as\n"
    "                        ovta compile; e.g. aarch64-linux-gnu and cortex-a53 for a board)\n\n"
    "With --backend fsim|tsim (or a board) the int8 model's ovta.QConv / ovta.QDense nodes run on\n"
    "the accelerator through the graph executor (the rest on the CPU path); tsim counts cycles:\n"
    "MAC utilization = MACs of the accelerator nodes / (cycles * BATCH * BLOCK_IN * BLOCK_OUT).\n"
    "A model with no node the accelerator can run is refused, never run on the CPU instead.\n";

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* ---------------------------------------------------------------- 1. Data */

typedef enum prep_mode { PREP_UNIT = 0, PREP_NONE } prep_mode;

/* How image values become model inputs (--preprocess, --mean, --std). */
typedef struct prep {
  prep_mode mode;      /* unit: pixel / 255 first; none: values as they are */
  double mean, std;    /* then (x - mean) / std */
} prep;

/* Images from a .npy: [N,H,W] or [N,C,H,W], uint8 (or float32 with --preprocess none). */
typedef struct dataset {
  const char *path;    /* the file or folder */
  ovta_tensor *t;      /* the images as read */
  int64_t n, c, h, w;  /* images, channels, height, width */
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
  ovta_remote *rm;               /* --remote: the session running the plan, or NULL */
  ovta_plan rplan;               /* --remote: the saved plan read back (names, counters) */
  char tmp[64];                  /* --remote: the folder the plan was saved in ("": none) */
} engine;

/* g compiled for the CPU path (LLVM). */
static int engine_open_cpu(ovta_graph *g, const lir_codegen_opts *cg, engine *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  snprintf(out->where, sizeof out->where, "cpu");
  out->g = g;
  ovta_exec_opts eo;
  ovta_exec_opts_init(&eo);
  if (cg) eo.cg = *cg; /* --remote: for the server's machine */
  return ovta_exec_build(g, &eo, &out->exec, err);
}

/* --remote: the compiled plan saved in a fresh folder and opened on the server. */
static int engine_remote(engine *en, const tool_remote *t, const char *backend, int threads, ovta_error *err) {
  char dir[128];
  snprintf(en->tmp, sizeof en->tmp, "/tmp/ovta-eval-XXXXXX");
  if (!mkdtemp(en->tmp)) {
    en->tmp[0] = 0;
    return OVTA_FAIL(err, OVTA_EIO, "a temporary folder for the plan: %s", strerror(errno));
  }
  snprintf(dir, sizeof dir, "%s/int8.ovta", en->tmp);
  int rc = ovta_exec_save(en->exec, dir, err);
  if (!rc) rc = tool_remote_open(t, dir, backend, threads, false, &en->rm, &en->rplan, err);
  return rc;
}

/* One remote run of image x: output 0 into *y (the counters into en->rplan). */
static int engine_run_remote(engine *en, const char *in_name, const ovta_tensor *x, ovta_tensor **y, ovta_error *err) {
  ovta_array a = {.dtype = x->dtype, .rank = x->rank, .data = x->data, .nbytes = x->nbytes};
  memcpy(a.shape, x->shape, sizeof a.shape);
  ovta_remote_result res = {0};
  int rc = tool_remote_run(en->rm, &en->rplan, 1, &in_name, &a, &res, err);
  if (!rc && res.nout < 1) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "the server sent no output");
  if (!rc) {
    *y = ovta_tensor_new(res.names[0], res.outs[0].dtype, res.outs[0].rank, res.outs[0].shape);
    rc = *y ? ovta_tensor_alloc(*y, err) : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    if (!rc && (*y)->nbytes != res.outs[0].nbytes) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "output %s: size", res.names[0]);
    if (!rc) memcpy((*y)->data, res.outs[0].data, res.outs[0].nbytes);
  }
  ovta_remote_result_clear(&res);
  return rc;
}

/* The int8 graph g (quantized, not yet packed) on accelerator backend `backend` with config cfg:
 * the graph executor with accel on (pack and partition run on a copy; ovta.QConv / ovta.QDense
 * become accelerator kernels, the rest stays on the CPU path), attached to the device. A plan
 * with no node on the accelerator is refused: never CPU numbers reported as accelerator ones. */
static int engine_open_accel(ovta_graph *g, const char *backend, const ovta_config *cfg, const char *tuning,
                             const lir_codegen_opts *cg, engine *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  snprintf(out->where, sizeof out->where, "%s", backend);
  out->g = g;
  out->peak_macs_per_cycle = (int64_t)cfg->batch * cfg->block_in * cfg->block_out;
  ovta_exec_opts eo;
  ovta_exec_opts_init(&eo);
  eo.accel = true;
  eo.cfg = cfg;
  eo.backend = cg ? NULL : backend; /* --remote: the device is the server's */
  if (cg) eo.cg = *cg;
  char *tjson = NULL;
  size_t tl;
  int rc = tuning ? ovta_read_file(tuning, (size_t)1 << 24, &tjson, &tl, err) : 0;
  eo.tuning_json = tjson;
  if (!rc) rc = ovta_exec_build(g, &eo, &out->exec, err);
  free(tjson);
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
  int rc;
  if (en->rm) {
    rc = engine_run_remote(en, in_name, x, y, err);
  } else {
    rc = ovta_exec_set_input(en->exec, in_name, x, err);
    if (!rc) rc = ovta_exec_run(en->exec, err);
    if (!rc) rc = ovta_exec_get_output(en->exec, 0, y, err);
  }
  const ovta_plan *pl = en->rm ? &en->rplan : ovta_exec_plan(en->exec);
  for (int i = 0; !rc && en->accel_nodes && i < pl->ns; i++) {
    ovta_plan_stats ns;
    if ((rc = ovta_plan_stats_get(pl, i, &ns, err))) break;
    if (!ns.accel) continue;
    st->has_cycles |= ns.has_cycles;
    st->cycles += ns.cycles;
    const ovta_node *n = ovta_graph_node(en->g, ns.node);
    if (n) st->accel_macs += ovta_node_macs(n);
  }
  return rc;
}

static void engine_close(engine *e) {
  ovta_exec_free(e->exec);
  e->exec = NULL;
  ovta_remote_close(e->rm);
  e->rm = NULL;
  ovta_plan_release(&e->rplan);
  if (e->tmp[0]) { /* the saved plan's files, its folder, the temporary folder */
    static const char *const files[] = {"plan.json", "params.bin", "kernels.o", "kernels.so"};
    char p[256];
    for (int i = 0; i < 4; i++) snprintf(p, sizeof p, "%s/int8.ovta/%s", e->tmp, files[i]), unlink(p);
    snprintf(p, sizeof p, "%s/int8.ovta", e->tmp);
    rmdir(p);
    rmdir(e->tmp);
    e->tmp[0] = 0;
  }
}

/* ---------------------------------------------------------------- 3. Models */

/* The pipeline of the int8 model on the CPU path: the accelerator pipeline without pack and
 * partition (the CPU path runs ovta.QConv / ovta.QDense on plain layouts). */
static const char int8_cpu_pipeline[] = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify";
/* for an accelerator backend: ovta_accel_pipeline up to quantize (the executor packs and
 * partitions), so the plan is the one `ovta compile --target accel` and `ovta profile` build */
static const char int8_accel_pipeline[] =
    "infer,fold,dce,convt,fold-bn,fuse,split-groups,im2col,s2d,infer,fold,dce,quantize,verify";

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

static int count_ops(const ovta_graph *g, const char *a, const char *b) {
  int k = 0;
  for (int i = 0; i < g->n_nodes; i++) k += !strcmp(g->nodes[i]->op, a) || !strcmp(g->nodes[i]->op, b);
  return k;
}

/* ---------------------------------------------------------------- 4. The command */

/* The options of one `ovta eval`. */
typedef struct opts {
  const char *model, *images, *labels; /* the model file, --images, --labels */
  const char *reference;  /* --reference logits, or NULL */
  const char *calib;      /* --calib images, or NULL (the first --images) */
  const char *backend;    /* --backend: where the int8 model runs */
  const char *config;     /* --config NAME, or NULL */
  const char *tuning;     /* --tuning FILE.json, or NULL */
  int64_t count;          /* --count (-1: all images) */
  int64_t calib_count;    /* --calib-count (-1: the default) */
  prep pp;                /* --preprocess, --mean, --std */
  bool json, quiet;       /* --json, --quiet */
  int64_t threads;        /* --threads N (0: every core) */
  tool_remote remote;     /* --remote: the int8 model runs on `ovta-rt serve` there */
  const char *triple, *mcpu; /* --triple, --mcpu (with --remote) */
} opts;

/* The results of one model (fp32 or int8) over all images. */
typedef struct side {
  int64_t correct;           /* top-1 matches the label */
  double compile_s, run_s;   /* compile (int8: with calibration) and run seconds */
  uint64_t cycles;           /* accelerator cycles, all images */
  bool has_cycles;           /* the backend counts cycles */
  int64_t accel_macs;        /* MACs run on the accelerator, all images */
} side;

/* Everything one `ovta eval` holds, from the options to the report. */
typedef struct eval_run {
  opts o;                    /* the options */
  double t_start;            /* when the command started (ovta_now_s) */
  ovta_config cfg;           /* the accelerator config (also the int8 passes' blocking) */
  dataset imgs, cal;         /* --images; --calib (empty without it) */
  ovta_tensor *labels;       /* --labels */
  ovta_tensor *ref;          /* --reference logits, or NULL */
  ovta_graph *g;             /* the model as loaded and inferred (batch 1) */
  ovta_graph *g32, *g8;      /* the fp32 and int8 graphs compiled */
  engine e32, e8;            /* where they run */
  side f, q;                 /* fp32 and int8 results */
  int64_t n;                 /* images evaluated */
  int64_t n_calib;           /* calibration images */
  char calib_from[512];      /* where those come from (for the report) */
  int64_t k_cls;             /* classes (logits per image) */
  int64_t agree, ref_agree;  /* top-1 int8 == fp32; fp32 == reference */
  double maxd_q, maxd_ref;   /* largest |logit difference| int8 vs fp32; fp32 vs reference */
  int64_t macs;              /* MACs per image of the fp32 model */
  int nq, nqable;            /* conv/dense layers int8; quantizable ones */
  double wall;               /* seconds of the whole command */
} eval_run;

static bool parse_double(const char *s, double *out) {
  if (!s || !*s) return false;
  char *end;
  double v = strtod(s, &end);
  if (*end || !isfinite(v)) return false;
  *out = v;
  return true;
}

/* One argument with a number or a flag at argv[*i]: 1 handled, 0 not this kind, 2 on a usage error. */
static int parse_valued(int argc, char **argv, int *i, opts *o) {
  const char *v;
  if (tool_opt(argc, argv, i, "--count", &v)) {
    if (!v || !tool_number(v, 1, INT64_C(1) << 40, &o->count)) return tool_usage("eval", "--count needs a number >= 1");
  } else if (tool_opt(argc, argv, i, "--threads", &v)) {
    if (!v || !tool_number(v, 1, 64, &o->threads)) return tool_usage("eval", "--threads needs 1..64");
  } else if (tool_opt(argc, argv, i, "--calib-count", &v)) {
    if (!v || !tool_number(v, 1, 1000, &o->calib_count)) return tool_usage("eval", "--calib-count needs 1..1000");
  } else if (tool_opt(argc, argv, i, "--preprocess", &v)) {
    if (v && !strcmp(v, "unit")) o->pp.mode = PREP_UNIT;
    else if (v && !strcmp(v, "none")) o->pp.mode = PREP_NONE;
    else return tool_usage("eval", "--preprocess needs unit or none");
  } else if (tool_opt(argc, argv, i, "--mean", &v)) {
    if (!parse_double(v, &o->pp.mean)) return tool_usage("eval", "--mean needs a number");
  } else if (tool_opt(argc, argv, i, "--std", &v)) {
    if (!parse_double(v, &o->pp.std) || o->pp.std == 0) return tool_usage("eval", "--std needs a non-zero number");
  } else if (tool_opt(argc, argv, i, "--json", NULL)) {
    o->json = true;
  } else if (tool_opt(argc, argv, i, "--quiet", NULL)) {
    o->quiet = true;
  } else {
    return 0;
  }
  return 1;
}

/* The option at argv[*i] taking a string, or NULL: its field, *v its value. */
static const char **string_opt(int argc, char **argv, int *i, opts *o, const char **v) {
  if (tool_opt(argc, argv, i, "--images", v)) return &o->images;
  if (tool_opt(argc, argv, i, "--labels", v)) return &o->labels;
  if (tool_opt(argc, argv, i, "--reference", v)) return &o->reference;
  if (tool_opt(argc, argv, i, "--calib", v)) return &o->calib;
  if (tool_opt(argc, argv, i, "--backend", v)) return &o->backend;
  if (tool_opt(argc, argv, i, "--config", v)) return &o->config;
  if (tool_opt(argc, argv, i, "--tuning", v)) return &o->tuning;
  if (tool_opt(argc, argv, i, "--triple", v)) return &o->triple;
  if (tool_opt(argc, argv, i, "--mcpu", v)) return &o->mcpu;
  return NULL;
}

/* The options are complete and the backend exists: 0, or 2 on a usage error. */
static int check_args(const opts *o) {
  if (!o->model) return tool_usage("eval", "no model given");
  if (!o->images) return tool_usage("eval", "no --images given");
  if (!o->labels) return tool_usage("eval", "no --labels given");
  if ((o->triple || o->mcpu) && !o->remote.addr) return tool_usage("eval", "--triple and --mcpu go with --remote");
  if (o->remote.token_file && !o->remote.addr) return tool_usage("eval", "--token-file goes with --remote");
  bool known = !strcmp(o->backend, "cpu") || o->remote.addr; /* the server knows its backends */
#ifdef OVTA_HAVE_DRIVER
  for (const char *const *b = ovta_backend_names(); *b; b++) known |= !strcmp(*b, o->backend);
#endif
  if (!known) return tool_usage("eval", "unknown backend '%s' (cpu, or a driver backend: fsim, tsim, ...)", o->backend);
  return 0;
}

/* All arguments into o: 0, 2 on a usage error, -1 after --help. */
static int parse_args(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->backend = "cpu";
  o->count = -1;
  o->calib_count = -1;
  o->pp.std = 1.0;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL, **str;
    int rc;
    if ((rc = tool_remote_opt("eval", argc, argv, &i, &o->remote))) {
      if (rc == 2) return 2;
    } else if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return -1;
    } else if ((str = string_opt(argc, argv, &i, o, &v))) {
      if (!v || !*v) return tool_usage("eval", "%s needs a value", argv[i][0] == '-' ? argv[i] : argv[i - 1]);
      *str = v;
    } else if ((rc = parse_valued(argc, argv, &i, o))) {
      if (rc != 1) return rc;
    } else if (argv[i][0] == '-') {
      return tool_usage("eval", "unknown option %s", argv[i]);
    } else if (!o->model) {
      o->model = argv[i];
    } else {
      return tool_usage("eval", "more than one model given");
    }
  }
  return check_args(o);
}

/* Useful MACs per available MAC slot of the cycles the accelerator steps took. */
static double mac_util(const side *q, const engine *e8) {
  return e8->peak_macs_per_cycle > 0 && q->cycles > 0
             ? (double)q->accel_macs / ((double)q->cycles * (double)e8->peak_macs_per_cycle)
             : 0;
}

static void print_text(const eval_run *r) {
  const opts *o = &r->o;
  const side *f = &r->f, *q = &r->q;
  const engine *e8 = &r->e8;
  int64_t n = r->n;
  const ovta_tensor *in = r->g8->inputs[0];
  char s[64];
  ovta_shape_str(in, s, sizeof s);
  printf("ovta eval %s: %lld images of %s (%s), labels %s\n", o->model, (long long)n, o->images,
         o->pp.mode == PREP_UNIT ? "pixels / 255" : "values as given", o->labels);
  printf("  model         input %s [%s] f32, %.3f MMAC per image\n", in->name, s, (double)r->macs / 1e6);
  printf("  int8          %d of %d conv/dense layers int8, calibrated on %lld images of %s\n", r->nq, r->nqable,
         (long long)r->n_calib, r->calib_from);
  printf("  fp32 top-1    %6.2f%%  (%lld/%lld correct)\n", 100.0 * (double)f->correct / (double)n,
         (long long)f->correct, (long long)n);
  printf("  int8 top-1    %6.2f%%  (%lld/%lld correct, %+.2f points vs fp32)\n", 100.0 * (double)q->correct / (double)n,
         (long long)q->correct, (long long)n, 100.0 * (double)(q->correct - f->correct) / (double)n);
  printf("  int8 vs fp32  %6.2f%%  top-1 agreement (%lld/%lld), max |logit difference| %.4g\n",
         100.0 * (double)r->agree / (double)n, (long long)r->agree, (long long)n, r->maxd_q);
  if (r->ref)
    printf("  fp32 vs ref   %6.2f%%  top-1 agreement (%lld/%lld), max |logit difference| %.3g (%s)\n",
           100.0 * (double)r->ref_agree / (double)n, (long long)r->ref_agree, (long long)n, r->maxd_ref,
           base_name(o->reference));
  printf("  time          fp32: compile %.2f s, %.3f ms/image; int8 (%s): compile+calibrate %.2f s, %.3f ms/image; "
         "total %.2f s\n",
         f->compile_s, 1e3 * f->run_s / (double)n, e8->where, q->compile_s, 1e3 * q->run_s / (double)n, r->wall);
  if (q->has_cycles) {
    printf("  accelerator   %s (%s): %d nodes, %.0f cycles/image, MAC utilization %.2f%% (%.3f MMAC/image on it)\n",
           e8->where, r->cfg.name, e8->accel_nodes, (double)q->cycles / (double)n, 100 * mac_util(q, e8),
           (double)q->accel_macs / (double)n / 1e6);
  } else if (e8->accel_nodes) {
    printf("  accelerator   %s (%s): %d nodes (%.3f MMAC/image); %s counts no cycles (tsim does)\n", e8->where,
           r->cfg.name, e8->accel_nodes, (double)q->accel_macs / (double)n / 1e6, e8->where);
  } else {
    printf("  accelerator   none: the int8 model ran on the CPU path (no cycle counts)\n");
  }
}

/* One model's results as a JSON object member of r (k 0: fp32, 1: int8 with its extras). */
static void json_side(cJSON *r, const eval_run *ev, int k) {
  const side *sd = k ? &ev->q : &ev->f;
  double n = (double)ev->n;
  cJSON *s = cJSON_AddObjectToObject(r, k ? "int8" : "fp32");
  if (!s) return;
  cJSON_AddStringToObject(s, "where", k ? ev->e8.where : "cpu");
  cJSON_AddNumberToObject(s, "correct", (double)sd->correct);
  cJSON_AddNumberToObject(s, "top1", (double)sd->correct / n);
  cJSON_AddNumberToObject(s, "compile_s", sd->compile_s);
  cJSON_AddNumberToObject(s, "run_s", sd->run_s);
  cJSON_AddNumberToObject(s, "ms_per_image", 1e3 * sd->run_s / n);
  if (k == 0) return;
  cJSON_AddNumberToObject(s, "quantized_layers", ev->nq);
  cJSON_AddNumberToObject(s, "quantizable_layers", ev->nqable);
  cJSON_AddStringToObject(s, "calib", ev->calib_from);
  cJSON_AddNumberToObject(s, "calib_count", (double)ev->n_calib);
  cJSON_AddNumberToObject(s, "accel_nodes", ev->e8.accel_nodes);
  cJSON_AddNumberToObject(s, "accel_macs_per_image", (double)sd->accel_macs / n);
  if (sd->has_cycles) {
    cJSON_AddNumberToObject(s, "cycles_per_image", (double)sd->cycles / n);
    cJSON_AddNumberToObject(s, "mac_utilization", mac_util(sd, &ev->e8));
  } else {
    cJSON_AddNullToObject(s, "cycles_per_image");
    cJSON_AddNullToObject(s, "mac_utilization");
  }
}

/* {agree, agreement, max_abs_diff} as member name of r. */
static void json_agreement(cJSON *r, const char *name, int64_t agree, int64_t n, double maxd) {
  cJSON *a = cJSON_AddObjectToObject(r, name);
  if (!a) return;
  cJSON_AddNumberToObject(a, "agree", (double)agree);
  cJSON_AddNumberToObject(a, "agreement", (double)agree / (double)n);
  cJSON_AddNumberToObject(a, "max_abs_diff", maxd);
}

static int print_json(const eval_run *ev) {
  const opts *o = &ev->o;
  cJSON *r = cJSON_CreateObject();
  if (!r) return tool_fail("out of memory");
  cJSON_AddStringToObject(r, "model", o->model);
  cJSON_AddStringToObject(r, "images", o->images);
  cJSON_AddStringToObject(r, "labels", o->labels);
  if (o->reference) cJSON_AddStringToObject(r, "reference", o->reference);
  else cJSON_AddNullToObject(r, "reference");
  cJSON_AddNumberToObject(r, "count", (double)ev->n);
  cJSON_AddStringToObject(r, "preprocess", o->pp.mode == PREP_UNIT ? "unit" : "none");
  cJSON_AddStringToObject(r, "backend", o->backend);
  cJSON_AddStringToObject(r, "config", ev->cfg.name);
  cJSON_AddNumberToObject(r, "macs_per_image", (double)ev->macs);
  json_side(r, ev, 0);
  json_side(r, ev, 1);
  json_agreement(r, "int8_vs_fp32", ev->agree, ev->n, ev->maxd_q);
  if (ev->ref) json_agreement(r, "fp32_vs_reference", ev->ref_agree, ev->n, ev->maxd_ref);
  else cJSON_AddNullToObject(r, "fp32_vs_reference");
  cJSON_AddNumberToObject(r, "wall_s", ev->wall);
  char *txt = cJSON_Print(r);
  cJSON_Delete(r);
  if (!txt) return tool_fail("out of memory");
  printf("%s\n", txt);
  free(txt);
  return 0;
}

/* Labels: integers [N] with N >= n. */
static int check_labels(const eval_run *r, ovta_error *err) {
  const ovta_tensor *l = r->labels;
  char s[128];
  ovta_shape_str(l, s, sizeof s);
  bool intty = l->dtype == OVTA_DT_U8 || l->dtype == OVTA_DT_I8 || l->dtype == OVTA_DT_I16 || l->dtype == OVTA_DT_U16 ||
               l->dtype == OVTA_DT_I32 || l->dtype == OVTA_DT_I64 || l->dtype == OVTA_DT_U32 || l->dtype == OVTA_DT_U64;
  if (!intty || l->rank != 1 || l->shape[0] < r->n)
    return OVTA_FAIL(err, OVTA_EINVAL, "--labels %s: labels must be integers [N] with N >= %lld, not %s %s", r->o.labels,
                     (long long)r->n, ovta_dtype_name(l->dtype), s);
  return 0;
}

/* The calibration images: --calib (at most 1000) or the first 64 --images; --calib-count. */
static int choose_calib(eval_run *r, ovta_error *err) {
  const opts *o = &r->o;
  if (o->calib) {
    int rc = images_open(o->calib, "--calib", &o->pp, &r->cal, err);
    if (rc) return rc;
    if (r->cal.c != r->imgs.c || r->cal.h != r->imgs.h || r->cal.w != r->imgs.w)
      return OVTA_FAIL(err, OVTA_EINVAL, "--calib %s: calibration images are %lldx%lldx%lld but --images are %lldx%lldx%lld",
                       o->calib, (long long)r->cal.c, (long long)r->cal.h, (long long)r->cal.w, (long long)r->imgs.c,
                       (long long)r->imgs.h, (long long)r->imgs.w);
    r->n_calib = r->cal.n < 1000 ? r->cal.n : 1000;
    snprintf(r->calib_from, sizeof r->calib_from, "%s", o->calib);
  } else {
    r->n_calib = r->imgs.n < 64 ? r->imgs.n : 64;
    snprintf(r->calib_from, sizeof r->calib_from, "%s (no --calib)", o->images);
  }
  if (o->calib_count > 0) {
    int64_t have = o->calib ? r->cal.n : r->imgs.n;
    if (o->calib_count > have)
      return OVTA_FAIL(err, OVTA_EINVAL, "--calib-count %lld: %s holds %lld images", (long long)o->calib_count,
                       o->calib ? o->calib : o->images, (long long)have);
    r->n_calib = o->calib_count;
  }
  return 0;
}

/* The data: config, images (and how many), labels, calibration images. */
static int load_data(eval_run *r, ovta_error *err) {
  const opts *o = &r->o;
  int rc = ovta_config_load(tool_config_name(o->config), &r->cfg, err);
  if (!rc) rc = images_open(o->images, "--images", &o->pp, &r->imgs, err);
  if (rc) return rc;
  r->n = o->count > 0 ? o->count : r->imgs.n;
  if (r->n > r->imgs.n)
    return OVTA_FAIL(err, OVTA_EINVAL, "--count %lld: %s holds %lld images", (long long)r->n, o->images,
                     (long long)r->imgs.n);
  if ((rc = ovta_npy_read(o->labels, "labels", &r->labels, err))) return ovta_error_wrap(err, "--labels"), rc;
  if ((rc = check_labels(r, err))) return rc;
  return choose_calib(r, err);
}

/* The model's classes (float logits [1,K]); every label is one of them. */
static int check_classes(eval_run *r, ovta_error *err) {
  ovta_tensor *y = r->g->outputs[0];
  char s[128];
  ovta_shape_str(y, s, sizeof s);
  if (y->dtype != OVTA_DT_F32 || y->rank != 2 || y->shape[0] != 1 || y->shape[1] < 1)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: output '%s' is %s %s; ovta eval needs float logits [N,K]", r->o.model,
                     y->name, ovta_dtype_name(y->dtype), s);
  r->k_cls = y->shape[1];
  for (int64_t i = 0; i < r->n; i++) {
    int64_t l = ovta_tensor_get_i(r->labels, i);
    if (l < 0 || l >= r->k_cls)
      return OVTA_FAIL(err, OVTA_EINVAL, "--labels %s: label %lld of image %lld is outside the model's %lld classes",
                       r->o.labels, (long long)l, (long long)i, (long long)r->k_cls);
  }
  return 0;
}

/* The reference logits, when given: float32 [N,K]. */
static int load_reference(eval_run *r, ovta_error *err) {
  const opts *o = &r->o;
  if (!o->reference) return 0;
  int rc = ovta_npy_read(o->reference, "reference", &r->ref, err);
  if (rc) return ovta_error_wrap(err, "--reference"), rc;
  char s[128];
  ovta_shape_str(r->ref, s, sizeof s);
  const ovta_tensor *t = r->ref;
  if (t->dtype != OVTA_DT_F32 || t->rank != 2 || t->shape[0] < r->n || t->shape[1] != r->k_cls)
    return OVTA_FAIL(err, OVTA_EINVAL, "--reference %s: logits must be float32 [N,%lld] with N >= %lld, not %s %s",
                     o->reference, (long long)r->k_cls, (long long)r->n, ovta_dtype_name(t->dtype), s);
  return 0;
}

/* Calibration sample s: image s of the calibration set, preprocessed. */
typedef struct calib_src {
  const dataset *d;  /* the calibration images */
  const prep *pp;    /* their preprocessing */
} calib_src;

static void calib_fill(void *ctx, int64_t s, float *dst) {
  const calib_src *c = ctx;
  image_get(c->d, c->pp, s, dst);
}

/* int8: calibrate, quantize, compile (the accelerator hook refuses here, before the long run). */
static int build_int8(eval_run *r, ovta_error *err) {
  double t0 = ovta_now_s();
  r->g8 = ovta_graph_clone(r->g);
  if (!r->g8) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  calib_src src = {r->o.calib ? &r->cal : &r->imgs, &r->o.pp};
  ovta_calib_opts co = {.fill = calib_fill, .fill_ctx = &src, .count = r->n_calib,
                        .passes = strcmp(r->o.backend, "cpu") ? int8_accel_pipeline : int8_cpu_pipeline,
                        .cfg = &r->cfg};
  int rc = ovta_calibrate_quantize(r->g8, &co, NULL, err);
  if (rc) return rc;
  lir_codegen_opts cg = {0}, *cgp = NULL;
  if (r->o.remote.addr) {
    ovta_exec_opts eo;
    ovta_exec_opts_init(&eo);
    cg = eo.cg, cg.triple = r->o.triple, cg.cpu = r->o.mcpu, cgp = &cg;
  }
  if (strcmp(r->o.backend, "cpu")) rc = engine_open_accel(r->g8, r->o.backend, &r->cfg, r->o.tuning, cgp, &r->e8, err);
  else rc = engine_open_cpu(r->g8, cgp, &r->e8, err);
  r->q.compile_s = ovta_now_s() - t0;
  return rc;
}

/* fp32: the default pipeline on the CPU path; then the model's MACs and layer counts. */
static int build_fp32(eval_run *r, ovta_error *err) {
  double t0 = ovta_now_s();
  r->g32 = ovta_graph_clone(r->g);
  if (!r->g32) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  ovta_compile_opts co = {.cfg = &r->cfg, .passes = ovta_default_pipeline};
  int rc = ovta_compile_pipeline(r->g32, &co, err);
  if (!rc) rc = engine_open_cpu(r->g32, NULL, &r->e32, err);
  if (rc) return rc;
  r->f.compile_s = ovta_now_s() - t0;
  r->macs = ovta_graph_macs(r->g32);
  r->nq = count_ops(r->g8, "ovta.QConv", "ovta.QDense"), r->nqable = count_ops(r->g32, "ovta.Conv", "ovta.Dense");
  return 0;
}

/* Image i's logits l32 (fp32) and l8 (int8) scored against its label and the reference. */
static void score(eval_run *r, int64_t i, const float *l32, const float *l8) {
  int64_t k_cls = r->k_cls;
  int p32 = argmax(l32, k_cls), p8 = argmax(l8, k_cls);
  int64_t lab = ovta_tensor_get_i(r->labels, i);
  r->f.correct += p32 == lab;
  r->q.correct += p8 == lab;
  r->agree += p32 == p8;
  for (int64_t k = 0; k < k_cls; k++) r->maxd_q = fmax(r->maxd_q, fabs((double)l8[k] - (double)l32[k]));
  if (r->ref) {
    const float *lr = (const float *)r->ref->data + i * k_cls;
    r->ref_agree += argmax(lr, k_cls) == p32;
    for (int64_t k = 0; k < k_cls; k++) r->maxd_ref = fmax(r->maxd_ref, fabs((double)lr[k] - (double)l32[k]));
  }
}

/* Image (already in x) through both models, timed and scored. */
static int run_image(eval_run *r, int64_t i, const ovta_tensor *x, ovta_error *err) {
  const char *in_name = r->g->inputs[0]->name;
  ovta_tensor *y32 = NULL, *y8 = NULL;
  run_stats st32 = {0}, st8 = {0};
  double a = ovta_now_s();
  int rc = engine_run(&r->e32, in_name, x, &y32, &st32, err);
  double b = ovta_now_s();
  if (!rc) rc = engine_run(&r->e8, in_name, x, &y8, &st8, err);
  double c = ovta_now_s();
  if (!rc && (ovta_tensor_numel(y32) != r->k_cls || ovta_tensor_numel(y8) != r->k_cls || y32->dtype != OVTA_DT_F32 ||
              y8->dtype != OVTA_DT_F32))
    rc = OVTA_FAIL(err, OVTA_EINTERNAL, "image %lld: an output is not %lld float logits", (long long)i,
                   (long long)r->k_cls);
  if (rc) {
    ovta_tensor_free(y32), ovta_tensor_free(y8);
    return ovta_error_wrap(err, "image %lld", (long long)i), rc;
  }
  r->f.run_s += b - a;
  r->q.run_s += c - b;
  if (st8.has_cycles) r->q.has_cycles = true, r->q.cycles += st8.cycles;
  r->q.accel_macs += st8.accel_macs;
  score(r, i, y32->data, y8->data);
  ovta_tensor_free(y32), ovta_tensor_free(y8);
  return 0;
}

/* The run: every image through both models, with progress on stderr. */
static int run_all(eval_run *r, ovta_error *err) {
  int64_t shape[4] = {1, r->imgs.c, r->imgs.h, r->imgs.w};
  ovta_tensor *x = ovta_tensor_new(r->g->inputs[0]->name, OVTA_DT_F32, 4, shape);
  int rc = x ? ovta_tensor_alloc(x, err) : 0;
  if (!x || rc) {
    ovta_tensor_free(x);
    return rc ? rc : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  tool_progress prog;
  tool_progress_start(&prog, "ovta eval", r->n, r->o.quiet);
  for (int64_t i = 0; !rc && i < r->n; i++) {
    image_get(&r->imgs, &r->o.pp, i, x->data);
    if ((rc = run_image(r, i, x, err))) break;
    char extra[96];
    snprintf(extra, sizeof extra, "fp32 %.1f%% int8 %.1f%%", 100.0 * (double)r->f.correct / (double)(i + 1),
             100.0 * (double)r->q.correct / (double)(i + 1));
    tool_progress_update(&prog, i + 1, extra);
  }
  tool_progress_finish(&prog);
  ovta_tensor_free(x);
  return rc;
}

static void eval_free(eval_run *r) {
  engine_close(&r->e32);
  engine_close(&r->e8);
  ovta_tensor_free(r->labels);
  ovta_tensor_free(r->ref);
  dataset_free(&r->imgs);
  dataset_free(&r->cal);
  ovta_graph_free(r->g);
  ovta_graph_free(r->g32);
  ovta_graph_free(r->g8);
}

int ovta_cmd_eval(int argc, char **argv) {
  eval_run r;
  memset(&r, 0, sizeof r);
  int rc = parse_args(argc, argv, &r.o);
  if (rc) return rc < 0 ? 0 : rc;
  ovta_set_threads((int)r.o.threads);
  r.t_start = ovta_now_s();
  ovta_error err = {0};
  /* the data, the model (then its classes and the reference logits), both compiles, the run */
  rc = load_data(&r, &err);
  if (!rc) rc = model_load(r.o.model, &r.imgs, &r.g, &err);
  if (!rc) rc = ovta_infer_graph(r.g, &err);
  if (!rc) rc = check_classes(&r, &err);
  if (!rc) rc = load_reference(&r, &err);
  if (!rc) rc = build_int8(&r, &err);
  if (!rc) rc = build_fp32(&r, &err);
  if (!rc && r.o.remote.addr) /* connected last: the server times out idle sessions */
    rc = engine_remote(&r.e8, &r.o.remote, r.o.backend, (int)r.o.threads, &err);
  if (!rc) rc = run_all(&r, &err);
  if (!rc) {
    r.wall = ovta_now_s() - r.t_start;
    if (r.o.json) rc = print_json(&r);
    else print_text(&r);
  }
  if (rc && err.code) tool_error(&err, NULL);
  eval_free(&r);
  return rc ? 1 : 0;
}
