/* The tuner's library (compiler/tune/tune.h) without a device: the XGBoost cost model learns a
 * known function (held-out error far below the variance; its ranking finds the true minimum far
 * more often than chance) deterministically; the schedule space of a ResNet-18 layer holds the
 * planner's choice with the lowest estimate, every candidate plans with its knobs; the log reads
 * back what it wrote and drops a partial last line; a trial reads back from its JSON; the search
 * names the planner's choice as it plans, and (on fsim, in-process) measures it first, leaves
 * out records without the epilogue's form and writes a tuning file whose knobs read back. The sweep
 * (section 5): a space's points (the product, sizes as logs, a point equal to a shipped config
 * named after it, the others after their values, invalid ones with the check's error), a result
 * through its JSON, the Pareto front against a brute-force one on random results. The local
 * pool (section 4): result order, timeout (with the worker's children), a crashed worker. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "tune.h"
#include "ovta_test.h"

static unsigned rng = 4242;
static double uni(void) { /* [0, 1) */
  rng = rng * 1103515245u + 12345u;
  return ((rng >> 8) & 0xffffff) / 16777216.0;
}

/* The function to learn: nonlinear in two of four features, the others noise-free distractors. */
static float target(const float *x) { return (float)(3 * x[0] * x[0] + (x[1] > 0.5f ? 2 : 0) + 0.1 * x[2]); }

static void make(float *x, float *y, int n) {
  for (int i = 0; i < n; i++) {
    for (int f = 0; f < 4; f++) x[i * 4 + f] = (float)uni();
    y[i] = target(x + i * 4);
  }
}

static void test_model_learns(void **state) {
  (void)state;
  enum { NT = 200, NV = 200 };
  float xt[NT * 4], yt[NT], xv[NV * 4], yv[NV], p[NV], p2[NV];
  make(xt, yt, NT), make(xv, yv, NV);
  tune_model *m = NULL, *m2 = NULL;
  ovta_error err = {0};
  assert_int_equal(tune_model_fit(xt, yt, NT, 4, 30, 1, &m, &err), 0);
  assert_int_equal(tune_model_predict(m, xv, NV, 4, p, &err), 0);
  double mean = 0, var = 0, mse = 0;
  for (int i = 0; i < NV; i++) mean += yv[i] / NV;
  for (int i = 0; i < NV; i++) var += (yv[i] - mean) * (yv[i] - mean) / NV, mse += (p[i] - yv[i]) * (p[i] - yv[i]) / NV;
  assert_true(mse < 0.05 * var); /* a random guess (the mean) scores var */
  /* deterministic: the same data and seed give the same predictions */
  assert_int_equal(tune_model_fit(xt, yt, NT, 4, 30, 1, &m2, &err), 0);
  assert_int_equal(tune_model_predict(m2, xv, NV, 4, p2, &err), 0);
  assert_memory_equal(p, p2, sizeof p);
  tune_model_free(m), tune_model_free(m2);
}

/* Ranking: in 20 pools of 50, the model's pick is within the true best 5 far more often than a
 * random pick (5/50 = 10%). */
static void test_model_ranks(void **state) {
  (void)state;
  enum { NT = 60, NP = 50 };
  int hits = 0;
  for (int r = 0; r < 20; r++) {
    float xt[NT * 4], yt[NT], xp[NP * 4], yp[NP], p[NP];
    make(xt, yt, NT), make(xp, yp, NP);
    tune_model *m = NULL;
    ovta_error err = {0};
    assert_int_equal(tune_model_fit(xt, yt, NT, 4, 30, (uint64_t)r, &m, &err), 0);
    assert_int_equal(tune_model_predict(m, xp, NP, 4, p, &err), 0);
    int pick = 0, better = 0;
    for (int i = 1; i < NP; i++) if (p[i] < p[pick]) pick = i;
    for (int i = 0; i < NP; i++) better += yp[i] < yp[pick];
    hits += better < 5;
    tune_model_free(m);
  }
  assert_true(hits >= 14);
}

static void test_model_errors(void **state) {
  (void)state;
  tune_model *m = (tune_model *)1;
  ovta_error err = {0};
  assert_int_equal(tune_model_fit(NULL, NULL, 0, 4, 10, 1, &m, &err), OVTA_EINVAL);
  assert_null(m);
}

/* ResNet-18's C5 (28x28, 128 -> 128, 3x3): the space holds the planner's choice (its tiling, threads
 * and epilogue form) once, whose estimate is the lowest of its thread count, and every candidate
 * plans with its knobs; a tiling the chunked epilogue applies to is there in both forms (epi 1
 * whole, then epi 2 chunked: vta_plan.epi_chunks, a feature), the others whole only. */
/* The default config and a biased ReLU conv on it (c -> o channels, hw x hw, k x k, stride s,
 * pad k / 2, shift 12). */
static void conv_on_default(ovta_config *cfg, vta_op *op, const char *name, int c, int hw, int o, int k, int s) {
  ovta_error err = {0};
  assert_int_equal(ovta_config_load("default", cfg, &err), 0);
  vta_op_conv(op, name, cfg->batch, c, hw, hw, o, k, s, k / 2);
  op->has_bias = true, op->shift = 12, op->clip_min = 0;
}

static void test_space(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_error err = {0};
  vta_op op;
  conv_on_default(&cfg, &op, "C5", 128, 28, 128, 3, 1);
  int n = 0;
  assert_int_equal(vta_plan_space(&cfg, &op, NULL, 0, &n, &err), 0);
  assert_true(n > 10);
  vta_tiling *t = calloc((size_t)n, sizeof *t);
  assert_non_null(t);
  int n2 = 0;
  assert_int_equal(vta_plan_space(&cfg, &op, t, n, &n2, &err), 0);
  assert_int_equal(n2, n);
  vta_plan h;
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &h, &err), 0);
  int found = 0, chunked = 0;
  double lo = -1;
  for (int i = 0; i < n; i++) {
    vta_plan p;
    assert_int_equal(vta_plan_make(&cfg, &op, &t[i].k, &p, &err), 0);
    assert_true(p.t_n == t[i].k.t_n && p.t_oc == t[i].k.t_oc && p.t_ic == t[i].k.t_ic && p.t_h == t[i].k.t_h &&
                p.t_w == t[i].k.t_w && p.vt == t[i].k.vthreads);
    assert_true(t[i].k.epi == 1 || t[i].k.epi == 2);
    assert_int_equal(p.epi_chunks, t[i].k.epi == 2);
    assert_true(p.est == t[i].est);
    if (t[i].k.epi == 2) { /* right after the same tiling whole */
      chunked++;
      assert_true(i > 0 && t[i - 1].k.epi == 1);
      vta_knobs w = t[i].k;
      w.epi = 1;
      assert_memory_equal(&t[i - 1].k, &w, sizeof w);
    } else if (i + 1 == n || t[i + 1].k.epi != 2) { /* whole only: the chunked form does not apply to it */
      vta_knobs c = t[i].k;
      c.epi = 2;
      vta_plan pc;
      assert_int_equal(vta_plan_make(&cfg, &op, &c, &pc, &err), 0);
      assert_false(pc.epi_chunks);
    }
    if (t[i].k.vthreads == h.vt && (lo < 0 || t[i].est < lo)) lo = t[i].est;
    found += p.t_n == h.t_n && p.t_oc == h.t_oc && p.t_ic == h.t_ic && p.t_h == h.t_h && p.t_w == h.t_w &&
             p.vt == h.vt && p.epi_chunks == h.epi_chunks;
    float f[TUNE_NFEAT];
    assert_int_equal(tune_features(&cfg, &op, &t[i], f, &err), 0);
    assert_true(f[0] == (float)t[i].k.t_n && f[5] == (float)t[i].k.vthreads);
    assert_true(f[TUNE_NFEAT - 1] == (float)(t[i].k.epi == 2));
  }
  assert_int_equal(found, 1);
  assert_true(chunked > 0 && chunked < n / 2);
  char want[64];
  snprintf(want, sizeof want, "estimated cost %.0f", lo);
  assert_non_null(strstr(h.why, want));
  free(t);
  /* an ALU operator has no tiling knobs */
  vta_op mp = op;
  mp.kind = VTA_MAXPOOL;
  assert_int_not_equal(vta_plan_space(&cfg, &mp, NULL, 0, &n, &err), 0);
}

/* A conv with a fused add (ResNet-18's C10 with its residual add): the space holds both forms of
 * the add (res_form 1, 2, and 3 with 2 threads) per thread count, each candidate plans with its form (vta_plan.res_pre, res_pipe),
 * res_form is a feature, and a tuning JSON's res_form reaches the knobs (0..2, else an error). */
static void test_space_fused(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_error err = {0};
  vta_op op;
  conv_on_default(&cfg, &op, "C10", 256, 14, 256, 3, 1);
  int nu = 0, n = 0;
  assert_int_equal(vta_plan_space(&cfg, &op, NULL, 0, &nu, &err), 0);
  vta_op_fuse_add(&op, 1, 0, 1, 0, 127);
  assert_int_equal(vta_plan_space(&cfg, &op, NULL, 0, &n, &err), 0);
  vta_tiling *t = calloc((size_t)n, sizeof *t);
  assert_non_null(t);
  assert_int_equal(vta_plan_space(&cfg, &op, t, n, &n, &err), 0);
  int forms[4] = {0}, piped = 0;
  for (int i = 0; i < n; i++) {
    vta_plan p;
    assert_int_equal(vta_plan_make(&cfg, &op, &t[i].k, &p, &err), 0);
    assert_true(t[i].k.res_form >= 1 && t[i].k.res_form <= 3);
    assert_true(t[i].k.epi == 1 && !p.epi_chunks); /* no chunked epilogue with a fused add */
    assert_true(t[i].k.res_form < 3 || t[i].k.vthreads == 2); /* pipelined: 2 threads */
    assert_int_equal(p.res_pre, t[i].k.res_form == 2);
    assert_true(t[i].k.res_form == 3 || p.res_pipe == 0);
    piped += p.res_pipe > 0;
    assert_true(p.t_oc == t[i].k.t_oc && p.t_h == t[i].k.t_h && p.t_w == t[i].k.t_w && p.vt == t[i].k.vthreads);
    forms[t[i].k.res_form]++;
    float f[TUNE_NFEAT];
    assert_int_equal(tune_features(&cfg, &op, &t[i], f, &err), 0);
    assert_true(f[TUNE_NFEAT - 2] == (float)t[i].k.res_form);
  }
  assert_true(forms[1] > 0 && forms[2] > 0 && forms[3] > 0 && piped > 0 && forms[1] + forms[2] + forms[3] == n && n <= 3 * nu);
  free(t);
  vta_knobs k = {0};
  assert_int_equal(vta_knobs_from_json("{\"ops\": {\"C10\": {\"t_oc\": 2, \"res_form\": 2}}}", "t", "C10", &k, &err), 0);
  assert_true(k.t_oc == 2 && k.res_form == 2);
  assert_int_equal(vta_knobs_from_json("{\"ops\": {\"C10\": {\"res_form\": 3}}}", "t", "C10", &k, &err), 0);
  assert_true(k.res_form == 3);
  assert_int_not_equal(vta_knobs_from_json("{\"ops\": {\"C10\": {\"res_form\": 4}}}", "t", "C10", &k, &err), 0);
  assert_string_equal(err.msg, "t: knob 'res_form' must be an integer in 0..3");
  /* the epilogue's form, from the layer's entry over the default */
  k = (vta_knobs){0};
  assert_int_equal(vta_knobs_from_json("{\"default\": {\"epi\": 1}, \"ops\": {\"C5\": {\"epi\": 2}}}", "t", "C5", &k, &err), 0);
  assert_int_equal(k.epi, 2);
  assert_int_equal(vta_knobs_from_json("{\"default\": {\"epi\": 1}, \"ops\": {\"C5\": {\"epi\": 2}}}", "t", "C6", &k, &err), 0);
  assert_int_equal(k.epi, 1);
  assert_int_not_equal(vta_knobs_from_json("{\"ops\": {\"C5\": {\"epi\": 3}}}", "t", "C5", &k, &err), 0);
  assert_string_equal(err.msg, "t: knob 'epi' must be an integer in 0..2");
}

static void test_log_roundtrip(void **state) {
  (void)state;
  char path[] = "/tmp/ovta_tune_log_XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  tune_record a = {.layer = "conv \"1\"", .t = {.k = {1, 2, 4, 7, 14, 2, 0, 2}, .est = 1234}, .r = {.ok = true, .cycles = 5678}};
  tune_record b = {.layer = "fc", .t = {.k = {1, 1, 2, 1, 1, 1, 2, 1}, .est = 10}, .r = {.ok = false, .error = "timeout"}};
  ovta_error err = {0};
  assert_int_equal(tune_log_append(f, &a, &err), 0);
  assert_int_equal(tune_log_append(f, &b, &err), 0);
  /* a record from before the epilogue was searched: no "epi" (read as 0) */
  fputs("{\"layer\":\"fc\",\"knobs\":{\"t_n\":1,\"t_oc\":1,\"t_ic\":2,\"t_h\":1,\"t_w\":1,\"vthreads\":2},\"est\":9,\"cycles\":11}\n", f);
  long whole = ftell(f);
  fputs("{\"layer\":\"fc\",\"kn", f); /* a killed writer */
  fclose(f);
  tune_record *r = NULL;
  int n = 0;
  long end = 0;
  assert_int_equal(tune_log_read(path, &r, &n, &end, &err), 0);
  assert_int_equal(n, 3);
  assert_int_equal(end, whole);
  assert_string_equal(r[0].layer, a.layer);
  assert_memory_equal(&r[0].t.k, &a.t.k, sizeof a.t.k);
  assert_true(r[0].r.ok && r[0].r.cycles == 5678 && r[0].t.est == 1234);
  assert_true(!r[1].r.ok && !strcmp(r[1].r.error, "timeout"));
  assert_memory_equal(&r[1].t.k, &b.t.k, sizeof b.t.k); /* res_form 2 too */
  assert_int_equal(r[0].t.k.epi, 2);
  assert_int_equal(r[1].t.k.epi, 1);
  assert_true(r[2].r.ok && r[2].r.cycles == 11 && r[2].t.k.epi == 0 && r[2].t.k.vthreads == 2);
  free(r);
  unlink(path);
  assert_int_equal(tune_log_read(path, &r, &n, &end, &err), 0); /* missing: empty */
  assert_int_equal(n, 0);
}

/* A trial through its JSON (what a Slurm runner would submit) is the same trial: every op field,
 * the shifts, the knobs, the estimate; the same plan. A bad field is an error naming it. */
static void test_trial_json(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_error err = {0};
  vta_op op;
  conv_on_default(&cfg, &op, "/layer1/conv \"a\"", 64, 14, 64, 3, 2);
  int64_t sh[64];
  for (int i = 0; i < 64; i++) sh[i] = 8 + i % 5;
  op.shifts = sh, op.pad_b = 0;
  tune_trial a = {.op = &op, .t = {.k = {1, 2, 4, 7, 7, 2}, .est = 4321.5}}, b;
  char *s = tune_trial_to_json(&a);
  assert_non_null(s);
  assert_int_equal(tune_trial_from_json(s, "t.json", &b, &err), 0);
  assert_true(b.op->shifts && b.op->shifts != sh);
  assert_memory_equal(b.op->shifts, sh, sizeof sh);
  vta_op o2 = *b.op;
  o2.shifts = sh;
  assert_memory_equal(&o2, &op, sizeof op);
  assert_memory_equal(&b.t, &a.t, sizeof a.t);
  vta_plan pa, pb;
  assert_int_equal(vta_plan_make(&cfg, a.op, &a.t.k, &pa, &err), 0);
  assert_int_equal(vta_plan_make(&cfg, b.op, &b.t.k, &pb, &err), 0);
  pb.op.shifts = pa.op.shifts;
  assert_memory_equal(&pa, &pb, sizeof pa);
  tune_trial_free(&b);
  assert_null(b.op);
  char *bad = strdup(s), *at = strstr(bad, "\"stride_w\":2");
  assert_non_null(at);
  at[8] = 'x'; /* "stride_x":2, stride_w missing */
  assert_int_not_equal(tune_trial_from_json(bad, "t.json", &b, &err), 0);
  assert_string_equal(err.msg, "t.json: not a tuning trial (field stride_w)");
  assert_int_not_equal(tune_trial_from_json("[1", "t.json", &b, &err), 0);
  assert_string_equal(err.msg, "t.json: not a tuning trial (not JSON)");
  free(bad), free(s);
  /* a conv with a fused add (one shift for all: the add takes no per-channel shifts), form 2 */
  conv_on_default(&cfg, &op, "/layer2/conv", 64, 14, 64, 3, 1);
  vta_op_fuse_add(&op, 1, 2, 3, -5, 100);
  a = (tune_trial){.op = &op, .t = {.k = {1, 2, 4, 7, 7, 2, 2}, .est = 99}};
  assert_non_null(s = tune_trial_to_json(&a));
  assert_int_equal(tune_trial_from_json(s, "t.json", &b, &err), 0);
  assert_memory_equal(b.op, &op, sizeof op);
  assert_memory_equal(&b.t, &a.t, sizeof a.t);
  assert_int_equal(vta_plan_make(&cfg, a.op, &a.t.k, &pa, &err), 0);
  assert_int_equal(vta_plan_make(&cfg, b.op, &b.t.k, &pb, &err), 0);
  assert_true(pa.res_pre && pb.op.res);
  assert_memory_equal(&pa, &pb, sizeof pa);
  tune_trial_free(&b);
  free(s);
  /* the chunked epilogue (epi 2): C5's first candidate with it, through its JSON, plans chunked */
  conv_on_default(&cfg, &op, "C5", 128, 28, 128, 3, 1);
  int n = 0;
  assert_int_equal(vta_plan_space(&cfg, &op, NULL, 0, &n, &err), 0);
  vta_tiling *t = calloc((size_t)n, sizeof *t);
  assert_non_null(t);
  assert_int_equal(vta_plan_space(&cfg, &op, t, n, &n, &err), 0);
  int i = 0;
  while (i < n && t[i].k.epi != 2) i++;
  assert_true(i < n);
  a = (tune_trial){.op = &op, .t = t[i]};
  assert_non_null(s = tune_trial_to_json(&a));
  assert_non_null(strstr(s, "\"epi\":2"));
  assert_int_equal(tune_trial_from_json(s, "t.json", &b, &err), 0);
  assert_memory_equal(&b.t, &a.t, sizeof a.t);
  assert_int_equal(vta_plan_make(&cfg, b.op, &b.t.k, &pb, &err), 0);
  assert_true(pb.epi_chunks);
  tune_trial_free(&b);
  free(s), free(t);
}

/* The planner's own choice as the search names it (the heuristic, measured first) plans to the
 * planner's plan: its tiling, threads, the fused add's form (res_form 3 for the pipelined one) and
 * the epilogue's (epi 2 chunked), and it is a candidate of the space. */
static void heuristic_is_planners(const ovta_config *cfg, const vta_op *op) {
  tune_runner run = {.backend = "fsim", .cfg = cfg, .jobs = 1};
  tune_opts o = {.runner = &run, .trials = 0};
  tune_outcome out;
  ovta_error err = {0};
  assert_int_equal(tune_layer(cfg, op->name, op, &o, NULL, 0, &out, &err), 0);
  assert_int_equal(out.trials, 0);
  vta_plan h, p;
  assert_int_equal(vta_plan_make(cfg, op, NULL, &h, &err), 0);
  assert_int_equal(vta_plan_make(cfg, op, &out.heuristic.k, &p, &err), 0);
  assert_true(p.t_n == h.t_n && p.t_oc == h.t_oc && p.t_ic == h.t_ic && p.t_h == h.t_h && p.t_w == h.t_w &&
              p.vt == h.vt && p.res_pre == h.res_pre && p.res_pipe == h.res_pipe && p.epi_chunks == h.epi_chunks);
  assert_true(p.est == h.est && out.heuristic.est == h.est);
  assert_int_equal(out.heuristic.k.epi, h.epi_chunks ? 2 : 1);
}

static void test_heuristic(void **state) {
  (void)state;
  ovta_config cfg;
  vta_op op;
  conv_on_default(&cfg, &op, "C5", 128, 28, 128, 3, 1);
  heuristic_is_planners(&cfg, &op);
  conv_on_default(&cfg, &op, "C10", 256, 14, 256, 3, 1);
  vta_op_fuse_add(&op, 1, 0, 1, 0, 127);
  heuristic_is_planners(&cfg, &op);
  conv_on_default(&cfg, &op, "C2", 64, 56, 64, 3, 1);
  vta_op_fuse_add(&op, 1, 0, 1, 0, 127);
  heuristic_is_planners(&cfg, &op);
}

/* The search of a small conv on fsim (cycles: the planner's estimate): a prior record without
 * "epi" (a log from before it was searched) does not count; the planner's choice is measured
 * first, with its epilogue form; every record has epi 1 or 2; the tuning file gives back each
 * layer's knobs with epi through vta_knobs_from_json. */
static void test_search_epi(void **state) {
  (void)state;
  ovta_config cfg;
  ovta_error err = {0};
  vta_op op;
  conv_on_default(&cfg, &op, "E", 32, 8, 64, 3, 1);
  char lpath[] = "/tmp/ovta_tune_epi_XXXXXX";
  int fd = mkstemp(lpath);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w+");
  tune_runner run = {.backend = "fsim", .cfg = &cfg, .jobs = 1, .timeout_s = 120};
  tune_opts o = {.runner = &run, .trials = 5, .seed = 3, .log = f};
  vta_plan h;
  assert_int_equal(vta_plan_make(&cfg, &op, NULL, &h, &err), 0);
  tune_record old = {.layer = "E", .t = {.k = {h.t_n, h.t_oc, h.t_ic, h.t_h, h.t_w, h.vt}}, .r = {.ok = true, .cycles = 1}};
  tune_outcome out;
  assert_int_equal(tune_layer(&cfg, "E", &op, &o, &old, 1, &out, &err), 0);
  assert_int_equal(out.trials, 5);
  assert_int_equal(out.failed, 0);
  assert_true(out.found && out.best_cycles > 1 && out.heuristic_ok);
  assert_true(out.heuristic_cycles == (uint64_t)(h.est + 0.5));
  fclose(f);
  tune_record *r = NULL;
  int n = 0;
  long end = 0;
  assert_int_equal(tune_log_read(lpath, &r, &n, &end, &err), 0);
  assert_int_equal(n, 5);
  assert_memory_equal(&r[0].t.k, &out.heuristic.k, sizeof out.heuristic.k);
  assert_int_equal(r[0].t.k.epi, h.epi_chunks ? 2 : 1);
  for (int i = 0; i < n; i++) assert_true(r[i].t.k.epi == 1 || r[i].t.k.epi == 2);
  free(r);
  unlink(lpath);
  /* the tuning file: this layer's best and a chunked one */
  char tpath[] = "/tmp/ovta_tune_epi_json_XXXXXX";
  fd = mkstemp(tpath);
  assert_true(fd >= 0);
  close(fd);
  tune_outcome two[2] = {out, {.found = true, .best = {.k = {1, 8, 2, 2, 28, 2, 0, 2}}}};
  char *names[2] = {"E", "C5"};
  assert_int_equal(tune_write_tuning(tpath, names, two, 2, &err), 0);
  char *json = NULL;
  size_t len = 0;
  assert_int_equal(ovta_read_file(tpath, 1 << 20, &json, &len, &err), 0);
  for (int i = 0; i < 2; i++) {
    vta_knobs k = {0};
    assert_int_equal(vta_knobs_from_json(json, "t", names[i], &k, &err), 0);
    assert_memory_equal(&k, &two[i].best.k, sizeof k);
  }
  free(json);
  unlink(tpath);
}

/* The local pool: results in task order from workers finishing in any order; a worker past the
 * timeout is killed with what it started (its process group: a `sleep` grandchild is gone); a
 * crashed worker is reported, its result zero. */
static char pool_pidfile[64];
static void pool_task(void *ctx, int i, void *out) {
  (void)ctx;
  if (i == 1) { /* hangs, with a grandchild that would outlive it */
    pid_t g = fork();
    if (g == 0) execlp("sleep", "sleep", "30", (char *)NULL), _exit(127);
    FILE *f = fopen(pool_pidfile, "w");
    fprintf(f, "%d\n", (int)g);
    fclose(f);
    sleep(30);
  }
  if (i == 2) abort();
  usleep((useconds_t)(5 - i) * 20000); /* later tasks finish first */
  *(int *)out = 1000 + i;
}

static bool alive(pid_t p) { /* a running process (not gone, not a zombie) */
  char path[64], st = 0;
  snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  int ok = fscanf(f, "%*d %*s %c", &st);
  fclose(f);
  return ok == 1 && st != 'Z';
}

static void test_pool(void **state) {
  (void)state;
  snprintf(pool_pidfile, sizeof pool_pidfile, "/tmp/ovta_pool_%d", (int)getpid());
  int out[5];
  char why[5][200];
  ovta_error err = {0};
  tune_pool p = {.jobs = 3, .timeout_s = 1.0};
  assert_int_equal(tune_pool_run(&p, 5, pool_task, NULL, out, sizeof out[0], why, &err), 0);
  for (int i = 0; i < 5; i++)
    if (i != 1 && i != 2) assert_true(!why[i][0] && out[i] == 1000 + i);
  assert_string_equal(why[1], "timeout after 1 s");
  assert_int_equal(strncmp(why[2], "worker died (signal", 19), 0);
  assert_true(out[1] == 0 && out[2] == 0);
  int g = 0;
  FILE *f = fopen(pool_pidfile, "r");
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%d", &g), 1);
  fclose(f);
  unlink(pool_pidfile);
  for (int k = 0; k < 50 && alive((pid_t)g); k++) usleep(20000);
  assert_false(alive((pid_t)g));
}

/* The sweep's points of a space: 2 x 2 of the small config, and its errors. */
static void test_sweep_space(void **state) {
  (void)state;
  char dir[] = "/tmp/ovta_sweep_XXXXXX";
  assert_non_null(mkdtemp(dir));
  sweep_point *p = NULL;
  int n = 0;
  ovta_error err = {0};
  const char *sp = "{\"base\": \"small\", \"params\": {\"BLOCK\": [8, 16], \"CMD_QUEUE_DEPTH\": [4, 64]},"
                   " \"configs\": [\"default\"]}";
  assert_int_equal(sweep_space(sp, "s.json", dir, &p, &n, &err), 0);
  assert_int_equal(n, 5);
  static const int blk[] = {3, 3, 4, 4}, cq[] = {4, 64, 4, 64};
  for (int i = 0; i < 4; i++) {
    assert_string_equal(p[i].error, "");
    assert_int_equal(p[i].cfg.log_block, blk[i]);
    assert_int_equal(p[i].cfg.cmd_queue_depth, cq[i]);
    assert_int_equal(p[i].cfg.log_inp_buff_size, 10); /* the base's */
  }
  assert_string_equal(p[0].params, "BLOCK=8 CMD_QUEUE_DEPTH=4");
  assert_string_equal(p[0].name, "small");  /* small itself */
  assert_string_equal(p[4].name, "default");
  for (int i = 1; i < 4; i++) {
    assert_int_equal(strncmp(p[i].name, "sweep-", 6), 0);
    for (int j = 0; j < i; j++) assert_string_not_equal(p[i].name, p[j].name);
    ovta_config back; /* the written config file is the point's config */
    assert_int_equal(ovta_config_load(p[i].cfgpath, &back, &err), 0);
    assert_string_equal(back.name, p[i].name);
    assert_int_equal(back.log_block, blk[i]);
    assert_int_equal(back.cmd_queue_depth, cq[i]);
    unlink(p[i].cfgpath);
  }
  free(p);
  assert_int_equal(sweep_space("{\"params\": {\"LOG_BLOCK\": [9]}}", "s.json", dir, &p, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_string_equal(p[0].name, "invalid");
  assert_non_null(strstr(p[0].error, "LOG_BLOCK"));
  free(p);
  assert_int_not_equal(sweep_space("{\"params\": {\"BATCH\": [3]}}", "s.json", dir, &p, &n, &err), 0);
  assert_string_equal(err.msg, "s.json: params.BATCH: 3 is not a power of two");
  assert_int_not_equal(sweep_space("{\"params\": {\"FOO\": [3]}}", "s.json", dir, &p, &n, &err), 0);
  assert_string_equal(err.msg, "s.json: params.FOO: not a config key (see `ovta config --json`)");
  assert_int_not_equal(sweep_space("{\"params\": {\"LOG_BLOCK\": []}}", "s.json", dir, &p, &n, &err), 0);
  assert_int_not_equal(sweep_space("{}", "s.json", dir, &p, &n, &err), 0);
  rmdir(dir);
}

/* A result through its JSON; a bad one is an error. */
static void test_sweep_result_json(void **state) {
  (void)state;
  sweep_result a = {.ok = true, .nmodels = 2, .cycles = {123456789012ull, 7}, .total = 123456789019ull, .synth = true,
                    .lut = 35749, .ff = 6117, .dsp = 182, .bram36 = 116.5, .fits = true}, b;
  ovta_error err = {0};
  char *s = sweep_result_to_json(&a);
  assert_int_equal(sweep_result_from_json(s, &b, &err), 0);
  assert_memory_equal(&a, &b, sizeof a);
  free(s);
  sweep_result f = {.error = "timeout after 5 s"};
  s = sweep_result_to_json(&f);
  assert_int_equal(sweep_result_from_json(s, &b, &err), 0);
  assert_memory_equal(&f, &b, sizeof f);
  free(s);
  assert_int_not_equal(sweep_result_from_json("{\"ok\": true, \"cycles\": [-1]}", &b, &err), 0);
  assert_int_not_equal(sweep_result_from_json("{\"cycles\": []}", &b, &err), 0);
}

/* The front against brute force: random results (ties likely: small values), some failed, with
 * and without resources; a failed point is never on it, a point with the fewest cycles always. */
static void test_sweep_pareto(void **state) {
  (void)state;
  enum { N = 40 };
  for (int round = 0; round < 200; round++) {
    sweep_result r[N] = {0};
    bool front[N], res = round % 2 == 0;
    int n = 1 + (int)(uni() * N);
    for (int i = 0; i < n; i++) {
      r[i].ok = uni() < 0.85;
      r[i].total = 1 + (uint64_t)(uni() * 6);
      r[i].synth = res, r[i].lut = (int)(uni() * 6), r[i].dsp = (int)(uni() * 3), r[i].bram36 = (int)(uni() * 4) / 2.0;
    }
    sweep_pareto(r, n, front);
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < n; i++)
      if (r[i].ok && r[i].total < best) best = r[i].total;
    for (int i = 0; i < n; i++) {
      bool dominated = false;
      for (int j = 0; j < n && r[i].ok; j++) {
        if (j == i || !r[j].ok) continue;
        double a[4] = {(double)r[j].total, r[j].lut, r[j].dsp, r[j].bram36};
        double b[4] = {(double)r[i].total, r[i].lut, r[i].dsp, r[i].bram36};
        int k = res ? 4 : 1, le = 0, lt = 0;
        for (int m = 0; m < k; m++) le += a[m] <= b[m], lt += a[m] < b[m];
        if (le == k && lt) dominated = true;
      }
      assert_int_equal(front[i], r[i].ok && !dominated);
      if (r[i].ok && r[i].total == best && !res) assert_true(front[i]);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_model_learns), cmocka_unit_test(test_model_ranks), cmocka_unit_test(test_model_errors),
      cmocka_unit_test(test_space),        cmocka_unit_test(test_space_fused), cmocka_unit_test(test_log_roundtrip),
      cmocka_unit_test(test_trial_json),   cmocka_unit_test(test_heuristic), cmocka_unit_test(test_search_epi),
      cmocka_unit_test(test_sweep_space),
      cmocka_unit_test(test_pool),
      cmocka_unit_test(test_sweep_result_json), cmocka_unit_test(test_sweep_pareto),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
