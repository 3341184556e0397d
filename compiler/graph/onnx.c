/* onnx.c: the ONNX importer (ModelProto -> ovta_graph) and the TensorProto reader
 * (graph.h section 6). The protobuf-c code is generated at build time from Debian's onnx.proto
 * (compiler/compiler.mk).
 *
 * The importer upgrades operators whose form changed between opsets 7 and 17 to the opset-13+
 * form, so later layers only see one form:
 *   Clip < 11:            min/max attributes         -> constant inputs 1 and 2
 *   Squeeze/Unsqueeze <13: axes attribute             -> constant input 1 (int64)
 *   Pad < 11:             pads/value attributes       -> constant inputs 1 and 2 (mode kept)
 *   Slice < 10:           starts/ends/axes attributes -> constant inputs 1, 2 (and 3)
 *   Split < 13:           split attribute             -> constant input 1
 *   TopK < 10:            k attribute                 -> constant input 1 (int64 [1])
 *   Upsample (7/9), Resize 10: -> Resize(X, "", scales) with coordinate_transformation_mode
 *                         asymmetric, nearest_mode floor (mode bilinear -> linear); the scales
 *                         attribute of Upsample 7 -> a constant
 *   Softmax < 13:         coerce to 2-D at axis (default 1) and normalize each row
 *                         -> the same axis when it is the last one, else
 *                            Reshape(to [d0*..*d(axis-1), rest]) -> Softmax(axis=-1) -> Reshape back
 *                            (input shape unknown at import: Flatten(x, axis) -> Softmax(axis=-1)
 *                            -> Reshape(Shape(x)), the Shape folding during inference)
 *   Constant nodes:       -> constant tensors (value, value_float(s), value_int(s))
 * Checks sizes before allocating: dims, element counts and data lengths are validated against
 * each other and against the bytes actually present in the file. External data (initializers and
 * tensor attributes whose bytes sit in a file beside the model): onnx_extdata.c.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "onnx.pb-c.h"
#include "onnx_extdata.h"

#define MAX_FILE_BYTES ((size_t)1 << 31) /* 2 GiB: protobuf's own limit */
#define OPSET_MIN 1 /* older forms that differ (e.g. Add broadcast attr) fail in inference */
#define OPSET_MAX 18

/* ---------------------------------------------------------------- tensors */

static bool dtype_ok(int dt) {
  return (dt >= 1 && dt <= 13 && dt != OVTA_DT_STRING) || dt == OVTA_DT_BF16;
}

/* A tensor of nbytes whose bytes are external data: checked, then read straight into it. */
static int tensor_external(const Onnx__TensorProto *tp, const char *dir, const char *where, const char *name,
                           uint64_t nbytes, ovta_tensor **out, ovta_error *err) {
  if (tp->has_raw_data || tp->n_float_data || tp->n_int32_data || tp->n_int64_data || tp->n_double_data ||
      tp->n_uint64_data)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: external data and data inside the model at once", where);
  onnx_ext x;
  int rc = onnx_ext_open(tp, dir, where, nbytes, &x, err);
  if (rc) return rc;
  ovta_tensor *t = ovta_tensor_new(name, (ovta_dtype)tp->data_type, (int)tp->n_dims, tp->dims);
  if (!t) rc = OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", where);
  else t->kind = OVTA_TK_CONST;
  if (!rc && ovta_tensor_alloc(t, err)) rc = ovta_error_wrap(err, "%s", where);
  if (!rc && nbytes) rc = onnx_ext_read(&x, t->data, nbytes, where, err); /* little-endian host */
  onnx_ext_close(&x);
  if (rc) {
    ovta_tensor_free(t);
    return rc;
  }
  *out = t;
  return OVTA_OK;
}

/* Convert a TensorProto; `where` names it in messages ("file: initializer 'w'"); dir: the real
 * path of the model's directory for external data (NULL: the model has none). */
static int tensor_from_proto(const Onnx__TensorProto *tp, const char *dir, const char *where, const char *name,
                             ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  if (tp->n_dims > OVTA_MAX_RANK)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: rank %zu is above the maximum %d", where, tp->n_dims, OVTA_MAX_RANK);
  for (size_t i = 0; i < tp->n_dims; i++)
    if (tp->dims[i] < 0)
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: dim %zu is negative (%lld)", where, i, (long long)tp->dims[i]);
  int64_t numel = ovta_shape_numel(tp->dims, (int)tp->n_dims);
  if (numel < 0 || numel > ((int64_t)1 << 32))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: the element count of its shape overflows", where);
  int dt = tp->has_data_type ? tp->data_type : 0;
  if (!dtype_ok(dt))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: data type %d is not supported", where, dt);
  size_t es = ovta_dtype_size((ovta_dtype)dt);
  uint64_t nbytes = (uint64_t)numel * es;
  if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return tensor_external(tp, dir, where, name, nbytes, out, err);
  /* how many values the typed field holds, and which */
  size_t have = 0;
  const char *field = NULL;
  if (tp->has_raw_data) have = tp->raw_data.len, field = "raw_data";
  else if (tp->n_float_data) have = tp->n_float_data, field = "float_data";
  else if (tp->n_int32_data) have = tp->n_int32_data, field = "int32_data";
  else if (tp->n_int64_data) have = tp->n_int64_data, field = "int64_data";
  else if (tp->n_double_data) have = tp->n_double_data, field = "double_data";
  else if (tp->n_uint64_data) have = tp->n_uint64_data, field = "uint64_data";
  if (!field && numel != 0) return OVTA_FAIL(err, OVTA_EPARSE, "%s: no data for %lld elements", where, (long long)numel);
  if (field && tp->has_raw_data ? have != nbytes : (field && have != (uint64_t)numel))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: %s holds %zu %s, the shape needs %llu", where, field, have,
                     tp->has_raw_data ? "bytes" : "values",
                     (unsigned long long)(tp->has_raw_data ? nbytes : (uint64_t)numel));
  bool type_ok = true;
  if (field && !tp->has_raw_data) {
    if (tp->n_float_data) type_ok = dt == OVTA_DT_F32;
    else if (tp->n_int32_data)
      type_ok = dt == OVTA_DT_I32 || dt == OVTA_DT_I16 || dt == OVTA_DT_I8 || dt == OVTA_DT_U16 ||
                dt == OVTA_DT_U8 || dt == OVTA_DT_BOOL || dt == OVTA_DT_F16 || dt == OVTA_DT_BF16;
    else if (tp->n_int64_data) type_ok = dt == OVTA_DT_I64;
    else if (tp->n_double_data) type_ok = dt == OVTA_DT_F64;
    else if (tp->n_uint64_data) type_ok = dt == OVTA_DT_U32 || dt == OVTA_DT_U64;
  }
  if (!type_ok)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: %s does not fit data type %s", where, field, ovta_dtype_name((ovta_dtype)dt));
  ovta_tensor *t = ovta_tensor_new(name, (ovta_dtype)dt, (int)tp->n_dims, tp->dims);
  if (!t) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", where);
  t->kind = OVTA_TK_CONST;
  int rc = ovta_tensor_alloc(t, err);
  if (rc) {
    ovta_tensor_free(t);
    return ovta_error_wrap(err, "%s", where);
  }
  if (tp->has_raw_data) {
    if (nbytes) memcpy(t->data, tp->raw_data.data, nbytes); /* little-endian host */
  } else {
    /* the field chosen above, in the same order (a proto may hold several typed fields) */
    for (int64_t i = 0; i < numel; i++) {
      if (tp->n_float_data) ((float *)t->data)[i] = tp->float_data[i];
      else if (!tp->n_int32_data && tp->n_int64_data) ((int64_t *)t->data)[i] = tp->int64_data[i];
      else if (!tp->n_int32_data && tp->n_double_data) ((double *)t->data)[i] = tp->double_data[i];
      else if (!tp->n_int32_data && tp->n_uint64_data) {
        if (dt == OVTA_DT_U64) ((uint64_t *)t->data)[i] = tp->uint64_data[i];
        else ((uint32_t *)t->data)[i] = (uint32_t)tp->uint64_data[i];
      } else {
        int32_t v = tp->int32_data[i];
        switch (dt) {
        case OVTA_DT_I32: ((int32_t *)t->data)[i] = v; break;
        case OVTA_DT_I16: ((int16_t *)t->data)[i] = (int16_t)v; break;
        case OVTA_DT_U16:
        case OVTA_DT_BF16:
        case OVTA_DT_F16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
        case OVTA_DT_I8: ((int8_t *)t->data)[i] = (int8_t)v; break;
        default: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
        }
      }
    }
  }
  *out = t;
  return OVTA_OK;
}

/* A TensorProto from memory; dir: the directory of the file it came from, for external data. */
static int read_tensor_mem(const void *data, size_t len, const char *origin, const char *dir, ovta_tensor **out,
                           ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  *out = NULL;
  Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, data);
  if (!tp) return OVTA_FAIL(err, OVTA_EPARSE, "%s: not a valid TensorProto (truncated or malformed protobuf)", origin);
  char where[600];
  snprintf(where, sizeof where, "%s: tensor '%s'", origin, tp->name ? tp->name : "");
  int rc = tensor_from_proto(tp, dir, where, tp->name ? tp->name : "", out, err);
  onnx__tensor_proto__free_unpacked(tp, NULL);
  return rc;
}

int ovta_onnx_read_tensor_mem(const void *data, size_t len, const char *origin, ovta_tensor **out,
                              ovta_error *err) {
  return read_tensor_mem(data, len, origin, NULL, out, err);
}

int ovta_onnx_read_tensor(const char *path, ovta_tensor **out, ovta_error *err) {
  char *buf, *dir;
  size_t len;
  *out = NULL;
  int rc = ovta_read_file(path, MAX_FILE_BYTES, &buf, &len, err);
  if (rc) return rc;
  if (!(rc = onnx_model_dir(path, &dir, err))) rc = read_tensor_mem(buf, len, path, dir, out, err);
  free(dir);
  free(buf);
  return rc;
}

/* ---------------------------------------------------------------- model */

typedef struct imp {
  const char *origin;  /* file name */
  const char *dir;     /* real path of the model's directory (external data), NULL: none */
  ovta_graph *g;       /* graph being built */
  ovta_error *err;     /* where errors go */
  int opset;           /* default-domain opset */
} imp;

/* Set a tensor's type from a ValueInfoProto (inputs/outputs). */
static int value_info(imp *m, const Onnx__ValueInfoProto *vi, ovta_tensor *t) {
  if (!vi->type) return OVTA_OK;
  if (vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !vi->type->tensor_type)
    return OVTA_FAIL(m->err, OVTA_EUNSUPPORTED, "%s: graph value '%s' is not a tensor", m->origin, t->name);
  const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
  if (tt->has_elem_type) {
    if (!dtype_ok(tt->elem_type)) {
      static const char *const NAMES[] = {[8] = "string", [14] = "complex64", [15] = "complex128", [16] = "bfloat16"};
      int et = tt->elem_type;
      const char *nm = et >= 0 && et < (int)(sizeof NAMES / sizeof NAMES[0]) && NAMES[et] ? NAMES[et] : "unknown";
      return OVTA_FAIL(m->err, OVTA_EUNSUPPORTED, "%s: graph value '%s': element type %d (%s) is not supported", m->origin,
                       t->name, et, nm);
    }
    t->dtype = (ovta_dtype)tt->elem_type;
  }
  if (tt->shape) {
    if (tt->shape->n_dim > OVTA_MAX_RANK)
      return OVTA_FAIL(m->err, OVTA_EUNSUPPORTED, "%s: graph value '%s': rank %zu is above %d", m->origin, t->name,
                       tt->shape->n_dim, OVTA_MAX_RANK);
    t->rank = (int)tt->shape->n_dim;
    for (int i = 0; i < t->rank; i++) {
      const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
      t->shape[i] = -1;
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
        if (d->dim_value < 0)
          return OVTA_FAIL(m->err, OVTA_EPARSE, "%s: graph value '%s': dim %d is negative", m->origin, t->name, i);
        t->shape[i] = d->dim_value;
      } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param) {
        free(t->dim_names[i]);
        t->dim_names[i] = strdup(d->dim_param);
      }
    }
    if (t->kind == OVTA_TK_INPUT && ovta_tensor_numel(t) < 0) {
      bool known = true;
      for (int i = 0; i < t->rank; i++) known &= t->shape[i] >= 0;
      if (known)
        return OVTA_FAIL(m->err, OVTA_EPARSE, "%s: graph input '%s': the element count of its shape overflows",
                         m->origin, t->name);
    }
  }
  return OVTA_OK;
}

/* A STRINGS attribute (RNN activations): each string without NUL bytes. */
static int add_strings(imp *m, ovta_node *n, const char *an, const Onnx__AttributeProto *a) {
  ovta_error *e = m->err;
  if (a->n_strings > 1 << 16) return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': attribute '%s' is too long", m->origin, n->name, an);
  char **sv = calloc(a->n_strings ? a->n_strings : 1, sizeof *sv);
  int rc = sv ? OVTA_OK : OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < a->n_strings; i++) {
    const ProtobufCBinaryData *b = &a->strings[i];
    if (b->len && memchr(b->data, 0, b->len))
      rc = OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s): attribute '%s' holds a NUL byte", m->origin, n->name, n->op, an);
    else if (!(sv[i] = strndup(b->data ? (const char *)b->data : "", b->len)))
      rc = OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
  }
  if (!rc) rc = ovta_node_set_strs(n, an, (const char *const *)sv, (int)a->n_strings, e);
  for (size_t i = 0; sv && i < a->n_strings; i++) free(sv[i]);
  free(sv);
  return rc;
}

static int add_attr(imp *m, ovta_node *n, const Onnx__AttributeProto *a) {
  ovta_error *e = m->err;
  const char *an = a->name ? a->name : "";
  int ty = a->has_type ? (int)a->type : 0;
  if (a->ref_attr_name && a->ref_attr_name[0])
    return OVTA_FAIL(e, OVTA_EUNSUPPORTED, "%s: node '%s' (%s): attribute '%s' refers to a function attribute", m->origin,
                     n->name, n->op, an);
  switch (ty) {
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return ovta_node_set_f(n, an, a->f, e);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return ovta_node_set_i(n, an, a->i, e);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: {
    if (a->s.len && memchr(a->s.data, 0, a->s.len)) /* an empty string has no data pointer */
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s): attribute '%s' holds a NUL byte", m->origin, n->name, n->op, an);
    char *s = strndup((const char *)a->s.data ? (const char *)a->s.data : "", a->s.len);
    if (!s) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
    int rc = ovta_node_set_s(n, an, s, e);
    free(s);
    return rc;
  }
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
    if (a->n_ints > 1 << 20) return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': attribute '%s' is too long", m->origin, n->name, an);
    return ovta_node_set_ints(n, an, a->ints, (int)a->n_ints, e);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
    if (a->n_floats > 1 << 20) return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': attribute '%s' is too long", m->origin, n->name, an);
    return ovta_node_set_floats(n, an, a->floats, (int)a->n_floats, e);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS: return add_strings(m, n, an, a);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
    if (!a->t) return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s': tensor attribute '%s' is empty", m->origin, n->name, an);
    char where[700];
    snprintf(where, sizeof where, "%s: node '%s' (%s): attribute '%s'", m->origin, n->name, n->op, an);
    ovta_tensor *t;
    int rc = tensor_from_proto(a->t, m->dir, where, an, &t, e);
    if (rc) return rc;
    return ovta_node_set_tensor(n, an, t, e);
  }
  default:
    return OVTA_FAIL(e, OVTA_EUNSUPPORTED, "%s: node '%s' (%s): attribute '%s' has an unsupported type %d", m->origin,
                     n->name, n->op, an, ty);
  }
}

/* Add a constant tensor with a fresh name built from base; returns its name through the tensor. */
static ovta_tensor *add_const_i64(imp *m, const char *base, const int64_t *v, int cnt) {
  char *nm = ovta_graph_fresh_name(m->g, base);
  if (!nm) {
    OVTA_FAIL(m->err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  int64_t shape[1] = {cnt};
  ovta_tensor *t = ovta_graph_add_tensor(m->g, nm, OVTA_DT_I64, 1, shape, m->err);
  free(nm);
  if (!t) return NULL;
  t->kind = OVTA_TK_CONST;
  if (ovta_tensor_set_data(t, v, (size_t)cnt * sizeof *v, m->err)) return NULL;
  return t;
}

static ovta_tensor *add_const_scalar(imp *m, const char *base, ovta_dtype dt, double v) {
  char *nm = ovta_graph_fresh_name(m->g, base);
  if (!nm) {
    OVTA_FAIL(m->err, OVTA_ENOMEM, "out of memory");
    return NULL;
  }
  ovta_tensor *t = ovta_graph_add_tensor(m->g, nm, dt, 0, NULL, m->err);
  free(nm);
  if (!t) return NULL;
  t->kind = OVTA_TK_CONST;
  if (ovta_tensor_alloc(t, m->err)) return NULL;
  ovta_tensor_put_f(t, 0, v);
  return t;
}

/* Give node n `want` input slots (new ones omitted). */
static int grow_inputs(imp *m, ovta_node *n, int want) {
  if (n->n_inputs >= want) return OVTA_OK;
  ovta_tensor **in = realloc(n->inputs, (size_t)want * sizeof *in);
  if (!in) return OVTA_FAIL(m->err, OVTA_ENOMEM, "out of memory");
  for (int i = n->n_inputs; i < want; i++) in[i] = NULL;
  n->inputs = in;
  n->n_inputs = want;
  return OVTA_OK;
}

/* Constant -> a constant tensor (ONNX Constant: exactly one of value, value_float, value_floats,
 * value_int, value_ints; sparse_value and value_string(s) are not supported). */
static int constant_node(imp *m, ovta_node *n) {
  if (n->n_outputs != 1 || !n->outputs[0])
    return OVTA_FAIL(m->err, OVTA_EPARSE, "%s: node '%s' (Constant) needs one output", m->origin, n->name);
  if (n->n_attrs != 1)
    return OVTA_FAIL(m->err, OVTA_EPARSE, "%s: node '%s' (Constant) needs exactly one value attribute", m->origin, n->name);
  ovta_tensor *o = n->outputs[0];
  ovta_attr *a = &n->attrs[0];
  if (!strcmp(a->name, "value") && a->type == OVTA_ATTR_TENSOR) {
    o->dtype = a->t->dtype;
    o->rank = a->t->rank;
    memcpy(o->shape, a->t->shape, sizeof o->shape);
    o->data = a->t->data;
    o->nbytes = a->t->nbytes;
    a->t->data = NULL;
  } else if (!strcmp(a->name, "value_float") && a->type == OVTA_ATTR_FLOAT) {
    o->dtype = OVTA_DT_F32, o->rank = 0;
    if (ovta_tensor_set_data(o, &a->f, sizeof a->f, m->err)) return m->err->code;
  } else if (!strcmp(a->name, "value_int") && a->type == OVTA_ATTR_INT) {
    o->dtype = OVTA_DT_I64, o->rank = 0;
    if (ovta_tensor_set_data(o, &a->i, sizeof a->i, m->err)) return m->err->code;
  } else if (!strcmp(a->name, "value_floats") && a->type == OVTA_ATTR_FLOATS) {
    o->dtype = OVTA_DT_F32, o->rank = 1, o->shape[0] = a->n;
    if (ovta_tensor_set_data(o, a->floats, (size_t)a->n * sizeof(float), m->err)) return m->err->code;
  } else if (!strcmp(a->name, "value_ints") && a->type == OVTA_ATTR_INTS) {
    o->dtype = OVTA_DT_I64, o->rank = 1, o->shape[0] = a->n;
    if (ovta_tensor_set_data(o, a->ints, (size_t)a->n * sizeof(int64_t), m->err)) return m->err->code;
  } else {
    return OVTA_FAIL(m->err, OVTA_EUNSUPPORTED, "%s: node '%s' (Constant): attribute '%s' is not supported", m->origin,
                     n->name, a->name);
  }
  o->kind = OVTA_TK_CONST;
  return OVTA_OK;
}

/* Upgrade node i to the opset-13+ form (see the file comment). */
static int upgrade(imp *m, int idx) {
  ovta_node *n = m->g->nodes[idx];
  const char *op = n->op;
  ovta_error *e = m->err;
  if (!strcmp(op, "Clip") && m->opset < 11) {
    ovta_tensor *lo = add_const_scalar(m, "clip_min", OVTA_DT_F32, ovta_node_attr_f(n, "min", -3.402823466e+38f));
    ovta_tensor *hi = add_const_scalar(m, "clip_max", OVTA_DT_F32, ovta_node_attr_f(n, "max", 3.402823466e+38f));
    if (!lo || !hi || grow_inputs(m, n, 3)) return e->code;
    n->inputs[1] = lo, n->inputs[2] = hi;
    ovta_node_del_attr(n, "min");
    ovta_node_del_attr(n, "max");
  } else if ((!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze")) && m->opset < 13) {
    const ovta_attr *a = ovta_node_attr(n, "axes");
    if (a) {
      if (a->type != OVTA_ATTR_INTS)
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s): attribute 'axes' must be ints", m->origin, n->name, op);
      ovta_tensor *t = add_const_i64(m, "axes", a->ints, a->n);
      if (!t || grow_inputs(m, n, 2)) return e->code;
      n->inputs[1] = t;
      ovta_node_del_attr(n, "axes");
    }
  } else if (!strcmp(op, "Pad") && m->opset < 11) {
    const ovta_attr *a = ovta_node_attr(n, "pads");
    if (!a || a->type != OVTA_ATTR_INTS)
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (Pad): attribute 'pads' (ints) is required before opset 11",
                       m->origin, n->name);
    ovta_tensor *p = add_const_i64(m, "pads", a->ints, a->n);
    ovta_tensor *v = add_const_scalar(m, "pad_value", OVTA_DT_F32, ovta_node_attr_f(n, "value", 0));
    if (!p || !v || grow_inputs(m, n, 3)) return e->code;
    n->inputs[1] = p, n->inputs[2] = v;
    ovta_node_del_attr(n, "pads");
    ovta_node_del_attr(n, "value");
  } else if (!strcmp(op, "Slice") && m->opset < 10) {
    const ovta_attr *st = ovta_node_attr(n, "starts"), *en = ovta_node_attr(n, "ends"), *ax = ovta_node_attr(n, "axes");
    if (!st || !en || st->type != OVTA_ATTR_INTS || en->type != OVTA_ATTR_INTS || (ax && ax->type != OVTA_ATTR_INTS))
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (Slice): attributes 'starts' and 'ends' (ints) are required before opset 10",
                       m->origin, n->name);
    ovta_tensor *ts = add_const_i64(m, "starts", st->ints, st->n), *te = add_const_i64(m, "ends", en->ints, en->n);
    ovta_tensor *ta = ax ? add_const_i64(m, "axes", ax->ints, ax->n) : NULL;
    if (!ts || !te || (ax && !ta) || grow_inputs(m, n, ax ? 4 : 3)) return e->code;
    n->inputs[1] = ts, n->inputs[2] = te;
    if (ta) n->inputs[3] = ta;
    ovta_node_del_attr(n, "starts");
    ovta_node_del_attr(n, "ends");
    ovta_node_del_attr(n, "axes");
  } else if (!strcmp(op, "TopK") && m->opset < 10) {
    const ovta_attr *a = ovta_node_attr(n, "k");
    if (!a || a->type != OVTA_ATTR_INT)
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (TopK): attribute 'k' (int) is required before opset 10", m->origin,
                       n->name);
    ovta_tensor *t = add_const_i64(m, "k", &a->i, 1);
    if (!t || grow_inputs(m, n, 2)) return e->code;
    n->inputs[1] = t;
    ovta_node_del_attr(n, "k");
  } else if (!strcmp(op, "Split") && m->opset < 13) {
    const ovta_attr *a = ovta_node_attr(n, "split");
    if (a) {
      if (a->type != OVTA_ATTR_INTS)
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (Split): attribute 'split' must be ints", m->origin, n->name);
      ovta_tensor *t = add_const_i64(m, "split", a->ints, a->n);
      if (!t || grow_inputs(m, n, 2)) return e->code;
      n->inputs[1] = t;
      ovta_node_del_attr(n, "split");
    }
  } else if (!strcmp(op, "Upsample") || (!strcmp(op, "Resize") && m->opset < 11)) {
    /* Upsample (7: scales attribute, 9: scales input) and Resize 10 (X, scales): output dim =
     * floor(in * scale), source x / scale (asymmetric), nearest rounds down */
    const ovta_attr *a = ovta_node_attr(n, "scales");
    ovta_tensor *sc = ovta_node_in(n, 1);
    if (a) {
      if (a->type != OVTA_ATTR_FLOATS)
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s): attribute 'scales' must be floats", m->origin, n->name, op);
      char *nm = ovta_graph_fresh_name(m->g, "scales");
      int64_t sh[1] = {a->n};
      sc = nm ? ovta_graph_add_tensor(m->g, nm, OVTA_DT_F32, 1, sh, e) : NULL;
      free(nm);
      if (!sc) return e->code ? e->code : OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
      sc->kind = OVTA_TK_CONST;
      if (ovta_tensor_set_data(sc, a->floats, (size_t)a->n * sizeof(float), e)) return e->code;
      ovta_node_del_attr(n, "scales");
    }
    if (!sc) return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s): scales are required", m->origin, n->name, op);
    const char *mode = ovta_node_attr_s(n, "mode", "nearest");
    if (grow_inputs(m, n, 3)) return e->code;
    n->inputs[1] = NULL, n->inputs[2] = sc;
    char *rop = strdup("Resize");
    if (!rop) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
    free(n->op);
    n->op = rop;
    if (ovta_node_set_s(n, "mode", !strcmp(mode, "bilinear") ? "linear" : mode, e) ||
        ovta_node_set_s(n, "coordinate_transformation_mode", "asymmetric", e) || ovta_node_set_s(n, "nearest_mode", "floor", e))
      return e->code;
  } else if (!strcmp(op, "Softmax") && m->opset < 13) {
    ovta_tensor *x = ovta_node_in(n, 0);
    int64_t axis = ovta_node_attr_i(n, "axis", 1);
    if (!x || n->n_outputs != 1 || !n->outputs[0])
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (Softmax): needs one input and one output", m->origin, n->name);
    if (x->rank < 0 || ovta_tensor_numel(x) < 0) {
      /* shape not known here (symbolic dims, no value_info): Flatten(x, axis) -> Softmax(axis=-1)
       * -> Reshape(Shape(x)); the Shape folds during inference once the shapes are static */
      char *t1 = ovta_graph_fresh_name(m->g, "softmax_in2d"), *t2 = ovta_graph_fresh_name(m->g, "softmax_out2d");
      char *ts = ovta_graph_fresh_name(m->g, "softmax_shape");
      char *n1 = ovta_graph_fresh_name(m->g, n->name), *n2 = ovta_graph_fresh_name(m->g, n->name),
           *n3 = ovta_graph_fresh_name(m->g, n->name);
      int rc = OVTA_OK;
      if (!t1 || !t2 || !ts || !n1 || !n2 || !n3) rc = OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
      ovta_node *f = NULL, *sh = NULL, *r2 = NULL;
      if (!rc) {
        const char *inf[1] = {x->name}, *outf[1] = {t1}, *outs[1] = {ts};
        const char *in2[2] = {t2, ts}, *out2[1] = {n->outputs[0]->name};
        f = ovta_graph_add_node(m->g, "Flatten", n1, 1, inf, 1, outf, e);
        sh = f ? ovta_graph_add_node(m->g, "Shape", n2, 1, inf, 1, outs, e) : NULL;
        r2 = sh ? ovta_graph_add_node(m->g, "Reshape", n3, 2, in2, 1, out2, e) : NULL;
        if (!r2) rc = e->code;
      }
      if (!rc) rc = ovta_node_set_i(f, "axis", axis, e);
      if (!rc) {
        n->inputs[0] = ovta_graph_tensor(m->g, t1);
        n->outputs[0] = ovta_graph_tensor(m->g, t2);
        rc = ovta_node_set_i(n, "axis", -1, e);
      }
      free(t1), free(t2), free(ts), free(n1), free(n2), free(n3);
      return rc;
    }
    int r = x->rank;
    if (axis < -r || axis > r - (r > 0))
      return OVTA_FAIL(e, OVTA_EINVAL, "%s: node '%s' (Softmax): axis %lld is out of range for rank %d", m->origin,
                       n->name, (long long)axis, r);
    if (axis < 0) axis += r;
    if (axis == r - 1) {
      ovta_node_set_i(n, "axis", -1, e);
      return OVTA_OK;
    }
    int64_t rows = ovta_shape_numel(x->shape, (int)axis), cols = ovta_shape_numel(x->shape + axis, r - (int)axis);
    int64_t s2[2] = {rows, cols};
    ovta_tensor *shp2 = add_const_i64(m, "softmax_shape2d", s2, 2);
    ovta_tensor *shpx = add_const_i64(m, "softmax_shape", x->shape, r);
    char *t1 = ovta_graph_fresh_name(m->g, "softmax_in2d"), *t2 = ovta_graph_fresh_name(m->g, "softmax_out2d");
    char *n1 = ovta_graph_fresh_name(m->g, n->name), *n2 = ovta_graph_fresh_name(m->g, n->name);
    int rc = OVTA_OK;
    if (!shp2 || !shpx || !t1 || !t2 || !n1 || !n2) rc = e->code ? e->code : OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
    ovta_node *r1 = NULL, *r2 = NULL;
    if (!rc) {
      const char *in1[2] = {x->name, shp2->name}, *out1[1] = {t1};
      const char *in2[2] = {t2, shpx->name}, *out2[1] = {n->outputs[0]->name};
      r1 = ovta_graph_add_node(m->g, "Reshape", n1, 2, in1, 1, out1, e);
      r2 = r1 ? ovta_graph_add_node(m->g, "Reshape", n2, 2, in2, 1, out2, e) : NULL;
      if (!r2) rc = e->code;
    }
    if (!rc) {
      /* the Softmax now reads t1 and writes t2; the new nodes sit at the end: toposort fixes order */
      n->inputs[0] = ovta_graph_tensor(m->g, t1);
      n->outputs[0] = ovta_graph_tensor(m->g, t2);
      rc = ovta_node_set_i(n, "axis", -1, e);
    }
    free(t1), free(t2), free(n1), free(n2);
    return rc;
  }
  return OVTA_OK;
}

static int import_graph(imp *m, const Onnx__GraphProto *gp) {
  ovta_graph *g = m->g;
  ovta_error *e = m->err;
  if (gp->name && gp->name[0]) {
    free(g->name);
    if (!(g->name = strdup(gp->name))) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
  }
  if (gp->n_sparse_initializer)
    return OVTA_FAIL(e, OVTA_EUNSUPPORTED, "%s: sparse initializers are not supported", m->origin);
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *tp = gp->initializer[i];
    const char *nm = tp->name ? tp->name : "";
    char where[700];
    snprintf(where, sizeof where, "%s: initializer '%s'", m->origin, nm);
    if (!nm[0]) return OVTA_FAIL(e, OVTA_EPARSE, "%s: initializer %zu has no name", m->origin, i);
    if (ovta_graph_tensor(g, nm)) return OVTA_FAIL(e, OVTA_EPARSE, "%s is defined twice", where);
    ovta_tensor *t;
    int rc = tensor_from_proto(tp, m->dir, where, nm, &t, e);
    if (rc) return rc;
    if (!ovta_graph_adopt_tensor(g, t, e)) {
      ovta_tensor_free(t);
      return e->code;
    }
  }
  g->inputs = calloc(gp->n_input + 1, sizeof *g->inputs);
  g->outputs = calloc(gp->n_output + 1, sizeof *g->outputs);
  if (!g->inputs || !g->outputs) return OVTA_FAIL(e, OVTA_ENOMEM, "out of memory");
  for (size_t i = 0; i < gp->n_input; i++) {
    const char *nm = gp->input[i]->name ? gp->input[i]->name : "";
    if (!nm[0]) return OVTA_FAIL(e, OVTA_EPARSE, "%s: graph input %zu has no name", m->origin, i);
    ovta_tensor *t = ovta_graph_tensor(g, nm);
    if (t && t->kind == OVTA_TK_CONST) continue; /* IR < 4: initializers are listed as inputs too */
    if (t) return OVTA_FAIL(e, OVTA_EPARSE, "%s: graph input '%s' is listed twice", m->origin, nm);
    if (!(t = ovta_graph_add_tensor(g, nm, OVTA_DT_UNDEF, -1, NULL, e))) return e->code;
    t->kind = OVTA_TK_INPUT;
    if (value_info(m, gp->input[i], t)) return e->code;
    g->inputs[g->n_inputs++] = t;
  }
  for (size_t i = 0; i < gp->n_node; i++) {
    const Onnx__NodeProto *np = gp->node[i];
    const char *op = np->op_type ? np->op_type : "";
    char fallback[64];
    const char *nm = np->name;
    if (!op[0]) return OVTA_FAIL(e, OVTA_EPARSE, "%s: node %zu has no op_type", m->origin, i);
    if (!nm || !nm[0] || ovta_graph_node(g, nm)) {
      snprintf(fallback, sizeof fallback, "%.40s_%zu", op, i);
      nm = fallback;
    }
    if (np->domain && np->domain[0] && strcmp(np->domain, "ai.onnx") != 0)
      return OVTA_FAIL(e, OVTA_EUNSUPPORTED, "%s: node '%s' (%s): operator domain '%s' is not supported", m->origin, nm,
                       op, np->domain);
    if (np->n_input > 4096 || np->n_output > 4096)
      return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s): too many inputs/outputs", m->origin, nm, op);
    for (size_t k = 0; k < np->n_output; k++) {
      ovta_tensor *t = np->output[k][0] ? ovta_graph_tensor(g, np->output[k]) : NULL;
      if (t && (t->kind != OVTA_TK_VALUE))
        return OVTA_FAIL(e, OVTA_EPARSE, "%s: node '%s' (%s) writes '%s', which is a graph input or initializer",
                         m->origin, nm, op, t->name);
    }
    ovta_node *n = ovta_graph_add_node(g, op, nm, (int)np->n_input, (const char *const *)np->input, (int)np->n_output,
                                       (const char *const *)np->output, e);
    if (!n) return ovta_error_wrap(e, "%s: node '%s' (%s)", m->origin, nm, op);
    for (size_t k = 0; k < np->n_attribute; k++)
      if (add_attr(m, n, np->attribute[k])) return e->code;
  }
  for (size_t i = 0; i < gp->n_output; i++) {
    const char *nm = gp->output[i]->name ? gp->output[i]->name : "";
    ovta_tensor *t = ovta_graph_tensor(g, nm);
    if (!t) return OVTA_FAIL(e, OVTA_EPARSE, "%s: graph output '%s' is not produced by any node", m->origin, nm);
    if (t->kind == OVTA_TK_VALUE && t->dtype == OVTA_DT_UNDEF && value_info(m, gp->output[i], t)) return e->code;
    g->outputs[g->n_outputs++] = t;
  }
  /* Constant nodes -> constants; producers must be indexed first (a Constant writing twice) */
  int rc = ovta_graph_index(g, e);
  if (rc) return rc;
  for (int i = 0; i < g->n_nodes;) {
    if (strcmp(g->nodes[i]->op, "Constant") == 0) {
      if ((rc = constant_node(m, g->nodes[i]))) return rc;
      ovta_graph_remove_node(g, i);
      continue;
    }
    i++;
  }
  /* types of the graph inputs are known now; the Softmax upgrade needs them */
  int n0 = g->n_nodes;
  for (int i = 0; i < n0; i++)
    if ((rc = upgrade(m, i))) return rc;
  if ((rc = ovta_graph_toposort(g, e))) return rc;
  return OVTA_OK;
}

/* A ModelProto from memory; dir: the real path of the directory of its file (external data), or NULL. */
static int load_mem(const void *data, size_t len, const char *origin, const char *dir, ovta_graph **out,
                    ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  *out = NULL;
  Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, data);
  if (!mp) return OVTA_FAIL(err, OVTA_EPARSE, "%s: not a valid ONNX model (truncated or malformed protobuf)", origin);
  int rc = OVTA_OK;
  imp m = {origin, dir, NULL, err, 0};
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
    if ((!o->domain || !o->domain[0] || !strcmp(o->domain, "ai.onnx")) && o->has_version) m.opset = (int)o->version;
  }
  if (!mp->graph) rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: the model has no graph", origin);
  else if (m.opset == 0 && mp->n_opset_import == 0) m.opset = OPSET_MIN; /* very old models: no opset_import */
  if (!rc && m.opset == 0 && mp->n_opset_import > 0 && mp->opset_import[0]->domain && mp->opset_import[0]->domain[0])
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: no default-domain opset, only domain '%s': its operators are not supported",
                   origin, mp->opset_import[0]->domain);
  if (!rc && (m.opset < OPSET_MIN || m.opset > OPSET_MAX))
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: opset %d is not supported (%d..%d)", origin, m.opset, OPSET_MIN, OPSET_MAX);
  if (!rc && !(m.g = ovta_graph_new("graph"))) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (!rc) {
    free(m.g->origin);
    m.g->origin = strdup(origin);
    m.g->opset = m.opset;
    rc = m.g->origin ? import_graph(&m, mp->graph) : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  }
  onnx__model_proto__free_unpacked(mp, NULL);
  if (rc) {
    ovta_graph_free(m.g);
    return rc;
  }
  *out = m.g;
  return OVTA_OK;
}

int ovta_onnx_load_mem(const void *data, size_t len, const char *origin, ovta_graph **out, ovta_error *err) {
  return load_mem(data, len, origin, NULL, out, err);
}

int ovta_onnx_load(const char *path, ovta_graph **out, ovta_error *err) {
  char *buf, *dir;
  size_t len;
  *out = NULL;
  int rc = ovta_read_file(path, MAX_FILE_BYTES, &buf, &len, err);
  if (rc) return rc;
  if (!(rc = onnx_model_dir(path, &dir, err))) rc = load_mem(buf, len, path, dir, out, err);
  free(dir);
  free(buf);
  return rc;
}
