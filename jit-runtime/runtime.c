/* runtime.c: the command queue: stream building, 2D loads/stores, dependency tokens,
 * synchronize and auto flush, counters and debug dumps (ovta_runtime.h sections 1, 2, 5, 6). */
#include "rt_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *const stage_names[3] = {"load", "compute", "store"};
static const char *const queue_names[RT_Q_COUNT] = {"load->compute", "compute->load",
                                                    "compute->store", "store->compute"};

/* ---------------------------------------------------------------- 1. Queues */

/* OVTA_RT_DEBUG: unset, "" or "0": off; a number: OVTA_RT_DEBUG_* bits; anything else: all.
 * OVTA_RT_DEBUG_FILE: dump to that file instead of stderr. */
static unsigned env_debug(void) {
  const char *s = getenv("OVTA_RT_DEBUG");
  if (!s || !*s) return 0;
  char *end;
  unsigned long v = strtoul(s, &end, 0);
  if (*end) return OVTA_RT_DEBUG_INSNS | OVTA_RT_DEBUG_UOPS;
  return (unsigned)v & (OVTA_RT_DEBUG_INSNS | OVTA_RT_DEBUG_UOPS);
}

int ovta_rt_set_debug(ovta_rt *rt, unsigned debug, const char *path, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_set_debug: no command queue");
  FILE *f = stderr;
  bool owned = false;
  if (debug && path && *path) {
    f = fopen(path, "a");
    if (!f) return OVTA_FAIL(err, OVTA_EIO, "ovta_rt_set_debug: cannot open '%s' for the debug dump", path);
    owned = true;
  }
  if (rt->dbg_owned) fclose(rt->dbg);
  rt->debug = debug;
  rt->dbg = f;
  rt->dbg_owned = owned;
  return OVTA_OK;
}

int ovta_rt_create(ovta_dev *dev, const ovta_rt_opts *opts, ovta_rt **out, ovta_error *err) {
  if (!out) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_create: no output pointer");
  *out = NULL;
  if (!dev) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_create: no device");
  ovta_rt *rt = calloc(1, sizeof *rt);
  if (!rt) return OVTA_FAIL(err, OVTA_ENOMEM, "ovta_rt_create: out of memory");
  rt->dev = dev;
  rt->cfg = ovta_dev_config(dev);
  rt->isa = ovta_dev_isa(dev);
  if (opts) rt->opts = *opts;
  if (rt->opts.max_insns == 0) rt->opts.max_insns = 65536;
  rt->opts.debug_path = NULL; /* not kept: the caller owns the string */
  const char *ov = getenv("OVTA_RT_OVERLAP");
  rt->overlap = !rt->opts.no_overlap && !(ov && !strcmp(ov, "0"));
  for (int m = 0; m < 3; m++) rt->last[m] = -1;
  rt->dbg = stderr;
  rt->uop_owner = malloc(sizeof *rt->uop_owner * (size_t)rt->cfg->uop_depth);
  if (!rt->uop_owner) {
    free(rt);
    return OVTA_FAIL(err, OVTA_ENOMEM, "ovta_rt_create: out of memory");
  }
  for (int i = 0; i < rt->cfg->uop_depth; i++) rt->uop_owner[i] = -1;
  unsigned debug = (opts ? opts->debug : 0) | env_debug();
  const char *path = opts && opts->debug_path ? opts->debug_path : getenv("OVTA_RT_DEBUG_FILE");
  int rc = ovta_rt_set_debug(rt, debug, path, err);
  if (rc) {
    ovta_rt_destroy(rt);
    return rc;
  }
  *out = rt;
  return OVTA_OK;
}

static _Thread_local ovta_rt *thread_rt; /* ovta_rt_thread_get */

void ovta_rt_thread_set(ovta_rt *rt) { thread_rt = rt; }
ovta_rt *ovta_rt_thread_get(void) { return thread_rt; }

void ovta_rt_destroy(ovta_rt *rt) {
  if (!rt) return;
  if (thread_rt == rt) thread_rt = NULL;
  rt_kernels_free(rt);
  if (rt->insn_buf) ovta_buf_free(rt->insn_buf);
  if (rt->dbg_owned) fclose(rt->dbg);
  free(rt->insns);
  free(rt->stage);
  free(rt->fp);
  free(rt->uop_owner);
  free(rt);
}

ovta_dev *ovta_rt_dev(const ovta_rt *rt) { return rt ? rt->dev : NULL; }
void ovta_rt_stats_get(const ovta_rt *rt, ovta_rt_stats *out) {
  if (!out) return;
  if (rt) *out = rt->stats;
  else memset(out, 0, sizeof *out);
}
void ovta_rt_stats_reset(ovta_rt *rt) {
  if (rt) memset(&rt->stats, 0, sizeof rt->stats);
}
uint32_t ovta_rt_pending_insns(const ovta_rt *rt) { return rt ? rt->n_insns : 0; }
const ovta_insn *ovta_rt_stream(const ovta_rt *rt, uint32_t *n) {
  if (n) *n = rt ? rt->n_insns : 0;
  return rt ? rt->insns : NULL;
}

char *ovta_rt_stats_to_json(const ovta_rt_stats *s) {
  if (!s) return NULL;
  char *buf = malloc(1024);
  if (!buf) return NULL;
  snprintf(buf, 1024,
           "{\"insns\": %" PRIu64 ", \"load\": %" PRIu64 ", \"store\": %" PRIu64 ", \"gemm\": %" PRIu64
           ", \"finish\": %" PRIu64 ", \"alu\": %" PRIu64 ", \"sync_insns\": %" PRIu64 ", \"runs\": %" PRIu64
           ", \"auto_flushes\": %" PRIu64 ", \"kernels_recorded\": %" PRIu64 ", \"uops_recorded\": %" PRIu64
           ", \"kernel_loads\": %" PRIu64 ", \"kernel_hits\": %" PRIu64 ", \"evictions\": %" PRIu64
           ", \"uop_bytes\": %" PRIu64 "}",
           s->insns, s->insns_op[OVTA_OP_LOAD], s->insns_op[OVTA_OP_STORE], s->insns_op[OVTA_OP_GEMM],
           s->insns_op[OVTA_OP_FINISH], s->insns_op[OVTA_OP_ALU], s->sync_insns, s->runs, s->auto_flushes,
           s->kernels_recorded, s->uops_recorded, s->kernel_loads, s->kernel_hits, s->evictions, s->uop_bytes);
  return buf;
}

/* Text form of one instruction: the assembler's (isa/disasm.c, isa/ASM.md). */
void rt_format_insn(const ovta_insn *in, char *buf, size_t cap) { ovta_insn_format(in, NULL, buf, cap); }

/* ---------------------------------------------------------------- emission */

/* Module of an instruction (isa/ISA.md, "Machine"): STORE to store; LOAD of INP or WGT to load;
 * everything else (LOAD of UOP or ACC, GEMM, ALU, FINISH) to compute. */
ovta_rt_stage rt_stage_of(const ovta_insn *in) {
  if (in->opcode == OVTA_OP_STORE) return OVTA_RT_STORE;
  if (in->opcode == OVTA_OP_LOAD && (in->memory_type == OVTA_MEM_INP || in->memory_type == OVTA_MEM_WGT))
    return OVTA_RT_LOAD;
  return OVTA_RT_COMPUTE;
}

ovta_rt_stage ovta_rt_load_stage(ovta_mem_type type) {
  return (type == OVTA_MEM_INP || type == OVTA_MEM_WGT) ? OVTA_RT_LOAD : OVTA_RT_COMPUTE;
}

static int grow_stream(ovta_rt *rt, ovta_error *err) {
  if (rt->n_insns < rt->cap_insns) return OVTA_OK;
  uint32_t cap = rt->cap_insns ? rt->cap_insns * 2 : 256;
  ovta_insn *ni = realloc(rt->insns, sizeof *ni * cap);
  if (!ni) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory for %u instructions", cap);
  rt->insns = ni;
  uint8_t *ns = realloc(rt->stage, cap);
  if (!ns) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory for %u instructions", cap);
  rt->stage = ns;
  rt_fp *nf = realloc(rt->fp, sizeof *nf * cap);
  if (!nf) return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory for %u instructions", cap);
  rt->fp = nf;
  rt->cap_insns = cap;
  return OVTA_OK;
}

int rt_emit(ovta_rt *rt, ovta_insn *in, const char *what, ovta_error *err) {
  ovta_rt_stage m = rt_stage_of(in);
  if (rt->pend_pop_prev[m]) in->pop_prev = 1;
  if (rt->pend_pop_next[m]) in->pop_next = 1;
  ovta_insn_bits bits;
  int rc = ovta_insn_encode(rt->isa, in, &bits, err);
  if (!rc) rc = ovta_insn_check(rt->isa, in, (long)rt->n_insns, err);
  if (!rc) rc = grow_stream(rt, err);
  if (rc) {
    if (rc == OVTA_ENOMEM) return rc;
    ovta_error_wrap(err, "%s", what);
    if (err) err->code = OVTA_EINVAL;
    return OVTA_EINVAL;
  }
  rt->pend_pop_prev[m] = rt->pend_pop_next[m] = false;
  rt->insns[rt->n_insns] = *in;
  rt->stage[rt->n_insns] = (uint8_t)m;
  rt->fp[rt->n_insns] = (rt_fp){.known = false}; /* push_op fills it in for a GEMM/ALU */
  rt->last[m] = (long)rt->n_insns;
  rt->n_insns++;
  rt->stats.insns++;
  rt->stats.insns_op[in->opcode]++;
  return OVTA_OK;
}

/* A token-only instruction on module m (x_size = 0 moves nothing, isa/ISA.md "LOAD"/"STORE"):
 * LOAD INP for load, LOAD UOP for compute, STORE OUT for store. */
static int emit_sync(ovta_rt *rt, ovta_rt_stage m, bool push_prev, bool push_next, ovta_error *err) {
  ovta_insn in = {0};
  in.opcode = m == OVTA_RT_STORE ? OVTA_OP_STORE : OVTA_OP_LOAD;
  in.memory_type = m == OVTA_RT_LOAD ? OVTA_MEM_INP : m == OVTA_RT_COMPUTE ? OVTA_MEM_UOP : OVTA_MEM_OUT;
  in.push_prev = push_prev;
  in.push_next = push_next;
  int rc = rt_emit(rt, &in, "runtime sync", err);
  if (!rc) rt->stats.sync_insns++;
  return rc;
}

/* ---------------------------------------------------------------- 5. Dependencies */

/* The queue a token from `from` to `to` travels in; -1 when they are not neighbours. */
static int queue_of(int from, int to) {
  if (from == OVTA_RT_LOAD && to == OVTA_RT_COMPUTE) return RT_Q_L2C;
  if (from == OVTA_RT_COMPUTE && to == OVTA_RT_LOAD) return RT_Q_C2L;
  if (from == OVTA_RT_COMPUTE && to == OVTA_RT_STORE) return RT_Q_C2S;
  if (from == OVTA_RT_STORE && to == OVTA_RT_COMPUTE) return RT_Q_S2C;
  return -1;
}
static const int queue_from[RT_Q_COUNT] = {OVTA_RT_LOAD, OVTA_RT_COMPUTE, OVTA_RT_COMPUTE, OVTA_RT_STORE};
static const int queue_to[RT_Q_COUNT] = {OVTA_RT_COMPUTE, OVTA_RT_LOAD, OVTA_RT_STORE, OVTA_RT_COMPUTE};

/* Push rule: the token is given by module `from` through push_next when `to` is above it
 * (to > from), else push_prev. It goes onto from's last instruction when that instruction is
 * in this stream, does not already push into that queue, and no pop is pending on `from`
 * (a pending pop must come first); otherwise onto a new sync on `from`. */
static int req_push(ovta_rt *rt, int from, int to, ovta_error *err) {
  int q = queue_of(from, to);
  bool next = to > from;
  long li = rt->last[from];
  if (li >= 0 && !rt->pend_pop_prev[from] && !rt->pend_pop_next[from]) {
    ovta_insn *l = &rt->insns[li];
    uint32_t *bit = next ? &l->push_next : &l->push_prev;
    if (!*bit) {
      *bit = 1;
      rt->pushed[q]++;
      return OVTA_OK;
    }
  }
  int rc = emit_sync(rt, (ovta_rt_stage)from, !next, next, err);
  if (!rc) rt->pushed[q]++;
  return rc;
}

/* Pop rule: module `to` takes the token through pop_prev when `from` is below it (from < to),
 * else pop_next, on its next instruction. A second pop of the same queue before that
 * instruction first flushes the pending one onto a sync. */
static int req_pop(ovta_rt *rt, int from, int to, ovta_error *err) {
  int q = queue_of(from, to);
  bool *pend = from < to ? &rt->pend_pop_prev[to] : &rt->pend_pop_next[to];
  if (*pend) {
    int rc = emit_sync(rt, (ovta_rt_stage)to, false, false, err);
    if (rc) return rc;
  }
  *pend = true;
  rt->popped[q]++;
  return OVTA_OK;
}

static int check_stages(const char *fn, int from, int to, ovta_error *err) {
  if (from < 0 || from > 2 || to < 0 || to > 2)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%d, %d): a stage is not OVTA_RT_LOAD, OVTA_RT_COMPUTE or OVTA_RT_STORE",
                     fn, from, to);
  if (queue_of(from, to) < 0)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s, %s): no dependency queue joins these modules (only load<->compute "
                     "and compute<->store)", fn, stage_names[from], stage_names[to]);
  return OVTA_OK;
}

int ovta_rt_dep_push(ovta_rt *rt, ovta_rt_stage from, ovta_rt_stage to, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_dep_push: no command queue");
  int rc = check_stages("ovta_rt_dep_push", (int)from, (int)to, err);
  if (!rc) rc = rt_maybe_flush(rt, err);
  if (!rc) rc = req_push(rt, (int)from, (int)to, err);
  return rc;
}

int ovta_rt_dep_pop(ovta_rt *rt, ovta_rt_stage from, ovta_rt_stage to, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_dep_pop: no command queue");
  int rc = check_stages("ovta_rt_dep_pop", (int)from, (int)to, err);
  if (rc) return rc;
  int q = queue_of((int)from, (int)to);
  if (rt->popped[q] >= rt->pushed[q])
    return OVTA_FAIL(err, OVTA_EINVAL,
                     "ovta_rt_dep_pop(%s, %s): unbalanced pop: the %s queue has no token (%" PRIu64
                     " pushed, %" PRIu64 " popped since the last synchronize); call ovta_rt_dep_push(%s, %s) first",
                     stage_names[from], stage_names[to], queue_names[q], rt->pushed[q], rt->popped[q],
                     stage_names[from], stage_names[to]);
  rc = rt_maybe_flush(rt, err);
  if (!rc) rc = req_pop(rt, (int)from, (int)to, err);
  return rc;
}

/* ---------------------------------------------------------------- 2. Memory */

static const char *mt_name(uint32_t t) {
  const char *s = ovta_mem_type_name(t);
  return s ? s : "?";
}

/* The DRAM side of a 2D transfer: row r at element elem_offset + r*x_stride of buf, x_size
 * elements; all rows inside buf, and the element address fits the 32-bit dram_base field. */
static int dram_range(ovta_rt *rt, const char *fn, uint32_t type, ovta_buf *buf, uint64_t elem_offset,
                      uint32_t x_size, uint32_t y_size, uint32_t x_stride, uint32_t *dram_base, ovta_error *err) {
  uint64_t eb = (uint64_t)ovta_elem_bytes(rt->cfg, type);
  if (!buf) return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): no DMA buffer", fn, mt_name(type));
  if (buf->dev != rt->dev)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): the buffer belongs to another device", fn, mt_name(type));
  if (buf->phys % eb)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): buffer address 0x%" PRIx64 " is not aligned to the %" PRIu64
                     "-byte element", fn, mt_name(type), buf->phys, eb);
  uint64_t first = buf->phys / eb + elem_offset;
  if (x_size && y_size) {
    uint64_t end = elem_offset + (uint64_t)(y_size - 1) * x_stride + x_size; /* elements */
    if (elem_offset > buf->size || end > buf->size / eb)
      return OVTA_FAIL(err, OVTA_EINVAL,
                       "%s(%s): rows reach element %" PRIu64 " (offset %" PRIu64 ", %u rows of %u, stride %u) but "
                       "the buffer holds %zu elements of %" PRIu64 " bytes",
                       fn, mt_name(type), end, elem_offset, y_size, x_size, x_stride, (size_t)(buf->size / eb), eb);
  }
  if (first > UINT32_MAX)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): element address %" PRIu64 " does not fit the 32-bit dram_base", fn,
                     mt_name(type), first);
  *dram_base = (uint32_t)first;
  return OVTA_OK;
}

static int check_u16(const char *fn, uint32_t type, const char *name, uint32_t v, ovta_error *err) {
  if (v > 0xffff)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): %s = %u does not fit 16 bits", fn, mt_name(type), name, v);
  return OVTA_OK;
}

/* LOAD (isa/ISA.md): W = x_pad_0 + x_size + x_pad_1; SRAM [sram_base, sram_base + (y_pad_0 +
 * y_size + y_pad_1) * W) is written; padding only for INP and ACC; x_size = 0 is a sync. */
int ovta_rt_load_2d(ovta_rt *rt, ovta_mem_type type, uint32_t sram_base, ovta_buf *buf, uint64_t elem_offset,
                    uint32_t x_size, uint32_t y_size, uint32_t x_stride, const ovta_rt_pad *pad, ovta_error *err) {
  const char *fn = "ovta_rt_load_2d";
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no command queue", fn);
  if (type != OVTA_MEM_UOP && type != OVTA_MEM_WGT && type != OVTA_MEM_INP && type != OVTA_MEM_ACC)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: memory type %d cannot be loaded (only UOP, WGT, INP, ACC)", fn, (int)type);
  ovta_rt_pad p = pad ? *pad : (ovta_rt_pad){0, 0, 0, 0};
  bool padded = p.x0 || p.x1 || p.y0 || p.y1;
  if (padded && type != OVTA_MEM_INP && type != OVTA_MEM_ACC)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): padding is allowed only for INP and ACC loads", fn, mt_name(type));
  if (p.x0 > 15 || p.x1 > 15 || p.y0 > 15 || p.y1 > 15)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): padding (x0 %u, y0 %u, x1 %u, y1 %u) beyond 15", fn, mt_name(type),
                     p.x0, p.y0, p.x1, p.y1);
  int rc = check_u16(fn, type, "x_size", x_size, err);
  if (!rc) rc = check_u16(fn, type, "y_size", y_size, err);
  if (!rc) rc = check_u16(fn, type, "x_stride", x_stride, err);
  if (rc) return rc;
  uint32_t dram_base = 0;
  if (x_size) {
    uint64_t w = (uint64_t)p.x0 + x_size + p.x1;
    uint64_t end = (uint64_t)sram_base + ((uint64_t)p.y0 + y_size + p.y1) * w;
    uint64_t depth = (uint64_t)ovta_sram_depth(rt->cfg, type);
    if (end > depth)
      return OVTA_FAIL(err, OVTA_EINVAL, "%s(%s): SRAM range [%u, %" PRIu64 ") is beyond the %s buffer of %" PRIu64
                       " elements", fn, mt_name(type), sram_base, end, mt_name(type), depth);
    rc = dram_range(rt, fn, type, buf, elem_offset, x_size, y_size, x_stride, &dram_base, err);
    if (rc) return rc;
  }
  rc = rt_maybe_flush(rt, err);
  if (rc) return rc;
  ovta_insn in = {0};
  in.opcode = OVTA_OP_LOAD;
  in.memory_type = type;
  in.sram_base = sram_base;
  in.dram_base = dram_base;
  in.x_size = x_size;
  in.y_size = y_size;
  in.x_stride = x_stride;
  in.x_pad_0 = p.x0;
  in.x_pad_1 = p.x1;
  in.y_pad_0 = p.y0;
  in.y_pad_1 = p.y1;
  rc = rt_emit(rt, &in, fn, err);
  if (!rc && type == OVTA_MEM_UOP && x_size) /* the caller's micro-ops replace cached kernels */
    rt_uop_clobber(rt, sram_base, (uint64_t)sram_base + (uint64_t)y_size * x_size);
  return rc;
}

/* STORE: SRAM [sram_base, sram_base + y_size * x_size) of OUT to DRAM rows; x_size = 0 is a sync. */
int ovta_rt_store_2d(ovta_rt *rt, ovta_mem_type type, uint32_t sram_base, ovta_buf *buf, uint64_t elem_offset,
                     uint32_t x_size, uint32_t y_size, uint32_t x_stride, ovta_error *err) {
  const char *fn = "ovta_rt_store_2d";
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "%s: no command queue", fn);
  if (type != OVTA_MEM_OUT)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: memory type %d cannot be stored (only OUT)", fn, (int)type);
  int rc = check_u16(fn, type, "x_size", x_size, err);
  if (!rc) rc = check_u16(fn, type, "y_size", y_size, err);
  if (!rc) rc = check_u16(fn, type, "x_stride", x_stride, err);
  if (rc) return rc;
  uint32_t dram_base = 0;
  if (x_size) {
    uint64_t end = (uint64_t)sram_base + (uint64_t)y_size * x_size;
    uint64_t depth = (uint64_t)rt->cfg->out_depth;
    if (end > depth)
      return OVTA_FAIL(err, OVTA_EINVAL, "%s(OUT): SRAM range [%u, %" PRIu64 ") is beyond the OUT buffer of %" PRIu64
                       " elements", fn, sram_base, end, depth);
    rc = dram_range(rt, fn, type, buf, elem_offset, x_size, y_size, x_stride, &dram_base, err);
    if (rc) return rc;
  }
  rc = rt_maybe_flush(rt, err);
  if (rc) return rc;
  ovta_insn in = {0};
  in.opcode = OVTA_OP_STORE;
  in.memory_type = OVTA_MEM_OUT;
  in.sram_base = sram_base;
  in.dram_base = dram_base;
  in.x_size = x_size;
  in.y_size = y_size;
  in.x_stride = x_stride;
  return rt_emit(rt, &in, fn, err);
}

/* ---------------------------------------------------------------- Overlap scheduling */

/* Whether a and b (GEMM/ALU footprints) touch a common ACC/OUT element in a way that orders them:
 * one writes what the other reads or writes (intervals: conservative). */
static bool fp_conflict(const rt_fp *a, const rt_fp *b) {
  if (!a->known || !b->known) return true;
  if (a->empty || b->empty) return false;
  bool dd = a->dst_lo <= b->dst_hi && b->dst_lo <= a->dst_hi;
  bool ds = b->reads_src && a->dst_lo <= b->src_hi && b->src_lo <= a->dst_hi;
  bool sd = a->reads_src && b->dst_lo <= a->src_hi && a->src_lo <= b->dst_hi;
  return dd || ds || sd;
}

/* isa/ISA.md "Overlap": b may carry the bit after a (a GEMM and an ALU, independent, each one's
 * dst in one ACC half and not the same one). */
static bool fp_may_overlap(const ovta_rt *rt, const ovta_insn *ia, const rt_fp *a, const ovta_insn *ib,
                           const rt_fp *b) {
  if (!a->known || !b->known || a->empty || b->empty || ia->opcode == ib->opcode) return false;
  if (fp_conflict(a, b)) return false;
  uint32_t half = (uint32_t)rt->cfg->acc_depth / 2;
  bool a_hi = a->dst_lo >= half, b_hi = b->dst_lo >= half;
  if ((a->dst_hi >= half) != a_hi || (b->dst_hi >= half) != b_hi) return false; /* spans both halves */
  return a_hi != b_hi;
}

/* The stream's tokens can all be taken, with the command queues' capacity and in-order fetch
 * (fsim's fixed schedule, without data): no deadlock from the new order. */
static bool tokens_complete(const ovta_rt *rt) {
  static const int popq[3][2] = {{-1, RT_Q_C2L}, {RT_Q_L2C, RT_Q_S2C}, {RT_Q_C2S, -1}};
  static const int pushq[3][2] = {{-1, RT_Q_L2C}, {RT_Q_C2L, RT_Q_C2S}, {RT_Q_S2C, -1}};
  uint32_t n = rt->n_insns, fetched = 0, retired = 0;
  uint32_t cmd_depth = (uint32_t)rt->cfg->cmd_queue_depth, dep_depth = (uint32_t)rt->cfg->dep_queue_depth;
  uint32_t *q = malloc(sizeof *q * 3 * (n ? n : 1)); /* per module: its instructions in order */
  if (!q) return false;
  uint32_t head[3] = {0}, tail[3] = {0};
  uint64_t tok[RT_Q_COUNT] = {0};
  for (;;) {
    bool progress = false;
    while (fetched < n) {
      int m = rt->stage[fetched];
      if (tail[m] - head[m] >= cmd_depth) break;
      q[(size_t)m * n + tail[m]++] = fetched++;
      progress = true;
    }
    for (int m = 0; m < 3; m++)
      while (head[m] < tail[m]) {
        const ovta_insn *in = &rt->insns[q[(size_t)m * n + head[m]]];
        bool pp[2] = {in->pop_prev, in->pop_next}, ps[2] = {in->push_prev, in->push_next};
        bool ok = true;
        for (int k = 0; k < 2; k++) {
          if (pp[k] && popq[m][k] >= 0 && tok[popq[m][k]] == 0) ok = false;
          if (ps[k] && pushq[m][k] >= 0 && tok[pushq[m][k]] >= dep_depth) ok = false;
        }
        if (!ok) break;
        for (int k = 0; k < 2; k++)
          if (pp[k] && popq[m][k] >= 0) tok[popq[m][k]]--;
        for (int k = 0; k < 2; k++)
          if (ps[k] && pushq[m][k] >= 0) tok[pushq[m][k]]++;
        head[m]++;
        retired++;
        progress = true;
      }
    if (retired == n || !progress) break;
  }
  free(q);
  return retired == n;
}

/* Micro-op executions of a GEMM/ALU (its loop nest times its micro-ops). */
static uint64_t insn_work(const ovta_insn *x) {
  return (uint64_t)(x->uop_end - x->uop_bgn) * x->iter_out * x->iter_in;
}

/* May ALU passes of aw and bw micro-ops both follow a GEMM of gw (the second beside the next GEMM)?
 * Together no longer than it, each at least a quarter of it: a chunked epilogue's half passes. (A
 * 3x3 conv's passes, a ninth of its GEMM, keep one per GEMM: two there measured +0.1% on a conv
 * with a fused add.) */
static bool pair_fits(uint64_t aw, uint64_t bw, uint64_t gw) { return aw + bw <= gw && 4 * aw >= gw && 4 * bw >= gw; }

/* ALU instructions deferred at most at once by the overlap scheduling. */
enum { RT_OVERLAP_WINDOW = 16 };

/* How many placed GEMM/ALU instructions a LOAD UOP may pass (hoist_uop_load). */
enum { RT_UOP_HOIST = 4 };

/* Place LOAD UOP c (micro-op SRAM [ulo, uhi), no tokens) among the no placed instructions
 * order[0..no): not after a GEMM that a later ALU could run beside (nor after two ALUs, the
 * second of which a later GEMM could run beside) (a LOAD UOP runs alone, so
 * between the last GEMM of a tile and the next tile's bias MOV it breaks their overlap), but
 * before it, at the latest position whose neighbours cannot overlap anyway; it passes only
 * GEMM/ALU instructions (at most RT_UOP_HOIST) whose micro-ops it does not overwrite. Else at the
 * end. */
static void hoist_uop_load(const ovta_rt *rt, const uint32_t *pos, uint32_t c, uint64_t ulo, uint64_t uhi,
                           uint32_t *order, uint32_t no, bool half_pair) {
  const ovta_insn *x = &rt->insns[pos[c]];
  uint32_t at = no;
  bool tokens = x->pop_prev || x->pop_next || x->push_prev || x->push_next;
  const ovta_insn *last = no ? &rt->insns[pos[order[no - 1]]] : NULL;
  /* after a GEMM, or after the second of two half passes placed after one (half_pair: it runs beside the next GEMM) */
  bool pair = last && (last->opcode == OVTA_OP_GEMM || half_pair);
  if (!tokens && pair && rt->fp[pos[order[no - 1]]].known)
    for (uint32_t q = no; q-- > 0 && no - q <= RT_UOP_HOIST;) {
      const ovta_insn *y = &rt->insns[pos[order[q]]];
      const rt_fp *fy = &rt->fp[pos[order[q]]];
      if (!fy->known || (y->uop_bgn < uhi && ulo < y->uop_end)) break;
      const ovta_insn *b = q ? &rt->insns[pos[order[q - 1]]] : NULL;
      if (!b || !fp_may_overlap(rt, b, &rt->fp[pos[order[q - 1]]], y, fy)) {
        at = q;
        break;
      }
    }
  memmove(order + at + 1, order + at, sizeof *order * (no - at));
  order[at] = c;
}

/* How many instructions (at most one of them a GEMM) pull_alu looks past. */
enum { RT_PULL_SCAN = 12 };

/* An ALU that may run beside GEMM c although it comes later in the stream: the first ALU after
 * c, past at most one GEMM and RT_PULL_SCAN GEMM/ALUs (no LOAD UOP, barrier or instruction taken
 * already), that pairs with c (fp_may_overlap), touches no element of any instruction it passes
 * and takes no token but store->compute (a chunked epilogue's bias MOV, compiler/accel/README.md
 * "Chunked epilogue": moving its pop earlier only waits for the store sooner; tokens_complete
 * still checks the whole stream). Its index, or nc when none. */
static uint32_t pull_alu(const ovta_rt *rt, const uint32_t *pos, uint32_t nc, uint32_t c, const bool *taken) {
  const ovta_insn *g = &rt->insns[pos[c]];
  const rt_fp *fg = &rt->fp[pos[c]];
  int gemms = 0;
  for (uint32_t j = c + 1; j < nc && j <= c + RT_PULL_SCAN; j++) {
    const ovta_insn *y = &rt->insns[pos[j]];
    const rt_fp *fy = &rt->fp[pos[j]];
    if (taken[j] || !fy->known || (y->opcode != OVTA_OP_GEMM && y->opcode != OVTA_OP_ALU)) return nc;
    if (y->opcode == OVTA_OP_ALU && !y->pop_prev && !y->push_prev && !y->push_next && 2 * insn_work(y) <= insn_work(g) &&
        fp_may_overlap(rt, g, fg, y, fy)) {
      bool free = true;
      for (uint32_t k = c + 1; k < j && free; k++) free = !fp_conflict(&rt->fp[pos[k]], fy);
      if (free) return j;
    }
    if (y->opcode == OVTA_OP_GEMM && ++gemms > 1) return nc;
  }
  return nc;
}

/* One scheduling pass over the compute instructions at stream positions pos[0..nc): their new
 * order (indices into pos) in order[]. ALU instructions (unless nodefer) are deferred, in their
 * order, and placed right after a later GEMM: the oldest, and the next one too when the two
 * are a chunked epilogue's half passes (pair_fits: the second runs beside the next GEMM; a third
 * would run alone); a GEMM that gets none takes a later ALU that pairs with it (pull_alu).
 * An instruction placed now that conflicts
 * with a deferred one (a LOAD UOP: overwrites its micro-ops; or it pops a queue a deferred one
 * pushes) places the deferred ones it depends on first, and the earlier deferred ones those
 * depend on. A barrier (a compute instruction other than GEMM/ALU/LOAD UOP: LOAD ACC, FINISH)
 * or a placed instruction that pushes compute->store places all of them first, and a deferred
 * ALU with that push never passes an earlier deferred one (the push vouches for every earlier
 * OUT write). GEMMs keep their order. */
static void schedule_order(const ovta_rt *rt, const uint32_t *pos, uint32_t nc, const bool *nodefer, uint32_t *order,
                           uint32_t *def, bool *flush, bool *taken) {
  uint32_t no = 0, nd = 0; /* placed, deferred (indices into pos) */
  bool half_pair = false;  /* the last placed are two half passes after a GEMM (pair_fits) */
  memset(taken, 0, nc);
  for (uint32_t c = 0; c < nc; c++) {
    if (taken[c]) continue; /* pulled before an earlier GEMM */
    const ovta_insn *x = &rt->insns[pos[c]];
    const rt_fp *fx = &rt->fp[pos[c]];
    bool uload = x->opcode == OVTA_OP_LOAD && x->memory_type == OVTA_MEM_UOP;
    uint64_t ulo = x->sram_base, uhi = ulo + (uint64_t)(x->y_pad_0 + x->y_size + x->y_pad_1) *
                                                 (x->x_size ? x->x_pad_0 + x->x_size + x->x_pad_1 : 0);
    bool barrier = !fx->known && !uload, defer = fx->known && x->opcode == OVTA_OP_ALU && !nodefer[c];
    for (uint32_t d = nd; d-- > 0;) {
      const rt_fp *fd = &rt->fp[pos[def[d]]];
      const ovta_insn *xd = &rt->insns[pos[def[d]]];
      flush[d] = !defer && (barrier || x->push_next || (x->pop_next && xd->push_next) ||
                            (x->pop_prev && xd->push_prev) ||
                            (uload ? xd->uop_bgn < uhi && ulo < xd->uop_end : fp_conflict(fd, fx)));
      for (uint32_t e = d + 1; e < nd && !flush[d]; e++)
        if (flush[e] && (rt->insns[pos[def[e]]].push_next || fp_conflict(fd, &rt->fp[pos[def[e]]]))) flush[d] = true;
    }
    uint32_t kept = 0;
    for (uint32_t d = 0; d < nd; d++) {
      if (flush[d]) order[no++] = def[d];
      else def[kept++] = def[d];
    }
    nd = kept;
    if (defer) {
      if (nd == RT_OVERLAP_WINDOW) { /* bounded work (ALU-only streams): the oldest goes now */
        order[no++] = def[0];
        memmove(def, def + 1, sizeof *def * --nd);
      }
      def[nd++] = c;
      continue;
    }
    if (uload) hoist_uop_load(rt, pos, c, ulo, uhi, order, no++, half_pair);
    else order[no++] = c;
    half_pair = false;
    if (fx->known && x->opcode == OVTA_OP_GEMM && nd) { /* the oldest deferred ALUs after this GEMM */
      uint64_t gw = insn_work(x), aw = 0;
      for (int k = 0; k < 2 && nd && (k == 0 || pair_fits(aw, insn_work(&rt->insns[pos[def[0]]]), gw)); k++) {
        aw += insn_work(&rt->insns[pos[def[0]]]);
        order[no++] = def[0];
        memmove(def, def + 1, sizeof *def * --nd);
        half_pair = k == 1;
      }
    } else if (fx->known && x->opcode == OVTA_OP_GEMM && !nodefer[c]) {
      uint32_t j = pull_alu(rt, pos, nc, c, taken);
      if (j < nc && !nodefer[j]) taken[j] = true, order[no++] = j;
    }
  }
  for (uint32_t d = 0; d < nd; d++) order[no++] = def[d];
  if (no != nc) unreachable();
}

/* Reorder the compute module's GEMM/ALU so ALU instructions sit between GEMMs of the other ACC
 * half, and set the overlap bit where isa/ISA.md allows it (jit-runtime/README.md "Overlap"):
 * schedule_order, then an ALU that moved but found no GEMM to overlap stays where it was (it
 * would only delay its tokens), and the order is made again, until it holds. The result is kept
 * only when the stream's tokens still all complete (tokens_complete); else the stream runs as
 * issued. */
static int overlap_schedule(ovta_rt *rt, ovta_error *err) {
  uint32_t n = rt->n_insns, nc = 0;
  for (uint32_t i = 0; i < n; i++) nc += rt->stage[i] == OVTA_RT_COMPUTE;
  if (nc < 2) return OVTA_OK;
  uint32_t *pos = malloc(sizeof *pos * nc), *order = malloc(sizeof *order * nc), *def = malloc(sizeof *def * nc);
  ovta_insn *keep = malloc(sizeof *keep * nc);
  rt_fp *keepf = malloc(sizeof *keepf * nc);
  bool *flush = malloc(nc), *nodefer = calloc(nc, 1), *mark = malloc(nc), *taken = malloc(nc);
  if (!pos || !order || !def || !keep || !keepf || !flush || !nodefer || !mark || !taken) {
    free(pos), free(order), free(def), free(keep), free(keepf), free(flush), free(nodefer), free(mark), free(taken);
    return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory scheduling %u instructions", n);
  }
  nc = 0;
  for (uint32_t i = 0; i < n; i++)
    if (rt->stage[i] == OVTA_RT_COMPUTE) pos[nc++] = i;
  for (uint32_t c = 0; c < nc; c++) keep[c] = rt->insns[pos[c]], keepf[c] = rt->fp[pos[c]];
  /* a kernel's LOAD UOP took the pops meant for its GEMM/ALU (the runtime attaches pending pops
   * to the next instruction): give them to the GEMM/ALU, so the load can pass deferred ALUs
   * (later pops only wait longer; a LOAD UOP touches no SRAM a token guards) */
  for (uint32_t c = 0; c + 1 < nc; c++) {
    ovta_insn *x = &rt->insns[pos[c]], *y = &rt->insns[pos[c + 1]];
    if (x->opcode != OVTA_OP_LOAD || x->memory_type != OVTA_MEM_UOP || !x->x_size || !rt->fp[pos[c + 1]].known)
      continue;
    if (x->pop_prev && !y->pop_prev) x->pop_prev = 0, y->pop_prev = 1;
    if (x->pop_next && !y->pop_next) x->pop_next = 0, y->pop_next = 1;
  }
  for (int round = 0; round < 8; round++) {
    schedule_order(rt, pos, nc, nodefer, order, def, flush, taken);
    bool again = false;
    for (uint32_t c = 0; c < nc; c++)
      mark[c] = c > 0 && fp_may_overlap(rt, &rt->insns[pos[order[c - 1]]], &rt->fp[pos[order[c - 1]]],
                                        &rt->insns[pos[order[c]]], &rt->fp[pos[order[c]]]);
    for (uint32_t c = 0; c < nc; c++) {
      /* an ALU placed after its original place with no GEMM to run beside: leave it in place */
      bool paired = mark[c] || (c + 1 < nc && mark[c + 1]);
      if (order[c] < c && rt->insns[pos[order[c]]].opcode == OVTA_OP_ALU && !nodefer[order[c]] && !paired) {
        nodefer[order[c]] = true;
        again = true;
      }
    }
    if (!again) break;
  }
  /* apply, mark, and check the tokens */
  uint64_t moved = 0, marked = 0;
  ovta_insn *moving = malloc(sizeof *moving * nc);
  if (!moving) {
    for (uint32_t c = 0; c < nc; c++) rt->insns[pos[c]] = keep[c];
    free(pos), free(order), free(def), free(keep), free(keepf), free(flush), free(nodefer), free(mark), free(taken);
    return OVTA_FAIL(err, OVTA_ENOMEM, "runtime: out of memory scheduling %u instructions", n);
  }
  for (uint32_t c = 0; c < nc; c++) moving[c] = rt->insns[pos[c]];
  for (uint32_t c = 0; c < nc; c++) {
    rt->insns[pos[c]] = moving[order[c]];
    rt->fp[pos[c]] = keepf[order[c]];
    moved += order[c] != c;
    if (c > 0 && fp_may_overlap(rt, &rt->insns[pos[c - 1]], &rt->fp[pos[c - 1]], &rt->insns[pos[c]], &rt->fp[pos[c]])) {
      rt->insns[pos[c]].overlap = 1;
      marked++;
    }
  }
  if (!tokens_complete(rt)) { /* run as issued */
    for (uint32_t c = 0; c < nc; c++) rt->insns[pos[c]] = keep[c], rt->fp[pos[c]] = keepf[c];
    rt->stats.overlap_reverted++;
  } else {
    rt->stats.overlap_moved += moved;
    rt->stats.overlap_marked += marked;
  }
  free(moving);
  free(pos), free(order), free(def), free(keep), free(keepf), free(flush), free(nodefer), free(mark), free(taken);
  return OVTA_OK;
}

/* Merge LOAD UOPs that follow each other in the compute module (a kernel's first use, several at a
 * tile's end after hoist_uop_load): when the next one has no tokens, the same row length, lands
 * right after the rows of the one before in the uop SRAM and its DRAM row lies a constant stride
 * after them, the first loads it as one more row of its 2D transfer and it becomes a sync (x_size
 * 0). A LOAD UOP runs alone and waits for the DMA behind the load module's bursts (~40-450 cycles
 * each on tsim); one transfer of several rows waits once. Only ALU instructions whose micro-ops
 * lie outside the later load's SRAM rows may come between the two (they see nothing early), and
 * at most RT_UOP_MERGE_SPAN stream positions: merged across GEMMs or from far ahead, a row waits
 * behind the bursts of the load module's transfers where alone it found the port free (a 3x3 conv
 * with a fused add measured +0.1%). */
/* Before the compute module's first GEMM (a stream's set-up: the bias's LOAD ACC, the first MOVs
 * and the first kernels' LOAD UOPs, merge_uop_loads before), the LOAD UOPs without tokens go first,
 * in their order (unless a GEMM/ALU before them reads their micro-op rows), and the initial
 * compute->load credits move to the first compute instructions: the LOAD UOPs then take the DMA
 * port before the load module's first bursts instead of waiting behind them (ResNet-18 C4: 157 +
 * 114 + 309 cycles), and the load module starts as soon as before. Only when the set-up has ALU
 * work of its own (the first bias MOVs) for the first transfers to run under: else the first GEMM
 * waits for them, and a LOAD UOP ahead of them delays it (a runtime matmul: +26 cycles). */
static void front_uop_loads(ovta_rt *rt) {
  uint32_t n = 0;
  while (n < rt->n_insns && !(rt->stage[n] == OVTA_RT_COMPUTE && rt->insns[n].opcode == OVTA_OP_GEMM)) n++;
  uint32_t *pos = malloc(sizeof *pos * (n ? n : 1));
  ovta_insn *in = malloc(sizeof *in * (n ? n : 1));
  rt_fp *fp = malloc(sizeof *fp * (n ? n : 1));
  bool *front = calloc(n ? n : 1, 1);
  if (!pos || !in || !fp || !front) {
    free(pos), free(in), free(fp), free(front);
    return; /* an optimization only */
  }
  uint32_t nc = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (rt->stage[i] != OVTA_RT_COMPUTE) continue;
    const ovta_insn *x = &rt->insns[i];
    bool f = x->opcode == OVTA_OP_LOAD && x->memory_type == OVTA_MEM_UOP && x->x_size && !x->pop_prev && !x->pop_next &&
             !x->push_prev && !x->push_next;
    uint32_t lo = x->sram_base, hi = lo + (x->y_pad_0 + x->y_size + x->y_pad_1) * (x->x_pad_0 + x->x_size + x->x_pad_1);
    for (uint32_t k = 0; k < nc && f; k++)
      f = !(rt->fp[pos[k]].known && in[k].uop_bgn < hi && lo < in[k].uop_end);
    front[nc] = f;
    pos[nc] = i, in[nc] = *x, fp[nc++] = rt->fp[i];
  }
  uint64_t alu = 0; /* the set-up's own ALU work (the first MOVs), which the load module's first transfers run under */
  for (uint32_t k = 0; k < nc; k++)
    if (fp[k].known && in[k].opcode == OVTA_OP_ALU) alu += insn_work(&in[k]);
  if (!alu) {
    free(pos), free(in), free(fp), free(front);
    return;
  }
  uint32_t o = 0, pushes = 0;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t k = 0; k < nc; k++)
      if (front[k] == (pass == 0)) rt->insns[pos[o]] = in[k], rt->fp[pos[o]] = fp[k], o++;
  /* compute->load pushes before the first GEMM are the initial credits (no GEMM has read INP/WGT):
   * on the first instructions, so the load module does not wait for the moved ones */
  for (uint32_t k = 0; k < nc; k++) pushes += rt->insns[pos[k]].push_prev, rt->insns[pos[k]].push_prev = 0;
  for (uint32_t k = 0; k < nc; k++) rt->insns[pos[k]].push_prev = k < pushes;
  free(pos), free(in), free(fp), free(front);
}

enum { RT_UOP_MERGE_SPAN = 12 }; /* stream positions a merged LOAD UOP may lie after the first */
static void merge_uop_loads(ovta_rt *rt) {
  ovta_insn *a = NULL;
  uint32_t from = 0; /* the first instruction after a */
  for (uint32_t i = 0; i < rt->n_insns; i++) {
    if (rt->stage[i] != OVTA_RT_COMPUTE) continue;
    ovta_insn *b = &rt->insns[i];
    bool uload = b->opcode == OVTA_OP_LOAD && b->memory_type == OVTA_MEM_UOP && b->x_size && !b->y_pad_0 &&
                 !b->y_pad_1 && !b->x_pad_0 && !b->x_pad_1;
    if (!uload) {
      if (!rt->fp[i].known || b->opcode == OVTA_OP_GEMM) a = NULL; /* an ALU may come between (checked below), nothing else */
      continue;
    }
    bool tokens = b->pop_prev || b->pop_next || b->push_prev || b->push_next;
    uint32_t lo = b->sram_base, hi = b->sram_base + b->x_size;
    for (uint32_t j = from; a && j < i; j++) /* none between reads b's micro-op SRAM (b's load moves before it) */
      if (rt->stage[j] == OVTA_RT_COMPUTE && rt->fp[j].known && rt->insns[j].uop_bgn < hi && lo < rt->insns[j].uop_end)
        a = NULL;
    if (a && i - (from - 1) > RT_UOP_MERGE_SPAN) a = NULL; /* uops for far later: a's transfer would wait once more per row */
    if (a && !tokens && b->y_size == 1 && b->x_size == a->x_size && b->sram_base == a->sram_base + a->y_size * a->x_size &&
        b->dram_base > a->dram_base) {
      uint64_t stride = a->y_size == 1 ? b->dram_base - a->dram_base : a->x_stride;
      if (stride >= a->x_size && stride <= 0xffff && (uint64_t)a->dram_base + a->y_size * stride == b->dram_base &&
          a->y_size < 0xffff) {
        a->y_size++, a->x_stride = (uint32_t)stride;
        b->x_size = 0, b->y_size = 0, b->x_stride = 0, b->sram_base = 0, b->dram_base = 0;
        rt->stats.uop_loads_merged++;
        continue;
      }
    }
    a = b, from = i + 1;
  }
}

/* ---------------------------------------------------------------- 6. Running */

static void reset_stream(ovta_rt *rt) {
  rt->n_insns = 0;
  for (int m = 0; m < 3; m++) {
    rt->last[m] = -1;
    rt->pend_pop_prev[m] = rt->pend_pop_next[m] = false;
  }
  memset(rt->pushed, 0, sizeof rt->pushed);
  memset(rt->popped, 0, sizeof rt->popped);
}

static void dump_stream(ovta_rt *rt, bool auto_flush) {
  FILE *f = rt->dbg;
  fprintf(f, "# ovta-rt run %" PRIu64 "%s: %u instructions at 0x%" PRIx64 " (backend %s)\n.config %s\n",
          rt->stats.runs + 1, auto_flush ? " (auto flush)" : "", rt->n_insns, rt->insn_buf->phys,
          ovta_dev_backend(rt->dev), rt->cfg->name);
  char line[512];
  for (uint32_t i = 0; i < rt->n_insns; i++) {
    rt_format_insn(&rt->insns[i], line, sizeof line);
    fprintf(f, "%s    # %u %s\n", line, i, stage_names[rt->stage[i]]);
  }
  fflush(f);
}

/* Run the stream (synchronize or auto flush):
 *   1. pending pops go onto syncs; 2. every token still in a queue is taken by a sync on its
 *   receiver (drained); 3. the load and store modules each push a last token to compute, which
 *   FINISH pops (so FINISH retires after everything); 4. encode into the DMA buffer and run.
 * With carry (auto flush), the tokens drained in 2 are pushed again by syncs at the start of the
 * next stream, so pops issued after the split still find them. */
static int run_stream(ovta_rt *rt, bool carry, uint32_t timeout_ms, ovta_error *err) {
  int rc = OVTA_OK;
  uint64_t outstanding[RT_Q_COUNT] = {0};
  rt->flushing = true;
  for (int m = 0; m < 3 && !rc; m++)
    if (rt->pend_pop_prev[m] || rt->pend_pop_next[m]) rc = emit_sync(rt, (ovta_rt_stage)m, false, false, err);
  for (int q = 0; q < RT_Q_COUNT && !rc; q++) {
    outstanding[q] = rt->pushed[q] - rt->popped[q];
    for (uint64_t i = 0; i < outstanding[q] && !rc; i++) {
      rc = req_pop(rt, queue_from[q], queue_to[q], err);
      if (!rc) rc = emit_sync(rt, (ovta_rt_stage)queue_to[q], false, false, err);
    }
  }
  if (!rc) rc = req_push(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, err);
  if (!rc) rc = req_push(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, err);
  if (!rc) rc = req_pop(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, err);
  if (!rc) rc = req_pop(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, err);
  if (!rc) {
    ovta_insn fin = {0};
    fin.opcode = OVTA_OP_FINISH;
    rc = rt_emit(rt, &fin, "runtime FINISH", err);
  }
  if (!rc && rt->overlap) rc = overlap_schedule(rt, err);
  if (!rc && rt->overlap) merge_uop_loads(rt);
  if (!rc && rt->overlap) front_uop_loads(rt);
  /* the instruction DMA buffer */
  size_t bytes = (size_t)rt->n_insns * 16;
  if (!rc && (!rt->insn_buf || rt->insn_buf->size < bytes)) {
    size_t want = rt->insn_buf ? rt->insn_buf->size : 4096;
    while (want < bytes) want *= 2;
    if (rt->insn_buf) ovta_buf_free(rt->insn_buf);
    rt->insn_buf = NULL;
    rc = ovta_buf_alloc(rt->dev, want, &rt->insn_buf, err);
    if (rc) ovta_error_wrap(err, "runtime: instruction buffer of %zu bytes", want);
  }
  for (uint32_t i = 0; i < rt->n_insns && !rc; i++) {
    ovta_insn_bits b;
    if (ovta_insn_encode(rt->isa, &rt->insns[i], &b, err)) unreachable(); /* checked by rt_emit */
    ovta_insn_bits_store(&b, (uint8_t *)rt->insn_buf->host + (size_t)i * 16);
  }
  if (!rc) rc = ovta_buf_flush(rt->insn_buf, 0, bytes, err);
  if (!rc) {
    if (rt->debug & OVTA_RT_DEBUG_INSNS) dump_stream(rt, carry);
    uint32_t n = rt->n_insns;
    rt->stats.runs++;
    if (carry) rt->stats.auto_flushes++;
    rc = ovta_dev_run(rt->dev, rt->insn_buf->phys, n, timeout_ms, err);
    if (rc) {
      ovta_error_wrap(err, "runtime run %" PRIu64 "%s (%u instructions)", rt->stats.runs,
                      carry ? " (auto flush)" : "", n);
      rt_uop_invalidate(rt);
    }
  }
  reset_stream(rt);
  if (!rc && carry)
    for (int q = 0; q < RT_Q_COUNT && !rc; q++)
      for (uint64_t i = 0; i < outstanding[q] && !rc; i++) rc = req_push(rt, queue_from[q], queue_to[q], err);
  rt->flushing = false;
  return rc;
}

int rt_maybe_flush(ovta_rt *rt, ovta_error *err) {
  if (rt->flushing || rt->n_insns < rt->opts.max_insns) return OVTA_OK;
  return run_stream(rt, true, rt->opts.timeout_ms, err);
}

int ovta_rt_synchronize(ovta_rt *rt, uint32_t timeout_ms, ovta_error *err) {
  if (!rt) return OVTA_FAIL(err, OVTA_EINVAL, "ovta_rt_synchronize: no command queue");
  if (rt->n_insns == 0 && !rt->pend_pop_prev[OVTA_RT_COMPUTE] && !rt->pend_pop_next[OVTA_RT_COMPUTE] &&
      !rt->pend_pop_next[OVTA_RT_LOAD] && !rt->pend_pop_prev[OVTA_RT_STORE]) {
    reset_stream(rt);
    return OVTA_OK;
  }
  return run_stream(rt, false, timeout_ms, err);
}
