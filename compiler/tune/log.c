/* log.c: the tuner's resumable trial log, one JSON object a line: {"layer": NAME, "knobs": {t_n..,
 * "vthreads"}, "est": E, "cycles": C} or {.., "error": WHY}; and the tuning file it produces
 * (compiler/tune/tune.h). */
#include "tune.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const knob_names[6] = {"t_n", "t_oc", "t_ic", "t_h", "t_w", "vthreads"};

static cJSON *knobs_json(const vta_knobs *k) {
  const int v[6] = {k->t_n, k->t_oc, k->t_ic, k->t_h, k->t_w, k->vthreads};
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; o && i < 6; i++) cJSON_AddNumberToObject(o, knob_names[i], v[i]);
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

/* One line into rec; false when it is not a record. */
static bool parse_record(const char *line, tune_record *rec) {
  cJSON *o = cJSON_Parse(line);
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "layer"), *k = cJSON_GetObjectItemCaseSensitive(o, "knobs");
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "cycles"), *e = cJSON_GetObjectItemCaseSensitive(o, "error");
  const cJSON *es = cJSON_GetObjectItemCaseSensitive(o, "est");
  bool ok = cJSON_IsString(l) && cJSON_IsObject(k) && (cJSON_IsNumber(c) || cJSON_IsString(e));
  memset(rec, 0, sizeof *rec);
  int *dst[6] = {&rec->t.k.t_n, &rec->t.k.t_oc, &rec->t.k.t_ic, &rec->t.k.t_h, &rec->t.k.t_w, &rec->t.k.vthreads};
  for (int i = 0; ok && i < 6; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, knob_names[i]);
    ok = cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble <= 65536;
    if (ok) *dst[i] = (int)v->valuedouble;
  }
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
