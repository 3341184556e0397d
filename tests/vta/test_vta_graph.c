/* Whole models with their accelerator regions on a device (ovta_exec with opts.accel,
 * compiler/accel/README.md "Graph executor").
 *
 * The shipped Fashion-MNIST CNN (models/fmnist) is quantized with its calibration images, then
 * compiled twice from the same int8 graph: entirely on the CPU path (the independent reference
 * for the int8 arithmetic: plain-layout ovta.QConv / ovta.QDense lowered by cpu/lower.c) and
 * with the accelerator (pack, partition, vta kernels with LLVM host code, DMA buffers). Ten test
 * images on fsim on every config, two on tsim on default: the logits must be bit-exact, and
 * the accelerator nodes must really have run on the device (device micro-op counters). Also: the
 * saved plan (plan.json, params.bin, kernels.o with the host code) loads and runs the same, and
 * the report names where each node runs. */
#include "ovta_test_model.h"
#include "ovta_driver.h"
#include "accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NCAL FM_NCAL

static const char int8_pipeline[] = FM_INT8_PIPELINE;

/* every accelerator node ran on the device: its GEMM micro-ops were executed */
static int check_stats(ovta_exec *e) {
  ovta_error err = {0};
  int acc = 0;
  for (int i = 0; i < ovta_exec_num_steps(e); i++) {
    ovta_exec_node_stats st;
    OVTA_ASSERT_OK(ovta_exec_node_stats_get(e, i, &st, &err), err);
    if (!st.accel) continue;
    acc++;
    assert_true(st.runs > 0);
    assert_int_equal(st.dev_runs, 1);
    assert_true(st.gemm_uops > 0);
    assert_true(st.dev_insns > 0 && st.insns >= st.dev_insns);
    assert_true(st.detail[0]);
  }
  return acc;
}

static void model_on(const char *backend, const char *cfgname, int nimg) {
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load(cfgname, &cfg, &err), err);
  ovta_exec *cpu, *acc;
  ovta_graph *g = fmnist_int8_execs(&cfg, backend, &cpu, &acc);
  /* all three convs, the dense layer, both max pools (int8 ovta.QMaxPool) and the global
   * average pool (int8 ovta.QGlobalAvgPool) on the accelerator, the first conv channel-padded
   * 1 -> BLOCK_IN */
  const char *rep = ovta_exec_report(acc);
  int nq = 0, npool = 0, ngap = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const char *op = g->nodes[i]->op;
    nq += !strcmp(op, "ovta.QConv") || !strcmp(op, "ovta.QDense") || !strcmp(op, "ovta.QMaxPool") ||
          !strcmp(op, "ovta.QGlobalAvgPool");
    npool += !strcmp(op, "ovta.QMaxPool") || !strcmp(op, "MaxPool");
    ngap += !strcmp(op, "ovta.QGlobalAvgPool");
  }
  assert_int_equal(npool, 2);
  assert_int_equal(ngap, 1);
  assert_int_equal(nq, 7);
  assert_int_equal(ovta_exec_accel_nodes(acc), nq);
  assert_non_null(strstr(rep, "op ovta.QMaxPool: accel:"));
  assert_non_null(strstr(rep, "op ovta.QGlobalAvgPool: accel:"));
  /* int8 flows conv -> pool -> conv -> pool -> conv -> global average pool -> dense on the device:
   * no Pack/Unpack and no Quantize/Dequantize steps between them (the Flatten of the packed
   * [1, 64, 1, 1] is the dense's packed input as it is: pack's flatten_alias), so 11 steps in all:
   * Quantize, Pack, the 7 accelerator nodes, Unpack, Dequantize (16 with the float GAP on the CPU
   * and an Unpack, Flatten, Pack before the dense; 24 before the ALU ops) */
  assert_int_equal(ovta_exec_num_steps(acc), 11);
  assert_null(strstr(rep, "op Flatten:"));
  assert_non_null(strstr(rep, ": accel: tile"));
  assert_non_null(strstr(rep, "summary:"));
  ovta_tensor *imgs;
  OVTA_ASSERT_OK(ovta_npy_read(FM "test_images.npy", "imgs", &imgs, &err), err);
  int differ_from_zero = 0;
  for (int i = 0; i < nimg; i++) {
    ovta_tensor *x = image(imgs, i, ovta_exec_input_name(cpu, 0));
    ovta_tensor *yc = ovta_test_run1(cpu, x), *ya = ovta_test_run1(acc, x);
    OVTA_ASSERT_SAME_F32(yc, ya, "%s/%s image %d, the accelerator's logits against the cpu's", backend, cfgname, i);
    for (size_t k = 0; k < yc->nbytes / 4; k++) differ_from_zero += ((float *)yc->data)[k] != 0;
    ovta_tensor_free(x), ovta_tensor_free(yc), ovta_tensor_free(ya);
  }
  assert_true(differ_from_zero > nimg * 5); /* real logits, not an all-zero output */
  assert_int_equal(check_stats(acc), nq);
  ovta_tensor_free(imgs);
  ovta_exec_free(acc);
  ovta_exec_free(cpu);
  ovta_graph_free(g);
}

static void test_fmnist_fsim_default(void **st) { (void)st, model_on("fsim", "default", 10); }
static void test_fmnist_fsim_small(void **st) { (void)st, model_on("fsim", "small", 10); }
static void test_fmnist_fsim_batch2(void **st) { (void)st, model_on("fsim", "batch2", 10); }
static void test_fmnist_tsim(void **st) {
  (void)st;
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (!have) skip();
  model_on("tsim", "default", 2);
}

/* cos(a, b) of two float tensors of one size. */
static double cosine(const ovta_tensor *a, const ovta_tensor *b) {
  assert_int_equal(a->nbytes, b->nbytes);
  double dot = 0, na = 0, nb = 0;
  for (size_t k = 0; k < a->nbytes / 4; k++) {
    double x = ((float *)a->data)[k], y = ((float *)b->data)[k];
    dot += x * y, na += x * x, nb += y * y;
  }
  return dot / sqrt(na * nb);
}

/* A model of tests/vta/data/ (NAME.onnx, NAME_calib.npy, NAME_x.npy: one input, NAME_y.npy:
 * the fp32 reference), int8-calibrated for the default config. */
#define PROJ OVTA_SRC_DIR "/tests/vta/data/"
typedef struct data_model {
  ovta_config cfg;           /* default */
  ovta_graph *g;             /* the int8 graph */
  ovta_tensor *cal, *x, *ref; /* calibration samples, the input, its fp32 reference output */
} data_model;

/* Load tests/vta/data/FILE.onnx with the data of model name, edit the float graph (tweak, may be
 * NULL), quantize it with the calibration samples. */
static void data_model_load_as(data_model *m, const char *file, const char *name, void (*tweak)(ovta_graph *)) {
  ovta_error err = {0};
  char path[512];
  OVTA_ASSERT_OK(ovta_config_load("default", &m->cfg, &err), err);
  snprintf(path, sizeof path, PROJ "%s.onnx", file);
  OVTA_ASSERT_OK(ovta_graph_load(path, &m->g, &err), err);
  if (tweak) tweak(m->g);
  snprintf(path, sizeof path, PROJ "%s_calib.npy", name);
  OVTA_ASSERT_OK(ovta_npy_read(path, "calib", &m->cal, &err), err);
  snprintf(path, sizeof path, PROJ "%s_x.npy", name);
  OVTA_ASSERT_OK(ovta_npy_read(path, "x", &m->x, &err), err);
  snprintf(path, sizeof path, PROJ "%s_y.npy", name);
  OVTA_ASSERT_OK(ovta_npy_read(path, "y", &m->ref, &err), err);
  ovta_calib_opts co = {.samples = m->cal, .passes = int8_pipeline, .cfg = &m->cfg};
  OVTA_ASSERT_OK(ovta_calibrate_quantize(m->g, &co, NULL, &err), err);
}

static void data_model_load(data_model *m, const char *name) { data_model_load_as(m, name, name, NULL); }

/* m's graph on the CPU int8 path (*cpu) and with the accelerator on fsim (*acc). */
static void data_model_build(data_model *m, ovta_exec **cpu, ovta_exec **acc) {
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_exec_build(m->g, NULL, cpu, &err), err);
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.accel = true, o.cfg = &m->cfg, o.backend = "fsim";
  OVTA_ASSERT_OK(ovta_exec_build(m->g, &o, acc, &err), err);
}

static void data_model_free(data_model *m) {
  ovta_tensor_free(m->cal), ovta_tensor_free(m->x), ovta_tensor_free(m->ref);
  ovta_graph_free(m->g);
}

/* Transformer-style projections: MatMul of a [1, 8, 32] sequence by constant matrices
 * (tests/vta/data/proj.onnx, gen_proj_model.py) become accelerator dense layers on the 8 rows
 * (fuse: flatten_dense), back to back without a Reshape pair between them; the logits equal the
 * CPU int8 path's bit for bit (fsim), and are within int8 error of numpy's fp32 output. */
static void test_projections(void **st) {
  (void)st;
  data_model m;
  data_model_load(&m, "proj");
  int ndense = 0, nreshape = 0;
  for (int i = 0; i < m.g->n_nodes; i++)
    ndense += !strcmp(m.g->nodes[i]->op, "ovta.QDense"), nreshape += !strcmp(m.g->nodes[i]->op, "Reshape");
  assert_int_equal(ndense, 2);
  assert_int_equal(nreshape, 2); /* [1,8,32] -> [8,32] before the first, [8,16] -> [1,8,16] after the last */
  ovta_exec *cpu, *acc;
  data_model_build(&m, &cpu, &acc);
  assert_int_equal(ovta_exec_accel_nodes(acc), 2);
  ovta_tensor *yc = ovta_test_run1(cpu, m.x), *ya = ovta_test_run1(acc, m.x);
  OVTA_ASSERT_SAME_F32(yc, ya, "proj.onnx on fsim against the cpu int8 path");
  assert_true(cosine(ya, m.ref) > 0.99); /* int8 against numpy's fp32 */
  assert_int_equal(check_stats(acc), 2);
  ovta_tensor_free(yc), ovta_tensor_free(ya);
  ovta_exec_free(acc), ovta_exec_free(cpu);
  data_model_free(&m);
}

/* Transposed convolutions (tests/vta/data/convt.onnx from torch, gen_convt_model.py): the convt
 * pass's rewrite (zero insertion + Conv with the flipped kernel) computes torch's fp32 output on
 * the CPU path (max error 1e-4 of the largest value); int8 with the accelerator, the three
 * ungrouped ones run there as convolutions (the grouped one as the accelerator's grouped conv or
 * the CPU's), fsim equals the CPU int8 path bit for bit, and cosine against torch > 0.99. */
static void test_convtranspose(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  ovta_graph *g, *gf;
  ovta_tensor *cal, *x, *ref;
  OVTA_ASSERT_OK(ovta_graph_load(PROJ "convt.onnx", &g, &err), err);
  OVTA_ASSERT_OK(ovta_graph_load(PROJ "convt.onnx", &gf, &err), err);
  OVTA_ASSERT_OK(ovta_npy_read(PROJ "convt_calib.npy", "calib", &cal, &err), err);
  OVTA_ASSERT_OK(ovta_npy_read(PROJ "convt_x.npy", "x", &x, &err), err);
  OVTA_ASSERT_OK(ovta_npy_read(PROJ "convt_y.npy", "y", &ref, &err), err);
  ovta_compile_opts po = {.passes = "infer,convt,infer"};
  OVTA_ASSERT_OK(ovta_compile_pipeline(gf, &po, &err), err);
  int nct = 0;
  for (int i = 0; i < gf->n_nodes; i++) nct += !strcmp(gf->nodes[i]->op, "ConvTranspose");
  assert_int_equal(nct, 0);
  ovta_exec *fl;
  OVTA_ASSERT_OK(ovta_exec_build(gf, NULL, &fl, &err), err);
  ovta_tensor *yf = ovta_test_run1(fl, x);
  float big = 0, worst = 0;
  for (size_t k = 0; k < ref->nbytes / 4; k++) big = fmaxf(big, fabsf(((float *)ref->data)[k]));
  for (size_t k = 0; k < ref->nbytes / 4; k++) worst = fmaxf(worst, fabsf(((float *)ref->data)[k] - ((float *)yf->data)[k]));
  assert_true(worst <= 1e-4f * big);
  ovta_calib_opts co = {.samples = cal, .cfg = &cfg, .passes = "infer,fold,dce,convt,fold-bn,fuse,infer,fold,dce,quantize,verify"};
  OVTA_ASSERT_OK(ovta_calibrate_quantize(g, &co, NULL, &err), err);
  ovta_exec *cpu, *acc;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &cpu, &err), err);
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.accel = true, o.cfg = &cfg, o.backend = "fsim";
  OVTA_ASSERT_OK(ovta_exec_build(g, &o, &acc, &err), err);
  assert_true(ovta_exec_accel_nodes(acc) >= 4); /* the Conv and the three ungrouped ConvTransposes */
  ovta_tensor *yc = ovta_test_run1(cpu, x), *ya = ovta_test_run1(acc, x);
  OVTA_ASSERT_SAME_F32(yc, ya, "convt.onnx on fsim against the cpu int8 path");
  assert_true(cosine(ya, ref) > 0.99);
  ovta_tensor_free(yf), ovta_tensor_free(yc), ovta_tensor_free(ya);
  ovta_tensor_free(x), ovta_tensor_free(ref), ovta_tensor_free(cal);
  ovta_exec_free(fl), ovta_exec_free(acc), ovta_exec_free(cpu);
  ovta_graph_free(g), ovta_graph_free(gf);
}

/* Concat between accelerator layers (tests/vta/data/concat.onnx, gen_concat_model.py): the
 * channel Concat of two convs and a max pool of one of them is int8 at one exponent, and on the
 * packed layout: a ceil-mode MaxPool and a conv take it directly. The only layout / float
 * conversions are at the graph's input and output; the output equals the CPU int8 path's bit for
 * bit (fsim) and is within int8 error of torch's fp32 output. */
static void test_concat(void **st) {
  (void)st;
  data_model m;
  data_model_load(&m, "concat");
  ovta_graph *g = m.g;
  int nconcat = 0, nquant = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    if (strcmp(n->op, "Concat")) continue;
    nconcat++;
    assert_int_equal(n->outputs[0]->dtype, OVTA_DT_I8);
    for (int k = 0; k < n->n_inputs; k++) /* one exponent: a copy, no requantization */
      assert_int_equal(n->inputs[k]->quant.exp, n->outputs[0]->quant.exp);
  }
  for (int i = 0; i < g->n_nodes; i++) nquant += !strcmp(g->nodes[i]->op, "QuantizeLinear");
  assert_int_equal(nconcat, 1);
  assert_int_equal(nquant, 1);
  ovta_exec *cpu, *acc;
  data_model_build(&m, &cpu, &acc);
  assert_int_equal(ovta_exec_accel_nodes(acc), 5); /* 3 QConv, 2 QMaxPool */
  ovta_error err = {0};
  int npack = 0, nunpack = 0, nq = 0, ndq = 0, ncat = 0;
  for (int i = 0; i < ovta_exec_num_steps(acc); i++) {
    ovta_exec_node_stats ns;
    OVTA_ASSERT_OK(ovta_exec_node_stats_get(acc, i, &ns, &err), err);
    npack += !strcmp(ns.op, "ovta.Pack"), nunpack += !strcmp(ns.op, "ovta.Unpack");
    nq += !strcmp(ns.op, "QuantizeLinear"), ndq += !strcmp(ns.op, "DequantizeLinear"), ncat += !strcmp(ns.op, "Concat");
  }
  /* only at the input and the output */
  assert_int_equal(npack, 1), assert_int_equal(nunpack, 1), assert_int_equal(nq, 1), assert_int_equal(ndq, 1);
  assert_int_equal(ncat, 1);
  assert_int_equal(ovta_exec_num_steps(acc), 10);
  ovta_tensor *yc = ovta_test_run1(cpu, m.x), *ya = ovta_test_run1(acc, m.x);
  OVTA_ASSERT_SAME_F32(yc, ya, "concat.onnx on fsim against the cpu int8 path");
  print_message("concat.onnx: cosine int8 (fsim) vs torch fp32 %.5f\n", cosine(ya, m.ref));
  assert_true(cosine(ya, m.ref) > 0.99); /* int8 against torch's fp32 */
  assert_int_equal(check_stats(acc), 5);
  ovta_tensor_free(yc), ovta_tensor_free(ya);
  ovta_exec_free(acc), ovta_exec_free(cpu);
  data_model_free(&m);
}

/* The Resize node of g. */
static ovta_node *resize_node(ovta_graph *g) {
  for (int i = 0; i < g->n_nodes; i++)
    if (!strcmp(g->nodes[i]->op, "Resize")) return g->nodes[i];
  fail_msg("no Resize in %s", g->name);
  return NULL;
}

/* upsample.onnx's model on the CPU int8 path, fsim (and tsim when built), the int8 outputs
 * compared bit for bit; the accelerator nodes and steps counted; the report line of the Resize
 * holding want. Returns the fsim output. */
static ovta_tensor *upsample_run(data_model *m, int accel_nodes, int steps, const char *want) {
  ovta_exec *cpu, *acc;
  data_model_build(m, &cpu, &acc);
  const char *rep = ovta_exec_report(acc);
  if (!strstr(rep, want)) fail_msg("report without '%s':\n%s", want, rep);
  assert_int_equal(ovta_exec_accel_nodes(acc), accel_nodes);
  assert_int_equal(ovta_exec_num_steps(acc), steps);
  ovta_tensor *yc = ovta_test_run1(cpu, m->x), *ya = ovta_test_run1(acc, m->x);
  OVTA_ASSERT_SAME_F32(yc, ya, "upsample.onnx on fsim against the cpu int8 path");
  assert_int_equal(check_stats(acc), accel_nodes);
  bool have = false;
  for (const char *const *b = ovta_backend_names(); *b; b++) have |= !strcmp(*b, "tsim");
  if (have) {
    ovta_error err = {0};
    ovta_exec_opts o;
    ovta_exec_opts_init(&o);
    o.accel = true, o.cfg = &m->cfg, o.backend = "tsim";
    ovta_exec *ts;
    OVTA_ASSERT_OK(ovta_exec_build(m->g, &o, &ts, &err), err);
    ovta_tensor *yt = ovta_test_run1(ts, m->x);
    OVTA_ASSERT_SAME_F32(yc, yt, "upsample.onnx on tsim against the cpu int8 path");
    ovta_tensor_free(yt);
    ovta_exec_free(ts);
  }
  ovta_tensor_free(yc);
  ovta_exec_free(acc), ovta_exec_free(cpu);
  return ya;
}

static void resize_linear(ovta_graph *g) {
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_node_set_s(resize_node(g), "mode", "linear", &err), err);
}
static void resize_ceil(ovta_graph *g) {
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_node_set_s(resize_node(g), "nearest_mode", "ceil", &err), err);
}
static void resize_half_pixel(ovta_graph *g) {
  ovta_error err = {0};
  ovta_node *n = resize_node(g);
  OVTA_ASSERT_OK(ovta_node_set_s(n, "coordinate_transformation_mode", "half_pixel", &err), err);
  OVTA_ASSERT_OK(ovta_node_set_s(n, "nearest_mode", "round_prefer_floor", &err), err);
}
/* scales [1, 1, 1.5, 1.5]: 14 -> 21 (the output shapes follow at inference) */
static void resize_scale15(ovta_graph *g) {
  ovta_error err = {0};
  ovta_node *n = resize_node(g);
  ovta_tensor *sc = ovta_node_in(n, 2);
  assert_non_null(sc);
  float v[4] = {1, 1, 1.5f, 1.5f};
  assert_int_equal(sc->dtype, OVTA_DT_F32);
  OVTA_ASSERT_OK(ovta_tensor_set_data(sc, v, sizeof v, &err), err);
}

/* A U-Net / FPN decoder fragment, conv -> nearest 2x Resize -> conv (tests/vta/data/upsample.onnx,
 * gen_upsample_model.py): fp32 on the CPU path is torch's output; the Resize is int8 at its input's exponent and runs on the accelerator
 * between the two convs on the packed layout (VTA_UPSAMPLE), so the only layout / float
 * conversions are at the graph's input and output; int8 outputs equal on the CPU path, fsim and
 * tsim; within int8 error of torch's fp32 output. The opset-9 export (Upsample) is the same. A
 * half_pixel / round_prefer_floor Resize (the same pixels) is taken too; linear mode, nearest_mode
 * ceil and the non-integer scale 1.5 stay on the CPU with their reasons in the report, the results
 * still bit-exact. */
static void test_upsample(void **st) {
  (void)st;
  data_model m;
  data_model_load(&m, "upsample");
  ovta_error err = {0};
  for (int v = 0; v < 2; v++) { /* fp32 on the CPU path: torch's output (max error 1e-4 of the largest value) */
    ovta_graph *gf;
    ovta_exec *fl;
    OVTA_ASSERT_OK(ovta_graph_load(v ? PROJ "upsample9.onnx" : PROJ "upsample.onnx", &gf, &err), err);
    OVTA_ASSERT_OK(ovta_exec_build(gf, NULL, &fl, &err), err);
    ovta_tensor *yf = ovta_test_run1(fl, m.x);
    float big = 0, worst = 0;
    for (size_t k = 0; k < m.ref->nbytes / 4; k++) big = fmaxf(big, fabsf(((float *)m.ref->data)[k]));
    for (size_t k = 0; k < m.ref->nbytes / 4; k++)
      worst = fmaxf(worst, fabsf(((float *)m.ref->data)[k] - ((float *)yf->data)[k]));
    assert_true(worst <= 1e-4f * big);
    ovta_tensor_free(yf), ovta_exec_free(fl), ovta_graph_free(gf);
  }
  const ovta_node *r = resize_node(m.g);
  assert_int_equal(r->outputs[0]->dtype, OVTA_DT_I8);
  assert_int_equal(r->inputs[0]->quant.exp, r->outputs[0]->quant.exp); /* a copy: no requantization */
  /* Quantize, Pack, conv, Resize, conv, Unpack, Dequantize */
  ovta_tensor *ya = upsample_run(&m, 3, 7, "op Resize: accel: tile");
  print_message("upsample.onnx: cosine int8 (fsim) vs torch fp32 %.5f\n", cosine(ya, m.ref));
  assert_true(cosine(ya, m.ref) > 0.99);
  data_model m9;
  data_model_load_as(&m9, "upsample9", "upsample", NULL);
  ovta_tensor *y9 = upsample_run(&m9, 3, 7, "op Resize: accel: tile");
  OVTA_ASSERT_SAME_F32(ya, y9, "the opset-9 Upsample against the opset-13 Resize");
  ovta_tensor_free(y9), data_model_free(&m9);
  data_model_load_as(&m9, "upsample", "upsample", resize_half_pixel);
  y9 = upsample_run(&m9, 3, 7, "op Resize: accel: tile");
  OVTA_ASSERT_SAME_F32(ya, y9, "half_pixel / round_prefer_floor against asymmetric / floor");
  ovta_tensor_free(y9), data_model_free(&m9);
  /* refused: the Resize on the CPU between Unpack and Pack (linear: also Dequantize, Quantize) */
  static const struct {
    void (*tweak)(ovta_graph *);
    int steps;
    const char *why;
  } REF[] = {{resize_linear, 11, "op Resize: cpu: stays float: not a nearest upsampling by integer factors on the "
                                 "accelerator: mode linear interpolates"},
             {resize_ceil, 9, "op Resize: cpu: int8 Resize on the CPU: not a nearest upsampling by integer factors "
                              "on the accelerator: coordinate_transformation_mode asymmetric with nearest_mode ceil"},
             {resize_scale15, 9, "op Resize: cpu: int8 Resize on the CPU: not a nearest upsampling by integer "
                                 "factors on the accelerator: scale 1.5 on dim 2 is not an integer factor"}};
  for (size_t i = 0; i < sizeof REF / sizeof REF[0]; i++) {
    data_model_load_as(&m9, "upsample", "upsample", REF[i].tweak);
    ovta_tensor_free(upsample_run(&m9, 2, REF[i].steps, REF[i].why));
    data_model_free(&m9);
  }
  ovta_tensor_free(ya);
  data_model_free(&m);
}

/* Save / load: the folder holds the host code in kernels.o (runtime calls undefined there) and
 * runs the same after loading; a CPU-only load is refused with a clear error; attach twice too. */
static void test_save_load(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  ovta_graph *g = fmnist_int8(&cfg);
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  o.accel = true, o.cfg = &cfg;
  ovta_exec *a, *b;
  OVTA_ASSERT_OK(ovta_exec_build(g, &o, &a, &err), err);
  /* no device yet */
  ovta_tensor *imgs;
  OVTA_ASSERT_OK(ovta_npy_read(FM "test_images.npy", "imgs", &imgs, &err), err);
  ovta_tensor *x = image(imgs, 3, ovta_exec_input_name(a, 0));
  OVTA_ASSERT_OK(ovta_exec_set_input(a, ovta_exec_input_name(a, 0), x, &err), err);
  assert_int_equal(ovta_exec_run(a, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "attach"));
  OVTA_ASSERT_OK(ovta_exec_attach(a, "fsim", NULL, &err), err);
  assert_int_equal(ovta_exec_attach(a, "fsim", NULL, &err), OVTA_EINVAL);
  char dir[64];
  ovta_test_tmpdir(dir, sizeof dir, "vta-graph");
  OVTA_ASSERT_OK(ovta_exec_save(a, dir, &err), err);
  OVTA_ASSERT_OK(ovta_exec_load(dir, &b, &err), err);
  assert_int_equal(ovta_exec_accel_nodes(b), ovta_exec_accel_nodes(a));
  assert_string_equal(ovta_exec_report(b), ovta_exec_report(a));
  OVTA_ASSERT_OK(ovta_exec_attach(b, "fsim", NULL, &err), err);
  ovta_tensor *ya = ovta_test_run1(a, x), *yb = ovta_test_run1(b, x);
  assert_memory_equal(ya->data, yb->data, ya->nbytes);
  ovta_tensor_free(ya), ovta_tensor_free(yb);
  /* a CPU plan cannot attach */
  ovta_exec *c;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &c, &err), err);
  assert_int_equal(ovta_exec_attach(c, "fsim", NULL, &err), OVTA_EINVAL);
  ovta_exec_free(c);
  ovta_test_rm_rf(dir);
  ovta_tensor_free(x), ovta_tensor_free(imgs);
  ovta_exec_free(a), ovta_exec_free(b);
  ovta_graph_free(g);
}

/* The command line: `ovta compile --target accel --calib --report`, `ovta run --backend fsim`
 * (logits equal to the library's CPU path on the same int8 graph), `--backend cpu` refused. */
static void test_cli(void **st) {
  (void)st;
  ovta_error err = {0};
  ovta_config cfg;
  OVTA_ASSERT_OK(ovta_config_load("default", &cfg, &err), err);
  char dir[64], cmd[2048], path[600];
  ovta_test_tmpdir(dir, sizeof dir, "vta-cli");
  ovta_tensor *imgs;
  OVTA_ASSERT_OK(ovta_npy_read(FM "test_images.npy", "imgs", &imgs, &err), err);
  ovta_tensor *x = image(imgs, 7, "image");
  snprintf(path, sizeof path, "%s/x.npy", dir);
  OVTA_ASSERT_OK(ovta_npy_write(path, x, &err), err);
  snprintf(cmd, sizeof cmd,
           "%s/build/ovta compile %s --target accel --calib %s --calib-count %d --config default --report -o %s/m.ovta "
           "> %s/report.txt 2>&1",
           OVTA_SRC_DIR, FM "fmnist_cnn.onnx", FM "calib_images.npy", NCAL, dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/report.txt", dir);
  char *rep = ovta_test_read_file(path, NULL);
  assert_non_null(strstr(rep, "op ovta.QConv: accel: tile"));
  assert_non_null(strstr(rep, "op ovta.QDense: accel: tile"));
  assert_non_null(strstr(rep, "op ovta.QMaxPool: accel: tile"));
  assert_non_null(strstr(rep, "op ovta.QGlobalAvgPool: accel: tile"));
  assert_non_null(strstr(rep, "summary: 7 node(s) on the accelerator"));
  free(rep);
  snprintf(cmd, sizeof cmd, "%s/build/ovta run %s/m.ovta --backend fsim --input image=%s/x.npy --output-dir %s/out --stats > %s/run.txt",
           OVTA_SRC_DIR, dir, dir, dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/build/ovta run %s/m.ovta --backend cpu --input image=%s/x.npy --output-dir %s/out2 2>/dev/null",
           OVTA_SRC_DIR, dir, dir, dir);
  assert_int_not_equal(system(cmd), 0);
  /* the reference: the same int8 graph (same calibration) on the CPU path, in the library */
  ovta_graph *g = fmnist_int8(&cfg);
  ovta_exec *cpu;
  OVTA_ASSERT_OK(ovta_exec_build(g, NULL, &cpu, &err), err);
  ovta_tensor *yc = ovta_test_run1(cpu, x), *ya;
  snprintf(path, sizeof path, "%s/out/%s.npy", dir, ovta_exec_output_name(cpu, 0));
  OVTA_ASSERT_OK(ovta_npy_read(path, "y", &ya, &err), err);
  assert_int_equal(ya->nbytes, yc->nbytes);
  assert_memory_equal(ya->data, yc->data, yc->nbytes);
  ovta_tensor_free(ya), ovta_tensor_free(yc), ovta_tensor_free(x), ovta_tensor_free(imgs);
  ovta_exec_free(cpu);
  ovta_graph_free(g);
  ovta_test_rm_rf(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fmnist_fsim_default), cmocka_unit_test(test_fmnist_fsim_small),
      cmocka_unit_test(test_fmnist_fsim_batch2),  cmocka_unit_test(test_fmnist_tsim),
      cmocka_unit_test(test_save_load),           cmocka_unit_test(test_cli),
      cmocka_unit_test(test_projections),        cmocka_unit_test(test_convtranspose),
      cmocka_unit_test(test_concat),             cmocka_unit_test(test_upsample),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
