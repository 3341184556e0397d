/* cmd_run.c: `ovta run MODEL --input NAME=FILE.npy|FILE.png ... --output-dir DIR`: run a compiled model
 * (a folder from `ovta compile`) or a model file (compiled on the fly) on the CPU, writing one
 * .npy per graph output named after it. */
#include "ovta_tool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "exec.h"

static const char *help =
    "usage: ovta run MODEL.ovta|MODEL.onnx|MODEL.json --input NAME=FILE.npy ... --output-dir DIR\n\n"
    "Run a model: a folder made by `ovta compile` (loaded, no recompilation; one compiled with\n"
    "--target accel runs its accelerator nodes on --backend), or a model file on the CPU path\n"
    "(compiled first). Every graph input needs one --input; symbolic dims of a model\n"
    "file take the shape of the given array. Writes DIR/OUTPUT_NAME.npy for every graph output\n"
    "(characters other than letters, digits, '.', '-' and '_' in the name become '_').\n\n"
    "options:\n"
    "  --input NAME=FILE.npy   value of graph input NAME (repeatable); FILE.png (gray, RGB,\n"
    "                          RGBA, palette; 8 or 16 bits) is fed as float32 [1,C,H,W] =\n"
    "                          pixel/255 (gray: C = 1)\n"
    "  --output-dir DIR        where the outputs go (created; default: .)\n"
    "  --repeat N              run N times and print the mean time per run\n"
    "  --backend NAME          cpu, or a device (fsim, tsim, ...) for a folder compiled with\n"
    "                          `ovta compile --target accel` (default for those: fsim)\n"
    "  --stats                 print per-node counters (accelerator: instructions, micro-ops, cycles)\n";

#define MAX_IN 64

int ovta_cmd_run(int argc, char **argv) {
  const char *model = NULL, *outdir = ".", *v;
  const char *in_name[MAX_IN], *in_file[MAX_IN];
  int nin = 0;
  int64_t repeat = 0;
  const char *backend = NULL;
  bool stats = false;
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) {
      fputs(help, stdout);
      return 0;
    } else if (tool_opt(argc, argv, &i, "--input", &v)) {
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!eq || eq == v || !eq[1]) return tool_usage("run", "--input needs NAME=FILE.npy");
      if (nin == MAX_IN) return tool_usage("run", "more than %d inputs", MAX_IN);
      in_name[nin] = strndup(v, (size_t)(eq - v));
      in_file[nin++] = eq + 1;
    } else if (tool_opt(argc, argv, &i, "--output-dir", &v)) {
      if (!v) return tool_usage("run", "--output-dir needs a folder");
      outdir = v;
    } else if (tool_opt(argc, argv, &i, "--backend", &v)) {
      if (!v) return tool_usage("run", "--backend needs a name");
      backend = v;
    } else if (tool_opt(argc, argv, &i, "--stats", NULL)) {
      stats = true;
    } else if (tool_opt(argc, argv, &i, "--repeat", &v)) {
      if (!v || !tool_number(v, 1, 1000000, &repeat)) return tool_usage("run", "--repeat needs a count");
    } else if (argv[i][0] == '-') {
      return tool_usage("run", "unknown option %s", argv[i]);
    } else if (!model) {
      model = argv[i];
    } else {
      return tool_usage("run", "more than one model given");
    }
  }
  if (!model) return tool_usage("run", "no model given");
  ovta_error err = {0};
  ovta_tensor *vals[MAX_IN] = {0};
  ovta_graph *g = NULL;
  ovta_exec *e = NULL;
  int rc = 0;
  for (int i = 0; i < nin && !rc; i++) rc = tool_input_read(in_file[i], in_name[i], &vals[i], &err);
  struct stat st;
  if (!rc && stat(model, &st) == 0 && S_ISDIR(st.st_mode)) {
    rc = ovta_exec_load(model, &e, &err);
    if (!rc && ovta_exec_accel_nodes(e) > 0) {
      const char *b = backend ? backend : "fsim";
      if (!strcmp(b, "cpu"))
        rc = OVTA_FAIL(&err, OVTA_EINVAL,
                       "%s runs %d node(s) on the accelerator: use --backend fsim|tsim (or compile with --target cpu)",
                       model, ovta_exec_accel_nodes(e));
      else rc = ovta_exec_attach(e, b, NULL, &err);
    } else if (!rc && backend && strcmp(backend, "cpu")) {
      rc = OVTA_FAIL(&err, OVTA_EINVAL, "--backend %s: %s was compiled for the cpu (ovta compile --target accel)", backend,
                     model);
    }
  } else if (!rc && backend && strcmp(backend, "cpu")) {
    rc = OVTA_FAIL(&err, OVTA_EINVAL, "--backend %s: compile the model first with `ovta compile --target accel --calib ...`",
                   backend);
  } else if (!rc) {
    rc = ovta_graph_load(model, &g, &err);
    /* symbolic dims take the given arrays' shapes */
    for (int i = 0; !rc && i < g->n_inputs; i++)
      for (int k = 0; k < nin; k++)
        if (strcmp(g->inputs[i]->name, in_name[k]) == 0) {
          ovta_tensor *t = g->inputs[i];
          bool unknown = t->rank < 0, clash = t->rank >= 0 && t->rank != vals[k]->rank;
          for (int d = 0; d < t->rank; d++) {
            unknown |= t->shape[d] < 0;
            clash |= d < vals[k]->rank && t->shape[d] >= 0 && t->shape[d] != vals[k]->shape[d];
          }
          if (clash) { /* only the symbolic dims may take the array's (known dims must match) */
            char want[160], got[160];
            ovta_shape_str(t, want, sizeof want);
            ovta_shape_str(vals[k], got, sizeof got);
            rc = OVTA_FAIL(&err, OVTA_EINVAL, "%s: shape %s does not match input %s of %s (%s)", in_file[k], got,
                           t->name, model, want);
          } else if (unknown) {
            t->rank = vals[k]->rank;
            memcpy(t->shape, vals[k]->shape, sizeof t->shape);
          }
        }
    if (!rc && (rc = ovta_exec_build(g, NULL, &e, &err)) && !strstr(err.msg, model))
      ovta_error_wrap(&err, "%s", model); /* errors name the file */
  }
  for (int i = 0; !rc && i < ovta_exec_num_inputs(e); i++) {
    const char *nm = ovta_exec_input_name(e, i);
    int k = 0;
    while (k < nin && strcmp(in_name[k], nm) != 0) k++;
    if (k == nin) rc = OVTA_FAIL(&err, OVTA_EINVAL, "graph input %s has no --input %s=FILE.npy", nm, nm);
    else if ((rc = ovta_exec_set_input(e, nm, vals[k], &err))) { /* name the file */
      char m[sizeof err.msg];
      snprintf(m, sizeof m, "%s", err.msg);
      snprintf(err.msg, sizeof err.msg, "%.150s: %.600s", in_file[k], m);
    }
  }
  for (int k = 0; !rc && k < nin; k++) {
    bool found = false;
    for (int i = 0; i < ovta_exec_num_inputs(e); i++) found |= strcmp(ovta_exec_input_name(e, i), in_name[k]) == 0;
    if (!found) rc = OVTA_FAIL(&err, OVTA_EINVAL, "--input %s: the model has no input of that name", in_name[k]);
  }
  if (!rc) rc = ovta_exec_run(e, &err);
  if (!rc && repeat > 0) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int64_t r = 0; r < repeat && !rc; r++) rc = ovta_exec_run(e, &err);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / (double)repeat;
    printf("time per run: %.3f us (%lld runs)\n", us, (long long)repeat);
  }
  for (int i = 0; !rc && stats && i < ovta_exec_num_steps(e); i++) {
    ovta_exec_node_stats st;
    if ((rc = ovta_exec_node_stats_get(e, i, &st, &err))) break;
    if (!st.accel) {
      printf("node %s: cpu, runs %llu\n", st.node, (unsigned long long)st.runs);
      continue;
    }
    printf("node %s: accel, runs %llu, insns %llu (device retired %llu), uops recorded %llu, gemm uops %llu, alu uops "
           "%llu",
           st.node, (unsigned long long)st.runs, (unsigned long long)st.insns, (unsigned long long)st.dev_insns,
           (unsigned long long)st.uops_recorded, (unsigned long long)st.gemm_uops, (unsigned long long)st.alu_uops);
    if (st.has_cycles) printf(", cycles %llu", (unsigned long long)st.cycles);
    printf("\n");
  }
  if (!rc && mkdir(outdir, 0777) != 0 && errno != EEXIST)
    rc = OVTA_FAIL(&err, OVTA_EIO, "%s: %s", outdir, strerror(errno));
  for (int i = 0; !rc && i < ovta_exec_num_outputs(e); i++) {
    ovta_tensor *t;
    rc = ovta_exec_get_output(e, i, &t, &err);
    if (rc) break;
    char fn[512], path[4096], shape[128];
    size_t k = 0;
    for (const char *p = t->name; *p && k < sizeof fn - 1; p++)
      fn[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
                 *p == '-' || *p == '_') ? *p : '_';
    fn[k] = 0;
    snprintf(path, sizeof path, "%s/%s.npy", outdir, fn);
    rc = ovta_npy_write(path, t, &err);
    ovta_shape_str(t, shape, sizeof shape);
    if (!rc) printf("%s: %s %s -> %s\n", t->name, ovta_dtype_name(t->dtype), shape, path);
    ovta_tensor_free(t);
  }
  for (int i = 0; i < nin; i++) {
    ovta_tensor_free(vals[i]);
    free((char *)in_name[i]);
  }
  ovta_exec_free(e);
  ovta_graph_free(g);
  return rc ? tool_error(&err, NULL) : 0;
}
