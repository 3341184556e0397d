/* cmd_compile.c: `ovta compile MODEL -o OUT.ovta`: a model compiled for the CPU path and saved as
 * a folder (plan.json + params.bin + kernels.o, see compiler/lir/README.md). */
#include "ovta_tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "accel.h"

static const char *help =
    "usage: ovta compile MODEL.onnx|MODEL.json -o OUT.ovta [options]\n\n"
    "Compile a model for the CPU: every node is lowered to loop IR, compiled through LLVM (O3,\n"
    "vectorized) into one object file; tensors are planned into one arena with storage reuse.\n"
    "OUT.ovta is a folder: plan.json (tensors, offsets, steps; the size and digest of every file),\n"
    "params.bin (constants), kernels.o, kernels.so (what ovta-rt opens).\n"
    "Run it with `ovta run OUT.ovta`.\n\n"
    "options:\n"
    "  -o, --output DIR    the folder to write (created)\n"
    "  --input-shape NAME=DxDx..  bind graph input NAME to this shape (repeatable): its symbolic\n"
    "                      dims take these values, its static dims must equal them; shape\n"
    "                      subgraphs of the model (Shape -> Gather -> Concat -> Reshape) then fold\n"
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
    "                      warned about by LLVM and replaced by the baseline)\n"
    "  --time-passes       print the time of every phase on stderr at the end (like LLVM's\n"
    "                      -time-passes): import, each graph pass (the calibration under quantize),\n"
    "                      each build step (tiling, accelerator stages, LLVM), the save; wall and\n"
    "                      CPU seconds (the linker's included), runs, nested phases indented\n\n"
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

#define MAX_SHAPES 64

/* The options of one `ovta compile`. */
typedef struct copts {
  const char *model;       /* the model file */
  const char *out;         /* -o: the folder to write */
  const char *passes;      /* --passes LIST, or NULL */
  const char *print_after; /* --print-after PASS[,...] ("all": --print-after-all), or NULL */
  bool accel;              /* --target accel */
  const char *calib;       /* --calib FILE.npy, or NULL */
  int64_t calib_count;     /* --calib-count N (0: up to OVTA_CALIB_DEFAULT_COUNT) */
  const char *cfgname;     /* --config NAME, or NULL */
  const char *tuning;      /* --tuning FILE.json, or NULL */
  int64_t vt;              /* --vt 1|2 (0: the default) */
  bool report;             /* --report */
  ovta_timing *timing;     /* --time-passes: the table, else NULL */
  ovta_exec_opts eo;       /* -O, --triple, --mcpu, --dump-lir, --dump-llvm; accel fields set later */
  const char *shape[MAX_SHAPES]; /* --input-shape NAME=DxD..., as given */
  int nshape;
} copts;

/* One argument at argv[*i] (with its value, advancing *i): 0, 2 on a usage error, -1 after --help. */
static int parse_one(int argc, char **argv, int *i, copts *o) {
  const char *v;
  if (tool_is_help(argv[*i])) {
    fputs(help, stdout);
    return -1;
  } else if (tool_opt(argc, argv, i, "-o", &v) || tool_opt(argc, argv, i, "--output", &v)) {
    if (!v) return tool_usage("compile", "-o needs a folder");
    o->out = v;
  } else if (tool_opt(argc, argv, i, "--input-shape", &v)) {
    const char *eq = v ? strrchr(v, '=') : NULL;
    if (!eq || eq == v || !eq[1]) return tool_usage("compile", "--input-shape needs NAME=DxDx... (e.g. x=1x3x224x224)");
    if (o->nshape == MAX_SHAPES) return tool_usage("compile", "more than %d --input-shape options", MAX_SHAPES);
    o->shape[o->nshape++] = v;
  } else if (tool_opt(argc, argv, i, "--passes", &v)) {
    if (!v) return tool_usage("compile", "--passes needs a list");
    o->passes = v;
  } else if (tool_opt(argc, argv, i, "--print-after", &v)) {
    if (!v) return tool_usage("compile", "--print-after needs a pass name (see ovta-opt --list-passes)");
    o->print_after = v;
  } else if (!strcmp(argv[*i], "--print-after-all")) {
    o->print_after = "all";
  } else if (tool_opt(argc, argv, i, "-O", &v)) {
    int64_t lvl;
    if (!v || !tool_number(v, 0, 3, &lvl)) return tool_usage("compile", "-O needs 0..3");
    o->eo.cg.opt_level = (int)lvl;
  } else if (tool_opt(argc, argv, i, "--triple", &v)) {
    if (!v || !*v) return tool_usage("compile", "--triple needs an LLVM target triple (e.g. aarch64-linux-gnu)");
    o->eo.cg.triple = v;
  } else if (tool_opt(argc, argv, i, "--mcpu", &v)) {
    if (!v || !*v) return tool_usage("compile", "--mcpu needs a CPU name (e.g. cortex-a53)");
    o->eo.cg.cpu = v;
  } else if (tool_opt(argc, argv, i, "--target", &v)) {
    if (!v || (strcmp(v, "cpu") && strcmp(v, "accel"))) return tool_usage("compile", "--target needs cpu or accel");
    o->accel = !strcmp(v, "accel");
  } else if (tool_opt(argc, argv, i, "--calib", &v)) {
    if (!v) return tool_usage("compile", "--calib needs a .npy file");
    o->calib = v;
  } else if (tool_opt(argc, argv, i, "--calib-count", &v)) {
    if (!v || !tool_number(v, 1, 100000, &o->calib_count)) return tool_usage("compile", "--calib-count needs a count");
  } else if (tool_opt(argc, argv, i, "--config", &v)) {
    if (!v) return tool_usage("compile", "--config needs a name");
    o->cfgname = v;
  } else if (tool_opt(argc, argv, i, "--tuning", &v)) {
    if (!v) return tool_usage("compile", "--tuning needs a file");
    o->tuning = v;
  } else if (tool_opt(argc, argv, i, "--vt", &v)) {
    if (!v || !tool_number(v, 1, 2, &o->vt)) return tool_usage("compile", "--vt needs 1 or 2");
  } else if (tool_opt(argc, argv, i, "--report", NULL)) {
    o->report = true;
  } else if (tool_opt(argc, argv, i, "--time-passes", NULL)) {
    static ovta_timing table;
    o->timing = &table;
  } else if (tool_opt(argc, argv, i, "--dump-lir", NULL)) {
    o->eo.dump_lir = stdout;
  } else if (tool_opt(argc, argv, i, "--dump-llvm", NULL)) {
    o->eo.cg.dump_ir = true;
    o->eo.cg.ir_out = stdout;
  } else if (argv[*i][0] == '-') {
    return tool_usage("compile", "unknown option %s", argv[*i]);
  } else if (!o->model) {
    o->model = argv[*i];
  } else {
    return tool_usage("compile", "more than one model given");
  }
  return 0;
}

/* All arguments into o: 0, 2 on a usage error, -1 after --help. */
static int parse_args(int argc, char **argv, copts *o) {
  memset(o, 0, sizeof *o);
  ovta_exec_opts_init(&o->eo);
  for (int i = 1; i < argc; i++) {
    int rc = parse_one(argc, argv, &i, o);
    if (rc) return rc;
  }
  if (!o->model) return tool_usage("compile", "no model given");
  if (!o->out) return tool_usage("compile", "no output folder given (-o)");
  if (!o->accel && (o->calib || o->cfgname || o->tuning || o->vt || o->report))
    return tool_usage("compile", "--calib, --config, --tuning, --vt and --report need --target accel");
  return 0;
}

/* --input-shape NAME=DxDx...: graph input NAME takes that shape; its symbolic dims take the
 * values, a static dim that differs (or another rank) is an error naming both shapes. */
static int bind_shape(ovta_graph *g, const char *spec, ovta_error *err) {
  const char *eq = strrchr(spec, '=');
  int64_t dims[OVTA_MAX_RANK];
  int r = 0;
  for (const char *p = eq + 1; *p;) {
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (end == p || errno || d < 0 || d > ((int64_t)1 << 40) || (*end && *end != 'x') || (*end == 'x' && !end[1]))
      return OVTA_FAIL(err, OVTA_EINVAL, "--input-shape %s: the shape must be dims separated by 'x' (e.g. 1x3x224x224)", spec);
    if (r == OVTA_MAX_RANK) return OVTA_FAIL(err, OVTA_EINVAL, "--input-shape %s: more than %d dims", spec, OVTA_MAX_RANK);
    dims[r++] = d;
    p = *end ? end + 1 : end;
  }
  ovta_tensor *t = NULL;
  for (int i = 0; i < g->n_inputs; i++)
    if ((int)strlen(g->inputs[i]->name) == (int)(eq - spec) && !strncmp(g->inputs[i]->name, spec, (size_t)(eq - spec)))
      t = g->inputs[i];
  if (!t) return OVTA_FAIL(err, OVTA_EINVAL, "--input-shape %s: the model has no input named %.*s", spec, (int)(eq - spec), spec);
  bool clash = t->rank >= 0 && t->rank != r;
  for (int d = 0; d < r && !clash; d++) clash = t->rank >= 0 && t->shape[d] >= 0 && t->shape[d] != dims[d];
  if (clash) {
    char want[160];
    ovta_shape_str(t, want, sizeof want);
    return OVTA_FAIL(err, OVTA_EINVAL, "--input-shape %s: input %s of the model has shape %s (only its symbolic dims can be set)",
                     spec, t->name, want);
  }
  t->rank = r;
  for (int d = 0; d < r; d++) {
    t->shape[d] = dims[d];
    free(t->dim_names[d]);
    t->dim_names[d] = NULL;
  }
  return 0;
}

/* The graph's single input fitted to calibration samples c [S, ...] read from path: batch 1, its
 * other symbolic dims from the samples' trailing dims, float32; the samples must fit it. */
static int fit_calib_input(ovta_graph *g, const char *path, const ovta_tensor *c, ovta_error *err) {
  ovta_tensor *in = g->inputs[0];
  if (in->rank < 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "--calib: input %s has unknown rank", in->name);
  int64_t S = c->rank > 0 ? c->shape[0] : 0, per = S > 0 ? ovta_tensor_numel(c) / S : 0;
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
    return OVTA_FAIL(err, OVTA_EINVAL, "--calib %s: samples %s do not fit input %s (%s %s, batch 1)", path, a, in->name,
                     ovta_dtype_name(in->dtype), b);
  }
  return 0;
}

/* A float model quantized for cfg (the accelerator pipeline), calibrated on --calib. */
static int quantize(const copts *o, ovta_graph *g, const ovta_config *cfg, ovta_error *err) {
  if (!o->calib) return OVTA_FAIL(err, OVTA_EINVAL, "--target accel: a float model needs --calib FILE.npy");
  if (g->n_inputs != 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "--calib: the model has %d inputs, not 1", g->n_inputs);
  ovta_tensor *c;
  ovta_timing_begin(o->timing, "read the calibration samples");
  int rc = ovta_npy_read(o->calib, "calib", &c, err);
  ovta_timing_end(o->timing);
  if (rc) return rc;
  if (!(rc = fit_calib_input(g, o->calib, c, err))) {
    ovta_calib_opts co = {.samples = c, .count = o->calib_count, .cfg = cfg, .print_after = o->print_after, .timing = o->timing};
    ovta_timing_begin(o->timing, "graph passes, calibrated (float pipeline, quantize, pack, partition)");
    rc = ovta_calibrate_quantize(g, &co, NULL, err);
    ovta_timing_end(o->timing);
  }
  ovta_tensor_free(c);
  return rc;
}

int tool_quantize_accel(ovta_graph *g, const char *calib, const ovta_config *cfg, ovta_error *err) {
  copts o = {.calib = calib};
  return quantize(&o, g, cfg, err);
}

/* --target accel: the config, the tuning file and (a float model) quantization; the executor
 * options for the accelerator. */
static int prepare_accel(copts *o, ovta_graph *g, ovta_config *cfg, char **tjson, ovta_error *err) {
  const char *name = o->cfgname ? o->cfgname : getenv("OVTA_CONFIG") ? getenv("OVTA_CONFIG") : "default";
  ovta_timing_begin(o->timing, "hardware config");
  int rc = ovta_config_load(name, cfg, err);
  ovta_timing_end(o->timing);
  size_t tl;
  if (!rc && o->tuning) rc = ovta_read_file(o->tuning, (size_t)1 << 24, tjson, &tl, err);
  if (!rc && !ovta_graph_quantized(g)) rc = quantize(o, g, cfg, err);
  o->eo.accel = true;
  o->eo.cfg = cfg;
  o->eo.tuning_json = *tjson;
  o->eo.vthreads = (int)o->vt;
  o->eo.timing = o->timing;
  if (o->report) o->eo.report = stdout;
  return rc;
}

/* The summary lines on stderr. */
static void print_done(const copts *o, const ovta_graph *g, const ovta_exec *e, const ovta_config *cfg) {
  size_t arena, unshared;
  ovta_exec_memory(e, &arena, &unshared);
  fprintf(stderr, "ovta: compiled %s: %d nodes, %d inputs, %d outputs, arena %zu bytes (%zu without reuse) -> %s%s%s\n",
          o->model, g->n_nodes, ovta_exec_num_inputs(e), ovta_exec_num_outputs(e), arena, unshared, o->out,
          o->eo.cg.triple ? " for " : "", o->eo.cg.triple ? ovta_exec_target(e) : "");
  if (o->accel && ovta_exec_foreign(e))
    fprintf(stderr, "ovta: %d node(s) on the accelerator (config %s); copy %s to the %s machine and run it there with "
            "`ovta-rt run %s --backend zynq` (boards/README.md)\n", ovta_exec_accel_nodes(e), cfg->name, o->out,
            o->eo.cg.triple, o->out);
  else if (o->accel)
    fprintf(stderr, "ovta: %d node(s) on the accelerator (config %s); run with `ovta run %s --backend fsim|tsim`\n",
            ovta_exec_accel_nodes(e), cfg->name, o->out);
}

int ovta_cmd_compile(int argc, char **argv) {
  copts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) return rc < 0 ? 0 : rc;
  ovta_error err = {0};
  ovta_graph *g = NULL;
  ovta_exec *e = NULL;
  ovta_config cfg;
  char *tjson = NULL;
  ovta_timing *tm = o.timing;
  o.eo.timing = tm;
  ovta_timing_begin(tm, "import (model file into the graph IR)");
  rc = ovta_graph_load(o.model, &g, &err);
  for (int k = 0; !rc && k < o.nshape; k++) rc = bind_shape(g, o.shape[k], &err);
  ovta_timing_end(tm);
  if (!rc && (o.passes || (o.print_after && !o.accel))) { /* NULL passes: the default pipeline */
    ovta_compile_opts co = {.passes = o.passes, .print_after = o.print_after, .timing = tm};
    ovta_timing_begin(tm, "graph passes (--passes)");
    rc = ovta_compile_pipeline(g, &co, &err);
    ovta_timing_end(tm);
  }
  if (!rc && o.accel) rc = prepare_accel(&o, g, &cfg, &tjson, &err);
  ovta_timing_begin(tm, "build (ovta_exec_build)");
  if (!rc && (rc = ovta_exec_build(g, &o.eo, &e, &err)) && !strstr(err.msg, o.model))
    ovta_error_wrap(&err, "%s", o.model); /* errors name the file */
  ovta_timing_end(tm);
  ovta_timing_begin(tm, "save (plan.json, params.bin, kernels.o; kernels.so by ld.lld)");
  if (!rc) rc = ovta_exec_save(e, o.out, &err);
  ovta_timing_end(tm);
  if (!rc) print_done(&o, g, e, &cfg);
  if (!rc && tm) ovta_timing_print(tm, stderr, "ovta compile: time per phase (--time-passes)");
  ovta_timing_free(tm);
  free(tjson);
  ovta_exec_free(e);
  ovta_graph_free(g);
  return rc ? tool_error(&err, NULL) : 0;
}
