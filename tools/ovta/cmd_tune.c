/* cmd_tune.c: `ovta tune MODEL [--calib C.npy] -o tuning.json`: the tiling knobs of every
 * accelerator conv/dense layer searched by measuring candidates (compiler/tune/tune.h), a
 * resumable JSON-lines trial log, and the tuning file `ovta compile --tuning` applies.
 *
 * Sections:
 *   1. Options and help
 *   2. Layers   - the model quantized and partitioned as a build does; its accelerator layers
 *   3. Tuning   - each layer searched, progress on stderr, the summary and the tuning file
 */
#include "ovta_tool.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "tune.h"

/* ---------------------------------------------------------------- 1. Options and help */

static const char *const usage =
    "usage: ovta tune MODEL [--calib C.npy] [--config NAME] [--backend tsim|fsim] [--trials N] [--jobs N]\n"
    "                 [--seed S] [--timeout SEC] [--watchdog CYCLES] [--layers A,B] [--log FILE] -o TUNING.json\n"
    "                 [--slurm [--partition P] [--sbatch OPTS] [--retries N] [--workdir DIR]]\n"
    "       ovta tune --measure TRIAL.json [--config NAME] [--backend tsim|fsim] [--watchdog CYCLES]\n"
    "\n"
    "Search the tiling knobs (t_n t_oc t_ic t_h t_w, virtual threads, the form of a residual add\n"
    "fused into the layer, res_form, and the epilogue's, epi: whole tiles or chunked where the tiling\n"
    "allows it) of each accelerator conv/dense layer, with the add when the build\n"
    "fuses one: every candidate is the layer alone measured on the backend (tsim: cycles; fsim counts no\n"
    "cycles, it checks the outputs and takes the planner's estimate), proposed by an XGBoost cost model\n"
    "trained on the trials so far, with random exploration. The planner's own choice is measured first,\n"
    "so no layer ends worse than it. Each trial is one line of the log (FILE, default TUNING.json.log);\n"
    "a rerun with the same log continues where a killed run stopped. A failing or hanging candidate\n"
    "is recorded as failed. The tuning file goes to `ovta compile --tuning` and `ovta eval --tuning`.\n"
    "\n"
    "  --calib C.npy     calibration samples of a float model (as ovta compile)\n"
    "  --config NAME     accelerator config (default $OVTA_CONFIG or default)\n"
    "  --backend B       tsim (default) or fsim\n"
    "  --trials N        trials per layer, counting those in the log (default 32)\n"
    "  --jobs N          worker processes (default 1)\n"
    "  --seed S          the search's random choices (default 1): same seed, same trials\n"
    "  --timeout SEC     wall-clock limit of one trial (default 600)\n"
    "  --watchdog CYCLES tsim: stop a run without progress for this many cycles (default: tsim's)\n"
    "  --layers A,B      only these layers (node names)\n"
    "  --log FILE        the trial log (default TUNING.json.log)\n"
    "  -o TUNING.json    the tuning file\n"
    "  --slurm           run each batch of trials as a Slurm job array of `ovta tune --measure`\n"
    "                    (sbatch, watched with squeue; the working folder must be shared with the\n"
    "                    nodes); the same trials and results as local workers\n"
    "  --partition P     Slurm partition (default: the cluster's)\n"
    "  --sbatch OPTS     more sbatch options, space-separated\n"
    "  --retries N       resubmit a failed Slurm task N times (default 1)\n"
    "  --workdir DIR     Slurm working folder (default TUNING.json.slurm)\n"
    "  --measure TRIAL   measure one trial in this process, the worker side of a batch-scheduler\n"
    "                    runner: TRIAL is a JSON object {\"op\": {..every field of the layer..},\n"
    "                    \"knobs\": {..}} (tune_trial_to_json); prints {\"cycles\": C} or {\"error\": WHY}\n";

typedef struct topts {
  const char *model, *calib, *cfgname, *backend, *layers, *log, *out;
  const char *measure;     /* --measure TRIAL.json: the worker mode */
  const char *partition, *sbatch, *workdir; /* --slurm's options */
  bool slurm;              /* --slurm: trials as Slurm job arrays */
  int64_t trials, jobs, seed, watchdog, retries;
  double timeout_s;
} topts;

/* One option at argv[*i]; 2 on a usage error. */
static int parse_opt(int argc, char **argv, int *i, topts *o) {
  const char *v;
  const tool_numopt nums[] = {{"--trials", 1, 1000000, &o->trials}, {"--jobs", 1, 64, &o->jobs},
                              {"--seed", 0, INT64_MAX, &o->seed},    {"--watchdog", 1, INT64_MAX, &o->watchdog},
                              {"--retries", 0, 100, &o->retries}};
  const tool_stropt strs[] = {{"--calib", &o->calib},     {"--config", &o->cfgname},   {"--backend", &o->backend},
                              {"--layers", &o->layers},   {"--log", &o->log},          {"-o", &o->out},
                              {"--output", &o->out},      {"--measure", &o->measure},  {"--partition", &o->partition},
                              {"--sbatch", &o->sbatch},   {"--workdir", &o->workdir}};
  if (!strcmp(argv[*i], "--slurm")) {
    o->slurm = true;
    return 0;
  }
  int t = tool_opt_table(argc, argv, i, "tune", nums, 5, strs, 11);
  if (t) return t == 1 ? 0 : t;
  if (tool_opt(argc, argv, i, "--timeout", &v)) {
    char *end;
    o->timeout_s = v ? strtod(v, &end) : 0;
    if (!v || *end || !(o->timeout_s > 0)) return tool_usage("tune", "--timeout needs seconds > 0");
    return 0;
  }
  if (argv[*i][0] == '-') return tool_usage("tune", "unknown option '%s'", argv[*i]);
  if (o->model) return tool_usage("tune", "more than one model");
  o->model = argv[*i];
  return 0;
}

/* -1: help printed; 2: usage error. */
static int parse_args(int argc, char **argv, topts *o) {
  *o = (topts){.backend = "tsim", .trials = 32, .jobs = 1, .seed = 1, .timeout_s = 600, .retries = 1};
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) {
      fputs(usage, stdout);
      return -1;
    }
    int rc = parse_opt(argc, argv, &i, o);
    if (rc) return rc;
  }
  if (o->measure && o->model) return tool_usage("tune", "--measure takes no model");
  if (o->measure) return 0;
  if (!o->model) return tool_usage("tune", "no model given");
  if (!o->out) return tool_usage("tune", "no tuning file given (-o TUNING.json)");
  if (!o->slurm && (o->partition || o->sbatch || o->workdir))
    return tool_usage("tune", "--partition, --sbatch and --workdir need --slurm");
  if (strcmp(o->backend, "tsim") && strcmp(o->backend, "fsim"))
    return tool_usage("tune", "--backend must be tsim or fsim, not '%s'", o->backend);
  return 0;
}

/* ---------------------------------------------------------------- 2. Layers */

/* The tunable layers of a prepared graph: accelerator conv/dense nodes (names, ops). */
typedef struct layers {
  int n;             /* layers */
  char **names;      /* node names */
  vta_op *ops;       /* their operators (pointing into the graph: it outlives them), with the add the
                        build fuses into them (vta_op.res) */
  int *node;         /* their node indexes */
} layers;

/* The layer of node s, or -1. */
static int layer_of(const layers *L, int s) {
  for (int i = 0; i < L->n; i++)
    if (L->node[i] == s) return i;
  return -1;
}

/* The residual adds the build fuses (compiler/exec, fuse_adds: ovta_add_fusion_candidates, both
 * nodes planned for the accelerator, the conv planned with the add; not with OVTA_FUSE_ADD=0) into
 * the ops of their layers, so a layer is tuned as it runs. */
static void fuse_layers(const ovta_graph *g, const ovta_config *cfg, layers *L) {
  if (!ovta_fuse_adds_on()) return;
  for (int s2 = 0; s2 < g->n_nodes; s2++) {
    vta_op a, op;
    vta_plan p;
    ovta_error e = {0};
    int cs[2], ck[2], nc = 0;
    if (g->nodes[s2]->target == OVTA_TARGET_ACCEL && !vta_op_from_node(g, g->nodes[s2], cfg, &a, &e) &&
        a.kind == VTA_ADD && !vta_plan_make(cfg, &a, NULL, &p, &e))
      nc = ovta_add_fusion_candidates(g, s2, cs, ck);
    for (int t = 0; t < nc; t++) {
      int i = layer_of(L, cs[t]);
      if (i < 0 || L->ops[i].res) continue;
      op = L->ops[i];
      vta_op_fuse_add(&op, ck[t] ? a.shift_b : a.shift_a, ck[t] ? a.shift_a : a.shift_b, a.shift, a.clip_min, a.clip_max);
      if (vta_plan_make(cfg, &op, NULL, &p, &e)) continue;
      L->ops[i] = op;
      break;
    }
  }
}

static int find_layers(const ovta_graph *g, const ovta_config *cfg, const char *only, layers *L, ovta_error *err) {
  L->names = calloc((size_t)g->n_nodes + 1, sizeof *L->names);
  L->ops = calloc((size_t)g->n_nodes + 1, sizeof *L->ops);
  L->node = calloc((size_t)g->n_nodes + 1, sizeof *L->node);
  if (!L->names || !L->ops || !L->node) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    ovta_error e = {0};
    if (n->target != OVTA_TARGET_ACCEL || (only && !ovta_list_has(only, ",", n->name))) continue;
    if (vta_op_from_node(g, n, cfg, &L->ops[L->n], &e) || vta_kind_alu(L->ops[L->n].kind)) continue;
    if (!(L->names[L->n] = strdup(n->name))) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    L->node[L->n++] = i;
  }
  if (!L->n) return OVTA_FAIL(err, OVTA_EINVAL, "no accelerator conv/dense layer to tune%s", only ? " (--layers)" : "");
  fuse_layers(g, cfg, L);
  return OVTA_OK;
}

static int load_model(const topts *o, const ovta_config *cfg, ovta_graph **g, layers *L, ovta_error *err) {
  int rc = ovta_graph_load(o->model, g, err);
  if (!rc && !ovta_graph_quantized(*g)) rc = tool_quantize_accel(*g, o->calib, cfg, err);
  if (!rc) rc = ovta_graph_prepare_accel(*g, cfg, err);
  if (!rc) rc = find_layers(*g, cfg, o->layers, L, err);
  return rc;
}

/* ---------------------------------------------------------------- 3. Tuning */

/* The progress line: layer, trials done, best cycles so far. */
typedef struct prog {
  int layer, nlayers;  /* the layer being tuned (1-based), of */
} prog;

static void progress(void *ctx, const char *layer, int done, int total, uint64_t best) {
  const prog *p = ctx;
  fprintf(stderr, "ovta: tune [%d/%d] %s: %d/%d trials, best %llu cycles\n", p->layer, p->nlayers, layer, done,
          total, (unsigned long long)best);
}

static void summary(const char *name, const tune_outcome *r) {
  if (!r->found) {
    fprintf(stderr, "ovta: tune %s: every trial failed (%d); the planner's choice stays\n", name, r->trials);
    return;
  }
  char form[40] = "";
  if (r->best.k.res_form) snprintf(form, sizeof form, ", add fused r %s", r->best.k.res_form == 2 ? "before" : r->best.k.res_form == 3 ? "after, pipelined" : "after");
  fprintf(stderr, "ovta: tune %s: best %llu cycles (t_n %d t_oc %d t_ic %d t_h %d t_w %d vt %d%s%s), heuristic %llu%s, "
          "%d trials (%d failed)\n", name, (unsigned long long)r->best_cycles, r->best.k.t_n, r->best.k.t_oc,
          r->best.k.t_ic, r->best.k.t_h, r->best.k.t_w, r->best.k.vthreads, form,
          r->best.k.epi == 2 ? ", epilogue chunked" : "",
          (unsigned long long)r->heuristic_cycles, r->heuristic_ok ? "" : " (failed)", r->trials, r->failed);
}

static int tune_all(const topts *o, const ovta_config *cfg, const layers *L, tune_outcome *res, ovta_error *err) {
  char logpath[4096];
  snprintf(logpath, sizeof logpath, o->log ? "%s" : "%s.log", o->log ? o->log : o->out);
  tune_record *prior = NULL;
  int nprior = 0;
  long end = 0;
  int rc = tune_log_read(logpath, &prior, &nprior, &end, err);
  FILE *f = rc ? NULL : fopen(logpath, "a");
  if (f && ftell(f) != end && ftruncate(fileno(f), end)) /* a killed run's partial last line */
    rc = OVTA_FAIL(err, OVTA_EIO, "%s: cannot truncate its partial last line", logpath);
  if (!rc && !f) rc = OVTA_FAIL(err, OVTA_EIO, "%s: cannot append", logpath);
  char wd[4200];
  snprintf(wd, sizeof wd, o->workdir ? "%s" : "%s.slurm", o->workdir ? o->workdir : o->out);
  tune_slurm slurm = {.exe = tool_self_exe(), .workdir = wd, .partition = o->partition, .extra = o->sbatch,
                      .max_running = o->jobs > 1 ? (int)o->jobs : 0, .timeout_s = o->timeout_s,
                      .retries = (int)o->retries};
  tune_runner run = {.backend = o->backend, .cfg = cfg, .cfgname = tool_config_name(o->cfgname),
                     .slurm = o->slurm ? &slurm : NULL, .jobs = (int)o->jobs, .timeout_s = o->timeout_s,
                     .watchdog_cycles = (uint64_t)o->watchdog};
  prog pg = {.nlayers = L->n};
  tune_opts to = {.runner = &run, .trials = (int)o->trials, .seed = (uint64_t)o->seed, .log = f,
                  .progress = progress, .ctx = &pg};
  for (int i = 0; !rc && i < L->n; i++) {
    pg.layer = i + 1;
    rc = tune_layer(cfg, L->names[i], &L->ops[i], &to, prior, nprior, &res[i], err);
    if (!rc) summary(L->names[i], &res[i]);
  }
  if (f) fclose(f);
  free(prior);
  return rc;
}

/* --measure: one trial of a JSON file measured here; its outcome as one JSON line on stdout (a
 * failed trial is an outcome, not an error). */
static int measure_one(const topts *o, const ovta_config *cfg, ovta_error *err) {
  size_t len = 0;
  char *text = NULL;
  tune_trial t = {0};
  int rc = ovta_read_file(o->measure, 1 << 20, &text, &len, err);
  if (!rc) rc = tune_trial_from_json(text, o->measure, &t, err);
  free(text);
  if (rc) return rc;
  tune_runner run = {.backend = o->backend, .cfg = cfg, .jobs = 1, .watchdog_cycles = (uint64_t)o->watchdog};
  uint64_t cycles = 0;
  ovta_error e = {0};
  cJSON *out = cJSON_CreateObject();
  if (tune_measure(&run, &t, &cycles, &e)) cJSON_AddStringToObject(out, "error", e.msg);
  else cJSON_AddNumberToObject(out, "cycles", (double)cycles);
  char *s = cJSON_PrintUnformatted(out);
  cJSON_Delete(out);
  tune_trial_free(&t);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  printf("%s\n", s);
  free(s);
  return OVTA_OK;
}

int ovta_cmd_tune(int argc, char **argv) {
  topts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  ovta_error err = {0};
  ovta_config cfg;
  if (o.measure) {
    rc = ovta_config_load(tool_config_name(o.cfgname), &cfg, &err);
    if (!rc) rc = measure_one(&o, &cfg, &err);
    return rc ? tool_error(&err, NULL) : 0;
  }
  ovta_graph *g = NULL;
  layers L = {0};
  tune_outcome *res = NULL;
  rc = ovta_config_load(tool_config_name(o.cfgname), &cfg, &err);
  if (!rc) rc = load_model(&o, &cfg, &g, &L, &err);
  if (!rc && !(res = calloc((size_t)L.n, sizeof *res))) rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
  if (!rc) rc = tune_all(&o, &cfg, &L, res, &err);
  if (!rc) rc = tune_write_tuning(o.out, L.names, res, L.n, &err);
  if (!rc) fprintf(stderr, "ovta: tuned %d layer(s) -> %s\n", L.n, o.out);
  for (int i = 0; i < L.n; i++) free(L.names[i]);
  free(L.names), free(L.ops), free(L.node), free(res);
  ovta_graph_free(g);
  return rc ? tool_error(&err, NULL) : 0;
}
