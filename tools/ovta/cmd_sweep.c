/* cmd_sweep.c: `ovta sweep --space SPACE.json --models A.onnx,B.onnx -o DIR`: hardware configs
 * of a design space (compiler/tune/sweep.c), each point built and measured: its config checked,
 * its Verilator model built (cached by config), each model compiled for it and run on tsim for
 * the cycles of one inference, and a Yosys estimate of its resources on a board's part; the table
 * (CSV, JSON), its Pareto front (cycles vs LUT/DSP/BRAM) and a gnuplot plot. Points run in local
 * worker processes (--jobs) or as a Slurm job array (--slurm) of `ovta sweep --point`.
 *
 * Sections:
 *   1. Options and help
 *   2. One point  - the worker: make the model, ovta profile per model, make synth (--point)
 *   3. The sweep  - points from the space, the log (resume), local or Slurm, the table and plot
 */
#include "ovta_tool.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tune.h"

/* ---------------------------------------------------------------- 1. Options and help */

static const char *const usage =
    "usage: ovta sweep --space SPACE.json --models A.onnx[:IMAGES.npy],B.onnx.. -o DIR [options]\n"
    "       ovta sweep --point POINT.json\n"
    "\n"
    "Explore hardware configs: every point of the space (a base config with each combination of\n"
    "the params' values) is checked like `ovta config` does, its Verilator model built (cached in\n"
    "build/tsim/NAME/ by config: a point equal to a shipped config uses that config's model), each\n"
    "model compiled for it (int8, conv/dense on the accelerator) and run on one image on tsim for\n"
    "its cycles, and its resources estimated by Yosys (synth_xilinx) for a board's part (cached in\n"
    "build/synth/). Out: DIR/sweep.csv and DIR/sweep.json (the table), DIR/pareto.csv (the points\n"
    "no other point beats in cycles, LUT, DSP and BRAM together), DIR/sweep.png|svg (gnuplot: cycles\n"
    "against LUTs, the front marked), DIR/points.jsonl (one line per measured point: a rerun\n"
    "measures only the points not there) and DIR/logs/ (each point's build and run output).\n"
    "\n"
    "SPACE.json: {\"base\": \"small\", \"params\": {\"LOG_INP_BUFF_SIZE\": [10, 11], \"CMD_QUEUE_DEPTH\": [4, 16]},\n"
    "             \"configs\": [\"default\"]}\n"
    "  params keys: any config key (`ovta config --json`); BATCH and BLOCK (BLOCK_IN = BLOCK_OUT) as\n"
    "  sizes; \"configs\": whole configs added as points. An invalid point is a failed row.\n"
    "\n"
    "  --models LIST     models, comma-separated; MODEL:IMAGES.npy gives a model its images\n"
    "  --images FILE     images of the models without their own (uint8 [N,H,W] or float; image 0)\n"
    "  --backend B       tsim (default: cycles) or fsim (no Verilator build, no cycles: checks only)\n"
    "  --part BOARD      the part of boards/BOARD/board.json (family, capacity; default pynq-z2),\n"
    "                    or none: no synthesis (the front is then on cycles only)\n"
    "  --jobs N          points at once, each in its own worker process (default 1); with\n"
    "                    --slurm, array tasks running at once (default: Slurm's choice)\n"
    "  --timeout SEC     wall-clock limit of one point (default 3600)\n"
    "  -o DIR            the output folder\n"
    "  --slurm           run the points as a Slurm job array (sbatch; squeue to watch); the\n"
    "                    working folder must be shared with the nodes\n"
    "  --partition P     Slurm partition (default: the cluster's)\n"
    "  --sbatch OPTS     more sbatch options, space-separated\n"
    "  --retries N       resubmit a failed Slurm task N times (default 1)\n"
    "  --workdir DIR     Slurm working folder (default DIR/slurm)\n"
    "  --point POINT     measure one point in this process, the worker of --slurm: POINT is\n"
    "                    {\"name\", \"config\": PATH, \"backend\", \"part\", \"logdir\", \"models\":\n"
    "                    [{\"path\", \"images\"}]}; prints its result as one JSON line\n";

/* One model of the sweep. */
typedef struct smodel {
  char path[1024];   /* the model file */
  char images[1024]; /* its images */
} smodel;

/* The command line. */
typedef struct sopts {
  const char *space, *models, *images; /* --space, --models, --images */
  const char *backend, *part, *out;    /* --backend, --part, -o */
  const char *point;                   /* --point POINT.json: the worker mode */
  const char *partition, *sbatch, *workdir; /* --slurm's options */
  bool slurm;                          /* --slurm */
  int64_t jobs, retries;               /* --jobs, --retries */
  double timeout_s;                    /* --timeout */
} sopts;

static int parse_opt(int argc, char **argv, int *i, sopts *o) {
  const char *v;
  const tool_numopt nums[] = {{"--jobs", 1, 64, &o->jobs}, {"--retries", 0, 100, &o->retries}};
  const tool_stropt strs[] = {{"--space", &o->space},     {"--models", &o->models},  {"--images", &o->images},
                              {"--backend", &o->backend}, {"--part", &o->part},      {"-o", &o->out},
                              {"--output", &o->out},      {"--point", &o->point},    {"--partition", &o->partition},
                              {"--sbatch", &o->sbatch},   {"--workdir", &o->workdir}};
  int t = tool_opt_table(argc, argv, i, "sweep", nums, 2, strs, 11);
  if (t) return t == 1 ? 0 : t;
  if (!strcmp(argv[*i], "--slurm")) {
    o->slurm = true;
    return 0;
  }
  if (tool_opt(argc, argv, i, "--timeout", &v)) {
    char *end;
    o->timeout_s = v ? strtod(v, &end) : 0;
    if (!v || *end || !(o->timeout_s > 0)) return tool_usage("sweep", "--timeout needs seconds > 0");
    return 0;
  }
  return tool_usage("sweep", "unknown argument '%s'", argv[*i]);
}

/* -1: help printed; 2: usage error. */
static int parse_args(int argc, char **argv, sopts *o) {
  *o = (sopts){.backend = "tsim", .part = "pynq-z2", .jobs = 1, .retries = 1, .timeout_s = 3600};
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) {
      fputs(usage, stdout);
      return -1;
    }
    int rc = parse_opt(argc, argv, &i, o);
    if (rc) return rc;
  }
  if (o->point) return o->space || o->models ? tool_usage("sweep", "--point takes no --space or --models") : 0;
  if (!o->space) return tool_usage("sweep", "no space given (--space SPACE.json)");
  if (!o->models) return tool_usage("sweep", "no models given (--models A.onnx,B.onnx)");
  if (!o->out) return tool_usage("sweep", "no output folder given (-o DIR)");
  if (strcmp(o->backend, "tsim") && strcmp(o->backend, "fsim"))
    return tool_usage("sweep", "--backend must be tsim or fsim, not '%s'", o->backend);
  if (!o->slurm && (o->partition || o->sbatch || o->workdir))
    return tool_usage("sweep", "--partition, --sbatch and --workdir need --slurm");
  return 0;
}

/* The models of --models/--images. */
static int parse_models(const sopts *o, smodel **ms, int *n, ovta_error *err) {
  char *list = strdup(o->models), *save = NULL;
  *ms = calloc(SWEEP_MAX_MODELS, sizeof **ms), *n = 0;
  if (!list || !*ms) return free(list), OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int rc = OVTA_OK;
  for (char *t = strtok_r(list, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
    if (*n == SWEEP_MAX_MODELS) rc = OVTA_FAIL(err, OVTA_EINVAL, "--models: more than %d models", SWEEP_MAX_MODELS);
    char *colon = rc ? NULL : strchr(t, ':');
    if (colon) *colon = 0;
    const char *img = colon ? colon + 1 : o->images;
    if (!rc && !img) rc = OVTA_FAIL(err, OVTA_EINVAL, "--models: %s has no images (MODEL:IMAGES.npy or --images)", t);
    if (!rc && access(t, R_OK)) rc = OVTA_FAIL(err, OVTA_EIO, "--models: %s: %s", t, strerror(errno));
    if (!rc && access(img, R_OK)) rc = OVTA_FAIL(err, OVTA_EIO, "%s: %s", img, strerror(errno));
    if (!rc) {
      snprintf((*ms)[*n].path, sizeof(*ms)[*n].path, "%s", t);
      snprintf((*ms)[(*n)++].images, sizeof(*ms)[0].images, "%s", img);
    }
  }
  free(list);
  if (!rc && !*n) rc = OVTA_FAIL(err, OVTA_EINVAL, "--models: no model");
  return rc;
}

/* ---------------------------------------------------------------- 2. One point */

/* A point as the worker gets it. */
typedef struct spoint {
  char name[64];                   /* config name (the model's folder under build/tsim/) */
  char config[1024];               /* config file */
  char backend[16];                /* tsim or fsim */
  char part[64];                   /* board of the part, "" for no synthesis */
  char logdir[1024];               /* where the build and run output go */
  int nmodels;                     /* models */
  smodel models[SWEEP_MAX_MODELS]; /* and their images */
} spoint;

/* `make -C SRC ARGS..` with its output appended to log. */
static int make(const char *log, const char *what, char *const *args, char *why, size_t cap) {
  char *argv[16] = {"make", "-C", OVTA_SRC_DIR, "--no-print-directory"};
  int a = 4;
  for (; *args && a < 15; args++) argv[a++] = *args;
  argv[a] = NULL;
  int st = tune_run_capture(argv, NULL, log);
  if (st) snprintf(why, cap, "%s failed (make status %d; see %.120s)", what, st, log);
  return st;
}

/* Build the point's Verilator model (make; a cached one is kept). */
static int build_model(const spoint *p, const char *log, char *why, size_t cap) {
  char target[200], json[1100];
  snprintf(target, sizeof target, "build/tsim/%s/libovta_tsim.so", p->name);
  snprintf(json, sizeof json, "TSIM_JSON=%s", p->config);
  bool shipped = strncmp(p->name, "sweep-", 6) != 0;
  char *args[] = {shipped ? target : json, target, NULL};
  return make(log, "the Verilator model", shipped ? args + 1 : args, why, cap);
}

/* The last "ovta: error: " line of log (what a failed profile said) into buf, else "". */
static void last_error(const char *log, char *buf, size_t cap) {
  char *text = NULL, *at = NULL;
  ovta_error e = {0};
  buf[0] = 0;
  if (ovta_read_file(log, 1 << 24, &text, NULL, &e) || !text) return;
  for (char *q = text; (q = strstr(q, "ovta: error: ")); q++) at = q + 13;
  if (at) snprintf(buf, cap, "%.*s", (int)strcspn(at, "\n"), at);
  free(text);
}

/* One model's cycles (ovta profile --json: totals.cycles; fsim: 0). */
static int run_model(const spoint *p, const smodel *m, const char *log, uint64_t *cycles, char *why, size_t cap) {
  char *argv[] = {(char *)tool_self_exe(), "profile",          (char *)m->path,   "--images",
                  (char *)m->images,       "--backend",        (char *)p->backend, "--config",
                  (char *)p->config,       "--json",           NULL},
       *out = NULL, said[160];
  int st = tune_run_capture(argv, &out, log);
  cJSON *j = st ? NULL : cJSON_Parse(out);
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "totals"), "cycles");
  *cycles = cJSON_IsNumber(c) && c->valuedouble >= 0 ? (uint64_t)c->valuedouble : 0;
  bool ok = j && (cJSON_IsNumber(c) || !strcmp(p->backend, "fsim"));
  if (!ok) last_error(log, said, sizeof said);
  const char *base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
  if (!ok) snprintf(why, cap, "%.40s: %s", base, said[0] ? said : "profile failed (see the point's log)");
  cJSON_Delete(j);
  free(out);
  return ok ? 0 : 1;
}

/* The board's yosys family and capacity (lut ff dsp bram36). */
static int board_part(const char *board, char *family, size_t fcap, double cap4[4], char *why, size_t cap) {
  char path[1200], *text = NULL;
  snprintf(path, sizeof path, "%s/boards/%.100s/board.json", OVTA_SRC_DIR, board);
  ovta_error e = {0};
  if (ovta_read_file(path, 1 << 20, &text, NULL, &e))
    return snprintf(why, cap, "--part %.40s: %.140s", board, e.msg), 1;
  cJSON *j = cJSON_Parse(text);
  free(text);
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "yosys_family"),
              *c = cJSON_GetObjectItemCaseSensitive(j, "capacity");
  static const char *const k[4] = {"lut", "ff", "dsp", "bram36"};
  int rc = cJSON_IsString(f) ? 0 : 1;
  for (int i = 0; !rc && i < 4; i++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(c, k[i]);
    if (cJSON_IsNumber(x))
      cap4[i] = x->valuedouble;
    else
      rc = 1;
  }
  if (!rc)
    snprintf(family, fcap, "%s", f->valuestring);
  else
    snprintf(why, cap, "%.150s: no yosys_family or capacity", path);
  cJSON_Delete(j);
  return rc;
}

/* Yosys's estimate of the point's resources (make synth; cached in build/synth/). */
static int synth(const spoint *p, const char *log, sweep_result *r, char *why, size_t cap) {
  char family[32], cfgarg[1100], famarg[64], out[1200], *text = NULL;
  double lim[4];
  if (board_part(p->part, family, sizeof family, lim, why, cap)) return 1;
  snprintf(cfgarg, sizeof cfgarg, "SYNTH_CONFIG=%s", p->config);
  snprintf(famarg, sizeof famarg, "SYNTH_FAMILY=%s", family);
  char *args[] = {"synth", cfgarg, famarg, NULL};
  if (make(log, "synthesis", args, why, cap)) return 1;
  const char *base = strrchr(p->config, '/') ? strrchr(p->config, '/') + 1 : p->config;
  snprintf(out, sizeof out, "%s/build/synth/%.*s%s%s.json", OVTA_SRC_DIR, (int)(strlen(base) - 5), base,
           strcmp(family, "xc7") ? "-" : "", strcmp(family, "xc7") ? family : "");
  ovta_error e = {0};
  if (ovta_read_file(out, 1 << 20, &text, NULL, &e)) return snprintf(why, cap, "synthesis: %.180s", e.msg), 1;
  cJSON *j = cJSON_Parse(text);
  free(text);
  char *s = cJSON_PrintUnformatted(j);
  sweep_result t = {0};
  /* the report's lut/ff/dsp/bram36 are the result's fields: read them the same way */
  cJSON_AddBoolToObject(j, "ok", 1), cJSON_AddArrayToObject(j, "cycles");
  free(s), s = cJSON_PrintUnformatted(j);
  int rc = s && !sweep_result_from_json(s, &t, &e) && t.synth ? 0 : 1;
  if (rc)
    snprintf(why, cap, "synthesis: %.150s has no lut/ff/dsp/bram36", out);
  else
    r->synth = true, r->lut = t.lut, r->ff = t.ff, r->dsp = t.dsp, r->bram36 = t.bram36,
    r->fits = t.lut <= lim[0] && t.ff <= lim[1] && t.dsp <= lim[2] && t.bram36 <= lim[3];
  free(s);
  cJSON_Delete(j);
  return rc;
}

/* Measure one point (in a worker: it may take minutes). */
static void run_point(const spoint *p, sweep_result *r) {
  char log[1200];
  ovta_config cfg;
  ovta_error e = {0};
  *r = (sweep_result){0};
  snprintf(log, sizeof log, "%s/%s.log", p->logdir, p->name);
  if (ovta_config_load(p->config, &cfg, &e)) {
    snprintf(r->error, sizeof r->error, "%.199s", e.msg);
    return;
  }
  if (!strcmp(p->backend, "tsim") && build_model(p, log, r->error, sizeof r->error)) return;
  for (int m = 0; m < p->nmodels; m++) {
    if (run_model(p, &p->models[m], log, &r->cycles[m], r->error, sizeof r->error)) return;
    r->total += r->cycles[m], r->nmodels++;
  }
  if (p->part[0] && synth(p, log, r, r->error, sizeof r->error)) return;
  r->ok = true;
}

/* A point as JSON (what --point reads). */
static char *point_to_json(const spoint *p) {
  cJSON *o = cJSON_CreateObject(), *ms = cJSON_CreateArray();
  cJSON_AddStringToObject(o, "name", p->name), cJSON_AddStringToObject(o, "config", p->config);
  cJSON_AddStringToObject(o, "backend", p->backend), cJSON_AddStringToObject(o, "part", p->part);
  cJSON_AddStringToObject(o, "logdir", p->logdir);
  for (int m = 0; m < p->nmodels; m++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "path", p->models[m].path), cJSON_AddStringToObject(x, "images", p->models[m].images);
    cJSON_AddItemToArray(ms, x);
  }
  cJSON_AddItemToObject(o, "models", ms);
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}

/* A string field of o into dst (cap bytes); false when missing or too long. */
static bool str_field(const cJSON *o, const char *k, char *dst, size_t cap) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsString(x) || strlen(x->valuestring) >= cap) return false;
  memcpy(dst, x->valuestring, strlen(x->valuestring) + 1);
  return true;
}

/* Only characters make takes literally (a path or name goes into make's command line). */
static bool make_safe(const char *s) {
  return *s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+-") == strlen(s);
}

static int point_from_json(const char *text, const char *origin, spoint *p, ovta_error *err) {
  *p = (spoint){0};
  cJSON *o = cJSON_Parse(text);
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "models");
  static const char *const keys[] = {"name", "config", "backend", "part", "logdir"};
  char *dst[] = {p->name, p->config, p->backend, p->part, p->logdir};
  size_t caps[] = {sizeof p->name, sizeof p->config, sizeof p->backend, sizeof p->part, sizeof p->logdir};
  int rc = cJSON_IsObject(o) ? OVTA_OK : OVTA_FAIL(err, OVTA_EPARSE, "%s: not a JSON object", origin);
  for (int k = 0; !rc && k < 5; k++)
    if (!str_field(o, keys[k], dst[k], caps[k]))
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: bad or missing \"%s\"", origin, keys[k]);
  if (!rc && strcmp(p->backend, "tsim") && strcmp(p->backend, "fsim"))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: backend must be tsim or fsim", origin);
  if (!rc && (strchr(p->name, '/') || strchr(p->part, '/') || !make_safe(p->name) ||
              (p->part[0] && !make_safe(p->part)) || !make_safe(p->config)))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: name, part and config must be plain names and paths (A-Z a-z 0-9 / . _ + -)",
                   origin);
  if (!rc && (!cJSON_IsArray(ms) || cJSON_GetArraySize(ms) < 1 || cJSON_GetArraySize(ms) > SWEEP_MAX_MODELS))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: \"models\" must be 1..%d objects", origin, SWEEP_MAX_MODELS);
  for (const cJSON *m = rc ? NULL : ms->child; m && !rc; m = m->next, p->nmodels++)
    if (!str_field(m, "path", p->models[p->nmodels].path, sizeof p->models[0].path) ||
        !str_field(m, "images", p->models[p->nmodels].images, sizeof p->models[0].images))
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: models[%d] needs \"path\" and \"images\"", origin, p->nmodels);
  cJSON_Delete(o);
  return rc;
}

/* --point: one point measured here, its result as one JSON line on stdout. */
static int point_main(const char *path, ovta_error *err) {
  char *text = NULL;
  spoint p;
  int rc = ovta_read_file(path, 1 << 20, &text, NULL, err);
  if (!rc) rc = point_from_json(text, path, &p, err);
  free(text);
  if (rc) return rc;
  sweep_result r;
  run_point(&p, &r);
  char *s = sweep_result_to_json(&r);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  printf("%s\n", s);
  free(s);
  return OVTA_OK;
}

/* ---------------------------------------------------------------- 3. The sweep */

/* The whole sweep's state. */
typedef struct sweep {
  const sopts *o;
  sweep_point *pts;   /* the points of the space */
  int n;              /* points */
  spoint *work;       /* the worker's view of each point */
  sweep_result *res;  /* their results */
  bool *done;         /* result known (the log, or an invalid config) */
  char logpath[1100]; /* DIR/points.jsonl */
} sweep;

/* The log record's key of a point: what was measured (config, backend, part, models). */
static void record_key(const spoint *p, char *key, size_t cap) {
  size_t len = (size_t)snprintf(key, cap, "%s|%s|%s", p->name, p->backend, p->part);
  for (int m = 0; m < p->nmodels && len < cap; m++)
    len += (size_t)snprintf(key + len, cap - len, "|%s:%s", p->models[m].path, p->models[m].images);
}

/* Results of an earlier run (DIR/points.jsonl) for the points measured then. */
static int read_log(sweep *s, ovta_error *err) {
  char *text = NULL;
  if (access(s->logpath, F_OK)) return OVTA_OK;
  int rc = ovta_read_file(s->logpath, 1 << 26, &text, NULL, err);
  for (char *line = rc ? NULL : text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (!nl) break; /* a killed run's partial last line */
    *nl = 0;
    cJSON *j = cJSON_Parse(line);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "key"), *r = cJSON_GetObjectItemCaseSensitive(j, "result");
    char *rs = r ? cJSON_PrintUnformatted(r) : NULL;
    sweep_result got;
    ovta_error e = {0};
    if (!cJSON_IsString(k) || !rs || sweep_result_from_json(rs, &got, &e))
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: a bad record (%.60s)", s->logpath, line);
    for (int i = 0; !rc && i < s->n; i++) {
      char key[4096];
      record_key(&s->work[i], key, sizeof key);
      if (!s->done[i] && got.ok && !strcmp(key, k->valuestring)) s->res[i] = got, s->done[i] = true;
    }
    free(rs);
    cJSON_Delete(j);
    if (rc) break;
  }
  free(text);
  return rc;
}

static void append_log(const sweep *s, int i) {
  char key[4096], *rs = sweep_result_to_json(&s->res[i]);
  record_key(&s->work[i], key, sizeof key);
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "key", key);
  cJSON_AddItemToObject(j, "result", rs ? cJSON_Parse(rs) : cJSON_CreateNull());
  char *line = cJSON_PrintUnformatted(j);
  FILE *f = fopen(s->logpath, "a");
  if (f && line) fprintf(f, "%s\n", line);
  if (f) fclose(f);
  free(line), free(rs);
  cJSON_Delete(j);
}

static void point_task(void *ctx, int i, void *out) { run_point(&((const spoint *)ctx)[i], out); }

/* The points not done, through the local pool or Slurm; pending[k] = point index. */
static int run_pending(sweep *s, const int *pending, int np, ovta_error *err) {
  spoint *w = calloc((size_t)np + 1, sizeof *w);
  sweep_result *r = calloc((size_t)np + 1, sizeof *r);
  char(*why)[200] = calloc((size_t)np + 1, sizeof *why);
  int rc = w && r && why ? OVTA_OK : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int k = 0; !rc && k < np; k++) w[k] = s->work[pending[k]];
  if (!rc && !s->o->slurm) {
    tune_pool pool = {.jobs = (int)s->o->jobs, .timeout_s = s->o->timeout_s};
    rc = tune_pool_run(&pool, np, point_task, w, r, sizeof *r, why, err);
  } else if (!rc) {
    char wd[1200], (*paths)[1300] = calloc((size_t)np + 1, sizeof *paths),
                   **outs = calloc((size_t)np + 1, sizeof *outs);
    const char *(*argv)[5] = calloc((size_t)np + 1, sizeof *argv);
    const char *const **argvs = calloc((size_t)np + 1, sizeof *argvs);
    snprintf(wd, sizeof wd, "%s", s->o->workdir ? s->o->workdir : "");
    if (!s->o->workdir) snprintf(wd, sizeof wd, "%s/slurm", s->o->out);
    if (!paths || !outs || !argv || !argvs) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    if (!rc && mkdir(wd, 0777) && errno != EEXIST) rc = OVTA_FAIL(err, OVTA_EIO, "%s: %s", wd, strerror(errno));
    for (int k = 0; !rc && k < np; k++) {
      char *js = point_to_json(&w[k]);
      snprintf(paths[k], sizeof paths[k], "%s/point.%s.json", wd, w[k].name);
      FILE *f = js ? fopen(paths[k], "w") : NULL;
      if (!f || fputs(js, f) < 0 || fclose(f)) rc = OVTA_FAIL(err, OVTA_EIO, "%s: cannot write", paths[k]);
      free(js);
      argv[k][0] = tool_self_exe(), argv[k][1] = "sweep", argv[k][2] = "--point", argv[k][3] = paths[k];
      argvs[k] = argv[k];
    }
    tune_slurm sl = {.exe = tool_self_exe(),
                     .workdir = wd,
                     .partition = s->o->partition,
                     .extra = s->o->sbatch,
                     .max_running = s->o->jobs > 1 ? (int)s->o->jobs : 0,
                     .timeout_s = s->o->timeout_s,
                     .retries = (int)s->o->retries};
    if (!rc) rc = tune_slurm_run(&sl, "ovta-sweep", np, argvs, outs, why, err);
    for (int k = 0; !rc && k < np; k++) {
      ovta_error e = {0};
      if (outs[k] && sweep_result_from_json(outs[k], &r[k], &e))
        snprintf(why[k], sizeof why[k], "unreadable --point output: %.150s", e.msg);
    }
    for (int k = 0; outs && k < np; k++) free(outs[k]);
    free(paths), free(outs), free(argv), free(argvs);
  }
  for (int k = 0; !rc && k < np; k++) {
    int i = pending[k];
    s->res[i] = r[k];
    if (why[k][0]) s->res[i] = (sweep_result){0}, snprintf(s->res[i].error, sizeof s->res[i].error, "%s", why[k]);
    s->done[i] = true;
    append_log(s, i);
  }
  free(w), free(r), free(why);
  return rc;
}

/* The plot: DIR/sweep.dat and tools/plot/sweep.gp (cycles against LUTs, or per point). */
static int plot(const sweep *s, const bool *front, ovta_error *err) {
  char dat[1200], img[1200], defs[4000], script[700];
  snprintf(dat, sizeof dat, "%s/sweep.dat", s->o->out);
  FILE *f = fopen(dat, "w");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", dat, strerror(errno));
  int k = 0, res = 1;
  fprintf(f, "# point config cycles lut dsp bram36 pareto\n");
  for (int i = 0; i < s->n; i++) {
    if (!s->res[i].ok) continue;
    res &= s->res[i].synth;
    fprintf(f, "%d %s %llu %d %d %.1f %d\n", i, s->pts[i].name, (unsigned long long)s->res[i].total, s->res[i].lut,
            s->res[i].dsp, s->res[i].bram36, front[i]);
    k++;
  }
  fclose(f);
  if (!k) return OVTA_OK;
  const char *term = tool_plot_terminal();
  snprintf(img, sizeof img, "%s/sweep.%s", s->o->out, strcmp(term, "svg") ? "png" : "svg");
  snprintf(defs, sizeof defs, "datafile='%s'; outfile='%s'; term='%s'; hasres=%d; backend='%s'; part='%s'", dat, img,
           term, res, s->o->backend, s->o->part);
  snprintf(script, sizeof script, "%s/tools/plot/sweep.gp", OVTA_SRC_DIR);
  int rc = tool_gnuplot(defs, script, err);
  if (!rc) fprintf(stderr, "ovta: sweep: plot %s\n", img);
  return rc;
}

static int write_tables(sweep *s, char **names, int nm, ovta_error *err) {
  bool *front = calloc((size_t)s->n + 1, 1);
  char csv[1200], js[1200], pf[1200];
  if (!front) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  sweep_pareto(s->res, s->n, front);
  snprintf(csv, sizeof csv, "%s/sweep.csv", s->o->out);
  snprintf(js, sizeof js, "%s/sweep.json", s->o->out);
  snprintf(pf, sizeof pf, "%s/pareto.csv", s->o->out);
  const char *part = strcmp(s->o->part, "none") ? s->o->part : NULL;
  int rc = sweep_write_csv(csv, s->pts, s->res, front, s->n, NULL, names, nm, err);
  if (!rc) rc = sweep_write_json(js, s->pts, s->res, front, s->n, names, nm, s->o->backend, part, err);
  /* pareto.csv: the front's rows alone */
  sweep_result *fr = rc ? NULL : calloc((size_t)s->n + 1, sizeof *fr);
  sweep_point *fp = rc ? NULL : calloc((size_t)s->n + 1, sizeof *fp);
  bool *ff = rc ? NULL : calloc((size_t)s->n + 1, 1);
  int nf = 0, *idx = rc ? NULL : calloc((size_t)s->n + 1, sizeof *idx);
  for (int i = 0; fr && fp && ff && idx && i < s->n; i++)
    if (front[i]) fr[nf] = s->res[i], fp[nf] = s->pts[i], idx[nf] = i, ff[nf++] = true;
  if (!rc)
    rc = fr && fp && ff && idx ? sweep_write_csv(pf, fp, fr, ff, nf, idx, names, nm, err)
                               : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (!rc) rc = plot(s, front, err);
  int ok = 0;
  for (int i = 0; i < s->n; i++) ok += s->res[i].ok;
  if (!rc)
    fprintf(stderr, "ovta: sweep: %d point(s), %d measured, %d on the Pareto front -> %s, %s\n", s->n, ok, nf, csv, js);
  free(front), free(fr), free(fp), free(ff), free(idx);
  return rc;
}

/* The worker views of the points (invalid configs are done: failed rows). */
static int prepare(sweep *s, const smodel *ms, int nm, ovta_error *err) {
  char logdir[1100];
  snprintf(logdir, sizeof logdir, "%s/logs", s->o->out);
  if ((mkdir(s->o->out, 0777) && errno != EEXIST) || (mkdir(logdir, 0777) && errno != EEXIST))
    return OVTA_FAIL(err, OVTA_EIO, "%s: %s", logdir, strerror(errno));
  char *abs = realpath(logdir, NULL);
  for (int i = 0; i < s->n; i++) {
    spoint *p = &s->work[i];
    snprintf(p->name, sizeof p->name, "%s", s->pts[i].name);
    snprintf(p->config, sizeof p->config, "%s", s->pts[i].cfgpath);
    snprintf(p->backend, sizeof p->backend, "%s", s->o->backend);
    snprintf(p->part, sizeof p->part, "%s", strcmp(s->o->part, "none") ? s->o->part : "");
    snprintf(p->logdir, sizeof p->logdir, "%.1000s", abs ? abs : logdir);
    p->nmodels = nm;
    for (int m = 0; m < nm; m++) {
      char *a = realpath(ms[m].path, NULL), *b = realpath(ms[m].images, NULL);
      snprintf(p->models[m].path, sizeof p->models[m].path, "%s", a ? a : ms[m].path);
      snprintf(p->models[m].images, sizeof p->models[m].images, "%s", b ? b : ms[m].images);
      free(a), free(b);
    }
    if (s->pts[i].error[0]) {
      s->done[i] = true;
      snprintf(s->res[i].error, sizeof s->res[i].error, "invalid config: %.180s", s->pts[i].error);
    }
  }
  free(abs);
  if (strcmp(s->o->part, "none")) {
    char fam[32], why[200];
    double lim[4];
    if (board_part(s->o->part, fam, sizeof fam, lim, why, sizeof why)) return OVTA_FAIL(err, OVTA_EINVAL, "%s", why);
  }
  return OVTA_OK;
}

static int sweep_main(const sopts *o, ovta_error *err) {
  sweep s = {.o = o};
  smodel *ms = NULL;
  int nm = 0, *pending = NULL, np = 0;
  char *text = NULL, cfgdir[700], *names[SWEEP_MAX_MODELS] = {0};
  snprintf(cfgdir, sizeof cfgdir, "%s/build/sweep-configs", OVTA_SRC_DIR);
  snprintf(s.logpath, sizeof s.logpath, "%s/points.jsonl", o->out);
  int rc = parse_models(o, &ms, &nm, err);
  if (!rc) rc = ovta_read_file(o->space, 1 << 20, &text, NULL, err);
  if (!rc) rc = sweep_space(text, o->space, cfgdir, &s.pts, &s.n, err);
  if (!rc) {
    s.work = calloc((size_t)s.n + 1, sizeof *s.work), s.res = calloc((size_t)s.n + 1, sizeof *s.res);
    s.done = calloc((size_t)s.n + 1, 1), pending = calloc((size_t)s.n + 1, sizeof *pending);
    if (!s.work || !s.res || !s.done || !pending) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  if (!rc) rc = prepare(&s, ms, nm, err);
  if (!rc) rc = read_log(&s, err);
  /* a config twice in the space (a product point equal to a listed config) is measured once */
  for (int i = 0; !rc && i < s.n; i++) {
    bool dup = false;
    for (int j = 0; j < i && !dup; j++) dup = !s.pts[i].error[0] && !strcmp(s.pts[j].name, s.pts[i].name);
    if (!s.done[i] && !dup) pending[np++] = i;
  }
  if (!rc) fprintf(stderr, "ovta: sweep: %d point(s), %d to measure (%s)\n", s.n, np, o->slurm ? "slurm" : "local");
  if (!rc && np) rc = run_pending(&s, pending, np, err);
  for (int i = 0; !rc && i < s.n; i++)
    for (int j = 0; j < i && !s.done[i]; j++)
      if (!strcmp(s.pts[j].name, s.pts[i].name)) s.res[i] = s.res[j], s.done[i] = true;
  for (int m = 0; m < nm; m++) {
    const char *b = strrchr(ms[m].path, '/');
    names[m] = (char *)(b ? b + 1 : ms[m].path);
  }
  if (!rc) rc = write_tables(&s, names, nm, err);
  free(text), free(ms), free(s.pts), free(s.work), free(s.res), free(s.done), free(pending);
  return rc;
}

int ovta_cmd_sweep(int argc, char **argv) {
  sopts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  ovta_error err = {0};
  rc = o.point ? point_main(o.point, &err) : sweep_main(&o, &err);
  return rc ? tool_error(&err, NULL) : 0;
}
