/* util.c: graph-building helpers shared by the passes (passes_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

/* A new constant tensor with zeroed data. */
ovta_tensor *px_new_const(ovta_graph *g, const char *base, ovta_dtype dt, int rank, const int64_t *shape,
                              ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  if (!nm) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  ovta_tensor *t = ovta_graph_add_tensor(g, nm, dt, rank, shape, err);
  free(nm);
  if (!t) return NULL;
  t->kind = OVTA_TK_CONST;
  if (ovta_tensor_alloc(t, err)) return NULL;
  return t;
}

ovta_tensor *px_new_scalar(ovta_graph *g, const char *base, ovta_dtype dt, double v, ovta_error *err) {
  ovta_tensor *t = px_new_const(g, base, dt, 0, NULL, err);
  if (t) ovta_tensor_put_f(t, 0, v);
  return t;
}

/* A new value tensor shaped like `like` (NULL: unknown). */
ovta_tensor *px_new_value(ovta_graph *g, const char *base, ovta_dtype dt, const ovta_tensor *like, ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  if (!nm) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  ovta_tensor *t = ovta_graph_add_tensor(g, nm, dt, like ? like->rank : -1, like ? like->shape : NULL, err);
  free(nm);
  return t;
}

/* A new node at position pos with the given tensors. */
ovta_node *px_new_node(ovta_graph *g, int pos, const char *op, const char *base, int ni, ovta_tensor *const *in,
                           ovta_tensor *out, ovta_error *err) {
  char *nm = ovta_graph_fresh_name(g, base);
  ovta_node *n = nm ? ovta_node_new(op, nm, ni, 1) : NULL;
  free(nm);
  if (!n) {
    OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  for (int i = 0; i < ni; i++) n->inputs[i] = in[i];
  n->outputs[0] = out;
  if (ovta_graph_insert_node(g, pos, n, err)) {
    ovta_node_free(n);
    return NULL;
  }
  return n;
}

int px_set_op(ovta_node *n, const char *op, ovta_error *err) {
  char *s = strdup(op);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  free(n->op);
  n->op = s;
  return OVTA_OK;
}

int px_set_inputs(ovta_node *n, int cnt, ovta_error *err) {
  if (cnt <= n->n_inputs) {
    n->n_inputs = cnt;
    return OVTA_OK;
  }
  ovta_tensor **a = realloc(n->inputs, (size_t)cnt * sizeof *a);
  if (!a) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = n->n_inputs; i < cnt; i++) a[i] = NULL;
  n->inputs = a;
  n->n_inputs = cnt;
  return OVTA_OK;
}

bool px_is_graph_output(const ovta_graph *g, const ovta_tensor *t) {
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t) return true;
  return false;
}

/* The only node reading t (index), or -1 when t has another use or is a graph output. */
int px_single_user(const ovta_graph *g, const ovta_tensor *t) {
  if (px_is_graph_output(g, t)) return -1;
  int who = -1, cnt = 0;
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; k < g->nodes[i]->n_inputs; k++)
      if (g->nodes[i]->inputs[k] == t) who = i, cnt++;
  return cnt == 1 ? who : -1;
}

int px_node_index(const ovta_graph *g, const ovta_node *n) {
  for (int i = 0; i < g->n_nodes; i++)
    if (g->nodes[i] == n) return i;
  unreachable();
}

bool px_is_const(const ovta_tensor *t) { return t && t->data != NULL; }

/* The INTS attribute `name` of n into v when it has exactly cnt values. */
bool px_attr_ints(const ovta_node *n, const char *name, int cnt, int64_t *v) {
  const ovta_attr *a = ovta_node_attr(n, name);
  if (!a || a->type != OVTA_ATTR_INTS || a->n != cnt) return false;
  for (int i = 0; i < cnt; i++) v[i] = a->ints[i];
  return true;
}

/* A new int64 vector constant of n values. */
ovta_tensor *px_new_ints(ovta_graph *g, const char *base, int n, const int64_t *v, ovta_error *err) {
  int64_t s[1] = {n};
  ovta_tensor *t = px_new_const(g, base, OVTA_DT_I64, 1, s, err);
  for (int i = 0; t && i < n; i++) ((int64_t *)t->data)[i] = v[i];
  return t;
}

/* Node `op`(in, c) named after base -> a new float value, inserted at *pos (which moves past it)
 * and inferred; NULL (err set) when c is NULL or on failure. */
ovta_tensor *px_add_node(ovta_graph *g, int *pos, const char *op, const char *base, ovta_tensor *in, ovta_tensor *c,
                         ovta_error *err) {
  ovta_tensor *y = c ? px_new_value(g, in->name, OVTA_DT_F32, NULL, err) : NULL;
  ovta_tensor *ins[2] = {in, c};
  ovta_node *n = y ? px_new_node(g, *pos, op, base, 2, ins, y, err) : NULL;
  if (!n || ovta_infer_node(g, n, err)) return NULL;
  (*pos)++;
  return y;
}

/* n inferred again after a rewrite that must keep its output's shape (rank 4); what names the
 * rewrite in the error when the shape changed. */
int px_reinfer_same_shape(ovta_graph *g, ovta_node *n, const char *what, ovta_error *err) {
  ovta_tensor *y = n->outputs[0];
  int64_t want[4] = {y->shape[0], y->shape[1], y->shape[2], y->shape[3]};
  int rc = ovta_infer_node(g, n, err);
  if (!rc && memcmp(want, y->shape, sizeof want))
    rc = OVTA_FAIL(err, OVTA_EINTERNAL, "node %s (%s): the rewritten conv's output shape differs", n->name, what);
  return rc;
}
