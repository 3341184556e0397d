/* ir.c: accelerator-specific IR helpers (see accel_internal.h). */
#include "accel_internal.h"

const char *const vta_alu_intrin[OVTA_ALU_COUNT] = {"ovta.alu_min", "ovta.alu_max", "ovta.alu_add", "ovta.alu_shr",
                                                    "ovta.alu_mul", "ovta.alu_mov", "ovta.alu_clp", "ovta.alu_rq"};

lir_expr *vta_block_ref(lir_func *f, lir_buf *b, int n, lir_expr *const *idx) {
  lir_expr *in[LIR_MAX_DIMS];
  for (int i = 0; i < n - 2; i++) in[i] = idx[i];
  in[n - 2] = lir_i64(f, 0), in[n - 1] = lir_i64(f, 0);
  return lir_load(f, b, in);
}

bool vta_lead_uses(int n, lir_expr *const *idx, const lir_var *v) {
  for (int d = 0; d < n - 2; d++)
    if (lir_uses_var(idx[d], v)) return true;
  return false;
}

bool vta_is_clamp(const lir_expr *e, lir_expr **inner, int64_t *lo, int64_t *hi) {
  if (e->kind == LIR_E_BIN && e->op == LIR_MAX && e->args[1]->kind == LIR_E_INT && e->args[0]->kind == LIR_E_BIN &&
      e->args[0]->op == LIR_MIN && e->args[0]->args[1]->kind == LIR_E_INT) {
    *inner = e->args[0]->args[0];
    if (lo) *lo = e->args[1]->ival;
    if (hi) *hi = e->args[0]->args[1]->ival;
    return true;
  }
  return false;
}
