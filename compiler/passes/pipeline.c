/* pipeline.c: the pass registry and the flat pipeline that runs it (passes.h section 2), like
 * QBE's main.c: a list of named passes, each able to dump the IR after it ran. One file per pass
 * beside this one; the pass list and what each pass guarantees are in compiler/passes/README.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes_internal.h"

static const ovta_pass PASSES[] = {
    {"infer", "topological order, shape/type inference, explicit Conv/pool attributes", pass_infer},
    {"fold", "evaluate nodes whose inputs are all constant", pass_fold},
    {"dce", "remove nodes that do not reach a graph output, and unused tensors", pass_dce},
    {"convt", "ConvTranspose -> zero insertion + Conv with the flipped kernel (accelerator pipeline)", pass_convt},
    {"fold-bn", "fold BatchNormalization into the preceding Conv", pass_fold_bn},
    {"fuse", "Conv/Gemm/MatMul + bias + activation -> ovta.Conv/ovta.Dense; elementwise chains -> ovta.Eltwise", pass_fuse},
    {"split-groups", "grouped ovta.Conv not aligned with the channel blocks -> Concat of convs over runs of whole groups (accelerator pipeline)", pass_split_groups},
    {"im2col", "ovta.Conv on C < block_in channels whose im2col needs fewer GEMM micro-ops than it and s2d -> Pad + a strided Slice per tap + Concat + 1x1 ovta.Conv on C*KH*KW channels (accelerator pipeline)", pass_im2col},
    {"s2d", "stride-2 ovta.Conv on C*4 <= block_in channels -> Pad + SpaceToDepth(2) + stride-1 ovta.Conv on 4C channels, kernel ceil(k/2) (accelerator pipeline)", pass_s2d},
    {"quantize", "int8 power-of-two quantization: ovta.Conv/Dense -> ovta.QConv/QDense, residual Add -> ovta.QAdd, MaxPool -> ovta.QMaxPool, GlobalAveragePool -> ovta.QGlobalAvgPool", pass_quantize},
    {"pack", "blocked accelerator layouts for ovta.QConv/QDense/QAdd/QMaxPool/QGlobalAvgPool (ovta.Pack/Unpack)", pass_pack},
    {"partition", "assign accel/cpu targets and regions", pass_partition},
    {"verify", "structural checks; every used tensor typed", pass_verify},
};

const char ovta_default_pipeline[] = "infer,fold,dce,fold-bn,fuse,infer,fold,dce,verify";
const char ovta_accel_pipeline[] = "infer,fold,dce,convt,fold-bn,fuse,split-groups,im2col,s2d,infer,fold,dce,quantize,pack,partition,verify";

const ovta_pass *ovta_passes(int *n) {
  *n = (int)(sizeof PASSES / sizeof PASSES[0]);
  return PASSES;
}

const ovta_pass *ovta_pass_find(const char *name) {
  for (size_t i = 0; i < sizeof PASSES / sizeof PASSES[0]; i++)
    if (!strcmp(PASSES[i].name, name)) return &PASSES[i];
  return NULL;
}

static bool listed(const char *list, const char *name) {
  if (!list) return false;
  if (!strcmp(list, "all")) return true;
  size_t l = strlen(name);
  for (const char *p = list; *p;) {
    const char *q = strchr(p, ',');
    size_t m = q ? (size_t)(q - p) : strlen(p);
    if (m == l && !strncmp(p, name, l)) return true;
    p = q ? q + 1 : p + m;
  }
  return false;
}

int ovta_compile_pipeline(ovta_graph *g, const ovta_compile_opts *opts, ovta_error *err) {
  ovta_error local;
  if (!err) err = &local;
  ovta_compile_opts none = {0};
  if (!opts) opts = &none;
  const char *list = opts->passes ? opts->passes : ovta_default_pipeline;
  FILE *dump = opts->dump ? opts->dump : stderr;
  /* check every name first, so a typo fails before any work */
  for (const char *p = list; *p;) {
    const char *q = strchr(p, ',');
    size_t m = q ? (size_t)(q - p) : strlen(p);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(m < 63 ? m : 63), p);
    if (m && !ovta_pass_find(name)) return OVTA_FAIL(err, OVTA_EINVAL, "unknown pass '%s'", name);
    p = q ? q + 1 : p + m;
  }
  for (const char *p = list; *p;) {
    const char *q = strchr(p, ',');
    size_t m = q ? (size_t)(q - p) : strlen(p);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(m < 63 ? m : 63), p);
    p = q ? q + 1 : p + m;
    if (!m) continue;
    const ovta_pass *ps = ovta_pass_find(name);
    ovta_error_clear(err);
    ovta_timing_begin(opts->timing, "pass %s", name);
    int rc = ps->run(g, opts, err);
    if (!rc) rc = ovta_graph_verify(g, err);
    ovta_timing_end(opts->timing);
    if (rc) return ovta_error_wrap(err, "pass %s", name);
    if (listed(opts->print_after, name)) {
      fprintf(dump, "// after %s\n", name);
      ovta_graph_dump(dump, g);
    }
  }
  return OVTA_OK;
}
