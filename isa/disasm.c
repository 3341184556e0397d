/* disasm.c: the disassembler and the writer of the text form (ovta_isa.h section 4).
 *
 * Instructions print as the opcode name and name=value for every field of the format, in the
 * order of isa/encoding.json (the generated field specs), so the text form follows the encoding
 * file automatically. isa/ASM.md has the grammar; asm.c parses what this file writes.
 */
#include "ovta_isa.h"

#include <stdlib.h>
#include <string.h>

/* Append to buf like snprintf, keeping count of the full length. */
static void put(char *buf, size_t cap, int *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, int *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t at = (size_t)*n < cap ? (size_t)*n : cap;
  int k = vsnprintf(buf ? buf + at : NULL, buf ? cap - at : 0, fmt, ap);
  va_end(ap);
  if (k > 0) *n += k;
}

/* fields := ( ' ' NAME '=' value )* for every named spec except opcode (and overlap when 0); memory_type and
 * alu_opcode print by name when the value has one, imm signed, the rest unsigned decimal. */
static void format_fields(ovta_format fmt, const void *obj, const char *dram_sym, char *buf, size_t cap,
                          int *n) {
  int nspec;
  const ovta_field_spec *s = ovta_format_specs(fmt, &nspec);
  for (int i = 0; i < nspec; i++) {
    if (!s[i].name || (fmt != OVTA_FMT_UOP && !strcmp(s[i].name, "opcode"))) continue;
    int64_t v = ovta_field_get(obj, &s[i]);
    if (v == 0 && !strcmp(s[i].name, "overlap")) continue; /* the usual case; the text of VTA's fields */
    const char *name = NULL;
    if (!strcmp(s[i].name, "memory_type")) name = ovta_mem_type_name((uint32_t)v);
    else if (!strcmp(s[i].name, "alu_opcode")) name = ovta_alu_op_name((uint32_t)v);
    if (name) put(buf, cap, n, " %s=%s", s[i].name, name);
    else if (dram_sym && !strcmp(s[i].name, "dram_base"))
      put(buf, cap, n, " dram_base=@%s+%lld", dram_sym, (long long)v);
    else put(buf, cap, n, " %s=%lld", s[i].name, (long long)v);
  }
}

int ovta_insn_format(const ovta_insn *in, const char *dram_sym, char *buf, size_t cap) {
  int n = 0;
  if (buf && cap) buf[0] = 0;
  int fmt = ovta_format_of_opcode(in->opcode);
  const char *op = ovta_opcode_name(in->opcode);
  if (fmt < 0 || !op) {
    put(buf, cap, &n, "# unknown opcode %u", in->opcode);
    return n;
  }
  put(buf, cap, &n, "%s", op);
  format_fields((ovta_format)fmt, in, dram_sym, buf, cap, &n);
  return n;
}

int ovta_uop_format(const ovta_uop *u, char *buf, size_t cap) {
  int n = 0;
  if (buf && cap) buf[0] = 0;
  put(buf, cap, &n, "uop");
  format_fields(OVTA_FMT_UOP, u, NULL, buf, cap, &n);
  return n;
}

/* Print one data piece as directives of at most 16 bytes (hex, int8), 8 words (int32) or one
 * micro-op per line. */
static void write_data(FILE *f, const ovta_program *p, const ovta_asm_data *d) {
  const ovta_asm_buffer *b = &p->bufs[d->buffer];
  const uint8_t *x = b->init + d->off;
  switch (d->kind) {
  case OVTA_DATA_HEX:
    for (uint64_t i = 0; i < d->len; i += 16) {
      fprintf(f, ".hex %s+%llu ", b->name, (unsigned long long)(d->off + i));
      for (uint64_t k = i; k < d->len && k < i + 16; k++) fprintf(f, "%02x", x[k]);
      fputc('\n', f);
    }
    break;
  case OVTA_DATA_INT8:
    for (uint64_t i = 0; i < d->len; i += 16) {
      fprintf(f, ".int8 %s+%llu", b->name, (unsigned long long)(d->off + i));
      for (uint64_t k = i; k < d->len && k < i + 16; k++) fprintf(f, " %d", (int8_t)x[k]);
      fputc('\n', f);
    }
    break;
  case OVTA_DATA_INT32:
    for (uint64_t i = 0; i + 4 <= d->len; i += 32) {
      fprintf(f, ".int32 %s+%llu", b->name, (unsigned long long)(d->off + i));
      for (uint64_t k = i; k + 4 <= d->len && k < i + 32; k += 4) {
        uint32_t w = (uint32_t)x[k] | (uint32_t)x[k + 1] << 8 | (uint32_t)x[k + 2] << 16 | (uint32_t)x[k + 3] << 24;
        fprintf(f, " %d", (int32_t)w);
      }
      fputc('\n', f);
    }
    break;
  case OVTA_DATA_UOP: {
    fprintf(f, ".uops %s+%llu\n", b->name, (unsigned long long)d->off);
    for (uint64_t k = 0; k + 4 <= d->len; k += 4) {
      uint32_t w = (uint32_t)x[k] | (uint32_t)x[k + 1] << 8 | (uint32_t)x[k + 2] << 16 | (uint32_t)x[k + 3] << 24;
      ovta_uop u;
      ovta_uop_decode(&p->isa, w, &u);
      char line[256];
      ovta_uop_format(&u, line, sizeof line);
      fprintf(f, "%s\n", line);
    }
    break;
  }
  }
}

/* program := .config, .buffer*, data*, .insns?, instructions, .dump* (isa/ASM.md, "Canonical
 * order"). */
int ovta_program_write(FILE *f, const ovta_program *p, ovta_error *err) {
  fprintf(f, ".config %s\n", p->config[0] ? p->config : p->isa.cfg.name);
  for (size_t i = 0; i < p->n_bufs; i++)
    fprintf(f, ".buffer %s %llu\n", p->bufs[i].name, (unsigned long long)p->bufs[i].size);
  for (size_t i = 0; i < p->n_data; i++) write_data(f, p, &p->data[i]);
  if (p->insn_buf >= 0)
    fprintf(f, ".insns %s+%llu\n", p->bufs[p->insn_buf].name, (unsigned long long)p->insn_off);
  for (size_t i = 0; i < p->n_insns; i++) {
    char line[1024];
    const ovta_asm_insn *ai = &p->insns[i];
    ovta_insn_format(&ai->insn, ai->dram_buf >= 0 ? p->bufs[ai->dram_buf].name : NULL, line, sizeof line);
    fprintf(f, "%s\n", line);
  }
  for (size_t i = 0; i < p->n_dumps; i++)
    fprintf(f, ".dump %s+%llu %llu %s\n", p->bufs[p->dumps[i].buffer].name,
            (unsigned long long)p->dumps[i].off, (unsigned long long)p->dumps[i].len,
            ovta_data_kind_name(p->dumps[i].kind));
  if (ferror(f)) return OVTA_FAIL(err, OVTA_EIO, "%s: write error", p->origin);
  return OVTA_OK;
}

/* A raw stream: instruction i is bytes [16i, 16i+16), two little-endian 64-bit words. */
int ovta_disasm_binary(const ovta_isa *isa, const uint8_t *bytes, size_t len, const char *origin,
                       ovta_program *out, ovta_error *err) {
  ovta_program_init(out, isa);
  if (!origin) origin = "<binary>";
  snprintf(out->origin, sizeof out->origin, "%s", origin);
  if (len % 16)
    return OVTA_FAIL(err, OVTA_EPARSE,
                     "%s: %zu bytes is not a whole number of 16-byte instructions (%zu bytes left over at "
                     "byte offset %zu)", origin, len, len % 16, len - len % 16);
  size_t n = len / 16;
  if (n) {
    out->insns = calloc(n, sizeof *out->insns);
    if (!out->insns) return OVTA_FAIL(err, OVTA_ENOMEM, "%s: out of memory", origin);
  }
  for (size_t i = 0; i < n; i++) {
    ovta_insn_bits b;
    ovta_insn_bits_load(bytes + 16 * i, &b);
    ovta_asm_insn *ai = &out->insns[i];
    ai->dram_buf = -1;
    int rc = ovta_insn_decode(isa, &b, &ai->insn, err);
    if (rc) {
      if (err) ovta_error_wrap(err, "%s: instruction %zu (byte offset %zu)", origin, i, 16 * i);
      ovta_program_free(out);
      return rc;
    }
  }
  out->n_insns = n;
  return OVTA_OK;
}

/* dump line := NAME '+' OFF ':' ( ' ' value ){1..16 bytes} */
void ovta_dump_print(FILE *f, const char *name, uint64_t off, const uint8_t *x, size_t len,
                     ovta_data_kind kind) {
  for (size_t i = 0; i < len; i += 16) {
    fprintf(f, "%s+%llu:", name, (unsigned long long)(off + i));
    for (size_t k = i; k < len && k < i + 16;) {
      if (kind == OVTA_DATA_INT32 && k + 4 <= len) {
        uint32_t w = (uint32_t)x[k] | (uint32_t)x[k + 1] << 8 | (uint32_t)x[k + 2] << 16 | (uint32_t)x[k + 3] << 24;
        fprintf(f, " %d", (int32_t)w);
        k += 4;
      } else if (kind == OVTA_DATA_HEX) {
        fprintf(f, " %02x", x[k++]);
      } else {
        fprintf(f, " %d", (int8_t)x[k++]);
      }
    }
    fputc('\n', f);
  }
}
