/* run.c: compiling an accelerator operator through every stage, executing its host IR
 * against the runtime (shims ovta_vrt_*), dry-run counts, and the graph compile report. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"


struct vta_kernel {
  vta_plan plan;
  lir_func *host;     /* the host-stage IR (kept for the walker and for adding to modules) */
  uint64_t uid;
  lir_jit *jit;       /* the host function compiled through LLVM (NULL: not compiled) */
  lir_kernel_fn fn;   /* its entry point */
};

/* ---------------------------------------------------------------- host IR walker */

typedef struct walk {
  const lir_func *f;
  int64_t *vars;
  vta_rt_ctx *c;
  ovta_error *err;
} walk;

static int w_fail(walk *w, const char *what) {
  return OVTA_FAIL(w->err, OVTA_EINTERNAL, "%s: host IR walker: %s", w->f->name, what);
}

static int w_expr(walk *w, const lir_expr *e, int64_t *out);

static int w_call(walk *w, const lir_expr *e, int64_t *out) {
  int64_t a[12] = {0};
  if (e->op != LIR_OPAQUE || !e->callee || e->nargs > 12) return w_fail(w, "a non-runtime call in host code");
  for (int i = 0; i < e->nargs; i++) {
    int rc = w_expr(w, e->args[i], &a[i]);
    if (rc) return rc;
  }
  const char *n = e->callee;
  if (strncmp(n, "ovta_vrt_", 9)) return w_fail(w, "a call that is not a runtime call");
  n += 9;
  int32_t r;
  if (!strcmp(n, "load")) r = ovta_vrt_load(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]);
  else if (!strcmp(n, "store")) r = ovta_vrt_store(a[0], a[1], a[2], a[3], a[4], a[5]);
  else if (!strcmp(n, "dep_push")) r = ovta_vrt_dep_push(a[0], a[1]);
  else if (!strcmp(n, "dep_pop")) r = ovta_vrt_dep_pop(a[0], a[1]);
  else if (!strcmp(n, "kernel_begin")) r = ovta_vrt_kernel_begin(a[0]);
  else if (!strcmp(n, "loop_begin")) r = ovta_vrt_loop_begin(a[0], a[1], a[2], a[3]);
  else if (!strcmp(n, "loop_end")) r = ovta_vrt_loop_end();
  else if (!strcmp(n, "uop")) r = ovta_vrt_uop(a[0], a[1], a[2]);
  else if (!strcmp(n, "gemm")) r = ovta_vrt_gemm(a[0]);
  else if (!strcmp(n, "alu")) r = ovta_vrt_alu(a[0], a[1], a[2]);
  else if (!strcmp(n, "kernel_end")) r = ovta_vrt_kernel_end();
  else return w_fail(w, "unknown runtime call");
  if (w->c->rc) {
    *w->err = w->c->err;
    return w->c->rc;
  }
  *out = r;
  return 0;
}

static int w_expr(walk *w, const lir_expr *e, int64_t *out) {
  int64_t a = 0, b = 0;
  int rc;
  switch (e->kind) {
  case LIR_E_INT: *out = e->ival; return 0;
  case LIR_E_VAR: *out = w->vars[e->var->id]; return 0;
  case LIR_E_CAST: return w_expr(w, e->args[0], out);
  case LIR_E_CALL: return w_call(w, e, out);
  case LIR_E_BIN:
    if ((rc = w_expr(w, e->args[0], &a)) || (rc = w_expr(w, e->args[1], &b))) return rc;
    switch (e->op) {
    case LIR_ADD: *out = a + b; return 0;
    case LIR_SUB: *out = a - b; return 0;
    case LIR_MUL: *out = a * b; return 0;
    case LIR_MIN: *out = a < b ? a : b; return 0;
    case LIR_MAX: *out = a > b ? a : b; return 0;
    case LIR_EQ: *out = a == b; return 0;
    case LIR_NE: *out = a != b; return 0;
    case LIR_LT: *out = a < b; return 0;
    case LIR_GE: *out = a >= b; return 0;
    case LIR_DIV:
    case LIR_MOD:
    case LIR_FLOORDIV:
    case LIR_FLOORMOD:
      if (b <= 0) return w_fail(w, "division by a non-positive value");
      if (e->op == LIR_DIV) *out = a / b;
      else if (e->op == LIR_MOD) *out = a % b;
      else if (e->op == LIR_FLOORDIV) *out = a >= 0 ? a / b : -((-a + b - 1) / b);
      else *out = ((a % b) + b) % b;
      return 0;
    default: return w_fail(w, "unsupported binary operator");
    }
  default: return w_fail(w, "unsupported expression");
  }
}

static int w_stmt(walk *w, const lir_stmt *s) {
  int rc = 0;
  int64_t v, n;
  if (!s) return 0;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n && !rc; i++) rc = w_stmt(w, s->stmts[i]);
    return rc;
  case LIR_S_FOR:
    if ((rc = w_expr(w, s->min, &v)) || (rc = w_expr(w, s->extent, &n))) return rc;
    for (int64_t i = 0; i < n && !rc; i++) {
      w->vars[s->var->id] = v + i;
      rc = w_stmt(w, s->body);
    }
    return rc;
  case LIR_S_LET:
    if ((rc = w_expr(w, s->value, &v))) return rc;
    w->vars[s->var->id] = v;
    return w_stmt(w, s->body);
  case LIR_S_IF:
    if ((rc = w_expr(w, s->value, &v))) return rc;
    return w_stmt(w, v ? s->body : s->else_body);
  case LIR_S_ATTR:
  case LIR_S_ALLOC: return w_stmt(w, s->body);
  case LIR_S_EVAL: return w_expr(w, s->value, &v);
  default: return w_fail(w, "a statement that is not host code");
  }
}

static int walk_host(const lir_func *f, vta_rt_ctx *c, ovta_error *err) {
  walk w = {.f = f, .c = c, .err = err};
  w.vars = calloc((size_t)f->nvars + 1, sizeof *w.vars);
  if (!w.vars) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", f->name);
  vta_rt_ctx *saved = ovta_vrt_ctx_get();
  vta_rt_ctx_set(c);
  int rc = w_stmt(&w, f->body);
  vta_rt_ctx_set(saved);
  free(w.vars);
  return rc;
}

/* ---------------------------------------------------------------- compile, run, count */

int vta_compile(const vta_plan *p, const char *print_after, FILE *dump, vta_kernel **out, ovta_error *err) {
  vta_compile_opts o = {.print_after = print_after, .dump = dump};
  return vta_compile_ex(p, &o, out, err);
}

int vta_compile_ex(const vta_plan *p, const vta_compile_opts *o, vta_kernel **out, ovta_error *err) {
  static uint64_t next_uid = 1;
  *out = NULL;
  vta_compile_opts dflt = {0};
  if (!o) o = &dflt;
  vta_kernel *k = calloc(1, sizeof *k);
  if (!k) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", p->op.name);
  k->plan = *p;
  k->uid = __atomic_fetch_add(&next_uid, 1, __ATOMIC_RELAXED);
  char fname[128];
  snprintf(fname, sizeof fname, "%s", o->symbol ? o->symbol : "");
  if (!o->symbol) snprintf(fname, sizeof fname, "vta_%s", p->op.name);
  for (char *q = fname; *q; q++)
    if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'))) *q = '_';
  vta_lower_opts lo = {.fname = fname, .uid = k->uid, .last = VTA_S_HOST, .print_after = o->print_after, .dump = o->dump};
  int rc = vta_lower_run(p, &lo, &k->host, err);
  if (rc) {
    vta_kernel_free(k);
    return rc;
  }
  if (!o->no_jit) {
    rc = vta_kernel_jit(k, o->cg, err);
    if (rc) {
      vta_kernel_free(k);
      return rc;
    }
  }
  *out = k;
  return OVTA_OK;
}

/* The runtime shims by name, for the JIT. */
static const char *const RT_NAMES[] = {"ovta_vrt_load",      "ovta_vrt_store",    "ovta_vrt_dep_push",
                                       "ovta_vrt_dep_pop",   "ovta_vrt_kernel_begin", "ovta_vrt_loop_begin",
                                       "ovta_vrt_loop_end",  "ovta_vrt_uop",      "ovta_vrt_gemm",
                                       "ovta_vrt_alu",       "ovta_vrt_kernel_end"};
static void *const RT_ADDRS[] = {(void *)ovta_vrt_load,      (void *)ovta_vrt_store,    (void *)ovta_vrt_dep_push,
                                 (void *)ovta_vrt_dep_pop,   (void *)ovta_vrt_kernel_begin, (void *)ovta_vrt_loop_begin,
                                 (void *)ovta_vrt_loop_end,  (void *)ovta_vrt_uop,      (void *)ovta_vrt_gemm,
                                 (void *)ovta_vrt_alu,       (void *)ovta_vrt_kernel_end};

int vta_jit_define_runtime(lir_jit *j, ovta_error *err) {
  return lir_jit_define_symbols(j, (int)(sizeof RT_NAMES / sizeof RT_NAMES[0]), RT_NAMES, RT_ADDRS, err);
}

int vta_kernel_module_add(const vta_kernel *k, lir_module *m, ovta_error *err) {
  int rc = lir_module_add(m, k->host, err);
  if (rc) ovta_error_wrap(err, "%s: host code", k->plan.op.name);
  return rc;
}

int vta_kernel_jit(vta_kernel *k, const lir_codegen_opts *cg, ovta_error *err) {
  if (k->fn) return OVTA_OK;
  lir_module *m = NULL;
  lir_jit *j = NULL;
  void *fp = NULL;
  int rc = lir_module_new(k->host->name, cg, &m, err);
  if (!rc) rc = vta_kernel_module_add(k, m, err);
  if (!rc) rc = lir_module_optimize(m, err);
  if (!rc) rc = lir_jit_new(&j, err);
  if (!rc) rc = vta_jit_define_runtime(j, err);
  if (!rc) rc = lir_jit_add_module(j, m, err);
  if (!rc) rc = lir_jit_lookup(j, k->host->name, &fp, err);
  lir_module_free(m);
  if (rc) {
    lir_jit_free(j);
    return rc;
  }
  k->jit = j;
  k->fn = (lir_kernel_fn)fp;
  return OVTA_OK;
}

bool vta_kernel_has_jit(const vta_kernel *k) { return k->fn != NULL; }

int vta_host_call(lir_kernel_fn fn, const char *name, vta_rt_ctx *c, ovta_error *err) {
  return ovta_vrt_call(fn, name, c, err);
}

void vta_kernel_free(vta_kernel *k) {
  if (!k) return;
  lir_jit_free(k->jit);
  lir_func_free(k->host);
  free(k);
}
const lir_func *vta_kernel_host(const vta_kernel *k) { return k->host; }
const vta_plan *vta_kernel_plan(const vta_kernel *k) { return &k->plan; }

static vta_host_mode pick(const vta_kernel *k, vta_host_mode m) {
  return m == VTA_HOST_DEFAULT ? (k->fn ? VTA_HOST_LLVM : VTA_HOST_WALK) : m;
}

static int run_host(const vta_kernel *k, vta_rt_ctx *c, vta_host_mode mode, ovta_error *err) {
  mode = pick(k, mode);
  if (mode == VTA_HOST_LLVM) {
    if (!k->fn) return OVTA_FAIL(err, OVTA_EINVAL, "%s: host code not compiled through LLVM", k->plan.op.name);
    return vta_host_call(k->fn, k->plan.op.name, c, err);
  }
  return walk_host(k->host, c, err);
}

int vta_kernel_count(const vta_kernel *k, vta_counts *cnt, ovta_error *err) {
  return vta_kernel_count_mode(k, cnt, VTA_HOST_DEFAULT, err);
}

int vta_kernel_count_mode(const vta_kernel *k, vta_counts *cnt, vta_host_mode mode, ovta_error *err) {
  memset(cnt, 0, sizeof *cnt);
  vta_rt_ctx c = {.cfg = &k->plan.cfg, .counts = cnt};
  int rc = run_host(k, &c, mode, err);
  free(c.seen);
  cnt->insns = cnt->insns_load + cnt->insns_store + cnt->insns_gemm + cnt->insns_alu + cnt->insns_acc_load;
  return rc;
}

int vta_kernel_issue(vta_kernel *k, ovta_rt *rt, ovta_buf *const bufs[VTA_BUF_COUNT], ovta_error *err) {
  return vta_kernel_issue_mode(k, rt, bufs, VTA_HOST_DEFAULT, err);
}

int vta_kernel_issue_mode(vta_kernel *k, ovta_rt *rt, ovta_buf *const bufs[VTA_BUF_COUNT], vta_host_mode mode,
                          ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no runtime queue", k->plan.op.name);
  vta_rt_ctx c = {.rt = rt, .cfg = &k->plan.cfg};
  for (int i = 0; i < VTA_BUF_COUNT; i++) c.bufs[i] = bufs[i];
  if (!bufs[VTA_BUF_X] || !bufs[VTA_BUF_W] || !bufs[VTA_BUF_Y] || (k->plan.op.has_bias && !bufs[VTA_BUF_BIAS]) ||
      (k->plan.op.res && (!bufs[VTA_BUF_R] || !bufs[VTA_BUF_ID])))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: a buffer (x, w, y, bias, r or ident) is missing", k->plan.op.name);
  int rc = run_host(k, &c, mode, err);
  if (rc && pick(k, mode) == VTA_HOST_WALK) ovta_error_wrap(err, "%s", k->plan.op.name);
  return rc;
}

/* ---------------------------------------------------------------- graph */

/* ovta.QAdd / ovta.QMaxPool / ovta.QGlobalAvgPool on packed int8 activations -> the ALU operators
 * (accel/alu.c). */
static int alu_op_from_node(const ovta_node *n, const ovta_config *cfg, vta_op *op, ovta_error *err) {
  bool add = !strcmp(n->op, "ovta.QAdd");
  const ovta_tensor *x = ovta_node_in(n, 0), *b = add ? ovta_node_in(n, 1) : NULL;
  const ovta_tensor *y = n->n_outputs > 0 ? n->outputs[0] : NULL;
  if (!x || !y || (add && !b)) return OVTA_FAIL(err, OVTA_EINVAL, "%s (%s): missing input or output", n->name, n->op);
  const ovta_tensor *ts[3] = {x, y, b};
  for (int k = 0; k < 3; k++) {
    if (!ts[k]) continue;
    if (ts[k]->dtype != OVTA_DT_I8)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): needs int8 inputs and output", n->name, n->op);
    if (ts[k]->layout != OVTA_LAYOUT_ACT || ts[k]->rank != 6)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): tensors not in the packed act layout (run pass pack)", n->name,
                       n->op);
    if (ts[k]->shape[4] != cfg->batch || ts[k]->shape[5] != cfg->block_in)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): packed for another config", n->name, n->op);
  }
  int64_t N = x->shape[0] * cfg->batch, C = x->shape[1] * cfg->block_in, H = x->shape[2], W = x->shape[3];
  if (N > 65536 || C > 65536 || H > 65535 || W > 65535 || y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1])
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): too large or output blocks differ from the input's", n->name, n->op);
  if (add) {
    if (memcmp(b->shape, x->shape, sizeof x->shape) || y->shape[2] != H || y->shape[3] != W)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): inputs and output differ in shape", n->name, n->op);
    vta_op_add(op, n->name, (int)N, (int)C, (int)H, (int)W, (int)ovta_node_attr_i(n, "shift_a", 0),
               (int)ovta_node_attr_i(n, "shift_b", 0), (int)ovta_node_attr_i(n, "shift", 0));
    op->clip_min = (int)ovta_node_attr_i(n, "clip_min", -128);
    op->clip_max = (int)ovta_node_attr_i(n, "clip_max", 127);
    return OVTA_OK;
  }
  if (!strcmp(n->op, "ovta.QGlobalAvgPool")) {
    if (y->shape[2] != 1 || y->shape[3] != 1)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): output is not 1x1", n->name, n->op);
    int64_t m = ovta_node_attr_i(n, "mult", 1), s = ovta_node_attr_i(n, "shift", 0);
    if (m < 1 || m > 32767 || s < 0 || s > 30)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): mult %lld / shift %lld outside 1..32767 / 0..30", n->name,
                       n->op, (long long)m, (long long)s);
    vta_op_gap(op, n->name, (int)N, (int)C, (int)H, (int)W, (int)m, (int)s);
    op->clip_min = (int)ovta_node_attr_i(n, "clip_min", -127);
    op->clip_max = (int)ovta_node_attr_i(n, "clip_max", 127);
    return OVTA_OK;
  }
  const ovta_attr *k = ovta_node_attr(n, "kernel_shape"), *s = ovta_node_attr(n, "strides"), *pd = ovta_node_attr(n, "pads"),
                  *d = ovta_node_attr(n, "dilations");
  if (!k || k->type != OVTA_ATTR_INTS || k->n != 2 || k->ints[0] < 1 || k->ints[1] < 1 || k->ints[0] > 64 || k->ints[1] > 64)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): needs a 2-D kernel_shape of 1..64", n->name, n->op);
  if (d && (d->n != 2 || d->ints[0] != 1 || d->ints[1] != 1))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): dilation", n->name, n->op);
  vta_op_maxpool(op, n->name, (int)N, (int)C, (int)H, (int)W, 1, 1, 0);
  op->kh = (int)k->ints[0], op->kw = (int)k->ints[1];
  if (s && s->n == 2) {
    if (s->ints[0] < 1 || s->ints[1] < 1 || s->ints[0] > 64 || s->ints[1] > 64)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): strides outside 1..64", n->name, n->op);
    op->stride_h = (int)s->ints[0], op->stride_w = (int)s->ints[1];
  }
  if (pd && pd->n == 4) {
    for (int q = 0; q < 4; q++)
      if (pd->ints[q] < 0 || pd->ints[q] > 64) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): pads outside 0..64", n->name, n->op);
    op->pad_t = (int)pd->ints[0], op->pad_l = (int)pd->ints[1], op->pad_b = (int)pd->ints[2], op->pad_r = (int)pd->ints[3];
  }
  if (vta_op_out_h(op) != y->shape[2] || vta_op_out_w(op) != y->shape[3])
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): output %lldx%lld is not the floor-mode window count", n->name,
                     n->op, (long long)y->shape[2], (long long)y->shape[3]);
  return OVTA_OK;
}

/* A Resize on packed int8 activations (pass pack's packable_resize) -> VTA_UPSAMPLE, the factors
 * from the node on the input's logical NCHW shape (ovta_resize_nearest_factors). */
static int upsample_op_from_node(const ovta_node *n, const ovta_config *cfg, vta_op *op, ovta_error *err) {
  const ovta_tensor *x = ovta_node_in(n, 0), *y = n->n_outputs > 0 ? n->outputs[0] : NULL;
  if (!x || !y) return OVTA_FAIL(err, OVTA_EINVAL, "%s (%s): missing input or output", n->name, n->op);
  if (x->dtype != OVTA_DT_I8 || y->dtype != OVTA_DT_I8 || x->layout != OVTA_LAYOUT_ACT || y->layout != OVTA_LAYOUT_ACT ||
      x->rank != 6 || y->rank != 6 || x->logical_rank != 4)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): needs packed int8 NCHW tensors (run pass pack)", n->name, n->op);
  if (x->shape[4] != cfg->batch || x->shape[5] != cfg->block_in || y->shape[4] != cfg->batch || y->shape[5] != cfg->block_in)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): packed for another config", n->name, n->op);
  ovta_tensor xl = *x; /* the logical view the Resize rule reads */
  xl.rank = 4, xl.layout = OVTA_LAYOUT_PLAIN;
  memcpy(xl.shape, x->logical, sizeof xl.shape);
  int64_t f[2];
  char why[256];
  if (!ovta_resize_nearest_factors(n, &xl, f, why, sizeof why))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): %s", n->name, n->op, why);
  int64_t N = x->shape[0] * cfg->batch, C = x->shape[1] * cfg->block_in, H = x->shape[2], W = x->shape[3];
  if (N > 65536 || C > 65536 || H > 65535 || W > 65535 || y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1] ||
      y->shape[2] != H * f[0] || y->shape[3] != W * f[1])
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): too large or the output is not the upsampled input", n->name, n->op);
  vta_op_upsample(op, n->name, (int)N, (int)C, (int)H, (int)W, (int)f[0], (int)f[1]);
  return OVTA_OK;
}

int vta_op_from_node(const ovta_graph *g, const ovta_node *n, const ovta_config *cfg, vta_op *op, ovta_error *err) {
  (void)g;
  if (!strcmp(n->op, "Resize")) return upsample_op_from_node(n, cfg, op, err);
  if (!strcmp(n->op, "ovta.QAdd") || !strcmp(n->op, "ovta.QMaxPool") || !strcmp(n->op, "ovta.QGlobalAvgPool"))
    return alu_op_from_node(n, cfg, op, err);
  bool conv = !strcmp(n->op, "ovta.QConv"), dense = !strcmp(n->op, "ovta.QDense");
  if (!conv && !dense) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): not an accelerator operator", n->name, n->op);
  const ovta_tensor *x = ovta_node_in(n, 0), *w = ovta_node_in(n, 1), *b = ovta_node_in(n, 2);
  const ovta_tensor *y = n->n_outputs > 0 ? n->outputs[0] : NULL;
  if (!x || !w || !y) return OVTA_FAIL(err, OVTA_EINVAL, "%s (%s): missing input or output", n->name, n->op);
  if (x->dtype != OVTA_DT_I8 || w->dtype != OVTA_DT_I8 || y->dtype != OVTA_DT_I8 || (b && b->dtype != OVTA_DT_I32))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): needs int8 x, w, y and int32 bias", n->name, n->op);
  int64_t grp = conv ? ovta_node_attr_i(n, "group", 1) : 1, gk0, gs0;
  if (grp != 1 && x->layout == OVTA_LAYOUT_PLAIN && x->rank == 4 && y->rank == 4 && grp > 0 &&
      !ovta_group_blocks(x->shape[1], y->shape[1], grp, cfg->block_in, cfg->block_out, &gk0, &gs0))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): group %lld: channels per group do not align with the blocks",
                     n->name, n->op, (long long)grp); /* pack left it plain: say why */
  if (x->layout != OVTA_LAYOUT_ACT || w->layout != OVTA_LAYOUT_WGT || x->rank != 6 || w->rank != 6)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): inputs not in the packed layouts (run pass pack)", n->name,
                     n->op);
  if (x->shape[4] != cfg->batch || x->shape[5] != cfg->block_in || w->shape[4] != cfg->block_out ||
      w->shape[5] != cfg->block_in)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): packed for another config", n->name, n->op);
  int64_t N = x->shape[0] * cfg->batch, C = x->shape[1] * cfg->block_in, O = w->shape[0] * cfg->block_out;
  if (N > 65536 || C > 65536 || O > 65536 || x->shape[2] > 65535 || x->shape[3] > 65535)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): too large", n->name, n->op);
  if (conv) {
    vta_op_conv(op, n->name, (int)N, (int)C, (int)x->shape[2], (int)x->shape[3], (int)O, 1, 1, 0);
    op->kh = (int)w->shape[2], op->kw = (int)w->shape[3];
    const ovta_attr *s = ovta_node_attr(n, "strides"), *pd = ovta_node_attr(n, "pads"), *d = ovta_node_attr(n, "dilations");
    /* channels padded to the blocks: the grouped conv with G' groups, the extra ones all zero
     * (ovta_group_padded of the logical channel counts; the packed bias and weights are zero there) */
    int64_t G = ovta_node_attr_i(n, "group", 1), gk, gs;
    int64_t cl = x->logical_rank == 4 ? x->logical[1] : C, ol = y->logical_rank == 4 ? y->logical[1] : O;
    int64_t Gp = G == 1 ? 1 : ovta_group_padded(cl, ol, G, cfg->block_in, cfg->block_out);
    if (Gp < 1 || Gp > C || !ovta_group_blocks(C, O, Gp, cfg->block_in, cfg->block_out, &gk, &gs))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): group %lld: channels per group do not align with the blocks",
                       n->name, n->op, (long long)G);
    if (w->shape[1] != gk)
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): weights packed for another grouping", n->name, n->op);
    op->groups = (int)Gp;
    if (d && d->n == 2 && (d->ints[0] != 1 || d->ints[1] != 1))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): dilation", n->name, n->op);
    if (s && s->n == 2) op->stride_h = (int)s->ints[0], op->stride_w = (int)s->ints[1];
    if (pd && pd->n == 4)
      op->pad_t = (int)pd->ints[0], op->pad_l = (int)pd->ints[1], op->pad_b = (int)pd->ints[2], op->pad_r = (int)pd->ints[3];
  } else {
    vta_op_dense(op, n->name, (int)N, (int)C, (int)O);
  }
  const ovta_attr *shs = ovta_node_attr(n, "shifts");
  int64_t ol = y->logical_rank == 4 || y->logical_rank == 2 ? y->logical[1] : O; /* the logical channels (O: padded) */
  if (shs && (shs->type != OVTA_ATTR_INTS || (shs->n != O && shs->n != ol)))
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): shifts: not one per output channel (%lld)", n->name, n->op,
                     (long long)ol);
  op->shifts = shs ? shs->ints : NULL; /* the node's attribute: the graph outlives the plan's packing */
  op->n_shifts = shs ? shs->n : 0;
  op->has_bias = b != NULL;
  op->shift = (int)ovta_node_attr_i(n, "shift", 0);
  op->clip_min = (int)ovta_node_attr_i(n, "clip_min", -128);
  op->clip_max = (int)ovta_node_attr_i(n, "clip_max", 127);
  return OVTA_OK;
}

int vta_graph_report(const ovta_graph *g, const ovta_config *cfg, const char *tuning_json, int vt, FILE *out,
                     ovta_error *err) {
  int n_acc = 0, n_cpu = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    const ovta_node *n = g->nodes[i];
    vta_op op;
    vta_knobs k = {.vthreads = vt};
    vta_plan p;
    vta_kernel *kern = NULL;
    vta_counts c;
    ovta_error e = {0};
    int rc = vta_op_from_node(g, n, cfg, &op, &e);
    if (!rc && tuning_json) rc = vta_knobs_from_json(tuning_json, "tuning", n->name, &k, &e);
    if (!rc) rc = vta_plan_make(cfg, &op, &k, &p, &e);
    vta_compile_opts co = {.no_jit = true};
    if (!rc) rc = vta_compile_ex(&p, &co, &kern, &e);
    if (!rc) rc = vta_kernel_count(kern, &c, &e);
    vta_kernel_free(kern);
    if (rc == OVTA_ENOMEM || rc == OVTA_EINTERNAL || rc == OVTA_EPARSE) {
      if (err) *err = e;
      return rc;
    }
    if (rc) {
      fprintf(out, "node %s op %s: cpu: %s\n", n->name, n->op, e.msg);
      n_cpu++;
      continue;
    }
    char ps[256];
    vta_plan_str(&p, ps, sizeof ps);
    fprintf(out,
            "node %s op %s: accel: %s; insns %" PRIu64 " (load %" PRIu64 ", acc-load %" PRIu64 ", gemm %" PRIu64
            ", alu %" PRIu64 ", store %" PRIu64 "), kernels %" PRIu64 ", uops recorded %" PRIu64 ", gemm uops %" PRIu64
            ", alu uops %" PRIu64 "\n",
            n->name, n->op, ps, c.insns, c.insns_load, c.insns_acc_load, c.insns_gemm, c.insns_alu, c.insns_store,
            c.kernels, c.uops_recorded, c.gemm_uops, c.alu_uops);
    n_acc++;
  }
  fprintf(out, "summary: %d node(s) on the accelerator, %d on the cpu\n", n_acc, n_cpu);
  return OVTA_OK;
}
