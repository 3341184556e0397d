/* quantize: int8 power-of-two quantization from calibration ranges.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

typedef struct calib {
  float *absmax;  /* per tensor id */
} calib;

static void observe(void *ctx, const ovta_tensor *t, const ovta_tensor *v) {
  calib *c = ctx;
  int64_t n = ovta_tensor_numel(v);
  for (int64_t i = 0; i < n; i++) {
    float a = (float)fabs(ovta_tensor_get_f(v, i));
    if (a > c->absmax[t->id]) c->absmax[t->id] = a;
  }
}

static float const_absmax(const ovta_tensor *t) {
  float m = 0;
  int64_t n = ovta_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) m = fmaxf(m, (float)fabs(ovta_tensor_get_f(t, i)));
  return m;
}

static bool quantizable(const ovta_node *n) {
  if (strcmp(n->op, "ovta.Conv") && strcmp(n->op, "ovta.Dense")) return false;
  const char *a = ovta_node_attr_s(n, "act", "none");
  if (strcmp(a, "none") && strcmp(a, "relu") && strcmp(a, "clip")) return false;
  ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
  return x && x->dtype == OVTA_DT_F32 && px_is_const(w) && w->dtype == OVTA_DT_F32 && (!b || px_is_const(b)) && !px_is_const(x);
}

/* Why ovta.Conv / ovta.Dense n is not quantizable (the rule of quantizable), in buf. */
const char *px_quant_why_not(const ovta_node *n, char *buf, size_t len) {
  const char *a = ovta_node_attr_s(n, "act", "none");
  ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
  if (strcmp(a, "none") && strcmp(a, "relu") && strcmp(a, "clip"))
    snprintf(buf, len, "fused activation %s is not none, relu or clip", a);
  else if (!x || x->dtype != OVTA_DT_F32 || px_is_const(x)) snprintf(buf, len, "input is not a float value");
  else if (!px_is_const(w) || w->dtype != OVTA_DT_F32) snprintf(buf, len, "weights are not a float constant");
  else if (b && !px_is_const(b)) snprintf(buf, len, "bias is not a constant");
  else snprintf(buf, len, "not quantized (compile with --target accel)");
  return buf;
}

static bool same_shape(const ovta_tensor *a, const ovta_tensor *b) {
  if (a->rank != b->rank || a->rank < 0) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d] || a->shape[d] < 0) return false;
  return true;
}

/* A residual add the quantize pass can make ovta.QAdd: `Add(A, B)` or `ovta.Eltwise(A, B)` with
 * ops "Add" / "Add,Relu"; A, B non-constant f32 of the output's shape (rank 2 or 4, no
 * broadcasting). *relu tells whether a ReLU follows. */
static bool qadd_match(const ovta_node *n, ovta_tensor **a, ovta_tensor **b, bool *relu) {
  *relu = false;
  if (n->n_outputs != 1 || !n->outputs[0] || n->n_inputs != 2 || !n->inputs[0] || !n->inputs[1]) return false;
  if (!strcmp(n->op, "ovta.Eltwise")) {
    const char *ops = ovta_node_attr_s(n, "ops", "");
    if (!strcmp(ops, "Add,Relu")) *relu = true;
    else if (strcmp(ops, "Add")) return false;
  } else if (strcmp(n->op, "Add")) return false;
  *a = n->inputs[0], *b = n->inputs[1];
  const ovta_tensor *y = n->outputs[0];
  if ((*a)->dtype != OVTA_DT_F32 || (*b)->dtype != OVTA_DT_F32 || y->dtype != OVTA_DT_F32) return false;
  if (px_is_const(*a) || px_is_const(*b) || (y->rank != 4 && y->rank != 2)) return false;
  return same_shape(*a, y) && same_shape(*b, y);
}

/* MaxPool n with ceil_mode 1 as floor mode: the end pads (bottom, right) grown so the floor-mode
 * window count is the inferred output size, in pads[4] (top, left, bottom, right). Only when the
 * shapes are static, auto_pad is NOTSET and every window starts inside the input or its begin
 * pad (so each holds an input element: the max over the in-bounds ones is the same). */
static bool ceil_pads(const ovta_node *n, int64_t pads[4]) {
  const ovta_tensor *x = n->inputs[0], *y = n->outputs[0];
  const ovta_attr *k = ovta_node_attr(n, "kernel_shape"), *st = ovta_node_attr(n, "strides"), *pd = ovta_node_attr(n, "pads");
  if (strcmp(ovta_node_attr_s(n, "auto_pad", "NOTSET"), "NOTSET") || y->rank != 4 || !k || k->type != OVTA_ATTR_INTS || k->n != 2)
    return false;
  if ((st && (st->type != OVTA_ATTR_INTS || st->n != 2)) || (pd && (pd->type != OVTA_ATTR_INTS || pd->n != 4))) return false;
  for (int i = 0; i < 4; i++) pads[i] = pd ? pd->ints[i] : 0;
  for (int i = 0; i < 2; i++) {
    int64_t H = x->shape[2 + i], out = y->shape[2 + i], s = st ? st->ints[i] : 1, kk = k->ints[i];
    if (H < 1 || out < 1 || s < 1 || kk < 1 || pads[i] < 0 || pads[i + 2] < 0) return false;
    if ((out - 1) * s - pads[i] >= H) return false; /* a window wholly in the end pad */
    int64_t pe = (out - 1) * s + kk - H - pads[i];
    if (pe > pads[i + 2]) pads[i + 2] = pe;
    if ((H + pads[i] + pads[i + 2] - kk) / s + 1 != out) return false;
  }
  return true;
}

/* A max pooling the quantize pass can make ovta.QMaxPool: 2-D MaxPool (rank 4) without the
 * Indices output, dilations 1, ceil_mode 0 (or 1 as floor mode with larger end pads: ceil_pads),
 * on a non-constant f32. */
static bool qpool_match(const ovta_node *n) {
  if (strcmp(n->op, "MaxPool") || n->n_inputs != 1 || !n->inputs[0] || n->n_outputs < 1 || !n->outputs[0]) return false;
  if (n->n_outputs > 1 && n->outputs[1]) return false;
  const ovta_tensor *x = n->inputs[0];
  int64_t pads[4];
  if (x->dtype != OVTA_DT_F32 || x->rank != 4 || px_is_const(x)) return false;
  if (ovta_node_attr_i(n, "ceil_mode", 0) != 0 && !ceil_pads(n, pads)) return false;
  if (ovta_node_attr_i(n, "storage_order", 0) != 0) return false;
  const ovta_attr *d = ovta_node_attr(n, "dilations"), *k = ovta_node_attr(n, "kernel_shape");
  if (!k || k->type != OVTA_ATTR_INTS || k->n != 2) return false;
  if (d && (d->type != OVTA_ATTR_INTS || d->n != 2 || d->ints[0] != 1 || d->ints[1] != 1)) return false;
  return true;
}

/* A global average pooling the quantize pass can make ovta.QGlobalAvgPool: GlobalAveragePool of
 * a non-constant f32 of rank 4 with known, non-empty H and W. */
static bool qgap_match(const ovta_node *n) {
  if (strcmp(n->op, "GlobalAveragePool") || n->n_inputs != 1 || !n->inputs[0] || n->n_outputs != 1 || !n->outputs[0])
    return false;
  const ovta_tensor *x = n->inputs[0];
  return x->dtype == OVTA_DT_F32 && x->rank == 4 && !px_is_const(x) && x->shape[0] > 0 && x->shape[1] > 0 &&
         x->shape[2] > 0 && x->shape[3] > 0;
}

/* The multiplier and shift of ovta.QGlobalAvgPool over hw pixels from exponent ex to ey (graph.h:
 * y = clamp(requant(sum * mult, shift))), mult / 2^shift ~ 2^(ex - ey) / hw: for the largest
 * shift in 0..30 with mult = round(2^(shift + ex - ey) / hw) in 1..32767 (an ALU MUL immediate)
 * and 128 * hw * mult + 2^(shift-1) <= INT32_MAX (|sum| <= 128 * hw: the product and its rounding
 * never wrap); then mult halved and shift lowered while mult is even (the same results; mult 1, a
 * pure shift, when 2^(ex - ey) / hw is a power of two <= 1, e.g. hw a power of two and ey = ex).
 * False: no shift qualifies (the pool stays float). */
static bool gap_scale(int64_t hw, int ex, int ey, int *mult, int *shift) {
  for (int s = 30; s >= 0; s--) {
    double m = nearbyint(ldexp(1.0, s + ex - ey) / (double)hw);
    if (m < 1 || m > 32767 || 128.0 * (double)hw * m + (s ? ldexp(1.0, s - 1) : 0) > 2147483647.0) continue;
    *mult = (int)m, *shift = s;
    while (*shift > 0 && !(*mult & 1)) *mult /= 2, (*shift)--;
    return true;
  }
  return false;
}

/* A Flatten of a non-constant f32 (data movement: the int8 Flatten keeps its input's exponent). */
static bool qflat_match(const ovta_node *n) {
  return !strcmp(n->op, "Flatten") && n->n_inputs == 1 && n->inputs[0] && n->n_outputs == 1 && n->outputs[0] &&
         n->inputs[0]->dtype == OVTA_DT_F32;
}

/* A Resize the quantize pass can make an int8 Resize at its input's exponent: mode nearest (a
 * selection of input values, exact on int8: dequantizing after it or before it is the same), not
 * tf_crop_and_resize (its extrapolation value), on a non-constant f32 with its output shape known
 * from constant scales or sizes. Whether it then runs on the accelerator is pack's rule
 * (ovta_resize_nearest_factors, graph.h). */
static bool qresize_match(const ovta_node *n) {
  if (strcmp(n->op, "Resize") || n->n_inputs < 1 || !n->inputs[0] || n->n_outputs != 1 || !n->outputs[0]) return false;
  const ovta_tensor *x = n->inputs[0];
  double scale[OVTA_MAX_RANK];
  int64_t out[OVTA_MAX_RANK];
  char why[200];
  if (x->dtype != OVTA_DT_F32 || x->rank < 1 || px_is_const(x) || n->outputs[0]->dtype != OVTA_DT_F32) return false;
  if (strcmp(ovta_node_attr_s(n, "mode", "nearest"), "nearest") || ovta_node_attr_i(n, "antialias", 0) ||
      !strcmp(ovta_node_attr_s(n, "coordinate_transformation_mode", "half_pixel"), "tf_crop_and_resize"))
    return false;
  return ovta_resize_dims(n, x, scale, out, why, sizeof why) == OVTA_OK;
}

/* A channel concatenation the quantize pass can make an int8 Concat: Concat of rank 4 along axis 1
 * (the channels of NCHW, or -3) or of rank 2 along axis 1 (or -1), every input a non-constant f32
 * of that rank. (That each input is produced quantized is q_classify's condition.) */
static bool qconcat_match(const ovta_node *n) {
  if (strcmp(n->op, "Concat") || n->n_inputs < 1 || n->n_outputs != 1 || !n->outputs[0]) return false;
  const ovta_tensor *y = n->outputs[0];
  int r = y->rank;
  int64_t axis = ovta_node_attr_i(n, "axis", 0);
  if (axis < 0) axis += r;
  if ((r != 4 && r != 2) || axis != 1 || y->dtype != OVTA_DT_F32) return false;
  for (int k = 0; k < n->n_inputs; k++) {
    const ovta_tensor *x = n->inputs[k];
    if (!x || x->dtype != OVTA_DT_F32 || x->rank != r || px_is_const(x)) return false;
  }
  return true;
}

/* The ONNX operator of a fused activation the requantization cannot apply (act of ovta.Conv /
 * ovta.Dense, graph.h), with its attributes' names for act_alpha / act_beta; NULL: none such. */
static const struct {
  const char *act, *op, *alpha, *beta;
} UNFUSE[] = {{"sigmoid", "Sigmoid", NULL, NULL},         {"tanh", "Tanh", NULL, NULL},
              {"hardswish", "HardSwish", NULL, NULL},     {"leakyrelu", "LeakyRelu", "alpha", NULL},
              {"hardsigmoid", "HardSigmoid", "alpha", "beta"}};

/* Conv/dense node i with a fused activation only float math computes (sigmoid, tanh, hard-swish,
 * hard-sigmoid, leaky ReLU): the activation moves back out into its own ONNX node after it
 * (act "none", a new float value between), so the product itself can be quantized and the
 * activation runs on the CPU after the DequantizeLinear. */
static int unfuse_act(ovta_graph *g, int i, ovta_error *err) {
  ovta_node *n = g->nodes[i];
  const char *act = ovta_node_attr_s(n, "act", "none");
  for (size_t k = 0; k < sizeof UNFUSE / sizeof UNFUSE[0]; k++) {
    if (strcmp(act, UNFUSE[k].act)) continue;
    ovta_tensor *y = n->outputs[0], *t = px_new_value(g, y->name, y->dtype, y, err);
    ovta_node *a = t ? px_new_node(g, i + 1, UNFUSE[k].op, "act", 1, &t, y, err) : NULL;
    if (!a || (UNFUSE[k].alpha && ovta_node_set_f(a, UNFUSE[k].alpha, ovta_node_attr_f(n, "act_alpha", 0), err)) ||
        (UNFUSE[k].beta && ovta_node_set_f(a, UNFUSE[k].beta, ovta_node_attr_f(n, "act_beta", 0), err)) ||
        ovta_node_set_s(n, "act", "none", err))
      return err->code ? err->code : OVTA_ENOMEM;
    ovta_node_del_attr(n, "act_alpha"), ovta_node_del_attr(n, "act_beta");
    n->outputs[0] = t;
    return ovta_graph_index(g, err);
  }
  return OVTA_OK;
}

/* unfuse_act on every conv/dense that is quantizable but for its activation. */
static int unfuse_acts(ovta_graph *g, ovta_error *err) {
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    if (strcmp(n->op, "ovta.Conv") && strcmp(n->op, "ovta.Dense")) continue;
    const char *act = ovta_node_attr_s(n, "act", "none");
    if (!strcmp(act, "none") || !strcmp(act, "relu") || !strcmp(act, "clip")) continue;
    ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
    if (!x || x->dtype != OVTA_DT_F32 || px_is_const(x) || !px_is_const(w) || (b && !px_is_const(b))) continue;
    int rc = unfuse_act(g, i, err);
    if (rc) return rc;
  }
  return OVTA_OK;
}

enum { QK_NONE = 0, QK_LINEAR, QK_ADD, QK_POOL, QK_FLAT, QK_GAP, QK_CONCAT };

/* The quantized twin of float tensor x with exponent ex: the one a quantized producer made, else
 * a new QuantizeLinear inserted before *pos (which moves on). */
static ovta_tensor *q_input(ovta_graph *g, ovta_tensor *x, int ex, int nt0, ovta_tensor **qtwin, int *pos,
                            ovta_error *err) {
  ovta_tensor *xq = x->id < nt0 ? qtwin[x->id] : NULL;
  if (xq && xq->quant.exp == ex) return xq;
  ovta_tensor *sc = px_new_scalar(g, "scale", OVTA_DT_F32, ldexp(1.0, ex), err);
  ovta_tensor *zp = sc ? px_new_scalar(g, "zero_point", OVTA_DT_I8, 0, err) : NULL;
  xq = zp ? px_new_value(g, x->name, OVTA_DT_I8, x, err) : NULL;
  if (!xq) return NULL;
  xq->quant = (ovta_quant){true, ex, 0};
  ovta_tensor *qi[3] = {x, sc, zp};
  if (!px_new_node(g, *pos, "QuantizeLinear", "quantize", 3, qi, xq, err)) return NULL;
  (*pos)++;
  if (x->id < nt0) qtwin[x->id] = xq;
  return xq;
}

/* Node at *pos now produces yq (int8, exponent ey) instead of float y: remember the twin and
 * insert a DequantizeLinear restoring y for float users after it (*pos moves to it). */
static int q_output(ovta_graph *g, ovta_node *n, ovta_tensor *y, int ey, int nt0, ovta_tensor **qtwin, int *pos,
                    ovta_error *err) {
  ovta_tensor *yq = px_new_value(g, y->name, OVTA_DT_I8, y, err);
  if (!yq) return err->code;
  yq->quant = (ovta_quant){true, ey, 0};
  n->outputs[0] = yq;
  if (y->id < nt0) qtwin[y->id] = yq;
  ovta_tensor *sc = px_new_scalar(g, "scale", OVTA_DT_F32, ldexp(1.0, ey), err);
  ovta_tensor *zp = sc ? px_new_scalar(g, "zero_point", OVTA_DT_I8, 0, err) : NULL;
  ovta_tensor *di[3] = {yq, sc, zp};
  if (!zp || !px_new_node(g, *pos + 1, "DequantizeLinear", "dequantize", 3, di, y, err)) return err->code ? err->code : OVTA_ENOMEM;
  (*pos)++;
  return OVTA_OK;
}

/* One run of the quantize pass: what it knows per tensor and node of the graph as it was before
 * (tensor id < nt0, node index < nn0). */
typedef struct qstate {
  ovta_graph *g;
  int nt0, nn0;        /* tensors and nodes before the pass */
  int *texp;           /* per tensor: its exponent, when have */
  char *have;          /* per tensor: texp known (annotation or calibration) */
  char *willq;         /* per tensor: produced quantized by a node of the pass */
  char *kind;          /* per node: QK_* (what it becomes), QK_NONE: stays */
  ovta_tensor **qtwin; /* per tensor: its int8 twin, once made */
  ovta_node **orig;    /* the nodes in their order before the pass */
  calib cb;            /* calibration ranges */
  bool per_tensor;     /* no per-channel weight exponents (opts->quant_per_tensor) */
} qstate;

/* The error code of a failed rewrite (ENOMEM when the failing call set none). */
static int q_fail(const ovta_error *err) { return err->code ? err->code : OVTA_ENOMEM; }

/* Is every input of n produced quantized? */
static bool q_all_willq(const qstate *q, const ovta_node *n) {
  for (int k = 0; k < n->n_inputs; k++)
    if (!q->willq[n->inputs[k]->id]) return false;
  return true;
}

/* Which nodes become quantized (in order: an add/pool/flatten/concat needs a quantized producer), which
 * tensors need an exponent; those with an annotation have it. Returns the first tensor that needs
 * one and has no annotation, or NULL. */
static const ovta_tensor *q_classify(qstate *q) {
  const ovta_tensor *missing = NULL;
  for (int i = 0; i < q->nn0; i++) {
    ovta_node *n = q->orig[i] = q->g->nodes[i];
    ovta_tensor *ts[3] = {0}, *a, *b;
    bool relu;
    if (quantizable(n)) q->kind[i] = QK_LINEAR, ts[0] = n->inputs[0], ts[1] = n->outputs[0];
    else if (qadd_match(n, &a, &b, &relu) && (q->willq[a->id] || q->willq[b->id]))
      q->kind[i] = QK_ADD, ts[0] = a, ts[1] = b, ts[2] = n->outputs[0];
    else if (qpool_match(n) && q->willq[n->inputs[0]->id]) q->kind[i] = QK_POOL, ts[0] = n->inputs[0];
    else if (qgap_match(n) && q->willq[n->inputs[0]->id])
      q->kind[i] = QK_GAP, ts[0] = n->inputs[0], ts[1] = n->outputs[0];
    else if (qconcat_match(n) && q_all_willq(q, n)) q->kind[i] = QK_CONCAT; /* exponents: q_concat_exps */
    else if ((qflat_match(n) || qresize_match(n)) && q->willq[n->inputs[0]->id])
      q->kind[i] = QK_FLAT; /* data movement: int8 in, int8 out, same exponent */
    else continue;
    q->willq[n->outputs[0]->id] = 1;
    for (int k = 0; k < 3; k++) {
      if (!ts[k]) continue;
      if (ts[k]->quant.valid) q->have[ts[k]->id] = 1, q->texp[ts[k]->id] = ts[k]->quant.exp;
      else if (!missing) missing = ts[k];
    }
  }
  return missing;
}

/* Exponents of the tensors without one, from the calibration ranges: every sample of o->calib run
 * through the graph (o->eval), max |value| per tensor. Without samples: an error naming missing. */
static int q_calibrate(qstate *q, const ovta_compile_opts *o, const ovta_tensor *missing, ovta_error *err) {
  int rc = 0;
  if (o->n_calib <= 0)
    return OVTA_FAIL(err, OVTA_EINVAL,
                     "%s: tensor '%s' needs a quantization scale: give calibration samples or a \"quant\" annotation",
                     q->g->origin, missing->name);
  ovta_timing_begin(o->timing, "calibration: the float graph run on %d sample(s)", o->n_calib);
  for (int s = 0, stop = 0; s < o->n_calib && !stop; s++)
    if ((rc = ovta_graph_run(q->g, o->eval, o->eval_ctx, o->calib[s], observe, &q->cb, NULL, err)))
      ovta_error_wrap(err, "calibration sample %d", s), stop = 1;
  ovta_timing_end(o->timing);
  if (rc) return rc;
  for (int i = 0; i < q->nt0; i++)
    if (!q->have[i]) q->texp[i] = ovta_quant_exp_for(q->cb.absmax[i]), q->have[i] = 1;
  return 0;
}

/* The root of i in the union-find forest p (paths halved on the way). */
static int uf_root(int *p, int i) {
  while (p[i] != i) i = p[i] = p[p[i]];
  return i;
}

/* One exponent per int8 Concat, so it is a plain copy of int8 values (no requantization): the
 * inputs and output of each int8 Concat, and through max pools, flattens and nearest resizes (which keep their
 * input's exponent) the values they pass on, form a group; a group with a Concat takes the
 * largest exponent of its members (the coarsest scale: no member saturates) for every member,
 * so the convs / adds producing them requantize straight to it. An annotation in such a group
 * gives way to the group's exponent. A member calibrated all zero (a ReLU'd branch that never
 * fires: ovta_quant_exp_for(0) is 0) is exact at any exponent and does not vote, unless every
 * member is such (found by tools/ovta-randgraph, seed 2014: split-groups' convs of a grouped
 * conv + ReLU, one group all zero, pulled the whole Concat to 2^0). Runs after q_calibrate,
 * before the rewrite. */
static int q_concat_exps(qstate *q, ovta_error *err) {
  int nt = q->nt0, *p = malloc(sizeof(int) * (size_t)(nt + 1)), *ge = malloc(sizeof(int) * (size_t)(nt + 1));
  int *gz = malloc(sizeof(int) * (size_t)(nt + 1)); /* the largest exponent counting the all-zero members too */
  char *cat = calloc((size_t)nt + 1, 1);
  if (!p || !ge || !gz || !cat) return free(p), free(ge), free(gz), free(cat), OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < nt; i++) p[i] = i, ge[i] = gz[i] = INT32_MIN;
  for (int j = 0; j < q->nn0; j++) {
    ovta_node *n = q->orig[j];
    if (q->kind[j] != QK_CONCAT && q->kind[j] != QK_POOL && q->kind[j] != QK_FLAT) continue;
    int r = uf_root(p, n->outputs[0]->id);
    for (int k = 0; k < (q->kind[j] == QK_CONCAT ? n->n_inputs : 1); k++) { /* a Resize's others: constants */
      int a = uf_root(p, n->inputs[k]->id);
      if (a != r) p[a] = r;
    }
  }
  for (int j = 0; j < q->nn0; j++)
    if (q->kind[j] == QK_CONCAT) cat[uf_root(p, q->orig[j]->outputs[0]->id)] = 1;
  for (int i = 0; i < nt; i++) {
    int r = uf_root(p, i);
    if (!cat[r] || !q->have[i]) continue;
    if (q->texp[i] > gz[r]) gz[r] = q->texp[i];
    if (q->cb.absmax[i] > 0 && q->texp[i] > ge[r]) ge[r] = q->texp[i];
  }
  for (int i = 0; i < nt; i++) {
    int r = uf_root(p, i), e = ge[r] != INT32_MIN ? ge[r] : gz[r];
    if (cat[r] && e != INT32_MIN) q->texp[i] = e, q->have[i] = 1;
  }
  free(p), free(ge), free(gz), free(cat);
  return 0;
}

/* The int8 twin of the producer's output, if it has one. */
static ovta_tensor *q_twin(const qstate *q, const ovta_tensor *x) { return x->id < q->nt0 ? q->qtwin[x->id] : NULL; }

/* Flatten or nearest Resize of a value produced quantized: int8 in and out at the same exponent
 * (a Resize's other inputs, constants, stay). */
static int q_flatten(qstate *q, ovta_node *n, int *pos, ovta_error *err) {
  ovta_tensor *x = n->inputs[0], *y = n->outputs[0], *xq = q_twin(q, x);
  if (!xq) return 0; /* its producer stayed float */
  if (y->dtype != OVTA_DT_F32) return 0;
  n->inputs[0] = xq;
  if (q_output(q->g, n, y, xq->quant.exp, q->nt0, q->qtwin, pos, err)) return q_fail(err);
  return 0;
}

/* Int8 Concat: every input taken int8 at the group's exponent (q_concat_exps; the producers
 * already write it, else a QuantizeLinear is inserted), the output int8 at the same exponent. */
static int q_concat(qstate *q, ovta_node *n, int *pos, ovta_error *err) {
  ovta_tensor *y = n->outputs[0];
  if (!q->have[y->id]) return 0; /* no exponent (cannot happen after q_concat_exps): stays float */
  int e = q->texp[y->id];
  for (int k = 0; k < n->n_inputs; k++) {
    ovta_tensor *xq = q_input(q->g, n->inputs[k], e, q->nt0, q->qtwin, pos, err);
    if (!xq) return q_fail(err);
    n->inputs[k] = xq;
  }
  if (ovta_node_set_i(n, "axis", 1, err)) return q_fail(err);
  if (q_output(q->g, n, y, e, q->nt0, q->qtwin, pos, err)) return q_fail(err);
  return 0;
}

/* MaxPool -> ovta.QMaxPool at its input's exponent. */
static int q_pool(qstate *q, ovta_node *n, int *pos, ovta_error *err) {
  ovta_tensor *x = n->inputs[0], *y = n->outputs[0], *xq = q_twin(q, x);
  int ex = xq ? xq->quant.exp : q->texp[x->id];
  if (!(xq = q_input(q->g, x, ex, q->nt0, q->qtwin, pos, err))) return q_fail(err);
  int64_t pads[4];
  if (ovta_node_attr_i(n, "ceil_mode", 0) && (!ceil_pads(n, pads) || ovta_node_set_ints(n, "pads", pads, 4, err)))
    return err->code ? err->code : OVTA_FAIL(err, OVTA_EINTERNAL, "node %s: ceil_mode", n->name);
  if (px_set_op(n, "ovta.QMaxPool", err)) return q_fail(err);
  ovta_node_del_attr(n, "storage_order"), ovta_node_del_attr(n, "ceil_mode");
  if (px_set_inputs(n, 1, err)) return q_fail(err);
  n->n_outputs = 1;
  n->inputs[0] = xq;
  if (q_output(q->g, n, y, ex, q->nt0, q->qtwin, pos, err)) return q_fail(err);
  return 0;
}

/* GlobalAveragePool -> ovta.QGlobalAvgPool: input at its exponent ex, output at its own ey, mult
 * and shift by gap_scale, clip [-127, 127] (stays float when gap_scale finds none). */
static int q_gap(qstate *q, ovta_node *n, int *pos, ovta_error *err) {
  ovta_tensor *x = n->inputs[0], *y = n->outputs[0], *xq = q_twin(q, x);
  int ex = xq ? xq->quant.exp : q->texp[x->id], ey = q->texp[y->id], mult, shift;
  if (!gap_scale(x->shape[2] * x->shape[3], ex, ey, &mult, &shift)) return 0;
  if (!(xq = q_input(q->g, x, ex, q->nt0, q->qtwin, pos, err))) return q_fail(err);
  if (px_set_op(n, "ovta.QGlobalAvgPool", err) || ovta_node_set_i(n, "mult", mult, err) ||
      ovta_node_set_i(n, "shift", shift, err) || ovta_node_set_i(n, "clip_min", -127, err) ||
      ovta_node_set_i(n, "clip_max", 127, err))
    return q_fail(err);
  n->inputs[0] = xq;
  if (q_output(q->g, n, y, ey, q->nt0, q->qtwin, pos, err)) return q_fail(err);
  return 0;
}

/* Residual add -> ovta.QAdd: both inputs aligned to the smaller exponent (stays float when they
 * are more than 16 apart). */
static int q_add(qstate *q, ovta_node *n, int *pos, ovta_error *err) {
  ovta_tensor *a, *b, *y = n->outputs[0];
  bool relu;
  if (!qadd_match(n, &a, &b, &relu)) return 0;
  ovta_tensor *aq = q_twin(q, a), *bq = q_twin(q, b);
  int ea = aq ? aq->quant.exp : q->texp[a->id], eb = bq ? bq->quant.exp : q->texp[b->id], ey = q->texp[y->id];
  if (ea - eb > 16 || eb - ea > 16) return 0; /* scales too far apart: stays float */
  int e0 = ea < eb ? ea : eb;
  if (!(aq = q_input(q->g, a, ea, q->nt0, q->qtwin, pos, err)) || !(bq = q_input(q->g, b, eb, q->nt0, q->qtwin, pos, err)))
    return q_fail(err);
  if (px_set_op(n, "ovta.QAdd", err)) return q_fail(err);
  ovta_node_del_attr(n, "ops");
  if (ovta_node_set_i(n, "shift_a", ea - e0, err) || ovta_node_set_i(n, "shift_b", eb - e0, err) ||
      ovta_node_set_i(n, "shift", ey - e0, err) || ovta_node_set_i(n, "clip_min", relu ? 0 : -127, err) ||
      ovta_node_set_i(n, "clip_max", 127, err))
    return q_fail(err);
  n->inputs[0] = aq, n->inputs[1] = bq;
  if (q_output(q->g, n, y, ey, q->nt0, q->qtwin, pos, err)) return q_fail(err);
  return 0;
}

/* max |w| over output channel o of w ([O][per]). */
static float channel_absmax(const ovta_tensor *w, int64_t o, int64_t per) {
  float mx = 0;
  for (int64_t k = o * per; k < (o + 1) * per; k++) mx = fmaxf(mx, (float)fabs(ovta_tensor_get_f(w, k)));
  return mx;
}

/* Constant w as int8 at exponent ew, and constant b (may be NULL) as int32 at eb: *wq, *bq. */
static int q_consts(ovta_graph *g, const ovta_tensor *w, int ew, const ovta_tensor *b, int eb, ovta_tensor **wq,
                    ovta_tensor **bq, ovta_error *err) {
  *bq = NULL;
  if (!(*wq = px_new_const(g, w->name, OVTA_DT_I8, w->rank, w->shape, err))) return q_fail(err);
  (*wq)->quant = (ovta_quant){true, ew, 0};
  int64_t nw = ovta_tensor_numel(w);
  for (int64_t k = 0; k < nw; k++) ((int8_t *)(*wq)->data)[k] = ovta_quant_i8((float)ovta_tensor_get_f(w, k), ew);
  if (!b) return 0;
  if (!(*bq = px_new_const(g, b->name, OVTA_DT_I32, b->rank, b->shape, err))) return q_fail(err);
  (*bq)->quant = (ovta_quant){true, eb, 0};
  int64_t nb = ovta_tensor_numel(b);
  for (int64_t k = 0; k < nb; k++) ((int32_t *)(*bq)->data)[k] = ovta_quant_i32((float)ovta_tensor_get_f(b, k), eb);
  return 0;
}

/* Per-channel weights of a grouped conv (the rule above pass_quantize): output channel o of w
 * ([O][C/G][KH][KW]) as int8 at its own exponent ew[o] = ovta_quant_exp_for(max |W[o]|), raised
 * to ey - ex - 31 when below (so shifts[o] <= 31) and the per-tensor ew for an all-zero channel;
 * bias b[o] as int32 at ex + ew[o] (no b: a zero bias, which the accelerator's per-channel
 * requantization needs); shifts[o] = ey - ex - ew[o]. No per-tensor quant annotation on *wq / *bq
 * (their exponents differ per channel). */
static int q_consts_pc(ovta_graph *g, const ovta_tensor *w, const ovta_tensor *b, int ex, int ey, int ew,
                       ovta_tensor **wq, ovta_tensor **bq, int64_t *shifts, ovta_error *err) {
  *bq = NULL;
  int64_t m = w->shape[0], per = m > 0 ? ovta_tensor_numel(w) / m : 0;
  if (!(*wq = px_new_const(g, w->name, OVTA_DT_I8, w->rank, w->shape, err))) return q_fail(err);
  if (!(*bq = b ? px_new_const(g, b->name, OVTA_DT_I32, b->rank, b->shape, err)
               : px_new_const(g, "bias", OVTA_DT_I32, 1, &m, err)))
    return q_fail(err);
  for (int64_t o = 0; o < m; o++) {
    float mx = channel_absmax(w, o, per);
    int e = mx > 0 ? ovta_quant_exp_for(mx) : ew;
    if (e < ey - ex - 31) e = ey - ex - 31;
    for (int64_t k = o * per; k < (o + 1) * per; k++) ((int8_t *)(*wq)->data)[k] = ovta_quant_i8((float)ovta_tensor_get_f(w, k), e);
    ((int32_t *)(*bq)->data)[o] = b ? ovta_quant_i32((float)ovta_tensor_get_f(b, o), ex + e) : 0;
    shifts[o] = ey - ex - e;
  }
  return 0;
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

/* Whether the per-tensor exponent of w ([O][...]) is at least 3 above the median of its output
 * channels' own exponents: one outlier weight (e.g. a sample torch's trunc_normal_ clamps to its
 * bound, 100 standard deviations out: 5 or 6 above) would leave most channels an eighth of their
 * int8 range or less. The channel ranges a folded BatchNorm spreads (1 or 2 above) stay per tensor:
 * a per-channel layer keeps its bias and shifts in the ACC, which the widest layers cannot. All-zero
 * channels do not count. */
static bool outlier_channels(const ovta_tensor *w) {
  int64_t m = w->shape[0], per = m > 0 ? ovta_tensor_numel(w) / m : 0, k = 0;
  int *e = malloc((size_t)(m > 0 ? m : 1) * sizeof *e);
  if (!e) return false;
  float all = 0;
  for (int64_t o = 0; o < m; o++) {
    float mx = channel_absmax(w, o, per);
    if (mx > 0) e[k++] = ovta_quant_exp_for(mx);
    all = fmaxf(all, mx);
  }
  qsort(e, (size_t)k, sizeof *e, cmp_int);
  bool r = k > 0 && ovta_quant_exp_for(all) - e[k / 2] >= 3;
  free(e);
  return r;
}

/* Whether conv/dense n gets per-channel weight exponents (q_consts_pc): a grouped ovta.Conv
 * (group > 1) with 4-D weights, and an ungrouped ovta.Conv (4-D weights) or an ovta.Dense whose
 * weights have outlier channels (outlier_channels); never when the options ask for per-tensor
 * scales everywhere. */
static bool q_per_channel(const qstate *q, const ovta_node *n) {
  const ovta_tensor *w = n->inputs[1], *b = ovta_node_in(n, 2);
  bool conv = !strcmp(n->op, "ovta.Conv"), dense = !strcmp(n->op, "ovta.Dense");
  if (q->per_tensor || !(conv ? w->rank == 4 : dense && w->rank == 2) || w->shape[0] <= 0 ||
      (b && ovta_tensor_numel(b) != w->shape[0]))
    return false;
  return (conv && ovta_node_attr_i(n, "group", 1) > 1) || outlier_channels(w);
}

/* ovta.Conv / ovta.Dense -> ovta.QConv / ovta.QDense: int8 input, weights and output, int32 bias,
 * the activation as the clip of the requantization. */
static int q_linear(qstate *q, ovta_node *n, int *pos, ovta_error *err) {
  ovta_tensor *x = n->inputs[0], *w = n->inputs[1], *b = ovta_node_in(n, 2), *y = n->outputs[0];
  ovta_tensor *xq = q_twin(q, x), *wq, *bq;
  /* an input produced quantized (e.g. by a max pool or a flatten keeping their input's scale)
   * is taken at its exponent */
  int ex = xq ? xq->quant.exp : q->texp[x->id], ey = q->texp[y->id], ew = ovta_quant_exp_for(const_absmax(w));
  if (!(xq = q_input(q->g, x, ex, q->nt0, q->qtwin, pos, err))) return q_fail(err);
  bool pc = q_per_channel(q, n);
  int64_t *shifts = pc ? calloc((size_t)w->shape[0], sizeof *shifts) : NULL;
  if (pc && !shifts) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (pc ? q_consts_pc(q->g, w, b, ex, ey, ew, &wq, &bq, shifts, err) : q_consts(q->g, w, ew, b, ex + ew, &wq, &bq, err))
    return free(shifts), q_fail(err);
  /* requantization */
  const char *a = ovta_node_attr_s(n, "act", "none");
  int lo = -127, hi = 127;
  if (!strcmp(a, "relu")) lo = 0;
  else if (!strcmp(a, "clip")) {
    lo = ovta_quant_i8(ovta_node_attr_f(n, "act_min", -INFINITY), ey);
    hi = ovta_quant_i8(ovta_node_attr_f(n, "act_max", INFINITY), ey);
  }
  bool conv = !strcmp(n->op, "ovta.Conv");
  const char *drop[] = {"act", "act_min", "act_max", "act_alpha", "act_beta"};
  for (int k = 0; k < 5; k++) ovta_node_del_attr(n, drop[k]);
  int rc = pc ? ovta_node_set_ints(n, "shifts", shifts, (int)w->shape[0], err) : ovta_node_set_i(n, "shift", ey - ex - ew, err);
  free(shifts);
  if (rc || px_set_op(n, conv ? "ovta.QConv" : "ovta.QDense", err) || ovta_node_set_i(n, "clip_min", lo, err) ||
      ovta_node_set_i(n, "clip_max", hi, err))
    return q_fail(err);
  if (pc && !b && px_set_inputs(n, 3, err)) return q_fail(err);
  n->inputs[0] = xq, n->inputs[1] = wq;
  if (b || pc) n->inputs[2] = bq;
  if (q_output(q->g, n, y, ey, q->nt0, q->qtwin, pos, err)) return q_fail(err);
  return 0;
}

/* quantize: ovta.Conv / ovta.Dense with activation none/relu/clip become ovta.QConv /
 * ovta.QDense (graph.h): symmetric per-tensor int8 with power-of-two scales. Exponents:
 *   activations: the tensor's "quant" annotation if present, else from the calibration range
 *     (max |x| over opts->calib samples run through opts->eval): ovta_quant_exp_for(absmax);
 *   weights: ovta_quant_exp_for(max |W|);  bias: int32 with exp(X) + exp(W);
 *   shift = exp(Y) - exp(X) - exp(W); clip: relu [0, 127], clip [q(min), q(max)], none [-127, 127].
 *   Grouped convs (group > 1, e.g. depthwise; not with opts->quant_per_tensor): per output
 *   channel o, ew[o] = ovta_quant_exp_for(max |W[o]|) (at least exp(Y) - exp(X) - 31; an all-zero
 *   channel takes the per-tensor exponent), bias b[o] at exp(X) + ew[o], and the INTS attribute
 *   shifts[o] = exp(Y) - exp(X) - ew[o] instead of shift (q_consts_pc): one exponent for channels
 *   of very different ranges would leave the small ones a few int8 levels. Ungrouped convs and
 *   dense layers get the same when their weights have outlier channels (q_per_channel). The
 *   activations stay per tensor.
 * Then residual adds and max pools fed by quantized values (qadd_match / qpool_match, at least
 * one input produced quantized) become ovta.QAdd / ovta.QMaxPool: an input produced quantized is
 * used as it is (its exponent), e0 = min(exp(A), exp(B)) (|exp(A) - exp(B)| <= 16, else the add
 * stays float), shift_a/shift_b align to e0, shift = exp(Y) - e0, clip [0, 127] with ReLU else
 * [-127, 127]; a max pool keeps its input's exponent (ceil_mode 1 becomes floor mode with larger
 * end pads, ceil_pads), and so does a Flatten of a quantized value
 * (int8 Flatten) and a nearest Resize of one (qresize_match: int8 Resize, a selection of values). A channel Concat (qconcat_match: rank 4 axis 1, rank 2 axis 1) whose inputs
 * are all produced quantized becomes an int8 Concat (axis 1): one exponent for its inputs and
 * output, the largest of its inputs' (q_concat_exps: shared through max pools / flattens and
 * nested concats), which the producers requantize to directly; its output is produced quantized.
 * A GlobalAveragePool fed by a quantized value becomes ovta.QGlobalAvgPool with
 * its output's own exponent ey and mult / 2^shift ~ 2^(exp(X) - ey) / (H*W) (gap_scale's rule).
 * A conv/dense input produced quantized is used at its exponent. A QuantizeLinear (scale 2^e, zero point
 * 0, int8) feeds each quantized input that is not already produced quantized; a
 * DequantizeLinear restores the float value for other users (dce removes the unused ones).
 * A conv/dense whose fused activation only float math computes (sigmoid, tanh, hard-swish,
 * hard-sigmoid, leaky ReLU) gives it back to its own node first (unfuse_act) and is quantized.
 * Steps: unfuse_acts, q_classify, q_calibrate (when an exponent is missing), q_concat_exps, one
 * rewrite per node in order (q_linear, q_add, q_pool, q_gap, q_flatten, q_concat), dce. */
int pass_quantize(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (!rc) rc = unfuse_acts(g, err);
  if (rc) return rc;
  qstate q = {.g = g, .nt0 = g->n_tensors, .nn0 = g->n_nodes, .per_tensor = o->quant_per_tensor};
  q.texp = calloc((size_t)q.nt0 + 1, sizeof *q.texp);
  q.have = calloc((size_t)q.nt0 + 1, 1), q.willq = calloc((size_t)q.nt0 + 1, 1), q.kind = calloc((size_t)q.nn0 + 1, 1);
  q.qtwin = calloc((size_t)q.nt0 + 1, sizeof *q.qtwin);
  q.orig = calloc((size_t)q.nn0 + 1, sizeof *q.orig);
  q.cb.absmax = calloc((size_t)q.nt0 + 1, sizeof(float));
  if (!q.texp || !q.have || !q.willq || !q.kind || !q.qtwin || !q.orig || !q.cb.absmax)
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  const ovta_tensor *missing = rc ? NULL : q_classify(&q);
  if (missing) rc = q_calibrate(&q, o, missing, err);
  if (!rc) rc = q_concat_exps(&q, err);
  for (int j = 0; !rc && j < q.nn0; j++) {
    if (!q.kind[j]) continue;
    ovta_node *n = q.orig[j];
    int i = px_node_index(g, n);
    rc = q.kind[j] == QK_FLAT     ? q_flatten(&q, n, &i, err)
         : q.kind[j] == QK_CONCAT ? q_concat(&q, n, &i, err)
         : q.kind[j] == QK_POOL ? q_pool(&q, n, &i, err)
         : q.kind[j] == QK_GAP  ? q_gap(&q, n, &i, err)
         : q.kind[j] == QK_ADD  ? q_add(&q, n, &i, err)
                                : q_linear(&q, n, &i, err);
  }
  if (!rc) rc = ovta_graph_index(g, err);
  free(q.texp), free(q.have), free(q.willq), free(q.kind), free(q.qtwin), free(q.orig), free(q.cb.absmax);
  if (rc) return rc;
  return pass_dce(g, o, err);
}
