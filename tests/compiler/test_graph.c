/* Graph IR tests: the JSON form round-trips (write -> read -> write gives identical text) for
 * hand-written graphs, imported ONNX models and graphs after every pass; building and editing
 * through the API; JSON errors name the file and the place. */
#include <math.h>

#include "passes.h"
#include "ovta_test.h"

static void roundtrip(ovta_graph *g) {
  ovta_error err = {0};
  char *a = ovta_graph_to_json(g, &err);
  assert_non_null(a);
  ovta_graph *h;
  OVTA_ASSERT_OK(ovta_graph_from_json(a, "roundtrip", &h, &err), err);
  char *b = ovta_graph_to_json(h, &err);
  assert_non_null(b);
  assert_string_equal(a, b);
  /* the text dump agrees too */
  char *da = ovta_graph_dump_str(g), *db = ovta_graph_dump_str(h);
  assert_string_equal(da, db);
  free(a), free(b), free(da), free(db);
  ovta_graph_free(h);
}

static void test_roundtrip_files(void **state) {
  (void)state;
  const char *files[] = {
      "tests/filecheck/infer.json", "tests/filecheck/fuse.json", "tests/filecheck/quantize.json",
      "tests/filecheck/pack.json", "tests/compiler/data/initializers.onnx", "tests/compiler/data/softmax_opset11.onnx",
      "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx",
      "/usr/share/libonnx-testdata/data/node/test_gemm_all_attributes/model.onnx",
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    ovta_graph *g;
    ovta_error err = {0};
    OVTA_ASSERT_OK(ovta_graph_load(files[i], &g, &err), err);
    roundtrip(g);
    /* after the passes as well (quant annotations, packed layouts, targets, regions) */
    ovta_compile_opts o = {0};
    o.passes = strstr(files[i], "pack") ? "infer,pack,partition" : strstr(files[i], "quantize") ? "infer,fuse,quantize,pack,partition" : "infer,fold,dce,fuse";
    OVTA_ASSERT_OK(ovta_compile_pipeline(g, &o, &err), err);
    roundtrip(g);
    ovta_graph *c = ovta_graph_clone(g);
    assert_non_null(c);
    char *a = ovta_graph_to_json(g, &err), *b = ovta_graph_to_json(c, &err);
    assert_string_equal(a, b);
    free(a), free(b);
    ovta_graph_free(c);
    ovta_graph_free(g);
  }
}

/* Build y = Relu(x + c) by hand; attributes of every type survive the JSON form. */
static void test_build_and_attrs(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("built");
  int64_t s[2] = {2, 3};
  ovta_tensor *x = ovta_graph_add_tensor(g, "x", OVTA_DT_F32, 2, s, &err);
  x->kind = OVTA_TK_INPUT;
  g->inputs = calloc(1, sizeof *g->inputs);
  g->inputs[g->n_inputs++] = x;
  ovta_tensor *c = ovta_graph_add_tensor(g, "c", OVTA_DT_F32, 1, &s[1], &err);
  c->kind = OVTA_TK_CONST;
  const float cv[3] = {1.5f, -2, 0.25f};
  OVTA_ASSERT_OK(ovta_tensor_set_data(c, cv, sizeof cv, &err), err);
  const char *in[2] = {"x", "c"}, *mid[1] = {"t"}, *out[1] = {"y"};
  ovta_node *add = ovta_graph_add_node(g, "Add", "add", 2, in, 1, mid, &err);
  ovta_node *relu = ovta_graph_add_node(g, "Relu", NULL, 1, mid, 1, out, &err);
  assert_non_null(add);
  assert_non_null(relu);
  assert_string_equal(relu->name, "Relu_0");
  assert_null(ovta_graph_add_tensor(g, "x", OVTA_DT_F32, 0, NULL, &err));
  assert_non_null(strstr(err.msg, "tensor 'x' is defined twice"));
  g->outputs = calloc(1, sizeof *g->outputs);
  g->outputs[g->n_outputs++] = ovta_graph_tensor(g, "y");
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  assert_int_equal(ovta_graph_tensor(g, "y")->shape[1], 3);
  /* attributes of every kind (on a node no pass runs) */
  const int64_t iv[3] = {1, -2, 3};
  const float fv[2] = {0.5f, -1.25f};
  OVTA_ASSERT_OK(ovta_node_set_i(add, "i", -7, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_f(add, "f", 2.5f, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_f(add, "f1", 1.0f, &err), err); /* integral float stays float */
  OVTA_ASSERT_OK(ovta_node_set_s(add, "s", "text \"quoted\"", &err), err);
  OVTA_ASSERT_OK(ovta_node_set_ints(add, "is", iv, 3, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_floats(add, "fs", fv, 2, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_ints(add, "empty", NULL, 0, &err), err);
  const char *sv[2] = {"Sigmoid", "a \"b\""};
  OVTA_ASSERT_OK(ovta_node_set_strs(add, "ss", sv, 2, &err), err);
  ovta_tensor *t = ovta_tensor_new("tv", OVTA_DT_I32, 1, &s[0]);
  ovta_tensor_alloc(t, &err);
  ((int32_t *)t->data)[1] = 42;
  OVTA_ASSERT_OK(ovta_node_set_tensor(add, "t", t, &err), err);
  roundtrip(g);
  char *js = ovta_graph_to_json(g, &err);
  ovta_graph *h;
  OVTA_ASSERT_OK(ovta_graph_from_json(js, "h", &h, &err), err);
  free(js);
  const ovta_node *n = ovta_graph_node(h, "add");
  assert_int_equal(ovta_node_attr(n, "i")->type, OVTA_ATTR_INT);
  assert_int_equal(ovta_node_attr(n, "f1")->type, OVTA_ATTR_FLOAT);
  assert_true(ovta_node_attr_f(n, "f", 0) == 2.5f);
  assert_string_equal(ovta_node_attr_s(n, "s", ""), "text \"quoted\"");
  assert_int_equal(ovta_node_attr(n, "is")->ints[1], -2);
  assert_true(ovta_node_attr(n, "fs")->floats[1] == -1.25f);
  assert_int_equal(ovta_node_attr(n, "ss")->type, OVTA_ATTR_STRINGS);
  assert_int_equal(ovta_node_attr(n, "ss")->n, 2);
  assert_string_equal(ovta_node_attr(n, "ss")->strs[1], "a \"b\"");
  assert_int_equal(ovta_node_attr(n, "t")->t->dtype, OVTA_DT_I32);
  assert_int_equal(ovta_tensor_get_i(ovta_node_attr(n, "t")->t, 1), 42);
  assert_true(ovta_tensor_get_f(ovta_graph_tensor(h, "c"), 1) == -2);
  ovta_graph_free(h);
  ovta_graph_free(g);
}

static void test_json_errors(void **state) {
  (void)state;
  ovta_error err = {0};
  ovta_graph *g = NULL;
  assert_int_equal(ovta_graph_from_json("{\n\"nodes\": [\n{\"op\": }", "bad.json", &g, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "bad.json:3: malformed JSON"));
  assert_int_equal(ovta_graph_from_json("{\"tensors\": [{\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [2], \"data\": [1]}]}",
                                        "short.json", &g, &err),
                   OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "short.json: tensor 'w': 1 data values for 2 elements"));
  assert_int_equal(ovta_graph_from_json("{\"tensors\": [{\"name\": \"w\", \"dtype\": \"f99\"}]}", "dt.json", &g, &err), OVTA_EPARSE);
  assert_non_null(strstr(err.msg, "unknown dtype \"f99\""));
  assert_int_equal(ovta_graph_from_json("{\"tensors\": [{\"name\": \"w\", \"shape\": [4611686018427387904, 8]}],"
                                        "\"inputs\": [\"w\"]}",
                                        "big.json", &g, &err),
                   OVTA_OK);
  assert_int_equal(ovta_tensor_numel(g->tensors[0]), -1); /* overflow is reported as unknown, never wraps */
  ovta_graph_free(g);
  assert_null(NULL);
}

/* f16 elements: put_f rounds to the nearest half (ties to even, overflow to infinity,
 * subnormals), get_f reads them back exactly; both against C's _Float16. */
static void test_f16_elements(void **state) {
  (void)state;
#ifdef __FLT16_MAX__
  static const double v[] = {0,     -0.0,   1.0 / 3, 65504, 65519.9, 65520, 1e6,  -2.5e-8, 6e-8,    1e-5,
                             -1e-5, 3.1416, 2049,    2051,  0.1,     -7.25, 1e-9, 5.96e-8, 6.104e-5, 4097};
  enum { N = sizeof v / sizeof v[0] };
  ovta_error err = {0};
  ovta_tensor *t = ovta_tensor_new("h", OVTA_DT_F16, 1, (int64_t[]){N + 1});
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int k = 0; k < N; k++) ovta_tensor_put_f(t, k, v[k]);
  ovta_tensor_put_f(t, N, NAN);
  for (int k = 0; k < N; k++) {
    _Float16 want = (_Float16)v[k];
    assert_memory_equal(&((_Float16 *)t->data)[k], &want, 2);
    assert_true(ovta_tensor_get_f(t, k) == (double)want);
  }
  assert_true(isnan(ovta_tensor_get_f(t, N)));
  ovta_tensor_free(t);
#else
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip_files),
      cmocka_unit_test(test_build_and_attrs),
      cmocka_unit_test(test_json_errors),
      cmocka_unit_test(test_f16_elements),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
