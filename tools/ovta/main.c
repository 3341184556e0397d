/* main.c: `ovta SUBCOMMAND ...`: the subcommand table and the top-level options.
 * A new subcommand is one function (in its own file) and one line in `cmds` below. */
#include "ovta_tool.h"

#include <stdlib.h>
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
    {"tune", ovta_cmd_tune, "search the tiling knobs of each accelerator layer by measuring them (tuning JSON)"},
    {"sweep", ovta_cmd_sweep, "hardware configs of a space: cycles, Yosys resources, Pareto table and plot"},
};
enum { NCMDS = sizeof cmds / sizeof cmds[0] };

static void usage(FILE *f) {
  fprintf(f, "usage: ovta [--help] [--version] [-v|-vv|-vvv] COMMAND [ARGS...]\n\n"
             "The ovta accelerator stack's command line.\n\ncommands:\n");
  for (int i = 0; i < NCMDS; i++) fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
  fprintf(f, "\n`ovta COMMAND --help` describes a command. Environment: OVTA_CONFIG names the\n"
             "config used when no --config is given (default: \"default\"); OVTA_CONFIG_PATH adds\n"
             "folders to search for configs; OVTA_DEBUG=1 adds where an error was raised.\n"
             "The text form of programs is described in isa/ASM.md.\n\n"
             "verbosity (before the command): -v adds where an error was raised (OVTA_DEBUG=1);\n"
             "-vv also dumps every accelerator instruction stream the runtime runs, in the\n"
             "assembler's text form, on stderr (OVTA_RT_DEBUG=1); -vvv adds the micro-ops (=3).\n");
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
  /* -v, -vv, -vvv, --verbose (repeatable): set the environment the layers read, then go on */
  int verbose = 0;
  while (argc > 1 && (!strcmp(argv[1], "--verbose") || (argv[1][0] == '-' && argv[1][1] == 'v' &&
                                                         strspn(argv[1] + 1, "v") == strlen(argv[1] + 1)))) {
    verbose += !strcmp(argv[1], "--verbose") ? 1 : (int)strlen(argv[1] + 1);
    argv[1] = argv[0];
    argv++;
    argc--;
  }
  if (verbose >= 1) setenv("OVTA_DEBUG", "1", 1);
  if (verbose >= 2) setenv("OVTA_RT_DEBUG", verbose >= 3 ? "3" : "1", 1);
  if (argc < 2) {
    usage(stderr);
    return 2;
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
