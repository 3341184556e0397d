/* s2d: a stride-2 convolution on few input channels as SpaceToDepth + a stride-1 convolution on
 * four times the channels (accelerator pipeline).
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* The geometry of a conv this pass rewrites (explicit attributes from infer). */
typedef struct s2d {
  int64_t k[2];  /* kernel (H, W) */
  int64_t k2[2]; /* kernel of the stride-1 conv: ceil(k / 2) */
  int64_t pb[2]; /* begin pads (top, left) */
  int64_t o[2];  /* output size (H, W) */
} s2d;

/* A conv this pass rewrites: ovta.Conv, float non-constant static [N, C, H, W] input, constant
 * 4-D weights (and bias), group 1, strides 2x2, dilations 1, and 4C input channels still one
 * block (C*4 <= bi) with fewer kernel taps (ceil(KH/2)*ceil(KW/2) < KH*KW): it pays. */
static bool s2d_match(const ovta_node *n, int64_t bi, s2d *c) {
  if (strcmp(n->op, "ovta.Conv") || n->n_outputs != 1 || !n->outputs[0]) return false;
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2), *y = n->outputs[0];
  if (!x || x->rank != 4 || x->dtype != OVTA_DT_F32 || px_is_const(x) || !px_is_const(w) || w->rank != 4 ||
      w->dtype != OVTA_DT_F32 || (b && !px_is_const(b)) || y->rank != 4)
    return false;
  for (int d = 0; d < 4; d++)
    if (x->shape[d] < 1 || y->shape[d] < 1) return false;
  int64_t st[2], dil[2], pads[4];
  if (ovta_node_attr_i(n, "group", 1) != 1 || !px_attr_ints(n, "kernel_shape", 2, c->k) ||
      !px_attr_ints(n, "strides", 2, st) || !px_attr_ints(n, "dilations", 2, dil) || !px_attr_ints(n, "pads", 4, pads) ||
      st[0] != 2 || st[1] != 2 || dil[0] != 1 || dil[1] != 1 || x->shape[1] * 4 > bi || w->shape[1] != x->shape[1])
    return false;
  for (int d = 0; d < 2; d++) c->k2[d] = (c->k[d] + 1) / 2, c->pb[d] = pads[d], c->o[d] = y->shape[2 + d];
  return c->k2[0] * c->k2[1] < c->k[0] * c->k[1];
}

/* W2 [O, 4C, k2h, k2w] from W [O, C, kh, kw]: W2[o, (i*2 + j)*C + c, a, b] = W[o, c, 2a + i, 2b + j],
 * zero where 2a + i >= kh or 2b + j >= kw (the taps the stride-2 kernel does not have). */
static ovta_tensor *s2d_weights(ovta_graph *g, const ovta_tensor *w, const s2d *c, ovta_error *err) {
  int64_t O = w->shape[0], C = w->shape[1], kh = c->k[0], kw = c->k[1], ah = c->k2[0], aw = c->k2[1];
  int64_t ws[4] = {O, 4 * C, ah, aw};
  ovta_tensor *w2 = px_new_const(g, w->name, OVTA_DT_F32, 4, ws, err);
  for (int64_t o = 0; w2 && o < O; o++)
    for (int64_t ij = 0; ij < 4; ij++)
      for (int64_t ch = 0; ch < C; ch++)
        for (int64_t a = 0; a < ah; a++)
          for (int64_t b = 0; b < aw; b++) {
            int64_t r = 2 * a + ij / 2, q = 2 * b + ij % 2;
            if (r >= kh || q >= kw) continue;
            float v = ovta_tensor_get_f(w, ((o * C + ch) * kh + r) * kw + q);
            ovta_tensor_put_f(w2, (((o * 4 * C + ij * C + ch) * ah + a) * aw + b), v);
          }
  return w2;
}

/* The X-side pads (xb at the beginning, xe at the end, negative: cropped) and the conv's pads
 * (cb, ce) in one spatial dim of size n: the begin pad pb is pb%2 rows of X then pb/2 rows of Z
 * (two rows of X each); xe makes the padded X even; ce gives the o outputs of the k2 kernel. A
 * negative ce crops X instead. */
static void s2d_pads(int64_t n, int64_t pb, int64_t k2, int64_t o, int64_t *xb, int64_t *xe, int64_t *cb, int64_t *ce) {
  *xb = pb % 2, *cb = pb / 2;
  *xe = (n + *xb) % 2;
  *ce = o + k2 - 1 - *cb - (n + *xb + *xe) / 2;
  if (*ce < 0) *xe += 2 * *ce, *ce = 0;
}

/* s2d: ovta.Conv (s2d_match) with stride 2 over X [N, C, H, W] and kernel W [O, C, kh, kw] becomes
 *   Z = SpaceToDepth_blocksize=2( Pad(X) ),  Y = ovta.Conv_stride=1( Z, W2, B )
 * Y[o, y, x] = sum_{c,r,q} Xp[c, 2y + r, 2x + q] W[o, c, r, q]; with r = 2a + i, q = 2b + j
 * (i, j in {0, 1}) Xp[c, 2(y+a) + i, 2(x+b) + j] = Z[(i*2 + j)*C + c, y + a, x + b], so
 * Y = sum_{c', a, b} Z[c', y + a, x + b] W2[o, c', a, b], W2 = W rearranged with zeros at the
 * missing taps (s2d_weights), kernel ceil(k/2). The conv's begin pad becomes an odd row/column of
 * X (Pad) and half of it Z-rows (the conv's pads), the end pad what gives the same output size
 * (s2d_pads). Every other attribute (activation, clip bounds) kept. The same products are summed,
 * plus zeros: the output is the same, the int8 weights, input range and exponents too. On the
 * accelerator the input lanes hold 4C channels instead of C and the kernel has ceil(kh/2) *
 * ceil(kw/2) taps instead of kh*kw (ResNet's 7x7 stem: 16 taps for 49); the Pad and SpaceToDepth
 * are data movement on the CPU. Only in the accelerator pipeline. */
int pass_s2d(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int64_t bi = o->cfg ? o->cfg->block_in : 16;
  int rc = ovta_graph_index(g, err);
  for (int i = 0; !rc && i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    s2d c;
    if (!s2d_match(n, bi, &c)) continue;
    ovta_tensor *x = n->inputs[0];
    int64_t xb[2], xe[2], cb[2], ce[2];
    for (int d = 0; d < 2; d++) s2d_pads(x->shape[2 + d], c.pb[d], c.k2[d], c.o[d], &xb[d], &xe[d], &cb[d], &ce[d]);
    int pos = i;
    ovta_tensor *v = x;
    if (xb[0] || xb[1] || xe[0] || xe[1]) {
      int64_t p4[8] = {0, 0, xb[0], xb[1], 0, 0, xe[0], xe[1]};
      v = px_add_node(g, &pos, "Pad", "s2d", v, px_new_ints(g, "pads", 8, p4, err), err);
    }
    ovta_tensor *z = v ? px_new_value(g, x->name, OVTA_DT_F32, NULL, err) : NULL;
    ovta_node *s = z ? px_new_node(g, pos, "SpaceToDepth", "s2d", 1, &v, z, err) : NULL;
    if (!s || ovta_node_set_i(s, "blocksize", 2, err) || ovta_infer_node(g, s, err)) return err->code ? err->code : OVTA_ENOMEM;
    pos++;
    ovta_tensor *w2 = s2d_weights(g, n->inputs[1], &c, err);
    int64_t one[2] = {1, 1}, pads[4] = {cb[0], cb[1], ce[0], ce[1]};
    if (!w2 || ovta_node_set_ints(n, "strides", one, 2, err) || ovta_node_set_ints(n, "pads", pads, 4, err) ||
        ovta_node_set_ints(n, "kernel_shape", c.k2, 2, err))
      return err->code ? err->code : OVTA_ENOMEM;
    n->inputs[0] = z, n->inputs[1] = w2;
    if ((rc = px_reinfer_same_shape(g, n, "s2d", err))) return rc;
    i = pos;
    rc = ovta_graph_index(g, err);
  }
  return rc ? rc : pass_dce(g, o, err);
}
