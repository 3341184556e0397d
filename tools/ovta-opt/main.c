/* ovta-opt: read a graph (JSON or ONNX), run graph passes, print the result.
 *
 *   ovta-opt [options] FILE
 *     --passes=a,b,c       passes to run (default: none; see --list-passes)
 *     --pipeline=NAME      "default" or "accel" pipeline instead of --passes
 *     --print-after=a,b    dump the graph after these passes (to stdout)
 *     --print-after-all    dump after every pass
 *     --config=NAME        hardware config for pack (default: "default")
 *     --calib=FILE.pb      a calibration sample (TensorProto) for a one-input graph; repeatable
 *     --calib-random=N     N calibration samples, uniform in [-1, 1] (fixed seed)
 *     --quant-per-tensor   quantize: one weight exponent per tensor everywhere (no per-channel shifts)
 *     --emit=text|json|none  what to print at the end (default text)
 *     --list-passes        print the passes and exit
 * Errors go to stderr as one line; exit status 1.
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"

static int usage(void) {
  fprintf(stderr, "usage: ovta-opt [--passes=LIST|--pipeline=default|accel] [--print-after=LIST|--print-after-all]\n"
                  "                [--config=NAME] [--calib=FILE.pb]... [--calib-random=N] [--quant-per-tensor]\n"
                  "                [--emit=text|json|none] FILE\n");
  return 2;
}

#define MAX_CALIB 64

int main(int argc, char **argv) {
  ovta_compile_opts o = {0};
  ovta_error err = {0};
  const char *file = NULL, *emit = "text", *config = NULL;
  const char *calib_files[MAX_CALIB];
  int n_calib_files = 0, n_random = 0;
  bool run = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strncmp(a, "--passes=", 9)) o.passes = a + 9, run = true;
    else if (!strcmp(a, "--pipeline=default")) o.passes = ovta_default_pipeline, run = true;
    else if (!strcmp(a, "--pipeline=accel")) o.passes = ovta_accel_pipeline, run = true;
    else if (!strncmp(a, "--print-after=", 14)) o.print_after = a + 14;
    else if (!strcmp(a, "--print-after-all")) o.print_after = "all";
    else if (!strncmp(a, "--config=", 9)) config = a + 9;
    else if (!strncmp(a, "--calib=", 8) && n_calib_files < MAX_CALIB) calib_files[n_calib_files++] = a + 8;
    else if (!strncmp(a, "--calib-random=", 15)) n_random = atoi(a + 15);
    else if (!strcmp(a, "--quant-per-tensor")) o.quant_per_tensor = true;
    else if (!strncmp(a, "--emit=", 7)) emit = a + 7;
    else if (!strcmp(a, "--list-passes")) {
      int n;
      const ovta_pass *p = ovta_passes(&n);
      for (int k = 0; k < n; k++) printf("%-10s %s\n", p[k].name, p[k].help);
      printf("default pipeline: %s\naccel pipeline:   %s\n", ovta_default_pipeline, ovta_accel_pipeline);
      return 0;
    } else if (a[0] == '-' && a[1]) return usage();
    else file = a;
  }
  if (!file) return usage();
  if (n_random < 0 || n_random > MAX_CALIB) n_random = MAX_CALIB;
  ovta_config cfg;
  if (config && ovta_config_read(config, &cfg, &err)) {
    ovta_error_print(stderr, &err);
    return 1;
  }
  if (config) o.cfg = &cfg;
  o.dump = stdout;
  ovta_graph *g = NULL;
  int rc = ovta_graph_load(file, &g, &err);
  /* calibration samples */
  int ns = n_calib_files + n_random;
  ovta_tensor **vals = calloc((size_t)(ns ? ns : 1) * (size_t)(g && g->n_inputs ? g->n_inputs : 1), sizeof *vals);
  ovta_tensor *const **samples = calloc((size_t)(ns ? ns : 1), sizeof *samples);
  if (!rc && (!vals || !samples)) rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
  int ni = g ? g->n_inputs : 0;
  if (!rc && ns) {
    /* inputs need shapes: infer first on a copy is unnecessary, inputs are typed by the file */
    for (int s = 0; s < ns && !rc; s++) {
      samples[s] = &vals[s * ni];
      for (int k = 0; k < ni && !rc; k++) {
        ovta_tensor *in = g->inputs[k];
        if (s < n_calib_files) {
          if (ni != 1) rc = OVTA_FAIL(&err, OVTA_EINVAL, "--calib needs a graph with one input, this one has %d", ni);
          else rc = ovta_onnx_read_tensor(calib_files[s], &vals[s * ni + k], &err);
          continue;
        }
        ovta_tensor *t = ovta_tensor_new(in->name, in->dtype, in->rank, in->shape);
        if (!t) rc = OVTA_FAIL(&err, OVTA_ENOMEM, "out of memory");
        else if (!(rc = ovta_tensor_alloc(t, &err))) {
          unsigned x = 12345u + (unsigned)s * 7919u + (unsigned)k;
          for (int64_t e = 0; e < ovta_tensor_numel(t); e++) {
            x = x * 1103515245u + 12345u;
            ovta_tensor_put_f(t, e, ((x >> 8) & 0xffff) / 32767.5 - 1.0);
          }
        }
        vals[s * ni + k] = t;
      }
    }
    o.n_calib = ns;
    o.calib = samples;
  }
  if (!rc && run) rc = ovta_compile_pipeline(g, &o, &err);
  if (!rc) {
    if (!strcmp(emit, "json")) {
      char *s = ovta_graph_to_json(g, &err);
      if (!s) rc = err.code ? err.code : OVTA_ENOMEM;
      else printf("%s\n", s);
      free(s);
    } else if (!strcmp(emit, "text")) {
      ovta_graph_dump(stdout, g);
    }
  }
  if (rc) ovta_error_print(stderr, &err);
  for (int i = 0; vals && i < ns * ni; i++) ovta_tensor_free(vals[i]);
  free(vals);
  free(samples);
  ovta_graph_free(g);
  return rc ? 1 : 0;
}
