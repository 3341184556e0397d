/* isa.c: layout, encoding and static checks (ovta_isa.h sections 1-3). */
#define OVTA_ISA_GEN_TABLES
#include "ovta_isa.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- Layout */

int ovta_isa_init(ovta_isa *isa, const ovta_config *cfg, ovta_error *err) {
  memset(isa, 0, sizeof *isa);
  isa->cfg = *cfg;
  for (int f = 0; f < OVTA_FMT_COUNT; f++) {
    if (ovta_formats[f].n > OVTA_MAX_FORMAT_FIELDS) unreachable();
    int rc = ovta_layout_place(ovta_formats[f].specs, ovta_formats[f].n, ovta_formats[f].bits, cfg,
                               isa->pos[f], err);
    if (rc) return ovta_error_wrap(err, "format '%s'", ovta_formats[f].name);
  }
  return OVTA_OK;
}

int ovta_config_load(const char *name_or_path, ovta_config *cfg, ovta_error *err) {
  int rc = ovta_config_read(name_or_path, cfg, err);
  if (rc) return rc;
  ovta_isa *isa = malloc(sizeof *isa);
  if (!isa) return OVTA_FAIL(err, OVTA_ENOMEM, "out of memory");
  rc = ovta_isa_init(isa, cfg, err);
  free(isa);
  return rc;
}

const ovta_field_spec *ovta_format_specs(ovta_format fmt, int *n) {
  if ((int)fmt < 0 || fmt >= OVTA_FMT_COUNT) return NULL;
  if (n) *n = ovta_formats[fmt].n;
  return ovta_formats[fmt].specs;
}

const char *ovta_format_name(ovta_format fmt) {
  return (int)fmt >= 0 && fmt < OVTA_FMT_COUNT ? ovta_formats[fmt].name : NULL;
}

int ovta_format_of_opcode(uint32_t op) {
  return op < sizeof ovta_opcode_format / sizeof ovta_opcode_format[0] ? ovta_opcode_format[op] : -1;
}

#define NAME_FN(fn, table, count)                                                                  \
  const char *fn(uint32_t v) { return v < (count) ? table[v] : NULL; }
NAME_FN(ovta_opcode_name, ovta_opcode_names, OVTA_OP_COUNT)
NAME_FN(ovta_mem_type_name, ovta_mem_type_names, OVTA_MEM_COUNT)
NAME_FN(ovta_alu_op_name, ovta_alu_op_names, OVTA_ALU_COUNT)

static int from_name(const char *const *table, int count, const char *s) {
  for (int i = 0; i < count; i++)
    if (table[i] && !strcmp(table[i], s)) return i;
  return -1;
}
int ovta_opcode_from_name(const char *s) { return from_name(ovta_opcode_names, OVTA_OP_COUNT, s); }
int ovta_mem_type_from_name(const char *s) { return from_name(ovta_mem_type_names, OVTA_MEM_COUNT, s); }
int ovta_alu_op_from_name(const char *s) { return from_name(ovta_alu_op_names, OVTA_ALU_COUNT, s); }

int ovta_elem_bytes(const ovta_config *c, uint32_t mt) {
  switch (mt) {
  case OVTA_MEM_UOP: return c->uop_bytes;
  case OVTA_MEM_WGT: return c->wgt_bytes;
  case OVTA_MEM_INP: return c->inp_bytes;
  case OVTA_MEM_ACC: return c->acc_bytes;
  case OVTA_MEM_OUT: return c->out_bytes;
  default: return 0;
  }
}

int ovta_sram_depth(const ovta_config *c, uint32_t mt) {
  switch (mt) {
  case OVTA_MEM_UOP: return c->uop_depth;
  case OVTA_MEM_WGT: return c->wgt_depth;
  case OVTA_MEM_INP: return c->inp_depth;
  case OVTA_MEM_ACC: return c->acc_depth;
  case OVTA_MEM_OUT: return c->out_depth;
  default: return 0;
  }
}

int64_t ovta_field_get(const void *obj, const ovta_field_spec *s) {
  const char *p = (const char *)obj + s->member;
  if (s->is_signed) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
  }
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

void ovta_field_set(void *obj, const ovta_field_spec *s, int64_t v) {
  char *p = (char *)obj + s->member;
  uint32_t u = (uint32_t)v;
  memcpy(p, &u, sizeof u);
}

/* ---------------------------------------------------------------- Encoding */

static uint64_t mask(int w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

/* Put every field of format f from obj into words w; fails on a value too wide for its field. */
static int pack(const ovta_isa *isa, int f, const void *obj, uint64_t *w, ovta_error *err) {
  const ovta_field_spec *s = ovta_formats[f].specs;
  for (int i = 0; i < ovta_formats[f].n; i++) {
    if (!s[i].name) continue;
    ovta_field_pos p = isa->pos[f][i];
    int64_t v = ovta_field_get(obj, &s[i]);
    bool fits = s[i].is_signed ? v >= -(1ll << (p.width - 1)) && v < (1ll << (p.width - 1))
                               : v >= 0 && (uint64_t)v <= mask(p.width);
    if (!fits)
      return OVTA_FAIL(err, OVTA_EINSN, "%s field '%s' = %lld does not fit in %d bits",
                       ovta_formats[f].name, s[i].name, (long long)v, p.width);
    w[p.lo / 64] |= ((uint64_t)v & mask(p.width)) << (p.lo % 64);
  }
  return OVTA_OK;
}

/* Take every field of format f out of words w into obj; returns the bits that no field covers. */
static void unpack(const ovta_isa *isa, int f, const uint64_t *w, int nwords, void *obj,
                   uint64_t *covered) {
  const ovta_field_spec *s = ovta_formats[f].specs;
  for (int i = 0; i < nwords; i++) covered[i] = 0;
  for (int i = 0; i < ovta_formats[f].n; i++) {
    if (!s[i].name) continue;
    ovta_field_pos p = isa->pos[f][i];
    uint64_t v = (w[p.lo / 64] >> (p.lo % 64)) & mask(p.width);
    covered[p.lo / 64] |= mask(p.width) << (p.lo % 64);
    int64_t sv = (int64_t)v;
    if (s[i].is_signed && (v >> (p.width - 1)) & 1) sv = (int64_t)(v | ~mask(p.width));
    ovta_field_set(obj, &s[i], sv);
  }
}

int ovta_insn_encode(const ovta_isa *isa, const ovta_insn *in, ovta_insn_bits *out, ovta_error *err) {
  out->w[0] = out->w[1] = 0;
  int f = ovta_format_of_opcode(in->opcode);
  if (f < 0) return OVTA_FAIL(err, OVTA_EINSN, "unknown opcode %u", in->opcode);
  return pack(isa, f, in, out->w, err);
}

int ovta_insn_decode(const ovta_isa *isa, const ovta_insn_bits *in, ovta_insn *out, ovta_error *err) {
  memset(out, 0, sizeof *out);
  uint32_t op = (uint32_t)(in->w[0] & 7);
  int f = ovta_format_of_opcode(op);
  if (f < 0) return OVTA_FAIL(err, OVTA_EINSN, "unknown opcode %u", op);
  uint64_t covered[2];
  unpack(isa, f, in->w, 2, out, covered);
  for (int i = 0; i < 2; i++) {
    uint64_t extra = in->w[i] & ~covered[i];
    if (extra) {
      int bit = __builtin_ctzll(extra) + 64 * i;
      return OVTA_FAIL(err, OVTA_EINSN, "%s: reserved bit %d is set", ovta_opcode_name(op), bit);
    }
  }
  return OVTA_OK;
}

int ovta_uop_encode(const ovta_isa *isa, const ovta_uop *in, uint32_t *out, ovta_error *err) {
  uint64_t w = 0;
  int rc = pack(isa, OVTA_FMT_UOP, in, &w, err);
  *out = (uint32_t)w;
  return rc;
}

void ovta_uop_decode(const ovta_isa *isa, uint32_t in, ovta_uop *out) {
  uint64_t w = in, covered;
  memset(out, 0, sizeof *out);
  unpack(isa, OVTA_FMT_UOP, &w, 1, out, &covered);
}

void ovta_insn_bits_load(const uint8_t b[16], ovta_insn_bits *out) {
  for (int i = 0; i < 2; i++) {
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | b[8 * i + k];
    out->w[i] = v;
  }
}

void ovta_insn_bits_store(const ovta_insn_bits *in, uint8_t b[16]) {
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 8; k++) b[8 * i + k] = (uint8_t)(in->w[i] >> (8 * k));
}

/* ---------------------------------------------------------------- Checks */

/* isa/ISA.md, "Invalid instructions", static part. */
int ovta_insn_check(const ovta_isa *isa, const ovta_insn *in, long index, ovta_error *err) {
  const ovta_config *c = &isa->cfg;
  const char *op = ovta_opcode_name(in->opcode);
  if (!op || ovta_format_of_opcode(in->opcode) < 0)
    return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld: unknown opcode %u", index, in->opcode);
  switch (in->opcode) {
  case OVTA_OP_LOAD:
  case OVTA_OP_STORE: {
    const char *mt = ovta_mem_type_name(in->memory_type);
    if (!mt)
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (%s): unknown memory_type %u", index, op,
                       in->memory_type);
    /* the load module has no "prev", the store module no "next" */
    bool to_load = in->opcode == OVTA_OP_LOAD && (in->memory_type == OVTA_MEM_INP || in->memory_type == OVTA_MEM_WGT);
    if (to_load && (in->pop_prev || in->push_prev))
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (LOAD %s): the load module has no previous module "
                       "(pop_prev and push_prev must be 0)", index, mt);
    if (in->opcode == OVTA_OP_STORE && (in->pop_next || in->push_next))
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (STORE): the store module has no next module "
                       "(pop_next and push_next must be 0)", index);
    if (in->opcode == OVTA_OP_LOAD && in->memory_type == OVTA_MEM_OUT)
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (LOAD): memory_type OUT cannot be loaded", index);
    if (in->opcode == OVTA_OP_STORE && in->memory_type != OVTA_MEM_OUT)
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (STORE): memory_type %s cannot be stored (only OUT)",
                       index, mt);
    if (in->x_size == 0) return OVTA_OK; /* a sync: moves nothing */
    bool pad = in->y_pad_0 || in->y_pad_1 || in->x_pad_0 || in->x_pad_1;
    bool pad_ok = in->opcode == OVTA_OP_LOAD && (in->memory_type == OVTA_MEM_INP || in->memory_type == OVTA_MEM_ACC);
    if (pad && !pad_ok)
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (%s %s): padding is only allowed on INP and ACC loads",
                       index, op, mt);
    uint64_t rows = (uint64_t)in->y_pad_0 + in->y_size + in->y_pad_1;
    uint64_t cols = (uint64_t)in->x_pad_0 + in->x_size + in->x_pad_1;
    uint64_t end = in->sram_base + rows * cols;
    uint64_t depth = (uint64_t)ovta_sram_depth(c, in->memory_type);
    if (end > depth)
      return OVTA_FAIL(err, OVTA_EINSN,
                       "instruction %ld (%s %s): SRAM range [%u, %llu) is outside the %s buffer of %llu elements",
                       index, op, mt, in->sram_base, (unsigned long long)end, mt, (unsigned long long)depth);
    return OVTA_OK;
  }
  case OVTA_OP_GEMM:
  case OVTA_OP_ALU:
    if (in->uop_bgn > in->uop_end || in->uop_end > (uint32_t)c->uop_depth)
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (%s): uop range [%u, %u) is outside uop SRAM [0, %d)",
                       index, op, in->uop_bgn, in->uop_end, c->uop_depth);
    if (in->opcode == OVTA_OP_ALU && !ovta_alu_op_name(in->alu_opcode))
      return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld (ALU): unknown alu_opcode %u", index, in->alu_opcode);
    return OVTA_OK;
  case OVTA_OP_FINISH:
    return OVTA_OK;
  default:
    return OVTA_FAIL(err, OVTA_EINSN, "instruction %ld: unknown opcode %u", index, in->opcode);
  }
}
