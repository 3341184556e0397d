/* ovta_base.h: the base layer every other layer includes.
 *
 * Sections:
 *   1. Errors      - one error type for all library code: a code, the place, a message.
 *   2. Config      - the JSON hardware config and the values derived from it (isa/config.c).
 *   3. Field specs - how an instruction format is laid out, independent of a config (isa/layout.c).
 *   4. Utilities   - the clock, lists like "a,b,c" (isa/util.c); the thread pool generated CPU
 *                    kernels run their parallel loops on (isa/parallel.c).
 *   5. Arrays      - element types, shapes, dense arrays and .npy files (isa/array.c).
 *
 * This header does not depend on generated code, so the generator (isa/gen/isagen.c) can use it.
 */
#ifndef OVTA_BASE_H
#define OVTA_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- 1. Errors */

/* Return codes. 0 is success; every failure is negative. */
typedef enum ovta_rc {
  OVTA_OK = 0,
  OVTA_EINVAL = -1,      /* a bad argument from the caller */
  OVTA_ENOMEM = -2,      /* out of memory (host or simulated DRAM) */
  OVTA_EIO = -3,         /* a file could not be read or written, or the device's memory bus
                            answered with an error (AXI SLVERR/DECERR) */
  OVTA_EPARSE = -4,      /* malformed input text or binary */
  OVTA_ECONFIG = -5,     /* a bad hardware config */
  OVTA_EINSN = -6,       /* an invalid instruction */
  OVTA_EDEADLOCK = -7,   /* dependency tokens can never be satisfied */
  OVTA_ETIMEOUT = -8,    /* the device did not finish in time */
  OVTA_EUNSUPPORTED = -9,/* valid but not supported (operator, backend, option) */
  OVTA_EINTERNAL = -10,  /* a bug in ovta */
} ovta_rc;

/* An error: what went wrong and where. The message already names the user-visible place
 * (file:line:col, node name, instruction index, register); file/line name the ovta source
 * line that detected it, for bug reports. */
typedef struct ovta_error {
  int code;          /* an ovta_rc, 0 when no error */
  const char *file;  /* ovta source file that raised it */
  int line;          /* ovta source line that raised it */
  char msg[768];     /* one line, no trailing newline */
} ovta_error;

/* Fill *e (if not NULL) and return code. Use through OVTA_FAIL. */
int ovta_error_set(ovta_error *e, int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Prefix the message of an error already set with more context ("while loading x: ..."). */
int ovta_error_wrap(ovta_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ovta_error_clear(ovta_error *e);
const char *ovta_rc_name(int code);
/* Print "ovta: error: MSG [CODE at FILE:LINE]" as one line. */
void ovta_error_print(FILE *f, const ovta_error *e);

#define OVTA_FAIL(e, code, ...) ovta_error_set((e), (code), __FILE__, __LINE__, __VA_ARGS__)

/* Internal invariants only (never user input): prints the place and aborts. */
_Noreturn void ovta_unreachable_at(const char *file, int line, const char *what);
#define unreachable() ovta_unreachable_at(__FILE__, __LINE__, __func__)

/* ---------------------------------------------------------------- 2. Config */

/* A hardware config: the JSON keys (see isa/configs/default.json) and what follows from them.
 * All derived values are computed in one place, ovta_config_derive(). */
typedef struct ovta_config {
  char name[64];            /* "name" key, or the file's base name */
  char path[512];           /* where it was loaded from ("" when built in code) */
  /* -- JSON keys -- */
  int log_inp_width;        /* LOG_INP_WIDTH: log2 bits of an input element (3: int8) */
  int log_wgt_width;        /* LOG_WGT_WIDTH: log2 bits of a weight element (3: int8) */
  int log_acc_width;        /* LOG_ACC_WIDTH: log2 bits of an accumulator element (5: int32) */
  int log_batch;            /* LOG_BATCH: log2 rows of the GEMM core */
  int log_block;            /* LOG_BLOCK: log2 of BLOCK_IN = BLOCK_OUT */
  int log_uop_buff_size;    /* LOG_UOP_BUFF_SIZE: log2 bytes of the micro-op SRAM */
  int log_inp_buff_size;    /* LOG_INP_BUFF_SIZE: log2 bytes of the input SRAM */
  int log_wgt_buff_size;    /* LOG_WGT_BUFF_SIZE: log2 bytes of the weight SRAM */
  int log_acc_buff_size;    /* LOG_ACC_BUFF_SIZE: log2 bytes of the accumulator SRAM */
  int dep_queue_depth;      /* DEP_QUEUE_DEPTH: tokens each dependency queue holds */
  int cmd_queue_depth;      /* CMD_QUEUE_DEPTH: instructions each module's command queue holds */
  int axi_data_bits;        /* AXI_DATA_BITS: memory bus width (64..512) */
  int axi_addr_bits;        /* AXI_ADDR_BITS: memory address width (32 or 64) */
  int axi_max_outstanding;  /* AXI_MAX_OUTSTANDING: read bursts in flight */
  int clock_mhz;            /* CLOCK_MHZ: target clock */
  /* -- derived (ovta_config_derive) -- */
  int batch;                /* rows of an INP/ACC/OUT element */
  int block_in;             /* columns of an INP element, inner dim of GEMM */
  int block_out;            /* columns of an ACC/OUT element, outer dim of GEMM */
  int uop_bytes;            /* bytes of a micro-op (4) */
  int inp_bytes;            /* bytes of an INP element: batch*block_in */
  int wgt_bytes;            /* bytes of a WGT element: block_out*block_in */
  int acc_bytes;            /* bytes of an ACC element: batch*block_out*4 */
  int out_bytes;            /* bytes of an OUT element: batch*block_out */
  int uop_depth;            /* micro-ops in uop SRAM */
  int inp_depth;            /* elements in INP SRAM */
  int wgt_depth;            /* elements in WGT SRAM */
  int acc_depth;            /* elements in ACC SRAM */
  int out_depth;            /* elements in OUT SRAM (= acc_depth) */
  int uop_idx_bits;         /* log2 uop_depth */
  int inp_idx_bits;         /* log2 inp_depth */
  int wgt_idx_bits;         /* log2 wgt_depth */
  int acc_idx_bits;         /* log2 acc_depth */
  int src_idx_bits;         /* max(inp_idx_bits, acc_idx_bits): the uop's src_idx */
} ovta_config;

/* Read a config by name or path: parse and derive, without checking that the instruction
 * formats fit (ovta_config_load in ovta_isa.h does that too; use it). */
int ovta_config_read(const char *name_or_path, ovta_config *cfg, ovta_error *err);
/* Load a config by name ("default", "small", "batch2", a board name) or by path (anything
 * with a '/' or ending in .json). Names are looked up in $OVTA_CONFIG_PATH (':'-separated
 * folders), then in the source tree's isa/configs and boards/NAME/. */
/* Parse a config from JSON text; `origin` names it in errors. */
int ovta_config_parse(const char *json, const char *origin, ovta_config *cfg, ovta_error *err);
/* Check the keys and compute every derived value. Called by the two above. */
int ovta_config_derive(ovta_config *cfg, ovta_error *err);
/* The config as JSON text (keys and derived values); caller frees. NULL on out of memory. */
char *ovta_config_to_json(const ovta_config *cfg, bool with_derived);

/* 2^bits bytes as a size_t cap: SIZE_MAX where size_t is narrower (32-bit ARM boards), so the
 * file and arena limits below stay limits there instead of a shift past the type's width. */
#define OVTA_SIZE_CAP(bits) ((uint64_t)1 << (bits) > SIZE_MAX ? SIZE_MAX : (size_t)((uint64_t)1 << (bits)))

/* Read a whole file (NUL-terminated, *len without the NUL); caller frees. Caps at max_bytes. */
int ovta_read_file(const char *path, size_t max_bytes, char **data, size_t *len, ovta_error *err);

/* ---------------------------------------------------------------- 3. Field specs */

/* How a field's width is given in isa/encoding.json. */
typedef enum ovta_width_kind {
  OVTA_W_FIXED = 0,   /* a number */
  OVTA_W_UOP_IDX,     /* uop_idx_bits */
  OVTA_W_INP_IDX,     /* inp_idx_bits */
  OVTA_W_WGT_IDX,     /* wgt_idx_bits */
  OVTA_W_ACC_IDX,     /* acc_idx_bits */
  OVTA_W_SRC_IDX,     /* src_idx_bits */
} ovta_width_kind;

/* One entry of a format: a field, or an alignment marker (name == NULL). */
typedef struct ovta_field_spec {
  const char *name;       /* field name; NULL for {"align": N} */
  int member;             /* which ovta_insn/ovta_uop member (index into the generated table) */
  ovta_width_kind kind;   /* how the width is given */
  int add;                /* FIXED: the width; otherwise added to the derived width (the "+1") */
  bool is_signed;         /* decode sign-extends */
} ovta_field_spec;

/* A field placed for one config. */
typedef struct ovta_field_pos {
  int lo;      /* lowest bit */
  int width;   /* bits */
} ovta_field_pos;

/* Place the n specs of one format for cfg (alignment markers get width 0). Fails when the
 * format does not fit in total_bits, or a field would straddle a 64-bit word boundary. */
int ovta_layout_place(const ovta_field_spec *specs, int n, int total_bits, const ovta_config *cfg,
                      ovta_field_pos *out, ovta_error *err);

/* ---------------------------------------------------------------- 4. Utilities */

/* Seconds of the monotonic clock (an arbitrary origin: for differences). */
double ovta_now_s(void);
/* Seconds of CPU time used by this process, all its threads (CLOCK_PROCESS_CPUTIME_ID). */
double ovta_cpu_s(void);

/* Time per phase (isa/timing.c; `ovta compile --time-passes`, like LLVM's -time-passes): wall and
 * CPU seconds (this process's threads and its finished child processes, e.g. the linker) of named
 * phases, each summed over its runs. A phase begun while another runs is nested under it; rows
 * are keyed by name and parent, listed in the order they were first begun. Zero-initialize; every
 * call takes NULL (no timing) and does nothing then. */
#define OVTA_TIMING_DEPTH 8 /* phases open at once */
typedef struct ovta_timing_row {
  char name[80]; /* the phase */
  int parent;    /* row of the phase it is nested in (-1: top level) */
  int depth;     /* nesting depth (0: top level) */
  int runs;      /* times begun */
  double wall;   /* wall seconds, summed over the runs */
  double cpu;    /* CPU seconds, summed over the runs */
} ovta_timing_row;
typedef struct ovta_timing {
  ovta_timing_row *rows;                 /* the phases */
  int n, cap;                            /* rows, allocated */
  int open[OVTA_TIMING_DEPTH];           /* rows of the phases running, outermost first */
  double t_wall[OVTA_TIMING_DEPTH];      /* their start: monotonic clock */
  double t_cpu[OVTA_TIMING_DEPTH];       /* their start: CPU time */
  int nopen;                             /* phases running */
  int skipped;                           /* begins past OVTA_TIMING_DEPTH or out of memory (their ends are matched) */
} ovta_timing;
/* Begin phase name (printf format) nested in the innermost running one; end it with ovta_timing_end. */
void ovta_timing_begin(ovta_timing *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* End the innermost running phase, adding its times to its row. */
void ovta_timing_end(ovta_timing *t);
/* The table on f: a title line, one row per phase (wall s, % of the top-level total, CPU s, runs,
 * the name indented by depth), then the total of the top-level rows. */
void ovta_timing_print(const ovta_timing *t, FILE *f, const char *title);
void ovta_timing_free(ovta_timing *t);

/* The thread pool of generated CPU kernels (isa/parallel.c; in this lowest layer so that both
 * `ovta` and the runtime alone `ovta-rt` define the symbols a kernels.so calls, exported from the
 * executables). A parallel loop of the loop IR is outlined into body(ctx, lo, hi), which runs
 * iterations lo..hi-1 in order; ovta_par_for runs iterations [0, n) as contiguous chunks on the
 * pool's threads and the caller's, and returns when all are done. Each iteration runs on exactly
 * one thread, in the same order of operations whatever the thread count: results do not depend
 * on it. Called from inside a body (nested) it runs serially. */
typedef void (*ovta_par_body)(void *ctx, int64_t lo, int64_t hi);
void ovta_par_for(ovta_par_body body, void *ctx, int64_t n);
/* Threads for parallel loops: n >= 1 (clamped to 64), 0 for every online core (the default).
 * Not to be called while a parallel loop runs. */
void ovta_set_threads(int n);
int ovta_get_threads(void); /* the count in use */

/* Lists like "a,b,c": items separated by any character of seps (e.g. "," or ", "); runs of
 * separators and separators at either end make no empty items (as strtok). Set *p to the list,
 * then each call copies the next item into item (cap bytes, truncated, NUL-terminated), moves
 * *p past it and returns true; false when no item is left. */
bool ovta_list_next(const char **p, const char *seps, char *item, size_t cap);
/* Whether list (as above) holds name as one of its items (items of up to 255 characters). */
bool ovta_list_has(const char *list, const char *seps, const char *name);

/* ---------------------------------------------------------------- 5. Arrays (isa/array.c) */

#define OVTA_MAX_RANK 8

/* Element types. The values are ONNX's TensorProto.DataType numbers. */
typedef enum ovta_dtype {
  OVTA_DT_UNDEF = 0,   /* not yet inferred */
  OVTA_DT_F32 = 1,     /* float */
  OVTA_DT_U8 = 2,      /* uint8 */
  OVTA_DT_I8 = 3,      /* int8 */
  OVTA_DT_U16 = 4,     /* uint16 */
  OVTA_DT_I16 = 5,     /* int16 */
  OVTA_DT_I32 = 6,     /* int32 */
  OVTA_DT_I64 = 7,     /* int64 */
  OVTA_DT_STRING = 8,  /* string (imported, never computed) */
  OVTA_DT_BOOL = 9,    /* bool, one byte 0/1 */
  OVTA_DT_F16 = 10,    /* float16 (stored as raw uint16) */
  OVTA_DT_F64 = 11,    /* double */
  OVTA_DT_U32 = 12,    /* uint32 */
  OVTA_DT_U64 = 13,    /* uint64 */
  OVTA_DT_BF16 = 16,   /* bfloat16 (stored as raw uint16; only Cast/CastLike take it) */
} ovta_dtype;

/* Bytes of one element; 0 for UNDEF and STRING. */
size_t ovta_dtype_size(ovta_dtype t);
/* "f32", "i8", "u8", "i32", "i64", "bool", ... ("?" for UNDEF). */
const char *ovta_dtype_name(ovta_dtype t);
/* Parse a name from ovta_dtype_name; returns OVTA_DT_UNDEF when unknown. */
ovta_dtype ovta_dtype_parse(const char *name);
/* Product of dims with overflow checking; -1 if any dim < 0 or the product exceeds 2^62. */
int64_t ovta_shape_numel(const int64_t *shape, int rank);

/* A dense array: what a .npy file holds and what a plan's inputs and outputs are, below the
 * compiler's tensors (compiler/graph/ wraps it in an ovta_tensor). */
typedef struct ovta_array {
  ovta_dtype dtype;              /* element type */
  int rank;                      /* dims */
  int64_t shape[OVTA_MAX_RANK];  /* static shape */
  void *data;                    /* the elements, C order (owned: free with ovta_array_clear) */
  size_t nbytes;                 /* bytes of data */
} ovta_array;
void ovta_array_clear(ovta_array *a);
/* "1x3x8x8" ("scalar" for rank 0) into buf. */
void ovta_shape_text(const int64_t *shape, int rank, char *buf, size_t n);

/* Read a .npy file (format 1.0/2.0/3.0, little-endian, C order; dtypes f4 f8 i1 u1 i2 u2 i4 u4
 * i8 u8 b1) into *out (cleared first). Errors name the file. */
int ovta_npy_load(const char *path, ovta_array *out, ovta_error *err);
/* Write dtype/rank/shape and bytes (numel x element size of data) as a .npy file (format 1.0);
 * name is the array's name in messages. */
int ovta_npy_store(const char *path, const char *name, ovta_dtype dt, int rank, const int64_t *shape,
                   const void *data, size_t nbytes, ovta_error *err);

#endif
