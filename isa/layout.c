/* layout.c: place the fields of one instruction format for a config (ovta_base.h section 3).
 *
 * Fields are packed from bit 0 upward in the order isa/encoding.json lists them; an alignment
 * marker moves to the given bit. A field never straddles a 64-bit word, so each word can be
 * decoded on its own; bits no field covers are reserved and must be zero.
 */
#include "ovta_base.h"

static int width_of(const ovta_field_spec *s, const ovta_config *c) {
  switch (s->kind) {
  case OVTA_W_FIXED: return s->add;
  case OVTA_W_UOP_IDX: return c->uop_idx_bits + s->add;
  case OVTA_W_INP_IDX: return c->inp_idx_bits + s->add;
  case OVTA_W_WGT_IDX: return c->wgt_idx_bits + s->add;
  case OVTA_W_ACC_IDX: return c->acc_idx_bits + s->add;
  case OVTA_W_SRC_IDX: return c->src_idx_bits + s->add;
  }
  return -1;
}

int ovta_layout_place(const ovta_field_spec *specs, int n, int total_bits, const ovta_config *cfg,
                      ovta_field_pos *out, ovta_error *err) {
  int bit = 0;
  for (int i = 0; i < n; i++) {
    const ovta_field_spec *s = &specs[i];
    if (!s->name) { /* {"align": add} */
      if (s->add < bit)
        return OVTA_FAIL(err, OVTA_ECONFIG,
                         "config '%s': fields before bit %d take %d bits; the encoding does not fit "
                         "(make the buffers smaller)",
                         cfg->name, s->add, bit);
      bit = s->add;
      out[i].lo = bit;
      out[i].width = 0;
      continue;
    }
    int w = width_of(s, cfg);
    if (w < 1 || w > 32)
      return OVTA_FAIL(err, OVTA_ECONFIG, "config '%s': field '%s' would be %d bits wide", cfg->name,
                       s->name, w);
    if (bit / 64 != (bit + w - 1) / 64)
      return OVTA_FAIL(err, OVTA_ECONFIG,
                       "config '%s': field '%s' (%d bits at bit %d) crosses a 64-bit word; the "
                       "encoding does not fit (make the buffers smaller)",
                       cfg->name, s->name, w, bit);
    out[i].lo = bit;
    out[i].width = w;
    bit += w;
  }
  if (bit > total_bits)
    return OVTA_FAIL(err, OVTA_ECONFIG, "config '%s': the format needs %d bits, more than %d",
                     cfg->name, bit, total_bits);
  return OVTA_OK;
}
