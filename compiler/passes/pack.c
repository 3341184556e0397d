/* pack: the accelerator's blocked layouts (ovta.Pack / ovta.Unpack).
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

static void cfg_blocks(const ovta_compile_opts *o, int64_t *bt, int64_t *bi, int64_t *bo) {
  *bt = o->cfg ? o->cfg->batch : 1;
  *bi = o->cfg ? o->cfg->block_in : 16;
  *bo = o->cfg ? o->cfg->block_out : 16;
}

/* Weight [O, I, KH, KW] (or [O, I]) -> [O/bo, I/bi, KH, KW, bo, bi], zero padded. A grouped conv
 * (G > 1, I = C/G, C and O block multiples aligned with the groups, or padded to them with whole
 * all-zero groups: ovta_group_blocks, ovta_group_padded) ->
 * [O/bo, gk, KH, KW, bo, bi]: output channel o of group g = o / (O/G) and its input channel
 * c = g * I + i at block c / bi - (o / bo) * gs, zero elsewhere. */
static ovta_tensor *pack_wgt(ovta_graph *g, const ovta_tensor *w, int64_t C, int64_t G, int64_t bi, int64_t bo,
                             ovta_error *err) {
  int64_t O = w->shape[0], I = w->shape[1], KH = w->rank == 4 ? w->shape[2] : 1, KW = w->rank == 4 ? w->shape[3] : 1;
  int64_t gk = (I + bi - 1) / bi, gs = 0;
  if (G != 1 && !ovta_group_blocks(C, O, G, bi, bo, &gk, &gs)) {
    OVTA_FAIL(err, OVTA_EINTERNAL, "pack: %s: groups not aligned with the blocks", w->name);
    return NULL;
  }
  int64_t s[6] = {(O + bo - 1) / bo, gk, KH, KW, bo, bi};
  ovta_tensor *p = px_new_const(g, w->name, w->dtype, 6, s, err);
  if (!p) return NULL;
  p->layout = OVTA_LAYOUT_WGT;
  p->logical_rank = w->rank;
  memcpy(p->logical, w->shape, sizeof p->logical);
  p->quant = w->quant;
  for (int64_t o = 0; o < O; o++)
    for (int64_t i = 0; i < I; i++)
      for (int64_t h = 0; h < KH; h++)
        for (int64_t x = 0; x < KW; x++) {
          int64_t src = ((o * I + i) * KH + h) * KW + x, c = o / (O / G) * I + i; /* input channel */
          int64_t dst = ((((o / bo) * s[1] + c / bi - o / bo * gs) * KH + h) * KW + x) * bo * bi + (o % bo) * bi + c % bi;
          ((int8_t *)p->data)[dst] = ((const int8_t *)w->data)[src];
        }
  return p;
}

/* Node *pi writes a new packed twin of its output y (act layout [N/B][C/BI][H][W][B][BI], the
 * logical shape y's) instead of y; an ovta.Unpack after it restores y for plain users (*pi moves
 * to it). Shared by the ALU operators and the packed Concat. */
static int packed_output(ovta_graph *g, int *pi, int64_t bt, int64_t bi, int nt0, ovta_tensor **twin, ovta_error *err) {
  ovta_node *n = g->nodes[*pi];
  ovta_tensor *y = n->outputs[0], *yp = px_new_value(g, y->name, y->dtype, NULL, err);
  if (!yp) return err->code ? err->code : OVTA_ENOMEM;
  int64_t N = y->shape[0], C = y->shape[1], H = y->rank == 4 ? y->shape[2] : 1, W = y->rank == 4 ? y->shape[3] : 1;
  int64_t ys[6] = {(N + bt - 1) / bt, (C + bi - 1) / bi, H, W, bt, bi};
  yp->rank = 6, memcpy(yp->shape, ys, sizeof ys);
  yp->layout = OVTA_LAYOUT_ACT, yp->logical_rank = y->rank, memcpy(yp->logical, y->shape, sizeof yp->logical);
  yp->quant = y->quant;
  n->outputs[0] = yp;
  if (y->id >= 0 && y->id < nt0) twin[y->id] = yp;
  ovta_node *up = px_new_node(g, *pi + 1, "ovta.Unpack", "unpack", 1, &yp, y, err);
  if (!up || ovta_node_set_ints(up, "shape", y->shape, y->rank, err)) return err->code ? err->code : OVTA_ENOMEM;
  (*pi)++;
  return OVTA_OK;
}

/* Pack an ALU operator (ovta.QAdd, ovta.QMaxPool, ovta.QGlobalAvgPool) at *pi: its activation inputs through ovta.Pack
 * (or the packed twin a packed producer made), the output in the act layout with channel
 * blocks of block_in, an ovta.Unpack for plain users. Needs block_in == block_out (the
 * accelerator copies through an identity weight block); rank 4 (QAdd also rank 2). */
static int pack_alu(ovta_graph *g, int *pi, int64_t bt, int64_t bi, int64_t bo, int nt0, ovta_tensor **twin,
                    ovta_error *err) {
  ovta_node *n = g->nodes[*pi];
  bool add = !strcmp(n->op, "ovta.QAdd");
  int ni = add ? 2 : 1;
  ovta_tensor *y = n->outputs[0];
  if (bi != bo || n->n_inputs != ni || !y || (y->rank != 4 && !(add && y->rank == 2)) || ovta_tensor_numel(y) < 0)
    return OVTA_OK;
  for (int k = 0; k < ni; k++) {
    ovta_tensor *x = n->inputs[k];
    if (!x || x->layout != OVTA_LAYOUT_PLAIN || x->rank != y->rank || ovta_tensor_numel(x) < 0) return OVTA_OK;
  }
  for (int k = 0; k < ni; k++) {
    ovta_tensor *x = n->inputs[k];
    ovta_tensor *xp = x->id >= 0 && x->id < nt0 ? twin[x->id] : NULL;
    if (!xp) {
      if (!(xp = px_new_value(g, x->name, x->dtype, NULL, err))) return err->code;
      ovta_node *pk = px_new_node(g, *pi, "ovta.Pack", "pack", 1, &x, xp, err);
      if (!pk || ovta_node_set_s(pk, "layout", "act", err) || ovta_node_set_i(pk, "batch", bt, err) ||
          ovta_node_set_i(pk, "block_in", bi, err) || ovta_node_set_i(pk, "block_out", bo, err) ||
          ovta_infer_node(g, pk, err))
        return err->code ? err->code : OVTA_ENOMEM;
      (*pi)++;
      if (x->id >= 0 && x->id < nt0) twin[x->id] = xp;
    }
    n->inputs[k] = xp;
  }
  return packed_output(g, pi, bt, bi, nt0, twin, err);
}

/* A Flatten (axis 1) of a value [N, C, 1, 1] that a packed producer made (twin[x], the act layout
 * [N/B][C/BI][1][1][B][BI]): its output [N, C] packed is the same bytes in the same shape, so the
 * producer's packed tensor becomes the output's twin too (a packed dense reads it directly; the
 * Flatten and the Unpack before it go when nothing else reads them). True when it applied. */
static bool flatten_alias(const ovta_node *n, int nt0, ovta_tensor **twin) {
  if (strcmp(n->op, "Flatten") || n->n_inputs != 1 || n->n_outputs != 1 || !n->inputs[0] || !n->outputs[0]) return false;
  const ovta_tensor *x = n->inputs[0], *y = n->outputs[0];
  if (x->id < 0 || x->id >= nt0 || y->id < 0 || y->id >= nt0 || !twin[x->id] || twin[y->id]) return false;
  if (ovta_node_attr_i(n, "axis", 1) != 1 || x->rank != 4 || x->shape[2] != 1 || x->shape[3] != 1 || y->rank != 2 ||
      y->dtype != x->dtype || twin[x->id]->layout != OVTA_LAYOUT_ACT)
    return false;
  twin[y->id] = twin[x->id];
  return true;
}

/* Is n an int8 channel Concat (quantize.c's q_concat: axis 1 of rank 4 or 2) whose inputs all have
 * packed twins (produced packed by an earlier node) with channel counts multiples of bi? */
static bool packable_concat(const ovta_node *n, int64_t bi, int nt0, ovta_tensor **twin) {
  const ovta_tensor *y = n->n_outputs == 1 ? n->outputs[0] : NULL;
  if (strcmp(n->op, "Concat") || !y || y->dtype != OVTA_DT_I8 || (y->rank != 4 && y->rank != 2) || n->n_inputs < 1)
    return false;
  if (ovta_node_attr_i(n, "axis", 0) != 1 || ovta_tensor_numel(y) < 0 || y->layout != OVTA_LAYOUT_PLAIN) return false;
  for (int k = 0; k < n->n_inputs; k++) {
    const ovta_tensor *x = n->inputs[k];
    const ovta_tensor *xp = x && x->id >= 0 && x->id < nt0 ? twin[x->id] : NULL;
    if (!xp || x->dtype != OVTA_DT_I8 || x->rank != y->rank || x->shape[1] % bi || xp->rank != 6 || xp->shape[5] != bi)
      return false;
  }
  return true;
}

/* Int8 channel Concat at *pi (packable_concat) on the packed layout: the inputs' packed twins
 * [N/B][C_k/BI][H][W][B][BI] joined along physical axis 1 (the channel blocks: each input a
 * whole number of blocks) into the packed output (layout act, the plain output's logical shape),
 * an ovta.Unpack for plain users. The node stays a Concat (axis 1) on the physical arrays. */
static int pack_concat(ovta_graph *g, int *pi, int64_t bt, int64_t bi, int nt0, ovta_tensor **twin, ovta_error *err) {
  ovta_node *n = g->nodes[*pi];
  for (int k = 0; k < n->n_inputs; k++) n->inputs[k] = twin[n->inputs[k]->id];
  return packed_output(g, pi, bt, bi, nt0, twin, err);
}

/* Is n an int8 Resize that is a nearest upsampling by integer factors (ovta_resize_nearest_factors,
 * graph.h) of a value produced packed (a packed twin of block_in channels)? */
static bool packable_resize(const ovta_node *n, int64_t bi, int nt0, ovta_tensor **twin) {
  const ovta_tensor *y = n->n_outputs == 1 ? n->outputs[0] : NULL, *x = ovta_node_in(n, 0);
  if (strcmp(n->op, "Resize") || !y || !x || y->dtype != OVTA_DT_I8 || x->dtype != OVTA_DT_I8 || y->rank != 4 ||
      y->layout != OVTA_LAYOUT_PLAIN || ovta_tensor_numel(y) < 0)
    return false;
  const ovta_tensor *xp = x->id >= 0 && x->id < nt0 ? twin[x->id] : NULL;
  int64_t f[2];
  char why[256];
  return xp && xp->rank == 6 && xp->shape[5] == bi && ovta_resize_nearest_factors(n, x, f, why, sizeof why);
}

/* pack: ovta.QConv (2-D; grouped when C, O are block multiples aligned with the groups, or pad
 * to them with whole all-zero groups: ovta_group_blocks) and ovta.QDense move to the accelerator's blocked layouts
 * (ovta_layout in graph.h) for opts->cfg's batch, block_in, block_out: weights and bias are
 * repacked as constants (zero padded), activations go through ovta.Pack, and an ovta.Unpack
 * restores the plain value for users that are not packed ops (dce removes unused ones).
 * Consecutive packed ops pass the packed tensor directly when block_in == block_out, also across
 * a Flatten of an [N, C, 1, 1] packed value (flatten_alias: a global average pool -> dense). An
 * int8 channel Concat whose inputs are all produced packed, each a whole number of channel blocks
 * (block_in == block_out), is a Concat of the packed arrays along physical axis 1, its output
 * packed (pack_concat); any other Concat stays on plain values (Unpack before it). An int8 Resize
 * that is a nearest upsampling by integer factors (ovta_resize_nearest_factors) of a value produced
 * packed reads the packed value and writes a packed output (an accelerator operator, VTA_UPSAMPLE;
 * the node stays a Resize, its scales/sizes constants plain). */
int pass_pack(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int64_t bt, bi, bo;
  cfg_blocks(o, &bt, &bi, &bo);
  int nt0 = g->n_tensors;
  ovta_tensor **twin = calloc((size_t)nt0 + 1, sizeof *twin);
  if (!twin) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool conv = !strcmp(n->op, "ovta.QConv");
    if (!strcmp(n->op, "ovta.QAdd") || !strcmp(n->op, "ovta.QMaxPool") || !strcmp(n->op, "ovta.QGlobalAvgPool")) {
      if ((rc = pack_alu(g, &i, bt, bi, bo, nt0, twin, err))) {
        free(twin);
        return rc;
      }
      continue;
    }
    if (bi == bo && flatten_alias(n, nt0, twin)) continue;
    if (bi == bo && packable_resize(n, bi, nt0, twin)) { /* upsampling: the packed input, packed output */
      n->inputs[0] = twin[n->inputs[0]->id];
      if ((rc = packed_output(g, &i, bt, bi, nt0, twin, err))) {
        free(twin);
        return rc;
      }
      continue;
    }
    if (bi == bo && packable_concat(n, bi, nt0, twin)) {
      if ((rc = pack_concat(g, &i, bt, bi, nt0, twin, err))) {
        free(twin);
        return rc;
      }
      continue;
    }
    if (!conv && strcmp(n->op, "ovta.QDense")) continue;
    ovta_tensor *x = n->inputs[0], *w = n->inputs[1], *b = ovta_node_in(n, 2), *y = n->outputs[0];
    if (x->layout != OVTA_LAYOUT_PLAIN || !px_is_const(w) || (b && !px_is_const(b))) continue;
    int64_t G = conv ? ovta_node_attr_i(n, "group", 1) : 1, gk, gs;
    if (conv && x->rank != 4) continue;
    if (ovta_tensor_numel(x) < 0) continue;
    if (G != 1 && (w->rank != 4 || w->shape[1] * G != x->shape[1] ||
                   !ovta_group_blocks(x->shape[1], w->shape[0], G, bi, bo, &gk, &gs)))
      continue;
    ovta_tensor *xp = x->id < nt0 && bi == bo ? twin[x->id] : NULL;
    if (!xp) {
      if (!(xp = px_new_value(g, x->name, x->dtype, NULL, err))) goto fail;
      ovta_node *pk = px_new_node(g, i, "ovta.Pack", "pack", 1, &x, xp, err);
      if (!pk || ovta_node_set_s(pk, "layout", "act", err) || ovta_node_set_i(pk, "batch", bt, err) ||
          ovta_node_set_i(pk, "block_in", bi, err) || ovta_node_set_i(pk, "block_out", bo, err) ||
          ovta_infer_node(g, pk, err))
        goto fail;
      i++;
      if (x->id < nt0 && bi == bo) twin[x->id] = xp; /* one Pack for all its packed users */
    }
    ovta_tensor *wp = pack_wgt(g, w, x->shape[1], G, bi, bo, err);
    if (!wp) goto fail;
    ovta_tensor *bp = NULL;
    if (b) {
      int64_t s[2] = {(b->shape[0] + bo - 1) / bo, bo};
      if (!(bp = px_new_const(g, b->name, b->dtype, 2, s, err))) goto fail;
      memcpy(bp->data, b->data, b->nbytes);
      bp->layout = OVTA_LAYOUT_ACC, bp->logical_rank = 1, bp->logical[0] = b->shape[0], bp->quant = b->quant;
    }
    ovta_tensor *yp = px_new_value(g, y->name, y->dtype, NULL, err);
    if (!yp) goto fail;
    int64_t N = y->shape[0], C = y->shape[1], H = y->rank == 4 ? y->shape[2] : 1, W = y->rank == 4 ? y->shape[3] : 1;
    int64_t ys[6] = {(N + bt - 1) / bt, (C + bo - 1) / bo, H, W, bt, bo};
    yp->dtype = y->dtype, yp->rank = 6, memcpy(yp->shape, ys, sizeof ys);
    yp->layout = OVTA_LAYOUT_ACT, yp->logical_rank = y->rank, memcpy(yp->logical, y->shape, sizeof yp->logical);
    yp->quant = y->quant;
    n->inputs[0] = xp, n->inputs[1] = wp;
    if (b) n->inputs[2] = bp;
    n->outputs[0] = yp;
    if (y->id < nt0) twin[y->id] = yp;
    ovta_node *up = px_new_node(g, i + 1, "ovta.Unpack", "unpack", 1, &yp, y, err);
    if (!up || ovta_node_set_ints(up, "shape", y->shape, y->rank, err)) goto fail;
    i++;
  }
  free(twin);
  return pass_dce(g, o, err);
fail:
  free(twin);
  return err->code ? err->code : OVTA_ENOMEM;
}
