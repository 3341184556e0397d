/* sweep.c: the design points of a hardware space (`ovta sweep`), their results as JSON, the
 * Pareto front and the table (compiler/tune/tune.h section 5). A point's config is the base
 * config with one combination of the params' values; it is checked as `ovta config` checks a
 * config (parse, derive, every instruction field placed). A point equal in every value to a
 * shipped config (isa/configs/) takes that config's name, so its Verilator model and synthesis
 * are the ones the build already has; any other is named sweep-HASH after its values (FNV-1a),
 * which is the key of its cached model (build/tsim/NAME/) and synthesis (build/synth/NAME.json). */
#include "tune.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ovta_isa.h"

#ifndef OVTA_SRC_DIR
#define OVTA_SRC_DIR "."
#endif

/* ---------------------------------------------------------------- Points */

/* The config's values without its name, one canonical JSON text (malloc'd). */
static char *values_text(const ovta_config *c) {
  char *s = ovta_config_to_json(c, false);
  cJSON *j = cJSON_Parse(s);
  free(s);
  if (!j) return NULL;
  cJSON_DeleteItemFromObjectCaseSensitive(j, "name");
  s = cJSON_PrintUnformatted(j);
  cJSON_Delete(j);
  return s;
}

/* The shipped config (isa/configs/NAME.json) with c's values, into name/path; false: none. */
static bool shipped(const char *vals, char *name, size_t ncap, char *path, size_t pcap) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/isa/configs", OVTA_SRC_DIR);
  DIR *d = opendir(dir);
  if (!d) return false;
  bool found = false;
  for (struct dirent *e; !found && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
    char p[1000];
    snprintf(p, sizeof p, "%.600s/%.300s", dir, e->d_name);
    ovta_config c;
    ovta_error err = {0};
    if (ovta_config_read(p, &c, &err)) continue;
    char *v = values_text(&c);
    if (v && !strcmp(v, vals)) {
      found = true;
      snprintf(name, ncap, "%.*s", (int)(len - 5), e->d_name);
      snprintf(path, pcap, "%s", p);
    }
    free(v);
  }
  closedir(d);
  return found;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

/* Write text to path unless the file is there (its name is its content's hash: make sees an old
 * file and keeps the cached model). */
static int write_once(const char *path, const char *text, ovta_error *err) {
  struct stat st;
  if (!stat(path, &st)) return OVTA_OK;
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f)) ok = 0;
  if (!ok || rename(tmp, path)) {
    remove(tmp);
    return OVTA_FAIL(err, OVTA_EIO, "sweep: cannot write %s: %s", path, strerror(errno));
  }
  return OVTA_OK;
}

/* The point of config JSON j (its values set): checked, named, written. */
static int make_point(cJSON *j, const char *cfgdir, sweep_point *p, ovta_error *err) {
  cJSON_DeleteItemFromObjectCaseSensitive(j, "name");
  cJSON_AddStringToObject(j, "name", "sweep");
  char *text = cJSON_Print(j);
  if (!text) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  ovta_error e = {0};
  ovta_isa *isa = malloc(sizeof *isa);
  int rc = isa ? ovta_config_parse(text, "point", &p->cfg, &e) : OVTA_FAIL(&e, OVTA_ENOMEM, "out of memory");
  if (!rc) rc = ovta_isa_init(isa, &p->cfg, &e);
  free(isa), free(text);
  if (rc) {
    snprintf(p->error, sizeof p->error, "%.199s", e.msg);
    snprintf(p->name, sizeof p->name, "invalid");
    return OVTA_OK;
  }
  char *vals = values_text(&p->cfg);
  if (!vals) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (!shipped(vals, p->name, sizeof p->name, p->cfgpath, sizeof p->cfgpath)) {
    snprintf(p->name, sizeof p->name, "sweep-%012llx", (unsigned long long)(fnv1a(vals) >> 16));
    snprintf(p->cfgpath, sizeof p->cfgpath, "%s/%s.json", cfgdir, p->name);
    cJSON_ReplaceItemInObjectCaseSensitive(j, "name", cJSON_CreateString(p->name));
    char *named = cJSON_Print(j);
    rc = named ? write_once(p->cfgpath, named, err) : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    free(named);
  }
  snprintf(p->cfg.name, sizeof p->cfg.name, "%s", p->name);
  free(vals);
  return rc;
}

/* A space key into the config key and its value (BATCH/BLOCK*: sizes into logs). */
static int map_key(const char *key, double v, const char *origin, const char **ck, int *cv, ovta_error *err) {
  static const char *const sizes[][2] = {
      {"BATCH", "LOG_BATCH"}, {"BLOCK", "LOG_BLOCK"}, {"BLOCK_IN", "LOG_BLOCK"}, {"BLOCK_OUT", "LOG_BLOCK"}};
  if (v != floor(v) || v < 0 || v > 1 << 30)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: params.%s: %g is not a whole number >= 0", origin, key, v);
  *ck = key, *cv = (int)v;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    if (!strcmp(key, sizes[k][0])) {
      int lg = 0;
      while ((1 << lg) < *cv) lg++;
      if (*cv < 1 || (1 << lg) != *cv)
        return OVTA_FAIL(err, OVTA_EPARSE, "%s: params.%s: %d is not a power of two", origin, key, *cv);
      *ck = sizes[k][1], *cv = lg;
    }
  return OVTA_OK;
}

/* The params of the space: names and value lists, checked against the base config's keys. */
static int check_params(const cJSON *params, const cJSON *base, const char *origin, int *total, ovta_error *err) {
  *total = 1;
  if (!cJSON_IsObject(params)) return OVTA_FAIL(err, OVTA_EPARSE, "%s: \"params\" must be an object", origin);
  for (const cJSON *k = params->child; k; k = k->next) {
    const char *ck;
    int cv, n = cJSON_GetArraySize(k);
    if (!cJSON_IsArray(k) || n < 1)
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: params.%s must be a non-empty array of numbers", origin, k->string);
    for (const cJSON *v = k->child; v; v = v->next) {
      if (!cJSON_IsNumber(v)) return OVTA_FAIL(err, OVTA_EPARSE, "%s: params.%s: not a number", origin, k->string);
      if (map_key(k->string, v->valuedouble, origin, &ck, &cv, err)) return OVTA_EPARSE;
    }
    if (!cJSON_GetObjectItemCaseSensitive(base, ck) || !strcmp(ck, "name"))
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: params.%s: not a config key (see `ovta config --json`)", origin,
                       k->string);
    if ((long)*total * n > SWEEP_MAX_POINTS)
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: more than %d points", origin, SWEEP_MAX_POINTS);
    *total *= n;
  }
  return OVTA_OK;
}

/* Point number idx of the params' product (the last key varies fastest). */
static int product_point(const cJSON *params, const cJSON *base, int idx, const char *cfgdir, sweep_point *p,
                         ovta_error *err) {
  cJSON *j = cJSON_Duplicate(base, true);
  if (!j) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int nk = cJSON_GetArraySize(params), rest = idx, rc = OVTA_OK;
  size_t len = 0;
  for (int ki = nk - 1; ki >= 0 && !rc; ki--) {
    const cJSON *k = cJSON_GetArrayItem(params, ki);
    int n = cJSON_GetArraySize(k);
    const cJSON *v = cJSON_GetArrayItem(k, rest % n);
    rest /= n;
    const char *ck;
    int cv;
    rc = map_key(k->string, v->valuedouble, "space", &ck, &cv, err);
    if (!rc) cJSON_ReplaceItemInObjectCaseSensitive(j, ck, cJSON_CreateNumber(cv));
  }
  for (int ki = 0; !rc && ki < nk; ki++) { /* the label in the space's key order */
    const cJSON *k = cJSON_GetArrayItem(params, ki);
    int div = 1;
    for (int kj = ki + 1; kj < nk; kj++) div *= cJSON_GetArraySize(cJSON_GetArrayItem(params, kj));
    const cJSON *v = cJSON_GetArrayItem(k, (idx / div) % cJSON_GetArraySize(k));
    len += (size_t)snprintf(p->params + len, len < sizeof p->params ? sizeof p->params - len : 0, "%s%s=%g",
                            ki ? " " : "", k->string, v->valuedouble);
  }
  if (!rc) rc = make_point(j, cfgdir, p, err);
  cJSON_Delete(j);
  return rc;
}

/* The base config's JSON (its keys and values). */
static cJSON *config_json(const char *name, const char *origin, ovta_error *err) {
  ovta_config c;
  if (ovta_config_read(name, &c, err)) {
    ovta_error_wrap(err, "%s", origin);
    return NULL;
  }
  char *s = ovta_config_to_json(&c, false);
  cJSON *j = s ? cJSON_Parse(s) : NULL;
  free(s);
  if (!j) OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  return j;
}

int sweep_space(const char *json, const char *origin, const char *cfgdir, sweep_point **pts, int *n, ovta_error *err) {
  *pts = NULL, *n = 0;
  cJSON *sp = cJSON_Parse(json);
  if (!cJSON_IsObject(sp)) {
    cJSON_Delete(sp);
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: not a JSON object", origin);
  }
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(sp, "base"),
              *params = cJSON_GetObjectItemCaseSensitive(sp, "params"),
              *cfgs = cJSON_GetObjectItemCaseSensitive(sp, "configs");
  int rc = OVTA_OK, total = 0, ncfg = cfgs ? cJSON_GetArraySize(cfgs) : 0;
  for (const cJSON *k = sp->child; k && !rc; k = k->next)
    if (strcmp(k->string, "base") && strcmp(k->string, "params") && strcmp(k->string, "configs") &&
        strcmp(k->string, "comment"))
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: unknown key \"%s\" (base, params, configs, comment)", origin, k->string);
  if (!rc && b && !cJSON_IsString(b))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: \"base\" must be a config name or path", origin);
  if (!rc && cfgs && !cJSON_IsArray(cfgs))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: \"configs\" must be an array of names", origin);
  if (!rc && !params && !ncfg)
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: no \"params\" and no \"configs\": no points", origin);
  cJSON *base = rc ? NULL : config_json(b ? b->valuestring : "default", origin, err);
  if (!rc && !base) rc = OVTA_ECONFIG;
  if (!rc && params) rc = check_params(params, base, origin, &total, err);
  if (!rc && total + ncfg > SWEEP_MAX_POINTS)
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: more than %d points", origin, SWEEP_MAX_POINTS);
  if (!rc && mkdir(cfgdir, 0777) && errno != EEXIST)
    rc = OVTA_FAIL(err, OVTA_EIO, "sweep: %s: %s", cfgdir, strerror(errno));
  if (!rc && !(*pts = calloc((size_t)(total + ncfg) + 1, sizeof **pts)))
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; !rc && params && i < total; i++) rc = product_point(params, base, i, cfgdir, &(*pts)[(*n)++], err);
  for (int i = 0; !rc && i < ncfg; i++) {
    const cJSON *c = cJSON_GetArrayItem(cfgs, i);
    if (!cJSON_IsString(c)) rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: configs[%d] is not a name", origin, i);
    cJSON *j = rc ? NULL : config_json(c->valuestring, origin, err);
    if (!rc && !j) rc = OVTA_ECONFIG;
    sweep_point *p = &(*pts)[(*n)++];
    if (!rc) snprintf(p->params, sizeof p->params, "config=%s", c->valuestring), rc = make_point(j, cfgdir, p, err);
    cJSON_Delete(j);
  }
  cJSON_Delete(base), cJSON_Delete(sp);
  if (rc) free(*pts), *pts = NULL, *n = 0;
  return rc;
}

/* ---------------------------------------------------------------- Results */

char *sweep_result_to_json(const sweep_result *r) {
  cJSON *o = cJSON_CreateObject(), *c = cJSON_AddArrayToObject(o, "cycles");
  cJSON_AddBoolToObject(o, "ok", r->ok);
  if (!r->ok) cJSON_AddStringToObject(o, "error", r->error);
  for (int i = 0; i < r->nmodels && i < SWEEP_MAX_MODELS; i++)
    cJSON_AddItemToArray(c, cJSON_CreateNumber((double)r->cycles[i]));
  cJSON_AddNumberToObject(o, "total", (double)r->total);
  if (r->synth) {
    cJSON_AddNumberToObject(o, "lut", r->lut), cJSON_AddNumberToObject(o, "ff", r->ff);
    cJSON_AddNumberToObject(o, "dsp", r->dsp), cJSON_AddNumberToObject(o, "bram36", r->bram36);
    cJSON_AddBoolToObject(o, "fits", r->fits);
  }
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return s;
}

/* A whole number >= 0 field of o into *v (absent: false). */
static bool num(const cJSON *o, const char *k, double *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > 1e18) return false;
  *v = x->valuedouble;
  return true;
}

int sweep_result_from_json(const char *json, sweep_result *r, ovta_error *err) {
  *r = (sweep_result){0};
  cJSON *o = cJSON_Parse(json);
  const cJSON *ok = cJSON_GetObjectItemCaseSensitive(o, "ok"), *e = cJSON_GetObjectItemCaseSensitive(o, "error"),
              *c = cJSON_GetObjectItemCaseSensitive(o, "cycles");
  double v = 0;
  int rc = OVTA_OK;
  if (!cJSON_IsObject(o) || !cJSON_IsBool(ok))
    rc = OVTA_FAIL(err, OVTA_EPARSE, "sweep result: no \"ok\"");
  else if (!cJSON_IsArray(c) || cJSON_GetArraySize(c) > SWEEP_MAX_MODELS)
    rc = OVTA_FAIL(err, OVTA_EPARSE, "sweep result: \"cycles\" is not an array of at most %d", SWEEP_MAX_MODELS);
  if (!rc) {
    r->ok = cJSON_IsTrue(ok);
    if (cJSON_IsString(e)) snprintf(r->error, sizeof r->error, "%.199s", e->valuestring);
    for (const cJSON *x = c->child; x && !rc; x = x->next) {
      if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0))
        rc = OVTA_FAIL(err, OVTA_EPARSE, "sweep result: bad cycles");
      else
        r->cycles[r->nmodels++] = (uint64_t)x->valuedouble;
    }
    if (!rc && num(o, "total", &v)) r->total = (uint64_t)v;
    double l, f, d, b;
    if (!rc && num(o, "lut", &l) && num(o, "ff", &f) && num(o, "dsp", &d) && num(o, "bram36", &b))
      r->synth = true, r->lut = (int)l, r->ff = (int)f, r->dsp = (int)d, r->bram36 = b,
      r->fits = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "fits"));
  }
  cJSON_Delete(o);
  return rc;
}

/* ---------------------------------------------------------------- Pareto front and table */

/* a dominates b: no worse in every objective, better in one. */
static bool dominates(const sweep_result *a, const sweep_result *b, bool res) {
  double x[4] = {(double)a->total, a->lut, a->dsp, a->bram36}, y[4] = {(double)b->total, b->lut, b->dsp, b->bram36};
  int k = res ? 4 : 1;
  bool better = false;
  for (int i = 0; i < k; i++) {
    if (x[i] > y[i]) return false;
    if (x[i] < y[i]) better = true;
  }
  return better;
}

void sweep_pareto(const sweep_result *r, int n, bool *front) {
  bool res = true;
  for (int i = 0; i < n; i++)
    if (r[i].ok && !r[i].synth) res = false;
  for (int i = 0; i < n; i++) {
    front[i] = r[i].ok;
    for (int j = 0; front[i] && j < n; j++)
      if (j != i && r[j].ok && dominates(&r[j], &r[i], res)) front[i] = false;
  }
}

/* s as a CSV field (quoted when it holds a comma or quote). */
static void csv_field(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

int sweep_write_csv(const char *path, const sweep_point *p, const sweep_result *r, const bool *front, int n,
                    const int *index, char *const *models, int nmodels, ovta_error *err) {
  FILE *f = fopen(path, "w");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "sweep: %s: %s", path, strerror(errno));
  fputs("point,config,params,status,cycles", f);
  for (int m = 0; m < nmodels; m++) fputs(",cycles:", f), csv_field(f, models[m]);
  fputs(",lut,ff,dsp,bram36,fits,pareto,error\n", f);
  for (int i = 0; i < n; i++) {
    fprintf(f, "%d,%s,", index ? index[i] : i, p[i].name);
    csv_field(f, p[i].params);
    fprintf(f, ",%s,", r[i].ok ? "ok" : "failed");
    if (r[i].ok) fprintf(f, "%llu", (unsigned long long)r[i].total);
    for (int m = 0; m < nmodels; m++)
      if (r[i].ok)
        fprintf(f, ",%llu", (unsigned long long)r[i].cycles[m]);
      else
        fputc(',', f);
    if (r[i].ok && r[i].synth)
      fprintf(f, ",%d,%d,%d,%.1f,%s", r[i].lut, r[i].ff, r[i].dsp, r[i].bram36, r[i].fits ? "yes" : "no");
    else
      fputs(",,,,,", f);
    fprintf(f, ",%s,", front[i] ? "yes" : "no");
    csv_field(f, r[i].ok ? "" : r[i].error);
    fputc('\n', f);
  }
  if (fclose(f)) return OVTA_FAIL(err, OVTA_EIO, "sweep: %s: write failed", path);
  return OVTA_OK;
}

int sweep_write_json(const char *path, const sweep_point *p, const sweep_result *r, const bool *front, int n,
                     char *const *models, int nmodels, const char *backend, const char *board, ovta_error *err) {
  cJSON *o = cJSON_CreateObject(), *ms = cJSON_AddArrayToObject(o, "models"),
        *pts = cJSON_AddArrayToObject(o, "points"), *pf = cJSON_AddArrayToObject(o, "pareto");
  cJSON_AddStringToObject(o, "backend", backend);
  if (board)
    cJSON_AddStringToObject(o, "part", board);
  else
    cJSON_AddNullToObject(o, "part");
  for (int m = 0; m < nmodels; m++) cJSON_AddItemToArray(ms, cJSON_CreateString(models[m]));
  for (int i = 0; i < n; i++) {
    char *rs = sweep_result_to_json(&r[i]);
    cJSON *x = rs ? cJSON_Parse(rs) : NULL;
    free(rs);
    if (!x) break;
    cJSON_AddNumberToObject(x, "point", i);
    cJSON_AddStringToObject(x, "config", p[i].name);
    cJSON_AddStringToObject(x, "params", p[i].params);
    cJSON_AddBoolToObject(x, "pareto", front[i]);
    cJSON_AddItemToArray(pts, x);
    if (front[i]) cJSON_AddItemToArray(pf, cJSON_CreateNumber(i));
  }
  char *s = cJSON_Print(o);
  cJSON_Delete(o);
  FILE *f = s ? fopen(path, "w") : NULL;
  int ok = f && fputs(s, f) >= 0 && fputc('\n', f) != EOF;
  if (f && fclose(f)) ok = 0;
  free(s);
  return ok ? OVTA_OK : OVTA_FAIL(err, OVTA_EIO, "sweep: %s: cannot write", path);
}
