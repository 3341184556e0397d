/* cmd_disasm.c: `ovta disasm FILE`: a binary stream or a text program, printed in the text form. */
#include "ovta_tool.h"

#include <string.h>

static const char *help =
    "usage: ovta disasm FILE [--config NAME] [--binary | --text]\n\n"
    "Print a program in the text form of isa/ASM.md, one line per instruction: the opcode and\n"
    "name=value for every field. FILE is a raw stream of 16-byte instructions (.bin, or any file\n"
    "with a NUL byte) or a text program (.s), which is printed in canonical form. The output\n"
    "assembles back to the same bits (`ovta disasm x.bin > x.s && ovta asm x.s -o y.bin`).\n\n"
    "options:\n"
    "  --config NAME  config of a binary (field widths depend on it; default: $OVTA_CONFIG or\n"
    "                 \"default\"), or of a text program without .config\n"
    "  --binary       read FILE as a raw binary stream whatever its name\n"
    "  --text         read FILE as a text program whatever its name\n";

int ovta_cmd_disasm(int argc, char **argv) {
  const char *in = NULL, *cfg = NULL;
  tool_input how = TOOL_INPUT_AUTO;
  for (int i = 1; i < argc; i++) {
    if (tool_is_help(argv[i])) return fputs(help, stdout), 0;
    if (tool_opt(argc, argv, &i, "--config", &cfg)) {
      if (!cfg) return tool_usage("disasm", "--config needs a name");
    } else if (tool_opt(argc, argv, &i, "--binary", NULL)) {
      how = TOOL_INPUT_BINARY;
    } else if (tool_opt(argc, argv, &i, "--text", NULL)) {
      how = TOOL_INPUT_TEXT;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return tool_usage("disasm", "unknown option '%s'", argv[i]);
    } else if (in) {
      return tool_usage("disasm", "more than one input file ('%s' and '%s')", in, argv[i]);
    } else {
      in = argv[i];
    }
  }
  if (!in) return tool_usage("disasm", "no input file");
  ovta_program p;
  if (tool_read_program(in, how, cfg, &p)) return 1;
  ovta_error err;
  int status = ovta_program_write(stdout, &p, &err) ? tool_error(&err, NULL) : 0;
  if (fflush(stdout)) status = tool_fail("write error on standard output");
  ovta_program_free(&p);
  return status;
}
