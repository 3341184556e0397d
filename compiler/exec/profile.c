/* profile.c: per-step profile rows of a run and the Chrome trace with one span per layer
 * (exec.h, "Profiles"); what `ovta profile` and bench/model_profile print. */
#include "exec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ---------------------------------------------------------------- rows */

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

/* Row r from the stats s of one step. */
static int row_of(const ovta_exec_node_stats *s, ovta_profile_row *r, ovta_error *err) {
  r->name = dup_or_empty(s->node), r->op = dup_or_empty(s->op), r->fn = dup_or_empty(s->fn);
  if (!r->name || !r->op || !r->fn) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  r->accel = s->accel, r->has_cycles = s->accel && s->has_cycles, r->cycles = s->cycles, r->dev_runs = s->dev_runs;
  r->macs = s->macs;
  memcpy(r->bytes_read, s->bytes_read, sizeof r->bytes_read);
  r->bytes_written = s->bytes_written;
  r->insns = s->accel ? s->dev_insns : 0, r->gemm_uops = s->gemm_uops, r->alu_uops = s->alu_uops;
  r->us = (double)s->ns / 1e3;
  return 0;
}

static void add_to_total(ovta_profile_row *t, const ovta_profile_row *r) {
  t->has_cycles |= r->has_cycles, t->cycles += r->cycles, t->macs += r->macs;
  for (int m = 0; m < 4; m++) t->bytes_read[m] += r->bytes_read[m];
  t->bytes_written += r->bytes_written, t->insns += r->insns;
  t->gemm_uops += r->gemm_uops, t->alu_uops += r->alu_uops, t->us += r->us;
}

int ovta_profile_collect_plan(const ovta_plan *pl, ovta_profile *p, ovta_error *err) {
  memset(p, 0, sizeof *p);
  if (pl->accel) {
    const ovta_config *c = &pl->cfg;
    p->has_cfg = true, p->cfg = *c;
    p->peak_macs_per_cycle = (int64_t)c->batch * c->block_in * c->block_out;
    p->bus_bytes_per_cycle = c->axi_data_bits / 8;
  }
  p->n = pl->ns;
  p->rows = calloc((size_t)p->n + 1, sizeof *p->rows);
  p->total.name = strdup("total"), p->total.op = strdup(""), p->total.fn = strdup("");
  if (!p->rows || !p->total.name || !p->total.op || !p->total.fn) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < p->n; i++) {
    ovta_plan_stats s;
    int rc = ovta_plan_stats_get(pl, i, &s, err);
    if (!rc) rc = row_of(&s, &p->rows[i], err);
    if (rc) return rc;
    add_to_total(&p->total, &p->rows[i]);
  }
  return 0;
}

int ovta_profile_collect(const ovta_exec *e, ovta_profile *p, ovta_error *err) {
  return ovta_profile_collect_plan(ovta_exec_plan((ovta_exec *)e), p, err);
}

static void row_free(ovta_profile_row *r) { free(r->name), free(r->op), free(r->fn); }

void ovta_profile_free(ovta_profile *p) {
  for (int i = 0; p->rows && i < p->n; i++) row_free(&p->rows[i]);
  free(p->rows);
  row_free(&p->total);
  memset(p, 0, sizeof *p);
}

double ovta_profile_util(const ovta_profile *p, const ovta_profile_row *r) {
  return r->has_cycles && r->cycles && p->peak_macs_per_cycle
             ? (double)r->macs / ((double)r->cycles * (double)p->peak_macs_per_cycle)
             : NAN;
}

uint64_t ovta_profile_row_bytes(const ovta_profile_row *r) {
  return r->bytes_read[0] + r->bytes_read[1] + r->bytes_read[2] + r->bytes_read[3] + r->bytes_written;
}

/* ---------------------------------------------------------------- trace */

/* tsim writes one "X" event per instruction and unit (ts in us at the config's clock, cycles
 * since the device opened; args.start_cycle counts from the start of that device run). Every
 * device run starts at ts/us - start_cycle; runs in order belong to the accelerator layers in
 * order (dev_runs each). */

/* The events tsim wrote to raw: a JSON array. */
static int read_events(const char *raw, cJSON **out, ovta_error *err) {
  char *txt = NULL;
  size_t len = 0;
  int rc = ovta_read_file(raw, (size_t)1 << 31, &txt, &len, err);
  if (rc) return ovta_error_wrap(err, "tsim trace"), rc;
  cJSON *arr = cJSON_ParseWithLength(txt, len);
  free(txt);
  if (!cJSON_IsArray(arr)) {
    cJSON_Delete(arr);
    return OVTA_FAIL(err, OVTA_EPARSE, "the tsim trace %s is not a JSON array of events", raw);
  }
  *out = arr;
  return 0;
}

/* The start cycle of the device run of event ev, or false when ev is not an instruction event. */
static bool run_start(const cJSON *ev, double mhz, uint64_t *r0) {
  const cJSON *ph = cJSON_GetObjectItemCaseSensitive(ev, "ph"), *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts");
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
  const cJSON *sc = args ? cJSON_GetObjectItemCaseSensitive(args, "start_cycle") : NULL;
  if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "X") || !cJSON_IsNumber(ts) || !cJSON_IsNumber(sc)) return false;
  uint64_t abs = (uint64_t)llround(ts->valuedouble * mhz), st = (uint64_t)sc->valuedouble;
  *r0 = abs >= st ? abs - st : 0;
  return true;
}

/* The device runs' start cycles, in order of first appearance, deduplicated (runs do not
 * overlap), then sorted: *starts (caller frees), *nr of them. */
static int run_starts(const cJSON *arr, double mhz, uint64_t **starts_out, int *nr_out, ovta_error *err) {
  int cap = 64, nr = 0;
  uint64_t *starts = malloc(sizeof *starts * (size_t)cap);
  const cJSON *ev;
  cJSON_ArrayForEach(ev, arr) {
    uint64_t r0;
    if (!starts || !run_start(ev, mhz, &r0)) continue;
    bool seen = false;
    for (int k = 0; k < nr && !seen; k++) seen = starts[k] == r0;
    if (seen) continue;
    if (nr == cap) {
      uint64_t *n2 = realloc(starts, sizeof *starts * (size_t)(cap *= 2));
      if (!n2) free(starts);
      starts = n2;
      if (!starts) break;
    }
    starts[nr++] = r0;
  }
  if (!starts) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int a = 1; a < nr; a++)
    for (int b = a; b > 0 && starts[b - 1] > starts[b]; b--) {
      uint64_t t = starts[b];
      starts[b] = starts[b - 1], starts[b - 1] = t;
    }
  *starts_out = starts, *nr_out = nr;
  return 0;
}

/* The span of accelerator row i (layer index i) starting at cycle c0 and ending at end. */
static cJSON *layer_span(const ovta_profile *p, int i, uint64_t c0, uint64_t end, double mhz) {
  const ovta_profile_row *r = &p->rows[i];
  cJSON *s = cJSON_CreateObject();
  cJSON_AddStringToObject(s, "name", r->name);
  cJSON_AddStringToObject(s, "cat", "layer");
  cJSON_AddStringToObject(s, "ph", "X");
  cJSON_AddNumberToObject(s, "pid", 1);
  cJSON_AddNumberToObject(s, "tid", 0);
  cJSON_AddNumberToObject(s, "ts", (double)c0 / mhz);
  cJSON_AddNumberToObject(s, "dur", (double)(end - c0) / mhz);
  cJSON *a = cJSON_AddObjectToObject(s, "args");
  cJSON_AddStringToObject(a, "op", r->op);
  cJSON_AddNumberToObject(a, "layer", i);
  cJSON_AddNumberToObject(a, "cycles", (double)r->cycles);
  cJSON_AddNumberToObject(a, "macs", (double)r->macs);
  double u = ovta_profile_util(p, r);
  if (!isnan(u)) cJSON_AddNumberToObject(a, "utilization", u);
  cJSON_AddNumberToObject(a, "start_cycle", (double)c0);
  return s;
}

/* One span per accelerator row over its device run(s), the runs' starts in order. */
static void add_layer_spans(cJSON *arr, const ovta_profile *p, const uint64_t *starts, double mhz) {
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    const ovta_profile_row *r = &p->rows[i];
    if (!r->accel) continue;
    int runs = (int)(r->dev_runs ? r->dev_runs : 1);
    uint64_t c0 = starts[k];
    k += runs;
    /* one run: its cycles; several: up to the end of the last (cycles count the last run only) */
    cJSON_AddItemToArray(arr, layer_span(p, i, c0, starts[k - 1] + r->cycles, mhz));
  }
}

/* A metadata event naming process 1 / its thread 0. */
static void add_name(cJSON *arr, const char *what, const char *name, bool thread) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "name", what);
  cJSON_AddStringToObject(m, "ph", "M");
  cJSON_AddNumberToObject(m, "pid", 1);
  if (thread) cJSON_AddNumberToObject(m, "tid", 0);
  cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "args"), "name", name);
  cJSON_AddItemToArray(arr, m);
}

/* {"displayTimeUnit", "otherData", "traceEvents": arr} (arr moves into it). */
static cJSON *trace_root(const ovta_profile *p, cJSON *arr, double mhz) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "displayTimeUnit", "ns");
  cJSON *od = cJSON_AddObjectToObject(root, "otherData");
  cJSON_AddStringToObject(od, "producer", "ovta profile (tsim)");
  cJSON_AddStringToObject(od, "config", p->cfg.name);
  cJSON_AddNumberToObject(od, "clock_mhz", mhz);
  cJSON_AddStringToObject(od, "time_unit", "microseconds at clock_mhz; cycles in args");
  cJSON_AddItemToObject(root, "traceEvents", arr);
  return root;
}

int ovta_profile_trace(const ovta_profile *p, const char *raw, char **json, int *dev_runs, int *layer_runs,
                       ovta_error *err) {
  *json = NULL, *dev_runs = *layer_runs = 0;
  cJSON *arr;
  int rc = read_events(raw, &arr, err);
  if (rc) return rc;
  double mhz = p->cfg.clock_mhz > 0 ? p->cfg.clock_mhz : 100;
  uint64_t *starts = NULL;
  int nr = 0, want = 0;
  if ((rc = run_starts(arr, mhz, &starts, &nr, err))) {
    cJSON_Delete(arr);
    return rc;
  }
  for (int i = 0; i < p->n; i++) want += p->rows[i].accel ? (int)(p->rows[i].dev_runs ? p->rows[i].dev_runs : 1) : 0;
  cJSON *root = trace_root(p, arr, mhz);
  if (nr == want) add_layer_spans(arr, p, starts, mhz);
  add_name(arr, "thread_name", "layers", true);
  add_name(arr, "process_name", "ovta accelerator (tsim)", false);
  free(starts);
  *json = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  *dev_runs = nr, *layer_runs = want;
  return *json ? 0 : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
}
