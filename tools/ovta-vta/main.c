/* vta_main.c: build/ovta-vta, the accelerator lowering driver (compiler/accel/README.md).
 *
 *   ovta-vta conv N C H W O K STRIDE PAD [options]
 *   ovta-vta dense M K N [options]
 *   ovta-vta add N C H W SHIFT_A SHIFT_B SHIFT [options]   residual add on the ALU
 *   ovta-vta maxpool N C H W K STRIDE PAD [options]        max pooling on the ALU
 *   ovta-vta gap N C H W MULT SHIFT [options]              global average pooling on the ALU
 *   ovta-vta upsample N C H W FH FW [options]              nearest upsampling by FH x FW (identity GEMM)
 *   ovta-vta graph FILE.json [options]       compile report of a packed, quantized graph
 *   ovta-vta sched mm|vec|conv SCRIPT [--run] apply schedule primitives (accel.h) to an example,
 *                                           dump after each; --run: CPU JIT, compare with the original
 * options: --config NAME  --vt 1|2  --tile t_n,t_oc,t_ic,t_h,t_w  --tuning FILE.json
 *          --bias  --shift S  --relu  --clip LO,HI  --print-after=PASS[,PASS]|all
 *          --groups G (conv: grouped, G = C = O depthwise; weights [O][C/G][KH][KW])
 *          --shifts S0,S1,.. (conv, dense: per-channel shifts, repeated over the O channels)
 *          --res SC,SR,SHIFT[,LO,HI] (conv, dense: a fused residual add, y = clamp(requant((conv << SC) +
 *            (r << SR), SHIFT), LO, HI) with a seeded r; --run checks it against vta_reference_res);
 *            --res-form after|before|pipe: where r enters (vta_plan.res_pre; pipe: after, pipelined across
 *            tiles, vta_plan.res_pipe; default: the cost model's pick)
 *            --epi whole|chunked: the epilogue in whole tiles or 2 chunks where the plan allows it
 *            (vta_plan.epi_chunks; default: the cost model's pick); maxpool: whole keeps the tap
 *            form where the separable one applies (vta_plan.pool_sep)
 *          (add: --tile 0,0,0,0,T sets the elements per tile; maxpool, gap, upsample: t_oc and t_h)
 *          --report (plan and counts)  --run BACKEND (execute, compare with the plain-C reference)
 */
#include "accel.h"

#include <stdlib.h>
#include <string.h>

static void fill(int8_t *x, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 7u;
  for (size_t i = 0; i < n; i++) s = s * 1103515245u + 12345u, x[i] = (int8_t)(s >> 16);
}

/* The ALU operators' inputs, identity block and reference (x, y through the conv packing
 * helpers: the same activation layout). */
static void alu_inputs(const vta_plan *p, const int8_t *x, const int8_t *w, int8_t *px, int8_t *pw, int8_t *pb,
                       int8_t *ref) {
  vta_plan cp = *p;
  cp.op.kind = VTA_CONV;
  vta_pack_x(&cp, x, px);
  if (p->op.kind == VTA_ADD) vta_pack_x(&cp, w, pw), vta_reference_add(&p->op, x, w, ref);
  else if (p->op.kind == VTA_GAP) vta_reference_gap(&p->op, x, ref);
  else if (p->op.kind == VTA_UPSAMPLE) vta_reference_upsample(&p->op, x, ref);
  else vta_reference_maxpool(&p->op, x, ref);
  vta_pack_identity(p, pb);
}

/* r (logical [N][O][OH][OW]) into y's packed layout [N/B][O/BO][OH][OW][B][BO]. */
static void pack_like_y(const vta_plan *p, const int8_t *r, int8_t *pr) {
  int B = p->cfg.batch, BO = p->cfg.block_out, O = p->op.o;
  for (int n = 0; n < p->op.n; n++)
    for (int o = 0; o < O; o++)
      for (int h = 0; h < p->oh; h++)
        for (int w = 0; w < p->ow; w++)
          pr[((((size_t)(n / B) * p->ob + o / BO) * p->oh + h) * p->ow + w) * B * BO + (n % B) * BO + o % BO] =
              r[(((size_t)n * O + o) * p->oh + h) * p->ow + w];
}

static int run_check(vta_kernel *k, const char *backend, ovta_error *err) {
  const vta_plan *p = vta_kernel_plan(k);
  bool alu = vta_kind_alu(p->op.kind);
  vta_plan cp = *p; /* unpacking y: the conv view of the layout */
  cp.op.kind = VTA_CONV;
  ovta_dev *dev = NULL;
  ovta_rt *rt = NULL;
  ovta_buf *bufs[VTA_BUF_COUNT] = {0};
  size_t nx = vta_x_bytes(p), nw = vta_w_bytes(p), ny = vta_y_bytes(p);
  int8_t *x = malloc(nx), *w = malloc(nw), *px = malloc(nx), *pw = malloc(nw), *py = malloc(ny), *y = malloc(ny),
         *ref = malloc(ny);
  int32_t *b = malloc((size_t)p->op.o * 4), *pb = malloc(vta_bias_bytes(p));
  int rc = (!x || !w || !px || !pw || !py || !y || !ref || !b || !pb) ? OVTA_FAIL(err, OVTA_ENOMEM, "out of memory") : 0;
  if (!rc) {
    fill(x, nx, 1), fill(w, nw, 2);
    for (int i = 0; i < p->op.o; i++) b[i] = (i * 37 % 200) - 100;
    if (alu) {
      alu_inputs(p, x, w, px, pw, (int8_t *)pb, ref);
    } else {
      vta_reference(&p->op, x, w, p->op.has_bias ? b : NULL, ref);
      vta_pack_x(p, x, px), vta_pack_w(p, w, pw), vta_pack_bias(p, b, pb);
      if (p->op.res) { /* a fused residual add: r, its packed form and identity (handles R, ID) */
        int8_t *r = malloc(ny), *pr = malloc(ny), id[4096];
        rc = !r || !pr ? OVTA_FAIL(err, OVTA_ENOMEM, "out of memory") : 0;
        if (!rc) fill(r, ny, 3), vta_reference_res(&p->op, x, w, p->op.has_bias ? b : NULL, r, ref), pack_like_y(p, r, pr);
        if (!rc) vta_pack_res_ident(p, id), rc = ovta_dev_open(backend, &p->cfg, NULL, &dev, err);
        if (!rc) rc = ovta_buf_alloc(dev, ny, &bufs[VTA_BUF_R], err);
        if (!rc) rc = ovta_buf_alloc(dev, vta_res_ident_bytes(p), &bufs[VTA_BUF_ID], err);
        if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_R], 0, pr, ny, err);
        if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_ID], 0, id, vta_res_ident_bytes(p), err);
        free(r), free(pr);
      }
    }
    if (!rc && !dev) {
      rc = ovta_dev_open(backend, &p->cfg, NULL, &dev, err);
    }
  }
  if (!rc) rc = ovta_buf_alloc(dev, nx, &bufs[VTA_BUF_X], err);
  if (!rc) rc = ovta_buf_alloc(dev, nw, &bufs[VTA_BUF_W], err);
  if (!rc) rc = ovta_buf_alloc(dev, vta_bias_bytes(p), &bufs[VTA_BUF_BIAS], err);
  if (!rc) rc = ovta_buf_alloc(dev, ny, &bufs[VTA_BUF_Y], err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_X], 0, px, nx, err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_W], 0, pw, nw, err);
  if (!rc) rc = ovta_buf_write(bufs[VTA_BUF_BIAS], 0, pb, vta_bias_bytes(p), err);
  if (!rc) rc = ovta_rt_create(dev, NULL, &rt, err);
  if (!rc) rc = vta_kernel_issue(k, rt, bufs, err);
  if (!rc) rc = ovta_rt_synchronize(rt, 600000, err);
  if (!rc) rc = ovta_buf_read(bufs[VTA_BUF_Y], 0, py, ny, err);
  if (!rc) {
    vta_unpack_y(&cp, py, y);
    size_t bad = 0;
    for (size_t i = 0; i < ny; i++) bad += y[i] != ref[i];
    ovta_rt_stats st;
    ovta_rt_stats_get(rt, &st);
    ovta_counters dc;
    ovta_dev_counters(dev, &dc);
    printf("run %s: %zu of %zu outputs differ; runtime insns %llu, runs %llu", backend, bad, ny,
           (unsigned long long)st.insns, (unsigned long long)st.runs);
    if (dc.cycles) printf(", cycles %llu", (unsigned long long)dc.cycles); /* a backend that counts them (tsim) */
    printf("\n");
    printf("runtime: kernel loads %llu, overlap marked %llu moved %llu reverted %llu\n",
           (unsigned long long)st.kernel_loads, (unsigned long long)st.overlap_marked,
           (unsigned long long)st.overlap_moved, (unsigned long long)st.overlap_reverted);
    if (bad) rc = OVTA_FAIL(err, OVTA_EINTERNAL, "%s: %zu outputs differ from the reference", p->op.name, bad);
  }
  ovta_rt_destroy(rt);
  ovta_dev_close(dev);
  free(x), free(w), free(px), free(pw), free(py), free(y), free(ref), free(b), free(pb);
  return rc;
}

/* ---------------------------------------------------------------- sched examples */

/* mm: C[i, j] = sum_k A[i, k] * B[j, k] (8x8x6, i8 -> i32); vec: y[i] = 3 * x[i] (10); conv: the
 * compute stage of conv 1x16x8x8 -> 16, 3x3, pad 1 (default config). */
static lir_func *sched_example(const char *name, ovta_error *err) {
  if (!strcmp(name, "conv")) {
    ovta_config cfg;
    vta_op op;
    vta_plan p;
    lir_func *f = NULL;
    vta_op_conv(&op, "conv", 1, 16, 8, 8, 16, 3, 1, 1);
    op.shift = 4;
    if (ovta_config_load("default", &cfg, err) || vta_plan_make(&cfg, &op, NULL, &p, err) ||
        vta_lower(&p, VTA_S_COMPUTE, "conv_compute", &f, err))
      return NULL;
    return f;
  }
  lir_func *f = lir_func_new(name);
  if (!f) return NULL;
  if (!strcmp(name, "mm")) {
    int64_t as[2] = {8, 6}, cs[2] = {8, 8};
    lir_buf *A = lir_param(f, "A", LIR_I8, 2, as), *B = lir_param(f, "B", LIR_I8, 2, as), *C = lir_param(f, "C", LIR_I32, 2, cs);
    lir_var *i = lir_var_new(f, "i", LIR_I64), *j = lir_var_new(f, "j", LIR_I64), *k = lir_var_new(f, "k", LIR_I64);
    lir_expr *ci[2] = {lir_ref(f, i), lir_ref(f, j)}, *ai[2] = {lir_ref(f, i), lir_ref(f, k)}, *bi[2] = {lir_ref(f, j), lir_ref(f, k)};
    lir_expr *prod = lir_bin(f, LIR_MUL, lir_cast(f, LIR_I32, lir_load(f, A, ai)), lir_cast(f, LIR_I32, lir_load(f, B, bi)));
    lir_stmt *two[2] = {lir_store(f, C, ci, lir_int(f, LIR_I32, 0)),
                        lir_for(f, k, lir_i64(f, 0), lir_i64(f, 6), LIR_FOR_SERIAL,
                                lir_store(f, C, ci, lir_bin(f, LIR_ADD, lir_load(f, C, ci), prod)))};
    f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, 8), LIR_FOR_SERIAL,
                      lir_for(f, j, lir_i64(f, 0), lir_i64(f, 8), LIR_FOR_SERIAL, lir_seq(f, 2, two)));
  } else if (!strcmp(name, "vec")) {
    int64_t s[1] = {10};
    lir_buf *x = lir_param(f, "x", LIR_I32, 1, s), *y = lir_param(f, "y", LIR_I32, 1, s);
    lir_var *i = lir_var_new(f, "i", LIR_I64);
    lir_expr *ix[1] = {lir_ref(f, i)};
    f->body = lir_for(f, i, lir_i64(f, 0), lir_i64(f, 10), LIR_FOR_SERIAL,
                      lir_store(f, y, ix, lir_bin(f, LIR_MUL, lir_load(f, x, ix), lir_int(f, LIR_I32, 3))));
  } else {
    lir_func_free(f);
    OVTA_FAIL(err, OVTA_EINVAL, "sched: unknown example '%s' (mm, vec, conv)", name);
    return NULL;
  }
  return f;
}

/* Run f on the CPU JIT with the given parameter buffers. */
static int cpu_run(lir_func *f, void **args, ovta_error *err) {
  lir_codegen_opts o;
  lir_codegen_opts_init(&o);
  lir_module *m = NULL;
  lir_jit *j = NULL;
  void *fn = NULL;
  int rc = lir_module_new(f->name, &o, &m, err);
  if (!rc) rc = lir_module_add(m, f, err);
  if (!rc) rc = lir_module_optimize(m, err);
  if (!rc) rc = lir_jit_new(&j, err);
  if (!rc) rc = lir_jit_add_module(j, m, err);
  if (!rc) rc = lir_jit_lookup(j, f->name, &fn, err);
  if (!rc) ((lir_kernel_fn)fn)(args);
  lir_jit_free(j);
  lir_module_free(m);
  return rc;
}

static int sched_main(int argc, char **argv) {
  ovta_error err = {0};
  if (argc < 4) {
    fprintf(stderr, "usage: ovta-vta sched mm|vec|conv SCRIPT [--run]\n");
    return 2;
  }
  bool run = argc > 4 && !strcmp(argv[4], "--run");
  lir_func *f = sched_example(argv[2], &err), *ref = NULL;
  int rc = f ? OVTA_OK : OVTA_EINVAL;
  vta_sched s;
  if (!rc) {
    printf("// before\n");
    lir_dump(stdout, f);
    vta_sched_init(&s, f);
    rc = vta_sched_apply(&s, argv[3], stdout, &err);
  }
  if (!rc && run) {
    ref = sched_example(argv[2], &err);
    void *a1[8], *a2[8];
    size_t sz[8];
    int np = f->nparams;
    rc = ref ? OVTA_OK : OVTA_EINVAL;
    for (int i = 0; i < np && !rc; i++) {
      sz[i] = (size_t)lir_buf_numel(f->params[i]) * (size_t)lir_dtype_bytes(f->params[i]->dtype);
      a1[i] = malloc(sz[i]), a2[i] = malloc(sz[i]);
      if (!a1[i] || !a2[i]) rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
      else fill(a1[i], sz[i], (uint32_t)i + 5), memcpy(a2[i], a1[i], sz[i]);
    }
    vta_sched_cpu_scopes(f);
    if (!rc) rc = cpu_run(ref, a1, &err);
    if (!rc) rc = cpu_run(f, a2, &err);
    size_t diff = 0, tot = 0;
    for (int i = 0; i < np && !rc; i++) {
      for (size_t b = 0; b < sz[i]; b++) diff += ((int8_t *)a1[i])[b] != ((int8_t *)a2[i])[b];
      tot += sz[i];
    }
    if (!rc) printf("run cpu: %zu of %zu bytes differ from the unscheduled function\n", diff, tot);
    for (int i = 0; i < np; i++) free(a1[i]), free(a2[i]);
    if (!rc && diff) rc = OVTA_FAIL(&err, OVTA_EINTERNAL, "scheduled function differs");
  }
  lir_func_free(f);
  lir_func_free(ref);
  if (rc) {
    ovta_error_print(stderr, &err);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  ovta_error err = {0};
  if (argc < 2) {
    fprintf(stderr, "usage: ovta-vta conv N C H W O K STRIDE PAD | dense M K N | add N C H W SHIFT_A SHIFT_B SHIFT | "
                    "maxpool N C H W K STRIDE PAD | gap N C H W MULT SHIFT | upsample N C H W FH FW | graph FILE [options]\n");
    return 2;
  }
  if (!strcmp(argv[1], "sched")) return sched_main(argc, argv);
  vta_op op;
  int ai = 2;
  const char *graph = NULL;
  if (!strcmp(argv[1], "conv") && argc >= 10) {
    int v[8];
    for (int i = 0; i < 8; i++) v[i] = atoi(argv[2 + i]);
    vta_op_conv(&op, "conv", v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
    ai = 10;
  } else if (!strcmp(argv[1], "dense") && argc >= 5) {
    vta_op_dense(&op, "dense", atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    ai = 5;
  } else if (!strcmp(argv[1], "add") && argc >= 9) {
    int v[7];
    for (int i = 0; i < 7; i++) v[i] = atoi(argv[2 + i]);
    vta_op_add(&op, "add", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    ai = 9;
  } else if (!strcmp(argv[1], "maxpool") && argc >= 9) {
    int v[7];
    for (int i = 0; i < 7; i++) v[i] = atoi(argv[2 + i]);
    vta_op_maxpool(&op, "maxpool", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
    ai = 9;
  } else if (!strcmp(argv[1], "gap") && argc >= 8) {
    int v[6];
    for (int i = 0; i < 6; i++) v[i] = atoi(argv[2 + i]);
    vta_op_gap(&op, "gap", v[0], v[1], v[2], v[3], v[4], v[5]);
    ai = 8;
  } else if (!strcmp(argv[1], "upsample") && argc >= 8) {
    int v[6];
    for (int i = 0; i < 6; i++) v[i] = atoi(argv[2 + i]);
    vta_op_upsample(&op, "upsample", v[0], v[1], v[2], v[3], v[4], v[5]);
    ai = 8;
  } else if (!strcmp(argv[1], "graph") && argc >= 3) {
    graph = argv[2];
    ai = 3;
  } else {
    fprintf(stderr, "ovta-vta: bad command line\n");
    return 2;
  }
  const char *cfgname = "default", *print_after = NULL, *run = NULL, *tuning = NULL;
  bool report = false;
  vta_knobs k = {0};
  for (int i = ai; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--config") && i + 1 < argc) cfgname = argv[++i];
    else if (!strcmp(a, "--vt") && i + 1 < argc) k.vthreads = atoi(argv[++i]);
    else if (!strcmp(a, "--tile") && i + 1 < argc) {
      if (vta_knobs_parse_tile(argv[++i], &k, &err)) goto fail;
    } else if (!strcmp(a, "--tuning") && i + 1 < argc) tuning = argv[++i];
    else if (!strcmp(a, "--bias")) op.has_bias = true;
    else if (!strcmp(a, "--shift") && i + 1 < argc) op.shift = atoi(argv[++i]);
    else if (!strcmp(a, "--relu")) op.clip_min = 0;
    else if (!strcmp(a, "--res") && i + 1 < argc) { /* a fused residual add (conv, dense) */
      int v[5] = {0, 0, 0, -128, 127};
      if (sscanf(argv[++i], "%d,%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3], &v[4]) < 3) {
        fprintf(stderr, "ovta-vta: --res SC,SR,SHIFT[,LO,HI]\n");
        return 2;
      }
      vta_op_fuse_add(&op, v[0], v[1], v[2], v[3], v[4]);
    } else if (!strcmp(a, "--res-form") && i + 1 < argc) {
      i++;
      k.res_form = !strcmp(argv[i], "before") ? 2 : !strcmp(argv[i], "pipe") ? 3 : 1;
    }
    else if (!strcmp(a, "--epi") && i + 1 < argc) k.epi = !strcmp(argv[++i], "chunked") ? 2 : 1;
    else if (!strcmp(a, "--groups") && i + 1 < argc && op.kind == VTA_CONV) op.groups = atoi(argv[++i]);
    else if (!strcmp(a, "--shifts") && i + 1 < argc && (op.kind == VTA_CONV || op.kind == VTA_DENSE)) {
      static int64_t shs[65536];
      int64_t v[64];
      int nv = 0;
      for (char *q = argv[++i], *e; *q && nv < 64; q = *e ? e + 1 : e) v[nv++] = strtoll(q, &e, 10);
      for (int o = 0; nv && o < op.o && o < 65536; o++) shs[o] = v[o % nv];
      op.shifts = nv && op.o <= 65536 ? shs : NULL;
    }
    else if (!strcmp(a, "--clip") && i + 1 < argc) {
      if (sscanf(argv[++i], "%d,%d", &op.clip_min, &op.clip_max) != 2) {
        fprintf(stderr, "ovta-vta: --clip LO,HI\n");
        return 2;
      }
    } else if (!strncmp(a, "--print-after=", 14)) print_after = a + 14;
    else if (!strcmp(a, "--report")) report = true;
    else if (!strcmp(a, "--run") && i + 1 < argc) run = argv[++i];
    else {
      fprintf(stderr, "ovta-vta: unknown option %s\n", a);
      return 2;
    }
  }
  ovta_config cfg;
  if (ovta_config_load(cfgname, &cfg, &err)) goto fail;
  char *tjson = NULL;
  if (tuning) {
    size_t len;
    if (ovta_read_file(tuning, 1 << 20, &tjson, &len, &err)) goto fail;
  }
  if (graph) {
    ovta_graph *g;
    if (ovta_graph_load(graph, &g, &err)) goto fail;
    int rc = ovta_infer_graph(g, &err);
    if (!rc) rc = vta_graph_report(g, &cfg, tjson, k.vthreads, stdout, &err);
    ovta_graph_free(g);
    free(tjson);
    if (rc) goto fail;
    return 0;
  }
  if (tjson && vta_knobs_from_json(tjson, tuning, op.name, &k, &err)) goto fail;
  free(tjson);
  vta_plan p;
  if (vta_plan_make(&cfg, &op, &k, &p, &err)) goto fail;
  vta_kernel *kern;
  if (vta_compile(&p, print_after, stdout, &kern, &err)) goto fail;
  if (report) {
    char ps[256];
    vta_plan_str(&p, ps, sizeof ps);
    vta_counts c;
    if (vta_kernel_count(kern, &c, &err)) goto fail;
    printf("plan %s: %s (%s)\n", op.name, ps, p.why);
    printf("counts: insns %llu load %llu acc-load %llu gemm %llu alu %llu store %llu kernels %llu uops-recorded %llu "
           "gemm-uops %llu alu-uops %llu bytes inp %llu wgt %llu acc %llu out %llu\n",
           (unsigned long long)c.insns, (unsigned long long)c.insns_load, (unsigned long long)c.insns_acc_load,
           (unsigned long long)c.insns_gemm, (unsigned long long)c.insns_alu, (unsigned long long)c.insns_store,
           (unsigned long long)c.kernels, (unsigned long long)c.uops_recorded, (unsigned long long)c.gemm_uops,
           (unsigned long long)c.alu_uops, (unsigned long long)c.bytes_inp, (unsigned long long)c.bytes_wgt,
           (unsigned long long)c.bytes_acc, (unsigned long long)c.bytes_out);
  }
  if (run && run_check(kern, run, &err)) {
    vta_kernel_free(kern);
    goto fail;
  }
  vta_kernel_free(kern);
  return 0;
fail:
  ovta_error_print(stderr, &err);
  return 1;
}
