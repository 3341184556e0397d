/* ovta_test_model.h: fixtures of the tests that run whole models: one executor run, outputs
 * compared bit for bit, and the shipped Fashion-MNIST CNN (models/fmnist). FM and image() keep
 * the short names the tests' calibration code uses. */
#ifndef OVTA_TEST_MODEL_H
#define OVTA_TEST_MODEL_H

#include "ovta_test.h"
#include "exec.h"

/* The Fashion-MNIST model's folder: FM "fmnist_cnn.onnx", FM "test_images.npy" (uint8 N x 28 x
 * 28), FM "calib_images.npy", FM "torch_logits.npy". */
#define FM OVTA_SRC_DIR "/models/fmnist/"

/* Image i of imgs (uint8 N x 28 x 28) as the model's input named name: float 1x1x28x28 in [0, 1]
 * (caller frees). */
static inline ovta_tensor *image(const ovta_tensor *imgs, int i, const char *name) {
  int64_t shape[4] = {1, 1, 28, 28};
  ovta_tensor *t = ovta_tensor_new(name, OVTA_DT_F32, 4, shape);
  assert_non_null(t);
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int k = 0; k < 784; k++) ((float *)t->data)[k] = ((const uint8_t *)imgs->data)[i * 784 + k] / 255.0f;
  return t;
}

/* The Fashion-MNIST CNN with its one input declared float 1x1x28x28 (caller frees). */
static inline ovta_graph *fmnist_load(void) {
  ovta_error err = {0};
  ovta_graph *g;
  OVTA_ASSERT_OK(ovta_graph_load(FM "fmnist_cnn.onnx", &g, &err), err);
  assert_int_equal(g->n_inputs, 1);
  ovta_tensor *in = g->inputs[0];
  in->dtype = OVTA_DT_F32, in->rank = 4;
  in->shape[0] = 1, in->shape[1] = 1, in->shape[2] = 28, in->shape[3] = 28;
  return g;
}

/* The passes of the int8 plans of the model tests, and the calibration images they use. */
#define FM_INT8_PIPELINE "infer,fold,dce,fold-bn,fuse,infer,fold,dce,quantize,verify"
#define FM_NCAL 16

/* The model quantized to int8 for cfg with the first FM_NCAL calibration images (caller frees). */
static inline ovta_graph *fmnist_int8(const ovta_config *cfg) {
  ovta_error err = {0};
  ovta_graph *g = fmnist_load();
  ovta_tensor *cal;
  OVTA_ASSERT_OK(ovta_npy_read(FM "calib_images.npy", "calib", &cal, &err), err);
  ovta_calib_opts co = {.samples = cal, .count = FM_NCAL, .passes = FM_INT8_PIPELINE, .cfg = cfg};
  OVTA_ASSERT_OK(ovta_calibrate_quantize(g, &co, NULL, &err), err);
  ovta_tensor_free(cal);
  return g;
}

/* The int8 model for cfg built twice: *cpu on the CPU path (the reference), *acc with its
 * accelerator nodes on device `backend`. Returns the int8 graph (caller frees it and both). */
static inline ovta_graph *fmnist_int8_execs(const ovta_config *cfg, const char *backend, ovta_exec **cpu,
                                            ovta_exec **acc) {
  ovta_error err = {0};
  ovta_graph *g = fmnist_int8(cfg);
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, cpu, &err), err);
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.accel = true, o.cfg = cfg, o.backend = backend;
  OVTA_ASSERT_OK(ovta_exec_build(g, &o, acc, &err), err);
  return g;
}

/* One run of e on x as its first input: its first output (caller frees). */
static inline ovta_tensor *ovta_test_run1(ovta_exec *e, const ovta_tensor *x) {
  ovta_error err = {0};
  ovta_tensor *y;
  OVTA_ASSERT_OK(ovta_exec_set_input(e, ovta_exec_input_name(e, 0), x, &err), err);
  OVTA_ASSERT_OK(ovta_exec_run(e, &err), err);
  OVTA_ASSERT_OK(ovta_exec_get_output(e, 0, &y, &err), err);
  return y;
}

/* Assert that float32 tensor got holds exactly want's values, bit for bit; otherwise fail naming
 * the first that differs: "WHAT: element K is GOT, expected WANT", WHAT from the printf-style
 * arguments after got. */
#define OVTA_ASSERT_SAME_F32(want, got, ...) ovta_test_same_f32_((want), (got), __FILE__, __LINE__, __VA_ARGS__)
static inline void ovta_test_same_f32_(const ovta_tensor *want, const ovta_tensor *got, const char *file, int line,
                                       const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (want->nbytes != got->nbytes) {
    print_error("%s: %zu bytes, expected %zu\n", what, got->nbytes, want->nbytes);
    _fail(file, line);
  }
  const float *a = want->data, *b = got->data;
  for (size_t k = 0; k < want->nbytes / sizeof(float); k++)
    if (memcmp(&a[k], &b[k], sizeof(float))) {
      print_error("%s: element %zu is %.9g, expected %.9g\n", what, k, b[k], a[k]);
      _fail(file, line);
    }
}

#endif
