/* cmd_compile.c: `ovta compile MODEL -o OUT.ovta`: a model compiled for the CPU path and saved as
 * a folder (plan.json + params.bin + kernels.o, see compiler/README-codegen.md). */
#include "ovta_tool.h"

#include <string.h>

#include "loopir.h"

static const char *help =
    "usage: ovta compile MODEL.onnx|MODEL.json -o OUT.ovta [options]\n\n"
    "Compile a model for the CPU: every node is lowered to loop IR, compiled through LLVM (O3,\n"
    "vectorized) into one object file; tensors are planned into one arena with storage reuse.\n"
    "OUT.ovta is a folder: plan.json (tensors, offsets, steps), params.bin (constants), kernels.o.\n"
    "Run it with `ovta run OUT.ovta`.\n\n"
    "options:\n"
    "  -o, --output DIR    the folder to write (created)\n"
    "  --passes LIST       run these graph passes first (comma-separated; see ovta-opt)\n"
    "  --dump-lir          print every node's loop IR on stdout\n"
    "  --dump-llvm         print the optimized LLVM IR on stdout\n"
    "  -O N                LLVM optimization level 0..3 (default 3)\n";

int ovta_cmd_compile(int argc, char **argv) {
  const char *model = NULL, *out = NULL, *passes = NULL, *v;
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
    } else if (tool_opt(argc, argv, &i, "-O", &v)) {
      int64_t lvl;
      if (!v || !tool_number(v, 0, 3, &lvl)) return tool_usage("compile", "-O needs 0..3");
      o.cg.opt_level = (int)lvl;
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
  int rc = ovta_graph_load(model, &g, &err);
  if (!rc && passes) {
    ovta_compile_opts co = {0};
    co.passes = passes;
    rc = ovta_compile_pipeline(g, &co, &err);
  }
  if (!rc) rc = ovta_exec_build(g, &o, &e, &err);
  if (!rc) rc = ovta_exec_save(e, out, &err);
  if (!rc) {
    size_t arena, unshared;
    ovta_exec_memory(e, &arena, &unshared);
    fprintf(stderr, "ovta: compiled %s: %d nodes, %d inputs, %d outputs, arena %zu bytes (%zu without reuse) -> %s\n",
            model, g->n_nodes, ovta_exec_num_inputs(e), ovta_exec_num_outputs(e), arena, unshared, out);
  }
  ovta_exec_free(e);
  ovta_graph_free(g);
  return rc ? tool_error(&err, NULL) : 0;
}
