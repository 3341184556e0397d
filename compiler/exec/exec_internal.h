/* exec_internal.h: private to compiler/exec/: what exec.c takes from accel.c (the accelerator
 * side of the executor: Pack/Unpack on the CPU, the CPU fallback of accelerator nodes). Nothing
 * outside compiler/exec/ includes this file. */
#ifndef OVTA_EXEC_INTERNAL_H
#define OVTA_EXEC_INTERNAL_H

#include "accel.h"
#include "cpu.h"
#include "exec.h"
#include "passes.h"

/* ovta.Pack / ovta.Unpack node n lowered to a loop-IR function for the CPU. */
int exec_lower_layout(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out, ovta_error *err);
/* A Concat of packed (act layout) arrays along physical axis 1 (pack.c's pack_concat), likewise. */
int exec_lower_packed_concat(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out,
                             ovta_error *err);
/* Accelerator node *pi that cannot run there: rewritten to unpack, its CPU op, pack. */
int exec_unpack_node(ovta_graph *g, int *pi, const ovta_config *cfg, ovta_error *err);
/* Whether the graph still needs the pack and partition passes. */
void exec_accel_needs(const ovta_graph *g, bool *pack, bool *partition);

#endif
