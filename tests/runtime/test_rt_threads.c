/* Runtime threads test: several threads at once, each with its own fsim device and its own
 * command queue (ovta_runtime.h: one queue per thread), each running the blocked, requantized
 * int8 matmul of rt_matmul.h several rounds (1 and 2 virtual threads, a random module interleaving
 * per device, different configs and data per thread). Every result is compared bit for bit with
 * the plain-C reference mm_reference. The threads start together (a barrier) so their device
 * runs overlap; `make test-tsan` runs this binary under ThreadSanitizer (build-tsan/), which
 * reports any data race in driver, simulator or runtime state the threads share.
 * Also checks the thread-local current queue (ovta_rt_thread_set/get) stays per thread.
 *
 * Second test: whole models. The Fashion-MNIST CNN quantized once (models/fmnist, 8 calibration
 * images); then MTHREADS threads at once each compile their own copy for the accelerator
 * (ovta_exec_build: vta kernels, LLVM host code) and attach their own fsim device, and run 3
 * test images; every logit must equal, bit for bit, the CPU-path int8 plan's (built and run in
 * the main thread first: the independent reference). */
#include "ovta_test_model.h"
#include "ovta_driver.h"
#include "ovta_runtime.h"
#include "rt_matmul.h"

#include <pthread.h>

#define NTHREADS 4
#define ROUNDS 3

typedef struct job {
  int id;                 /* thread index */
  const char *cfgname;    /* hardware config */
  pthread_barrier_t *bar; /* start together */
  int runs_ok;            /* rounds whose result matched the reference */
  size_t mid;             /* reference outputs strictly between the clamps, summed over rounds */
  size_t nc;              /* outputs per round */
  bool tls_ok;            /* ovta_rt_thread_get returned this thread's queue throughout */
  char msg[1024];          /* first failure, "" if none */
} job;

static void *worker(void *arg) {
  job *j = arg;
  ovta_error err = {0};
  ovta_config cfg;
  j->tls_ok = true;
  if (ovta_config_load(j->cfgname, &cfg, &err)) {
    snprintf(j->msg, sizeof j->msg, "config %s: %s", j->cfgname, err.msg);
    pthread_barrier_wait(j->bar);
    return NULL;
  }
  ovta_dev_opts o = {0};
  o.seed = 1000u + (uint64_t)j->id; /* a random module interleaving per device */
  ovta_dev *dev = NULL;
  ovta_rt *rt = NULL;
  int rc = ovta_dev_open("fsim", &cfg, &o, &dev, &err);
  if (!rc) {
    ovta_rt_opts ro = {0};
    ro.timeout_ms = 120000;
    rc = ovta_rt_create(dev, &ro, &rt, &err);
  }
  if (rc) snprintf(j->msg, sizeof j->msg, "thread %d (%s): open: %s", j->id, j->cfgname, err.msg);
  else ovta_rt_thread_set(rt);
  pthread_barrier_wait(j->bar); /* every thread has opened its device and set its queue */
  mm_shape s = mm_shape_for(&cfg);
  for (int round = 0; !rc && round < ROUNDS; round++) {
    if (ovta_rt_thread_get() != rt) j->tls_ok = false;
    int vt = 1 + (round + j->id) % 2;
    mm_run r;
    rc = mm_setup(dev, &s, (uint32_t)(j->id * 100 + round), &r, &err);
    if (rc) {
      snprintf(j->msg, sizeof j->msg, "thread %d round %d: setup: %s", j->id, round, err.msg);
      break;
    }
    rc = mm_issue(rt, &s, vt, r.ba, r.bw, r.bc, &err);
    if (!rc) rc = ovta_rt_synchronize(rt, 120000, &err);
    if (!rc) rc = mm_collect(dev, &r, &err);
    if (rc) snprintf(j->msg, sizeof j->msg, "thread %d (%s) round %d vt %d: %s", j->id, j->cfgname, round, vt, err.msg);
    else {
      size_t nc = (size_t)s.m * s.n, bad = 0, first = nc;
      for (size_t i = 0; i < nc; i++)
        if (r.got[i] != r.ref[i]) {
          if (first == nc) first = i;
          bad++;
        }
      for (size_t i = 0; i < nc; i++) j->mid += r.ref[i] > 0 && r.ref[i] < 127;
      j->nc = nc;
      if (bad) {
        snprintf(j->msg, sizeof j->msg, "thread %d (%s) round %d vt %d: %zu of %zu outputs differ, first C[%zu][%zu] = %d, expected %d",
                 j->id, j->cfgname, round, vt, bad, nc, first / (size_t)s.n, first % (size_t)s.n, r.got[first],
                 r.ref[first]);
        rc = OVTA_EINTERNAL;
      } else {
        j->runs_ok++;
      }
    }
    mm_free(&r);
  }
  if (ovta_rt_thread_get() != rt) j->tls_ok = false;
  if (rt) ovta_rt_destroy(rt);
  if (ovta_rt_thread_get() != NULL) j->tls_ok = false; /* destroying it cleared it for this thread */
  if (dev) ovta_dev_close(dev);
  return NULL;
}

static void test_matmul_threads(void **state) {
  (void)state;
  static const char *const cfgs[NTHREADS] = {"default", "small", "batch2", "small"};
  job jobs[NTHREADS];
  pthread_t th[NTHREADS];
  pthread_barrier_t bar;
  assert_int_equal(pthread_barrier_init(&bar, NULL, NTHREADS), 0);
  for (int i = 0; i < NTHREADS; i++) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].id = i;
    jobs[i].cfgname = cfgs[i];
    jobs[i].bar = &bar;
    assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
  for (int i = 0; i < NTHREADS; i++) {
    if (jobs[i].msg[0]) fail_msg("%s", jobs[i].msg);
    assert_int_equal(jobs[i].runs_ok, ROUNDS);
    assert_true(jobs[i].tls_ok);
    /* the reference is not degenerate: some outputs are clamped, some are in between */
    assert_true(jobs[i].mid > jobs[i].nc * ROUNDS / 8);
  }
}

/* ---------------------------------------------------------------- whole models */

#define MTHREADS 3
#define MIMG 3

typedef struct mjob {
  int id;
  ovta_graph *g;           /* this thread's copy of the int8 graph */
  ovta_tensor **x;         /* MIMG inputs (shared, read only) */
  ovta_tensor **ref;       /* MIMG reference outputs (shared, read only) */
  pthread_barrier_t *bar;  /* start together */
  int ok;                  /* images whose logits matched */
  char msg[1024];          /* first failure */
} mjob;

static void *model_worker(void *arg) {
  mjob *j = arg;
  ovta_error err = {0};
  ovta_config cfg;
  ovta_exec *e = NULL;
  pthread_barrier_wait(j->bar);
  int rc = ovta_config_load(j->id % 2 ? "small" : "default", &cfg, &err);
  if (!rc) {
    ovta_exec_opts o;
    ovta_exec_opts_init(&o);
    o.accel = true, o.cfg = &cfg, o.backend = "fsim";
    rc = ovta_exec_build(j->g, &o, &e, &err);
  }
  if (!rc && ovta_exec_accel_nodes(e) < 3) rc = OVTA_FAIL(&err, OVTA_EINTERNAL, "only %d accelerator nodes", ovta_exec_accel_nodes(e));
  for (int i = 0; !rc && i < MIMG; i++) {
    ovta_tensor *y = NULL;
    rc = ovta_exec_set_input(e, ovta_exec_input_name(e, 0), j->x[i], &err);
    if (!rc) rc = ovta_exec_run(e, &err);
    if (!rc) rc = ovta_exec_get_output(e, 0, &y, &err);
    if (!rc && (y->nbytes != j->ref[i]->nbytes || memcmp(y->data, j->ref[i]->data, y->nbytes)))
      rc = OVTA_FAIL(&err, OVTA_EINTERNAL, "image %d: the logits differ from the CPU path's", i);
    if (!rc) j->ok++;
    ovta_tensor_free(y);
  }
  if (rc) snprintf(j->msg, sizeof j->msg, "model thread %d: %s", j->id, err.msg);
  ovta_exec_free(e);
  return NULL;
}

static void test_model_threads(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_load(FM "fmnist_cnn.onnx", &g, &err), err);
  ovta_tensor *in = g->inputs[0];
  in->dtype = OVTA_DT_F32, in->rank = 4;
  in->shape[0] = 1, in->shape[1] = 1, in->shape[2] = 28, in->shape[3] = 28;
  ovta_tensor *cal, *imgs;
  OVTA_ASSERT_OK(ovta_npy_read(FM "calib_images.npy", "calib", &cal, &err), err);
  OVTA_ASSERT_OK(ovta_npy_read(FM "test_images.npy", "imgs", &imgs, &err), err);
  ovta_calib_opts co = {.samples = cal, .count = 8, .passes = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify"};
  OVTA_ASSERT_OK(ovta_calibrate_quantize(g, &co, NULL, &err), err);
  /* the reference: the int8 graph on the CPU path */
  ovta_exec *cpu;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &cpu, &err), err);
  ovta_tensor *x[MIMG], *ref[MIMG];
  for (int i = 0; i < MIMG; i++) {
    x[i] = image(imgs, i, ovta_exec_input_name(cpu, 0));
    assert_non_null(x[i]);
    OVTA_ASSERT_OK(ovta_exec_set_input(cpu, ovta_exec_input_name(cpu, 0), x[i], &err), err);
    OVTA_ASSERT_OK(ovta_exec_run(cpu, &err), err);
    OVTA_ASSERT_OK(ovta_exec_get_output(cpu, 0, &ref[i], &err), err);
  }
  assert_true(memcmp(ref[0]->data, ref[1]->data, ref[0]->nbytes) != 0); /* real, distinct logits */
  mjob jobs[MTHREADS];
  pthread_t th[MTHREADS];
  pthread_barrier_t bar;
  assert_int_equal(pthread_barrier_init(&bar, NULL, MTHREADS), 0);
  for (int i = 0; i < MTHREADS; i++) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].id = i, jobs[i].x = x, jobs[i].ref = ref, jobs[i].bar = &bar;
    jobs[i].g = ovta_graph_clone(g);
    assert_non_null(jobs[i].g);
  }
  for (int i = 0; i < MTHREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, model_worker, &jobs[i]), 0);
  for (int i = 0; i < MTHREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
  for (int i = 0; i < MTHREADS; i++) {
    ovta_graph_free(jobs[i].g);
    if (jobs[i].msg[0]) fail_msg("%s", jobs[i].msg);
    assert_int_equal(jobs[i].ok, MIMG);
  }
  for (int i = 0; i < MIMG; i++) ovta_tensor_free(x[i]), ovta_tensor_free(ref[i]);
  ovta_tensor_free(cal);
  ovta_tensor_free(imgs);
  ovta_exec_free(cpu);
  ovta_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_threads),
      cmocka_unit_test(test_model_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
