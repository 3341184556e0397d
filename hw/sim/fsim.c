/* fsim.c: the functional simulator (fsim.h), isa/ISA.md exactly.
 *
 * Sections:
 *   1. State      - SRAMs (persistent until fsim_clear), queues and tokens (per run); the work
 *                   count behind the timeout and the work budget.
 *   2. Checks     - DRAM bounds and loop index ranges, all before an instruction has any effect.
 *   3. LOAD/STORE
 *   4. GEMM       - decoded micro-ops, hoisted index math, kernels specialised per shape.
 *   5. ALU
 *   6. Machine    - fetch, the start rule, modules, scheduling, deadlock, timeout.
 *   7. Simulator  - create, run, budget, clear, free, SRAM access (fsim.h).
 *
 * Depends on isa/ only; DRAM is reached through fsim_dram, the driver backend "fsim" is
 * driver/backend_fsim.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fsim.h"

/* The GEMM/ALU loop nests (one function each, never inlined): the fuzz build leaves them out of
 * its coverage instrumentation by name (tests/fuzz/coverage-ignore.txt), as a comparison traced
 * per element made them ~10x slower there; ASan and UBSan still check them. */
#define KERNEL static __attribute__((noinline))

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fsim keeps ACC elements and micro-ops in host order and assumes a little-endian host"
#endif

/* ---------------------------------------------------------------- 1. State */

enum { M_LOAD, M_COMPUTE, M_STORE, M_COUNT };                /* modules */
enum { Q_L2C, Q_C2L, Q_C2S, Q_S2C, Q_COUNT, Q_NONE = -1 };   /* dependency queues */
static const char *const module_names[M_COUNT] = {"load", "compute", "store"};
static const char *const queue_names[Q_COUNT] = {"L2C", "C2L", "C2S", "S2C"};

/* isa/ISA.md "Machine": the queue each dependency bit names, per module (Q_NONE: "must be 0"). */
static const int pop_prev_q[M_COUNT] = {Q_NONE, Q_L2C, Q_C2S};
static const int pop_next_q[M_COUNT] = {Q_C2L, Q_S2C, Q_NONE};
static const int push_prev_q[M_COUNT] = {Q_NONE, Q_C2L, Q_S2C};
static const int push_next_q[M_COUNT] = {Q_L2C, Q_C2S, Q_NONE};

/* A decoded micro-op. */
typedef struct fsim_uop {
  uint32_t dst; /* dst_idx */
  uint32_t src; /* src_idx */
  uint32_t wgt; /* wgt_idx */
} fsim_uop;

/* An instruction in a command queue. */
typedef struct fsim_cmd {
  ovta_insn in;    /* decoded and statically checked */
  uint32_t index;  /* its index in the stream */
} fsim_cmd;

/* A module's command queue: a ring of CMD_QUEUE_DEPTH entries. */
typedef struct fsim_cmdq {
  fsim_cmd *slot;  /* cmd_depth entries */
  uint32_t head;   /* slot of the oldest entry */
  uint32_t count;  /* entries held */
} fsim_cmdq;

struct fsim {
  const ovta_isa *isa;      /* field layout (the caller's, outlives the simulator) */
  const ovta_config *cfg;   /* &isa->cfg */
  /* SRAMs: zero at open, persistent across runs */
  int8_t *inp;              /* inp_depth x batch x block_in */
  int8_t *wgt;              /* wgt_depth x block_out x block_in */
  int32_t *acc;             /* acc_depth x batch x block_out */
  int8_t *out;              /* acc_depth x batch x block_out */
  uint32_t *uop_raw;        /* uop_depth raw micro-ops */
  fsim_uop *uop;            /* uop_depth decoded micro-ops (kept in step with uop_raw) */
  ovta_field_pos uop_pos[3];/* where dst/src/wgt sit in a micro-op */
  /* per run */
  fsim_cmdq q[M_COUNT];     /* command queues */
  uint32_t tok[Q_COUNT];    /* tokens in each dependency queue */
  uint32_t cmd_depth;       /* CMD_QUEUE_DEPTH */
  uint32_t dep_depth;       /* DEP_QUEUE_DEPTH */
  const uint8_t *stream;    /* host view of the instruction stream */
  uint32_t count;           /* instructions in the stream */
  uint32_t fetched;         /* instructions dispatched */
  uint32_t retired;         /* instructions retired */
  uint32_t finishes;        /* FINISH instructions retired */
  bool fetch_failed;        /* fetch met an invalid instruction and stopped */
  int fetch_rc;             /* its error code */
  ovta_error fetch_err;     /* its error */
  fsim_cmd next;            /* the instruction fetch holds (decoded), valid when have_next */
  bool have_next;           /* fetch decoded `next` and waits for room in its queue */
  int next_module;          /* module of `next` */
  uint64_t rng;             /* interleaving state (seed != 0) */
  uint64_t deadline_ms;     /* wall-clock limit (0: none) */
  uint32_t timeout_ms;      /* the limit asked for, for the message */
  uint64_t budget;          /* work units a run may do (fsim_set_budget; 0: no limit) */
  uint64_t work;            /* work units done in this run (instructions executed + micro-ops) */
  uint64_t next_check;      /* the work count at which out_of_time next reads the clock / budget */
  bool timed_out;           /* the deadline passed or the budget ran out */
  bool over_budget;         /* it was the budget */
  uint8_t dirty;            /* SRAMs written since open or the last fsim_clear (bit: memory type) */
  ovta_counters *ctr;       /* the caller's counters of the current run */
  fsim_dram dram;           /* DRAM: the instruction stream, LOAD and STORE rows */
  unsigned verbose;         /* 0 quiet, 1 a line per run, 2 also per instruction (stderr) */
  /* the overlap checker (isa/ISA.md "Overlap") */
  fsim_cmd prev;            /* the compute module's previous GEMM/ALU, valid when have_prev */
  bool have_prev;           /* the previous compute instruction was a GEMM or ALU */
  uint8_t *fp;              /* 2 x acc_depth footprint marks (previous, current): 1 written, 2 read */
};

/* Monotonic wall time in milliseconds. */
static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Host address of DRAM [phys, phys+len) when it lies inside one allocated buffer, else NULL. */
static inline void *dram_host(const fsim *s, uint64_t phys, uint64_t len) {
  return s->dram.host(s->dram.ctx, phys, len);
}

/* The work count at which out_of_time looks again: OVTA_FSIM_CLOCK_EVERY on, or just past the
 * budget when that comes first. */
static uint64_t next_check(const fsim *s) {
  uint64_t n = s->work + OVTA_FSIM_CLOCK_EVERY;
  return s->budget && s->budget < n ? s->budget + 1 : n;
}

/* Counts work; past the budget, or (read every OVTA_FSIM_CLOCK_EVERY units) past the deadline,
 * true from then on. The budget is exact: a run doing `budget` units of work completes. */
static bool out_of_time(fsim *s, uint64_t work) {
  s->work += work;
  if (s->work < s->next_check) return false;
  if (s->budget && s->work > s->budget) s->timed_out = s->over_budget = true;
  else if (s->deadline_ms && now_ms() >= s->deadline_ms) s->timed_out = true;
  s->next_check = s->timed_out ? 0 : next_check(s);
  return s->timed_out;
}

static int fail_timeout(fsim *s, const fsim_cmd *c, ovta_error *err) {
  char where[160] = "", limit[80];
  if (c)
    snprintf(where, sizeof where, " while executing instruction %u (%s)", c->index,
             ovta_opcode_name(c->in.opcode));
  if (s->over_budget) snprintf(limit, sizeof limit, "a work budget of %llu units", (unsigned long long)s->budget);
  else snprintf(limit, sizeof limit, "%u ms", s->timeout_ms);
  return OVTA_FAIL(err, OVTA_ETIMEOUT, "fsim: timeout after %s%s: %u of %u instructions retired, %u dispatched",
                   limit, where, s->retired, s->count, s->fetched);
}

/* ---------------------------------------------------------------- 2. Checks */

/* isa/ISA.md dynamic rule: a LOAD/STORE row whose DRAM bytes are not all inside one allocated
 * buffer. Checks every row before the instruction takes effect. */
static int check_rows(fsim *s, const fsim_cmd *c, uint64_t eb, ovta_error *err) {
  const ovta_insn *in = &c->in;
  uint64_t len = (uint64_t)in->x_size * eb;
  for (uint64_t r = 0; r < in->y_size; r++) {
    uint64_t phys = ((uint64_t)in->dram_base + r * in->x_stride) * eb;
    if (!dram_host(s, phys, len))
      return OVTA_FAIL(err, OVTA_EINSN,
                       "instruction %u (%s %s): row %llu reads or writes DRAM [0x%llx, 0x%llx), not inside one "
                       "allocated buffer",
                       c->index, ovta_opcode_name(in->opcode), ovta_mem_type_name(in->memory_type),
                       (unsigned long long)r, (unsigned long long)phys, (unsigned long long)(phys + len));
  }
  return OVTA_OK;
}

/* isa/ISA.md dynamic rule: every GEMM/ALU dst, src or wgt index below its SRAM depth. Indices
 * grow with i and j (factors are unsigned), so the largest of each micro-op is at
 * i = iter_out-1, j = iter_in-1: checking that one covers the whole loop nest. */
static int check_loop_index(fsim *s, const fsim_cmd *c, const char *what, const char *sram, uint32_t k,
                            uint32_t base, uint32_t f_out, uint32_t f_in, uint64_t depth, ovta_error *err) {
  const ovta_insn *in = &c->in;
  uint64_t hi = base + (uint64_t)(in->iter_out - 1) * f_out + (uint64_t)(in->iter_in - 1) * f_in;
  if (hi < depth) return OVTA_OK;
  /* name the first iteration (loop order) where this micro-op goes out of range */
  uint64_t fi = 0, fj = 0;
  for (fi = 0; fi < in->iter_out; fi++) {
    uint64_t at_i = base + fi * f_out;
    uint64_t last = at_i + (uint64_t)(in->iter_in - 1) * f_in;
    if (last < depth) continue;
    fj = at_i >= depth ? 0 : (f_in ? (depth - at_i + f_in - 1) / f_in : 0);
    break;
  }
  uint64_t v = base + fi * f_out + fj * f_in;
  return OVTA_FAIL(err, OVTA_EINSN,
                   "instruction %u (%s): micro-op %u at i=%llu j=%llu: %s index %llu is outside the %s buffer of "
                   "%llu elements",
                   c->index, ovta_opcode_name(in->opcode), k, (unsigned long long)fi, (unsigned long long)fj, what,
                   (unsigned long long)v, sram, (unsigned long long)depth);
}

static int check_loops(fsim *s, const fsim_cmd *c, bool gemm, ovta_error *err) {
  const ovta_insn *in = &c->in;
  if (!in->iter_out || !in->iter_in || in->uop_bgn == in->uop_end) return OVTA_OK;
  bool read_src = !in->reset && !(!gemm && in->use_imm);
  bool read_wgt = gemm && !in->reset;
  uint64_t src_depth = gemm ? (uint64_t)s->cfg->inp_depth : (uint64_t)s->cfg->acc_depth;
  for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
    const fsim_uop *u = &s->uop[k];
    int rc = check_loop_index(s, c, "dst", "ACC", k, u->dst, in->dst_factor_out, in->dst_factor_in,
                              (uint64_t)s->cfg->acc_depth, err);
    if (!rc && read_src)
      rc = check_loop_index(s, c, "src", gemm ? "INP" : "ACC", k, u->src, in->src_factor_out, in->src_factor_in,
                            src_depth, err);
    if (!rc && read_wgt)
      rc = check_loop_index(s, c, "wgt", "WGT", k, u->wgt, in->wgt_factor_out, in->wgt_factor_in,
                            (uint64_t)s->cfg->wgt_depth, err);
    if (rc) return rc;
  }
  return OVTA_OK;
}

/* isa/ISA.md "Overlap": mark the ACC/OUT footprint of GEMM/ALU in (its indices checked) into
 * fp (1: dst, written; 2: an ALU tensor src, read) and the ACC halves its dst indices touch into
 * *halves (bit 0 the lower, bit 1 the upper half: the RTL's ACC banks). The micro-ops it walks
 * count as work (out_of_time); false when the deadline or the budget ran out. */
KERNEL bool footprint_mark(fsim *s, const ovta_insn *in, uint8_t *fp, unsigned *halves) {
  *halves = 0;
  if (!in->iter_out || !in->iter_in || in->uop_bgn == in->uop_end) return true;
  bool read_src = in->opcode == OVTA_OP_ALU && !in->reset && !in->use_imm;
  uint64_t half = (uint64_t)s->cfg->acc_depth / 2;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      for (uint32_t k = in->uop_bgn; k < in->uop_end; k++) {
        const fsim_uop *u = &s->uop[k];
        uint64_t d = u->dst + (uint64_t)i * in->dst_factor_out + (uint64_t)j * in->dst_factor_in;
        fp[d] |= 1;
        *halves |= d >= half ? 2u : 1u;
        if (read_src) fp[u->src + (uint64_t)i * in->src_factor_out + (uint64_t)j * in->src_factor_in] |= 2;
      }
      if (out_of_time(s, in->uop_end - in->uop_bgn)) return false;
    }
  return true;
}

/* A GEMM/ALU with overlap = 1 after a GEMM/ALU of the compute module: the previous one writes
 * no ACC/OUT element this one reads or writes, reads none this one writes, and their dst
 * indices lie in different ACC halves. fsim runs them one after the other anyway; this check
 * catches a program that would compute something else on hardware that overlaps them. Run
 * after check_loops (indices in range). */
static int check_overlap(fsim *s, const fsim_cmd *c, ovta_error *err) {
  const ovta_insn *in = &c->in;
  if (!in->overlap || !s->have_prev) return OVTA_OK;
  const ovta_insn *p = &s->prev.in;
  size_t depth = (size_t)s->cfg->acc_depth;
  uint8_t *save = s->fp, *mine = s->fp + depth; /* the previous instruction's marks, this one's */
  memset(s->fp, 0, 2 * depth);
  unsigned hp, hc;
  if (!footprint_mark(s, p, save, &hp)) return fail_timeout(s, c, err);
  if (!hp) return OVTA_OK;
  if (!footprint_mark(s, in, mine, &hc)) return fail_timeout(s, c, err);
  for (size_t e = 0; e < depth; e++) {
    if (!mine[e]) continue;
    bool clash = (mine[e] & 1) ? save[e] != 0 : (save[e] & 1) != 0;
    if (!clash) continue;
    return OVTA_FAIL(err, OVTA_EINSN,
                     "instruction %u (%s): overlap=1 but ACC/OUT element %zu is %s by it and %s by the previous "
                     "compute instruction %u (%s), which it may overlap",
                     c->index, ovta_opcode_name(in->opcode), e, (mine[e] & 1) ? "written" : "read",
                     (save[e] & 1) ? "written" : "read", s->prev.index, ovta_opcode_name(p->opcode));
  }
  if (hc & hp)
    return OVTA_FAIL(err, OVTA_EINSN,
                     "instruction %u (%s): overlap=1 but its dst indices and those of the previous compute instruction "
                     "%u (%s) are not in different ACC halves (below / from %zu)",
                     c->index, ovta_opcode_name(in->opcode), s->prev.index, ovta_opcode_name(p->opcode), depth / 2);
  return OVTA_OK;
}

/* ---------------------------------------------------------------- 3. LOAD/STORE */

static void decode_uop(const fsim *s, uint32_t raw, fsim_uop *u) {
  uint32_t f[3];
  for (int i = 0; i < 3; i++) {
    int w = s->uop_pos[i].width;
    f[i] = w >= 32 ? raw >> s->uop_pos[i].lo : (raw >> s->uop_pos[i].lo) & ((1u << w) - 1);
  }
  u->dst = f[0];
  u->src = f[1];
  u->wgt = f[2];
}

/* isa/ISA.md LOAD: y_pad_0 rows of W zeros; per row x_pad_0 zeros, x_size elements from DRAM
 * element dram_base + r*x_stride, x_pad_1 zeros; y_pad_1 rows of W zeros. x_size 0: a sync.
 * An ACC load writes the accumulator only. */
static int exec_load(fsim *s, const fsim_cmd *c, ovta_error *err) {
  const ovta_insn *in = &c->in;
  if (in->x_size == 0) return OVTA_OK;
  uint32_t mt = in->memory_type;
  uint64_t eb = (uint64_t)ovta_elem_bytes(s->cfg, mt);
  int rc = check_rows(s, c, eb, err);
  if (rc) return rc;
  uint8_t *sram;
  switch (mt) {
  case OVTA_MEM_UOP: sram = (uint8_t *)s->uop_raw; break;
  case OVTA_MEM_WGT: sram = (uint8_t *)s->wgt; break;
  case OVTA_MEM_INP: sram = (uint8_t *)s->inp; break;
  case OVTA_MEM_ACC: sram = (uint8_t *)s->acc; break;
  default: unreachable(); /* ovta_insn_check rejects the rest */
  }
  uint64_t W = (uint64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
  uint8_t *p = sram + (uint64_t)in->sram_base * eb;
  uint64_t row_bytes = (uint64_t)in->x_size * eb;
  memset(p, 0, in->y_pad_0 * W * eb);
  p += in->y_pad_0 * W * eb;
  for (uint64_t r = 0; r < in->y_size; r++) {
    uint64_t phys = ((uint64_t)in->dram_base + r * in->x_stride) * eb;
    const uint8_t *src = dram_host(s, phys, row_bytes);
    if (!src) unreachable(); /* check_rows passed */
    memset(p, 0, in->x_pad_0 * eb);
    p += in->x_pad_0 * eb;
    memcpy(p, src, row_bytes);
    p += row_bytes;
    memset(p, 0, in->x_pad_1 * eb);
    p += in->x_pad_1 * eb;
  }
  memset(p, 0, in->y_pad_1 * W * eb);
  s->dirty |= 1u << mt;
  if (mt == OVTA_MEM_UOP) {
    uint64_t n = (uint64_t)in->y_size * in->x_size; /* no padding on UOP loads */
    for (uint64_t k = in->sram_base; k < in->sram_base + n; k++) decode_uop(s, s->uop_raw[k], &s->uop[k]);
  }
  s->ctr->bytes_read[mt] += (uint64_t)in->y_size * row_bytes;
  return OVTA_OK;
}

/* isa/ISA.md STORE: row r's x_size OUT elements from sram_base + r*x_size go to DRAM element
 * dram_base + r*x_stride. x_size 0: a sync. */
static int exec_store(fsim *s, const fsim_cmd *c, ovta_error *err) {
  const ovta_insn *in = &c->in;
  if (in->x_size == 0) return OVTA_OK;
  uint64_t eb = (uint64_t)s->cfg->out_bytes;
  int rc = check_rows(s, c, eb, err);
  if (rc) return rc;
  uint64_t row_bytes = (uint64_t)in->x_size * eb;
  for (uint64_t r = 0; r < in->y_size; r++) {
    uint64_t phys = ((uint64_t)in->dram_base + r * in->x_stride) * eb;
    uint8_t *dst = dram_host(s, phys, row_bytes);
    if (!dst) unreachable();
    memcpy(dst, (const uint8_t *)s->out + ((uint64_t)in->sram_base + r * in->x_size) * eb, row_bytes);
  }
  s->ctr->bytes_written += (uint64_t)in->y_size * row_bytes;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- 4. GEMM */

/* One GEMM micro-op: acc[b][o] += sum_i x[b][i] * w[o][i] (int32, wrapping); out = low 8 bits.
 * Inlined with constant shapes so the compiler unrolls and vectorises the dot products. The
 * dot product itself cannot overflow (|x*w| <= 2^14, BI <= 2^16), the accumulation wraps. */
static inline __attribute__((always_inline)) void gemm_uop(int32_t *restrict acc, int8_t *restrict out,
                                                           const int8_t *restrict x, const int8_t *restrict w,
                                                           const int B, const int BI, const int BO) {
  for (int b = 0; b < B; b++)
    for (int o = 0; o < BO; o++) {
      int32_t sum = 0;
      for (int i = 0; i < BI; i++) sum += (int32_t)x[b * BI + i] * (int32_t)w[o * BI + i];
      uint32_t a = (uint32_t)acc[b * BO + o] + (uint32_t)sum;
      acc[b * BO + o] = (int32_t)a;
      out[b * BO + o] = (int8_t)a;
    }
}

/* The GEMM loop nest for one shape; returns false when the deadline passed (mid-instruction). */
static inline __attribute__((always_inline)) bool gemm_loops(fsim *s, const ovta_insn *in, const int B,
                                                             const int BI, const int BO) {
  const fsim_uop *u0 = s->uop + in->uop_bgn;
  const uint32_t nu = in->uop_end - in->uop_bgn;
  int32_t *acc = s->acc;
  int8_t *out = s->out;
  const int8_t *inp = s->inp, *wgt = s->wgt;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t d0 = (uint64_t)i * in->dst_factor_out + (uint64_t)j * in->dst_factor_in;
      uint64_t s0 = (uint64_t)i * in->src_factor_out + (uint64_t)j * in->src_factor_in;
      uint64_t w0 = (uint64_t)i * in->wgt_factor_out + (uint64_t)j * in->wgt_factor_in;
      for (uint32_t k = 0; k < nu; k++) {
        const fsim_uop u = u0[k];
        uint64_t d = (u.dst + d0) * (uint64_t)(B * BO);
        gemm_uop(acc + d, out + d, inp + (u.src + s0) * (uint64_t)(B * BI), wgt + (u.wgt + w0) * (uint64_t)(BO * BI),
                 B, BI, BO);
      }
      if (out_of_time(s, nu)) return false;
    }
  return true;
}

/* GEMM/ALU reset (either opcode): the loop nest zeroes acc[dst] and out[dst]; returns false when
 * the deadline or the budget ran out (mid-instruction). */
KERNEL bool reset_loops(fsim *s, const ovta_insn *in) {
  const size_t eb = (size_t)s->cfg->batch * s->cfg->block_out;
  const fsim_uop *u0 = s->uop + in->uop_bgn;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t d0 = (uint64_t)i * in->dst_factor_out + (uint64_t)j * in->dst_factor_in;
      for (uint32_t k = 0; k < in->uop_end - in->uop_bgn; k++) {
        uint64_t d = (u0[k].dst + d0) * eb;
        memset(s->acc + d, 0, eb * sizeof *s->acc);
        memset(s->out + d, 0, eb);
      }
      if (out_of_time(s, in->uop_end - in->uop_bgn)) return false;
    }
  return true;
}

KERNEL bool gemm_generic(fsim *s, const ovta_insn *in) {
  return gemm_loops(s, in, s->cfg->batch, s->cfg->block_in, s->cfg->block_out);
}
KERNEL bool gemm_1_16(fsim *s, const ovta_insn *in) { return gemm_loops(s, in, 1, 16, 16); }
KERNEL bool gemm_2_16(fsim *s, const ovta_insn *in) { return gemm_loops(s, in, 2, 16, 16); }
KERNEL bool gemm_1_8(fsim *s, const ovta_insn *in) { return gemm_loops(s, in, 1, 8, 8); }
KERNEL bool gemm_1_32(fsim *s, const ovta_insn *in) { return gemm_loops(s, in, 1, 32, 32); }

/* isa/ISA.md GEMM: for i, j, k: dst/src/wgt = uop + i*factor_out + j*factor_in;
 * acc[dst] = reset ? 0 : acc[dst] + inp[src] x wgt[wgt]^T; out[dst] = low 8 bits. */
static int exec_gemm(fsim *s, const fsim_cmd *c, ovta_error *err) {
  const ovta_insn *in = &c->in;
  if (!in->iter_out || !in->iter_in || in->uop_bgn == in->uop_end) return OVTA_OK;
  int rc = check_loops(s, c, true, err);
  if (!rc) rc = check_overlap(s, c, err);
  if (rc) return rc;
  uint64_t n = (uint64_t)in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
  const ovta_config *cfg = s->cfg;
  bool ok = true;
  s->dirty |= 1u << OVTA_MEM_ACC | 1u << OVTA_MEM_OUT;
  if (in->reset) {
    ok = reset_loops(s, in);
  } else {
    int B = cfg->batch, BI = cfg->block_in, BO = cfg->block_out;
    if (B == 1 && BI == 16 && BO == 16) ok = gemm_1_16(s, in);
    else if (B == 2 && BI == 16 && BO == 16) ok = gemm_2_16(s, in);
    else if (B == 1 && BI == 8 && BO == 8) ok = gemm_1_8(s, in);
    else if (B == 1 && BI == 32 && BO == 32) ok = gemm_1_32(s, in);
    else ok = gemm_generic(s, in);
  }
  if (!ok) return fail_timeout(s, c, err);
  s->ctr->gemm_uops += n;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- 5. ALU */

/* isa/ISA.md SHR: 0 <= s <= 31: a >> s (arithmetic); s >= 32: a >> 31; -31 <= s <= -1: a << -s
 * (wrapping); s <= -32: 0. */
static inline int32_t alu_shr(int32_t a, int32_t sh) {
  if (sh >= 0) return sh >= 32 ? (a < 0 ? -1 : 0) : (int32_t)(a >> sh); /* gcc: >> of signed is arithmetic */
  if (sh <= -32) return 0;
  return (int32_t)((uint32_t)a << (uint32_t)(-sh));
}

/* isa/ISA.md RQ: sh = s[4:0], rounding s[5] (+2^(sh-1) when sh > 0), lo by s[7:6] (-128, 0, -hi,
 * ~hi), hi = sext(s[15:8]): min(max((a + rounding) >> sh, lo), hi), the add wrapping. */
static inline int32_t alu_rq(int32_t a, int32_t sv) {
  uint32_t sh = (uint32_t)sv & 31u, rnd = ((uint32_t)sv >> 5 & 1u) && sh ? 1u << (sh - 1) : 0u;
  int32_t v = (int32_t)((uint32_t)a + rnd) >> sh; /* gcc: >> of signed is arithmetic */
  int32_t hi = (int8_t)(uint8_t)((uint32_t)sv >> 8 & 0xffu);
  int32_t los[4] = {-128, 0, -hi, ~hi}, lo = los[(uint32_t)sv >> 6 & 3u];
  v = v > lo ? v : lo;
  return v < hi ? v : hi;
}

/* isa/ISA.md ALU table: op(a, s) in 32-bit two's complement. */
static inline int32_t alu_op(uint32_t op, int32_t a, int32_t sv) {
  switch (op) {
  case OVTA_ALU_MIN: return a < sv ? a : sv;
  case OVTA_ALU_MAX: return a > sv ? a : sv;
  case OVTA_ALU_ADD: return (int32_t)((uint32_t)a + (uint32_t)sv);
  case OVTA_ALU_SHR: return alu_shr(a, sv);
  case OVTA_ALU_MUL: return (int32_t)((uint32_t)a * (uint32_t)sv);
  case OVTA_ALU_MOV: return sv;
  case OVTA_ALU_CLP: {
    int32_t lo = (int8_t)(uint8_t)(sv & 0xff), hi = (int8_t)(uint8_t)((sv >> 8) & 0xff);
    a = a > lo ? a : lo;
    return a < hi ? a : hi;
  }
  case OVTA_ALU_RQ: return alu_rq(a, sv);
  default: unreachable(); /* every 3-bit alu_opcode is defined */
  }
}

/* The ALU loop nest for one operation (a constant after inlining). */
static inline __attribute__((always_inline)) bool alu_loops(fsim *s, const ovta_insn *in, const uint32_t op) {
  const size_t n = (size_t)s->cfg->batch * s->cfg->block_out;
  const fsim_uop *u0 = s->uop + in->uop_bgn;
  const uint32_t nu = in->uop_end - in->uop_bgn;
  const bool imm = in->use_imm;
  const int32_t iv = in->imm;
  for (uint32_t i = 0; i < in->iter_out; i++)
    for (uint32_t j = 0; j < in->iter_in; j++) {
      uint64_t d0 = (uint64_t)i * in->dst_factor_out + (uint64_t)j * in->dst_factor_in;
      uint64_t s0 = (uint64_t)i * in->src_factor_out + (uint64_t)j * in->src_factor_in;
      for (uint32_t k = 0; k < nu; k++) {
        int32_t *a = s->acc + (u0[k].dst + d0) * n;
        int8_t *o = s->out + (u0[k].dst + d0) * n;
        if (imm) {
          for (size_t e = 0; e < n; e++) o[e] = (int8_t)(a[e] = alu_op(op, a[e], iv));
        } else {
          /* src may equal dst: each element reads its own pair before writing it */
          const int32_t *b = s->acc + (u0[k].src + s0) * n;
          for (size_t e = 0; e < n; e++) o[e] = (int8_t)(a[e] = alu_op(op, a[e], b[e]));
        }
      }
      if (out_of_time(s, nu)) return false;
    }
  return true;
}

KERNEL bool alu_min(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_MIN); }
KERNEL bool alu_max(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_MAX); }
KERNEL bool alu_add(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_ADD); }
KERNEL bool alu_shr_loops(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_SHR); }
KERNEL bool alu_mul(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_MUL); }
KERNEL bool alu_mov(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_MOV); }
KERNEL bool alu_clp(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_CLP); }
KERNEL bool alu_rq_loops(fsim *s, const ovta_insn *in) { return alu_loops(s, in, OVTA_ALU_RQ); }

/* isa/ISA.md ALU: the GEMM loops; a = acc[dst], s = use_imm ? sext(imm) : acc[src];
 * acc[dst] = reset ? 0 : op(a, s); out[dst] = low 8 bits. */
static int exec_alu(fsim *s, const fsim_cmd *c, ovta_error *err) {
  const ovta_insn *in = &c->in;
  if (!in->iter_out || !in->iter_in || in->uop_bgn == in->uop_end) return OVTA_OK;
  int rc = check_loops(s, c, false, err);
  if (!rc) rc = check_overlap(s, c, err);
  if (rc) return rc;
  uint64_t n = (uint64_t)in->iter_out * in->iter_in * (in->uop_end - in->uop_bgn);
  bool ok;
  s->dirty |= 1u << OVTA_MEM_ACC | 1u << OVTA_MEM_OUT;
  if (in->reset) {
    ok = reset_loops(s, in);
  } else {
    switch (in->alu_opcode) {
    case OVTA_ALU_MIN: ok = alu_min(s, in); break;
    case OVTA_ALU_MAX: ok = alu_max(s, in); break;
    case OVTA_ALU_ADD: ok = alu_add(s, in); break;
    case OVTA_ALU_SHR: ok = alu_shr_loops(s, in); break;
    case OVTA_ALU_MUL: ok = alu_mul(s, in); break;
    case OVTA_ALU_MOV: ok = alu_mov(s, in); break;
    case OVTA_ALU_CLP: ok = alu_clp(s, in); break;
    case OVTA_ALU_RQ: ok = alu_rq_loops(s, in); break;
    default: unreachable();
    }
  }
  if (!ok) return fail_timeout(s, c, err);
  s->ctr->alu_uops += n;
  return OVTA_OK;
}

/* ---------------------------------------------------------------- 6. Machine */

/* isa/ISA.md "Machine": STORE to store; LOAD of INP or WGT to load; everything else to compute. */
static int module_of(const ovta_insn *in) {
  if (in->opcode == OVTA_OP_STORE) return M_STORE;
  if (in->opcode == OVTA_OP_LOAD && (in->memory_type == OVTA_MEM_INP || in->memory_type == OVTA_MEM_WGT))
    return M_LOAD;
  return M_COMPUTE;
}

/* Fetch: decode and statically check the next instruction (once), then dispatch it when its
 * queue has room. Returns true when it dispatched one. On an invalid instruction fetch stops
 * for good: what was dispatched before it still runs, nothing after it. */
static bool fetch_can_step(fsim *s) {
  if (s->fetch_failed || s->fetched == s->count) return false;
  if (!s->have_next) {
    ovta_insn_bits bits;
    uint32_t idx = s->fetched;
    ovta_insn_bits_load(s->stream + 16ull * idx, &bits);
    ovta_error e;
    ovta_error_clear(&e);
    int rc = ovta_insn_decode(s->isa, &bits, &s->next.in, &e);
    if (rc) ovta_error_wrap(&e, "instruction %u", idx);
    else rc = ovta_insn_check(s->isa, &s->next.in, idx, &e);
    if (rc) {
      s->fetch_failed = true;
      s->fetch_rc = rc;
      s->fetch_err = e;
      return false;
    }
    s->next.index = idx;
    s->next_module = module_of(&s->next.in);
    s->have_next = true;
  }
  return s->q[s->next_module].count < s->cmd_depth;
}

static void fetch_step(fsim *s) {
  fsim_cmdq *q = &s->q[s->next_module];
  q->slot[(q->head + q->count) % s->cmd_depth] = s->next;
  q->count++;
  s->have_next = false;
  s->fetched++;
}

/* The queues an instruction of module m pops and pushes (Q_NONE when a bit is clear). */
static void deps_of(int m, const ovta_insn *in, int pops[2], int pushes[2]) {
  pops[0] = in->pop_prev ? pop_prev_q[m] : Q_NONE;
  pops[1] = in->pop_next ? pop_next_q[m] : Q_NONE;
  pushes[0] = in->push_prev ? push_prev_q[m] : Q_NONE;
  pushes[1] = in->push_next ? push_next_q[m] : Q_NONE;
}

/* isa/ISA.md start rule: a module starts its next instruction only when every queue it pops
 * holds a token and every queue it pushes has room. Returns Q_NONE when it can start, else the
 * queue it waits on (*room: waits for room rather than a token). -2: its queue is empty. */
static int module_blocked(const fsim *s, int m, bool *room) {
  const fsim_cmdq *q = &s->q[m];
  if (!q->count) return -2;
  int pops[2], pushes[2];
  deps_of(m, &q->slot[q->head].in, pops, pushes);
  for (int i = 0; i < 2; i++)
    if (pops[i] != Q_NONE && s->tok[pops[i]] == 0) {
      *room = false;
      return pops[i];
    }
  for (int i = 0; i < 2; i++)
    if (pushes[i] != Q_NONE && s->tok[pushes[i]] >= s->dep_depth) {
      *room = true;
      return pushes[i];
    }
  return Q_NONE;
}

/* Start, execute to completion, and retire the head instruction of module m (it can start). */
static int module_step(fsim *s, int m, ovta_error *err) {
  fsim_cmdq *q = &s->q[m];
  const fsim_cmd *c = &q->slot[q->head];
  int pops[2], pushes[2];
  deps_of(m, &c->in, pops, pushes);
  for (int i = 0; i < 2; i++)
    if (pops[i] != Q_NONE) s->tok[pops[i]]--;
  if (s->verbose >= 2)
    fprintf(stderr, "fsim: %-7s instruction %u %s\n", module_names[m], c->index, ovta_opcode_name(c->in.opcode));
  int rc;
  switch (c->in.opcode) {
  case OVTA_OP_LOAD: rc = exec_load(s, c, err); break;
  case OVTA_OP_STORE: rc = exec_store(s, c, err); break;
  case OVTA_OP_GEMM: rc = exec_gemm(s, c, err); break;
  case OVTA_OP_ALU: rc = exec_alu(s, c, err); break;
  case OVTA_OP_FINISH: rc = OVTA_OK; s->finishes++; break;
  default: unreachable(); /* fetch checked the opcode */
  }
  if (rc) return rc;
  if (m == M_COMPUTE) {
    s->have_prev = c->in.opcode == OVTA_OP_GEMM || c->in.opcode == OVTA_OP_ALU;
    if (s->have_prev) s->prev = *c;
  }
  for (int i = 0; i < 2; i++)
    if (pushes[i] != Q_NONE) s->tok[pushes[i]]++;
  q->head = (q->head + 1) % s->cmd_depth;
  q->count--;
  s->retired++;
  if (m == M_LOAD) s->ctr->insns_load++;
  else if (m == M_COMPUTE) s->ctr->insns_compute++;
  else s->ctr->insns_store++;
  return OVTA_OK;
}

/* Nothing can move: a static error met by fetch (reported now that everything before it has
 * run), or a deadlock naming what each module waits for. */
static int fail_stuck(fsim *s, ovta_error *err) {
  if (s->fetch_failed) {
    if (err) *err = s->fetch_err;
    return s->fetch_rc;
  }
  char msg[600];
  size_t len = 0;
  for (int m = 0; m < M_COUNT; m++) {
    bool room = false;
    int qb = module_blocked(s, m, &room);
    const char *sep = m ? "; " : "";
    if (qb == -2)
      len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s idle (command queue empty)", sep, module_names[m]);
    else if (qb >= 0) {
      const fsim_cmd *c = &s->q[m].slot[s->q[m].head];
      len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s waits at instruction %u (%s) for %s %s", sep,
                              module_names[m], c->index, ovta_opcode_name(c->in.opcode),
                              room ? "room in" : "a token in", queue_names[qb]);
    } else unreachable(); /* a module that can start is progress */
    if (len >= sizeof msg) break;
  }
  if (len < sizeof msg) {
    if (s->fetched < s->count)
      snprintf(msg + len, sizeof msg - len, "; fetch waits at instruction %u for room in the %s command queue",
               s->fetched, module_names[s->next_module]);
    else
      snprintf(msg + len, sizeof msg - len, "; fetch dispatched all %u instructions", s->count);
  }
  return OVTA_FAIL(err, OVTA_EDEADLOCK, "fsim: deadlock after %u of %u instructions retired: %s", s->retired,
                   s->count, msg);
}

/* isa/ISA.md "Done": all instructions retired, at least one of them a FINISH. */
static int finish_run(fsim *s, ovta_error *err) {
  if (s->finishes == 0)
    return OVTA_FAIL(err, OVTA_EINSN, "fsim: all %u instructions retired without a FINISH (no FINISH)", s->count);
  return OVTA_OK;
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Fixed order: fetch as far as it can, then each module as far as it can; repeat. */
static int run_fixed(fsim *s, ovta_error *err) {
  for (;;) {
    bool progress = false;
    while (fetch_can_step(s)) {
      fetch_step(s);
      progress = true;
    }
    for (int m = 0; m < M_COUNT; m++) {
      bool room;
      while (module_blocked(s, m, &room) == Q_NONE) {
        int rc = module_step(s, m, err);
        if (rc) return rc;
        progress = true;
        if (out_of_time(s, 1)) return fail_timeout(s, NULL, err);
      }
    }
    if (s->retired == s->count) return finish_run(s, err);
    if (!progress) return fail_stuck(s, err);
  }
}

/* Seeded interleaving: each step runs one random runnable unit (fetch or a module). */
static int run_seeded(fsim *s, ovta_error *err) {
  for (;;) {
    int units[1 + M_COUNT], n = 0;
    if (fetch_can_step(s)) units[n++] = -1;
    for (int m = 0; m < M_COUNT; m++) {
      bool room;
      if (module_blocked(s, m, &room) == Q_NONE) units[n++] = m;
    }
    if (n == 0) {
      if (s->retired == s->count) return finish_run(s, err);
      return fail_stuck(s, err);
    }
    int u = units[splitmix64(&s->rng) % (uint64_t)n];
    if (u < 0) fetch_step(s);
    else {
      int rc = module_step(s, u, err);
      if (rc) return rc;
      if (out_of_time(s, 1)) return fail_timeout(s, NULL, err);
    }
  }
}

/* ---------------------------------------------------------------- 7. Simulator */

void fsim_free(fsim *s) {
  if (!s) return;
  free(s->inp);
  free(s->wgt);
  free(s->acc);
  free(s->out);
  free(s->uop_raw);
  free(s->uop);
  free(s->fp);
  for (int m = 0; m < M_COUNT; m++) free(s->q[m].slot);
  free(s);
}

/* The SRAMs (zeroed) and the command queues; false when out of memory or a queue depth is 0. */
static bool alloc_srams(fsim *s) {
  const ovta_config *c = s->cfg;
  s->inp = calloc((size_t)c->inp_depth, (size_t)c->inp_bytes);
  s->wgt = calloc((size_t)c->wgt_depth, (size_t)c->wgt_bytes);
  s->acc = calloc((size_t)c->acc_depth, (size_t)c->acc_bytes);
  s->out = calloc((size_t)c->out_depth, (size_t)c->out_bytes);
  s->uop_raw = calloc((size_t)c->uop_depth, sizeof *s->uop_raw);
  s->uop = calloc((size_t)c->uop_depth, sizeof *s->uop);
  s->fp = calloc(2, (size_t)c->acc_depth);
  bool ok = s->inp && s->wgt && s->acc && s->out && s->uop_raw && s->uop && s->fp && s->cmd_depth && s->dep_depth;
  for (int m = 0; m < M_COUNT && ok; m++) ok = (s->q[m].slot = calloc(s->cmd_depth, sizeof(fsim_cmd))) != NULL;
  return ok;
}

/* Micro-op field positions: the uop format lists dst_idx, src_idx, wgt_idx in this order. */
static void find_uop_fields(fsim *s) {
  int nspec;
  const ovta_field_spec *spec = ovta_format_specs(OVTA_FMT_UOP, &nspec);
  int f = 0;
  for (int i = 0; i < nspec && f < 3; i++)
    if (spec[i].name) s->uop_pos[f++] = s->isa->pos[OVTA_FMT_UOP][i];
  if (f != 3) unreachable();
}

int fsim_new(const ovta_isa *isa, fsim_dram dram, unsigned verbose, fsim **out, ovta_error *err) {
  const ovta_config *c = &isa->cfg;
  fsim *s = calloc(1, sizeof *s);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "fsim: out of host memory");
  s->isa = isa;
  s->cfg = c;
  s->dram = dram;
  s->verbose = verbose;
  s->cmd_depth = (uint32_t)c->cmd_queue_depth;
  s->dep_depth = (uint32_t)c->dep_queue_depth;
  if (!alloc_srams(s)) {
    fsim_free(s);
    return OVTA_FAIL(err, OVTA_ENOMEM, "fsim: out of host memory for the SRAMs of config %s", c->name);
  }
  if (c->acc_depth != c->out_depth) unreachable(); /* ovta_config_derive */
  find_uop_fields(s);
  *out = s;
  return OVTA_OK;
}

/* Per run: command queues, tokens and counters start empty; SRAMs persist. */
static void start_run(fsim *s, uint32_t count, uint32_t timeout_ms, uint64_t seed, ovta_counters *counters) {
  for (int m = 0; m < M_COUNT; m++) s->q[m].head = s->q[m].count = 0;
  memset(s->tok, 0, sizeof s->tok);
  s->ctr = counters;
  memset(s->ctr, 0, sizeof *s->ctr);
  s->count = count;
  s->fetched = s->retired = s->finishes = 0;
  s->fetch_failed = false;
  s->have_next = false;
  s->next_module = M_COMPUTE;
  s->rng = seed;
  s->timeout_ms = timeout_ms;
  s->deadline_ms = timeout_ms ? now_ms() + timeout_ms : 0;
  s->work = 0;
  s->next_check = next_check(s);
  s->timed_out = s->over_budget = false;
  s->have_prev = false;
}

int fsim_exec(fsim *s, uint64_t insn_phys, uint32_t count, uint32_t timeout_ms, uint64_t seed,
              ovta_counters *counters, ovta_error *err) {
  start_run(s, count, timeout_ms, seed, counters);
  /* isa/ISA.md dynamic rule: the stream itself inside an allocated buffer */
  s->stream = dram_host(s, insn_phys, 16ull * count);
  if (!s->stream)
    return OVTA_FAIL(err, OVTA_EINSN, "fsim: instruction stream [0x%llx, +%llu) is not inside one allocated buffer",
                     (unsigned long long)insn_phys, 16ull * count);
  int rc = seed ? run_seeded(s, err) : run_fixed(s, err);
  if (s->verbose >= 1)
    fprintf(stderr, "fsim: run of %u instructions: %s (%u retired)\n", count, ovta_rc_name(rc), s->retired);
  return rc;
}

void fsim_set_budget(fsim *s, uint64_t work) { s->budget = work; }

void fsim_clear(fsim *s) {
  const ovta_config *c = s->cfg;
  if (s->dirty & 1u << OVTA_MEM_UOP) {
    memset(s->uop_raw, 0, (size_t)c->uop_depth * sizeof *s->uop_raw);
    memset(s->uop, 0, (size_t)c->uop_depth * sizeof *s->uop);
  }
  if (s->dirty & 1u << OVTA_MEM_WGT) memset(s->wgt, 0, (size_t)c->wgt_depth * c->wgt_bytes);
  if (s->dirty & 1u << OVTA_MEM_INP) memset(s->inp, 0, (size_t)c->inp_depth * c->inp_bytes);
  if (s->dirty & 1u << OVTA_MEM_ACC) memset(s->acc, 0, (size_t)c->acc_depth * c->acc_bytes);
  if (s->dirty & 1u << OVTA_MEM_OUT) memset(s->out, 0, (size_t)c->out_depth * c->out_bytes);
  s->dirty = 0;
}

int fsim_sram(const fsim *s, uint32_t mem_type, const void **data, size_t *bytes, ovta_error *err) {
  const ovta_config *c = s->cfg;
  switch (mem_type) {
  case OVTA_MEM_UOP: *data = s->uop_raw, *bytes = (size_t)c->uop_depth * 4; break;
  case OVTA_MEM_WGT: *data = s->wgt, *bytes = (size_t)c->wgt_depth * c->wgt_bytes; break;
  case OVTA_MEM_INP: *data = s->inp, *bytes = (size_t)c->inp_depth * c->inp_bytes; break;
  case OVTA_MEM_ACC: *data = s->acc, *bytes = (size_t)c->acc_depth * c->acc_bytes; break;
  case OVTA_MEM_OUT: *data = s->out, *bytes = (size_t)c->out_depth * c->out_bytes; break;
  default: return OVTA_FAIL(err, OVTA_EINVAL, "fsim_sram: unknown memory type %u", mem_type);
  }
  return OVTA_OK;
}
