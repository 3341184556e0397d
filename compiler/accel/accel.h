/* accel.h: the accelerator layer (compiler/accel/, prefix vta_): accelerator operators lowered
 * through staged loop IR (lir.h) down to host code calling the JIT runtime
 * (jit-runtime/ovta_runtime.h). May include: graph.h, lir.h, the JIT runtime. Private helpers
 * shared by the files of this layer: accel_internal.h. Spec, pass list and where to add an
 * operator or a stage: compiler/accel/README.md.
 *
 * Sections:
 *   1. Operators  - what the accelerator computes here (conv2d / dense, fused bias + requant).
 *   2. Schedule   - tiling and virtual threads: automatic from the config, or knobs / tuning JSON.
 *   3. Passes     - the named lowering stages, each giving a loop IR function (--print-after).
 *   4. Kernels    - a compiled operator: the final host IR run against the runtime.
 *   5. Graph      - which graph nodes run where, with a compile report.
 *   6. Reference  - plain-C int8 references and packing helpers (tests, bench).
 *   7. Schedule primitives - loop-IR transformations, TVM-TIR style (compiler/accel/sched.c).
 *
 * DRAM layouts (elements of the config, graph.h OVTA_LAYOUT_*):
 *   x    int8  [N/B][C/BI][H][W][B][BI]          (dense: H = W = 1)
 *   w    int8  [O/BO][C/BI][KH][KW][BO][BI]     (grouped conv: [O/BO][gk][KH][KW][BO][BI], vta_plan.gk)
 *   bias int32 [O/BO][BO]  (expanded to ACC elements [O/BO][B][BO] when bound, the rounding
 *                           constant 2^(shift-1) added: vta_pack_bias; with per-channel shifts
 *                           [2 * O/BO][B][BO], the shifts after the bias)
 *   y    int8  [N/B][O/BO][OH][OW][B][BO]
 */
#ifndef OVTA_VTA_H
#define OVTA_VTA_H

#include "graph.h"
#include "lir.h"
#include "ovta_plan.h"
#include "ovta_runtime.h"

/* ---------------------------------------------------------------- 1. Operators */

typedef enum vta_op_kind {
  VTA_CONV = 0,
  VTA_DENSE = 1,
  VTA_ADD = 2,     /* residual add on the ALU: y = clamp(requant((a << shift_a) + (b << shift_b), shift)) */
  VTA_MAXPOOL = 3, /* max pooling on the ALU (KHxKW window, stride, pads skipped = -inf padding) */
  VTA_GAP = 4,     /* global average pooling on the ALU: y = clamp(requant(sum_hw(x) * mult, shift)) */
  VTA_UPSAMPLE = 5, /* nearest-neighbour upsampling by integer factors: y[.., r, q] = x[.., r / up_h, q / up_w]
                       (an identity GEMM reading the source pixel; no ALU arithmetic, no requantization) */
} vta_op_kind;

/* Is kind one of the ALU operators (accel/alu.c: add, max pool, global average pool, upsample)? */
static inline bool vta_kind_alu(vta_op_kind k) {
  return k == VTA_ADD || k == VTA_MAXPOOL || k == VTA_GAP || k == VTA_UPSAMPLE;
}

/* y = clamp(requant(sum(x*w) + bias, shift), clip_min, clip_max), ovta_requant semantics. */
typedef struct vta_op {
  char name[64];        /* node name (errors, reports) */
  vta_op_kind kind;     /* conv or dense */
  int n, c, h, w;       /* input: images (dense: rows M), channels (dense: K), height, width */
  int o;                /* output channels (dense: N) */
  int kh, kw;           /* kernel size (dense: 1) */
  int stride_h, stride_w;
  int pad_t, pad_l, pad_b, pad_r;
  bool has_bias;        /* int32 bias per output channel */
  int shift;            /* requantization shift (ovta_requant) */
  const int64_t *shifts; /* conv: per output channel shifts (o of them, ovta.QConv `shifts`; NULL:
                           shift for all), in the ACC after the bias (vta_pack_bias); needs a bias */
  int n_shifts;         /* entries in shifts (0: o); channels past them, a grouped conv's all-zero
                           padding groups, shift by 0 */
  int clip_min, clip_max; /* clamp after the shift (relu: clip_min 0) */
  int shift_a, shift_b; /* VTA_ADD: left shifts (0..31) aligning the two inputs before the add */
  int groups;           /* conv: ONNX group (1: plain; c = o = groups: depthwise); weights are then
                           logical [O][C/groups][KH][KW], packed per ovta_group_blocks (graph.h) */
  int mult;             /* VTA_GAP: multiplier of the window sum (1..32767, an ALU MUL immediate) */
  int up_h, up_w;       /* VTA_UPSAMPLE: the integer factors (output H = h * up_h, W = w * up_w) */
  bool res;             /* conv/dense: a residual add fused after the requantization (vta_op_fuse_add; accel/res.c):
                           y = clamp(requant((c << res_sc) + (r << res_sr), res_shift), res_min, res_max), c the
                           conv's own int8 result (shift, clip above), r the add's other operand (handle VTA_BUF_R,
                           the layout of y) - the ovta.QConv -> ovta.QAdd pair's int8 rule exactly */
  int res_sc, res_sr;   /* res: the add's left shifts of c and of r (0..15) */
  int res_shift;        /* res: the add's requantization shift (0..15) */
  int res_min, res_max; /* res: the add's clip */
} vta_op;

/* Fill a conv / dense op with defaults (no bias, shift 0, clip -128..127, groups 1). */
void vta_op_conv(vta_op *op, const char *name, int n, int c, int h, int w, int o, int k, int stride,
                 int pad);
void vta_op_dense(vta_op *op, const char *name, int m, int k, int n);
/* ALU operators (compiler/accel/alu.c): x [N/B][C/BI][H][W][B][BI] in, y in the same layout (o = c).
 * Buffers: add: x = a, w = b, bias = two weight blocks (vta_pack_identity: the identity and the
 * identity times 2^vta_add_wshift), y; maxpool: x, bias = the identity block, y (w unused). Both
 * copy int8 tensors into the ACC by a GEMM with the identity block (the add: both inputs into one
 * region), then work on the ALU (SHR, MAX over the window with tensor operands), vthreads 1 (the max pool: 1 or 2, the
 * estimate's pick or the knob). Remainder tiles: tile sizes need not divide the extents. */
void vta_op_add(vta_op *op, const char *name, int n, int c, int h, int w, int shift_a, int shift_b, int shift);
void vta_op_maxpool(vta_op *op, const char *name, int n, int c, int h, int w, int k, int stride, int pad);
/* Global average pool (ovta.QGlobalAvgPool, graph.h): the HxW window of a max pool with the
 * window sum (ADD) in place of the max, then MUL mult, the rounding and SHR shift, CLP; clip
 * -127..127 (the op's clip_min/clip_max). Buffers as maxpool's; y [N/B][C/BI][1][1][B][BI]. */
void vta_op_gap(vta_op *op, const char *name, int n, int c, int h, int w, int mult, int shift);
/* Nearest-neighbour upsampling by integer factors fh, fw (ONNX Resize / Upsample, mode nearest, whose
 * coordinate rule reduces to floor(y / f): ovta_resize_nearest_factors in graph.h): y[n, c, r, q] =
 * x[n, c, r / fh, q / fw], the int8 values copied (same exponent). Buffers as maxpool's; y
 * [N/B][C/BI][H*fh][W*fw][B][BI]. */
void vta_op_upsample(vta_op *op, const char *name, int n, int c, int h, int w, int fh, int fw);
/* Fuse the residual add `clamp(requant((conv << sc) + (r << sr), shift), lo, hi)` into conv/dense op
 * (vta_op.res; accel/res.c). The plan refuses what the fused lowering does not take (res.c). */
void vta_op_fuse_add(vta_op *op, int sc, int sr, int shift, int lo, int hi);
int vta_op_out_h(const vta_op *op);
int vta_op_out_w(const vta_op *op);
int64_t vta_op_macs(const vta_op *op); /* logical multiply-accumulates (a grouped conv: its groups' only) */
/* The rounding constant of the requantization: 2^(shift-1) for shift 1..31, else 0. The lowering
 * starts each accumulator at bias + this constant (vta_pack_bias folds it into the packed bias; a
 * bias-free op fills the ACC with it), so the ALU chain after the GEMMs is only SHR and the clip. */
int32_t vta_requant_round(const vta_op *op);
/* Output channel o's shift: op->shifts[o] (clamped to -32..32, the same requantization) or
 * op->shift. */
int vta_op_shift(const vta_op *op, int o);
/* The clip as one ALU CLP immediate ((hi << 8) | (lo & 0xff), signed 16 bits) when both bounds
 * are int8; false when a bound lies outside (MAX + MIN then). */
bool vta_clip_imm(const vta_op *op, int32_t *imm);
/* The RQ immediate (isa/ISA.md ALU, RQ: `(hi << 8) | (lo code << 6) | (round << 5) | sh`, signed
 * 16 bits) of `clamp((v [+ 2^(sh-1)]) >> sh, lo, hi)`, sh 1..31 (a shift >= 32 is 31's: the sign);
 * false when sh is outside, hi is not int8 or lo none of -128, 0, -hi, ~hi. */
bool vta_rq_imm(int sh, bool round, int64_t lo, int64_t hi, int32_t *imm);
/* The ALU passes of the requantization `clamp(requant(v, shift), lo, hi)` (round: the rounding
 * constant is an ADD of its own, not in the bias): 1 when RQ takes it (vta_rq_imm), else [ADD,]
 * SHR (shift != 0), then CLP (int8 bounds) or MAX + MIN. */
int vta_requant_passes(int shift, bool round, int lo, int hi);

/* ---------------------------------------------------------------- 2. Schedule */

/* Knobs; 0 = choose automatically. Tiles are in elements of the config: t_n batch blocks,
 * t_oc output-channel blocks, t_ic input-channel blocks, t_h x t_w output pixels. */
/* Output-channel chunks of every tile's epilogue in the chunked form (vta_plan.epi_chunks). */
enum { VTA_EPI_CHUNKS = 2 };

typedef struct vta_knobs {
  int t_n, t_oc, t_ic, t_h, t_w;
  int vthreads;         /* 1 or 2 (0: 2) */
  int res_form;         /* a fused add (vta_op.res): 1 r after the steps, 2 before (vta_plan.res_pre), 3 after
                           and pipelined across tiles (vta_plan.res_pipe); 0: the cost model picks */
  int epi;              /* the epilogue: 1 whole tiles, 2 chunked where the plan allows it
                           (vta_plan.epi_chunks); 0: the cost model picks; the max pool: 1 keeps
                           the tap form where the separable one applies (vta_plan.pool_sep) */
} vta_knobs;

/* Knobs for op `name` from a tuning JSON text: {"ops": {"NAME": {"t_oc": 2, ..., "vthreads": 1,
 * "res_form": 2, "epi": 2}}, "default": {...}} (res_form 0..3, epi 0..2, the others 0..65536). Keys absent
 * stay as they are in *k. */
int vta_knobs_from_json(const char *json, const char *origin, const char *name, vta_knobs *k,
                        ovta_error *err);
/* Parse "t_n,t_oc,t_ic,t_h,t_w" into k. */
int vta_knobs_parse_tile(const char *s, vta_knobs *k, ovta_error *err);

/* The schedule of one operator on one config: everything the passes need. */
typedef struct vta_plan {
  vta_op op;
  ovta_config cfg;
  int vt;                          /* virtual threads */
  int nb, cb, ob;                  /* N/B, C/BI, O/BO blocks */
  int oh, ow;                      /* output size */
  int t_n, t_oc, t_ic, t_h, t_w;   /* tile */
  int in_h, in_w;                  /* input tile rows/cols incl. halo (SRAM) */
  int in_rs;                       /* DRAM input rows per SRAM row: stride_h for an unpadded 1-row
                                      kernel with stride_h > 1 (only the rows it reads are loaded,
                                      a strided-row DMA), else 1 */
  int inp_part, wgt_part, acc_part;/* SRAM elements per virtual thread */
  int inp_tile, wgt_tile, acc_tile;/* elements one tile uses (ACC: with the bias elements it needs
                                      in its part: its t_oc, or the whole bias for bias_base >= 0) */
  int bias_base;                   /* >= 0: ACC index of the whole bias (ob elements at the end of
                                      the ACC, loaded once before the first tile, shared by the
                                      virtual threads); -1: each tile loads its t_oc bias elements
                                      after its ACC tile (or no bias) */
  int q_chunks;                    /* the last tile's requantization and store go in this many
                                      output-channel chunks (divides t_oc): the store of one chunk
                                      runs under the ALU of the next, so only the last chunk's
                                      store is not hidden; 1 when t_n > 1 */
  bool epi_chunks;                 /* every tile's bias MOV, requantization and store in VTA_EPI_CHUNKS
                                      output-channel chunks (the last tile's in q_chunks), each chunk's
                                      store freeing its half of the
                                      ACC part for the MOV of the tile vt later by its own token
                                      (compiler/accel/README.md "Chunked epilogue"); the cost model picks */
  int uop_budget;                  /* micro-ops one GEMM kernel may hold */
  bool as_written;                 /* the ALU operators: their kernels and transfers as the schedule
                                      stage writes them, which keeps the instruction streams of the
                                      emitter they replaced: fold-uops gives every nest its own kernel,
                                      keeps extent-1 loops and takes a nest with unrolled loops as
                                      written (those the micro-ops, the others the hardware levels);
                                      inject-dma moves at most two dims per row (conv/dense: false) */
  int gk, gs;                      /* the reduction of output block ob runs over the input channel
                                      blocks ob * gs + [0, gk) (ovta_group_blocks; groups 1: gk = cb,
                                      gs = 0); t_ic divides gk */
  int in_cb;                       /* input channel blocks in an INP tile: (t_oc - 1) * gs + t_ic */
  bool res_pre;                    /* a fused add (op.res, accel/res.c): r enters its own ACC region before
                                      the tile's steps and is added by an ALU ADD after them (all the
                                      add's passes then overlap the next tile's GEMMs), else r's
                                      identity GEMM follows the conv's requantization (no second region);
                                      the cost model picks */
  int res_pipe;                    /* a fused add after the steps (op.res, !res_pre, vt >= 2): 0, or the
                                      software pipeline across tiles (accel/res.c vta_res_pipeline): tile
                                      t's r step, identity GEMM, add's passes and store are issued after
                                      the first res_pipe steps of tile t + 1, whose GEMMs the conv's
                                      passes of tile t then run beside; the cost model picks */
  bool store_late;                 /* tiles without reduction steps whose GEMMs write no ACC element their
                                      stores read (the max pool's window, two threads): store->compute
                                      is popped before the tile's first ALU kernel, not before its loads
                                      (insert-deps), so a part's next window copy runs beside its store */
  int store_gemms;                 /* with store_late: > 0 when the tile's last store_gemms GEMMs write the
                                      ACC elements its store reads (the max pool's separable form: the
                                      output plane's reset and copy): store->compute is popped before the
                                      first of them instead (insert-deps) */
  bool pool_sep;                   /* the max pool's separable form (alu.c "sep_"; two threads): the window
                                      copied into stride-phase planes, the output the home tap's plane,
                                      a row max then a column max in place */
  int red_steps;                   /* gk / t_ic */
  int64_t tiles;                   /* output tiles */
  double est;                      /* conv/dense: the estimated cycles of the tiling (cost model,
                                      accel/plan.c); 0 for the ALU operators */
  char why[160];                   /* how the tiling was chosen */
} vta_plan;

/* Check the op against the config (block divisibility, pads <= 15, shift range, ...) and choose
 * the tiling: the knobs set in k (may be NULL), the rest the cheapest fitting choice (DRAM bytes +
 * instruction estimate). OVTA_EUNSUPPORTED naming the op when it cannot run on the accelerator. */
int vta_plan_make(const ovta_config *cfg, const vta_op *op, const vta_knobs *k, vta_plan *p,
                  ovta_error *err);
/* One fitting tiling of an operator (knobs fully set) and its estimated cycles (the planner's
 * cost model). */
typedef struct vta_tiling {
  vta_knobs k;   /* every field set: t_n t_oc t_ic t_h t_w and vthreads; res_form 1..3 for a fused add, else 0;
                    epi 1 (whole tiles) or 2 (chunked: only where the tiling allows it) */
  double est;    /* estimated cycles */
} vta_tiling;
/* The schedule space of a conv/dense op: every tiling that fits, with 1 and 2 virtual threads
 * (and the forms of a fused add: res_form 1, 2, with 2 threads 3), each with the whole-tile
 * epilogue (epi 1) and, where the chunked one applies to it, also chunked (epi 2, right after), in
 * the planner's order; the first cap go to out, *n gets the count of all. The refusal of
 * vta_plan_make when no thread count plans; OVTA_EUNSUPPORTED for an ALU operator. */
int vta_plan_space(const ovta_config *cfg, const vta_op *op, vta_tiling *out, int cap, int *n, ovta_error *err);
/* One-line description: "tile n1 oc2 ic4 h7 w14, vt 2, inp 1024/1024 ..." */
void vta_plan_str(const vta_plan *p, char *buf, size_t n);

/* ---------------------------------------------------------------- 3. Passes */

typedef enum vta_stage {
  VTA_S_COMPUTE = 0, /* compute: the operator as a scalar loop nest over DRAM */
  VTA_S_SCHEDULE,    /* schedule: split/reorder into tiles, cache read/write into SRAM scopes,
                        compute_at the tile, virtual-thread attribute */
  VTA_S_DMA,         /* inject-dma: cache copies become 2D strided DMA with halo padding */
  VTA_S_TENSORIZE,   /* tensorize: the BATCH x BLOCK_IN x BLOCK_OUT body becomes the GEMM intrinsic */
  VTA_S_ALU,         /* inject-alu: ACC init by MOV (bias + rounding constant, or an immediate),
                        requant after the GEMMs: RQ, else SHR, CLP (or MAX, MIN) on the ALU */
  VTA_S_FOLD,        /* fold-uops: loops folded into micro-op kernels with two hardware levels */
  VTA_S_DEPS,        /* insert-deps: load/compute/store tokens, ping-pong for virtual threads */
  VTA_S_HOST,        /* host: host loops + calls into the runtime (ovta_vrt_*) */
  VTA_S_COUNT
} vta_stage;

const char *vta_stage_name(vta_stage s);  /* "compute", "schedule", "inject-dma", ... */
/* Stage by name; -1 when unknown. */
int vta_stage_parse(const char *name);
/* A pass: rewrites f, the IR after stage s-1, in place (new nodes from f's arena) into the IR
 * after stage s; p is the target context (config, tile, virtual threads), uid the kernel-key
 * prefix of this compile (31 bits). Returns an error naming the statement it cannot rewrite. */
typedef int (*vta_pass_fn)(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* A lowering run (vta_lower_run). */
typedef struct vta_lower_opts {
  const char *fname;       /* the function's name (NULL: "vta") */
  uint64_t uid;            /* kernel-key prefix of the compile */
  vta_stage last;          /* the stage to stop after (VTA_S_HOST: all; 0 = compute) */
  const char *print_after; /* dumps taken along the way: stage names, comma-separated, or "all" */
  FILE *dump;              /* where they go (NULL: stderr) */
} vta_lower_opts;
/* Lower p through the stages in order, each pass run once on the IR carried forward from the
 * stage before, up to o->last: *out is the IR after it (caller frees). Errors name the op and the
 * stage ("after pass NAME"). */
int vta_lower_run(const vta_plan *p, const vta_lower_opts *o, lir_func **out, ovta_error *err);
/* The loop IR of p after stage s (vta_lower_run up to s, uid 1; a new function named fname). */
int vta_lower(const vta_plan *p, vta_stage s, const char *fname, lir_func **out, ovta_error *err);
/* compute (compiler/accel/lower.c): on an empty function, the parameters x, w, [bias,] y and the
 * operator's scalar nest over them. */
int vta_pass_compute(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* schedule (compiler/accel/lower.c): the compute stage rewritten by the plan's schedule script
 * (primitives of section 7), under `attr vthreads`. */
int vta_pass_schedule(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* inject-dma (compiler/accel/inject_dma.c): copy nests -> 2D strided dma_load/dma_store, halo padding,
 * in-place requantization on the ACC before the store. */
int vta_pass_inject_dma(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* fold-uops (compiler/accel/fold_uops.c): SRAM references become flat element indices (allocations
 * removed), every loop nest around a tensor intrinsic (@ovta.gemm, @ovta.alu_*) a micro-op kernel. */
int vta_pass_fold(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* insert-deps (compiler/accel/insert_deps.c): load/compute/store tokens inserted where the fold-uops IR
 * hands data from one module to the next (credits per virtual thread, per step, tile and store). */
int vta_pass_insert_deps(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* host (compiler/accel/host.c): intrinsics -> runtime calls ovta_vrt_*, DRAM references -> (handle,
 * flat element offset), micro-op recording scopes -> if (kernel_begin(key) != 0). */
int vta_pass_host(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* The pass of stage s (compute .. host). */
vta_pass_fn vta_stage_pass(vta_stage s);
/* tensorize (compiler/accel/tensorize.c): the BATCH x BLOCK_OUT x BLOCK_IN multiply-accumulate loops
 * become @ovta.gemm(acc, inp, wgt). */
int vta_pass_tensorize(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* inject-alu (compiler/accel/inject_alu.c): the ACC init (bias element or constant) and the
 * requantization (shift, clip) over BATCH x BLOCK_OUT become ALU intrinsics (MOV, then RQ when
 * vta_rq_imm encodes it, else SHR, CLP or MAX + MIN). */
int vta_pass_inject_alu(const vta_plan *p, uint64_t uid, lir_func *f, ovta_error *err);
/* vta_lower with the kernel-key prefix uid of a compile. */
int vta_lower_uid(const vta_plan *p, vta_stage s, const char *fname, uint64_t uid, lir_func **out,
                  ovta_error *err);

/* ---------------------------------------------------------------- 4. Kernels */

/* Buffer handles the host IR uses (argument positions of vta_kernel_run): the plan runtime's. */
enum { VTA_BUF_X = OVTA_VBUF_X, VTA_BUF_W = OVTA_VBUF_W, VTA_BUF_BIAS = OVTA_VBUF_BIAS, VTA_BUF_Y = OVTA_VBUF_Y,
       VTA_BUF_R = OVTA_VBUF_R, VTA_BUF_ID = OVTA_VBUF_ID, VTA_BUF_COUNT = OVTA_VBUF_COUNT };

/* What the host IR issued: the plan runtime's counts (plan/ovta_plan.h). */
typedef ovta_vrt_counts vta_counts;

typedef struct vta_kernel vta_kernel;

/* Compile p: run every stage, dumping after those named in print_after (comma-separated stage
 * names or "all"; NULL: none) to dump (NULL: stderr). The kernel keeps the host IR. */
int vta_compile(const vta_plan *p, const char *print_after, FILE *dump, vta_kernel **out,
                ovta_error *err);
/* Compile options: dumps, the host function's symbol (NULL: "vta_" + op name, sanitized), and
 * whether to compile the host IR through LLVM into a JIT now (the default) or not (no_jit: the
 * executor adds the host function to its own module with vta_kernel_module_add). */
typedef struct vta_compile_opts {
  const char *print_after;      /* stage names or "all" (NULL: none) */
  FILE *dump;                   /* NULL: stderr */
  const char *symbol;           /* host function name */
  bool no_jit;                  /* keep only the host IR */
  const lir_codegen_opts *cg;   /* LLVM options (NULL: O3, host cpu) */
} vta_compile_opts;
int vta_compile_ex(const vta_plan *p, const vta_compile_opts *o, vta_kernel **out, ovta_error *err);
/* Compile the host IR through LLVM into the kernel's own JIT (done by vta_compile already). */
int vta_kernel_jit(vta_kernel *k, const lir_codegen_opts *cg, ovta_error *err);
bool vta_kernel_has_jit(const vta_kernel *k);
/* Add the host function (symbol of vta_compile_opts) to an LLVM module: the JIT that runs it
 * needs vta_jit_define_runtime; object files keep the ovta_vrt_* calls as undefined symbols. */
int vta_kernel_module_add(const vta_kernel *k, lir_module *m, ovta_error *err);
/* Define the runtime shims ovta_vrt_* as absolute symbols in a JIT. */
int vta_jit_define_runtime(lir_jit *j, ovta_error *err);
void vta_kernel_free(vta_kernel *k);
const lir_func *vta_kernel_host(const vta_kernel *k);
const vta_plan *vta_kernel_plan(const vta_kernel *k);
/* Counts of the host IR, from a dry walk (no device). */
int vta_kernel_count(const vta_kernel *k, vta_counts *c, ovta_error *err);
/* Issue the kernel on rt (not synchronized): bufs[VTA_BUF_*] in the layouts above; the bias
 * buffer in ACC elements [O/BO][B][BO] (vta_pack_bias), NULL when the op has none. The host IR
 * runs compiled through LLVM (vta_compile), or walked when the kernel has no JIT. */
int vta_kernel_issue(vta_kernel *k, ovta_rt *rt, ovta_buf *const bufs[VTA_BUF_COUNT], ovta_error *err);

/* How the host IR runs: compiled through LLVM (default when the kernel has it) or walked by the
 * reference interpreter (debug; same calls in the same order). */
typedef enum vta_host_mode { VTA_HOST_DEFAULT = 0, VTA_HOST_LLVM, VTA_HOST_WALK } vta_host_mode;
int vta_kernel_issue_mode(vta_kernel *k, ovta_rt *rt, ovta_buf *const bufs[VTA_BUF_COUNT], vta_host_mode mode,
                          ovta_error *err);
int vta_kernel_count_mode(const vta_kernel *k, vta_counts *c, vta_host_mode mode, ovta_error *err);

/* The runtime shims the host IR calls (ovta_vrt_*, plan/vrt.c), on the calling thread's context. */
typedef ovta_vrt_ctx vta_rt_ctx;
#define vta_rt_ctx_set ovta_vrt_ctx_set
/* Call a compiled host function (entry point from a JIT) with context c; c->rc / c->err tell
 * the first failing runtime call (then returned, prefixed with name). */
int vta_host_call(lir_kernel_fn fn, const char *name, vta_rt_ctx *c, ovta_error *err);

/* ---------------------------------------------------------------- 5. Graph */

/* The accelerator op of a graph node (ovta.QConv / ovta.QDense on packed int8 tensors), or
 * OVTA_EUNSUPPORTED with the reason (the node then runs on the CPU path). */
int vta_op_from_node(const ovta_graph *g, const ovta_node *n, const ovta_config *cfg, vta_op *op,
                     ovta_error *err);
/* Compile report of a graph: one line per node: where it runs, its tiling, instruction and
 * micro-op counts (accelerator) or why it stays on the CPU. Knobs from tuning JSON (may be NULL). */
int vta_graph_report(const ovta_graph *g, const ovta_config *cfg, const char *tuning_json, int vt,
                     FILE *out, ovta_error *err);

/* ---------------------------------------------------------------- 6. Reference */

/* Sizes in elements of each DRAM tensor of p. */
size_t vta_x_bytes(const vta_plan *p);
size_t vta_w_bytes(const vta_plan *p);
size_t vta_bias_bytes(const vta_plan *p); /* the ACC-expanded bias */
size_t vta_y_bytes(const vta_plan *p);
/* Pack logical tensors into the DRAM layouts: x NCHW (dense [M,K]), w OIHW (dense [N,K]; grouped
 * conv [O][C/groups][KH][KW], zeros between the groups, vta_plan.gk),
 * bias [O] int32 (to ACC elements [O/BO][B][BO] holding bias + vta_requant_round, wrapping: the
 * value the accumulator starts from; per-channel shifts: channel o's rounding constant, then
 * shifts[o] in the same layout ob blocks further); unpack y to NCHW (dense [M,N]). */
void vta_pack_x(const vta_plan *p, const int8_t *x, int8_t *px);
void vta_pack_w(const vta_plan *p, const int8_t *w, int8_t *pw);
void vta_pack_bias(const vta_plan *p, const int32_t *b, int32_t *pb);
void vta_unpack_y(const vta_plan *p, const int8_t *py, int8_t *y);
/* The BLOCK_OUT x BLOCK_IN identity weight block (ALU operators' bias buffer, vta_bias_bytes); the
 * add's buffer has a second block, the identity times 2^vta_add_wshift(op). */
void vta_pack_identity(const vta_plan *p, int8_t *blk);
/* The add's weight shift: |shift_a - shift_b| when it is 1..6, else 0 (accel/alu.c). */
int vta_add_wshift(const vta_op *op);
/* Plain-C references of the ALU operators on logical NCHW tensors. */
void vta_reference_add(const vta_op *op, const int8_t *a, const int8_t *b, int8_t *y);
void vta_reference_maxpool(const vta_op *op, const int8_t *x, int8_t *y);
void vta_reference_gap(const vta_op *op, const int8_t *x, int8_t *y);
void vta_reference_upsample(const vta_op *op, const int8_t *x, int8_t *y);
/* The plain-C int8 reference on logical tensors (bias may be NULL; w [O][C/groups][KH][KW]). */
void vta_reference(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *bias, int8_t *y);
/* A fused residual add (vta_op.res): the conv's reference, then the add's int8 rule with r (logical,
 * the layout of y). */
void vta_reference_res(const vta_op *op, const int8_t *x, const int8_t *w, const int32_t *bias, const int8_t *r, int8_t *y);
/* The fused add's identity block (handle VTA_BUF_ID, vta_res_ident_bytes): the identity times 2^(res_sr -
 * res_sc) when r has the larger shift, else the identity. */
void vta_pack_res_ident(const vta_plan *p, int8_t *blk);
size_t vta_res_ident_bytes(const vta_plan *p);

/* ---------------------------------------------------------------- 7. Schedule primitives */

/* Each primitive rewrites a function in place (new nodes from the function's arena; the old ones
 * stay unreferenced), returns OVTA_OK or an error naming the loop/buffer, and never aborts.
 * vta_sched_verify checks a result: lir_verify plus symbolic bounds of every affine access.
 * Spec: compiler/accel/README.md, "Schedule primitives". FileCheck tests: tests/vta/sched*.test
 * (`ovta-vta sched EXAMPLE SCRIPT`). */

#define VTA_SCHED_MAX_CACHES 16

/* A schedule being applied to f (not owned). Caches are remembered so compute_at/vthread find
 * their copy nests. */
typedef struct vta_sched {
  lir_func *f;          /* the function rewritten */
  int ncache;           /* caches (and scoped buffers) remembered */
  struct vta_sched_cache {
    lir_buf *cache, *orig; /* the scoped buffer and the buffer it caches (NULL: set_scope) */
    bool write;            /* cache_write (copy out after) or cache_read (copy in before) */
    bool placed;           /* compute_at done (its region is relative to a loop) */
  } cache[VTA_SCHED_MAX_CACHES];
} vta_sched;

void vta_sched_init(vta_sched *s, lir_func *f);

/* The statement slot holding the loop of variable `var` (NULL when none). */
lir_stmt **vta_sched_find_loop(lir_func *f, const char *var);

/* How split treats an extent the factor does not divide. */
typedef enum vta_split_mode {
  VTA_SPLIT_EXACT = 0, /* require divisibility (OVTA_EINVAL otherwise) */
  VTA_SPLIT_GUARD,     /* ceil(ext/factor) outer iterations, body under `if (v < ext)` */
  VTA_SPLIT_TAIL,      /* floor(ext/factor) full tiles, then a tail loop of ext % factor (body copied) */
} vta_split_mode;

/* for v in m..m+E { B }  ->  for v_o in 0..E/F { for v_i in 0..F { B[v := m + v_o*F + v_i] } }
 * (constant extent). Tail mode adds `for v_t in 0..E%F { B[v := m + (E/F)*F + v_t] }`. */
int vta_sched_split(vta_sched *s, const char *var, int64_t factor, vta_split_mode mode, ovta_error *err);
/* Permute a perfect nest of the n loops named (any order inside) into the order given. */
int vta_sched_reorder(vta_sched *s, const char *const *vars, int n, ovta_error *err);
/* Every read of buffer `buf` goes through a new buffer `name` in `scope`, filled by a copy nest
 * (whole buffer) at the top of the function; compute_at then moves it under a loop. */
int vta_sched_cache_read(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err);
/* Every write and read of `buf` goes to a new buffer `name` in `scope`; a copy nest after the body
 * writes it back (whole buffer) until compute_at moves it. */
int vta_sched_cache_write(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err);
/* Move the copy nest of cache `cache` into the body of loop `var` (before it: read, after: write),
 * shrinking the cache to the region the loop body touches (affine indices; clamp(max(min(A, hi),
 * lo)) indices count as A). The allocation moves with it. */
int vta_sched_compute_at(vta_sched *s, const char *cache, const char *var, ovta_error *err);
/* Virtual threads: the body of loop `var` gets `attr virtual_thread = floormod(var, n)`; each cache
 * named (allocated inside the loop) gets a leading part dimension of n indexed by that value and
 * its allocation hoisted outside the loop (ping-pong buffers). */
int vta_sched_vthread(vta_sched *s, const char *var, int n, const char *const *caches, int ncaches,
                      ovta_error *err);
/* vthread over the fused iteration index of nested loops vars[0..nvars-1] (outermost first, min 0,
 * constant extents): part = floormod(((v0 * E1 + v1) * E2 + v2).., n), the attribute on the body of
 * the innermost; n = 1 adds the part dimension (of 1) and no attribute. */
int vta_sched_vthread_fused(vta_sched *s, const char *const *vars, int nvars, int n, const char *const *caches,
                            int ncaches, ovta_error *err);
/* Loop distribution with scalar expansion (decompose a fused reduction): the perfect nest from loop
 * `var` down to allocations A.. and a sequence S1..Sn becomes the allocations, expanded by the nest's
 * extents and hoisted above it, then one copy of the nest per statement (copy j >= 2 binds fresh
 * variables named V_j). Refused when a buffer other than the A.. written by one statement is
 * accessed by another. */
int vta_sched_fission(vta_sched *s, const char *var, ovta_error *err);
/* The loop of `var` binds a new variable `name` (must be free). */
int vta_sched_rename(vta_sched *s, const char *var, const char *name, ovta_error *err);
/* An allocated buffer moves to `scope` (renamed when name is not NULL); vthread may then part it. */
int vta_sched_set_scope(vta_sched *s, const char *buf, lir_scope scope, const char *name, ovta_error *err);
/* The allocation of `buf` moves to the top of the function. */
int vta_sched_hoist_alloc(vta_sched *s, const char *buf, ovta_error *err);
/* lir_verify (non-CPU rules) plus: every access outside an `if` whose indices are affine in loop
 * variables with constant ranges stays within its buffer; virtual_thread attributes are under
 * the loop they name. */
int vta_sched_verify(const lir_func *f, ovta_error *err);
/* For executing a scheduled function on the CPU (tests): every accelerator scope becomes LOCAL. */
void vta_sched_cpu_scopes(lir_func *f);

/* Apply a script of primitives, one per ';': `split V F [exact|guard|tail]`, `reorder V V...`,
 * `cache_read BUF SCOPE NAME`, `cache_write BUF SCOPE NAME`, `compute_at CACHE V`,
 * `vthread V[,V...] N [CACHE...]`, `fission V`, `rename V NAME`, `set_scope BUF SCOPE [NAME]`,
 * `hoist_alloc BUF`; scopes global local inp wgt acc out uop. After each, vta_sched_verify;
 * when dump is not NULL, "// after N: PRIMITIVE" and the function's dump are printed. */
int vta_sched_apply(vta_sched *s, const char *script, FILE *dump, ovta_error *err);

#endif
