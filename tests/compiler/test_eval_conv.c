/* The reference evaluator's float convolution (compiler/graph/eval.c conv_f32: pixel pairs,
 * 16 output channels at once, over the thread pool) against the plain scalar loop written here:
 * for every output element, the bias, then x * w added in double in c, kh, kw order with the taps
 * outside the input skipped, the activation, rounded to float. The outputs must be the same
 * bytes (not merely close): calibration's ranges, hence the quantized plan, depend on them. The
 * shapes cover channel counts that are not multiples of 16 (the single-channel rest), groups,
 * strides, dilations, asymmetric pads, odd widths (the last pixel of a row alone), 1-D, a batch
 * of 2, no bias, a -0.0 bias (a sum that stays -0.0 when no tap is added), and 1 and 2 threads. */
#include <math.h>

#include "graph.h"
#include "ovta_test.h"

/* One convolution case: x [N][C][H][W] (1-D: rank 3, W unused), M output channels, KH x KW. */
typedef struct ccase {
  const char *op;          /* Conv or ovta.Conv */
  int rank;                /* 4 (2-D) or 3 (1-D) */
  int64_t N, C, H, W, M;   /* batch, input channels, height, width, output channels */
  int64_t KH, KW;          /* kernel */
  int64_t sh, sw, dh, dw;  /* strides, dilations */
  int64_t pads[4];         /* top, left, bottom, right (1-D: begin, end, unused, unused) */
  int64_t group;           /* groups */
  bool bias;               /* has a bias input */
  const char *act;         /* ovta.Conv's act (NULL: none) */
} ccase;

static uint32_t rng = 12345u;
static float frand(void) {
  rng = rng * 1664525u + 1013904223u;
  int v = (int)(rng >> 9) % 2001 - 1000; /* some exact zeros too */
  return v % 7 == 0 ? 0.0f : (float)v / 977.0f;
}

/* The scalar loop: y[n][m][oh][ow] as the evaluator's rule says (file comment). */
static void ref_conv(const ccase *c, const float *x, const float *w, const float *b, int64_t OH, int64_t OW, float *y) {
  int64_t W = c->rank == 4 ? c->W : 1, CG = c->C / c->group, MG = c->M / c->group;
  int64_t ph = c->pads[0], pw = c->rank == 4 ? c->pads[1] : 0, KW = c->rank == 4 ? c->KW : 1;
  int64_t sw = c->rank == 4 ? c->sw : 1, dw = c->rank == 4 ? c->dw : 1;
  for (int64_t n = 0; n < c->N; n++)
    for (int64_t m = 0; m < c->M; m++)
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double acc = b ? b[m] : 0;
          for (int64_t ci = 0; ci < CG; ci++)
            for (int64_t kh = 0; kh < c->KH; kh++)
              for (int64_t kw = 0; kw < KW; kw++) {
                int64_t ih = oh * c->sh - ph + kh * c->dh, iw = ow * sw - pw + kw * dw;
                if (ih < 0 || ih >= c->H || iw < 0 || iw >= W) continue;
                acc += (double)x[((n * c->C + (m / MG) * CG + ci) * c->H + ih) * W + iw] *
                       (double)w[((m * CG + ci) * c->KH + kh) * KW + kw];
              }
          if (c->act && !strcmp(c->act, "relu")) acc = acc > 0 ? acc : 0;
          if (c->act && !strcmp(c->act, "leakyrelu")) acc = acc >= 0 ? acc : acc * (double)0.01f;
          y[((n * c->M + m) * OH + oh) * OW + ow] = (float)acc;
        }
}

/* A tensor of g filled with random values (kind: input or constant). */
static ovta_tensor *rand_tensor(ovta_graph *g, const char *name, int rank, const int64_t *shape, ovta_tensor_kind kind) {
  ovta_error err = {0};
  ovta_tensor *t = ovta_graph_add_tensor(g, name, OVTA_DT_F32, rank, shape, &err);
  assert_non_null(t);
  t->kind = kind;
  OVTA_ASSERT_OK(ovta_tensor_alloc(t, &err), err);
  for (int64_t i = 0; i < ovta_tensor_numel(t); i++) ((float *)t->data)[i] = frand();
  return t;
}

/* Case c evaluated by ovta_eval_node_ref with `threads` threads, compared byte for byte. */
static void run_case(const ccase *c, int threads, bool negzero_bias) {
  ovta_error err = {0};
  ovta_graph *g = ovta_graph_new("conv");
  int64_t xs[4] = {c->N, c->C, c->H, c->W}, ws[4] = {c->M, c->C / c->group, c->KH, c->KW}, bs[1] = {c->M};
  ovta_tensor *x = rand_tensor(g, "x", c->rank, xs, OVTA_TK_INPUT);
  ovta_tensor *w = rand_tensor(g, "w", c->rank, ws, OVTA_TK_CONST);
  ovta_tensor *b = c->bias ? rand_tensor(g, "b", 1, bs, OVTA_TK_CONST) : NULL;
  if (b && negzero_bias) ((float *)b->data)[c->M - 1] = -0.0f, ((float *)b->data)[0] = -0.0f;
  g->inputs = calloc(1, sizeof *g->inputs);
  g->inputs[g->n_inputs++] = x;
  const char *in[3] = {"x", "w", "b"}, *out[1] = {"y"};
  ovta_node *n = ovta_graph_add_node(g, c->op, "c", c->bias ? 3 : 2, in, 1, out, &err);
  assert_non_null(n);
  int64_t st[2] = {c->sh, c->sw}, dl[2] = {c->dh, c->dw}, pd[4] = {c->pads[0], c->pads[1], c->pads[2], c->pads[3]};
  if (c->rank == 3) pd[1] = c->pads[2];
  int sp = c->rank - 2;
  OVTA_ASSERT_OK(ovta_node_set_ints(n, "strides", st, sp, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_ints(n, "dilations", dl, sp, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_ints(n, "pads", pd, 2 * sp, &err), err);
  OVTA_ASSERT_OK(ovta_node_set_i(n, "group", c->group, &err), err);
  if (c->act) OVTA_ASSERT_OK(ovta_node_set_s(n, "act", c->act, &err), err);
  g->outputs = calloc(1, sizeof *g->outputs);
  g->outputs[g->n_outputs++] = ovta_graph_tensor(g, "y");
  OVTA_ASSERT_OK(ovta_infer_graph(g, &err), err);
  const ovta_tensor *yt = ovta_graph_tensor(g, "y");
  int64_t OH = yt->shape[2], OW = c->rank == 4 ? yt->shape[3] : 1;
  ovta_tensor *y = ovta_tensor_new("y", OVTA_DT_F32, yt->rank, yt->shape);
  ovta_tensor *ins[3] = {x, w, b};
  ovta_set_threads(threads);
  OVTA_ASSERT_OK(ovta_eval_node_ref(NULL, g, n, ins, &y, &err), err);
  ovta_set_threads(0);
  size_t ny = (size_t)ovta_tensor_numel(yt);
  float *want = calloc(ny, sizeof *want);
  ref_conv(c, x->data, w->data, b ? b->data : NULL, OH, OW, want);
  assert_memory_equal(y->data, want, ny * sizeof *want);
  if (b && negzero_bias && c->pads[0] >= c->KH) /* the first output row of channel 0 sees no tap */
    assert_true(signbit(((float *)y->data)[0]));
  free(want);
  ovta_tensor_free(y);
  ovta_graph_free(g);
}

static const ccase CASES[] = {
    /* op, rank, N, C, H, W, M, KH, KW, sh, sw, dh, dw, pads, group, bias, act */
    {"Conv", 4, 1, 3, 9, 11, 20, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, 1, true, NULL},
    {"ovta.Conv", 4, 1, 12, 10, 10, 64, 4, 4, 1, 1, 1, 1, {2, 2, 1, 1}, 1, true, "relu"},
    {"ovta.Conv", 4, 2, 8, 13, 7, 32, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, 1, true, "relu"},
    {"Conv", 4, 1, 16, 8, 9, 16, 1, 1, 2, 2, 1, 1, {0, 0, 0, 0}, 1, false, NULL},
    {"Conv", 4, 1, 6, 12, 12, 38, 3, 3, 1, 1, 2, 2, {2, 2, 2, 2}, 2, true, NULL},
    {"ovta.Conv", 4, 1, 4, 6, 5, 8, 3, 2, 1, 3, 1, 1, {0, 2, 1, 0}, 4, true, "leakyrelu"},
    {"Conv", 4, 1, 5, 7, 9, 17, 5, 3, 2, 1, 1, 2, {3, 0, 0, 3}, 1, true, NULL},
    {"Conv", 3, 1, 4, 31, 1, 18, 5, 1, 2, 1, 1, 1, {2, 0, 1, 0}, 1, true, NULL},
};

static void test_conv_f32_bit_exact(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++)
    for (int t = 1; t <= 2; t++) run_case(&CASES[i], t, false);
}

/* A -0.0 bias where the first output row of a channel sees no tap (pads >= kernel): the scalar
 * loop keeps -0.0, and so must the evaluator (no +0.0 added for a skipped tap). */
static void test_conv_f32_negzero(void **state) {
  (void)state;
  ccase c = {"Conv", 4, 1, 3, 5, 5, 18, 2, 2, 1, 1, 1, 1, {2, 2, 0, 0}, 1, true, NULL};
  run_case(&c, 1, true);
  run_case(&c, 2, true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv_f32_bit_exact),
      cmocka_unit_test(test_conv_f32_negzero),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
