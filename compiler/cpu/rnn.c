/* rnn.c: the recurrent operators RNN, GRU and LSTM (opsets 7 and 14), f32 and f64.
 *
 * One schedule for the three: W and R are first transposed into local buffers ([D, K, G*H],
 * contiguous along the gate rows). Then per direction, per batch entry b, the hidden (and cell)
 * state lives in local buffers h[H] (c[H]); each time step computes the gate pre-activations
 * a[G*H] = Wb + Rb + x_t W^T + h R^T (the reduction outside, the G*H rows innermost and
 * vectorized, accumulated in the tensor type), then the cell update elementwise over j < H,
 * writing Y. Steps past sequence_lens[b] (read at run time, clamped into [0, seq]) store zeros
 * into Y; Y_h/Y_c get the state after the last valid step (the initial state when len is 0).
 * The reverse direction runs t = len-1 .. 0 over the valid steps only (as onnxruntime does).
 *
 * Notation (ONNX): X [seq, batch, input] (layout 1: [batch, seq, input]); W [D, G*H, input],
 * R [D, G*H, H], B [D, 2*G*H] = [Wb, Rb]; t the time step, (.) the elementwise product; f, g, h
 * the activations of a direction (activations attribute, g per direction); clip bounds every
 * activation's input to [-clip, clip] when given. */

#include <strings.h>

#include "cpu_internal.h"

/* Activations beyond cpu_act_expr's unary operators. */
enum { A_AFFINE = -1, A_SCALEDTANH = -2 };

/* One activation function of the RNN family. */
typedef struct act {
  int kind;       /* an unop_t, or A_AFFINE / A_SCALEDTANH */
  double a, b;    /* alpha, beta */
} act;

/* The activations the ONNX RNN family lists, the parameters each takes and their defaults. */
static const struct {
  const char *name; /* ONNX name (matched ignoring case) */
  int kind;         /* unop_t or A_* */
  int np;           /* parameters taken: 0, 1 (alpha) or 2 (alpha, beta) */
  double a, b;      /* defaults: those of the operator of that name */
} ACTS[] = {
    {"Relu", U_RELU, 0, 0, 0},          {"Tanh", U_TANH, 0, 0, 0},
    {"Sigmoid", U_SIGMOID, 0, 0, 0},    {"Affine", A_AFFINE, 2, 1.0, 0.0},
    {"LeakyRelu", U_LEAKY, 1, 0.01, 0}, {"ThresholdedRelu", U_THRELU, 1, 1.0, 0},
    {"ScaledTanh", A_SCALEDTANH, 2, 1.0, 1.0}, {"HardSigmoid", U_HSIG, 2, 0.2, 0.5},
    {"Elu", U_ELU, 1, 1.0, 0},          {"Softsign", U_SOFTSIGN, 0, 0, 0},
    {"Softplus", U_SOFTPLUS, 0, 0, 0},
};

/* What the lowering of one node needs. */
typedef struct rnn {
  int g;           /* gates: 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f, c) */
  int nact;        /* activations per direction: 1, 2, 3 */
  int nd;          /* directions: 1 or 2 */
  bool reverse;    /* direction "reverse" (bidirectional: direction 1 is reverse) */
  bool layout;     /* layout 1: batch-major X, Y, initial/final states */
  bool lbr;        /* GRU linear_before_reset */
  bool coupled;    /* LSTM input_forget: f = 1 - i */
  double clip;     /* clip threshold, 0 when none */
  int64_t S, NB, I, H; /* seq, batch, input, hidden */
  lir_dtype t;     /* element type */
  act f[2][3];     /* per direction: f, g, h */
  lir_buf *h, *c;  /* local state: hidden, cell (LSTM) */
  lir_buf *a, *rr; /* local gate pre-activations [G*H]; GRU's recurrent part of gate h [H] */
  lir_buf *wt, *rt; /* local W, R transposed: [D, input, G*H], [D, H, G*H] */
} rnn;

/* Parse activations / activation_alpha / activation_beta into r->f. Alphas and betas are taken
 * in the order of the activations, one for each function that has that parameter (as
 * onnxruntime does); missing ones keep the function's default. */
static int rnn_acts(L *l, rnn *r) {
  static const char *const DFLT[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  const ovta_attr *names = ovta_node_attr(l->n, "activations");
  const ovta_attr *al = ovta_node_attr(l->n, "activation_alpha"), *be = ovta_node_attr(l->n, "activation_beta");
  if (names && (names->type != OVTA_ATTR_STRINGS || names->n != r->nact * r->nd))
    return bad(l, "activations must list one name per activation and direction");
  if ((al && al->type != OVTA_ATTR_FLOATS) || (be && be->type != OVTA_ATTR_FLOATS))
    return bad(l, "activation_alpha/activation_beta must be lists of floats");
  int ia = 0, ib = 0;
  for (int d = 0; d < r->nd; d++)
    for (int k = 0; k < r->nact; k++) {
      const char *nm = names ? names->strs[d * r->nact + k] : DFLT[r->nact - 1][k];
      size_t i = 0;
      while (i < sizeof ACTS / sizeof ACTS[0] && strcasecmp(nm, ACTS[i].name)) i++;
      if (i == sizeof ACTS / sizeof ACTS[0]) {
        char msg[160];
        snprintf(msg, sizeof msg, "activation '%s' is not supported", nm);
        return unsup(l, msg);
      }
      act *f = &r->f[d][k];
      f->kind = ACTS[i].kind, f->a = ACTS[i].a, f->b = ACTS[i].b;
      if (ACTS[i].np >= 1 && al && ia < al->n) f->a = al->floats[ia++];
      if (ACTS[i].np >= 2 && be && ib < be->n) f->b = be->floats[ib++];
    }
  return 0;
}

/* The attributes and the shapes of the inputs and outputs (inference checked them; checked
 * again here so that a hand-made graph cannot index out of bounds). */
static int rnn_setup(L *l, rnn *r) {
  const char *op = l->n->op;
  bool lstm = !strcmp(op, "LSTM"), gru = !strcmp(op, "GRU");
  lir_buf *X = l->in[0], *W = l->in[1], *R = l->in[2];
  if (!X || !W || !R) return bad(l, "missing X, W or R");
  if (X->dtype != LIR_F32 && X->dtype != LIR_F64) return unsup(l, "element type other than f32/f64");
  if (X->ndim != 3 || W->ndim != 3 || R->ndim != 3) return bad(l, "X, W and R must have rank 3");
  r->g = lstm ? 4 : gru ? 3 : 1;
  r->nact = lstm ? 3 : gru ? 2 : 1;
  r->t = X->dtype;
  const char *dir = ovta_node_attr_s(l->n, "direction", "forward");
  r->nd = !strcmp(dir, "bidirectional") ? 2 : 1;
  r->reverse = !strcmp(dir, "reverse");
  r->layout = ovta_node_attr_i(l->n, "layout", 0) != 0;
  r->lbr = gru && ovta_node_attr_i(l->n, "linear_before_reset", 0) != 0;
  r->coupled = lstm && ovta_node_attr_i(l->n, "input_forget", 0) != 0;
  r->clip = ovta_node_attr(l->n, "clip") ? ovta_node_attr_f(l->n, "clip", 0) : 0;
  if (r->clip < 0 || isnan(r->clip)) return bad(l, "clip must be positive");
  r->S = X->shape[r->layout ? 1 : 0], r->NB = X->shape[r->layout ? 0 : 1], r->I = X->shape[2];
  r->H = R->shape[2];
  int64_t GH = r->g * r->H, hs[3] = {r->layout ? r->NB : r->nd, r->layout ? r->nd : r->NB, r->H};
  bool ok = W->shape[0] == r->nd && W->shape[1] == GH && W->shape[2] == r->I && R->shape[0] == r->nd && R->shape[1] == GH;
  if (l->in[3]) ok &= l->in[3]->ndim == 2 && l->in[3]->shape[0] == r->nd && l->in[3]->shape[1] == 2 * GH;
  if (l->in[4]) ok &= l->in[4]->ndim == 1 && l->in[4]->shape[0] == r->NB && l->in[4]->dtype == LIR_I32;
  for (int i = 5; i < (lstm ? 7 : 6); i++)
    if (l->in[i]) ok &= l->in[i]->ndim == 3 && !memcmp(l->in[i]->shape, hs, sizeof hs);
  if (lstm && l->in[7]) ok &= l->in[7]->ndim == 2 && l->in[7]->shape[0] == r->nd && l->in[7]->shape[1] == 3 * r->H;
  for (int i = 1; i < l->n->n_inputs; i++)
    if (l->in[i] && i != 4) ok &= l->in[i]->dtype == r->t;
  for (int k = 1; k < l->n->n_outputs && k < 3; k++)
    if (l->out[k]) ok &= l->out[k]->ndim == 3 && !memcmp(l->out[k]->shape, hs, sizeof hs) && l->out[k]->dtype == r->t;
  if (l->out[0]) {
    int64_t ys[4] = {r->S, r->nd, r->NB, r->H};
    if (r->layout) ys[0] = r->NB, ys[1] = r->S, ys[2] = r->nd;
    ok &= l->out[0]->ndim == 4 && !memcmp(l->out[0]->shape, ys, sizeof ys) && l->out[0]->dtype == r->t;
  }
  if (!ok) return bad(l, "input or output shapes do not match X, W, R and the attributes");
  return rnn_acts(l, r);
}

/* f(x) with clip applied to its input. */
static lir_expr *rnn_act(L *l, const rnn *r, const act *f, lir_expr *x) {
  lir_dtype t = r->t;
  if (r->clip > 0) x = lir_max(F, lir_min(F, x, cst(l, t, r->clip)), cst(l, t, -r->clip));
  if (f->kind == A_AFFINE) return lir_add(F, lir_mul(F, cst(l, t, f->a), x), cst(l, t, f->b));
  if (f->kind == A_SCALEDTANH) return lir_mul(F, cst(l, t, f->a), lir_call1(F, LIR_TANH, lir_mul(F, cst(l, t, f->b), x)));
  return cpu_act_expr(l, (unop_t)f->kind, x, f->a, f->b);
}

/* Index of a state tensor (initial_h/c, Y_h, Y_c): [d, b, j] (layout 1: [b, d, j]). */
static lir_expr **sidx(L *l, const rnn *r, int d, lir_expr *b, lir_expr *j, lir_expr **v) {
  v[0] = r->layout ? b : I(d), v[1] = r->layout ? I(d) : b, v[2] = j;
  return v;
}
/* Index of Y: [t, d, b, j] (layout 1: [b, t, d, j]). */
static lir_expr **yidx(L *l, const rnn *r, lir_expr *t, int d, lir_expr *b, lir_expr *j, lir_expr **v) {
  if (r->layout) v[0] = b, v[1] = t, v[2] = I(d);
  else v[0] = t, v[1] = I(d), v[2] = b;
  v[3] = j;
  return v;
}

/* The gate rows' dot products, for k < n: dst[doff + k] += bias[d, boff + k0 + k] (when B is
 * given) + sum_m v(m) * M[d, k0 + k, m], M given transposed (MT [D, K, G*H], contiguous along k):
 * the reduction over m outside, the rows k innermost and vectorized. v(m) is the vector (X row,
 * h or r(.)h, never dst), built by vec with its context. */
static lir_stmt *rnn_dot(L *l, const rnn *r, int d, lir_buf *dst, int64_t doff, int64_t k0, int64_t n, lir_buf *MT,
                         int64_t boff, lir_expr *(*vec)(L *, const rnn *, lir_expr *, void *), void *vctx) {
  lir_var *k = lir_var_new(F, "k", LIR_I64), *k2 = lir_var_new(F, "k", LIR_I64), *m = lir_var_new(F, "m", LIR_I64);
  lir_var *vm = lir_var_new(F, "v", r->t);
  lir_expr *di[1] = {lir_addi(F, lir_ref(F, k), doff)};
  lir_expr *w = lir_load(F, MT, (lir_expr *[]){I(d), lir_ref(F, m), lir_addi(F, lir_ref(F, k), k0)});
  lir_stmt *acc = lir_store(F, dst, di, lir_add(F, lir_load(F, dst, di), lir_mul(F, lir_ref(F, vm), w)));
  lir_stmt *dot = lir_for(F, m, I(0), I(MT->shape[1]), LIR_FOR_SERIAL,
                          lir_let(F, vm, vec(l, r, lir_ref(F, m), vctx), lir_for(F, k, I(0), I(n), LIR_FOR_VECTORIZED, acc)));
  if (!l->in[3]) return dot;
  lir_expr *d2[1] = {lir_addi(F, lir_ref(F, k2), doff)};
  lir_expr *bias = lir_load(F, l->in[3], (lir_expr *[]){I(d), lir_addi(F, lir_ref(F, k2), k0 + boff)});
  return SEQ(lir_for(F, k2, I(0), I(n), LIR_FOR_VECTORIZED, lir_store(F, dst, d2, lir_add(F, lir_load(F, dst, d2), bias))), dot);
}

/* MT[d, m, k] = M[d, k, m]: a weight tensor transposed once per call (rnn_dot reads it along k). */
static lir_stmt *rnn_transpose(L *l, lir_buf *M, lir_buf *MT) {
  lir_nest n;
  lir_nest_open(F, &n, 3, M->shape, "w");
  lir_stmt *st = lir_store(F, MT, (lir_expr *[]){n.idx[0], n.idx[2], n.idx[1]}, lir_load(F, M, n.idx));
  return lir_nest_close(F, &n, st, LIR_FOR_SERIAL);
}

/* The vectors of the dot products: X[t, b, m] (ctx: {t, b}), h[m], r(.)h = a[H + m] * h[m]. */
static lir_expr *vec_x(L *l, const rnn *r, lir_expr *m, void *ctx) {
  lir_expr **tb = ctx;
  return lir_load(F, l->in[0], (lir_expr *[]){r->layout ? tb[1] : tb[0], r->layout ? tb[0] : tb[1], m});
}
static lir_expr *vec_h(L *l, const rnn *r, lir_expr *m, void *ctx) { return lir_load(F, r->h, (lir_expr *[]){m}); }
static lir_expr *vec_rh(L *l, const rnn *r, lir_expr *m, void *ctx) {
  return lir_mul(F, lir_load(F, r->a, (lir_expr *[]){lir_addi(F, m, r->H)}), lir_load(F, r->h, (lir_expr *[]){m}));
}

/* b[0, n) = 0. */
static lir_stmt *rnn_zero(L *l, lir_buf *b, int64_t n, lir_dtype t) {
  lir_var *k = lir_var_new(F, "k", LIR_I64);
  return lir_for(F, k, I(0), I(n), LIR_FOR_VECTORIZED, lir_store(F, b, (lir_expr *[]){lir_ref(F, k)}, cst(l, t, 0)));
}

/* a(j): the gate pre-activation a[off + j]. */
static lir_expr *ga(L *l, const rnn *r, int64_t off, lir_expr *j) { return lir_load(F, r->a, (lir_expr *[]){lir_addi(F, j, off)}); }

/* RNN (the cell of one step, per j < H):
 *   Ht = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Wbi + Rbi)                        (a[j] holds the sum) */
static lir_stmt *cell_rnn(L *l, const rnn *r, int d, lir_expr *j) {
  return lir_store(F, r->h, (lir_expr *[]){j}, rnn_act(l, r, &r->f[d][0], ga(l, r, 0, j)));
}

/* GRU (gates z, r, h; a[0..2H) hold z and r after f, a[2H..3H) Xt*(Wh^T) + Wbh, rr[j] the
 * recurrent part below):
 *   zt = f(Xt*(Wz^T) + Ht-1*(Rz^T) + Wbz + Rbz)
 *   rt = f(Xt*(Wr^T) + Ht-1*(Rr^T) + Wbr + Rbr)
 *   ht = g(Xt*(Wh^T) + (rt (.) Ht-1)*(Rh^T) + Rbh + Wbh)       linear_before_reset = 0
 *   ht = g(Xt*(Wh^T) + (rt (.) (Ht-1*(Rh^T) + Rbh)) + Wbh)     linear_before_reset != 0
 *   Ht = (1 - zt) (.) ht + zt (.) Ht-1 */
static lir_stmt *cell_gru(L *l, const rnn *r, int d, lir_expr *j) {
  lir_dtype t = r->t;
  lir_expr *rp = lir_load(F, r->rr, (lir_expr *[]){j});
  if (r->lbr) rp = lir_mul(F, ga(l, r, r->H, j), rp);
  lir_var *hn = lir_var_new(F, "hn", t), *z = lir_var_new(F, "z", t);
  lir_expr *hp = lir_load(F, r->h, (lir_expr *[]){j});
  lir_expr *hv = lir_add(F, lir_mul(F, lir_sub(F, cst(l, t, 1), lir_ref(F, z)), lir_ref(F, hn)), lir_mul(F, lir_ref(F, z), hp));
  return lir_let(F, hn, rnn_act(l, r, &r->f[d][1], lir_add(F, ga(l, r, 2 * r->H, j), rp)),
                 lir_let(F, z, ga(l, r, 0, j), lir_store(F, r->h, (lir_expr *[]){j}, hv)));
}

/* LSTM (gates i, o, f, c in a[]; P = [Pi, Po, Pf]; input_forget: ft = 1 - it):
 *   it = f(Xt*(Wi^T) + Ht-1*(Ri^T) + Pi (.) Ct-1 + Wbi + Rbi)
 *   ft = f(Xt*(Wf^T) + Ht-1*(Rf^T) + Pf (.) Ct-1 + Wbf + Rbf)
 *   ct = g(Xt*(Wc^T) + Ht-1*(Rc^T) + Wbc + Rbc)
 *   Ct = ft (.) Ct-1 + it (.) ct
 *   ot = f(Xt*(Wo^T) + Ht-1*(Ro^T) + Po (.) Ct + Wbo + Rbo)
 *   Ht = ot (.) h(Ct) */
static lir_stmt *cell_lstm(L *l, const rnn *r, int d, lir_expr *j) {
  lir_dtype t = r->t;
  int64_t H = r->H;
  lir_buf *P = l->in[7];
  lir_expr *cp = lir_load(F, r->c, (lir_expr *[]){j});
  lir_expr *pi = P ? lir_mul(F, lir_load(F, P, (lir_expr *[]){I(d), j}), cp) : NULL;
  lir_expr *pf = P ? lir_mul(F, lir_load(F, P, (lir_expr *[]){I(d), lir_addi(F, j, 2 * H)}), cp) : NULL;
  lir_var *iv = lir_var_new(F, "i", t), *fv = lir_var_new(F, "f", t), *cv = lir_var_new(F, "ct", t), *Cv = lir_var_new(F, "C", t);
  lir_var *ov = lir_var_new(F, "o", t);
  lir_expr *ie = ga(l, r, 0, j), *fe = ga(l, r, 2 * H, j);
  if (pi) ie = lir_add(F, ie, pi), fe = lir_add(F, fe, pf);
  lir_expr *fval = r->coupled ? lir_sub(F, cst(l, t, 1), lir_ref(F, iv)) : rnn_act(l, r, &r->f[d][0], fe);
  lir_expr *Ce = lir_add(F, lir_mul(F, lir_ref(F, fv), cp), lir_mul(F, lir_ref(F, iv), lir_ref(F, cv)));
  lir_expr *oe = ga(l, r, H, j);
  if (P) oe = lir_add(F, oe, lir_mul(F, lir_load(F, P, (lir_expr *[]){I(d), lir_addi(F, j, H)}), lir_ref(F, Cv)));
  lir_expr *hv = lir_mul(F, lir_ref(F, ov), rnn_act(l, r, &r->f[d][2], lir_ref(F, Cv)));
  lir_stmt *st = SEQ(lir_store(F, r->c, (lir_expr *[]){j}, lir_ref(F, Cv)), lir_store(F, r->h, (lir_expr *[]){j}, hv));
  st = lir_let(F, ov, rnn_act(l, r, &r->f[d][0], oe), st);
  st = lir_let(F, Cv, Ce, st);
  st = lir_let(F, cv, rnn_act(l, r, &r->f[d][1], ga(l, r, 3 * H, j)), st);
  st = lir_let(F, fv, fval, st);
  return lir_let(F, iv, rnn_act(l, r, &r->f[d][0], ie), st);
}

/* Y[t] = Ht for one step of direction d, batch entry b: the gate pre-activations (a = Wb + Rb +
 * Xt*W^T + Ht-1*R^T; GRU: gate h's recurrent part apart, in rr), then the cell per j < H. */
static lir_stmt *rnn_step(L *l, const rnn *r, int d, lir_expr *b, lir_expr *t) {
  int64_t H = r->H, GH = r->g * H;
  lir_expr *tb[2] = {t, b};
  lir_block blk;
  lir_block_init(&blk, F);
  lir_block_add(&blk, rnn_zero(l, r->a, GH, r->t));
  lir_block_add(&blk, rnn_dot(l, r, d, r->a, 0, 0, GH, r->wt, 0, vec_x, tb));
  lir_block_add(&blk, rnn_dot(l, r, d, r->a, 0, 0, r->g == 3 ? 2 * H : GH, r->rt, GH, vec_h, NULL));
  if (r->g == 3) { /* z, r activated in place; rr = Rbh + (lbr ? Ht-1 : rt (.) Ht-1) * Rh^T */
    lir_var *k = lir_var_new(F, "k", LIR_I64);
    lir_expr *ki[1] = {lir_ref(F, k)};
    lir_block_add(&blk, lir_for(F, k, I(0), I(2 * H), LIR_FOR_SERIAL,
                                lir_store(F, r->a, ki, rnn_act(l, r, &r->f[d][0], lir_load(F, r->a, ki)))));
    lir_block_add(&blk, rnn_zero(l, r->rr, H, r->t));
    lir_block_add(&blk, rnn_dot(l, r, d, r->rr, 0, 2 * H, H, r->rt, GH, r->lbr ? vec_h : vec_rh, NULL));
  }
  lir_var *j = lir_var_new(F, "j", LIR_I64);
  lir_expr *jj = lir_ref(F, j), *v[4];
  lir_stmt *cell = r->g == 1 ? cell_rnn(l, r, d, jj) : r->g == 3 ? cell_gru(l, r, d, jj) : cell_lstm(l, r, d, jj);
  if (l->out[0]) cell = SEQ(cell, lir_store(F, l->out[0], yidx(l, r, t, d, b, jj, v), lir_load(F, r->h, (lir_expr *[]){jj})));
  lir_block_add(&blk, lir_for(F, j, I(0), I(H), LIR_FOR_SERIAL, cell));
  return lir_block_stmt(&blk);
}

/* state[j] = the initial state (input slot in) at [d, b, j], or 0 when absent. */
static lir_stmt *rnn_init(L *l, const rnn *r, lir_buf *state, int in, int d, lir_expr *b) {
  lir_var *j = lir_var_new(F, "j", LIR_I64);
  lir_expr *jj = lir_ref(F, j), *v[3];
  lir_expr *x = l->in[in] ? lir_load(F, l->in[in], sidx(l, r, d, b, jj, v)) : cst(l, r->t, 0);
  return lir_for(F, j, I(0), I(r->H), LIR_FOR_SERIAL, lir_store(F, state, (lir_expr *[]){jj}, x));
}

/* Output slot out (Y_h, Y_c) at [d, b, j] = state[j], when present. */
static lir_stmt *rnn_final(L *l, const rnn *r, lir_buf *state, int out, int d, lir_expr *b) {
  if (out >= l->n->n_outputs || !l->out[out]) return NULL;
  lir_var *j = lir_var_new(F, "j", LIR_I64);
  lir_expr *jj = lir_ref(F, j), *v[3];
  return lir_for(F, j, I(0), I(r->H), LIR_FOR_SERIAL,
                 lir_store(F, l->out[out], sidx(l, r, d, b, jj, v), lir_load(F, state, (lir_expr *[]){jj})));
}

/* Direction d over every batch entry b: len = clamp(sequence_lens[b], 0, seq) (seq when
 * absent); the states from initial_h/initial_c (0 when absent); steps s < len run at t = s
 * (reverse: t = len-1-s); Y[s] = 0 for s >= len; Y_h, Y_c = the states after the last step. */
static lir_stmt *rnn_direction(L *l, const rnn *r, int d, bool rev) {
  lir_var *b = lir_var_new(F, "b", LIR_I64), *s = lir_var_new(F, "s", LIR_I64), *len = lir_var_new(F, "len", LIR_I64);
  lir_var *tv = lir_var_new(F, "t", LIR_I64);
  lir_expr *bb = lir_ref(F, b), *ss = lir_ref(F, s), *ll = lir_ref(F, len);
  lir_expr *t = rev ? lir_sub(F, lir_addi(F, ll, -1), ss) : ss;
  lir_stmt *step = lir_let(F, tv, t, rnn_step(l, r, d, bb, lir_ref(F, tv)));
  if (l->in[4]) {
    lir_stmt *zero = NULL;
    if (l->out[0]) {
      lir_var *j = lir_var_new(F, "j", LIR_I64);
      lir_expr *v[4];
      zero = lir_for(F, j, I(0), I(r->H), LIR_FOR_VECTORIZED,
                     lir_store(F, l->out[0], yidx(l, r, ss, d, bb, lir_ref(F, j), v), cst(l, r->t, 0)));
    }
    step = lir_if(F, lir_bin(F, LIR_LT, ss, ll), step, zero);
  }
  lir_block blk;
  lir_block_init(&blk, F);
  lir_block_add(&blk, rnn_init(l, r, r->h, 5, d, bb));
  if (r->c) lir_block_add(&blk, rnn_init(l, r, r->c, 6, d, bb));
  lir_block_add(&blk, lir_for(F, s, I(0), I(r->S), LIR_FOR_SERIAL, step));
  lir_stmt *fh = rnn_final(l, r, r->h, 1, d, bb), *fc = r->c ? rnn_final(l, r, r->c, 2, d, bb) : NULL;
  if (fh) lir_block_add(&blk, fh);
  if (fc) lir_block_add(&blk, fc);
  lir_expr *lv = l->in[4] ? clampi(l, lir_cast(F, LIR_I64, lir_load(F, l->in[4], (lir_expr *[]){bb})), 0, r->S) : I(r->S);
  return lir_for(F, b, I(0), I(r->NB), LIR_FOR_SERIAL, lir_let(F, len, lv, lir_block_stmt(&blk)));
}

/* RNN, GRU, LSTM: the equations above cell_rnn, cell_gru and cell_lstm, per direction
 * (forward, reverse, or bidirectional: direction 0 forward, 1 reverse, each with its own W, R,
 * B, P, initial states and activations), with the schedule at the top of this file. */
static int lower_rnn(L *l) {
  rnn r0 = {0}, *r = &r0;
  if (rnn_setup(l, r)) return l->err->code;
  int64_t GH = r->g * r->H;
  r->h = lir_buf_new(F, "h", r->t, 1, &r->H, LIR_SCOPE_LOCAL);
  r->a = lir_buf_new(F, "a", r->t, 1, &GH, LIR_SCOPE_LOCAL);
  if (r->g == 4) r->c = lir_buf_new(F, "c", r->t, 1, &r->H, LIR_SCOPE_LOCAL);
  if (r->g == 3) r->rr = lir_buf_new(F, "rr", r->t, 1, &r->H, LIR_SCOPE_LOCAL);
  int64_t wts[3] = {r->nd, r->I, GH}, rts[3] = {r->nd, r->H, GH};
  r->wt = lir_buf_new(F, "wt", r->t, 3, wts, LIR_SCOPE_LOCAL);
  r->rt = lir_buf_new(F, "rt", r->t, 3, rts, LIR_SCOPE_LOCAL);
  lir_stmt *body = rnn_direction(l, r, 0, r->nd == 1 && r->reverse);
  if (r->nd == 2) body = SEQ(body, rnn_direction(l, r, 1, true));
  body = SEQ(rnn_transpose(l, l->in[1], r->wt), rnn_transpose(l, l->in[2], r->rt), body);
  body = lir_alloc_stmt(F, r->wt, lir_alloc_stmt(F, r->rt, body));
  if (r->c) body = lir_alloc_stmt(F, r->c, body);
  if (r->rr) body = lir_alloc_stmt(F, r->rr, body);
  F->body = lir_alloc_stmt(F, r->h, lir_alloc_stmt(F, r->a, body));
  return 0;
}

/* ---------------------------------------------------------------- table */

const cpu_rule cpu_rules_rnn[] = {
    {"RNN", lower_rnn},
    {"GRU", lower_rnn},
    {"LSTM", lower_rnn},
    {NULL, NULL},
};
