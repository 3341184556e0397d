/* cmd_sim.c: `ovta sim PROGRAM.s`: load a text program into a device, run it, print counters and
 * the dump ranges. Needs the driver (compiled with -DOVTA_HAVE_DRIVER when it links). */
#include "ovta_tool.h"

#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: ovta sim PROGRAM.s [--backend fsim|tsim] [--config NAME] [--seed N]\n"
    "                [--dump BUFFER[+OFF]:LEN[:hex|int8|int32]]... [--counters json|text|none]\n"
    "                [--trace out.fst] [--timeout MS] [--dram-latency R[,W]] [--dram-bw B]\n"
    "                [--fault SPEC]\n\n"
    "Load a text program (isa/ASM.md) into a device: allocate its buffers through the driver,\n"
    "write their data, resolve dram_base=@BUFFER+N, write the instruction stream; run it; then\n"
    "print every range of the program's .dump directives and of --dump, one line per 16 bytes\n"
    "(\"BUFFER+OFF: v v ...\"), and the run's counters.\n\n"
    "options:\n"
    "  --backend NAME   driver backend (default fsim)\n"
    "  --config NAME    config for a program without .config; must match its .config otherwise\n"
    "  --seed N         fsim: interleave the modules in a random order from seed N (0: fixed order)\n"
    "  --dump B+O:L[:F] also print L bytes of buffer B from byte O (format F, default int8)\n"
    "  --counters FMT   print the counters as text (default), json, or not at all (none)\n"
    "  --trace FILE     tsim: write an FST waveform\n"
    "  --timeout MS     stop a run after MS milliseconds of wall time (default: no limit)\n"
    "  --dram-latency R[,W]  tsim: DRAM read latency R cycles (AR to first beat, default 32) and\n"
    "                   write response latency W (last W beat to B, default 16)\n"
    "  --dram-bw B      tsim: DRAM bandwidth in bus beats per cycle, 1/16..1 (a fraction N/16 or a\n"
    "                   decimal: 0.5 = a beat every other cycle; default 1)\n"
    "  --fault SPEC     tsim, vboard: the DRAM model injects faults (hw/sim/README.md, \"Faults\"):\n"
    "                   rresp@N / bresp@N (the Nth read / write burst of the run answers SLVERR;\n"
    "                   =decerr for DECERR), stall@N:CYCLES (the Nth read burst is held back),\n"
    "                   @ADDR+LEN instead of @N: the first burst touching those bytes; comma-\n"
    "                   separated (default: $OVTA_TSIM_FAULT)\n";

#ifndef OVTA_HAVE_DRIVER
int ovta_cmd_sim(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (tool_is_help(argv[i])) return fputs(help, stdout), 0;
  return tool_fail("`ovta sim` is not built yet: the driver and the fsim backend are not in libovta");
}
#else
#include <cjson/cJSON.h>

/* Print a counters JSON object as "  name: value" lines (nested objects as name.key). */
static void print_counters_text(const cJSON *o, const char *prefix) {
  const cJSON *it;
  cJSON_ArrayForEach(it, o) {
    if (cJSON_IsObject(it)) {
      char p[128];
      snprintf(p, sizeof p, "%s%s.", prefix, it->string);
      print_counters_text(it, p);
    } else if (cJSON_IsNumber(it)) {
      printf("  %s%s: %.0f\n", prefix, it->string, it->valuedouble);
    }
  }
}

/* --dump BUFFER[+OFF]:LEN[:FMT] */
static int parse_dump(const ovta_program *p, const char *s, ovta_asm_dump *d) {
  char name[OVTA_ASM_NAME_MAX], rest[128];
  const char *colon = strchr(s, ':');
  if (!colon) return tool_usage("sim", "--dump '%s': expected BUFFER[+OFF]:LEN[:FMT]", s);
  size_t nlen = strcspn(s, "+:");
  if (nlen == 0 || nlen >= sizeof name) return tool_usage("sim", "--dump '%s': expected a buffer name", s);
  memcpy(name, s, nlen);
  name[nlen] = 0;
  d->buffer = ovta_program_find_buffer(p, name);
  if (d->buffer < 0) return tool_fail("--dump '%s': the program has no buffer '%s'", s, name);
  int64_t off = 0, len;
  if (s[nlen] == '+') {
    size_t k = (size_t)(colon - s) - nlen - 1;
    if (k >= sizeof rest) return tool_usage("sim", "--dump '%s': bad offset", s);
    memcpy(rest, s + nlen + 1, k);
    rest[k] = 0;
    if (!tool_number(rest, 0, INT64_MAX, &off)) return tool_usage("sim", "--dump '%s': bad offset '%s'", s, rest);
  }
  snprintf(rest, sizeof rest, "%s", colon + 1);
  char *fmt = strchr(rest, ':');
  d->kind = OVTA_DATA_INT8;
  if (fmt) {
    *fmt++ = 0;
    int k = ovta_data_kind_from_name(fmt);
    if (k < 0 || k == OVTA_DATA_UOP) return tool_usage("sim", "--dump '%s': unknown format '%s' (hex, int8, int32)", s, fmt);
    d->kind = (ovta_data_kind)k;
  }
  if (!tool_number(rest, 1, INT64_MAX, &len)) return tool_usage("sim", "--dump '%s': bad length '%s'", s, rest);
  const ovta_asm_buffer *b = &p->bufs[d->buffer];
  if ((uint64_t)off > b->size || (uint64_t)len > b->size - (uint64_t)off)
    return tool_fail("--dump '%s': bytes [%lld, %lld) are outside buffer '%s' of %llu bytes", s, (long long)off,
                     (long long)(off + len), b->name, (unsigned long long)b->size);
  d->off = (uint64_t)off;
  d->len = (uint64_t)len;
  return 0;
}

int ovta_cmd_sim(int argc, char **argv) {
  const char *in = NULL, *cfg = NULL, *backend = "fsim", *seed_s = NULL, *counters = "text", *trace = NULL,
             *timeout_s = NULL, *lat_s = NULL, *bw_s = NULL, *fault = NULL;
  const char *dumps[64];
  int n_dumps = 0;
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    if (tool_is_help(argv[i])) return fputs(help, stdout), 0;
#define OPT(name, var)                                                                             \
  if (tool_opt(argc, argv, &i, name, &v)) {                                                        \
    if (!v) return tool_usage("sim", "%s needs a value", name);                                    \
    var = v;                                                                                       \
    continue;                                                                                      \
  }
    OPT("--backend", backend)
    OPT("--config", cfg)
    OPT("--seed", seed_s)
    OPT("--counters", counters)
    OPT("--trace", trace)
    OPT("--timeout", timeout_s)
    OPT("--dram-latency", lat_s)
    OPT("--dram-bw", bw_s)
    OPT("--fault", fault)
#undef OPT
    if (tool_opt(argc, argv, &i, "--dump", &v)) {
      if (!v) return tool_usage("sim", "--dump needs BUFFER[+OFF]:LEN");
      if (n_dumps == 64) return tool_usage("sim", "more than 64 --dump options");
      dumps[n_dumps++] = v;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return tool_usage("sim", "unknown option '%s'", argv[i]);
    } else if (in) {
      return tool_usage("sim", "more than one program ('%s' and '%s')", in, argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return tool_usage("sim", "no program file");
  int64_t seed = 0, timeout = 0;
  if (seed_s && !tool_number(seed_s, 0, INT64_MAX, &seed)) return tool_usage("sim", "bad --seed '%s'", seed_s);
  if (timeout_s && !tool_number(timeout_s, 0, UINT32_MAX, &timeout))
    return tool_usage("sim", "bad --timeout '%s'", timeout_s);
  if (strcmp(counters, "text") && strcmp(counters, "json") && strcmp(counters, "none"))
    return tool_usage("sim", "bad --counters '%s' (json, text or none)", counters);

  ovta_program p;
  if (tool_read_program(in, TOOL_INPUT_TEXT, cfg, &p)) return 1;
  int status = 0;
  ovta_asm_dump extra[64];
  for (int i = 0; i < n_dumps; i++)
    if ((status = parse_dump(&p, dumps[i], &extra[i]))) {
      ovta_program_free(&p);
      return status;
    }
  ovta_error err;
  ovta_dev *dev = NULL;
  ovta_loaded l = {0};
  ovta_dev_opts opts = {.seed = (uint64_t)seed, .trace_path = trace, .faults = fault};
  if ((lat_s && tool_dram_latency("sim", lat_s, &opts)) || (bw_s && tool_dram_bw("sim", bw_s, &opts))) {
    ovta_program_free(&p);
    return 2;
  }
  if (ovta_dev_open(backend, &p.isa.cfg, &opts, &dev, &err) || ovta_program_load(dev, &p, &l, &err) ||
      ovta_dev_run(dev, l.insn_phys, l.insn_count, (uint32_t)timeout, &err)) {
    status = tool_error(&err, NULL);
    goto done;
  }
  printf("ran %u instructions of %s on %s (config %s)\n", l.insn_count, in, backend, p.isa.cfg.name);
  for (size_t i = 0; i < p.n_dumps + (size_t)n_dumps; i++) {
    const ovta_asm_dump *d = i < p.n_dumps ? &p.dumps[i] : &extra[i - p.n_dumps];
    uint8_t *bytes = malloc(d->len);
    if (!bytes) {
      status = tool_fail("out of memory");
      goto done;
    }
    if (ovta_loaded_read(&l, d->buffer, d->off, bytes, d->len, &err)) {
      free(bytes);
      status = tool_error(&err, NULL);
      goto done;
    }
    ovta_dump_print(stdout, p.bufs[d->buffer].name, d->off, bytes, d->len, d->kind);
    free(bytes);
  }
  if (strcmp(counters, "none")) {
    ovta_counters c;
    ovta_dev_counters(dev, &c);
    char *js = ovta_counters_to_json(&c);
    if (!js) {
      status = tool_fail("out of memory");
      goto done;
    }
    if (!strcmp(counters, "json")) {
      printf("%s\n", js);
    } else {
      cJSON *o = cJSON_Parse(js);
      printf("counters:\n");
      print_counters_text(o, "");
      cJSON_Delete(o);
    }
    free(js);
  }
done:
  ovta_loaded_free(&l);
  ovta_dev_close(dev);
  ovta_program_free(&p);
  return status;
}
#endif
