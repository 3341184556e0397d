/* convt: ConvTranspose as a convolution over the zero-inserted input (accelerator pipeline).
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* The explicit attributes infer gave a 2-D ConvTranspose (kernel k, stride s, pads, output
 * padding op); false when n is not one this pass rewrites. */
typedef struct convt {
  int64_t k[2], s[2], pb[2], pe[2], op[2]; /* per spatial dim: kernel, stride, pads, output_padding */
  int64_t g;                               /* groups */
} convt;

static bool convt_match(const ovta_node *n, convt *c) {
  if (strcmp(n->op, "ConvTranspose") || n->n_outputs != 1 || !n->outputs[0]) return false;
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
  if (!x || x->rank != 4 || x->dtype != OVTA_DT_F32 || px_is_const(x) || !px_is_const(w) || (b && !px_is_const(b)))
    return false;
  for (int d = 0; d < 4; d++)
    if (x->shape[d] < 1) return false;
  int64_t pads[4], dil[2];
  if (!px_attr_ints(n, "kernel_shape", 2, c->k) || !px_attr_ints(n, "strides", 2, c->s) || !px_attr_ints(n, "pads", 4, pads) ||
      !px_attr_ints(n, "output_padding", 2, c->op) || !px_attr_ints(n, "dilations", 2, dil) || dil[0] != 1 || dil[1] != 1)
    return false;
  c->pb[0] = pads[0], c->pb[1] = pads[1], c->pe[0] = pads[2], c->pe[1] = pads[3];
  c->g = ovta_node_attr_i(n, "group", 1);
  return c->s[0] >= 1 && c->s[1] >= 1 && c->s[0] <= 64 && c->s[1] <= 64;
}

/* X [N,C,H,W] with s-1 zeros inserted after every element of H and W, then padded by pb at the
 * beginning and pe at the end of H and W (negative: cropped): Reshape to [N,C,H,1,W,1], Pad the
 * unit dims to s, Reshape to [N,C,H*s,W*s] (the last s-1 rows and columns are zeros), Pad. */
static ovta_tensor *zero_insert(ovta_graph *g, int *pos, ovta_tensor *x, const convt *c, const int64_t *pb,
                                const int64_t *pe, ovta_error *err) {
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  ovta_tensor *v = x;
  if (c->s[0] > 1 || c->s[1] > 1) {
    int64_t r6[6] = {N, C, H, 1, W, 1}, p6[12] = {0}, r4[4] = {N, C, H * c->s[0], W * c->s[1]};
    p6[6 + 3] = c->s[0] - 1, p6[6 + 5] = c->s[1] - 1;
    v = px_add_node(g, pos, "Reshape", "convt", v, px_new_ints(g, "shape", 6, r6, err), err);
    v = v ? px_add_node(g, pos, "Pad", "convt", v, px_new_ints(g, "pads", 12, p6, err), err) : NULL;
    v = v ? px_add_node(g, pos, "Reshape", "convt", v, px_new_ints(g, "shape", 4, r4, err), err) : NULL;
  }
  int64_t p4[8] = {0, 0, pb[0], pb[1], 0, 0, pe[0], pe[1]};
  if (v && (pb[0] || pb[1] || pe[0] || pe[1])) v = px_add_node(g, pos, "Pad", "convt", v, px_new_ints(g, "pads", 8, p4, err), err);
  return v;
}

/* Wc [M, C/g, kh, kw] from W [C, M/g, kh, kw]: Wc[gi*Mg + m][c][a][b] = W[gi*Cg + c][m][kh-1-a][kw-1-b]. */
static ovta_tensor *flip_weights(ovta_graph *g, const ovta_tensor *w, int64_t groups, ovta_error *err) {
  int64_t C = w->shape[0], Mg = w->shape[1], kh = w->shape[2], kw = w->shape[3], Cg = C / groups;
  int64_t ws[4] = {Mg * groups, Cg, kh, kw};
  ovta_tensor *wc = px_new_const(g, w->name, OVTA_DT_F32, 4, ws, err);
  for (int64_t gi = 0; wc && gi < groups; gi++)
    for (int64_t m = 0; m < Mg; m++)
      for (int64_t c = 0; c < Cg; c++)
        for (int64_t a = 0; a < kh; a++)
          for (int64_t b = 0; b < kw; b++) {
            int64_t src = (((gi * Cg + c) * Mg + m) * kh + (kh - 1 - a)) * kw + (kw - 1 - b);
            ovta_tensor_put_f(wc, (((gi * Mg + m) * Cg + c) * kh + a) * kw + b, ovta_tensor_get_f(w, src));
          }
  return wc;
}

/* convt: a 2-D ConvTranspose with constant weights (dilation 1) becomes a stride-1 Conv over
 * its input with s-1 zeros inserted between elements (zero_insert), with the kernel flipped and
 * its in/out channels swapped (flip_weights):
 *   Y[o, y] = sum_{c, i, k} X[c, i] W[c, o, k] over y = i*s + k - pb
 *           = sum_{c, k'} Z[c, y + k' - (k-1-pb)] Wc[o, c, k'],  Z[i*s] = X[i], Wc[o,c,k'] = W[c,o,k-1-k']
 * so the Conv's pads are k-1-pb at the beginning and k-1+op-pe-(s-1) at the end (the s-1
 * trailing zeros of Z count as padding); a negative value crops Z instead (a Pad node with
 * negative pads). On the accelerator the Conv is one more int8 layer; the zero insertion is data
 * movement on the CPU. Only in the accelerator pipeline: on the CPU the direct ConvTranspose
 * does s*s times fewer multiplications. */
int pass_convt(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  for (int i = 0; !rc && i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    convt c;
    if (!convt_match(n, &c)) continue;
    int64_t cb[2], ce[2], zb[2], ze[2];
    for (int d = 0; d < 2; d++) {
      cb[d] = c.k[d] - 1 - c.pb[d], ce[d] = c.k[d] - 1 + c.op[d] - c.pe[d] - (c.s[d] - 1);
      zb[d] = cb[d] < 0 ? cb[d] : 0, ze[d] = ce[d] < 0 ? ce[d] : 0;
      cb[d] -= zb[d], ce[d] -= ze[d];
    }
    int pos = i;
    ovta_tensor *z = zero_insert(g, &pos, n->inputs[0], &c, zb, ze, err);
    ovta_tensor *wc = z ? flip_weights(g, n->inputs[1], c.g, err) : NULL;
    int64_t one[2] = {1, 1}, pads[4] = {cb[0], cb[1], ce[0], ce[1]};
    if (!wc || px_set_op(n, "Conv", err) || ovta_node_set_ints(n, "strides", one, 2, err) ||
        ovta_node_set_ints(n, "pads", pads, 4, err))
      return err->code ? err->code : OVTA_ENOMEM;
    ovta_node_del_attr(n, "output_padding");
    n->inputs[0] = z, n->inputs[1] = wc;
    if ((rc = px_reinfer_same_shape(g, n, "ConvTranspose", err))) return rc;
    i = pos;
    rc = ovta_graph_index(g, err);
  }
  return rc ? rc : pass_dce(g, o, err);
}
