/* eval.c: the built-in reference evaluator (plain C, double math through ovta_tensor_get_f /
 * ovta_tensor_put_f) and the node-by-node graph runner (graph.h section 8). It is the
 * evaluation hook passes use when the caller gives none (constant folding, calibration).
 * Simple: meant for folding constants, calibration on small samples and tests. The float conv
 * (conv_f32), the matrix products (mm_f64, mm_q32) and the elementwise operators have fast paths
 * that give the scalar rule's values bit for bit (tests/compiler/test_eval_conv.c and
 * test_eval_matmul.c compare them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

typedef struct ev {
  const ovta_graph *g;      /* for messages */
  const ovta_node *n;       /* node being evaluated */
  ovta_tensor *const *in;   /* input values (NULL: omitted) */
  ovta_tensor **out;        /* output values to fill */
  ovta_error *err;          /* where errors go */
} ev;

__attribute__((format(printf, 3, 4))) static int fail(ev *e, int code, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return OVTA_FAIL(e->err, code, "node '%s' (%s): %s", e->n->name, e->n->op, msg);
}

static const ovta_tensor *IN(ev *e, int i) { return i < e->n->n_inputs ? e->in[i] : NULL; }

/* ---------------------------------------------------------------- broadcasting */

/* Offset into t for output index `idx` (out rank r, shape os), numpy broadcasting. */
static int64_t bcast_off(const ovta_tensor *t, int r, const int64_t *os, int64_t idx) {
  int64_t off = 0, stride = 1;
  for (int d = r - 1; d >= 0; d--) {
    int64_t i = idx % os[d];
    idx /= os[d];
    int td = d - (r - t->rank);
    if (td >= 0) {
      if (t->shape[td] != 1) off += i * stride;
      stride *= t->shape[td];
    }
  }
  return off;
}

/* How element i of output shape (r, os) finds its value in t, decided once per node: when t's
 * shape is the last t->rank dims of os (equal shapes included), bcast_off(t, r, os, i) is
 * i % numel(t) (the leading dims of os are not t's); other broadcasts take bcast_off. */
typedef struct boff {
  const ovta_tensor *t; /* the input */
  int r;                /* output rank */
  const int64_t *os;    /* output shape */
  int64_t wrap;         /* numel(t) when t is a suffix of os (i % wrap), else 0 (bcast_off) */
} boff;

static boff boff_new(const ovta_tensor *t, int r, const int64_t *os) {
  boff b = {t, r, os, 0};
  if (t->rank <= r && !memcmp(t->shape, os + (r - t->rank), (size_t)t->rank * sizeof *os)) b.wrap = ovta_tensor_numel(t);
  return b;
}

/* bcast_off(b->t, b->r, b->os, i), the same offset. */
static inline int64_t boff_at(const boff *b, int64_t i) {
  return b->wrap ? (i < b->wrap ? i : i % b->wrap) : bcast_off(b->t, b->r, b->os, i);
}

static double act(const char *a, double v, const ovta_node *n) {
  if (!strcmp(a, "relu") || !strcmp(a, "Relu")) return v > 0 ? v : 0;
  if (!strcmp(a, "sigmoid") || !strcmp(a, "Sigmoid")) return 1 / (1 + exp(-v));
  if (!strcmp(a, "tanh") || !strcmp(a, "Tanh")) return tanh(v);
  if (!strcmp(a, "hardswish") || !strcmp(a, "HardSwish")) return v * fmax(0, fmin(1, v / 6 + 0.5));
  if (!strcmp(a, "Neg")) return -v;
  if (!strcmp(a, "Abs")) return fabs(v);
  if (!strcmp(a, "Exp")) return exp(v);
  if (!strcmp(a, "leakyrelu")) return v >= 0 ? v : v * ovta_node_attr_f(n, "act_alpha", 0.01f);
  if (!strcmp(a, "LeakyRelu")) return v >= 0 ? v : v * ovta_node_attr_f(n, "alpha", 0.01f);
  if (!strcmp(a, "hardsigmoid"))
    return fmax(0, fmin(1, ovta_node_attr_f(n, "act_alpha", 0.2f) * v + ovta_node_attr_f(n, "act_beta", 0.5f)));
  if (!strcmp(a, "HardSigmoid"))
    return fmax(0, fmin(1, ovta_node_attr_f(n, "alpha", 0.2f) * v + ovta_node_attr_f(n, "beta", 0.5f)));
  if (!strcmp(a, "clip")) return fmin(fmax(v, ovta_node_attr_f(n, "act_min", -INFINITY)), ovta_node_attr_f(n, "act_max", INFINITY));
  return v; /* none, Identity */
}

static double binop(const char *op, double a, double b, bool integer) {
  switch (op[0]) {
  case 'A': return a + b;
  case 'S': return a - b;
  case 'M': return a * b;
  default:
    if (integer) return b == 0 ? 0 : trunc(a / b);
    return a / b;
  }
}

static bool is_int_type(ovta_dtype t) { return t != OVTA_DT_F32 && t != OVTA_DT_F64 && t != OVTA_DT_F16; }

/* ---------------------------------------------------------------- kernels */

static int ev_unary(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  int64_t n = ovta_tensor_numel(x);
  for (int64_t i = 0; i < n; i++) ovta_tensor_put_f(y, i, act(e->n->op, ovta_tensor_get_f(x, i), e->n));
  return OVTA_OK;
}

static int ev_clip(ev *e) {
  const ovta_tensor *x = IN(e, 0), *lo = IN(e, 1), *hi = IN(e, 2);
  double l = lo ? ovta_tensor_get_f(lo, 0) : -INFINITY, h = hi ? ovta_tensor_get_f(hi, 0) : INFINITY;
  int64_t n = ovta_tensor_numel(x);
  for (int64_t i = 0; i < n; i++) ovta_tensor_put_f(e->out[0], i, fmin(fmax(ovta_tensor_get_f(x, i), l), h));
  return OVTA_OK;
}

static int ev_binary(ev *e) {
  const ovta_tensor *a = IN(e, 0), *b = IN(e, 1);
  ovta_tensor *y = e->out[0];
  int64_t n = ovta_tensor_numel(y);
  bool it = is_int_type(y->dtype);
  boff oa = boff_new(a, y->rank, y->shape), ob = boff_new(b, y->rank, y->shape);
  for (int64_t i = 0; i < n; i++) {
    double va = ovta_tensor_get_f(a, boff_at(&oa, i));
    double vb = ovta_tensor_get_f(b, boff_at(&ob, i));
    ovta_tensor_put_f(y, i, binop(e->n->op, va, vb, it));
  }
  return OVTA_OK;
}

#define ELT_MAX_OPS 16 /* ops of an ovta.Eltwise chain ev_eltwise evaluates */

/* ovta.Eltwise: its `ops` chain (names parsed once, up to ELT_MAX_OPS) applied element by element;
 * the binary ops' inputs and their broadcasts (boff) resolved once. */
static int ev_eltwise(ev *e) {
  ovta_tensor *y = e->out[0];
  const char *ops = ovta_node_attr_s(e->n, "ops", "");
  char op[ELT_MAX_OPS][16];
  bool bin[ELT_MAX_OPS]; /* op j is Add, Sub, Mul or Div (binop; the others: act) */
  boff in[ELT_MAX_OPS + 1]; /* the inputs: 0 the chain's start, then one per binary op */
  int nop = 0, nin = 1;
  for (const char *p = ops; *p;) {
    const char *q = strchr(p, ',');
    size_t l = q ? (size_t)(q - p) : strlen(p);
    if (nop == ELT_MAX_OPS) return fail(e, OVTA_EUNSUPPORTED, "more than %d ops", ELT_MAX_OPS);
    snprintf(op[nop], sizeof op[0], "%.*s", (int)l, p);
    bin[nop] = !strcmp(op[nop], "Add") || !strcmp(op[nop], "Sub") || !strcmp(op[nop], "Mul") || !strcmp(op[nop], "Div");
    if (bin[nop]) nin++;
    nop++;
    p = q ? q + 1 : p + l;
  }
  if (nin > e->n->n_inputs) return fail(e, OVTA_EINVAL, "%d inputs for %d binary ops", e->n->n_inputs, nin - 1);
  for (int k = 0; k < nin; k++) {
    if (!IN(e, k)) return fail(e, OVTA_EINVAL, "input %d omitted", k);
    in[k] = boff_new(IN(e, k), y->rank, y->shape);
  }
  int64_t n = ovta_tensor_numel(y);
  bool it = is_int_type(y->dtype);
  for (int64_t i = 0; i < n; i++) {
    double v = ovta_tensor_get_f(in[0].t, boff_at(&in[0], i));
    for (int j = 0, k = 1; j < nop; j++) {
      if (bin[j]) {
        v = binop(op[j], v, ovta_tensor_get_f(in[k].t, boff_at(&in[k], i)), it);
        k++;
      } else {
        v = act(op[j], v, e->n);
      }
    }
    ovta_tensor_put_f(y, i, v);
  }
  return OVTA_OK;
}

/* The operators of ev_elt, in ELT_OPS's order (ev_elt resolves the name once per node). */
enum {
  E_SQRT, E_LOG, E_RECIPROCAL, E_FLOOR, E_CEIL, E_ROUND, E_SIGN, E_ERF, E_SIN, E_COS, E_TAN, E_ASIN, E_ACOS, E_ATAN,
  E_SINH, E_COSH, E_ASINH, E_ACOSH, E_ATANH, E_SOFTPLUS, E_SOFTSIGN, E_NOT, E_ISNAN, E_ISINF, E_CAST, E_CASTLIKE,
  E_DROPOUT, E_WHERE, E_MAX, E_MIN, E_SUM, E_MEAN, E_POW, E_MOD, E_EQUAL, E_LESS, E_GREATER, E_LESSOREQUAL,
  E_GREATEROREQUAL, E_AND, E_OR, E_XOR
};

static const char *const ELT_OPS[] = {
    "Sqrt", "Log", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
    "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softplus", "Softsign", "Not", "IsNaN", "IsInf", "Cast", "CastLike",
    "Dropout", "Where", "Max", "Min", "Sum", "Mean", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
    "GreaterOrEqual", "And", "Or", "Xor", NULL};

/* One element of the elementwise operators ev_elt covers (the ONNX rules: compiler/cpu/
 * elementwise.c and logic.c): op is n's operator (an E_ code), v holds the node's inputs at this
 * output element. */
static double elt1(const ovta_node *n, int op, const double *v, int nin, bool integer) {
  double x = v[0];
  switch (op) {
  case E_SQRT: return sqrt(x);
  case E_LOG: return log(x);
  case E_RECIPROCAL: return 1 / x;
  case E_FLOOR: return floor(x);
  case E_CEIL: return ceil(x);
  case E_ROUND: return nearbyint(x);
  case E_SIGN: return x > 0 ? 1 : x < 0 ? -1 : 0;
  case E_ERF: return erf(x);
  case E_SIN: return sin(x);
  case E_COS: return cos(x);
  case E_TAN: return tan(x);
  case E_ASIN: return asin(x);
  case E_ACOS: return acos(x);
  case E_ATAN: return atan(x);
  case E_SINH: return sinh(x);
  case E_COSH: return cosh(x);
  case E_ASINH: return asinh(x);
  case E_ACOSH: return acosh(x);
  case E_ATANH: return atanh(x);
  case E_SOFTPLUS: return log(exp(x) + 1);
  case E_SOFTSIGN: return x / (1 + fabs(x));
  case E_NOT: return x == 0;
  case E_ISNAN: return isnan(x);
  case E_ISINF:
    return (isinf(x) && x > 0 && ovta_node_attr_i(n, "detect_positive", 1)) ||
           (isinf(x) && x < 0 && ovta_node_attr_i(n, "detect_negative", 1));
  case E_CAST:
  case E_CASTLIKE:
  case E_DROPOUT: return integer ? trunc(x) : x;
  case E_WHERE: return v[0] != 0 ? v[1] : v[2];
  case E_MAX:
  case E_MIN:
  case E_SUM:
  case E_MEAN: {
    double r = x;
    for (int k = 1; k < nin; k++)
      r = isnan(r) || isnan(v[k]) ? r + v[k] : op == E_MAX ? fmax(r, v[k]) : op == E_MIN ? fmin(r, v[k]) : r + v[k];
    return op == E_MEAN ? r / nin : r;
  }
  default: break;
  }
  double y = v[1];
  switch (op) {
  case E_POW: return integer ? trunc(pow(x, y)) : pow(x, y);
  case E_MOD: {
    if (ovta_node_attr_i(n, "fmod", 0)) return fmod(x, y);
    double m = y == 0 ? 0 : fmod(x, y);
    return m != 0 && (m < 0) != (y < 0) ? m + y : m;
  }
  case E_EQUAL: return x == y;
  case E_LESS: return x < y;
  case E_GREATER: return x > y;
  case E_LESSOREQUAL: return x <= y;
  case E_GREATEROREQUAL: return x >= y;
  case E_AND: return x != 0 && y != 0;
  case E_OR: return x != 0 || y != 0;
  case E_XOR: return (x != 0) != (y != 0);
  default: return NAN; /* not reached: ev_elt's list */
  }
}

/* The elementwise operators of ELT_OPS, with numpy broadcasting, in double (integers exact below
 * 2^53; Cast and integer Pow truncate toward zero). */
static int ev_elt(ev *e) {
  ovta_tensor *y = e->out[0];
  int nin = e->n->n_inputs, op = 0;
  while (ELT_OPS[op] && strcmp(e->n->op, ELT_OPS[op])) op++;
  if (!ELT_OPS[op]) return fail(e, OVTA_EUNSUPPORTED, "not an elementwise operator");
  if (op == E_CASTLIKE || op == E_DROPOUT) nin = 1;
  if (nin < 1 || nin > 16) return fail(e, OVTA_EUNSUPPORTED, "%d inputs", nin);
  boff in[16];
  for (int k = 0; k < nin; k++) {
    if (!IN(e, k)) return fail(e, OVTA_EUNSUPPORTED, "input %d omitted", k);
    in[k] = boff_new(IN(e, k), y->rank, y->shape);
  }
  int64_t n = ovta_tensor_numel(y);
  bool integer = is_int_type(y->dtype) && y->dtype != OVTA_DT_BOOL;
  for (int64_t i = 0; i < n; i++) {
    double v[16];
    for (int k = 0; k < nin; k++) v[k] = ovta_tensor_get_f(in[k].t, boff_at(&in[k], i));
    ovta_tensor_put_f(y, i, elt1(e->n, op, v, nin, integer));
  }
  return OVTA_OK;
}

static int ev_softmax(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  int64_t axis = ovta_node_attr_i(e->n, "axis", -1);
  if (axis < 0) axis += x->rank;
  int64_t outer = ovta_shape_numel(x->shape, (int)axis), len = x->shape[axis];
  int64_t inner = ovta_shape_numel(x->shape + axis + 1, x->rank - (int)axis - 1);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < len; k++) mx = fmax(mx, ovta_tensor_get_f(x, (o * len + k) * inner + in));
      for (int64_t k = 0; k < len; k++) sum += exp(ovta_tensor_get_f(x, (o * len + k) * inner + in) - mx);
      for (int64_t k = 0; k < len; k++) {
        int64_t i = (o * len + k) * inner + in;
        ovta_tensor_put_f(e->out[0], i, exp(ovta_tensor_get_f(x, i) - mx) / sum);
      }
    }
  return OVTA_OK;
}

static const int64_t *ints(const ovta_node *n, const char *name) {
  const ovta_attr *a = ovta_node_attr(n, name);
  return a && a->type == OVTA_ATTR_INTS ? a->ints : NULL;
}

/* A per-channel shift clamped to -32..32 (the same requantization, any INT). */
static int qconv_shift(int64_t s) { return s < -32 ? -32 : s > 32 ? 32 : (int)s; }

/* The float conv's inner loops are compiled twice on x86-64, for AVX2 (one 256-bit register per
 * 4 doubles, no FMA: the same rounded mul and add) and the baseline, picked when the program
 * loads (GCC's target_clones); other machines get the one generic version. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define EV_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define EV_CLONES
#endif

typedef double v4d __attribute__((vector_size(32))); /* 4 doubles (two SSE2 registers, or one AVX) */
typedef float v4f __attribute__((vector_size(16)));  /* 4 floats */

/* The geometry of a 1-D or 2-D convolution (ev_conv; 1-D: W = KW = OW = 1). */
typedef struct convdims {
  int64_t N, H, W;      /* batch, input height and width */
  int64_t M, CG, G;     /* output channels, input channels per group, groups */
  int64_t KH, KW;       /* kernel height and width */
  int64_t OH, OW;       /* output height and width */
  int64_t sh, sw;       /* strides */
  int64_t dh, dw;       /* dilations */
  int64_t ph, pw;       /* leading pads */
} convdims;

#define CONV_MB 16 /* output channels conv_px_f32 sums at once (four v4d registers per pixel; written out there) */

/* Output pixels (n, oh, ow) and, when two, (n, oh, ow + 1) of output channels g * MG + mm0 .. +
 * CONV_MB added into acc[0..CONV_MB) and acc[CONV_MB..2 CONV_MB) (which hold their biases): each
 * sum in ev_conv's scalar order (c, kh, kw ascending, taps outside the input skipped: the same
 * taps for every channel of a pixel), one exact float x float product (a double) and one
 * rounded add per tap, so the values are bit for bit the scalar loop's; the two pixels share
 * the weight loads. wt: the weights as doubles, [g][c][kh][kw][m of the group] (conv_wt). */
EV_CLONES static void conv_px_f32(const convdims *k, const float *x, const double *wt, int64_t n, int64_t g, int64_t mm0,
                                  int64_t oh, int64_t ow, bool two, double *acc) {
  int64_t MG = k->M / k->G;
  v4d a0, a1, a2, a3, b0, b1, b2, b3; /* the sums, in registers (named: arrays would live in memory) */
  memcpy(&a0, acc, sizeof a0), memcpy(&a1, acc + 4, sizeof a1), memcpy(&a2, acc + 8, sizeof a2), memcpy(&a3, acc + 12, sizeof a3);
  memcpy(&b0, acc + 16, sizeof b0), memcpy(&b1, acc + 20, sizeof b1), memcpy(&b2, acc + 24, sizeof b2), memcpy(&b3, acc + 28, sizeof b3);
  const float *xg = x + (n * k->G + g) * k->CG * k->H * k->W;
  const double *wg = wt + g * k->CG * k->KH * k->KW * MG + mm0;
  for (int64_t c = 0; c < k->CG; c++)
    for (int64_t kh = 0; kh < k->KH; kh++) {
      int64_t ih = oh * k->sh - k->ph + kh * k->dh;
      if (ih < 0 || ih >= k->H) continue;
      const float *xr = xg + (c * k->H + ih) * k->W;
      const double *wr = wg + (c * k->KH + kh) * k->KW * MG;
      for (int64_t kw = 0; kw < k->KW; kw++) {
        int64_t iw = ow * k->sw - k->pw + kw * k->dw, iw1 = iw + k->sw;
        bool in0 = iw >= 0 && iw < k->W, in1 = two && iw1 >= 0 && iw1 < k->W;
        v4d w0, w1, w2, w3;
        const double *wp = wr + kw * MG;
        memcpy(&w0, wp, sizeof w0), memcpy(&w1, wp + 4, sizeof w1), memcpy(&w2, wp + 8, sizeof w2), memcpy(&w3, wp + 12, sizeof w3);
        if (in0) {
          double d = xr[iw];
          v4d xv = {d, d, d, d};
          a0 += xv * w0, a1 += xv * w1, a2 += xv * w2, a3 += xv * w3;
        }
        if (in1) {
          double d = xr[iw1];
          v4d xv = {d, d, d, d};
          b0 += xv * w0, b1 += xv * w1, b2 += xv * w2, b3 += xv * w3;
        }
      }
    }
  memcpy(acc, &a0, sizeof a0), memcpy(acc + 4, &a1, sizeof a1), memcpy(acc + 8, &a2, sizeof a2), memcpy(acc + 12, &a3, sizeof a3);
  memcpy(acc + 16, &b0, sizeof b0), memcpy(acc + 20, &b1, sizeof b1), memcpy(acc + 24, &b2, sizeof b2), memcpy(acc + 28, &b3, sizeof b3);
}

/* conv_px_f32 for one output channel m (the channels past the last whole block of CONV_MB). */
static double conv_px1_f32(const convdims *k, const float *x, const double *wt, int64_t n, int64_t m, int64_t oh, int64_t ow,
                           double acc) {
  int64_t MG = k->M / k->G, g = m / MG;
  const float *xg = x + (n * k->G + g) * k->CG * k->H * k->W;
  const double *wg = wt + g * k->CG * k->KH * k->KW * MG + m % MG;
  for (int64_t c = 0; c < k->CG; c++)
    for (int64_t kh = 0; kh < k->KH; kh++) {
      int64_t ih = oh * k->sh - k->ph + kh * k->dh;
      if (ih < 0 || ih >= k->H) continue;
      for (int64_t kw = 0; kw < k->KW; kw++) {
        int64_t iw = ow * k->sw - k->pw + kw * k->dw;
        if (iw < 0 || iw >= k->W) continue;
        acc += (double)xg[(c * k->H + ih) * k->W + iw] * wg[((c * k->KH + kh) * k->KW + kw) * MG];
      }
    }
  return acc;
}

/* The weights [M][CG][KH][KW] as doubles in conv_px_f32's order [g][c][kh][kw][m of the group]
 * (transposed in tiles of 16 x 16); NULL when out of memory. */
static double *conv_wt(const convdims *k, const float *w) {
  int64_t MG = k->M / k->G, K = k->CG * k->KH * k->KW;
  double *wt = malloc((size_t)(k->M * K) * sizeof *wt + 1);
  for (int64_t i0 = 0; wt && i0 < K; i0 += 16)
    for (int64_t m = 0; m < k->M; m++)
      for (int64_t i = i0; i < i0 + 16 && i < K; i++) wt[((m / MG) * K + i) * MG + m % MG] = w[m * K + i];
  return wt;
}

/* The fused activation of a float conv: kind 0 none, 1 relu (act's rule), 2 another (act by name). */
static int conv_act_kind(const char *a) { return !strcmp(a, "none") ? 0 : !strcmp(a, "relu") ? 1 : 2; }

/* y = act(v) as float (ev_conv), none and relu without act's name lookups. */
static float conv_act(int kind, const char *a, double v, const ovta_node *n) {
  if (kind == 0) return (float)v;
  if (kind == 1) return (float)(v > 0 ? v : 0);
  return (float)act(a, v, n);
}

/* One float conv of conv_f32, shared by the threads of its parallel loop (read only). */
typedef struct convjob {
  const convdims *k;    /* geometry */
  const float *x;       /* input [N][C][H][W] */
  const double *wt;     /* weights as doubles (conv_wt) */
  const float *bias;    /* [M], or NULL */
  float *y;             /* output [N][M][OH][OW] */
  const char *act;      /* fused activation ("none" when not fused) */
  int act_kind;         /* conv_act_kind(act) */
  const ovta_node *n;   /* the node (act's attributes) */
  int64_t per_group;    /* work items per (n, g): MG / CONV_MB blocks, then MG % CONV_MB single channels */
} convjob;

/* Output channel block of work item t: first channel *m, image *n, width (CONV_MB or 1). */
static int conv_item(const convjob *j, int64_t t, int64_t *n, int64_t *m) {
  int64_t MG = j->k->M / j->k->G, full = MG / CONV_MB, r = t % j->per_group, ng = t / j->per_group;
  *n = ng / j->k->G;
  *m = (ng % j->k->G) * MG + (r < full ? r * CONV_MB : full * CONV_MB + (r - full));
  return r < full ? CONV_MB : 1;
}

/* Work items lo..hi-1 of a float conv: every output pixel of their channels, two at a time
 * (conv_px_f32) or one channel alone (conv_px1_f32). */
static void conv_items(void *ctx, int64_t lo, int64_t hi) {
  const convjob *j = ctx;
  const convdims *k = j->k;
  int64_t MG = k->M / k->G, P = k->OH * k->OW;
  double acc[2 * CONV_MB];
  for (int64_t t = lo; t < hi; t++) {
    int64_t n, m;
    int width = conv_item(j, t, &n, &m);
    for (int64_t p = 0; p < P; p++) {
      int64_t oh = p / k->OW, ow = p % k->OW;
      float *yp = j->y + (n * k->M + m) * P + p;
      if (width == 1) {
        *yp = conv_act(j->act_kind, j->act, conv_px1_f32(k, j->x, j->wt, n, m, oh, ow, j->bias ? j->bias[m] : 0), j->n);
        continue;
      }
      bool two = ow + 1 < k->OW;
      for (int q = 0; q < 2 * CONV_MB; q++) acc[q] = j->bias ? j->bias[m + q % CONV_MB] : 0;
      conv_px_f32(k, j->x, j->wt, n, m / MG, m % MG, oh, ow, two, acc);
      for (int q = 0; q < CONV_MB; q++) {
        yp[q * P] = conv_act(j->act_kind, j->act, acc[q], j->n);
        if (two) yp[q * P + 1] = conv_act(j->act_kind, j->act, acc[CONV_MB + q], j->n);
      }
      p += two; /* the pixel after it done too */
    }
  }
}

/* ev_conv on float32 x, w, bias and y without zero points: pixel by pixel, CONV_MB output
 * channels at once (conv_px_f32), the channel blocks spread over the thread pool (ovta_par_for:
 * each output written by one thread, the same values for any thread count); the output
 * (activation applied when fused) is the scalar loop's. */
static int conv_f32(ev *e, const convdims *k, bool fused) {
  const ovta_tensor *b = IN(e, 2);
  int64_t MG = k->M / k->G;
  const char *a = fused ? ovta_node_attr_s(e->n, "act", "none") : "none";
  convjob j = {k, IN(e, 0)->data, conv_wt(k, IN(e, 1)->data), b ? b->data : NULL, e->out[0]->data,
               a, conv_act_kind(a), e->n, MG / CONV_MB + MG % CONV_MB};
  if (!j.wt) return fail(e, OVTA_ENOMEM, "out of memory");
  ovta_par_for(conv_items, &j, k->N * k->G * j.per_group);
  free((void *)j.wt);
  return OVTA_OK;
}

/* Conv/ConvInteger/ovta.Conv/ovta.QConv, 1-D or 2-D (3-D and more: unsupported). Attributes
 * are explicit after inference. xz/wz: zero points (ConvInteger). ovta.QConv with `shifts`:
 * output channel m requantized by shifts[m] (graph.h). */
static int ev_conv(ev *e, double xz, double wz) {
  const ovta_tensor *x = IN(e, 0), *w = IN(e, 1), *b = NULL;
  const char *op = e->n->op;
  bool fused = !strncmp(op, "ovta.", 5);
  if (strcmp(op, "ConvInteger")) b = IN(e, 2);
  ovta_tensor *y = e->out[0];
  if (x->rank != 4 && x->rank != 3) return fail(e, OVTA_EUNSUPPORTED, "only 1-D and 2-D convolutions are evaluated");
  const int64_t *s = ints(e->n, "strides"), *p = ints(e->n, "pads"), *d = ints(e->n, "dilations");
  if (!s || !p || !d) return fail(e, OVTA_EINVAL, "run shape inference first");
  bool two = x->rank == 4;
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = two ? x->shape[3] : 1;
  int64_t M = w->shape[0], CG = w->shape[1], KH = w->shape[2], KW = two ? w->shape[3] : 1;
  int64_t OH = y->shape[2], OW = two ? y->shape[3] : 1;
  int64_t sh = s[0], sw = two ? s[1] : 1, dh = d[0], dw = two ? d[1] : 1, ph = p[0], pw = two ? p[1] : 0;
  int64_t G = ovta_node_attr_i(e->n, "group", 1), MG = M / G;
  bool q = !strcmp(op, "ovta.QConv");
  int shift = (int)ovta_node_attr_i(e->n, "shift", 0);
  const ovta_attr *shs = q ? ovta_node_attr(e->n, "shifts") : NULL; /* per output channel (graph.h) */
  if (shs && (shs->type != OVTA_ATTR_INTS || shs->n != M)) return fail(e, OVTA_EINVAL, "shifts must be one INT per output channel");
  int32_t lo = (int32_t)ovta_node_attr_i(e->n, "clip_min", -128), hi = (int32_t)ovta_node_attr_i(e->n, "clip_max", 127);
  const char *a = ovta_node_attr_s(e->n, "act", "none");
  (void)C;
  if (!q && xz == 0 && wz == 0 && x->dtype == OVTA_DT_F32 && w->dtype == OVTA_DT_F32 && y->dtype == OVTA_DT_F32 &&
      (!b || b->dtype == OVTA_DT_F32) && G > 0 && M % G == 0) {
    convdims k = {N, H, W, M, CG, G, KH, KW, OH, OW, sh, sw, dh, dw, ph, pw};
    return conv_f32(e, &k, fused);
  }
  for (int64_t n = 0; n < N; n++)
    for (int64_t m = 0; m < M; m++) {
      int64_t g = m / MG;
      for (int64_t oh = 0; oh < OH; oh++)
        for (int64_t ow = 0; ow < OW; ow++) {
          double acc = b ? ovta_tensor_get_f(b, m) : 0;
          int64_t iacc = b ? ovta_tensor_get_i(b, m) : 0;
          for (int64_t c = 0; c < CG; c++)
            for (int64_t kh = 0; kh < KH; kh++) {
              int64_t ih = oh * sh - ph + kh * dh;
              if (ih < 0 || ih >= H) continue;
              for (int64_t kw = 0; kw < KW; kw++) {
                int64_t iw = ow * sw - pw + kw * dw;
                if (iw < 0 || iw >= W) continue;
                int64_t xi = ((n * (G * CG) + g * CG + c) * H + ih) * W + iw, wi = ((m * CG + c) * KH + kh) * KW + kw;
                if (q) iacc += ovta_tensor_get_i(x, xi) * ovta_tensor_get_i(w, wi);
                else acc += (ovta_tensor_get_f(x, xi) - xz) * (ovta_tensor_get_f(w, wi) - wz);
              }
            }
          int64_t yi = ((n * M + m) * OH + oh) * OW + ow;
          if (q) ovta_tensor_put_f(y, yi, ovta_requant((int32_t)iacc, shs ? qconv_shift(shs->ints[m]) : shift, lo, hi));
          else ovta_tensor_put_f(y, yi, fused ? act(a, acc, e->n) : acc);
        }
    }
  return OVTA_OK;
}

/* ---------------------------------------------------------------- float matmul, fast path */

#define MM_NB 16 /* output columns mm_rows_f64 sums at once (four v4d registers per row; written out there) */

/* Rows m0 and m1 (m1 may equal m0: one row) of a packed matmul block: for each output column
 * j < MM_NB of panel bp ([K][MM_NB] doubles), acc0[j] = sum over k ascending of a0[k] * bp[k][j]
 * and acc1 the same with a1, starting from 0: one rounded double product and one rounded add per
 * k, the order of ev_matmul's scalar loop (no FMA: GCC does not contract under -std=c11, and the
 * AVX2 clone has no FMA instructions), so the values are bit for bit the scalar loop's. */
EV_CLONES static void mm_rows_f64(const double *a0, const double *a1, const double *bp, int64_t K, double *acc0,
                                  double *acc1) {
  v4d s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0, t0 = s0, t1 = s0, t2 = s0, t3 = s0; /* named: kept in registers */
  for (int64_t k = 0; k < K; k++) {
    v4d w0, w1, w2, w3;
    const double *wp = bp + k * MM_NB;
    memcpy(&w0, wp, sizeof w0), memcpy(&w1, wp + 4, sizeof w1), memcpy(&w2, wp + 8, sizeof w2), memcpy(&w3, wp + 12, sizeof w3);
    double d0 = a0[k], d1 = a1[k];
    v4d x0 = {d0, d0, d0, d0}, x1 = {d1, d1, d1, d1};
    s0 += x0 * w0, s1 += x0 * w1, s2 += x0 * w2, s3 += x0 * w3;
    t0 += x1 * w0, t1 += x1 * w1, t2 += x1 * w2, t3 += x1 * w3;
  }
  memcpy(acc0, &s0, sizeof s0), memcpy(acc0 + 4, &s1, sizeof s1), memcpy(acc0 + 8, &s2, sizeof s2), memcpy(acc0 + 12, &s3, sizeof s3);
  memcpy(acc1, &t0, sizeof t0), memcpy(acc1 + 4, &t1, sizeof t1), memcpy(acc1 + 8, &t2, sizeof t2), memcpy(acc1 + 12, &t3, sizeof t3);
}

/* One float matmul of mm_f64, shared by the threads of its parallel loops (read only but for
 * the packed operands, each part written by one thread). */
typedef struct mmjob {
  const ovta_tensor *a, *b, *c; /* operands and the optional C / bias */
  ovta_tensor *y;               /* output */
  const ovta_node *n;           /* the node (act's attributes) */
  bool ta, tb;                  /* transposed operands (Gemm's transA/transB, ovta.Dense's weights) */
  double az, bz;                /* zero points subtracted from a and b (MatMulInteger; 0 otherwise) */
  double alpha, beta;           /* Gemm's factors (1 otherwise) */
  bool dense;                   /* ovta.Dense: act applied */
  const char *act;              /* its activation */
  int act_kind;                 /* conv_act_kind(act) */
  int64_t M, N, K;              /* one matrix product: [M][K] x [K][N] */
  int64_t NP;                   /* panels of MM_NB columns: (N + MM_NB - 1) / MM_NB */
  const int64_t *aoff, *boff;   /* per batch: the offsets of its a and b matrices (elements) */
  double *ap;                   /* a as doubles minus az: [a's matrices][M][K] (transposed when ta) */
  double *bp;                   /* b as doubles minus bz: [b's matrices][NP][K][MM_NB], columns past N 0 */
  const double *crow;           /* beta * C for each column n when C's values do not depend on the row; else NULL */
} mmjob;

/* Value i of t minus z as a double (ovta_tensor_get_f(t, i) - z; floats read directly). */
static inline double mm_get(const ovta_tensor *t, int64_t i, double z) {
  return (t->dtype == OVTA_DT_F32 ? (double)((const float *)t->data)[i] : ovta_tensor_get_f(t, i)) - z;
}

/* Packs matrices lo..hi-1 of a into j->ap (row-major [M][K] whatever ta). */
static void mm_pack_a(void *ctx, int64_t lo, int64_t hi) {
  const mmjob *j = ctx;
  int64_t M = j->M, K = j->K;
  for (int64_t t = lo; t < hi; t++) {
    double *d = j->ap + t * M * K;
    int64_t o = t * M * K;
    for (int64_t m = 0; m < M; m++)
      for (int64_t k = 0; k < K; k++) d[m * K + k] = mm_get(j->a, o + (j->ta ? k * M + m : m * K + k), j->az);
  }
}

/* Packs panels lo..hi-1 (matrix t / NP, panel t % NP) of b into j->bp. */
static void mm_pack_b(void *ctx, int64_t lo, int64_t hi) {
  const mmjob *j = ctx;
  int64_t N = j->N, K = j->K;
  for (int64_t t = lo; t < hi; t++) {
    double *d = j->bp + t * K * MM_NB;
    int64_t o = t / j->NP * K * N, n0 = t % j->NP * MM_NB;
    for (int64_t q = 0; q < MM_NB; q++) {
      int64_t n = n0 + q;
      if (n >= N) {
        for (int64_t k = 0; k < K; k++) d[k * MM_NB + q] = 0;
        continue;
      }
      for (int64_t k = 0; k < K; k++) d[k * MM_NB + q] = mm_get(j->b, o + (j->tb ? n * K + k : k * N + n), j->bz);
    }
  }
}

/* Output (m, n) of batch bt from its sum acc: ev_matmul's epilogue (alpha, beta * C, act). */
static inline void mm_store(const mmjob *j, int64_t bt, int64_t m, int64_t n, double acc) {
  acc *= j->alpha;
  if (j->c) {
    if (j->crow) acc += j->crow[n];
    else {
      int64_t cs[2] = {j->M, j->N};
      acc += j->beta * ovta_tensor_get_f(j->c, bcast_off(j->c, 2, cs, m * j->N + n));
    }
  }
  int64_t yi = (bt * j->M + m) * j->N + n;
  if (!j->dense) ovta_tensor_put_f(j->y, yi, acc);
  else if (j->y->dtype == OVTA_DT_F32 && j->act_kind < 2) ((float *)j->y->data)[yi] = conv_act(j->act_kind, j->act, acc, j->n);
  else ovta_tensor_put_f(j->y, yi, act(j->act, acc, j->n));
}

/* Work items lo..hi-1 (batch t / NP, panel t % NP): the panel's columns of every row, two rows
 * at a time (the panel stays in cache while the rows of a stream past it). */
static void mm_items(void *ctx, int64_t lo, int64_t hi) {
  const mmjob *j = ctx;
  int64_t M = j->M, N = j->N, K = j->K;
  double acc0[MM_NB], acc1[MM_NB];
  for (int64_t t = lo; t < hi; t++) {
    int64_t bt = t / j->NP, p = t % j->NP;
    const double *bb = j->bp + (j->boff[bt] / (K * N) * j->NP + p) * K * MM_NB;
    for (int64_t m0 = 0; m0 < M; m0 += 2) {
      int64_t m1 = m0 + 1 < M ? m0 + 1 : m0;
      mm_rows_f64(j->ap + j->aoff[bt] + m0 * K, j->ap + j->aoff[bt] + m1 * K, bb, K, acc0, acc1);
      for (int64_t q = 0; q < MM_NB && p * MM_NB + q < N; q++) {
        mm_store(j, bt, m0, p * MM_NB + q, acc0[q]);
        if (m1 != m0) mm_store(j, bt, m1, p * MM_NB + q, acc1[q]);
      }
    }
  }
}

/* ev_matmul without requantization (not ovta.QDense) when M, N, K > 0: the operands packed as
 * doubles (zero points subtracted, b in panels of MM_NB columns), two rows by MM_NB columns
 * summed at once in registers (mm_rows_f64), the batches and column panels spread over the thread
 * pool (each output written by one thread); every output is the scalar loop's, bit for bit.
 * aoff/boff: each batch's matrix offsets (ev_matmul's broadcasting). */
static int mm_f64(ev *e, mmjob *j, int64_t batch, const int64_t *aoff, const int64_t *boff) {
  int64_t M = j->M, N = j->N, K = j->K;
  int64_t na = ovta_tensor_numel(j->a) / (M * K), nb = ovta_tensor_numel(j->b) / (K * N);
  j->NP = (N + MM_NB - 1) / MM_NB, j->aoff = aoff, j->boff = boff;
  j->ap = malloc((size_t)(na * M * K) * sizeof *j->ap + 1);
  j->bp = malloc((size_t)(nb * j->NP * K * MM_NB) * sizeof *j->bp + 1);
  const ovta_tensor *c = j->c;
  bool by_col = c && c->rank <= 2 && (c->rank < 2 || c->shape[0] == 1); /* C's value depends on n alone */
  double *crow = by_col ? malloc((size_t)N * sizeof *crow) : NULL;
  if (crow) {
    int64_t cs[2] = {M, N};
    for (int64_t n = 0; n < N; n++) crow[n] = j->beta * ovta_tensor_get_f(c, bcast_off(c, 2, cs, n));
  }
  j->crow = crow;
  if (!j->ap || !j->bp || (by_col && !crow)) {
    free(j->ap), free(j->bp), free(crow);
    return fail(e, OVTA_ENOMEM, "out of memory");
  }
  ovta_par_for(mm_pack_a, j, na);
  ovta_par_for(mm_pack_b, j, nb * j->NP);
  ovta_par_for(mm_items, j, batch * j->NP);
  free(j->ap), free(j->bp), free(crow);
  return OVTA_OK;
}

/* ---------------------------------------------------------------- ovta.QDense, fast path */

/* One ovta.QDense of mm_q32 (read only in its item loop). */
typedef struct qmmjob {
  const ovta_tensor *c;         /* the int32 bias, or NULL */
  ovta_tensor *y;               /* output */
  int64_t M, N, K;              /* one matrix product: [M][K] x [K][N] */
  const int64_t *aoff, *boff;   /* per batch: the offsets of its a and b matrices (elements) */
  const uint32_t *ap;           /* a's values (two's complement): [a's matrices][M][K] */
  const uint32_t *bp;           /* b's values: [b's matrices][K][N] (transposed when tb) */
  const ovta_attr *shs;         /* per-channel shifts (graph.h), or NULL */
  int shift;                    /* the shift when no shifts */
  int32_t lo, hi;               /* clip_min, clip_max */
} qmmjob;

typedef uint32_t v8u __attribute__((vector_size(32))); /* 8 uint32 */

/* acc[n] += a * b[n] for n < N, modulo 2^32 (8 at a time: -O2 does not vectorize the loop). */
EV_CLONES static void qmm_axpy(uint32_t *acc, uint32_t a, const uint32_t *b, int64_t N) {
  int64_t n = 0;
  v8u av = {a, a, a, a, a, a, a, a};
  for (; n + 8 <= N; n += 8) {
    v8u x, w;
    memcpy(&x, acc + n, sizeof x), memcpy(&w, b + n, sizeof w);
    x += av * w;
    memcpy(acc + n, &x, sizeof x);
  }
  for (; n < N; n++) acc[n] += a * b[n];
}

/* Rows lo..hi-1 (batch t / M, row t % M) of a QDense: each row's sums modulo 2^32, then bias,
 * requantization and clip as ev_matmul's scalar loop. */
static void qmm_items(void *ctx, int64_t lo, int64_t hi) {
  const qmmjob *j = ctx;
  int64_t M = j->M, N = j->N, K = j->K;
  uint32_t *acc = malloc((size_t)N * sizeof *acc + 1);
  for (int64_t t = lo; acc && t < hi; t++) {
    int64_t bt = t / M, m = t % M;
    const uint32_t *ar = j->ap + j->aoff[bt] + m * K, *bb = j->bp + j->boff[bt];
    memset(acc, 0, (size_t)N * sizeof *acc);
    for (int64_t k = 0; k < K; k++) qmm_axpy(acc, ar[k], bb + k * N, N);
    for (int64_t n = 0; n < N; n++) {
      uint32_t v = acc[n] + (j->c ? (uint32_t)ovta_tensor_get_i(j->c, n) : 0);
      ovta_tensor_put_f(j->y, (bt * M + m) * N + n,
                        ovta_requant((int32_t)v, j->shs ? qconv_shift(j->shs->ints[n]) : j->shift, j->lo, j->hi));
    }
  }
  if (!acc) /* no memory for the row: the same values element by element */
    for (int64_t t = lo; t < hi; t++)
      for (int64_t n = 0; n < N; n++) {
        int64_t bt = t / M, m = t % M;
        uint32_t v = j->c ? (uint32_t)ovta_tensor_get_i(j->c, n) : 0;
        for (int64_t k = 0; k < K; k++) v += j->ap[j->aoff[bt] + m * K + k] * j->bp[j->boff[bt] + k * N + n];
        ovta_tensor_put_f(j->y, (bt * M + m) * N + n,
                          ovta_requant((int32_t)v, j->shs ? qconv_shift(j->shs->ints[n]) : j->shift, j->lo, j->hi));
      }
  free(acc);
}

/* An integer type of at most 32 bits (ovta_tensor_get_i's values then fit in 32 bits). */
static bool qmm_small_int(ovta_dtype t) {
  return t == OVTA_DT_I8 || t == OVTA_DT_U8 || t == OVTA_DT_I16 || t == OVTA_DT_U16 || t == OVTA_DT_I32;
}

/* ev_matmul's ovta.QDense loop for a and b of integer types of at most 32 bits: the scalar loop
 * sums a * b in int64 and keeps the low 32 bits ((int32_t) before ovta_requant), so sums modulo
 * 2^32 in any order give the same int32 (the products' low 32 bits from the 32-bit values);
 * a row of N sums at once, k outer (qmm_axpy, vectorized), the rows over the thread pool. */
static int mm_q32(ev *e, qmmjob *j, bool ta, bool tb, int64_t batch, const int64_t *aoff, const int64_t *boff) {
  const ovta_tensor *a = IN(e, 0), *b = IN(e, 1);
  int64_t M = j->M, N = j->N, K = j->K, na = ovta_tensor_numel(a), nb = ovta_tensor_numel(b);
  uint32_t *ap = malloc((size_t)na * sizeof *ap + 1), *bp = malloc((size_t)nb * sizeof *bp + 1);
  if (!ap || !bp) {
    free(ap), free(bp);
    return fail(e, OVTA_ENOMEM, "out of memory");
  }
  for (int64_t o = 0; o < na; o += M * K)
    for (int64_t m = 0; m < M; m++)
      for (int64_t k = 0; k < K; k++) ap[o + m * K + k] = (uint32_t)ovta_tensor_get_i(a, o + (ta ? k * M + m : m * K + k));
  for (int64_t o = 0; o < nb; o += K * N)
    for (int64_t k = 0; k < K; k++)
      for (int64_t n = 0; n < N; n++) bp[o + k * N + n] = (uint32_t)ovta_tensor_get_i(b, o + (tb ? n * K + k : k * N + n));
  j->ap = ap, j->bp = bp, j->aoff = aoff, j->boff = boff;
  ovta_par_for(qmm_items, j, batch * M);
  free(ap), free(bp);
  return OVTA_OK;
}

/* Gemm / MatMul (rank 2, or batched with broadcasting) / ovta.Dense / ovta.QDense /
 * MatMulInteger. ovta.QDense with `shifts`: output channel n requantized by shifts[n]. */
static int ev_matmul(ev *e, double az, double bz) {
  const char *op = e->n->op;
  const ovta_tensor *a = IN(e, 0), *b = IN(e, 1), *c = NULL;
  ovta_tensor *y = e->out[0];
  bool gemm = !strcmp(op, "Gemm"), dense = !strncmp(op, "ovta.", 5), q = !strcmp(op, "ovta.QDense");
  bool ta = gemm && ovta_node_attr_i(e->n, "transA", 0), tb = dense || (gemm && ovta_node_attr_i(e->n, "transB", 0));
  double alpha = gemm ? ovta_node_attr_f(e->n, "alpha", 1) : 1, beta = gemm ? ovta_node_attr_f(e->n, "beta", 1) : 1;
  if (gemm || dense) c = IN(e, 2);
  int ar = a->rank, br = b->rank;
  int64_t M = ar == 1 ? 1 : a->shape[ta ? ar - 1 : ar - 2], K = a->shape[ta ? ar - 2 : ar - 1];
  int64_t N = br == 1 ? 1 : b->shape[tb ? br - 2 : br - 1];
  int64_t batch = ovta_tensor_numel(y) / (M * N != 0 ? M * N : 1);
  int yr = y->rank - (ar == 1 ? 0 : 1) - (br == 1 ? 0 : 1);
  if (yr < 0) yr = 0;
  int shift = (int)ovta_node_attr_i(e->n, "shift", 0);
  const ovta_attr *shs = q ? ovta_node_attr(e->n, "shifts") : NULL; /* per output channel (graph.h) */
  if (shs && (shs->type != OVTA_ATTR_INTS || shs->n != N)) return fail(e, OVTA_EINVAL, "shifts must be one INT per output channel");
  int32_t lo = (int32_t)ovta_node_attr_i(e->n, "clip_min", -128), hi = (int32_t)ovta_node_attr_i(e->n, "clip_max", 127);
  const char *act_name = ovta_node_attr_s(e->n, "act", "none");
  int64_t *offs = malloc((size_t)(2 * batch) * sizeof *offs + 1); /* per batch: a's, then b's matrix offset */
  if (!offs) return fail(e, OVTA_ENOMEM, "out of memory");
  for (int64_t bt = 0; bt < batch; bt++) {
    /* batch offsets: broadcast the batch dims */
    int64_t aoff = 0, boff = 0, idx = bt, sa = M * K, sb = K * N;
    for (int d = yr - 1; d >= 0; d--) {
      int64_t i = idx % y->shape[d];
      idx /= y->shape[d];
      int da = d - (yr - (ar - 2)), db = d - (yr - (br - 2));
      if (ar > 2 && da >= 0) {
        if (a->shape[da] != 1) aoff += i * sa;
        sa *= a->shape[da];
      }
      if (br > 2 && db >= 0) {
        if (b->shape[db] != 1) boff += i * sb;
        sb *= b->shape[db];
      }
    }
    offs[bt] = aoff, offs[batch + bt] = boff;
  }
  if (!q && M > 0 && N > 0 && K > 0 && batch > 0) {
    mmjob j = {.a = a, .b = b, .c = c, .y = y, .n = e->n, .ta = ta, .tb = tb, .az = az, .bz = bz, .alpha = alpha,
               .beta = beta, .dense = dense, .act = act_name, .act_kind = conv_act_kind(act_name), .M = M, .N = N, .K = K};
    int rc = mm_f64(e, &j, batch, offs, offs + batch);
    free(offs);
    return rc;
  }
  if (q && M > 0 && N > 0 && K > 0 && batch > 0 && qmm_small_int(a->dtype) && qmm_small_int(b->dtype)) {
    qmmjob j = {.c = c, .y = y, .M = M, .N = N, .K = K, .shs = shs, .shift = shift, .lo = lo, .hi = hi};
    int rc = mm_q32(e, &j, ta, tb, batch, offs, offs + batch);
    free(offs);
    return rc;
  }
  for (int64_t bt = 0; bt < batch; bt++) {
    int64_t aoff = offs[bt], boff = offs[batch + bt];
    for (int64_t m = 0; m < M; m++)
      for (int64_t n = 0; n < N; n++) {
        double acc = 0;
        int64_t iacc = 0;
        for (int64_t k = 0; k < K; k++) {
          int64_t ai = aoff + (ta ? k * M + m : m * K + k), bi = boff + (tb ? n * K + k : k * N + n);
          if (q) iacc += ovta_tensor_get_i(a, ai) * ovta_tensor_get_i(b, bi);
          else acc += (ovta_tensor_get_f(a, ai) - az) * (ovta_tensor_get_f(b, bi) - bz);
        }
        int64_t yi = (bt * M + m) * N + n;
        if (q) {
          if (c) iacc += ovta_tensor_get_i(c, n);
          ovta_tensor_put_f(y, yi, ovta_requant((int32_t)iacc, shs ? qconv_shift(shs->ints[n]) : shift, lo, hi));
          continue;
        }
        acc *= alpha;
        if (c) {
          int64_t cs[2] = {M, N};
          acc += beta * ovta_tensor_get_f(c, bcast_off(c, 2, cs, m * N + n));
        }
        ovta_tensor_put_f(y, yi, dense ? act(act_name, acc, e->n) : acc);
      }
  }
  free(offs);
  return OVTA_OK;
}

static int ev_pool(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  bool mx = !strcmp(e->n->op, "MaxPool") || !strcmp(e->n->op, "ovta.QMaxPool"), gap = !strcmp(e->n->op, "GlobalAveragePool");
  if (x->rank != 4) return fail(e, OVTA_EUNSUPPORTED, "only 2-D pools are evaluated");
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3], OH = y->shape[2], OW = y->shape[3];
  int64_t k[2] = {H, W}, s[2] = {1, 1}, p[4] = {0, 0, 0, 0}, d[2] = {1, 1};
  if (!gap) {
    const int64_t *ks = ints(e->n, "kernel_shape"), *ss = ints(e->n, "strides"), *ps = ints(e->n, "pads"), *ds = ints(e->n, "dilations");
    if (!ks || !ss || !ps) return fail(e, OVTA_EINVAL, "run shape inference first");
    memcpy(k, ks, sizeof k), memcpy(s, ss, sizeof s), memcpy(p, ps, sizeof p);
    if (ds) memcpy(d, ds, sizeof d);
  }
  bool incl = ovta_node_attr_i(e->n, "count_include_pad", 0) != 0;
  for (int64_t nc = 0; nc < N * C; nc++)
    for (int64_t oh = 0; oh < OH; oh++)
      for (int64_t ow = 0; ow < OW; ow++) {
        double acc = mx ? -INFINITY : 0;
        int64_t cnt = 0;
        for (int64_t kh = 0; kh < k[0]; kh++)
          for (int64_t kw = 0; kw < k[1]; kw++) {
            int64_t ih = oh * s[0] - p[0] + kh * d[0], iw = ow * s[1] - p[1] + kw * d[1];
            bool inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
            /* count_include_pad counts the explicit padding, not the ceil_mode overhang */
            if (!inside) {
              if (incl && ih < H + p[2] && iw < W + p[3]) cnt++;
              continue;
            }
            double v = ovta_tensor_get_f(x, (nc * H + ih) * W + iw);
            acc = mx ? fmax(acc, v) : acc + v;
            cnt++;
          }
        ovta_tensor_put_f(y, (nc * OH + oh) * OW + ow, mx ? acc : acc / (double)(cnt ? cnt : 1));
      }
  return OVTA_OK;
}

/* ovta.QAdd: y = clamp(ovta_requant((a << shift_a) + (b << shift_b), shift), clip_min, clip_max),
 * int32 wrapping (graph.h). */
static int ev_qadd(ev *e) {
  const ovta_tensor *a = IN(e, 0), *b = IN(e, 1);
  ovta_tensor *y = e->out[0];
  int64_t n = ovta_tensor_numel(y);
  if (ovta_tensor_numel(a) != n || ovta_tensor_numel(b) != n) return fail(e, OVTA_EINVAL, "inputs and output differ in size");
  int sa = (int)ovta_node_attr_i(e->n, "shift_a", 0), sb = (int)ovta_node_attr_i(e->n, "shift_b", 0);
  if (sa < 0 || sa > 31 || sb < 0 || sb > 31) return fail(e, OVTA_EINVAL, "shift_a/shift_b outside 0..31");
  int shift = (int)ovta_node_attr_i(e->n, "shift", 0);
  int32_t lo = (int32_t)ovta_node_attr_i(e->n, "clip_min", -128), hi = (int32_t)ovta_node_attr_i(e->n, "clip_max", 127);
  for (int64_t i = 0; i < n; i++) {
    uint32_t s = ((uint32_t)(int32_t)ovta_tensor_get_i(a, i) << sa) + ((uint32_t)(int32_t)ovta_tensor_get_i(b, i) << sb);
    ovta_tensor_put_f(y, i, ovta_requant((int32_t)s, shift, lo, hi));
  }
  return OVTA_OK;
}

/* ovta.QGlobalAvgPool: y[n, c] = clamp(ovta_requant(sum_hw(x) * mult, shift), clip_min, clip_max),
 * int32 wrapping (graph.h). */
static int ev_qgap(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  if (x->rank < 3) return fail(e, OVTA_EINVAL, "input must have rank >= 3");
  int64_t nc = x->shape[0] * x->shape[1], hw = nc ? ovta_tensor_numel(x) / nc : 0;
  if (ovta_tensor_numel(y) != nc) return fail(e, OVTA_EINVAL, "output is not [N, C, 1, 1]");
  uint32_t mult = (uint32_t)ovta_node_attr_i(e->n, "mult", 1);
  int shift = (int)ovta_node_attr_i(e->n, "shift", 0);
  int32_t lo = (int32_t)ovta_node_attr_i(e->n, "clip_min", -128), hi = (int32_t)ovta_node_attr_i(e->n, "clip_max", 127);
  for (int64_t i = 0; i < nc; i++) {
    uint32_t s = 0;
    for (int64_t k = 0; k < hw; k++) s += (uint32_t)(int32_t)ovta_tensor_get_i(x, i * hw + k);
    ovta_tensor_put_f(y, i, ovta_requant((int32_t)(s * mult), shift, lo, hi));
  }
  return OVTA_OK;
}

static int ev_bn(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  float eps = ovta_node_attr_f(e->n, "epsilon", 1e-5f);
  int64_t C = x->shape[1], inner = ovta_shape_numel(x->shape + 2, x->rank - 2), n = ovta_tensor_numel(x);
  for (int64_t i = 0; i < n; i++) {
    int64_t c = (i / inner) % C;
    double v = (ovta_tensor_get_f(x, i) - ovta_tensor_get_f(IN(e, 3), c)) / sqrt(ovta_tensor_get_f(IN(e, 4), c) + eps);
    ovta_tensor_put_f(e->out[0], i, v * ovta_tensor_get_f(IN(e, 1), c) + ovta_tensor_get_f(IN(e, 2), c));
  }
  return OVTA_OK;
}

/* Same data, new shape (Identity, Flatten, Reshape, Squeeze, Unsqueeze). */
static int ev_copy(ev *e) {
  memcpy(e->out[0]->data, IN(e, 0)->data, e->out[0]->nbytes);
  return OVTA_OK;
}

static int ev_transpose(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  const int64_t *perm = ints(e->n, "perm");
  int r = x->rank;
  int64_t xs[OVTA_MAX_RANK], n = ovta_tensor_numel(y);
  xs[r - 1] = 1;
  for (int i = r - 2; i >= 0; i--) xs[i] = xs[i + 1] * x->shape[i + 1];
  size_t es = ovta_dtype_size(x->dtype);
  for (int64_t i = 0; i < n; i++) {
    int64_t idx = i, off = 0;
    for (int d = r - 1; d >= 0; d--) {
      off += (idx % y->shape[d]) * xs[perm[d]];
      idx /= y->shape[d];
    }
    memcpy((char *)y->data + i * es, (const char *)x->data + off * es, es);
  }
  return OVTA_OK;
}

/* DepthToSpace / SpaceToDepth (blocksize b) over the spatial side viewed as [N, C, H, b, W, b]:
 * depth channel (i*b + j)*C + c (DCR; CRD: c*b^2 + i*b + j, DepthToSpace only) holds spatial
 * element [c, h*b + i, w*b + j]. */
static int ev_space_depth(ev *e, bool to_space) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  const ovta_tensor *s = to_space ? y : x, *d = to_space ? x : y; /* spatial side, depth side */
  int64_t b = ovta_node_attr_i(e->n, "blocksize", 1), N = s->shape[0], C = s->shape[1], H = d->shape[2], W = d->shape[3];
  bool crd = to_space && !strcmp(ovta_node_attr_s(e->n, "mode", "DCR"), "CRD");
  size_t es = ovta_dtype_size(x->dtype);
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H * b; h++)
        for (int64_t w = 0; w < W * b; w++) {
          int64_t ij = (h % b) * b + w % b, dc = crd ? c * b * b + ij : ij * C + c;
          int64_t so = ((n * C + c) * H * b + h) * W * b + w, dof = ((n * C * b * b + dc) * H + h / b) * W + w / b;
          int64_t yo = to_space ? so : dof, xo = to_space ? dof : so;
          memcpy((char *)y->data + yo * es, (const char *)x->data + xo * es, es);
        }
  return OVTA_OK;
}

static int ev_concat(ev *e) {
  ovta_tensor *y = e->out[0];
  int64_t axis = ovta_node_attr_i(e->n, "axis", 0);
  if (axis < 0) axis += y->rank;
  int64_t outer = ovta_shape_numel(y->shape, (int)axis);
  size_t es = ovta_dtype_size(y->dtype);
  int64_t yinner = ovta_shape_numel(y->shape + axis, y->rank - (int)axis), pos = 0;
  for (int i = 0; i < e->n->n_inputs; i++) {
    const ovta_tensor *x = IN(e, i);
    int64_t xin = ovta_shape_numel(x->shape + axis, x->rank - (int)axis);
    for (int64_t o = 0; o < outer; o++)
      memcpy((char *)y->data + (o * yinner + pos) * es, (const char *)x->data + o * xin * es, (size_t)xin * es);
    pos += xin;
  }
  return OVTA_OK;
}

static int ev_pad(ev *e) {
  const ovta_tensor *x = IN(e, 0), *pads = IN(e, 1), *cv = IN(e, 2);
  ovta_tensor *y = e->out[0];
  if (strcmp(ovta_node_attr_s(e->n, "mode", "constant"), "constant") || IN(e, 3))
    return fail(e, OVTA_EUNSUPPORTED, "only constant-mode Pad over all axes is evaluated");
  int r = x->rank;
  double v = cv ? ovta_tensor_get_f(cv, 0) : 0;
  int64_t n = ovta_tensor_numel(y);
  for (int64_t i = 0; i < n; i++) {
    int64_t idx = i, off = 0, stride = 1;
    bool inside = true;
    for (int d = r - 1; d >= 0; d--) {
      int64_t c = idx % y->shape[d] - ovta_tensor_get_i(pads, d);
      idx /= y->shape[d];
      if (c < 0 || c >= x->shape[d]) inside = false;
      off += c * stride;
      stride *= x->shape[d];
    }
    ovta_tensor_put_f(y, i, inside ? ovta_tensor_get_f(x, off) : v);
  }
  return OVTA_OK;
}

static int ev_quant(ev *e) {
  const ovta_tensor *x = IN(e, 0), *sc = IN(e, 1), *zp = IN(e, 2);
  ovta_tensor *y = e->out[0];
  bool qz = !strcmp(e->n->op, "QuantizeLinear");
  int64_t n = ovta_tensor_numel(x), axis = ovta_node_attr_i(e->n, "axis", 1);
  if (axis < 0) axis += x->rank;
  int64_t inner = sc->rank == 1 ? ovta_shape_numel(x->shape + axis + 1, x->rank - (int)axis - 1) : 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t c = sc->rank == 1 ? (i / inner) % x->shape[axis] : 0;
    double s = ovta_tensor_get_f(sc, c), z = zp ? ovta_tensor_get_f(zp, c) : 0;
    if (qz) ovta_tensor_put_f(y, i, nearbyint(ovta_tensor_get_f(x, i) / s) + z); /* half to even; put saturates */
    else ovta_tensor_put_f(y, i, (ovta_tensor_get_f(x, i) - z) * s);
  }
  return OVTA_OK;
}

/* ovta.Pack / ovta.Unpack (graph.h ovta_layout). */
static int ev_pack(ev *e) {
  bool pack = !strcmp(e->n->op, "ovta.Pack");
  const ovta_tensor *src = IN(e, 0);
  ovta_tensor *dst = e->out[0];
  const ovta_tensor *plain = pack ? src : dst, *packed = pack ? dst : src;
  ovta_layout l = packed->layout;
  size_t es = ovta_dtype_size(src->dtype);
  if (pack) memset(dst->data, 0, dst->nbytes);
  int64_t n = ovta_tensor_numel(plain);
  int64_t d1 = plain->rank > 1 ? plain->shape[1] : 1;
  int64_t H = plain->rank == 4 ? plain->shape[2] : 1, W = plain->rank == 4 ? plain->shape[3] : 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t off;
    if (l == OVTA_LAYOUT_ACC) {
      off = i; /* [C] -> [C/bo, bo]: same order, padded at the end */
    } else {
      const int64_t *ps = packed->shape; /* [D0/r, D1/bi, H, W, r, bi] */
      int64_t w = i % W, h = (i / W) % H, c = (i / (W * H)) % d1, r0 = i / (W * H * d1);
      off = ((((r0 / ps[4]) * ps[1] + c / ps[5]) * H + h) * W + w) * ps[4] * ps[5] + (r0 % ps[4]) * ps[5] + c % ps[5];
    }
    if (pack) memcpy((char *)dst->data + off * es, (const char *)src->data + i * es, es);
    else memcpy((char *)dst->data + i * es, (const char *)src->data + off * es, es);
  }
  return OVTA_OK;
}

/* ---------------------------------------------------------------- shape arithmetic
 * The operators models use to compute shapes inside the graph (Gather, Slice, Expand,
 * ConstantOfShape, Range, ReduceProd/ReduceSum over int64 shapes), so inference can fold them. */

static int64_t strides_of(const int64_t *shape, int r, int64_t *st) {
  int64_t s = 1;
  for (int d = r - 1; d >= 0; d--) st[d] = s, s *= shape[d];
  return s;
}

/* Gather (13): y[pre, idx.., post] = x[pre, indices[idx..], post], negative indices from the end. */
static int ev_gather(ev *e) {
  const ovta_tensor *x = IN(e, 0), *ix = IN(e, 1);
  ovta_tensor *y = e->out[0];
  int64_t axis = ovta_node_attr_i(e->n, "axis", 0);
  if (axis < 0) axis += x->rank;
  int64_t outer = ovta_shape_numel(x->shape, (int)axis), len = x->shape[axis];
  int64_t inner = ovta_shape_numel(x->shape + axis + 1, x->rank - (int)axis - 1), ni = ovta_tensor_numel(ix);
  size_t es = ovta_dtype_size(x->dtype);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < ni; k++) {
      int64_t j = ovta_tensor_get_i(ix, k);
      if (j < 0) j += len;
      if (j < 0 || j >= len) return fail(e, OVTA_EINVAL, "index %lld is out of range for a dim of %lld", (long long)ovta_tensor_get_i(ix, k), (long long)len);
      memcpy((char *)y->data + ((o * ni + k) * inner) * (int64_t)es, (const char *)x->data + ((o * len + j) * inner) * (int64_t)es,
             (size_t)inner * es);
    }
  return OVTA_OK;
}

static int ev_slice(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  int64_t st[OVTA_MAX_RANK], en[OVTA_MAX_RANK], ax[OVTA_MAX_RANK], sp[OVTA_MAX_RANK];
  int64_t start[OVTA_MAX_RANK], step[OVTA_MAX_RANK], dim[OVTA_MAX_RANK], xs[OVTA_MAX_RANK];
  int na = (int)ovta_tensor_numel(IN(e, 1));
  if (na > OVTA_MAX_RANK || ovta_tensor_numel(IN(e, 2)) != na) return fail(e, OVTA_EINVAL, "bad starts/ends");
  for (int i = 0; i < na; i++) {
    st[i] = ovta_tensor_get_i(IN(e, 1), i), en[i] = ovta_tensor_get_i(IN(e, 2), i);
    ax[i] = IN(e, 3) ? ovta_tensor_get_i(IN(e, 3), i) : i;
    sp[i] = IN(e, 4) ? ovta_tensor_get_i(IN(e, 4), i) : 1;
  }
  if (ovta_slice_params(x, st, en, ax, sp, na, start, step, dim)) return fail(e, OVTA_EINVAL, "bad axes or steps");
  strides_of(x->shape, x->rank, xs);
  size_t es = ovta_dtype_size(x->dtype);
  int64_t n = ovta_tensor_numel(y);
  for (int64_t i = 0; i < n; i++) {
    int64_t idx = i, off = 0;
    for (int d = x->rank - 1; d >= 0; d--) {
      off += (start[d] + (idx % y->shape[d]) * step[d]) * xs[d];
      idx /= y->shape[d];
    }
    memcpy((char *)y->data + i * (int64_t)es, (const char *)x->data + off * (int64_t)es, es);
  }
  return OVTA_OK;
}

/* Expand: x broadcast to the output's shape (inference computed it). */
static int ev_expand(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  size_t es = ovta_dtype_size(x->dtype);
  int64_t n = ovta_tensor_numel(y);
  for (int64_t i = 0; i < n; i++)
    memcpy((char *)y->data + i * (int64_t)es, (const char *)x->data + bcast_off(x, y->rank, y->shape, i) * (int64_t)es, es);
  return OVTA_OK;
}

static int ev_constant_of_shape(ev *e) {
  const ovta_attr *a = ovta_node_attr(e->n, "value");
  ovta_tensor *y = e->out[0];
  double v = a && a->type == OVTA_ATTR_TENSOR && a->t && a->t->data ? ovta_tensor_get_f(a->t, 0) : 0;
  int64_t n = ovta_tensor_numel(y);
  for (int64_t i = 0; i < n; i++) ovta_tensor_put_f(y, i, v);
  return OVTA_OK;
}

/* Range: y[i] = start + i * delta (integers exact). */
static int ev_range(ev *e) {
  ovta_tensor *y = e->out[0];
  int64_t n = ovta_tensor_numel(y);
  if (is_int_type(y->dtype)) {
    int64_t s = ovta_tensor_get_i(IN(e, 0), 0), d = ovta_tensor_get_i(IN(e, 2), 0);
    for (int64_t i = 0; i < n; i++) ovta_tensor_put_f(y, i, (double)(s + i * d));
  } else {
    double s = ovta_tensor_get_f(IN(e, 0), 0), d = ovta_tensor_get_f(IN(e, 2), 0);
    for (int64_t i = 0; i < n; i++) ovta_tensor_put_f(y, i, s + (double)i * d);
  }
  return OVTA_OK;
}

/* ReduceProd / ReduceSum over int64 values (element counts of shapes): every element of y sums or
 * multiplies the x elements that map to it (axes from the input or the attribute). */
static int ev_reduce_int(ev *e) {
  const ovta_tensor *x = IN(e, 0);
  ovta_tensor *y = e->out[0];
  bool prod = !strcmp(e->n->op, "ReduceProd");
  bool red[OVTA_MAX_RANK] = {0}, any = false;
  const ovta_attr *aa = ovta_node_attr(e->n, "axes");
  int na = IN(e, 1) ? (int)ovta_tensor_numel(IN(e, 1)) : aa && aa->type == OVTA_ATTR_INTS ? aa->n : 0;
  for (int i = 0; i < na; i++) {
    int64_t a = IN(e, 1) ? ovta_tensor_get_i(IN(e, 1), i) : aa->ints[i];
    if (a < 0) a += x->rank;
    if (a < 0 || a >= x->rank) return fail(e, OVTA_EINVAL, "axis out of range");
    red[a] = any = true;
  }
  if (!any && !ovta_node_attr_i(e->n, "noop_with_empty_axes", 0))
    for (int d = 0; d < x->rank; d++) red[d] = true;
  int64_t ys[OVTA_MAX_RANK], ysh[OVTA_MAX_RANK], ny = 1;
  for (int d = 0; d < x->rank; d++) ysh[d] = red[d] ? 1 : x->shape[d];
  ny = strides_of(ysh, x->rank, ys);
  if (ny != ovta_tensor_numel(y)) return fail(e, OVTA_EINVAL, "output size");
  double *acc = malloc(sizeof(double) * (size_t)(ny ? ny : 1));
  if (!acc) return fail(e, OVTA_ENOMEM, "out of memory");
  for (int64_t i = 0; i < ny; i++) acc[i] = prod ? 1 : 0;
  int64_t n = ovta_tensor_numel(x);
  for (int64_t i = 0; i < n; i++) {
    int64_t idx = i, off = 0;
    for (int d = x->rank - 1; d >= 0; d--) {
      if (!red[d]) off += (idx % x->shape[d]) * ys[d];
      idx /= x->shape[d];
    }
    double v = ovta_tensor_get_f(x, i);
    acc[off] = prod ? acc[off] * v : acc[off] + v;
  }
  for (int64_t i = 0; i < ny; i++) ovta_tensor_put_f(y, i, acc[i]);
  free(acc);
  return OVTA_OK;
}

int ovta_eval_node_ref(void *ctx, const ovta_graph *g, const ovta_node *n, ovta_tensor *const *inputs,
                       ovta_tensor **outputs, ovta_error *err) {
  ev e = {g, n, inputs, outputs, err};
  const char *op = n->op;
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] && (!inputs[i] || !inputs[i]->data)) return fail(&e, OVTA_EINVAL, "input %d has no value", i);
  for (int i = 0; i < n->n_outputs; i++) {
    if (!outputs[i]) continue;
    if (i > 0) return fail(&e, OVTA_EUNSUPPORTED, "the reference evaluator computes only the first output");
    if (ovta_tensor_alloc(outputs[i], err)) return err->code;
  }
  if (!strcmp(op, "Relu") || !strcmp(op, "LeakyRelu") || !strcmp(op, "Sigmoid") || !strcmp(op, "HardSigmoid") ||
      !strcmp(op, "HardSwish") || !strcmp(op, "Tanh") || !strcmp(op, "Neg") || !strcmp(op, "Abs") || !strcmp(op, "Exp"))
    return ev_unary(&e);
  if (!strcmp(op, "Clip")) return ev_clip(&e);
  if (!strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div")) return ev_binary(&e);
  if (!strcmp(op, "ovta.Eltwise")) return ev_eltwise(&e);
  for (int k = 0; ELT_OPS[k]; k++)
    if (!strcmp(op, ELT_OPS[k])) return ev_elt(&e);
  if (!strcmp(op, "Softmax")) return ev_softmax(&e);
  if (!strcmp(op, "Conv") || !strcmp(op, "ovta.Conv") || !strcmp(op, "ovta.QConv")) return ev_conv(&e, 0, 0);
  if (!strcmp(op, "ConvInteger"))
    return ev_conv(&e, IN(&e, 2) ? ovta_tensor_get_f(IN(&e, 2), 0) : 0, IN(&e, 3) ? ovta_tensor_get_f(IN(&e, 3), 0) : 0);
  if (!strcmp(op, "Gemm") || !strcmp(op, "MatMul") || !strcmp(op, "ovta.Dense") || !strcmp(op, "ovta.QDense"))
    return ev_matmul(&e, 0, 0);
  if (!strcmp(op, "MatMulInteger"))
    return ev_matmul(&e, IN(&e, 2) ? ovta_tensor_get_f(IN(&e, 2), 0) : 0, IN(&e, 3) ? ovta_tensor_get_f(IN(&e, 3), 0) : 0);
  if (!strcmp(op, "MaxPool") || !strcmp(op, "AveragePool") || !strcmp(op, "GlobalAveragePool") ||
      !strcmp(op, "ovta.QMaxPool"))
    return ev_pool(&e);
  if (!strcmp(op, "ovta.QAdd")) return ev_qadd(&e);
  if (!strcmp(op, "ovta.QGlobalAvgPool")) return ev_qgap(&e);
  if (!strcmp(op, "BatchNormalization")) return ev_bn(&e);
  if (!strcmp(op, "Identity") || !strcmp(op, "Flatten") || !strcmp(op, "Reshape") || !strcmp(op, "Squeeze") ||
      !strcmp(op, "Unsqueeze"))
    return ev_copy(&e);
  if (!strcmp(op, "Transpose")) return ev_transpose(&e);
  if (!strcmp(op, "DepthToSpace") || !strcmp(op, "SpaceToDepth")) return ev_space_depth(&e, op[0] == 'D');
  if (!strcmp(op, "Gather")) return ev_gather(&e);
  if (!strcmp(op, "Slice")) return ev_slice(&e);
  if (!strcmp(op, "Expand")) return ev_expand(&e);
  if (!strcmp(op, "ConstantOfShape")) return ev_constant_of_shape(&e);
  if (!strcmp(op, "Range")) return ev_range(&e);
  if ((!strcmp(op, "ReduceProd") || !strcmp(op, "ReduceSum")) && is_int_type(outputs[0]->dtype)) return ev_reduce_int(&e);
  if (!strcmp(op, "Concat")) return ev_concat(&e);
  if (!strcmp(op, "Pad")) return ev_pad(&e);
  if (!strcmp(op, "QuantizeLinear") || !strcmp(op, "DequantizeLinear")) return ev_quant(&e);
  if (!strcmp(op, "ovta.Pack") || !strcmp(op, "ovta.Unpack")) return ev_pack(&e);
  if (!strcmp(op, "Constant")) {
    const ovta_attr *a = ovta_node_attr(n, "value");
    if (a && a->type == OVTA_ATTR_TENSOR && a->t->data) return ovta_tensor_set_data(outputs[0], a->t->data, a->t->nbytes, err);
  }
  return fail(&e, OVTA_EUNSUPPORTED, "the reference evaluator does not support this operator");
}

/* ---------------------------------------------------------------- graph runner */

static ovta_tensor *value_like(const ovta_tensor *t) {
  ovta_tensor *v = ovta_tensor_new(t->name, t->dtype, t->rank, t->shape);
  if (v) {
    v->layout = t->layout;
    v->logical_rank = t->logical_rank;
    memcpy(v->logical, t->logical, sizeof v->logical);
    v->quant = t->quant;
  }
  return v;
}

int ovta_graph_run(const ovta_graph *g, ovta_eval_node_fn eval, void *eval_ctx, ovta_tensor *const *inputs,
                   ovta_observe_fn observe, void *obs_ctx, ovta_tensor **outputs, ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  if (!eval) eval = ovta_eval_node_ref;
  int nt = g->n_tensors, rc = OVTA_OK;
  ovta_tensor **val = calloc((size_t)(nt ? nt : 1), sizeof *val); /* values we own */
  const ovta_tensor **cur = calloc((size_t)(nt ? nt : 1), sizeof *cur); /* value of each tensor */
  ovta_tensor **ins = NULL, **outs = NULL;
  if (!val || !cur) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    goto done;
  }
  for (int i = 0; i < nt; i++) {
    g->tensors[i]->id = i;
    if (g->tensors[i]->data) cur[i] = g->tensors[i];
  }
  for (int i = 0; i < g->n_inputs; i++) {
    const ovta_tensor *t = g->inputs[i], *v = inputs[i];
    if (!v || !v->data || v->dtype != t->dtype || ovta_tensor_numel(v) != ovta_tensor_numel(t)) {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "graph input '%s': the value given does not match its type %s / shape", t->name,
                     ovta_dtype_name(t->dtype));
      goto done;
    }
    cur[t->id] = v;
    if (observe) observe(obs_ctx, t, v);
  }
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    const ovta_node *n = g->nodes[i];
    ins = calloc((size_t)n->n_inputs + 1, sizeof *ins);
    outs = calloc((size_t)n->n_outputs + 1, sizeof *outs);
    if (!ins || !outs) {
      rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
      break;
    }
    for (int k = 0; k < n->n_inputs; k++) {
      if (!n->inputs[k]) continue;
      ins[k] = (ovta_tensor *)cur[n->inputs[k]->id];
      if (!ins[k]) {
        rc = OVTA_FAIL(err, OVTA_EINVAL, "node '%s' (%s): input '%s' has no value", n->name, n->op, n->inputs[k]->name);
        break;
      }
    }
    for (int k = 0; k < n->n_outputs && !rc; k++)
      if (n->outputs[k] && !(outs[k] = value_like(n->outputs[k]))) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    if (!rc) rc = eval(eval_ctx, g, n, ins, outs, err);
    for (int k = 0; k < n->n_outputs; k++) {
      if (!outs[k]) continue;
      if (!rc && outs[k]->data) {
        int id = n->outputs[k]->id;
        ovta_tensor_free(val[id]);
        val[id] = outs[k];
        cur[id] = outs[k];
        if (observe) observe(obs_ctx, n->outputs[k], outs[k]);
      } else {
        ovta_tensor_free(outs[k]);
      }
    }
    free(ins), free(outs);
    ins = NULL, outs = NULL;
  }
  for (int k = 0; k < g->n_outputs && !rc && outputs; k++) {
    const ovta_tensor *v = cur[g->outputs[k]->id];
    ovta_tensor *c = v ? value_like(v) : NULL;
    if (!c || ovta_tensor_set_data(c, v->data, v->nbytes, err)) {
      ovta_tensor_free(c);
      for (int j = 0; j < k; j++) ovta_tensor_free(outputs[j]), outputs[j] = NULL;
      rc = v ? OVTA_FAIL(err, OVTA_ENOMEM, "out of memory")
             : OVTA_FAIL(err, OVTA_EINVAL, "graph output '%s' has no value", g->outputs[k]->name);
      break;
    }
    outputs[k] = c;
  }
done:
  free(ins), free(outs);
  for (int i = 0; val && i < nt; i++) ovta_tensor_free(val[i]);
  free(val);
  free(cur);
  return rc;
}
