/* infer.c: per-operator attribute validation and shape/type inference with ONNX semantics
 * (graph.h section 7): the helpers every rule uses and the lookup over the operator families
 * (one file each: infer_elementwise.c, infer_conv.c, infer_matmul.c, infer_quant.c, infer_data.c,
 * infer_logic.c;
 * adding an operator: its rule in its family's file, one row in that file's table).
 *
 * Inference also makes defaults explicit where later layers need them: Conv/pools get
 * kernel_shape, strides, dilations, pads (auto_pad resolved to NOTSET) and group.
 * Nodes use the opset-13+ forms (the ONNX importer upgrades older ones).
 * Nodes whose inputs are in a packed layout (after the "pack" pass) keep the output types the
 * pass gave them.
 */
#include "infer_internal.h"

__attribute__((format(printf, 3, 4))) int ix_bad(ctx *c, int code, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return OVTA_FAIL(c->err, code, "%s: node '%s' (%s): %s", c->g->origin[0] ? c->g->origin : c->g->name, c->n->name,
                   c->n->op, msg);
}

ovta_tensor *ix_in(ctx *c, int i) { return ovta_node_in(c->n, i); }

/* Input i must be present with a known type and rank. */
int ix_need(ctx *c, int i, ovta_tensor **t) {
  *t = ix_in(c, i);
  if (!*t) return ix_bad(c, OVTA_EINVAL, "input %d is missing", i);
  if ((*t)->dtype == OVTA_DT_UNDEF || (*t)->rank < 0)
    return ix_bad(c, OVTA_EINVAL, "input %d '%s' has no known type/shape (is it produced before use?)", i, (*t)->name);
  return OVTA_OK;
}

int ix_count_io(ctx *c, int min_in, int max_in, int min_out, int max_out) {
  int ni = c->n->n_inputs, no = c->n->n_outputs;
  while (ni > 0 && !c->n->inputs[ni - 1]) ni--;
  if (ni < min_in || ni > max_in)
    return ix_bad(c, OVTA_EINVAL, "needs %d..%d inputs, has %d", min_in, max_in, c->n->n_inputs);
  if (no < min_out || no > max_out)
    return ix_bad(c, OVTA_EINVAL, "needs %d..%d outputs, has %d", min_out, max_out, no);
  for (int i = 0; i < min_out; i++)
    if (!c->n->outputs[i]) return ix_bad(c, OVTA_EINVAL, "output %d is missing", i);
  return OVTA_OK;
}

int ix_set_out(ctx *c, int k, ovta_dtype dt, int rank, const int64_t *shape) {
  if (k >= c->n->n_outputs || !c->n->outputs[k]) return OVTA_OK;
  ovta_tensor *o = c->n->outputs[k];
  if (rank > OVTA_MAX_RANK) return ix_bad(c, OVTA_EUNSUPPORTED, "output rank %d is above %d", rank, OVTA_MAX_RANK);
  for (int i = 0; i < rank; i++)
    if (shape[i] > ((int64_t)1 << 40)) return ix_bad(c, OVTA_EINVAL, "output dim %d is too large (%lld)", i, (long long)shape[i]);
  if (rank >= 0 && ovta_shape_numel(shape, rank) < 0) {
    bool known = true;
    for (int i = 0; i < rank; i++) known &= shape[i] >= 0;
    if (known) return ix_bad(c, OVTA_EINVAL, "the element count of output '%s' overflows", o->name);
  }
  o->dtype = dt;
  if (o->rank != rank || (rank > 0 && memcmp(o->shape, shape, sizeof(int64_t) * (size_t)rank)))
    for (int i = 0; i < OVTA_MAX_RANK; i++) {
      free(o->dim_names[i]);
      o->dim_names[i] = NULL;
    }
  o->rank = rank;
  for (int i = 0; i < rank; i++) o->shape[i] = shape[i];
  return OVTA_OK;
}

int ix_same_as(ctx *c, int k, const ovta_tensor *t) { return ix_set_out(c, k, t->dtype, t->rank, t->shape); }

bool ix_is_float(ovta_dtype t) { return t == OVTA_DT_F32 || t == OVTA_DT_F16 || t == OVTA_DT_F64; }

/* Only the listed attributes (comma-separated) may appear. */
int ix_allow(ctx *c, const char *names) {
  for (int i = 0; i < c->n->n_attrs; i++) {
    const char *a = c->n->attrs[i].name;
    size_t l = strlen(a);
    const char *p = names;
    bool ok = false;
    while (p && *p) {
      const char *q = strchr(p, ',');
      size_t m = q ? (size_t)(q - p) : strlen(p);
      if (m == l && strncmp(p, a, l) == 0) ok = true;
      p = q ? q + 1 : NULL;
    }
    if (!ok) return ix_bad(c, OVTA_EUNSUPPORTED, "attribute '%s' is not supported", a);
  }
  return OVTA_OK;
}

int ix_attr_type(ctx *c, const char *name, ovta_attr_type ty) {
  const ovta_attr *a = ovta_node_attr(c->n, name);
  if (a && a->type != ty) {
    /* an integral FLOAT attribute written as INT in JSON is fine */
    if (ty == OVTA_ATTR_FLOAT && a->type == OVTA_ATTR_INT) return OVTA_OK;
    return ix_bad(c, OVTA_EINVAL, "attribute '%s' has the wrong type", name);
  }
  return OVTA_OK;
}

/* Does a graph input have an unknown rank or dim? */
static bool symbolic_inputs(const ovta_graph *g) {
  for (int k = 0; k < g->n_inputs; k++) {
    if (g->inputs[k]->rank < 0) return true;
    for (int d = 0; d < g->inputs[k]->rank; d++)
      if (g->inputs[k]->shape[d] < 0) return true;
  }
  return false;
}

/* A constant integer vector input (axes, pads, shape); *cnt = -1 when absent. */
int ix_const_ints(ctx *c, int i, int64_t *v, int max, int *cnt) {
  ovta_tensor *t = ix_in(c, i);
  *cnt = -1;
  if (!t) return OVTA_OK;
  if (!t->data)
    return ix_bad(c, OVTA_EUNSUPPORTED, "input %d '%s' must be a constant%s", i, t->name,
                  symbolic_inputs(c->g) ? " (the graph inputs have symbolic dims: give their shapes, and shape computations on "
                                          "them fold)"
                                        : "");
  if (t->dtype != OVTA_DT_I64 && t->dtype != OVTA_DT_I32)
    return ix_bad(c, OVTA_EINVAL, "input %d '%s' must be int64", i, t->name);
  if (t->rank > 1) return ix_bad(c, OVTA_EINVAL, "input %d '%s' must be 1-D", i, t->name);
  int64_t n = ovta_tensor_numel(t);
  if (n > max) return ix_bad(c, OVTA_EINVAL, "input %d '%s' has too many values (%lld)", i, t->name, (long long)n);
  for (int64_t k = 0; k < n; k++) v[k] = ovta_tensor_get_i(t, k);
  *cnt = (int)n;
  return OVTA_OK;
}

/* Normalize axis into [0, r) (or [0, r] when `inclusive`). */
int ix_norm_axis(ctx *c, int64_t *axis, int r, bool inclusive, const char *what) {
  int64_t hi = inclusive ? r : r - 1;
  if (*axis < -r || *axis > hi)
    return ix_bad(c, OVTA_EINVAL, "%s %lld is out of range for rank %d", what, (long long)*axis, r);
  if (*axis < 0) *axis += r;
  return OVTA_OK;
}

/* ONNX multidirectional broadcasting: align right; dims equal, or one of them is 1. */
int ix_broadcast(ctx *c, const ovta_tensor *a, const ovta_tensor *b, int *rank, int64_t *shape) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - a->rank), ib = i - (r - b->rank);
    int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
    if (da == db || db == 1) shape[i] = da;
    else if (da == 1) shape[i] = db;
    else if (da < 0 || db < 0) shape[i] = da < 0 ? db : da;
    else return ix_bad(c, OVTA_EINVAL, "shapes of '%s' and '%s' do not broadcast (dim %d: %lld vs %lld)", a->name, b->name, i,
                     (long long)da, (long long)db);
  }
  *rank = r;
  return OVTA_OK;
}

int ix_ints_attr(ctx *c, const char *name, int want, int64_t *v, int64_t dflt, int64_t min) {
  const ovta_attr *a = ovta_node_attr(c->n, name);
  if (!a) {
    for (int i = 0; i < want; i++) v[i] = dflt;
    return OVTA_OK;
  }
  if (a->type != OVTA_ATTR_INTS) return ix_bad(c, OVTA_EINVAL, "attribute '%s' must be a list of ints", name);
  if (a->n != want) return ix_bad(c, OVTA_EINVAL, "attribute '%s' needs %d values, has %d", name, want, a->n);
  for (int i = 0; i < want; i++) {
    if (a->ints[i] < min || a->ints[i] > (1 << 20))
      return ix_bad(c, OVTA_EINVAL, "attribute '%s'[%d] = %lld is out of range", name, i, (long long)a->ints[i]);
    v[i] = a->ints[i];
  }
  return OVTA_OK;
}

const char *const ACTS[] = {"none", "relu", "clip", "leakyrelu", "sigmoid", "tanh", "hardsigmoid", "hardswish", NULL};

int ix_check_act(ctx *c) {
  const char *a = ovta_node_attr_s(c->n, "act", "none");
  for (int i = 0; ACTS[i]; i++)
    if (!strcmp(a, ACTS[i])) return OVTA_OK;
  return ix_bad(c, OVTA_EINVAL, "unknown activation '%s'", a);
}

/* ---------------------------------------------------------------- lookup */

static const infer_rule *const FAMILIES[] = {infer_rules_elementwise, infer_rules_conv, infer_rules_matmul,
                                             infer_rules_quant, infer_rules_data, infer_rules_logic,
                                             infer_rules_index, infer_rules_resize, infer_rules_reduce,
                                             infer_rules_norm, infer_rules_rnn, infer_rules_signal,
                                             infer_rules_sample};

/* The rule of op, or NULL. */
static const infer_rule *rule(const char *op) {
  for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
    for (const infer_rule *r = FAMILIES[f]; r->op; r++)
      if (!strcmp(r->op, op)) return r;
  return NULL;
}

bool ovta_op_known(const char *op) { return rule(op) != NULL; }

int ovta_infer_node(ovta_graph *g, ovta_node *n, ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  ctx c = {g, n, err};
  const infer_rule *r = rule(n->op);
  if (!r) return ix_bad(&c, OVTA_EUNSUPPORTED, "operator '%s' is not supported", n->op);
  if (strcmp(n->op, "ovta.Pack") && strcmp(n->op, "ovta.Unpack"))
    for (int i = 0; i < n->n_inputs; i++)
      if (n->inputs[i] && n->inputs[i]->layout != OVTA_LAYOUT_PLAIN) return OVTA_OK;
  if (strcmp(n->op, "Cast") && strcmp(n->op, "CastLike"))
    for (int i = 0; i < n->n_inputs; i++)
      if (n->inputs[i] && n->inputs[i]->dtype == OVTA_DT_BF16)
        return ix_bad(&c, OVTA_EUNSUPPORTED, "bfloat16 input '%s' (only Cast and CastLike take bfloat16)", n->inputs[i]->name);
  ovta_error_clear(err);
  int rc = r->infer(&c);
  if (rc) return rc;
  if (err && err->code) return err->code;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- shape subgraphs */

#define SHAPE_FOLD_MAX 4096 /* elements of one folded value */

static bool is_graph_output(const ovta_graph *g, const ovta_tensor *t) {
  for (int k = 0; k < g->n_outputs; k++)
    if (g->outputs[k] == t) return true;
  return false;
}

static bool static_shape(const ovta_tensor *t) {
  if (!t || t->rank < 0 || t->dtype == OVTA_DT_UNDEF || t->layout != OVTA_LAYOUT_PLAIN) return false;
  for (int d = 0; d < t->rank; d++)
    if (t->shape[d] < 0) return false;
  return true;
}

/* Fold node n (just inferred) into constants when it computes a shape-like value: its outputs
 * are integer or bool and small, or a float scalar, not graph outputs, and its inputs are constants -- or it is
 * Shape/Size of a tensor whose shape is static. Then the node's consumers see constants (a
 * Reshape's shape, an Expand's shape, a Slice's starts...). Returns true when folded (the node
 * is removed); nodes the reference evaluator cannot do stay. */
static bool fold_shape_node(ovta_graph *g, int i) {
  ovta_node *n = g->nodes[i];
  if (n->n_outputs != 1 || !n->outputs[0] || n->n_inputs < 1) return false;
  ovta_tensor *o = n->outputs[0];
  if (is_graph_output(g, o) || o->data || !static_shape(o)) return false;
  int64_t ne = ovta_tensor_numel(o);
  if (ne < 0 || ne > SHAPE_FOLD_MAX) return false;
  /* float scalars too: a size computed in float (the window operators' function bodies: Cast,
   * Sub, Mul, Div of the size before a Range) */
  bool fscalar = (o->dtype == OVTA_DT_F32 || o->dtype == OVTA_DT_F64) && ne == 1;
  if (o->dtype != OVTA_DT_I64 && o->dtype != OVTA_DT_I32 && o->dtype != OVTA_DT_BOOL && !fscalar) return false;
  bool shape_of = !strcmp(n->op, "Shape") || !strcmp(n->op, "Size");
  if (shape_of) {
    if (!static_shape(n->inputs[0])) return false;
  } else {
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && (!n->inputs[k]->data || n->inputs[k]->layout != OVTA_LAYOUT_PLAIN ||
                           ovta_tensor_numel(n->inputs[k]) > SHAPE_FOLD_MAX))
        return false;
  }
  ovta_error e;
  ovta_error_clear(&e);
  ovta_tensor *v = ovta_tensor_new(o->name, o->dtype, o->rank, o->shape);
  if (!v) return false;
  int rc;
  if (shape_of) {
    const ovta_tensor *x = n->inputs[0];
    rc = ovta_tensor_alloc(v, &e);
    if (!rc && !strcmp(n->op, "Size")) ovta_tensor_put_f(v, 0, (double)ovta_tensor_numel(x));
    else if (!rc) {
      int64_t r = x->rank, st = ovta_node_attr_i(n, "start", 0);
      if (st < 0) st += r;
      if (st < 0) st = 0;
      for (int64_t k = 0; k < ne; k++) ovta_tensor_put_f(v, k, (double)x->shape[st + k]);
    }
  } else {
    rc = ovta_eval_node_ref(NULL, g, n, n->inputs, &v, &e);
  }
  if (rc || !v->data) {
    ovta_tensor_free(v);
    return false;
  }
  free(o->data);
  o->data = v->data;
  o->nbytes = v->nbytes;
  o->kind = OVTA_TK_CONST;
  v->data = NULL;
  ovta_tensor_free(v);
  ovta_graph_remove_node(g, i);
  return true;
}

/* Infer every node in order; shape subgraphs (Shape of a static tensor, and integer arithmetic
 * on constants: Gather, Slice, Concat, Unsqueeze, Cast, Add, ...) fold as they are reached, so
 * a Reshape or Expand whose shape they compute sees a constant. */
int ovta_infer_graph(ovta_graph *g, ovta_error *err) {
  bool folded = false;
  for (int i = 0; i < g->n_nodes; i++) {
    int rc = ovta_infer_node(g, g->nodes[i], err);
    if (rc) {
      ovta_error ie;
      if (folded) ovta_graph_index(g, &ie);
      return rc;
    }
    if (fold_shape_node(g, i)) {
      folded = true;
      i--;
    }
  }
  return folded ? ovta_graph_gc(g, err) : OVTA_OK;
}
