/* ovta_tool.h: the `ovta` command line (build/ovta): the subcommand table and shared helpers.
 *
 * Sections:
 *   1. Subcommands - one function per subcommand, one line each in the table in main.c.
 *   2. Helpers     - errors, option parsing, reading programs (common.c).
 *   3. Loader      - a parsed program into a device (load.c; needs the driver).
 *   4. Progress    - progress reports on stderr for long runs (progress.c).
 *   5. Remote      - `--remote HOST:PORT`: a plan folder run by `ovta-rt serve` (remote.c).
 *
 * Every subcommand returns the process exit status: 0 on success, 1 on an error (after printing
 * exactly one line "ovta: error: ..." on stderr, followed for assembler errors by the source
 * line and a caret), 2 on a usage error.
 */
#ifndef OVTA_TOOL_H
#define OVTA_TOOL_H

#include "ovta_isa.h"

#define OVTA_VERSION "0.1.0"

/* ---------------------------------------------------------------- 1. Subcommands */

/* One subcommand: `ovta NAME ARGS...`. argv[0] is the subcommand name. */
typedef struct ovta_cmd {
  const char *name;                      /* what the user types */
  int (*run)(int argc, char **argv);     /* returns the exit status */
  const char *summary;                   /* one line for `ovta --help` */
} ovta_cmd;

int ovta_cmd_asm(int argc, char **argv);    /* cmd_asm.c */
int ovta_cmd_disasm(int argc, char **argv); /* cmd_disasm.c */
int ovta_cmd_sim(int argc, char **argv);    /* cmd_sim.c */
int ovta_cmd_config(int argc, char **argv); /* cmd_config.c */
int ovta_cmd_compile(int argc, char **argv); /* cmd_compile.c */
int ovta_cmd_run(int argc, char **argv);     /* cmd_run.c */
int ovta_cmd_eval(int argc, char **argv);    /* cmd_eval.c */
int ovta_cmd_profile(int argc, char **argv); /* cmd_profile.c */
int ovta_cmd_bench(int argc, char **argv);   /* cmd_bench.c */
int ovta_cmd_tune(int argc, char **argv);    /* cmd_tune.c */
int ovta_cmd_sweep(int argc, char **argv);   /* cmd_sweep.c */

/* ---------------------------------------------------------------- 2. Helpers */

/* Print "ovta: error: MSG" (one line) and return 1. */
int tool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print an ovta_error as one line (plus the diag's caret lines when given) and return 1. */
int tool_error(const ovta_error *err, const ovta_asm_diag *diag);
/* Print "ovta: error: MSG" for a usage problem, a hint to --help, and return 2. */
int tool_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Options: is argv[*i] the option `name` ("--x VALUE" or "--x=VALUE")? Then *val gets the
 * value (advancing *i past it), or NULL when the value is missing. Flags: pass val NULL. */
bool tool_opt(int argc, char **argv, int *i, const char *name, const char **val);
/* This ovta binary's path (what worker tasks run: /proc/self/exe, also after a rebuild). */
const char *tool_self_exe(void);
/* Table-driven options: a number option (its range) and a string option. */
typedef struct tool_numopt {
  const char *name;        /* "--jobs" */
  int64_t lo, hi;          /* its range */
  int64_t *dst;            /* where the value goes */
} tool_numopt;
typedef struct tool_stropt {
  const char *name;        /* "-o" */
  const char **dst;        /* where the value goes */
} tool_stropt;
/* argv[*i] against the tables (nums: nn, strs: ns; NULL-name-free arrays): 1 when it is one of
 * them and its value is good, 0 when it is none of them, 2 (a usage error printed for cmd) when
 * its value is missing or bad. */
int tool_opt_table(int argc, char **argv, int *i, const char *cmd, const tool_numopt *nums, int nn,
                   const tool_stropt *strs, int ns);
/* Is argv[i] "-h" or "--help"? */
bool tool_is_help(const char *arg);
/* A number (decimal, 0x hex) in [min, max]. */
bool tool_number(const char *s, int64_t min, int64_t max, int64_t *out);

/* A float model quantized for the accelerator config, calibrated on the .npy samples of calib
 * (as `ovta compile --target accel --calib`; cmd_compile.c). */
struct ovta_graph;
struct ovta_config;
int tool_quantize_accel(struct ovta_graph *g, const char *calib, const struct ovta_config *cfg, ovta_error *err);

/* The config to use: --config NAME when given, else $OVTA_CONFIG, else "default". */
const char *tool_config_name(const char *opt);
/* Run gnuplot -e DEFS SCRIPT (the scripts of tools/plot/); an error when it is missing or fails. */
int tool_gnuplot(const char *defs, const char *script, ovta_error *err);
/* The gnuplot terminal to use: pngcairo when gnuplot has it, else png, else svg. */
const char *tool_plot_terminal(void);

/* How a program file is read. */
typedef enum tool_input { TOOL_INPUT_AUTO = 0, TOOL_INPUT_TEXT, TOOL_INPUT_BINARY } tool_input;
/* Read a program: a text program (.s) or a raw binary stream (.bin, or any file with a NUL
 * byte). cfg_name: the config for a binary or a text without .config (NULL: default); a text's
 * .config that differs from an explicit --config is an error. On error prints it, returns 1. */
int tool_read_program(const char *path, tool_input how, const char *cfg_opt, ovta_program *out);

/* Images (image.c, libpng). A PNG (8/16-bit gray, gray+alpha, RGB, RGBA, palette) as uint8 [H,W]
 * (gray) or [C,H,W] (C = 2 gray+alpha, 3 RGB, 4 RGBA) named `name`; 16-bit samples are scaled to
 * 8 bits, palettes expanded. Images larger than TOOL_PNG_MAX_DIM either way are refused. Any
 * libpng error (truncated, corrupt, not a PNG) is one error naming the file. */
#define TOOL_PNG_MAX_DIM 16384
struct ovta_tensor;
int tool_png_read(const char *path, const char *name, struct ovta_tensor **out, ovta_error *err);
/* Is path a PNG: a .png name (any case) or the PNG signature in its first bytes? */
bool tool_is_png(const char *path);
/* A model input value from a file: a PNG (tool_is_png) as float32 [1,C,H,W] = pixel/255 (gray:
 * C = 1); anything else as a .npy (ovta_npy_read). */
int tool_input_read(const char *path, const char *name, struct ovta_tensor **out, ovta_error *err);
/* Every *.png in folder dir (sorted by name; all one size and channel count) stacked as uint8
 * [N,H,W] or [N,C,H,W], like an images .npy. */
int tool_png_dir_read(const char *dir, const char *name, struct ovta_tensor **out, ovta_error *err);

/* ---------------------------------------------------------------- 4. Progress */

/* A progress report on stderr: on a terminal a bar redrawn in place (at most every 100 ms);
 * otherwise one plain line per tenth of the total. quiet: nothing at all. */
typedef struct tool_progress {
  const char *label;   /* printed first */
  int64_t total;       /* steps */
  bool quiet, tty;     /* nothing / redraw in place */
  bool drawn;          /* a bar is on screen (finish ends the line) */
  int last_tenth;      /* plain mode: tenths already reported */
  double t0, t_last;   /* start, last redraw (seconds, monotonic) */
} tool_progress;
void tool_progress_start(tool_progress *p, const char *label, int64_t total, bool quiet);
/* done steps so far; extra (may be NULL) is appended, e.g. "fp32 91.0% int8 90.5%". */
void tool_progress_update(tool_progress *p, int64_t done, const char *extra);
/* End the bar's line (call before printing anything else on stderr, errors included). */
void tool_progress_finish(tool_progress *p);

/* ---------------------------------------------------------------- 3. Loader */

#ifdef OVTA_HAVE_DRIVER
#include "ovta_driver.h"

/* The DRAM model's timing (tsim, vboard) from `--dram-latency R[,W]` and `--dram-bw B` (beats per
 * cycle: "N/16" or a decimal, 1/16..1) into o; a usage error (returns 2) otherwise. */
int tool_dram_latency(const char *cmd, const char *s, ovta_dev_opts *o);
int tool_dram_bw(const char *cmd, const char *s, ovta_dev_opts *o);


/* A program placed in a device (isa/ASM.md, "Loading"): every .buffer is allocated through the
 * driver, aligned to ovta_program_align (the allocation is padded so the aligned start fits), its
 * initial data written; symbols resolved; the stream encoded into its own DMA buffer or the
 * .insns buffer. */
typedef struct ovta_loaded {
  size_t n_bufs;       /* = program's n_bufs */
  ovta_buf **bufs;     /* the driver buffer of each program buffer */
  size_t *skew;        /* byte offset of the program buffer's byte 0 inside bufs[i] */
  uint64_t *addr;      /* physical address of each program buffer's byte 0 */
  ovta_buf *stream;    /* the stream's own buffer (NULL when .insns names a program buffer) */
  uint64_t insn_phys;  /* physical address of instruction 0 */
  uint32_t insn_count; /* instructions */
} ovta_loaded;

int ovta_program_load(ovta_dev *dev, const ovta_program *p, ovta_loaded *out, ovta_error *err);
/* Read bytes [off, off+n) of program buffer b after a run. */
int ovta_loaded_read(const ovta_loaded *l, int b, uint64_t off, void *dst, size_t n, ovta_error *err);
void ovta_loaded_free(ovta_loaded *l);
#endif

/* ---------------------------------------------------------------- 5. Remote (remote.c) */

#include "ovta_remote.h"

/* The options of a run on another machine (ovta run|profile|eval --remote). */
typedef struct tool_remote {
  const char *addr;        /* --remote HOST:PORT, or NULL: run here */
  const char *token_file;  /* --token-file FILE (the server's shared token) */
  int64_t timeout_s;       /* --remote-timeout S: a reply may take this long (default 300) */
} tool_remote;

#define TOOL_REMOTE_HELP \
  "  --remote HOST:PORT    run the compiled folder on `ovta-rt serve` at HOST:PORT (e.g. a\n" \
  "                        board): the folder is sent unless the server has it, the inputs are\n" \
  "                        sent, outputs and counters come back\n" \
  "  --token-file FILE     the server's shared token (a private file, chmod 600)\n" \
  "  --remote-timeout S    seconds to wait for a reply (default 300)\n"

/* argv[*i] is a --remote option of cmd: 1 when taken (into t), 0 when not one, 2 on a usage error. */
int tool_remote_opt(const char *cmd, int argc, char **argv, int *i, tool_remote *t);
/* A session with the folder dir loaded on backend (NULL: the server's default) with threads
 * (0: the server's; trace: the device records a trace, ovta_remote_trace); *plan is the folder's plan read here (no code: for names, --stats and
 * profiles; release it with ovta_plan_release). Says on stderr whether the plan was sent. */
int tool_remote_open(const tool_remote *t, const char *dir, const char *backend, int threads, bool trace,
                     ovta_remote **r, ovta_plan *plan, ovta_error *err);
/* One run: n inputs out, the outputs into *res, the counters into plan. */
int tool_remote_run(ovta_remote *r, ovta_plan *plan, int n, const char *const *names, const ovta_array *vals,
                    ovta_remote_result *res, ovta_error *err);

#endif
