/* log.c: the tuner's JSON (compiler/tune/tune.h): the resumable trial log, one JSON object a line:
 * {"layer": NAME, "knobs": {t_n.., "vthreads"[, "res_form"], "epi"}, "est": E, "cycles": C} or {.., "error": WHY}; the
 * tuning file it produces; and a trial as one self-contained object, what a batch-scheduler runner
 * (Slurm) submits and its worker reads back:
 *   {"op": {"name": .., "kind": .., "has_bias": .., "n": .., ..every vta_op field.., "shifts": [..]},
 * (a fused add's fields, "res": true and res_sc .. res_max, only when the op has one)
 *    "knobs": {..}, "est": E}
 * (the config and the backend are the runner's, the worker's command line, not the trial's). */
#include "tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const knob_names[6] = {"t_n", "t_oc", "t_ic", "t_h", "t_w", "vthreads"};

/* The knobs; res_form only for a fused add's (1..3), so an unfused layer's record has none; epi
 * when set (1, 2: every candidate of the space has it; 0, the planner's choice, only in a trial
 * written by hand). */
static cJSON *knobs_json(const vta_knobs *k) {
  const int v[6] = {k->t_n, k->t_oc, k->t_ic, k->t_h, k->t_w, k->vthreads};
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < 6; i++) cJSON_AddNumberToObject(o, knob_names[i], v[i]);
  if (o && k->res_form) cJSON_AddNumberToObject(o, "res_form", k->res_form);
  if (o && k->epi) cJSON_AddNumberToObject(o, "epi", k->epi);
  return o;
}

int tune_log_append(FILE *f, const tune_record *rec, ovta_error *err) {
  cJSON *o = cJSON_CreateObject();
  if (o) {
    cJSON_AddStringToObject(o, "layer", rec->layer);
    cJSON_AddItemToObject(o, "knobs", knobs_json(&rec->t.k));
    cJSON_AddNumberToObject(o, "est", (double)(int64_t)rec->t.est);
    if (rec->r.ok) cJSON_AddNumberToObject(o, "cycles", (double)rec->r.cycles);
    else cJSON_AddStringToObject(o, "error", rec->r.error);
  }
  char *s = o ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(o);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int bad = fprintf(f, "%s\n", s) < 0 || fflush(f);
  free(s);
  return bad ? OVTA_FAIL(err, OVTA_EIO, "tune log: write failed: %s", strerror(errno)) : OVTA_OK;
}

/* Every knob of object k (1..65536; res_form, optional, 1..3; epi, optional, 1..2, absent 0: a
 * record from before epi was searched, which the search does not count) into *out; false when one
 * is missing or out of range. */
static bool knobs_from_json(const cJSON *k, vta_knobs *out) {
  int *dst[6] = {&out->t_n, &out->t_oc, &out->t_ic, &out->t_h, &out->t_w, &out->vthreads};
  for (int i = 0; i < 6; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, knob_names[i]);
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 65536) return false;
    *dst[i] = (int)v->valuedouble;
  }
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(k, "res_form");
  if (f && (!cJSON_IsNumber(f) || (f->valuedouble != 1 && f->valuedouble != 2 && f->valuedouble != 3))) return false;
  out->res_form = f ? (int)f->valuedouble : 0;
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(k, "epi");
  if (e && (!cJSON_IsNumber(e) || (e->valuedouble != 1 && e->valuedouble != 2))) return false;
  out->epi = e ? (int)e->valuedouble : 0;
  return true;
}

/* One line into rec; false when it is not a record. */
static bool parse_record(const char *line, tune_record *rec) {
  cJSON *o = cJSON_Parse(line);
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "layer"), *k = cJSON_GetObjectItemCaseSensitive(o, "knobs");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "cycles"), *e = cJSON_GetObjectItemCaseSensitive(o, "error");
  const cJSON *es = cJSON_GetObjectItemCaseSensitive(o, "est");
  bool ok = cJSON_IsString(l) && cJSON_IsObject(k) && (cJSON_IsNumber(c) || cJSON_IsString(e));
  memset(rec, 0, sizeof *rec);
  if (ok) ok = knobs_from_json(k, &rec->t.k);
  if (ok) {
    snprintf(rec->layer, sizeof rec->layer, "%s", l->valuestring);
    rec->t.est = cJSON_IsNumber(es) ? es->valuedouble : 0;
    rec->r.ok = cJSON_IsNumber(c);
    if (rec->r.ok) rec->r.cycles = (uint64_t)c->valuedouble;
    else snprintf(rec->r.error, sizeof rec->r.error, "%s", e->valuestring);
  }
  cJSON_Delete(o);
  return ok;
}

int tune_log_read(const char *path, tune_record **out, int *n, long *end, ovta_error *err) {
  *out = NULL, *n = 0, *end = 0;
  FILE *f = fopen(path, "r");
  if (!f) return errno == ENOENT ? OVTA_OK : OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  int cnt = 0, rc = OVTA_OK, lineno = 0;
  ssize_t len;
  while (!rc && (len = getline(&line, &cap, f)) > 0) {
    lineno++;
    bool complete = line[len - 1] == '\n';
    tune_record rec;
    if (!complete || !parse_record(line, &rec)) {
      if (complete) rc = OVTA_FAIL(err, OVTA_EPARSE, "%s:%d: not a tuning record", path, lineno);
      continue; /* a killed run's last partial line */
    }
    *end += (long)len;
    tune_record *g = realloc(*out, (size_t)(cnt + 1) * sizeof *g);
    if (!g) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    else *out = g, g[cnt++] = rec;
  }
  free(line);
  fclose(f);
  *n = cnt;
  return rc;
}

int tune_write_tuning(const char *path, char *const *names, const tune_outcome *res, int n, ovta_error *err) {
  cJSON *root = cJSON_CreateObject(), *ops = cJSON_CreateObject();
  cJSON_AddItemToObject(root, "ops", ops);
  for (int i = 0; i < n; i++)
    if (res[i].found) cJSON_AddItemToObject(ops, names[i], knobs_json(&res[i].best.k));
  char *s = cJSON_Print(root);
  cJSON_Delete(root);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  FILE *f = fopen(path, "w");
  int rc = !f || fprintf(f, "%s\n", s) < 0 ? OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno)) : OVTA_OK;
  if (f && fclose(f) && !rc) rc = OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno));
  free(s);
  return rc;
}

/* The int fields of vta_op, by name (kind and has_bias are stored as numbers too). */
static const struct {
  const char *name;
  size_t off;
} op_ints[] = {
#define F(x) {#x, offsetof(vta_op, x)}
    F(n),        F(c),        F(h),        F(w),        F(o),        F(kh),       F(kw),
    F(stride_h), F(stride_w), F(pad_t),    F(pad_l),    F(pad_b),    F(pad_r),    F(shift),
    F(n_shifts), F(clip_min), F(clip_max), F(shift_a),  F(shift_b),  F(groups),   F(mult),
    F(up_h),     F(up_w),
    F(res_sc),   F(res_sr),   F(res_shift), F(res_min), F(res_max), /* with "res": true only */
#undef F
};
#define N_OP_INTS (sizeof op_ints / sizeof op_ints[0])
#define N_RES_INTS 5 /* the last of op_ints: a fused add's */

static int *op_int(vta_op *op, size_t i) { return (int *)((char *)op + op_ints[i].off); }

static cJSON *op_json(const vta_op *op) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "name", op->name);
  cJSON_AddNumberToObject(o, "kind", op->kind);
  cJSON_AddBoolToObject(o, "has_bias", op->has_bias);
  if (op->res) cJSON_AddBoolToObject(o, "res", true);
  for (size_t i = 0; i < N_OP_INTS - (op->res ? 0 : N_RES_INTS); i++)
    cJSON_AddNumberToObject(o, op_ints[i].name, *op_int((vta_op *)op, i));
  if (op->shifts) {
    cJSON *s = cJSON_AddArrayToObject(o, "shifts");
    int ns = op->n_shifts ? op->n_shifts : op->o;
    for (int i = 0; s && i < ns; i++) cJSON_AddItemToArray(s, cJSON_CreateNumber((double)op->shifts[i]));
  }
  return o;
}

char *tune_trial_to_json(const tune_trial *t) {
  cJSON *o = cJSON_CreateObject();
  if (o) {
    cJSON_AddItemToObject(o, "op", op_json(t->op));
    cJSON_AddItemToObject(o, "knobs", knobs_json(&t->t.k));
    cJSON_AddNumberToObject(o, "est", t->t.est);
  }
  char *s = o ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(o);
  return s;
}

/* A number field of j that is an integer in [lo, hi] into *v. */
static bool int_field(const cJSON *j, const char *name, long lo, long hi, int64_t *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, name);
  if (!cJSON_IsNumber(x) || x->valuedouble < lo || x->valuedouble > hi || x->valuedouble != (double)(int64_t)x->valuedouble)
    return false;
  *v = (int64_t)x->valuedouble;
  return true;
}

/* The op object into op (shifts allocated); the name of the first bad field into *bad. */
static bool op_from_json(const cJSON *j, vta_op *op, const char **bad) {
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name"), *hb = cJSON_GetObjectItemCaseSensitive(j, "has_bias");
  int64_t v;
  if (!cJSON_IsString(name) || strlen(name->valuestring) >= sizeof op->name) return *bad = "name", false;
  snprintf(op->name, sizeof op->name, "%s", name->valuestring);
  if (!int_field(j, "kind", VTA_CONV, VTA_UPSAMPLE, &v)) return *bad = "kind", false;
  op->kind = (vta_op_kind)v;
  if (!cJSON_IsBool(hb)) return *bad = "has_bias", false;
  op->has_bias = cJSON_IsTrue(hb);
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(j, "res");
  if (res && !cJSON_IsBool(res)) return *bad = "res", false;
  op->res = cJSON_IsTrue(res);
  for (size_t i = 0; i < N_OP_INTS - (op->res ? 0 : N_RES_INTS); i++) {
    if (!int_field(j, op_ints[i].name, -(1L << 30), 1L << 30, &v)) return *bad = op_ints[i].name, false;
    *op_int(op, i) = (int)v;
  }
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(j, "shifts"), *e;
  if (!s) return true;
  int ns = cJSON_GetArraySize(s), want = op->n_shifts ? op->n_shifts : op->o;
  int64_t *sh = cJSON_IsArray(s) && ns == want && ns > 0 ? malloc((size_t)ns * sizeof *sh) : NULL;
  if (!sh) return *bad = "shifts", false;
  int i = 0;
  cJSON_ArrayForEach(e, s) {
    if (!cJSON_IsNumber(e) || e->valuedouble != (double)(int64_t)e->valuedouble) return free(sh), *bad = "shifts", false;
    sh[i++] = (int64_t)e->valuedouble;
  }
  op->shifts = sh;
  return true;
}

int tune_trial_from_json(const char *json, const char *origin, tune_trial *t, ovta_error *err) {
  memset(t, 0, sizeof *t);
  cJSON *o = cJSON_Parse(json);
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op"), *k = cJSON_GetObjectItemCaseSensitive(o, "knobs");
  const cJSON *est = cJSON_GetObjectItemCaseSensitive(o, "est");
  vta_op *p = calloc(1, sizeof *p);
  const char *bad = NULL;
  if (!p) bad = "(out of memory)";
  else if (!cJSON_IsObject(op)) bad = "op";
  else if (!op_from_json(op, p, &bad)) ;
  else if (!cJSON_IsObject(k) || !knobs_from_json(k, &t->t.k)) bad = "knobs";
  else if (est && !cJSON_IsNumber(est)) bad = "est";
  if (!bad) t->t.est = est ? est->valuedouble : 0;
  bool parsed = o != NULL;
  cJSON_Delete(o);
  if (bad) {
    if (p) free((void *)p->shifts);
    free(p);
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: not a tuning trial (%s%s)", origin, parsed ? "field " : "not JSON",
                     parsed ? bad : "");
  }
  t->op = p;
  return OVTA_OK;
}

void tune_trial_free(tune_trial *t) {
  if (t->op) free((void *)t->op->shifts);
  free((void *)t->op);
  t->op = NULL;
}
