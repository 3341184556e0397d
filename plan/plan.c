/* plan.c: plans (ovta_plan.h sections 1-3): the tensor table and steps, plan.json + params.bin
 * read and written, the code bound (kernels.so through dlopen, or a caller's resolver: the
 * compiler's JIT), the device attached, the steps run (CPU kernels on the arena and the DMA
 * buffers' host mappings; accelerator host code through the shims, vrt.c), the outputs copied
 * out, and per-step counters. The compiler (compiler/exec/) and `ovta-rt` share all of it. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "ovta_plan.h"

static size_t align_up(size_t v) { return (v + OVTA_PLAN_ALIGN - 1) & ~(size_t)(OVTA_PLAN_ALIGN - 1); }

void ovta_plan_release(ovta_plan *e) {
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
  free(e->triple), free(e->cpu), free(e->features);
  free(e->argv);
  if (e->so) dlclose(e->so);
  memset(e, 0, sizeof *e);
}

void ovta_plan_free(ovta_plan *p) {
  if (!p) return;
  ovta_plan_release(p);
  free(p);
}

int ovta_plan_bind(ovta_plan *e, ovta_plan_resolve_fn resolve, void *ctx, ovta_error *err) {
  if (e->arena_size > OVTA_PLAN_MAX_ARENA)
    return OVTA_FAIL(err, OVTA_ENOMEM, "the plan needs a %zu-byte arena, above the limit of %zu bytes",
                     e->arena_size, OVTA_PLAN_MAX_ARENA);
  e->arena = aligned_alloc(OVTA_PLAN_ALIGN, align_up(e->arena_size ? e->arena_size : 1));
  if (!e->arena) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for a %zu-byte arena", e->arena_size);
  memset(e->arena, 0, e->arena_size);
  for (int i = 0; i < e->ns; i++) {
    void *fp = NULL;
    int rc = resolve(ctx, e->s[i].fn, &fp, err);
    if (rc) return ovta_error_wrap(err, "node %s", e->s[i].node);
    e->s[i].call = (ovta_kernel_fn)fp;
    if (e->s[i].nargs > e->max_args) e->max_args = e->s[i].nargs;
  }
  e->argv = calloc((size_t)e->max_args + 1, sizeof(void *));
  if (!e->argv) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  return 0;
}

/* The resolver of ovta_plan_load: sym in kernels.so (ctx: the path, for errors). */
static int so_resolve(void *ctx, const char *sym, void **fp, ovta_error *err) {
  const ovta_plan *p = ((void **)ctx)[0];
  *fp = dlsym(p->so, sym);
  return *fp ? 0 : OVTA_FAIL(err, OVTA_EPARSE, "%s: no function %s", (const char *)((void **)ctx)[1], sym);
}

/* The ELF machine (e_machine) of this program's code; 0 when not known here. */
static unsigned host_elf_machine(void) {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__riscv)
  return EM_RISCV;
#else
  return 0;
#endif
}

/* Guarantees: kernels.so at path, when readable, is code for this machine (ELF e_machine,
 * little-endian at byte 18, and class at byte 4, from the ELF specification): a plan compiled
 * with --triple for another machine is refused with one line naming both, not dlopen's
 * "No such file". An unreadable file is left to dlopen's message. */
static int check_machine(const ovta_plan *p, const char *path, ovta_error *err) {
  unsigned char h[20];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(h, 1, sizeof h, f) : 0;
  if (f) fclose(f);
  if (n < sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0 || !host_elf_machine()) return 0;
  unsigned m = (unsigned)h[18] | (unsigned)h[19] << 8;
  bool cls = h[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
  if (m == host_elf_machine() && cls) return 0;
  struct utsname u;
  if (uname(&u) != 0) snprintf(u.machine, sizeof u.machine, "?");
  return OVTA_FAIL(err, OVTA_EINVAL, "%s: code for %s (ELF machine %u), this machine is %s: compile the plan for it (ovta compile --triple)",
                   path, p->triple ? p->triple : "another machine", m, u.machine);
}

int ovta_plan_load(const char *dir, ovta_plan **out, ovta_error *err) {
  *out = NULL;
  ovta_plan *p = calloc(1, sizeof *p);
  if (!p) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  char path[4200];
  snprintf(path, sizeof path, "%s/kernels.so", dir);
  int rc = ovta_plan_read(dir, p, err);
  if (!rc && p->ns) rc = ovta_plan_check_path(p, dir, "kernels.so", err);
  if (!rc && p->ns) rc = check_machine(p, path, err);
  if (!rc && p->ns && !(p->so = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
    const char *why = dlerror();
    rc = OVTA_FAIL(err, OVTA_EIO, "%s: cannot load the kernels: %s", path, why ? why : "?");
  }
  void *ctx[2] = {p, path};
  if (!rc) rc = ovta_plan_bind(p, so_resolve, ctx, err);
  if (rc) ovta_plan_free(p);
  else *out = p;
  return rc;
}

/* ---------------------------------------------------------------- run */

static void *tdata(const ovta_plan *e, int i) {
  if (e->t[i].where == OVTA_PLAN_DMA) return e->t[i].buf ? e->t[i].buf->host : NULL;
  return (e->t[i].where == OVTA_PLAN_PARAMS ? e->params : e->arena) + e->t[i].offset;
}

int ovta_plan_accel_nodes(const ovta_plan *e) {
  int k = 0;
  for (int i = 0; i < e->ns; i++) k += e->s[i].vta;
  return k;
}



int ovta_plan_stats_get(const ovta_plan *e, int i, ovta_plan_stats *out, ovta_error *err) {
  if (i < 0 || i >= e->ns) return OVTA_FAIL(err, OVTA_EINVAL, "step %d out of range (%d steps)", i, e->ns);
  const ovta_plan_step *s = &e->s[i];
  *out = s->last;
  out->node = s->node, out->fn = s->fn, out->accel = s->vta, out->detail = s->detail ? s->detail : "";
  out->insns = s->vta ? (s->last.insns ? s->last.insns : s->insns) : 0;
  out->uops_recorded = s->uops_recorded, out->kernels = s->kernels, out->runs = s->runs;
  out->op = s->op ? s->op : "", out->macs = s->macs;
  return 0;
}

int ovta_plan_attach(ovta_plan *e, const char *backend, const ovta_dev_opts *o, ovta_error *err) {
  if (!e->accel) return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: the plan was compiled for the cpu only", backend);
  if (e->dev) return OVTA_FAIL(err, OVTA_EINVAL, "a device (%s) is already attached", ovta_dev_backend(e->dev));
  /* A simulator's DRAM (OVTA_SIMDRAM_DEFAULT_BYTES unless dram_bytes) grows to hold the plan's DMA
   * tensors, aligned, plus a quarter and 64 MiB for kernels, micro-ops and instruction streams:
   * regnet_y_128gf's int8 weights alone are 644 MB. */
  ovta_dev_opts oo = o ? *o : (ovta_dev_opts){0};
  if (!oo.dram_bytes) {
    uint64_t need = 0, bytes = OVTA_SIMDRAM_DEFAULT_BYTES;
    for (int i = 0; i < e->nt; i++)
      if (e->t[i].dma) need += (e->t[i].nbytes + 4095) & ~(uint64_t)4095;
    need += need / 4 + (64ull << 20);
    while (bytes < need) bytes <<= 1;
    if (bytes > OVTA_SIMDRAM_DEFAULT_BYTES) oo.dram_bytes = bytes;
  }
  int rc = ovta_dev_open(backend, &e->cfg, &oo, &e->dev, err);
  ovta_rt_opts ro = {0};
  ro.max_insns = 1u << 20; /* one device run per node: its counters are the node's */
  if (!rc) rc = ovta_rt_create(e->dev, &ro, &e->rt, err);
  for (int i = 0; !rc && i < e->nt; i++) {
    ovta_plan_tensor *x = &e->t[i];
    if (!x->dma) continue;
    rc = ovta_buf_alloc(e->dev, x->nbytes ? x->nbytes : 1, &x->buf, err);
    if (!rc && x->where == OVTA_PLAN_PARAMS) rc = ovta_buf_write(x->buf, 0, e->params + x->offset, x->nbytes, err);
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


int ovta_plan_set_input(ovta_plan *e, const char *name, ovta_dtype dt, int rank, const int64_t *shape,
                        const void *data, size_t nbytes, ovta_error *err) {
  for (int i = 0; i < e->nin; i++) {
    ovta_plan_tensor *x = &e->t[e->in[i]];
    if (strcmp(x->name, name) != 0) continue;
    if (dt != x->dtype)
      return OVTA_FAIL(err, OVTA_EINVAL, "input %s: dtype %s, the model expects %s", name, ovta_dtype_name(dt),
                       ovta_dtype_name(x->dtype));
    if (ovta_shape_numel(shape, rank) < 0 || rank != x->rank || memcmp(shape, x->shape, sizeof(int64_t) * (size_t)x->rank)) {
      char a[128], b[128];
      ovta_shape_text(shape, rank, a, sizeof a);
      ovta_shape_text(x->shape, x->rank, b, sizeof b);
      return OVTA_FAIL(err, OVTA_EINVAL, "input %s: shape %s given, the model was compiled for %s", name, a, b);
    }
    if (!data || nbytes != x->nbytes) return OVTA_FAIL(err, OVTA_EINVAL, "input %s: no data", name);
    if (!tdata(e, e->in[i])) return OVTA_FAIL(err, OVTA_EINVAL, "input %s: in device memory, no device attached", name);
    memcpy(tdata(e, e->in[i]), data, x->nbytes);
    if (x->where == OVTA_PLAN_DMA) return ovta_buf_flush(x->buf, 0, x->nbytes, err);
    return 0;
  }
  return OVTA_FAIL(err, OVTA_EINVAL, "the model has no input named %s", name);
}

/* One accelerator step: the host code issues onto the queue, then one synchronize. */
static int run_vta(ovta_plan *e, ovta_plan_step *s, ovta_error *err) {
  ovta_vrt_ctx c = {.rt = e->rt, .cfg = &e->cfg};
  for (int b = 0; b < OVTA_VBUF_COUNT; b++) c.bufs[b] = s->vb[b] >= 0 ? e->t[s->vb[b]].buf : NULL;
  ovta_rt_stats a, z;
  ovta_rt_stats_get(e->rt, &a);
  int rc = ovta_vrt_call(s->call, s->node, &c, err);
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

int ovta_plan_run(ovta_plan *e, ovta_error *err) {
  if (e->accel && !e->rt)
    return OVTA_FAIL(err, OVTA_EINVAL, "the plan runs %d node(s) on the accelerator: attach a device first (--backend)",
                     ovta_plan_accel_nodes(e));
  for (int i = 0; i < e->ns; i++) {
    ovta_plan_step *s = &e->s[i];
    uint64_t t0 = now_ns();
    if (s->vta) {
      int rc = run_vta(e, s, err);
      if (rc) return rc;
      s->last.ns = now_ns() - t0;
      continue;
    }
    for (int a = 0; a < s->nargs; a++) {
      ovta_plan_tensor *x = &e->t[s->args[a]];
      e->argv[a] = tdata(e, s->args[a]);
      if (x->where == OVTA_PLAN_DMA && ovta_buf_invalidate(x->buf, 0, x->nbytes, err)) return ovta_error_wrap(err, "node %s", s->node);
    }
    s->call(e->argv);
    s->last.ns = now_ns() - t0;
    s->runs++;
    for (int a = 0; a < s->nargs; a++) {
      ovta_plan_tensor *x = &e->t[s->args[a]];
      if (x->where == OVTA_PLAN_DMA && ovta_buf_flush(x->buf, 0, x->nbytes, err)) return ovta_error_wrap(err, "node %s", s->node);
    }
  }
  return 0;
}

int ovta_plan_get_output(const ovta_plan *e, int i, ovta_array *out, ovta_error *err) {
  ovta_array_clear(out);
  if (i < 0 || i >= e->nout) return OVTA_FAIL(err, OVTA_EINVAL, "output %d out of range (%d outputs)", i, e->nout);
  const ovta_plan_tensor *x = &e->t[e->out[i]];
  if (!tdata(e, e->out[i])) return OVTA_FAIL(err, OVTA_EINVAL, "output %s: in device memory, no device attached", x->name);
  if (x->where == OVTA_PLAN_DMA && ovta_buf_invalidate(x->buf, 0, x->nbytes, err)) return err->code;
  if (!(out->data = malloc(x->nbytes ? x->nbytes : 1))) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory for output %s", x->name);
  memcpy(out->data, tdata(e, e->out[i]), x->nbytes);
  out->dtype = x->dtype, out->rank = x->rank, out->nbytes = x->nbytes;
  memcpy(out->shape, x->shape, sizeof out->shape);
  return 0;
}

int ovta_plan_write_file(const char *path, const void *d, size_t n, ovta_error *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", path, strerror(errno));
  size_t w = n ? fwrite(d, 1, n, f) : 0;
  if (fclose(f) != 0 || w != n) return OVTA_FAIL(err, OVTA_EIO, "%s: write failed", path);
  return 0;
}

int ovta_plan_save(const ovta_plan *e, const char *dir, ovta_error *err) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) return OVTA_FAIL(err, OVTA_EIO, "%s: %s", dir, strerror(errno));
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "format", OVTA_PLAN_FORMAT);
  cJSON_AddNumberToObject(root, "arena_bytes", (double)e->arena_size);
  cJSON_AddNumberToObject(root, "unshared_bytes", (double)e->unshared);
  cJSON_AddNumberToObject(root, "params_bytes", (double)e->params_size);
  cJSON *ts = cJSON_AddArrayToObject(root, "tensors");
  for (int i = 0; i < e->nt; i++) {
    const ovta_plan_tensor *x = &e->t[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", x->name);
    cJSON_AddStringToObject(o, "dtype", ovta_dtype_name(x->dtype));
    cJSON *sh = cJSON_AddArrayToObject(o, "shape");
    for (int d = 0; d < x->rank; d++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)x->shape[d]));
    cJSON_AddStringToObject(o, "where", x->where == OVTA_PLAN_PARAMS ? "params" : x->where == OVTA_PLAN_DMA ? "dma" : "arena");
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
      const ovta_plan_step *st = &e->s[i];
      cJSON_AddStringToObject(o, "kind", "vta");
      cJSON *vb = cJSON_AddArrayToObject(o, "bufs");
      int nvb = st->vb[OVTA_VBUF_R] >= 0 || st->vb[OVTA_VBUF_ID] >= 0 ? OVTA_VBUF_COUNT : OVTA_VBUF_OLD;
      for (int b = 0; b < nvb; b++) cJSON_AddItemToArray(vb, cJSON_CreateNumber(st->vb[b]));
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
  int rc = ovta_plan_write_file(path, txt, strlen(txt), err);
  free(txt);
  snprintf(path, sizeof path, "%s/params.bin", dir);
  if (!rc) rc = ovta_plan_write_file(path, e->params, e->params_size, err);
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
  int rc = ovta_read_file(path, OVTA_PLAN_MAX_ARENA, &p, n, err);
  *d = p;
  return rc;
}

/* The error for a plan.json that is not what ovta_plan_save writes, at the tensor / step reached. */
static int malformed(const ovta_plan *e, const char *where, ovta_error *err) {
  return OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed plan (tensor %d, step %d)", where, e->nt, e->ns);
}

/* Guarantees: *root is DIR/plan.json parsed; where names it for errors. */
static int read_plan_json(const char *dir, char *where, size_t wlen, cJSON **root, ovta_error *err) {
  void *txt;
  size_t len;
  snprintf(where, wlen, "%s/plan.json", dir);
  int rc = read_bin(dir, "plan.json", &txt, &len, err);
  if (rc) return rc;
  rc = ovta_plan_check_manifest(txt, len, where, err); /* 1: no digest (ovta_plan_load_files tells) */
  *root = rc >= 0 ? cJSON_ParseWithLength(txt, len) : NULL;
  free(txt);
  if (rc < 0) return rc;
  return *root ? 0 : OVTA_FAIL(err, OVTA_EPARSE, "%s: not valid JSON", where);
}

/* Guarantees: the format is this one (with tensors, steps, inputs, outputs arrays); accel plans
 * have their config and report; the arena and unshared sizes read. */
static int load_header(ovta_plan *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
  int64_t v;
  int rc;
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, OVTA_PLAN_FORMAT) != 0 ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "tensors")) ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "steps")) ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "inputs")) ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "outputs")))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: not an %s plan (format, tensors, steps, inputs, outputs)", where, OVTA_PLAN_FORMAT);
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
  if (!jint(root, "arena_bytes", (int64_t)OVTA_SIZE_CAP(40), &v)) return malformed(e, where, err);
  e->arena_size = (size_t)v;
  if (!jint(root, "unshared_bytes", (int64_t)OVTA_SIZE_CAP(50), &v)) return malformed(e, where, err);
  e->unshared = (size_t)v;
  return 0;
}

/* Guarantees: room for every tensor, step, input and output; the params blob read. */
static int load_params(ovta_plan *e, const cJSON *root, const char *dir, ovta_error *err) {
  e->t = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "tensors")) + 1, sizeof *e->t);
  e->s = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "steps")) + 1, sizeof *e->s);
  e->in = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "inputs")) + 1, sizeof(int));
  e->out = calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "outputs")) + 1, sizeof(int));
  int rc = read_bin(dir, "params.bin", (void **)&e->params, &e->params_size, err);
  return rc ? rc : ovta_plan_check_file(e, dir, "params.bin", e->params, e->params_size, err);
}

/* One tensor of plan.json as the next plan tensor: name, dtype, static shape, where it lives; its
 * offset and bytes inside the params blob, the arena or its DMA buffer. */
static int load_tensor(ovta_plan *e, const cJSON *it, const char *where, ovta_error *err) {
  ovta_plan_tensor *x = &e->t[e->nt];
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
  x->where = strcmp(wh->valuestring, "params") == 0 ? OVTA_PLAN_PARAMS : strcmp(wh->valuestring, "dma") == 0 ? OVTA_PLAN_DMA : OVTA_PLAN_ARENA;
  x->dma = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "dma")) || x->where == OVTA_PLAN_DMA;
  if (!jint(it, "offset", (int64_t)OVTA_SIZE_CAP(50), &v)) goto bad;
  x->offset = (size_t)v;
  if (!jint(it, "bytes", (int64_t)OVTA_SIZE_CAP(50), &v)) goto bad;
  x->nbytes = (size_t)v;
  int64_t numel = ovta_shape_numel(x->shape, x->rank);
  size_t lim = x->where == OVTA_PLAN_PARAMS ? e->params_size : x->where == OVTA_PLAN_DMA ? x->nbytes : e->arena_size;
  if (x->where == OVTA_PLAN_DMA) x->offset = 0;
  size_t ds = ovta_dtype_size(x->dtype);
  e->nt++;
  /* numel * ds may not wrap size_t (32-bit boards) */
  /* an arena tensor may hold more than its elements (a half-major map with halo rows:
   * compiler/cpu/cpu.h), not less; the graph's inputs and outputs exactly (load_io) */
  bool fits = x->where == OVTA_PLAN_ARENA ? (size_t)numel * ds <= x->nbytes : (size_t)numel * ds == x->nbytes;
  if (numel < 0 || (ds && (uint64_t)numel > SIZE_MAX / ds) || !fits || x->offset > lim || x->nbytes > lim - x->offset)
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: tensor %s: size or offset out of range", where, x->name);
  return 0;
bad:
  free(x->name);
  x->name = NULL;
  return malformed(e, where, err);
}

/* The accelerator fields of step s: its DMA buffers (x, w, y required; each a DMA tensor), tiling
 * and host-code counts. Only in an accel plan. */
static int load_vta_step(ovta_plan *e, ovta_plan_step *s, const cJSON *it, const char *where, ovta_error *err) {
  int64_t v;
  const cJSON *vb = cJSON_GetObjectItemCaseSensitive(it, "bufs"), *dt = cJSON_GetObjectItemCaseSensitive(it, "detail");
  int nvb = cJSON_IsArray(vb) ? cJSON_GetArraySize(vb) : 0; /* without a fused add: the first four */
  if ((nvb != OVTA_VBUF_COUNT && nvb != OVTA_VBUF_OLD) || !e->accel) return malformed(e, where, err);
  for (int b = 0; b < nvb; b++) {
    const cJSON *q = cJSON_GetArrayItem(vb, b);
    if (!cJSON_IsNumber(q) || q->valuedouble < -1 || q->valuedouble >= e->nt) return malformed(e, where, err);
    s->vb[b] = (int)q->valuedouble;
    if (s->vb[b] >= 0 && !e->t[s->vb[b]].dma) return malformed(e, where, err);
  }
  if (s->vb[OVTA_VBUF_X] < 0 || s->vb[OVTA_VBUF_W] < 0 || s->vb[OVTA_VBUF_Y] < 0) return malformed(e, where, err);
  s->vta = true;
  s->detail = strdup(cJSON_IsString(dt) ? dt->valuestring : "");
  if (jint(it, "insns", (int64_t)1 << 50, &v)) s->insns = (uint64_t)v;
  if (jint(it, "uops_recorded", (int64_t)1 << 50, &v)) s->uops_recorded = (uint64_t)v;
  if (jint(it, "kernels", (int64_t)1 << 50, &v)) s->kernels = (uint64_t)v;
  return 0;
}

/* One step of plan.json as the next step: node, function, op and MACs, the accelerator fields
 * ("kind": "vta") and the arguments, each a tensor loaded before. */
static int load_step(ovta_plan *e, const cJSON *it, const char *where, ovta_error *err) {
  ovta_plan_step *s = &e->s[e->ns];
  int64_t v;
  const cJSON *nd = cJSON_GetObjectItemCaseSensitive(it, "node"), *fn = cJSON_GetObjectItemCaseSensitive(it, "fn");
  const cJSON *ar = cJSON_GetObjectItemCaseSensitive(it, "args");
  if (!cJSON_IsString(nd) || !cJSON_IsString(fn) || !cJSON_IsArray(ar)) return malformed(e, where, err);
  s->node = strdup(nd->valuestring);
  s->fn = strdup(fn->valuestring);
  s->args = calloc((size_t)cJSON_GetArraySize(ar) + 1, sizeof(int));
  for (int b = 0; b < OVTA_VBUF_COUNT; b++) s->vb[b] = -1;
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
static int load_tensors_and_steps(ovta_plan *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *it;
  int rc;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "tensors"))
    if ((rc = load_tensor(e, it, where, err))) return rc;
  cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "steps"))
    if ((rc = load_step(e, it, where, err))) return rc;
  return 0;
}

/* Whether plan tensor x holds exactly its elements. */
static bool exact(const ovta_plan_tensor *x) {
  return (size_t)ovta_shape_numel(x->shape, x->rank) * ovta_dtype_size(x->dtype) == x->nbytes;
}

/* Guarantees: the graph inputs and outputs, each a tensor loaded holding exactly its elements. */
static int load_io(ovta_plan *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *a;
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(root, "inputs")) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt || !exact(&e->t[(int)a->valuedouble]))
      return malformed(e, where, err);
    e->in[e->nin++] = (int)a->valuedouble;
  }
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(root, "outputs")) {
    if (!cJSON_IsNumber(a) || a->valuedouble < 0 || a->valuedouble >= e->nt || !exact(&e->t[(int)a->valuedouble]))
      return malformed(e, where, err);
    e->out[e->nout++] = (int)a->valuedouble;
  }
  return 0;
}

/* Guarantees: the machine the code is for (triple, CPU, features) recorded, when the plan says
 * (plans without "target" predate it: this machine's). Whether it can run here is the caller's
 * check (the compiler asks LLVM; kernels.so does not open on another machine). */
static int load_target(ovta_plan *e, const cJSON *root, const char *where, ovta_error *err) {
  const cJSON *tg = cJSON_GetObjectItemCaseSensitive(root, "target");
  if (!tg) return 0;
  const cJSON *tt = cJSON_GetObjectItemCaseSensitive(tg, "triple"), *tc = cJSON_GetObjectItemCaseSensitive(tg, "cpu");
  const cJSON *tf = cJSON_GetObjectItemCaseSensitive(tg, "features");
  if (!cJSON_IsString(tt) || !cJSON_IsString(tc) || !cJSON_IsString(tf))
    return OVTA_FAIL(err, OVTA_EPARSE, "%s: malformed target (triple, cpu, features)", where);
  e->triple = strdup(tt->valuestring), e->cpu = strdup(tc->valuestring), e->features = strdup(tf->valuestring);
  if (!e->triple || !e->cpu || !e->features) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  return 0;
}

/* A plan folder's plan.json and params.bin, one step after the other: every offset and size
 * checked against the blobs. */
int ovta_plan_read(const char *dir, ovta_plan *e, ovta_error *err) {
  memset(e, 0, sizeof *e);
  char where[4200];
  cJSON *root = NULL;
  int rc = read_plan_json(dir, where, sizeof where, &root, err);
  if (rc) return rc;
  rc = ovta_plan_load_files(e, root, where, err);           /* the manifest of digests */
  if (!rc) rc = load_header(e, root, where, err);                    /* format, accel config and report, sizes */
  if (!rc) rc = load_params(e, root, dir, err);             /* params.bin */
  if (!rc) rc = load_tensors_and_steps(e, root, where, err);/* the tensor table, the steps */
  if (!rc) rc = load_io(e, root, where, err);               /* graph inputs and outputs */
  if (!rc) rc = load_target(e, root, where, err);           /* the machine of the code */
  cJSON_Delete(root);
  if (rc) ovta_plan_release(e);
  return rc;
}
