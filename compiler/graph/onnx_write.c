/* onnx_write.c: an ovta_graph written as an ONNX ModelProto (graph.h section 6), for reference
 * runners (onnxruntime through tools/ort-ref) fed graphs ovta built itself, e.g. the compiler's
 * differential fuzzer (tools/ovta-randgraph).
 *
 * Rule: a plain graph in ONNX operators only (no ovta.* op, no packed layout, no quantization:
 * those have no ONNX form) becomes one model with opset g->opset (0: 17); graph inputs become
 * inputs with their dtype and shape (a dim < 0 is a symbolic dim named by dim_names or "d<k>"),
 * constants become initializers (raw_data, little-endian as in memory), graph outputs become
 * outputs (typed when known); node attributes of every type but TENSOR-less STRINGS order keep
 * their types. ovta_onnx_load_mem of the result gives back the same graph (tested by the fuzzer
 * on every graph it makes). */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "onnx.pb-c.h"

/* Everything allocated for the message, freed at once: the protobuf-c structs point into it. */
typedef struct wbuf {
  void **ptrs; /* allocations */
  int n, cap;  /* used / allocated entries of ptrs */
  bool oom;    /* an allocation failed */
} wbuf;

static void *walloc(wbuf *b, size_t n) {
  if (b->oom) return NULL;
  if (b->n == b->cap) {
    int cap = b->cap ? 2 * b->cap : 64;
    void **p = realloc(b->ptrs, (size_t)cap * sizeof *p);
    if (!p) return b->oom = true, NULL;
    b->ptrs = p, b->cap = cap;
  }
  void *p = calloc(1, n ? n : 1);
  if (!p) return b->oom = true, NULL;
  return b->ptrs[b->n++] = p;
}

static char *wstr(wbuf *b, const char *s) {
  char *p = walloc(b, strlen(s) + 1);
  if (p) strcpy(p, s);
  return p;
}

/* A TypeProto for tensor t (elem type and shape when known). */
static Onnx__TypeProto *type_of(wbuf *b, const ovta_tensor *t) {
  Onnx__TypeProto *tp = walloc(b, sizeof *tp);
  Onnx__TypeProto__Tensor *tt = walloc(b, sizeof *tt);
  if (!tp || !tt) return NULL;
  onnx__type_proto__init(tp);
  onnx__type_proto__tensor__init(tt);
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  tt->has_elem_type = t->dtype != OVTA_DT_UNDEF;
  tt->elem_type = (int32_t)t->dtype;
  if (t->rank < 0) return tp;
  Onnx__TensorShapeProto *sp = walloc(b, sizeof *sp);
  if (!sp) return NULL;
  onnx__tensor_shape_proto__init(sp);
  sp->n_dim = (size_t)t->rank;
  sp->dim = walloc(b, (size_t)(t->rank ? t->rank : 1) * sizeof *sp->dim);
  if (!sp->dim) return NULL;
  for (int d = 0; d < t->rank; d++) {
    Onnx__TensorShapeProto__Dimension *dm = walloc(b, sizeof *dm);
    if (!dm) return NULL;
    onnx__tensor_shape_proto__dimension__init(dm);
    if (t->shape[d] >= 0) {
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dm->dim_value = t->shape[d];
    } else {
      char nm[24];
      snprintf(nm, sizeof nm, "d%d", d);
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      dm->dim_param = wstr(b, t->dim_names[d] ? t->dim_names[d] : nm);
    }
    sp->dim[d] = dm;
  }
  tt->shape = sp;
  return tp;
}

static Onnx__ValueInfoProto *value_info(wbuf *b, const ovta_tensor *t) {
  Onnx__ValueInfoProto *vi = walloc(b, sizeof *vi);
  if (!vi) return NULL;
  onnx__value_info_proto__init(vi);
  vi->name = wstr(b, t->name);
  vi->type = type_of(b, t);
  return vi;
}

/* A standalone or graph constant as a TensorProto (raw_data). */
static Onnx__TensorProto *tensor_proto(wbuf *b, const ovta_tensor *t) {
  Onnx__TensorProto *tp = walloc(b, sizeof *tp);
  if (!tp) return NULL;
  onnx__tensor_proto__init(tp);
  tp->name = wstr(b, t->name ? t->name : "");
  tp->has_data_type = true;
  tp->data_type = (int32_t)t->dtype;
  tp->n_dims = (size_t)(t->rank > 0 ? t->rank : 0);
  tp->dims = walloc(b, (tp->n_dims ? tp->n_dims : 1) * sizeof *tp->dims);
  if (!tp->dims) return NULL;
  for (int d = 0; d < t->rank; d++) tp->dims[d] = t->shape[d];
  tp->has_raw_data = true;
  tp->raw_data.len = t->nbytes;
  tp->raw_data.data = walloc(b, t->nbytes);
  if (tp->raw_data.data && t->nbytes) memcpy(tp->raw_data.data, t->data, t->nbytes);
  return tp;
}

static Onnx__AttributeProto *attr_proto(wbuf *b, const ovta_attr *a) {
  Onnx__AttributeProto *ap = walloc(b, sizeof *ap);
  if (!ap) return NULL;
  onnx__attribute_proto__init(ap);
  ap->name = wstr(b, a->name);
  ap->has_type = true;
  size_t n = (size_t)(a->n > 0 ? a->n : 0);
  switch (a->type) {
  case OVTA_ATTR_INT:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, ap->has_i = true, ap->i = a->i;
    break;
  case OVTA_ATTR_FLOAT:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, ap->has_f = true, ap->f = a->f;
    break;
  case OVTA_ATTR_STRING:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, ap->has_s = true;
    ap->s.data = (uint8_t *)wstr(b, a->s), ap->s.len = strlen(a->s);
    break;
  case OVTA_ATTR_INTS:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, ap->n_ints = n;
    ap->ints = walloc(b, (n ? n : 1) * sizeof *ap->ints);
    if (ap->ints && n) memcpy(ap->ints, a->ints, n * sizeof *ap->ints);
    break;
  case OVTA_ATTR_FLOATS:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, ap->n_floats = n;
    ap->floats = walloc(b, (n ? n : 1) * sizeof *ap->floats);
    if (ap->floats && n) memcpy(ap->floats, a->floats, n * sizeof *ap->floats);
    break;
  case OVTA_ATTR_STRINGS:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS, ap->n_strings = n;
    ap->strings = walloc(b, (n ? n : 1) * sizeof *ap->strings);
    for (size_t i = 0; ap->strings && i < n; i++)
      ap->strings[i].data = (uint8_t *)wstr(b, a->strs[i]), ap->strings[i].len = strlen(a->strs[i]);
    break;
  case OVTA_ATTR_TENSOR:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR, ap->t = tensor_proto(b, a->t);
    break;
  }
  return ap;
}

static Onnx__NodeProto *node_proto(wbuf *b, const ovta_node *n) {
  Onnx__NodeProto *np = walloc(b, sizeof *np);
  if (!np) return NULL;
  onnx__node_proto__init(np);
  np->name = wstr(b, n->name);
  np->op_type = wstr(b, n->op);
  np->n_input = (size_t)n->n_inputs, np->n_output = (size_t)n->n_outputs, np->n_attribute = (size_t)n->n_attrs;
  np->input = walloc(b, (size_t)(n->n_inputs + 1) * sizeof(char *));
  np->output = walloc(b, (size_t)(n->n_outputs + 1) * sizeof(char *));
  np->attribute = walloc(b, (size_t)(n->n_attrs + 1) * sizeof *np->attribute);
  if (!np->input || !np->output || !np->attribute) return NULL;
  for (int i = 0; i < n->n_inputs; i++) np->input[i] = wstr(b, n->inputs[i] ? n->inputs[i]->name : "");
  for (int i = 0; i < n->n_outputs; i++) np->output[i] = wstr(b, n->outputs[i] ? n->outputs[i]->name : "");
  for (int i = 0; i < n->n_attrs; i++) np->attribute[i] = attr_proto(b, &n->attrs[i]);
  return np;
}

/* Refuses what ONNX cannot say: ovta.* operators, packed or quantized tensors. */
static int check_plain(const ovta_graph *g, ovta_error *err) {
  for (int i = 0; i < g->n_nodes; i++)
    if (!strncmp(g->nodes[i]->op, "ovta.", 5))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "onnx write: node %s: %s has no ONNX form", g->nodes[i]->name,
                       g->nodes[i]->op);
  for (int i = 0; i < g->n_tensors; i++) {
    const ovta_tensor *t = g->tensors[i];
    if (t->layout != OVTA_LAYOUT_PLAIN || t->quant.valid)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "onnx write: tensor %s is packed or quantized (no ONNX form)", t->name);
    if (t->kind == OVTA_TK_CONST && (!t->data || t->rank < 0))
      return OVTA_FAIL(err, OVTA_EINVAL, "onnx write: constant %s has no data or no shape", t->name);
  }
  return 0;
}

static Onnx__GraphProto *graph_proto(wbuf *b, const ovta_graph *g) {
  Onnx__GraphProto *gp = walloc(b, sizeof *gp);
  if (!gp) return NULL;
  onnx__graph_proto__init(gp);
  gp->name = wstr(b, g->name && *g->name ? g->name : "graph");
  int nconst = 0;
  for (int i = 0; i < g->n_tensors; i++) nconst += g->tensors[i]->kind == OVTA_TK_CONST;
  gp->node = walloc(b, (size_t)(g->n_nodes + 1) * sizeof *gp->node);
  gp->initializer = walloc(b, (size_t)(nconst + 1) * sizeof *gp->initializer);
  gp->input = walloc(b, (size_t)(g->n_inputs + 1) * sizeof *gp->input);
  gp->output = walloc(b, (size_t)(g->n_outputs + 1) * sizeof *gp->output);
  if (!gp->node || !gp->initializer || !gp->input || !gp->output) return NULL;
  for (int i = 0; i < g->n_nodes; i++) gp->node[gp->n_node++] = node_proto(b, g->nodes[i]);
  for (int i = 0; i < g->n_tensors; i++)
    if (g->tensors[i]->kind == OVTA_TK_CONST) gp->initializer[gp->n_initializer++] = tensor_proto(b, g->tensors[i]);
  for (int i = 0; i < g->n_inputs; i++) gp->input[gp->n_input++] = value_info(b, g->inputs[i]);
  for (int i = 0; i < g->n_outputs; i++) gp->output[gp->n_output++] = value_info(b, g->outputs[i]);
  return gp;
}

int ovta_onnx_write_mem(const ovta_graph *g, void **data, size_t *len, ovta_error *err) {
  *data = NULL, *len = 0;
  int rc = check_plain(g, err);
  if (rc) return rc;
  wbuf b = {0};
  Onnx__ModelProto mp;
  Onnx__OperatorSetIdProto os;
  Onnx__OperatorSetIdProto *osp = &os;
  onnx__model_proto__init(&mp);
  onnx__operator_set_id_proto__init(&os);
  os.domain = "";
  os.has_version = true;
  os.version = g->opset > 0 ? g->opset : 17;
  mp.has_ir_version = true;
  mp.ir_version = 8;
  mp.producer_name = "ovta";
  mp.n_opset_import = 1;
  mp.opset_import = &osp;
  mp.graph = graph_proto(&b, g);
  if (!b.oom && mp.graph) {
    *len = onnx__model_proto__get_packed_size(&mp);
    *data = malloc(*len ? *len : 1);
    if (*data) onnx__model_proto__pack(&mp, *data);
  }
  if (b.oom || !mp.graph || !*data) rc = OVTA_FAIL(err, OVTA_ENOMEM, "onnx write: out of memory");
  for (int i = 0; i < b.n; i++) free(b.ptrs[i]);
  free(b.ptrs);
  if (rc) free(*data), *data = NULL, *len = 0;
  return rc;
}

int ovta_onnx_save(const ovta_graph *g, const char *path, ovta_error *err) {
  void *data;
  size_t len;
  int rc = ovta_onnx_write_mem(g, &data, &len, err);
  if (rc) return rc;
  FILE *f = fopen(path, "wb");
  if (!f) rc = OVTA_FAIL(err, OVTA_EIO, "%s: cannot create the file", path);
  else if (fwrite(data, 1, len, f) != len) rc = OVTA_FAIL(err, OVTA_EIO, "%s: write failed", path);
  if (f && fclose(f) && !rc) rc = OVTA_FAIL(err, OVTA_EIO, "%s: write failed", path);
  free(data);
  return rc;
}
