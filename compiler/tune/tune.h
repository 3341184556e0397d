/* tune.h: the autotuner (compiler/tune/, `ovta tune`): owns the search over the tiling knobs of
 * one accelerator layer, the measurement of one candidate, the trial runner and the resumable
 * trial log. The candidates come from the planner (vta_plan_space, accel.h); the tuning file it
 * writes is the one `ovta compile --tuning` reads (vta_knobs_from_json).
 *
 * Sections:
 *   1. Cost model - XGBoost (Debian's libxgboost-dev, C API) regression on trial features (xgb.c).
 *   2. Trials     - one candidate measured alone (measure.c); the local runner: forked worker
 *                   processes, a watchdog per trial (runner.c).
 *   3. Search     - per layer: measured trials train the model, the model ranks a random pool,
 *                   the top plus random picks are measured (search.c); the log (log.c).
 *   4. Runners    - where tasks run: forked local workers (runner.c), Slurm job arrays (slurm.c);
 *                   the tuner's trials and the sweep's design points both go through them.
 *   5. Sweep      - `ovta sweep`: hardware configs of a space, each point's cycles and resources,
 *                   the table and its Pareto front (sweep.c).
 */
#ifndef OVTA_TUNE_H
#define OVTA_TUNE_H

#include "accel.h"

#include <stdio.h>

/* ---------------------------------------------------------------- 1. Cost model */

typedef struct tune_model tune_model;
/* Fit a boosted-tree regression of y on the rows of x (n rows, nf features, row-major), `rounds`
 * boosting rounds, one thread, seeded: the same inputs give the same model. */
int tune_model_fit(const float *x, const float *y, int n, int nf, int rounds, uint64_t seed, tune_model **out,
                   ovta_error *err);
/* Predictions for n rows of x into out. */
int tune_model_predict(tune_model *m, const float *x, int n, int nf, float *out, ovta_error *err);
void tune_model_free(tune_model *m);

/* The features of a tiling of op: the knobs, the planner's estimate and derived quantities
 * (tiles, reduction steps, SRAM fill), the fused add's form, the chunked epilogue (0/1). TUNE_NFEAT
 * floats into f. */
#define TUNE_NFEAT 15
int tune_features(const ovta_config *cfg, const vta_op *op, const vta_tiling *t, float *f, ovta_error *err);

/* ---------------------------------------------------------------- 2. Trials */

/* One trial: everything a worker needs to measure a candidate (a remote runner would send it). */
typedef struct tune_trial {
  const vta_op *op;        /* the layer (its shifts stay the caller's) */
  vta_tiling t;            /* the candidate */
} tune_trial;
/* A trial as one JSON object (the op with every field and its shifts, the knobs, the estimate;
 * log.c): what a batch-scheduler runner (Slurm) submits to a worker. Malloc'd; NULL: no memory. */
char *tune_trial_to_json(const tune_trial *t);
/* The trial of tune_trial_to_json's text into *t; t->op is allocated (tune_trial_free). An error
 * names origin and the first bad field. */
int tune_trial_from_json(const char *json, const char *origin, tune_trial *t, ovta_error *err);
void tune_trial_free(tune_trial *t);

/* The outcome of a trial. */
typedef struct tune_result {
  bool ok;                 /* measured, and the outputs match the reference */
  uint64_t cycles;         /* ok: device cycles (a backend without a cycle counter: the estimate) */
  char error[200];         /* !ok: why (the layer's error, "timeout after S s", a crashed worker) */
} tune_result;


typedef struct tune_slurm tune_slurm;
/* Where trials run. The local runner forks up to `jobs` workers, each measuring one trial and
 * sending its tune_result over a pipe; a worker past `timeout_s` is killed and its trial failed.
 * With `slurm` the trials go to Slurm as one job array of `ovta tune --measure` (slurm.c). */
typedef struct tune_runner {
  const char *backend;     /* device backend: "tsim", "fsim" */
  const ovta_config *cfg;  /* the accelerator config */
  const char *cfgname;     /* its name or path (what a Slurm task's --config gets) */
  const tune_slurm *slurm; /* NULL: local workers */
  int jobs;                /* worker processes (>= 1) */
  double timeout_s;        /* wall-clock limit of one trial (<= 0: none) */
  uint64_t watchdog_cycles;/* tsim's watchdog (0: its default) */
} tune_runner;
/* Measure one candidate in this process: the layer alone on random data on a fresh device of
 * r's backend, the output checked against vta_reference (a mismatch is an error). */
int tune_measure(const tune_runner *r, const tune_trial *t, uint64_t *cycles, ovta_error *err);
/* Run n trials; res[i] is trial i's outcome. Fails only when workers cannot be started (or
 * Slurm does not take the job). */
int tune_run_batch(const tune_runner *r, const tune_trial *t, int n, tune_result *res, ovta_error *err);

/* ---------------------------------------------------------------- 3. Search and log */

/* One log record: a trial of a layer. */
typedef struct tune_record {
  char layer[128];         /* the node name */
  vta_tiling t;            /* the candidate */
  tune_result r;           /* its outcome */
} tune_record;

/* Records of a JSON-lines log (one object a line, tune_log_append's form); a missing file is
 * empty. A last line without its newline (a killed run) is skipped; *end gets the bytes up to
 * it (truncate there before appending); any other bad line is an error naming the line. */
int tune_log_read(const char *path, tune_record **out, int *n, long *end, ovta_error *err);
/* Append one record as one line and flush it. */
int tune_log_append(FILE *f, const tune_record *rec, ovta_error *err);

/* Search options. */
typedef struct tune_opts {
  const tune_runner *runner;
  int trials;              /* trials per layer, counting those already in the log */
  uint64_t seed;           /* the search's random choices and the model's */
  FILE *log;               /* new records are appended here */
  void (*progress)(void *ctx, const char *layer, int done, int total, uint64_t best); /* after each batch */
  void *ctx;
} tune_opts;

/* What the search found for a layer. */
typedef struct tune_outcome {
  bool found;              /* some trial succeeded */
  vta_tiling best;         /* the fewest cycles (ties: the earlier trial) */
  uint64_t best_cycles;
  vta_tiling heuristic;    /* vta_plan_make's own choice (always measured first) */
  bool heuristic_ok;
  uint64_t heuristic_cycles;
  int trials, failed;      /* records of the layer (log and new), failed ones */
} tune_outcome;

/* Tune layer `name` (op): prior records of the log count as trials already done. */
int tune_layer(const ovta_config *cfg, const char *name, const vta_op *op, const tune_opts *o,
               const tune_record *prior, int nprior, tune_outcome *out, ovta_error *err);

/* A tuning JSON {"ops": {NAME: {t_n.., vthreads[, res_form], epi}}} of the layers with found[i]. */
int tune_write_tuning(const char *path, char *const *names, const tune_outcome *res, int n, ovta_error *err);

/* ---------------------------------------------------------------- 4. Runners */

/* A task of the local pool: run task i, its result into out (the pool's `size` bytes, zeroed).
 * Runs in a forked worker: it may crash or hang; that costs only its task. */
typedef void (*tune_task_fn)(void *ctx, int i, void *out);
/* The local pool. */
typedef struct tune_pool {
  int jobs;                /* worker processes at once (1..64) */
  double timeout_s;        /* wall-clock limit of one task (<= 0: none); its process group is killed */
} tune_pool;
/* Run tasks 0..n-1, result i at out + i * size; why[i] is "" or why task i has no result (timeout,
 * a dead worker; its result is then zero). Fails only when workers cannot be started. */
int tune_pool_run(const tune_pool *p, int n, tune_task_fn fn, void *ctx, void *out, size_t size, char (*why)[200],
                  ovta_error *err);

/* The Slurm runner: commands submitted as one job array (sbatch), watched (squeue), their stdout
 * collected from the shared working folder, failed tasks resubmitted, then reported. */
struct tune_slurm {
  const char *exe;         /* the ovta binary the tasks run (on a shared path) */
  const char *workdir;     /* shared working folder: scripts, task outputs and logs */
  const char *partition;   /* sbatch --partition (NULL: the cluster's default) */
  const char *extra;       /* more sbatch options, space-separated (NULL: none) */
  int max_running;         /* array throttle: at most this many tasks at once (0: Slurm's choice) */
  double timeout_s;        /* a task's --time (rounded up to minutes; <= 0: the partition's) */
  int retries;             /* resubmissions of failed tasks before they are reported */
  double poll_s;           /* seconds between squeue polls (<= 0: 2) */
};
/* Run the n commands (argvs[i]: NULL-terminated) as Slurm array `name`; outs[i] gets task i's
 * stdout (malloc'd) or NULL with why[i] saying why (Slurm's state, the task's last stderr line).
 * Fails when sbatch or squeue cannot be used. */
int tune_slurm_run(const tune_slurm *s, const char *name, int n, const char *const *const *argvs, char **outs,
                   char (*why)[200], ovta_error *err);
/* Run argv (PATH searched), its stdout into *out (malloc'd, NUL-terminated; out NULL: stdout
 * goes where stderr goes), its stderr appended to errpath (NULL: /dev/null, "-": ours); the exit
 * status, -1: did not run. */
int tune_run_capture(char *const *argv, char **out, const char *errpath);
/* tune_run_batch through r->slurm: each trial's JSON to `ovta tune --measure` on the cluster. */
int tune_run_batch_slurm(const tune_runner *r, const tune_trial *t, int n, tune_result *res, ovta_error *err);

/* ---------------------------------------------------------------- 5. Sweep */

#define SWEEP_MAX_MODELS 8
#define SWEEP_MAX_POINTS 4096

/* One design point: a config of the space. */
typedef struct sweep_point {
  char name[64];           /* a shipped config's name when equal to it, else sweep-HASH of the values */
  char cfgpath[1024];      /* its config file (isa/configs/NAME.json, or the sweep's config folder) */
  char params[256];        /* the varied keys and their values, "KEY=V KEY=V" */
  ovta_config cfg;         /* the config (valid only when error is "") */
  char error[200];         /* the config check's error ("": the config is valid) */
} sweep_point;

/* What a point measured. */
typedef struct sweep_result {
  bool ok;                 /* built, every model ran (and synthesized when asked) */
  char error[200];         /* !ok: why */
  int nmodels;             /* models run */
  uint64_t cycles[SWEEP_MAX_MODELS]; /* device cycles of one inference per model (fsim: 0, it counts none) */
  uint64_t total;          /* their sum */
  bool synth;              /* resources estimated */
  int lut, ff, dsp;        /* Yosys synth_xilinx: LUTs (logic + LUT RAM), flip-flops, DSP slices */
  double bram36;           /* block RAM in 36 Kb equivalents */
  bool fits;               /* within the part's capacity (synth) */
} sweep_result;

/* The points of a space JSON {"base": NAME|PATH, "params": {KEY: [V..]}, "configs": [NAME..]}:
 * the base config with every combination of the params' values (KEY: a config key, or BATCH,
 * BLOCK (= BLOCK_IN = BLOCK_OUT), given as sizes, not logs), then the whole configs listed. Each
 * is checked as `ovta config` does; a valid sweep config is written once to cfgdir/NAME.json.
 * *pts is malloc'd. origin names the space in errors. */
int sweep_space(const char *json, const char *origin, const char *cfgdir, sweep_point **pts, int *n,
                ovta_error *err);
/* A result as one JSON object / back (sweep_result_from_json: an error names the field). */
char *sweep_result_to_json(const sweep_result *r);
int sweep_result_from_json(const char *json, sweep_result *r, ovta_error *err);
/* The Pareto front of n results: front[i] = ok and no other ok point has fewer or equal cycles,
 * LUT, DSP and BRAM (the resources only when every ok point has them) and fewer of one. */
void sweep_pareto(const sweep_result *r, int n, bool *front);
/* The table as CSV and as JSON (models: the model names, the columns of the cycles; index: the
 * point numbers of the rows, NULL: 0..n-1). */
int sweep_write_csv(const char *path, const sweep_point *p, const sweep_result *r, const bool *front, int n,
                    const int *index, char *const *models, int nmodels, ovta_error *err);
int sweep_write_json(const char *path, const sweep_point *p, const sweep_result *r, const bool *front, int n,
                     char *const *models, int nmodels, const char *backend, const char *board, ovta_error *err);

#endif
