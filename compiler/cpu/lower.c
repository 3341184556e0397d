/* lower.c: graph operators -> loop IR for the CPU (cpu.h): the parameters of a node's function,
 * the lookup of its operator in the families' tables (one file per family, cpu_internal.h), the
 * verifier. Adding an operator: its function with the ONNX rule above it in its family's file and
 * one row in that file's table (compiler/cpu/README.md). */
#include "cpu_internal.h"

lir_dtype lir_from_ovta_dtype(ovta_dtype t) {
  switch (t) {
  case OVTA_DT_F32: return LIR_F32;
  case OVTA_DT_F64: return LIR_F64;
  case OVTA_DT_F16: return LIR_F16;
  case OVTA_DT_U8: return LIR_U8;
  case OVTA_DT_I8: return LIR_I8;
  case OVTA_DT_U16: return LIR_U16;
  case OVTA_DT_I16: return LIR_I16;
  case OVTA_DT_I32: return LIR_I32;
  case OVTA_DT_U32: return LIR_U32;
  case OVTA_DT_I64: return LIR_I64;
  case OVTA_DT_U64: return LIR_U64;
  case OVTA_DT_BOOL: return LIR_U8;
  case OVTA_DT_BF16: return LIR_U16; /* its bits: Cast/CastLike only (inference refuses it elsewhere) */
  default: return LIR_VOID;
  }
}

/* ---------------------------------------------------------------- parallel nests */

#define CPU_PAR_ELEMS 32768 /* a nest of at least this many iterations runs in parallel */
#define PAR_ITERS 8         /* ... over at least this many iterations of its outer loops */
#define PAR_BLOCK 4096      /* a split innermost loop: iterations per parallel block (at least) */

lir_stmt *cpu_par_outer(L *l, lir_nest *n, lir_stmt *body, lir_for_kind innermost, int64_t work) {
  int last = n->n - 1, par = -1;
  int64_t outer = 1;
  for (int i = 0; i < last && par < 0; i++)
    if ((outer *= n->ext[i]) >= PAR_ITERS) par = i;
  if (work < CPU_PAR_ELEMS || par < 0) return NULL;
  for (int i = last; i >= 0; i--)
    body = lir_for(F, n->vars[i], I(0), I(n->ext[i]), i == last ? innermost : i == par ? LIR_FOR_PARALLEL : LIR_FOR_SERIAL, body);
  return body;
}


/* A nest of rank >= 3 whose second-last extent h is split (cpu_row_half): one parallel loop over
 * (half, outer index) half-major, each iteration the rows of its half (the last loop
 * vectorized) for one index of the outer loops (their variables let from it). NULL when the nest
 * is not such a map or is smaller than CPU_PAR_ELEMS (MobileNetV2's residual Adds of 25 k
 * elements: 2-5 us serially, 4-7 us split over two threads). */
static lir_stmt *par_rows(L *l, lir_nest *n, lir_stmt *body, int64_t total) {
  int r = n->n;
  if (r < 3 || total < CPU_PAR_ELEMS) return NULL;
  int64_t h = n->ext[r - 2], rh = cpu_row_half(h), outer = total / (h * n->ext[r - 1]);
  if (!rh) return NULL;
  lir_var *hc = lir_var_new(F, "hc", LIR_I64);
  lir_expr *half = lir_bin(F, LIR_DIV, lir_ref(F, hc), I(outer)), *h0 = lir_muli(F, half, rh);
  body = lir_for(F, n->vars[r - 1], I(0), I(n->ext[r - 1]), LIR_FOR_VECTORIZED, body);
  body = lir_for(F, n->vars[r - 2], h0, lir_min(F, I(rh), lir_sub(F, I(h), h0)), LIR_FOR_SERIAL, body);
  int64_t inner = 1; /* the outer variables from o = hc % outer, the last one fastest */
  for (int i = r - 3; i >= 0; i--) {
    lir_expr *o = lir_bin(F, LIR_MOD, lir_ref(F, hc), I(outer));
    lir_expr *v = lir_bin(F, LIR_MOD, inner > 1 ? lir_bin(F, LIR_DIV, o, I(inner)) : o, I(n->ext[i]));
    body = lir_let(F, n->vars[i], v, body);
    inner *= n->ext[i];
  }
  return lir_for(F, hc, I(0), I(2 * outer), LIR_FOR_PARALLEL, body);
}

/* Elementwise nests (over()): small ones serial; maps split in row halves (par_rows) over
 * (half, channel ...) like the convs before and after them; else (a fork and join costs
 * microseconds) the outer loops down to the first whose extents multiply to PAR_ITERS or more, that one parallel
 * (its iterations spread over the threads, each running its inner loops as before); when only
 * the innermost loop is long enough, it is cut into blocks of consecutive iterations: a parallel
 * loop over the blocks, each a vectorized loop. Each iteration computes what it did serially. */
lir_stmt *cpu_par_nest(L *l, lir_nest *n, lir_stmt *body) {
  int64_t total = 1;
  for (int i = 0; i < n->n; i++) total *= n->ext[i];
  lir_stmt *s = par_rows(l, n, body, total);
  if (s) return s;
  if (n->n == 0 || total < CPU_PAR_ELEMS) return lir_nest_close(F, n, body, LIR_FOR_VECTORIZED);
  s = cpu_par_outer(l, n, body, LIR_FOR_VECTORIZED, total);
  if (s) return s;
  int last = n->n - 1;
  /* the innermost loop in blocks of bs (a multiple of 64), the outer ones (few) serial */
  int64_t e = n->ext[last], bs = (e / 32 + 63) / 64 * 64;
  if (bs < PAR_BLOCK) bs = PAR_BLOCK;
  lir_var *b = lir_var_new(F, "blk", LIR_I64);
  lir_expr *lo = lir_muli(F, lir_ref(F, b), bs);
  body = lir_for(F, n->vars[last], lo, lir_min(F, I(bs), lir_sub(F, I(e), lo)), LIR_FOR_VECTORIZED, body);
  body = lir_for(F, b, I(0), I((e + bs - 1) / bs), LIR_FOR_PARALLEL, body);
  for (int i = last - 1; i >= 0; i--) body = lir_for(F, n->vars[i], I(0), I(n->ext[i]), LIR_FOR_SERIAL, body);
  return body;
}

/* ---------------------------------------------------------------- dispatch */

static const cpu_rule *const FAMILIES[] = {cpu_rules_elementwise, cpu_rules_quant, cpu_rules_matmul, cpu_rules_conv,
                                           cpu_rules_pool, cpu_rules_norm, cpu_rules_data, cpu_rules_logic,
                                           cpu_rules_index, cpu_rules_resize, cpu_rules_reduce,
                                           cpu_rules_rnn, cpu_rules_signal, cpu_rules_sample};

/* The rule of op, or NULL. */
static const cpu_rule *rule_of(const char *op) {
  for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
    for (const cpu_rule *r = FAMILIES[f]; r->op; r++)
      if (strcmp(op, r->op) == 0) return r;
  return NULL;
}

bool lir_lower_supported(const char *op) { return rule_of(op) != NULL; }

/* A parameter for a tensor: its dtype and static shape. */
static int param_for(L *l, const ovta_tensor *t, const char *role, lir_buf **out, bool f32) {
  lir_dtype dt = f32 ? LIR_F32 : lir_from_ovta_dtype(t->dtype);
  if (dt == LIR_VOID)
    return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s has dtype %s", l->n->name, l->n->op, role,
                     t->name, ovta_dtype_name(t->dtype));
  if (t->rank < 0 || t->rank > LIR_MAX_DIMS)
    return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s has unknown rank", l->n->name, l->n->op,
                     role, t->name);
  for (int d = 0; d < t->rank; d++)
    if (t->shape[d] < 0)
      return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s has a dynamic shape", l->n->name,
                       l->n->op, role, t->name);
  if (t->layout != OVTA_LAYOUT_PLAIN)
    return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): %s %s is in a packed layout", l->n->name,
                     l->n->op, role, t->name);
  *out = lir_param(l->f, t->name, dt, t->rank, t->shape);
  return 0;
}

int cpu_no_f32w(L *l) {
  return OVTA_FAIL(l->err, OVTA_EUNSUPPORTED, "node %s (%s): its schedule does not read f32 weights", l->n->name, l->n->op);
}

/* lir_lower_node, and lir_lower_node_f32w (f32w: input 1, 8-bit, passed as f32). */
static int lower_node(const ovta_graph *g, const ovta_node *n, const char *fname, bool f32w, int vec_bits, lir_lower_opts *o,
                      lir_func **out, ovta_error *err) {
  *out = NULL;
  L l0 = {0}, *l = &l0;
  l->g = g;
  l->vec_bits = o ? o->vec_bits : vec_bits;
  if (o) {
    l->hm_in = o->half_in, l->hm_out = o->half_out, l->halo_in = o->halo_in & o->half_in, l->halo_out = o->halo_out & o->half_out;
    o->can_in = o->can_out = o->can_halo_in = o->can_halo_out = o->gain_halo_in = 0;
  }
  l->n = n;
  l->err = err;
  if (f32w) {
    const ovta_tensor *w = n->n_inputs > 1 ? n->inputs[1] : NULL;
    if ((strcmp(n->op, "ovta.QConv") && strcmp(n->op, "ConvInteger")) || !w || (w->dtype != OVTA_DT_I8 && w->dtype != OVTA_DT_U8))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): no 8-bit conv weights to pass as f32", n->name, n->op);
    l->w8 = lir_from_ovta_dtype(w->dtype);
  }
  if (n->n_inputs > MAXIO || n->n_outputs > MAXOUT)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): too many inputs or outputs", n->name, n->op);
  if (!lir_lower_supported(n->op))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): operator not supported on the CPU path", n->name, n->op);
  l->f = lir_func_new(fname);
  if (!l->f) return OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
  int rc = 0;
  for (int i = 0; i < n->n_inputs && !rc; i++)
    if ((l->tin[i] = n->inputs[i])) rc = param_for(l, n->inputs[i], "input", &l->in[i], i == 1 && f32w);
  for (int i = 0; i < n->n_outputs && !rc; i++)
    if ((l->tout[i] = n->outputs[i])) rc = param_for(l, n->outputs[i], "output", &l->out[i], false);
  /* f16 (computed in f32 per operation, rounded to f16): the elementwise and logic families only */
  bool elementwise = false;
  for (const cpu_rule *r = cpu_rules_elementwise; r->op && !elementwise; r++) elementwise = !strcmp(r->op, n->op);
  for (const cpu_rule *r = cpu_rules_logic; r->op && !elementwise; r++) elementwise = !strcmp(r->op, n->op);
  for (int i = 0; i < l->f->nparams && !rc && !elementwise; i++)
    if (l->f->params[i]->dtype == LIR_F16)
      rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "node %s (%s): f16 tensor %s (f16 is computed by the elementwise operators only)",
                     n->name, n->op, l->f->params[i]->name);
  if (!rc) rc = rule_of(n->op)->lower(l);
  if (!rc) {
    rc = lir_verify(l->f, true, err);
    if (rc) ovta_error_wrap(err, "lowering node %s (%s)", n->name, n->op);
  }
  if (!rc && ((l->hm_in & ~l->can_in) || (l->hm_out & ~l->can_out) || (l->halo_in & ~l->can_halo_in) ||
              (l->halo_out & ~l->can_halo_out)))
    rc = OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): a half-major tensor its schedule cannot take", n->name, n->op);
  if (rc) {
    lir_func_free(l->f);
    return rc;
  }
  if (o) {
    o->can_in = l->can_in, o->can_out = l->can_out;
    o->can_halo_in = l->can_halo_in & l->can_in, o->can_halo_out = l->can_halo_out & l->can_out;
    o->gain_halo_in = l->gain_halo_in & o->can_halo_in;
  }
  *out = l->f;
  return 0;
}

int64_t lir_half_major_numel(const ovta_tensor *t) {
  int64_t n = ovta_tensor_numel(t);
  if (t->rank != 4 || n <= 0 || !cpu_pos_half(t->shape[2], t->shape[3])) return n;
  hm_lay m = hm_layout(t->shape[1], t->shape[2], t->shape[3], true);
  return t->shape[0] * hm_image(&m);
}

int lir_lower_node(const ovta_graph *g, const ovta_node *n, const char *fname, lir_func **out, ovta_error *err) {
  return lower_node(g, n, fname, false, 0, NULL, out, err);
}

int lir_lower_node_opts(const ovta_graph *g, const ovta_node *n, const char *fname, lir_lower_opts *o, lir_func **out,
                        ovta_error *err) {
  return lower_node(g, n, fname, false, 0, o, out, err);
}

int lir_lower_node_f32w(const ovta_graph *g, const ovta_node *n, const char *fname, int vec_bits, lir_func **out,
                        ovta_error *err) {
  return lower_node(g, n, fname, true, vec_bits, NULL, out, err);
}
