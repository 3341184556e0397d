/* graph.h: the graph layer (compiler/graph/): the dataflow graph IR, its JSON and text forms, the
 * ONNX importer, shape/type inference, the reference evaluator and .npy files (see
 * compiler/graph/README.md). The lowest compiler layer: includes only isa/ovta_base.h.
 *
 * Sections:
 *   1. Types       - element types, layouts, quantization parameters.
 *   2. Tensors     - a named value: type, shape, optional constant data, quantization.
 *   3. Nodes       - an operator application with attributes.
 *   4. Graph       - create/destroy, building, lookups, topological order.
 *   5. Text forms  - JSON (round-trips) and the human-readable dump (--print-after).
 *   6. ONNX        - model importer and TensorProto reader (conformance data).
 *   7. Inference   - per-operator shape/type inference and attribute validation.
 *   8. Evaluation  - the hook through which passes compute values (folding, calibration).
 *   9. Quant math  - power-of-two quantization arithmetic shared with the code generator.
 *  10. .npy files  - NumPy array files <-> tensors (compiler/graph/npy.c).
 *
 * Ownership: a graph owns its tensors, nodes, attributes and all constant data. Nodes refer to
 * tensors by pointer; pointers stay valid until the tensor is removed (ovta_graph_gc) or the
 * graph destroyed. A tensor not in any graph ("standalone", e.g. from ovta_onnx_read_tensor) is
 * freed with ovta_tensor_free.
 */
#ifndef OVTA_GRAPH_H
#define OVTA_GRAPH_H

#include "ovta_base.h"

/* Fused operators (domain "ovta"), made by the passes; their exact semantics:
 *
 *   ovta.Conv   (X, W, [B]) -> Y    float Conv (all Conv attributes) + bias + activation `act`.
 *   ovta.Dense  (X, W, [B]) -> Y    float Y[M,N] = X[M,K] * W[N,K]^T + B[N], then `act`
 *                                   (Gemm with alpha=beta=1 / MatMul with a constant 2-D weight;
 *                                   W is stored as [N, K] like the accelerator's weights).
 *     act: STRING "none" | "relu" | "clip" (act_min/act_max FLOAT) | "leakyrelu" (act_alpha)
 *          | "sigmoid" | "tanh" | "hardsigmoid" (act_alpha, act_beta) | "hardswish".
 *   ovta.QConv  (X:i8, W:i8, [B:i32]) -> Y:i8   int8 conv with the Conv attributes:
 *   ovta.QDense (X:i8, W:i8[N,K], [B:i32]) -> Y:i8
 *               acc = sum(x*w) (int32) + b;  y = clamp(ovta_requant(acc, shift), clip_min, clip_max)
 *               INT attributes: shift, clip_min, clip_max (relu: clip_min 0). Scales: tensor
 *               quant.exp; exp(B) = exp(X) + exp(W); shift = exp(Y) - exp(X) - exp(W).
 *               Per-channel form (QConv, QDense): INTS attribute `shifts` (one per output channel
 *               o, `shift` then absent and ignored): y = clamp(ovta_requant(acc, shifts[o]), ..);
 *               W's channel o has its own exponent ew[o], B[o] is at exp(X) + ew[o],
 *               shifts[o] = exp(Y) - exp(X) - ew[o] (the quantize pass's rule: grouped convs, and
 *               convs and dense layers whose weights have outlier channels).
 *   ovta.QAdd   (A:i8, B:i8) -> Y:i8   residual add, A, B and Y of one shape (no broadcasting):
 *               y = clamp(ovta_requant((a << shift_a) + (b << shift_b), shift), clip_min, clip_max)
 *               in int32 (wrapping). INT attributes shift_a, shift_b (0..31), shift, clip_min,
 *               clip_max (relu: clip_min 0). Scales: e0 = min(exp(A), exp(B)),
 *               shift_a = exp(A) - e0, shift_b = exp(B) - e0, shift = exp(Y) - e0.
 *   ovta.QMaxPool (X:i8) -> Y:i8   MaxPool on int8 with the MaxPool attributes (kernel_shape,
 *               strides, pads; dilations 1, ceil_mode 0, no Indices output): the max over the
 *               window elements inside X (padding never wins); exp(Y) = exp(X).
 *   ovta.QGlobalAvgPool (X:i8 [N, C, H, W]) -> Y:i8 [N, C, 1, 1]   GlobalAveragePool on int8:
 *               y[n, c] = clamp(ovta_requant(sum_hw(x[n, c]) * mult, shift), clip_min, clip_max),
 *               the sum and product in int32 (wrapping). INT attributes mult (1..32767), shift
 *               (0..30), clip_min, clip_max. Scales: mult / 2^shift ~ 2^(exp(X) - exp(Y)) / (H*W)
 *               (the quantize pass's rule picks them so the product never wraps).
 *   ovta.Eltwise (X, E1, E2, ...) -> Y    a chain of elementwise ops: STRING attribute "ops",
 *               comma-separated, from Add Sub Mul Div (binary: take the next extra input as
 *               the second operand, with broadcasting) and Relu Sigmoid Tanh HardSwish Neg Abs
 *               Exp Identity (unary). v = X; for each op: v = op(v[, E_k]).
 *   ovta.Pack   (X) -> Y     to a blocked layout: STRING "layout" ("act" | "wgt" | "acc"),
 *               INT batch, block_in, block_out; pads channels/rows with zeros (ovta_layout).
 *   ovta.Unpack (X) -> Y     back to plain: INTS "shape" = the logical shape; drops padding.
 */

/* ---------------------------------------------------------------- 1. Types */

/* Element types (ovta_dtype, ovta_dtype_size/name/parse) and OVTA_MAX_RANK: isa/ovta_base.h, section 5
 * (the plan runtime below the compiler shares them). */

/* Memory layout of a tensor. PLAIN is row-major in the order of `shape`. The packed layouts are
 * the accelerator's blocked layouts (pass "pack"); `shape` then is the physical (packed) shape and
 * `logical` the original one. */
typedef enum ovta_layout {
  OVTA_LAYOUT_PLAIN = 0,  /* row-major, shape as given */
  OVTA_LAYOUT_ACT,        /* activations NCHW -> [N/batch, C/block_in, H, W, batch, block_in];
                             rank-2 [N, C] -> [N/batch, C/block_in, 1, 1, batch, block_in] */
  OVTA_LAYOUT_WGT,        /* weights OIHW -> [O/block_out, I/block_in, KH, KW, block_out, block_in];
                             rank-2 [O, I] -> [O/block_out, I/block_in, 1, 1, block_out, block_in] */
  OVTA_LAYOUT_ACC,        /* int32 per-channel vectors [C] -> [C/block_out, block_out] (bias) */
} ovta_layout;

const char *ovta_layout_name(ovta_layout l);   /* "plain", "act", "wgt", "acc" */
/* Grouped convolution (group G, C input and O output channels) on the WGT layout: output channel
 * block ob (block_out channels) reads the input channel blocks ob * *gs + [0, *gk); the packed
 * weights are then [O/block_out, *gk, KH, KW, block_out, block_in], zero where the input and the
 * output channel lie in different groups (a block-diagonal tile when a group is smaller than a
 * block: depthwise C = O = G gives gk 1, gs 1, a diagonal tile). Groups aligned to the blocks:
 * a block of output channels whose groups' input channels are exactly gk whole input blocks at
 * ob * gk (gs = gk); any other grouping (output groups of several blocks, groups straddling
 * blocks): every output block reads all C/block_in input blocks (gs 0, gk C/block_in, the other
 * groups' weights zero: up to G times the useful work, which pass split-groups avoids by cutting
 * such convs into runs of whole groups). G = 1: gk C/block_in, gs 0 (the plain layout). C, O not
 * block multiples: the packed layouts pad them to C' = roundup(C, block_in), O' = roundup(O,
 * block_out), and the op is the grouped conv with ovta_group_padded's G' groups (the extra ones
 * all zero), gk, gs of C', O', G'. False when that padding is not a whole number of groups (the
 * node then stays unpacked, on the CPU). */
bool ovta_group_blocks(int64_t c, int64_t o, int64_t g, int64_t block_in, int64_t block_out, int64_t *gk,
                       int64_t *gs);
/* The group count of the channel-padded conv: G plus the whole groups of C/G inputs and O/G
 * outputs that fill C up to roundup(C, block_in) and O up to roundup(O, block_out) (depthwise
 * C = O = G: G' = roundup(C, block_in) when block_in == block_out); G when both are block
 * multiples (and for G = 1, whose padding is not by groups); -1 when the padding is not a whole
 * number of such groups on both sides (or G does not divide C, O). */
int64_t ovta_group_padded(int64_t c, int64_t o, int64_t g, int64_t block_in, int64_t block_out);

/* Quantization of a tensor: real = (q - zero_point) * 2^exp (power-of-two scales only). */
typedef struct ovta_quant {
  bool valid;      /* the tensor holds quantized values */
  int exp;         /* scale exponent: scale = 2^exp */
  int zero_point;  /* 0 for symmetric */
} ovta_quant;

/* ---------------------------------------------------------------- 2. Tensors */

/* What a tensor is in its graph. */
typedef enum ovta_tensor_kind {
  OVTA_TK_VALUE = 0,  /* produced by a node (or not yet produced) */
  OVTA_TK_INPUT,      /* a graph input (runtime data) */
  OVTA_TK_CONST,      /* constant data (initializer or folded) */
} ovta_tensor_kind;

typedef struct ovta_tensor {
  char *name;                      /* unique within its graph */
  ovta_tensor_kind kind;           /* input, constant or computed value */
  ovta_dtype dtype;                /* element type (UNDEF until inferred) */
  int rank;                        /* number of dims; -1 when unknown */
  int64_t shape[OVTA_MAX_RANK];    /* dims; a dim < 0 is unknown (symbolic) */
  char *dim_names[OVTA_MAX_RANK];  /* symbolic dim names from ONNX (e.g. "N"), or NULL */
  void *data;                      /* constant data (row-major, physical layout), or NULL */
  size_t nbytes;                   /* bytes of data */
  ovta_quant quant;                /* quantization parameters */
  ovta_layout layout;              /* memory layout; shape is physical */
  int logical_rank;                /* packed layouts: rank of the unpacked tensor */
  int64_t logical[OVTA_MAX_RANK];  /* packed layouts: the unpacked shape */
  int producer;                    /* index of the producing node, -1 if none (see ovta_graph_index) */
  int uses;                        /* number of node inputs + graph outputs using it (ovta_graph_index) */
  int id;                          /* position in graph->tensors (ovta_graph_index) */
} ovta_tensor;

/* Elements of a tensor with a fully known shape; -1 if unknown or on overflow (> 2^62). */
int64_t ovta_tensor_numel(const ovta_tensor *t);
/* ovta_shape_numel: isa/ovta_base.h, section 5. */
/* A standalone tensor (not in a graph). Name copied. NULL on out of memory. */
ovta_tensor *ovta_tensor_new(const char *name, ovta_dtype dt, int rank, const int64_t *shape);
/* Allocate zeroed data for the tensor's shape (replacing any); fails on unknown shape/overflow. */
int ovta_tensor_alloc(ovta_tensor *t, ovta_error *err);
/* Copy data (nbytes must equal numel * dtype size). */
int ovta_tensor_set_data(ovta_tensor *t, const void *data, size_t nbytes, ovta_error *err);
/* Free a standalone tensor (name, dim names, data). */
void ovta_tensor_free(ovta_tensor *t);
/* Element i of constant data as double / int64 (any numeric dtype). */
double ovta_tensor_get_f(const ovta_tensor *t, int64_t i);
int64_t ovta_tensor_get_i(const ovta_tensor *t, int64_t i);
/* Store element i (converted; integers saturate to the dtype's range, floats round to nearest). */
void ovta_tensor_put_f(ovta_tensor *t, int64_t i, double v);
/* Shape as "1x3x224x224" ("?" for unknown dims, "scalar" for rank 0, "unknown" for rank -1). */
void ovta_shape_str(const ovta_tensor *t, char *buf, size_t n);

/* ---------------------------------------------------------------- 3. Nodes */

typedef enum ovta_attr_type {
  OVTA_ATTR_INT = 1,     /* i */
  OVTA_ATTR_FLOAT,       /* f */
  OVTA_ATTR_STRING,      /* s */
  OVTA_ATTR_INTS,        /* ints[n] */
  OVTA_ATTR_FLOATS,      /* floats[n] */
  OVTA_ATTR_TENSOR,      /* t (standalone tensor owned by the attribute) */
  OVTA_ATTR_STRINGS,     /* strs[n] (RNN/LSTM/GRU activations) */
} ovta_attr_type;

typedef struct ovta_attr {
  char *name;          /* attribute name */
  ovta_attr_type type; /* which of the members below holds the value */
  int64_t i;           /* INT */
  float f;             /* FLOAT */
  char *s;             /* STRING */
  int n;               /* INTS/FLOATS/STRINGS: element count */
  int64_t *ints;       /* INTS */
  float *floats;       /* FLOATS */
  char **strs;         /* STRINGS: n strings */
  ovta_tensor *t;      /* TENSOR */
} ovta_attr;

/* Where a node runs (pass "partition"). */
typedef enum ovta_target {
  OVTA_TARGET_ANY = 0,  /* not yet partitioned */
  OVTA_TARGET_CPU,      /* host code (LLVM backend) */
  OVTA_TARGET_ACCEL,    /* the accelerator */
} ovta_target;

const char *ovta_target_name(ovta_target t);  /* "any", "cpu", "accel" */

typedef struct ovta_node {
  char *name;               /* unique within the graph (the importer names unnamed nodes) */
  char *op;                 /* operator: an ONNX op type ("Conv") or a fused op ("ovta.QConv") */
  int n_inputs;             /* entries in inputs */
  ovta_tensor **inputs;     /* NULL entry = omitted optional input */
  int n_outputs;            /* entries in outputs */
  ovta_tensor **outputs;    /* NULL entry = omitted optional output */
  int n_attrs;              /* entries in attrs */
  ovta_attr *attrs;         /* attributes, in insertion order */
  ovta_target target;       /* partition result */
  int region;               /* partition region id (-1 before partitioning) */
} ovta_node;

/* Attribute lookup; NULL when absent. */
const ovta_attr *ovta_node_attr(const ovta_node *n, const char *name);
/* Typed lookups with a default when absent. */
int64_t ovta_node_attr_i(const ovta_node *n, const char *name, int64_t dflt);
float ovta_node_attr_f(const ovta_node *n, const char *name, float dflt);
const char *ovta_node_attr_s(const ovta_node *n, const char *name, const char *dflt);
/* Set (add or replace) an attribute. Copies name/values. */
int ovta_node_set_i(ovta_node *n, const char *name, int64_t v, ovta_error *err);
int ovta_node_set_f(ovta_node *n, const char *name, float v, ovta_error *err);
int ovta_node_set_s(ovta_node *n, const char *name, const char *v, ovta_error *err);
int ovta_node_set_ints(ovta_node *n, const char *name, const int64_t *v, int cnt, ovta_error *err);
int ovta_node_set_floats(ovta_node *n, const char *name, const float *v, int cnt, ovta_error *err);
int ovta_node_set_strs(ovta_node *n, const char *name, const char *const *v, int cnt, ovta_error *err);
/* Takes ownership of t (a standalone tensor). */
int ovta_node_set_tensor(ovta_node *n, const char *name, ovta_tensor *t, ovta_error *err);
/* Remove an attribute if present. */
void ovta_node_del_attr(ovta_node *n, const char *name);
/* Input i, or NULL when i is out of range or the input omitted. */
ovta_tensor *ovta_node_in(const ovta_node *n, int i);

/* ---------------------------------------------------------------- 4. Graph */

typedef struct ovta_graph {
  char *name;              /* graph name */
  char *origin;            /* file it came from (for error messages), or "" */
  int opset;               /* ONNX default-domain opset version (0: latest we know, 17) */
  int n_tensors;           /* entries in tensors */
  int cap_tensors;         /* allocated entries */
  ovta_tensor **tensors;   /* every tensor: inputs, constants, values */
  int n_nodes;             /* entries in nodes */
  int cap_nodes;           /* allocated entries */
  ovta_node **nodes;       /* in topological order once ovta_graph_toposort succeeded */
  int n_inputs;            /* entries in inputs */
  ovta_tensor **inputs;    /* runtime inputs, in order */
  int n_outputs;           /* entries in outputs */
  ovta_tensor **outputs;   /* graph outputs, in order */
  int uniq;                /* counter for fresh names */
} ovta_graph;

ovta_graph *ovta_graph_new(const char *name);
void ovta_graph_free(ovta_graph *g);
/* Tensor by name, or NULL. */
ovta_tensor *ovta_graph_tensor(const ovta_graph *g, const char *name);
/* Node by name, or NULL. */
ovta_node *ovta_graph_node(const ovta_graph *g, const char *name);
/* Add a tensor (fails if the name exists). shape may be NULL when rank <= 0. */
ovta_tensor *ovta_graph_add_tensor(ovta_graph *g, const char *name, ovta_dtype dt, int rank,
                                   const int64_t *shape, ovta_error *err);
/* The tensor with that name, created (dtype UNDEF, rank -1) when missing. */
ovta_tensor *ovta_graph_get_or_add(ovta_graph *g, const char *name, ovta_error *err);
/* A fresh unique name "<base>_<k>" (caller frees). */
char *ovta_graph_fresh_name(ovta_graph *g, const char *base);
/* Move a standalone tensor into the graph (renamed if its name exists). NULL on failure. */
ovta_tensor *ovta_graph_adopt_tensor(ovta_graph *g, ovta_tensor *t, ovta_error *err);
/* Append a node. Input/output names may be "" or NULL (omitted); missing tensors are created. */
ovta_node *ovta_graph_add_node(ovta_graph *g, const char *op, const char *name, int n_in,
                               const char *const *inputs, int n_out, const char *const *outputs,
                               ovta_error *err);
/* Insert an existing detached node at position pos (0..n_nodes). */
int ovta_graph_insert_node(ovta_graph *g, int pos, ovta_node *n, ovta_error *err);
/* A detached node (not in a graph): caller adds tensors with pointers of the same graph. */
ovta_node *ovta_node_new(const char *op, const char *name, int n_in, int n_out);
/* Free a detached node. */
void ovta_node_free(ovta_node *n);
/* Remove node i (freeing it); tensors stay (see ovta_graph_gc). */
void ovta_graph_remove_node(ovta_graph *g, int i);
/* Replace every use of `from` (node inputs and graph outputs) by `to`. */
void ovta_graph_replace_uses(ovta_graph *g, ovta_tensor *from, ovta_tensor *to);
/* Recompute tensor id/producer/uses. Fails if a tensor has two producers. */
int ovta_graph_index(ovta_graph *g, ovta_error *err);
/* Order nodes topologically (stable: keeps the given order where possible). Fails naming a node
 * on a cycle, or a node reading a tensor nothing produces (not an input or constant). */
int ovta_graph_toposort(ovta_graph *g, ovta_error *err);
/* Free tensors nothing uses or produces (except inputs/outputs). Calls ovta_graph_index. */
int ovta_graph_gc(ovta_graph *g, ovta_error *err);
/* Structural check: unique names, every input defined, one producer, nodes in order. */
int ovta_graph_verify(ovta_graph *g, ovta_error *err);
/* Turn graph input `name` into a constant holding a copy of value (dtype and element count must
 * match; the value's shape is taken). For shape-like inputs (Reshape shape, Squeeze axes...)
 * given at run time, e.g. by the ONNX conformance data. */
int ovta_graph_bind_input(ovta_graph *g, const char *name, const ovta_tensor *value, ovta_error *err);
/* Deep copy. NULL on out of memory. */
ovta_graph *ovta_graph_clone(const ovta_graph *g);
/* Multiply-accumulates of node n from its logical shapes (a blocked layout counts its logical
 * shape): numel(Y) x the reduction length, i.e. the weights per output channel for Conv,
 * ovta.[Q]Conv and ovta.[Q]Dense, K for Gemm and MatMul; for RNN, GRU and LSTM (seq * batch) x
 * (|W| + |R|); 0 for every other op and for unknown shapes (graph/macs.c). */
int64_t ovta_node_macs(const ovta_node *n);
/* The sum of ovta_node_macs over the nodes of g. */
int64_t ovta_graph_macs(const ovta_graph *g);

/* ---------------------------------------------------------------- 5. Text forms */

/* JSON text (documented in compiler/README.md). Caller frees. Writing is deterministic, and
 * read(write(g)) writes identical text. Constant data is stored inline. */
char *ovta_graph_to_json(const ovta_graph *g, ovta_error *err);
/* Parse JSON text; `origin` names it in errors. */
int ovta_graph_from_json(const char *text, const char *origin, ovta_graph **out, ovta_error *err);
/* Read a graph from a file: ".onnx" -> ONNX importer, anything else -> JSON. */
int ovta_graph_load(const char *path, ovta_graph **out, ovta_error *err);
/* Human-readable dump (stable; used by --print-after and FileCheck tests). */
void ovta_graph_dump(FILE *f, const ovta_graph *g);
/* Same dump as a string (caller frees). */
char *ovta_graph_dump_str(const ovta_graph *g);

/* ---------------------------------------------------------------- 6. ONNX */

/* Import an ONNX model file (ModelProto). Checks sizes before allocating; errors name the file
 * and the node. The result is topologically sorted but not yet shape-inferred. External data is
 * read from files inside the model file's directory (onnx_extdata.c). */
int ovta_onnx_load(const char *path, ovta_graph **out, ovta_error *err);
/* Same from memory; `origin` names it in errors. No directory: external data is refused. */
int ovta_onnx_load_mem(const void *data, size_t len, const char *origin, ovta_graph **out,
                       ovta_error *err);
/* Read one TensorProto file (the conformance data input_N.pb / output_N.pb) as a standalone
 * tensor (kind CONST, data set). Free with ovta_tensor_free. */
int ovta_onnx_read_tensor(const char *path, ovta_tensor **out, ovta_error *err);
int ovta_onnx_read_tensor_mem(const void *data, size_t len, const char *origin, ovta_tensor **out,
                              ovta_error *err);
/* Write a plain graph (ONNX operators, no packed or quantized tensors) as an ONNX ModelProto
 * (onnx_write.c): constants as initializers, typed inputs and outputs. *data: malloc'ed bytes. */
int ovta_onnx_write_mem(const ovta_graph *g, void **data, size_t *len, ovta_error *err);
int ovta_onnx_save(const ovta_graph *g, const char *path, ovta_error *err);

/* ---------------------------------------------------------------- 7. Inference */

/* Validate the attributes of node n and infer its output types/shapes from its inputs
 * (ONNX semantics at g->opset). Unknown operators or attributes -> OVTA_EUNSUPPORTED naming the
 * node and operator. */
int ovta_infer_node(ovta_graph *g, ovta_node *n, ovta_error *err);
/* Infer every node in order (graph must be toposorted). Shape subgraphs fold on the way: a node
 * with one small static int64/int32/bool output that is not a graph output, whose inputs are all
 * constants (or Shape/Size of a tensor with a static shape), is evaluated and removed, its output
 * becoming a constant (graph/README.md "Shape subgraphs"); the graph is then gc'd. */
int ovta_infer_graph(ovta_graph *g, ovta_error *err);
/* True for every operator ovta_infer_node knows (ONNX and fused). */
bool ovta_op_known(const char *op);
/* Resize: per dim of x, the output extent and the scale of the coordinate transform (the given
 * scale, or out/in from sizes), from n's constant scales/sizes and its attributes (rule in
 * graph/infer_resize.c); else an error code with the reason in why. */
int ovta_resize_dims(const ovta_node *n, const ovta_tensor *x, double *scale, int64_t *out, char *why, size_t nwhy);
/* Is Resize n on the NCHW x (rank 4, plain shape) a nearest-neighbour upsampling by integer
 * factors f[0] (H), f[1] (W), output pixel (y, x) reading input pixel (y / f[0], x / f[1]) (floor)?
 * Mode nearest, N and C kept, out = f * in with the scale exactly f, and for f > 1 a
 * coordinate_transformation_mode / nearest_mode pair that reduces to floor(y / f) (the rule in
 * graph/infer_resize.c: asymmetric + floor, or + round_prefer_floor for f = 2;
 * tf_half_pixel_for_nn + floor; half_pixel, pytorch_half_pixel, half_pixel_symmetric + round_prefer_floor or
 * round_prefer_ceil; align_corners + round_prefer_floor or round_prefer_ceil for f = 2). False
 * with the reason in why. */
bool ovta_resize_nearest_factors(const ovta_node *n, const ovta_tensor *x, int64_t f[2], char *why, size_t nwhy);

/* TfIdfVectorizer's pool_int64s (rule and checks in graph/infer_index.c): the n-grams of length
 * len (1..ngroups = len(ngram_counts)) are the count[len-1] runs of len items from pool item
 * start[len-1]; the k-th of them has output coordinate ngram_indexes[first[len-1] + k]. */
#define OVTA_TFIDF_MAX_LEN 64
typedef struct ovta_tfidf_pool {
  int ngroups;                        /* len(ngram_counts): n-gram lengths 1..ngroups */
  int64_t start[OVTA_TFIDF_MAX_LEN];  /* per length: its first item in pool_int64s */
  int64_t count[OVTA_TFIDF_MAX_LEN];  /* per length: its n-grams */
  int64_t first[OVTA_TFIDF_MAX_LEN];  /* per length: its first n-gram's place in ngram_indexes */
  int64_t out_size;                   /* max(ngram_indexes) + 1: the output's last extent */
} ovta_tfidf_pool;
/* The pool of TfIdfVectorizer node n, its attributes checked; else an error code with the
 * reason in why (OVTA_EUNSUPPORTED for pool_strings). */
int ovta_tfidf_pool_of(const ovta_node *n, ovta_tfidf_pool *p, char *why, size_t nwhy);

/* Slice: from starts st, ends en, axes ax and steps sp (na values each; ax/sp may be NULL), per
 * dim of x the first index, the step and the output extent (rule in graph/infer_data.c).
 * 0, 1 for a bad or repeated axis, 2 for a zero step. */
int ovta_slice_params(const ovta_tensor *x, const int64_t *st, const int64_t *en, const int64_t *ax, const int64_t *sp,
                      int na, int64_t *start, int64_t *step, int64_t *dim);

/* An Einsum equation over nops operands of the given ranks (infer_reduce.c): labels[i] gets
 * operand i's label per dim (the dims "..." covers as '0', '1', ...), out the output's (implicit
 * form: the ellipsis dims, then the labels used once, alphabetically). 0, or -1 with msg. */
int ovta_einsum_parse(const char *eq, int nops, const int *ranks, char labels[][OVTA_MAX_RANK + 1], char *out,
                      char *msg, size_t mn);

/* ---------------------------------------------------------------- 8. Evaluation */

/* Evaluate one node on constant inputs: fill outputs[i]->data (the outputs are standalone
 * tensors with dtype and shape already inferred; the callee allocates with ovta_tensor_alloc).
 * Return OVTA_EUNSUPPORTED when it cannot evaluate this node (the caller then leaves it alone). */
typedef int (*ovta_eval_node_fn)(void *ctx, const ovta_graph *g, const ovta_node *n,
                                 ovta_tensor *const *inputs, ovta_tensor **outputs,
                                 ovta_error *err);

/* The built-in reference evaluator (plain C, float math): elementwise ops, Conv, Gemm, MatMul,
 * pools, data movement, BatchNormalization, fused float ops. A usable ovta_eval_node_fn. */
int ovta_eval_node_ref(void *ctx, const ovta_graph *g, const ovta_node *n,
                       ovta_tensor *const *inputs, ovta_tensor **outputs, ovta_error *err);

/* Run the whole graph node by node with `eval` (ovta_eval_node_ref when NULL) on values for the
 * graph inputs (inputs[i] matches g->inputs[i]). For every tensor computed, call observe (may be
 * NULL). outputs (may be NULL) receives standalone copies of the graph outputs. */
typedef void (*ovta_observe_fn)(void *ctx, const ovta_tensor *graph_tensor,
                                const ovta_tensor *value);
int ovta_graph_run(const ovta_graph *g, ovta_eval_node_fn eval, void *eval_ctx,
                   ovta_tensor *const *inputs, ovta_observe_fn observe, void *obs_ctx,
                   ovta_tensor **outputs, ovta_error *err);

/* ---------------------------------------------------------------- 9. Quant math */

/* Quantize a real value to int8 with scale 2^exp, symmetric: clamp(round_half_away(x/2^exp),
 * -127, 127). */
int8_t ovta_quant_i8(float x, int exp);
/* Quantize to int32 (bias) with scale 2^exp, saturating. */
int32_t ovta_quant_i32(float x, int exp);
/* The scale exponent for a symmetric int8 tensor whose values lie in [-absmax, absmax]: the
 * smallest e with absmax / 2^e <= 127 (absmax 0 -> 0). */
int ovta_quant_exp_for(float absmax);
/* Requantization as the accelerator ALU does it (fused op attributes "shift", "clip_min",
 * "clip_max"): shift in 1..31: ADD 2^(shift-1) (wrapping int32), then arithmetic SHR shift; shift 0: acc;
 * shift < 0: acc << -shift (wrapping); shift >= 32: sign (0 or -1); (isa/ISA.md SHR)
 * then clamp to [lo, hi]. */
int32_t ovta_requant(int32_t acc, int shift, int32_t lo, int32_t hi);

/* ---------------------------------------------------------------- 10. .npy files */

/* Read a .npy file (format 1.0/2.0/3.0, little-endian, C order; dtypes f4 f8 i1 u1 i2 u2 i4 u4
 * i8 u8 b1) as a standalone tensor named `name`. */
int ovta_npy_read(const char *path, const char *name, ovta_tensor **out, ovta_error *err);
/* Write a tensor as a .npy file (format 1.0). */
int ovta_npy_write(const char *path, const ovta_tensor *t, ovta_error *err);

#endif
