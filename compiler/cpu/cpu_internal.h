/* cpu_internal.h: private to compiler/cpu/: the lowering context of one node, small helpers
 * every operator family uses, the shared cores (activation, saturation, the accumulator's store,
 * matmul and conv nests), and the per-family operator tables lower.c dispatches on.
 * Nothing outside compiler/cpu/ includes this file.
 *
 * Conventions: the function's parameters are the node's present inputs then its present
 * outputs, with the tensors' (inferred, static) shapes; L.in[i] / L.out[i] are NULL for omitted
 * ones. A lowering may re-view a parameter with another shape of the same element count (view()).
 * Every lowering function has the ONNX rule it implements written above it. */
#ifndef OVTA_CPU_INTERNAL_H
#define OVTA_CPU_INTERNAL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define MAXIO 64  /* inputs of a node (Concat, Sum ... take many) */
#define MAXOUT 64 /* outputs of a node (Split) */

typedef struct L {
  lir_func *f;                      /* function being built */
  const ovta_graph *g;              /* graph (opset) */
  const ovta_node *n;               /* node lowered */
  lir_buf *in[MAXIO];               /* per input slot: its parameter, NULL if omitted */
  const ovta_tensor *tin[MAXIO];    /* per input slot: the tensor */
  lir_buf *out[MAXOUT];             /* per output slot */
  const ovta_tensor *tout[MAXOUT];  /* per output slot: the tensor */
  ovta_error *err;                  /* where errors go */
  lir_dtype w8;                     /* lir_lower_node_f32w: the 8-bit dtype of input 1, passed as f32 (else LIR_VOID) */
  unsigned hm_in, hm_out;           /* lir_lower_node_opts: half-major inputs / outputs (bit per slot) */
  unsigned can_in, can_out;         /* set by the schedule: slots it could read / write half-major */
  unsigned halo_in, halo_out;       /* lir_lower_node_opts: half-major slots with halo rows (cpu.h) */
  unsigned can_halo_in, can_halo_out, gain_halo_in; /* set by the schedule (lir_lower_opts) */
  int vec_bits;                     /* the target's preferred vector width (lir_lower_opts.vec_bits; 0 unknown) */
} L;

#define F (l->f)
#define I(v) lir_i64(l->f, (v))

/* ---------------------------------------------------------------- operator tables */

/* One operator of a family: its ONNX (or ovta.) name and its lowering. */
typedef struct cpu_rule {
  const char *op;       /* operator name, NULL ends a table */
  int (*lower)(L *l);   /* builds l->f's body; an error names the node */
} cpu_rule;

/* The families (one file each); lower.c looks an operator up in all of them. */
extern const cpu_rule cpu_rules_elementwise[]; /* elementwise.c */
extern const cpu_rule cpu_rules_quant[];       /* quant.c */
extern const cpu_rule cpu_rules_matmul[];      /* matmul.c */
extern const cpu_rule cpu_rules_conv[];        /* conv.c */
extern const cpu_rule cpu_rules_pool[];        /* pool.c */
extern const cpu_rule cpu_rules_norm[];        /* norm.c */
extern const cpu_rule cpu_rules_data[];        /* data.c */
extern const cpu_rule cpu_rules_logic[];       /* logic.c */
extern const cpu_rule cpu_rules_index[];       /* index.c */
extern const cpu_rule cpu_rules_resize[];      /* resize.c */
extern const cpu_rule cpu_rules_reduce[];      /* reduce.c */
extern const cpu_rule cpu_rules_rnn[];         /* rnn.c */
extern const cpu_rule cpu_rules_signal[];      /* signal.c */
extern const cpu_rule cpu_rules_sample[];      /* sample.c */

/* ---------------------------------------------------------------- helpers */

static inline int unsup(L *l, const char *what) {
  return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s", l->n->name, l->n->op, what);
}
static inline int bad(L *l, const char *what) {
  return OVTA_FAIL(l->err, OVTA_EINVAL, "node %s (%s): %s", l->n->name, l->n->op, what);
}

/* Re-view a parameter with another row-major shape of the same element count. */
static inline void view(lir_buf *b, int ndim, const int64_t *shape) {
  int64_t st = 1;
  b->ndim = ndim;
  for (int i = ndim - 1; i >= 0; i--) {
    b->shape[i] = shape[i];
    b->strides[i] = st;
    st *= shape[i];
  }
}
static inline void view1(lir_buf *b) {
  int64_t n = lir_buf_numel(b);
  view(b, 1, &n);
}

/* A constant of dtype t. */
static inline lir_expr *cst(L *l, lir_dtype t, double v) {
  if (lir_dtype_is_float(t)) return lir_float(F, t, v);
  return lir_int(F, t, (int64_t)v);
}

/* Element of buffer b broadcast (ONNX multidirectional, right-aligned) to an output index of
 * rank r. */
static inline lir_expr *bload(L *l, lir_buf *b, int r, lir_expr **idx) {
  lir_expr *bi[LIR_MAX_DIMS];
  for (int d = 0; d < b->ndim; d++) bi[d] = b->shape[d] == 1 ? I(0) : idx[r - b->ndim + d];
  return lir_load(F, b, bi);
}

/* A scalar or per-axis parameter (scale/zero point): element idx[axis] if it has more than one
 * element, else element 0. */
static inline lir_expr *pload(L *l, lir_buf *b, lir_expr *axis_idx) {
  if (lir_buf_numel(b) <= 1) return lir_load1(F, b, I(0));
  return lir_load1(F, b, axis_idx);
}

static inline lir_expr *band(L *l, lir_expr *a, lir_expr *b) { return a ? lir_bin(F, LIR_AND, a, b) : b; }
/* floor(a / b) for b > 0. */
static inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static inline lir_expr *clampi(L *l, lir_expr *e, int64_t lo, int64_t hi) {
  return lir_max(F, lir_min(F, e, I(hi)), I(lo));
}

/* The spatial split shared by consecutive layers: a map of h rows (h >= CPU_SPLIT_ROWS) is cut
 * into two halves, rows [0, cpu_row_half(h)) and the rest, and the parallel loops of the
 * depthwise and pointwise convs and of the elementwise nests over such maps run over (half,
 * channel ...) half-major, with the same number of iterations per half: the pool gives each
 * thread the same slice of iterations in every loop, so with two threads each one computes the
 * same rows of every layer, on data its core's cache holds (split by channel or at another
 * position, half of a layer's input was written by the other core). 0 when h is not split. */
#define CPU_SPLIT_ROWS 8
static inline int64_t cpu_row_half(int64_t h) { return h >= CPU_SPLIT_ROWS ? (h + 1) / 2 : 0; }
/* The split of an h x w map as flat positions: the row halves' rounded down to whole pointwise
 * tiles (CPU_SPLIT_ALIGN positions; the pointwise convs' parts); 0 when h is not split. */
#define CPU_SPLIT_ALIGN 32
static inline int64_t cpu_pos_half(int64_t h, int64_t w) {
  int64_t s = cpu_row_half(h) * w;
  return s >= CPU_SPLIT_ALIGN ? s / CPU_SPLIT_ALIGN * CPU_SPLIT_ALIGN : s;
}
/* Whether the split at position s of maps of hw elements of eb bytes falls on a 64-byte line
 * (64-byte aligned tensors) and differs from the row split rs: the flat-form depthwise convs
 * then split their outputs there too (cut mid-line, at the row half, the two
 * threads wrote one line of every channel at the same time: MobileNetV2's 28x28 depthwise conv
 * ran 1.4x faster on two threads, not 1.9x), else at the row halves. */
static inline bool cpu_pos_split(int64_t s, int64_t rs, int64_t hw, int64_t eb) {
  return s > 0 && s < hw && s != rs && hw * eb % 64 == 0 && s * eb % 64 == 0;
}

/* Where the parts of a half-major map (cpu.h) are: part 0 the positions [0, e0), part 1
 * [s1, HW) (without halo rows e0 = s1 = the split h). */
typedef struct hm_lay {
  int64_t C, HW; /* channels, positions per channel */
  int64_t e0, s1; /* part 0's end, part 1's start */
} hm_lay;
/* The layout of a [N, C, H, W] map split at h = cpu_pos_half(H, W) (not 0), with the halo rows
 * (cpu.h: the row after the one holding h - 1 in part 0, the row before the one holding h in
 * part 1; each part's extension rounded up to whole 16-float vectors, at most to the map's end:
 * the pointwise convs compute it in vectors, a scalar remainder of 10 positions per channel made
 * the 14x14 ones 3.4x slower) or not. */
#define HM_HALO_ALIGN 16
static inline hm_lay hm_layout(int64_t C, int64_t H, int64_t W, bool halo) {
  int64_t h = cpu_pos_half(H, W), HW = H * W, e0 = ((h + W - 1) / W + 1) * W, s1 = (h / W - 1) * W;
  e0 = h + (e0 - h + HM_HALO_ALIGN - 1) / HM_HALO_ALIGN * HM_HALO_ALIGN;
  s1 = h - (h - s1 + HM_HALO_ALIGN - 1) / HM_HALO_ALIGN * HM_HALO_ALIGN;
  return (hm_lay){C, HW, halo ? (e0 < HW ? e0 : HW) : h, halo ? (s1 > 0 ? s1 : 0) : h};
}
/* The whole rows [0, *r0) in part 0 and [*r1, H) in part 1 of a map of rows of W in layout m. */
static inline void hm_rows(const hm_lay *m, int64_t W, int64_t *r0, int64_t *r1) {
  *r0 = m->e0 / W, *r1 = (m->s1 + W - 1) / W;
}
/* Elements per image of a map in layout m. */
static inline int64_t hm_image(const hm_lay *m) { return m->C * (m->e0 + m->HW - m->s1); }
/* Element p of channel c of image n in part k (0 or 1; p inside the part) of a map in layout m:
 * n*C*T + k*C*e0 + c*len_k + p - k*s1, len_0 = e0, len_1 = HW - s1. */
static inline lir_expr *hm_el(L *l, const hm_lay *m, lir_expr *k, lir_expr *n, lir_expr *c, lir_expr *p) {
  lir_expr *len = lir_addi(F, lir_muli(F, k, m->HW - m->s1 - m->e0), m->e0);
  lir_expr *b = lir_add(F, lir_muli(F, n, hm_image(m)), lir_muli(F, k, m->C * m->e0 - m->s1));
  return lir_add(F, b, lir_add(F, lir_mul(F, c, len), p));
}
/* b (a half-major map in layout m) viewed 1-D over all its images. */
static inline void view_hm(lir_buf *b, const hm_lay *m) {
  int64_t n = b->shape[0] * hm_image(m);
  view(b, 1, &n);
}

/* The nest n closed around body, innermost loop vectorized; with CPU_PAR_ELEMS iterations or
 * more, one loop is parallel (lower.c): body must compute each iteration independently of the
 * others (an elementwise store). */
lir_stmt *cpu_par_nest(L *l, lir_nest *n, lir_stmt *body);
/* The nest n closed around body (innermost loop of kind innermost) with the first outer loop
 * whose extents down to it multiply to 8 or more parallel, when work (the nest's operations,
 * roughly) is CPU_PAR_ELEMS or more; NULL (nothing built) otherwise. Each iteration of that loop
 * must be independent of the others (body's local buffers allocated inside it). */
lir_stmt *cpu_par_outer(L *l, lir_nest *n, lir_stmt *body, lir_for_kind innermost, int64_t work);

/* Loop nest over the shape of a buffer, innermost loop vectorized, split over the threads when
 * large (cpu_par_nest): the body stores one element per iteration, depending on no other. */
static inline lir_stmt *over(L *l, lir_nest *n, lir_buf *b, lir_stmt *body) {
  (void)b;
  return cpu_par_nest(l, n, body);
}

/* A flat elementwise nest, Y = f(X) element by element (Y has X's element count): flat_open
 * checks that input 0 and output 0 are present, views both 1-D, opens a 1-D nest over Y and
 * gives X's element at its index in *x; flat_close stores y into Y (then `also`, when not NULL)
 * and makes the nest the function's body. */
static inline int flat_open(L *l, lir_nest *n, lir_expr **x) {
  lir_buf *X = l->in[0], *Y = l->out[0];
  *x = NULL;
  if (!X || !Y) return bad(l, "missing input or output");
  view1(X);
  view1(Y);
  lir_nest_open(F, n, 1, Y->shape, "i");
  *x = lir_load(F, X, n->idx);
  return 0;
}
static inline void flat_close(L *l, lir_nest *n, lir_expr *y, lir_stmt *also) {
  lir_stmt *st = lir_store(F, l->out[0], n->idx, y);
  if (also) st = lir_seq(F, 2, (lir_stmt *[]){st, also});
  F->body = over(l, n, l->out[0], st);
}

/* The attribute ints (NULL when absent) and its count. */
static inline const int64_t *ints(L *l, const char *name, int *cnt) {
  const ovta_attr *a = ovta_node_attr(l->n, name);
  if (!a || a->type != OVTA_ATTR_INTS) {
    *cnt = 0;
    return NULL;
  }
  *cnt = a->n;
  return a->ints;
}

static inline int norm_axis(int64_t a, int r) { return (int)(a < 0 ? a + r : a); }

/* Open a loop nest over Y's shape and load each of the first nin inputs broadcast (ONNX
 * multidirectional) to it into v[] (NULL for an omitted input); an error when an input does not
 * broadcast (elementwise.c). */
int cpu_bcast_open(L *l, lir_buf *Y, int nin, lir_nest *n, lir_expr **v);
/* Y = op(A, B), A and B of one dtype, broadcast; cmp: op yields LIR_BOOL, stored as a bool
 * byte (elementwise.c; the rule above lower_binary). */
int cpu_binary(L *l, lir_binop op, bool cmp);
/* A local scalar buffer of dtype t (wrap its users in lir_alloc_stmt), its value, a store. */
static inline lir_buf *sc_new(L *l, const char *name, lir_dtype t) {
  return lir_buf_new(F, name, t, 0, NULL, LIR_SCOPE_LOCAL);
}
static inline lir_expr *sc_get(L *l, lir_buf *b) { return lir_load(F, b, NULL); }
static inline lir_stmt *sc_set(L *l, lir_buf *b, lir_expr *v) { return lir_store(F, b, NULL, v); }
/* e converted to t (e itself when it is of type t). */
static inline lir_expr *as_type(L *l, lir_dtype t, lir_expr *e) { return e->dtype == t ? e : lir_cast(F, t, e); }
/* A SEQ of the statements listed. */
#define SEQ(...) lir_seq(F, (int)(sizeof((lir_stmt *[]){__VA_ARGS__}) / sizeof(lir_stmt *)), (lir_stmt *[]){__VA_ARGS__})

/* ---------------------------------------------------------------- shared cores */

typedef enum {
  U_RELU, U_LEAKY, U_SIGMOID, U_HSIG, U_HSWISH, U_TANH, U_IDENT, U_NEG, U_ABS, U_EXP,
  U_LOG, U_SQRT, U_RECIP, U_FLOOR, U_CEIL, U_ROUND, U_SIGN, U_ERF,
  U_SIN, U_COS, U_TAN, U_ASIN, U_ACOS, U_ATAN, U_SINH, U_COSH, U_ASINH, U_ACOSH, U_ATANH,
  U_ELU, U_SELU, U_CELU, U_THRELU, U_SOFTPLUS, U_SOFTSIGN, U_SHRINK, U_MISH
} unop_t;
/* One unary operator on value x of dtype t, with its two parameters (elementwise.c). */
lir_expr *cpu_act_expr(L *l, unop_t op, lir_expr *x, double alpha, double beta);
/* Saturate a float value (already rounded) into integer dtype t and convert (quant.c). */
lir_expr *cpu_sat_cast(L *l, lir_expr *v, lir_dtype t);

/* What happens to the accumulator of a matmul or conv at one output element. */
typedef struct post {
  int kind;          /* P_STORE, P_BIAS_F, P_QLINEAR, P_GEMM, P_QFUSED */
  lir_buf *bias;     /* bias per output channel (P_BIAS_F, P_QLINEAR, P_QFUSED), may be NULL */
  lir_buf *sa, *sb;  /* P_QLINEAR: scales of the two operands (scalar or per channel) */
  lir_buf *sy, *zy;  /* P_QLINEAR: output scale and zero point */
  double alpha, beta;/* P_GEMM: Y = alpha*acc + beta*C (bias = C, broadcast) */
  unop_t act;        /* activation after the bias (fused ops) */
  double act_a, act_b; /* activation parameters */
  double clip_lo, clip_hi; /* clip activation bounds */
  bool clip;         /* apply clip_lo/clip_hi */
  int shift;         /* P_QFUSED: ovta_requant shift */
  lir_buf *shifts;   /* P_QFUSED per channel: i32 shift per output channel (NULL: shift) */
  bool shifts_pos;   /* every one of shifts in 1..31 (a right shift with rounding, no left shift) */
  int64_t qlo, qhi;  /* P_QFUSED: clamp bounds */
} post;
enum { P_STORE, P_BIAS_F, P_QLINEAR, P_GEMM, P_QFUSED };
/* The store of acc into Y at oidx; ch is the output-channel index (bias, per-channel scales)
 * (matmul.c). */
lir_stmt *cpu_post_store(L *l, const post *p, lir_buf *Y, lir_expr **oidx, lir_expr *ch, lir_expr *acc);
/* The product term of a matmul/conv: float, or integer (x - zx) * (w - zw) in i32 (matmul.c). */
lir_expr *cpu_prod(L *l, lir_dtype acc, lir_expr *x, lir_expr *zx, lir_expr *w, lir_expr *zw);
/* Batched matmul with numpy broadcasting of the batch dims (matmul.c; the rule above it). */
int cpu_matmul_core(L *l, lir_buf *A, lir_buf *B, lir_buf *Y, bool ta, bool tb, lir_dtype acc_t,
                    lir_buf *za, lir_buf *zb, const post *p);

typedef struct convp {
  int k;                       /* spatial dims */
  int64_t stride[LIR_MAX_DIMS];  /* strides */
  int64_t dil[LIR_MAX_DIMS];     /* dilations */
  int64_t pad[LIR_MAX_DIMS];     /* padding at the start of each spatial dim */
  int64_t pad_end[LIR_MAX_DIMS]; /* padding at the end */
  int64_t kern[LIR_MAX_DIMS];    /* kernel extent */
} convp;
/* Strides, dilations, pads (explicit or auto_pad) of a conv/pool window (conv.c). */
int cpu_window(L *l, const lir_buf *X, const lir_buf *Y, const int64_t *kern, convp *c);
/* The conv nest, any spatial rank, groups, zero points, post (conv.c; the rule above it). */
int cpu_conv_core(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, lir_dtype acc_t, lir_buf *zx, lir_buf *zw,
                  const post *p);
/* The tiled schedules of a 2-D conv, float or 8-bit without zero points (checked by
 * cpu_conv_core): F's body built (0), an error, or 1 when they do not apply (conv_tiled.c). */
int cpu_conv_fast(L *l, lir_buf *X, lir_buf *W, lir_buf *Y, const convp *c, int64_t G, lir_dtype acc_t, const post *p);
/* lir_lower_node_f32w's refusal: the schedule of the node does not read its weights as f32. */
int cpu_no_f32w(L *l);
/* The activation of a fused op (attribute "act") into p (conv.c). */
int cpu_fused_act(L *l, post *p);

#endif
