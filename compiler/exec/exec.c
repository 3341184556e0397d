/* exec.c: the graph executor (exec.h): the compile pipeline (ovta_exec_build: one static step
 * per stage, read it from the bottom of the "build" section), liveness-based memory planning, one
 * LLVM module compiled to object code and loaded into the JIT, into a plan of the plan runtime
 * (plan/ovta_plan.h: run, save and load are its own), and the evaluation hook for graph passes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "exec_internal.h"


/* The plan the compile fills (plan/ovta_plan.h: tensors, steps, memory, device), and the code. */
struct ovta_exec {
  ovta_plan p;          /* tensors, steps, memory, config, report, device */
  void *obj;            /* object code */
  size_t obj_len;       /* its bytes */
  lir_jit *jit;         /* JIT holding obj (NULL for another machine's plan) */
  bool foreign;         /* obj is for another machine (ovta compile --triple): saved, not run here */
};

typedef ovta_plan_tensor xtensor;
typedef ovta_plan_step xstep;

void ovta_exec_opts_init(ovta_exec_opts *o) {
  memset(o, 0, sizeof *o);
  lir_codegen_opts_init(&o->cg);
}

static size_t align_up(size_t v) { return (v + OVTA_PLAN_ALIGN - 1) & ~(size_t)(OVTA_PLAN_ALIGN - 1); }

void ovta_exec_free(ovta_exec *e) {
  if (!e) return;
  ovta_plan_release(&e->p);
  free(e->obj);
  lir_jit_free(e->jit);
  free(e);
}

#define MAX_ARENA OVTA_PLAN_MAX_ARENA

/* The resolver of the plan's steps: a symbol of the JIT (ctx). */
static int jit_resolve(void *ctx, const char *sym, void **fp, ovta_error *err) {
  return lir_jit_lookup(ctx, sym, fp, err);
}

/* Load the object code into a JIT (with the runtime shims for accelerator plans), allocate the
 * arena and resolve every step (ovta_plan_bind). */
static int finish(ovta_exec *e, ovta_error *err) {
  int rc = lir_jit_new(&e->jit, err);
  if (rc) return rc;
  if (e->p.accel && (rc = vta_jit_define_runtime(e->jit, err))) return rc;
  if (e->p.ns && (rc = lir_jit_add_object(e->jit, e->obj, e->obj_len, "kernels.o", err))) return rc;
  return ovta_plan_bind(&e->p, jit_resolve, e->jit, err);
}

/* ---------------------------------------------------------------- build: the compile pipeline */

typedef struct blk {
  size_t off, size; /* placement */
  int last;         /* last step using it */
} blk;

static int cmp_blk(const void *a, const void *b) {
  const blk *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Place `size` bytes live from step `now` to `last`, avoiding blocks still live at `now`. */
static size_t place(blk *b, int nb, int now, size_t size, blk *tmp) {
  int n = 0;
  for (int i = 0; i < nb; i++)
    if (b[i].last >= now) tmp[n++] = b[i];
  qsort(tmp, (size_t)n, sizeof *tmp, cmp_blk);
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    if (tmp[i].off >= off + size) break;
    size_t end = align_up(tmp[i].off + tmp[i].size);
    if (end > off) off = end;
  }
  return off;
}

/* Inference also checks the types a model file declares (ONNX value_info, JSON shapes): the
 * lowering trusts them, so a file declaring a larger output than its node makes would read past
 * the input's end. Always run it (it recomputes the same types for a consistent graph). */
static bool needs_infer(const ovta_graph *g) {
  (void)g;
  return true;
}

static int tindex(const ovta_graph *g, const ovta_tensor *t) {
  for (int i = 0; i < g->n_tensors; i++)
    if (g->tensors[i] == t) return i;
  return -1;
}

/* The operators the accelerator runs (vta_op_from_node): GEMM ones and the ALU ones (a Resize
 * on packed values: the upsampling). */
static bool accel_op(const ovta_node *n) {
  return !strcmp(n->op, "ovta.QConv") || !strcmp(n->op, "ovta.QDense") || !strcmp(n->op, "ovta.QAdd") ||
         !strcmp(n->op, "ovta.QMaxPool") || !strcmp(n->op, "ovta.QGlobalAvgPool") ||
         (!strcmp(n->op, "Resize") && n->n_outputs == 1 && n->outputs[0] && n->outputs[0]->layout == OVTA_LAYOUT_ACT);
}

/* The tensor accelerator node n passes as its w buffer: its second input (weights, an add's b),
 * else x (the pools and the upsampling, which never read it; a Resize's second input is its roi). */
static const ovta_tensor *w_operand(const ovta_node *n) {
  return n->n_inputs > 1 && n->inputs[1] && strcmp(n->op, "Resize") ? n->inputs[1] : n->inputs[0];
}

static bool alu_kind(const vta_plan *p) { return vta_kind_alu(p->op.kind); }

/* One compile (ovta_exec_build): the options, the graph being compiled and what each step leaves
 * for the next. Freed by build_end, whatever step failed. */
typedef struct build {
  const ovta_exec_opts *o;  /* the options (the defaults when the caller gave none) */
  ovta_graph *g;            /* the graph compiled: the caller's, or (accel) copy */
  ovta_graph *copy;         /* accel: the copy of the caller's graph the passes rewrite (owned) */
  ovta_exec *e;             /* the executor being filled */
  FILE *rep;                /* accel: the compile report, written into rtext */
  char *rtext;              /* its text */
  size_t rlen;              /* its length */
  int nplan;                /* accel: nodes planned for the accelerator, in node order */
  const ovta_node **planned;/* those nodes */
  vta_plan *plans;          /* their plans */
  const vta_plan **plan;    /* accel: the plan of node i (NULL: the node runs on the CPU) */
  vta_kernel **kern;        /* accel: the kernel of node i (NULL: the node runs on the CPU) */
  int *map;                 /* graph tensor -> exec tensor (-1: no step uses it) */
  int *src;                 /* exec tensor -> graph tensor (-1: an ACC bias / identity block) */
  int *def, *last;          /* liveness: producing step (-1: graph input), last step reading it */
  bool *dma;                /* graph tensor lives in its own DMA buffer */
  int *bias_t;              /* exec tensor of node i's ACC bias or identity block (-1: none) */
  lir_module *m;            /* the LLVM module holding every node's function */
  lir_func **pre;           /* node i's function lowered early with f32 weights (cpu_f32_weights), or NULL */
  bool *f32w;               /* graph tensor (8-bit constant weights) stored in params as f32 */
  bool *halo;               /* graph tensor stored half-major with halo rows (cpu_half_major; more bytes) */
  int vec_bits;             /* the module's preferred vector width (lir_module_vector_bits): the CPU lowerings' */
  int *fused;               /* accel: node i, a conv/dense, computes the residual add node fused[i] too (-1: none) */
  bool *skip;               /* accel: node i is such an add (no step of its own) */
  int *ident_t;             /* exec tensor of node i's fused add's identity block (-1: none) */
} build;

/* The plan of node s, or NULL when it runs on the CPU. */
static const vta_plan *plan_of(const build *b, int s) { return b->plan ? b->plan[s] : NULL; }

/* Guarantees: b->o points to options (the defaults when o is NULL), nothing allocated. */
static void build_init(build *b, ovta_graph *g, const ovta_exec_opts *o, ovta_exec_opts *dflt) {
  memset(b, 0, sizeof *b);
  if (!o) {
    ovta_exec_opts_init(dflt);
    o = dflt;
  }
  b->o = o;
  b->g = g;
}

/* Guarantees: the caller's graph inferred (types and shapes recomputed, not trusted). */
static int infer_graph(build *b, ovta_error *err) {
  return needs_infer(b->g) ? ovta_infer_graph(b->g, err) : 0;
}

/* Guarantees: an empty executor; accel: its config (the options' or "default"), the report
 * stream open, and from here on b->g is a copy of the caller's graph (the caller's is not
 * modified by the accelerator passes). */
static int new_exec(build *b, ovta_error *err) {
  int rc;
  if (!(b->e = calloc(1, sizeof *b->e)))
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", b->g->name);
  if (!b->o->accel) return 0;
  if (b->o->cfg) b->e->p.cfg = *b->o->cfg;
  else if ((rc = ovta_config_load("default", &b->e->p.cfg, err))) return rc;
  b->e->p.accel = true;
  b->rep = open_memstream(&b->rtext, &b->rlen);
  b->copy = ovta_graph_clone(b->g);
  if (!b->copy || !b->rep) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", b->g->name);
  b->g = b->copy;
  return 0;
}

/* Accel only. Guarantees: the graph packed and partitioned (the pack / partition passes, when the
 * caller's pipeline has not run them: exec_accel_needs), and indexed. */
static int prepare_accel(ovta_graph *g, const ovta_config *cfg, ovta_timing *timing, ovta_error *err) {
  bool need_pack, need_part;
  exec_accel_needs(g, &need_pack, &need_part);
  int rc = 0;
  if (need_pack || need_part) {
    ovta_compile_opts co = {0};
    co.cfg = cfg;
    co.passes = need_pack ? "pack,partition" : "partition";
    co.timing = timing;
    if ((rc = ovta_compile_pipeline(g, &co, err))) return rc;
  }
  return ovta_graph_index(g, err);
}

static int accel_passes(build *b, ovta_error *err) {
  if (!b->o->accel) return 0;
  return prepare_accel(b->g, &b->e->p.cfg, b->o->timing, err);
}

int ovta_graph_prepare_accel(ovta_graph *g, const ovta_config *cfg, ovta_error *err) {
  return prepare_accel(g, cfg, NULL, err);
}

/* The accelerator plan of node n (operator, knobs from the tuning JSON, tiling), or why it runs
 * on the CPU (OVTA_EUNSUPPORTED: partitioned there, or refused by the accelerator). */
static int plan_node(const build *b, const ovta_node *n, vta_plan *p, ovta_error *err) {
  vta_op op;
  vta_knobs k = {.vthreads = b->o->vthreads};
  int rc;
  if (n->target != OVTA_TARGET_ACCEL)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): partitioned to the cpu", n->name, n->op);
  if ((rc = vta_op_from_node(b->g, n, &b->e->p.cfg, &op, err))) return rc;
  if (b->o->tuning_json && (rc = vta_knobs_from_json(b->o->tuning_json, "tuning", n->name, &k, err))) return rc;
  return vta_plan_make(&b->e->p.cfg, &op, &k, p, err);
}

/* Node *pi, which the accelerator does not run (why), moved back to the plain layout for the CPU
 * path (Unpack, the node, Pack; *pi moves to the node), with the reason in the report. */
static int fall_back_to_cpu(build *b, int *pi, const ovta_error *why, ovta_error *err) {
  char name[128], opn[48];
  snprintf(name, sizeof name, "%s", b->g->nodes[*pi]->name), snprintf(opn, sizeof opn, "%s", b->g->nodes[*pi]->op);
  int rc = exec_unpack_node(b->g, pi, &b->e->p.cfg, err);
  if (rc) return rc;
  if (b->rep) fprintf(b->rep, "node %s op %s: cpu (fallback, plain layout): %s\n", name, opn, why->msg);
  return 0;
}

/* Guarantees: b->plan[i] is the plan of node i of the final graph (NULL: CPU), b->kern ready for
 * the kernels. The nodes planned keep their index: fallbacks insert only after them. */
static int index_plans(build *b, ovta_error *err) {
  const ovta_graph *g = b->g;
  b->plan = calloc((size_t)g->n_nodes + 1, sizeof *b->plan);
  b->kern = calloc((size_t)g->n_nodes + 1, sizeof *b->kern);
  if (!b->plan || !b->kern) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int j = 0;
  for (int i = 0; i < g->n_nodes && j < b->nplan; i++)
    if (b->planned[j] == g->nodes[i]) b->plan[i] = &b->plans[j++];
  if (j != b->nplan) return OVTA_FAIL(err, OVTA_EINTERNAL, "graph %s: accelerator plans out of node order", g->name);
  return 0;
}

/* Accel only. Guarantees: every accelerator operator on the packed layout (accel_op) is planned
 * once, and that plan is the one its lowering compiles; a node partition left on the CPU, or one
 * the accelerator refuses, is on the CPU path in the plain layout (the reason in the report). The
 * graph does not change after this step. */
static int plan_accel_nodes(build *b, ovta_error *err) {
  if (!b->o->accel) return 0;
  ovta_graph *g = b->g;
  b->plans = calloc((size_t)g->n_nodes + 1, sizeof *b->plans);
  b->planned = calloc((size_t)g->n_nodes + 1, sizeof *b->planned);
  if (!b->plans || !b->planned) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    if (!accel_op(n) || !n->inputs[0] || n->inputs[0]->layout != OVTA_LAYOUT_ACT) continue;
    ovta_error why = {0};
    int rc = plan_node(b, n, &b->plans[b->nplan], &why);
    if (rc == OVTA_ENOMEM || rc == OVTA_EINTERNAL || rc == OVTA_EPARSE) {
      *err = why;
      return rc;
    }
    if (!rc) b->planned[b->nplan++] = n;
    else if ((rc = fall_back_to_cpu(b, &i, &why, err))) return rc;
  }
  return index_plans(b, err);
}

/* The node producing tensor t (-1: none, a graph input or constant) and the number of node inputs
 * reading it. */
static int producer(const ovta_graph *g, const ovta_tensor *t, int *uses) {
  int p = -1;
  *uses = 0;
  for (int s = 0; s < g->n_nodes; s++) {
    for (int k = 0; k < g->nodes[s]->n_inputs; k++) *uses += g->nodes[s]->inputs[k] == t;
    for (int k = 0; k < g->nodes[s]->n_outputs; k++)
      if (g->nodes[s]->outputs[k] == t) p = s;
  }
  for (int i = 0; i < g->n_outputs; i++) *uses += g->outputs[i] == t; /* a graph output is one more use */
  return p;
}

bool ovta_fuse_adds_on(void) {
  const char *v = getenv("OVTA_FUSE_ADD");
  return !v || strcmp(v, "0");
}

int ovta_add_fusion_candidates(const ovta_graph *g, int s2, int s[2], int k[2]) {
  if (s2 < 0 || s2 >= g->n_nodes || g->nodes[s2]->n_inputs != 2) return 0;
  int pr[2], uses[2], n = 0;
  for (int i = 0; i < 2; i++) pr[i] = producer(g, g->nodes[s2]->inputs[i], &uses[i]);
  for (int t = 0; t < 2; t++) {
    int i = (pr[0] > pr[1]) == (t == 0) ? 0 : 1; /* the later producer first */
    if (pr[i] >= 0 && uses[i] == 1 && pr[1 - i] < pr[i]) s[n] = pr[i], k[n++] = i;
  }
  return n;
}

/* Accel only. Rule: an ovta.QAdd node s2 planned for the accelerator (VTA_ADD) one of whose inputs
 * k is the output of a conv/dense node s planned for the accelerator, read by s2 alone (one use,
 * not a graph output), whose other input is produced before s (by a node s' < s, or a graph
 * input; ovta_add_fusion_candidates), becomes part of s: s's op gets the add (vta_op_fuse_add:
 * the conv's output's shift, the other's, the add's shift and clip) and is planned again with the
 * same knobs (a tuning file's for s: `ovta tune` tunes s with the add); when that plan is
 * made, fused[s] = s2 and skip[s2] (the add has no step: s computes its output from the other
 * input, compiler/accel/README.md "Fused residual add"), else both stay as they were. Of the two
 * inputs the later producer is taken (ResNet's downsample blocks: the 1x1 conv after the block's
 * second conv). Guarantees: the graph unchanged; the CPU path's nodes untouched. */
static int fuse_adds(build *b, ovta_error *err) {
  const ovta_graph *g = b->g;
  int nn = g->n_nodes;
  b->fused = malloc(sizeof(int) * (size_t)(nn + 1)), b->skip = calloc((size_t)nn + 1, sizeof *b->skip);
  if (!b->fused || !b->skip) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  for (int s = 0; s < nn; s++) b->fused[s] = -1;
  if (!b->o->accel || !ovta_fuse_adds_on()) return 0;
  for (int s2 = 0; s2 < nn; s2++) {
    const vta_plan *pa = plan_of(b, s2);
    int cs[2], ck[2], nc = pa && pa->op.kind == VTA_ADD ? ovta_add_fusion_candidates(g, s2, cs, ck) : 0;
    for (int t = 0; t < nc; t++) {
      int k = ck[t], s = cs[t];
      const vta_plan *pc = plan_of(b, s);
      if (!pc || (pc->op.kind != VTA_CONV && pc->op.kind != VTA_DENSE) || pc->op.res) continue;
      vta_op op = pc->op;
      vta_op_fuse_add(&op, k ? pa->op.shift_b : pa->op.shift_a, k ? pa->op.shift_a : pa->op.shift_b, pa->op.shift,
                      pa->op.clip_min, pa->op.clip_max);
      vta_knobs kn = {.vthreads = b->o->vthreads};
      ovta_error why = {0};
      vta_plan np;
      if (b->o->tuning_json && vta_knobs_from_json(b->o->tuning_json, "tuning", g->nodes[s]->name, &kn, &why)) continue;
      int rc = vta_plan_make(&b->e->p.cfg, &op, &kn, &np, &why);
      if (rc == OVTA_ENOMEM) return OVTA_FAIL(err, rc, "%s", why.msg);
      if (rc) continue; /* the add keeps its own step */
      *(vta_plan *)b->plan[s] = np;
      b->fused[s] = s2, b->skip[s2] = true;
      break;
    }
  }
  return 0;
}

/* The other input of the add fused into node s (its r operand). */
static const ovta_tensor *res_operand(const build *b, int s) {
  const ovta_node *a = b->g->nodes[b->fused[s]], *n = b->g->nodes[s];
  return a->inputs[0] == n->outputs[0] ? a->inputs[1] : a->inputs[0];
}

/* A CPU conv node whose 8-bit weights could be passed as f32: ovta.QConv / ConvInteger with a
 * constant int8 / uint8 input 1 in the plain layout. */
static bool f32w_candidate(const build *b, int s) {
  const ovta_node *n = b->g->nodes[s];
  if (plan_of(b, s) || (strcmp(n->op, "ovta.QConv") && strcmp(n->op, "ConvInteger")) || n->n_inputs < 2) return false;
  const ovta_tensor *w = n->inputs[1];
  return w && w->kind == OVTA_TK_CONST && w->data && w->layout == OVTA_LAYOUT_PLAIN &&
         (w->dtype == OVTA_DT_I8 || w->dtype == OVTA_DT_U8);
}

static void cpu_kernel_name(const ovta_node *n, int s, char *fname, size_t len);

/* Guarantees: pre[s]: the function of each CPU 8-bit conv whose schedule reads its weights as
 * f32 (lir_lower_node_f32w: where converting each block's weights on every call would cost),
 * and f32w: their weight tensors, which the tensor table then holds as f32 (the same integers,
 * converted once here: 4 bytes per weight in params.bin instead of 1) — only when every reader
 * of the tensor is such a node. The others are lowered later as usual. */
static int cpu_f32_weights(build *b, ovta_error *err) {
  const ovta_graph *g = b->g;
  b->pre = calloc((size_t)g->n_nodes + 1, sizeof *b->pre);
  b->f32w = calloc((size_t)g->n_tensors + 1, sizeof *b->f32w);
  if (!b->pre || !b->f32w) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  for (int s = 0; s < g->n_nodes; s++) {
    if (!f32w_candidate(b, s)) continue;
    char fname[96];
    ovta_error why = {0};
    cpu_kernel_name(g->nodes[s], s, fname, sizeof fname);
    int rc = lir_lower_node_f32w(g, g->nodes[s], fname, b->vec_bits, &b->pre[s], &why);
    if (rc == OVTA_ENOMEM) return OVTA_FAIL(err, rc, "%s", why.msg);
    if (!rc) b->f32w[tindex(g, g->nodes[s]->inputs[1])] = true; /* else: lowered as usual (an error shows then) */
  }
  /* a weight tensor read by any other node keeps its type, and its readers their usual lowering */
  for (int s = 0; s < g->n_nodes; s++)
    for (int k = 0; k < g->nodes[s]->n_inputs; k++) {
      const ovta_tensor *t = g->nodes[s]->inputs[k];
      int x = t ? tindex(g, t) : -1;
      if (x >= 0 && b->f32w[x] && (k != 1 || !b->pre[s])) b->f32w[x] = false;
    }
  for (int s = 0; s < g->n_nodes; s++)
    if (b->pre[s] && !b->f32w[tindex(g, g->nodes[s]->inputs[1])]) lir_func_free(b->pre[s]), b->pre[s] = NULL;
  return 0;
}

/* A CPU conv (Conv, ovta.Conv) or Add not lowered yet: the nodes whose schedules (the float
 * pointwise and depthwise convs, Adds of maps of one shape) may store a map half-major. */
static bool hm_candidate(const build *b, int s) {
  const ovta_node *n = b->g->nodes[s];
  return !plan_of(b, s) && !b->pre[s] && (!strcmp(n->op, "Conv") || !strcmp(n->op, "ovta.Conv") || !strcmp(n->op, "Add")) &&
         n->n_outputs >= 1;
}

/* The half-major tensors (cpu.h lir_lower_opts): hm[x] for graph tensor x produced by a
 * candidate that can write it (output 0) and read only by candidates that can read it, never a
 * graph output; halo[x] (with halo rows) for those whose producer can write and every reader
 * read them so and one reader gains (a depthwise conv in row halves), unless halo_off. o: each
 * candidate's can_* / gain_halo_in, 0 elsewhere. */
static void hm_tensors(const ovta_graph *g, const lir_lower_opts *o, const bool *cand, bool halo_off, bool *hm, bool *halo) {
  bool *gain = calloc((size_t)g->n_tensors + 1, sizeof *gain); /* NULL: no halo rows */
  for (int s = 0; s < g->n_nodes; s++)
    if (cand[s] && (o[s].can_out & 1) && g->nodes[s]->outputs[0]) {
      int x = tindex(g, g->nodes[s]->outputs[0]);
      hm[x] = true, halo[x] = !halo_off && gain && (o[s].can_halo_out & 1);
    }
  for (int i = 0; i < g->n_outputs; i++)
    if (g->outputs[i]) hm[tindex(g, g->outputs[i])] = false;
  for (int s = 0; s < g->n_nodes; s++)
    for (int k = 0; k < g->nodes[s]->n_inputs; k++) {
      const ovta_tensor *t = g->nodes[s]->inputs[k];
      int x = t ? tindex(g, t) : -1;
      if (x < 0) continue;
      bool in = cand[s] && k < 32;
      if (hm[x] && !(in && (o[s].can_in >> k & 1))) hm[x] = false;
      if (halo[x] && !(in && (o[s].can_halo_in >> k & 1))) halo[x] = false;
      if (gain && in && (o[s].gain_halo_in >> k & 1)) gain[x] = true;
    }
  for (int x = 0; x < g->n_tensors; x++) halo[x] = hm[x] && halo[x] && gain && gain[x];
  free(gain);
}

/* Guarantees: pre[s] of every CPU float conv (hm_candidate) lowered here: once with plain
 * tensors, which tells where its schedule could read or write a map half-major (compiler/cpu
 * README.md "Half-major maps": each thread's rows of every channel contiguous), then, where a
 * tensor's producer and all its readers can (hm_tensors), again with those tensors half-major.
 * A candidate that fails to lower is left to lower_nodes (its error shows there).
 * OVTA_HALF_MAJOR=0 in the environment: every map plain; OVTA_HALO=1: with halo rows (off by
 * default: on Zen 4 since the 4-channel pointwise tiles, MobileNetV2 ran 4% faster without them
 * with 1 and 2 threads, the halo positions computed twice costing more than the reads across
 * the split they save; bench/README.md "Issue 16 (2026-11-28 11:15)"). */
static int cpu_half_major(build *b, ovta_error *err) {
  const ovta_graph *g = b->g;
  const char *env = getenv("OVTA_HALF_MAJOR");
  if (env && !strcmp(env, "0")) return 0;
  lir_lower_opts *o = calloc((size_t)g->n_nodes + 1, sizeof *o);
  bool *cand = calloc((size_t)g->n_nodes + 1, sizeof *cand), *hm = calloc((size_t)g->n_tensors + 1, sizeof *hm);
  b->halo = calloc((size_t)g->n_tensors + 1, sizeof *b->halo);
  int rc = o && cand && hm && b->halo ? 0 : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  const char *he = getenv("OVTA_HALO");
  char fname[96];
  for (int s = 0; s < g->n_nodes && !rc; s++) {
    if (!hm_candidate(b, s)) continue;
    ovta_error why = {0};
    cpu_kernel_name(g->nodes[s], s, fname, sizeof fname);
    o[s].vec_bits = b->vec_bits;
    int r = lir_lower_node_opts(g, g->nodes[s], fname, &o[s], &b->pre[s], &why);
    if (r == OVTA_ENOMEM) rc = OVTA_FAIL(err, r, "%s", why.msg);
    cand[s] = !r;
  }
  if (!rc) hm_tensors(g, o, cand, !(he && !strcmp(he, "1")), hm, b->halo);
  for (int s = 0; s < g->n_nodes && !rc; s++) {
    const ovta_node *n = g->nodes[s];
    if (!cand[s]) continue;
    o[s].half_in = o[s].half_out = o[s].halo_in = o[s].halo_out = 0;
    for (int k = 0; k < n->n_inputs && k < 32; k++)
      if (n->inputs[k] && hm[tindex(g, n->inputs[k])])
        o[s].half_in |= 1u << k, o[s].halo_in |= b->halo[tindex(g, n->inputs[k])] ? 1u << k : 0u;
    if (n->outputs[0] && hm[tindex(g, n->outputs[0])]) o[s].half_out = 1, o[s].halo_out = b->halo[tindex(g, n->outputs[0])];
    if (!o[s].half_in && !o[s].half_out) continue;
    lir_func_free(b->pre[s]), b->pre[s] = NULL;
    cpu_kernel_name(n, s, fname, sizeof fname);
    rc = lir_lower_node_opts(g, n, fname, &o[s], &b->pre[s], err);
  }
  free(o), free(cand), free(hm);
  return rc;
}

/* Guarantees: b->m, the (empty) module every node's function goes into, for the target of the
 * options; b->vec_bits its preferred vector width, which the CPU lowerings size register tiles by. */
static int new_module(build *b, ovta_error *err) {
  int rc = lir_module_new(b->g->name ? b->g->name : "graph", &b->o->cg, &b->m, err);
  if (!rc) b->vec_bits = lir_module_vector_bits(b->m);
  return rc;
}

/* Guarantees: def / last of every graph tensor: the producing step (-1: a graph input) and the
 * last step reading it (graph inputs and outputs: past the last step, so inputs stay intact and
 * a plan can run again on them); -2 for both when no step uses it. dma: x, w and y of every
 * accelerator node. */
static int live_ranges(build *b, ovta_error *err) {
  const ovta_graph *g = b->g;
  int nt = g->n_tensors;
  b->map = malloc(sizeof(int) * (size_t)(nt + 1));
  b->def = malloc(sizeof(int) * (size_t)(nt + 1)), b->last = malloc(sizeof(int) * (size_t)(nt + 1));
  b->dma = calloc((size_t)nt + 1, sizeof *b->dma);
  if (!b->map || !b->def || !b->last || !b->dma)
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  for (int i = 0; i < nt; i++) b->map[i] = -1, b->def[i] = -2, b->last[i] = -2;
  for (int s = 0; s < g->n_nodes; s++)
    if (plan_of(b, s)) {
      const ovta_node *n = g->nodes[s];
      b->dma[tindex(g, n->inputs[0])] = b->dma[tindex(g, n->outputs[0])] = true;
      b->dma[tindex(g, w_operand(n))] = true;
    }
  for (int i = 0; i < g->n_inputs; i++) {
    int k = tindex(g, g->inputs[i]);
    b->def[k] = -1;
    b->last[k] = g->n_nodes;
  }
  for (int s = 0; s < g->n_nodes; s++) {
    const ovta_node *n = g->nodes[s];
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k]) {
        int x = tindex(g, n->inputs[k]);
        if (x >= 0 && s > b->last[x]) b->last[x] = s;
      }
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k]) {
        int x = tindex(g, n->outputs[k]);
        b->def[x] = s;
        if (b->last[x] < s) b->last[x] = s;
      }
  }
  for (int i = 0; i < g->n_outputs; i++) b->last[tindex(g, g->outputs[i])] = g->n_nodes;
  return 0;
}

/* Graph tensor i as the next exec tensor: static dtype and shape (within MAX_ARENA), a constant
 * with all its data; where it lives (params, its DMA buffer or the arena), not yet the offset. */
static int add_tensor(build *b, int i, ovta_error *err) {
  ovta_exec *e = b->e;
  const ovta_tensor *t = b->g->tensors[i];
  xtensor *x = &e->p.t[e->p.nt];
  if (t->dtype == OVTA_DT_UNDEF || t->dtype == OVTA_DT_STRING)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tensor %s: dtype %s is not supported by the executor", t->name,
                     ovta_dtype_name(t->dtype));
  if (ovta_tensor_numel(t) < 0)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tensor %s: the shape is not static", t->name);
  if ((uint64_t)ovta_tensor_numel(t) > MAX_ARENA / ovta_dtype_size(t->dtype))
    return OVTA_FAIL(err, OVTA_ENOMEM, "tensor %s: %lld elements of %s, above the limit of %zu bytes (16 GiB)", t->name,
                     (long long)ovta_tensor_numel(t), ovta_dtype_name(t->dtype), MAX_ARENA);
  size_t nbytes = (size_t)ovta_tensor_numel(t) * ovta_dtype_size(t->dtype);
  if (t->kind == OVTA_TK_CONST && (!t->data || t->nbytes != nbytes))
    return OVTA_FAIL(err, OVTA_EINVAL, "constant %s: %zu bytes of data, shape needs %zu", t->name, t->nbytes, nbytes);
  bool f32 = b->f32w && b->f32w[i]; /* 8-bit weights held as f32 (cpu_f32_weights) */
  x->name = strdup(t->name);
  x->dtype = f32 ? OVTA_DT_F32 : t->dtype;
  x->rank = t->rank;
  memcpy(x->shape, t->shape, sizeof x->shape);
  x->nbytes = f32 ? nbytes * 4 : nbytes;
  if (b->halo && b->halo[i]) x->nbytes = (size_t)lir_half_major_numel(t) * ovta_dtype_size(t->dtype); /* both copies of the halo rows */
  x->dma = b->dma[i];
  x->where = t->kind == OVTA_TK_CONST ? OVTA_PLAN_PARAMS : b->dma[i] ? OVTA_PLAN_DMA : OVTA_PLAN_ARENA;
  b->src[e->p.nt] = i;
  b->map[i] = e->p.nt++;
  return 0;
}

/* Node s's extra constant on the accelerator, when it has one: the bias expanded to ACC elements
 * [O/BO][B][BO] (vta_pack_bias, named BIAS.acc), or for an ALU operator the identity weight block
 * (vta_pack_identity, NODE.ident) in the bias slot. The graph's bias must cover every channel. */
static int add_accel_bias(build *b, int s, ovta_error *err) {
  ovta_exec *e = b->e;
  const vta_plan *p = plan_of(b, s);
  const ovta_node *n = b->g->nodes[s];
  b->bias_t[s] = -1;
  if (!p || (!p->op.has_bias && !alu_kind(p))) return 0;
  bool alu = alu_kind(p);
  const ovta_tensor *bias = alu ? NULL : n->inputs[2];
  if (bias && (bias->nbytes < (size_t)p->op.o * 4 || !bias->data))
    return OVTA_FAIL(err, OVTA_EINVAL, "node %s: bias %s has %zu bytes, %d channels need %d", n->name, bias->name,
                     bias->nbytes, p->op.o, p->op.o * 4);
  xtensor *x = &e->p.t[e->p.nt];
  char nm[600];
  if (alu) snprintf(nm, sizeof nm, "%s.ident", n->name);
  else snprintf(nm, sizeof nm, "%s.acc", bias->name);
  x->name = strdup(nm);
  x->dtype = alu ? OVTA_DT_I8 : OVTA_DT_I32;
  x->nbytes = vta_bias_bytes(p);
  x->rank = 1;
  x->shape[0] = (int64_t)(x->nbytes / (alu ? 1 : 4));
  x->dma = true;
  x->where = OVTA_PLAN_PARAMS;
  b->src[e->p.nt] = -1;
  b->bias_t[s] = e->p.nt++;
  return 0;
}

/* Guarantees: the exec tensor table: the graph inputs first, then every other tensor a step uses
 * in graph order, then the accelerator nodes' extra constants (add_accel_bias), each checked and
 * with where it lives; the graph inputs and outputs by exec tensor. */
static int number_tensors(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  const ovta_graph *g = b->g;
  int nt = g->n_tensors, nn = g->n_nodes, rc;
  e->p.t = calloc((size_t)(nt + 2 * nn) + 1, sizeof *e->p.t);
  e->p.s = calloc((size_t)nn + 1, sizeof *e->p.s);
  e->p.in = calloc((size_t)g->n_inputs + 1, sizeof(int));
  e->p.out = calloc((size_t)g->n_outputs + 1, sizeof(int));
  b->src = calloc((size_t)(nt + 2 * nn) + 1, sizeof *b->src);
  b->bias_t = calloc((size_t)nn + 1, sizeof *b->bias_t);
  if (!e->p.t || !e->p.s || !e->p.in || !e->p.out || !b->src || !b->bias_t)
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  for (int pass = 0; pass < 2; pass++) /* the graph inputs, then the rest */
    for (int i = 0; i < nt; i++) {
      bool is_input = b->def[i] == -1 && g->tensors[i]->kind == OVTA_TK_INPUT;
      if ((b->last[i] == -2 && b->def[i] == -2) || (pass == 0) != is_input) continue;
      if ((rc = add_tensor(b, i, err))) return rc;
    }
  for (int s = 0; s < nn; s++)
    if ((rc = add_accel_bias(b, s, err))) return rc;
  b->ident_t = malloc(sizeof(int) * (size_t)(nn + 1));
  if (!b->ident_t) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  for (int s = 0; s < nn; s++) { /* a fused add's identity block (vta_pack_res_ident), NODE.res_ident */
    b->ident_t[s] = -1;
    if (!b->fused || b->fused[s] < 0) continue;
    xtensor *x = &e->p.t[e->p.nt];
    char nm[600];
    snprintf(nm, sizeof nm, "%s.res_ident", g->nodes[s]->name);
    x->name = strdup(nm);
    x->dtype = OVTA_DT_I8;
    x->nbytes = vta_res_ident_bytes(plan_of(b, s));
    x->rank = 1, x->shape[0] = (int64_t)x->nbytes;
    x->dma = true, x->where = OVTA_PLAN_PARAMS;
    b->src[e->p.nt] = -1;
    b->ident_t[s] = e->p.nt++;
  }
  for (int i = 0; i < g->n_inputs; i++) e->p.in[e->p.nin++] = b->map[tindex(g, g->inputs[i])];
  for (int i = 0; i < g->n_outputs; i++) e->p.out[e->p.nout++] = b->map[tindex(g, g->outputs[i])];
  return 0;
}

/* One node's line of the compile report: accel with its tiling and counts (k), else cpu and the
 * accelerator target's reason (ovta_accel_why_not). */
static void report_line(FILE *rep, const ovta_graph *g, const ovta_node *n, const vta_kernel *k, const vta_counts *c) {
  if (!rep) return;
  if (!k) {
    char why[256];
    const char *r = ovta_accel_why_not(g, n, why, sizeof why);
    fprintf(rep, "node %s op %s: cpu: %s\n", n->name, n->op, r ? r : "partitioned to the cpu");
    return;
  }
  char ps[256];
  vta_plan_str(vta_kernel_plan(k), ps, sizeof ps);
  fprintf(rep,
          "node %s op %s: accel: %s; insns %llu (load %llu, acc-load %llu, gemm %llu, alu %llu, store %llu), "
          "kernels %llu, uops recorded %llu, gemm uops %llu, alu uops %llu\n",
          n->name, n->op, ps, (unsigned long long)c->insns, (unsigned long long)c->insns_load,
          (unsigned long long)c->insns_acc_load, (unsigned long long)c->insns_gemm, (unsigned long long)c->insns_alu,
          (unsigned long long)c->insns_store, (unsigned long long)c->kernels, (unsigned long long)c->uops_recorded,
          (unsigned long long)c->gemm_uops, (unsigned long long)c->alu_uops);
}

/* Function name of CPU node s: ovta_kS_OP (OP with characters other than letters and digits as _). */
static void cpu_kernel_name(const ovta_node *n, int s, char *fname, size_t len) {
  char opn[48];
  size_t k = 0;
  for (const char *p = n->op; *p && k < sizeof opn - 1; p++)
    opn[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_';
  opn[k] = 0;
  snprintf(fname, len, "ovta_k%d_%s", s, opn);
}

/* The next step of the plan (not yet counted in e->p.ns): node n calling fn with room for nargs
 * arguments, no DMA buffers, the node's op and MACs for profilers. */
static xstep *new_step(build *b, const ovta_node *n, const char *fn, int nargs) {
  xstep *st = &b->e->p.s[b->e->p.ns];
  st->node = strdup(n->name);
  st->fn = strdup(fn);
  for (int v = 0; v < OVTA_VBUF_COUNT; v++) st->vb[v] = -1;
  st->args = calloc((size_t)nargs + 1, sizeof(int));
  st->op = strdup(n->op), st->macs = ovta_node_macs(n);
  return st;
}

/* Accelerator node s: its plan compiled through the accel layer's stages (vta_compile_ex: compute
 * .. host) into the host function ovta_kS_vta, added to the module; its step calls that with the
 * DMA buffers of x, w (x for ovta.QMaxPool / QGlobalAvgPool / a packed Resize, which have no w and never read it), the ACC bias or
 * identity block, and y. */
static int lower_accel_node(build *b, int s, ovta_error *err) {
  const ovta_graph *g = b->g;
  const ovta_node *n = g->nodes[s];
  char sym[64], ps[256];
  snprintf(sym, sizeof sym, "ovta_k%d_vta", s);
  vta_compile_opts co = {.no_jit = true, .symbol = sym};
  vta_counts c;
  ovta_timing *tm = b->o->timing;
  ovta_timing_begin(tm, "accel stages (compute .. host IR)");
  int rc = vta_compile_ex(plan_of(b, s), &co, &b->kern[s], err);
  ovta_timing_end(tm);
  ovta_timing_begin(tm, "counts (dry walk of the host IR)");
  if (!rc) rc = vta_kernel_count(b->kern[s], &c, err);
  ovta_timing_end(tm);
  ovta_timing_begin(tm, "host IR into the LLVM module");
  if (!rc) rc = vta_kernel_module_add(b->kern[s], b->m, err);
  ovta_timing_end(tm);
  if (rc) {
    ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
    return rc;
  }
  if (b->o->dump_lir) lir_dump(b->o->dump_lir, vta_kernel_host(b->kern[s]));
  report_line(b->rep, g, n, b->kern[s], &c);
  vta_plan_str(vta_kernel_plan(b->kern[s]), ps, sizeof ps);
  xstep *st = new_step(b, n, vta_kernel_host(b->kern[s])->name, 0);
  st->vta = true;
  st->detail = strdup(ps);
  st->insns = c.insns, st->uops_recorded = c.uops_recorded, st->kernels = c.kernels;
  st->vb[VTA_BUF_X] = b->map[tindex(g, n->inputs[0])];
  st->vb[VTA_BUF_W] = b->map[tindex(g, w_operand(n))];
  st->vb[VTA_BUF_BIAS] = b->bias_t[s];
  st->vb[VTA_BUF_Y] = b->map[tindex(g, n->outputs[0])];
  if (b->fused[s] >= 0) { /* the fused add's output, its other input and identity block */
    st->vb[VTA_BUF_Y] = b->map[tindex(g, g->nodes[b->fused[s]]->outputs[0])];
    st->vb[VTA_BUF_R] = b->map[tindex(g, res_operand(b, s))];
    st->vb[VTA_BUF_ID] = b->ident_t[s];
  }
  b->e->p.ns++;
  return 0;
}

/* CPU node s: lowered to loop IR by the CPU layer (cpu.h lir_lower_node; ovta.Pack / ovta.Unpack
 * by exec_lower_layout, a packed Concat by exec_lower_packed_concat) as ovta_kS_OP, added to the module; its step passes the node's tensors,
 * inputs then outputs. */
static int lower_cpu_node(build *b, int s, ovta_error *err) {
  const ovta_graph *g = b->g;
  const ovta_node *n = g->nodes[s];
  char fname[96];
  cpu_kernel_name(n, s, fname, sizeof fname);
  lir_func *f = b->pre[s];
  int rc = 0;
  b->pre[s] = NULL;
  if (f) ; /* lowered by cpu_f32_weights or cpu_half_major */
  else if (!strcmp(n->op, "ovta.Pack") || !strcmp(n->op, "ovta.Unpack")) rc = exec_lower_layout(g, n, fname, &f, err);
  else if (!strcmp(n->op, "Concat") && n->n_outputs == 1 && n->outputs[0] && n->outputs[0]->layout == OVTA_LAYOUT_ACT)
    rc = exec_lower_packed_concat(g, n, fname, &f, err);
  else rc = lir_lower_node_opts(g, n, fname, &(lir_lower_opts){.vec_bits = b->vec_bits}, &f, err);
  if (rc) return rc;
  if (b->e->p.accel) report_line(b->rep, g, n, NULL, NULL);
  if (b->o->dump_lir) lir_dump(b->o->dump_lir, f);
  rc = lir_module_add(b->m, f, err);
  lir_func_free(f);
  if (rc) {
    ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
    return rc;
  }
  xstep *st = new_step(b, n, fname, n->n_inputs + n->n_outputs);
  for (int q = 0; q < n->n_inputs; q++)
    if (n->inputs[q]) st->args[st->nargs++] = b->map[tindex(g, n->inputs[q])];
  for (int q = 0; q < n->n_outputs; q++)
    if (n->outputs[q]) st->args[st->nargs++] = b->map[tindex(g, n->outputs[q])];
  b->e->p.ns++;
  return 0;
}

/* Guarantees: every node lowered, in node order, into one LLVM module, one step each (accelerator
 * nodes by lower_accel_node, the others by lower_cpu_node); with --dump-lir its loop IR printed,
 * and (accel) its line in the report. */
static int lower_nodes(build *b, ovta_error *err) {
  int rc = 0;
  for (int s = 0; !rc && s < b->g->n_nodes; s++) {
    if (b->skip[s]) { /* an add fused into the conv producing one of its inputs */
      const ovta_node *a = b->g->nodes[s];
      int c = 0;
      while (b->fused[c] != s) c++;
      if (b->rep) fprintf(b->rep, "node %s op %s: accel: fused into node %s\n", a->name, a->op, b->g->nodes[c]->name);
      continue;
    }
    ovta_timing_begin(b->o->timing, plan_of(b, s) ? "accelerator nodes" : "CPU nodes (loop IR into the LLVM module)");
    rc = plan_of(b, s) ? lower_accel_node(b, s, err) : lower_cpu_node(b, s, err);
    ovta_timing_end(b->o->timing);
  }
  return rc;
}

/* Guarantees: the module optimized and, when there is a step, emitted as one object file in
 * memory (e->obj); the machine it is for (triple, CPU, features) recorded. */
static int emit_object(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  ovta_timing_begin(b->o->timing, "LLVM optimize (O%d)", b->o->cg.opt_level);
  int rc = lir_module_optimize(b->m, err);
  ovta_timing_end(b->o->timing);
  if (rc) return rc;
  ovta_timing_begin(b->o->timing, "LLVM object code");
  if (e->p.ns) rc = lir_module_emit_object_mem(b->m, &e->obj, &e->obj_len, err);
  ovta_timing_end(b->o->timing);
  if (rc) return rc;
  const char *tt, *tc, *tf;
  lir_module_target(b->m, &tt, &tc, &tf);
  e->p.triple = strdup(tt), e->p.cpu = strdup(tc), e->p.features = strdup(tf);
  if (!e->p.triple || !e->p.cpu || !e->p.features) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  return 0;
}

/* Guarantees: params.bin's contents: the graph's constants copied, the accelerator's extra
 * constants packed (vta_pack_bias / vta_pack_identity), the gaps zero. */
static int fill_params(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  e->p.params = malloc(e->p.params_size ? e->p.params_size : 1);
  if (!e->p.params) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %zu bytes of params", e->p.params_size);
  memset(e->p.params, 0, e->p.params_size);
  for (int x = 0; x < e->p.nt; x++) {
    if (b->src[x] < 0 || e->p.t[x].where != OVTA_PLAN_PARAMS) continue;
    const ovta_tensor *t = b->g->tensors[b->src[x]];
    if (b->f32w[b->src[x]]) { /* 8-bit weights as f32 (exact) */
      float *d = (float *)(e->p.params + e->p.t[x].offset);
      for (size_t k = 0; k < t->nbytes; k++)
        d[k] = t->dtype == OVTA_DT_I8 ? (float)((const int8_t *)t->data)[k] : (float)((const uint8_t *)t->data)[k];
    } else {
      memcpy(e->p.params + e->p.t[x].offset, t->data, e->p.t[x].nbytes);
    }
  }
  for (int s = 0; s < b->g->n_nodes; s++) {
    if (b->bias_t[s] < 0) continue;
    const vta_plan *p = plan_of(b, s);
    void *dst = e->p.params + e->p.t[b->bias_t[s]].offset;
    if (alu_kind(p)) vta_pack_identity(p, (int8_t *)dst);
    else vta_pack_bias(p, (const int32_t *)b->g->nodes[s]->inputs[2]->data, (int32_t *)dst);
  }
  for (int s = 0; s < b->g->n_nodes; s++)
    if (b->ident_t[s] >= 0) vta_pack_res_ident(plan_of(b, s), (int8_t *)(e->p.params + e->p.t[b->ident_t[s]].offset));
  return 0;
}

/* Guarantees: the memory plan. Constants at aligned offsets of the params blob, in tensor order,
 * filled (fill_params); values in the arena, in tensor order, each by first fit over the blocks
 * still live at its producing step (place; a graph input from before the first); DMA tensors
 * in their own buffers (ovta_exec_attach). arena_size, and unshared: the bytes without reuse. */
static int plan_memory(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  blk *blks = calloc((size_t)e->p.nt + 1, sizeof *blks), *tmp = calloc((size_t)e->p.nt + 1, sizeof *tmp);
  if (!blks || !tmp) {
    free(blks), free(tmp);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", b->g->name);
  }
  int nb = 0;
  for (int i = 0; i < e->p.nt; i++) {
    xtensor *x = &e->p.t[i];
    if (x->where == OVTA_PLAN_PARAMS) {
      x->offset = e->p.params_size;
      e->p.params_size = align_up(e->p.params_size + x->nbytes);
      continue;
    }
    e->p.unshared += align_up(x->nbytes);
    if (x->where == OVTA_PLAN_DMA) continue;
    int def = b->def[b->src[i]], now = def < 0 ? -1 : def;
    x->offset = place(blks, nb, now, x->nbytes, tmp);
    blks[nb++] = (blk){x->offset, x->nbytes, b->last[b->src[i]]};
    if (x->offset + x->nbytes > e->p.arena_size) e->p.arena_size = x->offset + x->nbytes;
  }
  free(blks), free(tmp);
  return fill_params(b, err);
}

/* Guarantees: a plan for this machine loaded: arena allocated, object code in a JIT, every step's
 * entry point resolved (finish). A plan for another machine (--triple) stays object code only,
 * and is refused when a device backend was asked for. */
static int load_jit(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  const char *be = b->o->backend;
  ovta_error terr = {0};
  e->foreign = b->o->cg.triple && lir_target_check(e->p.triple, e->p.features, &terr) != 0;
  if (e->foreign && be && strcmp(be, "cpu"))
    return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: the plan is for %s (%s), not this machine", be, e->p.triple,
                     terr.msg);
  return e->foreign ? 0 : finish(e, err);
}

/* Guarantees: (accel) the report's summary line; the device opened when the options name one
 * (ovta_exec_attach: DMA buffers, weights uploaded). */
static int attach_device(build *b, ovta_error *err) {
  if (b->rep) {
    int na = ovta_plan_accel_nodes(&b->e->p);
    double ma = 0, mt = 0;
    for (int i = 0; i < b->e->p.ns; i++) mt += (double)b->e->p.s[i].macs, ma += b->e->p.s[i].vta ? (double)b->e->p.s[i].macs : 0;
    fprintf(b->rep, "summary: %d node(s) on the accelerator (%s), %d on the cpu; MACs on the accelerator %.0f of %.0f (%.1f%%)\n",
            na, b->e->p.cfg.name, b->e->p.ns - na, ma, mt, mt > 0 ? 100.0 * ma / mt : 0.0);
  }
  if (b->o->backend && strcmp(b->o->backend, "cpu")) return ovta_plan_attach(&b->e->p, b->o->backend, b->o->dev_opts, err);
  return 0;
}

/* Frees the compile's state; on success hands the executor out (printing the report when asked),
 * else frees it. Returns rc. */
static int build_end(build *b, int rc, ovta_exec **out) {
  lir_module_free(b->m);
  free(b->map), free(b->src), free(b->def), free(b->last), free(b->dma), free(b->bias_t);
  for (int i = 0; b->kern && i < b->g->n_nodes; i++) vta_kernel_free(b->kern[i]);
  free(b->kern), free(b->plan), free(b->plans), free(b->planned);
  for (int i = 0; b->pre && i < b->g->n_nodes; i++) lir_func_free(b->pre[i]);
  free(b->pre), free(b->f32w), free(b->halo), free(b->fused), free(b->skip), free(b->ident_t);
  if (b->rep) {
    fclose(b->rep);
    b->e->p.report = b->rtext;
  }
  ovta_graph_free(b->copy);
  if (rc) {
    ovta_exec_free(b->e);
    return rc;
  }
  if (b->o->report && b->e->p.report) fputs(b->e->p.report, b->o->report);
  *out = b->e;
  return 0;
}

/* Step fn of the build, timed as its own phase when the options ask (ovta_exec_opts.timing). */
static int step(build *b, const char *name, int (*fn)(build *, ovta_error *), ovta_error *err) {
  ovta_timing_begin(b->o->timing, "%s", name);
  int rc = fn(b, err);
  ovta_timing_end(b->o->timing);
  return rc;
}

/* The whole compile, one step after the other (compiler/exec/README.md, "The compile pipeline");
 * a step runs when every step before it succeeded, build_end frees what they left. The tensor
 * table comes before the lowering because steps name exec tensors; the memory plan comes before
 * the JIT because loading allocates the planned arena. */
int ovta_exec_build(ovta_graph *g, const ovta_exec_opts *o, ovta_exec **out, ovta_error *err) {
  *out = NULL;
  ovta_exec_opts dflt;
  build b;
  build_init(&b, g, o, &dflt);
  int rc = step(&b, "infer", infer_graph, err);                          /* graph: types and shapes recomputed */
  if (!rc) rc = step(&b, "executor (graph copy)", new_exec, err);        /* the executor; accel: config, report, graph copy */
  if (!rc) rc = step(&b, "accel passes", accel_passes, err);             /* accel: pack, partition */
  if (!rc) rc = step(&b, "plan accel nodes (tiling)", plan_accel_nodes, err); /* accel: each node planned once, or CPU fallback */
  if (!rc) rc = step(&b, "fuse residual adds", fuse_adds, err);         /* accel: conv -> add pairs into one step */
  if (!rc) rc = step(&b, "LLVM module (target)", new_module, err);      /* the module the nodes go into; its vector width */
  if (!rc) rc = step(&b, "CPU f32 weights", cpu_f32_weights, err);     /* CPU 8-bit convs: weights as f32 where it pays */
  if (!rc) rc = step(&b, "CPU half-major maps", cpu_half_major, err);   /* CPU float convs: maps split between threads stored per half */
  if (!rc) rc = step(&b, "live ranges", live_ranges, err);               /* per tensor: first and last step, DMA buffer or not */
  if (!rc) rc = step(&b, "tensor table", number_tensors, err);           /* the tensor table the steps refer to */
  if (!rc) rc = step(&b, "lower nodes", lower_nodes, err);               /* per node: CPU lowering or accel stages, one module */
  if (!rc) rc = step(&b, "code generation", emit_object, err);           /* LLVM: optimize, object code */
  if (!rc) rc = step(&b, "memory plan", plan_memory, err);               /* params blob, arena offsets */
  if (!rc) rc = step(&b, "JIT load", load_jit, err);                     /* JIT: object loaded, steps resolved */
  if (!rc) rc = step(&b, "report, device", attach_device, err);          /* report summary; the device, when asked for */
  return build_end(&b, rc, out);
}


/* ---------------------------------------------------------------- run: the plan runtime's (plan/) */

int ovta_exec_num_inputs(const ovta_exec *e) { return e->p.nin; }
int ovta_exec_num_outputs(const ovta_exec *e) { return e->p.nout; }
const char *ovta_exec_input_name(const ovta_exec *e, int i) { return i >= 0 && i < e->p.nin ? e->p.t[e->p.in[i]].name : NULL; }
const char *ovta_exec_output_name(const ovta_exec *e, int i) { return i >= 0 && i < e->p.nout ? e->p.t[e->p.out[i]].name : NULL; }

void ovta_exec_memory(const ovta_exec *e, size_t *arena, size_t *unshared) {
  if (arena) *arena = e->p.arena_size;
  if (unshared) *unshared = e->p.unshared;
}

int ovta_exec_accel_nodes(const ovta_exec *e) { return ovta_plan_accel_nodes(&e->p); }
const ovta_config *ovta_exec_config(const ovta_exec *e) { return e->p.accel ? &e->p.cfg : NULL; }
const char *ovta_exec_report(const ovta_exec *e) { return e->p.report ? e->p.report : ""; }
const char *ovta_exec_target(const ovta_exec *e) { return e->p.triple ? e->p.triple : ""; }
bool ovta_exec_foreign(const ovta_exec *e) { return e->foreign; }
int ovta_exec_num_steps(const ovta_exec *e) { return e->p.ns; }
ovta_plan *ovta_exec_plan(ovta_exec *e) { return &e->p; }

int ovta_exec_node_stats_get(const ovta_exec *e, int i, ovta_exec_node_stats *out, ovta_error *err) {
  return ovta_plan_stats_get(&e->p, i, out, err);
}

int ovta_exec_attach(ovta_exec *e, const char *backend, const struct ovta_dev_opts *o, ovta_error *err) {
  return ovta_plan_attach(&e->p, backend, o, err);
}

int ovta_exec_set_input(ovta_exec *e, const char *name, const ovta_tensor *t, ovta_error *err) {
  return ovta_plan_set_input(&e->p, name, t->dtype, t->rank, t->shape, t->data, t->nbytes, err);
}

int ovta_exec_run(ovta_exec *e, ovta_error *err) {
  if (e->foreign) return OVTA_FAIL(err, OVTA_EINVAL, "the plan is for %s (cpu %s): run it there", e->p.triple, e->p.cpu);
  return ovta_plan_run(&e->p, err);
}

int ovta_exec_get_output(const ovta_exec *e, int i, ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  ovta_array a = {0};
  int rc = ovta_plan_get_output(&e->p, i, &a, err);
  if (rc) return rc;
  ovta_tensor *t = ovta_tensor_new(e->p.t[e->p.out[i]].name, a.dtype, a.rank, a.shape);
  if (!t) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for output %d", i);
  else rc = ovta_tensor_set_data(t, a.data, a.nbytes, err);
  ovta_array_clear(&a);
  if (rc) ovta_tensor_free(t);
  else *out = t;
  return rc;
}

/* ---------------------------------------------------------------- save / load */

/* DIR/kernels.so: kernels.o linked into a shared object by ld.lld (LLD_15: one linker for every
 * target, no cross toolchain), its undefined ovta_vrt_* left to the executable that opens it. A
 * missing linker is an error naming it. */
static int link_shared(const char *dir, ovta_error *err) {
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "'%s' -shared --allow-shlib-undefined -o '%s/kernels.so' '%s/kernels.o' 2>&1", OVTA_LLD, dir, dir);
  FILE *f = popen(cmd, "r");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: cannot run %s", dir, OVTA_LLD);
  char out[512] = "";
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = 0;
  out[strcspn(out, "\n")] = 0;
  int st = pclose(f);
  if (st != 0) return OVTA_FAIL(err, OVTA_EIO, "%s/kernels.so: %s failed: %s", dir, OVTA_LLD, n ? out : "(no output)");
  return 0;
}

int ovta_exec_save(const ovta_exec *e, const char *dir, ovta_error *err) {
  for (const char *c = dir; *c; c++)
    if (*c == '\'') return OVTA_FAIL(err, OVTA_EINVAL, "%s: a plan folder name with a quote", dir);
  int rc = ovta_plan_save(&e->p, dir, err);
  char path[4200];
  snprintf(path, sizeof path, "%s/kernels.o", dir);
  if (!rc) rc = ovta_plan_write_file(path, e->obj, e->obj_len, err);
  snprintf(path, sizeof path, "%s/kernels.so", dir);
  if (!rc) remove(path);
  if (!rc && e->p.ns) rc = link_shared(dir, err);
  if (!rc) rc = ovta_plan_seal(dir, err); /* the digests of every file, last */
  return rc;
}

/* A plan folder back into an executor: plan.json and params.bin through the plan runtime,
 * checked to run here (LLVM's view of the recorded triple), kernels.o loaded into a JIT without
 * recompiling. */
int ovta_exec_load(const char *dir, ovta_exec **out, ovta_error *err) {
  *out = NULL;
  ovta_exec *e = calloc(1, sizeof *e);
  if (!e) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  char path[4200];
  size_t n;
  int rc = ovta_plan_read(dir, &e->p, err);
  if (!rc && e->p.triple && (rc = lir_target_check(e->p.triple, e->p.features, err)))
    ovta_error_wrap(err, "%s: the plan cannot run here (compile it on this machine, or with --triple for it)", dir);
  snprintf(path, sizeof path, "%s/kernels.o", dir);
  char *obj = NULL;
  if (!rc && e->p.ns && !(rc = ovta_read_file(path, OVTA_SIZE_CAP(34), &obj, &n, err))) {
    e->obj = obj, e->obj_len = n;
    rc = ovta_plan_check_file(&e->p, dir, "kernels.o", obj, n, err);
  }
  if (!rc) rc = finish(e, err);
  if (rc) ovta_exec_free(e);
  else *out = e;
  return rc;
}

/* ---------------------------------------------------------------- evaluation hook */

/* argv for node n's compiled function: the values of its present inputs, then its present
 * outputs (allocated), each checked against the graph tensor's type and size. */
static int eval_args(const ovta_node *n, ovta_tensor *const *inputs, ovta_tensor **outputs, void **argv,
                     ovta_error *err) {
  int na = 0;
  for (int i = 0; i < n->n_inputs; i++) {
    if (!n->inputs[i]) continue;
    const ovta_tensor *v = inputs[i];
    if (!v || !v->data || v->dtype != n->inputs[i]->dtype || v->rank != n->inputs[i]->rank ||
        ovta_tensor_numel(v) != ovta_tensor_numel(n->inputs[i]))
      return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): value for input %s missing or of another type/shape", n->name,
                       n->op, n->inputs[i]->name);
    argv[na++] = v->data;
  }
  for (int i = 0; i < n->n_outputs; i++) {
    if (!n->outputs[i]) continue;
    if (!outputs[i]) return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): no tensor for output %d", n->name, n->op, i);
    if (ovta_tensor_numel(outputs[i]) != ovta_tensor_numel(n->outputs[i]) || outputs[i]->dtype != n->outputs[i]->dtype)
      return OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): output %s of another type/shape", n->name, n->op,
                       n->outputs[i]->name);
    int rc = ovta_tensor_alloc(outputs[i], err);
    if (rc) return rc;
    argv[na++] = outputs[i]->data;
  }
  return 0;
}

/* Node n lowered on the CPU path and JIT-compiled: *j owns the code, *fn is the function. */
static int eval_compile(const ovta_graph *g, const ovta_node *n, lir_jit **j, lir_kernel_fn *fn, ovta_error *err) {
  lir_func *f;
  lir_module *m = NULL;
  void *fp = NULL;
  *j = NULL;
  int rc = lir_lower_node(g, n, "ovta_eval", &f, err);
  if (rc) return rc;
  if (!(rc = lir_module_new("eval", NULL, &m, err)) && !(rc = lir_module_add(m, f, err)) &&
      !(rc = lir_jit_new(j, err)) && !(rc = lir_jit_add_module(*j, m, err)))
    rc = lir_jit_lookup(*j, "ovta_eval", &fp, err);
  lir_func_free(f);
  lir_module_free(m);
  if (rc) lir_jit_free(*j), *j = NULL;
  *fn = (lir_kernel_fn)fp;
  return rc;
}

int ovta_exec_eval_node(void *ctx, const ovta_graph *g, const ovta_node *n, ovta_tensor *const *inputs,
                        ovta_tensor **outputs, ovta_error *err) {
  (void)ctx;
  lir_jit *j = NULL;
  lir_kernel_fn fn;
  void **argv = calloc((size_t)(n->n_inputs + n->n_outputs) + 1, sizeof(void *));
  int rc = argv ? eval_compile(g, n, &j, &fn, err) : OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
  if (!rc) rc = eval_args(n, inputs, outputs, argv, err);
  if (!rc) fn(argv);
  lir_jit_free(j);
  free(argv);
  return rc;
}

/* One compiled node of an evaluation cache: its key (name, op, input shapes) and code. */
typedef struct eval_entry {
  char *key;        /* ovta_exec_eval_cached's key of the node */
  lir_jit *j;       /* owns the code */
  lir_kernel_fn fn; /* the node's function */
} eval_entry;

struct ovta_eval_cache {
  eval_entry *e; /* compiled nodes */
  int n, cap;    /* count, allocated */
};

ovta_eval_cache *ovta_eval_cache_new(void) { return calloc(1, sizeof(ovta_eval_cache)); }

void ovta_eval_cache_free(ovta_eval_cache *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) free(c->e[i].key), lir_jit_free(c->e[i].j);
  free(c->e);
  free(c);
}

/* The key of node n: its name and op (names are unique in a graph) and its tensors' dtypes and
 * shapes, so a node rewritten between passes under the same name is compiled again. */
static void eval_key(const ovta_node *n, char *k, size_t len) {
  size_t o = (size_t)snprintf(k, len, "%s|%s", n->name, n->op);
  for (int i = 0; i < n->n_inputs + n->n_outputs && o < len; i++) {
    const ovta_tensor *t = i < n->n_inputs ? n->inputs[i] : n->outputs[i - n->n_inputs];
    char sh[96] = "-";
    if (t) ovta_shape_str(t, sh, sizeof sh);
    o += (size_t)snprintf(k + o, len - o, "|%d:%s", t ? (int)t->dtype : -1, sh);
  }
}

int ovta_exec_eval_cached(void *ctx, const ovta_graph *g, const ovta_node *n, ovta_tensor *const *inputs,
                          ovta_tensor **outputs, ovta_error *err) {
  ovta_eval_cache *c = ctx;
  ovta_error rerr = {0};
  int rc = ovta_eval_node_ref(NULL, g, n, inputs, outputs, &rerr);
  if (rc != OVTA_EUNSUPPORTED) {
    if (rc) *err = rerr;
    return rc;
  }
  char key[1024];
  eval_key(n, key, sizeof key);
  int i = 0;
  while (i < c->n && strcmp(c->e[i].key, key)) i++;
  if (i == c->n) {
    if (c->n == c->cap) {
      eval_entry *ne = realloc(c->e, (size_t)(c->cap * 2 + 8) * sizeof *ne);
      if (!ne) return OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
      c->e = ne, c->cap = c->cap * 2 + 8;
    }
    eval_entry *e = &c->e[c->n];
    if ((rc = eval_compile(g, n, &e->j, &e->fn, err))) return rc;
    if (!(e->key = strdup(key))) return lir_jit_free(e->j), OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    c->n++;
  }
  void **argv = calloc((size_t)(n->n_inputs + n->n_outputs) + 1, sizeof(void *));
  if (!argv) return OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
  if (!(rc = eval_args(n, inputs, outputs, argv, err))) c->e[i].fn(argv);
  free(argv);
  return rc;
}
