/* cmd_asm.c: `ovta asm FILE.s -o FILE.bin`: a text program -> a raw binary instruction stream. */
#include "ovta_tool.h"

#include <stdlib.h>
#include <string.h>

static const char *help =
    "usage: ovta asm FILE.s [-o FILE.bin] [--config NAME] [--base ADDR] [--check]\n\n"
    "Assemble a text program (isa/ASM.md) into a raw stream of 16-byte instructions.\n"
    "Buffers named in dram_base=@NAME+N are placed as `ovta_program_layout` does: in declaration\n"
    "order from ADDR (default 0), each at a multiple of 4096 bytes (or of the largest element).\n"
    "Data, micro-op tables and .dump ranges are not part of the binary (run the .s with `ovta sim`).\n\n"
    "options:\n"
    "  -o FILE        output file (default: FILE.s with .bin instead of .s)\n"
    "  --config NAME  config for a program without .config (default: $OVTA_CONFIG or \"default\")\n"
    "  --base ADDR    byte address of the first buffer (decimal or 0x hex)\n"
    "  --check        also apply the static rules of isa/ISA.md to every instruction\n";

int ovta_cmd_asm(int argc, char **argv) {
  const char *in = NULL, *out = NULL, *cfg = NULL, *base_s = NULL;
  bool check = false;
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) return fputs(help, stdout), 0;
    if (tool_opt(argc, argv, &i, "-o", &out) || tool_opt(argc, argv, &i, "--output", &out)) {
      if (!out) return tool_usage("asm", "-o needs a file name");
    } else if (tool_opt(argc, argv, &i, "--config", &cfg)) {
      if (!cfg) return tool_usage("asm", "--config needs a name");
    } else if (tool_opt(argc, argv, &i, "--base", &base_s)) {
      if (!base_s) return tool_usage("asm", "--base needs an address");
    } else if (tool_opt(argc, argv, &i, "--check", NULL)) {
      check = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return tool_usage("asm", "unknown option '%s'", argv[i]);
    } else if (in) {
      return tool_usage("asm", "more than one input file ('%s' and '%s')", in, argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return tool_usage("asm", "no input file");
  int64_t base = 0;
  if (base_s && !tool_number(base_s, 0, INT64_MAX, &base))
    return tool_usage("asm", "bad --base '%s'", base_s);
  char outbuf[4096];
  if (!out) {
    size_t n = strlen(in);
    if (n > 2 && !strcmp(in + n - 2, ".s")) n -= 2;
    snprintf(outbuf, sizeof outbuf, "%.*s.bin", (int)n, in);
    out = outbuf;
  }
  ovta_program p;
  if (tool_read_program(in, TOOL_INPUT_TEXT, cfg, &p)) return 1;
  ovta_error err;
  int status = 0;
  uint64_t *addr = calloc(p.n_bufs + 1, sizeof *addr);
  uint8_t *bytes = malloc(p.n_insns * 16 + 1);
  if (!addr || !bytes) {
    status = tool_fail("out of memory");
    goto done;
  }
  if (check)
    for (size_t i = 0; i < p.n_insns; i++)
      if (ovta_insn_check(&p.isa, &p.insns[i].insn, (long)i, &err)) {
        status = tool_fail("%s:%d: %s", in, p.insns[i].line, err.msg);
        goto done;
      }
  ovta_program_layout(&p, (uint64_t)base, addr);
  if (ovta_program_encode(&p, addr, bytes, &err)) {
    status = tool_error(&err, NULL);
    goto done;
  }
  FILE *f = fopen(out, "wb");
  if (!f) {
    status = tool_fail("%s: cannot open for writing", out);
    goto done;
  }
  size_t w = fwrite(bytes, 1, p.n_insns * 16, f);
  if (fclose(f) || w != p.n_insns * 16) status = tool_fail("%s: write error", out);
done:
  free(addr);
  free(bytes);
  ovta_program_free(&p);
  return status;
}
