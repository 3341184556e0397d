/* plan.c: accelerator operators, the schedule (tiling, virtual threads) chosen to fit the SRAMs
 * of the config, tuning knobs, packing helpers and the plain-C reference (compiler/accel/accel.h). */

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"

/* ---------------------------------------------------------------- operators */

void vta_op_conv(vta_op *op, const char *name, int n, int c, int h, int w, int o, int k, int stride,
                 int pad) {
  memset(op, 0, sizeof *op);
  snprintf(op->name, sizeof op->name, "%s", name ? name : "conv");
  op->kind = VTA_CONV;
  op->n = n, op->c = c, op->h = h, op->w = w, op->o = o;
  op->kh = op->kw = k;
  op->stride_h = op->stride_w = stride;
  op->pad_t = op->pad_l = op->pad_b = op->pad_r = pad;
  op->clip_min = -128, op->clip_max = 127;
  op->groups = 1;
}

void vta_op_dense(vta_op *op, const char *name, int m, int k, int n) {
  vta_op_conv(op, name ? name : "dense", m, k, 1, 1, n, 1, 1, 0);
  op->kind = VTA_DENSE;
}

int vta_op_out_h(const vta_op *op) {
  if (op->kind == VTA_UPSAMPLE) return op->h * op->up_h;
  if (op->stride_h <= 0) return 0;
  return (op->h + op->pad_t + op->pad_b - op->kh) / op->stride_h + 1;
}
int vta_op_out_w(const vta_op *op) {
  if (op->kind == VTA_UPSAMPLE) return op->w * op->up_w;
  if (op->stride_w <= 0) return 0;
  return (op->w + op->pad_l + op->pad_r - op->kw) / op->stride_w + 1;
}
int64_t vta_op_macs(const vta_op *op) {
  if (vta_kind_alu(op->kind)) return 0;
  int g = op->groups > 0 ? op->groups : 1;
  return (int64_t)op->n * op->o * vta_op_out_h(op) * vta_op_out_w(op) * (op->c / g) * op->kh * op->kw;
}

int32_t vta_requant_round(const vta_op *op) {
  return op->shift >= 1 && op->shift <= 31 ? (int32_t)(1u << (op->shift - 1)) : 0;
}

int vta_op_shift(const vta_op *op, int o) {
  if (!op->shifts) return op->shift;
  if (op->n_shifts > 0 && o >= op->n_shifts) return 0; /* a padding group's channel: all zero */
  int64_t s = op->shifts[o];
  return s < -32 ? -32 : s > 32 ? 32 : (int)s;
}

/* Whether a bias buffer of br ACC elements stays in the ACC with vt virtual threads: the uop
 * kernel keys number the output-channel tiles up to 255 with the ACC part, and it takes at most a
 * quarter of the part. */
static bool bias_fits(const ovta_config *cfg, int br, int vt) { return br * vt <= 255 && br <= cfg->acc_depth / vt / 4; }

/* ACC elements of the bias buffer: ob, or 2 * ob with per-channel shifts (the shifts after it). */
static int bias_rows(const vta_plan *p) { return p->op.shifts ? 2 * p->ob : p->ob; }

bool vta_clip_imm(const vta_op *op, int32_t *imm) {
  if (op->clip_min < -128 || op->clip_min > 127 || op->clip_max < -128 || op->clip_max > 127) return false;
  int32_t v = (int32_t)(((uint32_t)op->clip_max & 0xffu) << 8 | ((uint32_t)op->clip_min & 0xffu));
  *imm = v >= 32768 ? v - 65536 : v;
  return true;
}

bool vta_rq_imm(int sh, bool round, int64_t lo, int64_t hi, int32_t *imm) {
  if (sh >= 32) sh = 31;
  if (sh < 1 || hi < -128 || hi > 127) return false;
  int code = lo == -128 ? 0 : lo == 0 ? 1 : lo == -hi ? 2 : lo == ~hi ? 3 : -1;
  if (code < 0) return false;
  int32_t v = (int32_t)(((uint32_t)hi & 0xffu) << 8 | (uint32_t)code << 6 | (uint32_t)round << 5 | (uint32_t)sh);
  *imm = v >= 32768 ? v - 65536 : v;
  return true;
}

int vta_requant_passes(int shift, bool round, int lo, int hi) {
  int32_t imm;
  if (shift > 0 && vta_rq_imm(shift, round, lo, hi, &imm)) return 1;
  return (shift != 0) * (round && shift > 0 ? 2 : 1) + (lo >= -128 && hi <= 127 ? 1 : 2);
}

/* ---------------------------------------------------------------- knobs */

int vta_knobs_parse_tile(const char *s, vta_knobs *k, ovta_error *err) {
  int v[5];
  if (!s || sscanf(s, "%d,%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
    return OVTA_FAIL(err, OVTA_EINVAL, "tile knobs '%s': expected t_n,t_oc,t_ic,t_h,t_w", s ? s : "");
  for (int i = 0; i < 5; i++)
    if (v[i] < 0) return OVTA_FAIL(err, OVTA_EINVAL, "tile knobs '%s': negative value", s);
  k->t_n = v[0], k->t_oc = v[1], k->t_ic = v[2], k->t_h = v[3], k->t_w = v[4];
  return OVTA_OK;
}

static int knob_obj(const cJSON *o, const char *origin, vta_knobs *k, ovta_error *err) {
  static const char *const keys[] = {"t_n", "t_oc", "t_ic", "t_h", "t_w", "vthreads", "res_form", "epi"};
  int *dst[] = {&k->t_n, &k->t_oc, &k->t_ic, &k->t_h, &k->t_w, &k->vthreads, &k->res_form, &k->epi};
  const int top[] = {65536, 65536, 65536, 65536, 65536, 65536, 3, 2};
  if (!cJSON_IsObject(o)) return OVTA_FAIL(err, OVTA_EPARSE, "%s: knobs must be an object", origin);
  for (const cJSON *it = o->child; it; it = it->next) {
    int i = 0;
    while (i < 8 && strcmp(it->string, keys[i])) i++;
    if (i == 8) return OVTA_FAIL(err, OVTA_EPARSE, "%s: unknown knob '%s'", origin, it->string);
    if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > top[i] ||
        it->valuedouble != (int)it->valuedouble)
      return OVTA_FAIL(err, OVTA_EPARSE, "%s: knob '%s' must be an integer in 0..%d", origin, it->string, top[i]);
    *dst[i] = (int)it->valuedouble;
  }
  return OVTA_OK;
}

int vta_knobs_from_json(const char *json, const char *origin, const char *name, vta_knobs *k,
                        ovta_error *err) {
  cJSON *root = cJSON_Parse(json ? json : "");
  if (!root) return OVTA_FAIL(err, OVTA_EPARSE, "%s: not valid JSON", origin);
  int rc = OVTA_OK;
  if (!cJSON_IsObject(root)) rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: expected an object", origin);
  const cJSON *d = rc ? NULL : cJSON_GetObjectItemCaseSensitive(root, "default");
  if (!rc && d) rc = knob_obj(d, origin, k, err);
  const cJSON *ops = rc ? NULL : cJSON_GetObjectItemCaseSensitive(root, "ops");
  if (!rc && ops && !cJSON_IsObject(ops)) rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: \"ops\" must be an object", origin);
  const cJSON *mine = (!rc && ops && name) ? cJSON_GetObjectItemCaseSensitive(ops, name) : NULL;
  if (!rc && mine) rc = knob_obj(mine, origin, k, err);
  cJSON_Delete(root);
  return rc;
}

/* ---------------------------------------------------------------- plan */

static int ndivisors(int x, int *out, int cap) {
  int n = 0;
  for (int d = 1; d <= x && n < cap; d++)
    if (x % d == 0) out[n++] = d;
  return n;
}

/* SRAM use and a cost estimate of one tiling (bytes moved + 64 per instruction). */
typedef struct tiling {
  int t_n, t_oc, t_ic, t_h, t_w;
  bool epi; /* the chunked epilogue (vta_plan.epi_chunks) */
} tiling;

static void fill_sizes(vta_plan *p) {
  const vta_op *op = &p->op;
  bool unpadded = !op->pad_t && !op->pad_l && !op->pad_b && !op->pad_r;
  p->in_rs = op->kh == 1 && op->stride_h > 1 && unpadded ? op->stride_h : 1;
  p->in_h = (p->t_h - 1) * (op->stride_h / p->in_rs) + op->kh;
  p->in_w = (p->t_w - 1) * op->stride_w + op->kw;
  p->in_cb = (p->t_oc - 1) * p->gs + p->t_ic;
  p->inp_tile = p->t_n * p->in_cb * p->in_h * p->in_w;
  p->wgt_tile = p->t_oc * p->t_ic * op->kh * op->kw;
  if (op->res) /* a fused add (res.c): r's tile after the input tile, the identity after the weights */
    p->inp_tile += p->t_n * p->t_oc * p->t_h * p->t_w, p->wgt_tile += 1;
  int tile_bias = op->shifts ? 2 * p->t_oc : p->t_oc; /* a per-tile bias: the tile's slice [, its shifts] */
  p->acc_tile = p->t_n * p->t_oc * p->t_h * p->t_w * (p->res_pre ? 2 : 1) + /* a fused add: r's region beside the tile */
                (!op->has_bias ? 0 : p->bias_base >= 0 ? bias_rows(p) : tile_bias);
  p->red_steps = p->gk / p->t_ic;
  p->q_chunks = 1; /* chunks of t_oc/q blocks: one store each when the tile has one image block */
  for (int q = 2; q <= 4 && p->t_n == 1 && !op->shifts && !op->res; q++) /* per-channel shifts: the SHR's operand is offset
                                                                 by the channel tile, a chunk by another loop */
    if (p->t_oc % q == 0) p->q_chunks = q;
  if (p->epi_chunks) p->q_chunks = VTA_EPI_CHUNKS; /* the last tile's too (other chunks would need kernel keys of their own) */
  p->tiles = (int64_t)(p->nb / p->t_n) * (p->ob / p->t_oc) * (p->oh / p->t_h) * (p->ow / p->t_w);
}

/* Can the tiling take the chunked epilogue (vta_plan.epi_chunks)? Two threads (the chunks' tokens
 * free a half of the other thread's ACC part), one image block and an even t_oc (two channel
 * chunks), no per-channel shifts or fused add (their passes' operands), the bias held for the op
 * and the tile spanning all output channels (the MOV's source then offset by the chunk alone:
 * fold-uops keys a kernel by one outer loop) or no bias, and 2 x vt initial store->compute tokens
 * that fit the dependency queue. */
static bool epi_ok(const vta_plan *p) {
  const vta_op *op = &p->op;
  return p->vt == 2 && p->t_n == 1 && p->t_oc % 2 == 0 && !op->shifts && !op->res && p->tiles > p->vt &&
         (!op->has_bias || (p->bias_base >= 0 && p->t_oc == p->ob)) && p->cfg.dep_queue_depth >= 2 * p->vt;
}

static bool fits(const vta_plan *p) {
  return p->inp_tile <= p->inp_part && p->wgt_tile <= p->wgt_part && p->acc_tile <= p->acc_part &&
         p->t_n * p->t_oc * p->t_h <= 16383 && p->t_w <= 16383;
}

/* Cycles of the LOAD UOPs that make a conv's micro-op kernels resident, each once (the runtime's
 * uop cache): GEMM kernels per INP and ACC part, the bias MOV and the requantization per ACC part
 * (the MOVs of the other output-channel tiles not counted: in the 3x3 layers they load while the
 * compute module waits for INP/WGT, C6 measured), and the last tile's chunks; not the first
 * tile's MOV and GEMM kernels, loaded while its first INP/WGT load runs. A LOAD UOP runs alone in
 * the compute module: ~90 cycles each on tsim (~40 of DMA latency, the rest behind the load
 * module's bursts; ResNet-18 C4/C7/C10, 2026-11-27). */
static double kernel_loads(const vta_plan *p) {
  double vt = p->vt, tiles = (double)p->tiles;
  double gemm = vt * (p->red_steps * tiles >= vt ? vt : 1);
  double init = vt < tiles ? vt : tiles;
  double req = (tiles - 1 < vt ? tiles - 1 : vt) + p->q_chunks;
  double first = 1 + (p->red_steps < vt ? p->red_steps : vt); /* the first tile's: behind its first load */
  if (p->epi_chunks) { /* a kernel per chunk and part */
    init *= VTA_EPI_CHUNKS, first += VTA_EPI_CHUNKS - 1;
    req = VTA_EPI_CHUNKS * (tiles < vt ? tiles : vt);
  }
  return 90 * (gemm + init + req - first);
}

/* The chunked epilogue in the cost model (vta_plan.epi_chunks; compiler/accel/README.md "Chunked
 * epilogue"): tile t's 2 x nreq half passes (SHR, CLP of chunk A, then of chunk B) run beside the
 * next tile's GEMMs, the runtime placing two after each GEMM (the first beside it, the second
 * beside the next): pass j ends at g_0 + h (j 0), g_k + h (j 2k - 1), g_k + 2h (j 2k); each chunk's
 * store follows its last pass. The bias MOV of chunk A of tile t + vt runs beside the last GEMM but
 * one of tile t + vt - 1 once chunk A's store is done, the last GEMM waiting for it to start; that
 * of chunk B beside the last GEMM once chunk B's store is done; the next tile's first GEMM after both. */
typedef struct epi_sim {
  double h, S, I, G;     /* a half pass, a chunk's store, a chunk's MOV, a GEMM */
  int n, j, part;        /* half passes, placed so far, the ACC part of their tile */
  double sa[2], sb[2];   /* per ACC part: the end of the store of chunk A, B */
  double pend;           /* the end of the last half pass placed */
  double g_prev;         /* the start of the GEMM before the last */
} epi_sim;

/* Half pass j done at `end`: a chunk's last one issues its store. */
static void epi_pass_done(epi_sim *e, double end, double *st) {
  e->pend = end;
  if (e->j == e->n / 2 - 1 || e->j == e->n - 1) {
    *st = (end > *st ? end : *st) + e->S;
    if (e->j == e->n - 1) e->sb[e->part] = *st;
    else e->sa[e->part] = *st;
  }
  e->j++;
}

/* The half passes after step k of the next tile (GEMM from g). */
static void epi_step(epi_sim *e, int k, double g, double *cp, double *st) {
  for (int i = 0; i < (k ? 2 : 1) && e->j < e->n; i++) {
    double end = g + e->h * (i + 1);
    if (end > *cp && i == 1) *cp = end; /* longer than the GEMM beside it */
    epi_pass_done(e, end, st);
  }
}

/* The half passes left after the steps, serial. */
static void epi_rest(epi_sim *e, double *cp, double *st) {
  while (e->j < e->n) {
    *cp += e->h + 4;
    epi_pass_done(e, *cp, st);
  }
}

/* The MOVs of a tile in ACC part q before its first GEMM; g: the start of the last GEMM before. */
static void epi_init(epi_sim *e, int q, double g, double *cp) {
  double a = e->sa[q] > e->g_prev ? e->sa[q] : e->g_prev;
  if (e->pend > a) a = e->pend;
  double a_end = a + e->I;
  if (a > g) *cp += a - g; /* the last GEMM waited for MOV A to start */
  double b = e->sb[q] > g ? e->sb[q] : g;
  if (a_end > b) b = a_end;
  if (b + e->I > *cp) *cp = b + e->I;
}

/* Estimated cycles of a tiling, on the RTL's timing (hw/rtl, tsim): a DMA moves one bus beat per
 * cycle plus ~40 cycles per instruction (read latency), a store also ~2 per row; a GEMM micro-op
 * takes one cycle, an ALU pass one cycle per ACC element (the ACC SRAM has two read ports, so a
 * tensor operand such as the MOV of the bias costs no extra cycle), ~4 cycles between compute
 * instructions.
 * Per reduction step: load L (INP + WGT), GEMM G; per tile: ALU init I (+ its bias load when the
 * bias is not held for the whole op), requantization Q and store S (the last tile's in q_chunks
 * parts, each store after its part of Q). The three modules are simulated
 * in program order with the token rules of insert-deps: the load of step s waits for the GEMM of
 * step s - vt (its INP/WGT part), a tile's init for the store of tile t - vt (its ACC part), each
 * GEMM for its load, each store for its tile's requantization. Ties go to fewer DRAM bytes and
 * instructions. */
/* The pipelined fused add's steps of the next tile before a tile's r step (vta_plan.res_pipe, set
 * to 1 while its form is searched): 0 when the form does not apply (r before the steps, one
 * virtual thread, one tile or one step). */
static int res_pipe_steps(const vta_plan *p) {
  if (!p->op.res || !p->res_pipe || p->res_pre || p->vt < 2 || p->tiles < 2 || p->red_steps < 2) return 0;
  return vta_res_pipe_steps(p) > 0 ? vta_res_pipe_steps(p) : 0;
}

/* A fused add's r step in the cost model: r's loads (Lr) after the loads before them, then its GEMM
 * passes (Gr) once they are in. As a step of the load/compute ring (step *s) the loads also wait for
 * the GEMM of the step vt before, and its GEMM hands the part back; without a ring slot
 * (vta_res_loads_free, res.c) neither. */
static void res_step(const vta_plan *p, int64_t *s, double *g_end, double *ld, double *cp, double Lr, double Gr) {
  int vt = p->vt;
  bool ring = !vta_res_loads_free(p);
  double lstart = ring && *s >= vt && g_end[*s % vt] > *ld ? g_end[*s % vt] : *ld;
  *ld = lstart + Lr;
  *cp = (*ld > *cp ? *ld : *cp) + Gr;
  if (ring) g_end[*s % vt] = *cp, ++*s;
}

static double cost(const vta_plan *p) {
  const ovta_config *c = &p->cfg;
  const vta_op *op = &p->op;
  double bus = c->axi_data_bits / 8.0;
  double te = (double)p->t_n * p->t_oc * p->t_h * p->t_w; /* ACC elements of a tile */
  double steps = (double)p->tiles * p->red_steps;
  bool pad_or_split = p->in_w != op->w || p->in_h != op->h || p->in_rs > 1;
  double nld = (pad_or_split ? (double)p->t_n * p->in_cb : (double)p->t_n) + 1;
  double rt = op->res ? te : 0; /* a fused add's r tile (and identity): in the INP/WGT budget, loaded once a tile */
  double step_bytes = ((double)p->inp_tile - rt) * c->inp_bytes + ((double)p->wgt_tile - (op->res ? 1 : 0)) * c->wgt_bytes;
  double L = step_bytes / bus + 40 * nld;
  double G = te * p->t_ic * op->kh * op->kw + 4;
  int32_t clp;
  int nreq = op->shifts ? 1 + (vta_clip_imm(op, &clp) ? 1 : 2) : vta_requant_passes(op->shift, false, op->clip_min, op->clip_max);
  double I = (op->has_bias ? te : te * (vta_requant_round(op) > 32767 ? 2 : 1)) + 4;
  if (op->has_bias && p->bias_base < 0) I += (op->shifts ? 2 : 1) * p->t_oc * c->acc_bytes / bus + 40;
  /* a fused add (res.c): before the tile's steps r's step (res_step above), a load of r's tile and
   * the identity (Lr) and two GEMM passes (Gr: the reset of
   * r's ACC region and the identity GEMM); after them the conv's passes, SHR -d, the ADD of r's
   * region, the add's [SHR -lo,] [ADD, SHR,] CLP or MAX + MIN, all in place of the requantization
   * (overlapped with the next tile's steps like it) */
  double mid = 0, Lr = 0, Gr = 0;
  int n1 = 0; /* the conv's passes before r's identity GEMM (r after the steps) */
  int add_passes = (op->res_sc && op->res_sr) + vta_requant_passes(op->res_shift, true, op->res_min, op->res_max);
  if (op->res) Lr = te * c->inp_bytes / bus + 40.0 * (p->t_n * p->t_oc + 1);
  if (op->res && p->res_pre) {
    Gr = 2 * (te + 4);
    nreq += (op->res_sc > op->res_sr) + 1 + add_passes;
  } else if (op->res) { /* r's step after the steps: the conv's passes and SHR -d serial before the
                           identity GEMM (it reads them: nothing to run beside); pipelined (res_pipe):
                           beside the next tile's first kp steps, r's step after them */
    n1 = nreq + (op->res_sc > op->res_sr);
    mid = n1 * (te + 4), Gr = te + 4;
    nreq = add_passes;
  }
  int kp = res_pipe_steps(p);
  double Q = te * nreq + 4 * nreq;
  double rows = (double)p->t_n * p->t_oc * (p->t_w == p->ow ? 1 : p->t_h);
  double S = te * c->out_bytes / bus + 2 * rows + 40;
  double insns = steps * (nld + 2) + (double)p->tiles * (6 + (double)p->t_n * p->t_oc);
  double tie = 1e-3 * (steps * step_bytes + 64.0 * insns);
  int vt = p->vt;
  /* overlap (vt > 1; isa/ISA.md "Overlap", jit-runtime/README.md): a tile's init runs beside the
   * previous tile's last GEMM once the store of tile t - vt has freed its ACC part (after that
   * GEMM: alone), its requantization passes beside the next tile's first steps (one pass per
   * step), each costing only what exceeds the GEMM beside it; the tile's store follows its last
   * pass */
  bool ov = vt > 1;
  double pass = Q / nreq, ov_pass = pass > G ? pass - G : 0, ov_init = I > G ? I - G : 0;
  if (steps > 200000) /* closed form for huge step counts: the busier module plus fill and drain */
    return (steps * (vt > 1 && L > G ? L : G + (vt > 1 ? 0 : L)) +
            (double)p->tiles * (ov ? ov_init + nreq * ov_pass : I + Q) + (double)p->tiles * (mid + Gr + (vt > 1 ? 0 : Lr))) +
           L + S + tie;
  /* ring buffers of the last vt finish times: GEMM per step, store per tile */
  double g_end[2] = {0, 0}, s_end[2] = {0, 0}, ld = 0, cp = 0, st = 0, g_start = 0;
  int64_t s = 0, pend_t = -1, pipe_t = -1;
  int pend = 0; /* requantization passes of tile pend_t still to run (overlap) */
  int pend1 = 0; /* pipelined: the conv's passes of tile pipe_t still to run, its r step after kp steps */
  epi_sim e = {.h = pass / VTA_EPI_CHUNKS, .S = S / VTA_EPI_CHUNKS + 40, .I = I / VTA_EPI_CHUNKS, .G = G,
               .n = VTA_EPI_CHUNKS * nreq, .j = VTA_EPI_CHUNKS * nreq};
  for (int64_t t = 0; t < p->tiles; t++) {
    if (p->epi_chunks && t > 0) { /* chunked: MOV A beside the last GEMM but one, MOV B beside the last */
      epi_init(&e, t % vt, g_start, &cp);
    } else if (ov && t > 0) { /* init beside the last GEMM, once the store of tile t - vt freed the ACC part */
      double at = s_end[t % vt] > g_start ? s_end[t % vt] : g_start;
      if (at + I > cp) cp = at + I;
    } else {
      double start = s_end[t % vt] > cp ? s_end[t % vt] : cp; /* init: ACC part free */
      cp = start + I;
    }
    if (op->res && p->res_pre) { /* the fused add's step before the steps (above) */
      res_step(p, &s, g_end, &ld, &cp, Lr, Gr);
      /* its reset and identity GEMM run beside the previous tile's passes too, when the tile's GEMMs
       * are enough for all of them (else the runtime keeps them serial: r's region before the steps
       * on ResNet-18's 64-channel (1, 0, 1) add, 580.8k cycles on tsim) */
      for (int g = 0; g < 2 && pend && nreq <= p->red_steps + 2; g++)
        if (--pend == 0) s_end[pend_t % vt] = st = (cp > st ? cp : st) + S;
    }
    for (int k = 0; k < p->red_steps; k++, s++) {
      double lstart = s >= vt && g_end[s % vt] > ld ? g_end[s % vt] : ld; /* INP/WGT part free */
      ld = lstart + L;
      e.g_prev = g_start;
      g_start = ld > cp ? ld : cp;
      cp = g_start + G;
      g_end[s % vt] = cp;
      if (p->epi_chunks) epi_step(&e, k, g_start, &cp, &st);
      else if (pend1) cp += ov_pass, pend1--;
      else if (pend && (cp += ov_pass, --pend == 0)) s_end[pend_t % vt] = st = (cp > st ? cp : st) + S;
      if (pipe_t >= 0 && k == kp - 1) { /* the previous tile's r step and add passes (pipelined) */
        cp += pend1 * pass, pend1 = 0;
        if (pend) cp += pend * pass, s_end[pend_t % vt] = st = (cp > st ? cp : st) + S, pend = 0;
        s++;
        res_step(p, &s, g_end, &ld, &cp, Lr, Gr);
        s--;
        if (p->red_steps - kp > nreq) pend = nreq, pend_t = pipe_t; /* the add's passes beside the next steps */
        else cp += nreq * pass, s_end[pipe_t % vt] = st = (cp > st ? cp : st) + S; /* too few: serial (the runtime
                                                                                   keeps the last step for the init) */
        pipe_t = -1;
      }
    }
    if (kp && ov && t < p->tiles - 1) { /* pipelined: the conv's passes and r's step into the next tile */
      if (pend) cp += pend * pass, s_end[pend_t % vt] = st = (cp > st ? cp : st) + S, pend = 0;
      pend1 = n1, pipe_t = t;
      continue;
    }
    if (p->epi_chunks && e.j < e.n) epi_rest(&e, &cp, &st); /* more passes than steps: after them */
    if (op->res && !p->res_pre) { /* the fused add's step after the steps (above) */
      cp += mid;
      res_step(p, &s, g_end, &ld, &cp, Lr, Gr);
    }

    if (pend) { /* more passes than steps: the rest after them */
      cp += pend * pass, pend = 0;
      s_end[pend_t % vt] = st = (cp > st ? cp : st) + S;
    }
    if (p->epi_chunks && t < p->tiles - 1) { /* into the next tile's steps, in chunks */
      e.j = 0, e.part = t % vt;
      continue;
    }
    if (ov && t < p->tiles - 1) { /* into the next tile's steps */
      pend = nreq, pend_t = t;
      continue;
    }
    int nq = t == p->tiles - 1 ? p->q_chunks : 1; /* the last tile in chunks, each stored after its part */
    for (int q = 0; q < nq; q++) {
      cp += Q / nq + (nq > 1 ? 40 : 0);
      st = (cp > st ? cp : st) + S / nq + (nq > 1 ? 40 : 0);
    }
    s_end[t % vt] = st;
  }
  return st + tie + kernel_loads(p);
}


/* Call fn on every tiling of p (its op, config and virtual threads set) that fits the SRAMs and
 * agrees with the knobs set in k, with its estimated cycles: in the chunked epilogue's form
 * (epi_chunks) when it applies and is cheaper, or the knob asks for it; with `both` (the space)
 * in each form that applies, the whole-tile one first. */
typedef void (*tiling_fn)(void *ctx, const vta_plan *q, double cost);
static void each_tiling(const vta_plan *p, const vta_knobs *kp, bool both, tiling_fn fn, void *ctx) {
  vta_knobs k = *kp;
  int dn[64], doc[64], dic[64], dh[64], dw[64];
  int nn = ndivisors(p->nb, dn, 64), noc = ndivisors(p->ob, doc, 64), nic = ndivisors(p->gk, dic, 64);
  int nh = ndivisors(p->oh, dh, 64), nw = ndivisors(p->ow, dw, 64);
  vta_plan q = *p;
  for (int a = 0; a < nn; a++) {
    if (k.t_n && dn[a] != k.t_n) continue;
    for (int b = 0; b < noc; b++) {
      if (k.t_oc && doc[b] != k.t_oc) continue;
      for (int c = 0; c < nic; c++) {
        if (k.t_ic && dic[c] != k.t_ic) continue;
        for (int d = 0; d < nh; d++) {
          if (k.t_h && dh[d] != k.t_h) continue;
          for (int e = 0; e < nw; e++) {
            if (k.t_w && dw[e] != k.t_w) continue;
            q.t_n = dn[a], q.t_oc = doc[b], q.t_ic = dic[c], q.t_h = dh[d], q.t_w = dw[e];
            q.epi_chunks = false;
            fill_sizes(&q);
            if (!fits(&q)) continue;
            double cw = cost(&q);
            if (k.epi != 1 && epi_ok(&q)) { /* the chunked epilogue (same SRAM use): when cheaper or forced */
              if (both) fn(ctx, &q, cw);
              q.epi_chunks = true;
              fill_sizes(&q);
              double cc = cost(&q);
              if (cc < cw || k.epi == 2 || both) cw = cc;
              else q.epi_chunks = false, fill_sizes(&q);
            }
            fn(ctx, &q, cw);
          }
        }
      }
    }
  }
}

/* each_tiling's callback of vta_plan_make: the cheapest (first on a tie). */
typedef struct best_ctx { double best; tiling bt; } best_ctx;
static void keep_best(void *ctx, const vta_plan *q, double cst) {
  best_ctx *b = ctx;
  if (b->best < 0 || cst < b->best) b->best = cst, b->bt = (tiling){q->t_n, q->t_oc, q->t_ic, q->t_h, q->t_w, q->epi_chunks};
}

/* The plan of a conv or dense op with the knobs k (vta_plan_make); *est: its estimated cycles. */
static int plan_conv(const ovta_config *cfg, const vta_op *op, vta_knobs k, vta_plan *p, double *est, ovta_error *err) {
  memset(p, 0, sizeof *p);
  p->op = *op;
  p->cfg = *cfg;
  const char *nm = op->name;
  int B = cfg->batch, BI = cfg->block_in, BO = cfg->block_out;
  p->vt = k.vthreads ? k.vthreads : 2;
  if (p->vt != 1 && p->vt != 2) return OVTA_FAIL(err, OVTA_EINVAL, "%s: vthreads %d: only 1 or 2", nm, p->vt);
  if (op->n <= 0 || op->c <= 0 || op->h <= 0 || op->w <= 0 || op->o <= 0 || op->kh <= 0 || op->kw <= 0 ||
      op->stride_h <= 0 || op->stride_w <= 0 || op->pad_t < 0 || op->pad_l < 0 || op->pad_b < 0 || op->pad_r < 0)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s: bad shape (sizes, kernel, stride must be > 0, pads >= 0)", nm);
  if (op->n % B) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: batch %d is not a multiple of BATCH %d", nm, op->n, B);
  if (op->c % BI)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input channels %d not a multiple of BLOCK_IN %d", nm, op->c, BI);
  if (op->o % BO)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: output channels %d not a multiple of BLOCK_OUT %d", nm, op->o, BO);
  if (op->pad_t > 15 || op->pad_l > 15 || op->pad_b > 15 || op->pad_r > 15)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: padding above 15 (DMA padding limit)", nm);
  if (op->pad_t >= op->kh || op->pad_b >= op->kh || op->pad_l >= op->kw || op->pad_r >= op->kw)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: padding as large as the kernel (a tile could lie in the padding)", nm);
  if (op->shift < -32768 || op->shift > 32767 || op->clip_min < -32768 || op->clip_max > 32767 ||
      op->clip_min > op->clip_max)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: shift/clip outside the ALU's 16-bit immediates", nm);
  p->nb = op->n / B, p->cb = op->c / BI, p->ob = op->o / BO;
  int64_t gk = p->cb, gs = 0;
  if (op->groups != 1 && op->groups != 0) { /* 0: as 1 */
    if (op->kind != VTA_CONV || op->groups < 1 || op->c % op->groups || op->o % op->groups)
      return OVTA_FAIL(err, OVTA_EINVAL, "%s: groups %d do not divide the channels %d -> %d", nm, op->groups, op->c, op->o);
    if (!ovta_group_blocks(op->c, op->o, op->groups, BI, BO, &gk, &gs))
      return OVTA_FAIL(err, OVTA_EUNSUPPORTED,
                       "%s: groups %d: %d input and %d output channels per group do not align with the %dx%d blocks",
                       nm, op->groups, op->c / op->groups, op->o / op->groups, BO, BI);
  }
  p->gk = (int)gk, p->gs = (int)gs;
  p->oh = vta_op_out_h(op), p->ow = vta_op_out_w(op);
  if (p->oh <= 0 || p->ow <= 0) return OVTA_FAIL(err, OVTA_EINVAL, "%s: empty output", nm);
  if (op->h + op->pad_t + op->pad_b > 65535 || op->w > 65535 || (int64_t)p->cb * op->h * op->w > 65535 * 16)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: input too large for 16-bit DMA strides", nm);
  p->inp_part = cfg->inp_depth / p->vt;
  p->wgt_part = cfg->wgt_depth / p->vt;
  p->acc_part = cfg->acc_depth / p->vt;
  /* the whole bias at the end of the ACC, loaded once, when small: saves one ACC load per tile,
   * which runs in the compute module and competes for the bus with the INP/WGT loads (the uop
   * kernel keys number the output-channel tiles up to 255 with the ACC part) */
  int br = bias_rows(p);
  p->bias_base = op->has_bias && bias_fits(cfg, br, p->vt) ? cfg->acc_depth - br : -1;
  /* per-channel shifts: SHR with the shifts as tensor operand, in the ACC beside the bias (held for
   * the op, or each output-channel tile's slice of both loaded with the tile) */
  if (op->shifts && !op->has_bias)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: per-channel shifts need a bias (the shifts sit beside it)", nm);
  int rrc = vta_res_check(p, err);
  if (rrc) return rrc;
  p->uop_budget = cfg->uop_depth / (4 * p->vt * p->vt);
  if (p->uop_budget < 1) p->uop_budget = 1;

  const int *want[5] = {&k.t_n, &k.t_oc, &k.t_ic, &k.t_h, &k.t_w};
  const int full[5] = {p->nb, p->ob, p->gk, p->oh, p->ow};
  static const char *const kname[5] = {"t_n", "t_oc", "t_ic", "t_h", "t_w"};
  for (int i = 0; i < 5; i++)
    if (*want[i] && (*want[i] > full[i] || full[i] % *want[i]))
      return OVTA_FAIL(err, OVTA_EINVAL, "%s: knob %s = %d does not divide %d", nm, kname[i], *want[i], full[i]);
  best_ctx bc = {.best = -1};
  p->res_pre = op->res && k.res_form == 2;
  p->res_pipe = op->res && k.res_form == 3 && p->vt > 1;
  each_tiling(p, &k, false, keep_best, &bc);
  double best = bc.best;
  tiling bt = bc.bt;
  for (int form = 2; op->res && !k.res_form && form <= 3; form++) { /* a fused add: the other forms (r's region
                                                                        before the steps, the pipelined), the cheapest kept */
    if (form == 3 && p->vt < 2) break;
    best_ctx bp = {.best = -1};
    bool pre = p->res_pre;
    int pipe = p->res_pipe;
    p->res_pre = form == 2, p->res_pipe = form == 3;
    each_tiling(p, &k, false, keep_best, &bp);
    /* a tie goes to the pipelined form: with the add's passes serial after r's step (more of them
     * than steps after it) the model gives it the cycles of r after the steps, tsim 2.3% fewer
     * (ResNet-18 layer1.0 conv2, bench/README.md) */
    if (bp.best >= 0 && (best < 0 || bp.best < best || (form == 3 && bp.best <= best))) best = bp.best, bt = bp.bt;
    else p->res_pre = pre, p->res_pipe = pipe;
  }
  if (best < 0)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED,
                     "%s: no tiling fits the SRAMs of config %s with %d virtual thread(s) (inp %d, wgt %d, acc %d "
                     "elements per thread)",
                     nm, cfg->name, p->vt, p->inp_part, p->wgt_part, p->acc_part);
  p->t_n = bt.t_n, p->t_oc = bt.t_oc, p->t_ic = bt.t_ic, p->t_h = bt.t_h, p->t_w = bt.t_w;
  p->epi_chunks = bt.epi;
  fill_sizes(p);
  p->res_pipe = res_pipe_steps(p);
  snprintf(p->why, sizeof p->why, "%s (estimated cost %.0f)",
           (k.t_n || k.t_oc || k.t_ic || k.t_h || k.t_w) ? "knobs + search" : "search", best);
  *est = p->est = best;
  return OVTA_OK;
}

int vta_plan_make(const ovta_config *cfg, const vta_op *op, const vta_knobs *kn, vta_plan *p,
                  ovta_error *err) {
  if (vta_kind_alu(op->kind)) return vta_alu_plan_make(cfg, op, kn, p, err);
  vta_knobs k = {0};
  if (kn) k = *kn;
  double e1, e2;
  /* per-channel shifts whose bias and shifts (2 * ob ACC elements) stay in the ACC only with one
   * virtual thread (bias_fits): that plan, or two threads each loading its tiles' slices, whichever
   * the estimate finds faster (unless the knobs fix the threads; compiler/accel/README.md) */
  int pc_rows = 2 * (op->o / cfg->block_out); /* bias_rows with shifts */
  if (!k.vthreads && op->shifts && op->has_bias && !bias_fits(cfg, pc_rows, 2) && bias_fits(cfg, pc_rows, 1)) {
    vta_plan *one = malloc(sizeof *one);
    if (!one) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", op->name);
    ovta_error e = {0};
    vta_knobs k1 = k;
    k1.vthreads = 1;
    int rc1 = plan_conv(cfg, op, k1, one, &e1, &e);
    int rc2 = plan_conv(cfg, op, k, p, &e2, err);
    if (!rc1 && (rc2 || e1 <= e2)) *p = *one, rc2 = OVTA_OK;
    free(one);
    return rc2;
  }
  return plan_conv(cfg, op, k, p, &e1, err);
}

/* each_tiling's callback of vta_plan_space: append while there is room, count all. */
typedef struct space_ctx { vta_tiling *out; int cap, n, vt, form; } space_ctx;
static void collect(void *ctx, const vta_plan *q, double cst) {
  space_ctx *c = ctx;
  if (c->n < c->cap)
    c->out[c->n] = (vta_tiling){.k = {q->t_n, q->t_oc, q->t_ic, q->t_h, q->t_w, c->vt, c->form, q->epi_chunks ? 2 : 1},
                                .est = cst};
  c->n++;
}

/* The space: per thread count (1, 2) and, for a fused add, per form of it (1, 2, and 3 with two
 * threads: res_form), every fitting tiling, with the whole-tile epilogue (epi 1) and, where the
 * chunked one applies (epi_ok), also with it (epi 2). */
int vta_plan_space(const ovta_config *cfg, const vta_op *op, vta_tiling *out, int cap, int *n, ovta_error *err) {
  space_ctx c = {.out = out, .cap = cap};
  int rc = OVTA_OK, ok = 0;
  for (int vt = 1; vt <= 2; vt++)
    for (int form = op->res ? 1 : 0, forms = op->res ? vt + 1 : 0; form <= forms; form++) { /* pipelined: 2 threads */
      vta_plan p;
      vta_knobs k = {.vthreads = vt, .res_form = form};
      ovta_error e = {0};
      int r = vta_plan_make(cfg, op, &k, &p, &e);
      if (r) { /* the first refusal is the answer when nothing plans */
        if (!rc && err) *err = e;
        if (!rc) rc = r;
        continue;
      }
      if (vta_kind_alu(op->kind))
        return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s: an ALU operator has no tiling knobs", op->name);
      c.vt = vt, c.form = form, ok++;
      each_tiling(&p, &k, true, collect, &c);
    }
  *n = c.n;
  return ok ? OVTA_OK : rc;
}

void vta_plan_str(const vta_plan *p, char *buf, size_t n) {
  snprintf(buf, n, "tile n%d oc%d ic%d h%d w%d, vt %d, tiles %lld x %d steps, sram inp %d/%d wgt %d/%d acc %d/%d",
           p->t_n, p->t_oc, p->t_ic, p->t_h, p->t_w, p->vt, (long long)p->tiles, p->red_steps, p->inp_tile,
           p->inp_part, p->wgt_tile, p->wgt_part, p->acc_tile, p->acc_part);
  size_t k = strlen(buf);
  if (p->op.res && k < n) /* a fused add: where r enters (accel/res.c) */
    snprintf(buf + k, n - k, ", add fused (r %s the steps%s)", p->res_pre ? "before" : "after",
             p->res_pipe ? ", pipelined" : "");
  k = strlen(buf);
  if (p->epi_chunks && k < n) snprintf(buf + k, n - k, ", epilogue in 2 chunks");
}

/* ---------------------------------------------------------------- packing, reference */

size_t vta_x_bytes(const vta_plan *p) { return (size_t)p->op.n * p->op.c * p->op.h * p->op.w; }
size_t vta_w_bytes(const vta_plan *p) {
  if (p->op.kind == VTA_ADD) return vta_x_bytes(p);
  if (vta_kind_alu(p->op.kind)) return (size_t)p->cfg.block_out * p->cfg.block_in;
  return (size_t)p->op.o * p->gk * p->cfg.block_in * p->op.kh * p->op.kw;
}
size_t vta_bias_bytes(const vta_plan *p) {
  if (vta_kind_alu(p->op.kind)) return (size_t)(p->op.kind == VTA_ADD ? 2 : 1) * p->cfg.block_out * p->cfg.block_in;
  return (size_t)p->op.o * p->cfg.batch * 4 * (p->op.shifts ? 2 : 1);
}
size_t vta_y_bytes(const vta_plan *p) { return (size_t)p->op.n * p->op.o * p->oh * p->ow; }

void vta_pack_x(const vta_plan *p, const int8_t *x, int8_t *px) {
  int B = p->cfg.batch, BI = p->cfg.block_in, C = p->op.c, H = p->op.h, W = p->op.w;
  for (int n = 0; n < p->op.n; n++)
    for (int c = 0; c < C; c++)
      for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) {
          size_t e = (((size_t)(n / B) * p->cb + c / BI) * H + h) * W + w;
          px[(e * B + n % B) * BI + c % BI] = x[(((size_t)n * C + c) * H + h) * W + w];
        }
}

/* Weights [O][C/G][KH][KW] -> [O/BO][gk][KH][KW][BO][BI]: output channel o of group g = o / (O/G)
 * reads input channel c = g * C/G + ci at block c / BI - (o / BO) * gs; the rest stays zero. */
void vta_pack_w(const vta_plan *p, const int8_t *w, int8_t *pw) {
  int BI = p->cfg.block_in, BO = p->cfg.block_out, KH = p->op.kh, KW = p->op.kw;
  int G = p->op.groups > 0 ? p->op.groups : 1, cg = p->op.c / G, og = p->op.o / G;
  memset(pw, 0, vta_w_bytes(p));
  for (int o = 0; o < p->op.o; o++)
    for (int ci = 0; ci < cg; ci++) {
      int c = o / og * cg + ci, kb = c / BI - o / BO * p->gs;
      for (int i = 0; i < KH; i++)
        for (int j = 0; j < KW; j++) {
          size_t e = (((size_t)(o / BO) * p->gk + kb) * KH + i) * KW + j;
          pw[(e * BO + o % BO) * BI + c % BI] = w[(((size_t)o * cg + ci) * KH + i) * KW + j];
        }
    }
}

void vta_pack_bias(const vta_plan *p, const int32_t *b, int32_t *pb) {
  int B = p->cfg.batch, BO = p->cfg.block_out;
  uint32_t rnd = (uint32_t)vta_requant_round(&p->op);
  size_t half = (size_t)p->op.o * B;
  for (int o = 0; o < p->op.o; o++) {
    int s = vta_op_shift(&p->op, o);
    if (p->op.shifts) rnd = s >= 1 && s <= 31 ? 1u << (s - 1) : 0; /* channel o's rounding constant */
    for (int r = 0; r < B; r++) {
      size_t e = ((size_t)(o / BO) * B + r) * BO + o % BO;
      pb[e] = (int32_t)((uint32_t)b[o] + rnd);
      if (p->op.shifts) pb[half + e] = s; /* the shift, ob blocks after the bias */
    }
  }
}

void vta_unpack_y(const vta_plan *p, const int8_t *py, int8_t *y) {
  int B = p->cfg.batch, BO = p->cfg.block_out, O = p->op.o, OH = p->oh, OW = p->ow;
  for (int n = 0; n < p->op.n; n++)
    for (int o = 0; o < O; o++)
      for (int h = 0; h < OH; h++)
        for (int w = 0; w < OW; w++) {
          size_t e = (((size_t)(n / B) * p->ob + o / BO) * OH + h) * OW + w;
          y[(((size_t)n * O + o) * OH + h) * OW + w] = py[(e * B + n % B) * BO + o % BO];
        }
}

void vta_reference(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y) {
  int OH = vta_op_out_h(op), OW = vta_op_out_w(op), G = op->groups > 0 ? op->groups : 1;
  for (int n = 0; n < op->n; n++)
    for (int o = 0; o < op->o; o++)
      for (int oh = 0; oh < OH; oh++)
        for (int ow = 0; ow < OW; ow++) {
          uint32_t acc = bias ? (uint32_t)bias[o] : 0; /* int32 wrap-around */
          int cg = op->c / G, c0 = o / (op->o / G) * cg; /* the input channels of o's group */
          for (int ci = 0; ci < cg; ci++)
            for (int i = 0; i < op->kh; i++)
              for (int j = 0; j < op->kw; j++) {
                int ih = oh * op->stride_h - op->pad_t + i, iw = ow * op->stride_w - op->pad_l + j;
                if (ih < 0 || ih >= op->h || iw < 0 || iw >= op->w) continue;
                int32_t xv = x[(((size_t)n * op->c + c0 + ci) * op->h + ih) * op->w + iw];
                int32_t wv = w[(((size_t)o * cg + ci) * op->kh + i) * op->kw + j];
                acc += (uint32_t)(xv * wv);
              }
          int32_t r = ovta_requant((int32_t)acc, vta_op_shift(op, o), op->clip_min, op->clip_max);
          y[(((size_t)n * op->o + o) * OH + oh) * OW + ow] = (int8_t)r;
        }
}
