/* json.c: the graph's JSON text form (read and write, cJSON) and the human-readable dump
 * (graph.h section 5). The JSON form is documented in compiler/README.md. */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* ---------------------------------------------------------------- write */

static const char *kind_name(ovta_tensor_kind k) {
  return k == OVTA_TK_INPUT ? "input" : k == OVTA_TK_CONST ? "const" : "value";
}

static cJSON *shape_json(const int64_t *shape, int rank) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < rank; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)shape[i]));
  return a;
}

static cJSON *tensor_json(const ovta_tensor *t, bool with_kind) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  cJSON_AddStringToObject(o, "name", t->name);
  if (with_kind) cJSON_AddStringToObject(o, "kind", kind_name(t->kind));
  cJSON_AddStringToObject(o, "dtype", ovta_dtype_name(t->dtype));
  if (t->rank >= 0) {
    cJSON_AddItemToObject(o, "shape", shape_json(t->shape, t->rank));
    bool any = false;
    for (int i = 0; i < t->rank; i++) any |= t->dim_names[i] != NULL;
    if (any) {
      cJSON *dn = cJSON_AddArrayToObject(o, "dim_names");
      for (int i = 0; i < t->rank; i++)
        cJSON_AddItemToArray(dn, t->dim_names[i] ? cJSON_CreateString(t->dim_names[i]) : cJSON_CreateNull());
    }
  }
  if (t->quant.valid) {
    cJSON *q = cJSON_AddObjectToObject(o, "quant");
    cJSON_AddNumberToObject(q, "exp", t->quant.exp);
    cJSON_AddNumberToObject(q, "zero_point", t->quant.zero_point);
  }
  if (t->layout != OVTA_LAYOUT_PLAIN) {
    cJSON_AddStringToObject(o, "layout", ovta_layout_name(t->layout));
    cJSON_AddItemToObject(o, "logical", shape_json(t->logical, t->logical_rank));
  }
  if (t->data) {
    int64_t n = ovta_tensor_numel(t);
    cJSON *d = cJSON_AddArrayToObject(o, "data");
    for (int64_t i = 0; i < n && d; i++)
      cJSON_AddItemToArray(d, cJSON_CreateNumber(ovta_tensor_get_f(t, i)));
  }
  return o;
}

static cJSON *attr_json(const ovta_attr *a) {
  cJSON *v = NULL, *w;
  switch (a->type) {
  case OVTA_ATTR_INT: return cJSON_CreateNumber((double)a->i);
  case OVTA_ATTR_STRING: return cJSON_CreateString(a->s);
  case OVTA_ATTR_INTS:
    v = cJSON_CreateArray();
    for (int i = 0; v && i < a->n; i++) cJSON_AddItemToArray(v, cJSON_CreateNumber((double)a->ints[i]));
    return v;
  case OVTA_ATTR_FLOAT:
    v = cJSON_CreateObject();
    if (v) cJSON_AddNumberToObject(v, "f", a->f);
    return v;
  case OVTA_ATTR_FLOATS:
    v = cJSON_CreateObject();
    w = cJSON_AddArrayToObject(v, "floats");
    for (int i = 0; w && i < a->n; i++) cJSON_AddItemToArray(w, cJSON_CreateNumber(a->floats[i]));
    return v;
  case OVTA_ATTR_TENSOR:
    v = cJSON_CreateObject();
    if (v) cJSON_AddItemToObject(v, "t", tensor_json(a->t, false));
    return v;
  case OVTA_ATTR_STRINGS:
    v = cJSON_CreateObject();
    w = cJSON_AddArrayToObject(v, "strings");
    for (int i = 0; w && i < a->n; i++) cJSON_AddItemToArray(w, cJSON_CreateString(a->strs[i]));
    return v;
  }
  return NULL;
}

char *ovta_graph_to_json(const ovta_graph *g, ovta_error *err) {
  cJSON *r = cJSON_CreateObject();
  if (!r) goto oom;
  cJSON_AddStringToObject(r, "name", g->name);
  cJSON_AddNumberToObject(r, "opset", g->opset);
  cJSON *ins = cJSON_AddArrayToObject(r, "inputs");
  for (int i = 0; i < g->n_inputs; i++) cJSON_AddItemToArray(ins, cJSON_CreateString(g->inputs[i]->name));
  cJSON *outs = cJSON_AddArrayToObject(r, "outputs");
  for (int i = 0; i < g->n_outputs; i++) cJSON_AddItemToArray(outs, cJSON_CreateString(g->outputs[i]->name));
  cJSON *ts = cJSON_AddArrayToObject(r, "tensors");
  for (int i = 0; i < g->n_tensors; i++) cJSON_AddItemToArray(ts, tensor_json(g->tensors[i], true));
  cJSON *ns = cJSON_AddArrayToObject(r, "nodes");
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(ns, o);
    cJSON_AddStringToObject(o, "name", n->name);
    cJSON_AddStringToObject(o, "op", n->op);
    cJSON *a = cJSON_AddArrayToObject(o, "inputs");
    for (int k = 0; k < n->n_inputs; k++) cJSON_AddItemToArray(a, cJSON_CreateString(n->inputs[k] ? n->inputs[k]->name : ""));
    a = cJSON_AddArrayToObject(o, "outputs");
    for (int k = 0; k < n->n_outputs; k++) cJSON_AddItemToArray(a, cJSON_CreateString(n->outputs[k] ? n->outputs[k]->name : ""));
    if (n->n_attrs) {
      cJSON *at = cJSON_AddObjectToObject(o, "attrs");
      for (int k = 0; k < n->n_attrs; k++) cJSON_AddItemToObject(at, n->attrs[k].name, attr_json(&n->attrs[k]));
    }
    if (n->target != OVTA_TARGET_ANY) cJSON_AddStringToObject(o, "target", ovta_target_name(n->target));
    if (n->region >= 0) cJSON_AddNumberToObject(o, "region", n->region);
  }
  char *s = cJSON_Print(r);
  cJSON_Delete(r);
  if (!s) goto oom;
  return s;
oom:
  OVTA_FAIL(err, OVTA_ENOMEM, "graph '%s': out of memory writing JSON", g->name);
  return NULL;
}

/* ---------------------------------------------------------------- read */

typedef struct rd {
  const char *origin;  /* file name for messages */
  ovta_error *err;     /* where errors go */
} rd;

static bool is_int(const cJSON *v) {
  return cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9.2e18;
}

static int read_shape(rd *r, const cJSON *a, const char *what, const char *tname, int64_t *shape, int *rank) {
  if (!cJSON_IsArray(a))
    return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': \"%s\" must be an array", r->origin, tname, what);
  int n = cJSON_GetArraySize(a);
  if (n > OVTA_MAX_RANK)
    return OVTA_FAIL(r->err, OVTA_EUNSUPPORTED, "%s: tensor '%s': rank %d is above %d", r->origin, tname, n, OVTA_MAX_RANK);
  int i = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, a) {
    if (!is_int(d) || d->valuedouble < -1)
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': %s[%d] must be an integer >= -1", r->origin, tname, what, i);
    shape[i++] = (int64_t)d->valuedouble;
  }
  *rank = n;
  return OVTA_OK;
}

static int read_tensor_body(rd *r, const cJSON *o, ovta_tensor *t) {
  const char *nm = t->name;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "dtype");
  if (v) {
    if (!cJSON_IsString(v))
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': \"dtype\" must be a string", r->origin, nm);
    t->dtype = ovta_dtype_parse(v->valuestring);
    if (t->dtype == OVTA_DT_UNDEF && strcmp(v->valuestring, "?") != 0)
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': unknown dtype \"%s\"", r->origin, nm, v->valuestring);
  }
  v = cJSON_GetObjectItemCaseSensitive(o, "shape");
  if (v && read_shape(r, v, "shape", nm, t->shape, &t->rank)) return r->err->code;
  v = cJSON_GetObjectItemCaseSensitive(o, "dim_names");
  if (cJSON_IsArray(v)) {
    int i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, v) {
      if (i >= t->rank) break;
      if (cJSON_IsString(d) && !(t->dim_names[i] = strdup(d->valuestring)))
        return OVTA_FAIL(r->err, OVTA_ENOMEM, "out of memory");
      i++;
    }
  }
  v = cJSON_GetObjectItemCaseSensitive(o, "quant");
  if (v) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(v, "exp"), *z = cJSON_GetObjectItemCaseSensitive(v, "zero_point");
    if (!is_int(e) || (z && !is_int(z)) || fabs(e->valuedouble) > 64 || (z && fabs(z->valuedouble) > 1e9))
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': \"quant\" needs integer \"exp\" (and \"zero_point\")", r->origin, nm);
    t->quant.valid = true;
    t->quant.exp = (int)e->valuedouble;
    t->quant.zero_point = z ? (int)z->valuedouble : 0;
  }
  v = cJSON_GetObjectItemCaseSensitive(o, "layout");
  if (v) {
    const char *l = cJSON_IsString(v) ? v->valuestring : "";
    if (!strcmp(l, "act")) t->layout = OVTA_LAYOUT_ACT;
    else if (!strcmp(l, "wgt")) t->layout = OVTA_LAYOUT_WGT;
    else if (!strcmp(l, "acc")) t->layout = OVTA_LAYOUT_ACC;
    else if (!strcmp(l, "plain")) t->layout = OVTA_LAYOUT_PLAIN;
    else return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': unknown layout", r->origin, nm);
    v = cJSON_GetObjectItemCaseSensitive(o, "logical");
    if (v && read_shape(r, v, "logical", nm, t->logical, &t->logical_rank)) return r->err->code;
  }
  v = cJSON_GetObjectItemCaseSensitive(o, "data");
  if (v) {
    if (!cJSON_IsArray(v))
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': \"data\" must be an array", r->origin, nm);
    int64_t n = ovta_tensor_numel(t);
    if (n < 0 || ovta_dtype_size(t->dtype) == 0)
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': data needs a known dtype and shape", r->origin, nm);
    if (n != cJSON_GetArraySize(v))
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': %d data values for %lld elements", r->origin, nm,
                       cJSON_GetArraySize(v), (long long)n);
    if (ovta_tensor_alloc(t, r->err)) return r->err->code;
    int64_t i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, v) {
      if (!cJSON_IsNumber(d) && !cJSON_IsNull(d))
        return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: tensor '%s': data[%lld] is not a number", r->origin, nm, (long long)i);
      ovta_tensor_put_f(t, i++, cJSON_IsNull(d) ? NAN : d->valuedouble);
    }
  }
  return OVTA_OK;
}

/* A FLOAT attribute value: a number in float range, or null (NaN or infinite: the writer's form for
 * non-finite values, as in tensor data). */
static bool float_ok(const cJSON *d) {
  return cJSON_IsNull(d) || (cJSON_IsNumber(d) && fabs(d->valuedouble) <= FLT_MAX);
}
static float float_of(const cJSON *d) { return cJSON_IsNull(d) ? NAN : (float)d->valuedouble; }

/* A STRINGS attribute {"strings": ["a", "b"]}. */
static int read_strings(rd *r, ovta_node *n, const char *an, const cJSON *arr) {
  int cnt = cJSON_GetArraySize(arr), i = 0;
  const char **sv = calloc((size_t)(cnt ? cnt : 1), sizeof *sv);
  if (!sv) return OVTA_FAIL(r->err, OVTA_ENOMEM, "out of memory");
  const cJSON *d;
  cJSON_ArrayForEach(d, arr) {
    if (!cJSON_IsString(d)) {
      free(sv);
      return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: node '%s': attribute '%s': a list of strings expected", r->origin,
                       n->name, an);
    }
    sv[i++] = d->valuestring;
  }
  int rc = ovta_node_set_strs(n, an, sv, cnt, r->err);
  free(sv);
  return rc;
}

static int read_attr(rd *r, ovta_node *n, const cJSON *v) {
  const char *an = v->string;
  ovta_error *e = r->err;
  if (is_int(v)) return ovta_node_set_i(n, an, (int64_t)v->valuedouble, e);
  if (cJSON_IsNumber(v) && !float_ok(v))
    return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': attribute '%s': %g is outside the float range", r->origin, n->name,
                     an, v->valuedouble);
  if (cJSON_IsNumber(v)) return ovta_node_set_f(n, an, (float)v->valuedouble, e);
  if (cJSON_IsString(v)) return ovta_node_set_s(n, an, v->valuestring, e);
  const cJSON *ss = cJSON_GetObjectItemCaseSensitive(v, "strings");
  if (cJSON_IsArray(ss)) return read_strings(r, n, an, ss);
  const cJSON *arr = cJSON_IsArray(v) ? v : cJSON_GetObjectItemCaseSensitive(v, "floats");
  if (cJSON_IsArray(arr)) {
    int cnt = cJSON_GetArraySize(arr);
    bool ints = arr == v;
    const cJSON *d;
    cJSON_ArrayForEach(d, arr) {
      if (!(arr == v ? cJSON_IsNumber(d) : float_ok(d)) || (!is_int(d) && !float_ok(d)))
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': attribute '%s': a list of numbers (in float range) expected",
                         r->origin, n->name, an);
      if (!is_int(d)) ints = false;
    }
    int64_t *iv = calloc((size_t)(cnt ? cnt : 1), sizeof *iv);
    float *fv = calloc((size_t)(cnt ? cnt : 1), sizeof *fv);
    if (!iv || !fv) {
      free(iv);
      free(fv);
      return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
    }
    int i = 0;
    cJSON_ArrayForEach(d, arr) {
      iv[i] = ints ? (int64_t)d->valuedouble : 0;
      fv[i++] = float_of(d);
    }
    int rc = ints ? ovta_node_set_ints(n, an, iv, cnt, e) : ovta_node_set_floats(n, an, fv, cnt, e);
    free(iv);
    free(fv);
    return rc;
  }
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(v, "f");
  if (f && float_ok(f)) return ovta_node_set_f(n, an, float_of(f), e);
  const cJSON *i = cJSON_GetObjectItemCaseSensitive(v, "i");
  if (is_int(i)) return ovta_node_set_i(n, an, (int64_t)i->valuedouble, e);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(v, "t");
  if (cJSON_IsObject(t)) {
    const cJSON *tn = cJSON_GetObjectItemCaseSensitive(t, "name");
    ovta_tensor *x = ovta_tensor_new(cJSON_IsString(tn) ? tn->valuestring : an, OVTA_DT_UNDEF, -1, NULL);
    if (!x) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
    x->kind = OVTA_TK_CONST;
    if (read_tensor_body(r, t, x)) {
      ovta_tensor_free(x);
      return e->code;
    }
    return ovta_node_set_tensor(n, an, x, e);
  }
  return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': attribute '%s' has an unknown form", r->origin, n->name, an);
}

static int name_list(rd *r, const cJSON *a, const char *what, const char *where, int *cnt) {
  if (!a) {
    *cnt = 0;
    return OVTA_OK;
  }
  if (!cJSON_IsArray(a))
    return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: %s: \"%s\" must be an array of names", r->origin, where, what);
  const cJSON *d;
  cJSON_ArrayForEach(d, a) if (!cJSON_IsString(d))
    return OVTA_FAIL(r->err, OVTA_EPARSE, "%s: %s: \"%s\" must be an array of names", r->origin, where, what);
  *cnt = cJSON_GetArraySize(a);
  return OVTA_OK;
}

/* The graph's "name" and "opset". */
static int read_header(rd *r, const cJSON *root, ovta_graph *g) {
  ovta_error *e = r->err;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "name");
  if (cJSON_IsString(v)) {
    free(g->name);
    if (!(g->name = strdup(v->valuestring))) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
  }
  v = cJSON_GetObjectItemCaseSensitive(root, "opset");
  if (v) {
    if (!is_int(v) || v->valuedouble < 0 || v->valuedouble > 1000)
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: \"opset\" must be a small integer", r->origin);
    g->opset = (int)v->valuedouble;
  }
  return OVTA_OK;
}

/* Every entry of "tensors": a named tensor of the graph with its kind (input, const, value; one
 * with data is a constant, a constant needs data) and body (read_tensor_body). */
static int read_tensors(rd *r, const cJSON *root, ovta_graph *g) {
  ovta_error *e = r->err;
  const cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, "tensors");
  if (ts && !cJSON_IsArray(ts)) return OVTA_FAIL(e, OVTA_EPARSE, "%s: \"tensors\" must be an array", r->origin);
  const cJSON *t;
  int idx = 0;
  cJSON_ArrayForEach(t, ts) {
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(t, "name");
    if (!cJSON_IsString(nm) || !nm->valuestring[0])
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: tensors[%d] needs a non-empty \"name\"", r->origin, idx);
    ovta_tensor *x = ovta_graph_add_tensor(g, nm->valuestring, OVTA_DT_UNDEF, -1, NULL, e);
    if (!x) return ovta_error_wrap(e, "%s", r->origin);
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(t, "kind");
    if (k) {
      const char *ks = cJSON_IsString(k) ? k->valuestring : "";
      if (!strcmp(ks, "input")) x->kind = OVTA_TK_INPUT;
      else if (!strcmp(ks, "const")) x->kind = OVTA_TK_CONST;
      else if (!strcmp(ks, "value")) x->kind = OVTA_TK_VALUE;
      else return OVTA_FAIL(e, OVTA_EPARSE, "%s: tensor '%s': unknown kind", r->origin, x->name);
    }
    if (read_tensor_body(r, t, x)) return e->code;
    if (x->data) x->kind = OVTA_TK_CONST;
    if (x->kind == OVTA_TK_CONST && !x->data)
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: constant tensor '%s' has no \"data\"", r->origin, x->name);
    idx++;
  }
  return OVTA_OK;
}

/* A node's "attrs" (read_attr each), "target" (cpu, accel, any) and "region". */
static int read_node_extras(rd *r, const cJSON *t, ovta_node *n, const char *where) {
  ovta_error *e = r->err;
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(t, "attrs"), *d;
  if (at && !cJSON_IsObject(at)) return OVTA_FAIL(e, OVTA_EPARSE, "%s: %s: \"attrs\" must be an object", r->origin, where);
  cJSON_ArrayForEach(d, at) if (read_attr(r, n, d)) return e->code;
  const cJSON *tg = cJSON_GetObjectItemCaseSensitive(t, "target");
  if (tg) {
    const char *s = cJSON_IsString(tg) ? tg->valuestring : "";
    if (!strcmp(s, "cpu")) n->target = OVTA_TARGET_CPU;
    else if (!strcmp(s, "accel")) n->target = OVTA_TARGET_ACCEL;
    else if (!strcmp(s, "any")) n->target = OVTA_TARGET_ANY;
    else return OVTA_FAIL(e, OVTA_EPARSE, "%s: %s: unknown target", r->origin, where);
  }
  const cJSON *rg = cJSON_GetObjectItemCaseSensitive(t, "region");
  if (rg) {
    if (!is_int(rg) || rg->valuedouble < -1 || rg->valuedouble > 1e9)
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: %s: \"region\" must be an integer", r->origin, where);
    n->region = (int)rg->valuedouble;
  }
  return OVTA_OK;
}

/* Entry idx of "nodes": a node with an "op", a name used once, its inputs and outputs by tensor
 * name, and its extras (read_node_extras). */
static int read_node(rd *r, const cJSON *t, int idx, ovta_graph *g) {
  ovta_error *e = r->err;
  char where[96];
  const cJSON *nm = cJSON_GetObjectItemCaseSensitive(t, "name");
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(t, "op");
  snprintf(where, sizeof where, "nodes[%d]", idx);
  if (!cJSON_IsString(op) || !op->valuestring[0]) return OVTA_FAIL(e, OVTA_EPARSE, "%s: %s needs an \"op\"", r->origin, where);
  if (cJSON_IsString(nm)) snprintf(where, sizeof where, "node '%s'", nm->valuestring);
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(t, "inputs"), *out = cJSON_GetObjectItemCaseSensitive(t, "outputs");
  int ni, no;
  if (name_list(r, in, "inputs", where, &ni) || name_list(r, out, "outputs", where, &no)) return e->code;
  const char **iv = calloc((size_t)ni + 1, sizeof *iv), **ov = calloc((size_t)no + 1, sizeof *ov);
  if (!iv || !ov) {
    free(iv);
    free(ov);
    return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
  }
  int k = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, in) iv[k++] = d->valuestring;
  k = 0;
  cJSON_ArrayForEach(d, out) ov[k++] = d->valuestring;
  if (cJSON_IsString(nm) && ovta_graph_node(g, nm->valuestring)) {
    free(iv);
    free(ov);
    return OVTA_FAIL(e, OVTA_EPARSE, "%s: node name '%s' is used twice", r->origin, nm->valuestring);
  }
  ovta_node *n = ovta_graph_add_node(g, op->valuestring, cJSON_IsString(nm) ? nm->valuestring : NULL, ni, iv, no, ov, e);
  free(iv);
  free(ov);
  if (!n) return ovta_error_wrap(e, "%s", r->origin);
  return read_node_extras(r, t, n, where);
}

/* The graph's "inputs" (a name not yet a tensor becomes one; each of kind input) and "outputs"
 * (tensors of the graph); every tensor of kind input is listed. */
static int read_io(rd *r, const cJSON *root, ovta_graph *g) {
  ovta_error *e = r->err;
  for (int pass = 0; pass < 2; pass++) {
    const char *key = pass ? "outputs" : "inputs";
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    int cnt;
    if (name_list(r, a, key, "graph", &cnt)) return e->code;
    ovta_tensor **arr = calloc((size_t)cnt + 1, sizeof *arr);
    if (!arr) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
    if (pass) g->outputs = arr, g->n_outputs = cnt;
    else g->inputs = arr, g->n_inputs = cnt;
    int k = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, a) {
      if (!d->valuestring[0]) /* "" is an omitted optional node input; a graph's inputs all have names */
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: graph %s %d has an empty name", r->origin, pass ? "output" : "input", k);
      ovta_tensor *x = ovta_graph_tensor(g, d->valuestring);
      if (!x && pass == 0) x = ovta_graph_add_tensor(g, d->valuestring, OVTA_DT_UNDEF, -1, NULL, e);
      if (!x)
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: graph %s '%s' is not a tensor of the graph", r->origin,
                         pass ? "output" : "input", d->valuestring);
      if (pass == 0) x->kind = OVTA_TK_INPUT;
      arr[k++] = x;
    }
  }
  for (int i = 0; i < g->n_tensors; i++)
    if (g->tensors[i]->kind == OVTA_TK_INPUT) {
      bool listed = false;
      for (int k = 0; k < g->n_inputs; k++) listed |= g->inputs[k] == g->tensors[i];
      if (!listed)
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: tensor '%s' has kind input but is not in \"inputs\"", r->origin,
                         g->tensors[i]->name);
    }
  return OVTA_OK;
}

/* A JSON graph: header, tensors, nodes in order, inputs and outputs, then topologically sorted. */
static int read_graph(rd *r, const cJSON *root, ovta_graph *g) {
  ovta_error *e = r->err;
  int rc;
  if (!cJSON_IsObject(root)) return OVTA_FAIL(e, OVTA_EPARSE, "%s: the graph must be a JSON object", r->origin);
  if ((rc = read_header(r, root, g)) || (rc = read_tensors(r, root, g))) return rc;
  const cJSON *ns = cJSON_GetObjectItemCaseSensitive(root, "nodes"), *t;
  if (ns && !cJSON_IsArray(ns)) return OVTA_FAIL(e, OVTA_EPARSE, "%s: \"nodes\" must be an array", r->origin);
  int idx = 0;
  cJSON_ArrayForEach(t, ns) if ((rc = read_node(r, t, idx++, g))) return rc;
  if ((rc = read_io(r, root, g))) return rc;
  return ovta_graph_toposort(g, e);
}

int ovta_graph_from_json(const char *text, const char *origin, ovta_graph **out, ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  *out = NULL;
  rd r = {origin ? origin : "<json>", err};
  /* lines whose first non-blank characters are "//" are comments (FileCheck tests put their
   * RUN and CHECK lines there); blank them, keeping the newlines for line numbers */
  size_t len = strlen(text);
  char *copy = malloc(len + 1);
  if (!copy) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  memcpy(copy, text, len + 1);
  for (char *p = copy; *p;) {
    char *q = p;
    while (*q == ' ' || *q == '\t') q++;
    char *eol = strchr(q, '\n');
    if (q[0] == '/' && q[1] == '/')
      for (char *c = q; *c && c != eol; c++) *c = ' ';
    if (!eol) break;
    p = eol + 1;
  }
  cJSON *root = cJSON_Parse(copy);
  const char *errat = root ? NULL : cJSON_GetErrorPtr();
  if (!root) {
    int line = 1;
    for (const char *p = copy; errat && p < errat && *p; p++) line += *p == '\n';
    free(copy);
    return OVTA_FAIL(err, OVTA_EPARSE, "%s:%d: malformed JSON", r.origin, line);
  }
  free(copy);
  ovta_graph *g = ovta_graph_new("graph");
  if (!g) {
    cJSON_Delete(root);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  free(g->origin);
  g->origin = strdup(r.origin);
  int rc = g->origin ? read_graph(&r, root, g) : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  cJSON_Delete(root);
  if (rc) {
    ovta_graph_free(g);
    return rc;
  }
  *out = g;
  return OVTA_OK;
}

int ovta_graph_load(const char *path, ovta_graph **out, ovta_error *err) {
  size_t n = strlen(path);
  if (n > 5 && strcmp(path + n - 5, ".onnx") == 0) return ovta_onnx_load(path, out, err);
  char *text;
  size_t len;
  int rc = ovta_read_file(path, (size_t)1 << 30, &text, &len, err);
  if (rc) return rc;
  rc = ovta_graph_from_json(text, path, out, err);
  free(text);
  return rc;
}

/* ---------------------------------------------------------------- dump */

static void dump_tensor_type(FILE *f, const ovta_tensor *t) {
  char sh[160];
  ovta_shape_str(t, sh, sizeof sh);
  fprintf(f, "%s[%s]", ovta_dtype_name(t->dtype), sh);
  if (t->quant.valid) fprintf(f, " q(2^%d,zp=%d)", t->quant.exp, t->quant.zero_point);
  if (t->layout != OVTA_LAYOUT_PLAIN) {
    ovta_tensor l = {0};
    l.rank = t->logical_rank;
    memcpy(l.shape, t->logical, sizeof l.shape);
    ovta_shape_str(&l, sh, sizeof sh);
    fprintf(f, " layout=%s(%s)", ovta_layout_name(t->layout), sh);
  }
}

static void dump_num(FILE *f, double v) {
  if (v == floor(v) && fabs(v) < 1e15) fprintf(f, "%lld", (long long)v);
  else fprintf(f, "%.6g", v);
}

static void dump_data(FILE *f, const ovta_tensor *t) {
  int64_t n = ovta_tensor_numel(t);
  fprintf(f, " = [");
  for (int64_t i = 0; i < n && i < 8; i++) {
    if (i) fprintf(f, ", ");
    dump_num(f, ovta_tensor_get_f(t, i));
  }
  if (n > 8) fprintf(f, ", ... (%lld)", (long long)n);
  fprintf(f, "]");
}

static void dump_attr(FILE *f, const ovta_attr *a) {
  fprintf(f, "%s=", a->name);
  switch (a->type) {
  case OVTA_ATTR_INT: fprintf(f, "%lld", (long long)a->i); break;
  case OVTA_ATTR_FLOAT: fprintf(f, "%.6gf", a->f); break;
  case OVTA_ATTR_STRING: fprintf(f, "\"%s\"", a->s); break;
  case OVTA_ATTR_INTS:
  case OVTA_ATTR_FLOATS:
    fprintf(f, "[");
    for (int i = 0; i < a->n; i++) {
      if (a->type == OVTA_ATTR_INTS) fprintf(f, "%s%lld", i ? "," : "", (long long)a->ints[i]);
      else fprintf(f, "%s%.6g", i ? "," : "", a->floats[i]);
    }
    fprintf(f, "]");
    break;
  case OVTA_ATTR_STRINGS:
    fprintf(f, "[");
    for (int i = 0; i < a->n; i++) fprintf(f, "%s\"%s\"", i ? "," : "", a->strs[i]);
    fprintf(f, "]");
    break;
  case OVTA_ATTR_TENSOR:
    dump_tensor_type(f, a->t);
    if (a->t->data) dump_data(f, a->t);
    break;
  }
}

void ovta_graph_dump(FILE *f, const ovta_graph *g) {
  fprintf(f, "graph %s opset %d\n", g->name, g->opset);
  for (int i = 0; i < g->n_inputs; i++) {
    fprintf(f, "  input %s: ", g->inputs[i]->name);
    dump_tensor_type(f, g->inputs[i]);
    fprintf(f, "\n");
  }
  for (int i = 0; i < g->n_tensors; i++) {
    const ovta_tensor *t = g->tensors[i];
    if (t->kind != OVTA_TK_CONST) continue;
    fprintf(f, "  const %s: ", t->name);
    dump_tensor_type(f, t);
    if (t->data) dump_data(f, t);
    fprintf(f, "\n");
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    fprintf(f, "  node %s = %s(", n->name, n->op);
    for (int k = 0; k < n->n_inputs; k++) fprintf(f, "%s%s", k ? ", " : "", n->inputs[k] ? n->inputs[k]->name : "-");
    fprintf(f, ")");
    if (n->n_attrs) {
      fprintf(f, " {");
      for (int k = 0; k < n->n_attrs; k++) {
        if (k) fprintf(f, ", ");
        dump_attr(f, &n->attrs[k]);
      }
      fprintf(f, "}");
    }
    fprintf(f, " ->");
    for (int k = 0; k < n->n_outputs; k++) {
      const ovta_tensor *t = n->outputs[k];
      if (!t) {
        fprintf(f, "%s -", k ? "," : "");
        continue;
      }
      fprintf(f, "%s %s: ", k ? "," : "", t->name);
      dump_tensor_type(f, t);
    }
    if (n->target != OVTA_TARGET_ANY || n->region >= 0)
      fprintf(f, " @%s#%d", ovta_target_name(n->target), n->region);
    fprintf(f, "\n");
  }
  for (int i = 0; i < g->n_outputs; i++) {
    fprintf(f, "  output %s: ", g->outputs[i]->name);
    dump_tensor_type(f, g->outputs[i]);
    fprintf(f, "\n");
  }
}

char *ovta_graph_dump_str(const ovta_graph *g) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  ovta_graph_dump(f, g);
  fclose(f);
  return buf;
}
