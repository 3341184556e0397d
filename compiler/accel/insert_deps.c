/* insert_deps.c: the insert-deps pass (compiler/accel/README.md "Passes", 7): dependency tokens between
 * the accelerator's load, compute and store modules, inserted into the fold-uops IR at the
 * producer/consumer boundaries it finds there (like TVM's coprocessor-sync injection). */

#include <string.h>

#include "accel_internal.h"

/* Modules a statement issues instructions on (bit OVTA_RT_LOAD / _COMPUTE / _STORE). */
enum { M_L = 1 << OVTA_RT_LOAD, M_C = 1 << OVTA_RT_COMPUTE, M_S = 1 << OVTA_RT_STORE };

typedef struct dctx {
  lir_func *f;
  const vta_plan *p;
  ovta_error *err;
  int vt; /* virtual threads (attr vthreads) */
  int rc; /* the refusal, once made */
  bool chunked; /* the plan's epi_chunks: a token store->compute per chunk (tile_body) */
} dctx;

/* A short name of a statement for errors: the call it makes, the loop variable, the attribute. */
static void stmt_name(const lir_stmt *s, char *buf, size_t n) {
  switch (s->kind) {
  case LIR_S_EVAL:
    if (s->value->kind == LIR_E_CALL && s->value->callee) snprintf(buf, n, "call @%s", s->value->callee);
    else snprintf(buf, n, "an evaluated expression");
    return;
  case LIR_S_FOR: snprintf(buf, n, "loop '%s'", s->var->name); return;
  case LIR_S_ATTR: snprintf(buf, n, "attr %s", s->key); return;
  case LIR_S_IF: snprintf(buf, n, "an if"); return;
  case LIR_S_STORE: snprintf(buf, n, "a store to %s", s->buf->name); return;
  case LIR_S_ALLOC: snprintf(buf, n, "the allocation of %s", s->buf->name); return;
  case LIR_S_LET: snprintf(buf, n, "let %s", s->var->name); return;
  case LIR_S_SEQ: snprintf(buf, n, "a sequence"); return;
  }
  snprintf(buf, n, "a statement");
}

static int refuse(dctx *c, const lir_stmt *s, const char *why) {
  char nm[160];
  stmt_name(s, nm, sizeof nm);
  return c->rc = OVTA_FAIL(c->err, OVTA_EUNSUPPORTED, "insert-deps: %s: %s", nm, why);
}

/* The modules statement s runs on (its leaves: DMA loads by memory type as the runtime routes them,
 * micro-op kernels and their GEMM/ALU pushes, DMA stores); -1 (error set) for a statement that is
 * not of the fold-uops form (SRAM buffer accesses, tokens already there, unknown calls). */
static int modules(dctx *c, const lir_stmt *s) {
  if (!s) return 0;
  switch (s->kind) {
  case LIR_S_SEQ: {
    int m = 0;
    for (int i = 0; i < s->n; i++) {
      int k = modules(c, s->stmts[i]);
      if (k < 0) return k;
      m |= k;
    }
    return m;
  }
  case LIR_S_FOR:
    return modules(c, s->body);
  case LIR_S_IF: {
    int a = modules(c, s->body), b = a < 0 ? a : modules(c, s->else_body);
    return a < 0 ? a : b < 0 ? b : a | b;
  }
  case LIR_S_ATTR:
    if (!strcmp(s->key, "uop_kernel")) return modules(c, s->body) < 0 ? -1 : M_C; /* micro-op recording */
    return modules(c, s->body);
  case LIR_S_EVAL: {
    const lir_expr *e = s->value;
    if (e->kind != LIR_E_CALL || e->op != LIR_OPAQUE || !e->callee) break;
    if (!strcmp(e->callee, "ovta.dma_load")) {
      if (e->nargs < 1 || e->args[0]->kind != LIR_E_INT) {
        refuse(c, s, "the memory type is not a constant");
        return -1;
      }
      int64_t t = e->args[0]->ival;
      if (t != OVTA_MEM_INP && t != OVTA_MEM_WGT && t != OVTA_MEM_ACC && t != OVTA_MEM_UOP) {
        refuse(c, s, "unknown memory type");
        return -1;
      }
      return 1 << ovta_rt_load_stage((ovta_mem_type)t);
    }
    if (!strcmp(e->callee, "ovta.dma_store")) return M_S;
    static const char *const compute[] = {"ovta.uop_loop_begin", "ovta.uop_loop_end", "ovta.uop", "ovta.gemm",
                                          "ovta.alu", "ovta.kernel_end"};
    for (size_t i = 0; i < sizeof compute / sizeof compute[0]; i++)
      if (!strcmp(e->callee, compute[i])) return M_C;
    if (!strcmp(e->callee, "ovta.dep_push") || !strcmp(e->callee, "ovta.dep_pop")) {
      refuse(c, s, "the input already has dependency tokens");
      return -1;
    }
    break;
  }
  default:
    break;
  }
  refuse(c, s, "not a DMA, micro-op kernel or host loop of the fold-uops form");
  return -1;
}

/* The statements of s with nested sequences flattened (their order is the execution order). */
static void flatten(lir_block *b, lir_stmt *s) {
  if (s && s->kind == LIR_S_SEQ) {
    for (int i = 0; i < s->n; i++) flatten(b, s->stmts[i]);
  } else if (s) {
    lir_block_add(b, s);
  }
}

static lir_stmt *dep(dctx *c, bool push, int from, int to) {
  lir_expr *a[2] = {lir_i64(c->f, from), lir_i64(c->f, to)};
  return lir_eval(c->f, lir_opaque(c->f, push ? "ovta.dep_push" : "ovta.dep_pop", LIR_I32, 2, a));
}

/* For vt > 1 a ping-pong body is `attr virtual_thread = floormod(.., vt)`; with one thread there
 * is no attribute. Returns the slot of the body inside (or the slot itself), NULL when the
 * attribute does not match the thread count (error set). */
static lir_stmt **thread_body(dctx *c, lir_stmt **slot, const char *what) {
  lir_stmt *s = *slot;
  bool attr = s->kind == LIR_S_ATTR && !strcmp(s->key, "virtual_thread");
  if (c->vt == 1 && !attr) return slot;
  if (!attr) {
    refuse(c, s, what);
    return NULL;
  }
  const lir_expr *v = s->value;
  if (!(v->kind == LIR_E_BIN && v->op == LIR_FLOORMOD && v->args[1]->kind == LIR_E_INT && v->args[1]->ival == c->vt)) {
    refuse(c, s, "the part is not floormod(.., vthreads)");
    return NULL;
  }
  return &s->body;
}

/* Does every path through s end with a store (nothing after the last store of the tile)? */
static bool ends_with_store(dctx *c, lir_stmt *s) {
  switch (s->kind) {
  case LIR_S_SEQ: return s->n > 0 && ends_with_store(c, s->stmts[s->n - 1]);
  case LIR_S_FOR: case LIR_S_ATTR: return ends_with_store(c, s->body);
  case LIR_S_IF: return s->else_body && ends_with_store(c, s->body) && ends_with_store(c, s->else_body);
  default: return modules(c, s) == M_S;
  }
}

static int store_part(dctx *c, lir_stmt **slot);

/* A list of the requantization-and-store part: a store (store only, with its host loops) gets a
 * compute->store token right before it (pushed by compute, popped by the store), and must follow
 * compute work in the same list (the requantization it waits for); mixed statements (the chunk
 * loop `tq`, the `if` on the last tile) are handled inside. */
static int store_list(dctx *c, lir_stmt **slot) {
  lir_block in, out;
  lir_block_init(&in, c->f);
  lir_block_init(&out, c->f);
  flatten(&in, *slot);
  int prev = 0;
  for (int i = 0; i < in.n; i++) {
    lir_stmt *s = in.s[i];
    int m = modules(c, s);
    if (m < 0) return c->rc;
    if (m == M_S) {
      if (!(prev & M_C)) return refuse(c, s, "a store that follows no requantization in its block");
      lir_block_add(&out, dep(c, true, OVTA_RT_COMPUTE, OVTA_RT_STORE));
      lir_block_add(&out, dep(c, false, OVTA_RT_COMPUTE, OVTA_RT_STORE));
    } else if (m & M_S) {
      int rc = store_part(c, &in.s[i]);
      if (rc) return rc;
      s = in.s[i];
    }
    lir_block_add(&out, s);
    if (m == M_S && c->chunked) lir_block_add(&out, dep(c, true, OVTA_RT_STORE, OVTA_RT_COMPUTE)); /* its chunk is free */
    prev = m;
  }
  *slot = lir_block_stmt(&out);
  return OVTA_OK;
}

/* A statement holding both requantization and stores: a loop (the chunks), an if (the last tile's
 * chunked form against the whole tile), or a sequence. */
static int store_part(dctx *c, lir_stmt **slot) {
  lir_stmt *s = *slot, *n;
  int rc;
  switch (s->kind) {
  case LIR_S_SEQ:
    return store_list(c, slot);
  case LIR_S_FOR:
    n = lir_for(c->f, s->var, s->min, s->extent, s->for_kind, s->body);
    if ((rc = store_list(c, &n->body))) return rc;
    break;
  case LIR_S_IF:
    n = lir_if(c->f, s->value, s->body, s->else_body);
    if ((rc = store_list(c, &n->body))) return rc;
    if (n->else_body && (rc = store_list(c, &n->else_body))) return rc;
    break;
  default:
    return refuse(c, s, "requantization and store in one statement the pass cannot split");
  }
  *slot = n;
  return OVTA_OK;
}

/* A reduction step (the body of the step loop, under its virtual-thread attribute): the INP/WGT
 * loads, then the GEMM kernels. The part is free (pop compute->load) before the loads; the data
 * are handed over (push load->compute after the loads, popped by compute before the GEMMs); the
 * part is handed back after the GEMMs (push compute->load). */
static int step_body(dctx *c, lir_stmt *loop) {
  lir_stmt *b = loop->body;
  if (b->kind == LIR_S_ATTR && !strcmp(b->key, "virtual_thread")) loop->body = lir_attr(c->f, b->key, b->value, b->body);
  lir_stmt **slot = thread_body(c, &loop->body, "the reduction step has no virtual-thread attribute");
  if (!slot) return c->rc;
  lir_block in, out;
  lir_block_init(&in, c->f);
  lir_block_init(&out, c->f);
  flatten(&in, *slot);
  int nl = 0;
  for (int i = 0; i < in.n; i++) {
    int m = modules(c, in.s[i]);
    if (m < 0) return c->rc;
    if (m != M_L && m != M_C) return refuse(c, in.s[i], "a statement of the reduction step that is neither load nor compute");
    if (m == M_L && i != nl) return refuse(c, in.s[i], "a load after the GEMMs of the reduction step");
    if (m == M_L) nl++;
  }
  if (nl == 0 || nl == in.n) return refuse(c, loop, "a reduction step without loads or without GEMMs");
  lir_block_add(&out, dep(c, false, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  for (int i = 0; i < in.n; i++) {
    if (i == nl) {
      lir_block_add(&out, dep(c, true, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
      lir_block_add(&out, dep(c, false, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
    }
    lir_block_add(&out, in.s[i]);
  }
  lir_block_add(&out, dep(c, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  *slot = lir_block_stmt(&out);
  return OVTA_OK;
}

/* Does s contain a call of callee ("ovta.gemm": a micro-op kernel's gemm push, the reader of
 * INP/WGT; "ovta.dma_load": a DMA load)? */
bool vta_stmt_calls(const lir_stmt *s, const char *callee) {
  if (!s) return false;
  switch (s->kind) {
  case LIR_S_SEQ:
    for (int i = 0; i < s->n; i++)
      if (vta_stmt_calls(s->stmts[i], callee)) return true;
    return false;
  case LIR_S_IF: return vta_stmt_calls(s->body, callee) || vta_stmt_calls(s->else_body, callee);
  case LIR_S_FOR: case LIR_S_ATTR: case LIR_S_ALLOC: case LIR_S_LET: return vta_stmt_calls(s->body, callee);
  case LIR_S_EVAL:
    return s->value->kind == LIR_E_CALL && s->value->callee && !strcmp(s->value->callee, callee);
  default: return false;
  }
}
static bool has_gemm(const lir_stmt *s) { return vta_stmt_calls(s, "ovta.gemm"); }

/* The index in tail of the end of the kernel of its last GEMM (the statement after which the loads
 * it read are free: the ovta.kernel_end call at or after it, else the GEMM itself); -1 without GEMM. */
static int last_gemm_end(const lir_block *tail) {
  int last = -1;
  for (int k = 0; k < tail->n; k++)
    if (has_gemm(tail->s[k])) last = k;
  for (int k = last < 0 ? tail->n : last; k < tail->n; k++) {
    const lir_expr *e = tail->s[k]->kind == LIR_S_EVAL ? tail->s[k]->value : NULL;
    if (e && e->kind == LIR_E_CALL && e->callee && !strcmp(e->callee, "ovta.kernel_end")) return k;
  }
  return last;
}

static bool is_callee(const lir_stmt *s, const char *name) {
  return s->kind == LIR_S_EVAL && s->value->kind == LIR_E_CALL && s->value->callee && !strcmp(s->value->callee, name);
}

/* The index in tail of the first micro-op kernel after index `after` that pushes an ALU
 * instruction (its `attr uop_kernel`), -1 without one. */
static int first_alu_kernel(const lir_block *tail, int after) {
  for (int k = after + 1, kb = -1; k < tail->n; k++) {
    const lir_stmt *s = tail->s[k];
    if (s->kind == LIR_S_ATTR && !strcmp(s->key, "uop_kernel")) kb = k;
    else if (is_callee(s, "ovta.alu") && kb >= 0) return kb;
  }
  return -1;
}

/* The index in tail of the micro-op kernel (its `attr uop_kernel`) of the n-th last GEMM, -1 when
 * there are fewer. */
static int nth_last_gemm_kernel(const lir_block *tail, int n) {
  for (int k = tail->n - 1, seen = 0; k >= 0; k--) {
    if (has_gemm(tail->s[k]) && ++seen == n) {
      while (k >= 0 && !(tail->s[k]->kind == LIR_S_ATTR && !strcmp(tail->s[k]->key, "uop_kernel"))) k--;
      return k;
    }
  }
  return -1;
}

/* Tiles without reduction steps (the ALU operators): in[from..to) is one tile - its INP/WGT loads
 * (load only), then compute work and its stores (store_list's tokens) - appended to out: pop
 * store->compute (the ACC part free) and compute->load (the INP/WGT part free) first, push and pop
 * load->compute after the loads, push compute->load after the last GEMM (the last reader of
 * INP/WGT), push store->compute after the last store. With the plan's store_late (GEMMs that write
 * no ACC element the stores read), store->compute is popped before the first ALU kernel after the
 * last GEMM instead of first; with its store_gemms n > 0 (GEMMs that write the stored elements
 * last), before the kernel of the n-th last GEMM. */
static int plain_tile(dctx *c, lir_block *in, int from, int to, lir_block *out) {
  int i = from;
  while (i < to && modules(c, in->s[i]) == M_L) i++;
  if (i == from) return refuse(c, in->s[from], "a tile (without reduction steps) that does not begin with its loads");
  if (i == to) return refuse(c, in->s[to - 1], "a tile with loads and nothing else");
  if (!ends_with_store(c, in->s[to - 1])) return refuse(c, in->s[to - 1], "the tile does not end with its store");
  lir_stmt *ts = lir_seq(c->f, to - i, in->s + i);
  int rc = store_list(c, &ts);
  if (rc) return rc;
  lir_block tail;
  lir_block_init(&tail, c->f);
  flatten(&tail, ts);
  int last = last_gemm_end(&tail), late = c->p && c->p->store_late ? first_alu_kernel(&tail, last) : -1;
  if (c->p && c->p->store_late && c->p->store_gemms > 0) late = nth_last_gemm_kernel(&tail, c->p->store_gemms);
  if (last < 0) return refuse(c, in->s[from], "a tile whose loads no GEMM reads");
  if (late < 0) lir_block_add(out, dep(c, false, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  lir_block_add(out, dep(c, false, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  for (int k = from; k < i; k++) lir_block_add(out, in->s[k]);
  lir_block_add(out, dep(c, true, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  lir_block_add(out, dep(c, false, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  for (int k = 0; k < tail.n; k++) {
    if (k == late) lir_block_add(out, dep(c, false, OVTA_RT_STORE, OVTA_RT_COMPUTE));
    lir_block_add(out, tail.s[k]);
    if (k == last) lir_block_add(out, dep(c, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  }
  lir_block_add(out, dep(c, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
  return OVTA_OK;
}

/* A body of tiles without reduction steps: a statement with loads after a store begins the next
 * tile (the max pool's row tiles, unrolled). */
static int plain_tiles(dctx *c, lir_block *in, lir_stmt **slot) {
  lir_block out;
  lir_block_init(&out, c->f);
  int from = 0, prev = 0;
  for (int i = 0; i <= in->n; i++) {
    int m = i < in->n ? modules(c, in->s[i]) : 0;
    if (m < 0) return c->rc;
    if (i == in->n || (i > from && (m & M_L) && (prev & M_S))) {
      int rc = plain_tile(c, in, from, i, &out);
      if (rc) return rc;
      from = i;
    }
    prev = m;
  }
  *slot = lir_block_stmt(&out);
  return OVTA_OK;
}

/* A fused residual add's step after the reduction (accel/res.c): its loads in[ra..rb) (r's tile and the
 * identity block), as a reduction step's - pop compute->load, the loads, push and pop load->compute -
 * then the rest ts (store_list's tokens in it) with compute->load pushed after the kernel of its last
 * GEMM (the identity GEMM, the last reader of those loads), appended to out. Where r's loads take no
 * slot of the ring (vta_res_loads_free, res.c: two threads, two steps or more) neither compute->load
 * token: the loads are ordered after the identity GEMM two tiles before by the step loads ahead of
 * them. */
static int res_step(dctx *c, lir_block *in, int ra, int rb, lir_stmt *ts, lir_block *out) {
  lir_block tail;
  lir_block_init(&tail, c->f);
  flatten(&tail, ts);
  int last = last_gemm_end(&tail);
  bool ring = !(c->p && vta_res_loads_free(c->p));
  if (last < 0) return refuse(c, in->s[ra], "loads after the reduction that no GEMM reads");
  if (ring) lir_block_add(out, dep(c, false, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  for (int k = ra; k < rb; k++) lir_block_add(out, in->s[k]);
  lir_block_add(out, dep(c, true, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  lir_block_add(out, dep(c, false, OVTA_RT_LOAD, OVTA_RT_COMPUTE));
  for (int k = 0; k < tail.n; k++) {
    lir_block_add(out, tail.s[k]);
    if (k == last && ring) lir_block_add(out, dep(c, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
  }
  return OVTA_OK;
}

/* A tile of the chunked epilogue (the plan's epi_chunks, compiler/accel/README.md "Chunked
 * epilogue"): its ACC work before the step loop is one loop over the chunks (inject-dma's chunked
 * init), whose body pops store->compute first (the chunk's half of the ACC part is free once the
 * store of the same chunk of the tile vt before is done: store_list pushed it after that store);
 * then the steps and the requantization and stores ts (store_list's tokens in it); no token for the
 * whole part. */
static int chunked_tile(dctx *c, lir_block *in, int step, lir_stmt *loop, lir_stmt *ts, lir_stmt **slot) {
  if (step != 1 || in->s[0]->kind != LIR_S_FOR || modules(c, in->s[0]) != M_C)
    return refuse(c, in->s[0], "a chunked epilogue's tile without one chunk loop of ACC work before its steps");
  lir_stmt *ch = in->s[0];
  lir_stmt *two[2] = {dep(c, false, OVTA_RT_STORE, OVTA_RT_COMPUTE), ch->body};
  lir_block out;
  lir_block_init(&out, c->f);
  lir_block_add(&out, lir_for(c->f, ch->var, ch->min, ch->extent, ch->for_kind, lir_seq(c->f, 2, two)));
  lir_block_add(&out, loop);
  flatten(&out, ts);
  *slot = lir_block_stmt(&out);
  return OVTA_OK;
}

/* The body of one output tile: ACC work (bias load, init kernels), the step loop (the one statement
 * holding loads), then the requantization and stores; or, when the first statement with loads
 * does not compute (no step loop), tiles without reduction steps (plain_tiles). */
static int tile_body(dctx *c, lir_stmt **slot) {
  lir_block in, out;
  lir_block_init(&in, c->f);
  lir_block_init(&out, c->f);
  flatten(&in, *slot);
  int step = -1; /* the step loop: the loop issuing both loads and GEMMs */
  for (int i = 0; i < in.n && step < 0; i++) {
    int m = modules(c, in.s[i]);
    if (m < 0) return c->rc;
    if ((m & M_L) && (m & M_C) && in.s[i]->kind == LIR_S_FOR) step = i;
  }
  if (step < 0) { /* no step loop: tiles without reduction steps, when the first loads only load */
    for (int i = 0; i < in.n; i++) {
      int m = modules(c, in.s[i]);
      if (m & M_L) {
        if (m == M_L) return plain_tiles(c, &in, slot);
        break;
      }
    }
  }
  int ra = -1, rb = -1; /* a fused add's loads, before or after the step loop: statements ra..rb-1 (load only) */
  for (int i = 0; i < in.n; i++) {
    int m = modules(c, in.s[i]);
    if (m < 0) return c->rc;
    if (i == step) {
      if (m & M_S) return refuse(c, in.s[i], "a store in the reduction-step loop");
    } else if (m & M_L) {
      if (step < 0 && in.s[i]->kind != LIR_S_FOR) return refuse(c, in.s[i], "INP/WGT loads outside a reduction-step loop");
      if (m != M_L || (ra >= 0 && rb != i) || step < 0)
        return refuse(c, in.s[i], "a second statement with INP/WGT loads in the tile");
      if (ra < 0) ra = i;
      rb = i + 1;
    } else if ((step < 0 || i < step) && (m & M_S)) {
      return refuse(c, in.s[i], "a store before the reduction of the tile");
    }
  }
  if (step < 0) return refuse(c, *slot, "an output tile without a reduction-step loop");
  if (ra >= 0 && ra < step && rb > step) return refuse(c, in.s[ra], "loads on both sides of the reduction-step loop");
  if (!ends_with_store(c, in.s[in.n - 1])) return refuse(c, in.s[in.n - 1], "the tile does not end with its store");
  lir_stmt *loop = lir_for(c->f, in.s[step]->var, in.s[step]->min, in.s[step]->extent, in.s[step]->for_kind,
                           in.s[step]->body);
  int rc = step_body(c, loop);
  if (rc) return rc;
  in.s[step] = loop;
  /* the requantization and stores after the reduction */
  lir_block tail;
  lir_block_init(&tail, c->f);
  int from = ra > step ? rb : step + 1;
  for (int i = from; i < in.n; i++) lir_block_add(&tail, in.s[i]);
  if (!tail.n) return refuse(c, loop, "no store after the reduction");
  lir_stmt *ts = lir_seq(c->f, tail.n, tail.s);
  if ((rc = store_list(c, &ts))) return rc;
  if (c->chunked) return chunked_tile(c, &in, step, loop, ts, slot);
  lir_block_add(&out, dep(c, false, OVTA_RT_STORE, OVTA_RT_COMPUTE)); /* the ACC part is free */
  if (ra >= 0 && ra < step) { /* the fused add's step before the reduction: its GEMM among the compute work before the loop */
    for (int i = 0; i < ra; i++) lir_block_add(&out, in.s[i]);
    if ((rc = res_step(c, &in, ra, rb, lir_seq(c->f, step - rb, in.s + rb), &out))) return rc;
    lir_block_add(&out, in.s[step]);
    flatten(&out, ts);
  } else {
    for (int i = 0; i <= step; i++) lir_block_add(&out, in.s[i]);
  }
  if (ra > step) {
    for (int i = step + 1; i < ra; i++) lir_block_add(&out, in.s[i]);
    if ((rc = res_step(c, &in, ra, rb, ts, &out))) return rc;
  } else if (ra < 0) {
    flatten(&out, ts);
  }
  lir_block_add(&out, dep(c, true, OVTA_RT_STORE, OVTA_RT_COMPUTE)); /* handed back after the last store */
  *slot = lir_block_stmt(&out);
  return OVTA_OK;
}

/* A tile nest: its perfect loop nest (none: one tile; copied on write) down to the tile body,
 * under `attr virtual_thread` when VT > 1. */
static int tile_nest(dctx *c, lir_stmt **nest) {
  lir_stmt **slot = nest;
  while ((*slot)->kind == LIR_S_FOR) {
    lir_stmt *s = *slot;
    *slot = lir_for(c->f, s->var, s->min, s->extent, s->for_kind, s->body);
    slot = &(*slot)->body;
  }
  lir_stmt *tb = *slot;
  if (tb->kind == LIR_S_ATTR && !strcmp(tb->key, "virtual_thread")) *slot = lir_attr(c->f, tb->key, tb->value, tb->body);
  lir_stmt **body = thread_body(c, slot, "the tile has no virtual-thread attribute");
  if (!body) return c->rc;
  return tile_body(c, body);
}

/* Rule. Matches `attr vthreads = VT { S1; ..; Sk; T1; ..; Tm }` where S1..Sk are compute-module
 * work (the shared bias ACC load) and T1..Tm (m >= 1; the ALU operators' full tiles and their
 * remainder tile) the statements with loads or stores, each a tile nest: a perfect nest of tile
 * loops (possibly none) whose innermost body (under `attr virtual_thread = floormod(.., VT)` when VT
 * > 1) is the tile: ACC work, one step loop, then requantization and stores (a fused residual add:
 * among them one run of load-only statements, r's tile and the identity, tokened as a step: res_step);
 * or, when its first
 * statement with loads only loads, tiles without reduction steps one after the other (plain_tile:
 * loads, compute, stores). Produces VT credits compute->load and store->compute before T1; per
 * tile pop store->compute first, push it after the last store; per step (under its virtual-thread
 * attribute) pop compute->load, the loads, push and pop load->compute, the GEMMs, push
 * compute->load (a tile without steps: the same around its loads, compute->load pushed after its
 * last GEMM); per store (with its host loops) push and pop compute->store before it. Refuses,
 * naming the statement, loads outside a step loop or after its GEMMs, stores before the reduction
 * or not after requantization work, a tile not ending with its store, a tile without steps whose
 * loads no GEMM reads, compute work after the tile nests, a missing or mismatched virtual-thread
 * attribute, input that already has tokens. */
int vta_pass_insert_deps(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err) {
  (void)uid;
  dctx c = {.f = f, .p = p, .err = err, .chunked = p->epi_chunks};
  lir_stmt *top = f->body;
  if (!top || top->kind != LIR_S_ATTR || strcmp(top->key, "vthreads") || top->value->kind != LIR_E_INT ||
      top->value->ival < 1 || top->value->ival > 64)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "insert-deps: %s: the body is not `attr vthreads = N` (N constant)", f->name);
  c.vt = (int)top->value->ival;
  lir_block in, out;
  lir_block_init(&in, f);
  lir_block_init(&out, f);
  flatten(&in, top->body);
  int tiles = -1;
  for (int i = 0; i < in.n && tiles < 0; i++) {
    int m = modules(&c, in.s[i]);
    if (m < 0) return c.rc;
    if (m & (M_L | M_S)) tiles = i;
  }
  if (tiles < 0) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "insert-deps: %s: no loads or stores", f->name);
  for (int i = 0; i < tiles; i++) lir_block_add(&out, in.s[i]);
  for (int v = 0; v < c.vt; v++) {
    lir_block_add(&out, dep(&c, true, OVTA_RT_COMPUTE, OVTA_RT_LOAD));
    lir_block_add(&out, dep(&c, true, OVTA_RT_STORE, OVTA_RT_COMPUTE));
    if (c.chunked) lir_block_add(&out, dep(&c, true, OVTA_RT_STORE, OVTA_RT_COMPUTE)); /* one per chunk */
  }
  for (int i = tiles, j; i < in.n; i = j) { /* a loop nest, or a run of statements: one or more tiles */
    for (j = i + 1; in.s[i]->kind != LIR_S_FOR && j < in.n && in.s[j]->kind != LIR_S_FOR;) j++;
    lir_stmt *nest = j == i + 1 ? in.s[i] : lir_seq(f, j - i, in.s + i);
    if (!(modules(&c, nest) & M_L)) return refuse(&c, in.s[i], "work after the tile loops (not ordered after the last store)");
    int rc = tile_nest(&c, &nest);
    if (rc) return rc;
    lir_block_add(&out, nest);
  }
  f->body = lir_attr(f, top->key, top->value, lir_block_stmt(&out));
  if (lir_func_oom(f)) return OVTA_FAIL(err, OVTA_ENOMEM, "insert-deps: %s: out of memory", f->name);
  return p->res_pipe ? vta_res_pipeline(p, f, err) : OVTA_OK; /* a fused add pipelined across tiles (accel/res.c) */
}
