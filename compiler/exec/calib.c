/* calib.c: calibration and quantization of a float graph (exec.h, "Calibration"): the samples
 * made model inputs, then the quantizing pipeline run with them. One place for `ovta compile`,
 * `ovta profile`, `ovta eval` and the tests. */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

/* How many samples: from an array [S, ...] at most S (count 0: at most the default), from fill
 * exactly count. */
static int sample_count(const ovta_calib_opts *o, int64_t k, int64_t *out, ovta_error *err) {
  if (!o->samples) {
    if (!o->fill || o->count < 1) return OVTA_FAIL(err, OVTA_EINVAL, "calibration: no samples (samples or fill with count >= 1)");
    *out = o->count;
    return 0;
  }
  const ovta_tensor *a = o->samples;
  int64_t S = a->rank > 0 ? a->shape[0] : 0, per = S > 0 ? ovta_tensor_numel(a) / S : 0;
  if (S < 1 || per != k) {
    char sh[128];
    ovta_shape_str(a, sh, sizeof sh);
    return OVTA_FAIL(err, OVTA_EINVAL, "calibration samples %s: not [S, ...] with %lld elements per sample", sh, (long long)k);
  }
  int64_t want = o->count > 0 ? o->count : OVTA_CALIB_DEFAULT_COUNT;
  *out = want < S ? want : S;
  return 0;
}

/* Sample s as a float32 value shaped like input in. */
static int make_sample(const ovta_calib_opts *o, const ovta_tensor *in, int64_t s, ovta_tensor **out, ovta_error *err) {
  ovta_tensor *t = ovta_tensor_new(in->name, OVTA_DT_F32, in->rank, in->shape);
  int rc = t ? ovta_tensor_alloc(t, err) : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for calibration samples");
  if (rc) {
    ovta_tensor_free(t);
    return rc;
  }
  int64_t k = ovta_tensor_numel(in);
  float *d = t->data;
  if (o->samples) {
    double sc = o->samples->dtype == OVTA_DT_U8 ? 1.0 / 255.0 : 1.0;
    for (int64_t j = 0; j < k; j++) d[j] = (float)(ovta_tensor_get_f(o->samples, s * k + j) * sc);
  } else {
    o->fill(o->fill_ctx, s, d);
  }
  *out = t;
  return 0;
}

static void free_samples(ovta_tensor **vals, int64_t n) {
  for (int64_t s = 0; vals && s < n; s++) ovta_tensor_free(vals[s]);
  free(vals);
}

/* The pipeline with the samples. */
static int run_pipeline(ovta_graph *g, const ovta_calib_opts *o, ovta_tensor **vals, int64_t n, ovta_error *err) {
  ovta_tensor *const **ptrs = calloc((size_t)n, sizeof *ptrs);
  if (!ptrs) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for calibration samples");
  for (int64_t s = 0; s < n; s++) ptrs[s] = &vals[s];
  ovta_compile_opts co = {0};
  co.cfg = o->cfg;
  co.passes = o->passes ? o->passes : ovta_accel_pipeline;
  co.print_after = o->print_after;
  co.timing = o->timing;
  ovta_eval_cache *cache = o->eval ? NULL : ovta_eval_cache_new();
  co.eval = o->eval ? o->eval : ovta_exec_eval_cached;
  co.eval_ctx = o->eval ? o->eval_ctx : cache;
  co.n_calib = (int)n;
  co.calib = ptrs;
  int rc = !o->eval && !cache ? OVTA_FAIL(err, OVTA_ENOMEM, "out of memory") : ovta_compile_pipeline(g, &co, err);
  ovta_eval_cache_free(cache);
  free(ptrs);
  return rc;
}

int ovta_calibrate_quantize(ovta_graph *g, const ovta_calib_opts *o, int64_t *used, ovta_error *err) {
  if (used) *used = 0;
  if (g->n_inputs != 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "calibration: the model has %d inputs, not 1", g->n_inputs);
  const ovta_tensor *in = g->inputs[0];
  int64_t k = ovta_tensor_numel(in), n = 0;
  if (in->rank < 0 || k <= 0)
    return OVTA_FAIL(err, OVTA_EINVAL, "calibration: input %s has no static shape (fit its symbolic dims first)", in->name);
  int rc = sample_count(o, k, &n, err);
  if (rc) return rc;
  ovta_tensor **vals = calloc((size_t)n, sizeof *vals);
  if (!vals) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %lld calibration samples", (long long)n);
  for (int64_t s = 0; !rc && s < n; s++) rc = make_sample(o, in, s, &vals[s], err);
  if (!rc) rc = run_pipeline(g, o, vals, n, err);
  free_samples(vals, n);
  if (!rc && used) *used = n;
  return rc;
}

bool ovta_graph_quantized(const ovta_graph *g) {
  for (int i = 0; i < g->n_nodes; i++)
    if (!strcmp(g->nodes[i]->op, "ovta.QConv") || !strcmp(g->nodes[i]->op, "ovta.QDense")) return true;
  return false;
}
