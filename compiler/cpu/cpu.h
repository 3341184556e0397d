/* cpu.h: the CPU layer (compiler/cpu/): graph operators lowered to the loop IR
 * (compiler/lir/lir.h), one function per node, which the executor compiles through LLVM.
 * May include: graph.h, lir.h. Where to add an operator: compiler/cpu/README.md.
 */
#ifndef OVTA_CPU_H
#define OVTA_CPU_H

#include "graph.h"
#include "lir.h"

/* The loop IR element type of a graph dtype (bool is stored as u8). LIR_VOID if none. */
lir_dtype lir_from_ovta_dtype(ovta_dtype t);
/* True if lir_lower_node knows the operator (it may still reject attributes). */
bool lir_lower_supported(const char *op);
/* Lower node n of g (shapes and dtypes inferred, all static) to a loop IR function named fname.
 * Parameters, in order: every present (non-NULL) input, then every present output, each with
 * the tensor's dtype and shape, dense row-major. Unsupported operators or attributes return
 * OVTA_EUNSUPPORTED naming the node and operator. */
int lir_lower_node(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out,
                   ovta_error *err);
/* lir_lower_node for an 8-bit conv (ovta.QConv, ConvInteger) whose weights (input 1, int8 or
 * uint8, a constant) the caller passes as f32 holding the same integers, converted once when the
 * plan is built (compiler/exec): the parameter of input 1 is f32, and the tiled schedules read it
 * where they would convert each block of weights on every call. OVTA_EUNSUPPORTED when the
 * node's schedule would not gain from it (depthwise, generic, or many tiles per converted block:
 * compiler/cpu/README.md "Schedules"): then lower it with lir_lower_node. Same results. */
int lir_lower_node_f32w(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out,
                        ovta_error *err);

#endif
