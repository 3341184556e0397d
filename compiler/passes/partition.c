/* partition: accel/cpu targets and regions.
 * The rule each pass implements is in the comment above its function; the pass list and what
 * each guarantees: compiler/passes/README.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

static bool desc_supports(const ovta_target_desc *t, const ovta_graph *g, const ovta_node *n) {
  if (t->supports) return t->supports(t->ctx, g, n);
  for (int i = 0; t->ops && t->ops[i]; i++)
    if (!strcmp(t->ops[i], n->op)) return true;
  return false;
}

/* A Concat of int8 arrays in the act layout (pack.c's pack_concat). */
static bool packed_concat(const ovta_node *n) {
  const ovta_tensor *y = n->n_outputs == 1 ? n->outputs[0] : NULL;
  return !strcmp(n->op, "Concat") && y && y->dtype == OVTA_DT_I8 && y->layout == OVTA_LAYOUT_ACT;
}

/* A Resize on int8 arrays in the act layout (pack.c's packable_resize: a nearest upsampling by
 * integer factors, VTA_UPSAMPLE on the accelerator). */
static bool packed_resize(const ovta_node *n) {
  const ovta_tensor *y = n->n_outputs == 1 ? n->outputs[0] : NULL, *x = ovta_node_in(n, 0);
  return !strcmp(n->op, "Resize") && y && x && y->dtype == OVTA_DT_I8 && y->layout == OVTA_LAYOUT_ACT &&
         x->dtype == OVTA_DT_I8 && x->layout == OVTA_LAYOUT_ACT;
}

/* Why a Resize (not packed) stays on the CPU, in buf: the upsampling rule's reason
 * (ovta_resize_nearest_factors), else the quantize or pack pass's condition it missed. */
static const char *resize_why_not(const ovta_node *n, char *buf, size_t len) {
  const ovta_tensor *x = ovta_node_in(n, 0), *y = n->n_outputs ? n->outputs[0] : NULL;
  bool i8 = y && y->dtype == OVTA_DT_I8;
  int64_t f[2];
  char why[256];
  if (!ovta_resize_nearest_factors(n, x, f, why, sizeof why))
    snprintf(buf, len, "%s: not a nearest upsampling by integer factors on the accelerator: %s",
             i8 ? "int8 Resize on the CPU" : "stays float", why);
  else if (!i8)
    snprintf(buf, len, "stays float: the int8 Resize needs a non-constant input produced int8 (the quantize pass's "
             "rule: compiler/passes/quantize.c)");
  else
    snprintf(buf, len, "int8 Resize on the CPU: its input is not produced packed by an accelerator operator (the pack "
             "pass's rule: compiler/passes/pack.c)");
  return buf;
}

static bool accel_supports(void *ctx, const ovta_graph *g, const ovta_node *n) {
  if (!strcmp(n->op, "ovta.Pack") || !strcmp(n->op, "ovta.Unpack") || packed_concat(n) || packed_resize(n)) return true;
  if (!strcmp(n->op, "ovta.QAdd") || !strcmp(n->op, "ovta.QMaxPool") || !strcmp(n->op, "ovta.QGlobalAvgPool")) {
    /* int8 in the act layout; whether the ALU kernels take the shape is the executor's check
     * (vta_op_from_node, vta_plan_make), which falls back to the cpu with the reason */
    const ovta_tensor *y = n->n_outputs ? n->outputs[0] : NULL;
    if (!y || y->dtype != OVTA_DT_I8 || y->layout != OVTA_LAYOUT_ACT) return false;
    for (int k = 0; k < n->n_inputs; k++)
      if (!n->inputs[k] || n->inputs[k]->dtype != OVTA_DT_I8 || n->inputs[k]->layout != OVTA_LAYOUT_ACT) return false;
    return n->n_inputs == (strcmp(n->op, "ovta.QAdd") ? 1 : 2);
  }
  if (strcmp(n->op, "ovta.QConv") && strcmp(n->op, "ovta.QDense")) return false;
  /* grouped convolutions too: pack took only those whose channels align with the groups and
   * the blocks (the others stay plain, so cpu); whether the shape fits is the executor's check */
  const ovta_tensor *x = ovta_node_in(n, 0), *y = n->outputs[0];
  return x && x->dtype == OVTA_DT_I8 && y && y->dtype == OVTA_DT_I8 && x->layout == OVTA_LAYOUT_ACT;
}

const ovta_target_desc ovta_target_accel = {"ovta-accel", accel_supports, NULL, NULL};

/* Does grouped conv n (plain, rank 4) align with the blocks pass pack used in g (those of its
 * ovta.Pack nodes; none: it packed nothing, so not)? A plain one that does was moved back to the
 * plain layout by the executor's CPU fallback, with its own reason. */
static bool group_fits_packs(const ovta_graph *g, const ovta_node *n, const ovta_tensor *x, const ovta_tensor *y) {
  for (int i = 0; g && i < g->n_nodes; i++) {
    const ovta_node *p = g->nodes[i];
    if (strcmp(p->op, "ovta.Pack")) continue;
    int64_t gk, gs;
    return ovta_group_blocks(x->shape[1], y->shape[1], ovta_node_attr_i(n, "group", 1),
                             ovta_node_attr_i(p, "block_in", 16), ovta_node_attr_i(p, "block_out", 16), &gk, &gs);
  }
  return false;
}

/* Why an int8 accelerator operator (ovta.QConv/QDense/QAdd/QMaxPool/QGlobalAvgPool) is not taken, in buf. */
static const char *q_why_not(const ovta_graph *g, const ovta_node *n, char *buf, size_t len) {
  const ovta_tensor *y = n->n_outputs ? n->outputs[0] : NULL;
  const ovta_tensor *x0 = ovta_node_in(n, 0);
  if (!strcmp(n->op, "ovta.QConv") && x0 && x0->rank != 4 && x0->layout == OVTA_LAYOUT_PLAIN)
    snprintf(buf, len, "%d-D convolution (the accelerator takes 2-D)", x0->rank - 2);
  else if (!strcmp(n->op, "ovta.QConv") && ovta_node_attr_i(n, "group", 1) != 1 && x0 && y && x0->rank == 4 &&
           y->rank == 4 && x0->layout == OVTA_LAYOUT_PLAIN &&
           !group_fits_packs(g, n, x0, y)) { /* pack takes only groups aligned with (or padded to) the blocks */
    long long G = (long long)ovta_node_attr_i(n, "group", 1);
    snprintf(buf, len,
             "grouped convolution (group %lld): %lld input and %lld output channels per group do not align with the "
             "accelerator's channel blocks",
             G, G > 0 ? (long long)x0->shape[1] / G : 0, G > 0 ? (long long)y->shape[1] / G : 0);
  }
  else if (!y || y->dtype != OVTA_DT_I8) snprintf(buf, len, "output is not int8");
  else {
    for (int k = 0; k < n->n_inputs; k++) {
      const ovta_tensor *x = n->inputs[k];
      bool wgt = k > 0 && (!strcmp(n->op, "ovta.QConv") || !strcmp(n->op, "ovta.QDense"));
      if (!x || wgt) continue;
      if (x->dtype != OVTA_DT_I8) return snprintf(buf, len, "input %s is not int8", x->name), buf;
      if (x->layout != OVTA_LAYOUT_ACT)
        return snprintf(buf, len, "input %s is not in the accelerator's layout (rank %d, not packed)", x->name,
                        x->rank),
               buf;
    }
    snprintf(buf, len, "%d inputs, not what the ALU kernel takes", n->n_inputs);
  }
  return buf;
}

/* Why Gemm/MatMul n was not fused into ovta.Dense (fuse.c's to_dense rule), in buf. */
static const char *dense_why_not(const ovta_node *n, char *buf, size_t len) {
  const ovta_tensor *a = ovta_node_in(n, 0), *b = ovta_node_in(n, 1);
  if (!b || !px_is_const(b)) snprintf(buf, len, "the second operand is not a constant (a product of two values)");
  else if (!a || a->rank != 2)
    snprintf(buf, len, "the first operand has rank %d (the dense layer takes 2-D)", a ? a->rank : -1);
  else if (a->dtype != OVTA_DT_F32 || b->dtype != OVTA_DT_F32) snprintf(buf, len, "operands are not float");
  else if (!strcmp(n->op, "Gemm") && ovta_node_attr_i(n, "transA", 0)) snprintf(buf, len, "transA=1");
  else snprintf(buf, len, "the bias C is not a constant of N values");
  return buf;
}

/* The accelerator target's reason for each node it does not take; the ops the passes leave on
 * the host by design say what they are. */
const char *ovta_accel_why_not(const ovta_graph *g, const ovta_node *n, char *buf, size_t len) {
  if (!strcmp(n->op, "ovta.Pack") || !strcmp(n->op, "ovta.Unpack"))
    return snprintf(buf, len, "layout conversion to or from the accelerator's blocked layout (host)"), buf;
  if (!strcmp(n->op, "QuantizeLinear") || !strcmp(n->op, "DequantizeLinear"))
    return snprintf(buf, len, "float <-> int8 conversion (host)"), buf;
  if (packed_concat(n))
    return snprintf(buf, len, "int8 channel concat of packed values: a host copy between the device's buffers (no conversion)"),
           buf;
  if (!strcmp(n->op, "Concat") && n->n_outputs == 1 && n->outputs[0] && n->outputs[0]->dtype == OVTA_DT_I8)
    return snprintf(buf, len,
                    "int8 concat on plain values: an input not produced packed or not a whole number of channel "
                    "blocks (the pack pass's rule: compiler/passes/pack.c)"),
           buf;
  if (!strcmp(n->op, "Concat"))
    return snprintf(buf, len,
                    "stays float: the int8 Concat joins channels (axis 1, rank 4 or 2) of inputs all produced int8 "
                    "(the quantize pass's rule: compiler/passes/quantize.c)"),
           buf;
  if (accel_supports(NULL, g, n)) return NULL;
  if (!strncmp(n->op, "ovta.Q", 6)) return q_why_not(g, n, buf, len);
  if (!strcmp(n->op, "ovta.Conv") || !strcmp(n->op, "ovta.Dense"))
    return snprintf(buf, len, "stays float: "), px_quant_why_not(n, buf + strlen(buf), len - strlen(buf)), buf;
  const char *ops = ovta_node_attr_s(n, "ops", "");
  if (!strcmp(n->op, "ovta.Eltwise") && strcmp(ops, "Add") && strcmp(ops, "Add,Relu"))
    return snprintf(buf, len, "elementwise chain %s: no accelerator operator (the ALU takes residual adds)", ops), buf;
  const ovta_tensor *x0 = ovta_node_in(n, 0);
  if (!strcmp(n->op, "GlobalAveragePool"))
    return snprintf(buf, len,
                    "stays float: the int8 GlobalAveragePool needs a rank-4 input produced int8 and a multiplier "
                    "and shift within the ALU's immediates (gap_scale in compiler/passes/quantize.c)"),
           buf;
  if (!strcmp(n->op, "Flatten") && x0 && x0->dtype == OVTA_DT_I8)
    return snprintf(buf, len, "int8 Flatten: data movement in the plain layout (host)"), buf;
  if (!strcmp(n->op, "MaxPool"))
    return snprintf(buf, len,
                    "stays float: the int8 MaxPool needs a non-constant 2-D input produced int8, dilations 1, no "
                    "Indices output, and with ceil_mode 1 every window starting inside the input (the quantize "
                    "pass's rule: compiler/passes/quantize.c)"),
           buf;
  if (!strcmp(n->op, "Add") || !strcmp(n->op, "ovta.Eltwise") || !strcmp(n->op, "Flatten"))
    return snprintf(buf, len,
                    "stays float: the int8 %s needs a non-constant input produced int8 (the quantize pass's rule: "
                    "compiler/passes/quantize.c)",
                    n->op),
           buf;
  if (!strcmp(n->op, "Gemm") || !strcmp(n->op, "MatMul")) return dense_why_not(n, buf, len);
  if (!strcmp(n->op, "Resize")) return resize_why_not(n, buf, len);
  if (!strcmp(n->op, "Conv")) return snprintf(buf, len, "not fused into ovta.Conv (not float)"), buf;
  return snprintf(buf, len, "no accelerator operator for %s", n->op), buf;
}

static int uf_find(int *p, int i) {
  while (p[i] != i) i = p[i] = p[p[i]];
  return i;
}

/* partition: each node gets target accel when the target description supports it, else cpu;
 * regions are the connected components of same-target nodes (numbered in node order). */
int pass_partition(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err) {
  const ovta_target_desc *t = o->target ? o->target : &ovta_target_accel;
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int nn = g->n_nodes;
  int *p = malloc((size_t)(nn + 1) * sizeof *p), *id = malloc((size_t)(nn + 1) * sizeof *id);
  if (!p || !id) {
    free(p), free(id);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  for (int i = 0; i < nn; i++) {
    p[i] = i, id[i] = -1;
    g->nodes[i]->target = desc_supports(t, g, g->nodes[i]) ? OVTA_TARGET_ACCEL : OVTA_TARGET_CPU;
  }
  for (int i = 0; i < nn; i++) {
    ovta_node *n = g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++) {
      ovta_tensor *x = n->inputs[k];
      if (!x || x->producer < 0 || g->nodes[x->producer]->target != n->target) continue;
      int a = uf_find(p, i), b = uf_find(p, x->producer);
      if (a != b) p[a < b ? b : a] = a < b ? a : b;
    }
  }
  int next = 0;
  for (int i = 0; i < nn; i++) {
    int r = uf_find(p, i);
    if (id[r] < 0) id[r] = next++;
    g->nodes[i]->region = id[r];
  }
  free(p), free(id);
  return OVTA_OK;
}
