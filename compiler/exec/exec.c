/* exec.c: the graph executor (exec.h): lowering of every node, one LLVM
 * module compiled to object code and loaded into the JIT, liveness-based memory planning,
 * save/load of the plan, and the evaluation hook for graph passes. */
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

/* ---------------------------------------------------------------- build */

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

/* The operators the accelerator runs (vta_op_from_node): GEMM ones and the ALU ones. */
static bool accel_op(const ovta_node *n) {
  return !strcmp(n->op, "ovta.QConv") || !strcmp(n->op, "ovta.QDense") || !strcmp(n->op, "ovta.QAdd") ||
         !strcmp(n->op, "ovta.QMaxPool");
}

static bool alu_kind(const vta_plan *p) { return p->op.kind == VTA_ADD || p->op.kind == VTA_MAXPOOL; }

/* Accelerator preparation of a copy of the graph: pack/partition when not done yet, then per
 * packed ovta.QConv / ovta.QDense: compile it for the accelerator, or move it back to the plain
 * layout for the CPU (with the reason in the report). kern[i] is the kernel of node i (NULL: cpu). */
static int accel_prepare(ovta_graph *g, const ovta_exec_opts *o, const ovta_config *cfg, vta_kernel ***kern_out,
                         FILE *rep, ovta_error *err) {
  *kern_out = NULL;
  bool need_pack, need_part;
  exec_accel_needs(g, &need_pack, &need_part);
  int rc = 0;
  if (need_pack || need_part) {
    ovta_compile_opts co = {0};
    co.cfg = cfg;
    co.passes = need_pack ? "pack,partition" : "partition";
    if ((rc = ovta_compile_pipeline(g, &co, err))) return rc;
  }
  if ((rc = ovta_graph_index(g, err))) return rc;
  int n_acc = 0, n_fb = 0;
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool q = accel_op(n);
    if (!q || !n->inputs[0] || n->inputs[0]->layout != OVTA_LAYOUT_ACT) continue;
    vta_op op;
    vta_knobs k = {.vthreads = o->vthreads};
    vta_plan p;
    ovta_error e = {0};
    if (n->target != OVTA_TARGET_ACCEL) rc = OVTA_FAIL(&e, OVTA_EUNSUPPORTED, "%s (%s): partitioned to the cpu", n->name, n->op);
    else rc = vta_op_from_node(g, n, cfg, &op, &e);
    if (!rc && o->tuning_json) rc = vta_knobs_from_json(o->tuning_json, "tuning", n->name, &k, &e);
    if (!rc) rc = vta_plan_make(cfg, &op, &k, &p, &e);
    if (rc == OVTA_ENOMEM || rc == OVTA_EINTERNAL || rc == OVTA_EPARSE) {
      *err = e;
      return rc;
    }
    if (!rc) {
      n_acc++;
      continue;
    }
    /* fallback: the CPU path on the plain layout */
    char name[128], opn[48];
    snprintf(name, sizeof name, "%s", n->name), snprintf(opn, sizeof opn, "%s", n->op);
    if ((rc = exec_unpack_node(g, &i, cfg, err))) return rc;
    n_fb++;
    if (rep) fprintf(rep, "node %s op %s: cpu (fallback, plain layout): %s\n", name, opn, e.msg);
  }
  (void)n_acc, (void)n_fb;
  vta_kernel **kern = calloc((size_t)g->n_nodes + 1, sizeof *kern);
  if (!kern) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  *kern_out = kern;
  for (int i = 0; i < g->n_nodes; i++) {
    ovta_node *n = g->nodes[i];
    bool q = accel_op(n);
    if (!q || n->target != OVTA_TARGET_ACCEL || !n->inputs[0] || n->inputs[0]->layout != OVTA_LAYOUT_ACT) continue;
    vta_op op;
    vta_knobs k = {.vthreads = o->vthreads};
    vta_plan p;
    char sym[64];
    snprintf(sym, sizeof sym, "ovta_k%d_vta", i);
    vta_compile_opts co = {.no_jit = true, .symbol = sym};
    if ((rc = vta_op_from_node(g, n, cfg, &op, err)) ||
        (o->tuning_json && (rc = vta_knobs_from_json(o->tuning_json, "tuning", n->name, &k, err))) ||
        (rc = vta_plan_make(cfg, &op, &k, &p, err)) || (rc = vta_compile_ex(&p, &co, &kern[i], err)))
      return ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
  }
  return 0;
}

static void report_line(FILE *rep, const ovta_node *n, const vta_kernel *k, const vta_counts *c) {
  if (!rep) return;
  if (!k) {
    fprintf(rep, "node %s op %s: cpu\n", n->name, n->op);
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

int ovta_exec_build(ovta_graph *g, const ovta_exec_opts *o, ovta_exec **out, ovta_error *err) {
  *out = NULL;
  ovta_exec_opts dflt;
  if (!o) {
    ovta_exec_opts_init(&dflt);
    o = &dflt;
  }
  int rc = 0;
  if (needs_infer(g) && (rc = ovta_infer_graph(g, err))) return rc;
  ovta_graph *g2 = NULL;
  vta_kernel **kern = NULL;
  char *rtext = NULL;
  size_t rlen = 0;
  FILE *rep = NULL;
  ovta_exec *e = calloc(1, sizeof *e);
  if (!e) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
  if (o->accel) {
    if (o->cfg) e->cfg = *o->cfg;
    else if ((rc = ovta_config_load("default", &e->cfg, err))) {
      free(e);
      return rc;
    }
    e->accel = true;
    rep = open_memstream(&rtext, &rlen);
    g2 = ovta_graph_clone(g);
    if (!g2 || !rep) {
      rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
      free(e);
      e = NULL;
      goto early;
    }
    if ((rc = accel_prepare(g2, o, &e->cfg, &kern, rep, err))) {
      free(e);
      e = NULL;
      goto early;
    }
    g = g2;
  }
  int nt = g->n_tensors, nn = g->n_nodes;
  int *map = malloc(sizeof(int) * (size_t)(nt + 1)); /* graph tensor -> exec tensor, -1 unused */
  int *def = malloc(sizeof(int) * (size_t)(nt + 1)), *last = malloc(sizeof(int) * (size_t)(nt + 1));
  bool *dma = calloc((size_t)nt + 1, sizeof *dma);
  blk *blks = calloc((size_t)nt + 1, sizeof *blks), *tmp = calloc((size_t)nt + 1, sizeof *tmp);
  lir_module *m = NULL;
  if (!map || !def || !last || !blks || !tmp || !dma) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
    goto done;
  }
  e->t = calloc((size_t)(nt + nn) + 1, sizeof *e->t);
  e->s = calloc((size_t)g->n_nodes + 1, sizeof *e->s);
  e->in = calloc((size_t)g->n_inputs + 1, sizeof(int));
  e->out = calloc((size_t)g->n_outputs + 1, sizeof(int));
  if (!e->t || !e->s || !e->in || !e->out) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory compiling graph %s", g->name);
    goto done;
  }
  for (int i = 0; i < nt; i++) map[i] = -1, def[i] = -2, last[i] = -2;
  /* accelerator tensors: x, w and y of every accelerator node live in DMA buffers */
  for (int s = 0; kern && s < g->n_nodes; s++)
    if (kern[s]) {
      const ovta_node *n = g->nodes[s];
      dma[tindex(g, n->inputs[0])] = dma[tindex(g, n->outputs[0])] = true;
      if (n->n_inputs > 1 && n->inputs[1]) dma[tindex(g, n->inputs[1])] = true;
    }
  /* liveness: def = producing step (-1 for inputs), last = last consuming step */
  for (int i = 0; i < g->n_inputs; i++) {
    int k = tindex(g, g->inputs[i]);
    def[k] = -1;
    last[k] = g->n_nodes; /* inputs stay intact, so a plan can run again on the same inputs */
  }
  for (int s = 0; s < g->n_nodes; s++) {
    const ovta_node *n = g->nodes[s];
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k]) {
        int x = tindex(g, n->inputs[k]);
        if (x >= 0 && s > last[x]) last[x] = s;
      }
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k]) {
        int x = tindex(g, n->outputs[k]);
        def[x] = s;
        if (last[x] < s) last[x] = s;
      }
  }
  for (int i = 0; i < g->n_outputs; i++) last[tindex(g, g->outputs[i])] = g->n_nodes;
  /* tensors used: inputs, then every node input/output in order */
  int nb = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < nt; i++) {
      const ovta_tensor *t = g->tensors[i];
      if (last[i] == -2 && def[i] == -2) continue;
      bool is_input = def[i] == -1 && t->kind == OVTA_TK_INPUT;
      if ((pass == 0) != is_input) continue;
      xtensor *x = &e->t[e->nt];
      if (t->dtype == OVTA_DT_UNDEF || t->dtype == OVTA_DT_STRING || t->dtype == OVTA_DT_F16 ||
          ovta_tensor_numel(t) < 0) {
        rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "tensor %s: dtype %s or shape not static", t->name,
                       ovta_dtype_name(t->dtype));
        goto done;
      }
      if ((uint64_t)ovta_tensor_numel(t) > MAX_ARENA / ovta_dtype_size(t->dtype)) {
        rc = OVTA_FAIL(err, OVTA_ENOMEM, "tensor %s: %lld elements of %s, above the limit of %zu bytes (16 GiB)",
                       t->name, (long long)ovta_tensor_numel(t), ovta_dtype_name(t->dtype), MAX_ARENA);
        goto done;
      }
      x->name = strdup(t->name);
      x->dtype = t->dtype;
      x->rank = t->rank;
      memcpy(x->shape, t->shape, sizeof x->shape);
      x->nbytes = (size_t)ovta_tensor_numel(t) * ovta_dtype_size(t->dtype);
      x->dma = dma[i];
      if (t->kind == OVTA_TK_CONST) {
        if (!t->data || t->nbytes != x->nbytes) {
          rc = OVTA_FAIL(err, OVTA_EINVAL, "constant %s: %zu bytes of data, shape needs %zu", t->name, t->nbytes, x->nbytes);
          goto done;
        }
        x->where = W_PARAM;
        x->offset = e->params_size;
        e->params_size = align_up(e->params_size + x->nbytes);
      } else if (dma[i]) {
        x->where = W_DMA; /* its own DMA buffer, given by ovta_exec_attach */
        e->unshared += align_up(x->nbytes);
      } else {
        x->where = W_ARENA;
        int now = def[i] < 0 ? -1 : def[i];
        x->offset = place(blks, nb, now, x->nbytes, tmp);
        blks[nb++] = (blk){x->offset, x->nbytes, last[i]};
        if (x->offset + x->nbytes > e->arena_size) e->arena_size = x->offset + x->nbytes;
        e->unshared += align_up(x->nbytes);
      }
      map[i] = e->nt++;
    }
  /* accelerator biases, expanded to ACC elements [O/BO][B][BO] (vta_pack_bias): new constants */
  int *bias_t = calloc((size_t)nn + 1, sizeof *bias_t);
  if (!bias_t) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    goto done;
  }
  for (int s = 0; s < nn; s++) {
    bias_t[s] = -1;
    if (!kern || !kern[s] || (!vta_kernel_plan(kern[s])->op.has_bias && !alu_kind(vta_kernel_plan(kern[s])))) continue;
    const vta_plan *p = vta_kernel_plan(kern[s]);
    bool alu = alu_kind(p);
    xtensor *x = &e->t[e->nt];
    char nm[600];
    /* ALU operators: the identity weight block (vta_pack_identity) in the bias slot */
    if (alu) snprintf(nm, sizeof nm, "%s.ident", g->nodes[s]->name);
    else snprintf(nm, sizeof nm, "%s.acc", g->nodes[s]->inputs[2]->name);
    x->name = strdup(nm);
    x->dtype = alu ? OVTA_DT_I8 : OVTA_DT_I32;
    x->nbytes = vta_bias_bytes(p);
    x->rank = 1;
    x->shape[0] = (int64_t)(x->nbytes / (alu ? 1 : 4));
    x->dma = true;
    x->where = W_PARAM;
    x->offset = e->params_size;
    e->params_size = align_up(e->params_size + x->nbytes);
    bias_t[s] = e->nt++;
  }
  for (int i = 0; i < g->n_inputs; i++) e->in[e->nin++] = map[tindex(g, g->inputs[i])];
  for (int i = 0; i < g->n_outputs; i++) e->out[e->nout++] = map[tindex(g, g->outputs[i])];
  e->params = malloc(e->params_size ? e->params_size : 1);
  if (!e->params) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for %zu bytes of params", e->params_size);
    free(bias_t);
    goto done;
  }
  memset(e->params, 0, e->params_size);
  for (int i = 0; i < nt; i++)
    if (map[i] >= 0 && e->t[map[i]].where == W_PARAM)
      memcpy(e->params + e->t[map[i]].offset, g->tensors[i]->data, e->t[map[i]].nbytes);
  for (int s = 0; s < nn; s++)
    if (bias_t[s] >= 0) {
      const vta_plan *p = vta_kernel_plan(kern[s]);
      if (alu_kind(p)) {
        vta_pack_identity(p, (int8_t *)(e->params + e->t[bias_t[s]].offset));
        continue;
      }
      const ovta_tensor *b = g->nodes[s]->inputs[2];
      if (b->nbytes < (size_t)p->op.o * 4 || !b->data) {
        rc = OVTA_FAIL(err, OVTA_EINVAL, "node %s: bias %s has %zu bytes, %d channels need %d", g->nodes[s]->name,
                       b->name, b->nbytes, p->op.o, p->op.o * 4);
        free(bias_t);
        goto done;
      }
      vta_pack_bias(p, (const int32_t *)b->data, (int32_t *)(e->params + e->t[bias_t[s]].offset));
    }
  /* lower and compile every node */
  rc = lir_module_new(g->name ? g->name : "graph", &o->cg, &m, err);
  for (int s = 0; !rc && s < g->n_nodes; s++) {
    const ovta_node *n = g->nodes[s];
    xstep *st = &e->s[e->ns];
    if (kern && kern[s]) {
      vta_counts c;
      if ((rc = vta_kernel_count(kern[s], &c, err)) || (rc = vta_kernel_module_add(kern[s], m, err))) {
        ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
        break;
      }
      if (o->dump_lir) lir_dump(o->dump_lir, vta_kernel_host(kern[s]));
      report_line(rep, n, kern[s], &c);
      char ps[256];
      vta_plan_str(vta_kernel_plan(kern[s]), ps, sizeof ps);
      st->vta = true;
      st->detail = strdup(ps);
      st->insns = c.insns, st->uops_recorded = c.uops_recorded, st->kernels = c.kernels;
      st->node = strdup(n->name);
      st->fn = strdup(vta_kernel_host(kern[s])->name);
      st->args = calloc(1, sizeof(int));
      st->vb[VTA_BUF_X] = map[tindex(g, n->inputs[0])];
      /* ovta.QMaxPool has no w operand: its host code never reads that buffer */
      st->vb[VTA_BUF_W] = map[tindex(g, n->n_inputs > 1 && n->inputs[1] ? n->inputs[1] : n->inputs[0])];
      st->vb[VTA_BUF_BIAS] = bias_t[s];
      st->vb[VTA_BUF_Y] = map[tindex(g, n->outputs[0])];
      st->op = strdup(n->op), st->macs = ovta_node_macs(n);
      e->ns++;
      continue;
    }
    char fname[96], opn[48];
    size_t k = 0;
    for (const char *p = n->op; *p && k < sizeof opn - 1; p++)
      opn[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_';
    opn[k] = 0;
    snprintf(fname, sizeof fname, "ovta_k%d_%s", s, opn);
    lir_func *f;
    if (!strcmp(n->op, "ovta.Pack") || !strcmp(n->op, "ovta.Unpack")) rc = exec_lower_layout(g, n, fname, &f, err);
    else rc = lir_lower_node(g, n, fname, &f, err);
    if (rc) break;
    if (e->accel) report_line(rep, n, NULL, NULL);
    if (o->dump_lir) lir_dump(o->dump_lir, f);
    rc = lir_module_add(m, f, err);
    lir_func_free(f);
    if (rc) {
      ovta_error_wrap(err, "node %s (%s)", n->name, n->op);
      break;
    }
    st->node = strdup(n->name);
    st->fn = strdup(fname);
    st->vb[0] = st->vb[1] = st->vb[2] = st->vb[3] = -1;
    st->args = calloc((size_t)(n->n_inputs + n->n_outputs) + 1, sizeof(int));
    for (int q = 0; q < n->n_inputs; q++)
      if (n->inputs[q]) st->args[st->nargs++] = map[tindex(g, n->inputs[q])];
    for (int q = 0; q < n->n_outputs; q++)
      if (n->outputs[q]) st->args[st->nargs++] = map[tindex(g, n->outputs[q])];
    st->op = strdup(n->op), st->macs = ovta_node_macs(n);
    e->ns++;
  }
  free(bias_t);
  if (rc) goto done;
  if ((rc = lir_module_optimize(m, err))) goto done;
  if (e->ns && (rc = lir_module_emit_object_mem(m, &e->obj, &e->obj_len, err))) goto done;
  const char *tt, *tc, *tf;
  lir_module_target(m, &tt, &tc, &tf);
  e->triple = strdup(tt), e->cpu = strdup(tc), e->features = strdup(tf);
  if (!e->triple || !e->cpu || !e->features) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    goto done;
  }
  ovta_error terr = {0};
  e->foreign = o->cg.triple && lir_target_check(e->triple, e->features, &terr) != 0;
  if (e->foreign && o->backend && strcmp(o->backend, "cpu"))
    rc = OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: the plan is for %s (%s), not this machine", o->backend, e->triple,
                   terr.msg);
  else if (!e->foreign)
    rc = finish(e, err);
  if (!rc && rep) {
    int na = ovta_exec_accel_nodes(e);
    fprintf(rep, "summary: %d node(s) on the accelerator (%s), %d on the cpu\n", na, e->cfg.name, e->ns - na);
  }
  if (!rc && o->backend && strcmp(o->backend, "cpu")) rc = ovta_exec_attach(e, o->backend, o->dev_opts, err);
done:
  lir_module_free(m);
  free(map);
  free(def);
  free(last);
  free(blks);
  free(tmp);
  free(dma);
early:
  if (kern)
    for (int i = 0; g2 && i < g2->n_nodes; i++) vta_kernel_free(kern[i]);
  free(kern);
  if (rep) {
    fclose(rep);
    if (e) e->report = rtext;
    else free(rtext);
  }
  ovta_graph_free(g2);
  if (rc) ovta_exec_free(e);
  else {
    if (o->report && e->report) fputs(e->report, o->report);
    *out = e;
  }
  return rc;
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
      return OVTA_FAIL(err, OVTA_EINVAL, "input %s: shape %s, the model expects %s", name, a, b);
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

int ovta_exec_load(const char *dir, ovta_exec **out, ovta_error *err) {
  *out = NULL;
  void *txt;
  size_t len;
  int rc = read_bin(dir, "plan.json", &txt, &len, err);
  if (rc) return rc;
  cJSON *root = cJSON_Parse(txt);
  free(txt);
  char where[4200];
  snprintf(where, sizeof where, "%s/plan.json", dir);
  if (!root) return OVTA_FAIL(err, OVTA_EPARSE, "%s: not valid JSON", where);
  ovta_exec *e = calloc(1, sizeof *e);
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  const cJSON *ts = cJSON_GetObjectItemCaseSensitive(root, "tensors"), *ss = cJSON_GetObjectItemCaseSensitive(root, "steps");
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(root, "inputs"), *ou = cJSON_GetObjectItemCaseSensitive(root, "outputs");
  int64_t v;
  if (!e) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
    goto done;
  }
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, PLAN_FORMAT) != 0 || !cJSON_IsArray(ts) || !cJSON_IsArray(ss) ||
      !cJSON_IsArray(in) || !cJSON_IsArray(ou)) {
    rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: not an %s plan (format, tensors, steps, inputs, outputs)", where, PLAN_FORMAT);
    goto done;
  }
  const cJSON *ac = cJSON_GetObjectItemCaseSensitive(root, "accel");
  if (ac) {
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(ac, "config"), *rp = cJSON_GetObjectItemCaseSensitive(ac, "report");
    char *cj = cfg ? cJSON_PrintUnformatted(cfg) : NULL;
    rc = cj ? ovta_config_parse(cj, where, &e->cfg, err) : OVTA_FAIL(err, OVTA_EPARSE, "%s: accel without config", where);
    free(cj);
    if (rc) goto done;
    e->accel = true;
    e->report = strdup(cJSON_IsString(rp) ? rp->valuestring : "");
  }
  if (!jint(root, "arena_bytes", (int64_t)1 << 40, &v)) goto bad;
  e->arena_size = (size_t)v;
  if (!jint(root, "unshared_bytes", (int64_t)1 << 50, &v)) goto bad;
  e->unshared = (size_t)v;
  int n = cJSON_GetArraySize(ts);
  e->t = calloc((size_t)n + 1, sizeof *e->t);
  e->s = calloc((size_t)cJSON_GetArraySize(ss) + 1, sizeof *e->s);
  e->in = calloc((size_t)cJSON_GetArraySize(in) + 1, sizeof(int));
  e->out = calloc((size_t)cJSON_GetArraySize(ou) + 1, sizeof(int));
  if ((rc = read_bin(dir, "params.bin", (void **)&e->params, &e->params_size, err))) goto done;
  const cJSON *it;
  cJSON_ArrayForEach(it, ts) {
    xtensor *x = &e->t[e->nt];
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name"), *dt = cJSON_GetObjectItemCaseSensitive(it, "dtype");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(it, "shape"), *wh = cJSON_GetObjectItemCaseSensitive(it, "where");
    if (!cJSON_IsString(nm) || !cJSON_IsString(dt) || !cJSON_IsArray(sh) || !cJSON_IsString(wh)) goto bad;
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
    if (numel < 0 || (size_t)numel * ovta_dtype_size(x->dtype) != x->nbytes || x->offset > lim || x->nbytes > lim - x->offset) {
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: tensor %s: size or offset out of range", where, x->name);
      e->nt++;
      goto done;
    }
    e->nt++;
  }
  cJSON_ArrayForEach(it, ss) {
    xstep *s = &e->s[e->ns];
    const cJSON *nd = cJSON_GetObjectItemCaseSensitive(it, "node"), *fn = cJSON_GetObjectItemCaseSensitive(it, "fn");
    const cJSON *ar = cJSON_GetObjectItemCaseSensitive(it, "args");
    if (!cJSON_IsString(nd) || !cJSON_IsString(fn) || !cJSON_IsArray(ar)) goto bad;
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
      const cJSON *vb = cJSON_GetObjectItemCaseSensitive(it, "bufs"), *dt = cJSON_GetObjectItemCaseSensitive(it, "detail");
      if (!cJSON_IsArray(vb) || cJSON_GetArraySize(vb) != VTA_BUF_COUNT || !e->accel) goto bad;
      for (int b = 0; b < VTA_BUF_COUNT; b++) {
        const cJSON *q = cJSON_GetArrayItem(vb, b);
        if (!cJSON_IsNumber(q) || q->valuedouble < -1 || q->valuedouble >= e->nt) goto bad;
        s->vb[b] = (int)q->valuedouble;
        if (s->vb[b] >= 0 && !e->t[s->vb[b]].dma) goto bad;
      }
      if (s->vb[VTA_BUF_X] < 0 || s->vb[VTA_BUF_W] < 0 || s->vb[VTA_BUF_Y] < 0) goto bad;
      s->vta = true;
      s->detail = strdup(cJSON_IsString(dt) ? dt->valuestring : "");
      if (jint(it, "insns", (int64_t)1 << 50, &v)) s->insns = (uint64_t)v;
      if (jint(it, "uops_recorded", (int64_t)1 << 50, &v)) s->uops_recorded = (uint64_t)v;
      if (jint(it, "kernels", (int64_t)1 << 50, &v)) s->kernels = (uint64_t)v;
    } else if (kd) {
      goto bad;
    }
    const cJSON *a;
    cJSON_ArrayForEach(a, ar) {
      if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt) goto bad;
      s->args[s->nargs++] = (int)a->valuedouble;
    }
  }
  const cJSON *a;
  cJSON_ArrayForEach(a, in) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt) goto bad;
    e->in[e->nin++] = (int)a->valuedouble;
  }
  cJSON_ArrayForEach(a, ou) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt) goto bad;
    e->out[e->nout++] = (int)a->valuedouble;
  }
  /* the machine kernels.o is for (plans without "target" predate it: this machine's) */
  const cJSON *tg = cJSON_GetObjectItemCaseSensitive(root, "target");
  if (tg) {
    const cJSON *tt = cJSON_GetObjectItemCaseSensitive(tg, "triple"), *tc = cJSON_GetObjectItemCaseSensitive(tg, "cpu");
    const cJSON *tf = cJSON_GetObjectItemCaseSensitive(tg, "features");
    if (!cJSON_IsString(tt) || !cJSON_IsString(tc) || !cJSON_IsString(tf)) {
      rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed target (triple, cpu, features)", where);
      goto done;
    }
    e->triple = strdup(tt->valuestring), e->cpu = strdup(tc->valuestring), e->features = strdup(tf->valuestring);
    if (!e->triple || !e->cpu || !e->features) {
      rc = OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
      goto done;
    }
    if ((rc = lir_target_check(e->triple, e->features, err))) {
      ovta_error_wrap(err, "%s: the plan cannot run here (compile it on this machine, or with --triple for it)", dir);
      goto done;
    }
  }
  if (e->ns && (rc = read_bin(dir, "kernels.o", &e->obj, &e->obj_len, err))) goto done;
  rc = finish(e, err);
  goto done;
bad:
  rc = OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed plan (tensor %d, step %d)", where, e->nt, e->ns);
done:
  cJSON_Delete(root);
  if (rc) ovta_exec_free(e);
  else *out = e;
  return rc;
}

/* ---------------------------------------------------------------- evaluation hook */

int ovta_exec_eval_node(void *ctx, const ovta_graph *g, const ovta_node *n, ovta_tensor *const *inputs,
                        ovta_tensor **outputs, ovta_error *err) {
  (void)ctx;
  lir_func *f;
  int rc = lir_lower_node(g, n, "ovta_eval", &f, err);
  if (rc) return rc;
  /* the parameters follow the graph tensors; the given values must agree with them */
  void **argv = calloc((size_t)(n->n_inputs + n->n_outputs) + 1, sizeof(void *));
  lir_module *m = NULL;
  lir_jit *j = NULL;
  int na = 0;
  if (!argv) {
    rc = OVTA_FAIL(err, OVTA_ENOMEM, "node %s: out of memory", n->name);
    goto done;
  }
  for (int i = 0; i < n->n_inputs; i++) {
    if (!n->inputs[i]) continue;
    const ovta_tensor *v = inputs[i];
    if (!v || !v->data || v->dtype != n->inputs[i]->dtype || v->rank != n->inputs[i]->rank ||
        ovta_tensor_numel(v) != ovta_tensor_numel(n->inputs[i])) {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): value for input %s missing or of another type/shape", n->name,
                     n->op, n->inputs[i]->name);
      goto done;
    }
    argv[na++] = v->data;
  }
  for (int i = 0; i < n->n_outputs; i++) {
    if (!n->outputs[i]) continue;
    if (!outputs[i]) {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): no tensor for output %d", n->name, n->op, i);
      goto done;
    }
    if (ovta_tensor_numel(outputs[i]) != ovta_tensor_numel(n->outputs[i]) || outputs[i]->dtype != n->outputs[i]->dtype) {
      rc = OVTA_FAIL(err, OVTA_EINVAL, "node %s (%s): output %s of another type/shape", n->name, n->op, n->outputs[i]->name);
      goto done;
    }
    if ((rc = ovta_tensor_alloc(outputs[i], err))) goto done;
    argv[na++] = outputs[i]->data;
  }
  if ((rc = lir_module_new("eval", NULL, &m, err)) || (rc = lir_module_add(m, f, err)) || (rc = lir_jit_new(&j, err)) ||
      (rc = lir_jit_add_module(j, m, err)))
    goto done;
  void *fp;
  if ((rc = lir_jit_lookup(j, "ovta_eval", &fp, err))) goto done;
  ((lir_kernel_fn)fp)(argv);
done:
  lir_func_free(f);
  lir_module_free(m);
  lir_jit_free(j);
  free(argv);
  return rc;
}
