/* split-groups: grouped convolutions cut into runs of whole groups that fall on the
 * accelerator's channel blocks (accelerator pipeline).
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

#define MAX_PARTS 64 /* the Concat that joins the parts takes at most 64 inputs */

/* One part of a split grouped conv: groups [g0, g0 + gn). */
typedef struct part {
  int64_t g0; /* first group */
  int64_t gn; /* groups in the part */
} part;

/* The parts of a conv of G groups of cg input and og output channels on blocks bi, bo: runs of
 * m groups, m the smallest count whose m*cg and m*og channels are whole blocks, then each group
 * left over (fewer than m) alone. Returns the number of parts (0: more than MAX_PARTS). */
static int plan_parts(int64_t G, int64_t cg, int64_t og, int64_t bi, int64_t bo, part *pt) {
  int64_t m = 0;
  for (int64_t k = 1; k <= G && !m; k++)
    if ((k * cg) % bi == 0 && (k * og) % bo == 0) m = k;
  int64_t runs = m ? G / m : 0, left = m ? G % m : G;
  if (runs + left > MAX_PARTS) return 0;
  int n = 0;
  for (int64_t r = 0; r < runs; r++) pt[n++] = (part){r * m, m};
  for (int64_t l = 0; l < left; l++) pt[n++] = (part){runs * m + l, 1};
  return n;
}

/* A grouped ovta.Conv this pass splits: float, static shapes, constant weights and bias, group
 * G > 1 whose blocked form is wasteful or missing: ovta_group_blocks gives no per-block input
 * window (gs 0: every output block would read every input block, G times the useful work or
 * more) or refuses the grouping (the node would stay on the CPU). Depthwise and the groups
 * aligned one output block per group (gs > 0) stay whole. */
static bool split_match(const ovta_node *n, int64_t bi, int64_t bo) {
  if (strcmp(n->op, "ovta.Conv") || n->n_outputs != 1 || !n->outputs[0]) return false;
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
  int64_t G = ovta_node_attr_i(n, "group", 1);
  if (G <= 1 || !x || x->rank != 4 || x->dtype != OVTA_DT_F32 || px_is_const(x) || !px_is_const(w) ||
      w->dtype != OVTA_DT_F32 || w->rank != 4 || (b && (!px_is_const(b) || b->rank != 1)))
    return false;
  for (int d = 0; d < 4; d++)
    if (x->shape[d] < 1) return false;
  int64_t C = x->shape[1], O = w->shape[0], gk, gs;
  if (C % G || O % G || w->shape[1] != C / G) return false;
  return !ovta_group_blocks(C, O, G, bi, bo, &gk, &gs) || gs == 0;
}

/* Rows [r0, r0 + rn) of constant t (axis 0) as a new constant. */
static ovta_tensor *rows(ovta_graph *g, const ovta_tensor *t, int64_t r0, int64_t rn, ovta_error *err) {
  int64_t s[OVTA_MAX_RANK];
  memcpy(s, t->shape, sizeof(int64_t) * (size_t)t->rank);
  s[0] = rn;
  ovta_tensor *c = px_new_const(g, t->name, t->dtype, t->rank, s, err);
  if (!c) return NULL;
  int64_t per = ovta_tensor_numel(c) / rn;
  memcpy(c->data, (const float *)t->data + r0 * per, sizeof(float) * (size_t)(rn * per));
  return c;
}

/* Every attribute of src onto dst (dst's own ones replaced). */
static int copy_attrs(ovta_node *dst, const ovta_node *src, ovta_error *err) {
  int rc = OVTA_OK;
  for (int i = 0; !rc && i < src->n_attrs; i++) {
    const ovta_attr *a = &src->attrs[i];
    switch (a->type) {
    case OVTA_ATTR_INT: rc = ovta_node_set_i(dst, a->name, a->i, err); break;
    case OVTA_ATTR_FLOAT: rc = ovta_node_set_f(dst, a->name, a->f, err); break;
    case OVTA_ATTR_STRING: rc = ovta_node_set_s(dst, a->name, a->s, err); break;
    case OVTA_ATTR_INTS: rc = ovta_node_set_ints(dst, a->name, a->ints, a->n, err); break;
    case OVTA_ATTR_FLOATS: rc = ovta_node_set_floats(dst, a->name, a->floats, a->n, err); break;
    case OVTA_ATTR_STRINGS: rc = ovta_node_set_strs(dst, a->name, (const char *const *)a->strs, a->n, err); break;
    case OVTA_ATTR_TENSOR:
      rc = OVTA_FAIL(err, OVTA_EINTERNAL, "split-groups: node %s: tensor attribute %s", src->name, a->name);
      break;
    }
  }
  return rc;
}

/* Part p of conv n: Slice of X's channels [g0*cg, (g0+gn)*cg) -> ovta.Conv with group gn, the
 * weight and bias rows [g0*og, (g0+gn)*og) -> a new value, inserted at *pos (moved past both). */
static ovta_tensor *emit_part(ovta_graph *g, int *pos, const ovta_node *n, part p, ovta_error *err) {
  ovta_tensor *x = n->inputs[0], *w = n->inputs[1], *b = ovta_node_in(n, 2);
  int64_t G = ovta_node_attr_i(n, "group", 1), cg = x->shape[1] / G, og = w->shape[0] / G;
  int64_t st = p.g0 * cg, en = (p.g0 + p.gn) * cg, ax = 1;
  ovta_tensor *sl[4] = {x, px_new_ints(g, "starts", 1, &st, err), px_new_ints(g, "ends", 1, &en, err),
                        px_new_ints(g, "axes", 1, &ax, err)};
  ovta_tensor *xs = sl[1] && sl[2] && sl[3] ? px_new_value(g, x->name, OVTA_DT_F32, NULL, err) : NULL;
  ovta_node *s = xs ? px_new_node(g, *pos, "Slice", "split_groups", 4, sl, xs, err) : NULL;
  if (!s || ovta_infer_node(g, s, err)) return NULL;
  (*pos)++;
  ovta_tensor *cv[3] = {xs, rows(g, w, p.g0 * og, p.gn * og, err), b ? rows(g, b, p.g0 * og, p.gn * og, err) : NULL};
  ovta_tensor *y = cv[1] && (!b || cv[2]) ? px_new_value(g, n->outputs[0]->name, OVTA_DT_F32, NULL, err) : NULL;
  ovta_node *c = y ? px_new_node(g, *pos, "ovta.Conv", n->name, b ? 3 : 2, cv, y, err) : NULL;
  if (!c || copy_attrs(c, n, err) || ovta_node_set_i(c, "group", p.gn, err) || ovta_infer_node(g, c, err)) return NULL;
  (*pos)++;
  return y;
}

/* split-groups: a grouped ovta.Conv (split_match) becomes the Concat along the channels of
 * convs over runs of whole groups (plan_parts): Y[:, o] for o in group q depends only on X's
 * channels of group q, so
 *   Y = Concat_axis1( ovta.Conv_group=gn( X[:, g0*cg : (g0+gn)*cg], W[g0*og : (g0+gn)*og], B[...] ) )
 * over the parts (g0, gn), every attribute (strides, pads, activation) kept. Each part's
 * channels are whole blocks (or its one group is a plain conv, padded to the blocks by pack), so
 * on the accelerator an output block reads the input blocks of its own part only. Only in the
 * accelerator pipeline; the MACs of each part are those of its groups. */
int pass_split_groups(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  int64_t bi = o->cfg ? o->cfg->block_in : 16, bo = o->cfg ? o->cfg->block_out : 16;
  int rc = ovta_graph_index(g, err);
  for (int i = 0; !rc && i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    part pt[MAX_PARTS];
    int np;
    if (!split_match(n, bi, bo)) continue;
    int64_t G = ovta_node_attr_i(n, "group", 1);
    if ((np = plan_parts(G, n->inputs[0]->shape[1] / G, n->inputs[1]->shape[0] / G, bi, bo, pt)) < 2) continue;
    int pos = i;
    ovta_tensor *ys[MAX_PARTS];
    for (int p = 0; p < np; p++)
      if (!(ys[p] = emit_part(g, &pos, n, pt[p], err))) return err->code ? err->code : OVTA_ENOMEM;
    /* n itself becomes the Concat of the parts (its name and output tensor stay) */
    while (n->n_attrs) ovta_node_del_attr(n, n->attrs[0].name);
    if (px_set_op(n, "Concat", err) || px_set_inputs(n, np, err) || ovta_node_set_i(n, "axis", 1, err))
      return err->code;
    for (int p = 0; p < np; p++) n->inputs[p] = ys[p];
    if ((rc = ovta_infer_node(g, n, err))) return rc;
    i = pos;
    rc = ovta_graph_index(g, err);
  }
  return rc ? rc : pass_dce(g, o, err);
}
