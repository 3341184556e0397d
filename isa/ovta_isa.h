/* ovta_isa.h: the instruction set: encoding, static checks, assembler and disassembler.
 *
 * Sections:
 *   1. Layout      - a config's field positions for every format (isa/isa.c).
 *   2. Encoding    - instruction and micro-op encode/decode, one function pair each (isa/isa.c).
 *   3. Checks      - the static rules every backend enforces before executing (isa/isa.c).
 *   4. Text form   - assembler and disassembler (isa/asm.c, isa/disasm.c).
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

/* A program in the assembler's text form: instructions, micro-ops and DRAM data. */
typedef struct ovta_dram_seg {
  uint64_t addr;      /* physical byte address */
  uint8_t *bytes;     /* contents */
  size_t len;         /* bytes */
} ovta_dram_seg;

typedef struct ovta_program {
  char config[64];         /* ".config NAME" (empty: not given) */
  ovta_insn *insns;        /* instructions in stream order */
  size_t n_insns;
  uint64_t insn_addr;      /* ".insn_addr": where the stream is placed in DRAM (0: backend picks) */
  ovta_dram_seg *segs;     /* ".data"/".uops" segments: initial DRAM contents */
  size_t n_segs;
  struct {
    uint64_t addr;         /* ".dump ADDR LEN": ranges to print after a run */
    size_t len;
  } *dumps;
  size_t n_dumps;
} ovta_program;

void ovta_program_free(ovta_program *p);
/* Parse assembler text; errors name origin:line:col with the offending text. */
int ovta_asm_parse(const ovta_isa *isa, const char *text, const char *origin, ovta_program *out,
                   ovta_error *err);
/* Print one instruction as one line: "GEMM reset=0 uop_bgn=0 ..." (no newline). */
int ovta_insn_format(const ovta_insn *in, char *buf, size_t cap);
/* Print a whole program in the text form (parses back to the same program). */
int ovta_program_write(FILE *f, const ovta_isa *isa, const ovta_program *p);
/* Decode a raw stream of 16-byte instructions into a program (no data segments). */
int ovta_disasm_binary(const ovta_isa *isa, const uint8_t *bytes, size_t len, const char *origin,
                       ovta_program *out, ovta_error *err);

#endif
