/* ONNX importer tests on ONNX's own conformance models (/usr/share/libonnx-testdata): inferred
 * output shapes and types must match the shipped output_N.pb tensors, and the reference
 * evaluator must reproduce the shipped output values. Initializer values are checked against
 * the values written into tests/compiler/data/gen_models.py. Broken files (truncated, garbage,
 * hand-encoded protobufs with huge/negative dims, missing inputs, cycles) must give an error
 * naming the file, never a crash. */
#include <math.h>
#include <stdio.h>

#include "passes.h"
#include "ovta_test.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node/"

/* Load test `name`, bind int64 inputs (shape-like) from input_N.pb, infer. Returns the graph;
 * *inputs receives every input_N.pb tensor (count in *n_in). */
static ovta_graph *load_case(const char *name, ovta_tensor **inputs, int *n_in) {
  char path[512];
  ovta_error err = {0};
  ovta_graph *g = NULL;
  snprintf(path, sizeof path, NODE_DIR "%s/model.onnx", name);
  OVTA_ASSERT_OK(ovta_onnx_load(path, &g, &err), err);
  int n = 0;
  for (;; n++) {
    snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/input_%d.pb", name, n);
    FILE *f = fopen(path, "rb");
    if (!f) break;
    fclose(f);
    OVTA_ASSERT_OK(ovta_onnx_read_tensor(path, &inputs[n], &err), err);
  }
  *n_in = n;
  /* bind the int64 inputs (Reshape shape, axes, pads) as constants; keep the others */
  char names[16][128];
  int k = 0;
  for (int i = 0; i < g->n_inputs && i < 16; i++) snprintf(names[i], sizeof names[i], "%s", g->inputs[i]->name);
  int total = g->n_inputs;
  for (int i = 0; i < total; i++) {
    if (inputs[i]->dtype == OVTA_DT_I64) OVTA_ASSERT_OK(ovta_graph_bind_input(g, names[i], inputs[i], &err), err);
    else k++;
  }
  (void)k;
  ovta_compile_opts o = {0};
  o.passes = "infer";
  OVTA_ASSERT_OK(ovta_compile_pipeline(g, &o, &err), err);
  return g;
}

typedef struct {
  const char *name;  /* conformance test */
  bool eval;         /* the reference evaluator supports it: compare values too */
  double tol;        /* absolute + relative tolerance for values */
} ccase;

static const ccase CASES[] = {
    {"test_conv_with_strides_padding", true, 1e-4},
    {"test_conv_with_strides_no_padding", true, 1e-4},
    {"test_conv_with_strides_and_asymmetric_padding", true, 1e-4},
    {"test_conv_with_autopad_same", true, 1e-4},
    {"test_batchnorm_example", true, 1e-4},
    {"test_batchnorm_epsilon", true, 1e-4},
    {"test_gemm_all_attributes", true, 1e-4},
    {"test_gemm_default_no_bias", true, 1e-4},
    {"test_gemm_transposeA", true, 1e-4},
    {"test_gemm_default_scalar_bias", true, 1e-4},
    {"test_matmul_2d", true, 1e-4},
    {"test_matmul_4d", true, 1e-4},
    {"test_maxpool_2d_ceil", true, 1e-5},
    {"test_maxpool_2d_same_upper", true, 1e-5},
    {"test_maxpool_2d_same_lower", true, 1e-5},
    {"test_maxpool_2d_dilations", true, 1e-5},
    {"test_averagepool_2d_pads", true, 1e-5},
    {"test_averagepool_2d_pads_count_include_pad", true, 1e-5},
    {"test_averagepool_2d_strides", true, 1e-5},
    {"test_globalaveragepool", true, 1e-5},
    {"test_flatten_axis2", true, 0},
    {"test_flatten_negative_axis1", true, 0},
    {"test_reshape_negative_dim", true, 0},
    {"test_reshape_zero_and_negative_dim", true, 0},
    {"test_transpose_all_permutations_3", true, 0},
    {"test_concat_3d_axis_negative_2", true, 0},
    {"test_squeeze_negative_axes", true, 0},
    {"test_unsqueeze_unsorted_axes", true, 0},
    {"test_softmax_axis_1", true, 1e-5},
    {"test_softmax_axis_0", true, 1e-5},
    {"test_clip_default_min", true, 0},
    {"test_clip_splitbounds", true, 0},
    {"test_leakyrelu", true, 1e-6},
    {"test_hardswish", true, 1e-6},
    {"test_hardsigmoid", true, 1e-6},
    {"test_relu", true, 0},
    {"test_sigmoid", true, 1e-6},
    {"test_tanh", true, 1e-6},
    {"test_identity", true, 0},
    {"test_add_bcast", true, 1e-6},
    {"test_sub_bcast", true, 1e-6},
    {"test_mul_bcast", true, 1e-6},
    {"test_div_bcast", true, 1e-5},
    {"test_constant_pad", true, 0},
    {"test_quantizelinear", true, 0},
    {"test_quantizelinear_axis", true, 0},
    {"test_dequantizelinear", true, 0},
    {"test_convinteger_with_padding", true, 0},
    {"test_matmulinteger", true, 0},
    {"test_sqrt", true, 1e-6},
    {"test_log", true, 1e-6},
    {"test_reciprocal", true, 1e-6},
    {"test_floor", true, 0},
    {"test_ceil", true, 0},
    {"test_round", true, 0},
    {"test_sign", true, 0},
    {"test_erf", true, 1e-6},
    {"test_sin", true, 1e-6},
    {"test_acosh", true, 1e-6},
    {"test_atanh", true, 1e-6},
    {"test_softplus", true, 1e-6},
    {"test_softsign", true, 1e-6},
    {"test_max_example", true, 0},
    {"test_min_int8", true, 0},
    {"test_mean_example", true, 1e-6},
    {"test_sum_two_inputs", true, 1e-6},
    {"test_pow_bcast_array", true, 1e-6},
    {"test_pow_types_int32_float32", true, 0},
    {"test_mod_mixed_sign_int32", true, 0},
    {"test_mod_mixed_sign_float64", true, 1e-12},
    {"test_cast_FLOAT_to_DOUBLE", true, 1e-7},
    {"test_cast_FLOAT16_to_FLOAT", true, 0},
    {"test_equal_bcast", true, 0},
    {"test_less", true, 0},
    {"test_greater_equal_bcast", true, 0},
    {"test_and_bcast3v1d", true, 0},
    {"test_xor4d", true, 0},
    {"test_not_3d", true, 0},
    {"test_where_example", true, 0},
    {"test_isinf_negative", true, 0},
    {"test_isnan", true, 0},
    {"test_qlinearconv", false, 0},
    {"test_qlinearmatmul_3D", false, 0},
};

static void test_conformance_shapes_values(void **state) {
  (void)state;
  int checked_values = 0;
  for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
    ovta_tensor *inputs[16] = {0};
    int n_in = 0;
    ovta_graph *g = load_case(CASES[c].name, inputs, &n_in);
    ovta_error err = {0};
    /* runtime inputs in graph order: the non-int64 input_N.pb files */
    ovta_tensor *rt[16] = {0};
    int k = 0;
    for (int i = 0; i < n_in; i++)
      if (inputs[i]->dtype != OVTA_DT_I64) rt[k++] = inputs[i];
    assert_int_equal(k, g->n_inputs);
    ovta_tensor *outs[8] = {0};
    if (CASES[c].eval) {
      int rc = ovta_graph_run(g, NULL, NULL, rt, NULL, NULL, outs, &err);
      if (rc) fail_msg("%s: %s", CASES[c].name, err.msg);
    }
    for (int o = 0; o < g->n_outputs; o++) {
      char path[512];
      snprintf(path, sizeof path, NODE_DIR "%s/test_data_set_0/output_%d.pb", CASES[c].name, o);
      ovta_tensor *want;
      OVTA_ASSERT_OK(ovta_onnx_read_tensor(path, &want, &err), err);
      const ovta_tensor *got = g->outputs[o];
      if (got->dtype != want->dtype || got->rank != want->rank)
        fail_msg("%s: output %d: %s rank %d, want %s rank %d", CASES[c].name, o, ovta_dtype_name(got->dtype), got->rank,
                 ovta_dtype_name(want->dtype), want->rank);
      for (int d = 0; d < want->rank; d++)
        if (got->shape[d] != want->shape[d])
          fail_msg("%s: output %d dim %d: %lld, want %lld", CASES[c].name, o, d, (long long)got->shape[d],
                   (long long)want->shape[d]);
      if (CASES[c].eval) {
        int64_t n = ovta_tensor_numel(want);
        for (int64_t i = 0; i < n; i++) {
          double a = ovta_tensor_get_f(outs[o], i), b = ovta_tensor_get_f(want, i);
          if (fabs(a - b) > CASES[c].tol * (1 + fabs(b)))
            fail_msg("%s: output %d element %lld: %.7g, want %.7g", CASES[c].name, o, (long long)i, a, b);
        }
        checked_values++;
        ovta_tensor_free(outs[o]);
      }
      ovta_tensor_free(want);
    }
    for (int i = 0; i < n_in; i++) ovta_tensor_free(inputs[i]);
    ovta_graph_free(g);
  }
  assert_true(checked_values >= 45);
}

/* Initializer values from typed fields and raw_data, and a Constant node (gen_models.py). */
static void test_initializer_values(void **state) {
  (void)state;
  ovta_graph *g;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_onnx_load("tests/compiler/data/initializers.onnx", &g, &err), err);
  const ovta_tensor *t = ovta_graph_tensor(g, "w_typed"), *r = ovta_graph_tensor(g, "w_raw"), *k = ovta_graph_tensor(g, "k");
  const ovta_tensor *s = ovta_graph_tensor(g, "shape");
  assert_non_null(t);
  assert_non_null(r);
  assert_non_null(k);
  assert_non_null(s);
  const float wt[6] = {1, -2, 3, -4, 5, -6}, wr[6] = {0.5f, 0.25f, -1, 2, 3, -0.125f};
  assert_int_equal(t->dtype, OVTA_DT_F32);
  assert_int_equal(t->rank, 2);
  assert_int_equal(t->shape[0], 2);
  assert_int_equal(t->shape[1], 3);
  assert_int_equal(r->shape[0], 3);
  for (int i = 0; i < 6; i++) {
    assert_true(ovta_tensor_get_f(t, i) == wt[i]);
    assert_true(ovta_tensor_get_f(r, i) == wr[i]);
  }
  assert_int_equal(s->dtype, OVTA_DT_I64);
  assert_int_equal(ovta_tensor_get_i(s, 0), 3);
  assert_int_equal(ovta_tensor_get_i(s, 1), 2);
  assert_int_equal(k->kind, OVTA_TK_CONST);
  assert_true(ovta_tensor_get_f(k, 0) == 10.0);
  assert_int_equal(g->n_nodes, 4); /* the Constant node became a constant */
  assert_int_equal(g->n_inputs, 1);
  assert_int_equal(g->inputs[0]->shape[0], -1);
  assert_string_equal(g->inputs[0]->dim_names[0], "N");
  ovta_graph_free(g);
}

/* A STRINGS attribute (RNN activations, tests/codegen/rnn/gen.py wrote the model) is imported in
 * order; the node's multiply-accumulates are (seq * batch) * (|W| + |R|): X [3, 2, 3], W [2, 4, 3],
 * R [2, 4, 4] give 6 * (24 + 32). */
static void test_strings_attr_rnn_macs(void **state) {
  (void)state;
  ovta_graph *g;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_onnx_load("tests/codegen/rnn/test_rnn_bidirectional_affine_scaledtanh/model.onnx", &g, &err), err);
  assert_int_equal(g->n_nodes, 1);
  const ovta_attr *a = ovta_node_attr(g->nodes[0], "activations");
  assert_non_null(a);
  assert_int_equal(a->type, OVTA_ATTR_STRINGS);
  assert_int_equal(a->n, 2);
  assert_string_equal(a->strs[0], "Affine");
  assert_string_equal(a->strs[1], "ScaledTanh");
  assert_int_equal(ovta_node_macs(g->nodes[0]), 6 * (24 + 32));
  ovta_graph_free(g);
}

/* ---------------------------------------------------------------- broken files */

static char *slurp(const char *path, size_t *len) {
  char *b;
  ovta_error err = {0};
  OVTA_ASSERT_OK(ovta_read_file(path, 1 << 24, &b, len, &err), err);
  return b;
}

static void test_truncated_and_garbage(void **state) {
  (void)state;
  size_t len;
  char *b = slurp(NODE_DIR "test_conv_with_strides_padding/model.onnx", &len);
  int errors = 0;
  for (size_t cut = 0; cut < len; cut++) {
    ovta_graph *g = NULL;
    ovta_error err = {0};
    int rc = ovta_onnx_load_mem(b, cut, "cut.onnx", &g, &err);
    if (rc) {
      errors++;
      assert_null(g);
      assert_non_null(strstr(err.msg, "cut.onnx"));
    }
    ovta_graph_free(g);
  }
  /* almost every prefix is broken (a prefix ending exactly between fields may parse) */
  assert_true(errors > (int)len * 9 / 10);
  /* garbage */
  unsigned x = 1;
  for (int trial = 0; trial < 200; trial++) {
    char junk[256];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)((x = x * 1103515245u + 12345u) >> 16);
    ovta_graph *g = NULL;
    ovta_error err = {0};
    if (ovta_onnx_load_mem(junk, sizeof junk, "junk.onnx", &g, &err) == OVTA_OK) ovta_graph_free(g);
    ovta_tensor *t = NULL;
    if (ovta_onnx_read_tensor_mem(junk, sizeof junk, "junk.pb", &t, &err) == OVTA_OK) ovta_tensor_free(t);
  }
  /* flipped bytes in a real model */
  for (size_t i = 0; i < len; i++) {
    char *c = malloc(len);
    memcpy(c, b, len);
    c[i] ^= 0x5a;
    ovta_graph *g = NULL;
    ovta_error err = {0};
    if (ovta_onnx_load_mem(c, len, "flip.onnx", &g, &err) == OVTA_OK) {
      ovta_compile_opts o = {0};
      o.passes = "infer";
      ovta_compile_pipeline(g, &o, &err); /* may fail, must not crash */
      ovta_graph_free(g);
    }
    free(c);
  }
  free(b);
  ovta_error err = {0};
  ovta_graph *g = NULL;
  assert_int_equal(ovta_onnx_load("/nonexistent/model.onnx", &g, &err), OVTA_EIO);
}

/* A tiny protobuf writer, to build broken messages by hand (field numbers from onnx.proto). */
typedef struct pb {
  uint8_t b[1024];
  size_t n;
} pb;
static void varint(pb *p, uint64_t v) {
  do {
    p->b[p->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
}
static void tag(pb *p, int field, int wire) { varint(p, (uint64_t)(field << 3 | wire)); }
static void bytes(pb *p, int field, const void *d, size_t n) {
  tag(p, field, 2);
  varint(p, n);
  memcpy(p->b + p->n, d, n);
  p->n += n;
}
static void str(pb *p, int field, const char *s) { bytes(p, field, s, strlen(s)); }
static void sub(pb *p, int field, const pb *s) { bytes(p, field, s->b, s->n); }
static void vfield(pb *p, int field, uint64_t v) {
  tag(p, field, 0);
  varint(p, v);
}

static void test_bad_tensor_protos(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_tensor *t = NULL;
  /* dims 2^40 x 2^40: the element count overflows; must fail before allocating */
  pb p = {0};
  vfield(&p, 1, (uint64_t)1 << 40);
  vfield(&p, 1, (uint64_t)1 << 40);
  vfield(&p, 2, 1);
  str(&p, 8, "huge");
  bytes(&p, 9, "abcd", 4);
  assert_int_equal(ovta_onnx_read_tensor_mem(p.b, p.n, "huge.pb", &t, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "huge.pb: tensor 'huge'"));
  assert_non_null(strstr(err.msg, "overflows"));
  /* a negative dim */
  pb q = {0};
  vfield(&q, 1, (uint64_t)-3);
  vfield(&q, 2, 1);
  str(&q, 8, "neg");
  assert_int_equal(ovta_onnx_read_tensor_mem(q.b, q.n, "neg.pb", &t, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "negative"));
  /* 1000 x 1000 floats declared, 4 bytes of raw data */
  pb r = {0};
  vfield(&r, 1, 1000);
  vfield(&r, 1, 1000);
  vfield(&r, 2, 1);
  str(&r, 8, "short");
  bytes(&r, 9, "abcd", 4);
  assert_int_equal(ovta_onnx_read_tensor_mem(r.b, r.n, "short.pb", &t, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "raw_data holds 4 bytes"));
  /* a good one: [2] int64 in int64_data (packed) */
  pb s = {0};
  vfield(&s, 1, 2);
  vfield(&s, 2, OVTA_DT_I64);
  pb packed = {0};
  varint(&packed, 7);
  varint(&packed, (uint64_t)-5);
  bytes(&s, 7, packed.b, packed.n);
  OVTA_ASSERT_OK(ovta_onnx_read_tensor_mem(s.b, s.n, "ok.pb", &t, &err), err);
  assert_int_equal(ovta_tensor_get_i(t, 0), 7);
  assert_int_equal(ovta_tensor_get_i(t, 1), -5);
  ovta_tensor_free(t);
}

/* A model: graph with the given nodes (each: op, name, in0, in1, out), input x [2] f32,
 * output y. */
static void model(pb *m, const char *const nodes[][5], int n_nodes) {
  pb g = {0};
  for (int i = 0; i < n_nodes; i++) {
    pb n = {0};
    for (int k = 2; k < 4; k++)
      if (nodes[i][k]) str(&n, 1, nodes[i][k]);
    str(&n, 2, nodes[i][4]);
    str(&n, 3, nodes[i][1]);
    str(&n, 4, nodes[i][0]);
    sub(&g, 1, &n);
  }
  str(&g, 2, "g");
  /* input x: ValueInfoProto{name, type{tensor_type{elem_type 1, shape{dim{dim_value 2}}}}} */
  pb dim = {0}, shape = {0}, tt = {0}, ty = {0}, vi = {0}, vo = {0};
  vfield(&dim, 1, 2);
  sub(&shape, 1, &dim);
  vfield(&tt, 1, 1);
  sub(&tt, 2, &shape);
  sub(&ty, 1, &tt);
  str(&vi, 1, "x");
  sub(&vi, 2, &ty);
  sub(&g, 11, &vi);
  str(&vo, 1, "y");
  sub(&g, 12, &vo);
  pb ops = {0};
  vfield(&ops, 2, 13);
  memset(m, 0, sizeof *m);
  vfield(m, 1, 8);
  sub(m, 7, &g);
  sub(m, 8, &ops);
}

static void test_bad_models(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g = NULL;
  pb m;
  /* the writer itself: a good model imports and infers */
  const char *const good[][5] = {{"Relu", "r", "x", NULL, "y"}};
  model(&m, good, 1);
  OVTA_ASSERT_OK(ovta_onnx_load_mem(m.b, m.n, "good.onnx", &g, &err), err);
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  assert_int_equal(g->outputs[0]->shape[0], 2);
  ovta_graph_free(g);
  /* a node reading a tensor nothing defines */
  const char *const missing[][5] = {{"Add", "add1", "x", "ghost", "y"}};
  model(&m, missing, 1);
  assert_int_equal(ovta_onnx_load_mem(m.b, m.n, "missing.onnx", &g, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "missing.onnx: node 'add1' (Add): input 1 'ghost' is not produced"));
  /* a cycle */
  const char *const cyc[][5] = {{"Relu", "a", "b", NULL, "a"}, {"Add", "b", "a", "x", "b"}, {"Identity", "c", "b", NULL, "y"}};
  model(&m, cyc, 3);
  assert_int_equal(ovta_onnx_load_mem(m.b, m.n, "cycle.onnx", &g, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "cycle.onnx: node 'a' (Relu) is on a cycle"));
  /* an unsupported operator: imported, rejected by inference naming node and operator */
  const char *const unk[][5] = {{"NotAnOperator", "e1", "x", NULL, "y"}};
  model(&m, unk, 1);
  OVTA_ASSERT_OK(ovta_onnx_load_mem(m.b, m.n, "unk.onnx", &g, &err), err);
  assert_int_equal(ovta_infer_graph(g, &err), OVTA_EUNSUPPORTED);
  assert_non_null(strstr(err.msg, "unk.onnx: node 'e1' (NotAnOperator): operator 'NotAnOperator' is not supported"));
  ovta_graph_free(g);
  /* two nodes writing one tensor */
  const char *const twice[][5] = {{"Relu", "r1", "x", NULL, "y"}, {"Relu", "r2", "x", NULL, "y"}};
  model(&m, twice, 2);
  assert_int_equal(ovta_onnx_load_mem(m.b, m.n, "twice.onnx", &g, &err), OVTA_EINVAL);
  assert_non_null(strstr(err.msg, "produced by both node 'r1' and node 'r2'"));
}

/* External data (onnx_extdata.c): a model from memory has no directory, so its external data is
 * refused; the same bytes from their file reach the range checks (the catalogue case names itself
 * as the data file, at an offset beyond its end). */
static void test_external_data_without_directory(void **state) {
  (void)state;
  const char *path = "tests/bad/cases/onnx-ext-offset.onnx";
  ovta_error err = {0};
  ovta_graph *g = NULL;
  char *buf;
  size_t len;
  OVTA_ASSERT_OK(ovta_read_file(path, 1 << 20, &buf, &len, &err), err);
  assert_int_equal(ovta_onnx_load_mem(buf, len, "mem.onnx", &g, &err), OVTA_EUNSUPPORTED);
  assert_null(g);
  assert_non_null(strstr(err.msg, "mem.onnx: initializer 'w': external data 'onnx-ext-offset.onnx': the model was "
                                  "not read from a file in a directory"));
  free(buf);
  assert_int_equal(ovta_onnx_load(path, &g, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "offset 100000 is beyond the file's"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conformance_shapes_values),
      cmocka_unit_test(test_initializer_values),
      cmocka_unit_test(test_strings_attr_rnn_macs),
      cmocka_unit_test(test_truncated_and_garbage),
      cmocka_unit_test(test_bad_tensor_protos),
      cmocka_unit_test(test_bad_models),
      cmocka_unit_test(test_external_data_without_directory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
