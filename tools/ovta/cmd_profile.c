/* cmd_profile.c: `ovta profile MODEL --input NAME=FILE.npy | --images FILE.npy`: one inference,
 * a per-layer table (where each layer ran, cycles, MACs from the shapes, MAC utilization, DRAM
 * bytes per memory type, instructions, micro-ops, CPU time), totals; optionally JSON, a Chrome
 * trace timeline with the layers as spans (tsim), and gnuplot plots (roofline, utilization).
 *
 * Sections:
 *   1. Options and help
 *   2. Model and input  - a compiled folder, or a model file compiled here (int8, calibrated)
 *   3. Output           - the text table and the JSON object of the profile rows (the per-step
 *                         counters as rows and totals: ovta_profile_collect, compiler/exec/profile.c)
 *   4. Trace            - tsim's events with one span per layer (ovta_profile_trace) written out
 *   5. Plots            - data files + the scripts in tools/plot/ run by gnuplot
 */
#include "ovta_tool.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "exec.h"
#include "ovta_driver.h"
#include "accel.h"

/* ---------------------------------------------------------------- 1. Options and help */

static const char *help =
    "usage: ovta profile MODEL (--input NAME=FILE.npy | --images FILE.npy) [options]\n\n"
    "Run one inference and print a per-layer profile: layer, op, where it ran (accel/cpu),\n"
    "device cycles (tsim), MACs (from the layer's shapes), MAC utilization =\n"
    "MACs / (cycles x BATCH x BLOCK_IN x BLOCK_OUT), DRAM bytes read per memory type (UOP, WGT,\n"
    "INP, ACC) and written (OUT), instructions and micro-ops executed by the device, and the\n"
    "wall time of each step (CPU layers: the kernel; accelerator layers: host code + device run);\n"
    "then the totals.\n\n"
    "MODEL is a folder from `ovta compile` (run as compiled; `--target accel` folders on\n"
    "--backend), or a model file (.onnx/.json) compiled here: for fsim/tsim quantized to int8\n"
    "(calibrated on --calib, default the --images) with conv/dense on the accelerator, as\n"
    "`ovta compile --target accel`; for --backend cpu the model as it is on the CPU path.\n\n"
    "options:\n"
    "  --input NAME=FILE.npy  the value of graph input NAME, fed as it is; FILE.png (gray, RGB,\n"
    "                         RGBA, palette) is fed as float32 [1,C,H,W] = pixel/255\n"
    "  --images FILE.npy      images uint8 [N,H,W] or [N,C,H,W] (fed as pixel/255) or float\n"
    "                         (fed as they are); image --index K is profiled (default 0)\n"
    "  --index K              which of --images (default 0)\n"
    "  --backend NAME         fsim (default), tsim (counts cycles), cpu, or a board backend\n"
    "  --config NAME          hardware config when compiling a model file (default $OVTA_CONFIG\n"
    "                         or default)\n"
    "  --calib FILE.npy       calibration samples for a float model (default: --images)\n"
    "  --calib-count N        use the first N calibration samples (default up to 64)\n"
    "  --vt N                 virtual threads 1 or 2 (default 2) when compiling\n"
    "  --threads N            threads of the CPU kernels (default: every core; same results)\n"
    "  --repeat N             run N inferences (default 1); each layer's time_us is its minimum\n"
    "                         (the first run includes first-touch page faults)\n"
    "  --json                 print one JSON object instead of the table\n"
    "  --json-out FILE        also write that JSON object to FILE (with the table on stdout)\n"
    "  --output-dir DIR       write the model's outputs as DIR/NAME.npy (like `ovta run`)\n"
    "  --trace-json FILE      (tsim) write a Chrome trace (Trace Event JSON; open it in Perfetto or\n"
    "                         chrome://tracing): one event per instruction on the load, compute\n"
    "                         and store tracks, and one span per layer on the \"layers\" track\n"
    "  --dram-latency R[,W]   (tsim) DRAM read latency R cycles (default 32), write response W (16)\n"
    "  --dram-bw B            (tsim) DRAM read bandwidth in bus beats per cycle, 1/16..1 (default 1)\n"
    "  --plots DIR            write with gnuplot DIR/roofline.png (arithmetic intensity MAC/byte\n"
    "                         vs achieved MAC/cycle of the accelerator layers, compute roof\n"
    "                         BATCH*BLOCK_IN*BLOCK_OUT, memory roof AXI_DATA_BITS/8 bytes/cycle)\n"
    "                         and DIR/utilization.png (per layer); the data in DIR/layers.dat.\n"
    "                         Needs cycles (tsim)\n"
    TOOL_REMOTE_HELP
    "                        (a compiled folder; the same table, and --trace-json with the\n"
    "                        server's tsim)\n\n"
    "JSON: {model, backend, config, peak_macs_per_cycle, bus_bytes_per_cycle, clock_mhz, layers:\n"
    "[{index, name, op, where, cycles, macs, utilization, bytes_read {uop, wgt, inp, acc},\n"
    "bytes_written, insns, uops, gemm_uops, alu_uops, time_us}], totals {...same fields}}.\n"
    "cycles and utilization are null where nothing counts cycles (cpu layers, fsim).\n";

/* The options of one `ovta profile`. */
typedef struct popts {
  const char *model;       /* a compiled folder or a model file */
  const char *input_name;  /* --input NAME=FILE: NAME (allocated), or NULL */
  const char *input_file;  /* --input NAME=FILE: FILE, or NULL */
  const char *images;      /* --images FILE.npy, or NULL */
  const char *backend;     /* --backend (default fsim) */
  const char *config;      /* --config NAME, or NULL */
  const char *calib;       /* --calib FILE.npy, or NULL (the --images) */
  const char *trace;       /* --trace-json FILE, or NULL */
  const char *plots;       /* --plots DIR, or NULL */
  const char *json_out;    /* --json-out FILE, or NULL */
  const char *outdir;      /* --output-dir DIR, or NULL */
  const char *dram_lat;    /* --dram-latency R[,W], or NULL */
  const char *dram_bw;     /* --dram-bw B, or NULL */
  int64_t index;           /* --index K of --images */
  int64_t calib_count;     /* --calib-count N (0: up to OVTA_CALIB_DEFAULT_COUNT) */
  int64_t vt;              /* --vt 1|2 (0: the default) */
  bool json;               /* --json */
  int64_t threads;         /* --threads N (0: every core) */
  int64_t repeat;          /* --repeat N: inferences run, each layer's minimum time kept (0: 1) */
  tool_remote remote;      /* --remote HOST:PORT: run on `ovta-rt serve` there */
} popts;

/* ---------------------------------------------------------------- 2. Model and input */

/* Sample k of an image/sample array as one float32 model input [1, ...]: uint8 scaled by 1/255,
 * [N,H,W] gets a channel dim [1,1,H,W]. */
static int sample_shape(const ovta_tensor *a, int64_t shape[8]) {
  int r = 1;
  shape[0] = 1;
  if (a->rank == 3) shape[r++] = 1;
  for (int d = 1; d < a->rank && r < 8; d++) shape[r++] = a->shape[d];
  return r;
}

static int sample_of(const ovta_tensor *a, int64_t k, const char *name, ovta_tensor **out, ovta_error *err) {
  *out = NULL;
  if (a->rank < 2) return OVTA_FAIL(err, OVTA_EINVAL, "%s: need an array [N, ...] of samples, not rank %d", name, a->rank);
  int64_t n = a->shape[0], per = n > 0 ? ovta_tensor_numel(a) / n : 0;
  if (k < 0 || k >= n) return OVTA_FAIL(err, OVTA_EINVAL, "%s: sample %lld of %lld", name, (long long)k, (long long)n);
  int64_t shape[8];
  int r = sample_shape(a, shape);
  ovta_tensor *t = ovta_tensor_new("sample", OVTA_DT_F32, r, shape);
  int rc = t ? ovta_tensor_alloc(t, err) : OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  if (rc) {
    ovta_tensor_free(t);
    return rc;
  }
  double sc = a->dtype == OVTA_DT_U8 ? 1.0 / 255.0 : 1.0;
  for (int64_t i = 0; i < per; i++) ((float *)t->data)[i] = (float)(ovta_tensor_get_f(a, k * per + i) * sc);
  *out = t;
  return 0;
}

/* The graph's single input takes the shape of value v (symbolic dims; rank must match). */
static int fit_input(ovta_graph *g, const ovta_tensor *v, ovta_error *err) {
  if (g->n_inputs != 1) return OVTA_FAIL(err, OVTA_EUNSUPPORTED, "the model has %d inputs; use --input for each", g->n_inputs);
  ovta_tensor *in = g->inputs[0];
  if (in->rank >= 0 && in->rank != v->rank) {
    char a[128], b[128];
    ovta_shape_str(v, a, sizeof a), ovta_shape_str(in, b, sizeof b);
    return OVTA_FAIL(err, OVTA_EINVAL, "input %s is %s; the value given is %s", in->name, b, a);
  }
  for (int d = 0; d < v->rank; d++)
    if (in->rank >= 0 && in->shape[d] >= 0 && in->shape[d] != v->shape[d]) {
      char a[128], b[128];
      ovta_shape_str(v, a, sizeof a), ovta_shape_str(in, b, sizeof b);
      return OVTA_FAIL(err, OVTA_EINVAL, "input %s is %s; the value given is %s", in->name, b, a);
    }
  in->rank = v->rank;
  memcpy(in->shape, v->shape, sizeof(int64_t) * (size_t)v->rank);
  if (in->dtype == OVTA_DT_UNDEF) in->dtype = v->dtype;
  return 0;
}

static bool is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The input value: --input FILE, or sample --index of --images. */
static int read_input(const popts *o, ovta_tensor **x, ovta_error *err) {
  if (o->input_file) return tool_input_read(o->input_file, o->input_name, x, err);
  ovta_tensor *imgs = NULL;
  int rc = ovta_npy_read(o->images, "images", &imgs, err);
  if (!rc) rc = sample_of(imgs, o->index, o->images, x, err);
  ovta_tensor_free(imgs);
  return rc;
}

/* A folder from `ovta compile`, attached to the backend when it runs on the accelerator. */
static int open_folder(const popts *o, const ovta_dev_opts *dopts, ovta_exec **e, ovta_error *err) {
  bool cpu = !strcmp(o->backend, "cpu");
  if (o->calib || o->config || o->vt)
    return OVTA_FAIL(err, OVTA_EINVAL, "--calib, --config and --vt apply to a model file; %s is compiled", o->model);
  int rc = ovta_exec_load(o->model, e, err);
  if (rc) return rc;
  int na = ovta_exec_accel_nodes(*e);
  if (na > 0 && cpu)
    return OVTA_FAIL(err, OVTA_EINVAL, "%s runs %d node(s) on the accelerator: use --backend fsim|tsim", o->model, na);
  if (na == 0 && !cpu)
    return OVTA_FAIL(err, OVTA_EINVAL, "--backend %s: %s was compiled for the cpu (ovta compile --target accel)", o->backend,
                     o->model);
  return cpu ? 0 : ovta_exec_attach(*e, o->backend, dopts, err);
}

/* The calibration samples of cpath fit the input value x: their sample shape is x's. */
static int check_calib(const char *cpath, const ovta_tensor *cal, const ovta_tensor *x, ovta_error *err) {
  int64_t S = cal->rank >= 2 ? cal->shape[0] : 0;
  if (S < 1) return OVTA_FAIL(err, OVTA_EINVAL, "--calib %s: need samples [S, ...]", cpath);
  int64_t shape[8];
  int r = sample_shape(cal, shape);
  if (r == x->rank && !memcmp(shape, x->shape, sizeof(int64_t) * (size_t)r)) return 0;
  char a[128], b[128];
  ovta_tensor *c = ovta_tensor_new("sample", OVTA_DT_F32, r, shape);
  if (!c) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  ovta_shape_str(c, a, sizeof a), ovta_shape_str(x, b, sizeof b);
  ovta_tensor_free(c);
  return OVTA_FAIL(err, OVTA_EINVAL, "--calib %s: samples are %s, the input is %s", cpath, a, b);
}

/* A float model quantized for cfg (the accelerator pipeline), calibrated on --calib or --images. */
static int quantize(const popts *o, ovta_graph *g, const ovta_tensor *x, const ovta_config *cfg, ovta_error *err) {
  const char *cpath = o->calib ? o->calib : o->images;
  if (!cpath) return OVTA_FAIL(err, OVTA_EINVAL, "a float model needs calibration samples for the accelerator: --calib FILE.npy");
  ovta_tensor *cal;
  int rc = ovta_npy_read(cpath, "calib", &cal, err);
  if (rc) return rc;
  if (!(rc = check_calib(cpath, cal, x, err))) {
    ovta_calib_opts co = {.samples = cal, .count = o->calib_count, .cfg = cfg};
    rc = ovta_calibrate_quantize(g, &co, NULL, err);
  }
  ovta_tensor_free(cal);
  return rc;
}

/* A model file compiled here for the input value x: on the CPU path as it is, or for the
 * accelerator (quantized when float) and attached to the backend. */
static int compile_model(const popts *o, const ovta_tensor *x, const ovta_dev_opts *dopts, ovta_exec **e,
                         ovta_error *err) {
  bool cpu = !strcmp(o->backend, "cpu");
  ovta_graph *g = NULL;
  ovta_exec_opts eo;
  ovta_exec_opts_init(&eo);
  ovta_config cfg;
  int rc = ovta_graph_load(o->model, &g, err);
  if (!rc) rc = fit_input(g, x, err);
  if (!rc && !cpu) {
    rc = ovta_config_load(tool_config_name(o->config), &cfg, err);
    if (!rc && !ovta_graph_quantized(g)) rc = quantize(o, g, x, &cfg, err);
    eo.accel = true, eo.cfg = &cfg, eo.vthreads = (int)o->vt, eo.backend = o->backend, eo.dev_opts = dopts;
  }
  if (!rc) rc = ovta_exec_build(g, &eo, e, err);
  ovta_graph_free(g);
  if (!rc && !cpu && ovta_exec_accel_nodes(*e) == 0)
    rc = OVTA_FAIL(err, OVTA_EUNSUPPORTED, "--backend %s: no node of %s can run on the accelerator; use --backend cpu",
                   o->backend, o->model);
  return rc;
}

/* The name of the input to feed: --input NAME, or the model's only input. */
static int input_name(const popts *o, const ovta_exec *e, char *in_name, size_t len, ovta_error *err) {
  const char *nm = o->input_name;
  if (!nm) {
    if (ovta_exec_num_inputs(e) != 1)
      return OVTA_FAIL(err, OVTA_EINVAL, "the model has %d inputs: use --input NAME=FILE.npy", ovta_exec_num_inputs(e));
    nm = ovta_exec_input_name(e, 0);
  }
  snprintf(in_name, len, "%s", nm);
  return 0;
}

/* The compiled plan, attached to the backend (accelerator plans), and the input value. */
static int prepare(const popts *o, ovta_exec **ep, ovta_tensor **xp, char *in_name, size_t in_name_len,
                   const ovta_dev_opts *dopts, ovta_error *err) {
  ovta_tensor *x = NULL;
  ovta_exec *e = NULL;
  int rc = read_input(o, &x, err);
  if (!rc) rc = is_dir(o->model) ? open_folder(o, dopts, &e, err) : compile_model(o, x, dopts, &e, err);
  if (!rc) rc = input_name(o, e, in_name, in_name_len, err);
  if (rc) {
    ovta_exec_free(e);
    ovta_tensor_free(x);
    return rc;
  }
  *ep = e, *xp = x;
  return 0;
}

/* ---------------------------------------------------------------- 3. Output */

static void fmt_u(char *b, size_t n, bool have, uint64_t v) {
  if (have) snprintf(b, n, "%llu", (unsigned long long)v);
  else snprintf(b, n, "-");
}

static void print_row(const ovta_profile *p, const ovta_profile_row *r, int idx) {
  char name[40], cyc[24], ut[16];
  size_t L = strlen(r->name);
  if (L > 34) snprintf(name, sizeof name, "..%s", r->name + L - 32);
  else snprintf(name, sizeof name, "%s", r->name);
  fmt_u(cyc, sizeof cyc, r->has_cycles, r->cycles);
  double u = ovta_profile_util(p, r);
  if (isnan(u)) snprintf(ut, sizeof ut, "-");
  else snprintf(ut, sizeof ut, "%.1f%%", 100.0 * u);
  bool dev = r->accel || (idx < 0 && p->has_cfg);
  char b[5][24], ins[24], uo[24];
  for (int m = 0; m < 4; m++) fmt_u(b[m], sizeof b[m], dev, r->bytes_read[m]);
  fmt_u(b[4], sizeof b[4], dev, r->bytes_written);
  fmt_u(ins, sizeof ins, dev, r->insns);
  fmt_u(uo, sizeof uo, dev, r->gemm_uops + r->alu_uops);
  if (idx >= 0) printf("%3d ", idx);
  else printf("    ");
  printf("%-34s %-18s %-5s %10s %12lld %6s %7s %9s %9s %8s %9s %7s %9s %10.1f\n", name, r->op,
         idx < 0 ? "" : r->accel ? "accel" : "cpu", cyc, (long long)r->macs, ut, b[0], b[1], b[2], b[3], b[4], ins, uo,
         r->us);
}

/* The lines under the table: accelerator and CPU layers, MACs, cycles, utilization, times. */
static void print_summary(const ovta_profile *p, const char *backend) {
  int na = 0;
  int64_t amacs = 0;
  double aus = 0, cus = 0;
  for (int i = 0; i < p->n; i++) {
    if (p->rows[i].accel) na++, amacs += p->rows[i].macs, aus += p->rows[i].us;
    else cus += p->rows[i].us;
  }
  if (!p->has_cfg) {
    printf("cpu: %d layer(s), %.3f MMAC, %.1f us\n", p->n, (double)p->total.macs / 1e6, cus);
    return;
  }
  printf("accelerator: %d layer(s), %.3f MMAC", na, (double)amacs / 1e6);
  if (p->total.has_cycles)
    printf(", %llu cycles (%.3f ms at %d MHz), MAC utilization %.2f%%", (unsigned long long)p->total.cycles,
           (double)p->total.cycles / (p->cfg.clock_mhz > 0 ? p->cfg.clock_mhz * 1e3 : 1e3), p->cfg.clock_mhz,
           100.0 * (double)amacs / ((double)p->total.cycles * (double)p->peak_macs_per_cycle));
  else if (na) printf(", no cycles (%s counts none; tsim does)", backend);
  printf("; host wall time %.1f us\ncpu: %d layer(s), %.1f us\n", aus, p->n - na, cus);
}

static void print_text(const popts *o, const ovta_profile *p, const char *backend) {
  if (p->has_cfg)
    printf("ovta profile: %s on %s (config %s: %dx%dx%d GEMM = %lld MAC/cycle, bus %d bytes/cycle)\n", o->model, backend,
           p->cfg.name, p->cfg.batch, p->cfg.block_in, p->cfg.block_out, (long long)p->peak_macs_per_cycle, p->bus_bytes_per_cycle);
  else printf("ovta profile: %s on the cpu\n", o->model);
  printf("%3s %-34s %-18s %-5s %10s %12s %6s %7s %9s %9s %8s %9s %7s %9s %10s\n", "#", "layer", "op", "where", "cycles",
         "MACs", "util", "UOP rd", "WGT rd", "INP rd", "ACC rd", "OUT wr", "insns", "uops", "time_us");
  for (int i = 0; i < p->n; i++) print_row(p, &p->rows[i], i);
  print_row(p, &p->total, -1);
  print_summary(p, backend);
}

static cJSON *num_or_null(bool have, double v) { return have ? cJSON_CreateNumber(v) : cJSON_CreateNull(); }

static cJSON *row_json(const ovta_profile *p, const ovta_profile_row *r, int idx) {
  cJSON *o = cJSON_CreateObject();
  if (idx >= 0) cJSON_AddNumberToObject(o, "index", idx);
  if (idx >= 0) cJSON_AddStringToObject(o, "name", r->name);
  if (idx >= 0) cJSON_AddStringToObject(o, "op", r->op);
  if (idx >= 0) cJSON_AddStringToObject(o, "where", r->accel ? "accel" : "cpu");
  cJSON_AddItemToObject(o, "cycles", num_or_null(r->has_cycles, (double)r->cycles));
  cJSON_AddNumberToObject(o, "macs", (double)r->macs);
  double u = ovta_profile_util(p, r);
  cJSON_AddItemToObject(o, "utilization", num_or_null(!isnan(u), u));
  cJSON *b = cJSON_AddObjectToObject(o, "bytes_read");
  static const char *const mn[4] = {"uop", "wgt", "inp", "acc"};
  for (int m = 0; m < 4; m++) cJSON_AddNumberToObject(b, mn[m], (double)r->bytes_read[m]);
  cJSON_AddNumberToObject(o, "bytes_written", (double)r->bytes_written);
  cJSON_AddNumberToObject(o, "insns", (double)r->insns);
  cJSON_AddNumberToObject(o, "uops", (double)(r->gemm_uops + r->alu_uops));
  cJSON_AddNumberToObject(o, "gemm_uops", (double)r->gemm_uops);
  cJSON_AddNumberToObject(o, "alu_uops", (double)r->alu_uops);
  cJSON_AddNumberToObject(o, "time_us", r->us);
  return o;
}

static int print_json(const popts *o, const ovta_profile *p, const char *backend, FILE *f, ovta_error *err) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "model", o->model);
  cJSON_AddStringToObject(j, "backend", backend);
  if (p->has_cfg) {
    cJSON_AddStringToObject(j, "config", p->cfg.name);
    cJSON_AddNumberToObject(j, "peak_macs_per_cycle", (double)p->peak_macs_per_cycle);
    cJSON_AddNumberToObject(j, "bus_bytes_per_cycle", p->bus_bytes_per_cycle);
    cJSON_AddNumberToObject(j, "clock_mhz", p->cfg.clock_mhz);
  } else {
    cJSON_AddNullToObject(j, "config");
  }
  int na = 0;
  for (int i = 0; i < p->n; i++) na += p->rows[i].accel;
  cJSON_AddNumberToObject(j, "accel_layers", na);
  cJSON_AddNumberToObject(j, "cpu_layers", p->n - na);
  cJSON *ls = cJSON_AddArrayToObject(j, "layers");
  for (int i = 0; i < p->n; i++) cJSON_AddItemToArray(ls, row_json(p, &p->rows[i], i));
  cJSON_AddItemToObject(j, "totals", row_json(p, &p->total, -1));
  char *s = cJSON_Print(j);
  cJSON_Delete(j);
  if (!s) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  bool ok = fprintf(f, "%s\n", s) >= 0;
  free(s);
  return ok ? 0 : OVTA_FAIL(err, OVTA_EIO, "writing the JSON failed");
}

/* Every output of the last run as DIR/NAME.npy. */
static int write_outputs(ovta_exec *e, const char *dir, ovta_error *err) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) return OVTA_FAIL(err, OVTA_EIO, "--output-dir %s: %s", dir, strerror(errno));
  for (int i = 0; i < ovta_exec_num_outputs(e); i++) {
    ovta_tensor *t;
    int rc = ovta_exec_get_output(e, i, &t, err);
    if (rc) return rc;
    char fn[256], path[4096];
    size_t k = 0;
    for (const char *c = t->name; *c && k < sizeof fn - 1; c++)
      fn[k++] = ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.' ||
                 *c == '-' || *c == '_') ? *c : '_';
    fn[k] = 0;
    snprintf(path, sizeof path, "%s/%s.npy", dir, fn);
    rc = ovta_npy_write(path, t, err);
    ovta_tensor_free(t);
    if (rc) return rc;
  }
  return 0;
}

/* ---------------------------------------------------------------- 4. Trace */

/* Text and a newline into file path (--OPT PATH in errors). */
static int write_text(const char *opt, const char *path, const char *text, ovta_error *err) {
  FILE *f = fopen(path, "w");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "%s %s: %s", opt, path, strerror(errno));
  size_t n = strlen(text);
  bool ok = fwrite(text, 1, n, f) == n && fputc('\n', f) != EOF;
  ok &= fclose(f) == 0;
  return ok ? 0 : OVTA_FAIL(err, OVTA_EIO, "%s %s: write failed", opt, path);
}

/* The timeline: tsim's events in raw with one span per layer (ovta_profile_trace) into out. */
static int write_trace(const char *raw, const char *out, const ovta_profile *p, ovta_error *err) {
  char *json = NULL;
  int nr = 0, want = 0;
  int rc = ovta_profile_trace(p, raw, &json, &nr, &want, err);
  if (rc) return rc;
  if (nr != want) fprintf(stderr, "ovta: warning: the trace has %d device run(s), the layers %d: no layer spans\n", nr, want);
  rc = write_text("--trace-json", out, json, err);
  free(json);
  return rc;
}

/* ---------------------------------------------------------------- 5. Plots */

static int write_plots(const char *dir, const ovta_profile *p, ovta_error *err) {
  if (!p->total.has_cycles)
    return OVTA_FAIL(err, OVTA_EINVAL, "--plots needs accelerator cycles: use --backend tsim");
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) return OVTA_FAIL(err, OVTA_EIO, "--plots %s: %s", dir, strerror(errno));
  char path[4096];
  snprintf(path, sizeof path, "%s/layers.dat", dir);
  FILE *f = fopen(path, "w");
  if (!f) return OVTA_FAIL(err, OVTA_EIO, "--plots %s: %s", path, strerror(errno));
  fprintf(f, "# ovta profile: accelerator layers (config %s, peak %lld MAC/cycle, bus %d bytes/cycle)\n"
             "# k layer name intensity_mac_per_byte mac_per_cycle utilization_pct cycles macs bytes\n"
             "# (k counts the rows here; layer is the row # of the profile table)\n",
          p->cfg.name, (long long)p->peak_macs_per_cycle, p->bus_bytes_per_cycle);
  int k = 0;
  for (int i = 0; i < p->n; i++) {
    const ovta_profile_row *r = &p->rows[i];
    if (!r->accel || !r->has_cycles || !r->cycles) continue;
    /* a short label: the name without the common "/.../" noise */
    char lab[64];
    const char *nm = r->name;
    if (nm[0] == '/') nm++;
    size_t j = 0;
    for (const char *c = nm; *c && j < sizeof lab - 1; c++) lab[j++] = (*c == ' ' || *c == '"') ? '_' : *c;
    lab[j] = 0;
    uint64_t by = ovta_profile_row_bytes(r);
    fprintf(f, "%d %d \"%s\" %.6g %.6g %.4f %llu %lld %llu\n", k++, i, lab, by ? (double)r->macs / (double)by : 0,
            (double)r->macs / (double)r->cycles, 100.0 * ovta_profile_util(p, r), (unsigned long long)r->cycles, (long long)r->macs,
            (unsigned long long)by);
  }
  if (fclose(f) != 0) return OVTA_FAIL(err, OVTA_EIO, "--plots %s: write failed", path);
  if (k == 0) return OVTA_FAIL(err, OVTA_EINVAL, "--plots: no accelerator layer with cycles");
  const char *term = tool_plot_terminal();
  const char *ext = strcmp(term, "svg") ? "png" : "svg";
  static const char *const scripts[2] = {"roofline", "utilization"};
  for (int s = 0; s < 2; s++) {
    char defs[8192], script[4096];
    snprintf(script, sizeof script, "%s/tools/plot/%s.gp", OVTA_SRC_DIR, scripts[s]);
    if (access(script, R_OK) != 0) return OVTA_FAIL(err, OVTA_EIO, "--plots: %s: %s", script, strerror(errno));
    snprintf(defs, sizeof defs,
             "datafile='%s/layers.dat'; outfile='%s/%s.%s'; term='%s'; peak=%lld; bus=%d; cfgname='%s'; nlayers=%d",
             dir, dir, scripts[s], ext, term, (long long)p->peak_macs_per_cycle, p->bus_bytes_per_cycle, p->cfg.name, k);
    int rc = tool_gnuplot(defs, script, err);
    if (rc) return rc;
    snprintf(path, sizeof path, "%s/%s.%s", dir, scripts[s], ext);
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size == 0) return OVTA_FAIL(err, OVTA_EIO, "gnuplot wrote no %s", path);
  }
  return 0;
}

/* ---------------------------------------------------------------- the command */

/* The rest of the options: output files, DRAM timing, the model. 0, or 2 on a usage error. */
static int parse_output_opt(int argc, char **argv, int *i, popts *o) {
  const char *v;
  if (tool_opt(argc, argv, i, "--json-out", &v)) {
    if (!v) return tool_usage("profile", "--json-out needs a file");
    o->json_out = v;
  } else if (tool_opt(argc, argv, i, "--output-dir", &v)) {
    if (!v) return tool_usage("profile", "--output-dir needs a folder");
    o->outdir = v;
  } else if (tool_opt(argc, argv, i, "--trace-json", &v)) {
    if (!v) return tool_usage("profile", "--trace-json needs a file");
    o->trace = v;
  } else if (tool_opt(argc, argv, i, "--dram-latency", &v)) {
    if (!v) return tool_usage("profile", "--dram-latency needs READ[,WRITE] cycles");
    o->dram_lat = v;
  } else if (tool_opt(argc, argv, i, "--dram-bw", &v)) {
    if (!v) return tool_usage("profile", "--dram-bw needs beats per cycle");
    o->dram_bw = v;
  } else if (tool_opt(argc, argv, i, "--plots", &v)) {
    if (!v) return tool_usage("profile", "--plots needs a folder");
    o->plots = v;
  } else if (argv[*i][0] == '-') {
    return tool_usage("profile", "unknown option %s", argv[*i]);
  } else if (!o->model) {
    o->model = argv[*i];
  } else {
    return tool_usage("profile", "more than one model given");
  }
  return 0;
}

/* One argument at argv[*i] (with its value, advancing *i): 0, 2 on a usage error, -1 after --help. */
static int parse_one(int argc, char **argv, int *i, popts *o) {
  const char *v;
  int r = tool_remote_opt("profile", argc, argv, i, &o->remote);
  if (r) return r == 2 ? 2 : 0;
  if (tool_is_help(argv[*i])) {
    fputs(help, stdout);
    return -1;
  } else if (tool_opt(argc, argv, i, "--input", &v)) {
    const char *eq = v ? strchr(v, '=') : NULL;
    if (!eq || eq == v || !eq[1]) return tool_usage("profile", "--input needs NAME=FILE.npy");
    if (o->input_file) return tool_usage("profile", "one --input only (models with one input)");
    o->input_name = strndup(v, (size_t)(eq - v));
    o->input_file = eq + 1;
  } else if (tool_opt(argc, argv, i, "--images", &v)) {
    if (!v) return tool_usage("profile", "--images needs a .npy file");
    o->images = v;
  } else if (tool_opt(argc, argv, i, "--index", &v)) {
    if (!v || !tool_number(v, 0, INT32_MAX, &o->index)) return tool_usage("profile", "--index needs a number >= 0");
  } else if (tool_opt(argc, argv, i, "--backend", &v)) {
    if (!v || !*v) return tool_usage("profile", "--backend needs a name");
    o->backend = v;
  } else if (tool_opt(argc, argv, i, "--config", &v)) {
    if (!v) return tool_usage("profile", "--config needs a name");
    o->config = v;
  } else if (tool_opt(argc, argv, i, "--calib", &v)) {
    if (!v) return tool_usage("profile", "--calib needs a .npy file");
    o->calib = v;
  } else if (tool_opt(argc, argv, i, "--calib-count", &v)) {
    if (!v || !tool_number(v, 1, 100000, &o->calib_count)) return tool_usage("profile", "--calib-count needs a count");
  } else if (tool_opt(argc, argv, i, "--threads", &v)) {
    if (!v || !tool_number(v, 1, 64, &o->threads)) return tool_usage("profile", "--threads needs 1..64");
  } else if (tool_opt(argc, argv, i, "--repeat", &v)) {
    if (!v || !tool_number(v, 1, 100000, &o->repeat)) return tool_usage("profile", "--repeat needs a count");
  } else if (tool_opt(argc, argv, i, "--vt", &v)) {
    if (!v || !tool_number(v, 1, 2, &o->vt)) return tool_usage("profile", "--vt needs 1 or 2");
  } else if (tool_opt(argc, argv, i, "--json", NULL)) {
    o->json = true;
  } else {
    return parse_output_opt(argc, argv, i, o);
  }
  return 0;
}

/* All arguments into o: 0, 2 on a usage error, -1 after --help. */
static int parse_args(int argc, char **argv, popts *o) {
  memset(o, 0, sizeof *o);
  o->backend = "fsim";
  for (int i = 1; i < argc; i++) {
    int rc = parse_one(argc, argv, &i, o);
    if (rc) return rc;
  }
  if (!o->model) return tool_usage("profile", "no model given");
  if (!o->input_file == !o->images) return tool_usage("profile", "give exactly one of --input NAME=FILE.npy and --images FILE.npy");
  if (o->index && !o->images) return tool_usage("profile", "--index needs --images");
  if (o->trace && strcmp(o->backend, "tsim"))
    return tool_usage("profile", "--trace-json needs --backend tsim (the timeline is in device cycles)");
  if (o->plots && strcmp(o->backend, "tsim")) return tool_usage("profile", "--plots needs --backend tsim (cycles)");
  if (o->remote.addr && (o->dram_lat || o->dram_bw))
    return tool_usage("profile", "--dram-latency and --dram-bw are not available with --remote");
  if (o->remote.token_file && !o->remote.addr) return tool_usage("profile", "--token-file goes with --remote");
  if (o->remote.addr && o->repeat > 1) return tool_usage("profile", "--repeat is not available with --remote");
  return 0;
}

/* One inference and its profile p; the outputs (--output-dir) and the raw tsim trace (device
 * closed, so complete) written. */
static int profile_run(const popts *o, const ovta_dev_opts *dopts, ovta_profile *p, ovta_error *err) {
  ovta_exec *e = NULL;
  ovta_tensor *x = NULL;
  char in_name[256] = "";
  int rc = prepare(o, &e, &x, in_name, sizeof in_name, dopts, err);
  if (!rc) rc = ovta_exec_set_input(e, in_name, x, err);
  if (!rc) rc = ovta_exec_run(e, err);
  if (!rc) rc = ovta_profile_collect(e, p, err);
  for (int64_t k = 1; !rc && k < o->repeat; k++) { /* --repeat: each row's minimum time */
    ovta_profile q = {0};
    rc = ovta_exec_run(e, err);
    if (!rc) rc = ovta_profile_collect(e, &q, err);
    p->total.us = 0;
    for (int i = 0; !rc && i < p->n && i < q.n; i++) {
      if (q.rows[i].us < p->rows[i].us) p->rows[i].us = q.rows[i].us;
      p->total.us += p->rows[i].us;
    }
    ovta_profile_free(&q);
  }
  if (!rc && o->outdir) rc = write_outputs(e, o->outdir, err);
  ovta_exec_free(e); /* closes the device: the tsim trace is complete */
  ovta_tensor_free(x);
  return rc;
}

/* --remote: one inference on `ovta-rt serve`; the profile from the counters it sends back. */
static int profile_remote(const popts *o, const char *raw_trace, ovta_profile *p, ovta_error *err) {
  if (!is_dir(o->model))
    return OVTA_FAIL(err, OVTA_EINVAL, "--remote profiles a folder made by `ovta compile`; %s is not one", o->model);
  if (o->calib || o->config || o->vt)
    return OVTA_FAIL(err, OVTA_EINVAL, "--calib, --config and --vt apply to a model file; %s is compiled", o->model);
  ovta_tensor *x = NULL;
  ovta_remote *r = NULL;
  ovta_plan pl = {0};
  ovta_remote_result res = {0};
  int rc = read_input(o, &x, err);
  if (!rc) rc = tool_remote_open(&o->remote, o->model, o->backend, (int)o->threads, raw_trace != NULL, &r, &pl, err);
  const char *nm = o->input_name;
  if (!rc && !nm && pl.nin != 1)
    rc = OVTA_FAIL(err, OVTA_EINVAL, "the model has %d inputs: use --input NAME=FILE.npy", pl.nin);
  if (!rc && !nm) nm = pl.t[pl.in[0]].name;
  if (!rc) {
    ovta_array a = {.dtype = x->dtype, .rank = x->rank, .data = x->data, .nbytes = x->nbytes};
    memcpy(a.shape, x->shape, sizeof a.shape);
    rc = tool_remote_run(r, &pl, 1, &nm, &a, &res, err);
  }
  if (!rc) rc = ovta_profile_collect_plan(&pl, p, err);
  if (!rc && raw_trace) rc = ovta_remote_trace(r, raw_trace, err); /* the device's raw trace, as locally */
  if (!rc && o->outdir && mkdir(o->outdir, 0777) != 0 && errno != EEXIST)
    rc = OVTA_FAIL(err, OVTA_EIO, "--output-dir %s: %s", o->outdir, strerror(errno));
  for (int i = 0; !rc && o->outdir && i < res.nout; i++) rc = ovta_plan_write_array(o->outdir, res.names[i], &res.outs[i], NULL, err);
  ovta_remote_result_clear(&res);
  ovta_remote_close(r);
  ovta_plan_release(&pl);
  ovta_tensor_free(x);
  return rc;
}

/* The table or JSON on stdout, and the JSON in --json-out. */
static int report(const popts *o, const ovta_profile *p, ovta_error *err) {
  int rc = 0;
  if (o->json) rc = print_json(o, p, o->backend, stdout, err);
  else print_text(o, p, o->backend);
  if (!rc && o->json_out) {
    FILE *f = fopen(o->json_out, "w");
    if (!f) return OVTA_FAIL(err, OVTA_EIO, "--json-out %s: %s", o->json_out, strerror(errno));
    rc = print_json(o, p, o->backend, f, err);
    if (fclose(f) != 0 && !rc) rc = OVTA_FAIL(err, OVTA_EIO, "--json-out %s: write failed", o->json_out);
  }
  return rc;
}

int ovta_cmd_profile(int argc, char **argv) {
  popts o;
  int rc = parse_args(argc, argv, &o);
  if (rc) {
    free((char *)o.input_name);
    return rc < 0 ? 0 : rc;
  }
  ovta_set_threads((int)o.threads);
  ovta_error err = {0};
  char raw[4096] = "";
  ovta_dev_opts dopts = {0};
  if ((o.dram_lat && tool_dram_latency("profile", o.dram_lat, &dopts)) ||
      (o.dram_bw && tool_dram_bw("profile", o.dram_bw, &dopts))) {
    free((char *)o.input_name);
    return 2;
  }
  if (o.trace) {
    snprintf(raw, sizeof raw, "%s.tsim.tmp", o.trace);
    dopts.chrome_trace_path = raw;
  }
  ovta_profile p = {0};
  rc = o.remote.addr ? profile_remote(&o, o.trace ? raw : NULL, &p, &err) : profile_run(&o, &dopts, &p, &err);
  if (!rc && o.trace) rc = write_trace(raw, o.trace, &p, &err);
  if (raw[0]) unlink(raw);
  if (!rc && o.plots) rc = write_plots(o.plots, &p, &err);
  if (!rc) rc = report(&o, &p, &err);
  fflush(stdout);
  if (!rc && o.trace && !o.json) fprintf(stderr, "ovta: wrote the timeline %s (open in https://ui.perfetto.dev)\n", o.trace);
  if (!rc && o.plots && !o.json) fprintf(stderr, "ovta: wrote the plots in %s/\n", o.plots);
  ovta_profile_free(&p);
  free((char *)o.input_name);
  return rc ? tool_error(&err, NULL) : 0;
}
