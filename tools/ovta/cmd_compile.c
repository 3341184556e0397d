/* cmd_compile.c: `ovta compile MODEL -o OUT.ovta`: a model compiled for the CPU path and saved as
 * a folder (plan.json + params.bin + kernels.o, see compiler/lir/README.md). */
#include "ovta_tool.h"

#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "accel.h"

static const char *help =
    "usage: ovta compile MODEL.onnx|MODEL.json -o OUT.ovta [options]\n\n"
    "Compile a model for the CPU: every node is lowered to loop IR, compiled through LLVM (O3,\n"
    "vectorized) into one object file; tensors are planned into one arena with storage reuse.\n"
    "OUT.ovta is a folder: plan.json (tensors, offsets, steps), params.bin (constants), kernels.o.\n"
    "Run it with `ovta run OUT.ovta`.\n\n"
    "options:\n"
    "  -o, --output DIR    the folder to write (created)\n"
    "  --passes LIST       run these graph passes first (comma-separated; see ovta-opt)\n"
    "  --print-after=PASS  print the graph IR (stderr) after each named pass (comma-separated)\n"
    "  --print-after-all   print the graph IR after every pass\n"
    "  --dump-lir          print every node's loop IR on stdout\n"
    "  --dump-llvm         print the optimized LLVM IR on stdout\n"
    "  -O N                LLVM optimization level 0..3 (default 3)\n"
    "  --triple TRIPLE     compile for another machine (LLVM target triple, e.g. a board's ARM cores:\n"
    "                      aarch64-linux-gnu, armv7a-linux-gnueabihf); the plan is saved, not run here\n"
    "  --mcpu CPU          target CPU by LLVM name (e.g. cortex-a53; default: this machine's CPU, or\n"
    "                      the architecture's baseline with --triple; a name LLVM does not know is\n"
    "                      warned about by LLVM and replaced by the baseline)\n\n"
    "accelerator (compiler/accel/README.md, \"Graph executor\"):\n"
    "  --target accel      quantize (int8, calibrated), pack and partition the model; ovta.QConv /\n"
    "                      ovta.QDense run on the accelerator (host code compiled through LLVM into\n"
    "                      kernels.o), the rest on the CPU; run with `ovta run OUT --backend fsim|tsim`\n"
    "  --calib FILE.npy    calibration samples [S, ...] (uint8 is scaled by 1/255); each sample is one\n"
    "                      model input with batch 1 (symbolic input dims take its shape)\n"
    "  --calib-count N     use the first N samples (default: up to 64)\n"
    "  --config NAME       hardware config (default: $OVTA_CONFIG or default)\n"
    "  --tuning FILE.json  tiling knobs per node (see compiler/accel/README.md)\n"
    "  --vt N              virtual threads 1 or 2 (default 2)\n"
    "  --report            print the compile report: per node where it runs (and why), tiling,\n"
    "                      instruction and micro-op counts\n";

/* Calibration samples from a .npy [S, ...] for the graph's single input: each sample reshaped
 * to the input (batch 1), uint8 scaled by 1/255. */
static int load_calib(ovta_graph *g, const char *path, int64_t want, ovta_tensor ***vals, int *n, ovta_error *err) {
  *vals = NULL, *n = 0;
  if (g->n_inputs != 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "--calib: the model has %d inputs, not 1", g->n_inputs);
  ovta_tensor *c;
  int rc = ovta_npy_read(path, "calib", &c, err);
  if (rc) return rc;
  ovta_tensor *in = g->inputs[0];
  int64_t S = c->rank > 0 ? c->shape[0] : 0, per = S > 0 ? ovta_tensor_numel(c) / S : 0;
  if (in->rank < 1) {
    ovta_tensor_free(c);
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "--calib: input %s has unknown rank", in->name);
  }
  /* batch 1; other symbolic dims from the sample's trailing dims */
  in->shape[0] = 1;
  if (in->dtype == OVTA_DT_UNDEF) in->dtype = OVTA_DT_F32;
  for (int d = 1; d < in->rank; d++) {
    int k = c->rank - (in->rank - d);
    if (in->shape[d] < 0 && k >= 1) in->shape[d] = c->shape[k];
  }
  int64_t need = ovta_tensor_numel(in);
  if (S < 1 || need <= 0 || per != need || in->dtype != OVTA_DT_F32) {
    char a[128], b[128];
    ovta_shape_str(c, a, sizeof a), ovta_shape_str(in, b, sizeof b);
    ovta_tensor_free(c);
    return OVTA_FAIL(err, OVTA_EINVAL, "--calib %s: samples %s do not fit input %s (%s %s, batch 1)", path, a, in->name,
                     ovta_dtype_name(in->dtype), b);
  }
  if (want > 0 && want < S) S = want;
  if (want <= 0 && S > 64) S = 64;
  *vals = calloc((size_t)S, sizeof **vals);
  for (int64_t s = 0; *vals && s < S; s++) {
    ovta_tensor *t = ovta_tensor_new(in->name, OVTA_DT_F32, in->rank, in->shape);
    if (!t || (rc = ovta_tensor_alloc(t, err))) {
      ovta_tensor_free(t);
      break;
    }
    double sc = c->dtype == OVTA_DT_U8 ? 1.0 / 255.0 : 1.0;
    for (int64_t k = 0; k < need; k++) ((float *)t->data)[k] = (float)(ovta_tensor_get_f(c, s * need + k) * sc);
    (*vals)[(*n)++] = t;
  }
  ovta_tensor_free(c);
  if (!*vals || *n != S) return rc ? rc : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for calibration samples");
  return 0;
}

int ovta_cmd_compile(int argc, char **argv) {
  const char *model = NULL, *out = NULL, *passes = NULL, *v, *target = "cpu", *calib = NULL, *cfgname = NULL,
             *tuning = NULL, *print_after = NULL;
  bool report = false;
  int64_t calib_count = 0, vt = 0;
  ovta_exec_opts o;
  ovta_exec_opts_init(&o);
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return 0;
    } else if (tool_opt(argc, argv, &i, "-o", &v) || tool_opt(argc, argv, &i, "--output", &v)) {
      if (!v) return tool_usage("compile", "-o needs a folder");
      out = v;
    } else if (tool_opt(argc, argv, &i, "--passes", &v)) {
      if (!v) return tool_usage("compile", "--passes needs a list");
      passes = v;
    } else if (tool_opt(argc, argv, &i, "--print-after", &v)) {
      if (!v) return tool_usage("compile", "--print-after needs a pass name (see ovta-opt --list-passes)");
      print_after = v;
    } else if (!strcmp(argv[i], "--print-after-all")) {
      print_after = "all";
    } else if (tool_opt(argc, argv, &i, "-O", &v)) {
      int64_t lvl;
      if (!v || !tool_number(v, 0, 3, &lvl)) return tool_usage("compile", "-O needs 0..3");
      o.cg.opt_level = (int)lvl;
    } else if (tool_opt(argc, argv, &i, "--triple", &v)) {
      if (!v || !*v) return tool_usage("compile", "--triple needs an LLVM target triple (e.g. aarch64-linux-gnu)");
      o.cg.triple = v;
    } else if (tool_opt(argc, argv, &i, "--mcpu", &v)) {
      if (!v || !*v) return tool_usage("compile", "--mcpu needs a CPU name (e.g. cortex-a53)");
      o.cg.cpu = v;
    } else if (tool_opt(argc, argv, &i, "--target", &v)) {
      if (!v || (strcmp(v, "cpu") && strcmp(v, "accel"))) return tool_usage("compile", "--target needs cpu or accel");
      target = v;
    } else if (tool_opt(argc, argv, &i, "--calib", &v)) {
      if (!v) return tool_usage("compile", "--calib needs a .npy file");
      calib = v;
    } else if (tool_opt(argc, argv, &i, "--calib-count", &v)) {
      if (!v || !tool_number(v, 1, 100000, &calib_count)) return tool_usage("compile", "--calib-count needs a count");
    } else if (tool_opt(argc, argv, &i, "--config", &v)) {
      if (!v) return tool_usage("compile", "--config needs a name");
      cfgname = v;
    } else if (tool_opt(argc, argv, &i, "--tuning", &v)) {
      if (!v) return tool_usage("compile", "--tuning needs a file");
      tuning = v;
    } else if (tool_opt(argc, argv, &i, "--vt", &v)) {
      if (!v || !tool_number(v, 1, 2, &vt)) return tool_usage("compile", "--vt needs 1 or 2");
    } else if (tool_opt(argc, argv, &i, "--report", NULL)) {
      report = true;
    } else if (tool_opt(argc, argv, &i, "--dump-lir", NULL)) {
      o.dump_lir = stdout;
    } else if (tool_opt(argc, argv, &i, "--dump-llvm", NULL)) {
      o.cg.dump_ir = true;
      o.cg.ir_out = stdout;
    } else if (argv[i][0] == '-') {
      return tool_usage("compile", "unknown option %s", argv[i]);
    } else if (!model) {
      model = argv[i];
    } else {
      return tool_usage("compile", "more than one model given");
    }
  }
  if (!model) return tool_usage("compile", "no model given");
  if (!out) return tool_usage("compile", "no output folder given (-o)");
  ovta_error err = {0};
  ovta_graph *g = NULL;
  ovta_exec *e = NULL;
  bool accel = !strcmp(target, "accel");
  if (!accel && (calib || cfgname || tuning || vt || report))
    return tool_usage("compile", "--calib, --config, --tuning, --vt and --report need --target accel");
  ovta_config cfg;
  ovta_tensor **cal = NULL;
  int ncal = 0;
  char *tjson = NULL;
  int rc = ovta_graph_load(model, &g, &err);
  if (!rc && (passes || (print_after && !accel))) { /* NULL passes: the default pipeline */
    ovta_compile_opts co = {0};
    co.passes = passes;
    co.print_after = print_after;
    rc = ovta_compile_pipeline(g, &co, &err);
  }
  if (!rc && accel) {
    if (!cfgname) cfgname = getenv("OVTA_CONFIG") ? getenv("OVTA_CONFIG") : "default";
    rc = ovta_config_load(cfgname, &cfg, &err);
    size_t tl;
    if (!rc && tuning) rc = ovta_read_file(tuning, (size_t)1 << 24, &tjson, &tl, &err);
    bool quantized = false;
    for (int i = 0; !rc && i < g->n_nodes; i++)
      quantized |= !strcmp(g->nodes[i]->op, "ovta.QConv") || !strcmp(g->nodes[i]->op, "ovta.QDense");
    if (!rc && !quantized) {
      if (!calib) rc = OVTA_FAIL(&err, OVTA_EINVAL, "--target accel: a float model needs --calib FILE.npy");
      if (!rc) rc = load_calib(g, calib, calib_count, &cal, &ncal, &err);
      ovta_tensor *const **ptrs = calloc((size_t)ncal + 1, sizeof *ptrs);
      if (!rc && !ptrs) rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
      if (!rc) {
        for (int s = 0; s < ncal; s++) ptrs[s] = &cal[s];
        ovta_compile_opts co = {0};
        co.cfg = &cfg;
        co.passes = ovta_accel_pipeline;
        co.print_after = print_after;
        co.n_calib = ncal;
        co.calib = ptrs;
        rc = ovta_compile_pipeline(g, &co, &err);
      }
      free(ptrs);
    }
    o.accel = true;
    o.cfg = &cfg;
    o.tuning_json = tjson;
    o.vthreads = (int)vt;
    if (report) o.report = stdout;
  }
  if (!rc && (rc = ovta_exec_build(g, &o, &e, &err)) && !strstr(err.msg, model))
    ovta_error_wrap(&err, "%s", model); /* errors name the file */
  if (!rc) rc = ovta_exec_save(e, out, &err);
  if (!rc) {
    size_t arena, unshared;
    ovta_exec_memory(e, &arena, &unshared);
    fprintf(stderr, "ovta: compiled %s: %d nodes, %d inputs, %d outputs, arena %zu bytes (%zu without reuse) -> %s%s%s\n",
            model, g->n_nodes, ovta_exec_num_inputs(e), ovta_exec_num_outputs(e), arena, unshared, out,
            o.cg.triple ? " for " : "", o.cg.triple ? ovta_exec_target(e) : "");
  }
  if (!rc && accel && ovta_exec_foreign(e))
    fprintf(stderr, "ovta: %d node(s) on the accelerator (config %s); copy %s to the %s machine and run it there with "
            "`ovta run %s --backend zynq` (boards/README.md)\n", ovta_exec_accel_nodes(e), cfg.name, out, o.cg.triple, out);
  else if (!rc && accel)
    fprintf(stderr, "ovta: %d node(s) on the accelerator (config %s); run with `ovta run %s --backend fsim|tsim`\n",
            ovta_exec_accel_nodes(e), cfg.name, out);
  for (int i = 0; i < ncal; i++) ovta_tensor_free(cal[i]);
  free(cal);
  free(tjson);
  ovta_exec_free(e);
  ovta_graph_free(g);
  return rc ? tool_error(&err, NULL) : 0;
}
