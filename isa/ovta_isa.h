/* ovta_isa.h: the instruction set: encoding, static checks, assembler and disassembler.
 *
 * Sections:
 *   1. Layout      - a config's field positions for every format (isa/isa.c).
 *   2. Encoding    - instruction and micro-op encode/decode, one function pair each (isa/isa.c).
 *   3. Checks      - the static rules every backend enforces before executing (isa/isa.c).
 *   4. Text form   - assembler and disassembler (isa/asm.c, isa/disasm.c).
 *   5. Counters    - what every backend counts per run (isa/ISA.md, "Counters").
 *
 * The enums (ovta_opcode, ovta_mem_type, ovta_alu_op), ovta_insn and ovta_uop come from the
 * generated ovta_isa_gen.h (isa/encoding.json -> isa/gen/isagen.c). isa/ISA.md has the semantics.
 */
#ifndef OVTA_ISA_H
#define OVTA_ISA_H

#include "ovta_base.h"
#include "ovta_isa_gen.h"

/* ---------------------------------------------------------------- 1. Layout */

#define OVTA_MAX_FORMAT_FIELDS 32

/* The ISA for one config: the config and where every field of every format sits. */
typedef struct ovta_isa {
  ovta_config cfg;                                          /* the config it was built for */
  ovta_field_pos pos[OVTA_FMT_COUNT][OVTA_MAX_FORMAT_FIELDS]; /* per format, per spec entry */
} ovta_isa;

/* Read a config (ovta_config_read) and check that every format fits it. */
int ovta_config_load(const char *name_or_path, ovta_config *cfg, ovta_error *err);
/* Place every format for cfg. Fails with OVTA_ECONFIG when a format does not fit. */
int ovta_isa_init(ovta_isa *isa, const ovta_config *cfg, ovta_error *err);

/* The specs of a format (isa/encoding.json order, including alignment markers). */
const ovta_field_spec *ovta_format_specs(ovta_format fmt, int *n);
const char *ovta_format_name(ovta_format fmt);
/* The format of an opcode, or -1 when the opcode is unknown. */
int ovta_format_of_opcode(uint32_t opcode);
/* Name lookups; NULL/-1 when out of range or unknown. */
const char *ovta_opcode_name(uint32_t op);
const char *ovta_mem_type_name(uint32_t mt);
const char *ovta_alu_op_name(uint32_t op);
int ovta_opcode_from_name(const char *s);
int ovta_mem_type_from_name(const char *s);
int ovta_alu_op_from_name(const char *s);
/* Bytes of one element of a memory type for cfg; 0 for an unknown type. */
int ovta_elem_bytes(const ovta_config *cfg, uint32_t mem_type);
/* Elements in the SRAM of a memory type for cfg; 0 for an unknown type. */
int ovta_sram_depth(const ovta_config *cfg, uint32_t mem_type);

/* A field's value in a decoded instruction or uop (by spec), as a signed 64-bit number. */
int64_t ovta_field_get(const void *obj, const ovta_field_spec *spec);
void ovta_field_set(void *obj, const ovta_field_spec *spec, int64_t v);

/* ---------------------------------------------------------------- 2. Encoding */

/* An encoded instruction: two 64-bit words, word 0 holding bits 63..0. In memory each word is
 * little-endian, word 0 first (16 bytes). */
typedef struct ovta_insn_bits {
  uint64_t w[2];
} ovta_insn_bits;

/* Encode; fails (OVTA_EINSN) on an unknown opcode or a field value that does not fit its
 * width, naming the field. */
int ovta_insn_encode(const ovta_isa *isa, const ovta_insn *in, ovta_insn_bits *out, ovta_error *err);
/* Decode; fails (OVTA_EINSN) on an unknown opcode or a reserved bit that is set. */
int ovta_insn_decode(const ovta_isa *isa, const ovta_insn_bits *in, ovta_insn *out, ovta_error *err);
int ovta_uop_encode(const ovta_isa *isa, const ovta_uop *in, uint32_t *out, ovta_error *err);
void ovta_uop_decode(const ovta_isa *isa, uint32_t in, ovta_uop *out);
/* 16 bytes <-> words, little-endian regardless of the host. */
void ovta_insn_bits_load(const uint8_t bytes[16], ovta_insn_bits *out);
void ovta_insn_bits_store(const ovta_insn_bits *in, uint8_t bytes[16]);

/* ---------------------------------------------------------------- 3. Checks */

/* The static rules of isa/ISA.md ("Invalid instructions"): memory types allowed per opcode,
 * padding only on INP/ACC loads, uop range inside uop SRAM, SRAM base inside its buffer, known
 * ALU opcode. Dynamic rules (indices computed in loops, DRAM bounds) are checked by the
 * backends while executing. `index` is the instruction's index in the stream, for the message. */
int ovta_insn_check(const ovta_isa *isa, const ovta_insn *in, long index, ovta_error *err);

/* ---------------------------------------------------------------- 4. Text form */

/* The assembler's text form is specified in isa/ASM.md. A program is a config, named DRAM
 * buffers with initial data (bytes, int8, int32, micro-op tables), instructions whose dram_base
 * may name a buffer ("dram_base=@inp+2": in elements of the instruction's memory type), where the
 * stream goes, and ranges to dump after a run. Buffer addresses are only known when a program is
 * placed (by the driver, or by ovta_program_layout for a raw binary), so symbols are resolved by
 * ovta_program_encode, not by the parser. */

#define OVTA_ASM_NAME_MAX 64

/* How data was written in the text, so the writer prints it back the same way; also the format
 * of a dump. */
typedef enum ovta_data_kind {
  OVTA_DATA_HEX = 0,  /* ".hex": bytes as hex digit pairs */
  OVTA_DATA_INT8,     /* ".int8": signed (or unsigned up to 255) bytes, decimal */
  OVTA_DATA_INT32,    /* ".int32": little-endian 32-bit words, decimal */
  OVTA_DATA_UOP,      /* ".uops" + "uop" lines: encoded micro-ops, 4 bytes each */
} ovta_data_kind;

/* A named DRAM buffer (".buffer NAME SIZE"). */
typedef struct ovta_asm_buffer {
  char name[OVTA_ASM_NAME_MAX]; /* symbol: [A-Za-z_][A-Za-z0-9_]* */
  uint64_t size;                /* bytes */
  uint8_t *init;                /* initial contents, size bytes; zero where no data is given */
  int line;                     /* source line of the declaration (0: made in code) */
} ovta_asm_buffer;

/* One piece of initial data, in text order (later pieces overwrite earlier ones in init). */
typedef struct ovta_asm_data {
  int buffer;          /* index into ovta_program.bufs */
  uint64_t off;        /* byte offset in the buffer */
  uint64_t len;        /* bytes */
  ovta_data_kind kind; /* how it was written */
} ovta_asm_data;

/* One instruction of a program. */
typedef struct ovta_asm_insn {
  ovta_insn insn;  /* the fields; when dram_buf >= 0, insn.dram_base is the element offset */
  int dram_buf;    /* -1: dram_base is a plain element address; else the buffer it is relative to */
  int line;        /* source line (0: none, e.g. from a binary) */
} ovta_asm_insn;

/* A range to print after a run (".dump NAME[+OFF] LEN [hex|int8|int32]"). */
typedef struct ovta_asm_dump {
  int buffer;          /* index into ovta_program.bufs */
  uint64_t off;        /* byte offset */
  uint64_t len;        /* bytes */
  ovta_data_kind kind; /* print format (not OVTA_DATA_UOP) */
} ovta_asm_dump;

/* A parsed program. Arrays are owned (ovta_program_free). */
typedef struct ovta_program {
  ovta_isa isa;             /* the config it is written for and its field positions */
  char config[512];         /* ".config NAME" as written ("" when none was given) */
  char origin[256];         /* file name for messages */
  ovta_asm_insn *insns;     /* instructions in stream order */
  size_t n_insns;
  ovta_asm_buffer *bufs;    /* named buffers in declaration order */
  size_t n_bufs;
  ovta_asm_data *data;      /* initial data pieces in text order */
  size_t n_data;
  ovta_asm_dump *dumps;     /* ranges to print after a run */
  size_t n_dumps;
  int insn_buf;             /* ".insns NAME[+OFF]": buffer for the stream; -1: a buffer of its own */
  uint64_t insn_off;        /* byte offset of the stream in insn_buf */
} ovta_program;

/* Where a parse error is, with the source line and a caret line under the offending token,
 * ready to print after the one-line message ("    3 | LOAD x_sise=1\n      |      ^~~~~~\n"). */
typedef struct ovta_asm_diag {
  int line;          /* 1-based; 0 when the error has no place in the text */
  int col;           /* 1-based byte column */
  char context[600]; /* two lines, each ending in a newline; "" when line is 0 */
} ovta_asm_diag;

/* An empty program for isa (no instructions, no buffers). */
void ovta_program_init(ovta_program *p, const ovta_isa *isa);
void ovta_program_free(ovta_program *p);
/* The index of a buffer by name, or -1. */
int ovta_program_find_buffer(const ovta_program *p, const char *name);

/* Parse assembler text into *out. The config is the text's ".config" directive, else cfg (NULL:
 * "default"). Errors (OVTA_EPARSE, or the config's error) read "origin:line:col: message"; diag
 * (may be NULL) gets the place and the caret lines. On failure *out is left empty. */
int ovta_asm_parse(const char *text, const char *origin, const ovta_config *cfg, ovta_program *out,
                   ovta_asm_diag *diag, ovta_error *err);

/* One instruction as one line without a newline: the opcode name, then name=value for every
 * field of its format in isa/encoding.json order ("LOAD pop_prev=0 ... x_pad_1=0"); dram_sym
 * (may be NULL) prints dram_base as "@dram_sym+N". Returns the length snprintf would give. */
int ovta_insn_format(const ovta_insn *in, const char *dram_sym, char *buf, size_t cap);
/* One micro-op as "uop dst_idx=.. src_idx=.. wgt_idx=..". */
int ovta_uop_format(const ovta_uop *u, char *buf, size_t cap);
/* A whole program in the text form; parsing the output gives the same program. */
int ovta_program_write(FILE *f, const ovta_program *p, ovta_error *err);
/* Decode a raw stream of 16-byte instructions into a program without buffers. Errors name the
 * instruction index and byte offset. */
int ovta_disasm_binary(const ovta_isa *isa, const uint8_t *bytes, size_t len, const char *origin,
                       ovta_program *out, ovta_error *err);

/* The alignment every buffer base must have so that any memory type's element index is exact:
 * the largest element size of the config, at least 64. */
uint64_t ovta_program_align(const ovta_program *p);
/* A fixed placement for a raw binary (ovta asm): buffers in declaration order from `base`,
 * each at the next multiple of max(4096, ovta_program_align). addr gets n_bufs addresses. */
void ovta_program_layout(const ovta_program *p, uint64_t base, uint64_t *addr);
/* Encode the stream with buffer i at byte address addr[i] (symbols resolved): n_insns * 16
 * bytes into out. Errors name origin:line of the instruction. */
int ovta_program_encode(const ovta_program *p, const uint64_t *addr, uint8_t *out, ovta_error *err);
/* Print bytes of a dump as lines "NAME+OFF: v v v ..." (16 bytes per line) in kind's format. */
void ovta_dump_print(FILE *f, const char *name, uint64_t off, const uint8_t *bytes, size_t len,
                     ovta_data_kind kind);
/* "hex", "int8", "int32", "uop"; and back (-1 when unknown). */
const char *ovta_data_kind_name(ovta_data_kind k);
int ovta_data_kind_from_name(const char *s);

/* ---------------------------------------------------------------- 5. Counters */

/* What a backend counts during one run (isa/ISA.md, "Counters"), the same on every backend;
 * the cycle fields are 0 on fsim, which has no cycles. */
typedef struct ovta_counters {
  uint64_t insns_load;          /* instructions retired by the load module */
  uint64_t insns_compute;       /* ... by the compute module */
  uint64_t insns_store;         /* ... by the store module */
  uint64_t bytes_read[OVTA_MEM_COUNT]; /* bytes read from DRAM, by memory type (OUT unused) */
  uint64_t bytes_written;       /* bytes written to DRAM by STORE */
  uint64_t gemm_uops;           /* GEMM micro-op executions (one per innermost iteration) */
  uint64_t alu_uops;            /* ALU micro-op executions */
  uint64_t cycles;              /* total cycles of the run */
  uint64_t busy_load, busy_compute, busy_store;    /* cycles a module executed an instruction */
  uint64_t stall_load, stall_compute, stall_store; /* cycles a module waited on a token or room */
} ovta_counters;

#endif
