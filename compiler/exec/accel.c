/* accel.c: the accelerator side of the graph executor (exec_internal.h, compiler/accel/README.md
 * "Graph executor"): which packed ovta.QConv / ovta.QDense nodes run on the accelerator, the
 * CPU fallback of the others (rewritten back to the plain layout), and the loop IR of
 * ovta.Pack / ovta.Unpack for the CPU path. Used by exec.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"

/* ---------------------------------------------------------------- Pack / Unpack on the CPU */

/* ovta.Pack (layout act) / ovta.Unpack between a plain [N, C(, H, W)] tensor and the packed
 * [N/B, C/BI, H, W, B, BI] (graph.h OVTA_LAYOUT_ACT): padding rows/channels are zero. */
int exec_lower_layout(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out, ovta_error *err) {
  (void)g;
  *out = NULL;
  bool pack = !strcmp(n->op, "ovta.Pack");
  const ovta_tensor *src = ovta_node_in(n, 0), *dst = n->n_outputs ? n->outputs[0] : NULL;
  if (!src || !dst) return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): missing input or output", n->name, n->op);
  const ovta_tensor *plain = pack ? src : dst, *packed = pack ? dst : src;
  if (packed->layout != OVTA_LAYOUT_ACT || packed->rank != 6 || (plain->rank != 2 && plain->rank != 4))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): only activations [N,C] / [N,C,H,W] <-> act layout on the CPU",
                     n->name, n->op);
  lir_dtype dt = lir_from_ovta_dtype(src->dtype);
  if (dt == LIR_VOID || src->dtype != dst->dtype)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): dtype %s", n->name, n->op, ovta_dtype_name(src->dtype));
  int64_t D0 = plain->shape[0], D1 = plain->shape[1], H = plain->rank == 4 ? plain->shape[2] : 1,
          W = plain->rank == 4 ? plain->shape[3] : 1;
  const int64_t *ps = packed->shape;
  if (ps[2] != H || ps[3] != W || ps[0] * ps[4] < D0 || ps[1] * ps[5] < D1 || D0 < 1 || D1 < 1)
    return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): packed shape does not match the plain one", n->name, n->op);
  lir_func *f = lir_func_new(fname);
  if (!f) return OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
  lir_buf *bs = lir_param(f, "src", dt, src->rank, src->shape);
  lir_buf *bd = lir_param(f, "dst", dt, dst->rank, dst->shape);
  lir_nest nest;
  if (pack) {
    /* loops (n block, c block, h, b, ci, w): w innermost (vectorized) reads a plain row in
     * order, and the writes of one (n block, c block, h) stay within B*BI*W packed bytes (in the
     * L1 cache); the packed order itself (ci innermost) reads BI rows H*W apart. The source
     * indexed by dimension: a flat index came back as a div/mod per dimension */
    int64_t ext[6] = {ps[0], ps[1], ps[2], ps[4], ps[5], ps[3]};
    lir_nest_open(f, &nest, 6, ext, "p");
    lir_expr *di[6] = {nest.idx[0], nest.idx[1], nest.idx[2], nest.idx[5], nest.idx[3], nest.idx[4]};
    lir_expr *r0 = lir_add(f, lir_muli(f, di[0], ps[4]), di[4]);
    lir_expr *c = lir_add(f, lir_muli(f, di[1], ps[5]), di[5]);
    lir_expr *inb = lir_bin(f, LIR_AND, lir_bin(f, LIR_LT, r0, lir_i64(f, D0)), lir_bin(f, LIR_LT, c, lir_i64(f, D1)));
    lir_expr *r0c = lir_min(f, r0, lir_i64(f, D0 - 1)), *cc = lir_min(f, c, lir_i64(f, D1 - 1));
    lir_expr *si[4] = {r0c, cc, di[2], di[3]}; /* [N, C] (rank 2): the first two */
    lir_expr *v = lir_select(f, inb, lir_load(f, bs, si), lir_int(f, dt, 0));
    lir_stmt *st = lir_store(f, bd, di, v);
    f->body = lir_nest_close(f, &nest, st, LIR_FOR_VECTORIZED);
  } else {
    int64_t ext[4] = {D0, D1, H, W};
    lir_nest_open(f, &nest, 4, ext, "u");
    lir_expr *i0 = nest.idx[0], *i1 = nest.idx[1];
    lir_expr *pidx[6] = {lir_bin(f, LIR_DIV, i0, lir_i64(f, ps[4])), lir_bin(f, LIR_DIV, i1, lir_i64(f, ps[5])),
                         nest.idx[2], nest.idx[3], lir_bin(f, LIR_MOD, i0, lir_i64(f, ps[4])),
                         lir_bin(f, LIR_MOD, i1, lir_i64(f, ps[5]))};
    lir_expr *flat = lir_add(f, lir_muli(f, lir_add(f, lir_muli(f, lir_add(f, lir_muli(f, i0, D1), i1), H), nest.idx[2]), W),
                             nest.idx[3]);
    lir_stmt *st = lir_store1(f, bd, flat, lir_load(f, bs, pidx));
    f->body = lir_nest_close(f, &nest, st, LIR_FOR_SERIAL);
  }
  int rc = lir_verify(f, true, err);
  if (rc) {
    lir_func_free(f);
    return ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
  }
  *out = f;
  return OVTA_OK;
}

/* A Concat on the packed layout (pack.c's pack_concat): inputs and output OVTA_LAYOUT_ACT arrays
 * [N/B, C/BI, H, W, B, BI], joined along physical axis 1 (whole channel blocks). A host copy:
 * the executor passes the tensors' DMA buffers (invalidated before, flushed after the step), so
 * the device reads what this writes. */
int exec_lower_packed_concat(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out,
                             ovta_error *err) {
  (void)g;
  *out = NULL;
  const ovta_tensor *y = n->n_outputs == 1 ? n->outputs[0] : NULL;
  if (!y || y->layout != OVTA_LAYOUT_ACT || y->rank != 6 || ovta_node_attr_i(n, "axis", 0) != 1)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): a packed Concat joins act-layout arrays along axis 1", n->name, n->op);
  lir_dtype dt = lir_from_ovta_dtype(y->dtype);
  if (dt == LIR_VOID) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): dtype %s", n->name, n->op, ovta_dtype_name(y->dtype));
  int64_t off = 0;
  for (int k = 0; k < n->n_inputs; k++) {
    const ovta_tensor *x = n->inputs[k];
    if (!x || x->layout != OVTA_LAYOUT_ACT || x->rank != 6 || x->dtype != y->dtype)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): input %d is not a packed %s activation", n->name, n->op, k,
                       ovta_dtype_name(y->dtype));
    for (int d = 0; d < 6; d++)
      if (d != 1 && x->shape[d] != y->shape[d])
        return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): input %s: packed shape does not match the output", n->name, n->op, x->name);
    off += x->shape[1];
  }
  if (off != y->shape[1])
    return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): channel blocks of the inputs do not sum to the output's", n->name, n->op);
  lir_func *f = lir_func_new(fname);
  if (!f) return OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
  for (int k = 0; k < n->n_inputs; k++) { /* parameters: the inputs, then the output */
    char pn[24];
    snprintf(pn, sizeof pn, "x%d", k);
    lir_param(f, pn, dt, 6, n->inputs[k]->shape);
  }
  lir_buf *dst = lir_param(f, "y", dt, 6, y->shape);
  lir_block blk;
  lir_block_init(&blk, f);
  off = 0;
  for (int k = 0; k < n->n_inputs; k++) {
    lir_nest nest;
    lir_nest_open(f, &nest, 6, n->inputs[k]->shape, "c");
    lir_expr *yi[6];
    for (int d = 0; d < 6; d++) yi[d] = d == 1 ? lir_addi(f, nest.idx[d], off) : nest.idx[d];
    lir_stmt *st = lir_store(f, dst, yi, lir_load(f, f->params[k], nest.idx));
    lir_block_add(&blk, lir_nest_close(f, &nest, st, LIR_FOR_SERIAL));
    off += n->inputs[k]->shape[1];
  }
  f->body = lir_block_stmt(&blk);
  int rc = lir_verify(f, true, err);
  if (rc) {
    lir_func_free(f);
    return ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
  }
  *out = f;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- CPU fallback */

static ovta_tensor *fresh_tensor(ovta_graph *g, const char *base, ovta_dtype dt, int rank, const int64_t *shape,
                                 ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  if (!nm) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  ovta_tensor *t = ovta_graph_add_tensor(g, nm, dt, rank, shape, err);
  free(nm);
  return t;
}

static ovta_node *fresh_node(ovta_graph *g, int pos, const char *op, const char *base, ovta_tensor *in,
                             ovta_tensor *out, ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  ovta_node *n = nm ? ovta_node_new(op, nm, 1, 1) : NULL;
  free(nm);
  if (!n) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  n->inputs[0] = in, n->outputs[0] = out, n->target = OVTA_TARGET_CPU;
  if (ovta_graph_insert_node(g, pos, n, err)) {
    ovta_node_free(n);
    return NULL;
  }
  return n;
}

/* Node *pi (its inputs already plain) runs on the CPU: its packed output yp becomes a plain
 * tensor, and an ovta.Pack after it rebuilds yp for the nodes that read it. */
static int cpu_output_repacked(ovta_graph *g, int *pi, ovta_node *n, ovta_tensor *yp, ovta_error *err) {
  ovta_tensor *yl = fresh_tensor(g, yp->name, yp->dtype, yp->logical_rank, yp->logical, err);
  if (!yl) return err->code;
  yl->quant = yp->quant;
  n->outputs[0] = yl;
  n->target = OVTA_TARGET_CPU;
  ovta_node *pk = fresh_node(g, *pi + 1, "ovta.Pack", "pack", yl, yp, err);
  if (!pk || ovta_node_set_s(pk, "layout", "act", err) || ovta_node_set_i(pk, "batch", yp->shape[4], err) ||
      ovta_node_set_i(pk, "block_in", yp->shape[5], err) || ovta_node_set_i(pk, "block_out", yp->shape[5], err))
    return err->code ? err->code : OVTA_ENOMEM;
  return ovta_graph_index(g, err);
}

/* Node *pi (a packed ovta.QConv / ovta.QDense / ovta.QAdd / ovta.QMaxPool / ovta.QGlobalAvgPool) back to the plain
 * layout for the CPU path:
 * Unpack(x) -> node with plain weights/bias -> Pack -> the packed output the users read.
 * *pi moves to the node's new position. */
/* An ALU node (ovta.QAdd / ovta.QMaxPool / ovta.QGlobalAvgPool, a packed Resize) back to the plain layout: Unpack each
 * packed input, the node on plain tensors, Pack its output. */
static int unpack_alu(ovta_graph *g, int *pi, ovta_error *err) {
  ovta_node *n = g->nodes[*pi];
  ovta_tensor *yp = n->outputs[0];
  int ni = strcmp(n->op, "Resize") ? n->n_inputs : 1; /* a Resize's roi, scales, sizes: plain constants */
  for (int k = 0; k < ni; k++)
    if (!n->inputs[k] || n->inputs[k]->layout != OVTA_LAYOUT_ACT)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): cannot move back to the plain layout for the CPU", n->name, n->op);
  if (!yp || yp->layout != OVTA_LAYOUT_ACT)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): cannot move back to the plain layout for the CPU", n->name, n->op);
  for (int k = 0; k < ni; k++) {
    ovta_tensor *xp = n->inputs[k];
    ovta_tensor *xl = fresh_tensor(g, xp->name, xp->dtype, xp->logical_rank, xp->logical, err);
    if (!xl) return err->code;
    xl->quant = xp->quant;
    ovta_node *un = fresh_node(g, *pi, "ovta.Unpack", "unpack", xp, xl, err);
    if (!un || ovta_node_set_ints(un, "shape", xl->shape, xl->rank, err)) return err->code ? err->code : OVTA_ENOMEM;
    (*pi)++;
    n->inputs[k] = xl;
  }
  return cpu_output_repacked(g, pi, n, yp, err);
}

int exec_unpack_node(ovta_graph *g, int *pi, const ovta_config *cfg, ovta_error *err) {
  ovta_node *n = g->nodes[*pi];
  if (!strcmp(n->op, "ovta.QAdd") || !strcmp(n->op, "ovta.QMaxPool") || !strcmp(n->op, "ovta.QGlobalAvgPool") ||
      !strcmp(n->op, "Resize"))
    return unpack_alu(g, pi, err);
  ovta_tensor *xp = n->inputs[0], *wp = n->inputs[1], *bp = ovta_node_in(n, 2), *yp = n->outputs[0];
  if (xp->layout != OVTA_LAYOUT_ACT || wp->layout != OVTA_LAYOUT_WGT || yp->layout != OVTA_LAYOUT_ACT || !wp->data ||
      (bp && !bp->data) || cfg->block_in != cfg->block_out || wp->rank != 6)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): cannot move back to the plain layout for the CPU", n->name,
                     n->op);
  /* a dense reading a packed [N, C, 1, 1] (pack's flatten_alias) takes it as [N, C] */
  int64_t lx[OVTA_MAX_RANK];
  int lr = xp->logical_rank;
  memcpy(lx, xp->logical, sizeof lx);
  if (!strcmp(n->op, "ovta.QDense") && lr == 4 && lx[2] == 1 && lx[3] == 1) lr = 2;
  ovta_tensor *xl = fresh_tensor(g, xp->name, xp->dtype, lr, lx, err);
  if (!xl) return err->code;
  xl->quant = xp->quant;
  ovta_node *un = fresh_node(g, *pi, "ovta.Unpack", "unpack", xp, xl, err);
  if (!un || ovta_node_set_ints(un, "shape", xl->shape, xl->rank, err)) return err->code ? err->code : OVTA_ENOMEM;
  (*pi)++;
  /* weights [O/bo, I/bi, KH, KW, bo, bi] -> logical [O, I(, KH, KW)] */
  ovta_tensor *wl = fresh_tensor(g, wp->name, wp->dtype, wp->logical_rank, wp->logical, err);
  if (!wl) return err->code;
  wl->kind = OVTA_TK_CONST, wl->quant = wp->quant;
  if (ovta_tensor_alloc(wl, err)) return err->code;
  int64_t O = wl->shape[0], I = wl->shape[1], KH = wl->rank == 4 ? wl->shape[2] : 1, KW = wl->rank == 4 ? wl->shape[3] : 1;
  const int64_t *s = wp->shape;
  /* grouped (pass pack, ovta_group_blocks): input channel c = group * I + i at block c/bi - ob*gs */
  int64_t G = strcmp(n->op, "ovta.QConv") ? 1 : ovta_node_attr_i(n, "group", 1), gk = 0, gs = 0;
  if (G != 1 && (O % G || !ovta_group_blocks(I * G, O, G, s[5], s[4], &gk, &gs) || gk != s[1]))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): cannot move back to the plain layout for the CPU", n->name,
                     n->op);
  for (int64_t o = 0; o < O; o++)
    for (int64_t i = 0; i < I; i++)
      for (int64_t h = 0; h < KH; h++)
        for (int64_t x = 0; x < KW; x++) {
          int64_t c = o / (O / G) * I + i;
          ((int8_t *)wl->data)[((o * I + i) * KH + h) * KW + x] =
              ((const int8_t *)wp->data)[((((o / s[4]) * s[1] + c / s[5] - o / s[4] * gs) * KH + h) * KW + x) * s[4] *
                                             s[5] +
                                         (o % s[4]) * s[5] + c % s[5]];
        }
  ovta_tensor *bl = NULL;
  if (bp) {
    int64_t bs[1] = {bp->logical_rank == 1 ? bp->logical[0] : O};
    if (!(bl = fresh_tensor(g, bp->name, bp->dtype, 1, bs, err))) return err->code;
    bl->kind = OVTA_TK_CONST, bl->quant = bp->quant;
    if (ovta_tensor_alloc(bl, err)) return err->code;
    memcpy(bl->data, bp->data, bl->nbytes <= bp->nbytes ? bl->nbytes : bp->nbytes);
  }
  n->inputs[0] = xl, n->inputs[1] = wl;
  if (bp) n->inputs[2] = bl;
  return cpu_output_repacked(g, pi, n, yp, err);
}

/* Does the graph still need the pack / partition passes for the accelerator? */
void exec_accel_needs(const ovta_graph *g, bool *pack, bool *partition) {
  *pack = *partition = false;
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    if (n->target == OVTA_TARGET_ANY) *partition = true;
    if ((!strcmp(n->op, "ovta.QConv") || !strcmp(n->op, "ovta.QDense") || !strcmp(n->op, "ovta.QAdd") ||
         !strcmp(n->op, "ovta.QMaxPool") || !strcmp(n->op, "ovta.QGlobalAvgPool")) &&
        n->inputs[0] &&
        n->inputs[0]->layout == OVTA_LAYOUT_PLAIN)
      *pack = true;
  }
}
