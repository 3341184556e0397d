/* im2col: a convolution on few input channels as an im2col on the CPU (Pad + one strided Slice per
 * kernel tap + Concat) + a 1x1 convolution on C*KH*KW channels (accelerator pipeline).
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* The geometry of a conv this pass rewrites (explicit attributes from infer). */
typedef struct im2col {
  int64_t c;     /* input channels C */
  int64_t k[2];  /* kernel (KH, KW) */
  int64_t st[2]; /* strides (H, W) */
  int64_t pads[4]; /* pads (top, left, bottom, right) */
  int64_t o[2];  /* output size (OH, OW) */
} im2col;

/* At most this many taps: one Concat input each, and the CPU path lowers a Concat of at most 64
 * inputs (compiler/cpu, MAXIO). */
#define IM2COL_MAX_TAPS 64

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* GEMM micro-ops per output pixel and output channel block of the three forms of a conv on C
 * input channels, kernel KH x KW, strides st, with bi input lanes (ceil(C/bi) input blocks per
 * tap): the conv as it is, KH*KW*ceil(C/bi); pass s2d's form when its rule takes the conv
 * (strides 2x2, 4C <= bi, fewer taps: s2d.c), ceil(KH/2)*ceil(KW/2); the im2col,
 * ceil(C*KH*KW/bi). Returns the im2col's gain: the smaller of the other two minus its own. */
static int64_t im2col_gain(const im2col *c, int64_t bi) {
  int64_t taps = c->k[0] * c->k[1], direct = taps * ceil_div(c->c, bi), best = direct;
  int64_t s2d_taps = ceil_div(c->k[0], 2) * ceil_div(c->k[1], 2);
  if (c->st[0] == 2 && c->st[1] == 2 && c->c * 4 <= bi && s2d_taps < taps && s2d_taps < best) best = s2d_taps;
  return best - ceil_div(c->c * taps, bi);
}

/* A conv this pass rewrites: ovta.Conv whose input is a graph input (float, static [N, C, H, W]:
 * it is on the CPU already), constant 4-D weights (and bias), group 1, dilations 1, 2 to
 * IM2COL_MAX_TAPS taps, C < bi (the input block has empty lanes), and the im2col needs fewer GEMM
 * micro-ops than the conv and s2d (im2col_gain > 0). */
static bool im2col_match(const ovta_node *n, int64_t bi, im2col *c) {
  if (strcmp(n->op, "ovta.Conv") || n->n_outputs != 1 || !n->outputs[0]) return false;
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2), *y = n->outputs[0];
  if (!x || x->kind != OVTA_TK_INPUT || x->rank != 4 || x->dtype != OVTA_DT_F32 || !px_is_const(w) || w->rank != 4 ||
      w->dtype != OVTA_DT_F32 || (b && !px_is_const(b)) || y->rank != 4)
    return false;
  for (int d = 0; d < 4; d++)
    if (x->shape[d] < 1 || y->shape[d] < 1) return false;
  int64_t dil[2];
  if (ovta_node_attr_i(n, "group", 1) != 1 || !px_attr_ints(n, "kernel_shape", 2, c->k) ||
      !px_attr_ints(n, "strides", 2, c->st) || !px_attr_ints(n, "dilations", 2, dil) ||
      !px_attr_ints(n, "pads", 4, c->pads) || dil[0] != 1 || dil[1] != 1 || w->shape[1] != x->shape[1])
    return false;
  c->c = x->shape[1], c->o[0] = y->shape[2], c->o[1] = y->shape[3];
  int64_t taps = c->k[0] * c->k[1];
  return taps > 1 && taps <= IM2COL_MAX_TAPS && c->c < bi && im2col_gain(c, bi) > 0;
}

/* W2 [O, KH*KW*C, 1, 1] from W [O, C, KH, KW]: W2[o, (r*KW + q)*C + c] = W[o, c, r, q] (tap-major,
 * the order of the Concat of the taps' slices). */
static ovta_tensor *im2col_weights(ovta_graph *g, const ovta_tensor *w, const im2col *c, ovta_error *err) {
  int64_t O = w->shape[0], C = c->c, taps = c->k[0] * c->k[1];
  int64_t ws[4] = {O, taps * C, 1, 1};
  ovta_tensor *w2 = px_new_const(g, w->name, OVTA_DT_F32, 4, ws, err);
  for (int64_t o = 0; w2 && o < O; o++)
    for (int64_t t = 0; t < taps; t++)
      for (int64_t ch = 0; ch < C; ch++)
        ovta_tensor_put_f(w2, (o * taps + t) * C + ch, ovta_tensor_get_f(w, (o * C + ch) * taps + t));
  return w2;
}

/* Slice(v, [r, q], [r + sh*(OH-1) + 1, q + sw*(OW-1) + 1], axes, steps): the input of tap (r, q)
 * at every output pixel, [N, C, OH, OW]; inserted at *pos. axes = [2, 3] and steps = the strides
 * are shared by the taps. */
static ovta_tensor *im2col_tap(ovta_graph *g, int *pos, ovta_tensor *v, ovta_tensor *const as[2], const im2col *c,
                               int64_t r, int64_t q, ovta_error *err) {
  int64_t st[2] = {r, q}, en[2] = {r + c->st[0] * (c->o[0] - 1) + 1, q + c->st[1] * (c->o[1] - 1) + 1};
  ovta_tensor *in[5] = {v, px_new_ints(g, "starts", 2, st, err), px_new_ints(g, "ends", 2, en, err), as[0], as[1]};
  ovta_tensor *y = in[1] && in[2] ? px_new_value(g, v->name, OVTA_DT_F32, NULL, err) : NULL;
  ovta_node *n = y ? px_new_node(g, *pos, "Slice", "im2col", 5, in, y, err) : NULL;
  if (!n || ovta_infer_node(g, n, err)) return NULL;
  (*pos)++;
  return y;
}

/* Z [N, KH*KW*C, OH, OW] = Concat_axis=1 over the taps (r, q) in row-major order of
 * im2col_tap(Pad(X)), the nodes inserted at *pos; NULL on failure (err set). */
static ovta_tensor *im2col_input(ovta_graph *g, int *pos, ovta_tensor *x, const im2col *c, ovta_error *err) {
  ovta_tensor *v = x;
  const int64_t *p = c->pads;
  if (p[0] || p[1] || p[2] || p[3]) {
    int64_t p8[8] = {0, 0, p[0], p[1], 0, 0, p[2], p[3]};
    v = px_add_node(g, pos, "Pad", "im2col", v, px_new_ints(g, "pads", 8, p8, err), err);
  }
  int taps = (int)(c->k[0] * c->k[1]);
  int64_t ax[2] = {2, 3};
  ovta_tensor *as[2] = {v ? px_new_ints(g, "axes", 2, ax, err) : NULL, v ? px_new_ints(g, "steps", 2, c->st, err) : NULL};
  ovta_tensor **in = as[0] && as[1] ? calloc((size_t)taps, sizeof *in) : NULL;
  if (as[0] && as[1] && !in) OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int t = 0; in && t < taps; t++)
    if (!(in[t] = im2col_tap(g, pos, v, as, c, t / c->k[1], t % c->k[1], err))) {
      free(in);
      return NULL;
    }
  ovta_tensor *z = in ? px_new_value(g, x->name, OVTA_DT_F32, NULL, err) : NULL;
  ovta_node *n = z ? px_new_node(g, *pos, "Concat", "im2col", taps, in, z, err) : NULL;
  free(in);
  if (!n || ovta_node_set_i(n, "axis", 1, err) || ovta_infer_node(g, n, err)) return NULL;
  (*pos)++;
  return z;
}

/* im2col: ovta.Conv (im2col_match) over X [N, C, H, W] with kernel W [O, C, KH, KW], strides
 * (sh, sw), pads p becomes
 *   Z = Concat_axis=1 over the taps (r, q) of Slice(Pad_p(X), starts [r, q], steps [sh, sw])
 *   Y = ovta.Conv_1x1( Z, W2, B ),  W2[o, (r*KW + q)*C + c] = W[o, c, r, q]
 * Y[o, y, x] = sum_{c,r,q} Xp[c, sh*y + r, sw*x + q] W[o, c, r, q] and Z[(r*KW + q)*C + c, y, x] =
 * Xp[c, sh*y + r, sw*x + q]: the same products, no zeros added (exact in fp32 up to the order of
 * the sum; in int8 the same integers, exponents and sum). Every other attribute (activation, clip
 * bounds) kept.
 * The rule: a conv on C < block_in channels fills C of the accelerator's block_in input lanes at
 * each of its KH*KW taps; the im2col fills ceil(C*KH*KW / block_in) blocks with one tap. It is
 * taken for a conv reading a graph input (the model's first convs: their input is on the CPU
 * anyway, quantized and packed there; a conv inside the network would add a round trip
 * accelerator -> CPU -> accelerator) when it needs fewer GEMM micro-ops per output pixel and
 * channel block than both the conv as it is and pass s2d's form (im2col_gain; s2d runs after this pass and takes the stride-2 convs
 * this one leaves when they gain). ResNet's 7x7/2 stem on 3 channels: 10 blocks (147 of 160 lanes)
 * and one tap, against s2d's 16 taps of 12 lanes and the direct 49 taps of 3 lanes; MobileNetV2's
 * 3x3/2 on 3 channels: 2 against 4 and 9. The cost is on the CPU: the im2col writes KH*KW*C*OH*OW
 * values (1.8 M for ResNet's stem), which quantize and pack then convert. Only in the
 * accelerator pipeline. */
int pass_im2col(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int64_t bi = o->cfg ? o->cfg->block_in : 16;
  int rc = ovta_graph_index(g, err);
  for (int i = 0; !rc && i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    im2col c;
    if (!im2col_match(n, bi, &c)) continue;
    int pos = i;
    ovta_tensor *z = im2col_input(g, &pos, n->inputs[0], &c, err);
    ovta_tensor *w2 = z ? im2col_weights(g, n->inputs[1], &c, err) : NULL;
    int64_t one[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
    if (!w2 || ovta_node_set_ints(n, "strides", one, 2, err) || ovta_node_set_ints(n, "pads", pads, 4, err) ||
        ovta_node_set_ints(n, "kernel_shape", one, 2, err))
      return err->code ? err->code : OVTA_ENOMEM;
    n->inputs[0] = z, n->inputs[1] = w2;
    if ((rc = px_reinfer_same_shape(g, n, "im2col", err))) return rc;
    i = pos;
    rc = ovta_graph_index(g, err);
  }
  return rc ? rc : pass_dce(g, o, err);
}
