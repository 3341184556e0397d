/* graph.c: the graph IR: types, tensors, nodes, attributes, graph building, lookups,
 * topological order, garbage collection, verification, cloning (graph.h sections 1-4, 11). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* ---------------------------------------------------------------- types */

const char *ovta_layout_name(ovta_layout l) {
  switch (l) {
  case OVTA_LAYOUT_PLAIN: return "plain";
  case OVTA_LAYOUT_ACT: return "act";
  case OVTA_LAYOUT_WGT: return "wgt";
  case OVTA_LAYOUT_ACC: return "acc";
  }
  return "?";
}

int64_t ovta_group_padded(int64_t c, int64_t o, int64_t g, int64_t block_in, int64_t block_out) {
  if (g < 1 || c < 1 || o < 1 || block_in < 1 || block_out < 1 || c % g || o % g) return -1;
  if (g == 1) return 1;
  int64_t dc = (c + block_in - 1) / block_in * block_in - c, dout = (o + block_out - 1) / block_out * block_out - o;
  int64_t cg = c / g, og = o / g;
  if (dc % cg || dout % og || dc / cg != dout / og) return -1;
  return g + dc / cg;
}

bool ovta_group_blocks(int64_t c, int64_t o, int64_t g, int64_t block_in, int64_t block_out, int64_t *gk,
                       int64_t *gs) {
  int64_t gp = ovta_group_padded(c, o, g, block_in, block_out);
  if (gp < 0) return false;
  c = (c + block_in - 1) / block_in * block_in, o = (o + block_out - 1) / block_out * block_out, g = gp;
  int64_t cg = c / g, og = o / g;
  *gk = c / block_in, *gs = 0;
  if (g == 1) return true;
  if (og == block_out && cg % block_in == 0) { /* one block per group: its own input blocks */
    *gk = *gs = cg / block_in;
    return true;
  }
  int64_t span = block_out / og * cg; /* input channels of the groups of one output block */
  if (og < block_out && block_out % og == 0 && span % block_in == 0) {
    *gk = *gs = span / block_in;
    return true;
  }
  return true; /* any other grouping: every output block reads all input blocks, other groups' weights zero */
}

const char *ovta_target_name(ovta_target t) {
  switch (t) {
  case OVTA_TARGET_ANY: return "any";
  case OVTA_TARGET_CPU: return "cpu";
  case OVTA_TARGET_ACCEL: return "accel";
  }
  return "?";
}

/* ---------------------------------------------------------------- tensors */


int64_t ovta_tensor_numel(const ovta_tensor *t) { return ovta_shape_numel(t->shape, t->rank); }

static void tensor_init(ovta_tensor *t) {
  t->rank = -1;
  t->producer = -1;
  t->id = -1;
}

ovta_tensor *ovta_tensor_new(const char *name, ovta_dtype dt, int rank, const int64_t *shape) {
  if (rank > OVTA_MAX_RANK) return NULL;
  ovta_tensor *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  tensor_init(t);
  t->name = strdup(name ? name : "");
  if (!t->name) {
    free(t);
    return NULL;
  }
  t->dtype = dt;
  t->rank = rank;
  for (int i = 0; i < rank && shape; i++) t->shape[i] = shape[i];
  return t;
}

int ovta_tensor_alloc(ovta_tensor *t, ovta_error *err) {
  int64_t n = ovta_tensor_numel(t);
  size_t es = ovta_dtype_size(t->dtype);
  if (n < 0 || es == 0)
    return OVTA_FAIL(err, OVTA_EINVAL, "tensor '%s': cannot allocate data: unknown shape or type",
                     t->name);
  if ((uint64_t)n > ((uint64_t)1 << 40) / es)
    return OVTA_FAIL(err, OVTA_ENOMEM, "tensor '%s': %lld elements are too many", t->name,
                     (long long)n);
  void *d = calloc((size_t)n ? (size_t)n : 1, es);
  if (!d) return OVTA_FAIL(err, OVTA_ENOMEM, "tensor '%s': out of memory", t->name);
  free(t->data);
  t->data = d;
  t->nbytes = (size_t)n * es;
  return OVTA_OK;
}

int ovta_tensor_set_data(ovta_tensor *t, const void *data, size_t nbytes, ovta_error *err) {
  int64_t n = ovta_tensor_numel(t);
  if (n < 0 || (uint64_t)n * ovta_dtype_size(t->dtype) != nbytes)
    return OVTA_FAIL(err, OVTA_EINVAL, "tensor '%s': %zu data bytes do not match its shape",
                     t->name, nbytes);
  void *d = malloc(nbytes ? nbytes : 1);
  if (!d) return OVTA_FAIL(err, OVTA_ENOMEM, "tensor '%s': out of memory", t->name);
  if (nbytes) memcpy(d, data, nbytes);
  free(t->data);
  t->data = d;
  t->nbytes = nbytes;
  return OVTA_OK;
}

static void tensor_clear(ovta_tensor *t) {
  free(t->name);
  for (int i = 0; i < OVTA_MAX_RANK; i++) free(t->dim_names[i]);
  free(t->data);
}

void ovta_tensor_free(ovta_tensor *t) {
  if (!t) return;
  tensor_clear(t);
  free(t);
}

static ovta_tensor *tensor_clone(const ovta_tensor *s) {
  ovta_tensor *t = malloc(sizeof *t);
  if (!t) return NULL;
  *t = *s;
  t->name = strdup(s->name);
  for (int i = 0; i < OVTA_MAX_RANK; i++) t->dim_names[i] = s->dim_names[i] ? strdup(s->dim_names[i]) : NULL;
  t->data = NULL;
  if (s->data) {
    t->data = malloc(s->nbytes ? s->nbytes : 1);
    if (t->data && s->nbytes) memcpy(t->data, s->data, s->nbytes);
  }
  if (!t->name || (s->data && !t->data)) {
    ovta_tensor_free(t);
    return NULL;
  }
  return t;
}

/* IEEE half precision (binary16) bits to a double, exactly. */
/* bfloat16: the top 16 bits of a float32. To bf16 as ONNX's reference does: the value rounded to
 * float32, then its bits rounded to nearest even at bit 16; NaN -> 0x7FC0. */
static double bf16_to_double(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static uint16_t double_to_bf16(double v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if (f != f) return 0x7FC0;
  return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return h >> 15 ? -v : v;
}

/* A double to the nearest half (ties to even), overflowing to infinity. */
static uint16_t double_to_half(double v) {
  uint16_t s = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isnan(v)) return 0x7e00;
  if (a < ldexp(1, -14)) return (uint16_t)(s | (uint16_t)nearbyint(ldexp(a, 24))); /* subnormal (may round up to 0x400) */
  int ex;
  double f = frexp(a, &ex); /* a = f * 2^ex, f in [0.5, 1) */
  int e = ex - 1;
  double m = nearbyint((2 * f - 1) * 1024);
  if (m == 1024) m = 0, e++;
  if (e + 15 >= 31) return (uint16_t)(s | 0x7c00);
  return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)m);
}

double ovta_tensor_get_f(const ovta_tensor *t, int64_t i) {
  const void *d = t->data;
  switch (t->dtype) {
  case OVTA_DT_F32: return ((const float *)d)[i];
  case OVTA_DT_F64: return ((const double *)d)[i];
  case OVTA_DT_U8: return ((const uint8_t *)d)[i];
  case OVTA_DT_I8: return ((const int8_t *)d)[i];
  case OVTA_DT_U16: return ((const uint16_t *)d)[i];
  case OVTA_DT_I16: return ((const int16_t *)d)[i];
  case OVTA_DT_I32: return ((const int32_t *)d)[i];
  case OVTA_DT_I64: return (double)((const int64_t *)d)[i];
  case OVTA_DT_U32: return ((const uint32_t *)d)[i];
  case OVTA_DT_U64: return (double)((const uint64_t *)d)[i];
  case OVTA_DT_BOOL: return ((const uint8_t *)d)[i] != 0;
  case OVTA_DT_F16: return half_to_double(((const uint16_t *)d)[i]);
  case OVTA_DT_BF16: return bf16_to_double(((const uint16_t *)d)[i]);
  default: return 0;
  }
}

int64_t ovta_tensor_get_i(const ovta_tensor *t, int64_t i) {
  const void *d = t->data;
  switch (t->dtype) {
  case OVTA_DT_I64: return ((const int64_t *)d)[i];
  case OVTA_DT_U64: return (int64_t)((const uint64_t *)d)[i];
  case OVTA_DT_F32:
  case OVTA_DT_F16:
  case OVTA_DT_BF16:
  case OVTA_DT_F64: {
    double v = ovta_tensor_get_f(t, i);
    if (!(v > -9.2e18 && v < 9.2e18)) return v > 0 ? INT64_MAX : INT64_MIN;
    return (int64_t)v;
  }
  default: return (int64_t)ovta_tensor_get_f(t, i);
  }
}

static double sat(double v, double lo, double hi) {
  if (v != v) return 0;
  return v < lo ? lo : v > hi ? hi : v;
}

void ovta_tensor_put_f(ovta_tensor *t, int64_t i, double v) {
  void *d = t->data;
  double r = nearbyint(v);
  switch (t->dtype) {
  case OVTA_DT_F32: ((float *)d)[i] = (float)v; break;
  case OVTA_DT_F64: ((double *)d)[i] = v; break;
  case OVTA_DT_U8: ((uint8_t *)d)[i] = (uint8_t)sat(r, 0, 255); break;
  case OVTA_DT_I8: ((int8_t *)d)[i] = (int8_t)sat(r, -128, 127); break;
  case OVTA_DT_U16: ((uint16_t *)d)[i] = (uint16_t)sat(r, 0, 65535); break;
  case OVTA_DT_I16: ((int16_t *)d)[i] = (int16_t)sat(r, -32768, 32767); break;
  case OVTA_DT_I32: ((int32_t *)d)[i] = (int32_t)sat(r, -2147483648.0, 2147483647.0); break;
  case OVTA_DT_I64: ((int64_t *)d)[i] = (int64_t)sat(r, -9.2e18, 9.2e18); break;
  case OVTA_DT_U32: ((uint32_t *)d)[i] = (uint32_t)sat(r, 0, 4294967295.0); break;
  case OVTA_DT_U64: ((uint64_t *)d)[i] = (uint64_t)sat(r, 0, 1.8e19); break;
  case OVTA_DT_BOOL: ((uint8_t *)d)[i] = v != 0; break;
  case OVTA_DT_F16: ((uint16_t *)d)[i] = double_to_half(v); break;
  case OVTA_DT_BF16: ((uint16_t *)d)[i] = double_to_bf16(v); break;
  default: break;
  }
}

void ovta_shape_str(const ovta_tensor *t, char *buf, size_t n) {
  if (n == 0) return;
  buf[0] = 0;
  if (t->rank < 0) {
    snprintf(buf, n, "unknown");
    return;
  }
  if (t->rank == 0) {
    snprintf(buf, n, "scalar");
    return;
  }
  size_t k = 0;
  for (int i = 0; i < t->rank && k < n; i++) {
    int w;
    if (t->shape[i] >= 0) w = snprintf(buf + k, n - k, "%s%lld", i ? "x" : "", (long long)t->shape[i]);
    else w = snprintf(buf + k, n - k, "%s?", i ? "x" : "");
    if (w < 0) return;
    k += (size_t)w;
  }
}

/* ---------------------------------------------------------------- attributes */

const ovta_attr *ovta_node_attr(const ovta_node *n, const char *name) {
  for (int i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
  return NULL;
}

int64_t ovta_node_attr_i(const ovta_node *n, const char *name, int64_t dflt) {
  const ovta_attr *a = ovta_node_attr(n, name);
  return a && a->type == OVTA_ATTR_INT ? a->i : dflt;
}

float ovta_node_attr_f(const ovta_node *n, const char *name, float dflt) {
  const ovta_attr *a = ovta_node_attr(n, name);
  if (a && a->type == OVTA_ATTR_FLOAT) return a->f;
  if (a && a->type == OVTA_ATTR_INT) return (float)a->i;
  return dflt;
}

const char *ovta_node_attr_s(const ovta_node *n, const char *name, const char *dflt) {
  const ovta_attr *a = ovta_node_attr(n, name);
  return a && a->type == OVTA_ATTR_STRING ? a->s : dflt;
}

/* Free an array of cnt strings (NULL entries allowed). */
static void strs_free(char **v, int cnt) {
  for (int i = 0; v && i < cnt; i++) free(v[i]);
  free(v);
}

/* A copy of cnt strings, NULL when out of memory. */
static char **strs_dup(const char *const *v, int cnt) {
  char **c = calloc((size_t)(cnt > 0 ? cnt : 1), sizeof *c);
  for (int i = 0; c && i < cnt; i++)
    if (!(c[i] = strdup(v[i] ? v[i] : ""))) {
      strs_free(c, i);
      return NULL;
    }
  return c;
}

static void attr_clear(ovta_attr *a) {
  strs_free(a->strs, a->n);
  free(a->name);
  free(a->s);
  free(a->ints);
  free(a->floats);
  ovta_tensor_free(a->t);
  memset(a, 0, sizeof *a);
}

/* The slot for attribute `name`, cleared (name kept) or appended. */
static ovta_attr *attr_slot(ovta_node *n, const char *name, ovta_error *err) {
  for (int i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) {
      char *keep = n->attrs[i].name;
      n->attrs[i].name = NULL;
      attr_clear(&n->attrs[i]);
      n->attrs[i].name = keep;
      return &n->attrs[i];
    }
  ovta_attr *a = realloc(n->attrs, (size_t)(n->n_attrs + 1) * sizeof *a);
  if (!a) {
    OVTA_FAIL(err, OVTA_ENOMEM, "node '%s': out of memory", n->name);
    return NULL;
  }
  n->attrs = a;
  ovta_attr *s = &a[n->n_attrs];
  memset(s, 0, sizeof *s);
  s->name = strdup(name);
  if (!s->name) {
    OVTA_FAIL(err, OVTA_ENOMEM, "node '%s': out of memory", n->name);
    return NULL;
  }
  n->n_attrs++;
  return s;
}

int ovta_node_set_i(ovta_node *n, const char *name, int64_t v, ovta_error *err) {
  ovta_attr *a = attr_slot(n, name, err);
  if (!a) return err ? err->code : OVTA_ENOMEM;
  a->type = OVTA_ATTR_INT;
  a->i = v;
  return OVTA_OK;
}

int ovta_node_set_f(ovta_node *n, const char *name, float v, ovta_error *err) {
  ovta_attr *a = attr_slot(n, name, err);
  if (!a) return OVTA_ENOMEM;
  a->type = OVTA_ATTR_FLOAT;
  a->f = v;
  return OVTA_OK;
}

int ovta_node_set_s(ovta_node *n, const char *name, const char *v, ovta_error *err) {
  char *c = strdup(v);
  if (!c) return OVTA_FAIL(err, OVTA_ENOMEM, "node '%s': out of memory", n->name);
  ovta_attr *a = attr_slot(n, name, err);
  if (!a) {
    free(c);
    return OVTA_ENOMEM;
  }
  a->type = OVTA_ATTR_STRING;
  a->s = c;
  return OVTA_OK;
}

/* Copy cnt elements of esz bytes into a new attribute array of the given type (ints, floats). */
static int set_array(ovta_node *n, const char *name, const void *v, int cnt, size_t esz, ovta_attr_type type,
                     ovta_error *err) {
  void *c = malloc((size_t)(cnt > 0 ? cnt : 1) * esz);
  if (!c) return OVTA_FAIL(err, OVTA_ENOMEM, "node '%s': out of memory", n->name);
  if (cnt > 0) memcpy(c, v, (size_t)cnt * esz);
  ovta_attr *a = attr_slot(n, name, err);
  if (!a) {
    free(c);
    return OVTA_ENOMEM;
  }
  a->type = type;
  if (type == OVTA_ATTR_INTS) a->ints = c;
  else a->floats = c;
  a->n = cnt;
  return OVTA_OK;
}

int ovta_node_set_ints(ovta_node *n, const char *name, const int64_t *v, int cnt, ovta_error *err) {
  return set_array(n, name, v, cnt, sizeof *v, OVTA_ATTR_INTS, err);
}

int ovta_node_set_floats(ovta_node *n, const char *name, const float *v, int cnt, ovta_error *err) {
  return set_array(n, name, v, cnt, sizeof *v, OVTA_ATTR_FLOATS, err);
}

int ovta_node_set_strs(ovta_node *n, const char *name, const char *const *v, int cnt, ovta_error *err) {
  char **c = strs_dup(v, cnt);
  if (!c) return OVTA_FAIL(err, OVTA_ENOMEM, "node '%s': out of memory", n->name);
  ovta_attr *a = attr_slot(n, name, err);
  if (!a) {
    strs_free(c, cnt);
    return OVTA_ENOMEM;
  }
  a->type = OVTA_ATTR_STRINGS;
  a->strs = c;
  a->n = cnt;
  return OVTA_OK;
}

int ovta_node_set_tensor(ovta_node *n, const char *name, ovta_tensor *t, ovta_error *err) {
  ovta_attr *a = attr_slot(n, name, err);
  if (!a) {
    ovta_tensor_free(t);
    return OVTA_ENOMEM;
  }
  a->type = OVTA_ATTR_TENSOR;
  a->t = t;
  return OVTA_OK;
}

void ovta_node_del_attr(ovta_node *n, const char *name) {
  for (int i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) {
      attr_clear(&n->attrs[i]);
      memmove(&n->attrs[i], &n->attrs[i + 1], (size_t)(n->n_attrs - i - 1) * sizeof n->attrs[0]);
      n->n_attrs--;
      return;
    }
}

ovta_tensor *ovta_node_in(const ovta_node *n, int i) {
  return i >= 0 && i < n->n_inputs ? n->inputs[i] : NULL;
}

static int attr_copy(ovta_attr *d, const ovta_attr *s) {
  *d = *s;
  d->name = strdup(s->name);
  d->s = s->s ? strdup(s->s) : NULL;
  d->ints = NULL;
  d->floats = NULL;
  d->t = NULL;
  d->strs = s->strs ? strs_dup((const char *const *)s->strs, s->n) : NULL;
  if (s->ints) {
    d->ints = malloc((size_t)(s->n ? s->n : 1) * sizeof *d->ints);
    if (d->ints && s->n) memcpy(d->ints, s->ints, (size_t)s->n * sizeof *d->ints);
  }
  if (s->floats) {
    d->floats = malloc((size_t)(s->n ? s->n : 1) * sizeof *d->floats);
    if (d->floats && s->n) memcpy(d->floats, s->floats, (size_t)s->n * sizeof *d->floats);
  }
  if (s->t) d->t = tensor_clone(s->t);
  if (!d->name || (s->s && !d->s) || (s->ints && !d->ints) || (s->floats && !d->floats) ||
      (s->t && !d->t) ||
      (s->strs && !d->strs))
    return OVTA_ENOMEM;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- nodes */

ovta_node *ovta_node_new(const char *op, const char *name, int n_in, int n_out) {
  if (n_in < 0 || n_out < 0) return NULL;
  ovta_node *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->op = strdup(op);
  n->name = strdup(name ? name : "");
  n->inputs = calloc((size_t)(n_in ? n_in : 1), sizeof *n->inputs);
  n->outputs = calloc((size_t)(n_out ? n_out : 1), sizeof *n->outputs);
  n->n_inputs = n_in;
  n->n_outputs = n_out;
  n->region = -1;
  if (!n->op || !n->name || !n->inputs || !n->outputs) {
    ovta_node_free(n);
    return NULL;
  }
  return n;
}

void ovta_node_free(ovta_node *n) {
  if (!n) return;
  free(n->name);
  free(n->op);
  free(n->inputs);
  free(n->outputs);
  for (int i = 0; i < n->n_attrs; i++) attr_clear(&n->attrs[i]);
  free(n->attrs);
  free(n);
}

/* ---------------------------------------------------------------- graph */

ovta_graph *ovta_graph_new(const char *name) {
  ovta_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->name = strdup(name ? name : "graph");
  g->origin = strdup("");
  if (!g->name || !g->origin) {
    ovta_graph_free(g);
    return NULL;
  }
  return g;
}

void ovta_graph_free(ovta_graph *g) {
  if (!g) return;
  for (int i = 0; i < g->n_nodes; i++) ovta_node_free(g->nodes[i]);
  for (int i = 0; i < g->n_tensors; i++) ovta_tensor_free(g->tensors[i]);
  free(g->nodes);
  free(g->tensors);
  free(g->inputs);
  free(g->outputs);
  free(g->name);
  free(g->origin);
  free(g);
}

ovta_tensor *ovta_graph_tensor(const ovta_graph *g, const char *name) {
  for (int i = 0; i < g->n_tensors; i++)
    if (strcmp(g->tensors[i]->name, name) == 0) return g->tensors[i];
  return NULL;
}

ovta_node *ovta_graph_node(const ovta_graph *g, const char *name) {
  for (int i = 0; i < g->n_nodes; i++)
    if (strcmp(g->nodes[i]->name, name) == 0) return g->nodes[i];
  return NULL;
}

static int push_tensor(ovta_graph *g, ovta_tensor *t, ovta_error *err) {
  if (g->n_tensors == g->cap_tensors) {
    int cap = g->cap_tensors ? 2 * g->cap_tensors : 16;
    ovta_tensor **a = realloc(g->tensors, (size_t)cap * sizeof *a);
    if (!a) return OVTA_FAIL(err, OVTA_ENOMEM, "graph '%s': out of memory", g->name);
    g->tensors = a;
    g->cap_tensors = cap;
  }
  t->id = g->n_tensors;
  g->tensors[g->n_tensors++] = t;
  return OVTA_OK;
}

ovta_tensor *ovta_graph_add_tensor(ovta_graph *g, const char *name, ovta_dtype dt, int rank,
                                   const int64_t *shape, ovta_error *err) {
  if (ovta_graph_tensor(g, name)) {
    OVTA_FAIL(err, OVTA_EINVAL, "graph '%s': tensor '%s' is defined twice", g->name, name);
    return NULL;
  }
  if (rank > OVTA_MAX_RANK) {
    OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tensor '%s': rank %d is above the maximum %d", name, rank,
              OVTA_MAX_RANK);
    return NULL;
  }
  ovta_tensor *t = ovta_tensor_new(name, dt, rank, rank > 0 ? shape : NULL);
  if (!t) {
    OVTA_FAIL(err, OVTA_ENOMEM, "tensor '%s': out of memory", name);
    return NULL;
  }
  if (push_tensor(g, t, err)) {
    ovta_tensor_free(t);
    return NULL;
  }
  return t;
}

ovta_tensor *ovta_graph_get_or_add(ovta_graph *g, const char *name, ovta_error *err) {
  ovta_tensor *t = ovta_graph_tensor(g, name);
  return t ? t : ovta_graph_add_tensor(g, name, OVTA_DT_UNDEF, -1, NULL, err);
}

char *ovta_graph_fresh_name(ovta_graph *g, const char *base) {
  size_t n = strlen(base) + 24;
  char *s = malloc(n);
  if (!s) return NULL;
  do snprintf(s, n, "%s_%d", base, g->uniq++);
  while (ovta_graph_tensor(g, s) || ovta_graph_node(g, s));
  return s;
}

ovta_tensor *ovta_graph_adopt_tensor(ovta_graph *g, ovta_tensor *t, ovta_error *err) {
  if (ovta_graph_tensor(g, t->name)) {
    char *nn = ovta_graph_fresh_name(g, t->name);
    if (!nn) {
      OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
      return NULL;
    }
    free(t->name);
    t->name = nn;
  }
  if (push_tensor(g, t, err)) return NULL;
  return t;
}

static int push_node(ovta_graph *g, int pos, ovta_node *n, ovta_error *err) {
  if (g->n_nodes == g->cap_nodes) {
    int cap = g->cap_nodes ? 2 * g->cap_nodes : 16;
    ovta_node **a = realloc(g->nodes, (size_t)cap * sizeof *a);
    if (!a) return OVTA_FAIL(err, OVTA_ENOMEM, "graph '%s': out of memory", g->name);
    g->nodes = a;
    g->cap_nodes = cap;
  }
  if (pos < 0 || pos > g->n_nodes) pos = g->n_nodes;
  memmove(&g->nodes[pos + 1], &g->nodes[pos], (size_t)(g->n_nodes - pos) * sizeof *g->nodes);
  g->nodes[pos] = n;
  g->n_nodes++;
  return OVTA_OK;
}

ovta_node *ovta_graph_add_node(ovta_graph *g, const char *op, const char *name, int n_in,
                               const char *const *inputs, int n_out, const char *const *outputs,
                               ovta_error *err) {
  char *fresh = NULL;
  if (!name || !*name) {
    fresh = ovta_graph_fresh_name(g, op);
    if (!fresh) {
      OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
      return NULL;
    }
    name = fresh;
  }
  ovta_node *n = ovta_node_new(op, name, n_in, n_out);
  free(fresh);
  if (!n) {
    OVTA_FAIL(err, OVTA_ENOMEM, "node '%s': out of memory", name ? name : op);
    return NULL;
  }
  for (int i = 0; i < n_in; i++)
    if (inputs[i] && inputs[i][0] && !(n->inputs[i] = ovta_graph_get_or_add(g, inputs[i], err)))
      goto fail;
  for (int i = 0; i < n_out; i++)
    if (outputs[i] && outputs[i][0] && !(n->outputs[i] = ovta_graph_get_or_add(g, outputs[i], err)))
      goto fail;
  if (push_node(g, -1, n, err)) goto fail;
  return n;
fail:
  ovta_node_free(n);
  return NULL;
}

int ovta_graph_insert_node(ovta_graph *g, int pos, ovta_node *n, ovta_error *err) {
  return push_node(g, pos, n, err);
}

void ovta_graph_remove_node(ovta_graph *g, int i) {
  if (i < 0 || i >= g->n_nodes) unreachable();
  ovta_node_free(g->nodes[i]);
  memmove(&g->nodes[i], &g->nodes[i + 1], (size_t)(g->n_nodes - i - 1) * sizeof *g->nodes);
  g->n_nodes--;
}

void ovta_graph_replace_uses(ovta_graph *g, ovta_tensor *from, ovta_tensor *to) {
  for (int i = 0; i < g->n_nodes; i++)
    for (int k = 0; k < g->nodes[i]->n_inputs; k++)
      if (g->nodes[i]->inputs[k] == from) g->nodes[i]->inputs[k] = to;
  for (int k = 0; k < g->n_outputs; k++)
    if (g->outputs[k] == from) g->outputs[k] = to;
}

int ovta_graph_index(ovta_graph *g, ovta_error *err) {
  for (int i = 0; i < g->n_tensors; i++) {
    g->tensors[i]->id = i;
    g->tensors[i]->producer = -1;
    g->tensors[i]->uses = 0;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k]) n->inputs[k]->uses++;
    for (int k = 0; k < n->n_outputs; k++) {
      ovta_tensor *t = n->outputs[k];
      if (!t) continue;
      if (t->producer >= 0)
        return OVTA_FAIL(err, OVTA_EINVAL, "%s: tensor '%s' is produced by both node '%s' and node '%s'",
                         g->origin, t->name, g->nodes[t->producer]->name, n->name);
      if (t->kind != OVTA_TK_VALUE)
        return OVTA_FAIL(err, OVTA_EINVAL, "%s: node '%s' (%s) writes tensor '%s', which is a graph %s",
                         g->origin, n->name, n->op, t->name,
                         t->kind == OVTA_TK_INPUT ? "input" : "constant");
      t->producer = i;
    }
  }
  for (int k = 0; k < g->n_outputs; k++) g->outputs[k]->uses++;
  return OVTA_OK;
}

/* Kahn's algorithm, picking the lowest-indexed ready node each time (stable). */
int ovta_graph_toposort(ovta_graph *g, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int nn = g->n_nodes;
  if (nn == 0) return OVTA_OK;
  for (int i = 0; i < nn; i++) {
    ovta_node *n = g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++) {
      ovta_tensor *t = n->inputs[k];
      if (t && t->producer < 0 && t->kind == OVTA_TK_VALUE)
        return OVTA_FAIL(err, OVTA_EINVAL,
                         "%s: node '%s' (%s): input %d '%s' is not produced by any node, nor a graph "
                         "input or initializer",
                         g->origin, n->name, n->op, k, t->name);
    }
  }
  int *pending = calloc((size_t)nn, sizeof *pending);
  char *done = calloc((size_t)nn, 1);
  ovta_node **order = malloc((size_t)nn * sizeof *order);
  if (!pending || !done || !order) {
    free(pending);
    free(done);
    free(order);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  for (int i = 0; i < nn; i++)
    for (int k = 0; k < g->nodes[i]->n_inputs; k++) {
      ovta_tensor *t = g->nodes[i]->inputs[k];
      if (t && t->producer >= 0) pending[i]++;
    }
  int placed = 0;
  /* O(n^2) worst case; graphs here have at most a few thousand nodes */
  while (placed < nn) {
    int pick = -1;
    for (int i = 0; i < nn; i++)
      if (!done[i] && pending[i] == 0) {
        pick = i;
        break;
      }
    if (pick < 0) break;
    done[pick] = 1;
    order[placed++] = g->nodes[pick];
    ovta_node *p = g->nodes[pick];
    for (int i = 0; i < nn; i++) {
      if (done[i]) continue;
      for (int k = 0; k < g->nodes[i]->n_inputs; k++) {
        ovta_tensor *t = g->nodes[i]->inputs[k];
        if (!t) continue;
        for (int o = 0; o < p->n_outputs; o++)
          if (p->outputs[o] == t) pending[i]--;
      }
    }
  }
  if (placed < nn) {
    int bad = 0;
    for (int i = 0; i < nn; i++)
      if (!done[i]) {
        bad = i;
        break;
      }
    rc = OVTA_FAIL(err, OVTA_EINVAL, "%s: node '%s' (%s) is on a cycle", g->origin,
                   g->nodes[bad]->name, g->nodes[bad]->op);
  } else {
    memcpy(g->nodes, order, (size_t)nn * sizeof *order);
    rc = ovta_graph_index(g, err);
  }
  free(pending);
  free(done);
  free(order);
  return rc;
}

int ovta_graph_gc(ovta_graph *g, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  int k = 0;
  for (int i = 0; i < g->n_tensors; i++) {
    ovta_tensor *t = g->tensors[i];
    bool io = t->kind == OVTA_TK_INPUT;
    if (t->uses == 0 && t->producer < 0 && !io) {
      ovta_tensor_free(t);
      continue;
    }
    g->tensors[k++] = t;
  }
  g->n_tensors = k;
  return ovta_graph_index(g, err);
}

int ovta_graph_verify(ovta_graph *g, ovta_error *err) {
  int rc = ovta_graph_index(g, err);
  if (rc) return rc;
  for (int i = 0; i < g->n_tensors; i++)
    for (int j = i + 1; j < g->n_tensors; j++)
      if (strcmp(g->tensors[i]->name, g->tensors[j]->name) == 0)
        return OVTA_FAIL(err, OVTA_EINVAL, "%s: tensor name '%s' is used twice", g->origin,
                         g->tensors[i]->name);
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    for (int j = i + 1; j < g->n_nodes; j++)
      if (strcmp(n->name, g->nodes[j]->name) == 0)
        return OVTA_FAIL(err, OVTA_EINVAL, "%s: node name '%s' is used twice", g->origin, n->name);
    for (int k = 0; k < n->n_inputs; k++) {
      ovta_tensor *t = n->inputs[k];
      if (!t) continue;
      if (t->kind == OVTA_TK_VALUE && (t->producer < 0 || t->producer >= i))
        return OVTA_FAIL(err, OVTA_EINVAL,
                         "%s: node '%s' (%s): input '%s' is not produced by an earlier node",
                         g->origin, n->name, n->op, t->name);
    }
  }
  for (int k = 0; k < g->n_outputs; k++) {
    ovta_tensor *t = g->outputs[k];
    if (t->kind == OVTA_TK_VALUE && t->producer < 0)
      return OVTA_FAIL(err, OVTA_EINVAL, "%s: graph output '%s' is not produced by any node",
                       g->origin, t->name);
  }
  return OVTA_OK;
}

int ovta_graph_bind_input(ovta_graph *g, const char *name, const ovta_tensor *value, ovta_error *err) {
  int k = 0;
  while (k < g->n_inputs && strcmp(g->inputs[k]->name, name)) k++;
  if (k == g->n_inputs) return OVTA_FAIL(err, OVTA_EINVAL, "%s: '%s' is not a graph input", g->origin, name);
  ovta_tensor *t = g->inputs[k];
  if (!value->data || value->dtype != t->dtype || value->rank < 0 || value->rank > OVTA_MAX_RANK ||
      (t->rank >= 0 && ovta_tensor_numel(t) >= 0 && ovta_tensor_numel(t) != ovta_tensor_numel(value)))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: graph input '%s': the value does not match its type %s", g->origin, name,
                     ovta_dtype_name(t->dtype));
  t->rank = value->rank;
  memcpy(t->shape, value->shape, sizeof t->shape);
  int rc = ovta_tensor_set_data(t, value->data, value->nbytes, err);
  if (rc) return rc;
  t->kind = OVTA_TK_CONST;
  memmove(&g->inputs[k], &g->inputs[k + 1], (size_t)(g->n_inputs - k - 1) * sizeof *g->inputs);
  g->n_inputs--;
  return OVTA_OK;
}

ovta_graph *ovta_graph_clone(const ovta_graph *g) {
  ovta_graph *c = ovta_graph_new(g->name);
  if (!c) return NULL;
  free(c->origin);
  c->origin = strdup(g->origin);
  c->opset = g->opset;
  c->uniq = g->uniq;
  c->tensors = calloc((size_t)(g->n_tensors ? g->n_tensors : 1), sizeof *c->tensors);
  c->nodes = calloc((size_t)(g->n_nodes ? g->n_nodes : 1), sizeof *c->nodes);
  c->inputs = calloc((size_t)(g->n_inputs ? g->n_inputs : 1), sizeof *c->inputs);
  c->outputs = calloc((size_t)(g->n_outputs ? g->n_outputs : 1), sizeof *c->outputs);
  if (!c->origin || !c->tensors || !c->nodes || !c->inputs || !c->outputs) goto fail;
  c->cap_tensors = g->n_tensors ? g->n_tensors : 1;
  c->cap_nodes = g->n_nodes ? g->n_nodes : 1;
  /* map by position: ids must be current */
  for (int i = 0; i < g->n_tensors; i++) {
    g->tensors[i]->id = i;
    if (!(c->tensors[i] = tensor_clone(g->tensors[i]))) goto fail;
    c->n_tensors++;
  }
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *s = g->nodes[i];
    ovta_node *n = ovta_node_new(s->op, s->name, s->n_inputs, s->n_outputs);
    if (!n) goto fail;
    c->nodes[c->n_nodes++] = n;
    n->target = s->target;
    n->region = s->region;
    for (int k = 0; k < s->n_inputs; k++) n->inputs[k] = s->inputs[k] ? c->tensors[s->inputs[k]->id] : NULL;
    for (int k = 0; k < s->n_outputs; k++)
      n->outputs[k] = s->outputs[k] ? c->tensors[s->outputs[k]->id] : NULL;
    if (s->n_attrs) {
      n->attrs = calloc((size_t)s->n_attrs, sizeof *n->attrs);
      if (!n->attrs) goto fail;
      for (int a = 0; a < s->n_attrs; a++) {
        n->n_attrs++;
        if (attr_copy(&n->attrs[a], &s->attrs[a])) goto fail;
      }
    }
  }
  for (int k = 0; k < g->n_inputs; k++) c->inputs[k] = c->tensors[g->inputs[k]->id];
  c->n_inputs = g->n_inputs;
  for (int k = 0; k < g->n_outputs; k++) c->outputs[k] = c->tensors[g->outputs[k]->id];
  c->n_outputs = g->n_outputs;
  return c;
fail:
  ovta_graph_free(c);
  return NULL;
}

/* ---------------------------------------------------------------- quant math */

int8_t ovta_quant_i8(float x, int exp) {
  double v = round(ldexp((double)x, -exp)); /* round half away from zero */
  if (v != v) return 0;
  return (int8_t)(v < -127 ? -127 : v > 127 ? 127 : v);
}

int32_t ovta_quant_i32(float x, int exp) {
  double v = round(ldexp((double)x, -exp));
  if (v != v) return 0;
  return (int32_t)(v < -2147483647.0 ? -2147483647.0 : v > 2147483647.0 ? 2147483647.0 : v);
}

int ovta_quant_exp_for(float absmax) {
  if (!(absmax > 0) || isinf(absmax)) return 0;
  int e = (int)ceil(log2((double)absmax / 127.0));
  while (ldexp(127.0, e) < absmax) e++;
  while (ldexp(127.0, e - 1) >= absmax) e--;
  return e;
}

int32_t ovta_requant(int32_t acc, int shift, int32_t lo, int32_t hi) {
  /* exactly the ALU sequence: ADD (wrapping) of the rounding term, SHR (isa/ISA.md), MIN, MAX */
  int32_t v = acc;
  if (shift > 0) {
    if (shift <= 31) v = (int32_t)((uint32_t)v + ((uint32_t)1 << (shift - 1)));
    v = shift >= 32 ? (v < 0 ? -1 : 0) : (v >> shift);
  } else if (shift < 0) {
    v = shift <= -32 ? 0 : (int32_t)((uint32_t)v << -shift);
  }
  v = v > hi ? hi : v;
  return v < lo ? lo : v;
}
