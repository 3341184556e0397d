/* infer.c: per-operator attribute validation and shape/type inference with ONNX semantics
 * (graph.h section 7). The ONNX rule of each operator stands above its function.
 *
 * Inference also makes defaults explicit where later layers need them: Conv/pools get
 * kernel_shape, strides, dilations, pads (auto_pad resolved to NOTSET) and group.
 * Nodes use the opset-13+ forms (the ONNX importer upgrades older ones).
 * Nodes whose inputs are in a packed layout (after the "pack" pass) keep the output types the
 * pass gave them.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"

typedef struct ctx {
  ovta_graph *g;    /* the graph */
  ovta_node *n;     /* the node being inferred */
  ovta_error *err;  /* where errors go */
} ctx;

__attribute__((format(printf, 3, 4))) static int bad(ctx *c, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return OVTA_FAIL(c->err, code, "%s: node '%s' (%s): %s", c->g->origin[0] ? c->g->origin : c->g->name, c->n->name,
                   c->n->op, msg);
}

/* ---------------------------------------------------------------- helpers */

static ovta_tensor *in(ctx *c, int i) { return ovta_node_in(c->n, i); }

/* Input i must be present with a known type and rank. */
static int need(ctx *c, int i, ovta_tensor **t) {
  *t = in(c, i);
  if (!*t) return bad(c, OVTA_EINVAL, "input %d is missing", i);
  if ((*t)->dtype == OVTA_DT_UNDEF || (*t)->rank < 0)
    return bad(c, OVTA_EINVAL, "input %d '%s' has no known type/shape (is it produced before use?)", i, (*t)->name);
  return OVTA_OK;
}

static int count_io(ctx *c, int min_in, int max_in, int min_out, int max_out) {
  int ni = c->n->n_inputs, no = c->n->n_outputs;
  while (ni > 0 && !c->n->inputs[ni - 1]) ni--;
  if (ni < min_in || ni > max_in)
    return bad(c, OVTA_EINVAL, "needs %d..%d inputs, has %d", min_in, max_in, c->n->n_inputs);
  if (no < min_out || no > max_out)
    return bad(c, OVTA_EINVAL, "needs %d..%d outputs, has %d", min_out, max_out, no);
  for (int i = 0; i < min_out; i++)
    if (!c->n->outputs[i]) return bad(c, OVTA_EINVAL, "output %d is missing", i);
  return OVTA_OK;
}

static int set_out(ctx *c, int k, ovta_dtype dt, int rank, const int64_t *shape) {
  if (k >= c->n->n_outputs || !c->n->outputs[k]) return OVTA_OK;
  ovta_tensor *o = c->n->outputs[k];
  if (rank > OVTA_MAX_RANK) return bad(c, OVTA_EUNSUPPORTED, "output rank %d is above %d", rank, OVTA_MAX_RANK);
  for (int i = 0; i < rank; i++)
    if (shape[i] > ((int64_t)1 << 40)) return bad(c, OVTA_EINVAL, "output dim %d is too large (%lld)", i, (long long)shape[i]);
  if (rank >= 0 && ovta_shape_numel(shape, rank) < 0) {
    bool known = true;
    for (int i = 0; i < rank; i++) known &= shape[i] >= 0;
    if (known) return bad(c, OVTA_EINVAL, "the element count of output '%s' overflows", o->name);
  }
  o->dtype = dt;
  if (o->rank != rank || memcmp(o->shape, shape, sizeof(int64_t) * (size_t)(rank > 0 ? rank : 0)))
    for (int i = 0; i < OVTA_MAX_RANK; i++) {
      free(o->dim_names[i]);
      o->dim_names[i] = NULL;
    }
  o->rank = rank;
  for (int i = 0; i < rank; i++) o->shape[i] = shape[i];
  return OVTA_OK;
}

static int same_as(ctx *c, int k, const ovta_tensor *t) { return set_out(c, k, t->dtype, t->rank, t->shape); }

static bool is_float(ovta_dtype t) { return t == OVTA_DT_F32 || t == OVTA_DT_F16 || t == OVTA_DT_F64; }

/* Only the listed attributes (comma-separated) may appear. */
static int allow(ctx *c, const char *names) {
  for (int i = 0; i < c->n->n_attrs; i++) {
    const char *a = c->n->attrs[i].name;
    size_t l = strlen(a);
    const char *p = names;
    bool ok = false;
    while (p && *p) {
      const char *q = strchr(p, ',');
      size_t m = q ? (size_t)(q - p) : strlen(p);
      if (m == l && strncmp(p, a, l) == 0) ok = true;
      p = q ? q + 1 : NULL;
    }
    if (!ok) return bad(c, OVTA_EUNSUPPORTED, "attribute '%s' is not supported", a);
  }
  return OVTA_OK;
}

static int attr_type(ctx *c, const char *name, ovta_attr_type ty) {
  const ovta_attr *a = ovta_node_attr(c->n, name);
  if (a && a->type != ty) {
    /* an integral FLOAT attribute written as INT in JSON is fine */
    if (ty == OVTA_ATTR_FLOAT && a->type == OVTA_ATTR_INT) return OVTA_OK;
    return bad(c, OVTA_EINVAL, "attribute '%s' has the wrong type", name);
  }
  return OVTA_OK;
}

/* A constant integer vector input (axes, pads, shape); *cnt = -1 when absent. */
static int const_ints(ctx *c, int i, int64_t *v, int max, int *cnt) {
  ovta_tensor *t = in(c, i);
  *cnt = -1;
  if (!t) return OVTA_OK;
  if (!t->data) return bad(c, OVTA_EUNSUPPORTED, "input %d '%s' must be a constant", i, t->name);
  if (t->dtype != OVTA_DT_I64 && t->dtype != OVTA_DT_I32)
    return bad(c, OVTA_EINVAL, "input %d '%s' must be int64", i, t->name);
  if (t->rank > 1) return bad(c, OVTA_EINVAL, "input %d '%s' must be 1-D", i, t->name);
  int64_t n = ovta_tensor_numel(t);
  if (n > max) return bad(c, OVTA_EINVAL, "input %d '%s' has too many values (%lld)", i, t->name, (long long)n);
  for (int64_t k = 0; k < n; k++) v[k] = ovta_tensor_get_i(t, k);
  *cnt = (int)n;
  return OVTA_OK;
}

/* Normalize axis into [0, r) (or [0, r] when `inclusive`). */
static int norm_axis(ctx *c, int64_t *axis, int r, bool inclusive, const char *what) {
  int64_t hi = inclusive ? r : r - 1;
  if (*axis < -r || *axis > hi)
    return bad(c, OVTA_EINVAL, "%s %lld is out of range for rank %d", what, (long long)*axis, r);
  if (*axis < 0) *axis += r;
  return OVTA_OK;
}

/* ONNX multidirectional broadcasting: align right; dims equal, or one of them is 1. */
static int broadcast(ctx *c, const ovta_tensor *a, const ovta_tensor *b, int *rank, int64_t *shape) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
    if (da == db || db == 1) shape[i] = da;
    else if (da == 1) shape[i] = db;
    else if (da < 0 || db < 0) shape[i] = da < 0 ? db : da;
    else return bad(c, OVTA_EINVAL, "shapes of '%s' and '%s' do not broadcast (dim %d: %lld vs %lld)", a->name, b->name, i,
                     (long long)da, (long long)db);
  }
  *rank = r;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- elementwise */

/* Relu, Sigmoid, Tanh, HardSwish, Identity, Neg, Abs, Exp: Y has X's type and shape.
 * LeakyRelu: alpha (float, default 0.01). HardSigmoid: alpha (0.2), beta (0.5). */
static int infer_unary(ctx *c) {
  int rc;
  ovta_tensor *x;
  const char *op = c->n->op;
  if (!strcmp(op, "LeakyRelu")) rc = allow(c, "alpha") || attr_type(c, "alpha", OVTA_ATTR_FLOAT);
  else if (!strcmp(op, "HardSigmoid"))
    rc = allow(c, "alpha,beta") || attr_type(c, "alpha", OVTA_ATTR_FLOAT) || attr_type(c, "beta", OVTA_ATTR_FLOAT);
  else rc = allow(c, "");
  if (rc || (rc = count_io(c, 1, 1, 1, 1)) || (rc = need(c, 0, &x))) return c->err->code;
  if (strcmp(op, "Identity") && strcmp(op, "Relu") && strcmp(op, "Neg") && strcmp(op, "Abs") && !is_float(x->dtype))
    return bad(c, OVTA_EINVAL, "input '%s' must be a float tensor, is %s", x->name, ovta_dtype_name(x->dtype));
  return same_as(c, 0, x);
}

/* Clip (11+): Y = min(max(X, min), max); min/max optional scalar inputs of X's type. */
static int infer_clip(ctx *c) {
  ovta_tensor *x;
  if (allow(c, "") || count_io(c, 1, 3, 1, 1) || need(c, 0, &x)) return c->err->code;
  for (int i = 1; i <= 2; i++) {
    ovta_tensor *b = in(c, i);
    if (b && (b->dtype != x->dtype || (b->rank > 0 && ovta_tensor_numel(b) != 1)))
      return bad(c, OVTA_EINVAL, "input %d '%s' must be a scalar of type %s", i, b->name, ovta_dtype_name(x->dtype));
  }
  return same_as(c, 0, x);
}

/* Add, Sub, Mul, Div (7+): A and B of the same type, multidirectional broadcasting. */
static int infer_binary(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, "") || count_io(c, 2, 2, 1, 1) || need(c, 0, &a) || need(c, 1, &b)) return c->err->code;
  if (a->dtype != b->dtype)
    return bad(c, OVTA_EINVAL, "inputs '%s' (%s) and '%s' (%s) differ in type", a->name, ovta_dtype_name(a->dtype), b->name,
               ovta_dtype_name(b->dtype));
  if (broadcast(c, a, b, &r, s)) return c->err->code;
  return set_out(c, 0, a->dtype, r, s);
}

/* Softmax (13+): axis (default -1) in [-r, r-1]; Y has X's type and shape. */
static int infer_softmax(ctx *c) {
  ovta_tensor *x;
  if (allow(c, "axis") || attr_type(c, "axis", OVTA_ATTR_INT) || count_io(c, 1, 1, 1, 1) || need(c, 0, &x))
    return c->err->code;
  int64_t axis = ovta_node_attr_i(c->n, "axis", -1);
  if (!is_float(x->dtype)) return bad(c, OVTA_EINVAL, "input must be float");
  if (norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  return same_as(c, 0, x);
}

/* ---------------------------------------------------------------- convolution and pooling */

/* Window attributes shared by Conv and the pools, made explicit. */
typedef struct win {
  int nsp;                        /* spatial dims */
  int64_t k[OVTA_MAX_RANK];       /* kernel_shape */
  int64_t s[OVTA_MAX_RANK];       /* strides */
  int64_t d[OVTA_MAX_RANK];       /* dilations */
  int64_t p[2 * OVTA_MAX_RANK];   /* pads: begins then ends */
} win;

static int ints_attr(ctx *c, const char *name, int want, int64_t *v, int64_t dflt, int64_t min) {
  const ovta_attr *a = ovta_node_attr(c->n, name);
  if (!a) {
    for (int i = 0; i < want; i++) v[i] = dflt;
    return OVTA_OK;
  }
  if (a->type != OVTA_ATTR_INTS) return bad(c, OVTA_EINVAL, "attribute '%s' must be a list of ints", name);
  if (a->n != want) return bad(c, OVTA_EINVAL, "attribute '%s' needs %d values, has %d", name, want, a->n);
  for (int i = 0; i < want; i++) {
    if (a->ints[i] < min || a->ints[i] > (1 << 20))
      return bad(c, OVTA_EINVAL, "attribute '%s'[%d] = %lld is out of range", name, i, (long long)a->ints[i]);
    v[i] = a->ints[i];
  }
  return OVTA_OK;
}

/* Output spatial dims of a window op over x (dims 2..), per the ONNX Conv/pool rules:
 *   NOTSET: out = floor((in + pb + pe - ((k-1)*d + 1)) / s) + 1   (ceil with ceil_mode)
 *   VALID:  out = ceil((in - ((k-1)*d + 1) + 1) / s), no padding
 *   SAME_UPPER / SAME_LOWER: out = ceil(in / s); total pad = max(0, (out-1)*s + (k-1)*d + 1 - in),
 *   split evenly, the odd one at the end (UPPER) or beginning (LOWER).
 * Rewrites the node's attributes to the explicit form (auto_pad NOTSET, explicit pads). */
static int window(ctx *c, const ovta_tensor *x, win *w, bool dil, bool ceil_mode, int64_t *out) {
  w->nsp = x->rank - 2;
  int nsp = w->nsp;
  if (nsp < 1) return bad(c, OVTA_EINVAL, "input '%s' must have rank >= 3, has %d", x->name, x->rank);
  if (ints_attr(c, "strides", nsp, w->s, 1, 1) || ints_attr(c, "pads", 2 * nsp, w->p, 0, 0)) return c->err->code;
  if (dil ? ints_attr(c, "dilations", nsp, w->d, 1, 1) : OVTA_OK) return c->err->code;
  if (!dil)
    for (int i = 0; i < nsp; i++) w->d[i] = 1;
  const char *ap = ovta_node_attr_s(c->n, "auto_pad", "NOTSET");
  bool same_u = !strcmp(ap, "SAME_UPPER"), same_l = !strcmp(ap, "SAME_LOWER"), valid = !strcmp(ap, "VALID");
  if (!same_u && !same_l && !valid && strcmp(ap, "NOTSET"))
    return bad(c, OVTA_EINVAL, "auto_pad '%s' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID", ap);
  if (strcmp(ap, "NOTSET") && ovta_node_attr(c->n, "pads"))
    return bad(c, OVTA_EINVAL, "pads and auto_pad %s cannot be used together", ap);
  for (int i = 0; i < nsp; i++) {
    int64_t in = x->shape[2 + i], ek = (w->k[i] - 1) * w->d[i] + 1;
    if (in < 0) {
      out[i] = -1;
      continue;
    }
    if (same_u || same_l) {
      int64_t o = (in + w->s[i] - 1) / w->s[i];
      int64_t tot = (o - 1) * w->s[i] + ek - in;
      if (tot < 0) tot = 0;
      w->p[i] = same_u ? tot / 2 : tot - tot / 2;
      w->p[nsp + i] = tot - w->p[i];
      out[i] = o;
      continue;
    }
    if (valid) w->p[i] = w->p[nsp + i] = 0;
    int64_t span = in + w->p[i] + w->p[nsp + i] - ek;
    if (span < 0)
      return bad(c, OVTA_EINVAL, "the window (%lld, dilated) is larger than the padded input dim %d (%lld)", (long long)ek,
                 2 + i, (long long)(in + w->p[i] + w->p[nsp + i]));
    out[i] = (ceil_mode ? (span + w->s[i] - 1) / w->s[i] : span / w->s[i]) + 1;
    /* ONNX (like PyTorch) drops a last window that would start entirely in the end padding */
    if (ceil_mode && (out[i] - 1) * w->s[i] >= in + w->p[i]) out[i]--;
  }
  ovta_error *e = c->err;
  if (ovta_node_set_ints(c->n, "kernel_shape", w->k, nsp, e) || ovta_node_set_ints(c->n, "strides", w->s, nsp, e) ||
      ovta_node_set_ints(c->n, "pads", w->p, 2 * nsp, e) ||
      (dil && ovta_node_set_ints(c->n, "dilations", w->d, nsp, e)))
    return e->code;
  if (ovta_node_attr(c->n, "auto_pad") && ovta_node_set_s(c->n, "auto_pad", "NOTSET", e)) return e->code;
  return OVTA_OK;
}

/* Conv shape rule (Conv 11, ConvInteger 10, QLinearConv 10, ovta.Conv/QConv):
 * X [N, C, D1..Dn], W [M, C/group, k1..kn], optional B [M]; group (default 1) divides C and M;
 * kernel_shape (if given) equals W's spatial dims. Y [N, M, out1..outn] (see window()). */
static int conv_shape(ctx *c, const ovta_tensor *x, const ovta_tensor *w, const ovta_tensor *b, int *rank, int64_t *s) {
  if (w->rank != x->rank) return bad(c, OVTA_EINVAL, "weight '%s' has rank %d, input has %d", w->name, w->rank, x->rank);
  win wn;
  int nsp = x->rank - 2;
  if (nsp < 1) return bad(c, OVTA_EINVAL, "input '%s' must have rank >= 3", x->name);
  for (int i = 0; i < nsp; i++) wn.k[i] = w->shape[2 + i];
  const ovta_attr *ks = ovta_node_attr(c->n, "kernel_shape");
  if (ks) {
    if (ks->type != OVTA_ATTR_INTS || ks->n != nsp) return bad(c, OVTA_EINVAL, "kernel_shape needs %d ints", nsp);
    for (int i = 0; i < nsp; i++)
      if (w->shape[2 + i] >= 0 && ks->ints[i] != w->shape[2 + i])
        return bad(c, OVTA_EINVAL, "kernel_shape[%d] = %lld does not match weight '%s' (%lld)", i, (long long)ks->ints[i],
                   w->name, (long long)w->shape[2 + i]);
  }
  for (int i = 0; i < nsp; i++)
    if (wn.k[i] < 1) return bad(c, OVTA_EINVAL, "weight '%s' needs known spatial dims >= 1", w->name);
  const ovta_attr *ga = ovta_node_attr(c->n, "group");
  if (ga && ga->type != OVTA_ATTR_INT) return bad(c, OVTA_EINVAL, "attribute 'group' must be an int");
  int64_t group = ga ? ga->i : 1;
  int64_t C = x->shape[1], M = w->shape[0];
  if (group < 1) return bad(c, OVTA_EINVAL, "group %lld must be >= 1", (long long)group);
  if (C >= 0 && (C % group || w->shape[1] * group != C))
    return bad(c, OVTA_EINVAL, "input channels %lld do not match group %lld x weight channels %lld", (long long)C,
               (long long)group, (long long)w->shape[1]);
  if (M >= 0 && M % group) return bad(c, OVTA_EINVAL, "output channels %lld are not a multiple of group %lld", (long long)M, (long long)group);
  if (b && (b->rank != 1 || (M >= 0 && b->shape[0] != M)))
    return bad(c, OVTA_EINVAL, "bias '%s' must have shape [%lld]", b->name, (long long)M);
  if (ovta_node_set_i(c->n, "group", group, c->err)) return c->err->code;
  *rank = x->rank;
  s[0] = x->shape[0];
  s[1] = M;
  return window(c, x, &wn, true, false, s + 2);
}

#define CONV_ATTRS "auto_pad,dilations,group,kernel_shape,pads,strides"

/* Conv (11): X, W, optional B, all of one float type. */
static int infer_conv(ctx *c) {
  ovta_tensor *x, *w, *b = in(c, 2);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, CONV_ATTRS) || count_io(c, 2, 3, 1, 1) || need(c, 0, &x) || need(c, 1, &w) || (b && need(c, 2, &b)))
    return c->err->code;
  if (!is_float(x->dtype) || w->dtype != x->dtype || (b && b->dtype != x->dtype))
    return bad(c, OVTA_EINVAL, "X, W and B must be of one float type");
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return set_out(c, 0, x->dtype, r, s);
}

static const char *const ACTS[] = {"none", "relu", "clip", "leakyrelu", "sigmoid", "tanh", "hardsigmoid", "hardswish", NULL};

static int check_act(ctx *c) {
  const char *a = ovta_node_attr_s(c->n, "act", "none");
  for (int i = 0; ACTS[i]; i++)
    if (!strcmp(a, ACTS[i])) return OVTA_OK;
  return bad(c, OVTA_EINVAL, "unknown activation '%s'", a);
}

/* ovta.Conv: Conv + bias + activation (graph.h). */
static int infer_fconv(ctx *c) {
  ovta_tensor *x, *w, *b = in(c, 2);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, CONV_ATTRS ",act,act_min,act_max,act_alpha,act_beta") || check_act(c) || count_io(c, 2, 3, 1, 1) ||
      need(c, 0, &x) || need(c, 1, &w) || (b && need(c, 2, &b)))
    return c->err->code;
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return set_out(c, 0, x->dtype, r, s);
}

/* ovta.QConv: int8 conv + int32 bias + requantize + clip (graph.h). */
static int infer_qconv(ctx *c) {
  ovta_tensor *x, *w, *b = in(c, 2);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, CONV_ATTRS ",shift,clip_min,clip_max") || count_io(c, 2, 3, 1, 1) || need(c, 0, &x) || need(c, 1, &w) ||
      (b && need(c, 2, &b)))
    return c->err->code;
  if (x->dtype != OVTA_DT_I8 || w->dtype != OVTA_DT_I8 || (b && b->dtype != OVTA_DT_I32))
    return bad(c, OVTA_EINVAL, "X and W must be i8 and B i32");
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return set_out(c, 0, OVTA_DT_I8, r, s);
}

/* ConvInteger (10): x, w (u8/i8), optional x_zero_point, w_zero_point; Y int32, Conv shape. */
static int infer_convinteger(ctx *c) {
  ovta_tensor *x, *w;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, CONV_ATTRS) || count_io(c, 2, 4, 1, 1) || need(c, 0, &x) || need(c, 1, &w)) return c->err->code;
  if ((x->dtype != OVTA_DT_U8 && x->dtype != OVTA_DT_I8) || (w->dtype != OVTA_DT_U8 && w->dtype != OVTA_DT_I8))
    return bad(c, OVTA_EINVAL, "x and w must be u8 or i8");
  if (conv_shape(c, x, w, NULL, &r, s)) return c->err->code;
  return set_out(c, 0, OVTA_DT_I32, r, s);
}

/* QLinearConv (10): x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
 * optional B (int32); Y has y_zero_point's type, the Conv shape. */
static int infer_qlinearconv(ctx *c) {
  ovta_tensor *x, *w, *yz, *b = in(c, 8);
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, CONV_ATTRS) || count_io(c, 8, 9, 1, 1) || need(c, 0, &x) || need(c, 3, &w) || need(c, 7, &yz) ||
      (b && need(c, 8, &b)))
    return c->err->code;
  if (b && b->dtype != OVTA_DT_I32) return bad(c, OVTA_EINVAL, "B must be int32");
  if (conv_shape(c, x, w, b, &r, s)) return c->err->code;
  return set_out(c, 0, yz->dtype, r, s);
}

/* MaxPool (12) / AveragePool (11): X [N, C, D...]; kernel_shape required; strides, pads,
 * auto_pad, ceil_mode; MaxPool: dilations, storage_order, optional Indices output (int64);
 * AveragePool: count_include_pad. Y [N, C, out...] (window()). */
static int infer_pool(ctx *c) {
  bool q = !strcmp(c->n->op, "ovta.QMaxPool"), mx = q || !strcmp(c->n->op, "MaxPool");
  ovta_tensor *x;
  if (allow(c, q    ? "auto_pad,ceil_mode,dilations,kernel_shape,pads,strides"
               : mx ? "auto_pad,ceil_mode,dilations,kernel_shape,pads,storage_order,strides"
                    : "auto_pad,ceil_mode,count_include_pad,kernel_shape,pads,strides") ||
      count_io(c, 1, 1, 1, mx && !q ? 2 : 1) || need(c, 0, &x))
    return c->err->code;
  if (q && x->dtype != OVTA_DT_I8) return bad(c, OVTA_EINVAL, "X must be i8");
  const ovta_attr *ks = ovta_node_attr(c->n, "kernel_shape");
  int nsp = x->rank - 2;
  if (nsp < 1) return bad(c, OVTA_EINVAL, "input must have rank >= 3");
  if (!ks || ks->type != OVTA_ATTR_INTS || ks->n != nsp)
    return bad(c, OVTA_EINVAL, "attribute 'kernel_shape' (%d ints) is required", nsp);
  win w;
  for (int i = 0; i < nsp; i++) {
    if (ks->ints[i] < 1 || ks->ints[i] > (1 << 20)) return bad(c, OVTA_EINVAL, "kernel_shape[%d] is out of range", i);
    w.k[i] = ks->ints[i];
  }
  int64_t s[OVTA_MAX_RANK];
  s[0] = x->shape[0], s[1] = x->shape[1];
  int64_t cm = ovta_node_attr_i(c->n, "ceil_mode", 0);
  if (cm != 0 && cm != 1) return bad(c, OVTA_EINVAL, "ceil_mode must be 0 or 1");
  if (window(c, x, &w, mx, cm != 0, s + 2)) return c->err->code;
  for (int i = 0; i < nsp; i++)
    if (w.p[i] >= w.k[i] || w.p[nsp + i] >= w.k[i])
      return bad(c, OVTA_EINVAL, "pad %lld is not smaller than the kernel %lld in dim %d", (long long)w.p[i], (long long)w.k[i], i);
  if (set_out(c, 0, x->dtype, x->rank, s)) return c->err->code;
  return set_out(c, 1, OVTA_DT_I64, x->rank, s);
}

/* ovta.QAdd (graph.h): A, B i8 of one shape (no broadcasting) -> Y i8 of that shape;
 * shift_a, shift_b in 0..31. */
static int infer_qadd(ctx *c) {
  ovta_tensor *a, *b;
  if (allow(c, "shift_a,shift_b,shift,clip_min,clip_max") || count_io(c, 2, 2, 1, 1) || need(c, 0, &a) ||
      need(c, 1, &b))
    return c->err->code;
  if (a->dtype != OVTA_DT_I8 || b->dtype != OVTA_DT_I8) return bad(c, OVTA_EINVAL, "A and B must be i8");
  if (a->rank != b->rank || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)(a->rank > 0 ? a->rank : 0)))
    return bad(c, OVTA_EINVAL, "A and B must have the same shape (no broadcasting)");
  int64_t sa = ovta_node_attr_i(c->n, "shift_a", 0), sb = ovta_node_attr_i(c->n, "shift_b", 0);
  if (sa < 0 || sa > 31 || sb < 0 || sb > 31) return bad(c, OVTA_EINVAL, "shift_a and shift_b must be 0..31");
  return set_out(c, 0, OVTA_DT_I8, a->rank, a->shape);
}

/* GlobalAveragePool (1): X [N, C, D...] -> Y [N, C, 1, ...]. */
static int infer_gap(ctx *c) {
  ovta_tensor *x;
  if (allow(c, "") || count_io(c, 1, 1, 1, 1) || need(c, 0, &x)) return c->err->code;
  if (x->rank < 3) return bad(c, OVTA_EINVAL, "input must have rank >= 3");
  int64_t s[OVTA_MAX_RANK];
  s[0] = x->shape[0], s[1] = x->shape[1];
  for (int i = 2; i < x->rank; i++) s[i] = 1;
  return set_out(c, 0, x->dtype, x->rank, s);
}

/* BatchNormalization (9/14/15), inference: X [N, C, ...], scale, B, input_mean, input_var all
 * [C]; Y = scale * (X - mean) / sqrt(var + epsilon) + B. training_mode must be 0 (the extra
 * training outputs are not supported). */
static int infer_bn(ctx *c) {
  ovta_tensor *x, *p;
  if (allow(c, "epsilon,momentum,spatial,training_mode") || attr_type(c, "epsilon", OVTA_ATTR_FLOAT) ||
      count_io(c, 5, 5, 1, 1) || need(c, 0, &x))
    return c->err->code;
  if (ovta_node_attr_i(c->n, "training_mode", 0) != 0) return bad(c, OVTA_EUNSUPPORTED, "training_mode 1 is not supported");
  if (ovta_node_attr_i(c->n, "spatial", 1) != 1) return bad(c, OVTA_EUNSUPPORTED, "spatial 0 is not supported");
  if (x->rank < 2 || !is_float(x->dtype)) return bad(c, OVTA_EINVAL, "X must be a float tensor of rank >= 2");
  for (int i = 1; i < 5; i++) {
    if (need(c, i, &p)) return c->err->code;
    if (p->rank != 1 || (x->shape[1] >= 0 && p->shape[0] != x->shape[1]))
      return bad(c, OVTA_EINVAL, "input %d '%s' must have shape [%lld]", i, p->name, (long long)x->shape[1]);
  }
  return same_as(c, 0, x);
}

/* ---------------------------------------------------------------- dense */

/* Gemm (11/13): Y = alpha * A' * B' + beta * C; A' = transA ? A^T : A [M, K], B' [K, N];
 * C optional, unidirectionally broadcastable to [M, N]. */
static int infer_gemm(ctx *c) {
  ovta_tensor *a, *b, *cc = in(c, 2);
  if (allow(c, "alpha,beta,transA,transB") || attr_type(c, "alpha", OVTA_ATTR_FLOAT) ||
      attr_type(c, "beta", OVTA_ATTR_FLOAT) || count_io(c, 2, 3, 1, 1) || need(c, 0, &a) || need(c, 1, &b) ||
      (cc && need(c, 2, &cc)))
    return c->err->code;
  if (a->rank != 2 || b->rank != 2) return bad(c, OVTA_EINVAL, "A and B must be 2-D");
  if (b->dtype != a->dtype || (cc && cc->dtype != a->dtype)) return bad(c, OVTA_EINVAL, "A, B and C differ in type");
  bool ta = ovta_node_attr_i(c->n, "transA", 0), tb = ovta_node_attr_i(c->n, "transB", 0);
  int64_t M = a->shape[ta ? 1 : 0], K = a->shape[ta ? 0 : 1], K2 = b->shape[tb ? 1 : 0], N = b->shape[tb ? 0 : 1];
  if (K >= 0 && K2 >= 0 && K != K2) return bad(c, OVTA_EINVAL, "inner dims differ: %lld vs %lld", (long long)K, (long long)K2);
  int64_t s[2] = {M, N};
  if (cc) {
    if (cc->rank > 2) return bad(c, OVTA_EINVAL, "C must have rank <= 2");
    for (int i = 0; i < cc->rank; i++) {
      int64_t d = cc->shape[i], want = s[2 - cc->rank + i];
      if (d != 1 && d != want && d >= 0 && want >= 0)
        return bad(c, OVTA_EINVAL, "C '%s' does not broadcast to [%lld, %lld]", cc->name, (long long)M, (long long)N);
    }
  }
  return set_out(c, 0, a->dtype, 2, s);
}

/* numpy matmul shapes (MatMul 13, MatMulInteger 10, QLinearMatMul 10): 1-D A gets a leading 1
 * (then dropped), 1-D B a trailing 1 (then dropped); batch dims broadcast. */
static int matmul_shape(ctx *c, const ovta_tensor *a, const ovta_tensor *b, int *rank, int64_t *s) {
  if (a->rank < 1 || b->rank < 1) return bad(c, OVTA_EINVAL, "inputs must have rank >= 1");
  ovta_tensor aa = *a, bb = *b;
  if (a->rank == 1) aa.rank = 2, aa.shape[0] = 1, aa.shape[1] = a->shape[0];
  if (b->rank == 1) bb.rank = 2, bb.shape[0] = b->shape[0], bb.shape[1] = 1;
  int64_t K = aa.shape[aa.rank - 1], K2 = bb.shape[bb.rank - 2];
  if (K >= 0 && K2 >= 0 && K != K2)
    return bad(c, OVTA_EINVAL, "inner dims differ: '%s' has %lld, '%s' has %lld", a->name, (long long)K, b->name, (long long)K2);
  ovta_tensor ba = aa, bbb = bb;
  ba.rank -= 2, bbb.rank -= 2;
  int r;
  if (broadcast(c, &ba, &bbb, &r, s)) return c->err->code;
  if (a->rank != 1) s[r++] = aa.shape[aa.rank - 2];
  if (b->rank != 1) s[r++] = bb.shape[bb.rank - 1];
  *rank = r;
  return OVTA_OK;
}

/* MatMul (13): float or int A, B of one type. */
static int infer_matmul(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, "") || count_io(c, 2, 2, 1, 1) || need(c, 0, &a) || need(c, 1, &b)) return c->err->code;
  if (a->dtype != b->dtype) return bad(c, OVTA_EINVAL, "A and B differ in type");
  if (matmul_shape(c, a, b, &r, s)) return c->err->code;
  return set_out(c, 0, a->dtype, r, s);
}

/* MatMulInteger (10): A, B (u8/i8), optional zero points; Y int32. */
static int infer_matmulinteger(ctx *c) {
  ovta_tensor *a, *b;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, "") || count_io(c, 2, 4, 1, 1) || need(c, 0, &a) || need(c, 1, &b)) return c->err->code;
  if (matmul_shape(c, a, b, &r, s)) return c->err->code;
  return set_out(c, 0, OVTA_DT_I32, r, s);
}

/* QLinearMatMul (10): a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp; Y has y_zp's type. */
static int infer_qlinearmatmul(ctx *c) {
  ovta_tensor *a, *b, *yz;
  int r;
  int64_t s[OVTA_MAX_RANK];
  if (allow(c, "") || count_io(c, 8, 8, 1, 1) || need(c, 0, &a) || need(c, 3, &b) || need(c, 7, &yz)) return c->err->code;
  if (matmul_shape(c, a, b, &r, s)) return c->err->code;
  return set_out(c, 0, yz->dtype, r, s);
}

/* ovta.Dense: X [M, K], W [N, K], optional B [N] -> [M, N]; ovta.QDense the same in int8. */
static int infer_dense(ctx *c) {
  bool q = !strcmp(c->n->op, "ovta.QDense");
  ovta_tensor *x, *w, *b = in(c, 2);
  if (allow(c, q ? "shift,clip_min,clip_max" : "act,act_min,act_max,act_alpha,act_beta") || (!q && check_act(c)) ||
      count_io(c, 2, 3, 1, 1) || need(c, 0, &x) || need(c, 1, &w) || (b && need(c, 2, &b)))
    return c->err->code;
  if (x->rank != 2 || w->rank != 2) return bad(c, OVTA_EINVAL, "X and W must be 2-D");
  if (x->shape[1] >= 0 && w->shape[1] >= 0 && x->shape[1] != w->shape[1])
    return bad(c, OVTA_EINVAL, "inner dims differ: %lld vs %lld", (long long)x->shape[1], (long long)w->shape[1]);
  if (b && (b->rank != 1 || b->shape[0] != w->shape[0])) return bad(c, OVTA_EINVAL, "B must have shape [%lld]", (long long)w->shape[0]);
  if (q && (x->dtype != OVTA_DT_I8 || w->dtype != OVTA_DT_I8 || (b && b->dtype != OVTA_DT_I32)))
    return bad(c, OVTA_EINVAL, "X and W must be i8 and B i32");
  int64_t s[2] = {x->shape[0], w->shape[0]};
  return set_out(c, 0, q ? OVTA_DT_I8 : x->dtype, 2, s);
}

/* ---------------------------------------------------------------- quantization ops */

/* QuantizeLinear (10/13): y = saturate(round(x / y_scale) + y_zero_point); Y has y_zero_point's
 * type (u8 when absent); scale/zero point scalars or 1-D along `axis` (default 1). */
static int infer_quantize(ctx *c) {
  ovta_tensor *x, *sc, *zp = in(c, 2);
  if (allow(c, "axis") || count_io(c, 2, 3, 1, 1) || need(c, 0, &x) || need(c, 1, &sc)) return c->err->code;
  if (!is_float(x->dtype) && x->dtype != OVTA_DT_I32) return bad(c, OVTA_EINVAL, "x must be float or int32");
  if (sc->rank > 1) return bad(c, OVTA_EINVAL, "y_scale must be a scalar or 1-D");
  if (sc->rank == 1) {
    int64_t ax = ovta_node_attr_i(c->n, "axis", 1);
    if (norm_axis(c, &ax, x->rank, false, "axis")) return c->err->code;
    if (sc->shape[0] != x->shape[ax]) return bad(c, OVTA_EINVAL, "y_scale has %lld values for axis size %lld",
                                                 (long long)sc->shape[0], (long long)x->shape[ax]);
  }
  ovta_dtype dt = zp ? zp->dtype : OVTA_DT_U8;
  if (dt != OVTA_DT_U8 && dt != OVTA_DT_I8) return bad(c, OVTA_EINVAL, "y_zero_point must be u8 or i8");
  return set_out(c, 0, dt, x->rank, x->shape);
}

/* DequantizeLinear (10/13): y = (x - x_zero_point) * x_scale; Y has x_scale's type. */
static int infer_dequantize(ctx *c) {
  ovta_tensor *x, *sc;
  if (allow(c, "axis") || count_io(c, 2, 3, 1, 1) || need(c, 0, &x) || need(c, 1, &sc)) return c->err->code;
  if (sc->rank > 1) return bad(c, OVTA_EINVAL, "x_scale must be a scalar or 1-D");
  return set_out(c, 0, sc->dtype, x->rank, x->shape);
}

/* ---------------------------------------------------------------- data movement */

/* Flatten (13): axis in [-r, r] (default 1); Y [prod(d0..d(axis-1)), prod(d(axis)..)]. */
static int infer_flatten(ctx *c) {
  ovta_tensor *x;
  if (allow(c, "axis") || count_io(c, 1, 1, 1, 1) || need(c, 0, &x)) return c->err->code;
  int64_t axis = ovta_node_attr_i(c->n, "axis", 1);
  if (norm_axis(c, &axis, x->rank, true, "axis")) return c->err->code;
  int64_t s[2] = {ovta_shape_numel(x->shape, (int)axis), ovta_shape_numel(x->shape + axis, x->rank - (int)axis)};
  return set_out(c, 0, x->dtype, 2, s);
}

/* Reshape (14): shape is a constant int64 input; 0 copies the input dim (unless allowzero=1),
 * at most one -1 is inferred from the element count. */
static int infer_reshape(ctx *c) {
  ovta_tensor *x;
  int64_t v[OVTA_MAX_RANK + 1];
  int n;
  if (allow(c, "allowzero") || count_io(c, 2, 2, 1, 1) || need(c, 0, &x) || const_ints(c, 1, v, OVTA_MAX_RANK, &n))
    return c->err->code;
  bool az = ovta_node_attr_i(c->n, "allowzero", 0) != 0;
  int neg = -1;
  int64_t known = 1;
  for (int i = 0; i < n; i++) {
    if (v[i] == 0 && !az) {
      if (i >= x->rank) return bad(c, OVTA_EINVAL, "shape[%d] = 0 copies a dim the input does not have", i);
      v[i] = x->shape[i];
    }
    if (v[i] == -1) {
      if (neg >= 0) return bad(c, OVTA_EINVAL, "shape has more than one -1");
      neg = i;
      continue;
    }
    if (v[i] < -1) return bad(c, OVTA_EINVAL, "shape[%d] = %lld is invalid", i, (long long)v[i]);
    if (v[i] < 0) known = -1;
    else if (known >= 0) known = ovta_shape_numel(&v[i], 1) >= 0 && (v[i] == 0 || known <= ((int64_t)1 << 62) / v[i]) ? known * v[i] : -2;
    if (known == -2) return bad(c, OVTA_EINVAL, "the element count of the new shape overflows");
  }
  int64_t total = ovta_tensor_numel(x);
  if (neg >= 0) {
    if (total < 0 || known < 0) v[neg] = -1;
    else if (known == 0 || total % known) return bad(c, OVTA_EINVAL, "cannot infer the -1 dim: %lld elements into %lld", (long long)total, (long long)known);
    else v[neg] = total / known;
  } else if (total >= 0 && known >= 0 && total != known) {
    return bad(c, OVTA_EINVAL, "cannot reshape %lld elements into %lld", (long long)total, (long long)known);
  }
  return set_out(c, 0, x->dtype, n, v);
}

/* Transpose (13): perm (default reversed dims) is a permutation of 0..r-1; Y[i] = X[perm[i]]. */
static int infer_transpose(ctx *c) {
  ovta_tensor *x;
  if (allow(c, "perm") || count_io(c, 1, 1, 1, 1) || need(c, 0, &x)) return c->err->code;
  int64_t perm[OVTA_MAX_RANK], s[OVTA_MAX_RANK];
  if (ints_attr(c, "perm", x->rank, perm, 0, 0)) return c->err->code;
  if (!ovta_node_attr(c->n, "perm"))
    for (int i = 0; i < x->rank; i++) perm[i] = x->rank - 1 - i;
  int seen = 0;
  for (int i = 0; i < x->rank; i++) {
    if (perm[i] >= x->rank || (seen & (1 << perm[i]))) return bad(c, OVTA_EINVAL, "perm is not a permutation of 0..%d", x->rank - 1);
    seen |= 1 << perm[i];
    s[i] = x->shape[perm[i]];
  }
  if (ovta_node_set_ints(c->n, "perm", perm, x->rank, c->err)) return c->err->code;
  return set_out(c, 0, x->dtype, x->rank, s);
}

/* Concat (13): axis required in [-r, r-1]; inputs of one type and rank, equal but on axis. */
static int infer_concat(ctx *c) {
  ovta_tensor *x, *y;
  if (allow(c, "axis") || count_io(c, 1, 4096, 1, 1) || need(c, 0, &x)) return c->err->code;
  if (!ovta_node_attr(c->n, "axis")) return bad(c, OVTA_EINVAL, "attribute 'axis' is required");
  int64_t axis = ovta_node_attr_i(c->n, "axis", 0);
  if (norm_axis(c, &axis, x->rank, false, "axis")) return c->err->code;
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, x->shape, sizeof s);
  for (int i = 1; i < c->n->n_inputs; i++) {
    if (need(c, i, &y)) return c->err->code;
    if (y->dtype != x->dtype || y->rank != x->rank) return bad(c, OVTA_EINVAL, "input %d '%s' differs in type or rank", i, y->name);
    for (int d = 0; d < x->rank; d++) {
      if (d == axis) s[d] = s[d] < 0 || y->shape[d] < 0 ? -1 : s[d] + y->shape[d];
      else if (y->shape[d] != x->shape[d]) return bad(c, OVTA_EINVAL, "input %d '%s' differs in dim %d", i, y->name, d);
    }
  }
  return set_out(c, 0, x->dtype, x->rank, s);
}

/* Pad (13/18): data, pads (constant int64 [2*r], or [2*len(axes)] with the axes input of 18),
 * optional constant_value scalar; mode constant|reflect|edge. Y dim i = d_i + begin_i + end_i. */
static int infer_pad(ctx *c) {
  ovta_tensor *x;
  int64_t p[2 * OVTA_MAX_RANK], ax[OVTA_MAX_RANK];
  int np, na;
  if (allow(c, "mode") || count_io(c, 2, 4, 1, 1) || need(c, 0, &x) || const_ints(c, 1, p, 2 * OVTA_MAX_RANK, &np) ||
      const_ints(c, 3, ax, OVTA_MAX_RANK, &na))
    return c->err->code;
  const char *mode = ovta_node_attr_s(c->n, "mode", "constant");
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge"))
    return bad(c, OVTA_EINVAL, "mode '%s' is not constant, reflect or edge", mode);
  if (np < 0) return bad(c, OVTA_EINVAL, "input 'pads' is missing");
  int r = x->rank;
  if (na < 0) {
    na = r;
    for (int i = 0; i < r; i++) ax[i] = i;
  }
  if (np != 2 * na) return bad(c, OVTA_EINVAL, "pads has %d values, needs %d", np, 2 * na);
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, x->shape, sizeof s);
  for (int i = 0; i < na; i++) {
    int64_t a = ax[i];
    if (norm_axis(c, &a, r, false, "axes value")) return c->err->code;
    if (s[a] < 0) continue;
    s[a] += p[i] + p[na + i];
    if (s[a] < 0) return bad(c, OVTA_EINVAL, "negative pads remove more than dim %lld holds", (long long)a);
  }
  ovta_tensor *v = in(c, 2);
  if (v && v->dtype != x->dtype) return bad(c, OVTA_EINVAL, "constant_value must have the data's type");
  return set_out(c, 0, x->dtype, r, s);
}

/* Squeeze (13): axes (optional constant int64 input): remove those dims (each must be 1);
 * without axes remove every dim of size 1. */
static int infer_squeeze(ctx *c) {
  ovta_tensor *x;
  int64_t ax[OVTA_MAX_RANK];
  int na;
  if (allow(c, "") || count_io(c, 1, 2, 1, 1) || need(c, 0, &x) || const_ints(c, 1, ax, OVTA_MAX_RANK, &na)) return c->err->code;
  bool drop[OVTA_MAX_RANK] = {0};
  if (na < 0) {
    for (int i = 0; i < x->rank; i++) {
      if (x->shape[i] < 0) return bad(c, OVTA_EUNSUPPORTED, "squeezing without axes needs known dims");
      drop[i] = x->shape[i] == 1;
    }
  } else {
    for (int i = 0; i < na; i++) {
      if (norm_axis(c, &ax[i], x->rank, false, "axes value")) return c->err->code;
      if (drop[ax[i]]) return bad(c, OVTA_EINVAL, "axis %lld is listed twice", (long long)ax[i]);
      if (x->shape[ax[i]] != 1 && x->shape[ax[i]] >= 0)
        return bad(c, OVTA_EINVAL, "dim %lld has size %lld, not 1", (long long)ax[i], (long long)x->shape[ax[i]]);
      drop[ax[i]] = true;
    }
  }
  int64_t s[OVTA_MAX_RANK];
  int r = 0;
  for (int i = 0; i < x->rank; i++)
    if (!drop[i]) s[r++] = x->shape[i];
  return set_out(c, 0, x->dtype, r, s);
}

/* Unsqueeze (13): axes (constant int64 input, required) in [-(r+k), r+k-1], no repeats: insert
 * dims of size 1 at those positions of the output. */
static int infer_unsqueeze(ctx *c) {
  ovta_tensor *x;
  int64_t ax[OVTA_MAX_RANK];
  int na;
  if (allow(c, "") || count_io(c, 2, 2, 1, 1) || need(c, 0, &x) || const_ints(c, 1, ax, OVTA_MAX_RANK, &na)) return c->err->code;
  int r = x->rank + na;
  if (r > OVTA_MAX_RANK) return bad(c, OVTA_EUNSUPPORTED, "output rank %d is above %d", r, OVTA_MAX_RANK);
  bool ins[OVTA_MAX_RANK] = {0};
  for (int i = 0; i < na; i++) {
    if (norm_axis(c, &ax[i], r, false, "axes value")) return c->err->code;
    if (ins[ax[i]]) return bad(c, OVTA_EINVAL, "axis %lld is listed twice", (long long)ax[i]);
    ins[ax[i]] = true;
  }
  int64_t s[OVTA_MAX_RANK];
  for (int i = 0, k = 0; i < r; i++) s[i] = ins[i] ? 1 : x->shape[k++];
  return set_out(c, 0, x->dtype, r, s);
}

/* Constant (13): the output is the value attribute (the importer turns these into constants;
 * JSON graphs may still hold them). */
static int infer_constant(ctx *c) {
  if (count_io(c, 0, 0, 1, 1)) return c->err->code;
  const ovta_attr *a = ovta_node_attr(c->n, "value");
  if (!a || a->type != OVTA_ATTR_TENSOR || c->n->n_attrs != 1)
    return bad(c, OVTA_EUNSUPPORTED, "only the 'value' tensor attribute is supported");
  return set_out(c, 0, a->t->dtype, a->t->rank, a->t->shape);
}

/* ---------------------------------------------------------------- fused ops */

static const char *const ELT_UNARY[] = {"Relu", "Sigmoid", "Tanh", "HardSwish", "Neg", "Abs", "Exp", "Identity", NULL};
static const char *const ELT_BINARY[] = {"Add", "Sub", "Mul", "Div", NULL};

static int in_list(const char *s, size_t n, const char *const *l) {
  for (int i = 0; l[i]; i++)
    if (strlen(l[i]) == n && !strncmp(l[i], s, n)) return 1;
  return 0;
}

/* ovta.Eltwise: the chain in "ops" (graph.h); the output broadcasts every input. */
static int infer_eltwise(ctx *c) {
  ovta_tensor *x, *y;
  if (allow(c, "ops") || need(c, 0, &x)) return c->err->code;
  const char *ops = ovta_node_attr_s(c->n, "ops", NULL);
  if (!ops || !*ops) return bad(c, OVTA_EINVAL, "attribute 'ops' is required");
  int nbin = 0;
  for (const char *p = ops; *p;) {
    const char *q = strchr(p, ',');
    size_t l = q ? (size_t)(q - p) : strlen(p);
    if (in_list(p, l, ELT_BINARY)) nbin++;
    else if (!in_list(p, l, ELT_UNARY)) return bad(c, OVTA_EINVAL, "'%.*s' is not an Eltwise op", (int)l, p);
    p = q ? q + 1 : p + l;
  }
  if (c->n->n_inputs != 1 + nbin || c->n->n_outputs != 1)
    return bad(c, OVTA_EINVAL, "needs %d inputs for its %d binary ops, and one output", 1 + nbin, nbin);
  ovta_tensor acc = *x;
  for (int i = 1; i <= nbin; i++) {
    if (need(c, i, &y)) return c->err->code;
    if (y->dtype != x->dtype) return bad(c, OVTA_EINVAL, "input %d differs in type", i);
    int r;
    int64_t s[OVTA_MAX_RANK];
    if (broadcast(c, &acc, y, &r, s)) return c->err->code;
    acc.rank = r;
    memcpy(acc.shape, s, sizeof s);
  }
  return set_out(c, 0, x->dtype, acc.rank, acc.shape);
}

/* The packed shape for a logical shape (ovta_layout in graph.h). */
static int packed_shape(ctx *c, ovta_layout l, const ovta_tensor *x, int64_t bt, int64_t bi, int64_t bo, int64_t *s) {
  int64_t d0 = x->shape[0], d1 = x->rank > 1 ? x->shape[1] : 1;
  int64_t h = x->rank == 4 ? x->shape[2] : 1, w = x->rank == 4 ? x->shape[3] : 1;
  if (l == OVTA_LAYOUT_ACC) {
    if (x->rank != 1) return bad(c, OVTA_EINVAL, "layout acc needs a 1-D input");
    s[0] = (d0 + bo - 1) / bo, s[1] = bo;
    return 2;
  }
  if (x->rank != 2 && x->rank != 4) return bad(c, OVTA_EINVAL, "packing needs a 2-D or 4-D input");
  for (int i = 0; i < x->rank; i++)
    if (x->shape[i] < 0) return bad(c, OVTA_EINVAL, "packing needs known dims");
  int64_t r0 = l == OVTA_LAYOUT_ACT ? bt : bo;
  s[0] = (d0 + r0 - 1) / r0, s[1] = (d1 + bi - 1) / bi, s[2] = h, s[3] = w, s[4] = r0, s[5] = bi;
  return 6;
}

/* ovta.Pack: layout, batch, block_in, block_out. ovta.Unpack: shape. */
static int infer_pack(ctx *c) {
  ovta_tensor *x;
  bool pack = !strcmp(c->n->op, "ovta.Pack");
  if (allow(c, pack ? "layout,batch,block_in,block_out" : "shape") || count_io(c, 1, 1, 1, 1) || need(c, 0, &x))
    return c->err->code;
  ovta_tensor *o = c->n->outputs[0];
  if (!pack) {
    const ovta_attr *a = ovta_node_attr(c->n, "shape");
    if (!a || a->type != OVTA_ATTR_INTS || a->n > OVTA_MAX_RANK) return bad(c, OVTA_EINVAL, "attribute 'shape' (ints) is required");
    if (set_out(c, 0, x->dtype, a->n, a->ints)) return c->err->code;
    o->layout = OVTA_LAYOUT_PLAIN;
    return OVTA_OK;
  }
  const char *ls = ovta_node_attr_s(c->n, "layout", "");
  ovta_layout l = !strcmp(ls, "act") ? OVTA_LAYOUT_ACT : !strcmp(ls, "wgt") ? OVTA_LAYOUT_WGT : !strcmp(ls, "acc") ? OVTA_LAYOUT_ACC : OVTA_LAYOUT_PLAIN;
  if (l == OVTA_LAYOUT_PLAIN) return bad(c, OVTA_EINVAL, "layout must be act, wgt or acc");
  int64_t bt = ovta_node_attr_i(c->n, "batch", 0), bi = ovta_node_attr_i(c->n, "block_in", 0), bo = ovta_node_attr_i(c->n, "block_out", 0);
  if (bt < 1 || bi < 1 || bo < 1 || bt > 4096 || bi > 4096 || bo > 4096) return bad(c, OVTA_EINVAL, "batch, block_in and block_out must be 1..4096");
  int64_t s[OVTA_MAX_RANK];
  int r = packed_shape(c, l, x, bt, bi, bo, s);
  if (r < 0 || c->err->code) return c->err->code ? c->err->code : OVTA_EINVAL;
  if (set_out(c, 0, x->dtype, r, s)) return c->err->code;
  o->layout = l;
  o->logical_rank = x->rank;
  memcpy(o->logical, x->shape, sizeof o->logical);
  o->quant = x->quant;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- table */

typedef struct op_rule {
  const char *op;          /* operator name */
  int (*infer)(ctx *);     /* validation and inference */
} op_rule;

static const op_rule RULES[] = {
    {"Relu", infer_unary},         {"LeakyRelu", infer_unary},
    {"Sigmoid", infer_unary},      {"HardSigmoid", infer_unary},
    {"HardSwish", infer_unary},    {"Tanh", infer_unary},
    {"Identity", infer_unary},     {"Neg", infer_unary},
    {"Abs", infer_unary},          {"Exp", infer_unary},
    {"Clip", infer_clip},          {"Add", infer_binary},
    {"Sub", infer_binary},         {"Mul", infer_binary},
    {"Div", infer_binary},         {"Softmax", infer_softmax},
    {"Conv", infer_conv},          {"ConvInteger", infer_convinteger},
    {"QLinearConv", infer_qlinearconv}, {"MaxPool", infer_pool},
    {"AveragePool", infer_pool},   {"GlobalAveragePool", infer_gap},
    {"BatchNormalization", infer_bn}, {"Gemm", infer_gemm},
    {"MatMul", infer_matmul},      {"MatMulInteger", infer_matmulinteger},
    {"QLinearMatMul", infer_qlinearmatmul}, {"QuantizeLinear", infer_quantize},
    {"DequantizeLinear", infer_dequantize}, {"Flatten", infer_flatten},
    {"Reshape", infer_reshape},    {"Transpose", infer_transpose},
    {"Concat", infer_concat},      {"Pad", infer_pad},
    {"Squeeze", infer_squeeze},    {"Unsqueeze", infer_unsqueeze},
    {"Constant", infer_constant},  {"ovta.Conv", infer_fconv},
    {"ovta.QConv", infer_qconv},   {"ovta.Dense", infer_dense},
    {"ovta.QDense", infer_dense},  {"ovta.Eltwise", infer_eltwise},
    {"ovta.Pack", infer_pack},     {"ovta.Unpack", infer_pack},
    {"ovta.QAdd", infer_qadd},     {"ovta.QMaxPool", infer_pool},
};

static const op_rule *rule(const char *op) {
  for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++)
    if (!strcmp(RULES[i].op, op)) return &RULES[i];
  return NULL;
}

bool ovta_op_known(const char *op) { return rule(op) != NULL; }

int ovta_infer_node(ovta_graph *g, ovta_node *n, ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  ctx c = {g, n, err};
  const op_rule *r = rule(n->op);
  if (!r) return bad(&c, OVTA_EUNSUPPORTED, "operator '%s' is not supported", n->op);
  if (strcmp(n->op, "ovta.Pack") && strcmp(n->op, "ovta.Unpack"))
    for (int i = 0; i < n->n_inputs; i++)
      if (n->inputs[i] && n->inputs[i]->layout != OVTA_LAYOUT_PLAIN) return OVTA_OK;
  ovta_error_clear(err);
  int rc = r->infer(&c);
  if (rc) return rc;
  if (err && err->code) return err->code;
  return OVTA_OK;
}

int ovta_infer_graph(ovta_graph *g, ovta_error *err) {
  for (int i = 0; i < g->n_nodes; i++) {
    int rc = ovta_infer_node(g, g->nodes[i], err);
    if (rc) return rc;
  }
  return OVTA_OK;
}
