/* exec.c: the graph executor (exec.h): the compile pipeline (ovta_exec_build: one static step
 * per stage, read it from the bottom of the "build" section), liveness-based memory planning, one
 * LLVM module compiled to object code and loaded into the JIT, run, save/load of the plan, and the
 * evaluation hook for graph passes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "exec_internal.h"

#define ALIGN 64
#define PLAN_FORMAT "ovta-exec-1"

typedef enum { W_ARENA = 0, W_PARAM = 1, W_DMA = 2 } where_t; /* W_DMA: a value in its own DMA buffer */


typedef struct xtensor {
  char *name;                    /* graph tensor name */
  ovta_dtype dtype;              /* element type */
  int rank;                      /* dims */
  int64_t shape[OVTA_MAX_RANK];  /* static shape */
  size_t nbytes;                 /* bytes */
  where_t where;                 /* arena (inputs, values) or params (constants) */
  size_t offset;                 /* byte offset in the arena or params blob */
  bool dma;                      /* the accelerator reads/writes it: lives in a DMA buffer */
  ovta_buf *buf;                 /* that buffer (after ovta_exec_attach) */
} xtensor;

typedef struct xstep {
  char *node;         /* node name (for errors) */
  char *fn;           /* kernel symbol */
  int nargs;          /* arguments */
  int *args;          /* tensor index per argument */
  lir_kernel_fn call; /* resolved entry point */
  bool vta;           /* an accelerator step: fn is host code calling the runtime */
  int vb[VTA_BUF_COUNT]; /* vta: tensor of x, w, bias (ACC-expanded, -1: none), y */
  char *detail;       /* vta: tiling */
  uint64_t insns, uops_recorded, kernels; /* vta: counts of the host code */
  uint64_t runs;      /* executions */
  char *op;           /* node op (profilers) */
  int64_t macs;       /* node MACs from its logical shapes (profilers) */
  ovta_exec_node_stats last; /* device counters of the last execution */
} xstep;

struct ovta_exec {
  int nt;               /* tensors */
  xtensor *t;           /* tensors */
  int ns;               /* steps */
  xstep *s;             /* steps, in node order */
  int nin, nout;        /* graph inputs / outputs */
  int *in, *out;        /* tensor index of each */
  size_t arena_size;    /* planned arena bytes */
  size_t unshared;      /* bytes if no storage were reused */
  unsigned char *arena; /* the arena */
  size_t params_size;   /* params bytes */
  unsigned char *params;/* constants */
  void *obj;            /* object code */
  size_t obj_len;       /* its bytes */
  lir_jit *jit;         /* JIT holding obj (NULL for another machine's plan) */
  char *triple, *cpu, *features; /* the machine obj is for (LLVM triple, CPU, features) */
  bool foreign;         /* obj is for another machine (ovta compile --triple): saved, not run here */
  void **argv;          /* scratch argument vector */
  int max_args;         /* its capacity */
  bool accel;           /* has accelerator steps */
  ovta_config cfg;      /* their config */
  char *report;         /* compile report */
  ovta_dev *dev;        /* attached device */
  ovta_rt *rt;          /* its queue */
};

void ovta_exec_opts_init(ovta_exec_opts *o) {
  memset(o, 0, sizeof *o);
  lir_codegen_opts_init(&o->cg);
}

static size_t align_up(size_t v) { return (v + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

void ovta_exec_free(ovta_exec *e) {
  if (!e) return;
  ovta_rt_destroy(e->rt);
  for (int i = 0; i < e->nt; i++) {
    free(e->t[i].name);
    if (e->t[i].buf) ovta_buf_free(e->t[i].buf);
  }
  ovta_dev_close(e->dev);
  free(e->report);
  for (int i = 0; i < e->ns; i++) {
    free(e->s[i].detail);
    free(e->s[i].op);
    free(e->s[i].node);
    free(e->s[i].fn);
    free(e->s[i].args);
  }
  free(e->t);
  free(e->s);
  free(e->in);
  free(e->out);
  free(e->arena);
  free(e->params);
  free(e->obj);
  free(e->triple), free(e->cpu), free(e->features);
  free(e->argv);
  lir_jit_free(e->jit);
  free(e);
}

/* The largest arena, and tensor, a plan may have: a bigger one comes from a hostile or broken model
 * (and its byte count could overflow). */
#define MAX_ARENA ((size_t)1 << 34) /* 16 GiB */

/* Allocate the arena and params, load the object code into a JIT and resolve every step. */
static int finish(ovta_exec *e, ovta_error *err) {
  if (e->arena_size > MAX_ARENA)
    return OVTA_FAIL(err, OVTA_ENOMEM, "the plan needs a %zu-byte arena, above the limit of %zu bytes (16 GiB)",
                     e->arena_size, MAX_ARENA);
  e->arena = aligned_alloc(ALIGN, align_up(e->arena_size ? e->arena_size : 1));
  if (!e->arena) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for a %zu-byte arena", e->arena_size);
  memset(e->arena, 0, e->arena_size);
  int rc = lir_jit_new(&e->jit, err);
  if (rc) return rc;
  if (e->accel && (rc = vta_jit_define_runtime(e->jit, err))) return rc;
  if (e->ns) {
    rc = lir_jit_add_object(e->jit, e->obj, e->obj_len, "kernels.o", err);
    if (rc) return rc;
  }
  for (int i = 0; i < e->ns; i++) {
    void *fp;
    rc = lir_jit_lookup(e->jit, e->s[i].fn, &fp, err);
    if (rc) return ovta_error_wrap(err, "node %s", e->s[i].node);
    e->s[i].call = (lir_kernel_fn)fp;
    if (e->s[i].nargs > e->max_args) e->max_args = e->s[i].nargs;
  }
  e->argv = calloc((size_t)e->max_args + 1, sizeof(void *));
  if (!e->argv) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  return 0;
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
  if (b->o->cfg) b->e->cfg = *b->o->cfg;
  else if ((rc = ovta_config_load("default", &b->e->cfg, err))) return rc;
  b->e->accel = true;
  b->rep = open_memstream(&b->rtext, &b->rlen);
  b->copy = ovta_graph_clone(b->g);
  if (!b->copy || !b->rep) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", b->g->name);
  b->g = b->copy;
  return 0;
}

/* Accel only. Guarantees: the graph packed and partitioned (the pack / partition passes, when the
 * caller's pipeline has not run them: exec_accel_needs), and indexed. */
static int accel_passes(build *b, ovta_error *err) {
  if (!b->o->accel) return 0;
  bool need_pack, need_part;
  exec_accel_needs(b->g, &need_pack, &need_part);
  int rc = 0;
  if (need_pack || need_part) {
    ovta_compile_opts co = {0};
    co.cfg = &b->e->cfg;
    co.passes = need_pack ? "pack,partition" : "partition";
    if ((rc = ovta_compile_pipeline(b->g, &co, err))) return rc;
  }
  return ovta_graph_index(b->g, err);
}

/* The accelerator plan of node n (operator, knobs from the tuning JSON, tiling), or why it runs
 * on the CPU (OVTA_EUNSUPPORTED: partitioned there, or refused by the accelerator). */
static int plan_node(const build *b, const ovta_node *n, vta_plan *p, ovta_error *err) {
  vta_op op;
  vta_knobs k = {.vthreads = b->o->vthreads};
  int rc;
  if (n->target != OVTA_TARGET_ACCEL)
    return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "%s (%s): partitioned to the cpu", n->name, n->op);
  if ((rc = vta_op_from_node(b->g, n, &b->e->cfg, &op, err))) return rc;
  if (b->o->tuning_json && (rc = vta_knobs_from_json(b->o->tuning_json, "tuning", n->name, &k, err))) return rc;
  return vta_plan_make(&b->e->cfg, &op, &k, p, err);
}

/* Node *pi, which the accelerator does not run (why), moved back to the plain layout for the CPU
 * path (Unpack, the node, Pack; *pi moves to the node), with the reason in the report. */
static int fall_back_to_cpu(build *b, int *pi, const ovta_error *why, ovta_error *err) {
  char name[128], opn[48];
  snprintf(name, sizeof name, "%s", b->g->nodes[*pi]->name), snprintf(opn, sizeof opn, "%s", b->g->nodes[*pi]->op);
  int rc = exec_unpack_node(b->g, pi, &b->e->cfg, err);
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
  xtensor *x = &e->t[e->nt];
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
  x->name = strdup(t->name);
  x->dtype = t->dtype;
  x->rank = t->rank;
  memcpy(x->shape, t->shape, sizeof x->shape);
  x->nbytes = nbytes;
  x->dma = b->dma[i];
  x->where = t->kind == OVTA_TK_CONST ? W_PARAM : b->dma[i] ? W_DMA : W_ARENA;
  b->src[e->nt] = i;
  b->map[i] = e->nt++;
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
  xtensor *x = &e->t[e->nt];
  char nm[600];
  if (alu) snprintf(nm, sizeof nm, "%s.ident", n->name);
  else snprintf(nm, sizeof nm, "%s.acc", bias->name);
  x->name = strdup(nm);
  x->dtype = alu ? OVTA_DT_I8 : OVTA_DT_I32;
  x->nbytes = vta_bias_bytes(p);
  x->rank = 1;
  x->shape[0] = (int64_t)(x->nbytes / (alu ? 1 : 4));
  x->dma = true;
  x->where = W_PARAM;
  b->src[e->nt] = -1;
  b->bias_t[s] = e->nt++;
  return 0;
}

/* Guarantees: the exec tensor table: the graph inputs first, then every other tensor a step uses
 * in graph order, then the accelerator nodes' extra constants (add_accel_bias), each checked and
 * with where it lives; the graph inputs and outputs by exec tensor. */
static int number_tensors(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  const ovta_graph *g = b->g;
  int nt = g->n_tensors, nn = g->n_nodes, rc;
  e->t = calloc((size_t)(nt + nn) + 1, sizeof *e->t);
  e->s = calloc((size_t)nn + 1, sizeof *e->s);
  e->in = calloc((size_t)g->n_inputs + 1, sizeof(int));
  e->out = calloc((size_t)g->n_outputs + 1, sizeof(int));
  b->src = calloc((size_t)(nt + nn) + 1, sizeof *b->src);
  b->bias_t = calloc((size_t)nn + 1, sizeof *b->bias_t);
  if (!e->t || !e->s || !e->in || !e->out || !b->src || !b->bias_t)
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  for (int pass = 0; pass < 2; pass++) /* the graph inputs, then the rest */
    for (int i = 0; i < nt; i++) {
      bool is_input = b->def[i] == -1 && g->tensors[i]->kind == OVTA_TK_INPUT;
      if ((b->last[i] == -2 && b->def[i] == -2) || (pass == 0) != is_input) continue;
      if ((rc = add_tensor(b, i, err))) return rc;
    }
  for (int s = 0; s < nn; s++)
    if ((rc = add_accel_bias(b, s, err))) return rc;
  for (int i = 0; i < g->n_inputs; i++) e->in[e->nin++] = b->map[tindex(g, g->inputs[i])];
  for (int i = 0; i < g->n_outputs; i++) e->out[e->nout++] = b->map[tindex(g, g->outputs[i])];
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

/* The next step of the plan (not yet counted in e->ns): node n calling fn with room for nargs
 * arguments, no DMA buffers, the node's op and MACs for profilers. */
static xstep *new_step(build *b, const ovta_node *n, const char *fn, int nargs) {
  xstep *st = &b->e->s[b->e->ns];
  st->node = strdup(n->name);
  st->fn = strdup(fn);
  st->vb[0] = st->vb[1] = st->vb[2] = st->vb[3] = -1;
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
  int rc;
  if ((rc = vta_compile_ex(plan_of(b, s), &co, &b->kern[s], err)) || (rc = vta_kernel_count(b->kern[s], &c, err)) ||
      (rc = vta_kernel_module_add(b->kern[s], b->m, err))) {
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
  b->e->ns++;
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
  lir_func *f;
  int rc;
  if (!strcmp(n->op, "ovta.Pack") || !strcmp(n->op, "ovta.Unpack")) rc = exec_lower_layout(g, n, fname, &f, err);
  else if (!strcmp(n->op, "Concat") && n->n_outputs == 1 && n->outputs[0] && n->outputs[0]->layout == OVTA_LAYOUT_ACT)
    rc = exec_lower_packed_concat(g, n, fname, &f, err);
  else rc = lir_lower_node(g, n, fname, &f, err);
  if (rc) return rc;
  if (b->e->accel) report_line(b->rep, g, n, NULL, NULL);
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
  b->e->ns++;
  return 0;
}

/* Guarantees: every node lowered, in node order, into one LLVM module, one step each (accelerator
 * nodes by lower_accel_node, the others by lower_cpu_node); with --dump-lir its loop IR printed,
 * and (accel) its line in the report. */
static int lower_nodes(build *b, ovta_error *err) {
  int rc = lir_module_new(b->g->name ? b->g->name : "graph", &b->o->cg, &b->m, err);
  for (int s = 0; !rc && s < b->g->n_nodes; s++)
    rc = plan_of(b, s) ? lower_accel_node(b, s, err) : lower_cpu_node(b, s, err);
  return rc;
}

/* Guarantees: the module optimized and, when there is a step, emitted as one object file in
 * memory (e->obj); the machine it is for (triple, CPU, features) recorded. */
static int emit_object(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  int rc;
  if ((rc = lir_module_optimize(b->m, err))) return rc;
  if (e->ns && (rc = lir_module_emit_object_mem(b->m, &e->obj, &e->obj_len, err))) return rc;
  const char *tt, *tc, *tf;
  lir_module_target(b->m, &tt, &tc, &tf);
  e->triple = strdup(tt), e->cpu = strdup(tc), e->features = strdup(tf);
  if (!e->triple || !e->cpu || !e->features) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  return 0;
}

/* Guarantees: params.bin's contents: the graph's constants copied, the accelerator's extra
 * constants packed (vta_pack_bias / vta_pack_identity), the gaps zero. */
static int fill_params(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  e->params = malloc(e->params_size ? e->params_size : 1);
  if (!e->params) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %zu bytes of params", e->params_size);
  memset(e->params, 0, e->params_size);
  for (int x = 0; x < e->nt; x++)
    if (b->src[x] >= 0 && e->t[x].where == W_PARAM)
      memcpy(e->params + e->t[x].offset, b->g->tensors[b->src[x]]->data, e->t[x].nbytes);
  for (int s = 0; s < b->g->n_nodes; s++) {
    if (b->bias_t[s] < 0) continue;
    const vta_plan *p = plan_of(b, s);
    void *dst = e->params + e->t[b->bias_t[s]].offset;
    if (alu_kind(p)) vta_pack_identity(p, (int8_t *)dst);
    else vta_pack_bias(p, (const int32_t *)b->g->nodes[s]->inputs[2]->data, (int32_t *)dst);
  }
  return 0;
}

/* Guarantees: the memory plan. Constants at aligned offsets of the params blob, in tensor order,
 * filled (fill_params); values in the arena, in tensor order, each by first fit over the blocks
 * still live at its producing step (place; a graph input from before the first); DMA tensors
 * in their own buffers (ovta_exec_attach). arena_size, and unshared: the bytes without reuse. */
static int plan_memory(build *b, ovta_error *err) {
  ovta_exec *e = b->e;
  blk *blks = calloc((size_t)e->nt + 1, sizeof *blks), *tmp = calloc((size_t)e->nt + 1, sizeof *tmp);
  if (!blks || !tmp) {
    free(blks), free(tmp);
    return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", b->g->name);
  }
  int nb = 0;
  for (int i = 0; i < e->nt; i++) {
    xtensor *x = &e->t[i];
    if (x->where == W_PARAM) {
      x->offset = e->params_size;
      e->params_size = align_up(e->params_size + x->nbytes);
      continue;
    }
    e->unshared += align_up(x->nbytes);
    if (x->where == W_DMA) continue;
    int def = b->def[b->src[i]], now = def < 0 ? -1 : def;
    x->offset = place(blks, nb, now, x->nbytes, tmp);
    blks[nb++] = (blk){x->offset, x->nbytes, b->last[b->src[i]]};
    if (x->offset + x->nbytes > e->arena_size) e->arena_size = x->offset + x->nbytes;
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
  e->foreign = b->o->cg.triple && lir_target_check(e->triple, e->features, &terr) != 0;
  if (e->foreign && be && strcmp(be, "cpu"))
    return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: the plan is for %s (%s), not this machine", be, e->triple,
                     terr.msg);
  return e->foreign ? 0 : finish(e, err);
}

/* Guarantees: (accel) the report's summary line; the device opened when the options name one
 * (ovta_exec_attach: DMA buffers, weights uploaded). */
static int attach_device(build *b, ovta_error *err) {
  if (b->rep) {
    int na = ovta_exec_accel_nodes(b->e);
    double ma = 0, mt = 0;
    for (int i = 0; i < b->e->ns; i++) mt += (double)b->e->s[i].macs, ma += b->e->s[i].vta ? (double)b->e->s[i].macs : 0;
    fprintf(b->rep, "summary: %d node(s) on the accelerator (%s), %d on the cpu; MACs on the accelerator %.0f of %.0f (%.1f%%)\n",
            na, b->e->cfg.name, b->e->ns - na, ma, mt, mt > 0 ? 100.0 * ma / mt : 0.0);
  }
  if (b->o->backend && strcmp(b->o->backend, "cpu")) return ovta_exec_attach(b->e, b->o->backend, b->o->dev_opts, err);
  return 0;
}

/* Frees the compile's state; on success hands the executor out (printing the report when asked),
 * else frees it. Returns rc. */
static int build_end(build *b, int rc, ovta_exec **out) {
  lir_module_free(b->m);
  free(b->map), free(b->src), free(b->def), free(b->last), free(b->dma), free(b->bias_t);
  for (int i = 0; b->kern && i < b->g->n_nodes; i++) vta_kernel_free(b->kern[i]);
  free(b->kern), free(b->plan), free(b->plans), free(b->planned);
  if (b->rep) {
    fclose(b->rep);
    b->e->report = b->rtext;
  }
  ovta_graph_free(b->copy);
  if (rc) {
    ovta_exec_free(b->e);
    return rc;
  }
  if (b->o->report && b->e->report) fputs(b->e->report, b->o->report);
  *out = b->e;
  return 0;
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
  int rc = infer_graph(&b, err);           /* graph: types and shapes recomputed */
  if (!rc) rc = new_exec(&b, err);         /* the executor; accel: config, report, graph copy */
  if (!rc) rc = accel_passes(&b, err);     /* accel: pack, partition */
  if (!rc) rc = plan_accel_nodes(&b, err); /* accel: each node planned once, or CPU fallback */
  if (!rc) rc = live_ranges(&b, err);      /* per tensor: first and last step, DMA buffer or not */
  if (!rc) rc = number_tensors(&b, err);   /* the tensor table the steps refer to */
  if (!rc) rc = lower_nodes(&b, err);      /* per node: CPU lowering or accel stages, one module */
  if (!rc) rc = emit_object(&b, err);      /* LLVM: optimize, object code */
  if (!rc) rc = plan_memory(&b, err);      /* params blob, arena offsets */
  if (!rc) rc = load_jit(&b, err);         /* JIT: object loaded, steps resolved */
  if (!rc) rc = attach_device(&b, err);    /* report summary; the device, when asked for */
  return build_end(&b, rc, out);
}

/* ---------------------------------------------------------------- run */

int ovta_exec_num_inputs(const ovta_exec *e) { return e->nin; }
int ovta_exec_num_outputs(const ovta_exec *e) { return e->nout; }
const char *ovta_exec_input_name(const ovta_exec *e, int i) { return i >= 0 && i < e->nin ? e->t[e->in[i]].name : NULL; }
const char *ovta_exec_output_name(const ovta_exec *e, int i) { return i >= 0 && i < e->nout ? e->t[e->out[i]].name : NULL; }

void ovta_exec_memory(const ovta_exec *e, size_t *arena, size_t *unshared) {
  if (arena) *arena = e->arena_size;
  if (unshared) *unshared = e->unshared;
}

static void *tdata(const ovta_exec *e, int i) {
  if (e->t[i].where == W_DMA) return e->t[i].buf ? e->t[i].buf->host : NULL;
  return (e->t[i].where == W_PARAM ? e->params : e->arena) + e->t[i].offset;
}

int ovta_exec_accel_nodes(const ovta_exec *e) {
  int k = 0;
  for (int i = 0; i < e->ns; i++) k += e->s[i].vta;
  return k;
}

const ovta_config *ovta_exec_config(const ovta_exec *e) { return e->accel ? &e->cfg : NULL; }

const char *ovta_exec_report(const ovta_exec *e) { return e->report ? e->report : ""; }
const char *ovta_exec_target(const ovta_exec *e) { return e->triple ? e->triple : ""; }
bool ovta_exec_foreign(const ovta_exec *e) { return e->foreign; }
int ovta_exec_num_steps(const ovta_exec *e) { return e->ns; }

int ovta_exec_node_stats_get(const ovta_exec *e, int i, ovta_exec_node_stats *out, ovta_error *err) {
  if (i < 0 || i >= e->ns) return OVTA_FAIL(err, OVTA_EINVAL, "step %d out of range (%d steps)", i, e->ns);
  const xstep *s = &e->s[i];
  *out = s->last;
  out->node = s->node, out->fn = s->fn, out->accel = s->vta, out->detail = s->detail ? s->detail : "";
  out->insns = s->vta ? (s->last.insns ? s->last.insns : s->insns) : 0;
  out->uops_recorded = s->uops_recorded, out->kernels = s->kernels, out->runs = s->runs;
  out->op = s->op ? s->op : "", out->macs = s->macs;
  return 0;
}

int ovta_exec_attach(ovta_exec *e, const char *backend, const struct ovta_dev_opts *o, ovta_error *err) {
  if (!e->accel) return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: the plan was compiled for the cpu only", backend);
  if (e->dev) return OVTA_FAIL(err, OVTA_EINVAL, "a device (%s) is already attached", ovta_dev_backend(e->dev));
  int rc = ovta_dev_open(backend, &e->cfg, o, &e->dev, err);
  ovta_rt_opts ro = {0};
  ro.max_insns = 1u << 20; /* one device run per node: its counters are the node's */
  if (!rc) rc = ovta_rt_create(e->dev, &ro, &e->rt, err);
  for (int i = 0; !rc && i < e->nt; i++) {
    xtensor *x = &e->t[i];
    if (!x->dma) continue;
    rc = ovta_buf_alloc(e->dev, x->nbytes ? x->nbytes : 1, &x->buf, err);
    if (!rc && x->where == W_PARAM) rc = ovta_buf_write(x->buf, 0, e->params + x->offset, x->nbytes, err);
    if (rc) ovta_error_wrap(err, "DMA buffer of tensor %s", x->name);
  }
  if (rc) {
    ovta_rt_destroy(e->rt);
    e->rt = NULL;
    for (int i = 0; i < e->nt; i++)
      if (e->t[i].buf) ovta_buf_free(e->t[i].buf), e->t[i].buf = NULL;
    ovta_dev_close(e->dev);
    e->dev = NULL;
  }
  return rc;
}

static void shape_str(const int64_t *s, int r, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < r && k < n; i++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "x" : "", (long long)s[i]);
  if (r == 0) snprintf(buf, n, "scalar");
}

int ovta_exec_set_input(ovta_exec *e, const char *name, const ovta_tensor *t, ovta_error *err) {
  for (int i = 0; i < e->nin; i++) {
    xtensor *x = &e->t[e->in[i]];
    if (strcmp(x->name, name) != 0) continue;
    if (t->dtype != x->dtype)
      return OVTA_FAIL(err, OVTA_EINVAL, "input %s: dtype %s, the model expects %s", name, ovta_dtype_name(t->dtype),
                       ovta_dtype_name(x->dtype));
    if (ovta_tensor_numel(t) < 0 || t->rank != x->rank || memcmp(t->shape, x->shape, sizeof(int64_t) * (size_t)x->rank)) {
      char a[128], b[128];
      shape_str(t->shape, t->rank, a, sizeof a);
      shape_str(x->shape, x->rank, b, sizeof b);
      return OVTA_FAIL(err, OVTA_EINVAL, "input %s: shape %s given, the model was compiled for %s", name, a, b);
    }
    if (!t->data || t->nbytes != x->nbytes) return OVTA_FAIL(err, OVTA_EINVAL, "input %s: no data", name);
    if (!tdata(e, e->in[i])) return OVTA_FAIL(err, OVTA_EINVAL, "input %s: in device memory, no device attached", name);
    memcpy(tdata(e, e->in[i]), t->data, x->nbytes);
    if (x->where == W_DMA) return ovta_buf_flush(x->buf, 0, x->nbytes, err);
    return 0;
  }
  return OVTA_FAIL(err, OVTA_EINVAL, "the model has no input named %s", name);
}

/* One accelerator step: the host code issues onto the queue, then one synchronize. */
static int run_vta(ovta_exec *e, xstep *s, ovta_error *err) {
  vta_rt_ctx c = {.rt = e->rt, .cfg = &e->cfg};
  for (int b = 0; b < VTA_BUF_COUNT; b++) c.bufs[b] = s->vb[b] >= 0 ? e->t[s->vb[b]].buf : NULL;
  ovta_rt_stats a, z;
  ovta_rt_stats_get(e->rt, &a);
  int rc = vta_host_call(s->call, s->node, &c, err);
  if (!rc) rc = ovta_rt_synchronize(e->rt, 0, err);
  if (rc) return ovta_error_wrap(err, "node %s (accelerator)", s->node);
  ovta_rt_stats_get(e->rt, &z);
  ovta_counters dc;
  ovta_dev_counters(e->dev, &dc);
  s->runs++;
  s->last.insns = z.insns - a.insns;
  s->last.dev_runs = z.runs - a.runs;
  s->last.dev_insns = dc.insns_load + dc.insns_compute + dc.insns_store;
  s->last.gemm_uops = dc.gemm_uops, s->last.alu_uops = dc.alu_uops;
  s->last.cycles = dc.cycles, s->last.has_cycles = dc.cycles > 0;
  for (int m = 0; m < 4; m++) s->last.bytes_read[m] = dc.bytes_read[m];
  s->last.bytes_written = dc.bytes_written;
  return 0;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int ovta_exec_run(ovta_exec *e, ovta_error *err) {
  if (e->foreign) return OVTA_FAIL(err, OVTA_EINVAL, "the plan is for %s (cpu %s): run it there", e->triple, e->cpu);
  if (e->accel && !e->rt)
    return OVTA_FAIL(err, OVTA_EINVAL, "the plan runs %d node(s) on the accelerator: attach a device first (--backend)",
                     ovta_exec_accel_nodes(e));
  for (int i = 0; i < e->ns; i++) {
    xstep *s = &e->s[i];
    uint64_t t0 = now_ns();
    if (s->vta) {
      int rc = run_vta(e, s, err);
      if (rc) return rc;
      s->last.ns = now_ns() - t0;
      continue;
    }
    for (int a = 0; a < s->nargs; a++) {
      xtensor *x = &e->t[s->args[a]];
      e->argv[a] = tdata(e, s->args[a]);
      if (x->where == W_DMA && ovta_buf_invalidate(x->buf, 0, x->nbytes, err)) return ovta_error_wrap(err, "node %s", s->node);
    }
    s->call(e->argv);
    s->last.ns = now_ns() - t0;
    s->runs++;
    for (int a = 0; a < s->nargs; a++) {
      xtensor *x = &e->t[s->args[a]];
      if (x->where == W_DMA && ovta_buf_flush(x->buf, 0, x->nbytes, err)) return ovta_error_wrap(err, "node %s", s->node);
    }
  }
  return 0;
}

int ovta_exec_get_output(const ovta_exec *e, int i, ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  if (i < 0 || i >= e->nout) return OVTA_FAIL(err, OVTA_EINVAL, "output %d out of range (%d outputs)", i, e->nout);
  const xtensor *x = &e->t[e->out[i]];
  if (!tdata(e, e->out[i])) return OVTA_FAIL(err, OVTA_EINVAL, "output %s: in device memory, no device attached", x->name);
  if (x->where == W_DMA && ovta_buf_invalidate(x->buf, 0, x->nbytes, err)) return err->code;
  ovta_tensor *t = ovta_tensor_new(x->name, x->dtype, x->rank, x->shape);
  if (!t) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for output %s", x->name);
  int rc = ovta_tensor_set_data(t, tdata(e, e->out[i]), x->nbytes, err);
  if (rc) {
    ovta_tensor_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

/* ---------------------------------------------------------------- save / load */

static int write_file(const char *path, const void *d, size_t n, ovta_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno));
  size_t w = n ? fwrite(d, 1, n, f) : 0;
  if (fclose(f) != 0 || w != n) return OVTA_FAIL(err, OVTA_EIO, "%s: write failed", path);
  return 0;
}

int ovta_exec_save(const ovta_exec *e, const char *dir, ovta_error *err) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", dir, strerror(errno));
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "format", PLAN_FORMAT);
  cJSON_AddNumberToObject(root, "arena_bytes", (double)e->arena_size);
  cJSON_AddNumberToObject(root, "unshared_bytes", (double)e->unshared);
  cJSON_AddNumberToObject(root, "params_bytes", (double)e->params_size);
  cJSON *ts = cJSON_AddArrayToObject(root, "tensors");
  for (int i = 0; i < e->nt; i++) {
    const xtensor *x = &e->t[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", x->name);
    cJSON_AddStringToObject(o, "dtype", ovta_dtype_name(x->dtype));
    cJSON *sh = cJSON_AddArrayToObject(o, "shape");
    for (int d = 0; d < x->rank; d++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)x->shape[d]));
    cJSON_AddStringToObject(o, "where", x->where == W_PARAM ? "params" : x->where == W_DMA ? "dma" : "arena");
    if (x->dma) cJSON_AddBoolToObject(o, "dma", 1);
    cJSON_AddNumberToObject(o, "offset", (double)x->offset);
    cJSON_AddNumberToObject(o, "bytes", (double)x->nbytes);
    cJSON_AddItemToArray(ts, o);
  }
  cJSON *ss = cJSON_AddArrayToObject(root, "steps");
  for (int i = 0; i < e->ns; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "node", e->s[i].node);
    cJSON_AddStringToObject(o, "fn", e->s[i].fn);
    if (e->s[i].op) cJSON_AddStringToObject(o, "op", e->s[i].op);
    if (e->s[i].macs) cJSON_AddNumberToObject(o, "macs", (double)e->s[i].macs);
    if (e->s[i].vta) {
      const xstep *st = &e->s[i];
      cJSON_AddStringToObject(o, "kind", "vta");
      cJSON *vb = cJSON_AddArrayToObject(o, "bufs");
      for (int b = 0; b < VTA_BUF_COUNT; b++) cJSON_AddItemToArray(vb, cJSON_CreateNumber(st->vb[b]));
      cJSON_AddStringToObject(o, "detail", st->detail ? st->detail : "");
      cJSON_AddNumberToObject(o, "insns", (double)st->insns);
      cJSON_AddNumberToObject(o, "uops_recorded", (double)st->uops_recorded);
      cJSON_AddNumberToObject(o, "kernels", (double)st->kernels);
    }
    cJSON *a = cJSON_AddArrayToObject(o, "args");
    for (int k = 0; k < e->s[i].nargs; k++) cJSON_AddItemToArray(a, cJSON_CreateNumber(e->s[i].args[k]));
    cJSON_AddItemToArray(ss, o);
  }
  cJSON *in = cJSON_AddArrayToObject(root, "inputs"), *out = cJSON_AddArrayToObject(root, "outputs");
  for (int i = 0; i < e->nin; i++) cJSON_AddItemToArray(in, cJSON_CreateNumber(e->in[i]));
  for (int i = 0; i < e->nout; i++) cJSON_AddItemToArray(out, cJSON_CreateNumber(e->out[i]));
  if (e->triple) {
    cJSON *tg = cJSON_AddObjectToObject(root, "target");
    cJSON_AddStringToObject(tg, "triple", e->triple);
    cJSON_AddStringToObject(tg, "cpu", e->cpu);
    cJSON_AddStringToObject(tg, "features", e->features);
  }
  if (e->accel) {
    cJSON *ac = cJSON_AddObjectToObject(root, "accel");
    char *cj = ovta_config_to_json(&e->cfg, false);
    cJSON *cfg = cj ? cJSON_Parse(cj) : NULL;
    free(cj);
    if (cfg) cJSON_AddItemToObject(ac, "config", cfg);
    cJSON_AddStringToObject(ac, "report", e->report ? e->report : "");
  }
  char *txt = cJSON_Print(root);
  cJSON_Delete(root);
  if (!txt) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory writing the plan");
  char path[4096];
  snprintf(path, sizeof path, "%s/plan.json", dir);
  int rc = write_file(path, txt, strlen(txt), err);
  free(txt);
  snprintf(path, sizeof path, "%s/params.bin", dir);
  if (!rc) rc = write_file(path, e->params, e->params_size, err);
  snprintf(path, sizeof path, "%s/kernels.o", dir);
  if (!rc) rc = write_file(path, e->obj, e->obj_len, err);
  return rc;
}

/* A non-negative integer member of a JSON object. */
static bool jint(const cJSON *o, const char *k, int64_t max, int64_t *v) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > (double)max || x->valuedouble != (double)(int64_t)x->valuedouble)
    return false;
  *v = (int64_t)x->valuedouble;
  return true;
}

static int read_bin(const char *dir, const char *name, void **d, size_t *n, ovta_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *p;
  int rc = ovta_read_file(path, (size_t)1 << 34, &p, n, err);
  *d = p;
  return rc;
}

/* The error for a plan.json that is not what ovta_exec_save writes, at the tensor / step reached. */
static int malformed(const ovta_exec *e, const char *where, ovta_error *err) {
  return OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed plan (tensor %d, step %d)", where, e->nt, e->ns);
}

/* Guarantees: *root is DIR/plan.json parsed; where names it for errors. */
static int read_plan_json(const char *dir, char *where, size_t wlen, cJSON **root, ovta_error *err) {
  void *txt;
  size_t len;
  snprintf(where, wlen, "%s/plan.json", dir);
  int rc = read_bin(dir, "plan.json", &txt, &len, err);
  if (rc) return rc;
  *root = cJSON_Parse(txt);
  free(txt);
  return *root ? 0 : OVTA_FAIL(err, OVTA_EPARSE, "%s: not valid JSON", where);
}

/* Guarantees: the format is this one (with tensors, steps, inputs, outputs arrays); accel plans
 * have their config and report; the arena and unshared sizes read. */
static int load_header(ovta_exec *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  int64_t v;
  int rc;
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, PLAN_FORMAT) != 0 ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "tensors")) ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "steps")) ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "inputs")) ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "outputs")))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: not an %s plan (format, tensors, steps, inputs, outputs)", where, PLAN_FORMAT);
  const cJSON *ac = cJSON_GetObjectItemCaseSensitive(root, "accel");
  if (ac) {
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(ac, "config"), *rp = cJSON_GetObjectItemCaseSensitive(ac, "report");
    char *cj = cfg ? cJSON_PrintUnformatted(cfg) : NULL;
    rc = cj ? ovta_config_parse(cj, where, &e->cfg, err) : OVTA_FAIL(err, OVTA_EPARSE, "%s: accel without config", where);
    free(cj);
    if (rc) return rc;
    e->accel = true;
    e->report = strdup(cJSON_IsString(rp) ? rp->valuestring : "");
  }
  if (!jint(root, "arena_bytes", (int64_t)1 << 40, &v)) return malformed(e, where, err);
  e->arena_size = (size_t)v;
  if (!jint(root, "unshared_bytes", (int64_t)1 << 50, &v)) return malformed(e, where, err);
  e->unshared = (size_t)v;
  return 0;
}

/* Guarantees: room for every tensor, step, input and output; the params blob read. */
static int load_params(ovta_exec *e, const cJSON *root, const char *dir, ovta_error *err) {
  e->t = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "tensors")) + 1, sizeof *e->t);
  e->s = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "steps")) + 1, sizeof *e->s);
  e->in = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "inputs")) + 1, sizeof(int));
  e->out = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "outputs")) + 1, sizeof(int));
  return read_bin(dir, "params.bin", (void **)&e->params, &e->params_size, err);
}

/* One tensor of plan.json as the next exec tensor: name, dtype, static shape, where it lives; its
 * offset and bytes inside the params blob, the arena or its DMA buffer. */
static int load_tensor(ovta_exec *e, const cJSON *it, const char *where, ovta_error *err) {
  xtensor *x = &e->t[e->nt];
  int64_t v;
  const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name"), *dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(it, "shape"), *wh = cJSON_GetObjectItemCaseSensitive(it, "where");
  if (!cJSON_IsString(nm) || !cJSON_IsString(dt) || !cJSON_IsArray(sh) || !cJSON_IsString(wh)) return malformed(e, where, err);
  x->name = strdup(nm->valuestring);
  x->dtype = ovta_dtype_parse(dt->valuestring);
  x->rank = cJSON_GetArraySize(sh);
  if (x->dtype == OVTA_DT_UNDEF || x->rank > OVTA_MAX_RANK) goto bad;
  for (int d = 0; d < x->rank; d++) {
    const cJSON *s = cJSON_GetArrayItem(sh, d);
    if (!cJSON_IsNumber(s) || s->valuedouble < 0) goto bad;
    x->shape[d] = (int64_t)s->valuedouble;
  }
  x->where = strcmp(wh->valuestring, "params") == 0 ? W_PARAM : strcmp(wh->valuestring, "dma") == 0 ? W_DMA : W_ARENA;
  x->dma = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "dma")) || x->where == W_DMA;
  if (!jint(it, "offset", (int64_t)1 << 50, &v)) goto bad;
  x->offset = (size_t)v;
  if (!jint(it, "bytes", (int64_t)1 << 50, &v)) goto bad;
  x->nbytes = (size_t)v;
  int64_t numel = ovta_shape_numel(x->shape, x->rank);
  size_t lim = x->where == W_PARAM ? e->params_size : x->where == W_DMA ? x->nbytes : e->arena_size;
  if (x->where == W_DMA) x->offset = 0;
  e->nt++;
  if (numel < 0 || (size_t)numel * ovta_dtype_size(x->dtype) != x->nbytes || x->offset > lim || x->nbytes > lim - x->offset)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: tensor %s: size or offset out of range", where, x->name);
  return 0;
bad:
  free(x->name);
  x->name = NULL;
  return malformed(e, where, err);
}

/* The accelerator fields of step s: its DMA buffers (x, w, y required; each a DMA tensor), tiling
 * and host-code counts. Only in an accel plan. */
static int load_vta_step(ovta_exec *e, xstep *s, const cJSON *it, const char *where, ovta_error *err) {
  int64_t v;
  const cJSON *vb = cJSON_GetObjectItemCaseSensitive(it, "bufs"), *dt = cJSON_GetObjectItemCaseSensitive(it, "detail");
  if (!cJSON_IsArray(vb) || cJSON_GetArraySize(vb) != VTA_BUF_COUNT || !e->accel) return malformed(e, where, err);
  for (int b = 0; b < VTA_BUF_COUNT; b++) {
    const cJSON *q = cJSON_GetArrayItem(vb, b);
    if (!cJSON_IsNumber(q) || q->valuedouble < -1 || q->valuedouble >= e->nt) return malformed(e, where, err);
    s->vb[b] = (int)q->valuedouble;
    if (s->vb[b] >= 0 && !e->t[s->vb[b]].dma) return malformed(e, where, err);
  }
  if (s->vb[VTA_BUF_X] < 0 || s->vb[VTA_BUF_W] < 0 || s->vb[VTA_BUF_Y] < 0) return malformed(e, where, err);
  s->vta = true;
  s->detail = strdup(cJSON_IsString(dt) ? dt->valuestring : "");
  if (jint(it, "insns", (int64_t)1 << 50, &v)) s->insns = (uint64_t)v;
  if (jint(it, "uops_recorded", (int64_t)1 << 50, &v)) s->uops_recorded = (uint64_t)v;
  if (jint(it, "kernels", (int64_t)1 << 50, &v)) s->kernels = (uint64_t)v;
  return 0;
}

/* One step of plan.json as the next step: node, function, op and MACs, the accelerator fields
 * ("kind": "vta") and the arguments, each a tensor loaded before. */
static int load_step(ovta_exec *e, const cJSON *it, const char *where, ovta_error *err) {
  xstep *s = &e->s[e->ns];
  int64_t v;
  const cJSON *nd = cJSON_GetObjectItemCaseSensitive(it, "node"), *fn = cJSON_GetObjectItemCaseSensitive(it, "fn");
  const cJSON *ar = cJSON_GetObjectItemCaseSensitive(it, "args");
  if (!cJSON_IsString(nd) || !cJSON_IsString(fn) || !cJSON_IsArray(ar)) return malformed(e, where, err);
  s->node = strdup(nd->valuestring);
  s->fn = strdup(fn->valuestring);
  s->args = calloc((size_t)cJSON_GetArraySize(ar) + 1, sizeof(int));
  s->vb[0] = s->vb[1] = s->vb[2] = s->vb[3] = -1;
  e->ns++;
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(it, "op");
  if (cJSON_IsString(op)) s->op = strdup(op->valuestring);
  if (jint(it, "macs", (int64_t)1 << 52, &v)) s->macs = v;
  const cJSON *kd = cJSON_GetObjectItemCaseSensitive(it, "kind");
  if (cJSON_IsString(kd) && !strcmp(kd->valuestring, "vta")) {
    int rc = load_vta_step(e, s, it, where, err);
    if (rc) return rc;
  } else if (kd) {
    return malformed(e, where, err);
  }
  const cJSON *a;
  cJSON_ArrayForEach(a, ar) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt) return malformed(e, where, err);
    s->args[s->nargs++] = (int)a->valuedouble;
  }
  return 0;
}

/* Guarantees: every tensor, then every step, loaded and checked (load_tensor, load_step). */
static int load_tensors_and_steps(ovta_exec *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *it;
  int rc;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "tensors"))
    if ((rc = load_tensor(e, it, where, err))) return rc;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "steps"))
    if ((rc = load_step(e, it, where, err))) return rc;
  return 0;
}

/* Guarantees: the graph inputs and outputs, each a tensor loaded. */
static int load_io(ovta_exec *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *a;
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(root, "inputs")) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt) return malformed(e, where, err);
    e->in[e->nin++] = (int)a->valuedouble;
  }
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(root, "outputs")) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt) return malformed(e, where, err);
    e->out[e->nout++] = (int)a->valuedouble;
  }
  return 0;
}

/* Guarantees: the machine kernels.o is for (triple, CPU, features) recorded and able to run here
 * (plans without "target" predate it: this machine's). */
static int load_target(ovta_exec *e, const cJSON *root, const char *dir, const char *where, ovta_error *err) {
  const cJSON *tg = cJSON_GetObjectItemCaseSensitive(root, "target");
  if (!tg) return 0;
  const cJSON *tt = cJSON_GetObjectItemCaseSensitive(tg, "triple"), *tc = cJSON_GetObjectItemCaseSensitive(tg, "cpu");
  const cJSON *tf = cJSON_GetObjectItemCaseSensitive(tg, "features");
  if (!cJSON_IsString(tt) || !cJSON_IsString(tc) || !cJSON_IsString(tf))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed target (triple, cpu, features)", where);
  e->triple = strdup(tt->valuestring), e->cpu = strdup(tc->valuestring), e->features = strdup(tf->valuestring);
  if (!e->triple || !e->cpu || !e->features) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  int rc = lir_target_check(e->triple, e->features, err);
  if (rc) ovta_error_wrap(err, "%s: the plan cannot run here (compile it on this machine, or with --triple for it)", dir);
  return rc;
}

/* A plan folder back into an executor, one step after the other: every offset and size checked
 * against the blobs, kernels.o loaded into a JIT without recompiling. */
int ovta_exec_load(const char *dir, ovta_exec **out, ovta_error *err) {
  *out = NULL;
  char where[4200];
  cJSON *root = NULL;
  int rc = read_plan_json(dir, where, sizeof where, &root, err);
  if (rc) return rc;
  ovta_exec *e = calloc(1, sizeof *e);
  if (!e) rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (!rc) rc = load_header(e, root, where, err);              /* format, accel config and report, sizes */
  if (!rc) rc = load_params(e, root, dir, err);                /* params.bin */
  if (!rc) rc = load_tensors_and_steps(e, root, where, err);   /* the tensor table, the steps */
  if (!rc) rc = load_io(e, root, where, err);                  /* graph inputs and outputs */
  if (!rc) rc = load_target(e, root, dir, where, err);         /* the machine of kernels.o */
  if (!rc && e->ns) rc = read_bin(dir, "kernels.o", &e->obj, &e->obj_len, err); /* object code */
  if (!rc) rc = finish(e, err);                                /* arena, JIT, steps resolved */
  cJSON_Delete(root);
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
