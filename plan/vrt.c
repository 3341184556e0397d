/* vrt.c: the runtime shims the accelerator host code calls (ovta_vrt_*, ovta_plan.h section 4),
 * on the calling thread's context: each one checks its arguments and issues onto the JIT
 * runtime's queue, or (dry run, no queue) only counts. Compiled host code (a JIT's, or
 * kernels.so's through the executable's dynamic symbols) and the compiler's host-IR walker
 * (compiler/accel/run.c) call the same functions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ovta_plan.h"

/* ---------------------------------------------------------------- runtime shims */

static _Thread_local ovta_vrt_ctx *cur;
void ovta_vrt_ctx_set(ovta_vrt_ctx *c) { cur = c; }
ovta_vrt_ctx *ovta_vrt_ctx_get(void) { return cur; }

#define SHIM_ENTER                                                                                  \
  ovta_vrt_ctx *c = cur;                                                                              \
  if (!c) return OVTA_EINVAL;                                                                       \
  if (c->rc) return c->rc;
#define SHIM_RC(call) (c->rc = (call))

static ovta_buf *hbuf(ovta_vrt_ctx *c, int64_t h) {
  if (h < 0 || h >= OVTA_VBUF_COUNT || !c->bufs[h]) {
    c->rc = OVTA_FAIL(&c->err, OVTA_EINVAL, "host code: buffer handle %" PRId64 " not bound", h);
    return NULL;
  }
  return c->bufs[h];
}

static bool u32ok(ovta_vrt_ctx *c, const char *what, int64_t v) {
  if (v >= 0 && v <= UINT32_MAX) return true;
  c->rc = OVTA_FAIL(&c->err, OVTA_EINVAL, "host code: %s %" PRId64 " out of range", what, v);
  return false;
}

int32_t ovta_vrt_load(int64_t type, int64_t sram, int64_t buf, int64_t off, int64_t xs, int64_t ys, int64_t stride,
                      int64_t px0, int64_t py0, int64_t px1, int64_t py1) {
  SHIM_ENTER;
  if (!u32ok(c, "sram", sram) || !u32ok(c, "x_size", xs) || !u32ok(c, "y_size", ys) || !u32ok(c, "x_stride", stride) ||
      off < 0)
    return c->rc ? c->rc : OVTA_EINVAL;
  if (c->counts) {
    uint64_t n = (uint64_t)xs * (uint64_t)ys;
    if (type == OVTA_MEM_INP) c->counts->insns_load++, c->counts->bytes_inp += n * (uint64_t)c->cfg->inp_bytes;
    else if (type == OVTA_MEM_WGT) c->counts->insns_load++, c->counts->bytes_wgt += n * (uint64_t)c->cfg->wgt_bytes;
    else c->counts->insns_acc_load++, c->counts->bytes_acc += n * (uint64_t)c->cfg->acc_bytes;
  }
  if (!c->rt) return 0;
  ovta_buf *b = hbuf(c, buf);
  if (!b) return c->rc;
  ovta_rt_pad pad = {(uint32_t)px0, (uint32_t)py0, (uint32_t)px1, (uint32_t)py1};
  return SHIM_RC(ovta_rt_load_2d(c->rt, (ovta_mem_type)type, (uint32_t)sram, b, (uint64_t)off, (uint32_t)xs,
                                 (uint32_t)ys, (uint32_t)stride, &pad, &c->err));
}

int32_t ovta_vrt_store(int64_t sram, int64_t buf, int64_t off, int64_t xs, int64_t ys, int64_t stride) {
  SHIM_ENTER;
  if (!u32ok(c, "sram", sram) || !u32ok(c, "x_size", xs) || !u32ok(c, "y_size", ys) || !u32ok(c, "x_stride", stride) ||
      off < 0)
    return c->rc ? c->rc : OVTA_EINVAL;
  if (c->counts) c->counts->insns_store++, c->counts->bytes_out += (uint64_t)xs * (uint64_t)ys * (uint64_t)c->cfg->out_bytes;
  if (!c->rt) return 0;
  ovta_buf *b = hbuf(c, buf);
  if (!b) return c->rc;
  return SHIM_RC(ovta_rt_store_2d(c->rt, OVTA_MEM_OUT, (uint32_t)sram, b, (uint64_t)off, (uint32_t)xs, (uint32_t)ys,
                                  (uint32_t)stride, &c->err));
}

int32_t ovta_vrt_dep_push(int64_t from, int64_t to) {
  SHIM_ENTER;
  if (c->counts) c->counts->tokens++;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_dep_push(c->rt, (ovta_rt_stage)from, (ovta_rt_stage)to, &c->err));
}

int32_t ovta_vrt_dep_pop(int64_t from, int64_t to) {
  SHIM_ENTER;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_dep_pop(c->rt, (ovta_rt_stage)from, (ovta_rt_stage)to, &c->err));
}

/* dry run: remember keys (open addressing) to count distinct kernels */
static bool seen_insert(ovta_vrt_ctx *c, uint64_t key) {
  if (c->seen_n * 2 >= c->seen_cap) {
    size_t ncap = c->seen_cap ? c->seen_cap * 2 : 256;
    uint64_t *n = calloc(ncap, sizeof *n);
    if (!n) {
      c->rc = OVTA_FAIL(&c->err, OVTA_ENOMEM, "host code: out of memory");
      return false;
    }
    for (size_t i = 0; i < c->seen_cap; i++)
      if (c->seen[i]) {
        size_t j = (size_t)(c->seen[i] * 0x9E3779B97F4A7C15ull) & (ncap - 1);
        while (n[j]) j = (j + 1) & (ncap - 1);
        n[j] = c->seen[i];
      }
    free(c->seen);
    c->seen = n, c->seen_cap = ncap;
  }
  uint64_t k = key | 1ull << 63;
  size_t j = (size_t)(k * 0x9E3779B97F4A7C15ull) & (c->seen_cap - 1);
  while (c->seen[j]) {
    if (c->seen[j] == k) return false;
    j = (j + 1) & (c->seen_cap - 1);
  }
  c->seen[j] = k, c->seen_n++;
  return true;
}

static _Thread_local bool new_kernel;
int32_t ovta_vrt_kernel_begin(int64_t key) {
  SHIM_ENTER;
  c->cur_uops = 0, c->cur_iters = 1, c->cur_levels = 0;
  if (!c->rt) {
    new_kernel = seen_insert(c, (uint64_t)key);
    if (new_kernel && c->counts) c->counts->kernels++;
    return c->rc ? 0 : 1; /* always record: the counts need the kernel's size */
  }
  bool rec = false;
  if (SHIM_RC(ovta_rt_kernel_begin(c->rt, (uint64_t)key, &rec, &c->err))) return 0;
  if (rec && c->counts) c->counts->kernels++;
  new_kernel = rec;
  return rec;
}

int32_t ovta_vrt_loop_begin(int64_t ext, int64_t dst, int64_t src, int64_t wgt) {
  SHIM_ENTER;
  if (!u32ok(c, "extent", ext) || !u32ok(c, "dst factor", dst) || !u32ok(c, "src factor", src) ||
      !u32ok(c, "wgt factor", wgt))
    return c->rc;
  c->cur_iters *= (uint64_t)ext;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_loop_begin(c->rt, (uint32_t)ext, (uint32_t)dst, (uint32_t)src, (uint32_t)wgt, &c->err));
}

int32_t ovta_vrt_loop_end(void) {
  SHIM_ENTER;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_loop_end(c->rt, &c->err));
}

int32_t ovta_vrt_uop(int64_t dst, int64_t src, int64_t wgt) {
  SHIM_ENTER;
  if (!u32ok(c, "uop dst", dst) || !u32ok(c, "uop src", src) || !u32ok(c, "uop wgt", wgt)) return c->rc;
  c->cur_uops++;
  if (new_kernel && c->counts) c->counts->uops_recorded++;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_uop_push(c->rt, (uint32_t)dst, (uint32_t)src, (uint32_t)wgt, &c->err));
}

int32_t ovta_vrt_gemm(int64_t reset) {
  SHIM_ENTER;
  if (c->counts) c->counts->insns_gemm++, c->counts->gemm_uops += c->rt ? 0 : c->cur_uops * c->cur_iters;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_push_gemm(c->rt, reset != 0, &c->err));
}

int32_t ovta_vrt_alu(int64_t op, int64_t use_imm, int64_t imm) {
  SHIM_ENTER;
  if (c->counts) c->counts->insns_alu++, c->counts->alu_uops += c->rt ? 0 : c->cur_uops * c->cur_iters;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_push_alu(c->rt, (ovta_alu_op)op, use_imm != 0, (int32_t)imm, false, &c->err));
}

int32_t ovta_vrt_kernel_end(void) {
  SHIM_ENTER;
  new_kernel = false;
  if (!c->rt) return 0;
  return SHIM_RC(ovta_rt_kernel_end(c->rt, &c->err));
}

int ovta_vrt_call(ovta_kernel_fn fn, const char *name, ovta_vrt_ctx *c, ovta_error *err) {
  void *args[OVTA_VBUF_COUNT + 4] = {0}; /* the host function ignores its buffer parameters */
  ovta_vrt_ctx *saved = cur;
  ovta_vrt_ctx_set(c);
  fn(args);
  ovta_vrt_ctx_set(saved);
  if (c->rc) {
    if (err) *err = c->err;
    return ovta_error_wrap(err, "%s", name);
  }
  return OVTA_OK;
}
