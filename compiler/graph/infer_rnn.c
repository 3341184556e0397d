/* infer_rnn.c: inference of the recurrent operators RNN, LSTM and GRU (opsets 7 and 14: 14
 * adds `layout`). The ONNX rule stands above the function; the lowering (compiler/cpu/rnn.c)
 * holds the equations. */

#include <strings.h>

#include "infer_internal.h"

/* The activation functions of the RNN family (ONNX names; matched ignoring case). */
static const char *const RNN_ACTS[] = {"Relu",    "Tanh",       "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
                                       "ScaledTanh", "HardSigmoid", "Elu",  "Softsign", "Softplus", NULL};

/* Input i, when present, has the given dtype and shape (rank 1..3). */
static int need_shape(ctx *c, int i, const char *what, ovta_dtype dt, int rank, const int64_t *shape) {
  ovta_tensor *t = ix_in(c, i);
  if (!t) return OVTA_OK;
  if (ix_need(c, i, &t)) return c->err->code;
  if (t->dtype != dt) return ix_bad(c, OVTA_EINVAL, "%s '%s' has type %s, not %s", what, t->name, ovta_dtype_name(t->dtype), ovta_dtype_name(dt));
  bool ok = t->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = t->shape[d] == shape[d] || t->shape[d] < 0 || shape[d] < 0;
  if (!ok) {
    char have[128], want[128];
    ovta_shape_str(t, have, sizeof have);
    int k = 0;
    for (int d = 0; d < rank && k < 100; d++) k += snprintf(want + k, sizeof want - (size_t)k, "%s%lld", d ? "x" : "", (long long)shape[d]);
    return ix_bad(c, OVTA_EINVAL, "%s '%s' has shape %s, not %s", what, t->name, have, want);
  }
  return OVTA_OK;
}

/* The attributes: direction (forward, reverse, bidirectional; *nd its direction count), layout
 * (0, 1), activations (g per direction, known names), activation_alpha/beta (floats), clip
 * (> 0), input_forget / linear_before_reset (0, 1). */
static int rnn_attrs(ctx *c, int g, int *nd) {
  const char *dir = ovta_node_attr_s(c->n, "direction", "forward");
  if (!strcmp(dir, "bidirectional")) *nd = 2;
  else if (!strcmp(dir, "forward") || !strcmp(dir, "reverse")) *nd = 1;
  else return ix_bad(c, OVTA_EINVAL, "direction '%s' is not forward, reverse or bidirectional", dir);
  int64_t layout = ovta_node_attr_i(c->n, "layout", 0);
  if (layout != 0 && layout != 1) return ix_bad(c, OVTA_EINVAL, "layout %lld is not 0 or 1", (long long)layout);
  if (layout && c->g->opset && c->g->opset < 14) return ix_bad(c, OVTA_EINVAL, "layout needs opset 14");
  for (int k = 0; k < 2; k++) {
    const char *nm = k ? "linear_before_reset" : "input_forget";
    int64_t v = ovta_node_attr_i(c->n, nm, 0);
    if (v != 0 && v != 1) return ix_bad(c, OVTA_EINVAL, "%s %lld is not 0 or 1", nm, (long long)v);
  }
  const ovta_attr *clip = ovta_node_attr(c->n, "clip");
  if (clip && !(ovta_node_attr_f(c->n, "clip", 0) > 0)) return ix_bad(c, OVTA_EINVAL, "clip must be positive");
  const ovta_attr *a = ovta_node_attr(c->n, "activations");
  if (!a) return OVTA_OK;
  if (a->n != g * *nd)
    return ix_bad(c, OVTA_EINVAL, "activations has %d names, the operator needs %d (%d per direction)", a->n, g * *nd, g);
  for (int i = 0; i < a->n; i++) {
    bool ok = false;
    for (int k = 0; RNN_ACTS[k] && !ok; k++) ok = !strcasecmp(a->strs[i], RNN_ACTS[k]);
    if (!ok) return ix_bad(c, OVTA_EUNSUPPORTED, "activation '%s' is not supported", a->strs[i]);
  }
  return OVTA_OK;
}

/* RNN, GRU, LSTM (7, 14): X [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1);
 * W [D, G*H, input], R [D, G*H, H], optional B [D, 2*G*H], sequence_lens [batch] (int32),
 * initial_h [D, batch, H] (layout 1: [batch, D, H]), LSTM also initial_c (same shape) and P
 * [D, 3*H]; G = 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f, c); D = 2 when direction is
 * bidirectional, else 1; H = hidden_size (R's last dim when absent). Outputs, each optional: Y
 * [seq, D, batch, H] (layout 1: [batch, seq, D, H]), Y_h and (LSTM) Y_c of initial_h's shape;
 * all of X's type (float). activations: 1 (RNN), 2 (GRU), 3 (LSTM) names per direction. */
static int infer_rnn(ctx *c) {
  const char *op = c->n->op;
  bool lstm = !strcmp(op, "LSTM"), gru = !strcmp(op, "GRU");
  int g = lstm ? 4 : gru ? 3 : 1, nact = lstm ? 3 : gru ? 2 : 1, nd = 1;
  const char *allowed = lstm  ? "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout,input_forget"
                        : gru ? "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout,linear_before_reset"
                              : "activation_alpha,activation_beta,activations,clip,direction,hidden_size,layout";
  ovta_tensor *x, *w, *r;
  if (ix_allow(c, allowed) || ix_attr_type(c, "direction", OVTA_ATTR_STRING) || ix_attr_type(c, "hidden_size", OVTA_ATTR_INT) ||
      ix_attr_type(c, "layout", OVTA_ATTR_INT) || ix_attr_type(c, "clip", OVTA_ATTR_FLOAT) ||
      ix_attr_type(c, "activations", OVTA_ATTR_STRINGS) || ix_attr_type(c, "activation_alpha", OVTA_ATTR_FLOATS) ||
      ix_attr_type(c, "activation_beta", OVTA_ATTR_FLOATS) || ix_attr_type(c, "input_forget", OVTA_ATTR_INT) ||
      ix_attr_type(c, "linear_before_reset", OVTA_ATTR_INT) || ix_count_io(c, 3, lstm ? 8 : 6, 0, lstm ? 3 : 2) ||
      ix_need(c, 0, &x) || ix_need(c, 1, &w) || ix_need(c, 2, &r) || rnn_attrs(c, nact, &nd))
    return c->err->code;
  if (x->dtype != OVTA_DT_F32 && x->dtype != OVTA_DT_F64)
    return ix_bad(c, OVTA_EUNSUPPORTED, "X '%s' has type %s (f32/f64 only)", x->name, ovta_dtype_name(x->dtype));
  if (x->rank != 3 || r->rank != 3) return ix_bad(c, OVTA_EINVAL, "X and R must have rank 3");
  int64_t layout = ovta_node_attr_i(c->n, "layout", 0);
  int64_t seq = x->shape[layout ? 1 : 0], batch = x->shape[layout ? 0 : 1], in = x->shape[2];
  int64_t hs = ovta_node_attr_i(c->n, "hidden_size", r->shape[2]);
  if (hs <= 0 || hs > (1 << 24)) return ix_bad(c, OVTA_EINVAL, "hidden_size %lld is out of range", (long long)hs);
  int64_t ws[3] = {nd, g * hs, in}, rs[3] = {nd, g * hs, hs}, bs[2] = {nd, 2 * g * hs}, ps[2] = {nd, 3 * hs};
  int64_t hsh[3] = {layout ? batch : nd, layout ? nd : batch, hs}, sl[1] = {batch};
  if (need_shape(c, 1, "W", x->dtype, 3, ws) || need_shape(c, 2, "R", x->dtype, 3, rs) ||
      need_shape(c, 3, "B", x->dtype, 2, bs) || need_shape(c, 4, "sequence_lens", OVTA_DT_I32, 1, sl) ||
      need_shape(c, 5, "initial_h", x->dtype, 3, hsh) || (lstm && need_shape(c, 6, "initial_c", x->dtype, 3, hsh)) ||
      (lstm && need_shape(c, 7, "P", x->dtype, 2, ps)))
    return c->err->code;
  int64_t ys[4] = {seq, nd, batch, hs};
  if (layout) ys[0] = batch, ys[1] = seq, ys[2] = nd;
  if (ix_set_out(c, 0, x->dtype, 4, ys) || ix_set_out(c, 1, x->dtype, 3, hsh) || ix_set_out(c, 2, x->dtype, 3, hsh))
    return c->err->code;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- table */

const infer_rule infer_rules_rnn[] = {
    {"RNN", infer_rnn},
    {"GRU", infer_rnn},
    {"LSTM", infer_rnn},
    {NULL, NULL},
};
