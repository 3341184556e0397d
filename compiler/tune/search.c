/* search.c: the tuning search of one layer (compiler/tune/tune.h). The candidates are the
 * planner's fitting tilings (vta_plan_space). The planner's own choice is measured first; then
 * each round measures a batch: once a few trials succeeded, an XGBoost model trained on the
 * log of cycles of the measured ones ranks a random pool of unmeasured candidates and the batch
 * takes the best predicted, each slot with probability 1/4 a random candidate instead (epsilon
 * exploration); before that the batch takes the planner's runners-up (lowest estimates). Records
 * already in the log count as measured (a layer with a fused add: those with its form, res_form,
 * so a log of the layer tuned without the add does not count; only those with the epilogue's form,
 * epi: a record from before it was searched was planned with the cost model's form, which a
 * later cost model may pick differently). */
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POOL 256      /* unmeasured candidates the model ranks per round */
#define MIN_TRAIN 3   /* successful trials before the model is used */

/* The state of one layer's search. */
typedef struct search {
  const ovta_config *cfg;
  const vta_op *op;
  vta_tiling *cand;   /* the space */
  int n;              /* candidates */
  int *state;         /* per candidate: 0 unmeasured, 1 measured ok, 2 failed */
  uint64_t *cycles;   /* per candidate when state 1 */
  float *feat;        /* n x TUNE_NFEAT */
  uint64_t rng;       /* xorshift64* state */
} search;

static uint64_t rnd(search *s) {
  s->rng ^= s->rng >> 12, s->rng ^= s->rng << 25, s->rng ^= s->rng >> 27;
  return s->rng * 2685821657736338717ull;
}

static bool same(const vta_knobs *a, const vta_knobs *b) {
  return a->t_n == b->t_n && a->t_oc == b->t_oc && a->t_ic == b->t_ic && a->t_h == b->t_h && a->t_w == b->t_w &&
         a->vthreads == b->vthreads && a->res_form == b->res_form && a->epi == b->epi;
}

static int find(const search *s, const vta_knobs *k) {
  for (int i = 0; i < s->n; i++)
    if (same(&s->cand[i].k, k)) return i;
  return -1;
}

/* A record of the layer into the outcome and the candidates' state. */
static void note(search *s, const tune_record *r, tune_outcome *out) {
  int i = find(s, &r->t.k);
  out->trials++;
  if (!r->r.ok) out->failed++;
  if (i >= 0) s->state[i] = r->r.ok ? 1 : 2, s->cycles[i] = r->r.cycles;
  if (r->r.ok && (!out->found || r->r.cycles < out->best_cycles))
    out->found = true, out->best = r->t, out->best_cycles = r->r.cycles;
  if (same(&r->t.k, &out->heuristic.k)) out->heuristic_ok = r->r.ok, out->heuristic_cycles = r->r.cycles;
}

/* Indexes of up to max random unmeasured candidates not yet in pick[0..np) into pool. */
static int random_pool(search *s, const int *pick, int np, int *pool, int max) {
  int *idx = malloc((size_t)s->n * sizeof *idx), m = 0;
  if (!idx) return 0;
  for (int i = 0; i < s->n; i++) {
    bool taken = s->state[i] != 0;
    for (int j = 0; !taken && j < np; j++) taken = pick[j] == i;
    if (!taken) idx[m++] = i;
  }
  int k = m < max ? m : max;
  for (int i = 0; i < k; i++) { /* partial Fisher-Yates */
    int j = i + (int)(rnd(s) % (uint64_t)(m - i)), t = idx[i];
    idx[i] = idx[j], idx[j] = t, pool[i] = idx[i];
  }
  free(idx);
  return k;
}

/* Fit the model on the measured candidates and order pool[0..np) by predicted cycles. */
static int rank_pool(search *s, int *pool, int np, uint64_t seed, ovta_error *err) {
  int nt = 0;
  for (int i = 0; i < s->n; i++) nt += s->state[i] == 1;
  float *x = malloc((size_t)(nt + np) * TUNE_NFEAT * sizeof *x), *y = malloc((size_t)(nt + np) * sizeof *y);
  tune_model *m = NULL;
  int rc = x && y ? OVTA_OK : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0, r = 0; !rc && i < s->n; i++)
    if (s->state[i] == 1)
      memcpy(x + (size_t)r * TUNE_NFEAT, s->feat + (size_t)i * TUNE_NFEAT, TUNE_NFEAT * sizeof *x),
          y[r++] = (float)log((double)s->cycles[i] + 1);
  if (!rc) rc = tune_model_fit(x, y, nt, TUNE_NFEAT, 30, seed, &m, err);
  for (int j = 0; !rc && j < np; j++)
    memcpy(x + (size_t)j * TUNE_NFEAT, s->feat + (size_t)pool[j] * TUNE_NFEAT, TUNE_NFEAT * sizeof *x);
  if (!rc) rc = tune_model_predict(m, x, np, TUNE_NFEAT, y, err);
  for (int a = 1; !rc && a < np; a++) /* insertion sort by prediction, stable */
    for (int b = a; b > 0 && y[b] < y[b - 1]; b--) {
      float t = y[b];
      y[b] = y[b - 1], y[b - 1] = t;
      int u = pool[b];
      pool[b] = pool[b - 1], pool[b - 1] = u;
    }
  tune_model_free(m);
  free(x), free(y);
  return rc;
}

/* Before the model: the untried candidates not in pick[0..np) with the lowest estimates (the
 * planner's runners-up), up to max, into pool. */
static int by_estimate(search *s, const int *pick, int np, int *pool, int max) {
  int k = 0;
  for (int i = 0; i < s->n; i++) {
    bool taken = s->state[i] != 0;
    for (int j = 0; !taken && j < np; j++) taken = pick[j] == i;
    if (taken) continue;
    int at; /* insertion into the sorted pool; a full pool drops its worst */
    if (k < max) at = k++;
    else if (s->cand[pool[max - 1]].est <= s->cand[i].est) continue;
    else at = max - 1;
    for (; at > 0 && s->cand[pool[at - 1]].est > s->cand[i].est; at--) pool[at] = pool[at - 1];
    pool[at] = i;
  }
  return k;
}

/* Choose the next batch (at most want candidates) into pick; returns its size. */
static int choose(search *s, const tune_outcome *out, int want, uint64_t seed, int *pick, ovta_error *err) {
  int np = 0, ntrain = 0;
  int h = find(s, &out->heuristic.k);
  if (h >= 0 && s->state[h] == 0) pick[np++] = h;
  for (int i = 0; i < s->n; i++) ntrain += s->state[i] == 1;
  int pool[POOL];
  int npool = random_pool(s, pick, np, pool, POOL);
  if (ntrain >= MIN_TRAIN && npool > 1) {
    int rc = rank_pool(s, pool, npool, seed, err);
    if (rc) return -rc;
  } else {
    npool = by_estimate(s, pick, np, pool, POOL);
  }
  /* ranked (or random) pool: take the head; epsilon: a random one from the rest */
  int head = 0, tail = npool;
  while (np < want && head < tail) {
    if (ntrain >= MIN_TRAIN && rnd(s) % 4 == 0 && tail - head > 1) {
      int j = head + 1 + (int)(rnd(s) % (uint64_t)(tail - head - 1));
      pick[np++] = pool[j], pool[j] = pool[--tail];
    } else {
      pick[np++] = pool[head++];
    }
  }
  return np;
}

/* Measure the batch, log and note each trial. */
static int measure(search *s, const char *name, const tune_opts *o, const int *pick, int np, tune_outcome *out,
                   ovta_error *err) {
  tune_trial tr[64] = {0};
  tune_result res[64];
  if (np > 64) np = 64;
  for (int j = 0; j < np; j++) tr[j] = (tune_trial){.op = s->op, .t = s->cand[pick[j]]};
  int rc = tune_run_batch(o->runner, tr, np, res, err);
  for (int j = 0; !rc && j < np; j++) {
    tune_record rec = {.t = tr[j].t, .r = res[j]};
    snprintf(rec.layer, sizeof rec.layer, "%s", name);
    if (o->log) rc = tune_log_append(o->log, &rec, err);
    note(s, &rec, out);
  }
  return rc;
}

static int setup(search *s, const ovta_config *cfg, const vta_op *op, tune_outcome *out, ovta_error *err) {
  int rc = vta_plan_space(cfg, op, NULL, 0, &s->n, err);
  vta_plan p;
  if (!rc) rc = vta_plan_make(cfg, op, NULL, &p, err);
  if (rc) return rc;
  int form = !op->res ? 0 : p.res_pre ? 2 : p.res_pipe ? 3 : 1; /* as the space names the plan */
  out->heuristic = (vta_tiling){.k = {p.t_n, p.t_oc, p.t_ic, p.t_h, p.t_w, p.vt, form, p.epi_chunks ? 2 : 1}};
  s->cand = malloc((size_t)s->n * sizeof *s->cand);
  s->state = calloc((size_t)s->n, sizeof *s->state);
  s->cycles = calloc((size_t)s->n, sizeof *s->cycles);
  s->feat = malloc((size_t)s->n * TUNE_NFEAT * sizeof *s->feat);
  if (!s->cand || !s->state || !s->cycles || !s->feat) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int n = s->n;
  if ((rc = vta_plan_space(cfg, op, s->cand, n, &s->n, err))) return rc;
  for (int i = 0; !rc && i < n; i++) {
    rc = tune_features(cfg, op, &s->cand[i], s->feat + (size_t)i * TUNE_NFEAT, err);
    if (same(&s->cand[i].k, &out->heuristic.k)) out->heuristic.est = s->cand[i].est;
  }
  return rc;
}

int tune_layer(const ovta_config *cfg, const char *name, const vta_op *op, const tune_opts *o,
               const tune_record *prior, int nprior, tune_outcome *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  search s = {.cfg = cfg, .op = op, .rng = (o->seed ^ 0x9e3779b97f4a7c15ull) | 1};
  for (const char *c = name; *c; c++) s.rng = (s.rng ^ (uint8_t)*c) * 1099511628211ull | 1; /* per layer */
  int rc = setup(&s, cfg, op, out, err);
  for (int i = 0; !rc && i < nprior; i++) /* a fused layer's records have a res_form, an unfused one's not; every
                                             counted one has its epilogue form */
    if (!strcmp(prior[i].layer, name) && (prior[i].t.k.res_form != 0) == op->res && prior[i].t.k.epi)
      note(&s, &prior[i], out);
  int jobs = o->runner->jobs < 1 ? 1 : o->runner->jobs;
  int batch = jobs < 4 ? 4 : jobs > 64 ? 64 : jobs;
  for (int round = 0; !rc && out->trials < o->trials; round++) {
    int pick[64], want = o->trials - out->trials < batch ? o->trials - out->trials : batch;
    int np = choose(&s, out, want, o->seed + (uint64_t)round, pick, err);
    if (np < 0) rc = -np;
    if (np <= 0) break; /* the space is exhausted */
    rc = measure(&s, name, o, pick, np, out, err);
    if (!rc && o->progress) o->progress(o->ctx, name, out->trials, o->trials, out->found ? out->best_cycles : 0);
  }
  free(s.cand), free(s.state), free(s.cycles), free(s.feat);
  return rc;
}
