/* accel_internal.h: private to compiler/accel/: small accelerator-specific IR helpers shared by
 * the lowering passes (README.md "Passes") and the schedule primitives (sched.c), and the ALU
 * operators' entry points (alu.c) that plan.c and lower.c dispatch to. General IR queries are in
 * lir.h, section 4. Nothing outside compiler/accel/ includes this file. */
#ifndef OVTA_VTA_IR_H
#define OVTA_VTA_IR_H

#include "accel.h"

/* The ALU intrinsic names by opcode (OVTA_ALU_* order): "ovta.alu_min", .., "ovta.alu_clp",
 * "ovta.alu_rq". */
extern const char *const vta_alu_intrin[OVTA_ALU_COUNT];

/* b[idx[0..n-3], 0, 0]: the origin of the BATCH x BLOCK element an n-index access of b covers. */
lir_expr *vta_block_ref(lir_func *f, lir_buf *b, int n, lir_expr *const *idx);

/* Does one of the lead indices idx[0..n-3] (all but the element's two) use v? */
bool vta_lead_uses(int n, lir_expr *const *idx, const lir_var *v);

/* `max(min(A, hi), lo)` with constant bounds (a halo copy's clamped index): A, lo and hi (either
 * may be NULL). */
bool vta_is_clamp(const lir_expr *e, lir_expr **inner, int64_t *lo, int64_t *hi);

/* ALU operators (alu.c): the plan of a VTA_ADD / VTA_MAXPOOL op; its compute stage (parameters and
 * scalar nest on an empty function) and its schedule stage (vta_pass_schedule's, emitted from the
 * plan), which lower.c's stages take for these kinds. */
int vta_alu_plan_make(const ovta_config *cfg, const vta_op *op, const vta_knobs *kn, vta_plan *p, ovta_error *err);
int vta_alu_compute(const vta_plan *p, lir_func *f, ovta_error *err);
int vta_alu_schedule(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);

/* A conv/dense with a fused residual add (res.c): the plan's checks; the compute stage's epilogue
 * (c the conv's clipped i32 result, r the other operand's i8 element); the schedule stage's fused
 * epilogue, rewritten from the primitive script's store nest. */
int vta_res_check(const vta_plan *p, ovta_error *err);
lir_expr *vta_res_expr(lir_func *f, const vta_op *op, lir_expr *c, lir_expr *r);
int vta_res_schedule(const vta_plan *p, lir_func *f, ovta_error *err);
int vta_res_pipeline(const vta_plan *p, lir_func *f, ovta_error *err);
int vta_res_pipe_steps(const vta_plan *p);
bool vta_res_loads_free(const vta_plan *p);
/* Does s contain a call of callee ("ovta.gemm", "ovta.dma_load"; insert_deps.c)? */
bool vta_stmt_calls(const lir_stmt *s, const char *callee);

#endif
