/* passes_internal.h: private to compiler/passes/: the pass entry points the registry
 * (pipeline.c) lists, and small graph-building helpers the passes share (util.c).
 * Nothing outside compiler/passes/ includes this file. */
#ifndef OVTA_PASSES_INTERNAL_H
#define OVTA_PASSES_INTERNAL_H

#include "passes.h"

/* ---------------------------------------------------------------- the passes (one file each) */

int pass_infer(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_verify(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_fold(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_dce(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_fold_bn(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_convt(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_fuse(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_split_groups(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_im2col(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_s2d(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_quantize(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_pack(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);
int pass_partition(ovta_graph *g, const ovta_compile_opts *o, ovta_error *err);

/* Why ovta.Conv / ovta.Dense n stays float (quantize.c's rule), in buf. */
const char *px_quant_why_not(const ovta_node *n, char *buf, size_t len);

/* ---------------------------------------------------------------- helpers (util.c) */

/* A new constant tensor with zeroed data. */
ovta_tensor *px_new_const(ovta_graph *g, const char *base, ovta_dtype dt, int rank, const int64_t *shape,
                              ovta_error *err);
ovta_tensor *px_new_scalar(ovta_graph *g, const char *base, ovta_dtype dt, double v, ovta_error *err);
/* A new value tensor shaped like `like` (NULL: unknown). */
ovta_tensor *px_new_value(ovta_graph *g, const char *base, ovta_dtype dt, const ovta_tensor *like, ovta_error *err);
/* A new node at position pos with the given tensors. */
ovta_node *px_new_node(ovta_graph *g, int pos, const char *op, const char *base, int ni, ovta_tensor *const *in,
                           ovta_tensor *out, ovta_error *err);
int px_set_op(ovta_node *n, const char *op, ovta_error *err);
int px_set_inputs(ovta_node *n, int cnt, ovta_error *err);
bool px_is_graph_output(const ovta_graph *g, const ovta_tensor *t);
/* The only node reading t (index), or -1 when t has another use or is a graph output. */
int px_single_user(const ovta_graph *g, const ovta_tensor *t);
int px_node_index(const ovta_graph *g, const ovta_node *n);
bool px_is_const(const ovta_tensor *t);
/* The INTS attribute `name` of n into v when it has exactly cnt values. */
bool px_attr_ints(const ovta_node *n, const char *name, int cnt, int64_t *v);
/* A new int64 vector constant of n values. */
ovta_tensor *px_new_ints(ovta_graph *g, const char *base, int n, const int64_t *v, ovta_error *err);
/* Node `op`(in, c) named after base -> a new float value, inserted at *pos (which moves past it)
 * and inferred; NULL (err set) when c is NULL or on failure. */
ovta_tensor *px_add_node(ovta_graph *g, int *pos, const char *op, const char *base, ovta_tensor *in, ovta_tensor *c,
                         ovta_error *err);
/* n inferred again after a rewrite that must keep its output's shape (rank 4); what names the
 * rewrite in the error when the shape changed. */
int px_reinfer_same_shape(ovta_graph *g, ovta_node *n, const char *what, ovta_error *err);

#endif
