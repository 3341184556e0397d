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
 * compiler/cpu/README.md "Schedules"): then lower it with lir_lower_node. Same results.
 * vec_bits: as lir_lower_opts.vec_bits. */
int lir_lower_node_f32w(const ovta_graph *g, const ovta_node *n, const char *fname, int vec_bits, lir_func **out,
                        ovta_error *err);

/* Half-major maps (compiler/cpu/README.md "Half-major maps"): a [N, C, H, W] map that the
 * row-half schedules cut at flat position h = the row half rounded down to whole 32-position tiles
 * (H >= 8) may be stored, per image, as its first part [C, h] then its second [C, H*W - h]
 * (element (n, c, p) at n*C*H*W + c*h + p for p < h, else n*C*H*W + C*h + c*(H*W - h) + p - h),
 * so each thread's rows of every channel are contiguous. The caller (compiler/exec) decides per
 * tensor, where its producer and every reader can. */
/* With halo rows: part 0 holds the positions [0, e0) and part 1 [s1, H*W), e0 = the end of the
 * row after the one holding position h - 1 (at most H*W), s1 = the start of the row before the
 * one holding position h (at least 0), so the rows next to the split are in both parts (a
 * depthwise 3x3 conv's two halves each read only their own part); per image C*e0 then
 * C*(H*W - s1) elements: element (n, c, p) of part 0 at n*C*T + c*e0 + p, of part 1 at
 * n*C*T + C*e0 + c*(H*W - s1) + p - s1, T = e0 + H*W - s1 (lir_half_major_numel). The writer
 * stores both copies of those rows (the same values). */
typedef struct lir_lower_opts {
  unsigned half_in;      /* bit i: input i is stored half-major (only where can_in said so) */
  unsigned half_out;     /* bit i: output i is stored half-major (only where can_out said so) */
  unsigned halo_in;      /* bit i: half-major input i has the halo rows (only where can_halo_in said so) */
  unsigned halo_out;     /* bit i: half-major output i has the halo rows (only where can_halo_out said so) */
  unsigned can_in;       /* out: bit i set when the node's schedule can read input i half-major */
  unsigned can_out;      /* out: bit i set when it can write output i half-major */
  unsigned can_halo_in;  /* out: bit i: it can read input i half-major with halo rows */
  unsigned can_halo_out; /* out: bit i: it can write output i half-major with halo rows */
  unsigned gain_halo_in; /* out: bit i: reading input i with halo rows pays (the depthwise convs split where they apply) */
  int vec_bits;          /* the target's preferred vector width (lir_module_vector_bits: 512, 256, 0 unknown): the
                            conv schedules size their register tiles by it (compiler/cpu/README.md "Schedules") */
} lir_lower_opts;
/* Elements of the [N, C, H, W] tensor t stored half-major with halo rows (cpu.h above; t's
 * element count when it is not such a map). */
int64_t lir_half_major_numel(const ovta_tensor *t);
/* lir_lower_node with the tensors o->half_in / o->half_out half-major; sets o->can_in /
 * o->can_out (for the layout as asked: a node lowered with no half-major tensor tells which it
 * could take). Same results as lir_lower_node for the same values. */
int lir_lower_node_opts(const ovta_graph *g, const ovta_node *n, const char *fname, lir_lower_opts *o, lir_func **out,
                        ovta_error *err);

#endif
