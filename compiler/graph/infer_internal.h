/* infer_internal.h: private to the inference files of compiler/graph (infer*.c): the context of
 * one node's inference, the helpers every operator's rule uses, and the per-family operator
 * tables infer.c looks operators up in. Nothing outside compiler/graph/ includes this file. */
#ifndef OVTA_INFER_INTERNAL_H
#define OVTA_INFER_INTERNAL_H

#include <stdlib.h>
#include <string.h>

#include "graph.h"

typedef struct ctx {
  ovta_graph *g;    /* the graph */
  ovta_node *n;     /* the node being inferred */
  ovta_error *err;  /* where errors go */
} ctx;

/* One operator of a family: its name and its validation + inference. */
typedef struct infer_rule {
  const char *op;          /* operator name, NULL ends a table */
  int (*infer)(ctx *);     /* validation and inference */
} infer_rule;

extern const infer_rule infer_rules_elementwise[]; /* infer_elementwise.c */
extern const infer_rule infer_rules_conv[];        /* infer_conv.c */
extern const infer_rule infer_rules_matmul[];      /* infer_matmul.c */
extern const infer_rule infer_rules_quant[];       /* infer_quant.c */
extern const infer_rule infer_rules_data[];        /* infer_data.c */
extern const infer_rule infer_rules_logic[];       /* infer_logic.c */
extern const infer_rule infer_rules_index[];       /* infer_index.c */
extern const infer_rule infer_rules_resize[];      /* infer_resize.c */
extern const infer_rule infer_rules_reduce[];      /* infer_reduce.c */
extern const infer_rule infer_rules_norm[];        /* infer_norm.c */
extern const infer_rule infer_rules_rnn[];         /* infer_rnn.c */
extern const infer_rule infer_rules_signal[];      /* infer_signal.c */
extern const infer_rule infer_rules_sample[];      /* infer_sample.c */

/* ---------------------------------------------------------------- helpers (infer.c) */

/* Fail with code and a message naming the model, the node and its operator. */
__attribute__((format(printf, 3, 4))) int ix_bad(ctx *c, int code, const char *fmt, ...);
/* Input i (NULL when omitted). */
ovta_tensor *ix_in(ctx *c, int i);
/* Input i must be present with a known type and rank. */
int ix_need(ctx *c, int i, ovta_tensor **t);
/* Present inputs within min_in..max_in, outputs within min_out..max_out, the first min_out given. */
int ix_count_io(ctx *c, int min_in, int max_in, int min_out, int max_out);
/* Output k gets dtype, rank and shape (dims checked; a missing output is fine). */
int ix_set_out(ctx *c, int k, ovta_dtype dt, int rank, const int64_t *shape);
/* Output k gets t's dtype and shape. */
int ix_same_as(ctx *c, int k, const ovta_tensor *t);
/* f16, f32 or f64. */
bool ix_is_float(ovta_dtype t);
/* Only the listed attributes (comma-separated) may appear. */
int ix_allow(ctx *c, const char *names);
/* Attribute name, when present, has type ty (an INT is accepted for a FLOAT). */
int ix_attr_type(ctx *c, const char *name, ovta_attr_type ty);
/* A constant integer vector input (axes, pads, shape); *cnt = -1 when absent. */
int ix_const_ints(ctx *c, int i, int64_t *v, int max, int *cnt);
/* Normalize axis into [0, r) (or [0, r] when `inclusive`). */
int ix_norm_axis(ctx *c, int64_t *axis, int r, bool inclusive, const char *what);
/* ONNX multidirectional broadcasting: align right; dims equal, or one of them is 1. */
int ix_broadcast(ctx *c, const ovta_tensor *a, const ovta_tensor *b, int *rank, int64_t *shape);
/* An INTS attribute of `want` values >= min (dflt when absent). */
int ix_ints_attr(ctx *c, const char *name, int want, int64_t *v, int64_t dflt, int64_t min);
/* The fused ops' "act" attribute is a known activation. */
int ix_check_act(ctx *c);

#endif
