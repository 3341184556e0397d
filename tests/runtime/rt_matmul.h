/* rt_matmul.h: a blocked, requantized int8 matmul written against the runtime API (the kind of
 * host code a compiler generates), shared by tests/runtime/ and bench/matmul_bench.c.
 *
 *   C[m][n] = min(max((sum_k A[m][k] * W[n][k]) >> shift, 0), 127)
 *
 * Layouts in DRAM (elements of the config):
 *   A: INP element (mi, ki) at mi*KB + ki holds A[mi*BATCH + b][ki*BLOCK_IN + i] at [b][i]
 *   W: WGT element (ni, ki) at ni*KB + ki holds W[ni*BLOCK_OUT + o][ki*BLOCK_IN + i] at [o][i]
 *   C: OUT element (mi, ni) at mi*NB + ni holds C[mi*BATCH + b][ni*BLOCK_OUT + o] at [b][o]
 * Schedule: tiles of tm x tn output elements, k in steps of tk blocks. With vt virtual threads
 * (1 or 2) the INP/WGT/ACC SRAMs are split into vt parts used in turn, and tokens let load,
 * compute and store overlap: compute->load credits free an INP/WGT part, store->compute credits
 * free an ACC part (VTA's ping-pong pattern). */
#ifndef RT_MATMUL_H
#define RT_MATMUL_H

#include <stdlib.h>
#include <string.h>

#include "ovta_runtime.h"

typedef struct mm_shape {
  int m, n, k;     /* matrix sizes: m multiple of BATCH*tm, n of BLOCK_OUT*tn, k of BLOCK_IN*tk */
  int tm, tn, tk;  /* tile in elements: tm row elements, tn output blocks, tk input blocks */
  int shift;       /* requantization shift */
} mm_shape;

/* A fitting shape per config (name): default 256x256x64 and the others scaled to their SRAMs. */
static inline mm_shape mm_shape_for(const ovta_config *c) {
  mm_shape s;
  if (c->log_block <= 3) /* small: 128 INP, 64 WGT, 128 ACC elements of 8 */
    s = (mm_shape){32, 32, 32, 8, 2, 2, 9};
  else if (c->batch == 2)
    s = (mm_shape){256, 256, 64, 32, 4, 2, 10};
  else
    s = (mm_shape){256, 256, 64, 64, 4, 2, 10};
  return s;
}

/* A compute-bound shape per config (bench/matmul_bench.c): long K and big tiles so each loaded
 * byte feeds many MACs (default: 4 B loaded per 16x16 GEMM micro-op against an 8 B/cycle bus)
 * and the per-tile reset and requantization are a few percent of the micro-ops. The tiles fit
 * the SRAM parts of 2 virtual threads. */
static inline mm_shape mm_shape_compute_bound(const ovta_config *c) {
  mm_shape s;
  if (c->log_block <= 3) /* small: parts of 64 INP, 32 WGT, 64 ACC elements */
    s = (mm_shape){64, 64, 512, 16, 4, 4, 11};
  else if (c->batch == 2) /* parts of 512 INP, 512 WGT, 512 ACC elements */
    s = (mm_shape){256, 256, 1024, 64, 8, 8, 12};
  else /* parts of 1024 INP, 512 WGT, 1024 ACC elements */
    s = (mm_shape){256, 256, 1024, 128, 8, 8, 12};
  return s;
}

/* Plain C reference, straight from the definition. */
static inline void mm_reference(const mm_shape *s, const int8_t *a, const int8_t *w, int8_t *c) {
  for (int i = 0; i < s->m; i++)
    for (int j = 0; j < s->n; j++) {
      int32_t acc = 0;
      for (int k = 0; k < s->k; k++) acc += (int32_t)a[i * s->k + k] * (int32_t)w[j * s->k + k];
      acc >>= s->shift;
      if (acc < 0) acc = 0;
      if (acc > 127) acc = 127;
      c[i * s->n + j] = (int8_t)acc;
    }
}

/* Pack A (m x k) and W (n x k) into the element layouts above. */
static inline void mm_pack(const ovta_config *c, const mm_shape *s, const int8_t *a, const int8_t *w, int8_t *pa,
                           int8_t *pw) {
  int B = c->batch, BI = c->block_in, BO = c->block_out, KB = s->k / BI;
  for (int mi = 0; mi < s->m / B; mi++)
    for (int ki = 0; ki < KB; ki++)
      for (int b = 0; b < B; b++)
        for (int i = 0; i < BI; i++)
          pa[((size_t)(mi * KB + ki) * B + b) * BI + i] = a[(mi * B + b) * s->k + ki * BI + i];
  for (int ni = 0; ni < s->n / BO; ni++)
    for (int ki = 0; ki < KB; ki++)
      for (int o = 0; o < BO; o++)
        for (int i = 0; i < BI; i++)
          pw[((size_t)(ni * KB + ki) * BO + o) * BI + i] = w[(ni * BO + o) * s->k + ki * BI + i];
}

/* Unpack C from the OUT element layout. */
static inline void mm_unpack(const ovta_config *c, const mm_shape *s, const int8_t *pc, int8_t *out) {
  int B = c->batch, BO = c->block_out, NB = s->n / BO;
  for (int mi = 0; mi < s->m / B; mi++)
    for (int ni = 0; ni < NB; ni++)
      for (int b = 0; b < B; b++)
        for (int o = 0; o < BO; o++)
          out[(mi * B + b) * s->n + ni * BO + o] = pc[((size_t)(mi * NB + ni) * B + b) * BO + o];
}

#define MM_TRY(call)                                                                               \
  do {                                                                                             \
    int rc_ = (call);                                                                              \
    if (rc_) return rc_;                                                                           \
  } while (0)

/* Kernel keys: kind (1 reset/ALU, 2 GEMM), ACC part, INP/WGT part, tile shape. */
static inline uint64_t mm_key(int kind, int a, int p, const mm_shape *s) {
  return (uint64_t)kind | (uint64_t)a << 4 | (uint64_t)p << 8 | (uint64_t)s->tm << 12 | (uint64_t)s->tn << 28 |
         (uint64_t)s->tk << 44;
}

/* Issue the whole matmul on rt (not synchronized). Buffers hold the packed A, W and get C. */
static inline int mm_issue(ovta_rt *rt, const mm_shape *s, int vt, ovta_buf *ba, ovta_buf *bw, ovta_buf *bc,
                           ovta_error *err) {
  const ovta_config *c = ovta_dev_config(ovta_rt_dev(rt));
  int KB = s->k / c->block_in, NB = s->n / c->block_out, MB = s->m / c->batch;
  uint32_t inp_part = (uint32_t)c->inp_depth / (uint32_t)vt, wgt_part = (uint32_t)c->wgt_depth / (uint32_t)vt;
  uint32_t acc_part = (uint32_t)c->acc_depth / (uint32_t)vt;
  for (int v = 0; v < vt; v++) {
    MM_TRY(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_LOAD, err)); /* INP/WGT part v is free */
    MM_TRY(ovta_rt_dep_push(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, err)); /* ACC part v is free */
  }
  int step = 0, tile = 0;
  bool rec;
  for (int mo = 0; mo < MB / s->tm; mo++)
    for (int no = 0; no < NB / s->tn; no++, tile++) {
      int a = tile % vt;
      uint32_t acc_base = (uint32_t)a * acc_part;
      /* the ACC part must have been stored */
      MM_TRY(ovta_rt_dep_pop(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, err));
      /* the tile kernel: acc[acc_base + i*tn + j], used for reset and the ALU requantization */
      MM_TRY(ovta_rt_kernel_begin(rt, mm_key(1, a, 0, s), &rec, err));
      if (rec) {
        MM_TRY(ovta_rt_loop_begin(rt, (uint32_t)s->tm, (uint32_t)s->tn, 0, 0, err));
        MM_TRY(ovta_rt_loop_begin(rt, (uint32_t)s->tn, 1, 0, 0, err));
        MM_TRY(ovta_rt_uop_push(rt, acc_base, 0, 0, err));
        MM_TRY(ovta_rt_loop_end(rt, err));
        MM_TRY(ovta_rt_loop_end(rt, err));
      }
      MM_TRY(ovta_rt_push_gemm(rt, true, err));
      MM_TRY(ovta_rt_kernel_end(rt, err));
      for (int ko = 0; ko < KB / s->tk; ko++, step++) {
        int p = step % vt;
        uint32_t inp_base = (uint32_t)p * inp_part, wgt_base = (uint32_t)p * wgt_part;
        MM_TRY(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_LOAD, err));
        MM_TRY(ovta_rt_load_2d(rt, OVTA_MEM_INP, inp_base, ba, (uint64_t)(mo * s->tm) * KB + (uint64_t)ko * s->tk,
                               (uint32_t)s->tk, (uint32_t)s->tm, (uint32_t)KB, NULL, err));
        MM_TRY(ovta_rt_load_2d(rt, OVTA_MEM_WGT, wgt_base, bw, (uint64_t)(no * s->tn) * KB + (uint64_t)ko * s->tk,
                               (uint32_t)s->tk, (uint32_t)s->tn, (uint32_t)KB, NULL, err));
        MM_TRY(ovta_rt_dep_push(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, err));
        MM_TRY(ovta_rt_dep_pop(rt, OVTA_RT_LOAD, OVTA_RT_COMPUTE, err));
        MM_TRY(ovta_rt_kernel_begin(rt, mm_key(2, a, p, s), &rec, err));
        if (rec) {
          MM_TRY(ovta_rt_loop_begin(rt, (uint32_t)s->tm, (uint32_t)s->tn, (uint32_t)s->tk, 0, err));
          MM_TRY(ovta_rt_loop_begin(rt, (uint32_t)s->tn, 1, 0, (uint32_t)s->tk, err));
          for (int k = 0; k < s->tk; k++)
            MM_TRY(ovta_rt_uop_push(rt, acc_base, inp_base + (uint32_t)k, wgt_base + (uint32_t)k, err));
          MM_TRY(ovta_rt_loop_end(rt, err));
          MM_TRY(ovta_rt_loop_end(rt, err));
        }
        MM_TRY(ovta_rt_push_gemm(rt, false, err));
        MM_TRY(ovta_rt_kernel_end(rt, err));
        MM_TRY(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_LOAD, err)); /* part p is free again */
      }
      MM_TRY(ovta_rt_kernel_begin(rt, mm_key(1, a, 0, s), &rec, err));
      MM_TRY(ovta_rt_push_alu(rt, OVTA_ALU_SHR, true, s->shift, false, err));
      MM_TRY(ovta_rt_push_alu(rt, OVTA_ALU_MAX, true, 0, false, err));
      MM_TRY(ovta_rt_push_alu(rt, OVTA_ALU_MIN, true, 127, false, err));
      MM_TRY(ovta_rt_kernel_end(rt, err));
      MM_TRY(ovta_rt_dep_push(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, err));
      MM_TRY(ovta_rt_dep_pop(rt, OVTA_RT_COMPUTE, OVTA_RT_STORE, err));
      MM_TRY(ovta_rt_store_2d(rt, OVTA_MEM_OUT, acc_base, bc, (uint64_t)(mo * s->tm) * NB + (uint64_t)no * s->tn,
                              (uint32_t)s->tn, (uint32_t)s->tm, (uint32_t)NB, err));
      MM_TRY(ovta_rt_dep_push(rt, OVTA_RT_STORE, OVTA_RT_COMPUTE, err)); /* ACC part a is free again */
    }
  return OVTA_OK;
}

/* Deterministic int8 data. */
static inline void mm_fill(int8_t *x, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    x[i] = (int8_t)(s >> 16);
  }
}

/* Everything one run needs: buffers with packed inputs, an output buffer. */
typedef struct mm_run {
  mm_shape s;        /* the shape */
  int8_t *a, *w;     /* inputs, row-major */
  int8_t *ref;       /* reference output */
  int8_t *got;       /* output read back */
  ovta_buf *ba, *bw, *bc; /* DMA buffers: packed A, packed W, packed C */
} mm_run;

static inline void mm_free(mm_run *r) {
  free(r->a);
  free(r->w);
  free(r->ref);
  free(r->got);
  if (r->ba) ovta_buf_free(r->ba);
  if (r->bw) ovta_buf_free(r->bw);
  if (r->bc) ovta_buf_free(r->bc);
  memset(r, 0, sizeof *r);
}

/* Make inputs (seeded), the reference, and the DMA buffers. */
static inline int mm_setup(ovta_dev *dev, const mm_shape *s, uint32_t seed, mm_run *r, ovta_error *err) {
  const ovta_config *c = ovta_dev_config(dev);
  memset(r, 0, sizeof *r);
  r->s = *s;
  size_t na = (size_t)s->m * s->k, nw = (size_t)s->n * s->k, nc = (size_t)s->m * s->n;
  r->a = malloc(na);
  r->w = malloc(nw);
  r->ref = malloc(nc);
  r->got = malloc(nc);
  int8_t *pa = malloc(na), *pw = malloc(nw);
  if (!r->a || !r->w || !r->ref || !r->got || !pa || !pw) {
    free(pa);
    free(pw);
    mm_free(r);
    return OVTA_FAIL(err, OVTA_ENOMEM, "mm_setup: out of memory");
  }
  mm_fill(r->a, na, seed);
  mm_fill(r->w, nw, seed + 1);
  mm_reference(s, r->a, r->w, r->ref);
  mm_pack(c, s, r->a, r->w, pa, pw);
  int rc = ovta_buf_alloc(dev, na, &r->ba, err);
  if (!rc) rc = ovta_buf_alloc(dev, nw, &r->bw, err);
  if (!rc) rc = ovta_buf_alloc(dev, nc, &r->bc, err);
  if (!rc) rc = ovta_buf_write(r->ba, 0, pa, na, err);
  if (!rc) rc = ovta_buf_write(r->bw, 0, pw, nw, err);
  free(pa);
  free(pw);
  if (rc) mm_free(r);
  return rc;
}

/* Read C back into r->got (unpacked). */
static inline int mm_collect(ovta_dev *dev, mm_run *r, ovta_error *err) {
  size_t nc = (size_t)r->s.m * r->s.n;
  int8_t *pc = malloc(nc);
  if (!pc) return OVTA_FAIL(err, OVTA_ENOMEM, "mm_collect: out of memory");
  int rc = ovta_buf_read(r->bc, 0, pc, nc, err);
  if (!rc) mm_unpack(ovta_dev_config(dev), &r->s, pc, r->got);
  free(pc);
  return rc;
}

#endif
