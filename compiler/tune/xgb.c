/* xgb.c: the tuner's cost model, a boosted-tree regression through XGBoost's C API (Debian's
 * libxgboost-dev; the objects AutoTVM's XGBTuner uses), and the features of a tiling
 * (compiler/tune/tune.h). */
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

struct tune_model {
  BoosterHandle b; /* the trained booster */
};

/* An XGBoost call's failure as an ovta error naming the call. */
static int xgb_fail(ovta_error *err, const char *what) {
  return OVTA_FAIL(err, OVTA_EINTERNAL, "xgboost %s: %s", what, XGBGetLastError());
}

/* The booster's parameters: squared error, shallow trees, one thread (deterministic), seeded. */
static int set_params(BoosterHandle b, uint64_t seed, ovta_error *err) {
  char sd[32];
  snprintf(sd, sizeof sd, "%llu", (unsigned long long)(seed % 2147483647u));
  const char *kv[][2] = {{"objective", "reg:squarederror"}, {"max_depth", "4"}, {"eta", "0.3"},
                         {"min_child_weight", "1"}, {"nthread", "1"}, {"verbosity", "0"}, {"seed", sd}};
  for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
    if (XGBoosterSetParam(b, kv[i][0], kv[i][1])) return xgb_fail(err, "XGBoosterSetParam");
  return OVTA_OK;
}

int tune_model_fit(const float *x, const float *y, int n, int nf, int rounds, uint64_t seed, tune_model **out,
                   ovta_error *err) {
  *out = NULL;
  if (n < 1 || nf < 1) return OVTA_FAIL(err, OVTA_EINVAL, "cost model: no training rows");
  DMatrixHandle d;
  if (XGDMatrixCreateFromMat(x, (bst_ulong)n, (bst_ulong)nf, NAN, &d)) return xgb_fail(err, "XGDMatrixCreateFromMat");
  tune_model *m = calloc(1, sizeof *m);
  int rc = m ? OVTA_OK : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (!rc && XGDMatrixSetFloatInfo(d, "label", y, (bst_ulong)n)) rc = xgb_fail(err, "XGDMatrixSetFloatInfo");
  if (!rc && XGBoosterCreate(&d, 1, &m->b)) rc = xgb_fail(err, "XGBoosterCreate");
  if (!rc) rc = set_params(m->b, seed, err);
  for (int i = 0; !rc && i < rounds; i++)
    if (XGBoosterUpdateOneIter(m->b, i, d)) rc = xgb_fail(err, "XGBoosterUpdateOneIter");
  XGDMatrixFree(d);
  if (rc) {
    tune_model_free(m);
    return rc;
  }
  *out = m;
  return OVTA_OK;
}

int tune_model_predict(tune_model *m, const float *x, int n, int nf, float *out, ovta_error *err) {
  DMatrixHandle d;
  if (XGDMatrixCreateFromMat(x, (bst_ulong)n, (bst_ulong)nf, NAN, &d)) return xgb_fail(err, "XGDMatrixCreateFromMat");
  bst_ulong len = 0;
  const float *res = NULL;
  int rc = XGBoosterPredict(m->b, d, 0, 0, 0, &len, &res) ? xgb_fail(err, "XGBoosterPredict") : OVTA_OK;
  if (!rc && len != (bst_ulong)n) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "xgboost: %llu predictions for %d rows",
                                                 (unsigned long long)len, n);
  if (!rc) memcpy(out, res, (size_t)n * sizeof *out);
  XGDMatrixFree(d);
  return rc;
}

void tune_model_free(tune_model *m) {
  if (!m) return;
  if (m->b) XGBoosterFree(m->b);
  free(m);
}

int tune_features(const ovta_config *cfg, const vta_op *op, const vta_tiling *t, float *f, ovta_error *err) {
  vta_plan p;
  int rc = vta_plan_make(cfg, op, &t->k, &p, err);
  if (rc) return rc;
  float v[TUNE_NFEAT] = {(float)p.t_n, (float)p.t_oc, (float)p.t_ic, (float)p.t_h, (float)p.t_w, (float)p.vt,
                         (float)log(t->est + 1), (float)log((double)p.tiles), (float)p.red_steps,
                         (float)p.inp_tile / (float)p.inp_part, (float)p.wgt_tile / (float)p.wgt_part,
                         (float)p.acc_tile / (float)p.acc_part, (float)p.q_chunks, (float)t->k.res_form,
                         (float)p.epi_chunks};
  memcpy(f, v, sizeof v);
  return OVTA_OK;
}
