/* main.c: `ovta SUBCOMMAND ...`: the subcommand table and the top-level options.
 * A new subcommand is one function (in its own file) and one line in `cmds` below. */
#include "ovta_tool.h"

#include <string.h>

static const ovta_cmd cmds[] = {
    {"asm", ovta_cmd_asm, "assemble a text program (.s) into a raw binary instruction stream"},
    {"disasm", ovta_cmd_disasm, "print a binary stream or a text program in the text form"},
    {"sim", ovta_cmd_sim, "load a text program into a simulator backend, run it, print counters and dumps"},
    {"config", ovta_cmd_config, "show a hardware config and its derived values; list the configs"},
    {"compile", ovta_cmd_compile, "compile an ONNX/JSON model for the CPU into a folder (plan, params, object code)"},
    {"eval", ovta_cmd_eval, "evaluate a classifier: fp32 and int8 top-1 accuracy, agreement, time, cycles"},
    {"run", ovta_cmd_run, "run a compiled model or a model file on the CPU: .npy inputs in, one .npy per output"},
    {"profile", ovta_cmd_profile, "one inference with a per-layer profile: cycles, MACs, utilization, bytes; trace, plots"},
    {"bench", ovta_cmd_bench, "run the standard benchmarks (matmul, layers, simulators, a model) and print JSON"},
};
enum { NCMDS = sizeof cmds / sizeof cmds[0] };

static void usage(FILE *f) {
  fprintf(f, "usage: ovta [--help] [--version] COMMAND [ARGS...]\n\n"
             "The ovta accelerator stack's command line.\n\ncommands:\n");
  for (int i = 0; i < NCMDS; i++) fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
  fprintf(f, "\n`ovta COMMAND --help` describes a command. Environment: OVTA_CONFIG names the\n"
             "config used when no --config is given (default: \"default\"); OVTA_CONFIG_PATH adds\n"
             "folders to search for configs; OVTA_DEBUG=1 adds where an error was raised.\n"
             "The text form of programs is described in isa/ASM.md.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (tool_is_help(argv[1])) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
    printf("ovta %s\n", OVTA_VERSION);
    return 0;
  }
  for (int i = 0; i < NCMDS; i++)
    if (!strcmp(argv[1], cmds[i].name)) return cmds[i].run(argc - 1, argv + 1);
  fprintf(stderr, "ovta: error: unknown command '%s' (see `ovta --help`)\n", argv[1]);
  return 2;
}
