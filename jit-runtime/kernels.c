/* kernels.c: micro-op kernels, the uop SRAM cache, GEMM and ALU pushes (ovta_runtime.h
 * sections 3 and 4). */
#include "rt_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- kernel table */

static uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static rt_kernel *find(const ovta_rt *rt, uint64_t key) {
  if (!rt->ktab_cap) return NULL;
  for (size_t i = mix(key) & (rt->ktab_cap - 1);; i = (i + 1) & (rt->ktab_cap - 1)) {
    uint32_t v = rt->ktab[i];
    if (!v) return NULL;
    if (rt->kernels[v - 1]->key == key) return rt->kernels[v - 1];
  }
}

static void tab_put(uint32_t *tab, size_t cap, uint64_t key, uint32_t v) {
  size_t i = mix(key) & (cap - 1);
  while (tab[i]) i = (i + 1) & (cap - 1);
  tab[i] = v;
}

static int add_kernel(ovta_rt *rt, uint64_t key, rt_kernel **out, ovta_error *err) {
  if (rt->n_kernels >= 0x7fffffff) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: too many kernels");
  if ((rt->n_kernels + 1) * 2 > rt->ktab_cap) {
    size_t cap = rt->ktab_cap ? rt->ktab_cap * 2 : 64;
    uint32_t *tab = calloc(cap, sizeof *tab);
    if (!tab) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory for the kernel table");
    for (size_t i = 0; i < rt->n_kernels; i++) tab_put(tab, cap, rt->kernels[i]->key, (uint32_t)i + 1);
    free(rt->ktab);
    rt->ktab = tab;
    rt->ktab_cap = cap;
  }
  if (rt->n_kernels == rt->cap_kernels) {
    size_t cap = rt->cap_kernels ? rt->cap_kernels * 2 : 32;
    rt_kernel **nk = realloc(rt->kernels, cap * sizeof *nk);
    if (!nk) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory for the kernel table");
    rt->kernels = nk;
    rt->cap_kernels = cap;
  }
  rt_kernel *k = calloc(1, sizeof *k);
  if (!k) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory for a kernel");
  k->key = key;
  rt->kernels[rt->n_kernels++] = k;
  tab_put(rt->ktab, rt->ktab_cap, key, (uint32_t)rt->n_kernels);
  *out = k;
  return OVTA_OK;
}

void rt_kernels_free(ovta_rt *rt) {
  for (size_t i = 0; i < rt->n_kernels; i++) {
    rt_kernel *k = rt->kernels[i];
    if (k->buf) ovta_buf_free(k->buf);
    free(k->uops);
    free(k);
  }
  free(rt->kernels);
  free(rt->ktab);
  rt->kernels = NULL;
  rt->ktab = NULL;
  rt->n_kernels = rt->cap_kernels = rt->ktab_cap = 0;
}

void rt_uop_invalidate(ovta_rt *rt) {
  for (size_t i = 0; i < rt->n_kernels; i++) rt->kernels[i]->resident = false;
  for (int i = 0; i < rt->cfg->uop_depth; i++) rt->uop_owner[i] = -1;
  rt->ring_head = 0;
}

/* Start (again) recording k: no micro-ops, no loops. */
static void restart(rt_kernel *k) {
  k->n_uops = 0;
  k->n_loops = k->open_loops = 0;
  for (int l = 0; l < 2; l++) k->loop[l] = (rt_loop){1, 0, 0, 0};
  k->max_dst = k->max_src = k->max_wgt = 0;
}

/* ---------------------------------------------------------------- 3. Kernels */

int ovta_rt_kernel_begin(ovta_rt *rt, uint64_t key, bool *must_record, ovta_error *err) {
  if (!rt || !must_record) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_kernel_begin: no command queue or output");
  if (rt->cur)
    return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_kernel_begin(0x%" PRIx64 "): kernel 0x%" PRIx64
                     " is still open (call ovta_rt_kernel_end first)", key, rt->cur->key);
  rt_kernel *k = find(rt, key);
  if (!k) {
    int rc = add_kernel(rt, key, &k, err);
    if (rc) return rc;
    restart(k);
  } else if (!k->frozen) {
    restart(k); /* an earlier recording was abandoned */
  }
  rt->cur = k;
  rt->recording = !k->frozen;
  *must_record = rt->recording;
  return OVTA_OK;
}

static int need_recording(ovta_rt *rt, const char *fn, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no command queue", fn);
  if (!rt->cur) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no kernel is open (call ovta_rt_kernel_begin first)", fn);
  if (!rt->recording || rt->cur->frozen)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 " is %s: it cannot be changed", fn, rt->cur->key,
                     rt->recording ? "frozen by its first push" : "already recorded (kernel_begin said so)");
  return OVTA_OK;
}

int ovta_rt_loop_begin(ovta_rt *rt, uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor,
                       ovta_error *err) {
  const char *fn = "ovta_rt_loop_begin";
  int rc = need_recording(rt, fn, err);
  if (rc) return rc;
  rt_kernel *k = rt->cur;
  if (k->n_uops)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 ": loops must be opened before the first micro-op", fn,
                     k->key);
  if (k->n_loops == 2)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 ": at most two loop levels", fn, k->key);
  if (extent < 1 || extent > 16383)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 ": extent %u is not in 1..16383", fn, k->key, extent);
  k->loop[k->n_loops++] = (rt_loop){extent, dst_factor, src_factor, wgt_factor};
  k->open_loops++;
  return OVTA_OK;
}

int ovta_rt_loop_end(ovta_rt *rt, ovta_error *err) {
  int rc = need_recording(rt, "ovta_rt_loop_end", err);
  if (rc) return rc;
  if (!rt->cur->open_loops)
    return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_loop_end: kernel 0x%" PRIx64 " has no open loop", rt->cur->key);
  rt->cur->open_loops--;
  return OVTA_OK;
}

int ovta_rt_uop_push(ovta_rt *rt, uint32_t dst, uint32_t src, uint32_t wgt, ovta_error *err) {
  const char *fn = "ovta_rt_uop_push";
  int rc = need_recording(rt, fn, err);
  if (rc) return rc;
  rt_kernel *k = rt->cur;
  if (k->open_loops != k->n_loops)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 ": micro-ops go inside the loops, not after a loop_end",
                     fn, k->key);
  ovta_uop u = {dst, src, wgt};
  uint32_t word;
  if (ovta_uop_encode(rt->isa, &u, &word, err)) {
    ovta_error_wrap(err, "%s: kernel 0x%" PRIx64 " micro-op %zu (dst %u, src %u, wgt %u)", fn, k->key, k->n_uops, dst,
                    src, wgt);
    if (err) err->code = OVTA_EINVAL;
    return OVTA_EINVAL;
  }
  if (k->n_uops == k->cap_uops) {
    size_t cap = k->cap_uops ? k->cap_uops * 2 : 16;
    ovta_uop *nu = realloc(k->uops, cap * sizeof *nu);
    if (!nu) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", fn);
    k->uops = nu;
    k->cap_uops = cap;
  }
  k->uops[k->n_uops++] = u;
  if (dst > k->max_dst) k->max_dst = dst;
  if (src > k->max_src) k->max_src = src;
  if (wgt > k->max_wgt) k->max_wgt = wgt;
  return OVTA_OK;
}

/* A kernel as assembler text: a buffer holding its micro-ops (isa/ASM.md ".buffer", ".uops"). */
static void dump_kernel(ovta_rt *rt, const rt_kernel *k) {
  FILE *f = rt->dbg;
  fprintf(f, "# ovta-rt kernel 0x%" PRIx64 ": %zu micro-ops at 0x%" PRIx64, k->key, k->n_uops, k->buf->phys);
  for (int l = 0; l < k->n_loops; l++)
    fprintf(f, ", loop %d: extent %u dst+%u src+%u wgt+%u", l, k->loop[l].extent, k->loop[l].dst, k->loop[l].src,
            k->loop[l].wgt);
  fprintf(f, "\n.buffer kernel_%" PRIx64 " %zu\n.uops kernel_%" PRIx64 "+0\n", k->key, k->n_uops * 4, k->key);
  char line[256];
  for (size_t i = 0; i < k->n_uops; i++) {
    ovta_uop_format(&k->uops[i], line, sizeof line);
    fprintf(f, "%s\n", line);
  }
  fflush(f);
}

/* Finish recording: loops closed, 1..UOP_DEPTH micro-ops; the encoded micro-ops (32-bit
 * little-endian words) go into a DMA buffer of their own, which LOAD UOP reads. */
static int freeze(ovta_rt *rt, rt_kernel *k, const char *fn, ovta_error *err) {
  if (k->open_loops)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 " still has %d open loop(s) (call ovta_rt_loop_end)", fn,
                     k->key, k->open_loops);
  if (!k->n_uops)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 " has no micro-ops", fn, k->key);
  if (k->n_uops > (size_t)rt->cfg->uop_depth)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 " has %zu micro-ops but uop SRAM holds %d", fn, k->key,
                     k->n_uops, rt->cfg->uop_depth);
  ovta_buf *buf;
  int rc = ovta_buf_alloc(rt->dev, k->n_uops * 4, &buf, err);
  if (rc) return ovta_error_wrap(err, "%s: kernel 0x%" PRIx64, fn, k->key);
  uint8_t *p = buf->host;
  for (size_t i = 0; i < k->n_uops; i++) {
    uint32_t w;
    if (ovta_uop_encode(rt->isa, &k->uops[i], &w, err)) unreachable(); /* checked by uop_push */
    p[4 * i] = (uint8_t)w;
    p[4 * i + 1] = (uint8_t)(w >> 8);
    p[4 * i + 2] = (uint8_t)(w >> 16);
    p[4 * i + 3] = (uint8_t)(w >> 24);
  }
  rc = ovta_buf_flush(buf, 0, k->n_uops * 4, err);
  if (rc) {
    ovta_buf_free(buf);
    return rc;
  }
  k->buf = buf;
  k->frozen = true;
  rt->stats.kernels_recorded++;
  rt->stats.uops_recorded += k->n_uops;
  if (rt->debug & OVTA_RT_DEBUG_UOPS) dump_kernel(rt, k);
  return OVTA_OK;
}

int ovta_rt_kernel_end(ovta_rt *rt, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_kernel_end: no command queue");
  if (!rt->cur) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_kernel_end: no kernel is open");
  rt_kernel *k = rt->cur;
  int rc = OVTA_OK;
  if (rt->recording && !k->frozen) rc = freeze(rt, k, "ovta_rt_kernel_end", err);
  rt->cur = NULL; /* on failure the kernel stays unfrozen: the next kernel_begin records it again */
  rt->recording = false;
  return rc;
}

bool ovta_rt_kernel_cached(const ovta_rt *rt, uint64_t key) {
  const rt_kernel *k = rt ? find(rt, key) : NULL;
  return k && k->frozen;
}

bool ovta_rt_kernel_resident(const ovta_rt *rt, uint64_t key) {
  const rt_kernel *k = rt ? find(rt, key) : NULL;
  return k && k->frozen && k->resident;
}

/* ---------------------------------------------------------------- uop SRAM ring */

/* Where a kernel of n micro-ops goes: the FIFO ring's head, or 0 when it would run past the
 * end of uop SRAM. */
static uint32_t ring_place(const ovta_rt *rt, uint32_t n) {
  uint32_t head = rt->ring_head;
  if ((uint64_t)head + n > (uint64_t)rt->cfg->uop_depth) head = 0;
  return head;
}

void rt_uop_clobber(ovta_rt *rt, uint32_t bgn, uint64_t end) {
  if (end > (uint64_t)rt->cfg->uop_depth) end = (uint64_t)rt->cfg->uop_depth;
  for (uint32_t i = bgn; i < end; i++) {
    int32_t o = rt->uop_owner[i];
    if (o < 0) continue;
    rt_kernel *v = rt->kernels[o];
    for (uint32_t j = v->base; j < v->base + (uint32_t)v->n_uops; j++) rt->uop_owner[j] = -1;
    v->resident = false;
    rt->stats.evictions++;
  }
}

/* Make k resident at base: evict every kernel overlapping [base, base + n), take the range,
 * advance the ring. */
static void ring_take(ovta_rt *rt, rt_kernel *k, int32_t kidx, uint32_t base) {
  uint32_t n = (uint32_t)k->n_uops;
  rt_uop_clobber(rt, base, (uint64_t)base + n);
  for (uint32_t i = base; i < base + n; i++) rt->uop_owner[i] = kidx;
  k->resident = true;
  k->base = base;
  rt->ring_head = base + n;
}

static int32_t kernel_index(const ovta_rt *rt, const rt_kernel *k) {
  for (size_t i = 0; i < rt->n_kernels; i++)
    if (rt->kernels[i] == k) return (int32_t)i;
  unreachable();
}

/* ---------------------------------------------------------------- 4. Compute */

/* Largest index a kernel's field reaches over all loop iterations (factors are unsigned):
 * max_uop + (iter_out - 1) * factor_out + (iter_in - 1) * factor_in. */
static uint64_t reach(uint32_t max_uop, const rt_kernel *k, int field) {
  uint64_t v = max_uop;
  for (int l = 0; l < 2; l++) {
    uint32_t f = field == 0 ? k->loop[l].dst : field == 1 ? k->loop[l].src : k->loop[l].wgt;
    v += (uint64_t)(k->loop[l].extent - 1) * f;
  }
  return v;
}

static int check_reach(const char *fn, const rt_kernel *k, int field, uint32_t max_uop, const char *what,
                       const char *mem, int depth, ovta_error *err) {
  uint64_t r = reach(max_uop, k, field);
  if (r >= (uint64_t)depth)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: kernel 0x%" PRIx64 ": %s index reaches %" PRIu64 " (micro-op max %u plus "
                     "loops) but the %s buffer has %d elements", fn, k->key, what, r, max_uop, mem, depth);
  return OVTA_OK;
}

/* GEMM/ALU instruction over the current kernel: uop_bgn = base, uop_end = base + n, iter_out
 * and the *_factor_out from loop 0, iter_in and *_factor_in from loop 1 (unused levels: 1, 0).
 * The kernel is loaded first (LOAD UOP, 1 row of n micro-ops) when it is not resident. */
static int push_op(ovta_rt *rt, ovta_insn *in, const char *fn, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no command queue", fn);
  if (!rt->cur)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: outside a kernel: no kernel is open (call ovta_rt_kernel_begin first)", fn);
  rt_kernel *k = rt->cur;
  int rc;
  if (!k->frozen) {
    rc = freeze(rt, k, fn, err);
    if (rc) return rc;
  }
  const ovta_config *c = rt->cfg;
  bool gemm = in->opcode == OVTA_OP_GEMM;
  rc = check_reach(fn, k, 0, k->max_dst, "dst", "ACC", c->acc_depth, err);
  if (!rc && gemm && !in->reset) rc = check_reach(fn, k, 1, k->max_src, "src", "INP", c->inp_depth, err);
  if (!rc && gemm && !in->reset) rc = check_reach(fn, k, 2, k->max_wgt, "wgt", "WGT", c->wgt_depth, err);
  if (!rc && !gemm && !in->reset && !in->use_imm)
    rc = check_reach(fn, k, 1, k->max_src, "src", "ACC", c->acc_depth, err);
  if (rc) return rc;
  rc = rt_maybe_flush(rt, err);
  if (rc) return rc;
  bool load = !k->resident;
  uint32_t base = load ? ring_place(rt, (uint32_t)k->n_uops) : k->base;
  in->uop_bgn = base;
  in->uop_end = base + (uint32_t)k->n_uops;
  in->iter_out = k->loop[0].extent;
  in->iter_in = k->loop[1].extent;
  in->dst_factor_out = k->loop[0].dst;
  in->dst_factor_in = k->loop[1].dst;
  in->src_factor_out = k->loop[0].src;
  in->src_factor_in = k->loop[1].src;
  if (gemm) {
    in->wgt_factor_out = k->loop[0].wgt;
    in->wgt_factor_in = k->loop[1].wgt;
  }
  /* validate the instruction before anything is appended */
  ovta_insn_bits bits;
  rc = ovta_insn_encode(rt->isa, in, &bits, err);
  if (!rc) rc = ovta_insn_check(rt->isa, in, (long)rt->n_insns, err);
  if (rc) {
    ovta_error_wrap(err, "%s: kernel 0x%" PRIx64, fn, k->key);
    if (err) err->code = OVTA_EINVAL;
    return OVTA_EINVAL;
  }
  if (load) {
    ovta_insn ld = {0};
    ld.opcode = OVTA_OP_LOAD;
    ld.memory_type = OVTA_MEM_UOP;
    ld.sram_base = base;
    ld.dram_base = (uint32_t)(k->buf->phys / 4);
    ld.y_size = 1;
    ld.x_size = (uint32_t)k->n_uops;
    ld.x_stride = (uint32_t)k->n_uops;
    rc = rt_emit(rt, &ld, fn, err);
    if (rc) return rc;
    ring_take(rt, k, kernel_index(rt, k), base);
    rt->stats.kernel_loads++;
    rt->stats.uop_bytes += 4 * k->n_uops;
  } else {
    rt->stats.kernel_hits++;
  }
  rc = rt_emit(rt, in, fn, err);
  if (rc) return rc;
  /* the ACC/OUT footprint, for the overlap scheduling (intervals over the loop nest) */
  rt_fp *f = &rt->fp[rt->n_insns - 1];
  uint32_t dlo = UINT32_MAX, slo = UINT32_MAX, dhi = 0, shi = 0;
  for (size_t i = 0; i < k->n_uops; i++) {
    if (k->uops[i].dst_idx < dlo) dlo = k->uops[i].dst_idx;
    if (k->uops[i].dst_idx > dhi) dhi = k->uops[i].dst_idx;
    if (k->uops[i].src_idx < slo) slo = k->uops[i].src_idx;
    if (k->uops[i].src_idx > shi) shi = k->uops[i].src_idx;
  }
  uint64_t io = in->iter_out, ii = in->iter_in;
  *f = (rt_fp){.known = true, .empty = !io || !ii || !k->n_uops};
  if (!f->empty) {
    f->dst_lo = dlo;
    f->dst_hi = (uint32_t)(dhi + (io - 1) * in->dst_factor_out + (ii - 1) * in->dst_factor_in);
    f->reads_src = !gemm && !in->reset && !in->use_imm;
    f->src_lo = slo;
    f->src_hi = (uint32_t)(shi + (io - 1) * in->src_factor_out + (ii - 1) * in->src_factor_in);
  }
  return OVTA_OK;
}

int ovta_rt_push_gemm(ovta_rt *rt, bool reset, ovta_error *err) {
  ovta_insn in = {0};
  in.opcode = OVTA_OP_GEMM;
  in.reset = reset;
  return push_op(rt, &in, "ovta_rt_push_gemm", err);
}

int ovta_rt_push_alu(ovta_rt *rt, ovta_alu_op op, bool use_imm, int32_t imm, bool reset, ovta_error *err) {
  const char *fn = "ovta_rt_push_alu";
  if ((unsigned)op >= OVTA_ALU_COUNT)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: unknown ALU opcode %d", fn, (int)op);
  if (use_imm && (imm < -32768 || imm > 32767))
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): immediate %d does not fit signed 16 bits", fn, ovta_alu_op_name(op),
                     (int)imm);
  ovta_insn in = {0};
  in.opcode = OVTA_OP_ALU;
  in.reset = reset;
  in.alu_opcode = (uint32_t)op;
  in.use_imm = use_imm;
  in.imm = use_imm ? imm : 0;
  return push_op(rt, &in, fn, err);
}
